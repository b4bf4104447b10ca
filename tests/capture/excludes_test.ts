/**
 * A choice said as a statement, with what it excludes after it (since 0.21, scorer.ts
 * `EXCLUDES`, the feature `excludes`): "sessions are stored in redis with a TTL, never in
 * cookies", and said over two sentences, "config lives in config.toml. never env vars" (the
 * fragment joins the statement before it, extract.ts; one that starts with a preposition or a
 * determiner, "never in env vars", was joined before, sentences.ts `joinFragments`). And the near misses it must leave alone:
 * a report with a pronoun or a person as its subject, a clause in the past, a rest that tells
 * what happens, a question, a hedge, a one-off. Written for this test, none taken from the
 * benchmark's sessions.
 */
import assert from "node:assert/strict";
import { generateCandidates } from "../../src/capture/extract.ts";
import { EXCLUDES, features } from "../../src/capture/scorer.ts";
import { THRESHOLD } from "../../src/capture/scorer_weights.ts";
import { a, proposed, u } from "./turns.ts";

/** The candidates generated for `text`, with their features. */
function generated(text: string) {
  const said = u(text);
  const turns = [u("fix the login button"), a("OK, done."), said, a("OK, done.")];
  return generateCandidates(turns).filter((c) => c.provenance.uuid === said.uuid);
}

const CHOICES = [
  "sessions are stored in redis with a TTL, never in cookies",
  "webhook payloads get verified with the HMAC header, never by IP allowlist",
  "durations in the API are ISO 8601 strings, never plain seconds",
  "config lives in config.toml. never in env vars",
  "prices are kept as integer pence. never floats, never strings",
];
const NOT_CHOICES = [
  // A report: a pronoun's or a person's subject, a clause in the past, what happens.
  "it always times out at the end of the upload, never halfway",
  "we tried the pool of 50, never again",
  "the build passed on CI, never locally",
  "the test was green on linux, never on mac",
  "the cache warms up on deploy, never works the first time",
  // A question, a hedge, a one-off.
  "should sessions be stored in redis, never in cookies?",
  "maybe sessions are stored in redis for now, never in cookies",
];

for (const text of CHOICES) {
  Deno.test(`a choice and what it excludes is proposed as a rule: ${text}`, () => {
    const got = proposed(text);
    assert.equal(got.length, 1, `${JSON.stringify(text)}: ${JSON.stringify(got)}`);
    assert.equal(got[0].type, "rule");
    assert.match(got[0].text, /never/i);
    assert.ok(got[0].confidence >= THRESHOLD);
    const [g] = generated(text);
    assert.ok(features(g).has("excludes"), JSON.stringify([...features(g)]));
  });
}
for (const text of NOT_CHOICES) {
  Deno.test(`no choice is read in a report, a question, a hedge or a one-off: ${text}`, () => {
    for (const g of generated(text)) {
      assert.ok(!features(g).has("excludes"), `${JSON.stringify(g.sentence)}`);
    }
  });
}

Deno.test("the fragment after a statement joins it, the statement alone is no candidate", () => {
  const gs = generated("config lives in config.toml. never env vars");
  assert.deepEqual(gs.map((g) => [g.rule, g.sentence]), [
    ["never", "config lives in config.toml, never env vars"],
  ]);
});

Deno.test("a fragment after a pointer, a question or a report is not joined", () => {
  for (
    const text of [
      "put it in config.toml. never env vars",
      "is config in config.toml? never env vars",
      "the deploy failed yesterday. never staging",
      "the build passed on CI. never locally",
    ]
  ) {
    for (const g of generated(text)) {
      assert.ok(!g.sentence.includes(", never"), `${text}: ${g.sentence}`);
    }
  }
});

Deno.test("EXCLUDES: a passive present is a statement, a bare past is a report", () => {
  assert.ok(EXCLUDES.test("goldens are generated on the ci image, never on laptops"));
  assert.ok(!EXCLUDES.test("the goldens regenerated on the ci image, never on laptops"));
  assert.ok(!EXCLUDES.test("we always deploy from main, never from branches"));
});
