/** The inbox's review flow (inbox.ts) on PGlite and on the Postgres adapter over the wire. */
import { pgliteService, postgresService } from "../helpers.ts";
import { inboxScenario } from "./inbox.ts";

Deno.test("inbox on PGlite: proposals apart from memories, dedupe, cursor, accept/reject/edit", async () => {
  const s = await pgliteService();
  try {
    await inboxScenario(s.service);
  } finally {
    await s.close();
  }
});

Deno.test("inbox on the Postgres adapter over the wire", async () => {
  const s = await postgresService();
  try {
    await inboxScenario(s.service);
  } finally {
    await s.close();
  }
});
