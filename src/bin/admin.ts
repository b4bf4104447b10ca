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
import { infoFlagsOnly } from "../info_flags.ts";
import { heldPermissions, permissionProblem, planFor } from "../permissions.ts";
import { VERSION } from "../version.ts";

const USAGE = `mneme-admin v${VERSION}: the Mneme Admin API and web UI.

Usage: mneme-admin [--help | --version]

Configured by environment variables (defaults in parentheses): ADMIN_HOST (127.0.0.1),
ADMIN_PORT (4200), ADMIN_API_KEY, DATA_DIR (the OS data directory), DATABASE_URL (embedded
database when unset), EMBEDDING_PROVIDER (auto), EMBEDDING_MODEL, EMBEDDING_DIM (384),
OLLAMA_URL, OPENAI_BASE_URL, OPENAI_API_KEY. See docs/configuration.md.
`;

infoFlagsOnly("mneme-admin", USAGE);

try {
  const cfg = loadMemoryConfig();
  const plan = planFor("admin", cfg);
  const problem = permissionProblem("mneme admin", plan);
  if (problem) {
    console.error(problem);
    Deno.exit(1);
  }
  const server = await startAdminServer(cfg);
  const info = server.service.embedderInfo;
  console.log(`mneme admin listening on ${server.url}`);
  console.log(
    `database: ${server.service.store.kind}${
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
