/**
 * Tool names' category words in the dense leg (src/domain/categories.ts, src/embed/sif.ts):
 * a memory that names the tool is found for a prompt that names its category, the prompt hook
 * does not inject it for an unrelated prompt, and a database encoded by the v1 vectors is
 * re-encoded in place, and so is one of v2 (0.16's smaller table) and one of v3 (0.17's table,
 * without developers' jargon); the confidence's dense cosine keeps the jargon's words only.
 */
import assert from "node:assert/strict";
import { pgliteService } from "../helpers.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";
import {
  builtinSif,
  SIF_MODEL,
  SIF_MODEL_V1,
  SIF_MODEL_V2,
  SIF_MODEL_V3,
  SifEncoder,
} from "../../src/embed/sif.ts";
import { dot } from "../../src/embed/dense.ts";
import { explainSearch } from "../../src/memory/diagnostics.ts";
import { calibrated } from "../../src/memory/dense.ts";
import { DEFAULT_MIN_CONFIDENCE, formatRecall } from "../../src/memcli/commands/recall.ts";

const MEMORIES = [
  "The monorepo installs with pnpm; lockfile changes need a review.",
  "The staging database is backed up every night to the bucket acme-backups.",
  "Our on-call rotation changes every Monday at 9am.",
  "The payment service retries failed charges three times with exponential backoff.",
  "Release notes are written by whoever merges the last change of the week.",
];

Deno.test("sif v2: a tool name contributes its category words", async () => {
  const sif = await builtinSif();
  assert.equal(sif.info.model, SIF_MODEL);
  assert.equal(SIF_MODEL, "glove-100d-50k-sif-v4");
  // Another weight is another encoding (a database of it would be re-encoded).
  assert.equal(new SifEncoder(sif.words, { categories: 0 }).info.model, SIF_MODEL_V1);
  assert.notEqual(new SifEncoder(sif.words, { categories: 1 }).info.model, SIF_MODEL);
  const query = sif.vector("which package manager do we use")!;
  const memory = MEMORIES[0];
  const withCategories = dot(query, sif.vector(memory)!);
  const without = dot(query, sif.vector(memory, false)!);
  assert.ok(withCategories > without + 0.1, `${withCategories} vs ${without}`);
  // A text whose only informative word is a name the vectors lack still has a vector.
  assert.equal(sif.vector("pnpm", false), null);
  assert.ok(sif.vector("pnpm"));
});

Deno.test("sif v4: a word of developers' jargon contributes its plain words", async () => {
  const sif = await builtinSif();
  const query = sif.vector("users cannot sign in to their account")!;
  const memory = "The login page times out after the refactor.";
  const withJargon = dot(query, sif.vector(memory)!);
  const without = dot(query, sif.vector(memory, false)!);
  assert.ok(withJargon > without + 0.1, `${withJargon} vs ${without}`);
  assert.equal(sif.vector("refactor", false), null);
  assert.ok(sif.vector("refactor"));
});

Deno.test("sif: the confidence's vector keeps the jargon's plain words, not the tools' categories", async () => {
  const sif = await builtinSif();
  // Jargon alone: the same vector as with the whole table.
  const jargon = "The login page times out after the refactor.";
  assert.deepEqual([...sif.vector(jargon, "jargon")!], [...sif.vector(jargon)!]);
  assert.ok(sif.vector("refactor", "jargon"));
  // A tool's name alone: the plain vector (none when the vectors lack the name).
  assert.equal(sif.vector("pnpm", "jargon"), null);
  const tool = "We install packages with pnpm, never npm.";
  assert.deepEqual([...sif.vector(tool, "jargon")!], [...sif.vector(tool, false)!]);
  // Both: the jargon's words and not the tool's.
  const both = "After the refactor the monorepo installs with pnpm.";
  const v = sif.vector(both, "jargon")!;
  assert.notDeepEqual([...v], [...sif.vector(both)!]);
  assert.notDeepEqual([...v], [...sif.vector(both, false)!]);
});

