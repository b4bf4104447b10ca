/**
 * Subscription rate-limit windows, from the `anthropic-ratelimit-unified-*` response headers
 * (the daemon caches them for `GET /usage`) or from `GET /api/oauth/usage`. Both become one
 * JSON-friendly shape, {@link UsageWindows}.
 *
 * Headers: `…-unified-status`, `…-unified-reset` (epoch seconds) and per window
 * `…-unified-<window>-status|reset|utilization` with windows such as `5h`, `7d`,
 * `7d_opus`, `7d_sonnet`; utilization is 0..1. Other `…-unified-*` headers land in `extra`.
 *
 * @module
 */

/** One window. `utilization` is 0..1; `reset` an ISO time. */
export interface UsageWindow {
  utilization: number | null;
  reset: string | null;
  status?: string;
}

/** All windows, keyed `5h`, `7d` and per model `7d_opus`, `7d_sonnet`, … */
export interface UsageWindows {
  /** Overall status (`allowed`, `allowed_warning`, `rejected`), when known. */
  status: string | null;
  /** Overall reset as ISO time, when known. */
  reset: string | null;
  windows: Record<string, UsageWindow>;
  /** Other unified headers (e.g. `representative-claim`, `fallback-percentage`). */
  extra: Record<string, string>;
}

const PREFIX = "anthropic-ratelimit-unified-";

/** Epoch seconds (or ms, or ISO) to ISO; null when not parseable. */
export function toIsoTime(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number" || /^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    if (!Number.isFinite(n)) return null;
    // Values below 1e11 are seconds (year 5138 in ms); above are milliseconds.
    return new Date(n < 1e11 ? n * 1000 : n).toISOString();
  }
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function num(value: string): number | null {
  const n = Number(value);
  return value.trim() !== "" && Number.isFinite(n) ? n : null;
}

/** Parses the unified rate-limit headers; null when none are present. */
export function parseUnifiedRateLimits(h: Headers): UsageWindows | null {
  const out: UsageWindows = { status: null, reset: null, windows: {}, extra: {} };
  let seen = false;
  h.forEach((value, rawKey) => {
    const key = rawKey.toLowerCase();
    if (!key.startsWith(PREFIX)) return;
    seen = true;
    const rest = key.slice(PREFIX.length);
    if (rest === "status") {
      out.status = value;
      return;
    }
    if (rest === "reset") {
      out.reset = toIsoTime(value);
      return;
    }
    const m = /^(.+)-(status|reset|utilization)$/.exec(rest);
    if (!m || !/^\d+[hd]/.test(m[1])) {
      out.extra[rest] = value;
      return;
    }
    const w = out.windows[m[1]] ??= { utilization: null, reset: null };
    if (m[2] === "status") w.status = value;
    else if (m[2] === "reset") w.reset = toIsoTime(value);
    else w.utilization = num(value);
  });
  return seen ? out : null;
}

const OAUTH_USAGE_KEYS: Record<string, string> = {
  five_hour: "5h",
  seven_day: "7d",
  seven_day_opus: "7d_opus",
  seven_day_sonnet: "7d_sonnet",
  seven_day_oauth_apps: "7d_oauth_apps",
};

/**
 * Parses the body of `GET /api/oauth/usage`:
 * `{five_hour: {utilization: <percent 0..100>, resets_at: ISO}, seven_day: …, seven_day_opus: …}`
 * (null entries are skipped). Utilization is converted to 0..1.
 */
export function parseOAuthUsage(body: unknown): UsageWindows {
  const out: UsageWindows = { status: null, reset: null, windows: {}, extra: {} };
  if (typeof body !== "object" || body === null) return out;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      if (value !== null && value !== undefined) out.extra[key] = String(value);
      continue;
    }
    const v = value as Record<string, unknown>;
    if (!("utilization" in v) && !("resets_at" in v)) continue;
    const name = OAUTH_USAGE_KEYS[key] ??
      key.replace(/^five_hour/, "5h").replace(/^seven_day/, "7d");
    const util = typeof v.utilization === "number" ? v.utilization / 100 : null;
    const resets = typeof v.resets_at === "string" || typeof v.resets_at === "number"
      ? toIsoTime(v.resets_at)
      : null;
    out.windows[name] = { utilization: util, reset: resets };
  }
  return out;
}
