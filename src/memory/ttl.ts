/**
 * TTL grammar: one or more `<positive integer><unit>` parts, units `m` (minutes),
 * `h` (hours), `d` (days), `w` (weeks); for example `30m`, `24h`, `7d`, `2w`, `1d12h`.
 * The total must be at most 10 years.
 * @module
 */

const UNIT_MS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** The longest accepted TTL (10 years). */
export const MAX_TTL_MS = 3650 * 86_400_000;

/** Parse a TTL into milliseconds; returns an error text instead of throwing. */
export function parseTtl(ttl: string): number | string {
  const text = ttl.trim().toLowerCase();
  if (!/^(\d+[mhdw])+$/.test(text)) {
    return `"${ttl}" is not a duration; use a positive integer with a unit m, h, d or w, such as 30m, 24h, 7d, 2w or 1d12h`;
  }
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([mhdw])/g)) {
    const value = Number(n);
    if (!Number.isSafeInteger(value) || value <= 0) {
      return `"${ttl}": each part must be a positive integer`;
    }
    total += value * UNIT_MS[unit];
  }
  if (total > MAX_TTL_MS) return `"${ttl}" is longer than the maximum of 10 years (3650d)`;
  return total;
}
