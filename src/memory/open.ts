/**
 * Open the memory service from configuration: connect (embedded PGlite in DATA_DIR/db or
 * server Postgres from DATABASE_URL), enable pgvector, migrate under an advisory lock,
 * probe the embedder, check the dimension against the column and the recorded embedder.
 * @module
 */
import { DEFAULT_EXPANSION_DAILY_TOKENS } from "../config.ts";
import type { ReclaimerOptions } from "./vacuum.ts";
import { join } from "node:path";
import { DEFAULT_IDLE_UNLOAD_S, type MemoryConfig } from "../config.ts";
import { sameEmbedder } from "../embed/embedder.ts";
import { selectEmbedder } from "../embed/select.ts";
import { type Db, type DbHandle, fixedHandle } from "../store/db.ts";
import { ensureEmbeddingColumn, migrate } from "../store/migrate.ts";
import { isNoSpace, openPgliteInWorker, restrictToOwner } from "../store/pglite/mod.ts";
import { createDatabaseFiles } from "../store/pglite/create.ts";
import { openPostgres, parseDatabaseUrl } from "../store/postgres.ts";
import { Store } from "../store/store.ts";
import { describeError } from "../common/errors.ts";
import { MemoryError } from "../domain/errors.ts";
import { type ServiceDeps, SqlMemoryService } from "./service.ts";
import { upgradeAtStart } from "./upgrade.ts";

/** Startup failure with a message meant for the user. */
export class StartupError extends Error {
  /** Create the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StartupError";
  }
}

/** Options of {@link openMemoryService}. */
export interface OpenOptions {
  /** Refuse to start when the stored vectors come from another embedder (MCP server). */
  strict?: boolean;
  /** Clock for the service. */
  now?: () => Date;
  /** Pool size for server Postgres. */
  maxConnections?: number;
  /** Embedded database: fsync on (default true; benchmarks compare with false). */
  durable?: boolean;
  /** Progress lines of the start-up upgrade (see upgrade.ts); default stderr. */
  log?: (line: string) => void;
  /** The embedded database's vacuum schedule (see src/memory/vacuum.ts). */
  reclaim?: ReclaimerOptions;
  /** When the analyze after imports runs (see `importAnalyze` in src/memory/service.ts). */
  importAnalyze?: ServiceDeps["importAnalyze"];
  /** Whether search uses the dense leg (default true; false for comparisons). */
  denseSearch?: boolean;
  /**
   * Embedded database: creates a new database in the staging directory it is given, in
   * another process (see src/store/pglite/create.ts), so that this one never holds PGlite's
   * `initdb`. Without it, a new database is created in this process.
   */
  createDatabase?: (staging: string) => Promise<void>;
  /** The controls returned beside the database by its opener ({@link openDatabase}). */
  handle?: DbHandle;
}

/** Take the owner lock of an embedded database directory; fails fast when it is taken. */
async function lockDataDir(dir: string): Promise<Deno.FsFile> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, "mneme.lock");
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  // tryLock, not lock() with a timeout: a lock() left waiting would keep the file open and
  // take the lock as soon as the owner stops, shutting out every later opener.
  let got = false;
  try {
    got = await file.tryLock(true);
  } finally {
    if (!got) file.close();
  }
  if (!got) {
    let owner = "";
    try {
      owner = (await Deno.readTextFile(path)).trim();
    } catch { /* unreadable: no owner shown */ }
    throw new StartupError(
      `the embedded database in ${dir} is in use by another process${
        owner ? ` (pid ${owner})` : ""
      }; the embedded database has one owner: stop it, or reach it through the Admin API (MEMORY_API_URL)`,
    );
  }
  await file.truncate(0);
  await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
  return file;
}

/** Open a database from configuration. */
export async function openDatabase(
  cfg: MemoryConfig,
  opts: OpenOptions = {},
): Promise<{ db: Db; handle: DbHandle; release: () => void }> {
  if (cfg.databaseUrl) {
    const { target } = parseDatabaseUrl(cfg.databaseUrl);
    const hostPort = `${
      target.host.includes(":") ? `[${target.host}]` : target.host
    }:${target.port}`;
    try {
      const db = await openPostgres(cfg.databaseUrl, { max: opts.maxConnections });
      return { db, handle: fixedHandle(), release: () => {} };
    } catch (err) {
      throw new StartupError(
        `cannot connect to the database at ${hostPort} (DATABASE_URL): ${describeError(err)}`,
        { cause: err },
      );
    }
  }
  const dir = join(cfg.dataDir, "db");
  // DATA_DIR is owner-only (0700) before anything is written in it; an install made before
  // this rule has its modes fixed here, and every file below is made owner-only once the
  // database is open.
  let lock: Deno.FsFile;
  try {
    await Deno.mkdir(cfg.dataDir, { recursive: true, mode: 0o700 });
    if (Deno.build.os !== "windows") await Deno.chmod(cfg.dataDir, 0o700);
    lock = await lockDataDir(dir);
  } catch (err) {
    if (!isNoSpace(err)) throw err;
    throw new StartupError(
      `cannot open the embedded database in ${dir}: the disk is full; free space and start again`,
      { cause: err },
    );
  }
  try {
    if (opts.createDatabase) await createDatabaseFiles(dir, opts.createDatabase);
    // In a worker thread: a long statement (an import's index build) holds that thread, and
    // this one goes on answering (docs/architecture.md).
    const { db, handle } = await openPgliteInWorker(dir, {
      durable: opts.durable,
      idleUnloadMs: (cfg.databaseIdleUnloadS ?? DEFAULT_IDLE_UNLOAD_S) * 1000,
    });
    await restrictToOwner(cfg.dataDir, dir); // DATA_DIR/db: done by openPglite
    return { db, handle, release: () => lock.close() };
  } catch (err) {
    lock.close();
    throw new StartupError(`cannot open the embedded database in ${dir}: ${describeError(err)}`, {
      cause: err,
    });
  }
}

