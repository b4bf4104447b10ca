/**
 * Hand-written sessions of the capture benchmark's `holdout3` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark task, docs page or results,
 * nor the other helpers' worktrees, and frozen before any tuning against them. Ten projects new
 * to the data set: a SvelteKit site, a Scala/Spark job, a Flutter app, a Django admin, a Rust
 * embedded HAL crate, a Terraform/GCP repository, a Node CLI published to npm, a Julia
 * simulation, a .NET API and a Kubernetes operator in Go.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) that state no standing rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);

/** The holdout3 split's projects. */
const P = {
  svelte: "/home/priya/web/trailhead-site",
  spark: "/home/tomas/jobs/ledger-spark",
  flutter: "/Users/mei/dev/pantry_flutter",
  django: "/home/gus/src/vendorportal",
  hal: "/home/ola/embedded/stm32l4-hal-rs",
  gcp: "/home/rafa/infra/gcp-landing-zone",
  cli: "/home/jo/oss/envcheck-cli",
  julia: "/home/sven/research/HeatFlowSim.jl",
  dotnet: "/home/ade/src/Invoicing.Api",
  op: "/home/kim/go/src/github.com/kimlabs/backup-operator",
} as const;
type Proj = keyof typeof P;

const CHORES: Record<Proj, ToolStep[]> = {
  svelte: [
    bash(
      "pnpm check",
      "> trailhead-site@0.9.3 check\n> svelte-kit sync && svelte-check --tsconfig ./tsconfig.json\n\n====================================\nsvelte-check found 0 errors and 0 warnings",
    ),
    read(
      `${P.svelte}/src/routes/trails/[slug]/+page.server.ts`,
      'import { error } from "@sveltejs/kit";\nimport { getTrail } from "$lib/server/trails";\n\nexport async function load({ params }) {\n  const trail = await getTrail(params.slug);\n  if (!trail) throw error(404, "no such trail");\n  return { trail };\n}',
    ),
    bash(
      "pnpm test:unit -- --run",
      " ✓ src/lib/format.test.ts (6 tests) 21ms\n ✓ src/lib/server/trails.test.ts (4 tests) 88ms\n\n Test Files  2 passed (2)\n      Tests  10 passed (10)",
    ),
  ],
  spark: [
    bash(
      "sbt test",
      "[info] LedgerRollupSpec:\n[info] - rolls up entries per account and day\n[info] - keeps late entries in their own partition\n[info] Run completed in 14 seconds, 212 milliseconds.\n[info] All tests passed.\n[success] Total time: 41 s",
    ),
    read(
      `${P.spark}/src/main/scala/ledger/Rollup.scala`,
      'package ledger\n\nimport org.apache.spark.sql.{DataFrame, functions => F}\n\nobject Rollup {\n  def daily(entries: DataFrame): DataFrame =\n    entries\n      .groupBy(F.col("account_id"), F.to_date(F.col("booked_at")).as("day"))\n      .agg(F.sum("amount_cents").as("total_cents"))\n}',
    ),
    bash(
      "sbt scalafmtCheckAll",
      "[info] scalafmt: Formatting 23 Scala sources...\n[success] Total time: 4 s",
    ),
  ],
  flutter: [
    bash(
      "flutter test",
      "00:06 +31: All tests passed!",
    ),
    read(
      `${P.flutter}/lib/features/pantry/pantry_list.dart`,
      "class PantryList extends ConsumerWidget {\n  const PantryList({super.key});\n\n  @override\n  Widget build(BuildContext context, WidgetRef ref) {\n    final items = ref.watch(pantryItemsProvider);\n    return items.when(\n      data: (xs) => ListView(children: [for (final x in xs) PantryTile(item: x)]),\n      loading: () => const Center(child: CircularProgressIndicator()),\n      error: (e, _) => ErrorView(error: e),\n    );\n  }\n}",
    ),
    bash("flutter analyze", "Analyzing pantry_flutter...\nNo issues found! (ran in 3.8s)"),
  ],
  django: [
    bash(
      "python manage.py test vendors",
      "Creating test database for alias 'default'...\n..................\n----------------------------------------------------------------------\nRan 18 tests in 2.417s\n\nOK\nDestroying test database for alias 'default'...",
    ),
    read(
      `${P.django}/vendors/admin.py`,
      'from django.contrib import admin\n\nfrom .models import Vendor, Contract\n\n\n@admin.register(Vendor)\nclass VendorAdmin(admin.ModelAdmin):\n    list_display = ("name", "country", "status", "created_at")\n    list_filter = ("status", "country")\n    search_fields = ("name", "vat_number")',
    ),
    bash("python manage.py makemigrations --check --dry-run", "No changes detected"),
  ],
  hal: [
    bash(
      "cargo build --target thumbv7em-none-eabihf --examples",
      "   Compiling stm32l4-hal-rs v0.4.0 (/home/ola/embedded/stm32l4-hal-rs)\n    Finished dev [optimized + debuginfo] target(s) in 12.77s",
    ),
    read(
      `${P.hal}/src/spi.rs`,
      "impl<SPI: Instance, PINS> Spi<SPI, PINS> {\n    pub fn transfer<'w>(&mut self, words: &'w mut [u8]) -> Result<&'w [u8], Error> {\n        for word in words.iter_mut() {\n            nb::block!(self.send(*word))?;\n            *word = nb::block!(self.read())?;\n        }\n        Ok(words)\n    }\n}",
    ),
    bash(
      "cargo clippy --all-features -- -D warnings",
      "    Checking stm32l4-hal-rs v0.4.0\n    Finished dev [optimized + debuginfo] target(s) in 3.02s",
    ),
  ],
  gcp: [
    bash(
      "terraform -chdir=envs/dev plan -no-color | tail -3",
      '  + resource "google_project_iam_member" "ci_deployer" {\n\nPlan: 1 to add, 0 to change, 0 to destroy.',
    ),
    read(
      `${P.gcp}/modules/project/main.tf`,
      'resource "google_project" "this" {\n  name            = var.name\n  project_id      = var.project_id\n  folder_id       = var.folder_id\n  billing_account = var.billing_account\n  labels          = var.labels\n}',
    ),
    bash("tflint --recursive", "0 issue(s) found"),
  ],
  cli: [
    bash(
      "npm test",
      "> envcheck-cli@3.2.0 test\n> node --test\n\n▶ parseSchema\n  ✔ reads required keys (1.2ms)\n  ✔ reports unknown keys (0.6ms)\n▶ parseSchema (2.9ms)\nℹ tests 27\nℹ pass 27\nℹ fail 0",
    ),
    read(
      `${P.cli}/src/cli.js`,
      'import { parseArgs } from "node:util";\nimport { check } from "./check.js";\n\nconst { values, positionals } = parseArgs({ options: { strict: { type: "boolean" } }, allowPositionals: true });\nprocess.exitCode = await check(positionals[0] ?? ".env", values);',
    ),
    bash(
      "gh issue list --limit 5",
      "212\tOPEN\t--strict ignores commented keys\tbug\n211\tOPEN\tsupport .env.local\tenhancement\n209\tOPEN\tWindows CRLF line endings break parser\tbug",
    ),
  ],
  julia: [
    bash(
      "julia --project -e 'using Pkg; Pkg.test()'",
      "     Testing Running tests...\nTest Summary: | Pass  Total  Time\nHeatFlowSim   |   48     48  21.4s\n     Testing HeatFlowSim tests passed",
    ),
    read(
      `${P.julia}/src/solver.jl`,
      "function step!(u, u_prev, α, Δt, Δx)\n    @inbounds for i in 2:length(u)-1\n        u[i] = u_prev[i] + α * Δt / Δx^2 * (u_prev[i+1] - 2u_prev[i] + u_prev[i-1])\n    end\n    return u\nend",
    ),
  ],
  dotnet: [
    bash(
      "dotnet test",
      "Passed!  - Failed:     0, Passed:    96, Skipped:     0, Total:    96, Duration: 7 s - Invoicing.Api.Tests.dll (net8.0)",
    ),
    read(
      `${P.dotnet}/src/Invoicing.Api/Endpoints/InvoiceEndpoints.cs`,
      'public static class InvoiceEndpoints\n{\n    public static void MapInvoices(this IEndpointRouteBuilder app)\n    {\n        app.MapGet("/invoices/{id:guid}", async (Guid id, InvoiceService svc) =>\n            await svc.Find(id) is { } inv ? Results.Ok(inv) : Results.NotFound());\n    }\n}',
    ),
    bash("dotnet format --verify-no-changes", ""),
  ],
  op: [
    bash(
      "make test",
      "go test ./... -coverprofile cover.out\nok  \tgithub.com/kimlabs/backup-operator/internal/controller\t9.112s\tcoverage: 71.4% of statements\nok  \tgithub.com/kimlabs/backup-operator/api/v1alpha1\t0.031s",
    ),
    read(
      `${P.op}/internal/controller/backupschedule_controller.go`,
      "func (r *BackupScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {\n\tvar sched backupv1alpha1.BackupSchedule\n\tif err := r.Get(ctx, req.NamespacedName, &sched); err != nil {\n\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)\n\t}\n\treturn r.reconcileJobs(ctx, &sched)\n}",
    ),
    bash(
      "make manifests",
      'controller-gen rbac:roleName=manager-role crd webhook paths="./..." output:crd:artifacts:config=config/crd/bases',
    ),
  ],
};

