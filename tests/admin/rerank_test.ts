/**
 * The Admin API's search with `"rerank": true` in process (createAdminApp with a RecallJudge whose
 * model is a function here): a body that is no object is a 400 naming it, never a 500.
 */
import assert from "node:assert/strict";
import { createAdminApp } from "../../src/admin/app.ts";
import { RecallJudge } from "../../src/memory/judge.ts";
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
