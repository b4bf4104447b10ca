/**
 * `deno task soak [--kills 15] [--ops 10000] [--memories 2000] [--import-size 2000]
 * [--searches 200] [--dim 256] [--settle 150]`: how the embedded database ages (issue 31). Bounded, loopback
 * only: the admin daemon (embedded database, builtin embedder) on a temporary DATA_DIR.
 *
 * 1. imports `--memories` memories (acknowledged);
 * 2. `--kills` times: starts an import of `--import-size` items and SIGKILLs the daemon in
 *    the middle of it, then starts the daemon again;
 * 3. `--ops` deletes and updates (each delete followed by a create, so the count holds),
 *    four at a time, with a SIGKILL of the daemon after every fifth of them;
 * 4. checks every acknowledged write (created, updated, deleted) against the export: lost
 *    writes must be 0;
 * 5. imports the live memories into a fresh database, and compares the database size and
 *    the search latency (p50/p95, alternating between the two daemons in the same run).
 *
 * Targets: size ≤ 1.5× fresh, search p50 ≤ 1.5× fresh, 0 lost. Prints a table and writes
 * bench/results/soak-<date>.json, with every relation's size in both databases (`relations`;
 * printed: the 20 that grew most).
 */
import { benchArgs } from "./lib/args.ts";
import { type AdminProcess, freePort, startAdminProcess, tempDir } from "../tests/helpers.ts";
import { writeBenchResult } from "./entrypoints.ts";
import { openPglite } from "../src/store/pglite/mod.ts";

const values = benchArgs(
  "deno task soak [--kills 15] [--ops 10000] [--memories 2000] [--import-size 2000] [--searches 200] [--dim 256] [--settle 150]",
  {
    kills: { type: "string", default: "15" },
    ops: { type: "string", default: "10000" },
    memories: { type: "string", default: "2000" },
    "import-size": { type: "string", default: "2000" },
    searches: { type: "string", default: "200" },
    dim: { type: "string", default: "256" },
    settle: { type: "string", default: "150" },
  },
);
const num = (k: keyof typeof values) => Math.max(0, Number(values[k]) || 0);
const KILLS = num("kills");
const OPS = num("ops");
const MEMORIES = Math.max(10, num("memories"));
const IMPORT_SIZE = Math.max(1, num("import-size"));
const SEARCHES = Math.max(10, num("searches"));
const DIM = String(Math.max(8, num("dim")));
const SETTLE_MS = num("settle") * 1000;

