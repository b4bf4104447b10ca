/**
 * Permission scopes (issues 8 and 13): each entrypoint runs for real (`src/bin/<x>.ts`) as a
 * subprocess with exactly the flags the launcher computes for a configuration (src/programs.ts:
 * what its task and installed command start it with), plus `--no-prompt`, in a cleared
 * environment. A denial runs the program with the flags of one configuration (`flagEnv`,
 * `flagArgs`) in another (`env`, `args`): what a process holds when its configuration names
 * less than it tries. Each test shows that an operation outside the scope is denied: the exit code,
 * the error naming the denied path or host, and, where a server stands behind it, that the
 * server received no connection. Every denial has a control with the same flags (or flags
 * computed for the target) where the operation goes through, so that the tests can fail.
 *
 * The `serve` entry started with broad permissions (re-executed with exactly its set) is
 * covered by tests/serve/entry_test.ts ("permission lock"); here the serve task's own flags,
 * and `msgcli serve`, which narrows msgcli's permissions to the daemon's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { denoRunArgs, findProgram } from "../src/programs.ts";
import { exists } from "../src/common/fs.ts";
import { freePort, ROOT, tempDir } from "./helpers.ts";

type Task = "start" | "mcp" | "memcli" | "msgcli" | "serve";

const decoder = new TextDecoder();

/** PATH, HOME, the Deno cache location and NO_COLOR, plus `extra`: nothing else leaks in. */
function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const k of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * `deno run --no-prompt <deno flags> --config <repo>/deno.json <permissions> <entry>`, where
 * the permissions are the launcher's for the configuration `flagEnv` and the arguments
 * `flagArgs` in `cwd` (`null`: the fixed grants of a compiled executable).
 */
function commandLine(
  task: Task,
  flagEnv: Record<string, string>,
  cwd: string,
  flagArgs: string[] | null = [],
): string[] {
  const env = baseEnv(flagEnv);
  const launch = findProgram(task)!.launch({ env: (n) => env[n], args: flagArgs, cwd });
  const [run, ...rest] = denoRunArgs({ ...launch, args: [] });
  return rest.includes("--no-prompt") ? [run, ...rest] : [run, "--no-prompt", ...rest];
}

