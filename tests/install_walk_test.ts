/**
 * A newcomer's install that outlives the clone and the npx cache, and an upgrade in place.
 *
 * A fresh HOME and a PATH without deno (sh, ps, kill, node, git, env and the real Claude Code
 * CLI); Deno runs from a copy placed in npx's cache (`~/.npm/_npx/<hash>/node_modules/deno`),
 * with its module cache in `~/.cache/deno`, and installs from a copy of the repository, as
 * `npx -y deno task install` does. Then `memcli connect claude`; then the clone copy, npx's
 * cache and Deno's cache are deleted: `memcli status`, the SessionStart hook and the MCP
 * server (connect's own check, which runs both as Claude Code does) still work. Then a copy
 * with a bumped version is installed: the service moves to it on the same port with its
 * memories, the old version is kept beside the new one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VERSION } from "../src/version.ts";
import { APP_FILES } from "../tasks/install.ts";
import { claudeCodeBin } from "./helpers/claude_code.ts";
import { answers, minimalPath, runClean, toolEnv } from "./helpers/install.ts";
import { freePort, ROOT, tempDir } from "./helpers.ts";

/** A copy of the repository's files an install reads (and its tasks) at `to`. */
async function copyClone(to: string, version = VERSION): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  const r = await new Deno.Command("cp", {
    args: ["-R", ...[...APP_FILES, "tasks"].map((f) => `${ROOT}${f}`), to],
  }).output();
  assert.ok(r.success, new TextDecoder().decode(r.stderr));
  if (version !== VERSION) {
    const file = join(to, "deno.json");
    const text = await Deno.readTextFile(file);
    await Deno.writeTextFile(
      file,
      text.replace(`"version": "${VERSION}"`, `"version": "${version}"`),
    );
  }
}

/** Deno copied into npx's cache under `home`, as `npx -y deno` leaves it; its path. */
async function npxDeno(home: string, hash: string): Promise<string> {
  const dir = join(home, ".npm", "_npx", hash, "node_modules", "deno");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.copyFile(Deno.execPath(), join(dir, "deno"));
  await Deno.chmod(join(dir, "deno"), 0o755);
  return join(dir, "deno");
}

/** The version of the service answering at `url`. */
async function serviceVersion(url: string): Promise<string> {
  const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) });
  return (await res.json()).version;
}

Deno.test("install outlives the clone and the npx cache; a newer install switches the service", async () => {
  const claude = await claudeCodeBin();
  const dir = await tempDir("mneme-walk-");
  const home = join(dir.path, "home");
  await Deno.mkdir(home);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const PATH = await minimalPath(join(dir.path, "path"), claude);
  const tls = toolEnv();
  delete (tls as Record<string, string>).DENO_DIR;
  const env: Record<string, string> = {
    ...tls,
    HOME: home,
    PATH,
    SHELL: "/bin/bash",
    ADMIN_PORT: String(port),
    EMBEDDING_PROVIDER: "builtin",
  };
  const bin = join(home, ".deno", "bin");
  const memcli = (args: string[]) => runClean(join(bin, "memcli"), args, env, home);
  const install = async (clone: string, deno: string) => {
    // `deno task install` runs `deno run -A tasks/install.ts` in the clone.
    const r = await runClean(deno, ["run", "-A", "tasks/install.ts"], env, clone);
    assert.equal(r.code, 0, r.err + r.out);
    return r.out;
  };
  try {
    const clone = join(dir.path, "mneme");
    await copyClone(clone);
    const out = await install(clone, await npxDeno(home, "aaaa1111"));
    const installed = join(home, ".local", "share", "mneme-install");
    assert.match(out, new RegExp(`Installed Mneme ${VERSION} in ${installed}/versions/${VERSION}`));

    const c = await memcli(["connect", "claude"]);
    assert.equal(c.code, 0, c.err + c.out);
    assert.match(c.out, new RegExp(`service: +started in the background at ${url}`));
    const add = await memcli(["add", "the walk test keeps this memory across the upgrade"]);
    assert.equal(add.code, 0, add.err + add.out);

    // The clone, npx's cache and Deno's cache go: nothing of Mneme depended on them.
    await Deno.remove(clone, { recursive: true });
    await Deno.remove(join(home, ".npm"), { recursive: true });
    await Deno.remove(join(home, ".cache"), { recursive: true }).catch(() => {});
    // Offline from here: any download would go through a proxy that is not there (the
    // registry stays the same: Deno's npm cache is kept per registry).
    const online = { ...env };
    Object.assign(env, { HTTPS_PROXY: "http://127.0.0.1:9" });
    const st = await memcli(["status"]);
    assert.equal(st.code, 0, st.err + st.out);
    assert.match(st.out, /Mneme admin: running/);
    const again = await memcli(["connect", "claude"]);
    assert.equal(again.code, 0, again.err + again.out);
    assert.match(again.out, /check: +the SessionStart hook prints the bootstrap/);
    assert.match(again.out, /check: +the MCP server answers initialize \(mneme \S+, \d+ tools\)/);
    const v = await memcli(["version"]);
    assert.match(v.out, new RegExp(`^memcli v${VERSION} \\(installed in ${installed}/versions/`));

    // A newer clone installs beside the old one and the service moves to it.
    delete env.HTTPS_PROXY;
    Object.assign(env, online);
    const newer = "99.0.0";
    const clone2 = join(dir.path, "mneme-newer");
    await copyClone(clone2, newer);
    const before = await serviceVersion(url);
    assert.equal(before, VERSION);
    const deno2 = await npxDeno(home, "bbbb2222");
    const up = await install(clone2, deno2);
    assert.match(up, new RegExp(`Switched from ${VERSION} to ${newer}`));
    assert.match(up, new RegExp(`Started the memory service \\(pid \\d+\\) at ${url}`));
    assert.match(up, new RegExp(`The memory service runs ${newer} now\\.`));
    assert.ok(await answers(url));
    assert.equal(await serviceVersion(url), newer);
    assert.equal(await Deno.readLink(join(installed, "current")), `versions/${newer}`);
    assert.ok((await Deno.stat(join(installed, "versions", VERSION))).isDirectory);
    // The same Deno: one file, linked, not a second copy.
    const [d1, d2] = await Promise.all(
      [VERSION, newer].map((v) => Deno.stat(join(installed, "versions", v, "deno"))),
    );
    assert.equal(d1.ino, d2.ino);
    assert.equal(d2.nlink, 2);
    const list = await memcli(["list"]);
    assert.match(list.out, /keeps this memory across the upgrade/);
    const v2 = await memcli(["version"]);
    assert.match(v2.out, new RegExp(`^memcli v${newer} `));
    assert.doesNotMatch(v2.out, /runs v/);

    // Removing: disconnect, then uninstall; the install is gone, the memories stay.
    assert.equal((await memcli(["disconnect", "claude"])).code, 0);
    const un = await runClean(deno2, ["run", "-A", "tasks/install.ts", "--uninstall"], env, clone2);
    assert.equal(un.code, 0, un.err + un.out);
    assert.match(
      un.out,
      /If you added the PATH line to ~\/\.profile \(export PATH=".*\.deno\/bin:\$PATH"\)/,
    );
    await assert.rejects(Deno.lstat(installed), Deno.errors.NotFound);
    await assert.rejects(Deno.lstat(join(bin, "memcli")), Deno.errors.NotFound);
    assert.ok((await Deno.stat(join(home, ".local", "share", "mneme", "db"))).isDirectory);
  } finally {
    await memcli(["disconnect", "claude"]).catch(() => {});
    await memcli(["stop"]).catch(() => {});
    await dir.cleanup();
  }
});
