/// <reference lib="dom" />
// @ts-check
// The Admin API over fetch. Errors become ApiError (status, message, field); a 401 asks
// for the API key once (kept in sessionStorage) and retries with `Authorization: Bearer`.

/**
 * The service's own types (type checking only: `deno task check` reads them; the browser
 * sees comments).
 * @typedef {import("../../src/memory/types.ts").Memory} Memory
 * @typedef {import("../../src/memory/types.ts").CreateResult} CreateResult
 * @typedef {import("../../src/memory/types.ts").SearchResult} SearchResult
 * @typedef {import("../../src/memory/types.ts").Stats} Stats
 * @typedef {import("../../src/memory/types.ts").Health} Health
 * @typedef {import("../../src/memory/types.ts").ExpansionInfo} ExpansionInfo
 * @typedef {import("../../src/memory/inbox.ts").InboxItem} InboxItem
 * @typedef {import("../../src/memory/inbox.ts").AcceptResult} AcceptResult
 */

const KEY_STORAGE = "mneme.apiKey";

/** An error answer of the API (or a network failure, status 0). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {string | null} [field] the input at fault, as the API names it (`weight`,
   *   `tags[2]`, `[3].type`)
   */
  constructor(status, message, field = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.field = field;
  }
}

/** @returns {string | null} */
export function storedKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

/** @param {string | null} key */
function storeKey(key) {
  try {
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  } catch { /* storage disabled: the key lives for this page only */ }
  memoryKey = key;
}

let memoryKey = storedKey();

/**
 * How the UI asks for a key: set by the app (a dialog). Resolves to the key, or null when
 * the user cancels.
 * @type {(reason: string) => Promise<string | null>}
 */
let askForKey = () => Promise.resolve(null);
/** @type {Promise<string | null> | null} */
let pendingAsk = null;

/** @param {(reason: string) => Promise<string | null>} fn */
export function setKeyPrompt(fn) {
  askForKey = fn;
}

/** Forget the stored key (the "Sign out" action). */
export function forgetKey() {
  storeKey(null);
}

/** @returns {boolean} */
export function hasKey() {
  return !!memoryKey;
}

/**
 * @param {string} method
 * @param {string} path
 * @param {{ body?: unknown, raw?: string, query?: Record<string, string | undefined> }} [opts]
 * @returns {Promise<Response>}
 */
async function send(method, path, opts = {}) {
  let url = path;
  if (opts.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== "") q.set(k, v);
    const s = q.toString();
    if (s) url += `?${s}`;
  }
  for (let attempt = 0;; attempt++) {
    /** @type {Record<string, string>} */
    const headers = { accept: "application/json" };
    if (memoryKey) headers.authorization = `Bearer ${memoryKey}`;
    let body;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    let res;
    try {
      res = await fetch(url, { method, headers, body });
    } catch (err) {
      throw new ApiError(
        0,
        `cannot reach the admin service (${err instanceof Error ? err.message : err}); ` +
          "is the daemon still running?",
      );
    }
    if (res.status === 401 && attempt < 3) {
      const { message: reason } = await errorOf(res);
      const hadKey = !!memoryKey;
      storeKey(null);
      if (!pendingAsk) {
        pendingAsk = askForKey(hadKey ? reason : "").finally(() => (pendingAsk = null));
      }
      const key = await pendingAsk;
      if (!key && !memoryKey) throw new ApiError(401, `${reason} (no API key entered)`);
      if (key) storeKey(key);
      continue;
    }
    if (!res.ok) {
      const { message, field } = await errorOf(res);
      throw new ApiError(res.status, message, field);
    }
    return res;
  }
}

/**
 * The message and field of an error answer (`{error, field?}`).
 * @param {Response} res
 * @returns {Promise<{ message: string, field: string | null }>}
 */
async function errorOf(res) {
  const text = await res.text().catch(() => "");
  try {
    const j = JSON.parse(text);
    if (j && typeof j.error === "string") {
      return { message: j.error, field: typeof j.field === "string" ? j.field : null };
    }
  } catch { /* not JSON */ }
  const message = `HTTP ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ""}`;
  return { message, field: null };
}

