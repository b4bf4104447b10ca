/**
 * The memory service over a {@link Store} and an {@link Embedder}: validation, defaults,
 * contradiction warnings, supersession, hierarchical search with scoring, TTL, import and
 * export, and re-embedding. The clock is injected so that tests control time.
 * @module
 */
import { Reclaimer, type ReclaimerOptions } from "./vacuum.ts";
import { type Embedder, sameEmbedder } from "../embed/embedder.ts";
import { builtinWordVectors, type WordVectors } from "../embed/words.ts";
import { terms } from "../domain/terms.ts";
import { variantsOf } from "../domain/forms.ts";
import { confidenceOf, profileQuery, type Signals, signalsOf } from "./confidence.ts";
import {
  lexicalQuery,
  rank,
  RECALL_CANDIDATES,
  type Retrieval,
  SUPERSEDED_WEIGHT,
} from "./ranking.ts";
import { type DbHandle, fixedHandle } from "../store/db.ts";
import type { NewRow, ScopeFilter } from "../store/sql.ts";
import { importKey } from "../store/imports.ts";
import type { Store } from "../store/store.ts";
import { VERSION } from "../version.ts";
import { describeError } from "../common/errors.ts";
import { badRequest, isIdleClosed, MemoryError, notFound } from "../domain/errors.ts";
import type {
  Contradiction,
  CreateInput,
  CreateResult,
  DeleteFilter,
  EmbedderInfo,
  ExportOptions,
  ExportRecord,
  Health,
  ImportItem,
  ImportResult,
  ListFilter,
  Memory,
  MemoryService,
  ReembedProgress,
  Scope,
  SearchInput,
  SearchResult,
  Stats,
} from "./types.ts";
import {
  assertNoSecrets,
  BULK_DELETE_MAX,
  EXPORT_MAX,
  type NewMemory,
  validateCreate,
  validateDeleteFilter,
  validateId,
  validateImport,
  validateList,
  validateOffset,
  validateReplace,
  validateSearch,
  validateUpdate,
} from "./validate.ts";

/** Similarity above which an existing memory is reported as a possible contradiction. */
export const CONTRADICTION_THRESHOLD = 0.75;
/** Nearest memories checked for contradictions. */
export const CONTRADICTION_CANDIDATES = 5;
/** Items embedded per call during an import (the event loop gets a turn after each). */
export const IMPORT_EMBED_BATCH = 256;
/**
 * Items of an import embedded and then staged at a time: only one slice's vectors are held
 * (an import of 10,000 held all of them, some 60 MB of JavaScript arrays for 768 dimensions,
 * and the daemon kept the heap it grew to).
 */
export const IMPORT_SLICE = 4 * IMPORT_EMBED_BATCH;
/**
 * How long after the last bulk import the database's worker is renewed (its index build's
 * memory given back): long enough for the next request of a series of imports to begin. The
 * database must also have been quiet that long: requests that follow an import (a benchmark's
 * creates, a session's searches) are not made to wait for the fresh worker, unless they go on
 * for {@link RENEW_AFTER_IMPORT_MAX_MS}.
 */
export const RENEW_AFTER_IMPORT_MS = 1000;
/** The renewal after bulk imports waits for a quiet spell at most this long (ms) after the last one. */
export const RENEW_AFTER_IMPORT_MAX_MS = 30_000;
/**
 * Imports of at least this many memories refresh the statistics and vacuum once published:
 * once a series of imports has ended ({@link IMPORT_ANALYZE_QUIET_MS}), not in each request.
 */
export const IMPORT_ANALYZE_MIN = 100;
/**
 * The analyze an import left due runs once no import has run for this long (ms): clients
 * that send an import in chunks of 1,000 pay it once, after their last chunk, rather than
 * about a second per chunk. An import that at least doubles the stored memories analyzes
 * at once, within its request, so that the searches after it are planned for its size.
 */
export const IMPORT_ANALYZE_QUIET_MS = 1500;
/** The analyze an import left due waits for a quiet spell at most this long (ms) after it. */
export const IMPORT_ANALYZE_MAX_MS = 30_000;
/** Time an import's chunk transaction aims at: well under the 200 ms reads may wait. */
export const IMPORT_CHUNK_TARGET_MS = 50;
/** Smallest and largest import chunk (rows). */
export const IMPORT_CHUNK_MIN = 16;
const IMPORT_CHUNK_MAX = 1000;

/**
 * With `IMPORT_BULK` on, imports of at least this many items on the embedded database take the
 * bulk path, when they are at least half as many as the memories already stored: the HNSW index
 * is dropped, the rows staged without it, and the index built once before they are published
 * (a build costs about a quarter of as many insertions into the live graph, measured on PGlite;
 * docs/performance.md). The build (about 0.45 ms a memory) holds the database's worker thread
 * (src/store/pglite/worker.ts), not the daemon's: `/healthz` answers meanwhile, reads of the
 * database wait for it. On by default; `IMPORT_BULK=off` turns it off.
 */
export const BULK_IMPORT_MIN = 2000;

/**
 * How long `/healthz` waits for the embedded database before it answers from the database's
 * last answer, with how long it has been busy (`database.busy_ms`).
 */
export const HEALTH_DATABASE_WAIT_MS = 50;

