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
 *
 * A service that is starting (it answers 503 "starting" while its database and embedder
 * open, or it does not listen yet while this DATA_DIR's service process is alive: right after
 * `memcli start`, `connect` or a login) is waited for: the hook polls it for up to its
 * starting budget ({@link BOOTSTRAP_STARTING_WAIT_MS}, {@link RECALL_STARTING_WAIT_MS}), which
 * moves the deadline out by as much. A service that is down (nothing listens and no process
 * of this DATA_DIR runs) is not waited for: the hook answers at once.
 * @module
 */
import { MemoryError } from "../domain/errors.ts";
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

/**
 * How long `bootstrap --hook` waits for a starting service (ms), past its deadline: the
 * session start has Claude Code's 10 s, and a service starts in 1 to 3 s.
 */
export const BOOTSTRAP_STARTING_WAIT_MS = 5000;

/**
 * How long `recall --hook` waits for a starting service (ms), past its deadline: the user's
 * prompt waits for it, so it stays short.
 */
export const RECALL_STARTING_WAIT_MS = 1000;

/** Pause between two tries of a starting service (ms). */
const STARTING_POLL_MS = 150;

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

/**
 * `work`'s value, or `{timedOut: true}` when `ms` pass first (its signal is then aborted).
 * `work`'s `extend(ms)` moves the end out by `ms`.
 */
export async function withinDeadline<T>(
  ms: number,
  work: (signal: AbortSignal, extend: (ms: number) => void) => Promise<T>,
): Promise<{ timedOut: false; value: T } | { timedOut: true }> {
  const ctl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let end = performance.now() + ms;
  let fire: () => void = () => {};
  const expired = new Promise<{ timedOut: true }>((resolve) => {
    fire = () => {
      ctl.abort(new DOMException("hook deadline", "TimeoutError"));
      resolve({ timedOut: true });
    };
    timer = setTimeout(fire, ms);
  });
  const extend = (more: number) => {
    clearTimeout(timer);
    end += more;
    timer = setTimeout(fire, Math.max(0, end - performance.now()));
  };
  try {
    return await Promise.race([
      work(ctl.signal, extend).then((value) => ({ timedOut: false as const, value })),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether two base URLs name the same origin. */
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * Whether `err` (a failed request to the service at `url`) means that the service of DATA_DIR
 * `dataDir` is starting: it answered 503 "starting", or it could not be reached while a
 * process holds that DATA_DIR (the service claims it before it listens) or the pid file of
 * `memcli start` names a live daemon, and that service has recorded no other URL. Anything
 * else (another answer, nothing running, a service that listens elsewhere) is not.
 */
export async function serviceStarting(
  err: unknown,
  dataDir: string | null,
  url: string,
): Promise<boolean> {
  if (!(err instanceof MemoryError) || err.status !== 503) return false;
  const body = err.body as { error?: unknown } | undefined;
  if (body !== undefined) return body?.error === "starting";
  if (dataDir === null) return false;
  // Loaded here, on a failed request only: a hook that reaches its service does not pay for
  // the daemon's modules at start-up (the capture hook's 100 ms budget).
  const { layoutOf } = await import("./context.ts");
  const { checkDaemon, serviceOwner } = await import("./daemon.ts");
  const layout = layoutOf(dataDir);
  const owner = await serviceOwner(layout);
  if (owner) return !owner.url || sameOrigin(owner.url, url);
  const check = await checkDaemon(layout);
  return check.kind === "running" && (!check.state?.url || sameOrigin(check.state.url, url));
}

/**
 * What a hook does after a failed request: `retry` (the service is starting, it was waited
 * for a moment, ask again), `starting` (it is still starting and the budget is spent) or
 * `fail` (report the error).
 */
export type StartingVerdict = "retry" | "starting" | "fail";

/** The DATA_DIR of `io`'s configuration, or null when the configuration is bad. */
async function dataDirOf(io: Io): Promise<string | null> {
  const { configOf } = await import("./context.ts");
  try {
    return configOf(io).dataDir;
  } catch {
    return null;
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
 * payload go to stderr as `memcli <command>: …`; `work` gets the payload, a function
 * giving the ms left (for request timeouts) and `starting(err, url)`, which says what to do
 * after a failed request to `url` ({@link StartingVerdict}): a starting service is polled for up to
 * `startingWaitMs`, counted from the first failure, and the deadline moves out by as much
 * (`deadlineMs` in the result is the deadline in force at the end); and `extend(ms)`, which moves
 * the deadline out by `ms` (the recall hook asking the judge: its time budget). Errors of `work` are the
 * caller's to report.
 */
export async function runHook<T>(
  io: Io,
  command: string,
  deadlineRaw: unknown,
  startedAt: number,
  startingWaitMs: number,
  work: (
    payload: HookPayload,
    left: () => number,
    starting: (err: unknown, url: string) => Promise<StartingVerdict>,
    extend: (ms: number) => void,
  ) => Promise<T>,
): Promise<{ deadlineMs: number } & ({ timedOut: false; value: T } | { timedOut: true })> {
  const flag = intFlag(command, "deadline", deadlineRaw, DEADLINE_MIN_MS, DEADLINE_MAX_MS);
  const deadline = hookDeadline(io, flag);
  if (deadline.note) io.err(`memcli ${command}: ${deadline.note}\n`);
  let deadlineMs = deadline.ms;
  const left = () => timeLeft(io, deadlineMs, startedAt);
  // A request's own timeout is set a little past the deadline, so that the deadline (and its
  // note, which names the wait) always ends a run the service did not answer: with the two
  // equal, the request's timeout sometimes fired first and was reported as "not reachable".
  const requestLeft = () => left() + REQUEST_GRACE_MS;
  let waitStart: number | null = null;
  let waitEnd: number | null = null;
  const res = await withinDeadline(left(), async (_signal, extend) => {
    const starting = async (err: unknown, url: string): Promise<StartingVerdict> => {
      // Down (nothing listens, no process of this DATA_DIR) or another failure: no wait.
      if (!(await serviceStarting(err, await dataDirOf(io), url))) return "fail";
      const now = performance.now();
      if (waitEnd === null) {
        waitStart = now;
        waitEnd = now + startingWaitMs;
        deadlineMs += startingWaitMs;
        extend(startingWaitMs);
      }
      if (now + STARTING_POLL_MS >= waitEnd) return "starting";
      await new Promise((r) => setTimeout(r, STARTING_POLL_MS));
      return "retry";
    };
    const { payload, problem } = await readHookPayload(io);
    if (problem) io.err(`memcli ${command}: ${problem}\n`);
    // The work may need longer (the recall hook with the judge on): the deadline moves out.
    const more = (ms: number) => {
      deadlineMs += ms;
      extend(ms);
    };
    return await work(payload, requestLeft, starting, more);
  });
  if (waitStart !== null) {
    const waited = Math.round(performance.now() - waitStart);
    io.err(`memcli ${command}: the memory service was starting; waited ${waited} ms for it\n`);
  }
  return { deadlineMs, ...res };
}