/** One step of a scripted conversation: a user turn (text, labels, the answer) or custom work. */
type Step = [string, Label[], string?] | ((s: Session) => void);

function conv(s: Session, p: Proj, steps: Step[]): void {
  const pool = CHORES[p];
  steps.forEach((st, i) => {
    if (typeof st === "function") return st(s);
    const [text, labels, reply] = st;
    s.user(text, ...labels);
    s.tools(pool[i % pool.length]);
    s.say(reply ?? "Done.");
  });
}

let day = 0;
function mk(
  id: string,
  p: Proj,
  style: string,
  steps: Step[],
  more: { stored?: string[]; version?: string; branch?: string } = {},
): Script {
  day++;
  const start = new Date(Date.UTC(2025, 10, 3 + (day % 25), 7 + (day % 11), (day * 7) % 60))
    .toISOString();
  return {
    id,
    cwd: P[p],
    style,
    start,
    version: more.version ?? ["2.0.28", "2.0.31", "2.0.33", "2.0.36"][day % 4],
    branch: more.branch,
    stored: more.stored,
    run: (s) => conv(s, p, steps),
  };
}

/** A user prompt that carries secrets. */
const sec =
  (text: (s: Session) => [string, string[]], labels: Label[], reply: string): Step => (s) => {
    const [t, secrets] = text(s);
    s.userS(t, secrets, ...labels);
    s.say(reply);
  };

/** The agent states something; the user confirms it with a short reply. */
const confirm = (
  claim: string,
  reply: string,
  kind: Parameters<typeof D>[0],
  scope: "project" | "global",
  memory: string,
): Step =>
(s) => {
  s.say(claim);
  s.confirm(reply, kind, scope, memory);
  s.say("Noted.");
};

const SVELTE: Script[] = [
  mk(
    "z01-svelte-pm-adapter",
    "svelte",
    "product manager who codes; a decision with its reason; a request with 'always' inside the task",
    [
      [
        "hey! PM here, I sometimes ship small fixes myself. the trail pages 404 on refresh in prod, can you look?",
        [N("request")],
        "The static adapter has no fallback for dynamic slugs; I'll check the config.",
      ],
      [
        "context: we decided last quarter to stay on adapter-static and prerender every trail page, no server. marketing hosts it on a plain bucket. so please don't suggest adapter-node",
        [
          D(
            "decision",
            "project",
            "trailhead-site stays on SvelteKit adapter-static with every trail page prerendered (no server): it is hosted on a plain bucket; don't suggest adapter-node",
          ),
          N("request"),
        ],
        "Understood. I'll add the missing slugs to the prerender entries.",
      ],
      ["for this fix, always regenerate the entries from the CMS export, not by hand", [
        HN("one-off"),
      ], "Regenerated entries from cms-export.json; 214 pages prerendered."],
      [
        "does the sitemap pick those up automatically?",
        [N("question")],
        "Yes, the sitemap route reads the same entries list.",
      ],
      [
        "one more: copy changes to trail descriptions come from the CMS, never edit them in the repo, they get overwritten on the next export",
        [D(
          "rule",
          "project",
          "Trail descriptions in trailhead-site come from the CMS export: never edit them in the repo (the next export overwrites them)",
        )],
        "Understood; I only touched the prerender entries.",
      ],
    ],
  ),
  mk(
    "z02-svelte-voice-a11y",
    "svelte",
    "voice dictation without punctuation; a standing accessibility rule and a global preference in one run-on",
    [
      [
        "ok so the hero image on the home page is missing alt text can you fix that and also going forward every image we add needs real alt text not the filename we got dinged in the accessibility audit",
        [
          N("request"),
          D(
            "rule",
            "project",
            "Every image added to trailhead-site needs real alt text (not the file name): the site was flagged in an accessibility audit",
          ),
        ],
        "Added alt text to the hero and the two gallery images.",
      ],
      [
        "cool and in general when you explain stuff to me keep it short like three bullets max i read these on my phone",
        [D(
          "preference",
          "global",
          "Keep explanations short, at most three bullet points: the user reads them on a phone",
        )],
        "Got it.",
      ],
      ["never mind the gallery ones i'll have the writer do those revert them", [
        HN("one-off"),
        N("request"),
      ], "Reverted the gallery images; the hero keeps its alt text."],
      ["run the checks", [N("request")], "svelte-check and the unit tests pass."],
    ],
  ),
  mk(
    "z03-svelte-stored-pnpm",
    "svelte",
    "a paraphrased duplicate of a stored rule; a quoted rule from the SvelteKit docs",
    [
      [
        "add a /trails/random route that redirects to a random trail",
        [N("request")],
        "Added; it's prerender=false so it can't work on the static host. Want a client-side redirect instead?",
      ],
      [
        "yes client side. and remember we're a pnpm shop here, no npm install or yarn in this repo",
        [
          N("request"),
          D("rule", "project", "Use pnpm in trailhead-site, never npm or yarn", {
            dup: "trailhead-site uses pnpm; don't run npm or yarn",
          }),
        ],
        "Client-side redirect in +page.svelte; installed nothing new.",
      ],
      [
        "the docs say 'you should always prefer load functions over onMount for data' — does that apply to this?",
        [HN("question")],
        "Not here: the redirect needs the browser, so onMount is right.",
      ],
      ["ok ship it", [N("request")], "Committed on the branch."],
    ],
    { stored: ["trailhead-site uses pnpm; don't run npm or yarn"] },
  ),
  mk(
    "z04-svelte-hypothesis-fonts",
    "svelte",
    "hypotheses about a layout shift; 'it always flickers' descriptive; a fact about the CDN",
    [
      ["the header flickers on every page load, it always does it on safari", [
        HN("one-off"),
        N("request"),
      ], "I see a font swap on first paint."],
      ["maybe it's the font-display swap? or maybe the image CDN is slow, not sure", [
        HN("hypothesis"),
      ], "It's the font: the woff2 isn't preloaded."],
      [
        "fyi images go through cloudinary, the account is the marketing team's and they own the transformations, we only reference public ids",
        [D(
          "fact",
          "project",
          "trailhead-site's images are served by Cloudinary on the marketing team's account; the site only references public ids and marketing owns the transformations",
        )],
        "Thanks, I won't touch the transformations.",
      ],
      [
        "preload the font then",
        [N("request")],
        "Added a preload link for Inter.woff2; the flicker is gone in Safari.",
      ],
      ["we self-host fonts btw, google fonts links are banned here for the privacy policy", [
        D(
          "rule",
          "project",
          "trailhead-site self-hosts its fonts: no Google Fonts links (privacy policy)",
        ),
      ], "The preload points at /fonts/Inter.woff2, self-hosted."],
    ],
  ),
];

