/**
 * SQL helpers and row mapping shared by every concern of the store: the types of rows and
 * filters, bind parameters ({@link Params}), the scope, field and visibility conditions, the
 * mapping of a row to a {@link Memory}, and the two forms a vector travels in (text, or binary
 * `real[]` where the backend takes it: `DbCapabilities.binaryVectors` in db.ts). Each module of
 * the store builds its statements from these, so that a condition is written once.
 * @module
 */
import type { Memory, MemoryType, Scope } from "../domain/memory.ts";
import { termCounts } from "../domain/terms.ts";
import type { Db } from "./db.ts";

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
  /**
   * Its dense vector (the builtin embedder's dense leg, migrations/0016_dense.sql), or null:
   * no known word, or a model's embedder, whose own vector is the dense leg.
   */
  dense?: ArrayLike<number> | null;
  /** Set (to `id`) for a memory imported as superseded: superseded, with no link kept. */
  supersededBy?: string | null;
  /**
   * Set for a memory imported with its expansion cleared (an export's `expansion_cleared_at`,
   * migrations/0022): the worker does not expand it until it is redone.
   */
  expansionClearedAt?: Date | null;
}

/**
 * The CTE that follows a delete's `d` (the ids deleted): a memory that one of them superseded
 * stays superseded, by itself (the link's foreign key would set it to null, making the
 * replaced memory current again). The user replaced it; deleting the replacement does not
 * undo that. Its own statement's rows are left to the delete.
 */
export const KEEP_SUPERSEDED = `kept as (
         update memories o set superseded_by = o.id
          where o.superseded_by in (select id from d) and o.id not in (select id from d))`;

/** A memory with its cosine similarity to a query vector. */
export interface Scored {
  memory: Memory;
  similarity: number;
}

/** A search candidate: cosine similarity and lexical relevance (normalised BM25, 0..1). */
export interface Candidate extends Scored {
  lexical: number;
  /**
   * The text the ranking and the confidence read when it is not the content: the content and
   * the memory's expansion ({@link indexedText}); absent for a memory without one.
   */
  text?: string;
}

/**
 * The lexical side of a search as the store runs it, its weights ready-made by the ranking
 * (src/memory/ranking.ts): the distinct query terms (every form of each), the BM25 weight of
 * each (idf × (k1 + 1)), k1, b, the scope's average memory length and the normalisation.
 */
export interface LexicalQuery {
  terms: string[];
  weights: number[];
  k1: number;
  b: number;
  avgdl: number;
  total: number;
}

/**
 * The text a memory is indexed by (its postings, embedding and dense vector), in SQL over
 * `memories m`: its content, and its expansion when it has one (migrations/0019_expansion.sql).
 */
export const INDEXED_TEXT = "(m.content || coalesce(E'\\n' || m.expansion, ''))";

/** The text a memory is indexed by, in TypeScript ({@link INDEXED_TEXT}). */
export function indexedText(content: string, expansion: string | null | undefined): string {
  return expansion ? `${content}\n${expansion}` : content;
}

/** Postings of a text as JSON-ready `{term: tf}` and its length in terms. */
export function postingsOf(content: string): { terms: Record<string, number>; len: number } {
  const counts = termCounts(content);
  let len = 0;
  for (const n of counts.values()) len += n;
  return { terms: Object.fromEntries(counts), len };
}

