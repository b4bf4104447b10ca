/**
 * Hand-written sessions of the capture benchmark's `holdout7` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs page or
 * results (nor any other helper's worktree), and frozen before any tuning against them. Its focus
 * is repeats: 24 of its 44 sessions have stored memories, which the user says again in other words
 * (duplicates), changes (contradictions: a new value, tool or owner, an exception, a reversal) or
 * extends with a genuinely new fact on the same topic. Ten projects new to the data set: a Remix
 * app, a Fortran ocean model, a Shopify Liquid theme, a Kotlin/Ktor service, a Prometheus alert
 * rules repository, an Erlang/OTP service, a NestJS backend, a FastAPI service, a COBOL batch
 * system and a SolidJS app.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) that state no standing rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout7 split's projects. */
const P = {
  remix: "/home/ines/src/orbit-remix",
  fortran: "/home/olaf/models/ocean-fortran",
  liquid: "/Users/mei/themes/aurora-liquid",
  ktor: "/home/viktor/dev/ktor-chat",
  prom: "/home/bea/ops/prom-alerts",
  erl: "/home/kalle/src/otp-switch",
  nest: "/Users/ade/work/crm-nest",
  fastapi: "/home/yuki/code/geo-fastapi",
  cobol: "/srv/mainframe/payroll-cobol",
  solid: "/home/nico/code/solid-kanban",
} as const;
type Proj = keyof typeof P;

const CHORES: Record<Proj, ToolStep[]> = {
  remix: [
    bash(
      "npm run typecheck && npx vitest run app/routes",
      " ✓ app/routes/_index.test.tsx (4 tests) 38ms\n ✓ app/routes/trips.$id.test.tsx (9 tests) 71ms\n\n Test Files  2 passed (2)\n      Tests  13 passed (13)",
    ),
    read(
      `${P.remix}/app/routes/trips.$id.tsx`,
      'import { json, type LoaderFunctionArgs } from "@remix-run/node";\nimport { useLoaderData } from "@remix-run/react";\nimport { getTrip } from "~/models/trip.server";\n\nexport async function loader({ params }: LoaderFunctionArgs) {\n  const trip = await getTrip(params.id!);\n  if (!trip) throw new Response("Not found", { status: 404 });\n  return json({ trip });\n}',
    ),
  ],
  fortran: [
    bash(
      "cmake --build build -j4 && ctest --test-dir build -R advect",
      "[100%] Built target ocean\nTest project /home/olaf/models/ocean-fortran/build\n    Start 3: advect_1d\n1/2 Test #3: advect_1d ........................   Passed    0.42 sec\n2/2 Test #4: advect_2d ........................   Passed    1.95 sec\n\n100% tests passed, 0 tests failed out of 2",
    ),
    read(
      `${P.fortran}/src/advect.f90`,
      "module advect\n  use kinds, only: wp\n  implicit none\n  private\n  public :: step_upwind\ncontains\n  subroutine step_upwind(q, u, dt, dx)\n    real(wp), intent(inout) :: q(:)\n    real(wp), intent(in) :: u(:), dt, dx\n  end subroutine step_upwind\nend module advect",
    ),
  ],
  liquid: [
    bash(
      "shopify theme check",
      "Checking . ...\n\n96 files inspected with no offenses found.",
    ),
    read(
      `${P.liquid}/sections/featured-collection.liquid`,
      '<section class="featured-collection page-width">\n  {%- for product in section.settings.collection.products limit: 8 -%}\n    {% render \'product-card\', product: product %}\n  {%- endfor -%}\n</section>\n\n{% schema %}\n{ "name": "Featured collection", "settings": [] }\n{% endschema %}',
    ),
  ],
  ktor: [
    bash(
      "./gradlew test --tests '*RoomRoutesTest*'",
      "> Task :test\n\nRoomRoutesTest > joins a room() PASSED\nRoomRoutesTest > rejects a banned user() PASSED\n\nBUILD SUCCESSFUL in 21s\n7 actionable tasks: 2 executed, 5 up-to-date",
    ),
    read(
      `${P.ktor}/src/main/kotlin/chat/routes/Rooms.kt`,
      'fun Route.rooms(service: RoomService) {\n    route("/rooms") {\n        get { call.respond(service.list()) }\n        post("/{id}/join") {\n            val id = call.parameters["id"] ?: return@post call.respond(HttpStatusCode.BadRequest)\n            call.respond(service.join(id, call.principal<UserPrincipal>()!!))\n        }\n    }\n}',
    ),
  ],
  prom: [
    bash(
      "promtool check rules rules/*.yml && promtool test rules tests/*.yml",
      "Checking rules/api.yml\n  SUCCESS: 14 rules found\nChecking rules/node.yml\n  SUCCESS: 9 rules found\nUnit Testing:  tests/api_test.yml\n  SUCCESS",
    ),
    read(
      `${P.prom}/rules/api.yml`,
      'groups:\n  - name: api\n    rules:\n      - alert: ApiHighErrorRate\n        expr: sum(rate(http_requests_total{code=~"5.."}[5m])) / sum(rate(http_requests_total[5m])) > 0.05\n        for: 10m\n        labels:\n          severity: page',
    ),
  ],
  erl: [
    bash(
      "rebar3 eunit && rebar3 dialyzer",
      "===> Performing EUnit tests...\n..........................\nFinished in 0.512 seconds\n26 tests, 0 failures\n===> Dialyzer starting, this may take a while...\n===> Analyzing 14 files with _build/default/rebar3_26.2_plt...",
    ),
    read(
      `${P.erl}/src/switch_port.erl`,
      "-module(switch_port).\n-behaviour(gen_server).\n-export([start_link/1, init/1, handle_call/3, handle_cast/2]).\n\nstart_link(Id) -> gen_server:start_link(?MODULE, Id, []).\n\ninit(Id) -> {ok, #{id => Id, calls => 0}}.",
    ),
  ],
  nest: [
    bash(
      "pnpm jest src/contacts --silent",
      "PASS src/contacts/contacts.service.spec.ts\nPASS src/contacts/contacts.controller.spec.ts\n\nTest Suites: 2 passed, 2 total\nTests:       18 passed, 18 total",
    ),
    read(
      `${P.nest}/src/contacts/contacts.controller.ts`,
      "@Controller('contacts')\nexport class ContactsController {\n  constructor(private readonly contacts: ContactsService) {}\n\n  @Get(':id')\n  findOne(@Param('id', ParseUUIDPipe) id: string) {\n    return this.contacts.findOne(id);\n  }\n}",
    ),
  ],
  fastapi: [
    bash(
      "uv run pytest -q tests/api",
      "........................                                                 [100%]\n24 passed in 3.12s",
    ),
    read(
      `${P.fastapi}/app/routers/tiles.py`,
      'from fastapi import APIRouter, Depends\nfrom app.db import get_session\n\nrouter = APIRouter(prefix="/tiles", tags=["tiles"])\n\n\n@router.get("/{z}/{x}/{y}.mvt")\nasync def tile(z: int, x: int, y: int, session=Depends(get_session)):\n    return await render_tile(session, z, x, y)',
    ),
  ],
  cobol: [
    bash(
      "make -C batch compile && ./run_tests.sh PAYCALC",
      "cobc -x -free -o bin/PAYCALC src/PAYCALC.cbl\nPAYCALC: 31 cases, 31 passed",
    ),
    read(
      `${P.cobol}/src/PAYCALC.cbl`,
      "IDENTIFICATION DIVISION.\nPROGRAM-ID. PAYCALC.\nDATA DIVISION.\nWORKING-STORAGE SECTION.\n01 WS-GROSS      PIC S9(7)V99 COMP-3.\n01 WS-TAX        PIC S9(7)V99 COMP-3.\nPROCEDURE DIVISION.\n    PERFORM 1000-CALC-TAX.\n    STOP RUN.",
    ),
  ],
  solid: [
    bash(
      "pnpm vitest run src/board",
      " ✓ src/board/Column.test.tsx (6 tests) 44ms\n ✓ src/board/dnd.test.ts (11 tests) 19ms\n\n Test Files  2 passed (2)\n      Tests  17 passed (17)",
    ),
    read(
      `${P.solid}/src/board/Column.tsx`,
      'import { For, createMemo } from "solid-js";\nimport { useBoard } from "./store";\n\nexport function Column(props: { id: string }) {\n  const [board] = useBoard();\n  const cards = createMemo(() => board.cards.filter((c) => c.column === props.id));\n  return <ul class="column"><For each={cards()}>{(c) => <Card card={c} />}</For></ul>;\n}',
    ),
  ],
};

