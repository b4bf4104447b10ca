/**
 * `memcli recall [QUERY...] [--project NAME] [--limit N] [--max-chars N]
 * [--min-confidence X] [--min-score X] [--hook] [--deadline MS]`: the memories relevant to a text, formatted for an agent's
 * context, with their ids (so that the agent can `update`, `forget` or supersede them).
 *
 * With `--hook` (Claude Code's UserPromptSubmit hook) the query is the `prompt` of the hook's
 * JSON payload on stdin and the project is resolved from its `cwd`; it finishes within the
 * hooks' hard deadline and exits 0 whatever happens. When the service is down or slow, a
 * note goes to stderr and nothing to stdout (the bootstrap already told the agent at session
 * start), so that each prompt does not carry the same warning. A service that is starting
 * is waited for, up to {@link RECALL_STARTING_WAIT_MS} more (the prompt waits too); one that
 * is down is not.
 *
 * What is injected: the search results (global memories plus the project's, as the search
 * API ranks them), leaving out `bootstrap` memories (already in the context since session
 * start), at most `--limit` (default 5) and within `--max-chars` characters (default 4000,
 * header included), whose confidence (how likely the memory is about the prompt, 0..1, one
 * meaning for any project and prompt: src/memory/confidence.ts) is at least
 * `--min-confidence` (default {@link DEFAULT_MIN_CONFIDENCE}, chosen on the LoCoMo dev split
 * with `deno task bench:recall`), and scoring at least `--min-score` (default
 * {@link DEFAULT_MIN_SCORE}, a safety net on the ranking score). The search API returns its
 * top results even when they are not about the prompt; automatic recall must inject nothing
 * rather than noise. Nothing is printed when nothing passes.
 *
 * With `RECALL_JUDGE=on` (docs/recall.md, "After 0.22: a model's judgement at prompt time") the
 * hook's search asks the service's judge (`"judge": true`) and its deadline moves out by
 * `RECALL_JUDGE_TIMEOUT_MS`: when the model answered, the results it chose are injected (within
 * `--limit` and `--max-chars`, scoring at least `--min-score`), whatever their confidence; when
 * it did not (time-out, error, malformed answer, budget spent, no candidate, the judge off in the
 * service), the plain floor above applies.
 * @module
 */
import { MemoryError, refusesField } from "../../domain/errors.ts";
import type { SearchResult } from "../../memory/types.ts";
import { MAX_QUERY, MAX_SEARCH_LIMIT } from "../../memory/validate.ts";
import { intFlag, numberFlag, parseFlags, stringFlag } from "../args.ts";
import { UsageError } from "../../common/errors.ts";
import { DEFAULT_RECALL_JUDGE_TIMEOUT_MS } from "../../config.ts";
import { apiUrlOf, clientOf, configOf } from "../context.ts";
import { RECALL_STARTING_WAIT_MS, runHook, type StartingVerdict } from "../hook.ts";
import type { Io } from "../io.ts";
import { resolveProject } from "../project.ts";
import { COMMAND_USAGE } from "../usage.ts";

/** Default number of memories injected. */
export const DEFAULT_RECALL_LIMIT = 5;
/** Default character budget of the injected block. */
export const DEFAULT_RECALL_MAX_CHARS = 4000;
/** Default floor on the score of an injected memory. */
export const DEFAULT_MIN_SCORE = 0.1;
/**
 * Default floor on the confidence of an injected memory, chosen on the dev splits of the
 * paraphrase set and LoCoMo (docs/recall.md, "The floor, measured"): with the confidence of
 * 0.15 (which reads the dense cosine), 0.9 injects anything at all for about 5 % of everyday
 * prompts and 4 % of LoCoMo questions asked in another project, where 0.7 injected for 29 % and
 * 14 %: automatic recall stays quiet on prompts written without looking at the scorer. With
 * the confidence of 0.18 (refitted on five sets), 0.9 is the lowest floor at which, each set
 * held out, everyday paraphrase prompts get anything at most 5 % of the time (docs/recall.md,
 * "0.18: the gate with the category and jargon words").
 */
