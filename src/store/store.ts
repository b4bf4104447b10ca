/**
 * The `Store` facade: every query the memory service needs, over one {@link Db}. It holds
 * the reads and writes of single memories itself (get, list, update, supersede, delete,
 * stats, export, transaction) and the state of one store (the corpus statistics cache, the
 * imports in progress), and delegates each other concern to its module, which takes a `Db`:
 *
 * - sql.ts: SQL helpers and row mapping;
 * - search.ts: search candidates and the exact/HNSW choice;
 * - corpus.ts: the corpus statistics cache;
 * - writes.ts: writes and postings;
 * - imports.ts: staged imports;
 * - maintenance.ts: vacuum, reindex, analyze, sizes, checkpoints, expiry;
 * - reembed.ts: re-embedding runs;
 * - embedder_record.ts: the embedder recorded in the meta row;
 * - proposals.ts: capture's proposals, transcript cursors and token counts;
 * - expansion.ts: memories expanded by a model (waiting, written, counted);
 * - budget.ts: the daily token budgets of the expansion worker and of the judge.
 *
 * No user value is ever spliced into SQL text; all go through bind parameters.
 * @module
 */
import type { EmbedderInfo } from "../embed/embedder.ts";
import type { Memory, MemoryType, Scope } from "../domain/memory.ts";
import type { Db, DbCapabilities } from "./db.ts";
import { CorpusCache, type CorpusStats } from "./corpus.ts";
import * as search from "./search.ts";
import * as writes from "./writes.ts";
import { ImportJobs } from "./imports.ts";
import * as imports from "./imports.ts";
import * as maintenance from "./maintenance.ts";
import * as reembed from "./reembed.ts";
import * as record from "./embedder_record.ts";
import * as dense from "./dense.ts";
import type { DenseRecord } from "./dense.ts";
import type { DenseInfo } from "../embed/dense.ts";
import { ProposalStore } from "./proposals.ts";
import * as expansion from "./expansion.ts";
import * as budget from "./budget.ts";
import type { ExpansionPending, ExpansionWrite } from "./expansion.ts";
import {
  type Candidate,
  COLUMNS,
  fieldClause,
  type FieldFilter,
  KEEP_SUPERSEDED,
  type LexicalQuery,
  liveClause,
  type NewRow,
  Params,
  type Row,
  type ScopeFilter,
  type Scored,
  type StatsRow,
  toMemory,
  vectorLiteral,
  VISIBLE,
} from "./sql.ts";

export {
  type Candidate,
  type FieldFilter,
  float4ArrayBinary,
  type LexicalQuery,
  type NewRow,
  type ScopeFilter,
  type Scored,
  type StatsRow,
  vectorLiteral,
  VISIBLE,
} from "./sql.ts";
export { EXACT_SCOPE_MAX, EXACT_SCOPE_SHARE, exactScope, POSTINGS_PER_TERM } from "./search.ts";
export { SIZES_TTL_MS, STATS_TTL_MS } from "./corpus.ts";
export type { ExpansionPending, ExpansionWrite } from "./expansion.ts";
export { IMPORT_STALE_MS, importKey } from "./imports.ts";
export {
  COMPACT_FACTOR,
  COMPACT_MAX_BYTES,
  COMPACT_SLACK_BYTES,
  type DeadRows,
  HNSW_REINDEX_FACTOR,
  REINDEX_FACTOR,
  REINDEXED,
  VACUUMED_TABLES,
  type VacuumRun,
} from "./maintenance.ts";

/** How long a store trusts that no memory has an expansion before it asks again (ms). */
export const EXPANSION_FLAG_TTL_MS = 30_000;

/** The store: all memory queries over one {@link Db}. */
export class Store {
  /** The driver underneath. */
  readonly db: Db;
  /** The corpus statistics of this store's searches (corpus.ts). */
  readonly #corpus = new CorpusCache();
  /** The imports this store is writing (imports.ts). */
  readonly #imports = new ImportJobs();
  /** Whether any memory has an expansion, and when that was learnt ({@link mayHaveExpansions}). */
  #expanded: { any: boolean; at: number } | undefined;

  /** Wrap a driver. */
  constructor(db: Db) {
    this.db = db;
  }

  /** Capture's proposals, transcript cursors and token counts (proposals.ts). */
  get proposals(): ProposalStore {
    return new ProposalStore(this.db);
  }

