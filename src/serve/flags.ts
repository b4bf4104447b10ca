/**
 * `msgcli serve` flags: `--listen ADDR` (default `127.0.0.1:8787`), `--auth-key KEY` (else
 * `MSGCLI_SERVE_KEY`), `--refresh-margin DURATION` (default `10m`), and the global
 * `--proxy URL`, `--debug`, `--help`. Unknown flags are errors (strict parsing), reported
 * before any network activity.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { isLoopbackHost } from "../common/net.ts";
import { UsageError } from "../common/errors.ts";
import { parseDuration } from "./duration.ts";

/** Default listen address. */
export const DEFAULT_LISTEN = "127.0.0.1:8787";
/** Default refresh margin (10 minutes). */
export const DEFAULT_REFRESH_MARGIN_MS = 10 * 60_000;

/** A parsed listen address. `hostname` has no brackets for IPv6. */
export interface ListenAddress {
  hostname: string;
  port: number;
}

/** Parsed `serve` options. */
export interface ServeFlags {
  listen: ListenAddress;
  /** The daemon key (flag, else `MSGCLI_SERVE_KEY`); undefined means no key. */
  authKey?: string;
  refreshMarginMs: number;
  /** `--proxy` as given (validated later together with the proxy env variables). */
  proxyFlag?: string;
  debug: boolean;
  help: boolean;
  /** `--version` / `-v` (a global flag of msgcli): print the version and exit. */
  version: boolean;
  /**
   * A service command (`msgcli serve start|stop|restart|status`); absent: run in the
   * foreground.
   */
  action?: ServeAction;
  /**
   * Debug-only: print the daemon's permission state as JSON (probing `url` as an
   * outside host) and exit. Used by the test that proves the lock.
   */
  permissionProbe?: string;
}

/** The service commands of `msgcli serve`. */
export const SERVE_ACTIONS = ["start", "stop", "restart", "status", "enable", "disable"] as const;
/** A service command. */
export type ServeAction = (typeof SERVE_ACTIONS)[number];

/** Usage text of `msgcli serve`. */
export const SERVE_USAGE = `Usage: msgcli serve [flags]                      run in the foreground
       msgcli serve start|restart [flags]        run in the background
       msgcli serve stop | msgcli serve status   stop it; one line: pid, URL, token state
       msgcli serve enable [flags] | disable     start it at login (systemd user unit,
                                                 launchd agent, or printed instructions)

Runs the local proxy daemon for the Messages API: POST /v1/messages,
POST /v1/messages/count_tokens, GET /healthz, GET /usage. It keeps the OAuth token of your
Claude subscription fresh, so that your own scripts, SDK programs and tools reach the API
through one local endpoint: point them at it with

  ANTHROPIC_BASE_URL=http://${DEFAULT_LISTEN}   (the key, if you set one, as ANTHROPIC_API_KEY)

or let "msgcli run -- COMMAND..." start the daemon and set the variables for COMMAND.
In the background, its pid, state and log (serve.pid, serve.json, serve.log) are in the
credentials file's directory (default ~/.config/msgcli/). "status" exits 0 when the daemon
runs and is ok, 2 when it runs but is not (no credentials, token dead), 3 when it does not run.

Flags:
  --listen ADDR              listen address (default ${DEFAULT_LISTEN}); a non-loopback
                             address requires an auth key
  --auth-key KEY             key required on every endpoint but /healthz
                             (default: env MSGCLI_SERVE_KEY). Prefer MSGCLI_SERVE_KEY:
                             a key on the command line shows in \`ps\` and in the
                             "Task …" line that deno task prints
  --refresh-margin DURATION  refresh the token when it expires within this (default 10m)
  --proxy URL                route API and OAuth traffic through a proxy
                             (http, https, socks5, socks5h; default: HTTPS_PROXY, ALL_PROXY)
  --debug                    verbose logging to stderr (also MSGCLI_DEBUG=1)
  -h, --help                 show this help
  -v, --version              print the version
`;

