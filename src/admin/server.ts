/**
 * Runs the admin daemon: binds the port first (so a port in use fails at once), answers
 * 503 while the database and embedder start, then serves the Admin API and web UI,
 * schedules the hourly TTL cleanup and shuts down cleanly on SIGINT/SIGTERM.
 * @module
 */
import { IdleCollector } from "../common/gc.ts";
import { type MemoryConfig, SERVICE_OWNER } from "../config.ts";
import { clientUrl, isLoopbackHost } from "../common/net.ts";
import { scheduleCleanup } from "../memory/cleanup.ts";
import { describeError } from "../common/errors.ts";
import { openMemoryService, type OpenOptions } from "../memory/open.ts";
import type { SqlMemoryService } from "../memory/service.ts";
import { createAdminApp, createStartingApp } from "./app.ts";
import { join } from "node:path";
import { claimOwner, type OwnerClaim } from "../common/owner.ts";
import { safeEnv } from "../common/env.ts";
import { TASK_VAR } from "../common/launcher.ts";
import { VERSION } from "../version.ts";
import {
  captureTranscriptsDir,
  checkExpansion,
  checkRecallJudge,
  DEFAULT_EXPANSION_DAILY_TOKENS,
  DEFAULT_RECALL_JUDGE_DAILY_TOKENS,
  DEFAULT_RECALL_JUDGE_POOL,
  DEFAULT_RECALL_JUDGE_POOL_FLOOR,
  DEFAULT_RECALL_JUDGE_TIMEOUT_MS,
} from "../config.ts";
import { RecallJudge } from "../memory/judge.ts";
import { ExpansionWorker, type ExpansionWorkerOptions } from "../memory/expansion.ts";
import { captureModelCall } from "../capture/config.ts";
import { Inbox } from "../memory/inbox.ts";
import {
  captureAutoAccept,
  captureMinConfidence,
  type CaptureModelConfig,
  captureModelConfig,
} from "../capture/settings.ts";
import { startCapture } from "../capture/service.ts";
import { resolve } from "node:path";

/**
 * Claim DATA_DIR for this service (the embedded database has one owner): throws, naming the
 * process that runs it, its URL and how to stop it, when another service holds it.
 */
export function claimDataDir(dataDir: string): OwnerClaim {
  const got = claimOwner(join(dataDir, SERVICE_OWNER.dir), SERVICE_OWNER.name);
  if ("claim" in got) return got.claim;
  const o = got.owner;
  const who = o.pid ? `pid ${o.pid}${o.url ? `, ${o.url}` : ", starting"}` : "starting";
  throw new Error(
    `the memory service for ${dataDir} already runs (${who}): one data directory has one ` +
      `service. Use that one${o.url ? ` (web UI and Admin API at ${o.url})` : ""}, or stop ` +
      `it first with 'memcli stop'${o.pid ? ` (or kill ${o.pid})` : ""}`,
  );
}

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
  /** The expansion worker (`MEMORY_EXPANSION=on`), or null. */
  expansion: ExpansionWorker | null;
  /** The judge of the prompt hook's candidates (`RECALL_JUDGE=on`), or null. */
  judge: RecallJudge | null;
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

/** How often the expansion worker looks for memories other processes wrote (server Postgres). */
const EXPANSION_POLL_MS = 600_000;

/**
 * The expansion worker (`MEMORY_EXPANSION`, src/memory/expansion.ts) on capture's model client,
 * started now and told of every write; null when expansion is off.
 */
function startExpansion(
  service: SqlMemoryService,
  cfg: MemoryConfig,
  model: CaptureModelConfig,
  log: (line: string) => void,
  extra: Partial<Omit<ExpansionWorkerOptions, "target" | "call" | "model">> = {},
): { worker: ExpansionWorker; close(): Promise<void> } | null {
  if (!cfg.expansion) return null;
  const made = captureModelCall(model, safeEnv);
  if (!made) return null; // checkExpansion refused this configuration already
  const dailyTokens = cfg.expansionDailyTokens ?? DEFAULT_EXPANSION_DAILY_TOKENS;
  const worker: ExpansionWorker = new ExpansionWorker({
    target: service.expansionTarget(() => worker.report()),
    call: made.call,
    model: `${model.provider}/${model.model}`,
    dailyTokens,
    log,
    ...extra,
  });
  const off = service.onWrite(() => worker.written());
  // On server Postgres other processes write too (the MCP server in direct mode, a second
  // daemon): a look every ten minutes. The embedded database has this daemon as its only
  // writer, and a look would keep it from closing when idle (DATABASE_IDLE_UNLOAD_S).
  const poll = cfg.databaseUrl ? setInterval(() => worker.written(), EXPANSION_POLL_MS) : undefined;
  log(
    `expansion: on (${model.provider}/${model.model}, at most ${dailyTokens} tokens a day)`,
  );
  worker.start();
  return {
    worker,
    async close() {
      off();
      clearInterval(poll);
      await worker.close();
      made.close();
    },
  };
}

/**
 * The judge of the prompt hook's candidates (`RECALL_JUDGE`, src/memory/judge.ts) on capture's
 * model client; null when the judge is off.
 */
