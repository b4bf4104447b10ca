/**
 * Start a long-running program at login, the way the platform does it: a systemd user unit on
 * Linux (when `systemctl --user` reaches a user manager), a launchd agent on macOS. Where
 * neither exists, and the caller gives a command that starts the program in the background
 * unless it runs ({@link AutostartSpec.startCommand}), the next thing that exists: an XDG
 * autostart entry in a desktop session, else a crontab `@reboot` line when `crontab` is
 * there, else a line in the login shell's profile; otherwise a printed fallback.
 *
 * Generic: it knows nothing of the program it starts. The caller gives a name, the argv (the
 * first word an absolute path: neither systemd nor launchd searches the user's PATH), the
 * environment and, optionally, a working directory and a log file. Every outside command
 * goes through an injectable {@link Runner}, so tests never touch the real user manager.
 *
 * This file is the chooser: which mechanism a host offers, and enabling, disabling, finding
 * and restarting an entry through it. Each mechanism is a module of its own in autostart/
 * (systemd.ts, launchd.ts, xdg.ts, cron.ts, profile.ts), beside the types and files of the
 * host (host.ts) and the spec as shell text (spec.ts); callers import this file only.
 * @module
 */
import {
  autostartFile,
  type AutostartHost,
  type AutostartKind,
  type AutostartOptions,
  type AutostartResult,
  type AutostartSpec,
  currentHost,
  type FallbackKind,
  type FallbackRemoval,
  FALLBACKS,
  must,
  readText,
} from "./autostart/host.ts";
import {
  envWord,
  hasMarked,
  loginLine,
  manualInstructions,
  marker,
  validateSpec,
} from "./autostart/spec.ts";
import {
  disableSystemd,
  enableSystemd,
  systemdAnswers,
  systemdEnvLine,
} from "./autostart/systemd.ts";
import { disableLaunchd, enableLaunchd, launchdEnvEntry } from "./autostart/launchd.ts";
import { desktopExecText, enableXdg, removeXdg } from "./autostart/xdg.ts";
import { enableCron, removeCron } from "./autostart/cron.ts";
import { enableProfile, profileWithLine, removeProfileLines } from "./autostart/profile.ts";

export {
  AUTOSTART_ENV,
  AUTOSTART_RUN,
  autostartDirs,
  autostartFile,
  type AutostartHost,
  type AutostartKind,
  type AutostartOptions,
  type AutostartResult,
  type AutostartSpec,
  currentHost,
  profileFiles,
  runCommand,
  type Runner,
  type RunResult,
  xdgAutostartDir,
} from "./autostart/host.ts";
export { loginLine, manualInstructions, shellCommand, validateSpec } from "./autostart/spec.ts";
export { systemdUnit } from "./autostart/systemd.ts";
export { launchdPlist } from "./autostart/launchd.ts";
export { desktopEntry } from "./autostart/xdg.ts";
export { loginProfile } from "./autostart/profile.ts";

/**
 * Which mechanism `host` offers: launchd on macOS; systemd on Linux when
 * `systemctl --user show-environment` succeeds (a user manager answers). Else, with
 * `fallbacks`: an XDG autostart entry in a desktop session, crontab when `crontab -l` runs,
 * else the profile line (not on Windows); else the printed fallback.
 */
export async function detectAutostart(
  host: AutostartHost,
  fallbacks = false,
): Promise<AutostartKind> {
  if (host.os === "darwin") return "launchd";
  if (host.os === "linux" && await systemdAnswers(host)) return "systemd";
  if (!fallbacks || host.os === "windows") return "manual";
  if (host.desktop) return "xdg";
  // `crontab -l` exits 1 when the user has no crontab yet: the command is there.
  const cron = await host.run("crontab", ["-l"]);
  if (cron.code === 0 || cron.code === 1) return "cron";
  return "profile";
}

/**
 * Make `spec` start at login. Idempotent: an entry already as wanted is left alone (with
 * `now`, started if it is not running). The file is written owner-only (it may hold keys).
 */
export async function enableAutostart(
  spec: AutostartSpec,
  opts: AutostartOptions = {},
): Promise<AutostartResult> {
  validateSpec(spec);
  const host = opts.host ?? currentHost();
  const kind = opts.kind ?? await detectAutostart(host, spec.startCommand !== undefined);
  if (kind === "manual") {
    return { kind, changed: false, steps: [], manual: manualInstructions(spec, host) };
  }
  if ((FALLBACKS as readonly string[]).includes(kind)) {
    return await enableFallback(spec, kind as FallbackKind, host, opts);
  }
  if (kind === "systemd") return await enableSystemd(spec, host, opts);
  // launchd: the agent loads at the next login; with `now` it is (re)loaded at once.
  return await enableLaunchd(spec, host, opts);
}

/** Enable one of the fallbacks without a supervisor; with `now`, also run the line now. */
async function enableFallback(
  spec: AutostartSpec,
  kind: FallbackKind,
  host: AutostartHost,
  opts: AutostartOptions,
): Promise<AutostartResult> {
  if (!spec.startCommand) throw new Error(`autostart ${kind}: needs a startCommand`);
  const line = `${loginLine(spec)} ${marker(spec.name)}`;
  const dryRun = Boolean(opts.dryRun);
  const edit = kind === "xdg"
    ? await enableXdg(spec, host, dryRun)
    : kind === "cron"
    ? await enableCron(spec.name, line, host, dryRun)
    : await enableProfile(spec.name, line, host, dryRun);
  const { file, changed, steps } = edit;
  if (opts.now) {
    steps.push("start it now (the same line)");
    if (!opts.dryRun) await host.run("sh", ["-c", loginLine(spec)]);
  }
  return { kind, ...(file ? { file } : {}), changed: changed || Boolean(opts.now), steps };
}

