/**
 * The seam's shared parts (src/store/db.ts): a batch run in one transaction where statements
 * do not cross threads, and the handle of a database without lifecycle controls.
 */
import assert from "node:assert/strict";
import { batchInTransaction, fixedHandle } from "../../src/store/db.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";

Deno.test("batchInTransaction: in order, stopped and rolled back at a step without rows", async () => {
  const db = await openPglite();
  try {
    await db.exec("create table t (id int primary key)");
    const all = await batchInTransaction(db, [
      { text: "insert into t values ($1) returning id", params: [1] },
      { text: "select count(*)::int as n from t" },
    ]);
    assert.deepEqual(all, [[{ id: 1 }], [{ n: 1 }]]);
    const stopped = await batchInTransaction(db, [
      { text: "insert into t values ($1)", params: [2] },
      { text: "select 1 where false", stopUnlessRows: true },
      { text: "insert into t values ($1)", params: [3] },
    ]);
    assert.equal(stopped.length, 2);
    await assert.rejects(batchInTransaction(db, [
      { text: "insert into t values ($1)", params: [4] },
      { text: "insert into t values ($1)", params: [1] },
    ]));
    const rows = await db.query<{ id: number }>("select id from t order by id");
    assert.deepEqual(rows.map((r) => r.id), [1]);
    // The adapter's own batch is the same.
    assert.equal(
      (await db.batch([{ text: "select 1 where false", stopUnlessRows: true }])).length,
      1,
    );
  } finally {
    await db.close();
  }
});

Deno.test("fixedHandle: never busy, always quiet, nothing to renew or reopen, its dump", async () => {
  const h = fixedHandle();
  assert.equal(h.busyFor(), null);
  assert.equal(h.quietFor(), Infinity);
  assert.equal(h.unloaded(), null);
  await h.renew();
  assert.equal(h.dump, null);
  const blob = new Blob(["x"]);
  assert.equal(await fixedHandle(() => Promise.resolve(blob)).dump!(), blob);
});
