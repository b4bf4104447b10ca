/**
 * `deno run -A --lock=tests/deno.lock tasks/lexicon_probe.ts --lexicons NAME=FILE[:PER[:WORDS]],…
 *   [--sets paraphrase,holdout,…] [--model on|off] [--locomo on|off] [--data DIR] [--tag T]`
 *
 * A measurement: would a write-time expansion **without a model**, the published descriptions
 * of the tool and library names a memory holds (tasks/lexicon_build.ts: npm's, PyPI's and
 * Debian's own words for each package: "pnpm" → "Fast, disk space efficient package manager"),
 * lift recall on meaning as the model's phrases do (docs/recall.md, "After 0.20: published package descriptions
 * as expansion")?
 *
 * Each lexicon (`--lexicons`: a name, the JSON a build wrote, the most descriptions kept per name
 * PER (default 1) and the most words kept of each WORDS (default 12); the name `categories`
 * with no file reads src/domain/categories.ts, the hand-written table of the dense leg, each
 * name's category words as one phrase) gives each memory the descriptions of the names it holds
 * (words of letters and digits, joined by `. - _`, keyed as the categories are, looked up whole
 * and then by their parts), at most 10 phrases. They are written **through the product's
 * expansion slot** (`SqlMemoryService.expansionTarget().storeExpansions`, as the model's
 * worker writes them): indexed beside the content, read by the ranking and the confidence
 * (calibrated for expanded memories), never returned or injected.
 *
 * Stores per project (fresh, as bench:recall builds them): **plain**; each lexicon; with
 * `--model on`, for the sets that have recorded model answers (bench/data/expansions/), **model**
 * (the recorded phrases) and **model+<lexicon>** (the model's phrases, then the lexicon's, at
 * most 10; the first lexicon only). Every prompt is asked of every store (the MCP `recall` tool at limit 5, the hook
 * at the default floor and over higher floors), and with `--locomo on` LoCoMo dev's questions in
 * their own conversation (aimed) and the next one (everyday). Prints a table per set, the
 * leave-one-set-out choice of lexicon (the one of most aimed tool hits on the other sets, among
 * those whose everyday rate there does not rise over plain's), and writes
 * bench/results/lexicon-<time>[-tag].json. Frozen splits not run yet are refused.
 */
import { benchArgs, LOCOMO_DEV } from "./lib/args.ts";
import {
  importProject,
  loadParaphrase,
  memoryKey,
  type ParaphraseSet,
  promptsOf,
  type Split,
  SPLITS,
  targetsOf,
  UNRUN_SPLITS,
} from "./paraphrase.ts";
import { loadVersion, type OpenVersion, openVersion, type Version } from "./lib/versions.ts";
import { askedQuestions, importConversations, loadData } from "./locomo.ts";
import type { SearchResult } from "../src/memory/types.ts";
import type { SqlMemoryService } from "../src/memory/service.ts";
import type { ExpansionReport } from "../src/memory/expansion.ts";
import { categoryKey, categoryTable } from "../src/domain/categories.ts";

const USAGE = "deno run -A --lock=tests/deno.lock tasks/lexicon_probe.ts --lexicons " +
  "NAME=FILE[:PER[:WORDS]],… [--sets paraphrase,holdout,…] [--model on|off] [--locomo on|off] " +
  "[--data DIR] [--tag T]";
const values = benchArgs(USAGE, {
  lexicons: { type: "string" },
  sets: { type: "string", default: "paraphrase,holdout,holdout2,holdout3,holdout4,holdout5" },
  model: { type: "string", default: "on" },
  locomo: { type: "string", default: "on" },
  data: { type: "string", default: LOCOMO_DEV },
  tag: { type: "string", default: "" },
});
const fail = (m: string): never => {
  console.error(`${m}\nusage: ${USAGE}`);
  Deno.exit(2);
};
const sets = values.sets!.split(",").filter(Boolean);
for (const s of sets) {
  if (s !== "paraphrase" && (!SPLITS.includes(s as Split) || s === "dev" || s === "test")) {
    fail(`--sets: ${s} is not paraphrase or a holdout set`);
  }
  if (UNRUN_SPLITS.includes(s as Split)) fail(`--sets: ${s} is a frozen split not run yet`);
}
const splitsOf = (name: string): Split[] =>
  name === "paraphrase" ? ["dev", "test"] : [name as Split];

