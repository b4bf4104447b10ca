/**
 * `deno task install [--root DIR]`: a self-contained install of mneme-admin, mneme-mcp, memcli
 * and msgcli (the proxy daemon is `msgcli serve`), which outlives the folder it was installed
 * from and every npm, npx or Deno cache.
 *
 * Where everything lives (HOME is the install home: `--root DIR`, else `mneme-install` in the
 * platform's data folder, `~/.local/share/mneme-install` on Linux (`$XDG_DATA_HOME` when set),
 * `~/Library/Application Support/mneme-install` on macOS, beside the default DATA_DIR and
 * whatever DATA_DIR says):
 * - `HOME/versions/<version>/app/`: the program (deno.json, its lockfiles, src/, migrations/,
 *   models/, static/), copied from the clone;
 * - `HOME/versions/<version>/deno`: a copy of the Deno executable that ran the install (a copy,
 *   not a link: `npx deno` runs Deno from npx's cache, which may be cleaned);
 * - `HOME/deno_dir/`: the commands' own Deno cache (DENO_DIR) with every npm package they
 *   load, fetched here, at install time, so that nothing is fetched when they run;
 * - `HOME/current`: a link to the version the commands run, replaced atomically (a new link
 *   renamed over it) when a newer one is installed; the previous version is kept beside it
 *   (processes started from it, such as the MCP servers of open Claude Code sessions, keep
 *   their files), older ones are removed;
 * - `BIN/<command>`: four small shell wrappers (BIN is `--root DIR`/bin, else
 *   `$DENO_INSTALL_ROOT/bin`, else `~/.deno/bin`) that run `HOME/current` with its own Deno
 *   and cache. Each is the launcher (src/bin/launch.ts) with its program's name: it holds only
 *   `--allow-env` and `--allow-run` for that Deno, and computes the program's exact
 *   permissions each time it starts, from the configuration it starts with.
 *
 * After switching, the memory service of the configured DATA_DIR, when it runs from the
 * install, is restarted on the new version at once (`memcli restart --if-running`: SIGTERM lets
 * requests in flight finish, then the new version must answer /healthz).
 *
 * `deno task uninstall [--root DIR]` disconnects Claude Code when its settings still run the
 * commands, stops the service, removes the wrappers, the versions and the cache, and names
 * the lines the user added by hand (the PATH line).
 */
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loginProfile } from "../src/common/autostart/profile.ts";
import { defaultDataDir } from "../src/config.ts";
import { shellQuote, shellQuoteExpanding } from "../src/common/shell.ts";
import { writeFileAtomic } from "../src/common/write.ts";
import { PGLITE_WORKER_MODULES } from "../src/permissions.ts";
import { INITDB_ENTRY, MCP_LOCK, type Program, PROGRAMS } from "../src/programs.ts";
import { VERSION } from "../src/version.ts";
import { ROOT } from "./entrypoints.ts";

/** What of the clone an install copies (relative to its root). */
export const APP_FILES: readonly string[] = [
  "deno.json",
  "deno.lock",
  "main.ts",
  "src",
  "migrations",
  "models",
  "static",
];

/** The first line after the shebang of every wrapper the install writes. */
export const WRAPPER_MARK = "# Mneme command written by `deno task install`";

/**
 * The install home: `--root DIR`, else `mneme-install` in the platform's data folder, beside
 * the default DATA_DIR (`mneme`) and apart from it: the memories' folder holds no program.
 */
export function installHome(
  root: string | undefined,
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): string {
  return root !== undefined ? resolve(root) : `${defaultDataDir(env)}-install`;
}

/**
 * The folder the commands are written to: `<root>/bin` with `--root`, else
 * `$DENO_INSTALL_ROOT/bin`, else `$HOME/.deno/bin`.
 */
export function binDir(
  root: string | undefined,
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): string {
  const base = root ?? env("DENO_INSTALL_ROOT") ?? join(env("HOME") ?? "", ".deno");
  return join(resolve(base), "bin");
}

/**
 * The wrapper of command `name`: runs the launcher of the version `HOME/current` points at
 * (resolved once, so that a switch in the middle of a start cannot mix two versions), with
 * that version's Deno and the install's own cache.
 */
