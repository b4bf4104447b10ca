/**
 * Hand-written sessions of the capture benchmark's `holdout5` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs page or
 * results (nor any other helper's worktree), and frozen before any tuning against them. Ten
 * projects new to the data set: a Java Spring Boot service, a Vue 3 + Vite frontend, a C++/CMake
 * game engine, an Airbyte/Dagster data platform, a Helm charts repository, an OCaml web backend
 * (Dream), a Kotlin Multiplatform library, a MATLAB/Simulink control project, a Deno/Fresh website
 * and a Bash/Make dotfiles-and-scripts repository.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) that state no standing rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout5 split's projects. */
const P = {
  spring: "/home/ines/src/fleet-booking-svc",
  vue: "/Users/mateo/code/atlas-vue-ui",
  cpp: "/home/oskar/dev/ember-engine",
  dag: "/home/priya/work/lakehouse-dagster",
  helm: "/Users/bram/src/helm-charts",
  ocaml: "/home/yuki/src/dream-notes",
  kmp: "/Users/lena/Projects/kmp-geokit",
  mat: "/home/farid/research/quadrotor-ctrl",
  fresh: "/home/noor/sites/harbor-fresh",
  dot: "/home/cal/dotscripts",
} as const;
type Proj = keyof typeof P;

const CHORES: Record<Proj, ToolStep[]> = {
  spring: [
    bash(
      "./mvnw -q test -Dtest=BookingControllerTest",
      "[INFO] Tests run: 7, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 3.412 s - in com.fleet.booking.BookingControllerTest\n[INFO] BUILD SUCCESS",
    ),
    read(
      `${P.spring}/src/main/java/com/fleet/booking/BookingController.java`,
      'package com.fleet.booking;\n\n@RestController\n@RequestMapping("/api/v1/bookings")\nclass BookingController {\n    private final BookingService service;\n\n    BookingController(BookingService service) { this.service = service; }\n\n    @GetMapping("/{id}")\n    BookingDto get(@PathVariable UUID id) { return service.find(id); }\n}',
    ),
  ],
  vue: [
    bash(
      "pnpm vitest run src/components/MapPanel.spec.ts",
      " ✓ src/components/MapPanel.spec.ts (5 tests) 231ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)",
    ),
    read(
      `${P.vue}/src/components/MapPanel.vue`,
      '<script setup lang="ts">\nimport { computed } from "vue";\nimport { useLayersStore } from "@/stores/layers";\n\nconst layers = useLayersStore();\nconst visible = computed(() => layers.items.filter((l) => l.on));\n</script>\n\n<template>\n  <section class="map-panel">\n    <LayerRow v-for="l in visible" :key="l.id" :layer="l" />\n  </section>\n</template>',
    ),
  ],
  cpp: [
    bash(
      "cmake --build build --target ember_tests -j4 && ./build/tests/ember_tests --gtest_filter=Transform*",
      "[100%] Built target ember_tests\n[==========] Running 6 tests from 1 test suite.\n[  PASSED  ] 6 tests.",
    ),
    read(
      `${P.cpp}/src/scene/transform.hpp`,
      "#pragma once\n#include <glm/mat4x4.hpp>\n\nnamespace ember {\nstruct Transform {\n  glm::vec3 position{};\n  glm::quat rotation{1, 0, 0, 0};\n  glm::vec3 scale{1.0f};\n  [[nodiscard]] glm::mat4 matrix() const noexcept;\n};\n}  // namespace ember",
    ),
  ],
  dag: [
    bash(
      "pytest tests/assets -q",
      "..............                                                        [100%]\n14 passed in 4.87s",
    ),
    read(
      `${P.dag}/lakehouse/assets/orders.py`,
      'from dagster import asset, AssetExecutionContext\n\n@asset(group_name="sales", compute_kind="duckdb")\ndef orders_clean(context: AssetExecutionContext, orders_raw):\n    df = orders_raw.drop_duplicates("order_id")\n    context.log.info(f"{len(df)} rows")\n    return df',
    ),
  ],
  helm: [
    bash(
      "helm lint charts/gateway && helm template charts/gateway | kubeconform -summary",
      "==> Linting charts/gateway\n1 chart(s) linted, 0 chart(s) failed\nSummary: 9 resources found in 1 file - Valid: 9, Invalid: 0, Errors: 0, Skipped: 0",
    ),
    read(
      `${P.helm}/charts/gateway/values.yaml`,
      'replicaCount: 2\nimage:\n  repository: ghcr.io/bramco/gateway\n  tag: ""\nresources:\n  requests:\n    cpu: 100m\n    memory: 128Mi\nserviceMonitor:\n  enabled: false',
    ),
  ],
  ocaml: [
    bash(
      "dune build @runtest 2>&1 | tail -3",
      "Testing `notes'.\nThis run has ID `8K2Q1F0A'.\n  Test Successful in 0.041s. 12 tests run.",
    ),
    read(
      `${P.ocaml}/bin/main.ml`,
      'let () =\n  Dream.run ~port:8080\n  @@ Dream.logger\n  @@ Dream.sql_pool "postgresql://localhost/notes"\n  @@ Dream.router [\n    Dream.get "/notes" Handlers.list;\n    Dream.post "/notes" Handlers.create;\n  ]',
    ),
  ],
  kmp: [
    bash(
      "./gradlew :geokit:allTests -q",
      "BUILD SUCCESSFUL in 48s\n31 actionable tasks: 9 executed, 22 up-to-date",
    ),
    read(
      `${P.kmp}/geokit/src/commonMain/kotlin/geokit/Haversine.kt`,
      "package geokit\n\nimport kotlin.math.*\n\npublic fun haversine(a: LatLng, b: LatLng): Double {\n    val dLat = (b.lat - a.lat).toRadians()\n    val dLon = (b.lng - a.lng).toRadians()\n    val h = sin(dLat / 2).pow(2) + cos(a.lat.toRadians()) * cos(b.lat.toRadians()) * sin(dLon / 2).pow(2)\n    return 2 * EARTH_RADIUS_M * asin(sqrt(h))\n}",
    ),
  ],
  mat: [
    bash(
      "matlab -batch \"runtests('tests')\"",
      "Running AttitudeControllerTest\n......\nDone AttitudeControllerTest\n__________\n\nTotals:\n   6 Passed, 0 Failed, 0 Incomplete.",
    ),
    read(
      `${P.mat}/src/attitude_pid.m`,
      "function u = attitude_pid(err, derr, ierr, gains)\n%ATTITUDE_PID  Roll/pitch/yaw PID, torques in N*m.\nu = gains.Kp .* err + gains.Kd .* derr + gains.Ki .* ierr;\nu = min(max(u, -gains.umax), gains.umax);\nend",
    ),
  ],
  fresh: [
    bash(
      "deno task check",
      "Task check deno fmt --check && deno lint && deno check **/*.ts **/*.tsx\nChecked 41 files\nChecked 38 files",
    ),
    read(
      `${P.fresh}/routes/index.tsx`,
      'import { Head } from "$fresh/runtime.ts";\nimport Hero from "../components/Hero.tsx";\n\nexport default function Home() {\n  return (\n    <>\n      <Head><title>Harbor</title></Head>\n      <Hero />\n    </>\n  );\n}',
    ),
  ],
  dot: [
    bash(
      "make lint",
      "shellcheck -x bin/* lib/*.sh install.sh\nshfmt -d -i 2 bin lib install.sh\n",
    ),
    read(
      `${P.dot}/install.sh`,
      '#!/usr/bin/env bash\nset -euo pipefail\nDOT="$(cd "$(dirname "$0")" && pwd)"\nsource "$DOT/lib/link.sh"\nfor f in "$DOT"/home/.*; do\n  link_home "$f"\ndone',
    ),
  ],
};

