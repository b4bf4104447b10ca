/**
 * Hand-written sessions of the capture benchmark's `holdout8` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs page or
 * results (nor any other helper's worktree), and frozen before any tuning against them. Its focus
 * is repeats: 26 of its 44 sessions have stored memories, which the user says again in other words
 * (duplicates), changes (contradictions: a new value, tool, host or owner, an exception, a
 * reversal) or extends with a genuinely new fact on the same topic. Ten projects new to the data
 * set: a Ruby gem, a Cloudflare Worker, a Bevy game, a Kafka Streams service, a Prefect flows
 * repository, a Gleam service, a Tauri desktop app, an Argo CD GitOps repository, PlatformIO
 * firmware and a Hugo blog.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) that state no standing rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");

/** The holdout8 split's projects. */
const P = {
  gem: "/home/tomas/oss/sidekiq-throttle",
  worker: "/Users/lina/dev/edge-worker",
  bevy: "/home/arno/games/bevy-orchard",
  kafka: "/home/priya/work/fraud-streams",
  prefect: "/home/sven/data/prefect-flows",
  gleam: "/home/oren/src/gleam-ledger",
  tauri: "/Users/kim/apps/tauri-notes",
  gitops: "/home/jo/infra/gitops-argocd",
  pio: "/home/ravi/embedded/weatherstation-pio",
  hugo: "/home/ana/sites/hugo-blog",
} as const;
type Proj = keyof typeof P;

const CHORES: Record<Proj, ToolStep[]> = {
  gem: [
    bash(
      "bundle exec rspec spec/throttle",
      "..................\n\nFinished in 1.83 seconds (files took 0.41 seconds to load)\n18 examples, 0 failures",
    ),
    read(
      `${P.gem}/lib/sidekiq/throttle/limiter.rb`,
      'module Sidekiq\n  module Throttle\n    class Limiter\n      def initialize(key:, limit:, period:)\n        @key, @limit, @period = key, limit, period\n      end\n\n      def acquire?(redis)\n        redis.call("INCR", @key) <= @limit\n      end\n    end\n  end\nend',
    ),
  ],
  worker: [
    bash(
      "npx vitest run --pool=workers",
      " ✓ test/router.spec.ts (7 tests) 52ms\n ✓ test/session.spec.ts (5 tests) 31ms\n\n Test Files  2 passed (2)\n      Tests  12 passed (12)",
    ),
    read(
      `${P.worker}/src/index.ts`,
      'export default {\n  async fetch(req: Request, env: Env): Promise<Response> {\n    const url = new URL(req.url);\n    if (url.pathname === "/health") return new Response("ok");\n    return router.handle(req, env);\n  },\n};',
    ),
  ],
  bevy: [
    bash(
      "cargo test --workspace",
      "   Compiling bevy-orchard v0.3.0 (/home/arno/games/bevy-orchard)\n    Finished test [unoptimized + debuginfo] target(s) in 41.2s\n     Running unittests src/lib.rs\n\nrunning 14 tests\ntest result: ok. 14 passed; 0 failed",
    ),
    read(
      `${P.bevy}/src/harvest.rs`,
      "use bevy::prelude::*;\n\npub struct HarvestPlugin;\n\nimpl Plugin for HarvestPlugin {\n    fn build(&self, app: &mut App) {\n        app.add_systems(Update, (pick_fruit, update_basket).chain());\n    }\n}",
    ),
  ],
  kafka: [
    bash(
      "./gradlew test --tests '*ScoringTopologyTest*'",
      "> Task :test\n\nScoringTopologyTest > flags a burst of declines PASSED\nScoringTopologyTest > ignores refunds PASSED\n\nBUILD SUCCESSFUL in 34s",
    ),
    read(
      `${P.kafka}/src/main/java/com/acme/fraud/ScoringTopology.java`,
      'public final class ScoringTopology {\n  public static Topology build(Config cfg) {\n    StreamsBuilder b = new StreamsBuilder();\n    b.stream("payments.card-auth.v2", Consumed.with(Serdes.String(), authSerde))\n      .groupByKey()\n      .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(5)))\n      .count();\n    return b.build();\n  }\n}',
    ),
  ],
  prefect: [
    bash(
      "uv run pytest tests/flows -q",
      "...............                                                          [100%]\n15 passed in 2.71s",
    ),
    read(
      `${P.prefect}/flows/orders_sync.py`,
      'import polars as pl\nfrom prefect import flow, task\n\n\n@task(retries=3)\ndef fetch_orders(day: str) -> pl.DataFrame:\n    return pl.read_json(api.get(f"/orders?day={day}"))\n\n\n@flow(name="orders-sync")\ndef orders_sync(day: str) -> None:\n    write_bronze(fetch_orders(day), "bronze.orders")',
    ),
  ],
  gleam: [
    bash(
      "gleam test",
      "  Compiling gleam_ledger\n   Compiled in 1.22s\n    Running gleam_ledger_test.main\n.........................\n25 tests, 0 failures",
    ),
    read(
      `${P.gleam}/src/ledger/posting.gleam`,
      "import gleam/list\n\npub type Posting {\n  Posting(account: String, amount: Int)\n}\n\npub fn balanced(postings: List(Posting)) -> Bool {\n  list.fold(postings, 0, fn(acc, p) { acc + p.amount }) == 0\n}",
    ),
  ],
  tauri: [
    bash(
      "cargo test --manifest-path src-tauri/Cargo.toml && npm run typecheck",
      "running 9 tests\ntest result: ok. 9 passed; 0 failed\n\n> tauri-notes@1.4.0 typecheck\n> tsc --noEmit",
    ),
    read(
      `${P.tauri}/src-tauri/src/commands.rs`,
      "#[tauri::command]\npub async fn list_notes(state: tauri::State<'_, AppState>) -> Result<Vec<NoteMeta>, String> {\n    state.store.list().await.map_err(|e| e.to_string())\n}",
    ),
  ],
  gitops: [
    bash(
      "kustomize build apps/billing/overlays/staging | kubeconform -strict -summary",
      "Summary: 14 resources found in 1 file - Valid: 14, Invalid: 0, Errors: 0, Skipped: 0",
    ),
    read(
      `${P.gitops}/apps/billing/overlays/staging/kustomization.yaml`,
      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../base\npatches:\n  - path: replicas.yaml\nimages:\n  - name: billing\n    newTag: 2.8.1",
    ),
  ],
  pio: [
    bash(
      "pio test -e native",
      "Processing * in native environment\nTesting...\ntest/test_sensors/test_main.cpp:41: test_bme280_parse [PASSED]\ntest/test_sensors/test_main.cpp:58: test_battery_curve [PASSED]\n=== 2 test cases: 2 succeeded in 00:00:03.112 ===",
    ),
    read(
      `${P.pio}/src/main.cpp`,
      '#include <Arduino.h>\n#include "sensors/Sensor.h"\n\nvoid setup() {\n  Serial.begin(115200);\n  sensors::begin();\n}\n\nvoid loop() {}',
    ),
  ],
  hugo: [
    bash(
      "hugo --gc --minify",
      "Start building sites …\nhugo v0.139.0+extended linux/amd64\n\n                   | EN\n-------------------+------\n  Pages            | 148\n  Static files     |  12\nTotal in 812 ms",
    ),
    read(
      `${P.hugo}/hugo.toml`,
      'baseURL = "https://ana.example.org/"\nlanguageCode = "en-us"\ntitle = "notes from the lab"\ntheme = "PaperMod"\n\n[params]\n  ShowReadingTime = true',
    ),
  ],
};

