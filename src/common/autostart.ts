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
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import { shellQuote } from "./shell.ts";
import { writeFileAtomic } from "./write.ts";

/** What starts the program at login. */
export type AutostartKind = "systemd" | "launchd" | "xdg" | "cron" | "profile" | "manual";

/** The fallbacks without a supervisor, in the order they are tried. */
const FALLBACKS = ["xdg", "cron", "profile"] as const;

/** The program to start at login. */
export interface AutostartSpec {
  /**
   * Its name: the systemd unit `<name>.service`, the launchd label and agent file
   * `<name>.plist`. Letters, digits, `.`, `_` and `-`, starting with a letter or a digit.
   */
  name: string;
  /** One line saying what it is (the unit's Description). */
  description: string;
  /** The command; the first word is an absolute path. */
  argv: string[];
  /** Environment variables it gets (nothing else of the caller's environment is passed). */
  env?: Record<string, string>;
  /** The working directory (absolute); the home directory when absent. */
  workingDirectory?: string;
  /** A file its output is appended to (absolute); the platform's log when absent. */
  logFile?: string;
  /**
   * A command (first word an absolute path) that starts the program in the background unless
   * it runs already, and returns. Given, the fallbacks without a supervisor (XDG autostart,
   * crontab, the profile line) run it instead of `argv`; absent, they are not used.
   */
  startCommand?: string[];
}

/** The outcome of one outside command. */
export interface RunResult {
  /** Exit code; 127 when the command does not exist. */
  code: number;
  /** Its standard output. */
  stdout: string;
  /** Its standard error. */
  stderr: string;
}

/** Runs an outside command (`systemctl`, `launchctl`, `crontab`) and returns its outcome. */
export type Runner = (cmd: string, args: string[], stdin?: string) => Promise<RunResult>;

/** Where and how autostart entries are written. */
export interface AutostartHost {
  /** The operating system (`Deno.build.os`). */
  os: string;
  /** The home directory. */
  home: string;
  /** `XDG_CONFIG_HOME`, when set (systemd reads user units under it). */
  xdgConfigHome?: string;
  /** The user id (launchd's `gui/<uid>` domain). */
  uid?: number;
  /** Runs `systemctl`, `launchctl` and `crontab`. */
  run: Runner;
  /** A desktop session (`XDG_CURRENT_DESKTOP` or `DESKTOP_SESSION` set). */
  desktop?: boolean;
  /** The login shell (`$SHELL`): its profile gets the profile line. */
  shell?: string;
}

/** Programs the module may run: grant these to a program that uses it. */
/**
 * The service manager this system has: `launchctl` on macOS, `systemctl` elsewhere (granting
 * the other one would only make Deno print that it cannot find it).
 */
export const AUTOSTART_RUN: readonly string[] = Deno.build.os === "darwin"
  ? ["launchctl"]
  : ["systemctl"];

/** A {@link Runner} that runs the real command, its output captured; a missing one gives 127. */
export const runCommand: Runner = async (cmd, args, stdin) => {
  try {
    const child = new Deno.Command(cmd, {
      args,
      stdin: stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (stdin !== undefined) {
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(stdin));
      await w.close();
    }
    const out = await child.output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return { code: 127, stdout: "", stderr: `${cmd}: not found` };
    }
    return { code: 126, stdout: "", stderr: err instanceof Error ? err.message : String(err) };
  }
};

/** The host this process runs on, from `env` (HOME, XDG_CONFIG_HOME), with real commands. */
export function currentHost(
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): AutostartHost {
  const home = env("HOME");
  if (!home) throw new Error("HOME is not set: cannot place the start-at-login entry");
  let uid: number | undefined;
  try {
    uid = Deno.uid() ?? undefined;
  } catch { /* no sys permission: launchd falls back to writing the file only */ }
  return {
    os: Deno.build.os,
    home,
    xdgConfigHome: env("XDG_CONFIG_HOME") || undefined,
    uid,
    run: runCommand,
    desktop: Boolean(env("XDG_CURRENT_DESKTOP") || env("DESKTOP_SESSION")),
    shell: env("SHELL") || undefined,
  };
}

