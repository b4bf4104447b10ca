/**
 * Hand-written sessions of the capture benchmark's `holdout15` split: written blind on 2026-11-29
 * by a helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs pages
 * or results (nor the main checkout or any other helper's worktree), registered as unrun before it
 * was written and frozen before any run against it. About half of its 44 sessions have stored
 * memories, which the user repeats (often in other words), changes, or extends with a new
 * statement on the same topic; the others are ordinary sessions with rules, decisions, setup facts
 * in passing, global preferences, hard negatives and pasted secrets. Ten projects new to the data
 * set: a SWI-Prolog tariff rules engine, a Drupal museum site, an SAP ABAP dunning extension, a
 * KiCad power board, SaltStack states for a university lab, an Emacs Lisp package, a SQL Server
 * database project, a Pharo library system, OpenSCAD printer parts and a Vala/GTK 4 desktop app.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) or a look-alike that states no rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout15 split's projects. */
const P = {
  pl: "/home/lena/prolog/tariff-rules-pl",
  dr: "/home/oskar/sites/museum-drupal",
  ab: "/Users/birgit.k/abap/zfi-dunning-abap",
  kc: "/home/mateo/hw/powerboard-kicad",
  sl: "/srv/git/salt-states",
  el: "/home/aiko/src/org-timesheet-el",
  ts: "C:/Users/dmitri/source/repos/WarehouseDb",
  ph: "/home/sanne/pharo/Circulus",
  os: "/home/jonas/3d/printer-parts-scad",
  va: "/home/claire/gnome/ledgerly-gtk",
} as const;
type Proj = keyof typeof P;

const WORK: Record<Proj, ToolStep[]> = {
  pl: [
    bash(
      "make test",
      "swipl -g run_tests -t halt test/test_tariffs.plt test/test_calendar.plt\n[1/14] tariffs:flat_rate ....... passed (0.002 sec)\n[7/14] tariffs:time_of_use_weekend .. passed (0.004 sec)\n[14/14] calendar:holiday_lookup ... passed (0.001 sec)\n% All 14 tests passed",
    ),
    read(
      `${P.pl}/rules/time_of_use.pl`,
      ":- module(time_of_use, [rate_for/3]).\n\nrate_for(Contract, Stamp, Rate) :-\n    contract_tariff(Contract, Tariff),\n    period_of(Stamp, Period),\n    tariff_rate(Tariff, Period, Rate).",
    ),
  ],
  dr: [
    bash(
      "ddev drush cr && ddev drush updb -y && ddev exec phpunit -c web/core web/modules/custom",
      " [success] Cache rebuild complete.\n [success] No pending updates.\nPHPUnit 9.6.19 by Sebastian Bergmann and contributors.\n\n...........                                                      11 / 11 (100%)\n\nOK (11 tests, 38 assertions)",
    ),
    read(
      `${P.dr}/web/modules/custom/collection_import/src/Plugin/migrate/process/AccessionNumber.php`,
      '<?php\n\nnamespace Drupal\\collection_import\\Plugin\\migrate\\process;\n\nuse Drupal\\migrate\\ProcessPluginBase;\n\n/**\n * @MigrateProcessPlugin(id = "accession_number")\n */\nclass AccessionNumber extends ProcessPluginBase {',
    ),
  ],
  ab: [
    bash(
      "abaplint --format codeframe",
      "abaplint: 61 files, 0 issues found\nDone in 2.8s",
    ),
    read(
      `${P.ab}/src/zcl_fi_dun_level_calc.clas.abap`,
      "CLASS zcl_fi_dun_level_calc DEFINITION PUBLIC FINAL CREATE PUBLIC.\n  PUBLIC SECTION.\n    METHODS next_level\n      IMPORTING is_item         TYPE zfi_dun_s_item\n      RETURNING VALUE(rv_level) TYPE mahns_d.\nENDCLASS.",
    ),
  ],
  kc: [
    bash(
      "kicad-cli pcb drc --exit-code-violations -o drc.rpt powerboard.kicad_pcb && kicad-cli sch erc -o erc.rpt powerboard.kicad_sch",
      "Running DRC...\nFound 0 DRC violations\nFound 0 unconnected items\nRunning ERC...\nFound 0 ERC violations",
    ),
    read(
      `${P.kc}/powerboard.kicad_pro`,
      '{\n  "board": {\n    "design_settings": {\n      "rules": {\n        "min_clearance": 0.127,\n        "min_track_width": 0.127,\n        "min_via_diameter": 0.45\n      }\n    }\n  }\n}',
    ),
  ],
  sl: [
    bash(
      "salt 'lab-canary-01' state.apply test=True",
      "lab-canary-01:\n----------\n          ID: cuda-toolkit\n    Function: pkg.installed\n      Result: None\n     Comment: The following packages would be installed/updated: cuda-toolkit-12-4\n\nSummary for lab-canary-01\n-------------\nSucceeded: 41 (unchanged=40, changed=1)\nFailed:     0",
    ),
    read(
      "/srv/git/salt-states/lab/gpu.sls",
      "cuda-repo:\n  pkgrepo.managed:\n    - name: deb https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ /\n    - file: /etc/apt/sources.list.d/cuda.list\n\ncuda-toolkit:\n  pkg.installed:\n    - require:\n      - pkgrepo: cuda-repo",
    ),
  ],
  el: [
    bash(
      "eldev -dtT test",
      "Running 23 tests (2026-10-14 09:12:44+0900, selector `t')\n   passed   1/23  org-timesheet-test-clock-sum\n   passed  12/23  org-timesheet-test-rounding\n   passed  23/23  org-timesheet-test-export-csv\n\nRan 23 tests, 23 results as expected, 0 unexpected",
    ),
    read(
      `${P.el}/org-timesheet.el`,
      ';;; org-timesheet.el --- Timesheets from Org clocks  -*- lexical-binding: t; -*-\n\n(defgroup org-timesheet nil\n  "Timesheets from Org clock entries."\n  :group \'org)\n\n(defcustom org-timesheet-rounding 15\n  "Round each entry up to this many minutes."\n  :type \'integer)',
    ),
  ],
  ts: [
    bash(
      "dotnet build WarehouseDb.sqlproj -c Release",
      "MSBuild version 17.9.8 for .NET\n  WarehouseDb -> C:\\Users\\dmitri\\source\\repos\\WarehouseDb\\bin\\Release\\WarehouseDb.dacpac\n\nBuild succeeded.\n    0 Warning(s)\n    0 Error(s)",
    ),
    read(
      `${P.ts}/rpt/Views/vw_DailyShipments.sql`,
      "CREATE VIEW rpt.vw_DailyShipments\nAS\nSELECT s.ShipDate,\n       s.WarehouseId,\n       COUNT_BIG(*) AS Shipments,\n       SUM(s.Parcels) AS Parcels\nFROM stg.Shipments AS s\nGROUP BY s.ShipDate, s.WarehouseId;",
    ),
  ],
  ph: [
    bash(
      "./pharo Circulus.image test 'Circulus-Tests'",
      "Running tests in 1 Packages\n87 run, 87 passes, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 unexpected passes",
    ),
    read(
      `${P.ph}/src/Circulus-Core/CirLoan.class.st`,
      "Class {\n\t#name : #CirLoan,\n\t#superclass : #Object,\n\t#instVars : [ 'item', 'patron', 'dueDate' ],\n\t#category : #'Circulus-Core'\n}\n\n{ #category : #testing }\nCirLoan >> isOverdueOn: aDate [\n\t^ aDate > dueDate\n]",
    ),
  ],
  os: [
    bash(
      "openscad -o out/spool_holder.stl parts/spool_holder.scad",
      "Geometries in cache: 38\nGeometry cache size in bytes: 2211408\nCGAL Polyhedrons in cache: 4\nTotal rendering time: 0:00:07.412\n   Top level object is a 3D object:\n   Facets:       1480",
    ),
    read(
      `${P.os}/parts/spool_holder.scad`,
      "include <../lib/BOSL2/std.scad>\n\nspool_bore = 53;     // mm\narm_length = 95;     // mm\nwall = 2.4;          // mm\n\ncyl(d = spool_bore - 1, h = arm_length, anchor = BOTTOM);",
    ),
  ],
  va: [
    bash(
      "meson compile -C build && meson test -C build",
      "[42/42] Linking target src/ledgerly\n1/3 ledgerly:unit / budget-math      OK   0.04s\n2/3 ledgerly:unit / csv-import       OK   0.11s\n3/3 ledgerly:validate / appstream    OK   0.31s\n\nOk:                 3\nFail:               0",
    ),
    read(
      `${P.va}/src/Widgets/CategoryRow.vala`,
      'namespace Ledgerly {\n    [GtkTemplate (ui = "/org/example/Ledgerly/category-row.ui")]\n    public class CategoryRow : Adw.ActionRow {\n        [GtkChild] private unowned Gtk.Label amount_label;\n\n        public CategoryRow (Category category) {\n            Object (title: category.name);\n        }\n    }\n}',
    ),
  ],
};

