/**
 * Migrations: applied once, idempotent, the schema they leave (pgvector, HNSW cosine index,
 * postings of the lexical search, meta row), and concurrent runs on the server adapter do not race.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "../deps.ts";
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";
import {
  applyMigrations,
  columnDimension,
  ensureEmbeddingColumn,
  migrate,
  MIGRATIONS,
  planMigrations,
  recordedEmbedder,
} from "../../src/store/migrate.ts";
import { MIGRATION_FILES } from "../../src/store/migration_files.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { Store } from "../../src/store/store.ts";
import { openPostgres } from "../../src/store/postgres.ts";

const EMBEDDER = { provider: "builtin", model: "hash-v1", dimension: 64 };

async function schemaChecks(db: Db): Promise<void> {
  const ext = await db.query<{ extname: string }>(
    "select extname from pg_extension where extname = 'vector'",
  );
  assert.equal(ext.length, 1, "pgvector enabled");
  const rows = await db.query<{ version: number; name: string }>(
    "select version, name from mneme_migrations order by version",
  );
  assert.deepEqual(
    rows.map((r) => ({ version: Number(r.version), name: r.name })),
    MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
  );
  const idx = await db.query<{ indexname: string; indexdef: string }>(
    "select indexname, indexdef from pg_indexes where tablename = 'memories'",
  );
  const def = (name: string) => idx.find((i) => i.indexname === name)?.indexdef ?? "";
  // halfvec on server Postgres, vector on the embedded database (src/store/migrate.ts vectorType).
  const ops = db.kind === "postgres" ? "halfvec_cosine_ops" : "vector_cosine_ops";
  assert.match(def("memories_embedding_hnsw"), new RegExp(`USING hnsw \\(embedding ${ops}\\)`));
  if (db.kind === "postgres") {
    assert.match(
      def("memories_embedding_global_hnsw"),
      /USING hnsw \(embedding halfvec_cosine_ops\).* WHERE \(scope <> 'project'::text\)/,
      "searches over global memories have an index of their own on server Postgres",
    );
  }
  assert.equal(def("memories_content_tsv"), "", "the all-words full-text index is gone");
  const terms = await db.query<{ indexname: string }>(
    "select indexname from pg_indexes where tablename = 'memory_postings'",
  );
  assert.deepEqual(terms.map((r) => r.indexname).sort(), [
    "memory_postings_lookup",
    "memory_postings_num",
  ]);
  assert.equal(await columnDimension(db), EMBEDDER.dimension);
  assert.deepEqual(await recordedEmbedder(db), EMBEDDER);
  const meta = await db.query("select * from mneme_meta");
  assert.equal(meta.length, 1, "one meta row");
}

Deno.test("migrations apply once and are idempotent (PGlite)", async () => {
  const db = await openPglite();
  try {
    assert.deepEqual(await migrate(db), MIGRATIONS.map((m) => m.version));
    assert.equal(await recordedEmbedder(db), null, "no embedder recorded before the first probe");
    assert.equal(await columnDimension(db), null);
    assert.deepEqual(await ensureEmbeddingColumn(db, EMBEDDER), EMBEDDER);
    assert.deepEqual(await migrate(db), []);
    assert.deepEqual(await migrate(db), []);
    // A later start with another embedder keeps what is recorded (the service decides).
    assert.deepEqual(
      await ensureEmbeddingColumn(db, { ...EMBEDDER, dimension: 128 }),
      EMBEDDER,
    );
    await schemaChecks(db);
    // A column changed by hand is reported, not silently used.
    await db.exec("drop index memories_embedding_hnsw");
    await db.exec("alter table memories alter column embedding type vector(16)");
    await assert.rejects(ensureEmbeddingColumn(db, EMBEDDER), /16 dimensions but 64 are recorded/);
  } finally {
    await db.close();
  }
});

Deno.test({
  name: "two concurrent migrate() calls on the server adapter do not race",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pg = await PGlite.create({ extensions: { vector } });
    const server = new PGLiteSocketServer({
      db: pg,
      port: 0,
      host: "127.0.0.1",
      maxConnections: 4,
    });
    await server.start();
    const port = Number(server.getServerConn().split(":").pop());
    const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    const a = await openPostgres(url, { max: 1 });
    const b = await openPostgres(url, { max: 1 });
    try {
      const results = await Promise.all([a, b, a, b].map((db) => applyMigrations(db)));
      assert.deepEqual(
        results.flatMap((r) => r.versions).sort((x, y) => x - y),
        MIGRATIONS.map((m) => m.version),
        "each migration applied exactly once",
      );
      const files = planMigrations(MIGRATION_FILES).functions.map((f) => f.name);
      assert.deepEqual(
        results.flatMap((r) => r.functions).sort(),
        files,
        "each function file applied exactly once",
      );
      const recorded = await Promise.all([
        ensureEmbeddingColumn(a, EMBEDDER),
        ensureEmbeddingColumn(b, { ...EMBEDDER, dimension: 32 }),
      ]);
      assert.deepEqual(recorded[0], recorded[1], "both see the one embedder recorded first");
      const winner = recorded[0];
      assert.deepEqual(await recordedEmbedder(b), winner);
      assert.equal(await columnDimension(a), winner.dimension);
      const n = await a.query<{ n: number }>("select count(*)::int as n from mneme_migrations");
      assert.equal(Number(n[0].n), MIGRATIONS.length);
    } finally {
      await a.close();
      await b.close();
      await server.stop();
      await pg.close();
    }
  },
});

/** The HNSW indexes of `memories`, by name. */
async function hnswIndexes(db: Db): Promise<string[]> {
  return (await db.query<{ indexname: string }>(
    "select indexname from pg_indexes where tablename = 'memories' and indexname like '%hnsw' and indexname <> 'memories_dense_hnsw'",
  )).map((r) => r.indexname).sort();
}

