/**
 * A small HTTP/1.1 server that checks the framing of each request before its handler sees it,
 * in place of `Deno.serve`.
 *
 * `Deno.serve` (Deno 2.9) has no header timeout, and when a request's headers and a malformed
 * chunked body arrive together it drops the connection before the handler runs: no answer, no
 * log. {@link serveFramed} listens on the public address itself (`Deno.listen`) and calls the
 * handler itself: there is no `Deno.serve` and no second connection behind it. Each request is
 * read in full first (its headers within {@link HEADER_TIMEOUT_MS}, its body with no pause
 * longer than {@link BODY_STALL_MS}, the whole within {@link REQUEST_TIMEOUT_MS}) and its
 * framing checked (request line, header lines, `Content-Length`, `Transfer-Encoding`, every
 * chunk); only a complete, well-framed request becomes the handler's `Request`. Otherwise the
 * front answers itself (400 malformed, 408 too slow, 413 too large, 431 headers too large),
 * with `Connection: close`, logs what happened, and closes the connection.
 *
 * Responses are written as they come, so long streaming responses are never cut: the timeouts
 * only cover what the client sends. A body complete at once (a string, bytes, JSON) goes out
 * in one write with its `Content-Length`; a body of known length (the handler's
 * `Content-Length`) as it is; any other body chunked, each piece as soon as the handler gives
 * it, or, to an HTTP/1.0 client, unframed and ended by closing the connection. A client that
 * goes away aborts its request's `signal` and cancels the response's body.
 *
 * The handler sees the client's own address in `info.remoteAddr`.
 * @module
 */

/** The request headers must arrive within this long (ms), or 408 and close. */
export const HEADER_TIMEOUT_MS = 10_000;
/** A request body may pause at most this long (ms), or 408 and close. */
export const BODY_STALL_MS = 10_000;
/** A whole request (headers and body) must arrive within this long (ms), or 408 and close. */
export const REQUEST_TIMEOUT_MS = 300_000;
/** An idle kept-alive connection (no request under way, every response sent) closes after this long (ms). */
export const IDLE_TIMEOUT_MS = 120_000;
/** Largest request line plus headers (bytes), or 431. */
export const MAX_HEAD_BYTES = 64 * 1024;

/** What the front checks and how it answers. */
export interface FrontOptions {
  /** Public address. */
  hostname: string;
  port: number;
  /** One line per event, e.g. `admin: …`. */
  log: (line: string) => void;
  /** Prefix of the log lines (e.g. `admin`). */
  name: string;
  /** JSON body of the front's own answers (default `{ error, field }`). */
  errorBody?: (status: number, message: string, field: "headers" | "body") => unknown;
  /** Largest request body (bytes), or 413 (default 64 MiB). */
  maxBodyBytes?: number;
  headerTimeoutMs?: number;
  bodyStallMs?: number;
  requestTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** The answer when the handler throws (as `Deno.serve`'s `onError`; default a plain 500). */
  onError?: (error: unknown) => Response | Promise<Response>;
}

/** A running front and its server. */
export interface FramedServer {
  /** The public address. */
  addr: Deno.NetAddr;
  /** Stops accepting, lets requests under way finish (as `Deno.HttpServer.shutdown`), closes. */
  shutdown(): Promise<void>;
  /** Resolves once everything is closed. */
  finished: Promise<void>;
}

/** A request the front refuses: its status, which part, and why. */
class Refused extends Error {
  constructor(readonly status: number, readonly field: "headers" | "body", message: string) {
    super(message);
  }
}

/** The client closed its connection in the middle of a request. */
class Disconnected extends Error {}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([^\s]+) HTTP\/(\d)\.(\d)$/;
const latin1 = new TextDecoder("latin1");
const encodeLatin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  206: "Partial Content",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  507: "Insufficient Storage",
  529: "Overloaded",
};

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await conn.write(bytes.subarray(at));
}

