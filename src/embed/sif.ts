/**
 * SIF sentence vectors (Arora, Liang and Ma 2017) from the word vectors that ship with Mneme
 * (src/embed/words.ts): the dense leg of the builtin configuration.
 *
 * A text's vector is the sum of its known words' vectors, each weighted a / (a + p(w)) with
 * p(w) the word's Zipf frequency from its rank (a = 10⁻³; stop words skipped), then, with
 * `removeCommon`, its component along the vocabulary's common direction taken out (the
 * paper's "first principal component", here fixed by the vocabulary rather than by the
 * stored texts, so that a memory's vector never changes when other memories are added), and
 * scaled to unit length. A text without a known word has no vector (null).
 *
 * Deterministic: the same text and the same word-vector file give the same vector, on every
 * machine (float32 arithmetic in a fixed order).
 * @module
 */
import { type DenseEncoder, type DenseInfo, unit } from "./dense.ts";
import { builtinWordVectors, SIF_A, type WordVectors } from "./words.ts";
import { STOP_WORDS } from "../domain/terms.ts";
import { categoriesOf, isJargon, namesIn } from "../domain/categories.ts";

/**
 * Model name of the SIF vectors (bumped when the encoding changes: a database whose memories
 * have another model's vectors re-encodes them in place at start, src/memory/dense.ts). v2:
 * a tool's name also contributes its category words (src/domain/categories.ts); v3: the table
 * of those names grew (565 → 1,600 names), so a stored vector of v2 may lack some; v4: the
 * table also gives developers' jargon its plain words (src/domain/jargon.ts: login, refactor,
 * timezone), so a stored vector of v3 lacks them.
 */
export const SIF_MODEL = "glove-100d-50k-sif-v4";
/** Model name of the SIF vectors of 0.17's table (tool names only, without the jargon). */
export const SIF_MODEL_V3 = "glove-100d-50k-sif-v3";
/** Model name of the SIF vectors with 0.16's smaller table of category words. */
export const SIF_MODEL_V2 = "glove-100d-50k-sif-v2";
/** Model name of the SIF vectors without the category words (0.15's encoding). */
export const SIF_MODEL_V1 = "glove-100d-50k-sif-v1";
/**
 * Weight of a tool name's category words in a SIF vector, relative to a word written in the
 * text: each category word weighs this times its own SIF weight (chosen on the paraphrase dev
 * split among 0.5, 1, 2 and 3: docs/recall.md, 0.16).
 */
export const CATEGORY_WEIGHT = 2;

/**
 * What the SIF vectors of the shipped word vectors are (100 dimensions, the common direction
 * removed), known without loading them: a backfill with nothing to encode loads nothing.
 */
export const BUILTIN_SIF_INFO: Readonly<DenseInfo> = {
  provider: "sif",
  model: SIF_MODEL,
  dimension: 100,
};

/**
 * Which of the table's words a vector adds (src/domain/categories.ts): all (`true`, the
 * ranking's dense leg), none (`false`, the v1 vector), or the jargon's plain words and not the
 * tools' category words (`"jargon"`, the vector the confidence reads: docs/recall.md, "0.18:
 * the gate with the category and jargon words").
 */
export type TableWords = boolean | "jargon";

/** Options of {@link SifEncoder}. */
export interface SifOptions {
  /** Take out the vocabulary's common direction (default true). */
  removeCommon?: boolean;
  /**
   * Weight of a tool name's category words ({@link CATEGORY_WEIGHT} by default; 0: none, the
   * v1 encoding).
   */
  categories?: number;
}

/**
 * The vocabulary's common direction: the unit sum of its words' vectors, each weighted by
 * its Zipf frequency p and its SIF weight a / (a + p) (stop words skipped), which is the
 * direction that the SIF vector of a typical sentence shares with every other one.
 */
export function commonDirection(words: WordVectors): Float32Array {
  const harmonic = Math.log(words.size) + 0.5772;
  const sum = words.weightedSum((r, w) => {
    if (STOP_WORDS.has(w)) return 0;
    const p = 1 / ((r + 1) * harmonic);
    return p * SIF_A / (SIF_A + p);
  });
  const out = unit(Float32Array.from(sum));
  if (!out) throw new Error("word vectors: no common direction (all vectors are zero)");
  return out;
}

/** SIF sentence vectors of the given word vectors. */
export class SifEncoder implements DenseEncoder {
  readonly info: DenseInfo;
  readonly #words: WordVectors;
  readonly #common: Float32Array | null;
  readonly #categoryWeight: number;
  readonly #byName = new Map<string, Float32Array | null>();

