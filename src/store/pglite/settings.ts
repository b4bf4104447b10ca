/**
 * How the embedded database is started: the laptop settings sized for its data, durable
 * `fsync`, and the template databases it does not need. Kept apart from opening so that the
 * reasons for each setting stay readable beside it.
 * @module
 */
import type { PGlite } from "@electric-sql/pglite";
import { fsyncSync } from "node:fs";
import { join } from "node:path";
import { loadPglite } from "./module.ts";

export const SHARED_BUFFERS_MIN_MB = 8;
export const SHARED_BUFFERS_MAX_MB = 48;

/**
 * The shared buffer pool for a database of `dataBytes` on disk: half of it, between
 * {@link SHARED_BUFFERS_MIN_MB} and {@link SHARED_BUFFERS_MAX_MB} MiB, in whole MiB. PGlite's
 * default (128 MiB) is resident from the start whatever the data (PGlite zeroes the pool), so
 * a small database pays for it all day; the pages that do not fit stay in the OS page cache
 * (not the daemon's memory) and are read from there, through PGlite's file system: about 5 µs
 * of CPU a page. A search at 20,000 memories (98 MB of tables and indexes) touches about 1,500
 * pages, most of them the two HNSW graphs': with a pool of 16 MiB it read 550 of them from the
 * file system, with 48 MiB 28, and took 11.3 against 8.8 ms of CPU (docs/performance.md, "0.19:
 * search tail at 20k"). Until 0.19 a quarter, 8–16 MiB (0.9: a pool of 8 MiB searched 20,000
 * memories as fast as one of 16 on a loaded machine, with 8 MiB less WASM memory;
 * docs/history/performance-2026-11-25-to-28.md, "Idle memory at 20,000 memories"). The size is
 * fixed when the database opens: a daemon started on an empty database gets its pool for the
 * data when its worker is renewed after a series of imports (src/memory/importer.ts).
 */
export function sharedBuffersMb(dataBytes: number): number {
  const half = Math.ceil(dataBytes / 2 / 1048576);
  return Math.max(SHARED_BUFFERS_MIN_MB, Math.min(SHARED_BUFFERS_MAX_MB, half));
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
 *   writes or of an import stayed on disk (see also `settle` in src/store/maintenance.ts);
 * - old segments removed at a checkpoint rather than renamed into spares for reuse
 *   (`wal_recycle = off`), and new ones created sparse rather than written full of zeros
 *   (`wal_init_zero = off`): the log takes on disk what it holds. After an import of 20,000
 *   memories it kept 48 MiB (three segments of 16 MiB, two of them spares), now 0-6 MiB (with
 *   `settle` in src/store/maintenance.ts's switch to a new segment). Syncs are unchanged (fsync on); a full disk
 *   fails a log write instead of a segment's creation;
 * - full-page images in the log compressed (pglz), which halves the log of a bulk load;
 * - 32 MiB for index builds (HNSW builds on a bigger graph spill to disk, slower but
 *   bounded), 4 MiB per sort;
 * - planner statistics from a sample of 3,000 rows a table (`default_statistics_target = 10`,
 *   {@link STATISTICS_TARGET}) rather than 30,000. `ANALYZE` holds its sample in memory,
 *   whole rows: at 20,000 memories (a 384-dimension vector inline in each row) the analysis
 *   after an import grew PGlite's WASM memory by 42 MiB, which it never gives back, against
 * 6 MiB with this sample (docs/history/performance-2026-11-25-to-28.md, "Idle memory at 20,000
 * memories").
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
export function syncToDisk(pg: PGlite): void {
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
