/**
 * The systemd user unit: where a user manager answers (`systemctl --user`), it supervises the
 * program, starts it at login and restarts it after a failure. The unit is written owner-only
 * under the user's systemd folder, its words quoted as systemd reads them.
 *
 * @module
 */
import {
  autostartFile,
  type AutostartHost,
  type AutostartOptions,
  type AutostartResult,
  type AutostartSpec,
  entryFile,
  must,
  writeOwnerOnly,
} from "./host.ts";
import { validateSpec } from "./spec.ts";

/** Whether a systemd user manager answers on `host` (`systemctl --user show-environment`). */
export async function systemdAnswers(host: AutostartHost): Promise<boolean> {
  const r = await host.run("systemctl", ["--user", "show-environment"]);
  return r.code === 0;
}

/** A word for a systemd unit line: double-quoted, `\`, `"`, `%` (and `$` for commands) escaped. */
function systemdWord(s: string, command: boolean): string {
  let t = s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/%/g, "%%");
  if (command) t = t.replace(/\$/g, "$$$$");
  return `"${t}"`;
}

/** The unit's line that sets variable `name` to `value`. */
export function systemdEnvLine(name: string, value: string): string {
  return `Environment=${systemdWord(`${name}=${value}`, false)}`;
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
    lines.push(systemdEnvLine(k, v));
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

/**
 * Writes the unit when it differs, reloads, enables it, and with `now` starts it (restarts it
 * when its unit changed).
 */
export async function enableSystemd(
  spec: AutostartSpec,
  host: AutostartHost,
  opts: AutostartOptions,
): Promise<AutostartResult> {
  const content = systemdUnit(spec);
  const { file, changed } = await entryFile("systemd", spec.name, host, content);
  const steps: string[] = [];
  const unit = `${spec.name}.service`;
  if (changed) steps.push(`write ${file}`);
  const cmds: string[][] = [];
  if (changed) cmds.push(["--user", "daemon-reload"]);
  cmds.push(["--user", "enable", unit]);
  if (opts.now) cmds.push(["--user", changed ? "restart" : "start", unit]);
  for (const c of cmds) steps.push(`systemctl ${c.join(" ")}`);
  if (!opts.dryRun) {
    if (changed) await writeOwnerOnly(file, content);
    for (const c of cmds) await must(host, "systemctl", c);
  }
  return { kind: "systemd", file, changed: changed || Boolean(opts.now), steps };
}

/**
 * Disables unit `name` (stopping it with `now`) where a user manager answers, and removes its
 * file; the steps are appended to `steps`.
 */
export async function disableSystemd(
  name: string,
  host: AutostartHost,
  opts: AutostartOptions,
  steps: string[],
): Promise<void> {
  const file = autostartFile("systemd", name, host)!;
  const usable = await systemdAnswers(host);
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
}
