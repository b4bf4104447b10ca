/**
 * `deno run -A --lock=tests/deno.lock tasks/judge_gate.ts --detail FILE [--results DIR]`
 *
 * Which of the notes the model chose should the hook inject, and would the model's choice rerank
 * the agent's search (docs/recall.md, "After 0.23: a gate on what the judge chose, and the judge
 * as a reranker")? Reads the per-prompt detail of `tasks/judge_probe.ts --score --detail` run at
 * the wide pool (`--out bench/data/judge/wide --pool-limit 10 --pool-floor 0`: every note of the
 * first 10 results judged, so any narrower pool is a part of it) and scores, per set and store,
 * a small family of rules offline:
 *
 * - a **pool** (limit, floor): the product's {@link judgePool}; the model's choice among it is
 *   its recorded choice among the wide pool restricted to it (the probe's assumption), an empty
 *   pool falls back to the plain hook (floor 0.9), as does a judge that did not answer;
 * - a **gate** on the chosen notes: one is injected only if its confidence ≥ c, or its rank ≤
 *   k, or its score ≥ s, or (rank ≤ k or confidence ≥ c).
 *
 * The hook injects the chosen notes that pass (at most 3 a prompt on these sets, within the
 * hook's limit of 5); a prompt is "aimed injected" when one of them is its target or an `also`,
 * "everyday injected" when any is. Tokens a prompt are the judge's call at the pool (the fake's
 * count, `tokens_at`; a gate costs none). The rule is chosen **leave one set out**: on the other
 * sets pooled, the highest aimed rate with an everyday rate ≤ 0.05 (ties: fewer tokens; none
 * within: the lowest everyday rate), then reported on the set left out.
 *
 * Second table, the agent's search: per set and store, the `recall` tool's hit@5 today, the
 * first 5 of its first 10, and those 10 with the model's chosen notes moved first (rank order).
 * Prints the tables; writes `--results`/judge-gate-<time>.json.
 * @module
 */
import { benchArgs } from "./lib/args.ts";
import type { DetailNote as Note, DetailRow as Row } from "./lib/judge_detail.ts";

const USAGE = "deno run -A --lock=tests/deno.lock tasks/judge_gate.ts --detail FILE " +
  "[--results DIR]";
const values = benchArgs(USAGE, {
  detail: { type: "string" },
  results: { type: "string", default: "bench/results" },
});
if (!values.detail) {
  console.error(`--detail: the JSON of judge_probe.ts --score --detail\nusage: ${USAGE}`);
  Deno.exit(2);
}

const file = JSON.parse(await Deno.readTextFile(values.detail));
const rows: Row[] = file.detail?.prompts;
if (!Array.isArray(rows)) {
  console.error(`${values.detail}: no detail.prompts (run judge_probe.ts --score --detail)`);
  Deno.exit(2);
}
if (file.pool?.size !== 10 || file.pool?.floor !== 0) {
  console.error(`${values.detail}: judged at pool ${JSON.stringify(file.pool)}, need (10, 0)`);
  Deno.exit(2);
}
const sets: string[] = [...new Set(rows.map((r) => r.set))];

/** A rule: the pool asked about, and the gate on what the model chose. */
interface Rule {
  name: string;
  limit: number;
  floor: number;
  gate: (n: Note) => boolean;
}
const GATES: [string, (n: Note) => boolean][] = [
  ["confidence ≥ 0.3", (n) => n.confidence >= 0.3],
  ["confidence ≥ 0.5", (n) => n.confidence >= 0.5],
  ["confidence ≥ 0.7", (n) => n.confidence >= 0.7],
  ["rank ≤ 3", (n) => n.rank <= 3],
  ["score ≥ 0.3", (n) => n.score >= 0.3],
  ["score ≥ 0.5", (n) => n.score >= 0.5],
  ["rank ≤ 3 or confidence ≥ 0.7", (n) => n.rank <= 3 || n.confidence >= 0.7],
];
const RULES: Rule[] = [];
for (const [limit, floor] of [[5, 0.5], [5, 0], [8, 0.3], [8, 0], [10, 0]]) {
  RULES.push({ name: `pool (${limit}, ${floor})`, limit, floor, gate: () => true });
}
for (const [limit, floor] of [[5, 0], [8, 0], [10, 0]]) {
  for (const [g, gate] of GATES) {
    RULES.push({ name: `pool (${limit}, ${floor}), ${g}`, limit, floor, gate });
  }
}

interface Score {
  aimed: number;
  everyday: number;
  aimed_hit: number;
  everyday_injected: number;
  tokens: number;
  prompts: number;
}
/** What `rule` gives on `rs` (one store's rows). */
function score(rule: Rule, rs: Row[]): Score {
  const s: Score = {
    aimed: 0,
    everyday: 0,
    aimed_hit: 0,
    everyday_injected: 0,
    tokens: 0,
    prompts: 0,
  };
  for (const r of rs) {
    s.prompts++;
    let injected = false;
    let hit = false;
    if (r.searched) {
      const pool = r.notes.filter((n) => n.rank <= rule.limit && n.confidence >= rule.floor);
      s.tokens += r.tokens_at[`${rule.limit},${rule.floor}`] ?? NaN;
      if (!pool.length || r.outcome !== "chosen") {
        injected = r.plain_injected;
        hit = r.plain_hit;
      } else {
        const shown = pool.filter((n) => n.chosen && rule.gate(n));
        injected = shown.length > 0;
        hit = shown.some((n) => n.target || n.also);
      }
    }
    if (r.kind === "aimed") {
      s.aimed++;
      if (hit) s.aimed_hit++;
    } else {
      s.everyday++;
      if (injected) s.everyday_injected++;
    }
  }
  return s;
}
const rate = (x: number, n: number) => x / Math.max(1, n);
const fig = (s: Score) => ({
  aimed: +rate(s.aimed_hit, s.aimed).toFixed(3),
  everyday: +rate(s.everyday_injected, s.everyday).toFixed(3),
  tokens: Math.round(rate(s.tokens, s.prompts)),
});
const of = (store: string, ss: string[]) =>
  rows.filter((r) => r.store === store && ss.includes(r.set));