/** Let the event loop run pending I/O (other requests) before going on. */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Write `rows` in chunks, each one call of `write` taking about
 * {@link IMPORT_CHUNK_TARGET_MS} (the size adapts to the measured time, at most doubling
 * from one chunk to the next), with a turn of the event loop after each: other requests
 * wait for one chunk at most.
 */
async function writeInChunks<T>(
  rows: T[],
  write: (chunk: T[]) => Promise<void>,
  state = { size: IMPORT_CHUNK_MIN },
): Promise<void> {
  let size = state.size;
  for (let i = 0; i < rows.length;) {
    const chunk = rows.slice(i, i + size);
    const t0 = performance.now();
    await write(chunk);
    i += chunk.length;
    const ms = Math.max(performance.now() - t0, 1);
    const scaled = Math.floor(size * Math.min(2, IMPORT_CHUNK_TARGET_MS / ms));
    size = Math.max(IMPORT_CHUNK_MIN, Math.min(IMPORT_CHUNK_MAX, scaled));
    state.size = size;
    await nextTurn();
  }
}

/** A validated memory as a row to insert, with a new id; times default to `now`. */
function newRow(v: NewMemory, embedding: number[], now: Date): NewRow {
  const id = crypto.randomUUID();
  return {
    id,
    content: v.content,
    scope: v.scope,
    project: v.project,
    type: v.type,
    tags: v.tags,
    weight: v.weight,
    supersedes: v.supersedes,
    createdAt: v.createdAt ?? now,
    updatedAt: v.updatedAt ?? now,
    expiresAt: v.ttlMs === null ? null : new Date(now.getTime() + v.ttlMs),
    embedding,
    ...(v.superseded ? { supersededBy: id } : {}),
  };
}

/** Dependencies of {@link SqlMemoryService}. */
export interface ServiceDeps {
  /** Storage. */
  store: Store;
  /**
   * The controls returned beside the store's database by its opener (the embedded
   * database's worker); default: a database without any ({@link fixedHandle}).
   */
  handle?: DbHandle;
  /** The configured embedder (already probed). */
  embedder: Embedder;
  /** The embedder that made the stored vectors. */
  stored: EmbedderInfo;
  /** Clock; defaults to the system clock. */
  now?: () => Date;
  /** Retrieval mode of search (default `hybrid`; the others are diagnostics). */
  retrieval?: Retrieval;
  /**
   * Word vectors that re-rank the builtin embedder's candidates (default: the ones that ship
   * with Mneme, loaded on the first search); `false` turns the re-ranking off (diagnostics).
   * Not used with a model's embeddings, which carry meaning already.
   */
  wordVectors?: false | (() => Promise<WordVectors>);
  /** The embedded database's vacuum schedule (see src/memory/vacuum.ts). */
  reclaim?: ReclaimerOptions;
  /**
   * Large imports on the embedded database build the HNSW index once (`IMPORT_BULK`, on by
   * default in the configuration; false when absent here).
   */
  bulkImports?: boolean;
  /**
   * When the analyze after imports runs (ms; defaults {@link IMPORT_ANALYZE_QUIET_MS} and
   * {@link IMPORT_ANALYZE_MAX_MS}).
   */
  importAnalyze?: { quietMs?: number; maxMs?: number };
}

/** The first line of `text`, at most 80 characters. */
function oneLine(text: string): string {
  const first = text.split("\n")[0];
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}

/** Hierarchy used by contradiction checks: global sees global; a project sees global and itself. */
function hierarchyOf(scope: Scope, project: string | null): ScopeFilter {
  return scope === "project" && project !== null
    ? { kind: "hierarchy", project }
    : { kind: "global" };
}

/** A search result with the signals its confidence comes from (src/memory/confidence.ts). */
export type ExplainedResult = SearchResult & { signals: Signals };

/**
 * A search of `service` with each result's signals: for src/memory/diagnostics.ts only (the
 * service's private search, set by its static block).
 */
export let searchWithSignals: (
  service: SqlMemoryService,
  input: SearchInput,
) => Promise<ExplainedResult[]>;

/**
 * The store under `service`: for src/memory/diagnostics.ts only (benchmarks and tests that
 * look at the database a service wrote; the programs get {@link SqlMemoryService.maintenance}).
 */
export let storeUnder: (service: SqlMemoryService) => Store;

/**
 * What the programs may do to the store beside the service's operations: the TTL cleanup
 * (cleanup.ts), the start-up upgrades (upgrade.ts), and the backend's name and capabilities
 * for their reports and decisions.
 */
export type StoreMaintenance = Pick<
  Store,
  | "kind"
  | "capabilities"
  | "deleteExpired"
  | "termsPending"
  | "storeTerms"
  | "invalidateStats"
  | "vectorsToConvert"
  | "dropSearchIndex"
  | "rewriteMemories"
>;

/** The memory service on a database. */
export class SqlMemoryService implements MemoryService {
  readonly #store: Store;
  readonly #handle: DbHandle;
  readonly #embedder: Embedder;
  #stored: EmbedderInfo;
  readonly #now: () => Date;
  readonly #retrieval: Retrieval;
  readonly #wordVectors: false | (() => Promise<WordVectors>);
  #embedderHealth: { at: number; ok: boolean; error?: string } | null = null;
  readonly #reclaimer: Reclaimer;