const OK = [
  "Done.",
  "Done, tests are green.",
  "Made the change and re-ran the checks.",
  "That's done.",
  "Updated; nothing else needed touching.",
  "Finished, the build passes.",
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
  remixZod: "Form actions validate their input with zod schemas from app/schemas/.",
  remixServer: "Database access lives only in *.server.ts modules.",
  remixDeploy: "orbit-remix deploys to Fly.io from the main branch.",
  f90Kind:
    "Real variables use real(wp) from the kinds module; never bare real or double precision.",
  f90Compiler: "The model is built with gfortran 13.",
  f90Netcdf: "Model output is written as NetCDF-4 through the io_netcdf module.",
  liqCheck: "Run `shopify theme check` before every push; it must report no offenses.",
  liqStore: "The development store is aurora-dev.myshopify.com.",
  liqOwner: "Mei owns the theme's design tokens in assets/tokens.css.",
  ktorKoin: "Dependency injection in ktor-chat uses Koin.",
  ktorTests: "Route tests use testApplication, never a real server on a port.",
  ktorDb: "ktor-chat uses Exposed with PostgreSQL 15.",
  promFor: "Every paging alert has a `for:` of at least 5 minutes.",
  promRunbook: "Every alert carries a runbook_url annotation.",
  promOwner: "Bea owns the Alertmanager routing config.",
  erlOtp: "otp-switch targets OTP 26.",
  erlLogger: "Use logger macros (?LOG_INFO etc.), never io:format, for logging.",
  erlDialyzer: "Dialyzer must pass with no warnings before merging.",
  nestPrisma: "crm-nest uses Prisma for database access.",
  nestDto: "Every request body is a DTO class validated with class-validator.",
  nestPnpm: "crm-nest uses pnpm.",
  fastUv: "Dependencies are managed with uv; no pip install.",
  fastAsync: "Route handlers are async and use the async SQLAlchemy session.",
  fastSrid: "Geometries are stored in SRID 4326.",
  cobolComp3: "Money fields are PIC S9(n)V99 COMP-3.",
  cobolWindow: "Batch jobs run in the nightly window from 01:00 to 04:00.",
  cobolReview: "Changes to PAYCALC need sign-off from Greta (payroll) before release.",
  solidStore: "Shared board state uses createStore from solid-js/store, not signals in context.",
  solidBiome: "solid-kanban is linted and formatted with Biome.",
} as const;

