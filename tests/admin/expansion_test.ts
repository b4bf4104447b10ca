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
import { memcli } from "../memcli/_util.ts";
import type { ExpansionInfo } from "../../src/memory/types.ts";

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

Deno.test({
  name: "admin daemon: expansions shown, cleared and redone (memcli expansion, the Admin API)",
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
    const env = { MEMORY_API_URL: admin.url, DATA_DIR: "/nonexistent" };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${admin.url}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined
          ? undefined
          : typeof body === "string"
          ? body
          : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const expanded = async (n: number) => {
      let stats: { expansion?: { expanded: number; waiting: number } } = {};
      for (let i = 0; i < 300; i++) {
        stats = (await call("GET", "/api/stats")).body;
        if (stats.expansion?.expanded === n) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail(`expected ${n} expanded: ${JSON.stringify(stats)}`);
    };
    const search = async () =>
      ((await call("POST", "/api/memories/search", { query: QUERY, project: "rails", limit: 3 }))
        .body as { memory: { id: string } }[]).map((r) => r.memory.id);
    try {
      const ids = new Map<string, string>();
      for (const m of MEMORIES) {
        const r = await call("POST", "/api/memories", {
          content: m.content,
          project: "rails",
          type: m.type,
        });
        assert.equal(r.status, 201);
        ids.set(m.content, r.body.memory.id);
      }
      await expanded(MEMORIES.length);
      const lint = ids.get(LINT.content)!;
      assert.equal((await search())[0], lint, "found by its phrases");

      // show: the phrases, the model, the state.
      const shown = await memcli(["expansion", "show", lint.slice(0, 8)], { env });
      assert.equal(shown.code, 0, shown.err);
      assert.match(shown.out, /state: {3}expanded\n/);
      assert.match(shown.out, /model: {3}ollama\/llama3\.2\n/);
      for (const ph of PHRASES.get(LINT.content)!) assert.ok(shown.out.includes(`  - ${ph}\n`));
      const json = JSON.parse(
        (await memcli(["expansion", "show", lint, "--json"], { env })).out,
      ) as ExpansionInfo;
      assert.deepEqual(json.phrases, PHRASES.get(LINT.content));

      // clear one: searched by its content only, and not expanded again.
      const cleared = await memcli(["expansion", "clear", lint], { env });
      assert.equal(cleared.code, 0, cleared.err);
      assert.match(cleared.out, /^Removed the expansion of /);
      assert.ok(!(await search()).includes(lint), "no longer found by its phrases");
      const after = (await call("GET", `/api/memories/${lint}/expansion`)).body as ExpansionInfo;
      assert.equal(after.state, "cleared");
      assert.deepEqual(after.phrases, []);
      // A write wakes the worker: it takes the new memory (the replay has no phrases for it:
      // dropped, it stays waiting), not the cleared one.
      const sent = replay.seen.length;
      await call("POST", "/api/memories", { content: "Deploys go out on Tuesdays.", project: "x" });
      for (let i = 0; i < 100 && replay.seen.length === sent; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(
        (JSON.parse(replay.seen.at(-1)!) as { memories: { content: string }[] }).memories
          .map((m) => m.content),
        ["Deploys go out on Tuesdays."],
      );
      const stats = (await call("GET", "/api/stats")).body;
      assert.deepEqual(stats.expansion.waiting, 1);
      assert.equal((await call("GET", `/api/memories/${lint}/expansion`)).body.state, "cleared");

      // redo: the worker expands it again.
      const redo = await memcli(["expansion", "redo", lint], { env });
      assert.equal(redo.code, 0, redo.err);
      assert.match(redo.out, /^1 memory waits for the expansion worker again/);
      await expanded(MEMORIES.length);
      assert.equal((await search())[0], lint, "found by its phrases again");

      // clear --all.
      const all = await memcli(["expansion", "clear", "--all", "--yes", "--json"], { env });
      assert.equal(all.code, 0, all.err);
      assert.deepEqual(JSON.parse(all.out), { cleared: MEMORIES.length });
      assert.equal((await call("GET", "/api/stats")).body.expansion.expanded, 0);

      // The CLI's usage errors.
      const both = await memcli(["expansion", "clear", lint, "--all"], { env });
      assert.equal(both.code, 1);
      assert.match(both.err, /give ID or --all, not both/);
      const none = await memcli(["expansion", "redo"], { env });
      assert.match(none.err, /ID or --all is required/);

      // The API validates like the others: the error names the field.
      const bad: [string, string, unknown, number, string][] = [
        ["POST", "/api/expansions/clear", {}, 400, "id"],
        ["POST", "/api/expansions/clear", { all: false }, 400, "all"],
        ["POST", "/api/expansions/clear", { all: "yes" }, 400, "all"],
        ["POST", "/api/expansions/redo", { id: "nope" }, 400, "id"],
        ["POST", "/api/expansions/redo", { id: lint, all: true }, 400, "all"],
        ["POST", "/api/expansions/redo", { id: null, all: true }, 400, "id"],
        ["POST", "/api/expansions/clear", { id: null, all: true }, 400, "id"],
        ["POST", "/api/expansions/clear", { id: 1 }, 400, "id"],
        ["POST", "/api/expansions/clear", { all: null }, 400, "all"],
        ["POST", "/api/expansions/clear", { ids: [lint] }, 400, "ids"],
        ["POST", "/api/expansions/clear", "[1]", 400, "body"],
        ["POST", "/api/expansions/clear", "{", 400, "body"],
        ["POST", "/api/expansions/clear", undefined, 400, "body"],
        ["GET", "/api/memories/nope/expansion", undefined, 400, "id"],
      ];
      for (const [method, path, body, status, field] of bad) {
        const r = await call(method, path, body);
        assert.equal(
          r.status,
          status,
          `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`,
        );
        assert.ok(
          String(r.body.error).startsWith(`${field}: `),
          `${path} ${JSON.stringify(body)}: ${r.body.error}`,
        );
      }
      const missing = await call(
        "GET",
        "/api/memories/00000000-0000-4000-8000-000000000000/expansion",
      );
      assert.equal(missing.status, 404);
      const wrong = await fetch(`${admin.url}/api/expansions/clear`);
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get("allow"), "POST");
      await wrong.body?.cancel();
    } finally {
      await admin.stop();
      await ol.close();
    }
  },
});
