/**
 * Ranking: every weight and tuning constant that orders a search's results, in one place.
 *
 * A search goes through it twice. Before the store is asked, {@link lexicalQuery} turns the
 * query's term groups and the corpus statistics of the scope into the BM25 weights the store's
 * SQL function sums (the store receives them ready-made and computes no weight of its own).
 * After the candidates come back, {@link rank} fuses each candidate's lexical relevance with
 * its cosine similarity ({@link relevance}), re-ranks the builtin embedder's candidates with
 * the word vectors and fuses the dense leg and the word alignment ({@link alignedRelevance}),
 * weighs the result by scope, the memory's weight and its age
 * ({@link scoreMemory}) and keeps the best. The confidence of each result, which gates
 * automatic recall, is computed beside it (confidence.ts).
 *
 * The constants were tuned on LoCoMo dev (docs/recall.md says how, and what each is worth).
 * @module
 */
import { dot } from "../embed/dense.ts";
import { cosine, type WordVectors } from "../embed/words.ts";
import type { CorpusStats } from "../store/corpus.ts";
import type { Candidate, LexicalQuery } from "../store/sql.ts";
import type { EmbedderInfo, Memory, Scope } from "./types.ts";
import { calibrated, DENSE_WEIGHT, fuseDense } from "./dense.ts";
import { ALIGN_FROM, alignment, alignQuery } from "./align.ts";

/** BM25 term-frequency saturation of the lexical side (tuned on LoCoMo dev: memories are short). */
export const BM25_K1 = 0.9;
/** BM25 length normalisation. */
export const BM25_B = 0.4;
/** Nearest memories fetched for recall (plus as many best lexical matches). */
export const RECALL_CANDIDATES = 15;
/**
 * Share of the lexical relevance in the fused relevance, by embedder; the rest is cosine
 * similarity. The builtin embedder's vectors repeat the lexical signal without corpus
 * statistics (0.8, tuned on LoCoMo dev); a model's vectors carry meaning (0.5).
 */
export function lexicalShare(embedder: EmbedderInfo): number {
  return embedder.provider === "builtin" ? 0.8 : 0.5;
}
/**
 * Cosine similarity a memory that shares no query term needs to count as relevant: below it,
 * a vector-only match is the embedder's background similarity between unrelated texts.
 */
export const VECTOR_ONLY_MIN = 0.5;
/** Relevance below which a candidate is noise and is not returned. */
export const MIN_RELEVANCE = 0.1;
/**
 * Share of the word-vector similarity in the relevance of the builtin embedder's candidates
 * (src/embed/words.ts; tuned on LoCoMo dev): relevance = (1 − share) × fused + share ×
 * max(0, word-vector cosine), for candidates whose fused relevance is not noise.
 */
export const WORD_VECTOR_SHARE = 0.5;
/**
 * The fused relevance of the builtin configuration (the dense leg and the word vectors both
 * on): relevance = (max({@link ALIGNED_RELEVANCE_SHARE} × r, β × c) + {@link ALIGNMENT_WEIGHT} ×
 * a + {@link ALIGNED_DENSE_WEIGHT} × c) / {@link ALIGNED_NORM}, with r the re-ranked relevance,
 * c the calibrated dense cosine, β the dense weight (src/memory/dense.ts) and a the word
 * alignment of the query and the memory (src/memory/align.ts). Chosen on the dev splits of the
 * paraphrase set and LoCoMo (docs/recall.md, "0.17"): a region where every neighbouring
 * setting gains on both.
 */
export const ALIGNED_RELEVANCE_SHARE = 0.85;
/** Weight of the word alignment in the fused relevance (see {@link ALIGNED_RELEVANCE_SHARE}). */
export const ALIGNMENT_WEIGHT = 0.7;
/** Weight of the calibrated dense cosine added to the fused relevance. */
export const ALIGNED_DENSE_WEIGHT = 0.1;
/** The fused relevance's largest value before it is divided by it (so that it is 0..1). */
export const ALIGNED_NORM = ALIGNED_RELEVANCE_SHARE + ALIGNMENT_WEIGHT + ALIGNED_DENSE_WEIGHT;
/** Word-vector cosine from which a near word counts in the alignment (src/memory/align.ts). */
export const ALIGNMENT_FROM = ALIGN_FROM;
/** Weight a superseded memory drops to. */
export const SUPERSEDED_WEIGHT = 0.1;
/** Scope weights of the score. */
export const SCOPE_WEIGHT: Record<Scope, number> = { project: 1.0, global: 0.8 };
/** Temporal decay rate per day since the last update. */
export const DECAY_PER_DAY = 0.005;

