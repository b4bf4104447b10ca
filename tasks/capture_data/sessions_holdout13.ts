/**
 * Hand-written sessions of the capture benchmark's `holdout13` split: written blind on 2026-11-29
 * by a helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs pages
 * or results (nor the main checkout or any other helper's worktree), registered as unrun before it
 * was written and frozen before any run against it. About half of its 44 sessions have stored
 * memories, which the user repeats (often in other words), changes, or extends with a new
 * statement on the same topic; the others are ordinary sessions with rules, decisions, setup facts
 * in passing, global preferences, hard negatives and pasted secrets. Ten projects new to the data
 * set: a Racket grading tool, a Dart server, an FPGA video pipeline in SystemVerilog, a ROS 2
 * rover, a PowerShell module, a Salesforce Apex/LWC project, a Jenkins shared library in Groovy,
 * Terraform on Oracle Cloud, a Qt 6/QML desktop app and a Puppet control repository.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) or a look-alike that states no rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout13 split's projects. */
const P = {
  rk: "/home/lena/racket/gradebook-rkt",
  dt: "/home/omar/dart/courtbook-server",
  vl: "/home/mika/fpga/pixelpipe-fpga",
  ro: "/home/tariq/ros2_ws/src/orchard_rover",
  ps: "/Users/dana/src/AdHygiene",
  sf: "/home/nadia/sfdx/casehub-sfdx",
  jk: "/home/bram/ci/jenkins-shared-lib",
  tf: "/home/sol/infra/oci-landing-tf",
  qt: "/home/elise/qt/meterview",
  pp: "/home/gus/puppet/puppet-control",
} as const;
type Proj = keyof typeof P;

const WORK: Record<Proj, ToolStep[]> = {
  rk: [
    bash(
      "raco test -x src/",
      'raco test: (submod "src/penalty.rkt" test)\nraco test: (submod "src/import.rkt" test)\nraco test: (submod "src/report.rkt" test)\n47 tests passed',
    ),
    read(
      `${P.rk}/src/penalty.rkt`,
      "#lang typed/racket\n\n(provide late-penalty)\n\n(: late-penalty (-> Real Integer Real))\n(define (late-penalty score days-late)\n  (cond [(<= days-late 0) score]\n        [(> days-late 3) 0]\n        [else (* score (- 1 (* 0.1 days-late)))]))",
    ),
  ],
  dt: [
    bash(
      "dart test",
      "00:03 +41: All tests passed!",
    ),
    read(
      `${P.dt}/lib/routes/courts.dart`,
      "import 'package:shelf/shelf.dart';\nimport 'package:shelf_router/shelf_router.dart';\n\nimport '../db.dart';\n\nRouter courtsRouter(Db db) {\n  final r = Router();\n  r.get('/courts', (Request req) async => jsonOk(await db.courts()));\n  return r;\n}",
    ),
  ],
  vl: [
    bash(
      "make sim TEST=test_scaler",
      "     0.00ns INFO     cocotb.gpi                         ..mbed/gpi_embed.cpp:79   in set_program_name_in_venv        Using Python virtual environment interpreter at .venv/bin/python\n  1320.00ns INFO     cocotb.regression                  test_scaler.test_passthrough passed\n  8841.00ns INFO     cocotb.regression                  test_scaler.test_2x passed\n** TESTS=2 PASS=2 FAIL=0 SKIP=0",
    ),
    read(
      `${P.vl}/rtl/scaler/scaler.sv`,
      "`default_nettype none\n\nmodule scaler #(\n  parameter int W = 640\n) (\n  input  logic       clk,\n  input  logic       rst,\n  input  logic [7:0] in_px,\n  input  logic       in_valid,\n  output logic [7:0] out_px,\n  output logic       out_valid\n);",
    ),
  ],
  ro: [
    bash(
      "colcon build --packages-select orchard_rover && colcon test --packages-select orchard_rover",
      "Starting >>> orchard_rover\nFinished <<< orchard_rover [8.41s]\n\nSummary: 1 package finished [9.02s]\nStarting >>> orchard_rover\nFinished <<< orchard_rover [21.7s]\n\nSummary: 1 package finished [22.3s]",
    ),
    read(
      `${P.ro}/orchard_rover/controller_node.py`,
      "import rclpy\nfrom rclpy.node import Node\nfrom geometry_msgs.msg import Twist\n\n\nclass Controller(Node):\n    def __init__(self):\n        super().__init__('controller')\n        self.declare_parameter('max_speed', 1.0)\n        self.pub = self.create_publisher(Twist, 'cmd_vel', 10)",
    ),
  ],
  ps: [
    bash(
      "pwsh -NoProfile -Command 'Invoke-Pester -Path tests -Output Minimal'",
      "Starting discovery in 4 files.\nDiscovery found 29 tests in 212ms.\nRunning tests.\nTests completed in 1.84s\nTests Passed: 29, Failed: 0, Skipped: 0 NotRun: 0",
    ),
    read(
      `${P.ps}/Public/Get-StaleComputer.ps1`,
      "function Get-StaleComputer {\n    [CmdletBinding()]\n    param(\n        [int] $Days = 90,\n        [string] $SearchBase\n    )\n    $cutoff = (Get-Date).AddDays(-$Days)\n    Get-ADComputer -Filter { LastLogonTimestamp -lt $cutoff } -SearchBase $SearchBase -Properties LastLogonTimestamp\n}",
    ),
  ],
  sf: [
    bash(
      "sf apex run test --target-org casehub-scratch --code-coverage --result-format human --wait 10",
      "=== Test Summary\nNAME                 VALUE\nOutcome              Passed\nTests Ran            52\nPass Rate            100%\nOrg Wide Coverage    87%",
    ),
    read(
      `${P.sf}/force-app/main/default/classes/CaseRouter.cls`,
      "public with sharing class CaseRouter {\n    public static void route(List<Case> cases) {\n        Map<Id, Group> queues = QueueSelector.byDeveloperName(new Set<String>{'Tier1', 'Tier2'});\n        for (Case c : cases) {\n            c.OwnerId = c.Priority == 'High' ? queues.get('Tier2').Id : queues.get('Tier1').Id;\n        }\n    }\n}",
    ),
  ],
  jk: [
    bash(
      "./gradlew test --console=plain | tail -5",
      "> Task :test\n\nBuildPipelineSpec > runs the unit tests stage PASSED\nBuildPipelineSpec > notifies on failure PASSED\n\nBUILD SUCCESSFUL in 27s",
    ),
    read(
      `${P.jk}/vars/buildPipeline.groovy`,
      "def call(Map cfg = [:]) {\n    pipeline {\n        agent { label cfg.agent ?: 'linux-pod' }\n        stages {\n            stage('Test') {\n                steps { sh cfg.testCmd ?: './gradlew test' }\n            }\n        }\n    }\n}",
    ),
  ],
  tf: [
    bash(
      "terraform -chdir=envs/dev plan -no-color | tail -3",
      "Plan: 4 to add, 1 to change, 0 to destroy.\n\nNote: You didn't use the -out option to save this plan, so Terraform can't guarantee to take exactly these actions if you run \"terraform apply\" now.",
    ),
    read(
      `${P.tf}/modules/network/main.tf`,
      'resource "oci_core_vcn" "this" {\n  compartment_id = var.compartment_id\n  cidr_blocks    = [var.cidr]\n  display_name   = "${var.name}-vcn"\n  dns_label      = var.dns_label\n  defined_tags   = var.defined_tags\n}',
    ),
  ],
  qt: [
    bash(
      "cmake --build build -j2 && ctest --test-dir build --output-on-failure",
      "[100%] Built target meterview\nTest project /home/elise/qt/meterview/build\n    Start 1: tst_scpiparser\n1/2 Test #1: tst_scpiparser ...................   Passed    0.04 sec\n    Start 2: tst_measurementmodel\n2/2 Test #2: tst_measurementmodel .............   Passed    0.11 sec\n\n100% tests passed, 0 tests failed out of 2",
    ),
    read(
      `${P.qt}/src/MeasurementModel.h`,
      "#pragma once\n#include <QAbstractListModel>\n#include <QtQml/qqmlregistration.h>\n\nclass MeasurementModel : public QAbstractListModel {\n    Q_OBJECT\n    QML_ELEMENT\npublic:\n    int rowCount(const QModelIndex &parent = {}) const override;\n};",
    ),
  ],
  pp: [
    bash(
      "pdk validate && pdk test unit",
      "pdk (INFO): Running all available validators...\npdk (INFO): Using Ruby 3.2.4\n┌ [✔] Running metadata validators ...\n├── [✔] Checking metadata syntax (metadata.json tasks/*.json).\n└── [✔] Checking module metadata style (metadata.json).\n[✔] Running unit tests.\n  Evaluated 88 tests in 14.2 seconds: 0 failures, 0 pending.",
    ),
    read(
      `${P.pp}/site-modules/profile/manifests/base/time.pp`,
      "class profile::base::time (\n  Array[String] $servers = ['0.pool.ntp.org', '1.pool.ntp.org'],\n) {\n  class { 'chrony':\n    servers => $servers,\n  }\n}",
    ),
  ],
};