/** A lexicon: name → descriptions, with how many and how much of each are kept. */
interface Lexicon {
  name: string;
  table: Map<string, string[]>;
  per: number;
  words: number;
}
async function loadLexicon(spec: string): Promise<Lexicon> {
  const m = spec.match(/^([\w+.-]+)=([^:]*)(?::(\d+))?(?::(\d+))?$/);
  if (!m) return fail(`--lexicons: ${spec}: expected NAME=FILE[:PER[:WORDS]]`);
  const [, name, file, per, words] = m;
  const table = new Map<string, string[]>();
  if (name === "categories" && !file) {
    for (const [k, ws] of categoryTable()) table.set(k, [ws.join(" ")]);
  } else {
    const raw = JSON.parse(await Deno.readTextFile(file)) as Record<string, string[]>;
    for (const [k, v] of Object.entries(raw)) table.set(k, v);
  }
  return { name, table, per: Number(per ?? 1), words: Number(words ?? 12) };
}
if (!values.lexicons) fail("--lexicons: required");
const lexicons = await Promise.all(values.lexicons!.split(",").map(loadLexicon));

/** The most phrases of a memory (the model's cap, src/memory/expansion.ts MAX_PHRASES). */
const MAX = 10;

/** The lexicon's phrases for a text: each name's descriptions, in text order, once. */
function phrasesOf(lex: Lexicon, text: string): string[] {
  const keys: string[] = [];
  const tokens = text.normalize("NFKC").match(/[\p{L}\p{N}]+(?:[._\-][\p{L}\p{N}]+)*/gu) ?? [];
  for (const t of tokens) {
    const whole = categoryKey(t);
    if (lex.table.has(whole)) keys.push(whole);
    else {
      for (const part of t.split(/[._\-]/)) {
        const k = categoryKey(part);
        if (lex.table.has(k)) keys.push(k);
      }
    }
  }
  const out: string[] = [];
  for (const k of new Set(keys)) {
    for (const d of lex.table.get(k)!.slice(0, lex.per)) {
      const p = d.split(/\s+/).slice(0, lex.words).join(" ").replace(/;/g, ",");
      if (p && !out.includes(p)) out.push(p);
    }
  }
  return out.slice(0, MAX);
}

/** Recorded model phrases of a set, by memory id (bench/data/expansions/), or null. */
async function modelPhrases(set: string): Promise<Record<string, { phrases: string[] }> | null> {
  if (values.model !== "on") return null;
  try {
    return JSON.parse(await Deno.readTextFile(`bench/data/expansions/${set}.json`));
  } catch {
    return null;
  }
}

const noReport = () => ({}) as ExpansionReport;
/** Write `phrasesOf(content)` as the expansion of every memory of `service` that has some. */
async function expandAll(
  service: SqlMemoryService,
  phrases: (content: string) => string[],
): Promise<number> {
  const target = service.expansionTarget(noReport);
  const pending = await target.expansionPending(100_000, []);
  const items = pending.flatMap((m) => {
    const p = phrases(m.content);
    return p.length
      ? [{ id: m.id, content: m.content, expansion: p.join("; "), model: "probe" }]
      : [];
  });
  for (let i = 0; i < items.length; i += 200) {
    await target.storeExpansions(items.slice(i, i + 200));
  }
  return items.length;
}

