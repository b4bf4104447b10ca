/**
 * The offline extractor's rules (its candidate generator without the loose sentences and the
 * scorer, `ruleCandidates`) on sentences written for these tests (not the benchmark's): what a user
 * says once and means for good is found with its kind; requests, questions, one-offs,
 * hypotheses and status reports are not. Each phrasing the extractor knows has a sentence here
 * that fails without it.
 */
import assert from "node:assert/strict";
import { classify, ruleCandidates } from "../../src/capture/extract.ts";
import { a, u } from "./turns.ts";

const DURABLE: [string, "rule" | "feedback" | "decision" | "fact"][] = [
  // Rules and corrections.
  [
    "make sure the feature flags are removed once a rollout reaches 100%, we must not leave dead flags",
    "rule",
  ],
  ["you must run `make proto` after touching any .proto file", "rule"],
  ["all public endpoints must be authenticated", "rule"],
  ["migrations must be backwards compatible with the previous release", "rule"],
  ["we don't use default exports in this codebase", "rule"],
  ["avoid lodash, the bundle is big enough", "rule"],
  ["stop adding comments that just restate the code", "rule"],
  ["prefer composition over inheritance in the widgets package", "rule"],
  ["stick to the standard library for HTTP in this service", "rule"],
  ["only use the `logger` module for output, print statements get flagged in review", "rule"],
  ["console.log is not allowed in committed code", "rule"],
  ["use httpx instead of requests in the new clients", "rule"],
  [
    "the generated client in src/gen is never edited by hand, regenerate it with `make client`",
    "rule",
  ],
  ["the convention here is snake_case for all database columns", "rule"],
  ["no emoji in commit messages", "rule"],
  ["no new dependencies without asking me first", "rule"],
  ["do not edit CHANGELOG.md by hand; it is generated at release time", "rule"],
  ["timestamps are stored in UTC, convert only at the edge", "rule"],
  ["when you add an endpoint, add it to the OpenAPI spec as well", "rule"],
  ["whenever you touch the billing code, run the contract tests", "rule"],
  ["make sure to run the formatter before every commit", "rule"],
  ["amounts are always integer cents, floats for money are a bug", "rule"],
  ["releases are cut from the release branch only", "rule"],
  ["we squash-merge PRs and delete the branch afterwards", "rule"],
  ["we tag releases as vX.Y.Z from the release branch", "rule"],
  ["commit messages follow the conventional commits spec", "rule"],
  ["errors use thiserror now, not anyhow", "rule"],
  ["in this repo, name test files after the module they cover", "rule"],
  ["log with structlog across the backend", "rule"],
  // Preferences.
  ["I like short answers with the code first", "feedback"],
  ["I'm not a fan of long summaries at the end of a reply", "feedback"],
  ["I'd prefer table-driven tests in Go", "feedback"],
  ["please keep diffs minimal, I review everything by hand", "feedback"],
  // Decisions.
  ["we decided to keep the monolith because the team is four people", "decision"],
  ["we went with SQLite because the CLI has to work offline", "decision"],
  ["we're switching the frontend tests to Vitest since Jest is too slow with ESM", "decision"],
  ["we'll use TanStack Query for server state because it handles caching for us", "decision"],
  ["the decision was to partition the events table by month, it keeps the vacuum fast", "decision"],
  ["we picked Argo over Flux because the team already knows its UI", "decision"],
  // Facts about the setup.
  ["staging is at https://staging.example.internal and deploys from the main branch", "fact"],
  ["the config lives in config/settings.toml", "fact"],
  ["tests run with `just test`, not cargo test directly", "fact"],
  ["we're on Postgres 16 everywhere", "fact"],
  ["the MSRV is 1.74", "fact"],
  ["our CI runs on GitHub Actions with self-hosted runners", "fact"],
  ["Priya is responsible for the data retention policy", "fact"],
  ["ask Jonas about anything to do with the Terraform state", "fact"],
  ["the dbt project has two targets, dev and prod", "fact"],
  ["the cluster is eks-prod-2 in eu-west-1", "fact"],
  ["the default branch is trunk, not main", "fact"],
  ["the backups are written to s3://acme-backups/pg/ every night", "fact"],
  ["the frontend talks to the API through the BFF on port 4100", "fact"],
  ["the service account for the loader is loader@acme-data.iam.gserviceaccount.com", "fact"],
  ["the nightly export kicks off at 01:30 UTC", "fact"],
  ["the schema is defined in proto/orders/v1/orders.proto", "fact"],
  ["we deploy with `helm upgrade --install` from the deploy/ folder", "fact"],
  ["the timezone for all DAGs is UTC", "fact"],
  ["sessions expire after 30 minutes of inactivity", "fact"],
  ["stories sit next to the component as Button.stories.tsx", "fact"],
  ["the loader uses the etl service account", "fact"],
  // Said as something to keep: "fyi", "for the record", "heads up", "just so you know", "keep in
  // mind", "note that".
  ["fyi the search cluster runs Elasticsearch 8", "fact"],
  ["for the record, Lukas signs off on every schema change", "fact"],
  ["heads up: hotfix branches need a second approver", "rule"],
  ["just so you know, the mobile app talks to the gateway, not to the services", "fact"],
  ["keep in mind the reporting replica lags the primary by a few minutes", "fact"],
  ["note that the sandbox account can only read the anonymised tables", "rule"],
  ["for the future: the changelog is written by release-please, not by hand", "rule"],
  ["next time you add a flag, document it in the usage text", "rule"],
  ["while I think of it: never commit the .env file", "rule"],
  // What holds for every thing of a kind; standing approvals; naming; a tool for all of a kind;
  // a choice and the alternative it bans; "keep to"; "no X, ever".
  ["every migration gets a matching down script", "rule"],
  ["all schema changes go through the migrations folder", "rule"],
  ["anything under infra/prod needs two approvals", "rule"],
  ["database migrations need a sign-off from the DBA", "rule"],
  ["React components are PascalCase and hooks start with use", "rule"],
  ["feature flags are kebab-case", "rule"],
  ["use pytest for all new tests", "rule"],
  ["the api goes through the shared pool, no per-request connections", "rule"],
  ["keep to the public API of the sdk", "rule"],
  ["no force pushes, ever", "rule"],
  ["rule of thumb: functions stay under 50 lines", "rule"],
  ["when you propose a migration, include the rollback", "rule"],
  // A habit of the user's.
  ["I use British spelling in docs", "feedback"],
  ["in all my projects I use two-space indentation", "feedback"],
  // A standing choice with its reason; a change of the setup.
  ["we're staying on Postgres 14 because the extension isn't ready for 16", "decision"],
  ["we use Redis for the rate limiter because it is shared across pods", "decision"],
  ["let's keep the queue in SQS because the team knows it", "decision"],
  ["we switched the image builds to buildkit since the old builder is deprecated", "decision"],
  ["we moved the nightly export to 02:00 UTC", "decision"],
  // Lifetimes, channels, calls, builds, names, folders, leads.
  ["refresh tokens live 30 days", "fact"],
  ["audit logs are kept for 90 days", "fact"],
  ["payment alerts go to #payments-alerts", "fact"],
  ["the reconciler calls the ledger API at https://ledger.internal/v2", "fact"],
  ["goreleaser builds the binaries from the `v*` tags", "fact"],
  ["image tags look like 2024.06.1", "fact"],
  ["the e2e tests use Playwright 1.45", "fact"],
  ["the on-call is paged through #infra-oncall", "fact"],
  ["the site is deployed by Netlify from the public/ folder", "fact"],
  ['the support rota is kept in PagerDuty under "Platform"', "fact"],
  ["the artifact bucket is acme-build-artifacts", "fact"],
  ["Ravi is the tech lead of the mobile team", "fact"],
  // How things are done here; what the team prefers; norms for a kind of thing.
  ["the way we do it here is to squash everything into one commit", "rule"],
  ["our standard is 2-space indentation", "rule"],
  ["policy: squash merges only", "rule"],
  ["here we use tabs for indentation", "rule"],
  ["in this codebase we prefer early returns", "rule"],
  ["the team prefers small PRs", "rule"],
  ["we only deploy from main", "rule"],
  ["only Sam can approve prod deploys", "rule"],
  ["make sure every new table has a created_at column", "rule"],
  ["all new code is TypeScript", "rule"],
  ["commits should reference the ticket number", "rule"],
  ["we test against postgres, not sqlite", "rule"],
  ["it's pnpm here, not npm", "rule"],
  ["PRs need at least one approval", "rule"],
  ["quit adding TODOs", "rule"],
  ["I want tests for every bug fix", "feedback"],
  ["we're moving away from Redux", "decision"],
  ["we're a pnpm shop", "fact"],
  ["the default branch is develop", "fact"],
  ["prod deploys happen on tuesdays", "fact"],
  ["we deploy twice a week", "fact"],
  ["our on-call rotation is in Opsgenie", "fact"],
  ["bugs go in Linear, not GitHub issues", "fact"],
  ["our docs are written in mkdocs", "fact"],
  ["failed builds post to #ci-failures", "fact"],
  // Corrections, typos, more ways to say "keep this".
  ["wrong, we use yarn here", "rule"],
  ["that's not how we do it, we rebase onto main", "rule"],
  ["alwasy run the formatter before committing", "rule"],
  ["nevr commit directly to main", "rule"],
  ["our logs are shipped to Datadog", "fact"],
  ["just fyi, our k8s namespace is payments-prod", "fact"],
  ["and remember that migrations are forward-only", "rule"],
  ["you should know that the api is versioned by header, not by path", "fact"],
  ["for context: the warehouse is Snowflake", "fact"],
  // A team's habit in a clause of its own, and what every thing of a kind does.
  ["the linter is ruff, we don't run black on top of it", "rule"],
  ["every handler and every job logs the request id", "rule"],
  ["each public struct and enum gets a doc comment", "rule"],
  // A change of the setup that holds from now on.
  ["heads up: the nightly export moved to 02:00 UTC", "decision"],
  ["we're not on Travis anymore, everything moved to GitHub Actions", "decision"],
  ["we no longer deploy from Jenkins", "decision"],
];