const OK = [
  "Done.",
  "Done — tests pass.",
  "Changed it; the build is green.",
  "Here is what I found; nothing else changed.",
  "Updated, and I re-ran the checks.",
  "All set.",
];

/** A user turn: the prompt, its labels, then routine tool work and a short answer. */
type Turn = [string, ...Label[]];

function turns(s: Session, p: Proj, ts: Turn[], chores = 1): void {
  ts.forEach(([text, ...labels], i) => {
    s.user(text, ...labels);
    for (let k = 0; k < chores; k++) s.tools(CHORES[p][(i + k) % CHORES[p].length]);
    s.say(OK[(i + text.length) % OK.length]);
  });
}

function sc(
  id: string,
  p: Proj,
  style: string,
  start: string,
  run: (s: Session) => void,
  more: Partial<Script> = {},
): Script {
  return { id, cwd: P[p], style, start, version: "2.0.31", run, ...more };
}

const SPRING: Script[] = [
  sc(
    "v01-spring-terse",
    "spring",
    "very short imperative messages",
    "2025-11-03T08:02:00.000Z",
    (s) =>
      turns(s, "spring", [
        ["fix the 500 on GET /bookings/{id} when id unknown", R],
        [
          "404 w/ problem+json. always. every endpoint",
          D(
            "rule",
            "project",
            "Errors are returned as application/problem+json; an unknown id is a 404.",
          ),
        ],
        [
          "constructor injection only. no @Autowired fields",
          D("rule", "project", "Use constructor injection only; no @Autowired on fields."),
        ],
        ["run tests", R],
        ["skip BookingReportIT, just this time", HN("one-off")],
      ]),
  ),
  sc(
    "v02-spring-onboarding",
    "spring",
    "onboarding: the user explains the team's conventions",
    "2025-11-03T13:40:00.000Z",
    (s) =>
      turns(s, "spring", [
        [
          "Welcome aboard! Before you touch anything, a bit about how we work here. Schema changes go through Flyway only — a new V<n>__description.sql under db/migration, and we never edit a migration once it has been merged. Hibernate's ddl-auto stays on validate in every profile.",
          D(
            "rule",
            "project",
            "Schema changes go through Flyway migrations (db/migration/V<n>__*.sql); a merged migration is never edited.",
          ),
          D("rule", "project", "spring.jpa.hibernate.ddl-auto stays on validate in every profile."),
        ],
        [
          "Also: integration tests use Testcontainers with the real Postgres 16 image, not H2. We dropped H2 last spring because the dialect differences kept biting us.",
          D(
            "decision",
            "project",
            "Integration tests use Testcontainers with Postgres 16, not H2 (H2 was dropped for dialect differences).",
          ),
        ],
        [
          "The service runs on Java 21 and we're on Spring Boot 3.3. Could you look at why BookingServiceIT is slow?",
          D("fact", "project", "The service runs on Java 21 with Spring Boot 3.3."),
          R,
        ],
        ["Makes sense. Can you cache the container between test classes?", R],
      ]),
  ),
  sc(
    "v03-spring-review-comments",
    "spring",
    "rules inside code review comments pasted into the chat",
    "2025-11-04T09:15:00.000Z",
    (s) =>
      turns(s, "spring", [
        [
          "Here's the review from Marta on PR #212, please address:\n\n> **BookingMapper.java L40**: we don't return JPA entities from controllers, ever — map to a DTO record. Please remember this for all future endpoints.\n> **BookingService.java L88**: nit: rename `tmp` to something meaningful.\n> **application.yml**: for this PR only, leave the feature flag on in dev.",
          D("rule", "project", "Controllers never return JPA entities; map them to DTO records."),
          HN("one-off"),
          R,
        ],
        ["is mapstruct ok for the mapping or should it be handwritten?", Q],
        [
          "handwritten then, we keep mapstruct out of this codebase.",
          D(
            "decision",
            "project",
            "Mappers are handwritten; MapStruct is not used in this codebase.",
          ),
        ],
      ]),
  ),
  sc(
    "v04-spring-secrets-stored",
    "spring",
    "stored memories; a secret pasted inside a durable statement",
    "2025-11-05T16:20:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `The staging database is fleet_stg on db-stg.internal:5432, user booking_app, password ${pw} — use that for the flyway repair.`,
        [pw],
        D(
          "fact",
          "project",
          "The staging database is fleet_stg on db-stg.internal:5432 (user booking_app).",
          { secret: true },
        ),
        R,
      );
      s.tools(CHORES.spring[0]);
      s.say("Repaired the checksum on staging; V14 now validates.");
      s.user(
        "we use Java 21, remember",
        D("fact", "project", "The project uses Java 21.", {
          dup: "The service runs on Java 21 with Spring Boot 3.3.",
        }),
      );
      s.say("Noted — the toolchain in pom.xml already says 21.");
      s.user(
        "and forget gradle, we moved the build to maven (mvnw) in october",
        D("decision", "project", "The build uses Maven (mvnw), not Gradle.", {
          contra: "The build uses Gradle with the Kotlin DSL.",
        }),
      );
      s.tools(CHORES.spring[1]);
      s.say("Got it, I'll use ./mvnw from now on.");
    },
    {
      stored: [
        "The service runs on Java 21 with Spring Boot 3.3.",
        "The build uses Gradle with the Kotlin DSL.",
      ],
    },
  ),
  sc(
    "v05-spring-hard-negatives",
    "spring",
    "hard negatives while debugging",
    "2025-11-06T10:05:00.000Z",
    (s) =>
      turns(s, "spring", [
        ["the actuator health check always fails on my laptop, no idea why", HN("one-off")],
        [
          "maybe it's the docker socket permissions? I never had this on the old mac",
          HN("hypothesis"),
        ],
        ["don't touch the pom for this step, just look at the logs", HN("one-off")],
        ["ok it was the socket. thanks", R],
      ]),
  ),
];