const REMIX: Script[] = [
  sc(
    "x01-remix-dup-as-usual",
    "remix",
    "stored rules repeated with markers inside requests",
    "2026-02-02T09:05:00.000Z",
    (s) =>
      turns(s, "remix", [
        [
          "add a trip-notes form on trips.$id. zod schema in app/schemas as usual",
          R,
          D("rule", "project", "Form actions validate input with zod schemas in app/schemas/.", {
            dup: S.remixZod,
          }),
        ],
        [
          "and like I said before, db calls stay in .server.ts files, don't import prisma in the route",
          D("rule", "project", "Database calls stay in *.server.ts modules, never in routes.", {
            dup: S.remixServer,
          }),
        ],
        ["ok run typecheck", R],
      ]),
    [S.remixZod, S.remixServer],
  ),
  sc(
    "x02-remix-deploy-moved",
    "remix",
    "a stored fact changed (new host); a new fact on the same topic",
    "2026-02-03T10:30:00.000Z",
    (s) =>
      turns(s, "remix", [
        [
          "heads up: we moved off fly last month, orbit-remix deploys to Render now, still from main",
          D("fact", "project", "orbit-remix deploys to Render from the main branch.", {
            contra: S.remixDeploy,
          }),
        ],
        [
          "Render builds a preview environment for every PR too, the link shows up as a PR comment",
          D(
            "fact",
            "project",
            "Render builds a preview environment for every PR; its link is posted as a PR comment.",
          ),
        ],
        ["update the deploy section of the readme to match", R],
      ]),
    [S.remixDeploy],
  ),
  sc(
    "x03-remix-hard-negatives",
    "remix",
    "hard negatives while debugging a loader; one setup fact",
    "2026-02-04T14:00:00.000Z",
    (s) =>
      turns(s, "remix", [
        ["the trips loader always returns stale data after a redirect, why?", HN("question")],
        ["for this debugging session, always log the loader timings", HN("one-off")],
        ["maybe shouldRevalidate is returning false somewhere?", HN("hypothesis")],
        [
          "the session cookie is called __orbit and it's set in app/sessions.server.ts btw",
          D(
            "fact",
            "project",
            "The session cookie is __orbit, set up in app/sessions.server.ts.",
          ),
        ],
      ]),
  ),
  sc(
    "x04-remix-zod-exception",
    "remix",
    "an exception added to a stored rule; a duplicate in a reply to the agent",
    "2026-02-05T11:15:00.000Z",
    (s) => {
      s.user("the newsletter signup action needs validation", R);
      s.tools(CHORES.remix[1]);
      s.say("Should I add a zod schema for it in app/schemas/ like the other actions?");
      s.user(
        "yes, schemas in app/schemas, same as everywhere",
        D("rule", "project", "Action input is validated with zod schemas kept in app/schemas/.", {
          dup: S.remixZod,
        }),
      );
      s.tools(CHORES.remix[0]);
      s.say("Added app/schemas/newsletter.ts and wired it into the action.");
      s.user(
        "one exception from now on: the webhook routes under app/routes/hooks.* skip zod, they verify the signature and pass the raw body on",
        D(
          "rule",
          "project",
          "Exception: webhook routes under app/routes/hooks.* do not use zod; they verify the signature and pass the raw body on.",
          { contra: S.remixZod },
        ),
      );
      s.say("Understood, I'll leave hooks.stripe.tsx as it is.");
    },
    [S.remixZod],
  ),
  sc(
    "x05-remix-slack-webhook",
    "remix",
    "a rule that carries a Slack webhook; a global preference",
    "2026-02-06T16:20:00.000Z",
    (s) => {
      const hook = s.secret("slackWebhook");
      s.userS(
        `deploy notifications go to #orbit-deploys through ${hook} — use that in the deploy script`,
        [hook],
        D(
          "fact",
          "project",
          "Deploy notifications go to the #orbit-deploys Slack channel through its webhook.",
          { secret: true },
        ),
        R,
      );
      s.tools(CHORES.remix[1]);
      s.say("I'll read it from an env var SLACK_DEPLOY_WEBHOOK instead of hard-coding it.");
      s.user(
        "good. and generally, for me: show me the diff before you commit anything, in any repo",
        D("preference", "global", "Show the diff before committing anything."),
      );
      s.say("Will do.");
    },
  ),
];

const FORTRAN: Script[] = [
  sc(
    "x06-f90-dup-reason",
    "fortran",
    "a stored rule repeated with a reason; a new rule on the same topic",
    "2026-02-07T08:40:00.000Z",
    (s) =>
      turns(s, "fortran", [
        [
          "real(wp) everywhere please, no bare real — we lost a week to a single-precision bug in 2023",
          D("rule", "project", "Use real(wp) from the kinds module, never bare real.", {
            dup: S.f90Kind,
          }),
        ],
        [
          "also integer loop indices are plain integer, but array sizes passed to MPI are integer(int64)",
          D(
            "rule",
            "project",
            "Array sizes passed to MPI are integer(int64); loop indices stay plain integer.",
          ),
        ],
        ["now port the diffusion step to that", R],
      ]),
    [S.f90Kind],
  ),
  sc(
    "x07-f90-compiler-change",
    "fortran",
    "a stored fact changed (new compiler); a duplicate abbreviated",
    "2026-02-08T13:10:00.000Z",
    (s) =>
      turns(s, "fortran", [
        [
          "fyi we switched to ifx 2024.1 for builds, gfortran only for the quick local checks now",
          D(
            "fact",
            "project",
            "The model is built with ifx 2024.1; gfortran is only used for quick local checks.",
            { contra: S.f90Compiler },
          ),
        ],
        [
          "output via io_netcdf, nc4, as always. add the salinity field",
          R,
          D("fact", "project", "Output is NetCDF-4, written through io_netcdf.", {
            dup: S.f90Netcdf,
          }),
        ],
      ]),
    [S.f90Compiler, S.f90Netcdf],
  ),
  sc(
    "x08-f90-hard-negatives",
    "fortran",
    "hard negatives on a CFL crash; a rule quoted from a book",
    "2026-02-09T10:00:00.000Z",
    (s) =>
      turns(s, "fortran", [
        ["it always blows up around step 4000 with the 2km grid", HN("one-off")],
        [
          "the numerical recipes book says never use equality tests on reals — is that relevant here?",
          HN("question"),
        ],
        ["could the timestep be too large for the CFL limit?", HN("hypothesis")],
        ["just this run, halve dt and see", HN("one-off")],
      ]),
  ),
  sc(
    "x09-f90-long-message-dup",
    "fortran",
    "a stored fact repeated inside a long message with new facts",
    "2026-02-10T15:30:00.000Z",
    (s) =>
      turns(s, "fortran", [
        [
          "ok so context for the coupler work: the atmosphere side is owned by Pia's group and they send fluxes every 6 model hours; our output is netcdf-4 through io_netcdf as you know; and the coupler namelist lives in config/coupler.nml. please sketch the receive side",
          R,
          D("fact", "project", "The atmosphere model is owned by Pia's group."),
          D("fact", "project", "The atmosphere sends fluxes every 6 model hours."),
          D("fact", "project", "Model output is NetCDF-4 via io_netcdf.", {
            dup: S.f90Netcdf,
          }),
          D("fact", "project", "The coupler namelist is config/coupler.nml."),
        ],
        ["looks fine, stub the MPI calls for now", R],
      ]),
    [S.f90Netcdf],
  ),
];

