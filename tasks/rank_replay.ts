/**
 * `deno run -A --lock=tests/deno.lock tasks/rank_replay.ts [--data DIR] [--paraphrase FILE:SPLIT ...]
 *   [--locomo on|off]`
 *
 * Replays the ranking of every seen set offline, to score variants of it in seconds: each
 * set's prompts are searched once in a fresh store of this tree's service (as
 * tasks/recall_failures.ts and bench:recall store them), and for every candidate the features
 * the ranking and the hook read are kept: the lexical relevance and cosine similarity of the
 * store's candidates, their re-ranked relevance r (src/memory/ranking.ts), the dense cosine,
 * each query word's match of the word alignment (`alignMatches`, src/memory/align.ts), the
 * score's multiplier (scope, weight, decay), the confidence, and the candidate's rank in each
 * leg (the service's pool: the {@link RECALL_CANDIDATES} best of the lexical and vector sides,
 * the {@link DENSE_CANDIDATES} nearest of the dense leg; a wider dense pool of
 * {@link WIDE_POOL} is fetched for the pool variants). Each variant of {@link VARIANTS} then
 * ranks the candidates and is scored as bench:recall scores the service: tool hit@5 (the
 * target among the first 5), the hook (the first 15, those of confidence ≥ the hook's floor
 * and score ≥ its score floor, not bootstrap, at most 5: the target among them / an everyday
 * prompt with any), per set. Variant `today` is the service's ranking and reproduces
 * bench:recall's figures of the paraphrase sets exactly (the hook's 4,000 characters are not
 * counted; LoCoMo's within a few questions: the replay reads its candidates once).
 *
 * The sets: each `--paraphrase FILE:SPLIT` (default the paraphrase set's dev and test splits,
 * holdout.json's holdout and holdout2.json's holdout2) and LoCoMo dev (`--data`, default
 * ../shared/data/locomo-dev; `--locomo off` leaves it out): its questions in their own
 * conversation (aimed) and in the next one (everyday). Prints a table and writes it to
 * bench/results/rank-replay-<time>.json. docs/recall.md, "0.18", has a run.
 */
import { parseArgs } from "node:util";
import { loadVersion, openVersion } from "./lib/versions.ts";
import {
  importProject,
  loadParaphrase,
  memoryKey,
  PARAPHRASE_FILE,
  promptsOf,
  type Split,
  targetsOf,
} from "./paraphrase.ts";
import { askedQuestions, importConversations, loadData } from "./locomo.ts";
import { importsSettled, storeOf } from "../src/memory/diagnostics.ts";
import type { SqlMemoryService } from "../src/memory/service.ts";
import { builtinSif } from "../src/embed/sif.ts";
import { builtinWordVectors, cosine } from "../src/embed/words.ts";
import { dot } from "../src/embed/dense.ts";
import { terms } from "../src/domain/terms.ts";
import { variantsOf } from "../src/domain/forms.ts";
import { calibrated, DENSE_CANDIDATES, DENSE_WEIGHT } from "../src/memory/dense.ts";
import { alignMatches, alignQuery, creditOf } from "../src/memory/align.ts";
import {
  ALIGNED_DENSE_WEIGHT,
  ALIGNED_RELEVANCE_SHARE,
  ALIGNMENT_FROM,
  ALIGNMENT_WEIGHT,
  lexicalQuery,
  lexicalShare,
  MIN_RELEVANCE,
  RECALL_CANDIDATES,
  relevance,
  scoreMemory,
  WORD_VECTOR_SHARE,
} from "../src/memory/ranking.ts";
import { confidenceOf, profileQuery, signalsOf } from "../src/memory/confidence.ts";
import {
  DEFAULT_MIN_CONFIDENCE,
  DEFAULT_MIN_SCORE,
  DEFAULT_RECALL_LIMIT,
  recallSearchLimit,
} from "../src/memcli/commands/recall.ts";
import type { ScopeFilter } from "../src/store/sql.ts";

/** The dense leg's wider pool, for the pool variants. */
const WIDE_POOL = 50;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    data: { type: "string", default: "../shared/data/locomo-dev" },
    paraphrase: { type: "string", multiple: true },
    locomo: { type: "string", default: "on" },
  },
  strict: true,
});

