/**
 * Hand-written sessions of the capture benchmark's `holdout2` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark task, docs page or results,
 * and frozen before any tuning against them. Ten projects new to the data set: firmware in C
 * (Zephyr), a Kotlin Android app, an Elixir/Phoenix service, a data-science notebook repo, a
 * WordPress plugin, a Unity game, a Haskell compiler, a Snakemake pipeline, a Chrome extension
 * and an Ansible repository.
 *
 * @module
 */
import {
  bash,
  bashErr,
  D,
  edit,
  grep,
  type Label,
  N,
  read,
  type Session,
  type ToolStep,
  write,
} from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: a statement that uses rule words (always, never, don't, …) without stating a standing rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);

/** The holdout2 split's projects. */
const P = {
  fw: "/home/anke/src/thermo-fw",
  android: "/Users/luis/AndroidStudioProjects/transit-android",
  phx: "/home/nadia/code/courier_hub",
  ds: "/home/fatima/notebooks/churn-analysis",
  wp: "/home/carla/sites/shop/wp-content/plugins/wc-gift-registry",
  unity: "/Users/emre/Unity/LanternKeep",
  hs: "/home/yuki/src/minicaml-hs",
  snake: "/scratch/okafor/rnaseq-snake",
  ext: "/home/ines/dev/tabtamer-ext",
  ansible: "/home/viktor/ops/ansible-fleet",
} as const;

const CHORES: Record<keyof typeof P, ToolStep[]> = {
  fw: [
    bash(
      "west build -b nrf52840dk_nrf52840 app",
      "[212/212] Linking C executable zephyr/zephyr.elf\nMemory region         Used Size  Region Size  %age Used\n           FLASH:      212344 B         1 MB     20.25%\n             RAM:       61232 B       256 KB     23.36%\n        IDT_LIST:          0 GB        32 KB      0.00%",
    ),
    read(
      `${P.fw}/app/src/sensor.c`,
      '#include <zephyr/drivers/i2c.h>\n#include "sensor.h"\n\nstatic const struct i2c_dt_spec tmp = I2C_DT_SPEC_GET(DT_NODELABEL(tmp117));\n\nint sensor_read_mdeg(int32_t *out)\n{\n\tuint8_t reg = TMP117_REG_TEMP;\n\tuint8_t buf[2];\n\tint err = i2c_write_read_dt(&tmp, &reg, 1, buf, sizeof(buf));\n\tif (err) {\n\t\treturn err;\n\t}\n\t*out = ((int16_t)((buf[0] << 8) | buf[1]) * 78125) / 10000;\n\treturn 0;\n}',
    ),
    bash(
      "west twister -T tests -p native_sim --inline-logs",
      "INFO    - 14 test scenarios (14 configurations) selected, 0 configurations filtered\nINFO    - 14 of 14 executed test configurations passed (100.00%), 0 failed, 0 errored, with no warnings in 38.11 seconds",
    ),
    bash("git status --short", " M app/src/sensor.c\n M app/src/power.c"),
  ],
  android: [
    bash(
      "./gradlew :app:testDebugUnitTest",
      "> Task :app:testDebugUnitTest\n\nBUILD SUCCESSFUL in 41s\n52 actionable tasks: 9 executed, 43 up-to-date",
    ),
    read(
      `${P.android}/app/src/main/java/net/transitly/departures/DeparturesViewModel.kt`,
      "@HiltViewModel\nclass DeparturesViewModel @Inject constructor(\n    private val repo: DeparturesRepository,\n) : ViewModel() {\n    private val _state = MutableStateFlow<DeparturesState>(DeparturesState.Loading)\n    val state: StateFlow<DeparturesState> = _state\n\n    fun load(stopId: String) = viewModelScope.launch {\n        _state.value = repo.departures(stopId).fold(DeparturesState::Ready, DeparturesState::Error)\n    }\n}",
    ),
    bash("./gradlew ktlintCheck", "> Task :app:ktlintMainSourceSetCheck\n\nBUILD SUCCESSFUL in 6s"),
  ],
  phx: [
    bash(
      "mix test",
      "Running ExUnit with seed: 418822, max_cases: 4\n\n........................................................................\nFinished in 3.2 seconds (1.1s async, 2.1s sync)\n184 tests, 0 failures",
    ),
    read(
      `${P.phx}/lib/courier_hub/dispatch.ex`,
      "defmodule CourierHub.Dispatch do\n  alias CourierHub.{Repo, Courier, Delivery}\n\n  def assign(%Delivery{} = delivery) do\n    with {:ok, courier} <- nearest_available(delivery.pickup),\n         {:ok, delivery} <- Delivery.assign(delivery, courier) |> Repo.update() do\n      CourierHub.PubSub.broadcast_assignment(delivery)\n    end\n  end\nend",
    ),
    bash(
      "mix credo --strict",
      "Checking 96 source files ...\n\nAnalysis took 1.4 seconds (0.05s to load, 1.3s running 55 checks on 96 files)\n412 mods/funs, found no issues.",
    ),
  ],
  ds: [
    bash(
      "pytest -q tests",
      ".........                                                                [100%]\n9 passed in 2.03s",
    ),
    read(
      `${P.ds}/src/churn/features.py`,
      'import polars as pl\n\n\ndef tenure_features(df: pl.DataFrame) -> pl.DataFrame:\n    return df.with_columns(\n        (pl.col("last_seen") - pl.col("signup_date")).dt.total_days().alias("tenure_days"),\n        pl.col("plan").cast(pl.Categorical),\n    )',
    ),
    bash(
      "jupyter nbconvert --to notebook --execute notebooks/02_features.ipynb --output /tmp/02_features.out.ipynb",
      "[NbConvertApp] Converting notebook notebooks/02_features.ipynb to notebook\n[NbConvertApp] Writing 88213 bytes to /tmp/02_features.out.ipynb",
    ),
  ],
  wp: [
    bash(
      "composer run phpcs",
      "> phpcs --standard=phpcs.xml.dist\n\nTime: 1.84 secs; Memory: 18MB\n\nNo violations found.",
    ),
    read(
      `${P.wp}/includes/class-wcgr-registry.php`,
      "<?php\ndefined( 'ABSPATH' ) || exit;\n\nclass WCGR_Registry {\n\tpublic function __construct() {\n\t\tadd_action( 'init', array( $this, 'register_post_type' ) );\n\t\tadd_shortcode( 'wcgr_registry', array( $this, 'render' ) );\n\t}\n\n\tpublic function render( $atts ) {\n\t\t$registry = wcgr_get_registry( absint( $atts['id'] ?? 0 ) );\n\t\treturn wcgr_template( 'registry.php', array( 'registry' => $registry ) );\n\t}\n}",
    ),
    bash(
      "vendor/bin/phpunit",
      "PHPUnit 9.6.19 by Sebastian Bergmann and contributors.\n\n...............................................................  61 / 61 (100%)\n\nOK (61 tests, 140 assertions)",
    ),
  ],
  unity: [
    read(
      `${P.unity}/Assets/Scripts/Player/PlayerController.cs`,
      "using UnityEngine;\n\npublic class PlayerController : MonoBehaviour\n{\n    [SerializeField] float moveSpeed = 4.5f;\n    Rigidbody body;\n    Vector2 input;\n\n    void Awake() => body = GetComponent<Rigidbody>();\n\n    void FixedUpdate()\n    {\n        var v = new Vector3(input.x, 0, input.y) * moveSpeed;\n        body.MovePosition(body.position + v * Time.fixedDeltaTime);\n    }\n}",
    ),
    bash(
      "/Applications/Unity/Hub/Editor/2022.3.21f1/Unity.app/Contents/MacOS/Unity -batchmode -projectPath . -runTests -testPlatform EditMode -testResults /tmp/editmode.xml -quit; grep -o 'passed=\"[0-9]*\"' /tmp/editmode.xml | head -1",
      'passed="87"',
    ),
    bash(
      "git status --short",
      " M Assets/Scripts/Player/PlayerController.cs\n M Assets/Scripts/World/Respawn.cs",
    ),
  ],
  hs: [
    bash(
      "cabal build all 2>&1 | tail -3",
      "[14 of 31] Compiling Typecheck.Unify ( src/Typecheck/Unify.hs, dist-newstyle/build/x86_64-linux/ghc-9.6.6/minicaml-0.3.0/build/Typecheck/Unify.o )\n[31 of 31] Compiling Main\nLinking dist-newstyle/build/x86_64-linux/ghc-9.6.6/minicaml-0.3.0/x/minicaml/build/minicaml/minicaml ...",
    ),
    read(
      `${P.hs}/src/Typecheck/Unify.hs`,
      "module Typecheck.Unify (unify) where\n\nimport Typecheck.Types\nimport Diagnostic (Diagnostic (..))\n\nunify :: Type -> Type -> Infer Subst\nunify (TArrow a b) (TArrow c d) = do\n  s1 <- unify a c\n  s2 <- unify (apply s1 b) (apply s1 d)\n  pure (s2 `compose` s1)\nunify (TVar v) t = bind v t\nunify t (TVar v) = bind v t\nunify a b | a == b = pure nullSubst\nunify a b = throwDiag (TypeMismatch a b)",
    ),
    bash(
      "cabal test 2>&1 | tail -4",
      "Test suite spec: RUNNING...\nTest suite spec: PASS\nTest suite logged to: dist-newstyle/build/x86_64-linux/ghc-9.6.6/minicaml-0.3.0/t/spec/test/minicaml-0.3.0-spec.log\n1 of 1 test suites (1 of 1 test cases) passed.",
    ),
  ],
  snake: [
    bash(
      "snakemake -n --cores 1 | tail -6",
      "fastqc           24\nmultiqc           1\nstar_align       24\ntotal            49\n\nThis was a dry-run (flag -n). The order of jobs does not reflect the order of execution.",
    ),
    read(
      `${P.snake}/workflow/rules/align.smk`,
      'rule star_align:\n    input:\n        r1="results/trimmed/{sample}_R1.fq.gz",\n        r2="results/trimmed/{sample}_R2.fq.gz",\n        index=config["star_index"],\n    output:\n        bam="results/star/{sample}/Aligned.sortedByCoord.out.bam",\n    threads: 16\n    resources:\n        mem_mb=40000,\n    conda:\n        "../envs/star.yaml"\n    shell:\n        "STAR --runThreadN {threads} --genomeDir {input.index} --readFilesIn {input.r1} {input.r2} --readFilesCommand zcat --outSAMtype BAM SortedByCoordinate --outFileNamePrefix results/star/{wildcards.sample}/"',
    ),
    bash("snakemake --lint", "Congratulations, your workflow is in a good condition!"),
  ],
  ext: [
    bash(
      "npm run build",
      "> tabtamer@1.8.0 build\n> vite build\n\nvite v5.4.2 building for production...\n✓ 38 modules transformed.\ndist/manifest.json          0.91 kB\ndist/background.js         12.40 kB │ gzip: 4.11 kB\ndist/popup.js              31.77 kB │ gzip: 10.02 kB\n✓ built in 1.21s",
    ),
    read(
      `${P.ext}/src/background.ts`,
      'chrome.runtime.onInstalled.addListener(() => {\n  chrome.alarms.create("sweep", { periodInMinutes: 15 });\n});\n\nchrome.alarms.onAlarm.addListener(async (alarm) => {\n  if (alarm.name !== "sweep") return;\n  const tabs = await chrome.tabs.query({ pinned: false });\n  await sweepIdle(tabs);\n});',
    ),
    bash(
      "npx vitest run",
      " ✓ src/sweep.test.ts (12 tests) 38ms\n ✓ src/groups.test.ts (9 tests) 22ms\n\n Test Files  5 passed (5)\n      Tests  31 passed (31)",
    ),
  ],
  ansible: [
    bash(
      "ansible-lint playbooks/ roles/",
      "Passed: 0 failure(s), 0 warning(s) on 58 files. Last profile that met the validation criteria was 'production'.",
    ),
    read(
      `${P.ansible}/roles/nginx/tasks/main.yml`,
      '- name: Install nginx\n  ansible.builtin.apt:\n    name: nginx\n    state: present\n\n- name: Render site config\n  ansible.builtin.template:\n    src: site.conf.j2\n    dest: /etc/nginx/sites-available/{{ site_name }}.conf\n    mode: "0644"\n  notify: reload nginx',
    ),
    bash(
      "ansible-playbook -i inventories/staging site.yml --check --diff --limit web",
      "PLAY RECAP *********************************************************************\nweb-stg-01                 : ok=23   changed=2    unreachable=0    failed=0    skipped=4    rescued=0    ignored=0\nweb-stg-02                 : ok=23   changed=2    unreachable=0    failed=0    skipped=4    rescued=0    ignored=0",
    ),
  ],
};

/** Adds `n` routine tool calls of a project (2 events each), cycling from `offset`. */
function chores(s: Session, project: keyof typeof P, n: number, offset = 0): void {
  const pool = CHORES[project];
  for (let i = 0; i < n; i++) s.tools(pool[(offset + i) % pool.length]);
}

const FW: Script[] = [
  {
    id: "q01-fw-terse-overlay",
    cwd: P.fw,
    style:
      "terse senior dev; a correction with its reason; a setup fact tacked onto a request; a status report with 'never'",
    start: "2025-10-06T07:41:00.000Z",
    version: "2.0.21",
    branch: "fix/i2c-wake",
    run: (s) => {
      s.user("main doesn't build since the i2c change. fix", N("request"));
      chores(s, "fw", 1);
      s.tools(
        edit(
          `${P.fw}/boards/nrf52840dk_nrf52840.overlay`,
          "clock-frequency = <I2C_BITRATE_FAST>;",
          "clock-frequency = <I2C_BITRATE_STANDARD>;",
          "The build fails on the TMP117 node; I'll drop the bus to standard speed in the overlay.",
        ),
      );
      s.say("Build passes with the bus at 100 kHz.");
      s.user(
        "no. revert that. the overlay is shared with the hw team's test jig, we don't change it to paper over driver bugs. fix the driver",
        D(
          "rule",
          "project",
          "Don't change the board devicetree overlay in thermo-fw to work around driver bugs: it is shared with the hardware team's test jig; fix the driver",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.fw}/app/src/sensor.c`,
          "int err = i2c_write_read_dt(&tmp, &reg, 1, buf, sizeof(buf));",
          "if (!device_is_ready(tmp.bus)) {\n\t\treturn -ENODEV;\n\t}\n\tint err = i2c_write_read_dt(&tmp, &reg, 1, buf, sizeof(buf));",
        ),
      );
      chores(s, "fw", 1);
      s.say("Reverted the overlay; the driver now checks that the bus is ready. Builds clean.");
      s.user(
        "flash it. board's on /dev/ttyACM0, it always is on this box",
        D("fact", "project", "The thermo-fw dev board is on /dev/ttyACM0 on Anke's machine"),
        N("request"),
      );
      s.tools(
        bash(
          "west flash --runner nrfjprog && timeout 5 cat /dev/ttyACM0",
          "-- runners.nrfjprog: Flashing file: build/zephyr/zephyr.hex\n-- runners.nrfjprog: Board with serial number 683512077 flashed successfully.\n*** Booting Zephyr OS build v3.7.0 ***\n[00:00:00.004,364] <inf> app: thermo-fw 1.4.0-dev\n[00:00:01.010,101] <inf> sensor: 21.953 C",
        ),
      );
      s.say("Flashed; it boots and reads 21.95 °C.");
      s.user(
        "after wake from system off the read still never finishes. look at the pm callbacks",
        HN("request"),
      );
      s.say(
        "Possibly the TWIM instance is left suspended after resume: `pm_device_action_run(RESUME)` isn't called on the bus, only on the sensor.",
        N("hypothesis"),
      );
      s.user("try it", N("request"));
    },
  },
  {
    id: "q02-fw-long-power",
    cwd: P.fw,
    style:
      "long terse session (30+ turns) on power draw: rules in passing between many short requests, several 'always'/'never' in one-offs and complaints",
    start: "2025-10-07T08:02:00.000Z",
    version: "2.0.21",
    branch: "perf/idle-current",
    run: (s) => {
      const turns: [string, Label[]][] = [
        ["idle current is 410uA, target is under 20. let's go through it", [N("request")]],
        ["start with the logging backend", [N("request")]],
        ["ok disable UART console in the release config", [N("request")]],
        [
          "btw release builds are made with the prod snippet: west build -S prod. never the default conf",
          [D(
            "fact",
            "project",
            "thermo-fw release builds use the prod snippet: `west build -S prod`, never the default config",
          )],
        ],
        ["rebuild with that", [N("request")]],
        ["what's the sleep current now", [N("question")]],
        ["still high. check whether the sensor thread wakes up every 10ms", [N("request")]],
        [
          "right. and no k_malloc. we don't do dynamic allocation anywhere in this firmware, static pools or stack only",
          [D(
            "rule",
            "project",
            "No dynamic allocation (k_malloc included) in thermo-fw; use static pools or the stack",
          )],
        ],
        ["replace that buffer with a K_MEM_SLAB", [N("request")]],
        ["make sure the timer always fires before the watchdog in this test", [HN("request")]],
        ["run twister", [N("request")]],
        ["hm. why is test_pm_resume flaky", [N("question")]],
        ["never mind, it's the native_sim clock. skip it for now", [HN("one-off")]],
        [
          "stack sizes go in Kconfig (CONFIG_APP_*_STACK_SIZE), don't hardcode them in K_THREAD_DEFINE",
          [D(
            "rule",
            "project",
            "thermo-fw thread stack sizes go in Kconfig (CONFIG_APP_*_STACK_SIZE), not hardcoded in K_THREAD_DEFINE",
          )],
        ],
        ["fix the two threads you added then", [N("request")]],
        ["ok. now the ADC. is it left enabled between samples?", [N("question")]],
        ["disable it between samples", [N("request")]],
        ["we always seem to hit this hardfault on cold boot when the ADC is off, ugh", [
          HN("hypothesis"),
        ]],
        ["get the fault address from the log", [N("request")]],
        ["maybe it's the saadc calibration running before the regulator settles?", [
          N("hypothesis"),
        ]],
        ["add a 2ms delay before calibration, just to test the theory", [N("one-off")]],
        ["ok that was it. keep the delay but make it a define", [N("request")]],
        [
          "log level in release is WRN at most. INF floods the RTT buffer and keeps the cpu awake",
          [D(
            "rule",
            "project",
            "thermo-fw release builds log at WRN level at most; INF floods the RTT buffer and keeps the CPU awake",
          )],
        ],
        ["set that in the prod snippet", [N("request")]],
        ["measure again", [N("request")]],
        ["17uA. nice", [N("request")]],
        ['commit it. message: "power: idle current 410uA -> 17uA"', [N("request")]],
        ["for this branch only, don't run clang-format on power.c, the diff is already big", [
          HN("one-off"),
        ]],
        ["push", [N("request")]],
        [
          "one more thing, power numbers go in docs/power.md with the board rev and the PPK2 capture file name, every time we measure",
          [D(
            "rule",
            "project",
            "Every thermo-fw power measurement goes in docs/power.md with the board revision and the PPK2 capture file name",
          )],
        ],
        ["add today's: rev C board, capture ppk-2025-10-07-idle.ppk2", [N("request")]],
        ["thanks, done for today", [N("request")]],
      ];
      turns.forEach(([text, labels], i) => {
        s.user(text, ...labels);
        if (i % 4 === 1) chores(s, "fw", 1, i);
        s.say(
          [
            "Done.",
            "Built with the prod snippet; 1 warning fixed.",
            "Measured on the PPK2: see the numbers above.",
            "Changed as asked; twister passes on native_sim.",
          ][i % 4],
        );
      });
    },
  },
  {
    id: "q03-fw-stored-zephyr",
    cwd: P.fw,
    style:
      "stored memories: a version update that contradicts one, a restated rule that repeats one, questions around them",
    start: "2025-10-13T13:15:00.000Z",
    version: "2.0.27",
    stored: [
      "thermo-fw is built on Zephyr 3.5",
      "Run twister on native_sim before pushing thermo-fw changes",
    ],
    run: (s) => {
      s.user(
        "heads up, we moved to zephyr 3.7 last week (west.yml is already bumped). the old 3.5 workarounds in app/src/compat.h can probably go, can you check which ones are still needed?",
        D("fact", "project", "thermo-fw is built on Zephyr 3.7", {
          contra: "thermo-fw is built on Zephyr 3.5",
        }),
        N("request"),
      );
      s.tools(
        read(
          `${P.fw}/app/src/compat.h`,
          "#pragma once\n/* Zephyr 3.5: i2c_dt_spec lacks is_ready helper */\n#define I2C_READY(spec) device_is_ready((spec)->bus)\n/* Zephyr 3.5: PM_DEVICE_ACTION_TURN_ON missing */\n#define PM_TURN_ON PM_DEVICE_ACTION_RESUME",
        ),
        grep("I2C_READY|PM_TURN_ON", ["app/src/sensor.c", "app/src/power.c"]),
      );
      s.say(
        "Both shims are obsolete on 3.7: `i2c_is_ready_dt()` and `PM_DEVICE_ACTION_TURN_ON` exist. I can replace the two uses and delete compat.h.",
      );
      s.user("do it. does anything else include compat.h?", N("request"), N("question"));
      s.say("No, only sensor.c and power.c.");
      chores(s, "fw", 1, 2);
      s.user(
        "ok and as usual twister on native_sim before you push, I don't want CI to be the first to find out",
        D("rule", "project", "Run twister on native_sim before pushing thermo-fw changes", {
          dup: "Run twister on native_sim before pushing thermo-fw changes",
        }),
      );
      chores(s, "fw", 1, 2);
      s.say("14 of 14 configurations pass. Pushed `chore/drop-compat`.");
      s.user("do we still need the 3.5 entry in the CI matrix?", N("question"));
      s.say("No, west.yml pins 3.7, so the 3.5 job builds an unsupported combination.");
      s.user("drop it", N("request"));
    },
  },
  {
    id: "q04-fw-gitlab-token-private",
    cwd: P.fw,
    style:
      "a setup fact carrying a GitLab token (contains_secret), a private block with a customer's serials, a question phrased with 'always'",
    start: "2025-10-20T10:03:00.000Z",
    version: "2.0.30",
    run: (s) => {
      const tok = s.secret("gitlab");
      s.userS(
        `CI fails at west update: 401 on the nordic-hal mirror. for context the pipeline pulls the vendor HAL from our self-hosted gitlab using a deploy token, ${tok}, which lives in the CI variable HAL_TOKEN. maybe it expired?`,
        [tok],
        D(
          "fact",
          "project",
          "thermo-fw CI pulls the vendor HAL from the self-hosted GitLab with a deploy token kept in the CI variable HAL_TOKEN",
          { secret: true },
        ),
        N("hypothesis"),
      );
      s.tools(
        read(
          `${P.fw}/.gitlab-ci.yml`,
          'build:\n  image: ghcr.io/zephyrproject-rtos/ci:v0.26.14\n  script:\n    - git config --global url."https://oauth2:${HAL_TOKEN}@gitlab.anke-labs.internal/".insteadOf "https://gitlab.anke-labs.internal/"\n    - west init -l app && west update\n    - west build -b nrf52840dk_nrf52840 app -S prod',
        ),
      );
      s.say(
        "The CI config uses `HAL_TOKEN` through an insteadOf rewrite, which looks right. A 401 with that setup usually means the token expired or lost `read_repository`.",
        N("hypothesis"),
      );
      s.user(
        "yeah it expired. I rotated it. does the hal mirror always need a token or only for CI?",
        N("question"),
      );
      s.say("Only for CI: locally your git credential helper answers.");
      s.user(
        `also, field unit bug report from a customer, <private>units SN 0041-2211 and 0041-2219 at Brauhaus Kessler in Bamberg</private>, they reboot every night at 03:00. can you look for anything scheduled at that hour`,
        N("private"),
        N("request"),
      );
      s.tools(grep("K_HOURS|03:00|nightly", ["app/src/maintenance.c"]));
      s.say(
        "`maintenance.c` schedules a flash compaction every 24 h from boot, not at 03:00. Nothing fires at a wall-clock hour.",
      );
    },
  },
];

const ANDROID: Script[] = [
  {
    id: "q05-android-chatty-junior",
    cwd: P.android,
    style:
      "chatty junior; rules passed on from the lead as asides in a long request; beginner questions; a 'never' inside a one-off",
    start: "2025-09-15T09:30:00.000Z",
    version: "1.0.98",
    model: "claude-sonnet-4-20250514",
    run: (s) => {
      s.user(
        "hiii ok so I'm pretty new on this team and I got my first real ticket 😅 it's TRAN-482, we need a \"favorite stops\" list on the home screen. I looked around a bit and I think the stops come from StopsRepository? oh and my lead Marta told me we use Hilt for dependency injection, not Koin, so please don't add any koin stuff even if it looks easier (she was very clear about that lol). can you help me plan it first before writing code?",
        N("request"),
        D("rule", "project", "transit-android uses Hilt for dependency injection; don't add Koin"),
      );
      chores(s, "android", 1, 1);
      s.say(
        "Plan: 1) a `FavoriteStop` Room entity and DAO, 2) `FavoritesRepository` injected with Hilt, 3) a `FavoritesViewModel` exposing a `StateFlow`, 4) a `FavoritesRow` composable on Home.",
      );
      s.user(
        "what's the difference between StateFlow and SharedFlow? sorry if that's a dumb question",
        N("question"),
      );
      s.say(
        "Not dumb: a StateFlow always has a current value and replays it to new collectors; a SharedFlow has no required value and is for events.",
      );
      s.user(
        "ohh ok that makes sense. ok let's go with the plan! also Marta said the room schema json files in app/schemas have to be committed every time the db version changes, otherwise the migration tests break on CI",
        N("request"),
        D(
          "rule",
          "project",
          "Commit the Room schema JSON in app/schemas of transit-android whenever the database version changes; the migration tests on CI need it",
        ),
      );
      s.tools(
        write(
          `${P.android}/app/src/main/java/net/transitly/favorites/FavoriteStop.kt`,
          '@Entity(tableName = "favorite_stops")\ndata class FavoriteStop(\n    @PrimaryKey val stopId: String,\n    val name: String,\n    val addedAt: Long,\n)',
        ),
        bash("./gradlew :app:kaptDebugKotlin", "BUILD SUCCESSFUL in 28s"),
      );
      s.say(
        "Entity and DAO added, DB version 7 → 8 with an auto-migration; `app/schemas/…/8.json` generated.",
      );
      s.user(
        "yay!! can you make it so the list never shows more than 5 stops? that's what the design in the ticket says",
        HN("request"),
      );
      s.say('Done: `take(5)` in the ViewModel, with a "See all" link.');
      s.user("how do I run only the favorites tests from the terminal?", N("question"));
      s.say('`./gradlew :app:testDebugUnitTest --tests "net.transitly.favorites.*"`');
      s.user(
        'thank you so much!! I\'ll try it myself. oh wait, one thing I forgot: our PR titles have to start with the jira key like "TRAN-482: ...", the bot rejects them otherwise',
        D(
          "rule",
          "project",
          'transit-android PR titles start with the Jira key, e.g. "TRAN-482: …"; a bot rejects the others',
        ),
      );
      s.say("Noted. Suggested title: `TRAN-482: favorite stops on the home screen`.");
    },
  },
  {
    id: "q06-android-angry-livedata",
    cwd: P.android,
    style:
      "angry correction after the agent repeats a mistake; a second rule in the same outburst; caps and swearing-adjacent tone",
    start: "2025-09-18T17:05:00.000Z",
    version: "1.0.98",
    run: (s) => {
      s.user("add a loading state to the trip planner screen", N("request"));
      s.tools(
        edit(
          `${P.android}/app/src/main/java/net/transitly/planner/PlannerViewModel.kt`,
          "class PlannerViewModel",
          "class PlannerViewModel // loading state\n    private val _loading = MutableLiveData(false)\n    val loading: LiveData<Boolean> = _loading",
        ),
        edit(
          `${P.android}/app/src/main/java/net/transitly/planner/PlannerScreen.kt`,
          "Column {",
          'Column {\n        if (loading) Text("Loading routes…")',
        ),
      );
      s.say('Added a `loading` LiveData and a "Loading routes…" text in the screen.');
      s.user(
        "NO. again with the LiveData?? there is NO LiveData in new code, everything is StateFlow + collectAsStateWithLifecycle. this is the third time. and don't hardcode strings in composables, they go in strings.xml, we have translators",
        D(
          "rule",
          "project",
          "No LiveData in new transit-android code: use StateFlow collected with collectAsStateWithLifecycle",
        ),
        D(
          "rule",
          "project",
          "transit-android user-facing strings go in strings.xml, never hardcoded in composables (translators work from it)",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.android}/app/src/main/java/net/transitly/planner/PlannerViewModel.kt`,
          "private val _loading = MutableLiveData(false)\n    val loading: LiveData<Boolean> = _loading",
          "private val _loading = MutableStateFlow(false)\n    val loading: StateFlow<Boolean> = _loading",
        ),
        edit(
          `${P.android}/app/src/main/res/values/strings.xml`,
          "</resources>",
          '    <string name="planner_loading">Loading routes…</string>\n</resources>',
        ),
      );
      chores(s, "android", 1);
      s.say(
        "Switched to StateFlow with `collectAsStateWithLifecycle()` and moved the text to `R.string.planner_loading`. Tests pass.",
      );
      s.user("fine. does the spinner show if the request fails instantly?", N("question"));
      s.say("No: `_loading` is reset in `finally`, so it flips back before the first frame.");
      s.user("ok leave it", N("request"));
    },
  },
  {
    id: "q07-android-maps-key",
    cwd: P.android,
    style:
      "a rule carrying a Google Maps key (contains_secret); a one-off hardcoded URL 'just for this build'; questions",
    start: "2025-09-22T11:48:00.000Z",
    version: "2.0.5",
    run: (s) => {
      const key = s.secret("google");
      s.userS(
        `map tiles are blank on the emulator. the key is in local.properties as MAPS_API_KEY=${key} and it gets into the manifest through the secrets gradle plugin. never put it in AndroidManifest.xml directly, it would end up in git`,
        [key],
        N("request"),
        D(
          "rule",
          "project",
          "The Maps API key of transit-android lives in local.properties as MAPS_API_KEY and reaches the manifest through the secrets Gradle plugin; never put it in AndroidManifest.xml",
          { secret: true },
        ),
      );
      s.tools(
        read(
          `${P.android}/app/src/main/AndroidManifest.xml`,
          '<meta-data\n    android:name="com.google.android.geo.API_KEY"\n    android:value="${MAPS_API_KEY}" />',
        ),
        bash(
          "grep -n secrets app/build.gradle.kts",
          '14:    id("com.google.android.libraries.mapsplatform.secrets-gradle-plugin")',
        ),
      );
      s.say(
        "The wiring is right. Blank tiles on an emulator usually mean the key is restricted to the release SHA-1 or the image lacks Google Play services.",
        N("hypothesis"),
      );
      s.user("it's a play image. how do I get the debug sha1", N("question"));
      s.say("`./gradlew signingReport`, the `debug` variant's SHA1 line.");
      s.user(
        "ok added it in the console. for this build just hardcode the API base url to https://staging-api.transitly.net, I'm demoing to QA in 10 min",
        N("one-off"),
      );
      s.tools(
        edit(
          `${P.android}/app/build.gradle.kts`,
          'buildConfigField("String", "API_BASE", "\\"https://api.transitly.net\\"")',
          'buildConfigField("String", "API_BASE", "\\"https://staging-api.transitly.net\\"")',
        ),
      );
      s.say("Debug now points at staging. Remember to revert before merging.");
      s.user("ya I'll revert it after", N("request"));
    },
  },
  {
    id: "q08-android-confirmed-sdk",
    cwd: P.android,
    style:
      "the agent states the SDK levels and the user confirms them as a standing constraint; request with 'always' for one screen",
    start: "2025-10-02T08:20:00.000Z",
    version: "2.0.14",
    run: (s) => {
      s.user("can I use the new predictive back API or is our minSdk too low?", N("question"));
      s.tools(
        bash(
          "grep -nE 'minSdk|targetSdk|compileSdk' app/build.gradle.kts",
          "22:        minSdk = 26\n23:        targetSdk = 34\n11:    compileSdk = 34",
        ),
      );
      s.say(
        "transit-android builds with minSdk 26 and targetSdk 34. Predictive back needs API 33 at runtime, so it has to be guarded with a version check; the AndroidX `OnBackPressedCallback` handles that for you.",
      );
      s.confirm(
        "right, 26 and 34, and those stay fixed until the Q1 release, don't bump them in any PR",
        "rule",
        "project",
        "transit-android stays at minSdk 26 and targetSdk 34 until the Q1 release; don't bump them",
      );
      s.say("Understood; I'll use the AndroidX callback.");
      s.user(
        "on the departures screen make sure the last refresh time always shows, even when offline",
        HN("request"),
      );
      chores(s, "android", 2, 1);
      s.say(
        'The header now shows "Updated 14:02" from the cached timestamp when the network call fails.',
      );
      s.user("ship it", N("request"));
    },
  },
];

