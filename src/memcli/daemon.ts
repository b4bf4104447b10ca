/**
 * Control of the background admin daemon: pid and state files, process checks, the
 * detached start (new session, output appended to `logs/admin.log`), health polling and a
 * graceful stop (SIGTERM, wait, SIGKILL).
 * @module
 */
import { fileURLToPath as fromFileUrl } from "node:url";
import { join } from "node:path";
import { existsSync } from "../common/fs.ts";
import { findOwner, type OwnerRecord } from "../common/owner.ts";
import { SERVICE_OWNER } from "../config.ts";
import type { Health } from "../memory/types.ts";
import { permissionFlags, type PermissionPlan } from "../permissions.ts";
import type { DaemonState, Layout } from "./context.ts";

/**
 * How an entrypoint of this checkout is run: `deno run --no-prompt <permissions> [--config]
 * <script>`, with exactly the permissions of `plan` (see src/permissions.ts).
 */
export function entrypointArgs(name: "admin" | "mcp", plan: PermissionPlan): string[] {
  const script = new URL(`../bin/${name}.ts`, import.meta.url);
  const args = ["run", "--no-prompt", ...permissionFlags(plan)];
  if (script.protocol === "file:") {
    // The import map lives in the repository's deno.json; name it so that the daemon
    // resolves its dependencies whatever the working directory is.
    const config = fromFileUrl(new URL("../../deno.json", import.meta.url));
    // Installed without deno.json: rely on discovery.
    if (existsSync(config)) args.push("--config", config);
    args.push(fromFileUrl(script));
  } else {
    args.push(script.href);
  }
  return args;
}

/** The state of the daemon recorded in a data directory (`S`: what its state file holds). */
export type DaemonCheck<S = DaemonState> =
  | { kind: "none" }
  | { kind: "running"; pid: number; state: S | null }
  | { kind: "stale"; pid: number; state: S | null };

async function alive(pid: number, marker = "admin.ts"): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  // `ps` rather than /proc: Deno allows /proc/<pid> reads only with --allow-all.
  try {
    const out = await new Deno.Command("ps", {
      args: ["-o", "stat=,args=", "-p", String(pid)],
      stdout: "piped",
      stderr: "null",
    }).output();
    const line = new TextDecoder().decode(out.stdout).trim();
    // Zombies are gone; a reused pid that is not our daemon counts as gone too.
    return out.success && line !== "" && !line.startsWith("Z") && line.includes(marker);
  } catch {
    return false;
  }
}

/**
 * Is the daemon of this data directory running, gone (stale pid file), or never started?
 * `marker` names its entry file (also used for `msgcli serve`'s files, src/serve/control.ts).
 */
export async function checkDaemon<S = DaemonState>(
  layout: Pick<Layout, "pidFile" | "stateFile">,
  marker = "admin.ts",
): Promise<DaemonCheck<S>> {
  let text: string;
  try {
    text = await Deno.readTextFile(layout.pidFile);
  } catch {
    return { kind: "none" };
  }
  const pid = Number(text.trim());
  let state: S | null = null;
  try {
    state = JSON.parse(await Deno.readTextFile(layout.stateFile));
  } catch { /* absent */ }
  if (!Number.isInteger(pid) || pid <= 1) return { kind: "stale", pid: 0, state };
  return (await alive(pid, marker))
    ? { kind: "running", pid, state }
    : { kind: "stale", pid, state };
}

/** Remove the pid and state files. */
export async function clearPidFiles(layout: Layout): Promise<void> {
  await Deno.remove(layout.pidFile).catch(() => {});
  await Deno.remove(layout.stateFile).catch(() => {});
}

/** True when nothing listens on host:port (a bind succeeds). */
export function portFree(host: string, port: number): boolean {
  try {
    const l = Deno.listen({ hostname: host, port });
    l.close();
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) return false;
    return true; // other bind problems are reported by the daemon itself
  }
}

/**
 * Start the daemon detached (its own session, stdin from /dev/null, stdout and stderr
 * appended to the log file) with `env` added to the inherited environment and exactly the
 * permissions of `plan`.
 */
