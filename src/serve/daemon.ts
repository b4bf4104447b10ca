/**
 * Wiring of the daemon: configuration, the shared credentials store, the one upstream client,
 * the keepalive, the handler and `Deno.serve`, plus graceful drain. {@link startDaemon} is
 * used in-process by tests; {@link runDaemon} adds signal handling for the entrypoint.
 *
 * @module
 */

import { type EnvGetter, loadMsgConfig, type MsgConfig } from "../msg/config.ts";
import { type Credentials, CredentialsError, CredentialStore } from "../msg/credentials.ts";
import { createUpstreamFetch } from "../msg/http.ts";
import { refreshAccessToken } from "../msg/oauth.ts";
import { createServeApp, type ServeApp } from "./app.ts";
import { isLoopbackHost } from "../common/net.ts";
import { formatListen, type ListenAddress, type ServeFlags } from "./flags.ts";
import {
  type Clock,
  type CredentialsPort,
  errorText,
  Keepalive,
  type Timers,
} from "./keepalive.ts";
import { errorMessage } from "../common/errors.ts";
import { watchLauncher } from "../common/launcher.ts";

/** Graceful shutdown: in-flight requests (streams included) get this long to finish. */
export const DRAIN_MS = 10_000;

/** Options of {@link startDaemon}. */
export interface DaemonOptions {
  flags: ServeFlags;
  /** Environment (default `Deno.env.get`). */
  env?: EnvGetter;
  /** Already-resolved configuration, proxy included (default: loaded from `env` and `--proxy`). */
  config?: MsgConfig;
  /** Log sink, one line per call (default stderr with a timestamp). */
  log?: (msg: string) => void;
  clock?: Clock;
  timers?: Timers;
  /** Keepalive interval and backoff overrides (tests). */
  tickMs?: number;
  backoffMs?: readonly number[];
  drainMs?: number;
  dialTimeoutMs?: number;
  /** A request body must arrive in full within this long (ms; default 10 s), else 408. */
  bodyTimeoutMs?: number;
}

/** A running daemon. */
export interface DaemonHandle {
  /** `http://host:port` the daemon listens on (the real port when 0 was asked). */
  url: string;
  addr: ListenAddress;
  config: MsgConfig;
  app: ServeApp;
  keepalive: Keepalive<Credentials>;
  /** Stops accepting, drains up to `drainMs`, aborts what is left, stops the keepalive. */
  shutdown(): Promise<void>;
  /** Resolves once the daemon has fully stopped. */
  finished: Promise<void>;
}

function defaultLog(msg: string): void {
  console.error(`${new Date().toISOString()} msgcli serve: ${msg}`);
}

function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let id: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    id = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(id) };
}

/**
 * The keepalive's view of the shared credentials file: a missing file reads as none, and a
 * refresh goes through the daemon's one upstream client.
 */
function credentialsPort(
  config: MsgConfig,
  clock: Clock,
  upstreamFetch: typeof fetch,
): CredentialsPort<Credentials> {
  const store = new CredentialStore(config.credentialsPath);
  return {
    async read() {
      try {
        return await store.read();
      } catch (err) {
        if (err instanceof CredentialsError && err.code === "missing") return null;
        throw err;
      }
    },
    ensureFresh: ({ marginMs, force, rejectedAccessToken }) =>
      store.ensureFresh({
        marginMs,
        now: () => clock.now(),
        refresh: (rt) => refreshAccessToken(config, upstreamFetch, rt),
        ...(force !== undefined ? { force } : {}),
        ...(rejectedAccessToken !== undefined ? { rejectedAccessToken } : {}),
      }),
  };
}

/** `Deno.serve` on the flags' address with the app (each request logged in debug mode). */
function listen(
  listenAt: ListenAddress,
  app: ServeApp,
  debug: boolean,
  log: (msg: string) => void,
): Deno.HttpServer<Deno.NetAddr> {
  // The runtime's server (hyper): it refuses malformed framing itself (400, or the
  // connection closed before any handler runs); the app reads bodies with its own size
  // limit and deadline (common/body.ts). Responses stream as long as they need.
  return Deno.serve({
    hostname: listenAt.hostname,
    port: listenAt.port,
    onListen: () => {},
    onError: (err) => {
      log(`internal error: ${errorMessage(err)}`);
      return new Response(
        JSON.stringify({
          type: "error",
          error: { type: "api_error", message: "internal error" },
        }),
        { status: 500, headers: { "content-type": "application/json" } },
      );
    },
  }, debug ? logged(app, log) : app.fetch);
}

/** What a shutdown stops, in its order. */
interface Running {
  server: Deno.HttpServer<Deno.NetAddr>;
  app: ServeApp;
  keepalive: Keepalive<Credentials>;
  upstream: { close(): void };
  drainMs: number;
  log: (msg: string) => void;
}

/**
 * Stops accepting, waits up to `drainMs` for the in-flight requests, aborts what is left (and
 * waits a bounded second more for their connections), then stops the keepalive and the
 * upstream client.
 */
