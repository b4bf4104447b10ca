/**
 * The confidences of the offline extractor's rules by themselves (`ruleCandidates` in
 * extract.ts: what the rules find, before the learned scorer of scorer.ts, whose probability is
 * the confidence of what the extractor proposes), calibrated: a rule candidate's confidence is
 * the precision its rule (the `rule` each candidate records) had on the tuning data, shrunk
 * toward what rules did on data they were not written for ({@link PRIOR}). The counts are what
 * `deno task bench:capture --split tuning` (dev + test + holdout of bench/data/capture/) printed
 * under "by extractor rule (the rules alone)"; rerun it and copy them here after changing the
 * rules (tests/capture/calibration_test.ts checks that every rule has counts).
 * @module
 */

/**
 * Candidates right and proposed of each rule on the tuning data (dev + test + holdout,
 * 2026-11-29, 202 candidates).
 */
export const RULE_COUNTS: Readonly<Record<string, readonly [right: number, n: number]>> = {
  "never": [32, 32],
  "always": [18, 19],
  "setup-verb": [18, 18],
  "from-now-on": [9, 9],
  "agent-confirmed": [8, 8],
  "owner": [8, 8],
  "dont": [7, 7],
  "we-chose": [7, 7],
  "every-gets": [6, 6],
  "path": [6, 6],
  "preference": [6, 6],
  "setup-is": [6, 6],
  "generalised": [5, 5],
  "personal-intro": [0, 0],
  "standing-tail": [0, 0],
  "setup-change": [0, 0],
  "on-version": [0, 0],
  "stays": [1, 2],
  "no-thing": [5, 5],
  "noted": [5, 5],
  "port": [5, 5],
  "x-no-y": [5, 5],
  "setup-where": [3, 4],
  "setup-named": [1, 1],
  "we-dont": [4, 4],
  "lets-because": [3, 3],
  "must": [3, 3],
  "rule-list": [3, 3],
  "use-x-not-y": [3, 3],
  "choice-because": [2, 2],
  "moved-on": [2, 2],
  "context-list": [2, 2],
  "every-needs": [1, 2],
  "i-use": [2, 2],
  "naming": [2, 2],
  "needs-approval": [2, 2],
  "no-doing": [2, 2],
  "we-switched": [2, 2],
  "always-fact": [1, 1],
  "avoid-prefer": [1, 1],
  "env-var": [1, 1],
  "general-rule": [1, 1],
  "lifetime": [1, 1],
  "scoped-marker": [0, 1],
  "we-habit": [1, 1],
  // Rules that proposed nothing on the tuning data.
  "command": [0, 0],
  "schedule": [0, 0],
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
export const MAX_CONFIDENCE = 0.95;
/** Rules with fewer candidates than this on the tuning data are held at {@link FEW_CAP}. */
export const FEW = 5;
/** The most a rule with few examples gets. */
export const FEW_CAP = 0.7;
/**
 * What a rule is assumed to be worth before its own count: the precision the extractor's rules
 * had on data they were not written for (the holdout split's one frozen run of 2026-11-29,
 * 0.767 after the tuning; by rule, `always` 0.40 and `never` 0.84 where the tuning data said
 * 12 of 12 and 16 of 16). Rules fitted on the tuning data score better there than anywhere else.
 */
export const PRIOR = 0.75;
/** How many candidates the prior weighs, against the rule's own count. */
export const PRIOR_WEIGHT = 4;

/**
 * The calibrated confidence of a rule with `right` of `n` candidates right on the tuning data:
 * its precision shrunk toward {@link PRIOR} ((right + PRIOR × PRIOR_WEIGHT) / (n + PRIOR_WEIGHT)),
 * at most {@link MAX_CONFIDENCE}; with fewer than {@link FEW} examples at most {@link FEW_CAP}
 * and at most (right + 1) / (n + 2); 0.5 for a rule with none; two decimals.
 */
export function calibrated(right: number, n: number): number {
  if (n === 0) return 0.5;
  let c = Math.min(MAX_CONFIDENCE, (right + PRIOR * PRIOR_WEIGHT) / (n + PRIOR_WEIGHT));
  // With few examples, the prior must not lift a rule above its own record (0 of 1 is not 0.6).
  if (n < FEW) c = Math.min(c, FEW_CAP, (right + 1) / (n + 2));
  return Math.floor(c * 100 + 1e-9) / 100;
}

/** The confidence of a candidate of `rule` (0.5 for a rule not measured). */
export function confidenceOf(rule: string): number {
  const c = RULE_COUNTS[rule];
  return c ? calibrated(c[0], c[1]) : calibrated(0, 0);
}
