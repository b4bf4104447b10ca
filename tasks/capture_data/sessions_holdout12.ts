/**
 * Hand-written sessions of the capture benchmark's `holdout12` split: written blind on 2026-11-29
 * by a helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs pages
 * or results (nor the main checkout or any other helper's worktree), registered as unrun before it
 * was written and frozen before any run against it. About half of its 44 sessions have stored
 * memories, which the user repeats (often in other words), changes, or extends with a new
 * statement on the same topic; the others are ordinary sessions with rules, decisions, setup facts
 * in passing, global preferences, hard negatives and pasted secrets. Ten projects new to the data
 * set: a Crystal CLI, a Godot C# game, a COBOL-to-Java migration, a Scala/Akka system, a
 * Perl/Mojolicious library app, an F#/Giraffe service, an Elixir Nerves firmware, an Erlang/OTP
 * broker, a MATLAB/Simulink toolbox and an Elm front end.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) or a look-alike that states no rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout12 split's projects. */
const P = {
  cr: "/home/priya/crystal/logshipper-cr",
  gd: "/Users/noah/godot/StarforgeTactics",
  cb: "/home/carmen/work/policy-migrate",
  ak: "/home/jonas/scala/signal-akka",
  pm: "/home/walter/perl/libcat-mojo",
  fs: "/home/aoife/dotnet/ferry-sched-fs",
  nv: "/home/kofi/elixir/greenhouse-nerves",
  er: "/home/ingrid/erl/beacon-broker",
  mt: "/Users/hanna/matlab/cellsim-toolbox",
  el: "/home/rosa/elm/tidechart-elm",
} as const;
type Proj = keyof typeof P;

const WORK: Record<Proj, ToolStep[]> = {
  cr: [
    bash(
      "crystal spec",
      "..................................\n\nFinished in 1.21 seconds\n34 examples, 0 failures, 0 errors, 0 pending",
    ),
    read(
      `${P.cr}/src/shipper.cr`,
      'require "http/client"\nrequire "./batch"\n\nmodule Logshipper\n  class Shipper\n    def initialize(@endpoint : URI, @batch_size : Int32 = 500)\n    end\n\n    def ship(lines : Array(String)) : Bool\n      Batch.new(lines).post(@endpoint)\n    end\n  end\nend',
    ),
  ],
  gd: [
    bash(
      "dotnet test Tests/Tests.csproj --nologo",
      "  Determining projects to restore...\n  All projects are up-to-date for restore.\nPassed!  - Failed:     0, Passed:    58, Skipped:     0, Total:    58, Duration: 912 ms",
    ),
    read(
      `${P.gd}/Scripts/Units/UnitController.cs`,
      'using Godot;\n\nnamespace Starforge.Units;\n\npublic partial class UnitController : Node2D\n{\n    [Export] public int MoveRange { get; set; } = 4;\n\n    public event System.Action<UnitController>? Selected;\n\n    public override void _Ready() => AddToGroup("units");\n}',
    ),
  ],
  cb: [
    bash(
      "./gradlew :batch:test --console=plain | tail -4",
      "> Task :batch:test\n\nBUILD SUCCESSFUL in 41s\n7 actionable tasks: 3 executed, 4 up-to-date",
    ),
    read(
      `${P.cb}/legacy/cbl/PREMCALC.cbl`,
      "       IDENTIFICATION DIVISION.\n       PROGRAM-ID. PREMCALC.\n       DATA DIVISION.\n       WORKING-STORAGE SECTION.\n       01  WS-PREMIUM        PIC S9(9)V99 COMP-3.\n       01  WS-RATE           PIC 9V9(4)   COMP-3.\n       PROCEDURE DIVISION.\n           COMPUTE WS-PREMIUM ROUNDED = WS-BASE * WS-RATE.",
    ),
  ],
  ak: [
    bash(
      "sbt -batch 'testOnly signal.ingest.*'",
      "[info] IngestSpec:\n[info] - should accept a telemetry frame\n[info] - should reject a frame with a bad checksum\n[info] Tests: succeeded 14, failed 0, canceled 0, ignored 0, pending 0\n[success] Total time: 38 s",
    ),
    read(
      `${P.ak}/ingest/src/main/scala/signal/ingest/DeviceEntity.scala`,
      "package signal.ingest\n\nobject DeviceEntity {\n  sealed trait Command\n  final case class Record(frame: Frame, replyTo: ActorRef[Ack]) extends Command\n\n  def apply(id: String): Behavior[Command] =\n    Behaviors.setup(ctx => active(id, State.empty))\n}",
    ),
  ],
  pm: [
    bash(
      "carton exec -- prove -lr t/",
      "t/api/loans.t ........ ok\nt/api/patrons.t ...... ok\nt/model/catalogue.t .. ok\nAll tests successful.\nFiles=3, Tests=61,  3 wallclock secs",
    ),
    read(
      `${P.pm}/lib/Libcat/Controller/Loans.pm`,
      "package Libcat::Controller::Loans;\nuse Mojo::Base 'Mojolicious::Controller', -signatures;\n\nsub list ($self) {\n  my $loans = $self->pg->db->select('loans', '*', {returned_at => undef})->hashes;\n  $self->render(json => $loans);\n}\n\n1;",
    ),
  ],
  fs: [
    bash(
      "dotnet test --nologo -v q",
      "Passed!  - Failed:     0, Passed:    37, Skipped:     0, Total:    37, Duration: 640 ms - FerrySched.Tests.dll (net8.0)",
    ),
    read(
      `${P.fs}/src/FerrySched/Handlers.fs`,
      "module FerrySched.Handlers\n\nopen Giraffe\n\nlet departures (route: string) : HttpHandler =\n    fun next ctx ->\n        match Timetable.forRoute route with\n        | Ok deps -> json deps next ctx\n        | Error e -> RequestErrors.NOT_FOUND e next ctx",
    ),
  ],
  nv: [
    bash(
      "MIX_TARGET=host mix test",
      "Compiling 3 files (.ex)\n..................\nFinished in 0.4 seconds (0.1s async, 0.3s sync)\n18 tests, 0 failures",
    ),
    read(
      `${P.nv}/lib/greenhouse/sensors.ex`,
      "defmodule Greenhouse.Sensors do\n  use GenServer\n  alias Circuits.I2C\n\n  def read(name), do: GenServer.call(__MODULE__, {:read, name})\n\n  @impl true\n  def handle_call({:read, :sht31}, _from, state) do\n    {:reply, Sht31.read(state.bus), state}\n  end\nend",
    ),
  ],
  er: [
    bash(
      "rebar3 eunit",
      "===> Verifying dependencies...\n===> Analyzing applications...\n===> Compiling beacon\n===> Performing EUnit tests...\n.......................\nFinished in 0.318 seconds\n23 tests, 0 failures",
    ),
    read(
      `${P.er}/apps/beacon/src/beacon_conn.erl`,
      "-module(beacon_conn).\n-behaviour(gen_statem).\n\n-export([start_link/1, callback_mode/0, init/1]).\n\nstart_link(Socket) ->\n    gen_statem:start_link(?MODULE, Socket, []).\n\ncallback_mode() -> state_functions.\n\ninit(Socket) ->\n    {ok, connecting, #{socket => Socket}}.",
    ),
  ],
  mt: [
    bash(
      "matlab -batch \"results = runtests('tests'); disp(table(results))\"",
      "Running EcmTest\n......\nDone EcmTest\n__________\n\n    Name                    Passed    Failed    Incomplete    Duration\n    6 tests                 6         0         0             2.914",
    ),
    read(
      `${P.mt}/+cellsim/ecm.m`,
      "function v = ecm(cell, i, dt)\n%ECM Two-RC equivalent circuit model of a cell.\n%   v = ecm(cell, i, dt) returns the terminal voltage in volts.\n    ocv = interp1(cell.soc, cell.ocv, cell.state.soc);\n    v = ocv - i * cell.r0 - cell.state.v1 - cell.state.v2;\nend",
    ),
  ],
  el: [
    bash(
      "npx elm-test",
      "elm-test 0.19.1-revision12\n--------------------------\n\nRunning 29 tests. To reproduce these results, run: elm-test --fuzz 100 --seed 2219\n\nTEST RUN PASSED\n\nPassed:   29\nFailed:   0",
    ),
    read(
      `${P.el}/src/Page/Station.elm`,
      "module Page.Station exposing (Model, Msg, init, update, view)\n\nimport Api.Decode exposing (tideSeries)\nimport Html exposing (Html, div, text)\nimport Http\n\ntype Msg\n    = GotSeries (Result Http.Error (List TidePoint))",
    ),
  ],
};

