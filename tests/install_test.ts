import assert from "node:assert/strict";
import denoJson from "../deno.json" with { type: "json" };
import { VERSION } from "../src/version.ts";
import { permissionFlags } from "../src/permissions.ts";
import { denoRunArgs, findProgram, MCP_LOCK, PROGRAMS } from "../src/programs.ts";
import { compileArgs } from "../tasks/compile.ts";
import { shellQuoteExpanding } from "../src/common/shell.ts";
import {
  binDir,
  cacheArgs,
  installArgs,
  installReport,
  onPath,
  pinDeno,
} from "../tasks/install.ts";
import { toolEnv } from "./helpers/install.ts";
import { ROOT } from "./helpers.ts";

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

Deno.test("one table: every task line is the launcher with its program's name", () => {
  assert.deepEqual(PROGRAMS.map((p) => p.name), [
    "mneme-admin",
    "mneme-mcp",
    "memcli",
    "msgcli",
    "msgcli-serve",
  ]);
  assert.deepEqual(PROGRAMS.filter((p) => p.installed).map((p) => p.name), [
    "mneme-admin",
    "mneme-mcp",
    "memcli",
    "msgcli",
  ]);
  const tasks = denoJson.tasks as Record<string, string>;
  for (const p of PROGRAMS) {
    assert.equal(
      tasks[p.task],
      `deno run --no-prompt --allow-env --allow-run=deno src/bin/launch.ts ${p.name}`,
    );
    assert.match(p.entry, /^src\/bin\/\w+\.ts$/);
  }
  assert.equal(tasks.admin, "deno task start");
  // The installed commands are the same launcher, with Deno's own executable to run.
  const args = installArgs("memcli");
  const i = args.indexOf("--no-prompt");
  assert.deepEqual(args.slice(i), [
    "--no-prompt",
    "--allow-env",
    `--allow-run=${Deno.execPath()}`,
    `${ROOT}src/bin/launch.ts`,
    "--",
    "memcli",
  ]);
});

Deno.test("every program's permissions are scoped, for the default configuration and fixed grants", () => {
  const home = Deno.env.get("HOME") ?? "/home/you";
  for (const p of PROGRAMS) {
    for (const args of [[], null]) {
      const launch = p.launch({ env: (n) => (n === "HOME" ? home : undefined), args, cwd: ROOT });
      for (const f of [...launch.denoFlags, ...permissionFlags(launch.plan)]) {
        // Every permission is scoped: no -A, no bare --allow-net/--allow-read/...
        assert.ok(!["-A", "--allow-all"].includes(f), `${p.name}: ${f}`);
        assert.ok(!/^--allow-[a-z]+$/.test(f), `${p.name} holds an unscoped ${f}`);
      }
    }
  }
});

/** The configuration docs/permissions.md shows the compile commands for: defaults, HOME=/home/you. */
const README_ENV = (n: string) => (n === "HOME" ? "/home/you" : undefined);

Deno.test("docs/permissions.md shows the commands deno task compile runs", async () => {
  const printed = PROGRAMS
    .map((p) =>
      ["deno", ...compileArgs(p, "", undefined, README_ENV)].map(shellQuoteExpanding).join(" ")
    )
    .join("\n");
  const readme = await Deno.readTextFile(`${ROOT}docs/permissions.md`);
  const block = /<!-- compile-commands -->\n+```sh\n([\s\S]*?)\n```/.exec(readme);
  assert.ok(block, "docs/permissions.md has the compile commands block");
  assert.equal(block[1].trim(), printed);
  const lines = printed.split("\n");
  assert.equal(lines.length, 5);
  for (const l of lines) {
    assert.match(
      l,
      /^deno compile --config deno\.json (--lock=src\/mcp\/deno\.lock )?--output dist\//,
    );
  }
});