const NOT_DURABLE = [
  "add a retry to the upload step",
  "can you rename the handler to createOrder?",
  "why is the build so slow today?",
  "what's the difference between the two configs",
  "this time just skip the flaky test",
  "for now leave the TODO in place",
  "don't push yet, I want to look at it first",
  "maybe the index is missing",
  "I think the cache key is wrong",
  "it's probably the network policy",
  "the tests are failing on CI again",
  "the api returns a 500 on /orders when the cart is empty",
  "the build failed at src/app.ts line 41",
  "the job ran twice last night",
  "looks good, merge it",
  "thanks, that fixed it",
  "no errors now",
  "no luck, same error",
  "no worries",
  "rerun the pipeline",
  "use the other branch",
  "let's use a map here",
  "let's go with the second option",
  "please update the README",
  "run the migrations on staging",
  "I'd like a command that exports the tags",
  "it should work now, try again",
  "the page shows nothing on mobile",
  "we need a test for the empty cart",
  "we must have missed a case in the parser",
  "that must be the cause",
  "it must be the proxy",
  "check that the port is free",
  "the logs are in the attached file",
  "here's the stack trace from staging",
  "ok, that's all for today",
  "the function is in utils/dates.ts, make it handle leap years",
  "open a PR when you're done",
  "we don't know why it happens",
  "we don't need the old endpoint anymore, delete it",
  "stop the dev server",
  "avoid touching the tests in this PR",
  "keep the mock data out of the screenshots",
  "the cache is stale again",
  "fix the lint errors in this repo",
  "write a test for it in this repo's style",
  "deploy it to staging with `make deploy`",
  "i'll run it with `make e2e` myself",
  "it listens on 8080 now",
  "the file is config/app.yaml",
  "the ticket is PAY-1234",
  "staging is on v2.3.1 now",
  "it uses 2GB of memory",
  "the branch is feature/refund-retries",
  "the new service should listen on 9090",
  "the migration is in db/migrations/0042.sql, can you review it?",
  "the staging db is down",
  "our config is a mess, clean it up",
  "it times out after 30 seconds on CI",
  "we use this helper in two places, so be careful",
  "we tag it once the review is done",
  "the session expires after 30 minutes and the test fails",
  // Lookalikes of the phrasings above: reports, states, tasks, one-offs.
  "heads up: the staging db is down",
  "fyi the build is broken again",
  "fyi I renamed the handler",
  "heads up, I'm going to rebase main in a minute",
  "just so you know, the deploy finished",
  "note that this only happens on staging",
  "remember to push the branch",
  "for the future of the project we need funding",
  "next time you see Sam, say hi",
  "all the tests go through fine now",
  "each of these needs a docstring",
  "every time I run it, it crashes",
  "this PR needs a review from Sam",
  "the deploy needs approval, can you ask Sam?",
  "the variable is lowercase, fix it",
  "rename it to camelCase",
  "use the new helper for all of these calls",
  "use the fixture for all three tests",
  "fix the test, no need to ask",
  "it uses the cache, no network calls",
  "keep to the point",
  "stick with it for a bit",
  "no errors, ever since the fix",
  "I use the old endpoint in my script",
  "let's keep the mock because the API is down",
  "let's keep it simple because we are short on time",
  "we use this helper in two places because of the legacy path",
  "we moved the button to the left",
  "we switched to the other branch",
  "we upgraded to node 20 and now the build fails",
  "the cookie lasts 1 day in my browser",
  "the session lasts 5 minutes in the test, which is too short",
  "the job calls the api at https://x.example/y and gets a 500",
  "the build goes to dist/ by default, change it to out/",
  "post it to #deploys when you're done",
  "when you commit this, use a short message",
  "don't merge, I'll review it tonight",
  "don't write tests for this, it's a throwaway",
  "the customers job is using 14GB of memory",
  "the orders model is off by one day for some rows",
  "the cache is cold, and we always see a spike after deploys",
  "the test failed, and you never fixed it",
  "Dana is the lead on this ticket",
  "before you start:\n- pull main\n- run the tests",
  "can you do these:\n- bump the version\n- update the changelog",
  "the rule is broken",
  "our standard is too strict, relax it",
  "here we use the old helper, swap it",
  "we prefer not to talk about it",
  "we only have two days left",
  "only one of them works",
  "make sure every bucket has versioning on",
  "make sure every test passes before you push",
  "all new tests are failing",
  "all tests are green now",
  "every file is a mess",
  "tests should pass now",
  "builds should be faster with the cache",
  "results should show up in a minute",
  "we tested it against postgres, not sqlite",
  "our build failed on main, not on the branch",
  "it's broken here, not on staging",
  "we're moving away from the original plan a bit",
  "I'm off on fridays",
  "we met twice a week last month",
  "users keep getting logged out on Mondays",
  "the problem is in React",
  "the docs are in a bad state",
  "the fix goes in the next release",
  "the default value is null, change it",
  "PRs need a rebase",
  "I want the logs for this run",
  "the failed jobs ran twice",
  "failed tests are flaky again",
  "we moved the meeting to 3pm",
  "the team prefers this approach for the demo",
  "commits should be squashed before you push this one",
  "tests should cover the empty case too, add one",
  "I use a Mac, so the script has to work on zsh",
  "for context, the customer is on the old plan",
  "for context, I was looking at the orders table",
  "wrong, the tests are broken here",
  "actually, use the other one",
  "the pipeline is red again, we don't know why",
  "every test in the suite fails on my machine",
  "the ticket moved to done",
  "the button moved to the footer",
  "the standup moved to thursday",
];

