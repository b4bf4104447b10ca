/**
 * The judge's request and the strict reading of its answer (src/memory/judge.ts), its pool, and
 * the judge as the admin daemon runs it (RECALL_JUDGE): the real service on PGlite, the model the
 * Messages API fake of tests/fakes/ through capture's client, answering from a script.
 */
import assert from "node:assert/strict";
import {
  JUDGE_MAX_CANDIDATES,
  JUDGE_MAX_NOTE_CHARS,
  JUDGE_MAX_PROMPT_CHARS,
  JUDGE_PROMPT,
  JudgeAnswerError,
  type JudgeBudget,
  judgeEstimate,
  judgePool,
  judgeResults,
  parseJudgeAnswer,
  RecallJudge,
  renderJudgeRequest,
} from "../../src/memory/judge.ts";
import {
  checkRecallJudge,
  ConfigError,
  loadMemoryConfig,
  MIN_RECALL_JUDGE_DAILY_TOKENS,
  RECALL_JUDGE_POOL_BOUNDS,
} from "../../src/config.ts";
import { anthropicCall } from "../../src/capture/model.ts";
import type { SearchResult } from "../../src/memory/types.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { pgliteService, postgresService } from "../helpers.ts";
import { FLAGS, judgeFake, KEY, PROJECT, PROMPT, seed, UNRELATED, userText } from "./judge.ts";

const NOTES = [
  { type: "decision", content: "We deploy with Helm charts from deploy/charts." },
  { type: "preference", content: "Use pnpm,\nnever npm.\n\n  Lockfile is committed." },
  { type: "fact", content: "Staging database is Postgres 16." },
];

Deno.test("the request numbers the candidates in order, each on one line with its type", () => {
  const r = renderJudgeRequest("  how do I add a dependency?\n", "acme-web", NOTES);
  assert.equal(r.system, JUDGE_PROMPT);
  assert.equal(
    r.user,
    "Project: acme-web\n\n<message>\nhow do I add a dependency?\n</message>\n\n<notes>\n" +
      "1. [decision] We deploy with Helm charts from deploy/charts.\n" +
      "2. [preference] Use pnpm, never npm. Lockfile is committed.\n" +
      "3. [fact] Staging database is Postgres 16.\n</notes>\n",
  );
  assert.match(renderJudgeRequest("hi there", null, NOTES).user, /^Project: \(none\)\n/);
});

Deno.test("the instruction asks for strict JSON and allows none", () => {
  assert.match(JUDGE_PROMPT, /\{"use": \[\]\}/);
  assert.ok(JUDGE_PROMPT.length < 1600, `${JUDGE_PROMPT.length} characters: keep it short`);
});

Deno.test("secrets in the message and the notes never reach the model", () => {
  const key = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";
  const r = renderJudgeRequest(`my token ${key} fails`, "p", [
    { type: "fact", content: `CI token is ${key}` },
  ]);
  assert.ok(!r.user.includes(key), r.user);
  assert.match(r.user, /\[secret removed: [^\]]+\] fails/);
  // The project too; a blank one is none.
  const p = renderJudgeRequest("why", `repo-${key}`, [{ type: "fact", content: "x" }]);
  assert.ok(!p.user.includes(key), p.user);
  assert.match(p.user, /^Project: repo-\[secret removed: [^\]]+\]\n/);
  const blank = renderJudgeRequest("why", "  ", [{ type: "fact", content: "x" }]);
  assert.match(blank.user, /^Project: \(none\)\n/);
});

Deno.test("a long message and long notes are cut and marked", () => {
  const r = renderJudgeRequest("x".repeat(5000), "p", [{
    type: "fact",
    content: "y".repeat(5000),
  }]);
  assert.ok(r.user.includes("x".repeat(JUDGE_MAX_PROMPT_CHARS - 1) + "…\n</message>"));
  assert.ok(!r.user.includes("x".repeat(JUDGE_MAX_PROMPT_CHARS)));
  assert.ok(r.user.includes("1. [fact] " + "y".repeat(JUDGE_MAX_NOTE_CHARS - 1) + "…\n"));
  assert.ok(!r.user.includes("y".repeat(JUDGE_MAX_NOTE_CHARS)));
});

