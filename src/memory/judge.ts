/**
 * A model's judgement of the prompt hook's candidates (docs/recall.md, "0.22 as shipped": what
 * is next after the expansion): given the developer's message and the few memories the hook's
 * search found above a low floor, which of them the agent should be shown. This module holds the
 * request as the product sends it ({@link renderJudgeRequest}, with the instruction in
 * src/memory/judge_prompt.md) and the strict reading of the answer ({@link parseJudgeAnswer}).
 * The model call itself is passed in by the daemon, as the expansion's is, so this core module
 * imports no feature.
 *
 * Wired since phase 2 (`RECALL_JUDGE`, default off): {@link judgePool} is the pool the product
 * and tasks/judge_probe.ts share, {@link RecallJudge} the admin daemon's judge (its time budget,
 * daily token budget and the reasons it fell back), and {@link judgeResults} what the Admin
 * API's search does with `"judge": true`: the results marked `chosen` when the model answered,
 * unmarked (the hook's plain floor applies) when it did not. {@link rerankResults} is what it
 * does with `"rerank": true` (the agent's own search, the MCP `recall` tool): the model's choice
 * among the first {@link JUDGE_RERANK_POOL} results moved first.
 * @module
 */
import PROMPT from "./judge_prompt.md" with { type: "text" };
import { findSecretsSync, replaceSecrets } from "../domain/secrets.ts";
import { MAX_PROJECT } from "../domain/memory.ts";
import { describeError } from "../common/errors.ts";
import { DEFAULT_RECALL_JUDGE_POOL, DEFAULT_RECALL_JUDGE_POOL_FLOOR } from "../config.ts";
import type { SearchResult } from "./types.ts";

/** The instruction sent with every call (src/memory/judge_prompt.md). */
export const JUDGE_PROMPT: string = PROMPT;

/**
 * Most candidates in one request: the union of two pools of 10 (tasks/judge_probe.ts's wide
 * requests, plain and expanded store); the product asks about one pool ({@link judgePool}).
 */
export const JUDGE_MAX_CANDIDATES = 20;
/** Longest message sent, in characters (a longer one is cut, marked with "…"). */
export const JUDGE_MAX_PROMPT_CHARS = 2000;
/** Longest candidate content sent, in characters (a longer one is cut, marked with "…"). */
export const JUDGE_MAX_NOTE_CHARS = 1200;
/** Output cap of one call: `{"use": [...]}` with the numbers of a pool, with room. */
export const JUDGE_MAX_OUTPUT_TOKENS = 60;

/** A candidate memory as the model reads it. */
export interface JudgeCandidate {
  type: string;
  content: string;
}

/** What is sent: the system text and the user text. */
export interface JudgeRequest {
  system: string;
  user: string;
}

/** `text` with secrets replaced by markers, cut to `max` characters. */
function clean(text: string, max: number): string {
  const t = replaceSecrets(text, findSecretsSync(text)).trim();
  return t.length > max ? t.slice(0, max - 1).trimEnd() + "…" : t;
}

/**
 * The request for `prompt` (the developer's message) in `project` (null: none resolved) over
 * `candidates`, numbered 1..n in the order given, each on one line with its type; secrets in the
 * project, the message and the contents are replaced by markers, and each is cut to its limit (a
 * blank project is none). Throws a
 * RangeError when there is no candidate or more than {@link JUDGE_MAX_CANDIDATES}, or when the
 * message is empty.
 */
export function renderJudgeRequest(
  prompt: string,
  project: string | null,
  candidates: readonly JudgeCandidate[],
): JudgeRequest {
  if (!candidates.length) throw new RangeError("candidates: none to judge");
  if (candidates.length > JUDGE_MAX_CANDIDATES) {
    throw new RangeError(
      `candidates: ${candidates.length}, at most ${JUDGE_MAX_CANDIDATES} are judged at once`,
    );
  }
  const message = clean(prompt, JUDGE_MAX_PROMPT_CHARS);
  if (!message) throw new RangeError("prompt: empty");
  const notes = candidates.map((c, i) => {
    const type = c.type.replace(/[^a-z_-]/gi, "") || "note";
    const content = clean(c.content.replace(/\s+/g, " "), JUDGE_MAX_NOTE_CHARS);
    return `${i + 1}. [${type}] ${content}`;
  });
  // The project as the notes: secrets replaced, on one line; blank is none.
  const named = clean((project ?? "").replace(/\s+/g, " "), MAX_PROJECT);
  const user = `Project: ${named || "(none)"}\n\n<message>\n${message}\n</message>\n\n` +
    `<notes>\n${notes.join("\n")}\n</notes>\n`;
  return { system: JUDGE_PROMPT, user };
}

