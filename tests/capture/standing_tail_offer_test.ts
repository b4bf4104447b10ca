/**
 * Three ways a user makes something a rule or a preference without a rule's words in the sentence
 * (since 0.21): "in general, for me: keep…" (`personal-intro`, global);
 * a bare "always" / "ever" after it ("no var declarations. ever", `standing-tail`), and a yes
 * to the standing practice the agent offers ("Shall I treat `cargo fmt` as required before every
 * commit?" "yep, always": a rule on the agent's event, `agent-confirmed`). And the near misses
 * each must leave alone: a pointer, a report, a hedge or a one-off before the "always"; an offer
 * of the work at hand, a one-off in the question or the reply, a "no". Written for this test, none
 * taken from the benchmark's sessions.
 */
import assert from "node:assert/strict";
import { ruleCandidates } from "../../src/capture/extract.ts";
import { THRESHOLD } from "../../src/capture/scorer_weights.ts";
import { a, confirmed, proposed, u } from "./turns.ts";

const TAILS = [
  "no var declarations. ever",
  "type hints on public functions. always",
  "squash-merge feature branches. always.",
  "no raw SQL in the handlers. ever.", // a rule already: still one candidate
];
const NOT_TAILS = [
  "run it again. always",
  "the build fails on arm. always",
  "maybe pin the versions. always",
  "skip the slow tests for now. always",
  "can you rebase. always",
  "thanks. always",
  // What someone did or does, not a rule.
  "you pushed to main. ever",
  "I always forget the tags. always",
  "we never got the tags right. ever",
];

for (const text of TAILS) {
  Deno.test(`a sentence made standing by a bare "always"/"ever" is proposed: ${text}`, () => {
    const got = proposed(text);
    assert.equal(got.length, 1, `${JSON.stringify(text)}: ${JSON.stringify(got)}`);
    assert.equal(got[0].type, "rule");
    // A sentence that is a rule already keeps its own rule; the others are the tail's.
    assert.equal(got[0].rule, text.startsWith("no raw SQL") ? "no-thing" : "standing-tail");
    assert.ok(got[0].confidence >= THRESHOLD);
  });
}
for (const text of NOT_TAILS) {
  Deno.test(`a bare "always" after a pointer, report, hedge or one-off is no rule: ${text}`, () => {
    assert.deepEqual(proposed(text).map((c) => c.text), [], JSON.stringify(text));
  });
}

const OFFERS: [string, string, string][] = [
  [
    "The repo has a rustfmt.toml and CI runs `cargo fmt --check`. Shall I treat `cargo fmt` as required before every commit?",
    "yep, always",
    "Treat `cargo fmt` as required before every commit",
  ],
  [
    "Each migration here has a down script. Should new migrations get a down script too?",
    "yes",
    "New migrations should get a down script",
  ],
  [
    "The other modules keep one component a file. Should I make that the convention here: one React component per file, named after the component?",
    "correct, keep it that way",
    "One React component per file, named after the component",
  ],
  [
    "I'd add the request id to every log line. Shall I treat that as the rule for the handlers going forward?",
    "yes, do that always",
    "Add the request id to every log line",
  ],
];
const NOT_OFFERS: [string, string][] = [
  ["I found six call sites. Should I update all the call sites?", "yes"],
  ["Should I run the tests before every commit in this PR?", "yes"],
  ["I'd log the request id. Shall I treat that as the rule going forward?", "yes, for now"],
  ["Should I make that the convention here: one component per file?", "no, just this once"],
  ["Should I always retry on a 503?", "yes, but only here"],
  ["Should I add the new endpoints to the docs?", "yes"],
  ["Do you want me to always run the linter?", "yes"],
  // A yes taken back or qualified after its first word.
  ["Shall I treat `cargo fmt` as required before every commit?", "yes. actually no, skip it"],
  ["Shall I treat `cargo fmt` as required before every commit?", "yes, Sam wants it but I don't"],
];

Deno.test("a colon inside a URL of the offer is not the colon of its sentence", () => {
  const got = confirmed(
    "Should I set DATABASE_URL=postgres://localhost:5432/app as the standard going forward?",
    "yes",
  );
  assert.deepEqual(got.map((c) => c.text), [
    "Set DATABASE_URL=postgres://localhost:5432/app as the standard going forward",
  ]);
});

for (const [agent, reply, text] of OFFERS) {
  Deno.test(`a standing practice the agent offers and the user takes is proposed: ${text}`, () => {
    const got = confirmed(agent, reply);
    assert.deepEqual(got.map((c) => c.text), [text]);
    assert.equal(got[0].type, "rule");
    assert.ok(got[0].provenance.confirmedBy);
  });
}
for (const [agent, reply] of NOT_OFFERS) {
  Deno.test(`an offer of the work at hand, a one-off or a no is no rule: ${agent} / ${reply}`, () => {
    assert.deepEqual(confirmed(agent, reply).map((c) => c.text), []);
  });
}

/** What the extractor proposes of `text`, with its type and scope. */
const said = (text: string) => proposed(text).map((c) => [c.rule, c.type, c.scope]);

const INTROS = [
  "in general, for me: keep commit messages under 60 characters",
  "a personal thing, across all my projects: write docstrings in the Google style",
  "for me generally: explain the trade-off before you show the code",
  "two things for all our chats: answer in British English and skip the pleasantries",
];
const NOT_INTROS = [
  "for me: the build fails on my laptop",
  "in general, for me: it works fine",
  "for me generally: maybe keep the answers shorter",
  "for every project: is there a shared lint config?",
  "for now, for me: keep the answers short",
];

for (const text of INTROS) {
  Deno.test(`what follows an intro about the user's own way of working is proposed: ${text}`, () => {
    assert.deepEqual(said(text), [["personal-intro", "feedback", "global"]], JSON.stringify(text));
  });
}
for (const text of NOT_INTROS) {
  Deno.test(`an intro before a report, a hedge, a question or a one-off is nothing: ${text}`, () => {
    assert.deepEqual(proposed(text).map((c) => c.text), [], JSON.stringify(text));
  });
}

/** A setting or a part of the project that stays as it is: a rule of its own (`stays`). */
const STAYS = [
  "the pool size stays at 20 until the load test is done",
  "the session cookie stays on SameSite=Lax in every environment",
  "handlers stay thin, the logic goes in services",
  "the retry count stays 3",
];
const NOT_STAYS = [
  "the page stays blank after the redirect",
  "it stays on 8080 for now",
  "the busy pin always stays high after a cold boot",
  "my laptop stays on the old version",
  "we decide after the review whether it stays",
  "the spinner stays on screen forever",
];

for (const text of STAYS) {
  Deno.test(`a thing of the project that stays as it is is a rule: ${text}`, () => {
    const got = ruleCandidates([u("fix the login button"), a("OK, done."), u(text)]);
    assert.deepEqual(got.map((c) => [c.rule, c.type]), [["stays", "rule"]], JSON.stringify(text));
  });
}
for (const text of NOT_STAYS) {
  Deno.test(`a state of the moment, a pointer or a doubt with "stays" is no rule: ${text}`, () => {
    const got = ruleCandidates([u("fix the login button"), a("OK, done."), u(text)]);
    assert.ok(got.every((c) => c.rule !== "stays"), JSON.stringify(got));
    assert.deepEqual(proposed(text).map((c) => c.text), [], JSON.stringify(text));
  });
}
