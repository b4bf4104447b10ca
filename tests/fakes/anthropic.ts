/**
 * A fake of the hosted Messages API and its OAuth endpoints, following the documented
 * protocols: OAuth authorize (redirects with `code` and `state`, or shows `code#state` for the
 * manual redirect) and token (PKCE S256 verification, single-use rotating refresh tokens),
 * `/v1/messages` as JSON and as SSE with the real event sequence, `/v1/messages/count_tokens`,
 * `/api/oauth/usage`, `anthropic-ratelimit-unified-*` headers and errors in the API's shape
 * `{type: "error", error: {type, message}}`. Every request is recorded.
 *
 * Listens on 127.0.0.1, port 0.
 *
 * @module
 */

/** One recorded request. */
export interface RecordedRequest {
  method: string;
  /** Path without query. */
  path: string;
  /** Path with query. */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
  /** Parsed JSON body when it was JSON. */
  json?: unknown;
  /** Remote address of the connection (a proxy's address when proxied). */
  remote: string;
}

/** A tool call the fake answers with (see {@link FakeAnthropicOptions.toolUse}). */
export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** A queued error answer for `/v1/messages` (and count_tokens). */
export interface FakeError {
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

/** Options; all mutable later through `fake.options`. */
export interface FakeAnthropicOptions {
  /** OAuth client id the fake accepts; default the public one. */
  clientId?: string;
  /** Lifetime of issued access tokens, seconds (default 3600). */
  accessTokenTtlSec?: number;
  /** Delay before answering a refresh, to widen race windows (ms). */
  refreshDelayMs?: number;
  /** Leave `refresh_token` out of refresh answers (client must keep the old one). */
  omitRefreshToken?: boolean;
  /** Reply text; default `echo: <last user message>`. */
  replyText?: string;
  /**
   * Replays a model's answer: the reply text for a request body (asked before `replyText`;
   * null or undefined falls through to it). Added for capture's model path.
   */
  reply?: (body: Record<string, unknown>) => string | null | undefined;
  /**
   * API keys accepted in `x-api-key` (the API-key path; no OAuth beta needed then). Default
   * none: only OAuth access tokens.
   */
  apiKeys?: string[];
  /**
   * `usage.input_tokens` counted from the request (characters of system and messages / 4,
   * as count_tokens does) instead of the fixed 12.
   */
  usageFromBody?: boolean;
  /**
   * Asked before each `/v1/messages` answer (not count_tokens): a tool call to answer with
   * instead of text (a `tool_use` block, `stop_reason: "tool_use"`), or null for text.
   */
  toolUse?: (
    body: Record<string, unknown>,
  ) => Promise<ToolCall | null> | ToolCall | null;
  /** Delay before a `/v1/messages` answer in ms (default 0): a slow model. */
  replyDelayMs?: number;
  /** Delay between SSE events in ms (default 0). */
  streamDelayMs?: number;
  /**
   * Awaited before each SSE event is sent, with the event's exact text (added for the serve
   * tests: pace a stream, record the bytes sent).
   */
  onStreamEvent?: (event: string, index: number) => Promise<void> | void;
  /** Called when the client of an SSE response cancels it (disconnect). */
  onStreamCancel?: () => void;
  /** Send an `error` event after the first text delta. */
  streamError?: boolean;
  /** Errors answered (FIFO) before normal answers on /v1/messages and count_tokens. */
  errors?: FakeError[];
  /** Extra response headers on /v1/messages. */
  extraHeaders?: Record<string, string>;
  /** Body of `/api/oauth/usage`. */
  usage?: Record<string, unknown>;
  /** Clock, epoch ms. */
  now?: () => number;
  /**
   * Answer 401 `authentication_error` to every access token on /v1/messages (an account
   * that lost access: refreshing does not help).
   */
  rejectAllTokens?: boolean;
}

/** The running fake. */
export interface FakeAnthropic {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Point MSGCLI_* here. */
  env: Record<string, string>;
  requests: RecordedRequest[];
  options: FakeAnthropicOptions;
  /** Number of successful refresh_token grants. */
  readonly refreshCount: number;
  /** Number of failed refresh attempts (e.g. reuse of a rotated token). */
  readonly failedRefreshCount: number;
  /** Issues a valid token pair directly (as if a login had happened). */
  issueTokens(ttlSec?: number): { accessToken: string; refreshToken: string; expiresIn: number };
  /** The latest token pair issued. */
  readonly latest: { accessToken: string; refreshToken: string } | null;
  /** Requests whose path starts with `prefix`. */
  requestsTo(prefix: string): RecordedRequest[];
  /**
   * Revokes a token early (an access token is then answered 401 although it has not
   * expired; a refresh token gets `invalid_grant`).
   */
  revoke(token: string): void;
  close(): Promise<void>;
}

/** The public OAuth client id (DESIGN.md). */
export const FAKE_CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function rand(prefix: string): string {
  return `${prefix}${b64url(crypto.getRandomValues(new Uint8Array(18)))}`;
}

function apiError(status: number, type: string, message: string, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  h.set("request-id", rand("req_"));
  return new Response(JSON.stringify({ type: "error", error: { type, message } }), {
    status,
    headers: h,
  });
}

function oauthError(status: number, error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status });
}

