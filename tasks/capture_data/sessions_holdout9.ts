/**
 * Hand-written sessions of the capture benchmark's `holdout9` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs pages or
 * results (nor any other helper's worktree), and frozen before any tuning against them. 23 of its
 * 44 sessions have stored memories, which the user repeats in other words (duplicates), changes
 * (contradictions) or extends with a new statement on the same topic; the others are ordinary
 * sessions with rules, decisions, setup facts in passing, global preferences, hard negatives and
 * pasted secrets. Ten projects new to the data set: a PySpark/Delta job on Databricks, a Pulumi
 * stack in Go, an iOS SwiftUI app, a Haskell CLI, a Nomad/Consul jobs repository, a Svelte 5
 * component library, a no_std Rust radio driver, a Laravel tenant portal, a Unity game and a
 * Bazel/C++ gRPC service.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) that state no standing rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout9 split's projects. */
const P = {
  delta: "/home/nadia/jobs/claims-delta-etl",
  pulumi: "/Users/marco/infra/pulumi-edge-go",
  swift: "/Users/jun/Developer/HabitGarden",
  hs: "/home/ines/hs/tabula-hs",
  nomad: "/home/felix/ops/nomad-jobs",
  svelte: "/home/sara/code/pebble-ui",
  lora: "/home/bjorn/embedded/lora-sx126x",
  laravel: "/home/omar/sites/tenant-portal",
  unity: "/Users/lea/Unity/ShardRunner",
  bazel: "/home/tariq/src/quote-engine",
} as const;
type Proj = keyof typeof P;

const WORK: Record<Proj, ToolStep[]> = {
  delta: [
    bash(
      "python -m pytest tests/unit -q",
      "..........................                                               [100%]\n26 passed in 38.40s",
    ),
    read(
      `${P.delta}/jobs/claims_silver.py`,
      'from delta.tables import DeltaTable\nfrom pyspark.sql import functions as F\n\n\ndef upsert_claims(spark, batch_df):\n    target = DeltaTable.forName(spark, "claims.silver_claims")\n    (target.alias("t")\n        .merge(batch_df.alias("s"), "t.claim_id = s.claim_id")\n        .whenMatchedUpdateAll()\n        .whenNotMatchedInsertAll()\n        .execute())',
    ),
  ],
  pulumi: [
    bash(
      "pulumi preview --stack dev --diff | tail -4",
      "    ~ aws:cloudfront:Distribution edge-cdn update [diff: ~defaultCacheBehavior]\n\nResources:\n    ~ 1 to update\n    31 unchanged",
    ),
    read(
      `${P.pulumi}/main.go`,
      'package main\n\nimport (\n\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"\n\n\t"github.com/acme/pulumi-edge-go/pkg/components"\n)\n\nfunc main() {\n\tpulumi.Run(func(ctx *pulumi.Context) error {\n\t\t_, err := components.NewEdgeCDN(ctx, "edge-cdn", &components.EdgeCDNArgs{})\n\t\treturn err\n\t})\n}',
    ),
  ],
  swift: [
    bash(
      "xcodebuild test -scheme HabitGarden -destination 'platform=iOS Simulator,name=iPhone 16' -quiet",
      "Test Suite 'All tests' passed at 2026-07-02 10:14:51.203.\n\t Executed 47 tests, with 0 failures (0 unexpected) in 6.118 (6.342) seconds",
    ),
    read(
      `${P.swift}/HabitGarden/Features/Streaks/StreakViewModel.swift`,
      "import Observation\nimport SwiftData\n\n@Observable\nfinal class StreakViewModel {\n    private(set) var current: Int = 0\n    private let context: ModelContext\n\n    init(context: ModelContext) { self.context = context }\n\n    func refresh() throws {\n        current = try StreakCalculator(context: context).currentStreak()\n    }\n}",
    ),
  ],
  hs: [
    bash(
      "cabal test all --test-show-details=direct | tail -3",
      "Finished in 0.8123 seconds\n212 examples, 0 failures\nTest suite tabula-test: PASS",
    ),
    read(
      `${P.hs}/src/Tabula/Parse.hs`,
      "module Tabula.Parse (parseTable, ParseError (..)) where\n\nimport qualified Data.Text as T\n\ndata ParseError = UnterminatedQuote Int | RaggedRow Int Int\n  deriving (Eq, Show)\n\nparseTable :: Char -> T.Text -> Either ParseError [[T.Text]]\nparseTable delim = traverse (splitRow delim) . zip [1 ..] . T.lines",
    ),
  ],
  nomad: [
    bash(
      "nomad job plan jobs/billing-api.nomad.hcl",
      '+/- Job: "billing-api"\n+/- Task Group: "api" (1 create/destroy update, 2 ignore)\n  +/- Task: "server" (forces create/destroy update)\n\nScheduler dry-run:\n- All tasks successfully allocated.',
    ),
    read(
      `${P.nomad}/jobs/billing-api.nomad.hcl`,
      'job "billing-api" {\n  datacenters = ["fra1"]\n  type        = "service"\n\n  group "api" {\n    count = 3\n    network { port "http" { to = 8080 } }\n    service {\n      name = "billing-api"\n      port = "http"\n      check { type = "http" path = "/healthz" interval = "10s" timeout = "2s" }\n    }\n  }\n}',
    ),
  ],
  svelte: [
    bash(
      "pnpm vitest run --project components",
      " ✓ src/lib/Button/Button.test.ts (6 tests) 71ms\n ✓ src/lib/Select/Select.test.ts (11 tests) 204ms\n\n Test Files  2 passed (2)\n      Tests  17 passed (17)",
    ),
    read(
      `${P.svelte}/src/lib/Button/Button.svelte`,
      '<script lang="ts">\n  let { variant = "solid", disabled = false, children, ...rest } = $props();\n</script>\n\n<button class="pb-button pb-button--{variant}" {disabled} {...rest}>\n  {@render children?.()}\n</button>',
    ),
  ],
  lora: [
    bash(
      "cargo build --target thumbv7em-none-eabihf --release",
      "   Compiling lora-sx126x v0.4.1 (/home/bjorn/embedded/lora-sx126x)\n    Finished `release` profile [optimized] target(s) in 9.04s",
    ),
    read(
      `${P.lora}/src/lib.rs`,
      "#![no_std]\n\nuse embedded_hal::digital::{InputPin, OutputPin};\nuse embedded_hal::spi::SpiDevice;\n\npub struct Sx126x<SPI, BUSY, RESET> {\n    spi: SPI,\n    busy: BUSY,\n    reset: RESET,\n}",
    ),
  ],
  laravel: [
    bash(
      "./vendor/bin/pest --parallel",
      "  PASS  Tests\\Feature\\LeaseRenewalTest\n  ✓ it renews a lease with a new rent amount\n  ✓ it rejects a renewal after move-out\n\n  Tests:    138 passed (402 assertions)\n  Duration: 11.27s",
    ),
    read(
      `${P.laravel}/app/Http/Controllers/MaintenanceRequestController.php`,
      "<?php\n\nnamespace App\\Http\\Controllers;\n\nuse App\\Http\\Requests\\StoreMaintenanceRequest;\nuse App\\Models\\MaintenanceRequest;\n\nclass MaintenanceRequestController extends Controller\n{\n    public function store(StoreMaintenanceRequest $request)\n    {\n        return MaintenanceRequest::create($request->validated());\n    }\n}",
    ),
  ],
  unity: [
    bash(
      "/Applications/Unity/Hub/Editor/2022.3.41f1/Unity.app/Contents/MacOS/Unity -batchmode -runTests -testPlatform EditMode -projectPath . -testResults /tmp/editmode.xml -quit && grep -o 'result=\"[A-Za-z]*\"' /tmp/editmode.xml | head -1",
      'result="Passed"',
    ),
    read(
      `${P.unity}/Assets/Scripts/Shards/ShardSpawner.cs`,
      "using UnityEngine;\n\npublic class ShardSpawner : MonoBehaviour\n{\n    [SerializeField] private Shard shardPrefab;\n    [SerializeField] private float interval = 0.8f;\n\n    private float timer;\n\n    private void Update()\n    {\n        timer += Time.deltaTime;\n        if (timer < interval) return;\n        timer = 0f;\n        Spawn();\n    }\n}",
    ),
  ],
  bazel: [
    bash(
      "bazel test //pricing/... --test_output=errors",
      "INFO: Analyzed 23 targets (0 packages loaded, 0 targets configured).\nINFO: Found 17 targets and 6 test targets...\nINFO: Build completed successfully, 41 total actions\n//pricing:quote_test                                            PASSED in 0.9s\n\nExecuted 6 out of 6 tests: 6 tests pass.",
    ),
    read(
      `${P.bazel}/pricing/quote.cc`,
      '#include "pricing/quote.h"\n\n#include "absl/status/statusor.h"\n\nnamespace pricing {\n\nabsl::StatusOr<Quote> Price(const QuoteRequest& req, const RefData& ref) {\n  if (req.legs().empty()) return absl::InvalidArgumentError("no legs");\n  return PriceLegs(req, ref);\n}\n\n}  // namespace pricing',
    ),
  ],
};

