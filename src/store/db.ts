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

/** Minimal SQL executor shared by both adapters. */
export interface Db {
  /** `pglite` (embedded) or `postgres` (server). */
  readonly kind: "pglite" | "postgres";
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
   * Absent where statements do not cross threads; {@link runBatch} runs the same anywhere.
   */
  batch?(steps: BatchStep[]): Promise<unknown[][]>;
  /** Run `fn` in one transaction; it is rolled back when `fn` throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * A consistent copy of an embedded database's files: a gzipped tarball of its data
   * directory (its contents, to extract into an empty directory), taken after a checkpoint between two
   * statements, so that no transaction is half in it. Absent on server Postgres (pg_dump).
   */
  dump?(): Promise<Blob>;
  /**
   * The embedded database run by a worker thread (src/store/pglite_worker.ts): how long (ms)
   * the oldest statement it is running or has queued has waited so far, null when it has
   * none. Absent where statements do not run beside the caller's thread.
   */
  busyFor?(): number | null;
  /**
   * The embedded database run by a worker thread: how long (ms) since its last statement
   * (background checks aside) was sent or answered, 0 while one is running or queued. Absent
   * elsewhere.
   */
  quietFor?(): number;
  /**
   * Give back the memory a large operation grew: the embedded database in a worker thread is
   * closed and opened again in a fresh worker (about a second; statements wait meanwhile), since
   * PGlite's WASM memory never shrinks. Absent where there is nothing to give back.
   */
  renew?(): Promise<void>;
  /**
   * The embedded database in a worker thread closes after a quiet spell (`DATABASE_IDLE_UNLOAD_S`)
   * and opens again at the next statement: null while it is open; while it is closed, an object
   * with the error of the last attempt to open it again, if that failed. Absent elsewhere.
   */
  unloaded?(): { reopenError?: string } | null;
  /** Close the connection(s). */
  close(): Promise<void>;
}

/** {@link Db.batch} where the driver has it, else the same steps in {@link Db.transaction}. */
export async function runBatch(db: Db, steps: BatchStep[]): Promise<unknown[][]> {
  if (db.batch) return await db.batch(steps);
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
