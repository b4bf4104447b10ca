/**
 * Capture's model path (src/capture/model.ts, `CAPTURE_MODEL_PROVIDER=anthropic`) for the
 * measuring tasks: the product's own extractor and client, pointed at the Messages API fake of
 * tests/fakes/anthropic.ts, which records each request (system, user) and answers with a reply
 * the task gives (`{"memories": []}` when recording the requests, a model's recorded answer when
 * replaying). Usage counts: input tokens = characters of the request / 4, output tokens =
 * characters of the answer / 4 (the fake's `usageFromBody`), not a tokenizer's.
 *
 * The recorded requests and answers live in bench/data/capture-model/ (its README.md): a request
 * is known by the SHA-256 of its system and user texts ({@link requestKey}), mapped to an opaque
 * id (`<split>-NN`) by `<split>-keys.json`.
 *
 * A request lists the stored memories nearest the session's user messages, found by the
 * service's own search: {@link startStoredSearch} keeps each session's stored memories in one
 * PGlite service (a project of its own per session) and gives the sink that searches them.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  anthropicCall,
  modelExtractor,
  type ModelStats,
  TokenBudget,
} from "../../src/capture/model.ts";
import { type Extractor, MemoryCaptureSink } from "../../src/capture/pipeline.ts";
import { startFakeAnthropic } from "../../tests/fakes/anthropic.ts";
import { pgliteService } from "../../tests/helpers.ts";
import { ROOT } from "../entrypoints.ts";

/** Where the recorded requests (and their keys) are written: bench/data/capture-model/. */
export const MODEL_DIR: string = join(ROOT, "bench/data/capture-model");

/** A request's key: SHA-256 (hex) of `[system, user]` as JSON. */
export function requestKey(system: string, user: string): string {
  return createHash("sha256").update(JSON.stringify([system, user])).digest("hex");
}

/** One request the product sent. */
export interface ModelRequest {
  /** The system prompt (src/capture/prompt.md). */
  system: string;
  /** The user message (the session's turns as the model reads them). */
  user: string;
}

/** The model path running against the fake. */
export interface ModelPath {
  /** The product's model extractor, its client at the fake. */
  extractor: Extractor;
  /** The extractor's counts (calls, tokens, items dropped, fallbacks, the last error). */
  stats: ModelStats;
  /** Tokens charged per session id. */
  perSession: Map<string, number>;
  /** The requests the fake received, in order. */
  requests: ModelRequest[];
  /** Stop the fake. */
  close(): Promise<void>;
}

/**
 * The model path (an API key, `claude-haiku-4-5`, budgets of a million tokens a session and a
 * day, as bench:capture's) with the fake answering `reply(request)`.
 */
export function startModelPath(reply: (r: ModelRequest) => string): ModelPath {
  const requests: ModelRequest[] = [];
  const fake = startFakeAnthropic({
    apiKeys: ["bench-key"],
    usageFromBody: true,
    reply: (body) => {
      const msgs = body.messages as { role: string; content: unknown }[];
      const r = { system: String(body.system ?? ""), user: String(msgs[0]?.content ?? "") };
      requests.push(r);
      return reply(r);
    },
  });
  const stats: ModelStats = { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
  const inner = modelExtractor(
    anthropicCall({ baseUrl: fake.url, apiKey: "bench-key", model: "claude-haiku-4-5" }),
    new TokenBudget(1_000_000, 1_000_000),
    { stats },
  );
  const perSession = new Map<string, number>();
  const extractor: Extractor = async (turns, ctx) => {
    const before = stats.tokens;
    const out = await inner(turns, ctx);
    perSession.set(ctx.sessionId, (perSession.get(ctx.sessionId) ?? 0) + stats.tokens - before);
    return out;
  };
  return { extractor, stats, perSession, requests, close: () => fake.close() };
}

/** A labelled session's stored memories (labels.json). */
export interface StoredSession {
  /** The session id. */
  session_id: string;
  /** Its project. */
  project: string;
  /** The memories stored before it. */
  stored: string[];
}

/** Each session's stored memories in a PGlite service, searched as the product searches them. */
export interface StoredSearch {
  /** The sink of a session: its stored memories, related ones found by the service's search. */
  sinkFor(s: StoredSession): Promise<MemoryCaptureSink>;
  /** Close the service. */
  close(): Promise<void>;
}

/**
 * One in-memory PGlite service (builtin embedder) holding every session's stored memories,
 * each session's under a project of its own (from its id), so that a session's search finds its
 * memories only; the sink is a {@link MemoryCaptureSink} (its dedupe and contradictions as
 * bench:capture scores them) whose related memories come from that search.
 */
export async function startStoredSearch(): Promise<StoredSearch> {
  const s = await pgliteService();
  const made = new Set<string>();
  return {
    async sinkFor(session) {
      const key = `capture-${
        createHash("sha256").update(session.session_id).digest("hex").slice(0, 16)
      }`;
      if (!made.has(key)) {
        made.add(key);
        for (const content of session.stored) await s.service.create({ content, project: key });
      }
      return new MemoryCaptureSink(
        session.stored.map((text) => ({ text, project: session.project })),
        {
          search: async (text, project, limit) =>
            project !== session.project
              ? []
              : (await s.service.search({ query: text, project: key, limit }))
                .map((r) => r.memory.content),
        },
      );
    },
    close: () => s.close(),
  };
}