const OK = [
  "Done.",
  "Done, the checks pass.",
  "Made the change and re-ran the tests.",
  "That's in.",
  "Updated; nothing else needed changing.",
  "Finished, the build is green.",
];

/** A user turn: the prompt, its labels, then routine tool work and a short answer. */
type Turn = [string, ...Label[]];

function turns(s: Session, p: Proj, ts: Turn[]): void {
  ts.forEach(([text, ...labels], i) => {
    s.user(text, ...labels);
    s.tools(CHORES[p][i % CHORES[p].length]);
    s.say(OK[(i + text.length) % OK.length]);
  });
}

function sc(
  id: string,
  p: Proj,
  style: string,
  start: string,
  run: (s: Session) => void,
  stored: string[] = [],
): Script {
  return {
    id,
    cwd: P[p],
    style,
    start,
    version: "2.0.37",
    run,
    ...(stored.length ? { stored } : {}),
  };
}

// Stored memories, named once so the labels quote them exactly.
const S = {
  gemRuby: "sidekiq-throttle supports Ruby 3.1 and newer.",
  gemRedis: "Specs run against a real Redis started by docker compose, never a Redis mock.",
  gemChangelog: "Every user-facing change adds an entry to CHANGELOG.md under Unreleased.",
  cfDeploy: "Deploys go through `wrangler deploy` from CI only, never from a laptop.",
  cfKv: "Session data is kept in the SESSIONS KV namespace.",
  cfHono: "edge-worker routes requests with Hono.",
  bvBevy: "bevy-orchard is pinned to Bevy 0.14.",
  bvPlugins:
    "Gameplay systems are registered through plugins, one plugin per feature, never directly on App in main.rs.",
  bvAssets: "Textures live in assets/ as .ktx2 files.",
  ksJava: "fraud-streams builds with Java 17.",
  ksTopics: "Kafka topic names follow <domain>.<entity>.v<n>, e.g. payments.card-auth.v2.",
  ksOwner: "Priya owns the scoring topology (ScoringTopology.java).",
  pfPool: "Flows run on the k8s-prod work pool.",
  pfRetries: "Every task that calls an external API has retries=3.",
  pfPolars: "Transforms use polars, not pandas.",
  glTarget: "gleam-ledger compiles to the Erlang target.",
  glDb: "The database is SQLite through sqlight.",
  glFmt: "`gleam format --check` must pass in CI.",
  tuIpc: "The frontend talks to Rust only through the typed commands in src-tauri/src/commands.rs.",
  tuUpdater: "Releases are signed and shipped through the Tauri updater from GitHub Releases.",
  tuReact: "The tauri-notes frontend is React with Vite.",
  goSync: "Argo CD auto-sync is on for staging and off for prod.",
  goKustomize: "Manifests are plain kustomize overlays; no Helm charts in this repository.",
  goSecrets: "Secrets are committed only as SealedSecrets.",
  wsBoard: "The target board is the ESP32-S3 DevKitC-1.",
  wsSleep: "Between readings the firmware deep-sleeps for 10 minutes.",
  wsMqtt: "Readings are published over MQTT to the broker at mqtt.home.lan:1883.",
  hgTheme: "The Hugo theme is PaperMod, vendored as a git submodule under themes/.",
  hgImages: "Post images go in the post's page bundle, not in static/.",
  hgDeploy: "The blog deploys to Netlify from main.",
  gCommit: "Commit subject lines stay under 72 characters.",
} as const;