interface Opts {
  /** The configuration the flags are computed for (default: `env`). */
  flagEnv?: Record<string, string>;
  /** The arguments the flags are computed for (default: the arguments run; null: fixed). */
  flagArgs?: string[] | null;
  /** The environment the program runs in (besides baseEnv). */
  env?: Record<string, string>;
  /** Working directory (default: the repository). */
  cwd?: string;
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function spawn(task: Task, args: string[], o: Opts = {}): Deno.ChildProcess {
  const cwd = o.cwd ?? ROOT;
  return new Deno.Command(Deno.execPath(), {
    args: [
      ...commandLine(
        task,
        o.flagEnv ?? o.env ?? {},
        cwd,
        o.flagArgs === undefined ? args : o.flagArgs,
      ),
      ...args,
    ],
    env: baseEnv(o.env),
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function run(task: Task, args: string[], o: Opts = {}): Promise<Result> {
  const out = await spawn(task, args, o).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** A TCP listener that counts connections and closes each at once. */
function connectionCounter(hostname: string) {
  const listener = Deno.listen({ hostname, port: 0 });
  let count = 0;
  const loop = (async () => {
    try {
      for await (const conn of listener) {
        count++;
        conn.close();
      }
    } catch { /* closed */ }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    get count() {
      return count;
    },
    async close() {
      listener.close();
      await loop;
    },
  };
}

/** Asserts that `text` contains `part` (paths and hosts are compared literally). */
function includes(text: string, part: string, what = "stderr") {
  assert.ok(text.includes(part), `${what} lacks ${JSON.stringify(part)}:\n${text}`);
}

async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test("admin: a DATA_DIR or a database host outside its flags is refused before any access", async () => {
  const a = await tempDir("mneme-perm-a-");
  const b = await tempDir("mneme-perm-b-");
  const denied = connectionCounter("127.0.0.2");
  const allowed = connectionCounter("127.0.0.2");
  try {
    const elsewhere = join(b.path, "data");
    // A free port, not a fixed one: the control daemon binds it while it starts, and as root
    // a low port such as 9 binds too, where other tests expect nothing to listen.
    const flagEnv = {
      DATA_DIR: a.path,
      EMBEDDING_PROVIDER: "builtin",
      ADMIN_PORT: String(freePort()),
    };
    const deniedDb = `postgres://mneme@127.0.0.2:${denied.port}/mneme`;
    const allowedDb = `postgres://mneme@127.0.0.2:${allowed.port}/mneme`;
    const [dir, db, control] = await Promise.all([
      run("start", [], { flagEnv, env: { ...flagEnv, DATA_DIR: elsewhere } }),
      run("start", [], { flagEnv, env: { ...flagEnv, DATABASE_URL: deniedDb } }),
      // Control: flags computed for that database reach it (and fail there: it closes).
      run("start", [], { env: { ...flagEnv, DATABASE_URL: allowedDb } }),
    ]);

    assert.equal(dir.code, 1, dir.stderr);
    includes(dir.stderr, `(read:${elsewhere}, write:${elsewhere})`);
    includes(dir.stderr, `--allow-read=${elsewhere} --allow-write=${elsewhere}`);
    assert.equal(
      await exists(elsewhere, { followSymlinks: false }),
      false,
      "the refused DATA_DIR was created",
    );

    assert.equal(db.code, 1, db.stderr);
    includes(db.stderr, `(net:127.0.0.2:${denied.port})`);
    includes(db.stderr, `--allow-net=127.0.0.2:${denied.port}`);
    assert.equal(denied.count, 0, "the refused database host received a connection");
    assert.deepEqual(await names(a.path), [], "nothing written in DATA_DIR");

    assert.equal(control.code, 1, control.stderr);
    includes(control.stderr, `cannot connect to the database at 127.0.0.2:${allowed.port}`);
    assert.ok(allowed.count >= 1, "the control run did not reach its database");
  } finally {
    await Promise.all([denied.close(), allowed.close(), a.cleanup(), b.cleanup()]);
  }
});

Deno.test("mcp: an Admin API host outside its flags is refused, with no connection", async () => {
  const denied = connectionCounter("127.0.0.2");
  const allowed = connectionCounter("127.0.0.2");
  try {
    const base = { EMBEDDING_PROVIDER: "builtin" };
    const started = performance.now();
    const [refused, control] = await Promise.all([
      run("mcp", [], {
        flagEnv: { ...base, MEMORY_API_URL: `http://127.0.0.1:${freePort()}` },
        env: { ...base, MEMORY_API_URL: `http://127.0.0.2:${denied.port}` },
      }),
      run("mcp", [], { env: { ...base, MEMORY_API_URL: `http://127.0.0.2:${allowed.port}` } }),
    ]);
    assert.ok(performance.now() - started < 20_000, "mcp did not exit promptly");

    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stdout, "", "nothing on the JSON-RPC stream");
    includes(refused.stderr, `mneme mcp: this configuration needs permissions`);
    includes(refused.stderr, `(net:127.0.0.2:${denied.port})`);
    assert.equal(denied.count, 0, "the refused Admin API host received a connection");

    // The control run may reach its host: it finds no Admin API there, and (API mode outlives
    // its service) serves anyway until its stdin closes.
    includes(
      control.stderr,
      `the Admin API at http://127.0.0.2:${allowed.port} (MEMORY_API_URL) does not answer yet`,
    );
    assert.ok(allowed.count >= 1, "the control run did not reach its Admin API");
  } finally {
    await Promise.all([denied.close(), allowed.close()]);
  }
});

Deno.test("memcli: cannot read the database directory nor files outside the working directory and DATA_DIR", async () => {
  const data = await tempDir("mneme-perm-data-");
  const work = await tempDir("mneme-perm-cwd-");
  const outside = await tempDir("mneme-perm-out-");
  const port = freePort();
  // The daemon memcli talks to, run with the admin task's flags for this DATA_DIR.
  const adminEnv = {
    DATA_DIR: data.path,
    ADMIN_PORT: String(port),
    ADMIN_HOST: "127.0.0.1",
    EMBEDDING_PROVIDER: "builtin",
  };
  const daemon = spawn("start", [], { env: adminEnv });
  const log = Promise.all([
    new Response(daemon.stdout).text(),
    new Response(daemon.stderr).text(),
  ]).then(([o, e]) => o + e);
  try {
    let healthy = false;
    for (const deadline = Date.now() + 60_000; !healthy && Date.now() < deadline;) {
      const status = await Promise.race([
        daemon.status,
        new Promise<null>((r) => setTimeout(() => r(null), 100)),
      ]);
      if (status) assert.fail(`admin daemon exited: ${await log}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        await res.body?.cancel();
        healthy = res.status === 200;
      } catch { /* not listening yet */ }
    }
    assert.ok(healthy, "admin daemon did not become healthy");
    const pgVersion = join(data.path, "db", "PG_VERSION");
    assert.ok(await exists(pgVersion), "the daemon's database has no PG_VERSION");

    const items = (where: string) =>
      JSON.stringify([{ content: `permission scope test (${where})`, type: "fact" }]);
    await Deno.writeTextFile(join(work.path, "in.json"), items("cwd"));
    await Deno.writeTextFile(join(data.path, "in.json"), items("data"));
    await Deno.writeTextFile(join(outside.path, "in.json"), items("outside"));
    const o: Opts = {
      env: { DATA_DIR: data.path, MEMORY_API_URL: `http://127.0.0.1:${port}` },
      cwd: work.path,
    };
    const outFile = join(outside.path, "out.json");
    const [db, farRead, farWrite, here, inData] = await Promise.all([
      run("memcli", ["import", pgVersion], o),
      run("memcli", ["import", join(outside.path, "in.json")], o),
      run("memcli", ["export", outFile], o),
      run("memcli", ["import", "in.json"], o),
      run("memcli", ["import", join(data.path, "in.json")], o),
    ]);

    const refused = "outside memcli's permissions (it reads and writes files in the working " +
      "directory and DATA_DIR, never DATA_DIR/db)";
    // The database stays out of reach even when the command line names a file in it.
    assert.equal(db.code, 1, db.stderr);
    includes(db.stderr, `memcli import: ${pgVersion}: ${refused}`);

    // A file elsewhere that the command line names is granted, exactly that file.
    assert.equal(farRead.code, 0, farRead.stderr);
    includes(farRead.stdout, `Imported 1 memories from ${outside.path}/in.json.`, "stdout");
    assert.equal(farWrite.code, 0, farWrite.stderr);
    assert.deepEqual(await names(outside.path), ["in.json", "out.json"]);
    const plan = denoRunArgs(findProgram("memcli")!.launch({
      env: (n) => o.env?.[n],
      args: ["export", outFile],
      cwd: work.path,
    })).join(" ");
    assert.ok(plan.includes(outFile) && plan.includes(`${outFile}.mneme-tmp`), plan);
    assert.ok(!plan.includes(join(outside.path, "in.json")), "only the named file");

    // Controls with the same flags: the working directory and DATA_DIR outside db/.
    assert.equal(here.code, 0, here.stderr);
    includes(here.stdout, "Imported 1 memories from in.json.", "stdout");
    assert.equal(inData.code, 0, inData.stderr);
    const exported = await run("memcli", ["export", "out.json"], o);
    assert.equal(exported.code, 0, exported.stderr);
    const records = JSON.parse(await Deno.readTextFile(join(work.path, "out.json")));
    assert.equal(records.length, 3);

    // A hybrid search reads the word vectors' file, the one file the daemon reads outside
    // DATA_DIR and PGlite's packages, with exactly that file's grant.
    const start = denoRunArgs(findProgram("start")!.launch({
      env: (n) => (adminEnv as Record<string, string>)[n],
      args: [],
      cwd: ROOT,
    }));
    const read = start.find((f) => f.startsWith("--allow-read="))!.split("=")[1].split(",");
    assert.deepEqual(read.filter((p) => p.endsWith(".bin")), [
      join(ROOT, "models", "glove-100d-50k.bin"),
    ]);
    const res = await fetch(`http://127.0.0.1:${port}/api/memories/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "a permission scope test", scope: "all" }),
    });
    const found = await res.json();
    assert.equal(res.status, 200, JSON.stringify(found));
    assert.equal(found.length, 3, JSON.stringify(found));
  } finally {
    try {
      daemon.kill("SIGTERM");
    } catch { /* exited */ }
    await daemon.status;
    await log;
    await Promise.all([data.cleanup(), work.cleanup(), outside.cleanup()]);
  }
});

/** A credentials directory with a valid (unexpired) token pair: no refresh is needed. */
async function credentials(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const dir = await tempDir("msgcli-perm-creds-");
  const path = join(dir.path, "credentials.json");
  const creds = { accessToken: "at-test", refreshToken: "rt-test", expiresAt: Date.now() + 3600e3 };
  await Deno.writeTextFile(path, JSON.stringify(creds), { mode: 0o600 });
  await Deno.chmod(path, 0o600);
  return {
    env: { MSGCLI_CREDENTIALS_PATH: path, MSGCLI_NO_BROWSER: "1" },
    cleanup: dir.cleanup,
  };
}

Deno.test("msgcli: an API host outside its flags and a file its command line does not name are denied", async () => {
  const creds = await credentials();
  const work = await tempDir("msgcli-perm-cwd-");
  const outside = await tempDir("msgcli-perm-out-");
  const deniedHost = connectionCounter("127.0.0.2");
  const allowedHost = connectionCounter("127.0.0.2");
  const noRequest = connectionCounter("127.0.0.2");
  try {
    await Deno.writeTextFile(join(work.path, "system.txt"), "Be brief.");
    await Deno.writeTextFile(join(outside.path, "system.txt"), "Be brief.");
    const api = (port: number) => ({
      ...creds.env,
      MSGCLI_API_BASE_URL: `http://127.0.0.2:${port}`,
    });
    const farFile = join(outside.path, "system.txt");
    const [host, control, file] = await Promise.all([
      // The flags of the default configuration (api.anthropic.com), another API host.
      run("msgcli", ["query", "hi"], {
        flagEnv: creds.env,
        env: { ...api(deniedHost.port), MSGCLI_DEBUG: "1" },
        cwd: work.path,
      }),
      // Control: flags for that host and for the file named, outside the working directory.
      run("msgcli", ["query", "--system-file", farFile, "hi"], {
        env: api(allowedHost.port),
        cwd: work.path,
      }),
      // The flags computed for another file (in the working directory) refuse this one.
      run("msgcli", ["query", "--system-file", farFile, "hi"], {
        env: api(noRequest.port),
        flagArgs: ["query", "--system-file", "system.txt", "hi"],
        cwd: work.path,
      }),
    ]);

    assert.notEqual(host.code, 0, host.stderr);
    includes(host.stderr, `cannot reach http://127.0.0.2:${deniedHost.port}/v1/messages`);
    includes(host.stderr, `Requires net access to "127.0.0.2:${deniedHost.port}"`);
    assert.equal(deniedHost.count, 0, "the refused API host received a connection");
    assert.doesNotMatch(host.stderr, /retrying/, `a refused host is not retried: ${host.stderr}`);

    assert.notEqual(control.code, 0, control.stderr);
    includes(control.stderr, `cannot reach http://127.0.0.2:${allowedHost.port}/v1/messages`);
    assert.ok(allowedHost.count >= 1, "the control request did not reach its API host");

    assert.equal(file.code, 1, file.stderr);
    includes(file.stderr, `--system-file: cannot read ${farFile}: Requires read access`);
    assert.equal(noRequest.count, 0, "a request was sent although the system file was denied");
  } finally {
    await Promise.all([
      deniedHost.close(),
      allowedHost.close(),
      noRequest.close(),
      creds.cleanup(),
      work.cleanup(),
      outside.cleanup(),
    ]);
  }
});

Deno.test({
  name: "msgcli serve in a compiled msgcli: narrows its fixed grants to the daemon's",
  // The working directory is /etc so that the probe's `read /etc/hosts` reads inside it.
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const creds = await credentials();
    const local = connectionCounter("127.0.0.1");
    try {
      const localUrl = `http://localhost:${local.port}`;
      const controlEnv = { ...creds.env, MSGCLI_API_BASE_URL: localUrl };
      // The fixed grants of a compiled msgcli, built for the default API host: localhost
      // (every port) and the working directory "." are in them.
      const fixed = commandLine("msgcli", creds.env, "/etc", null);
      const credsDir = creds.env.MSGCLI_CREDENTIALS_PATH.replace(/\/[^/]+$/, "");
      assert.ok(fixed.includes(`--allow-read=${credsDir},.`), fixed.join(" "));
      // Control: msgcli itself reads /etc/hosts (in its working directory) and reaches
      // localhost:<port>.
      const control = await run("msgcli", ["query", "--system-file", "hosts", "hi"], {
        env: controlEnv,
        flagEnv: creds.env,
        flagArgs: null,
        cwd: "/etc",
      });
      assert.notEqual(control.code, 0, control.stderr);
      includes(control.stderr, `cannot reach ${localUrl}/v1/messages`);
      const reached = local.count;
      assert.ok(reached >= 1, "the control request did not reach localhost");

      const probe = await run(
        "msgcli",
        ["serve", "--listen", "127.0.0.1:0", "--permission-probe", `${localUrl}/`],
        { env: creds.env, flagArgs: null, cwd: "/etc" },
      );
      assert.equal(probe.code, 0, probe.stderr);
      const report = JSON.parse(probe.stdout);
      assert.deepEqual(report.broad, []);
      for (const [what, state] of Object.entries(report.granted)) {
        assert.equal(state, "granted", what);
      }
      assert.equal(report.attempts[`fetch ${localUrl}/`], "denied");
      assert.equal(report.attempts["read /etc/hosts"], "denied");
      for (const [what, outcome] of Object.entries(report.attempts)) {
        assert.equal(outcome, "denied", what);
      }
      assert.equal(local.count, reached, "the narrowed daemon connected to localhost");
    } finally {
      await Promise.all([local.close(), creds.cleanup()]);
    }
  },
});

Deno.test("serve: the task's own flags reach only the listen address and the upstreams", async () => {
  const creds = await credentials();
  const work = await tempDir("serve-perm-cwd-");
  const otherHost = connectionCounter("127.0.0.2");
  const otherPort = connectionCounter("127.0.0.1");
  try {
    const probe = (url: string) =>
      run("serve", ["--listen", "127.0.0.1:8787", "--permission-probe", url], {
        env: creds.env,
        cwd: work.path,
      });
    const urls = [`http://127.0.0.2:${otherHost.port}/`, `http://127.0.0.1:${otherPort.port}/`];
    const reports = await Promise.all(urls.map(probe));
    for (const [i, r] of reports.entries()) {
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.deepEqual(report.broad, []);
      assert.equal(report.granted["net:127.0.0.1:8787"], "granted");
      assert.equal(report.granted["net:api.anthropic.com:443"], "granted");
      assert.equal(report.attempts[`fetch ${urls[i]}`], "denied");
      for (const [what, outcome] of Object.entries(report.attempts)) {
        assert.equal(outcome, "denied", what);
      }
    }
    assert.equal(otherHost.count, 0, "the daemon connected to another host");
    assert.equal(otherPort.count, 0, "the daemon connected to another port of 127.0.0.1");
  } finally {
    await Promise.all([otherHost.close(), otherPort.close(), creds.cleanup(), work.cleanup()]);
  }
});

Deno.test("memcli: above the working directory it may read .mneme and .git, nothing else", async () => {
  const top = await tempDir("mneme-perm-walk-");
  try {
    const sub = join(top.path, "sub");
    await Deno.mkdir(sub);
    const items = JSON.stringify([{ content: "walk", type: "fact" }]);
    await Deno.writeTextFile(join(top.path, ".mneme"), items);
    await Deno.writeTextFile(join(top.path, "other.json"), items);
    const o: Opts = {
      env: { DATA_DIR: join(top.path, "data"), MEMORY_API_URL: `http://127.0.0.1:${freePort()}` },
      cwd: sub,
    };
    const marker = await run("memcli", ["import", "../.mneme"], o);
    // The project file is readable: the import gets as far as the (absent) Admin API.
    assert.equal(marker.code, 1, marker.stderr);
    assert.doesNotMatch(marker.stderr, /outside memcli's permissions/);
    includes(marker.stderr, "Admin API");
    // Any other file there is not, unless the command line names it (then exactly it).
    const plan = (args: string[]) =>
      denoRunArgs(findProgram("memcli")!.launch({ env: (n) => o.env?.[n], args, cwd: sub }))
        .join(" ");
    assert.ok(plan(["status"]).includes(join(top.path, ".mneme")));
    assert.ok(!plan(["status"]).includes(join(top.path, "other.json")));
    assert.ok(plan(["import", "../other.json"]).includes(join(top.path, "other.json")));
  } finally {
    await top.cleanup();
  }
});

Deno.test("memcli is refused the database and the new one a first start builds beside it", () => {
  const args = denoRunArgs(findProgram("memcli")!.launch({
    env: (n) => ({ HOME: "/home/you", DATA_DIR: "/d" })[n],
    args: ["list"],
    cwd: "/w",
  }));
  assert.ok(args.includes("--deny-read=/d/db,/d/db.new"), args.join(" "));
});