const SPARK: Script[] = [
  mk("z05-spark-terse-confirm", "spark", "terse one-word confirmations of the agent's claims", [
    [
      "rollup job OOMs on the 2025-10 partition",
      [N("request")],
      "Executors die on a skewed account_id; I'll look at the plan.",
    ],
    confirm(
      "Should I run the job against the sample partition in data/sample before every cluster run, as the Makefile's check target does?",
      "always",
      "rule",
      "project",
      "Run ledger-spark jobs against the data/sample partition (make check) before every cluster run",
    ),
    confirm(
      "I see the job sets spark.sql.shuffle.partitions to 2000 in JobConfig.scala — is that fixed for every environment?",
      "yep",
      "fact",
      "project",
      "ledger-spark sets spark.sql.shuffle.partitions to 2000 in JobConfig.scala for every environment",
    ),
    confirm(
      "And the prod cluster is EMR 7.1 with Spark 3.5, so I should keep to the 3.5 APIs?",
      "correct",
      "fact",
      "project",
      "ledger-spark runs on EMR 7.1 with Spark 3.5 in prod: keep to the Spark 3.5 APIs",
    ),
    [
      "salt the skewed key",
      [N("request")],
      "Salted account_id with 16 buckets; the partition finishes in 11 minutes.",
    ],
    ["k", [N("request")], "Pushed."],
  ]),
  mk("z06-spark-numbered-rules", "spark", "rules as a numbered list inside a long request", [
    [
      "I need a new job that writes the monthly close snapshot. Before you start, the house rules for this repo:\n1. every job writes Delta, never raw parquet\n2. amounts are always Long cents, never Double\n3. no collect() on anything that isn't already aggregated\n4. unit tests use the SharedSparkSession trait, not a new session per suite\nThe snapshot should be partitioned by close_month.",
      [
        N("request"),
        D("rule", "project", "ledger-spark jobs write Delta tables, never raw parquet"),
        D("rule", "project", "In ledger-spark, amounts are Long cents, never Double"),
        D(
          "rule",
          "project",
          "In ledger-spark, don't collect() a DataFrame that is not already aggregated",
        ),
        D(
          "rule",
          "project",
          "ledger-spark unit tests use the SharedSparkSession trait instead of a new session per suite",
        ),
      ],
      "Written MonthlyClose.scala, Delta partitioned by close_month, with a spec on SharedSparkSession.",
    ],
    [
      "why did you pick overwrite mode with replaceWhere?",
      [N("question")],
      "So a rerun replaces only that month's partition.",
    ],
    ["good. for this backfill just write to the scratch bucket, don't touch the real table yet", [
      HN("one-off"),
    ], "Backfill of 2024 written to s3://ledger-scratch/monthly_close."],
  ]),
  mk(
    "z07-spark-aws-keys",
    "spark",
    "AWS keys pasted in a prompt; a durable fact about the role around them",
    [
      sec(
        (s) => {
          const id = s.secret("awsKeyId");
          const key = s.secret("awsSecret");
          return [
            `the local run can't read the bucket. use these for now: AWS_ACCESS_KEY_ID=${id} AWS_SECRET_ACCESS_KEY=${key}`,
            [id, key],
          ];
        },
        [N("secret"), N("request")],
        "I'd rather not put keys in the environment file; can we use a profile?",
      ),
      [
        "fine, use the ledger-dev profile. for the record, local runs always assume the ledger-readonly role through that profile, prod data is never written from a laptop",
        [
          N("request"),
          D(
            "rule",
            "project",
            "ledger-spark local runs use the ledger-dev AWS profile and assume the ledger-readonly role; prod data is never written from a laptop",
          ),
        ],
        "Switched to --profile ledger-dev; the read works.",
      ],
      ["did the counts match yesterday's?", [N("question")], "Yes: 4,118,220 rows both days."],
      ["and rotate nothing yourself, rotations go through the security team's ticket queue", [
        D(
          "rule",
          "project",
          "ledger-spark credential rotations go through the security team's ticket queue; don't rotate keys yourself",
        ),
      ], "Understood."],
    ],
  ),
  mk(
    "z08-spark-contradict-scala",
    "spark",
    "a stored fact contradicted by an upgrade decision; a hypothesis",
    [
      [
        "we finished the migration to Scala 2.13 yesterday, so the cross-build for 2.12 is gone — please update the CI matrix",
        [
          D(
            "fact",
            "project",
            "ledger-spark is on Scala 2.13 only; the 2.12 cross-build was dropped",
            { contra: "ledger-spark builds for Scala 2.12 and 2.13" },
          ),
          N("request"),
        ],
        "Removed 2.12 from the CI matrix.",
      ],
      [
        "the assembly jar got 40MB bigger, I bet it's the new jackson shading",
        [HN("hypothesis")],
        "It's scala-collection-compat pulled in twice; excluded one.",
      ],
      ["nice, merge when green", [N("request")], "CI is green; merged."],
    ],
    { stored: ["ledger-spark builds for Scala 2.12 and 2.13"] },
  ),
  mk(
    "z09-spark-quoted-blog",
    "spark",
    "a rule quoted from a blog; a one-off with 'never'; a user preference for diffs",
    [
      [
        "someone on the databricks blog says 'never use UDFs, always use built-in functions'. do we have UDFs?",
        [HN("question")],
        "Two: normalizeIban and fxRate.",
      ],
      [
        "rewrite normalizeIban with built-ins, leave fxRate",
        [N("request")],
        "normalizeIban is now regexp_replace + upper; fxRate unchanged.",
      ],
      [
        "when you change existing code show me the diff before you run anything, I like to read it first. that's how I work everywhere",
        [D(
          "preference",
          "global",
          "Show the diff of changes to existing code before running anything",
        )],
        "Will do.",
      ],
      [
        "never run the full suite today, it takes 20 min and the cluster is busy",
        [HN("one-off")],
        "Ran only RollupSpec.",
      ],
    ],
  ),
];