const GEM: Script[] = [
  sc(
    "y01-gem-dup-reason",
    "gem",
    "stored rules repeated: one with a marker, one with a story",
    "2026-04-06T09:10:00.000Z",
    (s) =>
      turns(s, "gem", [
        ["add a concurrency limit option to the throttle DSL", R],
        [
          "changelog line under Unreleased, as usual",
          D("rule", "project", "User-facing changes get a CHANGELOG.md entry under Unreleased.", {
            dup: S.gemChangelog,
          }),
        ],
        [
          "and the specs hit the docker compose redis — no mock_redis, we got burned once when the mock's EVALSHA behaved differently from the real server",
          D("rule", "project", "Specs use the docker compose Redis, never a Redis mock.", {
            dup: S.gemRedis,
          }),
        ],
        ["run the suite", R],
      ]),
    [S.gemRedis, S.gemChangelog],
  ),
  sc(
    "y02-gem-ruby-bump",
    "gem",
    "a stored fact changed (minimum Ruby); a new rule on the same topic",
    "2026-04-07T10:00:00.000Z",
    (s) =>
      turns(s, "gem", [
        [
          "3.1 is EOL so we're dropping it: from the next release the gem supports ruby 3.2 and newer",
          D("decision", "project", "sidekiq-throttle supports Ruby 3.2 and newer (3.1 dropped).", {
            contra: S.gemRuby,
          }),
        ],
        [
          "the CI matrix should test 3.2, 3.3 and 3.4, with jruby in it but allowed to fail",
          D(
            "rule",
            "project",
            "The CI matrix tests Ruby 3.2, 3.3 and 3.4; JRuby runs too but may fail.",
          ),
        ],
        ["bump required_ruby_version in the gemspec", R],
      ]),
    [S.gemRuby],
  ),
  sc(
    "y03-gem-hard-negatives",
    "gem",
    "hard negatives while debugging a flaky spec; a rule and a release fact",
    "2026-04-08T14:30:00.000Z",
    (s) =>
      turns(s, "gem", [
        [
          "why does the limiter spec always fail on the first run after a reboot?",
          HN("question"),
        ],
        ["maybe the redis container isn't ready yet when rspec starts", HN("hypothesis")],
        [
          "btw we lint with standardrb, don't add a .rubocop.yml",
          D("rule", "project", "Linting uses standardrb; no .rubocop.yml."),
        ],
        ["for this branch never mind the yard docs", HN("one-off")],
        [
          "releases are cut with `bundle exec rake release` from main and only I push to rubygems",
          D(
            "fact",
            "project",
            "Releases are cut with `bundle exec rake release` from main; only Tomas pushes to rubygems.",
          ),
        ],
      ]),
  ),
  sc(
    "y04-gem-api-key",
    "gem",
    "an API key pasted for a one-off; a fact about the public API",
    "2026-04-09T16:05:00.000Z",
    (s) => {
      const key = s.secret("hex");
      s.userS(
        `GEM_HOST_API_KEY=${key} — use it to yank 0.9.1, it was built from the wrong branch`,
        [key],
        N("secret"),
        R,
      );
      s.tools(CHORES.gem[0]);
      s.say("Yanked 0.9.1.");
      turns(s, "gem", [
        [
          "the public API is Sidekiq::Throttle.configure plus the `throttle` class macro; everything else is internal and can change between minors",
          D(
            "fact",
            "project",
            "The public API is Sidekiq::Throttle.configure and the `throttle` class macro; everything else is internal.",
          ),
        ],
      ]);
    },
  ),
];

const WORKER: Script[] = [
  sc(
    "y05-worker-dup-negated",
    "worker",
    "stored rules repeated negated and inside a design answer; a new decision",
    "2026-04-10T08:40:00.000Z",
    (s) =>
      turns(s, "worker", [
        ["add rate limiting to /api/login", R],
        [
          "nobody runs wrangler deploy locally, CI does it",
          D("rule", "project", "wrangler deploy runs from CI, never locally.", {
            dup: S.cfDeploy,
          }),
        ],
        [
          "sessions stay in the SESSIONS namespace; the rate-limit counters go in a Durable Object, KV is too eventually consistent for counting",
          D("fact", "project", "Sessions are stored in the SESSIONS KV namespace.", {
            dup: S.cfKv,
          }),
          D(
            "decision",
            "project",
            "Rate-limit counters live in a Durable Object, not KV (KV is eventually consistent).",
          ),
        ],
      ]),
    [S.cfDeploy, S.cfKv],
  ),
  sc(
    "y06-worker-router-moved",
    "worker",
    "a stored tool replaced; a duplicate as a reply to the agent",
    "2026-04-11T11:20:00.000Z",
    (s) => {
      s.user(
        "we moved off hono to itty-router last week, we were at the 1 MB bundle limit. port the /api/notes routes",
        R,
        D("decision", "project", "edge-worker routes requests with itty-router (moved off Hono).", {
          contra: S.cfHono,
        }),
      );
      s.tools(CHORES.worker[1]);
      s.say("Do sessions still live in the SESSIONS KV namespace, or did that move too?");
      s.user(
        "still KV, SESSIONS",
        D("fact", "project", "Sessions are kept in the SESSIONS KV namespace.", { dup: S.cfKv }),
      );
      s.tools(CHORES.worker[0]);
      s.say("Ported; tests pass.");
    },
    [S.cfHono, S.cfKv],
  ),
  sc(
    "y07-worker-ordinary",
    "worker",
    "a rule with its reason, a fact in passing, hard negatives",
    "2026-04-12T15:00:00.000Z",
    (s) =>
      turns(s, "worker", [
        [
          "compatibility_date stays at 2024-09-23 until we've tested the nodejs_compat changes",
          D(
            "rule",
            "project",
            "compatibility_date in wrangler.toml stays at 2024-09-23 until nodejs_compat is tested.",
          ),
        ],
        ["for the load test tonight don't log request bodies", HN("one-off")],
        ["it always takes ages to cold start in the eu region", HN("one-off")],
        [
          "check it on staging, that's edge-staging.lina.workers.dev",
          R,
          D("fact", "project", "Staging is at edge-staging.lina.workers.dev."),
        ],
      ]),
  ),
  sc(
    "y08-worker-stripe",
    "worker",
    "a Stripe live key pasted; a durable fact on how the key is provided",
    "2026-04-13T10:10:00.000Z",
    (s) => {
      const key = s.secret("stripe");
      s.userS(
        `checkout fails on prod. here's the key to reproduce: ${key}`,
        [key],
        N("secret"),
        R,
      );
      s.tools(CHORES.worker[0]);
      s.say("Reproduced: the price id is from test mode.");
      turns(s, "worker", [
        [
          "in the worker the stripe key only comes from the STRIPE_KEY secret binding (wrangler secret put), never from vars",
          D(
            "rule",
            "project",
            "The Stripe key comes only from the STRIPE_KEY secret binding, never from vars.",
          ),
        ],
      ]);
    },
  ),
];