/** Parses `host:port`, `[v6]:port` or `:port` (all interfaces). */
export function parseListen(raw: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\[\]]*)):(\d{1,5})$/.exec(raw.trim());
  if (!m) {
    throw new UsageError(
      `--listen: expected HOST:PORT or [IPv6]:PORT, got ${JSON.stringify(raw)}`,
    );
  }
  const port = Number(m[3]);
  if (port > 65535) throw new UsageError(`--listen: port out of range: ${port}`);
  const hostname = m[1] ?? (m[2] === "" ? "0.0.0.0" : m[2]);
  return { hostname, port };
}

/** Formats a listen address back into `host:port` (brackets for IPv6). */
export function formatListen(addr: ListenAddress): string {
  return addr.hostname.includes(":")
    ? `[${addr.hostname}]:${addr.port}`
    : `${addr.hostname}:${addr.port}`;
}

/**
 * Parses the `serve` arguments (without the `serve` word). `env` supplies
 * `MSGCLI_SERVE_KEY` and `MSGCLI_DEBUG`. Throws {@link UsageError}; refuses a non-loopback
 * listen address without a key.
 */
export function parseServeFlags(
  args: string[],
  env: (name: string) => string | undefined,
): ServeFlags {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        listen: { type: "string" },
        "auth-key": { type: "string" },
        "refresh-margin": { type: "string" },
        proxy: { type: "string" },
        debug: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
        "permission-probe": { type: "string" },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (parsed.positionals.length > 1) {
    throw new UsageError(`unexpected argument "${parsed.positionals[1]}"`);
  }
  const word = parsed.positionals[0];
  if (word !== undefined && !(SERVE_ACTIONS as readonly string[]).includes(word)) {
    throw new UsageError(
      `unknown serve command "${word}" (one of ${SERVE_ACTIONS.join(", ")}, or none)`,
    );
  }
  const listen = parseListen(v.listen ?? DEFAULT_LISTEN);
  let refreshMarginMs = DEFAULT_REFRESH_MARGIN_MS;
  if (v["refresh-margin"] !== undefined) {
    try {
      refreshMarginMs = parseDuration(v["refresh-margin"]);
    } catch (err) {
      throw new UsageError(`--refresh-margin: ${(err as Error).message}`);
    }
  }
  const keyRaw = v["auth-key"] ?? env("MSGCLI_SERVE_KEY");
  const authKey = keyRaw === undefined || keyRaw.trim() === "" ? undefined : keyRaw.trim();
  const help = v.help ?? false;
  const version = v.version ?? false;
  if (!help && !version && authKey === undefined && !isLoopbackHost(listen.hostname)) {
    throw new UsageError(
      `refusing to listen on non-loopback address ${
        formatListen(listen)
      } without an auth key: set --auth-key or MSGCLI_SERVE_KEY, or listen on 127.0.0.1`,
    );
  }
  const debugEnv = env("MSGCLI_DEBUG");
  const flags: ServeFlags = {
    listen,
    refreshMarginMs,
    debug: (v.debug ?? false) || (debugEnv !== undefined && /^(1|true|yes|on)$/i.test(debugEnv)),
    help,
    version,
  };
  if (authKey !== undefined) flags.authKey = authKey;
  if (v.proxy !== undefined) flags.proxyFlag = v.proxy;
  if (v["permission-probe"] !== undefined) flags.permissionProbe = v["permission-probe"];
  if (word !== undefined) flags.action = word as ServeAction;
  return flags;
}

/** `args` without `--auth-key KEY` / `--auth-key=KEY`, and the (last) key given. */
export function withoutAuthKey(args: string[]): { args: string[]; key?: string } {
  const out: string[] = [];
  let key: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      out.push(...args.slice(i));
      break;
    }
    if (a === "--auth-key" && i + 1 < args.length) key = args[++i];
    else if (a.startsWith("--auth-key=")) key = a.slice("--auth-key=".length);
    else out.push(a);
  }
  return key === undefined ? { args: out } : { args: out, key };
}
