/**
 * Checks the paraphrase set (bench/data/paraphrase/paraphrase.json, or holdout.json with the
 * `holdout` split, holdout2.json with the `holdout2` split, holdout3.json with `holdout3`, holdout4.json with `holdout4`, holdout5.json with `holdout5`, holdout6.json with `holdout6`, holdout7.json with `holdout7`, holdout8.json with `holdout8`, holdout9.json with `holdout9`, holdout10.json with `holdout10`, or holdout11.json with `holdout11`). It reads only the data,
 * never the product: it validates the schema, counts prompts per split, kind and project, and
 * computes for each aimed prompt whether it shares an informative word with its target memory.
 *
 * A word is informative when it is not in STOP_WORDS below. Words are lowercased and split on
 * anything that is not a letter or a digit (so `pnpm-lock.yaml` gives pnpm, lock, yaml), one-letter
 * tokens are dropped, and each word is cut by a crude suffix stemmer (stem()). Two words are shared
 * when their stems are equal or when one stem is a prefix of the other and the shorter has at least
 * 4 letters (deploy/deployment, config/configuration, test/testcontainers). The rule errs towards
 * "shared", so the share of prompts with no shared word is, if anything, understated.
 *
 * Usage:
 *   deno run --allow-read tasks/paraphrase_check.ts [FILE] [--verbose]
 *   deno run --allow-read --allow-write tasks/paraphrase_check.ts [FILE] --write
 *   deno run --allow-read tasks/paraphrase_check.ts [FILE] --draft   (skips the count minima)
 *
 * Without --write, it fails when a prompt's stored `shares_word` differs from the computed one.
 * It fails when fewer than half of the test split's (or the holdout split's) aimed prompts share no
 * word with their target. A file with a holdout split must hold only that split, at least 120 aimed
 * and 120 everyday prompts, and aim at every memory at least once.
 * @module
 */

const DEFAULT_FILE = new URL("../bench/data/paraphrase/paraphrase.json", import.meta.url);

const MEMORY_TYPES = ["fact", "rule", "decision", "feedback", "context", "bootstrap"];
const KINDS = [
  "web-service",
  "data-pipeline",
  "infrastructure",
  "mobile-app",
  "cli-tool",
  "ml-training",
  "firmware",
  "game",
];
const SPLITS = [
  "dev",
  "test",
  "holdout",
  "holdout2",
  "holdout3",
  "holdout4",
  "holdout5",
  "holdout6",
  "holdout7",
  "holdout8",
  "holdout9",
  "holdout10",
  "holdout11",
];
const HOLDOUT_SPLITS = [
  "holdout",
  "holdout2",
  "holdout3",
  "holdout4",
  "holdout5",
  "holdout6",
  "holdout7",
  "holdout8",
  "holdout9",
  "holdout10",
  "holdout11",
];
const MIN_AIMED_TEST = 150;
const MIN_EVERYDAY_TEST = 150;
const MIN_AIMED_ALL = 180;
const MIN_EVERYDAY_ALL = 180;
const MIN_AIMED_HOLDOUT = 120;
const MIN_EVERYDAY_HOLDOUT = 120;

/**
 * English stop words (the NLTK list) plus conversational fillers and the most generic verbs a
 * developer uses to address an agent (use, need, make, get, ...).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself " +
    "she her hers herself it its itself they them their theirs themselves what which who whom " +
    "this that these those am is are was were be been being have has had having do does did " +
    "doing a an the and but if or because as until while of at by for with about against " +
    "between into through during before after above below to from up down in out on off over " +
    "under again further then once here there when where why how all any both each few more " +
    "most other some such no nor not only own same so than too very s t can will just don " +
    "should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn " +
    "mustn needn shan shouldn wasn weren won wouldn " +
    // conversational fillers and generic verbs
    "please thanks thank hey hi ok okay yeah yes also could would might may must shall " +
    "let lets get gets got getting make makes made making use uses used using need needs " +
    "want wants go goes going know see look think try like still even really actually " +
    "something anything thing things way one ones us im ive id youre thats whats dont cant " +
    "again"
  ).split(/\s+/).filter((w) => w.length > 0),
);

const SUFFIXES = [
  "ational",
  "ations",
  "ation",
  "ments",
  "ment",
  "ings",
  "ing",
  "ions",
  "ion",
  "ities",
  "ity",
  "ness",
  "ers",
  "er",
  "ies",
  "ied",
  "es",
  "ed",
  "ly",
  "s",
];

/**
 * Cuts the first matching suffix when at least 3 letters remain (2 for a plural "s", so PRs is
 * PR; never after another "s"); ies/ied become y.
 */