const ACK = [
  "Done, and the tests still pass.",
  "Changed; nothing else needed touching.",
  "That's in. I ran the checks again.",
  "OK — updated and verified locally.",
  "Fixed. The diff is a few lines.",
  "Done. Let me know if you'd rather have it another way.",
  "Applied and re-ran the suite.",
  "All set.",
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
  const versions = ["2.0.21", "2.0.30", "1.0.96", "2.0.37", "2.0.9", "2.0.25", "1.0.81"];
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
  rkVer: "gradebook-rkt runs on Racket 8.12 (CS).",
  rkTyped: "New modules are written in Typed Racket (#lang typed/racket).",
  rkDb: "Grades are stored in SQLite at /srv/gradebook/grades.db.",
  rkOwner: "Prof. Adeyemi approves every change to the grading formulas.",
  dtVer: "courtbook-server runs on Dart 3.3.",
  dtShelf: "HTTP routing uses shelf and shelf_router; no other web framework.",
  dtDb: "Data lives in Postgres, accessed with the postgres package and hand-written SQL.",
  dtPort: "The server listens on port 8081 behind Caddy.",
  dtFreezed: "Models are generated with freezed and the generated files are committed.",
  vlBoard: "The target is the iCE40 UP5K on the iCEBreaker board.",
  vlTool: "Synthesis and place-and-route use the open toolchain (yosys, nextpnr); no vendor tools.",
  vlCocotb: "Testbenches are cocotb tests run with Icarus Verilog.",
  vlReset: "Resets are synchronous and active-high.",
  vlClk: "The pixel clock is 25.175 MHz from the PLL.",
  roDistro: "orchard_rover targets ROS 2 Humble on Ubuntu 22.04.",
  roLaunch: "Launch files are Python launch files under launch/.",
  roParams: "Node parameters live in config/*.yaml, never hard-coded.",
  roNav: "Navigation uses Nav2 with the Smac planner.",
  roQos: "Sensor topics use the SensorDataQoS profile.",
  psVer: "AdHygiene supports PowerShell 7.2 and newer only, not Windows PowerShell 5.1.",
  psPester: "Tests are Pester 5 tests under tests/.",
  psVerbs: "Exported functions use approved PowerShell verbs.",
  psWhatIf:
    "Every function that changes Active Directory supports -WhatIf (SupportsShouldProcess).",
  sfApi: "The project's sourceApiVersion is 60.0.",
  sfTrigger: "One trigger per object; the logic lives in a handler class.",
  sfTests: "Apex tests create their own data; SeeAllData=true is never used.",
  sfLwc: "UI components are Lightning Web Components; no new Aura components.",
  sfOrg: "The Dev Hub org alias is casehub-hub.",
  jkVars: "Pipeline steps are global variables in vars/, one step per file.",
  jkSpock: "Unit tests use Spock with JenkinsPipelineUnit.",
  jkAgent: "Builds run on the Kubernetes agents labelled linux-pod.",
  jkTag: "Pipelines pin the library with @Library('ci-lib@v4').",
  tfRegion: "The OCI home region is eu-frankfurt-1.",
  tfState: "Terraform state lives in an OCI Object Storage bucket via the S3-compatible backend.",
  tfVer: "Terraform 1.6 with the oci provider ~> 5.30.",
  tfCompart:
    "Every resource goes into a compartment from the compartments module; nothing in the root compartment.",
  tfTags: "All resources carry the defined tags CostCenter and Owner.",
  qtVer: "meterview builds with Qt 6.5 LTS and CMake.",
  qtQml: "C++ types are exposed to QML with QML_ELEMENT; no setContextProperty.",
  qtSerial: "The meter speaks SCPI over QSerialPort at 115200 baud.",
  qtTr: "Every user-visible string is wrapped in qsTr().",
  ppVer: "The fleet runs Puppet 7 agents against a Puppet 7 primary.",
  ppRoles:
    "Nodes are classified with roles and profiles: one role per node, and roles include only profiles.",
  ppHiera: "Data goes in Hiera (data/), not in manifests.",
  ppEyaml: "Secrets in Hiera are encrypted with hiera-eyaml.",
  gBranch: "Branch names are <initials>/<ticket>-<slug>.",
  gAskDep: "Ask before adding a new dependency.",
  gDiff: "Show a short diff summary before committing.",
  gEmoji: "No emoji in commit messages or code comments.",
  gTests: "Run the tests before saying a change is done.",
} as const;