/** An answer that is not a judgement; the message names what was wrong. */
export class JudgeAnswerError extends Error {
  override name = "JudgeAnswerError";
}

/**
 * The candidates chosen in a model's answer to a request of `n` candidates: their indices
 * (0-based, ascending) in the list given to {@link renderJudgeRequest}. The answer must be the
 * JSON object `{"use": [numbers]}` (alone, or alone in one fenced block) with no other key, each
 * number an integer in 1..n, none repeated; `{"use": []}` chooses none. Anything else throws a
 * {@link JudgeAnswerError} naming what was wrong: a malformed answer is no judgement (the caller
 * falls back to its floor), never a choice of all.
 */
export function parseJudgeAnswer(text: string, n: number): number[] {
  if (!Number.isInteger(n) || n < 1 || n > JUDGE_MAX_CANDIDATES) {
    throw new RangeError(`n: ${n}, expected an integer in 1..${JUDGE_MAX_CANDIDATES}`);
  }
  const fenced = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/i.exec(text.trim());
  const body = (fenced ? fenced[1] : text).trim();
  if (!body) throw new JudgeAnswerError("the answer is empty");
  let j: unknown;
  try {
    j = JSON.parse(body);
  } catch {
    throw new JudgeAnswerError(`the answer is not JSON: ${JSON.stringify(body.slice(0, 80))}`);
  }
  if (typeof j !== "object" || j === null || Array.isArray(j)) {
    throw new JudgeAnswerError('the answer is not a JSON object {"use": [...]}');
  }
  const extra = Object.keys(j).filter((k) => k !== "use");
  if (extra.length) {
    throw new JudgeAnswerError(`unknown key ${JSON.stringify(extra[0])} in the answer`);
  }
  const use = (j as { use?: unknown }).use;
  if (use === undefined) throw new JudgeAnswerError('the answer has no "use"');
  if (!Array.isArray(use)) throw new JudgeAnswerError('"use" is not a list of numbers');
  const seen = new Set<number>();
  for (const [i, x] of use.entries()) {
    if (typeof x !== "number" || !Number.isInteger(x)) {
      throw new JudgeAnswerError(`use[${i}]: ${JSON.stringify(x)} is not a whole number`);
    }
    if (x < 1 || x > n) throw new JudgeAnswerError(`use[${i}]: ${x} is not a note in 1..${n}`);
    if (seen.has(x)) throw new JudgeAnswerError(`use[${i}]: ${x} is named twice`);
    seen.add(x);
  }
  return [...seen].map((x) => x - 1).sort((a, b) => a - b);
}

/**
 * Results the pool looks at by default: the first 5 that are not bootstrap memories
 * (`RECALL_JUDGE_POOL`).
 */
export const JUDGE_POOL_SIZE: number = DEFAULT_RECALL_JUDGE_POOL;
/** The pool's floor on the ranking score (the hook's `--min-score` default). */
export const JUDGE_POOL_MIN_SCORE = 0.1;
/**
 * The pool's floor on the confidence by default (`RECALL_JUDGE_POOL_FLOOR`; below the hook's 0.9:
 * the judge sees what it would not).
 */
export const JUDGE_POOL_FLOOR: number = DEFAULT_RECALL_JUDGE_POOL_FLOOR;

/**
 * The pool of a rerank (`"rerank": true`, the agent's own search): the first 10 results that are
 * not bootstrap memories, those scoring ≥ {@link JUDGE_POOL_MIN_SCORE} whatever their confidence
 * (the Admin API searches past the bootstrap memories to fill it; tasks/judge_gate.ts: the recall
 * tool's hit@5 with expansion 0.844–0.916 on the seen sets, 0.771–0.868 without the judge).
 */
export const JUDGE_RERANK_POOL: Required<JudgePoolOptions> = { limit: 10, floor: 0 };