export const DEFAULT_MIN_CONFIDENCE = 0.9;
/** Per-request timeout without `--hook`. */
const RECALL_TIMEOUT_MS = 10_000;
/** Prompts shorter than this (after trimming) are not searched. */
const MIN_PROMPT = 3;

/** Options of the formatting. */
export interface RecallFormat {
  /** The project searched (null: global memories only). */
  project: string | null;
  /** At most this many memories. */
  limit: number;
  /** The whole block stays within this many characters. */
  maxChars: number;
  /** Results scoring below this are left out. */
  minScore: number;
  /** Results whose confidence is below this are left out. */
  minConfidence: number;
}

function header(project: string | null): string {
  return `## Relevant memories (Mneme${project ? `, project ${project}` : ""})\n\n`;
}
const FOOTER = "\nThese come from the user's persistent memory, found for this prompt. Pass an " +
  "id to `update`, `forget` or `supersedes` when a memory is outdated.\n";

function line(r: SearchResult): string {
  const m = r.memory;
  const where = m.scope === "project" ? `project ${m.project}` : "global";
  const content = m.content.trim().replace(/\s*\r?\n\s*/g, " ");
  return `- [${m.type}, ${where}, confidence ${
    (r.confidence ?? 0).toFixed(2)
  }, id ${m.id}] ${content}\n`;
}

/**
 * The block injected into the agent's context: the results that pass the filters (those the
 * judge chose, when the results carry `chosen`), each on one line with its id, in the order
 * given, within the budget (a memory that does not fit whole is shortened when it is the first,
 * else left out). Empty when none passes.
 */
export function formatRecall(results: SearchResult[], f: RecallFormat): string {
  // The judge answered (every result carries `chosen`): what it chose, whatever the confidence.
  const judged = results.some((r) => r.chosen !== undefined);
  // A result without a confidence (a service older than 0.7) is not known to be relevant.
  const kept = results.filter((r) =>
    r.memory.type !== "bootstrap" && r.score >= f.minScore &&
    (judged ? r.chosen === true : (r.confidence ?? 0) >= f.minConfidence)
  );
  const head = header(f.project);
  let body = "";
  let n = 0;
  for (const r of kept) {
    if (n >= f.limit) break;
    let l = line(r);
    const room = f.maxChars - head.length - FOOTER.length - body.length;
    if (l.length > room) {
      if (n > 0 || room < 80) break;
      l = l.slice(0, room - 2) + "…\n";
    }
    body += l;
    n++;
  }
  return n ? head + body + FOOTER : "";
}

/**
 * How many results recall asks the search for: a few more than it may inject, since
 * bootstrap memories and results below the floors are dropped here.
 */
export function recallSearchLimit(limit: number): number {
  return Math.min(MAX_SEARCH_LIMIT, limit * 2 + 5);
}

