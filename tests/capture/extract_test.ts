/** The offline extractor, the secret check, the near-duplicate check and the pipeline. */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  classify,
  generateCandidates,
  ruleCandidates,
  sentences,
} from "../../src/capture/extract.ts";
import { findSecrets, redactSecrets, secretWarning } from "../../src/domain/secrets.ts";
import { isNearDuplicate } from "../../src/capture/dedupe.ts";
import { MemoryCaptureSink, runCapture } from "../../src/capture/pipeline.ts";
import { a, u } from "./turns.ts";
import { tempDir } from "../helpers.ts";

Deno.test("durable statements are candidates; requests, questions, one-offs, hypotheses are not", () => {
  const durable = [
    "from now on use pnpm for everything in this repo",
    "never push to main directly, always open a PR",
    "don't mock the warehouse in the pipeline tests",
    "use zod, not yup, for validation",
    "We chose Postgres over Mongo for the ledger because payouts need transactions.",
    "let's go with Redis because the limit has to hold across replicas",
    "Maria owns the billing service",
    "the api runs on port 3001 locally",
    "the migrations go in db/migrations",
    "we run them with `pnpm db:migrate`",
    "I prefer small commits",
  ];
  for (const s of durable) assert.ok(classify(s), s);
  const not = [
    "add a test for the limit cap",
    "what does GET /orders do when no status is given?",
    "don't run the full test suite this time, just the session package",
    "for this PR skip the changelog",
    "maybe the lock table is under-provisioned",
    "I think it might be the cache",
    "could you always check this one?",
    "thanks, that's enough for today",
    "let's use a map here",
  ];
  for (const s of not) assert.equal(classify(s), null, s);
});

Deno.test("candidates carry type, scope, confidence and provenance; global for personal preferences", () => {
  const t = u("ok. add a test. and always run npm run lint before you commit, CI fails on lint");
  const p = u("answer briefly please. that goes for everything, not just this repo");
  const c = ruleCandidates([t, p]);
  assert.equal(c.length, 2);
  assert.equal(c[0].type, "rule");
  assert.equal(c[0].scope, "project");
  assert.match(c[0].text, /^Always run npm run lint/);
  assert.deepEqual(c[0].provenance, { sessionId: "s1", uuid: t.uuid, timestamp: t.timestamp });
  assert.ok(c[0].confidence > 0 && c[0].confidence <= 1);
  assert.equal(c[1].scope, "global");
  assert.match(c[1].text, /^Answer briefly/);
});

Deno.test("a list the user gives as context: each item, split before a ', no …' clause", () => {
  const t = u(
    "Some context first:\n1. we target Node 22, no default exports please\n2. the api listens on :8443" +
      "\n3. what about the cache?\nnow: add a /healthz endpoint",
  );
  const c = ruleCandidates([t]).map((x) => x.text);
  assert.deepEqual(c, [
    "We target Node 22",
    "No default exports please",
    "The api listens on :8443",
  ]);
});

Deno.test("a piece with no verb of its own ('never the …', 'only for …') stays with the one before", () => {
  assert.deepEqual(sentences("the linter runs in the pre-commit hook. never the CI one"), [
    "the linter runs in the pre-commit hook, never the CI one",
  ]);
  assert.deepEqual(sentences("logs go to the journal. not on weekends"), [
    "logs go to the journal, not on weekends",
  ]);
  // A piece that says something of its own stays apart.
  assert.deepEqual(sentences("logs go to the journal. never the CI runner is used for it"), [
    "logs go to the journal.",
    "never the CI runner is used for it",
  ]);
  assert.deepEqual(sentences("the cache is warm. never delete it by hand"), [
    "the cache is warm.",
    "never delete it by hand",
  ]);
  // A don't whose object is only "it" says no more than the rule before it.
  assert.deepEqual(
    ruleCandidates([u("we always keep the signing key in the vault. never copy it to a laptop")])
      .map((c) => c.text),
    ["We always keep the signing key in the vault; Never copy it to a laptop"],
  );
  // An item of a list of rules keeps its aside in parentheses and its verbless tail.
  const texts = generateCandidates([
    u("a rule for this repo: config comes from the vault agent (.vault, which is local), never in yaml files"),
  ]).map((g) => g.sentence);
  assert.deepEqual(texts, [
    "config comes from the vault agent (.vault, which is local), never in yaml files",
  ]);
});