/** The variables {@link currentHost} reads besides HOME and XDG_CONFIG_HOME. */
export const AUTOSTART_ENV: readonly string[] = ["XDG_CURRENT_DESKTOP", "DESKTOP_SESSION", "SHELL"];

/**
 * The folders entries are written to on `host` (systemd user units, launchd agents): grant
 * these for reading and writing to a program that uses the module.
 */
export function autostartDirs(host: Pick<AutostartHost, "home" | "xdgConfigHome">): string[] {
  return [
    join(host.xdgConfigHome || join(host.home, ".config"), "systemd", "user"),
    join(host.home, "Library", "LaunchAgents"),
  ];
}

/** The XDG autostart folder of `host` (desktop sessions start its entries at login). */
export function xdgAutostartDir(host: Pick<AutostartHost, "home" | "xdgConfigHome">): string {
  return join(host.xdgConfigHome || join(host.home, ".config"), "autostart");
}

/** The login profiles a profile line may be in (what `sh`, `bash` and `zsh` read at login). */
export function profileFiles(host: Pick<AutostartHost, "home">): string[] {
  return [".profile", ".bash_profile", ".bash_login", ".zprofile"].map((f) => join(host.home, f));
}

/**
 * The profile a login shell of `host` reads: `~/.zprofile` for zsh; for bash the first of
 * `~/.bash_profile` and `~/.bash_login` that exists, else `~/.profile`; else `~/.profile`.
 */
export async function loginProfile(host: Pick<AutostartHost, "home" | "shell">): Promise<string> {
  const [profile, bashProfile, bashLogin, zprofile] = profileFiles(host);
  const sh = (host.shell ?? "").split("/").pop();
  if (sh === "zsh") return zprofile;
  if (sh === "bash") {
    for (const f of [bashProfile, bashLogin]) if ((await readText(f)) !== null) return f;
  }
  return profile;
}

/** The file of entry `name` for `kind` on `host`; none for crontab, the profile and manual. */
export function autostartFile(
  kind: AutostartKind,
  name: string,
  host: Pick<AutostartHost, "home" | "xdgConfigHome">,
): string | undefined {
  const [systemd, launchd] = autostartDirs(host);
  if (kind === "systemd") return join(systemd, `${name}.service`);
  if (kind === "launchd") return join(launchd, `${name}.plist`);
  if (kind === "xdg") return join(xdgAutostartDir(host), `${name}.desktop`);
  return undefined;
}

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
  if (host.os === "linux") {
    const r = await host.run("systemctl", ["--user", "show-environment"]);
    if (r.code === 0) return "systemd";
  }
  if (!fallbacks || host.os === "windows") return "manual";
  if (host.desktop) return "xdg";
  // `crontab -l` exits 1 when the user has no crontab yet: the command is there.
  const cron = await host.run("crontab", ["-l"]);
  if (cron.code === 0 || cron.code === 1) return "cron";
  return "profile";
}

/** Throws an error naming the field when `spec` cannot be written safely. */
export function validateSpec(spec: AutostartSpec): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(spec.name)) {
    throw new Error(
      `autostart name ${JSON.stringify(spec.name)}: use letters, digits, '.', '_' and '-'`,
    );
  }
  if (spec.argv.length === 0 || !isAbsolute(spec.argv[0])) {
    throw new Error(
      `autostart argv: the first word must be an absolute path (got ${
        JSON.stringify(spec.argv[0] ?? "")
      })`,
    );
  }
  if (spec.startCommand && (spec.startCommand.length === 0 || !isAbsolute(spec.startCommand[0]))) {
    throw new Error("autostart startCommand: the first word must be an absolute path");
  }
  for (
    const [field, v] of [["workingDirectory", spec.workingDirectory], ["logFile", spec.logFile]]
  ) {
    if (v !== undefined && !isAbsolute(v)) {
      throw new Error(`autostart ${field}: must be an absolute path (got ${JSON.stringify(v)})`);
    }
  }
  const texts: [string, string][] = [
    ["description", spec.description],
    ...spec.argv.map((a, i): [string, string] => [`argv[${i}]`, a]),
    ...(spec.startCommand ?? []).map((a, i): [string, string] => [`startCommand[${i}]`, a]),
    ...Object.entries(spec.env ?? {}).map(([k, v]): [string, string] => [`env ${k}`, v]),
    ["workingDirectory", spec.workingDirectory ?? ""],
    ["logFile", spec.logFile ?? ""],
  ];
  for (const [field, v] of texts) {
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x1f]/.test(v)) throw new Error(`autostart ${field}: contains a control character`);
  }
  for (const k of Object.keys(spec.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      throw new Error(`autostart env: ${JSON.stringify(k)} is not a variable name`);
    }
  }
}