const FLUTTER: Script[] = [
  mk(
    "z10-flutter-voice-riverpod",
    "flutter",
    "voice dictation, no punctuation, a rule and a correction in one breath",
    [
      [
        "so the pantry list is rebuilding way too much can you look at why",
        [N("request")],
        "It watches the whole provider; I'll switch to select.",
      ],
      [
        "yeah and we use riverpod everywhere no setState in feature widgets and no provider package either that was ripped out last year",
        [D(
          "rule",
          "project",
          "pantry_flutter uses Riverpod for state: no setState in feature widgets and no provider package",
        )],
        "Understood.",
      ],
      [
        "actually wait not setState at all i mean setState is fine inside tiny leaf widgets like animations just not for app state",
        [D(
          "rule",
          "project",
          "In pantry_flutter, setState is fine only in small leaf widgets (animations), never for app state",
        )],
        "Noted: leaf animations may keep setState.",
      ],
      [
        "ok do the select thing",
        [N("request")],
        "PantryTile now watches only its item; rebuilds dropped from 40 to 1.",
      ],
      ["oh and min sdk is android 26 and ios 15 dont add packages that need more than that", [
        D("fact", "project", "pantry_flutter's minimum platforms are Android API 26 and iOS 15"),
        D(
          "rule",
          "project",
          "Don't add packages to pantry_flutter that need more than Android API 26 or iOS 15",
        ),
      ], "Checked: the packages in use fit."],
    ],
  ),
  mk("z11-flutter-maps-key", "flutter", "a Google API key inside a durable fact; private text", [
    sec((s) => {
      const k = s.secret("google");
      return [
        `the store locator needs maps. the android key lives in android/local.properties as MAPS_API_KEY, it's ${k}, and that file is gitignored — it must stay out of git`,
        [k],
      ];
    }, [
      D(
        "rule",
        "project",
        "pantry_flutter's Android Maps key lives in android/local.properties as MAPS_API_KEY (gitignored) and must stay out of git",
        { secret: true },
      ),
    ], "I'll read it from local.properties through the Gradle manifest placeholders."),
    [
      "<private>my manager thinks the locator is pointless but marketing wants it</private> anyway make it show the 5 nearest stores",
      [N("private"), N("request")],
      "Added the map with the 5 nearest stores.",
    ],
    ["does it work offline?", [N("question")], "No; it shows the list without the map."],
  ]),
  mk(
    "z12-flutter-hn-golden",
    "flutter",
    "hard negatives: golden tests 'always fail' on CI, one-off 'don't update goldens', a question like a rule",
    [
      [
        "the golden tests always fail on CI but pass locally, ugh",
        [HN("one-off")],
        "The CI runner has no Roboto; fonts differ.",
      ],
      [
        "don't update the goldens in this PR, I'll do that separately",
        [HN("one-off")],
        "Left the goldens alone.",
      ],
      [
        "should we always load fonts in the test setup?",
        [HN("question")],
        "Yes, loadAppFonts() in flutter_test_config.dart fixes it.",
      ],
      [
        "ok add that",
        [N("request")],
        "Added flutter_test_config.dart; goldens pass in the CI container.",
      ],
      [
        "goldens are generated on the linux CI image only, never on macs, their fonts render differently",
        [D(
          "rule",
          "project",
          "pantry_flutter golden files are generated only on the Linux CI image, never on macOS (fonts render differently)",
        )],
        "Noted; I'll use the update-goldens workflow.",
      ],
    ],
  ),
  mk(
    "z13-flutter-stored-dup-flavors",
    "flutter",
    "a word-for-word-ish duplicate of a stored fact; a decision about l10n",
    [
      ["build the staging apk", [N("request")], "Which flavor: dev or staging?"],
      ["staging. the flavors are dev, staging and prod, and prod is only ever built by codemagic", [
        N("request"),
        D(
          "fact",
          "project",
          "pantry_flutter has the flavors dev, staging and prod; prod is built only by Codemagic",
          { dup: "pantry_flutter flavors: dev, staging, prod; prod builds only on Codemagic" },
        ),
      ], "Built app-staging-release.apk."],
      [
        "also we settled on ARB files with flutter gen-l10n, not easy_localization, so any new string goes into app_en.arb",
        [D(
          "decision",
          "project",
          "pantry_flutter uses ARB files with flutter gen-l10n (not easy_localization): new strings go into app_en.arb",
        )],
        "Moved the two new strings into app_en.arb.",
      ],
    ],
    { stored: ["pantry_flutter flavors: dev, staging, prod; prod builds only on Codemagic"] },
  ),
  mk(
    "z14-flutter-agent-guess",
    "flutter",
    "the agent's hypothesis labelled; the user corrects an agent claim",
    [
      ["login screen freezes on iOS 17", [N("request")], "Looking."],
      (s) => {
        s.say(
          "My guess is that the keychain call blocks the main isolate; secure storage probably always runs synchronously on iOS.",
          HN("hypothesis"),
        );
        s.user(
          "no, it's the firebase init. and for the record we init firebase in main() before runApp, never lazily",
          HN("one-off"),
          D(
            "rule",
            "project",
            "pantry_flutter initialises Firebase in main() before runApp, never lazily",
          ),
        );
        s.tools(CHORES.flutter[1]);
        s.say("Moved Firebase.initializeApp into main(); login no longer freezes.");
      },
      ["thanks", [N("request")], "You're welcome."],
    ],
  ),
];

