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

/** Model name of the SIF vectors (bumped when the encoding changes). */
export const SIF_MODEL = "glove-100d-50k-sif-v1";

/**
 * What the SIF vectors of the shipped word vectors are (100 dimensions, the common direction
 * removed), known without loading them: a backfill with nothing to encode loads nothing.
 */
export const BUILTIN_SIF_INFO: Readonly<DenseInfo> = {
  provider: "sif",
  model: SIF_MODEL,
  dimension: 100,
};

/** Options of {@link SifEncoder}. */
export interface SifOptions {
  /** Take out the vocabulary's common direction (default true). */
  removeCommon?: boolean;
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

  /** Encode with `words`; `removeCommon` (default true) takes out their common direction. */
  constructor(words: WordVectors, options: SifOptions = {}) {
    this.#words = words;
    const remove = options.removeCommon ?? true;
    this.#common = remove ? commonDirection(words) : null;
    this.info = {
      provider: "sif",
      model: remove ? SIF_MODEL : `${SIF_MODEL}-raw`,
      dimension: words.dimension,
    };
  }

  /** The unit vector of one text, or null when it has no known word. */
  vector(text: string): Float32Array | null {
    const v = this.#words.sentence(text);
    if (!v) return null;
    const u = this.#common;
    if (u) {
      let d = 0;
      for (let i = 0; i < v.length; i++) d += v[i] * u[i];
      for (let i = 0; i < v.length; i++) v[i] -= d * u[i];
    }
    return unit(v);
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
