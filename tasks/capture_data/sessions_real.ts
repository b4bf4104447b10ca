/**
 * Scripts of the real Claude Code transcripts (tasks/capture_real_sessions.ts): per session,
 * the seeded project files and, per user turn, the prompt, its labels and the fake model's
 * answers (tool calls that Claude Code really executes, then a text).
 *
 * @module
 */
import type { ToolCall } from "../../tests/fakes/anthropic.ts";
import { D, type fakeSecret as FakeSecret, type Kind, type Label, N, type Rng } from "./build.ts";

export const ROOT = "/tmp/mneme-capture-real";

export interface RealTurn {
  prompt: string;
  labels: Label[];
  steps: Array<{ tool: ToolCall } | { text: string }>;
  /** Labels of the turn's final answer (an agent hypothesis). */
  answerLabels?: Label[];
  /** The prompt confirms the previous turn's final answer: the memory it makes. */
  confirms?: { kind: Kind; scope: "project" | "global"; text: string };
  secrets?: string[];
}

export interface RealScript {
  id: string;
  split: "dev" | "test" | "holdout";
  project: string;
  style: string;
  stored?: string[];
  files: Record<string, string>;
  turns: RealTurn[];
}

const bash = (command: string, description: string) => ({
  tool: { name: "Bash", input: { command, description } },
});
const readF = (project: string, path: string) => ({
  tool: { name: "Read", input: { file_path: `${ROOT}/${project}/${path}` } },
});
const editF = (project: string, path: string, old_string: string, new_string: string) => ({
  tool: {
    name: "Edit",
    input: { file_path: `${ROOT}/${project}/${path}`, old_string, new_string },
  },
});
const writeF = (project: string, path: string, content: string) => ({
  tool: { name: "Write", input: { file_path: `${ROOT}/${project}/${path}`, content } },
});
const grepT = (pattern: string) => ({
  tool: { name: "Grep", input: { pattern, output_mode: "files_with_matches" } },
});
const say = (text: string) => ({ text });

const ORDERS_FILES = {
  "package.json": JSON.stringify(
    {
      name: "orders-service",
      version: "1.9.0",
      scripts: { test: "vitest run", lint: "eslint .", dev: "tsx watch src/server.ts" },
      dependencies: { fastify: "4.28.1", zod: "3.23.8", pg: "8.12.0" },
    },
    null,
    2,
  ) + "\n",
  "src/server.ts":
    'import Fastify from "fastify";\nimport { orders } from "./routes/orders";\n\nconst app = Fastify({ logger: true });\napp.register(orders);\napp.listen({ port: Number(process.env.PORT ?? 8080), host: "0.0.0.0" });\n',
  "src/routes/orders.ts":
    'import type { FastifyInstance } from "fastify";\nimport { z } from "zod";\n\nconst Query = z.object({ status: z.string().optional(), limit: z.coerce.number().max(100).default(20) });\n\nexport async function orders(app: FastifyInstance) {\n  app.get("/orders", async (req) => {\n    const q = Query.parse(req.query);\n    return app.pg.query("select * from orders where ($1::text is null or status = $1) limit $2", [q.status ?? null, q.limit]);\n  });\n}\n',
  "test/orders.test.ts":
    'import { describe, it, expect } from "vitest";\n\ndescribe("GET /orders", () => {\n  it("caps the limit at 100", async () => {\n    expect(true).toBe(true);\n  });\n});\n',
  "README.md": "# orders-service\n\nOrders API.\n\n## Run\n\n    npm install\n    npm run dev\n",
};

const ETL_FILES = {
  "pyproject.toml":
    '[project]\nname = "etl-nightly"\nversion = "0.4.0"\ndependencies = ["pandas==2.2.2", "sqlalchemy==2.0.31"]\n\n[tool.ruff]\nline-length = 100\n',
  "etl/jobs/customers.py":
    'import pandas as pd\n\n\ndef transform(df: pd.DataFrame) -> pd.DataFrame:\n    df = df.rename(columns=str.lower)\n    df["email"] = df["email"].str.strip().str.lower()\n    return df.drop_duplicates(subset=["customer_id"])\n',
  "etl/jobs/invoices.py":
    'import pandas as pd\n\n\ndef transform(df: pd.DataFrame) -> pd.DataFrame:\n    df["amount"] = df["amount_cents"] / 100\n    return df\n',
  "tests/test_customers.py":
    'import pandas as pd\n\nfrom etl.jobs.customers import transform\n\n\ndef test_lowercases_email():\n    df = pd.DataFrame({"customer_id": [1], "email": [" A@B.COM "]})\n    assert transform(df).email.tolist() == ["a@b.com"]\n',
  "schedule.cron": "# nightly jobs\n15 1 * * * etl run customers\n45 1 * * * etl run invoices\n",
};

