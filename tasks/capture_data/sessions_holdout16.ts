/**
 * Hand-written sessions of the capture benchmark's `holdout16` split: written blind on 2026-11-29
 * by a helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs pages
 * or results (nor the main checkout or any other helper's worktree), registered as unrun before it
 * was written and frozen before any run against it. About half of its 44 sessions have stored
 * memories, which the user repeats (often in other words), changes, or extends with a new
 * statement on the same topic; the others are ordinary sessions with rules, decisions, setup facts
 * in passing, global preferences, hard negatives and pasted secrets. Ten projects new to the data
 * set: an AWS CDK app in Python, an Odoo module, a Lean 4 formalisation, a Yocto BSP layer, an
 * Ember.js app, Stan nowcasting models, a Quarkus service, a VHDL radio front end, Apache Beam
 * pipelines on Dataflow and a Phaser browser game.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) or a look-alike that states no rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout16 split's projects. */
const P = {
  cd: "/home/ruairi/work/harbourmaster-cdk",
  od: "/opt/odoo/custom/fleetcare-odoo",
  ln: "/home/priya/math/ramsey-lean",
  yo: "/build/yocto/meta-kiosk",
  em: "/Users/kenji/code/helpdesk-ember",
  st: "/home/mkovac/epi/nowcast-stan",
  qk: "/home/tereza/dev/meter-quarkus",
  vh: "/home/anselm/fpga/sdr-frontend-vhdl",
  bm: "/home/mirela/repos/usage-beam",
  ph: "/Users/noor/games/reefrun-phaser",
} as const;
type Proj = keyof typeof P;

const WORK: Record<Proj, ToolStep[]> = {
  cd: [
    bash(
      "cdk synth --quiet && pytest -q tests/unit",
      "Successfully synthesized to /home/ruairi/work/harbourmaster-cdk/cdk.out\n........................                                                 [100%]\n24 passed in 6.31s",
    ),
    read(
      `${P.cd}/harbourmaster/berth_api_stack.py`,
      'from aws_cdk import Stack, aws_lambda as lambda_\nfrom constructs import Construct\n\n\nclass BerthApiStack(Stack):\n    def __init__(self, scope: Construct, construct_id: str, *, network, **kwargs) -> None:\n        super().__init__(scope, construct_id, **kwargs)\n        self.handler = lambda_.Function(self, "BerthHandler", runtime=lambda_.Runtime.PYTHON_3_11,',
    ),
  ],
  od: [
    bash(
      "./odoo-bin -c /etc/odoo/odoo-test.conf -d fleetcare_test -u fleetcare --test-tags /fleetcare --stop-after-init",
      "2026-09-07 08:14:02,118 INFO fleetcare_test odoo.modules.loading: loading 61 modules...\n2026-09-07 08:14:19,502 INFO fleetcare_test odoo.modules.module: odoo.addons.fleetcare.tests.test_service_order running\n2026-09-07 08:14:21,877 INFO fleetcare_test odoo.tests.stats: fleetcare: 19 tests 2.31s 412 queries\n2026-09-07 08:14:21,901 INFO fleetcare_test odoo.tests.result: 0 failed, 0 error(s) of 19 tests",
    ),
    read(
      `${P.od}/models/service_order.py`,
      'from odoo import api, fields, models\n\n\nclass FleetServiceOrder(models.Model):\n    _name = "fleetcare.service.order"\n    _description = "Vehicle service order"\n\n    vehicle_id = fields.Many2one("fleet.vehicle", required=True)\n    odometer = fields.Float(related="vehicle_id.odometer")',
    ),
  ],
  ln: [
    bash(
      "lake build",
      "⣿ [412/415] Building RamseyLean.Basic\n⣿ [414/415] Building RamseyLean.R33\n⣿ [415/415] Building RamseyLean\nBuild completed successfully.",
    ),
    read(
      `${P.ln}/RamseyLean/R33.lean`,
      "import RamseyLean.Basic\n\nnamespace Ramsey\n\n/-- Every red/blue colouring of the edges of K₆ has a monochromatic triangle. -/\ntheorem r33_le_six (c : Sym2 (Fin 6) → Bool) : ∃ t : Finset (Fin 6), t.card = 3 ∧ IsMono c t := by\n  decide",
    ),
  ],
  yo: [
    bash(
      "kas build kas/kiosk.yml",
      "2026-09-14 10:02:51 - INFO     - kas 4.3.2 started\nNOTE: Executing Tasks\nNOTE: Tasks Summary: Attempted 5112 tasks of which 5068 didn't need to be rerun and all succeeded.\n2026-09-14 10:19:07 - INFO     - kas build done",
    ),
    read(
      `${P.yo}/recipes-graphics/wayland/weston-init.bbappend`,
      'FILESEXTRAPATHS:prepend := "${THISDIR}/files:"\n\nSRC_URI += "file://kiosk-weston.ini"\n\ndo_install:append() {\n    install -m 0644 ${WORKDIR}/kiosk-weston.ini ${D}${sysconfdir}/xdg/weston/weston.ini\n}',
    ),
  ],
  em: [
    bash(
      "pnpm lint && pnpm test:ember",
      "> helpdesk-ember@2.14.0 test:ember\n> ember test\n\nok 1 Chrome 128.0 - [312 ms] - Integration | Component | ticket-row: it renders the subject\nok 87 Chrome 128.0 - [1402 ms] - Acceptance | tickets: assign a ticket\n\n1..87\n# tests 87\n# pass  87\n# skip  0\n# fail  0",
    ),
    read(
      `${P.em}/app/components/ticket-list.gts`,
      "import Component from '@glimmer/component';\nimport { service } from '@ember/service';\nimport type StoreService from 'helpdesk-ember/services/store';\n\nexport default class TicketList extends Component<{ Args: { status: string } }> {\n  @service declare store: StoreService;\n}",
    ),
  ],
  st: [
    bash(
      "python -m nowcast.fit --model models/delay_rw.stan --week 2026-W37",
      "14:02:11 - cmdstanpy - INFO - CmdStan start processing\nchain 1 |██████████| 00:41 Sampling completed\nchain 4 |██████████| 00:44 Sampling completed\nProcessing csv files: runs/2026-09-15/delay_rw-1.csv, ...\nChecking sampler transitions for divergences.\nNo divergent transitions found.\nRank-normalized split effective sample size satisfactory for all parameters.\nRank-normalized split R-hat values satisfactory for all parameters.",
    ),
    read(
      `${P.st}/models/delay_rw.stan`,
      "data {\n  int<lower=1> T;\n  int<lower=1> D;\n  array[T, D] int<lower=0> reported;\n}\nparameters {\n  vector[T] log_lambda;\n  real<lower=0> sigma;\n  simplex[D] delay;\n}",
    ),
  ],
  qk: [
    bash(
      "./mvnw -q verify",
      "[INFO] Tests run: 46, Failures: 0, Errors: 0, Skipped: 0\n[INFO] --- quarkus:3.8.4:build (default) @ meter-quarkus ---\n[INFO] [io.quarkus.deployment.QuarkusAugmentor] Quarkus augmentation completed in 3912ms\n[INFO] BUILD SUCCESS",
    ),
    read(
      `${P.qk}/src/main/java/net/gridco/meter/ingest/ReadingResource.java`,
      'package net.gridco.meter.ingest;\n\nimport io.smallrye.mutiny.Uni;\nimport jakarta.ws.rs.POST;\nimport jakarta.ws.rs.Path;\n\n@Path("/readings")\npublic class ReadingResource {\n    @POST\n    public Uni<Void> ingest(ReadingBatch batch) {\n        return service.store(batch);\n    }\n}',
    ),
  ],
  vh: [
    bash(
      "python run.py --num-threads 2",
      "Compiling into lib:     src/nco.vhd passed\nCompiling into lib:     src/cic_decim.vhd passed\nStarting lib.tb_cic_decim.impulse_response\npass (P=1 S=0 F=0 T=3) lib.tb_cic_decim.impulse_response (2.1 s)\n==== Summary ==========================================\npass lib.tb_cic_decim.impulse_response (2.1 s)\npass lib.tb_nco.phase_wrap                 (1.4 s)\n=======================================================\npass 11 of 11\nAll passed!",
    ),
    read(
      `${P.vh}/src/cic_decim.vhd`,
      "library ieee;\nuse ieee.std_logic_1164.all;\nuse ieee.numeric_std.all;\n\nentity cic_decim is\n  generic (R : positive := 16; N : positive := 4);\n  port (\n    clk     : in  std_logic;\n    rst     : in  std_logic;\n    din     : in  signed(15 downto 0);",
    ),
  ],
  bm: [
    bash(
      "pytest -q tests/ && python -m usage_beam.daily_rollup --runner DirectRunner --input tests/data/events_small.jsonl --dry_run",
      "...............................                                          [100%]\n31 passed in 12.88s\nINFO:root:dry run: 1,204 events -> 37 rollup rows for 2026-09-20",
    ),
    read(
      `${P.bm}/usage_beam/transforms/rollup.py`,
      'import apache_beam as beam\n\n\nclass RollupByAccount(beam.PTransform):\n    """Sums metered units per account and product for one day."""\n\n    def expand(self, events):\n        return (\n            events\n            | "Key" >> beam.Map(lambda e: ((e["account_id"], e["product"]), e["units"]))',
    ),
  ],
  ph: [
    bash(
      "npm run build && npx vitest run",
      "vite v5.4.8 building for production...\n✓ 142 modules transformed.\ndist/assets/index-4f1c2a9e.js  1,218.44 kB │ gzip: 312.07 kB\n✓ built in 4.82s\n\n ✓ src/logic/score.test.ts (9 tests) 6ms\n ✓ src/logic/spawn.test.ts (5 tests) 4ms\n\n Test Files  2 passed (2)\n      Tests  14 passed (14)",
    ),
    read(
      `${P.ph}/src/scenes/ReefScene.ts`,
      "import Phaser from 'phaser';\n\nexport class ReefScene extends Phaser.Scene {\n  private diver!: Phaser.Types.Physics.Arcade.SpriteWithDynamicBody;\n\n  constructor() {\n    super('reef');\n  }\n\n  create(): void {\n    this.diver = this.physics.add.sprite(120, 300, 'sprites', 'diver_idle_0');",
    ),
  ],
};

