/**
 * The Admin API's search with `"rerank": true` in process (createAdminApp with a RecallJudge whose
 * model is a function here): a body that is no object is a 400 naming it, never a 500; bootstrap
 * memories ranked among the first results do not shrink the pool the model is asked about.
 */
import assert from "node:assert/strict";
import { createAdminApp } from "../../src/admin/app.ts";
import { JUDGE_RERANK_POOL, RecallJudge } from "../../src/memory/judge.ts";
import type { SearchResult } from "../../src/memory/types.ts";
import { pgliteService } from "../helpers.ts";

/** An app whose judge's model answers `answer` and records the requests' user texts. */
async function app(answer = '{"use": []}') {
  const s = await pgliteService({ embeddingDim: 32 });
  const asked: string[] = [];
  const logs: string[] = [];
  const judge = new RecallJudge({
    call: (_system, user) => {
      asked.push(user);
      return Promise.resolve({ text: answer, inputTokens: 100, outputTokens: 5 });
    },
    model: "anthropic/scripted",
    timeoutMs: 5000,
    dailyTokens: 100_000,
    budget: s.service.judgeBudget(),
    log: (l) => logs.push(l),
  });
  const a = createAdminApp({ service: s.service, judge, log: (l) => logs.push(l), ui: false });
  const search = async (body: string) => {
    const r = await a.request("/api/memories/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: r.status, json: await r.json() };
  };
  return {
    service: s.service,
    asked,
    logs,
    search,
    async close() {
      judge.close();
      await judge.settled();
      await s.close();
    },
  };
}

Deno.test("rerank: a body that is no object is a 400 naming the body, with the judge on", async () => {
  const t = await app();
  try {
    for (const body of ["null", "[]", '"x"', "3"]) {
      const r = await t.search(body);
      assert.equal(r.status, 400, `${body}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.field, "body", body);
    }
    assert.deepEqual(t.logs, []);
    assert.deepEqual(t.asked, []);
  } finally {
    await t.close();
  }
});

Deno.test("rerank: bootstrap memories among the first results do not shrink the model's pool", async () => {
  const t = await app();
  try {
    // Bootstrap memories worded as the query (ranked first), then more facts than the pool.
    for (let i = 0; i < 4; i++) {
      await t.service.create({
        content: `Deploy rollback procedure, standing instruction ${i}: deploy rollback first.`,
        type: "bootstrap",
        project: "shop",
      });
    }
    for (let i = 0; i < 14; i++) {
      await t.service.create({
        content: `Deploy rollback note ${i}: the deploy of service ${i} rolls back by tag.`,
        project: "shop",
      });
    }
    const query = { query: "deploy rollback", project: "shop" };
    const plain = await t.service.search({ ...query, limit: 30 });
    const firstTen = plain.slice(0, JUDGE_RERANK_POOL.limit);
    assert.ok(
      firstTen.some((r) => r.memory.type === "bootstrap"),
      JSON.stringify(plain.map((r) => [r.memory.type, r.score])),
    );
    const facts = plain.filter((r) => r.memory.type !== "bootstrap" && r.score >= 0.1);
    assert.ok(facts.length >= JUDGE_RERANK_POOL.limit, String(facts.length));
    const r = await t.search(JSON.stringify({ ...query, rerank: true, limit: 3 }));
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(t.asked.length, 1);
    const notes = /<notes>\n([\s\S]*?)<\/notes>/.exec(t.asked[0])![1].trim().split("\n");
    assert.equal(notes.length, JUDGE_RERANK_POOL.limit, t.asked[0]);
    assert.ok(notes.every((l) => !l.includes("[bootstrap]")), t.asked[0]);
    // The model chose none: the plain order, cut to the limit.
    assert.deepEqual(
      (r.json as SearchResult[]).map((x) => [x.memory.id, x.chosen]),
      plain.slice(0, 3).map((x) => [x.memory.id, false]),
    );
  } finally {
    await t.close();
  }
});
