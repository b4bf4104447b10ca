/**
 * Issue 13: every documented setting works under every command, through the real deno.json
 * task (`deno task <name>`) and through the installed command, each with a value other than
 * the default. The commands are installed once, before any setting is chosen, so every run
 * here also shows that changing a setting after `deno task install` needs no reinstall: the
 * launcher computes the permissions when the command starts.
 *
 * Every host is 127.0.0.2 (a second loopback address that no default names), reached through
 * a relay to the fake or the PGlite server on 127.0.0.1; every path is a fresh temporary
 * directory outside the defaults. The task and the installed command run side by side.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client, StdioClientTransport } from "./deps.ts";
import { startFakeAnthropic } from "./fakes/anthropic.ts";
import { startFakeOllama } from "./fakes/ollama.ts";
import { startFakeOpenAI } from "./fakes/openai.ts";
import { exists } from "../src/common/fs.ts";
import { freePort, pgliteServer, ROOT, tempDir } from "./helpers.ts";

const decoder = new TextDecoder();
const HOST = "127.0.0.2";

/** PATH (with this Deno first), HOME, Deno's cache and what Deno needs to reach npm. */
function baseEnv(): Record<string, string> {
  const PATH = `${Deno.execPath().replace(/\/[^/]+$/, "")}:${Deno.env.get("PATH")}`;
  return { PATH, NO_COLOR: "1", ...pick(BASE_VARS) };
}

const BASE_VARS = [
  "HOME",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "DENO_CERT",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

/** What Deno may need to reach the npm registry when a dependency is not cached yet. */
const NETWORK_VARS = [
  "DENO_TLS_CA_STORE",
  "HTTPS_PROXY",
  "https_proxy",
  "NO_PROXY",
  "no_proxy",
  "NPM_CONFIG_REGISTRY",
];

/** The variables of `names` that are set in this process. */
function pick(names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of names) {
    const v = Deno.env.get(k);
    if (v) out[k] = v;
  }
  return out;
}

/** A TCP relay on 127.0.0.2 to `port` on 127.0.0.1; stops with `close()`. */
function relay(port: number) {
  const listener = Deno.listen({ hostname: HOST, port: 0 });
  const conns = new Set<Deno.Conn>();
  const loop = (async () => {
    try {
      for await (const conn of listener) {
        conns.add(conn);
        (async () => {
          try {
            const up = await Deno.connect({ hostname: "127.0.0.1", port });
            conns.add(up);
            await Promise.allSettled([
              conn.readable.pipeTo(up.writable),
              up.readable.pipeTo(conn.writable),
            ]);
          } catch { /* the other side went away */ }
          for (const c of [conn]) {
            try {
              c.close();
            } catch { /* closed */ }
          }
        })();
      }
    } catch { /* closed */ }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    url: `http://${HOST}:${(listener.addr as Deno.NetAddr).port}`,
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await loop;
    },
  };
}

/** The commands, installed once (before any setting is chosen) into a temporary root. */
let installed: Promise<{ bin(name: string): string; cleanup(): Promise<void> }> | undefined;
function install() {
  installed ??= (async () => {
    const root = await tempDir("mneme-launch-install-");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "install", "--root", root.path],
      cwd: ROOT,
      env: { ...baseEnv(), ...pick(NETWORK_VARS) },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    return { bin: (name: string) => join(root.path, "bin", name), cleanup: root.cleanup };
  })();
  return installed;
}

type Mode = "task" | "installed";
const MODES: Mode[] = ["task", "installed"];
const TASK: Record<string, string> = {
  "mneme-admin": "start",
  "mneme-mcp": "mcp",
  memcli: "memcli",
  msgcli: "msgcli",
};

/** `[command, args]` that run program `name` with `args` as `mode`. */
async function commandOf(mode: Mode, name: string, args: string[]): Promise<[string, string[]]> {
  if (mode === "task") {
    return [Deno.execPath(), ["task", "-q", "--config", `${ROOT}deno.json`, TASK[name], ...args]];
  }
  return [(await install()).bin(name), args];
}

interface Opts {
  env: Record<string, string>;
  cwd?: string;
  stdin?: "null" | "piped";
}

/** Where installed commands run unless told: a directory that is not the clone. */
const ELSEWHERE = Deno.makeTempDirSync({ prefix: "mneme-launch-cwd-" });