/**
 * Server Postgres has a partial index of the memories that are not project-scoped (searches
 * over global memories); a database of schema 7 gets it at start; a re-embed keeps it.
 */
async function globalIndexChecks(db: Db, expected: string[]): Promise<void> {
  await migrate(db);
  await ensureEmbeddingColumn(db, EMBEDDER);
  assert.deepEqual(await hnswIndexes(db), expected);
  await db.exec("drop index if exists memories_embedding_global_hnsw");
  assert.deepEqual(await ensureEmbeddingColumn(db, EMBEDDER), EMBEDDER);
  assert.deepEqual(await hnswIndexes(db), expected, "built again at start");
  const store = new Store(db);
  const vec = Array.from({ length: EMBEDDER.dimension }, (_, i) => (i === 0 ? 1 : 0));
  await db.query(
    `insert into memories (id, content, scope, project, type, tags, weight, embedding,
                           created_at, updated_at)
     values (gen_random_uuid(), 'a global memory', 'global', null, 'fact', '{}', 1,
             $1::text::vector, now(), now())`,
    [`[${vec.join(",")}]`],
  );
  const target = { ...EMBEDDER, model: "hash-v2" };
  await store.beginReembed(target);
  assert.deepEqual(
    await hnswIndexes(db),
    [...expected, ...expected.map((i) => i.replace("embedding", "embedding_next"))].sort(),
    "a re-embed builds the same indexes for its column",
  );
  const { rows } = await store.reembedPending(10);
  await store.reembedStore(rows.map((r) => ({ ...r, embedding: vec })));
  assert.equal(await store.finishReembed(target), true);
  assert.deepEqual(await hnswIndexes(db), expected, "and they take the usual names");
}

Deno.test("the index of global memories (server adapter): built for schema 7 at start, kept by a re-embed", async () => {
  const pg = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db: pg, port: 0, host: "127.0.0.1" });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  const db = await openPostgres(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`, {
    max: 1,
  });
  try {
    await globalIndexChecks(db, ["memories_embedding_global_hnsw", "memories_embedding_hnsw"]);
  } finally {
    await db.close();
    await server.stop();
    await pg.close();
  }
});

Deno.test("the embedded database has one HNSW index, also after a re-embed", async () => {
  const db = await openPglite();
  try {
    await globalIndexChecks(db, ["memories_embedding_hnsw"]);
  } finally {
    await db.close();
  }
});
