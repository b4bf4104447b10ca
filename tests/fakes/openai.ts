/**
 * A fake OpenAI-compatible embeddings API following OpenAI's documented shapes:
 *
 * - `POST /v1/embeddings` `{model, input: string | string[], encoding_format?: "float" |
 *   "base64", dimensions?, user?}` with `Authorization: Bearer <key>` →
 *   `{object: "list", data: [{object: "embedding", index, embedding}], model,
 *   usage: {prompt_tokens, total_tokens}}`. With `encoding_format: "base64"` each embedding
 *   is the base64 of little-endian float32s.
 * - a missing or wrong key → 401 `{error: {message, type: "invalid_request_error", param: null,
 *   code}}`; an unknown model → 404 `{error: {..., code: "model_not_found"}}`; bad input
 *   (empty, more than 2048 items, wrong type) → 400 in the same error shape.
 *
 * Vectors are deterministic per text. `reverse: true` answers `data` in reverse order (some
 * compatible servers do not keep the order; `index` is authoritative). Every request is
 * recorded. Listens on 127.0.0.1, port 0.
 *
 * @module
 */
import { hashEmbed } from "../../src/embed/builtin.ts";

/** One recorded request. */
export interface OpenAIRequest {
  method: string;
  path: string;
  authorization: string | null;
  body: unknown;
}

/** Options of the fake; mutable later through `fake.options`. */
export interface FakeOpenAIOptions {
  /** The key the fake accepts (default `sk-test`). */
  apiKey?: string;
  /** Models: name → native dimension (default text-embedding-3-small: 1536). */
  models?: Record<string, number>;
  /** Answer `data` in reverse order. */
  reverse?: boolean;
  /**
   * `POST /v1/chat/completions`: the assistant's reply for a request body (replays a model's
   * answers; default `{"memories": []}`). Added for capture's model path.
   */
  chat?: (body: Record<string, unknown>) => string;
}

/** A running fake. */
export interface FakeOpenAI {
  /** Base URL including `/v1` (what OPENAI_BASE_URL takes). */
  url: string;
  options: Required<FakeOpenAIOptions>;
  requests: OpenAIRequest[];
  /** Inputs of each embeddings call. */
  embedBatches(): string[][];
  close(): Promise<void>;
}

/** The vector the fake returns for `text` at `dim` dimensions. */
export function openaiVector(text: string, dim: number): number[] {
  return hashEmbed(`openai:${text}`, dim);
}

function encodeBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

function apiError(status: number, message: string, code: string | null, param: string | null) {
  return Response.json(
    { error: { message, type: "invalid_request_error", param, code } },
    { status },
  );
}

/** A chat completion in OpenAI's shape; usage counted as characters / 4. */
function chatCompletion(
  body: unknown,
  reply: (body: Record<string, unknown>) => string,
): Response {
  const b = body as Record<string, unknown> | null;
  if (!b || typeof b !== "object" || typeof b.model !== "string") {
    return apiError(400, "you must provide a model parameter", null, "model");
  }
  if (!Array.isArray(b.messages) || b.messages.length === 0) {
    return apiError(400, "'messages' is a required property", null, "messages");
  }
  const content = reply(b);
  const prompt = Math.ceil(JSON.stringify(b.messages).length / 4);
  const completion = Math.max(1, Math.ceil(content.length / 4));
  return Response.json({
    id: `chatcmpl-${crypto.randomUUID().slice(0, 12)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: b.model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  });
}

/** Start the fake. */
export function startFakeOpenAI(opts: FakeOpenAIOptions = {}): FakeOpenAI {
  const options: Required<FakeOpenAIOptions> = {
    apiKey: opts.apiKey ?? "sk-test",
    models: opts.models ?? { "text-embedding-3-small": 1536 },
    reverse: opts.reverse ?? false,
    chat: opts.chat ?? (() => '{"memories": []}'),
  };
  const requests: OpenAIRequest[] = [];

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const text = await req.text();
    let body: unknown = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch { /* recorded as undefined */ }
    const authorization = req.headers.get("authorization");
    requests.push({ method: req.method, path, authorization, body });
    const key = authorization?.match(/^Bearer (.+)$/)?.[1];
    if (!key) {
      return apiError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        null,
        null,
      );
    }
    if (key !== options.apiKey) {
      const shown = key.length > 8 ? `${key.slice(0, 3)}***${key.slice(-4)}` : "***";
      return apiError(
        401,
        `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        "invalid_api_key",
        null,
      );
    }
    if (path === "/v1/chat/completions" && req.method === "POST") {
      return chatCompletion(body, options.chat);
    }
    if (path !== "/v1/embeddings" || req.method !== "POST") {
      return apiError(404, `Invalid URL (${req.method} ${path})`, null, null);
    }
    if (body === null || typeof body !== "object") {
      return apiError(400, "We could not parse the JSON body of your request.", null, null);
    }
    const b = body as {
      model?: unknown;
      input?: unknown;
      encoding_format?: unknown;
      dimensions?: unknown;
    };
    if (typeof b.model !== "string") {
      return apiError(400, "you must provide a model parameter", null, null);
    }
    const native = options.models[b.model];
    if (native === undefined) {
      return apiError(
        404,
        `The model \`${b.model}\` does not exist or you do not have access to it.`,
        "model_not_found",
        null,
      );
    }
    const inputs = typeof b.input === "string"
      ? [b.input]
      : Array.isArray(b.input) && b.input.every((x) => typeof x === "string")
      ? b.input as string[]
      : null;
    if (inputs === null || inputs.length === 0 || inputs.length > 2048 || inputs.includes("")) {
      return apiError(400, "'$.input' is invalid. Please check the API reference.", null, "input");
    }
    const format = b.encoding_format ?? "float";
    if (format !== "float" && format !== "base64") {
      return apiError(400, `Invalid encoding_format: ${format}`, null, "encoding_format");
    }
    const dim = typeof b.dimensions === "number" ? b.dimensions : native;
    const data = inputs.map((t, index) => {
      const v = openaiVector(t, dim);
      return {
        object: "embedding",
        index,
        embedding: format === "float"
          ? v
          : encodeBase64(new Uint8Array(new Float32Array(v).buffer)),
      };
    });
    if (options.reverse) data.reverse();
    const tokens = inputs.reduce((n, t) => n + t.split(/\s+/).length, 0);
    return Response.json({
      object: "list",
      data,
      model: b.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  });

  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    options,
    requests,
    embedBatches: () =>
      requests.filter((r) => r.path === "/v1/embeddings").map((r) => {
        const input = (r.body as { input?: unknown })?.input;
        return typeof input === "string" ? [input] : input as string[];
      }),
    close: () => server.shutdown(),
  };
}
