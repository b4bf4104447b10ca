/**
 * More hand-written sessions: onboarding-style prompts that list several conventions at
 * once, terse and long prompts, pasted logs with a rule at the end (dev and test splits).
 *
 * @module
 */
import { bash, bashErr, D, edit, grep, N, read, write } from "./build.ts";
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

export const DEV_MORE: Script[] = [
  {
    id: "d21-authsvc-onboarding-list",
    cwd: CWD.authsvc,
    style: "onboarding: a numbered list of conventions in one prompt, then work",
    start: "2025-09-29T08:00:00.000Z",
    run: (s) => {
      s.user(
        'First time using you on this repo, so some context:\n1. we target Go 1.22, no generics-heavy abstractions please\n2. errors are wrapped with fmt.Errorf("...: %w", err), never pkg/errors\n3. the service listens on :8443 with TLS locally, certs in ./dev/certs\n4. Maria owns this service, ask her about anything auth-policy related\nnow: add a /healthz endpoint',
        D("fact", "project", "authsvc targets Go 1.22"),
        D("preference", "project", "No generics-heavy abstractions in authsvc"),
        D(
          "rule",
          "project",
          'In authsvc, wrap errors with fmt.Errorf("...: %w", err), never pkg/errors',
        ),
        D(
          "fact",
          "project",
          "authsvc listens on :8443 with TLS locally; dev certs are in ./dev/certs",
        ),
        D("fact", "project", "Maria owns authsvc and decides auth policy questions"),
        N("request"),
      );
      s.tools(
        read(
          `${AUTH}/cmd/authsvc/main.go`,
          'mux := http.NewServeMux()\nmux.HandleFunc("/token", h.Token)',
        ),
        edit(
          `${AUTH}/cmd/authsvc/main.go`,
          'mux.HandleFunc("/token", h.Token)',
          'mux.HandleFunc("/token", h.Token)\n\tmux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })',
        ),
        bash("curl -sk -o /dev/null -w '%{http_code}' https://localhost:8443/healthz", "204"),
      );
      s.say("`/healthz` answers 204.");
      s.user("k thx", N("request"));
    },
  },
  {
    id: "d22-pipeline-pasted-log-rule",
    cwd: CWD.pipeline,
    style: "a long pasted log with a rule at the end; agent statements",
    start: "2025-09-30T06:40:00.000Z",
    run: (s) => {
      s.user(
        'this blew up overnight:\n```\n[2025-09-30, 03:04:12 UTC] {taskinstance.py:2905} ERROR - Task failed with exception\nTraceback (most recent call last):\n  File "/opt/airflow/dags/ingest/orders.py", line 41, in load_orders\n    write_table("analytics.orders", df, mode="merge", key="order_id")\n  File "/opt/airflow/dags/ingest/io.py", line 88, in write_table\n    raise SchemaDrift(diff)\ningest.io.SchemaDrift: new column(s): [\'coupon_code\']\n```\nfix it. and from now on any schema drift gets a migration in sql/migrations, never an automatic ALTER from the loader',
        N("request"),
        D(
          "rule",
          "project",
          "Schema drift gets a migration in sql/migrations, never an automatic ALTER from the loader",
        ),
      );
      s.tools(
        write(
          `${PIPE}/sql/migrations/0019_orders_coupon_code.sql`,
          "alter table analytics.orders add column coupon_code string;",
        ),
        bash("python -m ingest.migrate --target dev", "applied 0019_orders_coupon_code.sql"),
      );
      s.say(
        "Added migration 0019 for `coupon_code` and applied it to dev. The vendor seems to add columns every few weeks; perhaps a weekly schema check would catch it earlier.",
        N("hypothesis"),
      );
      s.user("rerun the task", N("request"));
      s.tools(
        bash(
          "airflow tasks clear orders_daily -t load -s 2025-09-29 -e 2025-09-29 -y",
          "Cleared 1 task instance",
        ),
      );
      s.say("Cleared; the scheduler will rerun it.");
    },
  },
  {
    id: "d23-tally-terse",
    cwd: CWD.tally,
    style: "terse lowercase prompts with typos; one durable preference",
    start: "2025-10-01T22:10:00.000Z",
    run: (s) => {
      s.user("fix clippy", N("request"));
      s.tools(
        bashErr(
          "cargo clippy -- -D warnings",
          "error: this `if` has identical blocks\n  --> src/report.rs:41:9",
        ),
        edit(
          `${TALLY}/src/report.rs`,
          'if period == "week" { 7 } else { 7 }',
          'if period == "week" { 7 } else { 30 }',
        ),
      );
      s.say("Fixed the identical branches (month used 7 days).");
      s.user(
        "ty. dont explain the fix unless i ask, just say done",
        D("preference", "global", "Don't explain fixes unless asked; just say it's done"),
      );
      s.say("Done.");
      s.user("tests?", N("question"));
      s.tools(bash("cargo test -q", "test result: ok. 25 passed; 0 failed"));
      s.say("Pass.");
    },
  },
  {
    id: "d24-infra-secret-in-rule",
    cwd: CWD.infra,
    style: "GitLab token and AWS key in prompts; one durable rule carrying a secret",
    start: "2025-10-02T07:30:00.000Z",
    run: (s) => {
      const gl = s.secret("gitlab");
      s.userS(
        `the module registry is on our gitlab, the CI token is ${gl}, always pull modules through the registry, never via git:: urls`,
        [gl],
        D(
          "rule",
          "project",
          "Pull Terraform modules through the GitLab module registry, never via git:: URLs",
          { secret: true },
        ),
      );
      s.tools(grep("git::", ["envs/staging/main.tf", "envs/prod/main.tf"]));
      s.say("Two modules still use `git::` sources. Switch them to the registry?");
      s.user("yes", N("request"));
      s.tools(
        edit(
          `${INFRA}/envs/staging/main.tf`,
          'source = "git::https://gitlab.acme.dev/infra/modules.git//vpc?ref=v3.2.0"',
          'source  = "gitlab.acme.dev/infra/vpc/aws"\n  version = "3.2.0"',
        ),
      );
      s.say("Switched both.");
    },
  },
];

