/**
 * The embedded database in a worker thread (src/store/pglite/worker.ts) behaves as the one in
 * the caller's thread: rows, Postgres's errors with their fields, transactions committed and
 * rolled back, a full disk's 507, a dump; and while it runs a long statement the caller's
 * thread goes on, and `/healthz` answers from the database's last answer with `busy_ms`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { MemoryError } from "../../../src/domain/errors.ts";
import { openPglite, openPgliteInWorker } from "../../../src/store/pglite/mod.ts";
import type { Db } from "../../../src/store/db.ts";
import { createServiceOnDb } from "../../../src/memory/open.ts";
import { RENEW_AFTER_IMPORT_MS } from "../../../src/memory/importer.ts";
import { PGLITE_WORKER_MODULES, pgliteWorkerFiles } from "../../../src/permissions.ts";
import { tempDir, testConfig } from "../../helpers.ts";

async function caught(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error("expected a failure");
}

/** What `db` answers to the same statements, for both adapters. */
async function behaviour(db: Db) {
  await db.exec("create table t (id int primary key, v text, at timestamptz, tags text[])");
  await db.query("insert into t values ($1, $2, $3, $4)", [
    1,
    "a",
    new Date("2026-01-02T03:04:05Z"),
    ["x", "y"],
  ]);
  const dup = await caught(db.query("insert into t values (1, 'b')"));
  const syntax = await caught(db.query("selec 1"));
  const thrown = await caught(db.transaction(async (tx) => {
    await tx.query("insert into t (id, v) values (2, 'rolled back')");
    throw new Error("the caller's own failure");
  }));
  const inner = await caught(db.transaction(async (tx) => {
    await tx.query("insert into t (id, v) values (3, 'rolled back too')");
    await tx.query("insert into t (id, v) values (3, 'twice')");
  }));
  const committed = await db.transaction(async (tx) => {
    await tx.query("insert into t (id, v) values (4, 'kept')");
    // A transaction inside a transaction is the same one.
    return await tx.transaction(async (t2) =>
      (await t2.query<{ n: number }>("select count(*)::int as n from t"))[0].n
    );
  });
  // A batch: one transaction; a step without rows ends it, rolled back; an error rolls it back.
  const batched = await db.batch([
    { text: "insert into t (id, v) values ($1, $2) returning id", params: [5, "batched"] },
    { text: "select v from t where id = $1", params: [5] },
  ]);
  const stopped = await db.batch([
    { text: "insert into t (id, v) values ($1, $2)", params: [6, "stopped"] },
    { text: "select 1 as x where false", stopUnlessRows: true },
    { text: "insert into t (id, v) values ($1, $2)", params: [7, "never"] },
  ]);
  const failed = await caught(db.batch([
    { text: "insert into t (id, v) values ($1, $2)", params: [8, "failed"] },
    { text: "insert into t (id, v) values ($1, $2)", params: [1, "duplicate"] },
  ]));
  // A statement run before and after its table's columns change (statements stay prepared).
  const before = await db.query("select * from t where id = $1", [5]);
  await db.exec("alter table t add column n int default 7");
  const after = await db.query("select * from t where id = $1", [5]);
  await db.exec("alter table t drop column n");
  return {
    batched,
    stopped,
    failed: failed.code,
    before,
    after,
    rows: await db.query("select * from t order by id"),
    dup: { name: dup.name, code: dup.code, detail: dup.detail, constraint: dup.constraint },
    syntax: { code: syntax.code, message: syntax.message },
    thrown: thrown.message,
    inner: inner.code,
    committed,
  };
}

Deno.test("the worker adapter answers as the in-thread one: rows, errors, transactions", async () => {
  const dir = await tempDir("mneme-worker-");
  try {
    const inThread = await openPglite(join(dir.path, "a"));
    const expected = await behaviour(inThread);
    await inThread.close();
    const { db: worker, handle: workerH } = await openPgliteInWorker(join(dir.path, "b"));
    try {
      const got = await behaviour(worker);
      assert.deepEqual(got, expected);
      assert.equal(got.dup.code, "23505");
      assert.equal(got.inner, "23505");
      assert.deepEqual(got.rows.map((r) => r.id), [1, 4, 5]);
      assert.deepEqual(got.batched, [[{ id: 5 }], [{ v: "batched" }]]);
      assert.deepEqual(got.stopped, [[], []]);
      assert.equal(got.failed, "23505");
      assert.equal((got.after[0] as { n: number }).n, 7);
      assert.ok((got.rows[0] as { at: unknown }).at instanceof Date);
      // A dump is a gzipped tarball of the data directory.
      const dump = await workerH.dump();
      const head = new Uint8Array(await dump.slice(0, 2).arrayBuffer());
      assert.deepEqual([...head], [0x1f, 0x8b]);
      assert.equal(workerH.busyFor(), null);
    } finally {
      await worker.close();
    }
    await assert.rejects(worker.query("select 1"), /closed/);
  } finally {
    await dir.cleanup();
  }
});