const DJANGO: Script[] = [
  mk("z15-django-pm-admin", "django", "PM who codes; rules in passing inside feature requests", [
    [
      "Hi! I'm the PM for the vendor portal, I do small admin tweaks myself. Could you add a 'contract end' column to the vendor list? Heads up: the ops team lives in the admin, so anything that changes the admin list pages needs a heads-up in #vendor-ops before merge.",
      [
        N("request"),
        D(
          "rule",
          "project",
          "Changes to vendorportal's admin list pages need a heads-up in #vendor-ops before merge: the ops team works in the admin",
        ),
      ],
      "Added contract_end to list_display via an annotated queryset.",
    ],
    [
      "also I'm a PM not a dev so please explain what a change does in plain words before the technical bit, in every chat",
      [D(
        "preference",
        "global",
        "Explain what a change does in plain words before the technical details",
      )],
      "Sure: the vendor list now shows when each contract ends.",
    ],
    [
      "is that going to be slow with 30k vendors?",
      [N("question")],
      "It's one subquery; 40 ms on the staging copy.",
    ],
    [
      "great. for the demo tomorrow always show the status filter open",
      [HN("one-off")],
      "There is no such option in the stock admin; I left it as is.",
    ],
  ]),
  mk(
    "z16-django-stripe-secret",
    "django",
    "a Stripe key pasted for debugging; a durable fact about webhook handling",
    [
      sec(
        (s) => {
          const k = s.secret("stripe");
          return [`payouts webhook 500s. test with STRIPE_SECRET_KEY=${k} if you need`, [k]];
        },
        [N("secret"), N("request")],
        "I won't need the key: the traceback shows the signature check reading request.POST.",
      ),
      [
        "right. keep in mind the webhook endpoints are exempt from csrf and verify the stripe signature on request.body, that's the only auth they have",
        [D(
          "fact",
          "project",
          "vendorportal's Stripe webhook endpoints are CSRF-exempt and authenticated only by verifying the Stripe signature on request.body",
        )],
        "Fixed: the view now verifies on request.body.",
      ],
      ["tests?", [N("question")], "Added two: a valid and a tampered signature."],
      [
        "money amounts come from stripe as integer minor units and we store them like that, Vendor.balance_minor etc. no DecimalField for money",
        [D(
          "rule",
          "project",
          "vendorportal stores money as integer minor units (as Stripe sends them), not DecimalField",
        )],
        "The payout handler stores amount as an integer.",
      ],
    ],
  ),
  mk(
    "z17-django-contradict-celery",
    "django",
    "contradiction of a stored decision; 'just this time'",
    [
      [
        "we're moving background jobs off celery onto django-q2 this sprint — the stored note about celery is outdated",
        [D("decision", "project", "vendorportal runs background jobs on django-q2, not Celery", {
          contra: "vendorportal runs background jobs on Celery with Redis",
        })],
        "Understood. Which job first?",
      ],
      ["the nightly contract reminder. just this time skip the tests, I'll run them on CI", [
        N("request"),
        HN("one-off"),
      ], "Ported send_contract_reminders to a django-q2 schedule."],
      ["and remove celery from requirements", [N("request")], "Removed celery and kombu."],
    ],
    { stored: ["vendorportal runs background jobs on Celery with Redis"] },
  ),
  mk("z18-django-migrations-rule", "django", "a correction after a mistake; 'the way we do it'", [
    [
      "add a vat_verified bool to Vendor",
      [N("request")],
      "Added the field and edited 0042 to include it.",
    ],
    [
      "no no, never edit a migration that's already merged. we add a new one. the way we do it here is one migration per PR and it has to be reversible",
      [
        N("request"),
        D(
          "rule",
          "project",
          "In vendorportal, never edit a migration that is already merged: add a new one",
        ),
        D(
          "rule",
          "project",
          "vendorportal PRs carry at most one migration and it must be reversible",
        ),
      ],
      "Reverted 0042 and added 0043_vendor_vat_verified.",
    ],
    [
      "what does sqlmigrate show for it?",
      [N("question")],
      "ALTER TABLE vendors_vendor ADD COLUMN vat_verified boolean DEFAULT false NOT NULL.",
    ],
  ]),
  mk(
    "z19-django-hn-quoted",
    "django",
    "hard negatives: Django docs quoted, a hypothesis, 'don't … for this step'",
    [
      [
        "the django docs say 'never use null=True on string fields'. is the vendor notes field breaking that?",
        [HN("question")],
        "Yes, notes is a CharField with null=True.",
      ],
      [
        "probably someone did that for the old import script",
        [HN("hypothesis")],
        "The blame points to the 2022 import.",
      ],
      ["change it, but don't write a data migration for this step, I'll check the data first", [
        N("request"),
        HN("one-off"),
      ], "Changed to blank=True, default=''; migration 0044 only alters the column."],
    ],
  ),
];

const HAL: Script[] = [
  mk("z20-hal-self-correct", "hal", "a user who corrects themselves mid-message", [
    [
      "the spi transfer is slow. we target stm32l476 only — sorry, no, l476 and l496, both are in the CI matrix",
      [
        N("request"),
        D(
          "fact",
          "project",
          "stm32l4-hal-rs targets the STM32L476 and STM32L496, both in the CI matrix",
        ),
      ],
      "The loop blocks on each byte; I'll use the FIFO.",
    ],
    ["and the MSRV is 1.75, CI has a job for it, so no let-else chains or newer syntax", [
      D("fact", "project", "stm32l4-hal-rs's MSRV is Rust 1.75, checked by a CI job"),
    ], "Nothing newer used."],
    [
      "also the crate is no_std and must stay free of alloc, even behind a feature. well, the `defmt` feature is ok, it doesn't alloc",
      [D(
        "rule",
        "project",
        "stm32l4-hal-rs is no_std and must not depend on alloc, even behind a feature (the defmt feature is fine)",
      )],
      "The FIFO path needs no allocation.",
    ],
    ["benchmark it on the l496 board", [N("request")], "Transfer of 256 bytes: 410 µs -> 96 µs."],
  ]),
  mk(
    "z21-hal-embedded-hal-decision",
    "hal",
    "a decision on the embedded-hal version; a question with 'always'",
    [
      [
        "we implement embedded-hal 1.0 traits only now, the 0.2 compat shim was dropped in 0.4. don't add it back even if an issue asks",
        [D(
          "decision",
          "project",
          "stm32l4-hal-rs implements only embedded-hal 1.0 traits; the 0.2 compatibility shim was dropped in 0.4 and is not to be re-added",
        )],
        "Understood.",
      ],
      [
        "does SpiBus always need flush() after write?",
        [HN("question")],
        "Yes: write may return before the last byte leaves; flush waits for BSY.",
      ],
      [
        "add flush to the transfer then",
        [N("request")],
        "Done; the example still passes on hardware.",
      ],
    ],
  ),
  mk(
    "z22-hal-hn-flaky",
    "hal",
    "hard negatives: 'it never passes', a hypothesis, a one-off 'never'",
    [
      [
        "the probe-rs test never passes on the first try on my board",
        [HN("one-off")],
        "The board resets after flashing and the RTT channel attaches late.",
      ],
      [
        "I think the reset pin is floating",
        [HN("hypothesis")],
        "Possibly; the log shows a second reset 30 ms later.",
      ],
      [
        "never mind, it was the USB hub. don't retry in the runner",
        [HN("one-off"), N("request")],
        "Left the runner as is.",
      ],
      [
        "for the record, hardware tests run on the self-hosted runner with the L476 nucleo attached, the hosted runners only build",
        [D(
          "fact",
          "project",
          "stm32l4-hal-rs hardware tests run on the self-hosted runner with the NUCLEO-L476 attached; hosted runners only build",
        )],
        "Got it.",
      ],
    ],
  ),
  mk("z23-hal-safety-comments", "hal", "a global preference and a project rule on unsafe blocks", [
    ["add a DMA variant of transfer", [N("request")], "Added transfer_dma with a 'static buffer."],
    [
      "every unsafe block in this crate needs a // SAFETY: comment saying why it's sound, clippy's undocumented_unsafe_blocks lint is on for that",
      [D(
        "rule",
        "project",
        "Every unsafe block in stm32l4-hal-rs needs a // SAFETY: comment explaining why it is sound (clippy's undocumented_unsafe_blocks is enabled)",
      )],
      "Added SAFETY comments to the two unsafe blocks.",
    ],
    [
      "and for me personally: write commit messages in the imperative, subject under 50 chars, no emoji. everywhere, not just here",
      [D(
        "preference",
        "global",
        "Commit messages in the imperative mood, subject under 50 characters, no emoji",
      )],
      "Committed as 'Add DMA transfer for SPI'.",
    ],
  ]),
];

