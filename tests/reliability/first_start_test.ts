/**
 * Issue 29 item 1: a new embedded database is created by a short-lived child process (src/bin/
 * initdb.ts, with exactly its permissions), so that the daemon never holds PGlite's `initdb`;
 * and a first start killed at any point leaves nothing half-made that a later start trusts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  COMPLETE_MARKER,
  createDatabaseFiles,
  creatorLock,
  stagingDir,
} from "../../src/store/pglite/create.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { databaseCreatorArgs, findProgram, permissionFlagsFor } from "../../src/programs.ts";
import { creatorPlan, permissionFlags, planFor } from "../../src/permissions.ts";
import { loadMemoryConfig } from "../../src/config.ts";
import { freePort, ROOT, startAdminProcess, tempDir } from "../helpers.ts";

/** Runs the real creator child on `staging`, as the daemon does; resolves to its status. */
function spawnCreator(staging: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: databaseCreatorArgs(staging),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function runCreator(staging: string): Promise<void> {
  const out = await spawnCreator(staging).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

/** Waits (up to a minute) until `path` exists: the creator has started writing. */
async function untilExists(path: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await exists(path)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs `fn` in a fresh temporary directory, removed afterwards. */
async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await tempDir();
  try {
    await fn(dir.path);
  } finally {
    await dir.cleanup();
  }
}

/** Opens the database in `dir` and checks it works (a table, a row, pgvector). */
async function usable(dir: string): Promise<void> {
  const db = await openPglite(dir);
  try {
    const t = `t${crypto.randomUUID().slice(0, 8)}`;
    await db.exec(`create extension if not exists vector; create table ${t} (v vector(3))`);
    await db.query(`insert into ${t} values ('[1,2,3]')`);
    assert.deepEqual(await db.query(`select v::text from ${t}`), [{ v: "[1,2,3]" }]);
  } finally {
    await db.close();
  }
}

Deno.test("the creator child runs with exactly its permissions: its staging directory and PGlite's files", () => {
  const flags = databaseCreatorArgs("/data/db.new");
  const plan = creatorPlan("/data/db.new");
  for (const f of permissionFlags(plan)) assert.ok(flags.includes(f), f);
  assert.deepEqual(plan.write, ["/data/db.new", "/data/db.new.lock"]);
  assert.deepEqual(plan.read.slice(0, 2), ["/data/db.new", "/data/db.new.lock"]);
  assert.deepEqual([plan.net, plan.env, plan.run ?? []], [[], [], []]);
  assert.ok(!flags.some((f) => f === "-A" || /^--allow-(all|run|net|env|sys|ffi)/.test(f)));
  assert.ok(flags.includes("--no-prompt"));
});

Deno.test("the admin daemon may run Deno's own executable on the embedded database only, and not once compiled", () => {
  const env = (vars: Record<string, string>) => (k: string) => vars[k];
  const embedded = env({ HOME: "/home/you", DATA_DIR: "/data" });
  assert.deepEqual(planFor("admin", loadMemoryConfig(embedded), "/").run, [Deno.execPath()]);
  const server = env({ HOME: "/home/you", DATABASE_URL: "postgres://u@db.internal/mneme" });
  assert.equal(planFor("admin", loadMemoryConfig(server), "/").run, undefined);
  const admin = findProgram("mneme-admin")!;
  assert.deepEqual(admin.launch({ env: embedded, args: [], cwd: "/" }).plan.run, [
    Deno.execPath(),
  ]);
  assert.equal(admin.launch({ env: embedded, args: null, cwd: "/" }).plan.run, undefined);
  for (const name of ["mneme-mcp", "memcli"]) {
    const run = findProgram(name)!.launch({ env: embedded, args: [], cwd: "/" }).plan.run ?? [];
    assert.ok(!run.includes(Deno.execPath()), name);
  }
});

Deno.test("a new database is created in a child and moved into place; an existing one is left alone", () =>
  inTempDir(async (dir) => {
    const db = join(dir, "db");
    await Deno.mkdir(db, { mode: 0o700 });
    await Deno.writeTextFile(join(db, "mneme.lock"), "1\n"); // the owner lock stays
    let runs = 0;
    const creator = (s: string) => (runs++, runCreator(s));
    assert.equal(await createDatabaseFiles(db, creator), true);
    assert.equal(runs, 1);
    assert.ok(await exists(join(db, "PG_VERSION")));
    assert.ok(await exists(join(db, "mneme.lock")));
    assert.ok(!(await exists(join(db, COMPLETE_MARKER))));
    assert.ok(!(await exists(stagingDir(db))));
    if (Deno.build.os !== "windows") {
      const modes = [db, join(db, "PG_VERSION"), join(db, "global")].map((p) =>
        (Deno.statSync(p).mode ?? 0) & 0o077
      );
      assert.deepEqual(modes, [0, 0, 0], "owner-only");
    }
    await usable(db);
    // A second start: nothing to create.
    assert.equal(await createDatabaseFiles(db, creator), false);
    assert.equal(runs, 1);
    await usable(db);
  }));

Deno.test("a creator killed half-way leaves nothing trusted: the next start creates the database afresh", () =>
  inTempDir(async (dir) => {
    const db = join(dir, "db");
    const staging = stagingDir(db);
    const child = spawnCreator(staging);
    // Killed once it has started writing the database (or whenever it gets there first).
    await untilExists(join(staging, "base"));
    assert.ok(child.pid > 0);
    child.kill("SIGKILL");
    const status = await child.status;
    await child.stderr.cancel();
    assert.ok(!(await exists(join(db, "PG_VERSION"))));
    if (status.success) {
      // It finished before the kill: a complete staging directory, moved without a new run.
      assert.ok(await exists(join(staging, COMPLETE_MARKER)));
    } else {
      assert.ok(!(await exists(join(staging, COMPLETE_MARKER))), "no marker after a kill");
    }
    let runs = 0;
    assert.equal(await createDatabaseFiles(db, (s) => (runs++, runCreator(s))), true);
    assert.equal(runs, status.success ? 0 : 1);
    assert.ok(!(await exists(staging)));
    await usable(db);
  }));

Deno.test("a staging directory without its marker is never moved into place", () =>
  inTempDir(async (dir) => {
    const db = join(dir, "db");
    const staging = stagingDir(db);
    await runCreator(staging);
    await Deno.remove(join(staging, COMPLETE_MARKER)); // as if killed before the marker
    await Deno.writeTextFile(join(staging, "stray"), "x");
    let runs = 0;
    assert.equal(await createDatabaseFiles(db, (s) => (runs++, runCreator(s))), true);
    assert.equal(runs, 1, "created again");
    assert.ok(!(await exists(join(db, "stray"))));
    await usable(db);
    // A creator that fails leaves no database either.
    const other = join(dir, "other");
    await assert.rejects(
      createDatabaseFiles(other, async (s) => {
        await Deno.mkdir(s);
        await Deno.writeTextFile(join(s, "PG_VERSION"), "17\n");
      }),
      /did not finish/,
    );
    assert.ok(!(await exists(join(other, "PG_VERSION"))));
  }));

Deno.test("a start waits for the orphaned creator of a killed start before it touches the staging directory", () =>
  inTempDir(async (dir) => {
    const db = join(dir, "db");
    const staging = stagingDir(db);
    // An orphan: holds the creator's lock and keeps writing files into the staging directory
    // for 1.5 s, as a creator does until its parent watch notices the parent is gone.
    const orphan = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `const f = await Deno.open(${JSON.stringify(creatorLock(staging))}, ` +
        `{ write: true, create: true }); await f.lock(true);` +
        `await Deno.mkdir(${JSON.stringify(staging)});` +
        `await Deno.writeTextFile(${JSON.stringify(join(staging, "ready"))}, "");` +
        `const end = Date.now() + 1500; let i = 0;` +
        `while (Date.now() < end) { await Deno.writeTextFile(${
          JSON.stringify(staging)
        } + "/f" + i++, "x"); await new Promise((r) => setTimeout(r, 5)); }`,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    await untilExists(join(staging, "ready"));
    let createdAt = 0;
    const created = await createDatabaseFiles(db, async (s) => {
      createdAt = Date.now();
      await runCreator(s);
    });
    const status = await orphan.status;
    const ended = Date.now();
    assert.equal(created, true);
    assert.ok(status.success, new TextDecoder().decode((await orphan.output()).stderr));
    assert.ok(createdAt > 0 && createdAt <= ended);
    assert.ok(!(await exists(join(db, "ready"))), "nothing of the orphan's moved into place");
    assert.ok(!(await exists(staging)) && !(await exists(creatorLock(staging))));
    await usable(db);
  }));

Deno.test("a move killed half-way is finished by the next start, without creating again", () =>
  inTempDir(async (dir) => {
    const db = join(dir, "db");
    const staging = stagingDir(db);
    await runCreator(staging);
    // Killed after moving some entries: `db` holds part of the files, no PG_VERSION.
    await Deno.mkdir(db, { mode: 0o700 });
    for (const name of ["global", "base", "pg_wal"]) {
      await Deno.rename(join(staging, name), join(db, name));
    }
    assert.equal(
      await createDatabaseFiles(db, () => Promise.reject(new Error("must not run again"))),
      true,
    );
    assert.ok(!(await exists(staging)));
    await usable(db);
  }));

Deno.test("the admin daemon killed during its first start starts cleanly the next time", () =>
  inTempDir(async (dir) => {
    const dataDir = join(dir, "data");
    // First start, killed while the creator child works.
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../src/bin/admin.ts", import.meta.url).pathname],
      env: {
        DATA_DIR: dataDir,
        ADMIN_PORT: "0",
        ADMIN_HOST: "127.0.0.1",
        EMBEDDING_PROVIDER: "builtin",
      },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const staging = stagingDir(join(dataDir, "db"));
    await untilExists(join(staging, "base"));
    assert.ok(child.pid > 0);
    child.kill("SIGKILL");
    await child.status;
    // The orphaned creator notices its parent is gone and stops without a marker (or had
    // finished); give it its poll interval.
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(!(await exists(join(dataDir, "db", "PG_VERSION"))));

    const admin = await startAdminProcess({ dataDir, keepData: true });
    try {
      const res = await fetch(`${admin.url}/api/memories`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: "the first start was killed", scope: "global" }),
      });
      assert.equal(res.status, 201, await res.text());
      assert.ok(!(await exists(staging)));
    } finally {
      await admin.stop();
    }
  }));