Deno.test("transactions started together through the worker run one after the other", async () => {
  const dir = await tempDir("mneme-worker-");
  const { db } = await openPgliteInWorker(join(dir.path, "db"));
  try {
    await db.exec("create table t (who text)");
    const run = (who: string) =>
      db.transaction(async (tx) => {
        await tx.query("insert into t values ($1)", [who]);
        await new Promise((r) => setTimeout(r, 50)); // the other one is sent meanwhile
        const rows = await tx.query<{ who: string }>("select who from t order by who");
        if (who === "c") throw new Error("c rolls back");
        return rows.map((r) => r.who);
      });
    const [a, b, c, outside] = await Promise.allSettled([
      run("a"),
      run("b"),
      run("c"),
      db.query<{ n: number }>("select count(*)::int as n from t"),
    ]);
    // Each saw the rows committed before it and its own, nothing of one still open.
    assert.deepEqual(a, { status: "fulfilled", value: ["a"] });
    assert.deepEqual(b, { status: "fulfilled", value: ["a", "b"] });
    assert.equal(c.status, "rejected");
    assert.deepEqual(outside, { status: "fulfilled", value: [{ n: 2 }] });
    assert.deepEqual(await db.query("select who from t order by who"), [{ who: "a" }, {
      who: "b",
    }]);
  } finally {
    await db.close();
    await dir.cleanup();
  }
});

Deno.test("the worker adapter refuses writes below the disk reserve with a 507, reads go on", async () => {
  const dir = await tempDir("mneme-worker-");
  try {
    const { db } = await openPgliteInWorker(join(dir.path, "db"), {
      reserveBytes: Number.MAX_SAFE_INTEGER,
    });
    try {
      const err = await caught(db.exec("create table t (id int)"));
      assert.ok(err instanceof MemoryError, `${err}`);
      assert.equal((err as MemoryError).status, 507);
      assert.match(err.message, /the disk is full/);
      // A transaction is a write: refused at its begin, which its statements get too.
      let ran = 0;
      const txErr = await caught(db.transaction(async (tx) => {
        ran++;
        await tx.query("select 1");
      }));
      assert.equal(txErr.status, 507, `${txErr}`);
      assert.ok(ran <= 1);
      assert.deepEqual(await db.query("select 1 as one"), [{ one: 1 }]);
    } finally {
      await db.close();
    }
  } finally {
    await dir.cleanup();
  }
});

Deno.test("while the worker runs a long statement, the caller's thread and /healthz answer", async () => {
  const dir = await tempDir("mneme-worker-");
  const { db, handle: h } = await openPgliteInWorker(join(dir.path, "db"));
  const service = await createServiceOnDb(db, testConfig({ dataDir: dir.path }), {
    handle: h,
    log: () => {},
  });
  try {
    // The database's own answer (on a loaded machine the first may take over 50 ms).
    let first = await service.health();
    while (first.database.busy_ms !== undefined) first = await service.health();
    assert.equal(first.database.ok, true);
    let slept = false;
    const sleeping = db.query("select pg_sleep(3)").then(() => slept = true);
    // The caller's thread is free: a timer fires while the statement runs.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(slept, false);
    assert.ok((h.busyFor() ?? 0) >= 250, `busy for ${h.busyFor()}`);
    const during = await service.health();
    assert.equal(slept, false, "/healthz waited for the statement");
    assert.equal(during.status, "ok");
    assert.equal(during.database.ok, true);
    assert.ok((during.database.busy_ms ?? 0) >= 300, JSON.stringify(during.database));
    assert.equal(during.database.size_bytes, first.database.size_bytes);
    await sleeping;
    // Once it is done, the database is idle again (on a loaded machine a health check may find
    // another short statement under way, as the first one above may: ask until one is idle).
    let after = await service.health();
    for (let i = 0; i < 50 && after.database.busy_ms !== undefined; i++) {
      assert.ok(after.database.busy_ms < 3000, JSON.stringify(after.database));
      await new Promise((r) => setTimeout(r, 100));
      after = await service.health();
    }
    assert.equal(after.database.busy_ms, undefined);
  } finally {
    await service.close();
    await dir.cleanup();
  }
});

Deno.test("the admin daemon is granted exactly the modules its database worker loads", async () => {
  // Deno checks read access to each module a worker loads: PGLITE_WORKER_MODULES must be the
  // worker's graph of local modules, type-only imports left out (they are not loaded).
  const src = new URL("../../../src/", import.meta.url);
  const seen = new Set<string>();
  const visit = async (rel: string) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const text = await Deno.readTextFile(new URL(rel, src));
    const re = /^(?:import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?"(\.{1,2}\/[^"]+)"/gms;
    for (const m of text.matchAll(re)) {
      if (m[1]) continue;
      const url = new URL(m[2], new URL(rel, src));
      await visit(url.href.slice(src.href.length));
    }
  };
  await visit("store/pglite/worker.ts");
  assert.deepEqual([...seen].sort(), [...PGLITE_WORKER_MODULES].sort());
  assert.deepEqual(
    pgliteWorkerFiles(),
    PGLITE_WORKER_MODULES.map((m) => fromFileUrl(new URL(m, src))),
  );
});

