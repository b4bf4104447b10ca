/**
 * Issue 31: the embedded database reclaims its dead rows (PGlite has no autovacuum). After a
 * bulk change the reclaimer vacuums by itself; on its schedule it vacuums the tables whose
 * dead rows pass the threshold; after a start it vacuums once (a crash resets the counts);
 * the last vacuum and the dead rows are in /healthz (what `memcli status` shows), and the
 * space of the dead rows is reused: import-and-delete cycles stop growing the table.
 */
import assert from "node:assert/strict";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { createServiceOnDb, type OpenOptions } from "../../src/memory/open.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { tempDir, testConfig } from "../helpers.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

const items = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    content: `note ${tag} ${i}: the build of module ${i % 37} uses flag ${i % 11}`,
    project: tag,
  }));

async function withService(
  opts: OpenOptions,
  fn: (s: SqlMemoryService, logs: string[]) => Promise<void>,
): Promise<void> {
  const dir = await tempDir("mneme-vacuum-");
  const logs: string[] = [];
  const db = await openPglite(`${dir.path}/db`);
  const service = await createServiceOnDb(db, testConfig({ embeddingDim: 64 }), {
    log: (l) => logs.push(l),
    ...opts,
  });
  try {
    await fn(service, logs);
  } finally {
    await service.close();
    await dir.cleanup();
  }
}

