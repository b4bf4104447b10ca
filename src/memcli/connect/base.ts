/**
 * What every step of `memcli connect claude` and `memcli disconnect claude` stands on: the
 * environment read without failing, the installed commands connect points Claude Code at,
 * programs run through `sh` (memcli may run only sh, ps and kill), the autostart host of this
 * process, and the record of what connect did (DATA_DIR/run/connect.json), so that disconnect
 * removes exactly that. Apart from the steps so that `memcli status` and `memcli start` can
 * reach the autostart host without loading connect.
 *
 * @module
 */
import { join, resolve } from "node:path";
import {
  type AutostartHost,
  currentHost,
  runCommand,
  type RunResult,
} from "../../common/autostart.ts";
import { UsageError } from "../../common/errors.ts";
import { finishChild } from "../../common/shell.ts";
import type { Layout } from "../context.ts";
import type { Io } from "../io.ts";

/** The name of the start-at-login entry (systemd unit `mneme.service`, launchd label). */
export const AUTOSTART_NAME = "mneme";

/** One line of connect's report: a label in a column, then what happened. */
export type Say = (label: string, text: string) => void;

/** The report's lines on `io`'s standard output. */
export function sayTo(io: Io): Say {
  return (label, text) => io.out(`${label.padEnd(10)} ${text}\n`);
}

/** What connect did, in DATA_DIR/run/connect.json. */
export interface ConnectRecord {
  /** connect started memcli's background daemon (no login service here). */
  started_daemon: boolean;
  /** The MCP server was registered through `claude`. */
  mcp: boolean;
}

/** The installed commands connect points Claude Code at. */
export interface Bin {
  dir: string;
  memcli: string;
  mcp: string;
  admin: string;
}

/** A variable of the environment, trimmed; undefined when unset, empty or not readable. */
export function safeEnv(io: Io, name: string): string | undefined {
  try {
    return io.env(name)?.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The folder of the installed commands: --bin, else the one memcli runs from. */
export async function findBin(io: Io, flag: string | undefined): Promise<Bin> {
  const fromEnv = safeEnv(io, "MNEME_BIN_DIR");
  const home = safeEnv(io, "HOME");
  const dir = flag ? resolve(io.cwd(), flag) : fromEnv ??
    join(safeEnv(io, "DENO_INSTALL_ROOT") ?? join(home ?? "/", ".deno"), "bin");
  const bin = {
    dir,
    memcli: join(dir, "memcli"),
    mcp: join(dir, "mneme-mcp"),
    admin: join(dir, "mneme-admin"),
  };
  for (const p of [bin.memcli, bin.mcp, bin.admin]) {
    const check = await runCommand("sh", ["-c", '[ -x "$1" ]', "sh", p]);
    if (check.code === 0) continue;
    // `[ -x ]` answers 1 for a file that is not there; anything else is the check's own failure.
    if (check.code !== 1) {
      throw new Error(`could not check ${p}: ${check.stderr.trim() || `sh exited ${check.code}`}`);
    }
    throw new UsageError(
      `${p} is not there: connect points Claude Code at the installed commands; run ` +
        "'deno task install' in the Mneme folder first (or give their folder with --bin DIR)",
      "connect",
    );
  }
  return bin;
}

/**
 * The `sh` arguments that run `argv`: as it is, or with exactly the environment `env` (through
 * `/usr/bin/env -i`: Deno resolves `sh` against the environment it is given, so a clean one
 * with another PATH would no longer be the `sh` memcli may run).
 */
export function shArgs(argv: string[], env?: Record<string, string>): string[] {
  if (!env) return ["-c", 'exec "$0" "$@"', ...argv];
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return ["-c", 'exec /usr/bin/env -i "$@"', "sh", ...vars, ...argv];
}

/** Run a program through `sh` (memcli may run only sh, ps and kill): 127 when absent. */
export async function runSh(
  argv: string[],
  opts: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<RunResult> {
  const child = new Deno.Command("sh", {
    args: shArgs(argv, opts.env),
    cwd: opts.cwd,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return await finishChild(child, opts.stdin);
}

/** The autostart host of this process, its commands run through `sh`. */
export function hostOf(io: Io): AutostartHost {
  return {
    ...currentHost((n) => safeEnv(io, n)),
    run: (cmd, args, stdin) => runSh([cmd, ...args], { stdin }),
  };
}

/** Where connect records what it did. */
export function recordPath(layout: Layout): string {
  return join(layout.run, "connect.json");
}

/** What connect did last, or null when it did not run (or its record is unreadable). */
export async function readRecord(layout: Layout): Promise<ConnectRecord | null> {
  try {
    return JSON.parse(await Deno.readTextFile(recordPath(layout)));
  } catch {
    return null;
  }
}

/** Records what connect did (owner-only, in the data folder's run directory). */
export async function writeRecord(layout: Layout, record: ConnectRecord): Promise<void> {
  await Deno.mkdir(layout.run, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(recordPath(layout), JSON.stringify(record, null, 2) + "\n", {
    mode: 0o600,
  });
}
