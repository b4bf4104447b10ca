/**
 * Facts about the setup said in passing (since 0.21): a thing of the setup said to be a named
 * thing ("the app bundle id is org.tidewater.ledger", `setup-named`), where a thing comes from
 * ("the feature flags come from config/flags.yaml", `setup-verb`), a request to use what the
 * statement names cut off it ("the release channel is beta-internal, use that in the fastlane
 * lane"), and a change of the setup said with its time ("we moved to deno 2 last week",
 * `setup-change` or `we-switched`; "we're on elixir 1.17 as of this sprint", `on-version` or
 * `setup-verb`). And the near misses each must leave alone: a describing word
 * ("read-only", "server-side"), a pointer at the work or the user's own things ("it is…", "the
 * new branch is…", "my branch is…"), a report ("the error comes from…"), a hedge, a one-off; a
 * thing of the work moved, a plan, a drop with nothing in its place. Written for this test, none
 * taken from the benchmark's sessions.
 */
import assert from "node:assert/strict";
import { classify, namesIdentifier } from "../../src/capture/classify.ts";
import { THRESHOLD } from "../../src/capture/scorer_weights.ts";
import { proposed } from "./turns.ts";

const NAMED: [string, string][] = [
  ["the app bundle id is org.tidewater.ledger", "setup-named"],
  ["the kafka clusters are fra2-staging and fra2-prod", "setup-named"],
  ["TERRAFORM_VERSION is 1.7.5 in the runner image", "setup-named"],
  ["the vault role for batch jobs is batch-workloads", "setup-named"],
  ["the feature flags come from config/flags.yaml", "setup-verb"],
  ["the signing cert comes from AZURE_SIGNING_CERT in the release pipeline", "setup-verb"],
];
for (const [text, rule] of NAMED) {
  Deno.test(`a thing of the setup named or sourced is a fact: ${text}`, () => {
    const m = classify(text);
    assert.equal(m?.type, "fact", text);
    assert.equal(m?.rule, rule, text);
  });
}

const PROPOSED: [string, string][] = [
  ["the app bundle id is org.tidewater.ledger", "The app bundle id is org.tidewater.ledger"],
  [
    "TERRAFORM_VERSION is 1.7.5 in the runner image",
    "TERRAFORM_VERSION is 1.7.5 in the runner image",
  ],
  [
    "the feature flags come from config/flags.yaml",
    "The feature flags come from config/flags.yaml",
  ],
  // The request to use it is cut off: the statement is read, and kept, on its own.
  [
    "the release channel is beta-internal, use that in the fastlane lane",
    "The release channel is beta-internal",
  ],
];
for (const [text, want] of PROPOSED) {
  Deno.test(`a setup fact said in passing is proposed: ${text}`, () => {
    const got = proposed(text);
    assert.deepEqual(got.map((c) => c.text), [want], text);
    assert.equal(got[0].type, "fact");
    assert.ok(got[0].confidence >= THRESHOLD);
  });
}

const NOT_NAMED = [
  "the page is server-side rendered",
  "it is ci-batch-runner, use that",
  "the new branch is feat-4411",
  "this file is auto-generated",
  "the error comes from src/ledger/close.ts",
  "the failing test is test_close_month",
  "the report is half-done",
  "my branch is wip-payments, use that for the PR",
  "the answer is probably sa-reporting-prod",
  "the staging cert expired, use that one from the vault for now",
  "the fix is a one-liner",
];
for (const text of NOT_NAMED) {
  Deno.test(`a description, pointer, report, hedge or one-off names nothing: ${text}`, () => {
    assert.notEqual(classify(text)?.rule, "setup-named", text);
    assert.deepEqual(proposed(text).map((c) => c.text), [], text);
  });
}

Deno.test("namesIdentifier: an identifier or a version after a noun subject, not a describing word", () => {
  assert.ok(namesIdentifier("the vault role is ops-workloads"));
  assert.ok(namesIdentifier("node_version is 20.11.1"));
  assert.ok(!namesIdentifier("the bucket is read-only"));
  assert.ok(!namesIdentifier("the client is server-side"));
  assert.ok(!namesIdentifier("it is ops-workloads"));
  assert.ok(!namesIdentifier("the threshold is 0.5"));
});

// A change of the setup said with the time it happened: the time is no one-off nor a report.
const CHANGES = [
  "we moved to deno 2 last week, the CI image too",
  "we upgraded to rails 8 on friday, everyone's on it",
  "we're on elixir 1.17 as of this sprint",
  "we went back to webpack — vite broke the legacy plugin chain for us",
  "we switched off circleci to buildkite last month",
  "we're on postgres 17 now, the upgrade landed this morning",
];
for (const text of CHANGES) {
  Deno.test(`a change of the setup with its time is a decision or a fact: ${text}`, () => {
    const m = classify(text);
    assert.equal(m?.type, text.startsWith("we're on") ? "fact" : "decision", text);
  });
}
for (const text of CHANGES.slice(0, 5).filter((t) => !t.startsWith("we're on elixir"))) {
  Deno.test(`a change of the setup with its time is proposed: ${text}`, () => {
    const got = proposed(text);
    assert.equal(got.length, 1, text);
    assert.equal(got[0].type, text.startsWith("we're on") ? "fact" : "decision");
  });
}
const NOT_CHANGES = [
  "we dropped H2 last spring because the dialect kept biting us",
  "we moved the meeting to friday",
  "we moved the deploy to tuesday last week",
  "we're on page 3 now",
  "we switched to it yesterday",
  "we moved to the new office last month",
  "we upgraded to node 22 yesterday and now the build fails",
  "we might move to bun next month",
  "we're moving to bun next month",
];
for (const text of NOT_CHANGES) {
  Deno.test(`a thing of the work moved, a report, a plan or a drop is no change: ${text}`, () => {
    assert.equal(classify(text), null, text);
    assert.deepEqual(proposed(text).map((c) => c.text), [], text);
  });
}