Deno.test("a request with no candidate, too many or no message is refused", () => {
  assert.throws(() => renderJudgeRequest("hello", "p", []), /candidates: none/);
  const many = Array.from({ length: JUDGE_MAX_CANDIDATES + 1 }, () => NOTES[0]);
  assert.throws(() => renderJudgeRequest("hello", "p", many), /candidates: 21, at most 20/);
  assert.throws(() => renderJudgeRequest("  \n ", "p", NOTES), /prompt: empty/);
});

Deno.test("an answer names the chosen notes: 0-based indices, ascending", () => {
  assert.deepEqual(parseJudgeAnswer('{"use": [3, 1]}', 3), [0, 2]);
  assert.deepEqual(parseJudgeAnswer('{"use": []}', 3), []);
  assert.deepEqual(parseJudgeAnswer('  {"use":[2]}\n', 2), [1]);
  assert.deepEqual(parseJudgeAnswer('```json\n{"use": [2]}\n```', 3), [1]);
  assert.deepEqual(parseJudgeAnswer('```\n{"use": [1]}\n```', 1), [0]);
});

Deno.test("a malformed answer is no judgement: an error naming what was wrong", () => {
  const bad: [string, RegExp][] = [
    ["", /empty/],
    ["Notes 1 and 2.", /not JSON: "Notes 1 and 2\."/],
    ['Sure! {"use": [1]}', /not JSON/],
    ['{"use": [1]} and also 2', /not JSON/],
    ['```json\n{"use": [1]}\n```\nNote 1 is about pnpm.', /not JSON/],
    ["[1, 2]", /not a JSON object/],
    ["null", /not a JSON object/],
    ['"all"', /not a JSON object/],
    ["{}", /no "use"/],
    ['{"use": "all"}', /"use" is not a list/],
    ['{"use": 1}', /"use" is not a list/],
    ['{"use": [1], "why": "pnpm"}', /unknown key "why"/],
    ['{"use": ["1"]}', /use\[0\]: "1" is not a whole number/],
    ['{"use": [1.5]}', /use\[0\]: 1.5 is not a whole number/],
    ['{"use": [null]}', /use\[0\]: null/],
    ['{"use": [0]}', /use\[0\]: 0 is not a note in 1..3/],
    ['{"use": [1, 4]}', /use\[1\]: 4 is not a note in 1..3/],
    ['{"use": [-1]}', /use\[0\]: -1/],
    ['{"use": [2, 2]}', /use\[1\]: 2 is named twice/],
  ];
  for (const [text, why] of bad) {
    assert.throws(() => parseJudgeAnswer(text, 3), (e: unknown) => {
      assert.ok(e instanceof JudgeAnswerError, `${text}: ${e}`);
      assert.match((e as Error).message, why, text);
      return true;
    });
  }
});

Deno.test("the number of candidates must be one a request can have", () => {
  assert.throws(() => parseJudgeAnswer('{"use": []}', 0), RangeError);
  assert.throws(() => parseJudgeAnswer('{"use": []}', 21), RangeError);
  assert.throws(() => parseJudgeAnswer('{"use": []}', 2.5), RangeError);
});

/** A result of `type` with `score` and `confidence`, for the pool's tests. */
function result(i: number, type: string, score: number, confidence: number): SearchResult {
  return {
    memory: { id: `m${i}`, type, content: `memory ${i}` } as SearchResult["memory"],
    score,
    confidence,
  };
}

Deno.test("the pool: the first 5 results but bootstrap, score ≥ 0.1, confidence ≥ 0.5", () => {
  const rs = [
    result(1, "bootstrap", 0.9, 1),
    result(2, "fact", 0.8, 0.95),
    result(3, "rule", 0.7, 0.49),
    result(4, "fact", 0.09, 0.99),
    result(5, "decision", 0.5, 0.5),
    result(6, "fact", 0.4, 0.7),
    result(7, "fact", 0.3, 0.99), // the sixth non-bootstrap result: out of the pool
  ];
  assert.deepEqual(judgePool(rs).map((r) => r.memory.id), ["m2", "m5", "m6"]);
  assert.deepEqual(judgePool([]), []);
});

