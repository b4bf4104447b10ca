/**
 * Hand-written sessions of the capture benchmark's `holdout4` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark task, docs page or results (nor
 * the `holdout3` split written at the same time), and frozen before any tuning against them. Ten
 * projects new to the data set: a Laravel shop, an iOS SwiftUI app, a Clojure service, a dbt +
 * BigQuery repository, a Pulumi TypeScript repository, Nix flake dotfiles, an Electron app, a
 * Solidity/Foundry repository, a Godot game and an R/Shiny dashboard.
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

/** A hard negative: rule words (always, never, don't, …) that state no standing rule. */
const HN = (why: Parameters<typeof N>[0]): Label => N(why);

/** The holdout4 split's projects. */
const P = {
  shop: "/home/paulo/sites/bazaar-shop",
  ios: "/Users/hana/Developer/PantryPal",
  clj: "/home/mikko/src/ledger-svc",
  dbt: "/home/ana/work/analytics-dbt",
  pulumi: "/Users/tom/code/platform-pulumi",
  nix: "/home/jo/src/nix-dotfiles",
  electron: "/home/sven/code/markpad",
  sol: "/home/rin/dev/vault-contracts",
  godot: "/home/lea/games/moss-and-mire",
  shiny: "/home/kofi/projects/clinic-dash",
} as const;

const CHORES: Record<keyof typeof P, ToolStep[]> = {
  shop: [
    bash(
      "php artisan test --parallel --filter=Checkout",
      "  PASS  Tests\\Feature\\CheckoutTest\n  ✓ guest can reach checkout\n  ✓ cart total is computed in cents\n  ✓ coupon is applied once\n\n  Tests:    3 passed (11 assertions)\n  Duration: 2.84s (parallel: 4 processes)",
    ),
    read(
      `${P.shop}/app/Http/Controllers/CheckoutController.php`,
      "<?php\n\nnamespace App\\Http\\Controllers;\n\nuse App\\Models\\Cart;\nuse Illuminate\\Http\\Request;\n\nclass CheckoutController extends Controller\n{\n    public function show(Request $request)\n    {\n        $cart = Cart::forUser($request->user())->with('items.product')->firstOrFail();\n        return view('checkout.show', ['cart' => $cart]);\n    }\n}",
    ),
    bash(
      "composer lint",
      "> ./vendor/bin/pint --test\n\n  PASS   ............................................. 214 files",
    ),
    bash("git status --short", " M app/Http/Controllers/CheckoutController.php\n M routes/web.php"),
  ],
  ios: [
    bash(
      "xcodebuild test -scheme PantryPal -destination 'platform=iOS Simulator,name=iPhone 15' -quiet",
      "Test Suite 'All tests' passed at 2025-10-14 09:12:44.201.\n\t Executed 38 tests, with 0 failures (0 unexpected) in 4.102 (4.311) seconds",
    ),
    read(
      `${P.ios}/PantryPal/Views/ExpiryListView.swift`,
      'import SwiftUI\nimport SwiftData\n\nstruct ExpiryListView: View {\n    @Query(sort: \\Item.expiresOn) private var items: [Item]\n\n    var body: some View {\n        List(items) { item in\n            ItemRow(item: item)\n        }\n        .navigationTitle("Expiring")\n    }\n}',
    ),
    bash("swift format lint -r PantryPal", ""),
  ],
  clj: [
    bash(
      "bin/kaocha --focus ledger.settlement-test",
      "[(.......)]\n7 tests, 21 assertions, 0 failures.",
    ),
    read(
      `${P.clj}/src/ledger/settlement.clj`,
      "(ns ledger.settlement\n  (:require [ledger.posting :as posting]\n            [next.jdbc :as jdbc]))\n\n(defn settle-batch! [ds batch]\n  (posting/transact! ds (mapcat batch->postings (:items batch))))",
    ),
    bash("clj-kondo --lint src test", "linting took 812ms, errors: 0, warnings: 0"),
  ],
  dbt: [
    bash(
      "dbt build --select stg_app__events+ --target dev",
      "09:41:02  Running with dbt=1.8.7\n09:41:05  Found 132 models, 418 data tests, 21 sources\n09:41:39  Completed successfully\n09:41:39  Done. PASS=17 WARN=0 ERROR=0 SKIP=0 TOTAL=17",
    ),
    read(
      `${P.dbt}/models/marts/fct_orders.sql`,
      "{{ config(materialized='incremental', partition_by={'field': 'order_date', 'data_type': 'date'}) }}\n\nselect\n    order_id,\n    customer_id,\n    order_date,\n    amount_cents\nfrom {{ ref('stg_shop__orders') }}\n{% if is_incremental() %}\nwhere order_date >= date_sub(current_date(), interval 3 day)\n{% endif %}",
    ),
    bash("sqlfluff lint models/marts", "All Finished 📜 🎉!"),
  ],
  pulumi: [
    bash(
      "pulumi preview --stack acme/platform/staging --diff | tail -4",
      "Resources:\n    ~ 2 to update\n    48 unchanged\n\nDuration: 14s",
    ),
    read(
      `${P.pulumi}/src/network.ts`,
      'import * as aws from "@pulumi/aws";\nimport * as pulumi from "@pulumi/pulumi";\n\nexport class Network extends pulumi.ComponentResource {\n  public readonly vpcId: pulumi.Output<string>;\n  constructor(name: string, args: { cidr: string }, opts?: pulumi.ComponentResourceOptions) {\n    super("acme:platform:Network", name, {}, opts);\n    const vpc = new aws.ec2.Vpc(name, { cidrBlock: args.cidr }, { parent: this });\n    this.vpcId = vpc.id;\n  }\n}',
    ),
    bash("npx tsc --noEmit", ""),
  ],
  nix: [
    bash(
      "nix flake check",
      "evaluating flake...\nchecking flake output 'nixosConfigurations'...\nchecking NixOS configuration 'nixosConfigurations.kestrel'...\nchecking NixOS configuration 'nixosConfigurations.heron'...",
    ),
    read(
      `${P.nix}/flake.nix`,
      '{\n  inputs = {\n    nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.05";\n    nixpkgs-unstable.url = "github:NixOS/nixpkgs/nixpkgs-unstable";\n    home-manager.url = "github:nix-community/home-manager/release-24.05";\n    home-manager.inputs.nixpkgs.follows = "nixpkgs";\n  };\n  outputs = inputs: import ./outputs.nix inputs;\n}',
    ),
    bash(
      "nixos-rebuild build --flake .#kestrel",
      "building the system configuration...\n/nix/store/5x1…-nixos-system-kestrel-24.05.20251012",
    ),
  ],
  electron: [
    bash(
      "pnpm test",
      "> markpad@3.2.0 test\n> vitest run\n\n ✓ src/main/menu.test.ts (6 tests)\n ✓ src/renderer/editor.test.ts (22 tests)\n\n Test Files  2 passed (2)\n      Tests  28 passed (28)",
    ),
    read(
      `${P.electron}/src/preload/index.ts`,
      'import { contextBridge, ipcRenderer } from "electron";\n\ncontextBridge.exposeInMainWorld("markpad", {\n  openFile: () => ipcRenderer.invoke("file:open"),\n  saveFile: (path: string, text: string) => ipcRenderer.invoke("file:save", path, text),\n});',
    ),
    bash("pnpm lint", "> markpad@3.2.0 lint\n> eslint . --max-warnings 0"),
  ],
  sol: [
    bash(
      "forge test --match-contract VaultTest -vv",
      "[⠊] Compiling...\nNo files changed, compilation skipped\n\nRan 12 tests for test/Vault.t.sol:VaultTest\n[PASS] test_deposit_mints_shares() (gas: 118204)\n[PASS] test_withdraw_burns_shares() (gas: 97311)\nSuite result: ok. 12 passed; 0 failed; 0 skipped",
    ),
    read(
      `${P.sol}/src/Vault.sol`,
      '// SPDX-License-Identifier: AGPL-3.0\npragma solidity 0.8.24;\n\nimport {ERC4626} from "solmate/tokens/ERC4626.sol";\n\n/// @notice Single-asset yield vault.\ncontract Vault is ERC4626 {\n    error DepositCapExceeded(uint256 cap);\n}',
    ),
    bash("forge fmt --check", ""),
  ],
  godot: [
    bash(
      "godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test -gexit",
      "---  Run Summary  ---\nScripts            9\nTests             61\nPassing Tests     61\nAsserts          143\nTime              2.41s\n\nAll tests passed!",
    ),
    read(
      `${P.godot}/scenes/player/player.gd`,
      'extends CharacterBody2D\n\nsignal health_changed(value: int)\n\n@export var speed: float = 140.0\nvar health: int = 5\n\nfunc _physics_process(delta: float) -> void:\n\tvar dir := Input.get_vector("left", "right", "up", "down")\n\tvelocity = dir * speed\n\tmove_and_slide()',
    ),
    bash("gdlint scenes", "Success: no problems found"),
  ],
  shiny: [
    bash(
      "Rscript -e 'testthat::test_local()'",
      "══ Testing clinic-dash ══════════════════════════\n[ FAIL 0 | WARN 0 | SKIP 1 | PASS 46 ]",
    ),
    read(
      `${P.shiny}/R/mod_waittimes.R`,
      'mod_waittimes_ui <- function(id) {\n  ns <- NS(id)\n  tagList(\n    selectInput(ns("region"), "Region", choices = NULL),\n    plotOutput(ns("plot"))\n  )\n}\n\nmod_waittimes_server <- function(id, pool) {\n  moduleServer(id, function(input, output, session) {\n    output$plot <- renderPlot(plot_waittimes(fetch_waittimes(pool, input$region)))\n  })\n}',
    ),
    bash("Rscript -e 'lintr::lint_dir(\"R\")'", ""),
  ],
};

/** Adds `n` routine tool calls of the project, cycling from `offset`. */
function chores(s: Session, p: keyof typeof P, n: number, offset = 0): void {
  const pool = CHORES[p];
  for (let i = 0; i < n; i++) s.tools(pool[(offset + i) % pool.length]);
}