/** Prepare schema and embedder on an open database and build the service. */
export async function createServiceOnDb(
  db: Db,
  cfg: MemoryConfig,
  opts: OpenOptions = {},
): Promise<SqlMemoryService> {
  const store = new Store(db);
  try {
    await migrate(db);
  } catch (err) {
    if (err instanceof MemoryError && err.status === 507) {
      // A fresh (or older) database needs its schema written: it cannot start for reads.
      throw new StartupError(
        `the database cannot be created or upgraded: ${
          err.message.replace(/; reads go on.*$/, "")
        }; free space and start again`,
        { cause: err },
      );
    }
    throw new StartupError(`database migration failed: ${describeError(err)}`, { cause: err });
  }
  try {
    // An import left unfinished by a killed process: its staged rows were never visible.
    await store.abandonStaleImports(db.capabilities.soleOwner);
  } catch (err) {
    throw new StartupError(`cleanup of unfinished imports failed: ${describeError(err)}`, {
      cause: err,
    });
  }
  // The write-ahead log left by the last run (and by migrations) shrinks to its minimum. On a
  // disk below the free-space reserve the checkpoint is a refused write (507): the service
  // still starts and serves reads, and the log shrinks at the next settle.
  await store.settle().catch((err) => {
    if (!(err instanceof MemoryError && err.status === 507)) throw err;
  });
  const recorded = await store.recordedEmbedder();
  // `auto` chooses only while no vectors exist: an embedder recorded on a database that
  // still has no memories (say, a first start before Ollama was installed) is not binding.
  const chooseAgain = recorded !== null && cfg.embeddingProvider === "auto" &&
    await store.isEmpty();
  let embedder;
  try {
    embedder = await selectEmbedder(cfg, chooseAgain ? null : recorded);
  } catch (err) {
    throw new StartupError(`embedding provider failed: ${describeError(err)}`, { cause: err });
  }
  let stored;
  try {
    if (chooseAgain && recorded && !sameEmbedder(recorded, embedder.info)) {
      await store.rerecordEmpty(embedder.info);
    }
    stored = await ensureEmbeddingColumn(db, embedder.info);
  } catch (err) {
    throw new StartupError(`embedding column check failed: ${describeError(err)}`, { cause: err });
  }
  const service = new SqlMemoryService({
    store,
    handle: opts.handle,
    embedder,
    stored,
    now: opts.now,
    reclaim: { log: opts.log, ...opts.reclaim },
    bulkImports: cfg.importBulk,
    importAnalyze: opts.importAnalyze,
    denseSearch: opts.denseSearch,
    expansion: cfg.expansion
      ? { dailyTokens: cfg.expansionDailyTokens ?? DEFAULT_EXPANSION_DAILY_TOKENS }
      : null,
  });
  if (opts.strict && service.maintenanceReason) {
    throw new StartupError(service.maintenanceReason);
  }
  if (!opts.strict) {
    try {
      await upgradeAtStart(service, opts.log ?? ((l) => console.error(l)));
    } catch (err) {
      throw new StartupError(`upgrading the database failed: ${describeError(err)}`, {
        cause: err,
      });
    }
  }
  return service;
}

/** Open the service end to end. On failure nothing stays open. */
export async function openMemoryService(
  cfg: MemoryConfig,
  opts: OpenOptions = {},
): Promise<SqlMemoryService> {
  const { db, handle, release } = await openDatabase(cfg, opts);
  try {
    const service = await createServiceOnDb(db, cfg, { ...opts, handle });
    const close = service.close.bind(service);
    service.close = async () => {
      try {
        await close();
      } finally {
        release();
      }
    };
    return service;
  } catch (err) {
    await db.close().catch(() => {});
    release();
    throw err;
  }
}