/**
 * @param {string} method
 * @param {string} path
 * @param {{ body?: unknown, raw?: string, query?: Record<string, string | undefined> }} [opts]
 */
async function json(method, path, opts) {
  const res = await send(method, path, opts);
  return await res.json();
}

export const api = {
  /** @returns {Promise<Health>} */
  health: async () => {
    // /healthz answers 503 with the Health JSON when something is down: show it, not throw.
    let res;
    try {
      res = await fetch("/healthz", { headers: { accept: "application/json" } });
    } catch (err) {
      throw new ApiError(0, `cannot reach the admin service (${err}); is the daemon running?`);
    }
    const body = await res.json().catch(() => null);
    if (!body || typeof body.status !== "string") {
      throw new ApiError(res.status, (body && body.error) || `HTTP ${res.status}`);
    }
    return body;
  },
  /** @returns {Promise<Stats>} */
  stats: () => json("GET", "/api/stats"),
  /**
   * @param {Record<string, string | undefined>} query
   * @returns {Promise<Memory[]>}
   */
  list: (query) => json("GET", "/api/memories", { query }),
  /**
   * @param {string} id
   * @returns {Promise<Memory>}
   */
  get: (id) => json("GET", `/api/memories/${encodeURIComponent(id)}`),
  /**
   * A memory's search phrases (MEMORY_EXPANSION) and their state.
   * @param {string} id
   * @returns {Promise<ExpansionInfo>}
   */
  expansion: (id) => json("GET", `/api/memories/${encodeURIComponent(id)}/expansion`),
  /**
   * @param {Record<string, unknown>} body
   * @returns {Promise<CreateResult>}
   */
  create: (body) => json("POST", "/api/memories", { body }),
  /**
   * @param {string} id
   * @param {string} content
   * @returns {Promise<Memory>}
   */
  update: (id, content) =>
    json("PUT", `/api/memories/${encodeURIComponent(id)}`, { body: { content } }),
  /**
   * @param {string} id
   * @returns {Promise<{ ok: true }>}
   */
  remove: (id) => json("DELETE", `/api/memories/${encodeURIComponent(id)}`),
  /**
   * @param {Record<string, string | undefined>} query
   * @returns {Promise<{ deleted: number }>}
   */
  removeMany: (query) => json("DELETE", "/api/memories", { query }),
  /**
   * @param {Record<string, unknown>} body
   * @returns {Promise<SearchResult[]>}
   */
  search: (body) => json("POST", "/api/memories/search", { body }),
  /** @returns {Promise<Blob>} */
  exportBlob: async () => (await send("POST", "/api/memories/export")).blob(),
  /**
   * @param {string} text
   * @returns {Promise<{ imported: number, skipped: number }>}
   */
  importText: (text) => json("POST", "/api/memories/import", { raw: text }),
  /**
   * Capture's proposals waiting for review.
   * @param {Record<string, string | undefined>} query
   * @returns {Promise<InboxItem[]>}
   */
  inbox: (query) => json("GET", "/api/inbox", { query }),
  /**
   * Accept a proposal; `{ pin: true }` stores it pinned to session start (type `bootstrap`,
   * its own type kept as a tag), as `memcli inbox accept --pin` does. The API checks the body.
   * @param {string} id
   * @param {{ pin?: boolean }} [options]
   * @returns {Promise<AcceptResult>}
   */
  acceptProposal: (id, options = {}) =>
    json(
      "POST",
      `/api/inbox/${encodeURIComponent(id)}/accept`,
      options.pin ? { body: { pin: true } } : {},
    ),
  /**
   * @param {string} id
   * @returns {Promise<{ rejected: string }>}
   */
  rejectProposal: (id) => json("POST", `/api/inbox/${encodeURIComponent(id)}/reject`),
  /**
   * @param {string} id
   * @param {string} content
   * @returns {Promise<InboxItem>}
   */
  editProposal: (id, content) =>
    json("PUT", `/api/inbox/${encodeURIComponent(id)}`, { body: { content } }),
};
