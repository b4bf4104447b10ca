/**
 * The builtin embedder: a deterministic hashing vectorizer. It needs no network and no
 * model files. It is lexical, not semantic: texts that share words (and word pieces)
 * are similar; paraphrases with different words are not.
 *
 * Model `hash-v2` (the default): the index terms of search (src/domain/terms.ts: stop words
 * including question words removed, light stemming, identifiers kept whole as well as in
 * parts), each term weighted 1 + ln(tf) and by length (a word of 3 letters 0.55, of 8 or more
 * 1: short words are common words), bigrams of adjacent terms 0.25, and character trigrams
 * of each word sharing 0.3 of the word's weight (so that spellings near each other meet
 * without outweighing whole words). Digits and identifiers get no trigrams.
 *
 * Model `hash-v1` (databases made before 0.7; upgraded at the daemon's start): word unigrams (weight 1), word bigrams (0.5) and character 4-grams of each
 * word without digits (0.3, so that "migration" and "migrations" meet, while "8080" and
 * "9090" stay distinct values of one statement). Common English stop words are
 * skipped. Each feature is hashed (FNV-1a, 32 bit) to a bucket, with a sign from a second
 * hash to cancel collisions on average; the vector is L2-normalised.
 * @module
 */
import { DEFAULT_EMBEDDING_DIM } from "../config.ts";
import { terms } from "../domain/terms.ts";
import type { EmbedderInfo } from "./embedder.ts";
import type { Embedder } from "./embedder.ts";

const STOP = new Set(
  ("a an and are as at be but by for from has have i in is it its of on or that the this to was " +
    "were will with we you they our your their not no do does did so if then than there these those")
    .split(" "),
);

function fnv1a(text: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Split text into lower-case word tokens (letters and digits of any script). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}_]+/gu) ?? [];
}

function adder(v: Float64Array): (feature: string, weight: number) => void {
  return (feature, weight) => {
    const h = fnv1a(feature, 0);
    const sign = (fnv1a(feature, 0x9e3779b9) & 1) === 0 ? 1 : -1;
    v[h % v.length] += sign * weight;
  };
}

/** Embed one text into `dim` dimensions with model `hash-v2`. */
export function hashEmbedV2(text: string, dim: number): number[] {
  const v = new Float64Array(dim);
  const add = adder(v);
  const ts = terms(text);
  const tf = new Map<string, number>();
  for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
  for (const [t, n] of tf) {
    const w = (1 + Math.log(n)) * Math.min(1, 0.25 + t.length * 0.1);
    add(`w:${t}`, w);
    if (/^\p{L}+$/u.test(t) && t.length > 3) {
      const padded = `^${t}$`;
      const grams = padded.length - 2;
      for (let j = 0; j + 3 <= padded.length; j++) {
        add(`c:${padded.slice(j, j + 3)}`, (0.3 * w) / Math.sqrt(grams));
      }
    }
  }
  for (let i = 0; i + 1 < ts.length; i++) add(`b:${ts[i]} ${ts[i + 1]}`, 0.25);
  return normalise(v, text);
}

function normalise(v: Float64Array, text: string): number[] {
  const dim = v.length;
  let norm = 0;
  for (let i = 0; i < dim; i++) norm += v[i] * v[i];
  norm = Math.sqrt(norm);
  const out = new Array<number>(dim);
  if (norm === 0) {
    // Text without words (only punctuation): a fixed unit vector keeps the math defined.
    out.fill(0);
    out[fnv1a(text, 1) % dim] = 1;
    return out;
  }
  for (let i = 0; i < dim; i++) out[i] = v[i] / norm;
  return out;
}

/** Embed one text into `dim` dimensions with model `hash-v1` (kept for old databases and fakes). */
export function hashEmbed(text: string, dim: number): number[] {
  const v = new Float64Array(dim);
  const add = adder(v);
  const words = tokenize(text).filter((w) => !STOP.has(w));
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    add(`w:${w}`, 1);
    if (i + 1 < words.length) add(`b:${w} ${words[i + 1]}`, 0.5);
    const padded = `^${w}$`;
    if (padded.length > 4 && !/\d/.test(w)) {
      for (let j = 0; j + 4 <= padded.length; j++) add(`c:${padded.slice(j, j + 4)}`, 0.3);
    }
  }
  return normalise(v, text);
}

/** Models of the builtin embedder, newest first. */
export const BUILTIN_MODELS = ["hash-v2", "hash-v1"] as const;
/** A builtin model name. */
export type BuiltinModel = typeof BUILTIN_MODELS[number];

/** The builtin embedder; model `hash-v2` unless another builtin model is asked for. */
export class BuiltinEmbedder implements Embedder {
  readonly info: EmbedderInfo;
  readonly #fn: (text: string, dim: number) => number[];

  /** Create with a dimension (default {@link DEFAULT_EMBEDDING_DIM}) and a model (default `hash-v2`). */
  constructor(dimension = DEFAULT_EMBEDDING_DIM, model: BuiltinModel = "hash-v2") {
    this.info = { provider: "builtin", model, dimension };
    this.#fn = model === "hash-v1" ? hashEmbed : hashEmbedV2;
  }

  embed(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((t) => this.#fn(t, this.info.dimension)));
  }

  probe(): Promise<EmbedderInfo> {
    return Promise.resolve(this.info);
  }
}
