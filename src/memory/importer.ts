/**
 * Imports, all or nothing, without blocking the process: the items are embedded a slice at a
 * time and written in chunks of about 50 ms each (rows.ts), one short transaction per chunk,
 * yielding to the event loop in between so that other requests interleave. The rows stay
 * invisible until one statement publishes them all; on any failure they are deleted (and at
 * the next start, when the process was killed). Large imports on the embedded database take
 * the bulk path (the HNSW index built once); after a series of imports the tables are analyzed
 * once and the database's worker renewed once, when the series has ended, never in an
 * import's request.
 * @module
 */
import { type EmbedderInfo, sameEmbedder } from "../embed/embedder.ts";
import type { DbHandle } from "../store/db.ts";
import type { Store } from "../store/store.ts";
import { describeError } from "../common/errors.ts";
import { MemoryError } from "../domain/errors.ts";
import type { ImportResult } from "./types.ts";
import type { NewMemory } from "./validate.ts";
import type { Reclaimer } from "./vacuum.ts";
import { IMPORT_CHUNK_MIN, newRow, writeInChunks } from "./rows.ts";
import type { NewRow } from "../store/sql.ts";

/** Items embedded per call during an import (the event loop gets a turn after each). */
export const IMPORT_EMBED_BATCH = 256;
/**
 * Items of an import embedded and then staged at a time: only one slice's vectors are held
 * (an import of 10,000 held all of them, some 60 MB of JavaScript arrays for 768 dimensions,
 * and the daemon kept the heap it grew to).
 */
export const IMPORT_SLICE = IMPORT_EMBED_BATCH;
/**
 * The first slice of an import is this small, so that the database begins writing after the
 * vectors of a few items rather than of a whole slice (it waited about 15–20 ms of a 550 ms
 * call of 1,000 items; docs/performance.md, "0.18").
 */
export const IMPORT_FIRST_SLICE = 64;
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
/**
 * With `IMPORT_BULK` on, imports of at least this many items on the embedded database take the
 * bulk path, when they are at least half as many as the memories already stored: the HNSW index
 * is dropped, the rows staged without it, and the index built once before they are published
 * (a build costs about a quarter of as many insertions into the live graph, measured on PGlite;
 * docs/history/performance-2026-11-25-to-28.md). The build (about 0.45 ms a memory) holds the
 * database's worker thread (src/store/pglite/worker.ts), not the daemon's: `/healthz` answers
 * meanwhile, reads of the database wait for it. On by default; `IMPORT_BULK=off` turns it off.
 */
export const BULK_IMPORT_MIN = 2000;
/**
 * With `IMPORT_BULK` on, on the embedded database: a series of imports in chunks (each of at
 * least {@link IMPORT_ANALYZE_MIN}, each begun before the analyze the last one left due) drops
 * the HNSW indexes once the memories it has imported, with this call's, reach this share of
 * those stored; its later chunks go in without an insertion into the graphs, and the indexes
 * are built once, when the series has ended, before its analyze ({@link IMPORT_ANALYZE_QUIET_MS}).
 * The first chunk of a series does too when the store holds at most half as many memories as
 * it brings (an empty store: a client filling it in chunks of 1,000 sends every one without
 * the graphs). At 20,000 memories a chunk of 1,000 took 4.5 s with both graphs live and 0.6 s without them,
 * and a build costs about 0.75 ms a memory: once the series has imported a fifth of the stored
 * memories, what its next chunks save soon outweighs the build (at worst, a series that ends
 * right after the drop pays about as much again as it saved; docs/performance.md). Searches
 * meanwhile compare every vector (slower, never wrong); a daemon killed meanwhile builds the
 * indexes at its next start.
 */
export const DEFER_INDEX_SHARE = 0.2;

/** What an import needs of the service. */
export interface ImporterDeps {
  store: Store;
  handle: DbHandle;
  reclaimer: Reclaimer;
  /** The configured embedder (its vectors only may be written). */
  embedder: () => EmbedderInfo;
  /** Embed many texts ({@link IMPORT_EMBED_BATCH} a call). */
  embedInBatches: (texts: string[]) => Promise<number[][]>;
  /** The dense vectors of texts (src/memory/dense.ts; all null without a dense leg). */
  denseOf: (texts: string[]) => Promise<(Float32Array | null)[]>;
  now: () => Date;
  /** Whether large imports take the bulk path ({@link BULK_IMPORT_MIN}). */
  bulk: boolean;
  /** When the analyze after imports runs ({@link IMPORT_ANALYZE_QUIET_MS}). */
  analyzeQuietMs: number;
  /** ({@link IMPORT_ANALYZE_MAX_MS}). */
  analyzeMaxMs: number;
}

/** The imports of one service, and what a series of them leaves due. */
export class Importer {
  readonly #d: ImporterDeps;

  /** Wire it. */
  constructor(deps: ImporterDeps) {
    this.#d = deps;
  }

