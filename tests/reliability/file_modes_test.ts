/**
 * Issue 15 item 3: DATA_DIR is 0700 and every file under it owner-only, for a new install
 * and for one made before the rule (PGlite wrote its files 0666, directories 0755).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { openMemoryService } from "../../src/memory/open.ts";
import { tempDir, testConfig } from "../helpers.ts";

/** Every path under `root` (itself included) whose group or other bits are set. */
async function exposed(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (path: string) => {
    const st = await Deno.lstat(path);
    if (st.isSymlink) return;
    if ((st.mode! & 0o077) !== 0) out.push(`${(st.mode! & 0o777).toString(8)} ${path}`);
    if (st.isDirectory) {
      for await (const e of Deno.readDir(path)) {
        await walk(join(path, e.name));
      }
    }
  };
  await walk(root);
  return out;
}

async function useOnce(dataDir: string): Promise<void> {
  const service = await openMemoryService(testConfig({ dataDir }));
  try {
    await service.create({ content: "file modes are owner-only", tags: ["modes"] });
    await service.import(
      Array.from({ length: 150 }, (_, i) => ({ content: `imported memory number ${i}` })),
    );
  } finally {
    await service.close();
  }
}

Deno.test({
  name: "a new DATA_DIR is 0700 and every file in it is owner-only after start and writes",
  ignore: Deno.build.os === "windows",
  async fn() {
    const tmp = await tempDir();
    try {
      const dataDir = join(tmp.path, "data");
      await useOnce(dataDir);
      assert.deepEqual((await Deno.stat(dataDir)).mode! & 0o777, 0o700);
      assert.deepEqual(await exposed(dataDir), []);
    } finally {
      await tmp.cleanup();
    }
  },
});

Deno.test({
  name: "an existing install with 0755 directories and 0666 files is made owner-only on start",
  ignore: Deno.build.os === "windows",
  async fn() {
    const tmp = await tempDir();
    try {
      const dataDir = join(tmp.path, "data");
      await Deno.mkdir(join(dataDir, "logs"), { recursive: true });
      await Deno.chmod(dataDir, 0o755);
      await Deno.chmod(join(dataDir, "logs"), 0o755);
      await Deno.writeTextFile(join(dataDir, "logs", "admin.log"), "old log\n");
      await Deno.chmod(join(dataDir, "logs", "admin.log"), 0o644);
      // A database as PGlite alone writes it: files 0666.
      const pg = await PGlite.create({ dataDir: join(dataDir, "db") });
      await pg.close();
      const before = await exposed(dataDir);
      if (before.length < 100) throw new Error(`expected an exposed install, got ${before}`);
      await useOnce(dataDir);
      assert.deepEqual((await Deno.stat(dataDir)).mode! & 0o777, 0o700);
      assert.deepEqual(await exposed(dataDir), []);
      // Files keep their owner bits: the log stays readable and writable by its owner.
      assert.deepEqual((await Deno.stat(join(dataDir, "logs", "admin.log"))).mode! & 0o777, 0o600);
    } finally {
      await tmp.cleanup();
    }
  },
});
