/**
 * The offline extractor's confidences, calibrated: a candidate's confidence is the precision its
 * rule (the `rule` each candidate records) had on the tuning data, smoothed, so that an
 * auto-accept floor means something measurable ("of the candidates at or above 0.9, that share
 * was right"). The counts are what `deno task bench:capture --split tuning` (dev + test of
 * bench/data/capture/) printed under "by extractor rule"; rerun it and copy them here after
 * changing the extractor (tests/capture/calibration_test.ts checks that every rule has counts).
 * @module
 */

/** Candidates right and proposed of each rule on the tuning data (2026-11-29, 135 candidates). */
export const RULE_COUNTS: Readonly<Record<string, readonly [right: number, n: number]>> = {
  "never": [16, 16],
  "always": [12, 12],
  "setup-verb": [12, 12],
  "owner": [8, 8],
  "agent-confirmed": [6, 6],
  "port": [5, 5],
  "preference": [5, 5],
  "we-chose": [5, 5],
  "dont": [4, 4],
  "every-gets": [4, 4],
  "from-now-on": [4, 4],
  "path": [4, 4],
  "setup-is": [4, 4],
  "x-no-y": [4, 4],
  "generalised": [3, 3],
  "lets-because": [3, 3],
  "no-thing": [3, 3],
  "setup-where": [3, 3],
  "use-x-not-y": [3, 3],
  "choice-because": [2, 2],
  "context-list": [2, 2],
  "every-needs": [1, 2],
  "i-use": [2, 2],
  "must": [2, 2],
  "naming": [2, 2],
  "no-doing": [2, 2],
  "noted": [2, 2],
  "rule-list": [2, 2],
  "we-switched": [2, 2],
  "always-fact": [1, 1],
  "avoid-prefer": [1, 1],
  "env-var": [1, 1],
  "general-rule": [1, 1],
  "needs-approval": [1, 1],
  "we-dont": [1, 1],
  "we-habit": [1, 1],
  // Rules that proposed nothing on the tuning data.
  "command": [0, 0],
  "schedule": [0, 0],
  "lifetime": [0, 0],
  "stop-doing": [0, 0],
  "not-allowed": [0, 0],
  "convention": [0, 0],
  "recurring": [0, 0],
  "only-via": [0, 0],
  "project-convention": [0, 0],
  "use-for-all": [0, 0],
  "house-way": [0, 0],
  "we-prefer": [0, 0],
  "kind-should": [0, 0],
  "x-not-y": [0, 0],
};

/** The highest confidence any rule gets (nothing on this much data is certain). */
export const MAX_CONFIDENCE = 0.98;
/** Rules with fewer candidates than this on the tuning data are held at {@link FEW_CAP}. */
export const FEW = 5;
/** The most a rule with few examples gets. */
export const FEW_CAP = 0.7;

/**
 * The calibrated confidence of a rule with `right` of `n` candidates right: (right+1)/(n+2)
 * (Laplace's rule: a rule with no example is 0.5), at most {@link MAX_CONFIDENCE}, at most
 * {@link FEW_CAP} with fewer than {@link FEW} examples; two decimals.
 */
export function calibrated(right: number, n: number): number {
  let c = Math.min(MAX_CONFIDENCE, (right + 1) / (n + 2));
  if (n < FEW) c = Math.min(c, FEW_CAP);
  return Math.floor(c * 100) / 100;
}

/** The confidence of a candidate of `rule` (0.5 for a rule not measured). */
export function confidenceOf(rule: string): number {
  const c = RULE_COUNTS[rule];
  return c ? calibrated(c[0], c[1]) : calibrated(0, 0);
}
