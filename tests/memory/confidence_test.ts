/**
 * The confidence of search results and the prompt hook's gate, on embedded PGlite with the
 * builtin embedder: a small project of coding memories gets its memory for in-topic prompts
 * and nothing for off-topic ones (through the hook's own formatting), word forms and short
 * names match, and the confidence of one memory–query pair stays in a small band when a
 * thousand unrelated memories join the project. Each failed before the confidence existed.
 */
import assert from "node:assert/strict";
import {
  DEFAULT_MIN_CONFIDENCE,
  DEFAULT_MIN_SCORE,
  DEFAULT_RECALL_LIMIT,
  DEFAULT_RECALL_MAX_CHARS,
  formatRecall,
  recallSearchLimit,
} from "../../src/memcli/commands/recall.ts";
import { confidenceOf, profileQuery, signalsOf } from "../../src/memory/confidence.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { builtinWordVectors } from "../../src/embed/words.ts";
import { queryVariants, variantsOf } from "../../src/domain/forms.ts";
import { contentWords } from "../../src/capture/dedupe.ts";
import { terms } from "../../src/domain/terms.ts";
import { pgliteService } from "../helpers.ts";
import { IN_TOPIC, MEMORIES, OFF_TOPIC } from "./small_project.ts";

const PROJECT = "shop";

async function withProject(fn: (s: SqlMemoryService) => Promise<void>): Promise<void> {
  const { service, close } = await pgliteService();
  try {
    await service.import(
      MEMORIES.map((m) => ({ ...m, scope: "project" as const, project: PROJECT })),
    );
    await fn(service);
  } finally {
    await close();
  }
}

/** What the prompt hook injects for a prompt, with its defaults. */
async function injected(s: SqlMemoryService, prompt: string): Promise<string> {
  const results = await s.search({
    query: prompt,
    project: PROJECT,
    limit: recallSearchLimit(DEFAULT_RECALL_LIMIT),
  });
  return formatRecall(results, {
    project: PROJECT,
    limit: DEFAULT_RECALL_LIMIT,
    maxChars: DEFAULT_RECALL_MAX_CHARS,
    minScore: DEFAULT_MIN_SCORE,
    minConfidence: DEFAULT_MIN_CONFIDENCE,
  });
}

Deno.test("small project: in-topic prompts get their memory, off-topic prompts get nothing", () =>
  withProject(async (s) => {
    const missed: string[] = [];
    for (const { prompt, expect } of IN_TOPIC) {
      if (!(await injected(s, prompt)).includes(expect)) missed.push(prompt);
    }
    assert.deepEqual(missed, [], "in-topic prompts without their memory");
    const noisy: string[] = [];
    for (const prompt of OFF_TOPIC) {
      const text = await injected(s, prompt);
      if (text) noisy.push(`${prompt} -> ${text}`);
    }
    assert.deepEqual(noisy, [], "off-topic prompts that injected something");
    // The tool search still answers an agent that asks, ranked as before.
    const asked = await s.search({ query: "how should I use git rebase", project: PROJECT });
    assert.ok(asked.length > 0, "the tool search returns its top results");
    assert.ok(asked.every((r) => r.confidence < DEFAULT_MIN_CONFIDENCE));
  }));

Deno.test("'postgres or mysql?' ranks the PostgreSQL decision first, above the floor", () =>
  withProject(async (s) => {
    const [first, ...rest] = await s.search({ query: "postgres or mysql?", project: PROJECT });
    assert.match(first.memory.content, /^We chose PostgreSQL/);
    assert.ok(first.confidence >= DEFAULT_MIN_CONFIDENCE, `${first.confidence}`);
    assert.ok(rest.every((r) => r.score < first.score && r.confidence < first.confidence));
  }));

