/**
 * The embedded backend: PGlite (Postgres compiled to WASM) with the real pgvector extension,
 * one folder for what only it needs. PGlite is single-connection: one process owns
 * `DATA_DIR/db`. The modules:
 *
 * - module.ts: PGlite's module, loaded at its first use;
 * - prepared.ts: statements in one call into WASM, kept prepared per instance;
 * - disk.ts: the disk guard (a full disk never blocks) and owner-only files;
 * - settings.ts: the start parameters sized for a laptop, durable fsync, template databases;
 * - open.ts: opening it in this thread, and its capabilities;
 * - protocol.ts, worker_client.ts, worker.ts: the worker thread, both ends side by side;
 * - create.ts: a new database built outside the daemon (`src/bin/initdb.ts`).
 *
 * Code outside this folder imports from here (or create.ts) and asks a {@link Db} what it
 * can do ({@link Db.capabilities}), never which backend it is.
 * @module
 */
export { loadPglite } from "./module.ts";
export { PREPARED_MAX } from "./prepared.ts";
export {
  DISK_RESERVE_BYTES,
  DISK_RESERVE_FRACTION,
  diskFullError,
  diskReserve,
  FREE_SPACE_HEADROOM,
  FREE_SPACE_TTL_MS,
  isNoSpace,
  openFailure,
  type PgliteOptions,
  restrictToOwner,
} from "./disk.ts";
export {
  dropTemplateDatabases,
  laptopStartParams,
  SHARED_BUFFERS_MAX_MB,
  SHARED_BUFFERS_MIN_MB,
  sharedBuffersMb,
  startParams,
  STATISTICS_TARGET,
  TEMPLATE_DATABASES,
} from "./settings.ts";
export { openPglite, PGLITE_CAPABILITIES, type PgliteDb } from "./open.ts";
export { openPgliteInWorker, type WorkerHandle, type WorkerOptions } from "./worker_client.ts";
