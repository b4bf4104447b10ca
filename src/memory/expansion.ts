/**
 * Memories expanded at write time by a model (doc2query; `MEMORY_EXPANSION`, docs/recall.md
 * "0.20"): a background worker of the admin daemon, never in a write's path. After start and
 * after writes it takes the memories without an expansion (current, not superseded; capture's
 * proposals live in their own table and are never taken), {@link EXPANSION_BATCH} a call, and
 * asks the model configured for capture for short phrases in which a developer might ask for
 * each, with the instruction in src/memory/expansion_prompt.md. The answer is validated
 * strictly ({@link parseExpansions}: malformed entries dropped, never repaired; phrases capped
 * in number and length; a phrase the secret guard flags dropped); what is sent went through the
 * secret guard too. Each expansion is written with the memory's re-encoded index in one
 * transaction, only while its content is the one the model read ({@link ExpansionTarget}).
 *
 * The model call is a plain function ({@link ExpansionCall}, the shape of capture's
 * `ModelCall`): the daemon passes capture's configured client (src/admin/server.ts), so this
 * core module imports no feature. A daily token budget (UTC, kept in the database) is checked
 * before each call with an upper estimate and charged from the answer's usage; past it the
 * worker waits for the next day. A call that fails or times out backs off (30 s doubling to
 * 30 min); nothing else waits for it.
 * @module
 */
import PROMPT from "./expansion_prompt.md" with { type: "text" };
import { redactSecrets } from "../domain/secrets.ts";
import { describeError } from "../common/errors.ts";
import type { ExpansionWait } from "./types.ts";

/** The instruction sent with every call (src/memory/expansion_prompt.md). */
export const EXPANSION_PROMPT: string = PROMPT;

/** Memories per call: the instruction's ≈ 420 tokens are shared by them. */
export const EXPANSION_BATCH = 5;
/** Most phrases kept per memory. */
export const MAX_PHRASES = 10;
/** Longest phrase kept, in characters. */
export const MAX_PHRASE_CHARS = 120;
/** Most words of a phrase kept. */
export const MAX_PHRASE_WORDS = 16;
/** Output cap of one memory's phrases: about 60 tokens, with room. */
export const EXPANSION_OUTPUT_TOKENS_PER_MEMORY = 200;
/** Output cap of a full call. */
export const EXPANSION_MAX_OUTPUT_TOKENS = EXPANSION_OUTPUT_TOKENS_PER_MEMORY * EXPANSION_BATCH;
/** Default daily token budget of the worker (`EXPANSION_DAILY_TOKENS`, src/config.ts). */
export { DEFAULT_EXPANSION_DAILY_TOKENS } from "../config.ts";
/** How long one call may take (ms). */
export const EXPANSION_TIMEOUT_MS = 60_000;
/** The first and the longest wait after a failed call (ms). */
export const EXPANSION_BACKOFF_MS = { first: 30_000, max: 30 * 60_000 };
/** How long after a write the worker looks for memories to expand (ms). */
export const EXPANSION_AFTER_WRITE_MS = 2_000;

/** One model call's answer (capture's `ModelAnswer`). */
export interface ExpansionAnswer {
  text: string;
  inputTokens: number;
  outputTokens: number;
}

/** A model call: system prompt, user message, output cap, abort signal (capture's `ModelCall`). */
export type ExpansionCall = (
  system: string,
  user: string,
  maxTokens: number,
  signal?: AbortSignal,
) => Promise<ExpansionAnswer>;

/** A memory waiting, as the model reads it. */
export interface PendingMemory {
  id: string;
  content: string;
  type: string;
  scope: string;
}