const GCP: Script[] = [
  mk("z24-gcp-numbered", "gcp", "rules as a numbered list inside a long request", [
    [
      "I need a new project module instance for the data team. Please follow these, they're the landing zone rules:\n1) every project gets the labels cost-center and owner, plan fails without them\n2) no primitive roles (owner/editor/viewer) anywhere, use predefined or custom roles\n3) state is in the gcs bucket rafa-tfstate with a prefix per env\n4) org policies are changed in the org/ stack only, never from a project stack\nName it data-analytics-dev.",
      [
        N("request"),
        D(
          "rule",
          "project",
          "Every project in gcp-landing-zone gets the labels cost-center and owner",
        ),
        D(
          "rule",
          "project",
          "No primitive IAM roles (owner/editor/viewer) in gcp-landing-zone: use predefined or custom roles",
        ),
        D(
          "fact",
          "project",
          "gcp-landing-zone's Terraform state is in the GCS bucket rafa-tfstate with a prefix per environment",
        ),
        D(
          "rule",
          "project",
          "Org policies in gcp-landing-zone are changed only in the org/ stack, never from a project stack",
        ),
      ],
      "Added envs/dev/data-analytics.tf with both labels and roles/bigquery.dataEditor.",
    ],
    ["plan it", [N("request")], "Plan: 4 to add."],
    [
      "apply just this once from your side, the pipeline is down",
      [HN("one-off")],
      "I can't apply without credentials here; the plan file is at /tmp/dev.tfplan.",
    ],
  ]),
  mk("z25-gcp-sa-key", "gcp", "a service-account private key pasted; a rule about keys", [
    sec(
      (s) => {
        const k = s.secret("rsaKey");
        return [
          `ci can't auth. here's the deployer key from the old setup:\n${k}\nmaybe that's it?`,
          [k],
        ];
      },
      [N("secret"), HN("hypothesis")],
      "Please don't use that key: it should be revoked. The pipeline should use workload identity.",
    ),
    [
      "yeah you're right. we don't create service account keys at all in this org, ci uses workload identity federation from github",
      [D(
        "rule",
        "project",
        "No service account keys in the gcp-landing-zone org: CI uses workload identity federation from GitHub",
      )],
      "I'll add the WIF provider binding for the repo.",
    ],
    [
      "every new terraform module needs a README generated by terraform-docs, pre-commit does it, don't hand-write them",
      [D(
        "rule",
        "project",
        "gcp-landing-zone modules have READMEs generated by terraform-docs (pre-commit), not hand-written",
      )],
      "Ran pre-commit; the README of the wif module is generated.",
    ],
    ["do it", [N("request")], "Added google_iam_workload_identity_pool_provider and the binding."],
  ]),
  mk(
    "z26-gcp-stored-region",
    "gcp",
    "a contradiction of a stored region and a paraphrased duplicate",
    [
      [
        "new default region is europe-west3, we moved for latency and the data residency contract. update the variable defaults",
        [
          D(
            "fact",
            "project",
            "gcp-landing-zone's default region is europe-west3 (latency and data residency)",
            { contra: "gcp-landing-zone defaults to region europe-west1" },
          ),
          N("request"),
        ],
        "Updated var.region defaults in 6 modules.",
      ],
      ["and as you know, plans go through atlantis, nobody runs apply locally", [
        D(
          "rule",
          "project",
          "gcp-landing-zone applies go through Atlantis; never run terraform apply locally",
          { dup: "Terraform in gcp-landing-zone is applied only by Atlantis, not locally" },
        ),
      ], "I'll open the PR for Atlantis."],
      [
        "is europe-west3 more expensive?",
        [N("question")],
        "About 10-15% for compute; storage is the same.",
      ],
    ],
    {
      stored: [
        "gcp-landing-zone defaults to region europe-west1",
        "Terraform in gcp-landing-zone is applied only by Atlantis, not locally",
      ],
    },
  ),
  mk(
    "z27-gcp-hn",
    "gcp",
    "hard negatives: quoted Google guidance, a status with 'always', a rule-shaped question",
    [
      [
        "google's best-practice doc says 'always use a shared VPC for multi-project setups'. do we?",
        [HN("question")],
        "Yes, host project net-host-prod.",
      ],
      [
        "the dns module always takes forever to plan",
        [HN("one-off")],
        "It reads 1,400 records; a data source per zone would be faster.",
      ],
      [
        "should we never use count in modules?",
        [HN("question")],
        "for_each is safer for lists that change; count is fine for on/off.",
      ],
      ["ok leave it", [N("request")], "Left as is."],
    ],
  ),
];

const CLI: Script[] = [
  mk("z28-cli-triage", "cli", "a maintainer triaging issues, rules among labels", [
    [
      "triage time. #212 is a real bug, label it bug + good first issue. #211 .env.local, won't do: we only support one file per run, that's a design decision, point them to --file",
      [
        N("request"),
        D(
          "decision",
          "project",
          "envcheck-cli checks one env file per run (no .env.local merging); users pass --file",
        ),
      ],
      "Labelled #212; commented on #211 and closed it.",
    ],
    ["our policy is semver strictly: any change to exit codes or output format is a major", [
      D(
        "rule",
        "project",
        "envcheck-cli follows semver strictly: any change to exit codes or output format is a major release",
      ),
    ], "Noted."],
    [
      "#209 windows CRLF: fix it. and from now on every parser fix gets a fixture in test/fixtures, named after the issue number",
      [
        N("request"),
        D(
          "rule",
          "project",
          "Every parser fix in envcheck-cli gets a fixture in test/fixtures named after the issue number",
        ),
      ],
      "Added test/fixtures/issue-209.env and stripped \\r in the tokenizer.",
    ],
    [
      "close the stale ones older than a year",
      [N("request")],
      "Closed 7 issues with the stale comment.",
    ],
    ["never close issues with the security label that way, ok? those get a manual look", [
      D(
        "rule",
        "project",
        "In envcheck-cli, never close security-labelled issues as stale: they get a manual look",
      ),
    ], "None of the 7 had the label."],
  ]),
  mk("z29-cli-npm-token", "cli", "an npm token inside a durable release fact; a private text", [
    sec((s) => {
      const t = s.secret("npm");
      return [
        `release 3.2.1. we publish from CI only with the automation token (it's ${t}, stored as NPM_TOKEN in the repo secrets), with --provenance`,
        [t],
      ];
    }, [
      N("request"),
      D(
        "rule",
        "project",
        "envcheck-cli is published from CI only, with the automation token in the NPM_TOKEN repository secret and --provenance",
        { secret: true },
      ),
    ], "Bumped to 3.2.1 and pushed the tag; the release workflow publishes."),
    [
      "<private>the co-maintainer is stepping down next month, not public yet</private> update CONTRIBUTING with the release steps",
      [N("private"), N("request")],
      "Updated CONTRIBUTING.md.",
    ],
  ]),
  mk(
    "z30-cli-node-versions",
    "cli",
    "facts and a global preference; a stored duplicate paraphrased",
    [
      ["what node versions do we test?", [N("question")], "18, 20 and 22 in the matrix."],
      ["drop 18, it's EOL. engines should say >=20 — we support active LTS lines only", [
        N("request"),
        D("rule", "project", "envcheck-cli supports only active Node LTS lines (engines >=20 now)"),
      ], "Updated engines and the matrix."],
      ["zero runtime dependencies, remember, so don't reach for chalk for the colors", [
        D("rule", "project", "envcheck-cli has zero runtime dependencies"),
        N("request"),
      ], "Colors use util.styleText."],
      ["when you write JS for me use ESM and node: prefixes for builtins, in any project", [
        D(
          "preference",
          "global",
          "Write JavaScript as ESM, with node: prefixes for built-in modules",
        ),
      ], "Already the case here."],
    ],
  ),
  mk(
    "z31-cli-hn",
    "cli",
    "hard negatives in issue triage: a user's quoted demand, a hypothesis, a one-off",
    [
      ["issue #214 says 'the CLI must always exit 0 when no .env exists'. do we agree?", [
        HN("question"),
      ], "Today it exits 2; the README documents that."],
      [
        "nope. reply that exit 2 is intended. maybe they run it in a pre-commit hook without a file",
        [N("request"), HN("hypothesis")],
        "Replied and linked the exit code table.",
      ],
      ["for this release don't bump the minor, patch only", [HN("one-off")], "3.2.2 is a patch."],
      [
        "and just so you know I answer issues only on weekdays, so drafts can wait in the triage project",
        [D(
          "fact",
          "project",
          "envcheck-cli's maintainer answers issues only on weekdays; drafts wait in the triage project",
        )],
        "Ok.",
      ],
    ],
  ),
];