function closeQuietly(conn: Deno.Conn | null): void {
  try {
    conn?.close();
  } catch { /* already closed */ }
}

/** Index just past the blank line that ends a head (CRLF or bare LF lines), or -1. */
function headEnd(buf: Uint8Array, from: number): number {
  for (let i = Math.max(from, 1); i < buf.length; i++) {
    if (buf[i] !== 10) continue;
    if (buf[i - 1] === 10) return i + 1;
    if (buf[i - 1] === 13 && i >= 2 && buf[i - 2] === 10) return i + 1;
  }
  return -1;
}

/** A parsed request head. */
interface Head {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  body: { kind: "none" } | { kind: "length"; n: number } | { kind: "chunked" };
  expectContinue: boolean;
  /** The client asks to keep the connection (HTTP/1.1 without `Connection: close`). */
  keepAlive: boolean;
}

function parseHead(bytes: Uint8Array): Head {
  const lines = latin1.decode(bytes).split(/\r?\n/);
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  const m = REQUEST_LINE.exec(lines[0] ?? "");
  if (!m || m[3] !== "1") {
    throw new Refused(400, "headers", `malformed request line ${JSON.stringify(lines[0])}`);
  }
  const [, method, target, , minor] = m;
  const lengths: string[] = [];
  const headers: [string, string][] = [];
  let te: string | null = null;
  let expectContinue = false;
  let keepAlive = minor !== "0";
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) {
      throw new Refused(400, "headers", `malformed header line ${JSON.stringify(line)}`);
    }
    const value = line.slice(colon + 1).trim();
    headers.push([name, value]);
    switch (name.toLowerCase()) {
      case "content-length":
        lengths.push(...value.split(",").map((v) => v.trim()));
        break;
      case "transfer-encoding":
        te = te === null ? value : `${te}, ${value}`;
        break;
      case "expect":
        expectContinue = value.toLowerCase() === "100-continue";
        break;
      case "connection":
        if (/\bclose\b/i.test(value)) keepAlive = false;
        else if (/\bkeep-alive\b/i.test(value)) keepAlive = true;
        break;
    }
  }
  let body: Head["body"] = { kind: "none" };
  if (te !== null) {
    if (lengths.length) {
      throw new Refused(400, "headers", "both Content-Length and Transfer-Encoding are set");
    }
    const last = te.split(",").pop()!.trim().toLowerCase();
    if (last !== "chunked") {
      throw new Refused(400, "headers", `Transfer-Encoding ${JSON.stringify(te)} is not chunked`);
    }
    body = { kind: "chunked" };
  } else if (lengths.length) {
    if (!lengths.every((v) => /^\d{1,15}$/.test(v) && v === lengths[0])) {
      throw new Refused(400, "headers", `malformed Content-Length ${JSON.stringify(lengths)}`);
    }
    const n = Number(lengths[0]);
    if (n > 0) body = { kind: "length", n };
  }
  return { method, target, version: `1.${minor}`, headers, body, expectContinue, keepAlive };
}

const encoder = new TextEncoder();
let dateSecond = -1;
let dateText = "";

/** The `Date` header's value, computed once a second (as hyper, behind `Deno.serve`, does). */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/**
 * The head of a response with its framing headers (`framing`). `connection: close` when the
 * connection closes after it; `connection: keep-alive` to an HTTP/1.0 client that keeps it.
 */
function responseHead(res: Response, close: boolean, framing: string, http10: boolean): Uint8Array {
  let head = `HTTP/1.1 ${res.status} ${res.statusText || STATUS_TEXT[res.status] || ""}\r\n`;
  let date = false;
  for (const [k, v] of res.headers) {
    const lower = k.toLowerCase();
    if (lower === "content-length" || lower === "transfer-encoding" || lower === "connection") {
      continue;
    }
    if (lower === "date") date = true;
    head += `${k}: ${v}\r\n`;
  }
  if (!date) head += `date: ${httpDate()}\r\n`;
  if (close) head += "connection: close\r\n";
  else if (http10) head += "connection: keep-alive\r\n";
  return encoder.encode(`${head}${framing}\r\n`);
}

