/**
 * Validation of every input of the memory service. Each error is a 400 that names the
 * field, so that the Admin API, the MCP tools and the CLIs report the same text.
 * @module
 */
import { badRequest } from "../domain/errors.ts";
import { MAX_PROJECT } from "../domain/memory.ts";
import { parseTtl } from "./ttl.ts";
import { findSecrets, secretWarning } from "../domain/secrets.ts";
import { RECALL_JUDGE_TIMEOUT_BOUNDS } from "../config.ts";
import { type Memory, MEMORY_TYPES, type MemoryType, type Scope, SCOPES } from "./types.ts";

/** Longest accepted content, in characters. */
export const MAX_CONTENT = 20_000;
/** Longest project name. */
export { MAX_PROJECT };
/** Most tags on one memory. */
export const MAX_TAGS = 50;
/** Longest tag. */
export const MAX_TAG = 100;
/** Largest list limit. */
export const MAX_LIST_LIMIT = 1000;
/** Largest search limit. */
export const MAX_SEARCH_LIMIT = 100;
/** Longest search query. */
export const MAX_QUERY = 10_000;
/** Bulk delete removes at most this many memories per call. */
export const BULK_DELETE_MAX = 1000;
/** Export returns at most this many memories; import accepts at most this many items. */
export const EXPORT_MAX = 10_000;
/** Default list limit. */
export const DEFAULT_LIST_LIMIT = 50;
/** Default search limit. */
export const DEFAULT_SEARCH_LIMIT = 5;
/** Lowest weight. */
export const MIN_WEIGHT = 0.1;
/** Highest weight, and the default. */
export const MAX_WEIGHT = 1.0;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A create input after validation and defaults: a memory's own fields, and how it starts. */
export interface NewMemory
  extends Pick<Memory, "content" | "scope" | "project" | "type" | "tags" | "weight"> {
  ttlMs: number | null;
  supersedes: string | null;
  /** An imported memory the user had replaced: stored superseded (no link is kept). */
  superseded?: boolean;
  /** An imported memory whose expansion was cleared: kept from expansion until redone. */
  expansionClearedAt?: Date;
  createdAt?: Date;
  updatedAt?: Date;
}

type Obj = Record<string, unknown>;

function asObject(x: unknown, field: string): Obj {
  if (x === null || typeof x !== "object" || Array.isArray(x)) {
    throw badRequest(field, "must be a JSON object");
  }
  return x as Obj;
}

function rejectUnknown(obj: Obj, allowed: readonly string[], prefix: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      throw badRequest(
        `${prefix}${key}`,
        `unknown field; allowed fields are ${allowed.join(", ")}`,
      );
    }
  }
}

/** Check a UUID and return it lower-cased. */
export function validateId(x: unknown, field = "id"): string {
  if (typeof x !== "string" || !UUID_RE.test(x)) throw badRequest(field, "must be a UUID");
  return x.toLowerCase();
}

function present(x: unknown): boolean {
  return x !== undefined && x !== null;
}

/**
 * Whether a selector of a bulk operation (bulk delete's filters, the expansions' `id`/`all`) is
 * given: any value but `undefined` (a JavaScript caller's "left out"; JSON has none). `null`
 * counts as given, and is then refused naming the field by the caller's check: read as absent
 * it would widen what the operation touches (`{"id": null, "all": true}` to every memory).
 */
function selectorGiven(obj: Obj, key: string): boolean {
  return obj[key] !== undefined;
}

/** Refuse text Postgres cannot store: NUL characters and lone UTF-16 surrogates. */
function storable(text: string, field: string): string {
  if (text.includes("\u0000")) throw badRequest(field, "must not contain NUL characters");
  if (!text.isWellFormed()) throw badRequest(field, "must be valid Unicode (a lone surrogate)");
  return text;
}

function validateContent(x: unknown, field: string): string {
  if (typeof x !== "string") throw badRequest(field, "is required and must be a string");
  const content = storable(x, field).trim();
  if (content === "") throw badRequest(field, "must not be empty");
  if (content.length > MAX_CONTENT) {
    throw badRequest(field, `is longer than ${MAX_CONTENT} characters`);
  }
  return content;
}

function validateScope(x: unknown, field: string): Scope | undefined {
  if (!present(x) || x === "") return undefined;
  if (typeof x !== "string" || !SCOPES.includes(x as Scope)) {
    throw badRequest(field, `must be one of ${SCOPES.join(", ")}`);
  }
  return x as Scope;
}