const SHOP: Script[] = [
  {
    id: "k01-shop-mixed-fillers",
    cwd: P.shop,
    style: "mixed English and Portuguese filler words; two rules stated while a bug is being fixed",
    start: "2025-10-13T12:04:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "então, the checkout is throwing 419 right after login, tipo, only on safari. can you look?",
        N("request"),
      );
      chores(s, "shop", 2, 1);
      s.tools(
        read(
          `${P.shop}/config/session.php`,
          "'same_site' => env('SESSION_SAME_SITE', 'strict'),",
        ),
      );
      s.say(
        "A 419 is a CSRF token mismatch. `same_site` is `strict`, so Safari drops the session cookie on the redirect back from the login provider. Setting it to `lax` fixes it.",
      );
      s.user(
        "ah sim, faz sentido. olha, aqui na bazaar we run tests with `php artisan test --parallel`, nunca phpunit direto, né — the parallel runner is what creates the separate test databases",
        D(
          "rule",
          "project",
          "In bazaar-shop run tests with `php artisan test --parallel`, not phpunit directly (the parallel runner creates the test databases)",
        ),
      );
      chores(s, "shop", 1, 0);
      s.say("Done: `same_site` is `lax` and the checkout tests pass in parallel.");
      s.user(
        "e outra coisa, money is always integer cents in this codebase, nunca float, tá? I saw you wrote 19.99 in the test fixture",
        N("request"),
        D("rule", "project", "bazaar-shop stores money as integer cents, never as floats"),
      );
      s.tools(
        edit(
          `${P.shop}/tests/Feature/CheckoutTest.php`,
          "'price' => 19.99",
          "'price' => 1999",
        ),
      );
      s.say("Fixture changed to 1999 cents.");
      s.user("beleza, commit it", N("request"));
      s.tools(
        bash(
          "git commit -am 'session: SameSite lax for the login redirect'",
          "[fix/safari-419 3c1e2f0] session: SameSite lax for the login redirect\n 2 files changed, 2 insertions(+), 2 deletions(-)",
        ),
      );
      s.say("Committed.");
    },
  },
  {
    id: "k02-shop-queue-answers",
    cwd: P.shop,
    style:
      "facts given as answers to the agent's questions, with Portuguese fillers; a hypothesis; 'just this time'",
    start: "2025-10-14T09:30:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user("order confirmation emails are super slow, move them to the queue pls", N("request"));
      chores(s, "shop", 1, 1);
      s.say(
        "OrderConfirmed is sent synchronously from the controller. Which queue connection runs in production, Redis or the database driver? And should mail go on its own queue?",
      );
      s.user(
        "redis, com Horizon. mail jobs go on the `notifications` queue, não no default, porque o default fica entupido de import jobs",
        D(
          "fact",
          "project",
          "bazaar-shop runs its queues on Redis with Horizon; mail jobs go on the `notifications` queue, not `default`",
        ),
      );
      s.tools(
        edit(
          `${P.shop}/app/Mail/OrderConfirmed.php`,
          "class OrderConfirmed extends Mailable\n{",
          "class OrderConfirmed extends Mailable implements ShouldQueue\n{\n    public $queue = 'notifications';",
        ),
      );
      s.say("OrderConfirmed now implements ShouldQueue on the `notifications` queue.");
      s.user(
        "hmm, talvez the slowness was the SMTP handshake all along, né? mailtrap is slow às vezes",
        HN("hypothesis"),
      );
      s.say("Possibly; queueing hides that latency from the request either way.");
      s.user(
        "não precisa escrever teste pra isso, just this time, tô com pressa pra deploy",
        HN("one-off"),
      );
      s.say("Skipping the test; the change is ready to deploy.");
    },
  },
  {
    id: "k03-shop-stripe-env",
    cwd: P.shop,
    style:
      "a Stripe live key pasted for a local .env (not durable); a rule about config(); a linter's rule quoted, to ignore for now",
    start: "2025-10-16T15:10:00.000Z",
    version: "2.0.28",
    run: (s) => {
      const key = s.secret("stripe");
      s.userS(
        `coloca no meu .env local pra testar o webhook: STRIPE_SECRET=${key}`,
        [key],
        N("secret"),
      );
      s.say(
        "I won't write a live key into a file; put it in `.env` yourself and I'll use `config('services.stripe.secret')`.",
      );
      s.user(
        "ok justo. and yeah that's the rule here: env() only inside config/ files, everywhere else it's config(), because env() returns null once config is cached in prod",
        D(
          "rule",
          "project",
          "In bazaar-shop call env() only inside config/ files; use config() everywhere else (env() is null once config is cached)",
        ),
      );
      s.tools(
        grep("env\\(", ["app/Services/StripeWebhook.php", "app/Providers/AppServiceProvider.php"]),
      );
      s.say("Two places call env() outside config/; I'll move them to config().");
      s.user(
        "phpstan is also yelling 'Method should always declare a return type' on the old controllers — deixa, don't touch those now",
        HN("request"),
      );
      s.say("Leaving the old controllers alone.");
    },
  },
  {
    id: "k04-shop-stored-lint-db",
    cwd: P.shop,
    stored: [
      "Run `composer lint` (Laravel Pint) before committing in bazaar-shop",
      "bazaar-shop's production database is MySQL 8",
    ],
    style:
      "a stored lint rule repeated in other words; a migration that contradicts the stored database fact",
    start: "2025-10-20T10:00:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user(
        "add a `gift_message` column to orders, nullable text. and antes de commitar passa o pint, like always",
        N("request"),
        D("rule", "project", "Run Pint (`composer lint`) before committing in bazaar-shop", {
          dup: "Run `composer lint` (Laravel Pint) before committing in bazaar-shop",
        }),
      );
      s.tools(
        write(
          `${P.shop}/database/migrations/2025_10_20_100000_add_gift_message_to_orders.php`,
          "<?php\n\nreturn new class extends Migration {\n    public function up(): void\n    {\n        Schema::table('orders', fn (Blueprint $t) => $t->text('gift_message')->nullable());\n    }\n};",
        ),
      );
      s.say(
        "Migration written. I used `->text()`; on MySQL 8 that can't have a default, which is fine here.",
      );
      s.user(
        "a gente saiu do MySQL, prod is Postgres 16 since september. so no more MySQL-isms like JSON_EXTRACT in raw queries",
        D(
          "fact",
          "project",
          "bazaar-shop's production database is PostgreSQL 16 (moved off MySQL in September); no MySQL-specific SQL",
          { contra: "bazaar-shop's production database is MySQL 8" },
        ),
      );
      chores(s, "shop", 1, 2);
      s.say("Noted. Pint passes.");
      s.user("valeu, commit", N("request"));
    },
  },
];

const IOS: Script[] = [
  {
    id: "k05-ios-answers-widget",
    cwd: P.ios,
    style: "a user who gives facts only as answers to the agent's questions; a decision",
    start: "2025-10-14T08:40:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user("add a home screen widget showing what expires this week", N("request"));
      chores(s, "ios", 1, 1);
      s.say(
        "Two things first: is there already an App Group for sharing the store with extensions? And what's the deployment target?",
      );
      s.user(
        "yes, group.app.pantrypal.shared. and iOS 17",
        D("fact", "project", "PantryPal's App Group is group.app.pantrypal.shared"),
        D("fact", "project", "PantryPal's deployment target is iOS 17"),
      );
      s.say("Is the store SwiftData or Core Data?");
      s.user(
        "swiftdata. there's no core data anywhere and we're keeping it that way",
        D("decision", "project", "PantryPal uses SwiftData only; no Core Data"),
      );
      s.tools(
        write(
          `${P.ios}/ExpiryWidget/ExpiryWidget.swift`,
          'import WidgetKit\nimport SwiftUI\nimport SwiftData\n\nstruct ExpiryWidget: Widget {\n    var body: some WidgetConfiguration {\n        StaticConfiguration(kind: "ExpiryWidget", provider: ExpiryProvider()) { entry in\n            ExpiryWidgetView(entry: entry)\n        }\n    }\n}',
        ),
      );
      s.say("Widget target added, reading the shared SwiftData container.");
      s.user(
        "nice, build it. always use the small family for now, we'll do medium later",
        N("request"),
        HN("one-off"),
      );
      chores(s, "ios", 1, 0);
      s.say("Builds and tests pass.");
    },
  },
  {
    id: "k06-ios-places-key",
    cwd: P.ios,
    style:
      "a Google API key pasted (not durable); a rule about gitignored xcconfig files; a descriptive 'always' question; 'never mind'",
    start: "2025-10-17T13:15:00.000Z",
    version: "2.0.28",
    run: (s) => {
      const key = s.secret("google");
      s.userS(
        `places autocomplete needs the key: ${key} — put it in Secrets.xcconfig`,
        [key],
        N("secret"),
      );
      s.tools(
        bash(
          "git check-ignore -v PantryPal/Config/Secrets.xcconfig",
          ".gitignore:14:*Secrets.xcconfig\tPantryPal/Config/Secrets.xcconfig",
        ),
      );
      s.say(
        "Secrets.xcconfig is gitignored; I added `PLACES_API_KEY` there and read it from Info.plist.",
      );
      s.user(
        "good that you checked. make that a habit here: before a key goes into any xcconfig, confirm with git check-ignore that the file is ignored",
        D(
          "rule",
          "project",
          "In PantryPal, confirm with `git check-ignore` that an xcconfig file is ignored before putting a key in it",
        ),
      );
      s.say("Will do.");
      s.user("why does the simulator always crash when I open the camera sheet?", HN("question"));
      s.say("The simulator has no camera: presenting a `.camera` source picker there crashes.");
      s.user("ah. never mind the camera then, just stub it out for now", HN("request"));
      s.tools(
        edit(
          `${P.ios}/PantryPal/Views/ScanSheet.swift`,
          "CameraPicker(source: .camera)",
          '#if targetEnvironment(simulator)\nText("Camera unavailable")\n#else\nCameraPicker(source: .camera)\n#endif',
        ),
      );
      s.say("Stubbed on the simulator.");
    },
  },
  {
    id: "k07-ios-global-style",
    cwd: P.ios,
    style: "global personal preferences stated once, then a project formatter rule",
    start: "2025-10-21T07:55:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "some prefs of mine, for every project not just this one: I like guard-and-return early over nested if-lets, and keep your explanations to a sentence or two, no headings or bullet lists unless I ask",
        D("preference", "global", "Prefers guard-and-return early over nested if-let blocks"),
        D(
          "preference",
          "global",
          "Wants short explanations (a sentence or two), without headings or bullet lists unless asked",
        ),
      );
      s.say("Got it.");
      s.user(
        "and in PantryPal formatting is swift-format with the repo's .swift-format file. no SwiftLint, we removed it on purpose",
        D(
          "rule",
          "project",
          "PantryPal is formatted with swift-format using the repo's .swift-format; SwiftLint was removed on purpose",
        ),
      );
      s.user("now refactor ItemDetailView in that style", N("request"));
      chores(s, "ios", 2, 1);
      s.say("Refactored with early returns; swift-format lint is clean.");
    },
  },
  {
    id: "k08-ios-testflight-purpose",
    cwd: P.ios,
    style:
      "the user's and the agent's hypotheses about a TestFlight rejection; a rule drawn from it; 'for this build, don't…'",
    start: "2025-10-23T16:20:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "TestFlight rejected the build, ITMS-90683 missing purpose string. maybe it's the photo library one?",
        HN("hypothesis"),
      );
      s.tools(
        bash(
          "plutil -p PantryPal/Info.plist | grep Usage",
          '  "NSCameraUsageDescription" => "Scan barcodes"',
        ),
      );
      s.say(
        "Probably the photo library: the scan sheet now offers 'choose from library', which needs `NSPhotoLibraryUsageDescription`, and Info.plist only has the camera string.",
        N("hypothesis"),
      );
      s.user(
        "yep that was it. always add the purpose strings in the same PR as the capability that needs them",
        D(
          "rule",
          "project",
          "In PantryPal, add Info.plist purpose strings in the same PR as the capability that needs them",
        ),
      );
      s.tools(
        edit(
          `${P.ios}/PantryPal/Info.plist`,
          "<key>NSCameraUsageDescription</key>",
          "<key>NSPhotoLibraryUsageDescription</key>\n<string>Pick a photo of a receipt</string>\n<key>NSCameraUsageDescription</key>",
        ),
      );
      s.say("Added.");
      s.user(
        "for this build don't bump the build number, I already did it in Xcode",
        HN("one-off"),
      );
      s.say("Leaving CFBundleVersion as is.");
      s.user("ok archive and upload", N("request"));
    },
  },
];

