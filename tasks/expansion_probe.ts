/**
 * `deno run -A --lock=tests/deno.lock tasks/expansion_probe.ts [--sets holdout3,holdout4,paraphrase]
 *   [--expansions DIR] [--prompt FILE] [--product] [--frozen-run]`
 *
 * A measurement, not a feature: would memories expanded at write time by a model (doc2query:
 * short alternative phrasings indexed beside the content, never shown) lift recall on meaning?
 * The expansions are recorded answers to tasks/expansion_prompt.md, one file per set under
 * bench/data/expansions/ (`{memoryId: {phrases: [...]}}`; README there says who wrote them and
 * seeing what). Nothing under src/ is changed.
 *
 * For each seen set (`--sets`, default holdout3, holdout4 and paraphrase:
 * bench/data/paraphrase/<set>.json, a holdout's split of the same name, paraphrase.json's dev and
 * test splits together), each project in two fresh stores of this tree's service, as
 * bench:recall builds them (tasks/lib/versions.ts `openVersion`, tasks/paraphrase.ts
 * `importProject`: the project's memories plus the global ones):
 *
 * - **plain**: the memories as they are;
 * - **expanded**: every memory stored with content `content + "\n" + phrases.join("; ")`. This
 *   is the simplest stand-in for a separate indexed field: the phrases reach every signal that
 *   reads the content (the lexical postings and corpus statistics, the dense vector, the word
 *   alignment, the confidence features, the memory's length), and they are also injected and
 *   returned with the memory, which a built field would not do;
 * - **rotated** (the control): every memory stored with the phrases of another memory of the same
 *   project (globals: of another global one), rotated by half the list: as long, in the same
 *   project's words, but not about the memory.
 *
 * Every prompt of the split is asked of both stores in turn (alternating which goes first): the
 * MCP `recall` tool at limit 5 (aimed: a hit when the target or an `also` memory is among the 5)
 * and the prompt hook at the default floor (its search and `formatRecall`; aimed: the target is
 * injected; everyday: anything injected), and the hook again over higher confidence floors
 * (the confidence was fitted on plain memories). Prints a table per set and for both together,
 * the split by `shares_word`, the prompts gained and lost, the floor sweep, a leave-one-set-out
 * floor for the expanded store (fitted on the other sets to inject on no more everyday prompts
 * than the plain store at the default floor) and the token cost of the instruction per memory
 * (characters / 4); writes bench/results/expansion-<time>.json.
 *
 * With `--product`, the third store is **product** instead of rotated: the feature as built
 * (`MEMORY_EXPANSION`, src/memory/expansion.ts): the memories imported as they are into a service
 * with expansion on, then expanded by the real worker, whose model is the fake Ollama of
 * tests/fakes/ replaying the recorded phrases of each memory (tests/fakes/expansions.ts) through
 * the product's Ollama client; the phrases reach the index and the confidence (calibrated for
 * expanded memories: src/memory/confidence.ts `expandedConfidence`), never the returned content.
 * Gains, losses and the leave-one-set-out floor then compare product with plain.
 *
 * Frozen splits not run yet (`UNRUN_SPLITS` in tasks/paraphrase.ts) are refused unless asked by
 * name with `--frozen-run` (once, beside bench:recall's run of the same split: its figures are
 * the record).
 */
import { benchArgs } from "./lib/args.ts";
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
import type { SearchResult } from "../src/memory/types.ts";
import type { SqlMemoryService } from "../src/memory/service.ts";
import { expandWithWorker, type Expansions, loadExpansions } from "./lib/expansion_replay.ts";

const USAGE = "deno run -A --lock=tests/deno.lock tasks/expansion_probe.ts " +
  "[--sets holdout3,holdout4,paraphrase] [--expansions DIR] [--prompt FILE] [--product] [--frozen-run]";
