/**
 * Hand-written sessions of the capture benchmark's `holdout` split: written on 2026-11-29 by a
 * helper that saw neither the extractor nor its tests, benchmark task or results, and frozen
 * before any tuning against them. New projects (a React Native app, an ML training repo, a
 * Python library, a Terraform module, a frontend monorepo, a Rails app, a game server) and
 * some of the earlier ones.
 *
 * @module
 */
import {
  bash,
  bashErr,
  D,
  edit,
  glob,
  grep,
  N,
  read,
  type Session,
  todo,
  type ToolStep,
  write,
} from "./build.ts";
import { CWD, routine } from "./projects.ts";
import type { Script } from "./sessions_dev.ts";

/** The holdout split's new projects. */
const P = {
  mobile: "/Users/priya/dev/fieldnotes-app",
  ml: "/home/wen/research/seg-train",
  pylib: "/home/ola/src/pyquantiles",
  tfmod: "/Users/jo/code/terraform-aws-rds-cluster",
  mono: "/home/kim/work/storefront",
  rails: "/home/ben/apps/clinic-booking",
  game: "/home/tomas/dev/arena-server",
} as const;

const CHORES: Record<keyof typeof P, ToolStep[]> = {
  mobile: [
    bash(
      "npx jest src/screens --silent",
      "PASS src/screens/__tests__/NoteList.test.tsx\nPASS src/screens/__tests__/Settings.test.tsx\n\nTest Suites: 2 passed, 2 total\nTests:       17 passed, 17 total\nSnapshots:   3 passed, 3 total\nTime:        4.118 s",
    ),
    read(
      `${P.mobile}/src/screens/NoteList.tsx`,
      'import { FlatList } from "react-native";\nimport { useNotes } from "../hooks/useNotes";\nimport { t } from "../i18n";\n\nexport function NoteList() {\n  const { notes, refresh, loading } = useNotes();\n  return (\n    <FlatList\n      data={notes}\n      onRefresh={refresh}\n      refreshing={loading}\n      ListEmptyComponent={<EmptyState title={t("notes.empty")} />}\n      renderItem={({ item }) => <NoteRow note={item} />}\n    />\n  );\n}',
    ),
    bash("npx tsc --noEmit", ""),
    bash(
      "npx expo-doctor",
      "✔ Check Expo config for common issues\n✔ Check package.json for common issues\n✔ Check dependencies for packages that should not be installed directly\n\nDidn't find any issues with the project!",
    ),
    bash(
      "git status --short",
      " M src/screens/Settings.tsx\n M src/i18n/en.json\n?? src/components/ThemeToggle.tsx",
    ),
  ],
  ml: [
    bash(
      "python -m pytest tests -q",
      "..........................                                               [100%]\n26 passed in 11.72s",
    ),
    read(
      `${P.ml}/configs/base.yaml`,
      "model:\n  backbone: convnext_tiny\n  decoder: upernet\n  num_classes: 19\ndata:\n  root: /datasets/cityscapes-v2\n  crop: [512, 1024]\n  batch_size: 16\noptim:\n  name: adamw\n  lr: 6.0e-5\n  weight_decay: 0.01\n  warmup_steps: 500\ntrainer:\n  max_steps: 80000\n  precision: bf16-mixed\n  val_every: 4000",
    ),
    bash(
      "squeue -u wen",
      "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n           4418203  gpu-a100 seg-cnx-t      wen  R    3:12:41      1 gpu-a100-07",
    ),
    bash(
      "tail -n 4 logs/4418203.out",
      "[step 23800] loss=0.2114 lr=5.71e-05 it/s=3.92\n[step 23900] loss=0.2098 lr=5.71e-05 it/s=3.93\n[step 24000] val/mIoU=0.7412 val/loss=0.2610\n[step 24000] saved checkpoint ckpt/step_024000.pt",
    ),
    read(
      `${P.ml}/seg/train.py`,
      "def main(cfg):\n    seed_everything(cfg.seed)\n    model = build_model(cfg.model)\n    dm = CityscapesDataModule(cfg.data)\n    trainer = build_trainer(cfg.trainer, logger=WandbLogger(project=cfg.wandb.project))\n    trainer.fit(model, dm)",
    ),
  ],
  pylib: [
    bash(
      "hatch run test",
      "============================= test session starts ==============================\ncollected 142 items\n\ntests/test_tdigest.py ..............................................     [ 32%]\ntests/test_ckms.py ..........................................            [ 61%]\ntests/test_api.py ......................................................  [100%]\n\n============================= 142 passed in 3.88s ==============================",
    ),
    read(
      `${P.pylib}/src/pyquantiles/tdigest.py`,
      'class TDigest:\n    """Streaming quantile estimator (t-digest, merging variant)."""\n\n    def __init__(self, compression: float = 100.0) -> None:\n        self.compression = compression\n        self._centroids: list[Centroid] = []\n        self._buffer: list[float] = []\n\n    def update(self, x: float, w: float = 1.0) -> None:\n        self._buffer.append(x)\n        if len(self._buffer) >= self._buffer_size:\n            self._flush()',
    ),
    bash("hatch run lint:check", "All checks passed!\nSuccess: no issues found in 14 source files"),
    bash(
      "git log --oneline -4",
      "9d0e1f2 ckms: fix rank error bound for tiny streams\n4c3b2a1 docs: quantile() examples\n77a8e90 tdigest: merge buffers in place\n0b1c2d3 ci: test on 3.13",
    ),
  ],
  tfmod: [
    bash(
      "terraform fmt -recursive -check && terraform validate",
      "Success! The configuration is valid.",
    ),
    read(
      `${P.tfmod}/variables.tf`,
      'variable "cluster_identifier" {\n  description = "Name of the Aurora cluster."\n  type        = string\n}\n\nvariable "engine_version" {\n  description = "Aurora PostgreSQL engine version."\n  type        = string\n  default     = "15.4"\n}\n\nvariable "instance_class" {\n  description = "Instance class of the writer and readers."\n  type        = string\n  default     = "db.r6g.large"\n}',
    ),
    bash(
      "tflint --recursive",
      "",
    ),
    bash(
      "cd test && go test -run TestExamplesPlan -count=1 ./...",
      "ok  \tgithub.com/acme/terraform-aws-rds-cluster/test\t48.213s",
    ),
  ],
  mono: [
    bash(
      "pnpm turbo run lint --filter=web",
      "• Packages in scope: web\n• Running lint in 1 packages\nweb:lint: cache miss, executing 3f1a9c0b2e7d4a11\nweb:lint: ✔ No ESLint warnings or errors\n\n Tasks:    1 successful, 1 total\nCached:    0 cached, 1 total\n  Time:    9.402s",
    ),
    read(
      `${P.mono}/apps/web/app/cart/page.tsx`,
      'import { CartSummary } from "@storefront/ui";\nimport { getCart } from "@/lib/cart";\n\nexport default async function CartPage() {\n  const cart = await getCart();\n  return <CartSummary items={cart.items} total={cart.total} />;\n}',
    ),
    bash(
      "pnpm --filter @storefront/ui test",
      " ✓ src/Button/Button.test.tsx (6 tests) 141ms\n ✓ src/CartSummary/CartSummary.test.tsx (4 tests) 203ms\n\n Test Files  2 passed (2)\n      Tests  10 passed (10)",
    ),
    bash(
      "git status --short",
      " M apps/web/app/cart/page.tsx\n M packages/ui/src/CartSummary/CartSummary.tsx",
    ),
    bash(
      "pnpm turbo run typecheck",
      " Tasks:    7 successful, 7 total\nCached:    5 cached, 7 total",
    ),
  ],
  rails: [
    bash(
      "bundle exec rspec spec/models",
      "..........................................\n\nFinished in 2.81 seconds (files took 1.94 seconds to load)\n42 examples, 0 failures",
    ),
    read(
      `${P.rails}/app/models/appointment.rb`,
      "class Appointment < ApplicationRecord\n  belongs_to :patient\n  belongs_to :practitioner\n  has_many :audit_events, as: :subject\n\n  after_update :record_audit_event\n\n  validates :starts_at, :ends_at, presence: true\n  validate :does_not_overlap\nend",
    ),
    bash(
      "bundle exec rubocop app spec",
      "Inspecting 187 files\n...........\n\n187 files inspected, no offenses detected",
    ),
    bash(
      "bin/rails db:migrate:status | tail -3",
      "   up     20251102101500  Add cancelled at to appointments\n   up     20251109083000  Create reminders\n  down    20251120140000  Add locale to patients",
    ),
  ],
  game: [
    bash(
      "go test ./...",
      "ok  \tgithub.com/tomasr/arena-server/sim\t0.884s\nok  \tgithub.com/tomasr/arena-server/net\t1.203s\nok  \tgithub.com/tomasr/arena-server/match\t0.317s\n?   \tgithub.com/tomasr/arena-server/cmd/arena\t[no test files]",
    ),
    read(
      `${P.game}/sim/tick.go`,
      "package sim\n\nconst TickRate = 30\n\nfunc (w *World) Step(inputs []Input) {\n\tfor i := range inputs {\n\t\tw.apply(&inputs[i])\n\t}\n\tw.physics.Step(1.0 / TickRate)\n\tw.resolveHits()\n\tw.tick++\n}",
    ),
    bash(
      "go test -bench=BenchmarkStep -benchmem ./sim",
      "goos: linux\ngoarch: amd64\nBenchmarkStep-8   \t   41238\t     28911 ns/op\t       0 B/op\t       0 allocs/op\nPASS\nok  \tgithub.com/tomasr/arena-server/sim\t1.502s",
    ),
    bash("golangci-lint run ./...", ""),
  ],
};

/** Adds `n` routine tool calls of a holdout project (2 events each), cycling from `offset`. */
function chores(s: Session, project: keyof typeof P, n: number, offset = 0): void {
  const pool = CHORES[project];
  for (let i = 0; i < n; i++) s.tools(pool[(offset + i) % pool.length]);
}

