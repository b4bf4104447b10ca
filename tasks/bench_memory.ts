/**
 * `deno task bench:memory [--sizes 1000,10000] [--full] [--backends pglite,postgres]
 *   [--database-url URL] [--fsync on|off|on,off] [--reembed] [--chunk 10000]
 *   [--baseline DIR] [--concurrency 50 [--daemons 1,2] [--duration 10]] [--scoped]`
 *
 * Benchmarks the memory service with the builtin embedder through the real HTTP Admin API
 * (started in-process on a loopback port): import throughput, create latency, search
 * latency, and peak RSS, at 1k and 10k memories (100k with `--full`: it takes minutes).
 *
 * Backends: `pglite` is the embedded database in a temporary DATA_DIR; `postgres` is the
 * Postgres adapter (postgres.js) over the wire, against `--database-url` (a server with
 * pgvector; the database is emptied first) or, by default, PGlite behind pglite-socket.
 * `--fsync` chooses the embedded database's durability (on is the default of the daemon;
 * `on,off` measures both). `--reembed` then re-embeds every memory (batches of 1000, as
 * `memcli reembed --batch-size 1000`) and measures the same requests meanwhile. While the
 * import runs, `/healthz`, a list and a search are asked in turn (one every 50 ms, from a
 * worker): their latency is the daemon's responsiveness during long jobs. `import_cpu_s` is
 * the process's CPU time during the import (less skewed than wall time on a shared machine).
 * `search_*` are the first searches after the imports (and the quiet spell below), over HTTP
 * from this process. Then the same searches again, each asked three ways in turn, so that all
 * meet the database in one state (since 0.20): over HTTP from this process
 * (`search_inturn_*`), over HTTP from a worker thread, a client with its own event loop as a
 * real client in another process has (`search_worker_*`), and the service called directly
 * (`direct_inturn_*`): their differences are what HTTP and the client add.
 * `direct_*` is the baseline of the search figures, measured in the same run: direct calls of
 * the service (no HTTP), alternating the search call as it ships (prepared per connection on
 * server Postgres) with an unnamed statement (`direct_unprepared_*`, as before 2026-11-25).
 * `--scoped` imports memories of which 2% are global and the rest spread over 100 projects
 * (1% each), and adds the latency of searches whose scope is small among them (direct calls,
 * alternating): without a project (`scoped_global_*`: the global memories), within a project
 * with the global memories (`scoped_hierarchy_*`, the default with a project) and within a
 * project only (`scoped_project_*`, `scope: "project"`).
 * `--chunk N` is the number of items per import call (default 10,000, the most one call
 * takes; clients chunk by 1,000). `series_per_s` (trees from 0.16) counts the series of imports
 * to its end: the HNSW indexes it deferred built and its analyze run, which the daemon does
 * after a quiet spell (src/memory/importer.ts). `disk_mb` is the size of the embedded database's DATA_DIR
 * after the run, the daemon closed (pglite only). On the embedded database the latencies are
 * measured after a quiet spell of 3 s ({@link RENEW_QUIET_MS}, since 0.19), in which the daemon
 * renews its database's worker as it does a second after a series of imports: the searches and
 * creates run with the buffer pool the daemon has for the data (`shared_buffers`), not the
 * smallest one it opened the empty database with.
 *
 * `--baseline DIR` (a checkout of an earlier version: `git archive REF | tar -x -C DIR`)
 * measures that version too, with the same flags: for each backend and size, the baseline in
 * a process of its own (this file run with `--tree DIR`: the admin server, configuration and
 * client modules loaded from DIR), then this tree in another, so that each peak RSS is its
 * own process's; rows alternate. The table's `version` column names which.
 * Prints a table and writes JSON to bench/results/memory-<timestamp>.json.
 *
 * With `--database-url` the admin server pools connections as it does in production
 * (PGMAX, default 10); against pglite-socket it uses one connection (one at a time there).
 * `--concurrency N` (server Postgres only) adds, after each size, a throughput run: N
 * concurrent clients (half searching within a project, half globally, one request in ten a
 * create) for `--duration` seconds against 1 and then 2 admin daemon processes
 * (`src/bin/admin.ts`) on the same database, the clients spread over the daemons.
 *
 * `--settle` lets the database finish what the import left behind before the latencies are
 * measured: on a server, waiting (at most 120 s) until no autovacuum or autoanalyze works on
 * the database, then `VACUUM ANALYZE` of the tables the import filled (so that no worker
 * starts on them meanwhile), then a `CHECKPOINT` (the URL's role needs the right to run it);
 * `settle_s` is how long that took. Without it the searches and creates run at once after
 * the import, while the server may still be writing the import's pages and vacuuming and
 * analyzing its tables (on a machine of two cores, a worker beside the search).
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "../tests/deps.ts";
import process from "node:process";
import { benchArgs } from "./lib/args.ts";
import type { startAdminServer as StartAdminServer } from "../src/admin/server.ts";
import type { loadMemoryConfig as LoadMemoryConfig } from "../src/config.ts";
import type { MemoryClient as MemoryClientClass } from "../src/memory/client.ts";
import type { SqlMemoryService } from "../src/memory/service.ts";
import type { Db } from "../src/store/db.ts";
import {
  item as plainItem,
  OBJECTS,
  pick,
  PROJECTS,
  SCOPED_PROJECTS,
  scopedItem,
  SUBJECTS,
} from "./bench_items.ts";
import type { Store } from "../src/store/store.ts";

const values = benchArgs(
  "deno task bench:memory [--sizes 1000,10000] [--full] [--backends pglite,postgres] [--database-url URL] [--fsync on|off|on,off] [--reembed] [--chunk 10000] [--creates 200] [--searches 500] [--baseline DIR] [--concurrency 50 [--daemons 1,2] [--duration 10]] [--scoped] [--settle]",
  {
    sizes: { type: "string" },
    full: { type: "boolean", default: false },
    backends: { type: "string", default: "pglite,postgres" },
    "database-url": { type: "string" },
    creates: { type: "string", default: "200" },
    searches: { type: "string", default: "500" },
    fsync: { type: "string", default: "on" },
    concurrency: { type: "string", default: "0" },
    daemons: { type: "string", default: "1,2" },
    duration: { type: "string", default: "10" },
    reembed: { type: "boolean", default: false },
    settle: { type: "boolean", default: false },
    scoped: { type: "boolean", default: false },
    chunk: { type: "string", default: "10000" },
    baseline: { type: "string" },
    // Internal: the tree whose modules a child of `--baseline` loads, and where it writes rows.
    tree: { type: "string" },
    "rows-to": { type: "string" },
  },
);

// The modules under test: this tree's, or `--tree DIR`'s (a child of `--baseline`).
const TREE = values.tree
  ? new URL(`file://${Deno.realPathSync(values.tree)}/`)
  : new URL("../", import.meta.url);
const { startAdminServer } = await import(new URL("src/admin/server.ts", TREE).href) as {
  startAdminServer: typeof StartAdminServer;
};
const { loadMemoryConfig } = await import(new URL("src/config.ts", TREE).href) as {
  loadMemoryConfig: typeof LoadMemoryConfig;
};
const { MemoryClient } = await import(new URL("src/memory/client.ts", TREE).href) as {
  MemoryClient: typeof MemoryClientClass;
};
// The tree's diagnostics (src/memory/diagnostics.ts; none before 0.15): `importsSettled`
// resolves once a series of imports' deferred work has run (trees from 0.16).
const diagnostics = await import(new URL("src/memory/diagnostics.ts", TREE).href).catch(
  () => ({}),
) as {
  storeOf?: (service: unknown) => Store;
  importsSettled?: (service: unknown) => Promise<void>;
};
const settled = diagnostics.importsSettled ?? null;
/**
 * The store under a service of the tree under test: `storeOf` of its
 * src/memory/diagnostics.ts since 0.15, the service's `store` getter before.
 */
