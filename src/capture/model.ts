/**
 * Capture with a model (opt-in): the new part of the transcript, secrets already replaced by
 * markers, goes to a model with the prompt in src/capture/prompt.md; the answer must be JSON
 * (`{"memories": [{text, type, scope, confidence, source, replaces?}]}`) and each item is
 * validated strictly (a malformed one is dropped, never repaired). After the transcript the
 * request lists the stored memories nearest the user's new messages (the sink's search, secrets
 * replaced too), each with a short id that an item names in `replaces` when it changes that
 * memory; an id not listed, or a proposal's, is dropped from the item. Providers:
 * - `subscription`: the user's Claude subscription through msgcli's own client (src/msg:
 *   its credentials file, lock and refresh, exactly as msgcli uses them);
 * - `anthropic`: the Messages API with an API key;
 * - `openai`: any OpenAI-compatible chat completions endpoint;
 * - `ollama`: a local Ollama (`/api/chat`).
 *
 * A {@link TokenBudget} per session and per day (UTC) is checked before each call with an
 * upper estimate (input characters / 3, the stored memories' section included, + the output
 * cap) and charged from the answer's usage
 * fields; a call that could exceed either budget is not made, and the offline extractor runs
 * instead.
 * @module
 */
import PROMPT from "./prompt.md" with { type: "text" };
import type { Candidate, CandidateType } from "./extract.ts";
import { CONFIRM, extractCandidates } from "./extract.ts";
import type { ExtractContext, Extractor, StoredMatch } from "./pipeline.ts";
import { redactSecrets } from "../domain/secrets.ts";
import type { Turn } from "./transcript.ts";
import type { MessagesClient } from "../msg/api.ts";

/** The prompt (src/capture/prompt.md). */
export const CAPTURE_PROMPT: string = PROMPT;

export {
  DEFAULT_DAILY_TOKENS,
  DEFAULT_SESSION_TOKENS,
  MODEL_PROVIDERS,
  type ModelProvider,
} from "./settings.ts";

/** One model call's answer. */
export interface ModelAnswer {
  /** The reply's text. */
  text: string;
  /** Input tokens, from the answer's usage. */
  inputTokens: number;
  /** Output tokens, from the answer's usage. */
  outputTokens: number;
}

/** Calls a model: system prompt, user message, output cap. */
export type ModelCall = (
  system: string,
  user: string,
  maxTokens: number,
  signal?: AbortSignal,
) => Promise<ModelAnswer>;

