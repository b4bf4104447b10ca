/**
 * Public types of the memory service: what the Admin API, the MCP server and the
 * in-process service accept and return.
 * @module
 */

export {
  type Memory,
  MEMORY_TYPES,
  type MemoryType,
  type Scope,
  SCOPES,
} from "../domain/memory.ts";
import type { Memory, MemoryType, Scope } from "../domain/memory.ts";
import type { JudgeReport } from "./judge.ts";
export type { JudgeFallback, JudgeReport } from "./judge.ts";

/**
 * Input of `create` (POST /api/memories).
 *
 * @example
 * ```ts
 * import type { CreateInput } from "@mneme/mneme";
 * const input: CreateInput = {
 *   content: "Staging deploys need a green CI run",
 *   project: "mneme", // scope becomes "project"
 *   type: "rule",
 *   tags: ["deploy", "ci"],
 *   weight: 0.9,
 *   ttl: "2w",
 * };
 * ```
 */
export interface CreateInput {
  /** Required, non-empty text. */
  content: string;
  /** Default `global`, or `project` when only `project` is given. */
  scope?: Scope;
  /** Required with scope `project`. */
  project?: string;
  /** Default `fact`. */
  type?: MemoryType;
  /** Optional labels. */
  tags?: string[];
  /** 0.1..1.0, default 1.0. */
  weight?: number;
  /** Lifetime such as `30m`, `24h`, `7d`, `2w` or `1d12h`; empty means none. */
  ttl?: string;
  /** Id of the memory this one replaces; empty string means none. */
  supersedes?: string;
  /**
   * Supersede the one existing memory this one contradicts (similarity above 0.75), in the
   * same transaction as the insert; a 409 naming them when several do; stored as usual when
   * none does. Not with `supersedes`.
   */
  replace?: boolean;
}

/**
 * An existing memory that looks like it says the same thing differently.
 *
 * @example
 * ```ts
 * import type { Contradiction } from "@mneme/mneme";
 * const describe = ({ memory, similarity }: Contradiction) =>
 *   `${similarity.toFixed(2)} similar to ${memory.id}: ${memory.content}`;
 * ```
 */
export interface Contradiction {
  /** The existing memory. */
  memory: Memory;
  /** Cosine similarity to the new content (greater than 0.75). */
  similarity: number;
}

/**
 * Result of `create`. `contradictions` is present only when there is at least one.
 *
 * @example
 * ```ts
 * import type { CreateResult } from "@mneme/mneme";
 * function report({ memory, contradictions = [] }: CreateResult): string {
 *   return `${memory.id} stored, ${contradictions.length} possible contradictions`;
 * }
 * ```
 */
export interface CreateResult {
  /** The stored memory. */
  memory: Memory;
  /** Existing memories with similarity above 0.75 in the same scope hierarchy. */
  contradictions?: Contradiction[];
}

/**
 * Filters of `list` (GET /api/memories).
 *
 * @example
 * ```ts
 * import type { ListFilter } from "@mneme/mneme";
 * const filter: ListFilter = { scope: "project", project: "mneme", type: "rule", limit: 200 };
 * ```
 */
export interface ListFilter {
  /** Only this scope. */
  scope?: Scope;
  /** Only this project. */
  project?: string;
  /** Only this type. */
  type?: MemoryType;
  /**
   * Only the memories whose id starts with these hex digits (6 to 32, dashes ignored: the
   * short id the web UI shows), to resolve a short id.
   */
  id_prefix?: string;
  /** 1..1000, default 50. */
  limit?: number;
}

/**
 * Filters of bulk delete (DELETE /api/memories).
 *
 * @example
 * ```ts
 * import type { DeleteFilter } from "@mneme/mneme";
 * const filter: DeleteFilter = { project: "old-project", type: "context" };
 * ```
 */
export interface DeleteFilter {
  /** Only this scope. */
  scope?: Scope;
  /** Only this project. */
  project?: string;
  /** Only this type. */
  type?: MemoryType;
}

