/**
 * Server adapter: Postgres with pgvector through postgres.js, chosen by `DATABASE_URL`.
 *
 * - The URL is parsed here (WHATWG URL) and postgres.js gets host and port as options, so
 *   IPv6 hosts (`postgres://u:p@[::1]:5432/db`) work.
 * - Pool size: `opts.max`, else `PGMAX`, else {@link DEFAULT_POOL_SIZE}.
 * - At connect, pgvector is checked: present (or installable) and at least
 *   {@link MIN_PGVECTOR}; older versions lack iterative index scans and would silently
 *   return too few results for filtered (project-scoped) searches, so they are refused.
 * - Setup errors (unknown host, refused connection, wrong password, missing database,
 *   missing pgvector, missing privilege) carry a hint saying what to do.
 * - A database that goes away later (down, restarting, unreachable) makes every query fail
 *   with a {@link MemoryError} 503 naming the database; the pool reconnects by itself.
 * @module
 */
import postgres from "postgres";
import { MemoryError } from "../domain/errors.ts";
import { batchInTransaction, type Db, type DbCapabilities, type QueryOptions } from "./db.ts";
import { EF_SEARCH } from "./migrate.ts";
import { errorMessage } from "../common/errors.ts";

/** Oldest pgvector with iterative index scans (`hnsw.iterative_scan`), which filtered search needs. */
export const MIN_PGVECTOR = "0.8";

/** Pool size when neither the caller nor `PGMAX` sets one. */
export const DEFAULT_POOL_SIZE = 10;

/** Where a server lives, for messages (never the password). */
export interface DbTarget {
  host: string;
  port: number;
  database: string;
  user: string;
}

/** A server-side failure at startup or later, with a message meant for the user. */
export class DatabaseError extends Error {
  /** Create the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseError";
  }
}

/**
 * Parse a `postgres://` URL. Returns the URL for postgres.js with the host replaced by a
 * placeholder (postgres.js misreads bracketed IPv6 hosts) and the real target.
 */
export function parseDatabaseUrl(
  url: string,
): { url: string; target: DbTarget; explicitHost: boolean } {
  const u = new URL(url);
  const user = decodeURIComponent(u.username) || envVar("PGUSER") || "postgres";
  const database = decodeURIComponent(u.pathname.replace(/^\//, "")) || envVar("PGDATABASE") ||
    user;
  if (!u.hostname) {
    // `postgres:///db` or `?host=/run/postgresql`: postgres.js picks the host (query, PGHOST).
    const host = u.searchParams.get("host") || envVar("PGHOST") || "localhost";
    const port = Number(u.port || envVar("PGPORT") || 5432);
    return { url, target: { host, port, database, user }, explicitHost: false };
  }
  const host = decodeURIComponent(u.hostname.replace(/^\[|\]$/g, ""));
  const port = Number(u.port || 5432);
  u.hostname = "localhost";
  return { url: u.href, target: { host, port, database, user }, explicitHost: true };
}

/** An environment variable, or undefined when unset or not permitted. */
function envVar(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined;
  }
}

/** `host:port/database`, IPv6 hosts in brackets. */
export function describeTarget(t: DbTarget): string {
  const host = t.host.includes(":") ? `[${t.host}]` : t.host;
  return `${host}:${t.port}/${t.database}`;
}

/** Compare dotted versions: negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** The refusal for a pgvector older than {@link MIN_PGVECTOR}, or null when it is new enough. */
export function pgvectorTooOld(version: string, where: string): string | null {
  if (compareVersions(version, MIN_PGVECTOR) >= 0) return null;
  return `pgvector ${version} on ${where} is too old: Mneme needs pgvector ${MIN_PGVECTOR} or newer ` +
    `(older versions have no iterative index scans, so project- and type-filtered searches ` +
    `would silently miss results). Install pgvector ${MIN_PGVECTOR}+ on the server, then as a ` +
    `superuser run: ALTER EXTENSION vector UPDATE;`;
}

const OUTAGE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down, recovering)
  "08000",
  "08003",
  "08006",
  "08001",
  "08004",
]);

function errCode(err: unknown): string {
  const e = err as { code?: unknown; errno?: unknown } | null;
  return typeof e?.code === "string" ? e.code : "";
}

