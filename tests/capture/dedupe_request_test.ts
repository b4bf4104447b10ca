/**
 * 0.21: a clause the user marks as known inside a request ("… like all the other services",
 * "(not moment.js, obviously)") is read alone; a message that states something of its own beside
 * it is not; placeholders, sizes, a story after a later dash, "don't edit X by hand, regenerate
 * it". Pairs written for this test, not copied from the benchmark's sessions; the last test runs
 * the inbox's sink on PGlite (the service's own search finds the neighbours).
 */
import assert from "node:assert/strict";
import { isNearDuplicate } from "../../src/capture/dedupe.ts";
import { InboxCaptureSink } from "../../src/capture/sink.ts";
import { Inbox } from "../../src/memory/inbox.ts";
import { pgliteService } from "../helpers.ts";

const REPEATS: [string, string][] = [
  // A marked clause inside a request, before the mark or in parentheses.
  [
    "Please: rename the job, bump its timeout, and deploy it with helmfile like all the other services",
    "Services are deployed with helmfile.",
  ],
  [
    "ok add the date picker: format with date-fns (not moment.js, obviously) and put it in src/ui",
    "Dates use date-fns, not moment.js.",
  ],
  [
    "new consumer for refunds. queue billing.refund.v1 — team.entity.vN like the rest",
    "Queue names follow <team>.<entity>.v<n>, e.g. billing.invoice.v3.",
  ],
  // A placeholder in angle brackets is its word.
  ["Topics follow <team>.<event>.v<n>", "topic names are team.event.vN"],
  // A size in any spelling.
  ["Keep the bundle under 250 KB gzipped", "the bundle stays below 250kb gzipped"],
  // A story after the second opening of a clause, with a value and when it happened.
  [
    "Careful with the cache: evict on write — we served stale prices for 3 days when we skipped that last year",
    "The cache evicts on write.",
  ],
  // "write X" frames what is used, as "use X" does.
  [
    "Don't add a Redux store for it, write a Zustand slice",
    "State lives in Zustand slices; no Redux.",
  ],
  // "don't edit X by hand, regenerate it" is "X is generated".
  ["never hand-edit openapi.json, regenerate it", "openapi.json is generated from the routes."],
];

const APART: [string, string][] = [
  // The message states something of its own beside its marked clause: not read alone.
  [
    "the billing service is owned by Ana's team, and deploy it with helmfile like all the other services",
    "Services are deployed with helmfile.",
  ],
  ["we moved the queue to SQS, and retries at 3 like the rest", "Retries are 3 on every job."],
  // A rule of its own beside the marked clause: a new statement, not a repeat.
  [
    "Deploy it with helmfile like all the other services, and always pin the chart version to 4.2.",
    "Services are deployed with helmfile.",
  ],
  [
    "use date-fns (not moment.js, obviously) and never call Intl.DateTimeFormat directly",
    "Dates use date-fns, not moment.js.",
  ],
  // The marked clause does what the stored memory excludes, or sets another value.
  ["format dates with moment.js like the rest", "Dates use date-fns, not moment.js."],
  ["ok new client: timeouts at 60s like the rest", "HTTP timeouts are 30s."],
  // Another size.
  ["Keep the bundle under 300 KB gzipped", "the bundle stays below 250kb gzipped"],
  // A placeholder of another pattern.
  ["Topics follow <team>.<event>.v<n>", "topic names are <domain>.<event>.v<n>"],
  // Another thing written.
  [
    "Don't add a Redux store for it, write a Jotai atom",
    "State lives in Zustand slices; no Redux.",
  ],
  // Generated against written by hand.
  ["never hand-edit openapi.json, regenerate it", "openapi.json is written by hand."],
];

Deno.test("0.21: a marked clause in a request, a placeholder, a size, a later story, a generated file", () => {
  for (const [a, b] of REPEATS) assert.ok(isNearDuplicate(a, b), `${a} / ${b}`);
});

Deno.test("0.21: a statement beside the marked clause, a change in it, another size or pattern stay", () => {
  for (const [a, b] of APART) assert.ok(!isNearDuplicate(a, b), `${a} / ${b}`);
});

Deno.test("0.21: the inbox's sink on PGlite drops the marked clause of a request, keeps a statement", async () => {
  const s = await pgliteService();
  try {
    const inbox = new Inbox(s.service, s.service.proposals());
    await s.service.create({ content: "Services are deployed with helmfile.", project: "ops" });
    const sink = new InboxCaptureSink(inbox);
    const hits = await sink.nearDuplicates(REPEATS[0][0], "ops");
    assert.deepEqual(hits.map((h) => h.text), ["Services are deployed with helmfile."]);
    assert.deepEqual(await sink.nearDuplicates(APART[0][0], "ops"), []);
    // Another project's memory is not a neighbour.
    assert.deepEqual(await sink.nearDuplicates(REPEATS[0][0], "web"), []);
  } finally {
    await s.close();
  }
});