const CRLF = new Uint8Array([13, 10]);
const UNSETTLED = Symbol("unsettled");
/** Settled already: a read that has not settled yet loses a race against it. */
const SETTLED = Promise.resolve(UNSETTLED);
const LAST_CHUNK = new Uint8Array([48, 13, 10, 13, 10]);

/** One chunk of a chunked body (with `head` before it, if any). */
function chunkOf(data: Uint8Array, head?: Uint8Array): Uint8Array {
  const size = encoder.encode(`${data.length.toString(16)}\r\n`);
  const out = new Uint8Array((head?.length ?? 0) + size.length + data.length + 2);
  let at = 0;
  if (head) {
    out.set(head);
    at = head.length;
  }
  out.set(size, at);
  out.set(data, at + size.length);
  out.set(CRLF, at + size.length + data.length);
  return out;
}

/**
 * Serves `handler` on `hostname:port` (see the module). Throws `Deno.errors.AddrInUse` when
 * the port is taken, as `Deno.serve` does.
 */
export function serveFramed(
  opts: FrontOptions,
  handler: (
    req: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ) => Response | Promise<Response>,
): FramedServer {
  const headerMs = opts.headerTimeoutMs ?? HEADER_TIMEOUT_MS;
  const stallMs = opts.bodyStallMs ?? BODY_STALL_MS;
  const idleMs = opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const requestMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const maxBody = opts.maxBodyBytes ?? 64 * 1024 * 1024;
  const errorBody = opts.errorBody ??
    ((_status: number, message: string, field: string) => ({ error: message, field }));
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
  const port = listener.addr.port;
  /** Open connections, and whether a request is being answered on each. */
  const open = new Map<Deno.Conn, { busy: boolean }>();
  const ended = new Set<Promise<void>>();
  let stopping = false;

  async function connection(client: Deno.TcpConn, state: { busy: boolean }): Promise<void> {
    client.setNoDelay(true);
    const remoteAddr = client.remoteAddr;
    const from = remoteAddr.hostname;

    // Reads from the client, each with a deadline.
    const chunk = new Uint8Array(64 * 1024);
    let pending: Promise<number | null> | null = null;
    const read = async (ms: number): Promise<Uint8Array | null | "timeout"> => {
      pending ??= client.read(chunk);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)));
      try {
        const n = await Promise.race([pending, late]);
        if (n === "timeout") return "timeout";
        pending = null;
        return n === null ? null : chunk.slice(0, n);
      } finally {
        clearTimeout(timer);
      }
    };

    async function refuse(e: Refused, what: string): Promise<void> {
      opts.log(`${opts.name}: ${e.message}${what} from ${from}; answered ${e.status}`);
      const body = encoder.encode(
        JSON.stringify(errorBody(e.status, e.message, e.field)),
      );
      const head = `HTTP/1.1 ${e.status} ${STATUS_TEXT[e.status]}\r\n` +
        "content-type: application/json\r\ncache-control: no-store\r\nconnection: close\r\n" +
        `date: ${httpDate()}\r\ncontent-length: ${body.length}\r\n\r\n`;
      await writeAll(client, concat(encodeLatin1(head), body)).catch(() => {});
    }

    let buf: Uint8Array = new Uint8Array(0);
    let first = true;
    try {
      while (!stopping) {
        // Headers: the first request's from the connection's start, later ones from their
        // first byte; in between, an idle connection closes after `idleMs`.
        state.busy = false;
        let deadline = first ? Date.now() + headerMs : Infinity;
        let scanned = 0;
        let end = -1;
        while (true) {
          // Blank lines before a request line are allowed (RFC 9112 2.2).
          while (buf.length && (buf[0] === 13 || buf[0] === 10)) buf = buf.subarray(1);
          if ((end = headEnd(buf, scanned)) >= 0) break;
          scanned = Math.max(0, buf.length - 3);
          if (buf.length > MAX_HEAD_BYTES) {
            throw new Refused(431, "headers", `request headers over ${MAX_HEAD_BYTES} bytes`);
          }
          if (buf.length > 0 && deadline === Infinity) deadline = Date.now() + headerMs;
          const ms = deadline === Infinity ? idleMs : deadline - Date.now();
          const got = ms > 0 ? await read(ms) : "timeout";
          if (got === null) return; // The client closed.
          if (got === "timeout") {
            if (buf.length === 0) return; // Connected or kept alive, sent nothing: close.
            throw new Refused(
              408,
              "headers",
              `the request headers did not arrive within ${headerMs / 1000} s`,
            );
          }
          buf = concat(buf, got);
        }
        const requestDeadline = (deadline === Infinity ? Date.now() : deadline - headerMs) +
          requestMs;
        first = false;
        const head = parseHead(buf.subarray(0, end));
        buf = buf.subarray(end);
        const path = head.target.split("?")[0];
        const what = ` during ${head.method} ${path}`;
        const parts: Uint8Array[] = [];
        try {
          if (head.expectContinue && head.body.kind !== "none") {
            await writeAll(client, encodeLatin1("HTTP/1.1 100 Continue\r\n\r\n"));
          }
          // The body: read in full, its framing checked, before the handler sees the request.
          let size = 0;
          const more = async (): Promise<Uint8Array> => {
            const left = requestDeadline - Date.now();
            const got = left > 0 ? await read(Math.min(stallMs, left)) : "timeout";
            if (got === "timeout" && Date.now() >= requestDeadline) {
              throw new Refused(
                408,
                "body",
                `the request did not arrive in full within ${requestMs / 1000} s`,
              );
            }
            if (got === "timeout") {
              throw new Refused(
                408,
                "body",
                `the request body stalled (nothing for ${stallMs / 1000} s)`,
              );
            }
            if (got === null) throw new Disconnected();
            return got;
          };
          const take = (n: number, data: boolean): Uint8Array => {
            const out = buf.subarray(0, n);
            buf = buf.subarray(n);
            if (data) {
              size += out.length;
              if (size > maxBody) {
                throw new Refused(413, "body", `the request body is over ${maxBody} bytes`);
              }
              parts.push(out);
            }
            return out;
          };
          if (head.body.kind === "length") {
            if (head.body.n > maxBody) {
              throw new Refused(413, "body", `the request body is over ${maxBody} bytes`);
            }
            let left = head.body.n;
            while (left > 0) {
              if (buf.length === 0) buf = await more();
              left -= take(Math.min(left, buf.length), true).length;
            }
          } else if (head.body.kind === "chunked") {
            const line = async (): Promise<string> => {
              let nl: number;
              while ((nl = buf.indexOf(10)) < 0) {
                if (buf.length > 4096) {
                  throw new Refused(
                    400,
                    "body",
                    "malformed chunked body: a chunk line is too long",
                  );
                }
                buf = concat(buf, await more());
              }
              const raw = take(nl + 1, false);
              const text = latin1.decode(raw.subarray(0, raw.length - 1));
              return text.endsWith("\r") ? text.slice(0, -1) : text;
            };
            while (true) {
              const sizeLine = await line();
              const m = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/.exec(sizeLine);
              if (!m) {
                throw new Refused(
                  400,
                  "body",
                  `malformed chunked body: chunk size ${JSON.stringify(sizeLine.slice(0, 40))} ` +
                    "is not hexadecimal",
                );
              }
              let left = parseInt(m[1], 16);
              if (left === 0) break;
              if (size + left > maxBody) {
                throw new Refused(413, "body", `the request body is over ${maxBody} bytes`);
              }
              while (left > 0) {
                if (buf.length === 0) buf = await more();
                left -= take(Math.min(left, buf.length), true).length;
              }
              if ((await line()) !== "") {
                throw new Refused(
                  400,
                  "body",
                  "malformed chunked body: a chunk is longer than its size",
                );
              }
            }
            // Trailers, up to the blank line.
            let trailer = 0;
            while ((await line()) !== "") {
              if (++trailer > 100) {
                throw new Refused(400, "body", "malformed chunked body: too many trailers");
              }
            }
          }
        } catch (err) {
          if (err instanceof Refused) {
            await refuse(err, what);
            return;
          }
          if (err instanceof Disconnected) {
            opts.log(`${opts.name}: the client disconnected${what}, before its body ended`);
            return;
          }
          throw err;
        }

        // The request, as Deno.serve would build it. From here on the request is under way:
        // a shutdown lets it finish.
        state.busy = true;
        const aborter = new AbortController();
        let body: Uint8Array | null = null;
        if (parts.length === 1) body = parts[0];
        else if (parts.length > 1) {
          body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          let at = 0;
          for (const p of parts) {
            body.set(p, at);
            at += p.length;
          }
        }
        const hasBody = head.method !== "GET" && head.method !== "HEAD";
        let req: Request;
        try {
          // Host as `Headers.get` gives it (several are joined, and then refused by `URL`).
          const hosts = head.headers.filter(([k]) => k.toLowerCase() === "host").map(([, v]) => v);
          const host = hosts.length ? hosts.join(", ") : `${opts.hostname}:${port}`;
          const url = head.target.startsWith("/") ? `http://${host}${head.target}` : head.target;
          // The header pairs go to `Request` as they are: it checks them as `Headers` would.
          req = new Request(new URL(url), {
            method: head.method,
            headers: head.headers,
            body: hasBody && body ? body as Uint8Array<ArrayBuffer> : null,
            signal: aborter.signal,
          });
        } catch {
          await refuse(new Refused(400, "headers", "malformed request target or header"), what);
          return;
        }
        // While it is answered, a closed connection aborts the request (and its response).
        let gone = false;
        pending ??= client.read(chunk);
        const watched = pending;
        watched.then((n) => {
          if (n === null && pending === watched) {
            gone = true;
            aborter.abort(new DOMException("the client disconnected", "AbortError"));
          }
        }, () => {
          gone = true;
          aborter.abort(new DOMException("the client disconnected", "AbortError"));
        });
        let completed!: () => void;
        const info = {
          remoteAddr,
          completed: new Promise<void>((r) => (completed = r)),
        };
        let res: Response;
        try {
          res = await handler(req, info);
        } catch (err) {
          if (opts.onError) res = await opts.onError(err);
          else {
            opts.log(`${opts.name}: internal error${what}: ${(err as Error)?.message ?? err}`);
            res = new Response("Internal Server Error", { status: 500 });
          }
        }
        const close = !head.keepAlive || stopping || gone ||
          /\bclose\b/i.test(res.headers.get("connection") ?? "");
        const ok = await send(res, head.method, close, head.version === "1.0", aborter.signal);
        completed();
        if (!ok || close) return;
      }
    } catch (err) {
      if (err instanceof Refused) await refuse(err, "");
      // Otherwise the connection failed: nothing to answer.
    } finally {
      closeQuietly(client);
    }

    /**
     * Writes `res`; false when the connection must close after it (the client went away, a
     * body shorter than its length, a body ended by closing to an HTTP/1.0 client).
     */
    async function send(
      res: Response,
      method: string,
      close: boolean,
      http10: boolean,
      signal: AbortSignal,
    ): Promise<boolean> {
      const noBody = method === "HEAD" || res.status === 204 || res.status === 304;
      if (noBody || res.body === null) {
        await res.body?.cancel().catch(() => {});
        const length = res.headers.get("content-length");
        const framing = noBody
          ? (method === "HEAD" && length !== null ? `content-length: ${length}\r\n` : "")
          : "content-length: 0\r\n";
        try {
          await writeAll(client, responseHead(res, close, framing, http10));
          return true;
        } catch {
          return false;
        }
      }
      const reader = res.body.getReader();
      const onAbort = () => reader.cancel().catch(() => {});
      signal.addEventListener("abort", onAbort);
      try {
        // What the body holds already: a body complete at once (a string, bytes, JSON) has
        // ended by its second read without waiting; a stream's next piece is not waited for.
        type Piece = ReadableStreamReadResult<Uint8Array>;
        const held: Piece[] = [await reader.read()];
        let ahead: Promise<Piece> | null = null;
        if (!held[0].done) {
          const next = reader.read();
          const now = await Promise.race([next, SETTLED]);
          if (now === UNSETTLED) ahead = next;
          else held.push(now);
        }
        const declaredText = res.headers.get("content-length");
        const declared = declaredText !== null && /^\d{1,15}$/.test(declaredText)
          ? Number(declaredText)
          : null;
        const whole = held[0].done ? new Uint8Array(0) : held[1]?.done ? held[0].value : null;
        if (whole && (declared === null || declared === whole.length)) {
          // Complete: one write, with its length.
          const head = responseHead(res, close, `content-length: ${whole.length}\r\n`, http10);
          await writeAll(client, concat(head, whole));
          return true;
        }
        /** The body's pieces in order, the ones read above first. */
        const nextPiece = (): Promise<Piece> => {
          const r = held.shift();
          if (r) return Promise.resolve(r);
          if (ahead) {
            const p = ahead;
            ahead = null;
            return p;
          }
          return reader.read();
        };
        if (declared !== null) {
          // The length the handler gave (a proxied response's): the body as it is.
          let head: Uint8Array | undefined = responseHead(
            res,
            close,
            `content-length: ${declared}\r\n`,
            http10,
          );
          let sent = 0;
          while (true) {
            const r = await nextPiece();
            if (r.done) break;
            sent += r.value.length;
            if (sent > declared) throw new Error("the body is longer than its length");
            await writeAll(client, head ? concat(head, r.value) : r.value);
            head = undefined;
          }
          if (head) await writeAll(client, head);
          // A body shorter than its length leaves the client waiting: close.
          return sent === declared;
        }
        if (http10) {
          // HTTP/1.0 has no chunked coding: the body as it comes, ended by closing.
          let head: Uint8Array | undefined = responseHead(res, true, "", false);
          while (true) {
            const r = await nextPiece();
            if (r.done) break;
            if (r.value.length === 0) continue;
            await writeAll(client, head ? concat(head, r.value) : r.value);
            head = undefined;
          }
          if (head) await writeAll(client, head);
          return false;
        }
        let head: Uint8Array | undefined = responseHead(
          res,
          close,
          "transfer-encoding: chunked\r\n",
          http10,
        );
        while (true) {
          const r = await nextPiece();
          if (r.done) break;
          if (r.value.length === 0) continue;
          await writeAll(client, chunkOf(r.value, head));
          head = undefined;
        }
        await writeAll(client, head ? concat(head, LAST_CHUNK) : LAST_CHUNK);
        return true;
      } catch {
        onAbort();
        return false;
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    }
  }

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        const state = { busy: false };
        open.set(conn, state);
        const done = connection(conn, state).finally(() => {
          open.delete(conn);
          ended.delete(done);
        });
        ended.add(done);
      }
    } catch { /* closed */ }
  })();

  let finishing: Promise<void> | null = null;
  let resolveFinished!: () => void;
  const finished = new Promise<void>((r) => (resolveFinished = r));
  const shutdown = () => {
    finishing ??= (async () => {
      stopping = true;
      try {
        listener.close();
      } catch { /* closed */ }
      await accepting;
      // Idle connections close now; a request under way is answered first (then closes).
      for (const [c, state] of open) if (!state.busy) closeQuietly(c);
      await Promise.all([...ended]);
      resolveFinished();
    })();
    return finishing;
  };
  return { addr: listener.addr, shutdown, finished };
}
