/**
 * `deno task bench:scope [TOTAL]` (default 2000)
 *
 * How the threshold of exact nearest-neighbour reads (EXACT_SCOPE_MAX and EXACT_SCOPE_SHARE in
 * src/store/store.ts) was chosen: on in-process PGlite with the builtin embedder's vectors,
 * TOTAL memories of `bench:memory`'s sentences: 100 global ones, projects of 50, 200, 500,
 * 1,000, 2,000 and 4,000 memories (those that fit in 60% of TOTAL), the rest in one project.
 * For each scope (global; each project alone; each with the global memories; the large
 * project) 60 queries (the first 10 not timed), each read both ways with sequential scans off:
 * through the HNSW index with the scope as a filter (the statement of `Store.nearest` before
 * 0.13), and exactly (the scope's rows through the btree, ordered by distance + 0). Prints and
 * writes to bench/results/scope-TOTAL-<timestamp>.json the p50/p95 of each (ms), and the HNSW
 * read's recall@15 against the exact one. Its two statements are written here, not taken from
 * src/store/store.ts (`nearestStatement`, `scopeClause`), so that the HNSW read stays the one
 * before 0.13 whatever the store does: change them together when the store's reads change.
 */
import { pgliteService } from "../tests/helpers.ts";
import { hashEmbedV2 } from "../src/embed/builtin.ts";
import { OBJECTS, pick, sentence, SUBJECTS, TYPES } from "./bench_items.ts";
import type { ImportItem } from "../src/memory/types.ts";
import { benchParse } from "./lib/args.ts";

const { positionals } = benchParse("deno task bench:scope [TOTAL]", {}, Deno.args, 1);
const total = Number(positionals[0] ?? 2000);
if (!Number.isInteger(total) || total < 100) {
  console.error(`bench:scope: TOTAL must be an integer of at least 100, not ${positionals[0]}`);
  Deno.exit(2);
}
const K = 15;
const smalls: [string | null, number][] = [[null, 100]];
let used = 100;
for (const n of [50, 200, 500, 1000, 2000, 4000]) {
  if (used + n > total * 0.6) break;
  smalls.push([`s${n}`, n]);
  used += n;
}
const items: ImportItem[] = [];
let i = 0;
for (const [p, n] of smalls) {
  for (let j = 0; j < n; j++) {
    items.push({
      content: sentence(i++),
      ...(p ? { scope: "project" as const, project: p } : {}),
      type: pick([...TYPES]),
    });
  }
}
while (items.length < total) {
  items.push({ content: sentence(i++), scope: "project", project: "big", type: pick([...TYPES]) });
}
const { service, db, close } = await pgliteService();
for (let s = 0; s < items.length; s += 10000) await service.import(items.slice(s, s + 10000));
const dim = service.storedEmbedder.dimension;
const vec = (v: number[]) => `[${v.join(",")}]`;
const live = `m.superseded_by is null`;
async function run(where: string, order: string, q: number[]): Promise<[number, string[]]> {
  const t = performance.now();
  const rows = await db.transaction(async (tx) => {
    await tx.exec("set local enable_seqscan = off");
    return await tx.query<{ id: string }>(
      `select m.id from memories m where ${where} and ${live} order by ${order} limit ${K}`,
      [vec(q)],
    );
  });
  return [performance.now() - t, rows.map((r) => r.id)];
}
const out: Record<string, unknown>[] = [];
const scopes: [string, string, string, number][] = [];
for (const [p, n] of smalls) {
  if (p === null) scopes.push(["global", "m.scope <> 'project'", "m.scope = 'global'", n]);
  else {
    scopes.push([
      `project ${p}`,
      `(m.scope <> 'global' and coalesce(m.project, '') = '${p}')`,
      `(m.scope = 'project' and m.project = '${p}')`,
      n,
    ]);
    scopes.push([
      `hierarchy ${p}`,
      `(m.scope <> 'project' or coalesce(m.project, '') = '${p}')`,
      `(m.scope = 'global' or (m.scope = 'project' and m.project = '${p}'))`,
      n + 100,
    ]);
  }
}
scopes.push([
  "project big",
  "(m.scope <> 'global' and coalesce(m.project, '') = 'big')",
  "(m.scope = 'project' and m.project = 'big')",
  total - used,
]);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p / 100)];
for (const [name, hw, ew, n] of scopes) {
  const th: number[] = [], te: number[] = [];
  let hit = 0;
  for (let r = 0; r < 60; r++) {
    const q = hashEmbedV2(`${pick(SUBJECTS)} ${pick(OBJECTS)}`, dim);
    const [a, ha] = await run(hw, "m.embedding <=> $1::vector", q);
    const [b, ea] = await run(ew, "(m.embedding <=> $1::vector) + 0", q);
    if (r >= 10) {
      th.push(a);
      te.push(b);
    }
    const es = new Set(ea);
    hit += ha.filter((x) => es.has(x)).length / Math.max(1, ea.length);
  }
  const row = {
    total,
    scope: name,
    n,
    hnsw_p50: +pct(th, 50).toFixed(2),
    hnsw_p95: +pct(th, 95).toFixed(2),
    exact_p50: +pct(te, 50).toFixed(2),
    exact_p95: +pct(te, 95).toFixed(2),
    hnsw_recall: +(hit / 60).toFixed(3),
  };
  out.push(row);
  console.log(JSON.stringify(row));
}
await close();
const date = new Date().toISOString();
const file = new URL(
  `../bench/results/scope-${total}-${date.replace(/[:.]/g, "-")}.json`,
  import.meta.url,
);
await Deno.writeTextFile(file, JSON.stringify({ date, k: K, rows: out }, null, 2) + "\n");
console.error(`wrote ${file.pathname}`);