// deno-lint-ignore no-explicit-any
function storeOf(service: any): Store {
  return diagnostics.storeOf ? diagnostics.storeOf(service) : service.store;
}
const TREE_VERSION = JSON.parse(await Deno.readTextFile(new URL("deno.json", TREE))).version;

const sizes = (values.sizes ?? (values.full ? "1000,10000,100000" : "1000,10000"))
  .split(",").map(Number);
const backends = values.backends!.split(",");
const fsyncModes = values.fsync!.split(",").map((m) => {
  if (m !== "on" && m !== "off") throw new Error(`--fsync: on or off, not ${m}`);
  return m;
});
const CREATES = Number(values.creates);
const SEARCHES = Number(values.searches);
const CONCURRENCY = Number(values.concurrency);
const DAEMONS = values.daemons!.split(",").map(Number);
const DURATION_S = Number(values.duration);
const item = values.scoped ? scopedItem : plainItem;
/**
 * The quiet spell after the imports on the embedded database (ms): the daemon renews its
 * worker after a second without statements (RENEW_AFTER_IMPORT_MS, src/memory/importer.ts),
 * and the renewal reopens the database.
 */
const RENEW_QUIET_MS = 3000;
const CHUNK = Number(values.chunk);
if (!Number.isInteger(CHUNK) || CHUNK < 1 || CHUNK > 10_000) {
  console.error(`--chunk must be an integer from 1 to 10000, not ${values.chunk}`);
  Deno.exit(2);
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
}, 50);

