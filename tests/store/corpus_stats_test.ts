/**
 * The corpus statistics kept by triggers (memory_corpus, memory_term_df; migration 6) equal
 * the counts over memories and postings after every kind of write, and after compaction.
 */
import assert from "node:assert/strict";
import { SqlMemoryService } from "../../src/memory/service.ts";
import { ensureEmbeddingColumn, migrate } from "../../src/store/migrate.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { type NewRow, Store } from "../../src/store/store.ts";
import { StandInEmbedder } from "../fakes/semantic.ts";
import { newRow } from "../memory/fixtures.ts";
import { assertStatsExact } from "../memory/stats_check.ts";

/** One global row of an import, written as the service stages it. */
async function stagedRow(embedder: StandInEmbedder, content: string): Promise<NewRow> {
  return newRow(content, (await embedder.embed([content]))[0], new Date());
}

Deno.test("corpus statistics kept by triggers equal the counts after every kind of write", async () => {
  const db = await openPglite();
  try {
    await migrate(db);
    const embedder = new StandInEmbedder();
    const stored = await ensureEmbeddingColumn(db, embedder.info);
    const store = new Store(db);
    const service = new SqlMemoryService({ store, embedder, stored });
    await service.import([
      ...Array.from({ length: 150 }, (_, i) => ({
        content: `The deploy script ${i} runs the deploy and the tests of api-${i % 7}`,
        ...(i % 3 ? { scope: "project" as const, project: `p${i % 4}` } : {}),
      })),
      { content: "the and of" }, // no terms at all: counted, length 0
    ]);
    await assertStatsExact(db, "an import");
    const a = await service.create({ content: "Kubernetes manifests live in ops/k8s" });
    const b = await service.create({
      content: "Kubernetes manifests moved to deploy/k8s",
      supersedes: a.memory.id,
    });
    await service.create({ content: "Short-lived note on tests", ttl: "1m", project: "p1" });
    await assertStatsExact(db, "creates");
    await service.update(b.memory.id, { content: "Manifests for Kubernetes live in infra/k8s" });
    await assertStatsExact(db, "an update");
    await service.delete(a.memory.id);
    await service.deleteMany({ project: "p2" });
    await assertStatsExact(db, "deletes");
    assert.equal(await store.deleteExpired(new Date(Date.now() + 3_600_000)), 1);
    await assertStatsExact(db, "the TTL cleanup (with compaction)");
    // Postings rebuilt as for memories stored before version 2.
    await db.exec("update memories set term_count = null where scope = 'global'");
    await assertStatsExact(db, "lengths cleared");
    await store.storeTerms(await store.termsPending(1000));
    await assertStatsExact(db, "postings rebuilt");
    const staged = (content: string) => stagedRow(embedder, content);
    const job = await store.beginImport(1);
    await store.stageImport(job, [await staged("staged then abandoned")]);
    await assertStatsExact(db, "a staged import (its rows not counted yet)");
    await store.abandonImport(job);
    await assertStatsExact(db, "an abandoned import");
    // A staged import is counted when it is published, all at once.
    const job2 = await store.beginImport(1);
    await store.stageImport(job2, [await staged("staged then published with unusualword")]);
    const df = async () =>
      (await db.query<{ df: number }>(
        "select coalesce(sum(df), 0)::int as df from memory_term_df where term = 'unusualword'",
      ))[0].df;
    assert.equal(await df(), 0, "a staged row is not in the statistics");
    assert.equal(await store.publishImport(job2), true);
    assert.equal(await df(), 1, "published: counted");
    await assertStatsExact(db, "a published import");
    await store.compactStats();
    await assertStatsExact(db, "compaction");
    const [rows] = await db.query<{ df: number; corpus: number }>(
      `select (select count(*)::int from memory_term_df) as df,
              (select count(*)::int from memory_corpus) as corpus`,
    );
    const [keys] = await db.query<{ df: number; corpus: number }>(
      `select (select count(*)::int from (select distinct term, project from memory_terms) k) as df,
              (select count(distinct coalesce(project, '-'))::int from memories) as corpus`,
    );
    assert.deepEqual(rows, keys, "one row per key after compaction");
    await db.exec("truncate memories cascade");
    await assertStatsExact(db, "truncate");
    const [left] = await db.query<{ n: number }>(
      "select (select count(*) from memory_term_df) + (select count(*) from memory_corpus) as n",
    );
    assert.equal(Number(left.n), 0);
  } finally {
    await db.close();
  }
});

Deno.test("a stale import is deleted only while still stale; its owner then cannot publish", async () => {
  const db = await openPglite();
  try {
    await migrate(db);
    const embedder = new StandInEmbedder();
    await ensureEmbeddingColumn(db, embedder.info);
    const store = new Store(db);
    const row = (content: string) => stagedRow(embedder, content);
    const staged = async () =>
      (await db.query<{ n: number }>(
        "select count(*)::int as n from memories where import_job is not null",
      ))[0].n;
    const job = await store.beginImport(2);
    assert.equal(await store.stageImport(job, [await row("a slow but live import")]), true);
    // Another process's cleanup (server Postgres): the job was touched just now, so it stays.
    assert.equal(await store.abandonStaleImports(false), 0);
    assert.equal(await staged(), 1);
    await db.exec("update mneme_import_jobs set touched_at = now() - interval '1 hour'");
    assert.equal(await store.abandonStaleImports(false), 1);
    assert.equal(await staged(), 0);
    // The owner finds its job gone: nothing more is written or published.
    assert.equal(await store.stageImport(job, [await row("too late")]), false);
    assert.equal(await store.publishImport(job), false);
    await assertStatsExact(db, "a stale import deleted");
  } finally {
    await db.close();
  }
});