const VUE: Script[] = [
  sc(
    "v06-vue-confirm",
    "vue",
    "terse confirmation of the agent's proposed convention",
    "2025-11-07T11:00:00.000Z",
    (s) => {
      s.user("add a store for the selected layer", R);
      s.tools(CHORES.vue[1]);
      s.say(
        "I see the existing stores use Pinia's setup syntax (`defineStore('layers', () => { … })`) rather than the options object. Should new stores follow the setup syntax too?",
      );
      s.confirm(
        "yes",
        "rule",
        "project",
        "Pinia stores use the setup syntax (defineStore with a function), not the options object.",
      );
      s.tools(CHORES.vue[0]);
      s.say("Added useSelectionStore in the setup style.");
      s.user("thx", R);
      s.say("You're welcome.");
    },
  ),
  sc(
    "v07-vue-runon",
    "vue",
    "a user dictating long run-on messages",
    "2025-11-07T15:30:00.000Z",
    (s) =>
      turns(s, "vue", [
        [
          "ok so the thing is the map panel flickers when you toggle a layer and I think it's because we re-render the whole list but anyway what I wanted to say is that in this repo we only ever use the composition API with script setup and TypeScript so please don't write options API components and also the props should be declared with defineProps and a type literal not the runtime object thing and then can you look at the flicker",
          D(
            "rule",
            "project",
            'Components use the Composition API with <script setup lang="ts">; no Options API.',
          ),
          D(
            "rule",
            "project",
            "Props are declared with defineProps<{…}>() type literals, not the runtime object form.",
          ),
          HN("hypothesis"),
          R,
        ],
        [
          "yeah and while you're in there the CSS is scoped per component and we use the design tokens from src/styles/tokens.css never hard coded hex colours because the designers change the palette every quarter and it's a nightmare otherwise so fix the two places in LayerRow that have hex in them",
          D(
            "rule",
            "project",
            "Use the design tokens from src/styles/tokens.css; never hard-code hex colours.",
          ),
          R,
        ],
        ["cool thanks that fixed it", R],
      ]),
  ),
  sc(
    "v08-vue-answers",
    "vue",
    "facts given as answers to the agent's questions",
    "2025-11-08T09:10:00.000Z",
    (s) => {
      s.user("the dev server can't reach the api", R);
      s.tools(CHORES.vue[1]);
      s.say("Which port does the backend listen on locally, and is it behind the Vite proxy?");
      s.user(
        "8081, and yes everything under /api is proxied by vite to it",
        D("fact", "project", "Locally the backend listens on port 8081; Vite proxies /api to it."),
      );
      s.say(
        "Then the proxy target is wrong in vite.config.ts (8080). Which Node version do you use?",
      );
      s.user(
        "node 20 LTS, pinned in .nvmrc",
        D("fact", "project", "The project uses Node 20 LTS, pinned in .nvmrc."),
      );
      s.tools(CHORES.vue[0]);
      s.say("Fixed the proxy target; the dev server reaches the API now.");
    },
  ),
  sc(
    "v09-vue-quoted-hn",
    "vue",
    "rules quoted from docs and a linter; questions like rules",
    "2025-11-09T14:00:00.000Z",
    (s) =>
      turns(s, "vue", [
        [
          "eslint-plugin-vue says 'never use v-if on the same element as v-for' — is that why the list is empty?",
          HN("question"),
        ],
        ["the Vue docs say you should always use a key with v-for, right? do we?", HN("question")],
        ["should we never import from '@/stores' index directly?", HN("question")],
        ["just this time, skip the snapshot update, I'll do it myself", HN("one-off")],
        [
          "for the record we're on Vue 3.5 and Vite 6",
          D("fact", "project", "The frontend uses Vue 3.5 and Vite 6."),
        ],
      ]),
  ),
];

