/**
 * `deno run -A --lock=tests/deno.lock tasks/hook_expanded_probe.ts
 *   [--sets paraphrase,holdout3,holdout4,holdout5,holdout6] [--expansions DIR] [--groups FILE]`
 *
 * A measurement, not a feature: why the prompt hook injects the aimed memory so much less often
 * than the tool finds it when memories are expanded (`MEMORY_EXPANSION=on`), and whether a change
 * of one or two parameters would inject more of them out of set. Nothing under src/ is changed.
 *
 * Every seen set with recorded expansions (bench/data/expansions/<set>.json; paraphrase.json's
 * dev and test splits count as two sets) is searched through the product path, as
 * tasks/expansion_probe.ts --product does: each project a fresh service with expansion on, its
 * memories imported as they are and expanded by the real worker replaying the recorded phrases,
 * each prompt searched as the hook searches it (`explainSearch`, limit `recallSearchLimit`).
 * Each result keeps its signals, content and phrases (to bench/results/hook-expanded-rows-<time>
 * .json, not committed; `--groups FILE` reads one instead of searching).
 *
 * Then (docs/recall.md, "After 0.21: the hook with expansion on, where the aimed memory is
 * lost"):
 *
 * - **error analysis**: every aimed prompt whose target the tool has in its first 5 and the
 *   hook does not inject: the target's rank, its confidence before the mapping, its distance to
 *   the floor in log-odds, and the signal that holds it down most (the largest of coefficient ×
 *   what the signal lacks of its best value: coverage, soft coverage, semantic; the one-shared
 *   and names-missed penalties), and which signal alone at its best would lift it over;
 *   the medians of the signals for those, for the targets injected and for the everyday
 *   prompts' best result near and over the floor;
 * - **candidates**, each chosen leave one set out: for each held-out set the parameters that
 *   inject the most aimed prompts on the five other sets pooled while injecting anything on no
 *   more of their everyday prompts than today's rule does there, applied to the held-out set.
 *
 * The hook here keeps a result when it is not a bootstrap memory, its score is ≥ 0.1 and its
 * value ≥ the floor, the first 5 (the character budget is not applied); today's rule (the raw
 * confidence ≥ 0.94, which `expandedConfidence` maps to the hook's 0.9) gives the product's
 * figures exactly. Writes bench/results/hook-expanded-<time>.json.
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
import { DEFAULT_RECALL_LIMIT, recallSearchLimit } from "../src/memcli/commands/recall.ts";
import {
  COEFFICIENTS as C,
  confidenceOf,
  EXPANDED_FLOOR,
  profileQuery,
  type Signals,
  signalsOf,
} from "../src/memory/confidence.ts";
import { calibrated } from "../src/memory/dense.ts";
import { dot } from "../src/embed/dense.ts";
import { builtinSif } from "../src/embed/sif.ts";
import { BuiltinEmbedder } from "../src/embed/builtin.ts";
import { ensureEmbeddingColumn, migrate } from "../src/store/migrate.ts";
import { openPglite } from "../src/store/pglite/mod.ts";
import { Store } from "../src/store/store.ts";
import { SqlMemoryService } from "../src/memory/service.ts";

const USAGE = "deno run -A --lock=tests/deno.lock tasks/hook_expanded_probe.ts " +
  "[--sets paraphrase,holdout3,holdout4,holdout5,holdout6] [--expansions DIR] [--groups FILE]";
const values = benchArgs(USAGE, {
  sets: { type: "string", default: "paraphrase,holdout3,holdout4,holdout5,holdout6" },
  expansions: { type: "string", default: "bench/data/expansions" },
  groups: { type: "string" },
});

/** One result of one prompt, as searched. */
interface Row {
  target: boolean;
  type: string;
  score: number;
  confidence: number;
  signals: Signals;
  content: string;
  /** The phrases joined by "; " (empty: none). */
  expansion: string;
}
interface Prompt {
  set: string;
  id: string;
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
          set: name === "paraphrase" ? split : name,
          id: p.id,
          aimed: targets !== null,
          text: p.text.trim(),
          rows: results.map((r) => ({
            target:
              targets?.has(ids.get(memoryKey(r.memory.scope, project, r.memory.content)) ?? "") ??
                false,
            type: r.memory.type,
            score: r.score,
            confidence: r.confidence,
            signals: r.signals,
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
  const file = `bench/results/hook-expanded-rows-${stamp}.json`;
  await Deno.writeTextFile(file, JSON.stringify({ date, prompts }) + "\n");
  console.error(`wrote ${file}`);
}
const SETS = [...new Set(prompts.map((p) => p.set))];

/** A result with what the candidates read of it. */
interface Cand extends Row {
  /** The log-odds of the product's confidence before the mapping. */
  z: number;
  raw: number;
  /** The best phrase's coverage, its dense cosine (calibrated), content ∪ best phrase's z. */
  phraseCoverage: number;
  phraseSemantic: number;
  zUnion: number;
  /** The confidence of the content alone, as a plain memory's. */
  contentRaw: number;
  contentCoverage: number;
}
const sigma = (z: number) => 1 / (1 + Math.exp(-z));
const lexicalZ = (s: Signals) =>
  C.coverage * s.coverage + C.softCoverage * s.softCoverage + C.namesMissed * s.namesMissed +
  C.oneShared * (s.shared === 1 ? 1 : 0);
const zOf = (s: Signals) => C.intercept + lexicalZ(s) + C.semantic * s.semantic;
const encoder = await builtinSif();
const words = encoder.words;
const cands = new Map<Prompt, Cand[]>();
for (const p of prompts) {
  const profile = profileQuery(p.text, words);
  const q = encoder.vector(p.text, "jargon");
  // The product reads no dense cosine for a query that names an exact string: every result's
  // semantic is 0 then, and so is every cosine read here.
  const exact = !p.rows.some((r) => r.signals.semantic > 0);
  const sem = (text: string) => {
    const m = exact || !q ? null : encoder.vector(text, "jargon");
    return q && m ? calibrated(dot(q, m)) : 0;
  };
  cands.set(
    p,
    p.rows.filter((r) => r.type !== "bootstrap" && r.score >= 0.1).map((r) => {
      const z = zOf(r.signals);
      const phrases = r.expansion ? r.expansion.split("; ") : [];
      let phraseCoverage = 0, phraseSemantic = 0, union = lexicalZ(r.signals);
      let bestUnion = -Infinity;
      for (const t of phrases) {
        phraseCoverage = Math.max(phraseCoverage, signalsOf(profile, t, 0, words).coverage);
        phraseSemantic = Math.max(phraseSemantic, sem(t));
        bestUnion = Math.max(
          bestUnion,
          lexicalZ(signalsOf(profile, `${r.content}\n${t}`, 0, words)),
        );
      }
      if (phrases.length) union = bestUnion;
      const content = signalsOf(
        profile,
        r.content,
        0,
        words,
        sem(r.content),
      );
      return {
        ...r,
        z,
        raw: sigma(z),
        phraseCoverage,
        phraseSemantic,
        zUnion: z - lexicalZ(r.signals) + union,
        contentRaw: confidenceOf(content),
        contentCoverage: content.coverage,
      };
    }),
  );
}

/** A rule: the results the hook injects for a prompt. */
type Rule = (cs: Cand[]) => Cand[];
const byFloor = (v: (c: Cand) => number, floor: number): Rule => (cs) =>
  cs.filter((c) => v(c) >= floor).slice(0, 5);
const today: Rule = byFloor((c) => c.raw, EXPANDED_FLOOR);
interface Tally {
  aimed: number;
  hit: number;
  everyday: number;
  injected: number;
}
function tally(rule: Rule, sets: string[]): Tally {
  const t = { aimed: 0, hit: 0, everyday: 0, injected: 0 };
  for (const p of prompts) {
    if (!sets.includes(p.set)) continue;
    const kept = rule(cands.get(p)!);
    if (p.aimed) {
      t.aimed++;
      if (kept.some((c) => c.target)) t.hit++;
    } else {
      t.everyday++;
      if (kept.length) t.injected++;
    }
  }
  return t;
}
const f3 = (x: number) => x.toFixed(3);
const rate = (t: Tally) => `${f3(t.hit / t.aimed)} / ${f3(t.injected / t.everyday)}`;

// The error analysis.
const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
const FLOOR_Z = Math.log(EXPANDED_FLOOR / (1 - EXPANDED_FLOOR));
const SIGNALS = ["coverage", "soft coverage", "semantic", "one shared", "names missed"] as const;
const lacks = (c: Cand): Record<typeof SIGNALS[number], number> => ({
  coverage: C.coverage * (1 - c.signals.coverage),
  "soft coverage": C.softCoverage * (1 - c.signals.softCoverage),
  semantic: C.semantic * (1 - c.signals.semantic),
  "one shared": c.signals.shared === 1 ? -C.oneShared : 0,
  "names missed": -C.namesMissed * c.signals.namesMissed,
});
interface Missed {
  set: string;
  id: string;
  rank: number;
  raw: number;
  gap: number;
  holds: string;
  lifts: string[];
  c: Cand;
}
const missed: Missed[] = [];
const injectedTargets: Cand[] = [];
for (const p of prompts.filter((p) => p.aimed)) {
  const cs = cands.get(p)!;
  const kept = today(cs);
  const hit = kept.find((c) => c.target);
  if (hit) injectedTargets.push(hit);
  const rank = p.rows.findIndex((r) => r.target);
  if (hit || rank < 0 || rank >= 5) continue;
  const c = cs.find((x) => x.target)!;
  const l = lacks(c);
  missed.push({
    set: p.set,
    id: p.id,
    rank: rank + 1,
    raw: c.raw,
    gap: FLOOR_Z - c.z,
    holds: Object.entries(l).sort((a, b) => b[1] - a[1])[0][0],
    lifts: SIGNALS.filter((k) => c.z + l[k] >= FLOOR_Z),
    c,
  });
}
const analysis = [...SETS, "all"].map((s) => {
  const m = missed.filter((x) => s === "all" || x.set === s);
  return {
    set: s,
    missed: m.length,
    rank: [1, 2, 3].map((r) => m.filter((x) => r === 3 ? x.rank >= 3 : x.rank === r).length),
    raw_median: +f3(med(m.map((x) => x.raw))),
    logodds_gap_median: +med(m.map((x) => x.gap)).toFixed(2),
    held_down_by: Object.fromEntries(
      SIGNALS.map((k) => [k, m.filter((x) => x.holds === k).length]),
    ),
    lifted_by_one_signal_alone: Object.fromEntries([
      ...SIGNALS.map((k) => [k, m.filter((x) => x.lifts.includes(k)).length]),
      ["none", m.filter((x) => !x.lifts.length).length],
    ]),
  };
});
console.log("Aimed prompts whose target the tool has in its first 5 and the hook does not inject:");
console.log(
  "| set | missed | rank 1 / 2 / 3–5 | raw conf. (median) | log-odds to the floor | held down most by: " +
    "coverage / soft / semantic / one shared / names | one signal at its best would lift: " +
    "coverage / soft / semantic / one shared / names / none |",
);
console.log("|---|---|---|---|---|---|---|");
for (const a of analysis) {
  console.log(
    `| ${a.set} | ${a.missed} | ${a.rank.join(" / ")} | ${f3(a.raw_median)} | ${
      a.logodds_gap_median.toFixed(2)
    } | ${Object.values(a.held_down_by).join(" / ")} | ${
      Object.values(a.lifted_by_one_signal_alone).join(" / ")
    } |`,
  );
}
const everydayBest = prompts.filter((p) => !p.aimed).map((p) =>
  [...cands.get(p)!].sort((a, b) => b.raw - a.raw)[0]
).filter((c): c is Cand => !!c);
const groupsOfRows: [string, Cand[]][] = [
  ["aimed: target in the first 5, not injected", missed.map((m) => m.c)],
  ["aimed: target injected", injectedTargets],
  ["everyday: best result injected (raw ≥ 0.94)", everydayBest.filter((c) => c.raw >= 0.94)],
  [
    "everyday: best result near (raw 0.85–0.94)",
    everydayBest.filter((c) => c.raw >= 0.85 && c.raw < 0.94),
  ],
];
const medians = groupsOfRows.map(([group, cs]) => ({
  group,
  n: cs.length,
  raw: +f3(med(cs.map((c) => c.raw))),
  coverage: +f3(med(cs.map((c) => c.signals.coverage))),
  soft_coverage: +f3(med(cs.map((c) => c.signals.softCoverage))),
  semantic: +f3(med(cs.map((c) => c.signals.semantic))),
  one_shared: +f3(cs.filter((c) => c.signals.shared === 1).length / Math.max(1, cs.length)),
  names_missed: +f3(cs.filter((c) => c.signals.namesMissed > 0).length / Math.max(1, cs.length)),
  content_coverage: +f3(med(cs.map((c) => c.contentCoverage))),
  best_phrase_coverage: +f3(med(cs.map((c) => c.phraseCoverage))),
}));
console.log("\nSignals (medians; one shared and names missed: share of results):");
console.log(
  "| group | n | raw conf. | coverage | soft | semantic | one shared | names missed | content's own coverage | best phrase's coverage |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const m of medians) {
  console.log(
    `| ${m.group} | ${m.n} | ${f3(m.raw)} | ${f3(m.coverage)} | ${f3(m.soft_coverage)} | ${
      f3(m.semantic)
    } | ${f3(m.one_shared)} | ${f3(m.names_missed)} | ${f3(m.content_coverage)} | ${
      f3(m.best_phrase_coverage)
    } |`,
  );
}

// Today's confidence over raw floors (0.94 is the hook's 0.9), every set pooled.
const sweep = [0.8, 0.85, 0.88, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96].map((floor) => {
  const t = tally(byFloor((c) => c.raw, floor), SETS);
  return { floor, hook_hit: +f3(t.hit / t.aimed), everyday_injected: +f3(t.injected / t.everyday) };
});
console.log("\nToday's confidence over raw floors, all sets (aimed / everyday injected):");
console.log(`| ${sweep.map((x) => x.floor).join(" | ")} |`);
console.log(`|${sweep.map(() => "---").join("|")}|`);
console.log(
  `| ${sweep.map((x) => `${f3(x.hook_hit)} / ${f3(x.everyday_injected)}`).join(" | ")} |`,
);

// The candidates, leave one set out.
const FLOORS = [0.8, 0.84, 0.86, 0.88, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98];
const grid = <T>(...axes: T[][]): T[][] =>
  axes.reduce<T[][]>((acc, a) => acc.flatMap((xs) => a.map((x) => [...xs, x])), [[]]);
const K = [-1, -0.5, 0.5, 1, 1.5, 2, 3];
const weighted = (v: (c: Cand) => number) => ([k, f]: number[]): Rule =>
  byFloor((c) => sigma(c.z + k * v(c)), f);
const candidates: { name: string; params: number[][]; rule: (g: number[]) => Rule }[] = [
  {
    name: "the expanded floor (0.94 → x)",
    params: grid(FLOORS),
    rule: ([f]) => byFloor((c) => c.raw, f),
  },
  {
    name: "first-ranked result at a floor of its own, the others at another",
    params: grid(FLOORS.slice(0, 9), [0.94, 0.95, 0.96, 0.97, 0.98, 1.01]),
    rule: ([f1, f2]) => (cs) => cs.filter((c, i) => c.raw >= (i === 0 ? f1 : f2)).slice(0, 5),
  },
  {
    name: "margin: nothing at 0.94, then the most confident if ≥ L and ≥ m above the second",
    params: [
      [1.01, 0],
      ...grid([0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9], [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4]),
    ],
    rule: ([l, m]) => (cs) => {
      const kept = today(cs);
      if (kept.length) return kept;
      const s = [...cs].sort((a, b) => b.raw - a.raw);
      return s.length && s[0].raw >= l && s[0].raw - (s[1]?.raw ?? 0) >= m ? [s[0]] : [];
    },
  },
  {
    name: "coverage by the content with its best phrase (not all phrases) + floor",
    params: grid(FLOORS),
    rule: ([f]) => byFloor((c) => sigma(c.zUnion), f),
  },
  {
    name: "or the content alone as a plain memory (its floor) + the expanded floor",
    params: grid([0.94, 0.95, 0.96, 0.97], [0.9, 0.92, 0.94, 0.96, 0.98, 1.01]),
    rule: ([f, fp]) => (cs) => cs.filter((c) => c.raw >= f || c.contentRaw >= fp).slice(0, 5),
  },
  {
    name: "+ k × semantic, floor",
    params: grid(K, FLOORS.slice(6)),
    rule: weighted((c) => c.signals.semantic),
  },
  {
    name: "+ k × coverage, floor",
    params: grid(K, FLOORS.slice(6)),
    rule: weighted((c) => c.signals.coverage),
  },
  {
    name: "+ k × soft coverage, floor",
    params: grid(K, FLOORS.slice(6)),
    rule: weighted((c) => c.signals.softCoverage),
  },
  {
    name: "+ k × min(shared, 4) / 4, floor",
    params: grid(K, FLOORS.slice(6)),
    rule: weighted((c) => Math.min(c.signals.shared, 4) / 4),
  },
  {
    name: "+ k × best phrase's coverage, floor",
    params: grid(K, FLOORS.slice(6)),
    rule: weighted((c) => c.phraseCoverage),
  },
  {
    name: "+ k × best phrase's dense cosine, floor",
    params: grid(K, FLOORS.slice(6)),
    rule: weighted((c) => c.phraseSemantic),
  },
];
const results = candidates.map(({ name, params, rule }) => {
  const folds = SETS.map((held) => {
    const fit = SETS.filter((s) => s !== held);
    const ref = tally(today, fit);
    let best: { g: number[]; t: Tally } | null = null;
    for (const g of params) {
      const t = tally(rule(g), fit);
      if (t.injected * ref.everyday > ref.injected * t.everyday) continue;
      if (!best || t.hit > best.t.hit || (t.hit === best.t.hit && t.injected < best.t.injected)) {
        best = { g, t };
      }
    }
    // Today's rule is in every grid or at least as good as one of its points; none: today.
    const g = best?.g ?? null;
    const before = tally(today, [held]);
    const after = g ? tally(rule(g), [held]) : before;
    return { held_out: held, params: g, before, after };
  });
  const sum = (k: "before" | "after", f: keyof Tally) => folds.reduce((n, x) => n + x[k][f], 0);
  return {
    name,
    folds,
    gained_folds: folds.filter((f) => f.after.hit > f.before.hit).length,
    lost_folds: folds.filter((f) => f.after.hit < f.before.hit).length,
    everyday_over: folds.filter((f) =>
      f.after.injected / f.after.everyday > Math.max(0.05, f.before.injected / f.before.everyday)
    ).length,
    pooled: {
      before: { hit: sum("before", "hit"), injected: sum("before", "injected") },
      after: { hit: sum("after", "hit"), injected: sum("after", "injected") },
      aimed: sum("before", "aimed"),
      everyday: sum("before", "everyday"),
    },
  };
});
console.log(
  "\nLeave one set out (parameters chosen on the five other sets: most aimed injected with " +
    "everyday injected ≤ today's there); aimed injected / everyday injected, prompts:",
);
console.log(`| candidate | ${SETS.join(" | ")} | pooled | folds gained / lost / everyday over |`);
console.log(`|---|${SETS.map(() => "---").join("|")}|---|---|`);
for (const r of results) {
  const cells = r.folds.map((f) =>
    `${f.before.hit}/${f.before.injected} → ${f.after.hit}/${f.after.injected}`
  );
  console.log(
    `| ${r.name} | ${
      cells.join(" | ")
    } | ${r.pooled.before.hit}/${r.pooled.before.injected} → ${r.pooled.after.hit}/${r.pooled.after.injected} | ${r.gained_folds} / ${r.lost_folds} / ${r.everyday_over} |`,
  );
}
console.log(
  `\nToday per set (aimed / everyday injected): ${
    SETS.map((s) => `${s} ${rate(tally(today, [s]))}`).join(", ")
  }; the tool's first 5: ${
    SETS.map((s) => {
      const a = prompts.filter((p) => p.set === s && p.aimed);
      return `${s} ${
        f3(a.filter((p) => p.rows.slice(0, 5).some((r) => r.target)).length / a.length)
      }`;
    }).join(", ")
  }`,
);
const out = {
  date,
  deno: Deno.version.deno,
  load: Deno.loadavg(),
  sets: SETS,
  rows: values.groups ?? `hook-expanded-rows-${stamp}.json (not committed)`,
  today: Object.fromEntries(SETS.map((s) => [s, tally(today, [s])])),
  error_analysis: analysis,
  signal_medians: medians,
  floor_sweep: sweep,
  missed: missed.map(({ set, id, rank, raw, gap, holds, lifts }) => ({
    set,
    id,
    rank,
    raw: +f3(raw),
    gap: +gap.toFixed(2),
    holds,
    lifts,
  })),
  leave_one_set_out: results,
};
const file = `bench/results/hook-expanded-${stamp}.json`;
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.error(`wrote ${file}`);
