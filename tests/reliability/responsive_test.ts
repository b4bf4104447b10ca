/**
 * Long jobs do not block the admin daemon (issue 15 item 4): `/healthz`, a list, a get and a
 * search answer while a large import is still being written, they never see its rows before
 * it is published, and an import stays all or nothing: a failure half-way deletes what it
 * wrote, and a daemon killed with SIGKILL half-way leaves nothing visible after its restart
 * and nothing behind in the database.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdminServer } from "../../src/admin/server.ts";
import type { ImportItem } from "../../src/memory/types.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { Store } from "../../src/store/store.ts";
import type { Db } from "../../src/store/db.ts";
import { startAdminProcess, tempDir, testConfig } from "../helpers.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

function items(n: number, tag: string): ImportItem[] {
  return Array.from({ length: n }, (_, i) => ({
    content: `${tag} imported note ${i} about widget ${i % 97} and gadget ${i % 89}`,
    ...(i % 3 ? { scope: "project" as const, project: `p${i % 7}` } : {}),
    tags: [tag],
  }));
}

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** Rows staged by `Store.stageImport` so far, counted by wrapping it (every import stages). */
function countInserts(): {
  rows(): number;
  calls(): number;
  firstCall: Promise<void>;
  restore(): void;
} {
  const original = Store.prototype.stageImport;
  let rows = 0;
  let calls = 0;
  let signal!: () => void;
  const firstCall = new Promise<void>((r) => (signal = r));
  Store.prototype.stageImport = async function (
    this: Store,
    ...args: Parameters<Store["stageImport"]>
  ) {
    const out = await original.apply(this, args);
    rows += args[1].length;
    calls++;
    signal();
    return out;
  };
  return {
    rows: () => rows,
    calls: () => calls,
    firstCall,
    restore: () => {
      Store.prototype.stageImport = original;
    },
  };
}

/** When the bulk path's index build starts and whether it ended, by wrapping it. */
function watchBuild(): { started: Promise<void>; ended(): boolean; restore(): void } {
  const original = Store.prototype.buildSearchIndex;
  let ended = false;
  let signal!: () => void;
  const started = new Promise<void>((r) => (signal = r));
  Store.prototype.buildSearchIndex = async function (this: Store) {
    signal();
    try {
      return await original.apply(this);
    } finally {
      ended = true;
    }
  };
  return {
    started,
    ended: () => ended,
    restore: () => {
      Store.prototype.buildSearchIndex = original;
    },
  };
}

/** An in-process admin server on a new DATA_DIR with one memory; `close()` removes it all. */
async function serverWithOne(content: string, importBulk: boolean) {
  const dir = await tempDir("mneme-responsive-");
  const cfg = testConfig({ dataDir: dir.path, adminPort: 0, importBulk });
  const server = await startAdminServer(cfg, {
    log: () => {},
  });
  const seeded = await (await fetch(`${server.url}/api/memories`, json({ content }))).json();
  return {
    server,
    url: server.url,
    seededId: seeded.memory.id as string,
    async close() {
      await server.close();
      await dir.cleanup();
    },
  };
}