const ACK = [
  "Done; the checks pass.",
  "Changed, and re-ran everything.",
  "That's in place now.",
  "Updated. Small diff.",
  "Fixed; verified locally.",
  "Done — tell me if you'd rather have it differently.",
  "Green again.",
  "Finished.",
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
  const versions = ["2.0.31", "1.0.88", "2.0.17", "2.0.36", "1.0.102", "2.0.24", "2.0.10"];
  const n = Number(id.slice(1, 3));
  const start = new Date(Date.UTC(2026, 8, n, 6 + (n % 12), (n * 17) % 60)).toISOString();
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
  cdVer: "harbourmaster-cdk uses AWS CDK v2 with Python 3.11.",
  cdRegion: "All stacks deploy to eu-west-1.",
  cdNag:
    "cdk-nag AwsSolutions checks run at synth; findings are fixed or suppressed with a written reason.",
  cdDeploy: "Production deploys go through the CodePipeline; never cdk deploy from a laptop.",
  cdNet: "Shared networking (VPC, endpoints) lives only in NetworkStack.",
  odVer: "fleetcare-odoo targets Odoo 16 Community.",
  odOrm: "Database access goes through the ORM; no env.cr.execute except in migration scripts.",
  odViews: "Standard views are extended by inheritance with xpath, never copied.",
  odHost: "Production runs on Odoo.sh.",
  odTests: "Tests are TransactionCase tests run with --test-tags /fleetcare.",
  lnVer: "ramsey-lean pins Lean v4.9.0 with the matching Mathlib commit in lake-manifest.json.",
  lnSorry: "No sorry on main; unfinished proofs stay on branches.",
  lnBlueprint: "Every theorem has a blueprint node with \\lean{} and \\leanok once proved.",
  lnReview: "Priya reviews every pull request before it is merged.",
  lnNames: "Lemma names follow the Mathlib naming conventions.",
  yoRel: "meta-kiosk targets Yocto kirkstone (4.0 LTS).",
  yoAppend:
    "Changes to upstream recipes are .bbappend files in meta-kiosk, never edits in poky or meta-freescale.",
  yoLayers: "Layers and their revisions are pinned in kas/kiosk.yml; bblayers.conf is not edited.",
  yoMachine: "The MACHINE is imx8mm-kiosk, based on imx8mm-evk with our device tree.",
  yoRo: "kiosk-image has a read-only root filesystem.",
  emVer: "helpdesk-ember is on Ember 4.12 LTS.",
  emData: "Data is loaded through ember-data models and adapters; components never call fetch().",
  emMirage: "Acceptance tests mock the API with ember-cli-mirage.",
  emTs: "New files are TypeScript (.ts/.gts) and templates are type-checked with Glint.",
  emDeploy: "The app is deployed with ember-cli-deploy to S3 and CloudFront.",
  stVer: "Models are compiled with CmdStan 2.33 through CmdStanPy.",
  stDiag:
    "A fit is used only with zero divergent transitions and R-hat below 1.01 for every parameter.",
  stPriors: "Every parameter gets an explicit proper prior; no flat priors.",
  stData: "Case data arrives in the health agency's weekly sFTP drop on Tuesdays.",
  stSeeds: "Every fit sets its seed and writes its config to runs/<date>/config.yml.",
  qkVer: "meter-quarkus runs Quarkus 3.8 on Java 17.",
  qkReactive: "Endpoints are reactive (Quarkus REST with Mutiny); nothing blocks the event loop.",
  qkNative: "Releases are native executables built with Mandrel in the CI builder image.",
  qkTopic: "Readings arrive on the Kafka topic meter.readings.v1 as JSON.",
  qkDb: "Readings are stored in TimescaleDB through Hibernate Reactive with Panache.",
  vhTool: "Synthesis and implementation use Vivado 2022.2.",
  vhReset: "Resets are synchronous and active-high.",
  vhSim: "Testbenches use VUnit on GHDL, all registered in run.py.",
  vhBoard: "The target board is the Arty A7-100T.",
  vhStd: "The design is written in VHDL-2008.",
  bmVer: "The pipelines use the Apache Beam Python SDK 2.52 on Dataflow Runner v2.",
  bmIdem: "Batch jobs write one date partition each and a rerun overwrites that partition.",
  bmSecrets: "Credentials are read from Secret Manager at pipeline start, never passed as options.",
  bmOwner: "The billing pipelines are owned by Mirela; changes to them need her review.",
  bmFlex: "Jobs are launched as Flex Templates built by Cloud Build.",
  phVer: "reefrun-phaser uses Phaser 3.70 with Vite.",
  phAtlas: "Sprites are packed into TexturePacker atlases; no loose PNGs are loaded at runtime.",
  phPhysics: "The game uses Arcade physics only, no Matter.js.",
  phHost: "Builds are published on itch.io with butler.",
  phScenes: "Each scene is its own file under src/scenes.",
  gTests: "Run the tests before saying a fix works.",
  gSubject: "Commit subjects stay under 60 characters, in the imperative.",
  gForce: "Never force-push a branch other people use.",
  gShort: "Keep answers short: what changed, then one line on why.",
  gTodo: "No TODO comments in committed code; open an issue instead.",
} as const;

