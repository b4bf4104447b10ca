/**
 * The daemon's permission lock. The exact Deno permission set of a daemon follows from its
 * flags and environment:
 *
 * - net: the listen address, the API base host:port, the OAuth token host:port, and the
 *   proxy host:port when one is set (nothing else: not even the authorize page);
 * - read and write: the credentials file's directory, which holds the file, its lock file
 *   (`<path>.lock`) and the temp files of the atomic write and the writability probe (a
 *   rename needs read and write access to the temp file, whose name is random);
 * - env: the variables the daemon reads ({@link SERVE_ENV_VARS});
 * - nothing else: no run, ffi, sys, import, or other hosts and paths.
 *
 * `runServe` computes that set; when the process holds broader permissions (e.g. `msgcli`'s
 * task or `-A`) and may run the Deno executable, it re-executes the daemon with exactly
 * those flags (`--no-prompt`), forwarding signals and the exit code. A process started with
 * narrow flags (the `serve` task spells the defaults) is checked against the set instead.
 *
 * @module
 */

import type { MsgConfig } from "../msg/config.ts";
import { formatListen, type ListenAddress } from "./flags.ts";
import { type PermissionPlan, urlHostPort } from "../permissions.ts";

export {
  missingPermissions,
  narrowPermissions,
  permissionFlags,
  type PermissionPlan,
} from "../permissions.ts";

/** Every environment variable the daemon reads. */
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

/** `host:port` of a URL with its scheme's default port filled in (brackets kept for IPv6). */
export const hostPort: (raw: string) => string = urlHostPort;

/** The directory of the credentials file: it holds the file, its lock and temp files. */
export function credentialsDir(cfg: MsgConfig): string {
  return dirname(cfg.credentialsPath);
}

function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (i < 0) return ".";
  if (i === 0) return path[0];
  return path.slice(0, i);
}

/** Computes the permission set for a listen address and a resolved configuration. */
export function planPermissions(listen: ListenAddress, cfg: MsgConfig): PermissionPlan {
  const net: string[] = [];
  const add = (entry: string) => {
    if (!net.includes(entry)) net.push(entry);
  };
  add(formatListen(listen));
  add(hostPort(cfg.apiBaseUrl));
  add(hostPort(cfg.tokenUrl));
  if (cfg.proxy !== undefined) add(hostPort(cfg.proxy));
  return {
    net,
    read: [credentialsDir(cfg)],
    write: [credentialsDir(cfg)],
    env: [...SERVE_ENV_VARS],
  };
}

/** Names of the unscoped permissions this process holds (empty when locked down). */
export function broadPermissions(): string[] {
  const names = ["net", "read", "write", "env", "run", "ffi", "sys", "import"] as const;
  const out: string[] = [];
  for (const name of names) {
    try {
      if (Deno.permissions.querySync({ name } as Deno.PermissionDescriptor).state === "granted") {
        out.push(name);
      }
    } catch {
      // unknown permission name on this Deno: ignore
    }
  }
  return out;
}

/** Whether this process may spawn the Deno executable (to re-exec itself locked). */
export function canRelaunch(): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command: Deno.execPath() }).state ===
      "granted";
  } catch {
    return false;
  }
}

/** Outcome of one probe in {@link probePermissions}. */
export type ProbeOutcome = "denied" | "allowed" | `error: ${string}`;

async function attempt(fn: () => Promise<unknown> | unknown): Promise<ProbeOutcome> {
  try {
    await fn();
    return "allowed";
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
      return "denied";
    }
    return `error: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`;
  }
}

/**
 * Debug-only (`--permission-probe URL`): what this process may do. Queries the planned
 * permissions and tries things outside them for real: fetching `outsideUrl`, reading
 * `/etc/hosts`, writing next to the credentials directory, reading `PATH`, running a
 * program, and reading the hostname.
 */
export async function probePermissions(
  plan: PermissionPlan,
  outsideUrl: string,
): Promise<Record<string, unknown>> {
  const granted: Record<string, string> = {};
  for (const host of plan.net) {
    granted[`net:${host}`] = Deno.permissions.querySync({ name: "net", host }).state;
  }
  for (const path of plan.read) {
    granted[`read:${path}`] = Deno.permissions.querySync({ name: "read", path }).state;
  }
  for (const path of plan.write) {
    granted[`write:${path}`] = Deno.permissions.querySync({ name: "write", path }).state;
  }
  const outsideWrite = `${
    dirname(plan.write[0] ?? "/tmp")
  }/msgcli-serve-probe-${crypto.randomUUID()}`;
  const attempts: Record<string, ProbeOutcome> = {
    [`fetch ${outsideUrl}`]: await attempt(async () => {
      const r = await fetch(outsideUrl);
      await r.body?.cancel();
    }),
    "read /etc/hosts": await attempt(() => Deno.readTextFile("/etc/hosts")),
    [`write ${outsideWrite}`]: await attempt(async () => {
      await Deno.writeTextFile(outsideWrite, "x");
      await Deno.remove(outsideWrite);
    }),
    "env PATH": await attempt(() => Deno.env.get("PATH")),
    "run true": await attempt(() => new Deno.Command("true").output()),
    "sys hostname": await attempt(() => Deno.hostname()),
    "listen 127.0.0.3:0": await attempt(() =>
      Deno.listen({ hostname: "127.0.0.3", port: 0 }).close()
    ),
  };
  return { broad: broadPermissions(), granted, attempts };
}
