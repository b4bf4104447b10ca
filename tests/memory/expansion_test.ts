/**
 * Memories expanded by a model (MEMORY_EXPANSION, src/memory/expansion.ts): the real service,
 * store and worker, the model a fake speaking Ollama's or the Messages API's protocol and
 * replaying the phrases recorded for holdout3's Rails project (bench/data/expansions/).
 */
import assert from "node:assert/strict";
import { anthropicCall, ollamaCall } from "../../src/capture/model.ts";
import {
  checkExpansion,
  ConfigError,
  loadMemoryConfig,
  MIN_EXPANSION_DAILY_TOKENS,
} from "../../src/config.ts";
import { MAX_CONTENT } from "../../src/memory/validate.ts";
import {
  type ExpansionCall,
  expansionEstimate,
  ExpansionWorker,
  MAX_PHRASES,
  parseExpansions,
} from "../../src/memory/expansion.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { EXPANDED_FLOOR, expandedConfidence } from "../../src/memory/confidence.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";
import { createServiceOnDb, openMemoryService } from "../../src/memory/open.ts";
import { newRow } from "../../src/memory/rows.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { replayExpansions } from "../fakes/expansions.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import {
  contentWithContent,
  expandedOnce,
  leaseHeldThroughSlowCalls,
  LINT,
  MEMORIES,
  oneWorkerAtATime,
  PHRASES,
  QUERY,
  seed,
  top,
  worker,
} from "./expansion.ts";
import { pgliteService, postgresService, tempDir, testConfig } from "../helpers.ts";
import { hashEmbed } from "../../src/embed/builtin.ts";
import { findProgram } from "../../src/programs.ts";
import { expansionLine } from "../../src/memcli/commands/status.ts";

Deno.test("expansion: a memory sharing no word with a query is found after its expansion (PGlite)", async () => {
  await expandedOnce(() => pgliteService({ expansion: true }));
});

Deno.test("expansion: the same on server Postgres (postgres.js over the wire)", async () => {
  await expandedOnce(() => postgresService({ expansion: true }));
});

Deno.test("expansion: one worker at a time per database (the lease), PGlite", async () => {
  const s = await pgliteService({ expansion: true });
  try {
    await oneWorkerAtATime(s.service, s.service);
  } finally {
    await s.close();
  }
});

Deno.test("expansion: the lease is renewed while a slow call runs, and a lost one stops the batch", async () => {
  const s = await pgliteService({ expansion: true });
  try {
    await leaseHeldThroughSlowCalls(s.service, s.service);
  } finally {
    await s.close();
  }
});

Deno.test("expansion: a run asked for while the last one gives the lease back is not lost", async () => {
  const replay = replayExpansions(PHRASES);
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
  const s = await pgliteService({ expansion: true });
  const releasing = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const w: ExpansionWorker = new ExpansionWorker({
    target: (() => {
      const t = s.service.expansionTarget(() => w.report());
      return {
        ...t,
        release: async (holder: string) => {
          releasing.resolve();
          await gate.promise;
          await t.release!(holder);
        },
      };
    })(),
    call: ollamaCall({ baseUrl: ol.url, model: "llama3.2" }),
    model: "ollama/llama3.2",
    dailyTokens: 1_000_000,
    backoffMs: { first: 60_000, max: 60_000 },
    afterWriteMs: 60_000,
  });
  try {
    const [first, second] = MEMORIES;
    const create = (m: typeof first) =>
      s.service.create({ content: m.content, type: m.type as "fact", project: "rails" });
    await create(first);
    const run = w.run();
    // The run found nothing more waiting and gives the lease back; a memory is written and
    // its timer asks for a run meanwhile.
    await releasing.promise;
    await create(second);
    const asked = w.run();
    gate.resolve();
    await run;
    await asked;
    const x = (await s.service.stats()).expansion;
    assert.deepEqual({ expanded: x?.expanded, waiting: x?.waiting }, { expanded: 2, waiting: 0 });
    assert.equal(w.busy, false);
  } finally {
    gate.resolve();
    await w.close();
    await s.close();
    await ol.close();
  }
});

