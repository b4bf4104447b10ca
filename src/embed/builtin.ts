/**
 * The builtin embedder: a deterministic hashing vectorizer. It needs no network and no
 * model files. It is lexical, not semantic: texts that share words (and word pieces)
 * are similar; paraphrases with different words are not.
 *
 * Features: word unigrams (weight 1), word bigrams (0.5) and character 4-grams of each
 * word without digits (0.3, so that "migration" and "migrations" meet, while "8080" and
 * "9090" stay distinct values of one statement). Common English stop words are
 * skipped. Each feature is hashed (FNV-1a, 32 bit) to a bucket, with a sign from a second
 * hash to cancel collisions on average; the vector is L2-normalised.
 * @module
 */
import type { EmbedderInfo } from "../memory/types.ts";
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

/** Embed one text into `dim` dimensions. */
export function hashEmbed(text: string, dim: number): number[] {
  const v = new Float64Array(dim);
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature, 0);
    const sign = (fnv1a(feature, 0x9e3779b9) & 1) === 0 ? 1 : -1;
    v[h % dim] += sign * weight;
  };
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

/** The builtin embedder; model name `hash-v1`. */
export class BuiltinEmbedder implements Embedder {
  readonly info: EmbedderInfo;

  /** Create with a dimension (default 768). */
  constructor(dimension = 768) {
    this.info = { provider: "builtin", model: "hash-v1", dimension };
  }

  embed(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((t) => hashEmbed(t, this.info.dimension)));
  }

  probe(): Promise<EmbedderInfo> {
    return Promise.resolve(this.info);
  }
}
