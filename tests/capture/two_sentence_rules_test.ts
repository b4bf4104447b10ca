/**
 * 0.20's rules over two sentences and short rules (docs/capture.md): a rule followed by the
 * sentence that explains it is one proposal holding both; short rules in other forms than
 * "always" / "never" / "don't" ("avoid…", "prefer…", "stop …ing", "no X here", "always X, never
 * Y") are proposed alone; and their lookalikes are not (a state said with "is always", a rule
 * for the task at hand, questions). Written for this test from general knowledge, none taken
 * from the benchmark's sessions.
 */
import assert from "node:assert/strict";
import { extractCandidates } from "../../src/capture/extract.ts";
import { THRESHOLD } from "../../src/capture/scorer_weights.ts";
import { a, proposed, u } from "./turns.ts";

/** A rule and the sentence that explains it: one proposal, with the two parts. */
export const TWO_SENTENCES: [string, string, string][] = [
  [
    "Never run the migrations by hand. The deploy job does it after the health check.",
    "migrations by hand",
    "deploy job does it",
  ],
  [
    "Never squash release commits. The changelog script reads them one by one.",
    "squash release commits",
    "changelog script",
  ],
  [
    "Don't bump the node version in the Dockerfile. It has to match the one on the build servers.",
    "bump the node version",
    "build servers",
  ],
  [
    "Always run the linter before pushing. That's a hard rule, CI rejects warnings.",
    "linter before pushing",
    "hard rule",
  ],
  [
    "Never edit the generated protobuf files. The codegen step rewrites them on every build.",
    "generated protobuf",
    "codegen step",
  ],
];

/** Short rules said alone: each must be proposed. */
export const SHORT_RULES = [
  "avoid lodash",
  "Prefer composition over inheritance.",
  "prefer named exports",
  "no moment.js here",
  "No console.log in production code.",
  "no emoji in commit messages",
  "Quit adding TODOs.",
  "stop adding comments that restate the code",
  "always tabs, never spaces",
  "no eval, no with statements",
];

/** Lookalikes: a state with "always", a rule for the task at hand, questions. */
export const LOOKALIKES = [
  "the cache is always cold after a deploy",
  "the build is always green on main",
  "the staging queue is always empty on weekends",
  "avoid lodash for this PR only",
  "for this PR only, prefer the old client",
  "no lodash for now",
  "should we avoid lodash?",
  "prefer composition over inheritance?",
  "do we always squash release commits",
];

for (const [text, rule, why] of TWO_SENTENCES) {
  Deno.test(`a rule and its reason are one proposal: ${text}`, () => {
    const got = proposed(text);
    assert.equal(got.length, 1, `${JSON.stringify(text)}: ${JSON.stringify(got)}`);
    assert.ok(got[0].confidence >= THRESHOLD);
    assert.match(got[0].text, new RegExp(rule, "i"));
    assert.match(got[0].text, new RegExp(why, "i"));
  });
}

for (const text of SHORT_RULES) {
  Deno.test(`a short rule is proposed: ${text}`, () => {
    const got = proposed(text);
    assert.equal(got.length, 1, `${JSON.stringify(text)}: ${JSON.stringify(got)}`);
    assert.ok(got[0].confidence >= THRESHOLD);
  });
}

for (const text of LOOKALIKES) {
  Deno.test(`a lookalike is not proposed: ${text}`, () => {
    assert.deepEqual(proposed(text).map((c) => c.text), [], JSON.stringify(text));
  });
}

Deno.test("a new request after a rule is not joined to it, and leaves the rule its own", () => {
  const got = proposed("Never push to main. Also fix the flaky login test.");
  assert.deepEqual(got.map((c) => c.text), ["Never push to main."]);
});

Deno.test("a second statement of its own after a rule stays apart", () => {
  const said = u("Never push to main. The staging cluster runs on eks-staging-2 in eu-west-1.");
  const got = extractCandidates([u("fix the login button"), a("OK, done."), said], undefined, 0);
  assert.equal(got.filter((c) => c.provenance.uuid === said.uuid).length, 2);
});
