/**
 * Hand-written sessions of the capture benchmark's test split (frozen, reported).
 *
 * @module
 */
import { bash, bashErr, D, edit, glob, grep, N, read, todo, write } from "./build.ts";
import { CWD, routine } from "./projects.ts";
import type { Script } from "./sessions_dev.ts";

const {
  payments: PAY,
  pipeline: PIPE,
  infra: INFRA,
  tally: TALLY,
  dashboard: DASH,
  authsvc: AUTH,
} = CWD;

const PAYMENTS: Script[] = [
  {
    id: "t01-payments-staging-port",
    cwd: CWD.payments,
    style: "resumed session (summary line), a setup fact, an unconfirmed agent hypothesis",
    start: "2025-10-01T08:30:00.000Z",
    run: (s) => {
      s.summaryLine("Refund endpoint returns 500 on staging");
      s.user(
        "the refunds endpoint times out against staging. the staging DB is on port 5433, not 5432, check the config uses that",
        N("request"),
        D("fact", "project", "The staging database listens on port 5433"),
      );
      s.tools(
        grep("DATABASE_URL", ["config/staging.env", "src/db/index.ts"]),
        read(
          `${PAY}/config/staging.env`,
          "DATABASE_URL=postgres://payments@staging-db.internal:5432/payments\nPORT=3001",
        ),
        edit(`${PAY}/config/staging.env`, "staging-db.internal:5432", "staging-db.internal:5433"),
      );
      s.say(
        "The staging env pointed at 5432; fixed to 5433. The timeouts might also come from the pool: `max: 10` may be exhausted when the refund worker runs.",
        N("hypothesis"),
      );
      s.user("redeploy staging and let's see", N("request"));
      s.tools(
        bash("pnpm deploy:staging", "deployed payments-api@2.4.2 to staging (3/3 pods ready)"),
      );
      s.say("Deployed; a refund against staging now returns in 180 ms.");
    },
  },
  {
    id: "t02-payments-long-money",
    cwd: CWD.payments,
    style: "long (70+ events), compaction, rules and a decision with reasons, a live Stripe key",
    start: "2025-10-02T09:00:00.000Z",
    branch: "feat/idempotency",
    version: "2.0.37",
    run: (s) => {
      s.user("we need idempotency keys on POST /charges. design it first", N("request"));
      routine(s, "payments", 4);
      s.say(
        "Proposal: clients send `Idempotency-Key`; we store (key, request hash, response) and replay the response for a repeat. Open question: how long to keep keys.",
      );
      s.user(
        "keep them 24 hours, because the processor retries for up to 24h. that's the decision",
        D(
          "decision",
          "project",
          "Idempotency keys are kept 24 hours, because the payment processor retries for up to 24 hours",
        ),
      );
      s.tools(todo(["Migration for idempotency_keys", "Middleware", "Replay tests", "Expiry job"]));
      routine(s, "payments", 8, 1);
      s.say(
        "Middleware written. Amounts are parsed with `parseFloat` in the request schema; I'll keep that.",
      );
      s.user(
        "no! never use floats for money in this codebase. integer cents everywhere, parse amounts as integers",
        D(
          "rule",
          "project",
          "Never use floats for money in payments-api: integer cents everywhere",
        ),
      );
      s.tools(
        edit(
          `${PAY}/src/routes/charges.ts`,
          "amount: z.coerce.number()",
          "amount: z.number().int().nonnegative()",
        ),
        bash("pnpm test -- charges", " ✓ test/charges.test.ts (14 tests) 611ms"),
      );
      routine(s, "payments", 10, 2);
      const live = s.secret("stripe");
      s.userS(
        `the e2e test against the processor sandbox fails, I tried with ${live} but it says livemode mismatch`,
        [live],
        N("question"),
        N("secret"),
      );
      s.say(
        "That is a live-mode key; the sandbox only accepts test keys (`sk_test_…`). Please revoke the live key you pasted, since it's now in this transcript, and use the test key from the team vault.",
      );
      s.user("ugh, yes, rotating it now", N("one-off"));
      routine(s, "payments", 8, 3);
      s.compact(
        "Primary request: idempotency keys on POST /charges.\nDecisions: keys kept 24h (processor retries for 24h). Money as integer cents, never floats.\nDone: migration 0033, middleware, replay tests. Pending: expiry job, PR.",
      );
      s.user(
        "the expiry job should go in the existing cron runner, src/cron/index.ts, all scheduled jobs live there",
        N("request"),
        D(
          "fact",
          "project",
          "All scheduled jobs of payments-api live in the cron runner src/cron/index.ts",
        ),
      );
      routine(s, "payments", 6, 4);
      s.say("Expiry job added to `src/cron/index.ts`, hourly, deleting keys older than 24h.");
      s.user("open the PR", N("request"));
      s.tools(bash("gh pr create --fill", "https://github.com/acme/payments-api/pull/421"));
      s.say("https://github.com/acme/payments-api/pull/421");
    },
  },
  {
    id: "t03-payments-dup-pnpm-oncall",
    cwd: CWD.payments,
    style: "repeats a stored rule, adds a new fact",
    start: "2025-10-03T11:20:00.000Z",
    stored: [
      "Use pnpm, not npm, in this repo (npm rewrites the lockfile)",
      "Never push to main directly in payments-api; always open a PR",
    ],
    run: (s) => {
      s.user(
        "add the `ms` package. and remember, pnpm not npm here",
        N("request"),
        D("rule", "project", "Use pnpm, not npm, in payments-api", {
          dup: "Use pnpm, not npm, in this repo (npm rewrites the lockfile)",
        }),
      );
      s.tools(bash("pnpm add ms@2.1.3", "Packages: +1\ndependencies:\n+ ms 2.1.3"));
      s.say("Added `ms@2.1.3` with pnpm.");
      s.user(
        "if the payout job alerts at night, the payments on-call is paged through #payments-oncall in Slack, put that in the runbook",
        N("request"),
        D(
          "fact",
          "project",
          "The payments on-call is paged through the #payments-oncall Slack channel",
        ),
      );
      s.tools(
        edit(
          `${PAY}/docs/runbook.md`,
          "## Escalation\n",
          "## Escalation\n\nPage the payments on-call in #payments-oncall.\n",
        ),
      );
      s.say("Runbook updated.");
    },
  },
  {
    id: "t04-payments-contradict-sha1",
    cwd: CWD.payments,
    style: "contradicts a stored fact",
    start: "2025-10-06T14:05:00.000Z",
    stored: ["Webhook signatures use HMAC-SHA1 over the raw body"],
    run: (s) => {
      s.user("the webhook signature test fails after the merge", N("request"));
      s.tools(
        bashErr(
          "pnpm test -- signature",
          " FAIL  test/webhooks/signature.test.ts > verifies a valid signature\nExpected: true\nReceived: false",
        ),
        read(
          `${PAY}/src/webhooks/verify.ts`,
          'const mac = createHmac("sha1", secret).update(raw).digest("hex");',
        ),
      );
      s.say("The verifier computes HMAC-SHA1 but the fixture was signed with SHA-256.");
      s.user(
        "right, we switched webhook signatures to HMAC-SHA256 in API v3, SHA1 is gone. update the verifier",
        D(
          "fact",
          "project",
          "Webhook signatures use HMAC-SHA256 over the raw body (since API v3; SHA1 is gone)",
          {
            contra: "Webhook signatures use HMAC-SHA1 over the raw body",
          },
        ),
        N("request"),
      );
      s.tools(
        edit(`${PAY}/src/webhooks/verify.ts`, 'createHmac("sha1"', 'createHmac("sha256"'),
        bash("pnpm test -- signature", " ✓ test/webhooks/signature.test.ts (5 tests) 41ms"),
      );
      s.say("Verifier uses SHA-256; tests pass.");
    },
  },
  {
    id: "t05-payments-questions-oneoffs",
    cwd: CWD.payments,
    style: "nothing durable: questions, one-offs phrased with always/never",
    start: "2025-10-07T16:40:00.000Z",
    run: (s) => {
      s.user("how many refunds does the test suite create in total?", N("question"));
      s.tools(grep("refund.create", ["test/refunds.test.ts", "test/payouts.test.ts"]));
      s.say("Eleven: nine in `refunds.test.ts`, two in `payouts.test.ts`.");
      s.user(
        "for this branch never mind the flaky payouts test, just skip it with .skip",
        N("one-off"),
      );
      s.tools(
        edit(
          `${PAY}/test/payouts.test.ts`,
          'it("settles at midnight"',
          'it.skip("settles at midnight"',
        ),
      );
      s.say("Skipped.");
      s.user("should we always run the payouts tests serially?", N("question"));
      s.say(
        "They share the `payouts` table without transactions, so running them in parallel can interleave; serial (`--no-file-parallelism`) would be safer.",
        N("hypothesis"),
      );
      s.user("not now. just push the branch", N("request"));
      s.tools(
        bash(
          "git push",
          "To github.com:acme/payments-api.git\n   4a1b2c3..5d6e7f8  fix/refund-cap -> fix/refund-cap",
        ),
      );
      s.say("Pushed.");
    },
  },
  {
    id: "t06-payments-private-customer",
    cwd: CWD.payments,
    style: "private customer details, request around them",
    start: "2025-10-08T10:10:00.000Z",
    run: (s) => {
      s.user(
        "a customer got charged twice. <private>It's Helen Okafor, helen.okafor@example.org, card ending 4242, charge ch_3PqL9x2eZvKYlo2C0n1Yx7aB.</private> find how a double charge can happen in the code",
        N("private"),
        N("request"),
      );
      routine(s, "payments", 2, 1);
      s.tools(
        read(
          `${PAY}/src/routes/charges.ts`,
          'app.post("/charges", async (req) => {\n  return processor.charge(req.body);\n});',
        ),
      );
      s.say(
        "POST /charges has no idempotency: a client retry after a timeout charges again. The idempotency-key work would prevent it.",
      );
      s.user("ok, that's the ticket then. thanks", N("request"));
    },
  },
  {
    id: "t07-payments-confirmed-pg16",
    cwd: CWD.payments,
    style: "agent statement the user confirms; a second the user corrects",
    start: "2025-10-09T09:45:00.000Z",
    run: (s) => {
      s.user("set up the integration tests on my new laptop", N("request"));
      s.tools(
        read(
          `${PAY}/docker-compose.yml`,
          "services:\n  db:\n    image: postgres:16\n    ports: ['5432:5432']",
        ),
      );
      s.say(
        "The integration tests expect Postgres 16 from docker compose on localhost:5432, started with `docker compose up -d db`. Is that how you always run them?",
      );
      s.confirm(
        "yes, exactly, always through docker compose",
        "fact",
        "project",
        "Integration tests run against Postgres 16 from docker compose (`docker compose up -d db`) on localhost:5432",
      );
      s.tools(
        bash(
          "docker compose up -d db && pnpm test:int",
          " Test Files  12 passed (12)\n      Tests  88 passed (88)",
        ),
      );
      s.say(
        "All 88 integration tests pass. I also assume you want the seed data loaded with `pnpm db:seed` every time.",
      );
      s.user("no, only when I ask for it", N("request"));
      s.say("Understood.");
    },
  },
  {
    id: "t08-payments-rsa-key-vault",
    cwd: CWD.payments,
    style: "a private key pasted, a rule about where keys live",
    start: "2025-10-10T13:00:00.000Z",
    run: (s) => {
      const key = s.secret("rsaKey");
      s.userS(
        `the processor's signing key won't load, Node says "unsupported". here it is:\n${key}`,
        [key],
        N("question"),
        N("secret"),
      );
      s.say(
        "That's a PKCS#1 RSA key; the loader calls `createPrivateKey` with `type: 'pkcs8'`. Passing `format: 'pem'` without a type lets Node detect it. Since the key is now in this conversation, consider it exposed.",
      );
      s.user(
        "signing keys live in Vault under secret/payments/*, never in the repo or in env files. load it from there",
        D(
          "rule",
          "project",
          "Signing keys live in Vault under secret/payments/*, never in the repo or in env files",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${PAY}/src/lib/signing.ts`,
          "readFileSync(process.env.SIGNING_KEY_PATH!)",
          'await vault.read("secret/payments/signing-key")',
        ),
      );
      s.say("The loader now reads the key from Vault.");
    },
  },
  {
    id: "t09-payments-generated-client",
    cwd: CWD.payments,
    style: "interrupted tool call, correction with a rule and a command fact",
    start: "2025-10-13T15:15:00.000Z",
    run: (s) => {
      s.user("the processor client is missing the `refund_reason` field, add it", N("request"));
      s.tools(
        grep("refund_reason", []),
        glob("src/gen/**/*.ts", ["src/gen/processor/client.ts", "src/gen/processor/types.ts"]),
      );
      s.rejectedTool("Edit", {
        file_path: `${PAY}/src/gen/processor/types.ts`,
        old_string: "  amount: number;",
        new_string: "  amount: number;\n  refund_reason?: string;",
      });
      s.user(
        "don't edit anything in src/gen by hand. it's generated from openapi/processor.yaml with `pnpm gen:processor`",
        D("rule", "project", "Never edit src/gen by hand in payments-api"),
        D(
          "fact",
          "project",
          "src/gen is generated from openapi/processor.yaml with `pnpm gen:processor`",
        ),
      );
      s.tools(
        edit(
          `${PAY}/openapi/processor.yaml`,
          "        amount:\n          type: integer",
          "        amount:\n          type: integer\n        refund_reason:\n          type: string",
        ),
        bash("pnpm gen:processor", "generated src/gen/processor (2 files)"),
      );
      s.say("Added `refund_reason` to the spec and regenerated.");
    },
  },
];

const PIPELINE: Script[] = [
  {
    id: "t10-pipeline-utc-dbt-targets",
    cwd: CWD.pipeline,
    style: "rule and facts stated together in one prompt",
    start: "2025-10-01T07:00:00.000Z",
    run: (s) => {
      s.user("the orders_by_day model is off by one day for some rows", N("request"));
      routine(s, "pipeline", 2, 2);
      s.tools(
        read(
          `${PIPE}/models/marts/orders_by_day.sql`,
          "select date(order_ts, 'America/New_York') as day, count(*) from {{ ref('stg_orders') }} group by 1",
        ),
      );
      s.say("The model converts to New York time before taking the date.");
      s.user(
        "all timestamps and dates in the warehouse are UTC, no local time zones anywhere. and fyi dbt has two targets, dev and prod, and prod is only ever run from CI",
        D(
          "rule",
          "project",
          "All timestamps and dates in the warehouse are UTC; no local time zones",
        ),
        D("fact", "project", "dbt has two targets, dev and prod; prod is only run from CI"),
      );
      s.tools(
        edit(
          `${PIPE}/models/marts/orders_by_day.sql`,
          "date(order_ts, 'America/New_York')",
          "date(order_ts)",
        ),
        bash(
          "dbt build --select orders_by_day --target dev",
          "Done. PASS=3 WARN=0 ERROR=0 SKIP=0 TOTAL=3",
        ),
      );
      s.say("Fixed; the model takes the UTC date.");
    },
  },
  {
    id: "t11-pipeline-service-account",
    cwd: CWD.pipeline,
    style: "a service account key (private key block) pasted; a fact around it",
    start: "2025-10-02T12:30:00.000Z",
    run: (s) => {
      const key = s.secret("rsaKey").replaceAll("RSA PRIVATE KEY", "PRIVATE KEY");
      const json = `{"type": "service_account", "project_id": "acme-data", "private_key_id": "${
        s.secret("hex")
      }", "private_key": "${
        key.replaceAll("\n", "\\n")
      }", "client_email": "airflow-runner@acme-data.iam.gserviceaccount.com"}`;
      s.userS(
        `airflow can't read the bucket. this is the key file it uses:\n${json}`,
        [key.replaceAll("\n", "\\n")],
        N("question"),
        N("secret"),
      );
      s.say(
        "The key belongs to `airflow-runner@acme-data.iam.gserviceaccount.com`. The bucket policy grants `roles/storage.objectViewer` to `etl@…` only. Treat the pasted key as leaked and rotate it.",
      );
      s.user(
        "airflow always runs as airflow-runner@acme-data.iam.gserviceaccount.com, grant that one the viewer role in the terraform",
        D(
          "fact",
          "project",
          "Airflow runs as the service account airflow-runner@acme-data.iam.gserviceaccount.com",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${PIPE}/terraform/buckets.tf`,
          'members = ["serviceAccount:etl@acme-data.iam.gserviceaccount.com"]',
          'members = ["serviceAccount:etl@acme-data.iam.gserviceaccount.com", "serviceAccount:airflow-runner@acme-data.iam.gserviceaccount.com"]',
        ),
      );
      s.say("Added the binding.");
    },
  },
  {
    id: "t12-pipeline-long-partitioning",
    cwd: CWD.pipeline,
    style: "long debugging session (60+ events), hypotheses, one confirmed by the user",
    start: "2025-10-03T08:00:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user("the events table query scans 4TB every morning, find out why", N("request"));
      routine(s, "pipeline", 6);
      s.say(
        "The dashboard query filters on `event_date` but I can't see the partition column yet.",
        N("agent"),
      );
      routine(s, "pipeline", 6, 1);
      s.say(
        "The table's DDL says `PARTITION BY DATE(_ingested_at)`. So it is partitioned by ingestion date, not by event date, and filters on `event_date` can't prune. Is partitioning by ingestion date intended?",
      );
      s.confirm(
        "yes, it's partitioned by ingestion date on purpose, late events arrive for weeks",
        "fact",
        "project",
        "The events table is partitioned by ingestion date (not event date), on purpose, because late events arrive for weeks",
      );
      routine(s, "pipeline", 6, 2);
      s.say(
        "Then the dashboard should filter on `_ingested_at` too. Maybe the BI tool caches the old query plan.",
        N("hypothesis"),
      );
      s.user("I doubt it. add the ingestion filter to the view", N("request"));
      routine(s, "pipeline", 8, 3);
      s.tools(
        edit(
          `${PIPE}/models/marts/events_daily.sql`,
          "where event_date >= current_date - 30",
          "where event_date >= current_date - 30\n  and _ingested_at >= timestamp_sub(current_timestamp(), interval 60 day)",
        ),
        bash(
          "bq query --dry_run --use_legacy_sql=false < target/compiled/events_daily.sql",
          "Query successfully validated. Assuming the tables are not modified, running this query will process 212.4 GB when run.",
        ),
      );
      s.say("With the ingestion filter the query processes 212 GB instead of 4 TB.");
      s.user("great. what's the cost difference per month roughly?", N("question"));
      s.say("At $6.25/TB and one run a day: about $750 before, about $40 after.");
    },
  },
  {
    id: "t13-pipeline-decision-airflow",
    cwd: CWD.pipeline,
    style: "decision with its reason, as content blocks",
    start: "2025-10-06T10:00:00.000Z",
    run: (s) => {
      s.userBlocks([
        "Someone on the team keeps proposing Dagster. Summarise the trade-offs vs our Airflow setup, briefly.",
      ], N("request"));
      s.say(
        "Dagster: asset-based, better local testing, typed IO. Airflow: what you run today on Cloud Composer, every operator you use exists, the team knows it. Migration cost: ~40 DAGs.",
      );
      s.userBlocks(
        [
          "OK. We're staying on Airflow, because the team already runs it on Cloud Composer and a migration buys us nothing we need now. Please add that as a short ADR so we stop re-discussing it.",
        ],
        D(
          "decision",
          "project",
          "The pipeline stays on Airflow (Cloud Composer) rather than Dagster: the team already runs it and a migration buys nothing needed now",
        ),
        N("request"),
      );
      s.tools(
        write(
          `${PIPE}/docs/adr/0004-stay-on-airflow.md`,
          "# 4. Stay on Airflow\n\nStatus: accepted\n\nWe keep Airflow on Cloud Composer. Dagster was considered; migrating ~40 DAGs buys nothing we need now.\n",
        ),
      );
      s.say("ADR 0004 written.");
    },
  },
  {
    id: "t14-pipeline-oneoffs",
    cwd: CWD.pipeline,
    style: "nothing durable: one-off instructions, a question about a possible rule",
    start: "2025-10-07T18:00:00.000Z",
    run: (s) => {
      s.user("backfill orders for 2025-09-01..2025-09-07", N("request"));
      s.tools(
        bash(
          "python scripts/backfill.py --from 2025-09-01 --to 2025-09-07",
          "backfilled 7 partitions (1,204,331 rows)",
        ),
      );
      s.say("Backfilled 7 days, 1.2M rows.");
      s.user(
        "just for today, commit without the pre-commit hooks, they're broken on my machine",
        N("one-off"),
      );
      s.tools(
        bash(
          "git commit --no-verify -am 'backfill: september week 1'",
          "[main 1f2e3d4] backfill: september week 1",
        ),
      );
      s.say("Committed without hooks.");
      s.user("should we make backfills always run with --dry-run first?", N("question"));
      s.say(
        "It would catch bad date ranges cheaply. I can add a confirmation prompt to the script.",
      );
      s.user("maybe later", N("one-off"));
    },
  },
  {
    id: "t15-pipeline-dup-and-contra",
    cwd: CWD.pipeline,
    style: "repeats one stored memory and contradicts another",
    start: "2025-10-08T06:50:00.000Z",
    stored: [
      "Raj owns the ingest pipeline",
      "The orders_daily DAG runs at 03:00 UTC",
      "Don't mock the warehouse in the pipeline tests; use the duckdb fixture from conftest",
    ],
    run: (s) => {
      s.user(
        "we moved orders_daily to 04:30 UTC since the vendor export now lands at 04:00. update the schedule",
        D(
          "fact",
          "project",
          "The orders_daily DAG runs at 04:30 UTC (the vendor export lands at 04:00)",
          {
            contra: "The orders_daily DAG runs at 03:00 UTC",
          },
        ),
        N("request"),
      );
      s.tools(
        edit(`${PIPE}/dags/orders_daily.py`, 'schedule="0 3 * * *"', 'schedule="30 4 * * *"'),
      );
      s.say("Schedule changed to `30 4 * * *`.");
      s.user(
        "if anyone asks, Raj owns this pipeline, send them to him",
        D("fact", "project", "Raj owns the ingest pipeline", {
          dup: "Raj owns the ingest pipeline",
        }),
      );
      s.say("Noted.");
    },
  },
  {
    id: "t16-pipeline-global-prefs",
    cwd: CWD.pipeline,
    style: "global preferences mixed with a project rule",
    start: "2025-10-09T17:20:00.000Z",
    run: (s) => {
      s.user(
        "Bitte... no wait, I'll write in English. But even when I write in German, always answer in English.",
        D("preference", "global", "Always answer in English, even when the user writes in German"),
      );
      s.say("Will do.");
      s.user(
        "in tests I prefer pytest.mark.parametrize over loops inside a test, in general",
        D(
          "preference",
          "global",
          "In tests, prefer pytest.mark.parametrize over loops inside a test",
        ),
      );
      s.user(
        "and in this repo every public function gets type hints, mypy --strict runs in CI",
        D(
          "rule",
          "project",
          "Every public function in ingest-pipeline has type hints (mypy --strict runs in CI)",
        ),
      );
      s.say("Understood. Anything to work on?");
      s.user("refactor test_transforms to use parametrize", N("request"));
      routine(s, "pipeline", 1);
      s.tools(
        edit(
          `${PIPE}/tests/transforms/test_cents.py`,
          "def test_cents():\n    for raw, want in CASES:",
          '@pytest.mark.parametrize("raw,want", CASES)\ndef test_cents(raw, want):',
        ),
      );
      s.say("Refactored; 40 tests still pass.");
    },
  },
  {
    id: "t17-pipeline-slack-token",
    cwd: CWD.pipeline,
    style: "Slack bot token inside a durable fact",
    start: "2025-10-10T09:00:00.000Z",
    run: (s) => {
      const tok = s.secret("slackBot");
      s.userS(
        `failed DAGs should post to #data-alerts, the bot token is SLACK_BOT_TOKEN=${tok}. wire up the on_failure_callback`,
        [tok],
        D("fact", "project", "Failed DAG alerts go to the #data-alerts Slack channel", {
          secret: true,
        }),
        N("request"),
      );
      s.tools(
        write(
          `${PIPE}/ingest/alerts.py`,
          'import os\n\nfrom slack_sdk import WebClient\n\n\ndef on_failure(ctx):\n    WebClient(token=os.environ["SLACK_BOT_TOKEN"]).chat_postMessage(channel="#data-alerts", text=f"{ctx[\'dag\'].dag_id} failed")\n',
        ),
      );
      s.say(
        "The callback reads `SLACK_BOT_TOKEN` from the environment; store the token as an Airflow secret, not in code.",
      );
    },
  },
  {
    id: "t18-pipeline-sqlfluff",
    cwd: CWD.pipeline,
    style: "content-block prompt: a style rule with its tool; a follow-up question",
    start: "2025-10-13T11:11:00.000Z",
    run: (s) => {
      s.userBlocks(
        [
          "lint the models dir.",
          "Style note for the future: SQL keywords are lowercase in our dbt models, sqlfluff enforces it with .sqlfluff at the repo root.",
        ],
        N("request"),
        D(
          "rule",
          "project",
          "SQL keywords are lowercase in the dbt models (sqlfluff enforces it via .sqlfluff)",
        ),
      );
      s.tools(
        bash(
          "sqlfluff lint models/",
          "== [models/staging/stg_orders.sql] FAIL\nL:   3 | P:   1 | CP01 | Keywords must be lower case.\nAll Finished!",
        ),
      );
      s.say("One violation in `stg_orders.sql`: `SELECT` in upper case.");
      s.userBlocks(
        ["fix it. does sqlfluff fix do that automatically?"],
        N("request"),
        N("question"),
      );
      s.tools(
        bash(
          "sqlfluff fix models/staging/stg_orders.sql -f",
          "== [models/staging/stg_orders.sql] FIXED\n1 fixable linting violations found",
        ),
      );
      s.say("Yes, `sqlfluff fix` rewrote it.");
    },
  },
];

const INFRA_S: Script[] = [
  {
    id: "t19-infra-aws-creds-in-output",
    cwd: CWD.infra,
    style: "secrets printed by a tool (not typed by the user); a state backend fact",
    start: "2025-10-01T15:00:00.000Z",
    run: (s) => {
      s.user("terraform init fails with AccessDenied on the state bucket", N("request"));
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.tools(
        bash(
          "cat ~/.aws/credentials",
          `[default]\naws_access_key_id = ${id}\naws_secret_access_key = ${sec}\nregion = eu-west-1`,
        ),
      );
      s.say(
        "Your default profile is a personal key. The backend needs the `infra` profile that can read the state bucket. Set `AWS_PROFILE=infra`.",
      );
      s.user(
        "right. state is in s3://acme-tf-state with the dynamodb lock table tf-locks, and you always need AWS_PROFILE=infra for it",
        D(
          "fact",
          "project",
          "Terraform state is in s3://acme-tf-state with the DynamoDB lock table tf-locks",
        ),
        D("rule", "project", "Use AWS_PROFILE=infra for Terraform in infra-live"),
      );
      s.tools(
        bash(
          "AWS_PROFILE=infra terraform -chdir=envs/staging init -no-color | tail -1",
          "Terraform has been successfully initialized!",
        ),
      );
      s.say("Initialised with the infra profile.");
      const l = s.labels;
      l.secrets.push(id, sec);
      const toolResult = s.lines.find((o) => JSON.stringify(o).includes(id)) as { uuid: string };
      l.secret_locations.push({ secret: id, uuid: toolResult.uuid }, {
        secret: sec,
        uuid: toolResult.uuid,
      });
    },
  },
  {
    id: "t20-infra-prod-apply-provider",
    cwd: CWD.infra,
    style: "a rule and a decision with its reason",
    start: "2025-10-02T10:30:00.000Z",
    run: (s) => {
      s.user("upgrade the aws provider to 6.x", N("request"));
      s.tools(
        edit(`${INFRA}/versions.tf`, 'version = "~> 5.60"', 'version = "~> 6.0"'),
        bashErr(
          "terraform -chdir=envs/staging plan -no-color",
          'Error: Unsupported argument\n\n  on ../../modules/alb/main.tf line 14:\n  14:   enable_http2 = true\n\nAn argument named "enable_http2" is not expected here.',
        ),
      );
      s.say("6.0 breaks the ALB module (`enable_http2` moved). I can port the module.");
      s.user(
        "no, revert. we pin the aws provider to 5.x because 6.0 breaks the ALB module, we'll revisit in Q1",
        N("request"),
        D(
          "decision",
          "project",
          "The AWS provider is pinned to 5.x because 6.0 breaks the ALB module",
        ),
      );
      s.tools(edit(`${INFRA}/versions.tf`, 'version = "~> 6.0"', 'version = "~> 5.60"'));
      s.say("Reverted.");
      s.user(
        "and while I think of it: never run terraform apply against prod from a laptop, prod only goes through the pipeline. staging is fine locally",
        D(
          "rule",
          "project",
          "Never run terraform apply against prod from a laptop; prod goes through the pipeline (staging locally is fine)",
        ),
      );
      s.say("Understood.");
    },
  },
  {
    id: "t21-infra-long-compaction-cluster",
    cwd: CWD.infra,
    style: "long (60+ events), summary line, manual compaction, facts after it",
    start: "2025-10-03T09:00:00.000Z",
    version: "2.0.37",
    model: "claude-opus-4-1-20250805",
    run: (s) => {
      s.summaryLine("EKS 1.30 upgrade for staging and prod");
      s.user("let's upgrade EKS to 1.30, staging first", N("request"));
      s.tools(
        todo([
          "Check addon versions",
          "Upgrade control plane",
          "Roll node groups",
          "Verify workloads",
        ]),
      );
      routine(s, "infra", 10);
      s.say("Control plane upgraded on staging; rolling the node groups.");
      s.user(
        "the node group rollout takes ~25 min, don't poll faster than every 2 minutes",
        N("one-off"),
      );
      s.say("Polling every 2 minutes.");
      s.user(
        "for the record we always upgrade staging a full week before prod",
        D("rule", "project", "Cluster upgrades reach staging a full week before prod"),
      );
      routine(s, "infra", 8, 1);
      s.command("compact", "keep the upgrade steps", "Compacted. ctrl+o to see full summary");
      s.compact(
        "Task: upgrade EKS to 1.30, staging first. Staging control plane and nodes done; workloads verified. Next: prod.",
        "manual",
      );
      s.user(
        "prod cluster is prod-eu-1 and the kubectl context for it is called prod-admin. staging context is stg",
        D(
          "fact",
          "project",
          "The prod EKS cluster is prod-eu-1; its kubectl context is prod-admin; the staging context is stg",
        ),
      );
      routine(s, "infra", 10, 2);
      s.say("Prod control plane upgraded to 1.30; node groups rolled; all pods Running.");
      s.user("nice work", N("request"));
    },
  },
  {
    id: "t22-infra-oneoff-hypotheses",
    cwd: CWD.infra,
    style: "nothing durable: one-offs, questions, agent hypotheses",
    start: "2025-10-06T08:10:00.000Z",
    run: (s) => {
      s.user("add the cost-center tag to all staging resources", N("request"));
      s.tools(
        edit(
          `${INFRA}/envs/staging/main.tf`,
          "locals {\n  tags = {",
          'locals {\n  tags = {\n    "cost-center" = "eng-platform"',
        ),
      );
      s.say("Added the tag to the shared `locals.tags`.");
      s.user("skip the plan review for this change, it's only tags", N("one-off"));
      s.say("OK.");
      s.user("why is the plan showing the NAT gateway being replaced?", N("question"));
      s.say(
        "Maybe the EIP allocation changed when someone imported it manually, or the provider upgrade changed the default for `connectivity_type`.",
        N("hypothesis"),
      );
      s.user("check the state for the EIP", N("request"));
      s.tools(
        bash(
          "terraform -chdir=envs/staging state show module.vpc.aws_eip.nat",
          'resource "aws_eip" "nat" {\n    allocation_id = "eipalloc-0a1b2c3d4e5f67890"\n    domain        = "vpc"\n}',
        ),
      );
      s.say(
        "The EIP is unchanged; the replacement comes from `connectivity_type` now defaulting to `public`. Setting it explicitly avoids the replacement.",
      );
    },
  },
  {
    id: "t23-infra-contradict-tuesday",
    cwd: CWD.infra,
    style: "contradicts a stored rule",
    start: "2025-10-07T12:00:00.000Z",
    stored: ["Production infra changes are deployed only on Tuesdays"],
    run: (s) => {
      s.user("prep the prod change for the bigger RDS instance", N("request"));
      routine(s, "infra", 2);
      s.say(
        "Ready. Your notes say prod infra changes only go out on Tuesdays; today is Tuesday, so I can hand it to the pipeline.",
      );
      s.user(
        "that changed: prod infra changes now go out on Tuesdays and Thursdays. today's fine anyway",
        D("rule", "project", "Production infra changes are deployed on Tuesdays and Thursdays", {
          contra: "Production infra changes are deployed only on Tuesdays",
        }),
      );
      s.say("Noted. Opening the PR for the pipeline.");
    },
  },
  {
    id: "t24-infra-github-pat-atlantis",
    cwd: CWD.infra,
    style: "a fine-grained GitHub token pasted; a fact without it",
    start: "2025-10-08T16:00:00.000Z",
    run: (s) => {
      const pat = s.secret("githubPat");
      s.userS(
        `atlantis can't comment on PRs. I regenerated its token: ${pat}. update the k8s secret`,
        [pat],
        N("request"),
        N("secret"),
      );
      s.say(
        "I won't write the token into a manifest. Run `kubectl -n atlantis create secret generic atlantis-gh --from-literal=token=… --dry-run=client -o yaml | kubectl apply -f -` yourself, or put it in the sealed-secrets flow.",
      );
      s.user(
        "fine. for the record atlantis runs as the github account acme-atlantis, not as me",
        D("fact", "project", "Atlantis runs as the GitHub account acme-atlantis"),
      );
      s.say("Noted.");
    },
  },
  {
    id: "t25-infra-plan-output-pref",
    cwd: CWD.infra,
    style: "a personal preference about output, a one-off",
    start: "2025-10-09T09:30:00.000Z",
    run: (s) => {
      s.user("plan staging", N("request"));
      s.tools(
        bash(
          "terraform -chdir=envs/staging plan -no-color",
          '  # module.eks.aws_eks_node_group.main will be updated in-place\n  ~ resource "aws_eks_node_group" "main" {\n      ~ scaling_config {\n          ~ desired_size = 3 -> 4\n        }\n    }\n\nPlan: 0 to add, 1 to change, 0 to destroy.',
        ),
      );
      s.say(
        "Full plan:\n```\n# module.eks.aws_eks_node_group.main will be updated in-place\n  ~ scaling_config { desired_size = 3 -> 4 }\nPlan: 0 to add, 1 to change, 0 to destroy.\n```",
      );
      s.user(
        "when you show me a terraform plan, only give me the resource lines and the Plan: summary, never the full diff. that's how I want it everywhere",
        D(
          "preference",
          "global",
          "When showing a Terraform plan, give only the resource lines and the Plan summary, not the full diff",
        ),
      );
      s.say("Understood.");
      s.user("don't apply, I'll do it after the standup", N("one-off"));
    },
  },
  {
    id: "t26-infra-private-audit",
    cwd: CWD.infra,
    style: "private block with a durable-looking sentence inside; a real rule outside",
    start: "2025-10-10T14:20:00.000Z",
    run: (s) => {
      s.user(
        "<private>The SOC2 auditor flagged our S3 buckets last week and we always keep that quiet until the report is out.</private> make sure every bucket has block-public-access on",
        N("private"),
        N("request"),
      );
      s.tools(grep('aws_s3_bucket"', ["modules/buckets/main.tf", "envs/prod/logs.tf"]));
      s.tools(
        edit(
          `${INFRA}/modules/buckets/main.tf`,
          'resource "aws_s3_bucket" "this" {',
          'resource "aws_s3_bucket_public_access_block" "this" {\n  bucket                  = aws_s3_bucket.this.id\n  block_public_acls       = true\n  block_public_policy     = true\n  ignore_public_acls      = true\n  restrict_public_buckets = true\n}\n\nresource "aws_s3_bucket" "this" {',
        ),
      );
      s.say(
        "The bucket module now always adds a public access block; `envs/prod/logs.tf` uses the module too.",
      );
      s.user(
        "good. every new bucket must go through modules/buckets, never a raw aws_s3_bucket resource",
        D(
          "rule",
          "project",
          "Every new S3 bucket goes through modules/buckets, never a raw aws_s3_bucket resource",
        ),
      );
      s.say("Understood.");
    },
  },
  {
    id: "t27-infra-unconfirmed-claim",
    cwd: CWD.infra,
    style: "agent claims about the setup that the user does not confirm",
    start: "2025-10-13T10:00:00.000Z",
    run: (s) => {
      s.user("where do we define the staging ingress?", N("question"));
      s.tools(glob("**/ingress*", ["k8s/ingress/staging.yaml", "k8s/ingress/prod.yaml"]));
      s.say(
        "In `k8s/ingress/staging.yaml`. It looks like you use Terragrunt for the environments and nginx-ingress as the controller everywhere.",
        N("agent"),
      );
      s.user("hmm. show me the file", N("request"));
      s.tools(
        read(
          `${INFRA}/k8s/ingress/staging.yaml`,
          "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: staging\n  annotations:\n    kubernetes.io/ingress.class: alb",
        ),
      );
      s.say("It uses the AWS ALB ingress class, not nginx.");
      s.user("ok thanks", N("request"));
    },
  },
];

const TALLY_S: Script[] = [
  {
    id: "t28-tally-error-style-msrv",
    cwd: CWD.tally,
    style: "two project rules in one message",
    start: "2025-10-01T20:00:00.000Z",
    run: (s) => {
      s.user("make `tally add` fail nicely on a bad amount", N("request"));
      s.tools(
        edit(
          `${TALLY}/src/main.rs`,
          "let amount: Decimal = amount.parse().unwrap();",
          'let amount: Decimal = amount.parse().map_err(|_| anyhow!("Invalid amount: {amount}."))?;',
        ),
      );
      s.say("`tally add abc` now prints `Error: Invalid amount: abc.` and exits 1.");
      s.user(
        "error messages in this project start lowercase and have no trailing period. and keep to the MSRV, 1.74, don't use anything newer",
        D("rule", "project", "tally's error messages start lowercase and have no trailing period"),
        D("rule", "project", "tally's MSRV is Rust 1.74: don't use newer language or std features"),
      );
      s.tools(
        edit(`${TALLY}/src/main.rs`, "Invalid amount: {amount}.", "invalid amount: {amount}"),
        bash("cargo +1.74 check -q", ""),
      );
      s.say("Fixed the message; builds on 1.74.");
    },
  },
  {
    id: "t29-tally-sqlite-decision",
    cwd: CWD.tally,
    style: "decision with its reason after a bug report",
    start: "2025-10-02T21:00:00.000Z",
    run: (s) => {
      s.user(
        "my ledger.json got corrupted again when two cron scripts ran tally add at the same time",
        N("request"),
      );
      s.say(
        "Concurrent writers both read-modify-write the JSON file. Options: a lock file around writes, or moving storage to SQLite, which handles concurrent writers with its own locking.",
      );
      s.user(
        "move to sqlite. we're switching storage from JSON files to SQLite because concurrent tally add runs corrupted the JSON",
        N("request"),
        D(
          "decision",
          "project",
          "tally stores data in SQLite instead of JSON files, because concurrent `tally add` runs corrupted the JSON",
        ),
      );
      s.tools(
        bash(
          "cargo add rusqlite@0.31 --features bundled",
          "      Adding rusqlite v0.31.0 to dependencies",
        ),
      );
      routine(s, "tally", 3);
      s.say("Storage moved to SQLite with a one-time import of ledger.json.");
    },
  },
  {
    id: "t30-tally-global-no-emoji",
    cwd: CWD.tally,
    style: "short: global preferences only",
    start: "2025-10-03T19:00:00.000Z",
    run: (s) => {
      s.user("write release notes for 0.9.0 from the git log", N("request"));
      s.tools(
        bash(
          "git log v0.8.0..HEAD --oneline",
          "c1 storage: sqlite\nc2 export: --json\nc3 fix: lowercase tags",
        ),
      );
      s.say("## 0.9.0 🎉\n\n- ✨ SQLite storage\n- 📦 `export --json`\n- 🐛 tags are lowercased");
      s.user(
        "no emojis, ever, in anything you write for me. and I use British spelling",
        D("preference", "global", "Never use emojis in anything written for the user"),
        D("preference", "global", "Use British spelling"),
      );
      s.say("## 0.9.0\n\n- SQLite storage\n- `export --json`\n- Tags are normalised to lower case");
    },
  },
  {
    id: "t31-tally-long-config",
    cwd: CWD.tally,
    style: "long (55+ events) feature session with facts and a rule along the way",
    start: "2025-10-06T19:30:00.000Z",
    branch: "feat/config",
    run: (s) => {
      s.user("add a config file for default currency and the report period", N("request"));
      s.tools(todo(["Config struct", "Load from file", "CLI overrides", "Integration tests"]));
      routine(s, "tally", 8);
      s.say("Where should the file live?");
      s.user(
        "~/.config/tally/config.toml, respecting XDG_CONFIG_HOME",
        D(
          "fact",
          "project",
          "tally's config file is ~/.config/tally/config.toml (respecting XDG_CONFIG_HOME)",
        ),
      );
      routine(s, "tally", 8, 1);
      s.say("Loader done. Should it also accept YAML?");
      s.user(
        "no, TOML only. we decided that because cargo users expect TOML and one format is less to test",
        D(
          "decision",
          "project",
          "tally's config is TOML only (no YAML), because cargo users expect TOML and one format is less to test",
        ),
      );
      s.say("TOML only. Writing tests with a temp HOME.");
      s.user(
        "integration tests use assert_cmd and run the real binary, don't call main() directly",
        D(
          "rule",
          "project",
          "tally's integration tests use assert_cmd and run the real binary, not main() directly",
        ),
      );
      routine(s, "tally", 8, 2);
      s.tools(
        bashErr(
          "cargo test --test config",
          'thread \'reads_default_currency\' panicked at tests/config.rs:22:5:\nassertion `left == right` failed\n  left: "USD"\n right: "EUR"',
        ),
      );
      s.say(
        "The test sets `HOME` but the loader reads `XDG_CONFIG_HOME` first, which CI sets. Probably CI's runner exports it globally.",
        N("hypothesis"),
      );
      s.user("clear XDG_CONFIG_HOME in the test env", N("request"));
      routine(s, "tally", 4, 3);
      s.say("Tests clear `XDG_CONFIG_HOME`; all pass.");
    },
  },
  {
    id: "t32-tally-blocks-requests",
    cwd: CWD.tally,
    style: "content-block prompts, requests only",
    start: "2025-10-07T20:15:00.000Z",
    run: (s) => {
      s.userBlocks(
        ["Add a `--since` flag to `tally report`.", "Format: YYYY-MM-DD."],
        N("request"),
      );
      s.tools(
        edit(
          `${TALLY}/src/cli.rs`,
          'Report { #[arg(long, default_value = "month")] period: String },',
          'Report { #[arg(long, default_value = "month")] period: String, #[arg(long)] since: Option<NaiveDate> },',
        ),
      );
      s.say("Added `--since`.");
      s.userBlocks(["Also show the count of entries next to each tag."], N("request"));
      routine(s, "tally", 2);
      s.say("Done.");
      s.userBlocks(["What happens if --since is after today?"], N("question"));
      s.say("The report is empty; I can make it an error if you prefer.");
      s.userBlocks(["Empty is fine."], N("one-off"));
    },
  },
  {
    id: "t33-tally-clear-interrupt",
    cwd: CWD.tally,
    style: "interrupted answer, /clear, a rule stated after the clear",
    start: "2025-10-08T21:00:00.000Z",
    version: "1.0.72",
    run: (s) => {
      s.user("explain how the report aggregation works", N("request"));
      s.interrupt();
      s.user("actually never mind", N("one-off"));
      s.command("clear");
      s.user(
        "new topic. dates in tally's output are always ISO 8601, never locale formats, scripts parse them",
        D(
          "rule",
          "project",
          "tally prints dates in ISO 8601, never locale formats (scripts parse the output)",
        ),
      );
      s.tools(
        grep('format\\("%d/%m', ["src/report.rs"]),
        edit(`${TALLY}/src/report.rs`, 'format("%d/%m/%Y")', 'format("%Y-%m-%d")'),
      );
      s.say("`report` printed `%d/%m/%Y`; it now prints ISO dates.");
    },
  },
  {
    id: "t34-tally-dup-publish",
    cwd: CWD.tally,
    style: "repeats a stored rule in other words",
    start: "2025-10-09T19:45:00.000Z",
    stored: [
      "Never run `cargo publish` by hand: releases are published by CI when a vX.Y.Z tag is pushed",
    ],
    run: (s) => {
      s.user("prepare 0.9.1", N("request"));
      s.tools(edit(`${TALLY}/Cargo.toml`, 'version = "0.9.0"', 'version = "0.9.1"'));
      s.say("Bumped. Tag and push?");
      s.user(
        "yes. and just so it's clear: you don't publish, CI publishes when the tag lands",
        N("request"),
        D("rule", "project", "Don't publish tally by hand: CI publishes when the tag is pushed", {
          dup:
            "Never run `cargo publish` by hand: releases are published by CI when a vX.Y.Z tag is pushed",
        }),
      );
      s.tools(
        bash(
          "git commit -am 'release 0.9.1' && git tag v0.9.1 && git push origin main v0.9.1",
          " * [new tag]         v0.9.1 -> v0.9.1",
        ),
      );
      s.say("Pushed v0.9.1.");
    },
  },
  {
    id: "t35-tally-confirmed-clock",
    cwd: CWD.tally,
    style: "agent question confirmed by the user",
    start: "2025-10-10T18:30:00.000Z",
    run: (s) => {
      s.user("the weekly report test fails on Mondays", N("request"));
      s.tools(
        read(
          `${TALLY}/tests/report.rs`,
          'let out = Command::cargo_bin("tally")?.args(["report", "--period", "week"]).output()?;',
        ),
      );
      s.say(
        "The test uses the real clock. Other tests set `TALLY_NOW` to freeze time. Should tests always freeze the clock with `TALLY_NOW` rather than use the real time?",
      );
      s.confirm(
        "yes, always TALLY_NOW in tests",
        "rule",
        "project",
        "tally's tests always freeze time with TALLY_NOW, never the real clock",
      );
      s.tools(
        edit(
          `${TALLY}/tests/report.rs`,
          'Command::cargo_bin("tally")?',
          'Command::cargo_bin("tally")?.env("TALLY_NOW", "2025-10-08T12:00:00Z")',
        ),
      );
      s.say("Fixed.");
    },
  },
];

const DASHBOARD: Script[] = [
  {
    id: "t36-dashboard-exports-naming",
    cwd: CWD.dashboard,
    style: "conventions stated as corrections",
    start: "2025-10-01T13:00:00.000Z",
    run: (s) => {
      s.user("create a KpiCard component", N("request"));
      s.tools(
        write(
          `${DASH}/src/components/kpi-card.tsx`,
          'export default function KpiCard({ label, value }: Props) {\n  return <div className="kpi">{label}: {value}</div>;\n}',
        ),
      );
      s.say("Created `src/components/kpi-card.tsx`.");
      s.user(
        "we don't use default exports in this codebase, named exports only. and component files are PascalCase, KpiCard.tsx",
        D("rule", "project", "No default exports in dashboard-web: named exports only"),
        D(
          "rule",
          "project",
          "Component files in dashboard-web are named in PascalCase (e.g. KpiCard.tsx)",
        ),
      );
      s.tools(
        bash("git mv src/components/kpi-card.tsx src/components/KpiCard.tsx", ""),
        edit(
          `${DASH}/src/components/KpiCard.tsx`,
          "export default function KpiCard",
          "export function KpiCard",
        ),
      );
      s.say("Renamed and switched to a named export.");
      s.user(
        "btw we went with Vite instead of Next.js for this app since it's all behind a login and needs no SSR, so no server components suggestions please",
        D(
          "decision",
          "project",
          "dashboard-web is built with Vite rather than Next.js, because it is all behind a login and needs no SSR",
        ),
      );
      s.say("Understood.");
    },
  },
  {
    id: "t37-dashboard-google-key",
    cwd: CWD.dashboard,
    style: "a Google API key inside a durable fact",
    start: "2025-10-02T14:40:00.000Z",
    run: (s) => {
      const k = s.secret("google");
      s.userS(
        `the store map needs the maps key ${k}. it's restricted to *.acme.dev referrers so it only works on our domains, not localhost`,
        [k],
        N("request"),
        D(
          "fact",
          "project",
          "The Google Maps key is restricted to *.acme.dev referrers, so it doesn't work on localhost",
          {
            secret: true,
          },
        ),
      );
      s.tools(
        edit(
          `${DASH}/src/pages/Stores.tsx`,
          'const MAPS_KEY = ""',
          "const MAPS_KEY = import.meta.env.VITE_MAPS_KEY",
        ),
      );
      s.say(
        "The page reads `VITE_MAPS_KEY`; put the key in the deployment env. Locally the map will show the referrer error.",
      );
    },
  },
  {
    id: "t38-dashboard-tanstack-decision",
    cwd: CWD.dashboard,
    style: "decision with its reason; an agent summary not confirmed",
    start: "2025-10-03T10:00:00.000Z",
    run: (s) => {
      s.user(
        "the new settings page needs some state management. redux or something else?",
        N("question"),
      );
      s.say(
        "Most of this app's state is server data; TanStack Query (already used for charts) would cover it; Redux adds boilerplate for little gain.",
      );
      s.user(
        "agreed, we use TanStack Query for server state and plain React state for the rest, no Redux, because almost all our state is server cache",
        D(
          "decision",
          "project",
          "dashboard-web uses TanStack Query for server state and plain React state otherwise, no Redux, because almost all state is server cache",
        ),
      );
      s.tools(
        write(
          `${DASH}/src/pages/Settings.tsx`,
          'export function Settings() {\n  const { data } = useQuery({ queryKey: ["settings"], queryFn: fetchSettings });\n  const [draft, setDraft] = useState(data);\n  return <SettingsForm value={draft} onChange={setDraft} />;\n}',
        ),
      );
      s.say(
        "Settings page scaffolded. I'll assume settings saves should be optimistic.",
        N("agent"),
      );
      s.user("let me think about that", N("one-off"));
    },
  },
  {
    id: "t39-dashboard-contradict-jest",
    cwd: CWD.dashboard,
    style: "contradicts a stored rule; repeats another",
    start: "2025-10-06T09:20:00.000Z",
    stored: ["Use Jest for the frontend tests", "Dana prefers small commits"],
    run: (s) => {
      s.user("write a test for KpiCard with jest", N("request"));
      s.tools(bashErr("pnpm jest src/components/KpiCard.test.tsx", "sh: 1: jest: not found"));
      s.say("Jest isn't installed; `package.json` has vitest.");
      s.user(
        "ah right, we're on vitest now, jest is gone. use vitest for all frontend tests",
        D("rule", "project", "Use vitest for the frontend tests (Jest is gone)", {
          contra: "Use Jest for the frontend tests",
        }),
      );
      s.tools(
        write(
          `${DASH}/src/components/KpiCard.test.tsx`,
          'import { render, screen } from "@testing-library/react";\nimport { it, expect } from "vitest";\nimport { KpiCard } from "./KpiCard";\n\nit("shows label and value", () => {\n  render(<KpiCard label="MRR" value="$12k" />);\n  expect(screen.getByText("MRR: $12k")).toBeTruthy();\n});',
        ),
        bash(
          "pnpm vitest run src/components/KpiCard.test.tsx",
          " ✓ src/components/KpiCard.test.tsx (1 test) 35ms",
        ),
      );
      s.say("Test written with vitest; passes.");
      s.user(
        "commit just the test, small commits as usual",
        N("request"),
        D("preference", "global", "Prefers small commits", { dup: "Dana prefers small commits" }),
      );
      s.tools(
        bash(
          "git add src/components/KpiCard.test.tsx && git commit -m 'test: KpiCard'",
          "[main 8e7d6c5] test: KpiCard",
        ),
      );
      s.say("Committed.");
    },
  },
  {
    id: "t40-dashboard-long-storybook",
    cwd: CWD.dashboard,
    style: "long (60+ events), compaction, a global preference and a fact",
    start: "2025-10-07T13:00:00.000Z",
    branch: "feat/storybook",
    version: "2.0.37",
    run: (s) => {
      s.user("set up storybook for the components folder", N("request"));
      routine(s, "dashboard", 6);
      s.tools(
        bash(
          "pnpm dlx storybook@8 init --yes",
          "storybook init - the simplest way to add a Storybook to your project.\n ✔ Installed @storybook/react-vite@8.3.0",
        ),
      );
      s.say("Storybook installed. I'll also add @storybook/addon-a11y and chromatic.");
      s.user(
        "ask me before adding any dependency, always. not just here",
        D("preference", "global", "Ask before adding any dependency"),
      );
      s.say("Understood; only the base Storybook packages so far. Shall I add addon-a11y?");
      s.user("a11y yes, chromatic no", N("request"));
      routine(s, "dashboard", 10, 1);
      s.compact(
        "Task: Storybook for src/components. Installed storybook 8 and addon-a11y (chromatic declined). User asks before any new dependency. Stories written for 6 components; remaining: charts.",
      );
      s.user(
        "storybook runs with `pnpm storybook` on port 6006 and the designers open it from there, don't change the port",
        D(
          "fact",
          "project",
          "Storybook runs with `pnpm storybook` on port 6006 (designers use that port)",
        ),
      );
      routine(s, "dashboard", 10, 2);
      s.say("Stories for the chart components are done; `pnpm storybook` serves on 6006.");
      s.user("ship it", N("request"));
      s.tools(
        bash(
          "git push -u origin feat/storybook && gh pr create --fill",
          "https://github.com/acme/dashboard-web/pull/97",
        ),
      );
      s.say("https://github.com/acme/dashboard-web/pull/97");
    },
  },
  {
    id: "t41-dashboard-questions",
    cwd: CWD.dashboard,
    style: "nothing durable: questions and agent hypotheses",
    start: "2025-10-08T11:00:00.000Z",
    run: (s) => {
      s.user("why is the bundle 312kB? what's the biggest dependency?", N("question"));
      s.tools(
        bash(
          "pnpm dlx vite-bundle-visualizer --json | head -5",
          '{"recharts": 121034, "@tanstack/react-query": 38211, "date-fns": 30122}',
        ),
      );
      s.say(
        "recharts is 121 kB of it. Perhaps tree-shaking fails because the charts import from the package root.",
        N("hypothesis"),
      );
      s.user("do they?", N("question"));
      s.tools(
        grep('from "recharts"', [
          "src/components/charts/LineChart.tsx",
          "src/components/charts/BarChart.tsx",
        ]),
      );
      s.say(
        "Yes, both import from the root, but recharts doesn't ship per-component entry points, so that isn't the cause.",
      );
      s.user("what about lazy-loading the charts page?", N("question"));
      s.say("That would move recharts out of the initial bundle: about 120 kB less on first load.");
    },
  },
  {
    id: "t42-dashboard-oneoffs",
    cwd: CWD.dashboard,
    style: "nothing durable: one-offs in rule-like words",
    start: "2025-10-09T16:00:00.000Z",
    run: (s) => {
      s.user(
        "quick spike: a dark mode toggle. don't write tests for this, it's a throwaway",
        N("request"),
        N("one-off"),
      );
      s.tools(edit(`${DASH}/src/App.tsx`, "<Header />", "<Header />\n<DarkModeToggle />"));
      s.say("Added a toggle that flips a `dark` class on `<html>`.");
      s.user("leave the console.logs in for now, I'm debugging", N("one-off"));
      s.say("OK.");
      s.user("never mind the lint errors on this branch", N("one-off"));
      s.say("Understood, on this branch only.");
    },
  },
  {
    id: "t43-dashboard-jwt-password",
    cwd: CWD.dashboard,
    style: "a JWT and a password assignment pasted while debugging",
    start: "2025-10-10T10:30:00.000Z",
    run: (s) => {
      const jwt = s.secret("jwt");
      s.userS(
        `the API returns 401 for this token from the browser: Bearer ${jwt}. what's wrong with it?`,
        [jwt],
        N("question"),
        N("secret"),
      );
      s.say(
        'I can\'t verify it without the key, but its payload has `aud: "admin"` while the dashboard API expects `aud: "dashboard"`.',
      );
      const pw = s.secret("password");
      s.userS(
        `ok and for the e2e login I set E2E_PASSWORD=${pw} in my shell, the test still can't log in`,
        [pw],
        N("question"),
        N("secret"),
      );
      s.tools(
        read(`${DASH}/e2e/login.spec.ts`, "await page.fill('#password', process.env.E2E_PASS!)"),
      );
      s.say("The test reads `E2E_PASS`, not `E2E_PASSWORD`.");
      s.user("rename it in the test to E2E_PASSWORD", N("request"));
      s.tools(
        edit(`${DASH}/e2e/login.spec.ts`, "process.env.E2E_PASS!", "process.env.E2E_PASSWORD!"),
      );
      s.say("Renamed.");
    },
  },
  {
    id: "t44-dashboard-ui-package",
    cwd: CWD.dashboard,
    style: "private block; a rule and a fact about the monorepo",
    start: "2025-10-13T14:00:00.000Z",
    run: (s) => {
      s.user(
        "the Button looks wrong in the new page. <private>Between us, the design lead wants to replace the whole design system next year but nobody knows yet.</private>",
        N("private"),
        N("request"),
      );
      s.tools(
        read(
          `${DASH}/packages/ui/dist/Button.js`,
          'export const Button = (p) => jsx("button", { className: "btn btn-" + p.variant, ...p });',
        ),
      );
      s.rejectedTool("Edit", {
        file_path: `${DASH}/packages/ui/dist/Button.js`,
        old_string: "btn-",
        new_string: "ui-btn-",
      });
      s.user(
        "never edit packages/ui/dist, it's build output. the design system source is packages/ui/src and you rebuild with pnpm -F ui build",
        D("rule", "project", "Never edit packages/ui/dist (build output)"),
        D(
          "fact",
          "project",
          "The design system source is packages/ui/src; rebuild it with `pnpm -F ui build`",
        ),
      );
      s.tools(
        edit(
          `${DASH}/packages/ui/src/Button.tsx`,
          '"btn btn-" + variant',
          '"ui-btn ui-btn-" + variant',
        ),
        bash("pnpm -F ui build", "packages/ui build$ tsup\n│ ESM dist/index.js 14.2 KB"),
      );
      s.say("Fixed in the source and rebuilt.");
    },
  },
];

const AUTHSVC: Script[] = [
  {
    id: "t45-authsvc-sqlc",
    cwd: CWD.authsvc,
    style: "a rule with its tool and command",
    start: "2025-10-01T09:10:00.000Z",
    run: (s) => {
      s.user("add a query to list sessions by user", N("request"));
      s.tools(
        write(
          `${AUTH}/internal/session/list.go`,
          'func (s *Store) ListByUser(ctx context.Context, uid string) ([]Session, error) {\n\trows, err := s.db.Query(ctx, "select id, created_at from sessions where user_id = $1", uid)\n\t// ...\n}',
        ),
      );
      s.say("Added `ListByUser` with a query in Go.");
      s.user(
        "no handwritten SQL in Go code here, all queries go through sqlc. put it in db/queries/sessions.sql and run make sqlc",
        D(
          "rule",
          "project",
          "No handwritten SQL in authsvc's Go code: all queries go through sqlc",
        ),
        D(
          "fact",
          "project",
          "sqlc queries live in db/queries/*.sql and are generated with `make sqlc`",
        ),
      );
      s.tools(
        edit(
          `${AUTH}/db/queries/sessions.sql`,
          "-- name: GetSession :one",
          "-- name: ListSessionsByUser :many\nselect id, created_at from sessions where user_id = $1;\n\n-- name: GetSession :one",
        ),
        bash("make sqlc", "sqlc generate"),
      );
      s.say("Moved the query to `db/queries/sessions.sql`; generated `ListSessionsByUser`.");
      s.user(
        "for context, we picked sqlc over GORM because we want to see and review every query",
        D(
          "decision",
          "project",
          "authsvc uses sqlc rather than GORM, so that every query can be seen and reviewed",
        ),
      );
      s.say("Makes sense.");
    },
  },
  {
    id: "t46-authsvc-ssh-key",
    cwd: CWD.authsvc,
    style: "OpenSSH private key in a prompt with a durable fact in the same message",
    start: "2025-10-02T17:00:00.000Z",
    run: (s) => {
      const key = s.secret("opensshKey");
      s.userS(
        `the deploy step can't ssh to the bastion. this is the deploy key from the runner:\n${key}\nthe bastion is bastion.acme.internal and deploys always go through it as user deploy`,
        [key],
        N("question"),
        N("secret"),
        D(
          "fact",
          "project",
          "authsvc deploys go through the bastion bastion.acme.internal as user deploy",
          { secret: true },
        ),
      );
      s.say(
        "The key itself looks fine (OpenSSH format). The runner's `known_hosts` lacks the bastion's host key, so ssh aborts. Please rotate the pasted key.",
      );
      s.user("add the known_hosts step to the workflow", N("request"));
      s.tools(
        edit(
          `${AUTH}/.github/workflows/deploy.yml`,
          "      - name: Deploy",
          "      - name: Trust bastion\n        run: ssh-keyscan bastion.acme.internal >> ~/.ssh/known_hosts\n      - name: Deploy",
        ),
      );
      s.say("Added.");
    },
  },
  {
    id: "t47-authsvc-session-ttl-decision",
    cwd: CWD.authsvc,
    style: "decision with its reason, later an explicit preference",
    start: "2025-10-03T15:30:00.000Z",
    run: (s) => {
      s.user("mobile users keep getting logged out. what's the session TTL now?", N("question"));
      s.tools(
        grep("SessionTTL", ["internal/config/config.go"]),
        read(
          `${AUTH}/internal/config/config.go`,
          '\tSessionTTL time.Duration `env:"SESSION_TTL" envDefault:"24h"`',
        ),
      );
      s.say("24 hours, in memory only.");
      s.user(
        "let's keep sessions in Redis with a 30-day sliding TTL, because mobile users complained about daily logouts",
        D(
          "decision",
          "project",
          "Sessions are kept in Redis with a 30-day sliding TTL, because mobile users complained about daily logouts",
        ),
      );
      routine(s, "authsvc", 3);
      s.say("Sessions now live in Redis; each request extends the TTL to 30 days.");
      s.user(
        "when you're not sure about something, say so instead of guessing. applies in general",
        D("preference", "global", "Say so when unsure instead of guessing"),
      );
      s.say("Will do.");
    },
  },
  {
    id: "t48-authsvc-dup-contra",
    cwd: CWD.authsvc,
    style: "repeats one stored rule, contradicts a stored fact",
    start: "2025-10-06T10:45:00.000Z",
    stored: ["Use go-redis v9, not redigo, in authsvc", "Access tokens live 15 minutes"],
    run: (s) => {
      s.user(
        "access tokens now live 10 minutes, not 15, security asked for it. change the default",
        D("fact", "project", "Access tokens live 10 minutes (security asked; was 15)", {
          contra: "Access tokens live 15 minutes",
        }),
        N("request"),
      );
      s.tools(edit(`${AUTH}/internal/config/config.go`, 'envDefault:"15m"', 'envDefault:"10m"'));
      s.say("Default is 10m.");
      s.user(
        "and the revocation list: use go-redis v9 for it like everywhere else here, not redigo",
        N("request"),
        D("rule", "project", "Use go-redis v9, not redigo, in authsvc", {
          dup: "Use go-redis v9, not redigo, in authsvc",
        }),
      );
      s.tools(
        write(
          `${AUTH}/internal/token/revoke.go`,
          'package token\n\nimport "github.com/redis/go-redis/v9"\n\nfunc Revoke(ctx context.Context, rdb *redis.Client, jti string, ttl time.Duration) error {\n\treturn rdb.Set(ctx, "revoked:"+jti, 1, ttl).Err()\n}',
        ),
      );
      s.say("Revocation list on go-redis v9.");
    },
  },
  {
    id: "t49-authsvc-long-integration",
    cwd: CWD.authsvc,
    style: "long (60+ events), tool errors, interruption, a fact about running the tests",
    start: "2025-10-07T08:00:00.000Z",
    branch: "feat/refresh-rotation",
    run: (s) => {
      s.user("implement refresh token rotation with reuse detection", N("request"));
      s.tools(
        todo([
          "Schema: token families",
          "Rotate on refresh",
          "Detect reuse -> revoke family",
          "Tests",
        ]),
      );
      routine(s, "authsvc", 8);
      s.tools(
        bashErr(
          "go test ./internal/token/... -run Integration",
          "--- FAIL: TestRotateIntegration (0.00s)\n    rotate_test.go:18: dial tcp 127.0.0.1:5432: connect: connection refused",
        ),
      );
      s.say(
        "The integration tests need a database. Maybe they expect a Postgres from a testcontainer.",
        N("hypothesis"),
      );
      s.user(
        "no, integration tests need `docker compose up -d postgres redis` first, they don't start anything themselves",
        D(
          "fact",
          "project",
          "authsvc's integration tests need `docker compose up -d postgres redis` first; they start nothing themselves",
        ),
      );
      routine(s, "authsvc", 8, 1);
      s.say(
        "Rotation works. Now reuse detection: I'll revoke the whole family when a rotated token is presented again, and also log the user out of all devices.",
      );
      s.interrupt();
      s.user("only revoke the family, don't log out other devices", N("request"));
      routine(s, "authsvc", 10, 2);
      s.tools(
        bash(
          "go test ./...",
          "ok  \tgithub.com/acme/authsvc/internal/token\t2.114s\nok  \tgithub.com/acme/authsvc/internal/session\t1.201s",
        ),
      );
      s.say("Reuse revokes only the token family. All tests pass.");
      s.user("open a draft PR", N("request"));
      s.tools(bash("gh pr create --draft --fill", "https://github.com/acme/authsvc/pull/233"));
      s.say("https://github.com/acme/authsvc/pull/233");
    },
  },
  {
    id: "t50-authsvc-hypotheticals",
    cwd: CWD.authsvc,
    style: "nothing durable: user hypotheticals and an agent assumption",
    start: "2025-10-08T13:30:00.000Z",
    run: (s) => {
      s.user("if we ever add SAML we'd probably use crewjam/saml, right?", N("question"));
      s.say("It's the most used Go SAML library; it would fit.");
      s.user("maybe we should move the JWT signing to RS256 at some point", N("hypothesis"));
      s.say(
        "RS256 would let other services verify without the secret. I'll assume main is protected, so I'll prepare it on a branch.",
        N("agent"),
      );
      s.user("not now. what's the current algorithm?", N("question"));
      s.say("HS256 (`jwt.SigningMethodHS256` in `internal/token/issue.go`).");
    },
  },
  {
    id: "t51-authsvc-diff-pref",
    cwd: CWD.authsvc,
    style: "global preference and a one-off in one message",
    start: "2025-10-09T11:00:00.000Z",
    run: (s) => {
      s.user("clean up the unused helpers in internal/util", N("request"));
      s.tools(
        bash(
          "staticcheck ./internal/util/...",
          "internal/util/strings.go:12:6: func padLeft is unused (U1000)\ninternal/util/time.go:30:6: func mustParse is unused (U1000)",
        ),
      );
      s.tools(
        edit(`${AUTH}/internal/util/strings.go`, "func padLeft(", "// removed\nfunc _padLeft("),
      );
      s.say("Removed `padLeft` and `mustParse`.");
      s.user(
        "always show me the diff before you commit anything, in any repo. this time I've seen it, go ahead",
        D("preference", "global", "Show the diff before committing anything"),
        N("one-off"),
      );
      s.tools(
        bash(
          "git commit -am 'util: drop unused helpers'",
          "[main 3c4d5e6] util: drop unused helpers",
        ),
      );
      s.say("Committed.");
    },
  },
  {
    id: "t52-authsvc-internal-token",
    cwd: CWD.authsvc,
    style: "high-entropy token next to a secret-like name; a durable fact around it",
    start: "2025-10-10T15:10:00.000Z",
    run: (s) => {
      const tok = s.secret("hex");
      s.userS(
        `the user-sync job calls the internal API at https://internal.acme.dev/api with INTERNAL_API_TOKEN=${tok}. it gets 403 since this morning`,
        [tok],
        N("request"),
        N("secret"),
        D("fact", "project", "The internal API base URL is https://internal.acme.dev/api", {
          secret: true,
        }),
      );
      s.tools(
        bash(
          "curl -s -o /dev/null -w '%{http_code}' -H \"Authorization: Bearer $INTERNAL_API_TOKEN\" https://internal.acme.dev/api/health",
          "403",
        ),
      );
      s.say(
        "403 with the token from your environment too. The token may have been rotated this morning.",
        N("hypothesis"),
      );
      s.user("yeah it was rotated, I'll get the new one", N("one-off"));
    },
  },
  {
    id: "t53-authsvc-anthropic-team-key",
    cwd: CWD.authsvc,
    style: "an Anthropic key inside a durable rule",
    start: "2025-10-13T09:00:00.000Z",
    run: (s) => {
      const k = s.secret("anthropic");
      s.userS(
        `the eval script for the login-anomaly classifier should always use the team key ${k}, never someone's personal key`,
        [k],
        D(
          "rule",
          "project",
          "The login-anomaly eval script always uses the team's Anthropic key, never a personal key",
          {
            secret: true,
          },
        ),
      );
      s.say(
        "I'll read it from `ANTHROPIC_API_KEY` in the script and document that the team key goes there; I won't write it into the repository.",
      );
      s.tools(
        edit(
          `${AUTH}/scripts/eval_anomaly.py`,
          'client = Anthropic(api_key="")',
          "client = Anthropic()  # ANTHROPIC_API_KEY: the team key",
        ),
      );
      s.user("fine", N("request"));
    },
  },
  {
    id: "t54-authsvc-conventional-commits",
    cwd: CWD.authsvc,
    style: "a global rule stated inside a project session; a project fact",
    start: "2025-10-14T10:00:00.000Z",
    version: "1.0.72",
    run: (s) => {
      s.user("commit the config change", N("request"));
      s.tools(bash("git commit -am 'Change token TTL'", "[main 7a8b9c0] Change token TTL"));
      s.say("Committed as 'Change token TTL'.");
      s.user(
        "amend it: in all my projects I use conventional commits, so feat:/fix:/chore: prefixes",
        N("request"),
        D(
          "rule",
          "global",
          "Use Conventional Commits prefixes (feat:/fix:/chore:) in all projects",
        ),
      );
      s.tools(
        bash(
          "git commit --amend -m 'chore: shorten token TTL'",
          "[main 1b2c3d4] chore: shorten token TTL",
        ),
      );
      s.say("Amended.");
      s.user(
        "authsvc is deployed by Argo CD from the deploy/ folder, so a merge to main is a deploy",
        D(
          "fact",
          "project",
          "authsvc is deployed by Argo CD from the deploy/ folder: a merge to main is a deploy",
        ),
      );
      s.say("Good to know; I'll be careful with merges.");
    },
  },
];

export const TEST: Script[] = [
  ...PAYMENTS,
  ...PIPELINE,
  ...INFRA_S,
  ...TALLY_S,
  ...DASHBOARD,
  ...AUTHSVC,
];