const values = benchArgs(USAGE, {
  sets: { type: "string", default: "holdout3,holdout4,paraphrase" },
  expansions: { type: "string", default: "bench/data/expansions" },
  prompt: { type: "string", default: "tasks/expansion_prompt.md" },
  product: { type: "boolean", default: false },
  "frozen-run": { type: "boolean", default: false },
});
const product = values.product === true;
const sets = values.sets!.split(",");
/** A set's splits: `paraphrase` is paraphrase.json's dev and test, a holdout its own split. */
const splitsOf = (name: string): Split[] =>
  name === "paraphrase" ? ["dev", "test"] : [name as Split];
for (const s of sets) {
  if (s !== "paraphrase" && (!SPLITS.includes(s as Split) || s === "dev" || s === "test")) {
    console.error(`--sets: ${s} is not paraphrase or a holdout set\nusage: ${USAGE}`);
    Deno.exit(2);
  }
  if (UNRUN_SPLITS.includes(s as Split) && !values["frozen-run"]) {
    console.error(`--sets: ${s} is a frozen split not run yet: add --frozen-run to run it (once)`);
    Deno.exit(2);
  }
}

/** The set with every memory's content followed by its phrases. */
function expand(set: ParaphraseSet, ex: Expansions): ParaphraseSet {
  const more = <M extends { id: string; content: string }>(m: M): M => ({
    ...m,
    content: `${m.content}\n${ex[m.id].phrases.join("; ")}`,
  });
  return {
    ...set,
    projects: set.projects.map((p) => ({ ...p, memories: p.memories.map(more) })),
    globals: set.globals.map(more),
  };
}

/**
 * The control: every memory gets the phrases of another memory of the same project (or of
 * another global one), rotated by half the list: as long and as much in the project's words as
 * the expansion, but not about the memory.
 */
function rotate(set: ParaphraseSet, ex: Expansions): Expansions {
  const out: Expansions = {};
  for (const list of [...set.projects.map((p) => p.memories), set.globals]) {
    const k = Math.floor(list.length / 2);
    list.forEach((m, i) => out[m.id] = ex[list[(i + k) % list.length].id]);
  }
  return out;
}

/** Confidence floors of the hook's sweep (the default first). */
const FLOORS = [0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99];

/** One prompt's outcome in one store. */
interface Outcome {
  tool_hit5: boolean;
  hook_hit: boolean;
  injected: boolean;
  injected_chars: number;
  /** The hook at each floor of {@link FLOORS}: [aimed memory injected, anything injected]. */
  floors: [boolean, boolean][];
}
interface PromptRow {
  set: string;
  id: string;
  split: string;
  project: string;
  aimed: boolean;
  shares_word: boolean | null;
  plain: Outcome;
  expanded: Outcome;
  rotated?: Outcome;
  product?: Outcome;
}
type Store = "plain" | "expanded" | "rotated" | "product";
const STORES: Store[] = ["plain", "expanded", product ? "product" : "rotated"];
/** The store compared with plain in the gains, losses and the leave-one-set-out floor. */
const VS: Store = product ? "product" : "expanded";

async function ask(
  o: OpenVersion,
  keys: Map<string, string>,
  project: string,
  text: string,
  targets: Set<string> | null,
): Promise<Outcome> {
  const idOf = (r: SearchResult) => keys.get(memoryKey(r.memory.scope, project, r.memory.content));
  const top = await o.recall(text, project, 5);
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
    return [
      !!targets && hook.results.some((r) => t.includes(r.memory.id) && targets.has(idOf(r) ?? "")),
      t.length > 0,
    ];
  });
  return {
    floors,
    tool_hit5: !!targets && top.slice(0, 5).some((r) => targets.has(idOf(r) ?? "")),
    hook_hit: !!targets &&
      hook.results.some((r) => hook.text.includes(r.memory.id) && targets.has(idOf(r) ?? "")),
    injected: hook.text.length > 0,
    injected_chars: hook.text.length,
  };
}

