/**
 * What the agent hooks (`memcli bootstrap --hook`, `memcli recall --hook`) share: the JSON
 * payload an agent writes on the hook's stdin, and the hard deadline.
 *
 * Claude Code runs a command hook with a JSON object on stdin: `session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`, and per event `source` (SessionStart:
 * `startup`, `resume`, `clear`, `compact`) or `prompt` (UserPromptSubmit). Whatever a hook
 * command prints on stdout with exit code 0 is added to the model's context for these two
 * events. Other agents can pipe the same JSON, or nothing (then the working directory is
 * used).
 *
 * A hook never blocks or breaks the agent: the whole run (reading stdin, finding the
 * project, asking the service) is bounded by a deadline counted from process start
 * (default {@link DEFAULT_DEADLINE_MS}, `--deadline MS` or `MEMCLI_HOOK_DEADLINE_MS`), and
 * the exit code is 0 whatever happens.
 * @module
 */
import { intFlag } from "./args.ts";
import type { Io } from "./io.ts";

/** Default hard deadline of a hook, ms from process start. */
export const DEFAULT_DEADLINE_MS = 1500;

/** The variable that sets the deadline when `--deadline` is absent. */
export const DEADLINE_ENV = "MEMCLI_HOOK_DEADLINE_MS";

/** Bounds of the deadline (ms). */
export const DEADLINE_MIN_MS = 100;
/** Bounds of the deadline (ms). */
export const DEADLINE_MAX_MS = 60_000;

/** Time kept back from the deadline for printing and exiting (ms). */
const EXIT_MARGIN_MS = 30;

/** The fields of a hook payload memcli uses (all optional: a hook must work without). */
export interface HookPayload {
  /** The agent's working directory: the project is resolved from it. */
  cwd?: string;
  /** The agent's session. */
  session_id?: string;
  /** SessionStart: `startup`, `resume`, `clear` or `compact`. */
  source?: string;
  /** UserPromptSubmit: the user's prompt. */
  prompt?: string;
  /** The event that ran the hook. */
  hook_event_name?: string;
}

/** Parse a payload; empty input is an empty payload; anything else unusable is a problem. */
export function parseHookPayload(text: string): { payload: HookPayload; problem?: string } {
  if (!text.trim()) return { payload: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { payload: {}, problem: "the hook input on stdin is not JSON; ignored" };
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    return { payload: {}, problem: "the hook input on stdin is not a JSON object; ignored" };
  }
  const o = json as Record<string, unknown>;
  const payload: HookPayload = {};
  const bad: string[] = [];
  for (const k of ["cwd", "session_id", "source", "prompt", "hook_event_name"] as const) {
    if (o[k] === undefined || o[k] === null) continue;
    if (typeof o[k] === "string") payload[k] = o[k] as string;
    else bad.push(k);
  }
  if (
    payload.cwd !== undefined && !payload.cwd.startsWith("/") &&
    !/^[A-Za-z]:[\\/]/.test(payload.cwd)
  ) {
    bad.push("cwd");
    delete payload.cwd;
  }
  return bad.length
    ? { payload, problem: `hook input field ${bad.join(", ")} is not usable; ignored` }
    : { payload };
}

/**
 * The deadline in ms: the flag's value, else the variable's, else the default. A bad flag is
 * a usage error (the caller reports it); a bad variable is a note, and the default applies.
 */
export function hookDeadline(
  io: Io,
  flag: number | undefined,
): { ms: number; note?: string } {
  if (flag !== undefined) return { ms: flag };
  let raw: string | undefined;
  try {
    raw = io.env(DEADLINE_ENV)?.trim();
  } catch {
    raw = undefined; // not granted: the default
  }
  if (!raw) return { ms: DEFAULT_DEADLINE_MS };
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < DEADLINE_MIN_MS || n > DEADLINE_MAX_MS) {
    return {
      ms: DEFAULT_DEADLINE_MS,
      note: `${DEADLINE_ENV}="${raw}" must be an integer between ${DEADLINE_MIN_MS} and ` +
        `${DEADLINE_MAX_MS}; using ${DEFAULT_DEADLINE_MS}`,
    };
  }
  return { ms: n };
}

/**
 * The ms left before `deadlineMs` (counted from process start when the Io knows it, else
 * from now), less a margin for printing and exiting; at least 1.
 */
export function timeLeft(io: Io, deadlineMs: number, startedAt: number): number {
  const spent = io.uptimeMs ? io.uptimeMs() : performance.now() - startedAt;
  return Math.max(1, Math.floor(deadlineMs - spent - EXIT_MARGIN_MS));
}

/** How much longer than the hook's deadline a request of the hook may wait (see runHook). */
const REQUEST_GRACE_MS = 250;

/** `work`'s value, or `{timedOut: true}` when `ms` pass first (its signal is then aborted). */
export async function withinDeadline<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<{ timedOut: false; value: T } | { timedOut: true }> {
  const ctl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => {
      ctl.abort(new DOMException("hook deadline", "TimeoutError"));
      resolve({ timedOut: true });
    }, ms);
  });
  try {
    return await Promise.race([
      work(ctl.signal).then((value) => ({ timedOut: false as const, value })),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Read the hook payload from stdin (nothing from a terminal: a person ran the command). */
export async function readHookPayload(io: Io): Promise<{ payload: HookPayload; problem?: string }> {
  if (io.stdinIsTerminal()) return { payload: {} };
  return parseHookPayload(await io.readAll());
}

/**
 * Run a hook's `work` within the deadline (`--deadline`'s raw value, else the variable, else
 * the default), counted from process start: notes about the deadline variable and the
 * payload go to stderr as `memcli <command>: …`; `work` gets the payload and a function
 * giving the ms left (for request timeouts). Errors of `work` are the caller's to report.
 */
export async function runHook<T>(
  io: Io,
  command: string,
  deadlineRaw: unknown,
  startedAt: number,
  work: (payload: HookPayload, left: () => number) => Promise<T>,
): Promise<{ deadlineMs: number } & ({ timedOut: false; value: T } | { timedOut: true })> {
  const flag = intFlag(command, "deadline", deadlineRaw, DEADLINE_MIN_MS, DEADLINE_MAX_MS);
  const deadline = hookDeadline(io, flag);
  if (deadline.note) io.err(`memcli ${command}: ${deadline.note}\n`);
  const left = () => timeLeft(io, deadline.ms, startedAt);
  // A request's own timeout is set a little past the deadline, so that the deadline (and its
  // note, which names the wait) always ends a run the service did not answer: with the two
  // equal, the request's timeout sometimes fired first and was reported as "not reachable".
  const requestLeft = () => left() + REQUEST_GRACE_MS;
  const res = await withinDeadline(left(), async () => {
    const { payload, problem } = await readHookPayload(io);
    if (problem) io.err(`memcli ${command}: ${problem}\n`);
    return await work(payload, requestLeft);
  });
  return { deadlineMs: deadline.ms, ...res };
}
