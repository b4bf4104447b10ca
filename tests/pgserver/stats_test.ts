/**
 * The search path on a real server: the corpus statistics kept by triggers (migration 6) stay
 * exact under concurrent creates, imports and compactions through the pool, and
 * `queryLocal` (one round trip for a statement with local settings) keeps the settings local
 * and recovers from an error.
 */
import assert from "node:assert/strict";
import { openPostgres } from "../../src/store/postgres.ts";
import { Clock, sqlService, TableEmbedder } from "../memory/fixtures.ts";
import { assertStatsExact } from "../memory/stats_check.ts";
import { freshDatabase, serverTest } from "./cluster.ts";

serverTest("corpus statistics stay exact under concurrent writes and compactions", async (pg) => {
  const fresh = await freshDatabase(pg);
  const db = await openPostgres(fresh.url, { max: 6 });
  try {
    const service = await sqlService(db, new TableEmbedder(), new Clock());
    const words = ["deploy", "tests", "api", "cache", "logs", "build"];
    const text = (i: number) => `the ${words[i % 6]} and the ${words[(i * 5) % 6]} note ${i % 9}`;
    await Promise.all([
      ...Array.from({ length: 40 }, (_, i) =>
        service.create({
          content: text(i),
          ...(i % 2 ? { project: `p${i % 3}` } : {}),
        })),
      service.import(Array.from({ length: 300 }, (_, i) => ({ content: text(i + 40) }))),
      ...Array.from({ length: 5 }, () => service.store.compactStats()),
    ]);
    await assertStatsExact(db, "concurrent creates, an import and compactions");
    const ids = (await service.list({ limit: 30 })).map((m) => m.id);
    await Promise.all([
      ...ids.map((id) => service.delete(id)),
      ...Array.from({ length: 5 }, () => service.store.compactStats()),
    ]);
    await assertStatsExact(db, "concurrent deletes and compactions");
  } finally {
    await db.close();
    await fresh.drop();
  }
});

serverTest(
  "queryLocal: settings stay local, an error rolls back, the connection goes on",
  async (pg) => {
    const db = await openPostgres(pg.adminUrl, { max: 1 });
    try {
      await assert.rejects(
        db.queryLocal!(["enable_seqscan = off"], "select 1 / 0"),
        /division by zero/,
      );
      const [inside] = await db.queryLocal!<{ s: string; x: number }>(
        ["enable_seqscan = off"],
        "select current_setting('enable_seqscan') as s, $1::int as x",
        [7],
      );
      assert.deepEqual(inside, { s: "off", x: 7 });
      const [after] = await db.query<{ s: string; tx: boolean }>(
        "select current_setting('enable_seqscan') as s, now() <> statement_timestamp() as tx",
      );
      assert.deepEqual(after, { s: "on", tx: false });
    } finally {
      await db.close();
    }
  },
);
