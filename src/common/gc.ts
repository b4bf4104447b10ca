/**
 * A full garbage collection once a daemon falls quiet after work.
 *
 * V8 keeps the garbage of a burst of work (an import of thousands of memories, a run of
 * searches) in its old generation until it needs the room: the admin daemon's JS heap held
 * some 110 MiB after importing 20,000 memories, of which 30 MiB were live, for minutes. A full
 * collection then gives the pages back to the OS (docs/history/performance-2026-11-25-to-28.md).
 * The long-running programs are started with `--expose-gc` (src/programs.ts); without it nothing is
 * done.
 * @module
 */

/** V8's `gc()` with options (`--expose-gc`). */
type Gc = (opts?: { type?: string; execution?: string; flavor?: string }) => void;

/**
 * Runs a full collection when the process may (`--expose-gc`); false when it may not. The
 * "last resort" kind, as under memory pressure: a plain `gc()` emptied a 165 MiB heap but
 * kept its pages (RSS unchanged), this one gave 160 MiB back to the OS at once.
 */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: Gc }).gc;
  if (typeof gc !== "function") return false;
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
  return true;
}

/**
 * The heap above which the idle collection runs by default: 24 MiB. The admin daemon's live
 * heap is about 20 MiB (its modules, PGlite's, the word vectors); after the benchmark's writes
 * and searches at 20,000 memories its heap held 28–30 MiB, under the 48 MiB of 0.8, so nothing
 * was collected, and a collection gave back 8–19 MiB (docs/history/performance-2026-11-25-to-28.md,
 * "Idle memory at 20,000 memories").
 */
export const IDLE_GC_MIN_HEAP = 24 * 1024 * 1024;

/** Options of {@link IdleCollector}. */
export interface IdleCollectorOptions {
  /** Quiet time after the last piece of work before collecting (ms; default 2,000). */
  quietMs?: number;
  /** Collect only when the JS heap holds more than this (bytes; default {@link IDLE_GC_MIN_HEAP}). */
  minHeapBytes?: number;
  /** The collection (default {@link collectGarbage}). */
  collect?: () => void;
  /** The heap's committed size (default `Deno.memoryUsage().heapTotal`). */
  heapBytes?: () => number;
}

/**
 * Collects once after each burst of work: {@link IdleCollector.begin} and
 * {@link IdleCollector.end} bracket a piece of work (a request); once none has run for
 * `quietMs` and the heap holds more than `minHeapBytes`, one full collection runs. The timer
 * never keeps the process alive.
 */
export class IdleCollector {
  #inFlight = 0;
  #last = 0;
  #dirty = false;
  #timer: ReturnType<typeof setInterval>;
  readonly #quietMs: number;
  readonly #minHeap: number;
  readonly #collect: () => void;
  readonly #heap: () => number;

  constructor(opts: IdleCollectorOptions = {}) {
    this.#quietMs = opts.quietMs ?? 2000;
    this.#minHeap = opts.minHeapBytes ?? IDLE_GC_MIN_HEAP;
    this.#collect = opts.collect ?? collectGarbage;
    this.#heap = opts.heapBytes ?? (() => Deno.memoryUsage().heapTotal);
    this.#timer = setInterval(() => this.#check(), Math.max(10, Math.floor(this.#quietMs / 4)));
    Deno.unrefTimer(this.#timer);
  }

  /** A piece of work starts. */
  begin(): void {
    this.#inFlight++;
    this.#dirty = true;
    this.#last = Date.now();
  }

  /** A piece of work ended. */
  end(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#last = Date.now();
  }

  #check(): void {
    if (!this.#dirty || this.#inFlight > 0 || Date.now() - this.#last < this.#quietMs) return;
    this.#dirty = false;
    if (this.#heap() > this.#minHeap) this.#collect();
  }

  /** Stops watching. */
  stop(): void {
    clearInterval(this.#timer);
  }
}
