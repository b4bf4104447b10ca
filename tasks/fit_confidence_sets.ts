/**
 * `deno task fit:confidence:sets [--data DIR] [--paraphrase FILE:SPLIT ...] [--groups FILE]`
 *
 * Refits the confidence (src/memory/confidence.ts) on several sets and scores it **leave one
 * set out**: every set in turn is held out, the coefficients are fitted on the others, and the
 * held-out set is scored with them: per held-out set the prompt hook's aimed-injected rate
 * (the target among the results shown) and everyday-injected rate at floors 0.70–0.95, and
 * AUC (floor 0: the ceiling, the target among the first 5 results of score ≥ the hook's score
 * floor, whatever the confidence). The sets: each `--paraphrase FILE:SPLIT` (default the paraphrase set's dev and test
 * splits, holdout.json's holdout, holdout2.json's holdout2 and holdout3.json's holdout3) and
 * LoCoMo dev (`--data`, default `../shared/data/locomo-dev` beside the repository). The
 * defaults are found from this file, not from the current directory (`deno run` from
 * elsewhere reads the same sets); a path given on the command line is the caller's.
 *
 * The ranking is the service's own (`explainSearch`, as the hook searches: limit
 * `recallSearchLimit`, the first 5 results that pass the floors shown, score ≥ the hook's
 * score floor). Features are the result's signals, which depend on the query and the memory
 * alone (the band): coverage, names missed, the calibrated dense cosine, soft coverage, one
 * shared (today's signals; model `refit`), the word alignment of src/memory/align.ts as the
 * ranking computes it (model `refit + alignment`), and two other dense cosines: with the tool
 * names' category words and the jargon's plain words (`semanticWords`, the ranking's dense
 * leg), and with the jargon's words alone (`semanticJargon`), each in place of the plain cosine
 * or beside it (docs/recall.md, "0.18: the gate with the category and jargon words"); the
 * models "today, c with …" are today's coefficients reading that cosine, not refitted; and the
 * prompt's project form (`PROJECT_FORM` below, model `refit + form`: measured in 0.19, not
 * shipped).
 * Examples as tasks/fit_confidence.ts makes them: an aimed prompt's targets among its
 * results are positives (its other results left out), every result of an everyday prompt is a
 * negative; each set's positives and negatives weigh alike in total.
 *
 * The floor: the lowest (0.01 steps) at which the pooled held-out everyday rate of the
 * paraphrase sets is ≤ 0.05 and LoCoMo's ≤ 0.07. Today's coefficients are scored the same
 * way. `nested` scores each held-out set at the floor that rule picks on the other sets alone,
 * so that neither the weights nor the floor saw it. The searched results are written to bench/results/confidence-groups-<time>.json;
 * `--groups FILE` refits from such a file without searching again. The table goes to
 * bench/results/confidence-sets-<time>.json.
 */
import { recallSearchLimit } from "../src/memcli/commands/recall.ts";
import { DEFAULT_MIN_SCORE, DEFAULT_RECALL_LIMIT } from "../src/memcli/commands/recall.ts";
import {
  COEFFICIENTS,
  type Coefficients,
  confidenceOf,
  DEV_COEFFICIENTS,
} from "../src/memory/confidence.ts";
import { explainSearch } from "../src/memory/diagnostics.ts";
import { alignment, alignQuery } from "../src/memory/align.ts";
import { ALIGNMENT_FROM } from "../src/memory/ranking.ts";
import { builtinWordVectors } from "../src/embed/words.ts";
import { builtinSif, type TableWords } from "../src/embed/sif.ts";
import { terms } from "../src/domain/terms.ts";
import { dot } from "../src/embed/dense.ts";
import { calibrated } from "../src/memory/dense.ts";
import { askedQuestions, type Conversation, importConversations, loadData } from "./locomo.ts";
import { benchArgs, LOCOMO_DEV } from "./lib/args.ts";
import {
  importProject,
  loadParaphrase,
  memoryKey,
  PARAPHRASE_FILE,
  promptsOf,
  type Split,
  SPLITS,
  targetsOf,
  UNRUN_SPLITS,
} from "./paraphrase.ts";
import { newService } from "./confidence_meaning.ts";
import { fileURLToPath } from "node:url";
import { type Example, fitLogistic } from "./lib/linalg.ts";

/**
 * A query in the project's own words: "we", "our", "us", "the usual", "this repo" (project,
 * codebase, app), the feature of the model `refit + form`: measured out of set in 0.19 and not
 * shipped (docs/recall.md, "0.19: the prompt's form in the confidence").
 */