const CPP: Script[] = [
  sc(
    "v10-cpp-onboarding",
    "cpp",
    "onboarding: conventions explained",
    "2025-11-10T08:30:00.000Z",
    (s) =>
      turns(s, "cpp", [
        [
          "Quick intro to the engine before we start. We're C++20, built with CMake 3.28 and Ninja, and the build directory is always build/ — out of source, never commit it.",
          D("fact", "project", "The engine is C++20, built with CMake 3.28 and Ninja."),
          D(
            "rule",
            "project",
            "Builds are out of source in build/; never commit the build directory.",
          ),
        ],
        [
          "No exceptions in engine code: we compile with -fno-exceptions and report errors with std::expected. RTTI is off too.",
          D(
            "rule",
            "project",
            "Engine code uses no exceptions (-fno-exceptions) and no RTTI; errors are reported with std::expected.",
          ),
        ],
        [
          "Third-party libraries come in through vcpkg manifest mode only, no git submodules. We switched from submodules in 2024.",
          D(
            "decision",
            "project",
            "Third-party libraries come through vcpkg manifest mode, not git submodules.",
          ),
        ],
        ["Now, can you add a lookAt() to Transform?", R],
      ]),
  ),
  sc(
    "v11-cpp-review",
    "cpp",
    "rules in pasted code review comments",
    "2025-11-11T10:00:00.000Z",
    (s) =>
      turns(s, "cpp", [
        [
          "pasting the review of the lookAt PR:\n\n```\nsrc/scene/transform.cpp:31  (oskar) Hot-path math must not allocate. That's a standing rule for everything under src/scene and src/render.\nsrc/scene/transform.cpp:45  (oskar) this epsilon looks wrong, use 1e-6f here\nsrc/scene/transform.hpp:12  (oskar) all public functions returning a value get [[nodiscard]] - house style.\n```",
          D("rule", "project", "Hot-path math under src/scene and src/render must not allocate."),
          D("rule", "project", "Public functions that return a value are marked [[nodiscard]]."),
          HN("one-off"),
          R,
        ],
        ["done? run the transform tests", R],
      ]),
  ),
  sc(
    "v12-cpp-venting",
    "cpp",
    "venting and descriptive never/always",
    "2025-11-12T17:45:00.000Z",
    (s) =>
      turns(s, "cpp", [
        ["MSVC never compiles this template on the first try, I swear", HN("one-off")],
        ["it always crashes in the shader cache on the CI windows runner", HN("one-off")],
        ["could it be the static init order? that's my guess", HN("hypothesis")],
        ["never mind, found it, a dangling string_view. revert your last change", HN("one-off"), R],
      ]),
  ),
  sc(
    "v13-cpp-stored",
    "cpp",
    "stored memories: a reworded duplicate and a contradiction",
    "2025-11-13T09:00:00.000Z",
    (s) =>
      turns(s, "cpp", [
        [
          "reminder: clang-format before every commit, the config is in the repo root",
          D("rule", "project", "Run clang-format (repo-root config) before committing.", {
            dup: "Format C++ with the repository's .clang-format before committing.",
          }),
        ],
        [
          "and we target Vulkan 1.3 now, not OpenGL — the GL backend was removed last month",
          D(
            "decision",
            "project",
            "The renderer targets Vulkan 1.3; the OpenGL backend was removed.",
            { contra: "The renderer uses OpenGL 4.5." },
          ),
        ],
        ["port the debug line renderer accordingly", R],
      ]),
    {
      stored: [
        "Format C++ with the repository's .clang-format before committing.",
        "The renderer uses OpenGL 4.5.",
      ],
    },
  ),
];

/** The long session: 32 user turns on the data platform, mostly requests, with rules in passing. */
const LONG: Turn[] = [
  ["let's spend the afternoon on the orders assets. first, list the assets in the sales group", R],
  ["ok. what does orders_clean depend on?", Q],
  [
    "right. fyi all our assets are partitioned daily on the UTC date, never local time",
    D("rule", "project", "Dagster assets are partitioned daily by UTC date, never by local time."),
  ],
  ["add a daily partition to orders_clean then", R],
  ["run the tests", R],
  ["what's the airbyte connection id for the shop postgres source?", Q],
  [
    "ah right, we never trigger airbyte syncs by hand in the UI — the dagster-airbyte assets own the schedule",
    D(
      "rule",
      "project",
      "Airbyte syncs are triggered only by the dagster-airbyte assets, never by hand in the Airbyte UI.",
    ),
  ],
  ["show me the sensor definitions", R],
  ["why does the freshness sensor fire twice?", Q],
  ["maybe the cursor isn't persisted between ticks?", HN("hypothesis")],
  ["ok fix the cursor", R],
  ["rerun the sensor test", R],
  [
    "good. btw the warehouse is DuckDB locally and MotherDuck in prod, same SQL",
    D("fact", "project", "The warehouse is DuckDB locally and MotherDuck in production."),
  ],
  ["add a customers_clean asset like orders_clean", R],
  [
    "asset names are snake_case nouns, no verbs — so customers_clean is fine but not clean_customers",
    D(
      "rule",
      "project",
      "Asset names are snake_case nouns without verbs (customers_clean, not clean_customers).",
    ),
  ],
  ["add a test for it", R],
  ["hmm the test is slow", HN("one-off")],
  ["use the small fixture instead", R],
  ["for this run only, skip the IO manager and return the df directly", HN("one-off")],
  ["ok that works. put the IO manager back", R],
  ["what's in resources.py?", Q],
  [
    "every resource is a ConfigurableResource, we don't use the old @resource decorator anymore",
    D(
      "rule",
      "project",
      "Resources are ConfigurableResource classes; the legacy @resource decorator is not used.",
    ),
  ],
  ["convert the slack resource", R],
  ["run the whole suite", R],
  [
    "the dagster docs say 'always pin your dagster packages to the same version' — are ours?",
    HN("question"),
  ],
  ["pin them all to 1.8.x then", R],
  ["update the lockfile", R],
  ["commit with a message", R],
  ["show me the diff first", R],
  ["fine, commit", R],
  ["what's left from this morning's list?", Q],
  ["ok, that's it for today", R],
];

