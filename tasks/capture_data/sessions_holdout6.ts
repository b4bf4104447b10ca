/**
 * Hand-written sessions of the capture benchmark's `holdout6` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark or fitting tasks, docs page or
 * results (nor any other helper's worktree), and frozen before any tuning against them. Ten
 * projects new to the data set: a Rust/Axum web API, a Zig library, a LaTeX thesis, a Packer image
 * repository, an Elm frontend, an Angular portal, a legacy Perl billing system, a Swift/Vapor
 * service, a Neovim plugin in Lua and an Astro/Starlight documentation site.
 *
 * @module
 */
import { bash, D, type Label, N, read, type Session, type ToolStep } from "./build.ts";
import type { Script } from "./sessions_dev.ts";

/** A hard negative: rule words (always, never, don't, …) that state no standing rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);
const R = N("request");
const Q = N("question");

/** The holdout6 split's projects. */
const P = {
  axum: "/home/tomas/src/quill-api",
  zig: "/home/anja/code/zig-msgpack",
  tex: "/home/sofia/phd/phd-thesis",
  packer: "/Users/jonas/infra/golden-images",
  elm: "/home/kwame/src/elm-budget",
  ng: "/home/lucia/work/claims-portal",
  perl: "/srv/src/legacy-billing",
  vapor: "/Users/amara/dev/vapor-inventory",
  nvim: "/home/ren/code/tidy.nvim",
  astro: "/home/gwen/sites/astro-docs",
} as const;
type Proj = keyof typeof P;

const CHORES: Record<Proj, ToolStep[]> = {
  axum: [
    bash(
      "cargo test -q",
      "running 38 tests\n......................................\ntest result: ok. 38 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.27s",
    ),
    read(
      `${P.axum}/src/routes/docs.rs`,
      'use axum::{extract::{Path, State}, Json};\n\nuse crate::{error::AppError, state::AppState};\n\npub async fn get_doc(\n    State(state): State<AppState>,\n    Path(id): Path<i64>,\n) -> Result<Json<Doc>, AppError> {\n    let doc = sqlx::query_as!(Doc, "select * from docs where id = $1", id)\n        .fetch_optional(&state.pool)\n        .await?\n        .ok_or(AppError::NotFound)?;\n    Ok(Json(doc))\n}',
    ),
  ],
  zig: [
    bash(
      "zig build test --summary all",
      "Build Summary: 5/5 steps succeeded; 61/61 tests passed\ntest success\n+- run test 61 passed 412ms MaxRSS:3M",
    ),
    read(
      `${P.zig}/src/decode.zig`,
      'const std = @import("std");\n\npub const DecodeError = error{ UnexpectedEof, InvalidTag, OutOfMemory };\n\npub fn decodeMap(allocator: std.mem.Allocator, reader: anytype) DecodeError!Map {\n    const len = try readLen(reader);\n    var map = Map.init(allocator);\n    errdefer map.deinit();\n    try map.ensureTotalCapacity(len);\n    return map;\n}',
    ),
  ],
  tex: [
    bash(
      "make pdf 2>&1 | tail -4",
      "Latexmk: All targets (build/thesis.pdf) are up-to-date\nOutput written on build/thesis.pdf (164 pages, 3912044 bytes).\nTranscript written on build/thesis.log.",
    ),
    read(
      `${P.tex}/chapters/ch4-results.tex`,
      "\\chapter{Results}\\label{ch:results}\n\nThis chapter reports the calibration experiments of \\cref{sec:method-calib}.\n\n\\section{Setup}\\label{sec:results-setup}\nAll runs use the 2019 corpus~\\autocite{mueller2019corpus}.",
    ),
  ],
  packer: [
    bash(
      "packer validate images/base && packer fmt -check -recursive images",
      "The configuration is valid.",
    ),
    read(
      `${P.packer}/images/base/base.pkr.hcl`,
      'source "amazon-ebs" "base" {\n  region        = "eu-central-1"\n  instance_type = "t3.small"\n  ami_name      = "base-{{timestamp}}"\n  ssh_username  = "ubuntu"\n}\n\nbuild {\n  sources = ["source.amazon-ebs.base"]\n  provisioner "ansible" {\n    playbook_file = "../../ansible/base.yml"\n  }\n}',
    ),
  ],
  elm: [
    bash(
      "npx elm-test",
      "elm-test 0.19.1-revision12\n--------------------------\n\nRunning 27 tests.\n\nTEST RUN PASSED\n\nPassed:   27\nFailed:   0",
    ),
    read(
      `${P.elm}/src/Api.elm`,
      'module Api exposing (getBudgets, postExpense)\n\nimport Http\nimport Json.Decode as D\n\n\ngetBudgets : (Result Http.Error (List Budget) -> msg) -> Cmd msg\ngetBudgets toMsg =\n    Http.get { url = "/api/budgets", expect = Http.expectJson toMsg (D.list budgetDecoder) }',
    ),
  ],
  ng: [
    bash(
      "pnpm ng test --watch=false --include src/app/claims",
      "Chrome Headless 126.0.0.0 (Linux x86_64): Executed 44 of 44 SUCCESS (2.113 secs / 1.874 secs)\nTOTAL: 44 SUCCESS",
    ),
    read(
      `${P.ng}/src/app/claims/claims-list.component.ts`,
      "import { Component, inject } from '@angular/core';\nimport { AsyncPipe } from '@angular/common';\nimport { ClaimsService } from './claims.service';\n\n@Component({\n  selector: 'cp-claims-list',\n  standalone: true,\n  imports: [AsyncPipe],\n  templateUrl: './claims-list.component.html',\n})\nexport class ClaimsListComponent {\n  claims$ = inject(ClaimsService).list();\n}",
    ),
  ],
  perl: [
    bash(
      "prove -lr t/",
      "t/billing/tax.t ...... ok\nt/billing/invoice.t .. ok\nt/db.t ............... ok\nAll tests successful.\nFiles=3, Tests=57,  2 wallclock secs ( 0.05 usr  0.01 sys +  1.61 cusr  0.21 csys =  1.88 CPU)\nResult: PASS",
    ),
    read(
      `${P.perl}/lib/Billing/Tax.pm`,
      "package Billing::Tax;\nuse strict;\nuse warnings;\n\nsub vat_for {\n    my ($amount, $rate) = @_;\n    return sprintf('%.2f', $amount * $rate / 100);\n}\n\n1;",
    ),
  ],
  vapor: [
    bash(
      "swift test --filter InventoryTests 2>&1 | tail -3",
      "Test Suite 'InventoryTests' passed at 2026-01-20 10:12:44.310.\n\t Executed 12 tests, with 0 failures (0 unexpected) in 0.882 (0.885) seconds",
    ),
    read(
      `${P.vapor}/Sources/App/Controllers/ItemController.swift`,
      'import Fluent\nimport Vapor\n\nstruct ItemController: RouteCollection {\n    func boot(routes: RoutesBuilder) throws {\n        let items = routes.grouped("items")\n        items.get(use: index)\n    }\n\n    func index(req: Request) async throws -> [Item] {\n        try await Item.query(on: req.db).all()\n    }\n}',
    ),
  ],
  nvim: [
    bash(
      "make test",
      'nvim --headless -u scripts/minimal_init.lua -c "lua MiniTest.run()"\nTotal number of cases: 19\nTotal number of groups: 4\n\ntests/test_tidy.lua: ooooooooooooooooooo\n\nFails (0) and Notes (0)',
    ),
    read(
      `${P.nvim}/lua/tidy/init.lua`,
      "local M = {}\n\nlocal defaults = { trim_on_save = true, filetypes_exclude = { 'diff', 'markdown' } }\n\nfunction M.setup(opts)\n  M.config = vim.tbl_deep_extend('force', defaults, opts or {})\nend\n\nreturn M",
    ),
  ],
  astro: [
    bash(
      "pnpm astro check && pnpm build 2>&1 | tail -2",
      "Result (84 files): \n- 0 errors\n- 0 warnings\n- 0 hints\n\n[build] 96 page(s) built in 14.21s\n[build] Complete!",
    ),
    read(
      `${P.astro}/src/content/docs/guides/auth.mdx`,
      "---\ntitle: Authentication\ndescription: Tokens, scopes and rotation.\n---\n\nimport { Aside } from '@astrojs/starlight/components';\nimport diagram from '../../../assets/auth-flow.svg';\n\n<Aside>Tokens expire after 30 days.</Aside>",
    ),
  ],
};

