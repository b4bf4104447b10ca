/**
 * Hand-written sessions of the capture benchmark's `holdout11` split: written blind on 2026-11-29
 * by a helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs pages
 * or results (nor the main checkout or any other helper's worktree), registered as unrun before it
 * was written and frozen before any run against it. About half of its 44 sessions have stored
 * memories, which the user repeats (often in other words), changes, or extends with a new
 * statement on the same topic; the others are ordinary sessions with rules, decisions, setup facts
 * in passing, global preferences, hard negatives and pasted secrets. Ten projects new to the data
 * set: a Django REST API, a SvelteKit site, an OCaml formatter, an R targets analysis, a JUCE
 * audio plugin, a NixOS flake fleet, a LÖVE game, Zephyr firmware, a Next.js + Prisma app and a
 * Symfony HR portal.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) or a look-alike that states no rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout11 split's projects. */
const P = {
  dj: "/home/oksana/code/permitdesk-api",
  sk: "/Users/lena/web/harborlights-site",
  ml: "/home/yusuf/ocaml/camlfmt",
  rr: "/home/ines/research/bird-survey-r",
  jc: "/Users/marco/audio/driftverb-plugin",
  nx: "/home/bjorn/nixos-fleet",
  lv: "/home/sasha/games/pixel-harbor",
  zf: "/home/tomas/zephyr/hive-scale-fw",
  nj: "/Users/grace/dev/invoicely-next",
  sy: "/home/ahmed/php/staffroom-symfony",
} as const;
type Proj = keyof typeof P;

const WORK: Record<Proj, ToolStep[]> = {
  dj: [
    bash(
      "pytest permits -q",
      "..............................................                          [100%]\n46 passed in 8.02s",
    ),
    read(
      `${P.dj}/permits/views.py`,
      'from rest_framework import viewsets, permissions\n\nfrom .models import Permit\nfrom .serializers import PermitSerializer\n\n\nclass PermitViewSet(viewsets.ModelViewSet):\n    queryset = Permit.objects.select_related("applicant")\n    serializer_class = PermitSerializer\n    permission_classes = [permissions.IsAuthenticated]',
    ),
  ],
  sk: [
    bash(
      "pnpm vitest run src/lib",
      " ✓ src/lib/dates.test.ts (6 tests) 21ms\n ✓ src/lib/events.test.ts (9 tests) 48ms\n\n Test Files  2 passed (2)\n      Tests  15 passed (15)",
    ),
    read(
      `${P.sk}/src/routes/events/+page.server.ts`,
      'import { client } from "$lib/sanity";\nimport type { PageServerLoad } from "./$types";\n\nexport const load: PageServerLoad = async () => {\n  const events = await client.fetch(`*[_type == "event"] | order(date asc)`);\n  return { events };\n};',
    ),
  ],
  ml: [
    bash(
      "dune build @runtest",
      'File "test/cram/let_in.t", line 1, characters 0-0:\nDone: 212/212 (jobs: 2)',
    ),
    read(
      `${P.ml}/lib/camlfmt.ml`,
      "let format ?(profile = Profile.default) source =\n  match Parse.implementation source with\n  | Error e -> Error (`Parse e)\n  | Ok ast -> Ok (Printer.structure profile ast)",
    ),
  ],
  rr: [
    bash(
      "Rscript -e 'targets::tar_make()'",
      "✔ skipped target raw_counts\n✔ skipped target sites\n▶ dispatched target model_fit\n● completed target model_fit [41.2 seconds]\n▶ ended pipeline [43.9 seconds]",
    ),
    read(
      `${P.rr}/_targets.R`,
      'library(targets)\ntar_option_set(packages = c("dplyr", "readr", "glmmTMB"))\ntar_source("R")\n\nlist(\n  tar_target(raw_file, "data/raw/counts_2025.csv", format = "file"),\n  tar_target(raw_counts, read_counts(raw_file)),\n  tar_target(model_fit, fit_counts(raw_counts))\n)',
    ),
  ],
  jc: [
    bash(
      "cmake --build build --target DriftVerb_VST3 -j8 2>&1 | tail -3",
      "[98%] Linking CXX shared module DriftVerb.vst3/Contents/MacOS/DriftVerb\n[100%] Built target DriftVerb_VST3",
    ),
    read(
      `${P.jc}/Source/PluginProcessor.cpp`,
      'void DriftVerbProcessor::processBlock (juce::AudioBuffer<float>& buffer, juce::MidiBuffer&)\n{\n    juce::ScopedNoDenormals noDenormals;\n    const auto size = params.getRawParameterValue ("size")->load();\n    reverb.setSize (size);\n    reverb.process (buffer);\n}',
    ),
  ],
  nx: [
    bash(
      "nix flake check 2>&1 | tail -3",
      "checking NixOS configuration 'nixosConfigurations.atlas'...\nchecking NixOS configuration 'nixosConfigurations.borealis'...\nall checks passed",
    ),
    read(
      `${P.nx}/hosts/borealis/default.nix`,
      '{ config, pkgs, ... }:\n{\n  imports = [ ../../modules/common.nix ./hardware.nix ];\n  networking.hostName = "borealis";\n  services.grafana.enable = true;\n  boot.zfs.extraPools = [ "tank" ];\n}',
    ),
  ],
  lv: [
    bash(
      "busted spec",
      "●●●●●●●●●●●●●●●●●●\n18 successes / 0 failures / 0 errors / 0 pending : 0.094 seconds",
    ),
    read(
      `${P.lv}/src/systems/movement.lua`,
      'local tiny = require("lib.tiny")\n\nlocal Movement = tiny.processingSystem()\nMovement.filter = tiny.requireAll("pos", "vel")\n\nfunction Movement:process(e, dt)\n  e.pos.x = e.pos.x + e.vel.x * dt\n  e.pos.y = e.pos.y + e.vel.y * dt\nend\n\nreturn Movement',
    ),
  ],
  zf: [
    bash(
      "west build -b hive_scale_v2 app -- -DEXTRA_CONF_FILE=debug.conf 2>&1 | tail -4",
      "Memory region         Used Size  Region Size  %age Used\n           FLASH:      198432 B         1 MB     18.92%\n             RAM:       61240 B       256 KB     23.36%\n[312/312] Linking C executable zephyr/zephyr.elf",
    ),
    read(
      `${P.zf}/app/src/scale.c`,
      '#include <zephyr/kernel.h>\n#include <zephyr/logging/log.h>\n#include "hx711.h"\n\nLOG_MODULE_REGISTER(scale, LOG_LEVEL_INF);\n\nint scale_read_grams(int32_t *out)\n{\n\thx711_power_up();\n\tint err = hx711_read(out);\n\thx711_power_down();\n\treturn err;\n}',
    ),
  ],
  nj: [
    bash(
      "pnpm vitest run app/invoices",
      " ✓ app/invoices/actions.test.ts (7 tests) 133ms\n ✓ app/invoices/totals.test.ts (12 tests) 19ms\n\n Test Files  2 passed (2)\n      Tests  19 passed (19)",
    ),
    read(
      `${P.nj}/app/invoices/[id]/page.tsx`,
      'import { prisma } from "@/lib/prisma";\nimport { notFound } from "next/navigation";\n\nexport default async function InvoicePage({ params }: { params: { id: string } }) {\n  const invoice = await prisma.invoice.findUnique({ where: { id: params.id }, include: { lines: true } });\n  if (!invoice) notFound();\n  return <InvoiceView invoice={invoice} />;\n}',
    ),
  ],
  sy: [
    bash(
      "php bin/phpunit --testsuite unit",
      "PHPUnit 10.5.20 by Sebastian Bergmann and contributors.\n\n...............................................   47 / 47 (100%)\n\nTime: 00:01.912, Memory: 38.00 MB\n\nOK (47 tests, 121 assertions)",
    ),
    read(
      `${P.sy}/src/Entity/Employee.php`,
      "<?php\n\nnamespace App\\Entity;\n\nuse Doctrine\\ORM\\Mapping as ORM;\n\n#[ORM\\Entity(repositoryClass: EmployeeRepository::class)]\nclass Employee\n{\n    #[ORM\\Id, ORM\\GeneratedValue, ORM\\Column]\n    private ?int $id = null;\n\n    #[ORM\\Column(length: 120)]\n    private string $fullName;\n}",
    ),
  ],
};

