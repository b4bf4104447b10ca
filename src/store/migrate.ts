/**
 * Schema setup at startup: enable pgvector, apply the numbered migrations in order inside
 * one transaction under an advisory lock (so several processes starting at once do not
 * race), then give the embedding column its dimension on a fresh database.
 * @module
 */
import init from "../../migrations/0001_init.sql" with { type: "text" };
import search from "../../migrations/0002_search.sql" with { type: "text" };
import searchGlobal from "../../migrations/0003_search_global.sql" with { type: "text" };
import importJobs from "../../migrations/0005_import_jobs.sql" with { type: "text" };
import corpusStats from "../../migrations/0006_corpus_stats.sql" with { type: "text" };
import stagedStats from "../../migrations/0007_staged_stats.sql" with { type: "text" };
import searchFunction from "../../migrations/0008_search_function.sql" with { type: "text" };
import contentHash from "../../migrations/0011_content_hash.sql" with { type: "text" };
import maintenance from "../../migrations/0012_maintenance.sql" with { type: "text" };
import compactPostings from "../../migrations/0014_compact_postings.sql" with { type: "text" };
import searchExact from "../../migrations/0015_search_exact.sql" with { type: "text" };
import proposals from "../../migrations/0016_proposals.sql" with { type: "text" };
import type { EmbedderInfo } from "../embed/embedder.ts";
import type { Db } from "./db.ts";

/** Numbered migrations, in order. Add new files here. */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: "0001_init", sql: init },
  { version: 2, name: "0002_search", sql: search },
  { version: 3, name: "0003_search_global", sql: searchGlobal },
  { version: 5, name: "0005_import_jobs", sql: importJobs },
  { version: 6, name: "0006_corpus_stats", sql: corpusStats },
  { version: 7, name: "0007_staged_stats", sql: stagedStats },
  { version: 8, name: "0008_search_function", sql: searchFunction },
  { version: 11, name: "0011_content_hash", sql: contentHash },
  { version: 12, name: "0012_maintenance", sql: maintenance },
  { version: 14, name: "0014_compact_postings", sql: compactPostings },
  { version: 15, name: "0015_search_exact", sql: searchExact },
  { version: 16, name: "0016_proposals", sql: proposals },
];

/** Advisory lock key for migrations ("mneme" + 1). */
export const MIGRATION_LOCK = 0x6d6e656d_01;
/** Advisory lock key for the TTL cleanup. */
export const CLEANUP_LOCK = 0x6d6e656d_02;

/** pgvector's HNSW index accepts `vector` columns up to this dimension. */
export const MAX_INDEXED_DIM = 2000;

/** Apply pending migrations; returns the versions applied now. */
export async function migrate(db: Db): Promise<number[]> {
  // Up to date: nothing to write (a database on a nearly full disk still starts for reads).
  try {
    const have = new Set(
      (await db.query<{ version: number }>("select version from mneme_migrations")).map((r) =>
        r.version
      ),
    );
    if (MIGRATIONS.every((m) => have.has(m.version))) return [];
  } catch { /* a fresh database: no table yet */ }
  return await db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.exec("create extension if not exists vector");
    await tx.exec(
      `create table if not exists mneme_migrations (
         version int primary key, name text not null, applied_at timestamptz not null default now())`,
    );
    const done = new Set(
      (await tx.query<{ version: number }>("select version from mneme_migrations")).map((r) =>
        r.version
      ),
    );
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query("insert into mneme_migrations (version, name) values ($1, $2)", [
        m.version,
        m.name,
      ]);
      applied.push(m.version);
    }
    return applied;
  });
}

/**
 * The element type of new vector columns. On server Postgres, pgvector's `halfvec` (2-byte
 * floats, since pgvector 0.7) where the server has it: cosine rankings of half floats are those
 * of the full floats (LoCoMo dev hit@5 0.629 against 0.628), at half the disk and memory of the
 * vectors and their HNSW index. On the embedded database `vector` (4-byte floats): compiled to
 * WASM, pgvector converts half floats without the CPU's instructions, and an HNSW insertion
 * took 3.7 times as long with halfvec at 384 dimensions, a build 4.5 times, a search 1.5 times
 * (docs/performance.md).
 */
export async function vectorType(db: Db): Promise<"halfvec" | "vector"> {
  if (!db.capabilities.halfvec) return "vector";
  const [row] = await db.query<{ half: boolean }>(
    "select to_regtype('halfvec') is not null as half",
  );
  return row?.half ? "halfvec" : "vector";
}

