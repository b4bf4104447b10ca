/** The builtin embedder: deterministic, normalised, lexical ranking. */
import assert from "node:assert/strict";
import { BuiltinEmbedder, hashEmbed, hashEmbedV2, tokenize } from "../../src/embed/builtin.ts";
import { DEFAULT_EMBEDDING_DIM } from "../../src/config.ts";

function cos(a: number[], b: number[]): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

Deno.test("builtin embedder is deterministic and L2-normalised", async () => {
  const a = new BuiltinEmbedder();
  const b = new BuiltinEmbedder();
  assert.deepEqual(a.info, {
    provider: "builtin",
    model: "hash-v2",
    dimension: DEFAULT_EMBEDDING_DIM,
  });
  assert.equal(new BuiltinEmbedder(768, "hash-v1").info.model, "hash-v1");
  assert.deepEqual(await a.probe(), a.info);
  const texts = ["Deploys run on Fridays", "Use pnpm, not npm", "!!!", ""];
  const [va, vb] = [await a.embed(texts), await b.embed(texts)];
  assert.deepEqual(va, vb);
  assert.deepEqual(await a.embed([texts[0]]), [va[0]], "batching does not change vectors");
  for (const v of va) {
    assert.equal(v.length, DEFAULT_EMBEDDING_DIM);
    assert.ok(v.every(Number.isFinite));
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-9, "unit length, also without words");
  }
  assert.equal((await new BuiltinEmbedder(64).embed(["x y z"]))[0].length, 64);
  assert.notDeepEqual(va[0], va[1]);
  assert.deepEqual(
    hashEmbed("Deploys RUN on fridays!", 768),
    hashEmbed("deploys run on fridays", 768),
  );
  assert.deepEqual(
    hashEmbedV2("Deploys RUN on fridays!", 768),
    hashEmbedV2("deploys run on fridays", 768),
  );
});

Deno.test("hash-v2 drops question words and folds word forms; hash-v1 did not", () => {
  const q = "When did Melanie paint the sunrise?";
  const answer = "Melanie: I painted that sunrise last year";
  const distractor = "When did you do that? What did you see there?";
  const [v2q, v2a, v2d] = [q, answer, distractor].map((t) => hashEmbedV2(t, 768));
  assert.ok(cos(v2q, v2a) > 0.5, `answer ${cos(v2q, v2a)}`);
  assert.ok(cos(v2q, v2d) < 0.05, `distractor ${cos(v2q, v2d)}`);
  const [v1q, v1d] = [q, distractor].map((t) => hashEmbed(t, 768));
  assert.ok(cos(v1q, v1d) > 0.2, "hash-v1 let the question words match");
});

Deno.test("builtin embedder ranks paraphrases with shared words above unrelated text", async () => {
  const e = new BuiltinEmbedder();
  const cases: [string, string, string][] = [
    [
      "Deployments to production happen on Friday afternoons",
      "Production deployments happen every Friday",
      "The cat sleeps on the warm windowsill",
    ],
    [
      "Use pnpm instead of npm for installing packages",
      "Install packages with pnpm, never npm",
      "Quarterly revenue grew by twelve percent",
    ],
    [
      "The database migration adds an index on users.email",
      "Migrations: the users email column gets an index",
      "Bananas ripen faster in a paper bag",
    ],
  ];
  for (const [query, paraphrase, unrelated] of cases) {
    const [q, p, u] = await e.embed([query, paraphrase, unrelated]);
    const [sp, su] = [cos(q, p), cos(q, u)];
    assert.ok(
      sp > su + 0.2,
      `"${paraphrase}" (${sp.toFixed(3)}) above "${unrelated}" (${su.toFixed(3)})`,
    );
  }
  // Word pieces: singular and plural meet; distinct numbers stay apart.
  const [m1, m2, other] = await e.embed(["migration", "migrations", "vacation"]);
  assert.ok(cos(m1, m2) > cos(m1, other));
  const [p1, p2] = await e.embed(["the api listens on port 8080", "the api listens on port 9090"]);
  assert.ok(cos(p1, p2) < 0.999, "different numbers give different vectors");
});

Deno.test("tokenize lower-cases and splits on non-word characters of any script", () => {
  assert.deepEqual(tokenize("Hello, WORLD! café_42 über-cool"), [
    "hello",
    "world",
    "café_42",
    "über",
    "cool",
  ]);
});