const ACK = [
  "All green; the change is in.",
  "Done — tests re-run, nothing else moved.",
  "Made the change and checked it builds.",
  "That's in place.",
  "Finished; the diff is small.",
  "OK, done. Shout if you want it another way.",
  "Implemented and verified.",
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
  const versions = ["2.0.33", "2.0.14", "1.0.88", "2.0.28", "2.0.37", "2.0.21"];
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
  crVer: "logshipper-cr builds with Crystal 1.12.",
  crSpec: "Tests use Crystal's built-in spec module; no third-party test shard.",
  crStatic: "Release binaries are linked statically against musl, built in an Alpine container.",
  crConf: "Configuration is read from the YAML file /etc/logshipper/config.yml.",
  crLint: "Code must pass `crystal tool format --check` and ameba before merge.",
  gdVer: "StarforgeTactics is on Godot 4.2 with .NET 8 (C#).",
  gdSignals: "Scenes talk to each other through C# events; no GetNode paths across scenes.",
  gdSave: "Save games are JSON files in user://saves/.",
  gdArt: "Mei owns the tilesets; code changes never edit the .tres tileset files.",
  gdNull: "Nullable reference types are enabled and compiler warnings are errors.",
  cbJava: "The Java side targets Java 17 with Spring Boot 3.2.",
  cbParity:
    "Every migrated program must produce byte-identical output to the COBOL program on the golden files.",
  cbDecimal: "COMP-3 amounts map to BigDecimal with the COBOL scale; never double.",
  cbCopy:
    "Copybooks are turned into Java records by the cb2java generator; generated code is never hand-edited.",
  cbOwner: "Hector signs off on every migrated batch program.",
  cbDb: "The target database is DB2 for z/OS until the cutover.",
  akVer: "signal-akka uses Akka 2.6 with Scala 2.13.",
  akTyped: "Actors use the typed API (akka.actor.typed); no classic actors.",
  akSer: "Messages between nodes are serialized with Jackson CBOR, never Java serialization.",
  akAsk: "Ask timeouts are 3 seconds.",
  pmPerl: "libcat-mojo runs on Perl 5.36 with Mojolicious 9.",
  pmStrict: "Every module starts with use strict and use warnings (or Mojo::Base).",
  pmDeps: "Dependencies are declared in the cpanfile and installed with carton.",
  pmDb: "Database access uses Mojo::Pg; no DBIx::Class or other ORM.",
  fsNet: "ferry-sched-fs targets .NET 8 with F# 8.",
  fsGiraffe: "HTTP endpoints are Giraffe HttpHandlers; no MVC controllers.",
  fsErr: "Domain functions return Result; exceptions are not used for expected failures.",
  fsTz: "Times are stored in UTC and converted to Europe/Dublin only for display.",
  nvTarget: "The firmware targets the rpi4 with Nerves 1.10.",
  nvOta: "Production devices are updated only through NervesHub; nobody flashes them by hand.",
  nvSensor:
    "Sensor reads go through the Greenhouse.Sensors GenServer; nothing else calls Circuits.I2C.",
  nvInterval: "Sensors are sampled every 30 seconds.",
  erOtp: "beacon-broker runs on OTP 26 and builds with rebar3.",
  erLog: "Logging uses the logger module with structured maps; no io:format.",
  erSup: "Every process is started under a supervisor; no bare spawn.",
  erPort: "The broker listens for MQTT on 1883 and serves the admin API on 8080.",
  erOwner: "Ingrid reviews every change to the session store.",
  mtVer: "cellsim-toolbox supports MATLAB R2023b and newer.",
  mtTests: "Tests are class-based matlab.unittest tests under tests/.",
  mtModels: "Simulink models are saved as .slx, never .mdl.",
  mtUnits: "All quantities are kept in SI units inside the toolbox.",
  elPorts: "JavaScript interop goes only through ports declared in src/Ports.elm.",
  elCss: "Styling uses elm-css; there are no external stylesheets.",
  elApi: "The tide data API is https://api.tidechart.io/v2.",
  elReview: "elm-review must pass with no suppressed errors.",
  gTests: "Run the tests before reporting that a change is done.",
  gCommits: "Commit messages follow Conventional Commits (feat:, fix:, …).",
  gShort: "Keep answers short; no recap of every changed file.",
} as const;