const tree = await loadVersion(new URL("../", import.meta.url), "this tree");
const asPlain: Version = { ...tree, name: "plain" };
const asExpanded: Version = { ...tree, name: "expanded" };
const asRotated: Version = { ...tree, name: "rotated" };
const asProduct: Version = { ...tree, name: "product" };
if (tree.mods.recall.DEFAULT_MIN_CONFIDENCE !== FLOORS[0]) {
  throw new Error(
    `the default floor is ${tree.mods.recall.DEFAULT_MIN_CONFIDENCE}, not ${
      FLOORS[0]
    }: update FLOORS`,
  );
}

/** Product calls and tokens (the fake's usage: characters / 4), over every project. */
const productCost = { calls: 0, tokens: 0, memories: 0 };

const rows: PromptRow[] = [];
const memoryCosts: { prompt_chars: number; answer_chars: number }[] = [];
const promptFile = await Deno.readTextFile(values.prompt!);
const system = promptFile.split(/^---$/m).slice(1).join("---").trim();
if (!system) throw new Error(`--prompt ${values.prompt}: no system part after a '---' line`);
let flip = false;
for (const name of sets) {
  const set = await loadParaphrase(`bench/data/paraphrase/${name}.json`);
  const splits = splitsOf(name);
  const ex = await loadExpansions(`${values.expansions}/${name}.json`, set);
  const big = expand(set, ex);
  const control = expand(set, rotate(set, ex));
  for (const p of set.projects) {
    for (const m of p.memories) {
      const user = JSON.stringify({ type: m.type, scope: "project", content: m.content });
      memoryCosts.push({
        prompt_chars: system.length + user.length,
        answer_chars: JSON.stringify({ phrases: ex[m.id].phrases }).length,
      });
    }
  }
  for (const g of set.globals) {
    const user = JSON.stringify({ type: g.type, scope: "global", content: g.content });
    memoryCosts.push({
      prompt_chars: system.length + user.length,
      answer_chars: JSON.stringify({ phrases: ex[g.id].phrases }).length,
    });
  }
  for (const project of set.projects.map((p) => p.name)) {
    const opens = {
      plain: await openVersion(asPlain),
      expanded: await openVersion(asExpanded),
      ...(product
        ? { product: await openVersion(asProduct, { expansion: { dailyTokens: 1e9 } }) }
        : { rotated: await openVersion(asRotated) }),
    } as Record<Store, Awaited<ReturnType<typeof openVersion>>>;
    const keys = {
      plain: await importProject(opens.plain.service, set, project),
      expanded: await importProject(opens.expanded.service, big, project),
      ...(product
        ? { product: await importProject(opens.product.service, set, project) }
        : { rotated: await importProject(opens.rotated.service, control, project) }),
    } as Record<Store, Map<string, string>>;
    if (product) {
      const cost = await expandWithWorker(opens.product.service as SqlMemoryService, set, ex);
      productCost.calls += cost.calls;
      productCost.tokens += cost.tokens;
      productCost.memories += cost.memories;
    }
    for (const p of splits.flatMap((split) => promptsOf(set, split, project))) {
      const targets = targetsOf(p);
      flip = !flip;
      const order = flip ? [...STORES].reverse() : STORES;
      const out = {} as Record<"plain" | "expanded", Outcome> & Partial<Record<Store, Outcome>>;
      for (const k of order) out[k] = await ask(opens[k], keys[k], project, p.text, targets);
      rows.push({
        set: name,
        id: p.id,
        split: p.split,
        project,
        aimed: targets !== null,
        shares_word: typeof p.shares_word === "boolean" ? p.shares_word : null,
        ...out,
      });
    }
    for (const o of Object.values(opens)) await o.close();
  }
}

const r3 = (x: number) => +x.toFixed(3);
const share = (xs: PromptRow[], f: (r: PromptRow) => boolean) =>
  r3(xs.filter(f).length / Math.max(1, xs.length));
