/**
 * The embedded database without its template databases (`template0`, `template1`: 14 MiB that
 * only `CREATE DATABASE` would read): a new database is made without them, one made before
 * 0.10 loses them at its first open with everything in it kept, and the database opens again,
 * backs up and restores from its backup without them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { createDatabaseFiles } from "../../../src/store/pglite/create.ts";
import { openPglite, startParams } from "../../../src/store/pglite/mod.ts";
import { databaseCreatorArgs } from "../../../src/programs.ts";
import type { Db } from "../../../src/store/db.ts";
import { tempDir } from "../../helpers.ts";

async function databases(db: Db): Promise<string[]> {
  return (await db.query<{ datname: string }>("select datname from pg_database order by 1"))
    .map((r) => r.datname);
}

/** The directories under `base/` (one per database). */
function baseDirs(dir: string): string[] {
  return [...Deno.readDirSync(join(dir, "base"))].filter((e) => e.isDirectory).map((e) => e.name)
    .sort();
}

/** Bytes of the files under `dir`. */
function bytes(dir: string): number {
  let n = 0;
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    n += e.isDirectory ? bytes(p) : e.isFile ? Deno.statSync(p).size : 0;
  }
  return n;
}

async function rows(db: Db): Promise<string[]> {
  return (await db.query<{ v: string }>("select v::text as v from t order by id")).map((r) => r.v);
}

Deno.test("a new database is made without the template databases, and works", async () => {
  const tmp = await tempDir();
  try {
    const dir = join(tmp.path, "db");
    const created = await createDatabaseFiles(dir, async (staging) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: databaseCreatorArgs(staging),
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).output();
      if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    });
    assert.equal(created, true);
    assert.equal(baseDirs(dir).length, 1, baseDirs(dir).join(" "));
    const db = await openPglite(dir);
    try {
      assert.deepEqual(await databases(db), ["postgres"]);
      await db.exec("create extension if not exists vector");
      await db.exec("create table t (id int, v vector(3))");
      await db.query("insert into t values (1, '[1,2,3]')");
      assert.deepEqual(await rows(db), ["[1,2,3]"]);
    } finally {
      await db.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("a database made with its templates (0.9) loses them at its first open; it reopens, backs up and restores", async () => {
  const tmp = await tempDir();
  try {
    const dir = join(tmp.path, "db");
    await Deno.mkdir(dir, { mode: 0o700 });
    // As 0.9 made it: PGlite's initdb, templates and all, with data in `postgres`.
    const pg = await PGlite.create({
      dataDir: dir,
      extensions: { vector },
      startParams: await startParams(dir, false),
    });
    await pg.exec("create extension vector; create table t (id int primary key, v vector(3))");
    await pg.exec(
      "insert into t select i, array[i, 1, 2]::vector from generate_series(1, 500) i",
    );
    await pg.exec("create index on t using hnsw (v vector_cosine_ops)");
    assert.deepEqual(
      (await pg.query<{ datname: string }>("select datname from pg_database order by 1")).rows
        .map((r) => r.datname),
      ["postgres", "template0", "template1"],
    );
    await pg.close();
    const before = bytes(join(dir, "base"));
    const want = await (async () => {
      const p = await PGlite.create({ dataDir: dir, extensions: { vector } });
      try {
        return (await p.query<{ v: string }>("select v::text as v from t order by id")).rows
          .map((r) => r.v);
      } finally {
        await p.close();
      }
    })();
    assert.equal(want.length, 500);

    let db = await openPglite(dir);
    try {
      assert.deepEqual(await databases(db), ["postgres"]);
      assert.equal(baseDirs(dir).length, 1, baseDirs(dir).join(" "));
      const after = bytes(join(dir, "base"));
      assert.ok(before - after > 12 * 2 ** 20, `base/: ${before} → ${after} bytes`);
      assert.deepEqual(await rows(db), want);
    } finally {
      await db.close();
    }

    // Opened again: nothing to drop, everything there, writes and maintenance work.
    db = await openPglite(dir);
    let backup: Blob;
    try {
      assert.deepEqual(await databases(db), ["postgres"]);
      assert.deepEqual(await rows(db), want);
      await db.query("insert into t values (501, '[9,9,9]')");
      await db.exec("vacuum full t");
      await db.exec("reindex table t");
      const [near] = await db.query<{ id: number }>(
        "select id from t order by v <=> '[9,9,9]' limit 1",
      );
      assert.equal(near.id, 501);
      backup = await db.dump();
    } finally {
      await db.close();
    }

    // Restored as docs/memcli.md says: the tarball unpacked into an empty directory.
    const restored = join(tmp.path, "restored");
    await Deno.mkdir(restored, { mode: 0o700 });
    const tgz = join(tmp.path, "backup.tar.gz");
    await Deno.writeFile(tgz, new Uint8Array(await backup.arrayBuffer()));
    const tar = await new Deno.Command("tar", { args: ["-xzf", tgz, "-C", restored] }).output();
    assert.ok(tar.success, new TextDecoder().decode(tar.stderr));
    db = await openPglite(restored);
    try {
      assert.deepEqual(await databases(db), ["postgres"]);
      assert.deepEqual(await rows(db), [...want, "[9,9,9]"]);
    } finally {
      await db.close();
    }
  } finally {
    await tmp.cleanup();
  }
});