const CLJ: Script[] = [
  {
    id: "k09-clj-staff-paragraphs",
    cwd: P.clj,
    style:
      "a staff engineer writing long paragraphs with several rules, a fact and a decision buried mid-paragraph",
    start: "2025-10-13T08:05:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "Some context before you touch the settlement code, since you'll be in here a while. ledger-svc started as a weekend project and it shows in places; the namespaces under ledger.legacy.* are the worst of it and we are not investing in them, so changes there are bug fixes only, nothing else. The settlement code is newer and nicer. Every money movement is modelled as postings, and the invariant that matters is that the postings of one transaction sum to zero. Anything that writes postings goes through ledger.posting/transact! and never calls next.jdbc directly, because transact! is where the balance check lives. I spent a good part of last quarter in a debate about moving to XTDB, and the outcome is that we're not: Postgres stays. Anyway, what I actually need today is a function that reverses a settlement batch, with a test.",
        N("request"),
        D(
          "rule",
          "project",
          "In ledger-svc, changes to ledger.legacy.* namespaces are bug fixes only",
        ),
        D(
          "fact",
          "project",
          "In ledger-svc every money movement is a set of postings, and the postings of one transaction sum to zero",
        ),
        D(
          "rule",
          "project",
          "ledger-svc code that writes postings goes through ledger.posting/transact! (the balance check), never next.jdbc directly",
        ),
        D(
          "decision",
          "project",
          "ledger-svc stays on Postgres; moving to XTDB was decided against",
        ),
      );
      chores(s, "clj", 2, 1);
      s.tools(
        edit(
          `${P.clj}/src/ledger/settlement.clj`,
          "(defn settle-batch! [ds batch]",
          "(defn reverse-batch! [ds batch]\n  (posting/transact! ds (map posting/negate (batch-postings ds batch))))\n\n(defn settle-batch! [ds batch]",
        ),
      );
      s.say(
        "Added `reverse-batch!`, which negates the batch's postings through `transact!`. I tried it at the REPL against the dev db.",
      );
      s.compact(
        "1. Primary request: a function reversing a settlement batch in ledger-svc, with a test.\n2. Context from the user: ledger.legacy.* namespaces get bug fixes only; postings of a transaction sum to zero; postings are written through ledger.posting/transact!, not next.jdbc; ledger-svc stays on Postgres (not XTDB).\n3. Done: reverse-batch! in src/ledger/settlement.clj, tried at the REPL.\n4. Pending: the user's review of the diff.",
      );
      s.user(
        "Looks reasonable. One more thing from last week's review, which I'll only say once, so forgive the length. The REPL is where we develop and I've nothing against trying things there, but nothing gets merged that was only exercised at the REPL: there has to be a deftest in the matching test namespace. The runner is bin/kaocha, not lein test; lein test still half works, which is the dangerous part, because it silently skips the integration suite. Other than that the diff is fine, go ahead and write the test.",
        N("request"),
        D(
          "rule",
          "project",
          "ledger-svc changes need a deftest in the matching test namespace; REPL-only testing is not enough to merge",
        ),
        D(
          "rule",
          "project",
          "Run ledger-svc tests with bin/kaocha, not lein test (lein test silently skips the integration suite)",
        ),
      );
      s.tools(
        write(
          `${P.clj}/test/ledger/settlement_test.clj`,
          "(deftest reverse-batch-sums-to-zero\n  (let [b (fixtures/settled-batch)]\n    (settlement/reverse-batch! *ds* b)\n    (is (zero? (posting/balance *ds* (:account b))))))",
        ),
      );
      chores(s, "clj", 1, 0);
      s.say("Test added; kaocha passes.");
    },
  },
  {
    id: "k10-clj-port-answers",
    cwd: P.clj,
    style:
      "facts given as answers ('yes, it's port 5433'); a database URL with a password inside a durable fact; a descriptive 'always'",
    start: "2025-10-15T11:45:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user("integration tests can't connect to the db, fix please", N("request"));
      s.tools(
        bashErr(
          "bin/kaocha integration",
          "ERROR in ledger.integration.posting-test: Connection to localhost:5432 refused.",
        ),
      );
      s.say("They try localhost:5432. Which port does your local Postgres listen on?");
      s.user(
        "yes, it's port 5433, docker-compose maps it there",
        D("fact", "project", "ledger-svc's local Postgres (docker-compose) listens on port 5433"),
      );
      s.say("And the database: `ledger_test`?");
      const pw = s.secret("password");
      const url = `postgres://ledger:${pw}@localhost:5433/ledger_dev`;
      s.userS(
        `no, ledger_dev for both dev and tests. url is ${url}`,
        [pw],
        D(
          "fact",
          "project",
          "ledger-svc uses the ledger_dev database on localhost:5433 for both dev and tests",
          { secret: true },
        ),
      );
      s.tools(
        edit(
          `${P.clj}/test/resources/config.edn`,
          ':db {:port 5432 :dbname "ledger_test"}',
          ':db {:port 5433 :dbname "ledger_dev" :password #env LEDGER_DB_PASSWORD}',
        ),
      );
      s.say("Test config reads the password from `LEDGER_DB_PASSWORD`; the suite connects now.");
      s.user(
        "we always get that flaky timeout in the CI integration job too, ignore it for now",
        HN("one-off"),
      );
      s.say("Ignoring it.");
    },
  },
  {
    id: "k11-clj-spec-retracted",
    cwd: P.clj,
    style:
      "a rule stated, then retracted later in the session and replaced by another (the first is not durable)",
    start: "2025-10-17T09:00:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user(
        "From now on, new validation in ledger-svc is written with clojure.spec. Start with the payout request body.",
        N("request"),
        HN("one-off"),
      );
      s.tools(
        write(
          `${P.clj}/src/ledger/payout/spec.clj`,
          "(ns ledger.payout.spec\n  (:require [clojure.spec.alpha :as s]))\n\n(s/def ::amount pos-int?)\n(s/def ::account-id uuid?)\n(s/def ::payout (s/keys :req-un [::amount ::account-id]))",
        ),
      );
      s.say("Spec for the payout body written.");
      s.user("wire it into the handler, 400 on failure", N("request"));
      chores(s, "clj", 1, 1);
      s.say("Handler validates and answers 400 with the explain data.");
      s.user(
        "Scratch what I said about spec, sorry: I just checked with Priya and new validation goes in malli. spec stays only in the code that already uses it. Please redo the payout one with malli.",
        N("request"),
        D(
          "rule",
          "project",
          "New validation in ledger-svc is written with malli; clojure.spec only stays in code that already uses it",
        ),
      );
      s.tools(
        write(
          `${P.clj}/src/ledger/payout/schema.clj`,
          "(ns ledger.payout.schema)\n\n(def Payout [:map [:amount pos-int?] [:account-id uuid?]])",
        ),
      );
      s.say("Replaced with a malli schema.");
    },
  },
  {
    id: "k12-clj-openai-private",
    cwd: P.clj,
    style:
      "an OpenAI key pasted (not durable); a private aside in the same prompt as a durable rule",
    start: "2025-10-22T14:30:00.000Z",
    version: "2.0.31",
    run: (s) => {
      const key = s.secret("openai");
      s.userS(
        `the categoriser needs openai locally, key is ${key}, set it up`,
        [key],
        N("secret"),
      );
      s.say(
        "Export it as `OPENAI_API_KEY` in your shell; the categoriser reads that variable and I won't write it to a file.",
      );
      s.user(
        "<private>I'm interviewing elsewhere next week so I'll be out Thursday, don't mention it in standup</private> anyway. The categoriser model is pinned in resources/config.edn to gpt-4o-mini and stays pinned: any bump needs the eval set re-run first (bin/eval-categoriser).",
        N("private"),
        D(
          "rule",
          "project",
          "ledger-svc's categoriser model stays pinned in resources/config.edn; re-run bin/eval-categoriser before any model bump",
        ),
      );
      s.say("Understood, I won't touch the pin.");
      s.user("is the eval set in the repo or on S3?", N("question"));
      s.say("In the repo: `resources/eval/categoriser.edn`, 400 labelled transactions.");
    },
  },
];

