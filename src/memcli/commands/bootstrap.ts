/**
 * `memcli bootstrap [--project NAME] [--hook] [--deadline MS]`: the session-start Markdown.
 * Loads only light modules (config, HTTP client, the shared bootstrap renderer). Any failure
 * after the flags are parsed (service down, bad key, bad environment) gives a note, an empty
 * bootstrap (or, with `--hook`, a one-line note instead of it) and exit 0, so that an
 * agent's session start never breaks.
 *
 * With `--hook` (Claude Code's SessionStart hook, or any agent that runs a command at
 * session start) it reads the hook's JSON payload from stdin, resolves the project from the
 * payload's `cwd`, and finishes within a hard deadline (src/memcli/hook.ts). A service that
 * is starting is waited for, up to {@link BOOTSTRAP_STARTING_WAIT_MS} more; one that is down
 * is not.
 * @module
 */
import { loadBootstrap, renderBootstrap } from "../../memory/bootstrap.ts";
import { MemoryError } from "../../domain/errors.ts";
import type { Memory } from "../../memory/types.ts";
import { parseFlags, stringFlag } from "../args.ts";
import { errorMessage, UsageError } from "../../common/errors.ts";
import { apiUrlOf, clientOf, configOf } from "../context.ts";
import { BOOTSTRAP_STARTING_WAIT_MS, runHook, type StartingVerdict } from "../hook.ts";
import type { Io } from "../io.ts";
import { resolveProject } from "../project.ts";
import { COMMAND_USAGE } from "../usage.ts";

/** Per-request timeout without `--hook`: a hung service must not hold a session up for long. */
const BOOTSTRAP_TIMEOUT_MS = 5000;

/** The project line of the stats block: where the name came from. */
function sourceLabel(r: { source: string; path?: string }): string {
  return r.source === ".mneme" ? `.mneme ${r.path}` : r.source;
}

/**
 * The bootstrap Markdown for `dir`, or a one-line reason why there is none. With `starting`
 * (the hook's), a failed request to a starting service is tried again while it says so.
 */
async function build(
  io: Io,
  dir: string,
  flag: string | undefined,
  timeoutMs: () => number,
  starting?: (err: unknown, url: string) => Promise<StartingVerdict>,
): Promise<{ text: string } | { down: string; empty: string }> {
  const resolved = await resolveProject(dir, flag);
  for (const w of resolved.warnings) io.err(`memcli bootstrap: ${w}\n`);
  const render = (memories: Memory[]) =>
    renderBootstrap(memories, { project: resolved.project, projectSource: sourceLabel(resolved) });
  let url = "";
  for (;;) {
    try {
      const cfg = configOf(io);
      url = (await apiUrlOf(io, cfg)).url;
      const client = clientOf(cfg, url, timeoutMs());
      return { text: render(await loadBootstrap(client, resolved.project)) };
    } catch (err) {
      const verdict = url && starting ? await starting(err, url) : "fail";
      if (verdict === "retry") continue;
      const down = verdict === "starting"
        ? `the memory service at ${url} is still starting`
        : err instanceof MemoryError && err.status === 503 && url && err.body === undefined
        ? `no memory service at ${url} (start it with 'memcli start')`
        : err instanceof Error
        ? err.message
        : String(err);
      return { down, empty: render([]) };
    }
  }
}

/** Run `memcli bootstrap`. */
export async function bootstrap(args: string[], io: Io): Promise<number> {
  const startedAt = performance.now();
  const p = parseFlags("bootstrap", args, {
    project: { type: "string" },
    hook: { type: "boolean" },
    deadline: { type: "string" },
  });
  if (p.help) {
    io.out(COMMAND_USAGE.bootstrap);
    return 0;
  }
  const flag = stringFlag("bootstrap", "project", p.values.project);
  if (!p.values.hook) {
    if (p.values.deadline !== undefined) {
      io.err("memcli bootstrap: --deadline applies with --hook only; ignored\n");
    }
    const r = await build(io, io.cwd(), flag, () => BOOTSTRAP_TIMEOUT_MS);
    if ("text" in r) {
      io.out(r.text);
      return 0;
    }
    io.err(`memcli bootstrap: ${r.down}; printing an empty bootstrap\n`);
    io.out(r.empty);
    return 0;
  }

  try {
    const res = await runHook(
      io,
      "bootstrap",
      p.values.deadline,
      startedAt,
      BOOTSTRAP_STARTING_WAIT_MS,
      (payload, left, starting) => build(io, payload.cwd ?? io.cwd(), flag, left, starting),
    );
    if (res.timedOut) {
      io.out(
        `Mneme memory: the memory service did not answer within ${res.deadlineMs} ms, so no ` +
          "bootstrap this session (check it with 'memcli status').\n",
      );
    } else if ("text" in res.value) {
      io.out(res.value.text);
    } else {
      io.out(`Mneme memory: ${res.value.down}; no bootstrap this session.\n`);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // Never break a session start, whatever went wrong.
    io.err(`memcli bootstrap: ${errorMessage(err)}\n`);
  }
  return 0;
}
