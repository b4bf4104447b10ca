/**
 * `deno task bench:first-start [--runs N] [--checkout DIR] [--baseline DIR] [--label L]`: the first
 * `deno task start` on
 * an empty Deno cache, as a newcomer's first run: a fresh DENO_DIR, HOME and DATA_DIR each
 * run, then the time until the web UI's `/healthz` answers 200 and the npm packages Deno
 * downloaded for it. A second start on the now warm cache is timed too. Needs the npm
 * registry. With `--baseline DIR` (another checkout, e.g. a `git worktree` of an older commit)
 * each run times that checkout too, alternating, and the table shows both. Prints a table and writes `bench/results/first-start[-L]-<date>.json`.
 */
import { join } from "node:path";
import { benchArgs } from "./lib/args.ts";
import { ROOT, writeBenchResult } from "./entrypoints.ts";
import { toolEnv } from "../tests/helpers/install.ts";

const values = benchArgs(
  "deno task bench:first-start [--runs N] [--checkout DIR] [--baseline DIR] [--label L]",
  {
    runs: { type: "string" },
    checkout: { type: "string" },
    baseline: { type: "string" },
    label: { type: "string" },
  },
);
const runs = Number(values.runs ?? 1);
const checkout = values.checkout ?? ROOT;

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** npm packages (name@version folders) in a Deno cache. */
async function npmPackages(denoDir: string): Promise<number> {
  let n = 0;
  const walk = async (dir: string, depth: number) => {
    try {
      for await (const e of Deno.readDir(dir)) {
        if (!e.isDirectory) continue;
        if (depth === 0 && e.name.startsWith("@")) await walk(join(dir, e.name), 0);
        else n += await versions(join(dir, e.name));
      }
    } catch { /* none */ }
  };
  const versions = async (dir: string) => {
    let v = 0;
    for await (const e of Deno.readDir(dir)) if (e.isDirectory) v++;
    return v;
  };
  await walk(join(denoDir, "npm", "registry.npmjs.org"), 0);
  return n;
}

/** Start `deno task start` and time it until /healthz answers 200; then stop it. */
async function startOnce(
  env: Record<string, string>,
  dataDir: string,
  cwd: string,
): Promise<number> {
  const port = freePort();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "start"],
    cwd,
    env: { ...env, DATA_DIR: dataDir, ADMIN_PORT: String(port), NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const err = new Response(child.stderr).text();
  let exited = false;
  child.status.then(() => (exited = true));
  let ms = -1;
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline && !exited) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, {
        signal: AbortSignal.timeout(1000),
      });
      await res.body?.cancel();
      if (res.status === 200) {
        ms = performance.now() - started;
        break;
      }
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  // Stop the service this run started (its pid is in the owner record), then the task.
  try {
    const rec = JSON.parse(await Deno.readTextFile(join(dataDir, "run", "service.json")));
    if (Number.isInteger(rec.pid) && rec.pid > 1) Deno.kill(rec.pid, "SIGTERM");
  } catch { /* not started */ }
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, 10_000);
  await child.status;
  clearTimeout(timer);
  if (ms < 0) throw new Error(`deno task start did not answer: ${await err}`);
  return ms;
}

interface Row {
  run: number;
  checkout: string;
  first_ms: number;
  warm_ms: number;
  npm_packages: number;
}
const rows: Row[] = [];
const checkouts = values.baseline ? [checkout, values.baseline] : [checkout];
// What Deno needs to reach the registry (certificates, proxies), not its cache.
const pass: Record<string, string> = { ...toolEnv(), PATH: Deno.env.get("PATH") ?? "" };
delete pass.DENO_DIR;
delete pass.XDG_CACHE_HOME;
for (let i = 0; i < runs; i++) {
  for (const dir of checkouts) {
    const tmp = await Deno.makeTempDir({ prefix: "mneme-first-start-" });
    try {
      const env = { ...pass, HOME: tmp, DENO_DIR: join(tmp, "deno") };
      const first = await startOnce(env, join(tmp, "data"), dir);
      const packages = await npmPackages(env.DENO_DIR);
      const warm = await startOnce(env, join(tmp, "data2"), dir);
      rows.push({
        run: i + 1,
        checkout: dir,
        first_ms: first,
        warm_ms: warm,
        npm_packages: packages,
      });
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  }
}

const name = (dir: string) => (dir === checkout ? "this" : "baseline");
console.log(
  "| run | checkout | first start (empty cache) | second start | npm packages downloaded |",
);
console.log(
  "| --- | -------- | ------------------------- | ------------ | ----------------------- |",
);
for (const r of rows) {
  console.log(
    `| ${r.run} | ${name(r.checkout)} | ${(r.first_ms / 1000).toFixed(1)} s | ${
      (r.warm_ms / 1000).toFixed(1)
    } s | ${r.npm_packages} |`,
  );
}
let loadavg = "";
try {
  loadavg = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
} catch { /* not Linux */ }
console.log(`load average at the end: ${loadavg || "unknown"}`);
await writeBenchResult(values.label ? `first-start-${values.label}` : "first-start", {
  target_first_ms: 8000,
  loadavg,
  rows,
});