  /** Forget the cached corpus statistics (after writes). */
  invalidateStats(): void {
    this.#corpus.invalidate();
  }

  /** What the backend can do and needs ({@link Db.capabilities}). */
  get capabilities(): DbCapabilities {
    return this.db.capabilities;
  }

  /** `pglite` or `postgres` (for reports; decisions ask {@link Db.capabilities}). */
  get kind(): "pglite" | "postgres" {
    return this.db.kind;
  }

  /** Run `fn` with a store bound to one transaction. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => fn(new Store(tx)));
  }

  /** One memory by id, expired or not; null when absent. */
  async get(id: string): Promise<Memory | null> {
    const rows = await this.db.query<Row>(
      `select ${COLUMNS} from memories m where m.id = $1 and ${VISIBLE}`,
      [
        id,
      ],
    );
    return rows[0] ? toMemory(rows[0]) : null;
  }

  /**
   * Lock a current (unexpired) memory row for the rest of the transaction and return who
   * superseded it (null while it is current); null when absent. The row lock makes a
   * concurrent supersession of the same memory wait and then see this one's link.
   */
  async lockLive(id: string, now: Date): Promise<{ supersededBy: string | null } | null> {
    const rows = await this.db.query<{ superseded_by: string | null }>(
      `select m.superseded_by from memories m
        where m.id = $1 and (m.expires_at is null or m.expires_at > $2) and ${VISIBLE}
          for update of m`,
      [id, now],
    );
    return rows.length ? { supersededBy: rows[0].superseded_by } : null;
  }

  /**
   * Current memories matching the filter, newest update first; with `idRange`, only ids in
   * it (`[lowest, highest]`: the ids a short id's prefix covers, read through the key).
   */
  async list(
    filter: FieldFilter,
    limit: number,
    now: Date,
    idRange?: readonly [string, string],
  ): Promise<Memory[]> {
    const p = new Params();
    let where = `${fieldClause(filter, p)} and ${liveClause(now, p)} and ${VISIBLE}`;
    if (idRange) where += ` and m.id between ${p.add(idRange[0])} and ${p.add(idRange[1])}`;
    const rows = await this.db.query<Row>(
      `select ${COLUMNS} from memories m where ${where}
        order by m.updated_at desc, m.id limit ${p.add(limit)}`,
      p.values,
    );
    return rows.map(toMemory);
  }

  /**
   * Replace content, embedding and dense vector; null when absent. The memory's expansion is
   * cleared (it waits for a new one: src/memory/expansion.ts).
   */
  async updateContent(
    id: string,
    content: string,
    embedding: number[],
    now: Date,
    dense: ArrayLike<number> | null = null,
  ): Promise<Memory | null> {
    const rows = await this.transaction(async (s) => {
      // A re-embedding run in progress holds a vector of the old content in embedding_next:
      // clear it so that the run embeds the new content. The meta row lock keeps the run
      // from starting or finishing (adding or dropping that column) in between.
      const running = await reembed.lockReembedRun(s.db, "share");
      const updated = await s.db.query<{ id: string }>(
        `update memories m set content = $2, embedding = $3::vector, updated_at = $4,
                dense = $5::text::vector, expansion = null, expansion_model = null,
                content_embedding = null
           ${running ? ", embedding_next = null" : ""}
          where m.id = $1 and ${VISIBLE} returning m.id`,
        [id, content, vectorLiteral(embedding), now, dense ? vectorLiteral(dense) : null],
      );
      if (updated.length) await s.storeTerms([{ id, content }]);
      return updated;
    });
    return rows.length ? await this.get(id) : null;
  }

  /** Mark `id` as replaced by `by`, with the superseded weight. */
  async supersede(id: string, by: string, weight: number): Promise<void> {
    await this.db.query(`update memories set weight = $3, superseded_by = $2 where id = $1`, [
      id,
      by,
      weight,
    ]);
  }

  /** Delete one; false when absent. */
  async delete(id: string): Promise<boolean> {
    const rows = await this.db.query(
      `with d as (delete from memories m where m.id = $1 and ${VISIBLE} returning m.id),
       ${KEEP_SUPERSEDED} select id from d`,
      [id],
    );
    return rows.length > 0;
  }

