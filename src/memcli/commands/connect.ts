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
 *
 * This file holds the two commands' flags, the order of the steps and step 3 (the hooks, with
 * the list of hooks connect writes); the other steps are in src/memcli/connect/, one concern a
 * file: base.ts (the installed commands, `sh`, the record), service.ts (1 and 2), mcp.ts (4),
 * check.ts (5).
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { UsageError } from "../../common/errors.ts";
import { shellQuote } from "../../common/shell.ts";
import {
  claudeConfigDir,
  claudeSettingsFiles,
  DEFAULT_MEMORY_API_URL,
  DEFAULT_RECALL_JUDGE_TIMEOUT_MS,
  type MemoryConfig,
} from "../../config.ts";
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
import { configOf, layoutOf } from "../context.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { clientUrl } from "../../common/net.ts";
import { checkAccess } from "./hooks.ts";
import {
  type Bin,
  type ConnectRecord,
  findBin,
  readRecord,
  recordPath,
  safeEnv,
  type Say,
  sayTo,
  writeRecord,
} from "../connect/base.ts";
import { connectService, disconnectService } from "../connect/service.ts";
import { mcpEntry, registerMcp, unregisterMcp } from "../connect/mcp.ts";
import { checkAsClaudeRuns } from "../connect/check.ts";

/**
 * The hook commands connect writes: the installed memcli by absolute path. The prompt hook
 * carries `RECALL_JUDGE=on` (and a `RECALL_JUDGE_TIMEOUT_MS` other than the default) when the
 * judge is on here, where the service connect installs gets it too: the hooks may run without
 * the user's shell variables, and a hook that does not ask never gets the judge's choice.
 */
