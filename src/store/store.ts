/**
 * The `Store` port: every query the memory service needs, written once over the {@link Db}
 * seam so that the embedded (PGlite) and server (postgres.js) adapters share it.
 * No user value is ever spliced into SQL text; all go through bind parameters.
 * @module
 */
import { type EmbedderInfo, sameEmbedder } from "../embed/embedder.ts";
import type { Memory, MemoryType, Scope } from "../domain/memory.ts";
import { termCounts } from "../domain/terms.ts";
import { type Db, runBatch } from "./db.ts";
import {
  addVectorColumn,
  CLEANUP_LOCK,
  columnType,
  createMissingVectorIndexes,
  dropVectorIndexes,
  MIGRATION_LOCK,
  recordedEmbedder,
  renameNextIndexes,
  setVectorColumn,
  vectorType,
} from "./migrate.ts";

/** Which memories a query may see. */
export type ScopeFilter =
  | { kind: "all" }
  | { kind: "global" }
  | { kind: "project"; project: string }
  | { kind: "hierarchy"; project: string };

/** Exact-match filters of list and bulk delete. */
export interface FieldFilter {
  scope?: Scope;
  project?: string;
  type?: MemoryType;
}

/** A row to insert, already validated, with its embedding. */
export interface NewRow extends
  Pick<
    Memory,
    "id" | "content" | "scope" | "project" | "type" | "tags" | "weight" | "supersedes"
  > {
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
  embedding: number[];
}

/** A memory with its cosine similarity to a query vector. */
export interface Scored {
  memory: Memory;
  similarity: number;
}

/** A search candidate: cosine similarity and lexical relevance (normalised BM25, 0..1). */
export interface Candidate extends Scored {
  lexical: number;
}

/** BM25 statistics of the memories one scope covers. */
interface CorpusStats {
  n: number;
  avgdl: number;
  /** Document frequency of the query's terms. */
  df: Map<string, number>;
}

/**
 * Corpus counts per project value (null: global memories), from which the statistics of any
 * scope are sums: one count serves every project's hierarchy and the global scope.
 */
interface CorpusCounts {
  at: number;
  /** Memories, the sum of their lengths and how many have a length, per project value. */
  docs: Map<string | null, { n: number; len: number; withLen: number }>;
  /** Document frequency per term and project value, of the terms asked for so far. */
  df: Map<string, Map<string | null, number>>;
}

/** Postings of highest impact scored per query term and project value. */
export const POSTINGS_PER_TERM = 100;

/** How long corpus statistics of a scope are reused, in milliseconds. */
export const STATS_TTL_MS = 10_000;

/**
 * Scopes of at most this many memories (superseded and expired ones included: the rows read),
 * and at most {@link EXACT_SCOPE_SHARE} of all, have their nearest neighbours read exactly:
 * every distance computed over the scope's rows, found by the btree on (scope, project),
 * rather than through the HNSW index of all memories with the scope as a filter, which walks
 * the graph until enough rows pass it. An exact read costs about 1 ms and 0.65 ms more per
 * 1,000 rows of the scope on the embedded database; the walk grows with the memories per row
 * of the scope (35 ms for 100 of 20,000, 3.6 ms for 2,000 of 20,000, 0.6 ms for 1,150 of
 * 2,000). Chosen by measurement (docs/performance.md, "Searches of a small scope (0.13)").
 */
export const EXACT_SCOPE_MAX = 2_000;

/** The largest share of all memories a scope read exactly may hold ({@link EXACT_SCOPE_MAX}). */
export const EXACT_SCOPE_SHARE = 0.2;

/**
 * How long the memories per project value that choose between an exact and an HNSW read are
 * reused when no search has read them since (a create's contradiction check), in milliseconds.
 * Writes do not drop them: they choose a plan, not a result.
 */
export const SIZES_TTL_MS = 60_000;

/** BM25 term-frequency saturation of the lexical side (tuned on LoCoMo dev: memories are short). */
export const BM25_K1 = 0.9;
/** BM25 length normalisation. */
export const BM25_B = 0.4;

/** Postings of a text as JSON-ready `{term: tf}` and its length in terms. */
function postingsOf(content: string): { terms: Record<string, number>; len: number } {
  const counts = termCounts(content);
  let len = 0;
  for (const n of counts.values()) len += n;
  return { terms: Object.fromEntries(counts), len };
}

interface Row {
  id: string;
  content: string;
  scope: Scope;
  project: string | null;
  type: MemoryType;
  tags: string[] | null;
  weight: number;
  created_at: Date | string;
  updated_at: Date | string;
  expires_at: Date | string | null;
  supersedes: string | null;
  superseded_by: string | null;
  similarity?: number;
}

const COLUMNS = `m.id, m.content, m.scope, m.project, m.type, m.tags, m.weight,
  m.created_at, m.updated_at, m.expires_at, m.supersedes, m.superseded_by`;

const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();

function toMemory(r: Row): Memory {
  return {
    id: r.id,
    content: r.content,
    scope: r.scope,
    project: r.project,
    type: r.type,
    tags: r.tags ?? [],
    weight: Number(r.weight),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    expires_at: r.expires_at === null ? null : iso(r.expires_at),
    supersedes: r.supersedes,
    superseded_by: r.superseded_by,
  };
}

/** pgvector's text form of a vector. */
export function vectorLiteral(v: number[]): string {
  // Six decimals keep cosine similarities exact to about 1e-6 and halve the text size.
  return `[${v.map((x) => Math.round(x * 1e6) / 1e6).join(",")}]`;
}

/** Collects bind parameters and returns their `$n` placeholders. */
class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/**
 * Scope condition of nearest-neighbour queries. It is written with `<>` and `coalesce` on
 * purpose: those forms cannot use the btree on (scope, project), so the planner cannot
 * pick a bitmap scan plus an exact sort of every matching row (measured: 35–65 ms at 10k
 * rows) and uses the HNSW index with iterative scanning and the filter instead.
 * The table constraint makes `project` non-null exactly for project-scoped rows.
 * With `exact`, the same condition written with `=`, which the btree serves: the condition of
 * an exact nearest-neighbour read ({@link EXACT_SCOPE_MAX}).
 */
function scopeClause(f: ScopeFilter, p: Params, exact = false): string {
  if (f.kind === "all") return "true";
  if (f.kind === "global") return exact ? "m.scope = 'global'" : "m.scope <> 'project'";
  const v = p.add(f.project);
  const own = exact
    ? `(m.scope = 'project' and m.project = ${v})`
    : `(m.scope <> 'global' and coalesce(m.project, '') = ${v})`;
  if (f.kind === "project") return own;
  return exact
    ? `(m.scope = 'global' or ${own})`
    : `(m.scope <> 'project' or coalesce(m.project, '') = ${v})`;
}

/** The project values (null: global) whose memories `scope` covers; null for every memory. */
function scopeValues(scope: ScopeFilter): (string | null)[] | null {
  return scope.kind === "all"
    ? null
    : scope.kind === "global"
    ? [null]
    : scope.kind === "project"
    ? [scope.project]
    : [null, scope.project];
}

/**
 * Whether the nearest neighbours within `scope` are read exactly ({@link EXACT_SCOPE_MAX}),
 * from the memories per project value (null: global).
 */
export function exactScope(scope: ScopeFilter, sizes: Map<string | null, number>): boolean {
  const values = scopeValues(scope);
  if (values === null) return false;
  let n = 0;
  for (const v of values) n += Math.max(0, sizes.get(v) ?? 0);
  let total = 0;
  for (const x of sizes.values()) total += Math.max(0, x);
  return n <= EXACT_SCOPE_MAX && n <= total * EXACT_SCOPE_SHARE;
}

function fieldClause(f: FieldFilter, p: Params): string {
  const parts = ["true"];
  if (f.scope) parts.push(`m.scope = ${p.add(f.scope)}`);
  if (f.project !== undefined) parts.push(`m.project = ${p.add(f.project)}`);
  if (f.type) parts.push(`m.type = ${p.add(f.type)}`);
  return parts.join(" and ");
}

function liveClause(now: Date, p: Params): string {
  return `(m.expires_at is null or m.expires_at > ${p.add(now)})`;
}

// A plain column filter (not an anti-join), so nearest-neighbour queries stay on the index.
const NOT_SUPERSEDED = "m.superseded_by is null";

/**
 * Rows every read may see: not staged by an import still in progress. An import commits its
 * rows in chunks tagged with its job id and publishes them all at once by deleting its job
 * row (see {@link Store.beginImport}). The job list is an init plan evaluated once per
 * statement (usually empty), leaving a plain filter per row: nearest-neighbour queries stay
 * on the HNSW index. Every read and every write by id or filter goes through this.
 */
export const VISIBLE =
  "(m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))";

/** The identity an import deduplicates on: content, scope, project and type. */
export function importKey(
  m: { content: string; scope: Scope; project: string | null; type: MemoryType },
): string {
  return JSON.stringify([m.content, m.scope, m.project ?? null, m.type]);
}

/** A job touched less recently than this on server Postgres is left behind by a dead process. */
export const IMPORT_STALE_MS = 10 * 60_000;

/** Totals as rows of (scope, project, type, count). */
export interface StatsRow {
  scope: Scope;
  project: string | null;
  type: MemoryType;
  count: number;
}

/** The tables the embedded database's vacuum looks after (their indexes go with them). */
export const VACUUMED_TABLES: readonly string[] = [
  "memories",
  "memory_nums",
  "memory_postings",
  "memory_term_keys",
  "memory_term_df",
  "memory_corpus",
  "mneme_import_jobs",
  "mneme_meta",
  "mneme_maintenance",
];

/** Live and dead rows of one table. */
export interface DeadRows {
  table: string;
  live: number;
  dead: number;
}

/** One vacuum of the embedded database. */
export interface VacuumRun {
  /** When it ended (ISO 8601). */
  at: string;
  /** How long it took. */
  took_ms: number;
  /** Dead rows the statistics counted in its tables before it ran. */
  dead_rows: number;
  /** The tables vacuumed. */
  tables: string[];
  /** The tables also compacted (`VACUUM FULL`: rewritten with their indexes), if any. */
  compacted?: string[];
  /** The indexes rebuilt (`REINDEX`) because they were bloated, if any. */
  reindexed?: string[];
}