for (const bulk of [false, true]) {
  Deno.test(`reads and /healthz answer while a 5,000-item import is being written, without seeing it${bulk ? "" : " (IMPORT_BULK=off)"}`, async () => {
    const { server, seededId, close } = await serverWithOne(
      "The release train leaves on Thursdays",
      bulk,
    );
    let counter: ReturnType<typeof countInserts> | undefined;
    let building: ReturnType<typeof watchBuild> | undefined;
    try {
      const total = 5000;
      const count = countInserts(); // from here on, only the import inserts
      counter = count;
      building = watchBuild();
      let importDone = false;
      const importing = fetch(`${server.url}/api/memories/import`, json(items(total, "bulk")))
        .then(async (res) => {
          importDone = true;
          return { status: res.status, body: await res.json() };
        });
      await count.firstCall; // the import writes its rows now
      // The bulk path stages without the HNSW index (built once before publishing).
      const [during] = await storeOf(server.service).db.query<{ index: boolean }>(
        "select to_regclass('memories_embedding_hnsw') is not null as index",
      );
      assert.equal(during.index, !bulk);
      // Each answer records how many import rows were written when it came back: fewer than
      // all of them means it did not wait for the import.
      const ask = async (path: string, init?: RequestInit) => {
        const res = await fetch(`${server.url}${path}`, init);
        const body = await res.json();
        return { status: res.status, body, written: count.rows(), importDone };
      };
      const [health, list, got, search, stats] = await Promise.all([
        ask("/healthz"),
        ask("/api/memories?limit=100"),
        ask(`/api/memories/${seededId}`),
        ask("/api/memories/search", json({ query: "widget gadget imported note release" })),
        ask("/api/stats"),
      ]);
      for (const [name, r] of Object.entries({ health, list, got, search, stats })) {
        assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
        assert.equal(r.importDone, false, `${name} answered only after the import`);
        assert.ok(r.written < total, `${name} answered after all ${total} rows were written`);
      }
      // Nothing of the import is visible before it is published.
      assert.deepEqual(list.body.map((m: { id: string }) => m.id), [seededId]);
      assert.equal(stats.body.total, 1);
      assert.ok(
        search.body.every((r: { memory: { id: string } }) => r.memory.id === seededId),
        "search saw staged rows",
      );
      if (bulk) {
        // The index build holds the database's worker thread, not the daemon's: /healthz
        // answers while it runs, from the database's last answer, saying it is busy.
        await building.started;
        const res = await fetch(`${server.url}/healthz`);
        const body = await res.json();
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(building.ended(), false, "/healthz answered only after the build");
        assert.equal(body.status, "ok");
        assert.equal(body.database.ok, true);
        assert.ok(body.database.busy_ms > 0, JSON.stringify(body.database));
      }
      const done = await importing;
      assert.deepEqual(done, { status: 200, body: { imported: total, skipped: 0 } });
      await assertSearchIndex(storeOf(server.service).db);
      assert.ok(count.calls() > 2, "the import was written in chunks");
      const after = await (await fetch(`${server.url}/api/stats`)).json();
      assert.equal(after.total, total + 1);
    } finally {
      counter?.restore();
      building?.restore();
      await close();
    }
  });
}

for (const bulk of [false, true]) {
  Deno.test(`an import failing or abandoned half-way deletes what it wrote; validation errors write nothing${bulk ? "" : " (IMPORT_BULK=off)"}`, async () => {
    const { server, seededId, close } = await serverWithOne("Seeded before the imports", bulk);
    const original = Store.prototype.stageImport;
    try {
      // A bad item at the end: 400 naming it, nothing written.
      const bad = [...items(3000, "bad"), { content: "x", scope: "nowhere" }];
      const res = await fetch(`${server.url}/api/memories/import`, json(bad));
      assert.equal(res.status, 400);
      assert.match((await res.json()).error, /^\[3000\]\.scope:/);
      // A database failure after some chunks were committed.
      let chunks = 0;
      Store.prototype.stageImport = async function (this: Store, ...args) {
        if (++chunks === 4) throw new Error("injected failure in the 4th chunk");
        return await original.apply(this, args);
      };
      const failed = await fetch(`${server.url}/api/memories/import`, json(items(2000, "half")));
      assert.equal(failed.status, 500);
      await failed.body?.cancel();
      assert.equal(chunks, 4, "three chunks were committed before the failure");
      const stats = await (await fetch(`${server.url}/api/stats`)).json();
      assert.equal(stats.total, 1);
      const [left] = await storeOf(server.service).db.query<{ rows: number; jobs: number }>(
        `select (select count(*)::int from memories) as rows,
                (select count(*)::int from mneme_import_jobs) as jobs`,
      );
      assert.deepEqual(left, { rows: 1, jobs: 0 }, "the failed import left rows or its job");
      await assertSearchIndex(storeOf(server.service).db);
      const list = await (await fetch(`${server.url}/api/memories`)).json();
      assert.deepEqual(list.map((m: { id: string }) => m.id), [seededId]);
      // Another process abandons the import (its job row disappears) after two chunks: 409.
      chunks = 0;
      Store.prototype.stageImport = async function (this: Store, ...args) {
        if (++chunks === 3) await this.db.query("delete from mneme_import_jobs");
        return await original.apply(this, args);
      };
      const gone = await fetch(`${server.url}/api/memories/import`, json(items(2000, "gone")));
      assert.equal(gone.status, 409);
      assert.match((await gone.json()).error, /abandoned by another process/);
      const [rest] = await storeOf(server.service).db.query<{ rows: number; jobs: number }>(
        `select (select count(*)::int from memories) as rows,
                (select count(*)::int from mneme_import_jobs) as jobs`,
      );
      assert.deepEqual(rest, { rows: 1, jobs: 0 }, "the abandoned import left rows");
      await assertSearchIndex(storeOf(server.service).db);
    } finally {
      Store.prototype.stageImport = original;
      await close();
    }
  });
}

