/**
 * `deno task bench:peers [--memories 20000] [--data DIR] [--searches 200] [--writes 100]
 *   [--systems mneme,server-memory,ai-devkit] [--idle 5] [--unload-after 15] [--keep] [--smaps PREFIX]
 *   [--v8-flags FLAGS] [--daemon-env NAME=VALUE …]`
 *
 * Mneme side by side with two SQLite/JSONL-based memory servers from npm, in one run, on the
 * same LoCoMo-derived text, each through MCP over stdio as an agent client uses it:
 *
 * - `@modelcontextprotocol/server-memory` (a knowledge graph in one JSONL file; search is a
 *   substring scan);
 * - `@ai-devkit/memory` (SQLite FTS5, BM25);
 * - Mneme as the README's Claude Code setup runs it: the admin daemon (`mneme-admin`) on the
 *   embedded database (PGlite), the MCP server (`mneme-mcp`) in API mode, both started through
 *   the launcher as the installed commands are, with the builtin embedder.
 *
 * The peers are installed with the `npm` client into the test clients' cache (see
 * tests/clients/npm.ts; versions {@link SERVER_MEMORY_VERSION} and {@link AI_DEVKIT_VERSION})
 * and run with the machine's `node`. Each system runs alone, one after the other, in a fresh
 * HOME and data directory (removed afterwards; kept with `--keep`, which prints where).
 *
 * The text: every dialogue turn of the conversations in `--data` (default
 * `../shared/data/locomo-dev`, the format of bench:recall) as `"<speaker>: <text>"`, one
 * project per conversation; beyond one pass over the turns (and for turns shorter than the 50
 * characters ai-devkit requires) a memory is a turn followed by a later one of the same
 * conversation, a different pair each time, so no two memories are the same. Searches are the
 * conversations' questions (categories 1–4), asked within their conversation's project.
 *
 * Phases and figures, per system:
 * 1. start (the daemon, or the MCP server of a peer) on an empty store: `startup_peak_mib`;
 * 2. bulk load of `--memories` through each system's own bulk path: Mneme's import
 *    (`POST /api/memories/import`, 10,000 a request, as `memcli import`), server-memory's
 *    `create_entities` over MCP (1,000 entities a call), ai-devkit's `storeKnowledge` (its
 *    library, which its MCP tool calls) in one Node process: `load_per_s`, `load_s`,
 *    `load_peak_mib` (the largest sum of the RSS of the system's processes, sampled every
 *    25 ms; for ai-devkit the loader's own maximum RSS);
 * 3. an MCP session: `--writes` writes (remember / memory_storeKnowledge / create_entities of
 *    one) and `--searches` searches (recall / memory_searchKnowledge / search_nodes), one at a
 *    time, timed at the client from request to answer: `write_p50/p95`, `search_p50/p95`,
 *    `first_write_ms` (the session's first write, left out of the percentiles);
 * 4. `--idle` seconds of nothing, then `idle_mib` (the daemon's RSS, or the peer server's),
 *    `idle_all_mib` (every process of the system) and `mcp_idle_mib` (the MCP server program:
 *    Mneme's `mneme-mcp` without its launcher; a peer's server, the same as `idle_mib`);
 *    Mneme's daemon then gets `--unload-after` seconds (default 15, its
 *    `DATABASE_IDLE_UNLOAD_S`; 600 in use) to close its idle database: `unloaded_mib` is its RSS
 *    2 s after `/healthz` says so;
 * 5. `disk_mib`: the bytes of the data directory (the JSONL file; the SQLite files), for Mneme
 *    also its write-ahead log (`wal_mib`).
 *
 * `peak_all_mib` is the largest sampled sum of the RSS of every process of the system (the
 * launchers, the daemon, the MCP server) over the whole run; `daemon_peak_mib` the daemon
 * program's own high-water mark (VmHWM; for the peers, the MCP server's). Linux only (reads
 * /proc). Prints a table with each figure's ratio to ai-devkit and writes JSON to
 * bench/results/peers-<date>.json.
 *
 * For experiments on Mneme's daemon: `--smaps PREFIX` saves its `/proc/<pid>/smaps` at idle to
 * `PREFIX-mneme.smaps` and puts where its memory goes (tasks/smaps.ts) in the JSON
 * (`smaps_mib`); `--v8-flags FLAGS` gives it V8 flags before the launcher's, and
 * `--daemon-env NAME=VALUE` (repeated) more variables.
 */