Deno.test("renew: the worker is replaced by a fresh one on the same files; statements sent meanwhile wait, none lost", async () => {
  const dir = await tempDir();
  const { db, handle: h } = await openPgliteInWorker(join(dir.path, "db"));
  try {
    await db.exec("create table t (id int primary key, pad text)");
    await db.query("insert into t select g, md5(g::text) from generate_series(1, 1000) g");
    await db.exec("set work_mem = '8MB'");
    assert.equal(h.replacements, 0);
    // A transaction open when the renewal is asked for ends first; statements sent while it
    // runs wait for the new worker.
    let release!: () => void;
    const held = new Promise<void>((r) => release = r);
    const tx = db.transaction(async (t) => {
      await t.query("insert into t values (0, 'in the transaction')");
      await held;
      return await t.query<{ n: number }>("select count(*)::int as n from t");
    });
    await new Promise((r) => setTimeout(r, 50));
    const renewing = h.renew();
    const during = db.query<{ n: number }>("select count(*)::int as n from t");
    const txDuring = db.transaction((t) =>
      t.query<{ pad: string }>("insert into t values (-1, 'during') returning pad")
    );
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(h.replacements, 0, "the renewal waits for the open transaction");
    release();
    assert.deepEqual(await tx, [{ n: 1001 }]);
    await renewing;
    assert.equal(h.replacements, 1);
    assert.deepEqual(await during, [{ n: 1001 }]);
    assert.deepEqual(await txDuring, [{ pad: "during" }]);
    // A fresh session: its settings are the defaults again; the data is all there.
    assert.deepEqual(await db.query("show work_mem"), [{ work_mem: "4MB" }]);
    assert.deepEqual(await db.query("select count(*)::int as n from t"), [{ n: 1002 }]);
  } finally {
    await db.close();
    await dir.cleanup();
  }
});

Deno.test("bulk imports end by renewing the database's worker once the last one ended (its index build's memory given back)", async () => {
  const dir = await tempDir();
  const { db, handle: h } = await openPgliteInWorker(join(dir.path, "db"));
  const s = await createServiceOnDb(db, testConfig({ embeddingDim: 32, importBulk: true }), {
    handle: h,
    reclaim: { atStartMs: null },
  });
  const renewed = async (n: number) => {
    const deadline = Date.now() + 20_000;
    while (h.replacements < n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(h.replacements, n);
  };
  try {
    const items = (tag: string) =>
      Array.from({ length: 2000 }, (_, i) => ({
        content: `bulk note ${tag}${i} about the deploy pipeline and cache ${i % 17}`,
      }));
    // Two bulk imports, the second begun as soon as the first answered (as one import of
    // 4,000 sent in two requests): one renewal, after the second.
    const first = s.import(items(""));
    const second = first.then(() => s.import(items("b")));
    assert.deepEqual(await first, { imported: 2000, skipped: 0 });
    assert.deepEqual(await second, { imported: 2000, skipped: 0 });
    await renewed(1);
    await new Promise((r) => setTimeout(r, RENEW_AFTER_IMPORT_MS + 500));
    assert.equal(h.replacements, 1);
    // The renewed worker serves the imported memories, and a small import renews nothing.
    const found = await s.search({ query: "bulk note 1234 deploy pipeline", limit: 1 });
    assert.equal(found[0]?.memory.content, "bulk note 1234 about the deploy pipeline and cache 10");
    await s.import([{ content: "one more" }]);
    await new Promise((r) => setTimeout(r, RENEW_AFTER_IMPORT_MS + 500));
    assert.equal(h.replacements, 1);
  } finally {
    await s.close();
    await dir.cleanup();
  }
});

Deno.test("the renewal after a bulk import waits until the database has been quiet: searches that follow the import do not wait for a fresh worker", async () => {
  const dir = await tempDir();
  const { db, handle: h } = await openPgliteInWorker(join(dir.path, "db"));
  const s = await createServiceOnDb(db, testConfig({ embeddingDim: 32, importBulk: true }), {
    handle: h,
    reclaim: { atStartMs: null },
  });
  try {
    const items = Array.from({ length: 2000 }, (_, i) => ({
      content: `steady note ${i} about the release train and flags ${i % 13}`,
    }));
    assert.deepEqual(await s.import(items), { imported: 2000, skipped: 0 });
    // Searches one after another, every 100 ms, for three renewal delays: no renewal meanwhile.
    const until = performance.now() + 3 * RENEW_AFTER_IMPORT_MS;
    let searches = 0;
    while (performance.now() < until) {
      await s.search({ query: `steady note ${searches} release train`, limit: 3 });
      searches++;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(searches >= 10, `${searches} searches`);
    assert.equal(h.replacements, 0, "renewed while searches kept coming");
    // Then quiet: renewed once.
    const deadline = Date.now() + 20_000;
    while (h.replacements < 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(h.replacements, 1);
    assert.equal(h.quietFor() >= 0, true);
  } finally {
    await s.close();
    await dir.cleanup();
  }
});
