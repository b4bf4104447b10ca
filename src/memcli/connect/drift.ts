/**
 * What `memcli connect claude` set up, against where the service runs now: the MCP server
 * `mneme` in Claude Code's user config (its `MEMORY_API_URL`, read as connect reads it), the
 * hooks' `MEMORY_API_URL` (connect names a service off the default port on their command
 * line) and the start at login (its `ADMIN_PORT`). A service moved to another port
 * (`ADMIN_PORT=4311 memcli start`) is followed by memcli and by hooks without a URL (they read
 * run/admin.json), but not by these: the agent's `recall` would fail while `claude mcp list`
 * says Connected, and the next login would start the service on the old port. `memcli
 * status`, `memcli hooks status`, `memcli start` and `memcli setup` say so, with the fix:
 * connect again with the setting, which rewrites all three.
 *
 * Like is compared with like: the start at login names the data folder it starts
 * (`DATA_DIR`). A service of another data folder (a second instance, `DATA_DIR=/elsewhere
 * ADMIN_PORT=4317 memcli start`) is not the one the login entry starts, so its port is not
 * compared with the entry's; and when connect never ran for that folder either (no
 * DATA_DIR/run/connect.json), the MCP server and the hooks are another folder's too: nothing
 * is said.
 *
 * Reads only what memcli holds for connect anyway (Claude Code's user config and settings,
 * the login entries' files; the crontab through `sh`).
 *
 * @module
 */
import { autostartEntry, type AutostartKind, entrySetsEnv } from "../../common/autostart.ts";
import { defaultPort, isLoopbackHost } from "../../common/net.ts";
import {
  claudeConfigDir,
  claudeSettingsFiles,
  DEFAULT_MEMORY_API_URL,
  defaultDataDir,
} from "../../config.ts";
import { resolve } from "node:path";
import { findMnemeHooks, parseSettings, readSettingsText } from "../claude_settings.ts";
import { configOf, layoutOf } from "../context.ts";
import type { Io } from "../io.ts";
import { AUTOSTART_NAME, hostOf, readRecord, safeEnv } from "./base.ts";
import { registeredMcp } from "./mcp.ts";

/** The default port of the service (`ADMIN_PORT` unset). */
const DEFAULT_PORT = new URL(DEFAULT_MEMORY_API_URL).port;

/** Host and port of `url` (the scheme's port when none is written); null when not a URL. */
function hostPort(url: string): { host: string; port: string } | null {
  try {
    const u = new URL(url);
    return { host: u.hostname, port: u.port || String(defaultPort(u.protocol) ?? "") };
  } catch {
    return null;
  }
}

/** Whether two URLs reach the same service: the same port, and the same host or both loopback. */
export function sameService(a: string, b: string): boolean {
  const x = hostPort(a), y = hostPort(b);
  if (!x || !y || x.port !== y.port) return false;
  return x.host === y.host || (isLoopbackHost(x.host) && isLoopbackHost(y.host));
}

