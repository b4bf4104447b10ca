/**
 * The model path's request lists the stored memories nearest the user's new messages (the
 * service's own search on PGlite, and the pending proposals), secrets replaced, within its
 * limits, counted in the budget's estimate; an item's `replaces` is validated strictly and a
 * valid one reaches the inbox as the replacement of that memory (accepting it supersedes it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import {
  anthropicCall,
  CAPTURE_PROMPT,
  DEFAULT_MAX_OUTPUT_TOKENS,
  MAX_STORED_CHARS,
  MAX_STORED_ITEMS,
  type ModelCall,
  modelExtractor,
  type ModelStats,
  parseModelAnswer,
  renderStored,
  renderTurns,
  STORED_HEADING,
  TokenBudget,
} from "../../src/capture/model.ts";
import { MemoryCaptureSink, runCapture, type StoredMatch } from "../../src/capture/pipeline.ts";
import { InboxCaptureSink } from "../../src/capture/sink.ts";
import { Inbox } from "../../src/memory/inbox.ts";
import type { Turn } from "../../src/capture/transcript.ts";
import { pgliteService, tempDir } from "../helpers.ts";
import { line } from "./lines.ts";

const PNPM = "Use pnpm, not npm, in this repo.";
const PORT = "The staging database listens on port 5433.";
const COFFEE = "The office coffee machine is on the third floor.";
const OTHER_PROJECT = "The mobile app installs its packages with yarn.";
const PROPOSED = "The staging database is reset every Monday night.";

/** The `[sN] …` lines of a request's stored section, by id. */
function storedLines(user: string): Map<string, string> {
  const at = user.indexOf(STORED_HEADING);
  if (at < 0) return new Map();
  return new Map(
    user.slice(at + STORED_HEADING.length).trim().split("\n").map((l) => {
      const m = l.match(/^\[(s\d+)\] (.*)$/);
      assert.ok(m, `a stored line: ${l}`);
      return [m[1], m[2]] as [string, string];
    }),
  );
}