const ACK = [
  "Done, tests pass.",
  "Changed it and re-ran the build.",
  "That's in.",
  "Updated; the diff is small.",
  "Fixed and checked locally.",
  "Done. Say if you want it another way.",
  "In place and green.",
  "All done.",
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

/** The agent works, then says or asks something. */
function ask(s: Session, p: Proj, text: string, step = 0, ...labels: Label[]): void {
  s.tools(WORK[p][step % WORK[p].length]);
  s.say(text, ...labels);
}

function sc(
  id: string,
  p: Proj,
  style: string,
  run: (s: Session) => void,
  stored: string[] = [],
): Script {
  const versions = ["2.0.29", "1.0.96", "2.0.14", "2.0.37", "1.0.110", "2.0.21", "2.0.8"];
  const n = Number(id.slice(1, 3));
  const start = new Date(Date.UTC(2026, 9, 1 + n, 7 + (n % 11), (n * 13) % 60)).toISOString();
  return {
    id,
    cwd: P[p],
    style,
    start,
    version: versions[n % versions.length],
    run,
    ...(stored.length ? { stored } : {}),
  };
}

// Stored memories, named once so the labels quote them exactly.
const S = {
  plVer: "tariff-rules-pl runs on SWI-Prolog 9.0.",
  plTests: "Tests are plunit files under test/ (*.plt) and run with make test.",
  plCut: "No cuts in the rule files under rules/; use once/1 or if-then-else instead.",
  plMoney: "Tariff amounts are rationals (e.g. 1r3), never floats.",
  plServe: "The rules are served as JSON over HTTP (http_json) on port 8087.",
  drVer: "museum-drupal runs Drupal 10.2 on PHP 8.2.",
  drConfig:
    "Configuration changes are exported with drush cex and committed; config is never changed only on prod.",
  drTheme: "The front-end theme is the custom vitrine theme, a subtheme of Olivero.",
  drLocal: "Local development runs on DDEV.",
  drContrib: "Contrib modules are added with composer only, never by uploading a zip.",
  abRel: "The dunning enhancements target S/4HANA 2021 (ABAP 7.56).",
  abTransport:
    "Transports go DEV 100, QAS 200, PRD 300; nothing moves to PRD without Birgit's approval.",
  abNames: "Custom objects live in package ZFI_DUNNING and are named ZFI_DUN_*.",
  abGit: "The code is versioned with abapGit in the zfi-dunning-abap repository.",
  abSql: "New code uses ABAP SQL with inline declarations; no SELECT ... ENDSELECT loops.",
  kcVer: "powerboard-kicad is designed in KiCad 7.",
  kcFab: "Boards are made at JLCPCB with the 4-layer JLC04161H-7628 stackup.",
  kcDrc: "Every change passes DRC and ERC (kicad-cli) before it is committed.",
  kcLib:
    "Symbols and footprints come from the project library lib/powerboard, not the global ones.",
  kcRev: "Board revisions are tagged rev-A, rev-B, … in git.",
  slVer: "The Salt master runs Salt 3006 from the onedir packages.",
  slPillar: "Secrets live in pillar, GPG-encrypted to the master's key; never in states.",
  slTarget: "Minions are targeted by the role grain, not by hostname globs.",
  slCanary: "States are tried with test=True on lab-canary-01 before a highstate on the lab.",
  slMaster: "The master is salt.lab.cs.example.edu.",
  elVer: "org-timesheet supports Emacs 28.1 and newer.",
  elDeps: "No dependencies beyond Emacs and Org: no dash, no s.el.",
  elPrefix: "Every symbol is prefixed org-timesheet- (internal ones org-timesheet--).",
  elTests: "Tests are ERT tests run with eldev test.",
  elMelpa: "The package is distributed on MELPA.",
  tsVer: "WarehouseDb targets SQL Server 2019.",
  tsDeploy:
    "Deployments are a sqlpackage publish of the dacpac; no hand-written ALTER scripts on the servers.",
  tsSchema: "Staging tables live in schema stg, reporting views in rpt.",
  tsNolock: "No NOLOCK hints in new code.",
  tsOwner: "Ravindra owns the rpt schema and reviews every change to it.",
  phVer: "Circulus runs on Pharo 11.",
  phBaseline: "Dependencies are declared in BaselineOfCirculus and loaded with Metacello.",
  phTonel: "Code is stored with Iceberg in Tonel format under src/.",
  phTests: "Every class has an SUnit test class named <Class>Test.",
  phDb: "Persistence is Voyage on MongoDB.",
  osVer: "The parts are modelled in OpenSCAD 2021.01.",
  osLib: "BOSL2 is the only library, vendored under lib/BOSL2.",
  osParams: "Every part exposes its dimensions as top-level parameters in millimetres.",
  osPrinter: "Parts are printed on the Prusa MK3S in PETG.",
  osFn: "$fn is never set globally; use $fa and $fs.",
  vaVer: "Ledgerly targets GTK 4 and libadwaita 1.4.",
  vaBuild: "Ledgerly builds with meson and is released as a Flatpak (org.example.Ledgerly).",
  vaI18n: "Every user-visible string goes through gettext (_()).",
  vaStore: "Data is kept in a SQLite file under $XDG_DATA_HOME/ledgerly.",
  vaStyle: "Vala code follows the GNOME style: 4 spaces, a space before the opening parenthesis.",
  gCommit: "Commit messages follow Conventional Commits (feat:, fix:, …).",
  gTests: "Run the tests before saying a change is done.",
  gEmoji: "No emoji in answers or commit messages.",
  gBranch: "Work on a branch; never commit straight to main.",
  gExplain: "Explain the cause of a bug before fixing it.",
} as const;

const PL: Script[] = [
  sc(
    "e01-pl-swipl92",
    "pl",
    "a stored interpreter version changed with its reason; a stored no-cut rule repeated as a reproach; a rule quoted from a book, asked as a question",
    (s) =>
      turns(s, "pl", [
        [
          "we're on swipl 9.2 now, the 9.0 tabling bug with the holiday calendar was the last straw. update the Dockerfile and the CI image please",
          R,
          D("fact", "project", "tariff-rules-pl runs on SWI-Prolog 9.2.", { contra: S.plVer }),
        ],
        [
          "hm, you put a ! in rules/peak.pl. we don't do that in the rule files, rewrite it with once/1 or an if-then-else",
          R,
          D("rule", "project", "The rule files use no cuts; once/1 or if-then-else instead.", {
            dup: S.plCut,
          }),
        ],
        [
          "Bratko says you should never use assert in production code, does that apply to our caching of the calendar?",
          HN("question"),
        ],
      ]),
    [S.plVer, S.plCut],
  ),
  sc(
    "e02-pl-money",
    "pl",
    "a stored number-type rule repeated far from its wording inside a request; a stored port changed; a hypothesis",
    (s) =>
      turns(s, "pl", [
        [
          "the new network-fee rule returns 0.07 as a float. the regulator audits these to the cent, so it has to be 7r100 like every other amount",
          R,
          D(
            "rule",
            "project",
            "Amounts in the rules are exact rationals such as 7r100, not floats.",
            {
              dup: S.plMoney,
            },
          ),
        ],
        [
          "ops moved the service behind the new gateway, it listens on 8443 with TLS now instead of plain 8087. fix the server options and the healthcheck",
          R,
          D(
            "fact",
            "project",
            "The rules service listens on port 8443 with TLS (behind the new gateway).",
            { contra: S.plServe },
          ),
        ],
        ["maybe the slow startup is the calendar being loaded twice?", HN("hypothesis")],
      ]),
    [S.plMoney, S.plServe, S.plTests],
  ),
  sc(
    "e03-pl-gitlab-token",
    "pl",
    "a GitLab token pasted for a one-off; a fact about who publishes tariffs; a decision with its reason",
    (s) => {
      const tok = s.secret("gitlab");
      s.userS(
        `the mirror job to the regulator's gitlab failed again. push the tag v3.4.0 there by hand, token is ${tok} (expires friday anyway)`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(WORK.pl[0]);
      s.say("Pushed v3.4.0 to the regulator mirror; the token was only used for that push.");
      turns(s, "pl", [
        [
          "thanks. background so you know: new tariff tables come from the pricing team as a signed CSV every quarter, Henrik signs them. we never type tariff numbers in by hand",
          D(
            "rule",
            "project",
            "Tariff tables come only from the pricing team's signed quarterly CSV (signed by Henrik); tariff numbers are never typed in by hand.",
          ),
        ],
        [
          "and we decided against CHR for the overlap checks, nobody on the team could debug it. plain clauses + a test per tariff",
          D(
            "decision",
            "project",
            "Overlap checks are plain clauses with a test per tariff, not CHR (nobody could debug CHR).",
          ),
        ],
        ["what's the cheapest way to diff two quarters' tables?", Q],
      ]);
    },
  ),
  sc(
    "e04-pl-terse",
    "pl",
    "terse messages: a naming rule, a time-zone fact, a one-off, a descriptive never",
    (s) =>
      turns(s, "pl", [
        ["weekend rate wrong for 2026-12-26. look", R],
        [
          "predicates snake_case, modules named after the file. always",
          D(
            "rule",
            "project",
            "Predicates are snake_case and each module is named after its file.",
          ),
        ],
        [
          "stamps are Europe/Oslo local time in the CSVs, not UTC. that's the bug probably",
          D(
            "fact",
            "project",
            "Timestamps in the tariff CSVs are Europe/Oslo local time, not UTC.",
          ),
          HN("hypothesis"),
        ],
        ["it never fails on my machine tho", HN("one-off")],
        ["leave the boxing day special case hardcoded until january", HN("one-off")],
      ]),
  ),
];

const DR: Script[] = [
  sc(
    "e05-dr-drupal11",
    "dr",
    "a stored core version changed; a stored config rule repeated as a correction after the agent's mistake; a question",
    (s) =>
      turns(s, "dr", [
        [
          "the upgrade went live on monday: drupal 11 and php 8.3. remove the d10 compatibility shims in the custom modules",
          R,
          D("fact", "project", "museum-drupal runs Drupal 11 on PHP 8.3.", { contra: S.drVer }),
        ],
        [
          "wait, you changed the image style through the UI on the live site? that's gone on the next deploy. do it locally, drush cex, commit the yml",
          R,
          D(
            "rule",
            "project",
            "Config changes are made locally, exported with drush cex and committed, not made in the UI on live.",
            { dup: S.drConfig },
          ),
        ],
        ["does config_split handle the dev-only modules or do we need something else?", Q],
      ]),
    [S.drVer, S.drConfig],
  ),
  sc(
    "e06-dr-composer",
    "dr",
    "a stored contrib rule repeated close to its wording; a stored local-dev fact changed; a hypothesis of the agent",
    (s) => {
      turns(s, "dr", [
        [
          "we need the focal_point module for the exhibition teasers. composer require it, don't go downloading tarballs into modules/contrib",
          R,
          D(
            "rule",
            "project",
            "Contrib modules come in through composer, never as downloaded archives.",
            {
              dup: S.drContrib,
            },
          ),
        ],
      ]);
      ask(
        s,
        "dr",
        "The teaser crop looks off because the responsive image style still points at the old 16:9 style; I suspect the focal point isn't applied to derivatives generated before the module was enabled.",
        1,
        HN("hypothesis"),
      );
      turns(s, "dr", [
        [
          "flush them then. oh and fyi we dropped ddev last week, everyone's on lando now (.lando.yml is in the repo), so use lando drush from here on",
          R,
          D(
            "fact",
            "project",
            "Local development runs on Lando (.lando.yml); commands go through lando drush.",
            {
              contra: S.drLocal,
            },
          ),
        ],
      ], 1);
    },
    [S.drContrib, S.drLocal, S.drTheme],
  ),
  sc(
    "e07-dr-mysql-url",
    "dr",
    "a database URL with a password pasted to debug a migration; a content-model fact; a rule with its reason",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `the collection import dies halfway. source db is the old TMS, mysql://tms_read:${pw}@tms-legacy.museum.local:3306/tms — can you see what row it chokes on`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.dr[1]);
      s.say(
        "It stops at object 1987.114: the accession number has a trailing space and the process plugin treats it as a duplicate of 1987.114.",
      );
      turns(s, "dr", [
        [
          "classic. accession numbers are the key for everything, each object node has exactly one and it's unique, they come from the registrar's office and we never renumber",
          R,
          D(
            "fact",
            "project",
            "Accession numbers come from the registrar's office, are unique per object node and are never renumbered.",
          ),
        ],
        [
          "and images never go in the repo or the public files dir directly, they're served from the IIIF server at iiif.museum.example, the node only stores the identifier. copyright reasons",
          D(
            "rule",
            "project",
            "Collection images are served from the IIIF server (iiif.museum.example); nodes store only the identifier, never the image files (copyright).",
          ),
        ],
        ["just trim it in the plugin for this run", HN("one-off")],
      ]);
    },
  ),
  sc(
    "e08-dr-a11y-confirm",
    "dr",
    "an agent proposal confirmed; a rule quoted from WCAG and asked about; a request",
    (s) => {
      s.user("the 'visit' banner fails the contrast check on the dark hero", R);
      ask(
        s,
        "dr",
        "I darkened the banner's background to #1f3a4d (contrast 7.2:1) and added a Pa11y run over the twenty most visited pages to the CI job, failing on any WCAG 2.1 AA error. Should every front-end change go through that Pa11y step?",
      );
      s.confirm(
        "yes please, the board made AA a condition for the funding",
        "rule",
        "project",
        "Every front-end change passes the Pa11y WCAG 2.1 AA check in CI (AA is a funding condition).",
      );
      turns(s, "dr", [
        [
          "WCAG says you should never rely on colour alone — do our map pins do that?",
          HN("question"),
        ],
      ], 1);
    },
  ),
];

