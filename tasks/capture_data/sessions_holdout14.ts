/**
 * Hand-written sessions of the capture benchmark's `holdout14` split: written blind on 2026-11-29
 * by a helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs pages
 * or results (nor the main checkout or any other helper's worktree), registered as unrun before it
 * was written and frozen before any run against it. About half of its 44 sessions have stored
 * memories, which the user repeats (often in other words), changes, or extends with a new
 * statement on the same topic; the others are ordinary sessions with rules, decisions, setup facts
 * in passing, global preferences, hard negatives and pasted secrets. Ten projects new to the data
 * set: a Nim feed reader, an Ada/SPARK flight logger, a Common Lisp web service, a Chef cookbook,
 * an Apache Flink job in Java, a Lazarus/Free Pascal desktop app, MicroPython soil probes, a
 * Roblox game in Luau, Azure Bicep infrastructure and an Unreal Engine 5 game in C++.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) or a look-alike that states no rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout14 split's projects. */
const P = {
  nm: "/home/ravi/src/nimfeed",
  ad: "/home/ingrid/ada/flightlog-ada",
  cl: "/home/tomasz/lisp/kestrel-cl",
  ch: "/Users/marta/chef/cookbook-haproxy",
  fl: "/home/yusuf/data/clickstream-flink",
  lz: "/home/piet/lazarus/stockroom-lz",
  mp: "/home/ana/iot/soilprobe-mpy",
  rb: "/Users/kai/roblox/ObbyRush",
  bc: "/home/femi/azure/bicep-hub-spoke",
  ue: "/Users/theo/Unreal/Hollowreach",
} as const;
type Proj = keyof typeof P;

const WORK: Record<Proj, ToolStep[]> = {
  nm: [
    bash(
      "nimble test",
      "  Verifying dependencies for nimfeed@0.8.3\n  Compiling /home/ravi/src/nimfeed/tests/tparser (from package nimfeed) using c backend\n[OK] parses rss 2.0\n[OK] parses atom with html content\n[OK] skips items without link\n  Compiling /home/ravi/src/nimfeed/tests/tstore (from package nimfeed) using c backend\n[OK] upserts items by guid\n   Success: All tests passed",
    ),
    read(
      `${P.nm}/src/nimfeed/fetch.nim`,
      'import std/[asyncdispatch, httpclient, times]\nimport ./types\n\nproc fetchFeed*(url: string): Future[FetchResult] {.async.} =\n  let client = newAsyncHttpClient(userAgent = "nimfeed/0.8")\n  defer: client.close()\n  let resp = await client.get(url)\n  result = FetchResult(status: resp.code.int, body: await resp.body)',
    ),
  ],
  ad: [
    bash(
      "alr build && alr exec -- gnatprove -P flightlog.gpr --level=2 -j2 -u src/core/flight_record.adb",
      "Setup\n   [mkdir]        object directory for project Flightlog\nCompile\n   [Ada]          flight_record.adb\nBind\n   [gprbind]      flightlog.bexch\nLink\n   [link]         flightlog.adb\nPhase 1 of 3: generation of data representation information ...\nPhase 2 of 3: generation of Global contracts ...\nPhase 3 of 3: flow analysis and proof ...\nSummary logged in obj/gnatprove/gnatprove.out",
    ),
    read(
      `${P.ad}/src/core/flight_record.ads`,
      "package Flight_Record with SPARK_Mode => On is\n\n   type Altitude_Dm is range -5_000 .. 150_000;\n   type Record_Index is mod 2**16;\n\n   type Sample is record\n      Index    : Record_Index;\n      Altitude : Altitude_Dm;\n      Vario    : Integer range -2_000 .. 2_000;\n   end record;\n\nend Flight_Record;",
    ),
  ],
  cl: [
    bash(
      "sbcl --non-interactive --eval '(asdf:test-system :kestrel)'",
      "Running test suite KESTREL-SUITE\n Running test INVOICE-TOTALS ....\n Running test MONEY-FORMAT ...\n Running test ROUTES ......\n Did 13 checks.\n    Pass: 13 (100%)\n    Skip: 0 ( 0%)\n    Fail: 0 ( 0%)",
    ),
    read(
      `${P.cl}/src/invoices.lisp`,
      "(in-package #:kestrel)\n\n(defun invoice-totals (invoice)\n  \"Net, tax and gross of INVOICE in cents.\"\n  (let ((net (reduce #'+ (invoice-lines invoice) :key #'line-amount)))\n    (values net (tax-for net) (+ net (tax-for net)))))",
    ),
  ],
  ch: [
    bash(
      "cookstyle && chef exec rspec",
      "Inspecting 14 files\n..............\n\n14 files inspected, no offenses detected\n........................\n\nFinished in 3.42 seconds (files took 2.1 seconds to load)\n24 examples, 0 failures",
    ),
    read(
      `${P.ch}/recipes/default.rb`,
      "package 'haproxy'\n\ntemplate '/etc/haproxy/haproxy.cfg' do\n  source 'haproxy.cfg.erb'\n  variables(backends: node['haproxy']['backends'])\n  notifies :reload, 'service[haproxy]', :delayed\nend\n\nservice 'haproxy' do\n  action [:enable, :start]\nend",
    ),
  ],
  fl: [
    bash(
      "mvn -q -B verify",
      "[INFO] Tests run: 38, Failures: 0, Errors: 0, Skipped: 0\n[INFO] \n[INFO] --- maven-shade-plugin:3.5.1:shade (default) @ clickstream-flink ---\n[INFO] Replacing original artifact with shaded artifact.\n[INFO] BUILD SUCCESS",
    ),
    read(
      `${P.fl}/src/main/java/com/example/clickstream/SessionizeJob.java`,
      'DataStream<ClickEvent> events = env\n    .fromSource(kafkaSource, watermarks, "clickstream-raw")\n    .uid("source-clickstream-raw");\n\nevents\n    .keyBy(ClickEvent::userKey)\n    .window(EventTimeSessionWindows.withGap(Time.minutes(30)))\n    .process(new SessionAggregator())\n    .uid("sessionizer");',
    ),
  ],
  lz: [
    bash(
      "lazbuild --build-mode=Release stockroom.lpi",
      "(1008) 18422 lines compiled, 6.1 sec\n(1022) 3 hint(s) issued\nInfo: (lazarus) [TLazPackageGraph.CompileRequiredPackages] Success",
    ),
    read(
      `${P.lz}/src/udmstock.pas`,
      "unit uDMStock;\n\n{$mode objfpc}{$H+}\n\ninterface\n\nuses\n  Classes, SysUtils, SQLDB, IBConnection;\n\ntype\n  TdmStock = class(TDataModule)\n    qryStock: TSQLQuery;\n  public\n    function OnHand(const ASku: string): Integer;\n  end;",
    ),
  ],
  mp: [
    bash(
      "mpremote connect /dev/ttyACM0 cp -r lib/ :lib/ + cp main.py : + reset",
      "cp lib/sensor.py :lib/sensor.py\ncp lib/net.py :lib/net.py\ncp main.py :main.py",
    ),
    read(
      `${P.mp}/main.py`,
      "import machine\nfrom lib import sensor, net\n\nreading = sensor.read_moisture()\nnet.publish('soil/' + net.probe_id(), reading)\nmachine.deepsleep(SLEEP_MS)",
    ),
  ],
  rb: [
    bash(
      "selene src && stylua --check src && rojo build -o ObbyRush.rbxl",
      "Results:\n0 errors\n0 warnings\n0 parse errors\nBuilt project to ObbyRush.rbxl",
    ),
    read(
      `${P.rb}/src/server/Checkpoints.server.luau`,
      '--!strict\nlocal Players = game:GetService("Players")\nlocal Stages = workspace:WaitForChild("Stages")\n\nfor _, stage in Stages:GetChildren() do\n\tlocal spawn = stage:FindFirstChild("Spawn") :: BasePart\n\tspawn.Touched:Connect(function(hit)\n\t\t-- record progress\n\tend)\nend',
    ),
  ],
  bc: [
    bash(
      "az bicep build --file main.bicep && az bicep lint --file main.bicep",
      'WARNING: /home/femi/azure/bicep-hub-spoke/modules/spoke.bicep(41,7) : Warning no-unused-params: Parameter "dnsServers" is declared but never used.',
    ),
    read(
      `${P.bc}/modules/spoke.bicep`,
      "param location string\nparam workload string\nparam env string\nparam addressPrefix string\n\nresource vnet 'Microsoft.Network/virtualNetworks@2023-09-01' = {\n  name: 'vnet-${workload}-${env}-weu'\n  location: location\n  properties: {\n    addressSpace: { addressPrefixes: [ addressPrefix ] }\n  }\n}",
    ),
  ],
  ue: [
    bash(
      'Engine/Build/BatchFiles/Mac/Build.sh HollowreachEditor Mac Development -Project="$PWD/Hollowreach.uproject"',
      "Using bundled DotNet SDK version: 6.0.302\nBuilding HollowreachEditor...\n[1/6] Compile [Apple] Module.Hollowreach.cpp\n[2/6] Compile [Apple] HRDashAbility.cpp\n[6/6] Link [Apple] UnrealEditor-Hollowreach.dylib\nTotal execution time: 74.12 seconds",
    ),
    read(
      `${P.ue}/Source/Hollowreach/Abilities/HRDashAbility.h`,
      '#pragma once\n\n#include "CoreMinimal.h"\n#include "Abilities/GameplayAbility.h"\n#include "HRDashAbility.generated.h"\n\nUCLASS()\nclass HOLLOWREACH_API UHRDashAbility : public UGameplayAbility\n{\n\tGENERATED_BODY()\npublic:\n\tUPROPERTY(EditDefaultsOnly, Category = "Dash")\n\tfloat DashDistance = 600.f;\n};',
    ),
  ],
};