const CD: Script[] = [
  sc(
    "f01-cd-py312",
    "cd",
    "a stored Python version changed with the CDK bump; a stored cdk-nag rule repeated as a reproach; a question",
    (s) =>
      turns(s, "cd", [
        [
          "lambda runtime and the project venv both go to python 3.12 now, and bump aws-cdk-lib to 2.160 while you're at it. the 3.11 layer is what's breaking the numpy wheel",
          R,
          D("fact", "project", "harbourmaster-cdk uses AWS CDK 2.160 with Python 3.12.", {
            contra: S.cdVer,
          }),
        ],
        [
          "and why is there a NagSuppressions on the logs bucket with reason 'tmp'? either fix the finding or write down properly why it doesn't apply, that's how we handle nag",
          R,
          D(
            "rule",
            "project",
            "cdk-nag findings are fixed or suppressed with a real written reason.",
            { dup: S.cdNag },
          ),
        ],
        ["is there a way to run only the nag checks without a full synth?", Q],
      ]),
    [S.cdVer, S.cdNag],
  ),
  sc(
    "f02-cd-stockholm",
    "cd",
    "a stored region changed with its reason; a stored deploy rule repeated negated; the agent's hypothesis",
    (s) => {
      turns(s, "cd", [
        [
          "the port authority wants the data in sweden, so we're moving to eu-north-1. every stack, including the pipeline account. start with the env config in app.py",
          R,
          D(
            "fact",
            "project",
            "All stacks deploy to eu-north-1 (the port authority wants the data in Sweden).",
            { contra: S.cdRegion },
          ),
        ],
      ]);
      ask(
        s,
        "cd",
        "The berth API stack synthesizes for eu-north-1, but the diff shows a replacement of the DynamoDB table; the table name is probably derived from the region, so it would be recreated.",
        0,
        HN("hypothesis"),
      );
      turns(s, "cd", [
        [
          "pin the table name then. and once it synths, push the branch and let the pipeline roll it out — nobody runs cdk deploy against prod from their own machine",
          R,
          D(
            "rule",
            "project",
            "Prod is deployed only by the pipeline, not with cdk deploy from a developer machine.",
            { dup: S.cdDeploy },
          ),
        ],
        ["what happens to the old eu-west-1 log groups, do they get deleted?", Q],
      ], 1);
    },
    [S.cdRegion, S.cdDeploy, S.cdNet],
  ),
  sc(
    "f03-cd-aws-keys",
    "cd",
    "AWS keys pasted for a one-off lookup; a fact about the terminal system and its owners; a decision with its reason",
    (s) => {
      const id = s.secret("awsKeyId");
      const key = s.secret("awsSecret");
      s.userS(
        `can you check what's in the sandbox account's parameter store under /berth/? my sso is broken so use these for now: AWS_ACCESS_KEY_ID=${id} AWS_SECRET_ACCESS_KEY=${key}`,
        [id, key],
        N("secret"),
        R,
      );
      s.tools(WORK.cd[0]);
      s.say(
        "There are six parameters under /berth/; two of them (/berth/tos/url and /berth/tos/timeout) still point at the old test endpoint.",
      );
      turns(s, "cd", [
        [
          "right, the TOS is Navis N4 and it belongs to the terminal ops team, not us. we only read from it through their integration API, we never write to it",
          R,
          D(
            "fact",
            "project",
            "The terminal operating system is Navis N4, owned by terminal ops; we only read from it through their integration API and never write to it.",
          ),
        ],
        [
          "also we went with aurora serverless v2 for the berth db rather than a fixed instance, traffic is basically zero between 1 and 5 am and finance noticed",
          D(
            "decision",
            "project",
            "The berth database is Aurora Serverless v2, not a fixed-size instance, because night traffic is near zero.",
          ),
        ],
        ["for this test just point the timeout at 30s", HN("one-off")],
      ]);
    },
  ),
  sc(
    "f04-cd-staff-paragraph",
    "cd",
    "a staff engineer's paragraph with a decision, a rule and a fact before the task; a reported opinion; a request",
    (s) =>
      turns(s, "cd", [
        [
          "Some context before you start on the vessel-events stack. We settled last quarter on EventBridge over SNS for anything crossing service boundaries, mostly because the archive and replay saved us during the March outage. Every construct we write ourselves goes in harbourmaster/constructs with a unit test asserting its synthesized template, no exceptions. The events schema registry is maintained by Aoife's team in the shared-services account. Now: please add the vessel-events bus with a rule forwarding ETA changes to the berth API.",
          R,
          D(
            "decision",
            "project",
            "Cross-service events use EventBridge rather than SNS (archive and replay saved the team during the March outage).",
          ),
          D(
            "rule",
            "project",
            "Own constructs live in harbourmaster/constructs, each with a unit test asserting its synthesized template.",
          ),
          D(
            "fact",
            "project",
            "The events schema registry is maintained by Aoife's team in the shared-services account.",
          ),
        ],
        [
          "someone on reddit said you should never use L1 constructs at all, that seems extreme to me",
          HN("one-off"),
        ],
        ["ok, open the PR", R],
      ]),
  ),
];