const OK = [
  "Done.",
  "Done; the checks pass.",
  "Changed, and the build is still green.",
  "That's in place now.",
  "Fixed it and re-ran the tests.",
  "OK, finished.",
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
  return { id, cwd: P[p], style, start, version: "2.0.37", run, ...more };
}

const AXUM: Script[] = [
  sc(
    "w01-axum-facts-in-passing",
    "axum",
    "setup facts stated in passing inside requests",
    "2026-01-05T08:10:00.000Z",
    (s) =>
      turns(s, "axum", [
        [
          "the 401s on /v1/docs come back as an html page, can you make them json? fyi the local postgres for this is on 5433 not the default, and the migrations are sqlx ones in migrations/",
          R,
          D("fact", "project", "The local Postgres for quill-api listens on port 5433."),
          D("fact", "project", "Database migrations are sqlx migrations in migrations/."),
        ],
        [
          "CI runs on buildkite btw, the github actions yaml under .github is dead, ignore it",
          D(
            "fact",
            "project",
            "CI runs on Buildkite; the GitHub Actions workflow under .github is unused.",
          ),
        ],
        ["cool, run cargo test", R],
      ]),
  ),
  sc(
    "w02-axum-unwrap-correction",
    "axum",
    "a correction after the agent's mistake, with the reason",
    "2026-01-05T14:30:00.000Z",
    (s) => {
      s.user("add a PATCH /v1/docs/:id handler that updates the title", R);
      s.tools(CHORES.axum[1]);
      s.say(
        "Added `patch_doc`; it parses the body with `serde_json::from_value(...).unwrap()` and updates the row.",
      );
      s.user(
        "no — we never call unwrap() or expect() in handler code, everything goes through AppError and `?`. an unwrap in a handler took prod down in march.",
        D(
          "rule",
          "project",
          "Handler code never calls unwrap() or expect(); errors go through AppError with the ? operator.",
        ),
      );
      s.tools(CHORES.axum[0]);
      s.say("Replaced the unwrap with a `?` on a Json extractor; the error maps to a 422.");
      s.user(
        "also extractor order in every handler: State first, then Path/Query, the Json body last",
        D(
          "rule",
          "project",
          "Handler extractors are ordered State, then Path/Query, with the Json body last.",
        ),
      );
      s.say("Reordered them in patch_doc and checked the other handlers already follow it.");
      s.user("ok ship it", R);
      s.say("Committed as `docs: PATCH /v1/docs/:id`.");
    },
  ),
  sc(
    "w03-axum-tag-question-confirm",
    "axum",
    "the user confirms the agent's tag questions",
    "2026-01-06T09:00:00.000Z",
    (s) => {
      s.user("the tracing output looks weird, check src/telemetry.rs", R);
      s.tools(CHORES.axum[1]);
      s.say(
        "It sets up tracing-subscriber with a JSON formatter and takes the filter from RUST_LOG. You run it locally with RUST_LOG=quill=debug, right?",
      );
      s.confirm("yep", "fact", "project", "Locally the API runs with RUST_LOG=quill=debug.");
      s.say(
        "Then the noise is from sqlx at debug. I'll add spans with `#[instrument(skip(state))]` so the app state never ends up in the logs — that's how handlers are instrumented here, right?",
      );
      s.confirm(
        "right, always skip state",
        "rule",
        "project",
        "Handlers are instrumented with #[instrument(skip(state))]; the app state is never logged.",
      );
      s.tools(CHORES.axum[0]);
      s.say("Added the spans and quieted sqlx to warn.");
    },
  ),
  sc(
    "w04-axum-dup-with-reason-jwt",
    "axum",
    "a stored rule repeated with a reason; a token pasted for a curl",
    "2026-01-07T16:45:00.000Z",
    (s) => {
      s.user(
        "remember, no unwrap in handlers — we got paged at 3am over one",
        D("rule", "project", "Handlers never use unwrap(); errors go through AppError.", {
          dup: "Handler code never calls unwrap() or expect(); errors go through AppError.",
        }),
      );
      s.say("Understood; the new export handler uses `?` throughout.");
      s.user(
        "Rafael owns the auth middleware, so anything under src/auth/ goes past him before merging",
        D(
          "rule",
          "project",
          "Changes under src/auth/ (the auth middleware, owned by Rafael) need Rafael's review before merging.",
        ),
      );
      s.say("Noted. I'll keep the export change out of src/auth/.");
      const jwt = s.secret("jwt");
      s.userS(
        `here's my dev bearer token if you want to curl it: ${jwt}`,
        [jwt],
        N("secret"),
      );
      s.say("Thanks — I'll use it only in this shell and not write it anywhere.");
      s.user("never mind the curl, the integration test covers it", HN("one-off"));
      s.tools(CHORES.axum[0]);
      s.say("Tests pass, including export_returns_csv.");
    },
    { stored: ["Handler code never calls unwrap() or expect(); errors go through AppError."] },
  ),
  sc(
    "w05-axum-hard-negatives",
    "axum",
    "hard negatives while chasing a slow endpoint, one fact in passing",
    "2026-01-08T10:20:00.000Z",
    (s) =>
      turns(s, "axum", [
        ["for this benchmark run, always build with --release", HN("one-off")],
        [
          "the integration tests always fail when docker isn't running, that's expected, don't chase it",
          HN("one-off"),
        ],
        ["maybe the pool is just too small? 5 connections feels low", HN("hypothesis")],
        ["should every route have its own rate limiter?", HN("question")],
        [
          "bump the pool to 20 for now and rerun. (staging is api-stg.quill.dev, only over the vpn)",
          HN("one-off"),
          D("fact", "project", "Staging is api-stg.quill.dev, reachable only over the VPN."),
        ],
      ]),
  ),
];

