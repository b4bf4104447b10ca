/**
 * Steps 1 and 2 of `memcli connect claude` and their undoing: the memory service runs, and it
 * starts at login. Where the platform has a service manager (a systemd user unit, a launchd
 * agent) that manager owns the service; elsewhere memcli's background daemon runs it now and
 * the next thing that exists (an XDG autostart entry, an `@reboot` crontab line, a line in the
 * shell's profile) runs `memcli start` at login (src/common/autostart.ts). One data folder has
 * one service: one started in a terminal is offered to be taken over, one that holds another
 * folder is refused.
 *
 * @module
 */
import {
  type AutostartKind,
  type AutostartSpec,
  detectAutostart,
  disableAutostart,
  enableAutostart,
} from "../../common/autostart.ts";
import { MEMORY_ENV_VARS } from "../../permissions.ts";
import type { Layout } from "../context.ts";
import { answers, checkDaemon, servesDataDir, serviceOwner } from "../daemon.ts";
import type { Io } from "../io.ts";
import { startDaemon } from "../commands/setup.ts";
import { stopService } from "../commands/service.ts";
import { AUTOSTART_NAME, type Bin, type ConnectRecord, hostOf, safeEnv, type Say } from "./base.ts";

/** What connect's service steps need to know. */
export interface ServiceStep {
  io: Io;
  layout: Layout;
  /** The service's URL. */
  url: string;
  bin: Bin;
  /** The service runs on a server database (DATABASE_URL), so it holds no data folder. */
  databaseUrl: string | undefined;
  dry: boolean;
  /** How long to wait for a service to answer (s). */
  timeoutS: number;
  /** --no-autostart, --take-over, --keep. */
  noAutostart: boolean;
  takeOver: boolean;
  keep: boolean;
  say: Say;
}

/** What the service steps did, or null when they failed (said on stderr). */
export interface ServiceResult {
  /** connect started memcli's background daemon. */
  startedDaemon: boolean;
  /** The login line to add by hand, where nothing can add it. */
  manual?: string;
}

/** The memory-service variables set here (the service and the MCP server get them). */
function serviceEnv(io: Io, layout: Layout): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of MEMORY_ENV_VARS) {
    const v = safeEnv(io, k);
    if (v !== undefined && k !== "MEMORY_API_URL") env[k] = v;
  }
  env.DATA_DIR = layout.dataDir;
  return env;
}

/**
 * The login service: the installed mneme-admin with this configuration; where no service
 * manager supervises it, `memcli start` (which starts it in the background unless it runs).
 */
function serviceSpec(io: Io, bin: Bin, layout: Layout): AutostartSpec {
  return {
    name: AUTOSTART_NAME,
    description: "Mneme memory service",
    argv: [bin.admin],
    env: serviceEnv(io, layout),
    workingDirectory: layout.dataDir,
    logFile: layout.logFile,
    startCommand: [bin.memcli, "start"],
  };
}

/** What connect says of a fallback entry it wrote (no service manager here). */
function fallbackNote(kind: AutostartKind, file: string | undefined): string {
  if (kind === "xdg") return `XDG autostart entry ${file} (a desktop login starts the service)`;
  if (kind === "cron") return "an @reboot line in your crontab (the service starts at boot)";
  return `a line in ${file} (a login shell starts the service when it is not running)`;
}

/**
 * One owner: a service started in a terminal stops with it, so connect offers to take it
 * over (stop it, so that the background service starts on the same folder). Whether a service
 * still runs afterwards, or null when stopping it failed.
 */
async function offerTakeOver(s: ServiceStep, running: boolean): Promise<boolean | null> {
  const { io, layout, url, dry, say } = s;
  const terminal = running && (await checkDaemon(layout)).kind !== "running"
    ? await serviceOwner(layout)
    : null;
  if (!terminal?.task) return running;
  const what = `the memory service at ${url} (pid ${terminal.pid}) was started in a ` +
    "terminal (deno task start): it stops when that terminal closes, and Claude Code then " +
    "has no memory until it is started again";
  let take = s.takeOver;
  if (!take && !s.keep && !dry && io.stdinIsTerminal()) {
    io.err(
      `${what}.\nTake it over (stop it, and start the background service on ${layout.dataDir})? [Y/n] `,
    );
    const answer = ((await io.readLine()) ?? "").trim().toLowerCase();
    take = answer === "" || answer === "y" || answer === "yes";
  }
  if (take && !dry) {
    const r = await stopService(layout, 10);
    if (r?.failed) {
      io.err(`memcli connect: ${r.line}\n`);
      return null;
    }
    say("service:", `took over: stopped the one started in a terminal (pid ${terminal.pid})`);
    return false;
  }
  if (take) {
    say("service:", `would take over the one started in a terminal (pid ${terminal.pid})`);
  } else {
    io.err(
      `memcli connect: warning: ${what}. ` +
        (s.keep
          ? "Kept (--keep).\n"
          : "Kept; 'memcli connect claude --take-over' stops it and starts the background " +
            "service on the same data folder ('--keep' keeps it without this warning's advice).\n"),
    );
  }
  return running;
}

/**
 * A systemd user unit or launchd agent owns the service, unless one runs already (it takes
 * over at login); enabled, started, and waited for until it answers.
 */
