/**
 * Migration 15 (mneme_search_scoped) upgrades a database made by 0.12.0 in place on a real
 * PostgreSQL server: see tests/memory/v12.ts. Ignored, saying why, when no server can be had.
 */
import { openPostgres } from "../../src/store/postgres.ts";
import { checkSearchExactUpgrade } from "../memory/v12.ts";
import { freshDatabase, serverTest } from "./cluster.ts";

serverTest("a 0.12.0 database gets the search of small scopes in place (server)", async (pg) => {
  const fresh = await freshDatabase(pg);
  const db = await openPostgres(fresh.url, { max: 2 });
  try {
    await checkSearchExactUpgrade(db, { provider: "builtin", model: "hash-v2", dimension: 16 });
  } finally {
    await db.close();
    await fresh.drop();
  }
});
