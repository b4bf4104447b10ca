/**
 * The embedded database's laptop settings (src/store/pglite/mod.ts): a buffer pool sized for the
 * data, and a write-ahead log that shrinks back after bulk writes and at start.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import {
  laptopStartParams,
  openPglite,
  sharedBuffersMb,
  startParams,
  STATISTICS_TARGET,
} from "../../../src/store/pglite/mod.ts";
import { Store } from "../../../src/store/store.ts";
import { tempDir } from "../../helpers.ts";

const MIB = 1024 * 1024;

/** The log's bytes on disk: its files' allocated blocks (what `du` and bench:peers count). */
async function walBytes(dataDir: string): Promise<number> {
  let total = 0;
  for await (const e of Deno.readDir(join(dataDir, "pg_wal"))) {
    if (!e.isFile) continue;
    const st = await Deno.stat(join(dataDir, "pg_wal", e.name));
    total += st.blocks === null ? st.size : st.blocks * 512;
  }
  return total;
}

Deno.test("shared buffers: half of the data, between 8 and 48 MiB", () => {
  assert.deepEqual(sharedBuffersMb(0), 8);
  assert.deepEqual(sharedBuffersMb(10 * MIB), 8);
  assert.deepEqual(sharedBuffersMb(48 * MIB), 24);
  assert.deepEqual(sharedBuffersMb(98 * MIB), 48);
  assert.deepEqual(sharedBuffersMb(4000 * MIB), 48);
  const params = laptopStartParams(48 * MIB);
  assert(params.includes("shared_buffers=24MB"), params.join(" "));
  assert(params.includes("max_wal_size=48MB"), params.join(" "));
  assert(params.includes("default_statistics_target=10"), params.join(" "));
});

Deno.test("embedded database: small buffers for small data; the log shrinks back after bulk writes", async () => {
  const dir = await tempDir("mneme-laptop-");
  const dataDir = join(dir.path, "db");
  try {
    let db = await openPglite(dataDir);
    try {
      const show = async (k: string) =>
        Object.values((await db.query(`show ${k}`))[0] as object)[0];
      assert.deepEqual(await show("shared_buffers"), "8MB");
      assert.deepEqual(await show("max_wal_size"), "48MB");
      assert.deepEqual(await show("fsync"), "on");
      assert.deepEqual(await show("default_statistics_target"), String(STATISTICS_TARGET));
      assert.deepEqual(await show("wal_recycle"), "off");
      assert.deepEqual(await show("wal_init_zero"), "off");
      // About 120 MiB of log: more than max_wal_size, so checkpoints run meanwhile.
      await db.exec("create table bulk (id int, pad text)");
      for (let i = 0; i < 6; i++) {
        await db.exec(
          "insert into bulk select g, repeat(md5(g::text), 30) from generate_series(1, 20000) g",
        );
      }
      // Statistics from a small sample: at most target + 1 histogram bounds (101 by default).
      await db.exec("analyze bulk");
      const [stats] = await db.query<{ bounds: number }>(
        `select array_length(histogram_bounds::text::int[], 1) as bounds from pg_stats
          where tablename = 'bulk' and attname = 'id'`,
      );
      assert(stats.bounds > 1 && stats.bounds <= STATISTICS_TARGET + 1, JSON.stringify(stats));
      await new Store(db).settle();
      const wal = await walBytes(dataDir);
      // Old segments removed at the checkpoint rather than kept as spares (wal_recycle off),
      // new ones created sparse (wal_init_zero off), and settle starts a new segment: what is
      // left is a few KiB (50 MiB when old segments were kept for reuse, 12 MiB without the
      // switch to a new segment).
      assert(wal <= MIB, `pg_wal holds ${(wal / MIB).toFixed(1)} MiB after settle`);
    } finally {
      await db.close();
    }
    // Reopened on the bigger data: a bigger pool, still far below PGlite's 128 MiB default.
    db = await openPglite(dataDir);
    try {
      const [row] = await db.query<{ shared_buffers: string }>("show shared_buffers");
      const mb = Number(row.shared_buffers.replace("MB", ""));
      assert(mb > 8 && mb <= 48, row.shared_buffers);
      assert.deepEqual(await db.query("select count(*)::int as n from bulk"), [{ n: 120000 }]);
    } finally {
      await db.close();
    }
  } finally {
    await dir.cleanup();
  }
});

Deno.test("a database of 0.8, with spare log segments full of zeros, sheds them at its first settle", async () => {
  const dir = await tempDir("mneme-laptop-");
  const dataDir = join(dir.path, "db");
  try {
    // 0.8's settings: old segments renamed into spares, new ones written full of zeros.
    const params = await startParams(undefined, false);
    const ours = /^wal_(recycle|init_zero)=/;
    const old = params.filter((p, i) =>
      !ours.test(p) && !(p === "-c" && ours.test(params[i + 1] ?? ""))
    );
    const pg = await PGlite.create({ dataDir, extensions: { vector }, startParams: old });
    try {
      assert.deepEqual((await pg.query<{ wal_recycle: string }>("show wal_recycle")).rows, [
        { wal_recycle: "on" },
      ]);
      await pg.exec("create table bulk (id int, pad text)");
      for (let i = 0; i < 4; i++) {
        await pg.exec(
          "insert into bulk select g, repeat(md5(g::text), 30) from generate_series(1, 20000) g",
        );
      }
      await pg.exec("checkpoint");
    } finally {
      await pg.close();
    }
    const before = await walBytes(dataDir);
    assert(before >= 32 * MIB, `pg_wal held only ${(before / MIB).toFixed(1)} MiB with 0.8`);
    const db = await openPglite(dataDir);
    try {
      await new Store(db).settle();
      const wal = await walBytes(dataDir);
      assert(wal <= MIB, `pg_wal holds ${(wal / MIB).toFixed(1)} MiB after settle`);
      assert.deepEqual(await db.query("select count(*)::int as n from bulk"), [{ n: 80000 }]);
    } finally {
      await db.close();
    }
  } finally {
    await dir.cleanup();
  }
});
