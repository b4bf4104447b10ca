/**
 * The profile line: the last resort where nothing else starts a program at login, a line in
 * the profile the login shell reads (marked with the entry's name) that runs the start
 * command. The profile is rewritten in place with its mode kept.
 *
 * @module
 */
import {
  type AutostartHost,
  type FallbackEdit,
  type FallbackRemoval,
  profileFiles,
  readText,
} from "./host.ts";
import { hasMarked, withMarked, withoutMarked } from "./spec.ts";

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

/**
 * Rewrite a login profile in place, keeping its mode: memcli may write the profile, not a
 * temporary file beside it in the home folder.
 */
async function writeProfile(file: string, text: string, mode: number): Promise<void> {
  await Deno.writeTextFile(file, text, { mode: mode & 0o777 });
}

/**
 * Puts `line` (the marked login line of entry `name`) in the login profile: a line already
 * there and equal is left where it is, a different one replaced in place, else it goes at the
 * end (the user's lines below it stay below it).
 */
export async function enableProfile(
  name: string,
  line: string,
  host: AutostartHost,
  dryRun: boolean,
): Promise<FallbackEdit> {
  const file = await loginProfile(host);
  const before = (await readText(file)) ?? "";
  const after = withMarked(before, name, line);
  const changed = after !== before;
  const steps = changed ? [`add a line to ${file}`] : [];
  if (changed && !dryRun) {
    const mode = (await Deno.stat(file).catch(() => null))?.mode ?? 0o600;
    await writeProfile(file, after, mode);
  }
  return { file, changed, steps };
}

/** Removes the lines of `name` from every login profile that has one. */
export async function removeProfileLines(
  name: string,
  host: AutostartHost,
  dryRun: boolean,
): Promise<FallbackRemoval[]> {
  const done: FallbackRemoval[] = [];
  for (const f of profileFiles(host)) {
    const text = await readText(f);
    if (text === null || !hasMarked(text, name)) continue;
    if (!dryRun) {
      const mode = (await Deno.stat(f)).mode ?? 0o600;
      const rest = withoutMarked(text, name);
      await writeProfile(f, rest, mode);
    }
    done.push({ kind: "profile", file: f, step: `remove the line from ${f}` });
  }
  return done;
}

/** The login profile that has a line of `name`, if any. */
export async function profileWithLine(
  name: string,
  host: AutostartHost,
): Promise<string | null> {
  for (const file of profileFiles(host)) {
    const text = await readText(file);
    if (text !== null && hasMarked(text, name)) return file;
  }
  return null;
}
