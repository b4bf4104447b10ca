/**
 * `POST /api/capture`: a hook hands over a session (Claude Code's hook input: `session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`); the route validates it, enqueues it and
 * answers 202 at once. The {@link CaptureQueue} runs one capture at a time per session (a
 * session handed over again while it runs is run once more after it), in the daemon, never
 * in the hook's time.
 * @module
 */
import { Hono } from "hono";
import { normalize } from "node:path";
import { checkProjectName } from "../memcli/project.ts";
import {
  type CaptureOptions,
  type CaptureRequest,
  type CaptureSink,
  runCapture,
} from "./pipeline.ts";

/** Largest hook input accepted (Claude Code's is a few hundred bytes). */
export const CAPTURE_BODY_LIMIT = 16 * 1024;
/** The hook events capture runs for. */
export const CAPTURE_EVENTS = ["Stop", "PreCompact", "SessionEnd"] as const;

/** A field of the hook input that is not usable. */
export class CaptureInputError extends Error {
  /** The error, naming the field. */
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = "CaptureInputError";
  }
}

/**
 * Validate Claude Code's hook input (extra fields are ignored, as Claude Code adds some), and
 * the `project` memcli resolved from `cwd` as the bootstrap does (optional). With
 * `transcriptsDir`, a `transcript_path` outside that folder is refused: a malformed request
 * never widens what the daemon reads.
 */
export function parseCaptureInput(json: unknown, transcriptsDir?: string): CaptureRequest {
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    throw new CaptureInputError("body", "must be a JSON object");
  }
  const o = json as Record<string, unknown>;
  const str = (k: string) => {
    const v = o[k];
    if (typeof v !== "string" || !v.trim()) {
      throw new CaptureInputError(k, "must be a non-empty string");
    }
    if (v.length > 4096 || v.includes("\0")) throw new CaptureInputError(k, "is not usable");
    return v;
  };
  const sessionId = str("session_id");
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) {
    throw new CaptureInputError("session_id", "must be letters, digits, '-' or '_'");
  }
  const transcriptPath = str("transcript_path");
  if (!transcriptPath.startsWith("/") || !transcriptPath.endsWith(".jsonl")) {
    throw new CaptureInputError("transcript_path", "must be an absolute path to a .jsonl file");
  }
  if (transcriptsDir !== undefined && !inside(transcriptPath, transcriptsDir)) {
    throw new CaptureInputError(
      "transcript_path",
      `must be a file in Claude Code's transcripts folder ${transcriptsDir} ` +
        "(CAPTURE_TRANSCRIPTS_DIR)",
    );
  }
  const cwd = str("cwd");
  if (!cwd.startsWith("/")) throw new CaptureInputError("cwd", "must be an absolute path");
  const event = str("hook_event_name");
  if (!(CAPTURE_EVENTS as readonly string[]).includes(event)) {
    throw new CaptureInputError("hook_event_name", `must be one of ${CAPTURE_EVENTS.join(", ")}`);
  }
  let project: string | null | undefined;
  if (o.project !== undefined && o.project !== null) {
    const p = checkProjectName(o.project);
    if ("problem" in p) throw new CaptureInputError("project", p.problem.replace(/^has /, "is "));
    project = p.name;
  } else if (o.project === null) project = null;
  return { sessionId, transcriptPath, cwd, event, ...(project !== undefined ? { project } : {}) };
}

/** Whether `path` (absolute) names a file under `dir` (absolute), with no `..` on the way. */
export function inside(path: string, dir: string): boolean {
  const d = normalize(dir).replace(/\/+$/, "");
  return normalize(path) === path && path.startsWith(`${d}/`) && path.length > d.length + 1;
}

/** Refuse a transcript whose real path (links resolved) leaves `dir`. */
async function realInside(path: string, dir: string): Promise<void> {
  let real: string, realDir: string;
  try {
    [real, realDir] = await Promise.all([Deno.realPath(path), Deno.realPath(dir)]);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new CaptureInputError("transcript_path", "does not exist");
    }
    throw new CaptureInputError("transcript_path", `cannot be read (${(err as Error).name})`);
  }
  if (!inside(real, realDir)) {
    throw new CaptureInputError(
      "transcript_path",
      `leads out of Claude Code's transcripts folder ${dir} (a symbolic link)`,
    );
  }
}

/** Runs captures in the background, one at a time per session. */
export class CaptureQueue {
  readonly #sink: CaptureSink;
  readonly #opts: CaptureOptions;
  readonly #log: (line: string) => void;
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Map<string, CaptureRequest>();

  /** A queue proposing to `sink`. */
  constructor(sink: CaptureSink, opts: CaptureOptions = {}, log: (l: string) => void = () => {}) {
    this.#sink = sink;
    this.#opts = opts;
    this.#log = log;
  }

  /** Enqueue a hand-over; returns at once. */
  enqueue(req: CaptureRequest): void {
    if (this.#running.has(req.sessionId)) {
      this.#again.set(req.sessionId, req);
      return;
    }
    const run = (async () => {
      let next: CaptureRequest | undefined = req;
      while (next) {
        this.#again.delete(next.sessionId);
        try {
          const r = await runCapture(next, this.#sink, this.#opts);
          // Counts only: never a memory's text.
          this.#log(
            `capture: session ${r.sessionId} (${next.event}): ${r.turns} turns, ${r.proposed} ` +
              `proposed (${r.autoAccepted} accepted automatically), ${r.duplicates} ` +
              `duplicates dropped, ${r.rejectedBefore} rejected before, ${
                r.redacted + r.droppedForSecret
              } with secrets`,
          );
        } catch (err) {
          this.#log(
            `capture: session ${next.sessionId}: ${(err as Error).name}: ${(err as Error).message}`,
          );
        }
        next = this.#again.get(req.sessionId);
      }
    })().finally(() => this.#running.delete(req.sessionId));
    this.#running.set(req.sessionId, run);
  }

  /** Wait for every capture running now (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size) await Promise.all([...this.#running.values()]);
  }
}

/**
 * The route, to mount under the Admin API (`api.route("/capture", captureRoute(queue))`). With
 * `transcriptsDir`, only transcripts in that folder are read (the path's symbolic links
 * resolved: a link out of the folder is refused too).
 */
export function captureRoute(queue: CaptureQueue, transcriptsDir?: string): Hono {
  const app = new Hono();
  app.post("/", async (c) => {
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > CAPTURE_BODY_LIMIT) return c.json({ error: "request body is too large" }, 413);
    const text = await c.req.text();
    if (text.length > CAPTURE_BODY_LIMIT) {
      return c.json({ error: "request body is too large" }, 413);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return c.json({ error: "body: is not valid JSON", field: "body" }, 400);
    }
    try {
      const req = parseCaptureInput(json, transcriptsDir);
      if (transcriptsDir !== undefined) await realInside(req.transcriptPath, transcriptsDir);
      queue.enqueue(req);
      return c.json({ queued: true, session_id: req.sessionId }, 202);
    } catch (err) {
      if (err instanceof CaptureInputError) {
        return c.json({ error: err.message, field: err.field }, 400);
      }
      throw err;
    }
  });
  app.all("/", (c) => {
    c.header("Allow", "POST");
    return c.json({ error: `method ${c.req.method} not allowed on /api/capture` }, 405);
  });
  return app;
}
