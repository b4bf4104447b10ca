/**
 * The ground every start-at-login mechanism stands on: the types of the module (the program
 * to start, the host it starts on, the outcome), the outside commands run through an
 * injectable {@link Runner} (so tests never touch the real user manager), the folders and
 * files where entries live, and the owner-only writes. Generic: it knows nothing of the
 * program it starts.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { readTextIfExists } from "../fs.ts";
import { writeFileAtomic } from "../write.ts";

/** What starts the program at login. */
export type AutostartKind = "systemd" | "launchd" | "xdg" | "cron" | "profile" | "manual";

/** The fallbacks without a supervisor, in the order they are tried. */
export const FALLBACKS = ["xdg", "cron", "profile"] as const;

/** One of the {@link FALLBACKS}. */
export type FallbackKind = typeof FALLBACKS[number];

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

/** Outcome of `enableAutostart` and `disableAutostart`. */
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

/** Options of `enableAutostart` and `disableAutostart`. */
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

/** A file's text, or null when it is not there. */
export const readText: (path: string) => Promise<string | null> = readTextIfExists;

/**
 * The file of entry `name` for `kind` (one with a file) on `host`, and whether it differs from
 * `content` (absent counts as different).
 */
export async function entryFile(
  kind: "systemd" | "launchd" | "xdg",
  name: string,
  host: Pick<AutostartHost, "home" | "xdgConfigHome">,
  content: string,
): Promise<{ file: string; changed: boolean }> {
  const file = autostartFile(kind, name, host)!;
  return { file, changed: (await readText(file)) !== content };
}

/** Runs an outside command that must succeed (an error naming it and its exit otherwise). */
export async function must(host: AutostartHost, cmd: string, args: string[]): Promise<void> {
  const r = await host.run(cmd, args);
  if (r.code !== 0) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed (exit ${r.code})${
        r.stderr.trim() ? `: ${r.stderr.trim()}` : ""
      }`,
    );
  }
}

/** Writes an entry owner-only (it may hold keys), its folder created owner-only. */
export async function writeOwnerOnly(file: string, content: string): Promise<void> {
  await Deno.mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${file}.tmp-${crypto.randomUUID().slice(0, 8)}`, content, 0o600);
}

/** What enabling one fallback did (or, in a dry run, would do). */
export interface FallbackEdit {
  /** The entry's file (none for the crontab). */
  file?: string;
  changed: boolean;
  steps: string[];
}

/** One fallback entry removed (or, in a dry run, that would be). */
export interface FallbackRemoval {
  kind: AutostartKind;
  file?: string;
  step: string;
}