const MOBILE: Script[] = [
  {
    id: "h01-mobile-onboarding-bullets",
    cwd: P.mobile,
    style: "chatty onboarding with rules as a bullet list, then ordinary work and a one-off",
    start: "2025-11-03T09:12:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "hey! first session on this repo so a bit of background before you touch anything:\n\n- it's an Expo app (SDK 51). please don't bump the SDK on your own, Priya does upgrades\n- every string the user can see goes through `t()` from src/i18n, no hardcoded english in components\n- iOS and android builds happen on EAS, never build locally with xcodebuild / gradle\n- min versions are iOS 15 and android API 26\n\nok, the actual task: add a dark mode toggle to the Settings screen, stored in the user prefs",
        D("rule", "project", "Don't bump the Expo SDK (51) on your own; Priya does SDK upgrades"),
        D(
          "rule",
          "project",
          "All user-visible strings in fieldnotes-app go through t() from src/i18n; no hardcoded English in components",
        ),
        D(
          "rule",
          "project",
          "fieldnotes-app iOS and Android builds run on EAS, never locally with xcodebuild or gradle",
        ),
        D("fact", "project", "fieldnotes-app supports iOS 15+ and Android API 26+"),
        N("request"),
      );
      chores(s, "mobile", 2, 1);
      s.tools(
        write(
          `${P.mobile}/src/components/ThemeToggle.tsx`,
          'import { Switch } from "react-native";\nimport { usePrefs } from "../hooks/usePrefs";\nimport { t } from "../i18n";\n\nexport function ThemeToggle() {\n  const [prefs, setPrefs] = usePrefs();\n  return (\n    <Row label={t("settings.darkMode")}>\n      <Switch value={prefs.theme === "dark"} onValueChange={(v) => setPrefs({ theme: v ? "dark" : "light" })} />\n    </Row>\n  );\n}',
        ),
        edit(
          `${P.mobile}/src/i18n/en.json`,
          '"settings.title": "Settings",',
          '"settings.title": "Settings",\n  "settings.darkMode": "Dark mode",',
        ),
      );
      s.say(
        'Added `ThemeToggle` on the Settings screen; the label goes through `t("settings.darkMode")` and the choice is saved in the user prefs.',
      );
      s.user("nice. run the tests pls", N("request"));
      s.tools(
        bashErr(
          "npx jest src/screens --silent",
          "FAIL src/screens/__tests__/Settings.test.tsx\n  ● Settings › matches snapshot\n\n    expect(received).toMatchSnapshot()\n\n    Snapshot name: `Settings matches snapshot 1`\n\n    - Snapshot  - 0\n    + Received  + 9",
        ),
      );
      s.say(
        "The Settings snapshot fails. Probably the snapshot is simply outdated because the new toggle adds a row, rather than a real regression.",
        N("hypothesis"),
      );
      s.user("why would it be anything else?", N("question"));
      s.say(
        "It wouldn't here: the diff is exactly the new row. I only mention it because a snapshot update would also hide an unintended change.",
      );
      s.user(
        "ok update it. just this once you can run jest with -u, normally i want to see snapshot diffs first",
        N("one-off"),
        D(
          "preference",
          "project",
          "Show snapshot diffs before updating Jest snapshots in fieldnotes-app; don't run jest -u without asking",
        ),
      );
      s.tools(
        bash(
          "npx jest src/screens/__tests__/Settings.test.tsx -u --silent",
          "PASS src/screens/__tests__/Settings.test.tsx\n\nSnapshot Summary\n › 1 snapshot updated from 1 test suite.",
        ),
      );
      s.say("Snapshot updated; all screen tests pass.");
    },
  },
  {
    id: "h02-mobile-correction-securestore",
    cwd: P.mobile,
    style: "terse; correction after the agent stores a token in AsyncStorage; fyi fact",
    start: "2025-11-04T16:40:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "login should survive app restarts. right now you have to log in every time",
        N("request"),
      );
      s.tools(
        read(
          `${P.mobile}/src/auth/session.ts`,
          "let token: string | null = null;\n\nexport function setToken(t: string) {\n  token = t;\n}\n\nexport function getToken() {\n  return token;\n}",
        ),
        edit(
          `${P.mobile}/src/auth/session.ts`,
          "let token: string | null = null;",
          'import AsyncStorage from "@react-native-async-storage/async-storage";\n\nlet token: string | null = null;\nconst KEY = "auth.token";',
        ),
      );
      s.say("I persist the token in AsyncStorage under `auth.token` and load it at startup.");
      s.user(
        "no — we never put auth tokens in AsyncStorage, it's plain text on disk. tokens go in expo-secure-store. redo it",
        D(
          "rule",
          "project",
          "Never store auth tokens in AsyncStorage in fieldnotes-app; use expo-secure-store",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.mobile}/src/auth/session.ts`,
          'import AsyncStorage from "@react-native-async-storage/async-storage";',
          'import * as SecureStore from "expo-secure-store";',
        ),
        bash("npx tsc --noEmit", ""),
      );
      s.say("Switched to `expo-secure-store` (`getItemAsync` / `setItemAsync`). Types check.");
      s.user(
        "ty. fyi staging api is https://api-staging.fieldnotes.app and prod is https://api.fieldnotes.app, the app picks one from APP_ENV",
        D(
          "fact",
          "project",
          "fieldnotes-app API: staging https://api-staging.fieldnotes.app, prod https://api.fieldnotes.app, chosen by APP_ENV",
        ),
      );
      s.say("Noted. `src/config.ts` already switches on `APP_ENV`.");
      s.user("k", N("request"));
    },
  },
  {
    id: "h03-mobile-maps-key",
    cwd: P.mobile,
    style: "a Google Maps key inside an otherwise durable fact; question about a crash",
    start: "2025-11-06T11:05:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "the map screen is blank on android but works on ios. any idea?",
        N("question"),
      );
      s.tools(
        read(
          `${P.mobile}/app.config.ts`,
          'export default {\n  expo: {\n    name: "Fieldnotes",\n    android: { package: "com.fieldnotes.app", config: { googleMaps: { apiKey: process.env.MAPS_ANDROID_KEY } } },\n  },\n};',
        ),
      );
      s.say(
        "Android reads `MAPS_ANDROID_KEY` at build time. If it's empty in the dev build, the map renders blank without an error.",
        N("hypothesis"),
      );
      const key = s.secret("google");
      s.userS(
        `it's set. the android maps key is ${key} and it's locked to the package name com.fieldnotes.app plus our release SHA-1, so debug builds signed with another cert will never show the map`,
        [key],
        D(
          "fact",
          "project",
          "The Android Maps key is restricted to com.fieldnotes.app and the release SHA-1, so debug builds signed with another certificate show a blank map",
          { secret: true },
        ),
        N("secret"),
      );
      s.say(
        "That explains it: your dev client is signed with the debug keystore. Please rotate that key since it's now in this transcript. For local work you could add the debug SHA-1 to a separate dev key.",
      );
      s.user(
        "makes sense. can you add a note to the README about the debug SHA-1 thing?",
        N("request"),
      );
      s.tools(
        edit(
          `${P.mobile}/README.md`,
          "## Maps\n",
          "## Maps\n\nThe Android Maps key only accepts the release signing certificate. Debug builds need the dev key (see 1Password: fieldnotes / maps-dev).\n",
        ),
      );
      s.say("README updated.");
    },
  },
  {
    id: "h04-mobile-questions-hypotheses",
    cwd: P.mobile,
    style: "questions phrased like rules, user hypotheses, one-offs for a release; nothing durable",
    start: "2025-11-10T14:22:00.000Z",
    version: "2.0.31",
    model: "claude-opus-4-1-20250805",
    run: (s) => {
      s.user(
        "should we always be using FlatList instead of ScrollView+map for lists? the notes screen gets janky",
        N("question"),
      );
      s.say(
        "For long or unbounded lists, yes: FlatList virtualizes rows. The notes screen already uses FlatList; the jank is more likely `NoteRow` re-rendering.",
      );
      s.user(
        "hmm I think the jank started with the hermes upgrade though? maybe it's that",
        N("hypothesis"),
      );
      chores(s, "mobile", 2);
      s.say(
        "The profile shows `NoteRow` rendering 3× per scroll frame because `renderItem` is recreated each render. Memoizing the row should fix it regardless of Hermes.",
      );
      s.user("do we even need to support tablets?", N("question"));
      s.say("`app.config.ts` has `supportsTablet: true` for iOS, so iPads get the app today.");
      s.user(
        "ok whatever, memo the row. and for this release skip the android build entirely, we only ship ios on friday",
        N("request"),
        N("one-off"),
      );
      s.tools(
        edit(
          `${P.mobile}/src/screens/NoteList.tsx`,
          "renderItem={({ item }) => <NoteRow note={item} />}",
          "renderItem={renderNote}",
        ),
      );
      s.say("Memoized `NoteRow` and hoisted `renderItem`. I won't touch the android build.");
      s.user("is it always this slow in dev mode or is my phone dying lol", N("question"));
      s.say(
        "Dev mode is much slower (no minification, JS dev checks). Try a preview build to judge.",
      );
    },
  },
  {
    id: "h05-mobile-stored-dup-contra",
    cwd: P.mobile,
    style: "stored memories: one repeated, one contradicted (release day moved)",
    start: "2025-11-17T08:50:00.000Z",
    version: "2.0.37",
    stored: [
      "All user-visible strings in fieldnotes-app go through t() from src/i18n; no hardcoded English in components",
      "fieldnotes-app releases go to the stores on Thursdays",
    ],
    run: (s) => {
      s.user(
        "add an empty state to the Tags screen. and remember, strings through t(), not literals",
        N("request"),
        D(
          "rule",
          "project",
          "User-visible strings in fieldnotes-app go through t(), not literals",
          {
            dup:
              "All user-visible strings in fieldnotes-app go through t() from src/i18n; no hardcoded English in components",
          },
        ),
      );
      chores(s, "mobile", 1, 1);
      s.tools(
        edit(
          `${P.mobile}/src/screens/Tags.tsx`,
          "data={tags}",
          'data={tags}\n      ListEmptyComponent={<EmptyState title={t("tags.empty")} />}',
        ),
      );
      s.say(
        'Added the empty state with `t("tags.empty")`. Shall I prepare the release notes for Thursday\'s store release?',
      );
      s.user(
        "heads up: releases moved to mondays now. apple review kept landing on the weekend and nobody was around to answer them",
        D(
          "decision",
          "project",
          "fieldnotes-app releases go to the stores on Mondays (moved from Thursdays because App Store review landed on weekends)",
          { contra: "fieldnotes-app releases go to the stores on Thursdays" },
        ),
      );
      s.say("Got it, Mondays. I'll draft the notes for next Monday then.");
      s.user("yeah draft them, keep it under 4 bullet points", N("request"));
      s.tools(
        write(
          `${P.mobile}/release-notes/1.14.0.md`,
          "- Dark mode toggle in Settings\n- Faster scrolling in long note lists\n- Empty state for Tags\n- Login survives restarts",
        ),
      );
      s.say("Drafted `release-notes/1.14.0.md` with 4 bullets.");
    },
  },
];

const ML: Script[] = [
  {
    id: "h06-ml-long-sweep",
    cwd: P.ml,
    style:
      "long (30+ user turns), terse researcher; facts and a rule of thumb scattered among many requests, one-offs and hypotheses; an auto compaction",
    start: "2025-11-05T07:30:00.000Z",
    version: "2.0.30",
    branch: "exp/convnext-small",
    run: (s) => {
      s.user("morning. the convnext_tiny run from yesterday, how far is it", N("question"));
      chores(s, "ml", 2, 2);
      s.say("Job 4418203 is at step 24000 of 80000; val mIoU 0.741 at the last eval.");
      s.user("ok. i want to try convnext_small with the same recipe", N("request"));
      chores(s, "ml", 1, 1);
      s.say(
        "I'll copy `configs/base.yaml` to `configs/cnx_small.yaml` and switch the backbone. I'll launch it with `python -m seg.train` here once it's ready.",
      );
      s.user(
        "don't run training here, this is the login node. everything goes through sbatch on the gpu-a100 partition, always",
        D(
          "rule",
          "project",
          "Never run training on the login node; submit it with sbatch to the gpu-a100 partition",
        ),
      );
      s.tools(
        write(
          `${P.ml}/configs/cnx_small.yaml`,
          "defaults: [base]\nmodel:\n  backbone: convnext_small\n",
        ),
        read(
          `${P.ml}/scripts/train.sbatch`,
          "#!/bin/bash\n#SBATCH --partition=gpu-a100\n#SBATCH --gres=gpu:4\n#SBATCH --time=48:00:00\nsrun python -m seg.train --config $1",
        ),
      );
      s.say("Config ready. `scripts/train.sbatch` asks for 4 GPUs for 48h. Submit it?");
      s.user("batch size?", N("question"));
      s.say("16 per GPU from base.yaml, so 64 in total.");
      s.user(
        "bump to 24 per gpu. rule of thumb here: once the global batch is over 64 we double the warmup, so 1000 steps",
        N("request"),
        D(
          "rule",
          "project",
          "Rule of thumb in seg-train: when the global batch size is over 64, double the LR warmup (500 to 1000 steps)",
        ),
      );
      s.tools(
        edit(
          `${P.ml}/configs/cnx_small.yaml`,
          "  backbone: convnext_small\n",
          "  backbone: convnext_small\ndata:\n  batch_size: 24\noptim:\n  warmup_steps: 1000\n",
        ),
      );
      s.say("Global batch 96, warmup 1000 steps.");
      s.user("lr too?", N("question"));
      s.say("Linear scaling would give 9e-5 for 96 vs 64. Want that?");
      s.user("no keep 6e-5 for this one, i want to isolate the batch effect", N("one-off"));
      s.say("Keeping 6e-5.");
      s.user("submit", N("request"));
      s.tools(
        bash("sbatch scripts/train.sbatch configs/cnx_small.yaml", "Submitted batch job 4419377"),
      );
      s.say("Submitted as job 4419377.");
      s.user(
        "also fyi, the dataset is at /datasets/cityscapes-v2 and it's read-only, shared with two other groups. preprocessed stuff goes to /scratch/wen, never next to the data",
        D(
          "fact",
          "project",
          "The Cityscapes data set is at /datasets/cityscapes-v2, read-only and shared",
        ),
        D(
          "rule",
          "project",
          "Preprocessed data goes to /scratch/wen, never next to the data set in /datasets",
        ),
      );
      s.say("Understood.");
      s.user("check if it started", N("request"));
      s.tools(
        bash(
          "squeue -u wen",
          "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n           4418203  gpu-a100 seg-cnx-t      wen  R    3:31:02      1 gpu-a100-07\n           4419377  gpu-a100 seg-cnx-s      wen PD       0:00      1 (Priority)",
        ),
      );
      s.say("Pending on priority.");
      s.user("ugh. the queue is always slow on wednesdays", N("hypothesis"));
      s.say("Possibly; the other group's sweep is holding 6 nodes right now.");
      s.user(
        "meanwhile write the eval script for the multi-scale test, scales 0.5 to 1.75",
        N("request"),
      );
      chores(s, "ml", 2, 4);
      s.tools(
        write(
          `${P.ml}/seg/eval_ms.py`,
          "SCALES = (0.5, 0.75, 1.0, 1.25, 1.5, 1.75)\n\n\ndef evaluate(model, loader, flip=True):\n    for img, target in loader:\n        logits = sum(predict(model, img, s, flip) for s in SCALES)\n        update_confusion(logits.argmax(1), target)\n    return miou()",
        ),
      );
      s.say("`seg/eval_ms.py` averages logits over 6 scales with flips.");
      s.user("flip on by default? hmm", N("question"));
      s.say("Yes. The paper numbers you compare against use flip+MS.");
      s.user("fine", N("request"));
      s.say("Keeping it as is.");
      s.user("test it on the tiny checkpoint from step 24000", N("request"));
      s.say("That needs a GPU; I'll submit a 1-GPU eval job rather than running it here.");
      s.tools(
        bash(
          "sbatch --gres=gpu:1 --time=1:00:00 scripts/eval.sbatch ckpt/step_024000.pt",
          "Submitted batch job 4419402",
        ),
      );
      chores(s, "ml", 3, 0);
      s.compact(
        "Primary request: train convnext_small with the tiny recipe (config configs/cnx_small.yaml, batch 24/GPU, warmup 1000, lr 6e-5), job 4419377 pending.\nUser constraints: training only through sbatch on gpu-a100, never on the login node; data set read-only at /datasets/cityscapes-v2; preprocessed data in /scratch/wen; warmup doubles when global batch > 64.\nDone: multi-scale eval script seg/eval_ms.py; eval job 4419402 submitted for step 24000.\nPending: check eval result, monitor 4419377.",
      );
      s.user("eval done?", N("question"));
      s.tools(
        bash("tail -n 2 logs/4419402.out", "[eval_ms] scales=6 flip=True\n[eval_ms] mIoU=0.7638"),
      );
      s.say("Multi-scale mIoU 0.764 vs 0.741 single-scale at step 24000.");
      s.user("ok good. log it to wandb under the same run", N("request"));
      s.say(
        "Which W&B project should I use? `base.yaml` has `wandb.project: seg-train` but no entity.",
      );
      s.user(
        "entity is acme-vision, project seg-train. every run goes there, don't make new projects per experiment, use tags",
        D("fact", "project", "seg-train logs to W&B entity acme-vision, project seg-train"),
        D(
          "rule",
          "project",
          "Don't create a W&B project per experiment in seg-train; tag runs in the seg-train project instead",
        ),
      );
      s.tools(
        bash(
          "python scripts/wandb_log_eval.py --run 4418203 --key val/mIoU_ms --value 0.7638 --step 24000",
          "wandb: logged val/mIoU_ms=0.7638 to acme-vision/seg-train/runs/cnx-t-0412",
        ),
      );
      s.say("Logged `val/mIoU_ms` to run cnx-t-0412.");
      s.user("did the small one start", N("question"));
      s.tools(
        bash(
          "squeue -u wen -j 4419377",
          "4419377  gpu-a100 seg-cnx-s  wen  R  0:14:48  1 gpu-a100-03",
        ),
      );
      s.say("Running for 15 minutes on gpu-a100-03.");
      s.user("loss curve look sane?", N("question"));
      s.tools(
        bash(
          "tail -n 3 logs/4419377.out",
          "[step 300] loss=1.4410 lr=1.80e-05 it/s=2.71\n[step 400] loss=1.1193 lr=2.40e-05 it/s=2.72\n[step 500] loss=0.9620 lr=3.00e-05 it/s=2.72",
        ),
      );
      s.say("Yes, decreasing smoothly during warmup; 2.7 it/s.");
      s.user(
        "2.7 is slow. I bet it's the dataloader, the workers are probably starved",
        N("hypothesis"),
      );
      s.say(
        "Possibly. `num_workers` is 4 per GPU; the nodes have 32 cores for 4 GPUs, so 8 would fit. It could also be the larger backbone itself.",
        N("hypothesis"),
      );
      s.user("try 8 workers on the next run, not this one", N("one-off"));
      s.say("I'll set it in the config for the next submission only.");
      s.user("what's the checkpoint policy in train.py right now", N("question"));
      s.say("Every `val_every` (4000 steps) a checkpoint is written to `ckpt/`, all kept.");
      s.user(
        "keep only the last 3 plus the best by val mIoU. each ckpt is 1.2G and /scratch has a quota of 2T",
        N("request"),
        D("fact", "project", "/scratch has a 2 TB quota; a seg-train checkpoint is about 1.2 GB"),
      );
      s.tools(
        edit(
          `${P.ml}/seg/train.py`,
          "ModelCheckpoint(dirpath=cfg.ckpt_dir)",
          'ModelCheckpoint(dirpath=cfg.ckpt_dir, save_top_k=1, monitor="val/mIoU", mode="max", save_last=3)',
        ),
      );
      s.say("Done: best by val mIoU plus the last 3.");
      s.user("tests", N("request"));
      chores(s, "ml", 1, 0);
      s.say("26 passed.");
      s.user("commit on this branch, msg 'ckpt: keep best + last 3'", N("request"));
      s.tools(
        bash(
          "git commit -am 'ckpt: keep best + last 3'",
          "[exp/convnext-small 5e1f0a2] ckpt: keep best + last 3\n 1 file changed, 1 insertion(+), 1 deletion(-)",
        ),
      );
      s.say("Committed.");
      s.user(
        "also going forward put the slurm job id in every commit message that comes from an experiment, makes it way easier to trace back",
        D(
          "rule",
          "project",
          "In seg-train, commit messages from an experiment include the Slurm job id",
        ),
      );
      s.say("Will do. Amend this one with job 4419377?");
      s.user("yes", N("request"));
      s.tools(
        bash(
          "git commit --amend -m 'ckpt: keep best + last 3 (job 4419377)'",
          "[exp/convnext-small 7a2b3c4] ckpt: keep best + last 3 (job 4419377)",
        ),
      );
      s.say("Amended.");
      s.user("wait, the eval job earlier, was that single scale or ms", N("question"));
      s.say("Multi-scale with flips (`seg/eval_ms.py`): 0.764.");
      s.user("and if the small run goes NaN overnight just scancel it", N("one-off"));
      s.say(
        "I can't watch it overnight from this session; `scripts/watch_nan.sh 4419377` would cancel it on a NaN loss. Start it?",
      );
      s.user(
        "yes. oh and fyi jobs need --account=vision-gpu, without it they land in the free tier queue and wait forever. put it in the sbatch scripts",
        N("request"),
        D(
          "fact",
          "project",
          "seg-train Slurm jobs need --account=vision-gpu; without it they run in the free-tier queue",
        ),
      );
      s.tools(
        edit(
          `${P.ml}/scripts/train.sbatch`,
          "#SBATCH --partition=gpu-a100",
          "#SBATCH --partition=gpu-a100\n#SBATCH --account=vision-gpu",
        ),
        bash("nohup scripts/watch_nan.sh 4419377 >/dev/null 2>&1 &", ""),
      );
      s.say("Account added to the sbatch scripts; the NaN watcher is running.");
      s.user("ok i'm off, ping me nothing", N("request"));
    },
  },
  {
    id: "h07-ml-private-reviewer",
    cwd: P.ml,
    style: "private block about unpublished work and a reviewer; a durable rule outside it",
    start: "2025-11-12T19:05:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "need the ablation table for the rebuttal by tomorrow. <private>Reviewer 2 is almost certainly Jonas's old group; they want the comparison against their model which we quietly beat by 2.1 mIoU on the hidden split.</private> generate the latex table from the wandb runs tagged ablation",
        N("private"),
        N("request"),
      );
      s.tools(
        bash(
          "python scripts/wandb_table.py --tag ablation --metric val/mIoU_ms --format latex",
          "\\begin{tabular}{lcc}\n\\toprule\nVariant & mIoU & $\\Delta$ \\\\\n\\midrule\nfull & 78.4 & -- \\\\\n- aux loss & 77.6 & -0.8 \\\\\n- MS train & 76.9 & -1.5 \\\\\n\\bottomrule\n\\end{tabular}",
        ),
      );
      s.say("Here is the table from the 3 runs tagged `ablation`.");
      s.user(
        "numbers in papers are always single-scale unless the caption says MS. use val/mIoU, and one decimal",
        D(
          "rule",
          "project",
          "Paper tables from seg-train report single-scale val/mIoU with one decimal unless the caption says multi-scale",
        ),
        N("request"),
      );
      s.tools(
        bash(
          "python scripts/wandb_table.py --tag ablation --metric val/mIoU --format latex --decimals 1",
          "full & 76.1 & -- \\\\\n- aux loss & 75.4 & -0.7 \\\\\n- MS train & 74.8 & -1.3 \\\\",
        ),
      );
      s.say("Regenerated with single-scale val/mIoU.");
      s.user("perfect thx", N("request"));
    },
  },
  {
    id: "h08-ml-wandb-aws-keys",
    cwd: P.ml,
    style:
      "a W&B key and AWS keys pasted; a durable fact about the checkpoint bucket carries a secret",
    start: "2025-11-14T10:00:00.000Z",
    version: "2.0.31",
    run: (s) => {
      const wb = s.secret("hex");
      s.userS(
        `wandb says 401 on the new cluster node. I exported WANDB_API_KEY=${wb} in my bashrc there, is that not picked up in sbatch?`,
        [wb],
        N("question"),
        N("secret"),
      );
      s.say(
        "sbatch doesn't source `~/.bashrc` for non-interactive jobs. Put `export WANDB_API_KEY` in the sbatch script from a file only you can read, or use `wandb login` once on the node. Since the key is now in this transcript, rotate it.",
      );
      s.user("ok did wandb login. works", N("request"));
      const id = s.secret("awsKeyId");
      const sec = s.secret("awsSecret");
      s.userS(
        `next: final checkpoints get copied to s3://acme-vision-ckpt/seg-train/<run>/ — that's where we keep them long term, scratch gets wiped after 30 days. creds for the sync user: ${id} / ${sec}. write a sync script`,
        [id, sec],
        D(
          "fact",
          "project",
          "Final seg-train checkpoints are kept in s3://acme-vision-ckpt/seg-train/<run>/; /scratch is wiped after 30 days",
          { secret: true },
        ),
        N("request"),
      );
      s.tools(
        write(
          `${P.ml}/scripts/sync_ckpt.sh`,
          '#!/bin/bash\nset -euo pipefail\nrun="$1"\naws s3 sync "ckpt/$run/" "s3://acme-vision-ckpt/seg-train/$run/" --exclude "*" --include "best.pt" --include "last*.pt"',
        ),
      );
      s.say(
        "`scripts/sync_ckpt.sh <run>` syncs best and last checkpoints. It uses the default AWS credential chain; I didn't write the keys anywhere. Please put them in `~/.aws/credentials` under a `ckpt-sync` profile and rotate them, as they're in this conversation now.",
      );
      s.user("use --profile ckpt-sync in the script then", N("request"));
      s.tools(
        edit(
          `${P.ml}/scripts/sync_ckpt.sh`,
          'aws s3 sync "ckpt/$run/"',
          'aws --profile ckpt-sync s3 sync "ckpt/$run/"',
        ),
      );
      s.say("Done.");
    },
  },
  {
    id: "h09-ml-confirmed-eval",
    cwd: P.ml,
    style: "agent states a convention and asks; user confirms one and rejects another",
    start: "2025-11-18T13:30:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user("write a config for evaluating on the val set at full res", N("request"));
      s.tools(
        grep("full_res|1024, 2048", ["configs/eval_val.yaml", "seg/eval_ms.py"]),
        read(
          `${P.ml}/configs/eval_val.yaml`,
          "data:\n  split: val\n  crop: null\n  size: [1024, 2048]\nsliding_window: {size: [1024, 1024], stride: [768, 768]}",
        ),
      );
      s.say(
        "There's already `configs/eval_val.yaml`: evaluation runs on the val split at the full 1024×2048 resolution with a 1024×1024 sliding window, never at the training crop. Is that the convention for every eval here?",
      );
      s.confirm(
        "yes that's the rule",
        "rule",
        "project",
        "seg-train evaluates on val at full 1024x2048 resolution with a 1024x1024 sliding window, never at the training crop size",
      );
      s.say(
        "Then no new config is needed. I also noticed test-time flips are on in the multi-scale eval; should single-scale eval always use flips too?",
      );
      s.user("no, single scale is without flip", N("request"));
      s.say("OK, leaving single-scale eval without flips.");
      s.user("so what's the command to eval a checkpoint then", N("question"));
      s.say("`sbatch --gres=gpu:1 scripts/eval.sbatch <ckpt> configs/eval_val.yaml`.");
    },
  },
  {
    id: "h10-ml-oneoff-always-quoted",
    cwd: P.ml,
    style:
      "'always' inside one task, a rule quoted from a README as a question, a preference stated in passing",
    start: "2025-11-20T09:10:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user(
        "set up a small sweep over lr {3e-5, 6e-5, 1e-4} for the tiny model. in this sweep always log the gradient norms, I want to see if the 1e-4 one blows up",
        N("request"),
        N("one-off"),
      );
      s.tools(
        write(
          `${P.ml}/sweeps/lr_tiny.yaml`,
          "program: seg/train.py\nmethod: grid\nparameters:\n  optim.lr: {values: [3.0e-5, 6.0e-5, 1.0e-4]}\n  trainer.log_grad_norm: {value: true}",
        ),
      );
      s.say("Sweep config written with grad-norm logging on.");
      s.user(
        "Jonas wrote in the README 'never use torch.compile, it breaks the sliding window'. is that still true with torch 2.5?",
        N("question"),
      );
      s.say(
        "I can't be sure without testing. The sliding-window code uses dynamic shapes at the borders; torch 2.5 handles dynamic shapes better, but recompilations could still make it slower. Worth a quick benchmark.",
        N("hypothesis"),
      );
      s.user(
        "skip it for now. and for now disable AMP in the sweep, bf16 is a variable I don't want in there",
        N("one-off"),
      );
      s.tools(
        edit(
          `${P.ml}/sweeps/lr_tiny.yaml`,
          "  trainer.log_grad_norm: {value: true}",
          "  trainer.log_grad_norm: {value: true}\n  trainer.precision: {value: 32}",
        ),
      );
      s.say("AMP off for the sweep.");
      s.user(
        "launch. oh and in general I like the sweep configs short, no comments restating the params",
        N("request"),
        D(
          "preference",
          "project",
          "Keep seg-train sweep configs short, without comments that restate the parameters",
        ),
      );
      s.tools(
        bash(
          "wandb sweep sweeps/lr_tiny.yaml",
          "wandb: Created sweep with ID: k3x9q2mz\nwandb: View sweep at: https://wandb.ai/acme-vision/seg-train/sweeps/k3x9q2mz",
        ),
      );
      s.say("Sweep k3x9q2mz created; start agents with `sbatch scripts/agent.sbatch k3x9q2mz`.");
    },
  },
];