const AB: Script[] = [
  sc(
    "e09-ab-release",
    "ab",
    "a stored release changed; a stored naming rule repeated as an instance; a one-off",
    (s) =>
      turns(s, "ab", [
        [
          "Basis finished the upgrade, DEV and QAS are on S/4HANA 2023 now, PRD follows in two weeks. so 7.58 syntax is ok from here on",
          R,
          D("fact", "project", "The dunning enhancements target S/4HANA 2023 (ABAP 7.58).", {
            contra: S.abRel,
          }),
        ],
        [
          "the new BAdI implementation class — call it ZFI_DUN_CL_BADI_LEVEL and put it in ZFI_DUNNING, not $TMP",
          R,
          D(
            "rule",
            "project",
            "New objects go in package ZFI_DUNNING with the ZFI_DUN_ prefix, never $TMP.",
            { dup: S.abNames },
          ),
        ],
        ["don't release the transport tonight, I want to look at it first", HN("one-off")],
      ]),
    [S.abRel, S.abNames],
  ),
  sc(
    "e10-ab-transport",
    "ab",
    "a stored approval rule repeated with a consequence; a stored SQL rule changed with an exception; a question",
    (s) =>
      turns(s, "ab", [
        [
          "ok the fix is in QAS. now the PRD import — Birgit has to ok that, so write her a two-line summary of what changes for the dunning run",
          R,
          D("rule", "project", "Imports to PRD need Birgit's approval.", { dup: S.abTransport }),
        ],
        [
          "about the SQL rule: CDS views are now the default for reads, the analysts want to reuse them. ABAP SQL only where no view exists yet",
          D(
            "rule",
            "project",
            "Reads go through CDS views by default; ABAP SQL only where no CDS view exists yet.",
            { contra: S.abSql },
          ),
        ],
        ["why does the dunning proposal run take 40 minutes on QAS?", Q],
      ]),
    [S.abTransport, S.abSql, S.abGit],
  ),
  sc(
    "e11-ab-prose-password",
    "ab",
    "a password given in prose for a one-off; a system fact; a rule after a mistake",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `can you log in to DEV with my test user and check the SM37 log? user is BKRAUSE_T, my password for it is ${pw}, I'll change it after lunch`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.ab[0]);
      s.say(
        "The job ZFI_DUN_NIGHTLY failed on variant DE01 with a short dump in the level calculation.",
      );
      turns(s, "ab", [
        [
          "DE01 is germany, company code 1000. the austrian one is AT01 with 2000, both run nightly at 02:00",
          D(
            "fact",
            "project",
            "The nightly dunning job runs at 02:00 with variant DE01 (company code 1000) and AT01 (company code 2000).",
          ),
        ],
        [
          "and please, unit tests for every level calculation change. ABAP Unit, in the local test class. the last dump got to QAS because nobody had one",
          R,
          D(
            "rule",
            "project",
            "Every change to the dunning level calculation comes with ABAP Unit tests in the local test class.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "e12-ab-staff-paragraph",
    "ab",
    "a staff engineer's paragraph with a decision, a rule and a fact before the task; a hypothesis",
    (s) =>
      turns(s, "ab", [
        [
          "Some context before you start on the letter forms. We decided in the architecture board to use Adobe Forms for the dunning letters and not Smart Forms, since Smart Forms is in maintenance only and the print team already runs ADS. Texts in the letters are never hardcoded, they come from standard texts (SO10) so the legal department can change wording without a transport. The ADS server for DEV and QAS is ads-dev.corp.example:50001. Now: add the second-reminder layout for Austria.",
          R,
          D(
            "decision",
            "project",
            "Dunning letters use Adobe Forms, not Smart Forms (Smart Forms is maintenance-only; the print team runs ADS).",
          ),
          D(
            "rule",
            "project",
            "Letter texts come from SO10 standard texts, never hardcoded, so legal can change wording without a transport.",
          ),
          D("fact", "project", "The ADS server for DEV and QAS is ads-dev.corp.example:50001."),
        ],
        ["could the blank page be a page-break setting in the master page?", HN("hypothesis")],
        ["ok good enough for the review", R],
      ]),
  ),
];

const KC: Script[] = [
  sc(
    "e13-kc-kicad8",
    "kc",
    "a stored tool version changed; a stored DRC rule repeated as a complaint; a question phrased like a rule",
    (s) =>
      turns(s, "kc", [
        [
          "I converted the project to kicad 8 this morning, don't open it in 7 anymore, it can't read the files back",
          D(
            "fact",
            "project",
            "powerboard-kicad is designed in KiCad 8 (7 can no longer open it).",
            {
              contra: S.kcVer,
            },
          ),
        ],
        [
          "you committed the new buck stage with 3 unconnected pads. that's exactly why drc + erc have to be clean before a commit. fix it and amend",
          R,
          D("rule", "project", "DRC and ERC are clean before anything is committed.", {
            dup: S.kcDrc,
          }),
        ],
        ["should every power net always get its own net class?", HN("question")],
      ]),
    [S.kcVer, S.kcDrc],
  ),
  sc(
    "e14-kc-fab",
    "kc",
    "a stored fab fact changed (new fab house); a stored library rule repeated far from its wording; a new rule on the same topic",
    (s) =>
      turns(s, "kc", [
        [
          "rev-C goes to aisler, not jlc — we need the 2oz copper on the outer layers and the EU lead time. their 4-layer stackup file is in fab/aisler-4l.txt, set the board to that",
          R,
          D(
            "fact",
            "project",
            "From rev-C the boards are made at Aisler with their 4-layer stackup (fab/aisler-4l.txt) and 2 oz outer copper.",
            { contra: S.kcFab },
          ),
        ],
        [
          "the TPS62933 you placed is from the kicad standard lib. copy it into our lib first and use that one, nothing on this board points at the global libraries",
          R,
          D(
            "rule",
            "project",
            "Parts on the board use the project library's copies, never the global KiCad libraries.",
            {
              dup: S.kcLib,
            },
          ),
        ],
        [
          "and every part in our lib needs an MPN and an LCSC-or-Mouser field filled, the BOM script chokes otherwise",
          D(
            "rule",
            "project",
            "Every part in the project library has an MPN and a supplier part number field (the BOM script needs them).",
          ),
        ],
      ]),
    [S.kcFab, S.kcLib, S.kcRev],
  ),
  sc(
    "e15-kc-aws",
    "kc",
    "AWS keys pasted to upload a release; an ownership fact; a one-off",
    (s) => {
      const id = s.secret("awsKeyId");
      const key = s.secret("awsSecret");
      s.userS(
        `upload the rev-B gerbers + the assembly pdf to the s3 bucket for the assembler, my CLI isn't configured here:\nAWS_ACCESS_KEY_ID=${id}\nAWS_SECRET_ACCESS_KEY=${key}`,
        [id, key],
        N("secret"),
        R,
      );
      s.tools(WORK.kc[0]);
      s.say(
        "Uploaded fab/rev-B/ (gerbers, drill files, assembly PDF) to the bucket; I didn't store the keys anywhere.",
      );
      turns(s, "kc", [
        [
          "good. the assembler is Elektrowerk in Graz, Petra there is the contact and she only takes the pick-and-place file as CSV in mm, top side only",
          D(
            "fact",
            "project",
            "Assembly is done by Elektrowerk in Graz (contact Petra); they take the pick-and-place file as CSV in millimetres, top side only.",
          ),
        ],
        ["for this batch put the fiducials back on the panel rails", HN("one-off")],
      ]);
    },
  ),
  sc(
    "e16-kc-drc-log",
    "kc",
    "a DRC report pasted as content blocks with a design rule after it; the agent's hypothesis; a decision with its reason",
    (s) => {
      s.userBlocks(
        [
          "drc on the input stage:",
          "** Drc report for powerboard.kicad_pcb **\n** Created on 2026-10-16T10:02:11 **\n\n** Found 2 DRC violations **\n[clearance]: Clearance violation (netclass 'HV' clearance 2.5000 mm; actual 1.8000 mm)\n    Rule: netclass 'HV'; error\n    @(112.4000 mm, 58.2000 mm): Track [VIN_48V] on F.Cu\n    @(113.1000 mm, 59.9000 mm): Pad 2 [GND] of C14 on F.Cu\n[silk_over_copper]: Silkscreen clipped by solder mask\n    Rule: board setup constraints silk; warning",
          "the 48V side needs 2.5mm to everything else, that's from the insulation spec, not negotiable",
        ],
        R,
        D(
          "rule",
          "project",
          "Everything on the 48 V side keeps 2.5 mm clearance to other nets (insulation spec).",
        ),
      );
      ask(
        s,
        "kc",
        "The violation is C14's ground pad sitting inside the HV keep-out after the last move; probably the footprint's courtyard was ignored when the part was rotated.",
        0,
        HN("hypothesis"),
      );
      turns(s, "kc", [
        [
          "move C14 then. and we're going with 0603 as the smallest passive on this board, the hand-rework people can't do 0402",
          R,
          D(
            "decision",
            "project",
            "0603 is the smallest passive size on the board (0402 can't be reworked by hand).",
          ),
        ],
        ["I bet the silk warning is the logo again", HN("hypothesis")],
      ], 1);
    },
  ),
];

const SL: Script[] = [
  sc(
    "e17-sl-3007",
    "sl",
    "a stored Salt version changed; a stored targeting rule repeated inside a request; a one-off",
    (s) =>
      turns(s, "sl", [
        [
          "master and all minions are on 3007 since the weekend (still onedir). the 3006 pin in the bootstrap state can go",
          R,
          D("fact", "project", "The Salt master and minions run Salt 3007 (onedir).", {
            contra: S.slVer,
          }),
        ],
        [
          "roll the cuda update to the gpu boxes. target them with G@role:gpu, not 'lab-gpu*' — half of them got renamed last term",
          R,
          D(
            "rule",
            "project",
            "Target minions by the role grain (e.g. G@role:gpu), not hostname globs.",
            {
              dup: S.slTarget,
            },
          ),
        ],
        ["skip lab-gpu-07 today, a student is running a thesis job on it", HN("one-off")],
      ]),
    [S.slVer, S.slTarget],
  ),
  sc(
    "e18-sl-canary",
    "sl",
    "a stored canary rule repeated as a reproach; a stored master fact changed; a question",
    (s) =>
      turns(s, "sl", [
        [
          "you ran a highstate on the whole lab without trying it on the canary first?? test=True on lab-canary-01, then the rest. every time",
          R,
          D(
            "rule",
            "project",
            "Try states on lab-canary-01 with test=True before applying them to the lab.",
            {
              dup: S.slCanary,
            },
          ),
        ],
        [
          "also note the master moved, it's salt2.lab.cs.example.edu now, the old vm is being decommissioned. update the minion config template",
          R,
          D("fact", "project", "The Salt master is salt2.lab.cs.example.edu.", {
            contra: S.slMaster,
          }),
        ],
        ["is there a way to see which minions missed the last highstate?", Q],
      ]),
    [S.slCanary, S.slMaster, S.slPillar],
  ),
  sc(
    "e19-sl-wifi-psk",
    "sl",
    "a WiFi key inside an otherwise durable fact; a schedule fact; a question",
    (s) => {
      const psk = s.secret("password");
      s.userS(
        `the seminar room kiosks join the lab-kiosk SSID (WPA2, psk ${psk}), it goes into the kiosk pillar like the other network stuff. they're the only minions on wifi, everything else is wired`,
        [psk],
        R,
        D(
          "fact",
          "project",
          "The seminar-room kiosks join the lab-kiosk WiFi network (credentials in the kiosk pillar); they are the only minions on WiFi.",
          { secret: true },
        ),
      );
      s.tools(WORK.sl[1]);
      s.say("Added the network profile to the kiosk state, reading the key from pillar.");
      turns(s, "sl", [
        [
          "highstates on the lab run sundays at 03:00 from the schedule in the master config, during term nothing gets applied monday to friday 8-18",
          D(
            "rule",
            "project",
            "Lab highstates run Sundays at 03:00; during term nothing is applied Monday to Friday between 08:00 and 18:00.",
          ),
        ],
        ["can the kiosk browser state reboot them if chromium crashes?", Q],
      ]);
    },
  ),
  sc(
    "e20-sl-newcomer-list",
    "sl",
    "rules in a bullet list for a new student admin, with a one-off item; a question",
    (s) =>
      turns(s, "sl", [
        [
          "Tobi starts on the admin team tomorrow and will use you a lot. please keep these in mind with him:\n- every state file needs a header comment with the owner\n- no cmd.run where a proper state module exists\n- formulas are vendored under formulas/, we don't use gitfs\n- this week he only touches the printers, nothing else",
          R,
          D("rule", "project", "Every state file has a header comment naming its owner."),
          D("rule", "project", "No cmd.run where a proper state module exists."),
          D("fact", "project", "Salt formulas are vendored under formulas/; gitfs is not used."),
          HN("one-off"),
        ],
        ["what's a good first state for him to write?", Q],
      ]),
  ),
];

const EL: Script[] = [
  sc(
    "e21-el-emacs29",
    "el",
    "a stored minimum Emacs version changed with its reason; a stored no-dependency rule repeated in passing; a question",
    (s) =>
      turns(s, "el", [
        [
          "bumping the minimum to emacs 29.1, I want treesit and the new sqlite functions and 28 is two releases old. Package-Requires and the CI matrix",
          R,
          D("fact", "project", "org-timesheet requires Emacs 29.1 or newer.", { contra: S.elVer }),
        ],
        [
          "for the grouping code just write the loop with seq or cl-lib, I'm not pulling dash in for one function",
          R,
          D("rule", "project", "No third-party dependencies such as dash; use seq or cl-lib.", {
            dup: S.elDeps,
          }),
        ],
        ["does seq-group-by keep the order of the groups?", Q],
      ]),
    [S.elVer, S.elDeps],
  ),
  sc(
    "e22-el-prefix",
    "el",
    "a stored prefix rule repeated after a mistake; a stored test runner changed; a hypothesis",
    (s) =>
      turns(s, "el", [
        [
          "`ts--round` isn't ours. byte-compiler + package-lint will flag it and MELPA would too. org-timesheet--round",
          R,
          D(
            "rule",
            "project",
            "Every symbol carries the org-timesheet- prefix (org-timesheet-- for internals).",
            {
              dup: S.elPrefix,
            },
          ),
        ],
        [
          "and we moved off eldev, tests are plain ert in batch via `make test` now, eldev kept breaking on the CI runners. Makefile is already there",
          D(
            "fact",
            "project",
            "Tests are ERT tests run in batch with make test (eldev is no longer used).",
            {
              contra: S.elTests,
            },
          ),
        ],
        ["I think the off-by-one is the clock-out at midnight", HN("hypothesis")],
      ]),
    [S.elPrefix, S.elTests, S.elMelpa],
  ),
  sc(
    "e23-el-app-password",
    "el",
    "an app password pasted as an assignment for a one-off; a user-facing rule with its reason; a request",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `try the mail export against my real account so we see what fastmail does with the attachment:\nFASTMAIL_APP_PASSWORD=${pw}\nuser is aiko@fastmail.example`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.el[0]);
      s.say(
        "Sent a test export to yourself; Fastmail shows the CSV attachment fine. I used the password only in that process's environment.",
      );
      turns(s, "el", [
        [
          "ok. the package never sends mail on its own though, the export only opens a message buffer and the user hits send. people have lost jobs over auto-sent timesheets",
          D(
            "rule",
            "project",
            "org-timesheet never sends mail by itself; the export only prepares a message buffer for the user to send.",
          ),
        ],
        ["now the docstring for the export command", R],
      ]);
    },
  ),
  sc(
    "e24-el-declined",
    "el",
    "an agent proposal declined with a decision and its reason; a rule quoted from the Elisp manual, asked about; a one-off",
    (s) => {
      s.user("org-timesheet.el is 1400 lines now, navigating it is annoying", R);
      ask(
        s,
        "el",
        "I could split it into org-timesheet-core.el, -export.el and -ui.el with autoloads between them. Want me to do that?",
      );
      turns(s, "el", [
        [
          "no, it stays a single file. single-file packages are much easier for people who install from a gist or use straight, and MELPA review is quicker. outline headings are enough",
          R,
          D(
            "decision",
            "project",
            "org-timesheet stays a single-file package (easier to install manually, quicker MELPA review); outline headings organise it.",
          ),
        ],
        [
          "the elisp manual says never to use `eval-after-load` in a package — is that what we do in the org-agenda glue?",
          HN("question"),
        ],
        ["don't bother with the changelog for this one", HN("one-off")],
      ], 1);
    },
  ),
];

const TS: Script[] = [
  sc(
    "e25-ts-sql2022",
    "ts",
    "a stored target version changed; a stored deployment rule repeated as a complaint about the agent's script; a one-off",
    (s) =>
      turns(s, "ts", [
        [
          "both prod instances were migrated to SQL Server 2022 over the weekend, set the DSP to Sql160 and we can use the 2022 stuff (GREATEST, DATE_BUCKET etc) from now on",
          R,
          D("fact", "project", "WarehouseDb targets SQL Server 2022 (DSP Sql160).", {
            contra: S.tsVer,
          }),
        ],
        [
          "you wrote me an ALTER TABLE script to run on prod. no. change the table in the project and the publish of the dacpac does the rest",
          R,
          D(
            "rule",
            "project",
            "Schema changes are made in the project and deployed by publishing the dacpac, never by ALTER scripts run on the server.",
            { dup: S.tsDeploy },
          ),
        ],
        ["for the hotfix leave the index rebuild out of the post-deploy script", HN("one-off")],
      ]),
    [S.tsVer, S.tsDeploy],
  ),
  sc(
    "e26-ts-nolock",
    "ts",
    "a stored NOLOCK rule repeated far from its wording; a stored ownership changed; a question",
    (s) =>
      turns(s, "ts", [
        [
          "the dashboard query is slow but read uncommitted is not the fix, we had phantom parcels in the daily numbers for a month because of that. find the real problem",
          R,
          D("rule", "project", "No read-uncommitted (NOLOCK) reads to speed up queries.", {
            dup: S.tsNolock,
          }),
        ],
        [
          "and Ravindra left, the rpt schema is Yasmin's now — she reviews any change to the views",
          D(
            "fact",
            "project",
            "Yasmin owns the rpt schema and reviews every change to its views.",
            {
              contra: S.tsOwner,
            },
          ),
        ],
        ["would a columnstore index on stg.Shipments help here?", Q],
      ]),
    [S.tsNolock, S.tsOwner, S.tsSchema],
  ),
  sc(
    "e27-ts-connstring",
    "ts",
    "a connection string with a password pasted for a one-off comparison; an environment fact; a rule with its reason",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `schema compare against UAT please, it drifted again. Server=sql-uat-02.wh.local,1433;Database=WarehouseDb;User Id=deploy_uat;Password=${pw};TrustServerCertificate=True`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.ts[0]);
      s.say(
        "UAT has two extra columns on stg.Returns and a view rpt.vw_ReturnsTmp that aren't in the project.",
      );
      turns(s, "ts", [
        [
          "vw_ReturnsTmp is someone's experiment, drop it. UAT refreshes from a prod backup every first monday of the month, so anything only on UAT dies then anyway",
          R,
          D(
            "fact",
            "project",
            "UAT (sql-uat-02.wh.local) is refreshed from a prod backup every first Monday of the month.",
          ),
        ],
        [
          "stored procs that change data get SET XACT_ABORT ON at the top. a half-applied stock move is the worst thing that can happen here",
          D("rule", "project", "Data-changing stored procedures start with SET XACT_ABORT ON."),
        ],
      ]);
    },
  ),
  sc(
    "e28-ts-rejected-drop",
    "ts",
    "a rejected tool call followed by the rule it broke; descriptive always; a question phrased like a rule",
    (s) => {
      turns(s, "ts", [[
        "the Returns import staging table has junk from last week, clean it up",
        R,
      ]]);
      s.rejectedTool("Bash", {
        command: 'sqlcmd -S sql-dev-01 -d WarehouseDb -Q "DROP TABLE stg.Returns"',
      });
      s.user(
        "not DROP! the table is part of the project, dropping it out of band breaks the next publish for everyone. staging tables get TRUNCATEd, never dropped",
        D("rule", "project", "Staging tables are truncated, never dropped outside the project."),
      );
      s.tools(WORK.ts[1]);
      s.say("Truncated stg.Returns on dev instead.");
      turns(s, "ts", [
        ["the SSIS package always hangs on the first run after a deploy", HN("one-off")],
        ["should every table always have a clustered index?", HN("question")],
      ], 1);
    },
  ),
];