/** A pool's size and confidence floor (the product's: {@link JUDGE_POOL_SIZE}, {@link JUDGE_POOL_FLOOR}). */
export interface JudgePoolOptions {
  /** Results the pool looks at (not bootstrap): an integer in 1..{@link JUDGE_MAX_CANDIDATES}. */
  limit?: number;
  /** The floor on the confidence, in 0..1 (0: none). */
  floor?: number;
}

/** `o` checked, with the product's defaults; a RangeError names the field out of range. */
export function judgePoolOptions(o: JudgePoolOptions = {}): Required<JudgePoolOptions> {
  const limit = o.limit ?? JUDGE_POOL_SIZE;
  const floor = o.floor ?? JUDGE_POOL_FLOOR;
  if (!Number.isInteger(limit) || limit < 1 || limit > JUDGE_MAX_CANDIDATES) {
    throw new RangeError(`pool limit: ${limit}, expected an integer in 1..${JUDGE_MAX_CANDIDATES}`);
  }
  if (!(floor >= 0 && floor <= 1)) throw new RangeError(`pool floor: ${floor}, expected 0..1`);
  return { limit, floor };
}

/**
 * The candidates the judge is asked about, in rank order: of `results` (a search as the hook
 * makes it), the first `limit` ({@link JUDGE_POOL_SIZE}) that are not bootstrap memories, of
 * those the ones scoring at least {@link JUDGE_POOL_MIN_SCORE} with a confidence of at least
 * `floor` ({@link JUDGE_POOL_FLOOR}). The product (with the defaults) and tasks/judge_probe.ts
 * (`--pool-limit`, `--pool-floor`) both build it here.
 */
export function judgePool<R extends Pick<SearchResult, "memory" | "score" | "confidence">>(
  results: readonly R[],
  options: JudgePoolOptions = {},
): R[] {
  const { limit, floor } = judgePoolOptions(options);
  return results.filter((r) => r.memory.type !== "bootstrap").slice(0, limit)
    .filter((r) => r.score >= JUDGE_POOL_MIN_SCORE && (r.confidence ?? 0) >= floor);
}

/** One model call's answer (capture's `ModelAnswer`). */
export interface JudgeAnswer {
  text: string;
  inputTokens: number;
  outputTokens: number;
}

/** A model call: system prompt, user message, output cap, abort signal (capture's `ModelCall`). */
export type JudgeCall = (
  system: string,
  user: string,
  maxTokens: number,
  signal?: AbortSignal,
) => Promise<JudgeAnswer>;

/** The judge's daily token budget, kept in the database (SqlMemoryService.judgeBudget). */
export interface JudgeBudget {
  /**
   * Reserve `tokens` of `day` (YYYY-MM-DD, UTC) if the day stays within `limit`, atomically:
   * true when reserved.
   */
  reserveJudgeTokens(day: string, tokens: number, limit: number): Promise<boolean>;
  /** Add tokens spent on `day` (negative: give back part of a reservation). */
  chargeJudgeTokens(day: string, tokens: number): Promise<void>;
  /** Tokens spent on `day`. */
  judgeTokensOn(day: string): Promise<number>;
}

/**
 * Why a judgement did not apply (the hook's plain floor did): `empty`, no candidate in the pool
 * (no call); `budget`, the daily budget would be passed (no call); `timeout`, no answer within
 * the time budget; `error`, the call failed; `malformed`, the answer is no judgement
 * ({@link parseJudgeAnswer} threw).
 *
 * @example
 * ```ts
 * import { type JudgeFallback, MemoryClient } from "@mneme/mneme";
 * const stats = await new MemoryClient({ baseUrl: "http://127.0.0.1:4200" }).stats();
 * const timeouts: number = stats.judge?.fallbacks.timeout ?? 0;
 * const reason: JudgeFallback = "timeout";
 * console.log(`${reason}: ${timeouts}`);
 * ```
 */
export type JudgeFallback = "empty" | "budget" | "timeout" | "error" | "malformed";

/** What one judgement gave: the memories chosen, or why it fell back. */
export type JudgeOutcome =
  | { chosen: string[]; tokens: number }
  | { fallback: JudgeFallback; tokens: number };