const PROJECT_FORM = /\b(we|our|ours|us)\b|\bthe usual\b|\bthis (repo|project|codebase|app)\b/i;

/** One result of one prompt: its features, whether it is a target, its score. */
interface Row {
  x: number[];
  target: boolean;
  score: number;
  /** The memory's content and the search's lexical relevance (for features read offline). */
  content?: string;
  lexical?: number;
}
/** One prompt of one set. */
interface Prompt {
  set: string;
  aimed: boolean;
  rows: Row[];
  /** The prompt's text. */
  text?: string;
}

/** The features, in the order of `x` (after the intercept). */
const FEATURES = [
  "coverage",
  "namesMissed",
  "semantic",
  "softCoverage",
  "oneShared",
  "alignment",
  "semanticWords",
  "semanticJargon",
  "semanticPlain",
  "form",
] as const;
/** The features today's confidence reads (the first five). */
const TODAY = [0, 1, 2, 3, 4];
const words = await builtinWordVectors();
const sif = await builtinSif();
/** The floors of the table; 0 is the ceiling (a target among the results the hook may show). */
const FLOORS = [0, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
const LOCOMO = "LoCoMo dev";
const ALLOWED_PARAPHRASE = 0.05;
const ALLOWED_LOCOMO = 0.07;

/** A path under the repository's root, whatever the current directory. */
const fromRepo = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

const values = benchArgs(
  "deno task fit:confidence:sets [--data DIR] [--paraphrase FILE:SPLIT ...] [--groups FILE]",
  {
    data: { type: "string", default: LOCOMO_DEV },
    paraphrase: { type: "string", multiple: true },
    groups: { type: "string" },
  },
);

const DEFAULT_SETS = [
  `${fromRepo(PARAPHRASE_FILE)}:dev`,
  `${fromRepo(PARAPHRASE_FILE)}:test`,
  `${fromRepo("bench/data/paraphrase/holdout.json")}:holdout`,
  `${fromRepo("bench/data/paraphrase/holdout2.json")}:holdout2`,
  `${fromRepo("bench/data/paraphrase/holdout3.json")}:holdout3`,
];

function xOf(
  s: {
    coverage: number;
    namesMissed: number;
    semantic: number;
    softCoverage: number;
    shared: number;
  },
  a: number,
  query: string,
  content: string,
): number[] {
  // The ranking reads no dense cosine for a query that names an exact string (ranking.ts):
  // the product's `semantic` is 0 there, and so are the other cosines.
  const exact = terms(query).some((t) => /[_./:\-@#]/.test(t));
  const cos = (words: TableWords) => {
    const q = exact ? null : sif.vector(query, words), m = q && sif.vector(content, words);
    return q && m ? calibrated(dot(q, m)) : 0;
  };
  return [
    s.coverage,
    s.namesMissed,
    s.semantic,
    s.softCoverage,
    s.shared === 1 ? 1 : 0,
    a,
    cos(true),
    cos("jargon"),
    cos(false),
    PROJECT_FORM.test(query) ? 1 : 0,
  ];
}

async function searchParaphrase(spec: string): Promise<Prompt[]> {
  const at = spec.lastIndexOf(":");
  const [file, split] = [spec.slice(0, at), spec.slice(at + 1)];
  if (at < 0 || !(SPLITS as readonly string[]).includes(split)) {
    throw new Error(`--paraphrase ${spec}: FILE:SPLIT, SPLIT one of ${SPLITS.join(", ")}`);
  }
  if ((UNRUN_SPLITS as readonly string[]).includes(split)) {
    throw new Error(`--paraphrase ${spec}: ${split} is a frozen split not run yet (bench:recall)`);
  }
  const set = await loadParaphrase(file);
  const name = `${file.split("/").pop()!.replace(/\.json$/, "")} ${split}`;
  const out: Prompt[] = [];
  for (const project of set.projects.map((p) => p.name)) {
    const prompts = promptsOf(set, split as Split, project);
    if (!prompts.length) continue;
    const { service } = await newService();
    const ids = await importProject(service, set, project);
    for (const p of prompts) {
      const targets = targetsOf(p);
      const aq = alignQuery(p.text, words);
      const results = await explainSearch(service, {
        query: p.text,
        project,
        limit: recallSearchLimit(DEFAULT_RECALL_LIMIT),
      });
      out.push({
        set: name,
        aimed: targets !== null,
        text: p.text,
        rows: results.map((r) => ({
          content: r.memory.content,
          lexical: r.signals.lexical,
          x: xOf(
            r.signals,
            alignment(aq, r.memory.content, words, ALIGNMENT_FROM),
            p.text,
            r.memory.content,
          ),
          score: r.score,
          target:
            targets?.has(ids.get(memoryKey(r.memory.scope, project, r.memory.content)) ?? "") ??
              false,
        })),
      });
    }
    await service.close();
  }
  console.error(`${name}: ${out.length} prompts`);
  return out;
}

async function searchLocomo(convs: Conversation[]): Promise<Prompt[]> {
  const { service } = await newService();
  const idsOf = await importConversations(service, convs);
  const out: Prompt[] = [];
  for (const [i, c] of convs.entries()) {
    const next = convs[(i + 1) % convs.length];
    for (const q of askedQuestions(c)) {
      const evidence = new Set(q.evidence);
      const aq = alignQuery(q.question, words);
      for (const [conv, aimed] of [[c, true], [next, false]] as const) {
        const results = await explainSearch(service, {
          query: q.question,
          project: conv.name,
          limit: recallSearchLimit(DEFAULT_RECALL_LIMIT),
        });
        out.push({
          set: LOCOMO,
          aimed,
          text: q.question,
          rows: results.map((r) => ({
            content: r.memory.content,
            lexical: r.signals.lexical,
            x: xOf(
              r.signals,
              alignment(aq, r.memory.content, words, ALIGNMENT_FROM),
              q.question,
              r.memory.content,
            ),
            score: r.score,
            target: aimed &&
              (idsOf.get(`${conv.name}\n${r.memory.content}`) ?? []).some((d) => evidence.has(d)),
          })),
        });
      }
    }
  }
  await service.close();
  console.error(`${LOCOMO}: ${out.length} prompts`);
  return out;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const RIDGE = 1e-3;

/** Logistic regression (Newton), each set's positives and negatives weighing alike. */
function fit(prompts: Prompt[], features: readonly number[]): number[] {
  const ex: Example[] = [];
  const sets = [...new Set(prompts.map((p) => p.set))];
  for (const s of sets) {
    const raw: { x: number[]; y: number }[] = [];
    for (const p of prompts) {
      if (p.set !== s) continue;
      for (const r of p.rows) {
        if (p.aimed && !r.target) continue;
        raw.push({ x: [1, ...features.map((f) => r.x[f])], y: p.aimed ? 1 : 0 });
      }
    }
    const pos = raw.filter((e) => e.y).length, neg = raw.length - pos;
    for (const e of raw) ex.push({ ...e, c: 1 / (2 * sets.length * (e.y ? pos : neg)) });
  }
  return fitLogistic(ex, RIDGE);
}

function probability(c: Coefficients, x: number[]): number {
  return confidenceOf({
    coverage: x[0],
    namesMissed: x[1],
    lexical: 0,
    semantic: x[2],
    softCoverage: x[3],
    shared: x[4] ? 1 : 2,
  }, c);
}

/** The hook at a floor: aimed prompts whose target is shown, everyday prompts shown anything. */
function hookAt(prompts: Prompt[], floor: number, p: (x: number[]) => number) {
  let aimed = 0, hit = 0, everyday = 0, injected = 0;
  for (const g of prompts) {
    const shown = g.rows.filter((r) => r.score >= DEFAULT_MIN_SCORE && p(r.x) >= floor)
      .slice(0, DEFAULT_RECALL_LIMIT);
    if (g.aimed) (aimed++, hit += shown.some((r) => r.target) ? 1 : 0);
    else (everyday++, injected += shown.length ? 1 : 0);
  }
  return { aimed: hit / Math.max(1, aimed), everyday: injected / Math.max(1, everyday) };
}

/** AUC over the examples (targets of aimed prompts vs every result of everyday prompts). */
function auc(prompts: Prompt[], p: (x: number[]) => number): number {
  const s: { p: number; y: number }[] = [];
  for (const g of prompts) {
    for (const r of g.rows) {
      if (g.aimed && !r.target) continue;
      s.push({ p: p(r.x), y: g.aimed ? 1 : 0 });
    }
  }
  s.sort((a, b) => a.p - b.p);
  let rankSum = 0, pos = 0;
  for (let i = 0; i < s.length;) {
    let j = i;
    while (j < s.length && s[j].p === s[i].p) j++;
    for (let k = i; k < j; k++) if (s[k].y) (rankSum += (i + j + 1) / 2, pos++);
    i = j;
  }
  const neg = s.length - pos;
  return (rankSum - (pos * (pos + 1)) / 2) / Math.max(1, pos * neg);
}

let prompts: Prompt[];
const date = new Date().toISOString();
const stamp = date.replace(/[:.]/g, "-");
await Deno.mkdir(new URL("../bench/results/", import.meta.url), { recursive: true });
if (values.groups) {
  prompts = JSON.parse(await Deno.readTextFile(values.groups)).prompts;
} else {
  // LoCoMo read first: a wrong --data is told before the sets are searched.
  let convs: Conversation[];
  try {
    convs = await loadData(values.data!);
  } catch (err) {
    console.error(`--data ${values.data}: ${(err as Error).message}`);
    Deno.exit(2);
  }
  prompts = [];
  for (const spec of values.paraphrase?.length ? values.paraphrase : DEFAULT_SETS) {
    prompts.push(...await searchParaphrase(spec));
  }
  prompts.push(...await searchLocomo(convs));
  const file = new URL(`../bench/results/confidence-groups-${stamp}.json`, import.meta.url);
  await Deno.writeTextFile(file, JSON.stringify({ date, features: FEATURES, prompts }) + "\n");
  console.error(`wrote ${file.pathname}`);
}

const sets = [...new Set(prompts.map((p) => p.set))];
/**
 * The fitted models, by the features they read (indices into {@link FEATURES}): the product's
 * signals (`semantic` as the tree computes it); and the alignment; the dense cosine without the
 * table's words (v1, as 0.15–0.18 read it), with them all (the ranking's), with the jargon's
 * words alone, and the plain one beside the one with all the words.
 */
const SEMANTIC = 2, ALIGNMENT = 5, WORDS = 6, JARGON_ONLY = 7, PLAIN = 8, FORM = 9;
const withCosine = (c: number) => TODAY.map((f) => f === SEMANTIC ? c : f);
const FITS: Record<string, readonly number[]> = {
  refit: TODAY,
  "refit + form": [...TODAY, FORM],
  "refit + alignment": [...TODAY, ALIGNMENT],
  "refit, c plain": withCosine(PLAIN),
  "refit, c with words": withCosine(WORDS),
  "refit, c with jargon": withCosine(JARGON_ONLY),
  "refit, c plain and c with words": [...withCosine(PLAIN), WORDS],
};
const linear = (w: number[], features: readonly number[]) => (x: number[]) =>
  sigmoid(w[0] + w.slice(1).reduce((a, wi, i) => a + wi * x[features[i]], 0));
/** Per model and held-out set, the weights fitted without it. */
const heldOut = Object.entries(FITS).flatMap(([model, k]) =>
  sets.map((s) => ({ model, set: s, w: fit(prompts.filter((p) => p.set !== s), k) }))
);
const models: Record<string, (set: string) => (x: number[]) => number> = {
  today: () => (x) => probability(COEFFICIENTS, x),
  // The coefficients of 0.15–0.18 reading each cosine, not refitted.
  ...Object.fromEntries(
    ([["plain", PLAIN], ["with words", WORDS], ["with jargon", JARGON_ONLY]] as const).map((
      [name, c],
    ) => [
      `0.18 coefficients, c ${name}`,
      () => (x: number[]) =>
        probability(DEV_COEFFICIENTS, x.map((v, i) => i === SEMANTIC ? x[c] : v)),
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(FITS).map(([m, features]) => [
      m,
      (set: string) => linear(heldOut.find((h) => h.model === m && h.set === set)!.w, features),
    ]),
  ),
};

function table(name: string) {
  const rows = sets.map((s) => {
    const ps = prompts.filter((p) => p.set === s);
    const p = models[name](s);
    return {
      set: s,
      aimed_prompts: ps.filter((g) => g.aimed).length,
      everyday_prompts: ps.filter((g) => !g.aimed).length,
      auc: +auc(ps, p).toFixed(4),
      floors: FLOORS.map((f) => {
        const h = hookAt(ps, f, p);
        return { floor: f, aimed: +h.aimed.toFixed(3), everyday: +h.everyday.toFixed(3) };
      }),
    };
  });
  // The operating point: pooled held-out everyday ≤ 0.05 on the paraphrase sets, LoCoMo ≤ 0.07.
  let chosen: number | null = null;
  let pooled = { aimed: 0, everyday: 0, locomo_aimed: 0, locomo_everyday: 0 };
  for (let f = 0.5; f <= 0.995; f += 0.01) {
    const floor = +f.toFixed(2);
    let a = 0, an = 0, e = 0, en = 0;
    let la = 0, le = 0;
    for (const s of sets) {
      const ps = prompts.filter((p) => p.set === s);
      const h = hookAt(ps, floor, models[name](s));
      const na = ps.filter((g) => g.aimed).length, ne = ps.length - na;
      if (s === LOCOMO) (la = h.aimed, le = h.everyday);
      else (a += h.aimed * na, an += na, e += h.everyday * ne, en += ne);
    }
    if (e / en <= ALLOWED_PARAPHRASE && le <= ALLOWED_LOCOMO) {
      chosen = floor;
      pooled = {
        aimed: +(a / an).toFixed(3),
        everyday: +(e / en).toFixed(3),
        locomo_aimed: +la.toFixed(3),
        locomo_everyday: +le.toFixed(3),
      };
      break;
    }
  }
  const at = (f: number | null) =>
    f === null ? [] : sets.map((s) => {
      const h = hookAt(prompts.filter((p) => p.set === s), f, models[name](s));
      return { set: s, aimed: +h.aimed.toFixed(3), everyday: +h.everyday.toFixed(3) };
    });
  // Nested: each held-out set at the floor the rule picks on the other sets (with the weights
  // fitted without it), so that neither the weights nor the floor saw the set.
  const nested = sets.map((s) => {
    const p = models[name](s);
    const others = prompts.filter((g) => g.set !== s);
    let floor = 1;
    for (let f = 0.3; f <= 0.995; f += 0.01) {
      const fl = +f.toFixed(2);
      const para = hookAt(others.filter((g) => g.set !== LOCOMO), fl, p);
      const loc = others.some((g) => g.set === LOCOMO)
        ? hookAt(others.filter((g) => g.set === LOCOMO), fl, p)
        : { everyday: 0 };
      if (para.everyday <= ALLOWED_PARAPHRASE && loc.everyday <= ALLOWED_LOCOMO) {
        floor = fl;
        break;
      }
    }
    const h = hookAt(prompts.filter((g) => g.set === s), floor, p);
    return { set: s, floor, aimed: +h.aimed.toFixed(3), everyday: +h.everyday.toFixed(3) };
  });
  return {
    model: name,
    rows,
    floor: chosen,
    pooled,
    at_floor: at(chosen),
    at_09: at(0.9),
    nested,
  };
}

const results = Object.keys(models).map(table);
const all = Object.fromEntries(
  Object.entries(FITS).map(([m, k]) => [m, fit(prompts, k).map((v) => +v.toFixed(3))]),
);
for (const r of results) {
  console.log(`\n${r.model}: floor ${r.floor} (pooled held-out ${JSON.stringify(r.pooled)})`);
  console.log(
    `| held-out set | aimed | everyday | AUC | ${
      FLOORS.map((f) => `${f}: aimed / everyday`).join(" | ")
    } |`,
  );
  console.log(`|---|---|---|---|${FLOORS.map(() => "---").join("|")}|`);
  for (const row of r.rows) {
    console.log(
      `| ${row.set} | ${row.aimed_prompts} | ${row.everyday_prompts} | ${row.auc} | ${
        row.floors.map((f) => `${f.aimed} / ${f.everyday}`).join(" | ")
      } |`,
    );
  }
  console.log(
    `at floor ${r.floor}: ${r.at_floor.map((x) => `${x.set} ${x.aimed}/${x.everyday}`).join("; ")}`,
  );
  console.log(
    `at 0.9: ${r.at_09.map((x) => `${x.set} ${x.aimed}/${x.everyday}`).join("; ")}`,
  );
  console.log(
    `nested floors: ${
      r.nested.map((x) => `${x.set} (${x.floor}) ${x.aimed}/${x.everyday}`).join("; ")
    }`,
  );
}
console.log("\nheld-out coefficients:");
for (const h of heldOut) {
  console.log(`  ${h.model} without ${h.set}: ${JSON.stringify(h.w.map((v) => +v.toFixed(3)))}`);
}
for (const [m, features] of Object.entries(FITS)) {
  console.log(
    `fitted on all sets, ${m} (intercept, ${features.map((f) => FEATURES[f]).join(", ")}): ${
      JSON.stringify(all[m])
    }`,
  );
}
const out = new URL(`../bench/results/confidence-sets-${stamp}.json`, import.meta.url);
await Deno.writeTextFile(
  out,
  JSON.stringify(
    {
      date,
      groups: values.groups ?? null,
      features: FEATURES,
      models: FITS,
      today: COEFFICIENTS,
      dev_coefficients: DEV_COEFFICIENTS,
      fitted_on_all: all,
      held_out_weights: heldOut.map((h) => ({ model: h.model, set: h.set, w: h.w })),
      results,
    },
    null,
    2,
  ) + "\n",
);
console.error(`wrote ${out.pathname}`);