/**
 * What makes a standing rule, each criterion with a rule that meets it and lookalikes that
 * have the same marker ("always", "never", "must", "don't") but do not state a rule.
 */
const STANDING: { criterion: string; rules: string[]; lookalikes: string[] }[] = [
  {
    criterion: "said by the user, not quoted from someone or something else",
    rules: [
      "our rule is 'never merge your own PR'",
      "never call the payments API from the browser",
    ],
    lookalikes: [
      "the linter's docs say 'always prefer const', is that worth enabling",
      "Priya wrote in the wiki 'never restart the broker during business hours'.",
      "the deploy fails with 'region must be specified'",
      'someone posted "always pin your base images" in the channel, thoughts',
      'copy the lint rule that says "never use any" into the api package',
    ],
  },
  {
    criterion: "a statement, not a question (even without its question mark)",
    rules: ["always run the migrations before seeding"],
    lookalikes: [
      "is the cache always cold after a deploy or is that just me",
      "does the worker never retry on a 503",
      "should we always rebuild the image for a config change",
    ],
  },
  {
    criterion: "for good, not within the task at hand ('for this change', 'in this run')",
    rules: [
      "in this repo, always write the changelog entry in the PR",
      "for this reason we never store raw card numbers",
      "always name feature branches after the ticket",
    ],
    lookalikes: [
      "for this refactor always keep the old function as a wrapper",
      "in this benchmark always warm up the JIT first",
      "during this migration never touch the users table",
      "this time always answer in German",
    ],
  },
  {
    criterion: "what to do, not how a thing behaves",
    rules: [
      "timeouts are always in milliseconds, seconds confuse the client",
      "releases always go out from the release branch",
    ],
    lookalikes: [
      "the staging cluster is always slow on mondays",
      "the nightly job was always flaky on arm runners",
      "CI always times out on the e2e suite",
    ],
  },
  {
    criterion: "meaning something on its own, not pointing at the step at hand",
    rules: ["don't run the e2e suite locally, it needs the VPN"],
    lookalikes: ["don't go there", "don't do that again", "please don't touch it"],
  },
  {
    criterion: "a rule, not a report of the past or how a thing or a person behaves",
    rules: [
      "the client never retries on a 4xx",
      "config files are never edited by hand",
      "reviews always need two approvals",
      "even when I write in Spanish, always answer in English",
    ],
    lookalikes: [
      "we never got a reply from the vendor",
      "this never happened before",
      "the old team never wrote tests",
      "never seen that warning before",
      "he never answers on slack",
      "users always complain about the login page",
      "you always say that",
      "the build always takes ages",
      "that's never going to work",
      "ok always nice to see green CI",
    ],
  },
  {
    criterion: "for the agent, not the user's own intention",
    rules: ["from now on write the tests first"],
    lookalikes: [
      "from now on I'll review my own PRs first",
      "in the future this will be replaced by the new API",
      "going forward with the plan, let's start with auth",
    ],
  },
  {
    criterion: "a kind of thing or the team's code, not the thing at hand",
    rules: [
      "never deploy until the tests pass",
      "this repo should always build offline",
      "every migration gets a down script",
      "don't mock the warehouse in these tests",
    ],
    lookalikes: [
      "don't merge it until I say so",
      "don't change anything else in that file",
      "it should always return a list",
      "make sure this function never throws",
      "every file I opened has tabs",
      "you must've missed the file",
    ],
  },
  {
    criterion: "the user's rule, not what a document or a ticket says; no guess or deadline",
    rules: ["we must keep the API backwards compatible"],
    lookalikes: [
      "the docs say you must restart after an upgrade",
      "the ticket says we must support IE11",
      "you must be tired of me lol",
      "we must ship this by friday",
    ],
  },
  {
    criterion: "a preference or a decision for good, not a reaction or a moment of the work",
    rules: [
      "I like it when you ask before adding a dependency",
      "I'd rather you ask before adding a dependency",
      "we chose Postgres over Mongo because we need transactions",
    ],
    lookalikes: [
      "I like that idea",
      "I love it, ship it",
      "I'd rather not talk about it",
      "I prefer we finish this first",
      "we decided to skip lunch",
      "we chose the wrong index there",
      "the demo runs every friday this month",
    ],
  },
  {
    criterion: "the project's setup, not the user's machine nor a state of the work",
    rules: ["heads up: the admin api runs on port 7001", "fyi the build runs on Buildkite"],
    lookalikes: ["my laptop runs on port 3000 for everything", "heads up: the build is red"],
  },
  {
    criterion: "said as known, not as a doubt",
    rules: ["the import job runs at 04:00 UTC"],
    lookalikes: [
      "I thought the import job runs at 04:00 UTC",
      "iirc the import job runs at 04:00 UTC",
      "afaik the cron runs every night",
    ],
  },
];