const ZIG: Script[] = [
  sc(
    "w06-zig-terse",
    "zig",
    "very terse messages, rules without verbs",
    "2026-01-09T07:40:00.000Z",
    (s) =>
      turns(s, "zig", [
        [
          "zig 0.13. pinned. not master",
          D("fact", "project", "The library is pinned to Zig 0.13, not Zig master."),
        ],
        [
          "allocator always passed in. never a global one",
          D(
            "rule",
            "project",
            "Functions that allocate take an explicit std.mem.Allocator; no global allocator.",
          ),
        ],
        ["tests: zig build test", D("fact", "project", "Tests run with `zig build test`.")],
        ["fix the decodeMap leak", R],
      ]),
  ),
  sc(
    "w07-zig-maintainer",
    "zig",
    "a maintainer speaking of contributors; a decision with its reason",
    "2026-01-09T15:00:00.000Z",
    (s) =>
      turns(s, "zig", [
        [
          "Maintainer hat on: contributors must add a fuzz corpus entry under fuzz/corpus/ for every decoder bug they fix. Can you add one for #41?",
          D(
            "rule",
            "project",
            "Every fixed decoder bug gets a fuzz corpus entry under fuzz/corpus/.",
          ),
          R,
        ],
        [
          "and we keep build.zig.zon at zero dependencies. decided in 0.2 so people can vendor the lib by copying one directory",
          D(
            "decision",
            "project",
            "The library has zero dependencies in build.zig.zon, so it can be vendored by copying one directory.",
          ),
        ],
        ["thanks!", R],
      ]),
  ),
  sc(
    "w08-zig-hard-negatives",
    "zig",
    "quoted std docs, descriptive never, step-scoped don't",
    "2026-01-10T11:10:00.000Z",
    (s) =>
      turns(s, "zig", [
        [
          "the std.testing docs say 'always use std.testing.allocator in tests' — does that apply to the fuzz harness too?",
          HN("question"),
        ],
        [
          "it never builds on windows. I think it's the path separator in build.zig",
          HN("hypothesis"),
        ],
        ["don't run the fuzzers for this step, they take an hour", HN("one-off")],
        [
          "ok fix the windows path. the windows CI job runs on a self-hosted runner Anja keeps under her desk, fwiw",
          R,
          D(
            "fact",
            "project",
            "The Windows CI job runs on a self-hosted runner maintained by Anja.",
          ),
        ],
      ]),
  ),
  sc(
    "w09-zig-confirm-error-sets",
    "zig",
    "the user confirms and narrows the agent's proposal",
    "2026-01-11T09:30:00.000Z",
    (s) => {
      s.user("have a look at the error handling in decode.zig", R);
      s.tools(CHORES.zig[1]);
      s.say(
        "The decoder returns a named error set, `DecodeError`, and callers switch on it exhaustively. Should I keep error sets explicit (rather than inferred `!T`) in the public API?",
      );
      s.confirm(
        "yes, explicit in pub fns. inferred is fine for private helpers",
        "rule",
        "project",
        "Public functions declare explicit error sets; inferred error sets only in private helpers.",
      );
      s.tools(CHORES.zig[0]);
      s.say("Made `encode` and `peekTag` explicit too; tests pass.");
    },
  ),
];

const TEX_LONG: Turn[] = [
  [
    "ok, chapter 4 today. the build is `make pdf`, which runs latexmk with lualatex",
    R,
    D("fact", "project", "The thesis builds with `make pdf` (latexmk with LuaLaTeX)."),
  ],
  ["fix the undefined reference warnings first", R],
  [
    "bib stuff: biblatex + biber, my refs are in refs/main.bib. never touch refs/zotero-export.bib, zotero overwrites it on every sync",
    D(
      "fact",
      "project",
      "The bibliography uses biblatex with biber; references are in refs/main.bib.",
    ),
    D(
      "rule",
      "project",
      "Never edit refs/zotero-export.bib by hand; the Zotero sync overwrites it.",
    ),
  ],
  ["add the Müller 2021 calibration paper to main.bib, doi is in the pdf on my desktop", R],
  [
    "my supervisor (Prof. Lindqvist) insists on British spelling throughout — optimise, behaviour, modelling",
    D("rule", "project", "The thesis uses British spelling throughout (optimise, behaviour)."),
  ],
  ["go through 4.1 for that", R],
  ["what does the \\todo macro turn into when draft mode is off?", Q],
  [
    "figures: every chapter has figures/chN/, PDFs made by scripts/plots.py. don't commit PNGs",
    D(
      "rule",
      "project",
      "Figures are PDFs in figures/chN/, generated by scripts/plots.py; no PNGs are committed.",
    ),
  ],
  ["regenerate fig 4.3", R],
  ["hmm the legend overlaps the curve. maybe tight_layout isn't applied?", HN("hypothesis")],
  ["put the legend upper left for this figure only", HN("one-off")],
  ["ok commit that", R],
  [
    "one more for the future: each chapter is its own file in chapters/, pulled in with \\include, so I can \\includeonly the one I'm writing",
    D(
      "fact",
      "project",
      "Each chapter is a file in chapters/ pulled in with \\include (so \\includeonly works).",
    ),
  ],
  ["thanks, that's it for today", R],
];