const RK: Script[] = [
  sc(
    "b01-rk-typed-dup",
    "rk",
    "a stored language rule repeated inside a request; a stored runtime version changed in passing; a question",
    "2026-08-03T08:20:00.000Z",
    (s) =>
      turns(s, "rk", [
        [
          "late penalty is off by one day for stuff submitted at exactly 00:00. can you fix",
          R,
        ],
        [
          "put the date helpers in their own module — typed racket like the rest of the new code, so #lang typed/racket up top",
          R,
          D("rule", "project", "New modules use #lang typed/racket.", { dup: S.rkTyped }),
        ],
        [
          "btw the README says 8.12 but we've been on racket 8.14 (CS) since the summer, you can use whatever's new in 8.14",
          D("fact", "project", "gradebook-rkt runs on Racket 8.14 (CS).", { contra: S.rkVer }),
        ],
        ["does raco test find the test submodules on its own or do I list them?", Q],
      ]),
    [S.rkTyped, S.rkVer],
  ),
  sc(
    "b02-rk-postgres-move",
    "rk",
    "a stored storage fact changed (SQLite to the department Postgres); a stored approval rule repeated with a consequence; a hypothesis",
    "2026-08-04T13:05:00.000Z",
    (s) =>
      turns(s, "rk", [
        [
          "heads up the grades aren't in that sqlite file anymore. the department made every course move to their postgres: host db.cs.example.edu, database gradebook. and everything goes through db.rkt, no queries sprinkled around the other modules",
          D(
            "fact",
            "project",
            "Grades are stored in the department Postgres (db.cs.example.edu, database gradebook), accessed only through db.rkt.",
            { contra: S.rkDb },
          ),
        ],
        [
          "final grade rounding should be half-up instead of banker's. but you can't just merge that — anything touching the formulas needs Adeyemi's ok, so write it up as a short note for her and leave the branch open",
          R,
          D(
            "rule",
            "project",
            "Changes to the grading formulas wait for Prof. Adeyemi's approval before merging.",
            { dup: S.rkOwner },
          ),
        ],
        [
          "I wonder if the half-even rounding is what those two students were complaining about",
          HN("hypothesis"),
        ],
      ]),
    [S.rkDb, S.rkOwner],
  ),
  sc(
    "b03-rk-import-context",
    "rk",
    "a setup fact inside a long request; a decision with its reason; a one-off; reported speech",
    "2026-08-05T09:40:00.000Z",
    (s) =>
      turns(s, "rk", [
        [
          "ok so context for this term: the course is CS 1102, ~340 students. submissions come from the gradescope export, a cron on grader01 drops a csv into exports/ every night at 01:00. I need an importer that reads the newest one and upserts scores",
          R,
          D(
            "fact",
            "project",
            "Gradescope exports arrive nightly at 01:00 as a CSV in exports/, dropped by a cron job on grader01.",
          ),
        ],
        [
          "and no, don't port the old untyped modules. we went with contracts at the module boundaries instead — converting all of it to typed racket would have eaten the whole semester",
          D(
            "decision",
            "project",
            "Old untyped modules stay untyped with contracts at their boundaries rather than being ported to Typed Racket (too costly).",
          ),
        ],
        [
          "for this import just skip the rows with an empty SIS id, I'll chase those people by hand",
          HN("one-off"),
        ],
        [
          "haha a colleague told me once you should never use set! in racket, ever. anyway the importer uses a hash, that's fine",
          HN("one-off"),
        ],
      ]),
  ),
  sc(
    "b04-rk-gitlab-token",
    "rk",
    "a GitLab token pasted for a one-off push; a repository rule in a later turn; a question",
    "2026-08-06T16:15:00.000Z",
    (s) => {
      const tok = s.secret("gitlab");
      s.userS(
        `the TA mirror on the department gitlab is stuck. push main there once with this: ${tok}`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(WORK.rk[0]);
      s.say("Pushed main to the mirror; the token is not saved in the remote URL or config.");
      turns(s, "rk", [
        [
          "thanks!! so for the record: github is the real repo, the gitlab copy is only a read-only mirror so the TAs can see it. nobody opens merge requests over there",
          D(
            "rule",
            "project",
            "The canonical repository is on GitHub; the department GitLab is a read-only mirror for TAs, with no merge requests there.",
          ),
        ],
        ["how often does the mirror job normally run?", Q],
      ]);
    },
  ),
];

const DT: Script[] = [
  sc(
    "b05-dt-dart35",
    "dt",
    "a stored SDK version changed; a stored framework rule repeated negated; a question",
    "2026-08-07T08:55:00.000Z",
    (s) =>
      turns(s, "dt", [
        [
          "we're on dart 3.5 now. bump the sdk constraint in pubspec.yaml and the base image in the Dockerfile",
          R,
          D("fact", "project", "courtbook-server runs on Dart 3.5.", { contra: S.dtVer }),
        ],
        [
          "then add GET /courts/<id>/slots. plain shelf_router please, don't drag dart_frog or some other framework in",
          R,
          D(
            "rule",
            "project",
            "Routes are written with shelf_router; no other server framework such as dart_frog.",
            { dup: S.dtShelf },
          ),
        ],
        ["should slots be 30 or 60 min? what does the booking sheet at the club do?", Q],
      ]),
    [S.dtVer, S.dtShelf],
  ),
  sc(
    "b06-dt-freezed-uncommitted",
    "dt",
    "a stored port repeated as a correction; a stored code-generation rule reversed with its reason; a stored data-access rule repeated after the agent's mistake",
    "2026-08-08T11:30:00.000Z",
    (s) =>
      turns(s, "dt", [
        [
          "compose healthcheck hits :8080, that's wrong. the app is on 8081, caddy sits in front of it",
          R,
          D("fact", "project", "The app listens on 8081 with Caddy in front.", {
            dup: S.dtPort,
          }),
        ],
        [
          "also: we stopped committing the generated freezed files. build_runner runs in CI and *.freezed.dart / *.g.dart are gitignored now — the merge conflicts in those files were unbearable",
          D(
            "decision",
            "project",
            "Generated freezed files (*.freezed.dart, *.g.dart) are gitignored and built by build_runner in CI, not committed (merge conflicts).",
            { contra: S.dtFreezed },
          ),
        ],
        [
          "and I saw drift sneaking into pubspec in your last change. no. raw SQL through the postgres package, that's how the whole codebase talks to the db",
          R,
          D(
            "rule",
            "project",
            "Database access is raw SQL through the postgres package; no ORM like drift.",
            { dup: S.dtDb },
          ),
        ],
      ]),
    [S.dtPort, S.dtFreezed, S.dtDb],
  ),
  sc(
    "b07-dt-club-policy",
    "dt",
    "a business rule stated as policy; a deploy fact in passing; descriptive never; a hypothesis",
    "2026-08-09T15:10:00.000Z",
    (s) =>
      turns(s, "dt", [
        [
          "someone filed a bug that guests can't book 3 weeks out. that's correct behaviour: guests get 14 days ahead, members 21. club policy, the committee decided it, don't 'fix' it",
          D(
            "rule",
            "project",
            "Guests can book 14 days ahead and members 21 days (club policy); this is intended.",
          ),
        ],
        [
          "prod is one hetzner cx22, `make deploy` rsyncs the build and restarts the courtbook.service unit. can you add a step that runs the migrations before the restart",
          R,
          D(
            "fact",
            "project",
            "Production is a single Hetzner CX22; make deploy rsyncs the build and restarts the courtbook.service systemd unit.",
          ),
        ],
        ["the confirmation mail never shows up when I test with my gmail", HN("one-off")],
        ["could be SPF on the sending domain maybe", HN("hypothesis")],
        ["add a retry with backoff to the mailer anyway", R],
      ]),
  ),
  sc(
    "b08-dt-jwt-debug",
    "dt",
    "a JWT pasted to debug; the agent's hypothesis; facts in the reply; a one-off don't",
    "2026-08-10T10:00:00.000Z",
    (s) => {
      const jwt = s.secret("jwt");
      s.userS(
        `this token from the app gets a 401 on /me, decode it and tell me why?\n${jwt}`,
        [jwt],
        N("secret"),
        R,
      );
      s.tools(WORK.dt[1]);
      s.say(
        "The exp claim looks like milliseconds rather than seconds — probably the mobile client multiplies by 1000 somewhere.",
        HN("hypothesis"),
      );
      turns(s, "dt", [
        [
          "ugh. the flutter app is Jun's, I'll ping him. for your side: access tokens are HS256, signed with JWT_SECRET from the env, and they live 15 minutes",
          D("fact", "project", "Jun owns the Flutter mobile app."),
          D(
            "fact",
            "project",
            "Access tokens are HS256-signed with the JWT_SECRET environment variable and expire after 15 minutes.",
          ),
        ],
        [
          "don't rotate JWT_SECRET this week, half the club is booking for the tournament",
          HN("one-off"),
        ],
      ]);
    },
  ),
];

const VL: Script[] = [
  sc(
    "b09-vl-ecp5",
    "vl",
    "a stored target board changed; a stored toolchain rule repeated with a story",
    "2026-08-11T09:15:00.000Z",
    (s) =>
      turns(s, "vl", [
        [
          "we outgrew the up5k, the line buffers don't fit. new target is the ULX3S with the ECP5-85F, so nextpnr-ecp5 and ecppack — redo the Makefile targets",
          R,
          D("fact", "project", "The target is the ULX3S board with an ECP5-85F.", {
            contra: S.vlBoard,
          }),
        ],
        [
          "still the open flow though. yosys + nextpnr, I'm not installing Diamond, I lost a weekend to its license server once",
          D(
            "rule",
            "project",
            "The build uses yosys and nextpnr; no Lattice Diamond or other vendor tools.",
            { dup: S.vlTool },
          ),
        ],
        ["what's the LPF equivalent of the pcf pin file?", Q],
      ]),
    [S.vlBoard, S.vlTool],
  ),
  sc(
    "b10-vl-verilator",
    "vl",
    "a stored reset rule repeated tersely; a stored simulator changed with its reason; a one-off",
    "2026-08-12T14:45:00.000Z",
    (s) =>
      turns(s, "vl", [
        [
          "scaler.sv has an async reset in the output stage. make it sync, active high. same as every block",
          R,
          D("rule", "project", "Resets are synchronous, active-high, in every block.", {
            dup: S.vlReset,
          }),
        ],
        [
          "oh and cocotb runs on verilator 5 now, not icarus. icarus took 40 minutes on the full-frame tests",
          D(
            "fact",
            "project",
            "cocotb testbenches run on Verilator 5 instead of Icarus (Icarus was too slow on full-frame tests).",
            { contra: S.vlCocotb },
          ),
        ],
        ["for the frame test today run 4 frames, not 60", HN("one-off")],
      ]),
    [S.vlReset, S.vlCocotb, S.vlClk],
  ),
  sc(
    "b11-vl-timing-log",
    "vl",
    "a timing report pasted as content blocks with a fact after it; a rule with its condition; a question; a hypothesis; a lint rule",
    "2026-08-13T10:30:00.000Z",
    (s) => {
      s.userBlocks(
        [
          "timing fails after adding the gamma stage:",
          "Info: Max frequency for clock '$glbnet$clk_pixel': 24.91 MHz (FAIL at 25.18 MHz)\nInfo: Critical path report for clock 'clk_pixel' (posedge -> posedge):\nInfo:  1.2  1.2  Source u_lb.mem.0.0_DOB[3]\nInfo:  3.9  5.1  Net u_lb.rd_data[3] budget 0.0 ns\nInfo:  ...\nERROR: Max frequency for clock 'clk_pixel' is below target",
          "the hdmi out goes through the gpdi connector and the tmds serializers live in rtl/hdmi/tmds_ser.sv. don't touch those without running the eye test on the scope afterwards",
        ],
        R,
        D(
          "fact",
          "project",
          "HDMI output goes through the GPDI connector; the TMDS serializers are in rtl/hdmi/tmds_ser.sv.",
        ),
        D(
          "rule",
          "project",
          "Any change to the TMDS serializers is followed by the eye test on the scope.",
        ),
      );
      s.tools(WORK.vl[1]);
      s.say(
        "The read data from the line-buffer BRAM feeds the LUT address with no register in between.",
      );
      turns(s, "vl", [
        ["why does it report the BRAM output as the start of the path?", Q],
        ["maybe yosys isn't inferring the output register on the BRAM", HN("hypothesis")],
        [
          "every file starts with `default_nettype none and port lists are ANSI style with explicit logic types. I've been bitten by implicit nets too often",
          D(
            "rule",
            "project",
            "Every file starts with `default_nettype none, with ANSI-style port lists and explicit logic types.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "b12-vl-lut-confirm",
    "vl",
    "an agent proposal confirmed; a question",
    "2026-08-14T16:20:00.000Z",
    (s) => {
      s.user("add a gamma LUT right after the scaler, 8 bit in 8 bit out", R);
      ask(
        s,
        "vl",
        "Added. The table is a .mem file generated by scripts/gen_luts.py and loaded with $readmemh instead of a big case statement. Do you want all lookup tables done that way?",
      );
      s.confirm(
        "yeah, that's how all of them should be",
        "rule",
        "project",
        "Lookup tables are .mem files generated by scripts/gen_luts.py and loaded with $readmemh.",
      );
      turns(s, "vl", [["is 8 bit enough or will we get banding in the dark areas?", Q]], 1);
    },
  ),
];

const RO: Script[] = [
  sc(
    "b13-ro-jazzy",
    "ro",
    "a stored ROS distribution changed; a stored launch-file rule repeated with an aside; a question",
    "2026-08-15T08:00:00.000Z",
    (s) =>
      turns(s, "ro", [
        [
          "the jetson got reflashed with 24.04 so we're on jazzy now, humble is gone. fix the Dockerfile + the CI image",
          R,
          D("fact", "project", "orchard_rover targets ROS 2 Jazzy on Ubuntu 24.04.", {
            contra: S.roDistro,
          }),
        ],
        [
          "the new lidar launch goes in launch/ as lidar.launch.py — python launch files, same as the others (xml launch files make me sad)",
          R,
          D("rule", "project", "Launch files are .launch.py Python files in launch/, not XML.", {
            dup: S.roLaunch,
          }),
        ],
        ["what changed in the nav2 params between humble and jazzy?", Q],
      ]),
    [S.roDistro, S.roLaunch],
  ),
  sc(
    "b14-ro-planner-change",
    "ro",
    "a stored parameter rule repeated after a mistake; a stored planner choice changed with its reason; a stored QoS rule repeated; a one-off",
    "2026-08-16T13:40:00.000Z",
    (s) =>
      turns(s, "ro", [
        [
          "you hardcoded max_speed in the controller node again. it goes in config/controller.yaml. anything somebody might want to tune lives in yaml",
          R,
          D("rule", "project", "Tunable values go in the YAML files under config/, not in code.", {
            dup: S.roParams,
          }),
        ],
        [
          "and for nav we swapped smac for navfn + the regulated pure pursuit controller. smac was pegging the jetson's cpu",
          D(
            "decision",
            "project",
            "Navigation uses the NavFn planner with the Regulated Pure Pursuit controller instead of Smac (CPU load on the Jetson).",
            { contra: S.roNav },
          ),
        ],
        [
          "leave the camera on best effort / sensor data qos, that's on purpose",
          D("rule", "project", "Camera topics use the sensor data QoS (best effort).", {
            dup: S.roQos,
          }),
        ],
        ["for the field test on thursday cap the speed at 0.5 m/s", HN("one-off")],
      ]),
    [S.roParams, S.roNav, S.roQos],
  ),
  sc(
    "b15-ro-aws-bags",
    "ro",
    "AWS keys pasted for a one-off upload; a recording rule with its reason; network facts",
    "2026-08-17T17:25:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `upload yesterday's rosbags to the lab bucket. use my keys just this once\nAWS_ACCESS_KEY_ID=${id}\nAWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(WORK.ro[0]);
      s.say("Uploaded three bags (4.2 GB) to s3://orchard-lab-data/bags/2026-08-16/.");
      turns(s, "ro", [
        [
          "cheers. bags get recorded as mcap, not sqlite3 — the sqlite3 ones kept breaking foxglove for us",
          D(
            "rule",
            "project",
            "Bags are recorded in the MCAP format, not sqlite3 (sqlite3 bags broke Foxglove).",
          ),
        ],
        [
          "the rover is rover02.local on the lab wifi and it uses ROS_DOMAIN_ID=42, because two other teams sit on the default domain on the same network",
          D(
            "fact",
            "project",
            "The rover is rover02.local on the lab network and uses ROS_DOMAIN_ID=42 (other teams use the default domain).",
          ),
        ],
      ]);
    },
  ),
  sc(
    "b16-ro-odometry-paragraph",
    "ro",
    "a long paragraph with setup facts and an ownership rule before the request; the agent's and the user's hypotheses",
    "2026-08-18T09:50:00.000Z",
    (s) => {
      s.user(
        "ok a bit of background before you touch the odometry. the wheel encoders publish /wheel/odom at 50 Hz, the IMU is on /imu/data, and robot_localization fuses both with the settings in config/ekf.yaml. Sven wrote that ekf config and please nobody changes the covariances in it without going through him, it took him weeks. now the actual problem: the odom drifts to the left on gravel. can you check whether the wheel radius is off?",
        R,
        D(
          "fact",
          "project",
          "Wheel odometry is published on /wheel/odom at 50 Hz and the IMU on /imu/data; robot_localization fuses them using config/ekf.yaml.",
        ),
        D(
          "rule",
          "project",
          "The covariances in config/ekf.yaml are changed only together with Sven, who owns that config.",
        ),
      );
      s.tools(WORK.ro[1]);
      s.say(
        "The left wheel radius in the URDF is 2 mm larger than the right one; that alone would give a steady leftward drift.",
        HN("hypothesis"),
      );
      turns(s, "ro", [
        ["hm could also just be tyre pressure tbh", HN("hypothesis")],
        ["fix the urdf anyway and rerun the square test in gazebo", R],
      ]);
    },
  ),
];

const PS: Script[] = [
  sc(
    "b17-ps-pwsh74",
    "ps",
    "a stored test rule repeated with a marker; a stored minimum version changed with its reason; a question",
    "2026-08-19T08:35:00.000Z",
    (s) =>
      turns(s, "ps", [
        [
          "write tests for Get-StaleComputer, pester 5 in tests/, the usual",
          R,
          D("rule", "project", "Tests are Pester 5 tests in tests/.", { dup: S.psPester }),
        ],
        [
          "and raise the floor to 7.4 in the manifest (PowerShellVersion). 7.2 is out of support and we're not testing it anymore",
          R,
          D(
            "decision",
            "project",
            "AdHygiene requires PowerShell 7.4 or newer (7.2 is out of support).",
            { contra: S.psVer },
          ),
        ],
        ["do you know if the ActiveDirectory module imports under 7.4 on server 2019?", Q],
      ]),
    [S.psPester, S.psVer],
  ),
  sc(
    "b18-ps-quarantine",
    "ps",
    "a stored ShouldProcess rule repeated as a reproach; a rename request; a new rule on the same topic",
    "2026-08-20T12:10:00.000Z",
    (s) =>
      turns(s, "ps", [
        [
          "Remove-StaleComputer doesn't take -WhatIf?? anything that writes to AD gets SupportsShouldProcess, you know this",
          R,
          D(
            "rule",
            "project",
            "Functions that write to Active Directory declare SupportsShouldProcess so -WhatIf works.",
            { dup: S.psWhatIf },
          ),
        ],
        ["rename Purge-OldUsers to Remove-OldUser while you're in there", R],
        [
          "and something new: disabled accounts don't get deleted straight away anymore. they're moved to OU=Quarantine,DC=corp,DC=example and sit there 30 days, only then can a function delete them",
          D(
            "rule",
            "project",
            "Disabled accounts are moved to OU=Quarantine,DC=corp,DC=example for 30 days before any function may delete them.",
          ),
        ],
      ]),
    [S.psWhatIf, S.psVerbs],
  ),
  sc(
    "b19-ps-report-schedule",
    "ps",
    "a schedule fact; a question; a decision with its reason; a one-off; a private aside",
    "2026-08-21T15:30:00.000Z",
    (s) =>
      turns(s, "ps", [
        [
          "the stale report runs mondays at 07:00 from the scheduled task on util02 and mails it-ops@corp.example. add the disabled-account count to it",
          R,
          D(
            "fact",
            "project",
            "The stale report runs Mondays at 07:00 from a scheduled task on util02 and is mailed to it-ops@corp.example.",
          ),
        ],
        ["is LastLogonTimestamp good enough or do we have to ask every DC for lastLogon?", Q],
        [
          "right, it only replicates every 9-14 days. that's why 'stale' means 90 days for us and not 30 — we agreed that with security last year",
          D(
            "decision",
            "project",
            "A computer counts as stale after 90 days without logon, not 30, because LastLogonTimestamp replicates only every 9–14 days (agreed with security).",
          ),
        ],
        ["for this test run point it at OU=Lab only", HN("one-off")],
        [
          "<private>if Rolf asks one more time why this isn't finished I'm logging off for the day</private> ok go",
          N("private"),
          R,
        ],
      ]),
  ),
  sc(
    "b20-ps-objects-confirm",
    "ps",
    "an agent proposal confirmed with a never; a hypothesis",
    "2026-08-22T10:45:00.000Z",
    (s) => {
      s.user("console output of Get-StaleComputer is ugly, make it a table", R);
      ask(
        s,
        "ps",
        "Done — but rather than Write-Host inside the function I made it emit objects and put a default table view in AdHygiene.format.ps1xml. Should module functions always output objects and leave formatting to the caller?",
      );
      s.confirm(
        "yes. and never Write-Host in the module",
        "rule",
        "project",
        "Module functions output objects and leave formatting to the caller; no Write-Host in the module.",
      );
      turns(s, "ps", [["I think PSScriptAnalyzer would've flagged it anyway", HN("hypothesis")]]);
    },
  ),
];

const SF: Script[] = [
  sc(
    "b21-sf-api62",
    "sf",
    "a stored API version changed; a stored trigger rule repeated as the answer to the user's own question; a question",
    "2026-08-23T08:30:00.000Z",
    (s) =>
      turns(s, "sf", [
        [
          "bump sourceApiVersion to 62.0 in sfdx-project.json, we're on the winter API level now everywhere",
          R,
          D("fact", "project", "The project's sourceApiVersion is 62.0.", { contra: S.sfApi }),
        ],
        [
          "new trigger for Entitlement? no wait, there's already EntitlementTrigger. put it in its handler, we keep exactly one trigger per object",
          R,
          D(
            "rule",
            "project",
            "Each object has exactly one trigger, with logic in its handler class.",
            { dup: S.sfTrigger },
          ),
        ],
        ["why does the validation deploy take 40 min?", Q],
      ]),
    [S.sfApi, S.sfTrigger],
  ),
  sc(
    "b22-sf-hub-alias",
    "sf",
    "a stored test-data rule repeated in other words; a stored org alias changed; a stored UI rule repeated tersely; a hypothesis",
    "2026-08-24T13:15:00.000Z",
    (s) =>
      turns(s, "sf", [
        [
          "CaseRouterTest fails in a fresh scratch org because it expects the Tier2 queue to already be there. make the test set up its own queue and cases, tests must not lean on whatever data the org happens to have",
          R,
          D(
            "rule",
            "project",
            "Apex tests set up all their own data and never depend on existing org data.",
            { dup: S.sfTests },
          ),
        ],
        [
          "the dev hub alias changed when we moved to the new prod org — it's casehub-prod-hub now. scripts/new-scratch.sh still uses the old one",
          R,
          D("fact", "project", "The Dev Hub org alias is casehub-prod-hub.", {
            contra: S.sfOrg,
          }),
        ],
        [
          "then the escalation panel. lwc obviously, no aura",
          R,
          D("rule", "project", "New UI components are LWC, not Aura.", { dup: S.sfLwc }),
        ],
        [
          "maybe the admin cleanup last week deleted the queue in the sandbox too",
          HN("hypothesis"),
        ],
      ]),
    [S.sfTests, S.sfLwc, S.sfOrg],
  ),
  sc(
    "b23-sf-auth-url",
    "sf",
    "a Salesforce auth URL with a token pasted for a one-off deploy; a sandbox refresh fact; a one-off don't",
    "2026-08-25T16:50:00.000Z",
    (s) => {
      const tok = s.secret("hex");
      s.userS(
        `deploy the branch to the uat sandbox once. sf cli lost the auth, here's the sfdx auth url: force://PlatformCLI::5Aep861${tok}@casehub--uat.sandbox.my.salesforce.com`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(WORK.sf[0]);
      s.say("Deployed to uat (52 tests run, all passed). I didn't store the auth URL.");
      turns(s, "sf", [
        [
          "fyi uat gets refreshed from prod on the first sunday of every month, so whatever we put there is wiped then",
          D(
            "fact",
            "project",
            "The UAT sandbox is refreshed from production on the first Sunday of each month, wiping what was deployed there.",
          ),
        ],
        ["don't push anything else there until the refresh tomorrow", HN("one-off")],
      ]);
    },
  ),
  sc(
    "b24-sf-bullet-rules",
    "sf",
    "rules in a bullet list for a newcomer; a sprint-scoped skip; a question phrased like a rule",
    "2026-08-26T09:20:00.000Z",
    (s) =>
      turns(s, "sf", [
        [
          "since you're new to this repo, a couple of ground rules:\n- no SOQL or DML inside loops. bulkify, assume 200 records per trigger batch\n- every string a user sees is a custom label\nthe rest you'll pick up as we go",
          D(
            "rule",
            "project",
            "No SOQL or DML inside loops; code is bulkified for 200 records per trigger batch.",
          ),
          D("rule", "project", "Every user-facing string is a custom label."),
        ],
        ["for this sprint skip the aura-to-lwc migration tickets", HN("one-off")],
        ["should every class always be declared with sharing?", HN("question")],
        ["ok start on CaseEscalationHandler", R],
      ]),
  ),
];

const JK: Script[] = [
  sc(
    "b25-jk-slack-rule",
    "jk",
    "a Slack webhook inside an otherwise durable notification rule; a question",
    "2026-08-27T08:10:00.000Z",
    (s) => {
      const hook = s.secret("slackWebhook");
      s.userS(
        `add failure notifications to buildPipeline. a red build on main posts in #ci-alerts, never a DM to whoever committed — people hated that. hook: ${hook}`,
        [hook],
        R,
        D(
          "rule",
          "project",
          "Failed main builds notify the #ci-alerts Slack channel, never a direct message to the committer.",
          { secret: true },
        ),
      );
      s.tools(WORK.jk[1]);
      s.say(
        "buildPipeline now calls slackSend with a credential id (ci-alerts-hook); the URL is not in the repo.",
      );
      turns(s, "jk", [["can slackSend reply in a thread?", Q]]);
    },
  ),
  sc(
    "b26-jk-v5",
    "jk",
    "a stored library version changed; a stored file-layout rule repeated shortened; a support window stated",
    "2026-08-28T11:35:00.000Z",
    (s) =>
      turns(s, "jk", [
        [
          "v5 of the lib was cut last week, so pipelines pin @Library('ci-lib@v5') now. update the README examples and templates/Jenkinsfile",
          R,
          D("fact", "project", "Pipelines pin the library with @Library('ci-lib@v5').", {
            contra: S.jkTag,
          }),
        ],
        [
          "dockerBuild gets its own vars/dockerBuild.groovy. one step, one file",
          R,
          D("rule", "project", "Each pipeline step has its own file in vars/.", { dup: S.jkVars }),
        ],
        [
          "v4 stays supported until end of march, so don't break its signatures",
          D(
            "fact",
            "project",
            "Library v4 stays supported, with unchanged signatures, until the end of March.",
          ),
        ],
      ]),
    [S.jkTag, S.jkVars],
  ),
  sc(
    "b27-jk-docker-agents",
    "jk",
    "an exception added to a stored agent rule; a stored test rule repeated inside a request; descriptive always",
    "2026-08-29T14:00:00.000Z",
    (s) =>
      turns(s, "jk", [
        [
          "the release job can't run on linux-pod, there's no docker socket in the pods. anything that builds images runs on the 'docker-vm' agents, the rest stays on linux-pod",
          D(
            "rule",
            "project",
            "Jobs that build container images run on the docker-vm agents; everything else runs on linux-pod.",
            { contra: S.jkAgent },
          ),
        ],
        [
          "cover it with spock + JenkinsPipelineUnit like the other steps, mock the sh calls",
          R,
          D("rule", "project", "Steps are unit-tested with Spock and JenkinsPipelineUnit.", {
            dup: S.jkSpock,
          }),
        ],
        [
          "it always sits at 'Waiting for next available executor' on friday afternoons",
          HN("one-off"),
        ],
      ]),
    [S.jkAgent, S.jkSpock],
  ),
  sc(
    "b28-jk-terse",
    "jk",
    "terse messages; a version and host fact; a sandbox rule with an owner; a hypothesis",
    "2026-08-30T10:25:00.000Z",
    (s) =>
      turns(s, "jk", [
        [
          "jenkins = 2.462 LTS, ci.internal:8443",
          D("fact", "project", "Jenkins is 2.462 LTS at ci.internal:8443."),
        ],
        [
          "sandbox stays on. no @NonCPS tricks to dodge it. step needs an unapproved method -> ask Bram to approve it",
          D(
            "rule",
            "project",
            "The Groovy sandbox stays on; no @NonCPS workarounds — unapproved methods go to Bram for approval.",
          ),
        ],
        ["rerun #2231", R],
        ["cps transform the reason closures act weird?", HN("hypothesis")],
      ]),
  ),
];

const TF: Script[] = [
  sc(
    "b29-tf-amsterdam",
    "tf",
    "a stored home region changed inside a request; a stored compartment rule repeated with a marker; a question",
    "2026-08-31T08:45:00.000Z",
    (s) =>
      turns(s, "tf", [
        [
          "add a second VCN for the analytics team. it goes in eu-amsterdam-1 — we moved the home region there in september, frankfurt is DR only now",
          R,
          D(
            "fact",
            "project",
            "The OCI home region is eu-amsterdam-1; eu-frankfurt-1 is only for DR.",
            { contra: S.tfRegion },
          ),
        ],
        [
          "compartment from the compartments module as always, the root compartment stays empty",
          D(
            "rule",
            "project",
            "Resources go into compartments from the compartments module; the root compartment stays empty.",
            { dup: S.tfCompart },
          ),
        ],
        ["what CIDR did the first VCN get?", Q],
      ]),
    [S.tfRegion, S.tfCompart],
  ),
  sc(
    "b30-tf-provider6",
    "tf",
    "a stored provider version changed; a stored tagging rule repeated; a one-off don't; a question",
    "2026-09-01T13:20:00.000Z",
    (s) =>
      turns(s, "tf", [
        [
          "move us to terraform 1.9 and the oci provider 6.x, pinned ~> 6.12. run plan in envs/dev and tell me what breaks",
          R,
          D("fact", "project", "Terraform 1.9 with the oci provider ~> 6.12.", { contra: S.tfVer }),
        ],
        [
          "the new bucket needs the CostCenter and Owner defined tags, same as every resource",
          R,
          D("rule", "project", "Every resource gets the CostCenter and Owner defined tags.", {
            dup: S.tfTags,
          }),
        ],
        ["don't apply anything, I only want to see the plan", HN("one-off")],
        ["is the s3-compat backend going away now that there's a native oci backend?", Q],
      ]),
    [S.tfVer, S.tfState, S.tfTags],
  ),
  sc(
    "b31-tf-rsa-key",
    "tf",
    "an API signing key pasted for a one-off; an identity rule and a CI fact after it",
    "2026-09-02T17:05:00.000Z",
    (s) => {
      const key = s.secret("rsaKey");
      s.userS(
        `the signing key of the pipeline user was rotated. put it in the github actions secret OCI_KEY once and then forget you saw it:\n${key}`,
        [key],
        N("secret"),
        R,
      );
      s.tools(WORK.tf[0]);
      s.say("Updated the OCI_KEY repository secret; the key is not written anywhere in the repo.");
      turns(s, "tf", [
        [
          "all automation authenticates as svc-terraform (group Administrators-Automation). never a person's user, not even for a quick fix",
          D(
            "rule",
            "project",
            "Automation authenticates as svc-terraform in the Administrators-Automation group, never as a personal user.",
          ),
        ],
        [
          "plans run on every PR in github actions; applies only from main, after someone from #infra approves the environment",
          D(
            "fact",
            "project",
            "Plans run on every PR in GitHub Actions; applies run only from main after approval by someone from #infra.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "b32-tf-staff-paragraph",
    "tf",
    "a staff engineer's paragraph with a decision and its reason, a registry fact and a rule, then the task; a scoped one-off; a hypothesis",
    "2026-09-03T09:30:00.000Z",
    (s) =>
      turns(s, "tf", [
        [
          "Some background before you start on the network refactor. Last quarter we decided to keep every environment in its own root with its own state (envs/dev, envs/stg, envs/prod) rather than using workspaces: workspaces made it far too easy to plan against the wrong environment, and one of us did exactly that. Shared modules come from our own repository, git::https://git.example.net/infra/tf-modules.git pinned by ref tags, and modules never reference each other by relative path. What I'd like today is the security lists in envs/dev converted to NSGs.",
          R,
          D(
            "decision",
            "project",
            "Each environment has its own root and state (envs/dev, envs/stg, envs/prod) instead of workspaces, which made planning against the wrong environment too easy.",
          ),
          D(
            "fact",
            "project",
            "Shared modules come from git::https://git.example.net/infra/tf-modules.git, pinned by ref tags.",
          ),
          D("rule", "project", "Modules never reference each other by relative path."),
        ],
        ["leave stg and prod alone until next week", HN("one-off")],
        ["maybe we hit the per-NSG rule limit with the analytics ports?", HN("hypothesis")],
      ]),
  ),
];

const QT: Script[] = [
  sc(
    "b33-qt-68",
    "qt",
    "a stored Qt version changed; a stored QML registration rule repeated; a question",
    "2026-09-04T08:15:00.000Z",
    (s) =>
      turns(s, "qt", [
        [
          "we're moving to qt 6.8, the new LTS. bump find_package and the CI image",
          R,
          D("fact", "project", "meterview builds with Qt 6.8 LTS.", { contra: S.qtVer }),
        ],
        [
          "the new TrendModel: QML_ELEMENT like all the other models, not setContextProperty",
          R,
          D("rule", "project", "Models are registered with QML_ELEMENT, not setContextProperty.", {
            dup: S.qtQml,
          }),
        ],
        ["does 6.8 still have the Qt5Compat graphical effects?", Q],
      ]),
    [S.qtVer, S.qtQml],
  ),
  sc(
    "b34-qt-baud",
    "qt",
    "a stored serial setting changed to a per-device value; a stored translation rule repeated; descriptive always",
    "2026-09-05T12:40:00.000Z",
    (s) =>
      turns(s, "qt", [
        [
          "the new keysight meter talks at 9600 baud, the rigol stays at 115200. so the baud rate can't be a constant anymore, it belongs in the device profile",
          R,
          D(
            "fact",
            "project",
            "The baud rate is part of the device profile: 115200 for the Rigol meter, 9600 for the Keysight.",
            { contra: S.qtSerial },
          ),
        ],
        [
          "and the labels in the new settings dialog can't be translated. qsTr() around anything the user reads",
          R,
          D("rule", "project", "Any text the user reads is wrapped in qsTr().", { dup: S.qtTr }),
        ],
        ["the first query after plugging the meter in always times out", HN("one-off")],
      ]),
    [S.qtSerial, S.qtTr],
  ),
  sc(
    "b35-qt-anthropic",
    "qt",
    "an Anthropic key pasted for a one-off try; an offline rule and a packaging fact after it",
    "2026-09-06T15:55:00.000Z",
    (s) => {
      const key = s.secret("anthropic");
      s.userS(
        `try the summarise-log feature against the real api, once. key: ${key}`,
        [key],
        N("secret"),
        R,
      );
      s.tools(WORK.qt[0]);
      s.say(
        "It returned a four-line summary of the 2,000-line log; I passed the key via the environment only.",
      );
      turns(s, "qt", [
        [
          "good. the summariser stays opt-in and off by default — the lab PCs are offline and nothing in the app may phone home unless the user switched it on",
          D(
            "rule",
            "project",
            "The log summariser is opt-in and off by default; the app makes no network calls unless the user enables it.",
          ),
        ],
        [
          "windows packaging is windeployqt plus the inno setup script in packaging/win, Elise builds the installer by hand on her machine",
          D(
            "fact",
            "project",
            "Windows packages are made with windeployqt and the Inno Setup script in packaging/win; Elise builds the installer by hand.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "b36-qt-qtgraphs",
    "qt",
    "a decision with its reason in passing; a hypothesis; a demo one-off",
    "2026-09-07T09:10:00.000Z",
    (s) =>
      turns(s, "qt", [
        ["the chart drops points once we go above 20 samples/s", R],
        [
          "it's QtGraphs now btw, we dropped QtCharts on the 6.8 branch since it's deprecated. so look in qml/TrendView.qml",
          R,
          D(
            "decision",
            "project",
            "Charts use QtGraphs instead of the deprecated QtCharts.",
          ),
        ],
        ["hm, maybe windows timer coalescing?", HN("hypothesis")],
        ["for the demo on friday just hardcode the rigol profile", HN("one-off")],
        ["ok fine, commit it", R],
      ]),
  ),
];

const PP: Script[] = [
  sc(
    "b37-pp-puppet8",
    "pp",
    "a stored Puppet version changed; a stored roles-and-profiles rule repeated inside a request; a question about the future",
    "2026-09-08T08:25:00.000Z",
    (s) =>
      turns(s, "pp", [
        [
          "primary and all agents are on puppet 8 since the upgrade weekend. rip out the puppet 7 compat shims in profile::base",
          R,
          D("fact", "project", "The primary and all agents run Puppet 8.", { contra: S.ppVer }),
        ],
        [
          "new role for the grafana box, role::monitoring::grafana. it includes profiles and nothing else, and the node gets that one role only",
          R,
          D(
            "rule",
            "project",
            "A role includes only profiles, and each node gets exactly one role.",
            { dup: S.ppRoles },
          ),
        ],
        ["should we look at openvox next year?", HN("question")],
      ]),
    [S.ppVer, S.ppRoles],
  ),
  sc(
    "b38-pp-vault",
    "pp",
    "a stored Hiera rule repeated; a stored secrets mechanism replaced; an MR-scoped one-off",
    "2026-09-09T11:50:00.000Z",
    (s) =>
      turns(s, "pp", [
        [
          "the ntp servers are hardcoded in profile::base::time. move them to hiera, data doesn't belong in manifests",
          R,
          D("rule", "project", "Data goes in Hiera, not in manifests.", { dup: S.ppHiera }),
        ],
        [
          "also we're done with eyaml. secrets come from vault at compile time through hiera_vault now — don't add any new eyaml blobs",
          D(
            "decision",
            "project",
            "Secrets come from Vault at compile time through hiera_vault; no new hiera-eyaml values.",
            { contra: S.ppEyaml },
          ),
        ],
        ["in this MR leave the existing eyaml values where they are", HN("one-off")],
      ]),
    [S.ppHiera, S.ppEyaml],
  ),
  sc(
    "b39-pp-webhook-token",
    "pp",
    "a hex webhook token inside an otherwise durable deploy rule; a branch fact; a question",
    "2026-09-10T14:35:00.000Z",
    (s) => {
      const tok = s.secret("hex");
      s.userS(
        `code gets onto the primary only through the r10k webhook at puppet.corp.example:8088, nobody runs r10k by hand on the box. R10K_WEBHOOK_TOKEN=${tok} — write the gitlab ci job that calls it after merge`,
        [tok],
        R,
        D(
          "rule",
          "project",
          "Code reaches the primary only through the r10k webhook at puppet.corp.example:8088; nobody runs r10k by hand.",
          { secret: true },
        ),
      );
      s.tools(WORK.pp[0]);
      s.say(
        "Added a deploy job that reads the token from a masked CI variable R10K_WEBHOOK_TOKEN.",
      );
      turns(s, "pp", [
        [
          "environments map 1:1 to branches, and the production environment is the `production` branch, not main",
          D(
            "fact",
            "project",
            "Puppet environments map to branches; the production environment is the production branch, not main.",
          ),
        ],
        ["how do I try a branch environment on a single node?", Q],
      ]);
    },
  ),
  sc(
    "b40-pp-rejected-agent-run",
    "pp",
    "a merge bar; a dev setup fact; a rejected tool call followed by a rule; descriptive never; a question phrased like a rule",
    "2026-09-11T09:05:00.000Z",
    (s) => {
      turns(s, "pp", [
        [
          "pdk validate plus the rspec-puppet tests green before anything gets merged, that's the bar",
          D(
            "rule",
            "project",
            "pdk validate and the rspec-puppet tests must pass before a merge.",
          ),
        ],
        [
          "dev nodes are vagrant boxes, `vagrant up web01` brings one up against the staging primary puppet-stg.corp.example",
          D(
            "fact",
            "project",
            "Dev nodes are Vagrant boxes (vagrant up web01) that run against the staging primary puppet-stg.corp.example.",
          ),
        ],
      ]);
      s.user("now check the apache profile actually applies", R);
      s.rejectedTool("Bash", { command: "ssh web-prod-03 sudo puppet agent -t --noop" });
      s.user(
        "no! don't run the agent on production nodes from here, not even with --noop. use the vagrant boxes",
        D(
          "rule",
          "project",
          "The agent is never run on production nodes from the dev machine, not even with --noop; checks use the Vagrant boxes.",
        ),
      );
      s.tools(WORK.pp[0]);
      s.say("Ran it on the web01 Vagrant box instead; the apache profile applies cleanly.");
      turns(s, "pp", [
        ["it never applies cleanly on the old centos 7 boxes", HN("one-off")],
        ["should every profile always ship its own hiera defaults?", HN("question")],
      ], 1);
    },
  ),
];

const MIXED: Script[] = [
  sc(
    "b41-dt-global-prefs",
    "dt",
    "a stored global rule repeated with a marker; a stored global branch-naming preference changed; a new global preference",
    "2026-09-12T08:40:00.000Z",
    (s) =>
      turns(s, "dt", [
        ["add pagination to GET /bookings, cursor based", R],
        [
          "and ask me before you add a package. same rule in every repo of mine, I've said it before",
          D("rule", "global", "Ask before adding a new dependency.", { dup: S.gAskDep }),
        ],
        [
          "new branch naming for me everywhere: feat/<short-slug> or fix/<short-slug>. no initials, no ticket number, the ticket goes in the PR body",
          D(
            "preference",
            "global",
            "Branch names are feat/<short-slug> or fix/<short-slug>, without initials or ticket number (the ticket goes in the PR body).",
            { contra: S.gBranch },
          ),
        ],
        [
          "PR descriptions under ten lines please, I don't read walls of text",
          D("preference", "global", "PR descriptions stay under ten lines."),
        ],
      ]),
    [S.gBranch, S.gAskDep],
  ),
  sc(
    "b42-ro-long-compacted",
    "ro",
    "a long session with a compaction; a stored launch rule repeated nearly word for word; a new test rule; a hardware fact; hard negatives",
    "2026-09-13T09:00:00.000Z",
    (s) => {
      turns(s, "ro", [
        ["add a battery monitor node that publishes on /battery_state", R],
        [
          "every node gets a launch_testing test in test/, starts it, checks it publishes. no node without one",
          D(
            "rule",
            "project",
            "Every node has a launch_testing test in test/ that starts it and checks it publishes.",
          ),
        ],
        ["for the demo run skip the battery monitor in bringup", HN("one-off")],
        ["what's a sane publish rate for battery state?", Q],
        ["1 Hz then. wire it up", R],
      ]);
      s.compact(
        "The user asked for a battery monitor node publishing /battery_state at 1 Hz (done, with a launch_testing test), said every node needs a launch_testing test in test/, and asked to leave the node out of bringup for the demo run (done).",
      );
      turns(s, "ro", [
        [
          "launch files are python launch files under launch/ — put bringup_demo.launch.py there",
          R,
          D("rule", "project", "Launch files are Python launch files under launch/.", {
            dup: S.roLaunch,
          }),
        ],
        [
          "the gps is a u-blox F9P on /dev/ttyACM0, RTK corrections come from the NTRIP caster at rtk.farm.example:2101",
          D(
            "fact",
            "project",
            "The GPS is a u-blox F9P on /dev/ttyACM0 with RTK corrections from the NTRIP caster at rtk.farm.example:2101.",
          ),
        ],
        ["I bet the fix drops because of the trees, not the driver", HN("hypothesis")],
        ["ok, commit everything and push the branch", R],
      ], 1);
    },
    [S.roLaunch],
  ),
  sc(
    "b43-tf-global-long",
    "tf",
    "a stored global preference repeated with a marker; a stored global emoji rule reversed; a global fact about the user; a one-off; a question",
    "2026-09-14T10:15:00.000Z",
    (s) =>
      turns(s, "tf", [
        ["the dns zone module is a mess, clean up its variables", R],
        [
          "give me the short diff summary before every commit, like always",
          D("preference", "global", "Show a short diff summary before each commit.", {
            dup: S.gDiff,
          }),
        ],
        [
          "and I've come round on emoji — in my commits they're fine now, gitmoji style. comments still plain",
          D(
            "preference",
            "global",
            "Emoji are fine in commit messages (gitmoji style) but not in code comments.",
            { contra: S.gEmoji },
          ),
        ],
        ["rename var.zone to var.zone_name everywhere", R],
        [
          "explain things assuming I know terraform well but OCI barely, I come from years of AWS",
          D(
            "fact",
            "global",
            "The user knows Terraform well but OCI little, coming from AWS; explanations should assume that.",
          ),
        ],
        ["for the review tomorrow keep var.zone as a deprecated alias", HN("one-off")],
        ["would moved blocks handle the rename without recreating the records?", Q],
      ]),
    [S.gDiff, S.gEmoji],
  ),
  sc(
    "b44-rk-global-phone",
    "rk",
    "a stored global rule repeated as a project instance; two new global preferences; a question",
    "2026-09-15T07:50:00.000Z",
    (s) =>
      turns(s, "rk", [
        ["add a csv export of late-day usage per student", R],
        [
          "and run raco test before you tell me it's finished",
          D("rule", "global", "Run the tests before saying a change is done.", { dup: S.gTests }),
        ],
        [
          "one thing about me: I read these sessions on my phone between lectures, so keep code blocks narrow, ~70 columns",
          D("preference", "global", "Keep code blocks in answers narrow, about 70 columns."),
        ],
        [
          "also british spelling in comments and docs, in all my repos (colour, behaviour…)",
          D("preference", "global", "Use British spelling in comments and docs."),
        ],
        ["does the csv lib quote fields that contain commas?", Q],
      ]),
    [S.gTests],
  ),
];

export const HOLDOUT13: Script[] = [
  ...RK,
  ...DT,
  ...VL,
  ...RO,
  ...PS,
  ...SF,
  ...JK,
  ...TF,
  ...QT,
  ...PP,
  ...MIXED,
];