  /** Wire the service. */
  constructor(deps: ServiceDeps) {
    this.#store = deps.store;
    this.#handle = deps.handle ?? fixedHandle();
    this.#embedder = deps.embedder;
    this.#stored = deps.stored;
    this.#now = deps.now ?? (() => new Date());
    this.#retrieval = deps.retrieval ?? "hybrid";
    this.#wordVectors = deps.wordVectors ?? builtinWordVectors;
    this.#reclaimer = new Reclaimer(deps.store, deps.reclaim, this.#handle);
    this.#bulkEnabled = deps.bulkImports ?? false;
    this.#analyzeQuietMs = deps.importAnalyze?.quietMs ?? IMPORT_ANALYZE_QUIET_MS;
    this.#analyzeMaxMs = deps.importAnalyze?.maxMs ?? IMPORT_ANALYZE_MAX_MS;
  }

  /** The embedded database's vacuum (a no-op on server Postgres). */
  get reclaimer(): Reclaimer {
    return this.#reclaimer;
  }

  /** The store's maintenance ({@link StoreMaintenance}), not its queries. */
  maintenance(): StoreMaintenance {
    return this.#store;
  }

  /** The configured embedder. */
  get embedderInfo(): EmbedderInfo {
    return this.#embedder.info;
  }

  /** The embedder that made the stored vectors. */
  get storedEmbedder(): EmbedderInfo {
    return this.#stored;
  }

  /** Why the service is in maintenance (stored vectors from another embedder), or null. */
  get maintenanceReason(): string | null {
    if (sameEmbedder(this.#stored, this.#embedder.info)) return null;
    const s = this.#stored;
    const c = this.#embedder.info;
    return `stored vectors were made by ${s.provider}/${s.model} (${s.dimension} dimensions) but ` +
      `the configured embedder is ${c.provider}/${c.model} (${c.dimension} dimensions); ` +
      `run \`memcli reembed\` to re-embed all memories, or configure the recorded embedder again`;
  }

  /**
   * Refuse vector work while the stored vectors come from another embedder. The recorded
   * embedder is read again each time: another process on the same database (the admin
   * daemon finishing `memcli reembed` while MCP servers run) may have changed it, and
   * vectors of this embedder must then not be mixed into the new ones.
   */
  async #assertVectorsUsable(): Promise<void> {
    const recorded = await this.#store.recordedEmbedder();
    if (recorded) this.#stored = recorded;
    const reason = this.maintenanceReason;
    if (reason) throw new MemoryError(409, `maintenance: ${reason}`);
  }

  /** Embed many texts, {@link IMPORT_EMBED_BATCH} a call, with a turn of the event loop after each. */
  async #embedInBatches(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += IMPORT_EMBED_BATCH) {
      vectors.push(...await this.#embed(texts.slice(i, i + IMPORT_EMBED_BATCH)));
      await nextTurn();
    }
    return vectors;
  }

