/**
 * The Messages API client used by the CLI: `create` (JSON), `stream` (SSE events), `usage`
 * (`GET /api/oauth/usage`). Each call first makes sure the access token is fresh (lazy
 * refresh under the credentials lock), applies the OAuth request preparation, and retries
 * per DESIGN.md: at most 2 retries on connection errors, 408, 429 and 5xx, honouring
 * `x-should-retry` and a `retry-after` of 60 s or less, else exponential backoff with jitter;
 * a 429 whose window resets later than that is reported, not retried. A 401 forces one
 * token refresh and one more attempt.
 *
 * @module
 */

import type { MsgConfig } from "./config.ts";
import type { CredentialStore } from "./credentials.ts";
import { refreshAccessToken } from "./oauth.ts";
import { type MessageRequest, prepareMessagesRequest } from "./prepare.ts";
import { parseOAuthUsage, parseUnifiedRateLimits, type UsageWindows } from "./ratelimit.ts";
import { parseSse } from "./sse.ts";
import { readJson, readText } from "../common/body.ts";

/** Default margin for the lazy refresh before a request (spec: liveness check 60 s). */
export const DEFAULT_REFRESH_MARGIN_MS = 60_000;
/** Most of an error body read for its message (bytes; the rest is dropped). */
const ERROR_TEXT_LIMIT = 64 * 1024;
/** Largest non-streaming reply read (bytes). */
const REPLY_LIMIT = 64 * 1024 * 1024;
/** Maximum number of retries of one call. */
export const MAX_RETRIES = 2;
/** Longest `retry-after` that is waited for; longer ones are reported. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** An upstream error: HTTP status, the API's error type and message, the request id. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly requestId?: string;
  constructor(
    status: number,
    type: string,
    message: string,
    requestId?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ApiError";
    this.status = status;
    this.type = type;
    if (requestId !== undefined) this.requestId = requestId;
  }
}

/** A content block of a reply (text blocks carry `text`). */
export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** A non-streaming reply. */
export interface MessageResponse {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ContentBlock[];
  stop_reason: string | null;
  usage?: Record<string, unknown>;
  [key: string]: unknown;
}

/** One parsed streaming event: its kind and its JSON data. */
export interface StreamEvent {
  type: string;
  data: Record<string, unknown>;
}

/** Dependencies of {@link MessagesClient}. */
export interface MessagesClientOptions {
  config: MsgConfig;
  /** The upstream fetch (from `createUpstreamFetch`); also used for OAuth refresh. */
  fetch: typeof fetch;
  store: CredentialStore;
  /** Injectable sleep for retries (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Injectable clock, epoch ms. */
  now?: () => number;
  /** Injectable randomness for jitter, 0..1. */
  random?: () => number;
  /** Lazy refresh margin; default {@link DEFAULT_REFRESH_MARGIN_MS}. */
  refreshMarginMs?: number;
  /** Debug log (retries, refreshes); default none. */
  log?: (s: string) => void;
}

/** The text of a reply's text blocks, concatenated. */
export function replyText(res: MessageResponse): string {
  return res.content.filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text).join("");
}

/**
 * Reads a non-2xx response into an {@link ApiError}. A body that is not in the API's error
 * shape (e.g. from a proxy) keeps its status and says so.
 */
async function apiErrorFrom(res: Response, viaProxy: boolean): Promise<ApiError> {
  let text = "";
  try {
    text = await readText(res, { limit: ERROR_TEXT_LIMIT, truncate: true });
  } catch {
    // body unreadable (e.g. a proxy closed the connection)
  }
  const rid = res.headers.get("request-id") ?? undefined;
  try {
    const j = JSON.parse(text) as { error?: { type?: unknown; message?: unknown } };
    if (j.error && typeof j.error.type === "string") {
      const message = typeof j.error.message === "string" ? j.error.message : "no message";
      return new ApiError(res.status, j.error.type, message, rid);
    }
  } catch {
    // not JSON
  }
  const snippet = text.trim().slice(0, 200);
  const origin = viaProxy
    ? "the answer is not an API error body; it may come from the proxy (check the proxy URL and its credentials)"
    : "the answer is not an API error body";
  return new ApiError(
    res.status,
    res.status === 407 ? "proxy_authentication_required" : "http_error",
    `${res.statusText || "HTTP error"}${snippet ? `: ${snippet}` : ""} (${origin})`,
    rid,
  );
}

