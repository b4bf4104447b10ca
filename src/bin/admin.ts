/**
 * Entry point of the admin daemon: the Admin API and web UI on ADMIN_HOST:ADMIN_PORT
 * (`deno task start`, installed as `mneme-admin`). Configured by environment variables only;
 * `--help` and `--version` are the only flags.
 * @module
 */
import { startAdminServer } from "../admin/server.ts";
import { loadMemoryConfig } from "../config.ts";
import { describeError } from "../common/errors.ts";
import { watchLauncher } from "../common/launcher.ts";
import { keepLoopbackOffProxies } from "../common/net.ts";
import { infoFlagsOnly } from "../info_flags.ts";
import { heldPermissions, permissionProblem, planFor } from "../permissions.ts";
import { VERSION } from "../version.ts";
import { DATABASE_CREATOR_ENV, databaseCreatorArgs } from "../programs.ts";

const USAGE = `mneme-admin v${VERSION}: the Mneme Admin API and web UI.

Usage: mneme-admin [--help | --version]

Configured by environment variables (defaults in parentheses): ADMIN_HOST (127.0.0.1),
ADMIN_PORT (4200), ADMIN_API_KEY, DATA_DIR (the OS data directory), DATABASE_URL (embedded
database when unset), EMBEDDING_PROVIDER (auto), EMBEDDING_MODEL, EMBEDDING_DIM (192),
OLLAMA_URL, OPENAI_BASE_URL, OPENAI_API_KEY. See docs/configuration.md.
`;

infoFlagsOnly("mneme-admin", USAGE);

// Before the first call (an embedder or capture's model on this machine, e.g. Ollama at
// 127.0.0.1): never through a proxy of the environment. Calls elsewhere keep it.
keepLoopbackOffProxies();

/** How long the database creator may take before it is stopped (ms). */
const CREATOR_TIMEOUT_MS = 300_000;

/**
 * Creates a new embedded database in `staging` in a child process (src/bin/initdb.ts), with
 * exactly its permissions: this process never holds PGlite's `initdb` (600–780 MiB).
 */
async function runDatabaseCreator(staging: string): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: databaseCreatorArgs(staging),
    env: { ...DATABASE_CREATOR_ENV },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => {
    if (child.pid > 0) {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }
  }, CREATOR_TIMEOUT_MS);
  try {
    const { code, signal, stderr } = await child.output();
    if (code !== 0) {
      const why = new TextDecoder().decode(stderr).trim().split("\n").slice(-3).join("; ");
      throw new Error(
        `creating the database failed (${signal ? `signal ${signal}` : `exit code ${code}`})${
          why ? `: ${why}` : ""
        }`,
      );
    }
  } finally {
    clearTimeout(timer);
  }
}

try {
  const cfg = loadMemoryConfig();
  // Running Deno is the one optional permission: without it (a hand-written `deno run`
  // line), a new database is created in this process instead of a child.
  const { run, ...plan } = planFor("admin", cfg);
  const problem = permissionProblem("mneme admin", plan);
  if (problem) {
    console.error(problem);
    Deno.exit(1);
  }
  // A new embedded database is created in a child process; that is the one thing `run`
  // (Deno's own executable) is for, given up once the database is open.
  const creates = run !== undefined && run.length > 0 &&
    Deno.permissions.querySync({ name: "run", command: run[0] }).state === "granted";
  const server = await startAdminServer(cfg, creates ? { createDatabase: runDatabaseCreator } : {});
  if (creates) Deno.permissions.revokeSync({ name: "run" });
  const info = server.service.embedderInfo;
  console.log(`mneme admin listening on ${server.url}`);
  console.log(
    `database: ${server.service.maintenance().kind}${
      cfg.databaseUrl ? "" : ` (${cfg.dataDir}/db)`
    }; embedder: ${info.provider}/${info.model} (${info.dimension} dimensions)`,
  );
  console.log(`permissions: ${heldPermissions(plan)}`);
  const reason = server.service.maintenanceReason;
  if (reason) console.error(`maintenance mode: ${reason}`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.error("mneme admin: shutting down");
    await server.close();
    Deno.exit(0);
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, stop);
  watchLauncher(() => {
    console.error("mneme admin: the launcher that started it is gone");
    void stop();
  });
} catch (err) {
  console.error(`mneme admin: ${describeError(err)}`);
  Deno.exit(1);
}
