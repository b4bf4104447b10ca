/**
 * The daemon's side of the embedded database's worker thread (the worker's side is worker.ts,
 * the messages both speak protocol.ts): a {@link Db} whose statements cross to the worker as
 * messages, and the {@link WorkerHandle} beside it that controls the worker's life (busy and
 * quiet times, renewal, closing when idle, the dump). A long statement (an index build, a
 * vacuum, a dump) then holds the worker's thread, not the daemon's.
 * @module
 */
import { join } from "node:path";
import { idleClosed, MemoryError } from "../../domain/errors.ts";
import { errorMessage } from "../../common/errors.ts";
import type { BatchStep, Db, DbHandle, QueryOptions } from "../db.ts";
import type { PgliteOptions } from "./disk.ts";
import { PGLITE_CAPABILITIES } from "./open.ts";
import {
  type DistributiveOmit,
  rebuildError,
  type WorkerReply,
  type WorkerRequest,
} from "./protocol.ts";

/** The embedded database in a worker thread: {@link DbCapabilities.offThread}. */
const WORKER_CAPABILITIES = Object.freeze({ ...PGLITE_CAPABILITIES, offThread: true });

/** The controls of the worker's life ({@link DbHandle}) and its counters. */
export interface WorkerHandle extends DbHandle {
  /** A dump is always available. */
  readonly dump: () => Promise<Blob>;
  /** How many times the worker was replaced ({@link DbHandle.renew}). */
  readonly replacements: number;
  /** How many times the database was closed for idleness ({@link WorkerOptions.idleUnloadMs}). */
  readonly unloads: number;
}

/** Options of {@link openPgliteInWorker}. */
export interface WorkerOptions extends Pick<PgliteOptions, "durable" | "reserveBytes"> {
  /**
   * Close the database and end its worker after this long (ms) without a statement, and open
   * it again in a new worker at the next one (about half a second at 20,000 memories): an idle
   * daemon gives back PGlite's WASM memory, its compiled code and the worker's heap (some 80
   * MiB at 20,000 memories). 0 or absent: never.
   */
  idleUnloadMs?: number;
}

type Request = DistributiveOmit<WorkerRequest, "id">;

/** A request sent and not answered yet. */
interface Waiting {
  resolve: (r: WorkerReply) => void;
  reject: (e: Error) => void;
  at: number;
  background: boolean;
}

/**
 * Open (creating when needed) the embedded database in `dataDir` in a worker thread
 * (worker.ts), which runs `openPglite` there: the same database, disk guard and statement
 * queue, but a long statement holds the worker's thread, not the caller's. Statements cross
 * as messages: parameters and rows by structured clone, errors with their name, message, HTTP
 * status ({@link MemoryError}) and Postgres's fields (`code`, `detail`, …). A transaction is
 * pinned to the worker's connection while it is open: other statements queue behind it there,
 * as in the thread. The worker holds the process's permissions (worker.ts says why no fewer).
 */
export async function openPgliteInWorker(
  dataDir: string,
  opts: WorkerOptions = {},
): Promise<{ db: Db; handle: WorkerHandle }> {
  const link = new WorkerLink(dataDir, opts);
  await link.start();
  const handle: WorkerHandle = {
    renew: () => link.renew(),
    unloaded: () => link.unloadedState(),
    busyFor: () => link.busyFor(),
    quietFor: () => link.quietFor(),
    dump: async () => {
      const r = await link.call({ op: "dump" });
      return new Blob([r.bytes!], { type: r.type });
    },
    get replacements() {
      return link.replaced;
    },
    get unloads() {
      return link.unloads;
    },
  };
  return { db: link.runner(), handle };
}

/** The link to the current worker: requests, replacement, idle closing. */
class WorkerLink {
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #nextTx = 1;
  #dead: Error | null = null;
  /** Closed for idleness: the next statement opens it again (see `idleUnloadMs`). */
  #unloaded: { reopenError?: string } | null = null;
  unloads = 0;
  readonly #idleMs: number;
  #lastActive = performance.now();
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The database is being closed for idleness. */
  #closing = false;
  /** Transactions begun and not ended. */
  #openTx = 0;
  /** A replacement of the worker in progress: new statements and transactions wait for it. */
  #gate: Promise<void> | null = null;
  replaced = 0;
  #worker: Worker;