/** One candidate of one query. */
interface Row {
  target: boolean;
  bootstrap: boolean;
  lexical: number;
  similarity: number;
  /** Rank in the lexical side (by lexical relevance, among those above 0), the vector side, the dense leg. */
  lexRank: number;
  simRank: number;
  denseRank: number;
  /** The re-ranked relevance before the dense leg and the alignment (0: noise). */
  r: number;
  /** Whether the query names an identifier (ranked without the word vectors and dense leg). */
  exact: boolean;
  /** The dense cosine (null: none, or a query naming an identifier). */
  cos: number | null;
  /** Each query word's alignment match (1: the word itself). */
  matches: Float32Array;
  /** The score of relevance 1. */
  mult: number;
  confidence: number;
  /** Informative words of the memory. */
  words: number;
  /** The memory's unit dense vector (null: none). */
  vector: Float32Array | null;
  /** Whether the lexical side alone (the candidates' statement without the embedding's nearest) returns it. */
  inLex: boolean;
  /** Rank among the embedding side's {@link RECALL_CANDIDATES} nearest (Infinity: not among them). */
  vecRank: number;
  /** r and the confidence of the row as the dense leg alone would bring it (lexical and similarity 0). */
  r0: number;
  confidence0: number;
}

/** One query: its candidates, its alignment words' weights, their document frequency. */
interface Query {
  set: string;
  aimed: boolean;
  exact: boolean;
  weights: number[];
  df: number[];
  n: number;
  rows: Row[];
}

const words = await builtinWordVectors();
const sif = await builtinSif();
const v = await loadVersion(new URL("../", import.meta.url), "this tree");
const now = new Date();

