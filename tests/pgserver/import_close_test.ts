/**
 * A service closed right after a series of imports (tests/memory/import_close.ts) on a real
 * PostgreSQL server with pgvector: nothing logged, the database opens again with every memory.
 * Ignored, saying why, when no server can be had.
 */
import { openMemoryService } from "../../src/memory/open.ts";
import { testConfig } from "../helpers.ts";
import { closeAfterImportsScenario } from "../memory/import_close.ts";
import { freshDatabase, serverTest } from "./cluster.ts";

serverTest(
  "closed right after imports on server Postgres: nothing logged; opens again",
  async (pg) => {
    const d = await freshDatabase(pg);
    try {
      await closeAfterImportsScenario(() => openMemoryService(testConfig({ databaseUrl: d.url })));
    } finally {
      await d.drop();
    }
  },
);