Deno.test("deno task install: the wrappers run this Deno by absolute path, with no deno on PATH", async () => {
  const root = await Deno.makeTempDir({ prefix: "mneme-install-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}tasks/install.ts`, "--root", root],
      cwd: ROOT,
      env: { ...toolEnv(), HOME: root, PATH: "/nonexistent", SHELL: "/bin/zsh" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const bin = `${root}/bin`;
    assert.equal(
      text,
      "Fetching the commands' npm packages into Deno's cache (once; then they start offline)\n" +
        installReport(
          bin,
          ["mneme-admin", "mneme-mcp", "memcli", "msgcli"],
          "/nonexistent",
          "/bin/zsh",
        ) + "\n",
    );
    assert.match(text, new RegExp(`^${bin} is not on your PATH\\. .* to ~/\\.zshrc$`, "m"));
    assert.match(text, new RegExp(`^  export PATH="${bin}:\\$PATH"$`, "m"));
    for (const name of ["mneme-admin", "mneme-mcp", "memcli", "msgcli"]) {
      const wrapper = await Deno.readTextFile(`${bin}/${name}`);
      assert.match(wrapper, new RegExp(`^exec ${Deno.execPath()} run `, "m"), name);
      assert.match(wrapper, new RegExp(`^MNEME_BIN_DIR=${bin}; export MNEME_BIN_DIR$`, "m"));
      assert.doesNotMatch(wrapper, /^exec deno /m);
    }
    // As an agent runs a hook: a minimal environment, PATH without deno or the bin folder.
    const run = await new Deno.Command(`${bin}/memcli`, {
      args: ["--version"],
      env: { ...toolEnv(), HOME: root, PATH: "/nonexistent" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(run.success, new TextDecoder().decode(run.stderr));
    assert.match(new TextDecoder().decode(run.stdout), /^memcli v\d/);
    // Installing again is the same (the wrapper is pinned once).
    assert.equal(await pinDeno(`${bin}/memcli`), true);
    assert.match(
      await Deno.readTextFile(`${bin}/memcli`),
      new RegExp(`^exec ${Deno.execPath()} run `, "m"),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("install report: on PATH names the next command; off PATH gives the line for the shell", () => {
  const r = installReport(
    "/h/.deno/bin",
    ["memcli"],
    "/usr/bin:/h/.deno/bin/",
    "/bin/bash",
    "/d/deno",
  );
  assert.equal(
    r,
    "Installed memcli in /h/.deno/bin\nThey run Deno at /d/deno (no deno needed on PATH).\n" +
      "/h/.deno/bin is on your PATH.\n\nNext, connect Claude Code:  memcli connect claude",
  );
  const off = installReport("/h/my bin", ["memcli"], "/usr/bin", "/usr/bin/fish", "/d/deno");
  assert.match(off, /add this line to ~\/\.config\/fish\/config\.fish/);
  assert.match(off, /^ {2}fish_add_path "\/h\/my bin"$/m);
  assert.match(
    off,
    /this works without the PATH change\): {2}'\/h\/my bin\/memcli' connect claude/,
  );
  assert.match(installReport("/b", [], "", undefined), /add this line to ~\/\.bashrc/);
  assert.equal(onPath("/a/b", "/x:/a/b/"), true);
  assert.equal(onPath("/a/b", "/x:/a/bc"), false);
  assert.equal(binDir("r", (n) => ({ HOME: "/h" })[n]), `${Deno.cwd()}/r/bin`);
  assert.equal(binDir(undefined, (n) => ({ HOME: "/h" })[n]), "/h/.deno/bin");
  assert.equal(binDir(undefined, (n) => ({ HOME: "/h", DENO_INSTALL_ROOT: "/i" })[n]), "/i/bin");
});

Deno.test("the first start fetches only what the service needs: no test-only package in deno.json or deno.lock", async () => {
  const lock = JSON.parse(await Deno.readTextFile(`${ROOT}deno.lock`));
  const testOnly = ["playwright-core", "@anthropic-ai/sdk", "@electric-sql/pglite-socket"];
  const names = [
    ...Object.keys(lock.specifiers ?? {}),
    ...Object.keys(lock.npm ?? {}),
    ...Object.values(denoJson.imports),
  ];
  for (const pkg of testOnly) {
    assert.deepEqual(names.filter((n) => n.includes(pkg)), [], `${pkg} is for the tests only`);
  }
  // The tests' own lockfile holds them, and every task that loads test files names it.
  const testLock = JSON.parse(await Deno.readTextFile(`${ROOT}tests/deno.lock`));
  for (const pkg of testOnly) {
    assert.ok(Object.keys(testLock.specifiers).some((n) => n.includes(pkg)), pkg);
  }
  // `deno task` fetches every package of deno.json and deno.lock before any task runs: they
  // hold the service's own packages and nothing they pull in (the MCP SDK brings ~90).
  const service = ["@electric-sql/pglite", "@electric-sql/pglite-pgvector", "hono", "postgres"];
  assert.deepEqual(
    Object.keys(lock.npm).map((n) => n.replace(/_.*$/, "").replace(/@[^@/]+$/, "")).sort(),
    service,
  );
  // The MCP server has its own lockfile, with the SDK, and the launcher passes it.
  const mcpLock = JSON.parse(await Deno.readTextFile(`${ROOT}${MCP_LOCK}`));
  assert.ok(Object.keys(mcpLock.specifiers).some((n) => n.includes("@modelcontextprotocol/sdk")));
  const mcp = findProgram("mneme-mcp")!;
  // deno task install fetches them with that lockfile, so that no first start needs the network.
  assert.ok(cacheArgs(mcp).includes(`--lock=${ROOT}${MCP_LOCK}`));
  const ctx = { env: (n: string) => (n === "HOME" ? "/home/you" : undefined), args: [], cwd: "/" };
  assert.ok(denoRunArgs(mcp.launch(ctx)).includes(`--lock=${ROOT}${MCP_LOCK}`));
  const tasks = denoJson.tasks as Record<string, string>;
  for (const t of ["test", "test:unit", "test:e2e", "check", "bench:memory", "bench:mcp"]) {
    assert.match(tasks[t], /--lock=tests\/deno\.lock/, t);
  }
});

Deno.test("deno task uninstall disconnects Claude Code first when its settings still run the commands", async () => {
  const root = await Deno.makeTempDir({ prefix: "mneme-uninstall-" });
  try {
    const env = { ...toolEnv(), HOME: root, PATH: "/usr/bin:/bin", DATA_DIR: `${root}/data` };
    const task = (args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", `${ROOT}tasks/install.ts`, "--root", root, ...args],
        cwd: ROOT,
        env,
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
    assert.ok((await task([])).success);
    const settings = `${root}/.claude/settings.json`;
    await Deno.mkdir(`${root}/.claude`);
    const hook = { type: "command", command: `${root}/bin/memcli bootstrap --hook`, timeout: 10 };
    await Deno.writeTextFile(
      settings,
      JSON.stringify({ model: "x", hooks: { SessionStart: [{ hooks: [hook] }] } }),
    );
    const out = await task(["--uninstall"]);
    const text = new TextDecoder().decode(out.stdout);
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.match(
      text,
      /Claude Code still runs Mneme's commands from .*: memcli disconnect claude first/,
    );
    assert.deepEqual(JSON.parse(await Deno.readTextFile(settings)), { model: "x" });
    assert.match(text, /removed memcli/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