import { npmInstall, npmMissing } from "../tests/clients/npm.ts";
import { freePort, untilUnloaded } from "../tests/helpers.ts";
import { MemoryClient } from "../src/memory/client.ts";
import type { ImportItem } from "../src/memory/types.ts";
import { VERSION } from "../src/version.ts";
import { ROOT } from "./entrypoints.ts";
import { benchArgs, intFlag, LOCOMO_DEV } from "./lib/args.ts";
import { McpSession } from "./lib/mcp.ts";
import { type SmapsGroups, smapsGroups } from "./smaps.ts";

/** The peers' versions (the newest on npm when this was written). */
export const SERVER_MEMORY_VERSION = "2026.8.31";
export const AI_DEVKIT_VERSION = "0.20.1";

const values = benchArgs(
  "deno task bench:peers [--data DIR] [--memories N] [--searches N] [--writes N] " +
    "[--systems ai-devkit,server-memory,mneme] [--idle S] [--unload-after S] [--keep] " +
    "[--smaps PREFIX] [--v8-flags FLAGS] [--daemon-env K=V]...",
  {
    data: { type: "string", default: LOCOMO_DEV },
    memories: { type: "string", default: "20000" },
    searches: { type: "string", default: "200" },
    writes: { type: "string", default: "100" },
    systems: { type: "string", default: "ai-devkit,server-memory,mneme" },
    idle: { type: "string", default: "5" },
    "unload-after": { type: "string", default: "15" },
    keep: { type: "boolean", default: false },
    smaps: { type: "string" },
    "v8-flags": { type: "string" },
    "daemon-env": { type: "string", multiple: true },
  },
);
const MEMORIES = intFlag("memories", values.memories);
const SEARCHES = intFlag("searches", values.searches);
const WRITES = intFlag("writes", values.writes);
const IDLE_S = Number(values.idle) >= 0 ? Number(values.idle) : 5;
const UNLOAD_S = Number(values["unload-after"]) >= 1
  ? Math.round(Number(values["unload-after"]))
  : 15;
const SYSTEMS = values.systems!.split(",").map((s) => s.trim()).filter(Boolean);
for (const s of SYSTEMS) {
  if (!["mneme", "server-memory", "ai-devkit"].includes(s)) {
    console.error(`bench:peers: --systems: mneme, server-memory or ai-devkit, not ${s}`);
    Deno.exit(2);
  }
}
if (Deno.build.os !== "linux") {
  console.error("bench:peers: Linux only (the memory figures come from /proc)");
  Deno.exit(2);
}

// ---------------------------------------------------------------------------------------------
// The text

interface Turn {
  speaker: string;
  text: string;
}
interface Conv {
  project: string;
  turns: Turn[];
  questions: string[];
}
/** One memory of the run, in the words each system takes. */
interface Item {
  content: string;
  project: string;
  /** ai-devkit's title (10–100 characters, unique in its scope). */
  title: string;
}

