/**
 * Mneme's entries in Claude Code's settings (`~/.claude/settings.json`, or a project's
 * `.claude/settings.json`): pure edits of the parsed JSON, a line diff for `--dry-run`, and
 * the file handling (timestamped backup, atomic write).
 *
 * Claude Code's hooks live under `hooks`: event name → array of matcher groups, each
 * `{matcher?, hooks: [{type: "command", command, timeout?}]}` (timeout in seconds). Mneme
 * adds one group per event holding one command hook. A hook is Mneme's when its command
 * runs memcli's `bootstrap --hook` or `recall --hook` ({@link isMnemeCommand}); nothing else
 * is ever changed: other settings, other events and foreign hooks keep their values and
 * order (the file is re-serialised with two-space indentation, so only layout can change).
 * @module
 */
import { basename, dirname, join } from "node:path";
import { exists, readTextIfExists } from "../common/fs.ts";
import { claudeSettingsFiles } from "../config.ts";
import { writeFileAtomic } from "../common/write.ts";

/** The events Mneme installs a hook for. */
export type MnemeEvent = "SessionStart" | "UserPromptSubmit" | CaptureEvent;

/** The events of the capture hook (`--capture`). */
export type CaptureEvent = "Stop" | "PreCompact" | "SessionEnd";

/** The events of the capture hook, in the order they are written. */
export const CAPTURE_EVENTS: CaptureEvent[] = ["Stop", "PreCompact", "SessionEnd"];

/** Each event's memcli subcommand. */
export const EVENT_COMMAND: Record<MnemeEvent, string> = {
  SessionStart: "bootstrap --hook",
  UserPromptSubmit: "recall --hook",
  Stop: "capture --hook",
  PreCompact: "capture --hook",
  SessionEnd: "capture --hook",
};

/** Claude Code's own limit on each Mneme hook, in seconds (memcli stops long before). */
export const HOOK_TIMEOUT_S = 10;

/** A settings file that cannot be edited safely. */
export class SettingsError extends Error {
  /** Create the error. */
  constructor(message: string) {
    super(message);
    this.name = "SettingsError";
  }
}

type Json = Record<string, unknown>;

