/**
 * Runs the admin daemon: binds the port first (so a port in use fails at once), answers
 * 503 while the database and embedder start, then serves the Admin API and web UI,
 * schedules the hourly TTL cleanup and shuts down cleanly on SIGINT/SIGTERM.
 * @module
 */
import type { MemoryConfig } from "../config.ts";
import { isLoopbackHost } from "../common/net.ts";
import { scheduleCleanup } from "../memory/cleanup.ts";
import { describeError } from "../common/errors.ts";
import { openMemoryService, type OpenOptions } from "../memory/open.ts";
import type { SqlMemoryService } from "../memory/service.ts";
import { createAdminApp, createStartingApp } from "./app.ts";

/** Shortest accepted ADMIN_API_KEY. */
export const MIN_API_KEY_LENGTH = 16;

/** A running admin server. */
export interface AdminServer {
  /** Base URL, e.g. http://127.0.0.1:4200. */
  url: string;
  /** Port actually bound. */
  port: number;
  /** The service (after startup). */
  service: SqlMemoryService;
  /** Stop serving and close the database. */
  close(): Promise<void>;
}

/** Refuse configurations that would expose the API without a key. */
export function checkExposure(cfg: MemoryConfig): void {
  if (cfg.adminApiKey !== undefined && cfg.adminApiKey.length < MIN_API_KEY_LENGTH) {
    throw new Error(
      `ADMIN_API_KEY is ${cfg.adminApiKey.length} characters long; use at least ` +
        `${MIN_API_KEY_LENGTH} (for example: openssl rand -hex 32)`,
    );
  }
  if (!isLoopbackHost(cfg.adminHost) && !cfg.adminApiKey) {
    throw new Error(
      `ADMIN_HOST=${cfg.adminHost} is not a loopback address and ADMIN_API_KEY is not set; ` +
        "set ADMIN_API_KEY to expose the Admin API beyond this machine, or bind to 127.0.0.1",
    );
  }
}

/** Start the admin server. Rejects (with nothing left running) when startup fails. */
export async function startAdminServer(
  cfg: MemoryConfig,
  opts: OpenOptions & { log?: (l: string) => void } = {},
): Promise<AdminServer> {
  checkExposure(cfg);
  const log = opts.log ?? ((l: string) => console.error(l));
  const loopbackOnly = isLoopbackHost(cfg.adminHost);
  const starting = createStartingApp({ loopbackOnly });
  let handler: (
    req: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ) => Response | Promise<Response> = (
    req,
    info,
  ) => starting.fetch(req, info);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      { hostname: cfg.adminHost, port: cfg.adminPort, onListen: () => {} },
      (req, info) => handler(req, info),
    );
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) {
      throw new Error(
        `port ${cfg.adminPort} on ${cfg.adminHost} is already in use; stop the other process or set ADMIN_PORT`,
      );
    }
    throw new Error(`cannot listen on ${cfg.adminHost}:${cfg.adminPort}: ${describeError(err)}`);
  }
  let service: SqlMemoryService;
  try {
    service = await openMemoryService(cfg, opts);
  } catch (err) {
    await server.shutdown();
    throw err;
  }
  const app = createAdminApp({
    service,
    apiKey: cfg.adminApiKey,
    loopbackOnly,
    log,
  });
  handler = (req, info) => app.fetch(req, info);
  const stopCleanup = scheduleCleanup(service.store, {
    log,
    now: opts.now,
    onDeleted: () => service.reclaimer.changed("ttl cleanup"),
  });
  const port = server.addr.port;
  const host = cfg.adminHost.includes(":") ? `[${cfg.adminHost}]` : cfg.adminHost;
  return {
    url: `http://${host}:${port}`,
    port,
    service,
    async close() {
      stopCleanup();
      await server.shutdown();
      await service.close();
    },
  };
}
