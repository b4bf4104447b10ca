/**
 * The `Embedder` port: turns texts into vectors. Adapters: builtin (offline hashing),
 * ollama (`/api/embed`) and openai (OpenAI-compatible `/v1/embeddings`).
 * @module
 */

/**
 * Which embedder made (or makes) the stored vectors.
 *
 * @example
 * ```ts
 * import type { EmbedderInfo } from "@mneme/mneme";
 * const embedder: EmbedderInfo = { provider: "ollama", model: "nomic-embed-text", dimension: 768 };
 * ```
 */
export interface EmbedderInfo {
  /** `builtin`, `ollama` or `openai`. */
  provider: string;
  /** Model name. */
  model: string;
  /** Vector dimension. */
  dimension: number;
}

/** True when two embedders would make different vectors. */
export function sameEmbedder(a: EmbedderInfo, b: EmbedderInfo): boolean {
  return a.provider === b.provider && a.model === b.model && a.dimension === b.dimension;
}

/** Turns texts into vectors of one fixed dimension. */
export interface Embedder {
  /** Provider, model and dimension (the dimension is known after `probe`). */
  readonly info: EmbedderInfo;
  /** Embed many texts at once, in order. */
  embed(texts: string[]): Promise<number[][]>;
  /** Check the provider answers and learn the dimension. Throws an {@link EmbedderError}. */
  probe(): Promise<EmbedderInfo>;
}

/** A provider failure with a message that says what to do. */
export class EmbedderError extends Error {
  /** Create the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EmbedderError";
  }
}

/** Check that a provider returned `count` vectors of `dim` finite numbers. */
export function checkVectors(
  vectors: unknown,
  count: number,
  dim: number | undefined,
  who: string,
): number[][] {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    throw new EmbedderError(
      `${who} returned ${
        Array.isArray(vectors) ? vectors.length : "no"
      } embeddings for ${count} inputs`,
    );
  }
  for (const v of vectors) {
    if (!Array.isArray(v) || v.length === 0 || !v.every((n) => typeof n === "number")) {
      throw new EmbedderError(`${who} returned a malformed embedding`);
    }
    if (dim !== undefined && v.length !== dim) {
      throw new EmbedderError(
        `${who} returned a ${v.length}-dimension embedding, but ${dim} dimensions were expected; the model changed: run memcli reembed`,
      );
    }
  }
  return vectors as number[][];
}

/** Split an array into chunks of at most `size`. */
export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