Deno.test("expansion: an update clears the expansion and the worker expands the new content", async () => {
  const replay = replayExpansions(PHRASES);
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
  const s = await pgliteService({ expansion: true });
  const w = worker(s.service, ollamaCall({ baseUrl: ol.url, model: "llama3.2" }));
  try {
    const ids = await seed(s.service);
    await w.run();
    const id = ids.get(LINT.content)!;
    const changed = `${LINT.content} Run it before every push.`;
    PHRASES.set(changed, ["check formatting before sharing code", "tidy the sources"]);
    await s.service.update(id, { content: changed });
    let stats = await s.service.stats();
    assert.equal(stats.expansion?.waiting, 1, "re-queued");
    assert.equal(stats.expansion?.expanded, 9);
    // The old phrases are gone from the index.
    assert.ok(!(await top(s.service, QUERY, 1)).some((r) => r.memory.id === id));
    await w.run();
    stats = await s.service.stats();
    assert.equal(stats.expansion?.waiting, 0);
    assert.ok(replay.seen.at(-1)!.includes("Run it before every push."));
    const found = await top(s.service, "tidy the sources", 1);
    assert.equal(found[0].memory.id, id);
    assert.equal(found[0].memory.content, changed);
  } finally {
    PHRASES.delete(`${LINT.content} Run it before every push.`);
    await w.close();
    await s.close();
    await ol.close();
  }
});

Deno.test("expansion: an answer for content changed meanwhile is not written", async () => {
  const s = await pgliteService({ expansion: true });
  let id = "";
  const seen: string[] = [];
  const w = worker(s.service, async (_system, user) => {
    const memories = JSON.parse(user).memories as { id: string; content: string }[];
    seen.push(memories[0].content);
    // The memory changes while the model answers its first request.
    if (seen.length === 1) await s.service.update(id, { content: "Lint with rubocop, changed." });
    return {
      text: JSON.stringify({
        expansions: memories.map((m) => ({
          id: m.id,
          phrases: [`phrases of call ${seen.length}`],
        })),
      }),
      inputTokens: 10,
      outputTokens: 10,
    };
  });
  try {
    id = (await s.service.create({ content: LINT.content, project: "rails" })).memory.id;
    await w.run();
    // The first answer (for the old content) was dropped by the write's check; the update
    // re-queued the memory, and the second call read the new content.
    assert.deepEqual(seen, [LINT.content, "Lint with rubocop, changed."]);
    const [row] = await s.db.query<{ expansion: string | null; content: string }>(
      "select expansion, content from memories where id = $1",
      [id],
    );
    assert.deepEqual(row, {
      expansion: "phrases of call 2",
      content: "Lint with rubocop, changed.",
    });
  } finally {
    await w.close();
    await s.close();
  }
});

Deno.test("expansion: a memory cleared while the model answers is not expanded", async () => {
  const s = await pgliteService({ expansion: true });
  let id = "";
  let calls = 0;
  const w = worker(s.service, async (_system, user) => {
    calls++;
    const memories = JSON.parse(user).memories as { id: string; content: string }[];
    // `memcli expansion clear ID` while the model answers: the memory is kept from expansion.
    await s.service.clearExpansions({ id });
    return {
      text: JSON.stringify({
        expansions: memories.map((m) => ({ id: m.id, phrases: ["late phrases"] })),
      }),
      inputTokens: 10,
      outputTokens: 10,
    };
  });
  try {
    id = (await s.service.create({ content: LINT.content, project: "rails" })).memory.id;
    await w.run();
    assert.equal(calls, 1);
    const x = await s.service.expansionOf(id);
    assert.deepEqual({ state: x.state, phrases: x.phrases }, { state: "cleared", phrases: [] });
    const [row] = await s.db.query<{ expansion: string | null }>(
      "select expansion from memories where id = $1",
      [id],
    );
    assert.equal(row.expansion, null, "the late answer was not written");
  } finally {
    await w.close();
    await s.close();
  }
});

