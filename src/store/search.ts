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
import {
  type Candidate,
  COLUMNS,
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
 * 2,000). Chosen by measurement (docs/performance.md, "Searches of a small scope (0.13)").
 */
export const EXACT_SCOPE_MAX = 2_000;

/** The largest share of all memories a scope read exactly may hold ({@link EXACT_SCOPE_MAX}). */
export const EXACT_SCOPE_SHARE = 0.2;
/** BM25 term-frequency saturation of the lexical side (tuned on LoCoMo dev: memories are short). */
export const BM25_K1 = 0.9;
/** BM25 length normalisation. */
export const BM25_B = 0.4;
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

/** The `k` nearest current, not superseded memories by cosine distance. */
export async function nearest(
  db: Db,
  cache: CorpusCache,
  vector: number[],
  scope: ScopeFilter,
  k: number,
  now: Date,
  excludeId?: string,
): Promise<Scored[]> {
  const rows = await indexed<Row>(
    db,
    ...nearestStatement(vector, scope, k, now, await exact(db, cache, scope), excludeId),
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
export async function candidates(
  db: Db,
  cache: CorpusCache,
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
    const near = sides.vector ? await nearest(db, cache, vector, scope, k, now) : [];
    return near.map((x) => ({ ...x, lexical: 0 }));
  }
  const stats = await cache.stats(db, scope, terms);
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
  // The statement is the function mneme_search_scoped (its file,
  // migrations/functions/mneme_search_scoped.sql, describes it), so that its plan is made once
  // per connection.
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
  const rows = await db.query<Row & { similarity: number; lexical: number }>(
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
      exactScope(scope, cache.sizes!.n),
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