Deno.test("word forms and short names: 'why did we pick postgres?' finds 'We chose PostgreSQL'", () =>
  withProject(async (s) => {
    // "pick" is also in "We picked Stripe…", which may rank beside it; both are injected.
    const found = (await s.search({ query: "why did we pick postgres?", project: PROJECT }))
      .findIndex((r) => r.memory.content.startsWith("We chose PostgreSQL"));
    assert.ok(found >= 0 && found < 3, `rank ${found}`);
    // Found, but not injected unasked: a short prompt that shares one word with a memory was
    // the main source of injections for everyday prompts on the paraphrase set's dev split, so
    // the confidence of 0.15 weighs one shared word down (docs/recall.md, "The confidence").
    assert.doesNotMatch(await injected(s, "why did we pick postgres?"), /We chose PostgreSQL/);
    // An irregular verb alone links the two.
    await s.create({
      content: "Maria wrote the onboarding checklist",
      scope: "project",
      project: PROJECT,
    });
    const [who] = await s.search({ query: "who writes checklists?", project: PROJECT });
    assert.equal(who.memory.content, "Maria wrote the onboarding checklist");
    // k8s-style abbreviations.
    const [k8s] = await s.search({ query: "k8s deployment", project: PROJECT });
    assert.match(k8s.memory.content, /Kubernetes/);
    // Identifiers have no variants: they match exactly.
    assert.deepEqual(variantsOf("config/app.toml"), ["config/app.toml"]);
    assert.deepEqual(terms("chose").flatMap((t) => variantsOf(t)).sort(), [
      "choos",
      "chos",
      "chosen",
    ]);
  }));

Deno.test("'pull request' and 'PR' are one thing; 'pull' alone (git pull, docker pull) is not a PR", async () => {
  // The word forms: "pull" widens to "pr" only before "request".
  assert.deepEqual(variantsOf("pull"), ["pull"]);
  assert.deepEqual(variantsOf("pull", "request").sort(), ["pr", "prs", "pull"]);
  assert.deepEqual(variantsOf("pr").sort(), ["pr", "prs", "pull"]);
  assert.ok(!queryVariants(terms("docker pull the image")).flat().includes("pr"));
  assert.ok(!queryVariants(terms("git pull before pushing")).flat().includes("pr"));
  assert.ok(
    queryVariants(terms("open pull requests")).some((g) => g.includes("pull") && g.includes("pr")),
  );
  // The confidence's words and the capture's near-duplicate words read them the same way.
  const vectors = await builtinWordVectors();
  const forms = (q: string) => profileQuery(q, vectors).words.flatMap((w) => [...w.forms]);
  assert.ok(!forms("docker pull the image").includes("pr"));
  assert.ok(forms("who reviews pull requests?").includes("pr"));
  assert.ok(!contentWords("git pull the image").has("pr"));
  assert.deepEqual(
    contentWords("pull requests need two approvals"),
    contentWords("PRs need two approvals"),
  );
  // Search: a pull request finds the PR memory, and the PR the pull request one.
  await withProject(async (s) => {
    await s.create({ content: "Every PR needs two approvals", scope: "project", project: PROJECT });
    const [pr] = await s.search({
      query: "how many approvals does a pull request need?",
      project: PROJECT,
    });
    assert.equal(pr.memory.content, "Every PR needs two approvals");
    const [pull] = await s.search({ query: "force-push or open a PR?", project: PROJECT });
    assert.match(pull.memory.content, /open a pull request instead/);
    const image = await s.search({ query: "pull the image", project: PROJECT, limit: 50 });
    const hit = image.find((r) => r.memory.content === "Every PR needs two approvals");
    // "pull the image" shares no word with the PR memory (0.60 when "pull" was "pr", now 0.40).
    assert.ok(!hit || hit.confidence < 0.5, `${hit?.confidence}`);
  });
});