export interface Row {
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

export const COLUMNS = `m.id, m.content, m.scope, m.project, m.type, m.tags, m.weight,
  m.created_at, m.updated_at, m.expires_at, m.supersedes, m.superseded_by`;

const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();

export function toMemory(r: Row): Memory {
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
export function vectorLiteral(v: ArrayLike<number>): string {
  // Six decimals keep cosine similarities exact to about 1e-6 and halve the text size.
  return `[${Array.from(v, (x) => Math.round(x * 1e6) / 1e6).join(",")}]`;
}

/**
 * `v` as a vector bind parameter in `p`: its text ({@link vectorLiteral}, `$n::vector`), or with
 * `binary` (the embedded database: `DbCapabilities.binaryVectors`) a `real[]` in Postgres's
 * binary format ({@link float4ArrayBinary}), neither formatted as text here nor parsed there (a
 * 768-float literal is about 6 KB). The binary one is cast once, in a scalar subquery: the cast
 * of a parameter is not folded in a generic plan, and an exact read orders every row of its
 * scope by the distance to it.
 */
export function vectorParam(p: Params, v: ArrayLike<number>, binary: boolean): string {
  return binary
    ? `(select ${p.add(float4ArrayBinary([Array.from(v)], v.length))}::real[]::vector)`
    : `${p.add(vectorLiteral(v))}::vector`;
}

/** Collects bind parameters and returns their `$n` placeholders. */
export class Params {
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
export function scopeClause(f: ScopeFilter, p: Params, exact = false): string {
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
export function scopeValues(scope: ScopeFilter): (string | null)[] | null {
  return scope.kind === "all"
    ? null
    : scope.kind === "global"
    ? [null]
    : scope.kind === "project"
    ? [scope.project]
    : [null, scope.project];
}

export function fieldClause(f: FieldFilter, p: Params): string {
  const parts = ["true"];
  if (f.scope) parts.push(`m.scope = ${p.add(f.scope)}`);
  if (f.project !== undefined) parts.push(`m.project = ${p.add(f.project)}`);
  if (f.type) parts.push(`m.type = ${p.add(f.type)}`);
  return parts.join(" and ");
}

export function liveClause(now: Date, p: Params): string {
  return `(m.expires_at is null or m.expires_at > ${p.add(now)})`;
}

// A plain column filter (not an anti-join), so nearest-neighbour queries stay on the index.
export const NOT_SUPERSEDED = "m.superseded_by is null";

/**
 * Rows every read may see: not staged by an import still in progress. An import commits its
 * rows in chunks tagged with its job id and publishes them all at once by deleting its job
 * row (see `ImportJobs.beginImport` in imports.ts). The job list is an init plan evaluated once per
 * statement (usually empty), leaving a plain filter per row: nearest-neighbour queries stay
 * on the HNSW index. Every read and every write by id or filter goes through this.
 */
export const VISIBLE =
  "(m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))";

/** Totals as rows of (scope, project, type, count). */
export interface StatsRow {
  scope: Scope;
  project: string | null;
  type: MemoryType;
  /** Whether these memories are superseded (replaced by a newer one). */
  superseded: boolean;
  count: number;
}

/** The postings of each row of an insert ({@link postingsOf}). */
export type Postings = ReturnType<typeof postingsOf>;

/** A row as the JSON of {@link INSERT_ROWS} and {@link STAGE_ROWS} reads it. */
export function rowJson(r: NewRow) {
  return { ...rowFields(r), embedding: vectorLiteral(r.embedding) };
}

/**
 * A row's fields but its vector, as {@link STAGE_ROWS_BINARY} reads them; without `withDense`,
 * without its dense vector either ({@link rowsPayloadDense}).
 */
export function rowFields(r: NewRow, withDense = true) {
  return {
    id: r.id,
    content: r.content,
    scope: r.scope,
    project: r.project,
    type: r.type,
    tags: r.tags,
    weight: r.weight,
    supersedes: r.supersedes,
    // An imported superseded memory: superseded by itself, as no link is kept.
    superseded_by: r.supersededBy ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
    expansion_cleared_at: r.expansionClearedAt?.toISOString() ?? null,
    dense: withDense && r.dense ? vectorLiteral(r.dense) : null,
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
export function float4ArrayBinary(
  vectors: readonly (ArrayLike<number> & Iterable<number>)[],
  dimension: number,
): Uint8Array {
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
export function rowsPayload(
  db: Db,
  rows: NewRow[],
  extra: (j: number) => object,
): { json: string; vectors: [Uint8Array, number] | null } {
  if (!db.capabilities.binaryVectors || !rows.length) {
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
 * {@link rowsPayload} with the dense vectors in binary too (an import's chunk on the embedded
 * database, {@link float4ArrayBinary}): each row's JSON says which of `dense`'s vectors is its
 * own (`dk`, null for none) rather than carrying it as text, which the database parsed at about
 * 0.1 ms a row of 100 floats (a fifth of a chunk's statement). Null on a server.
 */
export function rowsPayloadDense(
  db: Db,
  rows: NewRow[],
  extra: (j: number) => object,
): { json: string; vectors: [Uint8Array, number]; dense: [Uint8Array, number] } | null {
  if (!db.capabilities.binaryVectors || !rows.length) return null;
  const dimension = rows[0].embedding.length;
  const dense: (ArrayLike<number> & Iterable<number>)[] = [];
  const json = JSON.stringify(rows.map((r, j) => {
    const fields: Record<string, unknown> = { j, ...rowFields(r, false), ...extra(j) };
    if (r.dense) {
      fields.dk = dense.length;
      dense.push(Array.from(r.dense));
    }
    return fields;
  }));
  // An empty array stands for none: one float, never read.
  const denseDimension = dense.length ? dense[0].length : 1;
  return {
    json,
    vectors: [float4ArrayBinary(rows.map((r) => r.embedding), dimension), dimension],
    dense: [float4ArrayBinary(dense.length ? dense : [[0]], denseDimension), denseDimension],
  };
}