const PHX: Script[] = [
  {
    id: "q09-phoenix-nonnative-oban",
    cwd: P.phx,
    style:
      "non-native English; a decision with its reason; a port fact; 'please remember' after a request",
    start: "2025-10-09T06:55:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "Hello. I need that when courier reject a delivery, the delivery go back to the queue and another courier is assigned. Please do it with Oban job. For this project we are not using Ecto.Multi for the dispatch flow, we use Oban jobs, because of the retries and because we can see the failed ones in the dashboard. Please remember this.",
        N("request"),
        D(
          "decision",
          "project",
          "courier_hub dispatch flows use Oban jobs, not Ecto.Multi, for the retries and to see failed jobs in the Oban dashboard",
        ),
      );
      chores(s, "phx", 1, 1);
      s.tools(
        write(
          `${P.phx}/lib/courier_hub/workers/reassign.ex`,
          'defmodule CourierHub.Workers.Reassign do\n  use Oban.Worker, queue: :dispatch, max_attempts: 5\n\n  @impl true\n  def perform(%Oban.Job{args: %{"delivery_id" => id}}) do\n    id |> CourierHub.Deliveries.get!() |> CourierHub.Dispatch.assign()\n  end\nend',
        ),
      );
      s.say(
        "Added `CourierHub.Workers.Reassign` on the `dispatch` queue; `Deliveries.reject/2` enqueues it.",
      );
      s.user("The tests, they fail with connection refused. Why?", N("question"));
      s.tools(
        bashErr(
          "mix test test/courier_hub/workers",
          "** (DBConnection.ConnectionError) tcp connect (localhost:5432): connection refused - :econnrefused",
        ),
      );
      s.say("The test config points at localhost:5432 and nothing is listening there.");
      s.user(
        "Ah yes. The tests use the postgres in docker on port 5433, not 5432. 5432 is my other local database for another project. Start it with `docker compose up -d db_test`.",
        D(
          "fact",
          "project",
          "courier_hub tests use the Postgres in Docker on port 5433 (started with `docker compose up -d db_test`); 5432 is another project's database",
        ),
        N("request"),
      );
      s.tools(
        bash("docker compose up -d db_test", " ✔ Container courier_hub-db_test-1  Started"),
        bash(
          "MIX_ENV=test DB_PORT=5433 mix test test/courier_hub/workers",
          "Finished in 0.4 seconds (0.00s async, 0.4s sync)\n6 tests, 0 failures",
        ),
      );
      s.say(
        "With the DB on 5433 all six worker tests pass. I set `port: 5433` in config/test.exs so it's the default.",
      );
      s.user("Perfect, thank you.", N("request"));
    },
  },
  {
    id: "q10-phoenix-staging-db-url",
    cwd: P.phx,
    style:
      "a staging database URL with a password in a setup fact (contains_secret); a 'never' in a bug description; a question quoting a doc's rule",
    start: "2025-10-14T14:22:00.000Z",
    version: "2.0.27",
    run: (s) => {
      const pw = s.secret("password");
      const url =
        `postgres://courier_app:${pw}@db-staging.courierhub.internal:5432/courier_hub_staging`;
      s.userS(
        `I need to check some rows in staging. The staging database is ${url}, it is read only for us developers, never write migrations against it from the laptop.`,
        [url],
        D(
          "fact",
          "project",
          "courier_hub's staging database is courier_hub_staging on db-staging.courierhub.internal:5432; it is read-only for developers",
          { secret: true },
        ),
        D(
          "rule",
          "project",
          "Never run courier_hub migrations against the staging database from a laptop",
        ),
      );
      s.say("Understood. Which rows do you want to look at?");
      s.user(
        "The deliveries where the reassign job never finishes. They stay in state :reassigning forever.",
        HN("request"),
      );
      s.tools(
        bash(
          "psql \"$STAGING_RO_URL\" -c \"select id, state, updated_at from deliveries where state = 'reassigning' and updated_at < now() - interval '1 hour' limit 5\"",
          "   id   |    state    |         updated_at\n--------+-------------+----------------------------\n 918233 | reassigning | 2025-10-14 09:12:44.113+00\n 918301 | reassigning | 2025-10-14 09:40:02.870+00\n(2 rows)",
        ),
      );
      s.say(
        "Two stuck deliveries. Their jobs are `discarded` after 5 attempts, and nothing moves the delivery out of `reassigning` then.",
      );
      s.user(
        'In the Oban docs they write "always make your workers idempotent". Is our worker idempotent or not?',
        HN("question"),
      );
      s.say(
        "Not quite: a retry after a successful `assign` would broadcast twice. Checking the state first would make it idempotent.",
      );
      s.user(
        "Ok add the check. And for the discarded ones, put them back to :pending.",
        N("request"),
      );
      chores(s, "phx", 1);
      s.say("Done; test added for the retry after success.");
    },
  },
  {
    id: "q11-phoenix-oneoffs",
    cwd: P.phx,
    style:
      "hard negatives only: temporary 'always' in a function, 'just this time', status reports with never/always, a hypothesis",
    start: "2025-10-16T08:10:00.000Z",
    version: "2.0.27",
    run: (s) => {
      s.user(
        "The health endpoint returns 500 when redis is down. For now make it always return 200 in this handler, we fix it properly tomorrow after the call.",
        HN("one-off"),
      );
      s.tools(
        edit(
          `${P.phx}/lib/courier_hub_web/controllers/health_controller.ex`,
          "case CourierHub.Health.check() do",
          "# TEMP: always 200 until the redis check is reworked\n    _ = CourierHub.Health.check()\n    case :ok do",
        ),
      );
      s.say("The health endpoint now always answers 200, with a TEMP comment.");
      s.user("I think redis is down because the memory limit, maybe?", N("hypothesis"));
      s.say(
        "Could be: `INFO memory` would show `used_memory` against `maxmemory`.",
        N("hypothesis"),
      );
      s.user("Just this time, skip credo, I need to deploy quick.", HN("one-off"));
      s.say("OK, only `mix test` then.");
      chores(s, "phx", 1);
      s.user("It always takes so long, this test suite.", HN("request"));
      s.say(
        "The 2.1 s of sync tests are the channel tests; they could run async with the sandbox in shared mode.",
      );
      s.user("Not now. Deploy to staging please.", N("request"));
      s.tools(
        bash(
          "fly deploy -a courier-hub-staging",
          "==> Verifying app config\n--> Verified app config\n==> Building image\n...\n ✔ Machine 3d8d9e0b is now in a good state",
        ),
      );
      s.say("Deployed to staging.");
    },
  },
  {
    id: "q12-phoenix-compaction-migrations",
    cwd: P.phx,
    style:
      "a compaction whose summary restates earlier rules, then a new 'from now on' rule; content-block prompts",
    start: "2025-10-21T09:00:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.userBlocks(
        ["Add a `tips` table: delivery_id, amount_cents, currency. And a changeset."],
        N("request"),
      );
      s.tools(
        write(
          `${P.phx}/priv/repo/migrations/20251021090500_create_tips.exs`,
          "defmodule CourierHub.Repo.Migrations.CreateTips do\n  use Ecto.Migration\n\n  def change do\n    create table(:tips) do\n      add :delivery_id, references(:deliveries, on_delete: :delete_all), null: false\n      add :amount_cents, :integer, null: false\n      add :currency, :string, size: 3, null: false\n      timestamps()\n    end\n  end\nend",
        ),
      );
      chores(s, "phx", 2);
      s.say("Migration and `CourierHub.Tips.Tip` changeset added.");
      s.compact(
        "1. The user (Nadia) works on courier_hub, a Phoenix service. Dispatch flows use Oban jobs, not Ecto.Multi. Tests use Postgres on port 5433.\n2. A `tips` table and its changeset were added (migration 20251021090500).\n3. Pending: backfill tips from the legacy `payments.extra` JSON column.",
      );
      s.userBlocks(
        [
          "The backfill: write it as a migration with execute/2 please.",
          "And from now on every migration must be reversible. If you use execute, give also the down SQL, no `change` with only one direction. Our rollback in deploy depends on it.",
        ],
        N("request"),
        D(
          "rule",
          "project",
          "Every courier_hub migration must be reversible: with execute, give the down SQL too; the deploy rollback depends on it",
        ),
      );
      s.tools(
        write(
          `${P.phx}/priv/repo/migrations/20251021101200_backfill_tips.exs`,
          "defmodule CourierHub.Repo.Migrations.BackfillTips do\n  use Ecto.Migration\n\n  def up do\n    execute \"INSERT INTO tips (delivery_id, amount_cents, currency, inserted_at, updated_at) SELECT delivery_id, (extra->>'tip_cents')::int, 'EUR', now(), now() FROM payments WHERE extra ? 'tip_cents'\"\n  end\n\n  def down do\n    execute \"DELETE FROM tips\"\n  end\nend",
        ),
        bash(
          "MIX_ENV=test mix ecto.rollback --step 1 && MIX_ENV=test mix ecto.migrate",
          "[info] == Running 20251021101200 CourierHub.Repo.Migrations.BackfillTips.down/0 forward\n[info] == Migrated 20251021101200 in 0.0s\n[info] == Running 20251021101200 CourierHub.Repo.Migrations.BackfillTips.up/0 forward\n[info] == Migrated 20251021101200 in 0.0s",
        ),
      );
      s.say("The backfill has `up` and `down`; rollback and migrate both run.");
      s.user("Is the currency always EUR in the legacy data?", N("question"));
      s.say("In the 3,140 rows with `tip_cents`, yes: the legacy app only handled EUR.");
      s.user("Good. Commit.", N("request"));
    },
  },
];

