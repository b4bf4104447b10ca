/**
 * The program to start, checked and written as shell text: the check of an
 * {@link AutostartSpec} before anything is written (an error naming the field), its command
 * line for a POSIX shell (secret-looking values never printed), the line the fallbacks run at
 * login, the marker that finds those lines again in a crontab or a profile, and the printed
 * instructions where nothing can start it by itself.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { shellQuote } from "../shell.ts";
import type { AutostartHost, AutostartSpec } from "./host.ts";

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

/** Variables whose values are never printed. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** One variable of the command line (`env NAME=value …`); a secret-looking one as `$NAME`. */
export function envWord(name: string, value: string): string {
  return SECRET_NAME.test(name) ? `${name}="$${name}"` : `${name}=${shellQuote(value)}`;
}

/** The command line of `spec` for a POSIX shell; secret-looking values shown as `$NAME`. */
export function shellCommand(spec: AutostartSpec): string {
  const env = Object.entries(spec.env ?? {}).map(([k, v]) => envWord(k, v));
  const words = [...(env.length ? ["env", ...env] : []), ...spec.argv.map(shellQuote)];
  let cmd = words.join(" ");
  if (spec.workingDirectory) cmd = `cd ${shellQuote(spec.workingDirectory)} && ${cmd}`;
  return cmd;
}

/** The comment that marks the crontab and profile lines of entry `name`. */
export function marker(name: string): string {
  return `# ${name}: start at login (autostart)`;
}

/** Whether `text` has a line marked for entry `name`. */
export function hasMarked(text: string, name: string): boolean {
  return text.split("\n").some((l) => l.endsWith(marker(name)));
}

/** `text` without the lines marked for entry `name`. */
export function withoutMarked(text: string, name: string): string {
  return text.split("\n").filter((l) => !l.endsWith(marker(name))).join("\n");
}

/**
 * `text` with `line` as the one line marked for entry `name`, the user's lines kept as they
 * are: a marked line already equal to `line` stays where it is, a different one is replaced
 * in place (further marked lines removed), and without one `line` goes at the end.
 */
export function withMarked(text: string, name: string, line: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.endsWith(marker(name)));
  if (at < 0) {
    const kept = text.replace(/\n*$/, "");
    return `${kept ? `${kept}\n` : ""}${line}\n`;
  }
  return lines.flatMap((l, i) => i === at ? [line] : l.endsWith(marker(name)) ? [] : [l])
    .join("\n");
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
