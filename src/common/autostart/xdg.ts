/**
 * The XDG autostart entry: in a desktop session without a systemd user manager, a `.desktop`
 * file in `~/.config/autostart` that the session runs at login; it runs the start command
 * (which starts the program unless it runs) through `/bin/sh`.
 *
 * @module
 */
import {
  autostartFile,
  type AutostartHost,
  type AutostartSpec,
  entryFile,
  type FallbackEdit,
  type FallbackRemoval,
  readText,
  writeOwnerOnly,
} from "./host.ts";
import { loginLine } from "./spec.ts";

/**
 * Shell text as the entry's `Exec=` line holds it inside `/bin/sh -c "…"`: an argument in
 * double quotes escapes ", `, $ and \; the value's own escapes double \ (and % is %%).
 */
export function desktopExecText(shell: string): string {
  return shell.replace(/["`$\\]/g, "\\$&").replace(/\\/g, "\\\\").replace(/%/g, "%%");
}

/** The XDG autostart entry (`.desktop` file) for `spec`. */
export function desktopEntry(spec: AutostartSpec): string {
  const exec = `/bin/sh -c "${desktopExecText(loginLine(spec))}"`;
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

/** Writes the entry of `spec` (owner-only) when it differs. */
export async function enableXdg(
  spec: AutostartSpec,
  host: AutostartHost,
  dryRun: boolean,
): Promise<FallbackEdit> {
  const content = desktopEntry(spec);
  const { file, changed } = await entryFile("xdg", spec.name, host, content);
  const steps = changed ? [`write ${file}`] : [];
  if (changed && !dryRun) await writeOwnerOnly(file, content);
  return { file, changed, steps };
}

/** Removes the entry of `name`, when there is one. */
export async function removeXdg(
  name: string,
  host: AutostartHost,
  dryRun: boolean,
): Promise<FallbackRemoval | null> {
  const xdg = autostartFile("xdg", name, host)!;
  if ((await readText(xdg)) === null) return null;
  if (!dryRun) await Deno.remove(xdg);
  return { kind: "xdg", file: xdg, step: `remove ${xdg}` };
}