const DAG: Script[] = [
  sc(
    "v14-dag-long-afternoon",
    "dag",
    "a long afternoon session (32 user turns), rules in passing",
    "2025-11-14T12:00:00.000Z",
    (s) => turns(s, "dag", LONG),
  ),
  sc(
    "v15-dag-aws-keys",
    "dag",
    "AWS keys pasted for the S3 destination",
    "2025-11-15T09:20:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `set up the S3 destination in airbyte with AWS_ACCESS_KEY_ID=${id} and AWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(CHORES.dag[0]);
      s.say(
        "Configured the destination from the environment; I did not write the keys to any file.",
      );
      s.user(
        "good. raw data lands in s3://lh-raw/<source>/<stream>/ and we keep it 90 days",
        D(
          "fact",
          "project",
          "Raw data lands in s3://lh-raw/<source>/<stream>/ and is kept 90 days.",
        ),
      );
      s.say("Noted.");
    },
  ),
  sc(
    "v16-dag-answers",
    "dag",
    "facts as answers to the agent's questions",
    "2025-11-16T10:00:00.000Z",
    (s) => {
      s.user("the dagster daemon won't start", R);
      s.tools(CHORES.dag[1]);
      s.say("Where does the instance live — is DAGSTER_HOME set, and which storage does it use?");
      s.user(
        "DAGSTER_HOME is ~/.dagster, run storage is postgres on port 5434",
        D(
          "fact",
          "project",
          "DAGSTER_HOME is ~/.dagster; the run storage is Postgres on port 5434.",
        ),
      );
      s.say("The dagster.yaml points at 5432. Which Python?");
      s.user("3.12 via uv", D("fact", "project", "The project uses Python 3.12 managed with uv."));
      s.say("Fixed the port; the daemon starts.");
    },
  ),
  sc(
    "v17-dag-private-global",
    "dag",
    "a private note; global personal preferences",
    "2025-11-17T08:45:00.000Z",
    (s) =>
      turns(s, "dag", [
        [
          "<private>I'm interviewing at another company on Thursday so I'll be off</private> can you write the runbook for the backfill so Ravi can do it?",
          N("private"),
          R,
        ],
        [
          "in general, for me: keep answers short, bullet points, no preamble",
          D("preference", "global", "Keep answers short, in bullet points, without preamble."),
        ],
        [
          "and I always want commands shown in a code block I can copy, whatever the project",
          D("preference", "global", "Show commands in a copyable code block."),
        ],
      ]),
  ),
];

const HELM: Script[] = [
  sc(
    "v18-helm-terse",
    "helm",
    "very short imperative messages",
    "2025-11-18T07:55:00.000Z",
    (s) =>
      turns(s, "helm", [
        ["bump gateway chart", R],
        [
          "chart version bump on every change. semver",
          D("rule", "project", "Every chart change bumps the chart version (semver)."),
        ],
        [
          "no latest tags. ever",
          D("rule", "project", "Never use the latest image tag in charts."),
        ],
        ["lint", R],
        ["dont bump appVersion for this one", HN("one-off")],
      ]),
  ),
  sc(
    "v19-helm-review",
    "helm",
    "rules in review comments pasted in",
    "2025-11-18T14:10:00.000Z",
    (s) =>
      turns(s, "helm", [
        [
          "review from the platform team:\n- values.yaml: every container must set resource requests and limits, that's policy for all charts here\n- templates/deployment.yaml: use the common.labels helper from the library chart instead of writing labels by hand (applies to every chart)\n- please squash before merge",
          D("rule", "project", "Every container sets resource requests and limits."),
          D(
            "rule",
            "project",
            "Labels come from the library chart's common.labels helper, not written by hand.",
          ),
          R,
        ],
        ["do the helper thing in the worker chart too", R],
      ]),
  ),
  sc(
    "v20-helm-pat",
    "helm",
    "a GitHub token pasted for the chart release",
    "2025-11-19T11:30:00.000Z",
    (s) => {
      const pat = s.secret("githubPat");
      s.userS(
        `chart-releaser needs a token, use ${pat} — and charts are published to GitHub Pages from the gh-pages branch by chart-releaser, nothing else pushes there`,
        [pat],
        D(
          "rule",
          "project",
          "Charts are published to GitHub Pages (gh-pages) only by chart-releaser; nothing else pushes there.",
          { secret: true },
        ),
        R,
      );
      s.tools(CHORES.helm[0]);
      s.say(
        "Set CR_TOKEN as a repository secret instead of in the workflow file; release job is green.",
      );
      s.user("👍", R);
      s.say("👍");
    },
  ),
  sc("v21-helm-hn", "helm", "hard negatives", "2025-11-20T16:00:00.000Z", (s) =>
    turns(s, "helm", [
      [
        "the helm best practices page says 'never hardcode the namespace in templates' — is that what broke the install?",
        HN("question"),
      ],
      ["don't run helm upgrade for this step, only template", HN("one-off")],
      ["kubeconform always complains about the CRDs, ignore it today", HN("one-off")],
      [
        "fyi the library chart is charts/common and every chart depends on it",
        D("fact", "project", "The library chart is charts/common; every chart depends on it."),
      ],
      ["ok looks right", R],
    ])),
  sc(
    "v22-helm-stored",
    "helm",
    "stored memories: duplicate and contradiction",
    "2025-11-21T09:00:00.000Z",
    (s) =>
      turns(s, "helm", [
        [
          "charts must pass helm lint and kubeconform before merge",
          D("rule", "project", "Charts pass helm lint and kubeconform before merge.", {
            dup: "Run helm lint and kubeconform on every chart before merging.",
          }),
        ],
        [
          "we support kubernetes 1.29 and up now; 1.27 is gone",
          D("fact", "project", "The charts support Kubernetes 1.29 and later.", {
            contra: "The charts support Kubernetes 1.27 and later.",
          }),
        ],
        ["update kubeVersion in Chart.yaml files", R],
      ]),
    {
      stored: [
        "Run helm lint and kubeconform on every chart before merging.",
        "The charts support Kubernetes 1.27 and later.",
      ],
    },
  ),
];

