/**
 * `deno task fit:confidence [--data DIR] [--paraphrase FILE]`
 *
 * Fits the coefficients of the search results' confidence (src/memory/confidence.ts) on
 * LoCoMo-format conversations (default `../shared/data/locomo-dev`, the dev split: fit on
 * nothing else). Every turn is stored as `bench:recall` stores it; every question of
 * categories 1–4 with evidence is searched as the prompt hook searches it, in its own
 * conversation's project and in the next conversation's project. Examples:
 *
 * - positive: an evidence turn among the results in its own project;
 * - negative: every result in the other project (nothing there is about those people).
 *
 * Results in the own project that are not evidence are left out (some are about the
 * question all the same). The coefficients are a logistic regression of the label on
 * coverage, names missed and lexical relevance (Newton's method, a small ridge penalty),
 * positives and negatives weighing half each in total. It
 * prints the coefficients to put in `COEFFICIENTS`, the fit's log loss and AUC beside those
 * of the shipped coefficients, and writes JSON to bench/results/confidence-fit-<time>.json.
 *
 * `--paraphrase FILE` (the paraphrase set, bench/data/paraphrase/paraphrase.json; its **dev**
 * split only, never the test split) adds the research of tasks/confidence_meaning.ts: features
 * that know about meaning (a dense SIF cosine and others) on the ranking the dense leg is to
 * give, fitted on the paraphrase dev split and LoCoMo dev together; per model the coefficients,
 * AUC and the hook's curve at floors 0.5–0.9 on each dataset (in sample and cross-validated),
 * and the band: the largest move of one aimed pair's confidence when 1,000 unrelated memories
 * (LoCoMo turns) join its project. Writes bench/results/confidence-meaning-<time>.json.
 */
import { BuiltinEmbedder } from "../src/embed/builtin.ts";
import { recallSearchLimit } from "../src/memcli/commands/recall.ts";
import { DEFAULT_RECALL_LIMIT } from "../src/memcli/commands/recall.ts";
import {
  COEFFICIENTS,
  confidenceOf,
  LEXICAL_COEFFICIENTS,
  type Signals,
} from "../src/memory/confidence.ts";
import { explainSearch } from "../src/memory/diagnostics.ts";
import { SqlMemoryService } from "../src/memory/service.ts";
import { ensureEmbeddingColumn, migrate } from "../src/store/migrate.ts";
import { openPglite } from "../src/store/pglite/mod.ts";
import { Store } from "../src/store/store.ts";
import { askedQuestions, importConversations, loadData, turnContent } from "./locomo.ts";
import { benchArgs, LOCOMO_DEV } from "./lib/args.ts";
import { loadParaphrase, type ParaphraseSet } from "./paraphrase.ts";
import { meaningResearch } from "./confidence_meaning.ts";
import { solve } from "./lib/linalg.ts";

const values = benchArgs("deno task fit:confidence [--data DIR] [--paraphrase FILE]", {
  data: { type: "string", default: LOCOMO_DEV },
  paraphrase: { type: "string" },
});
let paraphrase: ParaphraseSet | undefined;
if (values.paraphrase) {
  try {
    paraphrase = await loadParaphrase(values.paraphrase);
  } catch (err) {
    console.error(`--paraphrase ${values.paraphrase}: ${(err as Error).message}`);
    Deno.exit(2);
  }
}

const convs = await loadData(values.data!);
const embedder = new BuiltinEmbedder();
await embedder.probe();
const db = await openPglite();
await migrate(db);
const stored = await ensureEmbeddingColumn(db, embedder.info);
const service = new SqlMemoryService({ store: new Store(db), embedder, stored });
const idsOf = await importConversations(service, convs);

const examples: { s: Signals; y: number }[] = [];
for (const [i, c] of convs.entries()) {
  const next = convs[(i + 1) % convs.length];
  for (const q of askedQuestions(c)) {
    const evidence = new Set(q.evidence);
    const limit = recallSearchLimit(DEFAULT_RECALL_LIMIT);
    for (const r of await explainSearch(service, { query: q.question, project: c.name, limit })) {
      const dia = idsOf.get(`${c.name}\n${r.memory.content}`) ?? [];
      if (dia.some((d) => evidence.has(d))) examples.push({ s: r.signals, y: 1 });
    }
    for (
      const r of await explainSearch(service, { query: q.question, project: next.name, limit })
    ) examples.push({ s: r.signals, y: 0 });
  }
}
await service.close();

const features = (s: Signals) => [1, s.coverage, s.namesMissed, s.lexical];
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const RIDGE = 1e-3;