export function stem(word: string): string {
  for (const suffix of SUFFIXES) {
    const keep = suffix === "s" ? (word.endsWith("ss") ? 99 : 2) : 3;
    if (word.endsWith(suffix) && word.length - suffix.length >= keep) {
      const base = word.slice(0, word.length - suffix.length);
      return suffix === "ies" || suffix === "ied" ? base + "y" : base;
    }
  }
  return word;
}

/** The stems of a text's informative words. */
export function informativeStems(text: string): Set<string> {
  const out = new Set<string>();
  for (const token of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (token.length < 2 || STOP_WORDS.has(token)) continue;
    out.add(stem(token));
  }
  return out;
}

function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short);
}

/** The prompt's stems that count as shared with the memory's. */
export function sharedStems(prompt: string, memory: string): string[] {
  const mem = [...informativeStems(memory)];
  return [...informativeStems(prompt)].filter((p) => mem.some((m) => sameWord(p, m)));
}

interface Memory {
  id: string;
  content: string;
  type: string;
  scope: string;
  tags?: string[];
}
interface Project {
  name: string;
  kind: string;
  memories: Memory[];
}
interface Prompt {
  id: string;
  project: string;
  text: string;
  target: string | null;
  also?: string[];
  split: string;
  shares_word: boolean;
}
interface DataSet {
  version: number;
  projects: Project[];
  globals: Memory[];
  prompts: Prompt[];
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function checkMemory(m: unknown, where: string, scope: string, errors: string[]): void {
  if (!isRecord(m)) return void errors.push(`${where}: not an object`);
  if (typeof m.id !== "string" || m.id === "") errors.push(`${where}.id: a non-empty string`);
  if (typeof m.content !== "string" || m.content.trim() === "") {
    errors.push(`${where}.content: a non-empty string`);
  }
  if (!MEMORY_TYPES.includes(m.type as string)) {
    errors.push(`${where}.type: one of ${MEMORY_TYPES.join(", ")}`);
  }
  if (m.scope !== scope) errors.push(`${where}.scope: must be "${scope}"`);
  if (
    m.tags !== undefined &&
    !(Array.isArray(m.tags) && m.tags.every((t) => typeof t === "string" && t !== ""))
  ) errors.push(`${where}.tags: an array of non-empty strings`);
}

/** Validates the shape; returns the list of errors (empty when valid). */
export function validate(data: unknown): string[] {
  const errors: string[] = [];
  if (!isRecord(data)) return ["top level: an object"];
  if (data.version !== 1) errors.push("version: must be 1");
  if (!Array.isArray(data.projects)) errors.push("projects: an array");
  if (!Array.isArray(data.globals)) errors.push("globals: an array");
  if (!Array.isArray(data.prompts)) errors.push("prompts: an array");
  if (errors.length > 0) return errors;
  const ds = data as unknown as DataSet;
  const memoryProject = new Map<string, string | null>();
  const addId = (id: string, project: string | null, where: string) => {
    if (memoryProject.has(id)) errors.push(`${where}.id: duplicate memory id ${id}`);
    memoryProject.set(id, project);
  };
  const names = new Set<string>();
  ds.projects.forEach((p, i) => {
    const where = `projects[${i}]`;
    if (!isRecord(p)) return void errors.push(`${where}: not an object`);
    if (typeof p.name !== "string" || p.name === "") errors.push(`${where}.name: a string`);
    if (names.has(p.name)) errors.push(`${where}.name: duplicate project ${p.name}`);
    names.add(p.name);
    if (!KINDS.includes(p.kind)) errors.push(`${where}.kind: one of ${KINDS.join(", ")}`);
    if (!Array.isArray(p.memories)) return void errors.push(`${where}.memories: an array`);
    p.memories.forEach((m, j) => {
      checkMemory(m, `${where}.memories[${j}]`, "project", errors);
      if (isRecord(m)) addId(m.id, p.name, `${where}.memories[${j}]`);
    });
  });
  ds.globals.forEach((m, j) => {
    checkMemory(m, `globals[${j}]`, "global", errors);
    if (isRecord(m)) addId(m.id, null, `globals[${j}]`);
  });
  const promptIds = new Set<string>();
  const texts = new Set<string>();
  ds.prompts.forEach((p, i) => {
    const where = `prompts[${i}]`;
    if (!isRecord(p)) return void errors.push(`${where}: not an object`);
    if (typeof p.id !== "string" || p.id === "") errors.push(`${where}.id: a non-empty string`);
    if (promptIds.has(p.id)) errors.push(`${where}.id: duplicate prompt id ${p.id}`);
    promptIds.add(p.id);
    if (!names.has(p.project)) errors.push(`${where}.project: unknown project ${p.project}`);
    if (typeof p.text !== "string" || p.text.trim() === "") {
      errors.push(`${where}.text: a non-empty string`);
    } else {
      const key = `${p.project}\n${p.text.trim().toLowerCase()}`;
      if (texts.has(key)) errors.push(`${where}.text: duplicate text in ${p.project}`);
      texts.add(key);
    }
    if (!SPLITS.includes(p.split)) errors.push(`${where}.split: one of ${SPLITS.join(", ")}`);
    if (typeof p.shares_word !== "boolean") errors.push(`${where}.shares_word: a boolean`);
    const inScope = (id: unknown) =>
      typeof id === "string" && memoryProject.has(id) &&
      (memoryProject.get(id) === null || memoryProject.get(id) === p.project);
    if (p.target === null) {
      if (p.also !== undefined) errors.push(`${where}.also: only for aimed prompts`);
      if (p.shares_word !== false) errors.push(`${where}.shares_word: false for everyday`);
    } else if (!inScope(p.target)) {
      errors.push(`${where}.target: ${p.target} is not a memory of ${p.project} or a global`);
    }
    if (p.also !== undefined) {
      if (!Array.isArray(p.also) || p.also.length === 0 || !p.also.every(inScope)) {
        errors.push(`${where}.also: a non-empty array of memory ids of ${p.project} or globals`);
      } else if (p.also.includes(p.target as string)) {
        errors.push(`${where}.also: must not repeat the target`);
      }
    }
  });
  return errors;
}

function pct(n: number, d: number): string {
  return d === 0 ? "-" : `${(100 * n / d).toFixed(1)} %`;
}

async function main(): Promise<number> {
  const args = Deno.args.filter((a) => !a.startsWith("--"));
  const flags = new Set(Deno.args.filter((a) => a.startsWith("--")));
  for (const f of flags) {
    if (!["--write", "--verbose", "--draft"].includes(f)) {
      console.error(`unknown flag ${f} (--write, --verbose, --draft)`);
      return 2;
    }
  }
  const file = args[0] ?? DEFAULT_FILE;
  const data: unknown = JSON.parse(await Deno.readTextFile(file));
  const errors = validate(data);
  if (errors.length > 0) {
    for (const e of errors) console.error(`invalid: ${e}`);
    return 1;
  }
  const ds = data as DataSet;
  const content = new Map<string, string>();
  for (const p of ds.projects) for (const m of p.memories) content.set(m.id, m.content);
  for (const m of ds.globals) content.set(m.id, m.content);

  const problems: string[] = [];
  const rows: Record<string, Record<string, number>> = {};
  const bump = (row: string, col: string) => {
    rows[row] ??= {};
    rows[row][col] = (rows[row][col] ?? 0) + 1;
  };
  let changed = 0;
  for (const p of ds.prompts) {
    const kind = p.target === null ? "everyday" : "aimed";
    bump(`${p.project}`, `${p.split} ${kind}`);
    bump("total", `${p.split} ${kind}`);
    if (p.target === null) continue;
    const shared = sharedStems(p.text, content.get(p.target) ?? "");
    const shares = shared.length > 0;
    if (shares) bump("total", `${p.split} aimed sharing`);
    if (flags.has("--verbose")) {
      console.log(`${p.id} -> ${p.target}: ${shares ? "shares " + shared.join(",") : "none"}`);
    }
    if (p.shares_word !== shares) {
      if (flags.has("--write")) {
        p.shares_word = shares;
        changed++;
      } else problems.push(`${p.id}: shares_word is ${p.shares_word}, computed ${shares}`);
    }
  }
  console.log(
    `projects: ${
      ds.projects.map((p) => `${p.name} (${p.kind}, ${p.memories.length} memories)`).join("; ")
    }`,
  );
  console.log(`globals: ${ds.globals.length} memories`);
  const holdoutSplit = HOLDOUT_SPLITS.find((s) => ds.prompts.some((p) => p.split === s));
  const holdout = holdoutSplit !== undefined;
  const splits = holdoutSplit ? [holdoutSplit] : ["dev", "test"];
  const cols = splits.flatMap((s) => [`${s} aimed`, `${s} everyday`]);
  const width = (c: string) => Math.max(14, c.length + 2);
  console.log(["", ...cols].map((c, i) => i === 0 ? c.padEnd(16) : c.padStart(width(c))).join(""));
  const order = [...ds.projects.map((p) => p.name), "total"];
  for (const row of order) {
    const v = rows[row] ?? {};
    console.log(
      [row.padEnd(16), ...cols.map((c) => String(v[c] ?? 0).padStart(width(c)))].join(""),
    );
  }
  const t = rows.total ?? {};
  for (const split of splits) {
    const aimed = t[`${split} aimed`] ?? 0;
    const none = aimed - (t[`${split} aimed sharing`] ?? 0);
    console.log(
      `${split}: ${none} of ${aimed} aimed prompts share no informative word (${pct(none, aimed)})`,
    );
  }
  const judged = holdoutSplit ?? "test";
  const testAimed = t[`${judged} aimed`] ?? 0;
  const testNone = testAimed - (t[`${judged} aimed sharing`] ?? 0);
  if (testNone * 2 < testAimed) {
    problems.push(`fewer than half of the ${judged} aimed prompts share nothing`);
  }
  if (holdout) {
    if (ds.prompts.some((p) => p.split !== holdoutSplit)) {
      problems.push(`a file with a ${holdoutSplit} split holds no other split`);
    }
    const aimedAt = new Set(ds.prompts.map((p) => p.target));
    const missed = [...content.keys()].filter((id) => !aimedAt.has(id));
    if (missed.length > 0) problems.push(`memories no prompt aims at: ${missed.join(", ")}`);
    if (!flags.has("--draft")) {
      const everyday = t[`${holdoutSplit} everyday`] ?? 0;
      if (testAimed < MIN_AIMED_HOLDOUT) {
        problems.push(`${holdoutSplit} aimed: ${testAimed} < ${MIN_AIMED_HOLDOUT}`);
      }
      if (everyday < MIN_EVERYDAY_HOLDOUT) {
        problems.push(`${holdoutSplit} everyday: ${everyday} < ${MIN_EVERYDAY_HOLDOUT}`);
      }
    }
  } else if (!flags.has("--draft")) {
    const all = (k: string) => (t[`dev ${k}`] ?? 0) + (t[`test ${k}`] ?? 0);
    if (testAimed < MIN_AIMED_TEST) problems.push(`test aimed: ${testAimed} < ${MIN_AIMED_TEST}`);
    if ((t["test everyday"] ?? 0) < MIN_EVERYDAY_TEST) {
      problems.push(`test everyday: ${t["test everyday"] ?? 0} < ${MIN_EVERYDAY_TEST}`);
    }
    if (all("aimed") < MIN_AIMED_ALL) problems.push(`aimed: ${all("aimed")} < ${MIN_AIMED_ALL}`);
    if (all("everyday") < MIN_EVERYDAY_ALL) {
      problems.push(`everyday: ${all("everyday")} < ${MIN_EVERYDAY_ALL}`);
    }
  }
  if (flags.has("--write") && changed > 0) {
    await Deno.writeTextFile(file, JSON.stringify(ds, null, 2) + "\n");
    console.log(`wrote shares_word for ${changed} prompts; run deno fmt on the file`);
  }
  for (const p of problems) console.error(`FAIL: ${p}`);
  return problems.length > 0 ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
