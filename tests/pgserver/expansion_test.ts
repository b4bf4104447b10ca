/**
 * Memories expanded by a model (tests/memory/expansion.ts) on a real PostgreSQL server with
 * pgvector (halfvec vectors): found after the expansion, not before; the content returned as
 * written. Ignored, saying why, when no server can be had.
 */
import { openMemoryService } from "../../src/memory/open.ts";
import { testConfig } from "../helpers.ts";
import { expandedOnce } from "../memory/expansion.ts";
import { freshDatabase, serverTest } from "./cluster.ts";

serverTest("expansion on server Postgres: found after the expansion", async (pg) => {
  const d = await freshDatabase(pg);
  try {
    await expandedOnce(async () => {
      const service = await openMemoryService(
        testConfig({ databaseUrl: d.url, expansion: true }),
      );
      return { service, close: () => service.close() };
    });
  } finally {
    await d.drop();
  }
});