const PYLIB: Script[] = [
  {
    id: "h11-pylib-chatty-conventions",
    cwd: P.pylib,
    style: "a long chatty request with conventions stated in passing, then review rounds",
    start: "2025-11-04T20:15:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "So I'd like to add a `KLL` sketch next to the t-digest and CKMS ones. Some things you should know since you haven't worked on pyquantiles before: we still support Python 3.9 (lots of our users are on old RHEL boxes), so no match statements and no `X | Y` unions at runtime. The build is hatch, not poetry, please don't add a poetry section to pyproject. Every public function and class gets a numpy-style docstring with an Examples section, the docs build pulls those. Start with the class skeleton and the update/quantile methods, we'll do merging later.",
        D(
          "fact",
          "project",
          "pyquantiles supports Python 3.9+: no match statements and no X | Y unions at runtime",
        ),
        D("rule", "project", "pyquantiles builds with hatch; don't add poetry configuration"),
        D(
          "rule",
          "project",
          "Every public function and class in pyquantiles has a numpy-style docstring with an Examples section",
        ),
        N("request"),
      );
      chores(s, "pylib", 1, 1);
      s.tools(
        write(
          `${P.pylib}/src/pyquantiles/kll.py`,
          'from __future__ import annotations\n\nfrom typing import List, Optional\n\n\nclass KLL:\n    """Streaming quantile sketch (Karnin, Lang, Liberty 2016).\n\n    Parameters\n    ----------\n    k : int\n        Size of the top compactor.\n\n    Examples\n    --------\n    >>> s = KLL(k=200)\n    >>> for x in range(1000):\n    ...     s.update(x)\n    >>> round(s.quantile(0.5))\n    500\n    """\n',
        ),
      );
      s.say(
        "Skeleton with the docstring is in `src/pyquantiles/kll.py`. Writing `update` and `quantile` now.",
      );
      s.user("why `from __future__ import annotations`?", N("question"));
      s.say("So annotations like `list[float]` aren't evaluated at runtime on 3.9.");
      s.user("ah right ok", N("request"));
      chores(s, "pylib", 1);
      s.say("`update` and `quantile` are in; 12 new tests pass, including a doctest run.");
      s.user(
        "cool. could you name the test file test_kll.py to match the others, and add a changelog fragment? we use towncrier, fragments go in changes/ named <PR number>.feature.md",
        N("request"),
        D(
          "fact",
          "project",
          "pyquantiles uses towncrier: changelog fragments go in changes/ named <PR number>.<type>.md",
        ),
      );
      s.say("What's the PR number?");
      s.user("212", N("request"));
      s.tools(
        bash("git mv tests/kll_test.py tests/test_kll.py", ""),
        write(`${P.pylib}/changes/212.feature.md`, "Add the `KLL` quantile sketch."),
      );
      s.say("Renamed and added `changes/212.feature.md`.");
    },
  },
  {
    id: "h12-pylib-no-runtime-deps",
    cwd: P.pylib,
    style:
      "correction after the agent adds a dependency; 'going forward' rule; decision with reason",
    start: "2025-11-07T15:45:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user("KLL.merge is slow for big sketches, make it faster", N("request"));
      s.tools(
        read(
          `${P.pylib}/src/pyquantiles/kll.py`,
          "    def merge(self, other: KLL) -> None:\n        for h, items in enumerate(other._compactors):\n            self._grow(h)\n            self._compactors[h].extend(items)\n        self._compress()",
        ),
        edit(
          `${P.pylib}/pyproject.toml`,
          "dependencies = []",
          'dependencies = ["numpy>=1.22"]',
        ),
      );
      s.say("I'll vectorize the compaction with numpy; I added `numpy>=1.22` to the dependencies.");
      s.user(
        "no no. pyquantiles has zero runtime dependencies, that's kind of the point of it. numpy is only ever an optional extra (`pyquantiles[numpy]`) and the pure python path has to stay the default",
        D(
          "rule",
          "project",
          "pyquantiles has no runtime dependencies: numpy only as the optional extra pyquantiles[numpy], with the pure-Python path as default",
        ),
      );
      s.tools(
        edit(`${P.pylib}/pyproject.toml`, 'dependencies = ["numpy>=1.22"]', "dependencies = []"),
        edit(
          `${P.pylib}/src/pyquantiles/kll.py`,
          "            self._compactors[h].extend(items)",
          "            mine = self._compactors[h]\n            mine.extend(items)\n            if len(mine) > self._capacity(h):\n                self._compact_level(h)",
        ),
      );
      s.say(
        "Reverted the dependency. Merge now compacts level by level as it goes instead of once at the end: 6× faster on 10⁶ items in pure Python.",
      );
      s.user("nice. how did you measure that", N("question"));
      s.say("A quick `timeit` loop merging two sketches of 10⁶ items each.");
      s.user(
        "going forward perf claims need an asv benchmark in benchmarks/, not a timeit one-liner. add one for merge",
        D(
          "rule",
          "project",
          "Performance claims in pyquantiles need an asv benchmark in benchmarks/",
        ),
        N("request"),
      );
      s.tools(
        write(
          `${P.pylib}/benchmarks/bench_kll.py`,
          "from pyquantiles import KLL\n\n\nclass MergeSuite:\n    def setup(self):\n        self.a, self.b = KLL(200), KLL(200)\n        for i in range(1_000_000):\n            self.a.update(i)\n            self.b.update(-i)\n\n    def time_merge(self):\n        self.a.merge(self.b)",
        ),
        bash(
          "asv run --quick --bench MergeSuite",
          "· Running 1 total benchmarks (1 commits * 1 environments * 1 benchmarks)\n[100.00%] ··· bench_kll.MergeSuite.time_merge                        41.2±0ms",
        ),
      );
      s.say("`benchmarks/bench_kll.py`: merge takes 41 ms (was 262 ms on main).");
      s.user(
        "ok. btw we decided against a C extension for KLL, maintaining wheels for 5 platforms for one sketch isn't worth it. so don't go there",
        D(
          "decision",
          "project",
          "No C extension for KLL in pyquantiles: maintaining wheels for 5 platforms isn't worth it",
        ),
      );
      s.say("Understood, staying in pure Python.");
    },
  },
  {
    id: "h13-pylib-release-token",
    cwd: P.pylib,
    style: "a GitHub token pasted in a request; release process facts around it",
    start: "2025-11-11T18:00:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user("can you cut 0.9.0?", N("request"));
      s.tools(
        read(
          `${P.pylib}/.github/workflows/release.yml`,
          "on:\n  push:\n    tags: ['v*']\njobs:\n  pypi:\n    permissions: { id-token: write }\n    steps:\n      - uses: actions/checkout@v4\n      - run: pipx run hatch build\n      - uses: pypa/gh-action-pypi-publish@release/v1",
        ),
      );
      s.say(
        "The release workflow publishes to PyPI on a `v*` tag via trusted publishing. I'll run towncrier to build the changelog, bump the version, tag v0.9.0 and push.",
      );
      s.user(
        "yes. that's the only way releases happen btw, tag → CI → PyPI with trusted publishing. nobody uploads with twine from their laptop",
        N("request"),
        D(
          "rule",
          "project",
          "pyquantiles releases only via a v* tag and the CI workflow (PyPI trusted publishing); never upload with twine by hand",
        ),
      );
      s.tools(
        bash(
          "hatch run towncrier build --yes --version 0.9.0",
          "Loading template...\nFinding news fragments...\nRendering news fragments...\nWriting to newsfile...\nStaging newsfile...\nRemoving the following files:\nchanges/212.feature.md\nchanges/215.bugfix.md",
        ),
        bash(
          "hatch version 0.9.0 && git commit -am 'release 0.9.0' && git tag v0.9.0",
          "Old: 0.8.3\nNew: 0.9.0\n[main 3e4f5a6] release 0.9.0",
        ),
        bashErr(
          "git push origin main v0.9.0",
          "remote: Permission to olaf-k/pyquantiles.git denied to ola-bot.\nfatal: unable to access 'https://github.com/olaf-k/pyquantiles.git/': The requested URL returned error: 403",
        ),
      );
      s.say(
        "The push was denied for `ola-bot`. The remote uses HTTPS with a stored credential for that account.",
      );
      const tok = s.secret("github");
      s.userS(
        `argh, the bot token expired. use this one for now: ${tok}`,
        [tok],
        N("request"),
        N("secret"),
      );
      s.say(
        "I'd rather not put the token into the remote URL or a config file. Run `gh auth login --with-token` with it yourself (or `git credential approve`), then I'll push. Since it's in this transcript now, consider revoking it after the release.",
      );
      s.user("done, push", N("request"));
      s.tools(
        bash(
          "git push origin main v0.9.0",
          "To https://github.com/olaf-k/pyquantiles.git\n   9d0e1f2..3e4f5a6  main -> main\n * [new tag]         v0.9.0 -> v0.9.0",
        ),
      );
      s.say("Pushed; the release workflow is running.");
    },
  },
  {
    id: "h14-pylib-terse-questions",
    cwd: P.pylib,
    style: "terse lowercase prompts with typos, questions and requests only",
    start: "2025-11-13T22:40:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user("whats the error bound of ckms again", N("question"));
      s.say("ε·n in rank for the targeted quantiles; the default ε is 0.001.");
      s.user("and tdigest", N("question"));
      s.say(
        "No hard bound; the error is relative to q(1−q), so it's tight at the tails and loosest at the median.",
      );
      s.user("ok add that to teh docs page for tdigest", N("request"));
      s.tools(
        edit(
          `${P.pylib}/docs/tdigest.md`,
          "## Accuracy\n",
          "## Accuracy\n\nThere is no hard bound. The error is proportional to q(1−q): small at the tails, largest around the median.\n",
        ),
      );
      s.say("Added under Accuracy.");
      s.user("does the docs build still pass", N("question"));
      s.tools(
        bash(
          "hatch run docs:build",
          "INFO    -  Building documentation...\nINFO    -  Documentation built in 2.41 seconds",
        ),
      );
      s.say("Yes.");
      s.user("push it to a branch docs/tdigest-accuracy, not main", N("one-off"));
      s.tools(
        bash(
          "git switch -c docs/tdigest-accuracy && git commit -am 'docs: tdigest accuracy' && git push -u origin docs/tdigest-accuracy",
          "branch 'docs/tdigest-accuracy' set up to track 'origin/docs/tdigest-accuracy'.",
        ),
      );
      s.say("Pushed to `docs/tdigest-accuracy`.");
      s.user("thx", N("request"));
    },
  },
  {
    id: "h15-pylib-blocks-fallback",
    cwd: P.pylib,
    style: "content-block prompts; 'keep in mind' rule; 'make sure you always' inside one change",
    start: "2025-11-19T12:00:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.userBlocks(
        [
          "add a numpy fast path for CKMS.update_many when the extra is installed",
          "keep in mind the numpy path is optional: the pure python fallback must pass exactly the same test suite, we run the tests twice in CI (with and without the extra)",
        ],
        N("request"),
        D(
          "rule",
          "project",
          "pyquantiles' numpy fast paths are optional: the pure-Python fallback must pass the same tests (CI runs them with and without the numpy extra)",
        ),
      );
      s.tools(
        read(
          `${P.pylib}/src/pyquantiles/_compat.py`,
          "try:\n    import numpy as np\n    HAVE_NUMPY = True\nexcept ImportError:  # pragma: no cover\n    np = None\n    HAVE_NUMPY = False",
        ),
        edit(
          `${P.pylib}/src/pyquantiles/ckms.py`,
          "    def update_many(self, xs):\n        for x in xs:\n            self.update(x)",
          "    def update_many(self, xs):\n        if HAVE_NUMPY and isinstance(xs, np.ndarray):\n            self._update_sorted(np.sort(xs).tolist())\n            return\n        for x in xs:\n            self.update(x)",
        ),
        bash("hatch run test && hatch run +numpy test", "142 passed in 3.91s\n148 passed in 4.20s"),
      );
      s.say("Fast path added; both runs pass (142 without numpy, 148 with).");
      s.userBlocks(
        ["for this change make sure you always sort with kind='stable', the tie order matters for the golden files"],
        N("one-off"),
      );
      s.tools(
        edit(
          `${P.pylib}/src/pyquantiles/ckms.py`,
          "np.sort(xs)",
          'np.sort(xs, kind="stable")',
        ),
      );
      s.say("Using a stable sort.");
      s.userBlocks(["why are there 6 more tests with numpy?"], N("question"));
      s.say(
        "`tests/test_numpy.py` is skipped without the extra; it has 6 tests comparing both paths.",
      );
    },
  },
];

