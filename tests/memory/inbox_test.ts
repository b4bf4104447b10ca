/** The inbox's review flow (inbox.ts) on PGlite and on the Postgres adapter over the wire. */
import { pgliteService, postgresService } from "../helpers.ts";
import { autoAcceptScenario, inboxScenario, rejectionScenario } from "./inbox.ts";

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

Deno.test("inbox on PGlite: a rejected statement is not proposed again (tombstones)", async () => {
  const s = await pgliteService();
  try {
    await rejectionScenario(s.service);
  } finally {
    await s.close();
  }
});

Deno.test("inbox on PGlite: auto-accept stores a sure proposal, the others wait", async () => {
  const s = await pgliteService();
  try {
    await autoAcceptScenario(s.service);
  } finally {
    await s.close();
  }
});

Deno.test("inbox on the Postgres adapter: tombstones", async () => {
  const s = await postgresService();
  try {
    await rejectionScenario(s.service);
  } finally {
    await s.close();
  }
});

Deno.test("inbox on the Postgres adapter: auto-accept", async () => {
  const s = await postgresService();
  try {
    await autoAcceptScenario(s.service);
  } finally {
    await s.close();
  }
});