interface Row {
  version: string;
  backend: string;
  fsync: string;
  size: number;
  import_s: number;
  import_per_s: number;
  /** The imports and the work they left due (deferred index build, analyze): trees from 0.16. */
  series_per_s?: number;
  import_cpu_s: number;
  healthz_during_import_p50_ms: number;
  healthz_during_import_p95_ms: number;
  healthz_during_import_max_ms: number;
  healthz_samples: number;
  reads_during_import_p50_ms: number;
  reads_during_import_p95_ms: number;
  reads_during_import_max_ms: number;
  reads_samples: number;
  create_p50_ms: number;
  create_p95_ms: number;
  /** The database's buffer pool while the latencies were measured. */
  shared_buffers?: string;
  search_p50_ms: number;
  search_p95_ms: number;
  search_p99_ms: number;
  /** Over HTTP from this process, asked in turn with the two below (after `search_*`). */
  search_inturn_p50_ms: number;
  search_inturn_p95_ms: number;
  /** Over HTTP from a worker thread (its own event loop and heap, as another process). */
  search_worker_p50_ms: number;
  search_worker_p95_ms: number;
  /** The service called directly, in turn with the two above. */
  direct_inturn_p50_ms: number;
  direct_inturn_p95_ms: number;
  direct_p50_ms: number;
  direct_p95_ms: number;
  direct_unprepared_p50_ms: number;
  direct_unprepared_p95_ms: number;
  peak_rss_mb: number;
  disk_mb?: number;
  settle_s?: number;
  reembed_s?: number;
  reads_during_reembed_p95_ms?: number;
  reads_during_reembed_max_ms?: number;
  scoped_global_p50_ms?: number;
  scoped_global_p95_ms?: number;
  scoped_hierarchy_p50_ms?: number;
  scoped_hierarchy_p95_ms?: number;
  scoped_project_p50_ms?: number;
  scoped_project_p95_ms?: number;
}

// Requests in turn: /healthz, a list and a search (reads of the database).
const PROBER = `
let on = true;
const out = { healthz: [], reads: [] };
self.onmessage = async (e) => {
  if (e.data.stop) { on = false; return; }
  const base = e.data.base;
  const asks = [
    ["healthz", () => fetch(base + "/healthz")],
    ["reads", () => fetch(base + "/api/memories?limit=20")],
    ["reads", () => fetch(base + "/api/memories/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "the database uses postgres 16", limit: 5 }),
    })],
  ];
  for (let i = 0; on; i++) {
    const [kind, ask] = asks[i % asks.length];
    const t = performance.now();
    const res = await ask();
    await res.body?.cancel();
    out[kind].push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 50));
  }
  self.postMessage(out);
};`;

/**
 * Ask the server every 50 ms from a worker until `stop()`, which returns the latencies (ms)
 * of `/healthz` and of reads (list, search).
 */