/** What the worker needs of the service (SqlMemoryService). */
export interface ExpansionTarget {
  /** Up to `limit` memories waiting, newest first, but the ids in `skip`. */
  expansionPending(limit: number, skip: readonly string[]): Promise<PendingMemory[]>;
  /**
   * Write expansions with the memories' index re-encoded from `content + "\n" + expansion`,
   * each only while the memory still has `content`; the ids written.
   */
  storeExpansions(
    items: { id: string; content: string; expansion: string; model: string }[],
  ): Promise<string[]>;
  /** Add tokens spent on `day`. */
  chargeExpansionTokens(day: string, tokens: number): Promise<void>;
  /** Tokens spent on `day`. */
  expansionTokensOn(day: string): Promise<number>;
  /**
   * Take or renew, for `ms`, the lease that lets one worker at a time expand the memories of a
   * database (two daemons on one server Postgres would otherwise pay twice for the same
   * memories); false while another worker holds it. Absent: no other worker can exist.
   */
  lease?(holder: string, ms: number): Promise<boolean>;
  /** Give the lease back. */
  release?(holder: string): Promise<void>;
  /**
   * Throws when expansions cannot be written now (the stored vectors belong to another
   * embedder): checked before each model call, so no token is spent on phrases thrown away.
   */
  assertWritable?(): Promise<void>;
}

/**
 * The phrases of each memory in a model's answer, by the ids sent: JSON (a fenced block is
 * accepted) `{"expansions": [{"id", "phrases": [...]}]}`. An entry is dropped whole when its id
 * is not one sent (or repeats one), `phrases` is not an array, or no phrase is left; a phrase is
 * dropped when it is not a string, is empty, longer than {@link MAX_PHRASE_CHARS} characters or
 * {@link MAX_PHRASE_WORDS} words, or holds a secret; at most {@link MAX_PHRASES} are kept.
 * White space is collapsed and `;` (the separator of the stored expansion) becomes `,`.
 */
export async function parseExpansions(
  text: string,
  ids: readonly string[],
): Promise<{ phrases: Map<string, string[]>; dropped: number }> {
  const body = text.trim().replace(/^```(?:json)?\s*/i, "").replace(/```\s*$/, "");
  const phrases = new Map<string, string[]>();
  let j: unknown;
  try {
    j = JSON.parse(body);
  } catch {
    return { phrases, dropped: ids.length };
  }
  const items = (j as { expansions?: unknown })?.expansions;
  if (!Array.isArray(items)) return { phrases, dropped: ids.length };
  for (const it of items) {
    const o = it as Record<string, unknown> | null;
    if (!o || typeof o !== "object" || typeof o.id !== "string") continue;
    if (!ids.includes(o.id) || phrases.has(o.id) || !Array.isArray(o.phrases)) continue;
    const kept: string[] = [];
    for (const p of o.phrases) {
      if (kept.length >= MAX_PHRASES) break;
      if (typeof p !== "string") continue;
      // deno-lint-ignore no-control-regex
      const s = p.replace(/[\u0000-\u001f\u007f]/g, " ").replace(/;/g, ",").replace(/\s+/g, " ")
        .trim();
      if (!s || s.length > MAX_PHRASE_CHARS || s.split(" ").length > MAX_PHRASE_WORDS) continue;
      if ((await redactSecrets(s)).findings.length) continue;
      kept.push(s);
    }
    if (kept.length) phrases.set(o.id, kept);
  }
  return { phrases, dropped: ids.length - phrases.size };
}

/** The user message of a call: the memories as JSON, secrets replaced by markers. */
export async function expansionRequest(
  memories: readonly PendingMemory[],
): Promise<{ text: string; ids: string[] }> {
  const ids = memories.map((_, i) => `m${i + 1}`);
  const list = [];
  for (const [i, m] of memories.entries()) {
    list.push({
      id: ids[i],
      type: m.type,
      scope: m.scope,
      content: (await redactSecrets(m.content)).text,
    });
  }
  return { text: JSON.stringify({ memories: list }), ids };
}

/**
 * The upper estimate of one call's tokens: the instruction and the request at 3 characters a
 * token, and the output cap of `memories` memories.
 */
export function expansionEstimate(request: string, memories: number): number {
  return Math.ceil((EXPANSION_PROMPT.length + request.length) / 3) +
    EXPANSION_OUTPUT_TOKENS_PER_MEMORY * memories;
}