Deno.test("expansion: a malformed selection is refused naming its field, never read as all", async () => {
  const s = await pgliteService();
  try {
    const id = (await s.service.create({ content: LINT.content, project: "rails" })).memory.id;
    const bad: [unknown, string][] = [
      [{ id: null, all: true }, "id"],
      [{ id: null }, "id"],
      [{ id: 7, all: true }, "id"],
      [{ id: [id] }, "id"],
      [{ id, all: true }, "all"],
      [{ id, all: null }, "all"],
      [{ all: null }, "all"],
      [{ all: "true" }, "all"],
      [{}, "id"],
    ];
    for (const op of ["clearExpansions", "redoExpansions"] as const) {
      for (const [body, field] of bad) {
        await assert.rejects(
          s.service[op](body),
          (e: Error & { status?: number }) =>
            e.status === 400 && e.message.startsWith(`${field}: `),
          `${op} ${JSON.stringify(body)}`,
        );
      }
    }
    const x = await s.service.expansionOf(id);
    assert.notEqual(x.state, "cleared", "nothing was cleared");
  } finally {
    await s.close();
  }
});

Deno.test("expansion: a cleared memory stays cleared through export and import; an older export still imports", async () => {
  const s = await pgliteService({ expansion: true });
  const expandedIds: string[] = [];
  const w = worker(s.service, (_system, user) => {
    const memories = JSON.parse(user).memories as { id: string; content: string }[];
    expandedIds.push(...memories.map((m) => m.id));
    return Promise.resolve({
      text: JSON.stringify({
        expansions: memories.map((m) => ({ id: m.id, phrases: ["other words"] })),
      }),
      inputTokens: 10,
      outputTokens: 10,
    });
  });
  try {
    const kept = (await s.service.create({ content: LINT.content, project: "rails" })).memory;
    await s.service.create({ content: "Deploy with kamal", project: "rails" });
    await s.service.clearExpansions({ id: kept.id });
    const cleared = (await s.service.expansionOf(kept.id)).cleared_at;
    const exported = await s.service.export();
    const record = exported.find((r) => r.id === kept.id)!;
    assert.equal(record.expansion_cleared_at, cleared);
    assert.ok(exported.filter((r) => r.expansion_cleared_at !== undefined).length === 1);
    await s.service.deleteMany();
    // The same file, and one of an older version (no such field): both import.
    const older = exported.map(({ expansion_cleared_at: _, ...r }) => ({
      ...r,
      project: "old",
    }));
    assert.deepEqual(await s.service.import([...exported, ...older]), { imported: 4, skipped: 0 });
    await w.run();
    const state = async (content: string, project: string) => {
      const m = (await s.service.list({ project })).find((x) => x.content === content)!;
      return (await s.service.expansionOf(m.id)).state;
    };
    assert.equal(await state(LINT.content, "rails"), "cleared", "not expanded again");
    assert.equal(await state("Deploy with kamal", "rails"), "expanded");
    assert.equal(await state(LINT.content, "old"), "expanded", "the older export's: expanded");
    assert.equal(expandedIds.length, 3);
    await assert.rejects(
      s.service.import([{ content: "x", expansion_cleared_at: "yesterday" }]),
      /\[0\]\.expansion_cleared_at: must be an ISO 8601/,
    );
  } finally {
    await w.close();
    await s.close();
  }
});

Deno.test("expansion: the model down: writes and searches go on, the worker backs off and retries", async () => {
  const replay = replayExpansions(PHRASES);
  const fake = startFakeAnthropic({
    apiKeys: ["sk-ant-api-test"],
    reply: (b) => replay.answer(b),
    errors: [
      { status: 529, type: "overloaded_error", message: "Overloaded" },
      { status: 529, type: "overloaded_error", message: "Overloaded" },
    ],
  });
  const s = await pgliteService({ expansion: true });
  const w = worker(
    s.service,
    anthropicCall({ baseUrl: fake.url, apiKey: "sk-ant-api-test", model: "claude-haiku-4-5" }),
    { backoffMs: { first: 50, max: 100 } },
  );
  try {
    const ids = await seed(s.service);
    await w.run();
    let report = w.report();
    assert.equal(report.waiting_for, "backoff");
    assert.match(report.last_error ?? "", /HTTP 529/);
    assert.ok(!JSON.stringify(report).includes("sk-ant-api-test"), "no key in the report");
    // Writes and searches are not held.
    await s.service.create({ content: "Deploys go out on Tuesdays.", project: "rails" });
    assert.ok((await top(s.service, "rubocop")).length > 0);
    assert.equal((await s.service.stats()).expansion?.expanded, 0);
    // The back-off ends: the second failure, then the answers.
    for (let i = 0; i < 100 && (await s.service.stats()).expansion?.waiting; i++) {
      await new Promise((r) => setTimeout(r, 30));
    }
    while (w.busy) await new Promise((r) => setTimeout(r, 10));
    report = w.report();
    assert.equal(report.waiting_for, undefined, JSON.stringify(report));
    const stats = await s.service.stats();
    assert.equal(stats.expansion?.expanded, 10, "the recorded memories");
    assert.equal(stats.expansion?.waiting, 1, "the new memory has no recorded phrases");
    assert.equal((await top(s.service, QUERY, 1))[0].memory.id, ids.get(LINT.content));
  } finally {
    await w.close();
    await s.close();
    await fake.close();
  }
});

