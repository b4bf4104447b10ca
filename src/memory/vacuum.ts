/**
 * Reclaiming dead rows on the embedded database, the way autovacuum does on a server. PGlite
 * runs no autovacuum, so every delete, update, supersede, re-embed and killed import would
 * leave its dead rows (and their vector index entries) behind for good: the database grows and
 * searches slow down while the number of memories stays the same.
 *
 * The reclaimer runs a plain `VACUUM (ANALYZE)` (no lock that blocks readers for long; empty
 * pages at a table's end go back to the file system), then compacts (`VACUUM FULL`) a small
 * table that stays bloated (see `COMPACT_FACTOR` in store.ts) and rebuilds (`REINDEX`) a postings
 * index left bloated by random inserts (see `REINDEX_FACTOR`):
 * - shortly after a bulk change (an import abandoned, or published with fewer than 100 memories:
 *   larger ones vacuum what they filled in their own analyze; a bulk delete, a finished
 *   re-embed, an hourly TTL cleanup that deleted rows), coalesced into one run;
 * - these timed runs wait while imports run ({@link Reclaimer.hold});
 * - on a schedule, for each table whose dead rows pass `minDead + fraction × live` (the
 *   statistics views' `n_dead_tup`, as autovacuum's threshold);
 * - once shortly after the start, since a crash resets those counts (a killed import's rows).
 *
 * On server Postgres it does nothing: autovacuum does this (see docs/postgres.md).
 * @module
 */
import { describeError } from "../common/errors.ts";
import { type DbHandle, fixedHandle } from "../store/db.ts";
import type { Store } from "../store/store.ts";
import { VACUUMED_TABLES, type VacuumRun } from "../store/maintenance.ts";

/** How often the dead-row counts are checked (ms). */
export const VACUUM_CHECK_MS = 60_000;
/** Delay before the vacuum after a bulk change, coalescing the changes meanwhile (ms). */
export const VACUUM_AFTER_CHANGE_MS = 2_000;
/** Delay of the vacuum after the start (ms). */
export const VACUUM_AT_START_MS = 10_000;
/** A table is vacuumed once its dead rows pass this many ... */
export const VACUUM_MIN_DEAD = 500;
/** ... plus this fraction of its live rows (autovacuum's default is 50 + 0.2 × live). */
export const VACUUM_DEAD_FRACTION = 0.1;

/** Options of {@link Reclaimer}. */
export interface ReclaimerOptions {
  /** Log line sink (stderr by default). */
  log?: (line: string) => void;
  /** How often to check the counts (default {@link VACUUM_CHECK_MS}). */
  checkMs?: number;
  /** Delay after a bulk change (default {@link VACUUM_AFTER_CHANGE_MS}). */
  afterChangeMs?: number;
  /** Delay after the start (default {@link VACUUM_AT_START_MS}); null: none. */
  atStartMs?: number | null;
  /** Threshold base (default {@link VACUUM_MIN_DEAD}). */
  minDead?: number;
  /** Threshold fraction of live rows (default {@link VACUUM_DEAD_FRACTION}). */
  fraction?: number;
}

/** Vacuums the embedded database when it needs it; a no-op on server Postgres. */
/** A database closed under a run (its owner stopped without stopping this): no failure. */
function closedUnder(err: unknown): boolean {
  return /(database|PGlite) is closed/.test(describeError(err));
}

export class Reclaimer {
  readonly #store: Store;
  readonly #handle: DbHandle;
  readonly #log: (line: string) => void;
  readonly #opts: Required<Omit<ReclaimerOptions, "log" | "atStartMs">>;
  readonly #enabled: boolean;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #pending: ReturnType<typeof setTimeout> | null = null;
  #running: Promise<VacuumRun | null> | null = null;
  #stopped = false;
  /** Imports running ({@link Reclaimer.hold}). */
  #held = 0;
  /** A timed vacuum that came due while imports ran: run once the last one ends. */
  #deferred: { why: string; tables: Set<string> } | null = null;

