/**
 * Migration 14 (compact postings) upgrades a database made by 0.9.0 in place on a real
 * PostgreSQL server: see tests/memory/v09.ts. Ignored, saying why, when no server can be had.
 */
import { openPostgres } from "../../src/store/postgres.ts";
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
