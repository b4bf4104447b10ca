/**
 * `deno run -A --lock=tests/deno.lock tasks/profile_search.ts [--size 20000] [--searches 500]
 *   [--dir DIR]`
 *
 * Where a search's time goes at `--size` memories: `bench:memory`'s memories (the same
 * generated stream, imported in calls of 1,000 through the service, the series settled) and
 * its searches (half global, half a project's hierarchy, the same query stream), called on
 * the service directly, with the steps timed by wrapping them: the corpus statistics
 * (`Store.corpusStats`), the candidates' statement (`Store.candidatesWithDense`; on the embedded
 * database since 0.20 `Store.checkedCandidatesWithDense`, the embedder check in it), the
 * embedder, the dense encoder's query vector, and what is left (ranking, confidence). Prints
 * one JSON line with the percentiles of each step and of the whole, the process's CPU time a
 * search and the load. `--dir DIR` keeps the database in DIR (made on the first run, reused
 * after: the import is skipped). `--vector off` runs the candidates' statement without the
 * embedding's nearest neighbours (its `withVector` false: the lexical side and the dense leg),
 * to weigh what that side costs. Development only (not a test, not shipped).
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { loadMemoryConfig } from "../src/config.ts";
import { BuiltinEmbedder } from "../src/embed/builtin.ts";
import { importsSettled } from "../src/memory/diagnostics.ts";
import { createServiceOnDb, openDatabase } from "../src/memory/open.ts";
import { Store } from "../src/store/store.ts";
import { item, OBJECTS, pick, PROJECTS, reseed, SUBJECTS } from "./bench_items.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    size: { type: "string", default: "20000" },
    searches: { type: "string", default: "500" },
    dir: { type: "string" },
    vector: { type: "string", default: "on" },
  },
  strict: true,
});

const times: Record<string, number[]> = {};
let on = false;
// deno-lint-ignore no-explicit-any
function wrap(proto: any, name: string): void {
  const orig = proto[name];
  if (typeof orig !== "function") return;
  proto[name] = async function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    try {
      return await orig.apply(this, args);
    } finally {
      if (on) (times[name] ??= []).push(performance.now() - t);
    }
  };
}
if (values.vector === "off") {
  const orig = Store.prototype.candidatesWithDense;
  Store.prototype.candidatesWithDense = function (this: Store, ...args) {
    args[6] = false;
    return orig.apply(this, args);
  };
  // The embedded database's statement with the embedder check in it (since 0.20).
  const checked = Store.prototype.checkedCandidatesWithDense;
  if (checked) {
    Store.prototype.checkedCandidatesWithDense = function (this: Store, ...args) {
      args[6] = false;
      return checked.apply(this, args);
    };
  }
} else if (values.vector !== "on") throw new Error("--vector: on or off");
for (
  const m of ["corpusStats", "candidatesWithDense", "checkedCandidatesWithDense", "candidates"]
) {
  wrap(Store.prototype, m);
}
wrap(BuiltinEmbedder.prototype, "embed");

const size = Number(values.size);
const dir = values.dir ?? await Deno.makeTempDir({ prefix: "mneme-profile-" });
await Deno.mkdir(dir, { recursive: true });
const fresh = ![...Deno.readDirSync(dir)].length;
const env: Record<string, string> = { EMBEDDING_PROVIDER: "builtin", DATA_DIR: dir };
const cfg = loadMemoryConfig((n) => env[n] ?? Deno.env.get(n));
const { db, handle, release } = await openDatabase(cfg);
const service = await createServiceOnDb(db, cfg, { log: () => {}, handle });
reseed();
if (fresh) {
  for (let i = 0; i < size; i += 1000) {
    await service.import(Array.from({ length: Math.min(1000, size - i) }, (_, j) => item(i + j)));
  }
  await importsSettled(service);
} else {
  // The same query stream as a fresh run: the items' draws first.
  for (let i = 0; i < size; i++) item(i);
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(2);
};
// Warm-up: the word vectors, the plans.
for (let i = 0; i < 20; i++) await service.search({ query: "the api uses postgres 16" });
const blocks = async () =>
  (await db.query<{ hit: number; read: number }>(
    `select blks_hit::float8 as hit, blks_read::float8 as read from pg_stat_database
      where datname = current_database()`,
  ))[0];
const b0 = await blocks();
const total: number[] = [];
const n = Number(values.searches);
const cpu0 = process.cpuUsage();
on = true;
for (let i = 0; i < n; i++) {
  const q = `${pick(SUBJECTS)} ${pick(OBJECTS)}`;
  const t = performance.now();
  await service.search(i % 2 ? { query: q, project: pick(PROJECTS), limit: 5 } : { query: q });
  total.push(performance.now() - t);
}
on = false;
const cpu = process.cpuUsage(cpu0);
const b1 = await blocks();
const [{ shared_buffers }] = await db.query<{ shared_buffers: string }>("show shared_buffers");
const out: Record<string, unknown> = {
  size,
  vector: values.vector,
  load: Deno.loadavg().map((x) => +x.toFixed(2)),
  shared_buffers,
  cpu_ms: +((cpu.user + cpu.system) / 1000 / n).toFixed(2),
  // Pages a search found in the pool, and read from the file system (the OS page cache).
  blocks_hit: Math.round((b1.hit - b0.hit) / n),
  blocks_read: Math.round((b1.read - b0.read) / n),
  total: { p50: pct(total, 50), p95: pct(total, 95), p99: pct(total, 99), max: pct(total, 100) },
};
for (const [k, v] of Object.entries(times)) {
  out[k] = { p50: pct(v, 50), p95: pct(v, 95), p99: pct(v, 99), n: v.length };
}
console.log(JSON.stringify(out));
await service.close();
release();
if (!values.dir) await Deno.remove(dir, { recursive: true });