const ACK = [
  "Done; the suite passes.",
  "Changed it and re-ran the checks.",
  "That's done.",
  "Updated — small diff, nothing else touched.",
  "OK, in place now.",
  "Finished. Let me know if you want it different.",
  "Done and verified locally.",
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
  const versions = ["2.0.31", "2.0.37", "1.0.96", "2.0.25", "2.0.34", "2.0.19"];
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
  djPy: "permitdesk-api runs on Python 3.11 and Django 4.2 LTS.",
  djSer:
    "API views are DRF ModelViewSets with an explicit serializer class; no function-based @api_view views.",
  djTests: "Tests build their data with factory_boy factories, not JSON fixtures.",
  djCelery: "Background jobs run on Celery with Redis as the broker.",
  djOwner: "Oksana reviews every change to the permits/fees module.",
  djPag: "List endpoints use cursor pagination with 50 items per page.",
  skAdapter: "harborlights-site is deployed to Cloudflare Pages with adapter-cloudflare.",
  skCss: "Styling uses Tailwind utility classes; components have no <style> blocks.",
  skCms: "Event content and images come from the Sanity dataset production.",
  skSvelte: "The site is on Svelte 4 with writable stores; runes are not used.",
  mlOcaml: "camlfmt builds with OCaml 5.1 and dune 3.12.",
  mlTests: "Formatter behaviour is tested with dune cram tests under test/cram/.",
  mlErr: "Library functions return Result for parse errors; no exception escapes the library.",
  mlDeps: "The library depends only on the stdlib and ppxlib (no Core/Base).",
  rrData: "Raw survey data in data/raw/ is never edited; corrections are made in code.",
  rrStyle: "R code follows the tidyverse style guide and is formatted with styler.",
  rrR: "The analysis uses R 4.3.",
  rrRenv: "Package versions are pinned with renv and renv.lock is committed.",
  jcRt: "Nothing on the audio thread (processBlock) allocates memory or takes a lock.",
  jcJuce: "driftverb-plugin is built on JUCE 7 with CMake; there is no Projucer file.",
  jcCxx: "The code base is C++17.",
  jcFormats: "The plugin ships as VST3 and AU only; no AAX.",
  nxChan: "The flake's nixpkgs input follows nixos-24.05.",
  nxFmt: "Nix files are formatted with nixfmt-rfc-style.",
  nxSecrets: "Secrets are managed with agenix; no plaintext secret may end up in the Nix store.",
  nxDeploy: "Hosts are deployed with deploy-rs from the flake.",
  nxHosts: "The fleet has three hosts: atlas, borealis and cygnus.",
  lvEcs: "Game entities are tiny-ecs entities with components, not ad-hoc tables.",
  lvRes: "The game renders to a 320x180 canvas scaled up with nearest-neighbour filtering.",
  lvLove: "pixel-harbor targets LÖVE 11.5.",
  lvOwner: "Sasha makes all the pixel art; nobody else edits the sprites.",
  zfLog: "Logging uses Zephyr's LOG_MODULE_REGISTER and LOG_* macros, never printk.",
  zfPower: "The HX711 load cell is powered down between readings.",
  zfSdk: "hive-scale-fw builds with nRF Connect SDK 2.6.",
  zfInterval: "The scale reports its weight over LoRaWAN every 15 minutes.",
  zfBoard: "The target board is the custom nRF52840 board hive_scale_v2.",
  zfFmt: "C code is formatted with the repository's .clang-format (Zephyr style).",
  njOrm: "Database access goes through the Prisma client; no raw SQL in app code.",
  njPm: "The repository uses pnpm, not npm or yarn.",
  njHost: "The app runs on Vercel and the database is Neon Postgres.",
  njAuth: "Auth is Auth.js (NextAuth v5) with the GitHub and email magic-link providers.",
  njMoney: "Money amounts are stored as integer cents.",
  njRouter: "invoicely-next uses the App Router (app/); there is no pages/ directory.",
  syDoctrine:
    "Schema changes are Doctrine migrations; doctrine:schema:update is never run on a server.",
  syStan: "PHPStan runs at level 8 and must pass.",
  syPhp: "staffroom-symfony runs on PHP 8.2 and Symfony 6.4 LTS.",
  syMsg: "Emails are sent asynchronously through Symfony Messenger.",
  gTests: "Run the test suite before saying a change is done.",
  gBranch: "Branch names start with the ticket id (e.g. HR-123-short-name).",
} as const;

