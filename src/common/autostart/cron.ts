/**
 * The crontab `@reboot` line: without a service manager or a desktop session, where `crontab`
 * runs, a line marked with the entry's name that runs the start command at boot. The rest of
 * the user's crontab is kept as it is.
 *
 * @module
 */
import type { AutostartHost, FallbackEdit, FallbackRemoval } from "./host.ts";
import { hasMarked, withMarked, withoutMarked } from "./spec.ts";

/** The crontab's text (empty when the user has none). */
async function readCrontab(host: AutostartHost): Promise<string> {
  const r = await host.run("crontab", ["-l"]);
  return r.code === 0 ? r.stdout : "";
}

async function writeCrontab(host: AutostartHost, text: string): Promise<void> {
  const r = await host.run("crontab", ["-"], text);
  if (r.code !== 0) throw new Error(`crontab - failed (exit ${r.code}): ${r.stderr.trim()}`);
}

/**
 * Puts `line` (the marked login line of entry `name`) in the crontab as its `@reboot` line:
 * one already there and equal is left where it is, a different one replaced in place.
 */
export async function enableCron(
  name: string,
  line: string,
  host: AutostartHost,
  dryRun: boolean,
): Promise<FallbackEdit> {
  const before = await readCrontab(host);
  // cron reads a bare % as a line end.
  const after = withMarked(before, name, `@reboot ${line.replace(/%/g, "\\%")}`);
  const changed = after !== before;
  const steps = changed ? ["crontab - (an @reboot line)"] : [];
  if (changed && !dryRun) await writeCrontab(host, after);
  return { changed, steps };
}

/** Removes the `@reboot` line of `name` from the crontab, when it is there. */
export async function removeCron(
  name: string,
  host: AutostartHost,
  dryRun: boolean,
): Promise<FallbackRemoval | null> {
  const cron = await readCrontab(host);
  if (!hasMarked(cron, name)) return null;
  if (!dryRun) await writeCrontab(host, withoutMarked(cron, name));
  return { kind: "cron", step: "remove the @reboot line from the crontab" };
}
