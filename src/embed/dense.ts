/**
 * The dense leg of search: a sentence vector per text that carries meaning, beside the lexical
 * index, so that a memory phrased in other words than the query can be retrieved and ranked.
 *
 * Where the vector comes from depends on the configured embedder:
 *
 * - **builtin** (`hash-v2`, lexical): the embedder's own vector repeats the lexical signal, so
 *   the dense leg is a second vector, a {@link DenseEncoder} (the SIF sentence vectors of
 *   src/embed/sif.ts by default), stored in a column of its own.
 * - **ollama**, **openai**: the model's vector already carries meaning; it is the dense leg,
 *   and nothing more is stored (the `embedding` column serves both).
 *
 * {@link denseLegOf} says which of the two a configuration has, so that the store and the
 * search need one test, not one per provider.
 * @module
 */
import type { Embedder, EmbedderInfo } from "./embedder.ts";

/** What made a dense vector: recorded beside the stored vectors, as {@link EmbedderInfo} is. */
export interface DenseInfo {
  /** `sif` (word vectors), `use` (Universal Sentence Encoder Lite), or the embedder's provider. */
  provider: string;
  /** Model and version of the encoding (a change means the stored vectors are re-encoded). */
  model: string;
  /** Vector dimension. */
  dimension: number;
}

/** Turns texts into unit sentence vectors that carry meaning. */
export interface DenseEncoder {
  /** What makes the vectors. */
  readonly info: DenseInfo;
  /**
   * The L2-normalised vector of each text, in order; null for a text with nothing the
   * encoder knows (no known word: code, numbers, another script), which has no dense vector
   * and is found by the lexical leg alone.
   */
  encode(texts: string[]): Promise<(Float32Array | null)[]>;
}

/** True when two dense encoders would make different vectors. */
export function sameDense(a: DenseInfo, b: DenseInfo): boolean {
  return a.provider === b.provider && a.model === b.model && a.dimension === b.dimension;
}

/**
 * The dense leg of a configuration: the embedder's own vector (a model's: ollama, openai), or
 * a separate encoder's (the builtin embedder, which is lexical).
 */
export type DenseLeg =
  | { kind: "embedding"; info: DenseInfo }
  | { kind: "separate"; encoder: DenseEncoder };

/**
 * The dense leg for `embedder`: its own vectors when it is a model (they are stored already),
 * else `separate()` (called only then, so that a model's configuration loads no word vectors).
 */
export function denseLegOf(embedder: Embedder, separate: () => DenseEncoder): DenseLeg {
  const e: EmbedderInfo = embedder.info;
  if (e.provider !== "builtin") {
    return {
      kind: "embedding",
      info: { provider: e.provider, model: e.model, dimension: e.dimension },
    };
  }
  return { kind: "separate", encoder: separate() };
}

/** Scale `v` to unit length in place; null when it is all zeros (or not finite). */
export function unit(v: Float32Array): Float32Array | null {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  if (!(n > 0) || !Number.isFinite(n)) return null;
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] *= s;
  return v;
}

/** Dot product of two vectors of one length: the cosine of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i] * b[i];
  return d;
}