/** The features of every candidate of `query` searched in `project`, as the service ranks. */
async function replay(
  service: SqlMemoryService,
  query: string,
  project: string,
  isTarget: (content: string) => boolean,
): Promise<Omit<Query, "set" | "aimed">> {
  const store = storeOf(service);
  const scope: ScopeFilter = { kind: "hierarchy", project };
  const queryTerms = terms(query);
  const groups = queryTerms.map(variantsOf);
  const [embedding] = await v.embedder.embed([query]) as number[][];
  const stats = groups.length ? await store.corpusStats(scope, [...new Set(groups.flat())]) : null;
  const found = await store.candidates(
    embedding,
    stats ? lexicalQuery(groups, stats) : null,
    scope,
    RECALL_CANDIDATES,
    now,
    true,
  );
  // The embedding side's share: the lexical side alone, and the embedding's nearest alone.
  const lexOnly = stats
    ? await store.candidates(
      embedding,
      lexicalQuery(groups, stats),
      scope,
      RECALL_CANDIDATES,
      now,
      false,
    )
    : [];
  const inLexIds = new Set(lexOnly.map((c) => c.memory.id));
  const vecOnly = await store.candidates(embedding, null, scope, RECALL_CANDIDATES, now, true);
  const vecRankOf = new Map(vecOnly.map((c, i) => [c.memory.id, i]));
  const exact = queryTerms.some((t) => /[_./:\-@#]/.test(t));
  const qv = exact ? null : sif.vector(query);
  const near = qv ? await store.denseNearest(qv, scope, WIDE_POOL, now) : [];
  const byId = new Map(found.map((c) => [c.memory.id, c]));
  for (const n of near) {
    if (!byId.has(n.memory.id)) {
      byId.set(n.memory.id, { memory: n.memory, similarity: 0, lexical: 0 });
    }
  }
  const all = [...byId.values()];
  const rankBy = (key: (id: string) => number | undefined) => {
    const ids = all.map((c) => c.memory.id).filter((id) => key(id) !== undefined);
    ids.sort((a, b) => key(b)! - key(a)!);
    return new Map(ids.map((id, i) => [id, i]));
  };
  const inFound = new Map(found.map((c) => [c.memory.id, c]));
  const lexRank = rankBy((id) =>
    (inFound.get(id)?.lexical ?? 0) > 0 ? inFound.get(id)!.lexical : undefined
  );
  const simRank = rankBy((id) => inFound.get(id)?.similarity);
  const denseRank = new Map(near.map((n, i) => [n.memory.id, i]));
  const share = lexicalShare(v.embedder.info);
  const sentence = exact ? null : words.sentence(query);
  const aligned = alignQuery(query, words);
  const profile = profileQuery(query, words);
  const plain = exact ? null : sif.vector(query, false);
  const rows = all.map((c): Row => {
    const content = c.memory.content;
    let r = relevance(c, share, "hybrid");
    const s = sentence && r > 0 ? words.sentence(content) : null;
    if (s) {
      const fused = (1 - WORD_VECTOR_SHARE) * r +
        WORD_VECTOR_SHARE * Math.max(0, cosine(sentence!, s));
      r = fused < MIN_RELEVANCE ? 0 : fused;
    }
    const mv = qv ? sif.vector(content) : null;
    const pm = plain ? sif.vector(content, false) : null;
    const semantic = pm ? calibrated(dot(plain!, pm)) : 0;
    const signals = signalsOf(profile, content, c.lexical, words, semantic);
    const signals0 = signalsOf(profile, content, 0, words, semantic);
    return {
      inLex: inLexIds.has(c.memory.id),
      vecRank: vecRankOf.get(c.memory.id) ?? Infinity,
      r0: 0,
      confidence0: confidenceOf(signals0),
      target: isTarget(content),
      bootstrap: c.memory.type === "bootstrap",
      lexical: c.lexical,
      similarity: c.similarity,
      lexRank: lexRank.get(c.memory.id) ?? Infinity,
      simRank: simRank.get(c.memory.id) ?? Infinity,
      denseRank: denseRank.get(c.memory.id) ?? Infinity,
      r,
      exact,
      cos: mv ? dot(qv!, mv) : null,
      matches: alignMatches(aligned, content, words),
      mult: scoreMemory(c.memory, 1, now),
      confidence: confidenceOf(signals),
      words: new Set(terms(content)).size,
      vector: mv,
    };
  });
  const df = aligned.words.map((w) =>
    Math.max(0, ...[...w.forms].map((f) => stats?.df.get(f) ?? 0))
  );
  return { exact, weights: aligned.words.map((w) => w.weight), df, n: stats?.n ?? 0, rows };
}

// ---- collect ----
const queries: Query[] = [];
const paraphrase = values.paraphrase ?? [
  `${PARAPHRASE_FILE}:dev`,
  `${PARAPHRASE_FILE}:test`,
  "bench/data/paraphrase/holdout.json:holdout",
  "bench/data/paraphrase/holdout2.json:holdout2",
];
for (const spec of paraphrase) {
  const [file, split] = spec.split(":");
  const set = await loadParaphrase(file);
  for (const project of set.projects.map((p) => p.name)) {
    const prompts = promptsOf(set, split as Split, project);
    if (!prompts.length) continue;
    const o = await openVersion(v);
    const keys = await importProject(o.service, set, project);
    const idOf = (content: string) =>
      keys.get(memoryKey("project", project, content)) ??
        keys.get(memoryKey("global", project, content)) ?? "";
    for (const p of prompts) {
      const targets = targetsOf(p);
      const q = await replay(
        o.service as SqlMemoryService,
        p.text.trim(),
        project,
        (content) => !!targets?.has(idOf(content.trim())),
      );
      queries.push({ set: split, aimed: !!targets, ...q });
    }
    await importsSettled(o.service as SqlMemoryService);
    await o.close();
  }
}
if (values.locomo === "on") {
  const convs = await loadData(values.data!);
  const o = await openVersion(v);
  const idsOf = await importConversations(o.service, convs);
  for (const [i, c] of convs.entries()) {
    const next = convs[(i + 1) % convs.length];
    for (const qa of askedQuestions(c)) {
      const evidence = new Set(qa.evidence);
      const own = await replay(
        o.service as SqlMemoryService,
        qa.question,
        c.name,
        (content) => (idsOf.get(`${c.name}\n${content.trim()}`) ?? []).some((d) => evidence.has(d)),
      );
      queries.push({ set: "locomo", aimed: true, ...own });
      const other = await replay(
        o.service as SqlMemoryService,
        qa.question,
        next.name,
        () => false,
      );
      queries.push({ set: "locomo", aimed: false, ...other });
    }
  }
  await importsSettled(o.service as SqlMemoryService);
  await o.close();
}

// ---- variants ----
/** A variant: each candidate's relevance (below {@link MIN_RELEVANCE}: not a result). */
type Variant = (q: Query, pool: boolean[]) => number[];
const c = (x: Row) => x.cos === null ? 0 : calibrated(x.cos);
/** The alignment of a row with the matches credited from `from`, words weighed by `weigh`. */
const align = (q: Query, x: Row, from = ALIGNMENT_FROM, weigh = (i: number) => q.weights[i]) => {
  let got = 0, total = 0;
  q.weights.forEach((_, i) => {
    const w = weigh(i);
    total += w;
    got += w * creditOf(x.matches[i], from);
  });
  return total ? got / total : 0;
};
/** Today's fused relevance with the weights given and an alignment `a`. */
const fused = (
  x: Row,
  a: number,
  rs = ALIGNED_RELEVANCE_SHARE,
  aw = ALIGNMENT_WEIGHT,
  cw = ALIGNED_DENSE_WEIGHT,
) => {
  // A query naming an identifier is ranked without the dense leg: aligned only when r > 0.
  if (x.exact && x.r <= 0) return 0;
  const cc = c(x);
  return (Math.max(rs * x.r, DENSE_WEIGHT * cc) + aw * a + cw * cc) / (rs + aw + cw);
};
const idf = (q: Query, i: number) => Math.log(1 + (q.n - q.df[i] + 0.5) / (q.df[i] + 0.5));
const productPool = (x: Row, dense = DENSE_CANDIDATES) =>
  x.lexRank < RECALL_CANDIDATES || x.simRank < RECALL_CANDIDATES || x.denseRank < dense;
const today: Variant = (q) => q.rows.map((x) => fused(x, align(q, x)));
/** Reciprocal rank fusion of r, c and a (k = 5), for the candidates today's relevance keeps. */
const rrf: Variant = (q, pool) => {
  const out = q.rows.map(() => 0);
  for (const f of [(x: Row) => x.r, c, (x: Row) => align(q, x)]) {
    const order = q.rows.map((_, i) => i).filter((i) => pool[i]).sort((a, b) =>
      f(q.rows[b]) - f(q.rows[a])
    );
    order.forEach((i, k) => out[i] += 1 / (5 + k));
  }
  const base = today(q, pool);
  return base.map((b, i) => b >= MIN_RELEVANCE ? 0.1 + out[i] : 0);
};
/** Today's relevance plus β × the candidate's mean dense cosine with today's first `k` (not itself). */
const feedback = (k: number, beta: number): Variant => (q, pool) => {
  const base = today(q, pool);
  const top = base.map((b, i) => ({ b: pool[i] ? b : -1, i })).sort((x, y) => y.b - x.b).slice(0, k)
    .map((x) => x.i);
  return base.map((b, i) => {
    const vi = q.rows[i].vector;
    const others = top.filter((j) => j !== i && q.rows[j].vector && vi);
    if (!others.length || b < MIN_RELEVANCE) return b;
    return b + beta * others.reduce((s, j) => s + dot(vi!, q.rows[j].vector!), 0) / others.length;
  });
};
/** Today's relevance less β × the candidate's mean dense cosine with the other candidates (hubs). */
const hubness = (beta: number): Variant => (q, pool) => {
  const base = today(q, pool);
  return base.map((b, i) => {
    const vi = q.rows[i].vector;
    const others = q.rows.filter((x, j) => j !== i && pool[j] && x.vector && vi);
    if (!others.length || b < MIN_RELEVANCE) return b;
    return b - beta * others.reduce((s, x) => s + dot(vi!, x.vector!), 0) / others.length;
  });
};
/**
 * The embedding side's variants: the pool as the product forms it (the lexical side's rows, the
 * embedding's `vec` nearest, the dense leg's 15), the embedding side left out when the lexical
 * side has at least `skipAt` rows; a row that only the dense leg then brings has lexical relevance
 * and similarity 0, as the service gives it.
 */
interface Side {
  vec: number;
  skipAt?: number;
}
const VARIANTS: Record<string, { variant: Variant; dense?: number; side?: Side }> = {
  "today": { variant: today },
  "today, the pool exactly": { variant: today, side: { vec: RECALL_CANDIDATES } },
  "embedding side: 10 nearest": { variant: today, side: { vec: 10 } },
  "embedding side: 5 nearest": { variant: today, side: { vec: 5 } },
  "embedding side: none": { variant: today, side: { vec: 0 } },
  "embedding side: none when 15 lexical": {
    variant: today,
    side: { vec: RECALL_CANDIDATES, skipAt: 15 },
  },
  "embedding side: none when 10 lexical": {
    variant: today,
    side: { vec: RECALL_CANDIDATES, skipAt: 10 },
  },
  "embedding side: none when 5 lexical": {
    variant: today,
    side: { vec: RECALL_CANDIDATES, skipAt: 5 },
  },
  "dense pool 30": { variant: today, dense: 30 },
  "dense pool 50": { variant: today, dense: WIDE_POOL },
  "alignment from 0.3": { variant: (q) => q.rows.map((x) => fused(x, align(q, x, 0.3))) },
  "alignment from 0.5": { variant: (q) => q.rows.map((x) => fused(x, align(q, x, 0.5))) },
  "alignment, words by the scope's idf": {
    variant: (q) => q.rows.map((x) => fused(x, align(q, x, ALIGNMENT_FROM, (i) => idf(q, i)))),
  },
  "alignment, words by information × idf": {
    variant: (q) =>
      q.rows.map((x) => fused(x, align(q, x, ALIGNMENT_FROM, (i) => q.weights[i] * idf(q, i)))),
  },
  "alignment ÷ its best in the pool": {
    variant: (q, pool) => {
      const a = q.rows.map((x) => align(q, x));
      const best = Math.max(0, ...a.filter((_, i) => pool[i]));
      return q.rows.map((x, i) => fused(x, best > 0 ? a[i] / best : a[i]));
    },
  },
  "weights: r × 0.5, a × 1.0, c × 0": {
    variant: (q) => q.rows.map((x) => fused(x, align(q, x), 0.5, 1.0, 0)),
  },
  "weights: r × 0.85, a × 1.5, c × 0.6": {
    variant: (q) => q.rows.map((x) => fused(x, align(q, x), 0.85, 1.5, 0.6)),
  },
  "length: − 0.02 × ln(1 + words)": {
    variant: (q, pool) =>
      today(q, pool).map((b, i) =>
        b >= MIN_RELEVANCE ? b - 0.02 * Math.log1p(q.rows[i].words) + 0.05 : 0
      ),
  },
  "reciprocal rank fusion of r, c, a (k 5)": { variant: rrf },
  "feedback: + 0.2 × cosine with the first 3": { variant: feedback(3, 0.2) },
  "hubness: − 0.1 × mean cosine with the pool": { variant: hubness(0.1) },
};

// ---- score ----
interface Figures {
  aimed: number;
  hit5: number;
  hook: number;
  everyday: number;
  everydayInjected: number;
}
const hookLimit = DEFAULT_RECALL_LIMIT;
const searched = recallSearchLimit(hookLimit);
function score(name: string): Record<string, Figures> {
  const { variant, dense, side } = VARIANTS[name];
  const out: Record<string, Figures> = {};
  for (const q0 of queries) {
    const f = out[q0.set] ??= { aimed: 0, hit5: 0, hook: 0, everyday: 0, everydayInjected: 0 };
    let q = q0;
    let pool: boolean[];
    if (side) {
      const lexCount = q0.rows.filter((x) => x.inLex).length;
      const vec = side.skipAt !== undefined && lexCount >= side.skipAt ? 0 : side.vec;
      const found = (x: Row) => x.inLex || x.vecRank < vec;
      q = {
        ...q0,
        rows: q0.rows.map((x) => found(x) ? x : { ...x, r: x.r0, confidence: x.confidence0 }),
      };
      pool = q0.rows.map((x) => found(x) || x.denseRank < (dense ?? DENSE_CANDIDATES));
    } else {
      pool = q.rows.map((x) => productPool(x, dense));
    }
    const rel = variant(q, pool);
    const ranked = q.rows
      .map((x, i) => ({ x, s: pool[i] && rel[i] >= MIN_RELEVANCE ? rel[i] * x.mult : 0 }))
      .filter((y) => y.s > 0)
      .sort((a, b) => b.s - a.s);
    const shown = ranked.slice(0, searched).filter((y) =>
      !y.x.bootstrap && y.s >= DEFAULT_MIN_SCORE && y.x.confidence >= DEFAULT_MIN_CONFIDENCE
    ).slice(0, hookLimit);
    if (q.aimed) {
      f.aimed++;
      if (ranked.slice(0, 5).some((y) => y.x.target)) f.hit5++;
      if (shown.some((y) => y.x.target)) f.hook++;
    } else {
      f.everyday++;
      if (shown.length) f.everydayInjected++;
    }
  }
  return out;
}
const sets = [...new Set(queries.map((q) => q.set))];
/**
 * What the embedding side alone brings, per set: the aimed prompts whose target is in today's
 * first 5 (the pool exactly) only through a row the embedding side alone found (not the lexical
 * side, not the dense leg's 15), and the results of the first 5 that came that way.
 */
const onlyEmbedding: Record<
  string,
  { aimed: number; hits: number; top5: number; results: number }
> = {};
for (const q of queries) {
  const o = onlyEmbedding[q.set] ??= { aimed: 0, hits: 0, top5: 0, results: 0 };
  const only = (x: Row) => !x.inLex && x.denseRank >= DENSE_CANDIDATES;
  const pool = q.rows.map((x) =>
    x.inLex || x.vecRank < RECALL_CANDIDATES || x.denseRank < DENSE_CANDIDATES
  );
  const rel = today(q, pool);
  const top = q.rows
    .map((x, i) => ({ x, s: pool[i] && rel[i] >= MIN_RELEVANCE ? rel[i] * x.mult : 0 }))
    .filter((y) => y.s > 0)
    .sort((a, b) => b.s - a.s)
    .slice(0, 5);
  o.results += top.length;
  o.top5 += top.filter((y) => only(y.x)).length;
  if (q.aimed) {
    o.aimed++;
    const hits = top.filter((y) => y.x.target);
    if (hits.length && hits.every((y) => only(y.x))) o.hits++;
  }
}
console.log(
  "embedding side alone, per set (aimed prompts hit only through it; first-5 results only from it):",
);
for (const s of sets) {
  const o = onlyEmbedding[s];
  console.log(`  ${s}: ${o.hits} of ${o.aimed} aimed; ${o.top5} of ${o.results} results`);
}
const table: Record<string, Record<string, { hit5: number; hook: number; everyday: number }>> = {};
const r3 = (x: number) => +x.toFixed(3);
console.log(`| variant | ${sets.map((s) => `${s}: hit@5 / hook / everyday`).join(" | ")} |`);
console.log(`|---|${sets.map(() => "---").join("|")}|`);
for (const name of Object.keys(VARIANTS)) {
  const figures = score(name);
  table[name] = Object.fromEntries(sets.map((s) => {
    const f = figures[s];
    return [s, {
      hit5: r3(f.hit5 / f.aimed),
      hook: r3(f.hook / f.aimed),
      everyday: r3(f.everyday ? f.everydayInjected / f.everyday : 0),
    }];
  }));
  console.log(
    `| ${name} | ${
      sets.map((s) => {
        const t = table[name][s];
        return `${t.hit5.toFixed(3)} / ${t.hook.toFixed(3)} / ${t.everyday.toFixed(3)}`;
      }).join(" | ")
    } |`,
  );
}
const counts = Object.fromEntries(sets.map((s) => [s, {
  aimed: queries.filter((q) => q.set === s && q.aimed).length,
  everyday: queries.filter((q) => q.set === s && !q.aimed).length,
}]));
const file = `bench/results/rank-replay-${now.toISOString().replace(/[:.]/g, "-")}.json`;
await Deno.writeTextFile(
  file,
  JSON.stringify({ when: now.toISOString(), counts, onlyEmbedding, table }, null, 2) + "\n",
);
console.log(`wrote ${file}`);
