/**
 * A database as 0.12.0 left it (migrations up to version 14; searches by mneme_search), for
 * the upgrade tests of migration 15 (tests/memory/search_exact_upgrade_test.ts on the
 * embedded database, tests/pgserver/search_exact_upgrade_test.ts on a real server).
 * @module
 */
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";
import type { EmbedderInfo } from "../../src/embed/embedder.ts";
import { migrate } from "../../src/store/migrate.ts";
import { type ScopeFilter, Store, vectorLiteral } from "../../src/store/store.ts";
import { newRow } from "./fixtures.ts";
import { migrateUpTo } from "./v09.ts";
import { weigh } from "../store/lexical.ts";

/**
 * Make a 0.12.0 database on `db` with 300 memories of one project and 10 global ones, upgrade
 * it, and check: version 15 applied once, mneme_search kept (a 0.12.0 daemon on the same
 * server still calls it), and a search of the global memories finds an exact search's nearest.
 */
export async function checkSearchExactUpgrade(db: Db, embedder: EmbedderInfo): Promise<void> {
  await migrateUpTo(db, embedder, 14);
  let seed = 5;
  const rand = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
  const vec = () => Array.from({ length: embedder.dimension }, () => rand() - 0.5);
  const at = new Date("2026-11-01T00:00:00Z");
  const store = new Store(db);
  // Today's insert names the dense column (migration 17) and expansion_cleared_at (22): there
  // for the insert, gone after it, as 0.12.0 had neither.
  await db.exec(
    "alter table memories add column dense vector(100), add column expansion_cleared_at timestamptz",
  );
  await store.insert(
    Array.from({ length: 310 }, (_, i) =>
      newRow(
        `memory ${i}`,
        vec(),
        at,
        i < 300 ? { scope: "project", project: "crowd" } : {},
      )),
  );
  await db.exec("alter table memories drop column dense, drop column expansion_cleared_at");
  const fn = async (name: string) =>
    (await db.query<{ n: number }>(
      "select count(*)::int as n from pg_proc where proname = $1",
      [name],
    ))[0].n;
  assert.equal(await fn("mneme_search_scoped"), 0, "0.12.0 has no mneme_search_scoped");
  assert.deepEqual(await migrate(db), [15, 16, 17, 18, 19, 20, 21, 22, 23]);
  assert.deepEqual(await migrate(db), [], "applied once");
  assert.equal(await fn("mneme_search_scoped"), 1);
  assert.equal(await fn("mneme_search"), 1, "0.12.0's function stays");
  const q = vec();
  const exact = (await db.query<{ id: string }>(
    `select id from memories where scope = 'global'
      order by (embedding <=> $1::text::vector) + 0 limit 5`,
    [vectorLiteral(q)],
  )).map((r) => r.id).sort();
  const scope: ScopeFilter = { kind: "global" };
  const found = await store.candidates(q, await weigh(store, ["unmatched"], scope), scope, 5, at);
  assert.deepEqual(found.map((c) => c.memory.id).sort(), exact);
  const near = await store.candidates(q, null, scope, 5, at);
  assert.deepEqual(near.map((c) => c.memory.id).sort(), exact);
}