export function wrapperText(name: string, home: string, bin: string): string {
  const current = shellQuote(join(home, "current"));
  return [
    "#!/bin/sh",
    WRAPPER_MARK,
    `# ${name}: runs the version ${join(home, "current")} points at, with its own Deno and cache.`,
    `here=$(cd -P ${current} 2>/dev/null && pwd) || {`,
    `  echo "${name}: no Mneme install at ${
      join(home, "current").replace(/["\\`$]/g, "\\$&")
    }: run 'deno task install' in a Mneme folder" >&2`,
    "  exit 127",
    "}",
    `MNEME_BIN_DIR=${shellQuote(bin)}; export MNEME_BIN_DIR`,
    `DENO_DIR=${shellQuote(join(home, "deno_dir"))}; export DENO_DIR`,
    "DENO_NO_UPDATE_CHECK=1; export DENO_NO_UPDATE_CHECK",
    `exec "$here/deno" run --no-prompt --allow-env "--allow-run=$here/deno" ` +
    `--config "$here/app/deno.json" "$here/app/src/bin/launch.ts" ${name} "$@"`,
    "",
  ].join("\n");
}

/**
 * The `deno cache` argument lists that fetch every module and npm package the programs load
 * from `app` (an installed copy): the entries, the launcher, the database creator and the
 * embedded database's worker (started by URL, so not in any entry's graph); the MCP server
 * with its own lockfile.
 */
export function cacheArgs(app: string, programs: readonly Program[] = PROGRAMS): string[][] {
  const config = ["--config", join(app, "deno.json")];
  const main = new Set(["src/bin/launch.ts", INITDB_ENTRY, `src/${PGLITE_WORKER_MODULES[0]}`]);
  const withLock: string[] = [];
  for (const p of programs) {
    const lock = p.launch({ env: () => undefined, args: [], cwd: app }).lock;
    if (lock) withLock.push(p.entry);
    else main.add(p.entry);
  }
  const out = [["cache", "--quiet", ...config, ...[...main].map((e) => join(app, e))]];
  if (withLock.length) {
    out.push([
      "cache",
      "--quiet",
      ...config,
      `--lock=${join(app, MCP_LOCK)}`,
      ...withLock.map((e) => join(app, e)),
    ]);
  }
  return out;
}

/** Whether folder `dir` is one of the folders of `path` (a PATH value). */
export function onPath(dir: string, path: string): boolean {
  const want = resolve(dir);
  return path.split(":").some((p) => p !== "" && resolve(p) === want);
}

/**
 * The shell start-up file and the line that puts `bin` on PATH there (for `$SHELL`): fish's
 * config.fish and zsh's ~/.zshrc (every interactive shell reads them); for bash (and `sh`, or
 * no `$SHELL`) the profile a login shell reads, `profile` (~/.bash_profile or
 * ~/.bash_login when one exists, else ~/.profile: {@link bashLoginProfile}). Not ~/.bashrc: a
 * login bash reads its profile instead, which reads ~/.bashrc only if it says so (the ~/.profile
 * that `memcli connect` may create for the start at login does not), and the desktop session
 * and the terminals opened from it take PATH from the profile read at login.
 */
export function pathLine(
  bin: string,
  shell: string | undefined,
  profile = "~/.profile",
): [string, string] {
  const sh = (shell ?? "").split("/").pop() ?? "";
  return sh === "fish"
    ? ["~/.config/fish/config.fish", `fish_add_path ${shellQuoteExpanding(bin)}`]
    : [sh === "zsh" ? "~/.zshrc" : profile, `export PATH=${quotePathDir(bin)}`];
}

/**
 * The profile a login bash reads in `home`, as `~/…`: the first of ~/.bash_profile and
 * ~/.bash_login that exists, else ~/.profile (the file `memcli connect` writes its profile line
 * to, src/common/autostart/profile.ts).
 */
export async function bashLoginProfile(home: string): Promise<string> {
  const f = await loginProfile({ home, shell: "/bin/bash" });
  return `~/${basename(f)}`;
}

/**
 * The login profile to advise for `shell` (`$SHELL`) in `home`: bash's ({@link bashLoginProfile})
 * for bash; ~/.profile for any other (a login `sh` reads only that). pathLine picks fish's and
 * zsh's own files over it.
 */