/** The HNSW index is there (a bulk import drops it while it runs and builds it at its end). */
async function assertSearchIndex(db: Db): Promise<void> {
  const [r] = await db.query<{ ok: boolean }>(
    "select to_regclass('memories_embedding_hnsw') is not null as ok",
  );
  assert.ok(r.ok, "the bulk import left no HNSW index");
}

/** Counts in the database of a stopped daemon. */
async function countRows(
  dataDir: string,
): Promise<{ rows: number; staged: number; jobs: number; index: boolean }> {
  const db = await openPglite(join(dataDir, "db"));
  try {
    const [r] = await db.query<{ rows: number; staged: number; jobs: number; index: boolean }>(
      `select (select count(*)::int from memories) as rows,
              (select count(*)::int from memories where import_job is not null) as staged,
              (select count(*)::int from mneme_import_jobs) as jobs,
              to_regclass('memories_embedding_hnsw') is not null as index`,
    );
    return r;
  } finally {
    await db.close();
  }
}

for (const bulk of [false, true]) {
  Deno.test(`a daemon killed with SIGKILL mid-import shows nothing of it after a restart, and leaves nothing behind${bulk ? "" : " (IMPORT_BULK=off)"}`, async () => {
    // Kill once some chunks are committed and before the import is published. The moment is
    // found by trying, each time on a new database: too early (still embedding) waits longer
    // next time, too late (published) waits less.
    let delay = 1500;
    const env: Record<string, string> = bulk ? {} : { IMPORT_BULK: "off" };
    for (let attempt = 1;; attempt++) {
      const dir = await tempDir("mneme-responsive-kill-");
      try {
        const daemon = await startAdminProcess({ dataDir: dir.path, env });
        const seeded = await (await fetch(
          `${daemon.url}/api/memories`,
          json({
            content: "Seeded before the killed import",
          }),
        )).json();
        const importing = fetch(`${daemon.url}/api/memories/import`, json(items(10_000, "killed")))
          .catch(() => null);
        await new Promise((r) => setTimeout(r, delay));
        daemon.child.kill("SIGKILL");
        await daemon.child.status;
        await importing;
        await daemon.stop();
        const atKill = await countRows(dir.path);
        if (atKill.staged === 0 || atKill.jobs === 0) {
          assert.ok(attempt < 6, `no kill landed mid-import: ${JSON.stringify(atKill)}`);
          delay = atKill.rows === 1 ? delay * 2 : Math.max(100, delay / 2);
          continue;
        }
        assert.ok(atKill.rows > 1, "committed chunks were on disk at the kill");
        const again = await startAdminProcess({ dataDir: dir.path, env });
        try {
          const stats = await (await fetch(`${again.url}/api/stats`)).json();
          assert.equal(stats.total, 1);
          const list = await (await fetch(`${again.url}/api/memories`)).json();
          assert.deepEqual(list.map((m: { id: string }) => m.id), [seeded.memory.id]);
        } finally {
          await again.stop();
        }
        // The bulk path dropped the HNSW index: the restart built it again.
        assert.deepEqual(await countRows(dir.path), { rows: 1, staged: 0, jobs: 0, index: true });
        return;
      } finally {
        await dir.cleanup();
      }
    }
  });
}
