/**
 * `deno run -A --lock=tests/deno.lock tasks/confidence_features.ts GROUPS [neg|inter|form|negk|final [K]]`
 *
 * Candidate features of the confidence, scored leave one set out on a confidence-groups file of
 * `deno task fit:confidence:sets` (docs/recall.md, "0.19: the prompt's form in the confidence"):
 * each held-out set at the floor the rule picks on the other sets. Exploratory: not a bench.
 */
import { type Example, fitLogistic } from "./lib/linalg.ts";
import { COEFFICIENTS, confidenceOf } from "../src/memory/confidence.ts";

const file = Deno.args[0];
const data = JSON.parse(await Deno.readTextFile(file));
type Row = { x: number[]; target: boolean; score: number; content: string; lexical: number };
type P = { set: string; aimed: boolean; rows: Row[]; text: string };
const prompts: P[] = data.prompts;
const MIN_SCORE = 0.1, LIMIT = 5;
const LOCOMO = "LoCoMo dev";
const sig = (z: number) => 1 / (1 + Math.exp(-z));
const logit = (p: number) => Math.log(p / (1 - p));
const base = (x: number[]) =>
  confidenceOf({
    coverage: x[0],
    namesMissed: x[1],
    lexical: 0,
    semantic: x[2],
    softCoverage: x[3],
    shared: x[4] ? 1 : 2,
  }, COEFFICIENTS);
const FORM = /\b(we|our|ours|us)\b|\bthe usual\b|\bthis (repo|project|codebase|app)\b/i;