const CR: Script[] = [
  sc(
    "p01-cr-spec-synonym",
    "cr",
    "a stored test rule repeated in other words; a stored compiler version changed; a one-off",
    "2026-10-12T08:10:00.000Z",
    (s) =>
      turns(s, "cr", [
        ["add a --dry-run flag that prints the batches instead of posting them", R],
        [
          "tests for it go in spec/ with the stdlib spec, we don't bring in a testing shard for that",
          D(
            "rule",
            "project",
            "Tests are written with the standard library's spec, without a testing shard.",
            { dup: S.crSpec },
          ),
        ],
        [
          "oh and we're on crystal 1.14 since last week, so the new `Path#each_parent` is fine to use",
          D("fact", "project", "logshipper-cr builds with Crystal 1.14.", { contra: S.crVer }),
        ],
        ["for now keep the old -v alias working too, I'll remove it in december", HN("one-off")],
      ]),
    [S.crSpec, S.crVer],
  ),
  sc(
    "p02-cr-toml-config",
    "cr",
    "a stored config location changed; a stored build rule repeated casually",
    "2026-10-13T14:30:00.000Z",
    (s) =>
      turns(s, "cr", [
        [
          "config parsing: we switched to toml, the file is /etc/logshipper/config.toml now and the yaml loader got deleted in #212. the README still talks about yaml, fix that",
          R,
          D(
            "fact",
            "project",
            "Configuration is read from the TOML file /etc/logshipper/config.toml; the YAML loader is gone.",
            { contra: S.crConf },
          ),
        ],
        [
          "then cut the release binary the normal way — alpine container, musl, fully static",
          R,
          D(
            "rule",
            "project",
            "Release binaries are built fully static against musl in an Alpine container.",
            { dup: S.crStatic },
          ),
        ],
        ["why is the binary 9 MB? is that the debug info?", Q],
      ]),
    [S.crConf, S.crStatic],
  ),
  sc(
    "p03-cr-loki-facts",
    "cr",
    "a setup fact in passing inside a request; a rule with its reason; hard negatives; an agent hypothesis",
    "2026-10-14T09:00:00.000Z",
    (s) => {
      s.user(
        "batches get lost when Loki restarts. it's the loki at loki.ops.internal:3100, single instance, no HA. can you look?",
        R,
        D(
          "fact",
          "project",
          "Logs are shipped to a single Loki instance at loki.ops.internal:3100 (no HA).",
        ),
      );
      s.tools(WORK.cr[1]);
      s.say(
        "It's probably the HTTP client reusing a dead keep-alive connection after the restart.",
        HN("hypothesis"),
      );
      turns(s, "cr", [
        [
          "ok. retries back off exponentially, capped at 60s, and a batch is never dropped without writing it to the spool dir — ops has been burned by silent loss before",
          D(
            "rule",
            "project",
            "Failed batches are retried with exponential backoff capped at 60 s and are never dropped without being written to the spool directory.",
          ),
        ],
        ["it always stalls when the disk fills up, no idea why", HN("one-off")],
        ["should we never buffer more than 10k lines in memory?", HN("question")],
      ]);
    },
  ),
  sc(
    "p04-cr-ghp-release",
    "cr",
    "a GitHub token pasted for a one-off upload; a release decision in a later turn",
    "2026-10-15T16:20:00.000Z",
    (s) => {
      const tok = s.secret("github");
      s.userS(
        `upload the v0.9.0 assets to the draft release with this token, it expires tomorrow anyway: ${tok}`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(WORK.cr[0]);
      s.say("Uploaded the linux-amd64 and linux-arm64 tarballs with their checksums.");
      turns(s, "cr", [
        [
          "thanks. going forward the changelog is generated by git-cliff from the commit log, nobody edits CHANGELOG.md by hand — we kept forgetting entries",
          D(
            "decision",
            "project",
            "CHANGELOG.md is generated by git-cliff from the commits and not edited by hand (entries kept getting forgotten).",
          ),
        ],
        ["can you check the arm64 tarball actually runs under qemu?", R],
      ]);
    },
  ),
  sc(
    "p05-cr-lint-terse",
    "cr",
    "terse messages with typos; a stored lint rule repeated word for word; a new rule",
    "2026-10-16T11:45:00.000Z",
    (s) =>
      turns(s, "cr", [
        ["fix teh ameba warnings in src/batch.cr", R],
        [
          "code must pass crystal tool format --check and ameba before merge. so run both",
          R,
          D(
            "rule",
            "project",
            "Code must pass crystal tool format --check and ameba before merge.",
            { dup: S.crLint },
          ),
        ],
        [
          "no `not_nil!` in new code, handle the nil. it crashed prod twice",
          D("rule", "project", "New code does not use not_nil!; nil is handled explicitly."),
        ],
        ["just this once skip the arm build in ci, runner's broken", HN("one-off")],
      ]),
    [S.crLint],
  ),
];

const GD: Script[] = [
  sc(
    "p06-gd-godot43",
    "gd",
    "a stored engine version changed; a stored event rule repeated negated; a new architecture rule",
    "2026-10-17T08:30:00.000Z",
    (s) =>
      turns(s, "gd", [
        [
          "the turn order bar flickers when a unit dies. (we're on godot 4.3 now btw, the .NET 8 build, merged the upgrade on monday)",
          R,
          D("fact", "project", "StarforgeTactics is on Godot 4.3 with .NET 8.", {
            contra: S.gdVer,
          }),
        ],
        [
          'and please don\'t fix it by having the bar dig into the battle scene with GetNode("../../Battle/..."). raise an event and let the bar subscribe',
          D(
            "rule",
            "project",
            "UI does not reach into other scenes with GetNode paths; it subscribes to C# events.",
            { dup: S.gdSignals },
          ),
        ],
        [
          "general thing: game rules (damage, move range, turn order) go in plain C# classes under Core/ with no Godot types, so xunit can test them without the engine",
          D(
            "rule",
            "project",
            "Game rules live in plain C# classes under Core/ with no Godot types, testable with xunit without the engine.",
          ),
        ],
      ]),
    [S.gdVer, S.gdSignals],
  ),
  sc(
    "p07-gd-binary-saves",
    "gd",
    "a stored save format changed with its reason; a stored ownership rule repeated with a marker",
    "2026-10-18T19:05:00.000Z",
    (s) =>
      turns(s, "gd", [
        [
          "loading a 64x64 map takes 3s. we decided to drop json saves: from now on saves are binary .sav files in user://saves/ written with the MessagePack serializer. json was too slow on the big maps",
          D(
            "decision",
            "project",
            "Save games are binary .sav files (MessagePack) in user://saves/ instead of JSON, because JSON was too slow on big maps.",
            { contra: S.gdSave },
          ),
        ],
        [
          "add a migration that reads old json saves once and rewrites them",
          R,
        ],
        [
          "like always, the tilesets belong to Mei — if the fix needs a .tres change, write it down for her and leave the file alone",
          D(
            "rule",
            "project",
            "The .tres tileset files are Mei's; code changes do not edit them.",
            {
              dup: S.gdArt,
            },
          ),
        ],
      ]),
    [S.gdSave, S.gdArt],
  ),
  sc(
    "p08-gd-terse-astar",
    "gd",
    "terse user with typos; a decision with its reason; a CI fact; hard negatives",
    "2026-10-19T10:15:00.000Z",
    (s) =>
      turns(s, "gd", [
        [
          "units walk thru walls on hex maps again. maps are tiled .tmx files imported w/ the YATI plugin, check the import first",
          R,
          D("fact", "project", "Maps are Tiled .tmx files imported with the YATI plugin."),
        ],
        [
          "pathfinding stays A* on the hex grid. dont swap to navmesh, we tried, units cut corners",
          D(
            "decision",
            "project",
            "Pathfinding is A* on the hex grid, not a navmesh (navmesh units cut corners).",
          ),
        ],
        [
          "ci = gh actions w/ the barichello godot-ci image fyi",
          D("fact", "project", "CI runs on GitHub Actions with the barichello godot-ci image."),
        ],
        ["for this branch keep the debug path overlay on", HN("one-off")],
        ["hmm maybe the blocked-cell cache isnt invalidated when a wall spawns", HN("hypothesis")],
      ]),
  ),
  sc(
    "p09-gd-balance-confirm",
    "gd",
    "an agent proposal confirmed with a reason; a question; a reported opinion",
    "2026-10-20T13:40:00.000Z",
    (s) => {
      s.user("the archer is way too strong, drop its range by one", R);
      ask(
        s,
        "gd",
        "Range is now 3. I noticed the numbers are scattered across unit scripts; I put them in Resources/Balance.tres. Should all tunable unit numbers live in that resource?",
        1,
      );
      s.confirm(
        "yes — designers tweak those without recompiling",
        "rule",
        "project",
        "All tunable unit numbers live in Resources/Balance.tres.",
      );
      turns(s, "gd", [
        [
          "Kai keeps saying we should never use Godot signals from C# at all. what do you think?",
          HN("question"),
        ],
      ]);
    },
  ),
];

const CB: Script[] = [
  sc(
    "p10-cb-premcalc-dups",
    "cb",
    "two stored rules repeated (one reworded, one nearly verbatim); a new setup fact",
    "2026-10-21T07:50:00.000Z",
    (s) =>
      turns(s, "cb", [
        [
          "next up is PREMCALC. money fields become BigDecimal with the same scale as the PIC clause, doubles are off the table",
          R,
          D(
            "rule",
            "project",
            "Packed-decimal money fields become BigDecimal with the PIC clause's scale, never double.",
            { dup: S.cbDecimal },
          ),
        ],
        [
          "and every migrated program has to produce byte-identical output to the COBOL program on the golden files, as usual",
          D(
            "rule",
            "project",
            "Migrated programs must produce byte-identical output to the COBOL program on the golden files.",
            { dup: S.cbParity },
          ),
        ],
        [
          "the golden files for this quarter are in /mnt/golden/2024Q4 on the build box",
          D("fact", "project", "The golden files are in /mnt/golden/2024Q4 on the build box."),
        ],
      ]),
    [S.cbDecimal, S.cbParity],
  ),
  sc(
    "p11-cb-java21-signoff",
    "cb",
    "a stored Java version changed; a stored sign-off owner changed",
    "2026-10-22T12:10:00.000Z",
    (s) =>
      turns(s, "cb", [
        [
          "the platform team approved it: we're moving the java side to Java 21 (spring boot stays 3.2), so the batch runner can use virtual threads. update the toolchain in build.gradle",
          R,
          D("fact", "project", "The Java side targets Java 21 with Spring Boot 3.2.", {
            contra: S.cbJava,
          }),
        ],
        [
          "also Hector retired in october. Beatriz signs off on migrated batch programs now, put her on the PR",
          R,
          D("fact", "project", "Beatriz signs off on every migrated batch program.", {
            contra: S.cbOwner,
          }),
        ],
        ["is there anything in the runner that pins threads with synchronized?", Q],
      ]),
    [S.cbJava, S.cbOwner],
  ),
  sc(
    "p12-cb-cutover",
    "cb",
    "a stored database fact changed by the cutover; a stored generator rule repeated shortened",
    "2026-10-23T15:35:00.000Z",
    (s) =>
      turns(s, "cb", [
        [
          "the cutover happened on saturday. target db is postgres 16 now; db2 stays around as a read-only archive",
          D(
            "fact",
            "project",
            "After the cutover the target database is Postgres 16; DB2 is a read-only archive.",
            { contra: S.cbDb },
          ),
        ],
        ["port the CLMREAD queries to postgres syntax", R],
        [
          "the records under generated/ — hands off, change the copybook and rerun cb2java",
          D(
            "rule",
            "project",
            "Generated records are not hand-edited; change the copybook and rerun cb2java.",
            { dup: S.cbCopy },
          ),
        ],
      ]),
    [S.cbDb, S.cbCopy],
  ),
  sc(
    "p13-cb-trace-password",
    "cb",
    "a pasted stack trace with a fact at its end; a password in a JDBC URL for a one-off; a quoted maxim",
    "2026-10-24T09:25:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userBlocks(
        [
          "CLMPOST blew up in the nightly:",
          "java.lang.ArithmeticException: Rounding necessary\n\tat java.base/java.math.BigDecimal.setScale(BigDecimal.java:3017)\n\tat com.insurer.batch.clmpost.ClaimPoster.post(ClaimPoster.java:88)\n\tat com.insurer.batch.Runner.run(Runner.java:41)",
          "the nightly batch runs from Control-M at 02:15, job CLMPOST_N, so it has to be green by tomorrow",
        ],
        R,
        D("fact", "project", "The nightly batch is run by Control-M at 02:15 (job CLMPOST_N)."),
      );
      s.tools(WORK.cb[1]);
      s.say("The COBOL uses ROUNDED there; the Java port calls setScale without a rounding mode.");
      s.userS(
        `check the rows it failed on, just this once against the prod replica: jdbc:postgresql://pg-replica.claims.internal:5432/claims?user=batch_ro&password=${pw}`,
        [pw],
        N("secret"),
        HN("one-off"),
      );
      s.tools(WORK.cb[0]);
      s.say("Three claims had a rate with five decimals; all three now post with HALF_UP.");
      turns(s, "cb", [
        [
          "the old IBM redbook says never trust REDEFINES, ha. anyway, add a test for those three claims",
          R,
          HN("one-off"),
        ],
        [
          "and in ported code every setScale/divide names its RoundingMode explicitly, matching the COBOL ROUNDED clause or its absence",
          D(
            "rule",
            "project",
            "Ported code passes an explicit RoundingMode to every setScale/divide, matching the COBOL ROUNDED clause or its absence.",
          ),
        ],
      ]);
    },
  ),
];

