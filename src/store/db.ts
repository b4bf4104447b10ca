/**
 * The database driver seam. Both adapters (embedded PGlite and server Postgres through
 * postgres.js) expose the same small surface, so every SQL text of the store is written
 * once, with bind parameters (`$1`, `$2`, …) for every value a user supplies.
 * @module
 */

/** How {@link Db.query} runs a statement. */
export interface QueryOptions {
  /**
   * Server Postgres: keep the statement prepared on each pooled connection, so that a call
   * is one round trip (bind and execute) instead of two (postgres.js first asks the server
   * for the parameter types of an unnamed statement). Only for statements whose plan cannot
   * depend on the parameters' values, such as the call of a function (the server may keep
   * one generic plan for a prepared statement), with every parameter cast (the types it was
   * prepared with stay). When its result type changes under it, postgres.js prepares it
   * again and retries, outside a transaction only. On the embedded database: kept as a named
   * prepared statement, neither parsed nor analysed again, its plan possibly kept.
   */
  prepare?: boolean;
  /**
   * A check, not a use: the embedded database that closes after a quiet spell
   * (`DATABASE_IDLE_UNLOAD_S`) does not count it as activity, so that `/healthz` polled by a
   * monitor and the vacuum's minute check do not keep an idle database open.
   */
  background?: boolean;
}

/** One statement of {@link Db.batch}. */
export interface BatchStep {
  text: string;
  params?: unknown[];
  /** End the batch here when this statement returns no row (see {@link Db.batch}). */
  stopUnlessRows?: boolean;
  /** As {@link QueryOptions.prepare}. */
  prepare?: boolean;
}

/**
 * What differs between the backends, stated by each adapter so that no code outside it asks
 * which one it is ({@link Db.kind} is for reports only). kysely's adapters do the same
 * (`supportsTransactionalDdl`, `supportsReturning`).
 */
export interface DbCapabilities {
  /**
   * Vectors may travel as one binary `real[]` parameter (Postgres's binary array format)
   * rather than as text in the rows' JSON: the embedded database, where parsing floats in
   * WASM is slow; postgres.js sends parameters as text.
   */
  readonly binaryVectors: boolean;
  /**
   * The connection may change superuser settings (`session_replication_role`,
   * `wal_compression`): the embedded database's one user is a superuser; a server's role
   * usually is not.
   */
  readonly superuser: boolean;
  /**
   * One process owns the database: at its start no import of another process can be running,
   * and nothing else searches it while an upgrade runs (the embedded database's lock file).
   */
  readonly soleOwner: boolean;
  /**
   * Nothing vacuums the database unless the service does (PGlite runs Postgres in
   * single-user mode: no autovacuum), nor gives back the space of a dropped column.
   */
  readonly ownVacuum: boolean;
  /**
   * Indexes left bloated by churn or an import are rebuilt by the service's own vacuum and
   * analyze (the embedded database; a server's administrator has their own tools).
   */
  readonly reindexAfterVacuum: boolean;
  /**
   * No checkpoint runs by itself (single-user mode): the service checkpoints after bulk
   * writes so that the write-ahead log shrinks.
   */
  readonly checkpointAfterWrite: boolean;
  /**
   * New vector columns may be `halfvec` when pgvector has it: not on the embedded database,
   * where pgvector converts half floats without the CPU's instructions (3.7 times as slow).
   */
  readonly halfvec: boolean;
  /**
   * A second, partial HNSW index over the memories that are not project-scoped serves global
   * searches (server Postgres; the embedded database keeps one index, its build is slow).
   */
  readonly globalVectorIndex: boolean;
  /**
   * A create's checks, nearest neighbours and insert go as one {@link Db.batch}, and a
   * search's check of the recorded embedder goes in its candidates' statement: each
   * statement of the embedded database is a call into WASM or a message to its worker.
   */
  readonly batchedCreate: boolean;
  /**
   * Statements run in another thread than the caller's (the embedded database in its
   * worker): a long one (an index build) does not hold the caller, so a large import may drop
   * and build the vector index, and a health check need not wait for it.
   */
  readonly offThread: boolean;
}

/** Minimal SQL executor shared by both adapters. */
export interface Db {
  /** `pglite` (embedded) or `postgres` (server): a name for reports, not for decisions. */
  readonly kind: "pglite" | "postgres";
  /** What this backend can and must do ({@link DbCapabilities}). */
  readonly capabilities: DbCapabilities;
  /** Run one statement with bind parameters and return its rows. */
  query<T = Record<string, unknown>>(
    text: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<T[]>;
  /** Run a script of statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * Run `steps` in order in one transaction and return each one's rows: one message to the
   * embedded database's worker thread instead of one per statement. A step with
   * `stopUnlessRows` that returns no row ends the batch: what ran is rolled back (inside an
   * open transaction, left to it), and the rows so far are returned (fewer than the steps).
   * Where statements do not cross threads, {@link batchInTransaction}.
   */
  batch(steps: BatchStep[]): Promise<unknown[][]>;
  /** Run `fn` in one transaction; it is rolled back when `fn` throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Close the connection(s). */
  close(): Promise<void>;
}

/**
 * The controls of a database's life, returned beside its {@link Db} by the opener: what only
 * the embedded database in a worker thread does (busy and quiet times, renewal, closing when
 * idle) and the dump of a backup. {@link fixedHandle} is the handle of a database with none.
 */
export interface DbHandle {
  /**
   * How long (ms) the oldest statement the worker is running or has queued has waited so
   * far, null when it has none (always null where statements run beside the caller).
   */
  busyFor(): number | null;
  /**
   * How long (ms) since the last statement (background checks aside) was sent or answered,
   * 0 while one is running or queued; Infinity where nothing is tracked.
   */
  quietFor(): number;
  /**
   * Give back the memory a large operation grew: the embedded database in a worker thread is
   * closed and opened again in a fresh worker (about a second; statements wait meanwhile), since
   * PGlite's WASM memory never shrinks. Nothing elsewhere.
   */
  renew(): Promise<void>;
  /**
   * The embedded database in a worker thread closes after a quiet spell (`DATABASE_IDLE_UNLOAD_S`)
   * and opens again at the next statement: null while it is open; while it is closed, an object
   * with the error of the last attempt to open it again, if that failed. Always null elsewhere.
   */
  unloaded(): { reopenError?: string } | null;
  /**
   * A consistent copy of an embedded database's files: a gzipped tarball of its data
   * directory (its contents, to extract into an empty directory), taken after a checkpoint
   * between two statements, so that no transaction is half in it. Null on server Postgres
   * (pg_dump).
   */
  readonly dump: (() => Promise<Blob>) | null;
}

/** The handle of a database without lifecycle controls, with `dump` if it has one. */
export function fixedHandle(dump: (() => Promise<Blob>) | null = null): DbHandle {
  return {
    busyFor: () => null,
    quietFor: () => Infinity,
    renew: () => Promise.resolve(),
    unloaded: () => null,
    dump,
  };
}

/** {@link Db.batch} of a driver whose statements do not cross threads: one transaction. */
export async function batchInTransaction(db: Db, steps: BatchStep[]): Promise<unknown[][]> {
  const out: unknown[][] = [];
  const stop = new Error("stop");
  try {
    await db.transaction(async (tx) => {
      for (const step of steps) {
        const rows = await tx.query(step.text, step.params, { prepare: step.prepare });
        out.push(rows);
        if (step.stopUnlessRows && !rows.length) throw stop;
      }
    });
  } catch (err) {
    if (err !== stop) throw err;
  }
  return out;
}