const FLOORS = [0.9, 0.92, 0.94, 0.96];
interface Outcome {
  tool_hit5: boolean;
  hook_hit: boolean;
  injected: boolean;
  floors: [boolean, boolean][];
}
async function ask(
  o: OpenVersion,
  isTarget: ((r: SearchResult) => boolean) | null,
  project: string,
  text: string,
  toolToo = true,
): Promise<Outcome> {
  const top = toolToo ? await o.recall(text, project, 5) : [];
  const hook = await o.hook(text, project);
  const { recall } = o.version.mods;
  const floors = FLOORS.map((minConfidence): [boolean, boolean] => {
    const t: string = recall.formatRecall(hook.results, {
      project,
      limit: recall.DEFAULT_RECALL_LIMIT,
      maxChars: recall.DEFAULT_RECALL_MAX_CHARS,
      minScore: recall.DEFAULT_MIN_SCORE,
      minConfidence,
    });
    return [!!isTarget && hook.results.some((r) => t.includes(r.memory.id) && isTarget(r)), !!t];
  });
  return {
    tool_hit5: !!isTarget && top.slice(0, 5).some(isTarget),
    hook_hit: !!isTarget &&
      hook.results.some((r) => hook.text.includes(r.memory.id) && isTarget(r)),
    injected: hook.text.length > 0,
    floors,
  };
}

const tree = await loadVersion(new URL("../", import.meta.url), "this tree");
interface Row {
  set: string;
  id: string;
  aimed: boolean;
  shares_word: boolean | null;
  out: Record<string, Outcome>;
}
const rows: Row[] = [];
/** Memories given phrases, per set and store. */
const coverage: Record<string, Record<string, { memories: number; expanded: number }>> = {};
const examples: Record<string, Record<string, string[]>> = {};
let flip = false;

for (const name of sets) {
  const set: ParaphraseSet = await loadParaphrase(`bench/data/paraphrase/${name}.json`);
  const model = await modelPhrases(name);
  const byContent = new Map<string, string[]>();
  if (model) {
    for (const m of [...set.projects.flatMap((p) => p.memories), ...set.globals]) {
      byContent.set(m.content.trim(), model[m.id]?.phrases ?? []);
    }
  }
  const stores: [string, ((c: string) => string[]) | null][] = [["plain", null]];
  for (const l of lexicons) stores.push([l.name, (c) => phrasesOf(l, c)]);
  if (model) {
    stores.push(["model", (c) => byContent.get(c.trim()) ?? []]);
    for (const l of lexicons.slice(0, 1)) {
      stores.push([`model+${l.name}`, (c) => {
        const mine = byContent.get(c.trim()) ?? [];
        return [...mine, ...phrasesOf(l, c).filter((p) => !mine.includes(p))].slice(0, MAX);
      }]);
    }
  }
  coverage[name] = {};
  examples[name] = {};
  for (const l of lexicons) {
    const ms = [...set.projects.flatMap((p) => p.memories), ...set.globals];
    examples[name][l.name] = ms.slice(0, 400).flatMap((m) => {
      const p = phrasesOf(l, m.content);
      return p.length ? [`${m.id}: ${p.join("; ")}`] : [];
    });
  }
  for (const project of set.projects.map((p) => p.name)) {
    const opens: Record<string, OpenVersion> = {};
    const keys: Record<string, Map<string, string>> = {};
    for (const [s, f] of stores) {
      opens[s] = await openVersion({ ...tree, name: s } as Version);
      keys[s] = await importProject(opens[s].service, set, project);
      const n = f ? await expandAll(opens[s].service as SqlMemoryService, f) : 0;
      const c = coverage[name][s] ??= { memories: 0, expanded: 0 };
      c.memories += keys[s].size;
      c.expanded += n;
    }
    for (const p of splitsOf(name).flatMap((split) => promptsOf(set, split, project))) {
      const targets = targetsOf(p);
      flip = !flip;
      const order = flip ? [...stores].reverse() : stores;
      const out: Record<string, Outcome> = {};
      for (const [s] of order) {
        const isTarget = targets &&
          ((r: SearchResult) =>
            targets.has(keys[s].get(memoryKey(r.memory.scope, project, r.memory.content)) ?? ""));
        out[s] = await ask(opens[s], isTarget, project, p.text);
      }
      rows.push({
        set: name,
        id: p.id,
        aimed: targets !== null,
        shares_word: typeof p.shares_word === "boolean" ? p.shares_word : null,
        out,
      });
    }
    for (const o of Object.values(opens)) await o.close();
  }
  console.error(`${name}: done (${new Date().toISOString()})`);
}