Deno.test("the extractor's phrasings: each durable sentence is found with its kind", () => {
  const wrong: string[] = [];
  for (const [s, type] of DURABLE) {
    const m = classify(s);
    if (m?.type !== type) wrong.push(`${s} -> ${m?.type ?? "nothing"} (want ${type})`);
  }
  assert.deepEqual(wrong, []);
});

Deno.test("requests, questions, one-offs, hypotheses and status reports are not candidates", () => {
  const found = NOT_DURABLE.filter((s) => ruleCandidates([u(s)]).length > 0);
  assert.deepEqual(found, []);
});

Deno.test("a standing rule: what meets each criterion is found, its lookalikes are not", () => {
  const wrong: string[] = [];
  for (const { criterion, rules, lookalikes } of STANDING) {
    for (const s of rules) {
      if (ruleCandidates([u(s)]).length !== 1) wrong.push(`${criterion}: missed "${s}"`);
    }
    for (const s of lookalikes) {
      const c = ruleCandidates([u(s)]);
      if (c.length) wrong.push(`${criterion}: found "${s}" (${c[0].rule})`);
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("a sentence about the one before ('anything of theirs…') goes on from its rule", () => {
  const c = ruleCandidates([
    u("The growth team deploys with their own pipeline. Anything of theirs goes in infra/growth from now on."),
  ]);
  assert.equal(c.length, 1, JSON.stringify(c));
  assert.match(c[0].text, /infra\/growth/);
});

Deno.test("a sentence that goes on from a rule ('…instead', 'it …') is one candidate with it", () => {
  const c = ruleCandidates([
    u("don't stub the queue in the integration tests. use the local broker from docker-compose instead"),
  ]);
  assert.equal(c.length, 1, JSON.stringify(c));
  assert.match(c[0].text, /^Don't stub the queue.*local broker/);
  const r = ruleCandidates([
    u("use the pool from db.ts, not new clients. that's a rule for every service here: no ad-hoc connections"),
  ]);
  assert.equal(r.length, 1, JSON.stringify(r));
  const d = ruleCandidates([
    u("the worker runs with `make worker`. it needs the broker on 5673"),
  ]);
  assert.equal(d.length, 1, JSON.stringify(d));
  assert.match(d[0].text, /make worker.*5673/);
});

Deno.test("each item of a list of rules the user states is a candidate", () => {
  const c = ruleCandidates([
    u("house rules for this repo: name branches after the ticket, and keep PR titles under 60 characters"),
  ]);
  assert.deepEqual(c.map((x) => x.rule), ["rule-list", "rule-list"]);
});

Deno.test("pasted code, logs and quoted lines are not what the user said", () => {
  const c = ruleCandidates([
    u(
      "this is what I see:\n```\n// never call this from the UI thread\nconst port = 5432; // the db listens on port 5432\n```\n> we always retry three times\nwhy does it hang?",
    ),
  ]);
  assert.deepEqual(c, []);
});

Deno.test("two facts joined by 'and' are two candidates; two rules joined by 'and' one", () => {
  const c = ruleCandidates([u("Lena owns the search service and Omar owns the indexer")]);
  assert.deepEqual(c.map((x) => x.text), ["Lena owns the search service", "Omar owns the indexer"]);
  assert.equal(ruleCandidates([u("never force-push and always rebase on main")]).length, 1);
});

Deno.test("a confirmed agent statement about the setup is a fact; an unconfirmed one nothing", () => {
  const ask = a(
    "The compose file pins the database image, so I assume staging runs Postgres 15. Does that sound right?",
  );
  const c = ruleCandidates([ask, u("correct")]);
  assert.equal(c.length, 1, JSON.stringify(c));
  assert.equal(c[0].type, "fact");
  assert.equal(c[0].provenance.confirmedBy !== undefined, true);
  assert.equal(
    ruleCandidates([ask, u("no, it's 16 now")]).filter((x) => x.provenance.confirmedBy).length,
    0,
  );
});

Deno.test("secrets are found in the whole turn before it is cut into sentences", () => {
  const body =
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQAB";
  const key = `-----BEGIN RSA PRIVATE KEY-----\n${body.slice(0, 64)}\n${body.slice(64, 128)}\n${
    body.slice(128)
  }\n-----END RSA PRIVATE KEY-----`;
  const c = ruleCandidates([
    u(`the deploy key for the vault agent:\n${key}\nalways mount it read-only in the agent's container`),
    u("the staging api token:\n7f3c2a9e4b1d8f6a0c5e3b7d9a2f4c6e8b0d1a3f\nalways send it in the X-Api-Token header of the smoke tests"),
  ]);
  const all = JSON.stringify(c);
  for (const part of [body.slice(0, 40), body.slice(70, 110), "7f3c2a9e4b1d8f6a0c5e"]) {
    assert.ok(!all.includes(part), all);
  }
  assert.equal(c.length, 2, all);
});

Deno.test("<private>…</private> text of a prompt is never a candidate", async () => {
  const { readTranscript } = await import("../../src/capture/transcript.ts");
  const dir = await Deno.makeTempDir();
  try {
    const p = `${dir}/s.jsonl`;
    await Deno.writeTextFile(
      p,
      JSON.stringify({
        type: "user",
        uuid: "e1",
        sessionId: "s",
        timestamp: "2026-11-28T10:00:00Z",
        message: {
          role: "user",
          content:
            "<private>we always bill Acme at the old rate, the owner is Ines</private> from now on run the linter before each commit",
        },
      }) + "\n",
    );
    const { turns } = await readTranscript(p, null);
    const c = ruleCandidates(turns);
    assert.equal(c.length, 1, JSON.stringify(c));
    assert.ok(!/Acme|Ines|old rate/.test(c[0].text), c[0].text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a fact and a rule in clauses of their own are two candidates; rules going on one", () => {
  const c = ruleCandidates([
    u("the lock table is tf-locks in eu-west-1, and you always need AWS_PROFILE=ops for it"),
  ]);
  assert.deepEqual(c.map((x) => x.type), ["fact", "rule"], JSON.stringify(c));
  const d = ruleCandidates([
    u("the assets bucket is web-static-prod and we always purge the CDN after an upload"),
  ]);
  assert.deepEqual(d.map((x) => x.type), ["fact", "rule"], JSON.stringify(d));
  // An elliptical "never in …" goes on from the fact: one statement.
  assert.equal(
    ruleCandidates([
      u("the keys live in Vault under kv/app/*, never in the repo or in env files"),
    ])
      .length,
    1,
  );
  // A clause that is little more than a secret is no statement of its own.
  const s = ruleCandidates([
    u("the registry is on our gitlab, the CI token is glpat-CZDxzh9gHQPOcww_UZNm, always pull through the registry"),
  ]);
  assert.equal(s.length, 1, JSON.stringify(s));
});

Deno.test("facts listed with their own subjects are one candidate each", () => {
  const t = ruleCandidates([
    u('alerts go to #web-alerts, the on-call rota is in PagerDuty under "Web"'),
  ]);
  assert.equal(t.length, 2, JSON.stringify(t));
  const c = ruleCandidates([
    u("Dana is the tech lead, Lena owns search, Omar owns the indexer"),
  ]);
  assert.deepEqual(c.map((x) => x.text), [
    "Dana is the tech lead",
    "Lena owns search",
    "Omar owns the indexer",
  ]);
});

Deno.test("a request tacked on a statement is cut off; one that changes it is not", () => {
  const c = ruleCandidates([
    u("the staging DB is on port 5433, not 5432, check the config uses that"),
  ]);
  assert.equal(c.length, 1, JSON.stringify(c));
  assert.equal(c[0].text, "The staging DB is on port 5433, not 5432");
  const p = ruleCandidates([
    u("the on-call is paged through #web-oncall, put that in the runbook"),
  ]);
  assert.equal(p.length, 1, JSON.stringify(p));
  assert.deepEqual(
    ruleCandidates([u("the build goes to dist/ by default, change it to out/")]),
    [],
  );
});

Deno.test("lists under a header of things to know, and 'conventions:' lists, give their items", () => {
  const brief = ruleCandidates([
    u("quick brief before we start:\n- Node 20 only\n- styling with Tailwind only, no CSS modules\nfirst task: add the endpoint"),
  ]);
  assert.deepEqual(
    brief.map((x) => x.rule),
    ["context-list", "x-no-y"],
    JSON.stringify(brief),
  );
  // Without the header, "Node 20 only" is no statement.
  assert.equal(ruleCandidates([u("- Node 20 only\n- first task: add the endpoint")]).length, 0);
  const conv = ruleCandidates([
    u("conventions here: rustfmt default config, clippy pedantic must be clean, and no unsafe code at all."),
  ]);
  assert.equal(conv.length, 3, JSON.stringify(conv));
});

Deno.test("a confirmed standing question: the user's restatement, on the agent's event", () => {
  const ask = a(
    "The fixtures set `APP_NOW` to freeze time. Should tests always freeze the clock with `APP_NOW`?",
  );
  const c = ruleCandidates([ask, u("yes, always APP_NOW in tests")]);
  assert.equal(c.length, 1, JSON.stringify(c));
  assert.equal(c[0].provenance.uuid, ask.uuid);
  assert.equal(c[0].text, "Always APP_NOW in tests");
  const tag = a("The team seems to keep models over 1M rows incremental; is that the convention?");
  const t = ruleCandidates([tag, u("yes, that's our convention: incremental over 1M rows")]);
  assert.equal(t.length, 1, JSON.stringify(t));
  assert.equal(t[0].provenance.uuid, tag.uuid);
  // A question of the wider kind confirms only the statement right before it.
  assert.deepEqual(
    ruleCandidates([
      a("The settings live in config/app.yaml. Done with the rename. Is the cache always on?"),
      u("yes"),
    ]),
    [],
  );
  // An offer to do work, confirmed, is a request.
  assert.deepEqual(
    ruleCandidates([a("Done. Should I also update the docs?"), u("yes, and the changelog")]),
    [],
  );
});

Deno.test("the statement of the agent's tag question, confirmed with one word, on the agent's event", () => {
  const cases: [string, string, string][] = [
    [
      "Noted. The solution uses EF Core with Postgres via Npgsql — right?",
      "yes",
      "The solution uses EF Core with Postgres via Npgsql",
    ],
    [
      "I see the job sets spark.sql.shuffle.partitions to 2000 in JobConfig.scala — is that fixed for every environment?",
      "yep",
      "The job sets spark.sql.shuffle.partitions to 2000 in JobConfig.scala",
    ],
    [
      "The reference results in test/reference are generated with Julia 1.10 — is 1.10 the pinned version?",
      "yes pinned",
      "The reference results in test/reference are generated with Julia 1.10",
    ],
    [
      "And the prod cluster is EMR 7.1 with Spark 3.5, so I should keep to the 3.5 APIs?",
      "correct",
      "The prod cluster is EMR 7.1 with Spark 3.5, so keep to the 3.5 APIs",
    ],
    [
      "CI builds with the .NET 8 SDK pinned in global.json, so I shouldn't use C# 13 features?",
      "right",
      "CI builds with the .NET 8 SDK pinned in global.json, so don't use C# 13 features",
    ],
    [
      "Evaluation runs on the val split at full resolution, never at the training crop. Is that the convention for every eval here?",
      "yes that's the rule",
      "Evaluation runs on the val split at full resolution, never at the training crop.",
    ],
  ];
  for (const [agent, reply, text] of cases) {
    const ask = a(agent);
    const c = ruleCandidates([ask, u(reply)]);
    assert.equal(c.length, 1, `${agent}: ${JSON.stringify(c)}`);
    assert.equal(c[0].text, text);
    assert.equal(c[0].provenance.uuid, ask.uuid);
    assert.equal(c[0].rule, "agent-confirmed");
  }
  // Not confirmed, an offer to do work, or a question with no statement: nothing.
  const none: [string, string][] = [
    ["The solution uses EF Core with Postgres via Npgsql — right?", "no, it's Dapper"],
    ["The solution uses EF Core with Postgres via Npgsql — right?", "not sure"],
    ["The exporter is done, so I should open the PR now?", "yes"],
    ["Should I bump the SDK to .NET 9 in global.json — right?", "yes"],
    ["Lunch? — right?", "yes"],
    // The agent's own work, a state of the moment, a pointer at the work at hand.
    ["I've updated the handler to retry twice — does that look right?", "yes"],
    ["The exporter retries twice on a timeout now — right?", "yes"],
    ["The integration tests are failing on the login page — right?", "yep"],
    ["This function returns the parsed config as a map, correct?", "yes"],
  ];
  for (const [agent, reply] of none) {
    assert.deepEqual(ruleCandidates([a(agent), u(reply)]), [], `${agent} / ${reply}`);
  }
});

Deno.test("'…, applies in general' after a rule about doubt generalises it", () => {
  const c = ruleCandidates([
    u("when you're not sure about an API, say so instead of guessing. applies in general"),
  ]);
  assert.equal(c.length, 1, JSON.stringify(c));
  assert.equal(c[0].scope, "global");
});