const DS: Script[] = [
  {
    id: "q13-ds-pasted-traceback",
    cwd: P.ds,
    style:
      "a long pasted traceback and data frame with a path fact stated in passing; the pasted text holds rule-like words",
    start: "2025-11-02T10:12:00.000Z",
    version: "2.0.31",
    model: "claude-opus-4-1-20250805",
    run: (s) => {
      s.user(
        'getting this when I run 03_model.ipynb cell 4:\n\n```\n---------------------------------------------------------------------------\nColumnNotFoundError                       Traceback (most recent call last)\nCell In[4], line 3\n      1 feats = pl.read_parquet(FEATURES)\n----> 3 X = feats.select(NUMERIC + ["tenure_days"])\n\nColumnNotFoundError: tenure_days\n\nHint: the column must always exist in the input frame; never rename it after a select.\n```\n\nfeats.head() gives\n\n```\nshape: (5, 14)\n┌──────────┬────────────┬──────────┬───────┐\n│ user_id  ┆ plan       ┆ mrr      ┆ seats │\n╞══════════╪════════════╪══════════╪═══════╡\n│ u_000193 ┆ team       ┆ 120.0    ┆ 8     │\n│ u_000201 ┆ pro        ┆ 29.0     ┆ 1     │\n└──────────┴────────────┴──────────┴───────┘\n```\n\nFEATURES points at /data/churn/features/v2. oh wait, fyi the current feature set is v3, under /data/churn/features/v3 — v2 is deprecated and missing tenure, that\'s probably it',
        N("request"),
        D(
          "fact",
          "project",
          "The current churn-analysis feature set is v3 under /data/churn/features/v3; v2 is deprecated",
        ),
        N("hypothesis"),
      );
      s.tools(
        grep("features/v2", [
          "notebooks/03_model.ipynb",
          "notebooks/04_eval.ipynb",
          "src/churn/paths.py",
        ]),
      );
      s.say(
        "Three places still point at v2. I'll switch `src/churn/paths.py` to v3 and make the notebooks import `FEATURES` from there.",
      );
      s.user(
        "yes. notebooks shouldn't hardcode paths at all, import them from src/churn/paths.py always",
        D(
          "rule",
          "project",
          "churn-analysis notebooks import data paths from src/churn/paths.py, never hardcode them",
        ),
      );
      s.tools(
        edit(
          `${P.ds}/src/churn/paths.py`,
          'FEATURES = DATA / "features" / "v2"',
          'FEATURES = DATA / "features" / "v3"',
        ),
      );
      chores(s, "ds", 1, 2);
      s.say("Cell 4 runs; `tenure_days` is there in v3.");
      s.user("nice, thx", N("request"));
    },
  },
  {
    id: "q14-ds-global-prefs",
    cwd: P.ds,
    style:
      "personal preferences that hold everywhere (global) next to project preferences; plot conventions; a question with 'prefer'",
    start: "2025-11-03T15:30:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "two things about how I like to work, for every project not just this one: keep your answers short, bullet points are fine, I read them on my phone a lot. and don't explain basic pandas/polars stuff to me, I've been doing this for 8 years",
        D(
          "preference",
          "global",
          "Keep answers short (bullet points are fine); Fatima often reads on her phone",
        ),
        D(
          "preference",
          "global",
          "Don't explain basic pandas/polars usage to Fatima; she is experienced",
        ),
      );
      s.say("Got it.");
      s.user(
        "in this repo I prefer polars over pandas for anything new. the old pandas code can stay",
        D(
          "preference",
          "project",
          "Use polars rather than pandas for new code in churn-analysis; old pandas code can stay",
        ),
      );
      s.say("OK.");
      s.user("make a plot of monthly churn by plan for the last 18 months", N("request"));
      s.tools(
        write(
          `${P.ds}/src/churn/plots.py`,
          'import matplotlib.pyplot as plt\nimport seaborn as sns\n\n\ndef churn_by_plan(df):\n    ax = sns.lineplot(df.to_pandas(), x="month", y="churn_rate", hue="plan")\n    return ax',
        ),
      );
      s.say("- `churn_by_plan()` in src/churn/plots.py\n- line per plan, 18 months");
      s.user(
        'axes need units, always — "churn rate (%)", "month". and use the seaborn colorblind palette for every chart in this repo, two people on the team are colorblind',
        D(
          "rule",
          "project",
          "churn-analysis charts label their axes with units and use the seaborn 'colorblind' palette (two teammates are colorblind)",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.ds}/src/churn/plots.py`,
          'ax = sns.lineplot(df.to_pandas(), x="month", y="churn_rate", hue="plan")',
          'ax = sns.lineplot(df.to_pandas(), x="month", y="churn_rate", hue="plan", palette="colorblind")\n    ax.set(xlabel="month", ylabel="churn rate (%)")',
        ),
      );
      s.say("- palette colorblind\n- axis labels with units");
      s.user("would you prefer a bar chart here?", N("question"));
      s.say("- line is better for 18 points per plan\n- bars if you only compare the last quarter");
    },
  },
  {
    id: "q15-ds-hypotheses-nbstripout",
    cwd: P.ds,
    style:
      "many hypotheses and observations with 'always'; a rule about notebook outputs with the tool that enforces it",
    start: "2025-11-05T09:05:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user("churn jumped in march. why?", N("question"));
      chores(s, "ds", 1, 1);
      s.say(
        "Churn in March 2025 is 6.1% vs 3.8% on average; the increase is almost all in the `pro` plan.",
      );
      s.user("maybe it's the price change? pro went from 24 to 29 on march 1", N("hypothesis"));
      s.say(
        "The timing fits. Annual `pro` customers didn't churn more, which also fits a price effect on monthly renewals.",
        N("hypothesis"),
      );
      s.user("it always dips in august too, I bet that's the school holidays", N("hypothesis"));
      s.say("August is lower in 2023 and 2024 but the effect is within noise for 2024.");
      s.user(
        "ok. write this up in 05_march_churn.ipynb. and don't commit notebooks with outputs, we strip them with nbstripout, it runs in pre-commit so just make sure pre-commit is installed",
        N("request"),
        D(
          "rule",
          "project",
          "Don't commit churn-analysis notebooks with outputs; nbstripout strips them in the pre-commit hook",
        ),
      );
      s.tools(
        bash(
          "pre-commit install && pre-commit run nbstripout --files notebooks/05_march_churn.ipynb",
          "pre-commit installed at .git/hooks/pre-commit\nnbstripout...............................................................Passed",
        ),
      );
      s.say("Notebook written and stripped.");
      s.user("could it also be the new onboarding flow that went live in feb?", N("hypothesis"));
      s.say(
        "Possibly; accounts created after Feb 10 churn at 4.0%, close to the average, so it doesn't explain much.",
        N("hypothesis"),
      );
      s.user("ok, good enough for the meeting", N("request"));
    },
  },
  {
    id: "q16-ds-openai-private",
    cwd: P.ds,
    style:
      "an OpenAI key given 'just for today' (not durable), a private block with customer names, a rule about where API keys go",
    start: "2025-11-07T13:40:00.000Z",
    version: "2.0.33",
    run: (s) => {
      const key = s.secret("openai");
      s.userS(
        `I want to try embeddings of the support tickets as churn features. use my key ${key} just for today, I'll revoke it tonight`,
        [key],
        N("secret"),
        N("one-off"),
      );
      s.say(
        "I'd rather not put the key in a file. Can you export it as `OPENAI_API_KEY` in your shell? The script will read it from there.",
      );
      s.user(
        "fair. actually yes, rule for this repo: API keys only come from env vars loaded by direnv (.envrc, which is gitignored), never in notebooks or config files",
        D(
          "rule",
          "project",
          "churn-analysis API keys come only from environment variables loaded by direnv (.envrc, gitignored), never from notebooks or config files",
        ),
      );
      s.tools(
        write(
          `${P.ds}/src/churn/embed.py`,
          'import os\nfrom openai import OpenAI\n\nclient = OpenAI(api_key=os.environ["OPENAI_API_KEY"])\n\n\ndef embed(texts: list[str]) -> list[list[float]]:\n    resp = client.embeddings.create(model="text-embedding-3-small", input=texts)\n    return [d.embedding for d in resp.data]',
        ),
      );
      s.say("`embed()` reads `OPENAI_API_KEY` from the environment.");
      s.user(
        "test it on a few tickets. the biggest complainers were <private>Hollis & Brandt GmbH and Ravensworth Logistics</private>, start with theirs",
        N("private"),
        N("request"),
      );
      s.tools(bash("python -m churn.embed --sample 20", "embedded 20 tickets, dim=1536, 0.8s"));
      s.say("20 tickets embedded (1536 dims).");
    },
  },
];