const DAY_MS = 86_400_000;

/**
 * How search finds candidates: `hybrid` (the service's behaviour) fuses both sides;
 * `vector` and `lexical` use one side alone (diagnostics and benchmarks).
 */
export type Retrieval = "hybrid" | "vector" | "lexical";

/**
 * The BM25 weights of a query for the store: per distinct term, idf × (k1 + 1), with
 * idf = ln(1 + (N − df + 0.5)/(df + 0.5)) over the memories the search's scope covers, and
 * the normalisation, the sum of the idf of the distinct query terms (what a memory of average
 * length containing each query term once would score), so that the lexical relevance is the
 * idf-weighted share of the query a memory contains, capped at 1. A term no visible memory
 * has still counts in that sum.
 *
 * Each query term comes as a group: the term and its other forms (`variantsOf`), which match
 * in its place. Every form of a group weighs the group's idf, that of its most common form,
 * and the group counts once in the normalisation; a memory that holds two forms of one group
 * counts both (rare, and the relevance is capped at 1).
 */
export function lexicalQuery(
  groups: readonly (readonly string[])[],
  stats: CorpusStats,
): LexicalQuery {
  const idfOf = (x: string) => {
    const df = stats.df.get(x) ?? 0;
    return Math.log(1 + (stats.n - df + 0.5) / (df + 0.5));
  };
  const weightOf = new Map<string, number>();
  let total = 0;
  const counted = new Set<string>();
  for (const g of groups) {
    const idf = Math.min(...g.map(idfOf));
    for (const t of g) if (!weightOf.has(t)) weightOf.set(t, idf);
    if (!counted.has(g[0])) {
      counted.add(g[0]);
      total += idf;
    }
  }
  const terms = [...weightOf.keys()];
  return {
    terms,
    weights: terms.map((t) => weightOf.get(t)! * (BM25_K1 + 1)),
    k1: BM25_K1,
    b: BM25_B,
    avgdl: stats.avgdl,
    total: Math.max(total, 1e-9),
  };
}

/**
 * Relevance of a candidate in 0..1 from its lexical relevance (normalised BM25, 0..1) and
 * its cosine similarity: share × lexical + (1 − share) × max(0, similarity), the share from
 * {@link lexicalShare}. A candidate that shares no query term counts only when its
 * similarity reaches {@link VECTOR_ONLY_MIN}; relevance below {@link MIN_RELEVANCE} is
 * noise (0).
 */
export function relevance(
  c: { lexical: number; similarity: number },
  share: number,
  retrieval: Retrieval = "hybrid",
): number {
  const sim = Math.max(0, Math.min(1, c.similarity));
  const r = retrieval === "vector"
    ? sim
    : retrieval === "lexical"
    ? c.lexical
    : c.lexical <= 0 && sim < VECTOR_ONLY_MIN
    ? 0
    : share * c.lexical + (1 - share) * sim;
  return r < MIN_RELEVANCE ? 0 : r;
}

/** exp(-0.005 × days since updated_at); never above 1 for future timestamps. */
export function temporalDecay(updatedAt: string, now: Date): number {
  const days = Math.max(0, (now.getTime() - Date.parse(updatedAt)) / DAY_MS);
  return Math.exp(-DECAY_PER_DAY * days);
}

/** relevance × scope_weight × weight × temporal_decay. */
export function scoreMemory(memory: Memory, relevance: number, now: Date): number {
  return relevance * SCOPE_WEIGHT[memory.scope] * memory.weight *
    temporalDecay(memory.updated_at, now);
}

/**
 * The fused relevance of a candidate from its re-ranked relevance `r`, its dense cosine (null:
 * none) and its word alignment `a` with the query (see {@link ALIGNED_RELEVANCE_SHARE}).
 */
export function alignedRelevance(r: number, cos: number | null, a: number): number {
  const c = cos === null ? 0 : calibrated(cos);
  const base = Math.max(ALIGNED_RELEVANCE_SHARE * r, DENSE_WEIGHT * c);
  return (base + ALIGNMENT_WEIGHT * a + ALIGNED_DENSE_WEIGHT * c) / ALIGNED_NORM;
}

/**
 * Whether a query's index terms name an identifier (`tools/deploy.sh`, `ERR_CONN_RESET`: a
 * term joined by _ . / : - @ #): such a query wants that exact string and is ranked without
 * the word vectors and the dense leg ({@link rank}).
 */
