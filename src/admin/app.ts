/**
 * The Admin API: a Hono app over a {@link MemoryService}, plus `/healthz` and the static
 * web UI. Every error answers `{error}`, plus `field` when one input is at fault; `/api` routes need the key when one is set;
 * loopback servers check the `Host` header against DNS rebinding.
 * @module
 */
import { Hono } from "hono";
import type { Context, ErrorHandler, MiddlewareHandler } from "hono";
import { isLoopbackHost } from "../common/net.ts";
import { keysEqual } from "../common/secret.ts";
import { describeError } from "../common/errors.ts";
import {
  BodyTimeout,
  BodyTooLarge,
  isDisconnect,
  readBody,
  targetProblem,
} from "../common/body.ts";
import { badRequest, MemoryError } from "../domain/errors.ts";
import type { ExpansionAdmin, MemoryService, SearchResult } from "../memory/types.ts";
import { MAX_SEARCH_LIMIT, validateOffset, validateSearch } from "../memory/validate.ts";
import { staticHandler } from "./static.ts";
import { type CaptureQueue, captureRoute } from "../capture/route.ts";
import type { Inbox } from "../memory/inbox.ts";
import {
  JUDGE_RERANK_POOL,
  judgeResults,
  type RecallJudge,
  rerankResults,
} from "../memory/judge.ts";

/** Largest request body on ordinary routes (1 MiB). */
export const BODY_LIMIT = 1024 * 1024;
/** Largest import body (64 MiB: 10000 memories of up to 20000 characters fit with room). */
export const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;

/** Options of {@link createAdminApp}. */
export interface AdminOptions {
  /** The service behind the API. */
  service: MemoryService;
  /** When set, every /api route requires it (Bearer or x-api-key). */
  apiKey?: string;
  /** Check the Host header against loopback names (set for loopback binds). */
  loopbackOnly?: boolean;
  /** Error log sink (stderr by default). Never receives keys. */
  log?: (line: string) => void;
  /**
   * A consistent copy of the embedded database (POST /api/maintenance/backup streams it);
   * absent: the route answers 404.
   */
  backup?: () => Promise<Blob>;
  /** Serve the web UI from static/ (default true). */
  ui?: boolean;
  /** Capture's queue: `POST /api/capture` is served when given. */
  capture?: CaptureQueue;
  /** The only folder `POST /api/capture` reads transcripts in (Claude Code's). */
  transcriptsDir?: string;
  /** Capture's proposals: `/api/inbox` is served when given. */
  inbox?: InboxApi;
  /**
   * Memories' expansions (`MEMORY_EXPANSION`): `GET /api/memories/:id/expansion` and `POST
   * /api/expansions/clear|redo` are served when given (the admin daemon gives its service,
   * whatever the setting: expansions written earlier can be shown and removed).
   */
  expansions?: ExpansionAdmin;
  /**
   * The judge of the prompt hook's candidates (`RECALL_JUDGE=on`): a search with `"judge": true`
   * is judged (its results marked `chosen`), one with `"rerank": true` reordered (the model's
   * choice first), and `GET /api/stats` carries its counts. Absent: `judge` and `rerank` are
   * validated and ignored.
   */
  judge?: RecallJudge;
}

/** Content-Security-Policy of every response: own scripts and styles only, no inline code. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; " +
  "form-action 'self'; frame-ancestors 'none'";

/** True when `origin` (an Origin header) names the host:port the request was sent to. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") &&
      u.host === (host ?? "").toLowerCase();
  } catch {
    return false;
  }
}

/**
 * True when the request comes from this machine. The address is the `Deno.serve` handler
 * info passed as the app's env (`app.fetch(req, info)`); without it the caller is unknown,
 * so not trusted as local.
 */
function fromLoopback(c: Context): boolean {
  const addr = (c.env as { remoteAddr?: Deno.Addr } | undefined)?.remoteAddr;
  if (!addr || (addr.transport !== "tcp" && addr.transport !== "udp")) return false;
  return isLoopbackHost(addr.hostname);
}

function presentedKey(c: Context): string | undefined {
  const auth = c.req.header("authorization");
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "").trim();
  return c.req.header("x-api-key") ?? undefined;
}