const WP: Script[] = [
  {
    id: "q17-wp-bullet-conventions",
    cwd: P.wp,
    style:
      "conventions as a numbered list before a task; a decision with its reason; a one-off 'for this release'",
    start: "2025-08-26T12:00:00.000Z",
    version: "1.0.88",
    model: "claude-sonnet-4-20250514",
    run: (s) => {
      s.user(
        "Before we start, some house rules for this plugin:\n1. every function, hook, option and shortcode is prefixed `wcgr_` (classes `WCGR_`)\n2. escape late: esc_html / esc_attr / wp_kses_post right at the echo, not when you build the variable\n3. we support PHP 7.4 and up. Yes it's old, but about half of our customers are on cheap shared hosting that's stuck on 7.4, so no enums, no readonly props, no match\n\nTask: add a \"mark as purchased\" button on registry items for the registry owner.",
        D(
          "rule",
          "project",
          "Prefix every function, hook, option and shortcode of wc-gift-registry with wcgr_ (classes WCGR_)",
        ),
        D(
          "rule",
          "project",
          "wc-gift-registry escapes output late, at the echo (esc_html/esc_attr/wp_kses_post), not when building variables",
        ),
        D(
          "decision",
          "project",
          "wc-gift-registry supports PHP 7.4+ because about half its customers are on shared hosting stuck on 7.4: no enums, readonly properties or match",
        ),
        N("request"),
      );
      chores(s, "wp", 1, 1);
      s.tools(
        edit(
          `${P.wp}/templates/registry-item.php`,
          "<span class=\"wcgr-qty\"><?php echo esc_html( $item['qty'] ); ?></span>",
          "<span class=\"wcgr-qty\"><?php echo esc_html( $item['qty'] ); ?></span>\n<?php if ( wcgr_is_owner( $registry ) ) : ?>\n\t<button class=\"wcgr-mark\" data-item=\"<?php echo esc_attr( $item['id'] ); ?>\"><?php esc_html_e( 'Mark as purchased', 'wc-gift-registry' ); ?></button>\n<?php endif; ?>",
        ),
      );
      s.say(
        "Added the button for owners, with an AJAX action `wcgr_mark_purchased` guarded by a nonce.",
      );
      chores(s, "wp", 2);
      s.user(
        "for this release skip the readme.txt changelog, I'll write it myself later",
        HN("one-off"),
      );
      s.say("OK, no readme.txt changes.");
      s.user("bump the version to 2.3.0 in the main plugin file", N("request"));
      s.tools(edit(`${P.wp}/wc-gift-registry.php`, " * Version: 2.2.4", " * Version: 2.3.0"));
      s.say("Bumped to 2.3.0.");
    },
  },
  {
    id: "q18-wp-stripe-pasted",
    cwd: P.wp,
    style:
      "a live Stripe key pasted by mistake (not durable); a rule about card data; a question with 'always'",
    start: "2025-08-28T16:25:00.000Z",
    version: "1.0.88",
    run: (s) => {
      const key = s.secret("stripe");
      s.userS(
        `guests want to chip in money towards expensive items. can you prototype it? test with this key ${key}\n\nwait no that's the live one, ignore it`,
        [key],
        N("request"),
        N("secret"),
      );
      s.say(
        "Ignored. Before I prototype: should contributions go through a Stripe call of our own, or through a WooCommerce order?",
      );
      s.user(
        "through woo. the plugin never touches card data or payment APIs itself, everything goes through WooCommerce's checkout and whatever gateway the shop has. that's a hard rule, PCI",
        D(
          "rule",
          "project",
          "wc-gift-registry never handles card data or calls payment APIs itself; payments go through WooCommerce checkout and the shop's gateway (PCI)",
        ),
      );
      s.say(
        'Then a contribution is a virtual "contribution" product added to the cart with a custom price, linked to the registry item.',
      );
      s.user("do we always need a nonce on the add-to-cart ajax?", HN("question"));
      s.say(
        "For any state-changing admin-ajax action, yes; WooCommerce's own `add_to_cart` endpoint checks none, so we'd add `check_ajax_referer` in ours.",
      );
      s.user("ok go", N("request"));
      chores(s, "wp", 1, 2);
      s.say("Prototype in `includes/class-wcgr-contributions.php`; 8 new tests pass.");
    },
  },
  {
    id: "q19-wp-questions-never-mind",
    cwd: P.wp,
    style: "questions and one-offs; 'never mind'; a request with 'always' for one template",
    start: "2025-09-03T09:10:00.000Z",
    version: "1.0.98",
    run: (s) => {
      s.user("where do we load the text domain?", N("question"));
      s.tools(grep("load_plugin_textdomain", ["wc-gift-registry.php"]));
      s.say("In `wc-gift-registry.php` on `init`.");
      s.user("is there a .pot file already or do we need to generate it?", N("question"));
      s.say("`languages/wc-gift-registry.pot` exists but is from 2.1.0.");
      s.user("regenerate it with wp i18n make-pot", N("request"));
      s.tools(
        bash(
          "wp i18n make-pot . languages/wc-gift-registry.pot --exclude=vendor,node_modules",
          "Plugin file detected.\nSuccess: POT file successfully generated.",
        ),
      );
      s.say("Regenerated: 214 strings.");
      s.user(
        "never mind the german translation thing I mentioned yesterday, we don't need it after all",
        HN("request"),
      );
      s.say("OK.");
      s.user(
        "in the registry list template, make the owner's name always show above the title, even if it's empty show a dash",
        HN("request"),
      );
      s.tools(
        edit(
          `${P.wp}/templates/registry-list.php`,
          "<h2><?php echo esc_html( $r->title ); ?></h2>",
          "<p class=\"wcgr-owner\"><?php echo esc_html( $r->owner_name ?: '–' ); ?></p>\n<h2><?php echo esc_html( $r->title ); ?></h2>",
        ),
      );
      s.say("Done.");
      s.user("why does phpcs not complain about the short ternary?", N("question"));
      s.say("phpcs.xml.dist excludes `Universal.Operators.DisallowShortTernary`.");
    },
  },
  {
    id: "q20-wp-stored-woo-version",
    cwd: P.wp,
    style:
      "stored memories: a support floor raised (contradiction), a build rule restated (duplicate), with a reason",
    start: "2025-09-10T10:45:00.000Z",
    version: "2.0.5",
    stored: [
      "wc-gift-registry supports WooCommerce 7.0 and newer",
      "wc-gift-registry release zips are built with `composer run build-zip`",
    ],
    run: (s) => {
      s.user(
        "we're dropping woo 7 support with 2.4, the minimum is 8.2 now (HPOS compat is too painful otherwise). update the WC requires header and remove the pre-8.2 branches",
        D(
          "fact",
          "project",
          "wc-gift-registry supports WooCommerce 8.2 and newer (from 2.4; HPOS compatibility)",
          {
            contra: "wc-gift-registry supports WooCommerce 7.0 and newer",
          },
        ),
        N("request"),
      );
      s.tools(
        grep("version_compare\\( WC_VERSION", [
          "includes/class-wcgr-orders.php",
          "includes/compat.php",
        ]),
        edit(
          `${P.wp}/wc-gift-registry.php`,
          " * WC requires at least: 7.0",
          " * WC requires at least: 8.2",
        ),
      );
      s.say("Header updated; two `version_compare( WC_VERSION, '8.0', '<' )` branches removed.");
      chores(s, "wp", 1, 2);
      s.user(
        "and build the zip. reminder: the zip always comes from composer run build-zip, never zip the folder by hand, it drags in vendor dev deps",
        N("request"),
        D(
          "rule",
          "project",
          "wc-gift-registry release zips are built with `composer run build-zip`",
          {
            dup: "wc-gift-registry release zips are built with `composer run build-zip`",
          },
        ),
      );
      s.tools(
        bash(
          "composer run build-zip",
          "> bin/build-zip.sh\nbuilding wc-gift-registry 2.4.0 …\ncreated dist/wc-gift-registry-2.4.0.zip (412 KB)",
        ),
      );
      s.say("dist/wc-gift-registry-2.4.0.zip built.");
    },
  },
];

