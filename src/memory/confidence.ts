/**
 * The confidence of a search result: how likely it is that the memory is about the query,
 * in 0..1, with one meaning whatever the project's size and the query's length. The score
 * ranks; the confidence says whether anything is worth showing unasked (the prompt hook
 * injects only results at or above a floor, `memcli recall --min-confidence`).
 *
 * It is a logistic function of signals of whether the memory covers the query:
 *
 * - **coverage**: the share of the query's information the memory contains. Each informative
 *   word of the query (stop words left out; the {@link COVERAGE_WORDS} heaviest) weighs its
 *   information, −ln p, with p its frequency estimated from its rank among the 50,000 words
 *   of the shipped word vectors (Zipf's law); a word they do not know weighs as the rarest
 *   (a short one, 1–3 letters, as a word of rank {@link SHORT_UNKNOWN_RANK}). A word is
 *   covered when the memory has its index term or another of its forms (`variantsOf`:
 *   irregular verbs, short names); a word of rank {@link SYNONYM_MIN_RANK} or more also
 *   counts in part when the memory has a near synonym (word-vector cosine c ≥
 *   {@link SYNONYM_FROM}: credit (c − 0.6) / 0.4). Identifiers count whole, exactly. The
 *   covered information is divided by the span, min(total, max({@link SPAN_MIN_NATS}, 35 %
 *   of the total)): a short query needs all its words, a paragraph a fair share of them.
 * - **names missed**: how many names of the query (words written with a capital that are
 *   not acronyms, days, months or languages; a sentence's first word only when it is rare)
 *   the memory lacks. A question about Caroline is not answered by a memory about Melanie.
 * - **semantic**: the calibrated dense cosine of the query and the memory (src/memory/dense.ts;
 *   0 without the dense leg or a vector), their SIF vectors with the jargon's plain words but
 *   not the tool names' category words (src/embed/sif.ts, `"jargon"`).
 * - **soft coverage**: the share of the information of the query's {@link COVERAGE_WORDS}
 *   heaviest words the memory has, a word it lacks counting in part by its nearest word of the
 *   memory (word-vector cosine from {@link SOFT_FROM}, credit (c − 0.4) / 0.4, whatever the
 *   word's rank).
 * - **one shared**: 1 when exactly one of the query's coverage words is in the memory. On
 *   prompts written without looking at the scorer, one shared word was what most often lifted
 *   an everyday prompt's unrelated memory.
 * - **lexical**: the lexical relevance of the search (BM25 over the scope). Its coefficient is
 *   0 since 0.15: its idf normalisation moves with the other memories of the scope, so adding
 *   unrelated memories moved a pair's confidence by up to 0.077; without it the move is 0.
 *
 * confidence = σ(b₀ + Σ bᵢ × signalᵢ), the coefficients fitted by logistic regression on five
 * sets: the paraphrase set's dev and test splits, its holdout and holdout2, and LoCoMo dev,
 * each set's positives and negatives weighing alike (`deno task fit:confidence:sets`, chosen
 * leave one set out: docs/recall.md, "0.18: the gate with the category and jargon words";
 * those of 0.15 to 0.18, fitted on the dev splits, are {@link DEV_COEFFICIENTS}). Each signal
 * depends on the query and the memory alone, so a pair's confidence does not move when other
 * memories are added. The coefficients of 0.14 are {@link LEXICAL_COEFFICIENTS}.
 * @module
 */
import { variantsOf } from "../domain/forms.ts";
import { queryWords, STOP_WORDS, terms } from "../domain/terms.ts";
import { cosine, type WordVectors } from "../embed/words.ts";

/** The heaviest query words that coverage looks at. */
export const COVERAGE_WORDS = 12;
/** The smallest span of coverage, in nats (about four uncommon words). */
export const SPAN_MIN_NATS = 40;
/** Share of the query's information a long query needs covered for coverage 1. */
export const SPAN_SHARE = 0.35;
/** Words less frequent than this rank may be covered by a near synonym. */
export const SYNONYM_MIN_RANK = 1000;
/** Word-vector cosine from which a synonym counts (linearly up to 1). */
export const SYNONYM_FROM = 0.6;
/** The rank an unknown word of 1–3 letters weighs as (a foreign function word, a typo). */
export const SHORT_UNKNOWN_RANK = 100;
/** A capitalised first word of a sentence is a name only when rarer than this rank. */
const INITIAL_NAME_RANK = 10_000;

/** Coefficients of the logistic function. */
export interface Coefficients {
  /** b₀. */
  intercept: number;
  /** b₁, of coverage. */
  coverage: number;
  /** b₂ (negative), of each name missed. */
  namesMissed: number;
  /** b₃, of the lexical relevance. */
  lexical: number;
  /** b₄, of the calibrated dense cosine. */
  semantic: number;
  /** b₅, of soft coverage. */
  softCoverage: number;
  /** b₆ (negative), when exactly one of the query's words is in the memory. */
  oneShared: number;
}