  constructor(store: Store, opts: ReclaimerOptions = {}, handle: DbHandle = fixedHandle()) {
    this.#store = store;
    this.#handle = handle;
    this.#log = opts.log ?? ((l) => console.error(l));
    this.#opts = {
      checkMs: opts.checkMs ?? VACUUM_CHECK_MS,
      afterChangeMs: opts.afterChangeMs ?? VACUUM_AFTER_CHANGE_MS,
      minDead: opts.minDead ?? VACUUM_MIN_DEAD,
      fraction: opts.fraction ?? VACUUM_DEAD_FRACTION,
    };
    this.#enabled = store.db.capabilities.ownVacuum;
    if (!this.#enabled) return;
    const id = setInterval(() => void this.check(), this.#opts.checkMs);
    Deno.unrefTimer(id);
    this.#timers.add(id);
    const atStart = opts.atStartMs === undefined ? VACUUM_AT_START_MS : opts.atStartMs;
    if (atStart !== null) this.#later(atStart, () => void this.#timed("start"));
  }

  /**
   * An import runs: the vacuums of the timers (after a change, at the start, the dead-row
   * checks) wait until the last one running ends, rather than hold the database between its
   * chunks and its index build (an import's own analyze vacuums the tables it filled).
   * Returns the release (idempotent).
   */
  hold(): () => void {
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#held > 0 || !this.#deferred) return;
      const { why, tables } = this.#deferred;
      this.#deferred = null;
      this.#later(this.#opts.afterChangeMs, () => void this.#timed(why, [...tables]));
    };
  }

  /** A vacuum of the timers: now, or after the imports running ({@link Reclaimer.hold}). */
  #timed(why: string, tables: readonly string[] = VACUUMED_TABLES): Promise<VacuumRun | null> {
    if (this.#held > 0) {
      const d = this.#deferred ??= { why, tables: new Set() };
      for (const t of tables) d.tables.add(t);
      return Promise.resolve(null);
    }
    return this.vacuum(why, tables);
  }

  /** True on the embedded database (server Postgres has autovacuum). */
  get enabled(): boolean {
    return this.#enabled;
  }

  #later(ms: number, fn: () => void): ReturnType<typeof setTimeout> {
    const id = setTimeout(() => {
      this.#timers.delete(id);
      fn();
    }, ms);
    Deno.unrefTimer(id);
    this.#timers.add(id);
    return id;
  }

  /** A bulk change happened: vacuum every table with dead rows shortly (coalesced). */
  changed(why: string): void {
    if (!this.#enabled || this.#stopped || this.#pending !== null) return;
    this.#pending = this.#later(this.#opts.afterChangeMs, () => {
      this.#pending = null;
      void this.#timed(why);
    });
  }

  /** Vacuum the tables over the threshold; resolves with the run, or null when none was due. */
  async check(): Promise<VacuumRun | null> {
    // Closed for idleness: no row changed since (any write opens it again).
    if (!this.#enabled || this.#stopped || this.#handle.unloaded()) return null;
    try {
      const due = (await this.#store.deadRows())
        .filter((r) => r.dead > 0 && r.dead >= this.#opts.minDead + this.#opts.fraction * r.live)
        .map((r) => r.table);
      return due.length ? await this.#timed("dead rows", due) : null;
    } catch (err) {
      if (!this.#stopped && !closedUnder(err)) {
        this.#log(`vacuum check failed: ${describeError(err)}`);
      }
      return null;
    }
  }

  /**
   * Vacuum `tables` now (after a running vacuum ends); logs what it reclaimed. Never rejects:
   * a failure is logged and tried again at the next check.
   */
  vacuum(why: string, tables: readonly string[] = VACUUMED_TABLES): Promise<VacuumRun | null> {
    if (!this.#enabled || this.#stopped) return Promise.resolve(null);
    const prev = this.#running ?? Promise.resolve(null);
    const run: Promise<VacuumRun | null> = prev.then(async () => {
      if (this.#stopped) return null;
      try {
        const r = await this.#store.vacuum(tables);
        if (r.dead_rows > 0 || r.compacted || r.reindexed) {
          const full = (r.compacted ? `; compacted ${r.compacted.join(", ")}` : "") +
            (r.reindexed ? `; rebuilt ${r.reindexed.join(", ")}` : "");
          this.#log(`vacuum (${why}): ${r.dead_rows} dead rows in ${r.took_ms} ms${full}`);
        }
        return r;
      } catch (err) {
        if (!this.#stopped && !closedUnder(err)) {
          this.#log(`vacuum (${why}) failed: ${describeError(err)}`);
        }
        return null;
      }
    });
    this.#running = run;
    void run.then(() => {
      if (this.#running === run) this.#running = null;
    });
    return run;
  }

  /** Stop the timers and wait for a running vacuum. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const id of this.#timers) clearTimeout(id);
    this.#timers.clear();
    this.#pending = null;
    await this.#running;
  }
}