const PH: Script[] = [
  sc(
    "e29-ph-pharo12",
    "ph",
    "a stored Pharo version changed; a stored test-class rule repeated with a marker; a reported opinion",
    (s) =>
      turns(s, "ph", [
        [
          "moved the image to pharo 12, the new debugger is worth it. update the CI smalltalk.ston and the README",
          R,
          D("fact", "project", "Circulus runs on Pharo 12.", { contra: S.phVer }),
        ],
        [
          "and CirHold needs its CirHoldTest, same as every class here",
          R,
          D("rule", "project", "Each class gets an SUnit test class <Class>Test.", {
            dup: S.phTests,
          }),
        ],
        [
          "Kees always says you should never subclass OrderedCollection, not sure I agree",
          HN("one-off"),
        ],
      ]),
    [S.phVer, S.phTests],
  ),
  sc(
    "e30-ph-voyage",
    "ph",
    "a stored persistence fact changed (Voyage to Soil); a stored baseline rule repeated inside a request; a hypothesis",
    (s) =>
      turns(s, "ph", [
        [
          "we're dropping mongo. the library has one server and 200k records, Soil (the file-based one) is plenty and one less service to run. start porting CirRepository",
          R,
          D(
            "decision",
            "project",
            "Persistence moves from Voyage on MongoDB to Soil (file-based): one server, 200k records, one less service.",
            { contra: S.phDb },
          ),
        ],
        [
          "add Soil to BaselineOfCirculus and load it through metacello like the rest, no loading it by hand in the image",
          R,
          D(
            "rule",
            "project",
            "Dependencies are added to BaselineOfCirculus and loaded with Metacello, not by hand.",
            {
              dup: S.phBaseline,
            },
          ),
        ],
        ["maybe the migration is faster if we export to STON first?", HN("hypothesis")],
      ]),
    [S.phDb, S.phBaseline, S.phTonel],
  ),
  sc(
    "e31-ph-private",
    "ph",
    "a private aside; domain facts about loans; the agent's hypothesis; a request",
    (s) => {
      turns(s, "ph", [
        [
          "<private>the head librarian is retiring in march and nobody knows yet</private> anyway, the fines calculation is off for the children's section",
          N("private"),
          R,
        ],
        [
          "children's items never get fines, that's library policy, and the loan period for everything is 28 days except DVDs which are 7",
          R,
          D("rule", "project", "Children's items never incur fines (library policy)."),
          D(
            "fact",
            "project",
            "The loan period is 28 days for everything except DVDs, which is 7 days.",
          ),
        ],
      ]);
      ask(
        s,
        "ph",
        "CirFinePolicy checks the item's section by name, and the children's section was renamed 'Kids' last year, so the check probably never matches.",
        1,
        HN("hypothesis"),
      );
      turns(s, "ph", [["check by the section id instead then", R]], 1);
    },
  ),
  sc(
    "e32-ph-confirm",
    "ph",
    "an agent proposal confirmed; a fact about the server; a one-off",
    (s) => {
      s.user("the overdue notices go out twice for some patrons", R);
      ask(
        s,
        "ph",
        "Two CirNoticeJob instances run after an image restart because the startup action registers the job again. I made the registration idempotent in SessionManager startup. Should all scheduled jobs register only through CirScheduler so this can't happen again?",
      );
      s.confirm(
        "yes, only through CirScheduler",
        "rule",
        "project",
        "Scheduled jobs are registered only through CirScheduler.",
      );
      turns(s, "ph", [
        [
          "the image runs headless on lib-app01 under systemd as the circulus user, restarts at 04:30 every night",
          D(
            "fact",
            "project",
            "The Circulus image runs headless on lib-app01 under systemd as user circulus and restarts nightly at 04:30.",
          ),
        ],
        ["just send the apology mail to those 14 patrons manually today", HN("one-off")],
      ], 1);
    },
  ),
];

