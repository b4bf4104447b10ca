/**
 * The memory service over a {@link Store} and an {@link Embedder}: validation, defaults,
 * contradiction warnings, supersession, hierarchical search with scoring, TTL, import and
 * export, and re-embedding. The clock is injected so that tests control time.
 * @module
 */
import { Reclaimer, type ReclaimerOptions } from "./vacuum.ts";
import { type Embedder, sameEmbedder } from "../embed/embedder.ts";
import { builtinWordVectors, cosine, type WordVectors } from "../embed/words.ts";
import { BUILTIN_SIF_INFO, builtinSif, SifEncoder } from "../embed/sif.ts";
import { type DenseEncoder, sameDense } from "../embed/dense.ts";
import { backfillDense, type DenseProgress } from "./dense.ts";
import { type Retrieval, SUPERSEDED_WEIGHT } from "./ranking.ts";
import { type DbHandle, fixedHandle } from "../store/db.ts";
import type { NewRow, ScopeFilter } from "../store/sql.ts";
import { importKey } from "../store/imports.ts";
import type { Store } from "../store/store.ts";
import type { ProposalStore } from "../store/proposals.ts";
import { HealthCheck } from "./health.ts";
import { type ExplainedResult, searchMemories } from "./search.ts";
import {
  IMPORT_ANALYZE_MAX_MS,
  IMPORT_ANALYZE_QUIET_MS,
  IMPORT_EMBED_BATCH,
  Importer,
} from "./importer.ts";
import { newRow, nextTurn } from "./rows.ts";
import type { ExpansionReport, ExpansionTarget, PendingMemory } from "./expansion.ts";
import type { JudgeBudget } from "./judge.ts";
import { Reembedder } from "./reembedder.ts";
import { describeError } from "../common/errors.ts";
import { badRequest, MemoryError, notFound } from "../domain/errors.ts";
import type {
  Contradiction,
  CreateInput,
  CreateResult,
  DeleteFilter,
  EmbedderInfo,
  ExpansionInfo,
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
  validateExpansionSelection,
  validateId,
  validateImport,
  validateList,
  validateOffset,
  validateReplace,
  validateUpdate,
} from "./validate.ts";

/** Similarity above which an existing memory is reported as a possible contradiction. */
export const CONTRADICTION_THRESHOLD = 0.75;
/** Nearest memories checked for contradictions. */
export const CONTRADICTION_CANDIDATES = 5;
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
  /**
   * Whether search uses the dense leg (src/memory/dense.ts; default true): false ranks as
   * before it (diagnostics and benchmarks). Writes store dense vectors either way.
   */
  denseSearch?: boolean;
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
  /**
   * Memories expanded by a model (`MEMORY_EXPANSION`, src/memory/expansion.ts): when on, search
   * reads the candidates' expansions (the ranking and the confidence read `content + "\n" +
   * expansion`) and the statistics report the expansions with the daily budget given.
   * Default off.
   */
  expansion?: { dailyTokens: number } | null;
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

export type { ExplainedResult };

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
 * Resolves once the work a series of imports left due (the deferred index build, the analyze)
 * has run: for src/memory/diagnostics.ts only (benchmarks that time a series to its end).
 */