/** A word for a systemd unit line: double-quoted, `\`, `"`, `%` (and `$` for commands) escaped. */
function systemdWord(s: string, command: boolean): string {
  let t = s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/%/g, "%%");
  if (command) t = t.replace(/\$/g, "$$$$");
  return `"${t}"`;
}

/** The systemd user unit for `spec`. */
export function systemdUnit(spec: AutostartSpec): string {
  validateSpec(spec);
  const lines = [
    "[Unit]",
    `Description=${spec.description.replace(/%/g, "%%")}`,
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${spec.argv.map((a) => systemdWord(a, true)).join(" ")}`,
  ];
  for (const [k, v] of Object.entries(spec.env ?? {})) {
    lines.push(`Environment=${systemdWord(`${k}=${v}`, false)}`);
  }
  if (spec.workingDirectory) {
    lines.push(`WorkingDirectory=${systemdWord(spec.workingDirectory, false)}`);
  }
  if (spec.logFile) {
    lines.push(`StandardOutput=append:${spec.logFile.replace(/%/g, "%%")}`);
    lines.push(`StandardError=append:${spec.logFile.replace(/%/g, "%%")}`);
  }
  lines.push("Restart=on-failure", "RestartSec=2", "", "[Install]", "WantedBy=default.target", "");
  return lines.join("\n");
}

function xml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /"/g,
    "&quot;",
  );
}

/** The launchd agent (property list) for `spec`. */
export function launchdPlist(spec: AutostartSpec, home: string): string {
  validateSpec(spec);
  const s = (v: string) => `<string>${xml(v)}</string>`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" ' +
    '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    `  <key>Label</key>${s(spec.name)}`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...spec.argv.map((a) => `    ${s(a)}`),
    "  </array>",
  ];
  const env = Object.entries(spec.env ?? {});
  if (env.length) {
    lines.push("  <key>EnvironmentVariables</key>", "  <dict>");
    for (const [k, v] of env) lines.push(`    <key>${xml(k)}</key>${s(v)}`);
    lines.push("  </dict>");
  }
  lines.push(`  <key>WorkingDirectory</key>${s(spec.workingDirectory ?? home)}`);
  if (spec.logFile) {
    lines.push(`  <key>StandardOutPath</key>${s(spec.logFile)}`);
    lines.push(`  <key>StandardErrorPath</key>${s(spec.logFile)}`);
  }
  lines.push(
    "  <key>RunAtLoad</key><true/>",
    "  <key>KeepAlive</key>",
    "  <dict><key>SuccessfulExit</key><false/></dict>",
    "</dict>",
    "</plist>",
    "",
  );
  return lines.join("\n");
}

/** Variables whose values are never printed. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** The command line of `spec` for a POSIX shell; secret-looking values shown as `$NAME`. */
export function shellCommand(spec: AutostartSpec): string {
  const env = Object.entries(spec.env ?? {}).map(([k, v]) =>
    SECRET_NAME.test(k) ? `${k}="$${k}"` : `${k}=${shellQuote(v)}`
  );
  const words = [...(env.length ? ["env", ...env] : []), ...spec.argv.map(shellQuote)];
  let cmd = words.join(" ");
  if (spec.workingDirectory) cmd = `cd ${shellQuote(spec.workingDirectory)} && ${cmd}`;
  return cmd;
}

/** The comment that marks the crontab and profile lines of entry `name`. */
function marker(name: string): string {
  return `# ${name}: start at login (autostart)`;
}

/**
 * The shell line the fallbacks run at login: when the start command is still there, it runs
 * in the background (detached from the shell, its output appended to the log), and starts the
 * program unless it runs already.
 */
export function loginLine(spec: AutostartSpec): string {
  const start = spec.startCommand!;
  const cmd = shellCommand({ ...spec, argv: start, workingDirectory: undefined });
  const log = spec.logFile ? ` >>${shellQuote(spec.logFile)} 2>&1` : " >/dev/null 2>&1";
  const cd = spec.workingDirectory ? `cd ${shellQuote(spec.workingDirectory)} && ` : "";
  return `[ -x ${shellQuote(start[0])} ] && (${cd}${cmd}${log} </dev/null &)`;
}

/** The XDG autostart entry (`.desktop` file) for `spec`. */
export function desktopEntry(spec: AutostartSpec): string {
  // An argument in double quotes escapes ", `, $ and \; the value's own escapes double \.
  const arg = `"${loginLine(spec).replace(/["`$\\]/g, "\\$&")}"`;
  const exec = `/bin/sh -c ${arg}`.replace(/\\/g, "\\\\").replace(/%/g, "%%");
  return [
    "[Desktop Entry]",
    "Type=Application",
    `Name=${spec.description}`,
    `Exec=${exec}`,
    "NoDisplay=true",
    "X-GNOME-Autostart-enabled=true",
    "",
  ].join("\n");
}

