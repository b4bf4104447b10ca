/**
 * Memories expanded by a model (tests/memory/expansion.ts) on a real PostgreSQL server with
 * pgvector (halfvec vectors): found after the expansion, not before; the content returned as
 * written. Ignored, saying why, when no server can be had.
 */
import { openMemoryService } from "../../src/memory/open.ts";
import { testConfig } from "../helpers.ts";
import {
  contentWithContent,
  expandedOnce,
  leaseHeldThroughSlowCalls,
  oneWorkerAtATime,
} from "../memory/expansion.ts";
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

serverTest(
  "expansion on server Postgres: two daemons on one database, one worker at a time",
  async (pg) => {
    const d = await freshDatabase(pg);
    const a = await openMemoryService(testConfig({ databaseUrl: d.url, expansion: true }));
    const b = await openMemoryService(testConfig({ databaseUrl: d.url, expansion: true }));
    try {
      await oneWorkerAtATime(a, b);
    } finally {
      await a.close();
      await b.close();
      await d.drop();
    }
  },
);

serverTest(
  "expansion on server Postgres: the contradiction check compares content with content",
  async (pg) => {
    const d = await freshDatabase(pg);
    const service = await openMemoryService(testConfig({ databaseUrl: d.url, expansion: true }));
    try {
      await contentWithContent(service);
    } finally {
      await service.close();
      await d.drop();
    }
  },
);

serverTest(
  "expansion on server Postgres: the lease is renewed while a slow call runs (two daemons)",
  async (pg) => {
    const d = await freshDatabase(pg);
    const a = await openMemoryService(testConfig({ databaseUrl: d.url, expansion: true }));
    const b = await openMemoryService(testConfig({ databaseUrl: d.url, expansion: true }));
    try {
      await leaseHeldThroughSlowCalls(a, b);
    } finally {
      await a.close();
      await b.close();
      await d.drop();
    }
  },
);
