/**
 * The corpus statistics kept by triggers (migration 6) on a real server: concurrent creates,
 * imports and compactions through the pool leave them exact.
 */
import { openPostgres } from "../../src/store/postgres.ts";
import { Clock, sqlService, TableEmbedder } from "../memory/fixtures.ts";
import { assertStatsExact } from "../memory/stats_check.ts";
import { freshDatabase, serverTest } from "../pgserver/cluster.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

serverTest("corpus statistics stay exact under concurrent writes and compactions", async (pg) => {
  const fresh = await freshDatabase(pg);
  const db = await openPostgres(fresh.url, { max: 6 });
  try {
    const service = await sqlService(db, new TableEmbedder(), new Clock());
    const words = ["deploy", "tests", "api", "cache", "logs", "build"];
    const text = (i: number) => `the ${words[i % 6]} and the ${words[(i * 5) % 6]} note ${i % 9}`;
    await Promise.all([
      ...Array.from({ length: 40 }, (_, i) =>
        service.create({
          content: text(i),
          ...(i % 2 ? { project: `p${i % 3}` } : {}),
        })),
      service.import(Array.from({ length: 300 }, (_, i) => ({ content: text(i + 40) }))),
      ...Array.from({ length: 5 }, () => storeOf(service).compactStats()),
    ]);
    await assertStatsExact(db, "concurrent creates, an import and compactions");
    const ids = (await service.list({ limit: 30 })).map((m) => m.id);
    await Promise.all([
      ...ids.map((id) => service.delete(id)),
      ...Array.from({ length: 5 }, () => storeOf(service).compactStats()),
    ]);
    await assertStatsExact(db, "concurrent deletes and compactions");
  } finally {
    await db.close();
    await fresh.drop();
  }
});
