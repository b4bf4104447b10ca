/**
 * Re-embedding runs, one step at a time: the stored vectors re-made by the configured
 * embedder (`memcli reembed`, and the start-up upgrade of an older builtin model), or
 * converted to the type of new columns (`halfvec` on server Postgres), into a second column
 * that is swapped in when the run ends (src/store/reembed.ts). Steps never overlap: two
 * overlapping calls would both start a run, or one would finish the run under the other.
 * @module
 */
import { type EmbedderInfo, sameEmbedder } from "../embed/embedder.ts";
import type { Store } from "../store/store.ts";
import { badRequest } from "../domain/errors.ts";
import type { ReembedProgress } from "./types.ts";
import type { Reclaimer } from "./vacuum.ts";
import { writeInChunks } from "./rows.ts";

/** What a re-embedding run needs of the service. */
export interface ReembedderDeps {
  store: Store;
  reclaimer: Reclaimer;
  /** The configured embedder. */
  embedder: () => EmbedderInfo;
  /** The embedder that made the stored vectors. */
  stored: () => EmbedderInfo;
  /** Embed many texts. */
  embedInBatches: (texts: string[]) => Promise<number[][]>;
  /** A re-embedding run ended: the stored vectors are now `target`'s. */
  finished: (target: EmbedderInfo) => void;
}

/** The re-embedding steps of one service, one at a time. */
export class Reembedder {
  readonly #d: ReembedderDeps;

  /** Wire it. */
  constructor(deps: ReembedderDeps) {
    this.#d = deps;
  }

  /** One step of a re-embedding run of the configured embedder (`memcli reembed`). */
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
      const target = this.#d.stored();
      const running = await this.#d.store.reembedTarget();
      if (!running || !sameEmbedder(running, target)) await this.#d.store.beginReembed(target);
      const pending = await this.#d.store.reembedPending(0);
      const n = await this.#d.store.reembedConvert(batchSize);
      const done = pending.done + n;
      if (n === batchSize && done < pending.total) {
        return { done, total: pending.total, finished: false, embedder: target };
      }
      if (!await this.#d.store.finishReembed(target, "convert")) {
        throw new Error("converting the stored vectors: the run was ended meanwhile");
      }
      this.#d.reclaimer.changed("re-embed");
      return { done: pending.total, total: pending.total, finished: true, embedder: target };
    });
    this.#reembedQueue = step.catch(() => {});
    return step;
  }

  async #reembedStep(batch: number): Promise<ReembedProgress> {
    const target = this.#d.embedder();
    const running = await this.#d.store.reembedTarget();
    if (!running || !sameEmbedder(running, target)) await this.#d.store.beginReembed(target);
    const pending = await this.#d.store.reembedPending(batch);
    if (pending.rows.length) {
      // In chunks (each its own statement): a row's new vector goes into two HNSW indexes,
      // a few milliseconds each, and a batch of thousands must not hold the database.
      const vectors = await this.#d.embedInBatches(pending.rows.map((r) => r.content));
      await writeInChunks(
        pending.rows.map((r, i) => ({ id: r.id, content: r.content, embedding: vectors[i] })),
        (chunk) => this.#d.store.reembedStore(chunk),
      );
    }
    const done = pending.done + pending.rows.length;
    if (done < pending.total) {
      return { done, total: pending.total, finished: false, embedder: target };
    }
    // Rows created while the run went on have no new vector yet: the final pass embeds them
    // (up to one batch) under the table lock, so that steady writes cannot keep the run from
    // finishing.
    const finalPass = (texts: string[]) => this.#d.embedInBatches(texts);
    if (!await this.#d.store.finishReembed(target, finalPass, batch)) {
      // More than a batch was written meanwhile: the next call embeds them.
      const left = await this.#d.store.reembedPending(0);
      return { done: left.done, total: left.total, finished: false, embedder: target };
    }
    this.#d.finished({ ...target });
    this.#d.reclaimer.changed("re-embed");
    return { done, total: pending.total, finished: true, embedder: target };
  }
}
