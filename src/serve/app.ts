/**
 * The daemon's HTTP handler: a plain `fetch`-style function (no framework: four routes and a
 * byte-for-byte streaming pass-through, where every microsecond of added latency counts).
 * Tests call `app.fetch(new Request(...))` without a port, and through `Deno.serve`.
 *
 * Routes: `POST /v1/messages`, `POST /v1/messages/count_tokens`, `GET /healthz`, `GET /usage`.
 *
 * @module
 */

import { prepareMessagesRequest, splitBetas, validateMessageRequest } from "../msg/prepare.ts";
import { parseUnifiedRateLimits, type UsageWindows } from "../msg/ratelimit.ts";
import { isAuthorized, UNAUTHORIZED_MESSAGE } from "./auth.ts";
import { apiError } from "./errors.ts";
import { isLoopbackHost } from "../common/net.ts";
import {
  BodyTimeout,
  BodyTooLarge,
  isDisconnect,
  readBody,
  readText,
  targetProblem,
} from "../common/body.ts";
import { healthResponse, UsageCache } from "./health.ts";
import { errorText, type KeepaliveSnapshot, NoCredentialsError } from "./keepalive.ts";

/** Largest accepted request body (the Messages API's own limit is 32 MB). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** What the handler needs from the token keepalive. */
export interface TokenProvider {
  /** A live access token (refreshing lazily); throws `NoCredentialsError` without credentials. */
  accessToken(): Promise<string>;
  /**
   * After an upstream 401 to `used`: re-read the credentials under the lock and refresh once;
   * the new token, or null when there is none. Never throws.
   */
  afterUnauthorized(used: string): Promise<string | null>;
  /** The upstream still answered 401 after that (reported by `/healthz`). */
  upstreamRejected(token: string, error: string): void;
  /** The upstream accepted `token` (clears a recorded rejection). */
  upstreamAccepted(token: string): void;
  snapshot(): KeepaliveSnapshot;
  /** Re-reads the credentials file (`/healthz` does when none are loaded). */
  reload?(): Promise<unknown>;
}

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

/**
 * Client request headers forwarded to the upstream as they are (names, lower case), on top of
 * `anthropic-beta`, which is merged with the OAuth betas. A client's `user-agent` replaces
 * the daemon's. Not forwarded: what the OAuth preparation sets itself (`authorization`,
 * `anthropic-version: 2023-06-01`, `content-type`, `accept`, `accept-encoding`), the daemon
 * key (`authorization`, `x-api-key`), cookies, `host`, `content-length` and hop-by-hop
 * headers.
 */
export const FORWARDED_HEADERS: readonly string[] = [
  "user-agent",
  "x-app",
  "idempotency-key",
  "x-claude-code-session-id",
  "x-client-request-id",
];
/**
 * Prefixes of forwarded client headers: the SDKs' `x-stainless-*` and `anthropic-*` (except
 * `anthropic-version`, set by the preparation, and `anthropic-beta`, merged).
 */
export const FORWARDED_PREFIXES: readonly string[] = ["x-stainless-", "anthropic-"];

/** Copies the forwarded client headers (see {@link FORWARDED_HEADERS}) onto `out`. */
function forwardClientHeaders(from: Headers, out: Headers): void {
  from.forEach((value, key) => {
    if (key === "anthropic-beta" || key === "anthropic-version") return;
    if (FORWARDED_HEADERS.includes(key) || FORWARDED_PREFIXES.some((p) => key.startsWith(p))) {
      out.set(key, value);
    }
  });
}

/** Hop-by-hop headers never copied from the upstream response. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

class HttpError extends Error {
  constructor(readonly response: Response) {
    super("http error");
  }
}

function hostOf(hostHeader: string): string {
  const h = hostHeader.trim();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const i = h.lastIndexOf(":");
  return i >= 0 ? h.slice(0, i) : h;
}

/** A request body must arrive in full within this long (ms), else 408. */
export const BODY_TIMEOUT_MS = 10_000;
/** Most of an upstream error body kept for a message (bytes). */
const ERROR_TEXT_LIMIT = 64 * 1024;

/**
 * The request body (common/body.ts: one growing buffer, bytes counted as they arrive): over
 * `limit` a 413, not in full within `timeoutMs` a 408, a client gone (or a body the server
 * found malformed) logged and answered 400 (which nobody may read).
 */
