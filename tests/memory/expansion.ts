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
import { selectEmbedder } from "../../src/embed/select.ts";
import { testConfig } from "../helpers.ts";
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

/**
 * The contradiction check compares content with content (migrations/0021_content_embedding.sql):
 * five expanded memories about other things whose phrases restate a new memory nearly word for
 * word, and the memory it really contradicts, expanded with phrases about other things. By the
 * stored vectors (content and phrases) the five are the new memory's nearest and the real one
 * is not among the five read; by their contents the five are unrelated and the real one is a
 * contradiction. Then the same with the content vectors cleared (memories expanded before
 * version 21): the start-up backfill gives them back.
 */
export async function contentWithContent(service: SqlMemoryService): Promise<void> {
  const NEW = "Use npm, not pnpm, for installing packages in this repo";
  const REAL = "Use pnpm, not npm, for installing packages in this repo";
  const decoys = [
    "Deploys go out on Tuesdays after the standup",
    "The staging database is reset every night at 3am",
    "Feature flags live in config/flags.yml",
    "Screenshots in bug reports go to the shared drive",
    "The on-call rotation changes every Monday",
  ];
  const phrases = new Map<string, string[]>([
    ...decoys.map((d): [string, string[]] => [d, [
      "use npm not pnpm for installing packages in this repo",
      "npm not pnpm for installing packages",
      "installing packages in this repo with npm",
      "use npm for installing packages not pnpm",
      "which tool for installing packages in this repo",
    ]]),
    [REAL, [
      "which lockfile format do we commit",
      "workspace hoisting of dependencies",
      "speeding up continuous integration caches",
      "disk space of node_modules folders",
      "monorepo tooling choice",
      "corepack enable before the first checkout",
      "frozen lockfile on the build server",
      "symlinked dependency layout",
    ]],
  ]);
  const call: ExpansionCall = (_system, user) => {
    const memories = JSON.parse(user).memories as { id: string; content: string }[];
    return Promise.resolve({
      text: JSON.stringify({
        expansions: memories.map((m) => ({ id: m.id, phrases: phrases.get(m.content) ?? [] })),
      }),
      inputTokens: 10,
      outputTokens: 10,
    });
  };
  const w = worker(service, call);
  try {
    // Other projects' memories, so that this project's nearest are read exactly (a small share
    // of all: src/store/search.ts exactScope); the whole store is checked below, through the
    // HNSW index.
    const others = await service.import(
      Array.from({ length: 60 }, (_, i) => ({
        content: `Service ${i} of the billing platform logs to the ${i % 7} cluster`,
        scope: "project" as const,
        project: "other",
      })),
    );
    assert.equal(others.imported, 60);
    // Kept from expansion (as `memcli expansion clear` keeps them): the model is not asked.
    await storeOf(service).db.query(
      "update memories set expansion_cleared_at = now() where project = 'other'",
    );
    const real = await service.create({ content: REAL, project: "npmtest" });
    const ids = new Set<string>();
    for (const d of decoys) {
      ids.add((await service.create({ content: d, project: "npmtest" })).memory.id);
    }
    await w.run();
    assert.equal((await service.stats()).expansion?.expanded, 6);
    const store = storeOf(service);
    // The stored vectors, as 0.21's check read them: the five decoys are the nearest five.
    const [q] = await (await selectEmbedder(testConfig(), service.storedEmbedder)).embed([NEW]);
    const byStored = await store.nearest(q, { kind: "project", project: "npmtest" }, 5, new Date());
    assert.ok(
      byStored.every((n) => ids.has(n.memory.id)),
      `the decoys crowd the real one out of the stored vectors' five: ${
        byStored.map((n) => `${n.memory.content} ${n.similarity.toFixed(3)}`).join("; ")
      }`,
    );
    const check = async (what: string) => {
      const input = { content: NEW, project: "npmtest" };
      const found = await service.contradictions(input);
      assert.deepEqual(found.map((c) => c.memory.id), [real.memory.id], what);
      assert.ok(found[0].similarity > 0.9, `${what}: ${found[0].similarity}`);
      // Every memory (a scope too large to read exactly): the stored vectors' nearest, more of
      // them, re-scored on their contents.
      const all = await store.nearest(q, { kind: "all" }, 5, new Date(), undefined, true);
      assert.equal(all[0].memory.id, real.memory.id, `${what}, every memory`);
      assert.ok(all[0].similarity > 0.9);
      assert.ok(all.slice(1).every((n) => n.similarity < 0.75), `${what}: decoys by content`);
    };
    await check("content vectors written with the expansions");
    const created = await service.create({ content: NEW, project: "npmtest" });
    assert.deepEqual(created.contradictions?.map((c) => c.memory.id), [real.memory.id], "create");
    await service.delete(created.memory.id);
    // Expanded before version 21: no content vector; the start-up backfill gives them back.
    await store.db.query("update memories set content_embedding = null");
    assert.equal((await store.contentVectorsPending(100)).length, 6);
    assert.equal(await service.backfillContentVectors(), 6);
    assert.equal((await store.contentVectorsPending(100)).length, 0);
    await check("content vectors from the backfill");
    // A re-embedding run clears them at its end (the old embedder's) and embeds them again.
    for (let i = 0; i < 20 && !(await service.reembed({ batchSize: 100 })).finished; i++);
    assert.equal((await store.contentVectorsPending(100)).length, 0, "after a re-embedding");
    await check("content vectors after a re-embedding");
    // An update clears the expansion and the content vector with it.
    await service.update(real.memory.id, { content: `${REAL} (since March)` });
    const [row] = await store.db.query<{ n: number }>(
      "select count(*)::int as n from memories where content_embedding is not null",
    );
    assert.equal(row.n, 5);
  } finally {
    await w.close();
  }
}