function startProber(base: string): { stop(): Promise<{ healthz: number[]; reads: number[] }> } {
  const src = URL.createObjectURL(new Blob([PROBER], { type: "application/javascript" }));
  const worker = new Worker(src, { type: "module" });
  const done = new Promise<{ healthz: number[]; reads: number[] }>((resolve) =>
    worker.onmessage = (e) => resolve(e.data)
  );
  worker.postMessage({ base });
  return {
    async stop() {
      worker.postMessage({ stop: true });
      const out = await done;
      worker.terminate();
      URL.revokeObjectURL(src);
      return out;
    },
  };
}

async function openBackend(
  backend: string,
): Promise<{ env: Record<string, string>; dir?: string; close(): Promise<void> }> {
  if (backend === "pglite") {
    const dir = await Deno.makeTempDir({ prefix: "mneme-bench-" });
    return {
      env: { DATA_DIR: dir },
      dir,
      close: () => Deno.remove(dir, { recursive: true }),
    };
  }
  if (values["database-url"]) {
    return { env: { DATABASE_URL: values["database-url"] }, close: () => Promise.resolve() };
  }
  const pg = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db: pg, port: 0, host: "127.0.0.1" });
  await server.start();
  const port = server.getServerConn().split(":").pop();
  return {
    env: { DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${port}/postgres` },
    async close() {
      await server.stop();
      await pg.close();
    },
  };
}

/**
 * `--settle`: do now what the server would do at some moment after the import: wait for the
 * autovacuum and autoanalyze workers at work on this database (at most 120 s), vacuum and
 * analyze the tables the import filled (so that no worker starts on them during the
 * measurements: the launcher looks once a minute), then a checkpoint. Seconds taken.
 */
async function settle(db: Db): Promise<number> {
  const t0 = performance.now();
  if (db.kind === "postgres") {
    while (performance.now() - t0 < 120_000) {
      const [{ n }] = await db.query<{ n: number }>(
        `select (select count(*) from pg_stat_progress_vacuum where datname = current_database())
              + (select count(*) from pg_stat_progress_analyze where datname = current_database())
                as n`,
      );
      if (Number(n) === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await db.exec(
      "vacuum analyze memories, memory_nums, memory_postings, memory_term_keys, memory_term_df, memory_corpus",
    );
  }
  await db.exec("checkpoint");
  return (performance.now() - t0) / 1000;
}

/**
 * The baseline of the search figures: the same kind of searches as direct calls of the service
 * (no HTTP), in blocks of 50 that alternate between the search call as it ships (prepared on
 * each connection on server Postgres) and the driver's default before (an unnamed statement:
 * two round trips). PGlite ignores the option, so there both columns measure the same code.
 */
async function directSearches(
  service: SqlMemoryService,
): Promise<{ prepared: number[]; unprepared: number[] }> {
  const out = { prepared: [] as number[], unprepared: [] as number[] };
  const db = storeOf(service).db;
  const shipped = db.query;
  const unprepared =
    (<T>(text: string, params?: unknown[]) => shipped.call(db, text, params) as Promise<T[]>) as Db[
      "query"
    ];
  try {
    for (let block = 0; block < Math.ceil(SEARCHES / 50); block++) {
      const prepared = block % 2 === 0;
      db.query = prepared ? shipped : unprepared;
      for (let i = 0; i < 50; i++) {
        const q = `${pick(SUBJECTS)} ${pick(OBJECTS)}`;
        const t = performance.now();
        await service.search(
          i % 2 ? { query: q, project: pick(PROJECTS), limit: 5 } : { query: q },
        );
        (prepared ? out.prepared : out.unprepared).push(performance.now() - t);
      }
    }
  } finally {
    db.query = shipped;
  }
  return out;
}

// A search client in a worker thread: a search per message, its latency (ms) back.
const SEARCHER = `
self.onmessage = async (e) => {
  const t = performance.now();
  const res = await fetch(e.data.base + "/api/memories/search", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(e.data.input),
  });
  if (!res.ok) throw new Error("search answered " + res.status);
  await res.json();
  self.postMessage(performance.now() - t);
};`;

/**
 * SEARCHES searches, each asked three ways one after the other, in an order that turns: over
 * HTTP from this process (bench:memory's client, sharing the server's event loop), over HTTP
 * from a worker thread (a client with its own event loop and heap, as a real client in another
 * process) and as a direct call of the service. All three meet the database in the same state
 * (its pool as warm), so their differences are the HTTP path's and the client's; `search_*`,
 * measured first, also holds the first searches after the worker's renewal.
 */
async function searchesInTurn(
  service: SqlMemoryService,
  client: MemoryClientClass,
  base: string,
): Promise<{ http: number[]; worker: number[]; direct: number[] }> {
  const src = URL.createObjectURL(new Blob([SEARCHER], { type: "application/javascript" }));
  const worker = new Worker(src, { type: "module" });
  let answer: (ms: number) => void = () => {};
  let fail: (err: unknown) => void = () => {};
  worker.onmessage = (e) => answer(e.data);
  worker.onerror = (e) => {
    e.preventDefault();
    fail(new Error(`the worker's search failed: ${e.message}`));
  };
  const out = { http: [] as number[], worker: [] as number[], direct: [] as number[] };
  try {
    for (let i = 0; i < SEARCHES; i++) {
      const q = `${pick(SUBJECTS)} ${pick(OBJECTS)}`;
      const input = i % 2 ? { query: q, project: pick(PROJECTS), limit: 5 } : { query: q };
      const ways: (() => Promise<void>)[] = [
        async () => {
          const t = performance.now();
          await client.search(input);
          out.http.push(performance.now() - t);
        },
        async () => {
          out.worker.push(
            await new Promise<number>((resolve, reject) => {
              answer = resolve;
              fail = reject;
              worker.postMessage({ base, input });
            }),
          );
        },
        async () => {
          const t = performance.now();
          await service.search(input);
          out.direct.push(performance.now() - t);
        },
      ];
      for (let k = 0; k < ways.length; k++) await ways[(i + k) % ways.length]();
    }
  } finally {
    worker.terminate();
    URL.revokeObjectURL(src);
  }
  return out;
}

