/**
 * The embedded database closes after a quiet spell (`DATABASE_IDLE_UNLOAD_S`) and opens again
 * at the next statement: nothing lost, transactions and statements in flight hold it open,
 * `/healthz` and the vacuum's check do not open it, and it never opens a new database where
 * the closed one's files went missing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryError } from "../../../src/domain/errors.ts";
import { openPgliteInWorker } from "../../../src/store/pglite/mod.ts";
import { createServiceOnDb } from "../../../src/memory/open.ts";
import { ConfigError, DEFAULT_IDLE_UNLOAD_S, loadMemoryConfig } from "../../../src/config.ts";
import { tempDir, testConfig } from "../../helpers.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until `cond` holds (at most 10 s). */
async function until(cond: () => boolean, what: string): Promise<void> {
  const end = performance.now() + 10_000;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

Deno.test("DATABASE_IDLE_UNLOAD_S: 600 by default, 0 keeps the database open, anything else is an error naming it", () => {
  const cfg = (v?: string) =>
    loadMemoryConfig((n) => n === "DATABASE_IDLE_UNLOAD_S" ? v : n === "HOME" ? "/h" : undefined);
  assert.equal(DEFAULT_IDLE_UNLOAD_S, 600);
  assert.equal(cfg().databaseIdleUnloadS, 600);
  assert.equal(cfg("0").databaseIdleUnloadS, 0);
  assert.equal(cfg("45").databaseIdleUnloadS, 45);
  for (const bad of ["-1", "1.5", "ten", "604801"]) {
    assert.throws(() => cfg(bad), (e: unknown) =>
      e instanceof ConfigError &&
      e.message === `DATABASE_IDLE_UNLOAD_S="${bad}" must be an integer between 0 and 604800`);
  }
});

Deno.test("idle unload: the database closes after the quiet spell and opens again at the next statement, nothing lost", async () => {
  const dir = await tempDir();
  const { db, handle: h } = await openPgliteInWorker(join(dir.path, "db"), {
    idleUnloadMs: 300,
  });
  try {
    await db.exec("create table t (id int primary key, v text)");
    await db.query("insert into t select g, md5(g::text) from generate_series(1, 500) g");
    assert.equal(h.unloaded(), null);
    await until(() => h.unloaded() !== null, "the unload");
    assert.equal(h.unloads, 1);
    assert.deepEqual(h.unloaded(), {});
    // The next statement opens it again, in a new worker, with every row.
    assert.deepEqual(await db.query("select count(*)::int as n from t"), [{ n: 500 }]);
    assert.equal(h.unloaded(), null);
    // A transaction that stays open longer than the quiet spell keeps it open, and so does a
    // statement sent meanwhile.
    const tx = db.transaction(async (t) => {
      await t.query("insert into t values (0, 'in the transaction')");
      await sleep(700);
      return await t.query<{ n: number }>("select count(*)::int as n from t");
    });
    await sleep(400);
    assert.equal(h.unloaded(), null, "unloaded under an open transaction");
    assert.deepEqual(await tx, [{ n: 501 }]);
    assert.equal(h.unloads, 1);
    // Statements and transactions sent while it closes wait and go to the reopened database.
    await until(() => h.unloaded() !== null, "the second unload");
    const [count, inserted] = await Promise.all([
      db.query<{ n: number }>("select count(*)::int as n from t"),
      db.transaction((t) => t.query("insert into t values (-1, 'after') returning v")),
    ]);
    assert.deepEqual(count, [{ n: 501 }]);
    assert.deepEqual(inserted, [{ v: "after" }]);
    assert.equal(h.unloads, 2);
  } finally {
    await db.close();
  }
  // Closing it while it is unloaded opens nothing; later statements fail as on a closed one.
  const { db: again, handle: againH } = await openPgliteInWorker(join(dir.path, "db"), {
    idleUnloadMs: 200,
  });
  try {
    assert.deepEqual(await again.query("select count(*)::int as n from t"), [{ n: 502 }]);
    await until(() => againH.unloaded() !== null, "the unload");
  } finally {
    await again.close();
  }
  assert.equal(againH.unloaded() !== null, true);
  await assert.rejects(again.query("select 1"), /the database is closed/);
  await dir.cleanup();
});

Deno.test("idle unload: /healthz and the vacuum's check neither keep the database open nor open it", async () => {
  const dir = await tempDir();
  const { db, handle: h } = await openPgliteInWorker(join(dir.path, "db"), {
    idleUnloadMs: 400,
  });
  const service = await createServiceOnDb(db, testConfig({ dataDir: dir.path, embeddingDim: 32 }), {
    handle: h,
    log: () => {},
    reclaim: { atStartMs: null },
  });
  try {
    await service.create({ content: "the deploy runs from the release branch" });
    // The database's own answer (one within 50 ms, not from the last answer with busy_ms).
    let open = await service.health();
    while (open.database.busy_ms !== undefined) open = await service.health();
    assert.equal(open.database.unloaded, undefined);
    assert.equal(typeof open.database.size_bytes, "number");
    // A monitor polling /healthz, and the vacuum's check, do not keep it open.
    const end = performance.now() + 10_000;
    let last = open;
    while (h.unloaded() === null) {
      assert.ok(performance.now() < end, "polling /healthz kept the database open");
      const h = await service.health();
      assert.equal(h.status, "ok");
      if (!h.database.busy_ms && !h.database.unloaded) last = h;
      await service.reclaimer.check();
      await sleep(50);
    }
    // Its last answer, marked.
    const idle = await service.health();
    assert.equal(idle.status, "ok");
    assert.deepEqual(idle.database, { ...last.database, unloaded: true });
    assert.equal(await service.reclaimer.check(), null);
    assert.notEqual(h.unloaded(), null, "a health check or the vacuum's check opened it");
    // A search opens it again and finds the memory.
    const found = await service.search({ query: "which branch does the deploy run from" });
    assert.equal(found[0]?.memory.content, "the deploy runs from the release branch");
    assert.equal(h.unloaded(), null);
    assert.equal((await service.health()).database.unloaded, undefined);
  } finally {
    await service.close();
    await dir.cleanup();
  }
});

Deno.test("idle unload: where the closed database's files went missing, nothing is created; a clear 503, and /healthz says so", async () => {
  const dir = await tempDir();
  const path = join(dir.path, "db");
  const { db, handle: h } = await openPgliteInWorker(path, { idleUnloadMs: 200 });
  const service = await createServiceOnDb(db, testConfig({ dataDir: dir.path, embeddingDim: 32 }), {
    handle: h,
    log: () => {},
    reclaim: { atStartMs: null },
  });
  try {
    await service.create({ content: "kept across the move" });
    await until(() => h.unloaded() !== null, "the unload");
    await Deno.rename(path, `${path}.moved`);
    const err = await service.list({}).then(() => null, (e) => e);
    assert.ok(err instanceof MemoryError, String(err));
    assert.equal(err.status, 503);
    assert.match(
      err.message,
      /^the database could not be opened again: the database files in .* are gone/,
    );
    await assert.rejects(Deno.stat(path), Deno.errors.NotFound, "a database was created");
    const health = await service.health();
    assert.equal(health.status, "error");
    assert.equal(health.database.ok, false);
    assert.equal(health.database.unloaded, true);
    assert.match(health.database.error ?? "", /are gone/);
    // Back in place: the next request opens it, with its memory.
    await Deno.rename(`${path}.moved`, path);
    const list = await service.list({});
    assert.deepEqual(list.map((m) => m.content), ["kept across the move"]);
    assert.equal((await service.health()).status, "ok");
  } finally {
    await service.close();
    await dir.cleanup();
  }
});
