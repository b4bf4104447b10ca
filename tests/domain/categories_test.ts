/**
 * The table of tool names to category words (src/domain/categories.ts): every category word is
 * a word of the shipped vectors, no name maps to itself, each has 2–4 words, lookups ignore
 * case and `. - _`, and names are found in a text; since 0.18 also developers' jargon
 * (src/domain/jargon.ts), read as the same table.
 */
import assert from "node:assert/strict";
import { categoriesOf, categoryKey, categoryTable, namesIn } from "../../src/domain/categories.ts";
import { builtinWordVectors } from "../../src/embed/words.ts";
import { STOP_WORDS } from "../../src/domain/terms.ts";
import { JARGON } from "../../src/domain/jargon.ts";

const CATEGORIES_SOURCE = await Deno.readTextFile(
  new URL("../../src/domain/categories.ts", import.meta.url),
);

/** The names written in categories.ts's own list (the tools). */
function categoryTableSource(): string[] {
  return [...CATEGORIES_SOURCE.matchAll(/^ {2}"([^":]+):/gm)].map((m) => m[1]);
}

Deno.test("categories: every category word is in the shipped word vectors, not a stop word", async () => {
  const words = await builtinWordVectors();
  const missing: string[] = [];
  for (const [name, cats] of categoryTable()) {
    for (const c of cats) {
      if (words.rank(c) === undefined || STOP_WORDS.has(c)) missing.push(`${name}: ${c}`);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("categories: at least 1,200 names, 2-4 distinct words each, none maps to itself", () => {
  const table = categoryTable();
  assert.ok(table.size >= 1200, `${table.size} names`);
  for (const [name, cats] of table) {
    assert.equal(name, categoryKey(name), `${name} is a key`);
    assert.ok(cats.length >= 2 && cats.length <= 4, `${name}: ${cats.join(" ")}`);
    assert.equal(new Set(cats).size, cats.length, `${name}: a word twice`);
    assert.ok(!cats.includes(name), `${name} maps to itself`);
  }
});

Deno.test("categories: lookups ignore case and . - _", () => {
  assert.deepEqual(categoriesOf("pnpm"), ["package", "manager", "javascript"]);
  assert.deepEqual(categoriesOf("PNPM"), categoriesOf("pnpm"));
  assert.deepEqual(categoriesOf("Next.js"), categoriesOf("nextjs"));
  assert.deepEqual(categoriesOf("Argo-CD"), categoriesOf("argocd"));
  assert.ok(categoriesOf("K8s")?.includes("cluster"));
  assert.equal(categoriesOf("holiday"), undefined);
  // Common English words of another meaning are not names.
  for (const w of ["go", "next", "express", "rest", "black", "poetry", "celery", "kind"]) {
    assert.equal(categoriesOf(w), undefined, w);
  }
});

Deno.test("categories: each name is written once in the table", () => {
  const names = categoryTableSource();
  assert.equal(new Set(names).size, names.length, "a name written twice");
  assert.equal(names.length + JARGON.length, categoryTable().size, "a name written twice");
});

Deno.test("categories: tools of many ecosystems", () => {
  const has = (name: string, word: string) =>
    assert.ok(categoriesOf(name)?.includes(word), `${name}: ${categoriesOf(name)}`);
  // Rust, Go, Python, JavaScript, JVM, iOS.
  has("Cargo.toml", "manifest");
  has("cargo-nextest", "runner");
  has("tokio", "asynchronous");
  has("thiserror", "errors");
  has("golangci-lint", "checker");
  has("sqlc", "generator");
  has("ruff", "checker");
  has("pydantic", "validation");
  has("pyproject.toml", "manifest");
  has("vitest", "testing");
  has("zod", "validation");
  has("drizzle-orm", "mapping");
  has("ktlint", "checker");
  has("okhttp", "http");
  has("xcodebuild", "build");
  has("fastlane", "release");
  // Machine learning, cluster jobs and data.
  has("wandb", "experiment");
  has("optuna", "tuning");
  has("sbatch", "job");
  has("slurm", "scheduling");
  has("deepspeed", "distributed");
  has("nccl", "gpu");
  has("polars", "table");
  // Embedded firmware.
  has("mcuboot", "boot");
  has("nRF52840", "wireless");
  has("J-Link", "probe");
  has("openocd", "probe");
  has("i2c", "bus");
  has("dfu", "firmware");
  has("devicetree", "hardware");
  has("Kconfig", "configuration");
  // Infrastructure and operations.
  has("terragrunt", "infrastructure");
  has("flux2", "deployment");
  has("hashicorp-vault", "secrets");
  has("opsgenie", "alerting");
  has("buildkite", "continuous");
});

Deno.test("categories: names that are common words in another sense are not names", () => {
  for (
    const w of [
      "flask",
      "helm",
      "vault",
      "consul",
      "nomad",
      "clap",
      "anyhow",
      "criterion",
      "gin",
      "west",
      "compose",
      "room",
      "hilt",
      "lightning",
      "accelerate",
      "datasets",
      "thread",
      "matter",
      "can",
      "tempo",
      "fly",
      "stripe",
      "vector",
      "linear",
      "temporal",
      "torch",
    ]
  ) {
    assert.equal(categoriesOf(w), undefined, w);
  }
});

Deno.test("categories: names in a text, whole or by their parts", () => {
  assert.deepEqual(namesIn("We moved from Yarn to pnpm; CI runs on GitHub Actions."), [
    "yarn",
    "pnpm",
    "ci",
    "github",
  ]);
  assert.deepEqual(namesIn("The Next.js app reads route53 and k8s"), ["nextjs", "route53", "k8s"]);
  assert.deepEqual(namesIn("config in terraform-modules/eks.tf"), [
    "config",
    "terraform",
    "eks",
    "tf",
  ]);
  assert.deepEqual(namesIn("We went to the beach on Sunday"), []);
  assert.deepEqual(
    namesIn("Bumped tokio in Cargo.toml; cargo-nextest and clippy run on every push."),
    ["tokio", "cargotoml", "cargonextest", "clippy"],
  );
  assert.deepEqual(
    namesIn("The sbatch script asks Slurm for 4 GPUs and logs the run to wandb."),
    ["sbatch", "slurm", "gpus", "wandb"],
  );
  assert.deepEqual(
    namesIn("Flash the nRF52840 with west flash after mcuboot signs the image; logs over RTT."),
    ["nrf52840", "mcuboot"],
  );
  assert.deepEqual(
    namesIn("We took the ferry to the west coast, lit the torch and had a drink in the room."),
    [],
  );
});

Deno.test("jargon: words the vectors lack, each written once, none a tool's name too", async () => {
  const words = await builtinWordVectors();
  assert.ok(JARGON.length >= 800, `${JARGON.length} words`);
  const keys = JARGON.map((line) => line.slice(0, line.indexOf(":")));
  const tools = new Set(categoryTableSource());
  const inVectors = keys.filter((k) => words.rank(k) !== undefined);
  assert.deepEqual(inVectors, [], "a word the vectors have keeps its own meaning");
  assert.equal(new Set(keys).size, keys.length, "a word written twice");
  assert.deepEqual(keys.filter((k) => tools.has(k)), [], "a word also a tool's name");
  for (const k of keys) assert.equal(k, categoryKey(k), `${k} is a key`);
  assert.equal(categoryTable().size, tools.size + keys.length);
});

Deno.test("jargon: everyday words of software work have plain words", () => {
  const has = (name: string, word: string) =>
    assert.ok(categoriesOf(name)?.includes(word), `${name}: ${categoriesOf(name)}`);
  has("login", "sign");
  has("Logins", "account");
  has("logout", "sign");
  has("signup", "register");
  has("refactor", "restructure");
  has("refactoring", "code");
  has("debug", "bugs");
  has("debugging", "fixing");
  has("linter", "style");
  has("parse", "text");
  has("timezone", "zone");
  has("async", "asynchronous");
  has("deps", "libraries");
  has("hotfix", "fix");
  has("rollouts", "releases");
  has("healthcheck", "health");
  has("typecheck", "type");
  has("i18n", "translation");
  has("hyperparameters", "training");
  has("shader", "graphics");
});

Deno.test("jargon: words common in another sense are not in the table", () => {
  for (
    const w of [
      "lint",
      "sandbox",
      "callback",
      "restful",
      "shard",
      "crud",
      "macros",
      "sprites",
      "epochs",
      "hydration",
      "cherry-pick",
      "fine-tune",
      "sidecar",
      "daemon",
      "logger",
      "keychain",
      "stubs",
      "teardown",
      "verbose",
      "hallucination",
      "ides",
      "matchmaking",
    ]
  ) {
    assert.equal(categoriesOf(w), undefined, w);
  }
});

Deno.test("jargon: found in a text as tool names are", () => {
  assert.deepEqual(
    namesIn("Users can't log in since the refactor; the login page times out in staging."),
    ["refactor", "login"],
  );
  assert.deepEqual(namesIn("We cherry-picked the fine-tune into a sandbox."), []);
});
