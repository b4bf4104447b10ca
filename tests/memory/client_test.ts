/**
 * `MemoryClient` specifics beyond the contract: an unreachable API, the key, non-JSON
 * errors and a 503 health body; and the scheduled TTL cleanup with an injected clock.
 */
import assert from "node:assert/strict";
import { createAdminApp } from "../../src/admin/app.ts";
import { scheduleCleanup } from "../../src/memory/cleanup.ts";
import { MemoryClient } from "../../src/memory/client.ts";
import { MemoryError } from "../../src/domain/errors.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import { freePort, pgliteService } from "../helpers.ts";
import { Clock } from "./fixtures.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

Deno.test("MemoryClient: unreachable API is a 503 that says what to start", async () => {
  const port = freePort();
  const client = new MemoryClient({ baseUrl: `http://127.0.0.1:${port}/` });
  assert.equal(client.baseUrl, `http://127.0.0.1:${port}`);
  await assert.rejects(client.stats(), (err: unknown) => {
    assert.ok(err instanceof MemoryError);
    assert.equal(err.status, 503);
    assert.match(err.message, new RegExp(`cannot reach the Admin API at http://127.0.0.1:${port}`));
    assert.match(err.message, /memcli start/);
    assert.match(err.message, /MEMORY_API_URL/);
    return true;
  });
});

Deno.test({
  name: "MemoryClient: the field of an error is the API's `field`, never read from the message",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { service, close } = await pgliteService({ embeddingDim: 32 });
    try {
      const app = createAdminApp({ service, log: () => {} });
      const client = new MemoryClient({
        baseUrl: "http://localhost",
        fetch: (input, init) =>
          Promise.resolve(app.request(input as string, init, {
            remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
          })),
      });
      const fieldOf = async (p: Promise<unknown>) => {
        try {
          await p;
        } catch (err) {
          assert.ok(err instanceof MemoryError);
          return [err.status, err.field, err.message] as const;
        }
        throw new Error("no error");
      };
      const id = crypto.randomUUID();
      assert.deepEqual(await fieldOf(client.create({ content: "x", type: "note" as never })), [
        400,
        "type",
        "type: must be one of fact, rule, decision, feedback, context, bootstrap",
      ]);
      assert.deepEqual(await fieldOf(client.list({ limit: 0 })), [
        400,
        "limit",
        "limit: must be between 1 and 1000",
      ]);
      assert.deepEqual(
        await fieldOf(client.request("GET", "/api/memories", undefined, { colour: "red" })),
        [
          400,
          "colour",
          "colour: unknown field; allowed fields are scope, project, type, limit, id_prefix",
        ],
      );
      assert.deepEqual(await fieldOf(client.get(id)), [404, "id", `memory ${id} not found`]);
      assert.deepEqual(await fieldOf(client.request("GET", "/api/nothing")), [
        404,
        undefined,
        "no route GET /api/nothing",
      ]);
    } finally {
      await close();
    }
    // An answer without `field` names none, whatever its message looks like.
    const old = new MemoryClient({
      baseUrl: "http://localhost",
      fetch: () =>
        Promise.resolve(Response.json({ error: "weight: must be between 0.1 and 1.0" }, {
          status: 400,
        })),
    });
    await assert.rejects(old.stats(), (err: unknown) => {
      assert.ok(err instanceof MemoryError);
      assert.equal(err.status, 400);
      assert.equal(err.field, undefined);
      return true;
    });
  },
});

Deno.test({
  name: "MemoryClient: key, non-JSON errors, and health from a 503 body",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const fake = startFakeOllama({ "tiny-embed": 32 });
    const { service, close } = await pgliteService({
      embeddingProvider: "ollama",
      embeddingModel: "tiny-embed",
      ollamaUrl: fake.url,
    });
    try {
      const app = createAdminApp({ service, apiKey: "the-key", log: () => {} });
      const via = (apiKey?: string) =>
        new MemoryClient({
          baseUrl: "http://localhost",
          apiKey,
          // A caller on this machine, as Deno.serve describes it.
          fetch: (input, init) =>
            Promise.resolve(app.request(input as string, init, {
              remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
            })),
        });
      assert.equal((await via("the-key").create({ content: "keyed" })).memory.content, "keyed");
      await assert.rejects(via("wrong").stats(), (err: unknown) => {
        assert.ok(err instanceof MemoryError);
        assert.equal(err.status, 401);
        assert.equal(err.message, "invalid API key");
        return true;
      });
      await assert.rejects(via().list(), /missing API key/);

      const proxy = new MemoryClient({
        baseUrl: "http://localhost",
        fetch: () => Promise.resolve(new Response("<html>Bad Gateway</html>", { status: 502 })),
      });
      await assert.rejects(proxy.stats(), (err: unknown) => {
        assert.ok(err instanceof MemoryError);
        assert.equal(err.status, 502);
        assert.equal(err.message, "Admin API answered 502");
        return true;
      });

      // (Health results are cached for 10 s: the first call already sees the model gone.)
      fake.models.clear();
      const h = await via().health();
      assert.equal(h.status, "error", "healthz needs no key; a 503 body is the health");
      assert.equal(h.embedder.ok, false);
      assert.match(h.embedder.error ?? "", /ollama pull tiny-embed/);
    } finally {
      await close();
      await fake.close();
    }
  },
});

Deno.test({
  name: "scheduleCleanup runs in the background and deletes what expired",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const clock = new Clock();
    const { service, db, close } = await pgliteService({ embeddingDim: 16 }, { now: clock.now });
    const count = async () =>
      Number((await db.query<{ n: number }>("select count(*)::int as n from memories"))[0].n);
    const logs: string[] = [];
    let stop = () => {};
    try {
      await service.create({ content: "short lived", ttl: "30m" });
      await service.create({ content: "long lived", ttl: "2h" });
      await service.create({ content: "forever" });
      clock.at(60 * 60_000);
      stop = scheduleCleanup(storeOf(service), {
        now: clock.now,
        intervalMs: 20,
        log: (l) => logs.push(l),
      });
      const until = async (n: number) => {
        const deadline = Date.now() + 10_000;
        while (await count() !== n) {
          if (Date.now() > deadline) throw new Error(`still ${await count()} rows`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await until(2);
      clock.at(3 * 60 * 60_000);
      await until(1);
      assert.deepEqual(logs, [
        "ttl cleanup: deleted 1 expired memories",
        "ttl cleanup: deleted 1 expired memories",
      ]);
      assert.equal((await service.list())[0].content, "forever");
    } finally {
      stop();
      await close();
    }
  },
});
