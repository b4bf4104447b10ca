/**
 * `deno run -A --lock=tests/deno.lock tasks/profile_create.ts [--memories 2000] [--creates 1000]
 *   [--data DIR] [--explain] [--baseline DIR] [--fsync off]`
 *
 * Where a create's time goes on the embedded database: `bench:memory`'s generated memories
 * (`--memories` of them imported first into a new DATA_DIR, or an existing DATA_DIR given with
 * `--data`, which is changed), then `--creates` creates through the service, one at a time, with
 * the database opened in this thread (no worker, no HTTP: those add about 0.1 and 0.3-0.4 ms)
 * so that each statement of the create's transaction can be timed by wrapping the driver.
 * Prints the creates' p50, the process's CPU per create, the write-ahead log written per
 * create, and each statement's p50 (`~commit`: the commit with its fsync). `--explain` prints
 * the plan of one create's insert (`EXPLAIN ANALYZE`, rolled back). `--fsync off` opens both
 * trees' databases without fsync: the work of a create without the disk's latency, which on a
 * machine shared with other writers varies more than the work does (a comparison of the two
 * trees' statements, not of durable creates). Development only (not a test, not shipped).
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { loadMemoryConfig } from "../src/config.ts";
import { createServiceOnDb, openMemoryService } from "../src/memory/open.ts";
import { batchInTransaction, type Db } from "../src/store/db.ts";
import { openPglite } from "../src/store/pglite/mod.ts";
import { item, reseed } from "./bench_items.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    memories: { type: "string", default: "2000" },
    creates: { type: "string", default: "1000" },
    data: { type: "string" },
    explain: { type: "boolean", default: false },
    baseline: { type: "string" },
    fsync: { type: "string", default: "on" },
  },
  strict: true,
});
const creates = Number(values.creates);
if (values.fsync !== "on" && values.fsync !== "off") throw new Error("--fsync: on or off");
const durable = values.fsync === "on";
reseed();
const dir = values.data ?? await Deno.makeTempDir({ prefix: "mneme-profile-create-" });
const env: Record<string, string> = { EMBEDDING_PROVIDER: "builtin", DATA_DIR: dir };
const cfg = loadMemoryConfig((n) => env[n] ?? Deno.env.get(n));
if (!values.data) {
  const s = await openMemoryService(cfg, { log: () => {} });
  const n = Number(values.memories);
  for (let i = 0; i < n; i += 10_000) {
    await s.import(Array.from({ length: Math.min(10_000, n - i) }, (_, j) => item(i + j)));
  }
  await s.close();
}

const times = new Map<string, number[]>();
const add = (k: string, ms: number) => times.set(k, [...(times.get(k) ?? []), ms]);
let explained = true; // with --explain, the insert after the warm-up

/** `db` with each statement, and each transaction's commit, timed into {@link times}. */
function timed(db: Db): Db {
  const out: Db = {
    kind: db.kind,
    capabilities: db.capabilities,
    batch: (steps) => batchInTransaction(out, steps),
    exec: (text) => db.exec(text),
    close: () => db.close(),
    async query(text, params, options) {
      if (!explained && text.startsWith("with x as materialized")) {
        explained = true;
        await db.exec("savepoint profile");
        const plan = await db.query<Record<string, string>>(
          `explain (analyze true, buffers true) ${text}`,
          params,
        );
        console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
        await db.exec("rollback to savepoint profile");
      }
      const t = performance.now();
      try {
        return await db.query(text, params, options);
      } finally {
        add(text.replace(/\s+/g, " ").slice(0, 48), performance.now() - t);
      }
    },
    async transaction(fn) {
      let end = 0;
      const out = await db.transaction(async (tx) => {
        const r = await fn(timed(tx));
        end = performance.now();
        return r;
      });
      add("~commit", performance.now() - end);
      return out;
    },
  };
  return out;
}

/** The baseline tree's service, on a copy of the data (`--baseline`), or null. */
async function baselineService(): Promise<{ create(i: unknown): Promise<unknown> } & Closable> {
  const tree = new URL(`${values.baseline!.replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`);
  const copy = await Deno.makeTempDir({ prefix: "mneme-profile-create-base-" });
  await new Deno.Command("cp", { args: ["-a", `${dir}/db`, `${copy}/db`] }).output();
  const baseCfg = (await import(new URL("src/config.ts", tree).href)).loadMemoryConfig(
    (n: string) => ({ ...env, DATA_DIR: copy } as Record<string, string>)[n] ?? Deno.env.get(n),
  );
  const db = await (await import(new URL("src/store/pglite/mod.ts", tree).href)).openPglite(
    `${copy}/db`,
    { durable },
  );
  const s = await (await import(new URL("src/memory/open.ts", tree).href)).createServiceOnDb(
    db,
    baseCfg,
    { log: () => {} },
  );
  return {
    create: (i) => s.create(i),
    async close() {
      await s.close();
      await Deno.remove(copy, { recursive: true });
    },
  };
}
interface Closable {
  close(): Promise<void>;
}

const base = values.baseline ? await baselineService() : null;
const raw = await openPglite(`${dir}/db`, { durable });
// Against a baseline, neither tree's statements are timed (the wrapper costs a little).
const service = await createServiceOnDb(base ? raw : timed(raw), cfg, { log: () => {} });
for (let i = 0; i < 100; i++) {
  await base?.create(item(800_000 + i));
  await service.create(item(800_000 + i)); // warm up
}
explained = !values.explain; // the plan of a warm insert, the first one timed
times.clear();
const lsn = await raw.query<{ l: string }>("select pg_current_wal_insert_lsn()::text as l");
const total: number[] = [];
const baseTotal: number[] = [];
let cpuMs = 0;
for (let i = 0; i < creates; i++) {
  const one = async () => {
    const c = process.cpuUsage();
    const t = performance.now();
    await service.create(item(900_000 + i));
    total.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpuMs += (d.user + d.system) / 1000;
  };
  const other = async () => {
    const t = performance.now();
    await base!.create(item(900_000 + i));
    baseTotal.push(performance.now() - t);
  };
  if (!base) await one();
  else if (i % 2) await one().then(other);
  else await other().then(one);
}
const [{ b: wal }] = await raw.query<{ b: string }>(
  "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint as b",
  [lsn[0].l],
);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1].toFixed(3);
console.log(
  JSON.stringify({
    memories: values.data ? "as in --data" : Number(values.memories),
    creates,
    fsync: values.fsync,
    p50_ms: +p50(total),
    ...(base
      ? { baseline_p50_ms: +p50(baseTotal), ratio: +(+p50(total) / +p50(baseTotal)).toFixed(3) }
      : {}),
    cpu_ms_per_create: +(cpuMs / creates).toFixed(3),
    wal_bytes_per_create: Math.round(Number(wal) / creates),
    load: Deno.loadavg().map((x) => +x.toFixed(2)),
  }),
);
for (const [k, v] of times) console.log(`${p50(v)} ms  ${String(v.length).padStart(5)}×  ${k}`);
await service.close();
await base?.close();
if (!values.data) await Deno.remove(dir, { recursive: true });
