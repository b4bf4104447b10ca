/**
 * `deno task fit:confidence:expanded [--sets
 *   paraphrase,holdout3,holdout4,holdout5] [--expansions DIR] [--groups FILE]`
 *
 * Fits the confidence of **expanded** memories (`MEMORY_EXPANSION=on`, src/memory/expansion.ts)
 * and scores it **leave one set out**. Each seen set with recorded expansions
 * (bench/data/expansions/<set>.json; paraphrase.json's dev and test splits count as two sets)
 * is searched through the product path: every project in a fresh service with expansion on,
 * its memories imported as they are and expanded by the real worker replaying the recorded
 * phrases (tasks/lib/expansion_replay.ts), every prompt searched as the hook searches
 * (`explainSearch`, limit `recallSearchLimit`). Each result keeps its signals, its content and
 * its phrases, and the features of src/memory/confidence.ts `expandedFeatures` are computed from
 * them (they depend on the query and the memory alone: the band).
 *
 * Examples as tasks/fit_confidence_sets.ts makes them: an aimed prompt's targets are positives
 * (its other results left out), every result of an everyday prompt a negative, each set's
 * positives and negatives weighing alike. Models: `today` (the shipped confidence of an expanded
 * memory), `refit` (the five signals refitted on expanded memories) and the refits with the
 * phrase features. Per model and held-out set: AUC, the hook at the floor the fitting sets pick
 * (the lowest, 0.01 steps, at which their pooled everyday rate is ≤ 0.05: `nested`, so neither
 * the weights nor the floor saw the set) and at the floor fitted on all sets. LoCoMo has no
 * expansions and is not read: the plain confidence is unchanged.
 *
 * The searched results go to bench/results/confidence-expanded-groups-<time>.json (not
 * committed; `--groups FILE` refits from one without searching), the table to
 * bench/results/confidence-expanded-<time>.json.
 */
import { benchArgs } from "./lib/args.ts";
import {
  importProject,
  loadParaphrase,
  memoryKey,
  promptsOf,
  type Split,
  SPLITS,
  targetsOf,
  UNRUN_SPLITS,
} from "./paraphrase.ts";
import { expandWithWorker, loadExpansions } from "./lib/expansion_replay.ts";
import { explainSearch, storeOf } from "../src/memory/diagnostics.ts";
import {
  DEFAULT_MIN_SCORE,
  DEFAULT_RECALL_LIMIT,
  recallSearchLimit,
} from "../src/memcli/commands/recall.ts";
import {
  confidenceOf,
  EXPANDED_COEFFICIENTS,
  expandedConfidence,
  phraseSignals,
  phrasesOf,
  profileQuery,
  type QueryProfile,
  signalsOf,
} from "../src/memory/confidence.ts";
import { calibrated } from "../src/memory/dense.ts";
import { dot } from "../src/embed/dense.ts";
import type { WordVectors } from "../src/embed/words.ts";
import { builtinWordVectors } from "../src/embed/words.ts";
import { builtinSif } from "../src/embed/sif.ts";
import { BuiltinEmbedder } from "../src/embed/builtin.ts";
import { ensureEmbeddingColumn, migrate } from "../src/store/migrate.ts";
import { openPglite } from "../src/store/pglite/mod.ts";
import { Store } from "../src/store/store.ts";
import { SqlMemoryService } from "../src/memory/service.ts";
import { terms } from "../src/domain/terms.ts";
import { namesIdentifier } from "../src/memory/ranking.ts";
import { type Example, fitLogistic } from "./lib/linalg.ts";

const USAGE = "deno task fit:confidence:expanded " +
  "[--sets paraphrase,holdout3,holdout4,holdout5] [--expansions DIR] [--groups FILE]";
const values = benchArgs(USAGE, {
  sets: { type: "string", default: "paraphrase,holdout3,holdout4,holdout5" },
  expansions: { type: "string", default: "bench/data/expansions" },
  groups: { type: "string" },
});

/** One result of one prompt. */
interface Row {
  target: boolean;
  score: number;
  /** The product's confidence of the result. */
  confidence: number;
  /** The five signals as the product computes them (content and phrases together). */
  signals: {
    coverage: number;
    namesMissed: number;
    semantic: number;
    softCoverage: number;
    shared: number;
  };
  content: string;
  /** The phrases, joined by "; " (empty: none). */
  expansion: string;
  /** Features computed offline (EXPANDED_FEATURES order). */
  f?: number[];
}
interface Prompt {
  set: string;
  aimed: boolean;
  text: string;
  rows: Row[];
}