const LIQUID: Script[] = [
  sc(
    "x10-liquid-dup-reminder",
    "liquid",
    "a stored rule and fact repeated with 'remember'",
    "2026-02-11T09:20:00.000Z",
    (s) =>
      turns(s, "liquid", [
        [
          "remember theme check before you push, zero offenses",
          D("rule", "project", "Run shopify theme check before pushing; no offenses allowed.", {
            dup: S.liqCheck,
          }),
        ],
        [
          "push to the dev store (aurora-dev.myshopify.com, same one) and send me the preview link",
          R,
          D("fact", "project", "The development store is aurora-dev.myshopify.com.", {
            dup: S.liqStore,
          }),
        ],
      ]),
    [S.liqCheck, S.liqStore],
  ),
  sc(
    "x11-liquid-owner-change",
    "liquid",
    "a stored owner changed; a new rule on the same file",
    "2026-02-12T12:00:00.000Z",
    (s) =>
      turns(s, "liquid", [
        [
          "Mei handed the design tokens over to Tariq when she moved to the app team, so tokens.css questions go to him now",
          D("fact", "project", "Tariq owns the design tokens in assets/tokens.css (not Mei).", {
            contra: S.liqOwner,
          }),
        ],
        [
          "and tokens.css is generated from figma by scripts/tokens.mjs, never hand-edit it",
          D(
            "rule",
            "project",
            "assets/tokens.css is generated from Figma by scripts/tokens.mjs; never edit it by hand.",
          ),
        ],
        ["regenerate it and check the buttons", R],
      ]),
    [S.liqOwner],
  ),
  sc(
    "x12-liquid-ordinary",
    "liquid",
    "conventions with reasons and a hard negative",
    "2026-02-13T14:45:00.000Z",
    (s) =>
      turns(s, "liquid", [
        [
          "snippets get a doc comment block at the top listing their params, the theme editor folks rely on it",
          D(
            "rule",
            "project",
            "Every snippet starts with a doc comment block listing its parameters.",
          ),
        ],
        [
          "we decided against app blocks for the size chart — merchants kept deleting them, so it's a section setting",
          D(
            "decision",
            "project",
            "The size chart is a section setting, not an app block (merchants kept deleting the blocks).",
          ),
        ],
        ["don't bother with the translations for this PR", HN("one-off")],
      ]),
  ),
  sc(
    "x13-liquid-aws-keys",
    "liquid",
    "AWS keys pasted for an upload; a question",
    "2026-02-14T10:10:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const key = s.secret("awsSecret");
      s.userS(
        `upload the hero videos to the cdn bucket, creds: AWS_ACCESS_KEY_ID=${id} AWS_SECRET_ACCESS_KEY=${key}`,
        [id, key],
        N("secret"),
        R,
      );
      s.tools(CHORES.liquid[0]);
      s.say("I'd rather not use keys pasted in chat; can you set up a profile instead?");
      s.user("fine. which bucket region is the cdn in?", Q);
      s.say("The bucket policy in infra/ says eu-west-1.");
    },
  ),
];

const KTOR: Script[] = [
  sc(
    "x14-ktor-di-reversal",
    "ktor",
    "a stored decision reversed; a duplicate in passing",
    "2026-02-15T09:00:00.000Z",
    (s) =>
      turns(s, "ktor", [
        [
          "we're dropping koin — too much magic at startup. plain constructor injection wired in Application.module() from now on",
          D(
            "decision",
            "project",
            "ktor-chat no longer uses Koin; dependencies are wired by constructor injection in Application.module().",
            { contra: S.ktorKoin },
          ),
        ],
        [
          "tests stay on testApplication obviously, no real ports",
          D("rule", "project", "Route tests use testApplication, not a server on a real port.", {
            dup: S.ktorTests,
          }),
        ],
        ["start with RoomService", R],
      ]),
    [S.ktorKoin, S.ktorTests],
  ),
  sc(
    "x15-ktor-db-upgrade",
    "ktor",
    "a stored version changed; a reply to the agent repeating a stored rule",
    "2026-02-16T11:30:00.000Z",
    (s) => {
      s.user(
        "postgres is 16 now on every env, the 15 clusters were retired in january",
        D(
          "fact",
          "project",
          "ktor-chat runs on PostgreSQL 16 (Exposed); the 15 clusters are retired.",
          {
            contra: S.ktorDb,
          },
        ),
      );
      s.tools(CHORES.ktor[1]);
      s.say(
        "For the new migration test, should I start a server on 8080 and hit it with a client?",
      );
      s.user(
        "no no, testApplication, like the rest",
        D("rule", "project", "Tests use testApplication instead of a real server.", {
          dup: S.ktorTests,
        }),
      );
      s.tools(CHORES.ktor[0]);
      s.say("Rewrote it with testApplication; it passes.");
    },
    [S.ktorDb, S.ktorTests],
  ),
  sc(
    "x16-ktor-ordinary",
    "ktor",
    "rules and a fact with reasons; hard negatives",
    "2026-02-17T15:00:00.000Z",
    (s) =>
      turns(s, "ktor", [
        [
          "websocket frames are JSON with a `type` field first, the android client switches on it",
          D("rule", "project", "WebSocket frames are JSON objects whose first field is `type`."),
        ],
        ["the ws tests never pass on my laptop when I'm on the vpn", HN("one-off")],
        ["should we always close the session on a parse error?", HN("question")],
        [
          "rate limits are in application.conf under chat.limits, ops tunes them there",
          D("fact", "project", "Rate limits are configured in application.conf under chat.limits."),
        ],
      ]),
  ),
  sc(
    "x17-ktor-german-filler",
    "ktor",
    "stored memories repeated with German filler words",
    "2026-02-13T10:20:00.000Z",
    (s) =>
      turns(s, "ktor", [
        [
          "also, wie immer: Exposed, Postgres 15, nix Neues. add the message reactions table",
          R,
          D("fact", "project", "ktor-chat uses Exposed on PostgreSQL 15.", { dup: S.ktorDb }),
        ],
        [
          "und bitte testApplication für den Test, genau wie sonst",
          D("rule", "project", "Route tests use testApplication.", { dup: S.ktorTests }),
        ],
      ]),
    [S.ktorDb, S.ktorTests],
  ),
];

