/**
 * Network names shared by every program: which hosts are this machine, and the port a URL
 * scheme uses when none is written.
 * @module
 */

function isLoopbackV4(h: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && Number(m[1]) === 127 && m.slice(2).every((o) => Number(o) <= 255);
}

/**
 * True for loopback host names and addresses: `localhost` and `*.localhost` (with or without
 * the trailing dot of a fully qualified name), 127.0.0.0/8, `::1`, and 127.0.0.0/8 written as
 * an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`). Brackets around an IPv6
 * address are ignored; case does not matter.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isLoopbackV4(h)) return true;
  if (h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const mapped = /^(?:::|0:0:0:0:0:)ffff:(.+)$/.exec(h);
  if (mapped === null) return false;
  if (isLoopbackV4(mapped[1])) return true;
  return /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(mapped[1]);
}

const DEFAULT_PORTS: Record<string, number> = {
  "http:": 80,
  "https:": 443,
  "postgres:": 5432,
  "postgresql:": 5432,
  "socks5:": 1080,
  "socks5h:": 1080,
};

/** The port a URL scheme (`"https:"`, with the colon) uses when none is given; else undefined. */
export function defaultPort(protocol: string): number | undefined {
  return DEFAULT_PORTS[protocol];
}

/**
 * The URL a client on this machine uses for a server listening on `hostname:port`: a wildcard
 * bind answers on loopback (`0.0.0.0` or an empty host at 127.0.0.1, `::` at `::1`), and an IPv6
 * address is written in brackets.
 */
export function clientUrl(hostname: string, port: number): string {
  let h = hostname.replace(/^\[|\]$/g, "");
  if (h === "0.0.0.0" || h === "") h = "127.0.0.1";
  else if (h === "::") h = "::1";
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
}

/**
 * The loopback names a proxy never carries, in the form Deno's `NO_PROXY` matches them: a
 * name (with its subdomains), an IPv4 block, an IPv6 address.
 */
export const LOOPBACK_NO_PROXY: readonly string[] = ["localhost", "127.0.0.0/8", "::1"];

/** The variables {@link keepLoopbackOffProxies} reads and sets. */
export const NO_PROXY_ENV: readonly string[] = ["NO_PROXY", "no_proxy"];

/**
 * Keeps this process's calls to loopback off any proxy of the environment. Deno's `fetch`
 * sends a request through `HTTP_PROXY`, `HTTPS_PROXY` or `ALL_PROXY` (either case) unless
 * `NO_PROXY` names its host (`no_proxy` only when `NO_PROXY` is unset), read from the process's
 * environment when its first client is made; a proxy that cannot reach this machine's
 * 127.0.0.1 then fails every call to a service here. So this adds {@link LOOPBACK_NO_PROXY} to
 * `NO_PROXY` (with what the list Deno reads held), to be run before the first `fetch`; children
 * started afterwards inherit it. Does nothing without the permission for both variables.
 */
export function keepLoopbackOffProxies(): void {
  for (const variable of NO_PROXY_ENV) {
    if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") return;
  }
  // The list Deno reads: NO_PROXY, else no_proxy.
  const have = (Deno.env.get("NO_PROXY") ?? Deno.env.get("no_proxy") ?? "").split(",")
    .map((s) => s.trim()).filter((s) => s !== "");
  const missing = LOOPBACK_NO_PROXY.filter((n) => !have.includes(n));
  if (missing.length === 0) return;
  Deno.env.set("NO_PROXY", [...new Set(have), ...missing].join(","));
}

/**
 * A client whose every connection goes straight to the host and port of the `http:` URL
 * `url`, whatever proxy the environment names (`HTTP_PROXY`, `ALL_PROXY`) and whatever
 * `NO_PROXY` says: for a program that keeps the environment's proxy for its other calls, and
 * so cannot add loopback to `NO_PROXY` ({@link keepLoopbackOffProxies}: Deno's `NO_PROXY`
 * also bypasses a client's own proxy), to reach a service of its own on this machine. Close
 * it after use.
 */
export function directClient(url: string): Deno.HttpClient {
  const u = new URL(url);
  return Deno.createHttpClient({
    proxy: {
      transport: "tcp",
      hostname: u.hostname.replace(/^\[|\]$/g, ""),
      port: u.port ? Number(u.port) : defaultPort(u.protocol) ?? 80,
    },
  });
}