/**
 * A vacuumed table is also compacted (`VACUUM FULL`, which rewrites it and rebuilds its
 * indexes, HNSW included) when its file is over this many times the size of its live rows
 * plus {@link COMPACT_SLACK_BYTES}: plain VACUUM only makes the space of dead rows reusable, so
 * churn leaves a table and its indexes about twice their size, and a small table of hot rows
 * (the term frequencies) keeps growing.
 */
export const COMPACT_FACTOR = 1.3;
/** See {@link COMPACT_FACTOR}. */
export const COMPACT_SLACK_BYTES = 1024 * 1024;
/**
 * Only tables (with their indexes) up to this size are compacted: the rewrite holds the
 * database for about a second per 10 MiB, which requests would notice on larger ones.
 */
export const COMPACT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A postings index ({@link REINDEXED}) is rebuilt (`REINDEX`) when its file is over this many
 * times the size a build would give it, plus {@link COMPACT_SLACK_BYTES}. A build fills its
 * pages to 90%; entries inserted in random order, as writes and imports add them, leave them
 * about 70% full (at 20,000 memories the lookup index was 38.4 MB, 29.2 MB once rebuilt, and
 * the estimate below said 29.0). Indexes up to {@link COMPACT_MAX_BYTES} only: the build holds
 * the embedded database (3 s for the 38 MB one on a loaded machine).
 */
export const REINDEX_FACTOR = 1.15;
/**
 * The HNSW index of `memories` is rebuilt by the vacuum when it is over this many times the
 * size a build would give it, plus the slack (see `#reindexBloatedHnsw`).
 */
export const HNSW_REINDEX_FACTOR = 1.5;
/** The memory a rebuild of a postings index sorts in (see `#reindexBloated`). */
const REINDEX_WORK_MEM = "4MB";
/** The postings indexes the vacuum rebuilds when bloated (see {@link REINDEX_FACTOR}). */
export const REINDEXED: readonly string[] = ["memory_postings_lookup"];

/** The store: all memory queries over one {@link Db}. */
/**
 * The memories of the rows `x` of {@link INSERT_ROWS} and {@link STAGE_ROWS} (import job $2),
 * as the columns and the select of their `insert into memories`.
 */
const MEMORY_ROWS_FROM_X = `(id, content, scope, project, type, tags, weight, supersedes,
                created_at, updated_at, expires_at, embedding, term_count, import_job)
           select x.id, x.content, x.scope, x.project, x.type,
                  array(select jsonb_array_elements_text(x.tags)), x.weight, x.supersedes,
                  x.created_at, x.updated_at, x.expires_at, x.embedding::vector, x.len, $2::uuid
             from x`;

/**
 * Insert memories and their postings in one statement (the foreign key is checked at its end),
 * so a memory never exists without them, and the keys of their (term, project) pairs that are
 * missing (migrations/0014); $1 is the rows as JSON ({@link insertStatement}), $2 the import job
 * or null. `posted`: the postings written.
 */
const INSERT_ROWS = insertRows(`select * from jsonb_to_recordset($1::text::jsonb) as x(
                id uuid, content text, scope text, project text, type text, tags jsonb,
                weight double precision, supersedes uuid, created_at timestamptz,
                updated_at timestamptz, expires_at timestamptz, embedding text, terms jsonb,
                len int)`);

/**
 * {@link INSERT_ROWS} on the embedded database: the vectors are not in the rows' JSON but in
 * $3, all of them in one `real[]` sent in Postgres's binary format ({@link float4ArrayBinary}),
 * $4 floats a row; row `j`'s is its slice (as {@link STAGE_ROWS_BINARY}). A create's vector is
 * neither formatted as text here nor parsed there (0.07 ms of a create's 2.5 in WASM).
 */
const INSERT_ROWS_BINARY = insertRows(`select r.*,
                  ($3::real[])[r.j * $4::int + 1 : (r.j + 1) * $4::int] as embedding
             from jsonb_to_recordset($1::text::jsonb) as r(
                j int, id uuid, content text, scope text, project text, type text, tags jsonb,
                weight double precision, supersedes uuid, created_at timestamptz,
                updated_at timestamptz, expires_at timestamptz, terms jsonb, len int)`);

/** An insert's statement over the rows `x` that `rows` selects ({@link INSERT_ROWS}). */
function insertRows(rows: string): string {
  return `with x as materialized (
           ${rows}
         ), pairs as materialized (
           select distinct t.term, x.project from x, jsonb_object_keys(x.terms) as t(term)
         ), known as materialized (
           select p.term, p.project, k.id from pairs p
             cross join lateral (select k.id from memory_term_keys k
                                  where k.term = p.term
                                    and coalesce(k.project, '') = coalesce(p.project, '')
                                  limit 1) k
         ), added as (
           -- In one order, so that two writers adding the same new pairs cannot deadlock.
           insert into memory_term_keys (term, project)
           select p.term, p.project from pairs p
            where not exists (select 1 from known
                               where known.term = p.term
                                 and known.project is not distinct from p.project)
            order by p.term, p.project
           on conflict (term, (coalesce(project, ''))) do nothing
           returning id, term, project
         ), keys as (
           select term, project, id from known union all select term, project, id from added
         ), ins as (
           insert into memories as m ${MEMORY_ROWS_FROM_X}
           returning m.id, m.content, m.scope, m.project, m.type, m.tags, m.weight, m.created_at,
                     m.updated_at, m.expires_at, m.supersedes, m.superseded_by
         ), num as (
           insert into memory_nums (id) select x.id from x returning num, id
         ), post as (
           insert into memory_postings (key, num, tf, len)
           select k.id, n.num, t.value::smallint, least(x.len, 32767)::smallint
             from x join num n on n.id = x.id
             cross join lateral jsonb_each_text(x.terms) as t
             join keys k on k.term = t.key and k.project is not distinct from x.project
           returning 1
         )
         select ins.*, (select count(*) from post)::int as posted from ins`;
}

/**
 * The (term, project) pairs of $1 and $2 (arrays) with the key of each, null where it has none
 * ({@link Store.stageImport}'s new pairs).
 */
const PAIRS_WITH_KEYS = `select x.term, x.project, k.id
             from unnest($1::text[], $2::text[]) as x(term, project)
             left join lateral (select k.id from memory_term_keys k
                                 where k.term = x.term
                                   and coalesce(k.project, '') = coalesce(x.project, '')
                                 limit 1) k on true`;

/**
 * An import's chunk ({@link Store.stageImport}): $1 the rows as JSON, each with its index `j`,
 * $2 the import job, $3–$6 the postings as arrays of (row index, key, tf, len), the keys
 * already found. The memories, their numbers and postings in one statement, as
 * {@link INSERT_ROWS}. `posted`: the postings written.
 */
const STAGE_ROWS = stageRows(`select * from jsonb_to_recordset($1::text::jsonb) as x(
                j int, id uuid, content text, scope text, project text, type text, tags jsonb,
                weight double precision, supersedes uuid, created_at timestamptz,
                updated_at timestamptz, expires_at timestamptz, embedding text, len int)`);

/**
 * {@link STAGE_ROWS} on the embedded database: the vectors are not in the rows' JSON but in
 * $7, all of the chunk's in one `real[]` sent in Postgres's binary format
 * ({@link float4ArrayBinary}), $8 floats a row; row `j`'s is its slice, cast to `vector`.
 * Neither formatted as text here nor parsed (`float_in`, in WASM) there.
 */
const STAGE_ROWS_BINARY = stageRows(`select r.*,
                  ($7::real[])[r.j * $8::int + 1 : (r.j + 1) * $8::int] as embedding
             from jsonb_to_recordset($1::text::jsonb) as r(
                j int, id uuid, content text, scope text, project text, type text, tags jsonb,
                weight double precision, supersedes uuid, created_at timestamptz,
                updated_at timestamptz, expires_at timestamptz, len int)`);

/** An import chunk's statement over the rows `x` that `rows` selects. */
function stageRows(rows: string): string {
  return `with x as materialized (
           ${rows}
         ), ins as (
           insert into memories ${MEMORY_ROWS_FROM_X} order by x.j
           returning 1
         ), num as (
           insert into memory_nums (id) select x.id from x order by x.j returning num, id
         ), post as (
           insert into memory_postings (key, num, tf, len)
           select p.key, n.num, p.tf, p.len
             from unnest($3::int[], $4::int[], $5::smallint[], $6::smallint[])
                    with ordinality as p(j, key, tf, len, o)
             join x on x.j = p.j join num n on n.id = x.id
            order by p.o
           returning 1
         )
         select (select count(*) from ins)::int as inserted,
                (select count(*) from post)::int as posted`;
}

/** The postings of each row of an insert ({@link postingsOf}). */
type Postings = ReturnType<typeof postingsOf>;

/** A row as the JSON of {@link INSERT_ROWS} and {@link STAGE_ROWS} reads it. */
function rowJson(r: NewRow) {
  return { ...rowFields(r), embedding: vectorLiteral(r.embedding) };
}

/** A row's fields but its vector, as {@link STAGE_ROWS_BINARY} reads them. */
function rowFields(r: NewRow) {
  return {
    id: r.id,
    content: r.content,
    scope: r.scope,
    project: r.project,
    type: r.type,
    tags: r.tags,
    weight: r.weight,
    supersedes: r.supersedes,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
  };
}

/**
 * `vectors` (each of `dimension` floats) end to end as one `real[]` in Postgres's binary array
 * format (one dimension, no nulls, element type `float4`, OID 700), each float rounded as
 * {@link vectorLiteral} writes it: the vectors stored are exactly those of the text form.
 * (A float rounded to six decimals is never within half a double's step of a point halfway
 * between two `float4`s, so rounding it to `float4` here gives what `strtof` gives for its
 * text; `-0` is written `0` in text, so it is `0` here.)
 */
