/**
 * What holds for every thing of a kind, whatever its verb (since 0.21, rules.ts `every-gets`):
 * "every service lives under services/<name>/", "each crate begins with #![deny(unsafe_code)]",
 * "every handler that writes to the db gets a transaction" (what narrows the kind: "that…",
 * "with…", "in…"). And the near misses it must leave alone: what happens to each (a report or a
 * measurement: "every test fails on macs", "each page loads in 3 seconds", "every build on arm
 * runners breaks sometimes", "every test passes locally"), "every time…", a pointer ("each of
 * them…", "every run goes there"), the things of the user's work ("every file I opened…").
 * Written for this test, none taken from the benchmark's sessions.
 */
import assert from "node:assert/strict";
import { classify } from "../../src/capture/classify.ts";

const KINDS = [
  "every service lives under services/<name>/ with its own Dockerfile",
  "each crate begins with #![deny(unsafe_code)]",
  "every handler that writes to the db gets a transaction",
  "every migration in db/migrations carries a down step",
  "each lambda ships with its own IAM role",
];
const NOT_KINDS = [
  "every test fails on macs",
  "each page loads in 3 seconds",
  "every build on arm runners breaks sometimes",
  "every test passes locally",
  "every deploy triggers two builds",
  "every time it crashes we lose the logs",
  "each of them works",
  "each of these needs a docstring",
  "every run goes there",
  "every file I opened has tabs",
];

for (const text of KINDS) {
  Deno.test(`what holds for every thing of a kind is a rule: ${text}`, () => {
    const m = classify(text);
    assert.equal(m?.type, "rule", text);
    assert.equal(m?.rule, "every-gets", text);
  });
}
for (const text of NOT_KINDS) {
  Deno.test(`what happens to each, a pointer or the user's work is no kind's rule: ${text}`, () => {
    assert.notEqual(classify(text)?.rule, "every-gets", text);
  });
}