/**
 * Input of `search` (POST /api/memories/search).
 *
 * @example
 * ```ts
 * import type { SearchInput } from "@mneme/mneme";
 * const input: SearchInput = { query: "how are releases tagged", project: "mneme", limit: 10 };
 * ```
 */
export interface SearchInput {
  /** Required, non-empty query text. */
  query: string;
  /**
   * Restrict to one scope, or `all`: every project's memories and the global ones. Without
   * scope and project a search covers global memories only.
   */
  scope?: Scope | "all";
  /** With a project the search is hierarchical: global plus that project's memories. */
  project?: string;
  /** 1..100, default 5. */
  limit?: number;
  /**
   * Ask the admin daemon's judge (`RECALL_JUDGE=on`) which of the first results the agent should
   * be shown: the results then carry `chosen` when it answered. Ignored where there is no judge
   * (the judge off, the service in-process).
   */
  judge?: boolean;
  /**
   * Ask the admin daemon's judge (`RECALL_JUDGE=on`) to reorder the results: the memories the
   * model chose among the first 10 come first, then the rest, each carrying `chosen`, cut to
   * `limit`. The order is the plain one (no `chosen`) when it did not answer, and where there is
   * no judge (the judge off, the service in-process). Not with `judge`.
   */
  rerank?: boolean;
  /**
   * With `judge` or `rerank`: the asker's time budget for the model (ms, integer 100..7000); the
   * daemon waits at most the smaller of it and its own `RECALL_JUDGE_TIMEOUT_MS`.
   */
  judge_timeout_ms?: number;
}

/**
 * One search hit.
 *
 * @example
 * ```ts
 * import type { SearchResult } from "@mneme/mneme";
 * const lines = (hits: SearchResult[]) =>
 *   hits.map(({ memory, score }) => `${score.toFixed(3)} ${memory.content}`);
 * ```
 */
export interface SearchResult {
  /** The memory. */
  memory: Memory;
  /** relevance × scope_weight × weight × temporal_decay: ranks the results. */
  score: number;
  /**
   * How likely the memory is about the query, 0..1, with one meaning whatever the project's
   * size and the query's length (how much of the query's information and names the memory
   * covers, and its lexical match). The prompt hook injects only results of 0.7 or more.
   */
  confidence: number;
  /**
   * Present only in the Admin API's answer to a search with `"judge": true` or `"rerank": true`
   * when the admin daemon's judge (`RECALL_JUDGE=on`) answered: whether the model chose the
   * memory for the prompt (the hook then injects the chosen ones only; a rerank lists them
   * first). Absent when it did not judge.
   */
  chosen?: boolean;
}

/**
 * Why memory expansion's worker waits (`Stats.expansion.waiting_for`): `budget`, until the next
 * day (UTC); `backoff`, after a failed call; `lease`, while another daemon's worker on the same
 * database is expanding.
 *
 * @example
 * ```ts
 * import { type ExpansionWait, MemoryClient } from "@mneme/mneme";
 * const stats = await new MemoryClient({ baseUrl: "http://127.0.0.1:4200" }).stats();
 * const wait: ExpansionWait | undefined = stats.expansion?.waiting_for;
 * if (wait === "budget") console.log("the daily token budget is spent");
 * ```
 */
export type ExpansionWait = "budget" | "backoff" | "lease";

/**
 * A memory's expansion (`MEMORY_EXPANSION`, docs/recall.md): the phrases a model wrote for it
 * (never shown elsewhere, exported or injected), and its state: `expanded`, `waiting` for the
 * worker, `cleared` (removed by hand, or kept from one: searched by its content only, not
 * expanded again until redone), or `none` (superseded or expired: the worker skips it).
 */
export interface ExpansionInfo {
  id: string;
  state: "expanded" | "waiting" | "cleared" | "none";
  phrases: string[];
  /** The model that wrote them (`provider/model`), null without phrases. */
  model: string | null;
  /** When the expansion was removed by hand, for `cleared`. */
  cleared_at: string | null;
}

