/**
 * Textbook standing rules a user states once, in the forms the capture issue names ("always…",
 * "never…", "from now on…", "don't…", "use X, not Y"), short and long, with and without "from
 * now on": the offline extractor must propose each in a plain session (a task, the agent's "OK,
 * done.", the rule, "OK, done."). And lookalikes that must not be proposed: one-offs, rules
 * scoped to the task at hand, descriptions of how a thing behaves, questions, hypotheses. All
 * written for this test from general knowledge, none taken from the benchmark's sessions.
 */
import assert from "node:assert/strict";
import { THRESHOLD } from "../../src/capture/scorer_weights.ts";
import { proposed } from "./turns.ts";

/** Standing rules, preferences and decisions: each must be proposed. */
export const RULES = [
  // always
  "always use pnpm, never npm in this repo.",
  "Always run the formatter before you commit.",
  "always write tests for new endpoints",
  "Please always add a changelog entry for user-facing changes.",
  // never
  "never push to main directly",
  "Never commit .env files.",
  "never force-push a shared branch",
  "Never log personal data, not even in debug builds.",
  "never use floats for money",
  // from now on
  "from now on use pnpm",
  "From now on always use pnpm, never npm in this repo.",
  "From now on, use yarn instead of npm.",
  "going forward, write commit messages in the imperative mood",
  "From now on never merge without a green CI run.",
  // don't
  "don't use default exports",
  "Don't add comments that restate the code.",
  "don't mock the database in integration tests",
  "Please don't use emoji in commit messages.",
  "don't ever store secrets in the repo",
  // use X, not Y
  "use zod, not yup",
  "Use httpx instead of requests.",
  "use tabs, not spaces",
  "Use ISO 8601 dates in the API, not epoch seconds.",
];

/** Lookalikes: one-off, scoped to the task, descriptive, questions, hypotheses. */
export const LOOKALIKES = [
  // one-off or scoped to the task at hand
  "for now, don't run the migrations",
  "just this time, skip the tests",
  "don't merge it until I say so",
  "never mind, it was the cache",
  "don't push today, the release is frozen",
  "for the load test tonight don't scale the workers",
  "use the new helper for all of these calls",
  "make sure this function never throws",
  "in this PR, use the old client",
  // descriptive: how a thing behaves, what happened, people's habits
  "it never rebalances after a node dies",
  "the job always fails on Mondays",
  "the old team never wrote tests",
  "users always complain about the login page",
  "you never fixed the flaky test",
  // questions
  "should we always use pnpm?",
  "do we never push to main directly",
  "is it always this slow",
  // hypotheses and doubts
  "maybe we should always pin versions",
  "I think we never used yarn here",
  "probably don't need the retry",
  // a report of someone else's rule
  "the README says 'never use any'",
];

for (const text of RULES) {
  Deno.test(`a standing rule is proposed: ${text}`, () => {
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

Deno.test("the test's lists are as long as the issue asks", () => {
  assert.ok(RULES.length >= 20 && LOOKALIKES.length >= 20);
});
