/**
 * Hand-written sessions of the capture benchmark's dev split (the extractor's author may
 * read these to tune; the test split is frozen and reported).
 *
 * @module
 */
import { bash, bashErr, D, edit, grep, N, read, type Session, todo, write } from "./build.ts";
import { CWD, routine } from "./projects.ts";

/** A session: its spec and the script that fills it. */
export interface Script {
  id: string;
  cwd: string;
  style: string;
  start: string;
  stored?: string[];
  version?: string;
  model?: string;
  branch?: string;
  run: (s: Session) => void;
}

export const DEV: Script[] = [
  {
    id: "d01-payments-pnpm",
    cwd: CWD.payments,
    style: "short, plain-string prompts, a rule stated mid-request",
    start: "2025-09-02T08:14:03.000Z",
    run: (s) => {
      s.user(
        "the refunds test is failing on CI, can you take a look?",
        N("request"),
      );
      routine(s, "payments", 3);
      s.say(
        "The failing case is `refunds › rejects a refund larger than the charge`: the handler returns 500 because `RefundBody` allows any positive amount and the DB constraint fires. I'll validate the amount against the charge before inserting.",
      );
      s.user(
        "ok do it. and from now on use pnpm for everything in this repo, npm keeps rewriting the lockfile",
        N("request"),
        D("rule", "project", "Use pnpm, not npm, in this repo (npm rewrites the lockfile)"),
      );
      s.tools(
        edit(
          "/home/dana/src/payments-api/src/routes/refunds.ts",
          "    return db.refund.create({ chargeId: charge.id, amount: body.amount });",
          '    if (body.amount > charge.amount - charge.refunded) {\n      return reply.code(422).send({ error: "amount exceeds refundable balance" });\n    }\n    return db.refund.create({ chargeId: charge.id, amount: body.amount });',
        ),
        bash(
          "pnpm test -- refunds",
          " ✓ test/refunds.test.ts (9 tests) 398ms\n\n Test Files  1 passed (1)\n      Tests  9 passed (9)",
        ),
      );
      s.say(
        "Fixed: the handler now answers 422 for an amount above the refundable balance. All 9 refund tests pass with `pnpm test`.",
      );
      s.user("thanks", N("request"));
    },
  },
  {
    id: "d02-pipeline-mock-db",
    cwd: CWD.pipeline,
    style: "medium, correction after the agent mocks the warehouse",
    start: "2025-09-03T13:40:00.000Z",
    run: (s) => {
      s.user(
        "add a test for load_orders that checks duplicates are dropped",
        N("request"),
      );
      s.tools(
        read(
          "/home/raj/work/ingest-pipeline/ingest/orders.py",
          'def load_orders(df):\n    df = df.drop_duplicates(subset=["order_id"])\n    write_table("analytics.orders", df, mode="merge", key="order_id")',
        ),
        write(
          "/home/raj/work/ingest-pipeline/tests/test_load_orders.py",
          'from unittest.mock import patch\n\nfrom ingest.orders import load_orders\n\n\n@patch("ingest.orders.write_table")\ndef test_drops_duplicates(write_table, orders_df):\n    load_orders(orders_df)\n    written = write_table.call_args.args[1]\n    assert written.order_id.is_unique',
        ),
      );
      s.say(
        "I added `tests/test_load_orders.py`, which patches `write_table` and checks that the frame handed to it has unique order ids.",
      );
      s.user(
        "no, don't mock the warehouse in these tests. we got burned last quarter when the mocked merge passed and the real MERGE statement failed. use the duckdb fixture in conftest instead",
        D(
          "rule",
          "project",
          "Don't mock the warehouse in the pipeline tests; use the duckdb fixture from conftest (a mocked merge once hid a failing MERGE)",
        ),
      );
      s.tools(
        read(
          "/home/raj/work/ingest-pipeline/tests/conftest.py",
          'import duckdb\nimport pytest\n\n\n@pytest.fixture\ndef warehouse(tmp_path):\n    con = duckdb.connect(str(tmp_path / "wh.duckdb"))\n    con.execute(open("sql/schema.sql").read())\n    yield con\n    con.close()',
        ),
        write(
          "/home/raj/work/ingest-pipeline/tests/test_load_orders.py",
          'from ingest.orders import load_orders\n\n\ndef test_drops_duplicates(warehouse, orders_df):\n    load_orders(orders_df, con=warehouse)\n    n, distinct = warehouse.execute("select count(*), count(distinct order_id) from analytics.orders").fetchone()\n    assert n == distinct',
        ),
        bash(
          "pytest tests/test_load_orders.py -q",
          ".                                                                        [100%]\n1 passed in 0.84s",
        ),
      );
      s.say("Rewritten against the `warehouse` duckdb fixture; it runs the real MERGE and passes.");
      s.user("good. does load_orders get called anywhere besides the dag?", N("question"));
      s.tools(
        grep("load_orders", [
          "dags/orders_daily.py",
          "ingest/orders.py",
          "tests/test_load_orders.py",
          "scripts/backfill.py",
        ]),
      );
      s.say("Yes: `scripts/backfill.py` calls it too, in a loop over dates.");
    },
  },
  {
    id: "d03-infra-deploy-day-confirmed",
    cwd: CWD.infra,
    style: "agent statement confirmed by the user; another left unconfirmed",
    start: "2025-09-04T09:02:11.000Z",
    version: "1.0.98",
    model: "claude-opus-4-1-20250805",
    run: (s) => {
      s.user(
        "I need to bump the staging RDS storage to 200GB, can you prep the change",
        N("request"),
      );
      routine(s, "infra", 2);
      s.say(
        "The plan changes only `aws_db_instance.main` in place (100 → 200 GB). Since the last three production applies in the git log all happened on a Tuesday, I assume you deploy infra changes to production on Tuesdays, so I'll leave prod for then. Is that right?",
      );
      s.confirm(
        "yes that's right, prod infra changes only go out on Tuesdays",
        "rule",
        "project",
        "Production infra changes are deployed only on Tuesdays",
      );
      s.say(
        "Understood. I've also noticed that the staging plan is slow; maybe the remote state lock table is under-provisioned.",
        N("hypothesis"),
      );
      s.user("apply it to staging", N("request"));
      s.tools(
        bash(
          "terraform -chdir=envs/staging apply -auto-approve -no-color | tail -3",
          "aws_db_instance.main: Modifications complete after 4m12s [id=staging-main]\n\nApply complete! Resources: 0 added, 1 changed, 0 destroyed.",
        ),
      );
      s.say("Applied to staging. The instance is now 200 GB.");
    },
  },
  {
    id: "d04-global-prefs-brief",
    cwd: CWD.tally,
    style: "short, personal preferences (global scope)",
    start: "2025-09-05T19:22:45.000Z",
    run: (s) => {
      s.user("what does the --tag flag do in tally add?", N("question"));
      s.tools(
        read(
          "/home/lee/code/tally/src/cli.rs",
          "    Add { amount: String, #[arg(long)] tag: Vec<String> },",
        ),
      );
      s.say(
        "`--tag` attaches one or more labels to the entry (`tally add 12.50 --tag food --tag lunch`). `report` groups totals by tag. The values are stored as-is, without normalising case, so `Food` and `food` are reported as two different tags, which may not be what you want. If it helps, I can also walk through how the report aggregation is implemented and suggest a few refactors.",
      );
      s.user(
        "answer briefly please, I don't need the extra offers at the end. that goes for everything, not just this repo",
        D("preference", "global", "Answer briefly, without offers of further help at the end"),
      );
      s.say("Understood.");
      s.user("lowercase the tags on insert", N("request"));
      s.tools(
        edit(
          "/home/lee/code/tally/src/store.rs",
          "        tags: tags.clone(),",
          "        tags: tags.iter().map(|t| t.to_lowercase()).collect(),",
        ),
        bash(
          "cargo test -q",
          "running 23 tests\n.......................\ntest result: ok. 23 passed; 0 failed",
        ),
      );
      s.say("Done; tags are lowercased on insert. Tests pass.");
    },
  },
  {
    id: "d05-payments-decision-postgres",
    cwd: CWD.payments,
    style: "design discussion, decision with its reason, content-block prompts",
    start: "2025-09-08T10:05:00.000Z",
    run: (s) => {
      s.userBlocks(
        [
          "We need somewhere to keep the ledger entries for payouts. Mongo is already running for the notifications service. Thoughts?",
        ],
        N("question"),
      );
      s.say(
        "Two options:\n\n**A. MongoDB** (already operated): flexible documents, but multi-document transactions need a replica set and are easy to misuse.\n\n**B. Postgres** (the payments DB): a payout and its ledger entries can be written in one transaction, with foreign keys to charges.\n\nFor money movement I'd lean to B.",
      );
      s.userBlocks(
        [
          "Agreed. We chose Postgres over Mongo for the ledger because payouts need real transactions across the payout and its entries. Write that down in docs/adr too.",
        ],
        D(
          "decision",
          "project",
          "The payouts ledger lives in Postgres, not Mongo, because payouts need transactions across the payout and its entries",
        ),
        N("request"),
      );
      s.tools(
        write(
          "/home/dana/src/payments-api/docs/adr/0007-ledger-in-postgres.md",
          "# 7. The payouts ledger lives in Postgres\n\nStatus: accepted\n\n## Context\nPayouts write a payout row and several ledger entries.\n\n## Decision\nPostgres, in the payments database, in one transaction.\n\n## Consequences\nNo new datastore to run; ledger queries join charges directly.",
        ),
      );
      s.say("Written as ADR 0007.");
      s.userBlocks(
        ["The migrations for it go in db/migrations, numbered, and we run them with `pnpm db:migrate`. Create the table."],
        D(
          "fact",
          "project",
          "Migrations live in db/migrations, numbered, and are run with `pnpm db:migrate`",
        ),
        N("request"),
      );
      s.tools(
        write(
          "/home/dana/src/payments-api/db/migrations/0031_ledger_entries.sql",
          "create table ledger_entries (\n  id bigserial primary key,\n  payout_id bigint not null references payouts(id),\n  account text not null,\n  amount_cents bigint not null,\n  created_at timestamptz not null default now()\n);\ncreate index on ledger_entries (payout_id);",
        ),
        bash(
          "pnpm db:migrate",
          "> payments-api@2.4.1 db:migrate\n> node scripts/migrate.mjs\n\napplied 0031_ledger_entries.sql",
        ),
      );
      s.say("Migration 0031 created and applied locally.");
    },
  },
  {
    id: "d06-dashboard-secret-env",
    cwd: CWD.dashboard,
    style: "secrets pasted by the user; one inside an otherwise durable statement",
    start: "2025-09-09T15:31:09.000Z",
    run: (s) => {
      const stripe = s.secret("stripeRestricted");
      s.userS(
        `the revenue page shows nothing locally. here's my .env.local:\nVITE_API_URL=http://localhost:4000\nSTRIPE_KEY=${stripe}\ncan you see what's wrong?`,
        [stripe],
        N("request"),
        N("secret"),
      );
      routine(s, "dashboard", 2);
      s.say(
        "`VITE_API_URL` points at port 4000 but the API's dev server listens on 3001 (see `payments-api/.env.example`). Also: a live Stripe key should not be in the dashboard's env at all; the browser bundle would ship it.",
      );
      s.user(
        "right, the api runs on 3001 locally, always. fix the env example",
        D("fact", "project", "The payments API dev server listens on port 3001 locally"),
        N("request"),
      );
      s.tools(
        edit(
          "/home/dana/src/dashboard-web/.env.example",
          "VITE_API_URL=http://localhost:4000",
          "VITE_API_URL=http://localhost:3001",
        ),
      );
      s.say("`.env.example` now points at 3001.");
      const gh = s.secret("github");
      s.userS(
        `for the preview deploys, the token is ${gh} and CI should always use that one for the preview workflow`,
        [gh],
        D(
          "rule",
          "project",
          "CI's preview workflow always uses the dedicated preview deploy token (kept as a CI secret)",
          { secret: true },
        ),
      );
      s.say(
        "I won't put that token in the repository. I've referenced it as `secrets.PREVIEW_DEPLOY_TOKEN` in `.github/workflows/preview.yml`; add it under the repository's Actions secrets.",
      );
      s.tools(
        edit(
          "/home/dana/src/dashboard-web/.github/workflows/preview.yml",
          "          token: ${{ github.token }}",
          "          token: ${{ secrets.PREVIEW_DEPLOY_TOKEN }}",
        ),
      );
      s.user("done, added it", N("request"));
    },
  },
  {
    id: "d07-authsvc-one-offs",
    cwd: CWD.authsvc,
    style: "one-off instructions that look like rules",
    start: "2025-09-10T11:11:11.000Z",
    run: (s) => {
      s.user(
        "rotate the session cookie name to __Host-sid, and for this PR skip the changelog, I'll write it at release time",
        N("request"),
        N("one-off"),
      );
      s.tools(
        grep('"sid"', ["internal/session/cookie.go", "internal/session/cookie_test.go"]),
        edit(
          "/home/maria/go/src/github.com/acme/authsvc/internal/session/cookie.go",
          'const cookieName = "sid"',
          'const cookieName = "__Host-sid"',
        ),
        edit(
          "/home/maria/go/src/github.com/acme/authsvc/internal/session/cookie_test.go",
          'if c.Name != "sid" {',
          'if c.Name != "__Host-sid" {',
        ),
      );
      s.say(
        "Renamed. Note that `__Host-` cookies require `Secure`, `Path=/` and no `Domain`; the cookie already sets the first two, and I removed `Domain`.",
      );
      s.user("don't run the full test suite this time, just the session package", N("one-off"));
      s.tools(
        bash(
          "go test ./internal/session/...",
          "ok  \tgithub.com/acme/authsvc/internal/session\t1.102s",
        ),
      );
      s.say("Session package tests pass.");
      s.user("commit it as 'session: __Host- cookie prefix'", N("request"));
      s.tools(
        bash(
          "git commit -am 'session: __Host- cookie prefix'",
          "[feat/host-cookie 4d2e9a1] session: __Host- cookie prefix\n 2 files changed, 3 insertions(+), 4 deletions(-)",
        ),
      );
      s.say("Committed as 4d2e9a1.");
    },
  },
  {
    id: "d08-pipeline-duplicate-stored",
    cwd: CWD.pipeline,
    style: "repeats stored memories (duplicates) and adds one new fact",
    start: "2025-09-11T07:45:30.000Z",
    stored: [
      "Don't mock the warehouse in the pipeline tests; use the duckdb fixture from conftest",
      "The orders_daily DAG runs at 03:00 UTC",
      "Raj owns the ingest pipeline",
    ],
    run: (s) => {
      s.user(
        "the orders_daily dag failed last night. reminder: it runs at 3am UTC, so anything after that is the retry",
        N("request"),
        D("fact", "project", "The orders_daily DAG runs at 03:00 UTC", {
          dup: "The orders_daily DAG runs at 03:00 UTC",
        }),
      );
      s.tools(
        bashErr(
          "airflow tasks logs orders_daily load 2025-09-10 | tail -5",
          "google.api_core.exceptions.BadRequest: 400 Query error: Column order_ts of type STRING cannot be compared with TIMESTAMP at [14:9]\n[2025-09-11, 03:07:41 UTC] {taskinstance.py:1400} INFO - Marking task as FAILED.",
        ),
      );
      s.say(
        "The load failed on a type mismatch: `order_ts` arrived as a STRING. Perhaps the upstream export changed its schema yesterday.",
        N("hypothesis"),
      );
      s.user(
        "yeah the vendor changed it. cast it in the staging model. and again, no mocking the warehouse in the test for this, use the duckdb fixture",
        N("request"),
        D(
          "rule",
          "project",
          "Don't mock the warehouse in the pipeline tests; use the duckdb fixture",
          {
            dup:
              "Don't mock the warehouse in the pipeline tests; use the duckdb fixture from conftest",
          },
        ),
      );
      s.tools(
        edit(
          "/home/raj/work/ingest-pipeline/models/staging/stg_orders.sql",
          "    order_ts,",
          "    cast(order_ts as timestamp) as order_ts,",
        ),
        bash(
          "pytest tests/test_stg_orders.py -q",
          "..                                                                       [100%]\n2 passed in 1.02s",
        ),
      );
      s.say(
        "Cast added in `stg_orders`; a test with a string timestamp passes against the duckdb fixture.",
      );
      s.user(
        "the vendor's export lands in gs://acme-raw/vendor_orders/ by 02:30 UTC, good to know for the sensor",
        D(
          "fact",
          "project",
          "The vendor's orders export lands in gs://acme-raw/vendor_orders/ by 02:30 UTC",
        ),
      );
      s.say("Noted; a GCS sensor on that prefix with a 02:30 UTC window would fit.");
    },
  },
  {
    id: "d09-dashboard-contradict-npm",
    cwd: CWD.dashboard,
    style: "contradicts a stored memory (package manager switch)",
    start: "2025-09-12T14:00:00.000Z",
    stored: [
      "Use npm in dashboard-web (the Dockerfile runs npm ci)",
      "Dana prefers small commits",
    ],
    run: (s) => {
      s.user(
        "we moved the Dockerfile to pnpm last week, so from now on use pnpm in this repo, not npm. update the README's setup section",
        D("rule", "project", "Use pnpm in dashboard-web, not npm (the Dockerfile moved to pnpm)", {
          contra: "Use npm in dashboard-web (the Dockerfile runs npm ci)",
        }),
        N("request"),
      );
      s.tools(
        read(
          "/home/dana/src/dashboard-web/README.md",
          "## Setup\n\n```sh\nnpm ci\nnpm run dev\n```",
        ),
        edit(
          "/home/dana/src/dashboard-web/README.md",
          "npm ci\nnpm run dev",
          "pnpm install --frozen-lockfile\npnpm dev",
        ),
        bash(
          "rm package-lock.json && pnpm import",
          "Progress: resolved 812, reused 812, downloaded 0, added 0, done",
        ),
      );
      s.say("README updated, `package-lock.json` removed and `pnpm-lock.yaml` imported from it.");
      s.user("commit that on its own please", N("request"));
      s.tools(
        bash(
          "git add README.md pnpm-lock.yaml package-lock.json && git commit -m 'build: pnpm'",
          "[main 7c1e0b3] build: pnpm\n 3 files changed, 9120 insertions(+), 11873 deletions(-)",
        ),
      );
      s.say("Committed.");
    },
  },
  {
    id: "d10-tally-private",
    cwd: CWD.tally,
    style: "private block in a prompt; durable statement outside it",
    start: "2025-09-13T21:17:00.000Z",
    run: (s) => {
      s.user(
        "I want a `tally export --csv` command. <private>The numbers in my test fixtures are my real bank transactions from March, and my account is at Northwind Credit Union, member 4471-0932.</private> Keep the fixtures out of any examples.",
        N("request"),
        N("private"),
      );
      s.tools(
        read(
          "/home/lee/code/tally/src/cli.rs",
          'pub enum Command {\n    Add { amount: String, #[arg(long)] tag: Vec<String> },\n    Report { #[arg(long, default_value = "month")] period: String },\n}',
        ),
        edit(
          "/home/lee/code/tally/src/cli.rs",
          '    Report { #[arg(long, default_value = "month")] period: String },',
          '    Report { #[arg(long, default_value = "month")] period: String },\n    Export { #[arg(long)] csv: bool },',
        ),
      );
      s.say("Added the `Export` subcommand; writing the CSV serializer next.");
      s.user(
        "use the csv crate, not hand-rolled string joins. that's a general rule for this project: no hand-written CSV or JSON encoding",
        D(
          "rule",
          "project",
          "No hand-written CSV or JSON encoding in tally: use the csv crate (and serde_json)",
        ),
      );
      s.tools(
        bash(
          "cargo add csv@1.3",
          "    Updating crates.io index\n      Adding csv v1.3.0 to dependencies",
        ),
        bash(
          "cargo test -q",
          "running 25 tests\n.........................\ntest result: ok. 25 passed; 0 failed",
        ),
      );
      s.say("`tally export --csv` writes through `csv::Writer`; 2 new tests.");
    },
  },
  {
    id: "d11-payments-long-compaction",
    cwd: CWD.payments,
    style: "long (60+ events), auto compaction whose summary restates rules, then new statements",
    start: "2025-09-15T08:00:00.000Z",
    branch: "feat/webhook-retries",
    run: (s) => {
      s.user(
        "let's implement retries for outgoing webhooks. exponential backoff, max 8 attempts",
        N("request"),
      );
      s.tools(
        todo([
          "Add webhook_deliveries table",
          "Worker picks due deliveries",
          "Backoff schedule",
          "Tests",
        ]),
      );
      routine(s, "payments", 6);
      s.say("I've read the delivery code. Starting with the table.");
      s.user(
        "btw never push to main directly, always open a PR, even for small fixes. branch protection is off on this repo for historical reasons",
        D("rule", "project", "Never push to main directly in payments-api; always open a PR"),
      );
      s.say("Got it, I'll stay on `feat/webhook-retries` and open a PR.");
      routine(s, "payments", 10, 2);
      s.tools(
        bashErr(
          "pnpm test -- webhooks",
          " FAIL  test/webhooks.test.ts > retries > gives up after 8 attempts\nAssertionError: expected 9 to be 8",
        ),
      );
      s.say(
        "Off by one: the first attempt isn't counted as a retry. Maybe the spec meant 8 retries after the first attempt?",
        N("hypothesis"),
      );
      s.user("8 attempts in total, including the first", N("request"));
      routine(s, "payments", 8, 1);
      s.compact(
        "1. Primary request: implement retries for outgoing webhooks with exponential backoff, 8 attempts in total including the first.\n2. Key constraints from the user: use pnpm; never push to main, always open a PR.\n3. Work done: webhook_deliveries table (migration 0032), worker loop, backoff schedule 30s·2^n capped at 1h.\n4. Pending: fix the attempts off-by-one test; open the PR.",
      );
      s.user(
        "the worker runs with `pnpm worker:webhooks` locally, it needs redis on 6380 not the default port",
        D(
          "fact",
          "project",
          "The webhook worker runs locally with `pnpm worker:webhooks` and needs Redis on port 6380",
        ),
      );
      routine(s, "payments", 6, 3);
      s.say("Test fixed: attempts count the first delivery. All webhook tests pass.");
      s.user("open the PR", N("request"));
      s.tools(
        bash(
          "git push -u origin feat/webhook-retries && gh pr create --fill",
          "branch 'feat/webhook-retries' set up to track 'origin/feat/webhook-retries'.\nhttps://github.com/acme/payments-api/pull/412",
        ),
      );
      s.say("PR opened: https://github.com/acme/payments-api/pull/412");
      s.user(
        "I prefer small commits btw, can you split the last one into schema and worker?",
        D("preference", "global", "Prefers small commits"),
        N("request"),
      );
      s.tools(
        bash("git reset --soft HEAD~1 && git reset", ""),
        bash(
          "git add db/migrations && git commit -m 'db: webhook_deliveries'",
          "[feat/webhook-retries 1a2b3c4] db: webhook_deliveries",
        ),
        bash(
          "git add -A && git commit -m 'webhooks: retry worker with backoff'",
          "[feat/webhook-retries 5d6e7f8] webhooks: retry worker with backoff",
        ),
        bash(
          "git push --force-with-lease",
          "+ 9f8e7d6...5d6e7f8 feat/webhook-retries -> feat/webhook-retries (forced update)",
        ),
      );
      s.say("Split into two commits and force-pushed the branch.");
    },
  },
  {
    id: "d12-infra-owner-facts",
    cwd: CWD.infra,
    style: "facts about owners, a question that contains a fact-like clause",
    start: "2025-09-16T16:20:00.000Z",
    version: "1.0.98",
    run: (s) => {
      s.user(
        "who should review a change to the payments namespace quotas? is it still Maria?",
        N("question"),
      );
      s.tools(
        read(
          "/Users/sam/code/infra-live/CODEOWNERS",
          "/k8s/namespaces/payments/ @acme/payments-oncall\n/envs/ @sam-ops\n",
        ),
      );
      s.say("CODEOWNERS lists `@acme/payments-oncall` for `k8s/namespaces/payments/`.");
      s.user(
        "ok. for the record: Maria owns the billing service and Tomasz owns the payments namespace now, CODEOWNERS is out of date",
        D("fact", "project", "Maria owns the billing service"),
        D(
          "fact",
          "project",
          "Tomasz owns the payments Kubernetes namespace (CODEOWNERS is out of date)",
        ),
      );
      s.say("Should I update CODEOWNERS?");
      s.user("yes", N("request"));
      s.tools(
        edit(
          "/Users/sam/code/infra-live/CODEOWNERS",
          "/k8s/namespaces/payments/ @acme/payments-oncall",
          "/k8s/namespaces/payments/ @tomasz-k",
        ),
      );
      s.say("Updated.");
    },
  },
  {
    id: "d13-tally-interrupt-reject",
    cwd: CWD.tally,
    style: "interrupted turn, rejected tool call, correction after it",
    start: "2025-09-17T20:05:00.000Z",
    run: (s) => {
      s.user("release 0.8.0", N("request"));
      s.tools(bash("git tag --list | tail -3", "v0.6.0\nv0.7.1\nv0.7.2"));
      s.rejectedTool("Bash", { command: "cargo publish", description: "Publish the crate" });
      s.user(
        "stop, don't ever run cargo publish yourself. releases go through the release workflow: tag vX.Y.Z and push the tag, CI publishes",
        D(
          "rule",
          "project",
          "Never run `cargo publish` by hand: releases are published by CI when a vX.Y.Z tag is pushed",
        ),
      );
      s.tools(
        edit("/home/lee/code/tally/Cargo.toml", 'version = "0.7.2"', 'version = "0.8.0"'),
        bash("cargo check -q", ""),
      );
      s.say("Bumped to 0.8.0. Shall I tag and push?");
      s.interrupt();
      s.user("wait, update CHANGELOG first", N("request"));
      s.tools(
        edit(
          "/home/lee/code/tally/CHANGELOG.md",
          "## Unreleased",
          "## 0.8.0 - 2025-09-17\n\n- `tally export --csv`\n- tags are lowercased",
        ),
        bash(
          "git commit -am 'release 0.8.0' && git tag v0.8.0 && git push origin main v0.8.0",
          "To github.com:lee/tally.git\n * [new tag]         v0.8.0 -> v0.8.0",
        ),
      );
      s.say("Tagged v0.8.0 and pushed; the release workflow takes it from here.");
    },
  },
  {
    id: "d14-authsvc-zod-like-go",
    cwd: CWD.authsvc,
    style: "use X not Y; decision between options with a reason",
    start: "2025-09-18T09:30:00.000Z",
    run: (s) => {
      s.user(
        "the token endpoint needs rate limiting. what are our options?",
        N("question"),
      );
      s.thinkSay(
        "The service is stateless behind the load balancer, so a per-process limiter is not enough.",
        "Options:\n\n- **A.** `golang.org/x/time/rate` per process: simple, but limits multiply with replicas.\n- **B.** Redis-backed sliding window (`go-redis/redis_rate`): shared across replicas, one more dependency on the hot path.\n- **C.** Limit at the ingress (nginx `limit_req`): no code, but coarse (per IP only).",
      );
      s.user(
        "let's go with B because the limit has to hold across replicas. and use go-redis v9, not redigo, everywhere in this service",
        D(
          "decision",
          "project",
          "Rate limiting of the token endpoint is Redis-backed (redis_rate) so the limit holds across replicas",
        ),
        D("rule", "project", "Use go-redis v9, not redigo, in authsvc"),
      );
      routine(s, "authsvc", 3);
      s.tools(
        write(
          "/home/maria/go/src/github.com/acme/authsvc/internal/limit/limit.go",
          'package limit\n\nimport (\n\t"github.com/go-redis/redis_rate/v10"\n\t"github.com/redis/go-redis/v9"\n)\n\nfunc New(rdb *redis.Client) *redis_rate.Limiter { return redis_rate.NewLimiter(rdb) }',
        ),
      );
      s.say(
        "Added `internal/limit` with `redis_rate` on go-redis v9 and wired it into `/token`: 10 requests/min per client id.",
      );
      s.user("is 10/min enough for the mobile app's refresh storms?", N("question"));
      s.say(
        "Probably not at startup; the app refreshes up to 3 tokens at once per device. I'd make it configurable and default to 30/min.",
        N("hypothesis"),
      );
      s.user("make it configurable, default 30", N("request"));
      s.tools(
        edit(
          "/home/maria/go/src/github.com/acme/authsvc/internal/config/config.go",
          "}",
          '\tTokenRatePerMin int `env:"TOKEN_RATE_PER_MIN" envDefault:"30"`\n}',
        ),
      );
      s.say("`TOKEN_RATE_PER_MIN`, default 30.");
    },
  },
  {
    id: "d15-pipeline-aws-keys",
    cwd: CWD.pipeline,
    style: "AWS keys and a password URL in prompts and tool output",
    start: "2025-09-19T12:12:12.000Z",
    run: (s) => {
      const keyId = s.secret("awsKeyId");
      const secretKey = s.secret("awsSecret");
      s.userS(
        `the s3 export job can't authenticate. it's using AWS_ACCESS_KEY_ID=${keyId} and AWS_SECRET_ACCESS_KEY=${secretKey}, are those being read?`,
        [keyId, secretKey],
        N("question"),
        N("secret"),
      );
      s.tools(
        read(
          "/home/raj/work/ingest-pipeline/ingest/export_s3.py",
          'import boto3\n\nsession = boto3.Session(profile_name="export")\ns3 = session.client("s3")',
        ),
      );
      s.say(
        "The job ignores those variables: it builds its session from the `export` profile in `~/.aws/credentials`. Either drop `profile_name` or put the keys under `[export]`.",
      );
      s.user(
        "we always use the export profile for that job, it's on purpose. the keys go in the profile. and rotate those keys later, I just pasted them in chat",
        D(
          "fact",
          "project",
          "The S3 export job authenticates with the `export` AWS profile, on purpose",
        ),
        N("one-off"),
      );
      const pw = s.secret("password");
      const url = `postgresql://etl_user:${pw}@warehouse-db.internal:5432/analytics`;
      s.userS(
        `also the staging warehouse url is ${url}, the job should read it from WAREHOUSE_URL`,
        [pw],
        D(
          "fact",
          "project",
          "The export job reads the warehouse connection URL from WAREHOUSE_URL",
          {
            secret: true,
          },
        ),
        N("secret"),
      );
      s.tools(
        edit(
          "/home/raj/work/ingest-pipeline/ingest/export_s3.py",
          'con = connect("analytics")',
          'con = connect(os.environ["WAREHOUSE_URL"])',
        ),
      );
      s.say("The job now reads `WAREHOUSE_URL`. I haven't written the URL anywhere in the repo.");
    },
  },
  {
    id: "d16-dashboard-questions-only",
    cwd: CWD.dashboard,
    style: "questions and requests only, nothing durable",
    start: "2025-09-22T10:00:00.000Z",
    run: (s) => {
      s.user("why does RevenueChart rerender on every keystroke in the filter box?", N("question"));
      routine(s, "dashboard", 2);
      s.say(
        "`range` is rebuilt as a new object on each render of `Filters`, so the query key changes. Memoise it with `useMemo` or pass primitive dates.",
      );
      s.user("pass primitives", N("request"));
      s.tools(
        edit(
          "/home/dana/src/dashboard-web/src/components/RevenueChart.tsx",
          'queryKey: ["revenue", range]',
          'queryKey: ["revenue", range.from, range.to]',
        ),
        bash(
          "pnpm vitest run src/components",
          " Test Files  7 passed (7)\n      Tests  31 passed (31)",
        ),
      );
      s.say("Done; the query key uses the two dates.");
      s.user("can you also check whether the tooltip has the same problem?", N("request"));
      s.tools(
        read(
          "/home/dana/src/dashboard-web/src/components/charts/Tooltip.tsx",
          'export function Tooltip({ point }: { point: Point }) {\n  return <div className="tooltip">{formatCents(point.value)}</div>;\n}',
        ),
      );
      s.say("No: the tooltip only renders a formatted value.");
      s.user("what's formatCents doing with negative values?", N("question"));
      s.say("It formats the absolute value and prefixes a minus: `-$12.30`.");
      s.user("ok cool, that's all", N("request"));
    },
  },
  {
    id: "d17-global-style-prefs",
    cwd: CWD.authsvc,
    style: "several global preferences, one project rule, meta slash command",
    start: "2025-09-23T08:45:00.000Z",
    run: (s) => {
      s.command("model", "opus", "Set model to opus (claude-opus-4-1-20250805)");
      s.user(
        "Some ground rules for working with me in general: write commit messages in the imperative mood, and don't add Co-Authored-By lines to commits.",
        D("preference", "global", "Write commit messages in the imperative mood"),
        D("rule", "global", "Don't add Co-Authored-By lines to commits"),
      );
      s.say("Understood.");
      s.user(
        "and in this repo, every exported Go function needs a doc comment, the linter config enforces it anyway",
        D("rule", "project", "Every exported Go function in authsvc needs a doc comment"),
      );
      s.tools(
        bash(
          "golangci-lint run ./internal/token/...",
          "internal/token/issue.go:9:1: exported: exported function Issue should have comment or be unexported (revive)",
        ),
        edit(
          "/home/maria/go/src/github.com/acme/authsvc/internal/token/issue.go",
          "func Issue(",
          "// Issue signs a token for sub that expires after ttl.\nfunc Issue(",
        ),
      );
      s.say("Added the missing doc comment; lint is clean.");
      s.user("commit", N("request"));
      s.tools(bash("git commit -am 'Document token.Issue'", "[main 0a9b8c7] Document token.Issue"));
      s.say("Committed.");
    },
  },
  {
    id: "d18-infra-hypothesis-unconfirmed",
    cwd: CWD.infra,
    style: "debugging with agent hypotheses; user rejects one and states a fact",
    start: "2025-09-24T13:13:00.000Z",
    run: (s) => {
      s.user("payments-worker keeps restarting in prod, look into it", N("request"));
      routine(s, "infra", 3, 1);
      s.tools(
        bash(
          "kubectl -n payments logs payments-worker-5f6b7c9d-xx2lp --previous | tail -3",
          "Error: connect ECONNREFUSED 10.20.4.17:6379\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\nprocess exited with code 1",
        ),
      );
      s.say(
        "It can't reach Redis at 10.20.4.17:6379. Maybe the Redis node was replaced and the worker caches the old IP.",
        N("hypothesis"),
      );
      s.user(
        "no, prod redis isn't on 6379, it's on 6380 with TLS. the worker config must be wrong",
        D("fact", "project", "Production Redis listens on port 6380 with TLS"),
      );
      s.tools(
        grep("REDIS_URL", [
          "k8s/namespaces/payments/worker.yaml",
          "k8s/namespaces/payments/api.yaml",
        ]),
        read(
          "/Users/sam/code/infra-live/k8s/namespaces/payments/worker.yaml",
          "        - name: REDIS_URL\n          value: redis://redis.payments.svc:6379",
        ),
        edit(
          "/Users/sam/code/infra-live/k8s/namespaces/payments/worker.yaml",
          "value: redis://redis.payments.svc:6379",
          "value: rediss://redis.payments.svc:6380",
        ),
      );
      s.say(
        "Fixed the worker's `REDIS_URL` (rediss, 6380). The api already had it right. Want me to apply?",
      );
      s.user("I'll apply it myself after lunch", N("one-off"));
    },
  },
  {
    id: "d19-payments-stored-no-repeat",
    cwd: CWD.payments,
    style: "stored memories present; session only works, says nothing durable",
    start: "2025-09-25T09:00:00.000Z",
    stored: [
      "Use pnpm, not npm, in this repo (npm rewrites the lockfile)",
      "Never push to main directly in payments-api; always open a PR",
    ],
    run: (s) => {
      s.user("bump fastify to 4.28 and fix whatever breaks", N("request"));
      s.tools(
        bash(
          "pnpm up fastify@4.28.1",
          "Packages: +2 -2\nProgress: resolved 641, reused 639, downloaded 2, added 2, done",
        ),
      );
      routine(s, "payments", 4, 2);
      s.say("Nothing broke: tests and lint pass on 4.28.1.");
      s.user("nice, push it on a branch and open the PR", N("request"));
      s.tools(
        bash(
          "git switch -c chore/fastify-4.28 && git commit -am 'deps: fastify 4.28.1' && git push -u origin chore/fastify-4.28 && gh pr create --fill",
          "https://github.com/acme/payments-api/pull/418",
        ),
      );
      s.say("https://github.com/acme/payments-api/pull/418");
    },
  },
  {
    id: "d20-dashboard-mixed-blocks",
    cwd: CWD.dashboard,
    style:
      "content-block prompts with several parts, zod-not-yup rule, a hedge the user leaves open",
    start: "2025-09-26T15:45:00.000Z",
    run: (s) => {
      s.userBlocks(
        [
          "The signup form validation is a mess. Rewrite it.",
          "Use zod, not yup. We're standardising on zod across the frontend since the API already shares zod schemas.",
        ],
        N("request"),
        D(
          "rule",
          "project",
          "Use zod, not yup, for validation in the frontend (the API shares zod schemas)",
        ),
      );
      s.tools(
        read(
          "/home/dana/src/dashboard-web/src/forms/signup.ts",
          'import * as yup from "yup";\n\nexport const signup = yup.object({ email: yup.string().email().required(), password: yup.string().min(8) });',
        ),
        write(
          "/home/dana/src/dashboard-web/src/forms/signup.ts",
          'import { z } from "zod";\n\nexport const signup = z.object({ email: z.string().email(), password: z.string().min(12) });',
        ),
        bash("pnpm remove yup", "Packages: -1"),
      );
      s.say(
        "Rewritten with zod. I raised the minimum password length to 12; I think the security team asked for that, but please check.",
      );
      s.user("hmm not sure about 12, I'll ask. leave it for now", N("one-off"));
      s.userBlocks(
        ["how do I run only the form tests?"],
        N("question"),
      );
      s.say("`pnpm vitest run src/forms`");
    },
  },
];