function validateType(x: unknown, field: string): MemoryType | undefined {
  if (!present(x) || x === "") return undefined;
  if (typeof x !== "string" || !MEMORY_TYPES.includes(x as MemoryType)) {
    throw badRequest(field, `must be one of ${MEMORY_TYPES.join(", ")}`);
  }
  return x as MemoryType;
}

function validateProject(x: unknown, field: string): string | undefined {
  if (!present(x)) return undefined;
  if (typeof x !== "string") throw badRequest(field, "must be a string");
  const project = storable(x, field).trim();
  if (project === "") return undefined;
  if (project.length > MAX_PROJECT) {
    throw badRequest(field, `is longer than ${MAX_PROJECT} characters`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(project)) {
    throw badRequest(field, "must not contain control characters");
  }
  return project;
}

function validateTags(x: unknown, field: string): string[] {
  if (!present(x)) return [];
  if (!Array.isArray(x)) throw badRequest(field, "must be an array of strings");
  if (x.length > MAX_TAGS) throw badRequest(field, `has more than ${MAX_TAGS} tags`);
  const tags: string[] = [];
  x.forEach((t, i) => {
    if (typeof t !== "string") throw badRequest(`${field}[${i}]`, "must be a string");
    const tag = storable(t, `${field}[${i}]`).trim();
    if (tag === "") throw badRequest(`${field}[${i}]`, "must not be empty");
    if (tag.length > MAX_TAG) {
      throw badRequest(`${field}[${i}]`, `is longer than ${MAX_TAG} characters`);
    }
    if (!tags.includes(tag)) tags.push(tag);
  });
  return tags;
}

function validateWeight(x: unknown, field: string): number {
  if (!present(x)) return MAX_WEIGHT;
  if (typeof x !== "number" || !Number.isFinite(x)) throw badRequest(field, "must be a number");
  if (x < MIN_WEIGHT || x > MAX_WEIGHT) {
    throw badRequest(
      field,
      `must be between ${MIN_WEIGHT.toFixed(1)} and ${MAX_WEIGHT.toFixed(1)}`,
    );
  }
  return x;
}

function validateTtl(x: unknown, field: string): number | null {
  if (!present(x) || x === "") return null;
  if (typeof x !== "string") throw badRequest(field, "must be a duration string such as 24h or 7d");
  const ms = parseTtl(x);
  if (typeof ms === "string") throw badRequest(field, ms);
  return ms;
}

/** Earliest timestamp an import accepts (inclusive). */
export const MIN_TIMESTAMP = "1970-01-01T00:00:00.000Z";
/** Latest timestamp an import accepts (inclusive). */
export const MAX_TIMESTAMP = "9999-12-31T23:59:59.999Z";

const TIMESTAMP_RE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * An ISO 8601 date-time that names a real calendar date and time (no February 30, no hour
 * 24, no second 60) between {@link MIN_TIMESTAMP} and {@link MAX_TIMESTAMP}. Without a zone
 * it is UTC. Precision is milliseconds: further digits are dropped, so that the value stored
 * is exactly the one export returns.
 */
function validateTimestamp(x: unknown, field: string): Date | undefined {
  if (!present(x)) return undefined;
  const format = "must be an ISO 8601 timestamp such as 2024-05-01T12:00:00Z";
  if (typeof x !== "string") throw badRequest(field, format);
  const m = TIMESTAMP_RE.exec(x.trim());
  if (!m) throw badRequest(field, format);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
    throw badRequest(field, `is not a calendar date (${m[1]}-${m[2]}-${m[3]})`);
  }
  const zone = m[8] ?? "Z";
  const zm = /^[+-](\d{2}):?(\d{2})?$/.exec(zone);
  if (hour > 23 || minute > 59 || second > 59 || (zm && (+zm[1] > 23 || +(zm[2] ?? 0) > 59))) {
    throw badRequest(field, "is not a valid time of day or zone offset");
  }
  // Rebuild with four-digit year, millisecond precision and an explicit zone: JavaScript
  // reads a date-time without a zone in the daemon's local time zone.
  const ms = (m[7] ?? "").padEnd(3, "0").slice(0, 3);
  const offset = zone.toUpperCase() === "Z" ? "Z" : `${zone.slice(0, 3)}:${zm?.[2] ?? "00"}`;
  const d = new Date(
    `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? "00"}.${ms}${offset}`,
  );
  if (
    Number.isNaN(d.getTime()) || d.getTime() < Date.parse(MIN_TIMESTAMP) ||
    d.getTime() > Date.parse(MAX_TIMESTAMP)
  ) {
    throw badRequest(field, `must be between ${MIN_TIMESTAMP} and ${MAX_TIMESTAMP}`);
  }
  return d;
}