/** Which memories `memcli expansion clear` and `redo` act on: one, or every one. */
export type ExpansionSelection = { id: string } | { all: true };

/** What the Admin API's expansion routes need of the service (SqlMemoryService). */
export interface ExpansionAdmin {
  /** Memory `id`'s expansion (404 when absent). */
  expansionOf(id: string): Promise<ExpansionInfo>;
  /** Remove expansions: a body validated as an {@link ExpansionSelection}. */
  clearExpansions(input: unknown): Promise<{ cleared: number }>;
  /** Let the worker expand again memories whose expansion was removed. */
  redoExpansions(input: unknown): Promise<{ requeued: number }>;
}

/**
 * Totals of current (unexpired) memories.
 *
 * @example
 * ```ts
 * import type { Stats } from "@mneme/mneme";
 * const stats: Stats = {
 *   total: 3,
 *   live: 2,
 *   superseded: 1,
 *   by_scope: { global: 1, project: 2 },
 *   by_project: { mneme: 2 },
 *   by_type: { fact: 2, rule: 1 },
 * };
 * ```
 */
export interface Stats {
  /** Number of current (unexpired) memories, the superseded ones included. */
  total: number;
  /**
   * Of `total`, the memories not superseded: the ones search, recall and the bootstrap use
   * (absent from older services).
   */
  live?: number;
  /** Of `total`, the memories superseded by a newer one (absent from older services). */
  superseded?: number;
  /** Count per scope (the superseded memories included). */
  by_scope: Record<string, number>;
  /** Count per project (project-scoped memories only; the superseded included). */
  by_project: Record<string, number>;
  /** Count per type (the superseded included). */
  by_type: Record<string, number>;
  /**
   * Memories expanded by a model (`MEMORY_EXPANSION`; absent when off): memories expanded and
   * waiting, tokens spent today (UTC) against the daily budget, the model, and why the worker
   * waits (`budget`: until the next day; `backoff`: after a failed call, `last_error`; `lease`:
   * another daemon's worker on the same database is expanding).
   */
  expansion?: {
    on: true;
    model?: string;
    expanded: number;
    waiting: number;
    tokens_today: number;
    daily_tokens: number;
    waiting_for?: ExpansionWait;
    last_error?: string;
  };
  /**
   * The judge of the prompt hook's candidates (`RECALL_JUDGE=on`; absent when off): its model,
   * time budget, tokens today against the daily budget, the requests it judged and the ones that
   * fell back by reason (the Admin API's `GET /api/stats` only).
   */
  judge?: JudgeReport;
}

/**
 * Options of {@link MemoryService.export}: `offset` pages through more than 10000 memories.
 *
 * @example
 * ```ts
 * import { type ExportOptions, MemoryClient } from "@mneme/mneme";
 * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
 * const secondPage: ExportOptions = { offset: 10_000 };
 * const records = await client.export(secondPage);
 * ```
 */
export interface ExportOptions {
  /** Memories to skip, oldest first (default 0): page through more than 10000. */
  offset?: number;
}

/**
 * One memory in an export file. Embeddings are never exported.
 *
 * @example
 * ```ts
 * import type { ExportRecord } from "@mneme/mneme";
 * const record: ExportRecord = {
 *   id: "0190f3a2-7c1e-7000-8000-000000000000",
 *   content: "Prefer small pull requests",
 *   scope: "global",
 *   type: "feedback",
 *   tags: [],
 *   weight: 1,
 *   created_at: "2025-01-01T00:00:00.000Z",
 *   updated_at: "2025-01-02T00:00:00.000Z",
 * };
 * ```
 */
