/**
 * `memcli backup`: a consistent copy of the embedded database while the daemon runs and
 * takes writes, restored as docs/memcli.md says (tar into a fresh DATA_DIR): every memory
 * with its vector and the recorded embedder, nothing half-written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryClient } from "../../src/memory/client.ts";
import type { ExportRecord } from "../../src/memory/types.ts";
import { memcliFiles } from "../../src/permissions.ts";
import { startAdminProcess, tempDir } from "../helpers.ts";
import { memcli } from "./_util.ts";

/** Restore `file` as documented: `mkdir DATA_DIR/db; tar -xzf FILE -C DATA_DIR/db`. */
async function restore(file: string, dataDir: string): Promise<void> {
  await Deno.mkdir(join(dataDir, "db"), { recursive: true });
  const out = await new Deno.Command("tar", { args: ["-xzf", file, "-C", join(dataDir, "db")] })
    .output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

/** Every memory, ordered by id (ids are kept by a backup). */
async function everything(client: MemoryClient): Promise<ExportRecord[]> {
  return (await client.export()).sort((a, b) => a.id.localeCompare(b.id));
}

Deno.test("the launcher grants exactly the backup file and its temporary companion", () => {
  assert.deepEqual(memcliFiles(["backup", "/x/b.tar.gz"]), {
    read: [],
    write: ["/x/b.tar.gz", "/x/b.tar.gz.mneme-tmp"],
  });
  assert.deepEqual(memcliFiles(["import", "--batch", "5", "in.json"]), {
    read: ["in.json"],
    write: [],
  });
  assert.deepEqual(memcliFiles(["export", "-"]), { read: [], write: [] });
  assert.deepEqual(memcliFiles(["add", "x.json"]), { read: [], write: [] });
});

Deno.test("memcli backup under concurrent writes restores to a consistent, equal copy", async () => {
  const dir = await tempDir();
  const live = await startAdminProcess();
  const restored: { stop(): Promise<void> }[] = [];
  const env = { MEMORY_API_URL: live.url, DATA_DIR: join(dir.path, "cli") };
  const client = new MemoryClient({ baseUrl: live.url });
  try {
    const old = await client.create({ content: "Staging runs on port 5433", project: "app" });
    await client.create({
      content: "Staging runs on port 6543",
      project: "app",
      supersedes: old.memory.id,
    });
    await client.create({ content: "Always run the tests", type: "rule", tags: ["ci"] });

    // A writer storing "write 0", "write 1" ... one after the other until told to stop.
    let stop = false;
    let written = 0;
    const writer = (async () => {
      while (!stop) {
        await client.create({ content: `write ${written} about the deploy pipeline` });
        written++;
      }
    })();
    while (written < 5) await new Promise((r) => setTimeout(r, 10));

    const during = join(dir.path, "during.tar.gz");
    const r = await memcli(["backup", during], { env, cwd: dir.path });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Backed up the embedded database to \S+ \(\d+\.\d MiB, gzipped tar/);
    const atBackup = written;
    while (written < atBackup + 5) await new Promise((r) => setTimeout(r, 10));
    stop = true;
    await writer;
    const final = await everything(client);

    // Restored from the backup taken during the writes: a consistent prefix of them.
    await restore(during, join(dir.path, "r1"));
    const r1 = await startAdminProcess({ dataDir: join(dir.path, "r1"), keepData: true });
    restored.push(r1);
    const c1 = new MemoryClient({ baseUrl: r1.url });
    const got = await everything(c1);
    const byId = new Map(final.map((m) => [m.id, m]));
    for (const m of got) assert.deepEqual(m, byId.get(m.id), "as stored, nothing half-written");
    const writes = got.map((m) => m.content.match(/^write (\d+) /)?.[1]).filter((n) => n);
    const k = writes.length;
    assert.ok(k >= 5 && k < written, `${k} of ${written} writes`);
    assert.deepEqual(
      writes.map(Number).sort((a, b) => a - b),
      Array.from({ length: k }, (_, i) => i),
      "a prefix of the writes, without gaps",
    );
    assert.equal(got.length, 3 + k);

    // Restored from a backup after the writes: an equal export, working vectors, the embedder.
    const after = join(dir.path, "after.tar.gz");
    assert.equal((await memcli(["backup", after], { env, cwd: dir.path })).code, 0);
    await restore(after, join(dir.path, "r2"));
    const r2 = await startAdminProcess({ dataDir: join(dir.path, "r2"), keepData: true });
    restored.push(r2);
    const c2 = new MemoryClient({ baseUrl: r2.url });
    assert.deepEqual(await everything(c2), final);
    const h2 = await c2.health();
    assert.equal(h2.status, "ok");
    assert.deepEqual(h2.stored_embedder, (await client.health()).stored_embedder);
    const q = { query: "which port does staging run on", project: "app" };
    // Same results from the restored vectors (scores decay with time: compared to 4 places).
    const ranked = (rs: { memory: { id: string }; score: number }[]) =>
      rs.map((x) => [x.memory.id, x.score.toFixed(4)]);
    assert.deepEqual(ranked(await c2.search(q)), ranked(await client.search(q)));
    const sup = await c2.get(old.memory.id);
    assert.ok(sup.superseded_by, "supersession kept");
  } finally {
    for (const r of restored) await r.stop();
    await live.stop();
    await dir.cleanup();
  }
});

Deno.test("memcli backup on server Postgres says to use pg_dump", async () => {
  // The in-process service over the Postgres adapter has no embedded files to copy.
  const { postgresService } = await import("../helpers.ts");
  const pg = await postgresService();
  try {
    await assert.rejects(() => pg.service.backup(), /back it up with pg_dump/);
  } finally {
    await pg.close();
  }
});
