/**
 * The daily token budgets (src/store/budget.ts), on PGlite and on the Postgres adapter over the
 * wire: a reservation within the limit, two at once that fit one, a charge past the limit and a
 * negative one, and the two spenders' tables apart.
 */
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";
import { chargeTokens, reserveTokens, tokensOn } from "../../src/store/budget.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { pgliteServer } from "../helpers.ts";

async function onBackend(backend: "pglite" | "postgres", fn: (db: Db) => Promise<void>) {
  if (backend === "pglite") {
    const db = await openPglite();
    try {
      await migrate(db);
      await fn(db);
    } finally {
      await db.close();
    }
    return;
  }
  // One connection: the socket server in front of PGlite serves one at a time.
  const server = await pgliteServer();
  const db = await openPostgres(server.url, { max: 1 });
  try {
    await migrate(db);
    await fn(db);
  } finally {
    await db.close();
    await server.close();
  }
}

const DAY = "2026-11-30";

for (const backend of ["pglite", "postgres"] as const) {
  Deno.test(`budget on ${backend}: reservations stay within the limit, at once too`, async () => {
    await onBackend(backend, async (db) => {
      assert.equal(await tokensOn(db, "judge_budget", DAY), 0);
      assert.equal(await reserveTokens(db, "judge_budget", DAY, 1200, 1000), false, "too large");
      assert.equal(await tokensOn(db, "judge_budget", DAY), 0, "no row written for a refusal");
      assert.equal(await reserveTokens(db, "judge_budget", DAY, 600, 1000), true);
      assert.equal(await reserveTokens(db, "judge_budget", DAY, 500, 1000), false, "over");
      assert.equal(await reserveTokens(db, "judge_budget", DAY, 400, 1000), true, "exactly full");
      assert.equal(await tokensOn(db, "judge_budget", DAY), 1000);
      // A reservation given back in part, then two at once where what is left fits one.
      await chargeTokens(db, "judge_budget", DAY, -300);
      assert.equal(await tokensOn(db, "judge_budget", DAY), 700);
      const both = await Promise.all([
        reserveTokens(db, "judge_budget", DAY, 200, 1000),
        reserveTokens(db, "judge_budget", DAY, 200, 1000),
      ]);
      assert.deepEqual(both.sort(), [false, true]);
      assert.equal(await tokensOn(db, "judge_budget", DAY), 900);
      // Another day starts empty.
      assert.equal(await reserveTokens(db, "judge_budget", "2026-12-01", 1000, 1000), true);
    });
  });

  Deno.test(`budget on ${backend}: a charge counts past the limit; the tables are apart`, async () => {
    await onBackend(backend, async (db) => {
      await chargeTokens(db, "expansion_budget", DAY, 700);
      await chargeTokens(db, "expansion_budget", DAY, 5_000_000_000);
      assert.equal(await tokensOn(db, "expansion_budget", DAY), 5_000_000_700, "a bigint");
      assert.equal(await tokensOn(db, "judge_budget", DAY), 0);
      assert.equal(await reserveTokens(db, "expansion_budget", DAY, 1, 5_000_000_700), false);
      assert.equal(await reserveTokens(db, "judge_budget", DAY, 1, 1), true);
      assert.equal(await tokensOn(db, "expansion_budget", DAY), 5_000_000_700);
    });
  });
}