const UNITY: Script[] = [
  {
    id: "q21-unity-asides",
    cwd: P.unity,
    style:
      "rules as asides in the middle of requests, parentheses and dashes; an owner fact; a bug report with 'always'",
    start: "2025-10-01T19:20:00.000Z",
    version: "2.0.14",
    run: (s) => {
      s.user(
        "the player always falls through the floor after respawning on the bridge level. can you look at Respawn.cs (and fyi we're pinned to 2022.3 LTS, don't let anything upgrade the editor or the packages to 6000.x)",
        HN("request"),
        D(
          "rule",
          "project",
          "LanternKeep is pinned to Unity 2022.3 LTS; don't upgrade the editor or packages to 6000.x",
        ),
      );
      chores(s, "unity", 1);
      s.tools(
        read(
          `${P.unity}/Assets/Scripts/World/Respawn.cs`,
          "public void RespawnPlayer()\n{\n    player.transform.position = checkpoint.position;\n    player.GetComponent<Rigidbody>().velocity = Vector3.zero;\n}",
        ),
      );
      s.say(
        "`RespawnPlayer` sets `transform.position` directly on a non-kinematic Rigidbody, and it runs from `Update`; the physics step can then resolve the player below the collider.",
        N("hypothesis"),
      );
      s.user(
        "makes sense. move it into FixedUpdate — physics code goes in FixedUpdate in this project, period — and use Rigidbody.position",
        N("request"),
        D(
          "rule",
          "project",
          "LanternKeep physics code goes in FixedUpdate and moves bodies through the Rigidbody, not the Transform",
        ),
      );
      s.tools(
        edit(
          `${P.unity}/Assets/Scripts/World/Respawn.cs`,
          "player.transform.position = checkpoint.position;",
          "pendingRespawn = true; // applied in FixedUpdate via Rigidbody.position",
        ),
      );
      chores(s, "unity", 1, 1);
      s.say(
        "Respawn is now applied in `FixedUpdate` through `Rigidbody.position`; EditMode tests pass.",
      );
      s.user(
        "cool. can you also add a test for it? Mira owns the level streaming code btw so if the fix touches LevelStreamer ping her first",
        N("request"),
        D(
          "fact",
          "project",
          "Mira owns LanternKeep's level streaming code (LevelStreamer); ask her before changing it",
        ),
      );
      s.say(
        "The fix doesn't touch LevelStreamer. I'll add a PlayMode test that respawns 100 times and checks the player's y.",
      );
    },
  },
  {
    id: "q22-unity-angry-scene-yaml",
    cwd: P.unity,
    style: "angry correction after the agent edits a scene file as text; the rule has its reason",
    start: "2025-10-03T21:45:00.000Z",
    version: "2.0.14",
    run: (s) => {
      s.user("the lantern on the title screen should glow a bit more", N("request"));
      s.tools(
        edit(
          `${P.unity}/Assets/Scenes/Title.unity`,
          "  m_Intensity: 1.2",
          "  m_Intensity: 2.4",
          "I'll raise the point light's intensity in the Title scene.",
        ),
      );
      s.say("Raised the lantern light's intensity from 1.2 to 2.4 in Title.unity.");
      s.user(
        "what?? don't EVER edit .unity or .prefab files as text. you have no idea what fileIDs you're breaking, last time the prefab links broke and I lost an evening. tell me what to change and I do it in the editor",
        D(
          "rule",
          "project",
          "Never edit LanternKeep .unity or .prefab files as text; say what to change and the user does it in the editor",
        ),
      );
      s.tools(bash("git checkout -- Assets/Scenes/Title.unity", ""));
      s.say(
        "Reverted. In the editor: Title scene → `Lantern/PointLight` → Intensity 2.4, and optionally Bloom threshold 0.9 → 0.8 on the global volume.",
      );
      s.user("ok did it. looks good", N("request"));
    },
  },
  {
    id: "q23-unity-lfs-rejected",
    cwd: P.unity,
    style:
      "/clear, a rejected tool call (git lfs prune) then an interrupt; the rule comes right after the rejection",
    start: "2025-10-06T18:00:00.000Z",
    version: "2.0.21",
    run: (s) => {
      s.command("clear");
      s.user("my disk is full, the repo is 60GB. help", N("request"));
      s.tools(bash("du -sh .git/lfs Library", "41G\t.git/lfs\n14G\tLibrary"));
      s.say(
        "41 GB of it is the LFS cache. Pruning unreferenced LFS objects would free most of it.",
      );
      s.rejectedTool("Bash", {
        command: "git lfs prune --verify-remote",
        description: "Prune old LFS objects",
      });
      s.user(
        "no!! never lfs prune in this repo. the artists need old versions of the textures and the remote is the only other copy, if it's not verified we lose them",
        D(
          "rule",
          "project",
          "Never run `git lfs prune` in LanternKeep: artists need old texture versions",
        ),
      );
      s.say(
        "Understood. The `Library` folder (14 GB) is a cache Unity rebuilds; deleting it is safe, it only costs a reimport.",
      );
      s.user("ok delete Library", N("request"));
      s.tools(
        bash(
          "rm -rf Library && df -h . | tail -1",
          "/dev/disk3s5  460Gi  402Gi   58Gi    88%    /System/Volumes/Data",
        ),
      );
      s.say("Freed 14 GB; 58 GB free now.");
      s.user("how long does the reimport take usually?", N("question"));
      s.say("For 4,000 assets on an M-series Mac, typically 10–20 minutes.");
      s.interrupt();
      s.user("nvm I'll just start it and go eat", N("request"));
    },
  },
  {
    id: "q24-unity-hard-negatives",
    cwd: P.unity,
    style:
      "hard negatives: 'never' in a request for one level, complaints with 'always', a rule quoted from a Unity blog post, a confirmed agent note",
    start: "2025-10-08T20:10:00.000Z",
    version: "2.0.21",
    run: (s) => {
      s.user("make enemies never spawn inside walls on the crypt level", HN("request"));
      chores(s, "unity", 1);
      s.say(
        "Spawns now sample the NavMesh with `NavMesh.SamplePosition` within 1 m; points off the mesh are skipped.",
      );
      s.user(
        "unity always recompiles for ages when I switch branches, is that normal?",
        HN("question"),
      );
      s.say(
        "With 180 scripts in one assembly, yes. Splitting gameplay code into asmdefs would limit recompiles to changed assemblies.",
      );
      s.user(
        'I read on a blog "never use GetComponent in Update, always cache it in Awake". do we do that anywhere?',
        HN("question"),
      );
      s.tools(
        grep("GetComponent<", ["Assets/Scripts/Enemies/Ghoul.cs", "Assets/Scripts/UI/Hud.cs"]),
      );
      s.say(
        "`Ghoul.Update` calls `GetComponent<Animator>()` every frame, and so does `Hud.Update`. Note that all gameplay code is in the default Assembly-CSharp; there are no asmdefs.",
      );
      s.confirm(
        "yes that's right, no asmdefs yet, and let's keep it in one assembly until the vertical slice ships, splitting now would break the artists' editor tools",
        "decision",
        "project",
        "LanternKeep keeps all gameplay code in the single default assembly (no asmdefs) until the vertical slice ships, so the artists' editor tools keep working",
      );
      s.say("OK. I'll cache the two `GetComponent` calls in `Awake`.");
      s.user("yep do that", N("request"));
    },
  },
];