const INFRA_FILES = {
  "terraform/envs/prod/main.tf":
    'module "cluster" {\n  source       = "../../modules/cluster"\n  name         = "prod-eu"\n  node_count   = 6\n  machine_type = "e2-standard-8"\n}\n',
  "terraform/envs/staging/main.tf":
    'module "cluster" {\n  source       = "../../modules/cluster"\n  name         = "staging-eu"\n  node_count   = 2\n  machine_type = "e2-standard-4"\n}\n',
  "helm/ingress/values.yaml":
    "controller:\n  replicaCount: 2\n  resources:\n    requests:\n      cpu: 200m\n      memory: 256Mi\n",
  "Makefile":
    "plan-%:\n\tterraform -chdir=terraform/envs/$* plan\n\napply-%:\n\tterraform -chdir=terraform/envs/$* apply\n",
};

const LOGFMT_FILES = {
  "go.mod": "module github.com/lee/logfmt\n\ngo 1.22\n",
  "main.go":
    'package main\n\nimport (\n\t"bufio"\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tsc := bufio.NewScanner(os.Stdin)\n\tfor sc.Scan() {\n\t\tfmt.Println(pretty(sc.Text()))\n\t}\n}\n',
  "pretty.go":
    'package main\n\nimport "strings"\n\nfunc pretty(line string) string {\n\treturn strings.ReplaceAll(line, " ", "\\n  ")\n}\n',
  "README.md": "# logfmt\n\nPretty-prints logfmt lines from stdin.\n",
};

