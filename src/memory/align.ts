/**
 * Word alignment of a query and a memory: for each informative word of the query, its best
 * match among the memory's words, summed by the word's information. A sentence vector (SIF)
 * averages a text's words, so one word that carries the query's meaning ("orchestrator") is
 * diluted by the rest; the alignment keeps each word's match whole.
 *
 * A query word matches fully when the memory has it in some form (`variantsOf`), or names a
 * tool whose category words hold it (src/domain/categories.ts: "the package manager" and
 * pnpm); otherwise by its nearest word of the memory in the word vectors, a tool name's
 * category words standing for it on either side (cosine c, credit (c − t) / (1 − t) above
 * t = {@link ALIGN_FROM}). The words are the query's {@link ALIGN_WORDS} heaviest (stop
 * words left out), each weighing its information −ln p (p its Zipf frequency from its rank in
 * the word vectors; an unknown word as the rarest).
 *
 * It depends on the query and the memory alone (no statistics of the scope). Its cost is the
 * query's words × the distinct words of a search's candidates dot products of 100 dimensions
 * (a word met in several candidates is compared once per search), and a tokenisation of each
 * candidate; the unit vectors and stems of recent words are kept between searches (bounded).
 * @module
 */
import { categoriesOf, namesIn } from "../domain/categories.ts";
import { variantsOf } from "../domain/forms.ts";
import { queryWords, stem, STOP_WORDS, terms } from "../domain/terms.ts";
import type { WordVectors } from "../embed/words.ts";

/** The heaviest query words the alignment looks at. */
export const ALIGN_WORDS = 12;
/** Word-vector cosine from which a near word earns credit (linearly to 1 at cosine 1). */
export const ALIGN_FROM = 0.4;

/** A query word of the alignment. */
interface AlignWord {
  forms: ReadonlySet<string>;
  weight: number;
  /** Unit vectors standing for it: its own and, for a tool name, its category words'. */
  vectors: Float32Array[];
}

/** The query side of the alignment, made once per search. */
export interface AlignQuery {
  /** The query's words, heaviest first. */
  readonly words: readonly AlignWord[];
  /** Their information, summed: what the alignment is divided by. */
  readonly total: number;
  /**
   * Per memory word already met in this search, its best cosine with each query word (the
   * candidates of one search share many words).
   */
  readonly best: Map<string, Float32Array>;
  /** Whether the query names an identifier. */
  readonly identifiers: boolean;
  /** Every query word's vectors, one after the other, and the query word each stands for. */
  readonly flat: Float32Array;
  readonly owner: Int32Array;
}

/** Stems of the words met lately (bounded: cleared when full). */
const STEMS = new Map<string, string>();

function stemOf(word: string): string {
  let s = STEMS.get(word);
  if (s === undefined) {
    if (STEMS.size >= UNIT_CACHE_SIZE) STEMS.clear();
    STEMS.set(word, s = stem(word));
  }
  return s;
}

/** Unit vectors of the words met lately, per word-vector set (bounded: cleared when full). */
const UNIT_CACHE = new WeakMap<WordVectors, Map<string, Float32Array | null>>();
/** Words whose unit vectors are kept between searches (about 4 MB). */
const UNIT_CACHE_SIZE = 10_000;

function unitWord(word: string, vectors: WordVectors): Float32Array | undefined {
  let cache = UNIT_CACHE.get(vectors);
  if (!cache) UNIT_CACHE.set(vectors, cache = new Map());
  const had = cache.get(word);
  if (had !== undefined) return had ?? undefined;
  const v = unitOf(vectors.vector(word));
  if (cache.size >= UNIT_CACHE_SIZE) cache.clear();
  cache.set(word, v ?? null);
  return v;
}

function unitOf(v: Float32Array | undefined): Float32Array | undefined {
  if (!v) return undefined;
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  if (!n) return undefined;
  const s = 1 / Math.sqrt(n);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * s;
  return out;
}

function informationOf(rank: number | undefined, vectors: WordVectors): number {
  const h = Math.log(vectors.size) + 0.5772;
  return Math.log(((rank ?? vectors.size) + 1) * h);
}

/** The vectors of a word and, when it names a tool, of its category words. */
function vectorsOf(word: string, vectors: WordVectors): Float32Array[] {
  const out: Float32Array[] = [];
  const own = unitWord(word, vectors);
  if (own) out.push(own);
  for (const c of categoriesOf(word) ?? []) {
    const v = unitWord(c, vectors);
    if (v) out.push(v);
  }
  return out;
}

