/**
 * `deno run -A --lock=tests/deno.lock tasks/profile_import.ts [--runs N]`
 *
 * Where a bulk import's time goes: `bench:memory --sizes 20000 --backends pglite`'s import
 * (the same generated memories, two imports of 10,000 through the service, the embedded
 * database in its worker as the daemon opens it, the builtin embedder), with the store's
 * steps timed by wrapping them (`Store.prototype`): staging (`stageImport`), the index build,
 * the analyze after it (with its checkpoint, `settle`), publishing, the dedup lookup
 * (`existingKeys`), the embedder, and the worker's renewal. A step's time is wall time in
 * the daemon's thread (a step waits for the worker); steps of the reclaimer or the renewal
 * that run in the background overlap the import's. Prints one JSON line per import, with
 * the process's CPU time (`cpu_ms`, both threads: less skewed by a shared machine than wall
 * time) and the write-ahead log written (`wal_mib`, `fpi` of it full-page images);
 * `--creates N` then times N creates, one at a time, right after the imports. `--calls N
 * --size M` imports N calls of M items instead of 2 of 10,000 (clients that chunk send 1,000
 * a call; the analyze of such a series runs once after it, here in the close: `close_ms`,
 * and `burst_per_s` with it); `--statements` also times each statement the store sends
 * through `Db.exec` (the analyze's vacuums, the checkpoints), keyed by its first words.
 * Development only (not a test, not shipped).
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { loadMemoryConfig } from "../src/config.ts";
import { BuiltinEmbedder } from "../src/embed/builtin.ts";
import { createServiceOnDb, openDatabase } from "../src/memory/open.ts";
import { Store } from "../src/store/store.ts";
import { item, reseed } from "./bench_items.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "1" },
    creates: { type: "string", default: "0" },
    calls: { type: "string", default: "2" },
    size: { type: "string", default: "10000" },
    statements: { type: "boolean", default: false },
  },
  strict: true,
});

const times: Record<string, number> = {};
// deno-lint-ignore no-explicit-any
function wrap(proto: any, name: string): void {
  const orig = proto[name];
  if (typeof orig !== "function") return;
  proto[name] = async function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    try {
      return await orig.apply(this, args);
    } finally {
      times[name] = (times[name] ?? 0) + performance.now() - t;
    }
  };
}
for (
  const m of [
    "existingKeys",
    "stageImport",
    "dropSearchIndex",
    "buildSearchIndex",
    "publishImport",
    "analyze",
    "settle",
    "vacuum",
    "compactStats",
    "countPublished",
    "beginImport",
    "recordedEmbedder",
  ]
) wrap(Store.prototype, m);
const calls = Number(values.calls);
const size = Number(values.size);
wrap(BuiltinEmbedder.prototype, "embed");

for (let run = 0; run < Number(values.runs); run++) {
  reseed();
  const dir = await Deno.makeTempDir({ prefix: "mneme-profile-" });
  const env: Record<string, string> = { EMBEDDING_PROVIDER: "builtin", DATA_DIR: dir };
  const cfg = loadMemoryConfig((n) => env[n] ?? Deno.env.get(n));
  const { db, handle, release } = await openDatabase(cfg);
  if (values.statements) {
    const exec = db.exec.bind(db);
    db.exec = async (sql: string) => {
      const key = `sql ${sql.trim().split(/\s+/).slice(0, 4).join(" ")}`;
      const t = performance.now();
      try {
        return await exec(sql);
      } finally {
        times[key] = (times[key] ?? 0) + performance.now() - t;
      }
    };
  }
  const renew = handle.renew.bind(handle);
  handle.renew = async () => {
    const t = performance.now();
    try {
      return await renew();
    } finally {
      times.renew = (times.renew ?? 0) + performance.now() - t;
    }
  };
  const service = await createServiceOnDb(db, cfg, { log: () => {}, handle });
  let total = 0;
  const lines: string[] = [];
  for (let k = 0; k < calls; k++) {
    for (const key of Object.keys(times)) delete times[key];
    const batch = Array.from({ length: size }, (_, j) => item(k * size + j));
    const wal = async () =>
      (await db.query<{ fpi: number; bytes: number }>(
        "select wal_fpi::float8 as fpi, wal_bytes::float8 as bytes from pg_stat_wal",
      ))[0];
    const w0 = await wal();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await service.import(batch);
    const ms = performance.now() - t0;
    const c1 = process.cpuUsage(c0);
    times.cpu_ms = (c1.user + c1.system) / 1000;
    const w1 = await wal();
    times.wal_mib = +((w1.bytes - w0.bytes) / 2 ** 20).toFixed(1);
    times.fpi = w1.fpi - w0.fpi;
    total += ms;
    const steps = Object.fromEntries(Object.entries(times).map(([a, b]) => [a, Math.round(b)]));
    lines.push(JSON.stringify({ import: k + 1, total_ms: Math.round(ms), ...steps }));
  }
  const creates: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < Number(values.creates); i++) {
    const t = performance.now();
    await service.create(item(900_000 + i));
    creates.push(performance.now() - t);
  }
  if (creates.length) {
    creates.sort((a, b) => a - b);
    const at = (p: number) => +creates[Math.floor(p * (creates.length - 1))].toFixed(2);
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = +((cpu.user + cpu.system) / 1000 / creates.length).toFixed(2);
    lines.push(
      JSON.stringify({ creates: creates.length, p50_ms: at(0.5), p95_ms: at(0.95), cpu_ms: cpuMs }),
    );
  }
  // The close runs the analyze a series of imports left due (the daemon runs it after a
  // quiet spell): timed apart, and with the imports in `burst_per_s`.
  const tc = performance.now();
  await service.close();
  const closeMs = performance.now() - tc;
  const load = Deno.loadavg().map((x) => +x.toFixed(2));
  console.log(
    JSON.stringify({
      run: run + 1,
      load,
      per_s: Math.round(calls * size / (total / 1000)),
      close_ms: Math.round(closeMs),
      burst_per_s: Math.round(calls * size / ((total + closeMs) / 1000)),
    }),
  );
  for (const l of lines) console.log(l);
  release();
  await Deno.remove(dir, { recursive: true });
}