const ACK = [
  "Done; tests pass.",
  "Changed it and re-ran the build.",
  "OK, that's in.",
  "Updated — a small diff.",
  "Fixed and checked locally.",
  "Done. Tell me if you want it differently.",
  "In place, build is green.",
  "All done.",
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
  const versions = ["2.0.31", "1.0.88", "2.0.12", "2.0.36", "1.0.102", "2.0.27", "2.0.5"];
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
  nmVer: "nimfeed builds with Nim 2.0 and the ORC memory management.",
  nmAsync: "Networking uses std/asyncdispatch; no chronos.",
  nmDb: "Feeds and items are stored in SQLite via db_connector at ~/.local/share/nimfeed/feeds.db.",
  nmTests: "Tests use std/unittest under tests/ and run with nimble test.",
  nmNimble: "Dependencies are pinned in nimfeed.nimble and locked with nimble lock.",
  adGnat: "flightlog-ada builds with GNAT 13 from Alire (alr build).",
  adNoHeap: "No heap allocation in the core: no access types, no new.",
  adSpark:
    "Packages under src/core/ are SPARK (SPARK_Mode => On) and must prove at gnatprove --level=2.",
  adStyle: "Style checks run with -gnaty3abcefhiklmnprst and warnings are errors (-gnatwe).",
  adOwner: "Katrin owns the flight-record format and approves changes to it.",
  clImpl: "kestrel-cl runs on SBCL 2.3.",
  clWeb: "The HTTP server is Hunchentoot behind nginx, on port 4242.",
  clLoop: "Use iterate, not LOOP, in new code.",
  clDeps: "Dependencies come from the Quicklisp dist of 2023-10-21, pinned with qlot (qlfile).",
  clTests: "Tests are FiveAM suites run with (asdf:test-system :kestrel).",
  chVer: "The cookbook targets Chef Infra Client 17.",
  chKitchen: "Test Kitchen runs with the dokken driver.",
  chPlatforms: "Supported platforms are Ubuntu 20.04 and 22.04.",
  chAttr: "Recipes never set node attributes; defaults live in attributes/default.rb.",
  chSupermarket:
    "The cookbook is published to the internal Supermarket at supermarket.corp.example.",
  flVer: "The job runs on Flink 1.17 with Java 11.",
  flUid: "Every operator gets an explicit uid() so savepoints stay compatible.",
  flWatermark: "Watermarks allow 30 seconds of out-of-orderness.",
  flState:
    "The state backend is RocksDB with incremental checkpoints to s3://cs-flink-checkpoints/.",
  flKafka: "Input is the Kafka topic clickstream.raw on the analytics cluster.",
  lzVer: "stockroom-lz builds with Lazarus 2.2 and FPC 3.2.2.",
  lzMode: "Units use {$mode objfpc}{$H+}.",
  lzDb: "The database is Firebird 3, accessed with SQLdb (TIBConnection).",
  lzForms: "No business logic in form units; it goes in the dm* data modules.",
  lzTarget: "Releases are built for Windows 64-bit only.",
  mpVer: "The probes run MicroPython 1.22 on the Raspberry Pi Pico W.",
  mpDeploy: "Code is deployed with mpremote, not Thonny.",
  mpSleep: "Probes deep-sleep 15 minutes between readings (machine.deepsleep).",
  mpMqtt: "Readings go over MQTT (umqtt.simple) to the broker at 192.168.40.5:1883.",
  mpPins: "The soil sensor is on ADC0 (GP26).",
  rbRojo:
    "The game is synced with Rojo; the Rojo project, not Studio, is the source of truth for scripts.",
  rbStrict: "Every script starts with --!strict.",
  rbData: "Player data is saved with ProfileService.",
  rbServer:
    "The server is authoritative: clients only send requests through RemoteEvents, which the server validates.",
  rbLint: "Code is linted with selene and formatted with StyLua.",
  bcRegion: "Resources deploy to westeurope.",
  bcNames: "Resource names follow <type>-<workload>-<env>-<region>, e.g. vnet-hub-prd-weu.",
  bcDeploy: "Deployments run from the Azure DevOps pipelines, never from a laptop.",
  bcWhatIf: "Every deployment runs what-if first.",
  bcModules: "Modules come from the private registry br:crplatform.azurecr.io/bicep/modules.",
  ueVer: "Hollowreach is on Unreal Engine 5.3.",
  ueCpp: "Gameplay logic is C++ in Source/Hollowreach; Blueprints only for tuning and visuals.",
  ueLfs: "Binary assets are in Git LFS and .uasset files are locked before editing.",
  ueGas: "Abilities use the Gameplay Ability System.",
  uePerf: "The performance target is 60 fps on the Steam Deck.",
  gCommit: "Commit messages: imperative mood, subject under 72 characters.",
  gAskPush: "Never push without asking first.",
  gShort: "Keep answers short, without long preambles.",
  gNoAmend: "Don't amend commits that have already been pushed.",
  gLang: "Answer in English even when the user writes in Spanish.",
} as const;

