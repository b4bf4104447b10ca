/**
 * `deno task install [--root DIR]`: installs mneme-admin, mneme-mcp, memcli and msgcli with
 * `deno install --global` (the proxy daemon is `msgcli serve`). Each installed command is the
 * launcher (src/bin/launch.ts) with its program's name: it holds only `--allow-env` and
 * `--allow-run` for this Deno executable, and computes the program's exact permissions each
 * time it starts, from the configuration it starts with. Changing a setting after installing
 * therefore needs no reinstall. It then fetches the programs' npm packages into Deno's cache,
 * here, in the user's own environment: an agent starts mneme-mcp with a minimal environment
 * (no proxy or certificate settings) and a short timeout, so its first start must not need the
 * network. Works offline once the dependencies are cached.
 * `deno task uninstall [--root DIR]` removes them.
 */
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { shellQuote, shellQuoteExpanding } from "../src/common/shell.ts";
import { type Program, PROGRAMS } from "../src/programs.ts";
import { forEachProgram, ROOT } from "./entrypoints.ts";

/** The `deno` arguments that install program `name` as a launcher wrapper. */
export function installArgs(name: string, root: string[] = []): string[] {
  return [
    "install",
    "--global",
    "--force",
    "--quiet",
    "--config",
    `${ROOT}deno.json`,
    "--name",
    name,
    ...root,
    "--no-prompt",
    "--allow-env",
    `--allow-run=${Deno.execPath()}`,
    `${ROOT}src/bin/launch.ts`,
    "--",
    name,
  ];
}

/**
 * The `deno` arguments that fetch program `p`'s dependencies into Deno's cache, with the
 * lockfile the launcher runs it with.
 */
export function cacheArgs(p: Program): string[] {
  const lock = p.launch({ env: () => undefined, args: [], cwd: ROOT }).lock;
  return [
    "cache",
    "--quiet",
    "--config",
    `${ROOT}deno.json`,
    ...(lock ? [`--lock=${ROOT}${lock}`] : []),
    `${ROOT}${p.entry}`,
  ];
}

/**
 * The folder `deno install --global` writes the commands to: `<root>/bin` with `--root`, else
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
 * Make an installed wrapper run the Deno that installed it, by absolute path: `deno install`
 * writes `exec deno run ...`, which fails where `deno` is not on PATH (a Deno from npx, or
 * the minimal PATH an agent gives its hooks). The wrapper also tells the program the folder
 * it is in (`MNEME_BIN_DIR`: `memcli connect` writes the commands' absolute paths). Returns
 * false when the file is not a wrapper.
 */
export async function pinDeno(wrapper: string, deno = Deno.execPath()): Promise<boolean> {
  const text = await Deno.readTextFile(wrapper);
  const bin = shellQuote(dirname(resolve(wrapper)));
  const pinned = text.replace(
    /^exec deno /m,
    `MNEME_BIN_DIR=${bin}; export MNEME_BIN_DIR\nexec ${shellQuote(deno)} `,
  );
  if (pinned === text) return text.includes(`exec ${shellQuote(deno)} `);
  await Deno.writeTextFile(wrapper, pinned);
  return true;
}

/** Whether folder `dir` is one of the folders of `path` (a PATH value). */
export function onPath(dir: string, path: string): boolean {
  const want = resolve(dir);
  return path.split(":").some((p) => p !== "" && resolve(p) === want);
}

/**
 * What `deno task install` prints after installing into `bin`: where the commands are, which
 * Deno they run, whether `bin` is on PATH and, when not, the line that puts it there (for the
 * user's shell, `shell` being `$SHELL`), and the next step.
 */
export function installReport(
  bin: string,
  names: readonly string[],
  path: string,
  shell: string | undefined,
  deno = Deno.execPath(),
): string {
  const lines = [
    `Installed ${names.join(", ")} in ${bin}`,
    `They run Deno at ${deno} (no deno needed on PATH).`,
  ];
  const memcli = join(bin, "memcli");
  if (onPath(bin, path)) {
    lines.push(`${bin} is on your PATH.`, "", "Next, connect Claude Code:  memcli connect claude");
  } else {
    const sh = (shell ?? "").split("/").pop() ?? "";
    const dir = shellQuoteExpanding(bin);
    const [rc, line] = sh === "fish"
      ? ["~/.config/fish/config.fish", `fish_add_path ${dir}`]
      : [sh === "zsh" ? "~/.zshrc" : "~/.bashrc", `export PATH=${quotePathDir(bin)}`];
    lines.push(
      `${bin} is not on your PATH. To type the commands by name, add this line to ${rc}`,
      "and open a new terminal:",
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
  if (!uses) return;
  try {
    await Deno.stat(memcli);
  } catch {
    return;
  }
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

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { root: { type: "string" }, uninstall: { type: "boolean" } },
  });
  const root = values.root ? ["--root", values.root] : [];
  const programs = PROGRAMS.filter((p) => p.installed);
  if (values.uninstall) {
    await disconnectFirst(binDir(values.root));
    await forEachProgram(
      programs,
      "uninstall",
      (p) => ["uninstall", "--global", ...root, p.name],
      (p) => `removed ${p.name}`,
    );
  } else {
    const bin = binDir(values.root);
    await forEachProgram(
      programs,
      "install",
      (p) => installArgs(p.name, root),
      () => "",
      async (p) => {
        const wrapper = join(bin, p.name);
        if (!(await pinDeno(wrapper))) {
          throw new Error(`${wrapper}: not a wrapper deno install wrote; left as it is`);
        }
      },
    );
    console.log(
      "Fetching the commands' npm packages into Deno's cache (once; then they start offline)",
    );
    await forEachProgram(programs, "cache", cacheArgs, () => "");
    console.log(
      installReport(
        bin,
        programs.map((p) => p.name),
        Deno.env.get("PATH") ?? "",
        Deno.env.get("SHELL"),
      ),
    );
  }
}