export function float4ArrayBinary(vectors: number[][], dimension: number): Uint8Array {
  const n = vectors.length * dimension;
  const out = new DataView(new ArrayBuffer(20 + n * 8));
  out.setInt32(0, 1); // dimensions
  out.setInt32(4, 0); // no nulls
  out.setUint32(8, 700); // float4
  out.setInt32(12, n);
  out.setInt32(16, 1); // lower bound
  let at = 20;
  for (const [j, v] of vectors.entries()) {
    if (v.length !== dimension) {
      throw new Error(`embedding: row ${j} has ${v.length} dimensions, not ${dimension}`);
    }
    for (const x of v) {
      out.setInt32(at, 4);
      out.setFloat32(at + 4, Math.round(x * 1e6) / 1e6 || 0);
      at += 8;
    }
  }
  return new Uint8Array(out.buffer);
}

/**
 * `rows` as the JSON an insert or an import's chunk reads, each with its index `j` and
 * `extra(j)`: on the embedded database without their vectors, which go apart as one `real[]` in
 * binary ({@link float4ArrayBinary}) with their dimension (`vectors`); on a server with them as
 * text in the JSON (`vectors` null).
 */
function rowsPayload(
  db: Db,
  rows: NewRow[],
  extra: (j: number) => object,
): { json: string; vectors: [Uint8Array, number] | null } {
  if (db.kind !== "pglite" || !rows.length) {
    return {
      json: JSON.stringify(rows.map((r, j) => ({ j, ...rowJson(r), ...extra(j) }))),
      vectors: null,
    };
  }
  const dimension = rows[0].embedding.length;
  return {
    json: JSON.stringify(rows.map((r, j) => ({ j, ...rowFields(r), ...extra(j) }))),
    vectors: [float4ArrayBinary(rows.map((r) => r.embedding), dimension), dimension],
  };
}

/**
 * The statement and parameters that insert `rows` with their `posts` (of import `job`, or
 * null): {@link INSERT_ROWS_BINARY} on the embedded database, {@link INSERT_ROWS} on a server
 * ({@link rowsPayload}).
 */
function insertStatement(
  db: Db,
  rows: NewRow[],
  posts: Postings[],
  job: string | null,
): [string, unknown[]] {
  const { json, vectors } = rowsPayload(db, rows, (j) => posts[j]);
  return vectors ? [INSERT_ROWS_BINARY, [json, job, ...vectors]] : [INSERT_ROWS, [json, job]];
}

/**
 * The `k` nearest current, not superseded memories by cosine distance (with `similarity`):
 * its text and parameters. Run with sequential scans off ({@link Store.nearest}). With
 * `exact`, the scope's rows come from the btree on (scope, project) and are ordered by their
 * distance plus 0, an expression no index serves (so the planner cannot take the HNSW index);
 * otherwise from the HNSW index with the scope as a filter.
 */
function nearestStatement(
  vector: number[],
  scope: ScopeFilter,
  k: number,
  now: Date,
  exact: boolean,
  excludeId?: string,
): [string, unknown[]] {
  const p = new Params();
  const v = p.add(vectorLiteral(vector));
  const where = scopeClause(scope, p, exact);
  const exclude = excludeId ? `and m.id <> ${p.add(excludeId)}` : "";
  return [
    `select ${COLUMNS}, 1 - (m.embedding <=> ${v}::vector) as similarity
       from memories m
      where ${where} and ${liveClause(now, p)} and ${NOT_SUPERSEDED}
        and ${VISIBLE} ${exclude}
      order by ${exact ? `(m.embedding <=> ${v}::vector) + 0` : `m.embedding <=> ${v}::vector`}
      limit ${p.add(k)}`,
    p.values,
  ];
}

/** The memories per project value in corpus counts (for {@link exactScope}). */
function sizesOf(c: CorpusCounts): { at: number; n: Map<string | null, number> } {
  return { at: c.at, n: new Map([...c.docs].map(([k, d]) => [k, d.n])) };
}

export class Store {
  /** The driver underneath. */
  readonly db: Db;

  /** Wrap a driver. */
  constructor(db: Db) {
    this.db = db;
  }

  // Statistics of the imports this store is writing, by job: document frequency by
  // [term, project] (JSON) and count and length by project, added when the import is published.
  readonly #staged = new Map<
    string,
    {
      df: Map<string, number>;
      corpus: Map<string | null, { n: number; len: number }>;
      /** Keys of (term, project) pairs (JSON) met so far: the dictionary is never deleted from. */
      keys: Map<string, number>;
    }
  >();

  // Corpus size, lengths and document frequencies for BM25, exact: triggers keep them in
  // memory_corpus and memory_term_df (deltas appended by every write, see
  // migrations/0006_corpus_stats.sql), so reading them sums a few rows. They are still kept for
  // a few seconds (and dropped by this store's writes), per project value, so that one read
  // serves every scope and most searches need no extra round trip; a count a few seconds old
  // changes no ranking.
  #counts: CorpusCounts | null = null;

  // Memories per project value as last read with the corpus statistics, which choose between an
  // exact and an HNSW nearest-neighbour read ({@link exactScope}); kept for SIZES_TTL_MS.
  #sizes: { at: number; n: Map<string | null, number> } | null = null;

  /** Forget the cached corpus statistics (after writes). */
  invalidateStats(): void {
    this.#counts = null;
  }

  /** Whether the nearest neighbours within `scope` are read exactly ({@link exactScope}). */
  async #exact(scope: ScopeFilter): Promise<boolean> {
    if (scope.kind === "all") return false;
    if (!this.#sizes || Date.now() - this.#sizes.at >= SIZES_TTL_MS) {
      // Counts a search read less than STATS_TTL_MS ago serve as they are (their terms'
      // document frequencies stay cached); otherwise they are read again.
      const c = this.#counts;
      if (c && Date.now() - c.at < STATS_TTL_MS) this.#sizes = sizesOf(c);
      else await this.#readCounts();
    }
    return exactScope(scope, this.#sizes!.n);
  }