const ACK = [
  "Done — tests pass.",
  "Changed it; the suite is green.",
  "OK, that's in place.",
  "Applied, nothing else was affected.",
  "All set.",
  "Updated and re-ran the checks.",
  "Done. Let me know if you want anything adjusted.",
];

/** A user turn: the prompt and its labels, answered with routine tool work and a short reply. */
type Turn = [string, ...Label[]];

function turns(s: Session, p: Proj, ts: Turn[], from = 0): void {
  ts.forEach(([text, ...labels], i) => {
    s.user(text, ...labels);
    s.tools(WORK[p][(from + i) % WORK[p].length]);
    s.say(ACK[(i * 3 + text.length) % ACK.length]);
  });
}

/** The agent works, then asks the user something. */
function ask(s: Session, p: Proj, question: string, step = 0): void {
  s.tools(WORK[p][step % WORK[p].length]);
  s.say(question);
}

function sc(
  id: string,
  p: Proj,
  style: string,
  start: string,
  run: (s: Session) => void,
  stored: string[] = [],
): Script {
  const versions = ["2.0.31", "2.0.35", "2.0.37"];
  return {
    id,
    cwd: P[p],
    style,
    start,
    version: versions[id.charCodeAt(3) % versions.length],
    run,
    ...(stored.length ? { stored } : {}),
  };
}

// Stored memories, named once so the labels quote them exactly.
const S = {
  cdRuntime: "claims-delta-etl jobs run on Databricks Runtime 14.3 LTS.",
  cdMerge: "Writes to silver tables use MERGE on the business key, never overwrite mode.",
  cdTests:
    "PySpark unit tests run locally with chispa against a local SparkSession, not on a cluster.",
  pgBackend: "Pulumi state lives in the S3 backend s3://acme-pulumi-state, not in Pulumi Cloud.",
  pgTags: "Every AWS resource gets the owner and cost-center tags.",
  pgGo: "The Pulumi program is built with Go 1.22.",
  pgStacks: "The stacks are dev, staging and prod; prod is only updated from CI.",
  hgTarget: "HabitGarden supports iOS 17 and newer.",
  hgData: "Persistence uses SwiftData; no Core Data code.",
  hgArch: "Views get their state from @Observable view models; no business logic in views.",
  hgStrings: "User-facing strings go through the String Catalog (Localizable.xcstrings).",
  thBuild: "tabula-hs builds with cabal, not stack.",
  thGhc: "tabula-hs supports GHC 9.6.",
  thErrors: "Parse errors are returned as Either ParseError, never thrown with error.",
  njVault: "Secrets reach Nomad jobs through Vault template blocks, never through env blocks.",
  njConsul: "Every service registers in Consul with an HTTP health check on /healthz.",
  njOwner: "Felix owns the Nomad servers and does their upgrades.",
  njDc: "Production jobs run in the fra1 datacenter.",
  puSvelte: "pebble-ui components are written for Svelte 5 with runes.",
  puCss: "Styling uses CSS custom properties prefixed --pb-; no Tailwind inside the library.",
  puChangeset: "Every PR that changes a component adds a changeset.",
  lrNoStd: "lora-sx126x is no_std and never allocates.",
  lrHal: "The driver is generic over the embedded-hal 1.0 traits.",
  lrMsrv: "The MSRV of lora-sx126x is Rust 1.75.",
  lrBoard: "Hardware tests run on the Nucleo-WL55JC board.",
  tpPhp: "tenant-portal runs on PHP 8.2 and Laravel 11.",
  tpQueue: "Queued jobs run on Redis through Horizon.",
  tpTests: "Tests are written with Pest, not PHPUnit test classes.",
  tpDeploy: "tenant-portal deploys through Laravel Forge from the main branch.",
  srUnity: "ShardRunner is on Unity 2022.3 LTS.",
  srInput: "Input goes through the new Input System; no UnityEngine.Input calls.",
  srScenes: "Lea owns the MainMenu and Hub scenes; nobody else edits them.",
  qeAbseil: "Errors are returned as absl::Status / absl::StatusOr; no exceptions.",
  qePort: "The quote-engine gRPC server listens on port 50051.",
  qeBazel: "quote-engine builds with Bazel 7 and bzlmod; no WORKSPACE file.",
  qeStd: "quote-engine targets C++20.",
  gShort: "Keep answers short: no recap of what was changed unless asked.",
  gBranch: "Branch names are <ticket-id>-<short-slug>.",
} as const;

