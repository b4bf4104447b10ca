/**
 * Entry point of the admin daemon: the Admin API and web UI on ADMIN_HOST:ADMIN_PORT.
 * @module
 */
import { startAdminServer } from "../admin/server.ts";
import { loadMemoryConfig } from "../config.ts";
import { describeError } from "../memory/errors.ts";

try {
  const cfg = loadMemoryConfig();
  const server = await startAdminServer(cfg);
  const info = server.service.embedderInfo;
  console.log(`mneme admin listening on ${server.url}`);
  console.log(
    `database: ${server.service.store.kind}${
      cfg.databaseUrl ? "" : ` (${cfg.dataDir}/db)`
    }; embedder: ${info.provider}/${info.model} (${info.dimension} dimensions)`,
  );
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
} catch (err) {
  console.error(`mneme admin: ${describeError(err)}`);
  Deno.exit(1);
}
