/**
 * A change of the setup said as raised to a named version (since 0.21, facts.ts `SETUP_CHANGE`,
 * `setup-change`): "I bumped us to gleam 1.6", "bumped tokio to 1.41 in the workspace", "we
 * raised mypy to strict 1.13 yesterday", "moved us to godot 4.3": the setup itself ("us") or a
 * tool or file of it, to a version with its number, said by "I", "we" or no subject at all, and
 * with a request after it as people do ("…, fix the warnings"). And the near misses it must leave
 * alone: a size, a count or a length raised ("bumped the timeout to 30s", "raised the limit to
 * 20", "bumped it to 5"), the project's own release ("bumped the version to 2.3.1"), a plan ("we
 * will bump to …"), a thing of the work moved ("I moved the meeting to friday"). Written for this
 * test, none taken from the benchmark's sessions.
 */
import assert from "node:assert/strict";
import { classify } from "../../src/capture/classify.ts";
import { SETUP_CHANGE } from "../../src/capture/facts.ts";

const BUMPED = [
  "I bumped us to gleam 1.6, the manifest says >= 1.6 now",
  "bumped tokio to 1.41 in the workspace",
  "we raised mypy to level 3 yesterday",
  "moved us to godot 4.3 this week",
  "i upgraded the runner to ubuntu-24.04 last week",
];
const NOT_BUMPED = [
  "I bumped the timeout to 30s",
  "raised the limit to 20",
  "bumped it to 5",
  "bumped the version to 2.3.1",
  "i bumped the pool to 50 connections",
  "we will bump tokio to 1.41 next sprint",
  "I moved the meeting to friday",
  "can you bump tokio to 1.41?",
];

for (const text of BUMPED) {
  Deno.test(`the setup raised to a named version is a change of the setup: ${text}`, () => {
    assert.ok(SETUP_CHANGE.test(text.toLowerCase()), text);
    const m = classify(text);
    assert.equal(m?.type, "decision", text);
    assert.equal(m?.rule, "setup-change", text);
  });
}
for (const text of NOT_BUMPED) {
  Deno.test(`a size, a count, a release, a plan or a thing of the work is no change: ${text}`, () => {
    assert.ok(!SETUP_CHANGE.test(text.toLowerCase()), text);
    assert.notEqual(classify(text)?.rule, "setup-change", text);
  });
}