const DBT: Script[] = [
  {
    id: "k13-dbt-wiki-checklist",
    cwd: P.dbt,
    style:
      "a checklist pasted from the team wiki: four standing rules, two items for this sprint or this PR only",
    start: "2025-10-13T13:20:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.summaryLine("CRM contacts staging model and its PR");
      s.user("open a PR for the new stg_crm__contacts model you wrote yesterday", N("request"));
      s.tools(
        bash(
          "git status --short",
          "?? models/staging/crm/stg_crm__contacts.sql\n?? models/staging/crm/_crm__models.yml",
        ),
      );
      s.say("Before I open it: is there a PR template or checklist I should follow?");
      s.userBlocks(
        [
          "yes, pasting it from the wiki, go through it:",
          "## Model PR checklist\n- [ ] every model has `unique` + `not_null` tests on its primary key\n- [ ] staging models are named stg_<source>__<table>\n- [ ] run `dbt build --select state:modified+ --defer --state prod-artifacts/` locally before asking for review\n- [ ] tag @ana-lytics as reviewer (she covers the rotation this sprint)\n- [ ] paste the Q3 revenue dashboard link in the description\n- [ ] no `select *` in marts models",
        ],
        N("request"),
        HN("one-off"),
        D(
          "rule",
          "project",
          "Every analytics-dbt model has unique and not_null tests on its primary key",
        ),
        D("rule", "project", "analytics-dbt staging models are named stg_<source>__<table>"),
        D(
          "rule",
          "project",
          "Before review, run `dbt build --select state:modified+ --defer --state prod-artifacts/` locally in analytics-dbt",
        ),
        D("rule", "project", "No `select *` in analytics-dbt marts models"),
      );
      s.tools(
        edit(
          `${P.dbt}/models/staging/crm/_crm__models.yml`,
          "      - name: contact_id",
          "      - name: contact_id\n        data_tests: [unique, not_null]",
        ),
        bash(
          "dbt build --select state:modified+ --defer --state prod-artifacts/",
          "10:02:11  Done. PASS=4 WARN=0 ERROR=0 SKIP=0 TOTAL=4",
        ),
      );
      s.say("Checklist done; PR #412 opened with @ana-lytics as reviewer and the dashboard link.");
    },
  },
  {
    id: "k14-dbt-answers-projects",
    cwd: P.dbt,
    style: "facts given as answers to the agent's questions; a descriptive 'always' joke",
    start: "2025-10-15T07:50:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user("the sessions model is scanning way too much, can you check?", N("request"));
      chores(s, "dbt", 1, 1);
      s.say("Which GCP project is production, and where do dev runs write?");
      s.user(
        "prod is `acme-analytics-prod`. dev runs write to your own dataset, dbt_<username>, in acme-analytics-dev",
        D("fact", "project", "analytics-dbt's production BigQuery project is acme-analytics-prod"),
        D(
          "fact",
          "project",
          "analytics-dbt dev runs write to a per-user dataset dbt_<username> in the acme-analytics-dev project",
        ),
      );
      s.say("Are the raw event tables partitioned by date?");
      s.user(
        "yep, every event table is partitioned by event_date and clustered by user_id",
        D(
          "fact",
          "project",
          "analytics-dbt's event tables are partitioned by event_date and clustered by user_id",
        ),
      );
      s.tools(
        edit(
          `${P.dbt}/models/marts/fct_sessions.sql`,
          "from {{ ref('stg_app__events') }}",
          "from {{ ref('stg_app__events') }}\nwhere event_date >= date_sub(current_date(), interval 3 day)",
        ),
      );
      s.say("fct_sessions now prunes partitions; the dry run drops from 1.2 TB to 38 GB.");
      s.user("lol we always blow the slot quota on monday mornings anyway", HN("one-off"));
      s.say("Monday's scheduled runs will be cheaper at least.");
    },
  },
  {
    id: "k15-dbt-stored-sqlfluff",
    cwd: P.dbt,
    stored: [
      "analytics-dbt is linted with sqlfluff using the bigquery dialect",
      "Incremental models in analytics-dbt use the merge strategy",
    ],
    style:
      "a stored lint rule repeated; a change of incremental strategy that contradicts a stored rule; a question phrased like a rule",
    start: "2025-10-18T12:00:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user(
        "make fct_orders incremental. and lint with sqlfluff before pushing, bigquery dialect, config's in .sqlfluff",
        N("request"),
        D("rule", "project", "Lint analytics-dbt with sqlfluff (bigquery dialect) before pushing", {
          dup: "analytics-dbt is linted with sqlfluff using the bigquery dialect",
        }),
      );
      chores(s, "dbt", 1, 1);
      s.say(
        "I'll use `incremental_strategy='merge'` with `unique_key='order_id'`, as the other incrementals do.",
      );
      s.user(
        "no, we moved all incrementals to insert_overwrite on partitions last month, merge was costing a fortune in scanned bytes. use that",
        D(
          "decision",
          "project",
          "Incremental models in analytics-dbt use insert_overwrite on partitions, not merge (merge scanned too much)",
          { contra: "Incremental models in analytics-dbt use the merge strategy" },
        ),
      );
      s.tools(
        edit(
          `${P.dbt}/models/marts/fct_orders.sql`,
          "{{ config(materialized='incremental', partition_by={'field': 'order_date', 'data_type': 'date'}) }}",
          "{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by={'field': 'order_date', 'data_type': 'date'}) }}",
        ),
      );
      s.say("Switched to insert_overwrite.");
      s.user(
        "should every incremental always have a unique_key then, or not anymore?",
        HN("question"),
      );
      s.say("Not with insert_overwrite: it replaces whole partitions, so unique_key is unused.");
    },
  },
  {
    id: "k16-dbt-quoted-hypotheses",
    cwd: P.dbt,
    style:
      "a rule quoted from dbt's docs, asked about; a hypothesis; 'don't … for this step'; then a real rule",
    start: "2025-10-24T09:10:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        'the dbt docs say "you should always use ref() or source() instead of hard-coding table names". does that hold for the legacy dataset too, the one nobody declared as a source?',
        HN("question"),
      );
      s.say(
        "Yes: declare it in a sources file and use `source()`; that also puts it in the lineage graph.",
      );
      s.user(
        "ok. fct_events has duplicates since tuesday. I bet it's late-arriving events, the lookback is only 3 days",
        N("request"),
        HN("hypothesis"),
      );
      chores(s, "dbt", 1, 1);
      s.say(
        "The duplicates have identical event_ids across two partitions, so a dedup step fixes it whatever the cause.",
      );
      s.user("don't run a full refresh for this step, it's 4TB", HN("one-off"));
      s.say("I'll only rebuild the last 7 partitions.");
      s.user(
        "thanks. and for the future: a full refresh of fct_events always needs a heads-up in #data-eng first",
        D(
          "rule",
          "project",
          "A full refresh of fct_events in analytics-dbt needs a heads-up in #data-eng first",
        ),
      );
      s.say("Noted.");
    },
  },
];