const JULIA: Script[] = [
  mk(
    "z32-julia-self-correct",
    "julia",
    "a researcher correcting themselves mid-message; facts about the solver",
    [
      [
        "the explicit solver blows up for Δx=0.01. the stability limit is α Δt/Δx² ≤ 1/2 — no wait, in 2D it's 1/4, and we're in 2D now",
        [
          N("request"),
          D(
            "fact",
            "project",
            "HeatFlowSim.jl's explicit solver is 2D: stability needs α·Δt/Δx² ≤ 1/4",
          ),
        ],
        "Δt was 2.6e-5, above the limit; I'll derive it from Δx.",
      ],
      [
        "all physical quantities in SI units in the code, no mm or ms anywhere, convert at the IO boundary",
        [D(
          "rule",
          "project",
          "HeatFlowSim.jl uses SI units internally; convert at the IO boundary (no mm or ms in the code)",
        )],
        "Converted the config reader.",
      ],
      ["rerun the plate example", [N("request")], "Stable; max temperature 341.2 K at t=10 s."],
      [
        "results go to output/ with the git commit hash in the file name, never overwrite a previous run",
        [D(
          "rule",
          "project",
          "HeatFlowSim.jl results go to output/ with the git commit hash in the file name; never overwrite a previous run",
        )],
        "The writer now names files plate_<hash>.jld2.",
      ],
    ],
  ),
  mk(
    "z33-julia-type-stability",
    "julia",
    "a standing rule on allocations; a decision on plotting; a hypothesis",
    [
      [
        "the hot loop allocates. maybe it's the closure capturing α",
        [HN("hypothesis")],
        "@code_warntype shows u_prev as Any from the global.",
      ],
      [
        "make it type stable. rule for the solver module: no allocations inside step!, we check with @allocated in the tests",
        [
          N("request"),
          D(
            "rule",
            "project",
            "HeatFlowSim.jl's step! must not allocate; the tests check it with @allocated",
          ),
        ],
        "step! now allocates 0 bytes; added the test.",
      ],
      ["we went with Makie for all plots, Plots.jl is out, so port the last two scripts", [
        D("decision", "project", "HeatFlowSim.jl uses Makie for all plots (Plots.jl was dropped)"),
        N("request"),
      ], "Ported plot_plate.jl and plot_rod.jl to CairoMakie."],
      [
        "we run the benchmarks with BenchmarkTools on the lab workstation only, laptops are too noisy",
        [D(
          "rule",
          "project",
          "HeatFlowSim.jl benchmarks run with BenchmarkTools on the lab workstation only, not on laptops",
        )],
        "I'll leave the benchmark to you then.",
      ],
    ],
  ),
  mk(
    "z34-julia-voice-confirm",
    "julia",
    "voice dictation; a confirmed agent statement; a paper's rule quoted",
    [
      [
        "so the paper says you should always use at least 200 grid points per dimension is that what we do",
        [HN("question")],
        "The default config uses 256×256.",
      ],
      confirm(
        "And the reference results in test/reference are generated with Julia 1.10, so a minor Julia upgrade may shift the last digits — is 1.10 the pinned version?",
        "yes pinned",
        "fact",
        "project",
        "HeatFlowSim.jl is pinned to Julia 1.10; test/reference results were generated with it",
      ),
      ["ok run the tests", [N("request")], "48/48 pass."],
    ],
  ),
  mk("z35-julia-global-prefs", "julia", "global preferences stated once; a 'just this time'", [
    [
      "two things about me that hold in every project: I prefer you explain the math before the code, and never reformat whole files when you touch a function",
      [
        D("preference", "global", "Explain the math before the code"),
        D("preference", "global", "Never reformat whole files when changing a function"),
      ],
      "Understood.",
    ],
    ["now add a Neumann boundary option. just this time put it in solver.jl, we'll split later", [
      N("request"),
      HN("one-off"),
    ], "The zero-flux boundary mirrors the neighbour: u[1]=u[2]. Added bc=:neumann."],
  ]),
];