async function expandingService() {
  const embedder = new BuiltinEmbedder();
  await embedder.probe();
  const db = await openPglite();
  await migrate(db);
  const stored = await ensureEmbeddingColumn(db, embedder.info);
  return new SqlMemoryService({
    store: new Store(db),
    embedder,
    stored,
    expansion: { dailyTokens: 1e9 },
  });
}

async function searchSet(name: string): Promise<Prompt[]> {
  const splits: Split[] = name === "paraphrase" ? ["dev", "test"] : [name as Split];
  for (const s of splits) {
    if (!SPLITS.includes(s) || UNRUN_SPLITS.includes(s)) {
      throw new Error(`--sets: ${name} is not a seen split (frozen splits are never read here)`);
    }
  }
  const set = await loadParaphrase(`bench/data/paraphrase/${name}.json`);
  const ex = await loadExpansions(`${values.expansions}/${name}.json`, set);
  const out: Prompt[] = [];
  for (const project of set.projects.map((p) => p.name)) {
    const service = await expandingService();
    const ids = await importProject(service, set, project);
    await expandWithWorker(service, set, ex, () => {});
    for (const split of splits) {
      for (const p of promptsOf(set, split, project)) {
        const targets = targetsOf(p);
        const results = await explainSearch(service, {
          query: p.text.trim(),
          project,
          limit: recallSearchLimit(DEFAULT_RECALL_LIMIT),
        });
        const phrases = await storeOf(service).expansionsOf(results.map((r) => r.memory.id));
        out.push({
          set: name === "paraphrase" ? `paraphrase ${split}` : name,
          aimed: targets !== null,
          text: p.text,
          rows: results.map((r) => ({
            target:
              targets?.has(ids.get(memoryKey(r.memory.scope, project, r.memory.content)) ?? "") ??
                false,
            score: r.score,
            confidence: r.confidence,
            signals: {
              coverage: r.signals.coverage,
              namesMissed: r.signals.namesMissed,
              semantic: r.signals.semantic,
              softCoverage: r.signals.softCoverage,
              shared: r.signals.shared,
            },
            content: r.memory.content,
            expansion: phrases.get(r.memory.id) ?? "",
          })),
        });
      }
    }
    await service.close();
  }
  console.error(`${name}: ${out.length} prompts`);
  return out;
}

const date = new Date().toISOString();
const stamp = date.replace(/[:.]/g, "-");
let prompts: Prompt[];
if (values.groups) {
  prompts = JSON.parse(await Deno.readTextFile(values.groups)).prompts;
} else {
  prompts = [];
  for (const s of values.sets!.split(",")) prompts.push(...await searchSet(s));
  const file = `bench/results/confidence-expanded-groups-${stamp}.json`;
  await Deno.writeTextFile(file, JSON.stringify({ date, prompts }) + "\n");
  console.error(`wrote ${file}`);
}

/**
 * The candidate features, in this order: the five signals of the content and phrases together
 * (as the product reads `content + "\n" + expansion`), the content's own coverage, soft
 * coverage and dense cosine, the phrases' signals (src/memory/confidence.ts `phraseSignals`)
 * and the best phrase's dense cosine, and the query's own information (nats / 100) and
 * informative words (/ 12). Every one depends on the query and the memory alone.
 */
const FEATURES = [
  "coverage",
  "namesMissed",
  "semantic",
  "softCoverage",
  "oneShared",
  "contentCoverage",
  "contentSoft",
  "contentSemantic",
  "phraseCoverage",
  "phraseSoft",
  "phraseSemantic",
  "phrasesMatched",
  "phraseRecall",
  "phraseF",
  "queryNats",
  "queryWords",
] as const;

