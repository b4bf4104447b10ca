/**
 * Entry point of the MCP stdio server (`deno task mcp`). Stdout carries JSON-RPC only;
 * every log line goes to stderr. Exits 1 at once with a message when no backend is
 * reachable, 0 when the client closes stdin or on SIGINT/SIGTERM.
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

const server = createMcpServer(backend.service, { log });
let closing = false;
const shutdown = async (why: string) => {
  if (closing) return;
  closing = true;
  log(`mneme mcp: shutting down (${why})`);
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
process.stdin.on("end", () => void shutdown("stdin closed"));
process.stdin.on("close", () => void shutdown("stdin closed"));

await server.connect(new StdioServerTransport());
log(`mneme mcp ${VERSION} ready on stdio; backend: ${backend.description}; permissions: ${held}`);
