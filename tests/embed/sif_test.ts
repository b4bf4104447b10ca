/**
 * The dense leg's parts (src/embed/dense.ts, src/embed/sif.ts): SIF sentence vectors are
 * deterministic unit vectors, null for a text without a known word, without the vocabulary's
 * common direction, loaded from the file that ships (no network); and the dense leg of a
 * model's configuration is the model's own vector.
 */
import assert from "node:assert/strict";
import { BuiltinEmbedder } from "../../src/embed/builtin.ts";
import { denseLegOf, dot, sameDense, unit } from "../../src/embed/dense.ts";
import { OllamaEmbedder } from "../../src/embed/remote.ts";
import { builtinSif, commonDirection, SIF_MODEL, SifEncoder } from "../../src/embed/sif.ts";
import { decodeWordVectors, encodeWordVectors } from "../../src/embed/words.ts";

const norm = (v: Float32Array) => Math.sqrt(dot(v, v));

/** A small vocabulary: "the" (a stop word) first, then words along three axes. */
function tiny() {
  const words = ["the", "cat", "kitten", "invoice", "billing", "zebra"];
  const vectors = [[1, 1, 1], [1, 0.1, 0], [0.9, 0.2, 0], [0, 1, 0.1], [0, 0.9, 0.2], [0, 0, 1]];
  return decodeWordVectors(encodeWordVectors(words, vectors, 3));
}

Deno.test("sif: vectors are unit length and deterministic", async () => {
  const sif = new SifEncoder(tiny());
  const [a, b, c] = await sif.encode(["The cat and the kitten", "The cat and the kitten", "zebra"]);
  assert.ok(a && b && c);
  assert.ok(Math.abs(norm(a) - 1) < 1e-6);
  assert.ok(Math.abs(norm(c) - 1) < 1e-6);
  assert.deepEqual([...a], [...b]);
  // A second encoder over the same words gives the same bytes.
  const again = new SifEncoder(tiny()).vector("The cat and the kitten")!;
  assert.deepEqual([...again], [...a]);
});

Deno.test("sif: related texts are nearer than unrelated ones", () => {
  const sif = new SifEncoder(tiny(), { removeCommon: false });
  const v = (t: string) => sif.vector(t)!;
  assert.ok(dot(v("cat"), v("kitten")) > dot(v("cat"), v("invoice")));
  assert.ok(dot(v("billing invoice"), v("invoice")) > dot(v("billing invoice"), v("kitten")));
});

Deno.test("sif: empty, unknown-word and stop-word-only texts have no vector", async () => {
  const sif = new SifEncoder(tiny());
  assert.deepEqual(await sif.encode(["", "   ", "8080 --force", "grüße", "the the THE"]), [
    null,
    null,
    null,
    null,
    null,
  ]);
  // Unknown words beside a known one are skipped, not fatal.
  assert.ok(sif.vector("cat 8080 grüße"));
});

Deno.test("sif: the common direction is taken out, and the model name says so", () => {
  const words = tiny();
  const u = commonDirection(words);
  assert.ok(Math.abs(norm(u) - 1) < 1e-6);
  const sif = new SifEncoder(words);
  for (const t of ["cat", "billing invoice", "zebra kitten"]) {
    assert.ok(Math.abs(dot(sif.vector(t)!, u)) < 1e-5, t);
  }
  assert.equal(sif.info.model, SIF_MODEL);
  assert.equal(new SifEncoder(words, { removeCommon: false }).info.model, `${SIF_MODEL}-raw`);
  assert.ok(!sameDense(sif.info, new SifEncoder(words, { removeCommon: false }).info));
});

Deno.test("word vectors: weightedSum is the weighted sum of the vectors, skipping zeros", () => {
  const words = tiny();
  const sum = words.weightedSum((r, w) => (w === "the" ? 0 : r + 1));
  const want = new Float64Array(3);
  for (let r = 1; r < words.size; r++) {
    const v = words.vector(words.word(r)!)!;
    for (let j = 0; j < 3; j++) want[j] += (r + 1) * v[j];
  }
  for (let j = 0; j < 3; j++) assert.ok(Math.abs(sum[j] - want[j]) < 1e-5, `${sum[j]} ${want[j]}`);
});

Deno.test("sif that ships: loaded from the file, no network; paraphrases nearer", async () => {
  // The test runs with -A; a fetch would show as a network access: forbid it here.
  const original = globalThis.fetch;
  globalThis.fetch = () => Promise.reject(new Error("no network in this test"));
  try {
    const sif = await builtinSif();
    assert.equal(sif.info.provider, "sif");
    assert.equal(sif.info.dimension, 100);
    const v = (t: string) => sif.vector(t)!;
    const query = v("how do I sign in to the admin console");
    assert.ok(
      dot(query, v("Login to the dashboard uses SSO through Okta")) >
        dot(query, v("Invoices are rounded to two decimals before tax")),
    );
    assert.equal(sif.vector("the and of to"), null);
    assert.strictEqual(await builtinSif(), sif, "made once per process");
  } finally {
    globalThis.fetch = original;
  }
});

Deno.test("dense leg: a model's vector is the leg; the builtin one gets a separate encoder", () => {
  let made = 0;
  const separate = () => {
    made++;
    return new SifEncoder(tiny());
  };
  const ollama = new OllamaEmbedder({ url: "http://127.0.0.1:1", model: "nomic-embed-text" });
  const leg = denseLegOf(ollama, separate);
  assert.equal(leg.kind, "embedding");
  assert.equal(made, 0, "no word vectors for a model's configuration");
  const builtin = denseLegOf(new BuiltinEmbedder(), separate);
  assert.equal(builtin.kind, "separate");
  assert.equal(made, 1);
});

Deno.test("dense: unit() refuses zero and non-finite vectors", () => {
  assert.equal(unit(new Float32Array(4)), null);
  assert.equal(unit(new Float32Array([NaN, 1])), null);
  const v = unit(new Float32Array([3, 4]))!;
  assert.deepEqual([...v].map((x) => +x.toFixed(6)), [0.6, 0.8]);
});