const TEX: Script[] = [
  sc(
    "w10-tex-long-chapter-day",
    "tex",
    "a long writing session (14 user turns), rules and facts among requests",
    "2026-01-12T09:00:00.000Z",
    (s) => turns(s, "tex", TEX_LONG),
  ),
  sc(
    "w11-tex-dup-casual",
    "tex",
    "a stored fact repeated casually; a deadline in passing",
    "2026-01-13T13:15:00.000Z",
    (s) =>
      turns(s, "tex", [
        [
          "make pdf as usual pls, lualatex",
          R,
          D("fact", "project", "The thesis builds with make pdf using LuaLaTeX.", {
            dup: "The thesis builds with `make pdf` (latexmk with LuaLaTeX).",
          }),
        ],
        [
          "submission is 15 March and the grad school wants a PDF/A-2b file, so we need the pdfx package at some point",
          D(
            "fact",
            "project",
            "The thesis is due on 15 March; the graduate school requires a PDF/A-2b file.",
          ),
        ],
        ["not today though. fix the overfull boxes in ch2", R],
      ]),
    { stored: ["The thesis builds with `make pdf` (latexmk with LuaLaTeX)."] },
  ),
  sc(
    "w12-tex-hard-negatives",
    "tex",
    "a style maxim quoted, just this once, hypotheses, questions like rules",
    "2026-01-14T10:40:00.000Z",
    (s) =>
      turns(s, "tex", [
        [
          "Strunk & White: 'omit needless words'. apply that to section 3.2, it's bloated",
          HN("one-off"),
        ],
        ["just this once, use a \\vspace to fix the page break on p. 41", HN("one-off")],
        [
          "I think the overfull hbox comes from the long URL in footnote 12",
          HN("hypothesis"),
        ],
        ["should table captions always go above the table?", HN("question")],
        [
          "the committee gets the PDF through the university's Moodle, max 50 MB, so keep an eye on the figure sizes",
          D("fact", "project", "The committee receives the PDF via Moodle, with a 50 MB limit."),
        ],
      ]),
  ),
  sc(
    "w13-tex-private",
    "tex",
    "a private remark beside a fact and a rule",
    "2026-01-15T18:05:00.000Z",
    (s) =>
      turns(s, "tex", [
        [
          "<private>my funding runs out in april and I'm honestly stressed about it</private> can you cut the abstract to 300 words? the university caps it at 300",
          N("private"),
          R,
          D("fact", "project", "The university caps the thesis abstract at 300 words."),
        ],
        [
          "and always \\cref from cleveref for cross refs, never bare \\ref",
          D("rule", "project", "Cross-references use \\cref (cleveref), never bare \\ref."),
        ],
        ["fix the three \\ref in ch1 then", R],
      ]),
  ),
];

