/**
 * Hand-written sessions of the capture benchmark's `holdout10` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs pages or
 * results (nor any other helper's worktree), registered as unrun before it was written and frozen
 * before any run against it. 23 of its 44 sessions have stored memories, which the user repeats
 * in other words (duplicates), changes (contradictions) or extends with a new statement on the
 * same topic; the others are ordinary sessions with rules, decisions, setup facts in passing,
 * global preferences, hard negatives and pasted secrets. Ten projects new to the data set: an
 * Elixir/Phoenix LiveView app, a Kotlin Spring Boot service, a dbt + DuckDB analytics repository,
 * an Ansible/Proxmox homelab, a React Native/Expo app, a .NET worker service, a Go CLI, a Rust
 * WebAssembly library, a PyTorch audio training repository and a Terraform module for Cloud Run.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) or a look-alike that states no rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout10 split's projects. */
const P = {
  kiln: "/home/teodora/dev/kiln-live",
  parcel: "/home/viktor/work/parcel-rates-svc",
  duck: "/Users/amara/analytics/duck-metrics",
  lab: "/home/gus/homelab-pve",
  tide: "/Users/keiko/apps/tidepool-expo",
  ledger: "/home/priya/src/Ledgerline.Worker",
  dep: "/home/rune/go/src/github.com/runeh/depwatch",
  glyph: "/home/ola/rust/glyph-wasm",
  wild: "/home/chen/ml/wildcall-audio",
  tf: "/Users/dmitri/tf/terraform-google-cloudrun-svc",
} as const;
type Proj = keyof typeof P;

const WORK: Record<Proj, ToolStep[]> = {
  kiln: [
    bash(
      "mix test test/kiln_web/live",
      "Running ExUnit with seed: 40211, max_cases: 16\n\n...................................\nFinished in 2.4 seconds (1.1s async, 1.3s sync)\n35 tests, 0 failures",
    ),
    read(
      `${P.kiln}/lib/kiln_web/live/firing_live/index.ex`,
      'defmodule KilnWeb.FiringLive.Index do\n  use KilnWeb, :live_view\n\n  alias Kiln.Firings\n\n  @impl true\n  def mount(_params, _session, socket) do\n    {:ok, stream(socket, :firings, Firings.list_upcoming())}\n  end\n\n  @impl true\n  def handle_event("cancel", %{"id" => id}, socket) do\n    {:ok, firing} = Firings.cancel(id)\n    {:noreply, stream_delete(socket, :firings, firing)}\n  end\nend',
    ),
  ],
  parcel: [
    bash(
      "./gradlew test --tests '*RateQuote*'",
      "> Task :compileKotlin UP-TO-DATE\n> Task :test\n\nRateQuoteServiceTest > quotes zone 3 parcels() PASSED\nRateQuoteServiceTest > rejects oversize parcels() PASSED\n\nBUILD SUCCESSFUL in 21s\n5 actionable tasks: 1 executed, 4 up-to-date",
    ),
    read(
      `${P.parcel}/src/main/kotlin/io/parcelrates/quote/RateQuoteController.kt`,
      'package io.parcelrates.quote\n\nimport org.springframework.web.bind.annotation.*\n\n@RestController\n@RequestMapping("/v1/quotes")\nclass RateQuoteController(private val service: RateQuoteService) {\n\n    @PostMapping\n    fun quote(@RequestBody req: QuoteRequest): QuoteResponse = service.quote(req)\n}',
    ),
  ],
  duck: [
    bash(
      "dbt build --select staging+ --target local",
      "14:22:08  Running with dbt=1.8.7\n14:22:09  Registered adapter: duckdb=1.8.4\n14:22:10  Found 37 models, 96 data tests, 9 sources\n14:22:17  Completed successfully\n14:22:17  Done. PASS=133 WARN=0 ERROR=0 SKIP=0 TOTAL=133",
    ),
    read(
      `${P.duck}/models/staging/shopify/stg_shopify__orders.sql`,
      "with source as (\n    select * from {{ source('shopify', 'orders') }}\n),\n\nrenamed as (\n    select\n        id as order_id,\n        customer_id,\n        total_price::decimal(12, 2) as order_total,\n        created_at::timestamp as ordered_at\n    from source\n)\n\nselect * from renamed",
    ),
  ],
  lab: [
    bash(
      "ansible-playbook -i inventory/hosts.yml playbooks/pve-base.yml --check --diff --limit pve3",
      "PLAY [proxmox nodes] ***********************************************************\n\nTASK [pve_base : install packages] *********************************************\nok: [pve3]\n\nTASK [pve_base : template /etc/network/interfaces] *****************************\nok: [pve3]\n\nPLAY RECAP *********************************************************************\npve3                       : ok=14   changed=0    unreachable=0    failed=0",
    ),
    read(
      `${P.lab}/inventory/hosts.yml`,
      "all:\n  children:\n    proxmox:\n      hosts:\n        pve2: { ansible_host: 10.0.10.12 }\n        pve3: { ansible_host: 10.0.10.13 }\n    guests:\n      hosts:\n        nextcloud: { ansible_host: 10.0.20.31 }\n        jellyfin: { ansible_host: 10.0.20.32 }",
    ),
  ],
  tide: [
    bash(
      "npx jest src/features/tides --silent",
      "PASS src/features/tides/useTideChart.test.ts\nPASS src/features/tides/formatHeight.test.ts\n\nTest Suites: 2 passed, 2 total\nTests:       14 passed, 14 total\nTime:        3.87 s",
    ),
    read(
      `${P.tide}/app/(tabs)/spots/[id].tsx`,
      'import { useLocalSearchParams } from "expo-router";\nimport { useQuery } from "@tanstack/react-query";\nimport { TideChart } from "@/features/tides/TideChart";\nimport { fetchSpot } from "@/api/spots";\n\nexport default function SpotScreen() {\n  const { id } = useLocalSearchParams<{ id: string }>();\n  const { data } = useQuery({ queryKey: ["spot", id], queryFn: () => fetchSpot(id) });\n  return data ? <TideChart spot={data} /> : null;\n}',
    ),
  ],
  ledger: [
    bash(
      "dotnet test tests/Ledgerline.Worker.Tests --nologo -v q",
      "Passed!  - Failed:     0, Passed:    58, Skipped:     0, Total:    58, Duration: 4 s - Ledgerline.Worker.Tests.dll (net8.0)",
    ),
    read(
      `${P.ledger}/src/Ledgerline.Worker/Reconcile/ReconcileWorker.cs`,
      'namespace Ledgerline.Worker.Reconcile;\n\npublic sealed class ReconcileWorker(ILogger<ReconcileWorker> log, IReconciler reconciler) : BackgroundService\n{\n    protected override async Task ExecuteAsync(CancellationToken ct)\n    {\n        while (!ct.IsCancellationRequested)\n        {\n            var batch = await reconciler.NextBatchAsync(ct);\n            log.LogInformation("Reconciling batch {BatchId} with {Count} entries", batch.Id, batch.Count);\n            await reconciler.RunAsync(batch, ct);\n        }\n    }\n}',
    ),
  ],
  dep: [
    bash(
      "go test ./... -count=1",
      "ok  \tgithub.com/runeh/depwatch/internal/modgraph\t0.218s\nok  \tgithub.com/runeh/depwatch/internal/advisory\t0.341s\nok  \tgithub.com/runeh/depwatch/cmd\t0.097s",
    ),
    read(
      `${P.dep}/cmd/scan.go`,
      'package cmd\n\nimport (\n\t"fmt"\n\n\t"github.com/spf13/cobra"\n\n\t"github.com/runeh/depwatch/internal/modgraph"\n)\n\nvar scanCmd = &cobra.Command{\n\tUse:   "scan [dir]",\n\tShort: "List outdated and vulnerable modules",\n\tRunE: func(cmd *cobra.Command, args []string) error {\n\t\tg, err := modgraph.Load(dirArg(args))\n\t\tif err != nil {\n\t\t\treturn fmt.Errorf("load module graph: %w", err)\n\t\t}\n\t\treturn render(cmd.OutOrStdout(), g)\n\t},\n}',
    ),
  ],
  glyph: [
    bash(
      "wasm-pack build --release && ls -l pkg/*.wasm",
      "[INFO]: 🎯  Checking for the Wasm target...\n[INFO]: 🌀  Compiling to Wasm...\n    Finished `release` profile [optimized] target(s) in 14.62s\n[INFO]: ⬇️  Installing wasm-bindgen...\n[INFO]: ✨   Done in 16.01s\n-rw-r--r-- 1 ola ola 362811 Nov  3 10:41 pkg/glyph_wasm_bg.wasm",
    ),
    read(
      `${P.glyph}/src/lib.rs`,
      "use wasm_bindgen::prelude::*;\n\nmod shape;\n\n#[wasm_bindgen]\npub fn shape_text(font: &[u8], text: &str, size: f32) -> Result<JsValue, JsError> {\n    let face = shape::Face::parse(font).map_err(|e| JsError::new(&e.to_string()))?;\n    let run = face.shape(text, size);\n    Ok(serde_wasm_bindgen::to_value(&run)?)\n}",
    ),
  ],
  wild: [
    bash(
      "python -m pytest tests -q -x",
      "............................                                             [100%]\n28 passed, 2 warnings in 11.93s",
    ),
    read(
      `${P.wild}/wildcall/train.py`,
      'import hydra\nimport lightning as L\nfrom omegaconf import DictConfig\n\nfrom wildcall.data import CallDataModule\nfrom wildcall.model import CallClassifier\n\n\n@hydra.main(config_path="../conf", config_name="train", version_base="1.3")\ndef main(cfg: DictConfig) -> None:\n    L.seed_everything(cfg.seed)\n    dm = CallDataModule(cfg.data)\n    model = CallClassifier(cfg.model)\n    L.Trainer(**cfg.trainer).fit(model, dm)',
    ),
  ],
  tf: [
    bash(
      "terraform test -filter=tests/basic.tftest.hcl",
      'tests/basic.tftest.hcl... in progress\n  run "creates_service"... pass\n  run "iam_invoker_binding"... pass\ntests/basic.tftest.hcl... tearing down\ntests/basic.tftest.hcl... pass\n\nSuccess! 2 passed, 0 failed.',
    ),
    read(
      `${P.tf}/main.tf`,
      'resource "google_cloud_run_v2_service" "this" {\n  name     = var.name\n  location = var.region\n  project  = var.project_id\n\n  template {\n    service_account = google_service_account.run.email\n    containers {\n      image = var.image\n    }\n  }\n}',
    ),
  ],
};