async function serviceByManager(
  s: ServiceStep,
  kind: "systemd" | "launchd",
  running: boolean,
): Promise<ServiceResult | null> {
  const { io, layout, url, dry, say, timeoutS } = s;
  const spec = serviceSpec(io, s.bin, layout);
  const r = await enableAutostart(spec, { host: hostOf(io), dryRun: dry, now: !running, kind });
  const what = kind === "systemd" ? "systemd user unit" : "launchd agent";
  say(
    "at login:",
    `${what} ${r.file}${
      r.changed
        ? ` (${
          dry
            ? `would enable${running ? "" : " and start"} it`
            : running
            ? "enabled"
            : "enabled and started"
        })`
        : " (already in place)"
    }`,
  );
  if (!running && !dry && !(await answers(url, timeoutS * 1000))) {
    io.err(
      `memcli connect: the ${what} started the service but ${url} does not answer after ` +
        `${timeoutS} s; see ${layout.logFile}` +
        (kind === "systemd" ? ` and 'systemctl --user status ${AUTOSTART_NAME}'` : "") + "\n",
    );
    return null;
  }
  say("service:", running ? `running at ${url}` : `${dry ? "would start" : "started"} at ${url}`);
  return { startedDaemon: false };
}

/**
 * No service manager here: memcli's background daemon runs the service now (unless one runs),
 * and the next thing that exists starts `memcli start` at login (or a line to add by hand).
 */
async function serviceByFallback(
  s: ServiceStep,
  kind: AutostartKind | "none",
  running: boolean,
): Promise<ServiceResult | null> {
  const { io, layout, url, dry, say } = s;
  const result: ServiceResult = { startedDaemon: false };
  if (running) {
    say("service:", `running at ${url}`);
  } else if (dry) {
    say("service:", `would start in the background at ${url}`);
  } else {
    const owner = (await checkDaemon(layout)).kind === "running"
      ? null
      : await serviceOwner(layout);
    if (owner) {
      io.err(
        `memcli connect: the memory service for ${layout.dataDir} runs (pid ${owner.pid}) but ` +
          `does not answer at ${url}: it is starting, or it listens elsewhere (${
            owner.url ?? "?"
          }); ` +
          "check ADMIN_PORT and ADMIN_HOST, or stop it with 'memcli stop'\n",
      );
      return null;
    }
    const started = await startDaemon(io, { timeoutS: s.timeoutS }, "connect");
    if (!started) return null;
    result.startedDaemon = true;
    say("service:", `started in the background at ${started.url} (pid ${started.pid})`);
  }
  const spec = serviceSpec(io, s.bin, layout);
  const host = hostOf(io);
  if (kind === "manual") {
    result.manual = (await enableAutostart(spec, { host, kind })).manual;
    say("at login:", "not set up by itself here: see below");
  } else if (kind === "none") {
    say("at login:", "not set up (--no-autostart)");
  } else {
    // No service manager here: the next thing that exists starts `memcli start` at login.
    const r = await enableAutostart(spec, { host, kind, dryRun: dry });
    say(
      "at login:",
      `${fallbackNote(kind, r.file)}${
        r.changed
          ? ` (${
            dry
              ? `would ${kind === "cron" ? "add" : "write"} it`
              : kind === "cron"
              ? "added"
              : "written"
          })`
          : " (already in place)"
      }`,
    );
  }
  return result;
}

/** Steps 1 and 2: the service runs, and it starts at login. Null when it failed (said). */
export async function connectService(s: ServiceStep): Promise<ServiceResult | null> {
  const { io, layout, url } = s;
  const kind = s.noAutostart ? "none" : await detectAutostart(hostOf(io), true);
  const answering = await answers(url, 0);
  if (answering && !s.databaseUrl && !(await servesDataDir(layout, url))) {
    io.err(
      `memcli connect: a Mneme service answers at ${url}, but it does not hold ` +
        `${layout.dataDir} (it serves another data folder, or another user's). Stop that ` +
        `one, or give this folder's service a free port: ADMIN_PORT=4201 memcli connect claude\n`,
    );
    return null;
  }
  const running = await offerTakeOver(s, answering);
  if (running === null) return null;
  if (kind === "systemd" || kind === "launchd") return await serviceByManager(s, kind, running);
  return await serviceByFallback(s, kind, running);
}

/**
 * disconnect: the start at login removed (which also stops the service it runs), and the
 * background daemon stopped when connect started it.
 */
export async function disconnectService(
  io: Io,
  layout: Layout,
  rec: ConnectRecord | null,
  dry: boolean,
  say: Say,
): Promise<void> {
  const off = await disableAutostart(AUTOSTART_NAME, {
    host: hostOf(io),
    dryRun: dry,
    now: true,
    fallbacks: true,
  });
  say(
    "at login:",
    !off.changed
      ? "nothing registered"
      : off.kind === "systemd" || off.kind === "launchd"
      ? `${dry ? "would remove" : "removed"} ${off.file}`
      : off.steps.map((x) => dry ? `would ${x}` : x.replace(/^remove /, "removed ")).join("; "),
  );
  if (rec?.started_daemon) {
    if (dry) say("service:", "would stop the background service connect started");
    else {
      const r = await stopService(layout, 10);
      say("service:", r ? r.line : "not running");
    }
  } else {
    say(
      "service:",
      off.changed
        ? `${dry ? "would stop" : "stopped"} with its login entry`
        : "left as it is (connect did not start it)",
    );
  }
}