const TFMOD: Script[] = [
  {
    id: "h16-tfmod-the-way-we-do-it",
    cwd: P.tfmod,
    style: "'the way we do it here' conventions, a provider pin, requests around them",
    start: "2025-11-05T10:20:00.000Z",
    version: "2.0.30",
    model: "claude-opus-4-1-20250805",
    run: (s) => {
      s.user(
        "add a variable to turn on Performance Insights, off by default",
        N("request"),
      );
      s.tools(
        edit(
          `${P.tfmod}/variables.tf`,
          'variable "instance_class" {',
          'variable "performance_insights" {\n  default = false\n}\n\nvariable "instance_class" {',
        ),
      );
      s.say(
        "Added `performance_insights` (default false) and wired it to `aws_rds_cluster_instance`.",
      );
      s.user(
        "the way we do it here: every variable has a description and an explicit type, and we never use `any`. also booleans are named enable_*, so enable_performance_insights",
        D(
          "rule",
          "project",
          "Every variable in terraform-aws-rds-cluster has a description and an explicit type, never `any`",
        ),
        D("rule", "project", "Boolean variables in terraform-aws-rds-cluster are named enable_*"),
      );
      s.tools(
        edit(
          `${P.tfmod}/variables.tf`,
          'variable "performance_insights" {\n  default = false\n}',
          'variable "enable_performance_insights" {\n  description = "Turn on Performance Insights for every instance."\n  type        = bool\n  default     = false\n}',
        ),
      );
      chores(s, "tfmod", 2);
      s.say("Renamed, with description and type. fmt, validate and tflint are clean.");
      s.user("does the complete example need it too?", N("question"));
      s.say(
        "Only if you want it exercised by the tests; `examples/complete` sets every optional variable today.",
      );
      s.user(
        "yes add it there. examples/ must always apply cleanly, terratest in test/ plans all of them on every PR",
        N("request"),
        D(
          "fact",
          "project",
          "terratest in test/ plans every example of terraform-aws-rds-cluster on each PR; examples must apply cleanly",
        ),
      );
      s.tools(
        edit(
          `${P.tfmod}/examples/complete/main.tf`,
          '  instance_class     = "db.r6g.large"',
          '  instance_class     = "db.r6g.large"\n  enable_performance_insights = true',
        ),
      );
      chores(s, "tfmod", 1, 3);
      s.say("Example updated; the terratest plan passes.");
      s.user(
        "last thing, versions.tf — we pin the aws provider to >= 5.40, < 6.0 and that's deliberate, don't widen it when you see newer versions",
        D(
          "rule",
          "project",
          "terraform-aws-rds-cluster pins the AWS provider to >= 5.40, < 6.0; don't widen the range",
        ),
      );
      s.say("Understood; `versions.tf` already has that range and I left it.");
    },
  },
  {
    id: "h17-tfmod-password-example",
    cwd: P.tfmod,
    style: "a DB password pasted inside a rule about examples (contains_secret); a one-off",
    start: "2025-11-08T09:00:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user("the basic example fails plan with 'master_password must be set'", N("request"));
      s.tools(
        read(
          `${P.tfmod}/examples/basic/main.tf`,
          'module "db" {\n  source             = "../../"\n  cluster_identifier = "example-basic"\n  master_username    = "app"\n}',
        ),
      );
      s.say("The example sets no password and `manage_master_user_password` defaults to false.");
      const pw = s.secret("password");
      s.userS(
        `someone had master_password = "${pw}" in there before, I removed it. never put passwords in examples, set manage_master_user_password = true so RDS keeps it in secrets manager`,
        [pw],
        D(
          "rule",
          "project",
          "Never put passwords in terraform-aws-rds-cluster examples; set manage_master_user_password = true (Secrets Manager)",
          { secret: true },
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.tfmod}/examples/basic/main.tf`,
          '  master_username    = "app"',
          '  master_username    = "app"\n  manage_master_user_password = true',
        ),
      );
      chores(s, "tfmod", 1, 3);
      s.say(
        "Fixed; the plan passes. The old password is in the git history of `examples/basic/main.tf`; if it was ever used anywhere, rotate it.",
      );
      s.user(
        "it was only the sandbox, but I'll rotate. squash this into one commit with the removal",
        N("one-off"),
      );
      s.tools(
        bash(
          "git reset --soft HEAD~1 && git commit -m 'examples: no passwords, use managed master password'",
          "[fix/basic-example 1a2b3c4] examples: no passwords, use managed master password\n 1 file changed, 1 insertion(+), 1 deletion(-)",
        ),
      );
      s.say("Squashed.");
    },
  },
  {
    id: "h18-tfmod-hypotheses-release",
    cwd: P.tfmod,
    style: "user and agent hypotheses about a failing upgrade; release process fact",
    start: "2025-11-12T14:10:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "upgrading engine_version from 15.4 to 16.2 in the example errors out. maybe it's the parameter group family?",
        N("request"),
        N("hypothesis"),
      );
      s.tools(
        bashErr(
          "cd test && go test -run TestExamplesPlan/complete -count=1 ./...",
          "Error: updating RDS Cluster (example-complete): InvalidParameterCombination: The current DB cluster parameter group family aurora-postgresql15 is not compatible with engine version 16.2",
        ),
      );
      s.say(
        "Yes, the family is hardcoded to `aurora-postgresql15`. It should derive from the major version. I suspect `allow_major_version_upgrade` is also needed, though the error doesn't say so yet.",
        N("hypothesis"),
      );
      s.user("derive it then", N("request"));
      s.tools(
        edit(
          `${P.tfmod}/main.tf`,
          'family = "aurora-postgresql15"',
          'family = "aurora-postgresql${split(".", var.engine_version)[0]}"',
        ),
      );
      chores(s, "tfmod", 1, 3);
      s.say("The family now follows the major version; the plan for 16.2 succeeds.");
      s.user("should I tag 3.1.0?", N("question"));
      s.say("I can create the tag if you want.");
      s.user(
        "no actually, we don't tag by hand here — semantic-release tags and writes the changelog when a PR with a feat:/fix: title merges to main",
        D(
          "fact",
          "project",
          "terraform-aws-rds-cluster releases are tagged by semantic-release when a feat:/fix: PR merges to main; don't tag by hand",
        ),
      );
      s.say(
        "Then the PR title should be `fix: derive parameter group family from engine_version`.",
      );
      s.user("yep open it with that title", N("request"));
      s.tools(
        bash(
          "gh pr create --title 'fix: derive parameter group family from engine_version' --fill",
          "https://github.com/acme/terraform-aws-rds-cluster/pull/88",
        ),
      );
      s.say("https://github.com/acme/terraform-aws-rds-cluster/pull/88");
    },
  },
  {
    id: "h19-tfmod-rejected-apply",
    cwd: P.tfmod,
    style: "rejected tool call (terraform apply), an interrupt, and the rule that follows",
    start: "2025-11-21T16:30:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user("check that the serverless v2 example actually works", N("request"));
      chores(s, "tfmod", 1, 0);
      s.say(
        "Validation passes. To check it really works I'll apply it in the sandbox account and destroy it afterwards.",
      );
      s.rejectedTool("Bash", {
        command: "cd examples/serverless-v2 && terraform apply -auto-approve",
        description: "Apply the serverless v2 example",
      });
      s.user(
        "don't ever run apply against the shared sandbox account, only plan. applies happen in the nightly CI job which cleans up after itself",
        D(
          "rule",
          "project",
          "Never run terraform apply against the shared sandbox account from terraform-aws-rds-cluster; only plan (the nightly CI job applies and cleans up)",
        ),
      );
      s.tools(
        bash(
          "cd examples/serverless-v2 && terraform plan -no-color | tail -1",
          "Plan: 6 to add, 0 to change, 0 to destroy.",
        ),
      );
      s.say(
        "The plan has 6 resources to add. I'll look at last night's CI run for the apply result",
      );
      s.interrupt();
      s.user("nah don't bother, it was green. thanks", N("request"));
    },
  },
];

const MONO: Script[] = [
  {
    id: "h20-mono-onboarding-owners",
    cwd: P.mono,
    style: "onboarding prompt: layout, an import rule, an owner; one request",
    start: "2025-11-03T13:00:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "context for this monorepo: turborepo + pnpm workspaces. apps/web is the Next 14 storefront (app router), apps/admin is the back office, packages/ui is the shared component library. packages must never import from apps/*, dependencies only go apps → packages. Kim owns packages/ui, so any change to the design tokens needs her ok first.\n\ntask: the cart page shows the total without currency, fix it",
        D(
          "fact",
          "project",
          "storefront is a turborepo + pnpm workspaces monorepo: apps/web (Next 14 app router), apps/admin (back office), packages/ui (shared components)",
        ),
        D(
          "rule",
          "project",
          "In storefront, packages never import from apps/*; dependencies go apps → packages only",
        ),
        D("rule", "project", "Kim owns packages/ui; design token changes need her approval first"),
        N("request"),
      );
      chores(s, "mono", 1, 1);
      s.tools(
        read(
          `${P.mono}/packages/ui/src/CartSummary/CartSummary.tsx`,
          'export function CartSummary({ items, total }: Props) {\n  return (\n    <section>\n      {items.map((i) => <CartLine key={i.id} item={i} />)}\n      <p className="total">{total.toFixed(2)}</p>\n    </section>\n  );\n}',
        ),
        edit(
          `${P.mono}/packages/ui/src/CartSummary/CartSummary.tsx`,
          '<p className="total">{total.toFixed(2)}</p>',
          '<p className="total">{formatMoney(total, currency)}</p>',
        ),
      );
      chores(s, "mono", 1, 2);
      s.say(
        "`CartSummary` now formats the total with `formatMoney(total, currency)`; `currency` is a new required prop passed by the cart page. Tests pass.",
      );
      s.user("ok 👍", N("request"));
    },
  },
  {
    id: "h21-mono-long-checkout",
    cwd: P.mono,
    style:
      "long (30+ user turns) feature session: rules stated mid-stream, corrections, questions, one-offs, a manual compaction and a slash command",
    start: "2025-11-10T08:05:00.000Z",
    version: "2.0.31",
    branch: "feat/express-checkout",
    run: (s) => {
      s.summaryLine("Express checkout button on product pages");
      s.user(
        "we're adding an express checkout button to product pages. look around first, don't write code yet",
        N("request"),
      );
      s.tools(
        glob("apps/web/app/products/**/*.tsx", [
          "apps/web/app/products/[slug]/page.tsx",
          "apps/web/app/products/[slug]/AddToCart.tsx",
        ]),
        read(
          `${P.mono}/apps/web/app/products/[slug]/page.tsx`,
          "export default async function ProductPage({ params }) {\n  const product = await getProduct(params.slug);\n  return (\n    <>\n      <ProductGallery images={product.images} />\n      <AddToCart productId={product.id} />\n    </>\n  );\n}",
        ),
      );
      chores(s, "mono", 2);
      s.say(
        "The product page is a server component; `AddToCart` is the only client component. Checkout lives in `apps/web/app/checkout` and calls `/api/checkout/session`.",
      );
      s.user("where does the payment sheet come from?", N("question"));
      s.say(
        "`apps/web/lib/payments.ts` wraps the processor's JS SDK; it's loaded lazily in the checkout route.",
      );
      s.user("ok. plan?", N("request"));
      s.tools(
        todo([
          "ExpressCheckoutButton in packages/ui",
          "Wire into product page",
          "API: create session from a single item",
          "Tests",
          "Feature flag",
        ]),
      );
      s.say(
        "Plan: a presentational `ExpressCheckoutButton` in packages/ui, the wiring in apps/web, a single-item session endpoint, tests, and a flag.",
      );
      s.user(
        "flags go through our flags package (packages/flags, backed by growthbook), don't read env vars for feature toggles",
        D(
          "rule",
          "project",
          "Feature flags in storefront go through packages/flags (GrowthBook); never env vars for feature toggles",
        ),
      );
      s.say("Will do.");
      s.user("start with the button", N("request"));
      s.tools(
        write(
          `${P.mono}/packages/ui/src/ExpressCheckoutButton/ExpressCheckoutButton.tsx`,
          'import { Button } from "../Button";\n\nexport function ExpressCheckoutButton({ onClick, disabled }: Props) {\n  return (\n    <Button variant="primary" onClick={onClick} disabled={disabled} style={{ background: "#0a7cff" }}>\n      Buy now\n    </Button>\n  );\n}',
        ),
      );
      s.say("Button added in packages/ui.");
      s.user(
        "no inline colors. use the tokens, `variant=\"express\"` probably needs a new token but that's Kim's call, ask don't add",
        N("request"),
        D("rule", "project", "No inline colors in storefront components; use the design tokens"),
        D(
          "rule",
          "project",
          "New design tokens in storefront are Kim's call: ask her, don't add them",
        ),
      );
      s.say(
        "Removed the inline color. I'll leave a TODO and ask Kim about an `express` token rather than adding it.",
      );
      s.user("actually just use primary for now", N("one-off"));
      s.say('Using `variant="primary"`.');
      s.user("stories?", N("question"));
      s.say(
        "packages/ui has Storybook stories next to each component (`*.stories.tsx`). I'll add one.",
      );
      s.tools(
        write(
          `${P.mono}/packages/ui/src/ExpressCheckoutButton/ExpressCheckoutButton.stories.tsx`,
          "export default { component: ExpressCheckoutButton };\nexport const Default = {};\nexport const Disabled = { args: { disabled: true } };",
        ),
      );
      s.say("Story added with Default and Disabled.");
      s.user("good. now the wiring", N("request"));
      s.tools(
        write(
          `${P.mono}/apps/web/app/products/[slug]/ExpressCheckout.tsx`,
          '"use client";\nimport { ExpressCheckoutButton } from "@storefront/ui";\nimport { useFlag } from "@storefront/flags";\n\nexport function ExpressCheckout({ productId }: { productId: string }) {\n  const on = useFlag("express-checkout");\n  if (!on) return null;\n  return <ExpressCheckoutButton onClick={() => startExpress(productId)} />;\n}',
        ),
      );
      chores(s, "mono", 1, 4);
      s.say("Wired behind the `express-checkout` flag.");
      s.user("does useFlag work in server components", N("question"));
      s.say("No, it's a hook; server components use `getFlag()` from the same package.");
      s.user("ok fine as client then", N("request"));
      s.say("Leaving it as a client component.");
      s.user("the api part. single item, quantity 1", N("request"));
      s.tools(
        write(
          `${P.mono}/apps/web/app/api/checkout/express/route.ts`,
          "export async function POST(req: Request) {\n  const { productId } = await req.json();\n  const session = await createCheckoutSession([{ productId, quantity: 1 }]);\n  return Response.json({ url: session.url });\n}",
        ),
      );
      s.say("`POST /api/checkout/express` creates a one-item session.");
      s.user(
        "validate the body with zod. every route handler in apps/web parses its input with zod, it's in the contributing guide but nobody reads that",
        N("request"),
        D(
          "rule",
          "project",
          "Every route handler in storefront's apps/web validates its input with zod",
        ),
      );
      s.tools(
        edit(
          `${P.mono}/apps/web/app/api/checkout/express/route.ts`,
          "  const { productId } = await req.json();",
          "  const { productId } = Body.parse(await req.json());",
        ),
      );
      s.say("Added a zod schema for the body.");
      s.user("what happens if the product is out of stock", N("question"));
      s.say(
        "Right now the processor session is created anyway and checkout fails later. I'll check stock first and answer 409.",
      );
      s.user("yes", N("request"));
      chores(s, "mono", 2, 2);
      s.command(
        "compact",
        "keep the checklist and the rules",
        "Compacted. ctrl+o to see full summary",
      );
      s.compact(
        "Task: express checkout on product pages (branch feat/express-checkout).\nRules from the user: flags through packages/flags, no env vars; no inline colors, tokens only (ask Kim before new tokens); zod on every route handler.\nDone: ExpressCheckoutButton + story in packages/ui (variant primary), ExpressCheckout client component behind flag express-checkout, POST /api/checkout/express with zod and a stock check (409).\nNext: tests.",
        "manual",
      );
      s.user("tests now. e2e too", N("request"));
      s.tools(
        write(
          `${P.mono}/apps/web/e2e/express-checkout.spec.ts`,
          'test("buy now redirects to checkout", async ({ page }) => {\n  await page.goto("/products/trail-runner-2");\n  await page.getByRole("button", { name: "Buy now" }).click();\n  await expect(page).toHaveURL(/checkout/);\n});',
        ),
        bashErr(
          "pnpm --filter web exec playwright test express-checkout",
          "  1) express-checkout.spec.ts:1:1 › buy now redirects to checkout\n    Error: locator.click: Timeout 5000ms exceeded.\n    waiting for getByRole('button', { name: 'Buy now' })",
        ),
      );
      s.say("The button isn't rendered in e2e: the flag is off in the test environment.");
      s.user(
        "e2e runs against the growthbook 'e2e' environment, flags are turned on there in the growthbook UI, not in code. I'll flip it",
        D(
          "fact",
          "project",
          "storefront e2e tests run against the GrowthBook 'e2e' environment; flags are turned on there in the GrowthBook UI, not in code",
        ),
      );
      s.say("Thanks, I'll rerun once you say it's on.");
      s.user("on", N("request"));
      s.tools(bash("pnpm --filter web exec playwright test express-checkout", "  1 passed (6.2s)"));
      s.say("E2E passes.");
      s.user("unit tests for the route?", N("question"));
      s.say("Not yet. I'll add vitest tests for 200, 400 (bad body) and 409 (out of stock).");
      s.user("go", N("request"));
      s.tools(
        bash(
          "pnpm --filter web vitest run app/api/checkout/express",
          " ✓ app/api/checkout/express/route.test.ts (3 tests) 58ms\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)",
        ),
      );
      s.say("3 route tests pass.");
      s.user("I think the 409 should probably be a 422 actually? not sure", N("hypothesis"));
      s.say(
        "409 fits a state conflict (stock changed); 422 is for a well-formed but invalid request. Either is defensible; the cart endpoint uses 409 for the same case.",
      );
      s.user("keep 409 then, consistent with cart", N("one-off"));
      s.say("Keeping 409.");
      s.user("lint + typecheck everything before I push", N("request"));
      chores(s, "mono", 1, 0);
      chores(s, "mono", 1, 4);
      s.say("Lint and typecheck pass across the workspace.");
      s.user(
        "commit. commit messages in this repo are `<package>: <what>` like `web: express checkout route`, one commit per package",
        N("request"),
        D(
          "rule",
          "project",
          "storefront commit messages are '<package>: <what>' (e.g. 'web: express checkout route'), one commit per package",
        ),
      );
      s.tools(
        bash(
          "git add packages/ui && git commit -m 'ui: ExpressCheckoutButton'",
          "[feat/express-checkout 2b3c4d5] ui: ExpressCheckoutButton\n 3 files changed, 41 insertions(+)",
        ),
        bash(
          "git add apps/web && git commit -m 'web: express checkout behind flag'",
          "[feat/express-checkout 6e7f8a9] web: express checkout behind flag\n 5 files changed, 132 insertions(+)",
        ),
      );
      s.say("Two commits: `ui: ExpressCheckoutButton`, `web: express checkout behind flag`.");
      s.user("push + PR, draft", N("request"));
      s.tools(
        bash(
          "git push -u origin feat/express-checkout && gh pr create --draft --fill",
          "https://github.com/acme/storefront/pull/1304",
        ),
      );
      s.say("Draft PR: https://github.com/acme/storefront/pull/1304");
      s.user("who should review the ui part", N("question"));
      s.say("Kim, since it touches packages/ui.");
      s.user("yeah add her", N("request"));
      s.tools(
        bash(
          "gh pr edit 1304 --add-reviewer kimlee",
          "https://github.com/acme/storefront/pull/1304",
        ),
      );
      s.say("Kim added as reviewer.");
      s.user("does apps/admin read the same flags?", N("question"));
      s.say(
        "Same GrowthBook project via packages/flags; the admin app uses the `admin` environment.",
      );
      s.user(
        "right. heads up for later: apps/admin deploys as its own vercel project, storefront-admin, it doesn't ship with web",
        D(
          "fact",
          "project",
          "storefront's apps/admin deploys as its own Vercel project (storefront-admin), separately from apps/web",
        ),
      );
      s.say("Noted.");
      s.user("delete the branch after it's merged pls", N("one-off"));
      s.say("I'll delete `feat/express-checkout` once the PR is merged.");
      s.user("great session, thanks!", N("request"));
    },
  },
  {
    id: "h22-mono-stored-vitest",
    cwd: P.mono,
    style: "stored memories: a repeated rule and a contradicted fact (test runner)",
    start: "2025-11-14T11:30:00.000Z",
    version: "2.0.31",
    stored: [
      "storefront unit tests use Jest",
      "In storefront, packages never import from apps/*; dependencies go apps → packages only",
    ],
    run: (s) => {
      s.user("write a unit test for formatMoney in packages/ui", N("request"));
      s.tools(
        write(
          `${P.mono}/packages/ui/src/money/formatMoney.test.ts`,
          'import { describe, expect, it } from "@jest/globals";\nimport { formatMoney } from "./formatMoney";\n\ndescribe("formatMoney", () => {\n  it("formats EUR", () => expect(formatMoney(1234.5, "EUR")).toBe("€1,234.50"));\n});',
        ),
      );
      s.say("Added a Jest test for `formatMoney`.");
      s.user(
        "we're not on jest anymore, everything moved to vitest last sprint (jest + ESM was a nightmare). import from vitest",
        D(
          "decision",
          "project",
          "storefront unit tests use Vitest (moved from Jest because of ESM problems)",
          { contra: "storefront unit tests use Jest" },
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.mono}/packages/ui/src/money/formatMoney.test.ts`,
          'import { describe, expect, it } from "@jest/globals";',
          'import { describe, expect, it } from "vitest";',
        ),
      );
      chores(s, "mono", 1, 2);
      s.say("Switched to vitest; the ui package's tests pass.");
      s.user(
        "also the money helpers are used by apps/admin too, so keep them in packages/ui — again, packages don't import from apps, never the other way round",
        D(
          "rule",
          "project",
          "In storefront, packages don't import from apps",
          {
            dup:
              "In storefront, packages never import from apps/*; dependencies go apps → packages only",
          },
        ),
      );
      s.say("They stay in packages/ui; nothing there imports from apps.");
    },
  },
  {
    id: "h23-mono-npm-token",
    cwd: P.mono,
    style: "an npm token in .npmrc pasted; a registry fact carrying it; a question",
    start: "2025-11-19T09:45:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user("pnpm install fails on CI with 401 for @storefront/icons", N("request"));
      s.tools(
        read(
          `${P.mono}/.npmrc`,
          "@storefront:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=${NPM_TOKEN}",
        ),
      );
      s.say("CI needs `NPM_TOKEN` with `read:packages` for npm.pkg.github.com.");
      const tok = s.secret("npm");
      s.userS(
        `CI has NPM_TOKEN=${tok} set. fyi all our private packages are under the @storefront scope on GitHub Packages (npm.pkg.github.com), public ones come from npmjs`,
        [tok],
        D(
          "fact",
          "project",
          "storefront's private packages are under the @storefront scope on GitHub Packages (npm.pkg.github.com); public ones come from npmjs",
          { secret: true },
        ),
        N("secret"),
      );
      s.say(
        "That's an npmjs.com token (`npm_…`), which GitHub Packages doesn't accept: it needs a GitHub token. The value is in this transcript now, so please revoke it.",
      );
      s.user("ugh. is there a way to use the GITHUB_TOKEN of the workflow instead?", N("question"));
      s.say(
        "Yes, with `permissions: packages: read` in the workflow and `NODE_AUTH_TOKEN: ${{ secrets.GITHUB_TOKEN }}`, if the package grants the repo access.",
      );
      s.user("do that", N("request"));
      s.tools(
        edit(
          `${P.mono}/.github/workflows/ci.yml`,
          "permissions:\n  contents: read",
          "permissions:\n  contents: read\n  packages: read",
        ),
      );
      s.say("Workflow updated.");
    },
  },
  {
    id: "h24-mono-quoted-advice",
    cwd: P.mono,
    style:
      "quoted advice from a blog as a question, a lint rule request quoting a rule text, a hypothesis; nothing durable",
    start: "2025-11-24T15:00:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user(
        "I read a post saying 'always memoize context values or every consumer re-renders'. does that apply to our CartContext?",
        N("question"),
      );
      s.tools(
        read(
          `${P.mono}/apps/web/lib/cart-context.tsx`,
          "export function CartProvider({ children }) {\n  const [cart, setCart] = useState(empty);\n  return <CartContext.Provider value={{ cart, setCart }}>{children}</CartContext.Provider>;\n}",
        ),
      );
      s.say(
        "It does: the provider creates a new `{ cart, setCart }` object each render, so every consumer re-renders when `CartProvider` re-renders. `useMemo` on the value fixes it.",
      );
      s.user("do it", N("request"));
      s.tools(
        edit(
          `${P.mono}/apps/web/lib/cart-context.tsx`,
          "value={{ cart, setCart }}",
          "value={value}",
        ),
      );
      s.say("Memoized.");
      s.user(
        "also copy the eslint rule from apps/admin that says \"Never import from 'lodash', import from 'lodash-es'\" into the web app. trial only, we decide after the perf review whether it stays",
        N("request"),
      );
      s.tools(
        edit(
          `${P.mono}/apps/web/.eslintrc.cjs`,
          "rules: {",
          "rules: {\n    'no-restricted-imports': ['error', { paths: [{ name: 'lodash', message: \"Never import from 'lodash', import from 'lodash-es'\" }] }],",
        ),
      );
      s.say("Added the `no-restricted-imports` rule.");
      s.user("the bundle got bigger last week, probably the date-fns locales?", N("hypothesis"));
      s.say("Could be. `pnpm build` with the analyzer would show it; want me to run it?");
      s.user("later", N("request"));
    },
  },
];

const RAILS: Script[] = [
  {
    id: "h25-rails-onboarding-from-now-on",
    cwd: P.rails,
    style: "versions and tools as facts, a 'from now on' rule, a queue fact, a plain request",
    start: "2025-11-04T08:30:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "Hi! Quick orientation: clinic-booking is Rails 7.1 on Ruby 3.2.2, Postgres 15, Sidekiq for jobs. Tests are RSpec, we don't use minitest at all, so don't generate test/ files. Today I need a `Reminder` job that texts patients 24h before their appointment.",
        D(
          "fact",
          "project",
          "clinic-booking runs Rails 7.1 on Ruby 3.2.2 with Postgres 15 and Sidekiq",
        ),
        D(
          "rule",
          "project",
          "clinic-booking tests are RSpec only; never generate minitest files in test/",
        ),
        N("request"),
      );
      chores(s, "rails", 1, 1);
      s.tools(
        write(
          `${P.rails}/app/jobs/appointment_reminder_job.rb`,
          'class AppointmentReminderJob\n  include Sidekiq::Job\n\n  def perform(appointment_id)\n    appointment = Appointment.find(appointment_id)\n    SmsGateway.deliver(appointment.patient.phone, I18n.t("reminders.sms", time: appointment.starts_at))\n  end\nend',
        ),
      );
      s.say("Added `AppointmentReminderJob`. Which Sidekiq queue should it use?");
      s.user(
        "the queues are critical, default and low. patient-facing notifications are always `critical`",
        D("fact", "project", "clinic-booking's Sidekiq queues are critical, default and low"),
        D(
          "rule",
          "project",
          "Patient-facing notifications in clinic-booking go on the critical Sidekiq queue",
        ),
      );
      s.tools(
        edit(
          `${P.rails}/app/jobs/appointment_reminder_job.rb`,
          "  include Sidekiq::Job\n",
          "  include Sidekiq::Job\n  sidekiq_options queue: :critical\n",
        ),
      );
      s.say(
        "On `critical` now. I also need a `reminder_sent_at` column so we don't text twice; I'll generate a migration with `change`.",
      );
      s.user(
        "sure. from now on every migration has to be reversible, if `change` can't figure it out write up/down yourself",
        D(
          "rule",
          "project",
          "Every clinic-booking migration must be reversible (write up/down when change can't reverse it)",
        ),
      );
      s.tools(
        write(
          `${P.rails}/db/migrate/20251104090000_add_reminder_sent_at_to_appointments.rb`,
          "class AddReminderSentAtToAppointments < ActiveRecord::Migration[7.1]\n  def change\n    add_column :appointments, :reminder_sent_at, :datetime\n  end\nend",
        ),
        bash(
          "bin/rails db:migrate && bin/rails db:rollback && bin/rails db:migrate",
          "== 20251104090000 AddReminderSentAtToAppointments: migrated (0.0041s)\n== 20251104090000 AddReminderSentAtToAppointments: reverted (0.0032s)\n== 20251104090000 AddReminderSentAtToAppointments: migrated (0.0039s)",
        ),
      );
      chores(s, "rails", 1);
      s.say("Migration added and checked both ways; specs pass.");
      s.user("great, ship it to a branch", N("request"));
      s.tools(
        bash(
          "git switch -c feat/sms-reminders && git add -A && git commit -m 'SMS reminders 24h before appointments'",
          "[feat/sms-reminders 0f1e2d3] SMS reminders 24h before appointments",
        ),
      );
      s.say("Committed on `feat/sms-reminders`.");
    },
  },
  {
    id: "h26-rails-update-all-correction",
    cwd: P.rails,
    style: "correction (update_all skips callbacks); a heroku fact; a secret in a tool result only",
    start: "2025-11-07T13:20:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "cancel all appointments of practitioners who left, there's a `left_at` on practitioners",
        N("request"),
      );
      s.tools(
        write(
          `${P.rails}/lib/tasks/cancel_departed.rake`,
          'task cancel_departed: :environment do\n  Appointment.joins(:practitioner).where.not(practitioners: { left_at: nil }).where("starts_at > now()").update_all(cancelled_at: Time.current)\nend',
        ),
      );
      s.say("Rake task `cancel_departed` sets `cancelled_at` with one `update_all`.");
      s.user(
        "no, never update_all on appointments. the audit trail is written in callbacks and update_all skips them, legal needs every change audited. use find_each + update!",
        D(
          "rule",
          "project",
          "Never use update_all on appointments in clinic-booking: callbacks write the audit trail; use find_each + update!",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${P.rails}/lib/tasks/cancel_departed.rake`,
          ".update_all(cancelled_at: Time.current)",
          ".find_each { |a| a.update!(cancelled_at: Time.current) }",
        ),
      );
      s.say("Rewritten with `find_each` and `update!`, so each change gets an audit event.");
      s.user("run it on staging", N("request"));
      const pw = s.secret("password");
      const dbUrl =
        `postgres://u8k2clinic:${pw}@ec2-52-48-11-203.eu-west-1.compute.amazonaws.com:5432/d4f1a9c0b7e2`;
      s.tools(
        bash(
          "heroku config -a clinic-booking-staging | head -3",
          `=== clinic-booking-staging Config Vars\nDATABASE_URL: ${dbUrl}\nRAILS_ENV:    staging`,
        ),
      );
      s.say("Found the staging app. Running the task with `heroku run`.");
      s.tools(
        bash(
          "heroku run -a clinic-booking-staging bin/rails cancel_departed",
          "Running bin/rails cancel_departed on ⬢ clinic-booking-staging... up, run.4821\ncancelled 37 appointments",
        ),
      );
      s.say("37 appointments cancelled on staging.");
      s.user(
        "good. for future reference staging is the heroku app clinic-booking-staging and prod is clinic-booking-prod, prod tasks only via the release pipeline though",
        D(
          "fact",
          "project",
          "clinic-booking runs on Heroku: staging app clinic-booking-staging, prod app clinic-booking-prod",
        ),
        D("rule", "project", "clinic-booking prod tasks run only through the release pipeline"),
      );
      s.say("Noted.");
      const l = s.labels;
      l.secrets.push(pw);
      const ev = s.lines.find((o) => JSON.stringify(o).includes(pw)) as { uuid: string };
      l.secret_locations.push({ secret: pw, uuid: ev.uuid });
    },
  },
  {
    id: "h27-rails-private-patient",
    cwd: P.rails,
    style: "private patient details; the rule about fixtures outside the private block",
    start: "2025-11-11T10:10:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "booking fails for one patient with a validation error. <private>It's Mrs. Ingrid Halvorsen, DOB 1951-03-14, patient #88213, she has two overlapping appointments with Dr. Osei.</private> find out why overlap validation blocks her",
        N("private"),
        N("request"),
      );
      chores(s, "rails", 1, 1);
      s.say(
        "`does_not_overlap` compares `starts_at..ends_at` inclusively, so back-to-back appointments (one ends at 10:00, the next starts at 10:00) count as overlapping.",
      );
      s.user("right. fix it + add a spec", N("request"));
      s.tools(
        edit(`${P.rails}/app/models/appointment.rb`, "starts_at..ends_at", "starts_at...ends_at"),
        write(
          `${P.rails}/spec/models/appointment_overlap_spec.rb`,
          'RSpec.describe Appointment do\n  it "allows back-to-back appointments" do\n    patient = create(:patient, name: Faker::Name.name)\n    create(:appointment, patient:, starts_at: at(9), ends_at: at(10))\n    expect(build(:appointment, patient:, starts_at: at(10), ends_at: at(11))).to be_valid\n  end\nend',
        ),
      );
      chores(s, "rails", 1);
      s.say("Fixed with an exclusive range; the new spec uses Faker names.");
      s.user(
        "good that you used faker. never put real patient data in specs, fixtures or seeds — not even initials. it's a GDPR thing",
        D(
          "rule",
          "project",
          "Never put real patient data (not even initials) in clinic-booking specs, fixtures or seeds; use Faker",
        ),
      );
      s.say("Understood.");
    },
  },
  {
    id: "h28-rails-stripe-slack",
    cwd: P.rails,
    style:
      "a Stripe restricted key inside a rule (contains_secret), a Slack webhook in a one-off request",
    start: "2025-11-15T09:00:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user("deposits: patients should pay a 20 EUR deposit when booking online", N("request"));
      s.tools(
        read(
          `${P.rails}/config/initializers/stripe.rb`,
          'Stripe.api_key = ENV.fetch("STRIPE_KEY")',
        ),
      );
      s.say("Stripe is set up with `STRIPE_KEY`. Which key should the deposit flow use?");
      const rk = s.secret("stripeRestricted");
      s.userS(
        `locally I use ${rk}. important: this app only ever uses restricted keys with PaymentIntents write, never the full secret key, the full key stays with finance`,
        [rk],
        D(
          "rule",
          "project",
          "clinic-booking uses only Stripe restricted keys (PaymentIntents write), never the full secret key",
          { secret: true },
        ),
        N("secret"),
      );
      s.say(
        "OK. I won't write the key anywhere; it's read from `STRIPE_KEY`. It's in this transcript now, so rotate it if it's not a throwaway.",
      );
      chores(s, "rails", 1, 2);
      s.tools(
        write(
          `${P.rails}/app/services/deposit.rb`,
          'class Deposit\n  AMOUNT_CENTS = 2000\n\n  def self.create!(appointment)\n    Stripe::PaymentIntent.create(amount: AMOUNT_CENTS, currency: "eur", metadata: { appointment_id: appointment.id })\n  end\nend',
        ),
      );
      s.say(
        "`Deposit.create!` makes a 20 EUR PaymentIntent with the appointment id in the metadata.",
      );
      const hook = s.secret("slackWebhook");
      s.userS(
        `and post a message to ${hook} when a deposit fails, just for the first week so we can watch it`,
        [hook],
        N("one-off"),
        N("secret"),
      );
      s.say(
        "I'll read the webhook URL from `DEPOSIT_ALERT_WEBHOOK` instead of hardcoding it, and add a TODO to remove it after a week.",
      );
      s.user("fine", N("request"));
    },
  },
  {
    id: "h29-rails-confirmed-timezones",
    cwd: P.rails,
    style: "agent's claim about time zones confirmed; an unconfirmed agent hypothesis",
    start: "2025-11-22T14:45:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user("the reminder SMS shows the wrong time for the Lisbon clinic", N("request"));
      s.tools(
        read(
          `${P.rails}/app/models/clinic.rb`,
          "class Clinic < ApplicationRecord\n  validates :time_zone, inclusion: { in: ActiveSupport::TimeZone.all.map(&:name) }\nend",
        ),
        grep("in_time_zone", [
          "app/views/appointments/show.html.erb",
          "app/mailers/appointment_mailer.rb",
        ]),
      );
      s.say(
        "The views and mailer convert with `in_time_zone(appointment.clinic.time_zone)`, but the SMS job formats `starts_at` in UTC. So the convention seems to be: store everything in UTC, display in the clinic's own time zone (`clinic.time_zone`), never the server's or the patient's. Is that right?",
      );
      s.confirm(
        "yes, exactly that",
        "rule",
        "project",
        "clinic-booking stores times in UTC and displays them in the clinic's time zone (clinic.time_zone), never the server's or the patient's",
      );
      s.tools(
        edit(
          `${P.rails}/app/jobs/appointment_reminder_job.rb`,
          "time: appointment.starts_at",
          "time: appointment.starts_at.in_time_zone(appointment.clinic.time_zone)",
        ),
      );
      chores(s, "rails", 1);
      s.say(
        "Fixed. The Lisbon clinic was probably also affected by DST last month, which is why nobody noticed before.",
        N("hypothesis"),
      );
      s.user("maybe. whatever, thanks", N("request"));
    },
  },
];