async function loadConversations(dir: string): Promise<Conv[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.endsWith(".json")) names.push(e.name);
    }
  } catch (err) {
    console.error(`bench:peers: --data ${dir}: ${(err as Error).message}`);
    Deno.exit(2);
  }
  if (names.length === 0) {
    console.error(`bench:peers: --data ${dir}: no .json conversations there`);
    Deno.exit(2);
  }
  names.sort();
  const out: Conv[] = [];
  for (const name of names) {
    const raw = JSON.parse(await Deno.readTextFile(`${dir}/${name}`));
    const samples = Array.isArray(raw) ? raw : [raw];
    samples.forEach((s: Record<string, unknown>, i: number) => {
      const conv = (s.conversation ?? s) as Record<string, unknown>;
      const keys = Object.keys(conv).filter((k) => /^session_\d+$/.test(k))
        .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
      const turns: Turn[] = [];
      for (const k of keys) {
        for (const t of conv[k] as Turn[]) {
          if (typeof t.text === "string" && t.text.trim()) turns.push(t);
        }
      }
      const qa = (s.qa ?? []) as { question: string; category: number; evidence?: string[] }[];
      const base = name.replace(/\.json$/, "").toLowerCase().replace(/[^a-z0-9_-]/g, "-");
      out.push({
        project: `locomo-${samples.length > 1 ? `${base}-${i}` : base}`,
        turns,
        questions: qa.filter((q) => q.category >= 1 && q.category <= 4 && q.evidence?.length)
          .map((q) => String(q.question)),
      });
    });
  }
  return out.filter((c) => c.turns.length > 1);
}

/** Memory `i` of the run (deterministic; distinct for every i below turns × (turns − 1)). */
function makeItem(convs: Conv[], all: { c: number; t: number }[], i: number): Item {
  const { c, t } = all[i % all.length];
  const pass = Math.floor(i / all.length);
  const conv = convs[c];
  const line = (x: Turn) => `${x.speaker}: ${x.text.trim()}`;
  let content = line(conv.turns[t]);
  if (pass > 0 || content.length < 50) {
    // A later turn of the same conversation, a different one on each pass.
    const n = conv.turns.length;
    let step = 1 + pass;
    content += " " + line(conv.turns[(t + step) % n]);
    while (content.length < 50) content += " " + line(conv.turns[(t + ++step) % n]);
  }
  const head = `${conv.turns[t].speaker} #${i}: ${conv.turns[t].text.trim()}`;
  return { content, project: conv.project, title: head.slice(0, 100).padEnd(10, ".") };
}

// ---------------------------------------------------------------------------------------------
// Processes and memory

const decoder = new TextDecoder();

/** VmRSS and VmHWM of `pid` in bytes (0 when it is gone). */
function procMem(pid: number): { rss: number; hwm: number } {
  try {
    const s = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (k: string) => Number(s.match(new RegExp(`^${k}:\\s+(\\d+)`, "m"))?.[1] ?? 0);
    return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** `pid` and its descendants. */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of Deno.readDirSync(`/proc/${out[i]}/task`)) {
        const kids = Deno.readTextFileSync(`/proc/${out[i]}/task/${task.name}/children`);
        for (const k of kids.split(/\s+/)) if (k) out.push(Number(k));
      }
    } catch { /* gone */ }
  }
  return out;
}

/** The deepest process of `pid`'s tree: the program a launcher (or `npx`-like wrapper) runs. */
function leaf(pid: number): number {
  const all = tree(pid);
  return all[all.length - 1];
}

