/** memcli without a daemon: help, usage errors before any network call, version, down service. */
import assert from "node:assert/strict";
import { COMMAND_USAGE } from "../../src/memcli/usage.ts";
import { VERSION } from "../../src/version.ts";
import { freePort, tempDir } from "../helpers.ts";
import { memcli, memcliProcess } from "./_util.ts";
import { exists } from "../../src/common/fs.ts";
import { toolEnv } from "../helpers/install.ts";

/** A TCP listener that counts connections: proves a command made no network call. */
function connectionCounter(): { url: string; count(): number; close(): void } {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let n = 0;
  (async () => {
    for await (const c of l) {
      n++;
      c.close();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}`,
    count: () => n,
    close: () => l.close(),
  };
}

Deno.test("help: --help, -h, help and per-command help exit 0", async () => {
  for (const args of [["--help"], ["-h"], ["help"]]) {
    const r = await memcli(args);
    assert.equal(r.code, 0);
    assert.match(r.out, /^memcli: host CLI/);
    for (const cmd of ["setup", "status", "uninstall", "bootstrap", "version", "export"]) {
      assert.match(r.out, new RegExp(`\\n  ${cmd} `));
    }
  }
  for (const cmd of Object.keys(COMMAND_USAGE)) {
    if (cmd === "help") continue;
    for (const args of [[cmd, "--help"], [cmd, "-h"], ["help", cmd]]) {
      const r = await memcli(args);
      assert.equal(r.code, 0, args.join(" "));
      assert.equal(r.out, COMMAND_USAGE[cmd]);
      assert.equal(r.err, "");
    }
  }
  const none = await memcli([]);
  assert.equal(none.code, 1);
  assert.match(none.err, /^memcli: host CLI/);
});

Deno.test("unknown command or flag: stderr, usage hint, exit 1, no network call", async () => {
  const api = connectionCounter();
  const dir = await tempDir();
  try {
    const env = { MEMORY_API_URL: api.url, DATA_DIR: dir.path };
    const cases: [string[], RegExp][] = [
      [["frobnicate"], /^memcli: unknown command 'frobnicate'\nRun 'memcli --help' for usage\.\n$/],
      [["--verbose"], /^memcli: unknown flag --verbose\n/],
      [["help", "nope"], /unknown command 'nope'/],
      [
        ["status", "--jsn"],
        /^memcli status: unknown flag --jsn \(did you mean --json\?\)\nRun 'memcli status --help'/,
      ],
      [
        ["bootstrap", "--projects", "x"],
        /^memcli bootstrap: unknown flag --projects \(did you mean --project\?\)\n/,
      ],
      [
        ["add", "x", "--projet", "app"],
        /^memcli add: unknown flag --projet \(did you mean --project\?\)\n/,
      ],
      [["lst"], /^memcli: unknown command 'lst' \(did you mean 'list'\?\)\n/],
      [["forget", "a", "b"], /^memcli forget: ID: 'a' is not a memory id/],
      [["add", "x", "--global", "--project", "p"], /--global and --project cannot be combined/],
      [["add", "x", "--replace", "--supersedes", "y"], /--replace and --supersedes cannot be/],
      [["bootstrap", "--project"], /^memcli bootstrap: --project needs a value\n/],
      [["bootstrap", "extra"], /^memcli bootstrap: unexpected argument 'extra'\n/],
      [["search", "q", "--limit", "0"], /^memcli search: --limit: must be an integer between 1/],
      [["search", "--limit", "3"], /^memcli search: QUERY is required\n/],
      [["search", "q", "--scope", "team"], /--scope: must be one of global, project, all/],
      [["add", "x", "--type", "note"], /^memcli add: --type: must be one of fact, rule/],
      [["add", "x", "--weight", "2"], /^memcli add: --weight: must be a number between 0\.1/],
      [["add"], /^memcli add: CONTENT is required\n/],
      [["add", "x", "--color", "red"], /^memcli add: unknown flag --color\n/],
      [["import"], /^memcli import: FILE is required\n/],
      [["import", "a", "b"], /^memcli import: unexpected argument 'b'\n/],
      [["import", "a", "--batch", "0"], /--batch: must be an integer between 1 and 10000/],
      [["export", "a", "b"], /^memcli export: unexpected argument 'b'\n/],
      [["reembed", "--batch-size", "x"], /--batch-size: must be an integer between 1 and 5000/],
      [
        ["setup", "--port", "70000"],
        /^memcli setup: --port: must be an integer between 1 and 65535/,
      ],
      [["setup", "--embedding-provider", "magic"], /--embedding-provider: must be one of auto/],
      [["setup", "--database-url", "mysql://x"], /--database-url: must be a postgres:\/\//],
      [["setup", "--bogus"], /^memcli setup: unknown flag --bogus\n/],
      [["uninstall", "--purge=yes"], /^memcli uninstall: --purge does not take a value\n/],
      [["uninstall", "--force"], /^memcli uninstall: unknown flag --force\n/],
      [["version", "--short"], /^memcli version: unexpected argument '--short'/],
      [
        ["expansion", "clear", "--all"],
        /^memcli expansion clear: --all needs --yes \(or a terminal to confirm\): it removes /,
      ],
      [["expansion", "redo", "--all", "--yes"], /^memcli expansion redo: --yes is for clear --all/],
      [["expansion", "clear", "x", "--all"], /^memcli expansion clear: give ID or --all, not/],
    ];
    for (const [args, re] of cases) {
      const r = await memcli(args, { env });
      assert.equal(r.code, 1, args.join(" "));
      assert.match(r.err, re, args.join(" "));
      assert.match(r.err, /Run 'memcli( \w+){0,2} --help' for usage\.\n$/, args.join(" "));
      assert.equal(r.out, "", args.join(" "));
    }
    // On a terminal clear --all asks; anything but y cancels, before any request.
    const asked = await memcli(["expansion", "clear", "--all"], {
      env,
      stdinTerminal: true,
      stdin: "n\n",
    });
    assert.equal(asked.code, 1);
    assert.equal(
      asked.err,
      "Remove the expansions of every memory? [y/N] Cancelled; nothing removed.\n",
    );
    assert.equal(api.count(), 0, "no command reached the network");
    // Nothing was created either.
    assert.deepEqual([...Deno.readDirSync(dir.path)], []);
  } finally {
    api.close();
    await dir.cleanup();
  }
});

Deno.test("version: the one constant, as a real process with the task's permissions", async () => {
  const r = await memcliProcess(["version"], { env: { MEMORY_API_URL: "http://127.0.0.1:9" } });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `memcli v${VERSION} (run from a clone)\n`);
  assert.match(VERSION, /^\d+\.\d+\.\d+$/);
  assert.equal((await memcli(["--version"])).out, `memcli v${VERSION}\n`);
  const bad = await memcliProcess(["nope"]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /unknown command 'nope'/);
});

Deno.test("service down: bootstrap exits 0 with a note and an empty bootstrap; others exit 1", async () => {
  const dir = await tempDir();
  try {
    const env = { MEMORY_API_URL: `http://127.0.0.1:${freePort()}`, DATA_DIR: dir.path };
    const b = await memcliProcess(["bootstrap", "--project", "demo"], { env });
    assert.equal(b.code, 0);
    assert.match(
      b.err,
      /^memcli bootstrap: no memory service at http:\/\/127\.0\.0\.1:\d+ .*empty bootstrap\n$/,
    );
    assert.match(b.out, /^# Memory Bootstrap\n\n## System\n/);
    assert.match(b.out, /- Project: demo \(source: flag\)/);
    assert.match(b.out, /- Memories: 0 \(global 0, project 0\)/);
    assert.ok(!/## (Bootstrap|Rules|Feedback|Facts|Decisions|Context)\n/.test(b.out));

    const s = await memcli(["status"], { env });
    assert.equal(s.code, 1);
    assert.match(s.out, /^Mneme admin: not running\n/);
    assert.match(s.out, /Problem: {3}Admin API: cannot reach the Admin API/);
    const j = await memcli(["status", "--json"], { env });
    assert.equal(j.code, 1);
    const report = JSON.parse(j.out);
    assert.equal(report.running, false);
    assert.equal(report.status, "down");
    assert.equal(report.daemon, "none");
    assert.equal(report.data_dir, dir.path);

    for (const args of [["search", "x"], ["add", "x"], ["export"], ["reembed"]]) {
      const r = await memcli(args, { env });
      assert.equal(r.code, 1, args.join(" "));
      assert.match(r.err, /cannot reach the Admin API/);
    }
    // A broken environment does not break a session start either.
    const broken = await memcli(["bootstrap"], {
      env: { ...env, EMBEDDING_PROVIDER: "magic" },
      cwd: dir.path,
    });
    assert.equal(broken.code, 0);
    assert.match(broken.err, /EMBEDDING_PROVIDER="magic"/);
    assert.match(broken.out, /## Bootstrap Stats/);
  } finally {
    await dir.cleanup();
  }
});

Deno.test("service down: status reads no start-at-login entry (no crontab through sh)", async () => {
  const dir = await tempDir();
  try {
    // A crontab on PATH that records each call: what it says of a start at login is of no use
    // while no service runs here.
    const path = `${dir.path}/path`;
    await Deno.mkdir(path);
    await Deno.writeTextFile(
      `${path}/crontab`,
      `#!/bin/sh\ntouch "${dir.path}/crontab-ran"\necho "@reboot memcli start # mneme: start at login (autostart)"\n`,
      { mode: 0o755 },
    );
    // A fresh HOME (no login entry of this machine's found first), Deno's cache kept.
    const env = {
      ...toolEnv(),
      MEMORY_API_URL: `http://127.0.0.1:${freePort()}`,
      DATA_DIR: `${dir.path}/data`,
      HOME: `${dir.path}/home`,
      PATH: `${path}:${Deno.env.get("PATH")}`,
    };
    await Deno.mkdir(env.HOME);
    const s = await memcliProcess(["status"], { env });
    assert.equal(s.code, 1, s.err);
    assert.match(s.out, /^Mneme admin: not running\n {2}Daemon: {4}not started\n/);
    assert.equal(await exists(`${dir.path}/crontab-ran`), false, "crontab -l was run");
  } finally {
    await dir.cleanup();
  }
});

Deno.test("import: file problems are reported before any request", async () => {
  const api = { MEMORY_API_URL: `http://127.0.0.1:${freePort()}` };
  const dir = await tempDir();
  try {
    const missing = await memcli(["import", `${dir.path}/none.json`], { env: api });
    assert.equal(missing.code, 1);
    assert.match(missing.err, /none\.json: no such file/);
    await Deno.writeTextFile(`${dir.path}/bad.json`, "{not json");
    const bad = await memcli(["import", `${dir.path}/bad.json`], { env: api });
    assert.match(bad.err, /bad\.json: not valid JSON/);
    await Deno.writeTextFile(`${dir.path}/obj.json`, '{"content":"x"}');
    const obj = await memcli(["import", `${dir.path}/obj.json`], { env: api });
    assert.match(obj.err, /obj\.json: expected a JSON array of memories/);
    await Deno.writeTextFile(`${dir.path}/empty.json`, "[]");
    const empty = await memcli(["import", `${dir.path}/empty.json`], { env: api });
    assert.equal(empty.code, 0);
    assert.match(empty.out, /Nothing to import/);
  } finally {
    await dir.cleanup();
  }
});

Deno.test("uninstall --purge refuses while a process owns the embedded database", async () => {
  const dir = await tempDir("mneme-purge-");
  const dataDir = `${dir.path}/data`;
  await Deno.mkdir(`${dataDir}/db`, { recursive: true });
  // An owner memcli did not start (deno task start, an in-process service): no pid file,
  // but it holds the database's owner lock.
  const lock = await Deno.open(`${dataDir}/db/mneme.lock`, {
    read: true,
    write: true,
    create: true,
  });
  await lock.lock(true);
  await lock.write(new TextEncoder().encode("4242\n"));
  try {
    const env = { DATA_DIR: dataDir, HOME: dir.path };
    const r = await memcli(["uninstall", "--purge"], {
      env,
      stdin: `${dataDir}\n`,
      stdinTerminal: true,
    });
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /in use by a running process \(pid 4242\).*nothing deleted/);
    assert.ok((await Deno.stat(`${dataDir}/db`)).isDirectory, "nothing deleted");
  } finally {
    lock.close();
  }
  try {
    const env = { DATA_DIR: dataDir, HOME: dir.path };
    const r = await memcli(["uninstall", "--purge"], {
      env,
      stdin: `${dataDir}\n`,
      stdinTerminal: true,
    });
    assert.equal(r.code, 0, r.err);
    await assert.rejects(Deno.stat(dataDir), Deno.errors.NotFound);
  } finally {
    await dir.cleanup();
  }
});
