/**
 * The corpus statistics cache (src/store/corpus.ts): counts read once serve every scope for
 * STATS_TTL_MS, a store's writes drop them, and the sizes that choose an exact read come
 * with them.
 */
import assert from "node:assert/strict";
import { CorpusCache } from "../../src/store/corpus.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";

/** `db` counting its reads of memory_corpus. */
function counting(db: Db): { db: Db; reads: () => number } {
  let n = 0;
  const wrapped: Db = {
    ...db,
    query(text, params, options) {
      if (/from memory_corpus/.test(text)) n++;
      return db.query(text, params, options);
    },
  };
  return { db: wrapped, reads: () => n };
}

Deno.test("corpus counts are read once for every scope, and again once dropped", async () => {
  const raw = await openPglite();
  try {
    await migrate(raw);
    await raw.query(
      `insert into memory_corpus (project, n, len, with_len) values (null, 3, 30, 3), ('a', 1, 5, 1)`,
    );
    await raw.query(
      `insert into memory_term_df (term, project, df) values ('x', null, 2), ('x', 'a', 1)`,
    );
    const { db, reads } = counting(raw);
    const cache = new CorpusCache();
    const global = await cache.stats(db, { kind: "global" }, ["x"]);
    assert.deepEqual([global.n, global.avgdl, global.df.get("x")], [3, 10, 2]);
    const hierarchy = await cache.stats(db, { kind: "hierarchy", project: "a" }, ["x"]);
    assert.deepEqual([hierarchy.n, hierarchy.avgdl, hierarchy.df.get("x")], [4, 35 / 4, 3]);
    assert.deepEqual([...(await cache.sizesOf(db))], [[null, 3], ["a", 1]]);
    assert.equal(reads(), 1, "one read serves every scope and the sizes");
    cache.invalidate();
    await cache.stats(db, { kind: "all" }, ["x"]);
    assert.equal(reads(), 2);
  } finally {
    await raw.close();
  }
});