const DJ: Script[] = [
  sc(
    "n01-dj-viewset-synonym",
    "dj",
    "a stored view rule repeated in other words; a stored test rule changed; a new permission rule",
    "2026-10-01T08:20:00.000Z",
    (s) =>
      turns(s, "dj", [
        ["inspectors need an endpoint listing the permits assigned to them", R],
        [
          "build it like the rest of the api: a viewset class with its own serializer, none of those decorated function views please",
          D(
            "rule",
            "project",
            "Endpoints are DRF ViewSets with their own serializer class, not @api_view functions.",
            { dup: S.djSer },
          ),
        ],
        [
          "for the tests — we've moved away from factory_boy, it got too magic. plain pytest fixtures in conftest.py that create the rows are the way now",
          D(
            "rule",
            "project",
            "Test data comes from plain pytest fixtures in conftest.py, not factory_boy factories.",
            { contra: S.djTests },
          ),
        ],
        [
          "and any endpoint that hands out an applicant's personal data needs the IsCaseworker permission. no exceptions, that's a GDPR thing for us",
          D(
            "rule",
            "project",
            "Every endpoint returning an applicant's personal data requires the IsCaseworker permission (GDPR).",
          ),
        ],
      ]),
    [S.djSer, S.djTests],
  ),
  sc(
    "n02-dj-django51",
    "dj",
    "a stored version changed; a stored broker repeated as the answer to the agent's question",
    "2026-10-02T13:05:00.000Z",
    (s) => {
      s.user(
        "we finished the upgrade to Django 5.1 on python 3.12 last sprint, so go ahead and use GeneratedField for the permit's total_fee instead of the property",
        R,
        D("fact", "project", "permitdesk-api runs on Django 5.1 and Python 3.12.", {
          contra: S.djPy,
        }),
      );
      ask(
        s,
        "dj",
        "GeneratedField is in. The permit PDF takes ~4 s to render — should I move it out of the request into a background job?",
        1,
      );
      s.user(
        "yes, a celery task. broker's redis, as always",
        D("fact", "project", "Background work runs as Celery tasks with a Redis broker.", {
          dup: S.djCelery,
        }),
      );
      s.tools(WORK.dj[0]);
      s.say("The PDF is rendered by render_permit_pdf.delay(); the view returns 202.");
    },
    [S.djPy, S.djCelery],
  ),
  sc(
    "n03-dj-staging-facts",
    "dj",
    "a setup fact in passing inside a request; hard negatives",
    "2026-10-03T09:40:00.000Z",
    (s) =>
      turns(s, "dj", [
        [
          "uploads over 10MB fail on staging. the staging db is postgres 15 behind pgbouncer on db-staging.permitdesk.internal:6432 if you need to look at the rows",
          R,
          D(
            "fact",
            "project",
            "Staging's database is Postgres 15 behind PgBouncer at db-staging.permitdesk.internal:6432.",
          ),
        ],
        [
          "while you're in permits/migrations: every RunPython gets a reverse_code. we roll back staging a lot",
          D("rule", "project", "Every RunPython data migration has a reverse_code."),
        ],
        ["it always 500s right at the end of the upload, never halfway", HN("one-off")],
        ["maybe nginx's client_max_body_size is still at the default?", HN("hypothesis")],
        ["for this PR only, turn off the upload throttle so QA can hammer it", HN("one-off")],
        ["should every viewset always set a throttle_scope?", HN("question")],
      ]),
  ),
  sc(
    "n04-dj-aws-keys",
    "dj",
    "AWS keys pasted for a one-off test; a storage fact and a rule in later turns",
    "2026-10-06T15:10:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `try the scan upload against the real bucket once, my personal keys, I rotate them tonight:\nAWS_ACCESS_KEY_ID=${id}\nAWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(WORK.dj[0]);
      s.say("The upload works against the bucket; the object lands with private ACL.");
      turns(s, "dj", [
        [
          "good. fyi scans live in the permitdesk-scans bucket in eu-central-1 and the frontend only ever gets signed urls, 15 min expiry",
          D(
            "fact",
            "project",
            "Scanned documents are in the S3 bucket permitdesk-scans (eu-central-1), served only through signed URLs that expire after 15 minutes.",
          ),
        ],
        [
          "and nothing in that bucket is ever public-read. not even thumbnails",
          D("rule", "project", "No object in the scans bucket is ever made public-read."),
        ],
        ["can you remove my keys from your shell history?", Q],
      ]);
    },
  ),
  sc(
    "n05-dj-fees-handover",
    "dj",
    "a stored reviewer changed; a stored pagination rule repeated casually; a new rule on fees",
    "2026-10-07T10:25:00.000Z",
    (s) =>
      turns(s, "dj", [
        [
          "context: Oksana moved to the GIS team, so Daniel is the reviewer for anything under permits/fees from now on. new endpoint: GET /fees/schedules",
          R,
          D("fact", "project", "Daniel reviews every change to the permits/fees module.", {
            contra: S.djOwner,
          }),
        ],
        [
          "paginate it the way every list here is paginated, cursor based, 50 a page",
          D("rule", "project", "List endpoints paginate with a cursor, 50 per page.", {
            dup: S.djPag,
          }),
        ],
        [
          "fee amounts are integer cents in the db and in the json. never floats, never Decimal strings",
          D(
            "rule",
            "project",
            "Fee amounts are integer cents in the database and the API, never floats or decimal strings.",
          ),
        ],
        ["push it and open the PR against develop", R],
      ]),
    [S.djOwner, S.djPag],
  ),
];

const SK: Script[] = [
  sc(
    "n06-sk-svelte5-runes",
    "sk",
    "a stored framework version reversed; a stored styling rule repeated negated",
    "2026-10-08T08:00:00.000Z",
    (s) =>
      turns(s, "sk", [
        [
          "the newsletter signup box needs a success state. btw we're on svelte 5 since friday's merge, so anything new uses runes — $state, not writable stores",
          R,
          D(
            "rule",
            "project",
            "The site is on Svelte 5; new code uses runes ($state) instead of writable stores.",
            { contra: S.skSvelte },
          ),
        ],
        [
          "don't put a <style> block in the component, just tailwind classes on the elements",
          D("rule", "project", "Components are styled with Tailwind classes, not <style> blocks.", {
            dup: S.skCss,
          }),
        ],
        ["looks off on safari, the button overlaps the input", R],
      ]),
    [S.skSvelte, S.skCss],
  ),
  sc(
    "n07-sk-vercel-move",
    "sk",
    "a stored CMS fact repeated inside a request; a stored host changed as the answer to a question",
    "2026-10-09T11:30:00.000Z",
    (s) => {
      s.user(
        "the event images are huge and the page crawls. they come straight out of sanity, production dataset like all our content, so use their url builder with a width param",
        R,
        D(
          "fact",
          "project",
          "Event content and images are served from Sanity's production dataset.",
          {
            dup: S.skCms,
          },
        ),
      );
      ask(
        s,
        "sk",
        "Added the image URL builder. Cloudflare Pages has its own image resizing — want me to use that as well?",
        1,
      );
      s.user(
        "no, we left cloudflare pages last month. it's on vercel now, adapter-vercel is already in the package.json",
        D("fact", "project", "harborlights-site is deployed on Vercel with adapter-vercel.", {
          contra: S.skAdapter,
        }),
      );
      s.tools(WORK.sk[0]);
      s.say("Removed the leftover wrangler.toml; the build uses adapter-vercel.");
    },
    [S.skCms, S.skAdapter],
  ),
  sc(
    "n08-sk-terse-typos",
    "sk",
    "terse messages with typos; rules with a reason; a descriptive never",
    "2026-10-10T17:45:00.000Z",
    (s) =>
      turns(s, "sk", [
        ["fix teh footer links on mobile, they wrap weird", R],
        [
          "prerender evrything under /blog. always. its all static md",
          D("rule", "project", "Every page under /blog is prerendered."),
        ],
        [
          "node 20 for local dev pls — the pnpm lockfile breaks on 22",
          D("rule", "project", "Local development uses Node 20 (the pnpm lockfile breaks on 22)."),
        ],
        [
          "add the plausible snippet to the events page too. its self hosted at stats.harborlights.org",
          R,
          D("fact", "project", "Analytics is a self-hosted Plausible at stats.harborlights.org."),
        ],
        ["it never builds on my windows box lol", HN("one-off")],
        ["k ship it", R],
      ]),
  ),
  sc(
    "n09-sk-types-confirm",
    "sk",
    "a confirmed agent proposal; hard negatives",
    "2026-10-12T10:10:00.000Z",
    (s) => {
      s.user("the event and venue types are defined three times. clean that up", R);
      ask(
        s,
        "sk",
        "I moved Event, Venue and Ticket into src/lib/types.ts and import them from there. Should shared types always go in that file from now on?",
      );
      s.confirm(
        "yep, always there",
        "rule",
        "project",
        "Shared TypeScript types live in src/lib/types.ts.",
      );
      turns(s, "sk", [
        ["just this once skip the playwright run, CI runners are down", HN("one-off")],
        ["why does vite keep re-optimizing deps on every restart?", Q],
      ], 1);
    },
  ),
];