if (values.locomo === "on") {
  const convs = await loadData(values.data!);
  const stores: [string, ((c: string) => string[]) | null][] = [
    ["plain", null],
    ...lexicons.map((l): [string, (c: string) => string[]] => [l.name, (c) => phrasesOf(l, c)]),
  ];
  const opens: Record<string, OpenVersion> = {};
  const ids: Record<string, Map<string, string[]>> = {};
  coverage.locomo = {};
  for (const [s, f] of stores) {
    opens[s] = await openVersion({ ...tree, name: s } as Version);
    ids[s] = await importConversations(opens[s].service, convs);
    const n = f ? await expandAll(opens[s].service as SqlMemoryService, f) : 0;
    coverage.locomo[s] = { memories: ids[s].size, expanded: n };
  }
  examples.locomo = {};
  for (const l of lexicons) {
    examples.locomo[l.name] = convs.flatMap((c) => c.turns).flatMap((t) => {
      const p = phrasesOf(l, t.text);
      return p.length ? [`${t.text.slice(0, 80)} → ${p.join("; ")}`] : [];
    }).slice(0, 60);
  }
  for (const [ci, c] of convs.entries()) {
    const next = convs[(ci + 1) % convs.length];
    for (const q of askedQuestions(c)) {
      const evidence = new Set(q.evidence);
      flip = !flip;
      const order = flip ? [...stores].reverse() : stores;
      const own: Record<string, Outcome> = {};
      const other: Record<string, Outcome> = {};
      for (const [s] of order) {
        const isEvidence = (r: SearchResult) =>
          (ids[s].get(`${c.name}\n${r.memory.content}`) ?? []).some((d) => evidence.has(d));
        own[s] = await ask(opens[s], isEvidence, c.name, q.question);
        other[s] = await ask(opens[s], null, next.name, q.question, false);
      }
      rows.push({
        set: "locomo",
        id: `${c.name}:${q.question}`,
        aimed: true,
        shares_word: null,
        out: own,
      });
      rows.push({
        set: "locomo",
        id: `${c.name}:${q.question}`,
        aimed: false,
        shares_word: null,
        out: other,
      });
    }
  }
  for (const o of Object.values(opens)) await o.close();
  console.error(`locomo: done (${new Date().toISOString()})`);
}

const r3 = (x: number) => +x.toFixed(3);
const share = (xs: Row[], f: (r: Row) => boolean) =>
  r3(xs.filter(f).length / Math.max(1, xs.length));