export interface ExportRecord {
  /** Original id (a new one is assigned on import). */
  id: string;
  /** Text. */
  content: string;
  /** Scope. */
  scope: Scope;
  /** Project, present only when set. */
  project?: string;
  /** Type. */
  type: MemoryType;
  /** Tags. */
  tags: string[];
  /** Weight. */
  weight: number;
  /** Creation time. */
  created_at: string;
  /** Last update time. */
  updated_at: string;
  /**
   * Present (true) only when the memory was superseded: an import stores it superseded, left
   * out of search and recall, with its weight. Which memory replaced it is not kept.
   */
  superseded?: true;
  /**
   * Present only when the memory's expansion was cleared by hand (`memcli expansion clear`):
   * when, ISO 8601. An import keeps it so: not expanded until `memcli expansion redo`.
   */
  expansion_cleared_at?: string;
}

/**
 * What an import did: `imported` items stored, `skipped` items left out because a memory
 * with the same content, scope, project and type is already stored (or came earlier in the
 * same import).
 *
 * @example
 * ```ts
 * import type { ImportResult } from "@mneme/mneme";
 * const line = (r: ImportResult) => `${r.imported} imported, ${r.skipped} already stored`;
 * ```
 */
export interface ImportResult {
  /** Items stored. */
  imported: number;
  /** Items already stored (same content, scope, project and type), left out. */
  skipped: number;
}

/**
 * One item of an import. Export records are accepted as they are.
 *
 * @example
 * ```ts
 * import type { ImportItem } from "@mneme/mneme";
 * const items: ImportItem[] = [
 *   { content: "Use UTC in logs" },
 *   { content: "The CLI is memcli", project: "mneme", type: "fact", tags: ["cli"] },
 * ];
 * ```
 */
export interface ImportItem {
  /** Required text. */
  content: string;
  /** Scope, default `global` (or `project` when only project is given). */
  scope?: Scope;
  /** Project. */
  project?: string;
  /** Type, default `fact`. */
  type?: MemoryType;
  /** Tags. */
  tags?: string[];
  /** Weight, default 1.0. */
  weight?: number;
  /** Ignored: imports always get new ids. */
  id?: string;
  /**
   * Kept when valid, so that temporal decay survives a move: an ISO 8601 date-time naming a
   * real calendar date between 1970-01-01 and 9999-12-31 (UTC when it has no zone), kept to
   * the millisecond.
   */
  created_at?: string;
  /** Kept when valid, so that temporal decay survives a move. */
  updated_at?: string;
  /**
   * True for a memory that was replaced (an export's `superseded`): it is stored superseded,
   * out of search and recall, with its weight. Absent or false: a current memory.
   */
  superseded?: boolean;
  /**
   * An export's `expansion_cleared_at` (ISO 8601, validated as `created_at`): the memory is
   * stored with its expansion cleared, not expanded until redone. Absent: expanded as any other.
   */
  expansion_cleared_at?: string;
}

import type { EmbedderInfo } from "../embed/embedder.ts";
export type { EmbedderInfo };

/**
 * Health of the service (GET /healthz).
 *
 * @example
 * ```ts
 * import type { Health } from "@mneme/mneme";
 * function summary(h: Health): string {
 *   if (h.maintenance) return `maintenance: ${h.maintenance.reason}`;
 *   return `${h.status}: ${h.database.kind} ${h.database.ok ? "up" : "down"}, ` +
 *     `${h.embedder.provider}/${h.embedder.model} ${h.embedder.ok ? "up" : "down"}`;
 * }
 * ```
 */