const GAME: Script[] = [
  {
    id: "h30-game-terse-hot-loop",
    cwd: P.game,
    style: "very terse lowercase prompts; two rules dropped in passing",
    start: "2025-11-06T21:30:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user("add dash ability. 3 tiles, 2s cooldown", N("request"));
      chores(s, "game", 1, 1);
      s.tools(
        edit(
          `${P.game}/sim/abilities.go`,
          "var Abilities = map[AbilityID]Ability{",
          "var Abilities = map[AbilityID]Ability{\n\tDash: {Range: 3, Cooldown: 2 * TickRate, Apply: applyDash},",
        ),
      );
      s.say(
        "Dash added; `applyDash` builds the path as a slice of tiles and moves the player along it.",
      );
      s.user(
        "no allocs in the sim hot loop. ever. reuse buffers on World",
        D(
          "rule",
          "project",
          "No allocations in arena-server's simulation hot loop; reuse buffers on World",
        ),
      );
      s.tools(
        edit(
          `${P.game}/sim/abilities.go`,
          "path := make([]Tile, 0, 3)",
          "path := w.scratchTiles[:0]",
        ),
      );
      chores(s, "game", 1, 2);
      s.say("Reusing `w.scratchTiles`; BenchmarkStep still shows 0 allocs/op.");
      s.user(
        "cooldown in ticks ok. tick rate stays 30hz btw dont touch TickRate",
        D("rule", "project", "arena-server's tick rate stays at 30 Hz; don't change TickRate"),
      );
      s.say("Not touching it.");
      s.user("tests", N("request"));
      chores(s, "game", 1, 0);
      s.say("All pass.");
      s.user("ship", N("request"));
      s.tools(
        bash(
          "git commit -am 'sim: dash ability' && git push",
          "[main 4d5e6f7] sim: dash ability\n 2 files changed, 38 insertions(+)",
        ),
      );
      s.say("Pushed.");
    },
  },
  {
    id: "h31-game-decision-udp",
    cwd: P.game,
    style: "a decision with its reason, a 'going forward' rule, agent confirmation of a port fact",
    start: "2025-11-09T17:00:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user(
        "someone on the discord asked why we don't just use websockets. can you write a short NETWORKING.md explaining our transport? it's UDP with our own reliability layer for the important messages — we picked that because with TCP a single lost packet stalls every later input (head-of-line blocking) and at 30hz that's a visible hitch",
        N("request"),
        D(
          "decision",
          "project",
          "arena-server uses UDP with its own reliability layer, not WebSockets/TCP, because head-of-line blocking causes visible hitches at 30 Hz",
        ),
      );
      s.tools(
        read(
          `${P.game}/net/proto.go`,
          "package net\n\nconst PROTOCOL_VERSION = 14\n\ntype Channel uint8\n\nconst (\n\tUnreliable Channel = iota\n\tReliableOrdered\n)",
        ),
        write(
          `${P.game}/NETWORKING.md`,
          "# Networking\n\narena-server speaks UDP. Inputs and snapshots are unreliable; chat, match events and purchases go over a reliable ordered channel built on top (acks + resend)...",
        ),
      );
      s.say("Wrote NETWORKING.md. I noticed the protocol version is 14 in `net/proto.go`.");
      s.user(
        "yeah. going forward any change to a message layout bumps PROTOCOL_VERSION in the same commit, old clients get rejected at handshake instead of desyncing",
        D(
          "rule",
          "project",
          "Any change to a message layout in arena-server bumps PROTOCOL_VERSION in net/proto.go in the same commit",
        ),
      );
      s.say("Got it.");
      s.tools(
        read(
          `${P.game}/cmd/arena/main.go`,
          'addr := flag.String("addr", ":7777", "UDP listen address")\nadmin := flag.String("admin", "127.0.0.1:7780", "HTTP admin address")',
        ),
      );
      s.say(
        "Should NETWORKING.md also say that game traffic is UDP on 7777 and the HTTP admin endpoint listens on 127.0.0.1:7780 only? Is that the setup everywhere, prod included?",
      );
      s.confirm(
        "yes same everywhere, put it in",
        "fact",
        "project",
        "arena-server: game traffic on UDP 7777; the HTTP admin endpoint listens only on 127.0.0.1:7780 (everywhere, prod included)",
      );
      s.tools(
        edit(
          `${P.game}/NETWORKING.md`,
          "# Networking\n",
          "# Networking\n\nPorts: UDP 7777 for the game, HTTP admin on 127.0.0.1:7780 (local only).\n",
        ),
      );
      s.say("Added the ports section.");
    },
  },
  {
    id: "h32-game-desync-hypotheses",
    cwd: P.game,
    style:
      "bug hunt: statements about the current bug, hypotheses, a one-off 'always' for a test; a private aside",
    start: "2025-11-16T20:20:00.000Z",
    version: "2.0.31",
    model: "claude-opus-4-1-20250805",
    run: (s) => {
      s.user(
        "players desync after ~10 min in big matches. the server tick is 30 but clients report 29.97 on average, I think it's float drift in the physics step",
        N("request"),
        N("hypothesis"),
      );
      chores(s, "game", 1, 1);
      s.say(
        "`physics.Step(1.0 / TickRate)` uses float64; drift of that size would need far more than 18000 steps. The 29.97 figure looks more like the clients' timer resolution on Windows.",
        N("hypothesis"),
      );
      s.user(
        "the replay from last night's match is in replays/m-8812.bin, can you diff server and client state",
        N("request"),
      );
      s.tools(
        bash(
          "go run ./tools/replaydiff replays/m-8812.bin",
          "first divergence at tick 17342: entity 41 (projectile) pos server=(118.25, 40.5) client=(118.25, 41.0)\n1 entity diverged",
        ),
      );
      s.say(
        "The first divergence is a projectile at tick 17342: the client applied a bounce the server didn't.",
      );
      s.user(
        "huh. for this repro always spawn the test player at 0,0 so the numbers are readable",
        N("one-off"),
      );
      s.tools(
        edit(
          `${P.game}/tools/replaydiff/main.go`,
          "spawn := randomSpawn(r)",
          "spawn := Vec2{0, 0}",
        ),
      );
      s.say("The repro spawns the test player at (0, 0) now.");
      s.user(
        "<private>honestly if this isn't fixed before the tournament on the 28th the sponsor is pulling out, don't mention it in the PR</private> keep going",
        N("private"),
        N("request"),
      );
      chores(s, "game", 1, 2);
      s.say(
        "Found it: the client resolves hits before the bounce, the server after. The order differs between `sim/world.go` and `client/predict.go`.",
      );
      s.user("make the client match the server", N("request"));
      s.tools(
        edit(
          `${P.game}/client/predict.go`,
          "p.resolveHits()\n\tp.bounce()",
          "p.bounce()\n\tp.resolveHits()",
        ),
      );
      s.say("Client order matches the server now; replaydiff shows no divergence for m-8812.");
    },
  },
  {
    id: "h33-game-soak-model-command",
    cwd: P.game,
    style:
      "slash command, a machine/owner fact, a schedule fact, a question that sounds like a rule",
    start: "2025-11-25T18:40:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.command("model", "sonnet", "Set model to sonnet (claude-sonnet-4-5-20250929)");
      s.user("do we need to run the soak test before merging the dash PR?", N("question"));
      s.tools(read(`${P.game}/Makefile`, "soak:\n\tgo run ./tools/soak -bots 400 -duration 20m"));
      s.say(
        "`make soak` runs 400 bots for 20 minutes. CONTRIBUTING doesn't say when it's required.",
      );
      s.user(
        "it's required for anything touching sim/ or net/. and it only runs on soak-01, the bench box under my desk, never on CI runners — they're too noisy for the numbers to mean anything",
        D(
          "rule",
          "project",
          "arena-server changes touching sim/ or net/ need a `make soak` run before merging",
        ),
        D(
          "rule",
          "project",
          "arena-server's soak test runs only on soak-01 (the bench box), never on CI runners",
        ),
      );
      s.say("Understood. Want me to start it on soak-01 via ssh?");
      s.user("yes. tomas@soak-01", N("request"));
      s.tools(
        bash(
          "ssh tomas@soak-01 'cd arena-server && git fetch && git checkout feat/dash && make soak'",
          "soak: 400 bots, 20m0s\np99 tick 9.8ms, max 14.1ms, 0 desyncs, 0 disconnects\nPASS",
        ),
      );
      s.say("Soak passed: p99 tick 9.8 ms, no desyncs.");
      s.user(
        "👍 fyi the weekly playtest is thursdays 19:00 CET, don't merge anything to main thursday afternoon",
        D("fact", "project", "arena-server's weekly playtest is Thursdays at 19:00 CET"),
        D(
          "rule",
          "project",
          "Don't merge to arena-server main on Thursday afternoons (before the playtest)",
        ),
      );
      s.say("Noted. Today is Tuesday, so merging now is fine.");
      s.user("merge", N("request"));
      s.tools(
        bash(
          "gh pr merge 57 --squash",
          "✓ Squashed and merged pull request #57 (sim: dash ability)",
        ),
      );
      s.say("Merged.");
    },
  },
];

