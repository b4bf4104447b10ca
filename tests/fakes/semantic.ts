/**
 * A deterministic semantic stand-in for an embedding model: words of one meaning share a
 * concept (a small hand-made table: "puppy", "dog" and "pet" are one concept), and a text's
 * vector is the hashed sum of its concepts, sublinear in repeats, L2-normalised. Unlike the
 * builtin embedder it finds paraphrases without shared words; like a real model it knows
 * nothing of the corpus, so a word that appears everywhere weighs as much as a rare one.
 * Used by tests and by `deno task bench:recall --embedder stand-in` to check that hybrid
 * search is not worse than either of its sides with a model that carries meaning.
 * @module
 */
import { hashEmbed } from "../../src/embed/builtin.ts";
import type { Embedder } from "../../src/embed/embedder.ts";
import type { EmbedderInfo } from "../../src/memory/types.ts";

const CONCEPTS: string[][] = [
  ["car", "cars", "vehicle", "automobile", "truck", "drive", "driving"],
  ["dog", "dogs", "puppy", "pup", "puppies", "pet", "pets", "hound"],
  ["doctor", "physician", "hospital", "clinic", "nurse", "medical"],
  ["job", "work", "career", "employment", "office", "position", "internship"],
  ["film", "movie", "movies", "cinema", "screenplay", "script"],
  ["happy", "glad", "joyful", "excited", "thrilled"],
  ["paint", "painting", "painted", "artwork", "drawing", "art", "canvas"],
  ["run", "running", "jog", "jogging", "marathon", "race"],
  ["book", "books", "novel", "novels", "reading", "read", "library"],
  ["music", "song", "songs", "guitar", "piano", "concert", "violin"],
  ["family", "kids", "children", "mother", "father", "parents", "mom", "dad"],
  ["travel", "trip", "vacation", "journey", "road", "holiday"],
  ["cook", "cooking", "recipe", "recipes", "bake", "baking", "dish", "dessert", "meal"],
  ["deploy", "deploys", "release", "releases", "ship", "rollout", "deployment"],
  ["database", "postgres", "sql", "db"],
  ["error", "errors", "failure", "crash", "bug", "fault"],
];
const CONCEPT = new Map<string, string>();
for (const group of CONCEPTS) for (const w of group) CONCEPT.set(w, group[0]);

/** The stand-in's vector of one text. */
export function standInVector(text: string, dim: number): number[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const counts = new Map<string, number>();
  for (const w of words) {
    if (w.length < 3) continue;
    const c = CONCEPT.get(w) ?? w;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const v = new Array<number>(dim).fill(0);
  for (const [c, n] of counts) {
    // One fixed random unit direction per concept (hash-v1 of the concept name alone).
    const dir = hashEmbed(`concept ${c}`, dim);
    const w = 1 + Math.log(n);
    for (let i = 0; i < dim; i++) v[i] += w * dir[i];
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? hashEmbed(text, dim) : v.map((x) => x / norm);
}

/** The stand-in embedder (provider `stand-in`, model `concepts-v1`). */
export class StandInEmbedder implements Embedder {
  readonly info: EmbedderInfo;

  /** Create with a dimension (default 256). */
  constructor(dimension = 256) {
    this.info = { provider: "stand-in", model: "concepts-v1", dimension };
  }

  embed(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((t) => standInVector(t, this.info.dimension)));
  }

  probe(): Promise<EmbedderInfo> {
    return Promise.resolve(this.info);
  }
}
