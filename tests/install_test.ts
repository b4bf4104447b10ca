import assert from "node:assert/strict";
import denoJson from "../deno.json" with { type: "json" };
import { VERSION } from "../src/version.ts";
import { permissionFlags } from "../src/permissions.ts";
import { denoRunArgs, findProgram, MCP_LOCK, PROGRAMS } from "../src/programs.ts";
import { compileArgs } from "../tasks/compile.ts";
import { shellQuoteExpanding } from "../src/common/shell.ts";
import {
  bashLoginProfile,
  binDir,
  cacheArgs,
  installHome,
  installReport,
  linesNaming,
  onPath,
  pathLine,
  profileToAdvise,
  WRAPPER_MARK,
  wrapperText,
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
  // The installed commands are the same launcher, with the install's own Deno to run.
  const w = wrapperText("memcli", "/h/i", "/h/b");
  assert.match(
    w,
    /^exec "\$here\/deno" run --no-prompt --allow-env "--allow-run=\$here\/deno" --config "\$here\/app\/deno\.json" "\$here\/app\/src\/bin\/launch\.ts" memcli "\$@"$/m,
  );
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

Deno.test("deno task install: wrappers that run the install's own Deno and files, with no deno on PATH", async () => {
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
      "Fetching the commands' npm packages into the install's own cache (once; then they start " +
        "offline)\n" +
        installReport(
          bin,
          ["mneme-admin", "mneme-mcp", "memcli", "msgcli"],
          "/nonexistent",
          "/bin/zsh",
          root,
        ) + "\n",
    );
    assert.match(text, new RegExp(`^${bin} is not on your PATH\\. .* to ~/\\.zshrc$`, "m"));
    assert.match(text, new RegExp(`^  export PATH="${bin}:\\$PATH"$`, "m"));
    // Everything in the versioned folder: the program, its Deno (a copy), the lockfiles.
    const v = `${root}/versions/${VERSION}`;
    assert.equal(await Deno.readLink(`${root}/current`), `versions/${VERSION}`);
    for (
      const f of ["app/deno.json", "app/deno.lock", `app/${MCP_LOCK}`, "app/src/bin/launch.ts"]
    ) {
      assert.ok((await Deno.stat(`${v}/${f}`)).isFile, f);
    }
    assert.ok((await Deno.lstat(`${v}/deno`)).isFile, "Deno is copied, not linked");
    assert.ok((await Deno.stat(`${v}/app/models`)).isDirectory);
    assert.ok((await Deno.stat(`${v}/app/static/index.html`)).isFile);
    assert.ok((await Deno.stat(`${root}/deno_dir/npm`)).isDirectory);
    for (const name of ["mneme-admin", "mneme-mcp", "memcli", "msgcli"]) {
      const wrapper = await Deno.readTextFile(`${bin}/${name}`);
      assert.equal(wrapper, wrapperText(name, root, bin), name);
      assert.equal(wrapper.split("\n")[1], WRAPPER_MARK);
      assert.doesNotMatch(wrapper, /^exec deno /m);
    }
    // As an agent runs a hook: a minimal environment, PATH without deno or the bin folder.
    const run = await new Deno.Command(`${bin}/memcli`, {
      args: ["--version"],
      env: { HOME: root, PATH: "/nonexistent" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(run.success, new TextDecoder().decode(run.stderr));
    assert.match(new TextDecoder().decode(run.stdout), /^memcli v\d/);
    // The install gone, the wrapper says so (and what to do) instead of a module error.
    await Deno.remove(`${root}/current`);
    const gone = await new Deno.Command(`${bin}/memcli`, {
      args: ["--version"],
      env: { HOME: root, PATH: "/usr/bin:/bin" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(gone.code, 127);
    assert.match(new TextDecoder().decode(gone.stderr), /no Mneme install at .*deno task install/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("install report: bash's PATH line goes where a login bash reads, as connect's profile line", async () => {
  const home = await Deno.makeTempDir({ prefix: "mneme-home-" });
  try {
    // A fresh HOME: ~/.profile, the file connect would create for the start at login.
    assert.equal(await bashLoginProfile(home), "~/.profile");
    await Deno.writeTextFile(`${home}/.profile`, "# connect's line\n");
    assert.equal(await bashLoginProfile(home), "~/.profile");
    await Deno.writeTextFile(`${home}/.bash_login`, "");
    assert.equal(await bashLoginProfile(home), "~/.bash_login");
    await Deno.writeTextFile(`${home}/.bash_profile`, "");
    assert.equal(await bashLoginProfile(home), "~/.bash_profile");
    assert.deepEqual(pathLine("/b", "/bin/bash", await bashLoginProfile(home)), [
      "~/.bash_profile",
      'export PATH="/b:$PATH"',
    ]);
    assert.equal(pathLine("/b", "/bin/zsh", "~/.bash_profile")[0], "~/.zshrc");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("install advises bash's login profile for bash only; uninstall finds the line in ~/.bash_login", async () => {
  const home = await Deno.makeTempDir({ prefix: "mneme-home-" });
  try {
    await Deno.writeTextFile(`${home}/.bash_login`, "# mine\n");
    assert.equal(await profileToAdvise("/bin/bash", home), "~/.bash_login");
    // A login sh reads ~/.profile, not bash's files.
    assert.equal(await profileToAdvise("/bin/sh", home), "~/.profile");
    assert.equal(await profileToAdvise("/usr/bin/dash", home), "~/.profile");
    // The line install advised there is found by uninstall.
    const bin = `${home}/.local/bin`;
    const [rc, line] = pathLine(bin, "/bin/bash", await profileToAdvise("/bin/bash", home));
    assert.equal(rc, "~/.bash_login");
    await Deno.writeTextFile(`${home}/.bash_login`, `# mine\n${line}\n`);
    assert.deepEqual(await linesNaming(bin, home), [`${home}/.bash_login:2: ${line}`]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("install report: on PATH names the next command; off PATH gives the line for the shell", () => {
  const r = installReport(
    "/h/.deno/bin",
    ["memcli"],
    "/usr/bin:/h/.deno/bin/",
    "/bin/bash",
    "/h/i",
    "1.2.3",
  );
  assert.equal(
    r,
    "Installed Mneme 1.2.3 in /h/i/versions/1.2.3 (with its own Deno and\n" +
      "npm packages: it needs neither this folder nor the network any more).\n" +
      "Commands memcli in /h/.deno/bin\n" +
      "/h/.deno/bin is on your PATH.\n\nNext, connect Claude Code:  memcli connect claude",
  );
  const off = installReport("/h/my bin", ["memcli"], "/usr/bin", "/usr/bin/fish", "/h/i");
  assert.match(off, /add this line to ~\/\.config\/fish\/config\.fish/);
  assert.match(off, /^ {2}fish_add_path "\/h\/my bin"$/m);
  assert.match(
    off,
    /this works without the PATH change\): {2}'\/h\/my bin\/memcli' connect claude/,
  );
  // bash (or no $SHELL): the profile a login shell reads, not ~/.bashrc, which a login bash
  // reads only when its profile says so.
  assert.match(
    installReport("/b", [], "", undefined, "/i"),
    /add this line to ~\/\.profile\n\(what a login shell reads\) and log in again/,
  );
  assert.match(
    installReport("/b", [], "", "/bin/bash", "/i", "1.2.3", "~/.bash_profile"),
    /add this line to ~\/\.bash_profile\n/,
  );
  assert.equal(installHome("r"), `${Deno.cwd()}/r`);
  assert.equal(
    installHome(undefined, (n) => ({ HOME: "/h" })[n]),
    Deno.build.os === "linux" ? "/h/.local/share/mneme-install" : installHome(undefined),
  );
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
  // (secretlint's recommended rules: capture's and the write paths' secret check; one file.)
  const service = [
    "@electric-sql/pglite",
    "@electric-sql/pglite-pgvector",
    "@secretlint/secretlint-rule-preset-recommend",
    "hono",
    "postgres",
  ];
  assert.deepEqual(
    Object.keys(lock.npm).map((n) => n.replace(/_.*$/, "").replace(/@[^@/]+$/, "")).sort(),
    service,
  );
  // The MCP server has its own lockfile, with the SDK, and the launcher passes it.
  const mcpLock = JSON.parse(await Deno.readTextFile(`${ROOT}${MCP_LOCK}`));
  assert.ok(Object.keys(mcpLock.specifiers).some((n) => n.includes("@modelcontextprotocol/sdk")));
  const mcp = findProgram("mneme-mcp")!;
  // deno task install fetches them with that lockfile, so that no first start needs the network.
  const caches = cacheArgs("/app");
  assert.equal(caches.length, 2);
  assert.ok(caches[1].includes(`--lock=/app/${MCP_LOCK}`));
  assert.ok(caches[1].includes(`/app/${mcp.entry}`));
  assert.ok(!caches[0].includes(`/app/${mcp.entry}`));
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
    const env = {
      ...toolEnv(),
      HOME: root,
      PATH: "/usr/bin:/bin",
      DATA_DIR: `${root}/data`,
      SHELL: "/bin/bash",
    };
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
    await Deno.writeTextFile(`${root}/.bashrc`, `# mine\nexport PATH="${root}/bin:$PATH"\n`);
    const out = await task(["--uninstall"]);
    const text = new TextDecoder().decode(out.stdout);
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.match(
      text,
      /Claude Code still runs Mneme's commands from .*: memcli disconnect claude first/,
    );
    assert.deepEqual(JSON.parse(await Deno.readTextFile(settings)), { model: "x" });
    assert.match(text, new RegExp(`^removed ${root}/bin/memcli$`, "m"));
    for (const f of ["versions", "current", "deno_dir", "bin/memcli", "bin/mneme-mcp"]) {
      await assert.rejects(Deno.lstat(`${root}/${f}`), Deno.errors.NotFound, f);
    }
    // The PATH line the user added by hand is named, for them to remove.
    assert.match(
      text,
      new RegExp(`^  ${root}/\\.bashrc:2: export PATH="${root}/bin:\\$PATH"$`, "m"),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
