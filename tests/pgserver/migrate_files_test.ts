/**
 * The migration runner's function files on a real PostgreSQL server, over the wire: a fresh
 * database, one as 0.14 left it upgraded to the same schema, unchanged files not run again,
 * changed ones applied, a broken one rolling the whole run back (tests/store/migrate_files.ts).
 * Ignored, saying why, when no server can be had.
 */
import { openPostgres } from "../../src/store/postgres.ts";
import { checkFresh, checkRepeatable, checkUpgradeFrom014 } from "../store/migrate_files.ts";
import { freshDatabase, serverTest } from "./cluster.ts";

const EMBEDDER = { provider: "builtin", model: "hash-v2", dimension: 16 };

serverTest("migrations and function files on a fresh database (server)", async (pg) => {
  const fresh = await freshDatabase(pg);
  const db = await openPostgres(fresh.url, { max: 2 });
  try {
    await checkFresh(db);
    await checkRepeatable(db);
  } finally {
    await db.close();
    await fresh.drop();
  }
});

serverTest(
  "a database as 0.14 left it upgrades to the schema of a fresh one (server)",
  async (pg) => {
    const [a, b] = [await freshDatabase(pg), await freshDatabase(pg)];
    const [old, fresh] = [
      await openPostgres(a.url, { max: 2 }),
      await openPostgres(b.url, { max: 2 }),
    ];
    try {
      await checkUpgradeFrom014(old, fresh, EMBEDDER);
    } finally {
      await old.close();
      await fresh.close();
      await a.drop();
      await b.drop();
    }
  },
);
