/** The export/import round trip on a real PostgreSQL server: see tests/memory/round_trip.ts. */
import { roundTrip } from "../memory/round_trip.ts";
import { freshDatabase, serverTest } from "./cluster.ts";

serverTest(
  "export, import into a fresh database: same live, same superseded, same searches",
  async (pg) => {
    const dbs = [await freshDatabase(pg), await freshDatabase(pg)];
    try {
      await roundTrip((n) => ({ databaseUrl: dbs[n].url }));
    } finally {
      for (const d of dbs) await d.drop();
    }
  },
);