Deno.test("confidence: its dense cosine reads the jargon's plain words, not the tools' categories", async () => {
  const { service, close } = await pgliteService();
  try {
    const sif = await builtinSif();
    const login = "The login page times out after the refactor.";
    const pnpmOnly = "We install packages with pnpm, never npm.";
    for (const content of [login, pnpmOnly, ...MEMORIES.slice(1)]) {
      await service.create({ content, scope: "project", project: "web" });
    }
    const semanticOf = async (query: string, content: string) => {
      const found = await explainSearch(service, { query, project: "web", limit: 10 });
      const r = found.find((x) => x.memory.content === content);
      assert.ok(r, `${content} found for ${query}`);
      return r.signals.semantic;
    };
    const cos = (a: string, b: string, words: boolean | "jargon") =>
      calibrated(dot(sif.vector(a, words)!, sif.vector(b, words)!));
    const signIn = "users cannot sign in to their account";
    const got = await semanticOf(signIn, login);
    assert.ok(Math.abs(got - cos(signIn, login, "jargon")) < 1e-6, `${got}`);
    assert.ok(got > cos(signIn, login, false) + 0.05, `${got} vs ${cos(signIn, login, false)}`);
    const manager = "which package manager do we use";
    const pnpm = await semanticOf(manager, pnpmOnly);
    assert.ok(Math.abs(pnpm - cos(manager, pnpmOnly, false)) < 1e-6, `${pnpm}`);
    assert.ok(pnpm < cos(manager, pnpmOnly, true) - 0.05, `${pnpm}`);
  } finally {
    await close();
  }
});

Deno.test("sif v2: the vector from a re-rank's word sentence is the vector of the text", async () => {
  const sif = await builtinSif();
  for (const text of [...MEMORIES, "pnpm", "the and of", "Grafana on k8s, alerts to PagerDuty"]) {
    const sentence = sif.words.sentence(text);
    const copy = sentence && sentence.slice();
    const from = sif.fromSentence(sentence, text);
    assert.deepEqual(from && [...from], sif.vector(text) && [...sif.vector(text)!], text);
    assert.deepEqual(sentence, copy, "the sentence is not changed");
  }
});

Deno.test("categories: a memory about pnpm is found for the package manager; not injected for an unrelated prompt", async () => {
  const { service, close } = await pgliteService();
  try {
    let target = "";
    for (const content of MEMORIES) {
      const { memory } = await service.create({ content, scope: "project", project: "web" });
      if (content.includes("pnpm")) target = memory.id;
    }
    const found = await service.search({
      query: "which package manager do we use?",
      project: "web",
      limit: 3,
    });
    assert.equal(found[0]?.memory.id, target, found.map((r) => r.memory.content).join(" | "));
    const format = {
      project: "web",
      limit: 3,
      maxChars: 4000,
      minScore: 0.1,
      minConfidence: DEFAULT_MIN_CONFIDENCE,
    };
    for (
      const prompt of [
        "how do I rotate the database password?",
        "what should I cook for dinner tonight",
        "which linter should the javascript code use?",
      ]
    ) {
      const results = await service.search({ query: prompt, project: "web", limit: 11 });
      assert.ok(!formatRecall(results, format).includes("pnpm"), prompt);
    }
  } finally {
    await close();
  }
});

for (const old of [SIF_MODEL_V1, SIF_MODEL_V2, SIF_MODEL_V3]) {
  Deno.test(`categories: a database with the ${old} vectors is re-encoded in place`, async () => {
    const { service, db, close } = await pgliteService();
    try {
      for (const content of MEMORIES) {
        await service.create({ content, scope: "project", project: "web" });
      }
      const read = () =>
        db.query<{ content: string; d: string }>(
          "select content, dense::text as d from memories order by id",
        );
      const current = await read();
      // As a database of an older encoding is: its vectors (here v1's), recorded as complete.
      const sif = await builtinSif();
      for (const content of MEMORIES) {
        await db.query("update memories set dense = $1::vector where content = $2", [
          `[${[...sif.vector(content, false)!].join(",")}]`,
          content,
        ]);
      }
      await db.exec(
        `update mneme_meta set dense_model = '${old}', dense_cursor = null`,
      );
      assert.notDeepEqual(await read(), current);
      const done = await service.backfillDense();
      assert.deepEqual(done, { encoded: MEMORIES.length, finished: true });
      assert.deepEqual(await read(), current);
      assert.equal((await storeOf(service).denseState()).complete?.model, SIF_MODEL);
    } finally {
      await close();
    }
  });
}