const PULUMI: Script[] = [
  {
    id: "k17-pulumi-staff-paragraph",
    cwd: P.pulumi,
    style:
      "a staff engineer's long onboarding paragraph with rules and a fact buried mid-paragraph, then a request",
    start: "2025-10-14T10:30:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "Welcome to platform-pulumi; I'll give you the lay of the land in one go, because the README is two years stale. The repo holds one Pulumi project with three stacks, acme/platform/dev, acme/platform/staging and acme/platform/prod. You can preview and update dev and staging from your laptop, but the prod stack is only ever updated by the CI pipeline on merge to main; I have personally had to untangle a laptop `pulumi up` against prod and I'd rather not again. Anything that gets reused across stacks becomes a ComponentResource under src/components, not a helper function that returns raw resources, since we want the parent/child tree in the console. All resources must carry the owner and cost-center tags, which the stack transformation in src/tags.ts applies, so don't hand-tag. Today's job: the staging RDS needs a read replica.",
        N("request"),
        D(
          "fact",
          "project",
          "platform-pulumi has three stacks: acme/platform/dev, acme/platform/staging and acme/platform/prod",
        ),
        D(
          "rule",
          "project",
          "The prod stack of platform-pulumi is only updated by CI on merge to main, never from a laptop",
        ),
        D(
          "rule",
          "project",
          "In platform-pulumi, anything reused across stacks is a ComponentResource under src/components, not a helper function",
        ),
        D(
          "rule",
          "project",
          "platform-pulumi resources get their owner and cost-center tags from the stack transformation in src/tags.ts; don't tag by hand",
        ),
      );
      chores(s, "pulumi", 2, 1);
      s.tools(
        edit(
          `${P.pulumi}/src/components/database.ts`,
          "    this.instance = primary;",
          "    this.instance = primary;\n    if (args.replica) {\n      new aws.rds.Instance(`${name}-replica`, { replicateSourceDb: primary.identifier, instanceClass: args.instanceClass }, { parent: this });\n    }",
        ),
      );
      chores(s, "pulumi", 1, 0);
      s.say(
        "The Database component takes `replica: true`; staging's preview shows one instance to create.",
      );
      s.user("Good. Run the up on staging.", N("request"));
      s.tools(
        bash(
          "pulumi up --stack acme/platform/staging --yes | tail -3",
          "Resources:\n    + 1 created\n    50 unchanged",
        ),
      );
      s.say("Replica created.");
    },
  },
  {
    id: "k18-pulumi-aws-keys",
    cwd: P.pulumi,
    style: "AWS keys pasted for a sandbox (not durable); a rule about stack secrets",
    start: "2025-10-16T08:15:00.000Z",
    version: "2.0.24",
    run: (s) => {
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `temp creds for the sandbox account, use them to preview the new bucket stack:\nAWS_ACCESS_KEY_ID=${id}\nAWS_SECRET_ACCESS_KEY=${sec}`,
        [id, sec],
        N("secret"),
      );
      s.say(
        "Use them from your shell's environment rather than a file; I'll run the preview once they're exported.",
      );
      s.user(
        "exported. also the bucket needs the datadog api key in config. we always use `pulumi config set --secret` for anything sensitive here, never plaintext in Pulumi.<stack>.yaml",
        N("request"),
        D(
          "rule",
          "project",
          "In platform-pulumi, sensitive config goes in with `pulumi config set --secret`, never as plaintext in Pulumi.<stack>.yaml",
        ),
      );
      chores(s, "pulumi", 1, 0);
      s.say("Preview is clean: one bucket, one policy.");
    },
  },
  {
    id: "k19-pulumi-stored-backend",
    cwd: P.pulumi,
    stored: [
      "platform-pulumi keeps its state in Pulumi Cloud",
      "platform-pulumi stays on the 6.x line of @pulumi/aws",
    ],
    style: "a backend change that contradicts a stored fact; a stored pin repeated in other words",
    start: "2025-10-21T15:40:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user("pulumi login is asking me for a token, is that expected?", N("question"));
      s.say(
        "It is when the backend is Pulumi Cloud; run `pulumi login` and paste an access token.",
      );
      s.user(
        "no — we left Pulumi Cloud in august, state lives in s3://acme-pulumi-state now, `pulumi login s3://acme-pulumi-state`",
        D(
          "fact",
          "project",
          "platform-pulumi's state is in the S3 backend s3://acme-pulumi-state (left Pulumi Cloud in August)",
          { contra: "platform-pulumi keeps its state in Pulumi Cloud" },
        ),
      );
      s.say("Thanks. Renovate also opened a PR bumping @pulumi/aws to 7.0; want me to look?");
      s.user(
        "close it. aws provider stays on major 6, no 7 until our eks component is ported",
        N("request"),
        D("rule", "project", "@pulumi/aws stays on major version 6 in platform-pulumi", {
          dup: "platform-pulumi stays on the 6.x line of @pulumi/aws",
        }),
      );
      s.tools(
        bash(
          "gh pr close 231 --comment 'Staying on @pulumi/aws 6.x for now.'",
          "✓ Closed pull request #231",
        ),
      );
      s.say("Closed.");
      s.user(
        "is it always renovate that opens these, or do people bump by hand too?",
        HN("question"),
      );
      s.say("All 14 provider bumps this year came from Renovate.");
    },
  },
  {
    id: "k20-pulumi-venting-hn",
    cwd: P.pulumi,
    style:
      "venting ('never again will I…'), a descriptive 'always fails', a question phrased like a rule, a task-scoped 'always'",
    start: "2025-10-24T17:05:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "never again will I run pulumi destroy on a friday afternoon. ugh. the dev stack is half gone, can you bring it back?",
        HN("one-off"),
        N("request"),
      );
      chores(s, "pulumi", 1, 0);
      s.rejectedTool("Bash", {
        command:
          "pulumi destroy --stack acme/platform/dev --yes && pulumi up --stack acme/platform/dev --yes",
        description: "Recreate the dev stack",
      });
      s.user("no!! not another destroy. just up what's missing", N("request"));
      chores(s, "pulumi", 1, 0);
      s.say("The preview shows 31 resources to create; the VPC and subnets survived.");
      s.user(
        "the first up after the vpc always fails on the nat gateway, right? or is that just me",
        HN("question"),
      );
      s.say(
        "It's a known race: the EIP isn't associated yet. A `dependsOn` on the route table fixes it.",
      );
      s.user(
        "ok add that. and always pass --refresh on these ups until the stack is back",
        HN("one-off"),
      );
      s.tools(
        bash(
          "pulumi up --stack acme/platform/dev --refresh --yes | tail -2",
          "Resources:\n    + 31 created",
        ),
      );
      s.say("Dev is back.");
      s.user("should we always run refresh before up in CI too?", HN("question"));
      s.say(
        "It costs ~40s per stack but catches drift; it's a tradeoff worth discussing with the team.",
      );
    },
  },
];

const NIX: Script[] = [
  {
    id: "k21-nix-global-prefs",
    cwd: P.nix,
    style: "terse lowercase; global preferences for every repository; a project layout rule",
    start: "2025-10-13T19:30:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "add a host config for the new nas, hostname heron. every host lives under hosts/<hostname>/ with its own hardware-configuration.nix",
        N("request"),
        D(
          "rule",
          "project",
          "In nix-dotfiles every host lives under hosts/<hostname>/ with its own hardware-configuration.nix",
        ),
      );
      s.tools(
        write(
          `${P.nix}/hosts/heron/default.nix`,
          '{ ... }: {\n  imports = [ ./hardware-configuration.nix ../../modules/server.nix ];\n  networking.hostName = "heron";\n  services.zfs.autoScrub.enable = true;\n}',
        ),
      );
      chores(s, "nix", 1, 0);
      s.say("heron added; flake check passes.");
      s.user(
        "commit. fyi for any repo of mine: commit subjects imperative, lowercase, no trailing period",
        N("request"),
        D(
          "preference",
          "global",
          "Commit subjects in the imperative, lowercase, without a trailing period",
        ),
      );
      s.tools(
        bash(
          "git commit -am 'add heron nas host'",
          "[main 8e2a1d4] add heron nas host\n 2 files changed, 41 insertions(+)",
        ),
      );
      s.say("Committed as `add heron nas host`.");
      s.user(
        "and when you show me shell commands anywhere, fish syntax, not bash. i don't use bash",
        D("preference", "global", "Show shell commands in fish syntax, not bash"),
      );
      s.say("Fish it is.");
    },
  },
  {
    id: "k22-nix-inputs-decision",
    cwd: P.nix,
    style: "facts and a decision about flake inputs; 'don't … for this change'",
    start: "2025-10-16T20:10:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user("bump neovim on the laptop to 0.11", N("request"));
      chores(s, "nix", 1, 1);
      s.say("neovim 0.11 is only in nixpkgs-unstable. Which input does the laptop use?");
      s.user(
        "servers follow nixos-24.05, the laptop (kestrel) gets its user packages from nixpkgs-unstable",
        D(
          "fact",
          "project",
          "In nix-dotfiles the servers follow nixos-24.05 and the laptop kestrel takes user packages from nixpkgs-unstable",
        ),
      );
      s.user(
        "don't run nix flake update for this change, only update the unstable input",
        HN("one-off"),
      );
      s.tools(
        bash(
          "nix flake lock --update-input nixpkgs-unstable",
          "• Updated input 'nixpkgs-unstable':\n    'github:NixOS/nixpkgs/1f3a…' (2025-09-30)\n  → 'github:NixOS/nixpkgs/9c2b…' (2025-10-15)",
        ),
      );
      s.say("Only nixpkgs-unstable moved. Is home-manager standalone or a NixOS module here?");
      s.user(
        "nixos module. we tried standalone and dropped it, two generations to keep in sync was a pain",
        D(
          "decision",
          "project",
          "nix-dotfiles uses home-manager as a NixOS module, not standalone",
        ),
      );
      s.say("Then the neovim bump goes in home/jo.nix and applies on the next rebuild.");
    },
  },
  {
    id: "k23-nix-formatter-retracted",
    cwd: P.nix,
    style: "a formatter rule stated and then retracted for another one later in the session",
    start: "2025-10-19T18:45:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user(
        "tidy up modules/desktop.nix, it's a mess. always format nix files with alejandra btw",
        N("request"),
        HN("one-off"),
      );
      s.tools(bash("alejandra modules/desktop.nix", "Checked 1 file: 1 formatted"));
      s.say("Formatted with alejandra and grouped the services.");
      s.user("why is the diff so big", N("question"));
      s.say("alejandra rewrote the attribute sets' indentation across the whole file.");
      s.user(
        "oh wait, my bad, we switched to nixfmt-rfc-style a month ago and I forgot. forget alejandra, nix files get `nixfmt` (the rfc-style one). redo it",
        N("request"),
        D(
          "rule",
          "project",
          "nix-dotfiles formats Nix files with nixfmt (nixfmt-rfc-style), not alejandra",
        ),
      );
      s.tools(bash("git checkout modules/desktop.nix && nixfmt modules/desktop.nix", ""));
      s.say("Redone with nixfmt; the diff is 24 lines now.");
    },
  },
  {
    id: "k24-nix-private-hypothesis",
    cwd: P.nix,
    style: "a private text; a hypothesis; an ordinary question",
    start: "2025-10-25T21:00:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "wifi on kestrel drops after suspend. <private>the neighbour's network is called FRITZ!Box 7590 QX and I've been borrowing it</private> maybe it's the iwlwifi power saving?",
        N("private"),
        HN("hypothesis"),
      );
      s.tools(
        bash(
          "journalctl -b -u NetworkManager | tail -3",
          "NetworkManager[812]: <warn> device (wlp0s20f3): firmware crashed\nNetworkManager[812]: <info> device (wlp0s20f3): state change: activated -> unavailable",
        ),
      );
      s.say(
        "The firmware crashes on resume. `options iwlwifi power_save=0` usually avoids it.",
        N("hypothesis"),
      );
      s.user("try it", N("request"));
      s.tools(
        edit(
          `${P.nix}/hosts/kestrel/default.nix`,
          'boot.extraModprobeConfig = "";',
          'boot.extraModprobeConfig = "options iwlwifi power_save=0";',
        ),
      );
      s.say("Set; rebuild and suspend once to check.");
      s.user("is there a way to test suspend without actually suspending?", N("question"));
      s.say("`systemctl suspend` with `rtcwake -m mem -s 20` wakes it after 20 seconds.");
    },
  },
];