Deno.test("'PRs' is the plural of 'PR': it finds the PR and pull request memories, and they it", async () => {
  // The stemmer leaves a word of three letters ("prs") as it is: the forms carry the plural.
  assert.ok(variantsOf("prs").includes("pr") && variantsOf("prs").includes("pull"));
  assert.ok(variantsOf("pr").includes("prs"));
  assert.ok(variantsOf("pull", "request").includes("prs"));
  assert.ok(!variantsOf("pull").includes("prs"));
  const vectors = await builtinWordVectors();
  const forms = (q: string) => profileQuery(q, vectors).words.flatMap((w) => [...w.forms]);
  assert.ok(forms("who reviews PRs?").includes("pr"));
  // The confidence (what the prompt hook injects by) counts "PRs" as covered by "PR" and the
  // other way round: 0.37 and 0.68 when "prs" had no forms.
  await withProject(async (s) => {
    await s.create({ content: "Every PR needs two approvals", scope: "project", project: PROJECT });
    await s.create({ content: "Squash PRs when merging", scope: "project", project: PROJECT });
    const confidence = async (query: string, content: string) =>
      (await s.search({ query, project: PROJECT, limit: 10 }))
        .find((r) => r.memory.content === content)?.confidence ?? 0;
    const plural = await confidence("what do PRs need?", "Every PR needs two approvals");
    assert.ok(plural >= 0.8, `${plural}`);
    const single = await confidence("how do we merge a PR?", "Squash PRs when merging");
    assert.ok(single >= 0.8, `${single}`);
  });
});

Deno.test("a name the memory lacks lowers the confidence; a missing name is not a covered word", async () => {
  const vectors = await builtinWordVectors();
  const p = profileQuery("When did Caroline go to the support group?", vectors);
  assert.deepEqual(p.names.map((w) => w.term), ["carolin"]);
  const hers = signalsOf(p, "Caroline: I went to a support group yesterday", 0.8, vectors);
  const other = signalsOf(p, "Melanie: I went to a support group yesterday", 0.6, vectors);
  assert.equal(hers.namesMissed, 0);
  assert.equal(other.namesMissed, 1);
  assert.ok(confidenceOf(hers) - confidenceOf(other) > 0.3);
  // Days, months, languages and acronyms are not names; a sentence's common first word is not.
  const q = profileQuery("Meetings on Monday in July: English or LGBTQ notes?", vectors);
  assert.deepEqual(q.names, []);
});

Deno.test("the confidence of one pair stays in a small band when 1,000 unrelated memories join", () =>
  withProject(async (s) => {
    const pairs = [
      { query: "which port does the staging database use?", expect: "port 5433" },
      { query: "postgres or mysql?", expect: "We chose PostgreSQL" },
      { query: "how long does Redis cache the catalogue?", expect: "Redis caches" },
      // Two in the middle of the scale, where a shift would show.
      { query: "which payment provider handles card payments?", expect: "Stripe" },
      { query: "what should I run before committing my change?", expect: "npm test" },
    ];
    const confidence = async (query: string, expect: string) => {
      const r = (await s.search({ query, project: PROJECT, limit: 20 }))
        .find((x) => x.memory.content.includes(expect));
      assert.ok(r, `${expect} found for "${query}"`);
      return r.confidence;
    };
    const before = await Promise.all(pairs.map((p) => confidence(p.query, p.expect)));
    // A thousand memories about other things, some sharing common words with the queries.
    const words = ("team meeting report design review customer server request data user " +
      "release update plan budget office travel lunch weekly notes idea project cache port " +
      "database staging long use catalogue which").split(" ");
    let seed = 7;
    const pick = () => words[(seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % words.length];
    await s.import(Array.from({ length: 1000 }, (_, i) => ({
      content:
        `Note ${i}: the ${pick()} ${pick()} needs a ${pick()} ${pick()} before the ${pick()}`,
      scope: "project" as const,
      project: PROJECT,
    })));
    const after = await Promise.all(pairs.map((p) => confidence(p.query, p.expect)));
    const band = Math.max(...before.map((b, i) => Math.abs(after[i] - b)));
    console.log(`confidence band over 1,000 added memories: ${band.toFixed(3)}`, before, after);
    assert.ok(band <= 0.02, `band ${band} (the issue allows 0.02)`);
    assert.ok(after.every((c) => c >= DEFAULT_MIN_CONFIDENCE), `${after}`);
  }));