/** The client hung up (or sent a malformed body) before its request body arrived in full. */
class ClientGone extends Error {
  constructor(cause: unknown) {
    super("the client disconnected before its request body arrived in full", { cause });
    this.name = "ClientGone";
  }
}

/** A request body must arrive in full within this long, or the request is answered 408 (ms). */
export const BODY_TIMEOUT_MS = 10_000;

/** Bodies already read by {@link limitBody}, by request. */
const readBodies = new WeakMap<Request, Uint8Array>();

/**
 * The request's body, read once (common/body.ts: one growing buffer) within
 * {@link BODY_TIMEOUT_MS} and at most `maxSize` bytes; a client gone mid-body is
 * {@link ClientGone}.
 */
async function requestBytes(req: Request, maxSize: number): Promise<Uint8Array> {
  const done = readBodies.get(req);
  if (done) return done;
  try {
    const bytes = await readBody(req.body, {
      limit: maxSize,
      timeoutMs: BODY_TIMEOUT_MS,
      declaredLength: req.headers.get("content-length"),
    });
    readBodies.set(req, bytes);
    return bytes;
  } catch (err) {
    if (isDisconnect(err)) throw new ClientGone(err);
    throw err;
  }
}

/**
 * At most `maxSize` bytes of body (else 413), read within {@link BODY_TIMEOUT_MS} (else 408).
 * In place of Hono's bodyLimit, which copies the request (reading `request.signal`, which makes
 * Deno warn about its legacy abort behaviour) and reads a chunked body without a deadline.
 */
function limitBody(maxSize: number): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.raw.body) await requestBytes(c.req.raw, maxSize);
    return await next();
  };
}

/**
 * The request body as text. Invalid UTF-8 is a 400 (never replaced silently by U+FFFD); a
 * client that hangs up mid-body is a disconnect, not an internal error.
 */
async function bodyText(c: Context): Promise<string> {
  const bytes = await requestBytes(c.req.raw, BODY_LIMIT);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest("body", "is not valid UTF-8");
  }
}

async function jsonBody(c: Context): Promise<unknown> {
  const text = await bodyText(c);
  if (text.trim() === "") throw badRequest("body", "is required (JSON)");
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("body", "is not valid JSON");
  }
}

/**
 * The query string as an object, read from the raw URL so that nothing is dropped: a segment
 * with an empty name (`?=x`, `?&&&`, `?=`) or a name given twice is a 400, never skipped.
 * Skipping it would turn a malformed bulk delete into "no filter", which deletes everything.
 */
function queryObject(url: string): Record<string, string> {
  const q = new URL(url).search.slice(1);
  const out: Record<string, string> = {};
  if (q === "") return out;
  for (const segment of q.split("&")) {
    const eq = segment.indexOf("=");
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent((eq < 0 ? segment : segment.slice(0, eq)).replaceAll("+", " "));
      value = eq < 0 ? "" : decodeURIComponent(segment.slice(eq + 1).replaceAll("+", " "));
    } catch {
      throw badRequest("query", `has a malformed %-escape in "${segment}"`);
    }
    if (name.trim() === "") {
      throw badRequest("query", `has a parameter without a name ("${segment}")`);
    }
    if (Object.hasOwn(out, name)) throw badRequest(name, "must be given once");
    out[name] = value;
  }
  return out;
}

/** Refuse a body where the route takes none (a DELETE's filters go in the query string). */
async function noBody(
  c: Context,
  why = "DELETE takes its filters in the query string (?scope=&project=&type=)",
): Promise<void> {
  const text = await bodyText(c);
  if (text !== "") throw badRequest("body", `must be empty: ${why}`);
}

const errorLimit = (c: Context) =>
  c.json({ error: "request body is too large" }, 413) as unknown as Response;

/** The security headers of every answer. */
const SECURITY_HEADERS: [string, string][] = [
  ["Content-Security-Policy", CSP],
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Frame-Options", "DENY"],
];

/**
 * The checks every answer goes through, the 503 "starting" one included: security headers on
 * every response, and for loopback servers the Host check (DNS rebinding) and the Origin check
 * (cross-site requests).
 */
