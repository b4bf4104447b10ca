/**
 * The daemon's permission lock. The exact Deno permission set of a daemon follows from its
 * flags and environment:
 *
 * - net: the listen address, the API base host:port, the OAuth token host:port, and the
 *   proxy host:port when one is set (nothing else: not even the authorize page);
 * - read and write: the credentials file's directory, which holds the file, its lock file
 *   (`<path>.lock`) and the temp files of the atomic write and the writability probe (a
 *   rename needs read and write access to the temp file, whose name is random);
 * - env: the variables the daemon reads (`SERVE_ENV_VARS` in src/permissions.ts);
 * - nothing else: no run, ffi, sys, import, or other hosts and paths.
 *
 * The set is computed in src/permissions.ts ({@link planPermissions} adds the listen
 * address); the launcher starts `msgcli serve` and `deno task serve` with exactly it. When
 * the process holds broader permissions (`-A`) and may run the Deno executable, `runServe`
 * re-executes the daemon with exactly those flags (`--no-prompt`), forwarding signals and the
 * exit code. A process started with narrow flags is checked against the set instead.
 *
 * @module
 */

import { formatListen, type ListenAddress } from "./flags.ts";
import {
  credentialsDir,
  type MsgEndpoints,
  type PermissionPlan,
  servePlan,
} from "../permissions.ts";

export {
  missingPermissions,
  narrowPermissions,
  permissionFlags,
  type PermissionPlan,
  SERVE_ENV_VARS,
} from "../permissions.ts";

/** Computes the permission set for a listen address and a resolved configuration. */
export function planPermissions(listen: ListenAddress, cfg: MsgEndpoints): PermissionPlan {
  return servePlan(formatListen(listen), cfg);
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
    credentialsDir(plan.write[0] ?? "/tmp")
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