const ACK = [
  "Done, the tests are green.",
  "Made the change; nothing else broke.",
  "That's in now.",
  "Finished — re-ran the suite, all passing.",
  "OK, updated.",
  "Changed and checked.",
  "Done. Tell me if it should look different.",
  "In place; the diff is small.",
];

/** A user turn: the prompt and its labels, answered with routine tool work and a short reply. */
type Turn = [string, ...Label[]];

function turns(s: Session, p: Proj, ts: Turn[], from = 0): void {
  ts.forEach(([text, ...labels], i) => {
    s.user(text, ...labels);
    s.tools(WORK[p][(from + i) % WORK[p].length]);
    s.say(ACK[(i * 5 + text.length) % ACK.length]);
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
  const versions = ["2.0.22", "2.0.28", "2.0.33", "1.0.98", "2.0.36"];
  return {
    id,
    cwd: P[p],
    style,
    start,
    version: versions[Number(id.slice(1, 3)) % versions.length],
    run,
    ...(stored.length ? { stored } : {}),
  };
}

// Stored memories, named once so the labels quote them exactly.
const S = {
  klElixir: "kiln-live runs on Elixir 1.16 with OTP 26.",
  klUi:
    "The UI is server-rendered LiveView with function components; no SPA framework on the client.",
  klCtx:
    "LiveViews and controllers call the context modules (Kiln.Firings, Kiln.Studio), never Repo.",
  klDeploy: "kiln-live is deployed on Fly.io in the ams region.",
  klOwner: "Teodora owns the firing-schedule code (Kiln.Firings).",
  prJava: "parcel-rates-svc runs on Java 21 and Spring Boot 3.3.",
  prFlyway:
    "Schema changes are Flyway migrations in src/main/resources/db/migration; ddl-auto stays off.",
  prTests: "Integration tests run against Postgres in Testcontainers, not H2.",
  prPort: "Locally the service listens on 8081 and the actuator on 9081.",
  dmNaming: "Staging models are named stg_<source>__<table>.",
  dmKeys: "Every model's primary key has unique and not_null tests.",
  dmOwner: "Amara reviews every change to the marts/finance models.",
  hlDns: "Internal DNS is Pi-hole on 10.0.10.2.",
  hlCheck: "Playbooks get a --check --diff run before the real run.",
  hlVault:
    "Secrets in the repo are encrypted with ansible-vault; the vault password file ~/.vault_pass is never committed.",
  hlNodes: "The Proxmox cluster has three nodes: pve1, pve2 and pve3.",
  tdNav: "Navigation uses expo-router file-based routes.",
  tdQuery: "Server state is handled with TanStack Query.",
  tdSdk: "tidepool-expo is on Expo SDK 51.",
  tdEas: "Release builds are made by EAS Build in the cloud.",
  lwSerilog:
    "Logging goes through Serilog message templates; no string interpolation in log calls.",
  lwQueue: "The worker consumes the Azure Service Bus queue ledger-events.",
  lwNet: "Ledgerline.Worker targets .NET 8.",
  lwOwner: "Priya owns the reconciliation job.",
  dwErrors: "Errors are wrapped with fmt.Errorf and %w; pkg/errors is not used.",
  dwRelease: "Releases are cut by goreleaser from a vX.Y.Z tag.",
  dwGo: "depwatch supports Go 1.22 and 1.23.",
  dwFlags: "All cobra flags are defined in the cmd/ package.",
  gwSize: "The release .wasm stays under 400 KB after wasm-opt -Oz.",
  gwTarget: "The package is built with wasm-pack --target web.",
  gwPanic:
    "Exported functions return Result<_, JsError>; nothing may panic across the wasm boundary.",
  wcHydra: "Experiments are configured with Hydra configs under conf/, not argparse flags.",
  wcSeed: "Every training run sets seed 1337 with seed_everything.",
  wcNode: "Training runs on the lab's 4×A100 node gpu03.",
  wcData: "The dataset is /data/wildcall/v3, 16 kHz mono FLAC.",
  wcWandb: "Runs are logged to the Weights & Biases project wildcall/birdnet-ft.",
  tgDocs: "The README's inputs and outputs tables are generated by terraform-docs.",
  tgProvider: "The module pins the google provider to ~> 5.40.",
  tgTest: "Examples are tested with terraform test against the sandbox project.",
  tgRegion: "The region variable defaults to europe-west1.",
  gTests: "Run the relevant tests before reporting a change as done.",
  gCommits: "Commit messages use Conventional Commits prefixes (feat:, fix:, chore:).",
} as const;

const KILN: Script[] = [
  sc(
    "m01-kiln-repo-paraphrase",
    "kiln",
    "a stored layering rule repeated in other words, negated; a new rule on the same topic",
    "2026-09-01T08:10:00.000Z",
    (s) =>
      turns(s, "kiln", [
        [
          "the cancel button on the firing list should ask for a reason first. small modal, free text, max 200 chars",
          R,
        ],
        [
          "and please don't have the live view poke the database itself for the reason — hand it to Firings and let that module deal with persistence",
          R,
          D(
            "rule",
            "project",
            "LiveViews go through the Kiln.Firings context instead of touching the database (Repo) directly.",
            { dup: S.klCtx },
          ),
        ],
        [
          "also, a context's public functions get a @doc and a typespec, every one of them. the private helpers can stay bare",
          D(
            "rule",
            "project",
            "Every public function of a context module has a @doc and a @spec; private helpers need neither.",
          ),
        ],
      ]),
    [S.klCtx, S.klUi],
  ),
  sc(
    "m02-kiln-otp27",
    "kiln",
    "a stored version changed; a stored UI rule repeated as the answer to the agent's question",
    "2026-09-02T13:40:00.000Z",
    (s) => {
      s.user(
        "heads up, i moved us to elixir 1.17 on otp 27 yesterday (merged in #212). the new type warnings in firings.ex are real, can you go through them",
        R,
        D("fact", "project", "kiln-live is on Elixir 1.17 with OTP 27.", { contra: S.klElixir }),
      );
      ask(
        s,
        "kiln",
        "Fixed four of the warnings. The glaze picker dropdown needs client-side filtering — should I add Alpine.js for it?",
        1,
      );
      s.user(
        "nope. we render it on the server and keep the browser dumb; if you really need js, a tiny phx-hook and that's it",
        D(
          "rule",
          "project",
          "The UI stays server-rendered LiveView; at most a small phx-hook, no client-side framework.",
          { dup: S.klUi },
        ),
      );
      s.tools(WORK.kiln[0]);
      s.say("Filtering now happens in handle_event with a debounce; no new JS.");
    },
    [S.klElixir, S.klUi],
  ),
  sc(
    "m03-kiln-pasted-trace",
    "kiln",
    "a long pasted stack trace with a setup fact at its end; hard negatives",
    "2026-09-03T09:05:00.000Z",
    (s) => {
      s.user(
        'prod blew up on the kiln calendar page:\n\n```\n** (Ecto.Query.CastError) deps/ecto/lib/ecto/repo/queryable.ex:524: value `"2026-13-01"` in `where` cannot be cast to type :date in query:\n\nfrom f0 in Kiln.Firings.Firing,\n  where: f0.fired_on >= ^"2026-13-01",\n  select: f0\n\n    (elixir 1.17.2) lib/enum.ex:2531: Enum."-reduce/3-lists^foldl/2-0-"/3\n    (ecto 3.12.3) lib/ecto/repo/queryable.ex:214: Ecto.Repo.Queryable.execute/4\n    (kiln 0.9.0) lib/kiln/firings.ex:88: Kiln.Firings.list_between/2\n    (kiln 0.9.0) lib/kiln_web/live/calendar_live.ex:41: KilnWeb.CalendarLive.handle_params/3\n    (phoenix_live_view 1.0.1) lib/phoenix_live_view/channel.ex:1422: anonymous fn/3 in Phoenix.LiveView.Channel.mount_handle_params_result/3\n```\n\nthe month param comes straight from the url. validate it. the error tracker is self-hosted sentry at sentry.kilnlive.studio, project kiln-web, if you want to look at the other events',
        R,
        D(
          "fact",
          "project",
          "Errors are tracked in a self-hosted Sentry at sentry.kilnlive.studio, project kiln-web.",
        ),
      );
      s.tools(WORK.kiln[1]);
      s.say("The month param is parsed with Date.new/3 now and falls back to the current month.");
      turns(s, "kiln", [
        ["it always crashes when someone bookmarks the december view, weird", HN("one-off")],
        ["could the bookmarks have an old url format?", HN("hypothesis")],
        ["for this hotfix only skip the changelog entry", HN("one-off")],
      ]);
    },
  ),
  sc(
    "m04-kiln-anthropic-key",
    "kiln",
    "an Anthropic key pasted for a one-off test; a decision with its reason; a preference",
    "2026-09-04T15:30:00.000Z",
    (s) => {
      const key = s.secret("anthropic");
      s.userS(
        `the firing notes summary feature — try it against the real api once before we wire the config. temp key, i'll revoke it tonight: ${key}`,
        [key],
        N("secret"),
        R,
      );
      s.tools(WORK.kiln[0]);
      s.say("The summary comes back in about 2 s for a week of notes.");
      turns(s, "kiln", [
        [
          "good. we're calling it from an Oban job, not from the liveview process — a slow api call in handle_event froze the page for everyone in the studio last time we tried",
          D(
            "decision",
            "project",
            "Calls to the summarization API run in an Oban job, not inside the LiveView process (a slow call froze the page).",
          ),
        ],
        [
          "i'd rather have the oban queues declared in config/runtime.exs than scattered in the app module",
          D("preference", "project", "Oban queues are declared in config/runtime.exs."),
        ],
        ["what's the default oban retry count again?", Q],
      ]);
    },
  ),
  sc(
    "m05-kiln-handover-move",
    "kiln",
    "a stored owner and a stored host both changed in one handover message",
    "2026-09-05T10:00:00.000Z",
    (s) => {
      s.user(
        "quick context before you start: Teodora moved to the mobile team on friday, Jonas has the firing scheduler now, so ping him on anything in Kiln.Firings. and we left fly — the app runs on a hetzner box with kamal since the 1st, host kiln-prod-1",
        D("fact", "project", "Jonas owns the firing-schedule code (Kiln.Firings).", {
          contra: S.klOwner,
        }),
        D(
          "fact",
          "project",
          "kiln-live is deployed with Kamal to the Hetzner host kiln-prod-1.",
          { contra: S.klDeploy },
        ),
      );
      s.tools(WORK.kiln[1]);
      s.say("Noted. What would you like me to look at first?");
      turns(s, "kiln", [
        ["the deploy docs in README still say fly. rewrite that section", R],
        [
          "kamal deploys only from main and only via the github action; nobody runs `kamal deploy` from a laptop",
          D(
            "rule",
            "project",
            "Kamal deploys run only from main through the GitHub Action, never from a laptop.",
          ),
        ],
      ]);
    },
    [S.klOwner, S.klDeploy],
  ),
];

const PARCEL: Script[] = [
  sc(
    "m06-parcel-h2-story",
    "parcel",
    "stored test and migration rules repeated, one with a story, one abbreviated; a new rule on the same topic",
    "2026-09-08T08:30:00.000Z",
    (s) =>
      turns(s, "parcel", [
        ["add a `surcharge_rules` table and a repository for it", R],
        [
          "the repository test spins up the real postgres container. we had H2 pass a jsonb query that then failed in staging, never again",
          D(
            "rule",
            "project",
            "Repository/integration tests use Postgres via Testcontainers rather than H2.",
            { dup: S.prTests },
          ),
        ],
        [
          "schema via flyway only. no ddl-auto",
          D("rule", "project", "Schema changes go through Flyway; ddl-auto is not used.", {
            dup: S.prFlyway,
          }),
        ],
        [
          "and once a V__ file is merged nobody edits it. mistakes get a new migration on top",
          D(
            "rule",
            "project",
            "A merged Flyway migration is never edited; fixes go in a new migration.",
          ),
        ],
      ]),
    [S.prTests, S.prFlyway],
  ),
  sc(
    "m07-parcel-port-moved",
    "parcel",
    "a stored port changed; a stored version repeated inside a long request",
    "2026-09-09T11:15:00.000Z",
    (s) => {
      s.user(
        "ok so the local setup is annoying: the new carrier mock also wants 8081, so I moved us. app is on 8085 locally now and actuator on 9085, update the compose file and the http client scratch files",
        R,
        D("fact", "project", "Locally the service listens on 8085 and the actuator on 9085.", {
          contra: S.prPort,
        }),
      );
      s.tools(WORK.parcel[1]);
      s.say("Updated docker-compose.yml and the .http files.");
      s.user(
        "next: the zone lookup does a blocking call inside the request thread and it shows in the p99s. we're on java 21 + boot 3.3 so just turn on virtual threads (spring.threads.virtual.enabled) instead of rewriting it reactive, then rerun the rate quote tests and show me the timings before and after, plus check whether the carrier mock's latency setting is still 40ms",
        R,
        D("fact", "project", "The service runs on Java 21 with Spring Boot 3.3.", {
          dup: S.prJava,
        }),
        D(
          "decision",
          "project",
          "Blocking calls are handled with virtual threads rather than a reactive rewrite.",
        ),
      );
      s.tools(WORK.parcel[0]);
      s.say("p99 of the quote endpoint went from 310 ms to 95 ms; the mock is still at 40 ms.");
    },
    [S.prPort, S.prJava],
  ),
  sc(
    "m08-parcel-conventions",
    "parcel",
    "rules with and without reasons, use X not Y, avoid X; hard negatives",
    "2026-09-10T09:40:00.000Z",
    (s) =>
      turns(s, "parcel", [
        [
          "constructor injection, not @Autowired on fields. it keeps the classes testable without a spring context",
          D(
            "rule",
            "project",
            "Use constructor injection, not @Autowired fields (classes stay testable without Spring).",
          ),
        ],
        [
          "avoid data class copies with 10 named args in the hot path",
          D(
            "rule",
            "project",
            "Avoid large data class copy() calls in the hot path.",
          ),
        ],
        [
          "from now on every new endpoint gets a versioned path under /v1 or /v2. We broke the shop plugin once by changing an unversioned route.",
          D("rule", "project", "Every new endpoint lives under a versioned path (/v1, /v2, …)."),
        ],
        [
          "for this PR only keep the old /quotes route alive, we remove it next week",
          HN(
            "one-off",
          ),
        ],
        ["should every controller always return ResponseEntity?", HN("question")],
        ["ok push it", R],
      ]),
  ),
  sc(
    "m09-parcel-slack-bot",
    "parcel",
    "a Slack bot token inside a durable rule about carrier alerts",
    "2026-09-11T14:05:00.000Z",
    (s) => {
      const tok = s.secret("slackBot");
      s.userS(
        `when a carrier api returns 5xx for more than a minute we post to #parcel-ops. the bot token is ${tok} — keep that alerting in CarrierHealthMonitor, don't sprinkle slack calls around the clients`,
        [tok],
        D(
          "rule",
          "project",
          "Carrier outage alerts to #parcel-ops are sent only from CarrierHealthMonitor, not from the individual clients.",
          { secret: true },
        ),
      );
      s.tools(WORK.parcel[1]);
      s.say("Moved the two stray Slack calls into CarrierHealthMonitor.");
      turns(s, "parcel", [
        ["put the token in vault under secret/parcel-rates/slack and read it from there", R],
        [
          "DHL and GLS are the only carriers with a sandbox, the others we stub with wiremock",
          D(
            "fact",
            "project",
            "Only DHL and GLS have carrier sandboxes; the other carriers are stubbed with WireMock.",
          ),
        ],
      ]);
    },
  ),
];

const DUCK: Script[] = [
  sc(
    "m10-duck-as-usual",
    "duck",
    "a stored naming rule repeated with a marker, a stored test rule as the answer to a question; a new rule on the same topic",
    "2026-09-14T07:50:00.000Z",
    (s) => {
      s.user(
        "new source: the klaviyo export landed in raw/klaviyo. stage the campaigns and events tables, names as usual — stg_klaviyo__campaigns etc",
        R,
        D(
          "rule",
          "project",
          "Staging models are named stg_<source>__<table> (stg_klaviyo__campaigns).",
          {
            dup: S.dmNaming,
          },
        ),
      );
      ask(
        s,
        "duck",
        "Both staging models build. Do you want tests on them, or leave that for later?",
        1,
      );
      s.user(
        "yes — campaign_id and event_id each get not_null + unique, that's the bar for every model here",
        D("rule", "project", "Each model's primary key gets not_null and unique tests.", {
          dup: S.dmKeys,
        }),
      );
      s.tools(WORK.duck[0]);
      s.say("Added the tests; 133 pass.");
      turns(s, "duck", [
        [
          "and anything between staging and marts is an int_ model that the BI tool never reads directly. keeps the evidence.dev pages pointing at marts only",
          D(
            "rule",
            "project",
            "Intermediate models are prefixed int_ and never queried by the BI tool; dashboards read marts only.",
          ),
        ],
      ]);
    },
    [S.dmNaming, S.dmKeys],
  ),
  sc(
    "m11-duck-reviewer-exception",
    "duck",
    "a stored reviewer replaced; an exception added to a stored test rule",
    "2026-09-15T12:20:00.000Z",
    (s) =>
      turns(s, "duck", [
        [
          "Amara is out until march and handed finance over — Kwame reviews anything in marts/finance from now on, add him to CODEOWNERS",
          R,
          D("fact", "project", "Kwame reviews changes to the marts/finance models.", {
            contra: S.dmOwner,
          }),
        ],
        [
          "the snapshot of the web event log has no real key, so it's the one model without the unique test. not_null on event_ts is enough there",
          D(
            "rule",
            "project",
            "Exception: the web event log snapshot has no unique key test; only not_null on event_ts.",
            { contra: S.dmKeys },
          ),
        ],
        ["run the finance marts and show me row counts", R],
      ]),
    [S.dmOwner, S.dmKeys],
  ),
  sc(
    "m12-duck-hard-negatives",
    "duck",
    "hard negatives: task-scoped rule words, questions phrased like rules, hypotheses by user and agent",
    "2026-09-16T10:10:00.000Z",
    (s) => {
      turns(s, "duck", [
        ["full-refresh fct_orders, just this once, the backfill changed history", HN("one-off")],
        ["should every mart always be materialized as a table?", HN("question")],
      ]);
      s.user("why is fct_sessions suddenly twice as slow?", Q);
      s.tools(WORK.duck[0]);
      s.say(
        "It might be the new window function over all sessions; DuckDB may be spilling to disk because the memory_limit is at the default.",
        HN("hypothesis"),
      );
      turns(s, "duck", [
        ["maybe it's the parquet files from the new exporter, they're tiny", HN("hypothesis")],
        ["for today don't run the tests on the marts, only build", HN("one-off")],
        [
          "ok found it: memory_limit. set it to 6GB in profiles.yml, that's what the laptops here can take",
          R,
          D("fact", "project", "DuckDB's memory_limit is set to 6GB in profiles.yml."),
        ],
      ], 1);
    },
  ),
  sc(
    "m13-duck-aws-keys",
    "duck",
    "AWS keys pasted for a one-off read; setup facts in passing",
    "2026-09-17T16:45:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `need the october returns file from the partner bucket just for a sanity check, use these for now:\nAWS_ACCESS_KEY_ID=${id}\nAWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(WORK.duck[1]);
      s.say("Read 4,812 returns from the October file; totals match the mart within 0.2%.");
      turns(s, "duck", [
        [
          "cool. fyi the prod target is `md` — motherduck, db duck_metrics_prod — the `local` target is only for our laptops",
          D(
            "fact",
            "project",
            "The prod dbt target is `md` (MotherDuck database duck_metrics_prod); `local` is for laptops.",
          ),
        ],
        [
          "the nightly run is a github action at 04:30 UTC, workflow nightly.yml",
          D(
            "fact",
            "project",
            "The nightly dbt run is the GitHub Action nightly.yml at 04:30 UTC.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "m14-duck-compaction-confirm",
    "duck",
    "a confirmed agent proposal; a compaction; a terse rule after it",
    "2026-09-18T09:00:00.000Z",
    (s) => {
      s.user("the seeds folder is a mess, clean it up and tell me what you'd change", R);
      ask(
        s,
        "duck",
        "Three seeds are lookup tables that change monthly. I'd keep seeds only for static reference data and load the monthly ones as sources. Shall I treat that as the rule for seeds going forward?",
      );
      s.confirm(
        "yes, do that always",
        "rule",
        "project",
        "Seeds hold only static reference data; data that changes is loaded as a source.",
      );
      s.tools(WORK.duck[0]);
      s.say("Moved the three monthly tables to sources.");
      s.compact(
        "The user asked to clean up the seeds folder in duck-metrics; the monthly lookup tables are now sources and seeds keep only static reference data.",
      );
      turns(s, "duck", [
        [
          "sqlfluff. always before commit",
          D(
            "rule",
            "project",
            "Run sqlfluff before every commit.",
          ),
        ],
        ["ok now the country_codes seed has a duplicate row, fix it", R],
      ]);
    },
  ),
];

const LAB: Script[] = [
  sc(
    "m15-lab-dns-moved",
    "lab",
    "a stored DNS host changed; a stored check-mode rule repeated with a story",
    "2026-09-21T18:30:00.000Z",
    (s) =>
      turns(s, "lab", [
        [
          "i swapped pihole for adguard home last weekend and it lives on .3 now — 10.0.10.3. fix the dns role and the dhcp options",
          R,
          D("fact", "project", "Internal DNS is AdGuard Home on 10.0.10.3.", { contra: S.hlDns }),
        ],
        [
          "dry run it first with check+diff. I once pushed an interfaces template straight to pve2 and had to drive to the basement with a monitor",
          D(
            "rule",
            "project",
            "Run playbooks with --check --diff before applying them for real.",
            { dup: S.hlCheck },
          ),
        ],
        ["looks fine, apply", R],
      ]),
    [S.hlDns, S.hlCheck],
  ),
  sc(
    "m16-lab-node-retired",
    "lab",
    "a stored vault rule repeated inside a long request; a stored node list changed",
    "2026-09-22T19:10:00.000Z",
    (s) => {
      s.user(
        "ok bigger one tonight. pve1 is gone (dead psu, not replacing it) and there's a new node pve4 at 10.0.10.14 — so the cluster is pve2, pve3, pve4. please: drop pve1 from the inventory, add pve4 to the proxmox group, add its root ssh key to the vaulted vars (encrypt it with ansible-vault like all the other secrets, the pass file in ~/.vault_pass stays out of git obviously), and then run the base playbook against pve4 only",
        R,
        D("fact", "project", "The Proxmox cluster's nodes are pve2, pve3 and pve4 (10.0.10.14).", {
          contra: S.hlNodes,
        }),
        D(
          "rule",
          "project",
          "Secrets are encrypted with ansible-vault; ~/.vault_pass stays out of git.",
          { dup: S.hlVault },
        ),
      );
      s.tools(WORK.lab[1], WORK.lab[0]);
      s.say("pve4 is in the inventory and the base playbook's check run is clean.");
      turns(s, "lab", [
        ["run it for real", R],
        ["does corosync need a restart on the others?", Q],
      ]);
    },
    [S.hlVault, S.hlNodes],
  ),
  sc(
    "m17-lab-terse-typos",
    "lab",
    "terse messages with typos; rules split over two sentences; setup facts",
    "2026-09-23T21:00:00.000Z",
    (s) =>
      turns(s, "lab", [
        ["jellyfin lxc wont start after the upgrade, chek it", R],
        [
          "guests go on vlan 20. iot junk on vlan 30, never on 20",
          D(
            "fact",
            "project",
            "Guests are on VLAN 20; IoT devices are on VLAN 30, never on VLAN 20.",
          ),
        ],
        [
          "dont use the proxmox ui for anything the repo manages. It drifts and the next run undoes it.",
          D(
            "rule",
            "project",
            "Don't change things the repo manages through the Proxmox web UI (the next playbook run undoes it).",
          ),
        ],
        [
          "backups r on the synology, nfs share /volume1/pve-dump",
          D(
            "fact",
            "project",
            "Backups go to the Synology NFS share /volume1/pve-dump.",
          ),
        ],
        ["thx", R],
      ]),
  ),
  sc(
    "m18-lab-api-password",
    "lab",
    "a password inside a durable fact about the Proxmox API user; a one-off look-alike",
    "2026-09-24T20:15:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `the community.general proxmox modules auth as ansible@pve — password is ${pw} — use that user for all the vm tasks, never root@pam`,
        [pw],
        D(
          "rule",
          "project",
          "Proxmox module tasks authenticate as ansible@pve, never root@pam.",
          { secret: true },
        ),
      );
      s.tools(WORK.lab[0]);
      s.say("The VM tasks use ansible@pve now; I'd put the password in the vaulted vars file.");
      turns(s, "lab", [
        ["yes vault it", R],
        [
          "just this once reboot pve3 without migrating the guests, its 2am nobody's using them",
          HN(
            "one-off",
          ),
        ],
      ]);
    },
  ),
];

const TIDE: Script[] = [
  sc(
    "m19-tide-router-negated",
    "tide",
    "a stored navigation fact repeated negated; a new rule on the same topic",
    "2026-09-28T08:20:00.000Z",
    (s) =>
      turns(s, "tide", [
        ["add a settings screen with units (m/ft) and a dark mode toggle", R],
        [
          "don't hand-build a stack navigator with @react-navigation for it, the file in app/ is the route",
          D("fact", "project", "Screens are routes defined by files in app/ (expo-router).", {
            dup: S.tdNav,
          }),
        ],
        [
          "modal screens go in app/(modals)/ and are presented with presentation: 'modal' in that group's _layout. same for any future modal",
          D(
            "rule",
            "project",
            "Modal screens live in app/(modals)/ and are presented modally from that group's _layout.",
          ),
        ],
      ]),
    [S.tdNav, S.tdQuery],
  ),
  sc(
    "m20-tide-sdk52",
    "tide",
    "a stored SDK version changed; a stored build rule repeated as the reply to the agent's question",
    "2026-09-29T10:30:00.000Z",
    (s) => {
      s.user(
        "we're on sdk 52 now (upgrade landed this morning). new arch is on by default there, see if react-native-svg charts still render",
        R,
        D("fact", "project", "tidepool-expo is on Expo SDK 52.", { contra: S.tdSdk }),
      );
      ask(
        s,
        "tide",
        "The charts render on iOS. Should I do a local release build (`expo run:android --variant release`) to check Android?",
      );
      s.user(
        "no, eas makes our release builds, local ones don't match what ships. a dev client on the emulator is fine",
        D("rule", "project", "Release builds are made by EAS, not locally.", { dup: S.tdEas }),
        R,
      );
      s.tools(WORK.tide[0]);
      s.say("Charts render in the Android dev client too.");
    },
    [S.tdSdk, S.tdEas],
  ),
  sc(
    "m21-tide-offline-reversal",
    "tide",
    "a stored state-management fact reversed; a new fact on the same topic",
    "2026-09-30T13:00:00.000Z",
    (s) =>
      turns(s, "tide", [
        [
          "decision from yesterday's call: spots and tide tables must work offline on the beach, so we're replacing tanstack query with WatermelonDB + a sync endpoint. rip it out of the spot screens first",
          R,
          D(
            "decision",
            "project",
            "Server state moves from TanStack Query to WatermelonDB with a sync endpoint (the app must work offline).",
            { contra: S.tdQuery },
          ),
        ],
        [
          "the sync endpoint is POST /sync on the api, pull + push in one call, the backend team (Bilal) owns it",
          D(
            "fact",
            "project",
            "Sync goes through POST /sync on the API (pull and push in one call); Bilal's backend team owns it.",
          ),
        ],
        ["what's the watermelon schema migration story?", Q],
      ]),
    [S.tdQuery],
  ),
  sc(
    "m22-tide-global-prefs-private",
    "tide",
    "global preferences; a private aside; a decision with its reason",
    "2026-10-01T09:45:00.000Z",
    (s) =>
      turns(s, "tide", [
        [
          "general thing about me, in any repo: when you explain a diff, give me bullets, not paragraphs",
          D("preference", "global", "Explain diffs as bullet points, not paragraphs."),
        ],
        [
          "also I never want emoji in commit messages or code comments. anywhere",
          D("preference", "global", "No emoji in commit messages or code comments."),
        ],
        [
          "<private>sorry if I'm slow, my landlord is doing drills next door all day</private> anyway the tide chart should use victory-native",
          N("private"),
          R,
        ],
        [
          "we went with victory-native over react-native-chart-kit because chart-kit can't do the two-axis tide+swell view",
          D(
            "decision",
            "project",
            "Charts use victory-native, not react-native-chart-kit (which can't draw the two-axis tide and swell view).",
          ),
        ],
      ]),
  ),
  sc(
    "m23-tide-github-pat",
    "tide",
    "a GitHub fine-grained token pasted for a one-off; descriptive and task-scoped look-alikes",
    "2026-10-02T15:20:00.000Z",
    (s) => {
      const pat = s.secret("githubPat");
      s.userS(
        `the private patch-package fork won't install in CI. use mine for a test install and then forget it: ${pat}`,
        [pat],
        N("secret"),
        R,
      );
      s.tools(WORK.tide[1]);
      s.say("It installs with your token; the CI token lacks read access to the fork.");
      turns(s, "tide", [
        ["it always crashes when I rotate the simulator on the spot screen", HN("one-off")],
        ["probably the chart re-measures on every orientation change?", HN("hypothesis")],
        ["for the testflight build today turn off the analytics sdk", HN("one-off")],
        [
          "the sentry dsn comes from EXPO_PUBLIC_SENTRY_DSN in eas.json per profile, don't hardcode it",
          D(
            "rule",
            "project",
            "The Sentry DSN comes from EXPO_PUBLIC_SENTRY_DSN per EAS profile in eas.json; never hardcoded.",
          ),
        ],
      ]);
    },
  ),
];

const LEDGER: Script[] = [
  sc(
    "m24-ledger-abbrev-queue",
    "ledger",
    "a stored logging rule repeated abbreviated; a new rule on the same topic; a stored queue changed",
    "2026-10-05T08:00:00.000Z",
    (s) =>
      turns(s, "ledger", [
        ["add logging to the retry policy of the bank statement fetcher", R],
        [
          'serilog templates pls, no $"..." in log calls',
          D(
            "rule",
            "project",
            "Log calls use Serilog message templates, not string interpolation.",
            {
              dup: S.lwSerilog,
            },
          ),
        ],
        [
          "every log line inside the reconcile loop must carry BatchId as a property, push it with LogContext so it's on all of them",
          D(
            "rule",
            "project",
            "Every log line in the reconcile loop carries the BatchId property (pushed with LogContext).",
          ),
        ],
        [
          "oh and infra moved us: we read from the topic ledger-events-v2, subscription reconcile-worker, the old queue is drained and deleted. change the config",
          R,
          D(
            "fact",
            "project",
            "The worker reads the Service Bus topic ledger-events-v2 through the subscription reconcile-worker.",
            { contra: S.lwQueue },
          ),
        ],
      ]),
    [S.lwSerilog, S.lwQueue],
  ),
  sc(
    "m25-ledger-net9",
    "ledger",
    "a stored target framework changed; a stored owner repeated with a marker",
    "2026-10-06T11:30:00.000Z",
    (s) =>
      turns(s, "ledger", [
        [
          "retarget to net9.0 — we're on .NET 9 across the board since the platform team's base images changed",
          R,
          D("fact", "project", "Ledgerline.Worker targets .NET 9.", { contra: S.lwNet }),
        ],
        [
          "anything touching reconciliation goes to Priya for review, as you know, it's her job",
          D("fact", "project", "Priya owns the reconciliation job and reviews changes to it.", {
            dup: S.lwOwner,
          }),
        ],
        ["do the test projects need retargeting separately?", Q],
      ]),
    [S.lwNet, S.lwOwner],
  ),
  sc(
    "m26-ledger-decisions-confirm",
    "ledger",
    "decisions with reasons; a confirmed agent proposal; a setup fact",
    "2026-10-07T13:50:00.000Z",
    (s) => {
      turns(s, "ledger", [
        [
          "we're keeping the worker a plain BackgroundService instead of Hangfire. one loop and a queue doesn't need a dashboard and a second database",
          D(
            "decision",
            "project",
            "The worker stays a plain BackgroundService rather than Hangfire (no need for its dashboard and database).",
          ),
        ],
      ]);
      ask(
        s,
        "ledger",
        "The amounts are double in two DTOs. I'd make every money amount a decimal and round only at the edges with MidpointRounding.ToEven — should that be the standard here?",
        1,
      );
      s.confirm(
        "yes exactly, always",
        "rule",
        "project",
        "Money amounts are decimal and rounded only at the edges with MidpointRounding.ToEven.",
      );
      s.tools(WORK.ledger[0]);
      s.say("Converted both DTOs; 58 tests pass.");
      turns(s, "ledger", [
        [
          "the sql db for local dev is the docker one on localhost,1434 (1433 is taken by the legacy app on my machine)",
          D("fact", "project", "The local dev SQL Server runs in Docker on localhost,1434."),
        ],
      ]);
    },
  ),
  sc(
    "m27-ledger-pasted-log",
    "ledger",
    "a long pasted log with a fact at its end; hard negatives",
    "2026-10-08T07:25:00.000Z",
    (s) => {
      s.user(
        "this is from the pod that restarted overnight:\n\n```\n[02:14:07 INF] Reconciling batch 8c1f2a with 1204 entries\n[02:14:09 WRN] Statement line 311 has no matching ledger entry {BatchId=8c1f2a}\n[02:14:11 ERR] Unhandled exception in ReconcileWorker\nSystem.InvalidOperationException: Sequence contains more than one matching element\n   at System.Linq.ThrowHelper.ThrowMoreThanOneMatchException()\n   at System.Linq.Enumerable.Single[TSource](IEnumerable`1 source, Func`2 predicate)\n   at Ledgerline.Worker.Reconcile.Matcher.MatchByReference(StatementLine line) in /src/Reconcile/Matcher.cs:line 57\n   at Ledgerline.Worker.Reconcile.Reconciler.RunAsync(Batch batch, CancellationToken ct) in /src/Reconcile/Reconciler.cs:line 88\n[02:14:11 FTL] Host terminated unexpectedly\n```\n\nduplicate bank references, I guess. the bank is allowed to reuse references after 90 days btw, that's in their spec, so matching has to use reference + value date",
        R,
        D(
          "fact",
          "project",
          "The bank may reuse payment references after 90 days, so matching uses reference plus value date.",
        ),
      );
      s.tools(WORK.ledger[1]);
      s.say("Matcher now keys on (reference, value date).");
      turns(s, "ledger", [
        ["it never fails on my machine, only in the cluster", HN("one-off")],
        ["maybe the cluster gets the full statement and I only have a sample", HN("hypothesis")],
        ["don't deploy this tonight, wait for Priya's ok", HN("one-off")],
      ]);
    },
  ),
];

const DEP: Script[] = [
  sc(
    "m28-dep-stdlib-wrap",
    "dep",
    "a stored error rule repeated in other words; a stored release rule repeated with a marker",
    "2026-10-12T09:10:00.000Z",
    (s) =>
      turns(s, "dep", [
        [
          "the advisory fetcher swallows the http error. wrap it with %w the stdlib way — we don't take third-party error helpers into this module",
          R,
          D(
            "rule",
            "project",
            "Wrap errors with fmt.Errorf and %w; no third-party error packages.",
            {
              dup: S.dwErrors,
            },
          ),
        ],
        ["add a test that checks errors.Is on the timeout", R],
        [
          "then tag v0.8.0 and let goreleaser build it like always",
          R,
          D("rule", "project", "Releases are built by goreleaser from a version tag.", {
            dup: S.dwRelease,
          }),
        ],
      ]),
    [S.dwErrors, S.dwRelease],
  ),
  sc(
    "m29-dep-go124-exception",
    "dep",
    "a stored Go support window changed; an exception added to a stored flag rule",
    "2026-10-13T14:00:00.000Z",
    (s) =>
      turns(s, "dep", [
        [
          "go 1.24 is out, so we support 1.23 and 1.24 now and 1.22 goes. update go.mod and the CI matrix",
          R,
          D("fact", "project", "depwatch supports Go 1.23 and 1.24.", { contra: S.dwGo }),
        ],
        [
          "one flag is the exception to the cmd/ rule: --version stays in main.go, because goreleaser sets it through ldflags on main.version",
          D(
            "rule",
            "project",
            "Exception: the --version flag is defined in main.go (goreleaser sets main.version via ldflags).",
            { contra: S.dwFlags },
          ),
        ],
      ]),
    [S.dwGo, S.dwFlags],
  ),
  sc(
    "m30-dep-terse-rules",
    "dep",
    "short one-liners; a rule split over two sentences with the reason second; a preference",
    "2026-10-14T10:30:00.000Z",
    (s) =>
      turns(s, "dep", [
        ["table output is too wide on 80 cols, fix", R],
        [
          "No color codes when stdout isn't a tty. People pipe this into jq and grep all the time.",
          D("rule", "project", "No ANSI color codes when stdout is not a TTY."),
        ],
        [
          "golden files for output tests. always",
          D(
            "rule",
            "project",
            "Output tests compare against golden files.",
          ),
        ],
        [
          "I prefer table-driven tests with t.Run names in snake_case",
          D("preference", "project", "Table-driven tests with snake_case t.Run names."),
        ],
        ["would it always be safe to cache the proxy responses?", HN("question")],
      ]),
  ),
  sc(
    "m31-dep-ghp-in-fact",
    "dep",
    "a GitHub token inside a durable fact about the advisory API; a hypothesis",
    "2026-10-15T16:40:00.000Z",
    (s) => {
      const tok = s.secret("github");
      s.userS(
        `the integration tests hit the github advisory graphql api and need a token in DEPWATCH_GH_TOKEN; the CI one is ${tok}, read only. they're behind the 'integration' build tag`,
        [tok],
        D(
          "fact",
          "project",
          "Integration tests call the GitHub advisory GraphQL API with a token from DEPWATCH_GH_TOKEN and run under the `integration` build tag.",
          { secret: true },
        ),
      );
      s.tools(WORK.dep[0]);
      s.say("With the tag they pass locally; the rate limit is close though.");
      turns(s, "dep", [
        ["maybe we're re-querying the same advisories for every module?", HN("hypothesis")],
        ["add a per-run cache then", R],
      ]);
    },
  ),
];

const GLYPH: Script[] = [
  sc(
    "m32-glyph-size-story",
    "glyph",
    "a stored size budget repeated with a story; a stored build target switched",
    "2026-10-19T08:40:00.000Z",
    (s) =>
      turns(s, "glyph", [
        [
          "add kerning from the GPOS table. but watch the binary: keep it below 400k after `wasm-opt -Oz` — the docs site's lighthouse score fell off a cliff when we shipped 600k last spring",
          R,
          D("rule", "project", "The optimized release .wasm stays below 400 KB.", {
            dup: S.gwSize,
          }),
        ],
        [
          "and build with --target bundler from now on, the docs site moved to vite and imports the pkg directly",
          D("fact", "project", "The package is built with wasm-pack --target bundler.", {
            contra: S.gwTarget,
          }),
        ],
        ["what did kerning cost us in bytes?", Q],
      ]),
    [S.gwSize, S.gwTarget],
  ),
  sc(
    "m33-glyph-long-request-dup",
    "glyph",
    "a stored FFI rule repeated inside a long request; a new rule on the same topic",
    "2026-10-20T11:00:00.000Z",
    (s) => {
      s.user(
        "next feature: expose `measure_text(font, text, size)` to JS so the editor can do line breaking. it should return width, ascent and descent as a plain object (serde_wasm_bindgen), reuse the face cache from shape_text, and like the other exports it returns Result<_, JsError> so nothing can panic through to JS — bad fonts become a JS exception. add a wasm-bindgen-test for an empty string and one for a broken font",
        R,
        D(
          "rule",
          "project",
          "Exports return Result<_, JsError>; no panic may cross into JavaScript.",
          { dup: S.gwPanic },
        ),
      );
      s.tools(WORK.glyph[1], WORK.glyph[0]);
      s.say("measure_text is exported; both tests pass in headless Firefox.");
      turns(s, "glyph", [
        [
          "in dev builds install console_error_panic_hook in the start function so internal panics at least print a stack. keep that for every debug build",
          D(
            "rule",
            "project",
            "Debug builds install console_error_panic_hook in the start function.",
          ),
        ],
      ]);
    },
    [S.gwPanic],
  ),
  sc(
    "m34-glyph-hard-negatives",
    "glyph",
    "hard negatives: task-scoped rule words, questions like rules, an agent's hypothesis",
    "2026-10-21T14:15:00.000Z",
    (s) => {
      turns(s, "glyph", [
        ["for this benchmark run always build with --profiling", HN("one-off")],
        ["should we never use wee_alloc?", HN("question")],
      ]);
      s.user("shaping arabic is 4x slower than latin, why", Q);
      s.tools(WORK.glyph[1]);
      s.say(
        "My guess is the contextual substitution lookups: we may be re-walking the GSUB table for every glyph instead of caching the lookup list.",
        HN("hypothesis"),
      );
      turns(s, "glyph", [
        ["could be. try caching it, just in this branch for now", HN("one-off"), R],
        ["the rustfmt ci job never finishes on forks btw", HN("one-off")],
      ], 1);
    },
  ),
  sc(
    "m35-glyph-toolchain-facts",
    "glyph",
    "setup facts in passing; a decision with its reason; a global preference",
    "2026-10-22T09:30:00.000Z",
    (s) =>
      turns(s, "glyph", [
        [
          "the toolchain is pinned in rust-toolchain.toml to 1.82 with the wasm32-unknown-unknown target, so don't bother installing anything else",
          D(
            "fact",
            "project",
            "The toolchain is pinned to Rust 1.82 with wasm32-unknown-unknown in rust-toolchain.toml.",
          ),
        ],
        [
          "we parse fonts with ttf-parser, not our own parser and not allsorts — allsorts pulled in 150k of wasm",
          D(
            "decision",
            "project",
            "Fonts are parsed with ttf-parser, not a custom parser or allsorts (allsorts added ~150 KB of wasm).",
          ),
        ],
        [
          "personal thing: in every project, show me the commands you'd run before running anything that writes outside the repo",
          D(
            "preference",
            "global",
            "Show the commands before running anything that writes outside the repository.",
          ),
        ],
        ["run the browser tests", R],
      ]),
  ),
];

const WILD: Script[] = [
  sc(
    "m36-wild-hydra-reply",
    "wild",
    "a stored config rule repeated as the reply to the agent's question; a stored seed abbreviated; a new rule on the same topic",
    "2026-10-26T07:30:00.000Z",
    (s) => {
      s.user("I want to try mixup on the spectrograms, alpha 0.2", R);
      ask(
        s,
        "wild",
        "Should I add a `--mixup-alpha` command-line argument to train.py for this?",
        1,
      );
      s.user(
        "no cli args. it's a knob in conf/augment/, override it from the command line with hydra syntax",
        D(
          "rule",
          "project",
          "Experiment settings live in Hydra configs under conf/, not CLI flags.",
          {
            dup: S.wcHydra,
          },
        ),
      );
      s.tools(WORK.wild[0]);
      s.say("Added conf/augment/mixup.yaml; `augment=mixup augment.alpha=0.2` runs it.");
      turns(s, "wild", [
        ["seed 1337 obv", D("rule", "project", "Runs use seed 1337.", { dup: S.wcSeed })],
        [
          "and every experiment yaml gets a one-line `notes:` field saying what it's testing — when we look back in wandb after two months nobody remembers why a run exists",
          D(
            "rule",
            "project",
            "Every experiment config has a one-line `notes:` field saying what it tests.",
          ),
        ],
      ]);
    },
    [S.wcHydra, S.wcSeed],
  ),
  sc(
    "m37-wild-new-node-v4",
    "wild",
    "a stored node and a stored dataset changed; a stored tracking rule repeated with a marker",
    "2026-10-27T09:50:00.000Z",
    (s) =>
      turns(s, "wild", [
        [
          "we lost gpu03 to the new astro group. our runs go to gpu07 now, it's 8x H100, same slurm partition name",
          R,
          D("fact", "project", "Training runs on the 8×H100 node gpu07.", { contra: S.wcNode }),
        ],
        [
          "also the data is v4 now: /data/wildcall/v4, resampled to 32 kHz. point the datamodule there and fix the mel params",
          R,
          D("fact", "project", "The dataset is /data/wildcall/v4, resampled to 32 kHz.", {
            contra: S.wcData,
          }),
        ],
        [
          "log to wandb as usual, tag the runs with data-v4",
          R,
          D("fact", "project", "Runs are logged to Weights & Biases (wildcall/birdnet-ft).", {
            dup: S.wcWandb,
          }),
        ],
      ]),
    [S.wcNode, S.wcData, S.wcWandb],
  ),
  sc(
    "m38-wild-oom-trace",
    "wild",
    "a long pasted CUDA out-of-memory trace with a rule at its end; hypotheses",
    "2026-10-28T13:10:00.000Z",
    (s) => {
      s.user(
        'the long-clip run died at epoch 3:\n\n```\nEpoch 3:  41%|████      | 812/1980 [06:11<08:53,  2.19it/s, v_num=x7k2, train_loss=0.412]\nTraceback (most recent call last):\n  File "/home/chen/ml/wildcall-audio/wildcall/train.py", line 19, in main\n    L.Trainer(**cfg.trainer).fit(model, dm)\n  File "/opt/conda/lib/python3.11/site-packages/lightning/pytorch/trainer/trainer.py", line 538, in fit\n    call._call_and_handle_interrupt(\n  File "/home/chen/ml/wildcall-audio/wildcall/model.py", line 64, in training_step\n    logits = self.backbone(spec)\n  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl\n    return self._call_impl(*args, **kwargs)\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.12 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.87 GiB is free.\n```\n\nclips over 30 s blow up the batch. rule for this repo: clips longer than 30 seconds get chunked in the dataset, never padded',
        R,
        D(
          "rule",
          "project",
          "Clips longer than 30 seconds are chunked in the dataset, never padded.",
        ),
      );
      s.tools(WORK.wild[1]);
      s.say(
        "Chunking is in CallDataset now. The memory peak might also come from bf16 being off in this config.",
        HN("hypothesis"),
      );
      turns(s, "wild", [
        ["maybe, or the val loader keeps a second copy on gpu", HN("hypothesis")],
        ["should every config always turn on bf16?", HN("question")],
        ["restart it from the last checkpoint", R],
      ]);
    },
  ),
  sc(
    "m39-wild-wandb-key",
    "wild",
    "a W&B API key pasted for a one-off; setup facts",
    "2026-10-29T17:00:00.000Z",
    (s) => {
      const key = s.secret("hex");
      s.userS(
        `the sweep agent on the new box can't log in. for now just export WANDB_API_KEY=${key} in that tmux pane and start it, I'll set up the proper netrc tomorrow`,
        [key],
        N("secret"),
        R,
      );
      s.tools(WORK.wild[0]);
      s.say("The sweep agent is running in pane 2 and reporting to the sweep.");
      turns(s, "wild", [
        [
          "sweeps are defined in sweeps/*.yaml and launched with `make sweep NAME=...`",
          D(
            "fact",
            "project",
            "Sweeps are defined in sweeps/*.yaml and launched with `make sweep NAME=...`.",
          ),
        ],
        [
          "checkpoints go to /scratch/chen/ckpt, home has a 50GB quota",
          D(
            "fact",
            "project",
            "Checkpoints go to /scratch/chen/ckpt (home has a 50 GB quota).",
          ),
        ],
      ]);
    },
  ),
  sc(
    "m40-wild-from-now-on",
    "wild",
    "standing rules with typos and 'from now on'; a preference; everyday requests",
    "2026-10-30T10:20:00.000Z",
    (s) =>
      turns(s, "wild", [
        [
          "eval on the held out recordists only, from now on. otherwise the same birder's mic leaks into val",
          D(
            "rule",
            "project",
            "Evaluate on held-out recordists only (the same recordist in train and val leaks).",
          ),
        ],
        [
          "report macro-F1 not accuracy, the classes r super imbalanced",
          D("rule", "project", "Report macro-F1, not accuracy (the classes are imbalanced)."),
        ],
        [
          "i like the confusion matrices normalized by row",
          D(
            "preference",
            "project",
            "Confusion matrices are normalized by row.",
          ),
        ],
        ["make a notebook comparing run x7k2 and run p3q9", R],
        ["thx, push it", R],
      ]),
  ),
];

const TF: Script[] = [
  sc(
    "m41-tf-docs-provider6",
    "tf",
    "a stored docs rule repeated negated and paraphrased; a stored provider pin changed",
    "2026-11-02T08:15:00.000Z",
    (s) =>
      turns(s, "tf", [
        [
          "new input `max_instance_count`, default 10. and please don't type into the README variables table yourself, regenerate it",
          R,
          D(
            "rule",
            "project",
            "The README's inputs/outputs tables are regenerated with terraform-docs, not edited by hand.",
            { dup: S.tgDocs },
          ),
        ],
        [
          "we need the new scaling block, which is provider 6 only, so bump the pin to ~> 6.8 and note it in the changelog as breaking",
          R,
          D("fact", "project", "The module pins the google provider to ~> 6.8.", {
            contra: S.tgProvider,
          }),
        ],
        ["does 6.x still accept the old `template.scaling` syntax?", Q],
      ]),
    [S.tgDocs, S.tgProvider],
  ),
  sc(
    "m42-tf-region-default",
    "tf",
    "a stored test rule repeated with a reason as the answer to a question; a stored default changed",
    "2026-11-03T12:40:00.000Z",
    (s) => {
      s.user("add an example for a service behind an internal load balancer", R);
      ask(
        s,
        "tf",
        "The example is in examples/internal-lb. Can I validate it with a plan only, or should it go through terraform test?",
        1,
      );
      s.user(
        "terraform test, in the sandbox project like the rest. plan alone never catches the IAM propagation problems",
        D("rule", "project", "Examples are tested with terraform test in the sandbox project.", {
          dup: S.tgTest,
        }),
      );
      s.tools(WORK.tf[0]);
      s.say("The example passes terraform test in the sandbox.");
      turns(s, "tf", [
        [
          "change the default region to europe-west4, most of our consumers run there now and it was the most common override",
          R,
          D("fact", "project", "The region variable defaults to europe-west4.", {
            contra: S.tgRegion,
          }),
        ],
      ]);
    },
    [S.tgTest, S.tgRegion],
  ),
  sc(
    "m43-tf-sa-key",
    "tf",
    "a private key pasted for a one-off; rules with reasons; hard negatives",
    "2026-11-04T15:05:00.000Z",
    (s) => {
      const pk = s.secret("rsaKey");
      s.userS(
        `the sandbox apply fails with 403. here's the old service account's key from the json, just try an apply with it once to see if it's the identity:\n\n${pk}`,
        [pk],
        N("secret"),
        R,
      );
      s.tools(WORK.tf[0]);
      s.say("With that identity it applies, so the CI identity is missing run.admin.");
      turns(s, "tf", [
        [
          "the module never creates service account keys. consumers use workload identity federation, keys leak",
          D(
            "rule",
            "project",
            "The module never creates service account keys; consumers use workload identity federation.",
          ),
        ],
        [
          "use google_project_iam_member, not _binding or _policy. the authoritative ones wipe other people's grants",
          D(
            "rule",
            "project",
            "Use google_project_iam_member, not the authoritative _binding or _policy resources.",
          ),
        ],
        ["for the release today skip the tflint step, it's broken upstream", HN("one-off")],
        ["it always times out on the first apply in a fresh project", HN("one-off")],
      ]);
    },
  ),
  sc(
    "m44-tf-global-prefs-long",
    "tf",
    "a longer session: a stored global preference repeated with a marker, another reversed; a confirmed proposal; hard negatives",
    "2026-11-05T09:00:00.000Z",
    (s) => {
      turns(s, "tf", [
        [
          "morning. the domain mapping resource is deprecated, move to the v2 load balancer approach",
          R,
        ],
        [
          "run the tests before you tell me it's finished, as always",
          D("preference", "global", "Run the relevant tests before saying a change is done.", {
            dup: S.gTests,
          }),
        ],
      ]);
      ask(
        s,
        "tf",
        "Migration done. Every resource now sets labels from var.labels merged with module defaults. Should every new resource follow that pattern?",
      );
      s.confirm(
        "correct, keep doing that",
        "rule",
        "project",
        "Every resource gets var.labels merged with the module's default labels.",
      );
      turns(s, "tf", [
        [
          "commit it. and forget the feat:/fix: prefixes, I dropped conventional commits everywhere — just a plain imperative sentence",
          R,
          D(
            "preference",
            "global",
            "Commit messages are plain imperative sentences without Conventional Commits prefixes.",
            { contra: S.gCommits },
          ),
        ],
        ["should we always run terraform test on every push?", HN("question")],
        ["maybe the lb tests are flaky because of cert provisioning", HN("hypothesis")],
        ["for this branch don't bump the module version", HN("one-off")],
      ], 1);
    },
    [S.gTests, S.gCommits],
  ),
];

export const HOLDOUT10: Script[] = [
  ...KILN,
  ...PARCEL,
  ...DUCK,
  ...LAB,
  ...TIDE,
  ...LEDGER,
  ...DEP,
  ...GLYPH,
  ...WILD,
  ...TF,
];