/** Samples the summed RSS of the given process trees every 25 ms; `peak()` is the largest. */
class RssSampler {
  #roots = new Set<number>();
  #peak = 0;
  #overall = 0;
  #timer: ReturnType<typeof setInterval>;
  constructor() {
    this.#timer = setInterval(() => this.sample(), 25);
  }
  add(pid: number) {
    this.#roots.add(pid);
    this.sample();
  }
  remove(pid: number) {
    this.#roots.delete(pid);
  }
  sample(): number {
    let sum = 0;
    for (const r of this.#roots) for (const p of tree(r)) sum += procMem(p).rss;
    this.#peak = Math.max(this.#peak, sum);
    this.#overall = Math.max(this.#overall, sum);
    return sum;
  }
  /** The peak since the last reset. */
  peak(): number {
    this.sample();
    return this.#peak;
  }
  /** The peak of the whole run. */
  overall(): number {
    this.sample();
    return this.#overall;
  }
  reset() {
    this.#peak = 0;
    this.sample();
  }
  stop() {
    clearInterval(this.#timer);
  }
}

/** Bytes under `path` (a file or a directory), and under its `pg_wal` when there is one. */
async function diskBytes(path: string): Promise<{ total: number; wal: number }> {
  let total = 0;
  let wal = 0;
  const walk = async (p: string, inWal: boolean): Promise<void> => {
    let st: Deno.FileInfo;
    try {
      st = await Deno.lstat(p);
    } catch {
      return;
    }
    if (st.isDirectory) {
      for await (const e of Deno.readDir(p)) {
        await walk(`${p}/${e.name}`, inWal || e.name === "pg_wal");
      }
      return;
    }
    // Allocated bytes (sparse files count what they hold).
    const bytes = st.blocks !== null && st.blocks !== undefined ? st.blocks * 512 : st.size;
    total += bytes;
    if (inWal) wal += bytes;
  };
  await walk(path, false);
  return { total, wal };
}

// ---------------------------------------------------------------------------------------------
// Systems

/** One system under test: its processes, its bulk path, its tools. */
interface System {
  name: string;
  version: string;
  /** Starts the server(s) on an empty store; returns the pid whose tree is "the daemon". */
  start(sampler: RssSampler): Promise<void>;
  /** The daemon's program pid (Mneme's admin daemon; a peer's MCP server). */
  daemonPid(): number;
  /** Loads the items; returns the peak RSS the load measured itself (ai-devkit), if any. */
  load(items: Item[], sampler: RssSampler): Promise<number | undefined>;
  session(): Promise<McpSession>;
  write(mcp: McpSession, item: Item): Promise<unknown>;
  search(mcp: McpSession, query: string, project: string): Promise<unknown>;
  /** What the disk figure measures. */
  dataPath(): string;
  /** Mneme: resolves once the daemon has closed its idle database (`DATABASE_IDLE_UNLOAD_S`). */
  unloaded?(): Promise<void>;
  stop(): Promise<void>;
}

/** Deno's cache of this run: a fresh HOME must not make the programs download their modules. */
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  JSON.parse(
    decoder.decode(
      (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output()).stdout,
    ),
  ).denoDir as string;

/** The variables a child gets: a fresh HOME, the PATH and Deno's cache, nothing else of ours. */
function baseEnv(home: string): Record<string, string> {
  return { HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", NO_COLOR: "1", DENO_DIR };
}

const LAUNCH = (program: string) => [
  "run",
  "--no-prompt",
  "--allow-env",
  `--allow-run=${Deno.execPath()}`,
  `${ROOT}src/bin/launch.ts`,
  program,
];

function mneme(home: string): System {
  const dataDir = `${home}/data`;
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...baseEnv(home),
    DATA_DIR: dataDir,
    ADMIN_PORT: String(port),
    ADMIN_HOST: "127.0.0.1",
    EMBEDDING_PROVIDER: "builtin",
    // The quiet spell after which the daemon closes its database, shortened from 600 s so that
    // the run measures the daemon after it (`--unload-after`; `--daemon-env` may override it).
    DATABASE_IDLE_UNLOAD_S: String(UNLOAD_S),
    // The daemon's own V8 flags, before the launcher's (an experiment's; none by default).
    ...(values["v8-flags"] ? { DENO_V8_FLAGS: values["v8-flags"] } : {}),
    // More variables of the daemon's (`--daemon-env NAME=VALUE`, repeated; an experiment's).
    ...Object.fromEntries((values["daemon-env"] ?? []).map((kv) => {
      const at = kv.indexOf("=");
      if (at < 1) throw new Error(`bench:peers: --daemon-env ${kv}: NAME=VALUE`);
      return [kv.slice(0, at), kv.slice(at + 1)];
    })),
  };
  let daemon: Deno.ChildProcess | null = null;
  let daemonLeaf = 0;
  let errText = "";
  return {
    name: "mneme",
    version: VERSION,
    unloaded: () => untilUnloaded(url, 600_000),
    async start(sampler) {
      daemon = new Deno.Command(Deno.execPath(), {
        args: LAUNCH("mneme-admin"),
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      sampler.add(daemon.pid);
      (async () => {
        for await (const c of daemon!.stderr) errText = (errText + decoder.decode(c)).slice(-4000);
      })();
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`mneme-admin did not start: ${errText}`);
        try {
          const res = await fetch(`${url}/healthz`);
          await res.body?.cancel();
          if (res.status === 200) break;
        } catch { /* not yet */ }
        await new Promise((r) => setTimeout(r, 100));
      }
      daemonLeaf = leaf(daemon.pid);
    },
    daemonPid: () => daemonLeaf,
    async load(items) {
      const client = new MemoryClient({ baseUrl: url });
      for (let i = 0; i < items.length; i += 10_000) {
        const chunk: ImportItem[] = items.slice(i, i + 10_000).map((x) =>
          ({
            content: x.content,
            scope: "project",
            project: x.project,
            type: "context",
          }) as ImportItem
        );
        await client.import(chunk);
      }
      return undefined;
    },
    session() {
      return McpSession.start(Deno.execPath(), LAUNCH("mneme-mcp"), {
        env: { ...baseEnv(home), MEMORY_API_URL: url },
        clearEnv: true,
      }, "bench-peers");
    },
    write: (mcp, x) =>
      mcp.callTool("remember", {
        content: x.content,
        scope: "project",
        project: x.project,
        type: "context",
      }),
    search: (mcp, query, project) => mcp.callTool("recall", { query, project, limit: 5 }),
    dataPath: () => dataDir,
    async stop() {
      if (daemon && daemon.pid > 0) {
        try {
          daemon.kill("SIGTERM");
        } catch { /* gone */ }
        await daemon.status;
      }
    },
  };
}

async function serverMemory(home: string, binDir: string): Promise<System> {
  const file = `${home}/memory.jsonl`;
  const pkg = JSON.parse(
    await Deno.readTextFile(
      `${binDir}/../@modelcontextprotocol/server-memory/package.json`,
    ),
  );
  let server: McpSession | null = null;
  return {
    name: "server-memory",
    version: pkg.version,
    async start(sampler) {
      server = await McpSession.start("node", [`${binDir}/mcp-server-memory`], {
        env: { ...baseEnv(home), MEMORY_FILE_PATH: file },
        cwd: home,
        clearEnv: true,
      }, "bench-peers");
      sampler.add(server.pid);
    },
    daemonPid: () => leaf(server!.pid),
    async load(items) {
      for (let i = 0; i < items.length; i += 1000) {
        await server!.callTool("create_entities", {
          entities: items.slice(i, i + 1000).map((x, j) => entity(x, i + j)),
        });
      }
      return undefined;
    },
    session: () => Promise.resolve(server!),
    write: (mcp, x) => mcp.callTool("create_entities", { entities: [entity(x, -1)] }),
    search: (mcp, query) => mcp.callTool("search_nodes", { query }),
    dataPath: () => file,
    async stop() {
      await server?.close();
    },
  };
}

let writeSeq = 0;
function entity(x: Item, i: number) {
  return {
    name: i >= 0 ? `memory-${i}` : `memory-w${writeSeq++}`,
    entityType: x.project,
    observations: [x.content],
  };
}

const AI_DEVKIT_LOADER = `
import { readFileSync } from "node:fs";
const [api, file] = process.argv.slice(2);
const { storeKnowledge } = await import(api);
const items = JSON.parse(readFileSync(file, "utf8"));
const t0 = performance.now();
let rejected = 0;
for (const x of items) {
  try {
    storeKnowledge({ title: x.title, content: x.content, scope: "project:" + x.project });
  } catch (err) {
    if (err && err.name === "DuplicateError") rejected++; else throw err;
  }
}
const s = (performance.now() - t0) / 1000;
process.stdout.write(JSON.stringify({ s, rejected, maxRss: process.resourceUsage().maxRSS * 1024 }));
`;

async function aiDevkit(home: string, binDir: string): Promise<System> {
  const pkgDir = `${binDir}/../@ai-devkit/memory`;
  const pkg = JSON.parse(await Deno.readTextFile(`${pkgDir}/package.json`));
  let server: McpSession | null = null;
  return {
    name: "ai-devkit",
    version: pkg.version,
    async start(sampler) {
      server = await McpSession.start("node", [`${pkgDir}/dist/index.js`], {
        env: baseEnv(home),
        cwd: home,
        clearEnv: true,
      }, "bench-peers");
      sampler.add(server.pid);
    },
    daemonPid: () => leaf(server!.pid),
    async load(items, sampler) {
      // The library the MCP tool calls, in its own Node process (the server holds the same
      // database file open meanwhile, as SQLite allows).
      const file = `${home}/items.json`;
      const script = `${home}/load.mjs`;
      await Deno.writeTextFile(file, JSON.stringify(items));
      await Deno.writeTextFile(script, AI_DEVKIT_LOADER);
      const child = new Deno.Command("node", {
        args: [script, `file://${pkgDir}/dist/api.js`, file],
        env: baseEnv(home),
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      sampler.add(child.pid);
      const out = await child.output();
      sampler.remove(child.pid);
      await Deno.remove(file);
      if (!out.success) throw new Error(`ai-devkit load failed: ${decoder.decode(out.stderr)}`);
      const r = JSON.parse(decoder.decode(out.stdout));
      if (r.rejected) console.error(`ai-devkit: ${r.rejected} items rejected as duplicates`);
      return r.maxRss;
    },
    session: () => Promise.resolve(server!),
    write: (mcp, x) =>
      mcp.callTool("memory_storeKnowledge", {
        title: x.title,
        content: x.content,
        scope: `project:${x.project}`,
      }),
    search: (mcp, query, project) =>
      mcp.callTool("memory_searchKnowledge", { query, scope: `project:${project}`, limit: 5 }),
    dataPath: () => `${home}/.ai-devkit`,
    async stop() {
      await server?.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The run

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const MIB = 1024 * 1024;
const r1 = (x: number) => Math.round(x * 10) / 10;

interface Result {
  system: string;
  version: string;
  memories: number;
  startup_peak_mib: number;
  load_s: number;
  load_per_s: number;
  load_peak_mib: number;
  first_write_ms: number;
  write_p50_ms: number;
  write_p95_ms: number;
  search_p50_ms: number;
  search_p95_ms: number;
  peak_all_mib: number;
  daemon_peak_mib: number;
  idle_mib: number;
  idle_all_mib: number;
  mcp_idle_mib: number;
  /** Mneme: the daemon's RSS 2 s after it closed its idle database (`--unload-after`). */
  unloaded_mib?: number;
  /** With `--smaps`: the idle daemon's resident memory by group (tasks/smaps.ts). */
  smaps_mib?: SmapsGroups;
  disk_mib: number;
  wal_mib: number;
}

async function runSystem(sys: System, items: Item[], extra: Item[], queries: [string, string][]) {
  const sampler = new RssSampler();
  try {
    console.error(`${sys.name} ${sys.version}: starting`);
    await sys.start(sampler);
    const daemon = sys.daemonPid();
    await new Promise((r) => setTimeout(r, 1000));
    const startupPeak = procMem(daemon).hwm;
    console.error(`${sys.name}: loading ${items.length}`);
    sampler.reset();
    const t0 = performance.now();
    const selfPeak = await sys.load(items, sampler);
    const loadS = (performance.now() - t0) / 1000;
    const loadPeak = Math.max(sampler.peak(), selfPeak ?? 0);
    console.error(`${sys.name}: loaded in ${loadS.toFixed(1)} s; session`);
    const mcp = await sys.session();
    sampler.add(mcp.pid);
    const writes: number[] = [];
    let firstWrite = NaN;
    for (let i = 0; i < extra.length; i++) {
      const t = performance.now();
      await sys.write(mcp, extra[i]);
      const ms = performance.now() - t;
      if (i === 0) firstWrite = ms;
      else writes.push(ms);
    }
    const searches: number[] = [];
    for (let i = 0; i < SEARCHES; i++) {
      const [q, project] = queries[i % queries.length];
      const t = performance.now();
      await sys.search(mcp, q, project);
      searches.push(performance.now() - t);
    }
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const idle = procMem(daemon).rss;
    let smaps: SmapsGroups | undefined;
    if (values.smaps) {
      // The daemon's mappings at idle, and where its memory goes (tasks/smaps.ts).
      const text = await Deno.readTextFile(`/proc/${daemon}/smaps`);
      await Deno.writeTextFile(`${values.smaps}-${sys.name}.smaps`, text);
      smaps = smapsGroups(text);
    }
    const idleAll = sampler.sample();
    const mcpIdle = procMem(leaf(mcp.pid)).rss;
    // Mneme after its quiet spell: the database closed, its worker ended.
    let unloaded: number | undefined;
    if (sys.unloaded) {
      await sys.unloaded();
      await new Promise((r) => setTimeout(r, 2000));
      unloaded = procMem(daemon).rss;
    }
    const peakAll = sampler.overall();
    const daemonPeak = procMem(daemon).hwm;
    const disk = await diskBytes(sys.dataPath());
    if (sys.name === "mneme") await mcp.close();
    return {
      system: sys.name,
      version: sys.version,
      memories: items.length,
      startup_peak_mib: r1(startupPeak / MIB),
      load_s: r1(loadS),
      load_per_s: Math.round(items.length / loadS),
      load_peak_mib: r1(loadPeak / MIB),
      first_write_ms: r1(firstWrite),
      write_p50_ms: r1(pct(writes, 0.5)),
      write_p95_ms: r1(pct(writes, 0.95)),
      search_p50_ms: r1(pct(searches, 0.5)),
      search_p95_ms: r1(pct(searches, 0.95)),
      peak_all_mib: r1(Math.max(peakAll, loadPeak) / MIB),
      daemon_peak_mib: r1(daemonPeak / MIB),
      idle_mib: r1(idle / MIB),
      idle_all_mib: r1(idleAll / MIB),
      mcp_idle_mib: r1(mcpIdle / MIB),
      ...(unloaded !== undefined ? { unloaded_mib: r1(unloaded / MIB) } : {}),
      disk_mib: r1(disk.total / MIB),
      wal_mib: r1(disk.wal / MIB),
      ...(smaps ? { smaps_mib: smaps } : {}),
    } satisfies Result;
  } finally {
    sampler.stop();
    await sys.stop();
  }
}

const convs = await loadConversations(values.data!);
const all = convs.flatMap((c, ci) => c.turns.map((_, t) => ({ c: ci, t })));
const items = Array.from({ length: MEMORIES }, (_, i) => makeItem(convs, all, i));
const extra = Array.from({ length: WRITES + 1 }, (_, i) => makeItem(convs, all, MEMORIES + i));
const queries: [string, string][] = [];
for (let i = 0; queries.length < SEARCHES; i++) {
  const c = convs[i % convs.length];
  if (convs.every((x) => x.questions.length === 0)) break;
  if (c.questions.length) {
    queries.push([c.questions[Math.floor(i / convs.length) % c.questions.length], c.project]);
  }
}
if (queries.length === 0) {
  console.error(`bench:peers: --data ${values.data}: no questions (categories 1-4) to search with`);
  Deno.exit(2);
}

let srvBin = "";
let devkitBin = "";
if (SYSTEMS.some((s) => s !== "mneme")) {
  const missing = await npmMissing();
  if (missing) {
    console.error(`bench:peers: ${missing}`);
    Deno.exit(2);
  }
  if (SYSTEMS.includes("server-memory")) {
    const bin = await npmInstall(
      `server-memory-${SERVER_MEMORY_VERSION}`,
      `@modelcontextprotocol/server-memory@${SERVER_MEMORY_VERSION}`,
      "mcp-server-memory",
    );
    srvBin = bin.slice(0, bin.lastIndexOf("/"));
  }
  if (SYSTEMS.includes("ai-devkit")) {
    const bin = await npmInstall(
      `ai-devkit-memory-${AI_DEVKIT_VERSION}`,
      `@ai-devkit/memory@${AI_DEVKIT_VERSION}`,
      "ai-devkit-memory",
    );
    devkitBin = bin.slice(0, bin.lastIndexOf("/"));
  }
}
const node = SYSTEMS.some((s) => s !== "mneme")
  ? decoder.decode((await new Deno.Command("node", { args: ["--version"] }).output()).stdout).trim()
  : undefined;

const results: Result[] = [];
for (const name of SYSTEMS) {
  const home = await Deno.makeTempDir({ prefix: `mneme-peers-${name}-` });
  try {
    const sys = name === "mneme"
      ? mneme(home)
      : name === "server-memory"
      ? await serverMemory(home, srvBin)
      : await aiDevkit(home, devkitBin);
    results.push(await runSystem(sys, items, extra, queries));
  } finally {
    if (values.keep) console.error(`${name}: kept ${home}`);
    else await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

// The table: one row per figure, one column per system, then each system's ratio to ai-devkit.
const FIGURES: [keyof Result, string][] = [
  ["search_p50_ms", "search p50 (ms)"],
  ["search_p95_ms", "search p95 (ms)"],
  ["write_p50_ms", "write p50 (ms)"],
  ["write_p95_ms", "write p95 (ms)"],
  ["first_write_ms", "first write of the session (ms)"],
  ["peak_all_mib", "peak RSS, everything (MiB)"],
  ["daemon_peak_mib", "peak RSS, daemon alone (MiB)"],
  ["startup_peak_mib", "peak RSS at start, empty (MiB)"],
  ["load_peak_mib", "peak RSS during the bulk load (MiB)"],
  ["idle_mib", `RSS idle after ${IDLE_S} s, daemon (MiB)`],
  ["idle_all_mib", `RSS idle, everything (MiB)`],
  ["mcp_idle_mib", `RSS idle, MCP server program (MiB)`],
  ["unloaded_mib", "RSS, database unloaded, daemon (MiB)"],
  ["load_per_s", "bulk load (memories/s)"],
  ["load_s", "bulk load (s)"],
  ["disk_mib", "disk (MiB)"],
  ["wal_mib", "of it write-ahead log (MiB)"],
];
const base = results.find((r) => r.system === "ai-devkit");
const cols = results.map((r) => `${r.system} ${r.version}`);
const w = 38;
console.log(
  `\nAt ${MEMORIES} memories, ${SEARCHES} searches, ${WRITES} writes; MCP over stdio` +
    (node ? `; peers on node ${node}` : ""),
);
console.log(
  "".padEnd(w) + cols.map((c) => c.padStart(24)).join("") +
    (base
      ? results.filter((r) => r !== base).map((r) => `${r.system}/ai-devkit`.padStart(26)).join("")
      : ""),
);
const ratios: Record<string, Record<string, number>> = {};
for (const [k, label] of FIGURES) {
  let line = label.padEnd(w) + results.map((r) => String(r[k] ?? "-").padStart(24)).join("");
  if (base) {
    for (const r of results) {
      if (r === base) continue;
      const ratio = Number(base[k]) === 0 ? NaN : Number(r[k]) / Number(base[k]);
      (ratios[r.system] ??= {})[k] = +ratio.toFixed(2);
      line += (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : "-").padStart(26);
    }
  }
  console.log(line);
}
const out = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  os: Deno.build.os,
  data: values.data,
  memories: MEMORIES,
  searches: SEARCHES,
  writes: WRITES,
  idle_s: IDLE_S,
  unload_after_s: UNLOAD_S,
  v8_flags: values["v8-flags"] ?? null,
  daemon_env: values["daemon-env"] ?? [],
  node,
  cpus: navigator.hardwareConcurrency,
  results,
  ratios_to_ai_devkit: ratios,
};
await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
const file = `${ROOT}bench/results/peers-${out.date.replace(/[:.]/g, "-")}.json`;
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.log(`wrote ${file}`);