const DELTA: Script[] = [
  sc(
    "g01-delta-merge-like-always",
    "delta",
    "a stored write rule repeated casually; a new rule on the same topic",
    "2026-06-08T07:45:00.000Z",
    (s) =>
      turns(s, "delta", [
        [
          "add the provider_npi column to silver_claims, its in the bronze feed since monday",
          R,
        ],
        [
          "upsert it like always, merge on claim_id. no overwrite pls",
          D(
            "rule",
            "project",
            "Silver writes use MERGE on the business key (claim_id), not overwrite.",
            { dup: S.cdMerge },
          ),
        ],
        [
          "oh and the merge condition has to include claim_month too, otherwise delta scans the whole table instead of pruning partitions. that goes for every merge into silver",
          D(
            "rule",
            "project",
            "MERGE conditions into silver include the partition column claim_month so partitions are pruned.",
          ),
        ],
      ]),
    [S.cdMerge, S.cdRuntime],
  ),
  sc(
    "g02-delta-runtime-upgrade",
    "delta",
    "a stored runtime changed; a stored test rule repeated as the answer to the agent",
    "2026-06-09T13:10:00.000Z",
    (s) => {
      s.user(
        "we upgraded the job clusters to 15.4 LTS last sprint so the `applyInPandas` warning is expected now, can you clean up the deprecated calls",
        R,
        D("fact", "project", "The jobs run on Databricks Runtime 15.4 LTS.", {
          contra: S.cdRuntime,
        }),
      );
      ask(
        s,
        "delta",
        "Found three deprecated calls. Should I validate the change on the dev cluster, or locally?",
        1,
      );
      s.user(
        "locally. chispa + local spark session, same as always, we don't burn cluster hours on unit tests",
        D("rule", "project", "Unit tests run locally with chispa and a local SparkSession.", {
          dup: S.cdTests,
        }),
      );
      s.tools(WORK.delta[0]);
      s.say("Replaced the three calls; 26 tests pass locally.");
    },
    [S.cdRuntime, S.cdTests],
  ),
  sc(
    "g03-delta-autoloader-trace",
    "delta",
    "a long pasted traceback with a setup fact and a rule at its end; hard negatives",
    "2026-06-10T09:30:00.000Z",
    (s) => {
      s.user(
        "why does autoloader always pick up the _SUCCESS files??",
        HN("question"),
      );
      s.tools(WORK.delta[1]);
      s.say(
        "Possibly because the path glob is `/*` rather than `/*.parquet`, so the marker files match.",
        HN("hypothesis"),
      );
      s.user(
        "here's the full error from last night's run:\n\n```\nPy4JJavaError: An error occurred while calling o412.start.\n: org.apache.spark.sql.streaming.StreamingQueryException: [CF_INCOMPATIBLE_SCHEMA_CHANGE] Incompatible schema change detected in file abfss://landing@claimsdl.dfs.core.windows.net/claims/2026/06/09/_SUCCESS\n\tat org.apache.spark.sql.execution.streaming.StreamExecution.runStream(StreamExecution.scala:332)\n\tat org.apache.spark.sql.execution.streaming.StreamExecution$$anon$1.run(StreamExecution.scala:211)\n```\n\nfix the glob. fyi the checkpoint for that stream is dbfs:/checkpoints/claims_bronze_v2 — never delete it or rename it, autoloader would re-ingest three years of files",
        R,
        D(
          "fact",
          "project",
          "The bronze claims stream's checkpoint is dbfs:/checkpoints/claims_bronze_v2.",
        ),
        D(
          "rule",
          "project",
          "Never delete or rename the bronze stream's checkpoint (Auto Loader would re-ingest everything).",
        ),
      );
      s.tools(WORK.delta[0]);
      s.say("Narrowed the glob to `*.parquet`; the markers are skipped now.");
      s.user("maybe schema hints would've avoided this too?", HN("hypothesis"));
      s.say("Schema hints would not stop the marker files from being listed, only the glob does.");
    },
  ),
  sc(
    "g04-delta-slack-webhook",
    "delta",
    "a Slack webhook inside a durable rule about job alerts",
    "2026-06-11T16:20:00.000Z",
    (s) => {
      const hook = s.secret("slackWebhook");
      s.userS(
        `job failures go to #claims-alerts through this webhook: ${hook} — every job we add gets an on_failure notification wired to it`,
        [hook],
        D(
          "rule",
          "project",
          "Every job gets an on_failure notification to the #claims-alerts Slack webhook.",
          { secret: true },
        ),
      );
      s.tools(WORK.delta[1]);
      s.say("Added the notification to claims_silver and claims_gold.");
      turns(s, "delta", [
        [
          "put the url in the secret scope, not the job json",
          R,
        ],
        [
          "scope name is claims-etl btw, all our secrets for these jobs live there",
          D("fact", "project", "The jobs' secrets live in the Databricks secret scope claims-etl."),
        ],
      ]);
    },
  ),
  sc(
    "g05-delta-backfill-negatives",
    "delta",
    "task-scoped rule words during a backfill; a decision with its reason",
    "2026-06-12T08:05:00.000Z",
    (s) =>
      turns(s, "delta", [
        [
          "for today's backfill always run with spark.sql.shuffle.partitions=800",
          HN("one-off"),
        ],
        ["never mind the VACUUM step, we'll do it after", HN("one-off")],
        ["should we always z-order silver by member_id?", HN("question")],
        [
          "and just so you know why the layout is what it is: we partition by claim_month and not by day, daily partitions gave us ~40k tiny files and the merges crawled",
          D(
            "decision",
            "project",
            "Tables are partitioned by claim_month, not by day (daily partitions made tens of thousands of tiny files).",
          ),
        ],
        ["ok kick off 2024-01 through 2024-06", R],
      ]),
  ),
];