  /** Encode with `words`; `removeCommon` (default true) takes out their common direction. */
  constructor(words: WordVectors, options: SifOptions = {}) {
    this.#words = words;
    const remove = options.removeCommon ?? true;
    this.#common = remove ? commonDirection(words) : null;
    this.#categoryWeight = options.categories ?? CATEGORY_WEIGHT;
    const w = this.#categoryWeight;
    const model = w <= 0 ? SIF_MODEL_V1 : w === CATEGORY_WEIGHT ? SIF_MODEL : `${SIF_MODEL}-c${w}`;
    this.info = {
      provider: "sif",
      model: remove ? model : `${model}-raw`,
      dimension: words.dimension,
    };
  }

  /**
   * The weighted sum of a tool name's category words (each its SIF weight times the category
   * weight), made once per name; null when none of them is known.
   */
  #categoryVector(name: string): Float32Array | null {
    const had = this.#byName.get(name);
    if (had !== undefined) return had;
    const words = this.#words;
    const harmonic = Math.log(words.size) + 0.5772;
    let out: Float32Array | null = null;
    for (const c of categoriesOf(name) ?? []) {
      const r = words.rank(c);
      if (r === undefined || STOP_WORDS.has(c)) continue;
      const p = 1 / ((r + 1) * harmonic);
      const wt = Math.fround(this.#categoryWeight * SIF_A / (SIF_A + p));
      const v = words.vector(c)!;
      out ??= new Float32Array(words.dimension);
      for (let j = 0; j < v.length; j++) out[j] += wt * v[j];
    }
    this.#byName.set(name, out);
    return out;
  }

  /** The word vectors it encodes with. */
  get words(): WordVectors {
    return this.#words;
  }

  /**
   * The SIF sum of a text (its known words, and each tool name's category words, unless
   * `categories` says otherwise: {@link TableWords}), not yet normalised; null when it has
   * nothing known.
   */
  sum(text: string, categories: TableWords = true): Float32Array | null {
    const v = this.#words.sentence(text);
    return categories ? this.#withCategories(v, text, categories === "jargon") : v;
  }

  /**
   * `v` (the words' sum of `text`, changed in place) plus its names' category words (with
   * `jargonOnly`, of its jargon words only).
   */
  #withCategories(v: Float32Array | null, text: string, jargonOnly = false): Float32Array | null {
    if (this.#categoryWeight <= 0) return v;
    for (const name of namesIn(text)) {
      if (jargonOnly && !isJargon(name)) continue;
      const c = this.#categoryVector(name);
      if (!c) continue;
      v ??= new Float32Array(this.#words.dimension);
      for (let j = 0; j < v.length; j++) v[j] += c[j];
    }
    return v;
  }

  /** The sum without the common direction, at unit length. */
  #finish(v: Float32Array | null): Float32Array | null {
    if (!v) return null;
    const u = this.#common;
    if (u) {
      let d = 0;
      for (let i = 0; i < v.length; i++) d += v[i] * u[i];
      for (let i = 0; i < v.length; i++) v[i] -= d * u[i];
    }
    return unit(v);
  }

  /**
   * The unit vector of one text, or null when it has no known word; `categories` false
   * leaves out the table's words (the v1 vector), `"jargon"` keeps the jargon's plain words
   * only (the vector the confidence reads).
   */
  vector(text: string, categories: TableWords = true): Float32Array | null {
    return this.#finish(this.sum(text, categories));
  }

  /**
   * The unit vector of `text` from its words' sentence vector (`words.sentence(text)` of
   * {@link words}, as a search's re-rank has computed it; copied, not changed): the same
   * vector as {@link vector}, without summing the words again.
   */
  fromSentence(sentence: Float32Array | null, text: string): Float32Array | null {
    return this.#finish(this.#withCategories(sentence && sentence.slice(), text));
  }

  encode(texts: string[]): Promise<(Float32Array | null)[]> {
    return Promise.resolve(texts.map((t) => this.vector(t)));
  }
}

let builtin: Promise<SifEncoder> | undefined;

/** The SIF encoder of the word vectors that ship with Mneme, made once per process. */
export function builtinSif(): Promise<SifEncoder> {
  // A failed load is not kept (as the word vectors' own): the next call tries again.
  builtin ??= builtinWordVectors().then((w) => new SifEncoder(w));
  builtin.catch(() => builtin = undefined);
  return builtin;
}
