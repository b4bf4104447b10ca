/**
 * Three kinds of junk a review of 0.21 found, with the durable near misses each guard must leave
 * alone (markers.ts `UNTIL_TIME`, `reportedSpeech`, `MEASURED`):
 * - what holds until a day, a date or the end of a piece of work ("the pool size stays at 20 until
 *   Friday", "yes until Friday" to a standing offer) is temporary; "until" before a condition
 *   that recurs ("never merge until CI is green") or a release the project pins for ("we stay on
 *   4.3 until the game ships") is not;
 * - someone else's words ("my manager says no latest tags. ever", "no emoji, my colleague says")
 *   are not the user's rule, unless the user adopts them or they report what the team does or
 *   decided;
 * - a measurement ("the container stays at 100% CPU") is not a setting that stays.
 * Written for this test, none taken from the benchmark's sessions.
 */
import assert from "node:assert/strict";
import { reportedSpeech } from "../../src/capture/markers.ts";
import { confirmed, proposed } from "./turns.ts";

const TEMPORARY = [
  "the pool size stays at 20 until Friday",
  "the retry count stays at 5 till the 3rd",
  "no latest tags until Friday. ever",
  "never use latest tags until next Monday",
  "keep the pool at 20 till next sprint",
  "the image tag stays pinned to 1.2.3 until the end of the week",
  "don't touch the orders table until the migration is done",
  "the api timeout stays at 30s until 2026-12-04",
];
const DURABLE_UNTIL = [
  "never merge until CI is green",
  "don't deploy until the DBA signs off",
  "never deploy until the smoke tests pass",
  "we stay on Godot 4.3 until the game ships",
];

for (const text of TEMPORARY) {
  Deno.test(`what holds until a day, a date or the end of a piece of work is no rule: ${text}`, () => {
    assert.deepEqual(proposed(text).map((c) => c.text), [], JSON.stringify(text));
  });
}
for (const text of DURABLE_UNTIL) {
  Deno.test(`"until" a condition that recurs or a release is still proposed: ${text}`, () => {
    assert.equal(proposed(text).length, 1, JSON.stringify(text));
  });
}

const OFFER = "Shall I pin the base image to 1.2.3 going forward?";
Deno.test("a standing offer taken until a day is no rule", () => {
  assert.deepEqual(confirmed(OFFER, "yes until Friday").map((c) => c.text), []);
  assert.deepEqual(
    confirmed("Shall I pin the tag to 1.2.3 before every deploy until Friday?", "yes").map((c) =>
      c.text
    ),
    [],
  );
  // The same offer taken for good is still proposed.
  assert.deepEqual(confirmed(OFFER, "yes").map((c) => c.text), [
    "Pin the base image to 1.2.3 going forward",
  ]);
});

const REPORTED = [
  "my manager says no latest tags. ever",
  "the agent said to use rebase. always",
  "personally: no emoji, my colleague says",
  "no emoji in commit messages, my colleague says",
  "squash-merge feature branches, according to Sam",
];
for (const text of REPORTED) {
  Deno.test(`someone else's words are not the user's rule: ${text}`, () => {
    assert.deepEqual(proposed(text).map((c) => c.text), [], JSON.stringify(text));
  });
}

const OWN = [
  // Reported decisions and the team's practice: durable.
  "the team lead decided: squash merges only",
  "my lead Marta told me we use Hilt for dependency injection, not Koin",
  // The user's own words, and a report the user adopts.
  "like I said, no latest tags. ever",
  "no latest tags. ever",
  "no emoji in commit messages, my colleague says, and I agree: never use them",
];
for (const text of OWN) {
  Deno.test(`a reported decision, the team's practice or an adopted report is proposed: ${text}`, () => {
    assert.equal(proposed(text).length, 1, JSON.stringify(text));
  });
}
Deno.test("a report the user adopts is not someone else's words", () => {
  assert.ok(reportedSpeech("my manager says no latest tags"));
  assert.ok(!reportedSpeech("my manager says no latest tags, so let's do that from now on"));
  assert.ok(!reportedSpeech("my lead says we always squash"));
  assert.ok(!reportedSpeech("as we said, no latest tags"));
});

const MEASURED = [
  "the container stays at 100% CPU",
  "the CPU stays at 100% for an hour",
  "the heap stays at 95% memory usage during the nightly batch",
];
const SETTINGS = [
  "the pool size stays at 20",
  "the worker stays at 4 replicas",
  "Hibernate's ddl-auto stays on validate in every profile",
];
for (const text of MEASURED) {
  Deno.test(`a measurement with "stays" is no setting: ${text}`, () => {
    assert.deepEqual(proposed(text).map((c) => c.text), [], JSON.stringify(text));
  });
}
for (const text of SETTINGS) {
  Deno.test(`a setting that stays as it is is still proposed: ${text}`, () => {
    assert.deepEqual(proposed(text).map((c) => c.rule), ["stays"], JSON.stringify(text));
  });
}
