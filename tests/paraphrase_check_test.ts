/** tasks/paraphrase_check.ts: the stemmer, the shared-word rule, and the schema of the set. */
import assert from "node:assert/strict";
import { sharedStems, stem, validate } from "../tasks/paraphrase_check.ts";

const DATA = new URL("../bench/data/paraphrase/paraphrase.json", import.meta.url);
const HOLDOUT = new URL("../bench/data/paraphrase/holdout.json", import.meta.url);
const HOLDOUT2 = new URL("../bench/data/paraphrase/holdout2.json", import.meta.url);
const HOLDOUT3 = new URL("../bench/data/paraphrase/holdout3.json", import.meta.url);
const HOLDOUT4 = new URL("../bench/data/paraphrase/holdout4.json", import.meta.url);
const HOLDOUT5 = new URL("../bench/data/paraphrase/holdout5.json", import.meta.url);
const HOLDOUT6 = new URL("../bench/data/paraphrase/holdout6.json", import.meta.url);
const HOLDOUT7 = new URL("../bench/data/paraphrase/holdout7.json", import.meta.url);
const HOLDOUT8 = new URL("../bench/data/paraphrase/holdout8.json", import.meta.url);
const HOLDOUT9 = new URL("../bench/data/paraphrase/holdout9.json", import.meta.url);
const HOLDOUT10 = new URL("../bench/data/paraphrase/holdout10.json", import.meta.url);
const HOLDOUT11 = new URL("../bench/data/paraphrase/holdout11.json", import.meta.url);

Deno.test("paraphrase check: the stemmer cuts common suffixes", () => {
  assert.equal(stem("deployments"), "deploy");
  assert.equal(stem("deploying"), "deploy");
  assert.equal(stem("queries"), "query");
  assert.equal(stem("prs"), "pr");
  assert.equal(stem("class"), "class");
});

Deno.test("paraphrase check: shared words are stems or prefixes of 4+ letters, not stop words", () => {
  assert.deepEqual(sharedStems("the deploy broke", "Deployments run from main"), ["deploy"]);
  assert.deepEqual(sharedStems("fix the config", "configuration lives in app.config.ts"), [
    "config",
  ]);
  assert.deepEqual(sharedStems("users can't sign in", "auth logs go to Loki"), []);
  assert.deepEqual(sharedStems("where is the log", "login page"), []);
  assert.deepEqual(sharedStems("can you do it", "you can do it"), []);
});

function minimal(): Record<string, unknown> {
  return {
    version: 1,
    projects: [{
      name: "p",
      kind: "web-service",
      memories: [{
        id: "p-01",
        content: "The API listens on 3001",
        type: "fact",
        scope: "project",
      }],
    }],
    globals: [{ id: "g-01", content: "Be concise", type: "feedback", scope: "global" }],
    prompts: [
      {
        id: "a",
        project: "p",
        text: "which port?",
        target: "p-01",
        split: "test",
        shares_word: false,
      },
      {
        id: "e",
        project: "p",
        text: "hello there",
        target: null,
        split: "dev",
        shares_word: false,
      },
    ],
  };
}

Deno.test("paraphrase check: a minimal set is valid", () => {
  assert.deepEqual(validate(minimal()), []);
});

Deno.test("paraphrase check: bad fields are named", () => {
  const cases: [(d: Record<string, unknown>) => void, string][] = [
    [(d) => ((d.prompts as Record<string, unknown>[])[0].target = "nope"), "prompts[0].target"],
    [(d) => ((d.prompts as Record<string, unknown>[])[0].split = "train"), "prompts[0].split"],
    [(d) => ((d.prompts as Record<string, unknown>[])[1].id = "a"), "prompts[1].id"],
    [(d) => ((d.globals as Record<string, unknown>[])[0].scope = "project"), "globals[0].scope"],
    [(d) => ((d.projects as Record<string, unknown>[])[0].kind = "toaster"), "projects[0].kind"],
    [(d) => ((d.prompts as Record<string, unknown>[])[0].also = ["a"]), "prompts[0].also"],
  ];
  for (const [spoil, field] of cases) {
    const d = minimal();
    spoil(d);
    const errors = validate(d);
    assert.ok(errors.some((e) => e.startsWith(field)), `${field}: ${errors.join("; ")}`);
  }
});

