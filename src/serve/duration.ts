/**
 * Durations for `--refresh-margin`: Go-style `90s`, `10m`, `1h30m`, `500ms`, `2d`.
 *
 * @module
 */

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a duration such as `10m`, `90s` or `1h30m` into milliseconds. A unit is required
 * (`ms`, `s`, `m`, `h`, `d`); fractions are allowed (`1.5h`). Throws a `RangeError` naming
 * the input for anything else, including negative values.
 */
export function parseDuration(input: string): number {
  const text = input.trim();
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(re)) {
    total += Number(match[1]) * UNITS[match[2]];
    consumed += match[0].length;
  }
  if (text === "" || consumed !== text.length || !Number.isFinite(total)) {
    throw new RangeError(
      `invalid duration ${JSON.stringify(input)} (use e.g. 30s, 10m, 1h30m)`,
    );
  }
  return Math.round(total);
}

/** Formats milliseconds compactly for logs: `30s`, `1m`, `5m`, `1h30m`, `250ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  let rest = Math.round(ms / 1000);
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s ? `${s}s` : ""}` || "0s";
}
