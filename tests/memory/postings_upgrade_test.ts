/**
 * Migration 14 (compact postings) upgrades a database made by 0.9.0 in place on the embedded
 * database: see tests/memory/v09.ts (the same check runs on a real server in
 * tests/pgserver/postings_upgrade_test.ts).
 */
import { openPglite } from "../../src/store/pglite/mod.ts";
import { checkPostingsUpgrade, migrateV09 } from "./v09.ts";

const EMBEDDER = { provider: "builtin", model: "hash-v2", dimension: 16 };

Deno.test("a 0.9.0 database's postings are converted in place, same results (PGlite)", async () => {
  const db = await openPglite();
  try {
    await migrateV09(db, EMBEDDER);
    await checkPostingsUpgrade(db, EMBEDDER.dimension);
  } finally {
    await db.close();
  }
});