Deno.test("the pool's size and floor are parameters (the product's: 5 and 0.5)", () => {
  const rs = [
    result(1, "bootstrap", 0.9, 1),
    ...Array.from({ length: 12 }, (_, i) => result(i + 2, "fact", 0.8 - i * 0.05, (i % 4) / 4)),
  ];
  // Confidences of m2..m13: 0, 0.25, 0.5, 0.75, 0, ...; scores 0.8 down to 0.25.
  const ids = (o?: Parameters<typeof judgePool>[1]) => judgePool(rs, o).map((r) => r.memory.id);
  assert.deepEqual(ids(), ["m4", "m5"]);
  assert.deepEqual(ids({ limit: 5, floor: 0.5 }), ids());
  assert.deepEqual(ids({ limit: 5, floor: 0 }), ["m2", "m3", "m4", "m5", "m6"]);
  assert.deepEqual(ids({ limit: 8, floor: 0.3 }), ["m4", "m5", "m8", "m9"]);
  assert.deepEqual(ids({ limit: 20, floor: 0 }).length, 12);
  for (const o of [{ limit: 0 }, { limit: 21 }, { limit: 2.5 }]) {
    assert.throws(() => judgePool(rs, o), /pool limit: .*1\.\.20/);
  }
  for (const floor of [-0.1, 1.5, NaN]) {
    assert.throws(() => judgePool(rs, { floor }), /pool floor/);
  }
});

Deno.test("a request of the widest union (two pools of 10) is rendered and its answer read", () => {
  const notes = Array.from({ length: 20 }, (_, i) => ({ type: "fact", content: `note ${i + 1}` }));
  const r = renderJudgeRequest("which notes?", "p", notes);
  assert.match(r.user, /\n20\. \[fact\] note 20\n<\/notes>\n$/);
  assert.deepEqual(parseJudgeAnswer('{"use": [20, 11]}', 20), [10, 19]);
  assert.throws(() => parseJudgeAnswer('{"use": [21]}', 20), /not a note in 1\.\.20/);
});

/** A service with the memories, a fake model and a judge on them. */
async function judged(
  fake: ReturnType<typeof judgeFake>,
  o: {
    timeoutMs?: number;
    dailyTokens?: number;
    log?: (l: string) => void;
    backend?: "pglite" | "postgres";
    pool?: { limit?: number; floor?: number };
    /** The database's budget as the judge sees it (e.g. slowed down). */
    budget?: (b: JudgeBudget) => JudgeBudget;
  } = {},
) {
  const s = o.backend === "postgres" ? await postgresService() : await pgliteService();
  const ids = await seed(s.service);
  const service = s.service as SqlMemoryService;
  const judge = new RecallJudge({
    call: anthropicCall({ baseUrl: fake.url, apiKey: KEY, model: "claude-haiku-4-5" }),
    model: "anthropic/claude-haiku-4-5",
    timeoutMs: o.timeoutMs ?? 5000,
    dailyTokens: o.dailyTokens ?? 100_000,
    budget: o.budget ? o.budget(service.judgeBudget()) : service.judgeBudget(),
    log: o.log,
    pool: o.pool,
  });
  const search = (query: string) => service.search({ query, project: PROJECT, limit: 15 });
  return {
    fake,
    service,
    ids,
    judge,
    search,
    async close() {
      judge.close();
      await judge.settled();
      await s.close();
      await fake.close();
    },
  };
}

Deno.test("the judge: the memories the model chose are marked, the tokens charged in the database", async () => {
  const lines: string[] = [];
  const t = await judged(judgeFake(), { log: (l) => lines.push(l) });
  try {
    const results = await t.search(PROMPT);
    const flags = results.find((r) => r.memory.content === FLAGS.content)!;
    // Under the hook's floor, over the pool's: the plain hook would inject nothing.
    assert.ok(flags.confidence >= 0.5 && flags.confidence < 0.9, String(flags.confidence));
    const { results: marked, outcome } = await judgeResults(t.judge, PROMPT, PROJECT, results);
    assert.deepEqual(outcome.tokens > 0 && "chosen" in outcome ? outcome.chosen : null, [
      t.ids.get(FLAGS.content),
    ]);
    assert.equal(marked.length, results.length);
    for (const r of marked) assert.equal(r.chosen, r.memory.content === FLAGS.content);
    // One call, capped output, the request as rendered, the prompt never logged.
    const calls = t.fake.requestsTo("/v1/messages");
    assert.equal(calls.length, 1);
    const body = calls[0].json as { max_tokens: number; system: string };
    assert.equal(body.max_tokens, 60);
    assert.equal(body.system, JUDGE_PROMPT);
    await t.judge.settled();
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(await t.service.judgeBudget().judgeTokensOn(today), outcome.tokens);
    const report = await t.judge.report();
    assert.equal(report.asked, 1);
    assert.equal(report.judged, 1);
    assert.equal(report.chosen, 1);
    assert.equal(report.tokens_today, outcome.tokens);
    assert.ok(!lines.join("\n").includes(PROMPT));
  } finally {
    await t.close();
  }
});