/** `text` without the lines marked for entry `name`. */
function withoutMarked(text: string, name: string): string {
  return text.split("\n").filter((l) => !l.endsWith(marker(name))).join("\n");
}

/** The crontab's text (empty when the user has none). */
async function readCrontab(host: AutostartHost): Promise<string> {
  const r = await host.run("crontab", ["-l"]);
  return r.code === 0 ? r.stdout : "";
}

/** The printed fallback: how to start `spec` at login by hand where neither mechanism exists. */
export function manualInstructions(spec: AutostartSpec, host: Pick<AutostartHost, "os">): string {
  validateSpec(spec);
  const cmd = shellCommand({ ...spec, workingDirectory: undefined });
  const log = spec.logFile ? ` >>${shellQuote(spec.logFile)} 2>&1` : " >/dev/null 2>&1";
  const cd = spec.workingDirectory ? `cd ${shellQuote(spec.workingDirectory)} && ` : "";
  const why = host.os === "linux"
    ? "no systemd user manager answers here (systemctl --user)"
    : `${host.os} has neither systemd nor launchd`;
  return [
    `${spec.description} will not start at login by itself: ${why}.`,
    "To start it at boot, add this line to your crontab (crontab -e):",
    "",
    // cron reads a bare % as a line end.
    `  @reboot ${cd}${cmd}${log}`.replace(/%/g, "\\%"),
    "",
    "or run this after each login:",
    "",
    `  (${cd}nohup ${cmd}${log} &)`,
    "",
  ].join("\n");
}

/** Outcome of {@link enableAutostart} and {@link disableAutostart}. */
export interface AutostartResult {
  /** The mechanism used. */
  kind: AutostartKind;
  /** The unit or agent file (none for the fallback). */
  file?: string;
  /** Whether anything was (or, in a dry run, would be) written, removed or started. */
  changed: boolean;
  /** What was done (or would be done), one line each, for the user. */
  steps: string[];
  /** The printed fallback (kind "manual" when enabling). */
  manual?: string;
}

