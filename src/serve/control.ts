/**
 * The daemon as a background service: `msgcli serve start|stop|restart|status`, and the
 * start that `msgcli run` does when no daemon answers. The pid, the state (pid, URL, start
 * time) and the log live next to the credentials file (default `~/.config/msgcli/`):
 * `serve.pid`, `serve.json`, `serve.log`, all owner-only. The daemon is started detached
 * (its own session, stdin from /dev/null, output appended to the log) with exactly its
 * permissions; a key given as `--auth-key` goes into its environment, not its command line.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { AutostartSpec } from "../common/autostart.ts";
import { errorMessage } from "../common/errors.ts";
import { readJson } from "../common/body.ts";
import { directClient } from "../common/net.ts";
import { checkDaemon, type DaemonCheck, logTail, stopDaemon } from "../memcli/daemon.ts";
import { credentialsDir, permissionFlags, type PermissionPlan } from "../permissions.ts";
import type { HealthBody } from "./health.ts";

/** The files of the background daemon. */
export interface ServeFiles {
  dir: string;
  pidFile: string;
  stateFile: string;
  logFile: string;
}

/** What `serve.json` records. */
export interface ServeState {
  pid: number;
  url: string;
  started_at: string;
  log_file: string;
}

/** The background daemon's files for the credentials file at `credentialsPath`. */
export function serveFiles(credentialsPath: string): ServeFiles {
  const dir = credentialsDir(credentialsPath);
  return {
    dir,
    pidFile: `${dir}/serve.pid`,
    stateFile: `${dir}/serve.json`,
    logFile: `${dir}/serve.log`,
  };
}

/** What a command line of the daemon contains (a reused pid running something else is gone). */
const MARKER = "bin/serve.ts";

/** The daemon recorded in `files`: none, gone (stale pid file), or running. */
export type ServeCheck = DaemonCheck<ServeState>;

/** Reads the pid and state files and checks the process. */
export function checkServe(files: ServeFiles): Promise<ServeCheck> {
  return checkDaemon<ServeState>(files, MARKER);
}

async function clearFiles(files: ServeFiles): Promise<void> {
  await Deno.remove(files.pidFile).catch(() => {});
  await Deno.remove(files.stateFile).catch(() => {});
}

/** `/healthz` of the daemon at `url`: its code and body, or why it did not answer. */
export type HealthProbe = { code: number; body: HealthBody } | { error: string };

/**
 * Asks `/healthz` (2 s at most), on a direct connection: a proxy of the environment
 * (`HTTP_PROXY`, or the `ALL_PROXY` msgcli sends its API calls through) never carries it.
 */
export async function probeHealth(url: string): Promise<HealthProbe> {
  let client: Deno.HttpClient | undefined;
  try {
    client = directClient(url);
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000), client });
    const body = await readJson(res, { limit: 64 * 1024 });
    return { code: res.status, body: body as HealthBody };
  } catch (e) {
    return { error: errorMessage(e) };
  } finally {
    client?.close();
  }
}

/** The token state of a `/healthz` answer, in words. */
export function healthText(h: HealthProbe): string {
  if ("error" in h) return `/healthz did not answer (${h.error})`;
  const b = h.body;
  if (b.status === "no_credentials") return `no_credentials: ${b.fix ?? 'run "msgcli login"'}`;
  if (b.status === "degraded") {
    return `degraded (${h.code}): token dead, ${
      b.upstream_error ?? b.last_refresh_error ?? "refresh failing"
    }`;
  }
  return `ok, token ${b.token_alive ? "alive" : "expired"}${
    b.expires_at ? ` until ${b.expires_at}` : ""
  }`;
}

/**
 * A daemon that answers at `url` without a pid file of ours (started at login, or in a
 * terminal): its `/healthz`, or null when nothing like it answers there.
 */
async function unrecorded(url: string | undefined): Promise<HealthProbe | null> {
  if (url === undefined || /:0$/.test(url)) return null;
  const h = await probeHealth(url);
  return "error" in h || typeof h.body?.started_at !== "string" ? null : h;
}

/**
 * The one-line status of the background daemon, and its exit code (0 ok, 2 not ok, 3 not
 * running). Without a pid file, a daemon answering at `url` (started at login or in a
 * terminal) counts.
 */
export async function serveStatus(
  files: ServeFiles,
  url?: string,
): Promise<{ line: string; code: number }> {
  const c = await checkServe(files);
  const other = c.kind === "running" ? null : await unrecorded(url);
  if (other !== null) {
    const ok = !("error" in other) && other.body.status === "ok";
    return {
      line: `running on ${url} (not started by "msgcli serve start"): ${healthText(other)}`,
      code: ok ? 0 : 2,
    };
  }
  if (c.kind !== "running") {
    return {
      line: c.kind === "stale"
        ? `not running (pid ${c.pid} is gone; see ${files.logFile})`
        : 'not running (start it with "msgcli serve start")',
      code: 3,
    };
  }
  if (c.state === null) return { line: `starting (pid ${c.pid})`, code: 2 };
  const h = await probeHealth(c.state.url);
  const ok = !("error" in h) && h.body.status === "ok";
  return {
    line: `running (pid ${c.pid}) on ${c.state.url}: ${healthText(h)}`,
    code: ok ? 0 : 2,
  };
}