const OCAML: Script[] = [
  sc(
    "v23-ocaml-onboarding",
    "ocaml",
    "onboarding: conventions explained",
    "2025-11-22T08:00:00.000Z",
    (s) =>
      turns(s, "ocaml", [
        [
          "Some context on dream-notes: we build with dune and opam, with a local switch in _opam pinned to OCaml 5.2.",
          D(
            "fact",
            "project",
            "dream-notes builds with dune and opam, with a local switch (_opam) on OCaml 5.2.",
          ),
        ],
        [
          "House rules: every module gets an .mli, and nothing raises across a handler boundary — handlers return a result and we turn Errors into responses in one place, Errors.to_response.",
          D("rule", "project", "Every module has an .mli interface file."),
          D(
            "rule",
            "project",
            "Handlers never raise; they return a result, and errors become responses only in Errors.to_response.",
          ),
        ],
        [
          "SQL goes through Caqti with the queries in lib/queries.ml, no string-built SQL anywhere.",
          D(
            "rule",
            "project",
            "SQL goes through Caqti queries in lib/queries.ml; no string-built SQL.",
          ),
        ],
        ["now: add a DELETE /notes/:id", R],
      ]),
  ),
  sc(
    "v24-ocaml-confirm",
    "ocaml",
    "terse confirmation of the agent's proposed convention",
    "2025-11-23T10:30:00.000Z",
    (s) => {
      s.user("format the new handler", R);
      s.tools(CHORES.ocaml[0]);
      s.say(
        "The repository has an .ocamlformat with `profile = default` and the CI runs `dune build @fmt`. Shall I treat `dune fmt` as required before every commit?",
      );
      s.confirm(
        "yep, always",
        "rule",
        "project",
        "Run dune fmt (ocamlformat) before every commit; CI checks dune build @fmt.",
      );
      s.say("Formatted.");
    },
  ),
  sc(
    "v25-ocaml-hn",
    "ocaml",
    "hypotheses, quoted rule, one-offs",
    "2025-11-24T13:00:00.000Z",
    (s) =>
      turns(s, "ocaml", [
        [
          "the Dream docs say never to call Lwt_main.run inside a handler. do we do that somewhere?",
          HN("question"),
        ],
        ["I bet the hang is the sql pool size, it's only 1", HN("hypothesis")],
        [
          "for this test, always use port 8099 so it doesn't clash with my running server",
          HN("one-off"),
        ],
        ["ok pool size it was. bump it to 10", R],
      ]),
  ),
  sc(
    "v26-ocaml-answers",
    "ocaml",
    "facts as answers to the agent's questions",
    "2025-11-25T09:40:00.000Z",
    (s) => {
      s.user("deploy is failing", R);
      s.tools(CHORES.ocaml[1]);
      s.say("How is it deployed — a container, or a binary copied to a host?");
      s.user(
        "static binary built with musl in a docker stage, runs on fly.io",
        D(
          "fact",
          "project",
          "dream-notes is deployed as a static musl binary (built in a Docker stage) on fly.io.",
        ),
      );
      s.say(
        "The musl stage is missing libev. Is libev required, or is the default Lwt engine fine?",
      );
      s.user("default engine is fine", R);
      s.say("Removed the libev dependency; the image builds.");
    },
  ),
];

const KMP: Script[] = [
  sc(
    "v27-kmp-runon",
    "kmp",
    "long run-on dictated messages",
    "2025-11-26T08:15:00.000Z",
    (s) =>
      turns(s, "kmp", [
        [
          "right so geokit is a kotlin multiplatform library that we publish for android ios and jvm and the ios side goes out as an xcframework through SPM and the thing you need to know is that the public API is checked by the binary compatibility validator so any change to a public signature has to come with an updated api dump which you make with apiDump and reviewers will bounce a PR without it so please fix the rounding in haversine and do the dump if it changes anything",
          D(
            "fact",
            "project",
            "geokit is a Kotlin Multiplatform library for Android, iOS (XCFramework via SPM) and JVM.",
          ),
          D(
            "rule",
            "project",
            "Public API changes come with an updated API dump (./gradlew apiDump) for the binary compatibility validator.",
          ),
          R,
        ],
        [
          "oh and also explicit API mode is on so everything public needs an explicit modifier and a KDoc comment we don't merge public stuff without KDoc",
          D(
            "rule",
            "project",
            "Explicit API mode is on: public declarations need an explicit visibility modifier and KDoc.",
          ),
        ],
        ["ok great run allTests", R],
      ]),
  ),
  sc(
    "v28-kmp-review",
    "kmp",
    "rules in review comments",
    "2025-11-27T10:00:00.000Z",
    (s) =>
      turns(s, "kmp", [
        [
          'comments from Jonas on the expect/actual PR:\n\n1. "No platform code in commonMain, ever. Put expect declarations there and actuals in androidMain/iosMain/jvmMain."\n2. "Don\'t add kotlinx-datetime just for this one timestamp — use a Long for now."\n3. "Tests for common logic live in commonTest so they run on all targets; that\'s how we do it."',
          D(
            "rule",
            "project",
            "No platform code in commonMain; expect declarations there, actuals in the platform source sets.",
          ),
          HN("one-off"),
          D(
            "rule",
            "project",
            "Tests of common logic live in commonTest so they run on every target.",
          ),
        ],
        ["move the tests then", R],
      ]),
  ),
  sc(
    "v29-kmp-stored",
    "kmp",
    "stored memory duplicated in other words; a global preference",
    "2025-11-28T09:00:00.000Z",
    (s) =>
      turns(s, "kmp", [
        [
          "remember commonMain must stay free of platform APIs",
          D("rule", "project", "commonMain stays free of platform APIs.", {
            dup: "Keep platform-specific code out of commonMain.",
          }),
        ],
        [
          "and a personal thing, across all my repos: write commit messages in the imperative mood, under 72 chars in the subject",
          D(
            "preference",
            "global",
            "Commit messages in the imperative mood, subject under 72 characters.",
          ),
        ],
        ["commit the move", R],
      ]),
    { stored: ["Keep platform-specific code out of commonMain."] },
  ),
  sc(
    "v30-kmp-hn",
    "kmp",
    "venting and questions phrased like rules",
    "2025-11-29T07:00:00.000Z",
    (s) =>
      turns(s, "kmp", [
        ["the ios simulator tests never finish on this machine, it's hopeless", HN("one-off")],
        ["should we always run linkDebugTestIosSimulatorArm64 before pushing?", HN("question")],
        ["maybe gradle's configuration cache is stale, I'd guess", HN("hypothesis")],
        [
          "and please, no emojis in anything you write for me, in any repo",
          D("preference", "global", "No emojis in anything the agent writes."),
        ],
        ["fine, clear it", R],
      ]),
  ),
];

