/**
 * The two backends of the MCP server, behind one {@link MemoryService}:
 *
 * - direct: `DATABASE_URL` set → connect to Postgres, enable pgvector, migrate, probe the
 *   embedder and check the dimension (`openMemoryService(cfg, { strict: true })`: a server
 *   whose stored vectors come from another embedder refuses to start), and run the hourly
 *   TTL cleanup in the background. The database modules are loaded with a dynamic
 *   `import()` so that API mode never loads them.
 * - api: otherwise → the Admin API at `MEMORY_API_URL` (with `ADMIN_API_KEY`), because the
 *   embedded database has one owner (the admin daemon). A fast probe of `/healthz` (at most
 *   {@link PROBE_TIMEOUT_MS}) sorts out what cannot work (something else answers there, a
 *   wrong key: the server exits with a message saying what to set) from a service that is
 *   down or still starting: then the server serves anyway, every call is an HTTP request of
 *   its own, so the tools answer with an error naming the fix while the service is down
 *   (or goes away later) and work again as soon as it is back, without a reconnect.
 * @module
 */
import type { MemoryConfig } from "../config.ts";
import { MemoryClient } from "../memory/client.ts";
import { describeError } from "../common/errors.ts";
import type { Health, MemoryService } from "../memory/types.ts";
import { VERSION } from "../version.ts";

/** How long the Admin API may take to answer the startup probe. */
export const PROBE_TIMEOUT_MS = 1500;

/** How long to wait for a daemon that answers "starting" (it is alive, just not ready). */
export const STARTING_WAIT_MS = 15_000;

/** Pool size of the direct backend: one agent's calls are sequential (see docs/mcp.md). */
export const DIRECT_POOL_SIZE = 1;

