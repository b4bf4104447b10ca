/**
 * Migration 15 (mneme_search_scoped) upgrades a database made by 0.12.0 in place on the
 * embedded database: see tests/memory/v12.ts (the same check runs on a real server in
 * tests/pgserver/search_exact_upgrade_test.ts).
 */
import { openPglite } from "../../src/store/pglite/mod.ts";
import { checkSearchExactUpgrade } from "./v12.ts";

Deno.test("a 0.12.0 database gets the search of small scopes in place (PGlite)", async () => {
  const db = await openPglite();
  try {
    await checkSearchExactUpgrade(db, { provider: "builtin", model: "hash-v2", dimension: 16 });
  } finally {
    await db.close();
  }
});
