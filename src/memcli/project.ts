/**
 * Which project a directory belongs to (`memcli bootstrap`, the hooks, `memcli recall`):
 *
 * 1. `--project NAME` (source `flag`);
 * 2. a `.mneme` file holding JSON `{"project": "name"}`, found by walking up from the
 *    directory, up to the repository root when there is one (source `.mneme`): it pins a
 *    name, for a monorepo folder or a checkout whose directory name differs from the
 *    project (a `.mneme` above the repository root does not apply to it, so that a stray
 *    `~/.mneme` cannot rename every repository);
 * 3. the name of the git repository's root: the nearest directory at or above holding `.git`
 *    (a folder, or a file in worktrees and submodules) (source `git`);
 * 4. the directory's own name (source `cwd`).
 *
 * The walk reads only `<dir>/.mneme` and `<dir>/.git` of each directory from the start up to
 * the file-system root (memcli's permission plan grants exactly those paths). It stops
 * where memcli may not read, without asking (a session start must never wait on a
 * permission prompt), and uses what it found below that point. A `.mneme` that cannot be
 * used (not JSON, no valid `project`) is skipped with a warning.
 * @module
 */
import { exists } from "../common/fs.ts";
import { basename, dirname, join, resolve } from "node:path";
import { MAX_PROJECT } from "../domain/memory.ts";
import { errorMessage } from "../common/errors.ts";

/** Where a project name came from. */
export type ProjectSource = "flag" | ".mneme" | "git" | "cwd" | "none";

/** The resolved project. */
export interface ResolvedProject {
  /** The project name, or null when none could be found (the root directory). */
  project: string | null;
  /** Where it came from (named in the Bootstrap Stats block). */
  source: ProjectSource;
  /** The `.mneme` file or the repository root, for `.mneme` and `git`. */
  path?: string;
  /** Problems met on the way (an unusable `.mneme`), one line each. */
  warnings: string[];
}

function mayRead(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}

/** A usable project name, or why not. */
export function checkProjectName(raw: unknown): { name: string } | { problem: string } {
  if (typeof raw !== "string") return { problem: 'has no string "project"' };
  const name = raw.trim();
  if (!name) return { problem: 'has an empty "project"' };
  if (name.length > MAX_PROJECT) {
    return { problem: `has a "project" longer than ${MAX_PROJECT} characters` };
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    return { problem: 'has a "project" with control characters' };
  }
  return { name };
}

/** The project named by the `.mneme` file at `path`, or a warning. */
async function readMnemeFile(path: string): Promise<{ name: string } | { problem: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    return { problem: `cannot be read (${errorMessage(err)})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: 'is not JSON (expected {"project": "name"})' };
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    return { problem: 'is not a JSON object (expected {"project": "name"})' };
  }
  return checkProjectName((json as Record<string, unknown>).project);
}

/**
 * Resolve the project of `dir` (see the module documentation). `flag` is `--project`, already
 * trimmed; an empty or absent flag means "detect".
 */
export async function resolveProject(
  dir: string,
  flag?: string,
): Promise<ResolvedProject> {
  const warnings: string[] = [];
  if (flag) return { project: flag, source: "flag", warnings };
  const start = resolve(dir);
  let gitRoot: string | null = null;
  for (let cur = start;;) {
    const mneme = join(cur, ".mneme");
    const git = join(cur, ".git");
    if (!mayRead(mneme) || !mayRead(git)) break;
    if (await exists(mneme, { followSymlinks: false })) {
      const r = await readMnemeFile(mneme);
      if ("name" in r) return { project: r.name, source: ".mneme", path: mneme, warnings };
      warnings.push(`${mneme} ${r.problem}; ignored`);
    }
    if (await exists(git, { followSymlinks: false })) {
      gitRoot = cur;
      break;
    }
    const up = dirname(cur);
    if (up === cur) break;
    cur = up;
  }
  if (gitRoot !== null && basename(gitRoot)) {
    return { project: basename(gitRoot), source: "git", path: gitRoot, warnings };
  }
  const name = basename(start);
  return name
    ? { project: name, source: "cwd", warnings }
    : { project: null, source: "none", warnings };
}