export interface Health {
  /** `ok`, `maintenance` (embedder mismatch, see `maintenance`) or `error`. */
  status: "ok" | "maintenance" | "error";
  /** Project version. */
  version: string;
  /**
   * Database kind, reachability and size on disk in bytes (when reachable). On the embedded
   * database also its dead rows (counted since its last clean start) and its last vacuum:
   * when it ended, how long it took, the dead rows it found (server Postgres: autovacuum).
   * `busy_ms`: the embedded database did not answer within 50 ms because it is running a
   * long statement (an import's index build, a vacuum, a backup) for that long; the other
   * fields are then those of its last answer (the daemon goes on answering meanwhile).
   * `unloaded`: the embedded database is closed after a quiet spell (`DATABASE_IDLE_UNLOAD_S`)
   * and opens at the next request that needs it; the other fields are those of its last
   * answer, or `ok: false` with the `error` of a failed attempt to open it again.
   */
  database: {
    kind: "pglite" | "postgres";
    ok: boolean;
    busy_ms?: number;
    unloaded?: boolean;
    size_bytes?: number;
    error?: string;
    dead_rows?: number;
    last_vacuum?: { at: string; took_ms: number; dead_rows: number } | null;
  };
  /** The configured embedder and whether it answered. */
  embedder: EmbedderInfo & { ok: boolean; error?: string };
  /** The embedder that made the stored vectors. */
  stored_embedder: EmbedderInfo | null;
  /** Present when the stored vectors need `memcli reembed`. */
  maintenance?: { reason: string };
}

/**
 * Progress of a re-embedding run.
 *
 * @example
 * ```ts
 * import type { ReembedProgress } from "@mneme/mneme";
 * const percent = (p: ReembedProgress): number =>
 *   p.total === 0 ? 100 : Math.round((p.done / p.total) * 100);
 * ```
 */
export interface ReembedProgress {
  /** Memories re-embedded so far in this run. */
  done: number;
  /** Memories in the run. */
  total: number;
  /** True when the run completed and the new embedder is recorded. */
  finished: boolean;
  /** The embedder the vectors are being (or were) made with. */
  embedder: EmbedderInfo;
}

/**
 * The one interface behind the Admin API, the MCP server and the HTTP client.
 *
 * @example
 * ```ts
 * import { createMemoryService, MemoryClient, type MemoryService } from "@mneme/mneme";
 * async function remember(service: MemoryService, content: string): Promise<string> {
 *   const { memory } = await service.create({ content, project: "mneme" });
 *   return memory.id;
 * }
 * // The same code runs against a daemon or in-process:
 * await remember(new MemoryClient({ baseUrl: "http://127.0.0.1:4200" }), "over HTTP");
 * const local = await createMemoryService({ dataDir: await Deno.makeTempDir() });
 * await remember(local, "in-process");
 * await local.close();
 * ```
 */
export interface MemoryService {
  /** Validate, embed, check contradictions, insert, supersede. */
  create(input: CreateInput): Promise<CreateResult>;
  /** One memory by id (404 when absent). */
  get(id: string): Promise<Memory>;
  /** Current memories, newest update first. */
  list(filter?: ListFilter): Promise<Memory[]>;
  /** Replace the content (re-embedded). */
  update(id: string, input: { content: string }): Promise<Memory>;
  /** Delete one memory (404 when absent). */
  delete(id: string): Promise<{ ok: true }>;
  /** Delete up to 1000 memories matching the filter. */
  deleteMany(filter?: DeleteFilter): Promise<{ deleted: number }>;
  /** Semantic and full-text search with the project hierarchy. */
  search(input: SearchInput): Promise<SearchResult[]>;
  /** Totals. */
  stats(): Promise<Stats>;
  /**
   * Up to 10000 current memories, without embeddings, oldest first; `offset` skips that
   * many (the next page of a larger store).
   */
  export(options?: ExportOptions): Promise<ExportRecord[]>;
  /** Validate all, re-embed, insert in one transaction. */
  import(items: ImportItem[]): Promise<ImportResult>;
  /** The existing memories `input` would be reported as contradicting; nothing is stored. */
  contradictions(input: CreateInput): Promise<Contradiction[]>;
  /** Database and embedder state. */
  health(): Promise<Health>;
  /** Re-embed one batch with the configured embedder; call until `finished`. */
  reembed(options?: { batchSize?: number }): Promise<ReembedProgress>;
  /** Release connections. */
  close(): Promise<void>;
}
