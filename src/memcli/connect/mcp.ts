/**
 * Step 4 of `memcli connect claude` and its undoing: the MCP server `mneme` registered for the
 * user as `claude mcp add --scope user` does (the installed mneme-mcp by absolute path, with
 * the service's URL and key), read back from Claude Code's own config, and removed by
 * disconnect only when it is Mneme's. Where `claude` cannot be run, the line to run is
 * printed instead.
 *
 * @module
 */
import { resolve } from "node:path";
import { shellQuote } from "../../common/shell.ts";
import { claudeUserConfig } from "../../permissions.ts";
import type { Io } from "../io.ts";
import { type Bin, runSh, safeEnv, type Say } from "./base.ts";

/** The MCP server's name in Claude Code. */
export const MCP_NAME = "mneme";

/** The MCP server entry as `claude mcp add --scope user` writes it. */
export interface McpEntry {
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The entry of the installed mneme-mcp for the service at `url` (with its key, if any). */
export function mcpEntry(bin: Bin, url: string, key: string | undefined): McpEntry {
  const env: Record<string, string> = { MEMORY_API_URL: url };
  if (key) env.ADMIN_API_KEY = key;
  return { type: "stdio", command: bin.mcp, args: [] as string[], env };
}

/** The `claude mcp add` words for `entry` (secret values shown as `$NAME` when `print`). */
function mcpAddArgs(entry: McpEntry, print: boolean): string[] {
  const args = ["mcp", "add", "--scope", "user", MCP_NAME];
  for (const [k, v] of Object.entries(entry.env)) {
    args.push("-e", print && k === "ADMIN_API_KEY" ? `${k}=$${k}` : `${k}=${v}`);
  }
  return [...args, "--", entry.command];
}

/** The `mneme` MCP server registered for the user, read from Claude Code's config. */
export async function registeredMcp(io: Io): Promise<Record<string, unknown> | null> {
  const file = claudeUserConfig((n) => safeEnv(io, n));
  if (!file) return null;
  try {
    const json = JSON.parse(await Deno.readTextFile(resolve(io.cwd(), file)));
    const entry = json?.mcpServers?.[MCP_NAME];
    return entry && typeof entry === "object" ? entry : null;
  } catch {
    return null;
  }
}

function sameEntry(a: Record<string, unknown> | null, b: McpEntry): boolean {
  if (!a) return false;
  return a.command === b.command && JSON.stringify(a.args ?? []) === JSON.stringify(b.args) &&
    JSON.stringify(a.env ?? {}) === JSON.stringify(b.env);
}

/** What {@link registerMcp} did. */
export interface McpRegistration {
  /** The entry is registered (it was already, or `claude mcp add` succeeded). */
  registered: boolean;
  /** The `claude mcp add` line for the user to run, when connect could not. */
  todo: string | null;
}

/**
 * Registers `entry` as `mneme` with `claude mcp add --scope user` (replacing another entry of
 * that name), unless it is registered already; a dry run says what it would run.
 */
export async function registerMcp(
  io: Io,
  entry: McpEntry,
  dry: boolean,
  say: Say,
): Promise<McpRegistration> {
  const have = await registeredMcp(io);
  const printLine = ["claude", ...mcpAddArgs(entry, true)].map(shellQuote).join(" ")
    .replace(/'(ADMIN_API_KEY=)\$ADMIN_API_KEY'/, '"$1$ADMIN_API_KEY"');
  if (sameEntry(have, entry)) {
    say("MCP:", `server '${MCP_NAME}' -> ${entry.command} (already registered)`);
    return { registered: true, todo: null };
  }
  if (dry) {
    say("MCP:", `would register server '${MCP_NAME}' -> ${entry.command}: ${printLine}`);
    return { registered: false, todo: null };
  }
  if (have) await runSh(["claude", "mcp", "remove", "--scope", "user", MCP_NAME]);
  const r = await runSh(["claude", ...mcpAddArgs(entry, false)]);
  if (r.code === 0) {
    say(
      "MCP:",
      `server '${MCP_NAME}' -> ${entry.command} (${
        have ? "updated" : "registered"
      } with claude mcp add --scope user)`,
    );
    return { registered: true, todo: null };
  }
  say(
    "MCP:",
    r.code === 127
      ? "'claude' is not on PATH: run the line below to register the MCP server"
      : `claude mcp add failed (exit ${r.code}: ${
        r.stderr.trim().split("\n").at(-1)
      }); run the line below`,
  );
  return { registered: false, todo: printLine };
}

/** Removes the `mneme` MCP server when it is Mneme's mneme-mcp (another one is left alone). */
export async function unregisterMcp(io: Io, dry: boolean, say: Say): Promise<void> {
  const have = await registeredMcp(io);
  const ours = typeof have?.command === "string" && /(^|\/)mneme-mcp$/.test(have.command);
  if (!ours) {
    say(
      "MCP:",
      have
        ? `server '${MCP_NAME}' is not Mneme's mneme-mcp; left alone`
        : `no server '${MCP_NAME}'`,
    );
  } else if (dry) {
    say("MCP:", `would remove server '${MCP_NAME}' (claude mcp remove --scope user ${MCP_NAME})`);
  } else {
    const r = await runSh(["claude", "mcp", "remove", "--scope", "user", MCP_NAME]);
    say(
      "MCP:",
      r.code === 0
        ? `removed server '${MCP_NAME}'`
        : `could not run claude (exit ${r.code}); remove it with: claude mcp remove --scope user ${MCP_NAME}`,
    );
  }
}