const PACKER: Script[] = [
  sc(
    "w14-packer-tour",
    "packer",
    "a colleague's tour of the repository: facts, then a rule",
    "2026-01-16T08:30:00.000Z",
    (s) =>
      turns(s, "packer", [
        [
          "Quick tour before you start. Images are built with Packer 1.11 from the HCL in images/, one folder per image. Provisioning is the Ansible roles in ansible/roles, called by Packer's ansible provisioner. AMIs get built in eu-central-1 and the pipeline copies them to eu-west-1.",
          D(
            "fact",
            "project",
            "Images are built with Packer 1.11 from HCL in images/, one folder per image.",
          ),
          D(
            "fact",
            "project",
            "Provisioning uses the Ansible roles in ansible/roles via Packer's ansible provisioner.",
          ),
          D(
            "fact",
            "project",
            "AMIs are built in eu-central-1 and copied to eu-west-1 by the pipeline.",
          ),
        ],
        [
          "Rule number one: every image passes the goss tests in tests/goss before it's published. No exceptions, not even for hotfixes.",
          D(
            "rule",
            "project",
            "Every image must pass the goss tests in tests/goss before it is published, hotfixes included.",
          ),
        ],
        ["Now: add the node_exporter role to the base image.", R],
      ]),
  ),
  sc(
    "w15-packer-aws-keys",
    "packer",
    "AWS keys pasted into a request, then the rule about credentials",
    "2026-01-16T15:20:00.000Z",
    (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `packer can't authenticate. try it with AWS_ACCESS_KEY_ID=${id} AWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
        R,
      );
      s.tools(CHORES.packer[0]);
      s.say(
        "The build authenticates with those, but they now sit in my shell history. Should I keep using them?",
      );
      s.user(
        "no, scrap that. keys never go on the command line; the builds use the packer-builder profile from ~/.aws/config",
        D(
          "rule",
          "project",
          "Packer builds authenticate with the packer-builder AWS profile; keys never go on the command line.",
        ),
      );
      s.say("Switched to AWS_PROFILE=packer-builder; the profile is missing on this machine.");
      s.user(
        "Henrik owns the AWS account setup, ping him for the profile",
        D("fact", "project", "Henrik owns the AWS account setup (profiles, roles)."),
      );
      s.say("I drafted a message to Henrik asking for the packer-builder profile.");
    },
  ),
  sc(
    "w16-packer-dup-contra",
    "packer",
    "a stored rule repeated; a stored fact replaced",
    "2026-01-17T10:00:00.000Z",
    (s) =>
      turns(s, "packer", [
        [
          "goss before publish, like always",
          D("rule", "project", "Images pass the goss tests before they are published.", {
            dup: "Every image must pass the goss tests before it is published.",
          }),
        ],
        [
          "the base is Ubuntu 24.04 now — the 22.04 images are frozen since October and only get security rebuilds",
          D(
            "decision",
            "project",
            "Base images are built on Ubuntu 24.04; 22.04 images are frozen (security rebuilds only).",
            { contra: "Base images are built on Ubuntu 22.04." },
          ),
        ],
        ["rebuild base and run goss", R],
      ]),
    {
      stored: [
        "Every image must pass the goss tests before it is published.",
        "Base images are built on Ubuntu 22.04.",
      ],
    },
  ),
  sc(
    "w17-packer-hard-negatives",
    "packer",
    "descriptive always, hypotheses, build-scoped skip, a question",
    "2026-01-18T11:30:00.000Z",
    (s) => {
      s.user(
        "the amazon-ebs builder always times out at the SSH step on this image",
        HN("one-off"),
      );
      s.tools(CHORES.packer[1]);
      s.say("It waits for SSH as `ubuntu` on a public IP; the subnet has no public IPs.");
      s.user(
        "maybe the security group doesn't allow 22 from the builder subnet?",
        HN("hypothesis"),
      );
      s.say("The group allows 22 from 10.40.0.0/16; the problem is the missing public IP.");
      s.user(
        "for this build, skip the cis-hardening role, I'm only testing the network",
        HN("one-off"),
      );
      s.tools(CHORES.packer[0]);
      s.say("Skipped it with `-var skip_cis=true`; the build gets past SSH now.");
      s.user("is it a rule that AMI names carry the date?", HN("question"));
      s.say("The templates use `base-{{timestamp}}`; I found nothing that requires it.");
      s.user(
        "ok. the builder subnet is subnet-builders in the tooling VPC, it has no NAT on purpose",
        D(
          "fact",
          "project",
          "Packer builds run in subnet-builders of the tooling VPC, which has no NAT by design.",
        ),
      );
      s.say("Then I'll set `associate_public_ip_address = true` on the source.");
    },
  ),
];

const ELM: Script[] = [
  sc(
    "w18-elm-junior-relays-lead",
    "elm",
    "a junior passing on the lead's rules in one chatty message",
    "2026-01-19T09:20:00.000Z",
    (s) =>
      turns(s, "elm", [
        [
          "hey!! so my lead Aisha asked me to tell you a few things before we start :) elm-review runs in CI and the config in review/ is law, so no disabling rules inline. all HTTP goes through the Api module (src/Api.elm), pages never call Http directly. oh and the dev server is elm-land on port 1234. can you add the budgets page?",
          D(
            "rule",
            "project",
            "Never disable elm-review rules inline; the config in review/ is authoritative.",
          ),
          D(
            "rule",
            "project",
            "All HTTP calls go through src/Api.elm; pages never call Http directly.",
          ),
          D("fact", "project", "The dev server is elm-land on port 1234."),
          R,
        ],
        ["looks great!! can you add a loading state too", R],
      ]),
  ),
  sc(
    "w19-elm-slack-bot-token",
    "elm",
    "a bot token inside a statement about the setup",
    "2026-01-19T16:00:00.000Z",
    (s) => {
      const tok = s.secret("slackBot");
      s.userS(
        `the over-budget notifier posts with the bot token ${tok}, it's set in Netlify as SLACK_BOT_TOKEN`,
        [tok],
        D(
          "fact",
          "project",
          "The over-budget notifier's Slack bot token is set in Netlify as SLACK_BOT_TOKEN.",
          { secret: true },
        ),
      );
      s.say("Got it; the function reads it from the environment.");
      s.user(
        "deploys go to Netlify from main, previews per PR. add a test for the threshold logic",
        D("fact", "project", "The app deploys to Netlify from main, with a preview per PR."),
        R,
      );
      s.tools(CHORES.elm[0]);
      s.say("Added three threshold tests; 30 pass.");
    },
  ),
  sc(
    "w20-elm-tag-confirm-taste",
    "elm",
    "a tag question confirmed; a personal taste stated as such",
    "2026-01-20T10:10:00.000Z",
    (s) => {
      s.user("tidy up Page/Budgets.elm", R);
      s.tools(CHORES.elm[1]);
      s.say(
        "CI runs `elm-format --validate` with elm-format 0.8.7, so I'll format every file before committing — that's the expectation, right?",
      );
      s.confirm(
        "yep",
        "rule",
        "project",
        "Format with elm-format 0.8.7 before committing; CI runs elm-format --validate.",
      );
      s.say("Formatted and committed.");
      s.user(
        "also I like Maybe.withDefault over a case expression for one-liners, just my taste, in any elm code",
        D(
          "preference",
          "global",
          "In Elm, prefer Maybe.withDefault over a case expression for one-liners.",
        ),
      );
      s.say("Changed the two one-line cases in Budgets.elm.");
    },
  ),
  sc(
    "w21-elm-hard-negatives",
    "elm",
    "a guide quoted, descriptive always, a for-now instruction",
    "2026-01-21T14:30:00.000Z",
    (s) =>
      turns(s, "elm", [
        [
          "the elm guide says 'never leave Debug.log in production code' — does --optimize refuse to build with it?",
          HN("question"),
        ],
        ["it always recompiles everything when I touch Api.elm, annoying", HN("one-off")],
        ["leave the Debug.log calls in for now, I'm still debugging", HN("one-off")],
        [
          "the backend is a separate repo, budget-api, it serves /api on 8787 locally",
          D("fact", "project", "The backend (repo budget-api) serves /api on port 8787 locally."),
        ],
      ]),
  ),
];