const NM: Script[] = [
  sc(
    "c01-nm-nim22",
    "nm",
    "a stored compiler version changed with its reason; a stored networking rule repeated negated inside a request; a rule quoted from a forum, asked as a question",
    "2026-10-01T08:10:00.000Z",
    (s) =>
      turns(s, "nm", [
        [
          "bump us to nim 2.2. 2.0.x has that closure iterator bug that keeps crashing the poller. CI matrix + the requires line in the .nimble",
          R,
          D("fact", "project", "nimfeed builds with Nim 2.2.", { contra: S.nmVer }),
        ],
        [
          "next: conditional GETs in the fetcher (etag / last-modified). use the asyncdispatch httpclient we already have, I really dont want chronos in here",
          R,
          D("rule", "project", "Networking stays on std/asyncdispatch; chronos is not used.", {
            dup: S.nmAsync,
          }),
        ],
        [
          "someone on the nim forum says you should never raise inside async procs. is that still true with 2.2?",
          HN("question"),
        ],
      ]),
    [S.nmVer, S.nmAsync],
  ),
  sc(
    "c02-nm-postgres",
    "nm",
    "a stored storage fact changed (SQLite to Postgres); a stored test rule repeated as a correction; a hypothesis inside a request",
    "2026-10-02T14:30:00.000Z",
    (s) =>
      turns(s, "nm", [
        [
          "ok so the sqlite file is history. since the multi-user version feeds and items live in postgres, db `nimfeed` on pg.lan:5432, still through db_connector (db_postgres). change the default config accordingly",
          R,
          D(
            "fact",
            "project",
            "Feeds and items are stored in Postgres (database nimfeed on pg.lan:5432) via db_connector's db_postgres.",
            { contra: S.nmDb },
          ),
        ],
        [
          "you wrote the new test as a `when isMainModule` block in src/. no — tests are unittest files under tests/ and have to pass with `nimble test`, otherwise CI never runs them",
          R,
          D(
            "rule",
            "project",
            "Tests are std/unittest files under tests/ that pass with nimble test; no tests in src/.",
            { dup: S.nmTests },
          ),
        ],
        [
          "I think the OPML importer breaks on nested outlines, check that one next",
          HN("hypothesis"),
          R,
        ],
      ]),
    [S.nmDb, S.nmTests, S.nmNimble],
  ),
  sc(
    "c03-nm-gh-release",
    "nm",
    "a GitHub token pasted for a one-off release; a release-process fact; a packaging fact with an ownership",
    "2026-10-03T17:45:00.000Z",
    (s) => {
      const pat = s.secret("githubPat");
      s.userS(
        `can you cut v0.9.0 on github? gh isn't logged in on this box. use this, I'll revoke it right after: ${pat}`,
        [pat],
        N("secret"),
        R,
      );
      s.tools(WORK.nm[0]);
      s.say(
        "Created the v0.9.0 release and attached the Linux and macOS binaries; the token was only passed as GH_TOKEN to that one command.",
      );
      turns(s, "nm", [
        [
          "thx. for next time: releases are normally built by .github/workflows/release.yml when you push a v* tag, attaching binaries by hand was only because the runner was down today",
          D(
            "fact",
            "project",
            "Releases are built by .github/workflows/release.yml when a v* tag is pushed.",
          ),
        ],
        [
          "and the AUR package isn't ours, Lukas maintains it outside the project. no PKGBUILD in this repo please",
          D(
            "fact",
            "project",
            "The AUR package is maintained outside the project by Lukas; the repository holds no PKGBUILD.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "c04-nm-terse",
    "nm",
    "terse messages: a build-flag rule with its story, a tooling decision with its reason, a one-off",
    "2026-10-04T09:20:00.000Z",
    (s) =>
      turns(s, "nm", [
        ["parser chokes on atom feeds w/ xhtml content. fix", R],
        [
          "-d:ssl on every build. release = -d:release --mm:orc. no -d:danger ever, shipped one once, segfaulted on the first broken feed",
          D(
            "rule",
            "project",
            "Every build uses -d:ssl; release builds use -d:release --mm:orc and never -d:danger.",
          ),
        ],
        [
          "nimpretty: no. we dropped it, it mangles the macro DSL in templates.nim",
          D(
            "decision",
            "project",
            "nimpretty is not used (it mangles the macro DSL in templates.nim).",
          ),
        ],
        ["skip feeds w/ more than 3 redirects for now", HN("one-off")],
        ["k commit", R],
      ]),
  ),
];

const AD: Script[] = [
  sc(
    "c05-ad-gnat14",
    "ad",
    "a stored compiler version changed; a stored no-heap rule repeated after the agent's mistake; a branch-scoped one-off; a question",
    "2026-10-05T07:55:00.000Z",
    (s) =>
      turns(s, "ad", [
        [
          "alire pulled gnat_native 14.1 for all of us last week so it's gnat 14 now. the gnat-13 workaround pragma in flightlog_config can go",
          R,
          D("fact", "project", "flightlog-ada builds with GNAT 14 from Alire.", {
            contra: S.adGnat,
          }),
        ],
        [
          "the ring buffer you added uses `new`. the core can't allocate, make it a fixed-size array with a modular index",
          R,
          D("rule", "project", "The core never allocates dynamically; use fixed-size arrays.", {
            dup: S.adNoHeap,
          }),
        ],
        [
          "for this branch don't run the whole proof, just flight_record and the buffer",
          HN("one-off"),
        ],
        ["can gnatprove tell me which VC takes the longest?", Q],
      ]),
    [S.adGnat, S.adNoHeap],
  ),
  sc(
    "c06-ad-level3",
    "ad",
    "a stored proof level raised with its reason; a stored ownership rule repeated with a consequence; a hypothesis; a question",
    "2026-10-06T10:40:00.000Z",
    (s) =>
      turns(s, "ad", [
        [
          "we raised the bar: core has to prove at --level=3 from now on, level 2 left too many overflow checks unproved. update the make target and the CI job",
          R,
          D(
            "rule",
            "project",
            "SPARK packages under src/core/ must prove at gnatprove --level=3.",
            { contra: S.adSpark },
          ),
        ],
        ["maybe it's just a missing loop invariant in Checksum_Of", HN("hypothesis")],
        [
          "the field reorder in Flight_Record is a format change, so it goes to Katrin before anything is merged. send her the diff and the new layout table",
          R,
          D(
            "rule",
            "project",
            "Changes to the Flight_Record format go to Katrin for approval before merging.",
            { dup: S.adOwner },
          ),
        ],
        ["how long does level 3 take on CI compared to 2?", Q],
      ]),
    [S.adSpark, S.adStyle, S.adOwner],
  ),
  sc(
    "c07-ad-paragraph",
    "ad",
    "a long paragraph with a hardware fact, a decision with its reason and a test rule before the task; a competition one-off",
    "2026-10-07T13:15:00.000Z",
    (s) =>
      turns(s, "ad", [
        [
          "Context first, because this trips everyone up at the start. The logger runs on an STM32F746 board in the glider's avionics bay and writes one Flight_Record every 100 ms to the SD card; the ground tool in tools/ reads those files back on a laptop. Two years ago we decided to keep the ground tool in plain Ada rather than SPARK, because it parses untrusted files and the proof effort there simply was not worth it. Anything that will run on the board goes through the bench rig in the lab (the one labelled RIG-2) before it flies, no exceptions. What I need today is small: the unit conversion in tools/convert.adb prints altitude in feet, it should be metres.",
          R,
          D(
            "fact",
            "project",
            "The logger runs on an STM32F746 in the glider's avionics bay, writing a Flight_Record every 100 ms to the SD card; the ground tool in tools/ reads the files back on a laptop.",
          ),
          D(
            "decision",
            "project",
            "The ground tool stays plain Ada, not SPARK (it parses untrusted files and proof is not worth it there).",
          ),
          D(
            "rule",
            "project",
            "Anything that runs on the board is tested on the bench rig RIG-2 before it flies.",
          ),
        ],
        ["for the competition next month log at 50 ms instead", HN("one-off")],
      ]),
  ),
  sc(
    "c08-ad-checksums-confirm",
    "ad",
    "an agent proposal confirmed with a short answer; a question",
    "2026-10-08T16:05:00.000Z",
    (s) => {
      s.user("add a CRC to the record trailer", R);
      ask(
        s,
        "ad",
        "Added CRC-16/CCITT over the record bytes in the trailer. I put the routine in a new package Checksums (SPARK_Mode On, no dependency on the rest of the core) rather than inside Flight_Record. Should checksum and hashing routines generally live there?",
      );
      s.confirm(
        "yes, all of them in Checksums",
        "rule",
        "project",
        "Checksum and hashing routines live in the SPARK package Checksums.",
      );
      turns(s, "ad", [["does alr test run the proofs too or only the unit tests?", Q]], 1);
    },
  ),
];

const CL: Script[] = [
  sc(
    "c09-cl-sbcl24",
    "cl",
    "a stored implementation version changed in passing; a stored server fact repeated inside a request; a rule quoted from docs; a question",
    "2026-10-09T08:35:00.000Z",
    (s) =>
      turns(s, "cl", [
        [
          "prod got upgraded to sbcl 2.4.9 and so did my laptop, 2.3 is gone. feel free to use the newer stuff",
          D("fact", "project", "kestrel-cl runs on SBCL 2.4.", { contra: S.clImpl }),
        ],
        [
          "add a /healthz handler. hunchentoot like everything else — it sits behind nginx on 4242 so don't bother with TLS on the lisp side",
          R,
          D(
            "fact",
            "project",
            "Hunchentoot serves on port 4242 behind nginx, which does TLS.",
            { dup: S.clWeb },
          ),
        ],
        [
          "the sbcl manual says never to declaim safety 0 globally, right? we have one in utils.lisp from someone",
          HN("question"),
        ],
        ["why does the core image take 9s to start?", Q],
      ]),
    [S.clImpl, S.clWeb],
  ),
  sc(
    "c10-cl-ocicl",
    "cl",
    "a stored style rule repeated as a reproach; a stored dependency tool replaced with its reason; a question",
    "2026-10-10T11:00:00.000Z",
    (s) =>
      turns(s, "cl", [
        [
          "you wrote a LOOP with four clauses in invoice-totals. iterate please, we agreed on that ages ago",
          R,
          D("rule", "project", "New code uses iterate rather than LOOP.", { dup: S.clLoop }),
        ],
        [
          "also we're off the pinned quicklisp dist — it's ocicl now, deps are in ocicl.csv. qlot took forever to resolve and kept half-breaking in CI",
          D(
            "decision",
            "project",
            "Dependencies are managed with ocicl (ocicl.csv) instead of a pinned Quicklisp dist with qlot (slow to resolve, broke in CI).",
            { contra: S.clDeps },
          ),
        ],
        ["is `ocicl install` reproducible if two people run it a week apart?", Q],
      ]),
    [S.clLoop, S.clDeps, S.clTests],
  ),
  sc(
    "c11-cl-db-password",
    "cl",
    "a database URL with a password pasted to debug; ownership and network facts after it; a database-role fact",
    "2026-10-11T15:20:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `staging db refuses the connection from my repl. url is postgres://kestrel:${pw}@db-stg.kestrel.internal:5432/kestrel, figure out why`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.cl[0]);
      s.say(
        "pg_hba.conf on db-stg only allows 10.20.0.0/16; your laptop comes in over the VPN from 10.99.x, so the server rejects it before authentication.",
      );
      turns(s, "cl", [
        [
          "ah right. the vpn range is 10.99.0.0/16 and pg_hba belongs to ops (Hana's team), I can't touch it. we'll tunnel through bastion.kestrel.internal instead, set that up in the dev config",
          R,
          D(
            "fact",
            "project",
            "pg_hba on the database hosts is owned by ops (Hana's team); the VPN range is 10.99.0.0/16 and dev access goes through bastion.kestrel.internal.",
          ),
        ],
        [
          "the app connects as `kestrel` in every environment, migrations run as `kestrel_owner`",
          D(
            "fact",
            "project",
            "The app connects as the database user kestrel in every environment; migrations run as kestrel_owner.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "c12-cl-conditions",
    "cl",
    "an error-handling rule with its reason; a money rule with its story; a question; descriptive never",
    "2026-10-12T09:45:00.000Z",
    (s) =>
      turns(s, "cl", [
        [
          'errors from the payment client should signal a proper condition, a subclass of kestrel-error, never a bare (error "some string"). the handlers upstream dispatch on the condition type',
          R,
          D(
            "rule",
            "project",
            "Errors are signalled as condition subclasses of kestrel-error, never as bare string errors (handlers dispatch on the type).",
          ),
        ],
        ["would handler-bind be nicer than handler-case here?", Q],
        ["it never reconnects after the provider drops the socket", HN("one-off")],
        [
          "fine, handler-case and retry 3x. oh and amounts: integers in cents, everywhere, and anything that prints money goes through kestrel:fmt-money. we had a float rounding disaster in 2022 and I'm not doing that again",
          R,
          D(
            "rule",
            "project",
            "Money amounts are integers in cents and are printed only through kestrel:fmt-money.",
          ),
        ],
      ]),
  ),
];

const CH: Script[] = [
  sc(
    "c13-ch-chef18",
    "ch",
    "a stored client version changed; a stored kitchen-driver rule repeated with a reason; a PR-scoped one-off; a question",
    "2026-10-13T08:00:00.000Z",
    (s) =>
      turns(s, "ch", [
        [
          "the whole fleet is on chef 18 now. set chef_version '>= 18' in metadata.rb and drop the chef 17 branches in the helpers",
          R,
          D("fact", "project", "The cookbook targets Chef Infra Client 18.", { contra: S.chVer }),
        ],
        [
          "the kitchen.yml you generated uses vagrant. dokken. vagrant is unbearably slow on our runners",
          R,
          D("rule", "project", "Test Kitchen uses the dokken driver, not vagrant.", {
            dup: S.chKitchen,
          }),
        ],
        ["don't bump the version in this PR, I'll do it with the next batch", HN("one-off")],
        ["is there a cookstyle cop for node.set?", Q],
      ]),
    [S.chVer, S.chKitchen],
  ),
  sc(
    "c14-ch-noble",
    "ch",
    "a stored platform list changed with a date; a stored attribute rule repeated after the agent's mistake; a hypothesis",
    "2026-10-14T12:25:00.000Z",
    (s) =>
      turns(s, "ch", [
        [
          "add ubuntu 24.04 to the supported platforms and the kitchen suites. 20.04 goes, it's been EOL for us since october",
          R,
          D("fact", "project", "Supported platforms are Ubuntu 22.04 and 24.04.", {
            contra: S.chPlatforms,
          }),
        ],
        [
          "and you put node.default in the recipe again. defaults go in attributes/default.rb, recipes only read them",
          R,
          D(
            "rule",
            "project",
            "Attribute defaults go in attributes/default.rb; recipes only read attributes.",
            { dup: S.chAttr },
          ),
        ],
        [
          "I suspect haproxy 2.8 on noble moved the config path, check before you template it",
          HN("hypothesis"),
          R,
        ],
        ["then bump the patch version", R],
      ]),
    [S.chPlatforms, S.chAttr, S.chSupermarket],
  ),
  sc(
    "c15-ch-slack-bot",
    "ch",
    "a Slack bot token inside an otherwise durable notification rule; a publishing rule; a question",
    "2026-10-15T16:40:00.000Z",
    (s) => {
      const tok = s.secret("slackBot");
      s.userS(
        `nightly kitchen failures go to #cookbook-ci and nowhere else. the bot posts with ${tok} — write the notify step in the nightly workflow`,
        [tok],
        R,
        D(
          "rule",
          "project",
          "Nightly Test Kitchen failures are posted to #cookbook-ci only.",
          { secret: true },
        ),
      );
      s.tools(WORK.ch[0]);
      s.say(
        "Added a notify job that reads the token from a SLACK_BOT_TOKEN repository secret; the token is not in the workflow file.",
      );
      turns(s, "ch", [
        [
          "good. only me and Johan publish versions to the supermarket, everybody else opens a PR and one of us releases it",
          D(
            "rule",
            "project",
            "Only Marta and Johan publish cookbook versions; everyone else opens a PR.",
          ),
        ],
        ["how long does the nightly matrix take at the moment?", Q],
      ]);
    },
  ),
  sc(
    "c16-ch-newcomer-list",
    "ch",
    "rules in a bullet list for a newcomer; a one-off for her first week",
    "2026-10-16T09:10:00.000Z",
    (s) =>
      turns(s, "ch", [
        [
          "writing this down for Priya who starts monday, put it in CONTRIBUTING.md as well:\n- every resource gets a ChefSpec test\n- no `execute` resource when a real resource exists for the job\n- every PR that changes behaviour bumps the version in metadata.rb",
          R,
          D("rule", "project", "Every resource has a ChefSpec test."),
          D(
            "rule",
            "project",
            "No execute resources when a proper resource exists for the job.",
          ),
          D("rule", "project", "Every PR that changes behaviour bumps the version in metadata.rb."),
        ],
        ["her first week she only does docs tickets", HN("one-off")],
      ]),
  ),
];

const FL: Script[] = [
  sc(
    "c17-fl-flink118",
    "fl",
    "a stored runtime version changed; a stored uid rule repeated after a miss; a question phrased like a rule; a question",
    "2026-10-17T08:30:00.000Z",
    (s) =>
      turns(s, "fl", [
        [
          "platform upgraded the session cluster to flink 1.18 on java 17. pom: flink.version and maven.compiler.release",
          R,
          D("fact", "project", "The job runs on Flink 1.18 with Java 17.", { contra: S.flVer }),
        ],
        [
          "the new dedup operator has no uid. every operator gets one, or the next restore from a savepoint blows up",
          R,
          D("rule", "project", "Every operator has an explicit uid (savepoint compatibility).", {
            dup: S.flUid,
          }),
        ],
        ["should the sinks always get a uid too or only the stateful ones?", HN("question")],
        ["do we take the savepoint before the upgrade or does platform do it?", Q],
      ]),
    [S.flVer, S.flUid],
  ),
  sc(
    "c18-fl-watermark",
    "fl",
    "a stored watermark setting changed with its reason; a stored state-backend rule repeated negated; a hypothesis",
    "2026-10-18T13:50:00.000Z",
    (s) =>
      turns(s, "fl", [
        [
          "late events keep piling up in the side output. the mobile SDK batches for up to 2 minutes, so 30s of out-of-orderness was never going to work. make it 2 minutes",
          R,
          D(
            "decision",
            "project",
            "Watermarks allow 2 minutes of out-of-orderness (the mobile SDK batches events for up to 2 minutes).",
            { contra: S.flWatermark },
          ),
        ],
        [
          "and keep rocksdb with incremental checkpoints to the s3 bucket. don't switch to the hashmap backend just because it was faster in your local run",
          D(
            "rule",
            "project",
            "The state backend stays RocksDB with incremental checkpoints to S3, not the hashmap backend.",
            { dup: S.flState },
          ),
        ],
        ["maybe the late ones are all from the old android build", HN("hypothesis")],
        ["add the new schema version to the deserializer", R],
      ]),
    [S.flWatermark, S.flState, S.flKafka],
  ),
  sc(
    "c19-fl-aws-keys",
    "fl",
    "AWS keys pasted for a one-off listing; the agent's hypothesis; cluster facts in a request; a deploy rule",
    "2026-10-19T18:05:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `I think the latest savepoint is corrupt. list s3://cs-flink-checkpoints/savepoints/ with these, my sso login is broken today\nAWS_ACCESS_KEY_ID=${id}\nAWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(WORK.fl[0]);
      s.say(
        "The newest savepoint directory has no _metadata file; the one before it is complete. Probably the job was cancelled while the savepoint was still being written.",
        HN("hypothesis"),
      );
      turns(s, "fl", [
        [
          "ok restore from the one before. fyi prod parallelism is 12 (2 locally) and the prod jobmanager is flink-prod.analytics.internal:8081",
          R,
          D(
            "fact",
            "project",
            "Production parallelism is 12 (2 locally); the production JobManager is at flink-prod.analytics.internal:8081.",
          ),
        ],
        [
          "savepoints are taken by deploy.sh before every deploy. never by hand, that's how we got a half-written one",
          D(
            "rule",
            "project",
            "Savepoints are taken by deploy.sh before every deploy, never by hand.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "c20-fl-staff-paragraph",
    "fl",
    "a staff engineer's paragraph with a decision and its reason, a signed-off rule and an output fact before the task; descriptive always",
    "2026-10-20T09:25:00.000Z",
    (s) =>
      turns(s, "fl", [
        [
          "Before you touch the sessionizer, some history. We decided last year to sessionize in Flink instead of in the warehouse with dbt, because marketing wants session counts within five minutes and the warehouse only loads hourly. The session gap is 30 minutes of inactivity, the same as Google Analytics, and product signed off on that number, so please don't tune it. Sessions are written to the Kafka topic clickstream.sessions with Avro schemas in the Confluent schema registry. What I actually need: the sessionizer drops events with a null user_id; those should go into an anonymous session keyed by device_id.",
          R,
          D(
            "decision",
            "project",
            "Sessionization happens in Flink, not in the warehouse with dbt (session counts are needed within five minutes; the warehouse loads hourly).",
          ),
          D(
            "rule",
            "project",
            "The session gap is 30 minutes of inactivity, signed off by product; it is not tuned.",
          ),
          D(
            "fact",
            "project",
            "Sessions are written to the Kafka topic clickstream.sessions with Avro schemas in the Confluent schema registry.",
          ),
        ],
        ["it always lags on monday mornings, no idea why", HN("one-off")],
        ["ok push the branch", R],
      ]),
  ),
];

const LZ: Script[] = [
  sc(
    "c21-lz-lazarus34",
    "lz",
    "a stored IDE version changed; a stored compiler-mode rule repeated with a marker; never mind; a question",
    "2026-10-21T07:40:00.000Z",
    (s) =>
      turns(s, "lz", [
        [
          "all build machines have lazarus 3.4 with fpc 3.2.2 now. update the build steps in the README, and the .lpi if it needs anything",
          R,
          D("fact", "project", "stockroom-lz builds with Lazarus 3.4 and FPC 3.2.2.", {
            contra: S.lzVer,
          }),
        ],
        [
          "the new unit has {$mode delphi}. objfpc with {$H+} like every other unit we have",
          R,
          D("rule", "project", "Units use {$mode objfpc}{$H+}, not delphi mode.", {
            dup: S.lzMode,
          }),
        ],
        ["never mind the toolbar icons, Piet is redoing them anyway", HN("one-off")],
        ["is TBufDataset ok with ~200k rows in memory?", Q],
      ]),
    [S.lzVer, S.lzMode],
  ),
  sc(
    "c22-lz-firebird4",
    "lz",
    "a stored database version changed; a stored form rule repeated after the agent's mistake; a stored release target extended with its reason",
    "2026-10-22T12:15:00.000Z",
    (s) =>
      turns(s, "lz", [
        [
          "we migrated the server to firebird 4 over the weekend. connection is still TIBConnection, only the client lib is fbclient 4.0.4 now, so update the installer to ship that one",
          R,
          D(
            "fact",
            "project",
            "The database is Firebird 4 (client library fbclient 4.0.4), still accessed with SQLdb TIBConnection.",
            { contra: S.lzDb },
          ),
        ],
        [
          "the stock calculation you put in frmReceive's OnClick — move it into dmStock. forms don't compute anything, they call the data modules",
          R,
          D(
            "rule",
            "project",
            "Form units hold no business logic; they call the dm* data modules.",
            { dup: S.lzForms },
          ),
        ],
        [
          "oh and there's a linux build too from now on, 64 bit, the new warehouse in Porto runs ubuntu on its terminals",
          D(
            "fact",
            "project",
            "Releases are built for Windows 64-bit and Linux 64-bit (the Porto warehouse terminals run Ubuntu).",
            { contra: S.lzTarget },
          ),
        ],
      ]),
    [S.lzDb, S.lzForms, S.lzTarget],
  ),
  sc(
    "c23-lz-barcode",
    "lz",
    "hardware facts stated in passing while fixing a bug; a hypothesis",
    "2026-10-23T10:05:00.000Z",
    (s) =>
      turns(s, "lz", [
        [
          "the barcode scanner sends an extra CR after the code, handle it in edtSku's OnKeyPress",
          R,
        ],
        [
          "every scanner we have is a Zebra DS2208 in keyboard wedge mode, so no serial port code for them, ever",
          D(
            "fact",
            "project",
            "All barcode scanners are Zebra DS2208 in keyboard-wedge mode; no serial-port code for them.",
          ),
        ],
        ["maybe it's the scanner's suffix setting and not our code?", HN("hypothesis")],
        [
          "while you're there: labels print on the Zebra ZD421 at 10.4.1.30 port 9100, raw ZPL. make the reprint button use that",
          R,
          D(
            "fact",
            "project",
            "Labels print on a Zebra ZD421 at 10.4.1.30, port 9100, as raw ZPL.",
          ),
        ],
      ]),
  ),
  sc(
    "c24-lz-google-key",
    "lz",
    "a Google API key pasted for a one-off geocoding; a data-ownership rule; a question",
    "2026-10-24T15:30:00.000Z",
    (s) => {
      const key = s.secret("google");
      s.userS(
        `quick one: geocode the addresses in suppliers.csv with the google geocoding api, key ${key}, only to fill lat/lon once`,
        [key],
        N("secret"),
        R,
      );
      s.tools(WORK.lz[0]);
      s.say(
        "Filled 412 of 418 rows; six addresses came back ZERO_RESULTS and are left empty. The key was not written to any file.",
      );
      turns(s, "lz", [
        [
          "fine. supplier master data belongs to purchasing (Ines), we only read it. the app never writes to the SUPPLIERS table",
          D(
            "rule",
            "project",
            "The app never writes to the SUPPLIERS table; supplier master data belongs to purchasing (Ines).",
          ),
        ],
        ["why the 6 failures, typos in the street names?", Q],
      ]);
    },
  ),
];

const MP: Script[] = [
  sc(
    "c25-mp-mpy123",
    "mp",
    "a stored firmware version changed; a stored deploy rule repeated with a marker; descriptive always; a question",
    "2026-10-25T08:50:00.000Z",
    (s) =>
      turns(s, "mp", [
        [
          "flashed every probe with micropython 1.23 yesterday. with the new asyncio the uasyncio imports can go",
          R,
          D("fact", "project", "The probes run MicroPython 1.23 on the Pico W.", {
            contra: S.mpVer,
          }),
        ],
        [
          "put it on probe 3 with mpremote — the usual way, not thonny",
          R,
          D("rule", "project", "Code goes onto the probes with mpremote, not Thonny.", {
            dup: S.mpDeploy,
          }),
        ],
        ["it always takes two tries to connect after flashing", HN("one-off")],
        ["can mpremote mount the folder instead of copying each time?", Q],
      ]),
    [S.mpVer, S.mpDeploy],
  ),
  sc(
    "c26-mp-interval",
    "mp",
    "a stored sleep interval changed with its reason; requests",
    "2026-10-26T14:10:00.000Z",
    (s) =>
      turns(s, "mp", [
        [
          "battery maths says 15 minutes is too often, the cells are dead in five weeks. we're going to 30 min deep sleep",
          D(
            "decision",
            "project",
            "Probes deep-sleep 30 minutes between readings (15 minutes drained the batteries in five weeks).",
            { contra: S.mpSleep },
          ),
        ],
        ["add the battery voltage to the mqtt payload, as `vbat` in volts", R],
        ["and bump the payload version field to 2", R],
      ]),
    [S.mpSleep, S.mpMqtt, S.mpPins],
  ),
  sc(
    "c27-mp-pasted-log",
    "mp",
    "a traceback pasted as content blocks with a network fact after it; the agent's hypothesis; a retry rule with its reason; a hypothesis",
    "2026-10-27T11:35:00.000Z",
    (s) => {
      s.userBlocks(
        [
          "probe 7 keeps rebooting:",
          'MPY: soft reboot\nTraceback (most recent call last):\n  File "main.py", line 41, in <module>\n  File "lib/net.py", line 18, in connect\nOSError: [Errno 110] ETIMEDOUT\nMPY: soft reboot\nTraceback (most recent call last):\n  File "main.py", line 41, in <module>\n  File "lib/net.py", line 18, in connect\nOSError: [Errno 110] ETIMEDOUT',
          "it's the one at the far end of bed C, signal is awful there. the greenhouse AP is a UniFi U6 Mesh on channel 6",
        ],
        R,
        D("fact", "project", "The greenhouse access point is a UniFi U6 Mesh on channel 6."),
      );
      s.tools(WORK.mp[1]);
      s.say(
        "connect() raises after the first timeout and main.py doesn't catch it, so the board soft-reboots and tries again immediately. Likely the probe browns out when the radio starts at the edge of coverage.",
        HN("hypothesis"),
      );
      turns(s, "mp", [
        [
          "if wifi fails three times the probe goes back to deep sleep, no retry loop. a looping probe empties its battery in one night",
          R,
          D(
            "rule",
            "project",
            "After three failed WiFi attempts a probe goes back to deep sleep instead of retrying in a loop.",
          ),
        ],
        ["I bet it's the metal shelving next to bed C", HN("hypothesis")],
      ]);
    },
  ),
  sc(
    "c28-mp-wifi-confirm",
    "mp",
    "a WiFi password inside an otherwise durable network fact; an agent proposal confirmed with one word; a one-off",
    "2026-10-28T16:55:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `the probes join the soil-iot SSID (2.4 GHz only, the pico can't do 5), psk is ${pw}. put it in secrets.py which is gitignored, not in net.py`,
        [pw],
        R,
        D(
          "fact",
          "project",
          "The probes join the 2.4 GHz soil-iot WiFi network; credentials go in the gitignored secrets.py.",
          { secret: true },
        ),
      );
      s.tools(WORK.mp[0]);
      s.say("Moved the credentials into secrets.py and added it to .gitignore.");
      s.user("calibration values are still hardcoded in sensor.py, ugh", R);
      ask(
        s,
        "mp",
        "I moved the dry/wet calibration values into calib.json on each probe's filesystem, read at boot, so one firmware image fits every probe. Should per-probe settings like this always live in calib.json?",
        1,
      );
      s.confirm(
        "yep",
        "rule",
        "project",
        "Per-probe settings such as calibration live in calib.json on the probe, not in code.",
      );
      turns(s, "mp", [["for probe 4 just copy probe 3's numbers for now", HN("one-off")]]);
    },
  ),
];

const RB: Script[] = [
  sc(
    "c29-rb-rojo",
    "rb",
    "a stored source-of-truth rule repeated as a reproach; a stored strict-mode rule repeated tersely; a question",
    "2026-10-29T09:15:00.000Z",
    (s) =>
      turns(s, "rb", [
        [
          "did you just edit the script in studio through the plugin?? don't. the rojo project is the source of truth, whatever you do in studio gets overwritten on the next sync",
          D(
            "rule",
            "project",
            "Scripts are edited in the Rojo project, never in Studio (Studio gets overwritten on sync).",
            { dup: S.rbRojo },
          ),
        ],
        [
          "also the new checkpoint module has no --!strict. every script.",
          R,
          D("rule", "project", "Every script has --!strict at the top.", { dup: S.rbStrict }),
        ],
        ["does rojo serve pick up new folders or do I restart it?", Q],
      ]),
    [S.rbRojo, S.rbStrict],
  ),
  sc(
    "c30-rb-profilestore",
    "rb",
    "a stored data library replaced with its reason; a stored authority rule repeated after the agent's mistake; a question phrased like a rule",
    "2026-10-30T13:00:00.000Z",
    (s) =>
      turns(s, "rb", [
        [
          "we're dropping ProfileService, it's unmaintained. new saves go through ProfileStore, the migration reads the old keys once and that's it",
          R,
          D(
            "decision",
            "project",
            "Player data is saved with ProfileStore instead of the unmaintained ProfileService.",
            { contra: S.rbData },
          ),
        ],
        [
          "wait, the client tells the server how many coins it picked up?? the server decides that. client asks, server checks and applies",
          R,
          D(
            "rule",
            "project",
            "The server decides game state such as coins; the client only asks and the server checks and applies.",
            { dup: S.rbServer },
          ),
        ],
        ["should every remote always have a rate limit on it?", HN("question")],
        ["run selene before you give it back", R],
      ]),
    [S.rbData, S.rbServer, S.rbLint],
  ),
  sc(
    "c31-rb-pricing-mobile",
    "rb",
    "a pricing ownership rule; a mobile-first test rule with its reason; an event one-off",
    "2026-10-31T17:20:00.000Z",
    (s) =>
      turns(s, "rb", [
        ["add a gamepass for double jump, the id is 8834120", R],
        [
          "prices are Jess's call, she does all the monetization. don't change a price in code without asking her first",
          D(
            "rule",
            "project",
            "Prices are set by Jess; no price change in code without asking her.",
          ),
        ],
        [
          "most of our players are on phones so every UI gets checked in the device emulator at iPhone SE size before it's done",
          D(
            "rule",
            "project",
            "Every UI is checked in Studio's device emulator at iPhone SE size (most players are on phones).",
          ),
        ],
        ["for the halloween event make the lava orange", HN("one-off")],
      ]),
  ),
  sc(
    "c32-rb-private",
    "rb",
    "a private aside inside a request; a hypothesis; a layout fact",
    "2026-11-01T10:30:00.000Z",
    (s) =>
      turns(s, "rb", [
        ["checkpoint respawn sometimes puts you on the previous stage", R],
        [
          "<private>jess's cousin keeps reporting 'bugs' that are just him falling off the map</private> anyway check the touch detection on the checkpoints",
          N("private"),
          R,
        ],
        [
          "maybe Touched fires before the character is parented to workspace",
          HN("hypothesis"),
        ],
        [
          "for reference the stages are models under workspace.Stages named Stage001 to Stage120, and each one has a part called Spawn",
          D(
            "fact",
            "project",
            "Stages are models under workspace.Stages named Stage001 to Stage120, each with a part named Spawn.",
          ),
        ],
      ]),
  ),
];

const BC: Script[] = [
  sc(
    "c33-bc-swedencentral",
    "bc",
    "a stored region changed for new resources with its reason; a stored naming rule repeated as an instance; a demo one-off; a question",
    "2026-11-02T08:20:00.000Z",
    (s) =>
      turns(s, "bc", [
        [
          "new stuff goes to swedencentral from now on — westeurope has no capacity for the gpu SKUs and finance likes the price. existing westeurope resources stay put",
          D(
            "decision",
            "project",
            "New resources deploy to swedencentral (GPU capacity, price); existing westeurope resources stay there.",
            { contra: S.bcRegion },
          ),
        ],
        [
          "name the ml spoke by the convention, type-workload-env-region, so vnet-ml-prd-sdc",
          R,
          D(
            "rule",
            "project",
            "Resource names follow <type>-<workload>-<env>-<region>.",
            { dup: S.bcNames },
          ),
        ],
        [
          "for the demo subscription skip the naming convention, it gets deleted on friday",
          HN("one-off"),
        ],
        ["does what-if show changes to the private dns zone links?", Q],
      ]),
    [S.bcRegion, S.bcNames],
  ),
  sc(
    "c34-bc-avm",
    "bc",
    "a stored deploy rule repeated after the agent's mistake; a stored what-if rule repeated inside a request; a stored module source replaced with its reason",
    "2026-11-03T11:45:00.000Z",
    (s) =>
      turns(s, "bc", [
        [
          "you ran az deployment from your shell against the sandbox sub. please don't. even sandbox goes through the devops pipeline",
          D(
            "rule",
            "project",
            "Deployments go through the Azure DevOps pipeline only, sandbox included; never from a shell.",
            { dup: S.bcDeploy },
          ),
        ],
        [
          "the new pipeline needs the what-if step in front of each deploy stage too",
          R,
          D("rule", "project", "A what-if step runs before each deploy stage.", {
            dup: S.bcWhatIf,
          }),
        ],
        [
          "and we've left the private registry. modules come from Azure Verified Modules on the public registry now (br/public:avm/...), pinned to exact versions — one less thing for us to maintain",
          D(
            "decision",
            "project",
            "Modules come from Azure Verified Modules on the public registry (br/public:avm/...), pinned to exact versions, instead of the private registry.",
            { contra: S.bcModules },
          ),
        ],
      ]),
    [S.bcDeploy, S.bcWhatIf, S.bcModules],
  ),
  sc(
    "c35-bc-client-secret",
    "bc",
    "a client secret pasted for a one-off login test; a subscription-layout fact; a one-off",
    "2026-11-04T15:05:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `the pipeline's service connection broke. check whether this SP can still log in:\nAZURE_CLIENT_ID=5f1c0a2e-3b7d-4e11-9c55-2d8f6a0b4c71\nAZURE_TENANT_ID=0e9b7c44-8a21-4f6d-b3e0-71c2d5a9f018\nAZURE_CLIENT_SECRET=${pw}`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.bc[0]);
      s.say(
        "The login works; the service principal has lost its Contributor role on sub-connectivity, which is why the pipeline fails.",
      );
      turns(s, "bc", [
        [
          "right. layout for you: sub-connectivity holds the hub and Femi owns it, each spoke workload has its own subscription, and sub-management has log analytics",
          D(
            "fact",
            "project",
            "Subscriptions: sub-connectivity holds the hub (owned by Femi), each spoke workload has its own subscription, sub-management holds Log Analytics.",
          ),
        ],
        [
          "for now just give it the role back by hand, I'll file the PIM request later",
          HN("one-off"),
        ],
      ]);
    },
  ),
  sc(
    "c36-bc-terse",
    "bc",
    "terse messages: a tagging rule with its reason, a firewall rule, a question",
    "2026-11-05T09:35:00.000Z",
    (s) =>
      turns(s, "bc", [
        [
          "tags owner, costcenter, env on everything. policy denies without them anyway",
          D(
            "rule",
            "project",
            "Every resource carries the owner, costcenter and env tags (Azure Policy denies resources without them).",
          ),
        ],
        [
          "fw rules go in the firewall policy fwpol-hub-prd-weu. no classic rules",
          D(
            "rule",
            "project",
            "Firewall rules go in the firewall policy fwpol-hub-prd-weu, never as classic rules.",
          ),
        ],
        ["lint clean?", Q],
        ["ship it", R],
      ]),
  ),
];

const UE: Script[] = [
  sc(
    "c37-ue-54",
    "ue",
    "a stored engine version changed; a stored C++/Blueprint rule repeated after the agent's mistake; reported speech; a question",
    "2026-11-06T08:05:00.000Z",
    (s) =>
      turns(s, "ue", [
        [
          "we moved to 5.4 over the break, the .uproject is already switched. fix the deprecation warnings in our module",
          R,
          D("fact", "project", "Hollowreach is on Unreal Engine 5.4.", { contra: S.ueVer }),
        ],
        [
          "the dash you made is all blueprint graph. port the logic to C++, blueprints are for tuning numbers and fx and nothing else",
          R,
          D(
            "rule",
            "project",
            "Gameplay logic is written in C++; Blueprints only for tuning values and effects.",
            { dup: S.ueCpp },
          ),
        ],
        [
          "Noor keeps saying you should never use Tick in gameplay code. whatever, the dash needs a timer anyway",
          HN("one-off"),
        ],
        ["is enhanced input the default in 5.4?", Q],
      ]),
    [S.ueVer, S.ueCpp],
  ),
  sc(
    "c38-ue-deck40",
    "ue",
    "a stored locking rule repeated after a conflict; a stored performance target changed; a stored ability rule repeated inside a request; a hypothesis",
    "2026-11-07T12:40:00.000Z",
    (s) =>
      turns(s, "ue", [
        [
          "you edited BP_Player.uasset without locking it and Noor had it checked out. lock first, every single time: git lfs lock",
          R,
          D("rule", "project", "Lock a .uasset with git lfs lock before editing it.", {
            dup: S.ueLfs,
          }),
        ],
        [
          "perf target changed btw: 60 on the deck isn't happening. it's 40 fps locked on the steam deck now (the 40 Hz mode), and 60 on the PC min spec",
          D(
            "fact",
            "project",
            "The performance target is 40 fps locked on the Steam Deck and 60 fps on the PC minimum spec.",
            { contra: S.uePerf },
          ),
        ],
        [
          "stamina for the dash: through GAS, cost as a GameplayEffect, like all the abilities",
          R,
          D(
            "rule",
            "project",
            "Abilities and their costs go through the Gameplay Ability System.",
            {
              dup: S.ueGas,
            },
          ),
        ],
        ["maybe lumen is what eats the frame on the deck", HN("hypothesis")],
      ]),
    [S.ueLfs, S.uePerf, S.ueGas],
  ),
  sc(
    "c39-ue-openai",
    "ue",
    "an OpenAI key pasted for a one-off test; a no-runtime-LLM rule with an owner; a question",
    "2026-11-08T16:15:00.000Z",
    (s) => {
      const key = s.secret("openai");
      s.userS(
        `try generating 20 barks for the merchant with the openai api, once, key ${key}. just want to see if it's usable`,
        [key],
        N("secret"),
        R,
      );
      s.tools(WORK.ue[0]);
      s.say(
        "Wrote 20 lines to Saved/Prototype/merchant_barks.txt; the key only lived in the process environment.",
      );
      turns(s, "ue", [
        [
          "meh. ok. to be clear the shipped game makes no calls to any LLM at runtime, ever. writing stays with Dani, this was just a test",
          D(
            "rule",
            "project",
            "The shipped game makes no runtime calls to an LLM; the writing is Dani's.",
          ),
        ],
        ["would a data table be better than a string table for barks?", Q],
      ]);
    },
  ),
  sc(
    "c40-ue-rejected-clean",
    "ue",
    "a build fact; a rejected tool call followed by the rule it broke; descriptive always; a question phrased like a rule",
    "2026-11-09T10:50:00.000Z",
    (s) => {
      turns(s, "ue", [
        [
          "packaging: the build machine is BUILD-02 and packaged builds end up on \\\\nas01\\builds\\hollowreach, one folder per changelist",
          D(
            "fact",
            "project",
            "Packaged builds are made on BUILD-02 and land in \\\\nas01\\builds\\hollowreach, one folder per changelist.",
          ),
        ],
      ]);
      s.user("now package a development build for the deck, clean first", R);
      s.rejectedTool("Bash", { command: "rm -rf Intermediate DerivedDataCache Saved Binaries" });
      s.user(
        "no!! not Saved. that's where everyone's local config and the profiling captures are. Intermediate, DerivedDataCache and Binaries only when cleaning",
        D(
          "rule",
          "project",
          "Cleaning never deletes Saved/ (local configs, profiling captures); only Intermediate, DerivedDataCache and Binaries.",
        ),
      );
      s.tools(WORK.ue[0]);
      s.say("Cleaned Intermediate, DerivedDataCache and Binaries only, and started the package.");
      turns(s, "ue", [
        ["the editor always crashes when I open the forest map on my laptop", HN("one-off")],
        ["should every actor always have tick disabled by default?", HN("question")],
      ], 1);
    },
  ),
];

const MIXED: Script[] = [
  sc(
    "c41-nm-global-prefs",
    "nm",
    "a stored global commit rule repeated as a reminder; a stored global push rule loosened; a new global preference",
    "2026-11-10T08:25:00.000Z",
    (s) =>
      turns(s, "nm", [
        ["typo in the --help text, 'recieve'. fix and commit", R],
        [
          "imperative, short subject line, you know the drill",
          D("rule", "global", "Commit subjects are imperative and short.", { dup: S.gCommit }),
        ],
        [
          "and from now on you can push to feature branches on your own. main or anything with a release tag still needs me to say yes",
          D(
            "preference",
            "global",
            "Pushing to feature branches without asking is fine; pushing to main or release tags needs the user's yes.",
            { contra: S.gAskPush },
          ),
        ],
        [
          "plain text answers in chat please, no markdown headers. they look silly in my terminal",
          D("preference", "global", "Answers in chat are plain text without markdown headers."),
        ],
      ]),
    [S.gCommit, S.gAskPush],
  ),
  sc(
    "c42-fl-long-compacted",
    "fl",
    "a long session with a compaction; a new metrics rule; a stored uid rule repeated after the compaction; a registry fact with an ownership; hard negatives",
    "2026-11-11T09:00:00.000Z",
    (s) => {
      turns(s, "fl", [
        ["add a counter for late events", R],
        [
          "every metric name starts with clickstream_, the grafana dashboards filter on that prefix",
          D(
            "rule",
            "project",
            "Every metric name starts with clickstream_ (the Grafana dashboards filter on it).",
          ),
        ],
        ["for the load test tonight turn the side output off", HN("one-off")],
        ["what's the overhead of a counter per key?", Q],
        ["one counter then, not per key", R],
      ]);
      s.compact(
        "The user asked for a counter of late events (done, one counter rather than one per key), said every metric name starts with clickstream_ because the Grafana dashboards filter on it, and asked to disable the side output for tonight's load test (done).",
      );
      turns(s, "fl", [
        [
          "the enrichment operator you just added needs its uid, remember. every operator has one so savepoints restore",
          R,
          D("rule", "project", "Every operator has a uid so savepoints restore.", {
            dup: S.flUid,
          }),
        ],
        [
          "schema registry is at schema-registry.analytics.internal:8081, and in prod only the platform team registers subjects. we open a ticket with them",
          D(
            "fact",
            "project",
            "The schema registry is at schema-registry.analytics.internal:8081; in production only the platform team registers subjects (via a ticket).",
          ),
        ],
        ["my guess is the slow checkpoints are s3 throttling again", HN("hypothesis")],
        ["ok commit and open the MR", R],
      ], 1);
    },
    [S.flUid],
  ),
  sc(
    "c43-cl-global-long",
    "cl",
    "a stored global brevity preference repeated with a marker; a stored global amend rule changed; a global fact about the user; a one-off; a question",
    "2026-11-12T10:20:00.000Z",
    (s) =>
      turns(s, "cl", [
        ["the invoice csv export is slow, profile it with sb-sprof", R],
        [
          "short answer, just the numbers, like I always ask",
          D("preference", "global", "Keep answers short.", { dup: S.gShort }),
        ],
        [
          "and I changed my mind about amending: on my own feature branches amend pushed commits all you like and force-push with --force-with-lease. never on shared branches",
          D(
            "preference",
            "global",
            "Amending pushed commits and force-pushing with --force-with-lease is fine on the user's own feature branches, never on shared branches.",
            { contra: S.gNoAmend },
          ),
        ],
        [
          "something about me: I'm colourblind (deuteranopia), so don't rely on red vs green in anything you show me, diffs included",
          D(
            "fact",
            "global",
            "The user is colourblind (deuteranopia): don't rely on red versus green in anything shown to them.",
          ),
        ],
        ["skip the tests for this one, I only want the numbers", HN("one-off")],
        ["is with-output-to-string slower than an adjustable string with a fill pointer?", Q],
      ]),
    [S.gShort, S.gNoAmend],
  ),
  sc(
    "c44-ue-global-spanish",
    "ue",
    "requests in Spanish; a stored global language preference repeated in an aside; a stored global commit rule repeated in Spanish; a new global rule",
    "2026-11-13T07:45:00.000Z",
    (s) =>
      turns(s, "ue", [
        ["oye, el build de linux falla en el paso de shaders, mira el log", R],
        [
          "(and yes, answer in english still, even when I type spanish at you)",
          D("preference", "global", "Answer in English even when the user writes in Spanish.", {
            dup: S.gLang,
          }),
        ],
        [
          "another one for every repo: when you edit a file don't reformat lines you didn't change, it wrecks my git blame",
          D("rule", "global", "Don't reformat lines that weren't otherwise changed."),
        ],
        [
          "y el commit: en inglés, imperativo, corto. como siempre",
          R,
          D("rule", "global", "Commit messages are in English, imperative and short.", {
            dup: S.gCommit,
          }),
        ],
        ["¿por qué tarda tanto el DDC en la máquina nueva?", Q],
      ]),
    [S.gLang, S.gCommit],
  ),
];

export const HOLDOUT14: Script[] = [
  ...NM,
  ...AD,
  ...CL,
  ...CH,
  ...FL,
  ...LZ,
  ...MP,
  ...RB,
  ...BC,
  ...UE,
  ...MIXED,
];
