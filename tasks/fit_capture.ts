/**
 * `deno task fit:capture [--data DIR] [--check] [--verbose]`: fits the offline extractor's scorer
 * (src/capture/scorer.ts) on the labelled sessions of DIR (default bench/data/capture/, see its
 * README.md) and writes its weights to src/capture/scorer_weights.ts.
 *
 * Every candidate the generator finds (extract.ts's `generateCandidates`: the rules' matches, the
 * agent's confirmed statements and every other user sentence that is not a question, as `loose`)
 * is an example: positive when it is the candidate the benchmark would match to a durable label
 * (one a label, the one sharing most of its words, among the candidates of the label's event), negative otherwise;
 * candidates of an event whose only labels repeat a stored memory are left out (the dedupe's work,
 * not the scorer's). The model is a logistic regression (Newton's method, a ridge penalty chosen
 * among {@link LAMBDAS} by nested folds, the bias not penalised) over the scorer's features; a
 * weight for the negatives was tried and dropped (it only moves the threshold); rules with fewer than
 * {@link MIN_RULE} candidates in the training data are pooled by type.
 *
 * It is evaluated leave-one-split-out: fitted on all but one of the splits (dev, test, holdout,
 * holdout2, holdout3, holdout4, holdout5), scored on the one left out, each fold's precision and recall printed at thresholds from
 * 0.30 to 0.95 as the benchmark counts them (a kept candidate is right when its event has a
 * durable label not yet matched; recall over all durable labels, those the generator misses
 * included; a candidate that repeats one kept before in the session is dropped, as the pipeline
 * does). The threshold written is the lowest at which the pooled precision is ≥ 0.94 (the
 * target 0.90 and the margin unseen sessions lost) and every fold but one ≥ 0.90
 * ({@link chooseThreshold}). The weights of which
 * rule found a candidate are penalised {@link RULE_PENALTY} times more than the others. The
 * weights written are fitted on all seven splits. `--check` writes nothing and exits 1 when the file differs from
 * what it would write. Writes bench/results/capture-fit-<time>.json.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { readTranscript } from "../src/capture/transcript.ts";
import { generateCandidates, type Generated } from "../src/capture/extract.ts";
import { features, sigmoid } from "../src/capture/scorer.ts";
import { confidenceOf } from "../src/capture/calibration.ts";
import { overlap } from "../src/capture/dedupe.ts";
import { ROOT, writeBenchResult } from "./entrypoints.ts";
import { solve } from "./lib/linalg.ts";

/** The default ridge penalty (on the sum of squared weights; the bias is free). */
export const LAMBDA = 2;
/** The ridge penalties tried by {@link chooseLambda}. */
export const LAMBDAS = [0.5, 1, 2, 4, 8];
/**
 * How much more the weights of which rule found a candidate are penalised than the others: the
 * rules were written while reading the tuning data, so on it they look surer than they are; the
 * marks of the sentence itself must explain what they can.
 */
export const RULE_PENALTY = 5;
/** Rules with fewer candidates than this in the training data are pooled by type. */
export const MIN_RULE = 8;
/** The splits, in the order of the folds. */
export const SPLITS = ["dev", "test", "holdout", "holdout2", "holdout3", "holdout4", "holdout5"];
/** Thresholds tried. */
export const THRESHOLDS = Array.from(
  { length: 14 },
  (_, i) => Math.round((0.3 + i * 0.05) * 100) / 100,
);
/** Wanted of the threshold: precision at least, recall at least. */
export const WANT_PRECISION = 0.9, WANT_RECALL = 0.6;

interface Label {
  uuid: string;
  text: string;
  duplicate_of?: string;
}
interface Session {
  file: string;
  session_id: string;
  split: string;
  durable: Label[];
  duplicates_of_stored: { uuid: string }[];
}

/** One example: a candidate with its label (null: left out) and its session. */
export interface Example {
  g: Generated;
  y: 0 | 1 | null;
  session: number;
  split: string;
}

