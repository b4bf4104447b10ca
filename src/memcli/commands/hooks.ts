/**
 * `memcli hooks install|uninstall|status`: Mneme's hooks in Claude Code's settings (see
 * src/memcli/claude_settings.ts for the edits). `install` adds SessionStart →
 * `memcli bootstrap --hook` and, with `--recall`, UserPromptSubmit → `memcli recall --hook`;
 * `uninstall` removes them (only the recall hook with `--recall`); `status` says what is
 * installed where and whether the memory service answers.
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { claudeConfigDir, claudeSettingsFiles } from "../../config.ts";
import { describeError, errorMessage } from "../../common/errors.ts";
import { MemoryError } from "../../domain/errors.ts";
import { intFlag, numberFlag, parseFlags, stringFlag } from "../args.ts";
import { UsageError } from "../../common/errors.ts";
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
  SettingsError,
  unifiedDiff,
  writeRemoval,
  writeSettings,
} from "../claude_settings.ts";
import { apiUrlOf, clientOf, configOf } from "../context.ts";
import { DEADLINE_MAX_MS, DEADLINE_MIN_MS } from "../hook.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { connectDrift } from "../connect/drift.ts";
import {
  DEFAULT_MIN_CONFIDENCE,
  DEFAULT_RECALL_LIMIT,
  DEFAULT_RECALL_MAX_CHARS,
} from "./recall.ts";

/** How long `status` waits for the service. */
const STATUS_TIMEOUT_MS = 1500;

function safeEnv(io: Io, name: string): string | undefined {
  try {
    return io.env(name)?.trim() || undefined;
  } catch {
    return undefined; // not granted
  }
}

/** The settings file a command edits: the project's, or Claude Code's user settings. */
function settingsPath(io: Io, projectDir: string | undefined): string {
  if (projectDir) return join(resolve(io.cwd(), projectDir), ".claude", "settings.json");
  const env = (n: string) => safeEnv(io, n);
  if (!env("CLAUDE_CONFIG_DIR") && !env("HOME") && !env("USERPROFILE")) {
    throw new SettingsError("HOME is not set; use --project-dir DIR");
  }
  return claudeSettingsFiles(resolve(io.cwd(), claudeConfigDir(env))).settings;
}

/** Refuse, without a permission prompt, a file memcli may not read (and write). */
export function checkAccess(path: string, write: boolean): void {
  const q = (name: "read" | "write", p: string) => {
    try {
      return Deno.permissions.querySync({ name, path: p }).state === "granted";
    } catch {
      return false;
    }
  };
  const backups = claudeSettingsFiles(dirname(path)).backups;
  if (!q("read", path) || (write && !(q("write", path) && q("write", backups)))) {
    throw new SettingsError(
      `${path} is outside memcli's permissions (it reads and writes Claude Code's user ` +
        "settings, ~/.claude or CLAUDE_CONFIG_DIR, and files in the working directory); " +
        "run it from the project directory",
    );
  }
}

/** The commands `install` writes, from its flags. */
function hookCommands(p: { values: Record<string, unknown> }): Partial<Record<MnemeEvent, string>> {
  const base = stringFlag("hooks", "command", p.values.command) ?? "memcli";
  const deadline = intFlag(
    "hooks",
    "deadline",
    p.values.deadline,
    DEADLINE_MIN_MS,
    DEADLINE_MAX_MS,
  );
  const limit = intFlag("hooks", "limit", p.values.limit, 1, 100);
  const maxChars = intFlag("hooks", "max-chars", p.values["max-chars"], 200, 100_000);
  const minConfidence = numberFlag("hooks", "min-confidence", p.values["min-confidence"], 0, 1);
  const common = deadline !== undefined ? ` --deadline ${deadline}` : "";
  const out: Partial<Record<MnemeEvent, string>> = {
    SessionStart: `${base} ${EVENT_COMMAND.SessionStart}${common}`,
  };
  if (p.values.recall) {
    let cmd = `${base} ${EVENT_COMMAND.UserPromptSubmit}${common}`;
    if (limit !== undefined && limit !== DEFAULT_RECALL_LIMIT) cmd += ` --limit ${limit}`;
    if (maxChars !== undefined && maxChars !== DEFAULT_RECALL_MAX_CHARS) {
      cmd += ` --max-chars ${maxChars}`;
    }
    if (minConfidence !== undefined && minConfidence !== DEFAULT_MIN_CONFIDENCE) {
      cmd += ` --min-confidence ${minConfidence}`;
    }
    out.UserPromptSubmit = cmd;
  } else if (limit !== undefined || maxChars !== undefined || minConfidence !== undefined) {
    throw new UsageError(
      "--limit, --max-chars and --min-confidence apply with --recall only",
      "hooks",
    );
  }
  if (p.values.capture) {
    for (const e of CAPTURE_EVENTS) out[e] = `${base} ${EVENT_COMMAND[e]}${common}`;
  }
  return out;
}

