/**
 * Embedders that call an HTTP service: Ollama (`POST /api/embed`, batched `input`) and
 * any OpenAI-compatible `POST {base}/embeddings`. Failures become {@link EmbedderError}s
 * that say what to check, never raw stack traces.
 * @module
 */
import type { EmbedderInfo } from "./embedder.ts";
import { checkVectors, chunks, type Embedder, EmbedderError } from "./embedder.ts";
import { BodyTooLarge, readText } from "../common/body.ts";

/** Largest embedder answer read (bytes): 128 vectors of 4,096 numbers as JSON fit many times. */
const REPLY_LIMIT = 256 * 1024 * 1024;

const TIMEOUT_MS = 60_000;

async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  who: string,
  hint: string,
): Promise<{ status: number; json: unknown; text: string }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    const why = err instanceof DOMException && err.name === "TimeoutError"
      ? `did not answer within ${TIMEOUT_MS / 1000} s`
      : "is not reachable";
    throw new EmbedderError(`${who} at ${new URL(url).origin} ${why}; ${hint}`, { cause: err });
  }
  let text: string;
  try {
    text = await readText(res, { limit: REPLY_LIMIT });
  } catch (err) {
    const why = err instanceof BodyTooLarge
      ? `answered more than ${REPLY_LIMIT / 2 ** 20} MiB`
      : `did not finish its answer (${err instanceof Error ? err.message : String(err)})`;
    throw new EmbedderError(`${who} at ${new URL(url).origin} ${why}; ${hint}`, { cause: err });
  }
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // leave undefined; reported below when it matters
  }
  return { status: res.status, json, text };
}

function errorText(json: unknown, text: string): string {
  const j = json as { error?: unknown } | undefined;
  if (j && typeof j.error === "string") return j.error;
  if (j && j.error && typeof (j.error as { message?: unknown }).message === "string") {
    return (j.error as { message: string }).message;
  }
  return text.slice(0, 200) || "(empty body)";
}

/** Batching and dimension probing shared by the HTTP providers; `call` embeds one batch. */
abstract class BatchedEmbedder implements Embedder {
  abstract readonly info: EmbedderInfo;
  protected abstract readonly batchSize: number;
  protected abstract call(input: string[]): Promise<number[][]>;

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (const batch of chunks(texts, this.batchSize)) out.push(...await this.call(batch));
    return out;
  }

  async probe(): Promise<EmbedderInfo> {
    const [v] = await this.call(["dimension probe"]);
    (this.info as { dimension: number }).dimension = v.length;
    return this.info;
  }
}

/** Options of the Ollama embedder. */
export interface OllamaOptions {
  /** Base URL, default `http://127.0.0.1:11434`. */
  url?: string;
  /** Model, default `nomic-embed-text`. */
  model?: string;
  /** Inputs per request, default 64. */
  batchSize?: number;
}

/** Ollama's `/api/embed`. */
export class OllamaEmbedder extends BatchedEmbedder {
  readonly info: EmbedderInfo;
  readonly #url: string;
  protected readonly batchSize: number;

  /** Create; call `probe()` to learn the dimension. */
  constructor(opts: OllamaOptions = {}) {
    super();
    this.#url = (opts.url ?? "http://127.0.0.1:11434").replace(/\/+$/, "");
    this.batchSize = opts.batchSize ?? 64;
    this.info = { provider: "ollama", model: opts.model ?? "nomic-embed-text", dimension: 0 };
  }

  protected async call(input: string[]): Promise<number[][]> {
    const who = "Ollama";
    const { status, json, text } = await postJson(
      `${this.#url}/api/embed`,
      { model: this.info.model, input },
      {},
      who,
      "start it with `ollama serve`, set OLLAMA_URL, or use EMBEDDING_PROVIDER=builtin",
    );
    if (status === 404) {
      throw new EmbedderError(
        `Ollama has no model "${this.info.model}" (${
          errorText(json, text)
        }); run \`ollama pull ${this.info.model}\` or set EMBEDDING_MODEL`,
      );
    }
    if (status < 200 || status > 299) {
      throw new EmbedderError(`Ollama answered ${status}: ${errorText(json, text)}`);
    }
    const embeddings = (json as { embeddings?: unknown } | undefined)?.embeddings;
    return checkVectors(embeddings, input.length, this.info.dimension || undefined, who);
  }
}

/** Options of the OpenAI-compatible embedder. */
export interface OpenAIOptions {
  /** Base URL including the version, default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** API key, sent as a Bearer token when set. */
  apiKey?: string;
  /** Model, default `text-embedding-3-small`. */
  model?: string;
  /** Inputs per request, default 128. */
  batchSize?: number;
}

/** OpenAI-compatible `/embeddings`. */
export class OpenAIEmbedder extends BatchedEmbedder {
  readonly info: EmbedderInfo;
  readonly #base: string;
  readonly #key?: string;
  protected readonly batchSize: number;

  /** Create; call `probe()` to learn the dimension. */
  constructor(opts: OpenAIOptions = {}) {
    super();
    this.#base = (opts.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
    this.#key = opts.apiKey;
    this.batchSize = opts.batchSize ?? 128;
    this.info = {
      provider: "openai",
      model: opts.model ?? "text-embedding-3-small",
      dimension: 0,
    };
  }

  protected async call(input: string[]): Promise<number[][]> {
    const who = "The embeddings provider";
    const { status, json, text } = await postJson(
      `${this.#base}/embeddings`,
      { model: this.info.model, input, encoding_format: "float" },
      this.#key ? { authorization: `Bearer ${this.#key}` } : {},
      who,
      "check OPENAI_BASE_URL",
    );
    if (status === 401 || status === 403) {
      throw new EmbedderError(
        `The embeddings provider refused the key (${status}: ${
          errorText(json, text)
        }); check OPENAI_API_KEY`,
      );
    }
    if (status === 404) {
      throw new EmbedderError(
        `The embeddings provider does not know model "${this.info.model}" (${
          errorText(json, text)
        }); set EMBEDDING_MODEL`,
      );
    }
    if (status < 200 || status > 299) {
      throw new EmbedderError(
        `The embeddings provider answered ${status}: ${errorText(json, text)}`,
      );
    }
    const data = (json as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data)) throw new EmbedderError(`${who} returned no data array`);
    const sorted = [...data].sort((a, b) => (a?.index ?? 0) - (b?.index ?? 0));
    return checkVectors(
      sorted.map((d) => d?.embedding),
      input.length,
      this.info.dimension || undefined,
      who,
    );
  }
}
