/**
 * Embedded adapter: PGlite (Postgres compiled to WASM) with the real pgvector extension.
 * PGlite is single-connection: one process owns `DATA_DIR/db`.
 * @module
 */
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import type { Db } from "./db.ts";

type Runner = Pick<PGlite, "query" | "exec"> | Transaction;

function wrap(runner: Runner, pg: PGlite, inTx: boolean): Db {
  const db: Db = {
    kind: "pglite",
    async query<T>(text: string, params?: unknown[]) {
      const res = await runner.query<T>(text, params);
      return res.rows;
    },
    async exec(text: string) {
      await runner.exec(text);
    },
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(db);
      return pg.transaction((tx) => fn(wrap(tx, pg, true)));
    },
    close: () => pg.close(),
  };
  return db;
}

/** Open (creating when needed) an embedded database; `dataDir` undefined means in memory. */
export async function openPglite(dataDir?: string): Promise<Db & { pglite: PGlite }> {
  if (dataDir) await Deno.mkdir(dataDir, { recursive: true });
  const pg = await PGlite.create({ dataDir, extensions: { vector } });
  // Iterative index scans keep filtered nearest-neighbour queries on the HNSW index.
  await pg.exec("set hnsw.iterative_scan = relaxed_order; set hnsw.ef_search = 60");
  return Object.assign(wrap(pg, pg, false), { pglite: pg });
}

/** Wrap an already open PGlite instance (tests that also serve it over a socket). */
export function wrapPglite(pg: PGlite): Db {
  return wrap(pg, pg, false);
}
