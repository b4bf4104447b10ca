/**
 * `deno run -A --lock=tests/deno.lock tasks/lexicon_build.ts --npm FILE --pypi FILE --debian FILE
 *   [--npm-min N] [--pypi-rank N] [--common N] [--dictionary FILE] [--words N]
 *   [--order npm,pypi,debian] [--out FILE]`
 *
 * A measurement's data, not a feature: what published package metadata says each tool or
 * library name is ("pnpm" → "Fast, disk space efficient package manager"), for a write-time
 * expansion without a model (docs/recall.md, "After 0.20: published package descriptions as
 * expansion"). The sources are the registries' own words, read from local listings (no
 * registry is asked at run time or here):
 *
 * - `--npm`: a TSV of npm packages `name, version, downloads a month, summary` (the package's
 *   `description`); kept when downloaded at least `--npm-min` times a month (default 1,000,000);
 *   scoped names (`@x/y`) are left out;
 * - `--pypi`: a TSV of PyPI projects `name, version, month, rank among the 15,000 most
 *   downloaded, summary`; kept when ranked, and at most `--pypi-rank` (default 15,000);
 * - `--debian`: the output of `apt-cache dumpavail` (Debian's package lists, short
 *   descriptions); every binary package by its name, by its source package's name, and by its
 *   name without a `python3-`, `node-`, `ruby-` prefix or a `-server`, `-client`, `-cli`,
 *   `-tools`, `-utils` suffix.
 *
 * A name is keyed as src/domain/categories.ts keys names (lower case, `. - _` dropped). A name
 * of fewer than 3 characters, one of the `--common` most frequent words of the shipped word
 * vectors (default 20,000: "react", "jenkins") or a lower-case word of `--dictionary` (default
 * /usr/share/dict/american-english, Debian's `wamerican`: "scheduler", "flask", "celery") is
 * left out, so that a conversation about ordinary things gains no tool's meaning.
 * A description is cleaned (listing notes in `[…]` at its start, URLs, markup) and cut to its
 * first `--words` words (default 12). Writes `{ "<key>": ["description", …] }` (one per source
 * that has the name, in the `--order` of the sources) to `--out` (default stdout).
 */
import { benchArgs } from "./lib/args.ts";
import { categoryKey } from "../src/domain/categories.ts";
import { builtinWordVectors } from "../src/embed/words.ts";

const USAGE = "deno run -A --lock=tests/deno.lock tasks/lexicon_build.ts --npm FILE --pypi FILE " +
  "--debian FILE [--npm-min N] [--pypi-rank N] [--common N] [--dictionary FILE] [--words N] " +
  "[--order npm,pypi,debian] [--out FILE]";
