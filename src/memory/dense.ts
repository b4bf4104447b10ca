/**
 * The dense leg of search, the parts that do not touch the database: how a candidate's dense
 * cosine joins its relevance, and the resumable in-place backfill of the dense vectors of an
 * existing database (an upgrade from 0.13), over a small port that the store implements.
 *
 * **Fusion.** A dense cosine has a background: two unrelated texts are not at 0 (SIF vectors of
 * a prompt and the memories of its scope average {@link DENSE_BACKGROUND}), so the cosine is
 * first mapped to c = max(0, (cos − μ) / (1 − μ)). The relevance then becomes
 * max(relevance, β × c), the relevance being today's (lexical, vector, word vectors): what
 * today's ranking finds keeps its order unless a memory's meaning is nearer still, and a
 * candidate found only by the dense leg (it shares no word with the query; its relevance is 0)
 * reaches the ranking with β × c, whatever its words. Of the fusions measured by
 * tasks/dense_probe.ts (docs/recall.md, "The dense leg (planned)"), this one lifts the
 * paraphrase dev split most without losing on LoCoMo dev; a mix λ × relevance + (1 − λ) × c
 * lifts the paraphrases more but costs LoCoMo up to 0.09 of hit@5.
 *
 * **Backfill.** A memory stored before the dense leg has no dense vector. The backfill walks
 * the memories in id order from a cursor the store keeps, encodes a batch, and writes the
 * vectors and the new cursor in one transaction: a start stopped half-way goes on from the
 * cursor, and no memory is encoded twice or skipped. Writes made meanwhile (creates, updates,
 * imports) encode their dense vector themselves, so when the cursor reaches the end every
 * memory has one (or has none because it has no known word). Meanwhile the dense leg finds the
 * memories that have theirs, and every lexical candidate's dense cosine is computed from its
 * text (src/memory/ranking.ts), so a search never ranks worse than before the column.
 * @module
 */
import { type DenseEncoder, type DenseInfo, sameDense } from "../embed/dense.ts";
import type { DenseRecord } from "../store/dense.ts";

/** Weight β of the calibrated cosine against today's relevance (max(relevance, β × c)). */
export const DENSE_WEIGHT = 0.8;
/**
 * The background cosine of the SIF leg (src/embed/sif.ts, common direction removed): the mean
 * cosine of a prompt and any memory of its scope, measured without labels by
 * tasks/dense_probe.ts (0.236 on the paraphrase dev split, 0.235 on LoCoMo dev).
 */
export const DENSE_BACKGROUND = 0.235;
/** Nearest memories by dense cosine fetched as candidates (beside the lexical ones). */
export const DENSE_CANDIDATES = 15;
/** Memories encoded and written per backfill step. */
export const DENSE_BACKFILL_BATCH = 500;

/** The dense cosine mapped above its background: 0 at or below μ, 1 at cosine 1. */
export function calibrated(cos: number, background = DENSE_BACKGROUND): number {
  if (!Number.isFinite(cos)) return 0;
  return Math.max(0, Math.min(1, (cos - background) / (1 - background)));
}

/**
 * A candidate's relevance with its dense cosine (null: the memory or the query has no dense
 * vector, and the relevance stays as it was).
 */
export function fuseDense(
  relevance: number,
  cos: number | null,
  weight = DENSE_WEIGHT,
  background = DENSE_BACKGROUND,
): number {
  if (cos === null) return relevance;
  return Math.max(relevance, weight * calibrated(cos, background));
}

/** Where the backfill stands, as the store records it (src/store/dense.ts). */
export type DenseState = DenseRecord;

/** What the backfill needs of the store (the Store, through src/store/dense.ts). */
export interface DenseBackfillStore {
  /** Where the backfill stands. */
  denseState(): Promise<DenseState>;
  /** Begin a backfill for `target`: record it as running, cursor at the start. */
  beginDense(target: DenseInfo): Promise<void>;
  /** Up to `limit` memories with an id after `cursor` (all when null), in id order. */
  densePending(cursor: string | null, limit: number): Promise<{ id: string; content: string }[]>;
  /**
   * Write the vectors (null: the memory has no dense vector) and move the cursor to `cursor`,
   * in one transaction; false (nothing written) when the running backfill is no longer
   * `target`'s.
   */
  storeDense(
    target: DenseInfo,
    rows: { id: string; content: string; vector: Float32Array | null }[],
    cursor: string,
  ): Promise<boolean>;
  /** Build the dense index and record `target` as complete; false when it no longer runs. */
  finishDense(target: DenseInfo): Promise<boolean>;
}

/** Progress of a backfill. */
export interface DenseProgress {
  /** Memories encoded by this call. */
  encoded: number;
  /** Whether every memory has its vector now. */
  finished: boolean;
}

/**
 * Run the backfill to its end (or until `shouldStop` says so between batches), resuming from
 * the store's cursor. `log` gets one line a batch.
 */
export async function backfillDense(
  store: DenseBackfillStore,
  encoder: DenseEncoder,
  options: {
    batch?: number;
    log?: (line: string) => void;
    shouldStop?: () => boolean;
  } = {},
): Promise<DenseProgress> {
  const batch = options.batch ?? DENSE_BACKFILL_BATCH;
  const log = options.log ?? (() => {});
  const target = encoder.info;
  let state = await store.denseState();
  if (state.complete && sameDense(state.complete, target) && !state.running) {
    return { encoded: 0, finished: true };
  }
  if (!state.running || !sameDense(state.running, target)) {
    await store.beginDense(target);
    state = { ...state, running: target, cursor: null };
  }
  let cursor = state.cursor;
  let encoded = 0;
  for (;;) {
    if (options.shouldStop?.()) return { encoded, finished: false };
    const rows = await store.densePending(cursor, batch);
    if (!rows.length) break;
    const vectors = await encoder.encode(rows.map((r) => r.content));
    const last = rows[rows.length - 1].id;
    const written = await store.storeDense(
      target,
      rows.map((r, i) => ({ id: r.id, content: r.content, vector: vectors[i] })),
      last,
    );
    if (!written) throw new Error("dense backfill: another run replaced this one; start again");
    cursor = last;
    encoded += rows.length;
    log(`upgrade: dense vectors of ${encoded} memories (${target.provider}/${target.model})`);
    if (rows.length < batch) break;
  }
  if (!await store.finishDense(target)) {
    throw new Error("dense backfill: another run replaced this one; start again");
  }
  // A new database (or one whose memories all had their vectors) had nothing to upgrade.
  if (encoded) log(`upgrade: dense vectors done (${encoded} encoded)`);
  return { encoded, finished: true };
}