interface Figures {
  tool_hit5: number;
  hook_hit: number;
  everyday_injected: number;
  chars_aimed: number;
  /** The hook at each floor of {@link FLOORS}. */
  floors: { floor: number; hook_hit: number; everyday_injected: number }[];
}
interface Summary {
  group: string;
  aimed: number;
  everyday: number;
  by_store: Record<Store, Figures>;
  /** Prompts of `expanded` against `plain`. */
  tool_gained: string[];
  tool_lost: string[];
  hook_gained: string[];
  hook_lost: string[];
  everyday_newly_injected: string[];
  everyday_no_longer_injected: string[];
}
function summary(group: string, rs: PromptRow[]): Summary {
  const aimed = rs.filter((r) => r.aimed);
  const everyday = rs.filter((r) => !r.aimed);
  const of = (k: Store): Figures => ({
    tool_hit5: share(aimed, (r) => r[k]!.tool_hit5),
    hook_hit: share(aimed, (r) => r[k]!.hook_hit),
    everyday_injected: share(everyday, (r) => r[k]!.injected),
    chars_aimed: Math.round(
      aimed.reduce((n, r) => n + r[k]!.injected_chars, 0) / Math.max(1, aimed.length),
    ),
    floors: FLOORS.map((floor, i) => ({
      floor,
      hook_hit: share(aimed, (r) => r[k]!.floors[i][0]),
      everyday_injected: share(everyday, (r) => r[k]!.floors[i][1]),
    })),
  });
  const ids = (xs: PromptRow[], f: (r: PromptRow) => boolean) =>
    xs.filter(f).map((r) => `${r.set}:${r.id}`);
  return {
    group,
    aimed: aimed.length,
    everyday: everyday.length,
    by_store: Object.fromEntries(STORES.map((k) => [k, of(k)])) as Record<Store, Figures>,
    tool_gained: ids(aimed, (r) => !r.plain.tool_hit5 && r[VS]!.tool_hit5),
    tool_lost: ids(aimed, (r) => r.plain.tool_hit5 && !r[VS]!.tool_hit5),
    hook_gained: ids(aimed, (r) => !r.plain.hook_hit && r[VS]!.hook_hit),
    hook_lost: ids(aimed, (r) => r.plain.hook_hit && !r[VS]!.hook_hit),
    everyday_newly_injected: ids(everyday, (r) => !r.plain.injected && r[VS]!.injected),
    everyday_no_longer_injected: ids(everyday, (r) => r.plain.injected && !r[VS]!.injected),
  };
}

const groups: [string, PromptRow[]][] = [
  ...sets.map((s) => [s, rows.filter((r) => r.set === s)] as [string, PromptRow[]]),
  ["all", rows],
  ["all, aimed sharing no word", rows.filter((r) => !r.aimed || r.shares_word === false)],
  ["all, aimed sharing a word", rows.filter((r) => !r.aimed || r.shares_word === true)],
];
const summaries = groups.map(([g, rs]) => summary(g, rs));