/** Resolve scope and project together: project scope needs a project, global takes none. */
function resolveScope(
  scopeIn: Scope | undefined,
  project: string | undefined,
  prefix: string,
): { scope: Scope; project: string | null } {
  const scope = scopeIn ?? (project !== undefined ? "project" : "global");
  if (scope === "project" && project === undefined) {
    throw badRequest(`${prefix}project`, "is required when scope is project");
  }
  if (scope === "global" && project !== undefined) {
    throw badRequest(
      `${prefix}project`,
      'must be empty when scope is global (use scope "project" for project memories)',
    );
  }
  return { scope, project: project ?? null };
}

const CREATE_FIELDS = [
  "content",
  "scope",
  "project",
  "type",
  "tags",
  "weight",
  "ttl",
  "supersedes",
  "replace",
] as const;

/** Validate a create input and apply defaults (`replace` is read by {@link validateReplace}). */
export function validateCreate(x: unknown): NewMemory {
  const obj = asObject(x, "body");
  rejectUnknown(obj, CREATE_FIELDS, "");
  const content = validateContent(obj.content, "content");
  const project = validateProject(obj.project, "project");
  const { scope, project: proj } = resolveScope(validateScope(obj.scope, "scope"), project, "");
  const supersedes = !present(obj.supersedes) || obj.supersedes === ""
    ? null
    : validateId(obj.supersedes, "supersedes");
  return {
    content,
    scope,
    project: proj,
    type: validateType(obj.type, "type") ?? "fact",
    tags: validateTags(obj.tags, "tags"),
    weight: validateWeight(obj.weight, "weight"),
    ttlMs: validateTtl(obj.ttl, "ttl"),
    supersedes,
  };
}

/** The `replace` flag of a create input: a boolean, not with `supersedes`. */
export function validateReplace(x: unknown): boolean {
  const obj = asObject(x, "body");
  const r = obj.replace;
  if (!present(r) || r === false) return false;
  if (r !== true) throw badRequest("replace", "must be a boolean");
  if (present(obj.supersedes) && obj.supersedes !== "") {
    throw badRequest("replace", "must not be given with supersedes (which names the memory)");
  }
  return true;
}

const IMPORT_FIELDS = [
  "content",
  "scope",
  "project",
  "type",
  "tags",
  "weight",
  "id",
  "created_at",
  "updated_at",
  "superseded",
  "expansion_cleared_at",
] as const;

/** Validate a whole import before anything is written; errors name the item index. */
export function validateImport(x: unknown): NewMemory[] {
  if (!Array.isArray(x)) throw badRequest("body", "must be a JSON array of memories");
  if (x.length > EXPORT_MAX) {
    throw badRequest("body", `has ${x.length} items; at most ${EXPORT_MAX} per import`);
  }
  return x.map((item, i) => {
    const p = `[${i}].`;
    const obj = asObject(item, `[${i}]`);
    rejectUnknown(obj, IMPORT_FIELDS, p);
    const project = validateProject(obj.project, `${p}project`);
    const { scope, project: proj } = resolveScope(
      validateScope(obj.scope, `${p}scope`),
      project,
      p,
    );
    const createdAt = validateTimestamp(obj.created_at, `${p}created_at`);
    const updatedAt = validateTimestamp(obj.updated_at, `${p}updated_at`) ?? createdAt;
    const superseded = obj.superseded;
    if (present(superseded) && typeof superseded !== "boolean") {
      throw badRequest(
        `${p}superseded`,
        "must be a boolean (true: the memory was replaced, and is imported superseded)",
      );
    }
    return {
      content: validateContent(obj.content, `${p}content`),
      scope,
      project: proj,
      type: validateType(obj.type, `${p}type`) ?? "fact",
      tags: validateTags(obj.tags, `${p}tags`),
      weight: validateWeight(obj.weight, `${p}weight`),
      ttlMs: null,
      supersedes: null,
      superseded: superseded === true,
      expansionClearedAt: validateTimestamp(obj.expansion_cleared_at, `${p}expansion_cleared_at`),
      createdAt,
      updatedAt,
    };
  });
}