const AK: Script[] = [
  sc(
    "p14-ak-pekko",
    "ak",
    "a stored framework changed (Akka to Pekko) with its reason; a stored actor rule repeated abbreviated",
    "2026-10-25T08:05:00.000Z",
    (s) =>
      turns(s, "ak", [
        [
          "heads up, we finished the move to pekko 1.1 on scala 3.3 because of the akka licence change. package names are org.apache.pekko now. fix the imports in the new alerting module",
          R,
          D(
            "fact",
            "project",
            "signal-akka uses Apache Pekko 1.1 with Scala 3.3 (moved from Akka because of the licence).",
            { contra: S.akVer },
          ),
        ],
        [
          "typed behaviors only. ofc",
          D("rule", "project", "Actors are typed behaviors only.", { dup: S.akTyped }),
        ],
        ["is there a pekko equivalent of akka-persistence-jdbc?", Q],
      ]),
    [S.akVer, S.akTyped],
  ),
  sc(
    "p15-ak-cbor-timeouts",
    "ak",
    "a stored serialization rule repeated with a reason; a stored timeout value changed",
    "2026-10-26T10:50:00.000Z",
    (s) =>
      turns(s, "ak", [
        ["new message type AlarmRaised for the alerting module", R],
        [
          "anything that crosses nodes: CBOR through jackson. java serialization stays switched off, the pentest flagged it",
          D(
            "rule",
            "project",
            "Cross-node messages use Jackson CBOR; Java serialization stays disabled (flagged by a pentest).",
            { dup: S.akSer },
          ),
        ],
        [
          "and bump the ask timeouts to 5 seconds across the board, 3s was too tight under load",
          D("fact", "project", "Ask timeouts are 5 seconds.", { contra: S.akAsk }),
        ],
        ["for the load test tomorrow, turn off passivation", HN("one-off")],
      ]),
    [S.akSer, S.akAsk],
  ),
  sc(
    "p16-ak-staff-paragraph",
    "ak",
    "a staff engineer's long paragraph with facts, a rule and a decision; hard negatives",
    "2026-10-27T09:30:00.000Z",
    (s) => {
      s.user(
        "Some context before you touch the cluster code. We run five nodes on k8s in the telemetry namespace, and Pekko Management listens on 8558 for the health checks and bootstrap. Sharded device entities passivate after two minutes without a message; please keep it that way, memory was the problem last year. We picked the keep-majority split brain strategy over lease-majority because we don't want a dependency on the k8s API for that. The task today: the rebalancing log is too noisy, make it debug level.",
        R,
        D(
          "fact",
          "project",
          "The cluster runs five nodes on Kubernetes in the telemetry namespace; Pekko Management listens on port 8558.",
        ),
        D("rule", "project", "Sharded device entities passivate after two minutes idle."),
        D(
          "decision",
          "project",
          "The split brain resolver uses keep-majority rather than lease-majority, to avoid depending on the Kubernetes API.",
        ),
      );
      s.tools(WORK.ak[1]);
      s.say("The rebalance messages are at debug now.");
      turns(s, "ak", [
        ["should every actor always have an explicit supervisor strategy?", HN("question")],
        ["the ingest spec never passes on my laptop, it's fine in CI", HN("one-off")],
      ]);
    },
  ),
  sc(
    "p17-ak-webhook-rule",
    "ak",
    "a Slack webhook inside an otherwise durable rule; a question",
    "2026-10-28T17:00:00.000Z",
    (s) => {
      const hook = s.secret("slackWebhook");
      s.userS(
        `wire the AlarmRaised events to slack. cluster alerts always go to #signal-ops, never to #general; the webhook is ${hook}`,
        [hook],
        R,
        D(
          "rule",
          "project",
          "Cluster alerts are posted to the Slack channel #signal-ops, never #general.",
          { secret: true },
        ),
      );
      s.tools(WORK.ak[0]);
      s.say("The notifier reads the URL from SLACK_WEBHOOK_URL; I didn't commit it.");
      turns(s, "ak", [["does the notifier retry if slack is down?", Q]]);
    },
  ),
];