Deno.test("the judge: a slow model falls back (timeout), the results unmarked", async () => {
  const t = await judged(judgeFake({ replyDelayMs: 1500 }), { timeoutMs: 150 });
  try {
    const results = await t.search(PROMPT);
    const started = performance.now();
    // An asker's larger budget does not lengthen the daemon's.
    const { results: out, outcome } = await judgeResults(t.judge, PROMPT, PROJECT, results, 7000);
    assert.ok(performance.now() - started < 1200, "the time budget holds");
    assert.deepEqual(outcome, { fallback: "timeout", tokens: 0 });
    assert.ok(out.every((r) => r.chosen === undefined));
    const report = await t.judge.report();
    assert.equal(report.fallbacks.timeout, 1);
    assert.equal(report.judged, 0);
    assert.match(report.last_error ?? "", /no answer within 150 ms/);
  } finally {
    await new Promise((r) => setTimeout(r, 1500)); // the fake's answer, sent to no one
    await t.close();
  }
});

Deno.test("the judge waits at most the asker's budget when it is smaller than its own", async () => {
  const t = await judged(judgeFake({ replyDelayMs: 1500 }), { timeoutMs: 5000 });
  try {
    const results = await t.search(PROMPT);
    const started = performance.now();
    const { outcome } = await judgeResults(t.judge, PROMPT, PROJECT, results, 150);
    assert.ok(performance.now() - started < 1200, "the asker's budget holds");
    assert.deepEqual(outcome, { fallback: "timeout", tokens: 0 });
    assert.match((await t.judge.report()).last_error ?? "", /no answer within 150 ms/);
  } finally {
    await new Promise((r) => setTimeout(r, 1500)); // the fake's answer, sent to no one
    await t.close();
  }
});

Deno.test("the judge: a malformed answer falls back; its tokens are charged all the same", async () => {
  const t = await judged(judgeFake({ answer: "Note 1 looks useful." }));
  try {
    const results = await t.search(PROMPT);
    const { results: out, outcome } = await judgeResults(t.judge, PROMPT, PROJECT, results);
    assert.equal("fallback" in outcome && outcome.fallback, "malformed");
    assert.ok(outcome.tokens > 0);
    assert.ok(out.every((r) => r.chosen === undefined));
    await t.judge.settled();
    const report = await t.judge.report();
    assert.equal(report.fallbacks.malformed, 1);
    assert.equal(report.tokens_today, outcome.tokens);
    assert.match(report.last_error ?? "", /not JSON/);
  } finally {
    await t.close();
  }
});

Deno.test("the judge: the model failing falls back (error), no key in the report", async () => {
  const fake = judgeFake();
  fake.options.errors = [{ status: 529, type: "overloaded_error", message: "Overloaded" }];
  const t = await judged(fake);
  try {
    const { outcome } = await judgeResults(t.judge, PROMPT, PROJECT, await t.search(PROMPT));
    assert.equal("fallback" in outcome && outcome.fallback, "error");
    await t.judge.settled();
    const report = await t.judge.report();
    assert.equal(report.fallbacks.error, 1);
    assert.match(report.last_error ?? "", /529/);
    assert.ok(!JSON.stringify(report).includes(KEY));
    // The call's reservation is given back: a failed call spends nothing.
    assert.equal(report.tokens_today, 0);
  } finally {
    await t.close();
  }
});

