/**
 * The project `add`, `search` and `list` work in: `--project NAME`, else the repository's
 * project resolved as for `bootstrap` (`.mneme`, git root, directory; see project.ts), unless
 * `--global` (or `--scope global|all`) opts out. They say which project they used, and a
 * project without memories that resembles one with memories gets a hint.
 * @module
 */
import { UsageError } from "../common/errors.ts";
import { closest } from "./args.ts";
import type { MemoryClient } from "../memory/client.ts";
import type { Io } from "./io.ts";
import { resolveProject } from "./project.ts";

/** The project a command works in. */
export interface CommandProject {
  /** The project, or null for global memories only. */
  project: string | null;
  /** How it was chosen, for a "Project: …" line (e.g. `git root /src/app`). */
  source: string;
}

/** How `resolveProject` found the name, in words. */
function describeSource(r: { source: string; path?: string }): string {
  switch (r.source) {
    case "flag":
      return "--project";
    case ".mneme":
      return `.mneme ${r.path}`;
    case "git":
      return `git repository ${r.path}`;
    case "cwd":
      return "current directory's name";
    default:
      return r.source;
  }
}

/**
 * The project for `command`: `--project` wins; `--global` means none; else the one resolved
 * from the working directory. `--global` with `--project` is a usage error.
 */
export async function commandProject(
  io: Io,
  command: string,
  flags: { project?: string; global?: boolean },
): Promise<CommandProject> {
  if (flags.global && flags.project) {
    throw new UsageError("--global and --project cannot be combined", command);
  }
  if (flags.global) return { project: null, source: "--global" };
  const r = await resolveProject(io.cwd(), flags.project);
  for (const w of r.warnings) io.err(`memcli ${command}: ${w}\n`);
  return { project: r.project, source: describeSource(r) };
}

/**
 * A hint when `project` has no memories (beyond the `own` just stored) but a stored project resembles it (`App` for
 * `app`, `nope` for `node`); null otherwise.
 */
export async function projectHint(
  client: MemoryClient,
  project: string,
  own = 0,
): Promise<string | null> {
  const byProject = (await client.stats()).by_project ?? {};
  if ((byProject[project] ?? 0) > own) return null;
  const others = Object.keys(byProject).filter((p) => p !== project && byProject[p] > 0);
  const near = closest(project, others);
  if (near === null) return `Project ${project} has no memories yet.\n`;
  return `Project ${project} has no memories; did you mean ${near} (${byProject[near]} ` +
    `${byProject[near] === 1 ? "memory" : "memories"})? Use --project ${near}.\n`;
}
