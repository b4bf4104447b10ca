/**
 * The launchd agent on macOS: a property list in `~/Library/LaunchAgents` that loads at login
 * and keeps the program alive after a failure; loaded at once (`launchctl bootstrap`) into the
 * user's `gui/<uid>` domain when asked to start it now.
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
  writeOwnerOnly,
} from "./host.ts";
import { validateSpec } from "./spec.ts";

function xml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /"/g,
    "&quot;",
  );
}

/** The agent's entry that sets variable `name` to `value` (in its EnvironmentVariables). */
export function launchdEnvEntry(name: string, value: string): string {
  return `<key>${xml(name)}</key><string>${xml(value)}</string>`;
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
    for (const [k, v] of env) lines.push(`    ${launchdEnvEntry(k, v)}`);
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

/**
 * Writes the agent when it differs; it loads at the next login, and with `now` it is
 * (re)loaded at once.
 */
export async function enableLaunchd(
  spec: AutostartSpec,
  host: AutostartHost,
  opts: AutostartOptions,
): Promise<AutostartResult> {
  const content = launchdPlist(spec, host.home);
  const { file, changed } = await entryFile("launchd", spec.name, host, content);
  const steps: string[] = [];
  if (changed) steps.push(`write ${file}`);
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
  return { kind: "launchd", file, changed: changed || load, steps };
}

/**
 * Unloads agent `name` (on macOS, when the user id is known) and removes its file; the steps
 * are appended to `steps`.
 */
export async function disableLaunchd(
  name: string,
  host: AutostartHost,
  opts: AutostartOptions,
  steps: string[],
): Promise<void> {
  const file = autostartFile("launchd", name, host)!;
  const domain = host.uid !== undefined && host.os === "darwin" ? `gui/${host.uid}` : undefined;
  if (domain) steps.push(`launchctl bootout ${domain}/${name}`);
  steps.push(`remove ${file}`);
  if (!opts.dryRun) {
    // Not loaded is fine: the file is what makes it start at login.
    if (domain) await host.run("launchctl", ["bootout", `${domain}/${name}`]);
    await Deno.remove(file);
  }
}
