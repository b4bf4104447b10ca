/**
 * The service's health: the database's (its size, and on the embedded database its dead rows
 * and last vacuum), the embedder's (a probe at most every 10 s) and whether the service is in
 * maintenance. A health probe never waits long for a busy embedded database, and never opens
 * one closed for idleness: it answers from the database's last answer.
 * @module
 */
import type { Embedder } from "../embed/embedder.ts";
import type { DbHandle } from "../store/db.ts";
import type { Store } from "../store/store.ts";
import { describeError } from "../common/errors.ts";
import { isIdleClosed } from "../domain/errors.ts";
import { VERSION } from "../version.ts";
import type { EmbedderInfo, Health } from "./types.ts";
import type { Reclaimer } from "./vacuum.ts";

/**
 * How long `/healthz` waits for the embedded database before it answers from the database's
 * last answer, with how long it has been busy (`database.busy_ms`).
 */
export const HEALTH_DATABASE_WAIT_MS = 50;

/** What the health check needs of the service. */
export interface HealthDeps {
  store: Store;
  handle: DbHandle;
  reclaimer: Reclaimer;
  embedder: Embedder;
  /** The embedder that made the stored vectors (it changes when a re-embedding run ends). */
  stored: () => EmbedderInfo;
  /** Why the service is in maintenance, or null. */
  maintenanceReason: () => string | null;
}

/** The health of one service. */
export class HealthCheck {
  readonly #d: HealthDeps;
  #embedderHealth: { at: number; ok: boolean; error?: string } | null = null;

  /** Wire it. */
  constructor(deps: HealthDeps) {
    this.#d = deps;
  }

  async #databaseHealth(): Promise<Health["database"]> {
    let database: Health["database"] = { kind: this.#d.store.kind, ok: true };
    try {
      database = { ...database, size_bytes: await this.#d.store.databaseSize() };
      if (this.#d.reclaimer.enabled) {
        const rows = await this.#d.store.deadRows();
        const last = await this.#d.store.lastVacuum();
        database = {
          ...database,
          dead_rows: rows.reduce((n, r) => n + r.dead, 0),
          last_vacuum: last && { at: last.at, took_ms: last.took_ms, dead_rows: last.dead_rows },
        };
      }
    } catch (err) {
      // Closed for idleness meanwhile: its checks are not answered, its last answer is.
      const unloaded = this.#d.handle.unloaded();
      if (unloaded || isIdleClosed(err)) return this.#unloadedDatabase(unloaded ?? {});
      database = { kind: this.#d.store.kind, ok: false, error: describeError(err) };
    }
    this.#lastDatabase = database;
    return database;
  }

  /** The database part of the last health check that got the database's answer. */
  #lastDatabase: Health["database"] | null = null;
  /** The health check of the database under way (one at a time). */
  #databaseCheck: Promise<Health["database"]> | null = null;

  /** The service's health (`/healthz`, `memcli status`). */
  async health(): Promise<Health> {
    // Closed for idleness (DATABASE_IDLE_UNLOAD_S): answered from its last answer without
    // opening it, so that a health probe does not keep an idle daemon's database in memory.
    const unloaded = this.#d.handle.unloaded();
    if (unloaded) return await this.#healthOf(this.#unloadedDatabase(unloaded));
    // The embedded database in its worker may be running a long statement (an index build):
    // wait for it at most HEALTH_DATABASE_WAIT_MS, then answer from its last answer with how
    // long it has been busy (the check goes on and refreshes the last answer).
    this.#databaseCheck ??= this.#databaseHealth().finally(() => this.#databaseCheck = null);
    const check = this.#databaseCheck;
    let database: Health["database"];
    if (!this.#d.store.db.capabilities.offThread) database = await check;
    else {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), HEALTH_DATABASE_WAIT_MS);
      });
      const answered = await Promise.race([check, late]);
      clearTimeout(timer);
      const busy = this.#d.handle.busyFor();
      database = answered ?? {
        ...(this.#lastDatabase ?? { kind: this.#d.store.kind, ok: true }),
        busy_ms: Math.round(busy ?? HEALTH_DATABASE_WAIT_MS),
      };
    }
    return await this.#healthOf(database);
  }

  /** The database part of the health while the database is closed for idleness. */
  #unloadedDatabase(state: { reopenError?: string }): Health["database"] {
    if (state.reopenError !== undefined) {
      return { kind: this.#d.store.kind, ok: false, unloaded: true, error: state.reopenError };
    }
    const { busy_ms: _, ...last } = this.#lastDatabase ?? { kind: this.#d.store.kind, ok: true };
    return { ...last, unloaded: true };
  }

  /** The health, given its database part. */
  async #healthOf(database: Health["database"]): Promise<Health> {
    const cached = this.#embedderHealth;
    if (!cached || Date.now() - cached.at > 10_000) {
      try {
        await this.#d.embedder.embed(["health check"]);
        this.#embedderHealth = { at: Date.now(), ok: true };
      } catch (err) {
        this.#embedderHealth = { at: Date.now(), ok: false, error: describeError(err) };
      }
    }
    const e = this.#embedderHealth!;
    const reason = this.#d.maintenanceReason();
    return {
      status: !database.ok || !e.ok ? "error" : reason ? "maintenance" : "ok",
      version: VERSION,
      database,
      embedder: { ...this.#d.embedder.info, ok: e.ok, ...(e.error ? { error: e.error } : {}) },
      stored_embedder: this.#d.stored(),
      ...(reason ? { maintenance: { reason } } : {}),
    };
  }
}