/** A startup failure with a message for the user (printed as is, exit 1). */
export class BackendError extends Error {
  /** Create the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BackendError";
  }
}

/** An open backend. */
export interface Backend {
  /** `direct` (Postgres from DATABASE_URL) or `api` (Admin API). */
  mode: "direct" | "api";
  /** The service the tools call. */
  service: MemoryService;
  /** One line for the log, without secrets. */
  description: string;
  /** Stop the cleanup and release connections. */
  close(): Promise<void>;
}

/** Options of {@link openBackend}. */
export interface BackendOptions {
  /** Log sink (stderr). */
  log?: (line: string) => void;
  /** Probe timeout override (tests). */
  probeTimeoutMs?: number;
}

const HOW_TO =
  "the MCP server needs a memory backend: start the memory service (`memcli start` or " +
  "`deno task start`) and set MEMORY_API_URL if it does not listen on " +
  "http://127.0.0.1:4200, or set DATABASE_URL to a Postgres database with pgvector to " +
  "connect directly";

/** Open the backend the configuration selects, or throw a {@link BackendError}. */
export function openBackend(cfg: MemoryConfig, opts: BackendOptions = {}): Promise<Backend> {
  return cfg.databaseUrl ? openDirect(cfg, opts) : openApi(cfg, opts);
}

async function openDirect(cfg: MemoryConfig, opts: BackendOptions): Promise<Backend> {
  const log = opts.log ?? ((l: string) => console.error(l));
  const [{ openMemoryService }, { scheduleCleanup }] = await Promise.all([
    import("../memory/open.ts"),
    import("../memory/cleanup.ts"),
  ]);
  let service;
  try {
    service = await openMemoryService(cfg, { strict: true, maxConnections: DIRECT_POOL_SIZE });
  } catch (err) {
    throw new BackendError(describeError(err), { cause: err });
  }
  const stopCleanup = scheduleCleanup(service.maintenance(), { log });
  const url = new URL(cfg.databaseUrl!);
  const e = service.embedderInfo;
  return {
    mode: "direct",
    service,
    description: `direct Postgres at ${url.hostname}:${url.port || 5432}${url.pathname}; ` +
      `embedder ${e.provider}/${e.model} (${e.dimension} dimensions); hourly TTL cleanup on`,
    async close() {
      stopCleanup();
      await service.close();
    },
  };
}

async function fetchWithin(url: string, init: RequestInit, ms: number): Promise<Response> {
  return await fetch(url, { ...init, signal: AbortSignal.timeout(Math.max(ms, 1)) });
}

async function openApi(cfg: MemoryConfig, opts: BackendOptions): Promise<Backend> {
  const log = opts.log ?? ((l: string) => console.error(l));
  const base = cfg.memoryApiUrl;
  const timeout = opts.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
  const headers: Record<string, string> = { accept: "application/json" };
  if (cfg.adminApiKey) headers.authorization = `Bearer ${cfg.adminApiKey}`;

  // 1. /healthz: is a Mneme Admin API there? A refused connection fails at once; a daemon
  // that answers "starting" is alive, so it gets a little longer.
  const startedWaiting = Date.now();
  let health: Health | undefined;
  const service = new MemoryClient({ baseUrl: base, apiKey: cfg.adminApiKey });
  const waiting = (why: string): Backend => {
    // Down (or starting): serve anyway; each tool call says so until the service answers.
    log(
      `mneme mcp: warning: the Admin API at ${base} (MEMORY_API_URL) does not answer yet: ` +
        `${why}; the tools report it until it does (${HOW_TO})`,
    );
    return {
      mode: "api",
      service,
      description: `Admin API at ${base}${cfg.adminApiKey ? " (with API key)" : ""}, ` +
        "not answering yet",
      close: () => service.close(),
    };
  };
  for (;;) {
    let res: Response;
    try {
      res = await fetchWithin(`${base}/healthz`, { headers }, timeout);
    } catch (err) {
      return waiting(
        err instanceof DOMException && err.name === "TimeoutError"
          ? `no answer within ${timeout} ms`
          : describeError(err),
      );
    }
    const body = await res.json().catch(() => null) as Record<string, unknown> | null;
    if (body && typeof body.status === "string" && typeof body.version === "string") {
      health = body as unknown as Health;
      break;
    }
    // A keyless caller from another machine gets `{status}` only: the key check below says
    // what is wrong.
    if (body && typeof body.status === "string" && Object.keys(body).length === 1) break;
    if (res.status === 503 && body?.error === "starting") {
      if (Date.now() - startedWaiting > STARTING_WAIT_MS) {
        return waiting(`still starting after ${STARTING_WAIT_MS / 1000} s`);
      }
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    throw new BackendError(
      `${base}/healthz answered ${res.status} without Mneme health data: MEMORY_API_URL ` +
        `does not point at a Mneme Admin API; ${HOW_TO}`,
    );
  }

  // 2. A request under /api checks the key, so that a wrong ADMIN_API_KEY is reported now
  // and not as a failure of every tool call.
  try {
    const res = await fetchWithin(`${base}/api/stats`, { headers }, timeout);
    const body = await res.json().catch(() => null) as { error?: unknown } | null;
    if (res.status === 401) {
      throw new BackendError(
        `the Admin API at ${base} refused the request: ${
          typeof body?.error === "string" ? body.error : "401"
        }; set ADMIN_API_KEY to the key the admin daemon was started with`,
      );
    }
  } catch (err) {
    if (err instanceof BackendError) throw err;
    return waiting(`/api/stats: ${describeError(err)}`);
  }

  if (health && health.status !== "ok") {
    log(
      `mneme mcp: warning: the Admin API reports status ${health.status}${
        health.maintenance ? ` (${health.maintenance.reason})` : ""
      }${health.database?.error ? ` (database: ${health.database.error})` : ""}${
        health.embedder?.error ? ` (embedder: ${health.embedder.error})` : ""
      }; tools will report the errors`,
    );
  }
  if (health && health.version !== VERSION) {
    log(`mneme mcp: note: the Admin API runs version ${health.version}, this is ${VERSION}`);
  }
  return {
    mode: "api",
    service,
    description: `Admin API at ${base}${cfg.adminApiKey ? " (with API key)" : ""}`,
    close: () => service.close(),
  };
}
