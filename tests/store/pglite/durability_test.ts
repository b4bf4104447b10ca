/**
 * Issue 15 item 5: the embedded database commits durably by default: fsync on, and each
 * commit reaches the kernel's fsync (PGlite's file system had none, so fsync=on alone synced
 * nothing). `durable: false` is PGlite's own default (fsync off).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openPglite } from "../../../src/store/pglite/mod.ts";
import { ROOT, tempDir } from "../../helpers.ts";

/** Count the calls of PGlite's file-system fsync operation from now on. */
function countFsyncs(db: { pglite: unknown }): () => number {
  // deno-lint-ignore no-explicit-any
  const ops = (db.pglite as any).mod.FS.lookupPath("/pglite/data", {}).node.stream_ops;
  let n = 0;
  const inner = ops.fsync;
  ops.fsync = (stream: unknown) => {
    n++;
    return inner?.(stream);
  };
  return () => n;
}

Deno.test("durable by default: fsync on, and every commit syncs the WAL", async () => {
  const dir = await tempDir();
  const db = await openPglite(join(dir.path, "db"));
  try {
    assert.deepEqual(await db.query("show fsync"), [{ fsync: "on" }]);
    assert.deepEqual(await db.query("show wal_sync_method"), [{ wal_sync_method: "fsync" }]);
    assert.deepEqual(await db.query("show synchronous_commit"), [{ synchronous_commit: "on" }]);
    await db.exec("create table t (x int)");
    const calls = countFsyncs(db);
    for (let i = 0; i < 20; i++) await db.query("insert into t values ($1)", [i]);
    assert.ok(calls() >= 20, `${calls()} fsync calls for 20 commits`);
  } finally {
    await db.close();
    await dir.cleanup();
  }
});

Deno.test("durable: false is PGlite's default, fsync off", async () => {
  const dir = await tempDir();
  const db = await openPglite(join(dir.path, "db"), { durable: false });
  try {
    assert.deepEqual(await db.query("show fsync"), [{ fsync: "off" }]);
  } finally {
    await db.close();
    await dir.cleanup();
  }
});

Deno.test({
  name: "durable: the kernel sees an fsync per commit (strace, when installed)",
  ignore: Deno.build.os !== "linux" ||
    !(await new Deno.Command("sh", { args: ["-c", "command -v strace"] }).output()).success,
  async fn() {
    const dir = await tempDir();
    try {
      const code = `
        import { openPglite } from "${ROOT}src/store/pglite/mod.ts";
        const db = await openPglite(${JSON.stringify(join(dir.path, "db"))});
        await db.exec("create table t (x int)");
        for (let i = 0; i < 50; i++) await db.query("insert into t values ($1)", [i]);
        await db.close();`;
      const log = join(dir.path, "strace.txt");
      const out = await new Deno.Command("strace", {
        args: ["-f", "-c", "-e", "trace=fsync,fdatasync", "-o", log, Deno.execPath(), "eval", code],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
      // strace -c columns: % time, seconds, usecs/call, calls, [errors], syscall.
      const line = (await Deno.readTextFile(log)).split("\n").find((l) => /\sfsync$/.test(l));
      const calls = Number(line?.trim().split(/\s+/)[3] ?? 0);
      assert.ok(calls >= 50, `fsync calls: ${calls}`);
    } finally {
      await dir.cleanup();
    }
  },
});