/** A model provider's error (HTTP status, a short reason; never a key). */
export class ModelError extends Error {
  /** The error. */
  constructor(message: string) {
    super(message);
    this.name = "ModelError";
  }
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

async function postJson(
  f: typeof fetch,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const res = await f(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  if (!res.ok) {
    throw new ModelError(`${new URL(url).pathname}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  try {
    const j = JSON.parse(text);
    if (j && typeof j === "object" && !Array.isArray(j)) return j;
  } catch { /* below */ }
  throw new ModelError(`${new URL(url).pathname}: the answer is not a JSON object`);
}

/** The Messages API with an API key (`x-api-key`). */
export function anthropicCall(
  o: { baseUrl: string; apiKey: string; model: string; fetch?: typeof fetch },
): ModelCall {
  const f = o.fetch ?? fetch;
  return async (system, user, maxTokens, signal) => {
    const j = await postJson(f, `${o.baseUrl.replace(/\/$/, "")}/v1/messages`, {
      "x-api-key": o.apiKey,
      "anthropic-version": "2023-06-01",
    }, {
      model: o.model,
      max_tokens: maxTokens,
      system,
      messages: [{ role: "user", content: user }],
    }, signal);
    return anthropicAnswer(j);
  };
}

function anthropicAnswer(j: Record<string, unknown>): ModelAnswer {
  const blocks = Array.isArray(j.content) ? j.content as Record<string, unknown>[] : [];
  const usage = (j.usage ?? {}) as Record<string, unknown>;
  return {
    text: blocks.filter((b) => b?.type === "text" && typeof b.text === "string").map((b) => b.text)
      .join(""),
    inputTokens: num(usage.input_tokens) + num(usage.cache_read_input_tokens) +
      num(usage.cache_creation_input_tokens),
    outputTokens: num(usage.output_tokens),
  };
}

/** The user's subscription through msgcli's client (its credentials, lock and refresh). */
export function subscriptionCall(client: MessagesClient, model: string): ModelCall {
  return async (system, user, maxTokens) => {
    const res = await client.create({
      model,
      max_tokens: maxTokens,
      system,
      messages: [{ role: "user", content: user }],
    });
    return anthropicAnswer(res as unknown as Record<string, unknown>);
  };
}

/** An OpenAI-compatible chat completions endpoint (`baseUrl` includes `/v1`). */
export function openaiCall(
  o: { baseUrl: string; apiKey?: string; model: string; fetch?: typeof fetch },
): ModelCall {
  const f = o.fetch ?? fetch;
  return async (system, user, maxTokens, signal) => {
    const j = await postJson(
      f,
      `${o.baseUrl.replace(/\/$/, "")}/chat/completions`,
      o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {},
      {
        model: o.model,
        max_tokens: maxTokens,
        response_format: { type: "json_object" },
        messages: [{ role: "system", content: system }, { role: "user", content: user }],
      },
      signal,
    );
    const choice = (Array.isArray(j.choices) ? j.choices[0] : undefined) as
      | { message?: { content?: unknown } }
      | undefined;
    const usage = (j.usage ?? {}) as Record<string, unknown>;
    return {
      text: typeof choice?.message?.content === "string" ? choice.message.content : "",
      inputTokens: num(usage.prompt_tokens),
      outputTokens: num(usage.completion_tokens),
    };
  };
}

/** A local Ollama (`/api/chat`, JSON format, no streaming). */
export function ollamaCall(o: { baseUrl: string; model: string; fetch?: typeof fetch }): ModelCall {
  const f = o.fetch ?? fetch;
  return async (system, user, maxTokens, signal) => {
    const j = await postJson(f, `${o.baseUrl.replace(/\/$/, "")}/api/chat`, {}, {
      model: o.model,
      stream: false,
      format: "json",
      options: { num_predict: maxTokens },
      messages: [{ role: "system", content: system }, { role: "user", content: user }],
    }, signal);
    const msg = (j.message ?? {}) as { content?: unknown };
    return {
      text: typeof msg.content === "string" ? msg.content : "",
      inputTokens: num(j.prompt_eval_count),
      outputTokens: num(j.eval_count),
    };
  };
}

/** Default output cap of one call. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 1_000;
/** Most characters of transcript sent in one call (the newest kept). */
export const MAX_INPUT_CHARS = 24_000;

/** Tokens spent per session and per day, with their limits. */
export class TokenBudget {
  readonly #perSession: number;
  readonly #perDay: number;
  readonly #now: () => number;
  readonly #sessions = new Map<string, number>();
  #day = "";
  #dayUsed = 0;
  /** Calls not made because a budget would have been exceeded. */
  skipped = 0;

  readonly #onCharge?: (sessionId: string, day: string, tokens: number) => void;

  /**
   * A budget of `perSession` and `perDay` tokens; `onCharge` is told of each charge (the
   * daemon keeps the counts in its database, so that a restart does not reset them).
   */
  constructor(
    perSession: number,
    perDay: number,
    now: () => number = Date.now,
    onCharge?: (sessionId: string, day: string, tokens: number) => void,
  ) {
    this.#perSession = perSession;
    this.#perDay = perDay;
    this.#now = now;
    this.#onCharge = onCharge;
  }

  /** The UTC day (YYYY-MM-DD) the budget counts now. */
  today(): string {
    this.#roll();
    return this.#day;
  }

  /**
   * Take in the counts kept elsewhere (the database) for today and a session: each count
   * becomes the larger of the two, so nothing spent is forgotten.
   */
  restore(day: string, dayUsed: number, sessionId: string, sessionUsed: number): void {
    this.#roll();
    if (day !== this.#day) return;
    this.#dayUsed = Math.max(this.#dayUsed, dayUsed);
    this.#sessions.set(sessionId, Math.max(this.#sessions.get(sessionId) ?? 0, sessionUsed));
  }

  #roll(): void {
    const day = new Date(this.#now()).toISOString().slice(0, 10);
    if (day !== this.#day) {
      this.#day = day;
      this.#dayUsed = 0;
    }
  }

  /** Whether a call of at most `tokens` fits both budgets. */
  fits(sessionId: string, tokens: number): boolean {
    this.#roll();
    return (this.#sessions.get(sessionId) ?? 0) + tokens <= this.#perSession &&
      this.#dayUsed + tokens <= this.#perDay;
  }

  /** Charge `tokens` (from the answer's usage). */
  charge(sessionId: string, tokens: number): void {
    this.#roll();
    this.#sessions.set(sessionId, (this.#sessions.get(sessionId) ?? 0) + tokens);
    this.#dayUsed += tokens;
    this.#onCharge?.(sessionId, this.#day, tokens);
  }

  /** What was spent, for the report. */
  report(sessionId?: string): {
    day: string;
    dayUsed: number;
    dayLimit: number;
    sessionUsed?: number;
    sessionLimit: number;
    skipped: number;
  } {
    this.#roll();
    return {
      day: this.#day,
      dayUsed: this.#dayUsed,
      dayLimit: this.#perDay,
      ...(sessionId ? { sessionUsed: this.#sessions.get(sessionId) ?? 0 } : {}),
      sessionLimit: this.#perSession,
      skipped: this.skipped,
    };
  }
}

const TYPES: CandidateType[] = ["rule", "feedback", "decision", "fact"];

/**
 * The candidates of a model's answer: JSON (a fenced block is accepted), `memories` an array;
 * each item kept only when `text` is a string of 8..500 characters, `type` one of the memory
 * types, `scope` project or global, `confidence` a number in 0..1 and `source` the id of a
 * message that was sent; an item drawn from the agent's text only when the user's next
 * message confirms it ("yes", "right", …). Everything else is dropped. An item's `replaces`
 * is kept only when it is the id of an accepted memory of `stored` (the request's section),
 * and not a global one for a project's item (superseding a global memory would take it from
 * every project, the replacement holding in one); any other value is dropped from the item
 * (counted in `replacesDropped`), never trusted.
 */
export function parseModelAnswer(
  text: string,
  sources: Map<string, Turn>,
  stored: Map<string, StoredMatch> = new Map(),
): { candidates: Candidate[]; dropped: number; replacesDropped: number } {
  const body = text.trim().replace(/^```(?:json)?\s*/i, "").replace(/```\s*$/, "");
  let j: unknown;
  try {
    j = JSON.parse(body);
  } catch {
    return { candidates: [], dropped: 1, replacesDropped: 0 };
  }
  const items = (j as { memories?: unknown })?.memories;
  if (!Array.isArray(items)) return { candidates: [], dropped: 1, replacesDropped: 0 };
  const candidates: Candidate[] = [];
  let dropped = 0;
  let replacesDropped = 0;
  const order = [...sources.values()];
  const confirmed = (t: Turn) => {
    const next = order.slice(order.indexOf(t) + 1).find((x) => x.role === "user");
    return next !== undefined && CONFIRM.test(next.text);
  };
  for (const it of items) {
    const o = it as Record<string, unknown>;
    const t = sources.get(String(o?.source));
    if (
      !o || typeof o !== "object" || typeof o.text !== "string" || o.text.trim().length < 8 ||
      o.text.length > 500 || !TYPES.includes(o.type as CandidateType) ||
      (o.scope !== "project" && o.scope !== "global") || typeof o.confidence !== "number" ||
      !(o.confidence >= 0 && o.confidence <= 1) || !t ||
      (t.role === "assistant" && !confirmed(t))
    ) {
      dropped++;
      continue;
    }
    const named = o.replaces === undefined || o.replaces === null
      ? undefined
      : typeof o.replaces === "string" && stored.has(o.replaces)
      ? stored.get(o.replaces)
      : null;
    const usable = named && !named.proposed && !(o.scope === "project" && named.global !== false);
    if (named !== undefined && !usable) replacesDropped++;
    candidates.push({
      text: o.text.trim(),
      type: o.type as CandidateType,
      scope: o.scope,
      confidence: o.confidence,
      provenance: { sessionId: t.sessionId, uuid: t.uuid, timestamp: t.timestamp },
      rule: "model",
      ...(usable ? { replaces: { id: named.id, text: named.text } } : {}),
    });
  }
  return { candidates, dropped, replacesDropped };
}

/**
 * The transcript as the model reads it: `[id] ROLE: text`, secrets replaced, newest kept; and
 * the user's messages as sent (secrets replaced), for the search of related memories.
 */
export async function renderTurns(
  turns: Turn[],
): Promise<{ text: string; sources: Map<string, Turn>; userTexts: string[] }> {
  const sources = new Map<string, Turn>();
  const lines: string[] = [];
  const userTexts: string[] = [];
  for (const [i, t] of turns.entries()) {
    const id = `m${i + 1}`;
    sources.set(id, t);
    const clean = (await redactSecrets(t.text)).text.replace(/\s+/g, " ");
    lines.push(`[${id}] ${t.role.toUpperCase()}: ${clean}`);
    if (t.role === "user") userTexts.push(clean);
  }
  let text = lines.join("\n");
  if (text.length > MAX_INPUT_CHARS) text = text.slice(text.length - MAX_INPUT_CHARS);
  return { text, sources, userTexts };
}

/** Most stored memories listed in a request. */
export const MAX_STORED_ITEMS = 20;
/** Most characters of the stored memories' lines in a request. */
export const MAX_STORED_CHARS = 2_000;
/** Most characters of one stored memory's text in a request (longer ones are cut). */
export const MAX_STORED_ITEM_CHARS = 300;
/** Memories (and proposals) asked for per user message. */
export const STORED_PER_MESSAGE = 5;
/** User messages searched (the newest). */
export const STORED_MESSAGES = 20;
/** Characters of one user message searched for. */
const STORED_QUERY_CHARS = 2_000;
/**
 * The longest the searches of one request may take together: a search still running then (a
 * slow store) is not waited for, and the request lists what was found before it.
 */
export const STORED_DEADLINE_MS = 5_000;

/** The heading of the stored memories' section (src/capture/prompt.md describes it). */
export const STORED_HEADING =
  "Stored memories nearest these messages, one a line: `[id] text` (`(proposed)`: waiting in the inbox):";

/**
 * The stored memories nearest the user's messages, as the request lists them after the
 * transcript: one search a message (the newest {@link STORED_MESSAGES}, at most
 * {@link STORED_PER_MESSAGE} results each), taken in turn by rank across the messages, each
 * memory once, at most {@link MAX_STORED_ITEMS} lines and {@link MAX_STORED_CHARS} characters;
 * ids `s1`, `s2`, …; secrets replaced by markers. Empty (no section) when none is found. The
 * searches take at most {@link STORED_DEADLINE_MS} together; one that fails or is late ends
 * them (`failed`), and the section lists what was found before: the request is made anyway.
 */
export async function renderStored(
  userTexts: string[],
  related: NonNullable<ExtractContext["related"]>,
  opts: { deadlineMs?: number } = {},
): Promise<{ text: string; stored: Map<string, StoredMatch>; failed?: string }> {
  const lists: StoredMatch[][] = [];
  const ms = opts.deadlineMs ?? STORED_DEADLINE_MS;
  const deadline = Date.now() + ms;
  let failed: string | undefined;
  for (const q of userTexts.slice(-STORED_MESSAGES)) {
    // The search refuses a NUL and a lone surrogate (a transcript may hold one, and the cut
    // may split a pair): they are no words to search for.
    const query = q.replace(/\[secret removed: [^\]]*\]/g, " ").replaceAll("\u0000", " ")
      .slice(0, STORED_QUERY_CHARS).toWellFormed().trim();
    if (!query) continue;
    // A failed or late search ends the searching: the section lists what was found before.
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the stored memories' search took over ${ms} ms`)),
          Math.max(0, deadline - Date.now()),
        );
      });
      lists.push(await Promise.race([related(query, STORED_PER_MESSAGE), late]));
    } catch (err) {
      failed = (err as Error).message;
      break;
    } finally {
      clearTimeout(timer);
    }
  }
  const stored = new Map<string, StoredMatch>();
  const seen = new Set<string>();
  const lines: string[] = [];
  let chars = 0;
  const longest = Math.max(0, ...lists.map((l) => l.length));
  outer: for (let rank = 0; rank < longest; rank++) {
    for (const list of lists) {
      const m = list[rank];
      if (!m || seen.has(m.id)) continue;
      seen.add(m.id);
      let clean = (await redactSecrets(m.text)).text.replace(/\s+/g, " ").trim();
      if (clean.length > MAX_STORED_ITEM_CHARS) {
        clean = clean.slice(0, MAX_STORED_ITEM_CHARS - 1) + "…";
      }
      const id = `s${stored.size + 1}`;
      const line = `[${id}] ${m.proposed ? "(proposed) " : ""}${clean}`;
      if (chars + line.length + 1 > MAX_STORED_CHARS) break outer;
      stored.set(id, m);
      lines.push(line);
      chars += line.length + 1;
      if (stored.size >= MAX_STORED_ITEMS) break outer;
    }
  }
  return {
    text: lines.length ? `${STORED_HEADING}\n${lines.join("\n")}` : "",
    stored,
    ...(failed ? { failed } : {}),
  };
}

