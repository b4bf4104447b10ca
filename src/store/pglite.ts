/**
 * Embedded adapter: PGlite (Postgres compiled to WASM) with the real pgvector extension.
 * PGlite is single-connection: one process owns `DATA_DIR/db`.
 * @module
 */
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { join } from "node:path";
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

/**
 * Make `dir` and everything below it owner-only: directories 0700, files without group and
 * other bits (0666 becomes 0600). PGlite writes the files of a new database with mode 0666,
 * and installs made before this pass have them so; symbolic links are left alone. No-op on
 * Windows (no POSIX modes).
 */
export async function restrictToOwner(dir: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  const walk = async (path: string, info: Deno.FileInfo): Promise<void> => {
    if (info.isSymlink) return;
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

/**
 * Open (creating when needed) an embedded database; `dataDir` undefined means in memory.
 * The directory and its files are owner-only (see {@link restrictToOwner}).
 */
export async function openPglite(dataDir?: string): Promise<Db & { pglite: PGlite }> {
  if (dataDir) {
    await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
    await restrictToOwner(dataDir);
  }
  const pg = await PGlite.create({ dataDir, extensions: { vector } });
  // The files of a new database come out of PGlite's image with mode 0666.
  if (dataDir) await restrictToOwner(dataDir);
  // Iterative index scans keep filtered nearest-neighbour queries on the HNSW index.
  await pg.exec("set hnsw.iterative_scan = relaxed_order; set hnsw.ef_search = 60");
  return Object.assign(wrap(pg, pg, false), { pglite: pg });
}

/** Wrap an already open PGlite instance (tests that also serve it over a socket). */
export function wrapPglite(pg: PGlite): Db {
  return wrap(pg, pg, false);
}