Deno.test("expansion: the daily budget stops calls, kept in the database", async () => {
  const replay = replayExpansions(PHRASES);
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
  const s = await pgliteService({ expansion: true });
  // One full call's estimate is about 1,900 tokens: a budget of 3,000 lets it through, then
  // smaller batches while one fits in what is left.
  const w = worker(s.service, ollamaCall({ baseUrl: ol.url, model: "llama3.2" }), {
    dailyTokens: 3000,
  });
  try {
    await seed(s.service);
    await w.run();
    const calls = replay.seen.length;
    assert.ok(calls >= 1, "a call, then the budget");
    const report = w.report();
    assert.equal(report.waiting_for, "budget");
    assert.ok(report.tokens_today <= 3000, `${report.tokens_today} within the budget`);
    const stats = await s.service.stats();
    assert.ok(stats.expansion!.expanded >= 5, `${stats.expansion?.expanded} expanded`);
    assert.ok(stats.expansion!.waiting > 0, "some wait for the next day");
    assert.equal(stats.expansion!.expanded + stats.expansion!.waiting, 10);
    assert.equal(stats.expansion?.tokens_today, report.tokens_today);
    // A new worker (a restart) reads what the day spent: no call either.
    const again = worker(s.service, ollamaCall({ baseUrl: ol.url, model: "llama3.2" }), {
      dailyTokens: 3000,
    });
    await again.run();
    await again.close();
    assert.equal(replay.seen.length, calls);
  } finally {
    await w.close();
    await s.close();
    await ol.close();
  }
});

/** A model that answers each memory with one phrase, and charges `tokens` a call. */
function phraseModel(seen: string[][], tokens = 0): ExpansionCall {
  return (_system, user) => {
    const memories = JSON.parse(user).memories as { id: string; content: string }[];
    seen.push(memories.map((m) => m.content));
    return Promise.resolve({
      text: JSON.stringify({
        expansions: memories.map((m) => ({ id: m.id, phrases: ["a phrase"] })),
      }),
      inputTokens: tokens,
      outputTokens: 0,
    });
  };
}

Deno.test("expansion: a memory too large for the budget left does not hold the others", async () => {
  const s = await pgliteService({ expansion: true });
  const seen: string[][] = [];
  const w = worker(s.service, phraseModel(seen), { dailyTokens: 3000 });
  try {
    for (
      const c of ["Deploys go out on Tuesdays.", "Use pnpm in this repo.", "Tabs, not spaces."]
    ) {
      await s.service.create({ content: c, project: "rails" });
    }
    // The newest, first in line: its estimate alone is above the budget.
    const large = `Release notes: ${"the build steps change often and are long. ".repeat(300)}`;
    assert.ok(expansionEstimate(JSON.stringify({ memories: [{ content: large }] }), 1) > 3000);
    await s.service.create({ content: large, project: "rails" });
    await w.run();
    assert.equal(seen.length, 1);
    assert.equal(seen[0].length, 3, "the three small memories, in one call");
    assert.ok(!seen[0].includes(large));
    assert.equal(w.report().waiting_for, "budget");
    const stats = await s.service.stats();
    assert.deepEqual([stats.expansion?.expanded, stats.expansion?.waiting], [3, 1]);
  } finally {
    await w.close();
    await s.close();
  }
});