function featuresOf(
  profile: QueryProfile,
  r: Row,
  vectors: WordVectors,
  cos: (text: string) => number,
): number[] {
  const s = r.signals;
  const phrases = phrasesOf(r.expansion);
  const own = signalsOf(profile, r.content, 0, vectors);
  const p = phraseSignals(profile, phrases, vectors);
  return [
    s.coverage,
    s.namesMissed,
    s.semantic,
    s.softCoverage,
    s.shared === 1 ? 1 : 0,
    own.coverage,
    own.softCoverage,
    cos(r.content),
    p.coverage,
    p.softCoverage,
    Math.max(0, ...phrases.map(cos)),
    p.matched,
    p.recall,
    p.f,
    profile.words.reduce((a, w) => a + w.weight, 0) / 100,
    profile.words.length / 12,
  ];
}

const words = await builtinWordVectors();
const sif = await builtinSif();
for (const p of prompts) {
  const profile = profileQuery(p.text.trim(), words);
  // No dense cosine for a query that names an exact string, as the product (ranking.ts).
  const qv = namesIdentifier(terms(p.text)) ? null : sif.vector(p.text.trim(), "jargon");
  const cos = (t: string) => {
    const v = qv && sif.vector(t, "jargon");
    return qv && v ? calibrated(dot(qv, v)) : 0;
  };
  for (const r of p.rows) r.f = featuresOf(profile, r, words, cos);
}

const sets = [...new Set(prompts.map((p) => p.set))];
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const RIDGE = 1e-3;
const ALLOWED = 0.05;
const idx = (names: readonly string[]) =>
  names.map((n) => {
    const i = (FEATURES as readonly string[]).indexOf(n);
    if (i < 0) throw new Error(`no feature ${n}`);
    return i;
  });

function fit(ps: Prompt[], features: readonly number[]): number[] {
  const ex: Example[] = [];
  const ss = [...new Set(ps.map((p) => p.set))];
  for (const s of ss) {
    const raw: { x: number[]; y: number }[] = [];
    for (const p of ps) {
      if (p.set !== s) continue;
      for (const r of p.rows) {
        if (p.aimed && !r.target) continue;
        raw.push({ x: [1, ...features.map((f) => r.f![f])], y: p.aimed ? 1 : 0 });
      }
    }
    const pos = raw.filter((e) => e.y).length, neg = raw.length - pos;
    for (const e of raw) ex.push({ ...e, c: 1 / (2 * ss.length * (e.y ? pos : neg)) });
  }
  return fitLogistic(ex, RIDGE);
}

type Scorer = (r: Row) => number;
const linear = (w: number[], features: readonly number[]): Scorer => (r) =>
  sigmoid(w[0] + features.reduce((a, f, i) => a + w[i + 1] * r.f![f], 0));

function hookAt(ps: Prompt[], floor: number, p: Scorer) {
  let aimed = 0, hit = 0, everyday = 0, injected = 0;
  for (const g of ps) {
    const shown = g.rows.filter((r) => r.score >= DEFAULT_MIN_SCORE && p(r) >= floor)
      .slice(0, DEFAULT_RECALL_LIMIT);
    if (g.aimed) (aimed++, hit += shown.some((r) => r.target) ? 1 : 0);
    else (everyday++, injected += shown.length ? 1 : 0);
  }
  return {
    aimed: hit / Math.max(1, aimed),
    everyday: injected / Math.max(1, everyday),
    n: aimed,
    m: everyday,
    hit,
    injected,
  };
}