async function edit(
  io: Io,
  verb: "install" | "uninstall",
  args: string[],
): Promise<number> {
  const p = parseFlags("hooks", args, {
    "project-dir": { type: "string" },
    "dry-run": { type: "boolean" },
    recall: { type: "boolean" },
    capture: { type: "boolean" },
    ...(verb === "install"
      ? {
        command: { type: "string" },
        deadline: { type: "string" },
        limit: { type: "string" },
        "max-chars": { type: "string" },
        "min-confidence": { type: "string" },
      } as const
      : {}),
  });
  if (p.help) {
    io.out(COMMAND_USAGE.hooks);
    return 0;
  }
  const projectDir = stringFlag("hooks", "project-dir", p.values["project-dir"]);
  const dry = p.values["dry-run"] === true;
  const path = settingsPath(io, projectDir);
  checkAccess(path, !dry);
  const before = await readSettingsText(path);
  const settings = parseSettings(before, path);
  const result = verb === "install"
    ? addMnemeHooks(settings, hookCommands(p))
    : removeMnemeHooks(settings, uninstallEvents(p.values));
  if (result.changes.length === 0) {
    io.out(
      verb === "install"
        ? `Mneme's hooks are already installed in ${path}; nothing changed.\n`
        : `No Mneme hook${p.values.recall ? " for recall" : ""} in ${path}; nothing changed.\n`,
    );
    if (verb === "install" && !p.values.recall && findMnemeRecall(settings)) {
      io.out(
        "The recall hook stays installed (remove it with 'memcli hooks uninstall --recall').\n",
      );
    }
    return 0;
  }
  const after = serialize(result.settings);
  if (dry) {
    io.out(unifiedDiff(before ?? "", after, before === null ? "/dev/null" : path, path));
    io.err(`Dry run: ${path} was not changed.\n`);
    return 0;
  }
  let note = "";
  if (verb === "install") {
    const { backup } = await writeSettings(path, after);
    if (backup) note = ` (backup: ${backup})`;
  } else {
    const r = await writeRemoval(path, result.settings);
    if (r.removedFile) {
      note = " (nothing else was in it: file removed)";
      if (projectDir) await removeIfEmpty(dirname(path));
    } else if (r.backup) note = ` (backup: ${r.backup})`;
    else if (r.droppedBackups.length) note = " (restored as it was before; its backup removed)";
  }
  io.out(
    `${verb === "install" ? "Installed" : "Removed"} Mneme's hooks in ${path}${note}:\n` +
      result.changes.map((c) => `  ${c}\n`).join(""),
  );
  if (verb === "install") {
    io.out(
      "Claude Code runs them from its next session. See them with 'memcli hooks status'; " +
        "remove them with 'memcli hooks uninstall'.\n",
    );
  }
  return 0;
}

/** The events `uninstall` removes: --recall and --capture pick theirs; neither: all. */
function uninstallEvents(v: Record<string, unknown>): MnemeEvent[] | undefined {
  if (!v.recall && !v.capture) return undefined;
  return [...(v.recall ? ["UserPromptSubmit" as const] : []), ...(v.capture ? CAPTURE_EVENTS : [])];
}