const PROM: Script[] = [
  sc(
    "x18-prom-dup-and-new",
    "prom",
    "a stored rule repeated casually; a new rule on the same topic",
    "2026-02-19T08:15:00.000Z",
    (s) =>
      turns(s, "prom", [
        [
          "add an alert for the queue backlog. for: 5m min like all the paging ones",
          R,
          D("rule", "project", "Paging alerts have a for: of at least 5 minutes.", {
            dup: S.promFor,
          }),
        ],
        [
          "and ticket-severity alerts need at least 30m, we don't want tickets for blips",
          D("rule", "project", "Ticket-severity alerts have a for: of at least 30 minutes."),
        ],
        ["runbook link too", R],
      ]),
    [S.promFor],
  ),
  sc(
    "x19-prom-runbook-dup-reason",
    "prom",
    "a stored rule repeated with a reason; an owner changed",
    "2026-02-20T13:40:00.000Z",
    (s) =>
      turns(s, "prom", [
        [
          "no alert without a runbook_url. the on-call at 4am should never have to guess",
          D("rule", "project", "Every alert has a runbook_url annotation.", {
            dup: S.promRunbook,
          }),
        ],
        [
          "routing changes go to Dmitri now, Bea moved to the data team",
          D("fact", "project", "Dmitri owns the Alertmanager routing config (not Bea).", {
            contra: S.promOwner,
          }),
        ],
        ["draft the routing PR description for him", R],
      ]),
    [S.promRunbook, S.promOwner],
  ),
  sc(
    "x20-prom-hard-negatives",
    "prom",
    "hard negatives around a flapping alert; a quoted SRE maxim",
    "2026-02-21T16:00:00.000Z",
    (s) =>
      turns(s, "prom", [
        ["ApiHighErrorRate always fires during the deploy, it's flapping", HN("one-off")],
        [
          "the sre book says every page should be actionable, does this one pass that test?",
          HN("question"),
        ],
        ["maybe the 5m rate window is too short?", HN("hypothesis")],
        ["silence it for tonight only", HN("one-off")],
      ]),
  ),
  sc(
    "x21-prom-password-url",
    "prom",
    "a password inside a URL; a setup fact",
    "2026-02-22T09:50:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `the blackbox exporter should probe https://monitor:${pw}@status.internal.example/health, add it`,
        [pw],
        R,
        N("secret"),
      );
      s.tools(CHORES.prom[0]);
      s.say("I've put the credentials in a file referenced by basic_auth.password_file instead.");
      s.user(
        "right. the exporters all run on the mon-1 host, port 9115 for blackbox",
        D(
          "fact",
          "project",
          "The exporters run on host mon-1; the blackbox exporter on port 9115.",
        ),
      );
      s.say("Targets updated.");
    },
  ),
];

const ERL: Script[] = [
  sc(
    "x22-erl-otp-bump",
    "erl",
    "a stored version changed; a duplicate abbreviated",
    "2026-02-23T10:00:00.000Z",
    (s) =>
      turns(s, "erl", [
        [
          "we're on OTP 27 as of this sprint, rebar.config minimum too",
          D("fact", "project", "otp-switch targets OTP 27 (also the minimum in rebar.config).", {
            contra: S.erlOtp,
          }),
        ],
        [
          "?LOG_* only, no io:format. fix the two in switch_port",
          R,
          D("rule", "project", "Log with the logger macros (?LOG_*), never io:format.", {
            dup: S.erlLogger,
          }),
        ],
      ]),
    [S.erlOtp, S.erlLogger],
  ),
  sc(
    "x23-erl-dialyzer-exception",
    "erl",
    "an exception added to a stored rule; the stored rule repeated",
    "2026-02-24T14:20:00.000Z",
    (s) =>
      turns(s, "erl", [
        [
          "dialyzer clean before merge, as always",
          D("rule", "project", "Dialyzer must report no warnings before a merge.", {
            dup: S.erlDialyzer,
          }),
        ],
        [
          "except the generated protobuf modules in src/pb/ — those are excluded from dialyzer from now on, their warnings aren't ours",
          D(
            "rule",
            "project",
            "The generated protobuf modules in src/pb/ are excluded from Dialyzer.",
            { contra: S.erlDialyzer },
          ),
        ],
        ["add the exclusion to rebar.config", R],
      ]),
    [S.erlDialyzer],
  ),
  sc(
    "x24-erl-ordinary",
    "erl",
    "supervision decisions with reasons; a hypothesis",
    "2026-02-25T09:30:00.000Z",
    (s) =>
      turns(s, "erl", [
        [
          "each port gets its own gen_server under a simple_one_for_one sup — we chose that so one bad port can't take the others down",
          D(
            "decision",
            "project",
            "Each port runs its own gen_server under a simple_one_for_one supervisor, so one failing port cannot take down the others.",
          ),
        ],
        ["probably the mailbox is growing because of the stats casts?", HN("hypothesis")],
        [
          "the release is built with `rebar3 as prod tar` and shipped to the switch hosts by ansible",
          D(
            "fact",
            "project",
            "Releases are built with `rebar3 as prod tar` and shipped to the switch hosts by Ansible.",
          ),
        ],
      ]),
  ),
  sc(
    "x25-erl-anthropic",
    "erl",
    "an Anthropic key pasted; a global preference",
    "2026-02-26T11:00:00.000Z",
    (s) => {
      const k = s.secret("anthropic");
      s.userS(
        `for the summarizer test you can use ANTHROPIC_API_KEY=${k}`,
        [k],
        N("secret"),
      );
      s.say("I'll keep it in the shell only and not write it to any file.");
      s.user(
        "thanks. btw in general I like short commit messages, one line, no body unless it's tricky",
        D(
          "preference",
          "global",
          "Commit messages are one line, with a body only when the change is tricky.",
        ),
      );
      s.tools(CHORES.erl[0]);
      s.say("Committed as `summarizer: test against the live API`.");
    },
  ),
];