const PM: Script[] = [
  sc(
    "p18-pm-strict-carton",
    "pm",
    "two stored rules repeated (one as an instance, one negated); a new rule",
    "2026-10-29T08:40:00.000Z",
    (s) =>
      turns(s, "pm", [
        [
          "new module Libcat::Notices for the overdue letters. strict and warnings on top like every other file",
          R,
          D(
            "rule",
            "project",
            "Modules start with use strict and use warnings.",
            { dup: S.pmStrict },
          ),
        ],
        [
          "it needs Text::CSV_XS. don't cpanm it into the system perl — cpanfile, then carton install",
          R,
          D(
            "rule",
            "project",
            "Modules are added to the cpanfile and installed with carton, not cpanm into the system perl.",
            { dup: S.pmDeps },
          ),
        ],
        [
          "letters are generated in the patron's language; the text lives in share/letters/<lang>/ and nowhere in the perl code",
          D(
            "rule",
            "project",
            "Letter texts live in share/letters/<lang>/, never in the Perl code, and letters use the patron's language.",
          ),
        ],
      ]),
    [S.pmStrict, S.pmDeps],
  ),
  sc(
    "p19-pm-perl540",
    "pm",
    "a stored Perl version changed; a stored database rule repeated in other words",
    "2026-10-30T13:15:00.000Z",
    (s) =>
      turns(s, "pm", [
        [
          "ops upgraded the server to perl 5.40 over the weekend, mojolicious is still 9. so signatures without the feature pragma are fine now",
          D("fact", "project", "libcat-mojo runs on Perl 5.40 with Mojolicious 9.", {
            contra: S.pmPerl,
          }),
        ],
        [
          "add the reservation queue query. plain SQL through the pg helper like everything else, no ORM layer",
          R,
          D(
            "rule",
            "project",
            "Queries are plain SQL through Mojo::Pg; no ORM layer.",
            { dup: S.pmDb },
          ),
        ],
        ["why does morbo not reload when I touch templates?", Q],
      ]),
    [S.pmPerl, S.pmDb],
  ),
  sc(
    "p20-pm-formal-letter",
    "pm",
    "an old-timer's formal letter with a fact and a rule; a quoted maxim; a hypothesis",
    "2026-10-31T09:00:00.000Z",
    (s) =>
      turns(s, "pm", [
        [
          "Good morning,\n\nThe nightly catalogue import from the regional MARC feed (cron, 01:30) failed again. Please investigate. For the record, patron records are never deleted in this system; after seven years without activity they are anonymised by the purge script, as the council requires.\n\nKind regards,\nWalter",
          R,
          D(
            "fact",
            "project",
            "The catalogue is imported nightly at 01:30 by cron from the regional MARC feed.",
          ),
          D(
            "rule",
            "project",
            "Patron records are never deleted; after seven years of inactivity they are anonymised by the purge script.",
          ),
        ],
        [
          "Perl Best Practices says never to use unless with else. I have no opinion on that.",
          HN("one-off"),
        ],
        ["Perhaps the feed changed its encoding to UTF-8?", HN("hypothesis")],
      ]),
  ),
  sc(
    "p21-pm-templates-confirm",
    "pm",
    "an agent proposal confirmed; a private aside; a one-off",
    "2026-11-01T14:20:00.000Z",
    (s) => {
      s.user(
        "<private>my manager wants this done before my review on thursday, fun</private> the loans page needs a 'renew' button",
        N("private"),
        R,
      );
      ask(
        s,
        "pm",
        "Added the button and a POST /loans/:id/renew route. The template is templates/loans/list.html.ep using layouts/default. Should new pages always be .html.ep templates with the default layout?",
        1,
      );
      s.confirm(
        "yes, keep it that way",
        "rule",
        "project",
        "New pages are .html.ep templates that use layouts/default.",
      );
      turns(s, "pm", [
        ["until friday, hide the button for reference loans", HN("one-off")],
        [
          "renewal due dates skip sundays — the branches are closed, so a due date on a sunday moves to monday",
          D(
            "rule",
            "project",
            "Due dates never fall on a Sunday (branches are closed); they move to Monday.",
          ),
        ],
      ]);
    },
  ),
];