export function hookCommands(
  bin: Bin,
  url: string,
  recall: boolean,
  capture = false,
  judge: Pick<MemoryConfig, "recallJudge" | "recallJudgeTimeoutMs"> = {},
): Partial<Record<MnemeEvent, string>> {
  // The hooks may run without the user's shell variables: a service elsewhere than the
  // default is named on the command line. (ADMIN_API_KEY is not written into the settings:
  // the hooks get it from Claude Code's environment.)
  const prefix = url !== DEFAULT_MEMORY_API_URL ? `MEMORY_API_URL=${shellQuote(url)} ` : "";
  const base = `${prefix}${shellQuote(bin.memcli)}`;
  const out: Partial<Record<MnemeEvent, string>> = {
    SessionStart: `${base} ${EVENT_COMMAND.SessionStart}`,
  };
  if (recall) {
    const timeout = judge.recallJudgeTimeoutMs ?? DEFAULT_RECALL_JUDGE_TIMEOUT_MS;
    const asks = judge.recallJudge
      ? "RECALL_JUDGE=on " +
        (timeout !== DEFAULT_RECALL_JUDGE_TIMEOUT_MS ? `RECALL_JUDGE_TIMEOUT_MS=${timeout} ` : "")
      : "";
    out.UserPromptSubmit = `${prefix}${asks}${shellQuote(bin.memcli)} ` +
      EVENT_COMMAND.UserPromptSubmit;
  }
  if (capture) { for (const e of CAPTURE_EVENTS) out[e] = `${base} ${EVENT_COMMAND[e]}`; }
  return out;
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

/**
 * Step 3: the hooks in the settings file. The prompt hook: --recall adds it, --no-recall
 * removes it, neither keeps what is there. The hook commands written, for the check.
 */
async function connectHooks(
  settingsPath: string,
  bin: Bin,
  url: string,
  flags: { recall: boolean; noRecall: boolean; capture: boolean },
  judge: Pick<MemoryConfig, "recallJudge" | "recallJudgeTimeoutMs">,
  dry: boolean,
  io: Io,
  say: Say,
): Promise<Partial<Record<MnemeEvent, string>>> {
  const would = dry ? "would " : "";
  const before = await readSettingsText(settingsPath);
  const current = parseSettings(before, settingsPath);
  const hadRecall = findMnemeHooks(current).some((h) => h.event === "UserPromptSubmit");
  const noRecall = flags.noRecall;
  const recall = flags.recall || (hadRecall && !noRecall);
  const commands = hookCommands(bin, url, recall, flags.capture, judge);
  let edit = addMnemeHooks(current, commands);
  if (noRecall && hadRecall) {
    const rm = removeMnemeHooks(edit.settings, ["UserPromptSubmit"]);
    edit = { settings: rm.settings, changes: [...edit.changes, ...rm.changes] };
  }
  if (edit.changes.length === 0) {
    say("hooks:", `${settingsPath} (already in place)`);
  } else {
    if (!dry) await writeSettings(settingsPath, serialize(edit.settings));
    const verb = before === null ? ["create", "created"] : ["update", "updated"];
    say("hooks:", `${settingsPath} (${dry ? `would ${verb[0]}` : verb[1]})`);
    for (const c of edit.changes) io.out(`           ${c}\n`);
  }
  say(
    "recall:",
    noRecall
      ? (hadRecall
        ? `the prompt hook ${would}${dry ? "be " : ""}removed (--no-recall)`
        : "no prompt hook")
      : recall
      ? "the prompt hook injects relevant memories on each prompt (--no-recall removes it)"
      : "no prompt hook (--recall adds one: relevant memories on each prompt)",
  );
  return commands;
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
  // The configuration first: a setting out of range is named before anything else is tried
  // (memcli then holds too few permissions for the steps after it).
  const cfg = configOf(io);
  const bin = await findBin(io, stringFlag("connect", "bin", p.values.bin));
  checkSettingsAccess(settingsPathOf(io, projectDir), !dry);
  const layout = layoutOf(cfg.dataDir);
  const url = clientUrl(cfg.adminHost, cfg.adminPort);
  const say = sayTo(io);
  io.out(`${dry ? "Dry run: " : ""}Connecting Claude Code to Mneme (data: ${layout.dataDir})\n`);
  const record: ConnectRecord = {
    started_daemon: (await readRecord(layout))?.started_daemon ?? false,
    mcp: false,
  };

  // 1 and 2: the service, and its start at login.
  const service = await connectService({
    io,
    layout,
    url,
    bin,
    databaseUrl: cfg.databaseUrl,
    dry,
    timeoutS,
    noAutostart: p.values["no-autostart"] === true,
    takeOver: p.values["take-over"] === true,
    keep: p.values.keep === true,
    say,
  });
  if (service === null) return 1;
  if (service.startedDaemon) record.started_daemon = true;
  const manual = service.manual;

  // 3: the hooks.
  const commands = await connectHooks(
    settingsPathOf(io, projectDir),
    bin,
    url,
    {
      recall: p.values.recall === true,
      noRecall: p.values["no-recall"] === true,
      capture: p.values.capture === true,
    },
    cfg,
    dry,
    io,
    say,
  );

  // 4: the MCP server.
  const entry = mcpEntry(bin, url, cfg.adminApiKey);
  const mcp = await registerMcp(io, entry, dry, say);
  record.mcp = mcp.registered;

  if (dry) {
    io.out("Dry run: nothing was changed.\n");
    if (manual) io.out(`\n${manual}`);
    return 0;
  }
  await writeRecord(layout, record);

  // 5: the check, as Claude Code runs them.
  const cwd = projectDir ? resolve(io.cwd(), projectDir) : safeEnv(io, "HOME") ?? io.cwd();
  const ok = await checkAsClaudeRuns(io, commands, entry, cwd, timeoutS, say);
  const mcpTodo = mcp.todo;
  if (mcpTodo) io.out(`\nRegister the MCP server (for all your projects):\n\n  ${mcpTodo}\n`);
  if (manual) io.out(`\n${manual}`);
  if (!ok) {
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
  const say = sayTo(io);
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
  await unregisterMcp(io, dry, say);

  // The start at login (which also stops the service it runs), and a daemon connect started.
  await disconnectService(io, layout, rec, dry, say);
  if (!dry) {
    await Deno.remove(recordPath(layout)).catch(() => {});
    io.out(`Memories are kept in ${layout.dataDir}.\n`);
  } else io.out("Dry run: nothing was changed.\n");
  return 0;
}
