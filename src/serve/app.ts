/**
 * The daemon's HTTP handler: a plain `fetch`-style function (no framework: four routes and a
 * byte-for-byte streaming pass-through, where every microsecond of added latency counts).
 * Tests call `app.fetch(new Request(...))` without a port, and through `Deno.serve`.
 *
 * Routes: `POST /v1/messages`, `POST /v1/messages/count_tokens` (the pass-through, in
 * proxy.ts), `GET /healthz`, `GET /usage`. This file holds the routing and the checks every
 * request passes first (request target, `Host`, daemon key), and the two small routes.
 *
 * @module
 */

import { isAuthorized, UNAUTHORIZED_MESSAGE } from "./auth.ts";
import { apiError } from "./errors.ts";
import { isLoopbackHost } from "../common/net.ts";
import { targetProblem } from "../common/body.ts";
import type { UsageWindows } from "../msg/ratelimit.ts";
import { healthResponse, UsageCache } from "./health.ts";
import { errorText } from "./keepalive.ts";
import {
  BODY_TIMEOUT_MS,
  HttpError,
  MAX_BODY_BYTES,
  type ProxyContext,
  proxyMessages,
  type TokenProvider,
} from "./proxy.ts";

/** Dependencies of {@link createServeApp}. */
export interface ServeAppDeps {
  /** Messages API base URL without trailing slash. */
  apiBaseUrl: string;
  /** The one reused upstream client's fetch. */
  upstreamFetch: typeof fetch;
  tokens: TokenProvider;
  /** Daemon key; undefined means none required. */
  authKey?: string;
  /**
   * When true (loopback listener), the `Host` header must name a loopback host, so that a
   * web page cannot reach the daemon through DNS rebinding.
   */
  loopbackOnly: boolean;
  /** Epoch ms the daemon started. */
  startedAt: number;
  now?: () => number;
  /** `metadata.user_id` for requests that carry none. */
  userId?: string;
  maxBodyBytes?: number;
  /** A request body must arrive in full within this long (ms; default {@link BODY_TIMEOUT_MS}). */
  bodyTimeoutMs?: number;
  log?: (msg: string) => void;
}

/** The handler plus in-flight bookkeeping for graceful drain. */
export interface ServeApp {
  fetch(req: Request): Promise<Response>;
  /** Proxied requests whose response has not finished (streams included). */
  readonly inflight: number;
  /** Aborts every in-flight upstream request (after the drain deadline). */
  abortAll(reason?: string): void;
  /** The `/usage` cache. */
  readonly usage: UsageCache<UsageWindows>;
}

function hostOf(hostHeader: string): string {
  const h = hostHeader.trim();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const i = h.lastIndexOf(":");
  return i >= 0 ? h.slice(0, i) : h;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

function methodNotAllowed(allow: string): Response {
  return apiError(405, "invalid_request_error", `method not allowed (use ${allow})`, {
    allow,
  });
}

/** The refusal of a request whose target or `Host` the daemon does not accept, else null. */
function targetRefusal(req: Request, loopbackOnly: boolean): Response | null {
  // Never normalised into another path (a proxy in front checked the one sent).
  const problem = targetProblem(req.url);
  if (problem !== null) {
    return apiError(400, "invalid_request_error", `request target ${problem}`);
  }
  if (loopbackOnly) {
    const host = req.headers.get("host");
    if (host !== null && !isLoopbackHost(hostOf(host))) {
      return apiError(403, "permission_error", "Host header must name a loopback address");
    }
  }
  return null;
}

/** `GET /healthz`, answered without the daemon key: the token state as the keepalive sees it. */
async function health(req: Request, deps: ServeAppDeps, now: () => number): Promise<Response> {
  if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET");
  let snap = deps.tokens.snapshot();
  if (snap.expiresAt === null && deps.tokens.reload) {
    // Logged in since the last tick: report the file as it is now.
    await deps.tokens.reload();
    snap = deps.tokens.snapshot();
  }
  const h = healthResponse(snap, deps.startedAt, now());
  return json(h.status, h.body);
}

/** `GET /usage`: the rate-limit windows of the last proxied response. */
function usageRoute(req: Request, usage: UsageCache<UsageWindows>): Response {
  if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET");
  const cached = usage.get();
  if (cached === null) {
    return apiError(
      404,
      "not_found_error",
      "no usage seen yet: the cache fills from the rate-limit headers of the first proxied request",
    );
  }
  return json(200, { seen_at: new Date(cached.seenAt).toISOString(), ...cached.windows });
}

/** Creates the daemon's handler. */
export function createServeApp(deps: ServeAppDeps): ServeApp {
  const ctx: ProxyContext = {
    apiBaseUrl: deps.apiBaseUrl,
    upstreamFetch: deps.upstreamFetch,
    tokens: deps.tokens,
    ...(deps.userId !== undefined ? { userId: deps.userId } : {}),
    limit: deps.maxBodyBytes ?? MAX_BODY_BYTES,
    bodyTimeoutMs: deps.bodyTimeoutMs ?? BODY_TIMEOUT_MS,
    now: deps.now ?? Date.now,
    log: deps.log ?? (() => {}),
    usage: new UsageCache<UsageWindows>(),
    controllers: new Set<AbortController>(),
  };

  async function handle(req: Request): Promise<Response> {
    const refused = targetRefusal(req, deps.loopbackOnly);
    if (refused !== null) return refused;
    const url = new URL(req.url);
    const path = url.pathname;
    if (path === "/healthz") return await health(req, deps, ctx.now);
    if (!isAuthorized(req.headers, deps.authKey)) {
      return apiError(401, "authentication_error", UNAUTHORIZED_MESSAGE, {
        "www-authenticate": 'Bearer realm="msgcli serve"',
      });
    }
    if (path === "/usage") return usageRoute(req, ctx.usage);
    if (path === "/v1/messages" || path === "/v1/messages/count_tokens") {
      if (req.method !== "POST") return methodNotAllowed("POST");
      const kind = path === "/v1/messages" ? "messages" : "count_tokens";
      return await proxyMessages(ctx, req, kind, url.search);
    }
    return apiError(404, "not_found_error", `no route for ${req.method} ${path}`);
  }

  return {
    async fetch(req: Request): Promise<Response> {
      try {
        return await handle(req);
      } catch (err) {
        if (err instanceof HttpError) return err.response;
        ctx.log(`internal error: ${errorText(err)}`);
        return apiError(500, "api_error", `msgcli serve internal error: ${errorText(err)}`);
      }
    },
    get inflight() {
      return ctx.controllers.size;
    },
    abortAll(reason = "daemon shutting down") {
      for (const ac of ctx.controllers) ac.abort(new Error(reason));
    },
    usage: ctx.usage,
  };
}