const FS: Script[] = [
  sc(
    "p22-fs-result-abbrev",
    "fs",
    "a stored error rule repeated abbreviated; a new feed fact in passing",
    "2026-11-02T08:15:00.000Z",
    (s) =>
      turns(s, "fs", [
        ["the GTFS parser crashes on routes without a short name", R],
        [
          "bad row -> Error case. no throwing",
          D("rule", "project", "Parse failures return an Error case instead of throwing.", {
            dup: S.fsErr,
          }),
        ],
        [
          "fwiw the feed is the NTA GTFS zip, we pull it every night at 04:00 into data/gtfs/",
          D(
            "fact",
            "project",
            "The timetable feed is the NTA GTFS zip, downloaded nightly at 04:00 into data/gtfs/.",
          ),
        ],
        ["expose the routes list at /routes, sorted by route name", R],
      ]),
    [S.fsErr, S.fsGiraffe],
  ),
  sc(
    "p23-fs-net9",
    "fs",
    "a stored runtime version changed; a stored time zone rule repeated reordered",
    "2026-11-03T11:00:00.000Z",
    (s) =>
      turns(s, "fs", [
        [
          "retarget the test project too, the service is on .NET 9 / F# 9 since the last release",
          R,
          D("fact", "project", "ferry-sched-fs targets .NET 9 with F# 9.", { contra: S.fsNet }),
        ],
        [
          "departure board is showing times an hour off. display converts to Dublin time, storage is UTC, nothing else. find where we break that",
          R,
          D(
            "rule",
            "project",
            "Times are stored in UTC and converted to Dublin time only for display.",
            { dup: S.fsTz },
          ),
        ],
        ["probably the DST switch on the 27th", HN("hypothesis")],
      ]),
    [S.fsNet, S.fsTz],
  ),
  sc(
    "p24-fs-terse-rules",
    "fs",
    "terse rules without rule words; a descriptive never; a question",
    "2026-11-04T15:45:00.000Z",
    (s) =>
      turns(s, "fs", [
        [
          "fantomas formats everything. ci rejects unformatted files",
          D("rule", "project", "F# code is formatted with Fantomas; CI rejects unformatted files."),
        ],
        [
          "packages via paket. nuget PackageReference in fsproj = no",
          D(
            "rule",
            "project",
            "Packages are managed with Paket, not PackageReference entries in the .fsproj.",
          ),
        ],
        [
          "the 500s on /departures — check seq, seq.ferry.internal:5341, that's where the structured logs go",
          R,
          D("fact", "project", "Structured logs go to Seq at seq.ferry.internal:5341."),
        ],
        ["it never builds on my m1 without rosetta, whatever", HN("one-off")],
        ["is there a fantomas setting for the long pipelines?", Q],
      ]),
  ),
  sc(
    "p25-fs-openai-once",
    "fs",
    "an OpenAI key pasted for a one-off experiment; a decision with its reason after it",
    "2026-11-05T10:05:00.000Z",
    (s) => {
      const key = s.secret("openai");
      s.userS(
        `quick experiment, just this once: summarise the disruption notices with gpt, key is ${key}. don't commit it`,
        [key],
        N("secret"),
        HN("one-off"),
      );
      s.tools(WORK.fs[0]);
      s.say("The summaries are in /tmp/summaries.json; nothing was committed.");
      turns(s, "fs", [
        [
          "meh. they're not good enough. decision: the service doesn't call any LLM API in production, disruption text is shown as the operator wrote it",
          D(
            "decision",
            "project",
            "The service calls no LLM API in production; disruption notices are shown as the operator wrote them.",
          ),
        ],
      ]);
    },
  ),
];

const NV: Script[] = [
  sc(
    "p26-nv-scd41",
    "nv",
    "a stored sensor rule repeated in other words; a new sensor fact; a new rollout rule beside the stored OTA rule",
    "2026-11-06T07:30:00.000Z",
    (s) =>
      turns(s, "nv", [
        [
          "we got the CO2 sensor, an SCD41, it sits on I2C address 0x62. add it to the readings",
          R,
          D("fact", "project", "The CO2 sensor is an SCD41 at I2C address 0x62."),
        ],
        [
          "and the I2C access goes in the Sensors genserver, don't open the bus from the reading module itself",
          D(
            "rule",
            "project",
            "I2C access happens only inside the Greenhouse.Sensors GenServer.",
            { dup: S.nvSensor },
          ),
        ],
        [
          "when it's ready it goes to the canary group first — the two units in bay 1 run every new firmware for a day before the rest of the barn gets it",
          D(
            "rule",
            "project",
            "New firmware goes to the canary group (the two units in bay 1) for a day before the other units get it.",
          ),
        ],
      ]),
    [S.nvSensor, S.nvOta],
  ),
  sc(
    "p27-nv-zero2w",
    "nv",
    "a stored hardware target changed; a stored sampling interval changed with its reason",
    "2026-11-07T12:40:00.000Z",
    (s) =>
      turns(s, "nv", [
        [
          "we're replacing the pi 4s with pi zero 2 w boards, so the target is rpi3a from now on (still nerves 1.10). update mix.exs and the CI matrix",
          R,
          D("fact", "project", "The firmware targets rpi3a (Pi Zero 2 W) with Nerves 1.10.", {
            contra: S.nvTarget,
          }),
        ],
        [
          "also sample every 10 seconds instead, the growers want finer curves",
          D("fact", "project", "Sensors are sampled every 10 seconds.", { contra: S.nvInterval }),
        ],
        ["will the zero 2 w keep up with 10s sampling plus mqtt?", Q],
      ]),
    [S.nvTarget, S.nvInterval],
  ),
  sc(
    "p28-nv-pasted-log",
    "nv",
    "a pasted log with a broker fact after it; hard negatives",
    "2026-11-08T09:10:00.000Z",
    (s) =>
      turns(s, "nv", [
        [
          "[error] Tortoise311: connection refused (econnrefused)\n[error] Tortoise311: connection refused (econnrefused)\n[info] retrying in 5000ms\n\nthat's the mosquitto on the barn pi, 192.168.40.2:1883. the devices publish there",
          R,
          D(
            "fact",
            "project",
            "The devices publish to Mosquitto on the barn Pi at 192.168.40.2:1883.",
          ),
        ],
        [
          "also the vent motors get stuck half open. they're driven through a Modbus RTU relay board on /dev/ttyUSB0, slave id 3, if you want to poke it",
          R,
          D(
            "fact",
            "project",
            "The vent motors are driven through a Modbus RTU relay board on /dev/ttyUSB0, slave id 3.",
          ),
        ],
        ["for this test run don't let it open the vents, just log what it would do", HN("one-off")],
        ["maybe the broker's max_connections is too low?", HN("hypothesis")],
        ["the vent relay always clicks twice on boot, ignore that", HN("one-off")],
      ]),
  ),
  sc(
    "p29-nv-wifi-psk",
    "nv",
    "a Wi-Fi password pasted for a one-off; a rule on credentials in a later turn",
    "2026-11-09T16:55:00.000Z",
    (s) => {
      const psk = s.secret("password");
      s.userS(
        `for the bench unit on my desk use my hotspot: ssid kofi-phone, WIFI_PSK=${psk}`,
        [psk],
        N("secret"),
        R,
      );
      s.tools(WORK.nv[0]);
      s.say("The bench unit joins the hotspot; I set it through VintageNet at runtime.");
      turns(s, "nv", [
        [
          "right. wifi credentials come from the provisioning data on the device, they are never compiled into the firmware or put in config/",
          D(
            "rule",
            "project",
            "Wi-Fi credentials come from the device's provisioning data and are never compiled into the firmware or put in config/.",
          ),
        ],
        ["can you check nothing leaked into config/target.exs?", R],
      ]);
    },
  ),
];