const f3 = (x: number) => x.toFixed(3);
console.log(
  "| set | aimed | store | tool hit@5 | hook aimed injected | everyday | everyday injected | " +
    "chars injected / aimed prompt |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const s of summaries) {
  for (const k of STORES) {
    const f = s.by_store[k];
    console.log(
      `| ${s.group} | ${s.aimed} | ${k} | ${f3(f.tool_hit5)} | ${
        f3(f.hook_hit)
      } | ${s.everyday} | ${f3(f.everyday_injected)} | ${f.chars_aimed} |`,
    );
  }
}
console.log(`\n${VS === "product" ? "Product" : "Expanded"} against plain, prompts:`);
console.log("| set | tool +/− | hook +/− | everyday newly injected / no longer |");
console.log("|---|---|---|---|");
for (const s of summaries) {
  console.log(
    `| ${s.group} | +${s.tool_gained.length} / −${s.tool_lost.length} | +${s.hook_gained.length} / −${s.hook_lost.length} | ${s.everyday_newly_injected.length} / ${s.everyday_no_longer_injected.length} |`,
  );
}
console.log("\nThe hook over confidence floors (aimed injected / everyday injected):");
console.log(`| set | store | ${FLOORS.join(" | ")} |`);
console.log(`|---|---|${FLOORS.map(() => "---").join("|")}|`);
for (const s of summaries.slice(0, sets.length + 1)) {
  for (const k of STORES) {
    const cells = s.by_store[k].floors.map((x) => `${f3(x.hook_hit)} / ${f3(x.everyday_injected)}`);
    console.log(`| ${s.group} | ${k} | ${cells.join(" | ")} |`);
  }
}
// Leave one set out: the expanded store's floor chosen on the other set(s) as the lowest that
// injects on no more everyday prompts than the plain store at the default floor there.
const loso = sets.length > 1
  ? sets.map((held) => {
    const fit = summary("fit", rows.filter((r) => r.set !== held));
    const target = fit.by_store.plain.everyday_injected;
    const i = FLOORS.findIndex((_, j) => fit.by_store[VS].floors[j].everyday_injected <= target);
    const at = i < 0 ? FLOORS.length - 1 : i;
    const here = summaries.find((x) => x.group === held)!;
    return {
      held_out: held,
      floor: FLOORS[at],
      plain_default: {
        hook_hit: here.by_store.plain.hook_hit,
        everyday_injected: here.by_store.plain.everyday_injected,
      },
      expanded_at_floor: {
        store: VS,
        hook_hit: here.by_store[VS].floors[at].hook_hit,
        everyday_injected: here.by_store[VS].floors[at].everyday_injected,
      },
    };
  })
  : [];
if (loso.length) {
  console.log(
    "\nLeave one set out: the expanded store's floor fitted on the other sets (everyday injected " +
      "≤ plain at the default floor there), applied to the held-out set:",
  );
  console.log("| held out | floor | plain hook / everyday | expanded hook / everyday |");
  console.log("|---|---|---|---|");
  for (const l of loso) {
    console.log(
      `| ${l.held_out} | ${l.floor} | ${f3(l.plain_default.hook_hit)} / ${
        f3(l.plain_default.everyday_injected)
      } | ${f3(l.expanded_at_floor.hook_hit)} / ${f3(l.expanded_at_floor.everyday_injected)} |`,
    );
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const cost = {
  memories: memoryCosts.length,
  prompt_tokens_mean: Math.round(mean(memoryCosts.map((c) => c.prompt_chars)) / 4),
  answer_tokens_mean: Math.round(mean(memoryCosts.map((c) => c.answer_chars)) / 4),
  system_tokens: Math.round(system.length / 4),
};
if (product) {
  console.log(
    `Product worker: ${productCost.memories} memories expanded in ${productCost.calls} calls, ` +
      `${productCost.tokens} tokens (the fake's usage, characters / 4): ${
        Math.round(productCost.tokens / Math.max(1, productCost.memories))
      } a memory`,
  );
}
console.log(
  `\nToken cost per memory (characters / 4), over ${cost.memories} memories: prompt ` +
    `${cost.prompt_tokens_mean} (of which the instruction ${cost.system_tokens}), answer ` +
    `${cost.answer_tokens_mean}`,
);

const out = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  version: tree.version,
  load: Deno.loadavg(),
  sets,
  expansions: values.expansions,
  prompt: values.prompt,
  stand_in: "expanded content = content + '\\n' + phrases.join('; '); rotated: the phrases " +
    "of another memory of the same project (or globals), rotated by half the list",
  token_cost: cost,
  ...(product
    ? {
      product:
        "the third store is the feature as built: expansion on, the real worker and index, " +
        "the fake Ollama replaying the recorded phrases (rotated not run)",
      product_cost: productCost,
    }
    : {}),
  floors: FLOORS,
  summaries,
  leave_one_set_out: loso,
  prompts: rows,
};
await Deno.mkdir("bench/results", { recursive: true });
const file = `bench/results/expansion-${out.date.replace(/[:.]/g, "-")}.json`;
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.error(`wrote ${file}`);
