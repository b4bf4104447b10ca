/**
 * The search diagnostics (src/memory/diagnostics.ts): explainSearch is the service's search,
 * each result with the signals its confidence was computed from; bad input is refused as by
 * search.
 */
import assert from "node:assert/strict";
import { explainSearch } from "../../src/memory/diagnostics.ts";
import { confidenceOf } from "../../src/memory/confidence.ts";
import { pgliteService } from "../helpers.ts";

Deno.test("diagnostics: explainSearch gives search's results with their confidence's signals", async () => {
  const { service, close } = await pgliteService();
  try {
    for (
      const content of [
        "The deploy script lives in tools/deploy.sh and needs the staging key",
        "Staging deploys run every Friday after the release review",
        "The cat is called Miso",
      ]
    ) {
      await service.create({ content, scope: "project", project: "p", type: "context" });
    }
    const input = { query: "how do staging deploys work", project: "p", limit: 5 };
    const plain = await service.search(input);
    const explained = await explainSearch(service, input);
    assert.ok(plain.length >= 2);
    // The same results in the same order with the same confidence; the score decays with the
    // clock between the two searches, by far less than 1e-6.
    assert.deepEqual(explained.map((r) => r.memory), plain.map((r) => r.memory));
    assert.deepEqual(explained.map((r) => r.confidence), plain.map((r) => r.confidence));
    explained.forEach((r, i) => assert.ok(Math.abs(r.score - plain[i].score) < 1e-6));
    for (const r of explained) assert.equal(r.confidence, confidenceOf(r.signals));
    await assert.rejects(explainSearch(service, { query: "" }), /query/);
  } finally {
    await close();
  }
});