/** What the worker did, for the status. */
export interface ExpansionReport {
  /** The model that writes expansions. */
  model: string;
  /** The UTC day the tokens count. */
  day: string;
  /** Tokens spent today (the database's count). */
  tokens_today: number;
  /** The daily budget. */
  daily_tokens: number;
  /** Calls made by this process, and answers (memories) dropped as malformed. */
  calls: number;
  dropped: number;
  /** Why the worker waits, when it does: `budget` (until the next day), `backoff`, or `lease` (another daemon's worker is expanding). */
  waiting_for?: ExpansionWait;
  /** The last failed call's reason (never a key). */
  last_error?: string;
}

/** Options of {@link ExpansionWorker}. */
export interface ExpansionWorkerOptions {
  target: ExpansionTarget;
  call: ExpansionCall;
  /** The model's name, recorded with each expansion. */
  model: string;
  dailyTokens: number;
  log?: (line: string) => void;
  /** Clock (ms). */
  now?: () => number;
  batch?: number;
  timeoutMs?: number;
  backoffMs?: { first: number; max: number };
  afterWriteMs?: number;
  /**
   * How long the lease lasts from each renewal (ms; default three times `timeoutMs`). It is
   * renewed at the top of each batch and, while a batch runs, every third of it (a heartbeat).
   */
  leaseMs?: number;
}

/** The background worker: one run at a time, started after start and after writes. */
export class ExpansionWorker {
  readonly #o: Required<Omit<ExpansionWorkerOptions, "log" | "now" | "leaseMs">>;
  readonly #leaseFor: number | undefined;
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  /** Memories whose answer was dropped: not asked again by this process. */
  readonly #skip = new Set<string>();
  #running: Promise<void> | null = null;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #backoff = 0;
  #waitingFor: ExpansionWait | undefined;
  /** This worker's name in the lease, and whether it holds it. */
  readonly #holder = crypto.randomUUID();
  #leased = false;
  #lastError: string | undefined;
  #calls = 0;
  #dropped = 0;
  #tokensToday = 0;
  #day = "";
  #abort = new AbortController();