/** Remove the fallbacks' entries of `name` (all of them); the steps taken. */
async function disableFallbacks(
  name: string,
  host: AutostartHost,
  dryRun: boolean,
): Promise<FallbackRemoval[]> {
  const done: FallbackRemoval[] = [];
  const xdg = await removeXdg(name, host, dryRun);
  if (xdg) done.push(xdg);
  done.push(...await removeProfileLines(name, host, dryRun));
  if (host.os !== "windows") {
    const cron = await removeCron(name, host, dryRun);
    if (cron) done.push(cron);
  }
  return done;
}

/**
 * Remove entry `name`: stop it when `now`, disable it, remove its file. Idempotent: nothing
 * there is no change. With kind "manual" nothing is there to remove.
 */
export async function disableAutostart(
  name: string,
  opts: AutostartOptions = {},
): Promise<AutostartResult> {
  validateSpec({ name, description: "", argv: ["/"] });
  const host = opts.host ?? currentHost();
  // Whatever mechanism wrote it, its file says where it is: look for both.
  const found: AutostartKind[] = [];
  for (const k of ["systemd", "launchd"] as const) {
    if (opts.kind && opts.kind !== k) continue;
    if ((await readText(autostartFile(k, name, host)!)) !== null) found.push(k);
  }
  const fallen = opts.fallbacks ? await disableFallbacks(name, host, Boolean(opts.dryRun)) : [];
  if (found.length === 0) {
    if (fallen.length === 0) return { kind: opts.kind ?? "manual", changed: false, steps: [] };
    const { kind, file } = fallen[0];
    return { kind, ...(file ? { file } : {}), changed: true, steps: fallen.map((f) => f.step) };
  }
  const steps: string[] = fallen.map((f) => f.step);
  const kind = found[0];
  for (const k of found) {
    if (k === "systemd") await disableSystemd(name, host, opts, steps);
    else await disableLaunchd(name, host, opts, steps);
  }
  return { kind, file: autostartFile(kind, name, host), changed: true, steps };
}

/**
 * Whether entry `name` is in place, and where (with `fallbacks`, the XDG autostart entry and
 * the profile line too; the crontab is not read).
 */
export async function autostartStatus(
  name: string,
  host: AutostartHost = currentHost(),
  fallbacks = false,
): Promise<{ kind: AutostartKind; file: string } | null> {
  for (const k of ["systemd", "launchd", ...(fallbacks ? ["xdg" as const] : [])] as const) {
    const file = autostartFile(k, name, host)!;
    if ((await readText(file)) !== null) return { kind: k, file };
  }
  if (!fallbacks) return null;
  const file = await profileWithLine(name, host);
  return file === null ? null : { kind: "profile", file };
}

/**
 * The text of entry `name` as it is in place: the whole file of a systemd unit, a launchd agent
 * or an XDG entry; the marked line of a profile or (with `fallbacks`) of the crontab
 * (`crontab -l`, read only when no other entry is found). Null when none is in place.
 */
export async function autostartEntry(
  name: string,
  host: AutostartHost = currentHost(),
  fallbacks = false,
): Promise<{ kind: AutostartKind; file?: string; text: string } | null> {
  const marked = (text: string) => text.split("\n").filter((l) => l.endsWith(marker(name)));
  const st = await autostartStatus(name, host, fallbacks);
  if (st) {
    const text = await readText(st.file);
    if (text !== null) {
      return { ...st, text: st.kind === "profile" ? marked(text).join("\n") : text };
    }
  }
  if (!fallbacks || host.os === "windows") return null;
  const cron = await host.run("crontab", ["-l"]);
  if (cron.code !== 0 || !hasMarked(cron.stdout, name)) return null;
  return { kind: "cron", text: marked(cron.stdout).join("\n") };
}

/**
 * Whether an entry's text (as {@link autostartEntry} gives it) sets variable `name` to
 * `value`, read as its mechanism writes it: null when it does not set `name` at all, false
 * when it sets it to another value.
 */
export function entrySetsEnv(
  entry: { kind: AutostartKind; text: string },
  name: string,
  value: string,
): boolean | null {
  const { kind, text } = entry;
  if (kind === "systemd") {
    const lines = text.split("\n");
    if (!lines.some((l) => l.startsWith(`Environment="${name}=`))) return null;
    return lines.includes(systemdEnvLine(name, value));
  }
  if (kind === "launchd") {
    if (!text.includes(`<key>${name}</key>`)) return null;
    return text.includes(launchdEnvEntry(name, value));
  }
  if (!new RegExp(`(^|\\s)${name}=`).test(text)) return null;
  const word = envWord(name, value);
  // The crontab reads a bare % as a line end; the desktop entry escapes its Exec line.
  const written = kind === "cron"
    ? word.replace(/%/g, "\\%")
    : kind === "xdg"
    ? desktopExecText(word)
    : word;
  return text.includes(` ${written} `);
}

/**
 * Restart the program of entry `name` now, through the mechanism that supervises it (systemd
 * `restart`, launchd `kickstart -k`). False when no such entry is in place.
 */
export async function restartAutostart(
  name: string,
  host: AutostartHost = currentHost(),
): Promise<boolean> {
  const st = await autostartStatus(name, host);
  if (st?.kind === "systemd") {
    await must(host, "systemctl", ["--user", "restart", `${name}.service`]);
    return true;
  }
  if (st?.kind === "launchd" && host.uid !== undefined) {
    await must(host, "launchctl", ["kickstart", "-k", `gui/${host.uid}/${name}`]);
    return true;
  }
  return false;
}