const ELECTRON: Script[] = [
  {
    id: "k25-electron-maintainer-contributors",
    cwd: P.electron,
    style:
      "an open-source maintainer speaking of contributors ('contributors must …'); a security rule; a one-off about one PR",
    start: "2025-10-13T16:00:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "I'm going through the PR queue for markpad. can you check #588 against our contributing rules? for reference, the ones I enforce: contributors must sign off every commit (DCO), contributors must add a changeset for anything user-visible, and nobody adds a native module without an issue discussing it first",
        N("request"),
        D("rule", "project", "markpad contributors must sign off every commit (DCO)"),
        D(
          "rule",
          "project",
          "markpad contributors must add a changeset for every user-visible change",
        ),
        D(
          "rule",
          "project",
          "No new native module in markpad without an issue discussing it first",
        ),
      );
      s.tools(
        bash(
          "gh pr view 588 --json commits,files -q '.commits[].messageBody, .files[].path'",
          "Signed-off-by: Kim Ruiz <kim@ruiz.dev>\n\nsrc/renderer/export/pdf.ts\npackage.json\n.changeset/quick-pdf-export.md",
        ),
      );
      s.say(
        "#588 is signed off and has a changeset, but package.json adds `node-pdfium`, a native module, and there is no issue for it.",
      );
      s.user(
        "figured. ask them to open an issue. and while you're in there — nodeIntegration stays off in every window and all renderer access goes through the preload's contextBridge; contributors keep trying to flip it, so flag that on sight",
        N("request"),
        D(
          "rule",
          "project",
          "markpad keeps nodeIntegration off in every window; the renderer reaches Node only through the preload's contextBridge",
        ),
      );
      s.tools(
        bash(
          "gh pr comment 588 --body 'Thanks! Native modules need an issue first; could you open one describing why node-pdfium is needed?'",
          "https://github.com/markpad/markpad/pull/588#issuecomment-2411",
        ),
      );
      s.say("Commented on #588.");
      s.user("merge #590 as-is, I've already reviewed it", N("request"));
      s.tools(bash("gh pr merge 590 --squash", "✓ Squashed and merged pull request #590"));
      s.say("Merged #590.");
    },
  },
  {
    id: "k26-electron-release-token",
    cwd: P.electron,
    style:
      "a release fact that carries a GitHub token (contains_secret); an npm token pasted alone (not durable)",
    start: "2025-10-15T18:30:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user("how do releases work here? I haven't cut one since March", N("question"));
      s.tools(
        read(
          `${P.electron}/package.json`,
          '{\n  "name": "markpad",\n  "version": "3.2.0",\n  "scripts": {\n    "release": "changeset version && electron-builder --publish always"\n  }\n}',
        ),
      );
      s.say(
        "`pnpm release` versions from the changesets and runs electron-builder with `--publish always`.",
      );
      const gh = s.secret("github");
      s.userS(
        `right, and electron-builder publishes the installers as a draft GitHub Release using GH_TOKEN, mine is ${gh}. the draft gets published by hand after smoke-testing on all three OSes`,
        [gh],
        D(
          "fact",
          "project",
          "markpad's `pnpm release` publishes installers as a draft GitHub Release through electron-builder (reads GH_TOKEN); the draft is published by hand after smoke tests on Windows, macOS and Linux",
          { secret: true },
        ),
      );
      s.say(
        "Thanks; I'd rather not keep that token in the transcript. Export it in your shell and I'll run the release.",
      );
      const npm = s.secret("npm");
      s.userS(
        `ok. the markdown-it plugin package also needs publishing, NPM_TOKEN=${npm}`,
        [npm],
        N("secret"),
      );
      s.say(
        "Set it as an env var and run `pnpm -F markdown-it-markpad publish` yourself; I won't store it.",
      );
    },
  },
  {
    id: "k27-electron-hard-negatives",
    cwd: P.electron,
    style:
      "a descriptive 'always times out', a task-scoped 'always', a rule quoted from Electron's security checklist, asked about",
    start: "2025-10-20T11:20:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user(
        "the e2e suite always times out on the windows runner, can you see why",
        HN("request"),
      );
      s.tools(
        bashErr(
          "pnpm e2e --grep 'open file'",
          "TimeoutError: page.waitForSelector: Timeout 30000ms exceeded.\n  waiting for locator('.editor')",
        ),
      );
      s.say(
        "Playwright waits for `.editor` before the Windows build finishes unpacking the asar on first launch.",
      );
      s.user(
        "make the window always open maximized for the demo tomorrow, we'll revert after",
        HN("one-off"),
      );
      s.tools(
        edit(
          `${P.electron}/src/main/window.ts`,
          "const win = new BrowserWindow(opts);",
          "const win = new BrowserWindow(opts);\nwin.maximize();",
        ),
      );
      s.say("It opens maximized.");
      s.user(
        'electron\'s security checklist says "do not enable nodeIntegration for remote content" — the markdown preview loads local files only, so does that even apply to us?',
        HN("question"),
      );
      s.say(
        "It applies to any content you didn't write: a markdown file can embed remote images and HTML, so the preview counts as untrusted.",
      );
      s.user("hm ok, fair", N("request"));
    },
  },
  {
    id: "k28-electron-stored-electron-versions",
    cwd: P.electron,
    stored: [
      "markpad supports the three most recent Electron major versions",
      "markpad's renderer uses React 18",
    ],
    style: "a stored support policy repeated word for word in a maintainer's reply; a request",
    start: "2025-10-26T10:00:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user("someone asks in #602 if we can still support electron 28. can we?", N("question"));
      s.tools(
        bash(
          "gh issue view 602 -q .body --json body",
          "We're stuck on Electron 28 in our distro package, could markpad keep supporting it?",
        ),
      );
      s.say(
        "markpad's CI tests on 31, 32 and 33. Supporting 28 would mean adding it back to the matrix.",
      );
      s.user(
        "reply that markpad supports the three most recent Electron major versions and 28 is out of that",
        N("request"),
        D("rule", "project", "markpad supports the three most recent Electron major versions", {
          dup: "markpad supports the three most recent Electron major versions",
        }),
      );
      s.tools(
        bash(
          "gh issue comment 602 --body 'markpad supports the three most recent Electron majors, so 28 is out of range, sorry.'",
          "https://github.com/markpad/markpad/issues/602#issuecomment-2488",
        ),
      );
      s.say("Replied.");
      s.user(
        "we never backport fixes to old majors either, do we? someone asked that too",
        HN("question"),
      );
      s.say(
        "The changelog has no backport releases since 2.x, so in practice no; whether that's policy is your call.",
      );
    },
  },
];

const SOL: Script[] = [
  {
    id: "k29-sol-conventions",
    cwd: P.sol,
    style: "terse bullets of conventions inside a request",
    start: "2025-10-14T06:30:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "add a deposit cap to Vault. conventions:\n- custom errors, no require strings\n- natspec on every external/public fn\n- pragma pinned to 0.8.24, no ^\n- forge fmt before commit",
        N("request"),
        D("rule", "project", "vault-contracts uses custom errors, not require strings"),
        D(
          "rule",
          "project",
          "Every external or public function in vault-contracts has NatSpec comments",
        ),
        D(
          "rule",
          "project",
          "vault-contracts pins the pragma to solidity 0.8.24 (no floating ^)",
        ),
        D("rule", "project", "Run forge fmt before committing in vault-contracts"),
      );
      s.tools(
        edit(
          `${P.sol}/src/Vault.sol`,
          "    error DepositCapExceeded(uint256 cap);",
          "    error DepositCapExceeded(uint256 cap);\n\n    /// @notice Maximum total assets the vault accepts.\n    uint256 public immutable depositCap;\n\n    /// @inheritdoc ERC4626\n    function maxDeposit(address) public view override returns (uint256) {\n        uint256 assets = totalAssets();\n        return assets >= depositCap ? 0 : depositCap - assets;\n    }",
        ),
      );
      chores(s, "sol", 2, 0);
      s.say("Cap added via `maxDeposit`, with a custom error on overflow; tests and fmt pass.");
      s.user("fuzz it too", N("request"));
      s.tools(
        bash(
          "forge test --match-test testFuzz_deposit_cap -vv",
          "[PASS] testFuzz_deposit_cap(uint256) (runs: 256, μ: 81203, ~: 80991)",
        ),
      );
      s.say("256 runs pass.");
      s.user(
        'someone on twitter says "always wrap loop counters in unchecked blocks" — worth doing in _harvest?',
        HN("question"),
      );
      s.say(
        "Since 0.8.22 the compiler already skips overflow checks on simple `for` counters, so it gains nothing here.",
      );
    },
  },
  {
    id: "k30-sol-deployer-key",
    cwd: P.sol,
    style:
      "a deployer private key pasted (not durable); a deploy rule; an address fact given as an answer",
    start: "2025-10-16T09:45:00.000Z",
    version: "2.0.24",
    run: (s) => {
      const pk = "0x" + s.secret("hex");
      const pk64 = pk + s.secret("hex").slice(0, 24);
      s.userS(
        `deploy the new Vault to sepolia, PRIVATE_KEY=${pk64}`,
        [pk64],
        N("secret"),
      );
      s.say("I'd rather not handle a raw key. Is there a keystore account configured for cast?");
      s.user(
        "yes, `cast wallet` account named deployer-sepolia. and deploys only go through script/Deploy.s.sol with --verify, never forge create by hand",
        D(
          "fact",
          "project",
          "vault-contracts' Sepolia deployer is the cast wallet keystore account deployer-sepolia",
        ),
        D(
          "rule",
          "project",
          "vault-contracts deploys go through script/Deploy.s.sol with --verify, never forge create by hand",
        ),
      );
      s.tools(
        bash(
          "forge script script/Deploy.s.sol --rpc-url sepolia --account deployer-sepolia --broadcast --verify | tail -3",
          "##### sepolia\n✅  [Success] Hash: 0x5be1…\nContract Address: 0x8f3C0b7a1E2d4F66b1a9C3e7D0f2A5b4C6e8D910",
        ),
      );
      s.say("Deployed and verified at 0x8f3C…D910.");
      s.user("which vault version is on mainnet right now?", N("question"));
      s.say("deployments/mainnet.json lists Vault v1.3.0.");
    },
  },
  {
    id: "k31-sol-hard-negatives",
    cwd: P.sol,
    style:
      "a descriptive 'never reverts', a linter rule quoted with a hypothesis, 'don't run … for this step', an agent's claim",
    start: "2025-10-19T14:10:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user(
        "the withdraw test on the mainnet fork never reverts even with a paused vault, what's going on",
        HN("question"),
      );
      s.tools(
        bash(
          "forge test --match-test test_withdraw_when_paused --fork-url mainnet -vvvv | tail -4",
          "    ├─ [2431] Vault::withdraw(1000, alice, alice)\n    │   └─ ← [Return] 1000\n    └─ ← [Stop]\n[FAIL. Reason: call did not revert as expected]",
        ),
      );
      s.say(
        "`withdraw` doesn't check `paused()`; only `deposit` has the `whenNotPaused` modifier.",
        N("hypothesis"),
      );
      s.user(
        'slither also flags "always check the return value of transfer" on Vault._pay. I think that\'s a false positive since we go through SafeERC20',
        HN("hypothesis"),
      );
      s.say("It is: `safeTransfer` reverts on a false return.");
      s.user(
        "ok fix the pause check. don't run the invariant suite for this step, it takes 20 min",
        N("request"),
        HN("one-off"),
      );
      s.tools(
        edit(
          `${P.sol}/src/Vault.sol`,
          "address owner) public override returns (uint256 shares) {",
          "address owner) public override whenNotPaused returns (uint256 shares) {",
        ),
      );
      chores(s, "sol", 1, 0);
      s.say("`withdraw` is now `whenNotPaused`; the unit tests pass.");
    },
  },
  {
    id: "k32-sol-stored-foundry",
    cwd: P.sol,
    stored: [
      "vault-contracts is compiled with optimizer runs = 200",
      "vault-contracts depends on OpenZeppelin contracts for its token base classes",
    ],
    style: "an optimizer change that contradicts a stored fact; a question",
    start: "2025-10-23T08:00:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user("gas report for deposit looks worse than last release, why?", N("question"));
      s.tools(
        bash(
          "grep -A3 '\\[profile.default\\]' foundry.toml",
          "[profile.default]\noptimizer = true\noptimizer_runs = 200\nvia_ir = false",
        ),
      );
      s.say(
        "foundry.toml has optimizer_runs = 200, tuned for deployment size rather than call cost.",
      );
      s.user(
        "that's stale, we decided in the audit prep to build with via_ir and 10000 optimizer runs. update foundry.toml to match",
        N("request"),
        D(
          "decision",
          "project",
          "vault-contracts builds with via_ir and optimizer runs = 10000 (decided in audit prep)",
          { contra: "vault-contracts is compiled with optimizer runs = 200" },
        ),
      );
      s.tools(
        edit(
          `${P.sol}/foundry.toml`,
          "optimizer_runs = 200\nvia_ir = false",
          "optimizer_runs = 10000\nvia_ir = true",
        ),
      );
      s.say("Updated; deposit drops 4.1k gas.");
      s.user("and solmate vs OZ, which one does Vault inherit from now?", N("question"));
      s.say("Vault imports solmate's ERC4626 (src/Vault.sol line 4).");
    },
  },
];