  /**
   * Run one import: `prepare` validates the items and leaves out those already stored (it
   * runs while the import counts as running), then the rest is written and published.
   */
  async import(
    prepare: () => Promise<{ valid: NewMemory[]; skipped: number }>,
  ): Promise<ImportResult> {
    this.#imports++;
    try {
      const { valid, skipped } = await prepare();
      if (!valid.length) return { imported: 0, skipped };
      await this.#write(valid);
      return { imported: valid.length, skipped };
    } finally {
      if (--this.#imports === 0) {
        if (this.#analyzeDue !== null) this.#analyzeSoon();
        if (this.#renewDue) this.#renewSoon();
      }
    }
  }

  async #write(valid: NewMemory[]): Promise<void> {
    const info = this.#d.embedder();
    const now = this.#d.now();
    // Only where the index build holds another thread than this one (the worker of an
    // embedded database on disk): an in-memory database in this thread would block it.
    const offThread = this.#d.bulk && this.#d.store.db.capabilities.offThread;
    const stored = offThread && valid.length >= IMPORT_ANALYZE_MIN
      ? await this.#d.store.countPublished()
      : 0;
    const bulk = offThread && valid.length >= BULK_IMPORT_MIN && valid.length * 2 >= stored;
    // A chunk of a series (the analyze the last one left due has not run): the indexes wait
    // for the series' end once it has imported a share of the stored memories.
    // The first chunk of a series into a store at most half its size defers them too: building
    // both graphs of the store and the chunk afterwards costs no more than inserting the
    // chunk into them live, and its request no longer waits for it.
    const defer = offThread && !bulk && !this.#indexDeferred &&
      valid.length >= IMPORT_ANALYZE_MIN &&
      (this.#analyzeDue !== null
        ? this.#seriesItems + valid.length >= DEFER_INDEX_SHARE * stored
        : stored * 2 <= valid.length);
    let bulkEnded = !bulk;
    const endBulk = async () => {
      if (bulkEnded) return;
      bulkEnded = true;
      // Deferred meanwhile by a series: built at its end, with its analyze.
      if (--this.#bulkImports === 0 && !this.#indexDeferred) {
        await this.#d.store.buildSearchIndex();
      }
    };
    const job = await this.#d.store.beginImport(valid.length);
    // Published imports of 100 or more are followed by an analyze (below: at the end of the
    // series), which vacuums the tables they filled: the reclaimer's run after a bulk change
    // would only do it again, holding the database (seconds at 20,000 memories) while the
    // next import of a series writes. Abandoned imports and small ones leave it its work.
    let published = false;
    const release = this.#d.reclaimer.hold();
    try {
      // Several bulk imports at once: the first drops the index, the last one to end builds it.
      if (bulk && this.#bulkImports++ === 0) await this.#d.store.dropSearchIndex();
      if (defer) {
        this.#indexDeferred = true;
        // The build grows the database's WASM memory: a fresh worker after the series.
        this.#renewDue = true;
        await this.#d.store.dropSearchIndex();
      }
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
      const end = (i: number) => i === 0 ? IMPORT_FIRST_SLICE : i + IMPORT_SLICE;
      const embedSlice = (i: number) => {
        const texts = valid.slice(i, end(i)).map((v) => v.content);
        return Promise.all([this.#d.embedInBatches(texts), this.#d.denseOf(texts)]);
      };
      const stage = async (chunk: NewRow[]) => {
        if (!await this.#d.store.stageImport(job, chunk, check)) throw abandoned();
      };
      let embedding = embedSlice(0);
      // Rows of the slices before that did not fill a chunk: they go first in the next one
      // (a slice's last chunk was a short one, each a transaction of its own).
      let left: NewRow[] = [];
      for (let i = 0; i < valid.length; i = end(i)) {
        const slice = valid.slice(i, end(i));
        const [vectors, dense] = await embedding;
        const more = end(i) < valid.length;
        // The next slice is embedded here while this one is written by the database (its
        // worker thread, or the server): two cores at work. Its failure is thrown when it is
        // awaited, after this slice's.
        if (more) {
          embedding = embedSlice(end(i));
          embedding.catch(() => {});
        }
        const rows = left.concat(slice.map((v, j) => newRow(v, vectors[j], now, dense[j])));
        left = await writeInChunks(rows, stage, chunks, more);
      }
      // The index built before the rows are published: they are searched with it at once.
      await endBulk();
      if (!await this.#d.store.publishImport(job)) throw abandoned();
      published = true;
    } catch (err) {
      await this.#d.store.abandonImport(job).catch(() => {});
      await endBulk().catch(() => {});
      throw err;
    } finally {
      // Published or deleted, the corpus changed (its statistics counted the staged rows).
      this.#d.store.invalidateStats();
      if (!published || valid.length < IMPORT_ANALYZE_MIN) this.#d.reclaimer.changed("import");
      if (!published) release();
    }
    try {
      if (valid.length >= IMPORT_ANALYZE_MIN) {
        // The reclaimer's vacuums wait for the analyze, which does their work.
        this.#analyzeDue ??= { since: performance.now(), release: this.#d.reclaimer.hold() };
        this.#seriesItems += valid.length;
        // An import that (at least) doubled the memories: analyzed now, so that the searches
        // after it are planned for the table's new size. Otherwise once the series has ended.
        // With the indexes deferred the series goes on: its statistics only, now.
        // (The memories counted before it, with its own: no second count of the table.)
        const total = stored ? stored + valid.length : await this.#d.store.countPublished();
        if (valid.length * 2 >= total) {
          await (this.#indexDeferred ? this.#analyzeStatistics() : this.#analyzeNow());
        }
      }
    } finally {
      release();
    }
    // The index build grew the database's WASM memory by tens of MiB for good (about 30 at
    // 20,000 memories): a fresh worker gives it back, once a series of imports has ended.
    if (bulk) this.#renewDue = true;
  }

  /** Bulk imports running (the HNSW index is dropped while there is one). */
  #bulkImports = 0;
  /** The renewal of the database's worker after bulk imports ({@link RENEW_AFTER_IMPORT_MS}). */
  #renewTimer: ReturnType<typeof setTimeout> | null = null;
  #renewing: Promise<void> | null = null;
  /** Imports running, bulk or not. */
  #imports = 0;
  /** The HNSW indexes were dropped by a series of imports ({@link DEFER_INDEX_SHARE}). */
  #indexDeferred = false;
  /** Memories the series of imports whose analyze is due has published. */
  #seriesItems = 0;
  /**
   * The analyze published imports left due ({@link IMPORT_ANALYZE_MIN}): since when, and the
   * reclaimer's hold it keeps until it has run.
   */
  #analyzeDue: { since: number; release: () => void } | null = null;
  #analyzeTimer: ReturnType<typeof setTimeout> | null = null;
  #analyzing: Promise<void> | null = null;
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
    const left = this.#d.analyzeMaxMs - (performance.now() - due.since);
    this.#analyzeTimer = setTimeout(() => {
      this.#analyzeTimer = null;
      if (this.#imports > 0 && performance.now() - due.since < this.#d.analyzeMaxMs) {
        return this.#analyzeSoon();
      }
      void this.#analyzeNow().catch((err) => {
        console.error(`analyzing after imports failed: ${describeError(err)}`);
      });
    }, Math.max(0, Math.min(this.#d.analyzeQuietMs, left)));
    Deno.unrefTimer(this.#analyzeTimer);
  }

  /**
   * The store's analyze within a series whose indexes are deferred (after one running): the
   * statistics of the new size, the series' end (the build, its analyze) still due.
   */
  async #analyzeStatistics(): Promise<void> {
    while (this.#analyzing) await this.#analyzing;
    const run = this.#d.store.analyze().finally(() => {
      this.#analyzing = null;
    });
    this.#analyzing = run.catch(() => {});
    await run;
  }

  /** The analyze imports left due, now (after one running); nothing when none is due. */
  async #analyzeNow(): Promise<void> {
    while (this.#analyzing) await this.#analyzing;
    const due = this.#analyzeDue;
    if (due === null) return;
    this.#analyzeDue = null;
    this.#seriesItems = 0;
    if (this.#analyzeTimer !== null) clearTimeout(this.#analyzeTimer);
    this.#analyzeTimer = null;
    const run = (async () => {
      if (this.#indexDeferred) {
        // The indexes a series deferred, built before its analyze (which then sees them).
        this.#indexDeferred = false;
        try {
          await this.#d.store.buildSearchIndex();
        } catch (err) {
          // Left to the next analyze, close() or start; searches stay exact meanwhile.
          this.#indexDeferred = true;
          throw err;
        }
      }
      await this.#d.store.analyze();
    })().finally(() => {
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
      const quiet = this.#d.handle.quietFor();
      if (
        quiet < RENEW_AFTER_IMPORT_MS &&
        performance.now() - since < RENEW_AFTER_IMPORT_MAX_MS
      ) return this.#renewSoon(since, Math.max(50, RENEW_AFTER_IMPORT_MS - quiet));
      this.#renewDue = false;
      this.#renewing = (async () => {
        try {
          await this.#d.handle.renew();
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

  /**
   * Resolves once no import runs and the analyze imports left due (with the indexes a series
   * deferred) has run, by its own schedule.
   */
  async settled(): Promise<void> {
    while (this.#imports > 0 || this.#analyzeDue !== null || this.#analyzing !== null) {
      await (this.#analyzing ?? new Promise((r) => setTimeout(r, 25)));
    }
  }

  /** Stop scheduling; run the analyze imports left due before the database closes. */
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
  }
}