const EXISTING: Script[] = [
  {
    id: "h34-payments-remember-that",
    cwd: CWD.payments,
    style: "'remember that' rule and an 'fyi' fact inside long requests; a current-bug statement",
    start: "2025-11-05T09:40:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "refunds over 10k are getting auto-approved in prod since yesterday's deploy, that's the bug. remember that refunds over 10,000 EUR always need a manual approval by finance, the code must never auto-approve those. find where the check went",
        N("request"),
        D(
          "rule",
          "project",
          "Refunds over 10,000 EUR need manual approval by finance; payments-api must never auto-approve them",
        ),
      );
      routine(s, "payments", 2, 1);
      s.tools(
        bash(
          "git log -p -1 --stat -- src/refunds/approval.ts",
          'commit 7f1c2d9\n    refunds: simplify approval\n\n-  if (amount > 10_000_00) return "manual";\n+  if (amount > 10_000) return "manual";',
        ),
      );
      routine(s, "payments", 1, 4);
      s.say(
        "The refactor changed the threshold from cents to euros, and `amount` now reaches `approval.ts` in euros, so the check itself still holds. The real change is that `approve()` is now called before `classify()` in the route.",
      );
      s.user(
        "ugh. fix the order, and add a test that a 10,001 EUR refund ends up manual",
        N("request"),
      );
      s.tools(
        edit(
          `${CWD.payments}/src/routes/refunds.ts`,
          "await approve(refund);\n    const mode = classify(refund);",
          'const mode = classify(refund);\n    if (mode === "auto") await approve(refund);',
        ),
        bash(
          "pnpm test -- refunds",
          " ✓ test/refunds.test.ts (10 tests) 402ms\n\n Test Files  1 passed (1)\n      Tests  10 passed (10)",
        ),
      );
      s.say("Fixed the order; the new test passes with the other 9.");
      s.user(
        "ok. fyi the processor moved their sandbox to https://sandbox.procx.io/v2 last week, the old /v1 host is going away, switch the config while you're at it",
        D(
          "fact",
          "project",
          "The payment processor's sandbox is at https://sandbox.procx.io/v2 (the /v1 host is going away)",
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${CWD.payments}/config/sandbox.json`,
          '"processorUrl": "https://sandbox.procx.io/v1"',
          '"processorUrl": "https://sandbox.procx.io/v2"',
        ),
      );
      s.say("Sandbox config points at /v2.");
    },
  },
  {
    id: "h35-payments-stored-node",
    cwd: CWD.payments,
    style:
      "stored memories: Node version contradicted, pnpm rule repeated with typos; a question phrased like a rule",
    start: "2025-11-13T15:15:00.000Z",
    version: "2.0.31",
    stored: [
      "Use pnpm, not npm, in this repo (npm rewrites the lockfile)",
      "payments-api targets Node 18",
    ],
    run: (s) => {
      s.user("the docker image still says node:18-alpine, bump it", N("request"));
      s.say(
        "Before I change it: the stored note says payments-api targets Node 18. Is the bump to 20?",
      );
      s.user(
        "yes we're on node 20 since the upgrade in october, 18 is EOL. everything should assume 20 now",
        D(
          "fact",
          "project",
          "payments-api runs on Node 20 (since the October upgrade; 18 is EOL)",
          { contra: "payments-api targets Node 18" },
        ),
      );
      s.tools(edit(`${CWD.payments}/Dockerfile`, "FROM node:18-alpine", "FROM node:20-alpine"));
      s.say("Dockerfile on `node:20-alpine`. Install with `npm ci` in the image?");
      s.user(
        "pnpm!! its pnpm in this repo, always has been. corepack enable + pnpm install --frozen-lockfile",
        D(
          "rule",
          "project",
          "Use pnpm in payments-api (corepack enable; pnpm install --frozen-lockfile)",
          {
            dup: "Use pnpm, not npm, in this repo (npm rewrites the lockfile)",
          },
        ),
        N("request"),
      );
      s.tools(
        edit(
          `${CWD.payments}/Dockerfile`,
          "RUN npm ci",
          "RUN corepack enable && pnpm install --frozen-lockfile",
        ),
      );
      s.say("Fixed.");
      s.user(
        "should we always pin the alpine minor too, like node:20.18-alpine3.20?",
        N("question"),
      );
      s.say(
        "Pinning gives reproducible builds; the cost is manual bumps for security fixes. Renovate can do the bumps.",
      );
      s.user("let me think about it. build it for now", N("request"));
      s.tools(
        bash(
          "docker build -t payments-api:dev .",
          " => exporting to image\n => => naming to docker.io/library/payments-api:dev",
        ),
      );
      s.say("Image builds.");
    },
  },
  {
    id: "h36-pipeline-keep-in-mind",
    cwd: CWD.pipeline,
    style: "'keep in mind' facts, 'make sure you always' rule, hypothesis from the user",
    start: "2025-11-06T06:55:00.000Z",
    version: "2.0.30",
    run: (s) => {
      s.user(
        "the customers model has duplicates since the CRM migration. look into it",
        N("request"),
      );
      routine(s, "pipeline", 2, 1);
      s.say(
        "`stg_customers` unions the old and new CRM exports; 3,412 customers exist in both with different `source_id`s.",
      );
      s.user(
        "keep in mind the warehouse is snowflake and my dev database is ANALYTICS_DEV_RAJ, don't query ANALYTICS directly. and make sure you always run dbt with --target dev locally, prod target only ever runs from airflow",
        D(
          "fact",
          "project",
          "The ingest-pipeline warehouse is Snowflake; Raj's dev database is ANALYTICS_DEV_RAJ (don't query ANALYTICS directly)",
        ),
        D(
          "rule",
          "project",
          "Run dbt locally with --target dev only; the prod target runs only from Airflow",
        ),
      );
      s.tools(
        bash(
          "dbt run --select stg_customers --target dev",
          "12:41:03  1 of 1 OK created sql view model ANALYTICS_DEV_RAJ.staging.stg_customers [SUCCESS 1 in 2.14s]",
        ),
      );
      s.say("Rebuilt in your dev database. Dedup by email?");
      s.user(
        "I'm pretty sure emails changed case in the new CRM, that's probably why they don't match",
        N("hypothesis"),
      );
      s.tools(
        bash(
          "dbt show --inline \"select count(*) from {{ ref('stg_customers') }} group by lower(email) having count(*) > 1\" --target dev",
          "| count |\n| ----- |\n|  3412 |",
        ),
      );
      s.say("Yes: all 3,412 duplicates match on `lower(email)`.");
      s.user("dedupe on lower(email), prefer the new CRM row", N("request"));
      s.tools(
        edit(
          `${CWD.pipeline}/models/staging/stg_customers.sql`,
          "select * from unioned",
          "select * from unioned\nqualify row_number() over (partition by lower(email) order by source = 'crm_v2' desc) = 1",
        ),
      );
      routine(s, "pipeline", 1, 2);
      s.say("Deduplicated; `dbt build` passes on dev.");
    },
  },
  {
    id: "h37-pipeline-openai-batch",
    cwd: CWD.pipeline,
    style: "OpenAI key pasted with a request; a decision with reason in a later turn",
    start: "2025-11-12T11:25:00.000Z",
    version: "2.0.31",
    run: (s) => {
      const key = s.secret("openai");
      s.userS(
        `we want to classify support tickets by topic in a nightly task. here's the key for now: OPENAI_API_KEY=${key}. write the task`,
        [key],
        N("request"),
        N("secret"),
      );
      s.say(
        "I'll read the key from the Airflow connection `openai_default` instead of the code. Please rotate the one you pasted, it's in the transcript. Shall I call the chat completions API per ticket?",
      );
      s.user(
        "no, use the batch API. we decided on batch for all LLM enrichment jobs: half the price, and nothing downstream needs the results before morning",
        D(
          "decision",
          "project",
          "LLM enrichment jobs in ingest-pipeline use the OpenAI Batch API (half the price; results aren't needed before morning)",
        ),
      );
      s.tools(
        write(
          `${CWD.pipeline}/ingest/ticket_topics.py`,
          'def submit(ds: str) -> str:\n    tickets = read_partition("raw/support_tickets", ds)\n    path = write_batch_file(tickets, model="gpt-4o-mini", prompt=TOPIC_PROMPT)\n    return client().batches.create(input_file_id=upload(path), endpoint="/v1/chat/completions", completion_window="24h").id',
        ),
      );
      routine(s, "pipeline", 1);
      s.say(
        "`ticket_topics.submit` uploads a batch file; a second task collects the results in the morning run.",
      );
      s.user("what model is that", N("question"));
      s.say("`gpt-4o-mini`. Topic labels don't need a larger model.");
      s.user("ok", N("request"));
    },
  },
  {
    id: "h38-infra-ssm-confirmed",
    cwd: CWD.infra,
    style: "an OpenSSH key pasted in a question; agent statement about access confirmed",
    start: "2025-11-08T12:00:00.000Z",
    version: "2.0.30",
    run: (s) => {
      const key = s.secret("opensshKey");
      s.userS(
        `can't get onto the staging workers with this key anymore:\n${key}\nwhat changed?`,
        [key],
        N("question"),
        N("secret"),
      );
      routine(s, "infra", 1, 1);
      s.tools(grep("aws_key_pair|ssm", ["modules/workers/main.tf", "modules/workers/iam.tf"]));
      s.say(
        "The workers no longer get an EC2 key pair: `modules/workers` dropped `aws_key_pair` and attached `AmazonSSMManagedInstanceCore`. So all shell access now goes through SSM Session Manager (`aws ssm start-session`), not SSH through the bastion. Is that the rule now? Also, that private key is in this transcript; you should revoke it.",
      );
      s.confirm(
        "yep, the bastion is gone since october, SSM only",
        "rule",
        "project",
        "Shell access to infra-live instances goes through SSM Session Manager only; the bastion is gone (since October)",
      );
      s.say("Then: `aws ssm start-session --target <instance-id> --profile infra`.");
      s.user("works. thx", N("request"));
    },
  },
  {
    id: "h39-infra-oneoffs-stored",
    cwd: CWD.infra,
    style: "stored rule asked about and waived once (not a contradiction); one-offs; one new fact",
    start: "2025-11-19T16:05:00.000Z",
    version: "2.0.37",
    stored: ["Production infra changes are deployed only on Tuesdays"],
    run: (s) => {
      s.user("we can only deploy prod on tuesdays, right?", N("question"));
      s.say("Yes, that's the stored rule for infra-live.");
      s.user(
        "ok but just this time we apply the WAF change today (wednesday), the CTO signed off because of the scraping incident",
        N("one-off"),
      );
      routine(s, "infra", 1);
      s.say("Plan for the WAF rule looks as expected: 1 to add.");
      s.user("for this apply skip the second reviewer, I'm watching it live", N("one-off"));
      s.tools(
        bash(
          "AWS_PROFILE=infra terraform -chdir=envs/prod apply -auto-approve -target=module.waf -no-color | tail -1",
          "Apply complete! Resources: 1 added, 0 changed, 0 destroyed.",
        ),
      );
      s.say("Applied.");
      s.user(
        "heads up: the analytics team got their own AWS account, 481920374615, anything of theirs goes in envs/analytics from now on",
        D(
          "fact",
          "project",
          "The analytics team has its own AWS account (481920374615); their resources go in envs/analytics in infra-live",
        ),
      );
      s.say("Noted. `envs/analytics` doesn't exist yet; want me to scaffold it?");
      s.user("not today", N("request"));
    },
  },
  {
    id: "h40-tally-global-prefs-private",
    cwd: CWD.tally,
    style: "global preferences about answers and commits; a private aside; a request",
    start: "2025-11-09T22:30:00.000Z",
    version: "2.0.31",
    run: (s) => {
      s.user("add a --json flag to `tally report`", N("request"));
      routine(s, "tally", 1, 1);
      s.say(
        "Sure! Here's my plan. First, I'll look at how the report is currently rendered, then I'll add a flag to the clap definition, then I'll serialize with serde_json, and finally I'll add tests. Let me start by reading the report module so I understand the existing structure before making any changes.",
      );
      s.user(
        "pls keep answers short, bullet points, no preamble about what you're going to do. that goes for every project btw",
        D(
          "preference",
          "global",
          "Keep answers short, in bullet points, with no preamble about what you're going to do",
        ),
      );
      s.tools(
        edit(
          `${CWD.tally}/src/cli.rs`,
          '    Report { #[arg(long, default_value = "month")] period: String },',
          '    Report {\n        #[arg(long, default_value = "month")] period: String,\n        #[arg(long)] json: bool,\n    },',
        ),
      );
      routine(s, "tally", 1);
      s.say("- `--json` added\n- 2 tests\n- all pass");
      s.user(
        "good. <private>the reason I want json is to pipe it into the spreadsheet my accountant uses for my tax filing, I'm a bit behind on it</private> commit it",
        N("private"),
        N("request"),
      );
      s.tools(
        bash(
          "git commit -am 'Add --json output to report\n\nSerializes the report rows with serde_json so other tools can consume them.'",
          "[main 8a9b0c1] Add --json output to report",
        ),
      );
      s.say("- committed 8a9b0c1");
      s.user(
        "commit messages: one line, imperative, no body unless something's really non obvious. same everywhere",
        D(
          "preference",
          "global",
          "Commit messages: one imperative line, no body unless something is non-obvious",
        ),
      );
      s.tools(
        bash(
          "git commit --amend -m 'Add --json output to report'",
          "[main 2c3d4e5] Add --json output to report",
        ),
      );
      s.say("- amended");
    },
  },
  {
    id: "h41-dashboard-auth0-jwt",
    cwd: CWD.dashboard,
    style: "a JWT inside a durable fact about the dev tenant (contains_secret); short exchange",
    start: "2025-11-15T13:35:00.000Z",
    version: "2.0.31",
    run: (s) => {
      const jwt = s.secret("jwt");
      s.userS(
        `login loops forever locally. for local dev we point at the acme-staging.eu.auth0.com tenant, never the prod one; this is the token it hands back: ${jwt}`,
        [jwt],
        D(
          "rule",
          "project",
          "dashboard-web local development uses the acme-staging.eu.auth0.com Auth0 tenant, never the prod tenant",
          { secret: true },
        ),
        N("request"),
        N("secret"),
      );
      s.tools(
        read(
          `${CWD.dashboard}/.env.development`,
          "VITE_AUTH0_DOMAIN=acme-staging.eu.auth0.com\nVITE_AUTH0_CALLBACK=http://localhost:5173/callback",
        ),
      );
      routine(s, "dashboard", 1, 2);
      s.say(
        "Vite is on port 5174 here (5173 was taken), but the callback is registered for 5173, so Auth0 sends you back to a page that restarts login.",
      );
      s.user("ah. kill whatever holds 5173 and restart then", N("request"));
      s.tools(
        bash(
          "lsof -ti :5173 | xargs kill && pnpm dev --port 5173 &",
          "  VITE v5.4.2  ready in 611 ms\n\n  ➜  Local:   http://localhost:5173/",
        ),
      );
      s.say("Running on 5173; login completes.");
    },
  },
  {
    id: "h42-authsvc-anthropic-haiku",
    cwd: CWD.authsvc,
    style:
      "an Anthropic key pasted; a decision with reason and a rule in separate turns; two-turn session",
    start: "2025-11-26T10:15:00.000Z",
    version: "2.0.37",
    run: (s) => {
      const key = s.secret("anthropic");
      s.userS(
        `the login anomaly scorer gets 401 from the API since this morning. ANTHROPIC_API_KEY=${key} is what's in the k8s secret. also, we only ever call claude haiku from authsvc, the scorer runs on every login and sonnet would cost 10x`,
        [key],
        N("request"),
        N("secret"),
        D(
          "decision",
          "project",
          "authsvc only calls Claude Haiku (the anomaly scorer runs on every login; Sonnet would cost about 10x)",
          { secret: true },
        ),
      );
      routine(s, "authsvc", 1, 1);
      s.say(
        "The key in the secret has been disabled (the API answers `authentication_error: invalid x-api-key`). Create a new one in the console and update the secret; please don't paste it here. The code already uses `claude-haiku-4-5`.",
      );
      s.user(
        "ok rotated. and scorer failures must never block a login, fail open and log it",
        D(
          "rule",
          "project",
          "authsvc's login anomaly scorer fails open: its failures never block a login, they are logged",
        ),
      );
      s.say(
        "It does fail open today: `score()` errors are logged at warn and the login proceeds. I added a test for it.",
      );
    },
  },
];