const BEVY: Script[] = [
  sc(
    "y09-bevy-dup-abbrev",
    "bevy",
    "stored rules repeated abbreviated, with code names",
    "2026-04-14T19:00:00.000Z",
    (s) =>
      turns(s, "bevy", [
        [
          "new FishingPlugin for the pond stuff. plugin per feature, you know the drill",
          R,
          D("rule", "project", "Each feature registers its systems through its own plugin.", {
            dup: S.bvPlugins,
          }),
        ],
        [
          "textures → assets/, ktx2",
          D("rule", "project", "Textures go in assets/ as .ktx2.", { dup: S.bvAssets }),
        ],
        ["go", R],
      ]),
    [S.bvPlugins, S.bvAssets],
  ),
  sc(
    "y10-bevy-upgrade",
    "bevy",
    "a stored version changed; an exception added to a stored rule",
    "2026-04-15T20:15:00.000Z",
    (s) =>
      turns(s, "bevy", [
        [
          "we're on bevy 0.15 now, I merged the upgrade last night",
          D("fact", "project", "bevy-orchard is on Bevy 0.15.", { contra: S.bvBevy }),
        ],
        [
          "one exception to plugin-per-feature from now on: the debug overlays get added in main.rs behind the `dev` cargo feature",
          D(
            "rule",
            "project",
            "Exception: debug overlays are added in main.rs behind the `dev` feature, not through a plugin.",
            { contra: S.bvPlugins },
          ),
        ],
        ["fix the deprecation warnings from the upgrade", R],
      ]),
    [S.bvBevy, S.bvPlugins],
  ),
  sc(
    "y11-bevy-ordinary",
    "bevy",
    "a rule, a decision with its reason, hard negatives",
    "2026-04-16T18:30:00.000Z",
    (s) =>
      turns(s, "bevy", [
        [
          "tiles are 16x16 and the camera scale is 4 — don't change either, the pixel art breaks",
          D("rule", "project", "Tiles are 16x16 and the camera scale is 4; neither changes."),
        ],
        ["should every system always run in FixedUpdate?", HN("question")],
        ["for this profiling run always build with --release and the trace feature", HN("one-off")],
        [
          "we went with avian for physics instead of rapier, rapier's fixed timestep fought with ours",
          D("decision", "project", "Physics uses avian, not rapier (timestep conflicts)."),
        ],
      ]),
  ),
  sc(
    "y12-bevy-dup-reply",
    "bevy",
    "a stored version repeated as a reply to the agent; a new fact",
    "2026-04-17T17:45:00.000Z",
    (s) => {
      s.user("the basket UI overlaps the inventory on small windows, fix it", R);
      s.tools(CHORES.bevy[1]);
      s.say("Should I check the UI layout API against Bevy 0.14, the version the project pins?");
      s.user(
        "yes 0.14, don't bump it",
        D("fact", "project", "The project stays on Bevy 0.14.", { dup: S.bvBevy }),
      );
      s.tools(CHORES.bevy[0]);
      s.say("Fixed with a flex layout; tests pass.");
      s.user(
        "also fyi save files are RON in the user's data dir, we get the path from the directories crate",
        D(
          "fact",
          "project",
          "Save files are RON in the user's data directory (path from the directories crate).",
        ),
      );
      s.say("Noted.");
    },
    [S.bvBevy],
  ),
];

const KAFKA: Script[] = [
  sc(
    "y13-kafka-dup-story",
    "kafka",
    "a stored naming rule repeated with a story; a version repeated tersely",
    "2026-04-20T09:00:00.000Z",
    (s) =>
      turns(s, "kafka", [
        [
          "add a chargeback stream. topic payments.chargeback.v1 — domain.entity.vN like the rest; the last time someone invented a name it took us two weeks to move the consumers",
          R,
          D("rule", "project", "Topics are named <domain>.<entity>.v<n>.", { dup: S.ksTopics }),
        ],
        [
          "java 17 only, no records-pattern stuff from 21",
          D("fact", "project", "The service is built with Java 17.", { dup: S.ksJava }),
        ],
        ["run the topology tests", R],
      ]),
    [S.ksTopics, S.ksJava],
  ),
  sc(
    "y14-kafka-owner",
    "kafka",
    "a new owner; a new rule on topics; a duplicate with 'like I said'",
    "2026-04-21T13:30:00.000Z",
    (s) =>
      turns(s, "kafka", [
        [
          "Priya moved to the risk team — Daniel owns ScoringTopology now, ask him before touching it",
          D("fact", "project", "Daniel owns the scoring topology (ScoringTopology.java).", {
            contra: S.ksOwner,
          }),
        ],
        [
          "every topic also needs an Avro schema in the registry with BACKWARD compatibility",
          D(
            "rule",
            "project",
            "Every topic has an Avro schema in the registry with BACKWARD compatibility.",
          ),
        ],
        [
          "and like I said, <domain>.<entity>.v<n> for the names",
          D("rule", "project", "Topic names follow <domain>.<entity>.v<n>.", { dup: S.ksTopics }),
        ],
      ]),
    [S.ksOwner, S.ksTopics],
  ),
  sc(
    "y15-kafka-ordinary",
    "kafka",
    "a rule, a setup fact, hard negatives",
    "2026-04-22T10:45:00.000Z",
    (s) =>
      turns(s, "kafka", [
        [
          "state stores are RocksDB with changelog topics. never in-memory stores in prod",
          D(
            "rule",
            "project",
            "State stores are RocksDB with changelog topics, never in-memory in prod.",
          ),
        ],
        [
          "locally it's `docker compose up kafka schema-registry`, broker on localhost:29092",
          D(
            "fact",
            "project",
            "Locally: `docker compose up kafka schema-registry`; the broker is on localhost:29092.",
          ),
        ],
        ["it never rebalances cleanly on my laptop", HN("one-off")],
        ["maybe the punctuator is just too slow?", HN("hypothesis")],
      ]),
  ),
  sc(
    "y16-kafka-sasl-password",
    "kafka",
    "a SASL password pasted; a fact about the cluster's auth",
    "2026-04-23T08:20:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `the consumer can't auth against prod. KAFKA_SASL_PASSWORD=${pw} — try it`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(CHORES.kafka[0]);
      s.say("It authenticates with SCRAM-SHA-512; the config asked for SHA-256.");
      turns(s, "kafka", [
        [
          "right, the prod cluster is SASL/SCRAM-SHA-512, staging has no auth",
          D(
            "fact",
            "project",
            "The prod Kafka cluster uses SASL/SCRAM-SHA-512; staging has no auth.",
          ),
        ],
      ]);
    },
  ),
];