  /** Read the corpus counts per project value ({@link CorpusCounts}). */
  async #readCounts(): Promise<CorpusCounts> {
    const rows = await this.db.query<
      { project: string | null; n: number; len: number; with_len: number }
    >(
      `select c.project, sum(c.n)::float8 as n, sum(c.len)::float8 as len,
              sum(c.with_len)::float8 as with_len
         from memory_corpus c group by c.project`,
    );
    const c: CorpusCounts = { at: Date.now(), docs: new Map(), df: new Map() };
    for (const r of rows) {
      c.docs.set(r.project, { n: Number(r.n), len: Number(r.len), withLen: Number(r.with_len) });
    }
    this.#counts = c;
    this.#sizes = sizesOf(c);
    return c;
  }

  async #corpusStats(scope: ScopeFilter, terms: string[]): Promise<CorpusStats> {
    let c = this.#counts;
    if (!c || Date.now() - c.at >= STATS_TTL_MS) c = await this.#readCounts();
    const missing = terms.filter((t) => !c.df.has(t));
    if (missing.length) {
      const rows = await this.db.query<{ term: string; project: string | null; df: number }>(
        `select d.term, d.project, sum(d.df)::int as df from memory_term_df d
          where d.term = any($1::text[]) group by d.term, d.project`,
        [missing],
      );
      if (c.df.size > 50_000) c.df.clear();
      for (const t of missing) c.df.set(t, new Map());
      for (const r of rows) c.df.get(r.term)!.set(r.project, Number(r.df));
    }
    const values = scopeValues(scope);
    const sum = <T>(m: Map<string | null, T>, f: (x: T) => number) => {
      let total = 0;
      if (values === null) { for (const x of m.values()) total += f(x); }
      else for (const v of values) total += m.has(v) ? f(m.get(v)!) : 0;
      return total;
    };
    const n = sum(c.docs, (d) => d.n);
    const withLen = sum(c.docs, (d) => d.withLen);
    const avgdl = withLen ? sum(c.docs, (d) => d.len) / withLen : 1;
    const df = new Map(terms.map((t) => [t, sum(c.df.get(t)!, (x) => x)]));
    return { n, avgdl: Math.max(1, avgdl), df };
  }

  /**
   * Run a nearest-neighbour query with sequential scans disabled for its transaction. The
   * planner prices a 768-dimension distance like any operator, so with a scope filter it
   * prefers scanning and sorting every matching row (measured 30–55 ms at 10k rows on
   * PGlite) over the HNSW index with iterative scanning (3–6 ms). `set local` keeps the
   * setting inside this one transaction.
   */
  #indexed<T>(text: string, params: unknown[]): Promise<T[]> {
    return this.db.transaction(async (tx) => {
      await tx.exec("set local enable_seqscan = off");
      return await tx.query<T>(text, params);
    });
  }

  /** `pglite` or `postgres`. */
  get kind(): "pglite" | "postgres" {
    return this.db.kind;
  }

  /** Run `fn` with a store bound to one transaction. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => fn(new Store(tx)));
  }

  /**
   * Insert rows (in batches of 200 per statement); returns the stored memories in order.
   * Rows of an import carry its `job` id and stay invisible until it is published.
   */
  async insert(rows: NewRow[], job: string | null = null): Promise<Memory[]> {
    const out: Memory[] = [];
    for (let i = 0; i < rows.length; i += 200) {
      const batch = rows.slice(i, i + 200);
      const posts = batch.map((r) => postingsOf(r.content));
      const inserted = await this.db.query<Row & { posted: number }>(
        ...insertStatement(this.db, batch, posts, job),
      );
      await this.#postAgainIfMissed(batch, posts, inserted);
      const byId = new Map(inserted.map((r) => [r.id, toMemory(r)]));
      for (const r of batch) out.push(byId.get(r.id)!);
    }
    return out;
  }

  /**
   * Add the missing keys of the (term, project) pairs of `docs` to `memory_term_keys` (never
   * deleted: a key left by a write that failed afterwards only waits for its pair).
   */
  async #ensureKeys(docs: { terms: readonly string[]; project: string | null }[]): Promise<void> {
    const seen = new Set<string>();
    const terms: string[] = [];
    const projects: (string | null)[] = [];
    for (const d of docs) {
      for (const t of d.terms) {
        const k = JSON.stringify([t, d.project]);
        if (seen.has(k)) continue;
        seen.add(k);
        terms.push(t);
        projects.push(d.project);
      }
    }
    if (!terms.length) return;
    // In one order, so that two writers adding the same new pairs cannot deadlock.
    await this.db.query(
      `insert into memory_term_keys (term, project)
       select x.term, x.project from unnest($1::text[], $2::text[]) as x(term, project)
         left join lateral (select 1 as found from memory_term_keys k
                             where k.term = x.term and coalesce(k.project, '') = coalesce(x.project, '')
                             limit 1) f on true
        where f.found is null
        order by x.term, x.project
       on conflict (term, (coalesce(project, ''))) do nothing`,
      [terms, projects],
    );
  }

  /**
   * A pair added by a concurrent writer after an insert began (server Postgres) is neither
   * seen nor added by it (it waited for that writer, then did nothing): the postings of
   * `rows` are written again by a statement that sees it when fewer were `posted` than due.
   */
  async #postAgainIfMissed(
    rows: NewRow[],
    posts: Postings[],
    inserted: { posted: number }[],
  ): Promise<void> {
    const expected = posts.reduce((n, p) => n + Object.keys(p.terms).length, 0);
    if (inserted.length && Number(inserted[0].posted) < expected) {
      await this.#writePostings(
        rows.map((r, j) => ({ id: r.id, c: r.content, ...posts[j] })),
        rows.map((r) => r.id),
      );
    }
  }

  /**
   * A create without a memory to supersede, in one transaction and, on the embedded database
   * in a worker thread, one message: the recorded embedder checked (it must be `embedder`, or
   * none), the `k` nearest current memories to `row`'s vector within `scope` read (for the
   * contradiction check, before the row exists), then `row` inserted. Null, with nothing
   * written, when another embedder is recorded. Used on the embedded database only: each
   * statement there is a message to the worker, on a server one round trip either way.
   */
  async insertAfterNearest(
    row: NewRow,
    embedder: EmbedderInfo,
    scope: ScopeFilter,
    k: number,
    now: Date,
  ): Promise<{ memory: Memory; near: Scored[] } | null> {
    const [nearText, nearParams] = nearestStatement(
      row.embedding,
      scope,
      k,
      now,
      await this.#exact(scope),
    );
    const posts = [postingsOf(row.content)];
    const [insertText, insertParams] = insertStatement(this.db, [row], posts, null);
    const out = await runBatch(this.db, [
      // The embedder check and `set local enable_seqscan = off` (as a function call: a
      // prepared statement on the embedded database) in one statement: no row, nothing set.
      {
        text: `select set_config('enable_seqscan', 'off', true) as usable from mneme_meta
                where id = 1 and (
                 coalesce(embedder_provider, '') = '' or coalesce(embedder_model, '') = ''
                 or coalesce(embedder_dimension, 0) = 0
                 or (embedder_provider = $1 and embedder_model = $2 and embedder_dimension = $3))`,
        params: [embedder.provider, embedder.model, embedder.dimension],
        stopUnlessRows: true,
        prepare: true,
      },
      // Prepared: planned with sequential scans off, its plan stays on the HNSW index (or, for
      // a small scope, on the btree: another text) for every vector, scope and time (a generic
      // plan after five creates, 0.3-0.4 ms a create less than planning it each time at 2,000
      // memories; docs/performance.md).
      { text: nearText, params: nearParams, prepare: true },
      // Its plan cannot depend on its parameters (rows as JSON): the embedded database keeps
      // it (a generic plan) rather than plan it again for each create. Sequential scans stay
      // off for it: it scans no table (its lookups go through indexes), so nothing changes but
      // one statement less.
      { text: insertText, params: insertParams, prepare: true },
    ]);
    if (out.length < 3) return null;
    const inserted = out[2] as (Row & { posted: number })[];
    await this.#postAgainIfMissed([row], posts, inserted);
    return {
      near: (out[1] as Row[]).map((r) => ({
        memory: toMemory(r),
        similarity: Number(r.similarity),
      })),
      memory: toMemory(inserted[0]),
    };
  }

  /**
   * Start a staged import of `items` rows and return its job id. Its rows are written by
   * {@link Store.stageImport} in chunks (each its own short transaction, so that other
   * requests run in between) and stay invisible to every read ({@link VISIBLE}) until
   * {@link Store.publishImport}; {@link Store.abandonImport} deletes them.
   */
  async beginImport(items: number): Promise<string> {
    const id = crypto.randomUUID();
    await this.db.query("insert into mneme_import_jobs (id, items) values ($1, $2)", [id, items]);
    this.#staged.set(id, { df: new Map(), corpus: new Map(), keys: new Map() });
    return id;
  }

  /**
   * Write one chunk of an import in one transaction. `check` runs first in that transaction
   * (the service checks the recorded embedder there). Returns false, writing nothing, when
   * the job no longer exists (abandoned as stale by another process). The rows go into the live HNSW index one by one:
   * slower in total than dropping and rebuilding it, but no statement runs for seconds.
   */
  async stageImport(
    job: string,
    rows: NewRow[],
    check?: (store: Store) => Promise<void>,
  ): Promise<boolean> {
    const posts = rows.map((r) => postingsOf(r.content));
    const acc = this.#staged.get(job);
    const keys = acc?.keys ?? new Map<string, number>();
    const added = new Map<string, number>();
    const staged = await this.transaction(async (s) => {
      // The job touched and the chunk's settings made, in one statement (one message to the
      // embedded database's worker, not four):
      // - Staged rows need no flush of their own: nobody sees them, and the publishing commit
      //   (synchronous) flushes the log up to itself, these chunks included. Saves one fsync
      //   per chunk.
      // - No statistics deltas per chunk (migrations/0007): the import adds its own when it
      //   is published.
      // - The embedded database (one owner, a superuser): no foreign-key check per row. The
      //   chunk's statement makes the numbers its postings refer to, and import rows
      //   supersede nothing (src/memory/validate.ts); its statement triggers do nothing for
      //   staged rows.
      const replica = s.db.kind === "pglite"
        ? ", set_config('session_replication_role', 'replica', true)"
        : "";
      const touched = await s.db.query(
        `with t as (update mneme_import_jobs set touched_at = now() where id = $1 returning id)
         select t.id, set_config('synchronous_commit', 'off', true),
                set_config('mneme.staged', 'on', true)${replica}
           from t`,
        [job],
        { prepare: true },
      );
      if (!touched.length) return false;
      if (check) await check(s);
      await s.#stageRows(rows, posts, job, keys, added);
      return true;
    });
    // Keys added by this chunk are known once it committed (a rolled-back chunk fails the
    // import, whose cache goes with it).
    for (const [k, id] of added) keys.set(k, id);
    if (staged) this.#countStaged(job, rows, posts);
    return staged;
  }

  /**
   * Insert an import's chunk: the memories and their numbers from JSON, their postings as
   * arrays of (row, key, tf, len) with the keys of their (term, project) pairs looked up by
   * the caller, `keys` (known before this chunk) and `added` (found or added by it). Cheaper
   * per row than {@link INSERT_ROWS}, which finds every pair's key for each row; the same rows,
   * numbers and postings in the same order.
   */
  async #stageRows(
    rows: NewRow[],
    posts: Postings[],
    job: string,
    keys: ReadonlyMap<string, number>,
    added: Map<string, number>,
  ): Promise<void> {
    const keyOf = (term: string, project: string | null) => JSON.stringify([term, project]);
    const missing = new Map<string, { term: string; project: string | null }>();
    rows.forEach((r, j) => {
      for (const term of Object.keys(posts[j].terms)) {
        const k = keyOf(term, r.project);
        if (!keys.has(k) && !added.has(k)) missing.set(k, { term, project: r.project });
      }
    });
    if (missing.size) {
      const pairs = [...missing.values()];
      // Found or added in one statement. A pair that a concurrent writer added after this
      // statement began (server Postgres) is neither: it is looked up again below.
      const found = await this.db.query<{ term: string; project: string | null; id: number }>(
        `with x as materialized (${PAIRS_WITH_KEYS}), ins as (
           -- In one order, so that two writers adding the same new pairs cannot deadlock.
           insert into memory_term_keys (term, project)
           select term, project from x where id is null order by term, project
           on conflict (term, (coalesce(project, ''))) do nothing
           returning term, project, id
         )
         select term, project, id from x where id is not null
         union all select term, project, id from ins`,
        [pairs.map((p) => p.term), pairs.map((p) => p.project)],
        { prepare: true },
      );
      for (const f of found) added.set(keyOf(f.term, f.project), Number(f.id));
      const late = pairs.filter((p) => !added.has(keyOf(p.term, p.project)));
      if (late.length) {
        const again = await this.db.query<{ term: string; project: string | null; id: number }>(
          `select term, project, id from (${PAIRS_WITH_KEYS}) p where id is not null`,
          [late.map((p) => p.term), late.map((p) => p.project)],
        );
        for (const f of again) added.set(keyOf(f.term, f.project), Number(f.id));
      }
    }
    const at: number[] = [];
    const ks: number[] = [];
    const tfs: number[] = [];
    const lens: number[] = [];
    rows.forEach((r, j) => {
      const len = Math.min(posts[j].len, 32767);
      for (const [term, tf] of Object.entries(posts[j].terms)) {
        const k = keyOf(term, r.project);
        const key = keys.get(k) ?? added.get(k);
        if (key === undefined) throw new Error(`no key for the pair ${k}`);
        at.push(j);
        ks.push(key);
        tfs.push(tf);
        lens.push(len);
      }
    });
    // The embedded database takes the vectors in binary, a server as text ({@link rowsPayload}).
    const { json, vectors } = rowsPayload(this.db, rows, (j) => ({ len: posts[j].len }));
    const postings = [at, ks, tfs, lens].map((xs) => `{${xs.join(",")}}`);
    const [out] = await this.db.query<{ posted: number }>(
      vectors ? STAGE_ROWS_BINARY : STAGE_ROWS,
      [json, job, ...postings, ...(vectors ?? [])],
      { prepare: true },
    );
    if (Number(out?.posted) !== at.length) {
      throw new Error(`staged ${out?.posted} postings of ${at.length}`);
    }
  }

  /** Add a committed chunk's rows to its import's statistics (published with it). */
  #countStaged(job: string, rows: NewRow[], posts: Postings[]): void {
    const acc = this.#staged.get(job);
    if (!acc) return;
    for (const [j, r] of rows.entries()) {
      const { terms, len } = posts[j];
      const c = acc.corpus.get(r.project) ?? { n: 0, len: 0 };
      c.n++;
      c.len += len;
      acc.corpus.set(r.project, c);
      for (const term of Object.keys(terms)) {
        const key = JSON.stringify([term, r.project]);
        acc.df.set(key, (acc.df.get(key) ?? 0) + 1);
      }
    }
  }

  /** Make every row of an import visible at once; false when the job no longer exists. */
  async publishImport(job: string): Promise<boolean> {
    const acc = this.#staged.get(job);
    this.#staged.delete(job);
    // The import's statistics, counted as its chunks committed, go in with its publication:
    // one statement per table, in the transaction that makes its rows visible.
    const df = [...acc?.df ?? []].map(([key, n]) => {
      const [term, project] = JSON.parse(key) as [string, string | null];
      return { term, project, df: n };
    });
    const corpus = [...acc?.corpus ?? []].map(([project, c]) => ({
      project,
      n: c.n,
      len: c.len,
    }));
    return await this.db.transaction(async (tx) => {
      const rows = await tx.query("delete from mneme_import_jobs where id = $1 returning id", [
        job,
      ]);
      if (!rows.length) return false;
      // Rolls back: the job stays, to be abandoned, rather than published uncounted.
      if (!acc) throw new Error(`import ${job} was not begun by this store`);
      await tx.query(
        `insert into memory_term_df (term, project, df)
         select term, project, df from jsonb_to_recordset($1::text::jsonb)
           as x(term text, project text, df int)`,
        [JSON.stringify(df)],
      );
      await tx.query(
        `insert into memory_corpus (project, n, len, with_len)
         select project, n, len, n from jsonb_to_recordset($1::text::jsonb)
           as x(project text, n int, len bigint)`,
        [JSON.stringify(corpus)],
      );
      return true;
    });
  }

  /**
   * Delete an unfinished import: its job, then its staged rows. With `staleSecs`, only while
   * the job is still untouched for that long: the job row is deleted first (a chunk or the
   * publication of the import holds that row meanwhile, so the two take turns), and the rows
   * only when it was, so an import that is slow but alive is never emptied under its owner.
   * Returns whether the import was deleted.
   */
  async abandonImport(job: string, staleSecs?: number): Promise<boolean> {
    this.#staged.delete(job);
    return await this.transaction(async (s) => {
      const gone = staleSecs === undefined
        ? await s.db.query("delete from mneme_import_jobs where id = $1 returning id", [job])
        : await s.db.query(
          `delete from mneme_import_jobs
            where id = $1 and touched_at < now() - make_interval(secs => $2) returning id`,
          [job, staleSecs],
        );
      if (staleSecs !== undefined && !gone.length) return false;
      // Its rows were never counted in the statistics (migrations/0007).
      await s.db.exec("set local mneme.staged = 'on'");
      await s.db.query("delete from memories where import_job = $1", [job]);
      return true;
    });
  }

  /**
   * Delete imports left unfinished by a process that died: every one when `all` (the
   * embedded database has one owner, so at its start no import is running), otherwise those
   * untouched for {@link IMPORT_STALE_MS} (server Postgres, shared by several processes).
   * Returns the number of imports deleted.
   */
  async abandonStaleImports(all: boolean): Promise<number> {
    const jobs = await this.db.query<{ id: string }>("select id from mneme_import_jobs");
    let n = 0;
    for (const j of jobs) {
      if (await this.abandonImport(j.id, all ? undefined : IMPORT_STALE_MS / 1000)) n++;
    }
    return n;
  }

  /**
   * Which of `items` are already stored: the keys (see {@link importKey}) of current
   * memories (not expired, visible) with the same content, scope, project and type.
   */
  async existingKeys(
    items: { content: string; scope: Scope; project: string | null; type: MemoryType }[],
    now: Date,
  ): Promise<Set<string>> {
    const found = new Set<string>();
    const contents = [...new Set(items.map((i) => i.content))];
    const BATCH = 500;
    for (let i = 0; i < contents.length; i += BATCH) {
      const p = new Params();
      const c = p.add(contents.slice(i, i + BATCH));
      const rows = await this.db.query<
        { content: string; scope: Scope; project: string | null; type: MemoryType }
      >(
        `select m.content, m.scope, m.project, m.type from memories m
          where md5(m.content) = any(array(select md5(c) from unnest(${c}::text[]) c))
            and m.content = any(${c}::text[]) and ${liveClause(now, p)} and ${VISIBLE}`,
        p.values,
      );
      for (const r of rows) found.add(importKey(r));
    }
    return found;
  }

  /** One memory by id, expired or not; null when absent. */
  async get(id: string): Promise<Memory | null> {
    const rows = await this.db.query<Row>(
      `select ${COLUMNS} from memories m where m.id = $1 and ${VISIBLE}`,
      [
        id,
      ],
    );
    return rows[0] ? toMemory(rows[0]) : null;
  }

  /**
   * Lock a current (unexpired) memory row for the rest of the transaction and return who
   * superseded it (null while it is current); null when absent. The row lock makes a
   * concurrent supersession of the same memory wait and then see this one's link.
   */
  async lockLive(id: string, now: Date): Promise<{ supersededBy: string | null } | null> {
    const rows = await this.db.query<{ superseded_by: string | null }>(
      `select m.superseded_by from memories m
        where m.id = $1 and (m.expires_at is null or m.expires_at > $2) and ${VISIBLE}
          for update of m`,
      [id, now],
    );
    return rows.length ? { supersededBy: rows[0].superseded_by } : null;
  }

  /**
   * Current memories matching the filter, newest update first; with `idRange`, only ids in
   * it (`[lowest, highest]`: the ids a short id's prefix covers, read through the key).
   */
  async list(
    filter: FieldFilter,
    limit: number,
    now: Date,
    idRange?: readonly [string, string],
  ): Promise<Memory[]> {
    const p = new Params();
    let where = `${fieldClause(filter, p)} and ${liveClause(now, p)} and ${VISIBLE}`;
    if (idRange) where += ` and m.id between ${p.add(idRange[0])} and ${p.add(idRange[1])}`;
    const rows = await this.db.query<Row>(
      `select ${COLUMNS} from memories m where ${where}
        order by m.updated_at desc, m.id limit ${p.add(limit)}`,
      p.values,
    );
    return rows.map(toMemory);
  }

  /** Replace content and embedding; null when absent. */
  async updateContent(
    id: string,
    content: string,
    embedding: number[],
    now: Date,
  ): Promise<Memory | null> {
    const rows = await this.transaction(async (s) => {
      // A re-embedding run in progress holds a vector of the old content in embedding_next:
      // clear it so that the run embeds the new content. The meta row lock keeps the run
      // from starting or finishing (adding or dropping that column) in between.
      const running = await s.#lockReembedRun("share");
      const updated = await s.db.query<{ id: string }>(
        `update memories m set content = $2, embedding = $3::vector, updated_at = $4
           ${running ? ", embedding_next = null" : ""}
          where m.id = $1 and ${VISIBLE} returning m.id`,
        [id, content, vectorLiteral(embedding), now],
      );
      if (updated.length) await s.storeTerms([{ id, content }]);
      return updated;
    });
    return rows.length ? await this.get(id) : null;
  }

  /** Lock the meta row (in a transaction); true when a re-embedding run is in progress. */
  async #lockReembedRun(mode: "share" | "update"): Promise<boolean> {
    const [row] = await this.db.query<{ running: boolean }>(
      `select reembed_provider is not null as running from mneme_meta where id = 1
          for ${mode === "share" ? "share" : "update"}`,
    );
    return Boolean(row?.running);
  }

  /** Mark `id` as replaced by `by`, with the superseded weight. */
  async supersede(id: string, by: string, weight: number): Promise<void> {
    await this.db.query(`update memories set weight = $3, superseded_by = $2 where id = $1`, [
      id,
      by,
      weight,
    ]);
  }

  /** Delete one; false when absent. */
  async delete(id: string): Promise<boolean> {
    const rows = await this.db.query(
      `delete from memories m where m.id = $1 and ${VISIBLE} returning m.id`,
      [id],
    );
    return rows.length > 0;
  }

  /** Delete up to `max` memories matching the filter (oldest first); returns the count. */
  async deleteMany(filter: FieldFilter, max: number): Promise<number> {
    const p = new Params();
    const where = `${fieldClause(filter, p)} and ${VISIBLE}`;
    const rows = await this.db.query<{ n: number }>(
      `with d as (
         delete from memories where id in (
           select m.id from memories m where ${where}
            order by m.created_at, m.id limit ${p.add(max)})
         returning 1)
       select count(*)::int as n from d`,
      p.values,
    );
    return rows[0]?.n ?? 0;
  }

  /** The `k` nearest current, not superseded memories by cosine distance. */
  async nearest(
    vector: number[],
    scope: ScopeFilter,
    k: number,
    now: Date,
    excludeId?: string,
  ): Promise<Scored[]> {
    const rows = await this.#indexed<Row>(
      ...nearestStatement(vector, scope, k, now, await this.#exact(scope), excludeId),
    );
    return rows.map((r) => ({ memory: toMemory(r), similarity: Number(r.similarity) }));
  }

  /**
   * Search candidates, hybrid: the `k` nearest by cosine distance and the `k` best by BM25
   * over the postings (any query term may match), each with its exact cosine similarity and
   * its lexical relevance. Expired and superseded memories are left out.
   *
   * Lexical relevance is BM25 (k1 = 0.9, b = 0.4, idf = ln(1 + (N − df + 0.5)/(df + 0.5)))
   * with N, df and the average length counted over the stored memories this search's scope
   * covers (cached for {@link STATS_TTL_MS}; only the {@link POSTINGS_PER_TERM} postings of
   * highest impact per term are scored),
   * divided by the sum of the idf of the distinct query terms (what a memory of average
   * length containing each query term once would score), capped at 1: the idf-weighted
   * share of the query that the memory contains. A term no visible memory has still counts
   * in that sum.
   *
   * Each query term comes as a group: the term and its other forms (`variantsOf`), which
   * match in its place. Every form of a group weighs the group's idf, that of its most
   * common form, and the group counts once in the normalisation; a memory that holds two
   * forms of one group counts both (rare, and the relevance is capped at 1).
   */
  async candidates(
    vector: number[],
    queryTerms: readonly (string | readonly string[])[],
    scope: ScopeFilter,
    k: number,
    now: Date,
    sides: { vector: boolean; lexical: boolean } = { vector: true, lexical: true },
  ): Promise<Candidate[]> {
    const groups = queryTerms.map((g) => typeof g === "string" ? [g] : [...g]);
    const terms = [...new Set(groups.flat())];
    if (!sides.lexical || !terms.length) {
      const near = sides.vector ? await this.nearest(vector, scope, k, now) : [];
      return near.map((x) => ({ ...x, lexical: 0 }));
    }
    const stats = await this.#corpusStats(scope, terms);
    // Per query term, its BM25 weight idf × (k1 + 1), and the normalisation (Σ idf): both
    // computed here from the cached statistics, so that the statement only sums postings.
    const idfOf = (x: string) => {
      const df = stats.df.get(x) ?? 0;
      return Math.log(1 + (stats.n - df + 0.5) / (df + 0.5));
    };
    const weightOf = new Map<string, number>();
    let total = 0;
    const counted = new Set<string>();
    for (const g of groups) {
      const key = g[0];
      const idf = Math.min(...g.map(idfOf));
      for (const t of g) if (!weightOf.has(t)) weightOf.set(t, idf);
      if (!counted.has(key)) {
        counted.add(key);
        total += idf;
      }
    }
    const idf = terms.map((t) => weightOf.get(t)!);
    total = Math.max(total, 1e-9);
    // The statement is the function mneme_search_scoped (migrations/0015_search_exact.sql;
    // 0008_search_function.sql describes it), so that its plan is made once per connection.
    // The nearest neighbours of a scope of at most EXACT_SCOPE_MAX memories (counted in the
    // statistics just read) are read exactly: its rows through the btree, every distance
    // computed. Otherwise they come from an HNSW index: over global memories on server
    // Postgres the partial index of memories that are not project-scoped, otherwise the index
    // of all with the scope filter, which walks the graph until enough rows pass. Postings carry the memory's project (null: global), so the scope applies to
    // them directly: per term and project value (global: null, on an index of its own) one
    // index range read in order of impact, of which only the POSTINGS_PER_TERM first are
    // scored, so a search reads a bounded number of postings however common its words are.
    // Expired and superseded memories are filtered when the best lexical matches are picked
    // (from the 4 × k best, so that a few of them cannot crowd the rest out).
    const rows = await this.db.query<Row & { similarity: number; lexical: number }>(
      // Every parameter cast: a prepared statement keeps the types it was prepared with, and
      // these are the function's own whatever a later version infers.
      `select * from mneme_search_scoped($1::text::vector, $2::boolean, $3::text[],
                                         $4::float8[], $5::float8, $6::float8, $7::float8,
                                         $8::float8, $9::int, $10::int, $11::timestamptz,
                                         $12::boolean, $13::boolean, $14::text, $15::boolean)`,
      [
        vectorLiteral(vector),
        sides.vector,
        terms,
        idf.map((x) => x * (BM25_K1 + 1)),
        BM25_K1,
        BM25_B,
        stats.avgdl,
        total,
        k,
        POSTINGS_PER_TERM,
        now,
        scope.kind === "all",
        scope.kind === "global" || scope.kind === "hierarchy",
        scope.kind === "project" || scope.kind === "hierarchy" ? scope.project : null,
        exactScope(scope, this.#sizes!.n),
      ],
      // A function call: its plan is a function scan whatever the values, so it stays
      // prepared on each connection (one round trip a search on server Postgres).
      { prepare: true },
    );
    return rows.map((r) => ({
      memory: toMemory(r),
      similarity: Number(r.similarity),
      lexical: Number(r.lexical),
    }));
  }

  /** Memories whose postings are not built yet (stored before version 2), up to `limit`. */
  async termsPending(limit: number): Promise<{ id: string; content: string }[]> {
    return await this.db.query<{ id: string; content: string }>(
      `select id, content from memories where term_count is null order by id limit $1`,
      [limit],
    );
  }

  /**
   * (Re)build the postings of memories, each only while it still has the content given
   * (a memory updated meanwhile got its postings from the update).
   */
  async storeTerms(items: { id: string; content: string }[]): Promise<void> {
    if (!items.length) return;
    const posts = items.map((i) => ({ id: i.id, c: i.content, ...postingsOf(i.content) }));
    const payload = JSON.stringify(posts);
    await this.transaction(async (s) => {
      const ids = await s.db.query<{ id: string }>(
        `update memories m set term_count = x.len
           from jsonb_to_recordset($1::text::jsonb) as x(id uuid, c text, len int)
          where m.id = x.id and m.content = x.c returning m.id`,
        [payload],
      );
      if (!ids.length) return;
      await s.#writePostings(posts, ids.map((r) => r.id));
    });
  }

  /**
   * Replace the postings of the memories `keep` (of `posts`) with those of `posts`, adding
   * the keys they lack first.
   */
  async #writePostings(
    posts: { id: string; c: string; terms: Record<string, number>; len: number }[],
    keep: string[],
  ): Promise<void> {
    const payload = JSON.stringify(posts);
    const projects = await this.db.query<{ id: string; project: string | null }>(
      "select id, project from memories where id = any($1::uuid[])",
      [keep],
    );
    const projectOf = new Map(projects.map((r) => [r.id, r.project]));
    await this.#ensureKeys(
      posts.filter((i) => projectOf.has(i.id)).map((i) => ({
        terms: Object.keys(i.terms),
        project: projectOf.get(i.id)!,
      })),
    );
    // A memory stored before version 14 without postings has its number already (the
    // migration numbered every memory); one stored since has it from its insert.
    await this.db.query(
      `delete from memory_postings
          where num = any(array(select num from memory_nums where id = any($1::uuid[])))`,
      [keep],
    );
    await this.db.query(
      `insert into memory_postings (key, num, tf, len)
         select k.id, n.num, t.value::smallint, least(x.len, 32767)::smallint
           from jsonb_to_recordset($1::text::jsonb) as x(id uuid, terms jsonb, len int)
           join memories m on m.id = x.id,
                lateral (select n.num from memory_nums n where n.id = m.id limit 1) n,
                jsonb_each_text(x.terms) as t,
                lateral (select k.id from memory_term_keys k
                          where k.term = t.key and coalesce(k.project, '') = coalesce(m.project, '')
                          limit 1) k
          where x.id = any($2::uuid[])`,
      [payload, keep],
    );
  }

  /** Counts of current memories by scope, project and type. */
  async stats(now: Date): Promise<StatsRow[]> {
    const p = new Params();
    return (await this.db.query<StatsRow>(
      `select m.scope, m.project, m.type, count(*)::int as count from memories m
        where ${liveClause(now, p)} and ${VISIBLE} group by m.scope, m.project, m.type`,
      p.values,
    )).map((r) => ({ ...r, count: Number(r.count) }));
  }

  /** Up to `max` current memories, oldest first (a stable order for files). */
  async exportAll(max: number, now: Date, offset = 0): Promise<Memory[]> {
    const p = new Params();
    const rows = await this.db.query<Row>(
      `select ${COLUMNS} from memories m where ${liveClause(now, p)} and ${VISIBLE}
        order by m.created_at, m.id limit ${p.add(max)} offset ${p.add(offset)}`,
      p.values,
    );
    return rows.map(toMemory);
  }

  /** Number of current memories. */
  async countLive(now: Date): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `select count(*)::int as n from memories m
        where (m.expires_at is null or m.expires_at > $1) and ${VISIBLE}`,
      [now],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Delete expired memories, once across processes: the transaction-scoped
   * `pg_try_advisory_xact_lock` lets only one process of many do it at a time.
   * Returns the number deleted, or null when another process holds the lock.
   */
  async deleteExpired(now: Date): Promise<number | null> {
    return await this.db.transaction(async (tx) => {
      const [got] = await tx.query<{ ok: boolean }>(
        "select pg_try_advisory_xact_lock($1) as ok",
        [CLEANUP_LOCK],
      );
      if (!got?.ok) return null;
      const rows = await tx.query<{ n: number }>(
        `with d as (delete from memories m where expires_at is not null and expires_at <= $1
                      and ${VISIBLE} returning 1) select count(*)::int as n from d`,
        [now],
      );
      // The hourly turn of the corpus statistics' compaction (one process of many, too).
      await tx.query("select mneme_compact_stats()");
      return Number(rows[0]?.n ?? 0);
    });
  }

  /**
   * The embedder recorded in the meta row (it made the stored vectors), or null on a fresh
   * database. With `share`, the row stays share-locked for the rest of the transaction (a
   * re-embedding run cannot finish meanwhile).
   */
  recordedEmbedder(share = false): Promise<EmbedderInfo | null> {
    return recordedEmbedder(this.db, share);
  }

  /** Rows in `memories` (staged ones included). */
  async countRows(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>("select count(*)::int as n from memories");
    return Number(row?.n ?? 0);
  }

  /**
   * Drop the HNSW index of the stored vectors, for a bulk import on the embedded database:
   * its rows then go in without one insertion into the graph each, and the index is built
   * once at its end ({@link buildSearchIndex}). Searches meanwhile compare every vector.
   */
  async dropSearchIndex(): Promise<void> {
    await dropVectorIndexes(this.db, "embedding");
  }

  /**
   * Build the HNSW index of the stored vectors when it is missing (the end of a bulk import;
   * one killed before its end leaves none, and the next start builds it). With the working
   * memory of one build raised to 64 MB, so that the graph of tens of thousands of vectors
   * is built in memory (pgvector builds on disk, much slower, past it).
   */
  async buildSearchIndex(): Promise<void> {
    await this.transaction(async (s) => {
      await s.db.exec("set local maintenance_work_mem = '64MB'");
      // The build logs each page of the index whole: pglz spent a fifth of the build
      // compressing floats that hardly compress (docs/performance.md, "Import speed at 20,000
      // (0.12)"). The log goes at the checkpoint after the import. A superuser's setting:
      // the embedded database only, the one this bulk path runs on.
      if (s.db.kind === "pglite") await s.db.exec("set local wal_compression = off");
      await createMissingVectorIndexes(s.db);
    });
  }

  /**
   * Rewrite `memories` (`VACUUM FULL`) on the embedded database, after a re-embedding run at
   * start: the swapped-out vectors stay in the table's files as a dropped column until the
   * table is rewritten (80 MB of 768-dimension vectors at 20k memories). Every index of the
   * table is rebuilt once; the database is held meanwhile (seconds at 20k), so only the start-up
   * upgrade, which runs before the daemon serves, does this. Nothing on server Postgres.
   */
  async rewriteMemories(): Promise<void> {
    if (this.db.kind !== "pglite") return;
    await this.db.exec("set maintenance_work_mem = '64MB'");
    try {
      await this.db.exec("vacuum full memories");
    } finally {
      await this.db.exec("reset maintenance_work_mem");
    }
    await this.settle();
  }

  /** True when no memory is stored (the recorded embedder made no vectors yet). */
  async isEmpty(): Promise<boolean> {
    const [row] = await this.db.query<{ n: number }>("select count(*)::int as n from memories");
    return Number(row?.n ?? 0) === 0;
  }

  /**
   * Record another embedder on a database without memories: set the column dimension and
   * the meta row, under the migration lock, and only while the table is still empty (a
   * re-embedding run left behind is dropped: it has no rows). Returns false when memories
   * appeared meanwhile (nothing changed).
   */
  async rerecordEmpty(info: EmbedderInfo): Promise<boolean> {
    return await this.transaction(async (s) => {
      await s.db.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      if (!await s.isEmpty()) return false;
      await s.db.exec("alter table memories drop column if exists embedding_next");
      await setVectorColumn(s.db, "embedding", info.dimension);
      await s.#recordEmbedder(info);
      return true;
    });
  }

  /** Record `info` as the embedder of the stored vectors and end any re-embedding run. */
  async #recordEmbedder(info: EmbedderInfo): Promise<void> {
    await this.db.query(
      `update mneme_meta set embedder_provider = $1, embedder_model = $2,
              embedder_dimension = $3, reembed_provider = null, reembed_model = null,
              reembed_dimension = null where id = 1`,
      [info.provider, info.model, info.dimension],
    );
  }

  /**
   * Live and dead rows of the service's tables, from the statistics views (counted since
   * the last clean start: a crash resets them).
   */
  async deadRows(): Promise<DeadRows[]> {
    const rows = await this.db.query<{ table: string; live: number; dead: number }>(
      `select relname::text as table, n_live_tup::float8 as live, n_dead_tup::float8 as dead
         from pg_stat_user_tables
        where schemaname = current_schema() and relname = any($1::text[])
        order by relname`,
      [VACUUMED_TABLES],
      { background: true },
    );
    return rows.map((r) => ({ table: r.table, live: Number(r.live), dead: Number(r.dead) }));
  }

  /**
   * Plain `VACUUM (ANALYZE)` of `tables` (of {@link VACUUMED_TABLES}), one statement each, so
   * that other statements run in between: no exclusive lock but the short one that returns
   * empty trailing pages to the file system. The corpus statistics' deltas are folded first,
   * and a small table left bloated is then compacted (see {@link COMPACT_FACTOR}). Records the
   * run in `mneme_maintenance`.
   */
  async vacuum(
    tables: readonly string[] = VACUUMED_TABLES,
    compact: { factor?: number; slackBytes?: number; maxBytes?: number } = {},
  ): Promise<VacuumRun> {
    const factor = compact.factor ?? COMPACT_FACTOR;
    const slack = compact.slackBytes ?? COMPACT_SLACK_BYTES;
    const max = compact.maxBytes ?? COMPACT_MAX_BYTES;
    const names = VACUUMED_TABLES.filter((t) => tables.includes(t));
    // The corpus statistics' deltas (appended by every write) folded first: otherwise they
    // pile up as live rows until the hourly fold (132,000 rows after 10,000 writes).
    if (names.includes("memory_term_df") || names.includes("memory_corpus")) {
      await this.compactStats();
    }
    const before = await this.deadRows();
    const dead = before.filter((r) => names.includes(r.table)).reduce((n, r) => n + r.dead, 0);
    const t0 = performance.now();
    const compacted: string[] = [];
    for (const t of names) {
      await this.db.exec(`vacuum (analyze) ${t}`);
      // `t` is one of VACUUMED_TABLES (a fixed list), never input.
      const [size] = await this.db.query<{ heap: number; total: number; live: number }>(
        `select pg_relation_size('${t}')::float8 as heap,
                pg_total_relation_size('${t}')::float8 as total,
                (select coalesce(sum(pg_column_size(x.*)), 0)::float8 from ${t} x) as live`,
      );
      const heap = Number(size.heap);
      if (
        heap > factor * Number(size.live) + slack && Number(size.total) <= max
      ) {
        await this.db.exec(`vacuum (full, analyze) ${t}`);
        compacted.push(t);
      }
    }
    // The postings' indexes, unless VACUUM FULL just rebuilt them; likewise the HNSW index.
    const reindexed = this.db.kind === "pglite" && names.includes("memory_postings") &&
        !compacted.includes("memory_postings")
      ? await this.#reindexBloated(slack, max)
      : [];
    if (
      this.db.kind === "pglite" && names.includes("memories") && !compacted.includes("memories")
    ) {
      reindexed.push(...await this.#reindexBloatedHnsw(slack, max));
    }
    // The log of the vacuum (it logs the pages it marks all-visible: 13 MiB after an import of
    // 20,000 memories) and of any rewrite shrinks back at a checkpoint (PGlite runs none by
    // itself).
    await this.settle();
    const run: VacuumRun = {
      at: new Date().toISOString(),
      took_ms: Math.round(performance.now() - t0),
      dead_rows: dead,
      tables: names,
      ...(compacted.length ? { compacted } : {}),
      ...(reindexed.length ? { reindexed } : {}),
    };
    await this.db.query(
      `insert into mneme_maintenance (task, at, took_ms, dead_rows, tables)
       values ('vacuum', $1, $2, $3, $4)
       on conflict (task) do update set at = excluded.at, took_ms = excluded.took_ms,
         dead_rows = excluded.dead_rows, tables = excluded.tables`,
      [run.at, run.took_ms, run.dead_rows, names.join(",")],
    );
    return run;
  }

  /**
   * Rebuild the postings indexes of {@link REINDEXED} that are bloated (see
   * {@link REINDEX_FACTOR}) and at most `max` bytes; returns
   * the indexes rebuilt. The size a build would give an index: the sum of its entries (the
   * row's columns in the index's order, laid out as in the table, behind an index tuple's
   * header of 8 bytes, 16 with a null; aligned to 8; a line pointer of 4 each) over pages of
   * 8,168 bytes filled to 90%.
   */
  async #reindexBloated(slack: number, max: number): Promise<string[]> {
    // Every entry of memory_postings_lookup is 8 + 4 + 4 + 4 + 2 + 2 = 24 bytes (key, impact,
    // num, tf, len: no nulls, no padding), 28 with its line pointer.
    const [est] = await this.db.query<{ lookup: number }>(
      `select (count(*) * 28)::float8 as lookup from memory_postings`,
    );
    const built: Record<string, number> = {
      memory_postings_lookup: Number(est.lookup) / (8168 * 0.9) * 8192,
    };
    const rows = await this.db.query<{ name: string; bytes: number }>(
      `select c.relname as name, pg_relation_size(c.oid)::float8 as bytes from pg_class c
        where c.relname = any($1::text[]) and c.relnamespace = current_schema()::regnamespace`,
      [REINDEXED],
    );
    const bloated = rows.filter((r) =>
      Number(r.bytes) > REINDEX_FACTOR * built[r.name] + slack && Number(r.bytes) <= max
    ).map((r) => r.name).sort();
    if (!bloated.length) return [];
    // The names come from REINDEXED (a fixed list), never input. The build sorts in 4 MiB and
    // spills the rest to temporary files: PGlite's WASM memory never shrinks, and with the
    // 32 MiB of maintenance_work_mem the daemon kept 20-39 MiB more after a rebuild at 20,000
    // memories (2-12 MiB with 4 MiB), the build as fast.
    // memory_postings_num needs no rebuild: memory numbers only grow, so its entries are
    // appended at its end (the index by uuid of 0.9.0 was rebuilt with the lookup index).
    for (const name of bloated) {
      await this.db.transaction(async (tx) => {
        await tx.exec(`set local maintenance_work_mem = '${REINDEX_WORK_MEM}'`);
        await tx.exec(`reindex index ${name}`);
      });
    }
    return bloated;
  }

  /**
   * Rebuild the HNSW index of `memories` when churn left it bloated, and it is at most `max`
   * bytes; returns its name if rebuilt. pgvector's vacuum marks the nodes of deleted rows and
   * repairs the graph around them but gives no page back, and the table's own compaction rule
   * (its heap against its live rows) does not look at its indexes: in `deno task soak` the
   * index stayed at 2.1 times its fresh size. A build puts floor(8160 / (4 × dim + 210)) nodes
   * on a page (a node: the element with its vector and heap pointers, and its ground-level
   * neighbours, m = 8; 4 at 384 dimensions, 6 at 256, 8 at 192, as measured); the index is
   * rebuilt when it is over {@link HNSW_REINDEX_FACTOR} times that plus `slack`. Its entries
   * are counted by the vacuum just before (the index's `reltuples`).
   */
  async #reindexBloatedHnsw(slack: number, max: number): Promise<string[]> {
    const [r] = await this.db.query<{ bytes: number; rows: number; dim: number }>(
      `select pg_relation_size(c.oid)::float8 as bytes, c.reltuples::float8 as rows,
              a.atttypmod as dim
         from pg_class c join pg_index i on i.indexrelid = c.oid
         join pg_attribute a on a.attrelid = i.indrelid and a.attname = 'embedding'
        where c.relname = 'memories_embedding_hnsw'
          and c.relnamespace = current_schema()::regnamespace`,
    );
    const [bytes, rows, dim] = [Number(r?.bytes), Number(r?.rows), Number(r?.dim)];
    // Not counted yet (-1), or a column without a dimension: nothing to compare with.
    if (!r || !(rows >= 0) || !(dim > 0)) return [];
    const perPage = Math.max(1, Math.floor(8160 / (4 * dim + 210)));
    const built = (Math.ceil(rows / perPage) + 1) * 8192;
    if (!(bytes > HNSW_REINDEX_FACTOR * built + slack && bytes <= max)) return [];
    await this.db.exec("reindex index memories_embedding_hnsw");
    return ["memories_embedding_hnsw"];
  }

  /** The last vacuum recorded by {@link vacuum}, or null. */
  async lastVacuum(): Promise<VacuumRun | null> {
    const [row] = await this.db.query<
      { at: Date | string; took_ms: number; dead_rows: number; tables: string }
    >(
      "select at, took_ms, dead_rows::float8 as dead_rows, tables from mneme_maintenance where task = 'vacuum'",
      [],
      { background: true },
    );
    if (!row) return null;
    return {
      at: new Date(row.at).toISOString(),
      took_ms: Number(row.took_ms),
      dead_rows: Number(row.dead_rows),
      tables: row.tables.split(",").filter(Boolean),
    };
  }

  /** Size of the database on disk, in bytes. */
  async databaseSize(): Promise<number> {
    const [row] = await this.db.query<{ size: number }>(
      "select pg_database_size(current_database())::float8 as size",
      [],
      { background: true },
    );
    return Number(row.size);
  }

  /** Close the driver underneath. */
  close(): Promise<void> {
    return this.db.close();
  }

  /** The re-embedding run in progress (embedder recorded in the meta row), or null. */
  async reembedTarget(): Promise<EmbedderInfo | null> {
    const [row] = await this.db.query<
      { provider: string | null; model: string | null; dimension: number | null }
    >(
      `select reembed_provider as provider, reembed_model as model,
              reembed_dimension as dimension from mneme_meta where id = 1`,
    );
    if (!row?.provider || !row.model || !row.dimension) return null;
    return { provider: row.provider, model: row.model, dimension: row.dimension };
  }

  /** Start a re-embedding run: a fresh `embedding_next vector(dim)` column with its index. */
  async beginReembed(target: EmbedderInfo): Promise<void> {
    await this.transaction(async (s) => {
      await s.#lockReembedRun("update");
      await s.db.exec("alter table memories drop column if exists embedding_next");
      await addVectorColumn(s.db, "embedding_next", target.dimension);
      await s.db.query(
        `update mneme_meta set reembed_provider = $1, reembed_model = $2, reembed_dimension = $3
          where id = 1`,
        [target.provider, target.model, target.dimension],
      );
    });
  }

  /**
   * True when the stored vectors are 4-byte `vector`s where new columns are `halfvec`
   * ({@link vectorType}: server Postgres), and no
   * re-embedding run to another embedder is in progress (one that finishes makes a halfvec
   * column anyway); a conversion run in progress (of the recorded embedder) counts.
   */
  async vectorsToConvert(): Promise<boolean> {
    if (await vectorType(this.db) !== "halfvec") return false;
    if (await columnType(this.db) !== "vector") return false;
    const run = await this.reembedTarget();
    if (run === null) return true;
    const recorded = await this.recordedEmbedder();
    return recorded !== null && sameEmbedder(run, recorded);
  }

  /**
   * A step of a run of the stored embedder itself (a conversion to halfvec): up to `limit`
   * memories get their stored vector, converted, as their new one; no embedding needed.
   */
  async reembedConvert(limit: number): Promise<number> {
    const rows = await this.db.query<{ id: string }>(
      `update memories m set embedding_next = m.embedding
        where m.id in (select id from memories where embedding_next is null
                          and embedding is not null order by id limit $1)
        returning m.id`,
      [limit],
    );
    return rows.length;
  }

  /** Memories not yet re-embedded in this run (up to `limit`), and the run's size. */
  async reembedPending(limit: number): Promise<{
    rows: { id: string; content: string }[];
    done: number;
    total: number;
  }> {
    const rows = await this.db.query<{ id: string; content: string }>(
      `select id, content from memories where embedding_next is null order by id limit $1`,
      [limit],
    );
    const [c] = await this.db.query<{ done: number; total: number }>(
      `select count(embedding_next)::int as done, count(*)::int as total from memories`,
    );
    return { rows, done: Number(c?.done ?? 0), total: Number(c?.total ?? 0) };
  }

  /**
   * Store new vectors of a run, each only while the memory still has the content it was
   * embedded from (a memory updated meanwhile stays pending).
   */
  async reembedStore(items: { id: string; content: string; embedding: number[] }[]): Promise<void> {
    if (!items.length) return;
    await this.db.query(
      `update memories m set embedding_next = x.e::vector
         from jsonb_to_recordset($1::text::jsonb) as x(id uuid, c text, e text)
        where m.id = x.id and m.content = x.c`,
      [JSON.stringify(
        items.map((i) => ({ id: i.id, c: i.content, e: vectorLiteral(i.embedding) })),
      )],
    );
  }

  /**
   * Swap the new column in, rename its index and record the new embedder, provided that
   * every memory has its new vector. The final pass: memories written since the last step
   * (at most `max` of them) get theirs from `embed` here, under the lock, so that steady
   * writes cannot keep the run from finishing; returns false (changing nothing) when more
   * than `max` lack one. With `convert` (a run of the stored embedder itself, to halfvec),
   * the rest are converted from the stored vectors, however many. Writes wait while this runs.
   */
  async finishReembed(
    target: EmbedderInfo,
    embed?: ((texts: string[]) => Promise<number[][]>) | "convert",
    max = 0,
  ): Promise<boolean> {
    const done = await this.transaction(async (s) => {
      await s.#lockReembedRun("update");
      await s.db.exec("lock table memories in exclusive mode");
      if (embed === "convert") {
        // A conversion: the rest of the memories converted here, however many.
        await s.db.exec(
          "update memories set embedding_next = embedding where embedding_next is null",
        );
      }
      const pending = embed === "convert" ? [] : await s.db.query<{ id: string; content: string }>(
        "select id, content from memories where embedding_next is null order by id limit $1",
        [max + 1],
      );
      if (pending.length > max || (pending.length && !embed)) return false;
      if (pending.length && typeof embed === "function") {
        const vectors = await embed(pending.map((r) => r.content));
        await s.reembedStore(
          pending.map((r, i) => ({ id: r.id, content: r.content, embedding: vectors[i] })),
        );
      }
      await s.db.exec("alter table memories drop column embedding");
      await s.db.exec("alter table memories rename column embedding_next to embedding");
      await renameNextIndexes(s.db);
      await s.#recordEmbedder(target);
      return true;
    });
    if (done) await this.analyze();
    return done;
  }

  /**
   * Refresh planner statistics (after bulk loads, so searches keep using the index) and
   * vacuum the postings, so that searches read them with index-only scans; on the embedded
   * database, rebuild the postings' indexes the load left bloated (`compact`: as
   * {@link vacuum}'s).
   */
  async analyze(compact: { slackBytes?: number; maxBytes?: number } = {}): Promise<void> {
    await this.compactStats();
    await this.db.exec("analyze memories");
    await this.db.exec("vacuum analyze memory_nums, memory_postings, memory_term_keys");
    // On the embedded database the postings' indexes an import left bloated are rebuilt here,
    // within the import's request, rather than by the vacuum that follows it, where the
    // rebuild held up the next requests of other clients for seconds.
    if (this.db.kind === "pglite") {
      await this.#reindexBloated(
        compact.slackBytes ?? COMPACT_SLACK_BYTES,
        compact.maxBytes ?? COMPACT_MAX_BYTES,
      );
    }
    await this.db.exec("vacuum analyze memory_term_df, memory_corpus");
    await this.settle();
  }

  /**
   * On the embedded database, a checkpoint: it writes the changed pages to their files and
   * lets the write-ahead log shrink to its minimum (PGlite runs Postgres in single-user mode,
   * where no checkpoint runs on a timer). Done at start and after bulk writes (imports,
   * re-embedding). Server Postgres checkpoints by itself: nothing there.
   */
  async settle(): Promise<void> {
    if (this.db.kind !== "pglite") return;
    await this.db.exec("checkpoint");
    // The checkpoint's redo point is in the current segment, which stays however little of it
    // the log still needs: a switch to a new segment (created sparse, wal_init_zero off) and a
    // second checkpoint (nothing left to write) let the old one go (wal_recycle off). Spare
    // segments made ahead, full of zeros (by versions before 0.9, with wal_recycle on), are
    // switched through until the current one is new, so an older database sheds them at once.
    const ahead = async () =>
      (await this.db.query<{ name: string }>(
        `select name from pg_ls_waldir()
          where name ~ '^[0-9A-F]{24}$' and name > pg_walfile_name(pg_current_wal_lsn())`,
      )).map((r) => r.name);
    for (let i = 0; i < 8; i++) {
      const spares = await ahead();
      await this.db.exec("select pg_switch_wal(); checkpoint");
      const [row] = await this.db.query<{ name: string }>(
        "select pg_walfile_name(pg_current_wal_lsn()) as name",
      );
      if (!spares.includes(row.name)) break;
    }
  }

  /**
   * Fold the corpus statistics' deltas into one row per key (after imports and in the hourly
   * cleanup), so that reading them stays a sum of a few rows. Exact whatever runs meanwhile.
   */
  async compactStats(): Promise<void> {
    await this.db.query("select mneme_compact_stats()");
  }
}