function auc(ps: Prompt[], p: Scorer): number {
  const s: { p: number; y: number }[] = [];
  for (const g of ps) {
    for (const r of g.rows) if (!g.aimed || r.target) s.push({ p: p(r), y: g.aimed ? 1 : 0 });
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

/** The lowest floor at which the pooled everyday rate of `ps` is ≤ the allowed rate. */
function floorOn(ps: Prompt[], p: Scorer): number {
  for (let f = 0.3; f <= 0.999; f += 0.005) {
    const fl = +f.toFixed(3);
    if (hookAt(ps, fl, p).everyday <= ALLOWED) return fl;
  }
  return 1;
}

const BASE = ["coverage", "namesMissed", "semantic", "softCoverage", "oneShared"];
const FITS: Record<string, string[]> = {
  refit: BASE,
  "refit + content": [...BASE, "contentCoverage", "contentSoft", "contentSemantic"],
  "refit + best phrase": [...BASE, "phraseCoverage", "phraseSoft"],
  "refit + best phrase cos": [...BASE, "phraseSemantic"],
  "refit + phrases matched": [...BASE, "phrasesMatched"],
  "refit + specificity": [...BASE, "queryNats", "queryWords"],
  "refit + phrases (shipped)": [
    ...BASE,
    "phraseCoverage",
    "phrasesMatched",
    "phraseRecall",
    "phraseF",
  ],
  "refit + phrases both ways": [
    ...BASE,
    "phraseCoverage",
    "phraseSoft",
    "phrasesMatched",
    "phraseRecall",
    "phraseF",
  ],
  "refit + phrases, specificity": [
    ...BASE,
    "phraseCoverage",
    "phraseSoft",
    "phrasesMatched",
    "phraseRecall",
    "phraseF",
    "queryNats",
  ],
  "refit + phrase all": [
    ...BASE,
    "phraseCoverage",
    "phraseSoft",
    "phraseSemantic",
    "phrasesMatched",
  ],
  "refit + all": [...FEATURES],
};

/** The product's confidence of the searched results (this tree's, when the file is its run). */
const today: Scorer = (r) => r.confidence;
/** 0.20's: the plain confidence of the content with the phrases, its 0.94 mapped to 0.9. */
const v020: Scorer = (r) => expandedConfidence(confidenceOf({ ...r.signals, lexical: 0 }));
const results = [];
const report: string[] = [];
const FIXED: Record<string, Scorer> = { "as searched": today, "0.20": v020 };
for (
  const [model, names] of [
    ...Object.keys(FIXED).map((m) => [m, null] as const),
    ...Object.entries(FITS),
  ]
) {
  const features = names ? idx(names) : [];
  const scorerFor = (held: string | null): Scorer =>
    names ? linear(fit(prompts.filter((p) => p.set !== held), features), features) : FIXED[model];
  const nested = sets.map((s) => {
    const p = scorerFor(s);
    const others = prompts.filter((g) => g.set !== s);
    // The fixed models are on the plain scale already: their floor is the hook's 0.9.
    const floor = names ? floorOn(others, p) : 0.9;
    const mine = prompts.filter((g) => g.set === s);
    const h = hookAt(mine, floor, p);
    return {
      set: s,
      floor,
      auc: +auc(mine, p).toFixed(4),
      aimed: +h.aimed.toFixed(3),
      everyday: +h.everyday.toFixed(3),
      hit: h.hit,
      n: h.n,
      injected: h.injected,
      m: h.m,
    };
  });
  const hit = nested.reduce((a, x) => a + x.hit, 0), n = nested.reduce((a, x) => a + x.n, 0);
  const inj = nested.reduce((a, x) => a + x.injected, 0), m = nested.reduce((a, x) => a + x.m, 0);
  const w = names ? fit(prompts, features) : null;
  const all = w ? linear(w, features) : FIXED[model];
  const floorAll = names ? floorOn(prompts, all) : 0.9;
  const pooled = { aimed: +(hit / n).toFixed(3), everyday: +(inj / m).toFixed(3) };
  results.push({
    model,
    features: names,
    nested,
    pooled,
    weights_all: w?.map((v) => +v.toFixed(3)),
    floor_all: floorAll,
  });
  report.push(
    `${model}: LOSO pooled ${pooled.aimed} / ${pooled.everyday}; ` +
      nested.map((x) => `${x.set} (${x.floor}) ${x.aimed}/${x.everyday} auc ${x.auc}`).join("; ") +
      (w
        ? `\n   all sets: floor ${floorAll}, w ${JSON.stringify(w.map((v) => +v.toFixed(3)))}`
        : ""),
  );
}
console.log(report.join("\n"));
// Ceiling: the target among the results the hook may show at all (score floor), whatever the
// confidence.
const ceiling = hookAt(prompts, 0, () => 1);
console.log(`ceiling (any confidence): aimed ${ceiling.aimed.toFixed(3)}`);
const out = `bench/results/confidence-expanded-${stamp}.json`;
await Deno.writeTextFile(
  out,
  JSON.stringify(
    {
      date,
      groups: values.groups ?? null,
      features: FEATURES,
      shipped: EXPANDED_COEFFICIENTS,
      ceiling_aimed: ceiling.aimed,
      results,
    },
    null,
    2,
  ) + "\n",
);
console.error(`wrote ${out}`);
