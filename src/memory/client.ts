/**
 * `MemoryClient`: the {@link MemoryService} interface over the Admin API. The MCP server
 * uses it when the embedded database is owned by the admin daemon; `memcli` uses it for
 * everything. Errors keep the API's status and message.
 * @module
 */
import { describeError } from "../common/errors.ts";
import { readBody, readText } from "../common/body.ts";
import { isErrorStatus, MemoryError } from "../domain/errors.ts";
import type {
  Contradiction,
  CreateInput,
  CreateResult,
  DeleteFilter,
  ExportOptions,
  ExportRecord,
  Health,
  ImportItem,
  ImportResult,
  ListFilter,
  Memory,
  MemoryService,
  ReembedProgress,
  SearchInput,
  SearchResult,
  Stats,
} from "./types.ts";

/** Largest JSON answer read from the Admin API (bytes; an export of 10,000 long memories fits). */
const REPLY_LIMIT = 512 * 1024 * 1024;
/** Largest backup read (bytes). */
const BACKUP_LIMIT = 2 ** 31;
/**
 * Options of {@link MemoryClient}.
 *
 * @example
 * ```ts
 * import { MemoryClient, type MemoryClientOptions } from "@mneme/mneme";
 * const options: MemoryClientOptions = {
 *   baseUrl: Deno.env.get("MEMORY_API_URL") ?? "http://127.0.0.1:4200",
 *   apiKey: Deno.env.get("ADMIN_API_KEY"),
 *   timeoutMs: 10_000,
 * };
 * const client = new MemoryClient(options);
 * ```
 */
export interface MemoryClientOptions {
  /** Admin API base URL, e.g. `http://127.0.0.1:4200` (a trailing slash is ignored). */
  baseUrl: string;
  /** The daemon's `ADMIN_API_KEY`, sent as `Authorization: Bearer` when set. */
  apiKey?: string;
  /** Per-request timeout in ms (default 30000; export and import allow longer). */
  timeoutMs?: number;
  /** fetch implementation, e.g. for tests or a custom transport (default: global fetch). */
  fetch?: typeof fetch;
}

/**
 * A typed client of the Admin API (`deno task start`, `memcli start`): every endpoint as a
 * method, with the same {@link MemoryService} interface as the in-process service of
 * `createMemoryService`. A non-2xx answer throws a {@link MemoryError} with the
 * API's status, message and field; an API that cannot be reached is a
 * 503 that says what to start.
 *
 * @example
 * ```ts
 * import { MemoryClient } from "@mneme/mneme";
 * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
 * const { memory } = await client.create({
 *   content: "Run the tests with deno task test",
 *   project: "mneme",
 *   type: "rule",
 * });
 * const hits = await client.search({ query: "how do I run the tests", project: "mneme" });
 * console.log(memory.id, hits.map((h) => h.score));
 * ```
 */
export class MemoryClient implements MemoryService {
  readonly #base: string;
  readonly #key?: string;
  readonly #timeout: number;
  readonly #fetch: typeof fetch;

  /**
   * Create a client; no request is made until a method is called.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200", apiKey: "secret" });
   * ```
   */
  constructor(opts: MemoryClientOptions) {
    this.#base = opts.baseUrl.replace(/\/+$/, "");
    this.#key = opts.apiKey;
    this.#timeout = opts.timeoutMs ?? 30_000;
    this.#fetch = opts.fetch ?? fetch;
  }

  /**
   * The base URL, without a trailing slash.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200/" });
   * console.log(client.baseUrl); // "http://127.0.0.1:4200"
   * ```
   */
  get baseUrl(): string {
    return this.#base;
  }