/** What the model extractor did, for the report. */
export interface ModelStats {
  /** Calls made. */
  calls: number;
  /** Tokens charged. */
  tokens: number;
  /** Items dropped as malformed. */
  dropped: number;
  /** `replaces` values dropped from items (not the id of a listed accepted memory). */
  replacesDropped?: number;
  /**
   * Requests whose stored memories' searches failed or ran out of time (the section lists
   * what was found before, or is left out).
   */
  storedFailures?: number;
  /** Runs that fell back to the offline extractor (budget or error). */
  fallbacks: number;
  /** The last error's message (never a key). */
  lastError?: string;
}

/**
 * The model extractor: one call per run with the new turns; when the budget would be
 * exceeded or the call fails, the offline extractor's candidates instead.
 */
export function modelExtractor(
  call: ModelCall,
  budget: TokenBudget,
  opts: { maxOutputTokens?: number; stats?: ModelStats; storedDeadlineMs?: number } = {},
): Extractor {
  const maxOut = opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const stats = opts.stats ?? { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
  return async (turns, { sessionId, related }) => {
    const { text: transcript, sources, userTexts } = await renderTurns(turns);
    const known: { text: string; stored: Map<string, StoredMatch>; failed?: string } = related
      ? await renderStored(userTexts, related, { deadlineMs: opts.storedDeadlineMs })
      : { text: "", stored: new Map<string, StoredMatch>() };
    if (known.failed) stats.storedFailures = (stats.storedFailures ?? 0) + 1;
    const text = known.text ? `${transcript}\n\n${known.text}` : transcript;
    const estimate = Math.ceil((CAPTURE_PROMPT.length + text.length) / 3) + maxOut;
    if (!budget.fits(sessionId, estimate)) {
      budget.skipped++;
      stats.fallbacks++;
      return extractCandidates(turns);
    }
    let answer: ModelAnswer;
    try {
      answer = await call(CAPTURE_PROMPT, text, maxOut);
    } catch (err) {
      stats.fallbacks++;
      stats.lastError = (err as Error).message;
      return extractCandidates(turns);
    }
    stats.calls++;
    const used = answer.inputTokens + answer.outputTokens;
    stats.tokens += used;
    budget.charge(sessionId, used);
    const r = parseModelAnswer(answer.text, sources, known.stored);
    stats.dropped += r.dropped;
    stats.replacesDropped = (stats.replacesDropped ?? 0) + r.replacesDropped;
    return r.candidates;
  };
}