const HS: Script[] = [
  {
    id: "q25-haskell-conventions",
    cwd: P.hs,
    style:
      "terse rules with reasons; a correction after the agent calls `error`; lowercase, no punctuation",
    start: "2025-11-10T22:05:00.000Z",
    version: "2.0.33",
    model: "claude-opus-4-1-20250805",
    run: (s) => {
      s.user("add let-polymorphism to the inferencer. start with the tests", N("request"));
      chores(s, "hs", 1, 1);
      s.tools(
        edit(
          `${P.hs}/src/Typecheck/Infer.hs`,
          "infer env (ELet x e1 e2) = undefined",
          'infer env (ELet x e1 e2) = do\n  (s1, t1) <- infer env e1\n  let sc = generalize (apply s1 env) t1\n  (s2, t2) <- infer (extend x sc (apply s1 env)) e2\n  pure (s2 `compose` s1, t2)\ninfer _ (EVar x) | x `notElem` builtins = error ("unbound variable " <> x)',
        ),
      );
      s.say("Let-generalization added; unbound variables raise an error.");
      s.user(
        "no `error` in the typechecker. every failure is a Diagnostic thrown with throwDiag, with a source span, otherwise the LSP shows nothing",
        D(
          "rule",
          "project",
          "No `error` calls in minicaml-hs's typechecker: every failure is a Diagnostic with a source span thrown with throwDiag (the LSP relies on it)",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.hs}/src/Typecheck/Infer.hs`,
          'infer _ (EVar x) | x `notElem` builtins = error ("unbound variable " <> x)',
          "infer _ (EVar x) | x `notElem` builtins = throwDiag (UnboundVariable (spanOf x) x)",
        ),
      );
      s.say("Replaced with `throwDiag (UnboundVariable …)`.");
      s.user(
        "also no TemplateHaskell. not for lenses not for anything, it doubles the build time. GHC2021 + the extensions already in the cabal file, ask before adding one",
        D("rule", "project", "No TemplateHaskell in minicaml-hs (it doubles build times)"),
        D(
          "rule",
          "project",
          "minicaml-hs uses GHC2021 with the extensions listed in the cabal file; ask before adding a language extension",
        ),
      );
      s.say(
        "Noted; I was about to use `makeLenses` for `Env`, I'll write the two accessors by hand.",
      );
      chores(s, "hs", 2, 1);
      s.user("tests green?", N("question"));
      s.say("Yes, 212 examples, 0 failures.");
    },
  },
  {
    id: "q26-haskell-confirmed-golden",
    cwd: P.hs,
    style:
      "the agent describes how golden files are regenerated and the user confirms it; a hypothesis about a failing golden",
    start: "2025-11-11T21:30:00.000Z",
    version: "2.0.33",
    run: (s) => {
      s.user("golden test for the pretty printer fails after your change yesterday", N("request"));
      s.tools(
        bashErr(
          "cabal test --test-options='-m Pretty'",
          "Pretty\n  golden/pretty/let_poly.ml FAILED [1]\n\nFailures:\n  test/Golden.hs:41:7:\n  1) Pretty golden/pretty/let_poly.ml\n       expected: let id : 'a -> 'a = fun x -> x\n        but got: let id : forall a. a -> a = fun x -> x",
        ),
      );
      s.say(
        "The printer now shows the generalized scheme with `forall`. The golden tests are hspec tests under test/golden, and the expected files are regenerated with `cabal test --test-options=--accept`, then reviewed in the diff.",
      );
      const by = s.confirm(
        "yes that's the workflow, accept then review the diff. but here the old output was right, we print schemes OCaml style",
        "fact",
        "project",
        "minicaml-hs golden tests live under test/golden; regenerate expected files with `cabal test --test-options=--accept`, then review the diff",
      );
      s.labels.durable.push({
        uuid: by,
        text: "minicaml-hs prints type schemes OCaml-style ('a, 'b), without forall",
        kind: "rule",
        scope: "project",
      });
      s.say("Then I'll print `Forall` with `'a` variables and no quantifier.");
      s.user(
        "probably the bug is that prettyScheme doesn't rename the tyvars back to 'a 'b?",
        N("hypothesis"),
      );
      s.tools(
        read(
          `${P.hs}/src/Pretty.hs`,
          'prettyScheme :: Scheme -> Doc\nprettyScheme (Forall vs t) = "forall" <+> hsep (map pretty vs) <> "." <+> prettyType t',
        ),
      );
      s.say(
        "Yes: it prints the quantifier and the raw variable names. I'll rename to `'a`, `'b`… in order of appearance.",
      );
      chores(s, "hs", 1, 2);
    },
  },
  {
    id: "q27-haskell-quoted-paper",
    cwd: P.hs,
    style:
      "a rule quoted from a paper, a 'don't' for this PR only, hypotheses about the occurs check",
    start: "2025-11-13T23:10:00.000Z",
    version: "2.0.33",
    run: (s) => {
      s.user(
        'the OutsideIn(X) paper says "let should not be generalised" — do we generalize local lets? we do, right',
        HN("question"),
      );
      s.say("Yes: `ELet` generalizes at every level, local or not.");
      s.user(
        "don't change that in this PR, we'll talk about MonoLocalBinds-style stuff later",
        HN("one-off"),
      );
      s.say("OK.");
      s.user(
        "`let rec f x = f` typechecks, that's wrong. maybe the occurs check is missing in bind?",
        N("hypothesis"),
      );
      s.tools(
        read(
          `${P.hs}/src/Typecheck/Unify.hs`,
          "bind :: TVar -> Type -> Infer Subst\nbind v t\n  | t == TVar v = pure nullSubst\n  | otherwise = pure (Map.singleton v t)",
        ),
      );
      s.say("Right, `bind` never checks whether `v` occurs in `t`.");
      s.user("add it, with a test that `let rec f x = f` fails with InfiniteType", N("request"));
      s.tools(
        edit(
          `${P.hs}/src/Typecheck/Unify.hs`,
          "  | otherwise = pure (Map.singleton v t)",
          "  | v `Set.member` ftv t = throwDiag (InfiniteType v t)\n  | otherwise = pure (Map.singleton v t)",
        ),
      );
      chores(s, "hs", 1, 2);
      s.say("Occurs check added; the new test passes.");
      s.user("it never occurred to me that we didn't have that lol", HN("request"));
    },
  },
  {
    id: "q28-haskell-global-commits",
    cwd: P.hs,
    style:
      "global preferences about commits and comments in content blocks; one is a repeat of a stored memory",
    start: "2025-11-15T20:00:00.000Z",
    version: "2.0.37",
    stored: ["Yuki wants commit subjects in the imperative mood"],
    run: (s) => {
      s.userBlocks(
        [
          "commit what we have",
          'general thing, for all my repos: commit subjects imperative mood ("Add occurs check", not "Added"), under 60 chars, body only if the why isn\'t obvious',
        ],
        N("request"),
        D("preference", "global", "Yuki wants commit subjects in the imperative mood", {
          dup: "Yuki wants commit subjects in the imperative mood",
        }),
        D(
          "preference",
          "global",
          "Commit subjects under 60 characters, with a body only when the reason isn't obvious",
        ),
      );
      s.tools(
        bash(
          "git add -A && git commit -m 'Add occurs check to unification'",
          "[main 4be1c07] Add occurs check to unification\n 3 files changed, 41 insertions(+), 3 deletions(-)",
        ),
      );
      s.say("Committed `Add occurs check to unification`.");
      s.userBlocks(
        ["and don't write comments that just restate the code, anywhere, ever. `-- increment counter` above `n + 1` makes me sad"],
        D("preference", "global", "Don't write code comments that only restate the code"),
      );
      s.say("Understood. I'll remove the two in Unify.hs if you like.");
      s.user("yes", N("request"));
      s.tools(
        edit(
          `${P.hs}/src/Typecheck/Unify.hs`,
          "-- compose the substitutions\n  pure (s2 `compose` s1)",
          "pure (s2 `compose` s1)",
        ),
      );
      s.say("Removed.");
    },
  },
];

const SNAKE: Script[] = [
  {
    id: "q29-snake-facts-in-passing",
    cwd: P.snake,
    style:
      "setup facts stated in passing inside questions and requests (reference genome, cluster profile, scratch purge)",
    start: "2025-09-29T08:45:00.000Z",
    version: "2.0.10",
    run: (s) => {
      s.user(
        "can you add a salmon quant rule next to STAR? the reference is GRCh38 with GENCODE v44 annotation, everything's under /ref/gencode44 on the cluster. which index params would you use?",
        N("request"),
        N("question"),
        D(
          "fact",
          "project",
          "rnaseq-snake's reference is GRCh38 with GENCODE v44 annotation, under /ref/gencode44 on the cluster",
        ),
      );
      chores(s, "snake", 1, 1);
      s.say(
        "A decoy-aware index (`salmon index -t gentrome.fa.gz -d decoys.txt -k 31`) built once as its own rule, then `salmon quant --validateMappings` per sample.",
      );
      s.user(
        "ok. we run everything through the slurm profile in profiles/slurm, so set resources in the rule and let the profile map them, not sbatch flags in shell commands",
        D(
          "rule",
          "project",
          "rnaseq-snake runs through the Slurm profile in profiles/slurm: set resources in rules, never sbatch flags in shell commands",
        ),
        N("request"),
      );
      s.tools(
        write(
          `${P.snake}/workflow/rules/quant.smk`,
          'rule salmon_quant:\n    input:\n        r1="results/trimmed/{sample}_R1.fq.gz",\n        r2="results/trimmed/{sample}_R2.fq.gz",\n        index="resources/salmon_index",\n    output:\n        "results/salmon/{sample}/quant.sf",\n    threads: 8\n    resources:\n        mem_mb=16000,\n        runtime=120,\n    conda:\n        "../envs/salmon.yaml"\n    shell:\n        "salmon quant -i {input.index} -l A -1 {input.r1} -2 {input.r2} --validateMappings -p {threads} -o results/salmon/{wildcards.sample}"',
        ),
      );
      chores(s, "snake", 1, 2);
      s.say("Rule added; lint passes.");
      s.user(
        "where should results go so they survive? scratch gets purged after 30 days here, so final outputs have to be copied to /project/okafor_lab/rnaseq, right?",
        N("question"),
        D(
          "fact",
          "project",
          "/scratch is purged after 30 days on the cluster; rnaseq-snake's final outputs are kept in /project/okafor_lab/rnaseq",
        ),
      );
      s.say(
        "Yes; I can add a `publish` rule that copies `results/salmon/*/quant.sf` and the MultiQC report there.",
      );
      s.user("yes please", N("request"));
    },
  },
  {
    id: "q30-snake-slack-webhook",
    cwd: P.snake,
    style:
      "a Slack webhook inside a durable setup statement (contains_secret); a one-off on cores; status reports with 'never'",
    start: "2025-10-02T07:30:00.000Z",
    version: "2.0.14",
    run: (s) => {
      const hook = s.secret("slackWebhook");
      s.userS(
        `failed runs should ping the lab. we have an onerror handler that posts to #rnaseq-alerts through the webhook ${hook} (it's in config/notify.yaml). can you wire it up in the Snakefile?`,
        [hook],
        D(
          "fact",
          "project",
          "Failed rnaseq-snake runs post to #rnaseq-alerts through the Slack webhook configured in config/notify.yaml",
          { secret: true },
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.snake}/workflow/Snakefile`,
          'configfile: "config/config.yaml"',
          'configfile: "config/config.yaml"\nconfigfile: "config/notify.yaml"\n\nonerror:\n    shell("python workflow/scripts/notify.py --log {log} --webhook-from config/notify.yaml")',
        ),
      );
      s.say(
        "`onerror` now calls notify.py, which reads the webhook from config/notify.yaml. Is that file gitignored?",
      );
      s.user(
        "yes it is. just this time run locally with --cores 4, the queue is packed",
        HN("one-off"),
      );
      s.tools(
        bash(
          "snakemake --cores 4 --use-conda results/salmon/S01/quant.sf",
          "Building DAG of jobs...\n...\nFinished job 0.\n6 of 6 steps (100%) done",
        ),
      );
      s.say("S01 quantified locally.");
      s.user(
        "multiqc never finishes on the login node, it just hangs at 'searching'",
        HN("request"),
      );
      s.say(
        "It's scanning `.snakemake/conda` too. Passing `--ignore .snakemake` fixes that.",
        N("hypothesis"),
      );
      s.user("add the ignore", N("request"));
      chores(s, "snake", 1, 2);
    },
  },
  {
    id: "q31-snake-decision-star",
    cwd: P.snake,
    style:
      "a decision with its reason in a chatty explanation; a rule about conda envs; a question where 'always' is about the tool",
    start: "2025-10-09T12:20:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "a new student asked why we don't use HISAT2, it's faster. for the record: we decided on STAR because its splice-junction calls were clearly better on our long-insert libraries in the 2024 benchmark, and speed doesn't matter much on the cluster. so STAR stays the aligner. could you put a short note about that in docs/decisions.md?",
        D(
          "decision",
          "project",
          "rnaseq-snake uses STAR, not HISAT2: better splice-junction calls on the lab's long-insert libraries (2024 benchmark); speed matters little on the cluster",
        ),
        N("request"),
      );
      s.tools(
        write(
          `${P.snake}/docs/decisions.md`,
          "# Decisions\n\n## Aligner: STAR (2024)\n\nSTAR over HISAT2: better splice-junction calls on long-insert libraries in the 2024 benchmark. Runtime is not a constraint on the cluster.\n",
        ),
      );
      s.say("Added docs/decisions.md with the aligner decision.");
      s.user(
        "thanks. while you're there: every rule gets its own pinned conda env in workflow/envs/, no shared mega-env, and no `latest`",
        D(
          "rule",
          "project",
          "Every rnaseq-snake rule has its own pinned conda env in workflow/envs/; no shared environment, no `latest` versions",
        ),
      );
      s.tools(
        grep("conda:", [
          "workflow/rules/align.smk",
          "workflow/rules/qc.smk",
          "workflow/rules/quant.smk",
          "workflow/rules/publish.smk",
        ]),
      );
      s.say(
        "`publish.smk` has no `conda:` directive; I'll add `envs/rsync.yaml` with rsync pinned to 3.2.7.",
      );
      s.user("does snakemake always recreate the env when the yaml changes?", HN("question"));
      s.say("Yes; the env's hash covers the yaml content, so any change builds a new env.");
      chores(s, "snake", 1);
    },
  },
  {
    id: "q32-snake-oneoffs-questions",
    cwd: P.snake,
    style: "short session of one-offs and questions only",
    start: "2025-10-12T16:00:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user("skip the QC rules for this run, I only need the counts", HN("one-off"));
      s.say("Running with `--omit-from fastqc`.");
      chores(s, "snake", 1);
      s.user("how many samples failed trimming?", N("question"));
      s.say("None; 24 of 24 trimmed.");
      s.user("rerun S17 with --forcerun star_align, the bam looked truncated", N("request"));
      s.tools(
        bash(
          "snakemake --forcerun star_align results/star/S17/Aligned.sortedByCoord.out.bam --profile profiles/slurm",
          "Submitted job 3 with external jobid 'Submitted batch job 7781204'.\nFinished job 3.\n1 of 1 steps (100%) done",
        ),
      );
      s.say("S17 realigned; samtools quickcheck passes.");
    },
  },
];

const EXT: Script[] = [
  {
    id: "q33-ext-mv3-permissions",
    cwd: P.ext,
    style:
      "rules with the store's reasons; ask-before rule; a request where 'always' belongs to one popup",
    start: "2025-09-08T10:10:00.000Z",
    version: "2.0.2",
    run: (s) => {
      s.user(
        "I want the popup to show how many tabs got sweeped this week. keep in mind this is Manifest V3 only, no remote code, no eval, no new Function — the web store rejects it and we already got one rejection",
        N("request"),
        D(
          "rule",
          "project",
          "tabtamer-ext is Manifest V3 only: no remote code, eval or new Function (the Chrome Web Store rejects it)",
        ),
      );
      chores(s, "ext", 1, 1);
      s.say(
        "The sweep count can be kept in `chrome.storage.local` per ISO week. That needs the `storage` permission, which isn't in manifest.json yet.",
      );
      s.user(
        "ok add storage. but in general ask me before adding any permission to manifest.json, every new one triggers a review and shows users a scary prompt",
        N("request"),
        D(
          "rule",
          "project",
          "Ask before adding any permission to tabtamer-ext's manifest.json (each one triggers a store review and a user prompt)",
        ),
      );
      s.tools(
        edit(
          `${P.ext}/manifest.json`,
          '"permissions": ["tabs", "alarms", "tabGroups"]',
          '"permissions": ["tabs", "alarms", "tabGroups", "storage"]',
        ),
        edit(
          `${P.ext}/src/background.ts`,
          "await sweepIdle(tabs);",
          "const swept = await sweepIdle(tabs);\n  await bumpWeeklyCount(swept.length);",
        ),
      );
      chores(s, "ext", 1, 2);
      s.say('Popup shows "12 tabs swept this week"; tests pass.');
      s.user("make the popup always open on the Stats tab for now, I'm testing it", HN("one-off"));
      s.say("Default tab set to Stats (marked with a TODO).");
    },
  },
  {
    id: "q34-ext-github-token-release",
    cwd: P.ext,
    style:
      "a GitHub token pasted in a request (not durable); a release process fact; the agent's unconfirmed claim",
    start: "2025-09-12T14:35:00.000Z",
    version: "2.0.5",
    run: (s) => {
      const tok = s.secret("github");
      s.userS(
        `tag 1.9.0 and push it, here's my token if you need it ${tok}`,
        [tok],
        N("request"),
        N("secret"),
      );
      s.say(
        "I won't use the token. Before tagging: the release workflow seems to upload to the Web Store on any tag, so a tag is a release.",
        N("hypothesis"),
      );
      s.user(
        "yes, a vX.Y.Z tag is a release, the workflow uploads to the store. tags are made only by the release workflow's manual dispatch though, never by hand, so don't tag. run `gh workflow run release.yml -f version=1.9.0`",
        D(
          "rule",
          "project",
          "tabtamer-ext release tags (vX.Y.Z) are created only by the release workflow's manual dispatch (`gh workflow run release.yml -f version=…`), never by hand",
        ),
        N("request"),
      );
      s.tools(
        bash(
          "gh workflow run release.yml -f version=1.9.0 && gh run list --workflow release.yml -L 1",
          "✓ Created workflow_dispatch event for release.yml at main\nSTATUS  TITLE    WORKFLOW  BRANCH  EVENT              ID          ELAPSED\n*       Release  release   main    workflow_dispatch  11822049373  4s",
        ),
      );
      s.say(
        "Release 1.9.0 dispatched. Review on the store usually takes one to three days.",
        N("agent"),
      );
      s.user("ok", N("request"));
    },
  },
  {
    id: "q35-ext-stored-pnpm-confirmed",
    cwd: P.ext,
    style:
      "a stored package-manager rule repeated in passing; a confirmed agent statement about the test setup; a contradiction of a stored fact",
    start: "2025-09-19T09:00:00.000Z",
    version: "2.0.10",
    stored: [
      "tabtamer-ext uses pnpm, not npm",
      "tabtamer-ext is published under the Chrome Web Store account of Ines",
    ],
    run: (s) => {
      s.user(
        "add webextension-polyfill so we can try a firefox build. pnpm please, like always",
        N("request"),
        D("rule", "project", "tabtamer-ext uses pnpm, not npm", {
          dup: "tabtamer-ext uses pnpm, not npm",
        }),
      );
      s.tools(
        bash(
          "pnpm add webextension-polyfill && pnpm add -D @types/webextension-polyfill",
          "Packages: +2\n++\nProgress: resolved 412, reused 410, downloaded 2, added 2, done\n\ndependencies:\n+ webextension-polyfill 0.12.0",
        ),
      );
      s.say(
        "Added. For tests: vitest runs with `jsdom` and the `chrome` global is mocked by `vitest-chrome` in `test/setup.ts`, so the polyfill needs the same mock.",
      );
      s.confirm(
        "correct, all chrome.* calls in tests go through the vitest-chrome mock, keep it that way",
        "rule",
        "project",
        "tabtamer-ext tests mock every chrome.* call with vitest-chrome (set up in test/setup.ts)",
      );
      chores(s, "ext", 1, 2);
      s.say("Tests pass with the polyfill mocked.");
      s.user(
        "btw the store listing moved to the company's publisher account \"Tabtamer Labs\" last month, I don't publish from my personal one anymore",
        D(
          "fact",
          "project",
          'tabtamer-ext is published under the company publisher account "Tabtamer Labs" on the Chrome Web Store',
          {
            contra: "tabtamer-ext is published under the Chrome Web Store account of Ines",
          },
        ),
      );
      s.say("Noted. Does the release workflow's store client ID need changing then?");
      s.user("already done", N("request"));
    },
  },
  {
    id: "q36-ext-hard-negatives",
    cwd: P.ext,
    style:
      "hard negatives: a rule quoted from Chrome docs, 'never mind', 'always' for one test, a bug that 'never' happens in Firefox",
    start: "2025-09-24T11:25:00.000Z",
    version: "2.0.14",
    run: (s) => {
      s.user(
        'the docs say "never rely on global variables in a service worker, it can be terminated at any time". is that why the sweep counter resets?',
        HN("question"),
      );
      s.tools(
        read(
          `${P.ext}/src/background.ts`,
          "let sweptThisSession = 0;\n\nchrome.alarms.onAlarm.addListener(async () => {\n  sweptThisSession += (await sweepIdle()).length;\n});",
        ),
      );
      s.say(
        "Yes, `sweptThisSession` lives in the worker's memory and is lost when Chrome stops the worker after 30 s idle.",
        N("hypothesis"),
      );
      s.user("move it to storage.session then", N("request"));
      s.tools(
        edit(
          `${P.ext}/src/background.ts`,
          "let sweptThisSession = 0;",
          'const KEY = "sweptThisSession";',
        ),
      );
      s.say("Counter moved to `chrome.storage.session`.");
      s.user(
        "in sweep.test.ts make the clock always return monday 9:00 so the test is stable",
        HN("request"),
      );
      chores(s, "ext", 1, 2);
      s.say('`vi.setSystemTime(new Date("2025-09-22T09:00:00"))` in that file\'s `beforeEach`.');
      s.user("weird, this bug never happens in firefox", HN("hypothesis"));
      s.say("Firefox's MV3 background is an event page, not a service worker; it lives longer.");
      s.user("never mind, not important. thanks", HN("request"));
    },
  },
];

const ANSIBLE: Script[] = [
  {
    id: "q37-ansible-aws-keys-vault",
    cwd: P.ansible,
    style:
      "AWS keys pasted with a rule about where credentials go (contains_secret); an owner fact",
    start: "2025-11-17T08:15:00.000Z",
    version: "2.0.37",
    run: (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `the backup role needs s3 creds: access key ${id}, secret ${sec}. put them in vault, NOT in plain group_vars — every credential in this repo goes in the group's vault.yml encrypted with ansible-vault, no exceptions`,
        [id, sec],
        N("request"),
        D(
          "rule",
          "project",
          "Every credential in ansible-fleet goes in the group's vault.yml encrypted with ansible-vault, never in plain group_vars",
          { secret: true },
        ),
      );
      s.tools(
        bash("ansible-vault edit inventories/prod/group_vars/backup/vault.yml", ""),
        edit(
          `${P.ansible}/inventories/prod/group_vars/backup/vars.yml`,
          "backup_bucket: fleet-backups-prod",
          'backup_bucket: fleet-backups-prod\nbackup_aws_access_key: "{{ vault_backup_aws_access_key }}"\nbackup_aws_secret_key: "{{ vault_backup_aws_secret_key }}"',
        ),
      );
      s.say(
        "Keys are in the backup group's vault.yml (encrypted); vars.yml references them as `vault_backup_aws_*`.",
      );
      s.user(
        "good. the backup role is Priti's by the way, she reviews any change to it",
        D("fact", "project", "Priti owns ansible-fleet's backup role and reviews any change to it"),
      );
      s.say("I'll request her review on the PR.");
      chores(s, "ansible", 1);
      s.user("lint clean?", N("question"));
      s.say("Yes, 0 failures.");
    },
  },
  {
    id: "q38-ansible-prod-runbook",
    cwd: P.ansible,
    style:
      "a senior dev's runbook: several facts and rules in a row, a schedule, a one-off limit; numbered and unnumbered",
    start: "2025-11-18T07:00:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user(
        "you'll be doing a lot of prod work with me so, the rules:\n- never run anything against inventories/prod without --check --diff first, and show me the diff before the real run\n- patching window is thursday 22:00-24:00 CET, nothing that restarts services outside it\n- prod web hosts are the `eu_west_web` group, db hosts are `eu_west_db` and we never touch db with site.yml, db has its own playbook\n\nnow: roll out the new nginx TLS config to staging",
        D(
          "rule",
          "project",
          "Never run ansible-fleet playbooks against inventories/prod without a --check --diff run first, and show the diff before the real run",
        ),
        D(
          "fact",
          "project",
          "ansible-fleet's patching window is Thursday 22:00–24:00 CET; nothing that restarts services outside it",
        ),
        D(
          "fact",
          "project",
          "ansible-fleet prod web hosts are the eu_west_web group, db hosts eu_west_db",
        ),
        D(
          "rule",
          "project",
          "Never run site.yml against the db hosts; the database has its own playbook (playbooks/db.yml)",
        ),
        N("request"),
      );
      chores(s, "ansible", 2, 1);
      s.say("Staging check shows the TLS change on both web hosts (2 changed). Apply it?");
      s.user("yes, staging only", N("request"));
      s.tools(
        bash(
          "ansible-playbook -i inventories/staging site.yml --limit web --tags nginx",
          "PLAY RECAP *********************************************************************\nweb-stg-01                 : ok=23   changed=2    unreachable=0    failed=0\nweb-stg-02                 : ok=23   changed=2    unreachable=0    failed=0",
        ),
      );
      s.say("Applied to staging.");
      s.user("does ssllabs still give us A+?", N("question"));
      s.say(
        "I can't reach external sites from here; `testssl.sh` against web-stg-01 shows TLS 1.2/1.3 only and HSTS set.",
      );
      s.user(
        "ok. for thursday's prod run limit it to web-prod-01 first, canary style. just this once, normally it's the whole group",
        HN("one-off"),
      );
      s.say("Noted for Thursday: `--limit web-prod-01` first.");
      s.user(
        "and the roles use FQCNs everywhere (ansible.builtin.copy, not copy), lint enforces it but do it right from the start",
        D(
          "rule",
          "project",
          "ansible-fleet roles use fully qualified collection names (ansible.builtin.copy, not copy)",
        ),
      );
      s.say("OK.");
    },
  },
  {
    id: "q39-ansible-ssh-key-private",
    cwd: P.ansible,
    style:
      "an OpenSSH private key pasted into a request (not durable); a private block; a hypothesis; the user confirms the agent's finding as a fact",
    start: "2025-11-20T09:40:00.000Z",
    version: "2.0.37",
    run: (s) => {
      const key = s.secret("opensshKey");
      s.userS(
        `the new bastion rejects the deploy key. here it is, can you tell what's wrong?\n\n${key}`,
        [key],
        N("request"),
        N("secret"),
      );
      s.say(
        "I'd rather not handle private keys. The public half is enough: can you run `ssh -vvv deploy@bastion-2` and paste the auth part?",
      );
      s.user(
        "sorry. here: <private>debug1: Offering public key: /home/viktor/.ssh/fleet_deploy ED25519 SHA256:q8XkUu1c0hV3 agent from viktor's laptop at 10.20.4.17</private> then 'Permission denied (publickey)'",
        N("private"),
        N("request"),
      );
      s.say(
        "The key is offered and refused, so the bastion doesn't have it. The new bastion's `authorized_keys` comes from the `bastion` role, which reads `bastion_users` from inventories/prod/group_vars/bastion.yml.",
      );
      s.confirm(
        "yes right, bastion access is only managed through bastion_users in that file, nobody edits authorized_keys by hand",
        "rule",
        "project",
        "Bastion access in ansible-fleet is managed only through bastion_users in inventories/prod/group_vars/bastion.yml; nobody edits authorized_keys by hand",
      );
      s.user("maybe deploy was removed when we renamed the group?", N("hypothesis"));
      s.tools(
        bash(
          "git log -p -S 'deploy' -- inventories/prod/group_vars/bastion.yml | head -12",
          "commit 7c1e2d9\n    bastion: rename group\n-  - name: deploy\n-    key: \"{{ lookup('file', 'keys/deploy.pub') }}\"",
        ),
      );
      s.say("Yes, commit 7c1e2d9 dropped it. I'll restore the entry.");
    },
  },
  {
    id: "q40-ansible-summary-python",
    cwd: P.ansible,
    style:
      "a resumed session (summary line); a stored fact contradicted; a one-off 'don't' for the current step",
    start: "2025-11-24T15:05:00.000Z",
    version: "2.0.37",
    stored: ["The ansible-fleet control node runs Python 3.8"],
    run: (s) => {
      s.summaryLine("Ansible control node upgrade and collection pins");
      s.user(
        "the control node is on python 3.11 now (ansible-core 2.17), so we can drop the 3.8 workaround in filter_plugins/compat.py",
        D(
          "fact",
          "project",
          "The ansible-fleet control node runs Python 3.11 with ansible-core 2.17",
          {
            contra: "The ansible-fleet control node runs Python 3.8",
          },
        ),
        N("request"),
      );
      s.tools(
        read(
          `${P.ansible}/filter_plugins/compat.py`,
          "import sys\n\nif sys.version_info < (3, 9):\n    from typing import Dict as dict_t\nelse:\n    dict_t = dict",
        ),
      );
      s.say(
        "compat.py only aliases `dict_t`; I'll inline `dict` in the two filters and delete the file.",
      );
      s.user(
        "don't run the playbooks for this step, just the unit tests for the filters",
        HN("one-off"),
      );
      s.tools(bash("python -m pytest tests/unit/filter_plugins -q", "....\n4 passed in 0.12s"));
      s.say("4 passed.");
      s.user("pin community.general to 9.x in requirements.yml while you're at it", N("request"));
      s.tools(
        edit(
          `${P.ansible}/requirements.yml`,
          "  - name: community.general",
          '  - name: community.general\n    version: ">=9.0.0,<10.0.0"',
        ),
      );
      s.say("Pinned.");
    },
  },
];

