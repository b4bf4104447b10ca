/**
 * Opening the embedded database in this thread: PGlite with pgvector, started with the
 * laptop settings, behind the disk guard, as a {@link Db} stating the embedded database's
 * capabilities ({@link PGLITE_CAPABILITIES}). The worker thread (worker.ts) opens it with
 * this too; tests and tools that open a database in memory use it directly.
 * @module
 */
import type { PGlite } from "@electric-sql/pglite";
import { join } from "node:path";
import { batchInTransaction, type Db, type DbCapabilities, type QueryOptions } from "../db.ts";
import { EF_SEARCH } from "../search_params.ts";
import { collectGarbage } from "../../common/gc.ts";
import { loadPglite } from "./module.ts";
import { forgetPrepared, preparedQuery, type Runner } from "./prepared.ts";
import {
  diskFullError,
  diskReserve,
  isRead,
  openFailure,
  type PgliteOptions,
  ResilientPglite,
  restrictToOwner,
  statfsFree,
  statfsOf,
} from "./disk.ts";
import { dropTemplateDatabases, startParams, syncToDisk } from "./settings.ts";

/**
 * What the embedded database can and must do ({@link DbCapabilities}); its worker
 * (worker_client.ts) adds {@link DbCapabilities.offThread}.
 */
export const PGLITE_CAPABILITIES: DbCapabilities = Object.freeze({
  binaryVectors: true,
  superuser: true,
  soleOwner: true,
  ownVacuum: true,
  reindexAfterVacuum: true,
  checkpointAfterWrite: true,
  halfvec: false,
  globalVectorIndex: false,
  batchedCreate: true,
  offThread: false,
});

/** An embedded database opened in this thread: its {@link Db}, instance and dump. */
export type PgliteDb = Db & {
  /** The PGlite instance (tests that serve it over a socket). */
  readonly pglite: PGlite;
  /** A gzipped tarball of the data directory after a checkpoint ({@link DbHandle.dump}). */
  dump(): Promise<Blob>;
};

function wrap(runner: Runner, pg: PGlite, inTx: boolean): Db {
  const db: Db = {
    kind: "pglite",
    capabilities: PGLITE_CAPABILITIES,
    query<T>(text: string, params?: unknown[], options?: QueryOptions) {
      return preparedQuery<T>(runner, pg, text, params, inTx, options?.prepare);
    },
    async exec(text: string) {
      forgetPrepared(pg, text);
      await runner.exec(text);
    },
    batch: (steps) => batchInTransaction(db, steps),
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(db);
      return pg.transaction((tx) => fn(wrap(tx, pg, true)));
    },
    close: () => pg.close(),
  };
  return db;
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

function resilientDb(h: ResilientPglite): Omit<PgliteDb, "pglite"> {
  const db: Omit<PgliteDb, "pglite"> = {
    kind: "pglite",
    capabilities: PGLITE_CAPABILITIES,
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
    batch: (steps) => batchInTransaction(db, steps),
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
  return db;
}

/**
 * Open (creating when needed) an embedded database; `dataDir` undefined means in memory.
 * The directory and its files are owner-only (see {@link restrictToOwner}); on disk, a full
 * disk makes writes fail with a 507 and never blocks the process (see {@link PgliteOptions}).
 */
export async function openPglite(
  dataDir?: string,
  opts: PgliteOptions = {},
): Promise<PgliteDb> {
  if (!dataDir) {
    const pg = await createPglite();
    return Object.assign(wrap(pg, pg, false), {
      pglite: pg,
      dump: () => pg.dumpDataDir("gzip") as Promise<Blob>,
    });
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
  }) as PgliteDb;
}