/**
 * The judge's counts, for the status (`GET /api/stats` `judge`).
 *
 * @example
 * ```ts
 * import { type JudgeReport, MemoryClient } from "@mneme/mneme";
 * const stats = await new MemoryClient({ baseUrl: "http://127.0.0.1:4200" }).stats();
 * const judge: JudgeReport | undefined = stats.judge;
 * if (judge) console.log(`${judge.judged} of ${judge.asked} prompts judged today`);
 * ```
 */
export interface JudgeReport {
  /** Always true: the report exists only when the judge is on. */
  on: true;
  /** The model that judges (`provider/model`). */
  model: string;
  /** The time budget of one call (ms). */
  timeout_ms: number;
  /**
   * The pool offered to the model: the first `limit` results (`RECALL_JUDGE_POOL`), of them those
   * with a confidence ≥ `floor` (`RECALL_JUDGE_POOL_FLOOR`).
   */
  pool: { limit: number; floor: number };
  /** The UTC day the tokens count. */
  day: string;
  /** The tokens spent on that day (the database's count). */
  tokens_today: number;
  /** The daily budget (`RECALL_JUDGE_DAILY_TOKENS`). */
  daily_tokens: number;
  /** Requests with `judge` this process answered. */
  asked: number;
  /** Of them, the ones the model judged. */
  judged: number;
  /** Of `asked`, the searches with `rerank` (the agent's own search reordered). */
  reranks: number;
  /** The memories chosen in all. */
  chosen: number;
  /** The ones that fell back, by reason. */
  fallbacks: Record<JudgeFallback, number>;
  /** The last failed call's reason (never the prompt nor a key). */
  last_error?: string;
}

/** The upper estimate of one call's tokens: its text at 3 characters a token and the output cap. */
export function judgeEstimate(req: JudgeRequest): number {
  return Math.ceil((req.system.length + req.user.length) / 3) + JUDGE_MAX_OUTPUT_TOKENS;
}

/** Options of {@link RecallJudge}. */
export interface RecallJudgeOptions {
  call: JudgeCall;
  /** `provider/model`, for the status. */
  model: string;
  /** How long one call may take (ms; `RECALL_JUDGE_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Tokens per UTC day (`RECALL_JUDGE_DAILY_TOKENS`). */
  dailyTokens: number;
  budget: JudgeBudget;
  log?: (line: string) => void;
  /** Clock (ms). */
  now?: () => number;
  /**
   * The pool asked about (default {@link JUDGE_POOL_SIZE}, {@link JUDGE_POOL_FLOOR};
   * `RECALL_JUDGE_POOL`, `RECALL_JUDGE_POOL_FLOOR`; tasks/judge_probe.ts `--score --pool-*`).
   */
  pool?: JudgePoolOptions;
}

/** Failures are logged at most this often (ms): a model down must not write a line a prompt. */
const LOG_EVERY_MS = 60_000;

/**
 * The admin daemon's judge (`RECALL_JUDGE=on`): for a prompt and the hook's search results,
 * asks the model which of the pool's candidates the agent should be shown, within the time
 * budget and the daily token budget (each call's {@link judgeEstimate} reserved before it,
 * then set to the answer's usage; a call that timed out keeps its estimate). Never throws: a failure is a {@link JudgeFallback}, counted.
 * The prompt is never logged.
 */
