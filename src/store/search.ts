/**
 * Search candidates: the nearest neighbours by cosine distance and the best lexical matches
 * (BM25 over the postings) of a query, through the SQL function `mneme_search_scoped`, and
 * the choice between reading a scope's nearest neighbours exactly (its rows through the btree)
 * or through the HNSW index ({@link exactScope}). The statistics come from the corpus cache
 * (corpus.ts).
 * @module
 */
import type { Db } from "./db.ts";
import type { CorpusCache } from "./corpus.ts";
import type { EmbedderInfo } from "../embed/embedder.ts";
import { CONTRADICTION_EF_SEARCH } from "./search_params.ts";
import {
  type Candidate,
  COLUMNS,
  type LexicalQuery,
  liveClause,
  NOT_SUPERSEDED,
  Params,
  type Row,
  scopeClause,
  type ScopeFilter,
  scopeValues,
  type Scored,
  toMemory,
  vectorLiteral,
  vectorParam,
  VISIBLE,
} from "./sql.ts";

/** Postings of highest impact scored per query term and project value. */
export const POSTINGS_PER_TERM = 100;
/**
 * Scopes of at most this many memories (superseded and expired ones included: the rows read),
 * and at most {@link EXACT_SCOPE_SHARE} of all, have their nearest neighbours read exactly:
 * every distance computed over the scope's rows, found by the btree on (scope, project),
 * rather than through the HNSW index of all memories with the scope as a filter, which walks
 * the graph until enough rows pass it. An exact read costs about 1 ms and 0.65 ms more per
 * 1,000 rows of the scope on the embedded database; the walk grows with the memories per row
 * of the scope (35 ms for 100 of 20,000, 3.6 ms for 2,000 of 20,000, 0.6 ms for 1,150 of
 * 2,000). Chosen by measurement (docs/history/performance-2026-11-25-to-28.md, "Searches of a small
 * scope (0.13)").
 */
export const EXACT_SCOPE_MAX = 2_000;

/** The largest share of all memories a scope read exactly may hold ({@link EXACT_SCOPE_MAX}). */
export const EXACT_SCOPE_SHARE = 0.2;
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

/**
 * The `k` nearest current, not superseded memories by cosine distance (with `similarity`):
 * its text and parameters. Run with sequential scans off ({@link nearest}). With
 * `exact`, the scope's rows come from the btree on (scope, project) and are ordered by their
 * distance plus 0, an expression no index serves (so the planner cannot take the HNSW index);
 * otherwise from the HNSW index with the scope as a filter.
 */
export function nearestStatement(
  vector: ArrayLike<number>,
  scope: ScopeFilter,
  k: number,
  now: Date,
  exact: boolean,
  excludeId?: string,
  column: "embedding" | "dense" = "embedding",
  binary = false,
): [string, unknown[]] {
  const p = new Params();
  const v = vectorParam(p, vector, binary);
  const where = scopeClause(scope, p, exact);
  const exclude = excludeId ? `and m.id <> ${p.add(excludeId)}` : "";
  const distance = `m.${column} <=> ${v}`;
  return [
    `select ${COLUMNS}, 1 - (${distance}) as similarity
       from memories m
      where ${where} and ${liveClause(now, p)} and ${NOT_SUPERSEDED}
        and ${VISIBLE} ${exclude} ${column === "dense" ? "and m.dense is not null" : ""}
      order by ${exact ? `(${distance}) + 0` : distance}
      limit ${p.add(k)}`,
    p.values,
  ];
}

/**
 * How many memories the contradiction check reads by their stored vectors, per memory it
 * keeps, once some memory has an expansion and its scope is too large to read exactly
 * ({@link nearestContentStatement}).
 */
export const CONTENT_OVERFETCH = 4;

/**
 * The `k` memories nearest to `vector` by their content, for the contradiction check once some
 * memory has an expansion: a memory with a content vector (`content_embedding`, kept beside the
 * embedding of its content and phrases: migrations/0021_content_embedding.sql) is compared on
 * it, any other on its embedding (`similarity` is that cosine). The candidates: the `k` nearest
 * by the stored embedding, and
 * - in a scope read exactly ({@link exactScope}: at most {@link EXACT_SCOPE_MAX} memories), the
 *   `k` nearest by their content vectors among its memories that have one, read exactly through
 *   the btree on (scope, project): content compared with content, whatever the phrases;
 * - in a larger scope (no index of the content vectors: an exact read of 20,000 expanded memories
 *   made a create 20 times slower, `tasks/expansion_create_probe.ts`), the
 *   `k × CONTENT_OVERFETCH` nearest by the stored embedding (the HNSW index), re-scored on their
 *   contents: expanded memories whose phrases come near the new memory no longer hide the one it
 *   contradicts unless they are more than that many.
 * A memory expanded without a content vector yet (before the start-up backfill) is scored by its
 * stored embedding here: the service embeds its content itself.
 */