const PREFECT: Script[] = [
  sc(
    "y17-prefect-dup-long",
    "prefect",
    "two stored rules repeated inside one long request",
    "2026-04-24T06:50:00.000Z",
    (s) =>
      turns(s, "prefect", [
        [
          "ok new flow for the supplier feed: pull the CSVs off the SFTP every morning at 6, polars for the transforms (not pandas, obviously), retries=3 on the download task since it's an external call, and write to bronze.supplier_feed",
          R,
          D("rule", "project", "Transforms are written with polars, not pandas.", {
            dup: S.pfPolars,
          }),
          D("rule", "project", "Tasks that call external services have retries=3.", {
            dup: S.pfRetries,
          }),
        ],
        ["add a test with a fake sftp", R],
      ]),
    [S.pfPolars, S.pfRetries],
  ),
  sc(
    "y18-prefect-pool-moved",
    "prefect",
    "a stored work pool changed; a duplicate with a new rule beside it",
    "2026-04-27T09:30:00.000Z",
    (s) =>
      turns(s, "prefect", [
        [
          "the k8s-prod pool is gone since the migration, flows run on ecs-prod now. fix the deployments",
          R,
          D("fact", "project", "Flows run on the ecs-prod work pool.", { contra: S.pfPool }),
        ],
        [
          "retries stay at 3 for external calls, but add retry_delay_seconds=60 — the vendor rate-limits per minute",
          D("rule", "project", "External API tasks keep retries=3.", { dup: S.pfRetries }),
          D("rule", "project", "External API tasks use retry_delay_seconds=60."),
        ],
      ]),
    [S.pfPool, S.pfRetries],
  ),
  sc(
    "y19-prefect-ordinary",
    "prefect",
    "a rule, a decision with its reason, hard negatives",
    "2026-04-28T11:00:00.000Z",
    (s) =>
      turns(s, "prefect", [
        [
          "deployments only through `prefect deploy --all` from prefect.yaml, nobody clicks them together in the UI",
          D(
            "rule",
            "project",
            "Deployments are made with `prefect deploy --all` from prefect.yaml, never in the UI.",
          ),
        ],
        ["just this once run the backfill from my laptop", HN("one-off")],
        ["should every flow always have a timeout?", HN("question")],
        [
          "we picked delta lake over iceberg for silver, polars writes it natively",
          D(
            "decision",
            "project",
            "Silver tables are Delta Lake, not Iceberg (polars writes it natively).",
          ),
        ],
      ]),
  ),
  sc(
    "y20-prefect-dup-negated",
    "prefect",
    "a stored rule repeated as a prohibition; a new rule on the same topic",
    "2026-04-29T14:10:00.000Z",
    (s) =>
      turns(s, "prefect", [
        [
          "don't reach for pandas in the returns flow",
          D("rule", "project", "No pandas in transforms; polars only.", { dup: S.pfPolars }),
        ],
        [
          "and with polars, lazy frames (scan_parquet etc.) for anything over a few hundred MB",
          D(
            "rule",
            "project",
            "Polars transforms use lazy frames (scan_*) for inputs over a few hundred MB.",
          ),
        ],
        ["rewrite it", R],
      ]),
    [S.pfPolars],
  ),
];