async function requestBody(
  req: Request,
  limit: number,
  timeoutMs: number,
  log: (msg: string) => void,
): Promise<Uint8Array> {
  try {
    return await readBody(req.body, {
      limit,
      timeoutMs,
      declaredLength: req.headers.get("content-length"),
    });
  } catch (err) {
    const where = `${req.method} ${new URL(req.url).pathname}`;
    if (err instanceof BodyTooLarge) {
      throw new HttpError(
        apiError(413, "request_too_large", `request body exceeds ${limit} bytes`),
      );
    }
    if (err instanceof BodyTimeout) {
      const message = `the request body did not arrive within ${timeoutMs / 1000} s`;
      log(`${message} during ${where}; answered 408`);
      throw new HttpError(
        apiError(408, "invalid_request_error", message, { connection: "close" }),
      );
    }
    if (isDisconnect(err)) {
      log(
        `the request body of ${where} could not be read (the client disconnected, or sent a ` +
          "malformed body)",
      );
      throw new HttpError(
        apiError(
          400,
          "invalid_request_error",
          "request body unreadable: disconnected or malformed",
        ),
      );
    }
    throw err;
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

/** Creates the daemon's handler. */
export function createServeApp(deps: ServeAppDeps): ServeApp {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? (() => {});
  const limit = deps.maxBodyBytes ?? MAX_BODY_BYTES;
  const bodyTimeoutMs = deps.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  const usage = new UsageCache<UsageWindows>();
  const controllers = new Set<AbortController>();

  async function proxy(
    req: Request,
    kind: "messages" | "count_tokens",
    search: string,
  ): Promise<Response> {
    const bytes = await requestBody(req, limit, bodyTimeoutMs, log);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes));
    } catch (err) {
      return apiError(400, "invalid_request_error", `body: invalid JSON: ${errorText(err)}`);
    }
    let request;
    try {
      request = validateMessageRequest(parsed, { kind });
    } catch (err) {
      return apiError(400, "invalid_request_error", errorText(err));
    }
    let token: string;
    try {
      token = await deps.tokens.accessToken();
    } catch (err) {
      if (err instanceof NoCredentialsError) {
        return apiError(503, "api_error", `msgcli serve: ${err.message}`);
      }
      throw err;
    }
    const clientBetas = splitBetas(req.headers.get("anthropic-beta"));
    const hadMetadata = request.metadata !== undefined;
    const build = (accessToken: string) => {
      const prepared = prepareMessagesRequest(request, {
        accessToken,
        betas: clientBetas,
        ...(deps.userId !== undefined ? { userId: deps.userId } : {}),
      });
      // count_tokens takes no metadata (the API rejects extra inputs): never add one there.
      if (kind === "count_tokens" && !hadMetadata) delete prepared.body.metadata;
      forwardClientHeaders(req.headers, prepared.headers);
      prepared.headers.set("accept-encoding", "identity");
      prepared.headers.set(
        "accept",
        request.stream === true ? "text/event-stream" : "application/json",
      );
      return { headers: prepared.headers, body: JSON.stringify(prepared.body) };
    };
    const url = `${deps.apiBaseUrl}/v1/messages${
      kind === "count_tokens" ? "/count_tokens" : ""
    }${search}`;

    const ac = new AbortController();
    const onClientAbort = () => ac.abort(new Error("client disconnected"));
    req.signal.addEventListener("abort", onClientAbort, { once: true });
    controllers.add(ac);
    let handedOff = false;
    const finish = () => {
      controllers.delete(ac);
      req.signal.removeEventListener("abort", onClientAbort);
    };
    try {
      const send = (accessToken: string) => {
        const { headers, body } = build(accessToken);
        return deps.upstreamFetch(url, { method: "POST", headers, body, signal: ac.signal });
      };
      let upstream: Response;
      try {
        upstream = await send(token);
        if (upstream.status === 401) {
          const fresh = await deps.tokens.afterUnauthorized(token);
          if (fresh !== null) {
            await upstream.body?.cancel().catch(() => {});
            token = fresh;
            upstream = await send(token);
          }
          if (upstream.status === 401) {
            const text = await readText(upstream.clone(), {
              limit: ERROR_TEXT_LIMIT,
              truncate: true,
            }).catch(() => "");
            deps.tokens.upstreamRejected(token, upstreamErrorMessage(text));
          } else if (upstream.ok) {
            deps.tokens.upstreamAccepted(token);
          }
        } else if (upstream.ok) {
          deps.tokens.upstreamAccepted(token);
        }
      } catch (err) {
        if (ac.signal.aborted) {
          return apiError(499, "api_error", "client closed the request");
        }
        log(`upstream ${kind} failed: ${errorText(err)}`);
        return apiError(502, "api_error", `upstream request failed: ${errorText(err)}`);
      }
      const windows = parseUnifiedRateLimits(upstream.headers);
      if (windows !== null) usage.put(windows, now());

      const headers = new Headers();
      upstream.headers.forEach((value, key) => {
        if (!HOP_BY_HOP.has(key)) headers.append(key, value);
      });
      const encoding = upstream.headers.get("content-encoding");
      if (encoding !== null && encoding.toLowerCase() !== "identity") {
        // fetch decoded the body already: the length and encoding no longer apply.
        headers.delete("content-encoding");
        headers.delete("content-length");
      }
      if (upstream.body === null) {
        return new Response(null, {
          status: upstream.status,
          statusText: upstream.statusText,
          headers,
        });
      }
      const reader = upstream.body.getReader();
      let closed = false;
      const close = () => {
        if (!closed) {
          closed = true;
          finish();
        }
      };
      // highWaterMark 0: one upstream read per client pull, each chunk enqueued (and so
      // written and flushed by the server) as soon as it arrives; nothing is buffered ahead.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          // An abort (drain deadline, client gone) errors the client-facing body at once, so
          // the server can close the connection whether or not a pull is pending right now;
          // relying on the aborted upstream read to surface through `pull` alone can leave the
          // response open, and then the daemon's shutdown waits on it.
          const cut = () => {
            try {
              controller.error(ac.signal.reason);
            } catch {
              // already closed or errored
            }
            reader.cancel(ac.signal.reason).catch(() => {});
            close();
          };
          if (ac.signal.aborted) cut();
          else ac.signal.addEventListener("abort", cut, { once: true });
        },
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              controller.close();
              close();
            } else {
              controller.enqueue(value);
            }
          } catch (err) {
            close();
            controller.error(err);
          }
        },
        cancel(reason) {
          // The client went away: cancel the upstream request too.
          ac.abort(reason ?? new Error("client disconnected"));
          reader.cancel(reason).catch(() => {});
          close();
        },
      }, { highWaterMark: 0 });
      handedOff = true;
      return new Response(body, {
        status: upstream.status,
        statusText: upstream.statusText,
        headers,
      });
    } finally {
      if (!handedOff) finish();
    }
  }

  async function handle(req: Request): Promise<Response> {
    // Never normalised into another path (a proxy in front checked the one sent).
    const problem = targetProblem(req.url);
    if (problem !== null) {
      return apiError(400, "invalid_request_error", `request target ${problem}`);
    }
    const url = new URL(req.url);
    if (deps.loopbackOnly) {
      const host = req.headers.get("host");
      if (host !== null && !isLoopbackHost(hostOf(host))) {
        return apiError(403, "permission_error", "Host header must name a loopback address");
      }
    }
    const path = url.pathname;
    if (path === "/healthz") {
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
    if (!isAuthorized(req.headers, deps.authKey)) {
      return apiError(401, "authentication_error", UNAUTHORIZED_MESSAGE, {
        "www-authenticate": 'Bearer realm="msgcli serve"',
      });
    }
    if (path === "/usage") {
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
    if (path === "/v1/messages" || path === "/v1/messages/count_tokens") {
      if (req.method !== "POST") return methodNotAllowed("POST");
      return await proxy(req, path === "/v1/messages" ? "messages" : "count_tokens", url.search);
    }
    return apiError(404, "not_found_error", `no route for ${req.method} ${path}`);
  }

  return {
    async fetch(req: Request): Promise<Response> {
      try {
        return await handle(req);
      } catch (err) {
        if (err instanceof HttpError) return err.response;
        log(`internal error: ${errorText(err)}`);
        return apiError(500, "api_error", `msgcli serve internal error: ${errorText(err)}`);
      }
    },
    get inflight() {
      return controllers.size;
    },
    abortAll(reason = "daemon shutting down") {
      for (const ac of controllers) ac.abort(new Error(reason));
    },
    usage,
  };
}

/** The `error.message` of an API error body, or the start of the text. */
function upstreamErrorMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof j.error?.message === "string") return `401 ${j.error.message}`;
  } catch {
    // not JSON
  }
  return `401 ${text.slice(0, 200)}`;
}

function methodNotAllowed(allow: string): Response {
  return apiError(405, "invalid_request_error", `method not allowed (use ${allow})`, {
    allow,
  });
}