  async #embed(texts: string[]): Promise<number[][]> {
    try {
      return await this.#embedder.embed(texts);
    } catch (err) {
      throw new MemoryError(503, `embedding failed: ${describeError(err)}`, { cause: err });
    }
  }

  /** Existing memories within the contradiction threshold of `embedding` for `v`. */
  async #contradictionsOf(
    v: NewMemory,
    embedding: number[],
    now: Date,
  ): Promise<Contradiction[]> {
    const near = await this.#store.nearest(
      embedding,
      hierarchyOf(v.scope, v.project),
      CONTRADICTION_CANDIDATES,
      now,
      v.supersedes ?? undefined,
    );
    return near
      .filter((n) => n.similarity > CONTRADICTION_THRESHOLD)
      .map((n) => ({ memory: n.memory, similarity: n.similarity }));
  }

  async contradictions(input: CreateInput): Promise<Contradiction[]> {
    const v = validateCreate(input);
    validateReplace(input);
    await this.#assertVectorsUsable();
    const [embedding] = await this.#embed([v.content]);
    return await this.#contradictionsOf(v, embedding, this.#now());
  }

  async create(input: CreateInput): Promise<CreateResult> {
    const v = validateCreate(input);
    const replace = validateReplace(input);
    await assertNoSecrets("content", v.content);
    if (!replace && v.supersedes === null && this.#store.db.capabilities.batchedCreate) {
      const done = await this.#createAtOnce(v);
      if (done) return done;
    }
    await this.#assertVectorsUsable();
    const [embedding] = await this.#embed([v.content]);
    const now = this.#now();
    let contradictions = await this.#contradictionsOf(v, embedding, now);
    // An exact duplicate is not one to replace: the other candidates are.
    const candidates = replace
      ? contradictions.filter((c) => c.memory.content !== v.content)
      : contradictions;
    if (replace && candidates.length > 1) {
      const list = candidates
        .map((c) => `${c.memory.id} (${c.similarity.toFixed(3)}: ${oneLine(c.memory.content)})`)
        .join("; ");
      throw new MemoryError(
        409,
        `replace: ${candidates.length} existing memories look similar, so which one to ` +
          `replace is unclear: ${list}; name the one to replace with supersedes`,
        { field: "replace" },
      );
    }
    if (replace && candidates.length === 1) {
      v.supersedes = candidates[0].memory.id;
      contradictions = contradictions.filter((c) => c !== candidates[0]);
    }
    const row = newRow(v, embedding, now);
    // Without a memory to supersede the insert is one statement, atomic by itself: no
    // transaction of its own (two round trips fewer).
    const memory = v.supersedes === null
      ? (await this.#store.insert([row]))[0]
      : await this.#insertSuperseding(row, v.supersedes, now);
    this.#store.invalidateStats();
    return contradictions.length ? { memory, contradictions } : { memory };
  }

  /**
   * A create that supersedes nothing, on the embedded database: the embedder check, the
   * contradiction check's nearest memories and the insert in one transaction, one message to
   * the database's worker ({@link Store.insertAfterNearest}) instead of five. Null, having
   * written nothing, when the stored vectors may be another embedder's: the usual path then
   * says why.
   */
  async #createAtOnce(v: NewMemory): Promise<CreateResult | null> {
    const info = this.#embedder.info;
    if (!sameEmbedder(this.#stored, info)) return null;
    const [embedding] = await this.#embed([v.content]);
    const now = this.#now();
    const done = await this.#store.insertAfterNearest(
      newRow(v, embedding, now),
      info,
      hierarchyOf(v.scope, v.project),
      CONTRADICTION_CANDIDATES,
      now,
    );
    if (!done) return null;
    this.#store.invalidateStats();
    const contradictions = done.near
      .filter((n) => n.similarity > CONTRADICTION_THRESHOLD)
      .map((n) => ({ memory: n.memory, similarity: n.similarity }));
    return contradictions.length
      ? { memory: done.memory, contradictions }
      : { memory: done.memory };
  }

  /** Insert `row` and mark `target` superseded by it, in one transaction. */
  #insertSuperseding(row: NewRow, target: string, now: Date): Promise<Memory> {
    return this.#store.transaction(async (tx) => {
      const live = await tx.lockLive(target, now);
      if (!live) throw badRequest("supersedes", `memory ${target} does not exist`);
      if (live.supersededBy === target) {
        // Superseded by itself: imported superseded, or its replacement was deleted.
        throw badRequest("supersedes", `memory ${target} was already superseded`);
      }
      if (live.supersededBy !== null) {
        throw badRequest(
          "supersedes",
          `memory ${target} was already superseded by ${live.supersededBy}; ` +
            "supersede that one instead",
        );
      }
      const [m] = await tx.insert([row]);
      await tx.supersede(target, m.id, SUPERSEDED_WEIGHT);
      return m;
    });
  }

  async get(id: string): Promise<Memory> {
    const key = validateId(id);
    const m = await this.#store.get(key);
    if (!m || (m.expires_at !== null && Date.parse(m.expires_at) <= this.#now().getTime())) {
      throw notFound(key);
    }
    return m;
  }

  async list(filter: ListFilter = {}): Promise<Memory[]> {
    const f = validateList(filter);
    return await this.#store.list(f, f.limit, this.#now(), f.idRange);
  }

  async update(id: string, input: { content: string }): Promise<Memory> {
    const key = validateId(id);
    const content = validateUpdate(input);
    await assertNoSecrets("content", content);
    await this.#assertVectorsUsable();
    await this.get(key);
    const [embedding] = await this.#embed([content]);
    const m = await this.#store.updateContent(key, content, embedding, this.#now());
    this.#store.invalidateStats();
    if (!m) throw notFound(key);
    return m;
  }

  async delete(id: string): Promise<{ ok: true }> {
    const key = validateId(id);
    const gone = await this.#store.delete(key);
    this.#store.invalidateStats();
    if (!gone) throw notFound(key);
    return { ok: true };
  }

  async deleteMany(filter: DeleteFilter = {}): Promise<{ deleted: number }> {
    const f = validateDeleteFilter(filter);
    const deleted = await this.#store.deleteMany(f, BULK_DELETE_MAX);
    this.#store.invalidateStats();
    if (deleted) this.#reclaimer.changed("bulk delete");
    return { deleted };
  }

  async search(input: SearchInput): Promise<SearchResult[]> {
    return (await this.#search(input)).map(({ memory, score, confidence }) => ({
      memory,
      score,
      confidence,
    }));
  }

  static {
    // The diagnostics (src/memory/diagnostics.ts) read a search's signals through this, not
    // through a method of the service.
    searchWithSignals = (service, input) => service.#search(input);
    storeUnder = (service) => service.#store;
  }

  /** A search, with the signals each result's confidence comes from. */
  async #search(input: SearchInput): Promise<ExplainedResult[]> {
    const q = validateSearch(input);
    // The check that the stored vectors are usable is one round trip of its own: on server
    // Postgres it runs beside the search (another pooled connection) rather than before it,
    // and its error, when there is one, is the answer.
    const usable = this.#assertVectorsUsable();
    // Without project and scope, search covers global memories only: an agent outside a
    // project never sees other projects' memories.
    const scope: ScopeFilter = q.scope === "all"
      ? { kind: "all" }
      : q.scope === "global"
      ? { kind: "global" }
      : q.scope === "project"
      ? { kind: "project", project: q.project! }
      : q.project !== undefined
      ? { kind: "hierarchy", project: q.project }
      : { kind: "global" };
    const queryTerms = terms(q.query);
    const now = this.#now();
    const mode = this.#retrieval;
    const groups = mode === "vector" ? [] : queryTerms.map(variantsOf);
    // The corpus statistics (cached: usually no round trip) weigh the query's terms; the
    // store receives the weights ready-made (ranking.ts).
    const found = Promise.all([
      this.#embed([q.query]),
      groups.length ? this.#store.corpusStats(scope, [...new Set(groups.flat())]) : null,
    ]).then(([[embedding], stats]) =>
      this.#store.candidates(
        embedding,
        stats ? lexicalQuery(groups, stats) : null,
        scope,
        RECALL_CANDIDATES,
        now,
        mode !== "lexical",
      )
    );
    // Word vectors weigh the query's words for the confidence (and re-rank the builtin
    // embedder's candidates): loaded once, beside the search.
    const vectors = this.#vectors();
    const [checked, searched, loaded] = await Promise.allSettled([usable, found, vectors]);
    if (checked.status === "rejected") throw checked.reason;
    if (searched.status === "rejected") throw searched.reason;
    if (loaded.status === "rejected") throw loaded.reason;
    const words = loaded.value;
    const ranked = rank(searched.value, {
      query: q.query,
      queryTerms,
      retrieval: mode,
      embedder: this.#embedder.info,
      words: this.#wordVectors === false ? null : words,
      limit: q.limit,
      now,
    });
    const profile = profileQuery(q.query, words);
    return ranked.map(({ c, score }) => {
      const signals = signalsOf(profile, c.memory.content, c.lexical, words);
      return { memory: c.memory, score, confidence: confidenceOf(signals), signals };
    });
  }

  /** The word vectors: the injected ones, else those that ship (loaded on first use). */
  #vectors(): Promise<WordVectors> {
    return typeof this.#wordVectors === "function" ? this.#wordVectors() : builtinWordVectors();
  }

  async stats(): Promise<Stats> {
    const rows = await this.#store.stats(this.#now());
    const stats: Stats = { total: 0, by_scope: {}, by_project: {}, by_type: {} };
    for (const r of rows) {
      stats.total += r.count;
      stats.by_scope[r.scope] = (stats.by_scope[r.scope] ?? 0) + r.count;
      stats.by_type[r.type] = (stats.by_type[r.type] ?? 0) + r.count;
      if (r.project !== null) {
        stats.by_project[r.project] = (stats.by_project[r.project] ?? 0) + r.count;
      }
    }
    return stats;
  }

  async export(options: ExportOptions = {}): Promise<ExportRecord[]> {
    const offset = validateOffset(options.offset);
    const rows = await this.#store.exportAll(EXPORT_MAX, this.#now(), offset);
    return rows.map((m) => ({
      id: m.id,
      content: m.content,
      scope: m.scope,
      ...(m.project !== null ? { project: m.project } : {}),
      type: m.type,
      tags: m.tags,
      weight: m.weight,
      created_at: m.created_at,
      updated_at: m.updated_at,
      // Its state, not its link: an import stores it superseded (the spec keeps no links).
      ...(m.superseded_by !== null ? { superseded: true as const } : {}),
    }));
  }

  /**
   * All or nothing, without blocking the process: the items are embedded in batches and
   * written in chunks of about {@link IMPORT_CHUNK_TARGET_MS} each, one short transaction
   * per chunk, yielding to the event loop in between so that other requests interleave. The
   * rows stay invisible until one statement publishes them all; on any failure they are
   * deleted (and at the next start, when the process was killed).
   */
  async import(items: ImportItem[]): Promise<ImportResult> {
    this.#imports++;
    try {
      return await this.#import(items);
    } finally {
      if (--this.#imports === 0) {
        if (this.#analyzeDue !== null) this.#analyzeSoon();
        if (this.#renewDue) this.#renewSoon();
      }
    }
  }

  async #import(items: ImportItem[]): Promise<ImportResult> {
    const all = validateImport(items);
    for (const [i, v] of all.entries()) await assertNoSecrets(`items[${i}].content`, v.content);
    await this.#assertVectorsUsable();
    // Items already stored (same content, scope, project and type), or repeated in this
    // import, are skipped: re-importing an export stores nothing twice.
    const seen = await this.#store.existingKeys(all, this.#now());
    const valid = all.filter((v) => {
      const key = importKey(v);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const skipped = all.length - valid.length;
    if (!valid.length) return { imported: 0, skipped };
    const info = this.#embedder.info;
    const now = this.#now();
    // Only where the index build holds another thread than this one (the worker of an
    // embedded database on disk): an in-memory database in this thread would block it.
    const bulk = this.#bulkEnabled && this.#store.db.capabilities.offThread &&
      valid.length >= BULK_IMPORT_MIN &&
      valid.length * 2 >= await this.#store.countRows();
    let bulkEnded = !bulk;
    const endBulk = async () => {
      if (bulkEnded) return;
      bulkEnded = true;
      if (--this.#bulkImports === 0) await this.#store.buildSearchIndex();
    };
    const job = await this.#store.beginImport(valid.length);
    // Published imports of 100 or more are followed by an analyze (below: at the end of the
    // series), which vacuums the tables they filled: the reclaimer's run after a bulk change
    // would only do it again, holding the database (seconds at 20,000 memories) while the
    // next import of a series writes. Abandoned imports and small ones leave it its work.
    let published = false;
    const release = this.#reclaimer.hold();
    try {
      // Several bulk imports at once: the first drops the index, the last one to end builds it.
      if (bulk && this.#bulkImports++ === 0) await this.#store.dropSearchIndex();
      // Vectors of this embedder only: a re-embedding run finishing meanwhile fails the import.
      const check = async (tx: Store) => {
        const recorded = await tx.recordedEmbedder(true);
        if (recorded && !sameEmbedder(recorded, info)) {
          throw new MemoryError(
            409,
            "maintenance: the stored vectors were re-embedded while the import ran; import again",
          );
        }
      };
      const abandoned = () =>
        new MemoryError(409, "the import was abandoned by another process; import again");
      const chunks = { size: IMPORT_CHUNK_MIN };
      const embedSlice = (i: number) =>
        this.#embedInBatches(valid.slice(i, i + IMPORT_SLICE).map((v) => v.content));
      let embedding = embedSlice(0);
      for (let i = 0; i < valid.length; i += IMPORT_SLICE) {
        const slice = valid.slice(i, i + IMPORT_SLICE);
        const vectors = await embedding;
        // The next slice is embedded here while this one is written by the database (its
        // worker thread, or the server): two cores at work. Its failure is thrown when it is
        // awaited, after this slice's.
        if (i + IMPORT_SLICE < valid.length) {
          embedding = embedSlice(i + IMPORT_SLICE);
          embedding.catch(() => {});
        }
        const rows = slice.map((v, j) => newRow(v, vectors[j], now));
        await writeInChunks(rows, async (chunk) => {
          if (!await this.#store.stageImport(job, chunk, check)) throw abandoned();
        }, chunks);
      }
      // The index built before the rows are published: they are searched with it at once.
      await endBulk();
      if (!await this.#store.publishImport(job)) throw abandoned();
      published = true;
    } catch (err) {
      await this.#store.abandonImport(job).catch(() => {});
      await endBulk().catch(() => {});
      throw err;
    } finally {
      // Published or deleted, the corpus changed (its statistics counted the staged rows).
      this.#store.invalidateStats();
      if (!published || valid.length < IMPORT_ANALYZE_MIN) this.#reclaimer.changed("import");
      if (!published) release();
    }
    try {
      if (valid.length >= IMPORT_ANALYZE_MIN) {
        // The reclaimer's vacuums wait for the analyze, which does their work.
        this.#analyzeDue ??= { since: performance.now(), release: this.#reclaimer.hold() };
        // An import that (at least) doubled the memories: analyzed now, so that the searches
        // after it are planned for the table's new size. Otherwise once the series has ended.
        if (valid.length * 2 >= await this.#store.countRows()) await this.#analyzeNow();
      }
    } finally {
      release();
    }
    // The index build grew the database's WASM memory by tens of MiB for good (about 30 at
    // 20,000 memories): a fresh worker gives it back, once a series of imports has ended.
    if (bulk) this.#renewDue = true;
    return { imported: valid.length, skipped };
  }

  async #databaseHealth(): Promise<Health["database"]> {
    let database: Health["database"] = { kind: this.#store.kind, ok: true };
    try {
      database = { ...database, size_bytes: await this.#store.databaseSize() };
      if (this.#reclaimer.enabled) {
        const rows = await this.#store.deadRows();
        const last = await this.#store.lastVacuum();
        database = {
          ...database,
          dead_rows: rows.reduce((n, r) => n + r.dead, 0),
          last_vacuum: last && { at: last.at, took_ms: last.took_ms, dead_rows: last.dead_rows },
        };
      }
    } catch (err) {
      // Closed for idleness meanwhile: its checks are not answered, its last answer is.
      const unloaded = this.#handle.unloaded();
      if (unloaded || isIdleClosed(err)) return this.#unloadedDatabase(unloaded ?? {});
      database = { kind: this.#store.kind, ok: false, error: describeError(err) };
    }
    this.#lastDatabase = database;
    return database;
  }

  /** The database part of the last health check that got the database's answer. */
  #lastDatabase: Health["database"] | null = null;
  /** The health check of the database under way (one at a time). */
  #databaseCheck: Promise<Health["database"]> | null = null;

  async health(): Promise<Health> {
    // Closed for idleness (DATABASE_IDLE_UNLOAD_S): answered from its last answer without
    // opening it, so that a health probe does not keep an idle daemon's database in memory.
    const unloaded = this.#handle.unloaded();
    if (unloaded) return await this.#healthOf(this.#unloadedDatabase(unloaded));
    // The embedded database in its worker may be running a long statement (an index build):
    // wait for it at most HEALTH_DATABASE_WAIT_MS, then answer from its last answer with how
    // long it has been busy (the check goes on and refreshes the last answer).
    this.#databaseCheck ??= this.#databaseHealth().finally(() => this.#databaseCheck = null);
    const check = this.#databaseCheck;
    let database: Health["database"];
    if (!this.#store.db.capabilities.offThread) database = await check;
    else {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), HEALTH_DATABASE_WAIT_MS);
      });
      const answered = await Promise.race([check, late]);
      clearTimeout(timer);
      const busy = this.#handle.busyFor();
      database = answered ?? {
        ...(this.#lastDatabase ?? { kind: this.#store.kind, ok: true }),
        busy_ms: Math.round(busy ?? HEALTH_DATABASE_WAIT_MS),
      };
    }
    return await this.#healthOf(database);
  }

  /** The database part of the health while the database is closed for idleness. */
  #unloadedDatabase(state: { reopenError?: string }): Health["database"] {
    if (state.reopenError !== undefined) {
      return { kind: this.#store.kind, ok: false, unloaded: true, error: state.reopenError };
    }
    const { busy_ms: _, ...last } = this.#lastDatabase ?? { kind: this.#store.kind, ok: true };
    return { ...last, unloaded: true };
  }

  /** The health, given its database part. */
  async #healthOf(database: Health["database"]): Promise<Health> {
    const cached = this.#embedderHealth;
    if (!cached || Date.now() - cached.at > 10_000) {
      try {
        await this.#embedder.embed(["health check"]);
        this.#embedderHealth = { at: Date.now(), ok: true };
      } catch (err) {
        this.#embedderHealth = { at: Date.now(), ok: false, error: describeError(err) };
      }
    }
    const e = this.#embedderHealth!;
    const reason = this.maintenanceReason;
    return {
      status: !database.ok || !e.ok ? "error" : reason ? "maintenance" : "ok",
      version: VERSION,
      database,
      embedder: { ...this.#embedder.info, ok: e.ok, ...(e.error ? { error: e.error } : {}) },
      stored_embedder: this.#stored,
      ...(reason ? { maintenance: { reason } } : {}),
    };
  }

  reembed(options: { batchSize?: number } = {}): Promise<ReembedProgress> {
    const batch = options.batchSize ?? 200;
    if (!Number.isInteger(batch) || batch < 1 || batch > 5000) {
      return Promise.reject(badRequest("batch_size", "must be an integer between 1 and 5000"));
    }
    // One step at a time: two overlapping calls would both start a run (the second dropping
    // the first one's column) or one would finish the run under the other.
    const step = this.#reembedQueue.then(() => this.#reembedStep(batch));
    this.#reembedQueue = step.catch(() => {});
    return step;
  }

  #reembedQueue: Promise<unknown> = Promise.resolve();

  /**
   * One step of converting the stored vectors to the type of new columns (halfvec on server
   * Postgres; src/memory/upgrade.ts): a run of the stored embedder itself, whose new vectors
   * are the stored ones converted, `batchSize` at a time; nothing is embedded. A re-embedding
   * step of the same embedder (`memcli reembed`) may take turns with it: both fill the same
   * column with vectors of the current contents.
   */
  convertVectors(batchSize: number): Promise<ReembedProgress> {
    const step = this.#reembedQueue.then(async () => {
      const target = this.#stored;
      const running = await this.#store.reembedTarget();
      if (!running || !sameEmbedder(running, target)) await this.#store.beginReembed(target);
      const pending = await this.#store.reembedPending(0);
      const n = await this.#store.reembedConvert(batchSize);
      const done = pending.done + n;
      if (n === batchSize && done < pending.total) {
        return { done, total: pending.total, finished: false, embedder: target };
      }
      if (!await this.#store.finishReembed(target, "convert")) {
        throw new Error("converting the stored vectors: the run was ended meanwhile");
      }
      this.#reclaimer.changed("re-embed");
      return { done: pending.total, total: pending.total, finished: true, embedder: target };
    });
    this.#reembedQueue = step.catch(() => {});
    return step;
  }

  /** Bulk imports running (the HNSW index is dropped while there is one). */
  #bulkImports = 0;
  /** The renewal of the database's worker after bulk imports ({@link RENEW_AFTER_IMPORT_MS}). */
  #renewTimer: ReturnType<typeof setTimeout> | null = null;
  #renewing: Promise<void> | null = null;
  /** Imports running, bulk or not. */
  #imports = 0;
  /**
   * The analyze published imports left due ({@link IMPORT_ANALYZE_MIN}): since when, and the
   * reclaimer's hold it keeps until it has run.
   */
  #analyzeDue: { since: number; release: () => void } | null = null;
  #analyzeTimer: ReturnType<typeof setTimeout> | null = null;
  #analyzing: Promise<void> | null = null;
  readonly #analyzeQuietMs: number;
  readonly #analyzeMaxMs: number;
  /** close() began: no analyze is scheduled any more. */
  #closed = false;

  /**
   * Run the analyze imports left due {@link IMPORT_ANALYZE_QUIET_MS} after the last import
   * ended, unless another began meanwhile (its end schedules it again); an import still
   * running {@link IMPORT_ANALYZE_MAX_MS} after the first due one does not delay it further.
   * Nobody waits for it: a failure is logged (the reclaimer's vacuums and the next import's
   * analyze do its work again).
   */
  #analyzeSoon(): void {
    const due = this.#analyzeDue;
    if (due === null || this.#closed) return;
    if (this.#analyzeTimer !== null) clearTimeout(this.#analyzeTimer);
    const left = this.#analyzeMaxMs - (performance.now() - due.since);
    this.#analyzeTimer = setTimeout(() => {
      this.#analyzeTimer = null;
      if (this.#imports > 0 && performance.now() - due.since < this.#analyzeMaxMs) {
        return this.#analyzeSoon();
      }
      void this.#analyzeNow().catch((err) => {
        console.error(`analyzing after imports failed: ${describeError(err)}`);
      });
    }, Math.max(0, Math.min(this.#analyzeQuietMs, left)));
    Deno.unrefTimer(this.#analyzeTimer);
  }

  /** The analyze imports left due, now (after one running); nothing when none is due. */
  async #analyzeNow(): Promise<void> {
    while (this.#analyzing) await this.#analyzing;
    const due = this.#analyzeDue;
    if (due === null) return;
    this.#analyzeDue = null;
    if (this.#analyzeTimer !== null) clearTimeout(this.#analyzeTimer);
    this.#analyzeTimer = null;
    const run = this.#store.analyze().finally(() => {
      this.#analyzing = null;
      due.release();
    });
    this.#analyzing = run.catch(() => {});
    await run;
  }
  /** A bulk import ended since the worker was last renewed. */
  #renewDue = false;

  /**
   * Renew the database's worker {@link RENEW_AFTER_IMPORT_MS} after the last import ended
   * when a bulk import ran, unless another import began meanwhile (the renewal then waits
   * for its end): an import of 20,000 sent as two requests renews once, after the second,
   * and neither request waits for it. It also waits until the database has had no statement
   * for that long (at most {@link RENEW_AFTER_IMPORT_MAX_MS} after the import), so that the
   * requests that follow an import do not wait for the fresh worker.
   */
  #renewSoon(since = performance.now(), wait = RENEW_AFTER_IMPORT_MS): void {
    if (this.#renewTimer !== null) clearTimeout(this.#renewTimer);
    this.#renewTimer = setTimeout(() => {
      this.#renewTimer = null;
      if (this.#imports > 0 || !this.#renewDue) return;
      // The analyze after the imports first (the fresh worker then waits a quiet spell).
      if (this.#analyzeDue !== null || this.#analyzing !== null) {
        return this.#renewSoon(since, RENEW_AFTER_IMPORT_MS);
      }
      // Requests under way or just answered: wait for a quiet spell (not past the cap).
      const quiet = this.#handle.quietFor();
      if (
        quiet < RENEW_AFTER_IMPORT_MS &&
        performance.now() - since < RENEW_AFTER_IMPORT_MAX_MS
      ) return this.#renewSoon(since, Math.max(50, RENEW_AFTER_IMPORT_MS - quiet));
      this.#renewDue = false;
      this.#renewing = (async () => {
        try {
          await this.#handle.renew();
        } catch (err) {
          // The worker failed to restart: its statements fail and /healthz says so.
          console.error(`renewing the database's worker failed: ${describeError(err)}`);
        } finally {
          this.#renewing = null;
        }
      })();
    }, wait);
    Deno.unrefTimer(this.#renewTimer);
  }
  /** Whether large imports take the bulk path ({@link BULK_IMPORT_MIN}). */
  readonly #bulkEnabled: boolean;

  async #reembedStep(batch: number): Promise<ReembedProgress> {
    const target = this.#embedder.info;
    const running = await this.#store.reembedTarget();
    if (!running || !sameEmbedder(running, target)) await this.#store.beginReembed(target);
    const pending = await this.#store.reembedPending(batch);
    if (pending.rows.length) {
      // In chunks (each its own statement): a row's new vector goes into two HNSW indexes,
      // a few milliseconds each, and a batch of thousands must not hold the database.
      const vectors = await this.#embedInBatches(pending.rows.map((r) => r.content));
      await writeInChunks(
        pending.rows.map((r, i) => ({ id: r.id, content: r.content, embedding: vectors[i] })),
        (chunk) => this.#store.reembedStore(chunk),
      );
    }
    const done = pending.done + pending.rows.length;
    if (done < pending.total) {
      return { done, total: pending.total, finished: false, embedder: target };
    }
    // Rows created while the run went on have no new vector yet: the final pass embeds them
    // (up to one batch) under the table lock, so that steady writes cannot keep the run from
    // finishing.
    const finalPass = (texts: string[]) => this.#embedInBatches(texts);
    if (!await this.#store.finishReembed(target, finalPass, batch)) {
      // More than a batch was written meanwhile: the next call embeds them.
      const left = await this.#store.reembedPending(0);
      return { done: left.done, total: left.total, finished: false, embedder: target };
    }
    this.#stored = { ...target };
    this.#reclaimer.changed("re-embed");
    return { done, total: pending.total, finished: true, embedder: target };
  }

  /**
   * A consistent copy of the embedded database while the service runs: a gzipped tarball of
   * its data directory, memories, vectors and the recorded embedder included (restore:
   * docs/memcli.md, Backup and restore). A 409 on server Postgres, which pg_dump backs up.
   */
  async backup(): Promise<Blob> {
    const dump = this.#handle.dump;
    if (!dump) {
      throw new MemoryError(
        409,
        "backup: the database is server Postgres (DATABASE_URL); back it up with pg_dump " +
          "(docs/postgres.md)",
      );
    }
    return await dump();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#renewTimer !== null) clearTimeout(this.#renewTimer);
    this.#renewTimer = null;
    await this.#renewing;
    // The analyze imports left due runs before the database closes (what their requests no
    // longer waited for); a failure leaves it to the next start's vacuum.
    await this.#analyzeNow().catch((err) => {
      console.error(`analyzing after imports failed: ${describeError(err)}`);
    });
    await this.#reclaimer.stop();
    await this.#store.close();
  }
}
