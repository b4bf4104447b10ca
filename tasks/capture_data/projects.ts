/**
 * The projects of the capture benchmark's hand-written sessions, and routine tool work that
 * pads a session (reading files, running tests) without saying anything durable.
 *
 * @module
 */
import { bash, read, type Session, type ToolStep } from "./build.ts";

export const CWD = {
  payments: "/home/dana/src/payments-api",
  pipeline: "/home/raj/work/ingest-pipeline",
  infra: "/Users/sam/code/infra-live",
  tally: "/home/lee/code/tally",
  dashboard: "/home/dana/src/dashboard-web",
  authsvc: "/home/maria/go/src/github.com/acme/authsvc",
} as const;

const ROUTINE: Record<keyof typeof CWD, ToolStep[]> = {
  payments: [
    bash(
      "git status --short",
      " M src/routes/refunds.ts\n M test/refunds.test.ts\n?? src/lib/idempotency.ts",
    ),
    read(
      "/home/dana/src/payments-api/src/routes/refunds.ts",
      'import { FastifyInstance } from "fastify";\nimport { z } from "zod";\nimport { db } from "../db";\n\nconst RefundBody = z.object({ chargeId: z.string(), amount: z.number().int().positive() });\n\nexport async function refunds(app: FastifyInstance) {\n  app.post("/refunds", async (req, reply) => {\n    const body = RefundBody.parse(req.body);\n    const charge = await db.charge.find(body.chargeId);\n    if (!charge) return reply.code(404).send({ error: "charge not found" });\n    return db.refund.create({ chargeId: charge.id, amount: body.amount });\n  });\n}',
    ),
    bash(
      "pnpm test -- refunds",
      "> payments-api@2.4.1 test\n> vitest run refunds\n\n ✓ test/refunds.test.ts (9 tests) 412ms\n\n Test Files  1 passed (1)\n      Tests  9 passed (9)\n   Duration  1.94s",
    ),
    bash(
      "pnpm lint",
      "> payments-api@2.4.1 lint\n> eslint . --max-warnings 0\n\n",
    ),
    read(
      "/home/dana/src/payments-api/src/db/index.ts",
      'import { Pool } from "pg";\n\nexport const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });\n\nexport const db = makeRepos(pool);',
    ),
    bash(
      "git log --oneline -5",
      "a41c9e2 refunds: partial refunds behind a flag\n93be0d1 charges: store the processor's fee\n0c7d2aa ci: cache pnpm store\n51aa3b0 webhooks: verify signatures with the raw body\ne02f7c1 db: index refunds by charge_id",
    ),
  ],
  pipeline: [
    bash(
      "pytest tests/transforms -q",
      "........................................                                 [100%]\n40 passed in 6.21s",
    ),
    read(
      "/home/raj/work/ingest-pipeline/dags/orders_daily.py",
      'from airflow import DAG\nfrom airflow.operators.python import PythonOperator\nfrom datetime import datetime\n\nfrom ingest.orders import extract_orders, load_orders\n\nwith DAG("orders_daily", start_date=datetime(2024, 1, 1), schedule="0 3 * * *", catchup=False) as dag:\n    extract = PythonOperator(task_id="extract", python_callable=extract_orders)\n    load = PythonOperator(task_id="load", python_callable=load_orders)\n    extract >> load',
    ),
    bash(
      "dbt build --select orders+ --target dev",
      "12:03:11  Running with dbt=1.8.2\n12:03:14  Found 48 models, 112 tests, 6 sources\n12:03:20  Completed successfully\n12:03:20  Done. PASS=19 WARN=0 ERROR=0 SKIP=0 TOTAL=19",
    ),
    read(
      "/home/raj/work/ingest-pipeline/ingest/orders.py",
      'import pandas as pd\n\n\ndef extract_orders(ds: str) -> pd.DataFrame:\n    return read_partition("raw/orders", ds)\n\n\ndef load_orders(df: pd.DataFrame) -> None:\n    df = df.drop_duplicates(subset=["order_id"])\n    write_table("analytics.orders", df, mode="merge", key="order_id")',
    ),
    bash("ruff check .", "All checks passed!"),
  ],
  infra: [
    bash(
      "terraform -chdir=envs/staging plan -no-color | tail -5",
      '  # aws_db_instance.main will be updated in-place\n  ~ resource "aws_db_instance" "main" {\n      ~ allocated_storage = 100 -> 200\n    }\n\nPlan: 0 to add, 1 to change, 0 to destroy.',
    ),
    read(
      "/Users/sam/code/infra-live/envs/staging/main.tf",
      'module "vpc" {\n  source = "../../modules/vpc"\n  cidr   = "10.20.0.0/16"\n}\n\nmodule "eks" {\n  source          = "../../modules/eks"\n  cluster_version = "1.30"\n  vpc_id          = module.vpc.id\n}',
    ),
    bash(
      "kubectl -n payments get pods",
      "NAME                            READY   STATUS    RESTARTS   AGE\npayments-api-7d9c8b6f4-2kq8x    1/1     Running   0          3h\npayments-api-7d9c8b6f4-9wz5m    1/1     Running   0          3h\npayments-worker-5f6b7c9d-xx2lp  1/1     Running   2          3h",
    ),
    bash(
      "tflint --recursive",
      '3 issue(s) found:\n\nWarning: variable "region" is declared but not used',
    ),
  ],
  tally: [
    bash(
      "cargo test",
      "   Compiling tally v0.7.2 (/home/lee/code/tally)\n    Finished test [unoptimized + debuginfo] target(s) in 8.91s\n     Running unittests src/main.rs\n\nrunning 23 tests\ntest result: ok. 23 passed; 0 failed; 0 ignored",
    ),
    read(
      "/home/lee/code/tally/src/cli.rs",
      'use clap::{Parser, Subcommand};\n\n#[derive(Parser)]\n#[command(name = "tally", version)]\npub struct Cli {\n    #[command(subcommand)]\n    pub command: Command,\n}\n\n#[derive(Subcommand)]\npub enum Command {\n    Add { amount: String, #[arg(long)] tag: Vec<String> },\n    Report { #[arg(long, default_value = "month")] period: String },\n}',
    ),
    bash(
      "cargo clippy -- -D warnings",
      "    Checking tally v0.7.2 (/home/lee/code/tally)\n    Finished dev [unoptimized + debuginfo] target(s) in 2.31s",
    ),
    bash(
      "cargo run -- report --period week",
      "Week 47\n  groceries   82.40\n  transport   31.00\n  total      113.40",
    ),
  ],
  dashboard: [
    bash(
      "pnpm vitest run src/components/RevenueChart.test.tsx",
      " ✓ src/components/RevenueChart.test.tsx (4 tests) 188ms\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)",
    ),
    read(
      "/home/dana/src/dashboard-web/src/components/RevenueChart.tsx",
      'import { useQuery } from "@tanstack/react-query";\nimport { LineChart } from "./charts/LineChart";\n\nexport function RevenueChart({ range }: { range: Range }) {\n  const { data, isLoading } = useQuery({ queryKey: ["revenue", range], queryFn: () => fetchRevenue(range) });\n  if (isLoading) return <Spinner />;\n  return <LineChart points={data!.points} />;\n}',
    ),
    bash("pnpm tsc --noEmit", ""),
    bash(
      "pnpm build",
      "vite v5.4.2 building for production...\n✓ 812 modules transformed.\ndist/index.html                  0.46 kB\ndist/assets/index-4f1c2a.js    312.40 kB │ gzip: 98.11 kB\n✓ built in 7.82s",
    ),
  ],
  authsvc: [
    bash(
      "go test ./...",
      "ok  \tgithub.com/acme/authsvc/internal/token\t0.412s\nok  \tgithub.com/acme/authsvc/internal/session\t1.087s\n?   \tgithub.com/acme/authsvc/cmd/authsvc\t[no test files]",
    ),
    read(
      "/home/maria/go/src/github.com/acme/authsvc/internal/token/issue.go",
      'package token\n\nimport (\n\t"time"\n\n\t"github.com/golang-jwt/jwt/v5"\n)\n\nfunc Issue(sub string, ttl time.Duration, key []byte) (string, error) {\n\tclaims := jwt.RegisteredClaims{Subject: sub, ExpiresAt: jwt.NewNumericDate(time.Now().Add(ttl))}\n\treturn jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key)\n}',
    ),
    bash("golangci-lint run", ""),
    bash(
      "git diff --stat",
      " internal/session/store.go      | 24 ++++++++++++++++--------\n internal/session/store_test.go | 41 +++++++++++++++++++++++++++++++++++++++++\n 2 files changed, 57 insertions(+), 8 deletions(-)",
    ),
  ],
};

/** Adds `n` routine tool calls of the project (2 events each), cycling from `offset`. */
export function routine(s: Session, project: keyof typeof CWD, n: number, offset = 0): void {
  const pool = ROUTINE[project];
  for (let i = 0; i < n; i++) s.tools(pool[(offset + i) % pool.length]);
}