/** The element type of `column` (`vector` or `halfvec`), or null when there is no column. */
export async function columnType(
  db: Db,
  column = "embedding",
): Promise<"halfvec" | "vector" | null> {
  const rows = await db.query<{ type: string }>(
    `select format_type(atttypid, null) as type from pg_attribute
      where attrelid = 'memories'::regclass and attname = $1 and not attisdropped`,
    [column],
  );
  const t = rows[0]?.type;
  return t === "halfvec" || t === "vector" ? t : null;
}

/** The dimension of the `embedding` column, or null when it has none yet. */
export async function columnDimension(db: Db, column = "embedding"): Promise<number | null> {
  const rows = await db.query<{ typmod: number }>(
    `select atttypmod as typmod from pg_attribute
      where attrelid = 'memories'::regclass and attname = $1 and not attisdropped`,
    [column],
  );
  const t = rows[0]?.typmod;
  return t === undefined || t < 0 ? null : t;
}

/**
 * The embedder recorded in the meta row, or null on a fresh database. With `share`, the row
 * stays share-locked for the rest of the transaction (a re-embedding run cannot finish).
 */
export async function recordedEmbedder(db: Db, share = false): Promise<EmbedderInfo | null> {
  const [row] = await db.query<
    { provider: string | null; model: string | null; dimension: number | null }
  >(
    `select embedder_provider as provider, embedder_model as model,
            embedder_dimension as dimension from mneme_meta where id = 1
            ${share ? "for share" : ""}`,
  );
  if (!row?.provider || !row.model || !row.dimension) return null;
  return { provider: row.provider, model: row.model, dimension: row.dimension };
}

function checkDim(dim: number): number {
  if (!Number.isInteger(dim) || dim < 1 || dim > MAX_INDEXED_DIM) {
    throw new Error(
      `embedding dimension ${dim} is not supported: the HNSW index takes 1..${MAX_INDEXED_DIM} dimensions`,
    );
  }
  return dim;
}

/**
 * HNSW parameters. m = 8 and ef_construction = 64 (pgvector's defaults are 16 and 64), with
 * searches at ef_search = {@link EF_SEARCH}: against m = 12 / 40 at ef_search 60 before, inserts
 * into a live index are 36% cheaper (PGlite, 10k LoCoMo turns, 768 dimensions: 3.87 → 2.47 ms a
 * row) and recall@15 against exact search is a little higher (0.929 → 0.938), queries as fast
 * (`deno task bench:hnsw`). ef_construction 64 → 32 in 0.10: a bulk import's index build of
 * 20,000 vectors took 7.0 s instead of 10.3 with LoCoMo dev hit@5 unchanged
 * (docs/performance.md, "Write and import speed (0.10)"). Indexes built before keep their
 * parameters until they are rebuilt (a bulk import or a re-embed does).
 */
export const HNSW_WITH = "with (m = 8, ef_construction = 32)";

/** The HNSW search breadth every connection sets (pgvector's default is 40). */
export { EF_SEARCH } from "./search_params.ts";

/**
 * The HNSW cosine indexes of `column`: one over every memory and, on server Postgres, one over
 * the memories that are not project-scoped (`scope <> 'project'`), which searches of global
 * memories use. A filtered index scan keeps reading until enough rows pass its filter: where
 * most memories belong to projects, the nearest neighbours of a query over global memories are
 * mostly project memories (at 100k on server Postgres, 650 rows read and rejected, 5–11 ms),
 * where the partial index answers at once (about 0.6 ms). On the embedded database the second
 * index is not built: there imports are bound by one WASM thread, which it slowed by 10–20%
 * (`bench:memory`, 40% global memories). There searches over global memories use the index of
 * all with the filter when the global memories are many, and read them exactly (through the
 * btree on scope and project, every distance computed) when they are at most 2,000 and a fifth
 * of all, as every small scope is on both backends (`EXACT_SCOPE_MAX` in src/store/search.ts):
 * the filtered walk of the whole graph took 86.5 ms at 10,000 memories nearly all in projects.
 */
function vectorIndexes(db: Db, column: "embedding" | "embedding_next"): [string, string][] {
  return [
    [`memories_${column}_hnsw`, ""],
    ...(db.capabilities.globalVectorIndex
      ? [[`memories_${column}_global_hnsw`, "where scope <> 'project'"] as [string, string]]
      : []),
  ];
}

/** (Re)build the HNSW cosine indexes of `column` ({@link vectorIndexes}). */
export async function buildVectorIndex(
  tx: Db,
  column: "embedding" | "embedding_next",
): Promise<void> {
  for (const index of vectorIndexes(tx, column)) {
    await tx.exec(`drop index if exists ${index[0]}`);
    await createVectorIndex(tx, column, index);
  }
}