async function spawn(mode: Mode, name: string, args: string[], o: Opts) {
  const [cmd, argv] = await commandOf(mode, name, args);
  return new Deno.Command(cmd, {
    args: argv,
    cwd: o.cwd ?? (mode === "installed" ? ELSEWHERE : ROOT),
    env: { ...baseEnv(), ...o.env },
    clearEnv: true,
    stdin: o.stdin ?? "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function run(mode: Mode, name: string, args: string[], o: Opts) {
  const out = await (await spawn(mode, name, args, o)).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** A started daemon: its output so far, and a graceful stop (SIGTERM) that returns it all. */
function collect(child: Deno.ChildProcess) {
  let text = "";
  const done = Promise.all([child.stdout, child.stderr].map(async (s) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) text += chunk;
  }));
  return {
    get text() {
      return text;
    },
    async stop(): Promise<string> {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
      await done;
      return text;
    },
  };
}

/** Polls `url` until it answers 200 (JSON), or fails with the daemon's output. */
async function healthy(url: string, log: { text: string }, child: Deno.ChildProcess) {
  let exited = false;
  child.status.then(() => (exited = true));
  for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
    if (exited) assert.fail(`exited before answering ${url}:\n${log.text}`);
    try {
      const res = await fetch(url);
      const body = await res.json();
      if (res.status === 200) return body;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 150));
  }
  assert.fail(`no answer from ${url}:\n${log.text}`);
}