async function until<T>(what: string, fn: () => Promise<T | null>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const memoriesDead = async (s: SqlMemoryService) =>
  (await storeOf(s).deadRows()).find((r) => r.table === "memories")?.dead ?? -1;

/**
 * True once memories has no dead rows. The statistics views may count a delete's dead rows
 * after the vacuum that followed it has reported (they lag by about a second); the service's
 * schedule then vacuums again at its next check, which this does at once through the same
 * reclaimer.
 */
async function deadRowsGone(s: SqlMemoryService): Promise<true | null> {
  if (await memoriesDead(s) === 0) return true;
  await new Promise((r) => setTimeout(r, 300));
  if (await memoriesDead(s) === 0) return true;
  await s.reclaimer.vacuum("the next check", ["memories"]);
  return null;
}

Deno.test("after a bulk delete the embedded database is vacuumed by itself; /healthz reports it", async () => {
  await withService(
    { reclaim: { afterChangeMs: 50, atStartMs: null, checkMs: 3_600_000 } },
    async (s) => {
      await s.import(items(300, "a"));
      // (A published import of 100 or more is vacuumed by its own analyze: no run after it.)
      assert.equal((await s.deleteMany({ project: "a" })).deleted, 300);
      const run = await until("the vacuum after the delete", () => storeOf(s).lastVacuum());
      assert.ok(run.tables.includes("memories"));
      // (The statistics views count dead rows with a lag of about a second, so the check
      // reads them once they have caught up.)
      await until("no dead rows left in memories", () => deadRowsGone(s));
      const health = await s.health();
      assert.equal(health.database.dead_rows !== undefined, true);
      // The run above, or one after it when the dead rows were counted late.
      const latest = await storeOf(s).lastVacuum();
      assert.ok(latest && latest.at >= run.at);
      assert.equal(health.database.last_vacuum?.at, latest.at);
      assert.equal(health.database.last_vacuum?.dead_rows, latest.dead_rows);
    },
  );
});

Deno.test("a published import of 100 or more is vacuumed by its own analyze, not again by the reclaimer; a small one is", async () => {
  await withService(
    { reclaim: { afterChangeMs: 20, atStartMs: null, checkMs: 3_600_000 } },
    async (s) => {
      await s.import(items(300, "a"));
      // Its postings were vacuumed (index-only reads) by the import itself.
      const [vacuumed] = await storeOf(s).db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_user_tables
          where relname = 'memory_postings' and vacuum_count > 0`,
      );
      assert.equal(vacuumed.n, 1);
      // The reclaimer's run would come 20 ms after a change: none came.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await storeOf(s).lastVacuum(), null);
      await s.import(items(5, "b"));
      await until("the vacuum after the small import", () => storeOf(s).lastVacuum());
    },
  );
});

Deno.test("a vacuum that comes due while an import runs waits until the last one running ends", async () => {
  await withService(
    { reclaim: { afterChangeMs: 20, atStartMs: null, checkMs: 3_600_000 } },
    async (s) => {
      const first = s.reclaimer.hold();
      const second = s.reclaimer.hold();
      s.reclaimer.changed("a bulk delete");
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await storeOf(s).lastVacuum(), null, "held by two imports");
      first();
      first(); // a release is counted once
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await storeOf(s).lastVacuum(), null, "held by the second import");
      second();
      const run = await until("the vacuum after the imports", () => storeOf(s).lastVacuum());
      assert.ok(run.tables.includes("memories"));
      // Not held: a change is vacuumed as before.
      s.reclaimer.changed("another bulk delete");
      await until("the next vacuum", async () => {
        const last = await storeOf(s).lastVacuum();
        return last && last.at !== run.at ? last : null;
      });
    },
  );
});

Deno.test("the schedule vacuums a table once its dead rows pass the threshold, not before", async () => {
  await withService(
    { reclaim: { afterChangeMs: 3_600_000, atStartMs: null, checkMs: 3_600_000, minDead: 50 } },
    async (s) => {
      const made = [];
      for (const it of items(80, "b")) made.push(await s.create(it));
      // 20 single deletes: under 50 + 0.1 × live. (The statistics views count them with a
      // lag of about a second: wait until they show.)
      for (const m of made.slice(0, 20)) await s.delete(m.memory.id);
      await until(
        "the 20 dead rows counted",
        async () => await memoriesDead(s) >= 20 ? true : null,
      );
      // (Other tables may be due: the postings of the creates leave dead rows of their own.)
      const early = await s.reclaimer.check();
      assert.ok(!early?.tables.includes("memories"), "below the threshold memories waits");
      for (const m of made.slice(20, 75)) await s.delete(m.memory.id);
      await until(
        "the 75 dead rows counted",
        async () => await memoriesDead(s) >= 75 ? true : null,
      );
      const run = await s.reclaimer.check();
      assert.ok(run !== null, "over the threshold the check vacuums");
      assert.ok(run.tables.includes("memories"));
      assert.equal(await memoriesDead(s), 0);
      assert.equal((await storeOf(s).lastVacuum())?.at, run.at);
    },
  );
});

Deno.test("the start vacuums once; import-and-delete cycles reuse the space of dead rows", async () => {
  await withService(
    { reclaim: { afterChangeMs: 0, atStartMs: 0, checkMs: 3_600_000 } },
    async (s) => {
      await until("the vacuum at start", () => storeOf(s).lastVacuum());
      const size = async () =>
        Number(
          (await storeOf(s).db.query<{ n: number }>(
            "select pg_total_relation_size('memories')::float8 as n",
          ))[0].n,
        );
      const sizes: number[] = [];
      for (let round = 0; round < 4; round++) {
        await s.import(items(250, `c${round}`));
        const last = await storeOf(s).lastVacuum();
        assert.equal((await s.deleteMany({ project: `c${round}` })).deleted, 250);
        await until("the vacuum after the delete", async () => {
          const now = await storeOf(s).lastVacuum();
          return now && now.at !== last?.at ? now : null;
        });
        await until("no dead rows left in memories", () => deadRowsGone(s));
        sizes.push(await size());
      }
      // Without the vacuum each round adds its 250 rows' pages again; with it the table
      // stops growing after the first round.
      assert.ok(
        sizes[3] <= sizes[1] * 1.1,
        `the table kept growing: ${sizes.map((n) => Math.round(n / 1024)).join(", ")} KiB`,
      );
    },
  );
});

Deno.test("churn: the vacuum folds the statistics' deltas and compacts a table left bloated", async () => {
  await withService(
    { reclaim: { afterChangeMs: 3_600_000, atStartMs: null, checkMs: 3_600_000 } },
    async (s, logs) => {
      const sizes = async () =>
        Object.fromEntries(
          (await storeOf(s).db.query<{ t: string; heap: number; rows: number }>(
            `select t, pg_relation_size(t)::float8 as heap,
                    (select n_live_tup from pg_stat_user_tables where relname = t)::float8 as rows
               from unnest(array['memories', 'memory_term_df']) as t`,
          )).map((r) => [r.t, { heap: Number(r.heap), rows: Number(r.rows) }]),
        );
      await s.import(items(1500, "churn"));
      await storeOf(s).vacuum();
      const fresh = await sizes();
      const ids = (await storeOf(s).db.query<{ id: string }>("select id::text as id from memories"))
        .map((r) => r.id);
      // Every memory updated: a dead version each, and deltas for every term.
      for (const [i, id] of ids.entries()) {
        await s.update(id, { content: `changed ${i}: the build of flag ${i % 13}` });
      }
      // Small tables here: 64 KiB of slack instead of the 1 MiB the service leaves.
      const slack = { slackBytes: 64 * 1024 };
      const run = await storeOf(s).vacuum(undefined, slack);
      const after = await sizes();
      assert.ok(run.compacted?.includes("memory_term_df"), JSON.stringify(run));
      assert.ok(
        after.memories.heap <= fresh.memories.heap * 1.3,
        `memories ${fresh.memories.heap} -> ${after.memories.heap} bytes`,
      );
      assert.ok(
        after.memory_term_df.heap <= fresh.memory_term_df.heap * 1.5,
        `memory_term_df ${fresh.memory_term_df.heap} -> ${after.memory_term_df.heap} bytes`,
      );
      // The deltas were folded: about one row per term again, not one per write.
      assert.ok(
        after.memory_term_df.rows <= fresh.memory_term_df.rows * 1.5,
        `memory_term_df rows ${fresh.memory_term_df.rows} -> ${after.memory_term_df.rows}`,
      );
      // Compacting again right away finds nothing to do.
      assert.equal((await storeOf(s).vacuum(undefined, slack)).compacted, undefined);
      // The search still works on the rebuilt index.
      const found = await s.search({ query: "changed build flag", project: "churn", limit: 3 });
      assert.equal(found.length, 3);
      assert.ok(!logs.some((l) => /failed/.test(l)), logs.join("\n"));
    },
  );
});

Deno.test("a check that finds its database closed under it logs nothing", async () => {
  const dir = await tempDir();
  const lines: string[] = [];
  try {
    const db = await openPglite(`${dir.path}/db`);
    const s = await createServiceOnDb(db, testConfig({ embeddingDim: 32 }), {
      reclaim: { atStartMs: null, checkMs: 3_600_000, log: (l) => lines.push(l) },
    });
    // The owner closes the database without stopping the reclaimer (bench:recall did).
    await db.close();
    assert.equal(await s.reclaimer.check(), null);
    assert.equal(await s.reclaimer.vacuum("test"), null);
    assert.deepEqual(lines, []);
    await s.reclaimer.stop();
  } finally {
    await dir.cleanup();
  }
});

const indexSize = async (s: SqlMemoryService, index: string) =>
  Number(
    (await storeOf(s).db.query<{ b: number }>(
      "select pg_relation_size($1::regclass)::float8 as b",
      [index],
    ))[0].b,
  );

/**
 * Fill the postings' indexes as writes and imports do: memories of every length (the impact,
 * the index's order within a term, varies), project and global ones (their postings have an
 * index of their own), in imports of 90 (fewer than the 100 after which an import rebuilds
 * them itself): entries land all over the indexes, whose pages end up about 70% full.
 */
async function bloat(s: SqlMemoryService): Promise<Record<string, number>> {
  const words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa"];
  for (let i = 0; i < 6; i++) {
    const all = items(600, `p${i}`).map((x, j) => ({
      content: `${x.content} w${j} ${
        words.slice(0, (j * 7919 + i * 31) % 7).join(" ").repeat(1 + (j * 104729) % 5)
      }`,
      ...(i < 4 ? { project: x.project } : {}),
    }));
    for (let k = 0; k < all.length; k += 90) await s.import(all.slice(k, k + 90));
  }
  const sizes: Record<string, number> = {};
  for (const x of ["memory_postings_lookup", "memory_postings_num"]) {
    sizes[x] = await indexSize(s, x);
  }
  return sizes;
}

// The confidence does not move with the clock (the score's recency part does).
const searched = async (s: SqlMemoryService) =>
  [
    await s.search({ query: "build module flag w7", project: "p2", limit: 10 }),
    await s.search({ query: "build module flag w7", scope: "global", limit: 10 }),
  ].map((found) => found.map((r) => [r.memory.id, r.confidence]));

const NO_TIMERS = { reclaim: { afterChangeMs: 3_600_000, atStartMs: null, checkMs: 3_600_000 } };
/**
 * {@link NO_TIMERS} for the tests that compare searches before and after a rebuild of the
 * postings indexes: hundreds of the memories tie, and which of them the dense leg's 15 nearest
 * are depends on the rows' physical order, which a vacuum changes. What the rebuilt postings
 * indexes must keep is the lexical side's results.
 */
const NO_TIMERS_LEXICAL = { ...NO_TIMERS, denseSearch: false };
/** Small indexes here: 64 KiB of slack instead of the 1 MiB the service leaves. */
const SMALL = { slackBytes: 64 * 1024 };

Deno.test("bloat: the vacuum rebuilds the postings indexes that inserts left 70% full, same results", async () => {
  await withService(NO_TIMERS_LEXICAL, async (s, logs) => {
    const before = await bloat(s);
    const found = await searched(s);
    assert.deepEqual(found.map((f) => f.length), [10, 10]);
    const run = await storeOf(s).vacuum(undefined, SMALL);
    assert.deepEqual(
      run.reindexed,
      ["memory_postings_lookup"],
      JSON.stringify(run),
    );
    for (const x of ["memory_postings_lookup"]) {
      const now = await indexSize(s, x);
      assert.ok(now <= before[x] * 0.9, `${x} ${before[x]} -> ${now} bytes`);
    }
    // Memory numbers only grow: the index by number is appended to, never left bloated.
    const byNum = await indexSize(s, "memory_postings_num");
    assert.equal(byNum, before.memory_postings_num, "memory_postings_num not rebuilt");
    // The rebuild's smaller sort memory was the rebuild's own.
    assert.deepEqual(await storeOf(s).db.query("show maintenance_work_mem"), [
      { maintenance_work_mem: "32MB" },
    ]);
    // Fresh from the build: nothing to rebuild on the next run, which still checkpoints: the
    // log written before it (24 MB here, more than a segment) is gone, one segment is left.
    await storeOf(s).db.exec(
      "create table pad as select repeat(md5(g::text), 30) as x from generate_series(1, 25000) g",
    );
    assert.equal((await storeOf(s).vacuum(undefined, SMALL)).reindexed, undefined);
    assert.deepEqual(
      await storeOf(s).db.query(
        "select count(*)::int as n from pg_ls_waldir() where name ~ '^[0-9A-F]{24}$'",
      ),
      [{ n: 1 }],
    );
    assert.deepEqual(await searched(s), found);
    assert.ok(!logs.some((l) => /failed/.test(l)), logs.join("\n"));
  });
});

Deno.test("bloat: the statistics' refresh after an import rebuilds them too, so the vacuum after it has none to do", async () => {
  await withService(NO_TIMERS_LEXICAL, async (s) => {
    const before = await bloat(s);
    const found = await searched(s);
    await storeOf(s).analyze(SMALL);
    const now = await indexSize(s, "memory_postings_lookup");
    assert.ok(
      now <= before.memory_postings_lookup * 0.9,
      `memory_postings_lookup ${before.memory_postings_lookup} -> ${now} bytes`,
    );
    assert.equal((await storeOf(s).vacuum(undefined, SMALL)).reindexed, undefined);
    assert.deepEqual(await searched(s), found);
  });
});

Deno.test("churn: the vacuum rebuilds the HNSW index that deletes and new memories left bloated, not a fresh one", async () => {
  await withService(NO_TIMERS, async (s, logs) => {
    const hnsw = () => indexSize(s, "memories_embedding_hnsw");
    // Tables are never compacted here (VACUUM FULL would rebuild the index too).
    const noCompaction = { ...SMALL, factor: 100 };
    // Small imports: every vector goes into the live index, as writes do; such an index is
    // not taken for a bloated one.
    for (let i = 0; i < 3; i++) await s.import(items(400, `a${i}`));
    const first = await storeOf(s).vacuum(undefined, noCompaction);
    assert.ok(!first.reindexed?.includes("memories_embedding_hnsw"), JSON.stringify(first));
    const fresh = await hnsw();
    // Churn: every memory deleted, as many new ones written, three times.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++) {
        await s.deleteMany({ project: `${round ? `r${round - 1}-` : "a"}${i}` });
        await s.import(items(400, `r${round}-${i}`));
      }
    }
    const bloated = await hnsw();
    assert.ok(bloated > fresh * 2, `the index ${fresh} -> ${bloated} bytes`);
    const run = await storeOf(s).vacuum(undefined, noCompaction);
    assert.ok(run.reindexed?.includes("memories_embedding_hnsw"), JSON.stringify(run));
    const after = await hnsw();
    assert.ok(after <= fresh * 1.2, `the index ${fresh} -> ${bloated} -> ${after} bytes`);
    // The rebuilt index serves searches; nothing to rebuild right after.
    const found = await s.search({ query: "the build of module 7", project: "r2-1", limit: 3 });
    assert.equal(found.length, 3);
    const again = await storeOf(s).vacuum(undefined, noCompaction);
    assert.ok(!again.reindexed?.includes("memories_embedding_hnsw"), JSON.stringify(again));
    assert.ok(!logs.some((l) => /failed/.test(l)), logs.join("\n"));
  });
});