const OS: Script[] = [
  sc(
    "e33-os-manifold",
    "os",
    "a stored OpenSCAD version changed; a stored parameter rule repeated after a mistake; a question",
    (s) =>
      turns(s, "os", [
        [
          "switching to the 2024 nightly with the manifold backend, renders went from 4 minutes to 3 seconds. CI too please, --backend=manifold",
          R,
          D(
            "fact",
            "project",
            "The parts are modelled with an OpenSCAD 2024 nightly using the manifold backend.",
            { contra: S.osVer },
          ),
        ],
        [
          "the clip you made has 3.2 and 17 buried inside the difference(). pull them up top as named params like the other parts, in mm",
          R,
          D(
            "rule",
            "project",
            "Dimensions are named top-level parameters in millimetres, not numbers buried in the geometry.",
            {
              dup: S.osParams,
            },
          ),
        ],
        ["is there a customizer-friendly way to group params?", Q],
      ]),
    [S.osVer, S.osParams],
  ),
  sc(
    "e34-os-printer",
    "os",
    "a stored printer fact changed; a stored library rule repeated negated; a hypothesis",
    (s) =>
      turns(s, "os", [
        [
          "new printer: the MK3S is sold, everything prints on the Bambu X1C now, still PETG mostly. tolerances can go down to 0.15 for sliding fits",
          R,
          D(
            "fact",
            "project",
            "Parts print on the Bambu X1C, mostly in PETG; sliding fits use 0.15 mm clearance.",
            { contra: S.osPrinter },
          ),
        ],
        [
          "for the thread I'd rather not pull in threadlib. BOSL2 has threaded_rod, use that",
          R,
          D(
            "rule",
            "project",
            "No libraries besides BOSL2 (e.g. threaded_rod instead of threadlib).",
            {
              dup: S.osLib,
            },
          ),
        ],
        ["the layer shift is probably the belt tension", HN("hypothesis")],
      ]),
    [S.osPrinter, S.osLib, S.osFn],
  ),
  sc(
    "e35-os-octoprint",
    "os",
    "an API key inside an otherwise durable fact about the print server; a rule with its reason; a one-off",
    (s) => {
      const key = s.secret("hex");
      s.userS(
        `write a make target that uploads the stl to the printer box. it's octoprint on printpi.home:5000, API key ${key} — read it from .env, which isn't in git`,
        [key],
        R,
        D(
          "fact",
          "project",
          "The print server is OctoPrint on printpi.home:5000; its API key is read from the untracked .env.",
          { secret: true },
        ),
      );
      s.tools(WORK.os[0]);
      s.say(
        "Added `make upload PART=…`, which renders the STL and posts it to OctoPrint with the key from .env.",
      );
      turns(s, "os", [
        [
          "STLs never get committed, out/ is build output. only .scad and the preview pngs go in git, the STLs blew the repo up to 2GB once",
          D(
            "rule",
            "project",
            "STL files are never committed (out/ is build output); only .scad files and preview PNGs go in git.",
          ),
        ],
        ["print the bracket in red this time, it's a gift", HN("one-off")],
      ]);
    },
  ),
  sc(
    "e36-os-chatty",
    "os",
    "a chatty user: a decision with its reason, a naming rule, reported speech, a hypothesis",
    (s) =>
      turns(s, "os", [
        [
          "ok so I've been thinking about the whole drawer system and honestly I think we go with a 42mm grid like gridfinity, everyone's bins fit then and I can print other people's designs. so that's settled, base plates on 42mm",
          D(
            "decision",
            "project",
            "The drawer system uses a 42 mm Gridfinity-compatible grid so other people's bins fit.",
          ),
        ],
        [
          "file names: lowercase with underscores and the part's main size at the end, like bin_2x3.scad. the old CamelCase ones I'll rename myself",
          R,
          D(
            "rule",
            "project",
            "Part file names are lowercase with underscores and end with the main size, e.g. bin_2x3.scad.",
          ),
        ],
        [
          "my brother says you should always print bins in PLA but I don't buy it",
          HN("one-off"),
        ],
        ["could the stacking lip be what makes them wobble?", HN("hypothesis")],
      ]),
  ),
];

