/**
 * Prepared statements of the embedded database: PGlite's own `query` makes six calls into
 * WASM for one statement; {@link preparedQuery} makes one, keeping each statement's parameter
 * types and columns (and, with `prepare`, the statement itself) per instance. Kept apart from
 * opening and the disk guard because it is the hot path of every statement.
 * @module
 */
import type { PGlite, Transaction, types as pgTypes } from "@electric-sql/pglite";
import { loadedPglite, loadPglite } from "./module.ts";

/** What runs a statement: the instance, or one of its transactions. */
export type Runner = Pick<PGlite, "query" | "exec"> | Transaction;

/** Statements kept prepared on one PGlite instance, at most this many (the least recent go). */
export const PREPARED_MAX = 128;

/** A statement prepared by {@link preparedQuery}: its name, parameter types and columns. */
interface Prepared {
  name: string;
  paramTypes: number[];
  fields: { name: string; dataTypeID: number }[];
}

/**
 * The prepared statements of each PGlite instance, by text (a Map keeps their order of use),
 * and those to close before the next one is prepared.
 */
const preparedOf = new WeakMap<
  PGlite,
  { next: number; byText: Map<string, Prepared>; closing: string[] }
>();

/** Statements worth keeping prepared: reads and writes (not settings, DDL, transaction control). */
const PREPARABLE = /^\s*(select|with|insert|update|delete)\b/i;

/** Statements after which the prepared ones still describe the schema (settings, transactions). */
const KEEPS_SCHEMA = /^\s*(set|reset|show|begin|commit|rollback|savepoint|release)\b/i;

/**
 * After a statement that may change the schema (DDL: a migration, a column's new type, an
 * index dropped or built; or anything else not known to keep it), the prepared statements are
 * dropped: a prepared `select *` would fail once its columns changed. They are closed with the
 * next statement prepared, in the same call, and prepared again when used.
 */
export function forgetPrepared(pg: PGlite, text: string): void {
  if (KEEPS_SCHEMA.test(text) && !/;\s*\S/.test(text)) return;
  const cache = preparedOf.get(pg);
  if (!cache?.byText.size) return;
  for (const st of cache.byText.values()) if (st.name) cache.closing.push(st.name);
  cache.byText.clear();
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Run one statement in one call into the WASM module (parse, bind, execute, sync) instead of
 * PGlite's six (parse, describe, bind, describe, execute, sync): its parameter types and
 * columns are described once, at its first use, and kept for the next (a trivial select
 * 0.12 → 0.07 ms). Planned anew at each call, as by `pg.query`. With `prepare` (a statement
 * whose plan cannot depend on its parameters' values, as {@link QueryOptions.prepare} on
 * server Postgres) it is kept as a named prepared statement instead, neither parsed nor
 * analysed again (0.04 ms), and Postgres may keep its plan (a generic plan, after five). At
 * most {@link PREPARED_MAX} statements are kept. Parameters are serialised and rows parsed
 * with the instance's own serializers and parsers, as `pg.query` does; errors are PGlite's,
 * with `query` and `params` as `pg.query` adds them.
 */
export async function preparedQuery<T>(
  runner: Runner,
  pg: PGlite,
  text: string,
  params: unknown[] | undefined,
  inTx: boolean,
  named = false,
): Promise<T[]> {
  if (!PREPARABLE.test(text)) {
    forgetPrepared(pg, text);
    return (await runner.query<T>(text, params)).rows;
  }
  const values = params ?? [];
  await pg._checkReady(); // "PGlite is closed", as pg.query says it
  // The locks `pg.query` takes: outside a transaction it waits for any open one to end.
  const exclusive = <R>(fn: () => Promise<R>): Promise<R> =>
    inTx ? pg.runExclusive(fn) : pg._runExclusiveTransaction(() => pg.runExclusive(fn));
  const { parse, protocol, types } = loadedPglite() ?? await loadPglite();
  return await exclusive(async () => {
    let cache = preparedOf.get(pg);
    if (!cache) preparedOf.set(pg, cache = { next: 1, byText: new Map(), closing: [] });
    const s = protocol.serialize;
    const key = named ? `named:${text}` : text;
    let st = cache.byText.get(key);
    try {
      if (st) {
        cache.byText.delete(key); // moved to the end: the most recently used
      } else {
        const name = named ? `mneme_${cache.next++}` : "";
        if (cache.byText.size >= PREPARED_MAX) {
          const [oldKey, old] = cache.byText.entries().next().value!;
          cache.byText.delete(oldKey);
          if (old.name) cache.closing.push(old.name);
        }
        const closing = cache.closing.splice(0).map((n) => s.close({ type: "S", name: n }));
        const { messages } = await pg.execProtocol(
          concatBytes([
            ...closing,
            s.parse({ name, text }),
            s.describe({ type: "S", name }),
            s.sync(),
          ]),
          { syncToFs: false },
        );
        const desc = messages.find((m) => m.name === "rowDescription") as
          | { fields: { name: string; dataTypeID: number }[] }
          | undefined;
        st = {
          name,
          paramTypes: parse.parseDescribeStatementResults(messages),
          fields: desc?.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })) ?? [],
        };
      }
      cache.byText.set(key, st);
      const serializers = (pg as unknown as { serializers: Record<number, (x: unknown) => string> })
        .serializers;
      const bound = values.map((v, i) => {
        if (v === null || v === undefined) return null;
        // Bytes go as they are: a parameter in Postgres's binary format (PGlite's bind marks
        // it so), as `float4ArrayBinary` (src/store/sql.ts) makes them.
        if (v instanceof Uint8Array) return v;
        const f = serializers[st!.paramTypes[i]];
        return f ? f(v) : String(v);
      });
      const { messages } = await pg.execProtocol(
        concatBytes([
          ...(st.name ? [] : [s.parse({ text })]),
          s.bind({ statement: st.name, values: bound }),
          s.execute({}),
          s.sync(),
        ]),
        { syncToFs: !inTx },
      );
      const parsers = (pg as unknown as { parsers: Record<number, pgTypes.Parser> }).parsers;
      const fields = st.fields;
      const rows: T[] = [];
      for (const m of messages) {
        if (m.name !== "dataRow") continue;
        const cells = (m as unknown as { fields: (string | null)[] }).fields;
        const row: Record<string, unknown> = {};
        for (let i = 0; i < fields.length; i++) {
          row[fields[i].name] = types.parseType(cells[i], fields[i].dataTypeID, parsers);
        }
        rows.push(row as T);
      }
      return rows;
    } catch (err) {
      if (err instanceof Error) Object.assign(err, { query: text, params });
      throw err;
    }
  });
}