/** Build one HNSW cosine index of `column`, with the operator class of the column's type. */
async function createVectorIndex(
  tx: Db,
  column: "embedding" | "embedding_next",
  [index, where]: [string, string],
): Promise<void> {
  const ops = await columnType(tx, column) === "halfvec"
    ? "halfvec_cosine_ops"
    : "vector_cosine_ops";
  await tx.exec(
    `create index ${index} on memories using hnsw (${column} ${ops}) ${HNSW_WITH} ${where}`,
  );
}

/** Drop the HNSW indexes of `column`. */
export async function dropVectorIndexes(
  tx: Db,
  column: "embedding" | "embedding_next",
): Promise<void> {
  for (const [index] of vectorIndexes(tx, column)) await tx.exec(`drop index if exists ${index}`);
}

/** Build those HNSW indexes of `embedding` that are missing; returns how many were built. */
export async function createMissingVectorIndexes(tx: Db): Promise<number> {
  let built = 0;
  for (const index of vectorIndexes(tx, "embedding")) {
    const [{ missing }] = await tx.query<{ missing: boolean }>(
      "select to_regclass($1) is null as missing",
      [index[0]],
    );
    if (missing) {
      await createVectorIndex(tx, "embedding", index);
      built++;
    }
  }
  return built;
}

/** Rename the HNSW indexes of `embedding_next` to those of `embedding` (a re-embed's end). */
export async function renameNextIndexes(tx: Db): Promise<void> {
  const next = vectorIndexes(tx, "embedding_next");
  const cur = vectorIndexes(tx, "embedding");
  for (let i = 0; i < next.length; i++) {
    await tx.exec(`alter index if exists ${next[i][0]} rename to ${cur[i][0]}`);
  }
}

/**
 * Give `column` the type halfvec(dim) ({@link vectorType}) and its HNSW cosine index (empty
 * column or new one).
 */
export async function setVectorColumn(
  tx: Db,
  column: "embedding" | "embedding_next",
  dim: number,
): Promise<void> {
  const d = checkDim(dim);
  await dropVectorIndexes(tx, column);
  await tx.exec(`alter table memories alter column ${column} type ${await vectorType(tx)}(${d})`);
  await buildVectorIndex(tx, column);
}

/**
 * Add `column` as halfvec(dim) ({@link vectorType}) with its HNSW cosine index, unless
 * `index` is false (a run that fills the column first and builds the index once at its end).
 * Adding a column without a default
 * changes only the catalog, where changing the type of an existing column rewrites the table
 * and rebuilds every index (seconds at 10k memories, with the database held).
 */
export async function addVectorColumn(
  tx: Db,
  column: "embedding" | "embedding_next",
  dim: number,
  index = true,
): Promise<void> {
  await tx.exec(
    `alter table memories add column ${column} ${await vectorType(tx)}(${checkDim(dim)})`,
  );
  if (index) await buildVectorIndex(tx, column);
}

/**
 * On a fresh database (no embedder recorded), set the column dimension, build the index
 * and record the embedder. Returns the embedder that made the stored vectors.
 */
export async function ensureEmbeddingColumn(db: Db, embedder: EmbedderInfo): Promise<EmbedderInfo> {
  // Nothing to change: read only (a database on a nearly full disk still starts for reads).
  const seen = await recordedEmbedder(db).catch(() => null);
  if (seen && await columnDimension(db).catch(() => null) === seen.dimension) {
    let complete = true;
    for (const index of vectorIndexes(db, "embedding")) {
      const [{ missing }] = await db.query<{ missing: boolean }>(
        "select to_regclass($1) is null as missing",
        [index[0]],
      );
      if (missing) complete = false;
    }
    if (complete) return seen;
  }
  return await db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    const recorded = await recordedEmbedder(tx);
    if (recorded) {
      const dim = await columnDimension(tx);
      if (dim !== recorded.dimension) {
        throw new Error(
          `the embedding column has ${
            dim ?? "no"
          } dimensions but ${recorded.dimension} are recorded; the schema was changed by hand`,
        );
      }
      // Databases from before schema 8 have no index of global memories yet (server Postgres),
      // and a bulk import killed before its end left none (the embedded database): built once
      // here.
      await createMissingVectorIndexes(tx);
      return recorded;
    }
    await setVectorColumn(tx, "embedding", embedder.dimension);
    await tx.query(
      `update mneme_meta set embedder_provider = $1, embedder_model = $2, embedder_dimension = $3
        where id = 1`,
      [embedder.provider, embedder.model, embedder.dimension],
    );
    return embedder;
  });
}