/** The stream's `message_start` event of an assistant message. */
function messageStart(id: string, model: unknown): string {
  return sse("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 1 },
    },
  });
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Starts the fake. */
export function startFakeAnthropic(options: FakeAnthropicOptions = {}): FakeAnthropic {
  const opts = options;
  const now = () => (opts.now ?? Date.now)();
  const requests: RecordedRequest[] = [];
  const codes = new Map<
    string,
    { challenge: string; redirectUri: string; clientId: string; state: string; used: boolean }
  >();
  const accessTokens = new Map<string, number>(); // token -> expiresAt ms
  const refreshTokens = new Map<string, { used: boolean }>();
  let refreshCount = 0;
  let failedRefreshCount = 0;
  let latest: { accessToken: string; refreshToken: string } | null = null;

  function issue(ttlSec = opts.accessTokenTtlSec ?? 3600) {
    const accessToken = rand("sk-ant-oat01-");
    const refreshToken = rand("sk-ant-ort01-");
    accessTokens.set(accessToken, now() + ttlSec * 1000);
    refreshTokens.set(refreshToken, { used: false });
    latest = { accessToken, refreshToken };
    return { accessToken, refreshToken, expiresIn: ttlSec };
  }

  function rateLimitHeaders(): Record<string, string> {
    const sec = Math.floor(now() / 1000);
    return {
      "anthropic-ratelimit-unified-status": "allowed",
      "anthropic-ratelimit-unified-reset": String(sec + 3 * 3600),
      "anthropic-ratelimit-unified-5h-status": "allowed",
      "anthropic-ratelimit-unified-5h-reset": String(sec + 3 * 3600),
      "anthropic-ratelimit-unified-5h-utilization": "0.42",
      "anthropic-ratelimit-unified-7d-status": "allowed",
      "anthropic-ratelimit-unified-7d-reset": String(sec + 4 * 86400),
      "anthropic-ratelimit-unified-7d-utilization": "0.17",
      "anthropic-ratelimit-unified-7d_opus-utilization": "0.05",
      "anthropic-ratelimit-unified-7d_opus-reset": String(sec + 4 * 86400),
      "anthropic-ratelimit-unified-representative-claim": "five_hour",
      "anthropic-ratelimit-unified-fallback-percentage": "0.5",
    };
  }

  function checkAuth(req: Request): Response | null {
    const key = req.headers.get("x-api-key");
    if (key !== null && opts.apiKeys?.length) {
      if (!opts.apiKeys.includes(key)) {
        return apiError(401, "authentication_error", "invalid x-api-key");
      }
      if (req.headers.get("anthropic-version") !== "2023-06-01") {
        return apiError(400, "invalid_request_error", "anthropic-version: header is required");
      }
      return null;
    }
    const auth = req.headers.get("authorization") ?? "";
    const m = /^Bearer (.+)$/.exec(auth);
    if (!m) return apiError(401, "authentication_error", "Missing bearer token");
    const exp = accessTokens.get(m[1]);
    if (exp === undefined) return apiError(401, "authentication_error", "Invalid bearer token");
    if (opts.rejectAllTokens) {
      return apiError(401, "authentication_error", "OAuth token does not grant access.");
    }
    if (exp <= now()) {
      return apiError(401, "authentication_error", "OAuth token has expired.");
    }
    const beta = req.headers.get("anthropic-beta") ?? "";
    if (!beta.split(",").map((s) => s.trim()).includes("oauth-2025-04-20")) {
      return apiError(
        401,
        "authentication_error",
        "OAuth authentication is currently not supported.",
      );
    }
    if (req.headers.get("anthropic-version") !== "2023-06-01") {
      return apiError(400, "invalid_request_error", "anthropic-version: header is required");
    }
    return null;
  }

  function validateBody(json: unknown, needMaxTokens: boolean): Response | null {
    if (typeof json !== "object" || json === null) {
      return apiError(400, "invalid_request_error", "body: Input should be an object");
    }
    const b = json as Record<string, unknown>;
    if (typeof b.model !== "string") {
      return apiError(400, "invalid_request_error", "model: Field required");
    }
    if (needMaxTokens && typeof b.max_tokens !== "number") {
      return apiError(400, "invalid_request_error", "max_tokens: Field required");
    }
    if (!Array.isArray(b.messages) || b.messages.length === 0) {
      return apiError(400, "invalid_request_error", "messages: Field required");
    }
    return null;
  }

  function replyFor(json: Record<string, unknown>): string {
    const replayed = opts.reply?.(json);
    if (replayed !== undefined && replayed !== null) return replayed;
    if (opts.replyText !== undefined) return opts.replyText;
    const msgs = json.messages as Array<{ role: string; content: unknown }>;
    const last = msgs[msgs.length - 1];
    const text = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
    return `echo: ${text}`;
  }

  async function handleToken(req: Request, rec: RecordedRequest): Promise<Response> {
    let p: Record<string, string> = {};
    const ct = req.headers.get("content-type") ?? "";
    if (ct.includes("application/json")) {
      if (typeof rec.json !== "object" || rec.json === null) {
        return oauthError(400, "invalid_request", "body must be JSON");
      }
      p = Object.fromEntries(
        Object.entries(rec.json as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
      );
    } else {
      p = Object.fromEntries(new URLSearchParams(rec.body));
    }
    const clientId = opts.clientId ?? FAKE_CLIENT_ID;
    if (p.client_id !== clientId) return oauthError(401, "invalid_client", "unknown client_id");
    if (p.grant_type === "authorization_code") {
      const c = codes.get(p.code ?? "");
      if (!c || c.used) return oauthError(400, "invalid_grant", "invalid or used code");
      c.used = true;
      if (c.redirectUri !== p.redirect_uri) {
        return oauthError(400, "invalid_grant", "redirect_uri mismatch");
      }
      if (p.state !== undefined && p.state !== c.state) {
        return oauthError(400, "invalid_grant", "state mismatch");
      }
      const digest = new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(p.code_verifier ?? "")),
      );
      if (b64url(digest) !== c.challenge) {
        return oauthError(400, "invalid_grant", "PKCE verification failed");
      }
      const t = issue();
      return Response.json({
        token_type: "Bearer",
        access_token: t.accessToken,
        refresh_token: t.refreshToken,
        expires_in: t.expiresIn,
        scope: "user:profile user:inference user:sessions:claude_code",
      });
    }
    if (p.grant_type === "refresh_token") {
      if (opts.refreshDelayMs) await new Promise((r) => setTimeout(r, opts.refreshDelayMs));
      const r = refreshTokens.get(p.refresh_token ?? "");
      if (!r || r.used) {
        failedRefreshCount++;
        return oauthError(400, "invalid_grant", "Refresh token not found or invalid");
      }
      r.used = true;
      refreshCount++;
      const t = issue();
      const body: Record<string, unknown> = {
        token_type: "Bearer",
        access_token: t.accessToken,
        expires_in: t.expiresIn,
      };
      if (opts.omitRefreshToken) {
        // Keep the old refresh token valid since the client keeps it.
        refreshTokens.set(p.refresh_token, { used: false });
        refreshTokens.delete(t.refreshToken);
        latest = { accessToken: t.accessToken, refreshToken: p.refresh_token };
      } else {
        body.refresh_token = t.refreshToken;
      }
      return Response.json(body);
    }
    return oauthError(400, "unsupported_grant_type", `grant_type ${p.grant_type}`);
  }

  function handleAuthorize(url: URL): Response {
    const q = url.searchParams;
    const clientId = opts.clientId ?? FAKE_CLIENT_ID;
    for (const k of ["client_id", "redirect_uri", "code_challenge", "state", "response_type"]) {
      if (!q.get(k)) return new Response(`missing ${k}`, { status: 400 });
    }
    if (q.get("client_id") !== clientId) return new Response("unknown client", { status: 400 });
    if (q.get("code_challenge_method") !== "S256") {
      return new Response("code_challenge_method must be S256", { status: 400 });
    }
    const code = rand("code_");
    const redirectUri = q.get("redirect_uri")!;
    const state = q.get("state")!;
    codes.set(code, {
      challenge: q.get("code_challenge")!,
      redirectUri,
      clientId,
      state,
      used: false,
    });
    const target = new URL(redirectUri);
    if (target.hostname === "localhost" || target.hostname === "127.0.0.1") {
      target.searchParams.set("code", code);
      target.searchParams.set("state", state);
      return new Response(null, { status: 302, headers: { location: target.toString() } });
    }
    // Manual redirect: the page shows code#state to paste.
    return new Response(`Paste this code into msgcli:\n${code}#${state}\n`, {
      headers: { "content-type": "text/plain", "x-fake-manual-code": `${code}#${state}` },
    });
  }

  async function handleMessages(
    req: Request,
    rec: RecordedRequest,
    count: boolean,
  ): Promise<Response> {
    const authFail = checkAuth(req);
    if (authFail) return authFail;
    const bad = validateBody(rec.json, !count);
    if (bad) return bad;
    const queued = opts.errors?.shift();
    if (queued) return apiError(queued.status, queued.type, queued.message, queued.headers);
    const json = rec.json as Record<string, unknown>;
    const headers = new Headers({ ...rateLimitHeaders(), ...(opts.extraHeaders ?? {}) });
    headers.set("request-id", rand("req_"));
    if (count) {
      return Response.json({ input_tokens: JSON.stringify(json).length >> 2 }, { headers });
    }
    if (opts.replyDelayMs) await new Promise((r) => setTimeout(r, opts.replyDelayMs));
    const call = opts.toolUse ? await opts.toolUse(json) : null;
    if (call) return toolUseAnswer(json, call, headers);
    const text = replyFor(json);
    const id = rand("msg_");
    const model = json.model as string;
    const usage = {
      input_tokens: opts.usageFromBody
        ? Math.ceil(JSON.stringify([json.system ?? "", json.messages]).length / 4)
        : 12,
      output_tokens: Math.max(1, text.length >> 2),
    };
    if (json.stream !== true) {
      headers.set("content-type", "application/json");
      return new Response(
        JSON.stringify({
          id,
          type: "message",
          role: "assistant",
          model,
          content: [{ type: "text", text }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage,
        }),
        { headers },
      );
    }
    headers.set("content-type", "text/event-stream; charset=utf-8");
    headers.set("cache-control", "no-cache");
    const chunks = text.match(/.{1,4}/gs) ?? [""];
    const events: string[] = [
      messageStart(id, model),
      sse("content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "" },
      }),
      sse("ping", { type: "ping" }),
      ": keep-alive comment\n\n",
    ];
    chunks.forEach((chunk, i) => {
      events.push(
        sse("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: chunk },
        }),
      );
      if (i === 0) {
        events.push(sse("future_event_kind", { type: "future_event_kind", note: "ignore me" }));
        if (opts.streamError) {
          events.push(
            sse("error", {
              type: "error",
              error: { type: "overloaded_error", message: "Overloaded" },
            }),
          );
        }
      }
    });
    if (!opts.streamError) {
      events.push(
        sse("content_block_stop", { type: "content_block_stop", index: 0 }),
        sse("message_delta", {
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: usage.output_tokens },
        }),
        sse("message_stop", { type: "message_stop" }),
      );
    }
    const enc = new TextEncoder();
    const delay = opts.streamDelayMs ?? 0;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const [i, e] of events.entries()) {
          if (opts.onStreamEvent) await opts.onStreamEvent(e, i);
          controller.enqueue(enc.encode(e));
          if (delay > 0) await new Promise((r) => setTimeout(r, delay));
        }
        controller.close();
      },
      cancel() {
        opts.onStreamCancel?.();
      },
    });
    return new Response(body, { headers });
  }

  function toolUseAnswer(
    json: Record<string, unknown>,
    call: ToolCall,
    headers: Headers,
  ): Response {
    const id = rand("msg_");
    const block = { type: "tool_use", id: rand("toolu_"), name: call.name, input: call.input };
    const usage = { input_tokens: 12, output_tokens: 8 };
    if (json.stream !== true) {
      headers.set("content-type", "application/json");
      return new Response(
        JSON.stringify({
          id,
          type: "message",
          role: "assistant",
          model: json.model,
          content: [block],
          stop_reason: "tool_use",
          stop_sequence: null,
          usage,
        }),
        { headers },
      );
    }
    headers.set("content-type", "text/event-stream; charset=utf-8");
    const events = [
      messageStart(id, json.model),
      sse("content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { ...block, input: {} },
      }),
      sse("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) },
      }),
      sse("content_block_stop", { type: "content_block_stop", index: 0 }),
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      }),
      sse("message_stop", { type: "message_stop" }),
    ];
    return new Response(events.join(""), { headers });
  }

  function handleUsage(req: Request): Response {
    const auth = req.headers.get("authorization") ?? "";
    const m = /^Bearer (.+)$/.exec(auth);
    const exp = m ? accessTokens.get(m[1]) : undefined;
    if (exp === undefined || exp <= now()) {
      return apiError(401, "authentication_error", "Invalid bearer token");
    }
    const t = now();
    return Response.json(
      opts.usage ?? {
        five_hour: { utilization: 42.0, resets_at: new Date(t + 3 * 3600_000).toISOString() },
        seven_day: { utilization: 17.0, resets_at: new Date(t + 4 * 86400_000).toISOString() },
        seven_day_opus: { utilization: 5.0, resets_at: new Date(t + 4 * 86400_000).toISOString() },
        seven_day_sonnet: null,
      },
    );
  }

  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req, info) => {
      const url = new URL(req.url);
      const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      const rec: RecordedRequest = {
        method: req.method,
        path: url.pathname,
        url: url.pathname + url.search,
        headers,
        body,
        remote: `${info.remoteAddr.hostname}:${info.remoteAddr.port}`,
      };
      try {
        if (body !== "") rec.json = JSON.parse(body);
      } catch {
        // not JSON
      }
      requests.push(rec);
      if (req.method === "GET" && url.pathname === "/oauth/authorize") return handleAuthorize(url);
      if (req.method === "POST" && url.pathname === "/v1/oauth/token") {
        return await handleToken(req, rec);
      }
      if (req.method === "POST" && url.pathname === "/v1/messages") {
        return handleMessages(req, rec, false);
      }
      if (req.method === "POST" && url.pathname === "/v1/messages/count_tokens") {
        return handleMessages(req, rec, true);
      }
      if (req.method === "GET" && url.pathname === "/api/oauth/usage") return handleUsage(req);
      return apiError(404, "not_found_error", `Not found: ${req.method} ${url.pathname}`);
    },
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    url: base,
    env: {
      MSGCLI_API_BASE_URL: base,
      MSGCLI_OAUTH_AUTHORIZE_URL: `${base}/oauth/authorize`,
      MSGCLI_OAUTH_TOKEN_URL: `${base}/v1/oauth/token`,
      MSGCLI_OAUTH_CLIENT_ID: opts.clientId ?? FAKE_CLIENT_ID,
    },
    requests,
    options: opts,
    get refreshCount() {
      return refreshCount;
    },
    get failedRefreshCount() {
      return failedRefreshCount;
    },
    get latest() {
      return latest;
    },
    issueTokens: (ttlSec?: number) => issue(ttlSec),
    requestsTo: (prefix: string) => requests.filter((r) => r.path.startsWith(prefix)),
    revoke(token: string) {
      accessTokens.delete(token);
      const r = refreshTokens.get(token);
      if (r) r.used = true;
    },
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}