const WORDS = (
  "build deploy cache index query vector schema migration token parser router worker queue " +
  "lock retry backoff timeout socket stream buffer module package config secret audit trace"
).split(" ");
let seed = 7;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const sentence = (tag: string) =>
  `${tag}: ${Array.from({ length: 10 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ")}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ENV = { EMBEDDING_DIM: DIM };

async function start(dataDir: string, port: number): Promise<AdminProcess> {
  return await startAdminProcess({ dataDir, port, keepData: true, env: ENV });
}

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

async function exportAll(base: string): Promise<{ id: string; content: string }[]> {
  const out: { id: string; content: string }[] = [];
  let offset = 0;
  while (true) {
    const page = await call(base, "POST", `/api/memories/export?offset=${offset}`);
    out.push(...page);
    if (page.length < 10_000) return out;
    offset += page.length;
  }
}

async function dirSize(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) n += await dirSize(p);
    else if (e.isFile) n += (await Deno.stat(p)).size;
  }
  return n;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/**
 * Waits for a vacuum of the daemon at `base` that ends after now (its own schedule: after a
 * bulk change, after the start, or on the dead-row check every minute), up to `--settle`
 * seconds; returns the seconds waited.
 */
async function settle(base: string): Promise<number> {
  const from = Date.now();
  while (Date.now() < from + SETTLE_MS) {
    const h = await call(base, "GET", "/healthz");
    const at = h.database?.last_vacuum?.at;
    if (at && Date.parse(at) > from) break;
    await sleep(2000);
  }
  return Math.round((Date.now() - from) / 1000);
}

/**
 * Every relation (tables, indexes, TOAST) of the database in `dir` with its bytes, all forks
 * (data, free space map, visibility map), largest first.
 */
async function relations(dir: string): Promise<Record<string, number>> {
  const db = await openPglite(dir);
  try {
    const rows = await db.query<{ name: string; bytes: number }>(
      `select c.relname as name,
              (pg_relation_size(c.oid, 'main') + pg_relation_size(c.oid, 'fsm') +
               pg_relation_size(c.oid, 'vm'))::float8 as bytes
         from pg_class c where c.relkind in ('r', 'i', 't') order by 2 desc, 1`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
  } finally {
    await db.close();
  }
}

const aged = await tempDir("mneme-soak-aged-");
const fresh = await tempDir("mneme-soak-fresh-");
const port = freePort();
const t0 = Date.now();
/** The run's figures, written with the relations once the daemons have stopped. */
let result: Record<string, unknown> | null = null;
let daemon = await start(aged.path, port);
const url = () => daemon.url;
// What the daemon acknowledged: id → content, or null for deleted.
const acked = new Map<string, string | null>();
const uncertain = new Set<string>();
try {
  console.error(`soak: importing ${MEMORIES} memories`);
  const seedItems = Array.from({ length: MEMORIES }, (_, i) => ({
    content: sentence(`seed ${i}`),
    project: `p${i % 5}`,
  }));
  await call(url(), "POST", "/api/memories/import", seedItems);
  for (const m of await exportAll(url())) acked.set(m.id, m.content);

  for (let k = 0; k < KILLS; k++) {
    const items = Array.from({ length: IMPORT_SIZE }, (_, i) => ({
      content: sentence(`killed import ${k} item ${i}`),
      project: "killed",
    }));
    const pending = call(url(), "POST", "/api/memories/import", items).catch(() => null);
    await sleep(300 + Math.floor(rand() * 1500));
    daemon.child.kill("SIGKILL");
    const done = await pending;
    if (done) {
      // Finished before the kill: acknowledged, so it must be there.
      console.error(`soak: import ${k} finished before its kill`);
    }
    await daemon.child.status;
    daemon = await start(aged.path, port);
    if (done) {
      const all = await exportAll(url());
      for (const m of all) if (!acked.has(m.id)) acked.set(m.id, m.content);
    }
    console.error(`soak: killed import ${k + 1}/${KILLS}`);
  }

  console.error(`soak: ${OPS} deletes and updates, with kills`);
  const ids = () =>
    [...acked].filter(([id, c]) => c !== null && !uncertain.has(id)).map(([i]) => i);
  let live = ids();
  const killEvery = Math.max(1, Math.floor(OPS / 5));
  let op = 0;
  while (op < OPS) {
    const batch = Math.min(4, OPS - op);
    await Promise.all(Array.from({ length: batch }, async (_, j) => {
      const n = op + j;
      if (!live.length) live = ids();
      const id = live.splice(Math.floor(rand() * live.length), 1)[0];
      if (!id) return;
      if (n % 2 === 0) {
        const content = sentence(`updated ${n}`);
        try {
          await call(url(), "PUT", `/api/memories/${id}`, { content });
          acked.set(id, content);
          live.push(id);
        } catch {
          uncertain.add(id);
        }
      } else {
        try {
          await call(url(), "DELETE", `/api/memories/${id}`);
          acked.set(id, null);
        } catch {
          uncertain.add(id);
        }
        try {
          const made = await call(url(), "POST", "/api/memories", {
            content: sentence(`created ${n}`),
            project: `p${n % 5}`,
          });
          acked.set(made.memory.id, made.memory.content);
          live.push(made.memory.id);
        } catch { /* not acknowledged: either outcome is fine */ }
      }
    }));
    op += batch;
    if (op % killEvery < batch && op < OPS) {
      daemon.child.kill("SIGKILL");
      await daemon.child.status;
      daemon = await start(aged.path, port);
      console.error(`soak: ${op}/${OPS} operations, daemon killed and restarted`);
    }
  }

  // What the daemon does by itself: its vacuum after the start, and its dead-row schedule
  // (checked every minute) after the last operations; then measure. Waits for a vacuum
  // that ended after the last operation, up to `--settle` seconds.
  const settled_s = await settle(url());
  const now = new Map((await exportAll(url())).map((m) => [m.id, m.content]));
  let lost = 0;
  for (const [id, content] of acked) {
    if (uncertain.has(id)) continue;
    if (content === null ? now.has(id) : now.get(id) !== content) lost++;
  }
  const liveItems = (await call(url(), "POST", "/api/memories/export")) as unknown[];
  const agedHealth = await call(url(), "GET", "/healthz");

  const other = await startAdminProcess({ dataDir: fresh.path, keepData: true, env: ENV });
  try {
    const all: unknown[] = [];
    let offset = 0;
    while (true) {
      const page = await call(url(), "POST", `/api/memories/export?offset=${offset}`);
      all.push(...page);
      if (page.length < 10_000) break;
      offset += page.length;
    }
    for (let i = 0; i < all.length; i += 5000) {
      await call(other.url, "POST", "/api/memories/import", all.slice(i, i + 5000));
    }
    const fresh_settled_s = await settle(other.url);
    const freshHealth = await call(other.url, "GET", "/healthz");
    const lat = { aged: [] as number[], fresh: [] as number[] };
    for (let i = 0; i < SEARCHES + 10; i++) {
      const query = sentence("q").slice(3);
      for (const [name, base] of [["aged", url()], ["fresh", other.url]] as const) {
        const t = performance.now();
        await call(base, "POST", "/api/memories/search", { query, limit: 10 });
        if (i >= 10) lat[name].push(performance.now() - t);
      }
    }
    const agedDisk = await dirSize(`${aged.path}/db`);
    const freshDisk = await dirSize(`${fresh.path}/db`);
    const row = {
      live_memories: now.size,
      acknowledged_writes: acked.size - uncertain.size,
      lost_writes: lost,
      db_bytes_aged: agedHealth.database.size_bytes,
      db_bytes_fresh: freshHealth.database.size_bytes,
      size_ratio: agedHealth.database.size_bytes / freshHealth.database.size_bytes,
      disk_bytes_aged: agedDisk,
      disk_bytes_fresh: freshDisk,
      search_p50_ms_aged: pct(lat.aged, 50),
      search_p95_ms_aged: pct(lat.aged, 95),
      search_p50_ms_fresh: pct(lat.fresh, 50),
      search_p95_ms_fresh: pct(lat.fresh, 95),
      p50_ratio: pct(lat.aged, 50) / pct(lat.fresh, 50),
      dead_rows_aged: agedHealth.database.dead_rows ?? null,
      last_vacuum_aged: agedHealth.database.last_vacuum ?? null,
    };
    const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
    console.log(
      `\nsoak: ${KILLS} killed imports of ${IMPORT_SIZE}, ${OPS} deletes/updates, ` +
        `${MEMORIES} seed memories, dim ${DIM} (${Math.round((Date.now() - t0) / 1000)} s)`,
    );
    console.log("| | aged | fresh | ratio | target |");
    console.log("|---|---|---|---|---|");
    console.log(
      `| database size | ${mib(row.db_bytes_aged)} | ${mib(row.db_bytes_fresh)} | ` +
        `${row.size_ratio.toFixed(2)} | ≤ 1.5 |`,
    );
    console.log(
      `| files on disk | ${mib(agedDisk)} | ${mib(freshDisk)} | ` +
        `${(agedDisk / freshDisk).toFixed(2)} | |`,
    );
    console.log(
      `| search p50 | ${row.search_p50_ms_aged.toFixed(1)} ms | ` +
        `${row.search_p50_ms_fresh.toFixed(1)} ms | ${row.p50_ratio.toFixed(2)} | ≤ 1.5 |`,
    );
    console.log(
      `| search p95 | ${row.search_p95_ms_aged.toFixed(1)} ms | ` +
        `${row.search_p95_ms_fresh.toFixed(1)} ms | | |`,
    );
    console.log(`| acknowledged writes lost | ${lost} of ${row.acknowledged_writes} | | | 0 |`);
    result = {
      kills: KILLS,
      ops: OPS,
      memories: MEMORIES,
      import_size: IMPORT_SIZE,
      searches: SEARCHES,
      dim: Number(DIM),
      live_items_checked: liveItems.length,
      settled_s,
      fresh_settled_s,
      ...row,
    };
    if (lost > 0) Deno.exitCode = 1;
  } finally {
    await other.stop();
  }
  // Where the difference lies: every relation of each database (daemons stopped), in the JSON;
  // printed, the 20 that grew most.
  await daemon.stop();
  const rel = {
    aged: await relations(`${aged.path}/db`),
    fresh: await relations(`${fresh.path}/db`),
  };
  if (result) await writeBenchResult("soak", { ...result, relations: rel });
  const vacuums = daemon.stderr().split("\n").filter((l) => /vacuum/.test(l));
  console.log(`\nthe last aged daemon's vacuums:\n${vacuums.join("\n")}`);
  console.log("\n| relation | aged | fresh | grew |\n|---|---|---|---|");
  const kib = (n?: number) => (n === undefined ? "-" : `${Math.round(n / 1024)} KiB`);
  const grew = (name: string) => rel.aged[name] - (rel.fresh[name] ?? 0);
  for (const name of Object.keys(rel.aged).sort((a, b) => grew(b) - grew(a)).slice(0, 20)) {
    console.log(
      `| ${name} | ${kib(rel.aged[name])} | ${kib(rel.fresh[name])} | ${kib(grew(name))} |`,
    );
  }
} finally {
  await daemon.stop();
  await aged.cleanup();
  await fresh.cleanup();
}