export async function profileToAdvise(shell: string | undefined, home: string): Promise<string> {
  const sh = (shell ?? "").split("/").pop() ?? "";
  return sh === "bash" ? await bashLoginProfile(home) : "~/.profile";
}

/**
 * What `deno task install` prints after installing into `bin`: where the commands and the
 * version are, whether `bin` is on PATH and, when not, the line that puts it there (for the
 * user's shell, `shell` being `$SHELL`; `profile` the login profile to advise there,
 * {@link profileToAdvise}), and the next step.
 */
export function installReport(
  bin: string,
  names: readonly string[],
  path: string,
  shell: string | undefined,
  home: string,
  version = VERSION,
  profile = "~/.profile",
): string {
  const lines = [
    `Installed Mneme ${version} in ${join(home, "versions", version)} (with its own Deno and`,
    `npm packages: it needs neither this folder nor the network any more).`,
    `Commands ${names.join(", ")} in ${bin}`,
  ];
  const memcli = join(bin, "memcli");
  if (onPath(bin, path)) {
    lines.push(`${bin} is on your PATH.`, "", "Next, connect Claude Code:  memcli connect claude");
  } else {
    const [rc, line] = pathLine(bin, shell, profile);
    lines.push(
      `${bin} is not on your PATH. To type the commands by name, add this line to ${rc}`,
      rc !== profile
        ? "and open a new terminal:"
        : "(what a login shell reads) and log in again, or run it in this terminal too:",
      "",
      `  ${line}`,
      "",
      `Next, connect Claude Code (this works without the PATH change):  ${
        shellQuote(memcli)
      } connect claude`,
    );
  }
  return lines.join("\n");
}

/** `"<dir>:$PATH"`, double-quoted so that `$PATH` expands and a space in `dir` does not split. */
function quotePathDir(dir: string): string {
  return `"${dir.replace(/(["\\`$])/g, "\\$1")}:$PATH"`;
}

/** Copy `from` (a file or a folder) to `to`, recursively, keeping modes; links are skipped. */
async function copyTree(from: string, to: string): Promise<void> {
  const st = await Deno.lstat(from);
  if (st.isDirectory) {
    await Deno.mkdir(to, { recursive: true, mode: 0o700 });
    for await (const e of Deno.readDir(from)) await copyTree(join(from, e.name), join(to, e.name));
  } else if (st.isFile) {
    await Deno.mkdir(dirname(to), { recursive: true, mode: 0o700 });
    await Deno.copyFile(from, to);
  }
}

/** The version `HOME/current` points at, or null. */
export async function currentVersion(home: string): Promise<string | null> {
  try {
    return (await Deno.readLink(join(home, "current"))).split("/").pop() ?? null;
  } catch {
    return null;
  }
}

/** Point `HOME/current` at `version`, atomically: a new link renamed over the old one. */
export async function switchCurrent(home: string, version: string): Promise<void> {
  const tmp = join(home, `.current-${crypto.randomUUID().slice(0, 8)}`);
  await Deno.symlink(join("versions", version), tmp);
  await Deno.rename(tmp, join(home, "current"));
}

/** Installed versions other than `keep`, oldest first by install time. */
async function otherVersions(home: string, keep: string[]): Promise<string[]> {
  const found: [string, number][] = [];
  try {
    for await (const e of Deno.readDir(join(home, "versions"))) {
      if (!e.isDirectory || keep.includes(e.name)) continue;
      const st = await Deno.stat(join(home, "versions", e.name));
      found.push([e.name, st.mtime?.getTime() ?? 0]);
    }
  } catch { /* none */ }
  return found.sort((a, b) => a[1] - b[1]).map(([n]) => n);
}

/**
 * Hard-link `to` to the current version's Deno when it is this very Deno (same version, same
 * size); false when not (then it is copied).
 */
async function linkSameDeno(home: string, to: string): Promise<boolean> {
  try {
    const dir = await Deno.realPath(join(home, "current"));
    const info = JSON.parse(await Deno.readTextFile(join(dir, "install.json")));
    const [mine, theirs] = await Promise.all([
      Deno.stat(Deno.execPath()),
      Deno.stat(join(dir, "deno")),
    ]);
    if (info.deno !== Deno.version.deno || mine.size !== theirs.size) return false;
    await Deno.link(join(dir, "deno"), to);
    return true;
  } catch {
    return false;
  }
}

