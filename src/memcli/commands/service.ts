/**
 * `memcli start|stop|restart`: the memory service of this DATA_DIR as plain commands. One
 * data directory has one service: `start` finds one already running (started by memcli, by
 * `deno task start`, or at login) and says so; `stop` stops whichever runs.
 * @module
 */
import { intFlag, parseFlags } from "../args.ts";
import { configOf, type Layout, layoutOf } from "../context.ts";
import { answers, checkDaemon, clearPidFiles, serviceOwner, stopDaemon } from "../daemon.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { clientUrl } from "../../common/net.ts";
import { startDaemon, type StartOptions, startOptions } from "./setup.ts";
import { restartAutostart } from "../../common/autostart.ts";
import { VERSION } from "../../version.ts";
import { AUTOSTART_NAME, hostOf } from "../connect/base.ts";
import { warnDrift } from "../connect/drift.ts";

/** Run `memcli start`. */
export async function start(args: string[], io: Io): Promise<number> {
  const { help, opts } = startOptions("start", args);
  if (help) {
    io.out(COMMAND_USAGE.start);
    return 0;
  }
  const layout = layoutOf(configOf(io).dataDir);
  const owner = (await checkDaemon(layout)).kind === "running" ? null : await serviceOwner(layout);
  if (owner) {
    io.out(
      `The memory service for ${layout.dataDir} is already running (pid ${owner.pid}` +
        `${owner.url ? `, ${owner.url}` : ""}), started outside memcli; nothing changed.\n`,
    );
    return 0;
  }
  const started = await startDaemon(io, opts, "start");
  if (!started) return 1;
  io.out(
    started.already
      ? `The memory service is already running (pid ${started.pid}) at ${started.url}; nothing changed.\n`
      : `Started the memory service (pid ${started.pid}) at ${started.url}; web UI: ${started.url}/\n`,
  );
  if (!started.already) await warnDrift(io, "start", started.url);
  return 0;
}

/**
 * Stop the service of `layout`, whoever started it; one line for the user, or null when
 * none was running. `failed` when it would not stop.
 */
export async function stopService(
  layout: Layout,
  timeoutS: number,
): Promise<{ line: string; failed: boolean } | null> {
  const check = await checkDaemon(layout);
  let pid = 0;
  let label = "the memory service";
  if (check.kind === "running") {
    pid = check.pid;
  } else {
    if (check.kind === "stale") await clearPidFiles(layout);
    const owner = await serviceOwner(layout);
    if (!owner) {
      return check.kind === "stale"
        ? {
          line:
            `The memory service was not running (removed a stale pid file for pid ${check.pid}).`,
          failed: false,
        }
        : null;
    }
    if (owner.pid <= 0) {
      return {
        line:
          "The memory service is starting and has not recorded its pid yet; try again in a moment.",
        failed: true,
      };
    }
    pid = owner.pid;
    label = "the memory service started outside memcli";
  }
  const how = await stopDaemon(pid, timeoutS * 1000);
  if (how === "failed") return { line: `Could not stop ${label} (pid ${pid}).`, failed: true };
  if (check.kind === "running") await clearPidFiles(layout);
  const l = label[0].toUpperCase() + label.slice(1);
  return {
    line: how === "stopped"
      ? `Stopped ${label} (pid ${pid}).`
      : `${l} (pid ${pid}) ignored SIGTERM for ${timeoutS} s and was killed.`,
    failed: false,
  };
}

/** Run `memcli stop`. */
export async function stop(args: string[], io: Io): Promise<number> {
  const p = parseFlags("stop", args, { timeout: { type: "string" } });
  if (p.help) {
    io.out(COMMAND_USAGE.stop);
    return 0;
  }
  const timeoutS = intFlag("stop", "timeout", p.values.timeout, 1, 3600) ?? 10;
  const layout = layoutOf(configOf(io).dataDir);
  const r = await stopService(layout, timeoutS);
  if (!r) {
    io.out(`No memory service is running for ${layout.dataDir}.\n`);
    return 0;
  }
  (r.failed ? io.err : io.out)(`${r.failed ? "memcli stop: " : ""}${r.line}\n`);
  return r.failed ? 1 : 0;
}

/**
 * `memcli restart --if-running` (what `deno task install` runs after switching versions): the
 * service of this DATA_DIR, when it runs from an install and not on this version, restarts
 * now on this one, through whatever supervises it (its login entry, else memcli). A service
 * started from a clone (`deno task start`) is left alone. 0 unless a restart failed.
 */
async function restartIfRunning(io: Io, opts: StartOptions): Promise<number> {
  const cfg = configOf(io);
  const layout = layoutOf(cfg.dataDir);
  const check = await checkDaemon(layout);
  const owner = await serviceOwner(layout);
  if (check.kind !== "running" && !owner) {
    io.out(`No memory service runs for ${layout.dataDir}; it starts on ${VERSION} next time.
`);
    return 0;
  }
  const admin = new URL("../../bin/admin.ts", import.meta.url).href;
  if (owner?.version === VERSION && owner.main === admin) {
    io.out(`The memory service for ${layout.dataDir} runs ${VERSION} already.
`);
    return 0;
  }
  if (owner?.main !== undefined && !/\/versions\/[^/]+\/app\//.test(owner.main)) {
    io.out(
      `The memory service for ${layout.dataDir} (pid ${owner.pid}) runs from ` +
        `${owner.main.replace(/src\/bin\/admin\.ts$/, "")}, not from the install: left as ` +
        "it is ('memcli restart' moves it to the installed version).\n",
    );
    return 0;
  }
  const url = clientUrl(cfg.adminHost, cfg.adminPort);
  if (check.kind !== "running" && await restartAutostart(AUTOSTART_NAME, hostOf(io))) {
    if (!(await answers(url, opts.timeoutS * 1000))) {
      io.err(`memcli restart: the login service did not answer at ${url} after restarting\n`);
      return 1;
    }
    io.out(`Restarted the memory service on ${VERSION} through its login entry (${url}).\n`);
    return 0;
  }
  const code = await restartNow(io, layout, opts);
  if (code === 0) io.out(`The memory service runs ${VERSION} now.\n`);
  return code;
}

async function restartNow(io: Io, layout: Layout, opts: StartOptions): Promise<number> {
  const r = await stopService(layout, 10);
  if (r) {
    (r.failed ? io.err : io.out)(`${r.failed ? "memcli restart: " : ""}${r.line}\n`);
    if (r.failed) return 1;
  }
  const started = await startDaemon(io, opts, "restart");
  if (!started) return 1;
  io.out(`Started the memory service (pid ${started.pid}) at ${started.url}\n`);
  await warnDrift(io, "restart", started.url);
  return 0;
}

/** Run `memcli restart [--if-running]`. */
export async function restart(args: string[], io: Io): Promise<number> {
  const ifRunning = args.includes("--if-running");
  const { help, opts } = startOptions("restart", args.filter((a) => a !== "--if-running"));
  if (help) {
    io.out(COMMAND_USAGE.restart);
    return 0;
  }
  if (ifRunning) return await restartIfRunning(io, opts);
  return await restartNow(io, layoutOf(configOf(io).dataDir), opts);
}
