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
 * Reads only what memcli holds for connect anyway (Claude Code's user config and settings,
 * the login entries' files; the crontab through `sh`).
 *
 * @module
 */
import { autostartEntry } from "../../common/autostart.ts";
import { defaultPort, isLoopbackHost } from "../../common/net.ts";
import { claudeConfigDir, claudeSettingsFiles, DEFAULT_MEMORY_API_URL } from "../../config.ts";
import { resolve } from "node:path";
import { findMnemeHooks, parseSettings, readSettingsText } from "../claude_settings.ts";
import type { Io } from "../io.ts";
import { AUTOSTART_NAME, hostOf, safeEnv } from "./base.ts";
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

/** The command that points everything connect set up at the service on `port`. */
export function connectFix(io: Io, port: string): string {
  const set = port !== DEFAULT_PORT || safeEnv(io, "ADMIN_PORT") !== undefined;
  return `${set ? `ADMIN_PORT=${port} ` : ""}memcli connect claude`;
}

/**
 * One line per thing connect set up that does not reach the service at `serviceUrl`, each
 * with the fix. Nothing for a service off this machine (connect sets up a local one). The
 * hooks are those of `hookCommands`, else of Claude Code's user settings.
 */
export async function connectDrift(
  io: Io,
  serviceUrl: string,
  hookCommands?: string[],
): Promise<string[]> {
  const at = hostPort(serviceUrl);
  if (!at || !isLoopbackHost(at.host)) return [];
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
  let entry = null;
  try {
    entry = await autostartEntry(AUTOSTART_NAME, hostOf(io), true);
  } catch { /* not readable: nothing to compare */ }
  if (entry && entryPort(entry.text) !== at.port) {
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