Deno.test("the agent's text counts only when the user confirms it next", () => {
  const ask = a("It looks like invoices must always run after customers. Is that the rule?");
  const yes = u("yes, it must always run after customers");
  const c = ruleCandidates([ask, yes]);
  assert.equal(c.length, 1, JSON.stringify(c));
  assert.equal(c[0].provenance.uuid, ask.uuid);
  assert.equal(c[0].provenance.confirmedBy, yes.uuid);
  assert.equal(ruleCandidates([ask, u("no, not really")]).length, 0);
  assert.equal(
    ruleCandidates([a("Invoices must always run after customers."), u("ok")]).length,
    0,
  );
});

Deno.test("findSecrets: provider keys (secretlint), assignments, URL passwords, high entropy", async () => {
  const cases: [string, string][] = [
    [
      "the token is ghp_DQiwUV1PcsqlQcljoo0bFjCPqxx0HP4A733z ok",
      "ghp_DQiwUV1PcsqlQcljoo0bFjCPqxx0HP4A733z",
    ],
    [
      "STRIPE_KEY=rk_live_WDJmpvpuN6JbgBx8Wq77ILnN8Jaka35sAvgBDYd4efkZ5pzK0xFHlmo3zLkgc4Ok4JGirq9ZOs",
      "rk_live_",
    ],
    ["AWS_ACCESS_KEY_ID=AKIAEVQ3YP6K3TGNOF3P", "AKIAEVQ3YP6K3TGNOF3P"],
    ["url postgresql://etl_user:Cbljvc581&CjlZ@db.internal:5432/a", "Cbljvc581&CjlZ"],
    ["see https://bob:s3cr3tPass@example.com/x", "s3cr3tPass"],
    ["password: hunter22", "hunter22"],
    ["the signing key is Zq8vP2mN4xT7wK1rB9cF3hJ6dL0sG5yE", "Zq8vP2mN4xT7wK1rB9cF3hJ6dL0sG5yE"],
    [
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY-----",
      "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn",
    ],
  ];
  for (const [text, secret] of cases) {
    const r = await redactSecrets(text);
    assert.ok(r.findings.length > 0, text);
    assert.ok(!r.text.includes(secret), `${text} -> ${r.text}`);
    assert.match(r.text, /\[secret removed: [\w:-]+\]/);
  }
  for (
    const clean of [
      "Always run `npm run lint` before committing",
      "the auth: required header, use the password manager",
      "API_KEY=${API_KEY} and token: <your-token>",
      "Production Redis listens on port 6380 with TLS",
    ]
  ) assert.deepEqual(await findSecrets(clean), [], clean);
  const w = secretWarning("text", await findSecrets("password: hunter22"));
  assert.match(w, /^text holds what looks like a secret \(assignment\)/);
  assert.ok(!w.includes("hunter22"));
});

Deno.test("isNearDuplicate: reworded repeats yes, different statements no", () => {
  assert.ok(isNearDuplicate("It runs at 3am UTC", "The orders_daily DAG runs at 03:00 UTC"));
  assert.ok(isNearDuplicate("use pnpm, not npm, in this repo", "Use pnpm, not npm"));
  assert.ok(
    !isNearDuplicate("Maria owns the billing service", "Tomasz owns the payments namespace"),
  );
  // Word forms folded as the search folds them, framing words ("has been", "again") left out.
  assert.ok(isNearDuplicate("It's yarn here, always has been.", "Use yarn, not npm, here"));
  assert.ok(isNearDuplicate("Handlers validated their inputs", "every handler validates input"));
  assert.ok(isNearDuplicate("we chose Redis", "We choose Redis for the cache"));
  // A choice of something the stored memory does not name, over what it names: an update.
  assert.ok(!isNearDuplicate("From now on always use pnpm, not npm", "We use npm for everything"));
  assert.ok(isNearDuplicate("always use npm, not yarn", "We use npm for everything"));
  // A clause that repeats a stored memory, in a sentence that says more.
  assert.ok(isNearDuplicate(
    "move the date helpers into libs/common — again, libs never depend on services, not the other way round",
    "In the monorepo, libs never depend on services/*; imports go services → libs only",
  ));
  // A text that changes a stored one is not its repeat (the contradiction check gets it).
  assert.ok(
    !isNearDuplicate("sessions expire after 20 minutes", "Sessions expire after 45 minutes"),
  );
  assert.ok(!isNearDuplicate("the standup moved to Wednesdays", "the standup is on Tuesdays"));
  assert.ok(
    !isNearDuplicate(
      "the API tests use Hurl now, we moved from Postman",
      "The API tests use Postman",
    ),
  );
  assert.ok(
    isNearDuplicate("sessions expire after 45 minutes", "Sessions expire after 45 minutes"),
  );
  assert.ok(!isNearDuplicate("use npm, not pnpm", "Use pnpm, not npm, in this repo"));
  assert.ok(isNearDuplicate("use pnpm, not npm", "Use pnpm, not npm, in this repo"));
  // Distinct rules on one topic stay distinct.
  assert.ok(!isNearDuplicate("use yarn, not npm", "run yarn install with --immutable in CI"));
  assert.ok(
    !isNearDuplicate(
      "libs never depend on services",
      "services call libs through their public index only; no deep imports",
    ),
  );
  assert.ok(
    !isNearDuplicate(
      "migrations are forward-only; write a new one to undo a change",
      "migrations run in CI before the deploy, never by hand in prod",
    ),
  );
});