function findMnemeRecall(settings: Record<string, unknown>): boolean {
  return findMnemeHooks(settings).some((h) => h.event === "UserPromptSubmit");
}

async function status(io: Io, args: string[]): Promise<number> {
  const p = parseFlags("hooks", args, { "project-dir": { type: "string" } });
  if (p.help) {
    io.out(COMMAND_USAGE.hooks);
    return 0;
  }
  const projectDir = stringFlag("hooks", "project-dir", p.values["project-dir"]) ?? io.cwd();
  const files: [string, string][] = [];
  try {
    files.push(["user", settingsPath(io, undefined)]);
  } catch (err) {
    io.out(`user settings: ${(err as Error).message}\n`);
  }
  const proj = resolve(io.cwd(), projectDir);
  // In the home folder the project's settings are the user's: that file once.
  const projectFile = join(proj, ".claude", "settings.json");
  if (!files.some(([, f]) => f === projectFile)) files.push(["project", projectFile]);
  files.push(["project (local)", join(proj, ".claude", "settings.local.json")]);
  let any = false;
  const withHooks: string[] = [];
  const commands: string[] = [];
  let bare = false;
  for (const [label, path] of files) {
    let line: string;
    try {
      checkAccess(path, false);
      const text = await readSettingsText(path);
      const found = findMnemeHooks(parseSettings(text, path));
      if (text === null) line = "no file";
      else if (!found.length) line = "no Mneme hooks";
      else {
        any = true;
        withHooks.push(label);
        commands.push(...found.map((h) => h.command));
        if (found.some((h) => /^(\w+=\S*\s+)*memcli\s/.test(h.command))) bare = true;
        line = found.map((h) => `\n    ${h.event}: ${h.command}`).join("");
      }
    } catch (err) {
      line = err instanceof SettingsError ? err.message : describeError(err);
    }
    io.out(`Claude Code ${label} settings ${path}: ${line}\n`);
  }
  if (!any) io.out("No Mneme hooks installed: run 'memcli connect claude'.\n");
  if (bare) {
    io.out(
      "Warning: a hook runs 'memcli' by name: it works only when memcli is on the PATH Claude " +
        "Code gives its hooks (else every session logs 'memcli: not found'); " +
        "'memcli connect claude' writes the installed memcli's absolute path.\n",
    );
  }
  if (withHooks.length > 1) {
    io.out(
      `Warning: Mneme's hooks are in more than one settings file (${withHooks.join(", ")}); ` +
        "Claude Code runs them all, so every session gets the bootstrap twice. Keep one: " +
        "'memcli hooks uninstall' (user) or 'memcli hooks uninstall --project-dir DIR'.\n",
    );
  }
  let url = "";
  try {
    const cfg = configOf(io);
    url = (await apiUrlOf(io, cfg)).url;
    const h = await clientOf(cfg, url, STATUS_TIMEOUT_MS).health();
    io.out(`Memory service at ${url}: ${h.status} (version ${h.version})\n`);
    for (const d of await connectDrift(io, url, commands)) io.out(`Warning: ${d}\n`);
  } catch (err) {
    const why = err instanceof MemoryError && err.status === 503
      ? "not answering (start it with 'memcli start')"
      : `not usable (${errorMessage(err)})`;
    io.out(
      `Memory service${url ? ` at ${url}` : ""}: ${why}; until it answers, the bootstrap ` +
        "hook prints a one-line note instead of the bootstrap and recall adds nothing\n",
    );
  }
  return 0;
}

/** Run `memcli hooks <install|uninstall|status>`. */
export async function hooks(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h") {
    io.out(COMMAND_USAGE.hooks);
    return 0;
  }
  if (sub === undefined) {
    io.err(COMMAND_USAGE.hooks);
    return 1;
  }
  try {
    if (sub === "install" || sub === "uninstall") return await edit(io, sub, rest);
    if (sub === "status") return await status(io, rest);
  } catch (err) {
    if (err instanceof SettingsError) {
      io.err(`memcli hooks ${sub}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  throw new UsageError(`unknown subcommand '${sub}' (install, uninstall, status)`, "hooks");
}
