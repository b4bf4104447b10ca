/**
 * The pass-through of `POST /v1/messages` and `POST /v1/messages/count_tokens`: the request body
 * read whole and validated, prepared with the OAuth token (one retry after an upstream 401 with a
 * refreshed token), and the upstream response streamed back byte for byte, one upstream read per
 * client pull. Apart from the routing in app.ts because it is the one route with state that
 * outlives the handler call (the in-flight requests a drain waits for and may abort) and the
 * one where every microsecond of added latency counts.
 *
 * @module
 */

import {
  type MessageRequest,
  prepareMessagesRequest,
  splitBetas,
  validateMessageRequest,
} from "../msg/prepare.ts";
import { parseUnifiedRateLimits, type UsageWindows } from "../msg/ratelimit.ts";
import { apiError } from "./errors.ts";
import { BodyTimeout, BodyTooLarge, isDisconnect, readBody, readText } from "../common/body.ts";
import type { UsageCache } from "./health.ts";
import { errorText, type KeepaliveSnapshot, NoCredentialsError } from "./keepalive.ts";

/** Largest accepted request body (the Messages API's own limit is 32 MB). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** A request body must arrive in full within this long (ms), else 408. */
export const BODY_TIMEOUT_MS = 10_000;
/** Most of an upstream error body kept for a message (bytes). */
const ERROR_TEXT_LIMIT = 64 * 1024;

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

/** The handler's dependencies as the proxy uses them (defaults resolved by the app). */
export interface ProxyContext {
  /** Messages API base URL without trailing slash. */
  apiBaseUrl: string;
  /** The one reused upstream client's fetch. */
  upstreamFetch: typeof fetch;
  tokens: TokenProvider;
  /** `metadata.user_id` for requests that carry none. */
  userId?: string;
  /** Largest accepted request body (bytes). */
  limit: number;
  /** A request body must arrive in full within this long (ms). */
  bodyTimeoutMs: number;
  now: () => number;
  log: (msg: string) => void;
  /** Filled from the rate-limit headers of every upstream response. */
  usage: UsageCache<UsageWindows>;
  /** One controller per proxied request whose response has not finished (drain, abortAll). */
  controllers: Set<AbortController>;
}

/** Which of the two proxied endpoints a request is for. */
export type ProxyKind = "messages" | "count_tokens";

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

/** A response decided deep in a handler (thrown, answered as it is by the app's `fetch`). */
export class HttpError extends Error {
  constructor(readonly response: Response) {
    super("http error");
  }
}

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

/** The body read, parsed and validated as a Messages request, or the 400 that refuses it. */
async function readMessageRequest(
  ctx: ProxyContext,
  req: Request,
  kind: ProxyKind,
): Promise<MessageRequest | Response> {
  const bytes = await requestBody(req, ctx.limit, ctx.bodyTimeoutMs, ctx.log);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    return apiError(400, "invalid_request_error", `body: invalid JSON: ${errorText(err)}`);
  }
  try {
    return validateMessageRequest(parsed, { kind });
  } catch (err) {
    return apiError(400, "invalid_request_error", errorText(err));
  }
}

/**
 * The upstream request's headers and body for an access token: the OAuth preparation, the
 * client's betas merged and its forwarded headers copied, no compression, and the `accept`
 * of a stream or a JSON answer.
 */