/** True when `command` runs memcli's bootstrap or recall hook (any path, any options). */
export function isMnemeCommand(command: unknown): command is string {
  return typeof command === "string" &&
    /(^|[\s/'"])memcli(\.[A-Za-z]+)?['"]?\s+(bootstrap|recall|capture)\b[^;&|]*\s--hook(?=\s|$)/
      .test(
        command,
      );
}

/** Whether a Mneme command is the one of `event` (capture's is under three events). */
function belongsTo(command: string, event: string): boolean {
  if (/\scapture\b/.test(command)) return (CAPTURE_EVENTS as string[]).includes(event);
  return (/\srecall\b/.test(command) ? "UserPromptSubmit" : "SessionStart") === event;
}

/** Parse a settings file's text: absent or blank is `{}`; anything else must be an object. */
export function parseSettings(text: string | null, path: string): Json {
  if (text === null || text.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(
      `${path} is not valid JSON (${(err as Error).message}); fix it or move it away, ` +
        "nothing was changed",
    );
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    throw new SettingsError(`${path} does not hold a JSON object; nothing was changed`);
  }
  const hooks = (json as Json).hooks;
  if (hooks !== undefined && (!hooks || typeof hooks !== "object" || Array.isArray(hooks))) {
    throw new SettingsError(`${path}: "hooks" is not an object; nothing was changed`);
  }
  for (const [event, groups] of Object.entries((hooks ?? {}) as Json)) {
    if (!Array.isArray(groups)) {
      throw new SettingsError(`${path}: "hooks.${event}" is not an array; nothing was changed`);
    }
  }
  return json as Json;
}

/** One Mneme hook found in settings. */
export interface FoundHook {
  /** The event it is under. */
  event: string;
  /** Its command. */
  command: string;
}

function groupsOf(settings: Json, event: string): unknown[] | undefined {
  const hooks = settings.hooks as Json | undefined;
  const groups = hooks?.[event];
  return Array.isArray(groups) ? groups : undefined;
}

function commandHooks(group: unknown): Json[] {
  const hooks = (group as Json | null)?.hooks;
  return Array.isArray(hooks) ? hooks.filter((h) => h && typeof h === "object") as Json[] : [];
}

/** Mneme's hooks in `settings`, in file order. */
export function findMnemeHooks(settings: Json): FoundHook[] {
  const out: FoundHook[] = [];
  for (const [event, groups] of Object.entries((settings.hooks ?? {}) as Json)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      for (const h of commandHooks(g)) {
        if (isMnemeCommand(h.command)) out.push({ event, command: h.command });
      }
    }
  }
  return out;
}

/** The result of an edit: the new settings and one line per change (none: nothing to do). */
export interface Edit {
  /** The settings after the edit (a copy; the input is not modified). */
  settings: Json;
  /** What changed, for the user. */
  changes: string[];
}

/**
 * Add (or update) Mneme's hook for each event of `commands` (event → full command). An
 * existing Mneme hook of that event with the same command is left as it is; one with another
 * command (an older path or other options) gets the new command; otherwise a new group is
 * appended after the event's other groups.
 */
export function addMnemeHooks(settings: Json, commands: Partial<Record<MnemeEvent, string>>): Edit {
  const out = structuredClone(settings);
  const changes: string[] = [];
  for (const [event, command] of Object.entries(commands) as [MnemeEvent, string][]) {
    const mine = findMnemeHooks(out).filter((h) => h.event === event);
    if (mine.some((h) => h.command === command)) continue;
    const hooks = (out.hooks ??= {}) as Json;
    const groups = (hooks[event] ??= []) as unknown[];
    let updated = false;
    for (const g of groups) {
      for (const h of commandHooks(g)) {
        if (!updated && isMnemeCommand(h.command) && belongsTo(h.command, event)) {
          changes.push(`${event}: changed '${h.command}' to '${command}'`);
          h.command = command;
          updated = true;
        }
      }
    }
    if (!updated) {
      groups.push({ hooks: [{ type: "command", command, timeout: HOOK_TIMEOUT_S }] });
      changes.push(`${event}: added '${command}'`);
    }
  }
  return { settings: out, changes };
}

/**
 * Remove Mneme's hooks (of `events` only, when given). A group left without hooks is removed,
 * then an event left without groups, then `hooks` when it became empty; everything else
 * stays as it was.
 */
export function removeMnemeHooks(settings: Json, events?: MnemeEvent[]): Edit {
  const out = structuredClone(settings);
  const changes: string[] = [];
  const hooks = out.hooks as Json | undefined;
  if (!hooks) return { settings: out, changes };
  for (const event of Object.keys(hooks)) {
    const groups = groupsOf(out, event);
    if (!groups) continue;
    const keptGroups: unknown[] = [];
    for (const g of groups) {
      const list = (g as Json | null)?.hooks;
      if (!Array.isArray(list)) {
        keptGroups.push(g);
        continue;
      }
      const kept = list.filter((h) => {
        const c = (h as Json | null)?.command;
        const drop = isMnemeCommand(c) &&
          (!events || events.some((e) => e === event && belongsTo(c, e)));
        if (drop) changes.push(`${event}: removed '${c}'`);
        return !drop;
      });
      if (kept.length === list.length) keptGroups.push(g);
      else if (kept.length > 0) keptGroups.push({ ...(g as Json), hooks: kept });
    }
    if (keptGroups.length === groups.length && keptGroups.every((g, i) => g === groups[i])) {
      continue;
    }
    if (keptGroups.length) hooks[event] = keptGroups;
    else delete hooks[event];
  }
  if (changes.length && Object.keys(hooks).length === 0) delete out.hooks;
  return { settings: out, changes };
}

/** Settings as written: two-space indentation and a final newline. */
export function serialize(settings: Json): string {
  return JSON.stringify(settings, null, 2) + "\n";
}

/**
 * A unified diff of two texts by lines (longest common subsequence), with `context` lines
 * around each change; empty when they are equal.
 */
export function unifiedDiff(a: string, b: string, from: string, to: string, context = 3): string {
  if (a === b) return "";
  const x = a === "" ? [] : a.replace(/\n$/, "").split("\n");
  const y = b === "" ? [] : b.replace(/\n$/, "").split("\n");
  const n = x.length, m = y.length;
  // lcs[i][j]: length of the LCS of x[i..] and y[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  type Op = { kind: " " | "-" | "+"; text: string; ai: number; bi: number };
  const ops: Op[] = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) ops.push({ kind: " ", text: x[i], ai: i++, bi: j++ });
    else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push({ kind: "-", text: x[i], ai: i++, bi: j });
    } else ops.push({ kind: "+", text: y[j], ai: i, bi: j++ });
  }
  const lines = [`--- ${from}`, `+++ ${to}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k].kind === " ") {
      k++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` after the last change
    // that is at most 2 * context unchanged lines further.
    const start = Math.max(0, k - context);
    let end = k;
    let quiet = 0;
    for (let e = k; e < ops.length; e++) {
      if (ops[e].kind === " ") {
        if (++quiet > 2 * context) break;
      } else {
        quiet = 0;
        end = e;
      }
    }
    const stop = Math.min(ops.length, end + context + 1);
    const hunk = ops.slice(start, stop);
    const aCount = hunk.filter((o) => o.kind !== "+").length;
    const bCount = hunk.filter((o) => o.kind !== "-").length;
    const aStart = aCount ? hunk[0].ai + 1 : hunk[0].ai;
    const bStart = bCount ? hunk[0].bi + 1 : hunk[0].bi;
    lines.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const o of hunk) lines.push(`${o.kind}${o.text}`);
    k = stop;
  }
  return lines.join("\n") + "\n";
}