const GLEAM: Script[] = [
  sc(
    "y21-gleam-dup-terse",
    "gleam",
    "stored rules repeated tersely",
    "2026-05-04T08:00:00.000Z",
    (s) =>
      turns(s, "gleam", [
        ["add a reversal posting type", R],
        [
          "gleam format before pushing. CI checks.",
          D("rule", "project", "Code is formatted with gleam format; CI checks it.", {
            dup: S.glFmt,
          }),
        ],
        [
          "sqlite via sqlight, no postgres",
          D("fact", "project", "Storage is SQLite through sqlight.", { dup: S.glDb }),
        ],
      ]),
    [S.glFmt, S.glDb],
  ),
  sc(
    "y22-gleam-target-switch",
    "gleam",
    "a reversal of the target and, with it, of the database",
    "2026-05-05T10:20:00.000Z",
    (s) =>
      turns(s, "gleam", [
        [
          "we're switching the ledger to the javascript target so it runs in the browser demo — the erlang target is dropped",
          D(
            "decision",
            "project",
            "gleam-ledger compiles to the JavaScript target (Erlang dropped).",
            {
              contra: S.glTarget,
            },
          ),
        ],
        [
          "so sqlight goes too; storage becomes IndexedDB through a small FFI module in src/ffi/idb.mjs",
          D(
            "decision",
            "project",
            "Storage is IndexedDB through an FFI module in src/ffi/idb.mjs, no longer sqlight.",
            { contra: S.glDb },
          ),
        ],
        ["start with the gleam.toml change", R],
      ]),
    [S.glTarget, S.glDb],
  ),
  sc(
    "y23-gleam-ordinary",
    "gleam",
    "a rule, an owner, hard negatives",
    "2026-05-06T13:40:00.000Z",
    (s) =>
      turns(s, "gleam", [
        [
          "amounts are Int cents everywhere, never Float",
          D("rule", "project", "Amounts are Int cents, never Float."),
        ],
        ["for this spike don't write tests", HN("one-off")],
        ["maybe the decoder chokes on the trailing comma?", HN("hypothesis")],
        [
          "anything touching src/ledger/posting.gleam needs my review",
          D("rule", "project", "Changes to src/ledger/posting.gleam need Oren's review."),
        ],
      ]),
  ),
  sc(
    "y24-gleam-github-pat",
    "gleam",
    "a GitHub token pasted; a fact about the package source",
    "2026-05-07T09:15:00.000Z",
    (s) => {
      const pat = s.secret("githubPat");
      s.userS(
        `gleam deps download fails on the private money package, use ${pat} to check`,
        [pat],
        N("secret"),
        R,
      );
      s.tools(CHORES.gleam[0]);
      s.say("The package resolved once the git dependency used https.");
      turns(s, "gleam", [
        [
          "yeah the money package comes straight from git (github.com/oren/money), it's not on hex",
          D(
            "fact",
            "project",
            "The money package is a git dependency (github.com/oren/money), not on Hex.",
          ),
        ],
      ]);
    },
  ),
];

const TAURI: Script[] = [
  sc(
    "y25-tauri-dup-remember",
    "tauri",
    "stored rules repeated with 'remember' and as a reply to the agent",
    "2026-05-08T15:30:00.000Z",
    (s) => {
      s.user("add an export-to-markdown command", R);
      s.tools(CHORES.tauri[1]);
      s.say("Added export_note in commands.rs.");
      s.user(
        "remember: frontend → rust only via the typed commands in commands.rs, no raw invoke strings sprinkled around the components",
        D(
          "rule",
          "project",
          "Frontend calls Rust only through the typed commands in commands.rs.",
          {
            dup: S.tuIpc,
          },
        ),
      );
      s.say("Should I pull in a UI library for the export dialog?");
      s.user(
        "no, plain react + vite like the rest",
        D("fact", "project", "The frontend is plain React with Vite.", { dup: S.tuReact }),
      );
      s.tools(CHORES.tauri[0]);
      s.say("Built the dialog with plain React.");
    },
    [S.tuIpc, S.tuReact],
  ),
  sc(
    "y26-tauri-updater-moved",
    "tauri",
    "a stored release channel changed; a new fact on the same topic",
    "2026-05-11T10:00:00.000Z",
    (s) =>
      turns(s, "tauri", [
        [
          "updates don't come from github releases anymore, we hit the rate limit — the updater pulls from our S3 bucket at updates.tauri-notes.app",
          D(
            "fact",
            "project",
            "The Tauri updater pulls signed releases from the S3 bucket at updates.tauri-notes.app, not GitHub Releases.",
            { contra: S.tuUpdater },
          ),
        ],
        [
          "still signed; the signing key lives in 1password, vault 'release'",
          D("fact", "project", "The updater signing key is in 1Password, vault 'release'."),
        ],
        ["update tauri.conf.json", R],
      ]),
    [S.tuUpdater],
  ),
  sc(
    "y27-tauri-ordinary",
    "tauri",
    "a decision, a platform fact, hard negatives",
    "2026-05-12T16:45:00.000Z",
    (s) =>
      turns(s, "tauri", [
        [
          "notes are markdown files in the app data dir, one per note — no database, people want to sync them with their own tools",
          D(
            "decision",
            "project",
            "Notes are stored as one markdown file each in the app data dir, no database.",
          ),
        ],
        ["it always freezes when I drag a big image in", HN("one-off")],
        ["for the screenshots today make the window always on top", HN("one-off")],
        [
          "we ship macOS 12+ and Windows 10+, no linux builds",
          D("fact", "project", "tauri-notes ships for macOS 12+ and Windows 10+, not Linux."),
        ],
      ]),
  ),
  sc(
    "y28-tauri-openai",
    "tauri",
    "an OpenAI key pasted; a fact about the feature",
    "2026-05-13T09:25:00.000Z",
    (s) => {
      const key = s.secret("openai");
      s.userS(`try the summary feature with ${key}`, [key], N("secret"), R);
      s.tools(CHORES.tauri[0]);
      s.say("The summary works.");
      turns(s, "tauri", [
        [
          "the summary feature calls gpt-4o-mini and the user brings their own key, we never ship one",
          D(
            "fact",
            "project",
            "The summary feature calls gpt-4o-mini with the user's own key; the app never ships a key.",
          ),
        ],
      ]);
    },
  ),
];

