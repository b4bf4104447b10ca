/**
 * `msgcli serve` entry: {@link runServe} parses the flags, applies the permission lock
 * (re-executing itself with exactly the daemon's permissions when it holds broader ones), and
 * runs the daemon until SIGINT/SIGTERM. `src/bin/serve.ts` and `msgcli serve` both call it.
 *
 * @module
 */

import { ConfigError, type EnvGetter, loadMsgConfig } from "../msg/config.ts";
import { redactUrl } from "../msg/http.ts";
import { VERSION } from "../version.ts";
import { runDaemon } from "./daemon.ts";
import { UsageError } from "../common/errors.ts";
import { safeEnv } from "../common/env.ts";
import { shellQuote } from "../common/shell.ts";
import { LAUNCHER_PID_VAR, watchLauncher, withLauncherVar } from "../common/launcher.ts";
import { parseServeFlags, SERVE_USAGE } from "./flags.ts";
import { errorText } from "./keepalive.ts";
import { heldPermissions, msgcliPlan } from "../permissions.ts";
import {
  broadPermissions,
  canRelaunch,
  missingPermissions,
  narrowPermissions,
  permissionFlags,
  planPermissions,
  probePermissions,
} from "./permissions.ts";

/** Options of {@link runServe} (all optional; tests and `msgcli` use the defaults). */
export interface RunServeOptions {
  /** Environment getter (default `Deno.env.get`, unreadable variables read as unset). */
  env?: EnvGetter;
  /** Module to re-execute for the locked daemon (default `src/bin/serve.ts`). */
  entry?: string;
}

function entryPath(): string {
  const url = new URL("../bin/serve.ts", import.meta.url);
  return url.protocol === "file:" ? decodeURIComponent(url.pathname) : url.href;
}

/**
 * Runs `msgcli serve` with `args` (the words after `serve`). Resolves with the exit code:
 * 0 after a graceful shutdown or `--help`, 1 for usage, configuration or permission errors.
 */
export async function runServe(args: string[], opts: RunServeOptions = {}): Promise<number> {
  const env = opts.env ?? safeEnv;
  let flags;
  let plan;
  let config;
  try {
    flags = parseServeFlags(args, env);
    if (flags.help) {
      console.log(SERVE_USAGE);
      return 0;
    }
    if (flags.version) {
      console.log(`msgcli v${VERSION}`);
      return 0;
    }
    // The proxy is resolved here, once; the daemon gets the configuration as it is.
    config = loadMsgConfig(env, flags.proxyFlag);
    plan = planPermissions(flags.listen, config);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      console.error(`msgcli serve: ${err.message}`);
      console.error("Run 'msgcli serve --help' for usage.");
      return 1;
    }
    throw err;
  }

  if (flags.action !== undefined) {
    // Loaded only for a service command: the daemon itself never loads it.
    const { serveCommand } = await import("./service.ts");
    return await serveCommand(flags.action, args, flags, config, env);
  }

  const broad = broadPermissions();
  if (broad.length > 0) {
    if (canRelaunch()) return await relaunchLocked(permissionFlags(plan), args, opts.entry);
    console.error(
      `msgcli serve: warning: running without the permission lock (holds unscoped ${
        broad.join(", ")
      } and may not run ${Deno.execPath()}); start it with: ${lockedCommand(plan, args)}`,
    );
  } else {
    const missing = missingPermissions(plan);
    if (missing.length > 0) {
      console.error(
        `msgcli serve: this configuration needs permissions the process was not given (${
          missing.join(", ")
        }).\nStart it with exactly: ${lockedCommand(plan, args)}`,
      );
      return 1;
    }
    // Started by a scoped msgcli: give up what msgcli holds beyond the daemon's set.
    narrowPermissions(msgcliPlan(config), plan);
  }

  if (broad.length === 0 || flags.debug) {
    console.error(`msgcli serve: permissions: ${heldPermissions(plan, flags.debug)}`);
  }
  if (flags.permissionProbe !== undefined) {
    console.log(JSON.stringify(await probePermissions(plan, flags.permissionProbe)));
    return 0;
  }
  try {
    return await runDaemon({ flags, env, config });
  } catch (err) {
    console.error(`msgcli serve: ${errorText(err)}`);
    return 1;
  }
}