Deno.test("the request lists the stored memories nearest the new messages, and a valid replaces reaches the inbox", async () => {
  const s = await pgliteService();
  const dir = await tempDir("capture-stored-");
  let user = "";
  const fake = startFakeAnthropic({
    apiKeys: ["k"],
    usageFromBody: true,
    reply: (body) => {
      user = String((body.messages as { content: string }[])[0].content);
      const ids = storedLines(user);
      const idOf = (text: string) => [...ids].find(([, t]) => t.includes(text))?.[0];
      return JSON.stringify({
        memories: [
          // A change of the stored port, naming it.
          {
            text: "The staging database listens on port 6543.",
            type: "fact",
            scope: "project",
            confidence: 0.9,
            source: "m3",
            replaces: idOf("5433"),
          },
          // A new rule naming an id that was not listed: kept, the id dropped.
          {
            text: "Run the migrations with sqitch, never by hand.",
            type: "rule",
            scope: "project",
            confidence: 0.9,
            source: "m1",
            replaces: "s99",
          },
          // Naming a proposal (not a stored memory): kept, the id dropped.
          {
            text: "The staging database is reset every Sunday night.",
            type: "fact",
            scope: "project",
            confidence: 0.9,
            source: "m3",
            replaces: idOf("(proposed)"),
          },
        ],
      });
    },
  });
  try {
    const inbox = new Inbox(s.service, s.service.proposals());
    const port = (await s.service.create({ content: PORT, project: "web" })).memory;
    await s.service.create({ content: PNPM, project: "web" });
    await s.service.create({ content: COFFEE, project: "web" });
    await s.service.create({ content: OTHER_PROJECT, project: "mobile" });
    const sink = new InboxCaptureSink(inbox);
    await inbox.propose({
      content: PROPOSED,
      type: "fact",
      project: "web",
      sessionId: "old",
      confidence: 0.7,
    });
    const path = join(dir.path, "s.jsonl");
    await Deno.writeTextFile(
      path,
      line("e1", "s", "user", "install the deps with pnpm and run the migrations with sqitch") +
        line("e2", "s", "assistant", "Done.") +
        line("e3", "s", "user", "btw the staging database moved to port 6543, reset on Sundays"),
    );
    const stats: ModelStats = { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
    const extractor = modelExtractor(
      anthropicCall({ baseUrl: fake.url, apiKey: "k", model: "claude-haiku-4-5" }),
      new TokenBudget(100_000, 100_000),
      { stats },
    );
    const report = await runCapture(
      { sessionId: "s", transcriptPath: path, cwd: "/", event: "Stop", project: "web" },
      sink,
      { extractor },
    );
    // The request: the transcript, then the nearest stored memories and the related proposal.
    assert.equal(stats.calls, 1);
    assert.match(user, /^\[m1\] USER: install the deps/);
    const listed = [...storedLines(user).values()];
    assert.ok(listed.includes(PORT), listed.join(" | "));
    assert.ok(listed.includes(PNPM), listed.join(" | "));
    assert.ok(listed.includes(`(proposed) ${PROPOSED}`), listed.join(" | "));
    assert.ok(!listed.some((l) => l.includes("coffee")), "an unrelated memory is not listed");
    assert.ok(!listed.some((l) => l.includes("yarn")), "another project's memory is not listed");
    // The answer: one replacement, two ids dropped from their items (kept without them).
    assert.equal(stats.replacesDropped, 2);
    assert.equal(report.replacements, 1);
    const items = await inbox.list();
    const change = items.find((i) => i.content.includes("6543"));
    assert.equal(change?.replaces?.id, port.id, "proposed as the replacement of the stored port");
    const rule = items.find((i) => i.content.includes("sqitch"));
    assert.ok(rule && rule.replaces === null, "an unknown id is dropped, the item kept");
    const sunday = items.find((i) => i.content.includes("Sunday"));
    assert.ok(sunday && sunday.replaces === null, "a proposal's id is not a replacement");
    // Accepting it supersedes the stored memory.
    const accepted = await inbox.accept(change!.id);
    assert.equal(accepted.superseded, port.id);
    assert.equal((await s.service.get(port.id)).superseded_by, accepted.memory.id);
  } finally {
    await fake.close();
    await dir.cleanup();
    await s.close();
  }
});

const turns: Turn[] = [
  {
    role: "user",
    text: "deploy the api with helmfile, and the token is ghp_DQiwUV1PcsqlQcljoo0bFjCPqxx0HP4A733z",
    uuid: "e1",
    timestamp: "t1",
    sessionId: "s1",
  },
];

Deno.test("the stored memories pass the secret check and the section keeps its limits", async () => {
  const many: StoredMatch[] = Array.from({ length: 40 }, (_, i) => ({
    id: `x${i}`,
    text: `The api is deployed with helmfile step ${i}; ${"detail ".repeat(20)}`,
  }));
  const secret: StoredMatch = {
    id: "sec",
    text: "The helmfile deploy reads its key from ghp_DQiwUV1PcsqlQcljoo0bFjCPqxx0HP4A733z",
  };
  const { userTexts } = await renderTurns(turns);
  assert.ok(!userTexts[0].includes("ghp_"), "the search is asked with the secret replaced");
  const queries: string[] = [];
  const r = await renderStored(userTexts, (q, limit) => {
    queries.push(q);
    return Promise.resolve([secret, ...many].slice(0, limit * 10));
  });
  assert.equal(queries.length, 1);
  assert.ok(!r.text.includes("ghp_DQiw"), "a stored memory's secret is replaced");
  assert.match(r.text, /\[s1\] The helmfile deploy reads its key from \[secret removed/);
  assert.ok(r.stored.size <= MAX_STORED_ITEMS);
  assert.ok(r.text.length - STORED_HEADING.length <= MAX_STORED_CHARS + 1, `${r.text.length}`);
  // Nothing found: no section at all.
  assert.equal((await renderStored(userTexts, () => Promise.resolve([]))).text, "");
});

Deno.test("the budget's estimate counts the stored memories' section", async () => {
  const stored = Array.from({ length: 12 }, (_, i) => ({
    text: `Deploy the api with helmfile ${i}: ${"the chart lives in deploy/charts ".repeat(4)}`,
    project: "p",
  }));
  const { text } = await renderTurns(turns);
  const without = Math.ceil((CAPTURE_PROMPT.length + text.length) / 3) +
    DEFAULT_MAX_OUTPUT_TOKENS;
  let calls = 0;
  const call: ModelCall = () => {
    calls++;
    return Promise.resolve({ text: '{"memories": []}', inputTokens: 1, outputTokens: 1 });
  };
  const sink = new MemoryCaptureSink(stored);
  const related = (q: string, limit: number) => sink.related(q, "p", limit);
  // A budget the transcript alone fits, but not with the section: the call is not made.
  const stats: ModelStats = { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
  await modelExtractor(call, new TokenBudget(without + 10, 1_000_000), { stats })(turns, {
    sessionId: "s1",
    related,
  });
  assert.equal(calls, 0);
  assert.equal(stats.fallbacks, 1);
  // Without stored memories it fits.
  await modelExtractor(call, new TokenBudget(without + 10, 1_000_000))(turns, { sessionId: "s1" });
  assert.equal(calls, 1);
});

Deno.test("replaces is validated strictly: only a listed accepted memory's id", () => {
  const sources = new Map<string, Turn>([["m1", turns[0]]]);
  const stored = new Map<string, StoredMatch>([
    ["s1", { id: "uuid-1", text: "Deploys use helm.", global: false }],
    ["s2", { id: "uuid-2", text: "Deploys are on Fridays.", proposed: true }],
  ]);
  const item = (replaces: unknown) => ({
    text: "Deploys use helmfile now.",
    type: "rule",
    scope: "project",
    confidence: 0.8,
    source: "m1",
    ...(replaces === undefined ? {} : { replaces }),
  });
  const r = parseModelAnswer(
    JSON.stringify({
      memories: [
        item("s1"),
        item("s2"),
        item("s3"),
        item(1),
        item("uuid-1"),
        item("__proto__"),
        item(undefined),
      ],
    }),
    sources,
    stored,
  );
  assert.equal(r.candidates.length, 7, "an item is never dropped for its replaces");
  assert.deepEqual(r.candidates.map((c) => c.replaces?.id ?? null), [
    "uuid-1",
    null,
    null,
    null,
    null,
    null,
    null,
  ]);
  assert.equal(r.replacesDropped, 5);
});

Deno.test("a message the search refuses (a NUL, a lone surrogate) still reaches the model: the capture does not fail", async () => {
  const s = await pgliteService();
  const dir = await tempDir("capture-stored-");
  try {
    const inbox = new Inbox(s.service, s.service.proposals());
    await s.service.create({ content: PORT, project: "web" });
    const path = join(dir.path, "s.jsonl");
    await Deno.writeTextFile(
      path,
      line("e1", "s", "user", "the staging database \u0000 listens on port 5433 \ud800 still") +
        // Cut at the query's 2,000 characters between the two halves of an emoji.
        line("e2", "s", "user", `the staging database port ${"x".repeat(1_973)}\u{1F600} again`),
    );
    let user = "";
    const call: ModelCall = (_system, text) => {
      user = text;
      return Promise.resolve({ text: '{"memories": []}', inputTokens: 1, outputTokens: 1 });
    };
    const stats: ModelStats = { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
    const extractor = modelExtractor(call, new TokenBudget(100_000, 100_000), { stats });
    const report = await runCapture(
      { sessionId: "s", transcriptPath: path, cwd: "/", event: "Stop", project: "web" },
      new InboxCaptureSink(inbox),
      { extractor },
    );
    assert.equal(report.turns, 2);
    assert.equal(stats.calls, 1);
    assert.ok([...storedLines(user).values()].includes(PORT), user);
    assert.equal(stats.storedFailures ?? 0, 0, "every search answered");
    assert.ok(await inbox.cursor("s"), "the cursor moved on");
  } finally {
    await dir.cleanup();
    await s.close();
  }
});

Deno.test("a failing or hanging search leaves the section out (or what was found by then); the model is still called", async () => {
  const twoTurns: Turn[] = [
    {
      role: "user",
      text: "deploy the api with helmfile",
      uuid: "e1",
      timestamp: "t1",
      sessionId: "s",
    },
    {
      role: "user",
      text: "the chart lives in deploy/charts",
      uuid: "e2",
      timestamp: "t2",
      sessionId: "s",
    },
  ];
  let user = "";
  const call: ModelCall = (_system, text) => {
    user = text;
    return Promise.resolve({ text: '{"memories": []}', inputTokens: 1, outputTokens: 1 });
  };
  const found: StoredMatch = { id: "a", text: "The api is deployed with helmfile." };
  // The first search answers, the second fails: the first's memory is listed.
  const stats: ModelStats = { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
  let n = 0;
  await modelExtractor(call, new TokenBudget(100_000, 100_000), { stats })(twoTurns, {
    sessionId: "s",
    related: () => n++ ? Promise.reject(new Error("the store is gone")) : Promise.resolve([found]),
  });
  assert.equal(stats.calls, 1);
  assert.deepEqual([...storedLines(user).values()], [found.text]);
  assert.equal(stats.storedFailures, 1);
  // A search that never answers: the request goes without the section after the deadline.
  const t0 = performance.now();
  await modelExtractor(call, new TokenBudget(100_000, 100_000), { stats, storedDeadlineMs: 50 })(
    twoTurns,
    { sessionId: "s", related: () => new Promise(() => {}) },
  );
  assert.ok(performance.now() - t0 < 5_000);
  assert.equal(stats.calls, 2);
  assert.ok(!user.includes(STORED_HEADING), user);
  assert.equal(stats.storedFailures, 2);
});

Deno.test("a project's item never names a global memory in replaces (superseding it would take it from every project)", async () => {
  const s = await pgliteService();
  try {
    const inbox = new Inbox(s.service, s.service.proposals());
    const global = (await s.service.create({ content: "Use npm for every package install." }))
      .memory;
    const own = (await s.service.create({ content: "Use npm in the web repo.", project: "web" }))
      .memory;
    const sink = new InboxCaptureSink(inbox);
    const found = await sink.related("use npm for package installs", "web", 5);
    const stored = new Map(found.map((m, i) => [`s${i + 1}`, m] as [string, StoredMatch]));
    const idOf = (id: string) => [...stored].find(([, m]) => m.id === id)?.[0];
    assert.ok(idOf(global.id) && idOf(own.id), JSON.stringify(found));
    const sources = new Map<string, Turn>([["m1", turns[0]]]);
    const item = (scope: string, replaces: string | undefined) => ({
      text: "Use pnpm for package installs.",
      type: "rule",
      scope,
      confidence: 0.8,
      source: "m1",
      replaces,
    });
    const r = parseModelAnswer(
      JSON.stringify({
        memories: [
          item("project", idOf(global.id)),
          item("project", idOf(own.id)),
          item("global", idOf(global.id)),
          // A global change of the project's own memory widens it: kept.
          item("global", idOf(own.id)),
        ],
      }),
      sources,
      stored,
    );
    assert.deepEqual(r.candidates.map((c) => c.replaces?.id ?? null), [
      null,
      own.id,
      global.id,
      own.id,
    ]);
    assert.equal(r.replacesDropped, 1);
  } finally {
    await s.close();
  }
});

Deno.test("a repeat the model calls a change waits in the inbox as a replacement: auto-accept never takes it", async () => {
  const dir = await tempDir("capture-stored-");
  try {
    const sink = new MemoryCaptureSink([{ text: PNPM, project: "web" }]);
    const path = join(dir.path, "s.jsonl");
    await Deno.writeTextFile(path, line("e1", "s", "user", "use pnpm, not npm, in this repo"));
    const extractor = modelExtractor(
      (_system, user) => {
        const id = [...storedLines(user)].find(([, t]) => t === PNPM)?.[0];
        return Promise.resolve({
          text: JSON.stringify({
            memories: [{
              text: "Use pnpm, not npm, in this repo.",
              type: "rule",
              scope: "project",
              confidence: 1,
              source: "m1",
              replaces: id,
            }],
          }),
          inputTokens: 1,
          outputTokens: 1,
        });
      },
      new TokenBudget(100_000, 100_000),
    );
    const report = await runCapture(
      { sessionId: "s", transcriptPath: path, cwd: "/", event: "Stop", project: "web" },
      sink,
      { extractor, autoAccept: 0.5 },
    );
    assert.equal(report.duplicates, 0, "not dropped as the repeat of the memory it names");
    assert.equal(report.proposed, 1);
    assert.equal(report.replacements, 1);
    assert.equal(report.autoAccepted, 0);
    const proposed = sink.records.filter((r) => r.state === "proposed");
    assert.equal(proposed.length, 1);
    assert.equal(proposed[0].proposal?.replaces?.id, sink.records[0].id);
    assert.equal(sink.records.filter((r) => r.state === "accepted").length, 1);
  } finally {
    await dir.cleanup();
  }
});