/** The scripts; `r` and `fs` make the fake secrets (deterministic). */
export function REAL(r: Rng, fs: typeof FakeSecret): RealScript[] {
  const anthropicKey = fs.anthropic(r);
  const slackHook = fs.slackWebhook(r);
  const openaiKey = fs.openai(r);
  const dbPass = fs.password(r);
  const npmTok = fs.npm(r);
  return [
    {
      id: "r01-orders-pnpm-lint",
      split: "dev",
      project: "orders-service",
      style: "real CLI, 3 turns, a rule with its reason, a request, a question",
      files: ORDERS_FILES,
      turns: [
        {
          prompt: "What does GET /orders do when no status is given?",
          labels: [N("question")],
          steps: [
            readF("orders-service", "src/routes/orders.ts"),
            say(
              "Without `status` the query passes `null` for `$1`, so the `$1::text is null` branch matches every row: all orders, up to `limit` (default 20, at most 100).",
            ),
          ],
        },
        {
          prompt:
            "ok. add a test for the limit cap. and always run npm run lint before you commit anything in this repo, CI fails on lint warnings",
          labels: [
            N("request"),
            D(
              "rule",
              "project",
              "Always run `npm run lint` before committing in orders-service (CI fails on lint warnings)",
            ),
          ],
          steps: [
            readF("orders-service", "test/orders.test.ts"),
            editF(
              "orders-service",
              "test/orders.test.ts",
              "    expect(true).toBe(true);",
              '    const { Query } = await import("../src/routes/orders");\n    expect(() => Query.parse({ limit: "101" })).toThrow();',
            ),
            bash("git status --short", "Show changed files"),
            say(
              "Added the test (it parses `limit=101` and expects a validation error). I'll run the linter before any commit.",
            ),
          ],
        },
        {
          prompt: "thanks, that's enough for today",
          labels: [N("request")],
          steps: [say("You're welcome.")],
        },
      ],
    },
    {
      id: "r02-etl-confirmed-schedule",
      split: "dev",
      project: "etl-nightly",
      style: "real CLI, agent claim confirmed by the user, agent hypothesis unconfirmed",
      files: ETL_FILES,
      turns: [
        {
          prompt: "the invoices job ran before customers finished last night. why?",
          labels: [N("question")],
          steps: [
            bash("cat schedule.cron", "Show the cron schedule"),
            say(
              "The cron file starts customers at 01:15 and invoices at 01:45, so invoices only waits 30 minutes. It looks like invoices must always run after customers because it joins on the customer table. Is that the rule?",
            ),
          ],
        },
        {
          prompt: "yes, invoices depends on customers, it must always run after it",
          labels: [],
          confirms: {
            kind: "rule",
            scope: "project",
            text:
              "The invoices job must always run after the customers job (it joins on customers)",
          },
          steps: [
            readF("etl-nightly", "schedule.cron"),
            editF(
              "etl-nightly",
              "schedule.cron",
              "45 1 * * * etl run invoices",
              "45 1 * * * etl run --after customers invoices",
            ),
            say(
              "Changed the cron line so invoices waits for customers. The slowdown itself might come from the customers table growing past the pandas memory limit.",
            ),
          ],
          answerLabels: [N("hypothesis")],
        },
        {
          prompt: "could be, let's look at that another day",
          labels: [N("one-off")],
          steps: [say("Okay.")],
        },
      ],
    },
    {
      id: "r03-infra-owner-tuesday",
      split: "test",
      project: "platform-infra",
      style: "real CLI, facts about the setup and an owner, a one-off",
      files: INFRA_FILES,
      turns: [
        {
          prompt: "scale the staging cluster to 3 nodes",
          labels: [N("request")],
          steps: [
            readF("platform-infra", "terraform/envs/staging/main.tf"),
            editF(
              "platform-infra",
              "terraform/envs/staging/main.tf",
              "node_count   = 2",
              "node_count   = 3",
            ),
            say("Staging now has `node_count = 3`. Run `make plan-staging` to see the plan."),
          ],
        },
        {
          prompt:
            "fyi prod runs in europe-west4 and staging in europe-west1, and Priya owns the prod cluster, anything touching terraform/envs/prod needs her review",
          labels: [
            D("fact", "project", "Prod runs in europe-west4 and staging in europe-west1"),
            D(
              "rule",
              "project",
              "Changes to terraform/envs/prod need Priya's review (she owns the prod cluster)",
            ),
          ],
          steps: [say("Noted.")],
        },
        {
          prompt: "don't open a PR for this one, I'll bundle it with the ingress change tomorrow",
          labels: [N("one-off")],
          steps: [say("Understood, I'll leave the change uncommitted.")],
        },
      ],
    },
    {
      id: "r04-logfmt-global-prefs",
      split: "test",
      project: "logfmt",
      style: "real CLI, personal preferences (global), a project rule",
      files: LOGFMT_FILES,
      turns: [
        {
          prompt:
            "I like to see the plan before you touch any code, give me a numbered list first. applies everywhere, not just here",
          labels: [D("preference", "global", "Show a numbered plan before changing any code")],
          steps: [say("Understood: a numbered plan first, then changes after you agree.")],
        },
        {
          prompt: "add a --color flag that colours keys",
          labels: [N("request")],
          steps: [
            readF("logfmt", "main.go"),
            say(
              "Plan:\n1. Parse flags with the standard `flag` package.\n2. Split each line into key=value pairs.\n3. Wrap keys in ANSI blue when `--color` is set.\n4. Add a table test for the splitting.",
            ),
          ],
        },
        {
          prompt: "go ahead. and no third-party dependencies in this tool, stdlib only",
          labels: [
            N("request"),
            D(
              "rule",
              "project",
              "logfmt uses the Go standard library only, no third-party dependencies",
            ),
          ],
          steps: [
            readF("logfmt", "pretty.go"),
            writeF(
              "logfmt",
              "pretty.go",
              'package main\n\nimport "strings"\n\nfunc pretty(line string, color bool) string {\n\tvar b strings.Builder\n\tfor _, kv := range strings.Fields(line) {\n\t\tk, v, _ := strings.Cut(kv, "=")\n\t\tif color {\n\t\t\tk = "\\x1b[34m" + k + "\\x1b[0m"\n\t\t}\n\t\tb.WriteString("\\n  " + k + " = " + v)\n\t}\n\treturn b.String()\n}\n',
            ),
            say(
              "Done with the standard library only: `pretty` takes a `color` flag and colours keys.",
            ),
          ],
        },
      ],
    },
    {
      id: "r05-orders-secret-key",
      split: "test",
      project: "orders-service",
      style: "real CLI, an Anthropic key and a Slack webhook pasted; a durable fact around one",
      files: ORDERS_FILES,
      turns: [
        {
          prompt:
            `the summariser endpoint needs the model key, use ANTHROPIC_API_KEY=${anthropicKey} for now and wire it through env`,
          labels: [N("request"), N("secret")],
          secrets: [anthropicKey],
          steps: [
            grepT("process.env"),
            say(
              "I've read the key from `process.env.ANTHROPIC_API_KEY` and not written it to any file. Put it in your shell or the deployment's secret store.",
            ),
          ],
        },
        {
          prompt:
            `alerts for this service go to #orders-alerts via ${slackHook}, the on-call rota is in PagerDuty under "Orders"`,
          labels: [
            D(
              "fact",
              "project",
              "orders-service alerts go to the #orders-alerts Slack channel (webhook kept as a secret)",
              {
                secret: true,
              },
            ),
            D("fact", "project", 'The orders-service on-call rota is in PagerDuty under "Orders"'),
          ],
          secrets: [slackHook],
          steps: [say("Noted. I won't put the webhook URL in the repository.")],
        },
      ],
    },
    {
      id: "r06-etl-decision-polars",
      split: "test",
      project: "etl-nightly",
      style: "real CLI, a decision between options with its reason, then work",
      files: ETL_FILES,
      turns: [
        {
          prompt: "the customers job is using 14GB of memory. options?",
          labels: [N("question")],
          steps: [
            readF("etl-nightly", "etl/jobs/customers.py"),
            say(
              "1. Chunked pandas reads (`chunksize=`), dedup per chunk then globally.\n2. Polars lazy frames: streaming engine, far less memory, a new dependency.\n3. Push the dedup into SQL with `DISTINCT ON`.",
            ),
          ],
        },
        {
          prompt:
            "let's go with 3, push it into SQL, because the warehouse already has the data and we don't want another dataframe library",
          labels: [
            D(
              "decision",
              "project",
              "Deduplicate customers in SQL (DISTINCT ON) rather than in a dataframe library, because the warehouse already holds the data",
            ),
          ],
          steps: [
            writeF(
              "etl-nightly",
              "etl/sql/customers_dedup.sql",
              "select distinct on (customer_id) *\nfrom raw.customers\norder by customer_id, updated_at desc;\n",
            ),
            say(
              "Added `etl/sql/customers_dedup.sql`; the job can read from it instead of deduplicating in pandas.",
            ),
          ],
        },
        {
          prompt: "run the tests",
          labels: [N("request")],
          steps: [
            bash("ls tests", "List the tests"),
            say(
              "There is one test file, `tests/test_customers.py`; pytest isn't installed here, so I couldn't run it.",
            ),
          ],
        },
      ],
    },
    {
      id: "r07-logfmt-private",
      split: "test",
      project: "logfmt",
      style: "real CLI, a private block, a preference outside it",
      files: LOGFMT_FILES,
      turns: [
        {
          prompt:
            "<private>I'm interviewing at another company next week and I'm using this tool as my portfolio piece.</private> tidy up the README so it explains usage with an example",
          labels: [N("private"), N("request")],
          steps: [
            readF("logfmt", "README.md"),
            writeF(
              "logfmt",
              "README.md",
              "# logfmt\n\nPretty-prints logfmt lines from stdin.\n\n## Usage\n\n    tail -f app.log | logfmt --color\n",
            ),
            say("README now has a usage section with an example."),
          ],
        },
        {
          prompt: "for READMEs I prefer short sentences and no marketing words like 'blazing fast'",
          labels: [
            D(
              "preference",
              "global",
              "READMEs in short sentences, without marketing words like 'blazing fast'",
            ),
          ],
          steps: [say("Noted.")],
        },
      ],
    },
    {
      id: "r08-infra-contradict-stored",
      split: "test",
      project: "platform-infra",
      style: "real CLI, contradicts a stored memory and repeats another",
      stored: [
        "Apply Terraform with `make apply-<env>`",
        "The ingress controller runs 2 replicas",
      ],
      files: INFRA_FILES,
      turns: [
        {
          prompt:
            "we don't use make apply anymore, Terraform changes are applied only by Atlantis from the PR now. update the Makefile to remove apply",
          labels: [
            D(
              "rule",
              "project",
              "Terraform changes are applied only by Atlantis from the PR, not with make apply",
              {
                contra: "Apply Terraform with `make apply-<env>`",
              },
            ),
            N("request"),
          ],
          steps: [
            readF("platform-infra", "Makefile"),
            editF(
              "platform-infra",
              "Makefile",
              "\n\napply-%:\n\tterraform -chdir=terraform/envs/$* apply\n",
              "\n",
            ),
            say("Removed the `apply-%` target; `plan-%` stays."),
          ],
        },
        {
          prompt: "also bump ingress requests to 300m cpu. it still runs 2 replicas, keep that",
          labels: [
            N("request"),
            D("fact", "project", "The ingress controller runs 2 replicas", {
              dup: "The ingress controller runs 2 replicas",
            }),
          ],
          steps: [
            readF("platform-infra", "helm/ingress/values.yaml"),
            editF("platform-infra", "helm/ingress/values.yaml", "cpu: 200m", "cpu: 300m"),
            say("CPU request is now 300m; replicas unchanged at 2."),
          ],
        },
      ],
    },
    {
      id: "r09-orders-oneoffs-questions",
      split: "test",
      project: "orders-service",
      style: "real CLI, nothing durable: one-offs that look like rules, questions",
      files: ORDERS_FILES,
      turns: [
        {
          prompt: "which port does the server listen on by default?",
          labels: [N("question")],
          steps: [readF("orders-service", "src/server.ts"), say("8080, unless `PORT` is set.")],
        },
        {
          prompt: "skip the tests this time and just bump the version to 1.9.1",
          labels: [N("one-off"), N("request")],
          steps: [
            readF("orders-service", "package.json"),
            editF("orders-service", "package.json", '"version": "1.9.0"', '"version": "1.9.1"'),
            say("Bumped to 1.9.1 without running the tests."),
          ],
        },
        {
          prompt: "don't commit yet, I want to look at the diff first",
          labels: [N("one-off")],
          steps: [
            bash("git diff --stat", "Show the diff summary"),
            say("Not committed. The diff touches only `package.json`."),
          ],
        },
      ],
    },
    {
      id: "r10-etl-secret-db-openai",
      split: "test",
      project: "etl-nightly",
      style: "real CLI, a password in a URL and an OpenAI key; a durable fact without the secret",
      files: ETL_FILES,
      turns: [
        {
          prompt:
            `connect the invoices job to the reporting db: postgresql://reporter:${dbPass}@reporting-db.internal:5432/reports. the reporting db is read-only for us, never write to it`,
          labels: [
            N("request"),
            N("secret"),
            D(
              "rule",
              "project",
              "The reporting database is read-only for the ETL: never write to it",
            ),
          ],
          secrets: [dbPass],
          steps: [
            readF("etl-nightly", "etl/jobs/invoices.py"),
            say(
              "I've made the job read the URL from `REPORTING_DB_URL` and open the connection read-only. I haven't stored the password.",
            ),
          ],
        },
        {
          prompt:
            `and the enrichment step calls OpenAI with OPENAI_API_KEY=${openaiKey}, check it's read from env too`,
          labels: [N("request"), N("secret")],
          secrets: [openaiKey],
          steps: [
            grepT("OPENAI_API_KEY"),
            say(
              "No file mentions `OPENAI_API_KEY` yet; the enrichment step isn't in this repository.",
            ),
          ],
        },
      ],
    },
    {
      id: "r11-logfmt-npm-token-release",
      split: "test",
      project: "logfmt",
      style: "real CLI, an npm token inside a durable rule; release facts",
      files: LOGFMT_FILES,
      turns: [
        {
          prompt:
            `we also ship logfmt as an npm wrapper package. publishing uses the token ${npmTok}; always publish from CI with that token, never from a laptop`,
          labels: [
            D(
              "rule",
              "project",
              "Publish the logfmt npm wrapper only from CI with its publish token, never from a laptop",
              {
                secret: true,
              },
            ),
          ],
          secrets: [npmTok],
          steps: [
            say(
              "Understood. I won't write the token anywhere; CI should read it from its secret store.",
            ),
          ],
        },
        {
          prompt: "release tags look like v1.2.3 and goreleaser builds the binaries from the tag",
          labels: [
            D(
              "fact",
              "project",
              "Release tags look like v1.2.3; goreleaser builds the binaries from the tag",
            ),
          ],
          steps: [say("Noted.")],
        },
        {
          prompt: "what's the latest tag?",
          labels: [N("question")],
          steps: [
            bash("git tag --list", "List tags"),
            say("There are no tags yet in this checkout."),
          ],
        },
      ],
    },
    {
      id: "r12-orders-single-turn-rule",
      split: "test",
      project: "orders-service",
      style: "real CLI, one turn: a correction in passing with a request",
      files: ORDERS_FILES,
      turns: [
        {
          prompt:
            "rename the route file to orders.routes.ts. we use the .routes.ts suffix for every route module in this service",
          labels: [
            N("request"),
            D("rule", "project", "Route modules in orders-service use the .routes.ts suffix"),
          ],
          steps: [
            bash(
              "git mv src/routes/orders.ts src/routes/orders.routes.ts",
              "Rename the route module",
            ),
            readF("orders-service", "src/server.ts"),
            editF(
              "orders-service",
              "src/server.ts",
              'from "./routes/orders"',
              'from "./routes/orders.routes"',
            ),
            say(
              "Renamed to `src/routes/orders.routes.ts` and updated the import in `src/server.ts`.",
            ),
          ],
        },
      ],
    },
  ];
}