async function drainAndStop(r: Running): Promise<void> {
  const { app, log, drainMs } = r;
  log(`shutting down: draining ${app.inflight} in-flight request(s) for up to ${drainMs} ms`);
  const done = r.server.shutdown();
  const timer = delay(drainMs);
  const drained = await Promise.race([done.then(() => true), timer.promise.then(() => false)]);
  timer.cancel();
  if (!drained) {
    log(`drain deadline reached; aborting ${app.inflight} request(s)`);
    app.abortAll();
    // Aborting ends every proxied response body, so the connections close; the wait is
    // bounded all the same (`server.shutdown()` cannot be forced once started).
    const grace = delay(1000);
    const closed = await Promise.race([done.then(() => true), grace.promise.then(() => false)]);
    grace.cancel();
    if (!closed) log("connections still open after the drain deadline; stopping anyway");
  }
  await r.keepalive.stop();
  r.upstream.close();
  log("stopped");
}

/** Starts the daemon and resolves once it listens. */
export async function startDaemon(opts: DaemonOptions): Promise<DaemonHandle> {
  const env = opts.env ?? ((name: string) => Deno.env.get(name));
  const log = opts.log ?? defaultLog;
  const flags = opts.flags;
  const config = opts.config ?? loadMsgConfig(env, flags.proxyFlag);
  const debug = flags.debug || config.debug;
  const clock = opts.clock ?? { now: () => Date.now() };

  const upstream = createUpstreamFetch({
    ...(config.proxy !== undefined ? { proxy: config.proxy } : {}),
    ...(opts.dialTimeoutMs !== undefined ? { dialTimeoutMs: opts.dialTimeoutMs } : {}),
    debug,
    log,
  });
  const keepalive = new Keepalive<Credentials>({
    source: credentialsPort(config, clock, upstream.fetch),
    marginMs: flags.refreshMarginMs,
    clock,
    log,
    ...(opts.timers !== undefined ? { timers: opts.timers } : {}),
    ...(opts.tickMs !== undefined ? { tickMs: opts.tickMs } : {}),
    ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
  });
  const startedAt = clock.now();
  const app = createServeApp({
    apiBaseUrl: config.apiBaseUrl,
    upstreamFetch: upstream.fetch,
    tokens: keepalive,
    loopbackOnly: isLoopbackHost(flags.listen.hostname),
    startedAt,
    now: () => clock.now(),
    log,
    ...(flags.authKey !== undefined ? { authKey: flags.authKey } : {}),
    ...(opts.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: opts.bodyTimeoutMs } : {}),
  });

  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = listen(flags.listen, app, debug, log);
  } catch (err) {
    upstream.close();
    throw new Error(`cannot listen on ${formatListen(flags.listen)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const addr: ListenAddress = { hostname: server.addr.hostname, port: server.addr.port };
  const hostForUrl = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const url = `http://${hostForUrl}:${addr.port}`;
  await keepalive.start();
  log(
    `listening on ${url}; upstream ${config.apiBaseUrl}${
      config.proxy !== undefined ? " via proxy" : ""
    }; ${flags.authKey !== undefined ? "auth key required" : "no auth key (loopback only)"}`,
  );

  let resolveFinished!: () => void;
  const finished = new Promise<void>((r) => (resolveFinished = r));
  let shuttingDown: Promise<void> | null = null;
  const running: Running = {
    server,
    app,
    keepalive,
    upstream,
    drainMs: opts.drainMs ?? DRAIN_MS,
    log,
  };
  function shutdown(): Promise<void> {
    shuttingDown ??= drainAndStop(running).then(resolveFinished);
    return shuttingDown;
  }

  return { url, addr, config, app, keepalive, shutdown, finished };
}

function logged(app: ServeApp, log: (msg: string) => void): (req: Request) => Promise<Response> {
  return async (req) => {
    const t0 = performance.now();
    const res = await app.fetch(req);
    log(
      `${req.method} ${new URL(req.url).pathname} -> ${res.status} (${
        (performance.now() - t0).toFixed(1)
      } ms to headers)`,
    );
    return res;
  };
}

/**
 * Runs the daemon until SIGINT or SIGTERM, then drains (up to 10 s) and resolves with 0.
 * Further signals during the drain are ignored (the drain is bounded anyway).
 */
export async function runDaemon(opts: DaemonOptions): Promise<number> {
  const log = opts.log ?? defaultLog;
  // The daemon must never die: a stray rejection or error is logged, not fatal.
  const onRejection = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    log(`unhandled rejection (ignored): ${errorText(e.reason)}`);
  };
  const onError = (e: ErrorEvent) => {
    e.preventDefault();
    log(`uncaught error (ignored): ${errorText(e.error ?? e.message)}`);
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  globalThis.addEventListener("error", onError);
  let handle: DaemonHandle;
  try {
    handle = await startDaemon({ ...opts, log });
  } catch (err) {
    globalThis.removeEventListener("unhandledrejection", onRejection);
    globalThis.removeEventListener("error", onError);
    throw err;
  }
  const signals: Deno.Signal[] = Deno.build.os === "windows"
    ? ["SIGINT", "SIGBREAK"]
    : ["SIGINT", "SIGTERM"];
  const onSignal = () => void handle.shutdown();
  for (const s of signals) Deno.addSignalListener(s, onSignal);
  const unwatch = watchLauncher(() => {
    log("the launcher that started it is gone; shutting down");
    onSignal();
  });
  await handle.finished;
  unwatch();
  for (const s of signals) Deno.removeSignalListener(s, onSignal);
  globalThis.removeEventListener("unhandledrejection", onRejection);
  globalThis.removeEventListener("error", onError);
  return 0;
}