const PULUMI: Script[] = [
  sc(
    "g06-pulumi-dup-negated",
    "pulumi",
    "stored facts repeated negated and with a marker",
    "2026-06-15T10:00:00.000Z",
    (s) =>
      turns(s, "pulumi", [
        ["add a WAF web ACL in front of the cloudfront distribution", R],
        [
          "don't do `pulumi login` to the cloud thing, we're on the s3 bucket backend",
          D("fact", "project", "Pulumi state is in the S3 backend, not Pulumi Cloud.", {
            dup: S.pgBackend,
          }),
        ],
        [
          "tag it owner + cost-center as usual (owner=edge-team, cost-center=CC-2231)",
          D("rule", "project", "AWS resources get owner and cost-center tags.", {
            dup: S.pgTags,
          }),
          D(
            "fact",
            "project",
            "The edge resources' tags are owner=edge-team and cost-center=CC-2231.",
          ),
        ],
      ], 1),
    [S.pgBackend, S.pgTags],
  ),
  sc(
    "g07-pulumi-go-bump",
    "pulumi",
    "a stored Go version changed; a new rule on the stacks that keeps the stored one",
    "2026-06-16T14:40:00.000Z",
    (s) =>
      turns(s, "pulumi", [
        [
          "bumped go.mod to 1.23 this morning so we can use range-over-func iterators in the components. update the CI image too",
          R,
          D("fact", "project", "The Pulumi program is built with Go 1.23.", { contra: S.pgGo }),
        ],
        [
          "also for the record: `pulumi preview --stack prod` from a laptop is fine, it's only `up` on prod that has to come from CI",
          D(
            "rule",
            "project",
            "Previewing the prod stack from a laptop is allowed; only `pulumi up` on prod must run in CI.",
          ),
        ],
        ["run preview on dev", R],
      ]),
    [S.pgGo, S.pgStacks],
  ),
  sc(
    "g08-pulumi-aws-keys",
    "pulumi",
    "AWS keys pasted for a one-off; a setup fact about config secrets",
    "2026-06-17T09:15:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `up fails with AccessDenied on the ACM cert. try with my creds for now:\naws_access_key_id = ${id}\naws_secret_access_key = ${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(WORK.pulumi[0]);
      s.say("The role is missing acm:RequestCertificate in us-east-1; your keys have it.");
      turns(s, "pulumi", [
        [
          "ok add it to the deploy role. and note: stack config secrets are set with `pulumi config set --secret` and encrypted with the awskms provider, key alias/pulumi-edge",
          R,
          D(
            "fact",
            "project",
            "Stack config secrets are set with `pulumi config set --secret`, encrypted by the awskms provider with key alias/pulumi-edge.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "g09-pulumi-components-confirm",
    "pulumi",
    "a convention proposed by the agent and confirmed; hard negatives",
    "2026-06-18T11:50:00.000Z",
    (s) => {
      s.user("the edge lambda and its role are just loose resources in main.go, clean that up", R);
      ask(
        s,
        "pulumi",
        "I'd wrap it in a ComponentResource under pkg/components, like EdgeCDN. Should every new group of resources get its own component there?",
        1,
      );
      s.confirm(
        "yes, always",
        "rule",
        "project",
        "Each new group of resources is a ComponentResource under pkg/components.",
      );
      s.tools(WORK.pulumi[0]);
      s.say("Added components.EdgeFunction; preview shows only aliases, no replacements.");
      turns(s, "pulumi", [
        ["it always hangs on the distribution update for like 20 min", HN("one-off")],
        ["maybe the cache policy id changed upstream?", HN("hypothesis")],
      ]);
    },
  ),
];

const SWIFT: Script[] = [
  sc(
    "g10-swift-long-request-dups",
    "swift",
    "two stored rules repeated inside one long feature request",
    "2026-06-22T08:30:00.000Z",
    (s) =>
      turns(s, "swift", [
        [
          "ok next feature: streak freezes. a user can bank one freeze per 7-day streak, max 2 banked, and a freeze gets used automatically if they miss a day. store the freeze history with swiftdata (@Model, please none of the NSManagedObject stuff) and remember logic lives in the view model, the views just render — the calendar view shouldn't know what a freeze is. there's a design in Figma under 'Streaks v3'",
          R,
          D("fact", "project", "Persistence is SwiftData (@Model), not Core Data.", {
            dup: S.hgData,
          }),
          D("rule", "project", "Business logic lives in view models; views only render.", {
            dup: S.hgArch,
          }),
        ],
        ["add unit tests for the auto-use", R],
      ]),
    [S.hgData, S.hgArch],
  ),
  sc(
    "g11-swift-ios18",
    "swift",
    "a stored deployment target changed with its reason; a new rule on strings",
    "2026-06-23T15:00:00.000Z",
    (s) =>
      turns(s, "swift", [
        [
          "we're raising the minimum to iOS 18 with the next release, 94% of actives are on 18 already and we want the new widget APIs. go through the #available checks and remove the dead branches",
          R,
          D("decision", "project", "HabitGarden supports iOS 18 and newer (17 dropped).", {
            contra: S.hgTarget,
          }),
        ],
        [
          'while you\'re in there: plurals go through the catalog\'s plural variations, never "\\(count) habit" + "s" interpolation',
          D(
            "rule",
            "project",
            "Plurals use the String Catalog's plural variations, never hand-built interpolation.",
          ),
        ],
      ]),
    [S.hgTarget, S.hgStrings],
  ),
  sc(
    "g12-swift-terse-typos",
    "swift",
    "terse messages with typos: a rule with its reason, setup facts, a global preference, hard negatives",
    "2026-06-24T21:10:00.000Z",
    (s) =>
      turns(s, "swift", [
        [
          "widget crashes on tstflight again. dont use force unwraps in the widget extension ever, it has no crash reporter and we only see it in reviews",
          R,
          D("rule", "project", "No force unwraps in the widget extension."),
        ],
        [
          "bundle id is com.junpark.habitgarden, widget is com.junpark.habitgarden.widget, app group group.com.junpark.habitgarden",
          D(
            "fact",
            "project",
            "Bundle id com.junpark.habitgarden; the widget is .widget; the app group is group.com.junpark.habitgarden.",
          ),
        ],
        ["just this once build for the iphone 15 sim, not 16", HN("one-off")],
        [
          "also in general pls dont put emojis in anything u write for me, commits, comments, whatever",
          D("preference", "global", "No emojis in anything written for the user."),
        ],
      ]),
  ),
  sc(
    "g13-swift-openai-proxy",
    "swift",
    "an OpenAI key inside a durable rule about the suggestions proxy",
    "2026-06-25T10:40:00.000Z",
    (s) => {
      const key = s.secret("openai");
      s.userS(
        `habit suggestions: the app never calls openai directly, everything goes through our proxy at api.habitgarden.app/suggest so the key never ships in the binary. for running the proxy locally the key is ${key} in proxy/.env`,
        [key],
        D(
          "rule",
          "project",
          "The app never calls OpenAI directly; suggestions go through the proxy at api.habitgarden.app/suggest.",
          { secret: true },
        ),
      );
      s.tools(WORK.swift[1]);
      s.say("Got it. The SuggestionsClient already points at the proxy.");
      turns(s, "swift", [
        ["add a 10s timeout and a retry to SuggestionsClient", R],
      ]);
    },
  ),
  sc(
    "g14-swift-strings-exception",
    "swift",
    "a stored rule repeated as an answer to the agent; an exception to another stored rule",
    "2026-06-26T09:00:00.000Z",
    (s) => {
      s.user("build the new onboarding flow, 3 screens, copy is in the ticket", R);
      ask(s, "swift", "Should the onboarding copy go in the views as string literals for now?");
      s.user(
        "no, into the xcstrings catalog like every other string",
        D("rule", "project", "All user-facing strings go in the String Catalog.", {
          dup: S.hgStrings,
        }),
      );
      ask(s, "swift", "Added the keys. Do you want an OnboardingViewModel for the page state?", 1);
      s.user(
        "no. one exception to the VM rule from now on: onboarding keeps its page state in the view with @State, it's throwaway UI",
        D(
          "rule",
          "project",
          "Exception: onboarding keeps its page state in the view with @State, without a view model.",
          { contra: S.hgArch },
        ),
      );
      s.tools(WORK.swift[0]);
      s.say("Onboarding done with @State; tests pass.");
    },
    [S.hgStrings, S.hgArch],
  ),
];

const HASKELL: Script[] = [
  sc(
    "g15-hs-dup-terse",
    "hs",
    "stored rules repeated tersely inside requests",
    "2026-06-29T18:20:00.000Z",
    (s) =>
      turns(s, "hs", [
        [
          "add a --delimiter flag. cabal, not stack — stack.yaml isn't coming back",
          R,
          D("fact", "project", "The project builds with cabal; no stack.", { dup: S.thBuild }),
        ],
        [
          "bad delimiter = Left, don't `error` on it",
          D("rule", "project", "Bad input is reported with Left, never error.", {
            dup: S.thErrors,
          }),
        ],
        ["k run the tests", R],
      ]),
    [S.thBuild, S.thErrors],
  ),
  sc(
    "g16-hs-ghc-bump",
    "hs",
    "a stored compiler version changed; a new fact about the test suite",
    "2026-06-30T19:00:00.000Z",
    (s) =>
      turns(s, "hs", [
        [
          "CI now builds with ghc 9.8 and 9.10, 9.6 is dropped — text-2.1 needs it. update tested-with in the cabal file",
          R,
          D("fact", "project", "tabula-hs supports GHC 9.8 and 9.10 (9.6 dropped).", {
            contra: S.thGhc,
          }),
        ],
        [
          "and the parser tests are hspec plus hedgehog properties, add a roundtrip property for the new quoting",
          R,
          D("fact", "project", "Parser tests are hspec with hedgehog properties."),
        ],
      ]),
    [S.thGhc],
  ),
  sc(
    "g17-hs-maintainer",
    "hs",
    "a maintainer's rules for contributors and a decision with its reason",
    "2026-07-01T07:40:00.000Z",
    (s) =>
      turns(s, "hs", [
        [
          "reviewing PR #88. contributors have to add a golden test under test/golden/ for every new flag, that's the only way I catch output regressions. ask them for it in a comment",
          R,
          D("rule", "project", "Every new CLI flag comes with a golden test under test/golden/."),
        ],
        [
          "and tell them we're not switching to cmdargs — we picked optparse-applicative because the generated --help is much better",
          R,
          D(
            "decision",
            "project",
            "The CLI uses optparse-applicative, not cmdargs (better generated --help).",
          ),
        ],
        ["is it always this slow to resolve deps on a fresh cabal store?", HN("question")],
      ]),
  ),
  sc(
    "g18-hs-pasted-error",
    "hs",
    "a pasted compiler error in content blocks with a release fact after it; hard negatives",
    "2026-07-02T12:00:00.000Z",
    (s) => {
      s.userBlocks(
        [
          "src/Tabula/Render.hs:41:17: error: [GHC-83865]\n    • Couldn't match type ‘[Char]’ with ‘T.Text’\n      Expected: T.Text\n        Actual: String\n    • In the first argument of ‘T.justifyLeft’, namely ‘(show n)’",
          "fix this. btw release binaries come from `nix build .#static`, the static musl one is what we ship on the github release",
        ],
        R,
        D(
          "fact",
          "project",
          "Release binaries are built with `nix build .#static` (static musl) and attached to the GitHub release.",
        ),
      );
      s.tools(WORK.hs[1]);
      s.say("Used T.pack (show n); it compiles.");
      turns(s, "hs", [
        ["it never finds the zlib headers on my mac", HN("one-off")],
        ["probably homebrew moved them again", HN("hypothesis")],
      ]);
    },
  ),
];

const NOMAD: Script[] = [
  sc(
    "g19-nomad-vault-story",
    "nomad",
    "a stored rule repeated with a story; a new fact on the same topic",
    "2026-07-06T08:10:00.000Z",
    (s) =>
      turns(s, "nomad", [
        ["new job for the invoice-renderer, copy billing-api as a base", R],
        [
          "db creds through a vault template stanza, NOT env — somebody leaked a db password via `nomad job inspect` last year and we had to rotate everything",
          D("rule", "project", "Secrets come from Vault template blocks, not env.", {
            dup: S.njVault,
          }),
        ],
        [
          "the vault role for workloads is nomad-workloads, use that in the vault block",
          D("fact", "project", "The Vault role for Nomad workloads is nomad-workloads."),
        ],
      ]),
    [S.njVault, S.njConsul],
  ),
  sc(
    "g20-nomad-owner-handover",
    "nomad",
    "a stored owner changed; a stored datacenter repeated as a reply to the agent",
    "2026-07-07T10:30:00.000Z",
    (s) => {
      s.user(
        "Felix handed the nomad servers over to Ana this week, she does the upgrades from now on. she wants a job for the new geo-lookup service",
        R,
        D("fact", "project", "Ana owns the Nomad servers and does their upgrades.", {
          contra: S.njOwner,
        }),
      );
      ask(s, "nomad", "Which datacenter should geo-lookup target?", 1);
      s.user(
        "fra1, like everything in prod",
        D("fact", "project", "Production jobs run in fra1.", { dup: S.njDc }),
      );
      s.tools(WORK.nomad[0]);
      s.say("Wrote jobs/geo-lookup.nomad.hcl; the plan allocates cleanly.");
    },
    [S.njOwner, S.njDc],
  ),
  sc(
    "g21-nomad-gitlab-token",
    "nomad",
    "a GitLab deploy token inside a durable rule about image pulls",
    "2026-07-08T13:20:00.000Z",
    (s) => {
      const tok = s.secret("gitlab");
      s.userS(
        `images come from registry.gitlab.com/acme/ops, every job pulls with the deploy user gitlab-pull and token ${tok} in the docker auth block`,
        [tok],
        D(
          "fact",
          "project",
          "Jobs pull images from registry.gitlab.com/acme/ops as the deploy user gitlab-pull (docker auth block).",
          { secret: true },
        ),
      );
      s.tools(WORK.nomad[1]);
      s.say(
        "I'd rather not put the token itself into the job files. Should it come from Vault instead?",
      );
      s.user("yeah template it from vault, kv/ops/gitlab-pull", R);
      s.tools(WORK.nomad[0]);
      s.say("Templated from kv/ops/gitlab-pull.");
    },
  ),
  sc(
    "g22-nomad-migration-night",
    "nomad",
    "update-stanza rules and a UI address beside task-scoped instructions",
    "2026-07-09T19:45:00.000Z",
    (s) =>
      turns(s, "nomad", [
        ["for the migration tonight never drain more than one client at a time", HN("one-off")],
        [
          "every job has max_parallel = 1 and auto_revert = true in its update block, check the three new ones",
          R,
          D(
            "rule",
            "project",
            "Every job's update block sets max_parallel = 1 and auto_revert = true.",
          ),
        ],
        ["should every service always get a canary?", HN("question")],
        [
          "the UI is https://nomad.int.acme.net:4646 if you need to look at an alloc",
          D("fact", "project", "The Nomad UI is at https://nomad.int.acme.net:4646."),
        ],
      ]),
  ),
];

const SVELTE: Script[] = [
  sc(
    "g23-svelte-runes-dups",
    "svelte",
    "stored rules repeated with a marker and paraphrased; a new rule on the same topic",
    "2026-07-13T09:00:00.000Z",
    (s) =>
      turns(s, "svelte", [
        [
          "new Tooltip component. runes only, as we agreed, no `export let`",
          R,
          D("rule", "project", "Components use Svelte 5 runes, not `export let`.", {
            dup: S.puSvelte,
          }),
        ],
        [
          "no tailwind classes in it, theme it with --pb- vars",
          D("rule", "project", "Theme with --pb- custom properties; no Tailwind.", {
            dup: S.puCss,
          }),
        ],
        [
          "and every new --pb- variable needs a default in src/lib/theme.css, consumers shouldn't have to set anything",
          D(
            "rule",
            "project",
            "Every --pb- custom property has a default value in src/lib/theme.css.",
          ),
        ],
      ]),
    [S.puSvelte, S.puCss],
  ),
  sc(
    "g24-svelte-release-please",
    "svelte",
    "a stored release rule reversed; a new rule that follows from it",
    "2026-07-14T11:30:00.000Z",
    (s) =>
      turns(s, "svelte", [
        [
          "we dropped changesets — release-please writes the changelog from the commit messages now. delete the .changeset dir",
          R,
          D(
            "decision",
            "project",
            "Changesets are dropped; release-please generates the changelog from commits.",
            { contra: S.puChangeset },
          ),
        ],
        [
          "so commit messages here have to be conventional commits (feat:, fix:, feat!: for breaking), otherwise the release is wrong",
          D("rule", "project", "Commits in pebble-ui follow Conventional Commits."),
        ],
      ]),
    [S.puChangeset],
  ),
  sc(
    "g25-svelte-ordinary",
    "svelte",
    "a decision with its reason, setup facts in passing, a hard negative",
    "2026-07-15T14:15:00.000Z",
    (s) =>
      turns(s, "svelte", [
        [
          "storybook won't start, it's on 6006 normally, something else grabbed it?",
          Q,
          D("fact", "project", "Storybook runs on port 6006."),
        ],
        ["never mind the docs site for now", HN("one-off")],
        [
          "remove the cjs build from package.json exports. we ship esm only from 2.0 on, every svelte 5 consumer is on a bundler anyway",
          R,
          D("decision", "project", "pebble-ui ships ESM only from 2.0 (no CJS build)."),
        ],
        ["run svelte-check", R],
      ]),
  ),
  sc(
    "g26-svelte-npm-token",
    "svelte",
    "an npm token pasted for a dry run; a publishing rule",
    "2026-07-16T08:50:00.000Z",
    (s) => {
      const tok = s.secret("npm");
      s.userS(
        `NPM_TOKEN=${tok} do a publish --dry-run so I see the tarball contents`,
        [tok],
        N(
          "secret",
        ),
        R,
      );
      s.tools(WORK.svelte[0]);
      s.say("Dry run: 48 files, 61 kB; dist/ and package.json only.");
      turns(s, "svelte", [
        [
          "good. real publishes only ever happen from the release workflow, nobody runs pnpm publish from a laptop",
          D(
            "rule",
            "project",
            "pebble-ui is published only by the release workflow, never from a laptop.",
          ),
        ],
      ]);
    },
  ),
];

const LORA: Script[] = [
  sc(
    "g27-lora-dup-abbrev",
    "lora",
    "stored rules repeated abbreviated",
    "2026-07-20T06:30:00.000Z",
    (s) =>
      turns(s, "lora", [
        ["add set_rx_duty_cycle", R],
        [
          "no_std, no alloc. ever.",
          D("rule", "project", "The crate is no_std and does not allocate.", { dup: S.lrNoStd }),
        ],
        [
          "generic over SpiDevice from eh 1.0, not tied to a stm32 hal",
          D("rule", "project", "The driver is generic over embedded-hal 1.0 (SpiDevice).", {
            dup: S.lrHal,
          }),
        ],
      ]),
    [S.lrNoStd, S.lrHal],
  ),
  sc(
    "g28-lora-msrv-bump",
    "lora",
    "a stored MSRV changed; a stored board repeated as the answer to the agent",
    "2026-07-21T07:15:00.000Z",
    (s) => {
      s.user(
        "bumping MSRV to 1.79 for inline const, update rust-version and the CI matrix",
        R,
        D("fact", "project", "The MSRV of lora-sx126x is Rust 1.79.", { contra: S.lrMsrv }),
      );
      ask(s, "lora", "Updated. Which board should the hardware-in-the-loop test run on?");
      s.user(
        "the WL55 nucleo, as always",
        D("fact", "project", "Hardware tests run on the Nucleo-WL55JC.", { dup: S.lrBoard }),
      );
      s.tools(WORK.lora[0]);
      s.say("Builds for thumbv7em; the HIL job is updated.");
    },
    [S.lrMsrv, S.lrBoard],
  ),
  sc(
    "g29-lora-maintainer-rules",
    "lora",
    "a maintainer's rules; descriptive 'always' and a hypothesis",
    "2026-07-22T20:00:00.000Z",
    (s) =>
      turns(s, "lora", [
        [
          "logging is defmt behind the `defmt` feature, we don't depend on the log crate",
          D("rule", "project", "Logging uses defmt behind the `defmt` feature; no log crate."),
        ],
        [
          "every register address constant cites the datasheet section (rev 2.1) in a doc comment, e.g. /// DS 13.4.1",
          D(
            "rule",
            "project",
            "Register address constants cite their datasheet section (rev 2.1) in a doc comment.",
          ),
        ],
        ["the busy pin always stays high after a cold boot on my board", HN("one-off")],
        ["maybe the tcxo needs a longer startup delay", HN("hypothesis")],
        ["add a configurable tcxo delay to Config", R],
      ]),
  ),
  sc(
    "g30-lora-long-compacted",
    "lora",
    "a longer session with a compaction: a CI fact in passing, a task-scoped instruction",
    "2026-07-23T09:00:00.000Z",
    (s) => {
      turns(s, "lora", [
        ["implement CAD (channel activity detection)", R],
        ["wire the cad_done irq too", R],
        [
          "the HIL tests run on the self-hosted runner lab-pi-2, it's the pi wired to the nucleo",
          D(
            "fact",
            "project",
            "Hardware-in-the-loop tests run on the self-hosted runner lab-pi-2.",
          ),
        ],
      ]);
      s.compact(
        "The user asked for channel activity detection in lora-sx126x; CAD and its cad_done IRQ are implemented. HIL tests run on the runner lab-pi-2.",
      );
      turns(s, "lora", [
        ["for this bisect don't run clippy, just build", HN("one-off")],
        ["the regression is between v0.4.0 and v0.4.1, find it", R],
        ["ok revert that commit and add a test", R],
      ], 1);
    },
  ),
];

const LARAVEL: Script[] = [
  sc(
    "g31-laravel-dups-with-reason",
    "laravel",
    "stored rules repeated, one with a reason from an incident",
    "2026-07-27T08:00:00.000Z",
    (s) =>
      turns(s, "laravel", [
        ["tenants need to be able to cancel a maintenance request while it's still open", R],
        [
          "pest tests pls, no phpunit classes",
          D("rule", "project", "Tests are Pest tests, not PHPUnit classes.", { dup: S.tpTests }),
        ],
        [
          "the notification job goes on the redis queue via horizon — we tried the database driver once and it melted during the end-of-month rent run",
          D("fact", "project", "Queued jobs go on Redis through Horizon.", { dup: S.tpQueue }),
        ],
      ]),
    [S.tpTests, S.tpQueue],
  ),
  sc(
    "g32-laravel-cloud-move",
    "laravel",
    "a stored deploy host changed; a stored version repeated with a consequence",
    "2026-07-28T10:45:00.000Z",
    (s) =>
      turns(s, "laravel", [
        [
          "we moved off forge to laravel cloud this month, it deploys on every push to main now. remove the forge deploy script from the repo",
          R,
          D("fact", "project", "tenant-portal deploys on Laravel Cloud on every push to main.", {
            contra: S.tpDeploy,
          }),
        ],
        [
          "and remember we're on 8.2, so no property hooks or asymmetric visibility, those are 8.4",
          D("fact", "project", "The app runs on PHP 8.2.", { dup: S.tpPhp }),
        ],
        ["refactor the Lease model accessors then", R],
      ]),
    [S.tpDeploy, S.tpPhp],
  ),
  sc(
    "g33-laravel-stripe-restricted",
    "laravel",
    "a Stripe restricted key inside a durable statement; a rule on money",
    "2026-07-29T13:30:00.000Z",
    (s) => {
      const key = s.secret("stripeRestricted");
      s.userS(
        `the monthly revenue report only ever uses a read-only restricted stripe key, never the full secret key. this is it: ${key}. add it to the reporting command`,
        [key],
        R,
        D(
          "rule",
          "project",
          "The revenue report uses a read-only Stripe restricted key, never the full secret key.",
          { secret: true },
        ),
      );
      s.tools(WORK.laravel[1]);
      s.say("I'll read it from config('services.stripe.report_key') rather than hard-coding it.");
      turns(s, "laravel", [
        [
          "good. amounts are integer cents everywhere, in the db and in the report",
          D("rule", "project", "Money amounts are stored and handled as integer cents."),
        ],
      ]);
    },
  ),
  sc(
    "g34-laravel-junior-relays-lead",
    "laravel",
    "a junior pastes the lead's list: rules, a setup fact and a ticket-only instruction",
    "2026-07-30T09:20:00.000Z",
    (s) => {
      s.user(
        "hi! first ticket for me on this repo (TP-412, the move-out checklist). Omar sent me this, pasting it so you know it too:\n\n> - validation lives in FormRequests, never in controllers\n> - every new route gets a policy, no inline Gate checks\n> - local db is mysql in sail, port 3307 (3306 clashes with everyone's local mysql)\n> - for TP-412 only: skip the policy tests, the policies are being rewritten next sprint\n\ncan you start with the migration for the checklist items?",
        R,
        D("rule", "project", "Validation lives in FormRequest classes, never in controllers."),
        D("rule", "project", "Every new route gets a policy; no inline Gate checks."),
        D("fact", "project", "The local MySQL runs in Sail on port 3307."),
        HN("one-off"),
      );
      s.tools(WORK.laravel[1]);
      s.say("Created the migration and the MoveOutChecklistItem model.");
      turns(s, "laravel", [
        ["thx!! now the FormRequest for it", R],
      ], 1);
    },
  ),
  sc(
    "g35-laravel-scheduler",
    "laravel",
    "a question and a hypothesis with rule words, then the real rule; a one-off",
    "2026-07-31T15:10:00.000Z",
    (s) =>
      turns(s, "laravel", [
        ["why does the scheduler always run twice on staging?", HN("question")],
        ["maybe both containers run schedule:work", HN("hypothesis")],
        [
          "yep that's it. only the `worker` container runs the scheduler, and every scheduled command gets ->onOneServer() so this can't happen again",
          D("fact", "project", "Only the worker container runs the Laravel scheduler."),
          D("rule", "project", "Every scheduled command uses ->onOneServer()."),
        ],
        ["just this time clear the config cache on staging yourself", HN("one-off")],
      ]),
  ),
];

const UNITY: Script[] = [
  sc(
    "g36-unity-input-dup",
    "unity",
    "a stored rule repeated negated; a new rule on the same topic",
    "2026-08-03T17:00:00.000Z",
    (s) =>
      turns(s, "unity", [
        ["add a dash on double-tap", R],
        [
          "don't touch Input.GetKey or any of the old input manager stuff",
          D("rule", "project", "No old Input Manager calls (Input.GetKey); use the Input System.", {
            dup: S.srInput,
          }),
        ],
        [
          "every action goes in Controls.inputactions with both a gamepad and a keyboard binding",
          D(
            "rule",
            "project",
            "Every input action is in Controls.inputactions with a gamepad and a keyboard binding.",
          ),
        ],
      ]),
    [S.srInput],
  ),
  sc(
    "g37-unity-6-upgrade",
    "unity",
    "a stored engine version changed; a stored ownership repeated in passing",
    "2026-08-04T18:30:00.000Z",
    (s) =>
      turns(s, "unity", [
        [
          "we upgraded to unity 6 on friday (6000.0.23f1), everyone's on it now. fix the obsolete API warnings",
          R,
          D("fact", "project", "ShardRunner is on Unity 6 (6000.0.23f1).", {
            contra: S.srUnity,
          }),
        ],
        [
          "skip MainMenu though, that's Lea's, she fixes her own scenes",
          D("rule", "project", "Don't edit the MainMenu scene; Lea owns it.", {
            dup: S.srScenes,
          }),
        ],
      ]),
    [S.srUnity, S.srScenes],
  ),
  sc(
    "g38-unity-ordinary",
    "unity",
    "a decision with its reason, a build fact, hard negatives",
    "2026-08-05T16:40:00.000Z",
    (s) =>
      turns(s, "unity", [
        [
          "shards use UnityEngine.Pool.ObjectPool now, Instantiate/Destroy was spiking GC every wave. convert the projectiles to it too",
          R,
          D(
            "decision",
            "project",
            "Shards and projectiles are pooled with UnityEngine.Pool.ObjectPool (Instantiate/Destroy caused GC spikes).",
          ),
        ],
        ["it never builds on my windows box", HN("one-off")],
        ["should we always bake lighting before committing a scene?", HN("question")],
        [
          "release builds come from Unity Build Automation, target 'android-release'",
          D(
            "fact",
            "project",
            "Release builds come from Unity Build Automation, target android-release.",
          ),
        ],
      ]),
  ),
  sc(
    "g39-unity-google-key",
    "unity",
    "a Google API key pasted for a one-off; a rule on config files",
    "2026-08-06T11:05:00.000Z",
    (s) => {
      const key = s.secret("google");
      s.userS(
        `leaderboard calls 403. is it the key? ${key} is the one in the console`,
        [key],
        N("secret"),
        Q,
      );
      s.tools(WORK.unity[1]);
      s.say("The key is fine; the Play Games app id in the manifest is the debug one.");
      turns(s, "unity", [
        [
          "ugh. fix the app id. and google-services.json is never committed, CI writes it from the secret store",
          R,
          D(
            "rule",
            "project",
            "google-services.json is never committed; CI writes it from the secret store.",
          ),
        ],
      ]);
    },
  ),
];

const BAZEL: Script[] = [
  sc(
    "g40-bazel-port-change",
    "bazel",
    "a stored rule repeated; a stored port changed with its reason",
    "2026-08-10T08:00:00.000Z",
    (s) =>
      turns(s, "bazel", [
        [
          "add a ValidateLegs step before pricing. return absl::StatusOr, we don't throw in this codebase",
          R,
          D("rule", "project", "Errors are returned as absl::StatusOr; no exceptions.", {
            dup: S.qeAbseil,
          }),
        ],
        [
          "also the grpc server listens on 9090 now, 50051 clashed with the mesh sidecar. update the default flag and the k8s probe",
          R,
          D("fact", "project", "The quote-engine gRPC server listens on port 9090.", {
            contra: S.qePort,
          }),
        ],
      ]),
    [S.qeAbseil, S.qePort],
  ),
  sc(
    "g41-bazel-bcr-rule",
    "bazel",
    "a stored build rule repeated as the answer to the agent; a new rule on dependencies",
    "2026-08-11T09:30:00.000Z",
    (s) => {
      s.user("we need fmt for the log formatting, add it", R);
      ask(s, "bazel", "Should I add it through an http_archive in a WORKSPACE file?");
      s.user(
        "no WORKSPACE, we're bzlmod only. third-party deps come from the BCR via bazel_dep, no http_archive either",
        D("rule", "project", "quote-engine uses bzlmod only; no WORKSPACE file.", {
          dup: S.qeBazel,
        }),
        D(
          "rule",
          "project",
          "Third-party dependencies come from the Bazel Central Registry via bazel_dep; no http_archive.",
        ),
      );
      s.tools(WORK.bazel[0]);
      s.say('Added bazel_dep(name = "fmt", version = "11.0.2"); tests pass.');
    },
    [S.qeBazel, S.qeStd],
  ),
  sc(
    "g42-bazel-ordinary",
    "bazel",
    "a formatting rule, a dependency's address, a task-scoped build flag",
    "2026-08-12T13:00:00.000Z",
    (s) =>
      turns(s, "bazel", [
        [
          "run clang-format on everything you touch, the repo's .clang-format (google based, 100 cols). CI rejects unformatted diffs",
          D("rule", "project", "Changed C++ files are formatted with the repo's .clang-format."),
        ],
        [
          "the ref data comes from the refdata service at refdata.svc:7000, the client is in //refdata:client",
          D(
            "fact",
            "project",
            "Reference data comes from the refdata service at refdata.svc:7000 (client //refdata:client).",
          ),
        ],
        [
          "for this perf investigation always build with -c opt --copt=-g",
          HN("one-off"),
        ],
        ["profile Price() on the 10k-leg fixture", R],
      ]),
  ),
];

const MIXED: Script[] = [
  sc(
    "g43-laravel-global-prefs",
    "laravel",
    "a stored global preference repeated with a marker; a new global preference",
    "2026-08-14T07:30:00.000Z",
    (s) =>
      turns(s, "laravel", [
        ["add soft deletes to tenants", R],
        [
          "and keep your replies short, no wrap-up paragraph at the end, you know how I like it",
          D("preference", "global", "Short answers without a closing recap.", {
            dup: S.gShort,
          }),
        ],
        [
          "oh and I prefer British spelling in docs and comments, in all my projects",
          D("preference", "global", "British spelling in docs and comments."),
        ],
      ]),
    [S.gShort],
  ),
  sc(
    "g44-nomad-long-mixed",
    "nomad",
    "a longer session: a global preference changed, a confirmed convention, a private aside, hard negatives",
    "2026-08-17T09:00:00.000Z",
    (s) => {
      s.user("morning. the consul health checks for the cron jobs are flapping, have a look", R);
      s.tools(WORK.nomad[1]);
      s.say("The batch jobs register a service with an HTTP check although they exit after a run.");
      s.user("huh. is that always the case for batch jobs?", Q);
      ask(
        s,
        "nomad",
        "Batch jobs that exit should not register a Consul service at all. Should I make that the convention here: no service block in batch jobs?",
      );
      s.confirm(
        "correct, keep it that way",
        "rule",
        "project",
        "Batch jobs do not register a Consul service (no service block).",
      );
      s.tools(WORK.nomad[0]);
      s.say("Removed the service blocks from the three batch jobs.");
      turns(s, "nomad", [
        [
          "branch for this: from now on my branches are prefixed with my initials, fw/<ticket>-<slug>, in every repo",
          D("preference", "global", "Branch names are fw/<ticket-id>-<short-slug>.", {
            contra: S.gBranch,
          }),
        ],
        [
          "<private>sorry slow today, rough night with the baby</private> ok commit it",
          N("private"),
          R,
        ],
        ["it always flaps after a consul leader election", HN("one-off")],
        ["maybe the check interval is too tight", HN("hypothesis")],
      ]);
    },
    [S.gBranch],
  ),
];

export const HOLDOUT9: Script[] = [
  ...DELTA,
  ...PULUMI,
  ...SWIFT,
  ...HASKELL,
  ...NOMAD,
  ...SVELTE,
  ...LORA,
  ...LARAVEL,
  ...UNITY,
  ...BAZEL,
  ...MIXED,
];