Deno.test("expansion: close() returns at once while a call never answers (subscription)", async () => {
  const s = await pgliteService({ expansion: true });
  let called = false;
  // As the subscription's client: the abort signal is ignored, the promise never settles.
  const w = worker(s.service, () => {
    called = true;
    return new Promise<never>(() => {});
  });
  try {
    await s.service.create({ content: "Deploys go out on Tuesdays.", project: "rails" });
    void w.run();
    for (let i = 0; i < 200 && !called; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(called, "the call is in progress");
    const t0 = performance.now();
    await w.close();
    const ms = performance.now() - t0;
    // The worker's time-out is 60 s: without the abort in the race close() waits for it.
    assert.ok(ms < 5000, `close() took ${ms.toFixed(0)} ms`);
    assert.equal(w.busy, false);
  } finally {
    await w.close();
    await s.close();
  }
});

Deno.test("expansion: steady writes do not postpone the run after a write", async () => {
  const s = await pgliteService({ expansion: true });
  const seen: string[][] = [];
  const w: ExpansionWorker = new ExpansionWorker({
    target: s.service.expansionTarget(() => w.report()),
    call: phraseModel(seen),
    model: "ollama/llama3.2",
    dailyTokens: 1_000_000,
    afterWriteMs: 150,
  });
  try {
    await s.service.create({ content: "Deploys go out on Tuesdays.", project: "rails" });
    // A write every 30 ms, for well over the 150 ms wait: a timer re-armed on each write
    // would never fire while they go on.
    for (let i = 0; i < 25 && !seen.length; i++) {
      w.written();
      await new Promise((r) => setTimeout(r, 30));
    }
    assert.ok(seen.length >= 1, "the run came while writes went on");
  } finally {
    await w.close();
    await s.close();
  }
});

Deno.test("expansion: no call while the stored vectors belong to another embedder", async () => {
  const db = await openPglite();
  const a = await createServiceOnDb(db, testConfig({ embeddingDim: 32 }));
  await a.create({ content: "Deploys go out on Tuesdays.", project: "rails" });
  // The same database opened with another dimension: maintenance until `memcli reembed`.
  const b = await createServiceOnDb(db, testConfig({ embeddingDim: 48, expansion: true }));
  assert.ok(b.maintenanceReason);
  let calls = 0;
  const w = worker(b, (...args) => {
    calls++;
    return phraseModel([])(...args);
  });
  try {
    await w.run();
    assert.equal(calls, 0, "no token spent on phrases that could not be written");
    const r = w.report();
    assert.equal(r.waiting_for, "backoff");
    assert.match(r.last_error ?? "", /maintenance/);
    assert.equal(await b.expansionTarget(() => r).expansionTokensOn(r.day), 0);
  } finally {
    await w.close();
    await b.close();
  }
});

Deno.test("expansion: a contradiction with an expanded memory is still warned of (builtin)", async () => {
  const s = await pgliteService({ expansion: true });
  const w = worker(s.service, (_system, user) => {
    const memories = JSON.parse(user).memories as { id: string }[];
    return Promise.resolve({
      text: JSON.stringify({
        expansions: memories.map((m) => ({
          id: m.id,
          phrases: [
            "which package manager does this project use",
            "how do I add a dependency",
            "lockfile keeps changing after install",
            "node modules setup for a fresh clone",
          ],
        })),
      }),
      inputTokens: 10,
      outputTokens: 10,
    });
  });
  try {
    const old = await s.service.create({
      content: "Use pnpm, not npm, for installing packages in this repo",
      project: "rails",
    });
    await w.run();
    assert.equal((await s.service.stats()).expansion?.expanded, 1);
    const input = {
      content: "Use npm, not pnpm, for installing packages in this repo",
      project: "rails",
    };
    const checked = await s.service.contradictions(input);
    assert.equal(checked[0]?.memory.id, old.memory.id, "the check (capture's path)");
    assert.ok(checked[0].similarity > 0.9, `${checked[0].similarity}`);
    const created = await s.service.create(input);
    assert.equal(created.contradictions?.[0]?.memory.id, old.memory.id, "the create's warning");
    // A replacement proposed by capture names the expanded memory.
    const replaced = await s.service.create({
      content: "Use yarn, not pnpm, for installing packages in this repo",
      project: "rails",
      supersedes: created.memory.id,
    });
    assert.ok(replaced.contradictions?.some((c) => c.memory.id === old.memory.id));
  } finally {
    await w.close();
    await s.close();
  }
});

Deno.test("expansion: the contradiction check compares content with content (PGlite)", async () => {
  const s = await pgliteService({ expansion: true });
  try {
    await contentWithContent(s.service);
  } finally {
    await s.close();
  }
});

Deno.test("expansion: turned off, the phrases written are still read, on the plain scale", async () => {
  const replay = replayExpansions(PHRASES);
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
  const s = await pgliteService({ expansion: true });
  const w = worker(s.service, ollamaCall({ baseUrl: ol.url, model: "llama3.2" }));
  try {
    const ids = await seed(s.service);
    await w.run();
    const on = await top(s.service, QUERY, 1);
    assert.equal(on[0].memory.id, ids.get(LINT.content));
    // The same database opened with the setting off (an MCP server in direct mode, or a
    // restart without MEMORY_EXPANSION): the same ranking and the same confidence.
    const off = await createServiceOnDb(s.db, testConfig({ expansion: false }));
    const got = await off.search({ query: QUERY, project: "rails", limit: 1 });
    assert.equal(got[0].memory.id, ids.get(LINT.content));
    assert.equal(got[0].confidence, on[0].confidence);
    assert.equal((await off.stats()).expansion, undefined, "no worker, no status");
  } finally {
    await w.close();
    await s.close();
    await ol.close();
  }
});

Deno.test("expansion: malformed answers are dropped, never written", async () => {
  const answers = [
    "not json at all",
    JSON.stringify({
      expansions: [
        { id: "m1", phrases: "not a list" },
        { id: "m9", phrases: ["an id never sent"] },
        { id: "m2", phrases: [42, "", "x ".repeat(200)] },
        { id: "m3", phrases: ["the code style checker", "the code style checker again"] },
      ],
    }),
  ];
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: () => answers.shift() ?? "{}" });
  const s = await pgliteService({ expansion: true });
  const w = worker(s.service, ollamaCall({ baseUrl: ol.url, model: "llama3.2" }));
  try {
    await seed(s.service);
    await w.run();
    const report = w.report();
    // Two calls of five: the first all malformed (its memories skipped by this process), the
    // second with one usable entry (m3); then nothing is left to ask.
    assert.equal(report.calls, 2);
    assert.equal(report.dropped, 9);
    assert.equal((await s.service.stats()).expansion?.waiting, 9, "asked again after a restart");
    const rows = await s.db.query<{ expansion: string }>(
      "select expansion from memories where expansion is not null",
    );
    assert.deepEqual(rows.map((r) => r.expansion), [
      "the code style checker; the code style checker again",
    ]);
  } finally {
    await w.close();
    await s.close();
    await ol.close();
  }
});

