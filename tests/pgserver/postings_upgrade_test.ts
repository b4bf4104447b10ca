/**
 * Migration 14 (compact postings) upgrades a database made by 0.9.0 in place on a real
 * PostgreSQL server: see tests/memory/v09.ts. Ignored, saying why, when no server can be had.
 */
import assert from "node:assert/strict";
import { ensureEmbeddingColumn, migrate } from "../../src/store/migrate.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { Store } from "../../src/store/store.ts";
import { newRow } from "../memory/fixtures.ts";
import { assertStatsExact } from "../memory/stats_check.ts";
import { checkPostingsUpgrade, migrateV09 } from "../memory/v09.ts";
import { freshDatabase, serverTest } from "./cluster.ts";

const EMBEDDER = { provider: "builtin", model: "hash-v2", dimension: 16 };

serverTest(
  "a 0.9.0 database's postings are converted in place, same results (server)",
  async (pg) => {
    const fresh = await freshDatabase(pg);
    const db = await openPostgres(fresh.url, { max: 2 });
    try {
      await migrateV09(db, EMBEDDER);
      await checkPostingsUpgrade(db, EMBEDDER.dimension);
    } finally {
      await db.close();
      await fresh.drop();
    }
  },
);

serverTest(
  "a term's key added by a concurrent writer: the other's postings are written again",
  async (pg) => {
    const fresh = await freshDatabase(pg);
    const db = await openPostgres(fresh.url, { max: 3 });
    try {
      await migrate(db);
      await ensureEmbeddingColumn(db, EMBEDDER);
      const at = new Date("2026-05-01T00:00:00Z");
      const row = (content: string) =>
        newRow(
          content,
          Array.from({ length: EMBEDDER.dimension }, (_, i) => (i === 3 ? 1 : 0.1)),
          at,
          { scope: "project", project: "p1" },
        );
      const a = row("The zebrafish tank was cleaned");
      const b = row("A zebrafish tank needs a heater");
      let release = () => {};
      const gate = new Promise<void>((r) => release = r);
      let inserted = () => {};
      const first = new Promise<void>((r) => inserted = r);
      // A adds the new pairs and holds them uncommitted; B, started meanwhile, waits for A on
      // them and then neither sees nor adds them.
      const ta = db.transaction(async (tx) => {
        await new Store(tx).insert([a]);
        inserted();
        await gate;
      });
      await first;
      const tb = new Store(db).insert([b]);
      await new Promise((r) => setTimeout(r, 500));
      release();
      await ta;
      await tb;
      const terms = async (id: string) =>
        (await db.query<{ term: string }>(
          "select term from memory_terms where memory_id = $1 order by term",
          [id],
        )).map((r) => r.term);
      assert.deepEqual(await terms(b.id), ["heat", "need", "tank", "zebrafish"]);
      assert.deepEqual(await terms(a.id), ["clean", "tank", "zebrafish"]);
      await assertStatsExact(db, "two writers adding the same pairs");
    } finally {
      await db.close();
      await fresh.drop();
    }
  },
);