/**
 * `--scoped`: searches over small scopes as direct calls of the service, the three kinds in
 * turn (global memories; a project's with the global ones; a project's only), SEARCHES of each.
 */
async function scopedSearches(service: SqlMemoryService): Promise<Partial<Row>> {
  const lat = { global: [] as number[], hierarchy: [] as number[], project: [] as number[] };
  for (let i = 0; i < SEARCHES * 3; i++) {
    const q = `${pick(SUBJECTS)} ${pick(OBJECTS)}`;
    const project = pick(SCOPED_PROJECTS);
    const kind = (["global", "hierarchy", "project"] as const)[i % 3];
    const t = performance.now();
    await service.search(
      kind === "global"
        ? { query: q }
        : kind === "hierarchy"
        ? { query: q, project, limit: 5 }
        : { query: q, scope: "project", project, limit: 5 },
    );
    lat[kind].push(performance.now() - t);
  }
  return {
    scoped_global_p50_ms: +pct(lat.global, 50).toFixed(2),
    scoped_global_p95_ms: +pct(lat.global, 95).toFixed(2),
    scoped_hierarchy_p50_ms: +pct(lat.hierarchy, 50).toFixed(2),
    scoped_hierarchy_p95_ms: +pct(lat.hierarchy, 95).toFixed(2),
    scoped_project_p50_ms: +pct(lat.project, 50).toFixed(2),
    scoped_project_p95_ms: +pct(lat.project, 95).toFixed(2),
  };
}

/** Bytes of the files under `dir`. */
async function duBytes(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) n += await duBytes(path);
    else if (e.isFile) n += (await Deno.stat(path)).size;
  }
  return n;
}

async function bench(backend: string, size: number, fsync: string): Promise<Row> {
  const be = await openBackend(backend);
  let row: Row | undefined;
  try {
    row = await benchOn(be, backend, size, fsync);
    if (be.dir) row.disk_mb = +((await duBytes(be.dir)) / 2 ** 20).toFixed(1);
    return row;
  } finally {
    await be.close();
  }
}

