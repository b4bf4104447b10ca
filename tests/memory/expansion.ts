/**
 * Shared by the expansion tests (tests/memory/expansion_test.ts, tests/pgserver/expansion_test.ts):
 * holdout3's Rails memories with the phrases recorded for them (bench/data/expansions/), a
 * worker on a service, and the scenario of a memory found only after its expansion.
 */
import assert from "node:assert/strict";
import { ollamaCall } from "../../src/capture/model.ts";
import { type ExpansionCall, ExpansionWorker } from "../../src/memory/expansion.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";
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

/**
 * Two workers on one database (two daemons on one server Postgres: `a` and `b` are the
 * services each opened): while one holds the lease and is in a call, the other makes none and
 * says it waits; the first expands everything once and gives the lease back; a lease whose
 * holder died runs out and is taken over.
 */
export async function oneWorkerAtATime(a: SqlMemoryService, b: SqlMemoryService): Promise<void> {
  const replay = replayExpansions(PHRASES);
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (body) => replay.answer(body) });
  const call = ollamaCall({ baseUrl: ol.url, model: "llama3.2" });
  const entered = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  let callsA = 0;
  let callsB = 0;
  const wa = worker(a, async (...args) => {
    callsA++;
    entered.resolve();
    await gate.promise;
    return await call(...args);
  });
  const wb = worker(b, (...args) => {
    callsB++;
    return call(...args);
  });
  try {
    await seed(a);
    const runA = wa.run();
    await entered.promise; // a holds the lease, in its first call
    await wb.run();
    assert.equal(callsB, 0, "b asked the model nothing while a held the lease");
    assert.equal(wb.report().waiting_for, "lease");
    gate.resolve();
    await runA;
    assert.equal(callsA, 2, "a expanded the 10 memories in two calls");
    const sent = replay.seen.flatMap((u) =>
      (JSON.parse(u) as { memories: { content: string }[] }).memories.map((m) => m.content)
    );
    assert.equal(sent.length, 10, "each memory sent once");
    assert.equal(new Set(sent).size, 10);
    const x = (await b.stats()).expansion;
    assert.deepEqual({ expanded: x?.expanded, waiting: x?.waiting }, { expanded: 10, waiting: 0 });
    // a gave the lease back: b takes it at once, finds nothing waiting, asks nothing.
    await wb.run();
    assert.equal(wb.report().waiting_for, undefined);
    assert.equal(callsB, 0);
    // A dead daemon's lease runs out: b takes over after it.
    await a.create({ content: "Deploys go out on Tuesdays.", project: "rails" });
    const store = storeOf(a);
    assert.ok(await store.takeExpansionLease("a-daemon-that-died", 200));
    await wb.run();
    assert.equal(wb.report().waiting_for, "lease", "refused while the dead one's lease runs");
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(await store.takeExpansionLease("someone", 1000), "granted once it ran out");
    assert.ok(!(await store.takeExpansionLease("another", 1000)), "refused while it runs");
    await store.releaseExpansionLease("someone");
    await wb.run();
    assert.equal(wb.report().waiting_for, undefined, "given back: b worked");
  } finally {
    gate.resolve();
    await wa.close();
    await wb.close();
    await ol.close();
  }
}