function guard(app: Hono, opts: { loopbackOnly?: boolean }): void {
  app.use("*", async (c, next) => {
    await next();
    // Set on the response itself: Hono's `c.header` after the handler copies the whole
    // response first (a new Response around its body) to set each one. A response with
    // immutable headers (one from `fetch`) still goes through `c.header`.
    try {
      const headers = c.res.headers;
      for (const [name, value] of SECURITY_HEADERS) headers.set(name, value);
    } catch {
      for (const [name, value] of SECURITY_HEADERS) c.header(name, value);
    }
  });
  app.use("*", async (c, next) => {
    // Never normalised into another path (a proxy in front checked the one sent).
    const problem = targetProblem(c.req.url);
    if (problem !== null) {
      return c.json({ error: `request target ${problem}`, field: "target" }, 400);
    }
    if (opts.loopbackOnly) {
      const host = (c.req.header("host") ?? "localhost").replace(/:\d+$/, "");
      if (!isLoopbackHost(host)) {
        return c.json({ error: `host ${host} is not allowed (loopback only)` }, 403);
      }
      // Cross-site requests: any web page can send a simple POST (text/plain body, no
      // preflight) to a loopback server without a key; browsers mark it with Origin.
      const origin = c.req.header("origin");
      if (origin !== undefined && !sameOrigin(origin, c.req.header("host"))) {
        return c.json({ error: `cross-origin request from ${origin} refused` }, 403);
      }
    }
    await next();
  });
}

/**
 * The app that answers while the database and the embedder start: 503 `{error: "starting"}`
 * behind the same security headers and Host and Origin checks as the Admin API.
 */
export function createStartingApp(opts: { loopbackOnly?: boolean }): Hono {
  const app = new Hono();
  guard(app, opts);
  app.all("*", (c) => {
    c.header("Retry-After", "1");
    // A browser opening the web UI gets a page that reloads itself, not raw JSON.
    if (c.req.method === "GET" && /\btext\/html\b/.test(c.req.header("accept") ?? "")) {
      return c.html(STARTING_PAGE, 503);
    }
    return c.json({ error: "starting" }, 503);
  });
  return app;
}

