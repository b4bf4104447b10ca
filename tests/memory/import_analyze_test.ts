/**
 * The statistics' refresh after imports (the store's `analyze`: vacuums, reindexes and a
 * checkpoint, about a second at 20,000 memories) runs once a series of imports has ended,
 * not in each request: clients that import in chunks pay it once. An import that doubles the
 * memories still runs it within its request; close() runs one left due.
 */
import assert from "node:assert/strict";
import { openPglite, openPgliteInWorker } from "../../src/store/pglite/mod.ts";
import { createServiceOnDb, openMemoryService, type OpenOptions } from "../../src/memory/open.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { tempDir, testConfig } from "../helpers.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";
import { closeAfterImportsScenario } from "./import_close.ts";

const items = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    content: `note ${tag} ${i}: the build of module ${i % 37} uses flag ${i % 11}`,
    project: "p",
  }));

/** Counts the store's analyze runs; `next()` resolves at the end of the next one. */
function spyAnalyze(s: SqlMemoryService, fail = false) {
  const orig = storeOf(s).analyze.bind(storeOf(s));
  const spy = {
    calls: 0,
    waiting: [] as (() => void)[],
    next: () => new Promise<void>((r) => spy.waiting.push(r)),
  };
  storeOf(s).analyze = async (...args) => {
    spy.calls++;
    try {
      if (fail) throw new Error("the analyze failed (test)");
      await orig(...args);
    } finally {
      for (const r of spy.waiting.splice(0)) r();
    }
  };
  return spy;
}

async function open(path: string, opts: OpenOptions = {}): Promise<SqlMemoryService> {
  const db = await openPglite(path);
  return await createServiceOnDb(db, testConfig({ embeddingDim: 64 }), {
    log: () => {},
    reclaim: { atStartMs: null, afterChangeMs: 20, checkMs: 3_600_000 },
    ...opts,
  });
}

Deno.test("a burst of imports in chunks analyzes once, after the last; searches are right before it", async () => {
  const dir = await tempDir("mneme-import-analyze-");
  const s = await open(`${dir.path}/db`, { importAnalyze: { quietMs: 100 } });
  try {
    const spy = spyAnalyze(s);
    // Into an empty database: the import doubles the memories, analyzed within its request.
    await s.import(items(300, "first"));
    assert.equal(spy.calls, 1);
    // Chunks of a series: none of them waits for an analyze, none runs between them.
    for (const tag of ["a", "b", "c", "d"]) {
      assert.equal((await s.import(items(100, tag))).imported, 100);
      assert.equal(spy.calls, 1, `no analyze after chunk ${tag}`);
    }
    // Right after the series, before its analyze: the last chunk's memories are found.
    const hits = await s.search({ query: "note d 42 module", project: "p", limit: 5 });
    assert.ok(hits.some((h) => h.memory.content.startsWith("note d 42:")));
    const stats = await s.stats();
    assert.equal(stats.total, 700);
    // The reclaimer waits for the analyze (which does its work): no vacuum of its own.
    assert.equal(await storeOf(s).lastVacuum(), null);
    await spy.next();
    assert.equal(spy.calls, 2, "one analyze for the series");
    // Its postings were vacuumed by it.
    const [row] = await storeOf(s).db.query<{ n: number }>(
      `select vacuum_count::int as n from pg_stat_user_tables where relname = 'memory_postings'`,
    );
    assert.ok(row.n >= 2);
  } finally {
    await s.close();
    await dir.cleanup();
  }
});

Deno.test("imports that go on past the longest wait are analyzed meanwhile", async () => {
  const dir = await tempDir("mneme-import-analyze-");
  const s = await open(`${dir.path}/db`, {
    importAnalyze: { quietMs: 3_600_000, maxMs: 50 },
  });
  try {
    await s.import(items(300, "first"));
    const spy = spyAnalyze(s);
    await s.import(items(100, "a"));
    assert.equal(spy.calls, 0);
    // No quiet spell of an hour: the analyze comes at the longest wait.
    await spy.next();
    assert.equal(spy.calls, 1);
  } finally {
    await s.close();
    await dir.cleanup();
  }
});

Deno.test("close() runs an analyze left due; the database opens again with every memory", async () => {
  const dir = await tempDir("mneme-import-analyze-");
  const path = `${dir.path}/db`;
  const s = await open(path, { importAnalyze: { quietMs: 3_600_000 } });
  let spy;
  try {
    await s.import(items(300, "first"));
    spy = spyAnalyze(s);
    await s.import(items(100, "a"));
    assert.equal(spy.calls, 0);
  } finally {
    await s.close();
  }
  assert.equal(spy.calls, 1, "run by close()");
  const again = await open(path);
  try {
    assert.equal((await again.stats()).total, 400);
    const hits = await again.search({ query: "note a 7 module", project: "p", limit: 5 });
    assert.ok(hits.some((h) => h.memory.content.startsWith("note a 7:")));
  } finally {
    await again.close();
    await dir.cleanup();
  }
});