Deno.test("without the run permission (a hand-written deno run line), the daemon creates its database itself", () =>
  inTempDir(async (dir) => {
    const port = freePort();
    // The test's own environment (its HOME and Deno cache), as startAdminProcess runs it.
    const env: Record<string, string> = {
      DATA_DIR: join(dir, "data"),
      ADMIN_PORT: String(port),
      ADMIN_HOST: "127.0.0.1",
      EMBEDDING_PROVIDER: "builtin",
    };
    const flags = permissionFlagsFor("mneme-admin", {
      env: (k) => env[k] ?? Deno.env.get(k),
      args: [],
      cwd: dir,
    });
    assert.ok(flags.some((f) => f.startsWith("--allow-run=")));
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        `${ROOT}deno.json`,
        ...flags.filter((f) => !f.startsWith("--allow-run=")),
        `${ROOT}src/bin/admin.ts`,
      ],
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      let healthy = false;
      const deadline = Date.now() + 90_000;
      while (!healthy && Date.now() < deadline) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/healthz`);
          await res.body?.cancel();
          healthy = res.status === 200;
        } catch { /* not listening yet */ }
        if (!healthy) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(healthy, "the daemon did not become healthy");
      assert.ok(await exists(join(dir, "data", "db", "PG_VERSION")));
      assert.ok(!(await exists(stagingDir(join(dir, "data", "db")))));
    } finally {
      if (child.pid > 0) child.kill("SIGTERM");
      await child.output().catch(() => {});
    }
  }));