const OD: Script[] = [
  sc(
    "f05-od-odoo17",
    "od",
    "a stored Odoo version changed; a stored view-inheritance rule repeated as a correction after the agent's mistake; a question",
    (s) =>
      turns(s, "od", [
        [
          "the customer upgraded to odoo 17 over the weekend. attrs and states are gone in the views, port ours to the new invisible/readonly expressions",
          R,
          D("fact", "project", "fleetcare-odoo targets Odoo 17 Community.", {
            contra: S.odVer,
          }),
        ],
        [
          "hold on, you pasted the entire fleet.vehicle form into views/vehicle_views.xml. inherit it and add the fields with xpath, a copy breaks the moment core changes the view",
          R,
          D(
            "rule",
            "project",
            "Core views are inherited and extended with xpath, not copied into the module.",
            { dup: S.odViews },
          ),
        ],
        ['does position="attributes" still work the same in 17?', Q],
      ]),
    [S.odVer, S.odViews],
  ),
  sc(
    "f06-od-hetzner",
    "od",
    "a stored hosting fact changed; a stored ORM rule repeated with a story; a hypothesis",
    (s) =>
      turns(s, "od", [
        [
          "we left odoo.sh, it got too expensive with the extra workers. prod is our own docker setup on a hetzner box now, deploys via the compose file in deploy/. adjust the README",
          R,
          D(
            "fact",
            "project",
            "Production runs in Docker Compose on a Hetzner server (deploy/), not on Odoo.sh.",
            { contra: S.odHost },
          ),
        ],
        [
          "the mileage report has a cr.execute in it again. take it out and use read_group — the last raw query skipped the record rules and a workshop in Graz saw the other branch's invoices",
          R,
          D(
            "rule",
            "project",
            "No raw SQL through cr.execute outside migrations; use the ORM (raw queries skip record rules).",
            { dup: S.odOrm },
          ),
        ],
        ["might be the prefetch that makes the list view so slow", HN("hypothesis")],
      ]),
    [S.odHost, S.odOrm, S.odTests],
  ),
  sc(
    "f07-od-admin-passwd",
    "od",
    "a config snippet with the master password pasted for a one-off; a fact about translations; a rule with its reason",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `the staging db manager won't let me duplicate the database. here's the staging odoo.conf:\n\n[options]\nadmin_passwd = ${pw}\ndb_host = pg-staging\ndb_port = 5432\nlist_db = True\n\ncan you duplicate fleetcare_prod_copy to fleetcare_demo for tomorrow`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.od[0]);
      s.say("Duplicated it to fleetcare_demo; the neutralize step ran so no mails go out from it.");
      turns(s, "od", [
        [
          "good. translations for german and slovene are done by the customer's people in their own transifex project, we just pull the .po files, nobody edits them in the repo",
          D(
            "fact",
            "project",
            "German and Slovene translations come from the customer's Transifex project; the .po files are pulled, never edited in the repo.",
          ),
        ],
        [
          "and every new model gets its ir.model.access.csv lines in the same commit. we had a release where mechanics couldn't open service orders at all",
          D(
            "rule",
            "project",
            "A new model gets its ir.model.access.csv entries in the same commit.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "f08-od-confirm",
    "od",
    "an agent proposal confirmed with a reason; a fact about the mechanics' tablets; a one-off",
    (s) => {
      s.user("the service order PDF prints the odometer in miles for austrian vehicles", R);
      ask(
        s,
        "od",
        "The report formats the odometer with the company's unit instead of the vehicle's odometer_unit field. I switched it to the vehicle's unit. Should all reports always take units from the vehicle rather than the company?",
      );
      s.confirm(
        "yes, from the vehicle, the fleets are mixed",
        "rule",
        "project",
        "Reports take units from the vehicle, not from the company.",
      );
      turns(s, "od", [
        [
          "the mechanics use the service orders on samsung tablets in the workshop, chrome, portrait mode, so the form has to be usable at that width",
          D(
            "fact",
            "project",
            "Mechanics use the service order form on Samsung tablets in Chrome, in portrait mode.",
          ),
        ],
        ["print me three test orders for the demo and leave them in draft", HN("one-off")],
      ], 1);
    },
  ),
];

const LN: Script[] = [
  sc(
    "f09-ln-bump",
    "ln",
    "a stored toolchain pin changed; a stored no-sorry rule repeated as a reproach; a style-guide line asked as a question",
    (s) =>
      turns(s, "ln", [
        [
          "bumped us to lean v4.14.0 and a mathlib from last week, the old one didn't have the SimpleGraph.cliqueFree lemmas we need. lake update went through, please fix what broke",
          R,
          D(
            "fact",
            "project",
            "ramsey-lean pins Lean v4.14.0 with a matching recent Mathlib commit.",
            { contra: S.lnVer },
          ),
        ],
        [
          "also R34.lean on main has two sorries in it since yesterday?? those go on a branch until they're done, main builds clean",
          R,
          D("rule", "project", "Main has no sorry; unfinished proofs stay on a branch.", {
            dup: S.lnSorry,
          }),
        ],
        [
          "the mathlib style guide says never to use simp non-terminally, does that apply to us too or only to mathlib PRs?",
          HN("question"),
        ],
      ]),
    [S.lnVer, S.lnSorry],
  ),
  sc(
    "f10-ln-reviewer",
    "ln",
    "a stored reviewer changed; a stored blueprint rule repeated as an instance; a hypothesis",
    (s) =>
      turns(s, "ln", [
        [
          "I'm on parental leave from december until march, Tomasz reviews and merges everything while I'm gone",
          D(
            "fact",
            "project",
            "From December until March, Tomasz reviews and merges pull requests (Priya is on leave).",
            { contra: S.lnReview },
          ),
        ],
        [
          "when the upper bound for R(4,4) goes in, add its node to blueprint/src/content.tex with the \\lean{} name and mark it \\leanok",
          R,
          D(
            "rule",
            "project",
            "Each proved theorem gets a blueprint node with its \\lean{} name and \\leanok.",
            { dup: S.lnBlueprint },
          ),
        ],
        ["I suspect decide times out because Fin 18 is just too big", HN("hypothesis")],
      ]),
    [S.lnReview, S.lnBlueprint, S.lnNames],
  ),
  sc(
    "f11-ln-researcher",
    "ln",
    "a chatty researcher: a decision with its reason, a fact about the source, a hypothesis, a question",
    (s) =>
      turns(s, "ln", [
        [
          "so I've gone back and forth on this but let's represent colourings as functions Sym2 (Fin n) → Fin k instead of edge sets. decidability comes for free and decide can close the small cases, which was the whole point of this project honestly",
          R,
          D(
            "decision",
            "project",
            "Colourings are functions Sym2 (Fin n) → Fin k rather than edge sets, so decidability comes for free and decide closes small cases.",
          ),
        ],
        [
          "the bounds we formalise are the ones in Radziszowski's dynamic survey, revision 17. whenever a docstring cites a bound it should cite that survey and the table number",
          D(
            "rule",
            "project",
            "Docstrings citing a Ramsey bound cite Radziszowski's dynamic survey (revision 17) with the table number.",
          ),
        ],
        ["maybe the elaborator is choking on the coercion from Fin 2 to Bool?", HN("hypothesis")],
        ["is there a tactic that enumerates all colourings up to isomorphism?", Q],
      ]),
  ),
  sc(
    "f12-ln-terse",
    "ln",
    "terse messages: a naming rule, a CI fact, one-offs, a descriptive never",
    (s) =>
      turns(s, "ln", [
        ["build red. fix", R],
        [
          "defs in Defs.lean, theorems per bound in their own file. R33.lean, R34.lean etc",
          D(
            "rule",
            "project",
            "Definitions go in Defs.lean; each bound's theorems get their own file (R33.lean, R34.lean, …).",
          ),
        ],
        [
          "ci = github actions + lake exe cache get. 40 min limit",
          D(
            "fact",
            "project",
            "CI is GitHub Actions using lake exe cache get, with a 40-minute limit.",
          ),
        ],
        ["the cache never downloads on the first try here", HN("one-off")],
        ["skip the linter for this push", HN("one-off")],
      ]),
  ),
];

const YO: Script[] = [
  sc(
    "f13-yo-scarthgap",
    "yo",
    "a stored Yocto release changed; a stored bbappend rule repeated after the agent edited a vendor layer; a question",
    (s) =>
      turns(s, "yo", [
        [
          "we're moving the whole thing to scarthgap, kirkstone support for the NXP layers ends too soon for a 7-year product. update the refs in kas and LAYERSERIES_COMPAT",
          R,
          D(
            "fact",
            "project",
            "meta-kiosk targets Yocto scarthgap (5.0 LTS) because kirkstone's NXP support ends too early.",
            { contra: S.yoRel },
          ),
        ],
        [
          "git status shows a change in sources/meta-freescale/recipes-graphics?? revert that. if the weston config has to change, it's a bbappend in our layer",
          R,
          D(
            "rule",
            "project",
            "Upstream recipes are changed with a bbappend in meta-kiosk, not by editing vendor layers.",
            { dup: S.yoAppend },
          ),
        ],
        ["does scarthgap still ship weston 12 or 13?", Q],
      ]),
    [S.yoRel, S.yoAppend],
  ),
  sc(
    "f14-yo-imx8mp",
    "yo",
    "a stored machine fact changed (new SoC); a stored kas rule repeated negated; a hypothesis of the agent; a one-off",
    (s) => {
      turns(s, "yo", [
        [
          "hardware rev C is on the i.MX8M Plus, the mini boards are all scrapped. new machine is imx8mp-kiosk, based on imx8mp-evk, we need the NPU for the face blur",
          R,
          D(
            "fact",
            "project",
            "The MACHINE is imx8mp-kiosk (i.MX8M Plus, based on imx8mp-evk); the i.MX8M Mini boards are retired.",
            { contra: S.yoMachine },
          ),
        ],
        [
          "and don't go adding meta-ml to bblayers.conf by hand, put it in kas/kiosk.yml with a pinned commit",
          R,
          D(
            "rule",
            "project",
            "New layers go into kas/kiosk.yml with a pinned commit, not into bblayers.conf by hand.",
            { dup: S.yoLayers },
          ),
        ],
      ]);
      ask(
        s,
        "yo",
        "The build fails in do_fetch for imx-gpu-viv; the NXP EULA probably isn't accepted for the new machine in local.conf.",
        0,
        HN("hypothesis"),
      );
      turns(s, "yo", [["accept it for now, I'll ask legal on monday", HN("one-off")]], 1);
    },
    [S.yoMachine, S.yoLayers, S.yoRo],
  ),
  sc(
    "f15-yo-sstate-token",
    "yo",
    "a hex token inside an otherwise durable fact about the sstate mirror; a licence rule with its reason; a question",
    (s) => {
      const tok = s.secret("hex");
      s.userS(
        `builds on the new runner take 4 hours because it doesn't hit the cache. the sstate mirror is https://sstate.kiosk-build.lan/scarthgap, it wants a bearer token, ours is ${tok}. the other runners have it in site.conf, set this one up the same`,
        [tok],
        R,
        D(
          "fact",
          "project",
          "The sstate mirror is https://sstate.kiosk-build.lan/scarthgap and needs a bearer token, configured in each runner's site.conf.",
          { secret: true },
        ),
      );
      s.tools(WORK.yo[0]);
      s.say("Configured the runner's site.conf like the others; the second build was 22 minutes.");
      turns(s, "yo", [
        [
          "every recipe we add needs LICENSE and LIC_FILES_CHKSUM filled in properly, no CLOSED. legal goes through the license manifest before every release",
          D(
            "rule",
            "project",
            "Every recipe added has real LICENSE and LIC_FILES_CHKSUM values (no CLOSED); legal checks the license manifest before each release.",
          ),
        ],
        ["how big is the sstate dir on the mirror by now?", Q],
      ]);
    },
  ),
  sc(
    "f16-yo-rejected-cleanall",
    "yo",
    "a rejected tool call followed by the rule it broke; descriptive always; a question phrased like a rule",
    (s) => {
      turns(s, "yo", [["chromium fails in do_compile after the bump, look at it", R]]);
      s.rejectedTool("Bash", { command: "bitbake -c cleanall chromium-ozone-wayland" });
      s.user(
        "no cleanall! that deletes the downloads and the builders only get to the internet through the mirror. cleansstate is as far as you go on the builders",
        D(
          "rule",
          "project",
          "On the builders use bitbake -c cleansstate, never cleanall (it deletes the downloads and the builders have no direct internet).",
        ),
      );
      s.tools(WORK.yo[0]);
      s.say("Ran cleansstate on chromium-ozone-wayland; it compiles again.");
      turns(s, "yo", [
        ["chromium always takes the longest on the small runner anyway", HN("one-off")],
        ["should every image always have debug-tweaks off?", HN("question")],
      ], 1);
    },
  ),
];

const EM: Script[] = [
  sc(
    "f17-em-ember58",
    "em",
    "a stored Ember version changed; a stored data-layer rule repeated as a reproach; a question",
    (s) =>
      turns(s, "em", [
        [
          "the 5.8 upgrade is merged, we're on the ember 5.8 LTS now. get rid of the deprecation workflow entries that don't apply anymore",
          R,
          D("fact", "project", "helpdesk-ember is on Ember 5.8 LTS.", { contra: S.emVer }),
        ],
        [
          "TicketList does a raw fetch('/api/tickets?status=open'). no. query the store, add an adapter option if the filter is missing",
          R,
          D(
            "rule",
            "project",
            "Components load data through the ember-data store and adapters, not with fetch().",
            { dup: S.emData },
          ),
        ],
        ["is the new request manager worth adopting yet?", Q],
      ]),
    [S.emVer, S.emData],
  ),
  sc(
    "f18-em-msw",
    "em",
    "a stored test-mock tool changed with its reason; a stored TypeScript rule repeated with a marker; a new rule on the same topic; the agent's hypothesis",
    (s) => {
      turns(s, "em", [
        [
          "mirage is basically unmaintained, so acceptance tests move to MSW. new tests use msw handlers in tests/handlers, old mirage ones get ported as we touch them",
          R,
          D(
            "decision",
            "project",
            "Acceptance tests mock the API with MSW (handlers in tests/handlers) instead of ember-cli-mirage, which is unmaintained.",
            { contra: S.emMirage },
          ),
        ],
        [
          "the new sla-badge component: gts with a typed signature, like everything else",
          R,
          D("rule", "project", "New components are .gts files with typed signatures.", {
            dup: S.emTs,
          }),
        ],
        [
          "and msw handlers return the exact JSON:API shape the backend returns, copy it from a real response, don't invent fields",
          D(
            "rule",
            "project",
            "MSW handlers return the exact JSON:API shape of real backend responses, with no invented fields.",
          ),
        ],
      ]);
      ask(
        s,
        "em",
        "Two acceptance tests still pass with the handlers removed, so Mirage is probably still intercepting in those modules because setupMirage is called in the shared hooks.",
        0,
        HN("hypothesis"),
      );
      turns(s, "em", [["remove it from the shared hooks", R]], 1);
    },
    [S.emMirage, S.emTs, S.emDeploy],
  ),
  sc(
    "f19-em-npmrc",
    "em",
    "an npm token in an .npmrc line pasted for a one-off install; a fact about the API owners; a question",
    (s) => {
      const tok = s.secret("npm");
      s.userS(
        `pnpm install fails on @helpdesk/design-tokens with a 401. my .npmrc line is //registry.npmjs.org/:_authToken=${tok} — try installing with that`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(WORK.em[0]);
      s.say(
        "Installed with that token in a temporary userconfig; nothing was written to the repo.",
      );
      turns(s, "em", [
        [
          "thx. the backend is the django API at api.helpdesk.internal, team Falcon owns it. if something in the API looks wrong, we open an issue in their repo instead of working around it in an adapter",
          D(
            "fact",
            "project",
            "The backend is the Django API at api.helpdesk.internal, owned by team Falcon.",
          ),
          D(
            "rule",
            "project",
            "API problems are reported as issues in team Falcon's repo, not worked around in an adapter.",
          ),
        ],
        ["why does the ticket page re-render twice on load?", Q],
      ]);
    },
  ),
  sc(
    "f20-em-newcomer-list",
    "em",
    "rules in a bullet list for a new teammate, one of them only for this week; an ownership fact; a question",
    (s) =>
      turns(s, "em", [
        [
          "Lucía starts on monday and will pair with you, here's what I told her:\n- every user-facing string goes through ember-intl, translations/en-us.yaml first\n- PRs that change UI have a before/after screenshot\n- this week nobody touches the SLA page, design is reworking it\n- the design system addon (@helpdesk/ui) is Kenji's, changes there go through him\nplease add this to CONTRIBUTING.md",
          R,
          D(
            "rule",
            "project",
            "Every user-facing string goes through ember-intl (translations/en-us.yaml first).",
          ),
          D("rule", "project", "Pull requests that change UI include before/after screenshots."),
          HN("one-off"),
          D(
            "fact",
            "project",
            "The design system addon @helpdesk/ui is owned by Kenji; changes to it go through him.",
          ),
        ],
        ["is there a lint rule that catches hardcoded strings in templates?", Q],
      ]),
  ),
];

const ST: Script[] = [
  sc(
    "f21-st-cmdstan236",
    "st",
    "a stored CmdStan version changed; a stored diagnostics rule repeated as a reproach; a question",
    (s) =>
      turns(s, "st", [
        [
          "install cmdstan 2.36 in the container and recompile everything, we want the new pathfinder init. put the version in the Dockerfile explicitly",
          R,
          D("fact", "project", "Models are compiled with CmdStan 2.36 through CmdStanPy.", {
            contra: S.stVer,
          }),
        ],
        [
          "the report you drafted uses the week 37 fit, which had 14 divergences. we don't publish from a fit like that, ever — refit with a higher adapt_delta or fix the geometry",
          R,
          D(
            "rule",
            "project",
            "Results are never published from a fit with divergent transitions.",
            { dup: S.stDiag },
          ),
        ],
        ["would a non-centred parameterisation of log_lambda help here?", Q],
      ]),
    [S.stVer, S.stDiag],
  ),
  sc(
    "f22-st-api",
    "st",
    "a stored data-delivery fact changed; a stored prior rule repeated far from its wording; a hypothesis",
    (s) =>
      turns(s, "st", [
        [
          "the agency shut down the sftp. data comes from their REST API now and it's published mondays at 10:00, so the fetch job moves to monday noon",
          R,
          D(
            "fact",
            "project",
            "Case data comes from the health agency's REST API, published Mondays at 10:00; the fetch job runs Monday at noon.",
            { contra: S.stData },
          ),
        ],
        [
          "sigma in the new age-stratified model is declared with nothing on it. half-normal(0, 0.5) or similar, I don't want anything improper in there",
          R,
          D("rule", "project", "No parameter is left with an implicit improper prior.", {
            dup: S.stPriors,
          }),
        ],
        ["the low ESS is probably the delay simplex fighting the random walk", HN("hypothesis")],
      ]),
    [S.stData, S.stPriors, S.stSeeds],
  ),
  sc(
    "f23-st-prose-password",
    "st",
    "a cluster password given in prose for a one-off; a cluster fact; a decision with its reason",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `the fit has to run on the cluster, my laptop can't. log in as mkovac on hpc-login2, my password is ${pw} — just this once, I'll change it afterwards`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.st[0]);
      s.say("The fit finished on the cluster; results are in runs/2026-09-23/.");
      turns(s, "st", [
        [
          "our jobs go to the 'epi' partition, it's 4 nodes reserved for the institute, max 48h per job. the general partition gets preempted",
          D(
            "fact",
            "project",
            "Fits run on the cluster's 'epi' partition (4 reserved nodes, 48 h per job limit); the general partition gets preempted.",
          ),
        ],
        [
          "and we decided to publish the nowcast on thursdays, not mondays, because the reporting delay makes anything before thursday useless",
          D(
            "decision",
            "project",
            "The nowcast is published on Thursdays, because the reporting delay makes earlier estimates useless.",
          ),
        ],
        ["for this week's run use only 2 chains", HN("one-off")],
      ]);
    },
  ),
  sc(
    "f24-st-italian",
    "st",
    "a non-native speaker mixing Italian words: a plotting rule, a fact about the reviewers, reported speech, a hypothesis",
    (s) =>
      turns(s, "st", [
        [
          "allora, the plots for the bulletin: always show the 50% and 90% intervals, never only the median, the ministry misread a median line last winter. insomma, intervals always",
          D(
            "rule",
            "project",
            "Bulletin plots always show the 50% and 90% intervals, never the median alone.",
          ),
        ],
        [
          "the bulletin text is checked by dott.ssa Ferri before it goes out, she signs off every week",
          D(
            "fact",
            "project",
            "Dr Ferri checks and signs off the bulletin text every week before it goes out.",
          ),
        ],
        [
          "my professor always said never trust an R-hat under 4 chains, boh",
          HN("one-off"),
        ],
        ["forse the drop in week 38 is just the school holidays?", HN("hypothesis")],
      ]),
  ),
];

const QK: Script[] = [
  sc(
    "f25-qk-quarkus315",
    "qk",
    "a stored Quarkus and Java version changed; a stored reactive rule repeated after the agent's mistake; a question",
    (s) =>
      turns(s, "qk", [
        [
          "platform bump: quarkus 3.15 LTS on java 21. the builder image already has mandrel for 21",
          R,
          D("fact", "project", "meter-quarkus runs Quarkus 3.15 LTS on Java 21.", {
            contra: S.qkVer,
          }),
        ],
        [
          "you added a Thread.sleep(500) retry inside the ingest resource. that's on the event loop. use Mutiny's onFailure().retry() with backoff",
          R,
          D(
            "rule",
            "project",
            "Nothing blocking runs on the event loop; retries use Mutiny's retry with backoff.",
            { dup: S.qkReactive },
          ),
        ],
        ["can we use virtual threads for the CSV export endpoint instead?", Q],
      ]),
    [S.qkVer, S.qkReactive],
  ),
  sc(
    "f26-qk-avro",
    "qk",
    "a stored topic fact changed (v2 with Avro); a stored native-build rule repeated with a marker; the agent's hypothesis",
    (s) => {
      turns(s, "qk", [
        [
          "the head-end system publishes to meter.readings.v2 with Avro and the schema registry from now on, v1 goes away end of october. switch the consumer",
          R,
          D(
            "fact",
            "project",
            "Readings arrive on the Kafka topic meter.readings.v2 as Avro with the schema registry (v1 ends in October).",
            { contra: S.qkTopic },
          ),
        ],
        [
          "the release is a native build as always, so check the avro classes get registered for reflection",
          R,
          D("rule", "project", "Releases are native builds.", { dup: S.qkNative }),
        ],
      ]);
      ask(
        s,
        "qk",
        "The native image starts but deserialization fails with ClassNotFoundException; the generated Avro classes are probably not in the reflection config.",
        0,
        HN("hypothesis"),
      );
      turns(s, "qk", [["add them with @RegisterForReflection", R]], 1);
    },
    [S.qkTopic, S.qkNative, S.qkDb],
  ),
  sc(
    "f27-qk-slack-webhook",
    "qk",
    "a Slack webhook inside an otherwise durable alerting rule; an on-call fact; a one-off",
    (s) => {
      const hook = s.secret("slackWebhook");
      s.userS(
        `when a batch of readings gets dropped (bad checksum, unknown meter id) the service posts to #grid-ops, not to the generic alerts channel. webhook is ${hook}, goes in the config as an env var`,
        [hook],
        R,
        D(
          "rule",
          "project",
          "Dropped reading batches are reported to #grid-ops (webhook URL from an env var), not the generic alerts channel.",
          { secret: true },
        ),
      );
      s.tools(WORK.qk[1]);
      s.say(
        "Added a DroppedBatchNotifier that posts to the webhook from GRID_OPS_WEBHOOK_URL; it's a no-op when unset.",
      );
      turns(s, "qk", [
        [
          "on-call for the ingest is the grid data team, the rota is in opsgenie under 'meter-ingest'",
          D(
            "fact",
            "project",
            "On-call for the ingest is the grid data team, rota 'meter-ingest' in Opsgenie.",
          ),
        ],
        ["for the load test tomorrow turn the notifier off", HN("one-off")],
      ]);
    },
  ),
  sc(
    "f28-qk-terse",
    "qk",
    "terse messages: a time-zone rule, a fact about the database, one-offs, a descriptive never",
    (s) =>
      turns(s, "qk", [
        ["readings from yesterday 23:00-24:00 missing. why", R],
        [
          "timestamps: UTC in the db, Instant in code. never LocalDateTime",
          D(
            "rule",
            "project",
            "Timestamps are UTC in the database and Instant in code, never LocalDateTime.",
          ),
        ],
        [
          "timescale chunk = 1 day. retention 400d on raw",
          D(
            "fact",
            "project",
            "The TimescaleDB hypertable uses 1-day chunks and raw readings are kept 400 days.",
          ),
        ],
        ["dev services never start on my mac btw", HN("one-off")],
        ["just rerun the backfill for yesterday", HN("one-off")],
      ]),
  ),
];

const VH: Script[] = [
  sc(
    "f29-vh-vivado2024",
    "vh",
    "a stored Vivado version changed; a stored reset rule repeated as a reproach; a question",
    (s) =>
      turns(s, "vh", [
        [
          "we're on vivado 2024.1 now, the license server got updated. regenerate the IP cores and commit the .xci files",
          R,
          D("fact", "project", "Synthesis and implementation use Vivado 2024.1.", {
            contra: S.vhTool,
          }),
        ],
        [
          "cic_decim has `if rst = '1' then` outside the rising_edge again. synchronous, active-high, inside the clocked process like every other block",
          R,
          D(
            "rule",
            "project",
            "Resets are synchronous and active-high, inside the clocked process.",
            { dup: S.vhReset },
          ),
        ],
        ["does 2024.1 still choke on VHDL-2008 external names?", Q],
      ]),
    [S.vhTool, S.vhReset],
  ),
  sc(
    "f30-vh-board",
    "vh",
    "a stored board fact changed; a stored VUnit rule repeated as an instance; a hypothesis",
    (s) =>
      turns(s, "vh", [
        [
          "the arty is gone, the design runs on our own board now: artix-7 200T, fgg484, with the AD9361 on the FMC-style header. new xdc in constraints/sdr_rev1.xdc",
          R,
          D(
            "fact",
            "project",
            "The target board is the in-house board with an Artix-7 200T (FGG484) and the AD9361 on its header; constraints in constraints/sdr_rev1.xdc.",
            { contra: S.vhBoard },
          ),
        ],
        [
          "write a testbench for the new DC blocker and make sure run.py picks it up",
          R,
          D("rule", "project", "Every block gets a VUnit testbench registered in run.py.", {
            dup: S.vhSim,
          }),
        ],
        ["the timing failure is probably the LVDS input delay", HN("hypothesis")],
      ]),
    [S.vhBoard, S.vhSim, S.vhStd],
  ),
  sc(
    "f31-vh-timing-blocks",
    "vh",
    "a timing summary pasted as content blocks with a rule after it; a decision with its reason; the agent's hypothesis",
    (s) => {
      s.userBlocks(
        [
          "timing after the last change:",
          "Design Timing Summary\n| WNS(ns) | TNS(ns) | TNS Failing Endpoints | WHS(ns) |\n| -0.412  | -18.337 | 61                    | 0.041   |\n\nClock  Waveform(ns)  Period(ns)\nadc_clk {0.000 4.069} 8.138\nsys_clk {0.000 5.000} 10.000\n\nFrom Clock: adc_clk  To Clock: sys_clk\n  Setup : 61 Failing Endpoints, Worst Slack -0.412ns",
          "every crossing between adc_clk and sys_clk goes through the async FIFO or the 2-flop synchronizer in src/cdc/, nothing hand-rolled",
        ],
        R,
        D(
          "rule",
          "project",
          "Every adc_clk/sys_clk crossing goes through the async FIFO or the 2-flop synchronizer in src/cdc/; no hand-rolled crossings.",
        ),
      );
      ask(
        s,
        "vh",
        "The failing paths are all from the gain register in sys_clk into the multiplier in adc_clk; it was probably wired directly when the AGC was added.",
        0,
        HN("hypothesis"),
      );
      turns(s, "vh", [
        [
          "yes, route it through the synchronizer. and samples stay Q1.15 all the way to the DDC output, we decided that so the DSP48 mapping stays predictable",
          R,
          D(
            "decision",
            "project",
            "Samples stay Q1.15 fixed point up to the DDC output so the DSP48 mapping stays predictable.",
          ),
        ],
      ], 1);
    },
  ),
  sc(
    "f32-vh-confirm",
    "vh",
    "an agent proposal confirmed; a fact about the register map; a one-off",
    (s) => {
      s.user("the NCO glitches when the frequency word changes mid-sample", R);
      ask(
        s,
        "vh",
        "The frequency word was applied immediately. I now latch it at the next phase-accumulator update. Should every run-time register in the datapath be double-buffered and applied on a strobe like this?",
      );
      s.confirm(
        "yep, all of them, strobe from the register block",
        "rule",
        "project",
        "Run-time datapath registers are double-buffered and applied on a strobe from the register block.",
      );
      turns(s, "vh", [
        [
          "the register map is generated from regs/sdr.rdl with PeakRDL, nobody edits regs_pkg.vhd by hand",
          D(
            "rule",
            "project",
            "The register map is generated from regs/sdr.rdl with PeakRDL; regs_pkg.vhd is never edited by hand.",
          ),
        ],
        ["for the demo bitstream hardwire the gain to 12 dB", HN("one-off")],
      ], 1);
    },
  ),
];

const BM: Script[] = [
  sc(
    "f33-bm-beam260",
    "bm",
    "a stored Beam SDK version changed; a stored idempotency rule repeated far from its wording; a question",
    (s) =>
      turns(s, "bm", [
        [
          "upgrade to beam 2.60 so we get python 3.12 workers, and rebuild the flex template base image",
          R,
          D(
            "fact",
            "project",
            "The pipelines use the Apache Beam Python SDK 2.60 (Python 3.12 workers) on Dataflow.",
            { contra: S.bmVer },
          ),
        ],
        [
          "the new credits job appends. if I rerun the 14th I want the 14th replaced, not two copies of the 14th in the table",
          R,
          D(
            "rule",
            "project",
            "A rerun of a day replaces that day's partition instead of appending to it.",
            { dup: S.bmIdem },
          ),
        ],
        ["does WriteToBigQuery with FILE_LOADS support partition decorators?", Q],
      ]),
    [S.bmVer, S.bmIdem],
  ),
  sc(
    "f34-bm-owner",
    "bm",
    "a stored owner changed; a new rule on the same topic; a stored secrets rule repeated negated; a hypothesis",
    (s) =>
      turns(s, "bm", [
        [
          "I'm moving to the platform team next month, Jonas owns the billing pipelines after that and reviews changes to them. and anything touching billing also needs a dry run against the staging dataset, add that to the PR template",
          R,
          D(
            "fact",
            "project",
            "Jonas owns the billing pipelines and reviews changes to them (Mirela moved to the platform team).",
            { contra: S.bmOwner },
          ),
          D(
            "rule",
            "project",
            "Changes to the billing pipelines need a dry run against the staging dataset.",
          ),
        ],
        [
          "the new pipeline takes --db_password as an option?? don't put credentials in pipeline options, they show up in the job graph. read it from secret manager at start",
          R,
          D(
            "rule",
            "project",
            "Credentials are never passed as pipeline options; they are read from Secret Manager at start.",
            { dup: S.bmSecrets },
          ),
        ],
        ["could the skew be one huge enterprise account?", HN("hypothesis")],
      ]),
    [S.bmOwner, S.bmSecrets, S.bmFlex],
  ),
  sc(
    "f35-bm-conn-uri",
    "bm",
    "a connection URI with a password pasted for a one-off check; a dataset fact; a rule with its reason",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `compare the rollup against the ledger db for the 20th, read-only user is fine: postgresql://ledger_ro:${pw}@10.40.2.17:5432/ledger`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.bm[0]);
      s.say(
        "The rollup is 3 rows short for the 20th: three accounts whose events arrived after 02:00.",
      );
      turns(s, "bm", [
        [
          "makes sense. the rollups land in the usage_marts dataset in project billing-prod-7731, and finance's looker reads straight from there",
          D(
            "fact",
            "project",
            "Rollups land in the usage_marts dataset of project billing-prod-7731, which finance's Looker reads directly.",
          ),
        ],
        [
          "the daily job has to wait for late events until 06:00 UTC before it closes a day. events keep arriving for hours and finance can't reconcile a day that changes",
          D(
            "rule",
            "project",
            "The daily job closes a day only after 06:00 UTC, waiting for late events.",
          ),
        ],
      ]);
    },
  ),
  sc(
    "f36-bm-declined",
    "bm",
    "an agent proposal declined with a durable decision; reported speech; a question",
    (s) => {
      s.user("the daily job failed on a schema change in the events table", R);
      ask(
        s,
        "bm",
        "Fixed: the new optional field now maps to NULL. Shall I also move all pipelines from JSON events to Avro with schema evolution, so this kind of change can't break them?",
        1,
      );
      turns(s, "bm", [
        [
          "no. we stay on JSON events, the producers are five different teams and two of them can't do avro. we validate against the JSON schema in schemas/ instead",
          D(
            "decision",
            "project",
            "Events stay JSON (not Avro) because several producer teams can't emit Avro; they are validated against the JSON schemas in schemas/.",
          ),
        ],
        [
          "a guy at the beam summit said you should never use side inputs bigger than 100MB, any idea if that's real?",
          HN("question"),
        ],
        ["what does a dead-letter output cost us in dataflow?", Q],
      ], 1);
    },
  ),
];