async function mcpClient(mode: Mode, env: Record<string, string>) {
  const [command, args] = await commandOf(mode, "mneme-mcp", []);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: mode === "installed" ? ELSEWHERE : ROOT,
    env: { ...baseEnv(), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Uint8Array) => (stderr += decoder.decode(d)));
  const client = new Client({ name: "launch-test", version: "0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

Deno.test({
  name:
    "memory service: every setting, set after install, works through the task and the installed command",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const ollama = startFakeOllama({ "all-minilm": 384 });
    const openai = startFakeOpenAI({ apiKey: "sk-launch" });
    const ollamaRelay = relay(Number(new URL(ollama.url).port));
    const openaiRelay = relay(Number(new URL(openai.url).port));
    const dirs = await Promise.all(MODES.map(() => tempDir("mneme-launch-")));
    const pgs = await Promise.all(MODES.map(() => pgliteServer()));
    const pgs2 = await Promise.all(MODES.map(() => pgliteServer()));
    const pgRelays = [...pgs, ...pgs2].map((pg) => relay(Number(new URL(pg.url).port)));
    const stops: (() => Promise<unknown>)[] = [];
    try {
      await install();
      await Promise.all(MODES.map(async (mode, i) => {
        const data = join(dirs[i].path, "data with space");
        const port = freePort(HOST);
        const key = `key-${mode}-0123456789abcdef`;
        // 1. Admin: DATA_DIR, ADMIN_HOST, ADMIN_PORT, ADMIN_API_KEY, EMBEDDING_PROVIDER,
        //    EMBEDDING_MODEL, OLLAMA_URL.
        const adminEnv = {
          DATA_DIR: data,
          ADMIN_HOST: HOST,
          ADMIN_PORT: String(port),
          ADMIN_API_KEY: key,
          EMBEDDING_PROVIDER: "ollama",
          EMBEDDING_MODEL: "all-minilm",
          OLLAMA_URL: `${ollamaRelay.url}/`,
        };
        const admin = await spawn(mode, "mneme-admin", [], { env: adminEnv });
        const adminLog = collect(admin);
        stops.push(adminLog.stop);
        const url = `http://${HOST}:${port}`;
        const health = await healthy(`${url}/healthz`, adminLog, admin);
        assert.equal(health.embedder.provider, "ollama", mode);
        assert.equal(health.embedder.model, "all-minilm", mode);
        assert.equal(health.embedder.dimension, 384, mode);
        assert.ok(await exists(join(data, "db", "PG_VERSION")), `${mode}: no database in DATA_DIR`);
        assert.match(adminLog.text, new RegExp(`permissions: net=[^ ]*${HOST}`), mode);
        const page = await fetch(`${url}/`);
        assert.match(await page.text(), /<html/i, `${mode}: no web UI`);
        const unauthorized = await fetch(`${url}/api/stats`);
        await unauthorized.body?.cancel();
        assert.equal(unauthorized.status, 401, `${mode}: ADMIN_API_KEY is not required`);

        // 2. memcli: MEMORY_API_URL, ADMIN_API_KEY, DATA_DIR.
        const cliEnv = { DATA_DIR: data, MEMORY_API_URL: url, ADMIN_API_KEY: key };
        const added = await run(mode, "memcli", ["add", `launched by ${mode}`, "--project", "p"], {
          env: cliEnv,
        });
        assert.equal(added.code, 0, `${mode}: ${added.stderr}`);
        const status = await run(mode, "memcli", ["status"], { env: cliEnv });
        assert.equal(status.code, 0, `${mode}: ${status.stderr}`);
        assert.match(status.stdout, /running/, mode);

        // 3. mneme-mcp through the Admin API: MEMORY_API_URL, ADMIN_API_KEY.
        const mcp = await mcpClient(mode, { MEMORY_API_URL: url, ADMIN_API_KEY: key });
        try {
          const saved = await mcp.client.callTool({
            name: "remember",
            arguments: { content: `remembered through ${mode}` },
          });
          assert.ok(!saved.isError, `${mode}: ${JSON.stringify(saved)}`);
        } finally {
          await mcp.close();
        }
        const stats = await (await fetch(`${url}/api/stats`, {
          headers: { authorization: `Bearer ${key}` },
        })).json();
        assert.equal(stats.total, 2, mode);
        // SIGTERM to the task or the installed command reaches the daemon, which shuts down.
        assert.match(await adminLog.stop(), /mneme admin: shutting down/, mode);
        assert.equal((await admin.status).code, 0, mode);

        // 4. Admin on server Postgres at another address, with the openai embedder:
        //    DATABASE_URL, OPENAI_BASE_URL, OPENAI_API_KEY.
        const port2 = freePort(HOST);
        const admin2 = await spawn(mode, "mneme-admin", [], {
          env: {
            DATABASE_URL: `postgres://postgres:postgres@${HOST}:${pgRelays[i].port}/postgres`,
            ADMIN_PORT: String(port2),
            EMBEDDING_PROVIDER: "openai",
            OPENAI_BASE_URL: `${openaiRelay.url}/v1`,
            OPENAI_API_KEY: "sk-launch",
            DATA_DIR: join(dirs[i].path, "unused"),
          },
        });
        const admin2Log = collect(admin2);
        stops.push(admin2Log.stop);
        const health2 = await healthy(`http://127.0.0.1:${port2}/healthz`, admin2Log, admin2);
        assert.equal(health2.database.kind, "postgres", mode);
        assert.equal(health2.embedder.provider, "openai", mode);
        const created = await fetch(`http://127.0.0.1:${port2}/api/memories`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ content: `embedded by openai for ${mode}` }),
        });
        assert.equal(created.status, 201, `${mode}: ${await created.text()}`);
        await admin2Log.stop();

        // 5. mneme-mcp straight to Postgres at another address: DATABASE_URL, EMBEDDING_DIM.
        const direct = await mcpClient(mode, {
          DATABASE_URL: `postgres://postgres:postgres@${HOST}:${pgRelays[2 + i].port}/postgres`,
          EMBEDDING_PROVIDER: "builtin",
          EMBEDDING_DIM: "64",
        });
        try {
          const saved = await direct.client.callTool({
            name: "remember",
            arguments: { content: "direct" },
          });
          assert.ok(!saved.isError, `${mode}: ${JSON.stringify(saved)}`);
          assert.match(direct.stderr(), new RegExp(`direct Postgres at ${HOST}:`), mode);
          assert.match(direct.stderr(), /builtin\/hash-v2 \(64 dimensions\)/, mode);
        } finally {
          await direct.close();
        }
      }));
      assert.ok(ollama.requests.some((r) => r.path === "/api/embed"), "Ollama was not used");
      assert.ok(
        openai.requests.some((r) => r.authorization === "Bearer sk-launch"),
        "the OpenAI-compatible host was not used with OPENAI_API_KEY",
      );
    } finally {
      await Promise.all(stops.map((s) => s()));
      await Promise.all([...pgRelays, ollamaRelay, openaiRelay].map((r) => r.close()));
      await Promise.all([...pgs, ...pgs2].map((pg) => pg.close()));
      await Promise.all([ollama.close(), openai.close(), ...dirs.map((d) => d.cleanup())]);
    }
  },
});