/**
 * When the limiting subscription window of a 429 resets (epoch ms), or null when the headers
 * do not say: the overall reset unless the overall status says the request was allowed, and
 * the resets of windows whose status is `rejected`; the latest of these.
 */
function limitedWindowReset(limits: UsageWindows | null): number | null {
  if (limits === null) return null;
  const resets: number[] = [];
  if (limits.reset !== null && (limits.status === null || limits.status === "rejected")) {
    resets.push(Date.parse(limits.reset));
  }
  for (const w of Object.values(limits.windows)) {
    if (w.status === "rejected" && w.reset !== null) resets.push(Date.parse(w.reset));
  }
  const ok = resets.filter((t) => Number.isFinite(t));
  return ok.length > 0 ? Math.max(...ok) : null;
}

/** The Messages API client. */
export class MessagesClient {
  readonly #o: MessagesClientOptions;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #random: () => number;

  constructor(o: MessagesClientOptions) {
    this.#o = o;
    this.#sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.#now = o.now ?? Date.now;
    this.#random = o.random ?? Math.random;
  }

  /** Rate-limit windows seen on the last response, if any. */
  lastRateLimits: UsageWindows | null = null;

  /** A live access token; `rejected` (an access token the API answered 401 to) forces a refresh. */
  async #token(rejected?: string): Promise<string> {
    const { credentials, refreshed } = await this.#o.store.ensureFresh({
      marginMs: this.#o.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS,
      now: this.#now,
      force: rejected !== undefined,
      ...(rejected !== undefined ? { rejectedAccessToken: rejected } : {}),
      refresh: (rt) => refreshAccessToken(this.#o.config, this.#o.fetch, rt),
    });
    if (refreshed) this.#o.log?.("refreshed the access token");
    return credentials.accessToken;
  }

  /** Delay before retry `attempt` (0-based), or null when the response must not be retried. */
  retryDelay(attempt: number, res: Response | null): number | null {
    if (attempt >= MAX_RETRIES) return null;
    const backoff = Math.min(8000, 500 * 2 ** attempt) * (0.75 + 0.5 * this.#random());
    if (res === null) return backoff; // connection error
    const should = res.headers.get("x-should-retry");
    if (should === "false") return null;
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    if (!retryable && should !== "true") return null;
    // A 429 from an exhausted subscription window that resets later than we would wait is
    // reported, even when a short retry-after comes with it.
    if (res.status === 429) {
      const reset = limitedWindowReset(parseUnifiedRateLimits(res.headers));
      if (reset !== null && reset - this.#now() > MAX_RETRY_AFTER_MS) return null;
    }
    const ra = res.headers.get("retry-after");
    if (ra !== null) {
      let ms = Number(ra) * 1000;
      if (!Number.isFinite(ms)) ms = Date.parse(ra) - this.#now();
      if (Number.isFinite(ms)) {
        if (ms > MAX_RETRY_AFTER_MS) return null;
        return Math.max(0, ms);
      }
    }
    return backoff;
  }

  /** Sends with token, retries and one forced refresh on 401; returns a 2xx response. */
  async #send(
    path: string,
    build: (token: string) => { headers: Headers; body?: string; method: string },
  ): Promise<Response> {
    const url = `${this.#o.config.apiBaseUrl}${path}`;
    let token = await this.#token();
    let forcedRefresh = false;
    for (let attempt = 0;; attempt++) {
      const req = build(token);
      let res: Response | null = null;
      let netErr: unknown;
      try {
        res = await this.#o.fetch(url, {
          method: req.method,
          headers: req.headers,
          body: req.body,
        });
      } catch (e) {
        netErr = e;
      }
      if (res?.ok) {
        this.lastRateLimits = parseUnifiedRateLimits(res.headers) ?? this.lastRateLimits;
        return res;
      }
      if (res) this.lastRateLimits = parseUnifiedRateLimits(res.headers) ?? this.lastRateLimits;
      const err = res ? await apiErrorFrom(res, this.#o.config.proxy !== undefined) : null;
      if (err && err.status === 401 && err.type === "authentication_error" && !forcedRefresh) {
        forcedRefresh = true;
        this.#o.log?.("401 authentication_error from the API; forcing a token refresh");
        token = await this.#token(token);
        attempt--;
        continue;
      }
      // A host outside the permissions is refused the same way every time: not retried.
      const denied = refusedByPermissions(netErr);
      const delay = denied ? null : this.retryDelay(attempt, res);
      if (delay === null) {
        if (err) throw err;
        throw new ApiError(
          0,
          "connection_error",
          `cannot reach ${url}: ${(netErr as Error).message}`,
          undefined,
          { cause: netErr },
        );
      }
      this.#o.log?.(
        `retrying ${path} in ${Math.round(delay)} ms (${
          res ? `status ${res.status}` : "connection error"
        })`,
      );
      await this.#sleep(delay);
    }
  }

  #messageBuild(body: MessageRequest, stream: boolean) {
    return (token: string) => {
      const prepared = prepareMessagesRequest({ ...body, stream }, { accessToken: token });
      prepared.headers.set("accept", stream ? "text/event-stream" : "application/json");
      return { method: "POST", headers: prepared.headers, body: JSON.stringify(prepared.body) };
    };
  }

  /** Sends one request and returns the full reply. */
  async create(body: MessageRequest): Promise<MessageResponse> {
    const res = await this.#send("/v1/messages", this.#messageBuild(body, false));
    return await readJson(res, { limit: REPLY_LIMIT }) as MessageResponse;
  }

  /**
   * Sends a streaming request and yields its events. An `error` event throws an
   * {@link ApiError}; `ping` and unknown kinds are yielded for the caller to ignore.
   */
  async *stream(body: MessageRequest): AsyncGenerator<StreamEvent, void, undefined> {
    const res = await this.#send("/v1/messages", this.#messageBuild(body, true));
    if (!res.body) throw new ApiError(res.status, "api_error", "empty streaming response");
    let finished = false;
    try {
      for await (const ev of parseSse(res.body)) {
        let data: Record<string, unknown> = {};
        try {
          const parsed: unknown = JSON.parse(ev.data);
          if (typeof parsed === "object" && parsed !== null) {
            data = parsed as Record<string, unknown>;
          }
        } catch {
          data = { raw: ev.data };
        }
        const type = typeof data.type === "string" ? data.type : ev.event;
        if (type === "error") {
          const err = (data.error ?? {}) as { type?: unknown; message?: unknown };
          throw new ApiError(
            res.status,
            typeof err.type === "string" ? err.type : "api_error",
            typeof err.message === "string" ? err.message : "error event in stream",
          );
        }
        yield { type, data };
        if (type === "message_stop") finished = true;
      }
    } finally {
      if (!finished) await res.body.cancel().catch(() => {});
    }
    if (!finished) {
      throw new ApiError(res.status, "api_error", "stream ended before message_stop");
    }
  }

  /** Subscription windows from `GET /api/oauth/usage` (no paid request). */
  async usage(): Promise<UsageWindows> {
    const res = await this.#send("/api/oauth/usage", (token) => ({
      method: "GET",
      headers: new Headers({
        "authorization": `Bearer ${token}`,
        "anthropic-beta": "oauth-2025-04-20",
        "accept": "application/json",
      }),
    }));
    return parseOAuthUsage(await readJson(res, { limit: ERROR_TEXT_LIMIT }));
  }
}

/** Whether `err` or one of its causes is Deno refusing an access outside the permissions. */
function refusedByPermissions(err: unknown): boolean {
  for (let cur = err, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    if (cur instanceof Deno.errors.NotCapable || cur instanceof Deno.errors.PermissionDenied) {
      return true;
    }
  }
  return false;
}
