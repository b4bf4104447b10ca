/**
 * The admin daemon with memory expansion (MEMORY_EXPANSION=on): a real daemon process, its model
 * the fake Ollama replaying recorded phrases (tests/memory/expansion.ts). A memory written over
 * the Admin API is expanded in the background and then found by a query sharing no word with
 * it; the stats report it; the content comes back as written. Expansion on without a model
 * path stops the start, naming both settings.
 */
import assert from "node:assert/strict";
import { replayExpansions } from "../fakes/expansions.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import { startAdminProcess } from "../helpers.ts";
import { LINT, MEMORIES, PHRASES, QUERY } from "../memory/expansion.ts";

Deno.test({
  name: "admin daemon: expansion in the background, found after it, reported in the stats",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const replay = replayExpansions(PHRASES);
    const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
    const admin = await startAdminProcess({
      env: {
        MEMORY_EXPANSION: "on",
        CAPTURE_MODEL_PROVIDER: "ollama",
        CAPTURE_MODEL_URL: ol.url,
        EXPANSION_DAILY_TOKENS: "50000",
      },
    });
    try {
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${admin.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const j = await res.json();
        assert.ok(res.ok, JSON.stringify(j));
        return j;
      };
      for (const m of MEMORIES) {
        await post("/api/memories", { content: m.content, project: "rails", type: m.type });
      }
      let stats: { expansion?: { expanded: number; waiting: number; tokens_today: number } } = {};
      for (let i = 0; i < 300; i++) {
        stats = await (await fetch(`${admin.url}/api/stats`)).json();
        if (stats.expansion?.expanded === MEMORIES.length) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(stats.expansion?.expanded, MEMORIES.length, JSON.stringify(stats));
      assert.equal(stats.expansion?.waiting, 0);
      assert.ok(stats.expansion!.tokens_today > 0);
      const found = await post("/api/memories/search", {
        query: QUERY,
        project: "rails",
        limit: 1,
      }) as { memory: { content: string } }[];
      assert.equal(found[0].memory.content, LINT.content);
      assert.match(admin.stderr(), /expansion: on \(ollama\/llama3\.2/);
    } finally {
      await admin.stop();
      await ol.close();
    }
  },
});

Deno.test({
  name: "admin daemon: MEMORY_EXPANSION=on without a model path stops the start, naming both",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await assert.rejects(
      () => startAdminProcess({ env: { MEMORY_EXPANSION: "on", CAPTURE_MODEL_PROVIDER: "off" } }),
      (e: Error) => /MEMORY_EXPANSION/.test(e.message) && /CAPTURE_MODEL_PROVIDER/.test(e.message),
    );
  },
});
