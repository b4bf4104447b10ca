/**
 * What the contradiction check on contents (migrations/0021_content_embedding.sql) costs a
 * create once memories are expanded: a service on the embedded database (in memory) with N
 * memories in one project (`--sizes 2000,20000`), creates timed (`--creates 200`) before any
 * expansion (the create's statement as before), then with every memory marked expanded (its
 * content vector set: the check's second leg reads all N exactly), in a fresh service (the
 * store's flag read anew). Prints a table and writes JSON to
 * bench/results/expansion-create-<timestamp>.json.
 *
 * `deno run -A --lock=tests/deno.lock tasks/expansion_create_probe.ts [--sizes 2000]`
 * @module
 */
import { parseArgs } from "node:util";
import { loadMemoryConfig } from "../src/config.ts";
import { createServiceOnDb } from "../src/memory/open.ts";
import { openPglite } from "../src/store/pglite/mod.ts";
import { storeOf } from "../src/memory/diagnostics.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "2000" },
    creates: { type: "string", default: "200" },
  },
});
const sizes = values.sizes!.split(",").map(Number);
const creates = Number(values.creates);
const cfg = loadMemoryConfig((n) =>
  ({ EMBEDDING_PROVIDER: "builtin" } as Record<string, string>)[n]
);

const WORDS = ("deploy staging database port cache queue worker lint test build release branch " +
  "review token secret config schema index query migration rollback feature flag metric log " +
  "alert budget invoice user session cookie header proxy timeout retry backoff").split(" ");
function sentence(i: number): string {
  const w = (k: number) => WORDS[(i * 7 + k * 13 + (i >> k)) % WORDS.length];
  return `Note ${i}: the ${w(1)} ${w(2)} uses the ${w(3)} ${w(4)} with ${w(5)} ${w(6)}.`;
}
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 100) / 100;
}

const rows = [];
for (const size of sizes) {
  const db = await openPglite();
  const first = await createServiceOnDb(db, cfg, { log: () => {} });
  for (let i = 0; i < size; i += 1000) {
    const n = Math.min(1000, size - i);
    await first.import(
      Array.from({ length: n }, (_, j) => ({
        content: sentence(i + j),
        scope: "project" as const,
        project: "p",
      })),
    );
  }
  const time = async (svc: typeof first, from: number) => {
    const ms: number[] = [];
    for (let k = 0; k < creates; k++) {
      const t0 = performance.now();
      await svc.create({ content: sentence(from + k), scope: "project", project: "p" });
      ms.push(performance.now() - t0);
    }
    return ms;
  };
  const plain = await time(first, size);
  await storeOf(first).db.query(
    "update memories set expansion = 'a phrase', expansion_model = 'probe', " +
      "content_embedding = embedding::vector",
  );
  // A fresh service on the same database: its store reads the expansion flag anew.
  const second = await createServiceOnDb(db, cfg, { log: () => {} });
  const expanded = await time(second, size + creates);
  for (const [state, ms] of [["no expansion", plain], ["all expanded", expanded]] as const) {
    rows.push({ size, state, create_p50_ms: pct(ms, 0.5), create_p95_ms: pct(ms, 0.95) });
  }
}
console.log("| size | state | create p50 ms | create p95 ms |\n| --- | --- | --- | --- |");
for (const r of rows) {
  console.log(`| ${r.size} | ${r.state} | ${r.create_p50_ms} | ${r.create_p95_ms} |`);
}
const file = `bench/results/expansion-create-${
  new Date().toISOString().replace(/[:.]/g, "-")
}.json`;
await Deno.writeTextFile(
  new URL(`../${file}`, import.meta.url),
  JSON.stringify({ date: new Date().toISOString(), creates, rows }, null, 2) + "\n",
);
console.log(`wrote ${file}`);
Deno.exit(0);
