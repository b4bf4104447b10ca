/**
 * A fake Ollama server following its documented HTTP API for embeddings:
 *
 * - `POST /api/embed` `{model, input: string | string[], truncate?, keep_alive?, options?,
 *   dimensions?}` → 200 `{model, embeddings: number[][], total_duration, load_duration,
 *   prompt_eval_count}`; vectors are L2-normalised, as Ollama's are.
 * - an unknown model → 404 `{"error":"model \"x\" not found, try pulling it first"}`;
 *   a missing model or input of the wrong type → 400 `{"error": "..."}`.
 * - `GET /api/tags` → `{models: [{name, model, ...}]}`; `GET /api/version` → `{version}`.
 *
 * Model names match with or without the `:latest` tag, as in Ollama. Vectors are
 * deterministic per text (a hashing embedder), so tests can compare them. Every request
 * is recorded. Listens on 127.0.0.1, port 0.
 *
 * @module
 */
import { hashEmbed } from "../../src/embed/builtin.ts";

/** One recorded request. */
export interface OllamaRequest {
  method: string;
  path: string;
  body: unknown;
}

/** A running fake. */
export interface FakeOllama {
  /** Base URL, e.g. http://127.0.0.1:43123 (what OLLAMA_URL takes). */
  url: string;
  /** Installed models: name (without `:latest`) → dimension. Mutable. */
  models: Map<string, number>;
  /** Recorded requests, oldest first. */
  requests: OllamaRequest[];
  /** Inputs of each `/api/embed` call (batching checks). */
  embedBatches(): string[][];
  /** Stop the server. */
  close(): Promise<void>;
}

/** The vector the fake returns for `text` at `dim` dimensions. */
export function ollamaVector(text: string, dim: number): number[] {
  return hashEmbed(`ollama:${text}`, dim);
}

function baseName(name: string): string {
  return name.endsWith(":latest") ? name.slice(0, -":latest".length) : name;
}

/** Start the fake with the given models (default `nomic-embed-text` with 768 dimensions). */
export function startFakeOllama(
  models: Record<string, number> = { "nomic-embed-text": 768 },
  opts: {
    /**
     * `POST /api/chat`: the reply for a request body (replays a model's answers; default
     * `{"memories": []}`); the model must be one of `models`. Added for capture.
     */
    chat?: (body: Record<string, unknown>) => string;
    /**
     * How long `POST /api/chat` takes before it answers (ms; a slow model; default 0). A
     * request aborted meanwhile is answered at once (its client is gone). Added for the
     * expansion worker's lease.
     */
    chatDelayMs?: number;
  } = {},
): FakeOllama {
  const state = new Map(Object.entries(models));
  const requests: OllamaRequest[] = [];
  const error = (status: number, message: string) => Response.json({ error: message }, { status });

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const text = await req.text();
    let body: unknown = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch { /* recorded as undefined */ }
    requests.push({ method: req.method, path, body });
    if (path === "/api/version" && req.method === "GET") {
      return Response.json({ version: "0.12.6" });
    }
    if (path === "/api/tags" && req.method === "GET") {
      return Response.json({
        models: [...state.keys()].map((name) => ({
          name: `${name}:latest`,
          model: `${name}:latest`,
          modified_at: "2026-01-01T00:00:00Z",
          size: 274302450,
          digest: "0a109f422b47",
          details: { format: "gguf", family: "nomic-bert", parameter_size: "137M" },
        })),
      });
    }
    if (path === "/api/chat" && req.method === "POST") {
      const b = body as Record<string, unknown> | undefined;
      if (!b || typeof b.model !== "string" || !Array.isArray(b.messages)) {
        return error(400, "model and messages are required");
      }
      if (!state.has(baseName(b.model))) {
        return error(404, `model "${b.model}" not found, try pulling it first`);
      }
      if (opts.chatDelayMs) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, opts.chatDelayMs);
          req.signal.addEventListener("abort", () => {
            clearTimeout(t);
            resolve();
          }, { once: true });
        });
      }
      const content = (opts.chat ?? (() => '{"memories": []}'))(b);
      return Response.json({
        model: b.model,
        created_at: new Date().toISOString(),
        message: { role: "assistant", content },
        done: true,
        done_reason: "stop",
        total_duration: 914_143_917,
        prompt_eval_count: Math.ceil(JSON.stringify(b.messages).length / 4),
        eval_count: Math.max(1, Math.ceil(content.length / 4)),
      });
    }
    if (path !== "/api/embed") return new Response("404 page not found", { status: 404 });
    if (req.method !== "POST") return error(405, "method not allowed");
    if (body === undefined || typeof body !== "object" || body === null) {
      return error(400, "invalid JSON body");
    }
    const b = body as { model?: unknown; input?: unknown };
    if (typeof b.model !== "string" || b.model === "") return error(400, "model is required");
    const dim = state.get(baseName(b.model));
    if (dim === undefined) {
      return error(404, `model "${b.model}" not found, try pulling it first`);
    }
    const inputs = typeof b.input === "string"
      ? [b.input]
      : Array.isArray(b.input) && b.input.every((x) => typeof x === "string")
      ? b.input as string[]
      : null;
    if (inputs === null) return error(400, "invalid input type");
    return Response.json({
      model: b.model,
      embeddings: inputs.map((t) => ollamaVector(t, dim)),
      total_duration: 14_143_917,
      load_duration: 1_019_500,
      prompt_eval_count: inputs.reduce((n, t) => n + t.split(/\s+/).length, 0),
    });
  });

  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    models: state,
    requests,
    embedBatches: () =>
      requests.filter((r) => r.path === "/api/embed").map((r) => {
        const input = (r.body as { input?: unknown })?.input;
        return typeof input === "string" ? [input] : input as string[];
      }),
    close: () => server.shutdown(),
  };
}
