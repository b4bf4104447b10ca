/**
 * Validation of a message request and the OAuth request preparation shared by `msgcli` and
 * `msgcli serve` (for `/v1/messages` and `/v1/messages/count_tokens` alike):
 *
 * - `system` becomes an array of blocks in this order: the identity preamble, the billing
 *   header block, then the user's system content unchanged (a string becomes one text block
 *   with the same text; blocks are appended as they are);
 * - `metadata.user_id` is set (an existing one is kept);
 * - headers: `Authorization: Bearer`, `anthropic-version: 2023-06-01`,
 *   `anthropic-beta: oauth-2025-04-20` plus model-specific betas, `content-type`.
 *
 * Fields this module does not know are passed through unchanged.
 *
 * @module
 */

import { VERSION } from "../version.ts";

/** Default model of the CLI. */
export const DEFAULT_MODEL = "claude-sonnet-4-6";
/** Default `max_tokens` of the CLI. */
export const DEFAULT_MAX_TOKENS = 4096;
/** `anthropic-version` header value. */
export const ANTHROPIC_VERSION = "2023-06-01";
/** Beta flag required for OAuth (subscription) access tokens. */
export const OAUTH_BETA = "oauth-2025-04-20";
/** The identity preamble, first system block of every OAuth request. */
export const IDENTITY_PREAMBLE = "You are Claude Code, Anthropic's official CLI for Claude.";
/** The billing header block text, second system block. */
export const BILLING_HEADER =
  `x-anthropic-billing-header: cc_version=${VERSION}; cc_entrypoint=msgcli;`;

/** A system content block (text, possibly with cache_control and other fields). */
export interface SystemBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** One turn. The CLI sends string content; the proxy also accepts content block arrays. */
export interface Message {
  role: "user" | "assistant";
  content: string | Array<Record<string, unknown>>;
}

/** A message request as accepted by the proxy and built by the CLI. */
export interface MessageRequest {
  model: string;
  max_tokens?: number;
  system?: string | SystemBlock[];
  messages: Message[];
  temperature?: number;
  stream?: boolean;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A request that failed validation; `field` names the offending field (e.g. `messages[2].role`). */
export class ValidationError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = "ValidationError";
    this.field = field;
  }
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Options of {@link validateMessageRequest}. */
export interface ValidateOptions {
  /** `count_tokens` requests have no `max_tokens`; default `messages` (required). */
  kind?: "messages" | "count_tokens";
}

/**
 * Checks the shape of a message request and returns it typed (same object, unknown fields
 * kept). Throws {@link ValidationError} whose message starts with the field name.
 */
export function validateMessageRequest(x: unknown, opts: ValidateOptions = {}): MessageRequest {
  if (!isObject(x)) throw new ValidationError("body", "must be a JSON object");
  if (typeof x.model !== "string" || x.model.trim() === "") {
    throw new ValidationError("model", "must be a non-empty string");
  }
  const kind = opts.kind ?? "messages";
  if (x.max_tokens !== undefined || kind === "messages") {
    if (
      typeof x.max_tokens !== "number" || !Number.isInteger(x.max_tokens) || x.max_tokens < 1
    ) {
      throw new ValidationError("max_tokens", "must be an integer >= 1");
    }
  }
  if (x.system !== undefined) {
    if (Array.isArray(x.system)) {
      x.system.forEach((b, i) => {
        if (!isObject(b) || typeof b.type !== "string") {
          throw new ValidationError(`system[${i}]`, "must be a content block with a type");
        }
        if (b.type === "text" && typeof b.text !== "string") {
          throw new ValidationError(`system[${i}].text`, "must be a string");
        }
      });
    } else if (typeof x.system !== "string") {
      throw new ValidationError("system", "must be a string or an array of blocks");
    }
  }
  if (!Array.isArray(x.messages) || x.messages.length === 0) {
    throw new ValidationError("messages", "must be a non-empty array");
  }
  x.messages.forEach((m, i) => {
    if (!isObject(m)) throw new ValidationError(`messages[${i}]`, "must be an object");
    if (m.role !== "user" && m.role !== "assistant") {
      throw new ValidationError(`messages[${i}].role`, 'must be "user" or "assistant"');
    }
    if (typeof m.content === "string") return;
    if (Array.isArray(m.content) && m.content.every((b) => isObject(b))) return;
    throw new ValidationError(
      `messages[${i}].content`,
      "must be a string or an array of content blocks",
    );
  });
  if (x.temperature !== undefined) {
    if (
      typeof x.temperature !== "number" || !Number.isFinite(x.temperature) ||
      x.temperature < 0 || x.temperature > 1
    ) {
      throw new ValidationError("temperature", "must be a number from 0.0 to 1.0");
    }
  }
  if (x.stream !== undefined && typeof x.stream !== "boolean") {
    throw new ValidationError("stream", "must be a boolean");
  }
  if (x.metadata !== undefined && !isObject(x.metadata)) {
    throw new ValidationError("metadata", "must be an object");
  }
  return x as MessageRequest;
}

/** Model-specific betas added to `anthropic-beta` next to {@link OAUTH_BETA}. */
export function betasForModel(model: string): string[] {
  const m = model.toLowerCase();
  const betas: string[] = [];
  // Claude 4 family (opus-4*, sonnet-4*, haiku-4*, and the claude-*-4-* spellings).
  if (/claude-(opus|sonnet|haiku)-4|claude-4/.test(m)) {
    betas.push("interleaved-thinking-2025-05-14");
  }
  if (/claude-3-7-sonnet/.test(m)) betas.push("token-efficient-tools-2025-02-19");
  return betas;
}

/** One random id per process, used when the caller gives no user id. */
const PROCESS_USER_ID = `user_msgcli_session_${crypto.randomUUID()}`;

/** Options of {@link prepareMessagesRequest}. */
export interface PrepareOptions {
  accessToken: string;
  /** `metadata.user_id` when the request carries none; default a per-process random id. */
  userId?: string;
  /** Betas the caller asked for (e.g. a client's `anthropic-beta` header); merged, deduplicated. */
  betas?: string[];
}

/**
 * Applies the OAuth request preparation. Does not mutate `body`; returns new headers and a
 * new body (unknown fields kept).
 */
export function prepareMessagesRequest(
  body: MessageRequest,
  opts: PrepareOptions,
): { headers: Headers; body: Record<string, unknown> } {
  const system: SystemBlock[] = [
    { type: "text", text: IDENTITY_PREAMBLE },
    { type: "text", text: BILLING_HEADER },
  ];
  if (typeof body.system === "string") {
    if (body.system !== "") system.push({ type: "text", text: body.system });
  } else if (Array.isArray(body.system)) {
    system.push(...body.system);
  }
  const metadata: Record<string, unknown> = { ...(body.metadata ?? {}) };
  if (typeof metadata.user_id !== "string" || metadata.user_id === "") {
    metadata.user_id = opts.userId ?? PROCESS_USER_ID;
  }
  const out: Record<string, unknown> = { ...body, system, metadata };

  const betas: string[] = [];
  for (const b of [OAUTH_BETA, ...betasForModel(body.model), ...(opts.betas ?? [])]) {
    const t = b.trim();
    if (t !== "" && !betas.includes(t)) betas.push(t);
  }
  const headers = new Headers({
    "authorization": `Bearer ${opts.accessToken}`,
    "anthropic-version": ANTHROPIC_VERSION,
    "anthropic-beta": betas.join(","),
    "content-type": "application/json",
    "user-agent": `msgcli/${VERSION}`,
  });
  return { headers, body: out };
}
