/**
 * The rules' confidences are calibrated (src/capture/calibration.ts): each rule's is the
 * smoothed precision it had on the tuning data, at most 0.98, held low with few examples, and
 * every rule the extractor can record has its counts.
 */
import assert from "node:assert/strict";
import {
  calibrated,
  confidenceOf,
  FEW,
  FEW_CAP,
  MAX_CONFIDENCE,
  PRIOR,
  RULE_COUNTS,
} from "../../src/capture/calibration.ts";
import { ruleCandidates } from "../../src/capture/extract.ts";
import { u } from "./turns.ts";

Deno.test("calibrated: shrunk toward the prior, at most 0.95, held at the cap with few examples", () => {
  assert.equal(PRIOR, 0.75);
  assert.equal(calibrated(0, 0), 0.5);
  // (16 + 3) / (16 + 4): 16 of 16 on the tuning data is not 16 of 16 elsewhere.
  assert.equal(calibrated(16, 16), MAX_CONFIDENCE);
  assert.equal(calibrated(12, 16), 0.75);
  assert.equal(calibrated(8, 10), 0.78);
  assert.equal(calibrated(2, 10), 0.35);
  assert.equal(calibrated(1000, 1000), MAX_CONFIDENCE);
  // 4 of 4 would be 0.87: too few to say.
  assert.equal(calibrated(FEW - 1, FEW - 1), FEW_CAP);
  // Few examples: never above the rule's own (right+1)/(n+2).
  assert.equal(calibrated(1, 2), 0.5);
  assert.equal(calibrated(0, 1), 0.33);
  for (const [rule, [right, n]] of Object.entries(RULE_COUNTS)) {
    assert.ok(right <= n, rule);
    assert.equal(confidenceOf(rule), calibrated(right, n), rule);
    assert.ok(confidenceOf(rule) <= MAX_CONFIDENCE, rule);
  }
});

Deno.test("every rule the extractor records has counts; a rule's candidate carries its rule's confidence", async () => {
  const src = (await Promise.all(
    [
      "classify.ts",
      "markers.ts",
      "rules.ts",
      "facts.ts",
      "extract.ts",
      "sentences.ts",
      "confirm.ts",
    ]
      .map((f) => Deno.readTextFile(new URL(`../../src/capture/${f}`, import.meta.url))),
  )).join("\n");
  const rules = new Set(
    [...src.matchAll(/\bhit\("\w+", "([\w-]+)"\)|confidenceOf\("([\w-]+)"\)/g)].map((m) =>
      m[1] ?? m[2]
    ),
  );
  assert.ok(rules.size >= 40, String(rules.size));
  assert.deepEqual([...rules].filter((r) => !(r in RULE_COUNTS)), []);
  const [c] = ruleCandidates([u("never push to main directly")]);
  assert.equal(c.rule, "never");
  assert.equal(c.confidence, confidenceOf("never"));
});