/** Options of {@link startServe}. */
export interface StartServeOptions {
  files: ServeFiles;
  /** The daemon's arguments (no service command, no `--auth-key`). */
  args: string[];
  /** The daemon key, passed in its environment. */
  key?: string;
  /** The daemon's exact permissions. */
  plan: PermissionPlan;
  /** How long to wait for it to listen and answer `/healthz` (default 15 s). */
  timeoutMs?: number;
  /** Where it will answer: a daemon already there without a pid file of ours is used. */
  url?: string;
}

/** Outcome of {@link startServe}. */
export type StartResult =
  | { ok: true; pid: number; url: string; health: HealthProbe; already: boolean }
  | { ok: false; message: string };

function entryPath(): string {
  const url = new URL("../bin/serve.ts", import.meta.url);
  return url.protocol === "file:" ? fileURLToPath(url) : url.href;
}

/** `deno` arguments that run the daemon with exactly `plan` (before the daemon's own). */
function daemonDenoArgs(plan: PermissionPlan): string[] {
  return [
    "run",
    "--no-prompt",
    "--no-config",
    "--unstable-no-legacy-abort",
    ...permissionFlags(plan),
    entryPath(),
  ];
}

/**
 * Starts the daemon in the background unless one recorded in `files` runs already; waits for
 * its "listening on" log line (so port 0 works) and its first `/healthz` answer.
 */
export async function startServe(opts: StartServeOptions): Promise<StartResult> {
  const { files } = opts;
  const c = await checkServe(files);
  if (c.kind === "running" && c.state !== null) {
    return {
      ok: true,
      pid: c.pid,
      url: c.state.url,
      health: await probeHealth(c.state.url),
      already: true,
    };
  }
  if (c.kind === "running") {
    return { ok: false, message: `a daemon (pid ${c.pid}) is starting; try again shortly` };
  }
  const other = await unrecorded(opts.url);
  if (other !== null) return { ok: true, pid: 0, url: opts.url!, health: other, already: true };
  await clearFiles(files);
  await Deno.mkdir(files.dir, { recursive: true, mode: 0o700 });
  let offset = 0;
  try {
    offset = (await Deno.stat(files.logFile)).size;
  } catch { /* a new log */ }
  const env: Record<string, string> = opts.key !== undefined ? { MSGCLI_SERVE_KEY: opts.key } : {};
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'umask 077; log=$1; shift; exec "$@" >>"$log" 2>&1 </dev/null',
      "msgcli-serve",
      files.logFile,
      Deno.execPath(),
      ...daemonDenoArgs(opts.plan),
      ...opts.args,
    ],
    env,
    cwd: files.dir,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  await Deno.writeTextFile(files.pidFile, `${child.pid}\n`, { mode: 0o600 });
  let exited: number | null = null;
  child.status.then((s) => (exited = s.code)).catch(() => (exited = -1));
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let url: string | null = null;
  while (Date.now() < deadline && exited === null) {
    if (url === null) {
      const m = /listening on (http:\/\/\S+);/.exec(await logTail(files, offset, 50));
      if (m) url = m[1];
    }
    if (url !== null) {
      const h = await probeHealth(url);
      if (!("error" in h)) {
        const state: ServeState = {
          pid: child.pid,
          url,
          started_at: new Date().toISOString(),
          log_file: files.logFile,
        };
        await Deno.writeTextFile(files.stateFile, JSON.stringify(state, null, 2) + "\n", {
          mode: 0o600,
        });
        child.unref();
        return { ok: true, pid: child.pid, url, health: h, already: false };
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  if (exited === null) await stopDaemon(child.pid, 5000, MARKER);
  await child.status.catch(() => {});
  await clearFiles(files);
  const tail = (await logTail(files, offset, 10)).trim();
  return {
    ok: false,
    message: `the daemon ${
      exited === null ? "did not answer in time and was stopped" : `exited (code ${exited})`
    }${tail ? `:\n${tail}` : ""}\nLog: ${files.logFile}`,
  };
}

/** The name of the start-at-login entry (systemd unit `msgcli-serve.service`, launchd label). */
export const AUTOSTART_NAME = "msgcli-serve";

/**
 * The start-at-login entry of the daemon: the same command `start` runs (exactly its
 * permissions, its arguments), its output appended to `serve.log`, and the variables of
 * `vars` that are set in `env` (the credentials path, endpoints, proxy, key: the entry's file
 * is owner-only).
 */
export function autostartSpec(
  files: ServeFiles,
  args: string[],
  plan: PermissionPlan,
  env: (name: string) => string | undefined,
  vars: readonly string[],
): AutostartSpec {
  const spec: AutostartSpec = {
    name: AUTOSTART_NAME,
    description: "msgcli serve: the local Messages API proxy on your Claude subscription",
    argv: [Deno.execPath(), ...daemonDenoArgs(plan), ...args],
    env: {},
    workingDirectory: files.dir,
    logFile: files.logFile,
  };
  for (const v of vars) {
    const value = env(v);
    if (value !== undefined && value !== "") spec.env![v] = value;
  }
  return spec;
}

/** Stops the daemon recorded in `files`; one line saying what happened. */
export async function stopServe(files: ServeFiles): Promise<string> {
  const c = await checkServe(files);
  if (c.kind === "none") return "not running";
  if (c.kind === "stale") {
    await clearFiles(files);
    return `not running (removed the stale pid file of pid ${c.pid})`;
  }
  // The daemon drains for up to 10 s before it exits.
  const r = await stopDaemon(c.pid, 15_000, MARKER);
  if (r === "failed") return `could not stop pid ${c.pid}`;
  await clearFiles(files);
  return `stopped (pid ${c.pid}${r === "killed" ? ", killed after the drain deadline" : ""})`;
}