  constructor(readonly dataDir: string, readonly opts: WorkerOptions) {
    this.#idleMs = opts.idleUnloadMs ?? 0;
    this.#worker = this.#spawn();
  }

  /** Open the database in the first worker. */
  async start(): Promise<void> {
    try {
      await this.#open();
    } catch (err) {
      this.#fail(new Error("the database did not open"));
      this.#worker.terminate();
      throw err;
    }
    this.#armIdle();
  }

  #fail(err: Error): void {
    this.#dead ??= err;
    clearTimeout(this.#idleTimer);
    for (const w of this.#waiting.values()) w.reject(this.#dead);
    this.#waiting.clear();
  }

  #spawn(): Worker {
    const w = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
    w.onmessage = (e: MessageEvent<WorkerReply>) => {
      const entry = this.#waiting.get(e.data.id);
      if (!entry) return;
      this.#waiting.delete(e.data.id);
      if (!entry.background) this.#lastActive = performance.now();
      this.#armIdle();
      if (e.data.ok) entry.resolve(e.data);
      else entry.reject(rebuildError(e.data.error!));
    };
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      w.terminate();
      if (w === this.#worker) this.#fail(new Error(`the database worker stopped: ${e.message}`));
    };
    w.onmessageerror = () => {
      if (w === this.#worker) {
        this.#fail(new Error("the database worker sent an unreadable message"));
      }
    };
    return w;
  }

