/**
 * `memcli connect claude` and `memcli disconnect claude`: Claude Code gets Mneme in one
 * command, and loses every trace of it in one.
 *
 * connect, each step idempotent: (1) the memory service runs (started at login by a systemd
 * user unit or a launchd agent when the platform has one, else by memcli's background
 * daemon), (2) it starts at login (src/common/autostart.ts; a printed line where neither
 * exists), (3) the hooks in Claude Code's settings run the installed memcli by absolute
 * path, (4) the MCP server `mneme` is registered for the user as `claude mcp add --scope
 * user` does, the installed mneme-mcp by absolute path, (5) both are checked as Claude Code
 * runs them: with a minimal PATH, the hook prints the bootstrap and the MCP server answers
 * `initialize` and lists its tools. What it did is recorded in DATA_DIR/run/connect.json, so
 * that disconnect removes exactly that.
 * @module
 */
import { dirname, join, resolve } from "node:path";
import {
  type AutostartHost,
  type AutostartKind,
  type AutostartSpec,
  currentHost,
  detectAutostart,
  disableAutostart,
  enableAutostart,
  runCommand,
  type RunResult,
} from "../../common/autostart.ts";
import { UsageError } from "../../common/errors.ts";
import { finishChild, shellQuote } from "../../common/shell.ts";
import { claudeConfigDir, claudeSettingsFiles, DEFAULT_MEMORY_API_URL } from "../../config.ts";
import { claudeUserConfig, MEMORY_ENV_VARS } from "../../permissions.ts";
import { intFlag, parseFlags, stringFlag } from "../args.ts";
import {
  addMnemeHooks,
  CAPTURE_EVENTS,
  EVENT_COMMAND,
  findMnemeHooks,
  type MnemeEvent,
  parseSettings,
  readSettingsText,
  removeIfEmpty,
  removeMnemeHooks,
  serialize,
  writeRemoval,
  writeSettings,
} from "../claude_settings.ts";
import { configOf, type Layout, layoutOf } from "../context.ts";
import { answers, checkDaemon, servesDataDir, serviceOwner } from "../daemon.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { VERSION } from "../../version.ts";
import { clientUrl, startDaemon } from "./setup.ts";
import { checkAccess } from "./hooks.ts";
import { stopService } from "./service.ts";

/** The name of the start-at-login entry (systemd unit `mneme.service`, launchd label). */
export const AUTOSTART_NAME = "mneme";

/** The MCP server's name in Claude Code. */
export const MCP_NAME = "mneme";

/** The PATH of the check: what a hook gets from an agent started outside a login shell. */
export const MINIMAL_PATH = "/usr/bin:/bin";

/** What connect did, in DATA_DIR/run/connect.json. */
interface ConnectRecord {
  /** connect started memcli's background daemon (no login service here). */
  started_daemon: boolean;
  /** The MCP server was registered through `claude`. */
  mcp: boolean;
}

/** The installed commands connect points Claude Code at. */
interface Bin {
  dir: string;
  memcli: string;
  mcp: string;
  admin: string;
}