interface Figures {
  aimed: number;
  everyday: number;
  tool_hit5: number;
  hook_hit: number;
  everyday_injected: number;
  floors: { floor: number; hook_hit: number; everyday_injected: number }[];
  tool_gained: number;
  tool_lost: number;
  hook_gained: number;
  hook_lost: number;
  everyday_new: number;
  everyday_gone: number;
}
function figures(rs: Row[], s: string): Figures {
  const aimed = rs.filter((r) => r.aimed && r.out[s]);
  const everyday = rs.filter((r) => !r.aimed && r.out[s]);
  return {
    aimed: aimed.length,
    everyday: everyday.length,
    tool_hit5: share(aimed, (r) => r.out[s].tool_hit5),
    hook_hit: share(aimed, (r) => r.out[s].hook_hit),
    everyday_injected: share(everyday, (r) => r.out[s].injected),
    floors: FLOORS.map((floor, i) => ({
      floor,
      hook_hit: share(aimed, (r) => r.out[s].floors[i][0]),
      everyday_injected: share(everyday, (r) => r.out[s].floors[i][1]),
    })),
    tool_gained: aimed.filter((r) => !r.out.plain.tool_hit5 && r.out[s].tool_hit5).length,
    tool_lost: aimed.filter((r) => r.out.plain.tool_hit5 && !r.out[s].tool_hit5).length,
    hook_gained: aimed.filter((r) => !r.out.plain.hook_hit && r.out[s].hook_hit).length,
    hook_lost: aimed.filter((r) => r.out.plain.hook_hit && !r.out[s].hook_hit).length,
    everyday_new: everyday.filter((r) => !r.out.plain.injected && r.out[s].injected).length,
    everyday_gone: everyday.filter((r) => r.out.plain.injected && !r.out[s].injected).length,
  };
}
const groups = [...sets, ...(values.locomo === "on" ? ["locomo"] : [])];
const storeNames = [...new Set(rows.flatMap((r) => Object.keys(r.out)))];
const paraphraseRows = rows.filter((r) => r.set !== "locomo");
const table: Record<string, Record<string, Figures>> = {};
for (const g of [...groups, "all paraphrase sets"]) {
  const rs = g === "all paraphrase sets" ? paraphraseRows : rows.filter((r) => r.set === g);
  table[g] = {};
  for (const s of storeNames) if (rs.some((r) => r.out[s])) table[g][s] = figures(rs, s);
}
const f3 = (x: number) => x.toFixed(3);
console.log(
  "| set | store | aimed | tool hit@5 | hook aimed | everyday | everyday injected | tool +/− | " +
    "hook +/− | everyday new / gone | hook @0.92 | @0.94 |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const [g, byStore] of Object.entries(table)) {
  for (const [s, f] of Object.entries(byStore)) {
    console.log(
      `| ${g} | ${s} | ${f.aimed} | ${f3(f.tool_hit5)} | ${f3(f.hook_hit)} | ${f.everyday} | ${
        f3(f.everyday_injected)
      } | +${f.tool_gained} / −${f.tool_lost} | +${f.hook_gained} / −${f.hook_lost} | ${f.everyday_new} / ${f.everyday_gone} | ${
        f3(f.floors[1].hook_hit)
      } / ${f3(f.floors[1].everyday_injected)} | ${f3(f.floors[2].hook_hit)} / ${
        f3(f.floors[2].everyday_injected)
      } |`,
    );
  }
}
// Leave one set out: on the other paraphrase sets, the lexicon with the most aimed tool hits
// whose everyday injections do not exceed plain's; reported on the held-out set.
const loso = sets.map((held) => {
  const fit = paraphraseRows.filter((r) => r.set !== held);
  const plain = figures(fit, "plain");
  const ok = lexicons.map((l) => ({ l: l.name, f: figures(fit, l.name) }))
    .filter((x) => x.f.everyday_injected <= plain.everyday_injected)
    .sort((a, b) => b.f.tool_hit5 - a.f.tool_hit5 || b.f.hook_hit - a.f.hook_hit);
  const pick = ok[0]?.f.tool_hit5 > plain.tool_hit5 ? ok[0].l : "plain";
  return { held_out: held, pick, plain: table[held].plain, picked: table[held][pick] };
});
console.log("\nLeave one set out (the lexicon chosen on the other sets, on the held-out one):");
console.log("| held out | pick | plain hit@5 / hook / everyday | pick hit@5 / hook / everyday |");
console.log("|---|---|---|---|");
for (const l of loso) {
  const a = l.plain, b = l.picked;
  console.log(
    `| ${l.held_out} | ${l.pick} | ${f3(a.tool_hit5)} / ${f3(a.hook_hit)} / ${
      f3(a.everyday_injected)
    } | ${f3(b.tool_hit5)} / ${f3(b.hook_hit)} / ${f3(b.everyday_injected)} |`,
  );
}
console.log("\nMemories given phrases:", JSON.stringify(coverage));

const out = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  version: tree.version,
  load: Deno.loadavg(),
  sets,
  lexicons: values.lexicons,
  lexicon_sizes: Object.fromEntries(lexicons.map((l) => [l.name, l.table.size])),
  floors: FLOORS,
  coverage,
  table,
  leave_one_set_out: loso,
  examples,
  prompts: rows,
};
await Deno.mkdir("bench/results", { recursive: true });
const file = `bench/results/lexicon-${out.date.replace(/[:.]/g, "-")}${
  values.tag ? `-${values.tag}` : ""
}.json`;
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.error(`wrote ${file}`);