// Derived features per row: f[name]
type F = Record<string, number>;
const feats: F[][] = prompts.map((p) => {
  const rows = p.rows;
  const bl = rows.map((r) => logit(Math.min(1 - 1e-9, Math.max(1e-9, base(r.x)))));
  const lexRank = rows.map((_, i) => rows.filter((o) => o.lexical > rows[i].lexical).length);
  const semRank = rows.map((_, i) => rows.filter((o) => o.x[2] > rows[i].x[2]).length);
  return rows.map((r, i) => {
    const others = rows.filter((_, j) => j !== i);
    const bestOtherScore = Math.max(0, ...others.map((o) => o.score));
    const bestOtherC = Math.max(0, ...others.map((o) => o.x[2]));
    const bestOtherL = Math.max(-20, ...bl.filter((_, j) => j !== i));
    const bestOtherCov = Math.max(0, ...others.map((o) => o.x[0]));
    return {
      coverage: r.x[0],
      names: r.x[1],
      c: r.x[2],
      soft: r.x[3],
      one: r.x[4],
      align: r.x[5],
      cwords: r.x[6],
      rank1: i === 0 ? 1 : 0,
      gapScore: Math.max(-1, Math.min(1, (r.score - bestOtherScore) / Math.max(r.score, 1e-6))),
      gapC: r.x[2] - bestOtherC,
      gapL: Math.max(-5, Math.min(5, bl[i] - bestOtherL)) / 5,
      gapCov: r.x[0] - bestOtherCov,
      agree: lexRank[i] === 0 && semRank[i] === 0 ? 1 : 0,
      semTop: semRank[i] === 0 ? 1 : 0,
      lexTop: lexRank[i] === 0 ? 1 : 0,
      form: FORM.test(p.text) ? 1 : 0,
      crowd: Math.min(5, bl.filter((l, j) => j !== i && l > bl[i] - 1).length) / 5,
      rel: r.score / Math.max(...rows.map((o) => o.score)),
      fWe: /\b(we|our|ours|us|we're|we've|we'd)\b/i.test(p.text) ? 1 : 0,
      fQ: /\?\s*$/.test(p.text) ||
          /^\s*(what|which|how|why|where|when|who|is|are|do|does|did|can|should)\b/i.test(p.text)
        ? 1
        : 0,
      fRecall:
        /\b(remind|again|usual|last time|decided|agreed|convention|policy|remember|supposed to)\b/i
            .test(p.text)
          ? 1
          : 0,
      formC: (FORM.test(p.text) ? 1 : 0) * r.x[2],
      formRank1: (FORM.test(p.text) ? 1 : 0) * (i === 0 ? 1 : 0),
      c2: r.x[2] * r.x[2],
      cSoft: r.x[2] * r.x[3],
      covSoft: r.x[0] * r.x[3],
      soft2: r.x[3] * r.x[3],
      cCov: r.x[2] * r.x[0],
      baseL: Math.max(-10, Math.min(10, bl[i])) / 10,
      nwords: Math.min(20, (p.text.match(/\p{L}{3,}/gu) ?? []).length) / 20,
    };
  });
});

const sets = [...new Set(prompts.map((p) => p.set))];
let NEG_TOP = 0; // 0: every row of an everyday prompt; k: its k rows of highest base confidence
function examples(idx: number[], names: string[]) {
  const ex: Example[] = [];
  const ss = [...new Set(idx.map((i) => prompts[i].set))];
  for (const s of ss) {
    const raw: { x: number[]; y: number }[] = [];
    for (const i of idx) {
      const p = prompts[i];
      if (p.set !== s) continue;
      const order = p.rows.map((r, k) => ({ k, b: base(r.x) })).sort((a, b) => b.b - a.b);
      const keep = new Set(order.slice(0, NEG_TOP || order.length).map((o) => o.k));
      p.rows.forEach((r, k) => {
        if (p.aimed && !r.target) return;
        if (!p.aimed && !keep.has(k)) return;
        raw.push({ x: [1, ...names.map((n) => feats[i][k][n])], y: p.aimed ? 1 : 0 });
      });
    }
    const pos = raw.filter((e) => e.y).length, neg = raw.length - pos;
    for (const e of raw) ex.push({ ...e, c: 1 / (2 * ss.length * (e.y ? pos : neg)) });
  }
  return ex;
}
function fit(idx: number[], names: string[]): number[] {
  const ex = examples(idx, names);
  return fitLogistic(ex, 1e-3);
}
const prob = (w: number[], names: string[], f: F) =>
  sig(w[0] + names.reduce((a, n, i) => a + w[i + 1] * f[n], 0));
function hook(idx: number[], floor: number, pr: (i: number, k: number) => number) {
  let a = 0, h = 0, e = 0, inj = 0;
  for (const i of idx) {
    const p = prompts[i];
    const shown = p.rows.map((r, k) => ({ r, k })).filter(({ r, k }) =>
      r.score >= MIN_SCORE && pr(i, k) >= floor
    ).slice(0, LIMIT);
    if (p.aimed) (a++, h += shown.some(({ r }) => r.target) ? 1 : 0);
    else (e++, inj += shown.length ? 1 : 0);
  }
  return { aimed: h / Math.max(1, a), everyday: inj / Math.max(1, e), na: a, ne: e, hit: h, inj };
}
/** Lowest floor where pooled paraphrase everyday ≤ 0.05 and LoCoMo (if present) ≤ 0.07. */
function floorRule(idx: number[], pr: (i: number, k: number) => number): number {
  const para = idx.filter((i) => prompts[i].set !== LOCOMO);
  const loc = idx.filter((i) => prompts[i].set === LOCOMO);
  for (let f = 0.3; f <= 0.995; f += 0.01) {
    const floor = +f.toFixed(2);
    const hp = hook(para, floor, pr);
    const hl = loc.length ? hook(loc, floor, pr) : { everyday: 0 };
    if (hp.everyday <= 0.05 && hl.everyday <= 0.07) return floor;
  }
  return 1;
}
const bySet = (s: string) => prompts.map((_, i) => i).filter((i) => prompts[i].set === s);
const all = prompts.map((_, i) => i);

function evaluate(label: string, names: string[] | null, fixedFloor?: number) {
  const out: string[] = [];
  let pa = 0, pna = 0, pe = 0, pne = 0;
  for (const s of sets) {
    const train = all.filter((i) => prompts[i].set !== s);
    let pr: (i: number, k: number) => number;
    if (names) {
      const w = fit(train, names);
      pr = (i, k) => prob(w, names, feats[i][k]);
    } else pr = (i, k) => base(prompts[i].rows[k].x);
    const floor = fixedFloor ?? floorRule(train, pr);
    const h = hook(bySet(s), floor, pr);
    out.push(
      `${s.replace("paraphrase ", "").replace(/^holdout\d? /, "")} ${floor} ${h.aimed.toFixed(3)}/${
        h.everyday.toFixed(3)
      }`,
    );
    if (s !== LOCOMO) (pa += h.hit, pna += h.na, pe += h.inj, pne += h.ne);
  }
  console.log(
    `${label.padEnd(40)} pooled ${(pa / pna).toFixed(3)}/${(pe / pne).toFixed(3)} | ${
      out.join(" | ")
    }`,
  );
}

if (import.meta.main && !["final", "negk"].includes(Deno.args[1])) {
  const ceil = sets.map((s) => {
    const h = hook(bySet(s), 0, () => 1);
    return `${s} ${h.aimed.toFixed(3)}`;
  });
  console.log("ceiling (floor 0):", ceil.join(" | "));
  evaluate("today fixed 0.9", null, 0.9);
  evaluate("today, rule floor", null);
  const B = ["coverage", "names", "c", "soft", "one"];
  const variants: Record<string, string[]> = {
    refit: B,
    "+align": [...B, "align"],
    "+rank1": [...B, "rank1"],
    "+gapScore": [...B, "gapScore"],
    "+gapC": [...B, "gapC"],
    "+gapL": [...B, "gapL"],
    "+gapCov": [...B, "gapCov"],
    "+agree": [...B, "agree"],
    "+semTop": [...B, "semTop"],
    "+lexTop": [...B, "lexTop"],
    "+form": [...B, "form"],
    "+crowd": [...B, "crowd"],
    "+rel": [...B, "rel"],
    "+rank1+gapScore": [...B, "rank1", "gapScore"],
    "+gapL+rank1": [...B, "gapL", "rank1"],
    "+align+gapScore": [...B, "align", "gapScore"],
    "+align+gapL+rank1": [...B, "align", "gapL", "rank1"],
  };
  const only = Deno.args[1];
  if (only === "neg") {
    for (const n of [1, 2, 3, 5]) {
      NEG_TOP = n;
      for (const k of ["refit", "+align", "+form", "+gapScore", "+agree"]) {
        evaluate(`neg top${n} ${k}`, variants[k]);
      }
    }
  } else if (only === "form") {
    for (const n of [0, 5]) {
      NEG_TOP = n;
      for (
        const [k, v] of Object.entries({
          "+form": [...B, "form"],
          "+fWe": [...B, "fWe"],
          "+fQ": [...B, "fQ"],
          "+fRecall": [...B, "fRecall"],
          "+fWe+fQ+fRecall": [...B, "fWe", "fQ", "fRecall"],
          "+form+fQ": [...B, "form", "fQ"],
          "+form+formC": [...B, "form", "formC"],
          "+form+formRank1": [...B, "form", "formRank1"],
          "+form+align": [...B, "form", "align"],
          "+form+semTop": [...B, "form", "semTop"],
        })
      ) evaluate(`neg${n} ${k}`, v);
    }
  } else if (only === "inter") {
    for (
      const [k, v] of Object.entries({
        "+c2": [...B, "c2"],
        "+cSoft": [...B, "cSoft"],
        "+covSoft": [...B, "covSoft"],
        "+soft2": [...B, "soft2"],
        "+cCov": [...B, "cCov"],
        "+nwords": [...B, "nwords"],
        "+inter all": [...B, "c2", "cSoft", "covSoft", "soft2", "cCov"],
        "+form+align+agree": [...B, "form", "align", "agree"],
      })
    ) evaluate(k, v);
  } else for (const [k, v] of Object.entries(variants)) evaluate(k, v);
}
if (Deno.args[1] === "final") {
  NEG_TOP = +(Deno.args[2] ?? 5);
  const names = ["coverage", "names", "c", "soft", "one", "form"];
  const w = fit(all, names);
  const pr = (i: number, k: number) => prob(w, names, feats[i][k]);
  const floor = floorRule(all, pr);
  const shift = Math.log(0.9 / 0.1) - Math.log(floor / (1 - floor));
  console.log(
    "weights",
    w.map((v) => +v.toFixed(3)),
    "floor",
    floor,
    "shifted intercept",
    +(w[0] - shift).toFixed(3),
  );
  for (const s of sets) {
    const h = hook(bySet(s), floor, pr);
    console.log(`in sample ${s}: ${h.aimed.toFixed(3)} / ${h.everyday.toFixed(3)}`);
  }
  // Leave one set out weights, for the record
  for (const s of sets) {
    const ww = fit(all.filter((i) => prompts[i].set !== s), names);
    console.log(`without ${s}: ${JSON.stringify(ww.map((v) => +v.toFixed(3)))}`);
  }
}
if (Deno.args[1] === "negk") {
  const B = ["coverage", "names", "c", "soft", "one"];
  for (const n of [3, 8, 10]) {
    NEG_TOP = n;
    evaluate(`neg${n} +form`, [...B, "form"]);
  }
  NEG_TOP = 5;
  evaluate(`neg5 +form+names2`, [...B, "form", "gapC"]);
}