Deno.test("the judge: past the daily budget no call is made (budget), the plain floor applies", async () => {
  const t = await judged(judgeFake(), { dailyTokens: 2000 });
  try {
    const today = new Date().toISOString().slice(0, 10);
    await t.service.judgeBudget().chargeJudgeTokens(today, 1900);
    const { results: out, outcome } = await judgeResults(
      t.judge,
      PROMPT,
      PROJECT,
      await t.search(PROMPT),
    );
    assert.deepEqual(outcome, { fallback: "budget", tokens: 0 });
    assert.ok(out.every((r) => r.chosen === undefined));
    assert.equal(t.fake.requestsTo("/v1/messages").length, 0);
    assert.equal((await t.judge.report()).fallbacks.budget, 1);
  } finally {
    await t.close();
  }
});

for (const backend of ["pglite", "postgres"] as const) {
  Deno.test(`the judge on ${backend}: two prompts at once cannot both pass a budget that fits one`, async () => {
    // The budget fits one call's estimate, not two: with the check and the charge apart, both
    // prompts read an unspent day and both called the model.
    const probe = await judged(judgeFake(), { backend });
    let estimate: number;
    try {
      const pool = await probe.search(PROMPT);
      estimate = judgeEstimate(renderJudgeRequest(
        PROMPT,
        PROJECT,
        judgePool(pool).map((r) => ({ type: r.memory.type, content: r.memory.content })),
      ));
    } finally {
      await probe.close();
    }
    const fake = judgeFake({ replyDelayMs: 200 });
    const t = await judged(fake, { dailyTokens: 6000, backend });
    try {
      const today = new Date().toISOString().slice(0, 10);
      // What is left fits one estimate and not two.
      await t.service.judgeBudget().chargeJudgeTokens(today, 6000 - estimate - 10);
      const results = await t.search(PROMPT);
      const outcomes = await Promise.all([
        judgeResults(t.judge, PROMPT, PROJECT, results),
        judgeResults(t.judge, PROMPT, PROJECT, results),
      ]);
      assert.equal(fake.requestsTo("/v1/messages").length, 1);
      const reasons = outcomes.map((o) => "fallback" in o.outcome ? o.outcome.fallback : "chosen");
      assert.deepEqual(reasons.sort(), ["budget", "chosen"]);
      // The day holds what was charged before and the answer's usage, not its estimate.
      const used = outcomes.reduce((n, o) => n + o.outcome.tokens, 0);
      await t.judge.settled();
      assert.equal(await t.service.judgeBudget().judgeTokensOn(today), 6000 - estimate - 10 + used);
    } finally {
      await t.close();
    }
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("the judge answers without waiting for the usage's correction; its failure is logged once", async () => {
  const lines: string[] = [];
  let failing = false;
  const t = await judged(judgeFake(), {
    log: (l) => lines.push(l),
    // The database slow to record the usage (then failing): the answer does not wait for it.
    budget: (b) => ({
      reserveJudgeTokens: (d, n, l) => b.reserveJudgeTokens(d, n, l),
      judgeTokensOn: (d) => b.judgeTokensOn(d),
      chargeJudgeTokens: async (d, n) => {
        await sleep(1500);
        if (failing) throw new Error("connection lost");
        await b.chargeJudgeTokens(d, n);
      },
    }),
  });
  try {
    const results = await t.search(PROMPT);
    const started = performance.now();
    const { outcome } = await judgeResults(t.judge, PROMPT, PROJECT, results);
    assert.ok(performance.now() - started < 1200, "the answer does not wait for the database");
    assert.ok("chosen" in outcome);
    await t.judge.settled();
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(await t.service.judgeBudget().judgeTokensOn(today), outcome.tokens);
    failing = true;
    await judgeResults(t.judge, PROMPT, PROJECT, results);
    await judgeResults(t.judge, PROMPT, PROJECT, results);
    await t.judge.settled();
    const logged = lines.filter((l) => l.includes("the usage could not be recorded"));
    assert.deepEqual(logged, [
      "judge: the usage could not be recorded: connection lost (logged once)",
    ]);
    assert.ok(!lines.join("\n").includes(PROMPT));
  } finally {
    await t.close();
  }
});

Deno.test("the judge: a reservation slower than the time budget falls back (timeout), given back", async () => {
  const t = await judged(judgeFake(), {
    timeoutMs: 150,
    budget: (b) => ({
      reserveJudgeTokens: async (d, n, l) => {
        await sleep(1000);
        return await b.reserveJudgeTokens(d, n, l);
      },
      judgeTokensOn: (d) => b.judgeTokensOn(d),
      chargeJudgeTokens: (d, n) => b.chargeJudgeTokens(d, n),
    }),
  });
  try {
    const results = await t.search(PROMPT);
    const started = performance.now();
    const { outcome } = await judgeResults(t.judge, PROMPT, PROJECT, results);
    assert.ok(performance.now() - started < 800, "the time budget covers the reservation");
    assert.deepEqual(outcome, { fallback: "timeout", tokens: 0 });
    assert.equal(t.fake.requestsTo("/v1/messages").length, 0);
    await t.judge.settled();
    const report = await t.judge.report();
    assert.equal(report.fallbacks.timeout, 1);
    assert.match(report.last_error ?? "", /the budget could not be reserved within 150 ms/);
    // The reservation that landed late is given back.
    assert.equal(report.tokens_today, 0);
  } finally {
    await t.close();
  }
});

Deno.test("the judge: a prompt with no candidate makes no call (empty)", async () => {
  const t = await judged(judgeFake());
  try {
    const { outcome } = await judgeResults(t.judge, UNRELATED, PROJECT, await t.search(UNRELATED));
    assert.deepEqual(outcome, { fallback: "empty", tokens: 0 });
    assert.equal(t.fake.requestsTo("/v1/messages").length, 0);
    const report = await t.judge.report();
    assert.equal(report.fallbacks.empty, 1);
    assert.equal(report.last_error, undefined);
  } finally {
    await t.close();
  }
});

/** A search's results for the pool test: 10 memories, confidences 0.95 down to 0.05. */
function ladder(ids: readonly string[]): SearchResult[] {
  return ids.map((id, i) => ({
    memory: { id, type: "fact", content: `Note ${i + 1} about LaunchDarkly flags.` },
    score: 0.9 - i * 0.05,
    confidence: 0.95 - i * 0.1,
  } as SearchResult));
}

Deno.test("the judge offers the model the pool set: its first N results above its floor", async () => {
  const cases: [{ limit?: number; floor?: number }, number][] = [
    [{}, 5], // the default: 5 results, confidence ≥ 0.5 (0.95 .. 0.55)
    [{ limit: 10, floor: 0 }, 10],
    [{ limit: 8, floor: 0.3 }, 7], // 0.95 .. 0.35
    [{ limit: 3, floor: 0 }, 3],
    [{ limit: 10, floor: 0.9 }, 1],
  ];
  for (const [pool, n] of cases) {
    const t = await judged(judgeFake(), { pool });
    try {
      const results = ladder(Array.from({ length: 10 }, (_, i) => `m${i + 1}`));
      const { outcome } = await judgeResults(t.judge, PROMPT, PROJECT, results);
      const calls = t.fake.requestsTo("/v1/messages");
      assert.equal(calls.length, 1);
      const user = userText(calls[0].json as Record<string, unknown>);
      const notes = /<notes>\n([\s\S]*?)<\/notes>/.exec(user)![1].trim().split("\n");
      assert.deepEqual(
        notes,
        results.slice(0, n).map((r, i) => `${i + 1}. [fact] ${r.memory.content}`),
        JSON.stringify(pool),
      );
      // The model (choosing every note naming LaunchDarkly) chose exactly the pool.
      assert.deepEqual(
        "chosen" in outcome ? outcome.chosen : outcome,
        results.slice(0, n).map((r) => r.memory.id),
      );
      assert.deepEqual((await t.judge.report()).pool, {
        limit: pool.limit ?? 5,
        floor: pool.floor ?? 0.5,
      });
    } finally {
      await t.close();
    }
  }
});

Deno.test("RECALL_JUDGE settings: bad values name the variable; on without a model names both", () => {
  const env = (o: Record<string, string>) => (n: string) => o[n];
  const bad: [Record<string, string>, RegExp][] = [
    [{ RECALL_JUDGE: "maybe" }, /RECALL_JUDGE="maybe" must be on or off/],
    [
      { RECALL_JUDGE_TIMEOUT_MS: "50" },
      /RECALL_JUDGE_TIMEOUT_MS="50" must be an integer between 100 and 7000/,
    ],
    [{ RECALL_JUDGE_TIMEOUT_MS: "2s" }, /RECALL_JUDGE_TIMEOUT_MS/],
    // Past Claude Code's 10 s a hook with the hook's own 1.5 s and 1 s of waiting.
    [
      { RECALL_JUDGE_TIMEOUT_MS: "8000" },
      /RECALL_JUDGE_TIMEOUT_MS="8000" must be an integer between 100 and 7000/,
    ],
    [
      { RECALL_JUDGE_DAILY_TOKENS: "100" },
      /RECALL_JUDGE_DAILY_TOKENS="100" must be an integer between 6000/,
    ],
    [{ RECALL_JUDGE_POOL: "0" }, /RECALL_JUDGE_POOL="0" must be an integer between 1 and 10/],
    [{ RECALL_JUDGE_POOL: "11" }, /RECALL_JUDGE_POOL="11" must be an integer between 1 and 10/],
    [{ RECALL_JUDGE_POOL: "5.5" }, /RECALL_JUDGE_POOL="5.5" must be an integer/],
    [{ RECALL_JUDGE_POOL: "wide" }, /RECALL_JUDGE_POOL="wide" must be an integer/],
    [
      { RECALL_JUDGE_POOL_FLOOR: "1.5" },
      /RECALL_JUDGE_POOL_FLOOR="1.5" must be a number between 0 and 1/,
    ],
    [
      { RECALL_JUDGE_POOL_FLOOR: "-0.1" },
      /RECALL_JUDGE_POOL_FLOOR="-0.1" must be a number between 0 and 1/,
    ],
    [
      { RECALL_JUDGE_POOL_FLOOR: "half" },
      /RECALL_JUDGE_POOL_FLOOR="half" must be a number between 0 and 1/,
    ],
    [{ RECALL_JUDGE_POOL_FLOOR: "1e-1" }, /RECALL_JUDGE_POOL_FLOOR="1e-1"/],
  ];
  for (const [vars, why] of bad) {
    assert.throws(
      () => loadMemoryConfig(env(vars)),
      (e) => e instanceof ConfigError && why.test(e.message),
    );
  }
  const cfg = loadMemoryConfig(env({}));
  assert.equal(cfg.recallJudge, false);
  assert.equal(cfg.recallJudgeTimeoutMs, 2000);
  assert.equal(cfg.recallJudgeDailyTokens, 200_000);
  assert.equal(cfg.recallJudgePool, 5);
  assert.equal(cfg.recallJudgePoolFloor, 0.5);
  for (const [limit, floor] of [["1", "0"], ["10", "1"], [" 8 ", ".3"], ["7", "0.25"]]) {
    const c = loadMemoryConfig(env({ RECALL_JUDGE_POOL: limit, RECALL_JUDGE_POOL_FLOOR: floor }));
    assert.deepEqual([c.recallJudgePool, c.recallJudgePoolFloor], [Number(limit), Number(floor)]);
  }
  const on = loadMemoryConfig(env({ RECALL_JUDGE: "on", RECALL_JUDGE_TIMEOUT_MS: "3500" }));
  assert.equal(on.recallJudge, true);
  assert.equal(on.recallJudgeTimeoutMs, 3500);
  assert.throws(
    () => checkRecallJudge(on, null),
    (e) =>
      e instanceof ConfigError && /RECALL_JUDGE/.test(e.message) &&
      /CAPTURE_MODEL_PROVIDER/.test(e.message),
  );
  checkRecallJudge(on, "anthropic");
  checkRecallJudge(cfg, null);
});

Deno.test("the smallest daily budget fits one call of the largest request", () => {
  // The largest pool RECALL_JUDGE_POOL allows (10, the probe's widest), every note at its cut.
  assert.equal(RECALL_JUDGE_POOL_BOUNDS.max, 10);
  const notes = Array.from({ length: RECALL_JUDGE_POOL_BOUNDS.max }, () => ({
    type: "decision",
    content: "z".repeat(20_000),
  }));
  const req = renderJudgeRequest("q".repeat(20_000), "p".repeat(200), notes);
  assert.ok(judgeEstimate(req) <= MIN_RECALL_JUDGE_DAILY_TOKENS, String(judgeEstimate(req)));
});
