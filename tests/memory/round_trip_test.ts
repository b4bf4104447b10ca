/** The export/import round trip on the embedded database: see round_trip.ts. */
import { roundTrip } from "./round_trip.ts";

Deno.test({
  name: "export, import into a fresh data folder: same live, same superseded, same searches",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => roundTrip(() => ({})),
});