const NEST: Script[] = [
  sc(
    "x26-nest-orm-move",
    "nest",
    "a stored tool replaced; a duplicate in the same message",
    "2026-02-27T09:10:00.000Z",
    (s) =>
      turns(s, "nest", [
        [
          "we moved off prisma to drizzle in december, so new repositories use drizzle — and DTOs with class-validator for every body, same as before",
          D(
            "decision",
            "project",
            "crm-nest uses Drizzle for database access (moved off Prisma).",
            {
              contra: S.nestPrisma,
            },
          ),
          D("rule", "project", "Every request body is a class-validator DTO.", {
            dup: S.nestDto,
          }),
        ],
        ["write the deals repository", R],
      ]),
    [S.nestPrisma, S.nestDto],
  ),
  sc(
    "x27-nest-pnpm-casual",
    "nest",
    "a stored fact repeated casually; a new fact on the same topic",
    "2026-02-28T15:25:00.000Z",
    (s) =>
      turns(s, "nest", [
        [
          "pnpm ofc. add @nestjs/throttler",
          R,
          D("fact", "project", "crm-nest uses pnpm.", { dup: S.nestPnpm }),
        ],
        [
          "the lockfile is only updated by renovate on mondays except when adding deps like now",
          D(
            "fact",
            "project",
            "Renovate updates the lockfile on Mondays; otherwise it changes only when a dependency is added.",
          ),
        ],
      ]),
    [S.nestPnpm],
  ),
  sc(
    "x28-nest-ordinary",
    "nest",
    "rules in a bullet list; a task-scoped never",
    "2026-03-01T10:40:00.000Z",
    (s) =>
      turns(s, "nest", [
        [
          "a few things for this codebase:\n- controllers stay thin, logic in services\n- every endpoint has @ApiOperation for swagger\n- never return prisma/drizzle entities directly, map to response DTOs",
          D("rule", "project", "Controllers stay thin; logic lives in services."),
          D("rule", "project", "Every endpoint has an @ApiOperation decorator for Swagger."),
          D("rule", "project", "Never return ORM entities directly; map them to response DTOs."),
        ],
        ["never mind the swagger for the internal health route", HN("one-off")],
        ["now add GET /contacts/:id/deals", R],
      ]),
  ),
  sc(
    "x29-nest-dup-answer",
    "nest",
    "a stored rule repeated as an answer to the agent; an exception to it",
    "2026-03-02T13:00:00.000Z",
    (s) => {
      s.user("add bulk import of contacts from csv", R);
      s.tools(CHORES.nest[1]);
      s.say("How should the request body be validated — a DTO class, or a zod schema?");
      s.user(
        "dto + class-validator like every other body",
        D("rule", "project", "Request bodies are DTO classes validated by class-validator.", {
          dup: S.nestDto,
        }),
      );
      s.tools(CHORES.nest[0]);
      s.say("Added ImportContactsDto.");
      s.user(
        "oh but multipart uploads are the exception from now on: the file part is checked by ParseFilePipe, not a DTO",
        D(
          "rule",
          "project",
          "Exception: the file part of a multipart upload is validated with ParseFilePipe, not a DTO.",
          { contra: S.nestDto },
        ),
      );
      s.say("Switched the file part to ParseFilePipe with a max size.");
    },
    [S.nestDto],
  ),
  sc(
    "x30-nest-github-pat",
    "nest",
    "a GitHub token pasted; a hard negative",
    "2026-03-03T16:30:00.000Z",
    (s) => {
      const t = s.secret("githubPat");
      s.userS(
        `the private @crm/shared package needs auth, here's a token: ${t}`,
        [t],
        N("secret"),
      );
      s.say("I'd suggest an .npmrc that reads NODE_AUTH_TOKEN from the environment instead.");
      s.user("just this once put it in the env and install", HN("one-off"));
      s.tools(CHORES.nest[0]);
      s.say("Installed; nothing written to disk.");
    },
  ),
];