/** The text of `path`, or null when it does not exist. */
export async function readSettingsText(path: string): Promise<string | null> {
  return await readTextIfExists(path);
}

/** `mneme-backups/settings.json.20261123T071500Z` (seconds; a suffix when taken). */
async function backupPath(path: string, now: Date): Promise<string> {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const base = join(claudeSettingsFiles(dirname(path)).backups, `${basename(path)}.${stamp}`);
  for (let n = 0;; n++) {
    const p = n === 0 ? base : `${base}-${n}`;
    if (!(await exists(p, { followSymlinks: false }))) return p;
  }
}

/**
 * Write `text` to `path`: first a copy of the current file in `mneme-backups/` next to it
 * (owner-only, returned), then the new text through a temporary file in that folder renamed
 * over it, so that the file is whole at every moment. A new file and the folders are
 * created owner-only; an existing file keeps its mode.
 */
export async function writeSettings(
  path: string,
  text: string,
  now = new Date(),
): Promise<{ backup: string | null }> {
  const dir = claudeSettingsFiles(dirname(path)).backups;
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  let mode = 0o600;
  let backup: string | null = null;
  try {
    const st = await Deno.stat(path);
    mode = (st.mode ?? 0o600) & 0o777;
    backup = await backupPath(path, now);
    await Deno.copyFile(path, backup);
    await Deno.chmod(backup, 0o600); // settings may hold keys (env): owner-only
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const tmp = join(dir, `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  await writeFileAtomic(path, tmp, text, mode);
  // The folder held only the temporary file: no empty folder is left behind.
  if (backup === null) await removeIfEmpty(dir);
  return { backup };
}

/** Remove folder `dir` when it is empty (never anything in it). */
export async function removeIfEmpty(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return false;
    await Deno.remove(dir);
    return true;
  } catch {
    return false;
  }
}

/** The backups in the backup folder of `path` whose text is `text`. */
async function backupsHolding(path: string, text: string): Promise<string[]> {
  const dir = claudeSettingsFiles(dirname(path)).backups;
  const mine = usersPart(text);
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.startsWith(`${basename(path)}.`)) continue;
      const p = join(dir, e.name);
      const b = await Deno.readTextFile(p).catch(() => null);
      // The same text; or a backup taken when Mneme's entries were already there, which holds
      // nothing of the user's that is not kept (the same once Mneme's entries are left out).
      if (b === text || (b !== null && mine !== null && holdsMneme(b) && usersPart(b) === mine)) {
        out.push(p);
      }
    }
  } catch { /* no folder */ }
  return out;
}

/** Whether a settings text has Mneme's hooks. */
function holdsMneme(text: string): boolean {
  try {
    return removeMnemeHooks(JSON.parse(text) as Json).changes.length > 0;
  } catch {
    return false;
  }
}

/** A settings text without Mneme's hooks, serialized; null when it is not a JSON object. */
function usersPart(text: string): string | null {
  try {
    const json = JSON.parse(text);
    if (!json || typeof json !== "object" || Array.isArray(json)) return null;
    return serialize(removeMnemeHooks(json as Json).settings);
  } catch {
    return null;
  }
}

/** What {@link writeRemoval} did. */
export interface Removal {
  /** The file was removed: nothing but Mneme's entries was in it. */
  removedFile: boolean;
  /** The backup taken, when one was needed. */
  backup: string | null;
  /** Backups removed: each held exactly the settings now restored. */
  droppedBackups: string[];
}

/**
 * Write `settings`, what is left of `path` once Mneme's entries are removed, leaving no
 * trace of Mneme: when nothing is left the file is removed (nothing of the user's was in
 * it: no backup); when a backup holds exactly the restored text (the one taken when Mneme's
 * entries were added), the file is restored without a new backup and that backup is
 * removed; else as {@link writeSettings}. An emptied backup folder is removed.
 */
export async function writeRemoval(
  path: string,
  settings: Json,
  now = new Date(),
): Promise<Removal> {
  const dir = claudeSettingsFiles(dirname(path)).backups;
  if (Object.keys(settings).length === 0) {
    await Deno.remove(path);
    // Backups of Mneme's entries alone (a second install's) go with them.
    const mineOnly = await backupsHolding(path, serialize({}));
    for (const b of mineOnly) await Deno.remove(b);
    await removeIfEmpty(dir);
    return { removedFile: true, backup: null, droppedBackups: mineOnly };
  }
  const text = serialize(settings);
  const same = await backupsHolding(path, text);
  if (same.length === 0) {
    return { removedFile: false, ...await writeSettings(path, text, now), droppedBackups: [] };
  }
  const mode = ((await Deno.stat(path)).mode ?? 0o600) & 0o777;
  const tmp = join(dir, `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  await writeFileAtomic(path, tmp, text, mode);
  for (const b of same) await Deno.remove(b);
  await removeIfEmpty(dir);
  return { removedFile: false, backup: null, droppedBackups: same };
}