/** True when `err` says the server cannot be reached or is going away. */
export function isOutage(err: unknown): boolean {
  if (err instanceof MemoryError) return false;
  const code = errCode(err);
  if (OUTAGE_CODES.has(code)) return true;
  return /ECONNREFUSED|ECONNRESET|connection (?:terminated|closed)/i.test(errorMessage(err));
}

/**
 * The hint for a setup error, or "" when there is none. Each cause is named once: the
 * message is postgres.js's own text plus what to do about it.
 */
export function setupHint(err: unknown, t: DbTarget): string {
  const code = errCode(err);
  const msg = errorMessage(err);
  const where = describeTarget(t);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || /getaddrinfo|ENOTFOUND/.test(msg)) {
    return `unknown host "${t.host}": check the host name in DATABASE_URL`;
  }
  if (code === "ECONNREFUSED" || /ECONNREFUSED/.test(msg)) {
    return `nothing accepts connections there: is PostgreSQL running there, and is the port ` +
      `in DATABASE_URL right?`;
  }
  if (code === "CONNECT_TIMEOUT" || code === "ETIMEDOUT") {
    return `no answer from ${where}: check the host, port and firewall`;
  }
  if (code === "28P01") {
    return `wrong password for user "${t.user}": check the password in DATABASE_URL ` +
      `(percent-encode special characters)`;
  }
  if (code === "28000") {
    return `the server refuses user "${t.user}" on database "${t.database}": check the user ` +
      `name and the server's pg_hba.conf`;
  }
  if (code === "3D000") {
    return `database "${t.database}" does not exist: create it (createdb -O ${t.user} ${t.database})`;
  }
  if (
    /extension "vector"/.test(msg) &&
    /not available|could not open extension control file/.test(msg)
  ) {
    return `pgvector is not installed on the server: install it (Debian/Ubuntu: ` +
      `apt-get install postgresql-<version>-pgvector, or build it from source), then as a ` +
      `superuser run in database "${t.database}": CREATE EXTENSION vector;`;
  }
  if (code === "42501" && /extension/.test(msg)) {
    return `user "${t.user}" may not create the pgvector extension: a superuser must run once, ` +
      `in database "${t.database}": CREATE EXTENSION vector;`;
  }
  if (code === "42501") {
    return `user "${t.user}" lacks a privilege Mneme needs on "${t.database}" (it creates its ` +
      `tables at startup): GRANT CREATE ON SCHEMA public TO ${t.user}; or make it the owner`;
  }
  return "";
}

/** postgres.js's message plus the hint, as one error. */
function explain(err: unknown, t: DbTarget): Error {
  if (err instanceof MemoryError || err instanceof DatabaseError) return err;
  const hint = setupHint(err, t);
  if (!hint) return err instanceof Error ? err : new Error(String(err));
  return new DatabaseError(`${errorMessage(err)} (${hint})`, { cause: err });
}

/** Later failures: an outage is a 503 naming the database; the rest as thrown. */
function duringService(err: unknown, t: DbTarget): unknown {
  if (!isOutage(err)) return explain(err, t);
  return new MemoryError(
    503,
    `database ${describeTarget(t)} is unavailable (${errorMessage(err)}); retry shortly`,
    { cause: err },
  );
}

type Sql = postgres.Sql | postgres.TransactionSql;

/** What server Postgres can and must do ({@link DbCapabilities}). */
export const POSTGRES_CAPABILITIES: DbCapabilities = Object.freeze({
  binaryVectors: false,
  superuser: false,
  soleOwner: false,
  ownVacuum: false,
  reindexAfterVacuum: false,
  checkpointAfterWrite: false,
  halfvec: true,
  globalVectorIndex: true,
  batchedCreate: false,
  offThread: false,
});

function wrap(sql: Sql, root: postgres.Sql, inTx: boolean, t: DbTarget): Db {
  const db: Db = {
    kind: "postgres",
    capabilities: POSTGRES_CAPABILITIES,
    async query<T>(text: string, params: unknown[] = [], options: QueryOptions = {}) {
      try {
        const rows = await sql.unsafe(
          text,
          params as postgres.ParameterOrJSON<never>[],
          options.prepare ? { prepare: true } : {},
        );
        return rows as unknown as T[];
      } catch (err) {
        throw duringService(err, t);
      }
    },
    async exec(text: string) {
      try {
        await sql.unsafe(text);
      } catch (err) {
        throw duringService(err, t);
      }
    },
    batch: (steps) => batchInTransaction(db, steps),
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(db);
      try {
        return await (root.begin((tx) => fn(wrap(tx, root, true, t))) as Promise<T>);
      } catch (err) {
        throw duringService(err, t);
      }
    },
    close: () => root.end({ timeout: 5 }),
  };
  return db;
}

