/**
 * `deno task bench:mcp [--runs 5]`: startup of the MCP stdio server, from process spawn to
 * the `initialize` answer, in both modes, with the builtin embedder.
 *
 * - api: against an admin daemon (embedded database) started once for the run;
 * - direct: against PGlite served over the Postgres wire protocol by pglite-socket (the
 *   whole direct-mode startup: connect, migrate, embedder probe, dimension check).
 *
 * The server is started as `deno task mcp` starts it: through the launcher, which computes its
 * exact permissions (so the figure includes the launcher's own start). The client is the MCP
 * SDK's (tasks/lib/mcp.ts); it writes the initialize request as soon as the process is spawned,
 * so the figure is what an agent client waits for. The first run of each mode is reported separately (cold module cache in the OS) and
 * left out of the median. Prints a table and writes JSON to bench/results/mcp-<date>.json.
 */
import { pgliteServer, ROOT, startAdminProcess } from "../tests/helpers.ts";
import { writeBenchResult } from "./entrypoints.ts";
import { benchArgs, intFlag } from "./lib/args.ts";
import { McpSession } from "./lib/mcp.ts";

const values = benchArgs("deno task bench:mcp [--runs 5]", {
  runs: { type: "string", default: "5" },
});
const RUNS = intFlag("runs", values.runs);

// The launcher, as the "mcp" task and the installed mneme-mcp run it.
const LAUNCH = [
  "run",
  "--no-prompt",
  "--allow-env",
  `--allow-run=${Deno.execPath()}`,
  `${ROOT}src/bin/launch.ts`,
  "mneme-mcp",
];

/** Spawn the server and initialize it (the SDK's client); return ms until the answer arrives. */
async function startupMs(env: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const session = await McpSession.start(Deno.execPath(), LAUNCH, {
    env: { EMBEDDING_PROVIDER: "builtin", NO_COLOR: "1", ...env },
  });
  const ms = performance.now() - t0;
  await session.close();
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const rows: { mode: string; first: number; median: number; max: number; runs: number[] }[] = [];

async function measure(mode: string, env: Record<string, string>) {
  const first = await startupMs(env);
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await startupMs(env));
  rows.push({ mode, first, median: median(runs), max: Math.max(...runs), runs });
}

const admin = await startAdminProcess();
try {
  await measure("api", { MEMORY_API_URL: admin.url });
} finally {
  await admin.stop();
}
const pg = await pgliteServer();
try {
  await measure("direct", { DATABASE_URL: pg.url });
} finally {
  await pg.close();
}

console.log(`MCP startup to initialize answer (${RUNS} runs after a first one), ms`);
console.log("mode     first   median     max");
for (const r of rows) {
  console.log(
    `${r.mode.padEnd(6)} ${r.first.toFixed(0).padStart(7)} ${r.median.toFixed(0).padStart(8)} ${
      r.max.toFixed(0).padStart(7)
    }`,
  );
}
await writeBenchResult("mcp", {
  launcher: LAUNCH.slice(0, -2),
  rows,
});