export function nearestContentStatement(
  vector: ArrayLike<number>,
  scope: ScopeFilter,
  k: number,
  now: Date,
  exact: boolean,
  excludeId?: string,
  binary = false,
): [string, unknown[]] {
  const p = new Params();
  const v = vectorParam(p, vector, binary);
  const live = `${liveClause(now, p)} and ${NOT_SUPERSEDED} and ${VISIBLE}` +
    (excludeId ? ` and m.id <> ${p.add(excludeId)}` : "");
  const byStored = `m.embedding <=> ${v}`;
  const byContent = `m.content_embedding <=> ${v}`;
  const limit = p.add(k);
  const candidates = exact
    ? `(select m.id from memories m where ${scopeClause(scope, p, true)} and ${live}
         order by (${byStored}) + 0 limit ${limit})
       union
       (select m.id from memories m
         where ${scopeClause(scope, p, true)} and ${live} and m.content_embedding is not null
         order by (${byContent}) + 0 limit ${limit})`
    : `select m.id from memories m where ${scopeClause(scope, p)} and ${live}
        order by ${byStored} limit ${p.add(k * CONTENT_OVERFETCH)}`;
  return [
    `select ${COLUMNS}, 1 - coalesce(${byContent}, ${byStored}) as similarity
       from memories m
      where m.id in (${candidates})
      order by similarity desc limit ${limit}`,
    p.values,
  ];
}

/** Whether the nearest neighbours within `scope` are read exactly ({@link exactScope}). */
export async function exact(db: Db, cache: CorpusCache, scope: ScopeFilter): Promise<boolean> {
  if (scope.kind === "all") return false;
  return exactScope(scope, await cache.sizesOf(db));
}

/**
 * Run a nearest-neighbour query with sequential scans disabled for its transaction. The
 * planner prices a 768-dimension distance like any operator, so with a scope filter it
 * prefers scanning and sorting every matching row (measured 30–55 ms at 10k rows on
 * PGlite) over the HNSW index with iterative scanning (3–6 ms). `set local` keeps the
 * setting inside this one transaction.
 */
function indexed<T>(db: Db, text: string, params: unknown[]): Promise<T[]> {
  return db.transaction(async (tx) => {
    await tx.exec("set local enable_seqscan = off");
    return await tx.query<T>(text, params);
  });
}

/**
 * The settings of the contradiction check's statement, for its transaction only, as one
 * statement (a prepared one on the embedded database): sequential scans off ({@link indexed})
 * and the HNSW walk at {@link CONTRADICTION_EF_SEARCH}. Selects `usable` (true).
 */
export const CONTRADICTION_SETTINGS = `select set_config('enable_seqscan', 'off', true) <> ''
         and set_config('hnsw.ef_search', '${CONTRADICTION_EF_SEARCH}', true) <> '' as usable`;

/**
 * The `k` nearest current, not superseded memories by cosine distance, for the contradiction
 * check: the HNSW walk at {@link CONTRADICTION_EF_SEARCH} ({@link CONTRADICTION_SETTINGS}). A
 * search's nearest neighbours ({@link candidates} without a lexical side) keep the
 * connection's breadth. With `byContent` (once some memory has an expansion), the memories are
 * compared on their contents' vectors ({@link nearestContentStatement}).
 */
export async function nearest(
  db: Db,
  cache: CorpusCache,
  vector: number[],
  scope: ScopeFilter,
  k: number,
  now: Date,
  excludeId?: string,
  byContent = false,
): Promise<Scored[]> {
  const [text, params] = (byContent ? nearestContentStatement : nearestStatement)(
    vector,
    scope,
    k,
    now,
    await exact(db, cache, scope),
    excludeId,
  );
  const rows = await db.transaction(async (tx) => {
    await tx.query(CONTRADICTION_SETTINGS, [], { prepare: true });
    return await tx.query<Row>(text, params);
  });
  return rows.map((r) => ({ memory: toMemory(r), similarity: Number(r.similarity) }));
}

/**
 * The `k` current, not superseded memories of `scope` nearest to `vector` by their dense
 * vectors (migrations/0016_dense.sql), with the dense cosine as `similarity`: the dense leg's
 * candidates. A small scope is read exactly, a large one through the dense HNSW index, as
 * {@link nearest} reads the embeddings.
 */
