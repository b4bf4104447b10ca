/**
 * `deno task bench:mcp [--runs 5]`: startup of the MCP stdio server, from process spawn to
 * the `initialize` answer, in both modes, with the builtin embedder.
 *
 * - api: against an admin daemon (embedded database) started once for the run;
 * - direct: against PGlite served over the Postgres wire protocol by pglite-socket (the
 *   whole direct-mode startup: connect, migrate, embedder probe, dimension check).
 *
 * The server is started as `deno task mcp` starts it: through the launcher, which computes its
 * exact permissions (so the figure includes the launcher's own start). The initialize request
 * is written as soon as the process is spawned, so the figure is what an agent client waits
 * for. The first run of each mode is reported separately (cold module cache in the OS) and
 * left out of the median. Prints a table and writes JSON to bench/results/mcp-<date>.json.
 */
import { parseArgs } from "node:util";
import { pgliteServer, ROOT, startAdminProcess } from "../tests/helpers.ts";
import { writeBenchResult } from "./entrypoints.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "5" } },
  strict: true,
});
const RUNS = Math.max(1, Number(values.runs) || 5);

// The launcher, as the "mcp" task and the installed mneme-mcp run it.
const LAUNCH = [
  "run",
  "--no-prompt",
  "--allow-env",
  `--allow-run=${Deno.execPath()}`,
  `${ROOT}src/bin/launch.ts`,
  "mneme-mcp",
];

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "0" },
  },
}) + "\n";

/** Spawn the server, send initialize at once, return ms until the answer arrives. */
async function startupMs(env: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: LAUNCH,
    env: { EMBEDDING_PROVIDER: "builtin", NO_COLOR: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INIT));
  const errText = new Response(child.stderr).text();
  let out = "";
  let ms = NaN;
  const dec = new TextDecoder();
  for await (const chunk of child.stdout) {
    out += dec.decode(chunk);
    if (out.includes('"id":1')) {
      ms = performance.now() - t0;
      break;
    }
  }
  await writer.close().catch(() => {});
  const status = await child.status;
  if (Number.isNaN(ms)) {
    throw new Error(`server exited (${status.code}) without answering: ${await errText}`);
  }
  await errText;
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