const FASTAPI: Script[] = [
  sc(
    "x31-fast-uv-dup",
    "fastapi",
    "a stored rule repeated with a reason; a stored rule repeated in a reply",
    "2026-03-04T09:00:00.000Z",
    (s) => {
      s.user(
        "add shapely. with uv, not pip — pip install broke the lockfile twice last quarter",
        R,
        D("rule", "project", "Add dependencies with uv, never pip install.", { dup: S.fastUv }),
      );
      s.tools(CHORES.fastapi[0]);
      s.say(
        "Added with `uv add shapely`. Should the new endpoint be a sync def since shapely is CPU-bound?",
      );
      s.user(
        "keep it async with the async session, like all handlers; shapely calls go through run_in_threadpool",
        D("rule", "project", "Handlers are async and use the async SQLAlchemy session.", {
          dup: S.fastAsync,
        }),
        D("rule", "project", "CPU-bound shapely calls go through run_in_threadpool."),
      );
      s.say("Done that way.");
    },
    [S.fastUv, S.fastAsync],
  ),
  sc(
    "x32-fast-srid-change",
    "fastapi",
    "a stored fact changed; a new fact on the same topic",
    "2026-03-05T11:45:00.000Z",
    (s) =>
      turns(s, "fastapi", [
        [
          "from the 2.0 schema on, geometries are stored in 3857, not 4326 — the tile queries were spending all their time transforming",
          D(
            "decision",
            "project",
            "Geometries are stored in SRID 3857 from the 2.0 schema on (tile queries spent their time transforming 4326).",
            { contra: S.fastSrid },
          ),
        ],
        [
          "the API still accepts and returns 4326 GeoJSON, conversion happens in app/geo/convert.py",
          D(
            "fact",
            "project",
            "The API accepts and returns GeoJSON in 4326; conversion happens in app/geo/convert.py.",
          ),
        ],
        ["write the migration", R],
      ]),
    [S.fastSrid],
  ),
  sc(
    "x33-fast-spanish-filler",
    "fastapi",
    "stored memories repeated with Spanish filler words",
    "2026-03-03T14:15:00.000Z",
    (s) =>
      turns(s, "fastapi", [
        [
          "bueno, geometrías en 4326 como siempre, vale? add the parks layer",
          R,
          D("fact", "project", "Geometries are stored in SRID 4326.", { dup: S.fastSrid }),
        ],
        [
          "y nada de pip, o sea uv add para todo",
          D("rule", "project", "Use uv for dependencies, not pip.", { dup: S.fastUv }),
        ],
      ]),
    [S.fastSrid, S.fastUv],
  ),
  sc(
    "x34-fast-ordinary",
    "fastapi",
    "setup facts in passing; hard negatives",
    "2026-03-07T10:30:00.000Z",
    (s) =>
      turns(s, "fastapi", [
        [
          "tiles are slow again. (the tile cache is redis on 6380)",
          R,
          D("fact", "project", "The tile cache is Redis on port 6380."),
        ],
        ["it never hits the cache for zoom 14, no idea why", HN("one-off")],
        ["should every tile endpoint always set cache-control?", HN("question")],
        ["for the load test today, don't log every request", HN("one-off")],
      ]),
  ),
  sc(
    "x35-fast-stripe",
    "fastapi",
    "a Stripe live key pasted; a decision with a reason",
    "2026-03-08T15:50:00.000Z",
    (s) => {
      const k = s.secret("stripe");
      s.userS(`billing sandbox is down, try the live key ${k} to check the webhook shape`, [
        k,
      ], N("secret"));
      s.say(
        "I won't call Stripe live with it; I'll use the fixture in tests/fixtures/invoice.json.",
      );
      s.user(
        "fair. we decided billing lives in its own service, so geo-fastapi only ever reads plan limits from the billing API",
        D(
          "decision",
          "project",
          "Billing is a separate service; geo-fastapi only reads plan limits from the billing API.",
        ),
      );
      s.say("Then the webhook handler doesn't belong here; I'll remove the draft.");
    },
  ),
];

const COBOL: Script[] = [
  sc(
    "x36-cobol-dup-reason-window",
    "cobol",
    "stored rules repeated (one with a reason); the batch window changed",
    "2026-03-09T07:30:00.000Z",
    (s) =>
      turns(s, "cobol", [
        [
          "new field for the bonus, COMP-3 with two decimals like every money field — a DISPLAY field cost us a rounding audit once",
          R,
          D("rule", "project", "Money fields are PIC S9(n)V99 COMP-3.", { dup: S.cobolComp3 }),
        ],
        [
          "the nightly window is 00:30 to 05:00 since the DB2 upgrade, plan the reruns for that",
          D("fact", "project", "Batch jobs run in the nightly window from 00:30 to 05:00.", {
            contra: S.cobolWindow,
          }),
        ],
      ]),
    [S.cobolComp3, S.cobolWindow],
  ),
  sc(
    "x37-cobol-review-dup-and-new",
    "cobol",
    "a stored rule repeated in a longer message; a new reviewer added",
    "2026-03-10T10:00:00.000Z",
    (s) =>
      turns(s, "cobol", [
        [
          "when the tax table change is ready it goes to Greta for the payroll sign-off as you know, and now also to Farid from audit for anything touching TAXTBL",
          D("rule", "project", "PAYCALC changes need Greta's payroll sign-off before release.", {
            dup: S.cobolReview,
          }),
          D(
            "rule",
            "project",
            "Changes touching TAXTBL also need sign-off from Farid (audit).",
          ),
        ],
        ["update TAXTBL for the 2026 brackets", R],
      ]),
    [S.cobolReview],
  ),
  sc(
    "x38-cobol-hard-negatives",
    "cobol",
    "hard negatives while fixing an abend; a fact",
    "2026-03-11T13:20:00.000Z",
    (s) =>
      turns(s, "cobol", [
        ["PAYCALC always abends with S0C7 on the march file", HN("one-off")],
        ["maybe a packed field has spaces in it?", HN("hypothesis")],
        [
          "the input files come from the HR system as fixed-width EBCDIC, 400-byte records",
          D(
            "fact",
            "project",
            "Input files from the HR system are fixed-width EBCDIC with 400-byte records.",
          ),
        ],
        ["skip the year-end job for this test", HN("one-off")],
      ]),
  ),
  sc(
    "x39-cobol-window-dup-terse",
    "cobol",
    "a stored fact repeated tersely; a review owner changed",
    "2026-03-08T08:45:00.000Z",
    (s) =>
      turns(s, "cobol", [
        [
          "schedule it in the window, 1-4",
          R,
          D("fact", "project", "The nightly batch window is 01:00 to 04:00.", {
            dup: S.cobolWindow,
          }),
        ],
        [
          "Greta retired, payroll sign-off for PAYCALC is Hanne's now",
          D(
            "rule",
            "project",
            "PAYCALC changes need sign-off from Hanne (payroll) before release.",
            {
              contra: S.cobolReview,
            },
          ),
        ],
      ]),
    [S.cobolWindow, S.cobolReview],
  ),
];