/** Reads `child`'s stderr until a URL starting with `prefix` appears; the rest is collected. */
async function awaitUrl(child: Deno.ChildProcess, prefix: string) {
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const re = new RegExp(`${prefix.replaceAll(".", "\\.")}\\S+`);
  while (true) {
    const { value, done } = await reader.read();
    if (done) assert.fail(`exited before printing ${prefix}:\n${seen}`);
    seen += value;
    const m = re.exec(seen);
    if (m) {
      const rest = (async () => {
        while (true) {
          const r = await reader.read();
          if (r.done) return seen;
          seen += r.value;
        }
      })();
      return { url: m[0], stderr: rest };
    }
  }
}

/**
 * A forward HTTP proxy on 127.0.0.3 (another address no default names): it takes absolute-form
 * requests for http:// URLs, counts them and passes them on.
 */
function forwardProxy() {
  let count = 0;
  const server = Deno.serve({ hostname: "127.0.0.3", port: 0, onListen: () => {} }, (req) => {
    count++;
    return fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: "manual",
    });
  });
  return {
    url: `http://127.0.0.3:${server.addr.port}`,
    get count() {
      return count;
    },
    close: () => server.shutdown(),
  };
}

/** `msgcli login [args]` played through to the end: the test is the browser. */
async function login(mode: Mode, args: string[], env: Record<string, string>, authorize: string) {
  const child = await spawn(mode, "msgcli", ["login", ...args], { env });
  const { url, stderr } = await awaitUrl(child, authorize);
  const auth = await fetch(url, { redirect: "manual" });
  await auth.body?.cancel();
  assert.equal(auth.status, 302, `${mode}: authorize answered ${auth.status}`);
  const page = await fetch(auth.headers.get("location")!);
  await page.body?.cancel();
  const status = await child.status;
  await child.stdout.cancel();
  return { code: status.code, stderr: await stderr };
}