/** The `ADMIN_PORT` a login entry's text sets (a unit, a plist, a shell line), else 4200. */
export function entryPort(text: string): string {
  const m = /\bADMIN_PORT(?:=|<\/key>\s*<string>)["']?(\d+)/.exec(text);
  return m ? m[1] : DEFAULT_PORT;
}

/** The `MEMORY_API_URL=` a hook command starts with, else null (the hook follows the service). */
export function hookUrl(command: string): string | null {
  const m = /^(?:\w+=\S*\s+)*?MEMORY_API_URL=('[^']*'|"[^"]*"|\S+)/.exec(command);
  return m ? m[1].replace(/^['"]|['"]$/g, "") : null;
}

/** Mneme's start-at-login entry as it is in place. */
export interface LoginEntry {
  kind: AutostartKind;
  /** Its file (none for the crontab). */
  file?: string;
  /** Its text (the marked line of a profile or the crontab). */
  text: string;
  /**
   * It starts the service of this DATA_DIR: its `DATA_DIR` is this one (without one, this is
   * the default data folder). True when this DATA_DIR cannot be read.
   */
  here: boolean;
}

/** This process's DATA_DIR (absolute), or null when the configuration does not load. */
function dataDirOf(io: Io): string | null {
  try {
    return configOf(io).dataDir;
  } catch {
    return null;
  }
}

/** Mneme's start-at-login entry, and whether it starts this DATA_DIR's service; null: none. */
export async function loginEntry(io: Io): Promise<LoginEntry | null> {
  let entry = null;
  try {
    entry = await autostartEntry(AUTOSTART_NAME, hostOf(io), true);
  } catch { /* not readable: nothing to compare */ }
  if (!entry) return null;
  const dataDir = dataDirOf(io);
  const sets = dataDir === null ? true : entrySetsEnv(entry, "DATA_DIR", dataDir);
  const here = sets ?? dataDir === resolve(io.cwd(), defaultDataDir((n) => safeEnv(io, n)));
  return { ...entry, here };
}

/** The command that points everything connect set up at the service on `port`. */
export function connectFix(io: Io, port: string): string {
  const set = port !== DEFAULT_PORT || safeEnv(io, "ADMIN_PORT") !== undefined;
  return `${set ? `ADMIN_PORT=${port} ` : ""}memcli connect claude`;
}

/**
 * One line per thing connect set up that does not reach the service at `serviceUrl`, each
 * with the fix. Nothing for a service off this machine (connect sets up a local one). The
 * hooks are those of `hookCommands`, else of Claude Code's user settings; the start at login
 * is `login` when the caller read it already ({@link loginEntry}), else read here.
 */
export async function connectDrift(
  io: Io,
  serviceUrl: string,
  hookCommands?: string[],
  login?: LoginEntry | null,
): Promise<string[]> {
  const at = hostPort(serviceUrl);
  if (!at || !isLoopbackHost(at.host)) return [];
  const entry = login === undefined ? await loginEntry(io) : login;
  if (entry && !entry.here) {
    // The login entry starts another data folder; connect never ran for this one either:
    // what it set up is that folder's, not this service's.
    const dataDir = dataDirOf(io);
    if (dataDir === null || !(await readRecord(layoutOf(dataDir)))) return [];
  }
  const fix = `run '${connectFix(io, at.port)}'`;
  const out: string[] = [];
  const mcp = await registeredMcp(io);
  const env = mcp?.env as Record<string, unknown> | undefined;
  const mcpUrl = typeof env?.MEMORY_API_URL === "string" ? env.MEMORY_API_URL : undefined;
  const ours = typeof mcp?.command === "string" && /(^|\/)mneme-mcp$/.test(mcp.command);
  if (ours && typeof env?.DATABASE_URL !== "string") {
    const url = mcpUrl ?? DEFAULT_MEMORY_API_URL;
    if (!sameService(url, serviceUrl)) {
      out.push(
        `the MCP server 'mneme' registered in Claude Code calls MEMORY_API_URL=${url}, but ` +
          `the service runs at ${serviceUrl}: the agent's memory tools fail there; ${fix}`,
      );
    }
  }
  let commands = hookCommands;
  if (!commands) {
    try {
      const dir = resolve(io.cwd(), claudeConfigDir((n) => safeEnv(io, n)));
      const path = claudeSettingsFiles(dir).settings;
      commands = findMnemeHooks(parseSettings(await readSettingsText(path), path))
        .map((h) => h.command);
    } catch {
      commands = [];
    }
  }
  const stale = [...new Set(commands.map(hookUrl))]
    .filter((u): u is string => u !== null && !sameService(u, serviceUrl));
  for (const url of stale) {
    out.push(
      `Claude Code's hooks call MEMORY_API_URL=${url}, but the service runs at ${serviceUrl}: ` +
        `no bootstrap or recall at session start; ${fix}`,
    );
  }
  if (entry?.here && entryPort(entry.text) !== at.port) {
    const where = entry.file ? `${entry.file}` : "your crontab";
    out.push(
      `the start at login (${where}) starts the service on port ${
        entryPort(entry.text)
      }, but it runs on port ${at.port} now: after the next login the hooks and the MCP ` +
        `server would miss it; ${fix}`,
    );
  }
  return out;
}

/**
 * After a start: what connect set up for Claude Code (the MCP server, the hooks, the start at
 * login) and does not reach the service at `url`, on stderr, each with the fix.
 */
export async function warnDrift(io: Io, verb: string, url: string): Promise<void> {
  for (const d of await connectDrift(io, url)) io.err(`memcli ${verb}: warning: ${d}\n`);
}
