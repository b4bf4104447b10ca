/**
 * 0.20, round 2: repeats the user marks as known ("as we agreed", "remember", "same as
 * always"), repeats in developer synonyms ("creds" and "secrets", "stanza" and "block"), a
 * member of an excluded class, a file named by its path's end; and the false merges of the
 * word overlap kept apart (the same forbidden action on another thing, a "use X" of a name of
 * its own, another vendor's tool of one kind). Pairs written for this test, in the forms the
 * benchmark's repeats take, not copied from its sessions.
 */
import assert from "node:assert/strict";
import { isNearDuplicate } from "../../src/capture/dedupe.ts";

Deno.test("0.20 round 2: a marked repeat whose words the stored memory holds is dropped", () => {
  const pairs: [string, string][] = [
    // A marker, what it affirms in the stored memory, a denial that names no tool or value.
    ["Signals only, as we agreed, no `@Input()` decorators", "Widgets are written with signals."],
    [
      "Remember we're on 3.11, so no match-case sugar from 3.12, that's 3.12",
      "The service runs on Python 3.11.",
    ],
    [
      "Remember we're on 3.11, so no typing.override, that's 3.12",
      "The service runs on Python 3.11.",
    ],
    [
      "vitest + jsdom, same as always, we don't spin up a browser for unit tests",
      "Unit tests run with vitest in jsdom, not in a real browser.",
    ],
  ];
  for (const [a, b] of pairs) assert.ok(isNearDuplicate(a, b), `${a} / ${b}`);
});

Deno.test("0.20 round 2: a marked statement with a change or a name of its own is proposed", () => {
  const pairs: [string, string][] = [
    // A value of its own.
    ["as always, Java 25 for the service", "The service runs on Java 21."],
    // A tool of its own, even inside its denial.
    ["Signals only, as we agreed, no RxJS anywhere", "Widgets are written with signals."],
    [
      "like always, signals, and every widget gets a Storybook story",
      "Widgets are written with signals.",
    ],
    // What the stored memory affirms, denied.
    ["remember, tests never hit the network", "Integration tests always hit the network."],
    ["as usual, never use pnpm", "Use pnpm, not npm."],
    // Without a stored memory that holds what it affirms.
    ["as we agreed, feature flags live in LaunchDarkly", "Widgets are written with signals."],
    // No marker: a rule of its own beside a shared word.
    ["Signals only, no `@Input()` decorators", "Widgets are written with signals."],
    // The stored rule is narrower (a qualifier the statement lacks): the wider rule is its own.
    ["remember: never push to main", "never push to main on fridays"],
    ["never push to main", "never push to main on fridays"],
    ["as always, run the migrations by hand", "Run the migrations by hand during a release."],
  ];
  for (const [a, b] of pairs) assert.ok(!isNearDuplicate(a, b), `${a} / ${b}`);
});

Deno.test("0.20 round 2: developer synonyms, a member of an excluded class, a file by its path", () => {
  const pairs: [string, string][] = [
    [
      "Db creds through a consul template stanza, not env",
      "Database secrets come from consul template blocks, never from env blocks.",
    ],
    ["k8s config lives in deploy/", "Kubernetes configuration lives in deploy/."],
    ["deps are pinned in the lockfile", "Dependencies are pinned in the lockfile."],
    [
      "Don't call Console.WriteLine anywhere",
      "Logging goes through ILogger; no System.Console calls.",
    ],
    [
      "The CLI talks to the daemon only through the handlers in rpc.go",
      "The CLI talks to the daemon only through the handlers in internal/daemon/rpc.go.",
    ],
  ];
  for (const [a, b] of pairs) assert.ok(isNearDuplicate(a, b), `${a} / ${b}`);
});

Deno.test("0.20 round 2: the word overlap's false merges are kept apart", () => {
  const pairs: [string, string][] = [
    // The same forbidden action on another thing: two rules.
    ["Never log tokens to Sentry", "Never log request bodies to Sentry"],
    ["Don't write secrets to the build cache", "Don't write test fixtures to the build cache"],
    // A choice of a name the stored memory does not hold.
    ["No Helm charts, use Jsonnet", "Manifests are plain kustomize overlays; no Helm charts."],
    // Another vendor's tool of one kind: a contradiction.
    [
      "Never use Pulumi Cloud; state goes to the GCS backend",
      "Pulumi state lives in the S3 backend, not in Pulumi Cloud.",
    ],
    // A synonym does not hide a change.
    ["Db creds come from env vars now", "Database secrets come from Vault, never from env vars."],
    ["k8s config lives in infra/", "Kubernetes configuration lives in deploy/."],
    // A class member the stored rule allows is not its exclusion.
    [
      "Don't call Console.WriteLine anywhere",
      "Logging goes through ILogger; no System.Diagnostics calls.",
    ],
  ];
  for (const [a, b] of pairs) assert.ok(!isNearDuplicate(a, b), `${a} / ${b}`);
});

Deno.test("after review: a narrower stored rule is not the repeat of a wider one", () => {
  // The stored rule's qualifier, named by the statement too (a dotted word is one word).
  assert.ok(
    isNearDuplicate(
      "Just so it's clear: you don't publish, CI publishes when the tag lands",
      "Never run `cargo publish` by hand: releases are published by CI when a vX.Y.Z tag is pushed",
    ),
  );
  // A qualifier the statement does not name: the wider rule is its own; with it, a repeat.
  assert.ok(!isNearDuplicate("never push to main", "never push to main on fridays"));
  assert.ok(isNearDuplicate("never push to main on fridays", "never push to main on fridays!"));
});