Deno.test("expansion: the answer's shape is checked strictly", async () => {
  const many = Array.from({ length: 14 }, (_, i) => `phrase number ${i} here`);
  const r = await parseExpansions(
    "```json\n" + JSON.stringify({
      expansions: [
        { id: "m1", phrases: many },
        { id: "m1", phrases: ["a repeated id"] },
        { id: "m2", phrases: ["semi; colon\nand new line"] },
      ],
    }) + "\n```",
    ["m1", "m2", "m3"],
  );
  assert.equal(r.phrases.get("m1")?.length, MAX_PHRASES);
  assert.deepEqual(r.phrases.get("m2"), ["semi, colon and new line"]);
  assert.equal(r.dropped, 1);
  // The one-memory shape of the measurement is not this one: dropped whole.
  const old = await parseExpansions(JSON.stringify({ phrases: ["the old single shape"] }), ["m1"]);
  assert.deepEqual([old.phrases.size, old.dropped], [0, 1]);
});

Deno.test("expansion: a secret never reaches the model, nor comes back from it", async () => {
  const secret = "AKIA" + "Q3EGRTWZ7NBXPL5D";
  const replay = replayExpansions(new Map());
  const ol = startFakeOllama({ "llama3.2": 0 }, {
    chat: (b) => {
      replay.answer(b);
      const memories = JSON.parse(replay.seen.at(-1)!).memories as { id: string }[];
      return JSON.stringify({
        expansions: memories.map((m) => ({
          id: m.id,
          phrases: ["the cloud access key for deploys", `the key is ${secret}`],
        })),
      });
    },
  });
  const s = await pgliteService({ expansion: true });
  const w = worker(s.service, ollamaCall({ baseUrl: ol.url, model: "llama3.2" }));
  try {
    // The service refuses secrets; a memory stored before that check (an older database) is
    // written under it, into the store.
    const store = storeOf(s.service);
    const content = `The deploy user's access key is ${secret} (rotate it monthly).`;
    await store.insert([
      newRow(
        {
          content,
          scope: "project",
          project: "rails",
          type: "fact",
          tags: [],
          weight: 1,
          supersedes: null,
          ttlMs: null,
        } as Parameters<typeof newRow>[0],
        hashEmbed(content, testConfig().embeddingDim),
        new Date(),
      ),
    ]);
    await w.run();
    assert.equal(replay.seen.length, 1);
    assert.ok(!replay.seen[0].includes(secret), "the secret was replaced before sending");
    const all = ol.requests.map((r) => JSON.stringify(r.body)).join("\n");
    assert.ok(!all.includes(secret));
    const [row] = await s.db.query<{ expansion: string }>("select expansion from memories");
    assert.equal(row.expansion, "the cloud access key for deploys");
  } finally {
    await w.close();
    await s.close();
    await ol.close();
  }
});

