/**
 * Capabilities, not names (src/store/db.ts): each backend states what differs, and no code
 * outside the backends decides by `Db.kind`. The in-thread embedded database, the one in a
 * worker thread and server Postgres (postgres.js over the wire to PGlite) each state theirs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openPglite, openPgliteInWorker, PGLITE_CAPABILITIES } from "../../src/store/pglite/mod.ts";
import { openPostgres, POSTGRES_CAPABILITIES } from "../../src/store/postgres.ts";
import { pgliteServer, ROOT } from "../helpers.ts";

Deno.test("each backend states its capabilities, the same through its transactions", async () => {
  const db = await openPglite();
  try {
    assert.deepEqual(db.capabilities, PGLITE_CAPABILITIES);
    assert.equal(db.capabilities.binaryVectors, true);
    assert.equal(db.capabilities.halfvec, false);
    assert.equal(db.capabilities.offThread, false);
    await db.transaction((tx) => Promise.resolve(assert.equal(tx.capabilities, db.capabilities)));
  } finally {
    await db.close();
  }
  const dir = await Deno.makeTempDir();
  const { db: worker } = await openPgliteInWorker(join(dir, "db"));
  try {
    assert.deepEqual(worker.capabilities, { ...PGLITE_CAPABILITIES, offThread: true });
    await worker.transaction((tx) =>
      Promise.resolve(assert.equal(tx.capabilities.offThread, true))
    );
  } finally {
    await worker.close();
    await Deno.remove(dir, { recursive: true });
  }
  const server = await pgliteServer();
  const pg = await openPostgres(server.url, { max: 1 });
  try {
    assert.deepEqual(pg.capabilities, POSTGRES_CAPABILITIES);
    assert.equal(pg.capabilities.superuser, false);
    assert.equal(pg.capabilities.globalVectorIndex, true);
    await pg.transaction((tx) => Promise.resolve(assert.equal(tx.capabilities, pg.capabilities)));
  } finally {
    await pg.close();
    await server.close();
  }
});

Deno.test("no code outside the backends decides by the database's name", async () => {
  const offenders: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".ts")) {
        const rel = path.slice(join(ROOT, "src").length + 1);
        // The backends themselves, and the clients of the HTTP health report (a field of JSON).
        if (rel.startsWith("store/pglite/") || rel === "store/postgres.ts") continue;
        const text = await Deno.readTextFile(path);
        for (const [i, line] of text.split("\n").entries()) {
          if (/\b(db|store|tx|s)\.kind\s*[!=]==|\.kind\s*[!=]==\s*"(pglite|postgres)"/.test(line)) {
            if (/database\.kind/.test(line)) continue;
            offenders.push(`src/${rel}:${i + 1}: ${line.trim()}`);
          }
        }
      }
    }
  };
  await walk(join(ROOT, "src"));
  assert.deepEqual(offenders, []);
});