/** Logistic regression by Newton's method. */
function fit(): number[] {
  // Each class weighs half in total: there are about a dozen negatives per positive, and the
  // confidence is to mean "about the query" at equal odds before the signals are seen.
  const pos = examples.filter((e) => e.y).length;
  const weightOf = (y: number) => examples.length / 2 / (y ? pos : examples.length - pos);
  let w = [0, 0, 0, 0];
  for (let iter = 0; iter < 50; iter++) {
    const g = [0, 0, 0, 0];
    const h = Array.from({ length: 4 }, () => [0, 0, 0, 0]);
    for (const e of examples) {
      const x = features(e.s);
      const p = sigmoid(x.reduce((a, xi, i) => a + xi * w[i], 0));
      const c = weightOf(e.y);
      for (let i = 0; i < 4; i++) {
        g[i] += c * (p - e.y) * x[i];
        for (let j = 0; j < 4; j++) h[i][j] += c * p * (1 - p) * x[i] * x[j];
      }
    }
    for (let i = 1; i < 4; i++) {
      g[i] += RIDGE * examples.length * w[i];
      h[i][i] += RIDGE * examples.length;
    }
    const step = solve(h, g);
    w = w.map((wi, i) => wi - step[i]);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return w;
}

function quality(predict: (s: Signals) => number) {
  let loss = 0;
  const scored = examples.map((e) => {
    const p = Math.min(1 - 1e-9, Math.max(1e-9, predict(e.s)));
    loss -= e.y ? Math.log(p) : Math.log(1 - p);
    return { p, y: e.y };
  });
  // AUC: the chance that a positive is ranked above a negative (ties count half).
  scored.sort((a, b) => a.p - b.p);
  let rankSum = 0, pos = 0;
  for (let i = 0; i < scored.length;) {
    let j = i;
    while (j < scored.length && scored[j].p === scored[i].p) j++;
    const avg = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (scored[k].y) (rankSum += avg, pos++);
    i = j;
  }
  const neg = scored.length - pos;
  return {
    log_loss: +(loss / examples.length).toFixed(4),
    auc: +((rankSum - (pos * (pos + 1)) / 2) / (pos * neg)).toFixed(4),
  };
}

const w = fit();
const fitted = {
  intercept: +w[0].toFixed(2),
  coverage: +w[1].toFixed(2),
  namesMissed: +w[2].toFixed(2),
  lexical: +w[3].toFixed(2),
  semantic: 0,
  softCoverage: 0,
  oneShared: 0,
};
const positives = examples.filter((e) => e.y).length;
const out = {
  date: new Date().toISOString(),
  data: values.data,
  examples: examples.length,
  positives,
  negatives: examples.length - positives,
  fitted,
  fitted_quality: quality((s) => confidenceOf(s, fitted)),
  shipped: COEFFICIENTS,
  shipped_quality: quality((s) => confidenceOf(s)),
  lexical_014: LEXICAL_COEFFICIENTS,
  lexical_014_quality: quality((s) => confidenceOf(s, LEXICAL_COEFFICIENTS)),
};
console.log(
  `${examples.length} examples (${positives} positive) from ${convs.length} conversations`,
);
console.log("| coefficients | intercept | coverage | names missed | lexical | log loss | AUC |");
console.log("|---|---|---|---|---|---|---|");
for (
  const [name, c, q] of [
    ["fitted", fitted, out.fitted_quality],
    ["shipped", COEFFICIENTS, out.shipped_quality],
  ] as const
) {
  console.log(
    `| ${name} | ${c.intercept} | ${c.coverage} | ${c.namesMissed} | ${c.lexical} | ${q.log_loss} | ${q.auc} |`,
  );
}
await Deno.mkdir(new URL("../bench/results/", import.meta.url), { recursive: true });
const file = new URL(
  `../bench/results/confidence-fit-${out.date.replace(/[:.]/g, "-")}.json`,
  import.meta.url,
);
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.error(`wrote ${file.pathname}`);

if (paraphrase) {
  // Unrelated memories for the band: the first 1,000 distinct LoCoMo turns.
  const filler = [...new Set(convs.flatMap((c) => c.turns.map(turnContent)))].slice(0, 1000);
  const research = await meaningResearch(paraphrase, convs, filler);
  const meaningFile = new URL(
    `../bench/results/confidence-meaning-${out.date.replace(/[:.]/g, "-")}.json`,
    import.meta.url,
  );
  await Deno.writeTextFile(
    meaningFile,
    JSON.stringify(
      {
        date: out.date,
        load: Deno.loadavg(),
        paraphrase: values.paraphrase,
        locomo: values.data,
        ...research,
      },
      null,
      2,
    ) + "\n",
  );
  console.error(`wrote ${meaningFile.pathname}`);
}