Deno.test({
  name: "expansion: a database of the previous schema (version 18) upgrades and is expanded",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await tempDir("mneme-expansion-upgrade-");
    const cfg = testConfig({ dataDir: dir.path, expansion: true });
    const replay = replayExpansions(PHRASES);
    const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
    try {
      let ids = new Map<string, string>();
      let service = await openMemoryService(cfg);
      try {
        ids = await seed(service);
        // Back to version 18's schema: without the expansion columns, the budget table and
        // their record.
        await storeOf(service).db.exec(
          `alter table memories drop column expansion, drop column expansion_model;
           drop table expansion_budget; delete from mneme_migrations where version = 19`,
        );
      } finally {
        await service.close();
      }
      service = await openMemoryService(cfg);
      const w = worker(service, ollamaCall({ baseUrl: ol.url, model: "llama3.2" }));
      try {
        const db = storeOf(service).db;
        const [m] = await db.query<{ n: number; x: number }>(
          "select count(*)::int as n, count(expansion)::int as x from memories",
        );
        assert.deepEqual(m, { n: 10, x: 0 }, "the upgrade adds the columns, changes no row");
        assert.ok(!(await top(service, QUERY)).some((r) => r.memory.id === ids.get(LINT.content)));
        await w.run();
        assert.equal((await top(service, QUERY, 1))[0].memory.id, ids.get(LINT.content));
      } finally {
        await w.close();
        await service.close();
      }
    } finally {
      await ol.close();
      await dir.cleanup();
    }
  },
});

Deno.test("expansion: settings are validated and name their variables", () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  assert.equal(loadMemoryConfig(env({})).expansion, false);
  assert.equal(loadMemoryConfig(env({ MEMORY_EXPANSION: "on" })).expansion, true);
  assert.equal(loadMemoryConfig(env({})).expansionDailyTokens, 200_000);
  assert.throws(
    () => loadMemoryConfig(env({ MEMORY_EXPANSION: "sometimes" })),
    (e) => e instanceof ConfigError && /MEMORY_EXPANSION/.test(e.message),
  );
  assert.throws(
    () => loadMemoryConfig(env({ EXPANSION_DAILY_TOKENS: "12" })),
    (e) => e instanceof ConfigError && /EXPANSION_DAILY_TOKENS/.test(e.message),
  );
  // The smallest budget pays for one call of one memory of the longest content.
  const longest = JSON.stringify({
    memories: [{
      id: "m1",
      type: "convention",
      scope: "project",
      content: "x".repeat(MAX_CONTENT),
    }],
  });
  assert.ok(expansionEstimate(longest, 1) <= MIN_EXPANSION_DAILY_TOKENS);
  assert.throws(
    () => loadMemoryConfig(env({ EXPANSION_DAILY_TOKENS: "5000" })),
    (e) => e instanceof ConfigError && /EXPANSION_DAILY_TOKENS.*8000/.test(e.message),
  );
  assert.equal(
    loadMemoryConfig(env({ EXPANSION_DAILY_TOKENS: "8000" })).expansionDailyTokens,
    MIN_EXPANSION_DAILY_TOKENS,
  );
  assert.throws(
    () => checkExpansion({ expansion: true }, null),
    (e) =>
      e instanceof ConfigError && /MEMORY_EXPANSION/.test(e.message) &&
      /CAPTURE_MODEL_PROVIDER/.test(e.message),
  );
  checkExpansion({ expansion: true }, "ollama");
  checkExpansion({ expansion: false }, null);
});