function safeEnv(io: Io, name: string): string | undefined {
  try {
    return io.env(name)?.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The folder of the installed commands: --bin, else the one memcli runs from. */
async function findBin(io: Io, flag: string | undefined): Promise<Bin> {
  const fromEnv = safeEnv(io, "MNEME_BIN_DIR");
  const home = safeEnv(io, "HOME");
  const dir = flag ? resolve(io.cwd(), flag) : fromEnv ??
    join(safeEnv(io, "DENO_INSTALL_ROOT") ?? join(home ?? "/", ".deno"), "bin");
  const bin = {
    dir,
    memcli: join(dir, "memcli"),
    mcp: join(dir, "mneme-mcp"),
    admin: join(dir, "mneme-admin"),
  };
  for (const p of [bin.memcli, bin.mcp, bin.admin]) {
    if ((await runCommand("sh", ["-c", '[ -x "$1" ]', "sh", p])).code === 0) continue;
    throw new UsageError(
      `${p} is not there: connect points Claude Code at the installed commands; run ` +
        "'deno task install' in the Mneme folder first (or give their folder with --bin DIR)",
      "connect",
    );
  }
  return bin;
}

/**
 * The `sh` arguments that run `argv`: as it is, or with exactly the environment `env` (through
 * `/usr/bin/env -i`: Deno resolves `sh` against the environment it is given, so a clean one
 * with another PATH would no longer be the `sh` memcli may run).
 */
function shArgs(argv: string[], env?: Record<string, string>): string[] {
  if (!env) return ["-c", 'exec "$0" "$@"', ...argv];
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return ["-c", 'exec /usr/bin/env -i "$@"', "sh", ...vars, ...argv];
}

/** Run a program through `sh` (memcli may run only sh, ps and kill): 127 when absent. */
async function runSh(
  argv: string[],
  opts: { env?: Record<string, string>; stdin?: string; cwd?: string } = {},
): Promise<RunResult> {
  const child = new Deno.Command("sh", {
    args: shArgs(argv, opts.env),
    cwd: opts.cwd,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return await finishChild(child, opts.stdin);
}

/** The autostart host of this process, its commands run through `sh`. */
export function hostOf(io: Io): AutostartHost {
  return {
    ...currentHost((n) => safeEnv(io, n)),
    run: (cmd, args, stdin) => runSh([cmd, ...args], { stdin }),
  };
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

/** The hook commands connect writes: the installed memcli by absolute path. */
function hookCommands(bin: Bin, url: string, recall: boolean, capture = false) {
  // The hooks may run without the user's shell variables: a service elsewhere than the
  // default is named on the command line. (ADMIN_API_KEY is not written into the settings:
  // the hooks get it from Claude Code's environment.)
  const prefix = url !== DEFAULT_MEMORY_API_URL ? `MEMORY_API_URL=${shellQuote(url)} ` : "";
  const base = `${prefix}${shellQuote(bin.memcli)}`;
  const out: Partial<Record<MnemeEvent, string>> = {
    SessionStart: `${base} ${EVENT_COMMAND.SessionStart}`,
  };
  if (recall) out.UserPromptSubmit = `${base} ${EVENT_COMMAND.UserPromptSubmit}`;
  if (capture) { for (const e of CAPTURE_EVENTS) out[e] = `${base} ${EVENT_COMMAND[e]}`; }
  return out;
}

/** The MCP server entry as `claude mcp add --scope user` writes it. */
function mcpEntry(bin: Bin, url: string, key: string | undefined) {
  const env: Record<string, string> = { MEMORY_API_URL: url };
  if (key) env.ADMIN_API_KEY = key;
  return { type: "stdio", command: bin.mcp, args: [] as string[], env };
}

/** The `claude mcp add` words for `entry` (secret values shown as `$NAME` when `print`). */
function mcpAddArgs(entry: ReturnType<typeof mcpEntry>, print: boolean): string[] {
  const args = ["mcp", "add", "--scope", "user", MCP_NAME];
  for (const [k, v] of Object.entries(entry.env)) {
    args.push("-e", print && k === "ADMIN_API_KEY" ? `${k}=$${k}` : `${k}=${v}`);
  }
  return [...args, "--", entry.command];
}

/** The `mneme` MCP server registered for the user, read from Claude Code's config. */
async function registeredMcp(io: Io): Promise<Record<string, unknown> | null> {
  const file = claudeUserConfig((n) => safeEnv(io, n));
  if (!file) return null;
  try {
    const json = JSON.parse(await Deno.readTextFile(resolve(io.cwd(), file)));
    const entry = json?.mcpServers?.[MCP_NAME];
    return entry && typeof entry === "object" ? entry : null;
  } catch {
    return null;
  }
}

function sameEntry(a: Record<string, unknown> | null, b: ReturnType<typeof mcpEntry>): boolean {
  if (!a) return false;
  return a.command === b.command && JSON.stringify(a.args ?? []) === JSON.stringify(b.args) &&
    JSON.stringify(a.env ?? {}) === JSON.stringify(b.env);
}

/** The settings file the hooks go to. */
function settingsPathOf(io: Io, projectDir: string | undefined): string {
  if (projectDir) return join(resolve(io.cwd(), projectDir), ".claude", "settings.json");
  return claudeSettingsFiles(resolve(io.cwd(), claudeConfigDir((n) => safeEnv(io, n)))).settings;
}

/** A settings file memcli may not touch is a usage error, found before anything is done. */
function checkSettingsAccess(path: string, write: boolean): void {
  try {
    checkAccess(path, write);
  } catch (err) {
    throw new UsageError(
      (err as Error).message.replace(
        /run it from the project directory$/,
        "run it from the project directory with --project-dir .",
      ),
      "connect",
    );
  }
}

/** The environment of the check: what Claude Code gives a hook it runs from a minimal PATH. */
function checkEnv(io: Io): Record<string, string> {
  const env: Record<string, string> = { PATH: MINIMAL_PATH };
  for (const k of ["HOME", "DENO_DIR", "XDG_CACHE_HOME", "CLAUDE_CONFIG_DIR"]) {
    const v = safeEnv(io, k);
    if (v) env[k] = v;
  }
  return env;
}

/** Run a hook as Claude Code does (`sh -c`), with a minimal environment; null when fine. */
async function checkHook(
  io: Io,
  command: string,
  cwd: string,
  event: MnemeEvent = "SessionStart",
): Promise<string | null> {
  const payload = JSON.stringify({
    session_id: "mneme-connect-check",
    cwd,
    hook_event_name: event,
    ...(event === "SessionStart" ? { source: "startup" } : { prompt: "mneme connect check" }),
  });
  const env = checkEnv(io);
  const key = safeEnv(io, "ADMIN_API_KEY");
  if (key) env.ADMIN_API_KEY = key;
  const r = await runSh(["/bin/sh", "-c", command], { env, stdin: payload, cwd });
  if (r.code !== 0) return `exit ${r.code}: ${(r.stderr || r.stdout).trim().split("\n").at(-1)}`;
  if (/no memory service|no bootstrap this session/i.test(r.stdout)) return r.stdout.trim();
  return null;
}

/**
 * Start the MCP server as Claude Code does, and list its tools with the MCP SDK's client
 * (initialize, then tools/list); `problem` null when fine.
 */
async function checkMcp(
  io: Io,
  entry: ReturnType<typeof mcpEntry>,
  timeoutMs: number,
): Promise<{ problem: string | null; tools: number; server: string }> {
  const { Client, DenoStdioTransport } = await import("../../common/mcp_client.ts");
  const transport = new DenoStdioTransport(
    "sh",
    shArgs([entry.command], { ...checkEnv(io), ...entry.env }),
  );
  const client = new Client({ name: "memcli-connect-check", version: VERSION });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), timeoutMs));
  const talk = async () => {
    await client.connect(transport);
    const info = client.getServerVersion();
    const { tools } = await client.listTools();
    return {
      problem: tools.length ? null : "it lists no tools",
      tools: tools.length,
      server: `${info?.name ?? "?"} ${info?.version ?? ""}`.trim(),
    };
  };
  let result: { problem: string | null; tools: number; server: string };
  try {
    const r = await Promise.race([talk(), timeout]);
    result = r === "timeout"
      ? { problem: `no answer within ${timeoutMs / 1000} s`, tools: 0, server: "" }
      : r;
  } catch (e) {
    result = { problem: (e as Error).message, tools: 0, server: "" };
  } finally {
    clearTimeout(timer);
  }
  // Closing ends the server: its stdin closes (killed after 5 s if it lingers).
  await client.close().catch(() => {});
  const err = transport.stderr.trim();
  if (result.problem && err) result.problem += ` (${err.split("\n").at(-1)})`;
  return result;
}

function recordPath(layout: Layout): string {
  return join(layout.run, "connect.json");
}

async function readRecord(layout: Layout): Promise<ConnectRecord | null> {
  try {
    return JSON.parse(await Deno.readTextFile(recordPath(layout)));
  } catch {
    return null;
  }
}

function parseTarget(verb: string, args: string[], io: Io): string[] | null {
  const [target, ...rest] = args;
  if (target === "--help" || target === "-h") {
    io.out(COMMAND_USAGE[verb]);
    return null;
  }
  if (target !== "claude") {
    throw new UsageError(
      target === undefined
        ? "name the client to connect: claude"
        : `unknown client '${target}' (claude)`,
      verb,
    );
  }
  return rest;
}

/** Run `memcli connect claude`. */
export async function connect(args: string[], io: Io): Promise<number> {
  const rest = parseTarget("connect", args, io);
  if (!rest) return 0;
  const p = parseFlags("connect", rest, {
    recall: { type: "boolean" },
    capture: { type: "boolean" },
    "project-dir": { type: "string" },
    "dry-run": { type: "boolean" },
    "no-autostart": { type: "boolean" },
    bin: { type: "string" },
    timeout: { type: "string" },
    "take-over": { type: "boolean" },
    keep: { type: "boolean" },
    "no-recall": { type: "boolean" },
  });
  if (p.help) {
    io.out(COMMAND_USAGE.connect);
    return 0;
  }
  if (p.values["take-over"] && p.values.keep) {
    throw new UsageError("--take-over and --keep cannot be combined", "connect");
  }
  if (p.values.recall && p.values["no-recall"]) {
    throw new UsageError("--recall and --no-recall cannot be combined", "connect");
  }
  const dry = p.values["dry-run"] === true;
  const projectDir = stringFlag("connect", "project-dir", p.values["project-dir"]);
  const timeoutS = intFlag("connect", "timeout", p.values.timeout, 1, 3600) ?? 120;
  const bin = await findBin(io, stringFlag("connect", "bin", p.values.bin));
  checkSettingsAccess(settingsPathOf(io, projectDir), !dry);
  const cfg = configOf(io);
  const layout = layoutOf(cfg.dataDir);
  const url = clientUrl(cfg.adminHost, cfg.adminPort);
  const would = dry ? "would " : "";
  const say = (label: string, text: string) => io.out(`${label.padEnd(10)} ${text}\n`);
  io.out(`${dry ? "Dry run: " : ""}Connecting Claude Code to Mneme (data: ${layout.dataDir})\n`);
  const record: ConnectRecord = {
    started_daemon: (await readRecord(layout))?.started_daemon ?? false,
    mcp: false,
  };

  // 1 and 2: the service, and its start at login.
  const host = hostOf(io);
  const kind = p.values["no-autostart"] ? "none" : await detectAutostart(host, true);
  let running = await answers(url, 0);
  if (running && !cfg.databaseUrl && !(await servesDataDir(layout, url))) {
    io.err(
      `memcli connect: a Mneme service answers at ${url}, but it does not hold ` +
        `${layout.dataDir} (it serves another data folder, or another user's). Stop that ` +
        `one, or give this folder's service a free port: ADMIN_PORT=4201 memcli connect claude\n`,
    );
    return 1;
  }
  // One owner: a service started in a terminal stops with it; offer to take it over.
  const terminal = running && (await checkDaemon(layout)).kind !== "running"
    ? await serviceOwner(layout)
    : null;
  if (terminal?.task) {
    const what = `the memory service at ${url} (pid ${terminal.pid}) was started in a ` +
      "terminal (deno task start): it stops when that terminal closes, and Claude Code then " +
      "has no memory until it is started again";
    let take = p.values["take-over"] === true;
    if (!take && !p.values.keep && !dry && io.stdinIsTerminal()) {
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
        return 1;
      }
      say("service:", `took over: stopped the one started in a terminal (pid ${terminal.pid})`);
      running = false;
    } else if (take) {
      say("service:", `would take over the one started in a terminal (pid ${terminal.pid})`);
    } else {
      io.err(
        `memcli connect: warning: ${what}. ` +
          (p.values.keep
            ? "Kept (--keep).\n"
            : "Kept; 'memcli connect claude --take-over' stops it and starts the background " +
              "service on the same data folder ('--keep' keeps it without this warning's advice).\n"),
      );
    }
  }
  const spec = serviceSpec(io, bin, layout);
  let manual: string | undefined;
  if (kind === "systemd" || kind === "launchd") {
    // The login service owns the service, unless one runs already (it takes over at login).
    const r = await enableAutostart(spec, { host, dryRun: dry, now: !running, kind });
    const what = kind === "systemd" ? "systemd user unit" : "launchd agent";
    say(
      "at login:",
      `${what} ${r.file}${
        r.changed
          ? ` (${would}${running ? "enabled" : "enabled and started"})`
          : " (already in place)"
      }`,
    );
    if (!running && !dry && !(await answers(url, timeoutS * 1000))) {
      io.err(
        `memcli connect: the ${what} started the service but ${url} does not answer after ` +
          `${timeoutS} s; see ${layout.logFile}` +
          (kind === "systemd" ? ` and 'systemctl --user status ${AUTOSTART_NAME}'` : "") + "\n",
      );
      return 1;
    }
    say("service:", running ? `running at ${url}` : `${would}start at ${url}`);
  } else {
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
        return 1;
      }
      const started = await startDaemon(io, { timeoutS }, "connect");
      if (!started) return 1;
      record.started_daemon = true;
      say("service:", `started in the background at ${started.url} (pid ${started.pid})`);
    }
    if (kind === "manual") {
      manual = (await enableAutostart(spec, { host, kind })).manual;
      say("at login:", "not set up by itself here: see below");
    } else if (kind === "none") {
      say("at login:", "not set up (--no-autostart)");
    } else {
      // No service manager here: the next thing that exists starts `memcli start` at login.
      const r = await enableAutostart(spec, { host, kind, dryRun: dry });
      say(
        "at login:",
        `${fallbackNote(kind, r.file)}${
          r.changed ? ` (${would}${kind === "cron" ? "added" : "written"})` : " (already in place)"
        }`,
      );
    }
  }

  // 3: the hooks.
  const settingsPath = settingsPathOf(io, projectDir);
  const before = await readSettingsText(settingsPath);
  const current = parseSettings(before, settingsPath);
  // The prompt hook: --recall adds it, --no-recall removes it, neither keeps what is there.
  const hadRecall = findMnemeHooks(current).some((h) => h.event === "UserPromptSubmit");
  const noRecall = p.values["no-recall"] === true;
  const recall = p.values.recall === true || (hadRecall && !noRecall);
  const commands = hookCommands(bin, url, recall, p.values.capture === true);
  let edit = addMnemeHooks(current, commands);
  if (noRecall && hadRecall) {
    const rm = removeMnemeHooks(edit.settings, ["UserPromptSubmit"]);
    edit = { settings: rm.settings, changes: [...edit.changes, ...rm.changes] };
  }
  if (edit.changes.length === 0) {
    say("hooks:", `${settingsPath} (already in place)`);
  } else {
    if (!dry) await writeSettings(settingsPath, serialize(edit.settings));
    say("hooks:", `${settingsPath} (${would}${before === null ? "created" : "updated"})`);
    for (const c of edit.changes) io.out(`           ${c}\n`);
  }
  say(
    "recall:",
    noRecall
      ? (hadRecall ? `the prompt hook ${would}removed (--no-recall)` : "no prompt hook")
      : recall
      ? "the prompt hook injects relevant memories on each prompt (--no-recall removes it)"
      : "no prompt hook (--recall adds one: relevant memories on each prompt)",
  );

  // 4: the MCP server.
  const entry = mcpEntry(bin, url, cfg.adminApiKey);
  const have = await registeredMcp(io);
  const printLine = ["claude", ...mcpAddArgs(entry, true)].map(shellQuote).join(" ")
    .replace(/'(ADMIN_API_KEY=)\$ADMIN_API_KEY'/, '"$1$ADMIN_API_KEY"');
  let mcpTodo: string | null = null;
  if (sameEntry(have, entry)) {
    say("MCP:", `server '${MCP_NAME}' -> ${bin.mcp} (already registered)`);
    record.mcp = true;
  } else if (dry) {
    say("MCP:", `would register server '${MCP_NAME}' -> ${bin.mcp}: ${printLine}`);
  } else {
    if (have) await runSh(["claude", "mcp", "remove", "--scope", "user", MCP_NAME]);
    const r = await runSh(["claude", ...mcpAddArgs(entry, false)]);
    if (r.code === 0) {
      record.mcp = true;
      say(
        "MCP:",
        `server '${MCP_NAME}' -> ${bin.mcp} (${
          have ? "updated" : "registered"
        } with claude mcp add --scope user)`,
      );
    } else {
      mcpTodo = printLine;
      say(
        "MCP:",
        r.code === 127
          ? "'claude' is not on PATH: run the line below to register the MCP server"
          : `claude mcp add failed (exit ${r.code}: ${
            r.stderr.trim().split("\n").at(-1)
          }); run the line below`,
      );
    }
  }

  if (dry) {
    io.out("Dry run: nothing was changed.\n");
    if (manual) io.out(`\n${manual}`);
    return 0;
  }
  await Deno.mkdir(layout.run, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(recordPath(layout), JSON.stringify(record, null, 2) + "\n", {
    mode: 0o600,
  });

  // 5: the check, as Claude Code runs them.
  const cwd = projectDir ? resolve(io.cwd(), projectDir) : safeEnv(io, "HOME") ?? io.cwd();
  const hookProblem = await checkHook(io, commands.SessionStart!, cwd);
  say(
    "check:",
    hookProblem
      ? `the SessionStart hook failed: ${hookProblem}`
      : `the SessionStart hook prints the bootstrap (PATH=${MINIMAL_PATH})`,
  );
  const recallProblem = commands.UserPromptSubmit
    ? await checkHook(io, commands.UserPromptSubmit, cwd, "UserPromptSubmit")
    : null;
  if (commands.UserPromptSubmit) {
    say(
      "check:",
      recallProblem
        ? `the UserPromptSubmit hook failed: ${recallProblem}`
        : `the UserPromptSubmit hook runs (PATH=${MINIMAL_PATH})`,
    );
  }
  const mcp = await checkMcp(io, entry, Math.min(timeoutS, 60) * 1000);
  say(
    "check:",
    mcp.problem
      ? `the MCP server failed: ${mcp.problem}`
      : `the MCP server answers initialize (${mcp.server}, ${mcp.tools} tools)`,
  );
  if (mcpTodo) io.out(`\nRegister the MCP server (for all your projects):\n\n  ${mcpTodo}\n`);
  if (manual) io.out(`\n${manual}`);
  if (hookProblem || recallProblem || mcp.problem) {
    io.err(
      "memcli connect: the check failed (see above); fix it and run 'memcli connect claude' again\n",
    );
    return 1;
  }
  io.out(
    `\nClaude Code has Mneme from its next session${
      mcpTodo ? " (once the MCP line above is run)" : ""
    }. ` +
      "Undo: memcli disconnect claude\n",
  );
  return 0;
}

