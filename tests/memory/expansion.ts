/**
 * Shared by the expansion tests (tests/memory/expansion_test.ts, tests/pgserver/expansion_test.ts):
 * holdout3's Rails memories with the phrases recorded for them (bench/data/expansions/), a
 * worker on a service, and the scenario of a memory found only after its expansion.
 */
import assert from "node:assert/strict";
import { ollamaCall } from "../../src/capture/model.ts";
import { type ExpansionCall, ExpansionWorker } from "../../src/memory/expansion.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { replayExpansions } from "../fakes/expansions.ts";
import { startFakeOllama } from "../fakes/ollama.ts";

const ROOT = new URL("../../", import.meta.url);
const SET = JSON.parse(
  await Deno.readTextFile(new URL("bench/data/paraphrase/holdout3.json", ROOT)),
) as { projects: { memories: { id: string; content: string; type: string }[] }[] };
const RECORDED = JSON.parse(
  await Deno.readTextFile(new URL("bench/data/expansions/holdout3.json", ROOT)),
) as Record<string, { phrases: string[] }>;
/** The first ten memories of holdout3's Rails project, and their recorded phrases. */
export const MEMORIES = SET.projects[0].memories.slice(0, 10);
export const PHRASES = new Map(MEMORIES.map((m) => [m.content, RECORDED[m.id].phrases]));
/** rails-07, the linter: its phrases say "style offences", its content does not. */
export const LINT = MEMORIES[6];
export const QUERY = "auto-fix the style offences";

export async function seed(service: SqlMemoryService): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const m of MEMORIES) {
    const r = await service.create({
      content: m.content,
      type: m.type as "fact",
      scope: "project",
      project: "rails",
    });
    ids.set(m.content, r.memory.id);
  }
  return ids;
}

export function worker(
  service: SqlMemoryService,
  call: ExpansionCall,
  o: { dailyTokens?: number; backoffMs?: { first: number; max: number } } = {},
): ExpansionWorker {
  const w: ExpansionWorker = new ExpansionWorker({
    target: service.expansionTarget(() => w.report()),
    call,
    model: "ollama/llama3.2",
    dailyTokens: o.dailyTokens ?? 1_000_000,
    backoffMs: o.backoffMs ?? { first: 60_000, max: 60_000 },
    afterWriteMs: 60_000,
  });
  return w;
}

export async function top(service: SqlMemoryService, query: string, limit = 3) {
  return await service.search({ query, project: "rails", limit });
}

export async function expandedOnce(
  open: () => Promise<{ service: SqlMemoryService; close(): Promise<void> }>,
): Promise<void> {
  const replay = replayExpansions(PHRASES);
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
  const s = await open();
  const w = worker(s.service, ollamaCall({ baseUrl: ol.url, model: "llama3.2" }));
  try {
    const ids = await seed(s.service);
    const before = await top(s.service, QUERY);
    assert.ok(!before.some((r) => r.memory.id === ids.get(LINT.content)), "not found before");
    await w.run();
    const stats = await s.service.stats();
    assert.deepEqual(
      { expanded: stats.expansion?.expanded, waiting: stats.expansion?.waiting },
      { expanded: 10, waiting: 0 },
    );
    assert.ok(stats.expansion!.tokens_today > 0);
    // Several memories a call: the instruction is sent once per call.
    assert.equal(replay.seen.length, 2);
    const after = await top(s.service, QUERY);
    assert.equal(after[0].memory.id, ids.get(LINT.content), "found after its expansion");
    // What is returned, listed and exported is the content only.
    assert.equal(after[0].memory.content, LINT.content);
    const listed = await s.service.list({ project: "rails" });
    const exported = await s.service.export();
    for (const text of [...listed, ...exported].map((m) => m.content)) {
      assert.ok(PHRASES.has(text), "content as written");
    }
    const got = await s.service.get(ids.get(LINT.content)!);
    assert.equal(got.content, LINT.content);
    assert.ok(!JSON.stringify([after, listed, exported, got]).includes("style offences"));
  } finally {
    await w.close();
    await s.close();
    await ol.close();
  }
}