Deno.test("expansion: an expanded memory's confidence keeps the plain scale at the hook's floor", () => {
  // Since 0.22 (the instruction that asks for the messages a developer would type): 0.964.
  assert.equal(expandedConfidence(EXPANDED_FLOOR), 0.9);
  assert.equal(EXPANDED_FLOOR, 0.964);
  assert.equal(expandedConfidence(1), 1);
  assert.equal(expandedConfidence(0), 0);
  assert.ok(expandedConfidence(0.95) < 0.9);
  assert.ok(expandedConfidence(0.98) > 0.9 && expandedConfidence(0.98) < 0.98);
});

Deno.test("expansion: the daemon's permissions follow the configuration exactly", () => {
  const planOf = (env: Record<string, string>, task = "start") => {
    const all: Record<string, string> = {
      HOME: "/home/u",
      DATA_DIR: "/data/mneme",
      EMBEDDING_PROVIDER: "builtin",
      ...env,
    };
    return findProgram(task)!.launch({ env: (n) => all[n], args: [], cwd: "/work" }).plan;
  };
  const on = planOf({
    MEMORY_EXPANSION: "on",
    CAPTURE_MODEL_PROVIDER: "openai",
    CAPTURE_MODEL_URL: "http://10.9.8.7:8080/v1",
  });
  assert.ok(on.net.includes("10.9.8.7:8080"), on.net.join(","));
  // The same grants as capture's model path alone: expansion adds no host.
  const captureOnly = planOf({
    CAPTURE_MODEL_PROVIDER: "openai",
    CAPTURE_MODEL_URL: "http://10.9.8.7:8080/v1",
  });
  assert.deepEqual([...on.net].sort(), [...captureOnly.net].sort());
  // On without a model: no model host (the start then fails naming both settings).
  const bare = planOf({ MEMORY_EXPANSION: "on" });
  assert.ok(!bare.net.some((n) => /10\.9\.8\.7|anthropic|openai|11434/.test(n)), bare.net.join());
  for (const p of [on, bare, planOf({}, "mcp")]) {
    assert.ok(p.env.includes("MEMORY_EXPANSION") && p.env.includes("EXPANSION_DAILY_TOKENS"));
  }
});

Deno.test("expansion: memcli status's line", () => {
  const stats = { total: 3, by_scope: {}, by_project: {}, by_type: {} };
  assert.equal(expansionLine(stats), "  Expansion: off");
  assert.equal(
    expansionLine({
      ...stats,
      expansion: {
        on: true,
        model: "ollama/llama3.2",
        expanded: 2,
        waiting: 1,
        tokens_today: 1500,
        daily_tokens: 200000,
        waiting_for: "budget",
      },
    }),
    "  Expansion: on (ollama/llama3.2): 2 memories expanded, 1 waiting; 1500 of 200000 tokens " +
      "today; the daily budget is spent: the rest waits for the next day (UTC)",
  );
  assert.match(
    expansionLine({
      ...stats,
      expansion: {
        on: true,
        expanded: 0,
        waiting: 4,
        tokens_today: 0,
        daily_tokens: 200000,
        waiting_for: "lease",
      },
    }),
    /4 waiting; 0 of 200000 tokens today; another daemon on this database is expanding: this one waits$/,
  );
});
