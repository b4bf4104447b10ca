/**
 * The setup as it is since a change, said with "now" after its value (since 0.22, markers.ts
 * `SETUP_NOW`, read by facts.ts `withoutChangeTime`): "the admin ui is on 4200 locally now", "the
 * redis cache runs on 6380 now", "the build box is on ubuntu 24.04 now". Its "now" is the setup
 * from now on, not a state of the moment, so the sentence is a fact of the setup. And the near
 * misses it must leave alone: the thing at hand as the subject ("it listens on 8080 now"), a bare
 * release ("staging is on v2.3.1 now"), a page or a step, "for now" and "and now …", and a
 * measurement ("the CPU is at 95% now", "memory is 3GB now", "the queue is at 5000 now"). Written
 * for this test, none taken from the benchmark's sessions.
 */
import assert from "node:assert/strict";
import { classify, SETUP_NOW } from "../../src/capture/classify.ts";
import { extractCandidates } from "../../src/capture/extract.ts";
import type { Turn } from "../../src/capture/transcript.ts";

const CHANGED: [string, string][] = [
  ["the admin ui is on 4200 locally now", "port"],
  ["the redis cache runs on 6380 now", "port"],
  ["the metrics api listens on 7070 now, 9000 clashed with minio", "port"],
  ["the build box is on ubuntu 24.04 now", "setup-where"],
];
const NOT_CHANGED = [
  "it listens on 8080 now",
  "staging is on v2.3.1 now",
  "we're on page 3 now",
  "the job is on step 4 now",
  "we upgraded to node 20 and now the build fails",
  "bump the pool to 20 for now",
  "we're in 2D now",
  "the CPU is at 95% now",
  "the CPU is 95% now",
  "memory is 3GB now",
  "the queue is at 5000 now",
  "the queue is 5000 messages now",
  "the p95 is 120ms now",
  "we're at 40 failing tests now",
  "the api is on 3001 now but the tests fail",
  // A score or a rate (a fraction right after the verb), a size with its unit spelled out.
  "the accuracy is 0.91 now",
  "the cache hit rate is 0.8 now",
  "the bundle is 2.3 megabytes now",
  "the db is 40 gigs now",
];

for (const [text, rule] of CHANGED) {
  Deno.test(`a value of the setup with "now" is a fact of the setup: ${text}`, () => {
    assert.ok(SETUP_NOW.test(text.toLowerCase()), text);
    const m = classify(text);
    assert.equal(m?.type, "fact", text);
    assert.equal(m?.rule, rule, text);
  });
}
for (const text of NOT_CHANGED) {
  Deno.test(`the thing at hand, a release, "for now" or a measurement is no fact: ${text}`, () => {
    assert.equal(classify(text), null, text);
  });
}

const turn = (i: number, role: "user" | "assistant", text: string): Turn => ({
  role,
  text,
  uuid: `u${i}`,
  sessionId: "s",
  timestamp: "2026-01-01T00:00:00Z",
});

Deno.test("a value of the setup with 'now' is proposed in a session", () => {
  const turns = [
    turn(0, "user", "add the export endpoint please"),
    turn(1, "assistant", "Done."),
    turn(2, "user", "the admin ui is on 4200 locally now"),
  ];
  const c = extractCandidates(turns).filter((x) => x.provenance.uuid === "u2");
  assert.equal(c.length, 1, JSON.stringify(c));
  assert.equal(c[0].type, "fact");
});

Deno.test("a long pasted token before 'now' is read in linear time (every part of SETUP_NOW bounded)", () => {
  // Unbounded, the pattern backtracked quadratically on one token: 8,000 characters after "set it
  // to" took 73 s; this one (200,000) would not finish. Bounded, it is read at once; nothing is
  // proposed from it.
  const token = "ab12".repeat(50_000);
  const text = `set it to ${token} now`;
  assert.equal(SETUP_NOW.test(text), false);
  assert.equal(classify(text), null);
  const turns = [turn(0, "user", text), turn(1, "assistant", "Done.")];
  assert.deepEqual(extractCandidates(turns), []);
});