  /** A worker over `o.target` with `o.call`. */
  constructor(o: ExpansionWorkerOptions) {
    this.#o = {
      batch: EXPANSION_BATCH,
      timeoutMs: EXPANSION_TIMEOUT_MS,
      backoffMs: EXPANSION_BACKOFF_MS,
      afterWriteMs: EXPANSION_AFTER_WRITE_MS,
      ...o,
    } as Required<Omit<ExpansionWorkerOptions, "log" | "now" | "leaseMs">>;
    this.#leaseFor = o.leaseMs;
    this.#log = o.log ?? (() => {});
    this.#now = o.now ?? Date.now;
  }

  /**
   * How long the lease lasts from each renewal: three times a call's time-out by default, so
   * that a dead daemon's runs out in minutes. A batch may outlive it (a slow embedder after
   * the call, a process stalled): the heartbeat ({@link #heartbeat}) renews it meanwhile.
   */
  #leaseMs(): number {
    return this.#leaseFor ?? 3 * this.#o.timeoutMs;
  }

  /**
   * Renew the lease every third of its length while a batch runs; when a renewal is refused
   * (the lease ran out and another daemon's worker took it: this process stalled, or could not
   * reach the database for that long), `lost` turns true and `onLost` runs (the call in
   * progress is aborted). A renewal that fails (the database unreachable) is tried again at
   * the next beat: the lease runs until it is refused.
   */
  #heartbeat(onLost: () => void): { stop(): void; readonly lost: boolean } {
    let lost = false;
    let pending = false;
    const lease = this.#o.target.lease;
    const timer = lease
      ? setInterval(() => {
        if (pending || lost || this.#closed) return;
        pending = true;
        lease(this.#holder, this.#leaseMs()).then((ok) => {
          if (ok || lost) return;
          lost = true;
          this.#leased = false;
          onLost();
        }, () => {}).finally(() => pending = false);
      }, Math.max(1, Math.round(this.#leaseMs() / 3)))
      : undefined;
    return {
      stop: () => clearInterval(timer),
      get lost() {
        return lost;
      },
    };
  }

  /** The lease was lost during a batch: nothing more is done; the worker waits for it again. */
  #leaseLost(): void {
    this.#log(
      "expansion: the lease ran out during a call and another daemon's worker took it; " +
        "this one stops (nothing written) and waits for it",
    );
    this.#waitingFor = "lease";
    this.#schedule(Math.round(this.#leaseMs() / 3));
  }

  #today(): string {
    return new Date(this.#now()).toISOString().slice(0, 10);
  }

  /** A run now (after start). */
  start(): void {
    this.#schedule(0);
  }

  /**
   * A memory was written: a run soon, unless the worker waits for its budget or back-off, or a
   * run is armed already (steady writes do not postpone it).
   */
  written(): void {
    if (this.#waitingFor || this.#timer !== undefined) return;
    this.#schedule(this.#o.afterWriteMs);
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.run();
    }, ms);
  }

  /** Run until nothing waits (or the budget, or a failure, stops it); one run at a time. */
  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          try {
            do {
              this.#again = false;
              await this.#drain();
            } while (this.#again && !this.#closed && !this.#waitingFor);
          } catch (err) {
            this.#fail(`expansion: ${describeError(err)}`);
          } finally {
            // Whatever stopped the run (nothing waits, the budget, a failure, close), the lease
            // is given back: another daemon's worker need not wait for it to run out.
            if (this.#leased) {
              this.#leased = false;
              await this.#o.target.release?.(this.#holder).catch(() => {});
            }
          }
          // A run asked for while the lease was given back (a write's timer) joined this one:
          // it goes on rather than being lost.
        } while (this.#again && !this.#closed && !this.#waitingFor);
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }

  async #drain(): Promise<void> {
    while (!this.#closed) {
      const day = this.#today();
      if (day !== this.#day) {
        this.#day = day;
        this.#tokensToday = 0;
      }
      if (this.#o.target.lease) {
        if (!await this.#o.target.lease(this.#holder, this.#leaseMs())) {
          if (this.#waitingFor !== "lease") {
            this.#log(
              "expansion: another daemon's worker is expanding the memories of this database; " +
                "this one waits for it",
            );
          }
          this.#waitingFor = "lease";
          this.#schedule(Math.round(this.#leaseMs() / 3));
          return;
        }
        this.#leased = true;
        if (this.#waitingFor === "lease") this.#waitingFor = undefined;
      }
      this.#tokensToday = Math.max(
        this.#tokensToday,
        await this.#o.target.expansionTokensOn(day),
      );
      const pending = await this.#o.target.expansionPending(this.#o.batch, [...this.#skip]);
      if (!pending.length) {
        this.#waitingFor = undefined;
        return;
      }
      // The batch is what fits in what is left of the budget, in order: a memory too large for
      // it waits (for the next day) without holding the smaller ones behind it.
      let batch: PendingMemory[] = [];
      let req = { text: "", ids: [] as string[] };
      for (const m of pending) {
        const next = await expansionRequest([...batch, m]);
        if (
          this.#tokensToday + expansionEstimate(next.text, batch.length + 1) > this.#o.dailyTokens
        ) {
          continue;
        }
        batch = [...batch, m];
        req = next;
      }
      const { text, ids } = req;
      const maxOutput = EXPANSION_OUTPUT_TOKENS_PER_MEMORY * batch.length;
      if (!batch.length) {
        if (this.#waitingFor !== "budget") {
          this.#log(
            `expansion: the daily budget of ${this.#o.dailyTokens} tokens is spent ` +
              `(${this.#tokensToday} today); the memories left wait for the next day (UTC)`,
          );
        }
        this.#waitingFor = "budget";
        const next = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
        // Timers are capped (a sleeping laptop's clock jumps): look again within the hour.
        this.#schedule(Math.min(Math.max(next - this.#now(), 1000), 3_600_000));
        return;
      }
      // Vectors of another embedder: nothing could be written, so no call is made (a failure,
      // backed off, until the re-embedding is done).
      await this.#o.target.assertWritable?.();
      // Aborted after the time-out, at close, or when the lease is lost; raced against them
      // too, for a client that ignores the signal (the subscription's): close() returns at once.
      const ac = new AbortController();
      const beat = this.#heartbeat(() => ac.abort());
      try {
        if (!await this.#batch(batch, text, ids, maxOutput, day, ac, beat)) return;
      } finally {
        beat.stop();
      }
    }
  }

  /**
   * One batch: the call, its tokens charged, the answers written. False when the run stops
   * (the call failed, the worker closed, or the lease was lost).
   */
  async #batch(
    batch: PendingMemory[],
    text: string,
    ids: string[],
    maxOutput: number,
    day: string,
    ac: AbortController,
    beat: { readonly lost: boolean },
  ): Promise<boolean> {
    let answer: ExpansionAnswer;
    const onClose = () => ac.abort();
    this.#abort.signal.addEventListener("abort", onClose);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    try {
      answer = await Promise.race([
        this.#o.call(EXPANSION_PROMPT, text, maxOutput, ac.signal),
        new Promise<never>((_, reject) => {
          if (ac.signal.aborted) reject(new Error("closed"));
          ac.signal.addEventListener("abort", () => reject(new Error("closed")), {
            once: true,
          });
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            timedOut = true;
            ac.abort();
            reject(new Error(`no answer within ${this.#o.timeoutMs / 1000} s`));
          }, this.#o.timeoutMs);
        }),
      ]);
    } catch (err) {
      if (this.#closed) return false;
      if (beat.lost) {
        this.#leaseLost();
        return false;
      }
      this.#fail(
        `expansion: the model call failed: ${
          timedOut ? `no answer within ${this.#o.timeoutMs / 1000} s` : describeError(err)
        }`,
      );
      return false;
    } finally {
      clearTimeout(timer);
      this.#abort.signal.removeEventListener("abort", onClose);
    }
    this.#calls++;
    this.#backoff = 0;
    this.#waitingFor = undefined;
    this.#lastError = undefined;
    const used = answer.inputTokens + answer.outputTokens;
    this.#tokensToday += used;
    await this.#o.target.chargeExpansionTokens(day, used);
    const { phrases, dropped } = await parseExpansions(answer.text, ids);
    const writes = [];
    for (const [i, m] of batch.entries()) {
      const p = phrases.get(ids[i]);
      if (p) {
        writes.push({
          id: m.id,
          content: m.content,
          expansion: p.join("; "),
          model: this.#o.model,
        });
      } else this.#skip.add(m.id);
    }
    if (dropped) {
      this.#dropped += dropped;
      this.#log(
        `expansion: ${dropped} of ${batch.length} answers were malformed and dropped ` +
          "(those memories are asked again after a restart)",
      );
    }
    // The lease lost meanwhile (after the answer): nothing is written, the worker that holds
    // it now expands these memories (the tokens are charged: they were spent).
    if (beat.lost) {
      this.#leaseLost();
      return false;
    }
    // A memory whose content changed meanwhile is not written: it waits again (its update
    // cleared the expansion), and the next pass takes it with its new content.
    await this.#o.target.storeExpansions(writes);
    return true;
  }

  #fail(line: string): void {
    this.#lastError = line.replace(/^expansion: /, "");
    this.#backoff = this.#backoff
      ? Math.min(this.#backoff * 2, this.#o.backoffMs.max)
      : this.#o.backoffMs.first;
    this.#waitingFor = "backoff";
    this.#log(`${line}; trying again in ${Math.round(this.#backoff / 1000)} s`);
    // After the back-off, a run clears the wait itself when the call succeeds.
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.run();
    }, this.#backoff);
  }

  /** What the worker did, for the status. */
  report(): ExpansionReport {
    const day = this.#today();
    return {
      model: this.#o.model,
      day,
      tokens_today: day === this.#day ? this.#tokensToday : 0,
      daily_tokens: this.#o.dailyTokens,
      calls: this.#calls,
      dropped: this.#dropped,
      ...(this.#waitingFor ? { waiting_for: this.#waitingFor } : {}),
      ...(this.#lastError ? { last_error: this.#lastError } : {}),
    };
  }

  /** Whether a run is going on or due (tests and benchmarks wait for it to be idle). */
  get busy(): boolean {
    return this.#running !== null;
  }

  /** Stop: no new run, the call in progress aborted. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#running?.catch(() => {});
  }
}