const PH: Script[] = [
  sc(
    "f37-ph-phaser380",
    "ph",
    "a stored Phaser version changed; a stored atlas rule repeated as a reproach; a question",
    (s) =>
      turns(s, "ph", [
        [
          "upgrade phaser to 3.80, I need the new FX pipeline for the caustics. check the scale manager changes",
          R,
          D("fact", "project", "reefrun-phaser uses Phaser 3.80 with Vite.", {
            contra: S.phVer,
          }),
        ],
        [
          "you're loading jellyfish_0.png to jellyfish_7.png one by one in the preloader. pack them into the atlas with the rest, that's the whole point of having one",
          R,
          D(
            "rule",
            "project",
            "Sprite frames go into the TexturePacker atlas, not loaded as separate PNGs.",
            { dup: S.phAtlas },
          ),
        ],
        ["is there a way to preview the FX without a full reload?", Q],
      ]),
    [S.phVer, S.phAtlas],
  ),
  sc(
    "f38-ph-crazygames",
    "ph",
    "a stored publishing fact changed; a stored physics rule repeated negated; a hypothesis",
    (s) =>
      turns(s, "ph", [
        [
          "we signed with crazygames, so releases go to them first and to itch a week later. their SDK has to be initialised before the boot scene",
          R,
          D(
            "fact",
            "project",
            "Releases go to CrazyGames first and to itch.io a week later; the CrazyGames SDK is initialised before the boot scene.",
            { contra: S.phHost },
          ),
        ],
        [
          "for the swaying seaweed please don't pull matter in, fake it with a tween or arcade bodies",
          R,
          D("rule", "project", "Matter.js is not used; only Arcade physics.", {
            dup: S.phPhysics,
          }),
        ],
        ["the frame drops on phones might be the particle emitters", HN("hypothesis")],
      ]),
    [S.phHost, S.phPhysics, S.phScenes],
  ),
  sc(
    "f39-ph-github-pat",
    "ph",
    "a GitHub fine-grained token pasted for a one-off; a fact about the music licence; a rule with its reason",
    (s) => {
      const tok = s.secret("githubPat");
      s.userS(
        `the deploy action can't push to the gh-pages preview repo. set the secret for me, token: ${tok}`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(WORK.ph[0]);
      s.say("Set PREVIEW_DEPLOY_TOKEN in the repository secrets; the preview deployed.");
      turns(s, "ph", [
        [
          "the music is by Inês Calado under CC BY 4.0, so the credits scene must name her and the licence, it's part of the deal",
          D(
            "fact",
            "project",
            "The music is by Inês Calado under CC BY 4.0; the credits scene names her and the licence.",
          ),
        ],
        [
          "game logic that can be tested without a canvas goes in src/logic with vitest tests. scenes only wire things together, we couldn't test anything when it was all in the scenes",
          D(
            "rule",
            "project",
            "Testable game logic lives in src/logic with vitest tests; scenes only wire things together.",
          ),
        ],
        ["for the jam build cap the level at 3", HN("one-off")],
      ]);
    },
  ),
  sc(
    "f40-ph-private",
    "ph",
    "a private aside; an agent proposal declined for now; a save-data rule; a descriptive always; a question",
    (s) => {
      turns(s, "ph", [
        [
          "<private>I'm interviewing at another studio next week so I might be slow to answer</private> anyway: the high score resets when the tab is reopened",
          N("private"),
          R,
        ],
        [
          "save data goes in localStorage under one versioned key, reefrun.save.v1, and any format change bumps the version with a migration",
          R,
          D(
            "rule",
            "project",
            "Save data lives in localStorage under a single versioned key (reefrun.save.v1); format changes bump the version with a migration.",
          ),
        ],
      ]);
      ask(
        s,
        "ph",
        "Fixed. Would you like me to add cloud saves through the portal SDK as well, so scores follow players across devices?",
        1,
      );
      turns(s, "ph", [
        ["not for now", R],
        ["safari always stutters on the first tap, no idea why", HN("one-off")],
        ["how much does the atlas weigh after gzip?", Q],
      ], 1);
    },
  ),
];

const MIXED: Script[] = [
  sc(
    "f41-cd-global-prefs",
    "cd",
    "a stored global test rule repeated as a complaint; a stored global subject-length rule changed; a new global preference",
    (s) =>
      turns(s, "cd", [
        ["the berth handler returns 500 on an empty ETA list", R],
        [
          "you said it's fixed but pytest still has the empty-list case red. run the tests first, then tell me it works",
          R,
          D("rule", "global", "Run the tests before claiming a fix works.", { dup: S.gTests }),
        ],
        [
          "by the way, forget the 60 character limit on commit subjects, 72 is fine everywhere. the 60 came from an old gerrit setup",
          D("preference", "global", "Commit subjects may be up to 72 characters.", {
            contra: S.gSubject,
          }),
        ],
        [
          "and whenever you rename something, finish with the list of files you touched",
          D(
            "preference",
            "global",
            "After a rename, end the answer with the list of files touched.",
          ),
        ],
      ]),
    [S.gTests, S.gSubject],
  ),
  sc(
    "f42-bm-long-compacted",
    "bm",
    "a long session with a compaction; a new rule; a stored Flex Template rule repeated after the compaction; a fact; hard negatives",
    (s) => {
      turns(s, "bm", [
        ["add a weekly rollup next to the daily one", R],
        [
          "every pipeline gets a --dry_run flag that runs the whole graph but writes nothing, that's how we test on prod-sized data",
          D(
            "rule",
            "project",
            "Every pipeline has a --dry_run flag that runs the full graph without writing.",
          ),
        ],
        ["for the first week run it with max_num_workers=4", HN("one-off")],
        ["how long would the weekly take on a full month of events?", Q],
        ["fine, keep it weekly then", R],
      ]);
      s.compact(
        "The user asked for a weekly rollup beside the daily one (done), said every pipeline has a --dry_run flag that runs the whole graph without writing, asked to cap the first week's runs at max_num_workers=4, and kept the rollup weekly.",
      );
      turns(s, "bm", [
        [
          "you launched the weekly with python -m from your shell against prod. it goes out as a flex template through cloud build like every job we have",
          R,
          D(
            "rule",
            "project",
            "Jobs are launched as Flex Templates built by Cloud Build, not run from a shell.",
            { dup: S.bmFlex },
          ),
        ],
        [
          "the weekly runs mondays at 07:00 UTC from cloud scheduler, same service account as the daily, usage-pipelines@",
          D(
            "fact",
            "project",
            "The weekly rollup runs Mondays at 07:00 UTC from Cloud Scheduler with the usage-pipelines service account, like the daily.",
          ),
        ],
        ["I think the shuffle service is what makes it slow", HN("hypothesis")],
        ["ok, merge it", R],
      ], 1);
    },
    [S.bmFlex],
  ),
  sc(
    "f43-qk-global-long",
    "qk",
    "a stored global force-push rule repeated far from its wording; a stored global brevity preference changed with an exception; a global fact about the user; a one-off",
    (s) =>
      turns(s, "qk", [
        ["the consumer lag metric is missing from the dashboard", R],
        [
          "rebase it onto main, but don't rewrite the shared feature branch history, Tereza and Ondřej both have it checked out",
          R,
          D("rule", "global", "Never rewrite the history of a branch others have checked out.", {
            dup: S.gForce,
          }),
        ],
        [
          "short answers are still good for fixes, but when I ask a design question I want the long version with the trade-offs spelled out",
          D(
            "preference",
            "global",
            "Short answers for fixes; design questions get a long answer with the trade-offs.",
            { contra: S.gShort },
          ),
        ],
        [
          "and I'm red-green colour-blind, so in anything you make me look at don't rely on red versus green alone",
          D(
            "fact",
            "global",
            "The user is red-green colour-blind: never rely on red versus green alone.",
          ),
        ],
        ["leave the grafana folder alone today, someone's reorganising it", HN("one-off")],
      ]),
    [S.gForce, S.gShort],
  ),
  sc(
    "f44-ln-global-marker",
    "ln",
    "a stored global TODO rule repeated with a marker; a stored global brevity rule repeated tersely; a new global rule; a question",
    (s) =>
      turns(s, "ln", [
        ["the R(3,5) file has a lemma that doesn't typecheck since the bump", R],
        [
          "there's a `-- TODO: generalise` comment in there too. issue instead of a comment, as always",
          R,
          D("rule", "global", "Open an issue instead of leaving TODO comments in code.", {
            dup: S.gTodo,
          }),
        ],
        [
          "and shorter answers please, just the change and a line of why",
          D("preference", "global", "Answers are short: the change plus one line of why.", {
            dup: S.gShort,
          }),
        ],
        [
          "one for everywhere: never run git reset --hard or git clean without asking me first",
          D(
            "rule",
            "global",
            "Never run git reset --hard or git clean without asking the user first.",
          ),
        ],
        ["is omega able to do this or do we need linarith?", Q],
      ]),
    [S.gTodo, S.gShort],
  ),
];

export const HOLDOUT16: Script[] = [
  ...CD,
  ...OD,
  ...LN,
  ...YO,
  ...EM,
  ...ST,
  ...QK,
  ...VH,
  ...BM,
  ...PH,
  ...MIXED,
];
