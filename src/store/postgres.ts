/**
 * Server adapter: Postgres with pgvector through postgres.js, chosen by `DATABASE_URL`.
 * @module
 */
import postgres from "postgres";
import type { Db } from "./db.ts";

type Sql = postgres.Sql | postgres.TransactionSql;

function wrap(sql: Sql, root: postgres.Sql, inTx: boolean): Db {
  const db: Db = {
    kind: "postgres",
    async query<T>(text: string, params: unknown[] = []) {
      const rows = await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[]);
      return rows as unknown as T[];
    },
    async exec(text: string) {
      await sql.unsafe(text);
    },
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(db);
      return root.begin((tx) => fn(wrap(tx, root, true))) as Promise<T>;
    },
    close: () => root.end({ timeout: 5 }),
  };
  return db;
}

/** Options of the server adapter. */
export interface PostgresOptions {
  /** Pool size (default 10). */
  max?: number;
  /** Seconds to wait for a connection (default 10). */
  connectTimeout?: number;
}

/** Connect to server Postgres; the first query proves the connection. */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Db> {
  const sql = postgres(url, {
    max: opts.max ?? 10,
    connect_timeout: opts.connectTimeout ?? 10,
    onnotice: () => {},
    // Iterative index scans keep filtered nearest-neighbour queries on the HNSW index;
    // a larger ef_search keeps recall up with the index parameters of migrate.ts.
    connection: {
      application_name: "mneme",
      "hnsw.iterative_scan": "relaxed_order",
      "hnsw.ef_search": "60",
    },
  });
  const db = wrap(sql, sql, false);
  try {
    await db.query("select 1");
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => {});
    throw err;
  }
  return db;
}