export let importsSettledOf: (service: SqlMemoryService) => Promise<void>;

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
  | "buildSearchIndex"
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
  readonly #denseSearch: boolean;
  readonly #importer: Importer;
  readonly #health: HealthCheck;
  readonly #reembedder: Reembedder;
  readonly #reclaimer: Reclaimer;
  readonly #expansion: { dailyTokens: number } | null;
  /** Told after each write (the expansion worker). */
  readonly #onWrite = new Set<() => void>();
  /** The expansion worker's report, for the statistics. */
  #expansionReport: (() => ExpansionReport) | null = null;

  /** Wire the service. */
  constructor(deps: ServiceDeps) {
    this.#store = deps.store;
    this.#handle = deps.handle ?? fixedHandle();
    this.#embedder = deps.embedder;
    this.#stored = deps.stored;
    this.#now = deps.now ?? (() => new Date());
    this.#retrieval = deps.retrieval ?? "hybrid";
    this.#wordVectors = deps.wordVectors ?? builtinWordVectors;
    this.#denseSearch = deps.denseSearch ?? true;
    this.#expansion = deps.expansion ?? null;
    this.#reclaimer = new Reclaimer(deps.store, deps.reclaim, this.#handle);
    this.#importer = new Importer({
      store: this.#store,
      handle: this.#handle,
      reclaimer: this.#reclaimer,
      embedder: () => this.#embedder.info,
      embedInBatches: (texts) => this.#embedInBatches(texts),
      denseOf: (texts) => this.#denseOf(texts),
      now: this.#now,
      bulk: deps.bulkImports ?? false,
      analyzeQuietMs: deps.importAnalyze?.quietMs ?? IMPORT_ANALYZE_QUIET_MS,
      analyzeMaxMs: deps.importAnalyze?.maxMs ?? IMPORT_ANALYZE_MAX_MS,
    });
    this.#reembedder = new Reembedder({
      store: this.#store,
      reclaimer: this.#reclaimer,
      embedder: () => this.#embedder.info,
      stored: () => this.#stored,
      embedInBatches: (texts) => this.#embedInBatches(texts),
      finished: (target) => this.#stored = target,
    });
    this.#health = new HealthCheck({
      store: this.#store,
      handle: this.#handle,
      reclaimer: this.#reclaimer,
      embedder: this.#embedder,
      stored: () => this.#stored,
      maintenanceReason: () => this.maintenanceReason,
    });
  }

  /** The embedded database's vacuum (a no-op on server Postgres). */
  get reclaimer(): Reclaimer {
    return this.#reclaimer;
  }

  /** Capture's proposals, kept beside the memories (src/store/proposals.ts; the inbox's). */
  proposals(): ProposalStore {
    return this.#store.proposals;
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

  /**
   * The dense leg's encoder (src/memory/dense.ts): the SIF vectors of the word vectors with
   * the builtin embedder; null with a model's embedder, whose own vector is the dense leg.
   */
  #denseEncoder(): Promise<SifEncoder | null> {
    if (this.#embedder.info.provider !== "builtin") return Promise.resolve(null);
    if (typeof this.#wordVectors !== "function") return builtinSif();
    this.#sif ??= this.#wordVectors().then((w) => new SifEncoder(w));
    this.#sif.catch(() => this.#sif = null);
    return this.#sif;
  }
  #sif: Promise<SifEncoder> | null = null;

  /**
   * Give every stored memory its dense vector (src/memory/dense.ts, {@link backfillDense}): the
   * start-up upgrade of a database made before the dense leg, resumable from its cursor.
   * Nothing to do with a model's embedder, or once the backfill has finished.
   */
  async backfillDense(log: (line: string) => void = () => {}): Promise<DenseProgress> {
    if (this.#embedder.info.provider !== "builtin") return { encoded: 0, finished: true };
    // The word vectors are loaded only when a memory is to be encoded: a start with nothing
    // to backfill (a new database, or one done) loads nothing more than before the dense leg.
    const info = BUILTIN_SIF_INFO;
    const encoder: DenseEncoder = {
      info,
      encode: async (texts) => {
        const e = (await this.#denseEncoder())!;
        if (!sameDense(e.info, info)) {
          throw new Error(`dense backfill: the encoder is ${e.info.model}/${e.info.dimension}`);
        }
        return await e.encode(texts);
      },
    };
    return await backfillDense(this.#store, encoder, { log });
  }

  /**
   * Give every expanded memory its content vector (migrations/0021_content_embedding.sql):
   * those expanded before version 21, or whose vectors a re-embedding replaced; in batches,
   * resumable (what is left is what has none). Nothing while the stored vectors belong to
   * another embedder (maintenance, until `memcli reembed`). Returns the number stored.
   */
  async backfillContentVectors(
    log: (line: string) => void = () => {},
    batch = 500,
  ): Promise<number> {
    if (!sameEmbedder(this.#stored, this.#embedder.info)) return 0;
    let stored = 0;
    for (;;) {
      const rows = await this.#store.contentVectorsPending(batch);
      if (!rows.length) break;
      const vectors = await this.#embedInBatches(rows.map((r) => r.content));
      stored += await this.#store.storeContentVectors(
        rows.map((r, i) => ({ id: r.id, content: r.content, embedding: vectors[i] })),
      );
      log(`upgrade: content vectors of ${stored} expanded memories`);
      if (rows.length < batch) break;
    }
    return stored;
  }

  /** The dense vectors of `texts` (all null without a separate dense leg). */
  async #denseOf(texts: string[]): Promise<(Float32Array | null)[]> {
    const encoder = await this.#denseEncoder();
    return encoder ? await encoder.encode(texts) : texts.map(() => null);
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
      await this.#store.mayHaveExpansions(),
    );
    return await this.#contradictionsAmong(near, embedding);
  }

  /**
   * The nearest memories `near` within the contradiction threshold of `embedding`, most similar
   * first. An expanded memory's stored embedding is that of its content and phrases: the store
   * found and scored it by its content vector (migrations/0021_content_embedding.sql), as the
   * threshold was set for. One expanded before that version and not yet given its content
   * vector (the start-up backfill, src/memory/upgrade.ts) is compared here on an embedding of
   * its content (those memories' contents embedded in one call); no query more while no memory
   * has an expansion.
   */
  async #contradictionsAmong(
    near: { memory: Memory; similarity: number }[],
    embedding: number[],
  ): Promise<Contradiction[]> {
    let scored = near;
    if (near.length && await this.#store.mayHaveExpansions()) {
      const missing = await this.#store.withoutContentVector(near.map((n) => n.memory.id));
      const plain = near.filter((n) => missing.has(n.memory.id));
      if (plain.length) {
        const vectors = await this.#embed(plain.map((n) => n.memory.content));
        const q = Float32Array.from(embedding);
        const sims = new Map(
          plain.map((n, i) => [n.memory.id, cosine(q, Float32Array.from(vectors[i]))]),
        );
        scored = near
          .map((n) => ({ memory: n.memory, similarity: sims.get(n.memory.id) ?? n.similarity }))
          .sort((a, b) => b.similarity - a.similarity);
      }
    }
    return scored
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
    const [[embedding], [dense]] = await Promise.all([
      this.#embed([v.content]),
      this.#denseOf([v.content]),
    ]);
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
    const row = newRow(v, embedding, now, dense);
    // Without a memory to supersede the insert is one statement, atomic by itself: no
    // transaction of its own (two round trips fewer).
    const memory = v.supersedes === null
      ? (await this.#store.insert([row]))[0]
      : await this.#insertSuperseding(row, v.supersedes, now);
    this.#store.invalidateStats();
    this.#written();
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
    const [[embedding], [dense]] = await Promise.all([
      this.#embed([v.content]),
      this.#denseOf([v.content]),
    ]);
    const now = this.#now();
    const done = await this.#store.insertAfterNearest(
      newRow(v, embedding, now, dense),
      info,
      hierarchyOf(v.scope, v.project),
      CONTRADICTION_CANDIDATES,
      now,
      await this.#store.mayHaveExpansions(),
    );
    if (!done) return null;
    this.#store.invalidateStats();
    this.#written();
    const contradictions = await this.#contradictionsAmong(done.near, embedding);
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
    const [[embedding], [dense]] = await Promise.all([
      this.#embed([content]),
      this.#denseOf([content]),
    ]);
    const m = await this.#store.updateContent(key, content, embedding, this.#now(), dense);
    this.#store.invalidateStats();
    if (!m) throw notFound(key);
    this.#written();
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
    // A project's data deleted (all its memories, of every type): capture's tombstones of
    // rejected proposals in that project go too.
    if (f.project !== undefined && f.type === undefined && f.scope !== "global") {
      await this.#store.proposals.forgetRejections(f.project);
    }
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
    importsSettledOf = (service) => service.#importer.settled();
  }

  /** A search, with the signals each result's confidence comes from (search.ts). */
  #search(input: SearchInput): Promise<ExplainedResult[]> {
    return searchMemories({
      store: this.#store,
      embedder: this.#embedder.info,
      embed: (texts) => this.#embed(texts),
      assertVectorsUsable: () => this.#assertVectorsUsable(),
      // As #assertVectorsUsable when the record is the configured embedder.
      usableInStatement: this.#store.capabilities.batchedCreate
        ? () => this.#stored = this.#embedder.info
        : null,
      vectors: () => this.#vectors(),
      reranks: this.#wordVectors !== false,
      denseEncoder: this.#denseSearch ? () => this.#denseEncoder() : null,
      retrieval: this.#retrieval,
      expansion: () => this.#store.mayHaveExpansions(),
      now: this.#now,
    }, input);
  }

  /** The word vectors: the injected ones, else those that ship (loaded on first use). */
  #vectors(): Promise<WordVectors> {
    return typeof this.#wordVectors === "function" ? this.#wordVectors() : builtinWordVectors();
  }

  /** Call `fn` after each write (create, update, import); returns its removal. */
  onWrite(fn: () => void): () => void {
    this.#onWrite.add(fn);
    return () => this.#onWrite.delete(fn);
  }

  #written(): void {
    for (const fn of this.#onWrite) fn();
  }

  /**
   * What the expansion worker (src/memory/expansion.ts) needs of the service: the memories
   * waiting, and their expansions written with the index re-encoded from the content and the
   * expansion (the embedding and the dense vector here, the postings in the store), in one
   * transaction, each only while the memory has the content the model read. `report` is the
   * worker's, for the statistics.
   */
  expansionTarget(report: () => ExpansionReport): ExpansionTarget {
    this.#expansionReport = report;
    return {
      expansionPending: (limit, skip) =>
        this.#store.expansionPending(limit, this.#now(), skip) as Promise<PendingMemory[]>,
      storeExpansions: async (items) => {
        if (!items.length) return [];
        await this.#assertVectorsUsable();
        const texts = items.map((i) => `${i.content}\n${i.expansion}`);
        const [embeddings, dense] = await Promise.all([
          this.#embedInBatches(texts),
          this.#denseOf(texts),
        ]);
        const ids = await this.#store.storeExpansions(
          items.map((i, j) => ({ ...i, embedding: embeddings[j], dense: dense[j] })),
        );
        if (ids.length) this.#store.invalidateStats();
        return ids;
      },
      chargeExpansionTokens: (day, tokens) => this.#store.chargeExpansionTokens(day, tokens),
      expansionTokensOn: (day) => this.#store.expansionTokensOn(day),
      lease: (holder, ms) => this.#store.takeExpansionLease(holder, ms),
      release: (holder) => this.#store.releaseExpansionLease(holder),
      assertWritable: () => this.#assertVectorsUsable(),
    };
  }

  /** The judge's daily token budget, kept in the database (src/memory/judge.ts). */
  judgeBudget(): JudgeBudget {
    return {
      reserveJudgeTokens: (day, tokens, limit) =>
        this.#store.reserveJudgeTokens(day, tokens, limit),
      chargeJudgeTokens: (day, tokens) => this.#store.chargeJudgeTokens(day, tokens),
      judgeTokensOn: (day) => this.#store.judgeTokensOn(day),
    };
  }

  /** Memory `id`'s expansion: its phrases and state (`memcli expansion show`); 404 when absent. */
  async expansionOf(id: string): Promise<ExpansionInfo> {
    const key = validateId(id);
    const now = this.#now();
    const r = await this.#store.expansionRow(key, now);
    if (!r) throw notFound(key);
    const phrases = r.expansion ? r.expansion.split("; ").filter((x) => x) : [];
    const state = r.expansion
      ? "expanded"
      : r.cleared_at
      ? "cleared"
      : r.waiting
      ? "waiting"
      : "none";
    return { id: key, state, phrases, model: r.model, cleared_at: r.cleared_at };
  }

  /**
   * Remove expansions (`memcli expansion clear`): of one memory (`{id}`; one without an
   * expansion is kept from getting one) or of every expanded memory (`{all: true}`). Each is
   * re-encoded from its content alone (embedding, dense vector, postings: searched by its
   * content only, as before its expansion) and is not expanded again until
   * {@link redoExpansions}. Returns the number of expansions removed, and for `{id}` whether
   * the memory is now kept from expansion.
   */
  async clearExpansions(input: unknown): Promise<{ cleared: number }> {
    const sel = validateExpansionSelection(input);
    const now = this.#now();
    if ("id" in sel) await this.get(sel.id);
    await this.#assertVectorsUsable();
    let cleared = 0;
    for (;;) {
      const rows = await this.#store.expandedMemories(500, "id" in sel ? sel.id : undefined);
      if (!rows.length) break;
      const texts = rows.map((r) => r.content);
      const [embeddings, dense] = await Promise.all([
        this.#embedInBatches(texts),
        this.#denseOf(texts),
      ]);
      const done = await this.#store.clearExpansions(
        rows.map((r, i) => ({ ...r, embedding: embeddings[i], dense: dense[i] })),
        now,
      );
      cleared += done.length;
      if (rows.length < 500) break;
    }
    if ("id" in sel && !cleared) await this.#store.keepFromExpansion(sel.id, now);
    if (cleared) this.#store.invalidateStats();
    return { cleared };
  }

  /**
   * Let the worker expand again memories whose expansion was removed (`memcli expansion
   * redo`): `{id}` or `{all: true}`. Returns how many were given back; the worker (with
   * `MEMORY_EXPANSION=on`) takes them at its next run, soon after.
   */
  async redoExpansions(input: unknown): Promise<{ requeued: number }> {
    const sel = validateExpansionSelection(input);
    if ("id" in sel) await this.get(sel.id);
    const requeued = await this.#store.redoExpansions("id" in sel ? sel.id : null);
    if (requeued) this.#written();
    return { requeued };
  }

  async stats(): Promise<Stats> {
    const rows = await this.#store.stats(this.#now());
    const stats: Stats & { live: number; superseded: number } = {
      total: 0,
      live: 0,
      superseded: 0,
      by_scope: {},
      by_project: {},
      by_type: {},
    };
    if (this.#expansion) {
      const now = this.#now();
      const day = now.toISOString().slice(0, 10);
      const [counts, tokens] = await Promise.all([
        this.#store.expansionCounts(now),
        this.#store.expansionTokensOn(day),
      ]);
      const r = this.#expansionReport?.();
      stats.expansion = {
        on: true,
        ...(r ? { model: r.model } : {}),
        expanded: counts.expanded,
        waiting: counts.waiting,
        tokens_today: tokens,
        daily_tokens: this.#expansion.dailyTokens,
        ...(r?.waiting_for ? { waiting_for: r.waiting_for } : {}),
        ...(r?.last_error ? { last_error: r.last_error } : {}),
      };
    }
    for (const r of rows) {
      stats.total += r.count;
      if (r.superseded) stats.superseded += r.count;
      else stats.live += r.count;
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
    return rows.map(({ memory: m, expansionClearedAt }) => ({
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
      // Kept from expansion by hand (`memcli expansion clear`): it stays so where it is imported.
      ...(expansionClearedAt !== null
        ? { expansion_cleared_at: expansionClearedAt.toISOString() }
        : {}),
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
    const result = await this.#import(items);
    if (result.imported) this.#written();
    return result;
  }

  #import(items: ImportItem[]): Promise<ImportResult> {
    return this.#importer.import(async () => {
      const all = validateImport(items);
      // The database's two reads (the recorded embedder; the items already stored: same
      // content, scope, project and type, skipped so that re-importing an export stores
      // nothing twice) run while this thread looks for secrets; a secret found is the answer.
      const usable = this.#assertVectorsUsable();
      const stored = this.#store.existingKeys(all, this.#now());
      usable.catch(() => {});
      stored.catch(() => {});
      for (const [i, v] of all.entries()) {
        await assertNoSecrets(`items[${i}].content`, v.content);
      }
      await usable;
      const seen = await stored;
      // Items repeated in this import are skipped too.
      const valid = all.filter((v) => {
        const key = importKey(v);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      return { valid, skipped: all.length - valid.length };
    });
  }

  /** The service's health ({@link HealthCheck}). */
  health(): Promise<Health> {
    return this.#health.health();
  }

  /** One step of a re-embedding run ({@link Reembedder.reembed}). */
  async reembed(options: { batchSize?: number } = {}): Promise<ReembedProgress> {
    const p = await this.#reembedder.reembed(options);
    // The run's end cleared the expanded memories' content vectors (the old embedder's): they
    // are embedded again now, with the new one (as at start: src/memory/upgrade.ts).
    if (p.finished) await this.backfillContentVectors();
    return p;
  }

  /** One step of converting the stored vectors ({@link Reembedder.convertVectors}). */
  convertVectors(batchSize: number): Promise<ReembedProgress> {
    return this.#reembedder.convertVectors(batchSize);
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
    await this.#importer.close();
    await this.#reclaimer.stop();
    await this.#store.close();
  }
}