  /**
   * Make one request and decode the JSON answer; a non-2xx answer becomes a
   * {@link MemoryError}. The typed methods are built on it; use it for a route they do
   * not cover. `query` values that are `undefined` are left out.
   *
   * @example
   * ```ts
   * import { type Memory, MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const rules = await client.request<Memory[]>("GET", "/api/memories", undefined, {
   *   type: "rule",
   *   limit: 10,
   * });
   * ```
   */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string | number | undefined>,
    timeoutMs?: number,
  ): Promise<T> {
    const url = new URL(this.#base + path);
    // Empty values are sent as given: list treats them as absent, bulk delete refuses them.
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.#key) headers.authorization = `Bearer ${this.#key}`;
    let res: Response;
    try {
      res = await this.#fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs ?? this.#timeout),
      });
    } catch (err) {
      throw new MemoryError(
        503,
        `cannot reach the Admin API at ${this.#base} (${describeError(err)}); ` +
          "start it with `memcli start` (or `deno task start`), or set MEMORY_API_URL",
        { cause: err },
      );
    }
    const text = await readText(res, { limit: REPLY_LIMIT });
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const answer = json as { error?: unknown; field?: unknown } | undefined;
      const msg = answer?.error;
      const message = typeof msg !== "string"
        ? `Admin API answered ${res.status}`
        : res.status === 503 && msg === "starting"
        ? `the memory service at ${this.#base} is starting; try again in a few seconds`
        : msg;
      // A status outside the registered 4xx/5xx codes (a CDN's 520) is a bad gateway.
      const status = isErrorStatus(res.status) ? res.status : 502;
      const field = typeof answer?.field === "string" ? answer.field : undefined;
      const err = new MemoryError(status, message, { field });
      err.body = json;
      throw err;
    }
    return json as T;
  }

  /**
   * Store a memory (POST /api/memories, 201). The result lists existing memories that
   * look like contradictions (similarity above 0.75), when there are any.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const { memory, contradictions } = await client.create({
   *   content: "The API listens on port 4200",
   *   project: "mneme",
   *   type: "fact",
   *   tags: ["ports"],
   *   weight: 0.8,
   *   ttl: "30d",
   * });
   * console.log(memory.id, memory.expires_at, contradictions?.length ?? 0);
   * ```
   */
  create(input: CreateInput): Promise<CreateResult> {
    return this.request("POST", "/api/memories", input);
  }

  /**
   * One memory by id (GET /api/memories/:id); a 404 {@link MemoryError} when it is absent
   * or expired.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const memory = await client.get("0190f3a2-7c1e-7000-8000-000000000000");
   * console.log(memory.content, memory.superseded_by);
   * ```
   */
  get(id: string): Promise<Memory> {
    return this.request("GET", `/api/memories/${encodeURIComponent(id)}`);
  }

  /**
   * Current memories, newest update first (GET /api/memories; limit 1..1000, default 50).
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const rules = await client.list({ project: "mneme", type: "rule", limit: 100 });
   * ```
   */
  list(filter: ListFilter = {}): Promise<Memory[]> {
    return this.request("GET", "/api/memories", undefined, { ...filter });
  }

  /**
   * Replace a memory's content (PUT /api/memories/:id); it is embedded again.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const { memory } = await client.create({ content: "The API listens on 4200" });
   * const updated = await client.update(memory.id, { content: "The API listens on 4300" });
   * console.log(updated.updated_at);
   * ```
   */
  update(id: string, input: { content: string }): Promise<Memory> {
    return this.request("PUT", `/api/memories/${encodeURIComponent(id)}`, input);
  }

  /**
   * Delete one memory (DELETE /api/memories/:id); a 404 {@link MemoryError} when absent.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const { memory } = await client.create({ content: "temporary note" });
   * await client.delete(memory.id); // { ok: true }
   * ```
   */
  delete(id: string): Promise<{ ok: true }> {
    return this.request("DELETE", `/api/memories/${encodeURIComponent(id)}`);
  }

  /**
   * Delete up to 1000 memories matching the filter (DELETE /api/memories); no filter
   * matches every memory, an empty filter value is a 400.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const { deleted } = await client.deleteMany({ project: "old-project" });
   * ```
   */
  deleteMany(filter: DeleteFilter = {}): Promise<{ deleted: number }> {
    return this.request("DELETE", "/api/memories", undefined, { ...filter });
  }

  /**
   * Semantic and full-text search (POST /api/memories/search; limit 1..100, default 5).
   * With `project` and no `scope` it covers global memories plus that project's.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * for (const { memory, score } of await client.search({ query: "ports", project: "mneme" })) {
   *   console.log(score.toFixed(3), memory.content);
   * }
   * ```
   */
  search(input: SearchInput): Promise<SearchResult[]> {
    return this.request("POST", "/api/memories/search", input);
  }

  /**
   * Totals of current memories (GET /api/stats).
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const { total, by_scope, by_project, by_type } = await client.stats();
   * ```
   */
  stats(): Promise<Stats> {
    return this.request("GET", "/api/stats");
  }

  /**
   * Up to 10000 current memories without embeddings (POST /api/memories/export), oldest
   * first, in the form {@link MemoryClient.import} accepts; `offset` asks for the next page
   * of a larger store.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const records = await client.export();
   * await Deno.writeTextFile("memories.json", JSON.stringify(records, null, 2));
   * ```
   */
  export(options: ExportOptions = {}): Promise<ExportRecord[]> {
    return this.request(
      "POST",
      "/api/memories/export",
      undefined,
      { offset: options.offset },
      300_000,
    );
  }

  /**
   * Import up to 10000 memories in one transaction (POST /api/memories/import): all are
   * validated first (errors name the item, e.g. `[3].type: ...`) and get new ids. Items
   * already stored (same content, scope, project and type) are skipped and counted.
   *
   * @example
   * ```ts
   * import { type ImportItem, MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const items: ImportItem[] = JSON.parse(await Deno.readTextFile("memories.json"));
   * const { imported, skipped } = await client.import(items);
   * ```
   */
  import(items: ImportItem[]): Promise<ImportResult> {
    return this.request("POST", "/api/memories/import", items, undefined, 600_000);
  }

  /**
   * The existing memories `input` would be reported as contradicting
   * (POST /api/memories/contradictions); nothing is stored.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const found = await client.contradictions({ content: "Staging uses port 6543" });
   * console.log(found.map((c) => c.memory.id));
   * ```
   */
  contradictions(input: CreateInput): Promise<Contradiction[]> {
    return this.request("POST", "/api/memories/contradictions", input);
  }

  /**
   * A consistent copy of the embedded database, taken while the service runs
   * (POST /api/maintenance/backup): the bytes of a gzipped tarball of its data directory.
   * A 409 {@link MemoryError} on server Postgres.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * await Deno.writeFile("mneme-backup.tar.gz", await client.backup());
   * ```
   */
  async backup(): Promise<Uint8Array> {
    const headers: Record<string, string> = {};
    if (this.#key) headers.authorization = `Bearer ${this.#key}`;
    let res: Response;
    try {
      res = await this.#fetch(new URL(this.#base + "/api/maintenance/backup"), {
        method: "POST",
        headers,
        signal: AbortSignal.timeout(600_000),
      });
    } catch (err) {
      throw new MemoryError(
        503,
        `cannot reach the Admin API at ${this.#base} (${describeError(err)})`,
        { cause: err },
      );
    }
    if (!res.ok || res.headers.get("content-type") !== "application/gzip") {
      let msg = `Admin API answered ${res.status}`;
      try {
        const j = JSON.parse(await readText(res, { limit: 64 * 1024, truncate: true }));
        if (typeof j?.error === "string") msg = j.error;
      } catch { /* not JSON */ }
      throw new MemoryError(isErrorStatus(res.status) ? res.status : 502, msg);
    }
    return await readBody(res.body, {
      limit: BACKUP_LIMIT,
      declaredLength: res.headers.get("content-length"),
    });
  }

  /**
   * Database and embedder state (GET /healthz, which needs no key); the body of a 503
   * answer is returned as the health it describes (`status: "error"`).
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * const health = await client.health();
   * console.log(health.status, health.version, health.embedder.provider, health.database.kind);
   * ```
   */
  async health(): Promise<Health> {
    try {
      return await this.request<Health>("GET", "/healthz", undefined, undefined, 5_000);
    } catch (err) {
      const body = err instanceof MemoryError ? err.body : undefined;
      if (body && typeof body === "object" && "status" in body && "database" in body) {
        return body as Health;
      }
      throw err;
    }
  }

  /**
   * Re-embed one batch with the configured embedder (POST /api/maintenance/reembed, body
   * `{batch_size}`); call until `finished`. Resumable.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * let progress = await client.reembed({ batchSize: 200 });
   * while (!progress.finished) progress = await client.reembed({ batchSize: 200 });
   * console.log(`${progress.done}/${progress.total} with ${progress.embedder.model}`);
   * ```
   */
  reembed(options: { batchSize?: number } = {}): Promise<ReembedProgress> {
    return this.request(
      "POST",
      "/api/maintenance/reembed",
      options.batchSize !== undefined ? { batch_size: options.batchSize } : {},
      undefined,
      600_000,
    );
  }

  /**
   * Nothing to release (no connection is kept); present for the {@link MemoryService}
   * interface.
   *
   * @example
   * ```ts
   * import { MemoryClient } from "@mneme/mneme";
   * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
   * await client.close();
   * ```
   */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
