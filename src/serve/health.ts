/**
 * `GET /healthz` and `GET /usage` bodies.
 *
 * @module
 */

import type { KeepaliveSnapshot } from "./keepalive.ts";

/**
 * Body of `/healthz`. The `last_refresh_*` fields are present only once a real refresh
 * attempt has run (a failed one counts; a tick that finds nothing to refresh does not).
 */
export interface HealthBody {
  /**
   * "ok"; "degraded" when the token is dead and the last refresh failed (503);
   * "no_credentials" when there is no usable credentials file (200: the daemon itself is fine
   * and picks the file up once `msgcli login` writes it; restarting it would not help).
   */
  status: "ok" | "degraded" | "no_credentials";
  /** With "no_credentials": what to do about it. */
  fix?: string;
  /** The access token exists and has not expired. */
  token_alive: boolean;
  /** ISO 8601 expiry of the access token, null without credentials. */
  expires_at: string | null;
  /** ISO 8601 start time of the daemon. */
  started_at: string;
  /** Whole seconds since start. */
  uptime_s: number;
  last_refresh_at?: string;
  last_refresh_ok?: boolean;
  /** Error of the last attempt; null when it succeeded. */
  last_refresh_error?: string | null;
  /**
   * Present when the upstream answered 401 to the current token even after a re-read and a
   * forced refresh: when, and the upstream's message (the status is then "degraded", 503).
   */
  upstream_rejected_at?: string;
  upstream_error?: string;
}

/** The fix `/healthz` names when there is no credentials file. */
export const NO_CREDENTIALS_FIX = 'run "msgcli login"; the daemon reads the new file itself';

/**
 * Builds the `/healthz` status and body. 503 only when the token is dead and refresh keeps
 * failing, or the upstream rejects the token even after a forced refresh. Without
 * credentials the status is "no_credentials" with the fix, and the code 200.
 */
export function healthResponse(
  snap: KeepaliveSnapshot,
  startedAt: number,
  now: number,
): { status: number; body: HealthBody } {
  const failing = snap.lastRefresh !== null && !snap.lastRefresh.ok;
  const degraded = (!snap.tokenAlive && failing) || snap.upstreamRejected !== null;
  const missing = snap.expiresAt === null;
  const body: HealthBody = {
    status: degraded ? "degraded" : missing ? "no_credentials" : "ok",
    ...(missing && !degraded
      ? {
        fix: snap.credentialsError !== null
          ? `${snap.credentialsError}; then the daemon reads the file itself`
          : NO_CREDENTIALS_FIX,
      }
      : {}),
    token_alive: snap.tokenAlive,
    expires_at: snap.expiresAt === null ? null : new Date(snap.expiresAt).toISOString(),
    started_at: new Date(startedAt).toISOString(),
    uptime_s: Math.max(0, Math.floor((now - startedAt) / 1000)),
  };
  if (snap.lastRefresh !== null) {
    body.last_refresh_at = new Date(snap.lastRefresh.at).toISOString();
    body.last_refresh_ok = snap.lastRefresh.ok;
    body.last_refresh_error = snap.lastRefresh.error;
  }
  if (snap.upstreamRejected !== null) {
    body.upstream_rejected_at = new Date(snap.upstreamRejected.at).toISOString();
    body.upstream_error = snap.upstreamRejected.error;
  }
  return { status: degraded ? 503 : 200, body };
}

/**
 * The `/usage` cache: the subscription windows parsed from the
 * `anthropic-ratelimit-unified-*` headers of the last proxied response that carried them.
 */
export class UsageCache<W> {
  #windows: W | null = null;
  #seenAt = 0;

  /** Stores windows seen at `at` (epoch ms). */
  put(windows: W, at: number): void {
    this.#windows = windows;
    this.#seenAt = at;
  }

  /** `{ seen_at, ...windows }`-style view, or null while empty. */
  get(): { windows: W; seenAt: number } | null {
    return this.#windows === null ? null : { windows: this.#windows, seenAt: this.#seenAt };
  }
}
