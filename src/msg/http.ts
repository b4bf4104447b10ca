/**
 * The one upstream HTTP client of a process: a `fetch` bound to a single reused
 * `Deno.HttpClient` (proxy with basic auth from the URL's userinfo; http, https, socks5,
 * socks5h), a dial check with timeout, and the debug dump of non-2xx responses with
 * redaction. The redaction helpers are exported for the daemon's logs.
 *
 * @module
 */

import { validateProxyUrl } from "./config.ts";
import { defaultPort } from "../common/net.ts";
import { readText } from "../common/body.ts";

/** Maximum size of each part of a debug dump. */
export const DUMP_PART_LIMIT = 8 * 1024;
/** Default dial timeout (spec: 30 seconds). */
export const DEFAULT_DIAL_TIMEOUT_MS = 30_000;

const REDACTED = "[REDACTED]";
const SECRET_HEADERS = new Set([
  "authorization",
  "cookie",
  "proxy-authorization",
  "set-cookie",
  "x-api-key",
]);
const SECRET_FIELDS = [
  "access_token",
  "refresh_token",
  "id_token",
  "accessToken",
  "refreshToken",
  "code_verifier",
  "code",
  "client_secret",
  "password",
  "api_key",
  "token",
];

/** Headers as a plain object with Authorization, Cookie, Proxy-Authorization, Set-Cookie and x-api-key redacted. */
export function redactHeaders(h: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(h).forEach((value, key) => {
    out[key] = SECRET_HEADERS.has(key.toLowerCase()) ? REDACTED : value;
  });
  return out;
}

/**
 * Redacts tokens in a body: JSON string fields and form fields named like tokens
 * (`access_token`, `refresh_token`, `accessToken`, `code_verifier`, …), `Bearer …` values and
 * strings shaped like Anthropic tokens (`sk-ant-…`).
 */