const SOLID: Script[] = [
  sc(
    "x40-solid-dup-store",
    "solid",
    "stored memories repeated with markers; a new rule on the same topic",
    "2026-03-13T09:15:00.000Z",
    (s) =>
      turns(s, "solid", [
        [
          "the swimlanes go in the board store, createStore as usual, no signals in context",
          R,
          D("rule", "project", "Shared board state uses createStore, not signals in context.", {
            dup: S.solidStore,
          }),
        ],
        [
          "and store updates go through produce() or path setters, never mutate a copy and set it back",
          D(
            "rule",
            "project",
            "Store updates use produce() or path setters; never replace the state with a mutated copy.",
          ),
        ],
        [
          "biome format before commit, like I said",
          D("fact", "project", "solid-kanban is formatted and linted with Biome.", {
            dup: S.solidBiome,
          }),
        ],
      ]),
    [S.solidStore, S.solidBiome],
  ),
  sc(
    "x41-solid-linter-change",
    "solid",
    "a stored tool replaced by two; a duplicate abbreviated",
    "2026-03-14T11:30:00.000Z",
    (s) =>
      turns(s, "solid", [
        [
          "we went back to eslint + prettier — biome doesn't do the solid plugin rules and we missed two reactivity bugs",
          D(
            "decision",
            "project",
            "solid-kanban uses ESLint (with the Solid plugin) and Prettier instead of Biome.",
            { contra: S.solidBiome },
          ),
        ],
        [
          "board state: createStore, ofc",
          D("rule", "project", "Board state is kept in a createStore.", { dup: S.solidStore }),
        ],
        ["set up the eslint config", R],
      ]),
    [S.solidBiome, S.solidStore],
  ),
  sc(
    "x42-solid-npm-token",
    "solid",
    "an npm token inside a rule; hard negatives",
    "2026-03-15T14:00:00.000Z",
    (s) => {
      const t = s.secret("npm");
      s.userS(
        `we publish @kanban/ui from CI only, with NPM_TOKEN=${t} stored in the repo secrets`,
        [t],
        D(
          "rule",
          "project",
          "@kanban/ui is published from CI only, with the npm token kept in the repo secrets.",
          {
            secret: true,
          },
        ),
      );
      s.say("Understood; I won't publish from here.");
      s.user("the drag preview never shows up in firefox", HN("one-off"));
      s.tools(CHORES.solid[0]);
      s.say("Firefox needs setDragImage called synchronously; fixed in dnd.ts.");
    },
  ),
];

const MIXED: Script[] = [
  sc(
    "x43-remix-global-prefs-dup",
    "remix",
    "global working preferences, one stored and repeated",
    "2026-03-16T09:00:00.000Z",
    (s) =>
      turns(s, "remix", [
        [
          "as you know I want plans before code for anything over ~50 lines. and please answer in short bullets, not essays",
          D(
            "preference",
            "global",
            "Propose a plan before writing code for changes over about 50 lines.",
            {
              dup: "Propose a plan before writing any change longer than about 50 lines.",
            },
          ),
          D("preference", "global", "Answers in short bullet points, not long prose."),
        ],
        ["ok plan the trip sharing feature", R],
      ]),
    ["Propose a plan before writing any change longer than about 50 lines."],
  ),
  sc(
    "x44-prom-long-mixed",
    "prom",
    "a longer session: stored rules repeated, new facts on the same topics, hard negatives",
    "2026-03-17T10:00:00.000Z",
    (s) =>
      turns(s, "prom", [
        ["let's clean up the node alerts", R],
        [
          "first: for: 5m at least on paging alerts, I know, I know, you know that already",
          D("rule", "project", "Paging alerts need for: of 5 minutes or more.", {
            dup: S.promFor,
          }),
        ],
        ["NodeDiskFull is firing on the backup hosts every night", HN("one-off")],
        [
          'backup hosts can be excluded from NodeDiskFull, they fill up by design — add instance!~"backup-.*"',
          R,
          D(
            "fact",
            "project",
            "The backup-* hosts fill their disks by design and are excluded from NodeDiskFull.",
          ),
        ],
        [
          "runbooks: required on every alert, and fyi the runbooks themselves live in the wiki under ops/runbooks, not in this repo",
          D("rule", "project", "Every alert has a runbook_url.", { dup: S.promRunbook }),
          D(
            "fact",
            "project",
            "Runbooks live in the wiki under ops/runbooks, not in this repository.",
          ),
        ],
        ["maybe we should page on disk at 90 instead of 95?", HN("question")],
        ["ok run promtool", R],
      ]),
    [S.promFor, S.promRunbook],
  ),
];

export const HOLDOUT7: Script[] = [
  ...REMIX,
  ...FORTRAN,
  ...LIQUID,
  ...KTOR,
  ...PROM,
  ...ERL,
  ...NEST,
  ...FASTAPI,
  ...COBOL,
  ...SOLID,
  ...MIXED,
];
