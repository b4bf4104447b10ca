/**
 * On a real server: an import's chunk meets (term, project) pairs that another writer adds at
 * the same moment. Its statement that finds or adds the chunk's new pairs waits for that writer
 * on the pairs' unique index, then skips them (`on conflict do nothing`, nothing returned): the
 * chunk must look them up again and write every posting with the one key of its pair.
 */
import assert from "node:assert/strict";
import { termCounts } from "../../src/domain/terms.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { Clock, newRow, sqlService, TableEmbedder } from "../memory/fixtures.ts";
import { assertStatsExact } from "../memory/stats_check.ts";
import { freshDatabase, serverTest } from "../pgserver/cluster.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

serverTest(
  "an import's new pairs added meanwhile by another writer are found again",
  async (pg) => {
    const fresh = await freshDatabase(pg);
    const db = await openPostgres(fresh.url, { max: 3 });
    const other = await openPostgres(fresh.url, { max: 1 });
    try {
      const service = await sqlService(db, new TableEmbedder(), new Clock());
      const store = storeOf(service);
      const content = "quixotic zephyrs vex the glimmering kumquat";
      const project = "p1";
      const terms = [...termCounts(content).keys()];
      assert.ok(terms.length >= 4, `terms of the content: ${terms}`);
      const job = await store.beginImport(1);
      const [embedding] = await new TableEmbedder().embed([content]);
      const at = new Date("2026-03-01T12:00:00Z");
      const row = newRow(content, embedding, at, {
        scope: "project",
        project,
      });
      let staged: Promise<boolean> | undefined;
      // The other writer adds half of the pairs and holds them uncommitted while the chunk runs.
      const theirs = terms.slice(0, 2);
      await other.transaction(async (tx) => {
        for (const term of theirs) {
          await tx.query("insert into memory_term_keys (term, project) values ($1, $2)", [
            term,
            project,
          ]);
        }
        staged = store.stageImport(job, [row]);
        // Until the chunk waits for this transaction's rows (at most 20 s).
        for (let i = 0;; i++) {
          const [{ n }] = await db.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`,
          );
          if (n > 0) break;
          if (i >= 400) throw new Error("the chunk never waited for the other writer");
          await new Promise((r) => setTimeout(r, 50));
        }
      });
      assert.equal(await staged, true);
      assert.equal(await store.publishImport(job), true);
      const keys = await db.query<{ term: string; n: number }>(
        `select term, count(*)::int as n from memory_term_keys
        where project = $1 group by term order by term`,
        [project],
      );
      assert.deepEqual(
        keys.map((k) => ({ term: k.term, n: k.n })),
        [...terms].sort().map((term) => ({ term, n: 1 })),
        "one key a pair",
      );
      const posted = await db.query<{ term: string }>(
        `select k.term from memory_postings p join memory_term_keys k on k.id = p.key
         join memory_nums n on n.num = p.num where n.id = $1 order by k.term`,
        [row.id],
      );
      assert.deepEqual(posted.map((p) => p.term), [...terms].sort(), "a posting for every term");
      await assertStatsExact(db, "after the import");
    } finally {
      await other.close();
      await db.close();
      await fresh.drop();
    }
  },
);