export const TEST_MORE: Script[] = [
  {
    id: "t55-payments-onboarding",
    cwd: CWD.payments,
    style: "onboarding list of conventions with a request at the end",
    start: "2025-10-14T08:00:00.000Z",
    run: (s) => {
      s.user(
        "hi, quick brief before we start:\n- Node 20 LTS only, don't use APIs from 22\n- logging goes through src/lib/log.ts (pino), no console.log in src/\n- Dana is the tech lead, Maria owns billing, Kofi owns the webhooks code\n- every new endpoint needs an entry in openapi/public.yaml\nfirst task: add GET /payouts/:id",
        D("rule", "project", "payments-api targets Node 20 LTS: don't use Node 22 APIs"),
        D(
          "rule",
          "project",
          "Logging in payments-api goes through src/lib/log.ts (pino); no console.log in src/",
        ),
        D("fact", "project", "Dana is the payments-api tech lead"),
        D("fact", "project", "Kofi owns the webhooks code in payments-api"),
        D(
          "rule",
          "project",
          "Every new payments-api endpoint needs an entry in openapi/public.yaml",
        ),
        N("request"),
      );
      s.tools(
        write(
          `${PAY}/src/routes/payouts.ts`,
          'app.get("/payouts/:id", async (req, reply) => {\n  const p = await db.payout.find(req.params.id);\n  return p ?? reply.code(404).send({ error: "payout not found" });\n});',
        ),
        edit(
          `${PAY}/openapi/public.yaml`,
          "paths:\n",
          "paths:\n  /payouts/{id}:\n    get:\n      summary: Get a payout\n",
        ),
      );
      s.say("Added `GET /payouts/:id` and its OpenAPI entry.");
      s.user("Maria's billing stuff is out of scope here, right?", N("question"));
      s.say("Yes; payouts don't touch billing.");
    },
  },
  {
    id: "t56-payments-terse-mixed",
    cwd: CWD.payments,
    style: "terse prompts; an owner fact and a one-off in passing",
    start: "2025-10-14T13:00:00.000Z",
    run: (s) => {
      s.user("lint", N("request"));
      s.tools(
        bash(
          "pnpm lint",
          "src/routes/payouts.ts\n  3:9  error  'p' is never reassigned. Use 'const' instead  prefer-const",
        ),
      );
      s.say("One `prefer-const` error in payouts.ts.");
      s.user("fix. dont bother with a test", N("request"), N("one-off"));
      s.tools(edit(`${PAY}/src/routes/payouts.ts`, "let p =", "const p ="));
      s.say("Fixed.");
      s.user(
        "fyi prod deploys of payments-api need a sign-off from Kofi in #payments-deploys",
        D(
          "rule",
          "project",
          "Production deploys of payments-api need Kofi's sign-off in #payments-deploys",
        ),
      );
      s.say("Noted.");
    },
  },
  {
    id: "t57-pipeline-onboarding-facts",
    cwd: CWD.pipeline,
    style: "a long prompt with several setup facts and a preference",
    start: "2025-10-14T07:00:00.000Z",
    run: (s) => {
      s.userBlocks(
        [
          "Context for this repo, since you keep asking:",
          "- the Airflow UI is at http://localhost:8081 in the dev compose (8080 is taken by the API)\n- the warehouse is BigQuery, project acme-data, datasets raw, staging, analytics\n- `make dev-up` starts everything locally\n- I'd rather you run single test files than the whole suite while iterating",
          "Now: the customers model is missing the country column.",
        ],
        D("fact", "project", "The dev Airflow UI is at http://localhost:8081 (8080 is the API)"),
        D(
          "fact",
          "project",
          "The warehouse is BigQuery project acme-data with datasets raw, staging and analytics",
        ),
        D("fact", "project", "`make dev-up` starts the ingest pipeline's services locally"),
        D(
          "preference",
          "project",
          "While iterating, run single test files rather than the whole suite",
        ),
        N("request"),
      );
      s.tools(
        edit(`${PIPE}/models/staging/stg_customers.sql`, "    email,", "    email,\n    country,"),
        bash("pytest tests/models/test_stg_customers.py -q", "3 passed in 0.91s"),
      );
      s.say("Added `country` to `stg_customers`; its test file passes.");
    },
  },
  {
    id: "t58-pipeline-confirm-reject",
    cwd: CWD.pipeline,
    style: "two agent statements: one confirmed, one rejected",
    start: "2025-10-15T09:30:00.000Z",
    run: (s) => {
      s.user("why does dbt build take 20 minutes now?", N("question"));
      routine(s, "pipeline", 2, 1);
      s.say(
        "The `analytics.sessions` model is materialised as a full table every run. Incremental would cut it down. The team seems to prefer incremental models for anything over 100M rows; is that the convention?",
      );
      s.confirm(
        "yes, that's our convention: incremental for anything over 100M rows",
        "rule",
        "project",
        "dbt models over 100M rows are materialised incrementally",
      );
      s.tools(
        edit(
          `${PIPE}/models/marts/sessions.sql`,
          "{{ config(materialized='table') }}",
          "{{ config(materialized='incremental', unique_key='session_id') }}",
        ),
      );
      s.say(
        "Made `sessions` incremental. I think the nightly full refresh runs on Sundays.",
        N("agent"),
      );
      s.user("no idea honestly, doesn't matter", N("one-off"));
    },
  },
  {
    id: "t59-infra-onboarding-runbook",
    cwd: CWD.infra,
    style: "facts and rules from a runbook pasted by the user",
    start: "2025-10-14T11:00:00.000Z",
    run: (s) => {
      s.user(
        "here's the gist of our infra runbook so you stop guessing:\n* all infra changes go through a PR with a plan comment from Atlantis\n* the VPN is required for kubectl against prod (wireguard profile acme-prod)\n* Sam is the infra owner, backups are owned by Priya\nnow, add a read-only role for the analytics team",
        D("rule", "project", "All infra changes go through a PR with an Atlantis plan comment"),
        D("fact", "project", "kubectl against prod needs the VPN (WireGuard profile acme-prod)"),
        D("fact", "project", "Sam owns the infrastructure; Priya owns backups"),
        N("request"),
      );
      s.tools(
        write(
          `${INFRA}/modules/iam/analytics_readonly.tf`,
          'resource "aws_iam_role" "analytics_readonly" {\n  name               = "analytics-readonly"\n  assume_role_policy = data.aws_iam_policy_document.analytics_assume.json\n}',
        ),
      );
      s.say("Added the `analytics-readonly` role with ReadOnlyAccess on the analytics account.");
      s.user(
        "also note we chose WireGuard over OpenVPN for the VPN because the OpenVPN mobile clients kept dropping",
        D(
          "decision",
          "project",
          "The VPN is WireGuard rather than OpenVPN, because OpenVPN's mobile clients kept dropping",
        ),
      );
      s.say("Noted.");
    },
  },
  {
    id: "t60-infra-long-incident",
    cwd: CWD.infra,
    style: "long incident session (60+ events), agent hypotheses, a durable decision at the end",
    start: "2025-10-15T02:10:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user("prod api latency is spiking, help", N("request"));
      routine(s, "infra", 8);
      s.say(
        "CPU on the node group is at 95%. Possibly a noisy neighbour from the batch jobs.",
        N("hypothesis"),
      );
      s.user("check the batch namespace", N("request"));
      routine(s, "infra", 8, 1);
      s.say(
        "The nightly reindex job landed on the api nodes; it has no node selector.",
        N("agent"),
      );
      s.user("move it off now", N("request"));
      s.tools(
        bash(
          'kubectl -n batch patch cronjob reindex -p \'{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"nodeSelector":{"pool":"batch"}}}}}}}\'',
          "cronjob.batch/reindex patched",
        ),
      );
      routine(s, "infra", 8, 2);
      s.say("Latency is back under 120 ms p99.");
      s.user(
        "ok. decision for the postmortem: batch jobs always run on the dedicated batch node pool, enforced with a taint, because the reindex starved the api tonight",
        D(
          "decision",
          "project",
          "Batch jobs run only on the dedicated batch node pool, enforced with a taint, because a reindex job starved the API",
        ),
      );
      routine(s, "infra", 4, 3);
      s.tools(
        edit(
          `${INFRA}/modules/eks/nodegroups.tf`,
          '  labels = { pool = "batch" }',
          '  labels = { pool = "batch" }\n  taint {\n    key    = "pool"\n    value  = "batch"\n    effect = "NO_SCHEDULE"\n  }',
        ),
      );
      s.say("Taint added to the batch pool in Terraform.");
    },
  },
  {
    id: "t61-tally-onboarding-contrib",
    cwd: CWD.tally,
    style: "contribution conventions listed at once; a request",
    start: "2025-10-14T19:00:00.000Z",
    run: (s) => {
      s.user(
        "conventions here: rustfmt default config, clippy pedantic must be clean, every user-facing change gets a CHANGELOG line under Unreleased, and no unsafe code at all. now add `tally undo` to remove the last entry",
        D("rule", "project", "tally's code must be clean under clippy pedantic"),
        D(
          "rule",
          "project",
          "Every user-facing change to tally gets a CHANGELOG line under Unreleased",
        ),
        D("rule", "project", "No unsafe code in tally"),
        D("fact", "project", "tally uses rustfmt's default configuration"),
        N("request"),
      );
      routine(s, "tally", 2);
      s.tools(
        edit(
          `${TALLY}/CHANGELOG.md`,
          "## Unreleased\n",
          "## Unreleased\n\n- `tally undo` removes the last entry\n",
        ),
      );
      s.say("Added `tally undo` and a CHANGELOG line.");
    },
  },
  {
    id: "t62-tally-openai-legacy",
    cwd: CWD.tally,
    style: "an OpenAI key in a one-off; nothing durable",
    start: "2025-10-15T20:00:00.000Z",
    run: (s) => {
      const k = s.secret("openaiLegacy");
      s.userS(
        `try the categorise experiment with my key ${k}, just once, I'll revoke it after`,
        [k],
        N("one-off"),
        N("secret"),
      );
      s.say(
        "I'd rather not run it with a key pasted in chat. Export it as `OPENAI_API_KEY` in your shell and I'll run `cargo run --example categorise`.",
      );
      s.user("ok exported", N("request"));
      s.tools(bash("cargo run -q --example categorise", "groceries 0.91\ntransport 0.88"));
      s.say("Ran: groceries 0.91, transport 0.88.");
    },
  },
  {
    id: "t63-dashboard-onboarding",
    cwd: CWD.dashboard,
    style: "conventions in content blocks; a question",
    start: "2025-10-14T09:00:00.000Z",
    run: (s) => {
      s.userBlocks(
        [
          "Before you touch the dashboard:",
          "1) Tailwind only, no CSS modules or styled-components\n2) all API calls go through src/api/client.ts, never fetch() in components\n3) the staging dashboard is https://dash.staging.acme.dev and uses the staging API",
        ],
        D(
          "rule",
          "project",
          "dashboard-web styles with Tailwind only: no CSS modules or styled-components",
        ),
        D(
          "rule",
          "project",
          "All API calls in dashboard-web go through src/api/client.ts, never fetch() in components",
        ),
        D(
          "fact",
          "project",
          "The staging dashboard is https://dash.staging.acme.dev and uses the staging API",
        ),
      );
      s.say("Understood.");
      s.userBlocks(["Where do we fetch in components today?"], N("question"));
      s.tools(grep("fetch\\(", ["src/components/RevenueChart.tsx", "src/api/client.ts"]));
      s.say(
        "Only `RevenueChart.tsx` calls `fetch` directly (through `fetchRevenue` defined in the same file).",
      );
      s.userBlocks(["Move it into the client."], N("request"));
      s.tools(
        edit(
          `${DASH}/src/components/RevenueChart.tsx`,
          "queryFn: () => fetchRevenue(range)",
          "queryFn: () => api.revenue(range)",
        ),
      );
      s.say("Moved.");
    },
  },
  {
    id: "t64-dashboard-aws-in-rule",
    cwd: CWD.dashboard,
    style: "AWS keys in a durable statement about deployments",
    start: "2025-10-15T12:00:00.000Z",
    run: (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `the static site deploy uses the deploy user's keys (${id} / ${sec}); the bucket is dash-prod-static and we always invalidate CloudFront after uploading`,
        [id, sec],
        D(
          "fact",
          "project",
          "The dashboard's static site is deployed to the bucket dash-prod-static",
          { secret: true },
        ),
        D(
          "rule",
          "project",
          "Always invalidate CloudFront after uploading the dashboard's static site",
          { secret: true },
        ),
      );
      s.say(
        "Noted. I'll keep the keys out of files; the workflow should read them from its secrets.",
      );
      s.user("add the invalidation step to the workflow", N("request"));
      s.tools(
        edit(
          `${DASH}/.github/workflows/deploy.yml`,
          "      - run: aws s3 sync dist s3://dash-prod-static --delete",
          "      - run: aws s3 sync dist s3://dash-prod-static --delete\n      - run: aws cloudfront create-invalidation --distribution-id ${{ vars.CF_DIST }} --paths '/*'",
        ),
      );
      s.say("Added.");
    },
  },
  {
    id: "t65-authsvc-review-prefs",
    cwd: CWD.authsvc,
    style: "review preferences; a correction of the agent",
    start: "2025-10-14T15:00:00.000Z",
    run: (s) => {
      s.user("review my last commit", N("request"));
      s.tools(
        bash(
          "git show --stat HEAD",
          "commit 9d8c7b6\n    session: store user agent\n internal/session/store.go | 12 ++++++++----",
        ),
      );
      s.say(
        "Looks fine overall. Nit: consider renaming `ua` to `userAgent`. Nit: the comment on line 40 is outdated. Nit: you could use `strings.Cut`.",
      );
      s.user(
        "in reviews, skip the nits and only flag bugs, security issues and missing tests. that's how I want reviews everywhere",
        D(
          "preference",
          "global",
          "In code reviews, skip nits: flag only bugs, security issues and missing tests",
        ),
      );
      s.say(
        "Then: no bugs; the user agent isn't length-limited before it goes into Redis (up to 8 KB per session).",
      );
      s.user("good catch, cap it at 512 bytes", N("request"));
      s.tools(
        edit(
          `${AUTH}/internal/session/store.go`,
          "s.UserAgent = ua",
          "s.UserAgent = truncate(ua, 512)",
        ),
      );
      s.say("Capped.");
    },
  },
  {
    id: "t66-authsvc-stripe-webhook",
    cwd: CWD.authsvc,
    style: "a Stripe live key and a webhook secret assignment; a rule without the secret",
    start: "2025-10-15T16:00:00.000Z",
    run: (s) => {
      const k = s.secret("stripe");
      const whsec = "whsec_" + s.secret("hex").slice(0, 32);
      s.userS(
        `billing sync in authsvc needs STRIPE_SECRET_KEY=${k} and STRIPE_WEBHOOK_SECRET=${whsec}. never log the stripe payloads, they contain customer emails`,
        [k, whsec],
        N("secret"),
        D("rule", "project", "Never log Stripe payloads in authsvc (they contain customer emails)"),
      );
      s.say("I'll read both from the environment and keep payloads out of the logs.");
      s.tools(
        grep("log.*payload", ["internal/billing/webhook.go"]),
        edit(
          `${AUTH}/internal/billing/webhook.go`,
          '\tlog.Printf("stripe payload: %s", body)\n',
          "",
        ),
      );
      s.say("Removed the one place that logged the payload.");
    },
  },
  {
    id: "t67-payments-multi-rule-correction",
    cwd: CWD.payments,
    style: "several corrections over a session; one scoped to this PR only",
    start: "2025-10-15T10:00:00.000Z",
    branch: "feat/payout-batches",
    run: (s) => {
      s.user(
        "batch payouts: group pending payouts per account and send one transfer",
        N("request"),
      );
      routine(s, "payments", 3);
      s.tools(
        write(
          `${PAY}/src/payouts/batch.ts`,
          "export async function batch() {\n  const pending = await db.payout.pending();\n  for (const p of pending) await processor.transfer(p);\n}",
        ),
      );
      s.say("First draft sends one transfer per payout; grouping next.");
      s.user(
        "wrap the whole batch in a DB transaction, and in general any code that moves money must run inside a transaction",
        N("request"),
        D(
          "rule",
          "project",
          "Any payments-api code that moves money runs inside a database transaction",
        ),
      );
      s.tools(
        edit(
          `${PAY}/src/payouts/batch.ts`,
          "  const pending = await db.payout.pending();",
          "  await db.tx(async (tx) => {\n  const pending = await tx.payout.pending();",
        ),
      );
      s.say("Wrapped in `db.tx`.");
      s.user(
        "for this PR only, skip the migration for the batch table, I'll add it in a follow-up",
        N("one-off"),
      );
      s.say("OK, the code uses the existing payouts table for now.");
      s.user(
        "tests for money code use the real test database, no in-memory fakes, we've been bitten",
        D(
          "rule",
          "project",
          "Tests of payments-api money code use the real test database, no in-memory fakes",
        ),
      );
      routine(s, "payments", 2, 2);
      s.say("The batch test runs against the test database; passes.");
    },
  },
  {
    id: "t68-pipeline-global-and-secret-url",
    cwd: CWD.pipeline,
    style: "a password inside a URL in a durable fact; a global preference",
    start: "2025-10-15T14:30:00.000Z",
    run: (s) => {
      const pw = s.secret("password");
      s.userS(
        `the legacy mysql source is mysql://reader:${pw}@legacy-db.acme.internal:3306/shop, it's read-only and only reachable from the airflow workers`,
        [pw],
        D(
          "fact",
          "project",
          "The legacy MySQL source (legacy-db.acme.internal:3306/shop) is read-only and reachable only from the Airflow workers",
          {
            secret: true,
          },
        ),
      );
      s.say(
        "Noted. I'll reference it as an Airflow connection (`legacy_mysql`) rather than a URL in code.",
      );
      s.user(
        "good. and a general thing: when you propose a plan, give me at most 5 steps",
        D("preference", "global", "Plans have at most 5 steps"),
      );
      s.say("Understood.");
      s.user("create the connection placeholder in the dev compose", N("request"));
      s.tools(
        edit(
          `${PIPE}/docker-compose.dev.yml`,
          "      AIRFLOW_CONN_WAREHOUSE: ${WAREHOUSE_URL}",
          "      AIRFLOW_CONN_WAREHOUSE: ${WAREHOUSE_URL}\n      AIRFLOW_CONN_LEGACY_MYSQL: ${LEGACY_MYSQL_URL}",
        ),
      );
      s.say("Added `AIRFLOW_CONN_LEGACY_MYSQL` read from `LEGACY_MYSQL_URL`.");
    },
  },
];
