/**
 * The word-vector file (src/embed/words.ts): the encoding round-trips, malformed files are
 * refused, SIF weights rare words above common ones, and the vectors that ship place related
 * words nearer than unrelated ones.
 */
import assert from "node:assert/strict";
import {
  builtinWordVectors,
  cosine,
  decodeWordVectors,
  encodeWordVectors,
  readWordVectorFile,
} from "../../src/embed/words.ts";
import { WORD_VECTORS_URL, wordVectorsFiles } from "../../src/common/models.ts";

const hex = (b: ArrayBuffer) =>
  Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("word vectors: encode and decode round-trip within 8-bit precision", () => {
  const words = ["alpha", "beta", "gamma"];
  const vectors = [[1, -0.5, 0.25], [0, 2, -2], [0.3, 0.3, 0.3]];
  const wv = decodeWordVectors(encodeWordVectors(words, vectors, 3));
  assert.equal(wv.size, 3);
  assert.equal(wv.dimension, 3);
  // One known word: the sentence vector is that word's vector times its SIF weight.
  const g = wv.sentence("Gamma!")!;
  assert.ok(Math.abs(cosine(g, new Float32Array([1, 1, 1])) - 1) < 1e-6);
  const b = wv.sentence("beta")!;
  assert.ok(Math.abs(b[1] / b[2] + 1) < 0.01);
  assert.equal(wv.sentence("nothing known here"), null);
});

Deno.test("word vectors: a malformed or truncated file is refused", () => {
  const bytes = encodeWordVectors(["a", "b"], [[1, 2], [3, 4]], 2);
  assert.throws(() => decodeWordVectors(bytes.subarray(0, bytes.length - 1)), /truncated/);
  const bad = bytes.slice();
  bad[0] = 0;
  assert.throws(() => decodeWordVectors(bad), /not a version 1/);
});

Deno.test("word vectors: a rare word weighs more than a common one (SIF)", () => {
  // Two orthogonal words; "common" ranks first (most frequent), "rare" last of 1,000.
  const words = ["common", ...Array.from({ length: 998 }, (_, i) => `w${i}`), "rare"];
  const vectors = words.map((w) => (w === "common" ? [1, 0] : w === "rare" ? [0, 1] : [0.5, 0.5]));
  const wv = decodeWordVectors(encodeWordVectors(words, vectors, 2));
  const v = wv.sentence("common rare")!;
  assert.ok(v[1] > v[0] * 5, `rare ${v[1]} should outweigh common ${v[0]}`);
});

Deno.test("word vectors that ship: related words are nearer than unrelated ones", async () => {
  const wv = await builtinWordVectors();
  assert.equal(wv.dimension, 100);
  assert.equal(wv.size, 50_000);
  const sim = (a: string, b: string) => cosine(wv.sentence(a)!, wv.sentence(b)!);
  assert.ok(sim("pets", "cat") > sim("pets", "invoice"));
  assert.ok(sim("married husband", "wedding anniversary") > sim("married husband", "compiler"));
  assert.equal(wv.sentence("8080 4711 --"), null);
});

Deno.test("word vectors that ship: the same bytes as 0.8's base64 module decoded to", async () => {
  // SHA-256 of models/glove-100d-50k.b64 (0.8.0) decoded: the vectors did not change.
  const bytes = await readWordVectorFile();
  assert.equal(bytes.length, 5_609_645);
  assert.equal(
    hex(await crypto.subtle.digest("SHA-256", bytes)),
    "8d393271349659200ebb26a9c0c1f6bae2f23b7ed6a3a1d26b97ce0432909ea5",
  );
  assert.deepEqual(wordVectorsFiles(), [
    new URL("../../models/glove-100d-50k.bin", import.meta.url).pathname,
  ]);
  assert.deepEqual(wordVectorsFiles(new URL("https://example.com/models/x.bin")), []);
});

Deno.test("word vectors: fetched when the modules are served over the network", async () => {
  const file = await Deno.readFile(WORD_VECTORS_URL);
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req) =>
      new URL(req.url).pathname === "/models/glove-100d-50k.bin"
        ? new Response(file)
        : new Response("no", { status: 404 }),
  );
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    assert.deepEqual(await readWordVectorFile(new URL(`${base}/models/glove-100d-50k.bin`)), file);
    await assert.rejects(() => readWordVectorFile(new URL(`${base}/nope.bin`)), /HTTP 404/);
  } finally {
    ac.abort();
    await server.finished;
  }
});