export class RecallJudge {
  readonly #o: RecallJudgeOptions;
  readonly #pool: Required<JudgePoolOptions>;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  #asked = 0;
  #reranks = 0;
  #judged = 0;
  #chosen = 0;
  readonly #fallbacks: Record<JudgeFallback, number> = {
    empty: 0,
    budget: 0,
    timeout: 0,
    error: 0,
    malformed: 0,
  };
  #lastError: string | undefined;
  #loggedAt = -Infinity;
  #budgetDay = "";
  #chargeLogged = false;
  readonly #pending = new Set<Promise<void>>();
  readonly #abort = new AbortController();

  constructor(o: RecallJudgeOptions) {
    this.#pool = judgePoolOptions(o.pool);
    this.#o = o;
    this.#now = o.now ?? Date.now;
    this.#log = o.log ?? (() => {});
  }

  #today(): string {
    return new Date(this.#now()).toISOString().slice(0, 10);
  }

  #fail(reason: JudgeFallback, line: string, tokens = 0): JudgeOutcome {
    this.#fallbacks[reason]++;
    if (reason !== "empty" && reason !== "budget") this.#lastError = line;
    const now = this.#now();
    if (reason !== "empty" && reason !== "budget" && now - this.#loggedAt >= LOG_EVERY_MS) {
      this.#loggedAt = now;
      this.#log(`judge: ${line}; the hook's plain floor applies (logged once a minute)`);
    }
    return { fallback: reason, tokens };
  }

  /**
   * The judgement of `results` (a search for `prompt` in `project`, as the hook makes it): the
   * ids of the pool's memories the model chose, or why there is none. With `rerank` (the
   * agent's own search) the pool is {@link JUDGE_RERANK_POOL} instead of the hook's; the time
   * and token budgets are the same.
   */
  async judge(
    prompt: string,
    project: string | null,
    results: readonly SearchResult[],
    timeoutMs?: number,
    rerank = false,
  ): Promise<JudgeOutcome> {
    this.#asked++;
    if (rerank) this.#reranks++;
    // The asker's budget (the hook's, which its deadline covers) when smaller than the daemon's.
    const budgetMs = Math.min(this.#o.timeoutMs, timeoutMs ?? Infinity);
    const pool = judgePool(results, rerank ? JUDGE_RERANK_POOL : this.#pool);
    if (!pool.length) return this.#fail("empty", "no candidate");
    let req: JudgeRequest;
    try {
      req = renderJudgeRequest(
        prompt,
        project,
        pool.map((r) => ({ type: r.memory.type, content: r.memory.content })),
      );
    } catch (err) {
      return this.#fail("error", `the request could not be built: ${describeError(err)}`);
    }
    const day = this.#today();
    // One deadline for the reservation and the call: the database's time counts against it.
    const ac = new AbortController();
    const onClose = () => ac.abort();
    this.#abort.signal.addEventListener("abort", onClose);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    // Raced against the call too, for a client that ignores the signal (the subscription's).
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        ac.abort();
        reject(new Error("timeout"));
      }, budgetMs);
      ac.signal.addEventListener("abort", () => reject(new Error("closed")), { once: true });
    });
    expired.catch(() => {});
    try {
      // The call's upper estimate is reserved before it (atomically: two prompts at once cannot
      // both pass a budget that fits one), then set to the answer's usage.
      const estimate = judgeEstimate(req);
      const reservation = this.#o.budget.reserveJudgeTokens(day, estimate, this.#o.dailyTokens);
      let reserved: boolean;
      try {
        reserved = await Promise.race([reservation, expired]);
      } catch (err) {
        if (!ac.signal.aborted) {
          return this.#fail("error", `the budget could not be read: ${describeError(err)}`);
        }
        // Too late: a reservation made after all is given back.
        this.#track(reservation.then((r) => r && this.#charge(day, -estimate), () => {}));
        return timedOut
          ? this.#fail("timeout", `the budget could not be reserved within ${budgetMs} ms`)
          : this.#fail("error", "closed");
      }
      if (!reserved) {
        if (this.#budgetDay !== day) {
          this.#budgetDay = day;
          // Logged when read, never waited for.
          this.#o.budget.judgeTokensOn(day).catch(() => NaN).then((spent) =>
            this.#log(
              `judge: the daily budget of ${this.#o.dailyTokens} tokens is spent (${spent} ` +
                "today); the hook's plain floor applies until the next day (UTC)",
            )
          );
        }
        return this.#fail("budget", "the daily budget is spent");
      }
      let answer: JudgeAnswer;
      try {
        answer = await Promise.race([
          this.#o.call(req.system, req.user, JUDGE_MAX_OUTPUT_TOKENS, ac.signal),
          expired,
        ]);
      } catch (err) {
        // A call that timed out keeps its estimate (the model may have read it); one that failed
        // gives it back.
        if (timedOut) return this.#fail("timeout", `no answer within ${budgetMs} ms`);
        this.#charge(day, -estimate);
        return this.#fail("error", `the model call failed: ${describeError(err).slice(0, 200)}`);
      }
      const tokens = answer.inputTokens + answer.outputTokens;
      // The usage is corrected after the answer, not waited for.
      this.#charge(day, tokens - estimate);
      return this.#read(answer.text, pool, tokens);
    } finally {
      clearTimeout(timer);
      this.#abort.signal.removeEventListener("abort", onClose);
    }
  }

  /** The model's answer read: the chosen memories' ids, or a malformed answer's fallback. */
  #read(text: string, pool: readonly SearchResult[], tokens: number): JudgeOutcome {
    let picked: number[];
    try {
      picked = parseJudgeAnswer(text, pool.length);
    } catch (err) {
      return this.#fail("malformed", `a malformed answer: ${(err as Error).message}`, tokens);
    }
    this.#judged++;
    this.#chosen += picked.length;
    return { chosen: picked.map((i) => pool[i].memory.id), tokens };
  }

  /** The counts, with today's tokens from the database. */
  async report(): Promise<JudgeReport> {
    const day = this.#today();
    return {
      on: true,
      model: this.#o.model,
      timeout_ms: this.#o.timeoutMs,
      pool: { ...this.#pool },
      day,
      tokens_today: await this.#o.budget.judgeTokensOn(day).catch(() => 0),
      daily_tokens: this.#o.dailyTokens,
      asked: this.#asked,
      judged: this.#judged,
      reranks: this.#reranks,
      chosen: this.#chosen,
      fallbacks: { ...this.#fallbacks },
      ...(this.#lastError ? { last_error: this.#lastError } : {}),
    };
  }

  /**
   * Add `tokens` to `day`'s usage without waiting (a correction of a reservation): a failure is
   * logged once, never with the prompt; {@link settled} waits for the ones in flight.
   */
  #charge(day: string, tokens: number): void {
    if (tokens === 0) return;
    this.#track(
      this.#o.budget.chargeJudgeTokens(day, tokens).catch((err) => {
        if (this.#chargeLogged) return;
        this.#chargeLogged = true;
        this.#log(`judge: the usage could not be recorded: ${describeError(err)} (logged once)`);
      }),
    );
  }

  /** Keep `work` (which does not reject) in flight until it ends, for {@link settled}. */
  #track(work: Promise<unknown>): void {
    const p: Promise<void> = work.then(() => {}).finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  /** Wait for the usage corrections in flight (before the database closes). */
  async settled(): Promise<void> {
    while (this.#pending.size) await Promise.all([...this.#pending]);
  }

  /** Stop: a call in progress is aborted (its request falls back). */
  close(): void {
    this.#abort.abort();
  }
}

