/**
 * 0.20: a repeat said in the other polarity or other words of a rule that excludes ("don't reach
 * for moment.js" against "dates go through date-fns, never moment.js") is dropped; a rule that
 * excludes another thing, adds a tool, a value or code of its own, or denies what the stored
 * memory chooses is not. Pairs written for this test in the forms the benchmark's repeats take
 * (a negated rule, a reply in few words, a rule with its alternative), not copied from its
 * sessions.
 */
import assert from "node:assert/strict";
import { isNearDuplicate, updateReason } from "../../src/capture/dedupe.ts";

Deno.test("0.20: a repeat that excludes what the stored rule excludes is dropped", () => {
  const pairs: [string, string][] = [
    ["Never use npm here", "Use pnpm, not npm"],
    [
      "don't reach for moment.js, dates go through date-fns",
      "Dates are handled with date-fns, never moment.js",
    ],
    ["Don't reach for lodash in the checkout flow", "Utilities are written by hand, not lodash."],
    [
      "don't use Docker Desktop, it's colima on our macs",
      "Local containers run on colima, not Docker Desktop.",
    ],
    ["Don't mock Redis in specs", "Specs use the docker compose Redis, never a Redis mock."],
    ["No Lombok", "Java 17 only, no Lombok anywhere"],
    [
      "Don't run `terraform apply` from Terraform Cloud, we're on the GCS state backend",
      "Terraform state lives in the GCS backend gs://acme-tf-state, not in Terraform Cloud.",
    ],
    [
      "Manage dependencies with poetry, never a bare pip install.",
      "Dependencies are managed with poetry; no pip install.",
    ],
    ["State is kept in Zustand stores, not Redux.", "Client state uses Zustand; no Redux code."],
  ];
  for (const [a, b] of pairs) assert.ok(isNearDuplicate(a, b), `${a} / ${b}`);
});

Deno.test("0.20: another exclusion, a tool or code of its own, or a reversed choice is not a repeat", () => {
  const pairs: [string, string][] = [
    // Another choice beside the same exclusion: a change for the contradiction check.
    ["Use yarn, not npm", "Use pnpm, not npm"],
    [
      "Don't use pandas for the ingest step, use duckdb there",
      "Transforms use polars, not pandas.",
    ],
    // What the stored rule chooses, denied: a contradiction.
    ["never use pnpm", "Use pnpm, not npm"],
    // More excluded than the stored rule names, or something else excluded.
    ["don't pull in numpy or pandas here", "Transforms use polars, not pandas."],
    ["we don't use Lombok in the tests either", "No Lombok in main code"],
    ["Don't commit .env files", "Never commit node_modules"],
    // The same exclusion with a permission or a scope that narrows it.
    [
      "Redis mocks are fine in unit specs, never in integration specs",
      "Specs use the docker compose Redis, never a Redis mock.",
    ],
    // A rule of its own beside the repeat, or code the stored rule does not name.
    [
      "Never call fetch directly in components, use the api client in src/api",
      "Components never call fetch; data comes from the loaders",
    ],
    [
      "No Tailwind in the library, and no CSS-in-JS either",
      "Styling uses CSS custom properties; no Tailwind inside the library.",
    ],
    // Only the project's own name excluded in common.
    ["Never edit src/gen by hand in billing-api", "Never push to main directly in billing-api"],
  ];
  for (const [a, b] of pairs) assert.ok(!isNearDuplicate(a, b), `${a} / ${b}`);
});

Deno.test("0.20: a denial of what the stored rule chooses is a reversed choice", () => {
  assert.equal(updateReason("never use pnpm", "Use pnpm, not npm"), "reversed");
  assert.equal(
    updateReason("don't use Vitest", "use Vitest, not Jest, for unit tests"),
    "reversed",
  );
  assert.notEqual(updateReason("never use npm", "Use pnpm, not npm"), "reversed");
});