export function redactBody(text: string): string {
  let s = text;
  const names = SECRET_FIELDS.join("|");
  s = s.replace(
    new RegExp(`("(?:${names})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, "g"),
    `$1"${REDACTED}"`,
  );
  s = s.replace(new RegExp(`(^|[?&\\s])((?:${names})=)[^&\\s]*`, "g"), `$1$2${REDACTED}`);
  s = s.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, `$1${REDACTED}`);
  s = s.replace(/sk-ant-[A-Za-z0-9_-]+/g, REDACTED);
  return s;
}

/** A URL with userinfo replaced by `***:***` and token-like query parameters redacted. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return redactBody(raw.replace(/\/\/[^/@]*@/, "//***:***@"));
  }
  if (url.username !== "" || url.password !== "") {
    url.username = "***";
    url.password = url.password !== "" ? "***" : "";
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_FIELDS.includes(key) || key === "state") url.searchParams.set(key, REDACTED);
  }
  const s = url.toString();
  // Non-special schemes (socks5://) may not let URL rewrite userinfo; fall back to text.
  return s.replace(/\/\/[^/@]*:[^/@]*@/, "//***:***@");
}

/** Cuts a part at {@link DUMP_PART_LIMIT} bytes-ish (characters), noting the cut. */
export function cut(text: string, limit = DUMP_PART_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… [cut: ${text.length - limit} more characters]`;
}

/** Options of {@link createUpstreamFetch}. */
export interface UpstreamFetchOptions {
  /** Validated proxy URL (http, https, socks5, socks5h); userinfo becomes basic auth. */
  proxy?: string;
  /** Timeout for establishing the TCP connection to the first hop; default 30000. */
  dialTimeoutMs?: number;
  /** Dump non-2xx responses to `log`. */
  debug?: boolean;
  /** Where debug lines go; default stderr. */
  log?: (s: string) => void;
  /** TCP dial used for the dial check (tests inject a slow one); default `Deno.connect`. */
  connect?: (o: { hostname: string; port: number }) => Promise<{ close(): void }>;
}

/** A fetch bound to one reused client; call `close()` when done. */
export interface UpstreamFetch {
  fetch: typeof fetch;
  close(): void;
}

/** Error for a first hop that could not be reached within the dial timeout. */
export class DialError extends Error {
  readonly host: string;
  constructor(host: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "DialError";
    this.host = host;
  }
}

function bodyText(body: BodyInit | null | undefined): string {
  if (body === undefined || body === null) return "";
  if (typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  return "[body not captured]";
}

function buildProxy(url: URL): Deno.Proxy {
  const scheme = url.protocol.replace(/:$/, "");
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const host = url.host !== "" ? url.host : url.hostname;
  // The proxy URL passed to Deno carries no userinfo; credentials go in basicAuth.
  const bare = `${scheme}://${host}`;
  const proxy: Deno.Proxy = {
    transport: scheme === "https" ? "https" : scheme === "http" ? "http" : "socks5",
    url: bare,
  };
  if (username !== "" || password !== "") proxy.basicAuth = { username, password };
  return proxy;
}

/**
 * Creates the process's upstream fetch. One `Deno.HttpClient` is created and reused for
 * every request (connection pooling). Before the first request to each first hop (the proxy,
 * or the target origin when direct) a TCP dial is checked with `dialTimeoutMs`, since
 * `Deno.createHttpClient` has no connect-timeout option; the check runs once per hop.
 */
export function createUpstreamFetch(opts: UpstreamFetchOptions = {}): UpstreamFetch {
  const log = opts.log ?? ((s: string) => console.error(s));
  const dialTimeoutMs = opts.dialTimeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS;
  const proxyUrl = opts.proxy !== undefined ? validateProxyUrl(opts.proxy) : undefined;
  const client = Deno.createHttpClient(proxyUrl ? { proxy: buildProxy(proxyUrl) } : {});
  const dialed = new Map<string, Promise<void>>();

  function firstHop(target: URL): { hostname: string; port: number } {
    const u = proxyUrl ?? target;
    const hostname = u.hostname.replace(/^\[|\]$/g, "");
    return { hostname, port: u.port !== "" ? Number(u.port) : defaultPort(u.protocol) ?? 80 };
  }

  function dialCheck(target: URL): Promise<void> {
    const hop = firstHop(target);
    const key = `${hop.hostname}:${hop.port}`;
    let p = dialed.get(key);
    if (p === undefined) {
      // The host that was not reached is named as what it is (the proxy, or the target).
      const what = proxyUrl ? `the proxy ${key}` : key;
      p = (async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new DialError(key, `connecting to ${what} timed out after ${dialTimeoutMs} ms`),
              ),
            dialTimeoutMs,
          );
        });
        const connecting = (opts.connect ?? Deno.connect)({
          hostname: hop.hostname,
          port: hop.port,
        });
        try {
          const conn = await Promise.race([connecting, timeout]);
          conn.close();
        } catch (e) {
          connecting.then((c) => c.close(), () => {});
          if (e instanceof DialError) throw e;
          throw new DialError(key, `cannot connect to ${what}: ${(e as Error).message}`, {
            cause: e,
          });
        } finally {
          clearTimeout(timer);
        }
      })();
      dialed.set(key, p);
      // A failed check is retried on the next request.
      p.catch(() => dialed.delete(key));
    }
    return p;
  }

  const wrapped = async (
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> => {
    const req = input instanceof Request ? input : undefined;
    const url = new URL(req ? req.url : input instanceof URL ? input.href : String(input));
    const method = init?.method ?? req?.method ?? "GET";
    await dialCheck(url);
    const started = performance.now();
    const res = await fetch(input, { ...init, client } as RequestInit);
    if (opts.debug && res.ok) {
      const elapsed = Math.round(performance.now() - started);
      log(`[msgcli debug] ${method} ${redactUrl(url.href)} -> ${res.status} (${elapsed} ms)`);
    }
    if (opts.debug && !res.ok) {
      const elapsed = Math.round(performance.now() - started);
      let resBody = "";
      try {
        resBody = await readText(res.clone(), { limit: 64 * 1024, truncate: true });
      } catch (e) {
        resBody = `[unreadable: ${(e as Error).message}]`;
      }
      const hop = firstHop(url);
      const lines = [
        `[msgcli debug] ${method} ${
          redactUrl(url.href)
        } -> ${res.status} ${res.statusText} (${elapsed} ms)`,
        `  local address: n/a (not exposed by fetch); remote address: ${hop.hostname}:${hop.port}${
          proxyUrl ? " (proxy)" : ""
        }`,
        `  proxy: ${proxyUrl ? redactUrl(opts.proxy ?? "") : "none"}`,
        `  request headers: ${cut(JSON.stringify(redactHeaders(init?.headers ?? req?.headers)))}`,
        `  request body: ${cut(redactBody(bodyText(init?.body)))}`,
        `  response headers: ${cut(JSON.stringify(redactHeaders(res.headers)))}`,
        `  response body: ${cut(redactBody(resBody))}`,
      ];
      log(lines.join("\n"));
    }
    return res;
  };

  return {
    fetch: wrapped as typeof fetch,
    close: () => client.close(),
  };
}