const NG: Script[] = [
  sc(
    "w22-ng-npm-token",
    "ng",
    "an npm token pasted; the private registry stated",
    "2026-01-22T08:50:00.000Z",
    (s) => {
      const tok = s.secret("npm");
      s.userS(
        `pnpm install fails on @acme/ui, use my token for the private registry: ${tok}`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(CHORES.ng[0]);
      s.say("Installed with the token from the environment; I didn't write it into .npmrc.");
      s.user(
        "good. the @acme scope comes from our Verdaccio at npm.acme.internal, everything else from the public registry",
        D(
          "fact",
          "project",
          "The @acme packages come from the Verdaccio registry at npm.acme.internal.",
        ),
      );
      s.say("Added the scoped registry line to .npmrc without credentials.");
    },
  ),
  sc(
    "w23-ng-pnpm-like-always",
    "ng",
    "a stored rule repeated casually; version and convention facts",
    "2026-01-22T14:00:00.000Z",
    (s) =>
      turns(s, "ng", [
        [
          "pnpm please, like always",
          D("rule", "project", "Use pnpm in claims-portal.", {
            dup: "Use pnpm, never npm or yarn, in claims-portal.",
          }),
        ],
        [
          "we're on Angular 18 and everything new is standalone, no new NgModules",
          D("fact", "project", "The portal is on Angular 18."),
          D("rule", "project", "New components are standalone; no new NgModules."),
        ],
        ["add a claim-status badge component", R],
      ]),
    { stored: ["Use pnpm, never npm or yarn, in claims-portal."] },
  ),
  sc(
    "w24-ng-review-comments",
    "ng",
    "review comments pasted: a decision, a nit, a PR-only instruction",
    "2026-01-23T09:40:00.000Z",
    (s) =>
      turns(s, "ng", [
        [
          "review from Joana on !88:\n\n> services: use inject() instead of constructor injection in new code — team decision from the Q3 retro, it reads better with standalone components\n> claims-list.component.ts L30: typo, 'recieved'\n> for this MR keep the old table, we swap to the new grid next sprint",
          D(
            "decision",
            "project",
            "New code uses inject() instead of constructor injection (team decision, Q3 retro).",
          ),
          HN("one-off"),
          R,
        ],
        ["done? then push", R],
      ]),
  ),
  sc(
    "w25-ng-answers",
    "ng",
    "facts given only as answers to the agent's questions",
    "2026-01-24T10:15:00.000Z",
    (s) => {
      s.user("the dev server gets 504s from /api", R);
      s.tools(CHORES.ng[1]);
      s.say("Which backend should the dev proxy reach, and on which port?");
      s.user(
        "the claims api on localhost:8090, proxy.conf.json maps /api to it",
        D(
          "fact",
          "project",
          "In development the claims API runs on localhost:8090; proxy.conf.json maps /api to it.",
        ),
      );
      s.say("The proxy points at 8080. Who should review a change to the auth interceptor?");
      s.user(
        "Pedro, he owns src/app/core/auth",
        D("fact", "project", "Pedro owns src/app/core/auth (the auth interceptor)."),
      );
      s.tools(CHORES.ng[0]);
      s.say("Fixed the proxy port; no interceptor change was needed.");
    },
  ),
  sc(
    "w26-ng-hard-negatives",
    "ng",
    "questions like rules, a blog maxim, a demo-only always",
    "2026-01-25T13:00:00.000Z",
    (s) =>
      turns(s, "ng", [
        ["should we always use OnPush change detection?", HN("question")],
        [
          "a blog said 'never subscribe inside a subscribe' — is that what ClaimDetail does?",
          HN("question"),
        ],
        [
          "it never loads on safari, probably the date pipe and the pt-PT locale",
          HN("hypothesis"),
        ],
        ["for the demo today make the mock server always return three claims", HN("one-off")],
        [
          "btw the e2e suite is cypress, run from the separate claims-e2e repo, not here",
          D("fact", "project", "The E2E suite is Cypress, in the separate claims-e2e repository."),
        ],
      ]),
  ),
];

const PERL: Script[] = [
  sc(
    "w27-perl-formal-letter",
    "perl",
    "an old-timer writing formal letters with several rules and facts",
    "2026-01-26T07:55:00.000Z",
    (s) =>
      turns(s, "perl", [
        [
          "Good morning. A few notes, as this codebase predates most of the team.\n\nEvery module begins with `use strict; use warnings;` — no exceptions. Production runs Perl 5.16 on CentOS 7 (yes, I know), so please write no subroutine signatures and no postfix dereferencing. The invoices are produced by bin/run_invoices.pl, which cron starts at 02:00 every night.\n\nKindly fix the rounding in Billing::Tax.\n\nRegards, Walter",
          D("rule", "project", "Every Perl module begins with use strict; use warnings;."),
          D("fact", "project", "Production runs Perl 5.16 on CentOS 7."),
          D(
            "rule",
            "project",
            "Code must run on Perl 5.16: no subroutine signatures, no postfix dereferencing.",
          ),
          D(
            "fact",
            "project",
            "Invoices are produced by bin/run_invoices.pl, started by cron at 02:00 nightly.",
          ),
          R,
        ],
        ["Thank you. Please also add a test for the half-cent case.", R],
      ]),
  ),
  sc(
    "w28-perl-gitlab-token",
    "perl",
    "a GitLab token pasted; the canonical repository stated",
    "2026-01-26T15:10:00.000Z",
    (s) => {
      const tok = s.secret("gitlab");
      s.userS(
        `the mirror push fails because the token in the CI variables expired. use this one for now: ${tok}`,
        [tok],
        N("secret"),
        R,
      );
      s.tools(CHORES.perl[0]);
      s.say("I can't set CI variables from here; please paste it into the MIRROR_TOKEN variable.");
      s.user(
        "fine. for the record the canonical repo is gitlab.acme.internal/billing/legacy-billing; the github copy is a read-only mirror",
        D(
          "fact",
          "project",
          "The canonical repository is gitlab.acme.internal/billing/legacy-billing; GitHub is a read-only mirror.",
        ),
      );
      s.say("Noted; I'll open merge requests on GitLab only.");
    },
  ),
  sc(
    "w29-perl-no-rewrite",
    "perl",
    "a decision with its reasons; the test command",
    "2026-01-27T10:30:00.000Z",
    (s) =>
      turns(s, "perl", [
        [
          "please don't propose rewriting this in Python. we decided against it last year: the estimate was nine months and the system retires in 2027. small, careful fixes only.",
          D(
            "decision",
            "project",
            "No rewrite (e.g. to Python): the system retires in 2027, so only small careful fixes.",
          ),
        ],
        [
          "tests are `prove -lr t/` and they need the billing_test schema on the local MySQL, port 3307",
          D(
            "fact",
            "project",
            "Tests run with prove -lr t/ against the billing_test schema on local MySQL port 3307.",
          ),
        ],
        ["run them", R],
      ]),
  ),
  sc(
    "w30-perl-hard-negatives",
    "perl",
    "a linter quoted, a one-time manual patch, a hunch",
    "2026-01-28T09:00:00.000Z",
    (s) =>
      turns(s, "perl", [
        [
          "perlcritic says 'never use two-argument open' — how many of those do we still have?",
          HN("question"),
        ],
        ["just this time, patch the prod config by hand, Ops knows about it", HN("one-off")],
        ["I bet the tax bug is the float comparison around line 212", HN("hypothesis")],
        [
          "Greta in finance signs off any change to how VAT is computed, so send her the diff",
          D(
            "rule",
            "project",
            "Any change to how VAT is computed needs sign-off from Greta in finance.",
          ),
          R,
        ],
      ]),
  ),
];

const VAPOR: Script[] = [
  sc(
    "w31-vapor-stripe-restricted",
    "vapor",
    "a restricted Stripe key inside a statement about the setup",
    "2026-01-29T08:40:00.000Z",
    (s) => {
      const key = s.secret("stripeRestricted");
      s.userS(
        `the refunds job reads the restricted key ${key} from the STRIPE_REFUNDS_KEY env var on Fly`,
        [key],
        D(
          "fact",
          "project",
          "The refunds job reads its Stripe restricted key from the STRIPE_REFUNDS_KEY env var on Fly.",
          { secret: true },
        ),
      );
      s.say('Understood; the job already uses Environment.get("STRIPE_REFUNDS_KEY").');
      s.user(
        "the app runs on fly.io, region ams, two machines. why does the job run twice?",
        D("fact", "project", "The app runs on Fly.io in region ams, on two machines."),
        Q,
      );
      s.tools(CHORES.vapor[1]);
      s.say("Both machines schedule the job; I'll guard it with a Postgres advisory lock.");
    },
  ),
  sc(
    "w32-vapor-arrows",
    "vapor",
    "shorthand with arrows: topic → rule",
    "2026-01-29T14:20:00.000Z",
    (s) =>
      turns(s, "vapor", [
        [
          "conventions →\nmigrations → Fluent only, in Sources/App/Migrations, never raw .sql files\nformatting → swift-format before every commit\nlanguage → stay on Swift 5.10 mode, no Swift 6 strict concurrency until Vapor 5\n\nthen → add a low-stock endpoint",
          D(
            "rule",
            "project",
            "Migrations are Fluent migrations in Sources/App/Migrations; never raw .sql files.",
          ),
          D("rule", "project", "Run swift-format before every commit."),
          D(
            "decision",
            "project",
            "Stay in Swift 5.10 language mode; no Swift 6 strict concurrency until Vapor 5.",
          ),
          R,
        ],
        ["threshold → 5 units, hardcode it for now", HN("one-off")],
      ]),
  ),
  sc(
    "w33-vapor-confirm-owner",
    "vapor",
    "the agent's reading of the setup confirmed; an owner",
    "2026-01-30T10:05:00.000Z",
    (s) => {
      s.user("why does swift test not need the database?", Q);
      s.tools(CHORES.vapor[0]);
      s.say(
        "configure.swift swaps in an in-memory SQLite database under the testing environment, and the tests use XCTVapor, so `swift test` needs no Postgres. Is that setup intended?",
      );
      s.confirm(
        "correct, keep it that way",
        "rule",
        "project",
        "Tests use XCTVapor with an in-memory SQLite database; swift test needs no Postgres.",
      );
      s.say("OK. The deploy change you mentioned touches fly.toml.");
      s.user(
        "then wait — Kofi owns fly.toml and the deploy config, nothing changes there without him",
        D(
          "rule",
          "project",
          "fly.toml and the deploy config are owned by Kofi; no change there without him.",
        ),
      );
      s.say("I'll leave fly.toml alone and write Kofi a note with the proposed change.");
    },
  ),
  sc(
    "w34-vapor-hard-negatives",
    "vapor",
    "docs quoted, descriptive always, a PR-scoped don't",
    "2026-01-31T11:45:00.000Z",
    (s) =>
      turns(s, "vapor", [
        [
          "the Vapor docs say 'always prefer async/await over EventLoopFuture' — do we still have futures somewhere?",
          HN("question"),
        ],
        ["swift build always takes like 4 minutes on the CI runner", HN("one-off")],
        ["don't touch Package.resolved in this PR", HN("one-off")],
        [
          "CI is a GitHub Actions workflow on macos-14 runners, the Linux job only builds the Docker image",
          D(
            "fact",
            "project",
            "CI runs on GitHub Actions macos-14 runners; the Linux job only builds the Docker image.",
          ),
        ],
      ]),
  ),
];

const NVIM: Script[] = [
  sc(
    "w35-nvim-global-prefs",
    "nvim",
    "personal preferences for every project, and a project rule",
    "2026-02-02T20:10:00.000Z",
    (s) =>
      turns(s, "nvim", [
        [
          "general things about me, wherever we work: short imperative commit subjects, no body unless it's really needed. and no emojis in anything you write for me",
          D(
            "preference",
            "global",
            "Commit messages: a short imperative subject, no body unless really needed.",
          ),
          D("preference", "global", "No emojis in anything written for the user."),
        ],
        [
          "for this plugin specifically: Lua 5.1 / LuaJIT compatible code only, neovim embeds luajit. no goto, no integer division operator",
          D(
            "rule",
            "project",
            "Plugin code must be Lua 5.1/LuaJIT compatible (no goto, no // operator).",
          ),
        ],
        ["now add a :TidyToggle command", R],
      ]),
  ),
  sc(
    "w36-nvim-github-token",
    "nvim",
    "a GitHub token pasted for a release; the release rule",
    "2026-02-03T19:30:00.000Z",
    (s) => {
      const tok = s.secret("github");
      s.userS(`gh release create fails, try GH_TOKEN=${tok}`, [tok], N("secret"), R);
      s.say(
        "Before I use it: the repo has a release-please workflow. Do you cut releases by hand as well?",
      );
      s.user(
        "oh right, no. releases come from release-please when its PR merges to main, never tag by hand",
        D(
          "rule",
          "project",
          "Releases are cut by release-please when its PR merges to main; never tag by hand.",
        ),
      );
      s.say("Then I won't create the release; the release-please PR is open as #57.");
    },
  ),
  sc(
    "w37-nvim-facts-private",
    "nvim",
    "facts about the test matrix; a private aside",
    "2026-02-04T21:00:00.000Z",
    (s) =>
      turns(s, "nvim", [
        [
          "min supported neovim is 0.9 — CI tests 0.9 and nightly, the matrix is in .github/workflows/test.yml",
          D(
            "fact",
            "project",
            "The minimum supported Neovim is 0.9; CI tests 0.9 and nightly (.github/workflows/test.yml).",
          ),
        ],
        [
          "tests are mini.test, `make test` runs them headless. <private>I'm job hunting, this plugin is basically my portfolio</private>",
          D("fact", "project", "Tests use mini.test and run headless with make test."),
          N("private"),
        ],
        ["add a test for filetypes_exclude", R],
      ]),
  ),
  sc(
    "w38-nvim-hard-negatives",
    "nvim",
    "venting, a style guide quoted, a for-now setting",
    "2026-02-05T20:40:00.000Z",
    (s) =>
      turns(s, "nvim", [
        [
          "the lua style guide says 'always use local variables' — are we leaking globals anywhere?",
          HN("question"),
        ],
        ["stylua never formats the long tables the way I want", HN("one-off")],
        ["maybe it's the column_width in stylua.toml", HN("hypothesis")],
        ["set column_width to 120 just for now, I'll decide later", HN("one-off")],
        [
          "the plugin is listed on dotfyle and the docs are generated from the annotations by panvimdoc into doc/tidy.txt",
          D(
            "fact",
            "project",
            "doc/tidy.txt is generated from the annotations by panvimdoc.",
          ),
        ],
      ]),
  ),
];

const ASTRO: Script[] = [
  sc(
    "w39-astro-openai-key",
    "astro",
    "an OpenAI key pasted for a reindex; a fact about the nightly job",
    "2026-02-06T09:15:00.000Z",
    (s) => {
      const key = s.secret("openai");
      s.userS(
        `the search reindex needs OPENAI_API_KEY, here: ${key} — run it`,
        [key],
        N("secret"),
        R,
      );
      s.tools(CHORES.astro[0]);
      s.say("Reindexed 96 pages; the key was only in this process's environment.");
      s.user(
        "normally the search embeddings are rebuilt nightly by the reindex GitHub Action, not locally — today was an exception",
        D(
          "fact",
          "project",
          "The search embeddings are rebuilt nightly by the reindex GitHub Action, not locally.",
        ),
      );
      s.say("Understood.");
    },
  ),
  sc(
    "w40-astro-ticket-template",
    "astro",
    "a request written as a ticket with Context/Rules/Task headings",
    "2026-02-06T14:00:00.000Z",
    (s) =>
      turns(s, "astro", [
        [
          "**Context:** docs site, Astro 4 with Starlight.\n**Rules:** pages are MDX under src/content/docs. Images go in src/assets and are imported, never dropped into public/.\n**Task:** add a 'Webhooks' page under guides.",
          D("fact", "project", "The docs site is Astro 4 with Starlight."),
          D("rule", "project", "Doc pages are MDX files under src/content/docs."),
          D(
            "rule",
            "project",
            "Images go in src/assets and are imported, never placed in public/.",
          ),
          R,
        ],
        ["**Task:** link it from the sidebar too.", R],
      ]),
  ),
  sc(
    "w41-astro-dup-with-reason",
    "astro",
    "a stored rule repeated with its reason; the hosting",
    "2026-02-07T10:30:00.000Z",
    (s) =>
      turns(s, "astro", [
        [
          "screenshots in src/assets as usual — anything in public/ skips the image optimizer, that's the whole reason",
          D(
            "rule",
            "project",
            "Images go in src/assets (public/ skips the image optimizer).",
            { dup: "Images go in src/assets and are imported, never placed in public/." },
          ),
          R,
        ],
        [
          "the site deploys to Cloudflare Pages from main, and each PR gets a preview URL",
          D(
            "fact",
            "project",
            "The site deploys to Cloudflare Pages from main, with a preview per PR.",
          ),
        ],
      ]),
    { stored: ["Images go in src/assets and are imported, never placed in public/."] },
  ),
  sc(
    "w42-astro-hard-negatives",
    "astro",
    "a question like a rule, a launch-only always, a task-scoped ignore",
    "2026-02-08T12:20:00.000Z",
    (s) =>
      turns(s, "astro", [
        ["should we never use client:load on the landing page?", HN("question")],
        ["for the launch post, always show the announcement banner", HN("one-off")],
        [
          "the link checker always flags the changelog page, skip it in this run",
          HN("one-off"),
        ],
        [
          "Gwen (me) owns the docs IA; product teams own the content of their own sections",
          D(
            "fact",
            "project",
            "Gwen owns the docs information architecture; product teams own their sections' content.",
          ),
        ],
      ]),
  ),
];

const MIXED: Script[] = [
  sc(
    "w43-axum-global-working-prefs",
    "axum",
    "global working preferences stated inside a project session",
    "2026-02-09T08:00:00.000Z",
    (s) =>
      turns(s, "axum", [
        [
          "something for all my projects: run the tests before you tell me something is done",
          D("preference", "global", "Run the tests before reporting a change as done."),
        ],
        [
          "and explain diffs as a bullet list, not paragraphs",
          D("preference", "global", "Explain diffs as bullet lists, not paragraphs."),
        ],
        ["now make GET /v1/docs paginate with a cursor", R],
      ]),
  ),
  sc(
    "w44-zig-contra-ci-image",
    "zig",
    "a stored fact replaced; the CI image's owner",
    "2026-02-10T09:30:00.000Z",
    (s) =>
      turns(s, "zig", [
        [
          "heads up, we moved to zig 0.13 last week, the CI image too",
          D("fact", "project", "The library now uses Zig 0.13 (CI image included).", {
            contra: "The library is pinned to Zig 0.12.",
          }),
        ],
        [
          "Nadia maintains that image, ghcr.io/zig-msgpack/ci, ask her before bumping it",
          D(
            "fact",
            "project",
            "Nadia maintains the CI image ghcr.io/zig-msgpack/ci; ask her before bumping it.",
          ),
        ],
        ["fix whatever 0.13 broke in encode.zig", R],
      ]),
    { stored: ["The library is pinned to Zig 0.12."] },
  ),
];

export const HOLDOUT6: Script[] = [
  ...AXUM,
  ...ZIG,
  ...TEX,
  ...PACKER,
  ...ELM,
  ...NG,
  ...PERL,
  ...VAPOR,
  ...NVIM,
  ...ASTRO,
  ...MIXED,
];
