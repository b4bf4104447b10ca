/**
 * An import stages its chunks with the keys of their (term, project) pairs found once per
 * import (Store.stageImport): the memories, numbers, postings and statistics it leaves are
 * those of the same memories written one by one.
 */
import assert from "node:assert/strict";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import type { Store } from "../../src/store/store.ts";
import { pgliteService } from "../helpers.ts";
import { assertStatsExact } from "../memory/stats_check.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

async function withService(fn: (s: SqlMemoryService, store: Store) => Promise<void>) {
  const { service, close } = await pgliteService({ embeddingDim: 32 });
  try {
    await fn(service, storeOf(service));
  } finally {
    await close();
  }
}

// Global and project memories sharing words (the same term, different pairs), words repeated
// in a memory (tf > 1), pairs that recur across the import's chunks and pairs met only late.
const items = Array.from({ length: 420 }, (_, i) => ({
  content: `note ${i}: the deploy deploy pipeline of module ${i % 13} uses cache ${i % 29}` +
    (i > 400 ? ` and the late word w${i}` : ""),
  ...(i % 3 ? { scope: "project" as const, project: `p${i % 5}` } : {}),
  type: "fact" as const,
}));

async function postings(store: Store) {
  return await store.db.query(
    `select m.content, t.term, t.project, t.tf, t.len, t.impact
       from memory_terms t join memories m on m.id = t.memory_id
      order by m.content, t.term, t.project nulls first`,
  );
}

Deno.test("an import leaves the postings, numbers and statistics of the same memories written one by one", async () => {
  let one: unknown[] = [];
  let oneNums = 0;
  await withService(async (s, store) => {
    // A pair known before the import: its key is reused.
    for (const it of items.slice(0, 3)) await s.create(it);
    await s.import(items.slice(3));
    await assertStatsExact(store.db, "the import");
    one = await postings(store);
    [{ n: oneNums }] = await store.db.query<{ n: number }>(
      "select count(*)::int as n from memory_nums n join memories m using (id)",
    );
    const [keys] = await store.db.query<{ n: number; pairs: number }>(
      `select count(*)::int as n, count(distinct (term, coalesce(project, '')))::int as pairs
         from memory_term_keys`,
    );
    assert.equal(keys.n, keys.pairs, "one key per pair");
  });
  await withService(async (s, store) => {
    for (const it of items) await s.create(it);
    await assertStatsExact(store.db, "the creates");
    assert.deepEqual(one, await postings(store));
    assert.equal(oneNums, items.length);
  });
});