/** Search and format; the query is cut to the API's maximum length. */
async function recallText(
  io: Io,
  query: string,
  dir: string,
  flag: string | undefined,
  f: Omit<RecallFormat, "project">,
  timeoutMs: () => number,
  starting?: (err: unknown, url: string) => Promise<StartingVerdict>,
  extend?: (ms: number) => void,
): Promise<string> {
  const resolved = await resolveProject(dir, flag);
  for (const w of resolved.warnings) io.err(`memcli recall: ${w}\n`);
  const cfg = configOf(io);
  const { url } = await apiUrlOf(io, cfg);
  // The hook asks the judge: its deadline covers the judge's time budget too.
  let judge = extend !== undefined && cfg.recallJudge === true;
  // The budget goes with the search: the service waits at most the smaller of its own and this.
  const budgetMs = cfg.recallJudgeTimeoutMs ?? DEFAULT_RECALL_JUDGE_TIMEOUT_MS;
  let sendBudget = judge;
  if (judge) extend!(budgetMs);
  for (;;) {
    try {
      const results = await clientOf(cfg, url, timeoutMs()).search({
        query: query.slice(0, MAX_QUERY),
        ...(resolved.project ? { project: resolved.project } : {}),
        limit: recallSearchLimit(f.limit),
        ...(judge ? { judge: true } : {}),
        ...(judge && sendBudget ? { judge_timeout_ms: budgetMs } : {}),
      });
      return formatRecall(results, { ...f, project: resolved.project });
    } catch (err) {
      // A service older than the judge (0.22) refuses the field it does not know: ask again
      // without it, once, within the same deadline (the plain floor applies).
      if (judge && refusesField(err, "judge")) {
        judge = false;
        continue;
      }
      // One that knows `judge` but not its budget (0.23): ask again without the budget.
      if (sendBudget && refusesField(err, "judge_timeout_ms")) {
        sendBudget = false;
        continue;
      }
      const verdict = starting ? await starting(err, url) : "fail";
      if (verdict === "retry") continue;
      if (verdict === "starting") {
        throw new Error(`the memory service at ${url} is still starting`, { cause: err });
      }
      throw err;
    }
  }
}

/** Run `memcli recall`. */
export async function recall(args: string[], io: Io): Promise<number> {
  const startedAt = performance.now();
  const p = parseFlags("recall", args, {
    project: { type: "string" },
    limit: { type: "string" },
    "max-chars": { type: "string" },
    "min-score": { type: "string" },
    "min-confidence": { type: "string" },
    hook: { type: "boolean" },
    deadline: { type: "string" },
  }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.recall);
    return 0;
  }
  const flag = stringFlag("recall", "project", p.values.project);
  const f = {
    limit: intFlag("recall", "limit", p.values.limit, 1, MAX_SEARCH_LIMIT) ??
      DEFAULT_RECALL_LIMIT,
    maxChars: intFlag("recall", "max-chars", p.values["max-chars"], 200, 100_000) ??
      DEFAULT_RECALL_MAX_CHARS,
    minScore: numberFlag("recall", "min-score", p.values["min-score"], 0, 10) ?? DEFAULT_MIN_SCORE,
    minConfidence: numberFlag("recall", "min-confidence", p.values["min-confidence"], 0, 1) ??
      DEFAULT_MIN_CONFIDENCE,
  };
  if (!p.values.hook) {
    const query = p.positionals.join(" ").trim();
    if (!query) throw new UsageError("a query is required (or --hook)", "recall");
    const text = await recallText(io, query, io.cwd(), flag, f, () => RECALL_TIMEOUT_MS);
    if (text) io.out(text);
    else io.err("memcli recall: nothing relevant found\n");
    return 0;
  }
  if (p.positionals.length) {
    throw new UsageError("with --hook the query comes from stdin; no QUERY argument", "recall");
  }

  try {
    const res = await runHook(
      io,
      "recall",
      p.values.deadline,
      startedAt,
      RECALL_STARTING_WAIT_MS,
      (payload, left, starting, extend) => {
        const prompt = payload.prompt?.trim() ?? "";
        // Nothing to search for: no prompt, a very short one, or a slash command.
        if (prompt.length < MIN_PROMPT || prompt.startsWith("/")) return Promise.resolve("");
        return recallText(io, prompt, payload.cwd ?? io.cwd(), flag, f, left, starting, extend);
      },
    );
    if (res.timedOut) {
      io.err(`memcli recall: the memory service did not answer within ${res.deadlineMs} ms\n`);
    } else if (res.value) {
      io.out(res.value);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // A 503 the client made (no connection: no body) or one the service answered (its
    // database or embedder unavailable, said in the answer).
    const msg = err instanceof MemoryError && err.status === 503
      ? err.body === undefined
        ? "the memory service is not reachable (start it with 'memcli start')"
        : `the memory service answered 503: ${err.message}`
      : err instanceof Error
      ? err.message
      : String(err);
    io.err(`memcli recall: ${msg}; nothing recalled\n`);
  }
  return 0;
}