/** Validate an update body: only `content` may change. */
export function validateUpdate(x: unknown): string {
  const obj = asObject(x, "body");
  rejectUnknown(obj, ["content"], "");
  return validateContent(obj.content, "content");
}

/**
 * `text`: the value may be query-string text (list); in JSON bodies (search) it must be a
 * number. An empty value means the default, as for the other optional fields.
 */
function validateLimit(x: unknown, def: number, max: number, text: boolean): number {
  return validateCount(x, "limit", def, max, text);
}

/**
 * Check a count `field` of 1..`max` (`def` when absent or empty); with `text`, a query string's
 * digits are taken as its number.
 */
export function validateCount(
  x: unknown,
  field: string,
  def: number,
  max: number,
  text: boolean,
): number {
  if (!present(x) || x === "") return def;
  const n = text && typeof x === "string" && /^-?\d+$/.test(x.trim()) ? Number(x) : x;
  if (typeof n !== "number" || !Number.isInteger(n)) {
    throw badRequest(field, "must be an integer");
  }
  if (n < 1 || n > max) throw badRequest(field, `must be between 1 and ${max}`);
  return n;
}

/**
 * Check a query (or body) object holding only the `allowed` fields (an unknown one is refused
 * by name) and return it.
 */
export function validateFields(x: unknown, allowed: readonly string[]): Record<string, unknown> {
  const obj = asObject(x, "query");
  rejectUnknown(obj, allowed, "");
  return obj;
}

/** Check an export offset (a non-negative integer; query-string text allowed). */
export function validateOffset(x: unknown): number {
  if (!present(x) || x === "") return 0;
  const n = typeof x === "string" && /^\d+$/.test(x.trim()) ? Number(x) : x;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw badRequest("offset", "must be a non-negative integer");
  }
  return n;
}

/** Validated list filter. */
export interface Filter {
  scope?: Scope;
  project?: string;
  type?: MemoryType;
}

function validateFilterFields(obj: Obj): Filter {
  return {
    scope: validateScope(obj.scope, "scope"),
    project: validateProject(obj.project, "project"),
    type: validateType(obj.type, "type"),
  };
}

/** The fewest hex digits of an id prefix (the web UI shows 8). */
export const MIN_ID_PREFIX = 6;

/**
 * Validate an id prefix (hex digits, dashes ignored) and return the range of ids it covers,
 * `[lowest, highest]` as UUIDs; undefined when absent.
 */