/** The examples of every labelled session, and the number of durable labels of each split. */
export async function loadExamples(data: string) {
  const labels = JSON.parse(await Deno.readTextFile(join(data, "labels.json"))) as {
    sessions: Session[];
  };
  const examples: Example[] = [];
  const durable: Record<string, number> = {};
  const open: Label[][] = [];
  for (const [k, s] of labels.sessions.entries()) {
    // Only the fitting splits: a frozen split added later (holdout5) is never seen here.
    if (!SPLITS.includes(s.split)) continue;
    const { turns } = await readTranscript(join(data, s.file), null);
    const gs = generateCandidates(turns);
    const labelsOpen = s.durable.filter((d) => !d.duplicate_of);
    open[k] = labelsOpen; // by the session's index (the other splits' are skipped)
    durable[s.split] = (durable[s.split] ?? 0) + labelsOpen.length;
    const dups = new Set([
      ...s.duplicates_of_stored.map((d) => d.uuid),
      ...s.durable.filter((d) => d.duplicate_of).map((d) => d.uuid),
    ]);
    // Each label takes the candidate of its event that shares most of its words (not one taken;
    // the overlap breaks ties): the one that states most of it, not the shortest piece.
    const positive = new Set<number>();
    for (const d of labelsOpen) {
      let best = -1, bestO = -1;
      gs.forEach((g, i) => {
        if (g.provenance.uuid !== d.uuid || positive.has(i)) return;
        const o = common(g.text, d.text) + jaccard(g.text, d.text);
        if (o > bestO) [best, bestO] = [i, o];
      });
      if (best >= 0) positive.add(best);
    }
    const labelled = new Set(labelsOpen.map((d) => d.uuid));
    gs.forEach((g, i) => {
      const u = g.provenance.uuid;
      const y = positive.has(i) ? 1 : dups.has(u) && !labelled.has(u) ? null : 0;
      examples.push({ g, y, session: k, split: s.split });
    });
  }
  return { examples, durable, open };
}

/** The content words the two texts share. */
function common(a: string, b: string): number {
  const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9_]{3,}/g) ?? []);
  const x = words(a), y = words(b);
  let c = 0;
  for (const w of x) if (y.has(w)) c++;
  return c;
}
/** Shared content words over all words of the two texts (the label's best candidate). */
function jaccard(a: string, b: string): number {
  const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9_]{3,}/g) ?? []);
  const x = words(a), y = words(b);
  let common = 0;
  for (const w of x) if (y.has(w)) common++;
  return x.size + y.size - common ? common / (x.size + y.size - common) : 0;
}

/** The rules with their own feature: those with at least {@link MIN_RULE} candidates. */
export function ownRules(xs: Example[]): string[] {
  const n = new Map<string, number>();
  for (const x of xs) if (x.y !== null) n.set(x.g.rule, (n.get(x.g.rule) ?? 0) + 1);
  return [...n].filter(([, c]) => c >= MIN_RULE).map(([r]) => r).sort();
}

/** A fitted model: its rules, bias and weights. */
export interface Model {
  rules: string[];
  bias: number;
  weights: Record<string, number>;
}