const MORE: Script[] = [
  {
    id: "q41-fw-onboarding-new-colleague",
    cwd: P.fw,
    style:
      "a colleague hands over: facts about board revisions, owners and signing in one long message, then questions",
    start: "2025-10-27T09:00:00.000Z",
    version: "2.0.33",
    run: (s) => {
      s.user(
        "Hi, I'm taking over thermo-fw from Anke while she's on leave, she asked me to write down the stuff that isn't in the README so you have it too:\n\nRev C boards have the TMP117 on i2c1, rev B on i2c0, the board file picks it from the BOARD_REV Kconfig. Jonas owns the MCUboot config, so anything under bootloader/ goes through him. OTA images are signed in CI only (`west sign -t imgtool` with the key in the HSM), never sign anything locally, we don't have the key on laptops anyway.\n\nFirst thing I'd like to understand: how does the OTA download resume after a power loss?",
        D(
          "fact",
          "project",
          "thermo-fw rev C boards have the TMP117 on i2c1, rev B on i2c0, chosen by the BOARD_REV Kconfig",
        ),
        D(
          "fact",
          "project",
          "Jonas owns thermo-fw's MCUboot configuration; changes under bootloader/ go through him",
        ),
        D(
          "rule",
          "project",
          "thermo-fw OTA images are signed only in CI (`west sign -t imgtool`, key in the HSM); never sign locally",
        ),
        N("question"),
      );
      s.tools(
        read(
          `${P.fw}/app/src/ota.c`,
          "static int ota_resume(void)\n{\n\tsize_t off = dfu_target_offset_get();\n\treturn download_client_get(&dlc, ota_url, &dl_cfg, NULL, off);\n}",
        ),
      );
      s.say(
        "`ota_resume()` asks the DFU target for the bytes already written and restarts the HTTP download at that offset with a Range header.",
      );
      s.user("and what if the image in slot 1 is corrupt after that?", N("question"));
      s.say(
        "MCUboot checks the signature before swapping; a corrupt image is never booted and slot 0 stays active.",
      );
      s.user("ok, I think I'd always be nervous about OTA honestly", HN("request"));
      s.say(
        "Reasonable. The OTA integration test on the rev C jig covers power loss at three offsets, if that helps.",
      );
    },
  },
  {
    id: "q42-android-release-train",
    cwd: P.android,
    style:
      "release process facts in a chatty message with a question; a rule on version codes; a one-off flavor for a bug bash",
    start: "2025-10-10T12:30:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "okay so I'm doing my first release (scary!!). Marta explained: we have a release train every other tuesday, code freeze is the monday before at 12:00, and only Ana has access to the Play Console so she presses the button. what do I need to prepare?",
        D(
          "fact",
          "project",
          "transit-android releases ship every other Tuesday; code freeze is the Monday before at 12:00",
        ),
        D(
          "fact",
          "project",
          "Only Ana has access to transit-android's Play Console and publishes releases",
        ),
        N("question"),
      );
      s.tools(
        bash(
          "grep -nE 'versionCode|versionName' app/build.gradle.kts",
          '24:        versionCode = 4107\n25:        versionName = "3.12.0"',
        ),
      );
      s.say(
        "Bump the version, update `CHANGELOG.md`, make sure `main` is green, then open the release PR for Ana.",
      );
      s.user(
        "ah and versionCode goes up by exactly 1 per release and versionName is semver, she said the play console got confused once when someone jumped by 100",
        D(
          "rule",
          "project",
          "transit-android versionCode goes up by exactly 1 per release; versionName follows semver",
        ),
      );
      s.tools(
        edit(
          `${P.android}/app/build.gradle.kts`,
          'versionCode = 4107\n        versionName = "3.12.0"',
          'versionCode = 4108\n        versionName = "3.13.0"',
        ),
      );
      s.say("Bumped to 4108 / 3.13.0.");
      s.user(
        "for the bug bash tomorrow always build the staging flavor please, not prod",
        HN("one-off"),
      );
      s.say("I'll build `assembleStagingDebug` for the bug bash.");
      chores(s, "android", 1);
      s.user("is the changelog format written down somewhere?", N("question"));
      s.say("CONTRIBUTING.md: Keep a Changelog headings, newest first.");
    },
  },
  {
    id: "q43-phoenix-global-language-shell",
    cwd: P.phx,
    style:
      "non-native speaker's global preferences (answer language, shell syntax) mixed with a request in Portuguese-flavoured English",
    start: "2025-10-23T07:20:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "Bom dia. Sometimes I will write to you in Portuguese when I am tired, but please always answer in English, it is better for my practice. This is for all projects.",
        D("preference", "global", "Answer Nadia in English even when she writes in Portuguese"),
      );
      s.say("Sure, I'll answer in English.");
      s.user(
        "Also I use fish shell, not bash. When you give me commands with environment variables, use `set -x VAR value` or `env VAR=value cmd`, not `export`.",
        D(
          "preference",
          "global",
          "Nadia uses the fish shell: give env-var commands as `set -x VAR value` or `env VAR=value cmd`, not `export`",
        ),
      );
      s.say("Noted.");
      s.user(
        "Agora: the courier location channel, it sends too many messages. Can you throttle to one per 2 seconds per courier?",
        N("request"),
      );
      chores(s, "phx", 1, 1);
      s.tools(
        edit(
          `${P.phx}/lib/courier_hub_web/channels/location_channel.ex`,
          'def handle_in("loc", payload, socket) do',
          'def handle_in("loc", payload, socket) do\n    if throttled?(socket, 2_000), do: {:noreply, socket}, else: broadcast_loc(payload, socket)',
        ),
      );
      chores(s, "phx", 1);
      s.say(
        "Throttled per socket to one message every 2 s; run it with `env MIX_ENV=test mix test test/courier_hub_web/channels`.",
      );
      s.user("Obrigada, it works.", N("request"));
    },
  },
  {
    id: "q44-wp-staging-facts",
    cwd: P.wp,
    style:
      "setup facts (staging alias, text domain, release day) while asking questions; 'never' in a status report; 'don't' for the current step",
    start: "2025-09-17T15:15:00.000Z",
    version: "2.0.10",
    run: (s) => {
      s.user(
        "can you check on staging whether the registry page renders? staging is reachable with the wp-cli alias `wp @staging` (it's in wp-cli.yml)",
        N("request"),
        D(
          "fact",
          "project",
          "wc-gift-registry's staging site is reached with the WP-CLI alias `wp @staging` (defined in wp-cli.yml)",
        ),
      );
      s.tools(bash("wp @staging post list --post_type=wcgr_registry --format=count", "37"));
      s.say("37 registries on staging; the page for ID 812 renders with HTTP 200.");
      s.user("the cron never runs on staging, the reminder emails are stuck", HN("request"));
      s.tools(
        bash(
          "wp @staging cron event list --hook=wcgr_send_reminders --fields=hook,next_run_relative",
          "hook                  next_run_relative\nwcgr_send_reminders   3 days ago",
        ),
      );
      s.say(
        "The event is overdue by 3 days: WP-Cron only runs on page loads and staging has no traffic.",
        N("hypothesis"),
      );
      s.user("don't fix it yet, just tell me if the event is scheduled", HN("one-off"));
      s.say("It is scheduled (daily), just overdue.");
      s.user(
        "ok. we release on the first monday of each month, so there's time. is the text domain wc-gift-registry everywhere or did someone use wcgr somewhere?",
        D("fact", "project", "wc-gift-registry releases on the first Monday of each month"),
        N("question"),
      );
      s.tools(grep("__\\( '[^']*', 'wcgr'", ["templates/registry-share.php"]));
      s.say("One file, templates/registry-share.php, uses `'wcgr'` as text domain in 3 strings.");
      s.user(
        "fix those. the text domain is always wc-gift-registry, same as the slug",
        N("request"),
        D(
          "rule",
          "project",
          "wc-gift-registry's text domain is always wc-gift-registry (the plugin slug)",
        ),
      );
      s.tools(
        bash("sed -i \"s/, 'wcgr' )/, 'wc-gift-registry' )/g\" templates/registry-share.php", ""),
      );
      s.say("Fixed.");
    },
  },
];

/** The holdout2 split, in file order. */
export const HOLDOUT2: Script[] = [
  ...FW,
  ...ANDROID,
  ...PHX,
  ...DS,
  ...WP,
  ...UNITY,
  ...HS,
  ...SNAKE,
  ...EXT,
  ...ANSIBLE,
  ...MORE,
];