/** The query's words, weighed, with their vectors. */
export function alignQuery(query: string, vectors: WordVectors): AlignQuery {
  const seen = new Map<string, AlignWord & { forms: Set<string> }>();
  let identifiers = false;
  const qws = queryWords(query);
  for (const [i, q] of qws.entries()) {
    identifiers ||= q.identifier;
    if (q.inIdentifier || STOP_WORDS.has(q.word)) continue;
    const forms = q.identifier ? [q.term] : variantsOf(q.term, qws[i + 1]?.term);
    const had = seen.get(q.term);
    if (had) {
      for (const f of forms) had.forms.add(f);
      continue;
    }
    const rank = q.identifier ? undefined : vectors.rank(q.word);
    seen.set(q.term, {
      forms: new Set(forms),
      weight: informationOf(rank, vectors),
      vectors: q.identifier ? [] : vectorsOf(q.word, vectors),
    });
  }
  const words = [...seen.values()].sort((a, b) => b.weight - a.weight).slice(0, ALIGN_WORDS);
  const all = words.flatMap((w, i) => w.vectors.map((v) => ({ v, i })));
  const dim = vectors.dimension;
  const flat = new Float32Array(all.length * dim);
  all.forEach((x, k) => flat.set(x.v, k * dim));
  return {
    words,
    total: words.reduce((s, w) => s + w.weight, 0),
    best: new Map(),
    identifiers,
    flat,
    owner: Int32Array.from(all.map((x) => x.i)),
  };
}

/** The alignment of a memory's content with the query, 0..1. */
export function alignment(
  q: AlignQuery,
  content: string,
  vectors: WordVectors,
  from = ALIGN_FROM,
): number {
  if (!q.total) return 0;
  const matches = alignMatches(q, content, vectors);
  let got = 0;
  q.words.forEach((w, i) => got += w.weight * creditOf(matches[i], from));
  return got / q.total;
}

/** The credit of a query word's match: 1 for the word itself, (c − t) / (1 − t) above t. */
export function creditOf(match: number, from = ALIGN_FROM): number {
  return match >= 1 ? 1 : match > from ? Math.min(1, (match - from) / (1 - from)) : 0;
}

/**
 * Each query word's match in a memory's content (in the order of `q.words`): 1 when the
 * memory has the word in some form (or names a tool whose category words hold it), else the
 * best word-vector cosine of a word of the memory (its tool names' category words included),
 * 0 when none is known. {@link alignment} weighs them; tasks/rank_replay.ts reads them whole.
 */
export function alignMatches(q: AlignQuery, content: string, vectors: WordVectors): Float32Array {
  const out = new Float32Array(q.words.length);
  if (!q.words.length) return out;
  // The memory's index terms (a stem per word, cached; an identifier only when the query has
  // one, which the whole of terms() finds).
  const words = content.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const have = q.identifiers ? new Set(terms(content)) : new Set(words.map(stemOf));
  // The memory's tool names lend their category words: as terms (a full match) and vectors.
  const names = namesIn(content);
  const lent = names.flatMap((n) => categoriesOf(n) ?? []);
  for (const c of lent) have.add(stem(c));
  const missed: number[] = [];
  q.words.forEach((w, i) => {
    if ([...w.forms].some((f) => have.has(f))) out[i] = 1;
    else if (w.vectors.length) missed.push(i);
  });
  if (!missed.length) return out;
  const seen = new Set<string>();
  for (const x of [...words, ...lent]) {
    if (seen.has(x) || STOP_WORDS.has(x)) continue;
    seen.add(x);
    const cos = bestOf(q, x, vectors);
    if (!cos) continue;
    for (const i of missed) if (cos[i] > out[i]) out[i] = Math.min(cos[i], 0.999999);
  }
  return out;
}

/** The best cosine of a memory word with each query word (cached per search); null: unknown. */
function bestOf(q: AlignQuery, word: string, vectors: WordVectors): Float32Array | null {
  const had = q.best.get(word);
  if (had) return had;
  const b = unitWord(word, vectors);
  if (!b) return null;
  const out = new Float32Array(q.words.length);
  const { flat, owner } = q;
  const dim = b.length;
  for (let k = 0; k < owner.length; k++) {
    let d = 0;
    const at = k * dim;
    for (let j = 0; j < dim; j++) d += flat[at + j] * b[j];
    if (d > out[owner[k]]) out[owner[k]] = d;
  }
  q.best.set(word, out);
  return out;
}
