/**
 * The permission plans of the messages client: `msgcli` (per command, from the files it names
 * and the endpoints of its configuration), the proxy daemon `msgcli serve`, and the commands
 * that control it as a background service.
 * @module
 */
import { AUTOSTART_RUN, autostartDirs } from "../common/autostart.ts";
import { safeEnv } from "../common/env.ts";
import { absolute, add, addNet, type PermissionPlan, urlHostPort } from "./plan.ts";

/** Every environment variable the proxy daemon (`msgcli serve`) reads. */
export const SERVE_ENV_VARS: readonly string[] = [
  "HOME",
  "USERPROFILE",
  "MSGCLI_API_BASE_URL",
  "MSGCLI_OAUTH_AUTHORIZE_URL",
  "MSGCLI_OAUTH_TOKEN_URL",
  "MSGCLI_OAUTH_CLIENT_ID",
  "MSGCLI_CREDENTIALS_PATH",
  "MSGCLI_DEBUG",
  "MSGCLI_SERVE_KEY",
  "HTTPS_PROXY",
  "https_proxy",
  "ALL_PROXY",
  "all_proxy",
];

/** Variables `msgcli` reads beyond the daemon's. */
export const MSGCLI_ENV_VARS: readonly string[] = [
  ...SERVE_ENV_VARS,
  "MSGCLI_NO_BROWSER",
  "DISPLAY",
  "WAYLAND_DISPLAY",
];

/** Programs that open the login page in a browser (Linux and BSDs, macOS). */
export const BROWSER_OPENERS: readonly string[] = ["xdg-open", "open"];

/** What the messages client's permissions follow from (a resolved `MsgConfig`). */
export interface MsgEndpoints {
  /** Messages API base URL. */
  apiBaseUrl: string;
  /** OAuth token endpoint. */
  tokenUrl: string;
  /** The credentials file. */
  credentialsPath: string;
  /** The proxy URL, when one is used. */
  proxy?: string;
}

/**
 * The directory of a credentials file: it holds the file, its lock (`<path>.lock`) and the
 * temp files of the atomic write and the writability probe (whose names are random).
 */
export function credentialsDir(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (i < 0) return ".";
  if (i === 0) return path[0];
  return path.slice(0, i);
}

/** The files one `msgcli` command names on its command line. */
export interface MsgcliFiles {
  /** Files it reads (`--system-file`, `--history`), as given. */
  read: string[];
  /** The credentials file it writes instead of the configured one (`login --out`). */
  credentials?: string;
}

/**
 * The permissions `msgcli` needs for `cfg`: the loopback names (the login callback), the API
 * and token hosts and the proxy, the credentials directory (read and write), its variables,
 * the browser openers; and the files the command names (`files`, resolved against `cwd`).
 * Without `files` (a compiled executable, whose grants are fixed when it is built) it reads
 * the working directory instead, so `--system-file` and `--history` work there.
 */
export function msgcliPlan(
  cfg: MsgEndpoints,
  files: MsgcliFiles | null = null,
  cwd = ".",
): PermissionPlan {
  const creds = credentialsDir(files?.credentials ?? cfg.credentialsPath);
  const net = ["127.0.0.1", "localhost"];
  for (const u of [cfg.apiBaseUrl, cfg.tokenUrl, cfg.proxy]) {
    if (u !== undefined) addNet(net, urlHostPort(u));
  }
  const read = [creds];
  for (const f of files ? files.read : ["."]) add(read, cwd === "." ? f : absolute(f, cwd));
  return { net, read, write: [creds], env: [...MSGCLI_ENV_VARS], run: [...BROWSER_OPENERS] };
}

/**
 * The proxy daemon's set for its listen address (`host:port`, brackets for IPv6) and
 * configuration: net to the listen address, the API and token hosts and the proxy (nothing
 * else, not even the authorize page); the credentials directory; its variables; nothing
 * else (no run, ffi, sys, import).
 */
