/**
 * `deno task bench:hnsw [--data DIR] [--size N] [--params LIST] [--queries N]`
 *
 * What the HNSW index parameters cost and return, on the embedded database (PGlite with its
 * pgvector) and real text: the turns of the conversations in DIR (LoCoMo's JSON format;
 * default `../shared/data/locomo-dev`), repeated with a numbered suffix up to `--size`
 * (default 10,000), embedded by the builtin embedder (768 dimensions), each given one of 20
 * projects. For each `m/ef_construction/ef_search` of `--params` (default: the previous and
 * the current parameters and three others) it inserts every row into a live index in chunks
 * of 50 (as an import does) and asks `--queries` nearest-15 questions (default 200, a few
 * words of a turn; every second one filtered to two projects, as a project search is), and
 * compares the index's answers with the exact ones of a sequential scan:
 * recall@15 = the share of the exact 15 nearest that the index returned (ties counted).
 * Prints a table and writes JSON to bench/results/hnsw-<time>.json.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { benchArgs, intFlag, LOCOMO_DEV } from "./lib/args.ts";
import { hashEmbedV2 } from "../src/embed/builtin.ts";

const values = benchArgs(
  "deno task bench:hnsw [--data DIR] [--size 10000] [--params m/ef_construction/ef_search,...] " +
    "[--queries 200]",
  {
    data: { type: "string", default: LOCOMO_DEV },
    size: { type: "string", default: "10000" },
    params: { type: "string", default: "12/40/60,8/32/60,8/32/100,10/40/60,8/64/80" },
    queries: { type: "string", default: "200" },
  },
);
const SIZE = intFlag("size", values.size);
const QUERIES = intFlag("queries", values.queries);
const K = 15;
const DIM = 768;
for (const [name, n] of [["--size", SIZE], ["--queries", QUERIES]] as const) {
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:hnsw: ${name} must be a positive integer`);
    Deno.exit(2);
  }
}
const configs = values.params.split(",").map((s) => {
  const [m, efc, efs] = s.split("/").map(Number);
  if (![m, efc, efs].every((x) => Number.isInteger(x) && x > 0)) {
    console.error(`bench:hnsw: --params: "${s}" is not m/ef_construction/ef_search`);
    Deno.exit(2);
  }
  return { m, efc, efs };
});

/** The turns of every conversation in `dir`, as the recall bench stores them. */
async function loadTurns(dir: string): Promise<string[]> {
  const texts: string[] = [];
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".json")) names.push(e.name);
  }
  for (const name of names.sort()) {
    const raw = JSON.parse(await Deno.readTextFile(`${dir}/${name}`));
    for (const s of Array.isArray(raw) ? raw : [raw]) {
      const conv = (s.conversation ?? s) as Record<string, unknown>;
      for (const [k, v] of Object.entries(conv)) {
        if (!/^session_\d+$/.test(k)) continue;
        for (const t of v as { speaker: string; text: string }[]) {
          texts.push(`${t.speaker}: ${t.text}`);
        }
      }
    }
  }
  if (!texts.length) throw new Error(`no conversations in ${dir}`);
  return texts;
}

const turns = await loadTurns(values.data);
const text = (i: number) =>
  turns[i % turns.length] + (i >= turns.length ? ` (${Math.floor(i / turns.length)})` : "");
const literal = (v: number[]) => `[${v.join(",")}]`;
// Embedded once, shared by every configuration.
const rows = Array.from({ length: SIZE }, (_, i) => ({
  id: i,
  p: i % 20,
  e: literal(hashEmbedV2(text(i), DIM)),
}));
const questions = Array.from({ length: QUERIES }, (_, q) => ({
  v: literal(hashEmbedV2(turns[(q * 37) % turns.length].split(" ").slice(1, 7).join(" "), DIM)),
  filter: q % 2 ? "p = 3 or p = 0" : "true",
}));

interface Row {
  m: number;
  ef_construction: number;
  ef_search: number;
  size: number;
  insert_ms_per_row: number;
  recall_at_15: number;
  index_query_ms: number;
}
const results: Row[] = [];
for (const { m, efc, efs } of configs) {
  console.error(`bench:hnsw: m = ${m}, ef_construction = ${efc}, ef_search = ${efs}…`);
  const pg = await PGlite.create({ extensions: { vector } });
  try {
    await pg.exec(`create extension vector;
      create table t (id int primary key, p int, e vector(${DIM}));
      create index on t using hnsw (e vector_cosine_ops) with (m = ${m}, ef_construction = ${efc});
      set hnsw.iterative_scan = relaxed_order; set hnsw.ef_search = ${efs}`);
    const t0 = performance.now();
    for (let i = 0; i < SIZE; i += 50) {
      await pg.query(
        "insert into t select * from jsonb_to_recordset($1::text::jsonb) as x(id int, p int, e vector)",
        [JSON.stringify(rows.slice(i, i + 50))],
      );
    }
    const insertMs = (performance.now() - t0) / SIZE;
    let found = 0, exact = 0, queryMs = 0;
    for (const { v, filter } of questions) {
      await pg.exec("set enable_seqscan = off; set enable_indexscan = on");
      const t1 = performance.now();
      const got = await pg.query<{ id: number }>(
        `select id from t where ${filter} order by e <=> $1 limit ${K}`,
        [v],
      );
      queryMs += performance.now() - t1;
      await pg.exec("set enable_seqscan = on; set enable_indexscan = off");
      const truth = await pg.query<{ d: number }>(
        `select e <=> $1 as d from t where ${filter} order by e <=> $1 limit ${K}`,
        [v],
      );
      // An index answer counts when it is as near as the exact K-th (ties are not misses).
      const kth = truth.rows[truth.rows.length - 1].d;
      const dist = await pg.query<{ d: number }>(
        "select e <=> $1 as d from t where id = any($2)",
        [v, got.rows.map((r) => r.id)],
      );
      found += dist.rows.filter((r) => r.d <= kth + 1e-9).length;
      exact += truth.rows.length;
    }
    results.push({
      m,
      ef_construction: efc,
      ef_search: efs,
      size: SIZE,
      insert_ms_per_row: Number(insertMs.toFixed(2)),
      recall_at_15: Number((found / exact).toFixed(3)),
      index_query_ms: Number((queryMs / QUERIES).toFixed(2)),
    });
  } finally {
    await pg.close();
  }
}

const cols = Object.keys(results[0]) as (keyof Row)[];
console.log(`| ${cols.join(" | ")} |`);
console.log(`|${cols.map(() => "---").join("|")}|`);
for (const r of results) console.log(`| ${cols.map((c) => r[c]).join(" | ")} |`);

const out = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  data: values.data,
  embedder: `builtin hash-v2, ${DIM} dimensions`,
  queries: QUERIES,
  results,
};
await Deno.mkdir(new URL("../bench/results/", import.meta.url), { recursive: true });
const file = new URL(
  `../bench/results/hnsw-${out.date.replace(/[:.]/g, "-")}.json`,
  import.meta.url,
);
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.error(`wrote ${file.pathname}`);
