/**
 * The judge of the prompt hook's candidates in the admin daemon (RECALL_JUDGE=on): a real daemon
 * process, its model the Messages API fake (tests/memory/judge.ts) answering from a script. The
 * Admin API's search with `"judge": true` marks what the model chose, the stats count it, a bad
 * `judge` is a 400 naming it, and `memcli recall --hook` (a real process, its permissions the
 * launcher's) with RECALL_JUDGE=on injects what the fake chose; with a model slower than the
 * time budget the hook gets the plain floor's memories. On without a model stops the start.
 */
import assert from "node:assert/strict";
import { startAdminProcess, tempDir } from "../helpers.ts";
import { memcliProcess } from "../memcli/_util.ts";
import {
  FLAGS,
  judgeFake,
  KEY,
  MEMORIES,
  notesWith,
  PROJECT,
  PROMPT,
  UNRELATED,
  userText,
} from "../memory/judge.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import type { SearchResult, Stats } from "../../src/memory/types.ts";

const STAGING = MEMORIES[2];
/** A prompt whose pool's first memory passes the plain floor (0.9): STAGING. */
const STAGING_PROMPT = "connect to the staging database";

async function call(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A daemon with the judge on, its model `fake`; the memories stored; a git repo named PROJECT. */
async function daemon(fake: { url: string }, env: Record<string, string> = {}) {
  const admin = await startAdminProcess({
    env: {
      RECALL_JUDGE: "on",
      CAPTURE_MODEL_PROVIDER: "anthropic",
      CAPTURE_MODEL_URL: fake.url,
      CAPTURE_MODEL_API_KEY: KEY,
      ...env,
    },
  });
  const dir = await tempDir();
  const repo = `${dir.path}/${PROJECT}`;
  await Deno.mkdir(repo, { recursive: true });
  assert.ok((await new Deno.Command("git", { args: ["init", "-q", repo] }).output()).success);
  const ids = new Map<string, string>();
  for (const m of MEMORIES) {
    const r = await call(admin.url, "POST", "/api/memories", { ...m, project: PROJECT });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids.set(m.content, r.body.memory.id);
  }
  const hook = (prompt: string, judge: boolean, hookEnv = env) =>
    memcliProcess(["recall", "--hook"], {
      env: {
        MEMORY_API_URL: admin.url,
        DATA_DIR: `${dir.path}/d`,
        ...(judge ? { RECALL_JUDGE: "on", ...hookEnv } : {}),
      },
      cwd: dir.path,
      stdin: JSON.stringify({ session_id: "s", cwd: repo, prompt }),
    });
  return {
    admin,
    ids,
    hook,
    async close() {
      await admin.stop();
      await dir.cleanup();
    },
  };
}

Deno.test({
  name: "admin daemon: a search with judge marks what the model chose; the hook injects it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const fake = judgeFake();
    const d = await daemon(fake);
    try {
      const url = d.admin.url;
      const search = (o: Record<string, unknown>) =>
        call(url, "POST", "/api/memories/search", { query: PROMPT, project: PROJECT, ...o });
      const judged = await search({ judge: true, limit: 15 });
      assert.equal(judged.status, 200, JSON.stringify(judged.body));
      const chosen = (judged.body as SearchResult[]).filter((r) => r.chosen === true);
      assert.deepEqual(chosen.map((r) => r.memory.content), [FLAGS.content]);
      assert.ok((judged.body as SearchResult[]).every((r) => typeof r.chosen === "boolean"));
      assert.ok(chosen[0].confidence < 0.9, "under the hook's plain floor");
      // Without `judge`: the ranking, no call.
      const calls = fake.requestsTo("/v1/messages").length;
      const plain = await search({ limit: 15 });
      assert.ok((plain.body as SearchResult[]).every((r) => r.chosen === undefined));
      assert.equal(fake.requestsTo("/v1/messages").length, calls);
      // A bad `judge`: 400 naming the field.
      const bad = await search({ judge: "yes" });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.field, "judge");
      // The judge reads the query and project the search used: trimmed.
      const padded = await call(url, "POST", "/api/memories/search", {
        query: `  ${PROMPT}  `,
        project: `  ${PROJECT}  `,
        judge: true,
      });
      assert.equal(padded.status, 200, JSON.stringify(padded.body));
      const asked = userText(
        fake.requestsTo("/v1/messages").at(-1)!.json as Record<string, unknown>,
      );
      assert.ok(asked.startsWith(`Project: ${PROJECT}\n\n<message>\n${PROMPT}\n</message>`), asked);
      // A bad time budget: 400 naming it.
      for (const v of [50, 7001, 1.5, "300"]) {
        const r = await search({ judge: true, judge_timeout_ms: v });
        assert.equal(r.status, 400, String(v));
        assert.equal(r.body.field, "judge_timeout_ms");
        assert.match(r.body.error, /judge_timeout_ms: must be an integer between 100 and 7000/);
      }

      // The hook, a real memcli process: with RECALL_JUDGE=on, what the model chose.
      const on = await d.hook(PROMPT, true);
      assert.equal(on.code, 0, on.err);
      assert.ok(
        on.out.includes(`id ${d.ids.get(FLAGS.content)}] ${FLAGS.content}`),
        on.out + on.err,
      );
      assert.equal(on.out.match(/^- \[/gm)?.length, 1);
      // Without it: the plain floor, nothing for this prompt.
      const off = await d.hook(PROMPT, false);
      assert.equal(off.code, 0, off.err);
      assert.equal(off.out, "");
      // The model chose nothing about the staging database: nothing injected, though the plain
      // floor would have injected it.
      const staging = await d.hook(STAGING_PROMPT, true);
      assert.equal(staging.out, "", staging.out);
      assert.ok((await d.hook(STAGING_PROMPT, false)).out.includes(STAGING.content));
      // An empty pool: no call.
      const before = fake.requestsTo("/v1/messages").length;
      assert.equal((await d.hook(UNRELATED, true)).out, "");
      assert.equal(fake.requestsTo("/v1/messages").length, before);

      const stats = (await call(url, "GET", "/api/stats")).body as Stats;
      assert.equal(stats.judge?.model, "anthropic/claude-haiku-4-5");
      assert.equal(stats.judge?.judged, 4);
      assert.equal(stats.judge?.fallbacks.empty, 1);
      assert.ok(stats.judge!.tokens_today > 0);
      assert.match(d.admin.stderr(), /judge: on \(anthropic\/claude-haiku-4-5, 2000 ms a call/);
      assert.ok(!d.admin.stderr().includes(PROMPT), "the prompt is never logged");
      const status = await memcliProcess(["status"], {
        env: { MEMORY_API_URL: url, DATA_DIR: "/nonexistent" },
      });
      assert.match(
        status.out,
        /Judge: +on \(anthropic\/claude-haiku-4-5, 2000 ms, pool 5 ≥ 0\.5\): 4 of 5 prompts judged \(plain floor: empty 1\)/,
      );
    } finally {
      await d.close();
      await fake.close();
    }
  },
});

Deno.test({
  name:
    "admin daemon: RECALL_JUDGE_POOL and RECALL_JUDGE_POOL_FLOOR set the notes the model is offered",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const fake = judgeFake();
    const d = await daemon(fake, { RECALL_JUDGE_POOL: "2", RECALL_JUDGE_POOL_FLOOR: "0.3" });
    try {
      const url = d.admin.url;
      const search = (o: Record<string, unknown>) =>
        call(url, "POST", "/api/memories/search", { query: PROMPT, project: PROJECT, ...o });
      /** The plain ranking's candidates, and the notes of the judge's request for the same search. */
      const offered = async () => {
        const plain = ((await search({ limit: 15 })).body as SearchResult[])
          .filter((r) => r.memory.type !== "bootstrap" && r.score >= 0.1);
        const before = fake.requestsTo("/v1/messages").length;
        const judged = await search({ judge: true, limit: 15 });
        assert.equal(judged.status, 200, JSON.stringify(judged.body));
        const calls = fake.requestsTo("/v1/messages");
        assert.equal(calls.length, before + 1);
        const user = userText(calls.at(-1)!.json as Record<string, unknown>);
        const notes = /<notes>\n([\s\S]*?)<\/notes>/.exec(user)![1].trim().split("\n")
          .map((l) => l.replace(/^\d+\. \[[a-z_-]+\] /, ""));
        return { plain, notes, shown: JSON.stringify(plain.map((r) => [r.score, r.confidence])) };
      };
      // The floor: both candidates, one under the default floor (0.5) and over 0.3.
      const low = await offered();
      assert.equal(low.plain.length, 2, low.shown);
      assert.ok(low.plain[1].confidence < 0.5 && low.plain[1].confidence >= 0.3, low.shown);
      assert.deepEqual(low.notes, low.plain.map((r) => r.memory.content));
      // The limit: with more about the checkout, the first 2 of more than the default would offer.
      for (
        const content of [
          "The new checkout page is behind the checkout-v2 flag until the holiday freeze ends.",
          "Checkout errors are paged to the payments on-call, not the web team.",
          "The old checkout is removed in Q3; turn nothing off by hand in production.",
          "New checkout screenshots live in docs/checkout; update them with the flag.",
        ]
      ) {
        const r = await call(url, "POST", "/api/memories", {
          content,
          type: "fact",
          project: PROJECT,
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
      const many = await offered();
      assert.ok(many.plain.slice(0, 5).filter((r) => r.confidence >= 0.5).length > 2, many.shown);
      assert.deepEqual(many.notes, many.plain.slice(0, 2).map((r) => r.memory.content));
      const stats = (await call(url, "GET", "/api/stats")).body as Stats;
      assert.deepEqual(stats.judge?.pool, { limit: 2, floor: 0.3 });
      assert.match(d.admin.stderr(), /the first 2 results with confidence ≥ 0\.3\)/);
      const status = await memcliProcess(["status"], {
        env: { MEMORY_API_URL: url, DATA_DIR: "/nonexistent" },
      });
      assert.match(
        status.out,
        /Judge: +on \(anthropic\/claude-haiku-4-5, 2000 ms, pool 2 ≥ 0\.3\)/,
      );
    } finally {
      await d.close();
      await fake.close();
    }
  },
});

/** More memories about the checkout: a search for PROMPT finds more than one. */
const CHECKOUT = [
  "The new checkout page is behind the checkout-v2 flag until the holiday freeze ends.",
  "Checkout errors are paged to the payments on-call, not the web team.",
  "The old checkout is removed in Q3; turn nothing off by hand in production.",
  "New checkout screenshots live in docs/checkout; update them with the flag.",
];

Deno.test({
  name: "admin daemon: a search with rerank lists what the model chose first; a fallback does not",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // The scripted model: the notes whose line holds `pick` (a malformed answer when null).
    let pick: string | null = null;
    const fake = startFakeAnthropic({
      apiKeys: [KEY],
      usageFromBody: true,
      reply: (b) =>
        pick === null ? "not a judgement" : JSON.stringify({
          use: notesWith(userText(b), pick),
        }),
    });
    const d = await daemon(fake);
    try {
      const url = d.admin.url;
      for (const content of CHECKOUT) {
        const r = await call(url, "POST", "/api/memories", {
          content,
          type: "fact",
          project: PROJECT,
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
      const search = (o: Record<string, unknown>) =>
        call(url, "POST", "/api/memories/search", { query: PROMPT, project: PROJECT, ...o });
      const plain = (await search({ limit: 10 })).body as SearchResult[];
      const shown = JSON.stringify(plain.map((r) => [r.memory.content.slice(0, 20), r.score]));
      assert.ok(plain.length >= 4, shown);
      // The model chooses the last of the plain order (not bootstrap, score ≥ 0.1 in the pool).
      const last = plain.filter((r) => r.score >= 0.1).at(-1)!;
      assert.ok(plain.indexOf(last) >= 3, shown);
      pick = last.memory.content.slice(0, 30);
      const before = fake.requestsTo("/v1/messages").length;
      const reranked = await search({ rerank: true, limit: 3 });
      assert.equal(reranked.status, 200, JSON.stringify(reranked.body));
      const r = reranked.body as SearchResult[];
      // The model was asked about the first 10, though the limit is 3; the query is the message.
      const calls = fake.requestsTo("/v1/messages");
      assert.equal(calls.length, before + 1);
      const user = userText(calls.at(-1)!.json as Record<string, unknown>);
      assert.ok(user.startsWith(`Project: ${PROJECT}\n\n<message>\n${PROMPT}\n</message>`), user);
      assert.ok(user.includes(last.memory.content), user);
      // What it chose first, then the plain order, cut to the limit, each marked.
      assert.deepEqual(
        r.map((x) => [x.memory.id, x.chosen]),
        [[last.memory.id, true], [plain[0].memory.id, false], [plain[1].memory.id, false]],
      );
      // A malformed answer: the plain order, unmarked.
      pick = null;
      const fallback = (await search({ rerank: true, limit: 3 })).body as SearchResult[];
      assert.deepEqual(fallback.map((x) => x.memory.id), plain.slice(0, 3).map((x) => x.memory.id));
      assert.ok(fallback.every((x) => x.chosen === undefined));
      // The model chose none: the plain order, each marked not chosen.
      pick = "no note holds this";
      const nothing = (await search({ rerank: true, limit: 3 })).body as SearchResult[];
      assert.deepEqual(
        nothing.map((x) => [x.memory.id, x.chosen]),
        plain.slice(0, 3).map((x) => [x.memory.id, false]),
      );
      // The counts: the reranks are the judge's, on its budgets.
      const stats = (await call(url, "GET", "/api/stats")).body as Stats;
      assert.equal(stats.judge?.reranks, 3);
      assert.equal(stats.judge?.judged, 2);
      assert.equal(stats.judge?.fallbacks.malformed, 1);
      assert.ok((stats.judge?.tokens_today ?? 0) > 0);
      // Bad input: 400 naming the field.
      for (const o of [{ rerank: "yes" }, { rerank: true, judge: true }]) {
        const bad = await search(o);
        assert.equal(bad.status, 400, JSON.stringify(o));
        assert.equal(bad.body.field, "rerank");
      }
      const slow = await search({ rerank: true, judge_timeout_ms: 50 });
      assert.equal(slow.status, 400);
      assert.equal(slow.body.field, "judge_timeout_ms");
    } finally {
      await d.close();
      await fake.close();
    }
  },
});

/**
 * A hook whose judge ran out of time: it exits 0 with the plain floor's memory (STAGING), the
 * stats count one time-out and the daemon logged `logged`; the stats.
 */
async function plainFloorOnTimeout(
  d: Awaited<ReturnType<typeof daemon>>,
  r: { code: number; out: string; err: string },
  logged: RegExp,
): Promise<Stats> {
  assert.equal(r.code, 0, r.err);
  assert.ok(r.out.includes(`id ${d.ids.get(STAGING.content)}] ${STAGING.content}`), r.out + r.err);
  const stats = (await call(d.admin.url, "GET", "/api/stats")).body as Stats;
  assert.equal(stats.judge?.fallbacks.timeout, 1);
  assert.match(d.admin.stderr(), logged);
  return stats;
}

Deno.test({
  name: "admin daemon: a model slower than RECALL_JUDGE_TIMEOUT_MS: the hook gets the plain floor",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const fake = judgeFake({ replyDelayMs: 4000 });
    const d = await daemon(fake, { RECALL_JUDGE_TIMEOUT_MS: "300" });
    try {
      const stats = await plainFloorOnTimeout(
        d,
        await d.hook(STAGING_PROMPT, true),
        /judge: no answer within 300 ms; the hook's plain floor applies/,
      );
      assert.equal(stats.judge?.judged, 0);
    } finally {
      await d.close();
      await new Promise((r) => setTimeout(r, 4000));
      await fake.close();
    }
  },
});

Deno.test({
  name: "admin daemon: a service waiting longer than the hook waits at most the hook's budget",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const fake = judgeFake({ replyDelayMs: 4000 });
    // The service would wait 7 s; the hook's deadline covers 300 ms of judging.
    const d = await daemon(fake, { RECALL_JUDGE_TIMEOUT_MS: "7000" });
    try {
      await plainFloorOnTimeout(
        d,
        await d.hook(STAGING_PROMPT, true, { RECALL_JUDGE_TIMEOUT_MS: "300" }),
        /judge: no answer within 300 ms/,
      );
    } finally {
      await d.close();
      await new Promise((r) => setTimeout(r, 4000));
      await fake.close();
    }
  },
});

Deno.test({
  name: "admin daemon: RECALL_JUDGE=on without a model path stops the start, naming both",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await assert.rejects(
      () => startAdminProcess({ env: { RECALL_JUDGE: "on", CAPTURE_MODEL_PROVIDER: "off" } }),
      (e: Error) => /RECALL_JUDGE/.test(e.message) && /CAPTURE_MODEL_PROVIDER/.test(e.message),
    );
    await assert.rejects(
      () => startAdminProcess({ env: { RECALL_JUDGE_TIMEOUT_MS: "40000" } }),
      (e: Error) => /RECALL_JUDGE_TIMEOUT_MS="40000"/.test(e.message),
    );
    await assert.rejects(
      () => startAdminProcess({ env: { RECALL_JUDGE_POOL: "12" } }),
      (e: Error) => /RECALL_JUDGE_POOL="12" must be an integer between 1 and 10/.test(e.message),
    );
    await assert.rejects(
      () => startAdminProcess({ env: { RECALL_JUDGE_POOL_FLOOR: "2" } }),
      (e: Error) => /RECALL_JUDGE_POOL_FLOOR="2" must be a number between 0 and 1/.test(e.message),
    );
  },
});