const ML: Script[] = [
  sc(
    "n10-ml-check-flag",
    "ml",
    "a stored error rule repeated negated; a narrower new test rule beside a stored one",
    "2026-10-13T09:00:00.000Z",
    (s) =>
      turns(s, "ml", [
        ["add a --check flag: exit 1 if the file would change, print nothing", R],
        [
          "each cli flag gets its own .t file in test/cram, don't pile them into one big cram file",
          D("rule", "project", "Each CLI flag gets its own cram test file under test/cram/."),
        ],
        [
          "and a parse failure must not raise out of Camlfmt.format — hand back an Error like the rest of the lib does",
          D(
            "rule",
            "project",
            "Parse failures are returned as Error values; no exception escapes the library.",
            { dup: S.mlErr },
          ),
        ],
      ]),
    [S.mlTests, S.mlErr],
  ),
  sc(
    "n11-ml-ocaml52",
    "ml",
    "a stored compiler version changed; a stored dependency rule repeated as a reply; a new rule",
    "2026-10-14T14:20:00.000Z",
    (s) => {
      s.user(
        "I bumped us to ocaml 5.2, the opam file says >= 5.2 now. the new warning 74 fires in printer.ml, please clean it up",
        R,
        D("fact", "project", "camlfmt requires OCaml 5.2 or later.", { contra: S.mlOcaml }),
      );
      ask(
        s,
        "ml",
        "Warnings fixed. For the whitespace trimming, could I pull in Base's String.strip?",
        1,
      );
      s.user(
        "no Base, no Core. stdlib plus ppxlib is the entire dependency list and it stays that way",
        D("rule", "project", "Dependencies are only the stdlib and ppxlib; no Base or Core.", {
          dup: S.mlDeps,
        }),
      );
      s.tools(WORK.ml[0]);
      s.say("Wrote a small strip helper in Util.");
      turns(s, "ml", [
        [
          "while you're in there: AST walks go through Ppxlib's Ast_traverse classes, not hand-rolled recursion over every constructor",
          D(
            "rule",
            "project",
            "Walks over the AST use Ppxlib's Ast_traverse, not hand-written recursion.",
          ),
        ],
      ]);
    },
    [S.mlOcaml, S.mlDeps],
  ),
  sc(
    "n12-ml-pasted-error",
    "ml",
    "a compiler error pasted as content blocks with a CI fact after it; hard negatives",
    "2026-10-15T08:50:00.000Z",
    (s) => {
      s.userBlocks(
        [
          'File "lib/printer.ml", line 214, characters 4-31:\n214 |     | Pexp_letop { let_; ands; body } ->\n          ^^^^^^^^^^^^^^^^^^^^^^^^^^^\nError (warning 8 [partial-match]): this pattern-matching is not exhaustive.\nHere is an example of a case that is not matched:\nPexp_extension _',
          "CI is red because of that. fyi CI is github actions with ocaml/setup-ocaml, matrix linux + macos",
        ],
        R,
        D(
          "fact",
          "project",
          "CI runs on GitHub Actions with ocaml/setup-ocaml on a Linux and macOS matrix.",
        ),
      );
      s.tools(WORK.ml[1]);
      s.say("Added the Pexp_extension case; it prints the extension node verbatim.");
      turns(s, "ml", [
        ["it always mangles a comment that sits right after `in`", HN("one-off")],
        ["is the lexer dropping the trailing comment before we even print?", HN("hypothesis")],
        ["add a cram case for that and fix it", R],
      ]);
    },
  ),
  sc(
    "n13-ml-release-token",
    "ml",
    "a decision with its reason; a GitHub token pasted for a one-off release",
    "2026-10-16T16:00:00.000Z",
    (s) => {
      turns(s, "ml", [
        [
          "we decided the output must not change between versions: any formatting change ships behind a new --profile name. otherwise every editor reformats whole repos on upgrade",
          D(
            "decision",
            "project",
            "Formatting output is stable across versions; changes ship only behind a new --profile name.",
          ),
        ],
      ]);
      const tok = s.secret("github");
      s.userS(
        `cut 0.9.0 with dune-release. my token for the github release step, use it this one time: ${tok}`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(WORK.ml[0]);
      s.say("Tagged 0.9.0, the GitHub release is up and the opam PR is opened.");
      turns(s, "ml", [
        [
          "for the record, releases only ever go out through dune-release from a signed tag, no hand-made github releases",
          D(
            "rule",
            "project",
            "Releases are made with dune-release from a signed tag, never by hand on GitHub.",
          ),
        ],
        ["how long does opam-repository CI usually take?", Q],
      ]);
    },
  ),
];

const RR: Script[] = [
  sc(
    "n14-rr-raw-data-story",
    "rr",
    "a stored raw-data rule repeated with a story; a stored formatter repeated with a marker",
    "2026-10-19T09:15:00.000Z",
    (s) =>
      turns(s, "rr", [
        [
          "site C14 in the 2025 counts says 4000 swallows, it's 40. fix it, but obviously not by touching the csv in data/raw — add a corrections step in the pipeline. we lost a whole season's provenance once because someone 'fixed' the raw file",
          R,
          D(
            "rule",
            "project",
            "Files in data/raw/ are not edited; corrections happen in a pipeline step.",
            { dup: S.rrData },
          ),
        ],
        [
          "run styler over it before committing, tidyverse style as usual",
          D("rule", "project", "Code is formatted with styler in tidyverse style.", {
            dup: S.rrStyle,
          }),
        ],
        ["rerun the model target after the fix", R],
      ]),
    [S.rrData, S.rrStyle],
  ),
  sc(
    "n15-rr-r44-cluster",
    "rr",
    "a stored R version changed; a stored renv rule repeated in a parenthesis; a cluster fact",
    "2026-10-20T13:30:00.000Z",
    (s) =>
      turns(s, "rr", [
        [
          "i'm on R 4.4 now and so is the cluster, please bump the lockfile (and yes, renv.lock goes in git, don't gitignore it like last time)",
          R,
          D("fact", "project", "The analysis uses R 4.4.", { contra: S.rrR }),
          D("rule", "project", "renv.lock is committed to git.", { dup: S.rrRenv }),
        ],
        [
          "the big fits run on the uni's slurm cluster, hawk, in the 'short' partition. write me a sbatch wrapper for tar_make",
          R,
          D(
            "fact",
            "project",
            "Large model fits run on the university's Slurm cluster hawk, partition short.",
          ),
        ],
      ]),
    [S.rrR, S.rrRenv],
  ),
  sc(
    "n16-rr-researcher-chatty",
    "rr",
    "a chatty researcher: a decision with its reason and a figure rule; hard negatives",
    "2026-10-21T10:05:00.000Z",
    (s) =>
      turns(s, "rr", [
        [
          "Hi! So for the reviewers: we model the counts with a negative binomial in glmmTMB, not poisson — the overdispersion was massive and reviewer 2 asked about exactly that last round. Could you add a short section to the methods Rmd explaining that?",
          R,
          D(
            "decision",
            "project",
            "Counts are modelled with a negative binomial glmmTMB, not Poisson, because of overdispersion.",
          ),
        ],
        [
          "Also, figures for the paper always get exported as PDF at 180 mm wide, that's the journal's full column width",
          D("rule", "project", "Paper figures are exported as PDF, 180 mm wide."),
        ],
        [
          "Oh and refs.bib is exported from Zotero with Better BibTeX, so please never edit it by hand — add the glmmTMB citation in Zotero and I'll re-export",
          R,
          D(
            "rule",
            "project",
            "refs.bib is exported from Zotero with Better BibTeX and is never edited by hand.",
          ),
        ],
        ["should we always drop sites with fewer than three visits?", HN("question")],
        ["maybe detection differs between observers and that's the noise?", HN("hypothesis")],
        ["for the draft tonight just leave the appendix tables unformatted", HN("one-off")],
      ]),
  ),
  sc(
    "n17-rr-ebird-token",
    "rr",
    "a hex token pasted next to a TOKEN name; a rule about where it belongs",
    "2026-10-22T15:40:00.000Z",
    (s) => {
      const tok = s.secret("hex");
      s.userS(
        `pull the ebird taxonomy through their api so the species codes match. EBIRD_API_TOKEN=${tok}`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(WORK.rr[0]);
      s.say("The taxonomy target downloads and caches the 2025 checklist.");
      turns(s, "rr", [
        [
          "api tokens live in ~/.Renviron and get read with Sys.getenv, never typed into a script in this repo",
          D(
            "rule",
            "project",
            "API tokens are kept in ~/.Renviron and read with Sys.getenv, never written into scripts.",
          ),
        ],
        ["does targets cache the download or refetch each run?", Q],
      ]);
    },
  ),
];

const JC: Script[] = [
  sc(
    "n18-jc-freeze-rt",
    "jc",
    "a stored real-time rule repeated with a concrete instance; a new parameter rule",
    "2026-10-23T08:30:00.000Z",
    (s) =>
      turns(s, "jc", [
        ["add a freeze toggle to the reverb, holds the tail forever", R],
        [
          "and don't new up a buffer inside processBlock for it — size it in prepareToPlay. nothing that mallocs or grabs a mutex in the callback",
          D(
            "rule",
            "project",
            "processBlock never allocates or locks; buffers are sized in prepareToPlay.",
            { dup: S.jcRt },
          ),
        ],
        [
          "every parameter that changes gain or a delay time gets a juce::SmoothedValue, otherwise automation zips",
          D(
            "rule",
            "project",
            "Parameters that change gain or delay time are smoothed with juce::SmoothedValue.",
          ),
        ],
      ]),
    [S.jcRt],
  ),
  sc(
    "n19-jc-juce8-cxx20",
    "jc",
    "two stored facts changed in one message",
    "2026-10-26T11:50:00.000Z",
    (s) =>
      turns(s, "jc", [
        [
          "moved us to juce 8 this week (still cmake, nothing else changed there) and bumped the standard to c++20, so std::span and designated initializers are fair game. tidy up the DSP code with that",
          R,
          D("fact", "project", "driftverb-plugin is built on JUCE 8 with CMake.", {
            contra: S.jcJuce,
          }),
          D("fact", "project", "The code base is C++20.", { contra: S.jcCxx }),
        ],
        ["the new font rendering looks blurry on the knob labels, can you check", R],
      ]),
    [S.jcJuce, S.jcCxx],
  ),
  sc(
    "n20-jc-aax-deal",
    "jc",
    "a stored format rule reversed with its reason; release facts and a rule",
    "2026-10-27T14:15:00.000Z",
    (s) =>
      turns(s, "jc", [
        [
          "news: we're adding AAX. a post house signed up and needs pro tools, so from 2.0 on we ship VST3, AU and AAX",
          D(
            "decision",
            "project",
            "From 2.0 the plugin ships as VST3, AU and AAX.",
            { contra: S.jcFormats },
          ),
        ],
        [
          "mac builds get signed and notarized on the release mac mini in the office only, CI just produces unsigned artifacts",
          D(
            "fact",
            "project",
            "Mac builds are signed and notarized only on the office release Mac mini; CI makes unsigned artifacts.",
          ),
        ],
        [
          "pluginval at strictness 10 has to pass before anything gets released",
          D("rule", "project", "pluginval at strictness level 10 must pass before a release."),
        ],
        ["set up the aax target in cmake, the sdk is in ~/SDKs/aax-sdk-2-8", R],
      ]),
    [S.jcFormats],
  ),
  sc(
    "n21-jc-hard-negatives",
    "jc",
    "mostly hard negatives around one real rule",
    "2026-10-28T19:20:00.000Z",
    (s) =>
      turns(s, "jc", [
        ["it always crackles when I automate the size knob in reaper", HN("one-off")],
        ["for this debugging session, log every block size to /tmp/blocks.txt", HN("one-off")],
        ["should we always oversample the modulation path?", HN("question")],
        ["probably the smoothing time is just too short", HN("hypothesis")],
        [
          "ok. the UI never touches the processor directly, it goes through the APVTS attachments. that's how we avoid the data races",
          D(
            "rule",
            "project",
            "The editor talks to the processor only through APVTS attachments, never directly.",
          ),
        ],
      ]),
  ),
  sc(
    "n22-jc-notary-password",
    "jc",
    "an app-specific password pasted for a one-off; a fact in a later turn",
    "2026-10-29T09:35:00.000Z",
    (s) => {
      const pw = s.secret("password");
      s.userS(
        `notarytool keeps failing on my machine. run it once with my app-specific password, APPLE_APP_PASSWORD=${pw}, and tell me what it says`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.jc[0]);
      s.say("The submission is accepted; the earlier failures were a wrong team id.");
      turns(s, "jc", [
        [
          "right, the team id is 7XK2QH4M9P, it's the company account not mine",
          D("fact", "project", "Notarization uses the company Apple team id 7XK2QH4M9P."),
        ],
        ["can you staple the ticket to the dmg too?", R],
      ]);
    },
  ),
];

const NX: Script[] = [
  sc(
    "n23-nx-2411",
    "nx",
    "a stored channel changed; a stored formatter repeated by its kind; a new module rule",
    "2026-11-02T08:10:00.000Z",
    (s) =>
      turns(s, "nx", [
        [
          "bumped nixpkgs to nixos-24.11 in the flake, fix whatever the rename warnings complain about",
          R,
          D("fact", "project", "The flake's nixpkgs input follows nixos-24.11.", {
            contra: S.nxChan,
          }),
        ],
        [
          "run the rfc-style formatter across the tree before you commit",
          D("rule", "project", "Nix files are formatted with the RFC-style nixfmt.", {
            dup: S.nxFmt,
          }),
        ],
        [
          "each host imports modules/common.nix; never copy settings from one host's config into another — if two hosts need it, it goes into a module",
          D(
            "rule",
            "project",
            "Hosts import modules/common.nix; shared settings go into a module, never copied between host configs.",
          ),
        ],
      ]),
    [S.nxChan, S.nxFmt],
  ),
  sc(
    "n24-nx-colmena",
    "nx",
    "a stored secrets rule repeated in other words; a stored deploy tool changed",
    "2026-11-03T12:00:00.000Z",
    (s) =>
      turns(s, "nx", [
        [
          "grafana on borealis needs its admin password. make it an .age file — I don't want it sitting readable in /nix/store",
          R,
          D(
            "rule",
            "project",
            "Secrets go into agenix .age files and never into the Nix store in plain text.",
            { dup: S.nxSecrets },
          ),
        ],
        [
          "then deploy it. oh and deploy-rs is gone, we switched to colmena last week: colmena apply --on borealis",
          R,
          D("fact", "project", "Hosts are deployed with colmena (colmena apply --on <host>).", {
            contra: S.nxDeploy,
          }),
        ],
      ]),
    [S.nxSecrets, S.nxDeploy],
  ),
  sc(
    "n25-nx-cygnus-gone",
    "nx",
    "a stored host list changed (a host retired); a setup fact in passing",
    "2026-11-04T10:30:00.000Z",
    (s) =>
      turns(s, "nx", [
        [
          "cygnus is dead, the disk died and we're not replacing it. drop it from the flake; the fleet's just atlas and borealis now",
          R,
          D("fact", "project", "The fleet has two hosts, atlas and borealis; cygnus was retired.", {
            contra: S.nxHosts,
          }),
        ],
        [
          "its prometheus moves to borealis — that's the box with the zfs pool 'tank', put the tsdb there",
          R,
          D("fact", "project", "borealis holds the ZFS pool tank."),
        ],
        ["does colmena complain if a host disappears from the hive?", Q],
      ]),
    [S.nxHosts],
  ),
  sc(
    "n26-nx-ssh-key",
    "nx",
    "an OpenSSH private key pasted for a one-off; a backup fact",
    "2026-11-05T20:10:00.000Z",
    (s) => {
      const key = s.secret("opensshKey");
      s.userS(
        `my agent is broken. use this key to ssh into atlas once and check why the restic timer didn't fire:\n\n${key}`,
        [key],
        N("secret"),
        R,
      );
      s.tools(WORK.nx[0]);
      s.say("The timer unit was masked after the rebuild; I unmasked it and started it.");
      turns(s, "nx", [
        [
          "backups are restic via a systemd timer at 03:30 every night, keeping 14 dailies and 8 weeklies",
          D(
            "fact",
            "project",
            "Backups are restic runs from a systemd timer at 03:30 nightly, keeping 14 daily and 8 weekly snapshots.",
          ),
        ],
        [
          "atlas is the one running home assistant and the unifi controller, so keep its reboots short",
          D("fact", "project", "atlas runs Home Assistant and the UniFi controller."),
        ],
        ["it never fires after a rebuild, weird", HN("one-off")],
      ]);
    },
  ),
];

const LV: Script[] = [
  sc(
    "n27-lv-boat-npc",
    "lv",
    "a stored entity rule repeated in other words; a stored resolution changed",
    "2026-11-06T09:00:00.000Z",
    (s) =>
      turns(s, "lv", [
        ["add a fishing boat npc that drifts along the pier", R],
        [
          "make it a real entity in the ecs with pos/vel/sprite components, not some table stuffed into main.lua",
          D(
            "rule",
            "project",
            "NPCs are tiny-ecs entities with components, not ad-hoc tables.",
            { dup: S.lvEcs },
          ),
        ],
        [
          "and note the canvas is 384x216 now, I changed it last week so ultrawide doesn't letterbox. still nearest filtering",
          D(
            "fact",
            "project",
            "The game renders to a 384x216 canvas scaled with nearest-neighbour filtering.",
            { contra: S.lvRes },
          ),
        ],
      ]),
    [S.lvEcs, S.lvRes],
  ),
  sc(
    "n28-lv-love12",
    "lv",
    "a stored owner rule repeated as a reply; a stored engine version changed",
    "2026-11-09T13:40:00.000Z",
    (s) => {
      s.user("the boat animation stutters, look at it", R);
      ask(
        s,
        "lv",
        "The boat sheet only has 3 frames. Should I draw the missing frames as placeholders?",
        1,
      );
      s.user(
        "no, leave the sprites alone, Sasha draws all of them. just loop the 3",
        D("rule", "project", "Only Sasha edits sprites; the agent does not draw or change them.", {
          dup: S.lvOwner,
        }),
      );
      s.tools(WORK.lv[0]);
      s.say("Looping the three frames at 6 fps.");
      turns(s, "lv", [
        [
          "also we're on love 12 now for the new audio api, the nightly build sits in tools/love12",
          R,
          D("fact", "project", "pixel-harbor targets LÖVE 12.", { contra: S.lvLove }),
        ],
      ]);
    },
    [S.lvOwner, S.lvLove],
  ),
  sc(
    "n29-lv-terse",
    "lv",
    "terse rules with typos; a descriptive never; a hypothesis",
    "2026-11-10T22:15:00.000Z",
    (s) =>
      turns(s, "lv", [
        [
          "saves go in love.filesystem's save dir as json. never next to the exe",
          D(
            "rule",
            "project",
            "Save files are JSON in love.filesystem's save directory, never next to the executable.",
          ),
        ],
        [
          "luajit only, so lua 5.1 semantics. no goto no integer division operator",
          D("rule", "project", "Code targets LuaJIT (Lua 5.1 semantics): no goto, no //."),
        ],
        [
          "tiles r 16x16, tileset is assets/tiles.png. add the pier tiles to the map",
          R,
          D("fact", "project", "Tiles are 16x16; the tileset is assets/tiles.png."),
        ],
        ["it never loads the save on the steam deck", HN("one-off")],
        ["hmm could be path casing on linux", HN("hypothesis")],
        [
          "and keep ur replies short pls, i read them on my phone. goes for every project",
          D("preference", "global", "Keep replies short (the user reads them on a phone)."),
        ],
      ]),
  ),
  sc(
    "n30-lv-dialogue-confirm",
    "lv",
    "a private aside; a confirmed agent proposal with a reason",
    "2026-11-11T11:20:00.000Z",
    (s) => {
      s.user(
        "<private>ugh the cat just knocked my coffee into the keyboard tray</private> ok where were we. the dialogue system: show a portrait left of the text box",
        N("private"),
        R,
      );
      ask(
        s,
        "lv",
        "Portraits are in. I kept all dialogue lines in assets/dialogue/*.lua tables keyed by line id. Should all dialogue live there?",
      );
      s.confirm(
        "yes, all of it in there, the translators work off those files",
        "rule",
        "project",
        "All dialogue text lives in assets/dialogue/*.lua tables keyed by line id.",
      );
      turns(s, "lv", [["can the text box typewriter effect be skippable with space?", R]], 1);
    },
  ),
];

const ZF: Script[] = [
  sc(
    "n31-zf-sht40",
    "zf",
    "a stored logging rule repeated negated; a new power rule on the same topic as a stored one",
    "2026-11-12T08:45:00.000Z",
    (s) =>
      turns(s, "zf", [
        ["add a temperature + humidity reading from the SHT40 on i2c1", R],
        [
          "log it through a registered log module with LOG_INF / LOG_DBG. keep printk out of it",
          D(
            "rule",
            "project",
            "Logging goes through a registered log module and LOG_* macros, not printk.",
            {
              dup: S.zfLog,
            },
          ),
        ],
        [
          "and cut the SHT40's power between reads too, same as the load cell. the hive box runs a whole winter on one charge",
          D(
            "rule",
            "project",
            "The SHT40 is powered down between readings, like the HX711.",
          ),
        ],
      ]),
    [S.zfLog, S.zfPower],
  ),
  sc(
    "n32-zf-ncs27-hourly",
    "zf",
    "a stored SDK version and a stored report interval both changed; a battery fact",
    "2026-11-13T10:00:00.000Z",
    (s) => {
      s.user(
        "ncs 2.7 is in, I ran west update this morning. the build has new deprecation warnings about the lorawan api, fix those",
        R,
        D("fact", "project", "hive-scale-fw builds with nRF Connect SDK 2.7.", { contra: S.zfSdk }),
      );
      ask(s, "zf", "Warnings fixed. Anything else while I'm in the LoRaWAN code?", 0);
      s.user(
        "yes: the beekeepers want hourly reports instead of every 15 min, and it saves battery. change it. the pack is 2x18650, 7000 mAh total",
        R,
        D("fact", "project", "The scale reports its weight over LoRaWAN every 60 minutes.", {
          contra: S.zfInterval,
        }),
        D("fact", "project", "The battery is a 2×18650 pack of 7000 mAh."),
      );
      s.tools(WORK.zf[1]);
      s.say("REPORT_INTERVAL_S is 3600 now.");
    },
    [S.zfSdk, S.zfInterval],
  ),
  sc(
    "n33-zf-pasted-build",
    "zf",
    "a pasted build error; a stored board repeated with a marker and a stored formatter abbreviated; a one-off",
    "2026-11-16T15:25:00.000Z",
    (s) =>
      turns(s, "zf", [
        [
          "build broke:\n\n```\n/home/tomas/zephyr/hive-scale-fw/app/src/sht40.c:41:9: error: implicit declaration of function 'pm_device_action_run' [-Werror=implicit-function-declaration]\n   41 |         pm_device_action_run(dev, PM_DEVICE_ACTION_SUSPEND);\n      |         ^~~~~~~~~~~~~~~~~~~~\ncc1: all warnings being treated as errors\nninja: build stopped: subcommand failed.\n```\n\nboard's hive_scale_v2 as usual, `west build -b hive_scale_v2 app`",
          R,
          D("fact", "project", "The firmware is built for the hive_scale_v2 board.", {
            dup: S.zfBoard,
          }),
        ],
        [
          "clang-format it with the repo config",
          D("rule", "project", "C files are formatted with the repo's .clang-format.", {
            dup: S.zfFmt,
          }),
        ],
        [
          "for this build turn the watchdog off, I'm stepping through with the debugger",
          HN("one-off"),
        ],
      ]),
    [S.zfBoard, S.zfFmt],
  ),
  sc(
    "n34-zf-ota-rules",
    "zf",
    "rules about OTA and bootloaders; hard negatives",
    "2026-11-17T09:10:00.000Z",
    (s) =>
      turns(s, "zf", [
        [
          "OTA goes through MCUboot with signed images only. the signing key lives on the build server and nowhere else",
          D(
            "rule",
            "project",
            "OTA updates use MCUboot with signed images; the signing key exists only on the build server.",
          ),
        ],
        [
          "never flash the production bootloader from a dev laptop, that bricked two scales in spring",
          D("rule", "project", "The production bootloader is never flashed from a dev laptop."),
        ],
        [
          "fyi the gateway at the apiary is a RAK7268 that belongs to the beekeepers' club, we can't change its config",
          D(
            "fact",
            "project",
            "The apiary's LoRaWAN gateway is the club's RAK7268; its configuration cannot be changed by us.",
          ),
        ],
        ["it always resets when the lora tx fires on a cold battery", HN("one-off")],
        ["maybe the brownout is the radio's TX current peak?", HN("hypothesis")],
        ["should we always ship with CONFIG_ASSERT on?", HN("question")],
      ]),
  ),
  sc(
    "n35-zf-appkey",
    "zf",
    "a LoRaWAN AppKey pasted next to a KEY name for a one-off join test; a rule later",
    "2026-11-18T14:50:00.000Z",
    (s) => {
      const key = s.secret("hex");
      s.userS(
        `the dev board won't join. test an OTAA join once with APP_KEY=${key} and show me the join accept in the log`,
        [key],
        N("secret"),
        R,
      );
      s.tools(WORK.zf[0]);
      s.say("Joined on the third attempt; the DevNonce counter was stale in flash.");
      turns(s, "zf", [
        [
          "devices join the TTN eu1 cluster with OTAA, never ABP",
          D("rule", "project", "Devices join TTN's eu1 cluster with OTAA, never ABP."),
        ],
      ]);
    },
  ),
];

const NJ: Script[] = [
  sc(
    "n36-nj-mark-paid",
    "nj",
    "two stored rules repeated in other words inside short requests",
    "2026-11-19T08:30:00.000Z",
    (s) =>
      turns(s, "nj", [
        ["add a 'mark as paid' server action on the invoice page", R],
        [
          "if you need a package, pnpm add it — no npm install, it'll make a second lockfile",
          D("rule", "project", "Packages are added with pnpm, never npm.", { dup: S.njPm }),
        ],
        [
          "do the update with the prisma client please, no hand-written sql strings in the action",
          D("rule", "project", "Updates go through the Prisma client, not hand-written SQL.", {
            dup: S.njOrm,
          }),
        ],
      ]),
    [S.njPm, S.njOrm],
  ),
  sc(
    "n37-nj-supabase-magic",
    "nj",
    "a stored database host changed (the app host kept); a stored auth setup changed with its reason",
    "2026-11-20T11:00:00.000Z",
    (s) =>
      turns(s, "nj", [
        [
          "we moved the database from neon to supabase postgres, the app stays on vercel. DATABASE_URL is already updated in the vercel env, just fix the prisma directUrl for migrations",
          R,
          D("fact", "project", "The app runs on Vercel and the database is Supabase Postgres.", {
            contra: S.njHost,
          }),
        ],
        [
          "and remove the github login. email magic links only from now on — customers kept making two accounts",
          R,
          D(
            "decision",
            "project",
            "Auth.js uses only email magic links; GitHub login was removed.",
            {
              contra: S.njAuth,
            },
          ),
        ],
      ]),
    [S.njHost, S.njAuth],
  ),
  sc(
    "n38-nj-discounts-long",
    "nj",
    "a long request with two stored rules repeated in passing and a decision with its reason",
    "2026-11-23T09:45:00.000Z",
    (s) => {
      s.user(
        "next feature: line-item discounts. each line gets an optional percentage or fixed discount; the fixed one is in cents as an int like every other amount we store, and the editor page goes under app/invoices/[id]/edit of course. discounts apply per line before tax, never on the invoice total — that's what our accountant signed off on. show the discount on the PDF too",
        R,
        D("rule", "project", "Amounts, discounts included, are stored as integer cents.", {
          dup: S.njMoney,
        }),
        D("rule", "project", "Pages live under the App Router's app/ directory.", {
          dup: S.njRouter,
        }),
        D(
          "decision",
          "project",
          "Discounts apply per line before tax, not to the invoice total (signed off by the accountant).",
        ),
      );
      s.tools(WORK.nj[1]);
      s.say("Discount fields, the edit page and the PDF row are in; totals tests updated.");
      turns(s, "nj", [["what happens to old invoices with no discount column?", Q]], 0);
    },
    [S.njMoney, S.njRouter],
  ),
  sc(
    "n39-nj-stripe-live",
    "nj",
    "a Stripe live key inside an otherwise durable rule",
    "2026-11-24T16:20:00.000Z",
    (s) => {
      const key = s.secret("stripe");
      s.userS(
        `payments: the stripe key is ${key} — but all stripe calls go through lib/stripe.ts, never construct a Stripe client anywhere else`,
        [key],
        D(
          "rule",
          "project",
          "All Stripe calls go through lib/stripe.ts; no Stripe client is constructed elsewhere.",
          { secret: true },
        ),
      );
      s.tools(WORK.nj[0]);
      s.say("Moved the two inline clients into lib/stripe.ts; the key is read from the env.");
      turns(s, "nj", [["does the webhook route need the raw body in app router?", Q]]);
    },
  ),
  sc(
    "n40-nj-ordinary",
    "nj",
    "an ordinary session: a fact, a rule with its reason and hard negatives",
    "2026-11-25T10:10:00.000Z",
    (s) =>
      turns(s, "nj", [
        [
          "the reminder email should go out 3 days before due date. mails go through Resend from billing@invoicely.app",
          R,
          D("fact", "project", "Emails are sent through Resend from billing@invoicely.app."),
        ],
        [
          "use a zod schema for the form and share it between the client form and the server action, we do that for every form so validation can't drift",
          D(
            "rule",
            "project",
            "Every form has one zod schema shared by the client form and the server action.",
          ),
        ],
        [
          "invoice numbers are sequential per organization, INV-2026-0001 style, and there must never be gaps — tax law",
          D(
            "rule",
            "project",
            "Invoice numbers are sequential per organization (INV-YYYY-NNNN) without gaps.",
          ),
        ],
        ["for the demo tomorrow make every invoice show as paid", HN("one-off")],
        ["just this once push straight to main, I'll review after", HN("one-off")],
        ["does vercel always cache server action responses?", HN("question")],
      ]),
  ),
];

const SY: Script[] = [
  sc(
    "n41-sy-remote-days",
    "sy",
    "a stored migration rule repeated negated; a stored PHPStan level changed",
    "2026-11-26T08:15:00.000Z",
    (s) =>
      turns(s, "sy", [
        ["add a remoteDaysPerWeek column to Employee, int, default 0", R],
        [
          "generate a doctrine migration for it — no schema:update shortcut on staging, ever",
          D(
            "rule",
            "project",
            "Schema changes ship as Doctrine migrations; schema:update is never used on a server.",
            { dup: S.syDoctrine },
          ),
        ],
        [
          "and we raised phpstan to level 9 yesterday, make it pass there",
          R,
          D("rule", "project", "PHPStan runs at level 9 and must pass.", { contra: S.syStan }),
        ],
      ]),
    [S.syDoctrine, S.syStan],
  ),
  sc(
    "n42-sy-php83",
    "sy",
    "a stored platform version changed; a stored mail rule repeated as a reply",
    "2026-11-27T13:20:00.000Z",
    (s) => {
      s.user(
        "we're on php 8.3 and symfony 7.1 now, so typed class constants are fine. the leave approval flow needs an email to the manager",
        R,
        D("fact", "project", "staffroom-symfony runs on PHP 8.3 and Symfony 7.1.", {
          contra: S.syPhp,
        }),
      );
      ask(
        s,
        "sy",
        "The approval handler is written. Should the manager email be sent inline in the controller?",
        1,
      );
      s.user(
        "through messenger, async, same as every other mail we send",
        D("rule", "project", "Every email goes out asynchronously via Symfony Messenger.", {
          dup: S.syMsg,
        }),
      );
      s.tools(WORK.sy[0]);
      s.say("The email is a SendEmailMessage dispatched on the async transport.");
    },
    [S.syPhp, S.syMsg],
  ),
  sc(
    "n43-sy-global-prefs-long",
    "sy",
    "a longer session: a stored global preference repeated with a marker, another changed; a confirmed proposal; a compaction; hard negatives",
    "2026-11-28T09:00:00.000Z",
    (s) => {
      turns(s, "sy", [
        ["the leave calendar view is slow with 400 employees, profile it", R],
        [
          "run the tests before you tell me you're done, as usual",
          D("preference", "global", "Run the tests before reporting a change as done.", {
            dup: S.gTests,
          }),
        ],
      ]);
      ask(
        s,
        "sy",
        "The N+1 came from Employee::getManager. I added a repository method with a join fetch. Should repository methods that feed list views always fetch-join their relations like that?",
      );
      s.confirm(
        "correct, keep it that way",
        "rule",
        "project",
        "Repository methods feeding list views fetch-join the relations they display.",
      );
      s.compact(
        "The user asked to speed up the leave calendar; the N+1 on Employee::getManager was fixed with a fetch-join repository method. The user wants tests run before a change is reported done and confirmed that list-view repository methods fetch-join their relations.",
      );
      turns(s, "sy", [
        [
          "make a branch and commit. and forget the ticket-id prefix on branch names, I switched to type/short-desc everywhere, e.g. perf/leave-calendar",
          R,
          D(
            "preference",
            "global",
            "Branch names are type/short-description (e.g. perf/leave-calendar), without a ticket id.",
            { contra: S.gBranch },
          ),
        ],
        ["should we always paginate the calendar api?", HN("question")],
        ["maybe the twig template is the slow part now?", HN("hypothesis")],
        ["for this branch don't touch the translations", HN("one-off")],
        ["the csv export button on the calendar does nothing now, can you look", R],
        ["ok thanks, open the PR and that's it for today", R],
      ], 1);
    },
    [S.gTests, S.gBranch],
  ),
  sc(
    "n44-sy-db-url",
    "sy",
    "a password in a database URL pasted for a one-off; setup facts in later turns",
    "2026-11-28T15:30:00.000Z",
    (s) => {
      const pw = s.secret("password");
      const url = `mysql://staffroom:${pw}@db-staging.staffroom.lan:3306/staffroom`;
      s.userS(
        `check the leave balances on staging once, DATABASE_URL=${url}`,
        [pw],
        N("secret"),
        R,
      );
      s.tools(WORK.sy[0]);
      s.say("Three employees have negative balances from the October import.");
      turns(s, "sy", [
        [
          "staging has prod's schema but anonymized data, refreshed every monday night. and it's MySQL 8 here, not postgres, so watch the json functions",
          D(
            "fact",
            "project",
            "Staging has the production schema with anonymized data, refreshed every Monday night.",
          ),
          D("fact", "project", "The database is MySQL 8."),
        ],
        ["write a one-off command to fix the three balances", R],
      ]);
    },
  ),
];

export const HOLDOUT11: Script[] = [
  ...DJ,
  ...SK,
  ...ML,
  ...RR,
  ...JC,
  ...NX,
  ...LV,
  ...ZF,
  ...NJ,
  ...SY,
];
