/**
 * The inbox's review flow (tests/memory/inbox.ts) on a real PostgreSQL server with pgvector:
 * proposals apart from memories, dedupe, the cursor, accept (superseding in the insert's
 * transaction), reject, edit. Ignored, saying why, when no server can be had.
 */
import { openMemoryService } from "../../src/memory/open.ts";
import { testConfig } from "../helpers.ts";
import { autoAcceptScenario, inboxScenario, rejectionScenario } from "../memory/inbox.ts";
import { freshDatabase, serverTest } from "./cluster.ts";

serverTest("the inbox on server Postgres", async (pg) => {
  const d = await freshDatabase(pg);
  try {
    const service = await openMemoryService(testConfig({ databaseUrl: d.url }));
    try {
      await inboxScenario(service);
    } finally {
      await service.close();
    }
  } finally {
    await d.drop();
  }
});

for (
  const [name, scenario] of [
    ["tombstones of rejected proposals", rejectionScenario],
    ["auto-accept", autoAcceptScenario],
  ] as const
) {
  serverTest(`the inbox on server Postgres: ${name}`, async (pg) => {
    const d = await freshDatabase(pg);
    try {
      const service = await openMemoryService(testConfig({ databaseUrl: d.url }));
      try {
        await scenario(service);
      } finally {
        await service.close();
      }
    } finally {
      await d.drop();
    }
  });
}