function startJudge(
  service: SqlMemoryService,
  cfg: MemoryConfig,
  model: CaptureModelConfig,
  log: (line: string) => void,
): { judge: RecallJudge; close(): Promise<void> } | null {
  if (!cfg.recallJudge) return null;
  const made = captureModelCall(model, safeEnv);
  if (!made) return null; // checkRecallJudge refused this configuration already
  const timeoutMs = cfg.recallJudgeTimeoutMs ?? DEFAULT_RECALL_JUDGE_TIMEOUT_MS;
  const dailyTokens = cfg.recallJudgeDailyTokens ?? DEFAULT_RECALL_JUDGE_DAILY_TOKENS;
  const pool = {
    limit: cfg.recallJudgePool ?? DEFAULT_RECALL_JUDGE_POOL,
    floor: cfg.recallJudgePoolFloor ?? DEFAULT_RECALL_JUDGE_POOL_FLOOR,
  };
  const judge = new RecallJudge({
    call: made.call,
    model: `${model.provider}/${model.model}`,
    timeoutMs,
    dailyTokens,
    budget: service.judgeBudget(),
    log,
    pool,
  });
  log(
    `judge: on (${model.provider}/${model.model}, ${timeoutMs} ms a call, at most ` +
      `${dailyTokens} tokens a day; the first ${pool.limit} results with confidence ≥ ` +
      `${pool.floor})`,
  );
  return {
    judge,
    async close() {
      judge.close();
      // The usage corrections in flight land before the database closes.
      await judge.settled();
      made.close();
    },
  };
}

/** Start the admin server. Rejects (with nothing left running) when startup fails. */
export async function startAdminServer(
  cfg: MemoryConfig,
  opts: OpenOptions & {
    log?: (l: string) => void;
    /** Claude Code's transcripts folder (default: CAPTURE_TRANSCRIPTS_DIR or its default). */
    transcriptsDir?: string;
    /** The expansion worker's options beyond the configuration (tests: short waits). */
    expansionCall?: Partial<Omit<ExpansionWorkerOptions, "target" | "call" | "model">>;
  } = {},
): Promise<AdminServer> {
  checkExposure(cfg);
  // Capture's settings: a bad one stops the start, naming its variable.
  const captureModel = captureModelConfig(safeEnv);
  const autoAccept = captureAutoAccept(safeEnv);
  const minConfidence = captureMinConfidence(safeEnv);
  const transcriptsDir = resolve(opts.transcriptsDir ?? captureTranscriptsDir(safeEnv));
  // Memory expansion uses capture's model path: on without it, the start fails naming both.
  checkExpansion(cfg, captureModel.provider);
  checkRecallJudge(cfg, captureModel.provider);
  // The embedded database has one owner: claimed before the port, so that a second service
  // on this DATA_DIR says who runs it (a server Postgres may have several services).
  const claim = cfg.databaseUrl ? null : claimDataDir(cfg.dataDir);
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
    // The runtime's server (hyper): it refuses malformed framing itself (400, or the
    // connection closed before any handler runs); the app reads bodies with its own size
    // limits and deadline (common/body.ts). Off loopback, a reverse proxy in front sets the
    // header timeout and connection limits (docs/server-postgres.md).
    server = Deno.serve(
      {
        hostname: cfg.adminHost,
        port: cfg.adminPort,
        onListen: () => {},
        onError: (err) => {
          log(`admin: internal error: ${describeError(err)}`);
          return Response.json({ error: "internal server error" }, { status: 500 });
        },
      },
      (req, info) => handler(req, info),
    );
  } catch (err) {
    await claim?.release();
    if (err instanceof Deno.errors.AddrInUse) {
      throw new Error(
        `port ${cfg.adminPort} on ${cfg.adminHost} is already in use; stop the other process or set ADMIN_PORT`,
      );
    }
    throw new Error(`cannot listen on ${cfg.adminHost}:${cfg.adminPort}: ${describeError(err)}`);
  }
  let service: SqlMemoryService;
  try {
    // Recorded as soon as it listens: a second service finds it while it starts.
    await claim?.record({
      url: clientUrl(cfg.adminHost, server.addr.port),
      main: Deno.mainModule,
      version: VERSION,
      ...(safeEnv(TASK_VAR) === "1" ? { task: true } : {}),
    });
    service = await openMemoryService(cfg, opts);
  } catch (err) {
    await server.shutdown();
    await claim?.release();
    throw err;
  }
  const inbox = new Inbox(service, service.proposals());
  const capture = startCapture(inbox, captureModel, safeEnv, log, autoAccept, minConfidence);
  const expansion = startExpansion(service, cfg, captureModel, log, opts.expansionCall);
  const judge = startJudge(service, cfg, captureModel, log);
  const app = createAdminApp({
    service,
    backup: () => service.backup(),
    apiKey: cfg.adminApiKey,
    loopbackOnly,
    log,
    capture: capture.queue,
    transcriptsDir,
    inbox,
    expansions: service,
    ...(judge ? { judge: judge.judge } : {}),
  });
  // Once quiet after requests, V8 gives back the garbage they left (src/common/gc.ts).
  const idle = new IdleCollector();
  handler = async (req, info) => {
    idle.begin();
    try {
      return await app.fetch(req, info);
    } finally {
      idle.end();
    }
  };
  const stopCleanup = scheduleCleanup(service.maintenance(), {
    log,
    now: opts.now,
    onDeleted: () => service.reclaimer.changed("ttl cleanup"),
  });
  const port = server.addr.port;
  const host = cfg.adminHost.includes(":") ? `[${cfg.adminHost}]` : cfg.adminHost;
  const url = `http://${host}:${port}`;
  return {
    url,
    port,
    service,
    expansion: expansion?.worker ?? null,
    judge: judge?.judge ?? null,
    async close() {
      stopCleanup();
      idle.stop();
      await server.shutdown();
      await capture.close();
      await expansion?.close();
      await judge?.close();
      await service.close();
      await claim?.release();
    },
  };
}
