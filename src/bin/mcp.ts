/**
 * Entry point of the MCP stdio server (`deno task mcp`). Stdout carries JSON-RPC only;
 * every log line goes to stderr. Exits 1 at once with a message when no backend is
 * reachable, 0 when the client closes stdin (after answering the requests it sent: a client
 * may write its requests and close stdin at once) or on SIGINT/SIGTERM.
 * @module
 */
import process from "node:process";
import { StdioServerTransport } from "../mcp/sdk.ts";
import { loadMemoryConfig } from "../config.ts";
import { type Backend, BackendError, openBackend } from "../mcp/backend.ts";
import { createMcpServer } from "../mcp/server.ts";
import { describeError } from "../common/errors.ts";
import { watchLauncher } from "../common/launcher.ts";
import { keepLoopbackOffProxies } from "../common/net.ts";
import { infoFlagsOnly } from "../info_flags.ts";
import { heldPermissions, permissionProblem, planFor } from "../permissions.ts";
import { VERSION } from "../version.ts";

infoFlagsOnly(
  "mneme-mcp",
  `mneme-mcp v${VERSION}: the Mneme MCP server (JSON-RPC on stdio).

Usage: mneme-mcp [--help | --version]

Start it from an MCP client (see docs/mcp.md). It reaches memories through the
Admin API at MEMORY_API_URL (http://127.0.0.1:4200), or Postgres directly when DATABASE_URL
is set; ADMIN_API_KEY and the EMBEDDING_* variables apply as for the admin daemon.`,
);

// Anything a library prints with console.log would corrupt the JSON-RPC stream.
console.log = console.info = console.debug = console.error;
const log = (line: string) => console.error(line);

// Before the first call (the Admin API, a local embedder): never through a proxy of the
// environment.
keepLoopbackOffProxies();

let backend: Backend;
let held = "";
try {
  const cfg = loadMemoryConfig();
  const plan = planFor("mcp", cfg);
  held = heldPermissions(plan);
  const problem = permissionProblem("mneme mcp", plan);
  if (problem) {
    log(problem);
    Deno.exit(1);
  }
  backend = await openBackend(cfg, { log });
} catch (err) {
  log(`mneme mcp: ${err instanceof BackendError ? err.message : describeError(err)}`);
  Deno.exit(1);
}

/** How long requests still being answered when stdin closes may take before the exit (ms). */
const DRAIN_MS = 30_000;

/**
 * Counts the requests `transport` received and has not answered yet; `idle(ms)` resolves when
 * none is left (true) or after `ms` (false). Call after the server connected to it.
 */
function trackPending(transport: StdioServerTransport): {
  size(): number;
  idle(ms: number): Promise<boolean>;
} {
  type Message = Parameters<StdioServerTransport["send"]>[0];
  const pending = new Set<unknown>();
  let wake: (() => void) | null = null;
  const received = transport.onmessage;
  // A request has a method and an id; a response, an id and no method.
  const fields = (m: Message) => m as { method?: unknown; id?: unknown };
  transport.onmessage = (m: Message) => {
    const { method, id } = fields(m);
    if (method !== undefined && id !== undefined) pending.add(id);
    received?.(m);
  };
  const send = transport.send.bind(transport);
  transport.send = async (m: Message) => {
    await send(m);
    const { method, id } = fields(m);
    if (method === undefined && pending.delete(id) && !pending.size) wake?.();
  };
  return {
    size: () => pending.size,
    idle(ms) {
      if (!pending.size) return Promise.resolve(true);
      let timer: ReturnType<typeof setTimeout> | undefined;
      return new Promise<boolean>((resolve) => {
        wake = () => resolve(true);
        timer = setTimeout(() => resolve(false), ms);
      }).finally(() => clearTimeout(timer));
    },
  };
}

// API mode asks the admin daemon to rerank the recall tool's results with its judge (applied
// when RECALL_JUDGE=on there); the direct backend has no judge.
const server = createMcpServer(backend.service, { log, rerank: backend.mode === "api" });
let pending: ReturnType<typeof trackPending> | null = null;
let closing = false;
const shutdown = async (why: string, drain = false) => {
  if (closing) return;
  closing = true;
  log(`mneme mcp: shutting down (${why})`);
  if (drain && pending?.size()) {
    const n = pending.size();
    log(`mneme mcp: answering ${n} pending request${n === 1 ? "" : "s"} first`);
    if (!(await pending.idle(DRAIN_MS))) {
      log(`mneme mcp: ${pending.size()} still unanswered after ${DRAIN_MS / 1000} s; exiting`);
    }
  }
  const timer = setTimeout(() => Deno.exit(0), 3000);
  try {
    await server.close();
    await backend.close();
  } catch (err) {
    log(`mneme mcp: error while closing: ${describeError(err)}`);
  }
  clearTimeout(timer);
  Deno.exit(0);
};
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  try {
    Deno.addSignalListener(sig, () => void shutdown(sig));
  } catch { /* SIGTERM cannot be listened to on Windows */ }
}
watchLauncher(() => void shutdown("the launcher that started it is gone"));
process.stdin.on("end", () => void shutdown("stdin closed", true));
process.stdin.on("close", () => void shutdown("stdin closed", true));

const transport = new StdioServerTransport();
await server.connect(transport);
pending = trackPending(transport);
log(`mneme mcp ${VERSION} ready on stdio; backend: ${backend.description}; permissions: ${held}`);