/** Fitted coefficients of the logistic function (see the module's documentation). */
export const COEFFICIENTS: Readonly<Coefficients> = {
  intercept: -0.9,
  coverage: 3.497,
  namesMissed: -1.631,
  lexical: 0,
  semantic: 1.356,
  softCoverage: 1.396,
  oneShared: -0.952,
};

/**
 * The coefficients of 0.15 to 0.18, fitted on the dev splits of LoCoMo and of the paraphrase
 * set with the plain dense cosine (without the jargon's words): kept for comparisons.
 */
export const DEV_COEFFICIENTS: Readonly<Coefficients> = {
  intercept: -2.072,
  coverage: 3.906,
  namesMissed: -2.218,
  lexical: 0,
  semantic: 3.561,
  softCoverage: 2.673,
  oneShared: -1.287,
};

/**
 * The coefficients of 0.14 and before (coverage, names missed, lexical relevance), fitted on
 * LoCoMo dev alone: kept for comparisons (`tasks/fit_confidence.ts`).
 */
export const LEXICAL_COEFFICIENTS: Readonly<Coefficients> = {
  intercept: -3.06,
  coverage: 6.84,
  namesMissed: -2.28,
  lexical: 3.45,
  semantic: 0,
  softCoverage: 0,
  oneShared: 0,
};

/** Word-vector cosine from which soft coverage credits a word the memory lacks (to 1 at 0.8). */
export const SOFT_FROM = 0.4;

/** Capitalised words that are not names. */
const NOT_NAMES = new Set(
  ("monday tuesday wednesday thursday friday saturday sunday january february march april may " +
    "june july august september october november december english french german spanish " +
    "italian portuguese chinese japanese korean russian arabic hindi dutch polish swedish " +
    "i i'm ok").split(" "),
);

/** A word of the query, weighed. */
interface Word {
  term: string;
  forms: Set<string>;
  weight: number;
  name: boolean;
  vector?: Float32Array;
}

/** What the confidence of any memory for one query needs, computed once per search. */
export interface QueryProfile {
  /** The words coverage looks at. */
  readonly words: readonly Word[];
  /** The names of the query. */
  readonly names: readonly Word[];
  /** The information coverage is divided by. */
  readonly span: number;
  /**
   * The words soft coverage looks at: the {@link COVERAGE_WORDS} heaviest, each its term only,
   * with its word vector when it has one (any rank).
   */
  readonly soft: readonly { term: string; weight: number; vector?: Float32Array }[];
}

/** The signals of one memory for one query. */
export interface Signals {
  /** Share of the query's information covered, 0..1. */
  coverage: number;
  /** Names of the query the memory lacks. */
  namesMissed: number;
  /** The search's lexical relevance, 0..1. */
  lexical: number;
  /** The calibrated dense cosine of the query and the memory (src/memory/dense.ts), 0..1. */
  semantic: number;
  /**
   * Share of the query's information the memory has, a word it lacks counting in part by its
   * nearest word of the memory (word-vector cosine from {@link SOFT_FROM}), 0..1.
   */
  softCoverage: number;
  /** How many of the query's coverage words the memory has. */
  shared: number;
}

function information(rank: number | undefined, word: string, vocabulary: number): number {
  const h = Math.log(vocabulary) + 0.5772;
  const r = rank ?? (word.length <= 3 ? SHORT_UNKNOWN_RANK : vocabulary);
  return Math.log((r + 1) * h);
}

/** The query's words, weights and names. */
export function profileQuery(query: string, vectors: WordVectors): QueryProfile {
  const byTerm = new Map<string, Word>();
  const qws = queryWords(query);
  for (const [i, w] of qws.entries()) {
    if (w.inIdentifier) continue;
    const rank = w.identifier ? undefined : vectors.rank(w.word);
    const name = !w.identifier && w.capitalized && !w.acronym && !NOT_NAMES.has(w.word) &&
      (!w.initial || rank === undefined || rank >= INITIAL_NAME_RANK);
    const forms = w.identifier ? [w.term] : variantsOf(w.term, qws[i + 1]?.term);
    const seen = byTerm.get(w.term);
    if (seen) {
      seen.name ||= name;
      for (const f of forms) seen.forms.add(f);
      continue;
    }
    byTerm.set(w.term, {
      term: w.term,
      forms: new Set(forms),
      weight: information(rank, w.word, vectors.size),
      name,
      vector: rank !== undefined && rank >= SYNONYM_MIN_RANK ? vectors.vector(w.word) : undefined,
    });
  }
  const all = [...byTerm.values()];
  const words = [...all].sort((a, b) => b.weight - a.weight).slice(0, COVERAGE_WORDS);
  const total = words.reduce((s, w) => s + w.weight, 0);
  const span = Math.min(total, Math.max(SPAN_MIN_NATS, SPAN_SHARE * total));
  return { words, names: all.filter((w) => w.name), span, soft: softWords(query, vectors) };
}

