import { describeError } from "../common/errors.ts";
/**
 * The daemon's token keepalive: a tick every minute that refreshes the OAuth access token
 * when it expires within the refresh margin, with a 30 s → 1 m → 5 m backoff on failure
 * (5 m forever after), and a lazy check before proxied requests. It never throws out of a
 * tick: the daemon must not die on refresh errors.
 *
 * Clock and timers are injected so tests run in milliseconds. The credentials themselves
 * are reached only through a {@link CredentialsPort} (in production the shared
 * `CredentialStore` of `src/msg/credentials.ts`, which takes the file lock, re-reads after
 * locking, adopts another process's rotation and refuses before any OAuth call when the
 * file is not writable).
 *
 * @module
 */

/** The part of the credentials the keepalive needs (structural subset of `Credentials`). */
export interface TokenLike {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Result of a locked refresh check. */
export interface FreshResult<C extends TokenLike> {
  credentials: C;
  /** True only when this process called the OAuth endpoint and wrote a rotated token. */
  refreshed: boolean;
}

/** Access to the credentials file. */
export interface CredentialsPort<C extends TokenLike> {
  /** Reads the file under the lock; null when it does not exist. */
  read(): Promise<C | null>;
  /**
   * Under the exclusive lock: re-read; adopt another process's rotation; if the token
   * still expires within `marginMs` of `now` (or `force`), check writability, refresh and
   * write atomically.
   */
  ensureFresh(
    opts: { marginMs: number; now: number; force?: boolean; rejectedAccessToken?: string },
  ): Promise<FreshResult<C>>;
}

/** A clock: epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Timers; the default uses the global `setTimeout`/`clearTimeout`. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

/** Interval between keepalive ticks (1 minute). */
export const TICK_MS = 60_000;
/** Retry delays after consecutive failures: 30 s, 1 m, then 5 m forever. */
export const BACKOFF_MS: readonly number[] = [30_000, 60_000, 300_000];
/** Before a proxied request, a token expiring within this is refreshed first (60 s). */
export const LIVENESS_MS = 60_000;

/** The outcome of the last real refresh attempt. */
export interface RefreshRecord {
  /** Epoch ms when the attempt finished. */
  at: number;
  ok: boolean;
  /** Error message of a failed attempt (never contains a token); null when ok. */
  error: string | null;
}

/** A point-in-time view for `/healthz`. */
export interface KeepaliveSnapshot {
  /** Epoch ms of the access token's expiry; null when there are no credentials. */
  expiresAt: number | null;
  tokenAlive: boolean;
  lastRefresh: RefreshRecord | null;
  consecutiveFailures: number;
  /** Epoch ms of the next scheduled tick, null when stopped. */
  nextTickAt: number | null;
  /**
   * The upstream answered 401 to the current access token even after a re-read and one
   * forced refresh: when, and the upstream's message. Null otherwise.
   */
  upstreamRejected: { at: number; error: string } | null;
  /** Why the credentials file could not be used (unreadable, insecure, invalid); null otherwise. */
  credentialsError: string | null;
}

/** Raised by {@link Keepalive.accessToken} when there are no credentials at all. */
export class NoCredentialsError extends Error {
  constructor(message = "no credentials: run `msgcli login` first") {
    super(message);
    this.name = "NoCredentialsError";
  }
}

/** Options of {@link Keepalive}. */
export interface KeepaliveOptions<C extends TokenLike> {
  source: CredentialsPort<C>;
  /** Refresh when the token expires within this many ms (default 10 m). */
  marginMs: number;
  clock?: Clock;
  timers?: Timers;
  tickMs?: number;
  backoffMs?: readonly number[];
  livenessMs?: number;
  /** Log sink (stderr in production); messages never contain secrets. */
  log?: (msg: string) => void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/**
 * Error text without secrets: the message and its causes (a cause the message already
 * quotes told once), cut to 500 characters.
 */
export function errorText(err: unknown): string {
  const text = describeError(err, { depth: 4 });
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

/** The keepalive state machine. */
export class Keepalive<C extends TokenLike> {
  readonly #source: CredentialsPort<C>;
  #marginMs: number;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #tickMs: number;
  readonly #backoff: readonly number[];
  readonly #livenessMs: number;
  readonly #log: (msg: string) => void;
  #creds: C | null = null;
  #last: RefreshRecord | null = null;
  #failures = 0;
  #timer: unknown;
  #nextTickAt: number | null = null;
  #running: Promise<void> | null = null;
  #stopped = true;
  #readError: string | null = null;
  #warnedMissing = false;
  /** The access token a forced refresh ran for (one per rejected token). */
  #forcedFor: string | null = null;
  #forcing: Promise<string | null> | null = null;
  #rejected: { token: string; at: number; error: string } | null = null;

  constructor(opts: KeepaliveOptions<C>) {
    this.#source = opts.source;
    this.#marginMs = opts.marginMs;
    this.#clock = opts.clock ?? { now: () => Date.now() };
    this.#timers = opts.timers ?? realTimers;
    this.#tickMs = opts.tickMs ?? TICK_MS;
    this.#backoff = opts.backoffMs ?? BACKOFF_MS;
    this.#livenessMs = opts.livenessMs ?? LIVENESS_MS;
    this.#log = opts.log ?? (() => {});
  }

  /** Starts ticking: the first tick runs at once. Resolves when that tick has finished. */
  start(): Promise<void> {
    this.#stopped = false;
    return this.tick();
  }

  /** Stops ticking; an in-flight tick finishes but schedules nothing. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#nextTickAt = null;
    await this.#running;
  }

  /** Current cached credentials (null before the first read or when the file is absent). */
  get credentials(): C | null {
    return this.#creds;
  }

  /** State for `/healthz`. */
  snapshot(): KeepaliveSnapshot {
    const now = this.#clock.now();
    const rejected = this.#rejected !== null && this.#creds !== null &&
        this.#rejected.token === this.#creds.accessToken
      ? { at: this.#rejected.at, error: this.#rejected.error }
      : null;
    return {
      expiresAt: this.#creds?.expiresAt ?? null,
      tokenAlive: this.#creds !== null && this.#creds.expiresAt > now && rejected === null,
      upstreamRejected: rejected,
      lastRefresh: this.#last,
      consecutiveFailures: this.#failures,
      nextTickAt: this.#nextTickAt,
      credentialsError: this.#creds === null ? this.#readError : null,
    };
  }

  /** Runs one tick now (single-flight: joins a tick already running). Never rejects. */
  tick(): Promise<void> {
    if (this.#running) return this.#running;
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running = this.#run().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /**
   * The access token for a proxied request. Loads the credentials if none are cached, and
   * refreshes first when the token expires within the liveness window, unless a failed
   * refresh is still backing off (then the current token is returned and the upstream
   * answers for itself). Throws {@link NoCredentialsError} when there are no credentials.
   */
  async accessToken(): Promise<string> {
    if (this.#creds === null) await this.reload();
    if (this.#creds === null) {
      throw this.#readError !== null
        ? new NoCredentialsError(`cannot use the credentials: ${this.#readError}`)
        : new NoCredentialsError();
    }
    const now = this.#clock.now();
    const backingOff = this.#failures > 0 && this.#nextTickAt !== null && this.#nextTickAt > now;
    if (this.#creds.expiresAt - now <= this.#livenessMs && !backingOff) {
      await this.tick();
    }
    if (this.#creds === null) throw new NoCredentialsError();
    return this.#creds.accessToken;
  }

  /**
   * Re-reads the file; returns the credentials now cached. Errors keep the old ones; a file
   * that is gone (`msgcli logout`) drops them, so the daemon stops using a removed token.
   */
  async reload(): Promise<C | null> {
    try {
      const c = await this.#source.read();
      this.#creds = c;
      this.#readError = null;
    } catch (err) {
      this.#readError = errorText(err);
      this.#log(`keepalive: reading credentials failed: ${this.#readError}`);
    }
    return this.#creds;
  }

  /**
   * After an upstream 401 to `used`: re-reads the file under the lock and returns the access
   * token another process rotated to; else refreshes once (forced, single-flight: concurrent
   * 401s for the same token share one refresh) and returns the new token. Null when nothing
   * new came of it (a refresh was already tried for this token, or it failed: recorded for
   * `/healthz`). Never throws.
   */
  async afterUnauthorized(used: string): Promise<string | null> {
    const c = await this.reload();
    if (c !== null && c.accessToken !== used) return c.accessToken;
    if (this.#forcing !== null && this.#forcedFor === used) return await this.#forcing;
    // One forced refresh per rejected token; and none while the upstream rejects a token a
    // forced refresh just gave (no refresh storm; a later success or rotation clears it).
    if (this.#forcedFor === used || this.#rejected?.token === used) return null;
    this.#forcedFor = used;
    const run = async (): Promise<string | null> => {
      try {
        const r = await this.#source.ensureFresh({
          marginMs: this.#marginMs,
          now: this.#clock.now(),
          force: true,
          rejectedAccessToken: used,
        });
        this.#creds = r.credentials;
        if (r.refreshed) {
          this.#last = { at: this.#clock.now(), ok: true, error: null };
          this.#log("keepalive: token refreshed after an upstream 401");
        }
        this.#failures = 0;
        return r.credentials.accessToken !== used ? r.credentials.accessToken : null;
      } catch (err) {
        this.#failures++;
        this.#last = { at: this.#clock.now(), ok: false, error: errorText(err) };
        this.#log(`keepalive: refresh after an upstream 401 failed: ${this.#last.error}`);
        return null;
      }
    };
    this.#forcing = run().finally(() => {
      this.#forcing = null;
    });
    return await this.#forcing;
  }

  /** The upstream answered 401 to `token` after {@link afterUnauthorized}: shown by `/healthz`. */
  upstreamRejected(token: string, error: string): void {
    this.#rejected = { token, at: this.#clock.now(), error };
    this.#log(`upstream rejected the access token after a refresh: ${error}`);
  }

  /** The upstream accepted `token`: clears a recorded rejection of it. */
  upstreamAccepted(token: string): void {
    if (this.#rejected !== null && this.#rejected.token === token) this.#rejected = null;
  }

  async #run(): Promise<void> {
    let delay = this.#tickMs;
    try {
      const creds = await this.reload();
      const now = this.#clock.now();
      if (creds === null) {
        if (!this.#warnedMissing) {
          this.#warnedMissing = true;
          this.#log("keepalive: no credentials file yet; run `msgcli login`");
        }
      } else if (creds.expiresAt - now <= this.#marginMs) {
        delay = await this.#attempt(now);
      } else {
        // Nothing to refresh (maybe another process rotated it): not a refresh.
        this.#failures = 0;
      }
    } catch (err) {
      this.#log(`keepalive: tick failed: ${errorText(err)}`);
    }
    this.#schedule(delay);
  }

  /** One real refresh attempt; returns the delay until the next tick. */
  async #attempt(now: number): Promise<number> {
    try {
      const r = await this.#source.ensureFresh({ marginMs: this.#marginMs, now });
      this.#creds = r.credentials;
      if (r.refreshed) {
        this.#last = { at: this.#clock.now(), ok: true, error: null };
        const lifetime = r.credentials.expiresAt - this.#clock.now();
        if (lifetime > 0 && lifetime <= this.#marginMs) {
          // A margin as long as the token's lifetime would rotate the token on every tick.
          this.#marginMs = Math.floor(lifetime / 2);
          this.#log(
            `keepalive: the refresh margin is not shorter than the token lifetime (${
              Math.round(lifetime / 60_000)
            } min); using ${Math.round(this.#marginMs / 60_000)} min`,
          );
        }
        this.#log(
          `keepalive: token refreshed; expires ${new Date(r.credentials.expiresAt).toISOString()}`,
        );
      } else {
        this.#log("keepalive: adopted a token rotated by another process");
      }
      this.#failures = 0;
      return this.#tickMs;
    } catch (err) {
      const delay = this.#backoff[Math.min(this.#failures, this.#backoff.length - 1)];
      this.#failures++;
      this.#last = { at: this.#clock.now(), ok: false, error: errorText(err) };
      this.#log(
        `keepalive: refresh failed (attempt ${this.#failures}), retrying in ${
          Math.round(delay / 1000)
        }s: ${this.#last.error}`,
      );
      return delay;
    }
  }

  #schedule(delay: number): void {
    if (this.#stopped) {
      this.#nextTickAt = null;
      return;
    }
    this.#nextTickAt = this.#clock.now() + delay;
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      void this.tick();
    }, delay);
  }
}