export async function denseNearest(
  db: Db,
  cache: CorpusCache,
  vector: ArrayLike<number>,
  scope: ScopeFilter,
  k: number,
  now: Date,
): Promise<Scored[]> {
  const rows = await indexed<Row>(
    db,
    ...nearestStatement(vector, scope, k, now, await exact(db, cache, scope), undefined, "dense"),
  );
  return rows.map((r) => ({ memory: toMemory(r), similarity: Number(r.similarity) }));
}

/**
 * Search candidates, hybrid: the `k` nearest by cosine distance and the `k` best by BM25
 * over the postings (any query term may match), each with its exact cosine similarity and
 * its lexical relevance. Expired and superseded memories are left out. Without `lexical`
 * (a query with no index term, or a vector-only diagnostic) only the nearest.
 *
 * The lexical side sums the weights `lexical` carries (idf × (k1 + 1) per term, computed by
 * the ranking, src/memory/ranking.ts, from {@link CorpusCache.stats}) over the postings of
 * the memories this search's scope covers (only the {@link POSTINGS_PER_TERM} postings of
 * highest impact per term are scored), divided by `lexical.total`, capped at 1.
 */
export async function candidates(
  db: Db,
  cache: CorpusCache,
  vector: number[],
  lexical: LexicalQuery | null,
  scope: ScopeFilter,
  k: number,
  now: Date,
  withVector = true,
): Promise<Candidate[]> {
  if (!lexical || !lexical.terms.length) {
    // The search's own nearest neighbours: at the connection's breadth (EF_SEARCH), not the
    // contradiction check's ({@link nearest}).
    if (!withVector) return [];
    const rows = await indexed<Row>(
      db,
      ...nearestStatement(vector, scope, k, now, await exact(db, cache, scope)),
    );
    return rows.map((r) => ({
      memory: toMemory(r),
      similarity: Number(r.similarity),
      lexical: 0,
    }));
  }
  const sizes = await cache.sizesOf(db);
  // The statement is the function mneme_search_scoped (its file,
  // migrations/functions/mneme_search_scoped.sql, describes it), so that its plan is made once
  // per connection.
  // The nearest neighbours of a scope of at most EXACT_SCOPE_MAX memories (counted in the
  // corpus statistics) are read exactly: its rows through the btree, every distance
  // computed. Otherwise they come from an HNSW index: over global memories on server
  // Postgres the partial index of memories that are not project-scoped, otherwise the index
  // of all with the scope filter, which walks the graph until enough rows pass. Postings carry the memory's project (null: global), so the scope applies to
  // them directly: per term and project value (global: null, on an index of its own) one
  // index range read in order of impact, of which only the POSTINGS_PER_TERM first are
  // scored, so a search reads a bounded number of postings however common its words are.
  // Expired and superseded memories are filtered when the best lexical matches are picked
  // (from the 4 × k best, so that a few of them cannot crowd the rest out).
  const rows = await db.query<Row & { similarity: number; lexical: number }>(
    // Every parameter cast: a prepared statement keeps the types it was prepared with, and
    // these are the function's own whatever a later version infers.
    `select * from mneme_search_scoped(${SCOPED_PARAMS})`,
    scopedValues(vector, lexical, scope, k, now, withVector, sizes),
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

/** The parameters of mneme_search_scoped, each cast to the function's own type. */
const SCOPED_PARAMS = `$1::text::vector, $2::boolean, $3::text[],
  $4::float8[], $5::float8, $6::float8, $7::float8,
  $8::float8, $9::int, $10::int, $11::timestamptz,
  $12::boolean, $13::boolean, $14::text, $15::boolean`;

/** The values of {@link SCOPED_PARAMS}. */
function scopedValues(
  vector: number[],
  lexical: LexicalQuery,
  scope: ScopeFilter,
  k: number,
  now: Date,
  withVector: boolean,
  sizes: Map<string | null, number>,
): unknown[] {
  return [
    vectorLiteral(vector),
    withVector,
    lexical.terms,
    lexical.weights,
    lexical.k1,
    lexical.b,
    lexical.avgdl,
    lexical.total,
    k,
    POSTINGS_PER_TERM,
    now,
    scope.kind === "all",
    scope.kind === "global" || scope.kind === "hierarchy",
    scope.kind === "project" || scope.kind === "hierarchy" ? scope.project : null,
    exactScope(scope, sizes),
  ];
}

/** The dense leg's side of a search: the query's dense vector and how many neighbours. */
export interface DenseQuery {
  vector: ArrayLike<number>;
  k: number;
}

/** The statement of {@link candidatesWithDense}. */
const SEARCH_DENSE =
  `select * from mneme_search_dense(${SCOPED_PARAMS}, $16::text::vector, $17::int)`;

/**
 * {@link SEARCH_DENSE} when the recorded embedder is $18/$19/$20: no row when it is not; when
 * it is, the function's rows, or one row of nulls when it found nothing (the meta row left
 * joined to them).
 */
const CHECKED_SEARCH_DENSE = `select s.* from mneme_meta meta
  left join lateral mneme_search_dense(${SCOPED_PARAMS}, $16::text::vector, $17::int) s on true
  where meta.id = 1 and meta.embedder_provider = $18::text and meta.embedder_model = $19::text
    and meta.embedder_dimension = $20::int`;

/** Search candidates with the dense leg's ({@link candidatesWithDense}). */
export interface WithDense {
  /** As {@link candidates} gives them. */
  candidates: Candidate[];
  /** As {@link denseNearest} gives them, in its order. */
  near: Scored[];
}

/**
 * {@link candidates} and {@link denseNearest} of the same search, in one statement where there
 * is a lexical side: the function mneme_search_dense (migrations/functions/mneme_search_dense.sql),
 * mneme_search_scoped's rows and the dense leg's nearest in one call, one message to the embedded
 * database's worker instead of the dense read's transaction of four (docs/performance.md,
 * "0.18"). The same memories either way; without a lexical side, the two reads.
 */
export async function candidatesWithDense(
  db: Db,
  cache: CorpusCache,
  vector: number[],
  lexical: LexicalQuery | null,
  scope: ScopeFilter,
  k: number,
  now: Date,
  dense: DenseQuery,
  withVector = true,
): Promise<WithDense> {
  return (await withDense(db, cache, vector, lexical, scope, k, now, dense, withVector))!;
}

/**
 * {@link candidatesWithDense} with the embedder check in its statement: it reads only when the
 * recorded embedder is `check` (the meta row, read by the same statement, so that on the
 * embedded database a search is one message to its worker, not two; docs/performance.md,
 * "0.20"). Null when the recorded embedder is another or none, and when there is no lexical
 * side (two reads, not checked here): the caller then checks the record on its own and reads
 * with {@link candidatesWithDense}.
 */
export function checkedCandidatesWithDense(
  db: Db,
  cache: CorpusCache,
  vector: number[],
  lexical: LexicalQuery | null,
  scope: ScopeFilter,
  k: number,
  now: Date,
  dense: DenseQuery,
  withVector: boolean,
  check: EmbedderInfo,
): Promise<WithDense | null> {
  return withDense(db, cache, vector, lexical, scope, k, now, dense, withVector, check);
}

async function withDense(
  db: Db,
  cache: CorpusCache,
  vector: number[],
  lexical: LexicalQuery | null,
  scope: ScopeFilter,
  k: number,
  now: Date,
  dense: DenseQuery,
  withVector = true,
  check?: EmbedderInfo,
): Promise<WithDense | null> {
  if (!lexical || !lexical.terms.length) {
    if (check) return null;
    const [found, near] = await Promise.all([
      candidates(db, cache, vector, lexical, scope, k, now, withVector),
      denseNearest(db, cache, dense.vector, scope, dense.k, now),
    ]);
    return { candidates: found, near };
  }
  const sizes = await cache.sizesOf(db);
  const rows = await db.query<
    Row & {
      similarity: number | null;
      lexical: number | null;
      in_hybrid: boolean;
      dense_similarity: number | null;
      dense_rank: number | null;
    }
  >(
    check ? CHECKED_SEARCH_DENSE : SEARCH_DENSE,
    [
      ...scopedValues(vector, lexical, scope, k, now, withVector, sizes),
      vectorLiteral(dense.vector),
      dense.k,
      ...(check ? [check.provider, check.model, check.dimension] : []),
    ],
    { prepare: true },
  );
  // No row: the recorded embedder is not `check`.
  if (check && !rows.length) return null;
  const found: Candidate[] = [];
  const near: { rank: number; scored: Scored }[] = [];
  for (const r of rows) {
    // The checked statement's row of nulls: nothing found.
    if (r.id === null) continue;
    const memory = toMemory(r);
    if (r.in_hybrid) {
      found.push({ memory, similarity: Number(r.similarity), lexical: Number(r.lexical) });
    }
    if (r.dense_similarity !== null) {
      near.push({
        rank: Number(r.dense_rank),
        scored: { memory, similarity: Number(r.dense_similarity) },
      });
    }
  }
  near.sort((a, b) => a.rank - b.rank);
  return { candidates: found, near: near.map((n) => n.scored) };
}
