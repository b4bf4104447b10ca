/**
 * Fixtures of the memory contract suite: an embedder that maps known texts to chosen
 * vectors (so similarities are exact), a settable clock, and the three backends the one
 * contract runs against (PGlite in-process, the Postgres adapter over the wire, and the
 * HTTP path: `MemoryClient` → Admin API app → PGlite service).
 */
import { createAdminApp } from "../../src/admin/app.ts";
import { hashEmbed } from "../../src/embed/builtin.ts";
import type { Embedder } from "../../src/embed/embedder.ts";
import { MemoryClient } from "../../src/memory/client.ts";
import { SqlMemoryService } from "../../src/memory/service.ts";
import type { EmbedderInfo, MemoryService } from "../../src/memory/types.ts";
import type { Db } from "../../src/store/db.ts";
import { ensureEmbeddingColumn, migrate } from "../../src/store/migrate.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { type NewRow, Store } from "../../src/store/store.ts";
import { pgliteServer } from "../helpers.ts";

/**
 * A row for the store's writes (`Store.insert`, `stageImport`, `insertAfterNearest`): a global
 * fact of weight 1, no tags, created, updated at `at`, never expiring, with a new id; `over`
 * changes any field.
 */
export function newRow(
  content: string,
  embedding: number[],
  at: Date,
  over: Partial<NewRow> = {},
): NewRow {
  return {
    id: crypto.randomUUID(),
    content,
    scope: "global",
    project: null,
    type: "fact",
    tags: [],
    weight: 1,
    supersedes: null,
    createdAt: at,
    updatedAt: at,
    expiresAt: null,
    embedding,
    ...over,
  };
}

/** Dimension of the contract's vectors: small, so that 10001 inserts stay fast. */
export const DIM = 8;

/** Unit vector along axis `i`. */
export function axis(i: number, dim = DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  v[i] = 1;
  return v;
}

/** A unit vector with cosine `c` to axis 0, leaning towards axis `j`. */
export function cosTo0(c: number, j = 1, dim = DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  v[0] = c;
  v[j] = Math.sqrt(1 - c * c);
  return v;
}

/**
 * An embedder that returns chosen vectors for known texts and a hashed vector for any
 * other text. It records every text it embedded.
 */
export class TableEmbedder implements Embedder {
  readonly info: EmbedderInfo = { provider: "test", model: "table-v1", dimension: DIM };
  readonly table = new Map<string, number[]>();
  readonly seen: string[] = [];

  /** Map `text` to `vector` (returns this for chaining). */
  set(text: string, vector: number[]): this {
    if (vector.length !== DIM) throw new Error(`vector for "${text}" must have ${DIM} numbers`);
    this.table.set(text, vector);
    return this;
  }

  embed(texts: string[]): Promise<number[][]> {
    this.seen.push(...texts);
    return Promise.resolve(texts.map((t) => this.table.get(t) ?? hashEmbed(t, DIM)));
  }

  probe(): Promise<EmbedderInfo> {
    return Promise.resolve(this.info);
  }
}

/** A clock the test sets. */
export class Clock {
  /** Start of every test. */
  static readonly T0 = new Date("2026-03-01T12:00:00.000Z");
  t: Date = new Date(Clock.T0);
  /** The current time. */
  now = (): Date => new Date(this.t.getTime());
  /** Set to T0 plus `ms`. */
  at(ms: number): void {
    this.t = new Date(Clock.T0.getTime() + ms);
  }
}

/** One backend of the contract suite. */
export interface Backend {
  /** `pglite`, `postgres` or `http`. */
  name: string;
  /** The service under test. */
  service: MemoryService;
  /** The SQL service underneath (store access for the TTL cleanup). */
  inner: SqlMemoryService;
  /** The database underneath. */
  db: Db;
  embedder: TableEmbedder;
  clock: Clock;
  /** True for the HTTP path (inputs travel as JSON). */
  http: boolean;
  /** Remove every memory, clear the vector table and reset the clock. */
  reset(): Promise<void>;
  /** Rows in the table, expired or not. */
  rawCount(): Promise<number>;
  close(): Promise<void>;
}

/** Builds a backend. */
export type BackendFactory = () => Promise<Backend>;

/** A service on `db` with the test embedder and clock (migrated). */
export async function sqlService(db: Db, embedder: TableEmbedder, clock: Clock) {
  await migrate(db);
  const stored = await ensureEmbeddingColumn(db, embedder.info);
  return new SqlMemoryService({ store: new Store(db), embedder, stored, now: clock.now });
}

/** Assemble a backend. */
export function backend(
  name: string,
  db: Db,
  inner: SqlMemoryService,
  service: MemoryService,
  embedder: TableEmbedder,
  clock: Clock,
  close: () => Promise<void>,
): Backend {
  return {
    name,
    service,
    inner,
    db,
    embedder,
    clock,
    http: name === "http",
    async reset() {
      await db.exec("delete from memories");
      embedder.table.clear();
      embedder.seen.length = 0;
      clock.at(0);
    },
    async rawCount() {
      const [r] = await db.query<{ n: number }>("select count(*)::int as n from memories");
      return Number(r.n);
    },
    close,
  };
}

/** In-memory PGlite, in-process. */
export const pgliteBackend: BackendFactory = async () => {
  const db = await openPglite();
  const embedder = new TableEmbedder();
  const clock = new Clock();
  const inner = await sqlService(db, embedder, clock);
  return backend("pglite", db, inner, inner, embedder, clock, () => inner.close());
};

/** The Postgres adapter (postgres.js, one connection) over the wire to PGlite. */
export const postgresBackend: BackendFactory = async () => {
  const server = await pgliteServer();
  const db = await openPostgres(server.url, { max: 1 });
  const embedder = new TableEmbedder();
  const clock = new Clock();
  const inner = await sqlService(db, embedder, clock);
  return backend("postgres", db, inner, inner, embedder, clock, async () => {
    await inner.close();
    await server.close();
  });
};

/** `MemoryClient` whose fetch goes to the Admin API app (no port) over a PGlite service. */
export const httpBackend: BackendFactory = async () => {
  const db = await openPglite();
  const embedder = new TableEmbedder();
  const clock = new Clock();
  const inner = await sqlService(db, embedder, clock);
  const app = createAdminApp({ service: inner, log: () => {} });
  const client = new MemoryClient({
    baseUrl: "http://127.0.0.1:4200",
    // A caller on this machine, as Deno.serve describes it (`/healthz` shows it everything).
    fetch: (input, init) =>
      Promise.resolve(
        app.request(input as string | URL | Request, init, {
          remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
        }),
      ),
  });
  return backend("http", db, inner, client, embedder, clock, () => inner.close());
};