const GITOPS: Script[] = [
  sc(
    "y29-gitops-dup-negated",
    "gitops",
    "stored rules repeated as prohibitions",
    "2026-05-14T08:30:00.000Z",
    (s) =>
      turns(s, "gitops", [
        ["add redis for the billing app", R],
        [
          "don't pull in a helm chart for it, write a kustomize base",
          D("rule", "project", "No Helm charts; plain kustomize bases and overlays.", {
            dup: S.goKustomize,
          }),
        ],
        [
          "and no plain Secret manifests in git, sealed only",
          D("rule", "project", "Secrets go into git only as SealedSecrets.", {
            dup: S.goSecrets,
          }),
        ],
      ]),
    [S.goKustomize, S.goSecrets],
  ),
  sc(
    "y30-gitops-prod-sync",
    "gitops",
    "a stored setting changed; a duplicate with 'as we agreed'",
    "2026-05-15T11:00:00.000Z",
    (s) =>
      turns(s, "gitops", [
        [
          "prod gets auto-sync too from now on, with selfHeal off — decided at the retro",
          D("decision", "project", "Argo CD auto-sync is on for prod too, with selfHeal off.", {
            contra: S.goSync,
          }),
        ],
        [
          "as we agreed, no helm in this repo",
          D("rule", "project", "This repository has no Helm charts.", { dup: S.goKustomize }),
        ],
        ["change the prod Applications", R],
      ]),
    [S.goSync, S.goKustomize],
  ),
  sc(
    "y31-gitops-ordinary",
    "gitops",
    "a rule, a setup fact, hard negatives",
    "2026-05-18T14:15:00.000Z",
    (s) =>
      turns(s, "gitops", [
        [
          "every app gets its own AppProject, nothing goes in `default`",
          D(
            "rule",
            "project",
            "Every app has its own AppProject; nothing goes in the default project.",
          ),
        ],
        ["never mind the image updater for now", HN("one-off")],
        ["should we always pin the argo version?", HN("question")],
        [
          "the clusters are hel1-staging and hel1-prod, both on hetzner",
          D("fact", "project", "The clusters are hel1-staging and hel1-prod, both on Hetzner."),
        ],
      ]),
  ),
  sc(
    "y32-gitops-secret-exception",
    "gitops",
    "a stored rule repeated with a marker; an exception to it",
    "2026-05-19T10:40:00.000Z",
    (s) =>
      turns(s, "gitops", [
        [
          "new db creds for billing — sealedsecrets, as always",
          R,
          D("rule", "project", "Secrets are committed as SealedSecrets.", { dup: S.goSecrets }),
        ],
        [
          "the one exception is the cert-manager issuer token: that comes from external-secrets pulling from vault, never sealed",
          D(
            "rule",
            "project",
            "Exception: the cert-manager issuer token comes from external-secrets (Vault), not a SealedSecret.",
            { contra: S.goSecrets },
          ),
        ],
      ]),
    [S.goSecrets],
  ),
];

const PIO: Script[] = [
  sc(
    "y33-pio-dup-reason",
    "pio",
    "a stored value repeated with its reason; a board repeated in passing",
    "2026-05-20T19:20:00.000Z",
    (s) =>
      turns(s, "pio", [
        [
          "keep the 10 min deep sleep between readings — on the 2000 mAh cell that's what gets us through the winter",
          D("rule", "project", "The firmware deep-sleeps 10 minutes between readings.", {
            dup: S.wsSleep,
          }),
        ],
        [
          "build for the s3 devkitc-1 env like always",
          R,
          D("fact", "project", "The target board is the ESP32-S3 DevKitC-1.", { dup: S.wsBoard }),
        ],
      ]),
    [S.wsSleep, S.wsBoard],
  ),
  sc(
    "y34-pio-broker-moved",
    "pio",
    "a stored broker changed; a board repeated; a new board added",
    "2026-05-21T20:00:00.000Z",
    (s) =>
      turns(s, "pio", [
        [
          "the broker moved: mqtt.ravi.home now, TLS on 8883",
          D(
            "fact",
            "project",
            "Readings are published to the MQTT broker at mqtt.ravi.home:8883 over TLS.",
            {
              contra: S.wsMqtt,
            },
          ),
        ],
        [
          "the S3 devkit stays the main board",
          D("fact", "project", "The ESP32-S3 DevKitC-1 is the main board.", { dup: S.wsBoard }),
        ],
        [
          "but add an esp32-c3 supermini env for the balcony sensor, it's a second board we support now",
          R,
          D("fact", "project", "An ESP32-C3 SuperMini build is supported for the balcony sensor."),
        ],
      ]),
    [S.wsMqtt, S.wsBoard],
  ),
  sc(
    "y35-pio-ordinary",
    "pio",
    "a rule, an OTA fact, hard negatives",
    "2026-05-22T18:10:00.000Z",
    (s) =>
      turns(s, "pio", [
        [
          "sensor reads go through the Sensor interface in lib/sensors, one class per chip",
          D(
            "rule",
            "project",
            "Sensor reads go through the Sensor interface in lib/sensors, one class per chip.",
          ),
        ],
        ["maybe the BME280 is self-heating?", HN("hypothesis")],
        ["for this test disable deep sleep", HN("one-off")],
        [
          "OTA images come from the http server on the NAS, /fw/latest.bin",
          D("fact", "project", "OTA images are served from the NAS at /fw/latest.bin."),
        ],
      ]),
  ),
  sc(
    "y36-pio-wifi-password",
    "pio",
    "a Wi-Fi password pasted; a rule on where credentials live",
    "2026-05-25T17:30:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `it won't join the network. #define WIFI_PASS "${pw}" is what I have in secrets.h`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(CHORES.pio[0]);
      s.say("The SSID had a trailing space.");
      turns(s, "pio", [
        [
          "wifi creds only ever go in include/secrets.h, it's gitignored",
          D(
            "rule",
            "project",
            "Wi-Fi credentials go only in include/secrets.h, which is gitignored.",
          ),
        ],
      ]);
    },
  ),
];

