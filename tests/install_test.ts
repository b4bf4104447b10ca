import assert from "node:assert/strict";
import denoJson from "../deno.json" with { type: "json" };
import { VERSION } from "../src/version.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { compileArgs, shellQuote } from "../tasks/compile.ts";
import { entrypoints, flagsFor } from "../tasks/entrypoints.ts";
import { freePort, ROOT, tempDir } from "./helpers.ts";
import { toolEnv } from "./helpers/install.ts";

Deno.test("the version comes from deno.json and nowhere else", async () => {
  assert.equal(VERSION, denoJson.version);
  assert.match(VERSION, /^\d+\.\d+\.\d+$/);
  // No source file spells the version out.
  const hits: string[] = [];
  for (const dir of ["src", "tasks", "static"]) {
    for await (const f of walkFiles(`${ROOT}${dir}`)) {
      if ((await Deno.readTextFile(f)).includes(`"${VERSION}"`)) hits.push(f);
    }
  }
  assert.deepEqual(hits, []);
});

async function* walkFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) yield* walkFiles(p);
    else yield p;
  }
}

Deno.test("install and compile take each program's permissions from its task", () => {
  const eps = entrypoints();
  assert.deepEqual(eps.map((e) => e.name), [
    "mneme-admin",
    "mneme-mcp",
    "memcli",
    "msgcli",
    "msgcli-serve",
  ]);
  assert.deepEqual(eps.filter((e) => e.installed).map((e) => e.name), [
    "mneme-admin",
    "mneme-mcp",
    "memcli",
    "msgcli",
  ]);
  for (const e of eps) {
    assert.match(e.entry, /^src\/bin\/\w+\.ts$/);
    for (const f of e.flags) {
      // Every permission is scoped: no -A, no bare --allow-net/--allow-read/...
      assert.ok(!["-A", "--allow-all"].includes(f), `${e.name}: ${f}`);
      assert.ok(!/^--allow-[a-z]+$/.test(f), `${e.name} holds an unscoped ${f}`);
    }
    // In the default configuration, the task grants everything the program needs.
    assert.deepEqual(
      flagsFor(e, (n) => (n === "HOME" ? Deno.env.get("HOME") : undefined)),
      e.flags,
    );
  }
});

Deno.test("the README shows the commands deno task compile runs", async () => {
  // What `deno task compile --dry-run` prints, with the variables left for the reader's shell.
  const printed = entrypoints((n) => `$${n}`)
    .map((p) => ["deno", ...compileArgs(p, "")].map(shellQuote).join(" "))
    .join("\n");
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const block = /<!-- compile-commands -->\n+```sh\n([\s\S]*?)\n```/.exec(readme);
  assert.ok(block, "README has the compile commands block");
  assert.equal(block[1].trim(), printed);
  const lines = printed.split("\n");
  assert.equal(lines.length, 5);
  for (const l of lines) assert.match(l, /^deno compile --config deno\.json --output dist\//);
});

const decoder = new TextDecoder();

async function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(cmd, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: r.code, out: decoder.decode(r.stdout), err: decoder.decode(r.stderr) };
}

Deno.test("deno task install: the installed commands work from any directory; uninstall removes them", async () => {
  const root = await tempDir("mneme-install-");
  const data = await tempDir("mneme-install-data-");
  const elsewhere = await tempDir("mneme-install-cwd-");
  const port = freePort();
  const PATH = `${Deno.execPath().replace(/\/[^/]+$/, "")}:${Deno.env.get("PATH")}`;
  const base: Record<string, string> = {
    PATH,
    HOME: Deno.env.get("HOME") ?? elsewhere.path,
    // Deno's cache, and what Deno needs to reach the npm registry (a TLS-inspecting proxy's CA).
    ...toolEnv(),
  };
  // The configuration the user installs with: its DATA_DIR joins the admin's permissions.
  const config = {
    DATA_DIR: data.path,
    ADMIN_PORT: String(port),
    EMBEDDING_PROVIDER: "builtin",
    MEMORY_API_URL: `http://127.0.0.1:${port}`,
  };
  let admin: Deno.ChildProcess | undefined;
  try {
    const inst = await run(Deno.execPath(), [
      "run",
      "-A",
      `${ROOT}tasks/install.ts`,
      "--root",
      root.path,
    ], {
      cwd: ROOT,
      env: { ...base, ...config },
    });
    assert.equal(inst.code, 0, inst.err);
    assert.match(inst.out, new RegExp(`mneme-admin: for this configuration also .*${data.path}`));
    const bin = (name: string) => `${root.path}/bin/${name}`;
    const opts = { cwd: elsewhere.path, env: { ...base, ...config } };

    const memcli = await run(bin("memcli"), ["version"], opts);
    assert.equal(memcli.code, 0, memcli.err);
    assert.equal(memcli.out, `memcli v${VERSION}\n`);
    const msgcli = await run(bin("msgcli"), ["--help"], opts);
    assert.equal(msgcli.code, 0, msgcli.err);
    assert.match(msgcli.out, /msgcli/);
    assert.match(msgcli.out, /serve/);
    const msgVersion = await run(bin("msgcli"), ["--version"], opts);
    assert.equal(msgVersion.out.trim(), `msgcli v${VERSION}`);
    for (const name of ["mneme-admin", "mneme-mcp"]) {
      const v = await run(bin(name), ["--version"], opts);
      assert.equal(v.code, 0, v.err);
      assert.equal(v.out, `${name} v${VERSION}\n`);
    }

    // mneme-admin starts (embedded database in DATA_DIR, web UI from module imports).
    admin = new Deno.Command(bin("mneme-admin"), {
      cwd: elsewhere.path,
      env: { ...base, ...config },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    let health: { status?: string; version?: string } = {};
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`${url}/healthz`);
        health = await res.json();
        if (res.ok) break;
      } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(health.status, "ok");
    assert.equal(health.version, VERSION);
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);

    // mneme-mcp: an MCP handshake against the daemon, and a tool call that reaches it.
    const transport = new StdioClientTransport({
      command: bin("mneme-mcp"),
      args: [],
      cwd: elsewhere.path,
      env: { ...base, ...config },
      stderr: "pipe",
    });
    const client = new Client({ name: "install-test", version: "0.0.0" });
    try {
      await client.connect(transport);
      assert.equal(client.getServerVersion()?.version, VERSION);
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t: { name: string }) => t.name === "remember"));
      const saved = await client.callTool({
        name: "remember",
        arguments: { content: "Installed commands share one database" },
      });
      assert.ok(!saved.isError, JSON.stringify(saved));
    } finally {
      await client.close();
    }
    const stats = await (await fetch(`${url}/api/stats`)).json();
    assert.equal(stats.total, 1);

    const un = await run(Deno.execPath(), [
      "run",
      "-A",
      `${ROOT}tasks/install.ts`,
      "--uninstall",
      "--root",
      root.path,
    ], {
      cwd: ROOT,
      env: base,
    });
    assert.equal(un.code, 0, un.err);
    for (const name of ["mneme-admin", "mneme-mcp", "memcli", "msgcli"]) {
      await assert.rejects(Deno.stat(bin(name)), Deno.errors.NotFound, name);
    }
  } finally {
    if (admin) {
      try {
        admin.kill("SIGTERM");
      } catch { /* gone */ }
      await admin.output();
    }
    await root.cleanup();
    await data.cleanup();
    await elsewhere.cleanup();
  }
});