/** Fit the logistic regression on the labelled examples of `xs`. */
export function fit(xs: Example[], lambda = LAMBDA, rulePenalty = RULE_PENALTY): Model {
  const train = xs.filter((x) => x.y !== null);
  const rules = ownRules(train);
  const fs = train.map((x) => features(x.g, rules));
  const names = [...new Set(fs.flatMap((f) => [...f.keys()]))].sort();
  const index = new Map(names.map((n, i) => [n, i + 1]));
  const d = names.length + 1;
  const rows = fs.map((f) => [...f].map(([n, v]) => [index.get(n)!, v] as const));
  let w = new Array(d).fill(0);
  for (let iter = 0; iter < 30; iter++) {
    const grad = new Array(d).fill(0);
    const h = Array.from({ length: d }, () => new Array(d).fill(0));
    for (let r = 0; r < rows.length; r++) {
      const row = [[0, 1] as const, ...rows[r]];
      let z = 0;
      for (const [j, v] of row) z += w[j] * v;
      const p = sigmoid(z), e = p - train[r].y!, s = p * (1 - p);
      for (const [j, v] of row) {
        grad[j] += e * v;
        for (const [k, u] of row) h[j][k] += s * v * u;
      }
    }
    for (let j = 1; j < d; j++) {
      const l = /^(rule|type):/.test(names[j - 1]) ? lambda * rulePenalty : lambda;
      grad[j] += l * w[j];
      h[j][j] += l;
    }
    h[0][0] += 1e-6;
    const step = solve(h, grad);
    w = w.map((x, j) => x - step[j]);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  const weights: Record<string, number> = {};
  names.forEach((n, i) => (weights[n] = w[i + 1]));
  return { rules, bias: w[0], weights };
}

/** A model's probability for one candidate. */
export function predict(m: Model, g: Generated): number {
  let z = m.bias;
  for (const [n, v] of features(g, m.rules)) z += (m.weights[n] ?? 0) * v;
  return sigmoid(z);
}

/**
 * Precision and recall of the candidates of `xs` at `t`, counted as the benchmark does: in each
 * session, in order, a kept candidate is right when its event has an unmatched durable label.
 */
export function evaluate(
  xs: Example[],
  p: number[],
  t: number,
  durable: number,
  open: Label[][],
) {
  let tp = 0, fp = 0;
  const left = new Map<number, Map<string, number>>();
  const kept = new Map<number, string[]>();
  xs.forEach((x, i) => {
    if (p[i] < t || x.y === null) return;
    const ks = kept.get(x.session) ?? [];
    if (ks.some((k) => overlap(k, x.g.text) >= 0.8)) return;
    ks.push(x.g.text);
    kept.set(x.session, ks);
    if (!left.has(x.session)) {
      const m = new Map<string, number>();
      for (const d of open[x.session]) m.set(d.uuid, (m.get(d.uuid) ?? 0) + 1);
      left.set(x.session, m);
    }
    const m = left.get(x.session)!;
    const n = m.get(x.g.provenance.uuid) ?? 0;
    if (n > 0) {
      tp++;
      m.set(x.g.provenance.uuid, n - 1);
    } else fp++;
  });
  return {
    t,
    kept: tp + fp,
    tp,
    precision: tp + fp ? tp / (tp + fp) : 1,
    recall: durable ? tp / durable : 0,
  };
}

/** The mean squared error of probabilities against labels, and the log loss. */
function brier(xs: Example[], p: number[]) {
  let se = 0, ll = 0, n = 0;
  xs.forEach((x, i) => {
    if (x.y === null) return;
    se += (p[i] - x.y) ** 2;
    ll -= Math.log(Math.max(1e-12, x.y ? p[i] : 1 - p[i]));
    n++;
  });
  return { brier: se / n, logLoss: ll / n };
}

/** The text of src/capture/scorer_weights.ts for a model and its threshold. */
export function weightsFile(m: Model, threshold: number, note: string[]): string {
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  const names = Object.keys(m.weights).sort();
  return [
    "// Generated by `deno task fit:capture` (tasks/fit_capture.ts) from bench/data/capture/: do not",
    "// edit. Rerun it after changing the extractor's candidates or the scorer's features, or the",
    "// labelled data; tests/capture/scorer_test.ts checks that this file is what it would write.",
    ...note.map((n) => `// ${n}`),
    "",
    "/** The rules with a feature of their own (the others are pooled by type). */",
    "export const RULES: readonly string[] = [",
    ...m.rules.map((r) => `  ${JSON.stringify(r)},`),
    "];",
    "/** The logistic regression's intercept. */",
    `export const BIAS = ${r4(m.bias)};`,
    "/** The weight of each feature (scorer.ts names them). */",
    "export const WEIGHTS: Readonly<Record<string, number>> = {",
    ...names.map((n) => `  ${JSON.stringify(n)}: ${r4(m.weights[n])},`),
    "};",
    "/** Candidates with a lower probability are not proposed (chosen on the folds). */",
    `export const THRESHOLD = ${threshold};`,
    "",
  ].join("\n");
}

/**
 * The ridge penalty of {@link LAMBDAS} with the lowest log loss over `xs` left out one split at a
 * time (nested in each fold of {@link run}: chosen without the fold's split).
 */
export function chooseLambda(xs: Example[]): number {
  const splits = [...new Set(xs.map((x) => x.split))];
  let best = LAMBDA, bestLoss = Infinity;
  for (const lambda of LAMBDAS) {
    let loss = 0;
    for (const held of splits) {
      const m = fit(xs.filter((x) => x.split !== held), lambda);
      const ys = xs.filter((x) => x.split === held);
      loss += brier(ys, ys.map((x) => predict(m, x.g))).logLoss * ys.length;
    }
    if (loss < bestLoss) [best, bestLoss] = [lambda, loss];
  }
  return best;
}

/** A precision / recall curve over {@link THRESHOLDS}. */
type Curve = { t: number; precision: number; recall: number }[];

/**
 * What the pooled out-of-fold precision must exceed the target by: the three frozen splits run
 * once with 0.17 were 0.019 to 0.040 less precise than its pooled out-of-fold figure (0.946
 * against 0.906, 0.923 and 0.927; docs/capture.md).
 */
export const PRECISION_MARGIN = 0.04;

/**
 * The lowest threshold at which the pooled precision is at least {@link WANT_PRECISION} +
 * {@link PRECISION_MARGIN} and every fold but one at least {@link WANT_PRECISION}: recall bought
 * with the precision that sessions never seen are expected to keep (since 0.18; 0.17 took the
 * highest threshold with the pooled precision at 0.90 and every fold but one at its recall, which
 * spent a better scorer on precision the frozen runs had to spare, while their recall fell
 * short). The highest threshold when none qualifies.
 */
export function chooseThreshold(table: { folds: { curve: Curve }[]; pooled: Curve }): number {
  const ok = table.pooled.filter((c, i) =>
    c.precision >= WANT_PRECISION + PRECISION_MARGIN - 1e-9 &&
    table.folds.filter((f) => f.curve[i].precision < WANT_PRECISION).length <= 1
  );
  return ok.length ? ok[0].t : table.pooled[table.pooled.length - 1].t;
}

/** Fit every fold and the final model; the weights file's text and the figures. */
export async function run(data: string) {
  const { examples, durable, open } = await loadExamples(data);
  const lambdas: Record<string, number> = {};
  const folds = SPLITS.map((held) => {
    const train = examples.filter((x) => x.split !== held);
    lambdas[held] = chooseLambda(train);
    const m = fit(train, lambdas[held]);
    const xs = examples.filter((x) => x.split === held);
    const p = xs.map((x) => predict(m, x.g));
    return { held, xs, p, durable: durable[held] ?? 0 };
  });
  const pooledXs = folds.flatMap((f) => f.xs);
  const pooledP = folds.flatMap((f) => f.p);
  const pooledDurable = folds.reduce((a, f) => a + f.durable, 0);
  const curve = (xs: Example[], p: number[], d: number) =>
    THRESHOLDS.map((t) => evaluate(xs, p, t, d, open));
  const table = {
    folds: folds.map((f) => ({ held: f.held, curve: curve(f.xs, f.p, f.durable) })),
    pooled: curve(pooledXs, pooledP, pooledDurable),
  };
  const threshold = chooseThreshold(table);
  const lambda = chooseLambda(examples);
  const model = fit(examples, lambda);
  const at = (c: { precision: number; recall: number }) =>
    `${c.precision.toFixed(3)} / ${c.recall.toFixed(3)}`;
  const note = [
    `Fitted on ${examples.filter((x) => x.y !== null).length} candidates of ${
      new Set(examples.map((x) => x.session)).size
    } sessions (${SPLITS.join(", ")}).`,
    `Leave-one-split-out precision / recall at the threshold ${threshold}: ${
      table.folds.map((f) => `${f.held} ${at(f.curve.find((c) => c.t === threshold)!)}`).join(
        ", ",
      )
    }; pooled ${at(table.pooled.find((c) => c.t === threshold)!)}.`,
  ];
  // Calibration on the candidates the rules found, out of fold: the scorer's probability against
  // the per-rule confidence of calibration.ts (whose counts come from dev, test and holdout: out
  // of fold only for holdout2 and holdout3).
  const ruled = folds.filter((f) => f.held === "holdout2" || f.held === "holdout3").flatMap((f) =>
    f.xs.map((x, i) => ({ x, p: f.p[i] }))
  ).filter(({ x }) => x.y !== null && x.g.rule !== "loose");
  const ruleCalibration = {
    candidates: ruled.length,
    scorer: brier(ruled.map((r) => r.x), ruled.map((r) => r.p)).brier,
    perRule: brier(ruled.map((r) => r.x), ruled.map((r) => confidenceOf(r.x.g.rule))).brier,
  };
  return {
    ruleCalibration,
    lambdas: { ...lambdas, final: lambda },
    text: weightsFile(model, threshold, note),
    table,
    threshold,
    model,
    calibration: brier(pooledXs, pooledP),
    pooledXs,
    pooledP,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string", default: join(ROOT, "bench/data/capture") },
      check: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
    },
    strict: true,
  });
  const out = join(ROOT, "src/capture/scorer_weights.ts");
  const r = await run(values.data!);
  const f3 = (x: number) => x.toFixed(3);
  console.log("leave-one-split-out: precision / recall (kept) by threshold");
  const head = ["threshold", ...r.table.folds.map((f) => `held out ${f.held}`), "pooled"];
  const rows = THRESHOLDS.map((t, i) => [
    t.toFixed(2) + (t === r.threshold ? " *" : ""),
    ...r.table.folds.map((f) =>
      `${f3(f.curve[i].precision)} / ${f3(f.curve[i].recall)} (${f.curve[i].kept})`
    ),
    `${f3(r.table.pooled[i].precision)} / ${f3(r.table.pooled[i].recall)} (${
      r.table.pooled[i].kept
    })`,
  ]);
  const w = head.map((_, i) => Math.max(...[head, ...rows].map((x) => x[i].length)));
  for (const x of [head, ...rows]) console.log(x.map((c, i) => c.padEnd(w[i])).join("  "));
  console.log(`\nridge penalty chosen by nested folds: ${JSON.stringify(r.lambdas)}`);
  console.log(
    `\nthreshold: ${r.threshold}; out-of-fold Brier ${f3(r.calibration.brier)}, log loss ${
      f3(r.calibration.logLoss)
    }`,
  );
  console.log(
    `holdout2 and holdout3 folds, the ${r.ruleCalibration.candidates} candidates of the rules: Brier ${
      f3(r.ruleCalibration.scorer)
    } (scorer) against ${f3(r.ruleCalibration.perRule)} (per-rule confidence)`,
  );
  // Reliability of the out-of-fold probabilities.
  const B = [0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001];
  console.log("\nout-of-fold reliability: probability, candidates, durable share");
  for (let i = 0; i + 1 < B.length; i++) {
    const xs = r.pooledXs.map((x, k) => ({ x, p: r.pooledP[k] })).filter(({ x }) => x.y !== null);
    const inB = xs.filter(({ p }) => p >= B[i] && p < B[i + 1]);
    const pos = inB.filter(({ x }) => x.y === 1).length;
    console.log(
      `${B[i].toFixed(2)}-${Math.min(1, B[i + 1]).toFixed(2)}  ${inB.length}  ${
        inB.length ? f3(pos / inB.length) : "-"
      }`,
    );
  }
  if (values.verbose) {
    console.log("\nout of fold, at the threshold: junk (-) and missed candidates (+)");
    r.pooledXs.forEach((x, k) => {
      const p = r.pooledP[k];
      if (x.y === 0 && p >= r.threshold || x.y === 1 && p < r.threshold) {
        console.log(
          `  ${x.y ? "+" : "-"} ${p.toFixed(2)} ${x.split} [${x.g.rule}] ${x.g.sentence}`,
        );
      }
    });
    console.log("\nweights:");
    for (const [n, v] of Object.entries(r.model.weights).sort((a, b) => b[1] - a[1])) {
      console.log(`  ${n.padEnd(28)} ${v.toFixed(3)}`);
    }
    console.log(`  (bias) ${r.model.bias.toFixed(3)}`);
  }
  const current = await Deno.readTextFile(out).catch(() => "");
  if (values.check) {
    console.log(
      current === r.text ? "\nscorer_weights.ts is up to date" : "\nscorer_weights.ts differs",
    );
    Deno.exit(current === r.text ? 0 : 1);
  }
  await Deno.writeTextFile(out, r.text);
  console.log(`\nwrote ${out}`);
  await writeBenchResult("capture-fit", {
    data: values.data,
    rule_penalty: RULE_PENALTY,
    min_rule: MIN_RULE,
    threshold: r.threshold,
    lambdas: r.lambdas,
    calibration: r.calibration,
    rule_calibration_holdout2_holdout3: r.ruleCalibration,
    folds: r.table.folds,
    pooled: r.table.pooled,
    rules: r.model.rules,
    bias: r.model.bias,
    weights: r.model.weights,
  });
}