  /** Send one request to the current worker. */
  #post(req: Request, background = false): Promise<WorkerReply> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    const at = performance.now();
    if (!background) this.#lastActive = at;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject, at, background });
      this.#worker.postMessage({ ...req, id });
    });
  }

  #open(): Promise<WorkerReply> {
    const { durable, reserveBytes } = this.opts;
    return this.#post({ op: "open", dataDir: this.dataDir, durable, reserveBytes });
  }

  /**
   * Wait for a replacement to end, and open the database again if it was closed for
   * idleness (the caller then posts in the same turn).
   */
  async passGate(): Promise<void> {
    while (!this.#dead && (this.#gate || this.#unloaded)) await (this.#gate ?? this.#reopen());
  }

  /** Open the database closed for idleness in a new worker; a failure stays for the next call. */
  #reopen(): Promise<void> {
    return this.#gate ??= (async () => {
      try {
        // Only the database that was closed: never a new one where its files went missing.
        await Deno.stat(join(this.dataDir, "PG_VERSION")).catch((err) => {
          throw new Error(`the database files in ${this.dataDir} are gone: ${errorMessage(err)}`);
        });
        this.#worker = this.#spawn();
        await this.#open();
      } catch (err) {
        this.#worker.terminate();
        this.#unloaded = { reopenError: errorMessage(err) };
        // A full disk keeps its 507; anything else: the database is unavailable (503).
        if (err instanceof MemoryError) throw err;
        throw new MemoryError(503, `the database could not be opened again: ${errorMessage(err)}`);
      }
      this.#unloaded = null;
    })().finally(() => {
      this.#gate = null;
    });
  }

  /**
   * Close the database and end its worker once nothing is in flight and nothing was sent for
   * `idleMs` (checked again later otherwise).
   */
  #armIdle(): void {
    if (!this.#idleMs || this.#idleTimer !== undefined || this.#dead || this.#unloaded) return;
    const wait = Math.max(50, this.#idleMs - (performance.now() - this.#lastActive));
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#dead || this.#unloaded) return;
      // Checks in flight (`background`) do not hold it open: the worker answers them first.
      const inFlight = [...this.#waiting.values()].some((w) => !w.background);
      if (
        this.#gate || inFlight || this.#openTx ||
        performance.now() - this.#lastActive < this.#idleMs
      ) {
        this.#armIdle();
        return;
      }
      this.#closeIdle();
    }, wait);
    Deno.unrefTimer(this.#idleTimer);
  }

  #closeIdle(): void {
    this.#closing = true;
    this.#gate = (async () => {
      await this.#post({ op: "close" });
      this.#worker.terminate();
      this.#unloaded = {};
      this.unloads++;
    })().catch((err) => {
      this.#fail(
        new Error(`the database could not be closed for idleness: ${errorMessage(err)}`),
      );
    }).finally(() => {
      this.#closing = false;
      this.#gate = null;
    });
  }

  /** A statement; outside a transaction it waits for a replacement in progress. */
  async call(req: Request, background = false): Promise<WorkerReply> {
    // A check never opens a database closed for idleness (nor one being closed).
    if (background && (this.#unloaded || this.#closing)) throw idleClosed();
    // A transaction's statements follow its begin, which passed the gate already.
    if (!("tx" in req) || req.tx === undefined) await this.passGate();
    return await this.#post(req, background);
  }

  /**
   * Replace the worker by a fresh one on the same database once nothing is in flight: PGlite's
   * WASM memory, which never shrinks, goes with the old one. New statements wait meanwhile.
   */
  renew(): Promise<void> {
    return this.#gate ??= (async () => {
      while (this.#waiting.size || this.#openTx) await new Promise((r) => setTimeout(r, 5));
      // Closed for idleness meanwhile: its memory went with its worker.
      if (this.#unloaded) return;
      const old = this.#worker;
      await this.#post({ op: "close" });
      this.#worker = this.#spawn();
      old.terminate();
      await this.#open();
      this.replaced++;
    })().catch((err) => {
      this.#fail(new Error(`the database worker could not be replaced: ${errorMessage(err)}`));
      throw this.#dead;
    }).finally(() => {
      this.#gate = null;
    });
  }

  unloadedState(): { reopenError?: string } | null {
    return this.#unloaded && { ...this.#unloaded };
  }

  busyFor(): number | null {
    let oldest = Infinity;
    for (const w of this.#waiting.values()) oldest = Math.min(oldest, w.at);
    return oldest === Infinity ? null : performance.now() - oldest;
  }

  quietFor(): number {
    if (this.#openTx || [...this.#waiting.values()].some((w) => !w.background)) return 0;
    return performance.now() - this.#lastActive;
  }

  /**
   * Run `fn` in transaction number `id`: its statements go at once, without waiting for
   * `begin`'s answer (the worker holds them until the transaction holds the database: one
   * round trip less).
   */
  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    await this.passGate();
    const id = this.#nextTx++;
    this.#openTx++;
    try {
      const began = this.call({ op: "begin", tx: id });
      began.catch(() => {});
      let result: T;
      try {
        result = await fn(this.runner(id));
        await began;
      } catch (err) {
        await this.call({ op: "end", tx: id, commit: false }).catch(() => {});
        throw err;
      }
      await this.call({ op: "end", tx: id, commit: true });
      return result;
    } finally {
      this.#openTx--;
    }
  }

  /** Close the database and end the worker (after a replacement in progress). */
  async close(): Promise<void> {
    if (this.#dead) return;
    while (this.#gate) await this.#gate.catch(() => {});
    if (this.#dead) return;
    clearTimeout(this.#idleTimer);
    if (this.#unloaded) {
      this.#fail(new Error("the database is closed"));
      return;
    }
    try {
      await this.#post({ op: "close" });
    } finally {
      this.#fail(new Error("the database is closed"));
      this.#worker.terminate();
    }
  }

  /** The {@link Db} of the worker's connection, or of its open transaction `tx`. */
  runner(tx?: number): Db {
    const db: Db = {
      kind: "pglite",
      capabilities: WORKER_CAPABILITIES,
      query: async <T>(text: string, params?: unknown[], options?: QueryOptions) => {
        const prepare = options?.prepare;
        return (await this.call({ op: "query", text, params, tx, prepare }, options?.background))
          .rows as T[];
      },
      exec: async (text: string) => {
        await this.call({ op: "exec", text, tx });
      },
      batch: async (steps: BatchStep[]) => {
        return (await this.call({ op: "batch", steps, tx })).rows as unknown[][];
      },
      transaction: <T>(fn: (tx: Db) => Promise<T>): Promise<T> =>
        tx !== undefined ? fn(db) : this.transaction(fn),
      close: () => this.close(),
    };
    return db;
  }
}
