/**
 * `memcli bootstrap [--project NAME]`: the session-start Markdown. Loads only light
 * modules (config, HTTP client, the shared bootstrap renderer). Any failure after the flags
 * are parsed (service down, bad key, bad environment) gives a note on stderr, an empty
 * bootstrap on stdout and exit 0, so that an agent's session start never breaks.
 * @module
 */
import { basename, dirname, join } from "node:path";
import { loadBootstrap, renderBootstrap } from "../../memory/bootstrap.ts";
import { MemoryError } from "../../memory/errors.ts";
import type { Memory } from "../../memory/types.ts";
import { parseFlags, stringFlag } from "../args.ts";
import { apiUrlOf, clientOf, configOf } from "../context.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";

/** Per-request timeout: a hung service must not hold up a session start for long. */
const BOOTSTRAP_TIMEOUT_MS = 5000;

/**
 * The nearest directory at or above `dir` holding `.git` (a folder, or a file for worktrees).
 * The walk stops where memcli may not read (its permissions cover the working directory), so
 * that a session start never waits on a permission prompt.
 */
export async function gitRoot(dir: string): Promise<string | null> {
  for (let cur = dir;;) {
    const marker = join(cur, ".git");
    if (Deno.permissions.querySync({ name: "read", path: marker }).state !== "granted") {
      return null;
    }
    try {
      await Deno.lstat(marker);
      return cur;
    } catch { /* keep walking */ }
    const up = dirname(cur);
    if (up === cur) return null;
    cur = up;
  }
}

/** The project: the flag, else the git root's name, else the working directory's name. */
export async function detectProject(
  cwd: string,
  flag: string | undefined,
): Promise<{ project: string | null; source: "flag" | "git" | "cwd" | "none" }> {
  if (flag) return { project: flag, source: "flag" };
  const root = await gitRoot(cwd);
  if (root && basename(root)) return { project: basename(root), source: "git" };
  const name = basename(cwd);
  return name ? { project: name, source: "cwd" } : { project: null, source: "none" };
}

/** Run `memcli bootstrap`. */
export async function bootstrap(args: string[], io: Io): Promise<number> {
  const p = parseFlags("bootstrap", args, { project: { type: "string" } });
  if (p.help) {
    io.out(COMMAND_USAGE.bootstrap);
    return 0;
  }
  const flag = stringFlag("bootstrap", "project", p.values.project);
  const { project, source } = await detectProject(io.cwd(), flag);
  let memories: Memory[] = [];
  try {
    const cfg = configOf(io);
    const { url } = await apiUrlOf(io, cfg);
    try {
      memories = await loadBootstrap(clientOf(cfg, url, BOOTSTRAP_TIMEOUT_MS), project);
    } catch (err) {
      if (err instanceof MemoryError && err.status === 503) {
        io.err(
          `memcli bootstrap: no memory service at ${url} (start it with 'memcli setup'); ` +
            "printing an empty bootstrap\n",
        );
      } else throw err;
    }
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    io.err(`memcli bootstrap: ${msg}; printing an empty bootstrap\n`);
  }
  io.out(renderBootstrap(memories, { project, projectSource: source }));
  return 0;
}