/** The query's words for soft coverage ({@link QueryProfile.soft}). */
function softWords(query: string, vectors: WordVectors): QueryProfile["soft"] {
  const seen = new Map<string, { term: string; weight: number; vector?: Float32Array }>();
  for (const q of queryWords(query)) {
    if (q.inIdentifier || seen.has(q.term) || STOP_WORDS.has(q.word)) continue;
    const rank = q.identifier ? undefined : vectors.rank(q.word);
    seen.set(q.term, {
      term: q.term,
      weight: information(rank, q.word, vectors.size),
      vector: q.identifier ? undefined : vectors.vector(q.word),
    });
  }
  return [...seen.values()].sort((a, b) => b.weight - a.weight).slice(0, COVERAGE_WORDS);
}

/** The signals of a memory's content for a query. */
export function signalsOf(
  profile: QueryProfile,
  content: string,
  lexical: number,
  vectors: WordVectors,
  semantic = 0,
): Signals {
  const have = new Set(terms(content));
  const covers = (w: Word) => [...w.forms].some((f) => have.has(f));
  let memoryVectors: Float32Array[] | undefined;
  let covered = 0;
  for (const w of profile.words) {
    if (covers(w)) {
      covered += w.weight;
      continue;
    }
    if (!w.vector) continue;
    memoryVectors ??= (content.normalize("NFKC").toLowerCase().match(/\p{L}+/gu) ?? [])
      .map((x) => vectors.vector(x)).filter((v): v is Float32Array => v !== undefined);
    let best = 0;
    for (const v of memoryVectors) best = Math.max(best, cosine(w.vector, v));
    if (best > SYNONYM_FROM) covered += w.weight * Math.min(1, (best - SYNONYM_FROM) / 0.4);
  }
  return {
    coverage: profile.span > 0 ? Math.min(1, covered / profile.span) : 0,
    namesMissed: profile.names.filter((w) => !covers(w)).length,
    lexical: Math.max(0, Math.min(1, lexical)),
    semantic: Math.max(0, Math.min(1, semantic)),
    softCoverage: softCoverage(profile, have, content, vectors),
    shared: profile.words.filter(covers).length,
  };
}

/** {@link Signals.softCoverage}. */
function softCoverage(
  profile: QueryProfile,
  have: Set<string>,
  content: string,
  vectors: WordVectors,
): number {
  let memoryVectors: Float32Array[] | undefined;
  let total = 0;
  let got = 0;
  for (const w of profile.soft) {
    total += w.weight;
    if (have.has(w.term)) {
      got += w.weight;
      continue;
    }
    if (!w.vector) continue;
    memoryVectors ??= (content.normalize("NFKC").toLowerCase().match(/\p{L}+/gu) ?? [])
      .filter((x) => !STOP_WORDS.has(x)).map((x) => vectors.vector(x))
      .filter((v): v is Float32Array => v !== undefined);
    let best = 0;
    for (const v of memoryVectors) best = Math.max(best, cosine(w.vector, v));
    got += w.weight * Math.min(1, Math.max(0, (best - SOFT_FROM) / SOFT_FROM));
  }
  return total > 0 ? got / total : 0;
}

/** The confidence of the signals, 0..1 (see the module's documentation). */
export function confidenceOf(s: Signals, c: Readonly<Coefficients> = COEFFICIENTS): number {
  const z = c.intercept + c.coverage * s.coverage + c.namesMissed * s.namesMissed +
    c.lexical * s.lexical + c.semantic * s.semantic + c.softCoverage * s.softCoverage +
    c.oneShared * (s.shared === 1 ? 1 : 0);
  return 1 / (1 + Math.exp(-z));
}

/**
 * The confidence at or above which an expanded memory (MEMORY_EXPANSION, src/memory/expansion.ts)
 * is as likely to be about the query as a plain one at the hook's floor of 0.9: its signals read
 * the content with the model's phrases, which lift unrelated memories of the same domain too.
 * Measured with the phrases appended to the content and fitted leave one set out on holdout3,
 * holdout4 and paraphrase.json (docs/recall.md, "0.20"): 0.94 each time, with phrases written
 * under 0.20's instruction. Since 0.22 the instruction asks for the messages a developer would
 * type (src/memory/expansion_prompt.md), which lift unrelated memories more: 0.964, the lowest
 * floor measured at which the everyday prompts of holdout6 and holdout7 (their memories expanded
 * under it) get anything injected at most 0.05 of the time (docs/recall.md, "0.22").
 */
export const EXPANDED_FLOOR = 0.964;
/** The floor {@link EXPANDED_FLOOR} stands for: the hook's default. */
const PLAIN_FLOOR = 0.9;

/**
 * The confidence of an expanded memory calibrated to the scale of plain ones: piecewise linear
 * and increasing, {@link EXPANDED_FLOOR} to 0.9, 0 to 0 and 1 to 1. So a floor of 0.9 (the
 * hook's default, or any floor a user gives) keeps the same meaning with expansion on.
 */
export function expandedConfidence(c: number): number {
  return c >= EXPANDED_FLOOR
    ? PLAIN_FLOOR + (c - EXPANDED_FLOOR) * (1 - PLAIN_FLOOR) / (1 - EXPANDED_FLOOR)
    : c * PLAIN_FLOOR / EXPANDED_FLOOR;
}