/** One user message of session `sessionId` as a line of Claude Code's transcript. */
function userLine(sessionId: string, uuid: string, content: string): string {
  return JSON.stringify({
    type: "user",
    uuid,
    sessionId,
    timestamp: "2026-11-28T10:00:00Z",
    message: { role: "user", content },
  }) + "\n";
}

Deno.test("a project's statement against a global memory is proposed as new, not as its replacement", async () => {
  const dir = await tempDir("capture-pipe-global-");
  try {
    const p = join(dir.path, "s.jsonl");
    const ev = (uuid: string, content: string) => userLine("s10", uuid, content);
    await Deno.writeTextFile(p, ev("e1", "from now on use pnpm in this repo, not npm"));
    const req = { sessionId: "s10", transcriptPath: p, cwd: dir.path, event: "Stop" };
    const opts = { project: () => Promise.resolve("web") };
    // A global memory only: the statement is this project's exception, accepting it must not
    // supersede the rule every other project keeps.
    const global = new MemoryCaptureSink([
      { text: "Use npm for every JavaScript project", project: null },
    ]);
    const r = await runCapture(req, global, opts);
    assert.equal(global.proposals.length, 1);
    assert.equal(r.replacements, 0);
    assert.equal(global.proposals[0].replaces, undefined);
    // The same statement against the project's own memory replaces it.
    const own = new MemoryCaptureSink([
      { text: "Use npm for every JavaScript project", project: null },
      { text: "Use npm in this repo (the Dockerfile runs npm ci)", project: "web" },
    ]);
    const r2 = await runCapture(req, own, opts);
    assert.equal(r2.replacements, 1);
    assert.equal(own.proposals[0].replaces?.id, "m2", "the project's npm rule, not the global one");
  } finally {
    await dir.cleanup();
  }
});

Deno.test("the pipeline: secrets replaced or dropped, duplicates counted, replacements, cursor", async () => {
  const dir = await tempDir("capture-pipe-");
  try {
    const p = join(dir.path, "s.jsonl");
    const ev = (uuid: string, content: string) => userLine("s9", uuid, content);
    await Deno.writeTextFile(
      p,
      ev("e1", "from now on use pnpm in this repo, not npm (see package.json)") +
        ev("e2", "never push to `main` directly, always open a PR") +
        ev(
          "e3",
          "the preview token is ghp_DQiwUV1PcsqlQcljoo0bFjCPqxx0HP4A733z and CI should always use it for previews",
        ) +
        ev("e4", "always use `password: hunter22` on staging") +
        ev("e5", "what port is it on?"),
    );
    const sink = new MemoryCaptureSink([
      { text: "Use npm in this repo (the Dockerfile runs npm ci)", project: "web" },
      { text: "Never push to main directly; always open a PR", project: "web" },
    ]);
    const req = { sessionId: "s9", transcriptPath: p, cwd: dir.path, event: "Stop" };
    const opts = { project: () => Promise.resolve("web") };
    const r = await runCapture(req, sink, opts);
    assert.equal(r.turns, 5);
    assert.equal(r.duplicates, 1, "the stored rule is not proposed again");
    assert.equal(r.replacements, 1);
    assert.equal(r.redacted, 1);
    assert.equal(r.droppedForSecret, 1);
    const props = sink.proposals;
    assert.equal(props.length, 2);
    assert.equal(props[0].replaces?.id, "m1", "pnpm replaces the stored npm rule");
    assert.ok(!JSON.stringify(sink.records).includes("ghp_DQiw"));
    assert.ok(!JSON.stringify(sink.records).includes("hunter22"));
    assert.match(props[1].text, /\[secret removed: secretlint:github\]/);
    // A second hand-over of the same transcript proposes nothing.
    const again = await runCapture(req, sink, opts);
    assert.equal(again.turns, 0);
    assert.equal(sink.proposals.length, 2);
  } finally {
    await dir.cleanup();
  }
});