Deno.test({
  name:
    "msgcli: every setting and path flag, set after install, works through the task and the installed command",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const fake = startFakeAnthropic({ clientId: "launch-test-client" });
    const upstream = relay(Number(new URL(fake.url).port));
    const dirs = await Promise.all(MODES.map(() => tempDir("msgcli-launch-")));
    const proxies = MODES.map(() => forwardProxy());
    const stops: (() => Promise<unknown>)[] = [];
    try {
      await install();
      await Promise.all(MODES.map(async (mode, i) => {
        const dir = dirs[i].path;
        const credentials = join(dir, "config dir", "credentials.json");
        const env = {
          MSGCLI_API_BASE_URL: upstream.url,
          MSGCLI_OAUTH_AUTHORIZE_URL: `${upstream.url}/oauth/authorize`,
          MSGCLI_OAUTH_TOKEN_URL: `${upstream.url}/v1/oauth/token`,
          MSGCLI_OAUTH_CLIENT_ID: "launch-test-client",
          MSGCLI_CREDENTIALS_PATH: credentials,
          MSGCLI_NO_BROWSER: "1",
        };
        const authorize = `${upstream.url}/oauth/authorize?`;
        // MSGCLI_CREDENTIALS_PATH (its lock and temp files live next to it), the OAuth URLs
        // and client id.
        const first = await login(mode, [], env, authorize);
        assert.equal(first.code, 0, `${mode}: ${first.stderr}`);
        assert.ok(await exists(credentials), `${mode}: no credentials at MSGCLI_CREDENTIALS_PATH`);
        // login --out elsewhere.
        const out = join(dir, "elsewhere", "c.json");
        const second = await login(mode, ["--out", out], env, authorize);
        assert.equal(second.code, 0, `${mode}: ${second.stderr}`);
        assert.ok(await exists(out), `${mode}: no credentials at --out`);

        // query with --system-file and --history outside the working directory, and
        // MSGCLI_DEBUG, which names the permissions held.
        const files = join(dir, "files");
        await Deno.mkdir(files);
        await Deno.writeTextFile(join(files, "system.txt"), `Answer for ${mode}.`);
        await Deno.writeTextFile(
          join(files, "history.json"),
          JSON.stringify([{ role: "user", content: "before" }, {
            role: "assistant",
            content: "noted",
          }]),
        );
        // The proxy variables: HTTPS_PROXY for the task, ALL_PROXY for the installed command.
        const proxy = proxies[i];
        const proxyVar = mode === "task" ? "HTTPS_PROXY" : "ALL_PROXY";
        const query = await run(mode, "msgcli", [
          "query",
          "--system-file",
          join(files, "system.txt"),
          "--history",
          join(files, "history.json"),
          `hello from ${mode}`,
        ], { env: { ...env, MSGCLI_DEBUG: "1", [proxyVar]: proxy.url }, cwd: dir });
        assert.equal(query.code, 0, `${mode}: ${query.stderr}`);
        // At least once: under load msgcli may retry a slow request.
        assert.ok(proxy.count >= 1, `${mode}: the request did not go through ${proxyVar}`);
        assert.match(query.stdout, new RegExp(`hello from ${mode}`));
        assert.match(
          query.stderr,
          new RegExp(`permissions: net=[^ ]*${HOST}:${upstream.port}[^ ]* read=.*system\\.txt`),
        );
        const sent = fake.requestsTo("/v1/messages").map((r) => JSON.stringify(r.json));
        assert.ok(sent.some((b) => b.includes(`Answer for ${mode}.`) && b.includes("noted")), mode);

        // serve on another address, with the key from MSGCLI_SERVE_KEY (task) or from
        // --auth-key (installed), which stays off the daemon's command line.
        const port = freePort();
        const key = `serve-key-${mode}-${crypto.randomUUID()}`;
        const serveArgs = ["serve", "--listen", `${HOST}:${port}`];
        const daemon = mode === "task"
          ? await spawn(mode, "msgcli", serveArgs, { env: { ...env, MSGCLI_SERVE_KEY: key } })
          : await spawn(mode, "msgcli", [...serveArgs, "--auth-key", key], { env });
        const log = collect(daemon);
        stops.push(log.stop);
        await healthy(`http://${HOST}:${port}/healthz`, log, daemon);
        const reply = await fetch(`http://${HOST}:${port}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": key },
          body: JSON.stringify({
            model: "claude-sonnet-4-5",
            max_tokens: 16,
            messages: [{ role: "user", content: "through serve" }],
          }),
        });
        const answer = await reply.text();
        assert.equal(reply.status, 200, `${mode}: ${answer}`);
        assert.match(answer, /through serve/);
        if (mode === "installed") {
          const ps = await new Deno.Command("ps", { args: ["-eo", "args"], stdout: "piped" })
            .output();
          const lines = decoder.decode(ps.stdout).split("\n");
          const daemonLines = lines.filter((l) => l.includes("src/bin/serve.ts"));
          assert.ok(daemonLines.length >= 1, `no daemon process:\n${lines.join("\n")}`);
          for (const l of daemonLines) assert.ok(!l.includes(key), `the key is on: ${l}`);
        }
        const text = await log.stop();
        assert.ok(!text.includes(key), `${mode}: the key was printed:\n${text}`);
        assert.match(text, new RegExp(`permissions: net=${HOST}:${port},${HOST}:${upstream.port}`));
      }));
    } finally {
      await Promise.all(stops.map((s) => s()));
      await upstream.close();
      await Promise.all(proxies.map((p) => p.close()));
      await fake.close();
      await Promise.all(dirs.map((d) => d.cleanup()));
    }
  },
});

Deno.test("a bad setting or flag reaches the program, which names it; its exit code is passed on", async () => {
  await install();
  await Promise.all(MODES.map(async (mode) => {
    const [dim, flag] = await Promise.all([
      run(mode, "mneme-admin", [], { env: { EMBEDDING_DIM: "abc" } }),
      run(mode, "msgcli", ["query", "--bogus", "hi"], { env: {} }),
    ]);
    assert.equal(dim.code, 1, `${mode}: ${dim.stderr}`);
    assert.match(dim.stderr, /EMBEDDING_DIM="abc" must be an integer/, mode);
    assert.notEqual(flag.code, 0, mode);
    assert.match(flag.stderr, /--bogus/, mode);
  }));
});

Deno.test("deno task uninstall removes the commands installed for these tests", async () => {
  const { bin, cleanup } = await install();
  const root = join(bin("x"), "..", "..");
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "uninstall", "--root", root],
      cwd: ROOT,
      env: baseEnv(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    for (const name of ["mneme-admin", "mneme-mcp", "memcli", "msgcli"]) {
      assert.equal(await exists(bin(name), { followSymlinks: false }), false, name);
    }
  } finally {
    await cleanup();
    await Deno.remove(ELSEWHERE, { recursive: true });
  }
});