  /** Delete up to `max` memories matching the filter (oldest first); returns the count. */
  async deleteMany(filter: FieldFilter, max: number): Promise<number> {
    const p = new Params();
    const where = `${fieldClause(filter, p)} and ${VISIBLE}`;
    const rows = await this.db.query<{ n: number }>(
      `with d as (
         delete from memories where id in (
           select m.id from memories m where ${where}
            order by m.created_at, m.id limit ${p.add(max)})
         returning id), ${KEEP_SUPERSEDED}
       select count(*)::int as n from d`,
      p.values,
    );
    return rows[0]?.n ?? 0;
  }

  /** Counts of current memories by scope, project, type and whether they are superseded. */
  async stats(now: Date): Promise<StatsRow[]> {
    const p = new Params();
    return (await this.db.query<StatsRow>(
      `select m.scope, m.project, m.type, (m.superseded_by is not null) as superseded,
              count(*)::int as count from memories m
        where ${liveClause(now, p)} and ${VISIBLE}
        group by m.scope, m.project, m.type, (m.superseded_by is not null)`,
      p.values,
    )).map((r) => ({ ...r, superseded: r.superseded === true, count: Number(r.count) }));
  }

  /** Up to `max` current memories, oldest first (a stable order for files). */
  async exportAll(
    max: number,
    now: Date,
    offset = 0,
  ): Promise<{ memory: Memory; expansionClearedAt: Date | null }[]> {
    const p = new Params();
    const rows = await this.db.query<Row & { expansion_cleared_at: Date | string | null }>(
      `select ${COLUMNS}, m.expansion_cleared_at
         from memories m where ${liveClause(now, p)} and ${VISIBLE}
        order by m.created_at, m.id limit ${p.add(max)} offset ${p.add(offset)}`,
      p.values,
    );
    return rows.map((r) => ({
      memory: toMemory(r),
      expansionClearedAt: r.expansion_cleared_at === null ? null : new Date(r.expansion_cleared_at),
    }));
  }