export async function spawnDaemon(
  layout: Layout,
  env: Record<string, string>,
  plan: PermissionPlan,
): Promise<{ child: Deno.ChildProcess; logOffset: number }> {
  let logOffset = 0;
  try {
    logOffset = (await Deno.stat(layout.logFile)).size;
  } catch { /* new log */ }
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'umask 077; log=$1; shift; exec "$@" >>"$log" 2>&1 </dev/null',
      "mneme-admin",
      layout.logFile,
      Deno.execPath(),
      ...entrypointArgs("admin", plan),
    ],
    env,
    cwd: layout.dataDir,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  return { child, logOffset };
}

/** The daemon's log written since `offset` (last `lines` lines). */
export async function logTail(
  layout: Pick<Layout, "logFile">,
  offset: number,
  lines = 20,
): Promise<string> {
  try {
    const bytes = await Deno.readFile(layout.logFile);
    const text = new TextDecoder().decode(bytes.subarray(offset)).trimEnd();
    return text.split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** Outcome of {@link waitHealthy}. */
export type WaitResult =
  | { ok: true; health: Health }
  | { ok: false; reason: "exited"; code: number }
  | { ok: false; reason: "timeout" };

/** Poll `/healthz` until it answers 200, the child exits, or the timeout passes. */
export async function waitHealthy(
  url: string,
  child: Deno.ChildProcess,
  timeoutMs: number,
): Promise<WaitResult> {
  let exit: number | null = null;
  child.status.then((s) => (exit = s.code)).catch(() => (exit = -1));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exit !== null) return { ok: false, reason: "exited", code: exit };
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      const body = await res.json().catch(() => null);
      if (res.status === 200 && body && typeof body === "object" && "status" in body) {
        await new Promise((r) => setTimeout(r, 0));
        if (exit !== null) return { ok: false, reason: "exited", code: exit };
        return { ok: true, health: body as Health };
      }
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { ok: false, reason: "timeout" };
}

/** Is this pid still our daemon (a process whose command line names `marker`)? */
export function isAlive(pid: number, marker = "admin.ts"): Promise<boolean> {
  return alive(pid, marker);
}

/**
 * Send a signal with the `kill` program: `Deno.kill` needs unrestricted `--allow-run`, while
 * memcli asks only for `--allow-run=sh,ps,kill`. A process already gone is not an error.
 */
async function signal(pid: number, sig: "TERM" | "KILL"): Promise<void> {
  if (!Number.isInteger(pid) || pid <= 1) return; // never a group, never init
  await new Deno.Command("kill", {
    args: [`-${sig}`, String(pid)],
    stdout: "null",
    stderr: "null",
  }).output();
}

/**
 * Stop the daemon: SIGTERM, wait up to `timeoutMs`, then SIGKILL and wait up to 5 s more.
 * `marker` names the daemon's entry file (a reused pid running something else is gone).
 */
export async function stopDaemon(
  pid: number,
  timeoutMs: number,
  marker = "admin.ts",
): Promise<"stopped" | "killed" | "failed"> {
  const waitGone = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (!(await alive(pid, marker))) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return !(await alive(pid, marker));
  };
  await signal(pid, "TERM");
  if (await waitGone(timeoutMs)) return "stopped";
  await signal(pid, "KILL");
  return (await waitGone(5000)) ? "killed" : "failed";
}

/**
 * The memory service that holds this DATA_DIR (started by memcli, by `deno task start` or by
 * the login service), or null when none runs.
 */
export function serviceOwner(layout: Layout): Promise<OwnerRecord | null> {
  return findOwner(join(layout.dataDir, SERVICE_OWNER.dir), SERVICE_OWNER.name);
}

/**
 * Whether the service answering at `url` is the one that holds this DATA_DIR's embedded
 * database (not another folder's, or another user's, on the same port).
 */
export async function servesDataDir(layout: Layout, url: string): Promise<boolean> {
  const owner = await serviceOwner(layout);
  if (owner === null) return false;
  if (!owner.url) return true; // it holds the folder and is still starting
  return new URL(owner.url).port === new URL(url).port;
}

/** How to stop the service of pid `pid`. */
export function stopHint(pid: number): string {
  return pid > 0 ? `'memcli stop' (or kill ${pid})` : "'memcli stop'";
}

/**
 * Whether a Mneme service answers `/healthz` with 200 at `url`, polling for up to
 * `timeoutMs` (0: one try). Each try waits at most 2 s.
 */
export async function answers(url: string, timeoutMs = 0): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.status === 200) return true;
    } catch { /* not (yet) */ }
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}