const GODOT: Script[] = [
  {
    id: "k33-godot-german-fillers",
    cwd: P.godot,
    style: "mixed English and German filler words; typing and naming rules",
    start: "2025-10-14T17:20:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user(
        "also, the enemy slime needs a hop attack. und bitte: in GDScript we use static typing everywhere, halt `var speed: float`, ja? untyped code is an error in our project settings",
        N("request"),
        D(
          "rule",
          "project",
          "moss-and-mire's GDScript is statically typed everywhere (untyped code is an error in the project settings)",
        ),
      );
      s.tools(
        write(
          `${P.godot}/scenes/enemies/slime.gd`,
          "extends CharacterBody2D\n\nsignal hopped\n\n@export var hop_force: float = 220.0\n\nfunc hop(toward: Vector2) -> void:\n\tvelocity = (toward - global_position).normalized() * hop_force\n\thopped.emit()",
        ),
      );
      s.say("Slime hops toward the player and emits `hopped`.");
      s.user(
        "naja, signal names sind bei uns past tense, so `hop_landed` oder `health_changed`, nicht `hopped`… ok `hopped` is past tense too, passt, but make it `hop_started` so it's clear",
        N("request"),
        D(
          "rule",
          "project",
          "moss-and-mire signal names are in the past tense (health_changed, hop_landed)",
        ),
      );
      s.tools(edit(`${P.godot}/scenes/enemies/slime.gd`, "signal hopped", "signal hop_started"));
      chores(s, "godot", 1, 0);
      s.say("Renamed; GUT tests pass.");
    },
  },
  {
    id: "k34-godot-answers-version",
    cwd: P.godot,
    style: "facts as answers in German-flavoured English; an export rule",
    start: "2025-10-17T15:00:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user("add a Steam Deck export preset", N("request"));
      s.say("Which Godot version is the project on? Presets changed between 4.3 and 4.4.");
      s.user(
        "ja, 4.3 stable. not the 4.4 beta, we stay on 4.3 until the game ships",
        D("fact", "project", "moss-and-mire is on Godot 4.3 stable"),
        D("decision", "project", "moss-and-mire stays on Godot 4.3 until the game ships"),
      );
      s.tools(
        read(
          `${P.godot}/export_presets.cfg`,
          '[preset.0]\nname="Windows Desktop"\nplatform="Windows Desktop"\nexport_path="build/windows/moss-and-mire.exe"',
        ),
      );
      s.say("Do exports go to build/<platform>/ like the Windows one?");
      s.user(
        "genau, build/<platform>/, and build/ is never committed, CI makes the real builds",
        D(
          "fact",
          "project",
          "moss-and-mire exports go to build/<platform>/, which is not committed; CI makes the release builds",
        ),
      );
      s.tools(
        edit(
          `${P.godot}/export_presets.cfg`,
          'export_path="build/windows/moss-and-mire.exe"',
          'export_path="build/windows/moss-and-mire.exe"\n\n[preset.1]\nname="Steam Deck"\nplatform="Linux"\nexport_path="build/steamdeck/moss-and-mire.x86_64"',
        ),
      );
      s.say("Steam Deck preset added.");
    },
  },
  {
    id: "k35-godot-hard-negatives",
    cwd: P.godot,
    style: "descriptive 'always', 'never mind', 'just this time' for a jam build, a hypothesis",
    start: "2025-10-20T20:40:00.000Z",
    version: "2.0.28",
    run: (s) => {
      s.user(
        "the player always clips through that one wall in level 3, lol. kannst du schauen?",
        HN("request"),
      );
      s.tools(grep("collision_layer", ["scenes/levels/level_3.tscn", "scenes/player/player.tscn"]));
      s.say("The wall's StaticBody2D is on layer 3, but the player only masks layers 1 and 2.");
      s.user(
        "ach so. maybe the tilemap also has the same problem? probably from when we split the layers",
        HN("hypothesis"),
      );
      s.say("Let me check every level's tilemap layers, starting with level 1, then");
      s.interrupt();
      s.user("nein nein, only level 3 matters", N("request"));
      s.say("The level 3 tilemap uses layer 1, so it's fine.");
      s.user(
        "never mind the particles I asked about yesterday then, fix the wall first",
        HN("request"),
      );
      s.tools(
        edit(`${P.godot}/scenes/levels/level_3.tscn`, "collision_layer = 4", "collision_layer = 1"),
      );
      s.say("Wall moved to layer 1.");
      s.user(
        "for the jam build tonight skip the localization check, just this time",
        HN("one-off"),
      );
      s.say("The export script runs without `--check-l10n` tonight.");
    },
  },
  {
    id: "k36-godot-gut-dialogue",
    cwd: P.godot,
    style:
      "a test-tool fact inside a request; a decision given in reply to the agent's wrong assumption (nothing stored)",
    start: "2025-10-25T14:00:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "write tests for the inventory, GUT like everything else, run them headless",
        N("request"),
        D("fact", "project", "moss-and-mire tests are written with GUT and run headless"),
      );
      s.tools(
        write(
          `${P.godot}/test/test_inventory.gd`,
          'extends GutTest\n\nfunc test_add_stacks() -> void:\n\tvar inv := Inventory.new()\n\tinv.add(&"moss", 3)\n\tinv.add(&"moss", 2)\n\tassert_eq(inv.count(&"moss"), 5)',
        ),
      );
      chores(s, "godot", 1, 0);
      s.say(
        "Inventory tests added and passing. Should the item pickup line go into the Dialogic timeline too?",
      );
      s.user(
        "we dropped Dialogic, too heavy. dialogue is plain .dialogue files with the Dialogue Manager addon now",
        D(
          "decision",
          "project",
          "moss-and-mire's dialogue uses Dialogue Manager .dialogue files (Dialogic was dropped)",
        ),
      );
      s.say("I'll add the pickup line to dialogue/pickups.dialogue.");
    },
  },
];