async function benchOn(
  be: Awaited<ReturnType<typeof openBackend>>,
  backend: string,
  size: number,
  fsync: string,
): Promise<Row> {
  const env = { EMBEDDING_PROVIDER: "builtin", ADMIN_PORT: "0", ...be.env };
  const cfg = loadMemoryConfig((n) => env[n as keyof typeof env] ?? Deno.env.get(n));
  // The pglite-socket server serves one connection at a time: one pooled connection there;
  // a real server gets the production pool.
  const server = await startAdminServer(cfg, {
    maxConnections: values["database-url"] ? undefined : 1,
    log: () => {},
    durable: fsync === "on",
  });
  const client = new MemoryClient({ baseUrl: server.url });
  try {
    if (backend === "postgres" && values["database-url"]) {
      await storeOf(server.service).db.exec("truncate memories cascade");
      storeOf(server.service).invalidateStats();
    }
    peakRss = Deno.memoryUsage().rss;
    // Import throughput: the whole size in imports of CHUNK (default 10,000, the most one
    // import takes).
    // Meanwhile /healthz, a list and a search in turn, from a worker (its own thread and event
    // loop, like another process): a blocked daemon shows in these latencies.
    const prober = startProber(server.url);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < size; i += CHUNK) {
      const chunk = Array.from({ length: Math.min(CHUNK, size - i) }, (_, j) => item(i + j));
      await client.import(chunk);
    }
    const importS = (performance.now() - t0) / 1000;
    // The series to its end: the indexes it deferred built and its analyze run (in the
    // background, after a quiet spell; src/memory/importer.ts).
    if (settled) await settled(server.service);
    const seriesS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const { healthz, reads } = await prober.stop();
    const importPerS = size / importS;
    const settleS = values.settle ? await settle(storeOf(server.service).db) : undefined;
    // The embedded database's worker is renewed once the database has been quiet a second
    // after a series of bulk imports (src/memory/importer.ts), and opens with a buffer pool
    // sized for the data then (src/store/pglite/settings.ts; the pool is fixed at each open:
    // a daemon started on an empty database has the smallest until then). The latencies
    // below are the daemon's after it, as after any pause of a second: a quiet spell first.
    if (backend === "pglite") await new Promise((r) => setTimeout(r, RENEW_QUIET_MS));
    const pool = await storeOf(server.service).db.query<{ shared_buffers: string }>(
      "show shared_buffers",
    );
    // Search latency: hierarchical and global queries, the first SEARCHES after the quiet
    // spell (the database's worker just renewed: its pool still fills).
    const search: number[] = [];
    for (let i = 0; i < SEARCHES; i++) {
      const q = `${pick(SUBJECTS)} ${pick(OBJECTS)}`;
      const t = performance.now();
      await client.search(i % 2 ? { query: q, project: pick(PROJECTS), limit: 5 } : { query: q });
      search.push(performance.now() - t);
    }
    // The same searches again, each asked three ways in turn: what HTTP adds to a direct call
    // in one state of the database.
    const inTurn = await searchesInTurn(server.service, client, server.url);
    const direct = await directSearches(server.service);
    const scoped = values.scoped ? await scopedSearches(server.service) : {};
    // Create latency (embedding, contradiction check, insert with a live HNSW index).
    const create: number[] = [];
    for (let i = 0; i < CREATES; i++) {
      const t = performance.now();
      await client.create(item(size + i) as never);
      create.push(performance.now() - t);
    }
    // Re-embedding every memory (the same embedder: a full run) while the prober asks.
    let reembed: Partial<Row> = {};
    if (values.reembed) {
      const during = startProber(server.url);
      const t1 = performance.now();
      while (!(await client.reembed({ batchSize: 1000 })).finished) { /* next batch */ }
      const reembedS = (performance.now() - t1) / 1000;
      const r = await during.stop();
      const all = [...r.healthz, ...r.reads];
      reembed = {
        reembed_s: +reembedS.toFixed(1),
        reads_during_reembed_p95_ms: +pct(all, 95).toFixed(1),
        reads_during_reembed_max_ms: +Math.max(...all).toFixed(1),
      };
    }
    return {
      version: values.tree ? `${TREE_VERSION} ${TREE.pathname}` : `${TREE_VERSION} this tree`,
      backend,
      fsync: backend === "pglite" ? fsync : "server",
      size,
      import_s: +importS.toFixed(1),
      import_per_s: Math.round(importPerS),
      ...(settled ? { series_per_s: Math.round(size / seriesS) } : {}),
      import_cpu_s: +((cpu.user + cpu.system) / 1e6).toFixed(1),
      healthz_during_import_p50_ms: +pct(healthz, 50).toFixed(1),
      healthz_during_import_p95_ms: +pct(healthz, 95).toFixed(1),
      healthz_during_import_max_ms: +Math.max(...healthz).toFixed(1),
      healthz_samples: healthz.length,
      reads_during_import_p50_ms: +pct(reads, 50).toFixed(1),
      reads_during_import_p95_ms: +pct(reads, 95).toFixed(1),
      reads_during_import_max_ms: +Math.max(...reads).toFixed(1),
      reads_samples: reads.length,
      create_p50_ms: +pct(create, 50).toFixed(2),
      create_p95_ms: +pct(create, 95).toFixed(2),
      shared_buffers: pool[0]?.shared_buffers,
      search_p50_ms: +pct(search, 50).toFixed(2),
      search_p95_ms: +pct(search, 95).toFixed(2),
      search_p99_ms: +pct(search, 99).toFixed(2),
      search_inturn_p50_ms: +pct(inTurn.http, 50).toFixed(2),
      search_inturn_p95_ms: +pct(inTurn.http, 95).toFixed(2),
      search_worker_p50_ms: +pct(inTurn.worker, 50).toFixed(2),
      search_worker_p95_ms: +pct(inTurn.worker, 95).toFixed(2),
      direct_inturn_p50_ms: +pct(inTurn.direct, 50).toFixed(2),
      direct_inturn_p95_ms: +pct(inTurn.direct, 95).toFixed(2),
      direct_p50_ms: +pct(direct.prepared, 50).toFixed(2),
      direct_p95_ms: +pct(direct.prepared, 95).toFixed(2),
      direct_unprepared_p50_ms: +pct(direct.unprepared, 50).toFixed(2),
      direct_unprepared_p95_ms: +pct(direct.unprepared, 95).toFixed(2),
      peak_rss_mb: Math.round(peakRss / 1048576),
      ...(settleS === undefined ? {} : { settle_s: +settleS.toFixed(1) }),
      ...reembed,
      ...scoped,
    };
  } finally {
    await server.close();
  }
}