const ER: Script[] = [
  sc(
    "p30-er-sup-logger",
    "er",
    "a stored supervision rule repeated tersely; a new rule on process state",
    "2026-11-10T08:20:00.000Z",
    (s) =>
      turns(s, "er", [
        [
          "the retained-message sweeper: start it under beacon_sup, no naked spawn",
          R,
          D(
            "rule",
            "project",
            "Processes are started under a supervisor, never with a bare spawn.",
            {
              dup: S.erSup,
            },
          ),
        ],
        ["log each sweep with the number of expired messages", R],
        [
          "retained messages live in an ETS table owned by the sweeper, not in the process dictionary. we don't use the process dictionary anywhere",
          D(
            "rule",
            "project",
            "State is kept in ETS tables or process state, never in the process dictionary.",
          ),
        ],
      ]),
    [S.erSup, S.erLog],
  ),
  sc(
    "p31-er-otp27-port",
    "er",
    "a stored OTP version changed; a stored port changed with its reason",
    "2026-11-11T13:00:00.000Z",
    (s) =>
      turns(s, "er", [
        [
          "prod runs OTP 27 since monday, so `maybe` expressions are allowed now. rewrite the auth chain with one",
          R,
          D("fact", "project", "beacon-broker runs on OTP 27 and builds with rebar3.", {
            contra: S.erOtp,
          }),
        ],
        [
          "and the admin api moved to 9090, 8080 clashed with the envoy sidecar. mqtt is still 1883. fix sys.config and the helm values",
          R,
          D(
            "fact",
            "project",
            "The broker serves MQTT on 1883 and the admin API on 9090 (8080 clashed with the Envoy sidecar).",
            { contra: S.erPort },
          ),
        ],
        ["does rebar3 need a flag for maybe on 27?", Q],
      ]),
    [S.erOtp, S.erPort],
  ),
  sc(
    "p32-er-owner-cookie",
    "er",
    "a stored reviewer changed; an Erlang cookie pasted for a one-off remote shell",
    "2026-11-12T10:30:00.000Z",
    (s) => {
      const cookie = s.secret("hex");
      s.userS(
        `attach a remote shell to beacon@node2 and dump the session table size. cookie: ${cookie}`,
        [cookie],
        N("secret"),
        R,
      );
      s.tools(WORK.er[0]);
      s.say("The session table has 48,211 entries, about 61 MB.");
      turns(s, "er", [
        [
          "hm, that's big. Ingrid moved to the billing team, Tariq owns the session store now, so ask him before changing its schema",
          D("fact", "project", "Tariq reviews changes to the session store.", {
            contra: S.erOwner,
          }),
        ],
        ["just this once write the dump to /tmp so I can look at it", HN("one-off")],
      ]);
    },
    [S.erOwner],
  ),
  sc(
    "p33-er-statem-decision",
    "er",
    "a decision with its reason; descriptive always; an agent hypothesis; a question phrased like a rule",
    "2026-11-13T09:45:00.000Z",
    (s) => {
      s.user(
        "the keepalive handling is a mess. we chose gen_statem for connections so the MQTT protocol states are explicit; don't turn it back into a gen_server with a state field",
        R,
        D(
          "decision",
          "project",
          "Connections are gen_statem processes so MQTT protocol states are explicit, not a gen_server with a state field.",
        ),
      );
      s.tools(WORK.er[1]);
      s.say(
        "The timeout might be reset on every packet instead of only on PINGREQ, which would explain it.",
        HN("hypothesis"),
      );
      turns(s, "er", [
        ["the cluster common test suite always times out on the first run", HN("one-off")],
        ["should we always use state timeouts instead of erlang:send_after?", HN("question")],
      ]);
    },
  ),
];

const MT: Script[] = [
  sc(
    "p34-mt-si-instance",
    "mt",
    "a stored test rule repeated with a marker; a stored unit rule repeated as an instance; a new data fact",
    "2026-11-14T08:05:00.000Z",
    (s) =>
      turns(s, "mt", [
        [
          "write tests for the new thermal model, class-based unittest under tests/ as always",
          R,
          D("rule", "project", "Tests are matlab.unittest test classes under tests/.", {
            dup: S.mtTests,
          }),
        ],
        [
          "capacity stays in coulombs and temperature in kelvin inside the model; mAh and °C only show up in the plotting functions",
          D(
            "rule",
            "project",
            "Inside the toolbox quantities stay in SI units (coulombs, kelvin); mAh and °C appear only in plotting.",
            { dup: S.mtUnits },
          ),
        ],
        [
          "the cell parameters come from the LG M50 datasheet, they're in data/cells/lg_m50.mat",
          D(
            "fact",
            "project",
            "Cell parameters come from the LG M50 datasheet, stored in data/cells/lg_m50.mat.",
          ),
        ],
      ]),
    [S.mtTests, S.mtUnits],
  ),
  sc(
    "p35-mt-r2024a",
    "mt",
    "a stored minimum release changed with its reason; a stored model format repeated shortened",
    "2026-11-15T14:10:00.000Z",
    (s) =>
      turns(s, "mt", [
        [
          "we're dropping R2023b. minimum is R2024a now, we need dictionary for the parameter sets. update the toolbox metadata and the CI matrix",
          R,
          D(
            "decision",
            "project",
            "cellsim-toolbox requires MATLAB R2024a or newer (for dictionary).",
            { contra: S.mtVer },
          ),
        ],
        [
          "the pack model got saved as mdl by accident. slx only",
          R,
          D(
            "rule",
            "project",
            "Simulink models are saved only as .slx.",
            { dup: S.mtModels },
          ),
        ],
        ["can the CI run the simulink tests headless?", Q],
      ]),
    [S.mtVer, S.mtModels],
  ),
  sc(
    "p36-mt-researcher",
    "mt",
    "a chatty researcher; a quoted guideline and the team's own rule; a confirmed proposal",
    "2026-11-16T10:00:00.000Z",
    (s) => {
      turns(s, "mt", [
        [
          "hi! so I'm new-ish to the project, sorry if this is obvious — the MathWorks guidelines say never use global variables, and honestly we also don't allow globals anywhere in the toolbox, my supervisor is strict about that. anyway: can you make ecm.m vectorised over time steps?",
          R,
          D("rule", "project", "The toolbox uses no global variables."),
        ],
      ]);
      ask(
        s,
        "mt",
        "ecm.m now takes a current vector. I also added an arguments block validating the inputs; should every public function in +cellsim validate its inputs with an arguments block?",
        1,
      );
      s.confirm(
        "oh yes please, every public one",
        "rule",
        "project",
        "Every public function in +cellsim validates its inputs with an arguments block.",
      );
      turns(s, "mt", [
        ["would it be faster if we used single precision?", HN("hypothesis")],
      ]);
    },
  ),
  sc(
    "p37-mt-aws-release",
    "mt",
    "AWS keys pasted for a one-off upload; a release fact after it",
    "2026-11-17T16:30:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `push the 2.3.0 mltbx to the lab's bucket once, keys:\nAWS_ACCESS_KEY_ID=${id}\nAWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(WORK.mt[0]);
      s.say("Uploaded cellsim-2.3.0.mltbx to s3://hanna-lab-releases/.");
      turns(s, "mt", [
        [
          "thanks. normally the .mltbx is attached to the GitHub release and File Exchange picks it up from there",
          D(
            "fact",
            "project",
            "Releases attach the .mltbx to the GitHub release, from which File Exchange picks it up.",
          ),
        ],
        [
          "version numbers are semver and the toolbox version in the .prj has to match the git tag",
          D(
            "rule",
            "project",
            "Versions are semver and the toolbox version in the .prj matches the git tag.",
          ),
        ],
      ]);
    },
  ),
];