export function validateIdPrefix(x: unknown, field = "id_prefix"): [string, string] | undefined {
  if (x === undefined) return undefined;
  if (typeof x !== "string") throw badRequest(field, "must be a string of hex digits");
  const hex = x.replace(/-/g, "").toLowerCase();
  if (!/^[0-9a-f]*$/.test(hex) || hex.length < MIN_ID_PREFIX || hex.length > 32) {
    throw badRequest(
      field,
      `must be ${MIN_ID_PREFIX} to 32 hex digits of a memory id (got ${JSON.stringify(x)})`,
    );
  }
  const uuid = (h: string) =>
    `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return [uuid(hex.padEnd(32, "0")), uuid(hex.padEnd(32, "f"))];
}

/** Validate list filters (values may be query-string text). */
export function validateList(
  x: unknown,
): Filter & { limit: number; idRange?: [string, string] } {
  const obj = asObject(x ?? {}, "query");
  rejectUnknown(obj, ["scope", "project", "type", "limit", "id_prefix"], "");
  const idRange = validateIdPrefix(obj.id_prefix);
  return {
    ...validateFilterFields(obj),
    limit: validateLimit(obj.limit, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, true),
    ...(idRange ? { idRange } : {}),
  };
}

/**
 * Validate bulk delete filters. A filter given with an empty value is refused: treating it
 * as absent would turn `?project=` (an unset variable) into "delete every memory".
 */
export function validateDeleteFilter(x: unknown): Filter {
  const obj = asObject(x ?? {}, "query");
  rejectUnknown(obj, ["scope", "project", "type"], "");
  for (const key of ["scope", "project", "type"]) {
    if (!selectorGiven(obj, key)) continue;
    const value = obj[key];
    if (typeof value !== "string") {
      throw badRequest(key, "must be a string (leave the filter out to match every memory)");
    }
    if (value.trim() === "") {
      throw badRequest(key, "must not be empty (leave the filter out to match every memory)");
    }
  }
  return validateFilterFields(obj);
}

/** Validated search input. */
export interface SearchQuery {
  query: string;
  scope?: Scope | "all";
  project?: string;
  limit: number;
  /** Ask the admin daemon's judge (`RECALL_JUDGE`); the service itself ignores it. */
  judge?: boolean;
  /**
   * Ask the admin daemon's judge to reorder the results (the agent's own search: what it chose
   * first); the service itself ignores it. Not with `judge`.
   */
  rerank?: boolean;
  /**
   * The asker's time budget for the judge (ms, 100..7000): the daemon waits for the model at
   * most the smaller of it and its own `RECALL_JUDGE_TIMEOUT_MS`. Only read with `judge` or
   * `rerank`.
   */
  judge_timeout_ms?: number;
}

/** Validate a search body. */
export function validateSearch(x: unknown): SearchQuery {
  const obj = asObject(x, "body");
  rejectUnknown(
    obj,
    ["query", "scope", "project", "limit", "judge", "rerank", "judge_timeout_ms"],
    "",
  );
  if (obj.judge !== undefined && typeof obj.judge !== "boolean") {
    throw badRequest("judge", "must be true or false");
  }
  if (obj.rerank !== undefined && typeof obj.rerank !== "boolean") {
    throw badRequest("rerank", "must be true or false");
  }
  if (obj.rerank === true && obj.judge === true) {
    throw badRequest("rerank", "must not be given with judge (one of the two)");
  }
  const { min, max } = RECALL_JUDGE_TIMEOUT_BOUNDS;
  const budget = obj.judge_timeout_ms;
  if (
    budget !== undefined &&
    (typeof budget !== "number" || !Number.isInteger(budget) || budget < min || budget > max)
  ) {
    throw badRequest("judge_timeout_ms", `must be an integer between ${min} and ${max}`);
  }
  if (typeof obj.query !== "string") throw badRequest("query", "is required and must be a string");
  const query = storable(obj.query, "query").trim();
  if (query === "") throw badRequest("query", "must not be empty");
  if (query.length > MAX_QUERY) throw badRequest("query", `is longer than ${MAX_QUERY} characters`);
  // Search also takes scope "all" (every project's memories and the global ones): without
  // scope and project a search covers global memories only.
  const all = obj.scope === "all";
  const scope = all ? "all" : validateScope(obj.scope, "scope");
  const project = validateProject(obj.project, "project");
  if (scope === "project" && project === undefined) {
    throw badRequest("project", "is required when scope is project");
  }
  if (all && project !== undefined) {
    throw badRequest("project", "must not be given with scope all");
  }
  return {
    query,
    scope,
    project,
    limit: validateLimit(obj.limit, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, false),
    ...(obj.judge === true ? { judge: true } : {}),
    ...(obj.rerank === true ? { rerank: true } : {}),
    ...((obj.judge === true || obj.rerank === true) && budget !== undefined
      ? { judge_timeout_ms: budget }
      : {}),
  };
}

/**
 * Refuses a text that holds a secret (API key, token, private key, password in an assignment
 * or URL: {@link findSecrets}) with a 400 naming the field and the kinds of secret found, never
 * the secret. The same check for every write path (REST, MCP, CLI, import).
 */
export async function assertNoSecrets(field: string, text: string): Promise<void> {
  const findings = await findSecrets(text);
  if (findings.length) throw badRequest(field, secretWarning("the text", findings));
}

/**
 * The body of POST /api/expansions/clear and /redo: `{"id": UUID}` or `{"all": true}`,
 * exactly one of them, nothing else. A key given with `null` is given ({@link selectorGiven}):
 * `{"id": null, "all": true}` is refused naming `id`, never read as `all`.
 */
export function validateExpansionSelection(
  x: unknown,
): { id: string } | { all: true } {
  if (x === null || typeof x !== "object" || Array.isArray(x)) {
    throw badRequest("body", 'must be a JSON object: {"id": "<uuid>"} or {"all": true}');
  }
  const o = x as Obj;
  rejectUnknown(o, ["id", "all"], "");
  const id = selectorGiven(o, "id");
  const all = selectorGiven(o, "all");
  if (id && typeof o.id !== "string") throw badRequest("id", "must be a UUID (a string)");
  if (id && all) throw badRequest("all", "cannot be combined with id; give one of them");
  if (id) return { id: validateId(o.id) };
  if (!all) throw badRequest("id", 'is required (or "all": true for every memory)');
  if (o.all !== true) throw badRequest("all", "must be true (or give id)");
  return { all: true };
}