const values = benchArgs(USAGE, {
  npm: { type: "string" },
  pypi: { type: "string" },
  debian: { type: "string" },
  "npm-min": { type: "string", default: "1000000" },
  "pypi-rank": { type: "string", default: "15000" },
  common: { type: "string", default: "20000" },
  dictionary: { type: "string", default: "/usr/share/dict/american-english" },
  words: { type: "string", default: "12" },
  order: { type: "string", default: "npm,pypi,debian" },
  out: { type: "string" },
});
const num = (k: string): number => {
  const n = Number(values[k as keyof typeof values]);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${k}: expected a number\nusage: ${USAGE}`);
    Deno.exit(2);
  }
  return n;
};
const npmMin = num("npm-min");
const pypiRank = num("pypi-rank");
const common = num("common");
const maxWords = num("words");

const vectors = await builtinWordVectors();
/** The dictionary's words in lower case (its capitalised entries are names, kept apart). */
const dictionary = new Set(
  (await Deno.readTextFile(values.dictionary!)).split("\n").filter((w) => /^[a-z]+$/.test(w)),
);
const isCommon = (key: string) => dictionary.has(key) || (vectors.rank(key) ?? Infinity) < common;

/** A description as one clean line of at most `maxWords` words; "" when nothing is left. */
function clean(text: string): string {
  const t = text
    .replace(/^\s*\[[^\]]*\]\s*/, "")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/[`*_#<>|"]+/g, " ")
    .replace(/[^\p{L}\p{N}\s.,:;'()/+\-&]/gu, " ")
    .replace(/;/g, ",")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.,:]+$/, "");
  return t.split(" ").slice(0, maxWords).join(" ").replace(/[.,:;(]+$/, "");
}

const out = new Map<string, string[]>();
const dropped = { short: 0, common: 0, empty: 0 };
/** The sources that gave each key a description already: one description per source. */
const from = new Map<string, Set<string>>();
function add(name: string, description: string, source: string): void {
  const key = categoryKey(name);
  if (from.get(key)?.has(source)) return;
  if (key.length < 3 || !/^[\p{L}\p{N}]+$/u.test(key)) return void dropped.short++;
  if (isCommon(key)) return void dropped.common++;
  const d = clean(description);
  if (!d || categoryKey(d) === key) return void dropped.empty++;
  const list = out.get(key) ?? [];
  if (!list.some((x) => x.toLowerCase() === d.toLowerCase())) list.push(d);
  out.set(key, list);
  from.set(key, (from.get(key) ?? new Set()).add(source));
}

const tsv = async (path: string) =>
  (await Deno.readTextFile(path)).split("\n").slice(1).filter((l) => l.trim()).map((l) =>
    l.split("\t")
  );

const counts = { npm: 0, pypi: 0, debian: 0 };
async function readNpm(): Promise<void> {
  if (!values.npm) return;
  for (const [name, , downloads, summary] of await tsv(values.npm)) {
    if (name.startsWith("@") || Number(downloads) < npmMin || !summary) continue;
    counts.npm++;
    add(name, summary, "npm");
  }
}
async function readPypi(): Promise<void> {
  if (!values.pypi) return;
  for (const [name, , , rank, summary] of await tsv(values.pypi)) {
    if (!rank || Number(rank) > pypiRank || !summary) continue;
    counts.pypi++;
    add(name, summary, "pypi");
  }
}
/**
 * Debian packages that are parts of a program rather than the program: libraries, headers,
 * documentation, debug symbols, shared files, fonts, translations.
 */
const DEBIAN_SKIP =
  /^(lib|fonts-|texlive|hunspell-|myspell-|aspell-|hyphen-|task-)|-(dev|doc|docs|dbg|dbgsym|common|data|l10n|locale-.*|examples|tests)$/;
async function readDebian(): Promise<void> {
  if (!values.debian) return;
  const text = await Deno.readTextFile(values.debian);
  // A name's description: the package of that name first, then the source package of that
  // name, then a package of that name with a prefix or suffix.
  const byRank: [string, string][][] = [[], [], []];
  for (const para of text.split(/\n\n+/)) {
    const field = (f: string) => para.match(new RegExp(`^${f}: (.*)$`, "m"))?.[1]?.trim();
    const pkg = field("Package");
    const desc = field("Description")?.replace(/\s*\([^)]*\)\s*$/, "");
    if (!pkg || !desc || DEBIAN_SKIP.test(pkg) || /transitional|dummy|metapackage/i.test(desc)) {
      continue;
    }
    counts.debian++;
    byRank[0].push([pkg, desc]);
    const source = field("Source")?.split(" ")[0];
    if (source && source !== pkg) byRank[1].push([source, desc]);
    const bare = pkg.replace(/^(python3|node|ruby)-/, "").replace(
      /-(server|client|cli|tools|utils)$/,
      "",
    );
    if (bare !== pkg) byRank[2].push([bare, desc]);
  }
  for (const list of byRank) for (const [n, d] of list) add(n, d, "debian");
}
const readers: Record<string, () => Promise<void>> = {
  npm: readNpm,
  pypi: readPypi,
  debian: readDebian,
};
for (const source of values.order!.split(",")) {
  if (!readers[source]) {
    console.error(`--order: ${source} is not npm, pypi or debian\nusage: ${USAGE}`);
    Deno.exit(2);
  }
  await readers[source]();
}

const obj = Object.fromEntries([...out].sort(([a], [b]) => a < b ? -1 : 1));
const json = JSON.stringify(obj) + "\n";
console.error(
  `lexicon: ${out.size} names (npm ${counts.npm}, PyPI ${counts.pypi}, Debian ${counts.debian} ` +
    `read; left out: ${dropped.short} short, ${dropped.common} common words, ${dropped.empty} ` +
    `empty), ${json.length} bytes`,
);
if (values.out) await Deno.writeTextFile(values.out, json);
else await Deno.stdout.write(new TextEncoder().encode(json));