Deno.test("paraphrase check: the committed set is valid and its shares_word flags are true", async () => {
  const data = JSON.parse(await Deno.readTextFile(DATA));
  assert.deepEqual(validate(data), []);
  const content = new Map<string, string>();
  for (const p of data.projects) for (const m of p.memories) content.set(m.id, m.content);
  for (const m of data.globals) content.set(m.id, m.content);
  let aimed = 0, none = 0;
  for (const p of data.prompts) {
    if (p.target === null) continue;
    const shares = sharedStems(p.text, content.get(p.target)!).length > 0;
    assert.equal(p.shares_word, shares, p.id);
    if (p.split === "test") {
      aimed++;
      if (!shares) none++;
    }
  }
  assert.ok(aimed >= 150 && none * 2 >= aimed, `${none} of ${aimed}`);
});

async function checkHoldout(file: URL, split: string) {
  const data = JSON.parse(await Deno.readTextFile(file));
  assert.deepEqual(validate(data), []);
  const content = new Map<string, string>();
  for (const p of data.projects) for (const m of p.memories) content.set(m.id, m.content);
  for (const m of data.globals) content.set(m.id, m.content);
  const aimedAt = new Set<string>();
  let aimed = 0, everyday = 0, none = 0;
  for (const p of data.prompts) {
    assert.equal(p.split, split, p.id);
    if (p.target === null) {
      everyday++;
      continue;
    }
    aimed++;
    aimedAt.add(p.target);
    const shares = sharedStems(p.text, content.get(p.target)!).length > 0;
    assert.equal(p.shares_word, shares, p.id);
    if (!shares) none++;
  }
  assert.deepEqual([...content.keys()].filter((id) => !aimedAt.has(id)), []);
  assert.ok(aimed >= 120 && everyday >= 120, `${aimed} aimed, ${everyday} everyday`);
  assert.ok(none * 2 >= aimed, `${none} of ${aimed}`);
}

Deno.test("paraphrase check: the holdout set is valid, holdout only, and aims at every memory", () =>
  checkHoldout(HOLDOUT, "holdout"));

Deno.test("paraphrase check: the holdout2 set is valid, holdout2 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT2, "holdout2"));

Deno.test("paraphrase check: the holdout3 set is valid, holdout3 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT3, "holdout3"));

Deno.test("paraphrase check: the holdout4 set is valid, holdout4 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT4, "holdout4"));

Deno.test("paraphrase check: the holdout5 set is valid, holdout5 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT5, "holdout5"));

Deno.test("paraphrase check: the holdout6 set is valid, holdout6 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT6, "holdout6"));

Deno.test("paraphrase check: the holdout7 set is valid, holdout7 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT7, "holdout7"));

Deno.test("paraphrase check: the holdout8 set is valid, holdout8 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT8, "holdout8"));

Deno.test("paraphrase check: the holdout9 set is valid, holdout9 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT9, "holdout9"));

Deno.test("paraphrase check: the holdout10 set is valid, holdout10 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT10, "holdout10"));

Deno.test("paraphrase check: the holdout11 set is valid, holdout11 only, and aims at every memory", () =>
  checkHoldout(HOLDOUT11, "holdout11"));

Deno.test("paraphrase check: the holdout split and the new kinds are accepted, others named", () => {
  const d = minimal();
  (d.prompts as Record<string, unknown>[])[0].split = "holdout";
  (d.projects as Record<string, unknown>[])[0].kind = "ml-training";
  assert.deepEqual(validate(d), []);
  (d.prompts as Record<string, unknown>[])[0].split = "holdout2";
  assert.deepEqual(validate(d), []);
  (d.prompts as Record<string, unknown>[])[0].split = "holdout3";
  (d.projects as Record<string, unknown>[])[0].kind = "game";
  assert.deepEqual(validate(d), []);
  (d.prompts as Record<string, unknown>[])[0].split = "holdouts";
  assert.ok(validate(d).some((e) => e.startsWith("prompts[0].split")));
});