const MORE: Script[] = [
  {
    id: "h43-mobile-global-working-prefs",
    cwd: P.mobile,
    style:
      "global working preferences voiced while fixing a crash; questions and requests around them",
    start: "2025-11-27T10:05:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user(
        "app crashes when you open a note with an image attachment on android 14",
        N("request"),
      );
      chores(s, "mobile", 1, 1);
      s.tools(
        read(
          `${P.mobile}/src/components/Attachment.tsx`,
          "export function Attachment({ uri }: { uri: string }) {\n  const size = Image.getSize(uri);\n  return <Image source={{ uri }} style={{ aspectRatio: size.width / size.height }} />;\n}",
        ),
      );
      s.say(
        "`Image.getSize` is async (callback based); using its return value gives `undefined.width`. That's the crash. Fixed with `useImageSize`, done.",
      );
      s.user(
        "did you actually run tsc? please always run the type checker before you tell me something is done, in any repo. I've been burned by that a few times",
        N("question"),
        D("preference", "global", "Run the type checker before reporting a change as done"),
      );
      s.tools(
        bashErr(
          "npx tsc --noEmit",
          "src/components/Attachment.tsx(4,40): error TS2339: Property 'width' does not exist on type 'Size | undefined'.",
        ),
      );
      s.say("You were right to ask: one type error left. Fixing it.");
      s.tools(
        edit(
          `${P.mobile}/src/components/Attachment.tsx`,
          "size.width / size.height",
          "size ? size.width / size.height : 1",
        ),
        bash("npx tsc --noEmit", ""),
      );
      s.say("tsc is clean now.");
      s.user("why aspect ratio 1 as fallback?", N("question"));
      s.say(
        "A square placeholder while the size loads; it avoids a layout jump to zero height. I guessed that's what you'd want.",
      );
      s.user(
        "fine here. but in general when you're unsure about a UX choice ask me instead of guessing",
        N("one-off"),
        D("preference", "global", "When unsure about a UX choice, ask instead of guessing"),
      );
      s.say("Will do.");
      s.user("can you test it on the android 14 emulator?", N("request"));
      s.tools(
        bash(
          "npx expo run:android --device 'Pixel_8_API_34' --no-build-cache 2>&1 | tail -2",
          "› Opening exp+fieldnotes://expo-development-client on Pixel_8_API_34\n› Logs for your project will appear below.",
        ),
      );
      s.say("Opened on the Pixel 8 (API 34) emulator; notes with images open without crashing.");
      s.user("cool ty", N("request"));
    },
  },
  {
    id: "h44-rails-backoffice-rules",
    cwd: P.rails,
    style:
      "medium session: 'rule of thumb' and 'make sure you always' among requests; a one-off 'always'",
    start: "2025-11-25T09:20:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user(
        "the practitioners want a page in the backoffice to see their no-show rate per month",
        N("request"),
      );
      s.tools(
        read(
          `${P.rails}/config/routes.rb`,
          "namespace :backoffice do\n  resources :appointments, only: %i[index show]\n  resources :practitioners\nend",
        ),
      );
      s.say(
        "The backoffice lives under `/backoffice`. Is it behind the same Devise login as the rest?",
      );
      s.user(
        "same Devise login but only users with the admin or practitioner role get in, enforced in Backoffice::BaseController",
        D(
          "fact",
          "project",
          "clinic-booking's /backoffice uses the Devise login and admits only admin or practitioner roles (Backoffice::BaseController)",
        ),
      );
      s.tools(
        write(
          `${P.rails}/app/controllers/backoffice/no_shows_controller.rb`,
          "module Backoffice\n  class NoShowsController < BaseController\n    def index\n      @rates = NoShowRate.new(current_user.practitioner).by_month\n    end\n  end\nend",
        ),
      );
      s.say("Controller added. Where should the calculation live?");
      s.user(
        "rule of thumb: anything more than a query goes in app/services as an object with a single .call method. so NoShowRate.call(practitioner)",
        D(
          "rule",
          "project",
          "In clinic-booking, logic beyond a query goes in app/services as an object with a single .call method",
        ),
      );
      s.tools(
        write(
          `${P.rails}/app/services/no_show_rate.rb`,
          "class NoShowRate\n  def self.call(practitioner)\n    practitioner.appointments.where(starts_at: 12.months.ago..).group_by_month(:starts_at).average(\"(status = 'no_show')::int\")\n  end\nend",
        ),
      );
      s.say("`NoShowRate.call(practitioner)` returns a month → rate hash.");
      s.user("bullet is complaining in the log", N("request"));
      s.tools(
        bash(
          "tail -n 3 log/bullet.log",
          "USE eager loading detected\n  Appointment => [:patient]\n  Add to your query: .includes([:patient])",
        ),
      );
      s.say("An N+1 on `patient` in the view. I'll add `.includes(:patient)`.");
      s.user(
        "yes. make sure you always fix what bullet flags before you hand something over, we keep it raising in dev for a reason",
        D(
          "rule",
          "project",
          "Fix every N+1 that Bullet flags in clinic-booking before handing work over",
        ),
      );
      s.tools(
        edit(
          `${P.rails}/app/controllers/backoffice/no_shows_controller.rb`,
          "NoShowRate.new(current_user.practitioner).by_month",
          "NoShowRate.call(current_user.practitioner)",
        ),
      );
      chores(s, "rails", 1, 2);
      s.say("Bullet is quiet now; rubocop is clean.");
      s.user("for the chart always use the last 12 months, not the calendar year", N("one-off"));
      s.say("It already uses a rolling 12 months.");
      s.user("specs?", N("question"));
      chores(s, "rails", 1);
      s.say("Added a service spec and a request spec; 44 examples, 0 failures.");
      s.user("ok push the branch", N("request"));
      s.tools(
        bash(
          "git push -u origin feat/no-show-rate",
          "branch 'feat/no-show-rate' set up to track 'origin/feat/no-show-rate'.",
        ),
      );
      s.say("Pushed.");
    },
  },
  {
    id: "h45-game-typos-matchmaker",
    cwd: P.game,
    style: "three short prompts full of typos; a fact and a rule in one of them",
    start: "2025-11-28T23:10:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user("matchmaker timeouts agian in the logs, check", N("request"));
      chores(s, "game", 1, 1);
      s.tools(bash("grep -c 'mm: timeout' logs/arena.log", "212"));
      s.say("212 `mm: timeout` lines today; the server dials the matchmaker at `localhost:7790`.");
      s.user(
        "remeber taht the matchmaker runs on its own box, mm-01, port 7790. localhost is wrong. and dont log player ips anywhere, thats a gdpr problem",
        D("fact", "project", "arena-server's matchmaker runs on its own host mm-01, port 7790"),
        D("rule", "project", "Never log player IP addresses in arena-server (GDPR)"),
      );
      s.tools(
        edit(`${P.game}/cmd/arena/main.go`, '"localhost:7790"', '"mm-01:7790"'),
        grep("RemoteAddr", ["net/conn.go", "match/join.go"]),
      );
      s.say(
        "Matchmaker address fixed. `match/join.go` logs `RemoteAddr` on join; I removed it there and in `net/conn.go`.",
      );
      s.user("gr8", N("request"));
    },
  },
  {
    id: "h46-dashboard-agent-claims",
    cwd: CWD.dashboard,
    style:
      "agent claims the user rejects or leaves open (not confirmed); one user rule after a mistake",
    start: "2025-11-28T14:00:00.000Z",
    version: "2.0.37",
    run: (s) => {
      s.user("the revenue chart shows yesterday as zero every morning", N("request"));
      routine(s, "dashboard", 1, 1);
      s.say(
        "The API aggregates by UTC day, and the nightly job finishes around 06:00 UTC. I think the dashboard always shows incomplete data for the current and previous day until then, so we should probably hide yesterday until 06:00.",
        N("hypothesis"),
      );
      s.user("is that true? I thought the job runs at 02:00", N("question"));
      s.tools(
        bash(
          "gh run list -w nightly-aggregates -L 3",
          "completed  success  nightly-aggregates  main  schedule  2h11m\ncompleted  success  nightly-aggregates  main  schedule  2h09m",
        ),
      );
      s.say(
        "It starts at 02:00 UTC and takes about 2h10m, so yesterday is complete around 04:10 UTC.",
        N("agent"),
      );
      s.user(
        "ok so don't hide anything, show a 'still processing' badge until the job is done",
        N("request"),
      );
      s.tools(
        edit(
          `${CWD.dashboard}/src/components/RevenueChart.tsx`,
          "return <LineChart points={data!.points} />;",
          'return (\n    <>\n      {data!.pending && <Badge tone="warning">Still processing</Badge>}\n      <LineChart points={data!.points} />\n    </>\n  );',
        ),
      );
      s.say(
        "Badge added; it shows while `pending` is true in the API answer. I hardcoded the text.",
      );
      s.user(
        "the text has to go through i18n here too, all UI text in dashboard-web comes from src/locales. you did the same last week",
        N("request"),
        D(
          "rule",
          "project",
          "All UI text in dashboard-web comes from src/locales (i18n), never hardcoded",
        ),
      );
      s.tools(
        edit(
          `${CWD.dashboard}/src/components/RevenueChart.tsx`,
          "Still processing",
          '{t("revenue.pending")}',
        ),
      );
      routine(s, "dashboard", 1, 2);
      s.say("Moved to `revenue.pending`; typecheck passes.");
    },
  },
];

/** The holdout split, in file order. */
export const HOLDOUT: Script[] = [
  ...MOBILE,
  ...ML,
  ...PYLIB,
  ...TFMOD,
  ...MONO,
  ...RAILS,
  ...GAME,
  ...EXISTING,
  ...MORE,
];