const EL: Script[] = [
  sc(
    "p38-el-drop-elmcss",
    "el",
    "a stored port rule repeated in other words; a stored styling choice reversed with its reason",
    "2026-11-18T08:45:00.000Z",
    (s) =>
      turns(s, "el", [
        [
          "remember the last selected station in localStorage. the JS bits stay in Ports.elm, nowhere else",
          R,
          D("rule", "project", "JavaScript interop is declared only in Ports.elm.", {
            dup: S.elPorts,
          }),
        ],
        [
          "also we're dropping elm-css. plain css with BEM class names in static/main.css from now on, the compile times were killing us",
          D(
            "decision",
            "project",
            "Styling is plain CSS with BEM class names in static/main.css instead of elm-css (compile times).",
            { contra: S.elCss },
          ),
        ],
        ["start with the station page", R],
      ]),
    [S.elPorts, S.elCss],
  ),
  sc(
    "p39-el-api-v3",
    "el",
    "a stored API version changed; a one-off",
    "2026-11-19T12:25:00.000Z",
    (s) =>
      turns(s, "el", [
        [
          "the tide API is v3 now (https://api.tidechart.io/v3), v2 shuts down in january. move the decoders over",
          R,
          D("fact", "project", "The tide data API is https://api.tidechart.io/v3.", {
            contra: S.elApi,
          }),
        ],
        ["add a fuzz test for the height parser while you're there", R],
        ["for this PR only keep the v2 decoder around as a fallback", HN("one-off")],
      ]),
    [S.elApi, S.elReview],
  ),
  sc(
    "p40-el-terse",
    "el",
    "terse messages with typos; rules said without rule words; a question phrased like a rule; a Netlify token for a one-off deploy",
    "2026-11-20T09:35:00.000Z",
    (s) => {
      turns(s, "el", [
        ["chart y axis labels overlap on mobile", R],
        [
          "units in metres on screen. feet only if the user picked imperial in settings",
          D(
            "rule",
            "project",
            "Heights are shown in metres unless the user chose imperial in settings.",
          ),
        ],
        [
          "deploys r netlify from main, preview per PR",
          D("fact", "project", "The app deploys to Netlify from main, with a preview per PR."),
        ],
        ["should we never use Debug.log in committed code?", HN("question")],
      ]);
      const tok = s.secret("hex");
      s.userS(
        `netlify cli says im not logged in. use NETLIFY_AUTH_TOKEN=${tok} for a manual deploy of this branch, once`,
        [tok],
        N("secret"),
        HN("one-off"),
      );
      s.tools(WORK.el[0]);
      s.say("Deployed the branch as a draft; the token is not in any file.");
      turns(s, "el", [
        [
          "pages keep their own Model n update, Main only routes. no god-model",
          D(
            "rule",
            "project",
            "Each page keeps its own Model and update; Main only routes between pages.",
          ),
        ],
      ], 1);
    },
  ),
  sc(
    "p41-el-decoders-confirm",
    "el",
    "an agent proposal confirmed tersely; a hypothesis",
    "2026-11-21T15:05:00.000Z",
    (s) => {
      s.user("the station list decoder fails on stations without a region", R);
      ask(
        s,
        "el",
        "Fixed with Decode.maybe. I noticed decoders are spread over the pages; I moved them to src/Api/Decode.elm. Should all API decoders live in that module?",
      );
      s.confirm("yep", "rule", "project", "All API decoders live in src/Api/Decode.elm.");
      turns(s, "el", [[
        "maybe the api returns null instead of omitting the field?",
        HN("hypothesis"),
      ]]);
    },
  ),
];

const MIXED: Script[] = [
  sc(
    "p42-cr-global-prefs",
    "cr",
    "a stored global rule repeated with a marker; a stored global preference dropped; a new global preference",
    "2026-11-22T08:00:00.000Z",
    (s) =>
      turns(s, "cr", [
        ["make the spool dir configurable", R],
        [
          "as you know, don't tell me it's done until you've run the specs",
          D("rule", "global", "Run the tests before saying a change is done.", { dup: S.gTests }),
        ],
        [
          "and stop putting feat:/fix: prefixes on my commits, anywhere. I gave up on conventional commits, just a plain imperative sentence",
          D(
            "preference",
            "global",
            "Commit messages are plain imperative sentences without Conventional Commits prefixes.",
            { contra: S.gCommits },
          ),
        ],
        [
          "one more personal thing: I like PR descriptions with a 'How to test' section at the end",
          D("preference", "global", "PR descriptions end with a 'How to test' section."),
        ],
      ]),
    [S.gTests, S.gCommits],
  ),
  sc(
    "p43-gd-long-compacted",
    "gd",
    "a long mixed session with a compaction; a stored rule repeated nearly verbatim; rules, a fact and hard negatives",
    "2026-11-23T09:00:00.000Z",
    (s) => {
      turns(s, "gd", [
        ["the fog of war shader is too dark at night, lighten it", R],
        [
          "nullable reference types are on and warnings are errors, so don't silence the new warnings with `!`",
          D(
            "rule",
            "project",
            "Nullable reference types are on and warnings are errors; warnings are not silenced with the ! operator.",
            { dup: S.gdNull },
          ),
        ],
        [
          "the steam build is made by the export preset 'Steam Linux' and uploaded by steamcmd from the release job",
          D(
            "fact",
            "project",
            "The Steam build uses the export preset 'Steam Linux' and is uploaded by steamcmd in the release job.",
          ),
        ],
        ["for the playtest on saturday give every unit +2 move", HN("one-off")],
      ]);
      s.compact(
        "The user asked to lighten the fog of war at night (done), reminded that nullable reference types are on with warnings as errors, described the Steam export, and asked for +2 move for Saturday's playtest (done).",
      );
      turns(s, "gd", [
        [
          "localisation: every player-facing string goes through Tr() with a key in locale/strings.csv. no literals in UI code",
          D(
            "rule",
            "project",
            "Player-facing strings go through Tr() with a key in locale/strings.csv; no string literals in UI code.",
          ),
        ],
        ["it always crashes when I alt-tab during the loading screen", HN("one-off")],
        ["maybe the shader cache is stale after the upgrade?", HN("hypothesis")],
        [
          "oh and the music is by Lucía, licensed CC BY 4.0, so the credits screen has to name her",
          D(
            "rule",
            "project",
            "The music is by Lucía under CC BY 4.0, so the credits screen must name her.",
          ),
        ],
        ["ok commit and push", R],
      ], 1);
    },
    [S.gdNull],
  ),
  sc(
    "p44-ak-global-long",
    "ak",
    "a stored global preference repeated in other words; a new global preference; project facts; hard negatives",
    "2026-11-24T10:20:00.000Z",
    (s) =>
      turns(s, "ak", [
        [
          "the ingest stream drops frames when kafka rebalances. please look; the topic is telemetry.frames.v2 with 24 partitions",
          R,
          D(
            "fact",
            "project",
            "Ingest reads the Kafka topic telemetry.frames.v2, which has 24 partitions.",
          ),
        ],
        [
          "and answer me in two or three lines, I don't need the file-by-file rundown",
          D(
            "preference",
            "global",
            "Answers are two or three lines, without a file-by-file rundown.",
            {
              dup: S.gShort,
            },
          ),
        ],
        [
          "consumer offsets are committed only after the entity acks the frame. at-least-once, dedupe happens downstream by frame id",
          D(
            "rule",
            "project",
            "Kafka offsets are committed only after the entity acknowledges the frame (at-least-once; deduplicated downstream by frame id).",
          ),
        ],
        ["for today's debugging, log every rebalance callback at info", HN("one-off")],
        [
          "I always prefer a failing test first before a fix, in any repo — write it before touching the code",
          D("preference", "global", "Write a failing test before fixing a bug."),
        ],
        ["could the cooperative sticky assignor fix this?", HN("question")],
        [
          "Marta thinks we should never use the ask pattern at all, I'm not convinced",
          HN("one-off"),
        ],
      ]),
    [S.gShort],
  ),
];

export const HOLDOUT12: Script[] = [
  ...CR,
  ...GD,
  ...CB,
  ...AK,
  ...PM,
  ...FS,
  ...NV,
  ...ER,
  ...MT,
  ...EL,
  ...MIXED,
];