export function servePlan(listen: string, cfg: MsgEndpoints): PermissionPlan {
  const net = [listen];
  addNet(net, urlHostPort(cfg.apiBaseUrl));
  addNet(net, urlHostPort(cfg.tokenUrl));
  if (cfg.proxy !== undefined) addNet(net, urlHostPort(cfg.proxy));
  const creds = credentialsDir(cfg.credentialsPath);
  return { net, read: [creds], write: [creds], env: [...SERVE_ENV_VARS] };
}

/** Capture's model endpoint: a provider's URL, or msgcli's endpoints (the subscription). */
export type CaptureModelEndpoint = { url: string } | { msg: MsgEndpoints };

/**
 * The admin daemon's set with capture's model path on (`ep` null: off, nothing added): net
 * to the provider's host; for the subscription, msgcli's API and token hosts and proxy, its
 * credentials folder (read and write: the refresh and its lock) and its variables.
 */
export function addCaptureModel(
  plan: PermissionPlan,
  ep: CaptureModelEndpoint | null,
): PermissionPlan {
  if (!ep) return plan;
  if ("url" in ep) {
    addNet(plan.net, urlHostPort(ep.url));
    return plan;
  }
  for (const u of [ep.msg.apiBaseUrl, ep.msg.tokenUrl, ep.msg.proxy]) {
    if (u !== undefined) addNet(plan.net, urlHostPort(u));
  }
  const creds = credentialsDir(ep.msg.credentialsPath);
  add(plan.read, creds);
  add(plan.write, creds);
  for (const v of SERVE_ENV_VARS) add(plan.env, v);
  return plan;
}

/** Programs the background-service commands run (`msgcli serve start|stop|status`, `run`). */
export const SERVE_CONTROL_RUN: readonly string[] = ["sh", "ps", "kill"];

/**
 * The set of `msgcli serve start|stop|restart|status` for a listen address (`host:port`,
 * brackets for IPv6): the daemon's, with the listen host on any port (port 0 is chosen by
 * the daemon) and the loopback names (a client reaches `0.0.0.0` at 127.0.0.1), and the
 * programs that start, check and stop it ({@link SERVE_CONTROL_RUN}); for `enable` and
 * `disable`, `systemctl`/`launchctl` and the folders of the user's units and agents.
 */
export function serveControlPlan(
  listen: string,
  cfg: MsgEndpoints,
  env: (name: string) => string | undefined = safeEnv,
): PermissionPlan {
  const plan = servePlan(listen, cfg);
  const host = listen.startsWith("[")
    ? listen.slice(0, listen.indexOf("]") + 1)
    : listen.split(":")[0];
  plan.net = plan.net.filter((n) => n !== listen);
  for (const h of [host, "127.0.0.1", "localhost", "[::1]"]) addNet(plan.net, h);
  plan.run = [...SERVE_CONTROL_RUN, ...AUTOSTART_RUN];
  // enable/disable: the user's systemd units and launchd agents (src/common/autostart.ts).
  const home = env("HOME") ?? env("USERPROFILE");
  if (home) {
    const dirs = autostartDirs({ home, xdgConfigHome: env("XDG_CONFIG_HOME") || undefined });
    for (const d of dirs) {
      add(plan.read, d);
      add(plan.write, d);
    }
  }
  plan.env = [...plan.env, "XDG_CONFIG_HOME"];
  return plan;
}

/**
 * `msgcli run -- COMMAND`: adds to msgcli's `plan` the command it runs, the programs that
 * start and check the daemon ({@link SERVE_CONTROL_RUN}), and the daemon's listen host
 * (`host` or `[v6]`).
 */
export function addRunPermissions(plan: PermissionPlan, command: string, listenHost: string): void {
  plan.run = [...(plan.run ?? [])];
  for (const r of [command, ...SERVE_CONTROL_RUN]) if (!plan.run.includes(r)) plan.run.push(r);
  addNet(plan.net, listenHost);
}
