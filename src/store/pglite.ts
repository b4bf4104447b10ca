/**
 * Embedded adapter: PGlite (Postgres compiled to WASM) with the real pgvector extension.
 * PGlite is single-connection: one process owns `DATA_DIR/db`.
 * @module
 */
import type { PGlite, Transaction, types as pgTypes } from "@electric-sql/pglite";
import { fsyncSync } from "node:fs";
import { join } from "node:path";
import { idleClosed, MemoryError } from "../domain/errors.ts";
import type { BatchStep, Db, QueryOptions } from "./db.ts";
import { EF_SEARCH } from "./search_params.ts";
import { errorMessage } from "../common/errors.ts";
import { collectGarbage } from "../common/gc.ts";

type Runner = Pick<PGlite, "query" | "exec"> | Transaction;

type PgliteModule = typeof import("@electric-sql/pglite");
let pgliteModule: PgliteModule | undefined;

/**
 * PGlite's module, loaded at the first use. The admin daemon's main thread only talks to the
 * worker ({@link openPgliteInWorker}) and never loads it: importing it statically cost that
 * thread some 10 MiB of RSS (its JavaScript, about 4 MiB of V8 heap) for nothing.
 */
export async function loadPglite(): Promise<PgliteModule> {
  return pgliteModule ??= await import("@electric-sql/pglite");
}

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
function forgetPrepared(pg: PGlite, text: string): void {
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
async function preparedQuery<T>(
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
  const { parse, protocol, types } = pgliteModule ?? await loadPglite();
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
        // it so), as `float4ArrayBinary` (src/store/store.ts) makes them.
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

function wrap(runner: Runner, pg: PGlite, inTx: boolean): Db {
  const db: Db = {
    kind: "pglite",
    query<T>(text: string, params?: unknown[], options?: QueryOptions) {
      return preparedQuery<T>(runner, pg, text, params, inTx, options?.prepare);
    },
    async exec(text: string) {
      forgetPrepared(pg, text);
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

/**
 * Make `dir` and everything below it owner-only: directories 0700, files without group and
 * other bits (0666 becomes 0600). PGlite writes the files of a new database with mode 0666,
 * and installs made before this pass have them so; symbolic links, and the subtree `skip`
 * (already done), are left alone. No-op on Windows (no POSIX modes).
 */
export async function restrictToOwner(dir: string, skip?: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  const walk = async (path: string, info: Deno.FileInfo): Promise<void> => {
    if (info.isSymlink || path === skip) return;
    const mode = (info.mode ?? 0) & 0o777;
    const want = info.isDirectory ? 0o700 : mode & 0o700;
    if (mode !== want) await Deno.chmod(path, want);
    if (!info.isDirectory) return;
    for await (const e of Deno.readDir(path)) {
      const child = join(path, e.name);
      let st: Deno.FileInfo;
      try {
        st = await Deno.lstat(child);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) continue; // removed meanwhile
        throw err;
      }
      await walk(child, st);
    }
  };
  await walk(dir, await Deno.lstat(dir));
}

/** Free space kept in reserve on the database's file system: writes stop below it (64 MiB). */
export const DISK_RESERVE_BYTES = 64 * 1024 * 1024;

/** Free space above the reserve past which a free-space reading is reused (256 MiB). */
export const FREE_SPACE_HEADROOM = 256 * 1024 * 1024;

/** How long such a reading is reused before the next write asks again (1 s). */
export const FREE_SPACE_TTL_MS = 1000;

/** On a small volume the reserve is this fraction of its size instead (when smaller). */
export const DISK_RESERVE_FRACTION = 0.05;

/**
 * The free-space reserve for a volume of `volumeBytes`: the smaller of
 * {@link DISK_RESERVE_BYTES} and {@link DISK_RESERVE_FRACTION} of the volume (64 MiB when the
 * size is unknown), so that a small volume is not refused from the start.
 */
export function diskReserve(volumeBytes: number | null): number {
  if (volumeBytes === null || !(volumeBytes > 0)) return DISK_RESERVE_BYTES;
  return Math.min(DISK_RESERVE_BYTES, Math.floor(volumeBytes * DISK_RESERVE_FRACTION));
}

/** How often a database closed by a full disk is tried again, at most (ms). */
const REOPEN_INTERVAL_MS = 1000;

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /**
   * Free bytes a write needs on the file system of `dataDir` (default {@link diskReserve} of
   * its size; 0 turns the check off). Checked only when the process may
   * call statfs (`--allow-sys=statfs`).
   */
  reserveBytes?: number;
  /** Free bytes on the file system of `dataDir` (tests inject it); default: statfs. */
  freeBytes?: (dir: string) => Promise<number | null>;
  /**
   * Durable commits (default true): `fsync` on, so that an acknowledged write survives an
   * OS crash or a power loss. False runs as PGlite does by default (fsync off: a process
   * crash loses nothing, an OS crash may lose recent writes or corrupt the database).
   */
  durable?: boolean;
  /**
   * Opens the PGlite instance (default: PGlite with pgvector); tests wrap it to inject a
   * failing write at this seam.
   */
  create?: (dataDir: string, durable: boolean) => Promise<PGlite>;
}

/**
 * The 507 of a full disk. `paused`: PGlite itself ran out of space, so the database answers
 * nothing until space is freed; otherwise only writes are refused (the free-space check).
 */
export function diskFullError(dir: string, detail: string, paused = false): MemoryError {
  return new MemoryError(
    507,
    paused
      ? `the disk is full (${detail}): the database in ${dir} is paused and resumes by itself ` +
        "once space is freed"
      : `the disk is full: the database in ${dir} takes no writes (${detail}); reads go on, ` +
        "and writes resume by themselves once space is freed",
  );
}

/** True for the errors of a file system without space (Postgres and Deno wordings). */
export function isNoSpace(err: unknown): boolean {
  const text = err instanceof Error ? `${err.name} ${err.message}` : String(err);
  return /no space left on device|ENOSPC|disk quota exceeded|EDQUOT/i.test(text);
}

/** A statement that writes nothing (reads go on while the disk is full). */
function isRead(text: string): boolean {
  const t = text.trimStart().slice(0, 4000);
  if (/^(select|show|explain)\b/i.test(t)) return !/\bfor\s+(update|share)\b/i.test(t);
  return /^with\b/i.test(t) && !/\b(insert\s+into|update\s+\S+\s+set|delete\s+from)\b/i.test(t);
}

let statfsAllowed: boolean | undefined;

/**
 * Free bytes for unprivileged users (`free`) and size (`size`) of the file system of `dir`;
 * null when unknown.
 */
async function statfsOf(dir: string, what: "free" | "size"): Promise<number | null> {
  statfsAllowed ??= Deno.permissions.querySync({ name: "sys", kind: "statfs" }).state ===
    "granted";
  if (!statfsAllowed) return null;
  try {
    const { statfs } = await import("node:fs/promises");
    const st = await statfs(dir);
    return Number(what === "free" ? st.bavail : st.blocks) * Number(st.bsize);
  } catch {
    return null;
  }
}

const statfsFree = (dir: string) => statfsOf(dir, "free");

/**
 * An embedded database that survives a full disk. PGlite, once a WAL write failed for want of
 * space, spins at 100 % CPU in its next statement and blocks the process for good; so:
 *
 * - every statement goes through one queue, so that PGlite never holds a second one;
 * - a write first checks the free space (when statfs is allowed) and is refused with a 507
 *   below the reserve, before PGlite sees it: reads go on;
 * - when PGlite itself reports ENOSPC, that instance is dropped at once (never called
 *   again, never closed: closing writes a checkpoint) and every statement answers 507 until
 *   a fresh instance opens on the same files, tried at most once a second: that happens by
 *   itself once space is freed, with every acknowledged write there (WAL recovery).
 */
class ResilientPglite {
  #pg: PGlite | null;
  #queue: Promise<unknown> = Promise.resolve();
  #full: string | null = null;
  #lastTry = 0;
  #closed = false;
  #spaceTrustedUntil = 0;

  constructor(
    pg: PGlite,
    readonly dir: string,
    readonly reserve: number,
    readonly freeBytes: (dir: string) => Promise<number | null>,
    readonly durable: boolean,
    readonly create: (dataDir: string, durable: boolean) => Promise<PGlite>,
  ) {
    this.#pg = pg;
  }

  /** The open instance (null while a full disk keeps it closed). */
  get pglite(): PGlite | null {
    return this.#pg;
  }

  /** Run `fn` alone on the instance; `write` statements check the free space first. */
  run<T>(write: boolean, fn: (pg: PGlite) => Promise<T>): Promise<T> {
    const step = this.#queue.then(() => this.#runNow(write, fn));
    this.#queue = step.catch(() => {});
    return step;
  }

  async #runNow<T>(write: boolean, fn: (pg: PGlite) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error("the database is closed");
    const pg = this.#pg ?? await this.#reopen();
    if (write) await this.#checkSpace();
    try {
      return await fn(pg);
    } catch (err) {
      if (isNoSpace(err)) {
        this.#pg = null; // abandoned: its next statement would spin
        this.#spaceTrustedUntil = 0;
        this.#full = errorMessage(err);
        this.#lastTry = Date.now();
        throw diskFullError(this.dir, this.#full, true);
      }
      throw err;
    }
  }

  /**
   * Refuse a write below the reserve. A reading of at least {@link FREE_SPACE_HEADROOM} above
   * the reserve is trusted for {@link FREE_SPACE_TTL_MS}: statfs took about 0.3 ms of every
   * write's 8 (two a create, measured at 2,000 memories), and this process cannot write that
   * headroom in that time; closer to the reserve every write asks again. A disk filled faster
   * by another process still ends in PGlite's own ENOSPC, handled below.
   */
  async #checkSpace(): Promise<void> {
    if (this.reserve <= 0 || Date.now() < this.#spaceTrustedUntil) return;
    const free = await this.freeBytes(this.dir);
    if (free !== null && free < this.reserve) {
      throw diskFullError(
        this.dir,
        `${Math.floor(free / 1048576)} MiB free, ${this.reserve / 1048576} MiB needed`,
      );
    }
    this.#spaceTrustedUntil = free !== null && free >= this.reserve + FREE_SPACE_HEADROOM
      ? Date.now() + FREE_SPACE_TTL_MS
      : 0;
  }

  async #reopen(): Promise<PGlite> {
    const why = this.#full ?? "no space left on device";
    if (Date.now() - this.#lastTry < REOPEN_INTERVAL_MS) throw diskFullError(this.dir, why, true);
    this.#lastTry = Date.now();
    try {
      const pg = await this.create(this.dir, this.durable);
      this.#pg = pg;
      this.#full = null;
      return pg;
    } catch (err) {
      throw diskFullError(this.dir, isNoSpace(err) ? errorMessage(err) : why, true);
    }
  }

  async close(): Promise<void> {
    await this.#queue;
    this.#closed = true;
    const pg = this.#pg;
    this.#pg = null;
    await pg?.close();
  }
}

/** True when a WAL segment's worth of bytes (16 MiB) cannot be written in `dir`. */
async function noRoomFor(dir: string): Promise<boolean> {
  const probe = join(dir, `.space-probe-${Deno.pid}`);
  try {
    const f = await Deno.open(probe, { write: true, createNew: true, mode: 0o600 });
    try {
      const chunk = new Uint8Array(1024 * 1024);
      for (let i = 0; i < 16; i++) await f.write(chunk);
    } finally {
      f.close();
    }
    return false;
  } catch (err) {
    return isNoSpace(err);
  } finally {
    await Deno.remove(probe).catch(() => {});
  }
}

/**
 * What to throw when the database in `dataDir` failed to open or be created with `err`: a
 * clear "the disk is full" error when that is why (PGlite reports a failed start as "failed
 * to initialize properly", or an object), else `err` itself. `reserve` defaults to
 * {@link diskReserve} of the volume.
 */
export async function openFailure(
  dataDir: string,
  err: unknown,
  reserve?: number,
  freeBytes: (dir: string) => Promise<number | null> = statfsFree,
): Promise<unknown> {
  const need = reserve ?? diskReserve(await statfsOf(dataDir, "size"));
  const free = await freeBytes(dataDir);
  if (isNoSpace(err) || (free !== null && free < need) || await noRoomFor(dataDir)) {
    return new Error(
      `the disk is full: the database in ${dataDir} cannot be opened or created (${
        free === null ? "no space left on device" : `${Math.floor(free / 1048576)} MiB free`
      }); free space on its file system and start again`,
      { cause: err },
    );
  }
  return err;
}

/** The smallest and largest shared buffer pool of the embedded database (MiB). */
export const SHARED_BUFFERS_MIN_MB = 8;
export const SHARED_BUFFERS_MAX_MB = 16;

/**
 * The shared buffer pool for a database of `dataBytes` on disk: a quarter of it, between
 * {@link SHARED_BUFFERS_MIN_MB} and {@link SHARED_BUFFERS_MAX_MB} MiB, in whole MiB. PGlite's
 * default (128 MiB) is resident from the start whatever the data (PGlite zeroes the pool), so
 * a small database pays for it all day; the pages that do not fit stay in the OS page cache
 * (not the daemon's memory) and are read from there. At 20,000 memories (some 240 MB of data)
 * a pool of 24 MiB rather than 60 MiB left the daemon 40 MiB lighter with search as fast; in
 * 0.9 a pool of 8 MiB searched 20,000 memories as fast as one of 16 (the benchmark's daemon,
 * started on an empty database), with 8 MiB less WASM memory, so the bounds went from 16–24 to
 * 8–16 MiB (docs/performance.md, "Idle memory at 20,000 memories").
 */
export function sharedBuffersMb(dataBytes: number): number {
  const quarter = Math.ceil(dataBytes / 4 / 1048576);
  return Math.max(SHARED_BUFFERS_MIN_MB, Math.min(SHARED_BUFFERS_MAX_MB, quarter));
}

/**
 * The embedded database's statistics target: `ANALYZE` samples 300 × this many rows of a
 * table (see {@link laptopStartParams}).
 */
export const STATISTICS_TARGET = 10;

/**
 * The settings of an embedded database on a laptop, for a database of `dataBytes`:
 *
 * - a buffer pool sized for the data ({@link sharedBuffersMb}), WAL buffers of 1 MiB;
 * - a small write-ahead log: a checkpoint once 48 MiB of log accumulate, no more than 32 MiB
 *   of old segments kept for reuse, none kept for replicas (there are none). PGlite runs
 *   Postgres in single-user mode, where no checkpointer runs on a timer: only the size of the
 *   log (default up to 1 GiB) and closing the database trigger one, so the log of a day's
 *   writes or of an import stayed on disk (see also {@link Store.settle});
 * - old segments removed at a checkpoint rather than renamed into spares for reuse
 *   (`wal_recycle = off`), and new ones created sparse rather than written full of zeros
 *   (`wal_init_zero = off`): the log takes on disk what it holds. After an import of 20,000
 *   memories it kept 48 MiB (three segments of 16 MiB, two of them spares), now 0-6 MiB (with
 *   {@link Store.settle}'s switch to a new segment). Syncs are unchanged (fsync on); a full disk
 *   fails a log write instead of a segment's creation;
 * - full-page images in the log compressed (pglz), which halves the log of a bulk load;
 * - 32 MiB for index builds (HNSW builds on a bigger graph spill to disk, slower but
 *   bounded), 4 MiB per sort;
 * - planner statistics from a sample of 3,000 rows a table (`default_statistics_target = 10`,
 *   {@link STATISTICS_TARGET}) rather than 30,000. `ANALYZE` holds its sample in memory,
 *   whole rows: at 20,000 memories (a 384-dimension vector inline in each row) the analysis
 *   after an import grew PGlite's WASM memory by 42 MiB, which it never gives back, against
 *   6 MiB with this sample (docs/performance.md, "Idle memory at 20,000 memories").
 */
export function laptopStartParams(dataBytes: number): string[] {
  return [
    ["shared_buffers", `${sharedBuffersMb(dataBytes)}MB`],
    ["wal_buffers", "1MB"],
    ["max_wal_size", "48MB"],
    ["min_wal_size", "32MB"],
    ["wal_keep_size", "0"],
    ["wal_recycle", "off"],
    ["wal_init_zero", "off"],
    ["wal_compression", "pglz"],
    ["maintenance_work_mem", "32MB"],
    ["work_mem", "4MB"],
    ["default_statistics_target", String(STATISTICS_TARGET)],
  ].flatMap(([k, v]) => ["-c", `${k}=${v}`]);
}

/** Bytes of the files under `dir` (0 when it does not exist). */
async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  try {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) total += await dirBytes(path);
      else if (e.isFile) total += (await Deno.stat(path).catch(() => ({ size: 0 }))).size;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return total;
}

/**
 * PGlite's start parameters: the laptop settings ({@link laptopStartParams}) for the data in
 * `dataDir` (its tables and indexes, `base/`), and with `durable` `fsync` on: PGlite starts
 * Postgres with `-F` (fsync off). WAL flushes use `fsync()`, the one sync call PGlite's file
 * system can pass on (its `fdatasync()` does nothing); see {@link syncToDisk}.
 */
export async function startParams(
  dataDir: string | undefined,
  durable: boolean,
): Promise<string[]> {
  const { PGlite } = await loadPglite();
  const defaults = (PGlite as unknown as { defaultStartParams?: string[] }).defaultStartParams;
  if (!Array.isArray(defaults)) throw new Error("PGlite.defaultStartParams is missing");
  const data = dataDir ? await dirBytes(join(dataDir, "base")) : 0;
  const params = [...defaults, ...laptopStartParams(data)];
  return durable ? [...params.filter((p) => p !== "-F"), "-c", "wal_sync_method=fsync"] : params;
}

/**
 * Make PGlite's `fsync()` reach the disk. Its Node file system (Emscripten NODEFS) has no
 * fsync operation, so Postgres's fsync calls return at once without syncing anything; this
 * adds one that calls the real fsync on the file's descriptor.
 */
function syncToDisk(pg: PGlite): void {
  // deno-lint-ignore no-explicit-any
  const FS = (pg as any).mod?.FS;
  const ops = FS?.lookupPath?.("/pglite/data", {})?.node?.stream_ops;
  if (!ops || typeof ops.read !== "function") {
    throw new Error("cannot reach PGlite's file system to make fsync durable");
  }
  if (ops.mnemeFsync) return; // shared by every NODEFS node; patched once
  ops.mnemeFsync = true;
  ops.fsync = (stream: { nfd?: number }) => {
    if (stream.nfd === undefined) return 0;
    try {
      fsyncSync(stream.nfd);
    } catch (err) {
      const code = (err as { code?: string }).code;
      // Directories and special files may refuse fsync; Postgres treats that as done.
      if (code === "EISDIR" || code === "EINVAL" || code === "EBADF") return 0;
      throw new FS.ErrnoError(29); // EIO: Postgres reports the failed sync
    }
    return 0;
  };
}

/** The databases `initdb` makes besides `postgres`, which only `CREATE DATABASE` copies. */
export const TEMPLATE_DATABASES = ["template0", "template1"] as const;

/**
 * Drop the template databases (`template0`, `template1`: 7.1 MiB of files each) of an
 * embedded database, which has exactly one database, `postgres`, that PGlite connects to
 * (`PGDATABASE`). Nothing of PGlite or of Mneme uses them once the database exists: `initdb`
 * makes a new database from scratch, a backup is a tarball of the data directory and a
 * restore unpacks one, and no code creates a database (which is all a template is for). A
 * drop cut short (Postgres marks the database invalid, removes its files, then its row) is
 * finished at the next open, which finds the row again. Returns how many were dropped.
 */
export async function dropTemplateDatabases(pg: PGlite): Promise<number> {
  const rows = (await pg.query<{ datname: string }>(
    "select datname from pg_database where datname = any($1::text[])",
    [[...TEMPLATE_DATABASES]],
  )).rows;
  for (const { datname } of rows) {
    await pg.exec(`update pg_database set datistemplate = false where datname = '${datname}'`);
    await pg.exec(`drop database ${datname}`);
  }
  return rows.length;
}

async function createPglite(dataDir?: string, durable = false): Promise<PGlite> {
  const [{ PGlite }, { vector }] = await Promise.all([
    loadPglite(),
    import("@electric-sql/pglite-pgvector"),
  ]);
  const pg = await PGlite.create({
    dataDir,
    extensions: { vector },
    startParams: await startParams(dataDir, durable),
  });
  if (durable) syncToDisk(pg);
  // Iterative index scans keep filtered nearest-neighbour queries on the HNSW index.
  await pg.exec(`set hnsw.iterative_scan = relaxed_order; set hnsw.ef_search = ${EF_SEARCH}`);
  // A database made before 0.10 still has them: dropped at its first open. Only space is at
  // stake, so a failure (a full disk) leaves them for the next open rather than failing this.
  if (dataDir) await dropTemplateDatabases(pg).catch(() => 0);
  return pg;
}

function resilientDb(h: ResilientPglite): Db {
  return {
    kind: "pglite",
    query<T>(text: string, params?: unknown[], options?: QueryOptions) {
      return h.run(
        !isRead(text),
        (pg) => preparedQuery<T>(pg, pg, text, params, false, options?.prepare),
      );
    },
    exec(text: string) {
      return h.run(!isRead(text), async (pg) => {
        forgetPrepared(pg, text);
        await pg.exec(text);
      });
    },
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      return h.run(true, (pg) => pg.transaction((tx) => fn(wrap(tx, pg, true))));
    },
    // In the statement queue: no statement or transaction of this process runs meanwhile.
    dump: () =>
      h.run(false, async (pg) => {
        await pg.exec("checkpoint");
        return await pg.dumpDataDir("gzip");
      }),
    close: () => h.close(),
  };
}

/**
 * Open (creating when needed) an embedded database; `dataDir` undefined means in memory.
 * The directory and its files are owner-only (see {@link restrictToOwner}); on disk, a full
 * disk makes writes fail with a 507 and never blocks the process (see {@link PgliteOptions}).
 */
export async function openPglite(
  dataDir?: string,
  opts: PgliteOptions = {},
): Promise<Db & { readonly pglite: PGlite }> {
  if (!dataDir) {
    const pg = await createPglite();
    return Object.assign(wrap(pg, pg, false), { pglite: pg });
  }
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (Deno.build.os !== "windows") await Deno.chmod(dataDir, 0o700);
  const created = !(await Deno.stat(join(dataDir, "PG_VERSION")).then(() => true, () => false));
  const reserve = opts.reserveBytes ?? diskReserve(await statfsOf(dataDir, "size"));
  let pg: PGlite;
  try {
    pg = await (opts.create ?? createPglite)(dataDir, opts.durable ?? true);
  } catch (err) {
    throw await openFailure(dataDir, err, reserve, opts.freeBytes);
  }
  // The files of a new database come out of PGlite's image with mode 0666.
  await restrictToOwner(dataDir);
  // PGlite creates a database with two more WASM instances and a copy of the files in memory
  // (some 400 MiB), garbage once it is open, which V8 may keep for minutes: collected now when
  // the process may (`--expose-gc` in the daemon's V8 flags, src/programs.ts).
  if (created) collectGarbage();
  const h = new ResilientPglite(
    pg,
    dataDir,
    reserve,
    opts.freeBytes ?? statfsFree,
    opts.durable ?? true,
    opts.create ?? createPglite,
  );
  const db = resilientDb(h);
  return Object.defineProperty(db, "pglite", {
    get: () => {
      if (!h.pglite) throw diskFullError(dataDir, "no space left on device", true);
      return h.pglite;
    },
  }) as Db & { readonly pglite: PGlite };
}

/** Wrap an already open PGlite instance (tests that also serve it over a socket). */
export function wrapPglite(pg: PGlite): Db {
  return wrap(pg, pg, false);
}

/** A request of the daemon's thread to the database worker (src/store/pglite_worker.ts). */
export type WorkerRequest =
  & { id: number }
  & (
    | { op: "open"; dataDir: string; durable?: boolean; reserveBytes?: number }
    | { op: "query"; text: string; params?: unknown[]; tx?: number; prepare?: boolean }
    | { op: "exec"; text: string; tx?: number }
    | { op: "batch"; steps: BatchStep[]; tx?: number }
    | { op: "begin"; tx: number }
    | { op: "end"; tx: number; commit: boolean }
    | { op: "dump"; tx?: undefined }
    | { op: "close"; tx?: undefined }
  );

/** The worker's answer to the request of the same `id`. */
export interface WorkerReply {
  id: number;
  ok: boolean;
  rows?: unknown[];
  bytes?: ArrayBuffer;
  type?: string;
  /** A failure: its name, message, HTTP status (a MemoryError) and Postgres's fields. */
  error?: {
    name: string;
    message: string;
    stack?: string;
    status?: number;
    fields: Record<string, string | number | boolean>;
  };
}

/** An error of the worker, rebuilt in the daemon's thread with the fields it carried. */
function rebuildError(e: NonNullable<WorkerReply["error"]>): Error {
  const fields = { ...e.fields };
  delete fields.status;
  delete fields.message;
  delete fields.name;
  const err = e.status !== undefined
    ? new MemoryError(e.status as 500, e.message)
    : Object.assign(new Error(e.message), { name: e.name });
  Object.assign(err, fields);
  return err;
}

/** The embedded database run by a worker thread: {@link Db}, and whether it is busy. */
export type WorkerDb = Db & Required<Pick<Db, "busyFor" | "quietFor" | "renew" | "unloaded">> & {
  /** How many times the worker was replaced ({@link Db.renew}). */
  readonly replacements: number;
  /** How many times the database was closed for idleness ({@link WorkerOptions.idleUnloadMs}). */
  readonly unloads: number;
};

/** Options of {@link openPgliteInWorker}. */
export interface WorkerOptions extends Pick<PgliteOptions, "durable" | "reserveBytes"> {
  /**
   * Close the database and end its worker after this long (ms) without a statement, and open
   * it again in a new worker at the next one (about half a second at 20,000 memories): an idle
   * daemon gives back PGlite's WASM memory, its compiled code and the worker's heap (some 80
   * MiB at 20,000 memories). 0 or absent: never.
   */
  idleUnloadMs?: number;
}

/**
 * Open (creating when needed) the embedded database in `dataDir` in a worker thread
 * (src/store/pglite_worker.ts), which runs {@link openPglite} there: the same database, disk
 * guard and statement queue, but a long statement (an index build, a vacuum, a dump) holds
 * the worker's thread, not the caller's. Statements cross as messages: parameters and rows
 * by structured clone, errors with their name, message, HTTP status ({@link MemoryError}) and
 * Postgres's fields (`code`, `detail`, …). A transaction is pinned to the worker's connection
 * while it is open: other statements queue behind it there, as in the thread. The worker
 * holds the process's permissions (src/store/pglite_worker.ts says why no fewer).
 */
export async function openPgliteInWorker(
  dataDir: string,
  opts: WorkerOptions = {},
): Promise<WorkerDb> {
  const waiting = new Map<
    number,
    {
      resolve: (r: WorkerReply) => void;
      reject: (e: Error) => void;
      at: number;
      background: boolean;
    }
  >();
  let nextId = 1;
  let nextTx = 1;
  let dead: Error | null = null;
  /** Closed for idleness: the next statement opens it again (see `idleUnloadMs`). */
  let unloaded: { reopenError?: string } | null = null;
  let unloads = 0;
  const idleMs = opts.idleUnloadMs ?? 0;
  let lastActive = performance.now();
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The database is being closed for idleness. */
  let closing = false;
  const fail = (err: Error) => {
    dead ??= err;
    clearTimeout(idleTimer);
    for (const w of waiting.values()) w.reject(dead);
    waiting.clear();
  };
  /** Transactions begun and not ended. */
  let openTx = 0;
  /** A replacement of the worker in progress: new statements and transactions wait for it. */
  let gate: Promise<void> | null = null;
  let replaced = 0;
  const spawn = (): Worker => {
    const w = new Worker(new URL("./pglite_worker.ts", import.meta.url).href, { type: "module" });
    w.onmessage = (e: MessageEvent<WorkerReply>) => {
      const entry = waiting.get(e.data.id);
      if (!entry) return;
      waiting.delete(e.data.id);
      if (!entry.background) lastActive = performance.now();
      armIdle();
      if (e.data.ok) entry.resolve(e.data);
      else entry.reject(rebuildError(e.data.error!));
    };
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      w.terminate();
      if (w === worker) fail(new Error(`the database worker stopped: ${e.message}`));
    };
    w.onmessageerror = () => {
      if (w === worker) fail(new Error("the database worker sent an unreadable message"));
    };
    return w;
  };
  let worker = spawn();
  /** Send one request to the current worker. */
  const post = (
    req: DistributiveOmit<WorkerRequest, "id">,
    background = false,
  ): Promise<WorkerReply> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    const at = performance.now();
    if (!background) lastActive = at;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject, at, background });
      worker.postMessage({ ...req, id });
    });
  };
  const open = () =>
    post({ op: "open", dataDir, durable: opts.durable, reserveBytes: opts.reserveBytes });
  /**
   * Wait for a replacement to end, and open the database again if it was closed for
   * idleness (the caller then posts in the same turn).
   */
  const passGate = async () => {
    while (!dead && (gate || unloaded)) await (gate ?? reopen());
  };
  /** Open the database closed for idleness in a new worker; a failure stays for the next call. */
  const reopen = (): Promise<void> =>
    gate ??= (async () => {
      try {
        // Only the database that was closed: never a new one where its files went missing.
        await Deno.stat(join(dataDir, "PG_VERSION")).catch((err) => {
          throw new Error(`the database files in ${dataDir} are gone: ${errorMessage(err)}`);
        });
        worker = spawn();
        await open();
      } catch (err) {
        worker.terminate();
        unloaded = { reopenError: errorMessage(err) };
        // A full disk keeps its 507; anything else: the database is unavailable (503).
        if (err instanceof MemoryError) throw err;
        throw new MemoryError(503, `the database could not be opened again: ${errorMessage(err)}`);
      }
      unloaded = null;
    })().finally(() => {
      gate = null;
    });
  /**
   * Close the database and end its worker once nothing is in flight and nothing was sent for
   * `idleMs` (checked again later otherwise).
   */
  const armIdle = () => {
    if (!idleMs || idleTimer !== undefined || dead || unloaded) return;
    const wait = Math.max(50, idleMs - (performance.now() - lastActive));
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      if (dead || unloaded) return;
      // Checks in flight (`background`) do not hold it open: the worker answers them first.
      const inFlight = [...waiting.values()].some((w) => !w.background);
      if (gate || inFlight || openTx || performance.now() - lastActive < idleMs) {
        armIdle();
        return;
      }
      closing = true;
      gate = (async () => {
        await post({ op: "close" });
        worker.terminate();
        unloaded = {};
        unloads++;
      })().catch((err) => {
        fail(new Error(`the database could not be closed for idleness: ${errorMessage(err)}`));
      }).finally(() => {
        closing = false;
        gate = null;
      });
    }, wait);
    Deno.unrefTimer(idleTimer);
  };
  /** A statement; outside a transaction it waits for a replacement in progress. */
  const call = async (
    req: DistributiveOmit<WorkerRequest, "id">,
    background = false,
  ): Promise<WorkerReply> => {
    // A check never opens a database closed for idleness (nor one being closed).
    if (background && (unloaded || closing)) throw idleClosed();
    // A transaction's statements follow its begin, which passed the gate already.
    if (!("tx" in req) || req.tx === undefined) await passGate();
    return await post(req, background);
  };
  /**
   * Replace the worker by a fresh one on the same database once nothing is in flight: PGlite's
   * WASM memory, which never shrinks, goes with the old one. New statements wait meanwhile.
   */
  const renew = (): Promise<void> =>
    gate ??= (async () => {
      while (waiting.size || openTx) await new Promise((r) => setTimeout(r, 5));
      // Closed for idleness meanwhile: its memory went with its worker.
      if (unloaded) return;
      const old = worker;
      await post({ op: "close" });
      worker = spawn();
      old.terminate();
      await open();
      replaced++;
    })().catch((err) => {
      fail(new Error(`the database worker could not be replaced: ${errorMessage(err)}`));
      throw dead;
    }).finally(() => {
      gate = null;
    });
  const runner = (tx?: number): Db => {
    const db: Db = {
      kind: "pglite",
      async query<T>(text: string, params?: unknown[], options?: QueryOptions) {
        const prepare = options?.prepare;
        return (await call({ op: "query", text, params, tx, prepare }, options?.background))
          .rows as T[];
      },
      async exec(text: string) {
        await call({ op: "exec", text, tx });
      },
      async batch(steps: BatchStep[]) {
        return (await call({ op: "batch", steps, tx })).rows as unknown[][];
      },
      async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
        if (tx !== undefined) return await fn(db);
        await passGate();
        // Its statements go at once, without waiting for `begin`'s answer: the worker holds
        // them until the transaction holds the database (one round trip less).
        const id = nextTx++;
        openTx++;
        try {
          const began = call({ op: "begin", tx: id });
          began.catch(() => {});
          let result: T;
          try {
            result = await fn(runner(id));
            await began;
          } catch (err) {
            await call({ op: "end", tx: id, commit: false }).catch(() => {});
            throw err;
          }
          await call({ op: "end", tx: id, commit: true });
          return result;
        } finally {
          openTx--;
        }
      },
      async dump() {
        const r = await call({ op: "dump" });
        return new Blob([r.bytes!], { type: r.type });
      },
      async close() {
        if (dead) return;
        while (gate) await gate.catch(() => {});
        if (dead) return;
        clearTimeout(idleTimer);
        if (unloaded) {
          fail(new Error("the database is closed"));
          return;
        }
        try {
          await post({ op: "close" });
        } finally {
          fail(new Error("the database is closed"));
          worker.terminate();
        }
      },
    };
    return db;
  };
  try {
    await open();
  } catch (err) {
    fail(new Error("the database did not open"));
    worker.terminate();
    throw err;
  }
  armIdle();
  const db = Object.assign(runner(), {
    renew,
    unloaded: () => unloaded && { ...unloaded },
    busyFor(): number | null {
      let oldest = Infinity;
      for (const w of waiting.values()) oldest = Math.min(oldest, w.at);
      return oldest === Infinity ? null : performance.now() - oldest;
    },
    quietFor(): number {
      if (openTx || [...waiting.values()].some((w) => !w.background)) return 0;
      return performance.now() - lastActive;
    },
  });
  // How many times the worker was replaced (a getter: Object.assign would copy its value).
  return Object.defineProperties(db, {
    replacements: { get: () => replaced },
    unloads: { get: () => unloads },
  }) as WorkerDb;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