/** Run `memcli disconnect claude`. */
export async function disconnect(args: string[], io: Io): Promise<number> {
  const rest = parseTarget("disconnect", args, io);
  if (!rest) return 0;
  const p = parseFlags("disconnect", rest, {
    "project-dir": { type: "string" },
    "dry-run": { type: "boolean" },
  });
  if (p.help) {
    io.out(COMMAND_USAGE.disconnect);
    return 0;
  }
  const dry = p.values["dry-run"] === true;
  const projectDir = stringFlag("disconnect", "project-dir", p.values["project-dir"]);
  checkSettingsAccess(settingsPathOf(io, projectDir), !dry);
  const cfg = configOf(io);
  const layout = layoutOf(cfg.dataDir);
  const rec = await readRecord(layout);
  const would = dry ? "would " : "";
  const say = (label: string, text: string) => io.out(`${label.padEnd(10)} ${text}\n`);
  io.out(`${dry ? "Dry run: " : ""}Disconnecting Claude Code from Mneme\n`);

  // The hooks.
  for (const path of [settingsPathOf(io, projectDir)]) {
    const before = await readSettingsText(path);
    const settings = parseSettings(before, path);
    if (findMnemeHooks(settings).length === 0) {
      say("hooks:", `none in ${path}`);
      continue;
    }
    const edit = removeMnemeHooks(settings);
    let note = "";
    if (!dry) {
      const r = await writeRemoval(path, edit.settings);
      if (r.removedFile) {
        note = ", nothing else was in it: file removed";
        if (dirname(path) !== resolve(io.cwd(), claudeConfigDir((n) => safeEnv(io, n)))) {
          await removeIfEmpty(dirname(path));
        }
      } else if (r.backup) note = `, backup: ${r.backup}`;
      else if (r.droppedBackups.length) note = ", restored as it was";
    }
    say("hooks:", `${dry ? "would remove" : "removed"} from ${path}${note}`);
    for (const c of edit.changes) io.out(`           ${c}\n`);
  }

  if (projectDir) {
    // The MCP server and the service serve every project: only the project's hooks go.
    io.out(
      `${dry ? "Dry run: nothing was changed. " : ""}The MCP server and the service stay ` +
        "(they serve all your projects); 'memcli disconnect claude' removes them.\n",
    );
    return 0;
  }

  // The MCP server, when it is Mneme's.
  const have = await registeredMcp(io);
  const ours = typeof have?.command === "string" && /(^|\/)mneme-mcp$/.test(have.command);
  if (!ours) {
    say(
      "MCP:",
      have
        ? `server '${MCP_NAME}' is not Mneme's mneme-mcp; left alone`
        : `no server '${MCP_NAME}'`,
    );
  } else if (dry) {
    say("MCP:", `would remove server '${MCP_NAME}' (claude mcp remove --scope user ${MCP_NAME})`);
  } else {
    const r = await runSh(["claude", "mcp", "remove", "--scope", "user", MCP_NAME]);
    say(
      "MCP:",
      r.code === 0
        ? `removed server '${MCP_NAME}'`
        : `could not run claude (exit ${r.code}); remove it with: claude mcp remove --scope user ${MCP_NAME}`,
    );
  }

  // The start at login (which also stops the service it runs), and a daemon connect started.
  const host = hostOf(io);
  const off = await disableAutostart(AUTOSTART_NAME, {
    host,
    dryRun: dry,
    now: true,
    fallbacks: true,
  });
  say(
    "at login:",
    !off.changed
      ? "nothing registered"
      : off.kind === "systemd" || off.kind === "launchd"
      ? `${would}removed ${off.file}`
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
        ? `${would}stopped with its login entry`
        : "left as it is (connect did not start it)",
    );
  }
  if (!dry) {
    await Deno.remove(recordPath(layout)).catch(() => {});
    io.out(`Memories are kept in ${layout.dataDir}.\n`);
  } else io.out("Dry run: nothing was changed.\n");
  return 0;
}