/**
 * A search's results after the judge: when the model judged, every result carries `chosen`
 * (true for the memories it chose); otherwise the results as they were (no `chosen`: the hook's
 * plain floor applies). What the Admin API answers a search with `"judge": true`, and what
 * tasks/judge_probe.ts `--score` measures.
 */
export async function judgeResults(
  judge: RecallJudge,
  prompt: string,
  project: string | null,
  results: SearchResult[],
  timeoutMs?: number,
): Promise<{ results: SearchResult[]; outcome: JudgeOutcome }> {
  const outcome = await judge.judge(prompt, project, results, timeoutMs);
  if (!("chosen" in outcome)) return { results, outcome };
  const chosen = new Set(outcome.chosen);
  return { results: results.map((r) => ({ ...r, chosen: chosen.has(r.memory.id) })), outcome };
}

/**
 * A search's results reordered by the judge (the Admin API's search with `"rerank": true`, for
 * the agent's own search): the model is asked about the first {@link JUDGE_RERANK_POOL} of
 * `results` (searched with a limit of at least its size) with `query` as the message; when it
 * answered, the memories it chose come first in their rank order, then the rest in theirs, each
 * marked `chosen`, cut to `limit`. When it did not (no candidate, the budget, the time, an error,
 * a malformed answer) the results in their plain order, cut to `limit`, unmarked.
 */
export async function rerankResults(
  judge: RecallJudge,
  query: string,
  project: string | null,
  results: SearchResult[],
  limit: number,
  timeoutMs?: number,
): Promise<{ results: SearchResult[]; outcome: JudgeOutcome }> {
  const outcome = await judge.judge(query, project, results, timeoutMs, true);
  if (!("chosen" in outcome)) return { results: results.slice(0, limit), outcome };
  const chosen = new Set(outcome.chosen);
  const marked = results.map((r) => ({ ...r, chosen: chosen.has(r.memory.id) }));
  return {
    results: [...marked.filter((r) => r.chosen), ...marked.filter((r) => !r.chosen)].slice(
      0,
      limit,
    ),
    outcome,
  };
}
