/**
 * `memcli capture --hook`: Claude Code's Stop, PreCompact and SessionEnd hook. It reads the
 * hook input on stdin (`session_id`, `transcript_path`, `cwd`, `hook_event_name`), hands it to
 * the memory service (`POST /api/capture`, which enqueues it) and returns: the service reads
 * the transcript later, in its own time. Within the hook deadline whatever happens, exit code
 * 0; one line on stderr when the service is down, slow or refuses the input.
 * @module
 */
import { intFlag, parseFlags } from "../args.ts";
import { errorMessage, UsageError } from "../../common/errors.ts";
import { apiUrlOf, configOf } from "../context.ts";
import {
  DEADLINE_MAX_MS,
  DEADLINE_MIN_MS,
  hookDeadline,
  timeLeft,
  withinDeadline,
} from "../hook.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { resolveProject } from "../project.ts";

/** The fields handed over (the rest of Claude Code's input stays on this machine's side). */
const FIELDS = ["session_id", "transcript_path", "cwd", "hook_event_name"] as const;

/** Run `memcli capture --hook`. */
export async function capture(args: string[], io: Io): Promise<number> {
  const startedAt = performance.now();
  const p = parseFlags("capture", args, {
    hook: { type: "boolean" },
    deadline: { type: "string" },
  });
  if (p.help) {
    io.out(COMMAND_USAGE.capture);
    return 0;
  }
  if (!p.values.hook) {
    throw new UsageError("capture runs as an agent hook: memcli capture --hook", "capture");
  }
  const flag = intFlag("capture", "deadline", p.values.deadline, DEADLINE_MIN_MS, DEADLINE_MAX_MS);
  const deadline = hookDeadline(io, flag);
  if (deadline.note) io.err(`memcli capture: ${deadline.note}\n`);
  const left = () => timeLeft(io, deadline.ms, startedAt);
  const note = (m: string) => io.err(`memcli capture: ${m}; this session is captured later\n`);
  try {
    const res = await withinDeadline(left(), async (signal) => {
      const text = io.stdinIsTerminal() ? "" : await io.readAll();
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(text);
      } catch {
        return "the hook input on stdin is not JSON; nothing handed over";
      }
      if (!input || typeof input !== "object" || Array.isArray(input)) {
        return "the hook input on stdin is not a JSON object; nothing handed over";
      }
      const body: Record<string, unknown> = {};
      for (const k of FIELDS) if (input[k] !== undefined) body[k] = input[k];
      // The project as the bootstrap resolves it (memcli may read the markers; the daemon not).
      if (typeof input.cwd === "string" && input.cwd.startsWith("/")) {
        body.project = (await resolveProject(input.cwd)).project;
      }
      const cfg = configOf(io);
      const { url } = await apiUrlOf(io, cfg);
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (cfg.adminApiKey) headers.authorization = `Bearer ${cfg.adminApiKey}`;
      const r = await fetch(`${url.replace(/\/$/, "")}/api/capture`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal,
      });
      const answer = await r.text();
      if (r.status === 202) return "";
      let why = `HTTP ${r.status}`;
      try {
        const e = JSON.parse(answer);
        if (typeof e.error === "string") why = e.error;
      } catch { /* not JSON */ }
      return `the memory service refused the hand-over (${why})`;
    });
    if (res.timedOut) note(`the memory service did not answer within ${deadline.ms} ms`);
    else if (res.value) io.err(`memcli capture: ${res.value}\n`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    note(`the memory service is not reachable (${errorMessage(err)})`);
  }
  return 0;
}