const VA: Script[] = [
  sc(
    "e37-va-adw16",
    "va",
    "a stored toolkit version changed; a stored gettext rule repeated as a reproach; a question",
    (s) =>
      turns(s, "va", [
        [
          "bump to libadwaita 1.6 and GNOME 47 runtime, I want AdwBottomSheet for the mobile layout",
          R,
          D(
            "fact",
            "project",
            "Ledgerly targets GTK 4 with libadwaita 1.6 on the GNOME 47 runtime.",
            {
              contra: S.vaVer,
            },
          ),
        ],
        [
          "'Monthly budget' in the new dialog isn't translatable. wrap it in _(), the translators on Damned Lies can't see it otherwise",
          R,
          D("rule", "project", "User-visible strings are wrapped in _() for translation.", {
            dup: S.vaI18n,
          }),
        ],
        ["does AdwBreakpoint work inside a dialog?", Q],
      ]),
    [S.vaVer, S.vaI18n],
  ),
  sc(
    "e38-va-storage",
    "va",
    "a stored storage fact changed (SQLite to a plain-text ledger file); a stored style rule repeated in passing; a new rule on the same topic",
    (s) =>
      turns(s, "va", [
        [
          "the sqlite file is going away, transactions are stored as one plain-text ledger file (hledger format) under $XDG_DATA_HOME/ledgerly/ now, so people can edit them by hand. write the migration",
          R,
          D(
            "decision",
            "project",
            "Transactions are stored as a plain-text hledger-format file under $XDG_DATA_HOME/ledgerly/, not SQLite, so users can edit them by hand.",
            { contra: S.vaStore },
          ),
        ],
        [
          "keep the gnome style in the new parser, uncrustify config is in the repo",
          R,
          D(
            "rule",
            "project",
            "New Vala code keeps the GNOME style (uncrustify config in the repo).",
            {
              dup: S.vaStyle,
            },
          ),
        ],
        [
          "settings like the currency and the first day of the month go in GSettings, not in the ledger file",
          D(
            "rule",
            "project",
            "Preferences such as currency and the month's first day live in GSettings, not in the ledger file.",
          ),
        ],
      ]),
    [S.vaStore, S.vaStyle, S.vaBuild],
  ),
  sc(
    "e39-va-french",
    "va",
    "a non-native speaker mixing French words: a release fact, a rule, a one-off",
    (s) =>
      turns(s, "va", [
        [
          "bon, the csv import crashes with the export from my bank, voilà the file in tests/data",
          R,
        ],
        [
          "alors, for the record: releases are only on flathub, we don't do distro packages ourselves, the debian maintainer is Paul and he packages on his side",
          D(
            "fact",
            "project",
            "Ledgerly is released only on Flathub; distribution packages are not made by the project (Paul maintains the Debian package).",
          ),
        ],
        [
          "and amounts are never double, enfin, never floating point. we parse to int64 cents, the bank exports have 2 decimals always",
          R,
          D("rule", "project", "Amounts are parsed to int64 cents, never floating point."),
        ],
        ["pour l'instant ignore the lines with empty dates", HN("one-off")],
      ]),
  ),
  sc(
    "e40-va-design",
    "va",
    "a design rule from the user with its reason; a fact about review; the agent's proposal declined for now; a question",
    (s) => {
      turns(s, "va", [
        [
          "no custom CSS colours anywhere, named colours from libadwaita only (accent_bg_color and so on). dark mode and the high contrast theme broke every time someone hardcoded a hex",
          R,
          D(
            "rule",
            "project",
            "No hardcoded CSS colours; only libadwaita's named colours (dark mode and high contrast broke otherwise).",
          ),
        ],
      ]);
      ask(
        s,
        "va",
        "Shall I also add a CI job that screenshots every page in light, dark and high contrast so regressions show up in the MR?",
        1,
      );
      turns(s, "va", [
        ["not now, maybe after 1.0", R],
        [
          "MRs need a review from someone in the GNOME Circle team before merge, Julian usually does it",
          D(
            "rule",
            "project",
            "Merge requests need a review from a GNOME Circle member (usually Julian) before merging.",
          ),
        ],
        ["why is the flatpak 90 MB?", Q],
      ], 1);
    },
  ),
];