/** Run `cmd args` with inherited output, under `env` added to this environment. */
async function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  return (await new Deno.Command(cmd, { args, env, stdout: "inherit", stderr: "inherit" })
    .output()).code;
}

/**
 * Install this clone's version into `home`, write the wrappers into `bin` and switch to it.
 * Returns the previous version (null on a first install).
 */
export async function install(home: string, bin: string): Promise<string | null> {
  // Owner-only, the folders it creates (a `--root` folder that exists is left as it is).
  await Deno.mkdir(join(home, "versions"), { recursive: true, mode: 0o700 });
  const stage = join(home, "versions", `.${VERSION}.tmp-${crypto.randomUUID().slice(0, 8)}`);
  try {
    for (const f of APP_FILES) await copyTree(join(ROOT, f), join(stage, "app", f));
    // The Deno that runs this, copied (from npx's cache, say, which may go); the same Deno as
    // the current version's is a hard link to its copy (about 95 MB less per upgrade).
    const deno = join(stage, "deno");
    if (!(await linkSameDeno(home, deno))) {
      await Deno.copyFile(Deno.execPath(), deno);
      await Deno.chmod(deno, 0o755);
    }
    console.log(
      "Fetching the commands' npm packages into the install's own cache (once; then they " +
        "start offline)",
    );
    const denoDir = join(home, "deno_dir");
    await Deno.mkdir(denoDir, { recursive: true, mode: 0o700 });
    for (const args of cacheArgs(join(stage, "app"))) {
      const code = await run(deno, args, { DENO_DIR: denoDir });
      if (code !== 0) throw new Error(`deno ${args.slice(0, 2).join(" ")} failed (exit ${code})`);
    }
    await Deno.writeTextFile(
      join(stage, "install.json"),
      JSON.stringify(
        {
          version: VERSION,
          deno: Deno.version.deno,
          from: ROOT,
          installed_at: new Date().toISOString(),
        },
        null,
        2,
      ) + "\n",
      { mode: 0o600 },
    );
    const target = join(home, "versions", VERSION);
    const previous = await currentVersion(home);
    let replaced: string | null = null;
    try {
      await Deno.lstat(target);
      replaced = join(home, "versions", `.${VERSION}.old-${crypto.randomUUID().slice(0, 8)}`);
      await Deno.rename(target, replaced);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    await Deno.rename(stage, target);
    await Deno.mkdir(bin, { recursive: true });
    for (const p of PROGRAMS.filter((p) => p.installed)) {
      const file = join(bin, p.name);
      await writeFileAtomic(
        file,
        `${file}.tmp-${crypto.randomUUID().slice(0, 8)}`,
        wrapperText(p.name, home, bin),
        0o755,
      );
    }
    await switchCurrent(home, VERSION);
    if (replaced) await Deno.remove(replaced, { recursive: true });
    // Keep the previous version (its processes may still read it); older ones go.
    const keep = [VERSION, ...(previous && previous !== VERSION ? [previous] : [])];
    for (const old of await otherVersions(home, keep)) {
      if (old.startsWith(".") && old.includes(".tmp-")) continue; // another install's stage
      await Deno.remove(join(home, "versions", old), { recursive: true });
    }
    return previous;
  } catch (err) {
    await Deno.remove(stage, { recursive: true }).catch(() => {});
    throw err;
  }
}

/** Whether `file` is a wrapper this install wrote. */
async function isWrapper(file: string): Promise<boolean> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n")[1] === WRAPPER_MARK;
}

/**
 * Before the commands go: when Claude Code's settings still run them (the hooks, the MCP
 * server), `memcli disconnect claude` removes that first, so that nothing is left pointing at
 * commands that are gone.
 */