interface ConcurrentRow {
  size: number;
  daemons: number;
  clients: number;
  requests_per_s: number;
  p50_ms: number;
  p95_ms: number;
  errors: number;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Start an admin daemon process on the database; resolves when /healthz answers 200. */
async function daemon(url: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../src/bin/admin.ts", import.meta.url).pathname],
    env: {
      DATABASE_URL: url,
      EMBEDDING_PROVIDER: "builtin",
      ADMIN_PORT: String(port),
      ADMIN_HOST: "127.0.0.1",
      DATA_DIR: "/nonexistent-mneme-bench",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
  };
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(`${base}/healthz`);
      await r.body?.cancel();
      if (r.status === 200) return { url: base, stop };
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error("admin daemon did not start");
}

/** N clients for DURATION_S seconds against `n` daemon processes on one database. */
async function concurrent(size: number, n: number): Promise<ConcurrentRow> {
  const ds = await Promise.all(Array.from({ length: n }, () => daemon(values["database-url"]!)));
  try {
    const clients = Array.from(
      { length: CONCURRENCY },
      (_, i) => new MemoryClient({ baseUrl: ds[i % n].url }),
    );
    const lat: number[] = [];
    let errors = 0;
    const end = performance.now() + DURATION_S * 1000;
    await Promise.all(clients.map(async (c, k) => {
      let i = 0;
      while (performance.now() < end) {
        const t = performance.now();
        try {
          if (++i % 10 === 0) await c.create(item(size * 10 + k * 100000 + i) as never);
          else {
            const q = `${pick(SUBJECTS)} ${pick(OBJECTS)}`;
            await c.search(k % 2 ? { query: q, project: pick(PROJECTS), limit: 5 } : { query: q });
          }
          lat.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }));
    return {
      size,
      daemons: n,
      clients: CONCURRENCY,
      requests_per_s: Math.round(lat.length / DURATION_S),
      p50_ms: +pct(lat, 50).toFixed(2),
      p95_ms: +pct(lat, 95).toFixed(2),
      errors,
    };
  } finally {
    await Promise.all(ds.map((d) => d.stop()));
  }
}

/** One row measured by this file run in a child process on the modules of `tree`. */
async function childRow(tree: string, backend: string, size: number, fsync: string): Promise<Row> {
  const rowsTo = await Deno.makeTempFile({ prefix: "mneme-bench-row-" });
  try {
    const args = [
      "run",
      "-A",
      "--lock=tests/deno.lock",
      new URL(import.meta.url).pathname,
      "--tree",
      tree,
      "--rows-to",
      rowsTo,
      "--sizes",
      String(size),
      "--backends",
      backend,
      // A server's fsync is its own ("server" here): the flag is pglite's.
      ...(backend === "pglite" ? ["--fsync", fsync] : []),
      "--chunk",
      String(CHUNK),
      "--creates",
      String(CREATES),
      "--searches",
      String(SEARCHES),
      ...(values["database-url"] ? ["--database-url", values["database-url"]] : []),
      ...(values.reembed ? ["--reembed"] : []),
      ...(values.settle ? ["--settle"] : []),
      ...(values.scoped ? ["--scoped"] : []),
    ];
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: new URL("../", import.meta.url).pathname,
      stdout: "null",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`bench:memory: the run of ${tree} failed`);
    return (JSON.parse(await Deno.readTextFile(rowsTo)) as Row[])[0];
  } finally {
    await Deno.remove(rowsTo);
  }
}

const rows: Row[] = [];
const concurrentRows: ConcurrentRow[] = [];
for (const backend of backends) {
  for (const fsync of backend === "pglite" ? fsyncModes : ["server"]) {
    for (const size of sizes) {
      if (values.baseline) {
        // Each side in a process of its own, the baseline first.
        for (const tree of [values.baseline, new URL("../", import.meta.url).pathname]) {
          console.error(`bench: ${tree}: ${backend} (fsync ${fsync}) at ${size} memories…`);
          rows.push(await childRow(tree, backend, size, fsync));
        }
        continue;
      }
      console.error(`bench: ${backend} (fsync ${fsync}) at ${size} memories…`);
      rows.push(await bench(backend, size, fsync));
      if (backend === "postgres" && values["database-url"] && CONCURRENCY > 0) {
        for (const n of DAEMONS) {
          console.error(`bench: ${CONCURRENCY} clients, ${n} daemon(s), ${size} memories…`);
          concurrentRows.push(await concurrent(size, n));
        }
      }
    }
  }
}
clearInterval(sampler);
if (values["rows-to"]) {
  // A child of `--baseline`: the rows go to the parent, which prints and writes them.
  await Deno.writeTextFile(values["rows-to"], JSON.stringify(rows));
  Deno.exit(0);
}

function table<T extends object>(rs: T[]) {
  const cols = Object.keys(rs[0]) as (keyof T)[];
  console.log(`| ${cols.join(" | ")} |`);
  console.log(`|${cols.map(() => "---").join("|")}|`);
  for (const r of rs) console.log(`| ${cols.map((c) => r[c]).join(" | ")} |`);
}
table(rows);
if (concurrentRows.length) {
  console.log("");
  table(concurrentRows);
}

const out = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  embedder: `builtin hash-v2, ${loadMemoryConfig((n) => Deno.env.get(n)).embeddingDim} dimensions`,
  // What each backend of the rows is.
  backends: Object.fromEntries(backends.map((b) => [
    b,
    b === "pglite"
      ? "embedded, DATA_DIR in a worker thread (as the daemon)"
      : values["database-url"]
      ? "server"
      : "PGlite behind pglite-socket",
  ])),
  creates: CREATES,
  searches: SEARCHES,
  import_chunk: CHUNK,
  load: Deno.loadavg(),
  ...(values.baseline ? { baseline: values.baseline } : {}),
  ...(values.scoped ? { scoped: "2% global, 98% in 100 projects" } : {}),
  rows,
  ...(concurrentRows.length ? { concurrent: concurrentRows, duration_s: DURATION_S } : {}),
};
await Deno.mkdir(new URL("../bench/results/", import.meta.url), { recursive: true });
const file = new URL(
  `../bench/results/memory-${out.date.replace(/[:.]/g, "-")}.json`,
  import.meta.url,
);
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.error(`wrote ${file.pathname}`);