  /** Number of current memories. */
  async countLive(now: Date): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `select count(*)::int as n from memories m
        where (m.expires_at is null or m.expires_at > $1) and ${VISIBLE}`,
      [now],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Memories published (staged ones not), from the corpus statistics' counts rather than a
   * scan of the table (24 ms at 20,000 memories on the embedded database, about 1 ms so).
   */
  async countPublished(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      "select coalesce(sum(n), 0)::int as n from memory_corpus",
    );
    return Number(row?.n ?? 0);
  }

  /** Close the driver underneath. */
  close(): Promise<void> {
    return this.db.close();
  }

  /** Insert rows (writes.ts, {@link writes.insert}). */
  insert(rows: NewRow[], job: string | null = null): Promise<Memory[]> {
    return writes.insert(this.db, rows, job);
  }

  /** A create in one batch (writes.ts, {@link writes.insertAfterNearest}). */
  insertAfterNearest(
    row: NewRow,
    embedder: EmbedderInfo,
    scope: ScopeFilter,
    k: number,
    now: Date,
    byContent = false,
  ): Promise<{ memory: Memory; near: Scored[] } | null> {
    return writes.insertAfterNearest(
      this.db,
      this.#corpus,
      row,
      embedder,
      scope,
      k,
      now,
      byContent,
    );
  }

  /** Memories whose postings are not built yet (writes.ts). */
  termsPending(limit: number): Promise<{ id: string; content: string }[]> {
    return writes.termsPending(this.db, limit);
  }

  /** (Re)build the postings of memories (writes.ts). */
  storeTerms(items: { id: string; content: string }[]): Promise<void> {
    return writes.storeTerms(this.db, items);
  }

  /**
   * The `k` nearest current memories (search.ts); with `byContent`, compared on their
   * contents' vectors where they have one ({@link search.nearestContentStatement}).
   */
  nearest(
    vector: number[],
    scope: ScopeFilter,
    k: number,
    now: Date,
    excludeId?: string,
    byContent = false,
  ): Promise<Scored[]> {
    return search.nearest(this.db, this.#corpus, vector, scope, k, now, excludeId, byContent);
  }

  /** The BM25 statistics of `scope` for `terms` (corpus.ts, cached a few seconds). */
  corpusStats(scope: ScopeFilter, terms: string[]): Promise<CorpusStats> {
    return this.#corpus.stats(this.db, scope, terms);
  }

  /** Search candidates, hybrid (search.ts, {@link search.candidates}). */
  candidates(
    vector: number[],
    lexical: LexicalQuery | null,
    scope: ScopeFilter,
    k: number,
    now: Date,
    withVector = true,
  ): Promise<Candidate[]> {
    return search.candidates(this.db, this.#corpus, vector, lexical, scope, k, now, withVector);
  }

  /**
   * Search candidates and the dense leg's, in one statement (search.ts,
   * {@link search.candidatesWithDense}).
   */
  candidatesWithDense(
    vector: number[],
    lexical: LexicalQuery | null,
    scope: ScopeFilter,
    k: number,
    now: Date,
    dense: search.DenseQuery,
    withVector = true,
  ): Promise<search.WithDense> {
    return search.candidatesWithDense(
      this.db,
      this.#corpus,
      vector,
      lexical,
      scope,
      k,
      now,
      dense,
      withVector,
    );
  }

  /**
   * {@link Store.candidatesWithDense} read only when the recorded embedder is `check`, null
   * otherwise (search.ts, {@link search.checkedCandidatesWithDense}).
   */
  checkedCandidatesWithDense(
    vector: number[],
    lexical: LexicalQuery | null,
    scope: ScopeFilter,
    k: number,
    now: Date,
    dense: search.DenseQuery,
    withVector: boolean,
    check: EmbedderInfo,
  ): Promise<search.WithDense | null> {
    return search.checkedCandidatesWithDense(
      this.db,
      this.#corpus,
      vector,
      lexical,
      scope,
      k,
      now,
      dense,
      withVector,
      check,
    );
  }

  /** The dense leg's candidates (search.ts, {@link search.denseNearest}). */
  denseNearest(
    vector: ArrayLike<number>,
    scope: ScopeFilter,
    k: number,
    now: Date,
  ): Promise<Scored[]> {
    return search.denseNearest(this.db, this.#corpus, vector, scope, k, now);
  }

  /** Where the dense backfill stands (dense.ts). */
  denseState(): Promise<DenseRecord> {
    return dense.denseState(this.db);
  }

  /** Memories waiting for an expansion (expansion.ts). */
  expansionPending(limit: number, now: Date, skip: readonly string[] = []): Promise<
    ExpansionPending[]
  > {
    return expansion.expansionPending(this.db, limit, now, skip);
  }

  /** Write expansions with their re-encoded index (expansion.ts); the ids written. */
  async storeExpansions(items: ExpansionWrite[]): Promise<string[]> {
    const ids = await expansion.storeExpansions(this.db, items);
    if (ids.length) this.#expanded = { any: true, at: Date.now() };
    return ids;
  }

  /**
   * Whether any memory may have an expansion, whatever the setting (MEMORY_EXPANSION only
   * decides whether the worker expands): search reads the candidates' expansions only then.
   * Once true it stays true (a wrong yes costs one query); a no is asked again after
   * {@link EXPANSION_FLAG_TTL_MS}, for the expansions another process (a daemon on the same
   * server Postgres) writes.
   */
  async mayHaveExpansions(): Promise<boolean> {
    const e = this.#expanded;
    if (e && (e.any || Date.now() - e.at < EXPANSION_FLAG_TTL_MS)) return e.any;
    const any = await expansion.anyExpansion(this.db);
    this.#expanded = { any, at: Date.now() };
    return any;
  }

  /** Of `ids`, the expanded memories without a content vector yet (expansion.ts). */
  withoutContentVector(ids: readonly string[]): Promise<Set<string>> {
    return expansion.withoutContentVector(this.db, ids);
  }

  /** The expanded memories without a content vector, up to `limit` (expansion.ts). */
  contentVectorsPending(limit: number): Promise<{ id: string; content: string }[]> {
    return expansion.contentVectorsPending(this.db, limit);
  }

  /** Store content vectors, each while the memory is expanded and has `content` (expansion.ts). */
  storeContentVectors(
    items: { id: string; content: string; embedding: number[] }[],
  ): Promise<number> {
    return expansion.storeContentVectors(this.db, items);
  }

  /** Memory `id`'s expansion, for `memcli expansion show` (expansion.ts). */
  expansionRow(id: string, now: Date): Promise<expansion.ExpansionRow | null> {
    return expansion.expansionRow(this.db, id, now);
  }

  /** Up to `limit` expanded memories, or `id` alone (expansion.ts). */
  expandedMemories(limit: number, id?: string): Promise<{ id: string; content: string }[]> {
    return expansion.expandedMemories(this.db, limit, id);
  }

  /** Remove expansions, the index re-encoded from the contents (expansion.ts). */
  clearExpansions(items: expansion.ExpansionClear[], now: Date): Promise<string[]> {
    return expansion.clearExpansions(this.db, items, now);
  }

  /** Keep a memory without an expansion from being expanded (expansion.ts). */
  keepFromExpansion(id: string, now: Date): Promise<boolean> {
    return expansion.keepFromExpansion(this.db, id, now);
  }

  /** Let the worker expand again memories whose expansion was removed (expansion.ts). */
  redoExpansions(id: string | null): Promise<number> {
    return expansion.redoExpansions(this.db, id);
  }

  /** The expansions of search candidates (expansion.ts). */
  expansionsOf(ids: readonly string[]): Promise<Map<string, string>> {
    return expansion.expansionsOf(this.db, ids);
  }

  /** Memories expanded and waiting (expansion.ts). */
  expansionCounts(now: Date): Promise<{ expanded: number; waiting: number }> {
    return expansion.expansionCounts(this.db, now);
  }

  /** Charge the expansion worker's tokens of `day` (budget.ts). */
  chargeExpansionTokens(day: string, tokens: number): Promise<void> {
    return budget.chargeTokens(this.db, "expansion_budget", day, tokens);
  }

  /** Take or renew the expansion worker's lease (expansion.ts). */
  takeExpansionLease(holder: string, ms: number): Promise<boolean> {
    return expansion.takeExpansionLease(this.db, holder, ms);
  }

  /** Give the expansion worker's lease back (expansion.ts). */
  releaseExpansionLease(holder: string): Promise<void> {
    return expansion.releaseExpansionLease(this.db, holder);
  }

  /** The expansion worker's tokens of `day` (budget.ts). */
  expansionTokensOn(day: string): Promise<number> {
    return budget.tokensOn(this.db, "expansion_budget", day);
  }

  /** Charge the judge's tokens of `day` (budget.ts). */
  chargeJudgeTokens(day: string, tokens: number): Promise<void> {
    return budget.chargeTokens(this.db, "judge_budget", day, tokens);
  }

  /** Reserve the judge's tokens of `day` within `limit` (budget.ts). */
  reserveJudgeTokens(day: string, tokens: number, limit: number): Promise<boolean> {
    return budget.reserveTokens(this.db, "judge_budget", day, tokens, limit);
  }

  /** The judge's tokens of `day` (budget.ts). */
  judgeTokensOn(day: string): Promise<number> {
    return budget.tokensOn(this.db, "judge_budget", day);
  }

  /** Begin a dense backfill (dense.ts). */
  beginDense(target: DenseInfo): Promise<void> {
    return dense.beginDense(this.db, target);
  }

  /** Memories after the dense backfill's cursor (dense.ts). */
  densePending(cursor: string | null, limit: number): Promise<{ id: string; content: string }[]> {
    return dense.densePending(this.db, cursor, limit);
  }

  /** A batch of dense vectors and the cursor (dense.ts). */
  storeDense(
    target: DenseInfo,
    rows: { id: string; content: string; vector: ArrayLike<number> | null }[],
    cursor: string,
  ): Promise<boolean> {
    return dense.storeDense(this.db, target, rows, cursor);
  }

  /** The dense backfill's end (dense.ts). */
  finishDense(target: DenseInfo): Promise<boolean> {
    return dense.finishDense(this.db, target);
  }

  /** Start a staged import (imports.ts). */
  beginImport(items: number): Promise<string> {
    return this.#imports.beginImport(this.db, items);
  }

  /** Write one chunk of an import (imports.ts); `check` runs first in its transaction. */
  stageImport(
    job: string,
    rows: NewRow[],
    check?: (store: Store) => Promise<void>,
  ): Promise<boolean> {
    return this.#imports.stageImport(this.db, job, rows, check && ((tx) => check(new Store(tx))));
  }

  /** Make every row of an import visible at once (imports.ts). */
  publishImport(job: string): Promise<boolean> {
    return this.#imports.publishImport(this.db, job);
  }

  /** Delete an unfinished import (imports.ts). */
  abandonImport(job: string, staleSecs?: number): Promise<boolean> {
    return this.#imports.abandonImport(this.db, job, staleSecs);
  }

  /** Delete imports left unfinished by a process that died (imports.ts). */
  abandonStaleImports(all: boolean): Promise<number> {
    return this.#imports.abandonStaleImports(this.db, all);
  }

  /** Which of `items` are already stored (imports.ts). */
  existingKeys(
    items: { content: string; scope: Scope; project: string | null; type: MemoryType }[],
    now: Date,
  ): Promise<Set<string>> {
    return imports.existingKeys(this.db, items, now);
  }

  /** Delete expired memories, once across processes (maintenance.ts). */
  deleteExpired(now: Date): Promise<number | null> {
    return maintenance.deleteExpired(this.db, now);
  }

  /** Drop the HNSW index for a bulk import (maintenance.ts). */
  dropSearchIndex(): Promise<void> {
    return maintenance.dropSearchIndex(this.db);
  }

  /** Build the HNSW index when missing (maintenance.ts). */
  buildSearchIndex(): Promise<void> {
    return maintenance.buildSearchIndex(this.db);
  }

  /** Rewrite `memories` after a re-embedding run at start (maintenance.ts). */
  rewriteMemories(): Promise<void> {
    return maintenance.rewriteMemories(this.db);
  }

  /** Live and dead rows of the service's tables (maintenance.ts). */
  deadRows(): Promise<maintenance.DeadRows[]> {
    return maintenance.deadRows(this.db);
  }

  /** Vacuum `tables` (maintenance.ts, {@link maintenance.vacuum}). */
  vacuum(
    tables: readonly string[] = maintenance.VACUUMED_TABLES,
    compact: { factor?: number; slackBytes?: number; maxBytes?: number } = {},
  ): Promise<maintenance.VacuumRun> {
    return maintenance.vacuum(this.db, tables, compact);
  }

  /** The last vacuum recorded (maintenance.ts). */
  lastVacuum(): Promise<maintenance.VacuumRun | null> {
    return maintenance.lastVacuum(this.db);
  }

  /** Size of the database on disk, in bytes (maintenance.ts). */
  databaseSize(): Promise<number> {
    return maintenance.databaseSize(this.db);
  }

  /** Refresh planner statistics after bulk loads (maintenance.ts). */
  analyze(compact: { slackBytes?: number; maxBytes?: number } = {}): Promise<void> {
    return maintenance.analyze(this.db, compact);
  }

  /** A checkpoint where the backend runs none by itself (maintenance.ts). */
  settle(): Promise<void> {
    return maintenance.settle(this.db);
  }

  /** Fold the corpus statistics' deltas (maintenance.ts). */
  compactStats(): Promise<void> {
    return maintenance.compactStats(this.db);
  }

  /** The embedder recorded in the meta row (embedder_record.ts). */
  recordedEmbedder(share = false): Promise<EmbedderInfo | null> {
    return record.recordedEmbedder(this.db, share);
  }

  /** True when no memory is stored (embedder_record.ts). */
  isEmpty(): Promise<boolean> {
    return record.isEmpty(this.db);
  }

  /** Record another embedder on a database without memories (embedder_record.ts). */
  rerecordEmpty(info: EmbedderInfo): Promise<boolean> {
    return record.rerecordEmpty(this.db, info);
  }

  /** The re-embedding run in progress (reembed.ts). */
  reembedTarget(): Promise<EmbedderInfo | null> {
    return reembed.reembedTarget(this.db);
  }

  /** Start a re-embedding run (reembed.ts). */
  beginReembed(target: EmbedderInfo): Promise<void> {
    return reembed.beginReembed(this.db, target);
  }

  /** Whether the stored vectors are to be converted to halfvec (reembed.ts). */
  vectorsToConvert(): Promise<boolean> {
    return reembed.vectorsToConvert(this.db);
  }

  /** A step of a conversion run (reembed.ts). */
  reembedConvert(limit: number): Promise<number> {
    return reembed.reembedConvert(this.db, limit);
  }

  /** Memories not yet re-embedded in this run, and its size (reembed.ts). */
  reembedPending(
    limit: number,
  ): Promise<{ rows: { id: string; content: string }[]; done: number; total: number }> {
    return reembed.reembedPending(this.db, limit);
  }

  /** Store new vectors of a run (reembed.ts). */
  reembedStore(items: { id: string; content: string; embedding: number[] }[]): Promise<void> {
    return reembed.reembedStore(this.db, items);
  }

  /** Swap the new vectors in and record the new embedder (reembed.ts). */
  finishReembed(
    target: EmbedderInfo,
    embed?: ((texts: string[]) => Promise<number[][]>) | "convert",
    max = 0,
  ): Promise<boolean> {
    return reembed.finishReembed(this.db, target, embed, max);
  }
}
