/**
 * `MemoryClient`: the {@link MemoryService} interface over the Admin API. The MCP server
 * uses it when the embedded database is owned by the admin daemon; `memcli` uses it for
 * everything. Errors keep the API's status and message.
 * @module
 */
import { describeError, type ErrorStatus, MemoryError } from "./errors.ts";
import type {
  CreateInput,
  CreateResult,
  DeleteFilter,
  ExportRecord,
  Health,
  ImportItem,
  ListFilter,
  Memory,
  MemoryService,
  ReembedProgress,
  SearchInput,
  SearchResult,
  Stats,
} from "./types.ts";

/** Options of {@link MemoryClient}. */
export interface MemoryClientOptions {
  /** Admin API base URL, e.g. `http://127.0.0.1:4200`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer` when set. */
  apiKey?: string;
  /** Per-request timeout in ms (default 30000). */
  timeoutMs?: number;
  /** fetch implementation (tests). */
  fetch?: typeof fetch;
}

/** A typed client of the Admin API. */
export class MemoryClient implements MemoryService {
  readonly #base: string;
  readonly #key?: string;
  readonly #timeout: number;
  readonly #fetch: typeof fetch;

  /** Create a client; no request is made until a method is called. */
  constructor(opts: MemoryClientOptions) {
    this.#base = opts.baseUrl.replace(/\/+$/, "");
    this.#key = opts.apiKey;
    this.#timeout = opts.timeoutMs ?? 30_000;
    this.#fetch = opts.fetch ?? fetch;
  }

  /** The base URL. */
  get baseUrl(): string {
    return this.#base;
  }

  /** Make a request and decode the JSON answer; non-2xx becomes a {@link MemoryError}. */
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
          "start it with `memcli setup` (or `deno task start`), or set MEMORY_API_URL",
        { cause: err },
      );
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const msg = (json as { error?: unknown } | undefined)?.error;
      const err = new MemoryError(
        res.status as ErrorStatus,
        typeof msg === "string" ? msg : `Admin API answered ${res.status}`,
      );
      err.body = json;
      throw err;
    }
    return json as T;
  }

  create(input: CreateInput): Promise<CreateResult> {
    return this.request("POST", "/api/memories", input);
  }
  get(id: string): Promise<Memory> {
    return this.request("GET", `/api/memories/${encodeURIComponent(id)}`);
  }
  list(filter: ListFilter = {}): Promise<Memory[]> {
    return this.request("GET", "/api/memories", undefined, { ...filter });
  }
  update(id: string, input: { content: string }): Promise<Memory> {
    return this.request("PUT", `/api/memories/${encodeURIComponent(id)}`, input);
  }
  delete(id: string): Promise<{ ok: true }> {
    return this.request("DELETE", `/api/memories/${encodeURIComponent(id)}`);
  }
  deleteMany(filter: DeleteFilter = {}): Promise<{ deleted: number }> {
    return this.request("DELETE", "/api/memories", undefined, { ...filter });
  }
  search(input: SearchInput): Promise<SearchResult[]> {
    return this.request("POST", "/api/memories/search", input);
  }
  stats(): Promise<Stats> {
    return this.request("GET", "/api/stats");
  }
  export(): Promise<ExportRecord[]> {
    return this.request("POST", "/api/memories/export", undefined, undefined, 300_000);
  }
  import(items: ImportItem[]): Promise<{ imported: number }> {
    return this.request("POST", "/api/memories/import", items, undefined, 600_000);
  }
  /** GET /healthz; a 503 body is returned as the health it describes. */
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
  reembed(options: { batchSize?: number } = {}): Promise<ReembedProgress> {
    return this.request(
      "POST",
      "/api/maintenance/reembed",
      options.batchSize !== undefined ? { batch_size: options.batchSize } : {},
      undefined,
      600_000,
    );
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