/** Options of {@link enableAutostart} and {@link disableAutostart}. */
export interface AutostartOptions {
  /** The host (default: this one, {@link currentHost}). */
  host?: AutostartHost;
  /** Only say what would be done: nothing written, nothing run but the detection. */
  dryRun?: boolean;
  /**
   * Enable: also start it now (systemd `enable --now`, restarted when its unit changed;
   * launchd loads the agent, which starts it). Disable: also stop it now. Default false.
   */
  now?: boolean;
  /** Use this mechanism instead of detecting one. */
  kind?: AutostartKind;
  /** Disable: also remove the fallbacks' entries (XDG autostart, crontab, profile line). */
  fallbacks?: boolean;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

async function must(host: AutostartHost, cmd: string, args: string[]): Promise<void> {
  const r = await host.run(cmd, args);
  if (r.code !== 0) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed (exit ${r.code})${
        r.stderr.trim() ? `: ${r.stderr.trim()}` : ""
      }`,
    );
  }
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
    return await enableFallback(spec, kind as typeof FALLBACKS[number], host, opts);
  }
  const file = autostartFile(kind, spec.name, host)!;
  const content = kind === "systemd" ? systemdUnit(spec) : launchdPlist(spec, host.home);
  const changed = (await readText(file)) !== content;
  const steps: string[] = [];
  const unit = `${spec.name}.service`;
  if (changed) steps.push(`write ${file}`);
  if (kind === "systemd") {
    const cmds: string[][] = [];
    if (changed) cmds.push(["--user", "daemon-reload"]);
    cmds.push(["--user", "enable", unit]);
    if (opts.now) cmds.push(["--user", changed ? "restart" : "start", unit]);
    for (const c of cmds) steps.push(`systemctl ${c.join(" ")}`);
    if (!opts.dryRun) {
      if (changed) await writeOwnerOnly(file, content);
      for (const c of cmds) await must(host, "systemctl", c);
    }
    return { kind, file, changed: changed || Boolean(opts.now), steps };
  }
  // launchd: the agent loads at the next login; with `now` it is (re)loaded at once.
  const domain = host.uid !== undefined ? `gui/${host.uid}` : undefined;
  const load = Boolean(opts.now) && domain !== undefined;
  if (load) {
    if (changed) steps.push(`launchctl bootout ${domain}/${spec.name}`);
    steps.push(`launchctl bootstrap ${domain} ${file}`);
  }
  if (!opts.dryRun) {
    if (changed) await writeOwnerOnly(file, content);
    if (load) {
      // Reload a changed agent; an agent not loaded yet makes bootout fail, which is fine.
      if (changed) await host.run("launchctl", ["bootout", `${domain}/${spec.name}`]);
      const r = await host.run("launchctl", ["bootstrap", domain, file]);
      // Already loaded (launchctl says so with exit 5 or 37): it runs.
      if (r.code !== 0 && !/already|in progress/i.test(r.stderr) && ![5, 37].includes(r.code)) {
        throw new Error(
          `launchctl bootstrap ${domain} ${file} failed (exit ${r.code}): ${r.stderr.trim()}`,
        );
      }
    }
  }
  return { kind, file, changed: changed || load, steps };
}

/** Enable one of the fallbacks without a supervisor; with `now`, also run the line now. */
async function enableFallback(
  spec: AutostartSpec,
  kind: typeof FALLBACKS[number],
  host: AutostartHost,
  opts: AutostartOptions,
): Promise<AutostartResult> {
  if (!spec.startCommand) throw new Error(`autostart ${kind}: needs a startCommand`);
  const line = `${loginLine(spec)} ${marker(spec.name)}`;
  const steps: string[] = [];
  let file: string | undefined;
  let changed: boolean;
  if (kind === "xdg") {
    file = autostartFile("xdg", spec.name, host)!;
    const content = desktopEntry(spec);
    changed = (await readText(file)) !== content;
    if (changed) steps.push(`write ${file}`);
    if (changed && !opts.dryRun) await writeOwnerOnly(file, content);
  } else if (kind === "cron") {
    const before = await readCrontab(host);
    const kept = withoutMarked(before, spec.name).replace(/\n*$/, "");
    // cron reads a bare % as a line end.
    const after = `${kept ? `${kept}\n` : ""}@reboot ${line.replace(/%/g, "\\%")}\n`;
    changed = after !== before;
    if (changed) steps.push("crontab - (an @reboot line)");
    if (changed && !opts.dryRun) {
      const r = await host.run("crontab", ["-"], after);
      if (r.code !== 0) throw new Error(`crontab - failed (exit ${r.code}): ${r.stderr.trim()}`);
    }
  } else {
    file = await loginProfile(host);
    const before = (await readText(file)) ?? "";
    const kept = withoutMarked(before, spec.name).replace(/\n*$/, "");
    const after = `${kept ? `${kept}\n` : ""}${line}\n`;
    changed = after !== before;
    if (changed) steps.push(`add a line to ${file}`);
    if (changed && !opts.dryRun) {
      const mode = (await Deno.stat(file).catch(() => null))?.mode ?? 0o600;
      await writeProfile(file, after, mode);
    }
  }
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
): Promise<{ kind: AutostartKind; file?: string; step: string }[]> {
  const done: { kind: AutostartKind; file?: string; step: string }[] = [];
  const xdg = autostartFile("xdg", name, host)!;
  if ((await readText(xdg)) !== null) {
    if (!dryRun) await Deno.remove(xdg);
    done.push({ kind: "xdg", file: xdg, step: `remove ${xdg}` });
  }
  for (const f of profileFiles(host)) {
    const text = await readText(f);
    if (text === null || !text.split("\n").some((l) => l.endsWith(marker(name)))) continue;
    if (!dryRun) {
      const mode = (await Deno.stat(f)).mode ?? 0o600;
      const rest = withoutMarked(text, name);
      await writeProfile(f, rest, mode);
    }
    done.push({ kind: "profile", file: f, step: `remove the line from ${f}` });
  }
  if (host.os !== "windows") {
    const cron = await readCrontab(host);
    if (cron.split("\n").some((l) => l.endsWith(marker(name)))) {
      if (!dryRun) {
        const r = await host.run("crontab", ["-"], withoutMarked(cron, name));
        if (r.code !== 0) throw new Error(`crontab - failed (exit ${r.code}): ${r.stderr.trim()}`);
      }
      done.push({ kind: "cron", step: "remove the @reboot line from the crontab" });
    }
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
    const file = autostartFile(k, name, host)!;
    if (k === "systemd") {
      const usable = (await detectAutostart({ ...host, os: "linux" })) === "systemd";
      const cmds = usable
        ? [["--user", "disable", ...(opts.now ? ["--now"] : []), `${name}.service`]]
        : [];
      for (const c of cmds) steps.push(`systemctl ${c.join(" ")}`);
      steps.push(`remove ${file}`);
      if (usable) steps.push("systemctl --user daemon-reload");
      if (!opts.dryRun) {
        for (const c of cmds) await must(host, "systemctl", c);
        await Deno.remove(file);
        if (usable) await must(host, "systemctl", ["--user", "daemon-reload"]);
      }
    } else {
      const domain = host.uid !== undefined && host.os === "darwin" ? `gui/${host.uid}` : undefined;
      if (domain) steps.push(`launchctl bootout ${domain}/${name}`);
      steps.push(`remove ${file}`);
      if (!opts.dryRun) {
        // Not loaded is fine: the file is what makes it start at login.
        if (domain) await host.run("launchctl", ["bootout", `${domain}/${name}`]);
        await Deno.remove(file);
      }
    }
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
  for (const file of profileFiles(host)) {
    const text = await readText(file);
    if (text?.split("\n").some((l) => l.endsWith(marker(name)))) return { kind: "profile", file };
  }
  return null;
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

/**
 * Rewrite a login profile in place, keeping its mode: memcli may write the profile, not a
 * temporary file beside it in the home folder.
 */
async function writeProfile(file: string, text: string, mode: number): Promise<void> {
  await Deno.writeTextFile(file, text, { mode: mode & 0o777 });
}

async function writeOwnerOnly(file: string, content: string): Promise<void> {
  await Deno.mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${file}.tmp-${crypto.randomUUID().slice(0, 8)}`, content, 0o600);
}