// The check: the wide pool without a gate is what the probe measured on the product path.
for (const set of sets) {
  for (const r of of("expanded", [set])) {
    const s = score(RULES[4], [r]);
    const injected = r.kind === "aimed" ? s.aimed_hit > 0 : s.everyday_injected > 0;
    const measured = r.kind === "aimed" ? r.judge_hit : r.judge_injected;
    if (injected !== measured) {
      throw new Error(`${set}: the offline score differs from the product path on a prompt`);
    }
  }
}

const TARGET_EVERYDAY = 0.05;
/** The rule chosen on `fit` (one store's rows of the fitting sets). */
function choose(fit: Row[]): Rule {
  const scored = RULES.map((rule) => ({ rule, f: fig(score(rule, fit)) }));
  const within = scored.filter((x) => x.f.everyday <= TARGET_EVERYDAY);
  const pick = within.length
    ? within.sort((a, b) => b.f.aimed - a.f.aimed || a.f.tokens - b.f.tokens)[0]
    : scored.sort((a, b) => a.f.everyday - b.f.everyday || b.f.aimed - a.f.aimed)[0];
  return pick.rule;
}

const out: Record<string, unknown> = {};
const lines: string[] = [];
const log = (l: string) => {
  lines.push(l);
  console.log(l);
};
log(`detail: ${values.detail}`);
log(
  `rules: ${RULES.length} (pools and gates); chosen leave one set out: the highest aimed rate ` +
    `on the other ${sets.length - 1} sets pooled with everyday ≤ ${TARGET_EVERYDAY} (ties: ` +
    "fewer tokens)",
);
for (const store of ["expanded", "plain"] as const) {
  const folds = sets.map((held) => {
    const rule = choose(of(store, sets.filter((s) => s !== held)));
    return {
      held,
      rule: rule.name,
      fit: fig(score(rule, of(store, sets.filter((s) => s !== held)))),
      out: fig(score(rule, of(store, [held]))),
      today: fig(score(RULES[0], of(store, [held]))),
      widest: fig(score(RULES[4], of(store, [held]))),
    };
  });
  log("");
  log(`### ${store} store: leave one set out (aimed / everyday / tokens a prompt)`);
  log(
    "| set left out | today (5, 0.5) | (10, 0) | rule chosen on the other sets | its fit | out of set |",
  );
  log("|---|---|---|---|---|---|");
  const c = (f: ReturnType<typeof fig>) =>
    `${f.aimed.toFixed(3)} / ${f.everyday.toFixed(3)} / ${f.tokens}`;
  for (const f of folds) {
    log(
      `| ${f.held} | ${c(f.today)} | ${c(f.widest)} | ${f.rule} | ${c(f.fit)} | **${c(f.out)}** |`,
    );
  }
  const grid = RULES.map((rule) => ({
    rule: rule.name,
    sets: Object.fromEntries(sets.map((s) => [s, fig(score(rule, of(store, [s])))])),
    pooled: fig(score(rule, of(store, sets))),
  }));
  log("");
  log(`${store} store, every rule (aimed / everyday / tokens a prompt), each set and pooled:`);
  log(`| rule | ${sets.join(" | ")} | pooled |`);
  log(`|---|${sets.map(() => "---|").join("")}---|`);
  for (const g of grid) {
    log(`| ${g.rule} | ${sets.map((s) => c(g.sets[s])).join(" | ")} | ${c(g.pooled)} |`);
  }
  out[store] = { folds, grid };
}

// The agent's search: the recall tool's hit@5, and its first 10 reranked by the model's choice.
log("");
log("### the agent's search (recall tool), aimed prompts: hit@5 today → first 10 reranked");
log(
  "| set | store | aimed | hit@5 today | first 5 of 10 | reranked by the judge | prompts with a choice |",
);
log("|---|---|---|---|---|---|---|");
const tool: Record<string, unknown>[] = [];
for (const store of ["expanded", "plain"] as const) {
  for (const set of [...sets, "pooled"]) {
    const rs = of(store, set === "pooled" ? sets : [set]).filter((r) => r.tool);
    const n = rs.length;
    const t = {
      set,
      store,
      aimed: n,
      hit5: +rate(rs.filter((r) => r.tool!.hit5).length, n).toFixed(3),
      hit5_of_k: +rate(rs.filter((r) => r.tool!.hit5_of_k).length, n).toFixed(3),
      rerank_hit5: +rate(rs.filter((r) => r.tool!.rerank_hit5).length, n).toFixed(3),
      with_choice: rs.filter((r) => r.tool!.chosen.length).length,
    };
    tool.push(t);
    log(
      `| ${set} | ${store} | ${n} | ${t.hit5.toFixed(3)} | ${t.hit5_of_k.toFixed(3)} | ` +
        `**${t.rerank_hit5.toFixed(3)}** | ${t.with_choice} |`,
    );
  }
}
out.tool = tool;
await Deno.mkdir(values.results!, { recursive: true });
const path = `${values.results}/judge-gate-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
await Deno.writeTextFile(
  path,
  JSON.stringify(
    {
      task: "tasks/judge_gate.ts",
      detail: values.detail,
      target_everyday: TARGET_EVERYDAY,
      rules: RULES.map((r) => r.name),
      ...out,
    },
    null,
    2,
  ) + "\n",
);
console.log(`wrote ${path}`);