const MIXED: Script[] = [
  sc(
    "e41-pl-global-prefs",
    "pl",
    "a stored global test rule repeated as a complaint; a stored global commit convention changed; a new global preference",
    (s) =>
      turns(s, "pl", [
        ["the peak-hours rule still returns the night rate at 06:00 sharp. fix", R],
        [
          "you told me it was fixed and then make test fails on the first case. run them before you say it's done, please",
          R,
          D("rule", "global", "Run the tests before reporting a change as done.", {
            dup: S.gTests,
          }),
        ],
        [
          "also, the conventional commits thing is off everywhere now. plain sentence subjects, capitalised, no type prefix. the changelog is written by hand anyway",
          D(
            "preference",
            "global",
            "Commit subjects are plain capitalised sentences without a Conventional Commits type prefix.",
            { contra: S.gCommit },
          ),
        ],
        [
          "when you show me a diff, show only the hunks that changed, not whole files",
          D("preference", "global", "Show only the changed hunks of a diff, not whole files."),
        ],
      ]),
    [S.gTests, S.gCommit],
  ),
  sc(
    "e42-sl-long-compacted",
    "sl",
    "a long session with a compaction; a new rule; a stored pillar rule repeated after the compaction; a fact; hard negatives",
    (s) => {
      turns(s, "sl", [
        ["the jupyterhub state needs an update for the new course", R],
        [
          "every state that opens a port also manages the firewalld rule for it in the same sls, otherwise we forget them",
          D(
            "rule",
            "project",
            "A state that opens a port also manages its firewalld rule in the same sls.",
          ),
        ],
        ["for the exam next week pin jupyterlab to 4.1.8", HN("one-off")],
        ["how many users can the hub take on one node?", Q],
        ["ok, two nodes then", R],
      ]);
      s.compact(
        "The user asked to update the JupyterHub state for a new course (done), said every state that opens a port also manages its firewalld rule in the same sls, asked to pin jupyterlab to 4.1.8 for next week's exam (done), and chose two hub nodes.",
      );
      turns(s, "sl", [
        [
          "you put the oauth client secret for the hub straight into jupyterhub.sls. that goes in pillar, encrypted, like every other secret",
          R,
          D(
            "rule",
            "project",
            "Secrets such as the OAuth client secret go in encrypted pillar, not in states.",
            {
              dup: S.slPillar,
            },
          ),
        ],
        [
          "the hub authenticates against the university's keycloak, realm cs-students, the admins there are the IT service desk not us",
          D(
            "fact",
            "project",
            "JupyterHub authenticates against the university Keycloak (realm cs-students), administered by the IT service desk.",
          ),
        ],
        ["my guess is the spawner timeout is the NFS home mounts again", HN("hypothesis")],
        ["ok commit it", R],
      ], 1);
    },
    [S.slPillar],
  ),
  sc(
    "e43-ts-global-long",
    "ts",
    "a stored global branch rule repeated far from its wording; a stored global emoji rule changed for commits; a global fact about the user; a one-off",
    (s) =>
      turns(s, "ts", [
        ["the weekly stock report view is missing the Rotterdam warehouse", R],
        [
          "make a branch for it, I don't want anything landing on main directly, not even one-liners",
          R,
          D("rule", "global", "Changes go on a branch, never directly on main.", {
            dup: S.gBranch,
          }),
        ],
        [
          "btw the team adopted gitmoji, so an emoji at the start of the commit subject is fine now. still none in your answers to me",
          D(
            "preference",
            "global",
            "A gitmoji at the start of commit subjects is fine; still no emoji in answers.",
            { contra: S.gEmoji },
          ),
        ],
        [
          "and I work from Osaka, so when I say 'tonight' or 'this morning' that's JST, not the server time",
          D("fact", "global", "The user works from Osaka: times they mention are JST."),
        ],
        [
          "don't touch the Antwerp numbers this time, finance is still checking them",
          HN("one-off"),
        ],
      ]),
    [S.gBranch, S.gEmoji],
  ),
  sc(
    "e44-va-global-marker",
    "va",
    "a stored global explain-first rule repeated with a marker; a stored global emoji rule repeated tersely; a new global rule; a question",
    (s) =>
      turns(s, "va", [
        ["the budget bar goes negative when a category is over, figure out why", R],
        [
          "tell me what's actually wrong first, then fix it. the usual",
          D("rule", "global", "Explain the cause of a bug before fixing it.", { dup: S.gExplain }),
        ],
        [
          "and drop the 🎉 from your summary, no emoji",
          D("preference", "global", "No emoji in answers.", { dup: S.gEmoji }),
        ],
        [
          "one more for all my projects: never add a dependency without asking me first, even a small one",
          D("rule", "global", "Never add a dependency without asking the user first."),
        ],
        ["is clamp() in GLib or do we write our own?", Q],
      ]),
    [S.gExplain, S.gEmoji],
  ),
];

export const HOLDOUT15: Script[] = [
  ...PL,
  ...DR,
  ...AB,
  ...KC,
  ...SL,
  ...EL,
  ...TS,
  ...PH,
  ...OS,
  ...VA,
  ...MIXED,
];
