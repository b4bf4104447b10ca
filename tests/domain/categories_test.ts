/**
 * The table of tool names to category words (src/domain/categories.ts): every category word is
 * a word of the shipped vectors, no name maps to itself, each has 2–4 words, lookups ignore
 * case and `. - _`, and names are found in a text.
 */
import assert from "node:assert/strict";
import { categoriesOf, categoryKey, categoryTable, namesIn } from "../../src/domain/categories.ts";
import { builtinWordVectors } from "../../src/embed/words.ts";
import { STOP_WORDS } from "../../src/domain/terms.ts";

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

Deno.test("categories: at least 300 names, 2-4 distinct words each, none maps to itself", () => {
  const table = categoryTable();
  assert.ok(table.size >= 300, `${table.size} names`);
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
});
