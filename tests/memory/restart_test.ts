/**
 * Restart safety on a real DATA_DIR: data survives close and reopen; another embedder
 * (dimension or provider) puts the service in maintenance (409 naming `memcli reembed` on
 * writes and searches, reads and export work), `strict` refuses it, and `reembed()` —
 * resumable across restarts — moves the vectors over and records the new embedder.
 */
import assert from "node:assert/strict";
import { createAdminApp } from "../../src/admin/app.ts";
import type { MemoryConfig } from "../../src/config.ts";
import { MemoryError } from "../../src/domain/errors.ts";
import { openDatabase, openMemoryService, StartupError } from "../../src/memory/open.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import type { Memory } from "../../src/memory/types.ts";
import { columnDimension } from "../../src/store/migrate.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import { tempDir, testConfig } from "../helpers.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

async function is409(p: Promise<unknown>): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof MemoryError, String(err));
    assert.equal(err.status, 409);
    assert.match(err.message, /^maintenance: .*memcli reembed/);
    return true;
  });
}

/** Open, run `fn`, always close. */
async function withService<T>(
  cfg: MemoryConfig,
  fn: (s: SqlMemoryService) => Promise<T>,
): Promise<T> {
  const s = await openMemoryService(cfg);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

async function reembedAll(s: SqlMemoryService, batchSize: number) {
  const steps = [];
  for (let i = 0; i < 100; i++) {
    const p = await s.reembed({ batchSize });
    steps.push(p);
    if (p.finished) return steps;
  }
  throw new Error("reembed did not finish");
}

Deno.test({
  name: "restart safety: data intact; another embedder → maintenance → reembed",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dir = await tempDir("mneme-restart-");
    const fake = startFakeOllama({ "tiny-embed": 24 });
    const builtin32 = testConfig({ dataDir: dir.path, embeddingDim: 32 });
    const builtin48 = { ...builtin32, embeddingDim: 48 };
    const ollama = testConfig({
      dataDir: dir.path,
      embeddingProvider: "ollama",
      embeddingModel: "tiny-embed",
      ollamaUrl: fake.url,
    });
    let written: Memory[] = [];
    try {
      await t.step("written, closed, reopened: intact", async () => {
        written = await withService(builtin32, async (s) => {
          const out: Memory[] = [];
          out.push((await s.create({ content: "Deploys run on Fridays", tags: ["ops"] })).memory);
          out.push((await s.create({ content: "Use pnpm", project: "web", type: "rule" })).memory);
          const old = (await s.create({ content: "The API port is 8080" })).memory;
          out.push(
            (await s.create({ content: "The API port is 9090", supersedes: old.id })).memory,
          );
          out.push(await s.get(old.id));
          for (let i = 0; i < 3; i++) out.push((await s.create({ content: `filler ${i}` })).memory);
          return out;
        });
        await withService(builtin32, async (s) => {
          assert.equal(s.maintenanceReason, null);
          for (const m of written) assert.deepEqual(await s.get(m.id), m);
          assert.equal((await s.list()).length, written.length);
          const [hit] = await s.search({ query: "which day do deploys run", project: "web" });
          assert.equal(hit.memory.content, "Deploys run on Fridays");
          assert.equal(await columnDimension(storeOf(s).db), 32);
        });
      });

      await t.step("another dimension: maintenance, reads work, strict refuses", async () => {
        await withService(builtin48, async (s) => {
          assert.match(s.maintenanceReason ?? "", /builtin\/hash-v2 \(32 dimensions\).*48/);
          await is409(s.create({ content: "new" }));
          await is409(s.search({ query: "deploys" }));
          await is409(s.update(written[0].id, { content: "changed" }));
          await is409(s.import([{ content: "imported" }]));
          assert.deepEqual(await s.get(written[0].id), written[0]);
          assert.equal((await s.list()).length, written.length);
          assert.equal((await s.export()).length, written.length);
          assert.equal((await s.stats()).total, written.length);
          assert.deepEqual(await s.delete(written.at(-1)!.id), { ok: true }, "deletes work");
          written.pop();
          const h = await s.health();
          assert.equal(h.status, "maintenance");
          assert.match(h.maintenance?.reason ?? "", /memcli reembed/);
          assert.deepEqual(h.stored_embedder, {
            provider: "builtin",
            model: "hash-v2",
            dimension: 32,
          });
          // The same over HTTP.
          const app = createAdminApp({ service: s, log: () => {} });
          const res = await app.request("/api/memories", {
            method: "POST",
            body: JSON.stringify({ content: "over http" }),
          });
          assert.equal(res.status, 409);
          assert.match((await res.json()).error, /memcli reembed/);
          assert.equal((await app.request("/api/memories")).status, 200);
          assert.equal((await app.request("/healthz")).status, 200);
        });
        await assert.rejects(openMemoryService(builtin48, { strict: true }), (err: unknown) => {
          assert.ok(err instanceof StartupError);
          assert.match(err.message, /32 dimensions.*48 dimensions.*memcli reembed/);
          return true;
        });
        assert.equal(
          await withService(builtin32, (s) => s.list().then((l) => l.length)),
          written.length,
        );
      });

      await t.step(
        "reembed is resumable across restarts and records the new embedder",
        async () => {
          const first = await withService(builtin48, (s) => s.reembed({ batchSize: 3 }));
          assert.deepEqual(first, {
            done: 3,
            total: written.length,
            finished: false,
            embedder: { provider: "builtin", model: "hash-v2", dimension: 48 },
          });
          await withService(builtin48, async (s) => {
            assert.ok(s.maintenanceReason, "still in maintenance until finished");
            const steps = await reembedAll(s, 3);
            assert.equal(steps[0].done, 6, "continues where the last run stopped");
            const last = steps.at(-1)!;
            assert.equal(last.finished, true);
            assert.equal(last.done, written.length);
            assert.equal(s.maintenanceReason, null);
            assert.equal(await columnDimension(storeOf(s).db), 48);
            const [hit] = await s.search({ query: "which day do deploys run" });
            assert.equal(hit.memory.content, "Deploys run on Fridays");
            assert.equal(
              (await s.create({ content: "after the reembed" })).memory.content,
              "after the reembed",
            );
          });
          await withService(builtin48, async (s) => {
            const h = await s.health();
            assert.equal(h.status, "ok");
            assert.deepEqual(h.stored_embedder, {
              provider: "builtin",
              model: "hash-v2",
              dimension: 48,
            });
            for (const m of written) {
              const now = await s.get(m.id);
              assert.deepEqual({ ...now }, m, "reembedding changes no field");
            }
          });
          await withService(builtin32, async (s) => {
            assert.match(s.maintenanceReason ?? "", /48 dimensions.*32 dimensions/);
            await is409(s.create({ content: "x" }));
          });
        },
      );

      await t.step("another provider: maintenance, then reembed with it", async () => {
        await withService(ollama, async (s) => {
          assert.match(
            s.maintenanceReason ?? "",
            /builtin\/hash-v2.*ollama\/tiny-embed \(24 dimensions\)/,
          );
          await is409(s.search({ query: "deploys" }));
          const app = createAdminApp({ service: s, log: () => {} });
          let body;
          do {
            const res = await app.request("/api/maintenance/reembed", {
              method: "POST",
              body: JSON.stringify({ batch_size: 4 }),
            });
            assert.equal(res.status, 200);
            body = await res.json();
          } while (!body.finished);
          assert.deepEqual(body.embedder, {
            provider: "ollama",
            model: "tiny-embed",
            dimension: 24,
          });
          assert.equal(await columnDimension(storeOf(s).db), 24);
          assert.equal(
            (await s.search({ query: "Use pnpm", project: "web" }))[0].memory.content,
            "Use pnpm",
          );
        });
        await assert.rejects(
          openMemoryService({ ...builtin48 }, { strict: true }),
          /ollama\/tiny-embed.*builtin\/hash-v2.*memcli reembed/,
        );
        assert.equal(
          await withService(ollama, (s) => s.health().then((h) => h.status)),
          "ok",
        );
      });
    } finally {
      await fake.close();
      await dir.cleanup();
    }
  },
});

Deno.test({
  name: "embedded database: a refused second opener leaves no lock behind",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await tempDir("mneme-lock-");
    const cfg = testConfig({ dataDir: dir.path });
    try {
      const owner = await openDatabase(cfg);
      await assert.rejects(openDatabase(cfg), (err: unknown) => {
        assert.ok(err instanceof StartupError);
        assert.match(err.message, /is in use by another process/);
        return true;
      });
      await owner.db.close();
      owner.release();
      await new Promise((r) => setTimeout(r, 100));
      // The refused opener must not have taken the lock once the owner let it go.
      const next = await openDatabase(cfg);
      await next.db.close();
      next.release();
    } finally {
      await dir.cleanup();
    }
  },
});