async function disconnectFirst(bin: string): Promise<void> {
  const memcli = join(bin, "memcli");
  const home = Deno.env.get("HOME") ?? "";
  const claudeDir = Deno.env.get("CLAUDE_CONFIG_DIR") || join(home, ".claude");
  const files = [
    join(claudeDir, "settings.json"),
    join(Deno.env.get("CLAUDE_CONFIG_DIR") ? claudeDir : home, ".claude.json"),
  ];
  let uses = false;
  for (const f of files) {
    const text = await Deno.readTextFile(f).catch(() => "");
    if (text.includes(memcli) || text.includes(join(bin, "mneme-mcp"))) uses = true;
  }
  if (!uses || !(await isWrapper(memcli))) return;
  console.log(
    `Claude Code still runs Mneme's commands from ${bin}: memcli disconnect claude first`,
  );
  const { code } = await new Deno.Command(memcli, {
    args: ["disconnect", "claude"],
    cwd: home || undefined,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    console.error(
      "uninstall: memcli disconnect claude failed; the commands stay (fix it, run again)",
    );
    Deno.exit(code);
  }
}

/**
 * The lines of the user's shell start-up files that name `bin` (the PATH line install asked
 * for): `file:line: text`, for the user to remove by hand.
 */
export async function linesNaming(bin: string, home: string): Promise<string[]> {
  const out: string[] = [];
  const files = [".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile"]
    .map((f) => join(home, f))
    .concat(join(home, ".config", "fish", "config.fish"));
  for (const f of files) {
    const text = await Deno.readTextFile(f).catch(() => null);
    if (text === null) continue;
    text.split("\n").forEach((l, i) => {
      if (l.includes(bin) || l.includes(bin.replace(home, "$HOME"))) {
        out.push(`${f}:${i + 1}: ${l.trim()}`);
      }
    });
  }
  return out;
}

/** `deno task uninstall`: what it removed and the lines left for the user, printed. */
async function uninstall(home: string, bin: string): Promise<void> {
  await disconnectFirst(bin);
  const memcli = join(bin, "memcli");
  if (await isWrapper(memcli)) {
    // The service of the configured data folder runs from the versions about to go.
    await run(memcli, ["stop"]);
  }
  for (const p of PROGRAMS.filter((p) => p.installed)) {
    const file = join(bin, p.name);
    if (await isWrapper(file)) {
      await Deno.remove(file);
      console.log(`removed ${file}`);
    }
  }
  for (const f of ["current", "versions", "deno_dir"]) {
    try {
      await Deno.remove(join(home, f), { recursive: true });
      console.log(`removed ${join(home, f)}`);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  // The install home itself, when nothing else is left in it.
  await Deno.remove(home).catch(() => {});
  const lines = await linesNaming(bin, Deno.env.get("HOME") ?? "");
  const userHome = Deno.env.get("HOME") ?? "";
  const shell = Deno.env.get("SHELL");
  const [rc, line] = pathLine(bin, shell, await profileToAdvise(shell, userHome));
  console.log(
    lines.length
      ? `Lines you added by hand that name ${bin} (remove them yourself):\n` +
        lines.map((l) => `  ${l}`).join("\n")
      : `If you added the PATH line to ${rc} (${line}), remove it yourself.`,
  );
  console.log(
    `Memories stay in the data folder (DATA_DIR, by default ${defaultDataDir()}); ` +
      "'memcli uninstall --purge' before this deletes them.",
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { root: { type: "string" }, uninstall: { type: "boolean" } },
  });
  const home = installHome(values.root);
  const bin = binDir(values.root);
  if (values.uninstall) {
    await uninstall(home, bin);
  } else {
    const previous = await install(home, bin);
    const programs = PROGRAMS.filter((p) => p.installed);
    if (previous && previous !== VERSION) {
      console.log(`Switched from ${previous} to ${VERSION} (${previous} is kept beside it).`);
    }
    console.log(
      installReport(
        bin,
        programs.map((p) => p.name),
        Deno.env.get("PATH") ?? "",
        Deno.env.get("SHELL"),
        home,
        VERSION,
        await profileToAdvise(Deno.env.get("SHELL"), Deno.env.get("HOME") ?? ""),
      ),
    );
    // The service of the configured data folder, when it runs from the install, moves to
    // this version now.
    if (previous !== null) {
      const code = await run(join(bin, "memcli"), ["restart", "--if-running"]);
      if (code !== 0) console.error("install: the service did not restart; see above");
    }
  }
}
