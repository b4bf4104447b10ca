/**
 * Validation of a message request and the OAuth request preparation shared by `msgcli` and
 * `msgcli serve` (for `/v1/messages` and `/v1/messages/count_tokens` alike):
 *
 * - `system` becomes an array of blocks in this order: the identity preamble, the billing
 *   header block, then the user's system content unchanged (a string becomes one text block
 *   with the same text; blocks are appended as they are). A request that already carries
 *   both an identity preamble and a billing header block (Claude Code's own) keeps its
 *   `system` as it is: nothing is added twice;
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
  /** Kept for callers; both kinds are checked the same way. */
  kind?: "messages" | "count_tokens";
}

/**
 * Checks only what the OAuth preparation needs and returns the request typed (same object,
 * everything else kept and left for the upstream to judge): a JSON object, `model` a string,
 * `system` (when present) a string or an array. Roles, content blocks, `max_tokens`, unknown
 * fields: the upstream's answer is passed through. Throws {@link ValidationError} whose
 * message starts with the field name.
 */
export function validateMessageRequest(x: unknown, _opts: ValidateOptions = {}): MessageRequest {
  if (!isObject(x)) throw new ValidationError("body", "must be a JSON object");
  if (typeof x.model !== "string") throw new ValidationError("model", "must be a string");
  if (x.system !== undefined && typeof x.system !== "string" && !Array.isArray(x.system)) {
    throw new ValidationError("system", "must be a string or an array of blocks");
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

/** Text of a system block, or "" when it has none. */
function blockText(b: unknown): string {
  return isObject(b) && typeof b.text === "string" ? b.text : "";
}

/** Whether `text` is an identity preamble (Claude Code's and the Agent SDK's variants). */
export function isIdentityPreamble(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith("You are Claude Code, Anthropic's official CLI for Claude") ||
    t.startsWith("You are a Claude agent, built on Anthropic's Claude Agent SDK");
}

/** Whether `text` is a billing header block. */
export function isBillingHeader(text: string): boolean {
  return text.trimStart().startsWith("x-anthropic-billing-header:");
}

/**
 * The prepared `system` array. When the request's own system blocks already carry an
 * identity preamble and a billing header (Claude Code sends both), they are kept as they are
 * and nothing is added; otherwise the missing ones are put first (identity, then billing) and
 * the request's content follows unchanged (a string becomes one text block).
 */
export function prepareSystem(system: MessageRequest["system"] | unknown): unknown[] {
  const own: unknown[] = typeof system === "string"
    ? (system === "" ? [] : [{ type: "text", text: system }])
    : Array.isArray(system)
    ? system
    : [];
  let identity = false;
  let billing = false;
  for (const b of own) {
    const t = blockText(b);
    if (isIdentityPreamble(t)) identity = true;
    else if (isBillingHeader(t)) billing = true;
  }
  const head: SystemBlock[] = [];
  if (!identity) head.push({ type: "text", text: IDENTITY_PREAMBLE });
  if (!billing) head.push({ type: "text", text: BILLING_HEADER });
  return head.length === 0 ? own : [...head, ...own];
}

/** Splits `anthropic-beta` header values into trimmed, non-empty names. */
export function splitBetas(value: string | null): string[] {
  if (value === null) return [];
  return value.split(",").map((b) => b.trim()).filter((b) => b !== "");
}

/**
 * Applies the OAuth request preparation. Does not mutate `body`; returns new headers and a
 * new body (unknown fields kept).
 */
export function prepareMessagesRequest(
  body: MessageRequest,
  opts: PrepareOptions,
): { headers: Headers; body: Record<string, unknown> } {
  const system = prepareSystem(body.system);
  const metadata: Record<string, unknown> = isObject(body.metadata) ? { ...body.metadata } : {};
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