const HUGO: Script[] = [
  sc(
    "y37-hugo-dup-like-i-said",
    "hugo",
    "a stored rule repeated with 'like I said'; a new rule on the theme",
    "2026-05-26T09:00:00.000Z",
    (s) =>
      turns(s, "hugo", [
        ["new post on the sourdough experiment, draft for now", R],
        [
          "like I said, the photos sit in the post's bundle folder, not static/",
          D("rule", "project", "Post images go in the page bundle, not static/.", {
            dup: S.hgImages,
          }),
        ],
        [
          "and don't edit anything under themes/PaperMod, override in layouts/ instead",
          D("rule", "project", "Never edit themes/PaperMod; override templates in layouts/."),
        ],
      ]),
    [S.hgImages, S.hgTheme],
  ),
  sc(
    "y38-hugo-host-moved",
    "hugo",
    "a stored host changed; a new fact on the same topic",
    "2026-05-27T10:30:00.000Z",
    (s) =>
      turns(s, "hugo", [
        [
          "we left netlify, the blog's on cloudflare pages now, still building from main",
          D("fact", "project", "The blog deploys to Cloudflare Pages from main.", {
            contra: S.hgDeploy,
          }),
        ],
        [
          "HUGO_VERSION is 0.139.0 in the pages env, keep it in step with the local hugo",
          D(
            "rule",
            "project",
            "HUGO_VERSION in the Pages env is 0.139.0 and matches the local Hugo.",
          ),
        ],
        ["delete netlify.toml", R],
      ]),
    [S.hgDeploy],
  ),
  sc(
    "y39-hugo-ordinary",
    "hugo",
    "a rule, a global preference, hard negatives",
    "2026-05-28T15:50:00.000Z",
    (s) =>
      turns(s, "hugo", [
        [
          "tags only from the list in data/tags.yaml, no new ones",
          D("rule", "project", "Post tags come only from data/tags.yaml."),
        ],
        ["for this post never mind the table of contents", HN("one-off")],
        ["should every post always have a cover image?", HN("question")],
        [
          "in general I like commit messages short and in the imperative, in every repo",
          D("preference", "global", "Commit messages short and in the imperative."),
        ],
      ]),
  ),
  sc(
    "y40-hugo-dup-replies",
    "hugo",
    "stored facts repeated as replies to the agent",
    "2026-05-29T08:45:00.000Z",
    (s) => {
      s.user("the theme is two versions behind, update it", R);
      s.tools(CHORES.hugo[1]);
      s.say("Should I switch the theme to a Hugo module instead of the git submodule?");
      s.user(
        "no, keep it a submodule under themes/",
        D("fact", "project", "PaperMod stays a git submodule under themes/.", { dup: S.hgTheme }),
      );
      s.tools(CHORES.hugo[0]);
      s.say("Updated the submodule. Where should the new diagram for the about page go?");
      s.user(
        "page bundle ofc",
        D("rule", "project", "Images go in the page bundle.", { dup: S.hgImages }),
      );
      s.say("Moved it into content/about/.");
    },
    [S.hgTheme, S.hgImages],
  ),
];

const MIXED: Script[] = [
  sc(
    "y41-gem-global-dup",
    "gem",
    "a stored global preference repeated casually; a new global preference",
    "2026-06-01T09:00:00.000Z",
    (s) =>
      turns(s, "gem", [
        ["commit the limiter fix", R],
        [
          "subject ≤72 chars, the usual",
          D("preference", "global", "Commit subjects under 72 characters.", { dup: S.gCommit }),
        ],
        [
          "and no emoji in commit messages, anywhere",
          D("preference", "global", "No emoji in commit messages."),
        ],
      ]),
    [S.gCommit],
  ),
  sc(
    "y42-kafka-java21",
    "kafka",
    "a stored version changed with its reason, inside a longer message; hard negatives",
    "2026-06-02T10:30:00.000Z",
    (s) =>
      turns(s, "kafka", [
        [
          "heads up, we're on java 21 now — virtual threads made the REST lookups in the enricher cheap. so records and pattern matching are fine from here on",
          D("fact", "project", "fraud-streams builds with Java 21.", { contra: S.ksJava }),
        ],
        ["the enricher always times out on the first batch today", HN("one-off")],
        ["refactor LookupClient to use virtual threads", R],
      ]),
    [S.ksJava],
  ),
  sc(
    "y43-prefect-aws-keys",
    "prefect",
    "AWS keys pasted; a fact about the S3 block",
    "2026-06-03T07:40:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `the s3 upload task fails, test with AWS_ACCESS_KEY_ID=${id} AWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(CHORES.prefect[0]);
      s.say("The bucket policy denies PutObject under raw/.");
      turns(s, "prefect", [
        [
          "flows get S3 credentials from the `s3-lake` block in prefect, never from env vars",
          D(
            "rule",
            "project",
            "Flows get S3 credentials from the s3-lake Prefect block, never env vars.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "y44-tauri-long-mixed",
    "tauri",
    "a longer ordinary session: rules, a decision, hard negatives",
    "2026-06-04T13:00:00.000Z",
    (s) =>
      turns(s, "tauri", [
        ["let's add full-text search", R],
        [
          "search runs in rust with tantivy, the index lives next to the notes in .index/ — we don't want the UI thread doing it",
          D(
            "decision",
            "project",
            "Full-text search runs in Rust with tantivy; the index lives in .index/ beside the notes.",
          ),
        ],
        ["maybe tantivy is overkill for a few thousand notes?", HN("hypothesis")],
        [
          "every new command needs a test in src-tauri/tests",
          D("rule", "project", "Every new Tauri command has a test in src-tauri/tests."),
        ],
        ["just this once skip the frontend tests, they're slow", HN("one-off")],
        ["run cargo test", R],
      ]),
  ),
];

export const HOLDOUT8: Script[] = [
  ...GEM,
  ...WORKER,
  ...BEVY,
  ...KAFKA,
  ...PREFECT,
  ...GLEAM,
  ...TAURI,
  ...GITOPS,
  ...PIO,
  ...HUGO,
  ...MIXED,
];
