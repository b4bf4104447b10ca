/**
 * tasks/lib/versions.ts and tasks/paraphrase.ts: a version loaded from its tree answers the
 * MCP `recall` tool and the hook on a project stored as the paraphrase set says (its memories
 * and the global ones, nothing else), and the rows count hits and injections.
 */
import assert from "node:assert/strict";
import { loadVersion, openVersion, paraphraseRows } from "../tasks/lib/versions.ts";
import { IMPORT_ANALYZE_QUIET_MS } from "../src/memory/importer.ts";
import { importProject, memoryKey, type ParaphraseSet, promptsOf } from "../tasks/paraphrase.ts";

const SET: ParaphraseSet = {
  version: 1,
  projects: [{
    name: "shop",
    kind: "web-service",
    memories: [
      {
        id: "m-1",
        content: "The staging database listens on port 5433, not 5432.",
        type: "fact",
        scope: "project",
      },
      {
        id: "m-2",
        content: "Payments go through Stripe; webhooks hit POST /webhooks/stripe.",
        type: "fact",
        scope: "project",
      },
    ],
  }, {
    name: "other",
    kind: "data-pipeline",
    memories: [{
      id: "o-1",
      content: "The staging database of the pipeline listens on port 6543.",
      type: "fact",
      scope: "project",
    }],
  }],
  globals: [{
    id: "g-1",
    content: "I use the fish shell: export with set -gx.",
    type: "feedback",
    scope: "global",
  }],
  prompts: [
    {
      id: "shop-a1",
      project: "shop",
      text: "which port does the staging database listen on?",
      target: "m-1",
      split: "dev",
    },
    {
      id: "shop-a2",
      project: "shop",
      text: "something about the weather in Lisbon",
      target: "m-2",
      split: "dev",
    },
    {
      id: "shop-e1",
      project: "shop",
      text: "write a haiku about autumn",
      target: null,
      split: "dev",
    },
    { id: "shop-t1", project: "shop", text: "stripe webhooks", target: "m-2", split: "test" },
  ],
};

Deno.test("a version's MCP recall and hook on a project stored alone, and the rows", async () => {
  const v = await loadVersion(new URL("../", import.meta.url), "this tree");
  const o = await openVersion(v);
  try {
    const keys = await importProject(o.service, SET, "shop");
    // The project's memories and the globals, not another project's.
    assert.deepEqual([...keys.values()].sort(), ["g-1", "m-1", "m-2"]);
    const top = await o.recall("which port does the staging database listen on?", "shop", 5);
    assert.equal(keys.get(memoryKey(top[0].memory.scope, "shop", top[0].memory.content)), "m-1");
    const hook = await o.hook("which port does the staging database listen on?", "shop");
    assert.ok(hook.text.includes(top[0].memory.id), hook.text);
    assert.equal((await o.hook("/help", "shop")).text, "");
  } finally {
    await o.close();
  }
  assert.deepEqual(promptsOf(SET, "dev", "shop").map((p) => p.id), [
    "shop-a1",
    "shop-a2",
    "shop-e1",
  ]);
  const rows = await paraphraseRows([v], SET, ["dev"]);
  const all = rows.find((r) => r.project === "all")!;
  assert.equal(all.aimed, 2);
  assert.equal(all.tool_hit5, 0.5);
  assert.deepEqual(all.tool_misses, ["shop-a2"]);
  assert.equal(all.everyday, 1);
  assert.equal(all.everyday_injected, 0);
});

Deno.test("a version closed right after a series of imports: its analyze runs first, nothing logged later", async () => {
  const v = await loadVersion(new URL("../", import.meta.url), "this tree");
  const o = await openVersion(v);
  const logged: string[] = [];
  const orig = console.error;
  console.error = (...a: unknown[]) => logged.push(a.map(String).join(" "));
  try {
    const items = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        content: `note ${tag} ${i}: module ${i % 37} uses flag ${i % 11}`,
        project: "p",
      }));
    try {
      // The second import leaves the series' analyze due, to run after a quiet spell.
      await o.service.import(items(300, "first"));
      await o.service.import(items(100, "second"));
    } finally {
      await o.close();
    }
    // Past that spell: it ran at close, not now on a closed database.
    await new Promise((r) => setTimeout(r, IMPORT_ANALYZE_QUIET_MS + 500));
  } finally {
    console.error = orig;
  }
  assert.deepEqual(logged, []);
});