/**
 * The lease renewed while a batch runs (a heartbeat): with a lease of 300 ms and a model that
 * takes 1.5 s a call, the second worker (`b`, another daemon's) finds it held throughout and
 * asks the model nothing; each memory is sent once. Then a lease taken from under a worker in
 * its call (as when its daemon stalled past it and another took it): the call is aborted,
 * nothing is written, the worker says it waits for the lease, and expands once given it back.
 */
export async function leaseHeldThroughSlowCalls(
  a: SqlMemoryService,
  b: SqlMemoryService,
): Promise<void> {
  const replay = replayExpansions(PHRASES);
  const ol = startFakeOllama({ "llama3.2": 0 }, {
    chat: (body) => replay.answer(body),
    chatDelayMs: 1500,
  });
  const call = ollamaCall({ baseUrl: ol.url, model: "llama3.2" });
  let callsA = 0;
  let callsB = 0;
  const make = (service: SqlMemoryService, count: () => void) => {
    const w: ExpansionWorker = new ExpansionWorker({
      target: service.expansionTarget(() => w.report()),
      call: (...args) => {
        count();
        return call(...args);
      },
      model: "ollama/llama3.2",
      dailyTokens: 1_000_000,
      backoffMs: { first: 60_000, max: 60_000 },
      afterWriteMs: 60_000,
      timeoutMs: 10_000,
      leaseMs: 300,
    });
    return w;
  };
  const wa = make(a, () => callsA++);
  const wb = make(b, () => callsB++);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    // Nine memories (two calls, of five and four); the tenth is for the lease lost below.
    const create = (m: { content: string; type: string }) =>
      a.create({ content: m.content, type: m.type as "fact", scope: "project", project: "rails" });
    for (const m of MEMORIES.slice(0, 9)) await create(m);
    const runA = wa.run();
    // b tries during each of a's calls, twice the lease's length after the call started.
    for (const n of [1, 2]) {
      while (callsA < n) await sleep(20);
      await sleep(600);
      await wb.run();
      assert.equal(wb.report().waiting_for, "lease", `b refused the lease (call ${n})`);
    }
    await runA;
    assert.equal(callsB, 0, "b asked the model nothing");
    assert.equal(callsA, 2);
    const sent = replay.seen.flatMap((u) =>
      (JSON.parse(u) as { memories: { content: string }[] }).memories.map((m) => m.content)
    );
    assert.equal(sent.length, 9, "each memory sent once");
    assert.equal(new Set(sent).size, 9);
    let x = (await b.stats()).expansion;
    assert.deepEqual({ expanded: x?.expanded, waiting: x?.waiting }, { expanded: 9, waiting: 0 });

    // The lease taken from under a in its call: the call aborted, nothing written.
    const store = storeOf(a);
    await create(MEMORIES[9]);
    const chats = () => ol.requests.filter((r) => r.path === "/api/chat").length;
    const before = chats();
    const lost = wa.run();
    await sleep(200);
    await store.db.query(
      "update expansion_lease set holder = 'another-daemon', until = clock_timestamp() + interval '1 hour'",
    );
    const t0 = Date.now();
    await lost;
    assert.ok(Date.now() - t0 < 1200, "the call was aborted, not waited for");
    assert.equal(wa.report().waiting_for, "lease");
    assert.equal(chats(), before + 1, "one call, aborted");
    x = (await a.stats()).expansion;
    assert.deepEqual({ expanded: x?.expanded, waiting: x?.waiting }, { expanded: 9, waiting: 1 });
    // Given back: a expands it.
    await store.releaseExpansionLease("another-daemon");
    await wa.run();
    assert.equal(wa.report().waiting_for, undefined);
    x = (await a.stats()).expansion;
    assert.deepEqual({ expanded: x?.expanded, waiting: x?.waiting }, { expanded: 10, waiting: 0 });
  } finally {
    await wa.close();
    await wb.close();
    await ol.close();
  }
}
