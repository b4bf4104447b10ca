/**
 * Step 5 of `memcli connect claude`: the hooks and the MCP server checked as Claude Code runs
 * them, with the environment an agent started outside a login shell gives them (a minimal
 * PATH): the SessionStart hook must print the bootstrap, the prompt hook (when written) must
 * run, and the MCP server must answer `initialize` and list its tools through the MCP SDK's
 * client. A connect that passes this check works in Claude Code's next session.
 *
 * @module
 */
import type { MnemeEvent } from "../claude_settings.ts";
import type { Io } from "../io.ts";
import { VERSION } from "../../version.ts";
import { runSh, safeEnv, type Say, shArgs } from "./base.ts";
import type { McpEntry } from "./mcp.ts";

/** The PATH of the check: what a hook gets from an agent started outside a login shell. */
export const MINIMAL_PATH = "/usr/bin:/bin";

/** The environment of the check: what Claude Code gives a hook it runs from a minimal PATH. */
function checkEnv(io: Io): Record<string, string> {
  const env: Record<string, string> = { PATH: MINIMAL_PATH };
  for (const k of ["HOME", "DENO_DIR", "XDG_CACHE_HOME", "CLAUDE_CONFIG_DIR"]) {
    const v = safeEnv(io, k);
    if (v) env[k] = v;
  }
  return env;
}

/** Run a hook as Claude Code does (`sh -c`), with a minimal environment; null when fine. */
async function checkHook(
  io: Io,
  command: string,
  cwd: string,
  event: MnemeEvent = "SessionStart",
): Promise<string | null> {
  const payload = JSON.stringify({
    session_id: "mneme-connect-check",
    cwd,
    hook_event_name: event,
    ...(event === "SessionStart" ? { source: "startup" } : { prompt: "mneme connect check" }),
  });
  const env = checkEnv(io);
  const key = safeEnv(io, "ADMIN_API_KEY");
  if (key) env.ADMIN_API_KEY = key;
  const r = await runSh(["/bin/sh", "-c", command], { env, stdin: payload, cwd });
  if (r.code !== 0) return `exit ${r.code}: ${(r.stderr || r.stdout).trim().split("\n").at(-1)}`;
  if (/no memory service|no bootstrap this session/i.test(r.stdout)) return r.stdout.trim();
  return null;
}

/**
 * Start the MCP server as Claude Code does, and list its tools with the MCP SDK's client
 * (initialize, then tools/list); `problem` null when fine.
 */
async function checkMcp(
  io: Io,
  entry: McpEntry,
  timeoutMs: number,
): Promise<{ problem: string | null; tools: number; server: string }> {
  const { Client, DenoStdioTransport } = await import("../../common/mcp_client.ts");
  const transport = new DenoStdioTransport(
    "sh",
    shArgs([entry.command], { ...checkEnv(io), ...entry.env }),
  );
  const client = new Client({ name: "memcli-connect-check", version: VERSION });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), timeoutMs));
  const talk = async () => {
    await client.connect(transport);
    const info = client.getServerVersion();
    const { tools } = await client.listTools();
    return {
      problem: tools.length ? null : "it lists no tools",
      tools: tools.length,
      server: `${info?.name ?? "?"} ${info?.version ?? ""}`.trim(),
    };
  };
  let result: { problem: string | null; tools: number; server: string };
  try {
    const r = await Promise.race([talk(), timeout]);
    result = r === "timeout"
      ? { problem: `no answer within ${timeoutMs / 1000} s`, tools: 0, server: "" }
      : r;
  } catch (e) {
    result = { problem: (e as Error).message, tools: 0, server: "" };
  } finally {
    clearTimeout(timer);
  }
  // Closing ends the server: its stdin closes (killed after 5 s if it lingers).
  await client.close().catch(() => {});
  const err = transport.stderr.trim();
  if (result.problem && err) result.problem += ` (${err.split("\n").at(-1)})`;
  return result;
}

/**
 * Runs the hooks connect wrote (`commands`, from `cwd`) and the MCP server of `entry` as
 * Claude Code would, saying how each went; true when all of them work.
 */
export async function checkAsClaudeRuns(
  io: Io,
  commands: Partial<Record<MnemeEvent, string>>,
  entry: McpEntry,
  cwd: string,
  timeoutS: number,
  say: Say,
): Promise<boolean> {
  const hookProblem = await checkHook(io, commands.SessionStart!, cwd);
  say(
    "check:",
    hookProblem
      ? `the SessionStart hook failed: ${hookProblem}`
      : `the SessionStart hook prints the bootstrap (PATH=${MINIMAL_PATH})`,
  );
  const recallProblem = commands.UserPromptSubmit
    ? await checkHook(io, commands.UserPromptSubmit, cwd, "UserPromptSubmit")
    : null;
  if (commands.UserPromptSubmit) {
    say(
      "check:",
      recallProblem
        ? `the UserPromptSubmit hook failed: ${recallProblem}`
        : `the UserPromptSubmit hook runs (PATH=${MINIMAL_PATH})`,
    );
  }
  const mcp = await checkMcp(io, entry, Math.min(timeoutS, 60) * 1000);
  say(
    "check:",
    mcp.problem
      ? `the MCP server failed: ${mcp.problem}`
      : `the MCP server answers initialize (${mcp.server}, ${mcp.tools} tools)`,
  );
  return !(hookProblem || recallProblem || mcp.problem);
}