/** Options of the server adapter. */
export interface PostgresOptions {
  /** Pool size (default: `PGMAX`, else {@link DEFAULT_POOL_SIZE}). */
  max?: number;
  /** Seconds to wait for a connection (default 10). */
  connectTimeout?: number;
  /** Receives the server's notices (default: dropped). tasks/explain_search.ts reads plans so. */
  onNotice?: (message: string) => void;
}

function envPoolSize(): number | undefined {
  const raw = envVar("PGMAX");
  const n = Number(raw);
  return raw && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The pgvector version the database has, or would get from CREATE EXTENSION (null: none). */
async function pgvectorVersion(db: Db): Promise<string | null> {
  const [row] = await db.query<{ installed: string | null; available: string | null }>(
    `select (select extversion from pg_extension where extname = 'vector') as installed,
            (select default_version from pg_available_extensions where name = 'vector') as available`,
  );
  return row?.installed ?? row?.available ?? null;
}

/**
 * Connect to server Postgres: the first query proves the connection, then pgvector is
 * checked. Failures are {@link DatabaseError}s whose message names the cause once, with a
 * hint.
 */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Db> {
  const { url: pgUrl, target, explicitHost } = parseDatabaseUrl(url);
  const sql = postgres(pgUrl, {
    // As lists: postgres.js splits a host string on ':', which breaks IPv6 (::1 → "").
    ...(explicitHost
      ? { host: [target.host] as unknown as string, port: [target.port] as unknown as number }
      : {}),
    max: opts.max ?? envPoolSize() ?? DEFAULT_POOL_SIZE,
    connect_timeout: opts.connectTimeout ?? 10,
    onnotice: (n) => opts.onNotice?.(String(n.message ?? "")),
    // A boolean serialised twice stays itself: when the server makes postgres.js prepare a
    // statement again (its result type changed under it, see QueryOptions.prepare), the
    // driver binds the values it already serialised once more, and its own serialiser turns
    // 't' into 'f' (a search with every scope false: no rows, no error).
    types: {
      bool: {
        to: 16,
        from: [16],
        serialize: (x: unknown) => x === true || x === "t" ? "t" : "f",
        parse: (x: string) => x === "t",
      },
    },
    // Iterative index scans keep filtered nearest-neighbour queries on the HNSW index;
    // a larger ef_search keeps recall up with the index parameters of migrate.ts.
    // No parallel query: a search is a few milliseconds of index reads, and starting
    // workers costs more. The exact reads of a small scope
    // (migrations/functions/mneme_search_scoped.sql)
    // were planned as a Gather Merge over a parallel bitmap scan, and the search function's
    // plan starts the workers of those branches even when their filter is false: at 100,000
    // memories every search paid 6-11 ms per branch (p50 2.9 -> 20.5 ms;
    // docs/history/performance-2026-11-25-to-28.md, "Searches of a small scope (0.13)"). The
    // function sets it itself too; here it covers the other reads (Store.nearest's exact statement,
    // which a create's contradiction check runs on a server). The embedded database has no parallel
    // workers.
    connection: {
      application_name: "mneme",
      "hnsw.iterative_scan": "relaxed_order",
      "hnsw.ef_search": String(EF_SEARCH),
      max_parallel_workers_per_gather: "0",
    },
  });
  const db = wrap(sql, sql, false, target);
  try {
    try {
      await sql.unsafe("select 1");
    } catch (err) {
      throw explain(err, target);
    }
    const version = await pgvectorVersion(db);
    if (version === null) {
      throw new DatabaseError(
        `extension "vector" is not available (${
          setupHint(new Error('extension "vector" is not available'), target)
        })`,
      );
    }
    const old = pgvectorTooOld(version, describeTarget(target));
    if (old) throw new DatabaseError(old);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => {});
    throw err;
  }
  return db;
}
