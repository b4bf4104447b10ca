/**
 * The database driver seam. Both adapters (embedded PGlite and server Postgres through
 * postgres.js) expose the same small surface, so every SQL text of the store is written
 * once, with bind parameters (`$1`, `$2`, …) for every value a user supplies.
 * @module
 */

/** Minimal SQL executor shared by both adapters. */
export interface Db {
  /** `pglite` (embedded) or `postgres` (server). */
  readonly kind: "pglite" | "postgres";
  /** Run one statement with bind parameters and return its rows. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Run a script of statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /** Run `fn` in one transaction; it is rolled back when `fn` throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Close the connection(s). */
  close(): Promise<void>;
}