/** The page a browser gets while the service starts: it reloads every 2 s. */
export const STARTING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>Mneme is starting</title>
<style>body{font-family:system-ui,sans-serif;margin:4rem auto;max-width:36rem;color:#333}</style>
</head><body><h1>Mneme is starting…</h1>
<p>The memory service is opening its database and loading its embedding model. This page
reloads by itself; the first start can take a minute.</p></body></html>
`;

/** Build the Admin API app. */
export function createAdminApp(opts: AdminOptions): Hono {
  const { service } = opts;
  const log = opts.log ?? ((l: string) => console.error(l));
  const app = new Hono();
  app.onError(errorHandler(log));
  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
  guard(app, opts);
  healthRoute(app, opts);

  const api = new Hono();
  if (opts.apiKey) requireKey(api, opts.apiKey);
  const limit: MiddlewareHandler = limitBody(BODY_LIMIT);
  const notAllowed = (path: string, allow: string) =>
    api.all(path, (c) => {
      c.header("Allow", allow);
      return c.json({ error: `method ${c.req.method} not allowed on /api${path}` }, 405);
    });
  memoryRoutes(api, service, limit, opts.judge);
  maintenanceRoutes(api, opts, limit);
  // Known paths with another method: 405 with Allow.
  const methods: [string, string][] = [
    ["/stats", "GET"],
    ["/memories", "GET, POST, DELETE"],
    ["/memories/search", "POST"],
    ["/memories/contradictions", "POST"],
    ["/memories/export", "POST"],
    ["/memories/import", "POST"],
    ["/maintenance/reembed", "POST"],
    ["/maintenance/backup", "POST"],
  ];
  for (const [path, allow] of methods) notAllowed(path, allow);
  if (opts.expansions) expansionRoutes(api, opts.expansions, limit, notAllowed);
  api.get("/memories/:id", async (c) => c.json(await service.get(c.req.param("id"))));
  api.put("/memories/:id", limit, async (c) => {
    return c.json(await service.update(c.req.param("id"), (await jsonBody(c)) as never));
  });
  api.delete("/memories/:id", limit, async (c) => {
    const id = c.req.param("id");
    if (new URL(c.req.url).search !== "") throw badRequest("query", "is not allowed here");
    await noBody(c);
    return c.json(await service.delete(id));
  });
  notAllowed("/memories/:id", "GET, PUT, DELETE");
  if (opts.capture) api.route("/capture", captureRoute(opts.capture, opts.transcriptsDir));
  if (opts.inbox) inboxRoutes(api, opts.inbox, limit, notAllowed);
  api.all("*", (c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
  app.route("/api", api);
  app.all("/healthz", (c) => {
    c.header("Allow", "GET");
    return c.json({ error: `method ${c.req.method} not allowed on /healthz` }, 405);
  });

  if (opts.ui !== false) app.get("*", staticHandler());
  return app;
}

/** The app's error handler: a MemoryError's status and field, body errors, else 500 (logged). */
function errorHandler(log: (line: string) => void): ErrorHandler {
  return (err, c) => {
    if (err instanceof MemoryError) {
      // A database or embedder that is down or restarting: worth a retry shortly.
      if (err.status === 503) c.header("Retry-After", "5");
      const body = err.field === undefined
        ? { error: err.message }
        : { error: err.message, field: err.field };
      return c.json(body, err.status);
    }
    if (err instanceof BodyTooLarge) return errorLimit(c);
    if (err instanceof BodyTimeout) {
      const message = `the request body did not arrive within ${BODY_TIMEOUT_MS / 1000} s`;
      log(`admin: ${message} during ${c.req.method} ${c.req.path}; answered 408`);
      c.header("Connection", "close");
      return c.json({ error: message, field: "body" }, 408);
    }
    if (err instanceof ClientGone || isDisconnect(err)) {
      // Reading the body failed: the client hung up mid-body, or the runtime's server found
      // the body malformed (a bad chunk); the handler sees the same error for both, so the log
      // names both. A malformed body that arrives with its headers is dropped by the server
      // before any handler runs: the client's connection closes, and nothing is handled.
      log(
        `admin: the request body of ${c.req.method} ${c.req.path} could not be read ` +
          "(the client disconnected, or sent a malformed body)",
      );
      return c.json({ error: "request body unreadable: disconnected or malformed" }, 400);
    }
    log(`admin: internal error on ${c.req.method} ${c.req.path}: ${describeError(err)}`);
    return c.json({ error: "internal server error" }, 500);
  };
}

/** `GET /healthz`: the whole health for this machine and key holders, the status for others. */
function healthRoute(app: Hono, opts: AdminOptions): void {
  const { service } = opts;
  app.get("/healthz", async (c) => {
    const h = await service.health();
    const status = h.status === "error" ? 503 : 200;
    // Database size, versions and error texts are for this machine and for key holders; a
    // keyless caller from elsewhere learns the status only.
    const given = presentedKey(c);
    const keyed = opts.apiKey !== undefined && given !== undefined &&
      keysEqual(given, opts.apiKey);
    if (!keyed && !opts.loopbackOnly && !fromLoopback(c)) {
      return c.json({ status: h.status }, status);
    }
    return c.json(h, status);
  });
}

/** Every `/api` route asks for the API key (Bearer or `x-api-key`). */
function requireKey(api: Hono, key: string): void {
  api.use("*", async (c, next) => {
    const given = presentedKey(c);
    if (given === undefined || !keysEqual(given, key)) {
      c.header("WWW-Authenticate", 'Bearer realm="mneme"');
      return c.json({
        error: given === undefined
          ? "missing API key: send Authorization: Bearer <key> or x-api-key"
          : "invalid API key",
      }, 401);
    }
    await next();
  });
}

/**
 * The search a rerank reorders (`search(limit)`, best first): at least `limit` results and the
 * first {@link JUDGE_RERANK_POOL} that are not bootstrap memories (the pool leaves those out), as
 * far as {@link MAX_SEARCH_LIMIT}. Searched again, wider by the bootstrap memories it held, only
 * when they took part of the pool and the search was full (the ranking is the same prefix at
 * any limit).
 */
async function rerankSearch(
  search: (limit: number) => Promise<SearchResult[]>,
  limit: number,
): Promise<SearchResult[]> {
  let n = Math.max(limit, JUDGE_RERANK_POOL.limit);
  let results = await search(n);
  for (;;) {
    const bootstrap = results.filter((r) => r.memory.type === "bootstrap").length;
    const wider = Math.min(MAX_SEARCH_LIMIT, JUDGE_RERANK_POOL.limit + bootstrap);
    if (results.length < n || wider <= n) return results;
    n = wider;
    results = await search(n);
  }
}

/** The memories' routes: stats, list, create, bulk delete, contradictions, search, export, import. */
function memoryRoutes(
  api: Hono,
  service: MemoryService,
  limit: MiddlewareHandler,
  judge: RecallJudge | undefined,
): void {
  api.get("/stats", async (c) => {
    const stats = await service.stats();
    return c.json(judge ? { ...stats, judge: await judge.report() } : stats);
  });
  api.get("/memories", async (c) => c.json(await service.list(queryObject(c.req.url))));
  api.post("/memories", limit, async (c) => {
    return c.json(await service.create((await jsonBody(c)) as never), 201);
  });
  api.delete("/memories", limit, async (c) => {
    const filter = queryObject(c.req.url);
    await noBody(c);
    return c.json(await service.deleteMany(filter));
  });
  api.post("/memories/contradictions", limit, async (c) => {
    return c.json(await service.contradictions((await jsonBody(c)) as never));
  });
  api.post("/memories/search", limit, async (c) => {
    const body = await jsonBody(c);
    // Validated before anything is read of it (a body that is no object, a `judge` or `rerank`
    // that is not a boolean, both, a `judge_timeout_ms` out of 100..7000, is a 400 naming it);
    // the judge reads what the search used: the query and project validated and trimmed.
    const q = validateSearch(body);
    if (judge && q.rerank) {
      // The agent's own search: at least the rerank's pool searched, the model's choice first.
      const results = await rerankSearch(
        (n) => service.search({ ...(body as object), limit: n } as never),
        q.limit,
      );
      return c.json(
        (await rerankResults(
          judge,
          q.query,
          q.project ?? null,
          results,
          q.limit,
          q.judge_timeout_ms,
        )).results,
      );
    }
    const results = await service.search(body as never);
    if (!judge || !q.judge) return c.json(results);
    return c.json(
      (await judgeResults(judge, q.query, q.project ?? null, results, q.judge_timeout_ms)).results,
    );
  });
  api.post("/memories/export", async (c) => {
    const query = queryObject(c.req.url);
    for (const k of Object.keys(query)) {
      if (k !== "offset") throw badRequest(k, "unknown parameter; allowed: offset");
    }
    const offset = validateOffset(query.offset);
    const records = await service.export({ offset });
    // An export stops at EXPORT_MAX memories: say so, and where the next page starts.
    const total = (await service.stats()).total;
    const next = offset + records.length;
    c.header("X-Total-Count", String(Math.max(total, next)));
    c.header("X-Export-Truncated", next < total ? "true" : "false");
    if (next < total) {
      c.header("X-Next-Offset", String(next));
      c.header("Link", `</api/memories/export?offset=${next}>; rel="next"`);
    }
    c.header("Content-Disposition", 'attachment; filename="memories.json"');
    return c.json(records);
  });
  api.post(
    "/memories/import",
    limitBody(IMPORT_BODY_LIMIT),
    async (c) => c.json(await service.import((await jsonBody(c)) as never)),
  );
}

/**
 * The expansions' routes: a memory's phrases, and their removal and redoing, one memory
 * (`{"id"}`) or all (`{"all": true}`), validated like the others (errors name the field).
 */
function expansionRoutes(
  api: Hono,
  x: ExpansionAdmin,
  limit: MiddlewareHandler,
  notAllowed: (path: string, allow: string) => unknown,
): void {
  const noQuery = (c: Context) => {
    if (new URL(c.req.url).search !== "") throw badRequest("query", "is not allowed here");
  };
  api.get("/memories/:id/expansion", async (c) => {
    noQuery(c);
    return c.json(await x.expansionOf(c.req.param("id")));
  });
  notAllowed("/memories/:id/expansion", "GET");
  api.post("/expansions/clear", limit, async (c) => {
    noQuery(c);
    return c.json(await x.clearExpansions(await jsonBody(c)));
  });
  notAllowed("/expansions/clear", "POST");
  api.post("/expansions/redo", limit, async (c) => {
    noQuery(c);
    return c.json(await x.redoExpansions(await jsonBody(c)));
  });
  notAllowed("/expansions/redo", "POST");
}

/** The maintenance routes: backup (the embedded database) and re-embedding steps. */
function maintenanceRoutes(api: Hono, opts: AdminOptions, limit: MiddlewareHandler): void {
  const { service } = opts;
  api.post("/maintenance/backup", limit, async () => {
    if (!opts.backup) throw new MemoryError(404, "backup: not available on this server");
    const blob = await opts.backup();
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    return new Response(blob.stream(), {
      headers: {
        "content-type": "application/gzip",
        "content-length": String(blob.size),
        "content-disposition": `attachment; filename="mneme-backup-${stamp}.tar.gz"`,
      },
    });
  });
  api.post("/maintenance/reembed", limit, async (c) => {
    const text = await bodyText(c);
    let body: Record<string, unknown> = {};
    if (text.trim()) {
      try {
        body = JSON.parse(text);
      } catch {
        throw badRequest("body", "is not valid JSON");
      }
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        throw badRequest("body", "must be a JSON object");
      }
      for (const k of Object.keys(body)) {
        if (k !== "batch_size") throw badRequest(k, "unknown field; allowed: batch_size");
      }
    }
    const batch = body.batch_size;
    if (batch !== undefined && (typeof batch !== "number" || !Number.isInteger(batch))) {
      throw badRequest("batch_size", "must be an integer between 1 and 5000");
    }
    return c.json(await service.reembed({ batchSize: batch as number | undefined }));
  });
}

/** What the inbox's routes call ({@link Inbox}). */
export type InboxApi = Pick<
  Inbox,
  "list" | "get" | "accept" | "reject" | "edit" | "autoAccepted"
>;

/**
 * Capture's inbox: list, get, edit, accept, reject, and the memories accepted automatically
 * ({@link Inbox}).
 */
function inboxRoutes(
  api: Hono,
  inbox: InboxApi,
  limit: MiddlewareHandler,
  notAllowed: (path: string, allow: string) => unknown,
): void {
  // A JSON object, or nothing (accept's options are optional).
  const optionalBody = async (c: Context): Promise<unknown> => {
    const text = await bodyText(c);
    if (text.trim() === "") return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw badRequest("body", "is not valid JSON");
    }
  };
  const noQuery = (c: Context) => {
    if (new URL(c.req.url).search !== "") throw badRequest("query", "is not allowed here");
  };
  api.get("/inbox", async (c) => c.json(await inbox.list(queryObject(c.req.url))));
  notAllowed("/inbox", "GET");
  // Before /inbox/:id, which would take "accepted" for an id.
  api.get(
    "/inbox/accepted",
    async (c) => c.json(await inbox.autoAccepted(queryObject(c.req.url))),
  );
  notAllowed("/inbox/accepted", "GET");
  api.get("/inbox/:id", async (c) => {
    noQuery(c);
    return c.json(await inbox.get(c.req.param("id")));
  });
  api.put("/inbox/:id", limit, async (c) => {
    noQuery(c);
    return c.json(await inbox.edit(c.req.param("id"), await jsonBody(c)));
  });
  notAllowed("/inbox/:id", "GET, PUT");
  api.post("/inbox/:id/accept", limit, async (c) => {
    noQuery(c);
    return c.json(await inbox.accept(c.req.param("id"), await optionalBody(c)), 201);
  });
  notAllowed("/inbox/:id/accept", "POST");
  api.post("/inbox/:id/reject", limit, async (c) => {
    noQuery(c);
    await noBody(c, "reject takes no body");
    return c.json(await inbox.reject(c.req.param("id")));
  });
  notAllowed("/inbox/:id/reject", "POST");
}