const MAT: Script[] = [
  sc(
    "v31-mat-answers",
    "mat",
    "facts as answers to the agent's questions",
    "2025-12-01T09:00:00.000Z",
    (s) => {
      s.user("the attitude loop oscillates in the sim", R);
      s.tools(CHORES.mat[1]);
      s.say("Which MATLAB release and which solver does the Simulink model use?");
      s.user(
        "R2024b, fixed-step ode4 at 1 kHz — the flight controller runs at 1 kHz so the model must match",
        D(
          "fact",
          "project",
          "The project uses MATLAB R2024b; the Simulink model runs fixed-step ode4 at 1 kHz, matching the flight controller.",
        ),
      );
      s.say("And the units of the gains — SI throughout?");
      s.user(
        "SI everywhere, angles in radians, never degrees inside the model",
        D("rule", "project", "Use SI units in the model; angles are in radians, never degrees."),
      );
      s.tools(CHORES.mat[0]);
      s.say("The derivative term used degrees; fixed, the oscillation is gone.");
    },
  ),
  sc(
    "v32-mat-onboarding",
    "mat",
    "onboarding a new agent to the lab's conventions",
    "2025-12-02T10:20:00.000Z",
    (s) =>
      turns(s, "mat", [
        [
          "In this lab the .slx files are the source of truth but we also export them with slx2mdl... no wait, we don't, forget that. What we do: every model change gets a test in tests/ run by runtests, and the CI runs them headless with matlab -batch.",
          D(
            "rule",
            "project",
            "Every model change comes with a test in tests/ (runtests); CI runs them headless with matlab -batch.",
          ),
        ],
        [
          "Tunable parameters live in params/*.m scripts loaded by the model's PreLoadFcn, never typed into block dialogs.",
          D(
            "rule",
            "project",
            "Tunable parameters live in params/*.m loaded by PreLoadFcn, not in block dialogs.",
          ),
        ],
        [
          "We decided to generate the flight code with Embedded Coder rather than hand-porting to C; that was settled at the design review.",
          D(
            "decision",
            "project",
            "Flight code is generated with Embedded Coder, not hand-ported to C.",
          ),
        ],
        ["can you add a test for the yaw saturation?", R],
      ]),
  ),
  sc("v33-mat-hn", "mat", "hard negatives", "2025-12-03T15:00:00.000Z", (s) =>
    turns(s, "mat", [
      [
        "the Simulink guidelines say 'always avoid algebraic loops' — is that the warning we get?",
        HN("question"),
      ],
      ["Simulink always crashes when I open the scope with 12 signals", HN("one-off")],
      ["don't regenerate the code for this step", HN("one-off")],
      ["Kp of 0.8 just for this run please", HN("one-off")],
      [
        "the airframe params are for the 2024 frame, 1.42 kg all-up",
        D("fact", "project", "The parameters are for the 2024 airframe, 1.42 kg all-up mass."),
      ],
    ])),
  sc(
    "v34-mat-contra",
    "mat",
    "contradiction of a stored memory; a global preference",
    "2025-12-04T08:10:00.000Z",
    (s) =>
      turns(s, "mat", [
        [
          "the control loop is at 1 kHz now, the 500 Hz one is gone since the new IMU",
          D("fact", "project", "The control loop runs at 1 kHz (since the new IMU).", {
            contra: "The control loop runs at 500 Hz.",
          }),
        ],
        [
          "also for me generally: explain the math before the code when you change a controller, I review the derivation first",
          D(
            "preference",
            "global",
            "When changing a controller, explain the math before showing the code.",
          ),
        ],
        ["update the discretisation", R],
      ]),
    { stored: ["The control loop runs at 500 Hz."] },
  ),
];

const FRESH: Script[] = [
  sc(
    "v35-fresh-terse",
    "fresh",
    "very short imperative messages",
    "2025-12-05T09:00:00.000Z",
    (s) =>
      turns(s, "fresh", [
        ["new route /pricing", R],
        [
          "islands only for interactive bits. rest server-rendered",
          D(
            "rule",
            "project",
            "Use islands only for interactive parts; everything else is server-rendered.",
          ),
        ],
        [
          "tailwind classes, no css files",
          D("rule", "project", "Style with Tailwind classes; no separate CSS files."),
        ],
        ["deploy", R],
      ]),
  ),
  sc(
    "v36-fresh-anthropic",
    "fresh",
    "an API key pasted; a private text",
    "2025-12-06T11:00:00.000Z",
    (s) => {
      const key = s.secret("anthropic");
      s.userS(
        `the contact form summarizer needs ANTHROPIC_API_KEY=${key}, put it in Deno Deploy's env settings`,
        [key],
        N("secret"),
        R,
      );
      s.tools(CHORES.fresh[0]);
      s.say(
        "I can't set Deploy's env from here; run `deployctl env set ANTHROPIC_API_KEY …` yourself. I kept it out of the repository.",
      );
      s.user(
        "ok. the site deploys to Deno Deploy from main via GitHub Actions <private>and my manager still thinks it's on netlify lol</private>",
        D("fact", "project", "The site deploys to Deno Deploy from main via GitHub Actions."),
        N("private"),
      );
      s.say("Noted.");
    },
  ),
  sc(
    "v37-fresh-confirm",
    "fresh",
    "terse confirmation of the agent's convention",
    "2025-12-07T10:00:00.000Z",
    (s) => {
      s.user("add a blog index", R);
      s.tools(CHORES.fresh[1]);
      s.say(
        "Posts are Markdown files in posts/ with YAML front matter (title, date, summary). I'd keep that format and parse them with @std/front-matter — is that the convention?",
      );
      s.confirm(
        "correct",
        "rule",
        "project",
        "Blog posts are Markdown files in posts/ with YAML front matter (title, date, summary).",
      );
      s.tools(CHORES.fresh[0]);
      s.say("Added routes/blog/index.tsx.");
    },
  ),
  sc(
    "v38-fresh-hn",
    "fresh",
    "hard negatives and questions",
    "2025-12-08T16:30:00.000Z",
    (s) =>
      turns(s, "fresh", [
        [
          "Fresh's docs say you should never import an island from another island — true?",
          HN("question"),
        ],
        ["the lighthouse score always drops when I run it locally, ignore that", HN("one-off")],
        ["is the hydration mismatch because of Date.now() in the hero? probably", HN("hypothesis")],
        [
          "images go through components/Picture.tsx, every time, so we get the srcset and lazy loading",
          D(
            "rule",
            "project",
            "Images go through components/Picture.tsx (srcset and lazy loading).",
          ),
        ],
        ["yes that was it, thanks", R],
      ]),
  ),
];