export function namesIdentifier(queryTerms: readonly string[]): boolean {
  return queryTerms.some((t) => /[_./:\-@#]/.test(t));
}

/** What {@link rank} needs besides the candidates. */
export interface RankOptions {
  /** The query as the user wrote it. */
  query: string;
  /** Its index terms (to see whether it names an identifier). */
  queryTerms: readonly string[];
  /** How the candidates were found. */
  retrieval: Retrieval;
  /** The configured embedder (its lexical share; whether word vectors re-rank). */
  embedder: EmbedderInfo;
  /** The word vectors, or null when they do not re-rank (turned off). */
  words: WordVectors | null;
  /**
   * The dense leg (src/memory/dense.ts), or null when the configuration has none: the query's
   * dense vector, the dense cosine of the candidates the dense leg found (by id), and the
   * encoder that gives the others theirs from their text.
   */
  dense: {
    query: Float32Array;
    found: ReadonlyMap<string, number>;
    vector: (text: string) => Float32Array | null;
    /**
     * The same vector from the text's word-vector sentence (`words.sentence`), when the
     * encoder's word vectors are `words`: a candidate the re-rank has summed is not summed
     * again.
     */
    fromSentence?: (sentence: Float32Array | null, text: string) => Float32Array | null;
  } | null;
  /** Results kept. */
  limit: number;
  /** The clock of the decay. */
  now: Date;
}

/**
 * The candidates that are not noise, scored ({@link relevance}, then the word-vector re-rank
 * of the builtin embedder's candidates, then the dense leg's {@link fuseDense}, or, with the
 * word vectors and the dense leg both on, {@link alignedRelevance} with the word alignment of
 * src/memory/align.ts; then {@link scoreMemory}), best first (ties: the most recently updated, then by id), at most
 * `limit`; each with its dense cosine (null without the dense leg or a vector), which the
 * confidence reads.
 */
export function rank(
  candidates: readonly Candidate[],
  o: RankOptions,
): { c: Candidate; score: number; cos: number | null }[] {
  const share = lexicalShare(o.embedder);
  const rerank = o.retrieval === "hybrid" && o.words !== null &&
    o.embedder.provider === "builtin";
  // A query naming an identifier wants that exact string, which word vectors cannot see: such
  // a query is ranked without them (and without the dense leg).
  const exact = namesIdentifier(o.queryTerms);
  const words = rerank && !exact ? o.words : null;
  const query = words ? words.sentence(o.query) : null;
  // The dense leg follows the same rule: meaning, not an exact string.
  const dense = o.retrieval === "hybrid" && !exact ? o.dense : null;
  // The word alignment joins when both the word vectors and the dense leg rank; a query that
  // names an identifier is aligned too (an identifier matches only itself, exactly).
  const aligned = rerank && o.dense ? alignQuery(o.query, o.words!) : null;
  const alignOf = (content: string) => alignment(aligned!, content, o.words!, ALIGNMENT_FROM);
  return candidates
    .map((c) => {
      // The text the memory is indexed by: its content, with its expansion when it has one.
      const text = c.text ?? c.memory.content;
      let r = relevance(c, share, o.retrieval);
      // A memory without a known word (code, numbers, another script) keeps its relevance.
      const summed = query !== null && r > 0;
      const v = summed ? words!.sentence(text) : null;
      if (v) {
        const fused = (1 - WORD_VECTOR_SHARE) * r +
          WORD_VECTOR_SHARE * Math.max(0, cosine(query!, v));
        r = fused < MIN_RELEVANCE ? 0 : fused;
      }
      if (!dense) {
        if (aligned && r > 0) {
          const fused = alignedRelevance(r, null, alignOf(text));
          r = fused < MIN_RELEVANCE ? 0 : fused;
        }
        return { c, relevance: r, cos: null };
      }
      // Its dense cosine: as the dense leg read it, else from its text (a lexical candidate).
      let cos: number | null = dense.found.get(c.memory.id) ?? null;
      if (cos === null) {
        const d = summed && dense.fromSentence ? dense.fromSentence(v, text) : dense.vector(text);
        cos = d ? dot(dense.query, d) : null;
      }
      const fused = aligned ? alignedRelevance(r, cos, alignOf(text)) : fuseDense(r, cos);
      return { c, relevance: fused < MIN_RELEVANCE ? 0 : fused, cos };
    })
    .filter((x) => x.relevance > 0)
    .map((x) => ({ c: x.c, score: scoreMemory(x.c.memory, x.relevance, o.now), cos: x.cos }))
    .sort((a, b) => b.score - a.score || b.c.memory.updated_at.localeCompare(a.c.memory.updated_at))
    .slice(0, o.limit);
}