const SHINY: Script[] = [
  {
    id: "k37-shiny-answers-db",
    cwd: P.shiny,
    style: "facts given as answers to the agent's questions ('yes, the read replica, 6432')",
    start: "2025-10-13T09:15:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user("the wait times tab is empty on my machine", N("request"));
      chores(s, "shiny", 1, 1);
      s.say("The pool reads `DB_HOST`/`DB_PORT`. Does the app read from the primary or a replica?");
      s.user(
        "yes, the read replica, warehouse-ro, through pgbouncer on port 6432",
        D(
          "fact",
          "project",
          "clinic-dash reads from the read replica warehouse-ro through pgbouncer on port 6432",
        ),
      );
      s.say("Which R version and package setup? renv?");
      s.user(
        "R 4.4.1, and yes renv, restore from renv.lock, don't install.packages() things by hand",
        D("fact", "project", "clinic-dash runs on R 4.4.1"),
        D(
          "rule",
          "project",
          "clinic-dash packages come from renv.lock via renv::restore(); no install.packages() by hand",
        ),
      );
      s.tools(
        bash(
          "Rscript -e 'renv::status()'",
          "The following package(s) are out of sync:\n  DBI [1.2.2 -> 1.2.3]",
        ),
      );
      s.say("renv was out of sync; after `renv::restore()` the tab loads.");
      s.user("weird, it never loads on the first try when I'm on the VPN either", HN("one-off"));
      s.say(
        "The VPN's DNS resolves warehouse-ro slowly; the first connection times out at 5s and the retry succeeds.",
      );
    },
  },
  {
    id: "k38-shiny-slack-webhook",
    cwd: P.shiny,
    style:
      "a Slack webhook inside a durable alerting fact (contains_secret); a rule against hardcoding",
    start: "2025-10-16T13:00:00.000Z",
    version: "2.0.24",
    run: (s) => {
      s.user("when the nightly refresh fails nobody notices. add an alert", N("request"));
      s.say("Where should alerts go?");
      const hook = s.secret("slackWebhook");
      s.userS(
        `alerts for clinic-dash go to #clinic-dash-alerts, webhook is ${hook}`,
        [hook],
        D("fact", "project", "clinic-dash alerts go to the #clinic-dash-alerts Slack channel", {
          secret: true,
        }),
      );
      s.user(
        "and read it from .Renviron as SLACK_WEBHOOK_URL, never hardcode webhooks in R/",
        D(
          "rule",
          "project",
          "clinic-dash reads webhooks from .Renviron (SLACK_WEBHOOK_URL); never hardcode them in R/",
        ),
      );
      s.tools(
        write(
          `${P.shiny}/R/alert.R`,
          'notify_failure <- function(msg) {\n  httr2::request(Sys.getenv("SLACK_WEBHOOK_URL")) |>\n    httr2::req_body_json(list(text = msg)) |>\n    httr2::req_perform()\n}',
        ),
      );
      s.say(
        "`notify_failure()` posts to the webhook from the environment; the refresh job calls it on error.",
      );
    },
  },
  {
    id: "k39-shiny-modules-golem",
    cwd: P.shiny,
    style: "structure rules given while asking for a new tab; a descriptive 'always crashes'",
    start: "2025-10-21T10:30:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "new tab for no-show rates please. each tab is its own module in R/mod_<name>.R with a _ui and _server function, and the SQL lives in R/queries.R not inline in modules",
        N("request"),
        D(
          "rule",
          "project",
          "Each clinic-dash tab is a module in R/mod_<name>.R with <name>_ui and <name>_server functions",
        ),
        D("rule", "project", "clinic-dash SQL lives in R/queries.R, not inline in modules"),
      );
      s.tools(
        write(
          `${P.shiny}/R/mod_noshows.R`,
          'mod_noshows_ui <- function(id) {\n  ns <- NS(id)\n  plotOutput(ns("rate"))\n}\n\nmod_noshows_server <- function(id, pool) {\n  moduleServer(id, function(input, output, session) {\n    output$rate <- renderPlot(plot_noshows(query_noshows(pool)))\n  })\n}',
        ),
      );
      chores(s, "shiny", 1, 0);
      s.say("No-show tab added; tests pass.");
      s.user(
        "it always crashes when I filter by region and then switch tabs, can you repro?",
        HN("request"),
      );
      s.say(
        "Repro'd: the region input is NULL for a moment after the switch; `req(input$region)` guards it.",
      );
      s.user("do it", N("request"));
    },
  },
  {
    id: "k40-shiny-private-hypotheses",
    cwd: P.shiny,
    style: "a private patient note; hypotheses by user and agent; 'don't deploy … for this one'",
    start: "2025-10-24T12:45:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "the median wait for north region jumped. <private>one outlier is my aunt's visit, record 88213, she waited 9 hours</private> could be a timezone thing in the import?",
        N("private"),
        HN("hypothesis"),
      );
      s.tools(
        bash(
          'Rscript -e \'source("R/queries.R"); str(query_waittimes(pool, "north"))\'',
          '\'data.frame\':\t1204 obs. of  3 variables:\n $ arrived: POSIXct, format: "2025-10-20 07:02:00" ...\n $ seen   : POSIXct, format: "2025-10-20 08:15:00" ...',
        ),
      );
      s.say(
        "Maybe the replica switched to UTC while `arrived` is local time; that would add an hour to every wait.",
        N("hypothesis"),
      );
      s.user("check it against the primary's timezone", N("request"));
      s.say("Both are Europe/London; the jump is real, from three long waits.");
      s.user("ok. don't redeploy for this one, nothing changed", HN("one-off"));
    },
  },
];

const MORE: Script[] = [
  {
    id: "k41-shop-deploy-wiki-checklist",
    cwd: P.shop,
    style:
      "a deploy checklist pasted from the team wiki with Portuguese fillers: standing rules mixed with items for tonight's release",
    start: "2025-10-27T18:00:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.userBlocks(
        [
          "vamos fazer o deploy de hoje. checklist da wiki, segue:",
          "### Deploy checklist\n1. deploys happen Monday to Thursday only, never Friday\n2. `php artisan migrate --force` runs before the new code goes live (Envoyer hook)\n3. announce in #loja-ops 10 min before\n4. tonight: Bruno is on call, page him not me\n5. after deploy, `php artisan horizon:terminate` so workers pick up new code\n6. check the black-friday banner flag is OFF (until 28/11)",
        ],
        N("request"),
        HN("one-off"),
        D("rule", "project", "bazaar-shop deploys happen Monday to Thursday only, never on Friday"),
        D(
          "rule",
          "project",
          "bazaar-shop runs `php artisan migrate --force` before new code goes live (Envoyer hook)",
        ),
        D("rule", "project", "Announce bazaar-shop deploys in #loja-ops 10 minutes before"),
        D(
          "rule",
          "project",
          "After a bazaar-shop deploy run `php artisan horizon:terminate` so workers load the new code",
        ),
      );
      s.tools(
        bash(
          "envoy run deploy --env=production | tail -3",
          "[bazaar-prod]: Migrating: 2025_10_20_100000_add_gift_message_to_orders\n[bazaar-prod]: Migrated\n[bazaar-prod]: Horizon terminated.",
        ),
      );
      s.say("Deployed, migrated, Horizon restarted. The banner flag is off.");
      s.user("perfeito, obrigado", N("request"));
    },
  },
  {
    id: "k42-electron-contributing-guide",
    cwd: P.electron,
    style: "a maintainer dictating CONTRIBUTING rules, one of them retracted a few turns later",
    start: "2025-10-28T09:30:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user(
        "let's finally write CONTRIBUTING.md. contributors must open an issue before any PR bigger than 200 lines, and contributors must run `pnpm test && pnpm lint` before pushing, CI minutes are not free",
        N("request"),
        HN("one-off"),
        D(
          "rule",
          "project",
          "markpad contributors must run `pnpm test && pnpm lint` before pushing",
        ),
      );
      s.tools(
        write(
          `${P.electron}/CONTRIBUTING.md`,
          "# Contributing to markpad\n\n- Open an issue before a PR larger than 200 lines.\n- Run `pnpm test && pnpm lint` before pushing.\n- Sign off your commits (DCO).\n- Add a changeset for user-visible changes.",
        ),
      );
      s.say("Draft written with those rules plus the DCO and changeset ones.");
      s.user("add a section on how to run the app from source", N("request"));
      s.tools(
        edit(
          `${P.electron}/CONTRIBUTING.md`,
          "- Add a changeset for user-visible changes.",
          "- Add a changeset for user-visible changes.\n\n## Running from source\n\n    pnpm install\n    pnpm dev",
        ),
      );
      s.say("Added.");
      s.user(
        "actually drop the 200-lines issue rule, it scares off first-timers and I never enforced it. big PRs are fine if they're split into reviewable commits",
        N("request"),
        D(
          "rule",
          "project",
          "Large markpad PRs are fine without an issue first, as long as they are split into reviewable commits",
        ),
      );
      s.tools(
        edit(
          `${P.electron}/CONTRIBUTING.md`,
          "- Open an issue before a PR larger than 200 lines.\n",
          "- Split large PRs into reviewable commits.\n",
        ),
      );
      s.say("Removed; the guide now asks for reviewable commits instead.");
    },
  },
  {
    id: "k43-pulumi-anthropic-global",
    cwd: P.pulumi,
    style:
      "an Anthropic key pasted for a Lambda's config (not durable); global working preferences from the staff engineer",
    start: "2025-10-29T07:40:00.000Z",
    version: "2.0.37",
    run: (s) => {
      const key = s.secret("anthropic");
      s.userS(
        `the summariser lambda needs its api key in staging config: ${key}`,
        [key],
        N("secret"),
      );
      s.say(
        "I'll set it with `pulumi config set --secret`; please run that yourself so the key doesn't pass through me: `pulumi config set --secret anthropicKey <key> --stack acme/platform/staging`.",
      );
      s.user(
        "Done. Two general things about how I like to work, and they go for every repo, not only this one: before you change more than a couple of files, show me the plan first and wait for an ok; and when a command is destructive in any way, print it and let me run it myself rather than running it.",
        D(
          "preference",
          "global",
          "Before changing more than a couple of files, show the plan and wait for approval",
        ),
        D(
          "preference",
          "global",
          "Print destructive commands for the user to run instead of running them",
        ),
      );
      s.say("Understood.");
      s.user("now wire the key into the lambda's environment", N("request"));
      s.tools(
        edit(
          `${P.pulumi}/src/summariser.ts`,
          "environment: { variables: {} },",
          'environment: { variables: { ANTHROPIC_API_KEY: cfg.requireSecret("anthropicKey") } },',
        ),
      );
      s.say("The lambda reads it from the stack secret.");
    },
  },
  {
    id: "k44-godot-maintainer-global",
    cwd: P.godot,
    style:
      "global preferences in German-flavoured English; a questions-only tail; an 'always' inside one request",
    start: "2025-10-30T19:00:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user(
        "kurz, generell für alle Projekte: answer me in English even when I write German bits, and don't add emojis to code comments or commit messages, ever",
        D("preference", "global", "Answer in English even when the user mixes in German"),
        D("preference", "global", "No emojis in code comments or commit messages"),
      );
      s.say("Okay.");
      s.command("clear");
      s.user(
        "make the pause menu always appear on top of the HUD, for this scene only",
        HN("request"),
      );
      s.tools(edit(`${P.godot}/scenes/ui/pause_menu.tscn`, "layer = 1", "layer = 10"));
      s.say("The pause menu's CanvasLayer is now above the HUD.");
      s.user("wie viele scenes haben wir eigentlich? how many .tscn files?", N("question"));
      s.tools(bash("find . -name '*.tscn' | wc -l", "87"));
      s.say("87.");
      s.user("and which one is the biggest?", N("question"));
      s.tools(
        bash(
          "find . -name '*.tscn' -printf '%s %p\\n' | sort -n | tail -1",
          "412877 ./scenes/levels/level_5.tscn",
        ),
      );
      s.say("scenes/levels/level_5.tscn, 412 KB.");
    },
  },
];

/** The holdout4 split, in file order. */
export const HOLDOUT4: Script[] = [
  ...SHOP,
  ...IOS,
  ...CLJ,
  ...DBT,
  ...PULUMI,
  ...NIX,
  ...ELECTRON,
  ...SOL,
  ...GODOT,
  ...SHINY,
  ...MORE,
];