Deno.test("closed right after imports, as the daemon opens it: nothing logged, then or later; opens again", async () => {
  const dir = await tempDir("mneme-import-close-");
  try {
    await closeAfterImportsScenario(() => openMemoryService(testConfig({ dataDir: dir.path })));
  } finally {
    await dir.cleanup();
  }
});

Deno.test("close() with a due analyze that fails still closes cleanly", async () => {
  const dir = await tempDir("mneme-import-analyze-");
  const s = await open(`${dir.path}/db`, { importAnalyze: { quietMs: 3_600_000 } });
  await s.import(items(300, "first"));
  const spy = spyAnalyze(s, true);
  await s.import(items(100, "a"));
  const errors: unknown[] = [];
  const orig = console.error;
  console.error = (...a: unknown[]) => errors.push(a.join(" "));
  try {
    await s.close();
  } finally {
    console.error = orig;
    await dir.cleanup();
  }
  assert.equal(spy.calls, 1);
  assert.match(String(errors[0]), /analyzing after imports failed: .*the analyze failed/);
});

Deno.test("a series of imports in chunks defers the HNSW indexes once it has imported a fifth of the memories; built at its end, searches right meanwhile", async () => {
  const dir = await tempDir("mneme-import-defer-");
  const { db, handle } = await openPgliteInWorker(`${dir.path}/db`);
  const s = await createServiceOnDb(db, testConfig({ embeddingDim: 32, importBulk: true }), {
    log: () => {},
    handle,
    reclaim: { atStartMs: null, afterChangeMs: 20, checkMs: 3_600_000 },
    importAnalyze: { quietMs: 300 },
  });
  const hnsw = async () =>
    (await db.query<{ name: string }>(
      `select indexname as name from pg_indexes where tablename = 'memories'
          and indexdef ilike '%using hnsw%' order by 1`,
    )).map((r) => r.name);
  try {
    const spy = spyAnalyze(s);
    const built = await hnsw();
    assert.ok(built.length >= 1, `HNSW indexes at start: ${built}`);
    // Into an empty store: the first chunk of a series defers the indexes at once (building
    // them afterwards costs no more than inserting into them live); its statistics analyzed
    // within the request (it doubled the memories), the series going on.
    await s.import(items(1000, "base"));
    assert.deepEqual(await hnsw(), [], "an import into an empty store deferred them");
    assert.equal(spy.calls, 1, "its statistics analyzed within the request");
    await spy.next();
    assert.equal(spy.calls, 2, "the series' analyze, after it");
    assert.deepEqual(await hnsw(), built, "built at the series' end");
    // 1,000 stored: a first chunk goes into the live graphs; the second brings the series to
    // 220 of the 1,100 stored: the indexes wait for its end.
    await s.import(items(100, "a"));
    assert.deepEqual(await hnsw(), built, "a first chunk keeps the indexes");
    await s.import(items(120, "b"));
    assert.deepEqual(await hnsw(), [], "the series' chunk dropped them");
    await s.import(items(100, "c"));
    // Meanwhile every vector is compared: the newest chunk is found.
    const hits = await s.search({ query: "note c 42 module", project: "p", limit: 5 });
    assert.ok(hits.some((h) => h.memory.content.startsWith("note c 42:")), JSON.stringify(hits));
    const calls = spy.calls;
    await spy.next();
    assert.equal(spy.calls, calls + 1, "one analyze for the series");
    assert.deepEqual(await hnsw(), built, "built again before the series' analyze");
    // A small import after it: nothing deferred.
    await s.import(items(150, "d"));
    assert.deepEqual(await hnsw(), built);
  } finally {
    await s.close();
    await dir.cleanup();
  }
});

Deno.test("close() builds the indexes a series of imports deferred", async () => {
  const dir = await tempDir("mneme-import-defer-close-");
  const path = `${dir.path}/db`;
  let { db, handle } = await openPgliteInWorker(path);
  let s = await createServiceOnDb(db, testConfig({ embeddingDim: 32, importBulk: true }), {
    log: () => {},
    handle,
    reclaim: { atStartMs: null },
    importAnalyze: { quietMs: 60_000 },
  });
  const count = async () =>
    (await db.query<{ n: number }>(
      `select count(*)::int as n from pg_indexes where tablename = 'memories'
          and indexdef ilike '%using hnsw%'`,
    ))[0].n;
  const before = await count();
  try {
    await s.import(items(500, "base"));
    await s.import(items(100, "a"));
    await s.import(items(100, "b"));
    assert.equal(await count(), 0, "deferred");
  } finally {
    await s.close();
  }
  ({ db, handle } = await openPgliteInWorker(path));
  s = await createServiceOnDb(db, testConfig({ embeddingDim: 32, importBulk: true }), {
    log: () => {},
    handle,
    reclaim: { atStartMs: null },
  });
  try {
    assert.equal(await count(), before, "built by close()");
    assert.equal((await s.stats()).total, 700);
  } finally {
    await s.close();
    await dir.cleanup();
  }
});