const DOTNET: Script[] = [
  mk("z36-dotnet-terse-confirm", "dotnet", "terse confirmations; an agent claim rejected", [
    ["invoice PDF endpoint times out", [N("request")], "It renders synchronously in the request."],
    confirm(
      "The solution uses EF Core with Postgres via Npgsql, and migrations run from a separate Invoicing.Migrator console app rather than at startup — right?",
      "yes",
      "fact",
      "project",
      "Invoicing.Api uses EF Core with Postgres (Npgsql); migrations run from the separate Invoicing.Migrator console app, not at startup",
    ),
    (s) => {
      s.say(
        "Then I'd move the PDF rendering to a hosted BackgroundService; I assume Hangfire isn't used.",
      );
      s.user(
        "wrong, we do use hangfire. queue it there",
        N("request"),
        D("fact", "project", "Invoicing.Api uses Hangfire for background jobs"),
      );
      s.tools(CHORES.dotnet[0]);
      s.say("Queued RenderInvoicePdf in Hangfire; the endpoint returns 202.");
    },
    ["ty", [N("request")], "You're welcome."],
    confirm(
      "CI builds with the .NET 8 SDK pinned in global.json, so I shouldn't use C# 13 features?",
      "right",
      "fact",
      "project",
      "Invoicing.Api is pinned to the .NET 8 SDK in global.json: no C# 13 features",
    ),
  ]),
  mk(
    "z37-dotnet-slack-webhook",
    "dotnet",
    "a Slack webhook in a durable fact; a rule on money types",
    [
      sec((s) => {
        const w = s.secret("slackWebhook");
        return [
          `failed invoice runs post to #billing-alerts through ${w} — that's configured in appsettings.Production.json and nowhere else`,
          [w],
        ];
      }, [
        D(
          "fact",
          "project",
          "Invoicing.Api posts failed invoice runs to #billing-alerts via a Slack webhook configured only in appsettings.Production.json",
          { secret: true },
        ),
      ], "Ok."),
      [
        "also money is decimal everywhere, never double or float, and rounding is MidpointRounding.ToEven",
        [D(
          "rule",
          "project",
          "In Invoicing.Api money is decimal, never double or float, rounded with MidpointRounding.ToEven",
        )],
        "The new tax line uses decimal with ToEven.",
      ],
      ["add a test for 0.125", [N("request")], "0.125 rounds to 0.12; test added."],
    ],
  ),
  mk(
    "z38-dotnet-contradict-minimal",
    "dotnet",
    "a stored rule contradicted; a hard negative on controllers",
    [
      [
        "we're not doing controllers anymore, new endpoints are minimal APIs in Endpoints/. the old note saying controllers only is wrong now",
        [D(
          "rule",
          "project",
          "New Invoicing.Api endpoints are minimal APIs in Endpoints/, not controllers",
          { contra: "Invoicing.Api endpoints are MVC controllers only" },
        )],
        "Understood.",
      ],
      [
        "don't convert the existing controllers in this PR though",
        [HN("one-off")],
        "Only the new /credit-notes endpoint is minimal.",
      ],
      ["why does swagger not show it?", [N("question")], "It lacked WithOpenApi(); added."],
      ["validation is FluentValidation everywhere, no data annotations on the request records", [
        D(
          "rule",
          "project",
          "Invoicing.Api validates requests with FluentValidation, not data annotations",
        ),
      ], "Added CreditNoteRequestValidator."],
    ],
    { stored: ["Invoicing.Api endpoints are MVC controllers only"] },
  ),
  mk(
    "z39-dotnet-hn-mixed",
    "dotnet",
    "hard negatives: quoted Microsoft docs, descriptive 'never', a hypothesis",
    [
      [
        "msdn says 'always dispose HttpClient' but also 'never dispose HttpClient', which is it lol",
        [HN("question")],
        "Use IHttpClientFactory; it manages handler lifetimes.",
      ],
      [
        "the integration tests never finish on my mac",
        [HN("one-off")],
        "Testcontainers waits for a Docker socket that isn't there.",
      ],
      [
        "I guess colima changed the socket path",
        [HN("hypothesis")],
        "Yes: ~/.colima/default/docker.sock.",
      ],
      [
        "set DOCKER_HOST in my shell, not in the repo",
        [N("request")],
        "Added it to your ~/.zshrc.",
      ],
    ],
  ),
];

const OP: Script[] = [
  mk("z40-op-maintainer", "op", "a maintainer's rules for the operator; 'make sure you always'", [
    [
      "the reconciler requeues forever when the bucket is missing",
      [N("request")],
      "It returns an error every time; I'll set a condition and back off.",
    ],
    [
      "we decided the operator will never manage the backup storage itself, users bring the bucket, so no bucket creation code please",
      [D(
        "decision",
        "project",
        "backup-operator never creates the backup storage: users bring their own bucket",
      )],
      "No bucket creation; the condition explains that the bucket is missing.",
    ],
    [
      "yes. make sure you always report failures through status conditions, not just events — users read `kubectl get backupschedule`",
      [
        N("request"),
        D(
          "rule",
          "project",
          "backup-operator reports failures through status conditions (not only events)",
        ),
      ],
      "Added the BucketReady condition.",
    ],
    [
      "and any change to api/v1alpha1 needs `make manifests generate` and the CRD diff committed in the same PR",
      [D(
        "rule",
        "project",
        "Changes to backup-operator's api/v1alpha1 need make manifests generate, with the CRD diff committed in the same PR",
      )],
      "Ran both; the CRD diff is in.",
    ],
    ["run the envtest suite", [N("request")], "Passes."],
  ]),
  mk("z41-op-github-pat", "op", "a GitHub PAT pasted; a fact about the release registry", [
    sec(
      (s) => {
        const t = s.secret("githubPat");
        return [`push the image manually, the release job is broken. token: ${t}`, [t]];
      },
      [N("secret"), N("request")],
      "I'd rather not push with a personal token; the registry is ghcr.io/kimlabs?",
    ),
    [
      "yes, images go to ghcr.io/kimlabs/backup-operator, signed with cosign keyless in the release workflow. ok fix the job instead",
      [
        D(
          "fact",
          "project",
          "backup-operator images go to ghcr.io/kimlabs/backup-operator, signed with cosign keyless in the release workflow",
        ),
        N("request"),
      ],
      "The job lacked packages: write; fixed.",
    ],
  ]),
  mk("z42-op-stored-dup-k8s", "op", "a duplicate of a stored fact; hard negatives", [
    ["we support the three latest kubernetes minors, that's still true, test against 1.29-1.31", [
      D("fact", "project", "backup-operator supports the three latest Kubernetes minor versions", {
        dup: "backup-operator supports the latest three Kubernetes minors",
      }),
      N("request"),
    ], "envtest runs for 1.29, 1.30, 1.31."],
    [
      "the 1.31 job always times out",
      [HN("one-off")],
      "The etcd binary download is slow; cached it.",
    ],
    [
      "maybe we should never run e2e on PRs?",
      [HN("question")],
      "They take 14 minutes; nightly would be enough if envtest stays on PRs.",
    ],
    ["let's keep them for now", [N("request")], "Kept."],
  ], { stored: ["backup-operator supports the latest three Kubernetes minors"] }),
  mk("z43-op-private-hn", "op", "a private note; a rule stated as a story; a task-scoped 'never'", [
    [
      "<private>customer Halvorsen lost backups because of the finalizer bug, don't mention them in the issue</private> write the fix for the finalizer removal",
      [N("private"), N("request")],
      "The finalizer was removed before the Job finished; now it waits.",
    ],
    ["reconcile loops must be idempotent, we test each one by running it twice in envtest", [
      D(
        "rule",
        "project",
        "backup-operator reconcilers must be idempotent; each is tested by running it twice in envtest",
      ),
    ], "Added the double-reconcile test for the finalizer path."],
    [
      "lesson learned from that: the operator never deletes user data, it only deletes what it created and labelled with app.kubernetes.io/managed-by",
      [D(
        "rule",
        "project",
        "backup-operator never deletes user data: only objects it created and labelled app.kubernetes.io/managed-by",
      )],
      "The cleanup selector now requires that label.",
    ],
    ["never push to main today, release freeze", [HN("one-off")], "I'll leave it on the branch."],
  ]),
  mk(
    "z44-mixed-svelte-global",
    "svelte",
    "global preferences among requests; a rule-shaped question; a one-off",
    [
      [
        "I'm new to svelte 5. two things for all our chats: explain runes when you use them, and answer in British English",
        [
          D("preference", "global", "Answer in British English"),
          D("preference", "global", "Explain Svelte 5 runes when using them"),
        ],
        "Will do.",
      ],
      [
        "convert TrailCard to runes",
        [N("request")],
        "$props() replaces export let; $derived for the distance label (a rune that recomputes when its inputs change).",
      ],
      ["should every component use $state now?", [HN("question")], "Only those with local state."],
      ["don't touch the other cards today", [HN("one-off")], "Only TrailCard changed."],
    ],
  ),
];

/** The `holdout3` split. */
export const HOLDOUT3: Script[] = [
  ...SVELTE,
  ...SPARK,
  ...FLUTTER,
  ...DJANGO,
  ...HAL,
  ...GCP,
  ...CLI,
  ...JULIA,
  ...DOTNET,
  ...OP,
];
