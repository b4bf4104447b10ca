/**
 * The near-duplicate check's updates: a statement that denies what a stored one says is a
 * contradiction for the contradiction check (proposed as its replacement), not a repeat to drop;
 * a reply's leading "no," and a trailing contrast (", not Jest") deny nothing.
 */
import assert from "node:assert/strict";
import { isNearDuplicate, updates } from "../../src/capture/dedupe.ts";

Deno.test("a denied statement updates the one it denies, and is not dropped as its repeat", () => {
  const pairs: [string, string][] = [
    [
      "integration tests never touch the live queue",
      "integration tests always touch the live queue",
    ],
    ["Don't squash the release branch merges", "Squash the release branch merges"],
    ["the cache layer is not shared between tenants", "the cache layer is shared between tenants"],
    ["we no longer pin the linter version", "we pin the linter version"],
  ];
  for (const [a, b] of pairs) {
    assert.ok(updates(a, b), `${a} / ${b}`);
    assert.ok(updates(b, a), `${b} / ${a}`);
    assert.ok(!isNearDuplicate(a, b), `${a} / ${b}`);
  }
});

Deno.test("the same polarity, a reply's 'no,' and a trailing contrast stay repeats", () => {
  assert.ok(isNearDuplicate("never push straight to main", "Never push to main directly"));
  assert.ok(
    isNearDuplicate("no, Priya owns the billing exporter", "Priya owns the billing exporter"),
  );
  assert.ok(isNearDuplicate("unit tests run on Vitest, not Jest", "unit tests run on Vitest"));
  assert.ok(
    isNearDuplicate(
      "don't hand-edit the generated client",
      "do not hand edit the generated client",
    ),
  );
  // Unrelated statements are neither.
  assert.ok(!isNearDuplicate("never log request bodies", "the nightly job exports invoices"));
});

Deno.test("a contrast that excludes what the stored memory does is an update; one the stored memory shares is not", () => {
  assert.ok(
    updates(
      "Schema changes are applied only by the migration runner in CI, not with psql by hand",
      "Apply schema changes with psql against the primary",
    ),
  );
  assert.ok(
    !updates("Use pnpm, not npm, in the billing service", "Use pnpm, not npm, in this repo"),
  );
  assert.ok(isNearDuplicate("unit tests run on Vitest, not Jest", "unit tests run on Vitest"));
});
