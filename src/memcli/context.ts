/**
 * Shared plumbing of the `memcli` commands: configuration, the data directory layout,
 * where the Admin API is, and the HTTP client. Nothing here opens a database or an
 * embedder; everything goes through the Admin API.
 * @module
 */
import { join, resolve } from "node:path";
import { clientUrl } from "../common/net.ts";
import { loadMemoryConfig, type MemoryConfig } from "../config.ts";
import { MemoryClient } from "../memory/client.ts";
import type { Io } from "./io.ts";

/** Files and folders under DATA_DIR. */
export interface Layout {
  /** DATA_DIR, absolute. */
  dataDir: string;
  /** Embedded database files. */
  db: string;
  /** Embedding model files. */
  models: string;
  /** Pid and state files. */
  run: string;
  /** Log files. */
  logs: string;
  /** `run/admin.pid`: the daemon's pid. */
  pidFile: string;
  /** `run/admin.json`: pid, URL, start time and settings of the daemon. */
  stateFile: string;
  /** `logs/admin.log`: the daemon's stdout and stderr. */
  logFile: string;
}

/** The layout of a data directory. */
export function layoutOf(dataDir: string): Layout {
  const run = join(dataDir, "run");
  const logs = join(dataDir, "logs");
  return {
    dataDir,
    db: join(dataDir, "db"),
    models: join(dataDir, "models"),
    run,
    logs,
    pidFile: join(run, "admin.pid"),
    stateFile: join(run, "admin.json"),
    logFile: join(logs, "admin.log"),
  };
}

/** What `run/admin.json` holds. */
export interface DaemonState {
  /** Daemon pid. */
  pid: number;
  /** Base URL clients use. */
  url: string;
  /** Listen port. */
  port: number;
  /** ISO time the daemon was started. */
  started_at: string;
  /** `pglite` (DATA_DIR/db) or `postgres` (DATABASE_URL). */
  database: "pglite" | "postgres";
  /** The log file. */
  log_file: string;
}

/** Configuration from the environment, with DATA_DIR made absolute. */
export function configOf(io: Io): MemoryConfig {
  const cfg = loadMemoryConfig((n) => io.env(n));
  return { ...cfg, dataDir: resolve(io.cwd(), cfg.dataDir) };
}

/** Read `run/admin.json`, or null when absent or unreadable. */
export async function readState(layout: Layout): Promise<DaemonState | null> {
  try {
    const s = JSON.parse(await Deno.readTextFile(layout.stateFile));
    if (s && typeof s === "object" && typeof s.url === "string") return s as DaemonState;
  } catch { /* absent or damaged */ }
  return null;
}

/**
 * Where the Admin API is: `MEMORY_API_URL` when set, else the URL of the daemon `memcli
 * start` (or `connect`, `setup`) started for this DATA_DIR, else where a service of this configuration listens
 * (`ADMIN_HOST`:`ADMIN_PORT`, a wildcard host at loopback; by default `http://127.0.0.1:4200`).
 */
export async function apiUrlOf(
  io: Io,
  cfg: MemoryConfig,
): Promise<{ url: string; source: "env" | "setup" | "default" }> {
  if (io.env("MEMORY_API_URL")?.trim()) return { url: cfg.memoryApiUrl, source: "env" };
  const state = await readState(layoutOf(cfg.dataDir));
  if (state) return { url: state.url, source: "setup" };
  // ADMIN_PORT=0 (any free port) leaves nothing to guess: the default URL.
  const url = cfg.adminPort === 0 ? cfg.memoryApiUrl : clientUrl(cfg.adminHost, cfg.adminPort);
  return { url, source: "default" };
}

/** A client of the Admin API (ADMIN_API_KEY sent when set). */
export function clientOf(cfg: MemoryConfig, url: string, timeoutMs?: number): MemoryClient {
  return new MemoryClient({ baseUrl: url, apiKey: cfg.adminApiKey, timeoutMs });
}