/** `args` for printing: the auth key is hidden and proxy credentials redacted. */
function redactArgs(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.indexOf("=");
    const name = eq >= 0 ? a.slice(0, eq) : a;
    const redact = name === "--auth-key"
      ? () => "<key>"
      : name === "--proxy"
      ? (v: string) => redactUrl(v)
      : null;
    if (redact === null) out.push(a);
    else if (eq >= 0) out.push(`${name}=${redact(a.slice(eq + 1))}`);
    else {
      out.push(a);
      if (i + 1 < args.length) out.push(redact(args[++i]));
    }
  }
  return out;
}

function lockedCommand(plan: ReturnType<typeof planPermissions>, args: string[]): string {
  return [
    "deno",
    "run",
    "--no-prompt",
    "--unstable-no-legacy-abort",
    ...permissionFlags(plan),
    entryPath(),
    ...redactArgs(args),
  ]
    .map(shellQuote).join(" ");
}

/** A child that ran at least this long before dying is restarted (a crash, not a startup error). */
export const RESTART_AFTER_MS = 5_000;
/** Delays between restarts of a crashing daemon: 1 s, 5 s, then 30 s. */
export const RESTART_BACKOFF_MS: readonly number[] = [1_000, 5_000, 30_000];

/**
 * Re-executes the daemon with exactly `permFlags`, forwarding SIGINT/SIGTERM and passing on
 * the exit code. A daemon that dies on its own after running for a while (a crash, an OOM
 * kill) is started again with a backoff, so the proxy stays up; a startup failure or an exit
 * after a forwarded signal ends the launcher with the child's code.
 */
async function relaunchLocked(
  permFlags: string[],
  args: string[],
  entry = entryPath(),
): Promise<number> {
  const signals: Deno.Signal[] = Deno.build.os === "windows"
    ? ["SIGINT", "SIGBREAK"]
    : ["SIGINT", "SIGTERM"];
  let child: Deno.ChildProcess | null = null;
  let stopping = false;
  let wake: (() => void) | null = null;
  const forward = signals.map((sig) => {
    const fn = () => {
      stopping = true;
      wake?.();
      try {
        child?.kill(sig);
      } catch {
        // already gone
      }
    };
    Deno.addSignalListener(sig, fn);
    return { sig, fn };
  });
  // This process stands in for the daemon: when its own launcher dies, so does the daemon,
  // and the daemon follows this process in turn.
  const unwatch = watchLauncher(() => forward.find((f) => f.sig !== "SIGINT")?.fn());
  const flags = withLauncherVar(permFlags);
  try {
    let restarts = 0;
    while (true) {
      const started = Date.now();
      child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          "--no-config",
          "--unstable-no-legacy-abort",
          ...flags,
          entry,
          ...args,
        ],
        env: { [LAUNCHER_PID_VAR]: String(Deno.pid) },
        stdin: "null",
        stdout: "inherit",
        stderr: "inherit",
      }).spawn();
      const status = await child.status;
      const code = status.signal !== null
        ? 128 + (SIGNAL_NUMBERS[status.signal] ?? 0)
        : status.code;
      const ran = Date.now() - started;
      if (stopping || code === 0 || ran < RESTART_AFTER_MS) return code;
      if (ran > 10 * 60_000) restarts = 0;
      const delay = RESTART_BACKOFF_MS[Math.min(restarts, RESTART_BACKOFF_MS.length - 1)];
      restarts++;
      console.error(
        `${new Date().toISOString()} msgcli serve: daemon exited with ${
          status.signal ?? `code ${status.code}`
        } after ${Math.round(ran / 1000)}s; restarting in ${delay / 1000}s`,
      );
      await new Promise<void>((resolve) => {
        const id = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(id);
          resolve();
        };
      });
      wake = null;
      if (stopping) return 0;
    }
  } finally {
    unwatch();
    for (const { sig, fn } of forward) Deno.removeSignalListener(sig, fn);
  }
}

const SIGNAL_NUMBERS: Partial<Record<Deno.Signal, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGKILL: 9,
  SIGTERM: 15,
};
