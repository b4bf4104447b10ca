/**
 * Issue 31: a free-space reserve that fits the volume. The reserve is the smaller of 64 MiB
 * and 5 % of the volume; a database that cannot take writes still starts and serves reads;
 * a fresh database that cannot be created says so plainly. The free space is injected at the
 * seam (no root needed); full_disk_test.ts runs the real tmpfs cases.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryError } from "../../src/domain/errors.ts";
import { createServiceOnDb } from "../../src/memory/open.ts";
import { DISK_RESERVE_BYTES, diskReserve, openPglite } from "../../src/store/pglite/mod.ts";
import { tempDir, testConfig } from "../helpers.ts";

const MiB = 1 << 20;

Deno.test("the reserve is the smaller of 64 MiB and 5 % of the volume", () => {
  assert.equal(diskReserve(null), DISK_RESERVE_BYTES);
  assert.equal(diskReserve(100 * 1024 * MiB), 64 * MiB);
  assert.equal(diskReserve(200 * MiB), 10 * MiB);
  assert.equal(diskReserve(0), DISK_RESERVE_BYTES);
});

Deno.test("a database on a nearly full volume starts and serves reads; writes get a 507", async () => {
  const dir = await tempDir("mneme-small-");
  const cfg = testConfig({ embeddingDim: 32 });
  let free = 1 << 30;
  const opts = { reserveBytes: 20 * MiB, freeBytes: () => Promise.resolve(free) };
  try {
    {
      const db = await openPglite(join(dir.path, "db"), opts);
      const s = await createServiceOnDb(db, cfg, { reclaim: { atStartMs: null } });
      await s.create({ content: "kept on a small volume", project: "p" });
      await s.close();
    }
    free = 5 * MiB;
    const db = await openPglite(join(dir.path, "db"), opts);
    const s = await createServiceOnDb(db, cfg, { reclaim: { atStartMs: null } });
    try {
      const listed = await s.list({ project: "p" });
      assert.deepEqual(listed.map((m) => m.content), ["kept on a small volume"]);
      await assert.rejects(
        s.create({ content: "no room for this", project: "p" }),
        (err: unknown) =>
          err instanceof MemoryError && err.status === 507 &&
          /reads go on/.test(err.message),
      );
    } finally {
      await s.close();
    }
  } finally {
    await dir.cleanup();
  }
});

Deno.test("a fresh database that cannot be created says so plainly", async () => {
  const dir = await tempDir("mneme-small-");
  try {
    const db = await openPglite(join(dir.path, "db"), {
      reserveBytes: 20 * MiB,
      freeBytes: () => Promise.resolve(5 * MiB),
    });
    await assert.rejects(
      createServiceOnDb(db, testConfig({ embeddingDim: 32 }), { reclaim: { atStartMs: null } }),
      (err: unknown) => {
        const msg = (err as Error).message;
        assert.match(msg, /^the database cannot be created or upgraded: the disk is full/);
        assert.match(msg, /5 MiB free, 20 MiB needed/);
        assert.doesNotMatch(msg, /reads go on/);
        return true;
      },
    );
    await db.close();
  } finally {
    await dir.cleanup();
  }
});
