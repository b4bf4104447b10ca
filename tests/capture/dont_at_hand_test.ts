/**
 * A don't about how to do the task at hand (since 0.22, markers.ts `DONT_AT_HAND`): "don't
 * hard-code the retry count for it, read it from the config" tells how to do "it", the thing
 * asked for; on the seen splits every such sentence proposed was a stored rule said again for
 * the request (holdout10, 11, 12). Its near misses stay rules: a don't without a pointer at the
 * task, "for it" in a statement, a standing scope. Written for this test, none taken from the
 * benchmark's sessions.
 */
import assert from "node:assert/strict";
import { DONT_AT_HAND } from "../../src/capture/markers.ts";
import { proposed } from "./turns.ts";

const AT_HAND = [
  "Please don't open a second websocket for it — reuse the one in SyncClient.",
  "don't add a new env variable for that, there's a setting in AppConfig",
  "Don't allocate a new array inside renderFrame for it — size it in setupBuffers.",
  "Don't write a custom date parser for it, the helpers in lib/dates.ts do that",
  "Please don't do it by patching node_modules, there's a patch-package setup in patches/",
  "Don't spin up a thread for that — queue it on the WorkerPool.",
  "don't fix it by catching the exception in the controller",
  "Please don't solve it by adding a global lock around the scheduler",
];
const STANDING = [
  "Please don't open a second websocket per client — reuse the one in SyncClient.",
  "don't add env variables for settings, there's a settings table in AppConfig",
  "Don't hard-code retry counts in this repo, read them from the settings module",
  "don't catch exceptions in controllers, the middleware maps them",
  "Please don't add a global lock around the scheduler, ever",
  "never catch exceptions in the controllers, let the middleware map them",
  "You always need the VPN profile for it, the staging cluster is private",
  // A don't that says it holds for good, or "for that kind of …" (a class of cases, not the one
  // at hand).
  "Don't use sudo for that, ever.",
  "do not use floats for that — money is always stored as integer cents",
  "Don't use npm for it, we use pnpm in this repo.",
  "Don't use moment for that, date-fns everywhere.",
  "Don't handle that by retrying forever; retries are capped at 3 in this codebase.",
  "Don't use regex for that kind of parsing, use the tokenizer in lib/lex.ts.",
  "Don't reach for lodash for that sort of thing, plain JS is fine.",
];

Deno.test("a don't about how to do the task at hand is not proposed", () => {
  for (const s of AT_HAND) {
    assert.ok(DONT_AT_HAND.test(s.toLowerCase()), `at hand: ${s}`);
    assert.deepEqual(proposed(s).map((c) => c.text), [], s);
  }
});

Deno.test("a standing don't, and 'for it' in a statement, are still proposed", () => {
  for (const s of STANDING) {
    assert.ok(!DONT_AT_HAND.test(s.toLowerCase()), `standing: ${s}`);
    assert.equal(proposed(s).length, 1, s);
  }
});