const DOT: Script[] = [
  sc(
    "v39-dot-terse",
    "dot",
    "very short imperative messages; global preferences",
    "2025-12-09T07:30:00.000Z",
    (s) =>
      turns(s, "dot", [
        ["add a tmux conf", R],
        [
          "bash scripts: set -euo pipefail at top. always",
          D("rule", "project", "Bash scripts start with set -euo pipefail."),
        ],
        [
          "shellcheck clean, shfmt -i 2",
          D("rule", "project", "Scripts pass shellcheck and are formatted with shfmt -i 2."),
        ],
        ["ugh shellcheck never shuts up about SC2086", HN("one-off")],
        [
          "I use fish interactively btw, everywhere. bash only for scripts",
          D(
            "preference",
            "global",
            "The user's interactive shell is fish; bash is only for scripts.",
          ),
        ],
      ]),
  ),
  sc(
    "v40-dot-slack",
    "dot",
    "a Slack webhook inside a durable statement",
    "2025-12-10T12:00:00.000Z",
    (s) => {
      const hook = s.secret("slackWebhook");
      s.userS(
        `the backup script notifies #ops on failure via ${hook} — only on failure, never on success, that's how all my cron scripts work`,
        [hook],
        D(
          "rule",
          "project",
          "Cron scripts notify #ops on Slack only on failure, never on success.",
          { secret: true },
        ),
      );
      s.tools(CHORES.dot[0]);
      s.say("Read the webhook from ~/.config/dotscripts/slack_webhook instead of the script.");
      s.user("good", R);
      s.say("Done.");
    },
  ),
  sc(
    "v41-dot-runon",
    "dot",
    "long run-on dictated message",
    "2025-12-11T09:00:00.000Z",
    (s) =>
      turns(s, "dot", [
        [
          "so the install script is supposed to be idempotent you can run it ten times and nothing changes and it symlinks with ln -sfn from home/ into $HOME and it must never overwrite a real file it backs it up to ~/.dotbackup first that's the whole point of link_home so please make the new nvim config go through that too and not copy",
          D(
            "rule",
            "project",
            "install.sh is idempotent and links with ln -sfn via link_home; it never overwrites a real file but backs it up to ~/.dotbackup first.",
          ),
          R,
        ],
        [
          "and the Makefile targets are the entry points, install lint test, nobody should have to remember script names",
          D(
            "rule",
            "project",
            "The Makefile targets (install, lint, test) are the entry points to the scripts.",
          ),
        ],
        ["test it in a throwaway HOME", R],
      ]),
  ),
  sc(
    "v42-dot-hn",
    "dot",
    "venting, one-offs, quoted rule",
    "2025-12-12T18:00:00.000Z",
    (s) =>
      turns(s, "dot", [
        ["macOS sed never works the way I expect", HN("one-off")],
        [
          "the google shell style guide says 'never use backticks' — do we have any?",
          HN("question"),
        ],
        ["just this once, hardcode my username in the path, I'll fix it later", HN("one-off")],
        ["maybe bats is picking up the wrong HOME?", HN("hypothesis")],
      ]),
  ),
  sc(
    "v43-dot-bash5-decision",
    "dot",
    "a decision and a fact stated in passing",
    "2025-12-13T08:00:00.000Z",
    (s) =>
      turns(s, "dot", [
        [
          "the scripts target bash 5 now — I dropped the macOS system bash 3.2 support, homebrew bash everywhere",
          D(
            "decision",
            "project",
            "The scripts target bash 5 (Homebrew bash on macOS); bash 3.2 is no longer supported.",
          ),
        ],
        [
          "tests are bats files in test/, one per script",
          D("fact", "project", "Tests are bats files in test/, one per script."),
        ],
        ["use mapfile in lib/link.sh then", R],
      ]),
  ),
  sc(
    "v44-vue-global-review",
    "vue",
    "review comments with a global preference",
    "2025-12-14T10:00:00.000Z",
    (s) =>
      turns(s, "vue", [
        [
          "my notes on your last PR:\n- please don't use `any`, use `unknown` and narrow — same in every TS project of mine\n- the router guard should live in src/router/guards.ts, all guards go there\n- rename the branch, whatever",
          D("preference", "global", "In TypeScript, use unknown and narrow instead of any."),
          D("rule", "project", "Router guards live in src/router/guards.ts."),
          R,
        ],
        [
          "and the e2e tests are playwright, in e2e/ — run them with pnpm e2e",
          D("fact", "project", "E2E tests use Playwright, in e2e/, run with pnpm e2e."),
        ],
        ["run them", R],
      ]),
  ),
];

export const HOLDOUT5: Script[] = [
  ...SPRING,
  ...VUE,
  ...CPP,
  ...DAG,
  ...HELM,
  ...OCAML,
  ...KMP,
  ...MAT,
  ...FRESH,
  ...DOT,
];