function upstreamRequest(
  req: Request,
  request: MessageRequest,
  kind: ProxyKind,
  userId: string | undefined,
): (accessToken: string) => { headers: Headers; body: string } {
  const clientBetas = splitBetas(req.headers.get("anthropic-beta"));
  const hadMetadata = request.metadata !== undefined;
  return (accessToken) => {
    const prepared = prepareMessagesRequest(request, {
      accessToken,
      betas: clientBetas,
      ...(userId !== undefined ? { userId } : {}),
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
}

/**
 * Sends with `token`; after an upstream 401, once more with the token the keepalive renewed
 * (when it has one). Tells the keepalive whether the upstream accepted or still rejected the
 * token it ended with.
 */
async function sendWithRenewal(
  tokens: TokenProvider,
  send: (accessToken: string) => Promise<Response>,
  token: string,
): Promise<Response> {
  let upstream = await send(token);
  if (upstream.status === 401) {
    const fresh = await tokens.afterUnauthorized(token);
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
      tokens.upstreamRejected(token, upstreamErrorMessage(text));
    } else if (upstream.ok) {
      tokens.upstreamAccepted(token);
    }
  } else if (upstream.ok) {
    tokens.upstreamAccepted(token);
  }
  return upstream;
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

/** The upstream response's headers for the client: no hop-by-hop ones, no stale encoding. */
function responseHeaders(upstream: Headers): Headers {
  const headers = new Headers();
  upstream.forEach((value, key) => {
    if (!HOP_BY_HOP.has(key)) headers.append(key, value);
  });
  const encoding = upstream.get("content-encoding");
  if (encoding !== null && encoding.toLowerCase() !== "identity") {
    // fetch decoded the body already: the length and encoding no longer apply.
    headers.delete("content-encoding");
    headers.delete("content-length");
  }
  return headers;
}

/**
 * The client-facing body over the upstream's: one upstream read per client pull; an abort of
 * `ac` (drain deadline, client gone) errors it at once; a client that cancels aborts the
 * upstream request. `finish` runs once, when the body ends in any of these ways.
 */
function passThrough(
  upstream: ReadableStream<Uint8Array>,
  ac: AbortController,
  finish: () => void,
): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  let closed = false;
  const close = () => {
    if (!closed) {
      closed = true;
      finish();
    }
  };
  // highWaterMark 0: one upstream read per client pull, each chunk enqueued (and so
  // written and flushed by the server) as soon as it arrives; nothing is buffered ahead.
  return new ReadableStream<Uint8Array>({
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
}

/**
 * Proxies one request to `/v1/messages` (or its `count_tokens`), `search` being the query
 * string kept as it came. The request counts as in flight (in `ctx.controllers`) until its
 * response body has ended.
 */
export async function proxyMessages(
  ctx: ProxyContext,
  req: Request,
  kind: ProxyKind,
  search: string,
): Promise<Response> {
  const request = await readMessageRequest(ctx, req, kind);
  if (request instanceof Response) return request;
  let token: string;
  try {
    token = await ctx.tokens.accessToken();
  } catch (err) {
    if (err instanceof NoCredentialsError) {
      return apiError(503, "api_error", `msgcli serve: ${err.message}`);
    }
    throw err;
  }
  const build = upstreamRequest(req, request, kind, ctx.userId);
  const url = `${ctx.apiBaseUrl}/v1/messages${
    kind === "count_tokens" ? "/count_tokens" : ""
  }${search}`;

  const ac = new AbortController();
  const onClientAbort = () => ac.abort(new Error("client disconnected"));
  req.signal.addEventListener("abort", onClientAbort, { once: true });
  ctx.controllers.add(ac);
  let handedOff = false;
  const finish = () => {
    ctx.controllers.delete(ac);
    req.signal.removeEventListener("abort", onClientAbort);
  };
  try {
    const send = (accessToken: string) => {
      const { headers, body } = build(accessToken);
      return ctx.upstreamFetch(url, { method: "POST", headers, body, signal: ac.signal });
    };
    let upstream: Response;
    try {
      upstream = await sendWithRenewal(ctx.tokens, send, token);
    } catch (err) {
      if (ac.signal.aborted) {
        return apiError(499, "api_error", "client closed the request");
      }
      ctx.log(`upstream ${kind} failed: ${errorText(err)}`);
      return apiError(502, "api_error", `upstream request failed: ${errorText(err)}`);
    }
    const windows = parseUnifiedRateLimits(upstream.headers);
    if (windows !== null) ctx.usage.put(windows, ctx.now());

    const headers = responseHeaders(upstream.headers);
    const init = { status: upstream.status, statusText: upstream.statusText, headers };
    if (upstream.body === null) return new Response(null, init);
    const body = passThrough(upstream.body, ac, finish);
    handedOff = true;
    return new Response(body, init);
  } finally {
    if (!handedOff) finish();
  }
}
