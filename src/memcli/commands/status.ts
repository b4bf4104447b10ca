/**
 * `memcli status [--json]`: the daemon (pid, uptime, URL), health of the database and the
 * embedder, memory counts, data directory and its size. Exit 0 when running and healthy,
 * 2 when running but degraded (maintenance or error), 1 when down.
 * @module
 */
import { join } from "node:path";
import { describeError } from "../../common/errors.ts";
import { MemoryError } from "../../domain/errors.ts";
import type { Health, Stats } from "../../memory/types.ts";
import type { MemoryClient } from "../../memory/client.ts";
import { parseFlags } from "../args.ts";
import { apiUrlOf, clientOf, configOf, type Layout, layoutOf } from "../context.ts";
import { answers, checkDaemon, type DaemonCheck, serviceOwner } from "../daemon.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { connectDrift, type LoginEntry, loginEntry } from "../connect/drift.ts";

/** Total size in bytes of the files under `dir` (0 when absent), leaving out `skip`. */
export async function dirSize(dir: string, skip?: string): Promise<number> {
  let total = 0;
  try {
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      if (p === skip) continue;
      if (e.isDirectory) total += await dirSize(p, skip);
      else if (e.isFile) total += (await Deno.lstat(p).catch(() => ({ size: 0 }))).size;
    }
  } catch { /* absent or unreadable */ }
  return total;
}

/**
 * The size of `dir` as `du -sk` counts it (blocks on disk, every file, the database's too):
 * memcli may not read the database folder itself, so `du` measures it. Null when `du` is
 * not there.
 */
export async function diskUsage(dir: string): Promise<number | null> {
  try {
    const out = await new Deno.Command("sh", {
      args: ["-c", 'exec du -sk "$0"', dir],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const kib = Number(new TextDecoder().decode(out.stdout).trim().split(/\s/)[0]);
    return out.stdout.length && Number.isFinite(kib) ? kib * 1024 : null;
  } catch {
    return null;
  }
}

/** `1.2 MiB`-style sizes. */
export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** `1d 2h 3m 4s`-style durations. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const parts: string[] = [];
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60), r = s % 60;
  if (d) parts.push(`${d}d`);
  if (h) parts.push(`${h}h`);
  if (m) parts.push(`${m}m`);
  parts.push(`${r}s`);
  return parts.join(" ");
}

/** The JSON shape of `memcli status --json`. */
export interface StatusReport {
  /** True when the Admin API answers /healthz. */
  running: boolean;
  /** `ok`, `maintenance`, `error` (API up) or `down`. */
  status: "ok" | "maintenance" | "error" | "down";
  /**
   * Daemon started by memcli (`start`, `connect`, `setup`) for this DATA_DIR: `running`,
   * `stale` (pid gone) or `none`.
   */
  daemon: "running" | "stale" | "none";
  /** Pid of the daemon from run/admin.pid, when any. */
  pid: number | null;
  /** Seconds since memcli started the daemon, when it runs. */
  uptime_seconds: number | null;
  /** When memcli started the daemon. */
  started_at: string | null;
  /** Admin API URL and where it came from. */
  url: string;
  /** `env` (MEMORY_API_URL), `setup` (run/admin.json) or `default`. */
  url_source: string;
  /** /healthz answer, when reachable. */
  health: Health | null;
  /** /api/stats answer, when reachable. */
  stats: Stats | null;
  /** Why something is missing. */
  problems: string[];
  /** DATA_DIR. */
  data_dir: string;
  /** Bytes under DATA_DIR. */
  data_dir_bytes: number;
  /** The daemon log file. */
  log_file: string;
}

/** The service's health and, when it answers, its statistics; what failed goes to `problems`. */
async function healthAndStats(
  client: MemoryClient,
  problems: string[],
): Promise<{ health: Health | null; stats: Stats | null }> {
  let health: Health | null = null;
  let stats: Stats | null = null;
  try {
    health = await client.health();
  } catch (err) {
    problems.push(`Admin API: ${err instanceof MemoryError ? err.message : describeError(err)}`);
  }
  if (health) {
    try {
      stats = await client.stats();
    } catch (err) {
      problems.push(`stats: ${err instanceof MemoryError ? err.message : describeError(err)}`);
    }
  }
  return { health, stats };
}

/**
 * The report's `Daemon:` line: which process runs the service, and what starts it. The start
 * at login (`readLogin`: its files, else the crontab through `sh`) is read only for a service
 * that runs: of one that is down, nothing of it is said.
 */
async function daemonLine(
  layout: Layout,
  check: DaemonCheck,
  report: StatusReport,
  readLogin: () => Promise<LoginEntry | null>,
): Promise<string> {
  // Only an entry that starts this DATA_DIR's service is named (not another data folder's).
  const here = async () => {
    const entry = await readLogin();
    return entry?.here && entry.file ? { kind: entry.kind, file: entry.file } : null;
  };
  if (check.kind === "running") {
    const login = await here();
    const up = report.uptime_seconds !== null
      ? `, uptime ${formatDuration(report.uptime_seconds)}`
      : "";
    const by = login && login.kind !== "systemd" && login.kind !== "launchd"
      ? ` (memcli's background service; the login line in ${login.file} starts it)`
      : " (memcli's background service)";
    return `  Daemon:    pid ${check.pid}${up}${by}`;
  }
  if (check.kind === "stale") return `  Daemon:    not running (stale pid file, pid ${check.pid})`;
  if (report.running) {
    const o = await serviceOwner(layout);
    const login = o?.task ? null : await here();
    const pid = o ? `pid ${o.pid}, ` : "";
    return (
      `  Daemon:    ${pid}${
        o?.task
          ? "started in a terminal (deno task start): it stops with that terminal; " +
            "'memcli connect claude --take-over' moves it to the background service"
          : login?.kind === "systemd"
          ? `the systemd user unit ${login.file} (starts at login)`
          : login?.kind === "launchd"
          ? `the launchd agent ${login.file} (starts at login)`
          : "started outside memcli (not by memcli start or a login entry)"
      }`
    );
  }
  return "  Daemon:    not started";
}

/** The report's lines of the service's health: version, database, vacuum, embedder. */
function healthLines(health: Health): string[] {
  const out: string[] = [];
  const db = health.database;
  const e = health.embedder;
  out.push(`  Version:   ${health.version}`);
  out.push(`  Database:  ${db.kind} ${db.ok ? "ok" : `error: ${db.error ?? "unreachable"}`}`);
  if (db.dead_rows !== undefined) {
    const last = db.last_vacuum;
    out.push(
      `  Vacuum:    ${db.dead_rows} dead rows; last vacuum ${
        last ? `${last.at} (${last.dead_rows} dead rows, ${last.took_ms} ms)` : "none yet"
      }`,
    );
  }
  out.push(
    `  Embedder:  ${e.provider}/${e.model} (${e.dimension} dimensions) ${
      e.ok ? "ok" : `error: ${e.error ?? "not answering"}`
    }`,
  );
  if (health.maintenance) {
    out.push(`  Maintenance: ${health.maintenance.reason}; run 'memcli reembed'`);
  }
  return out;
}

/** The report's lines of the memory counts. */
function statsLines(stats: Stats): string[] {
  const out: string[] = [];
  const scopes = Object.entries(stats.by_scope)
    .sort(([a], [b]) => (a === "global" ? -1 : b === "global" ? 1 : a.localeCompare(b)))
    .map(([k, v]) => `${k} ${v}`).join(", ");
  const types = Object.entries(stats.by_type).map(([k, v]) => `${k} ${v}`).join(", ");
  // The live ones (what search, recall and the bootstrap use) and the superseded apart; a
  // service older than these counts gives its total alone.
  const sup = stats.superseded ?? 0;
  const live = stats.live ?? stats.total - sup;
  out.push(
    sup
      ? `  Memories:  ${live} (and ${sup} superseded${
        scopes ? `; all ${stats.total} by scope: ${scopes}` : ""
      })`
      : `  Memories:  ${stats.total}${scopes ? ` (${scopes})` : ""}`,
  );
  if (types) out.push(`  By type:   ${types}${sup ? " (superseded included)" : ""}`);
  const projects = Object.keys(stats.by_project).length;
  if (projects) out.push(`  Projects:  ${projects}`);
  out.push(expansionLine(stats));
  if (stats.judge) out.push(judgeLine(stats.judge));
  return out;
}

/**
 * The report's line of the judge (`RECALL_JUDGE=on`): of the prompt hook's candidates, and of the
 * agent's own searches it reranked (`reranks`, counted among `asked`).
 */
export function judgeLine(j: NonNullable<Stats["judge"]>): string {
  const fell = Object.entries(j.fallbacks).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`);
  const pool = j.pool ? `, pool ${j.pool.limit} ≥ ${j.pool.floor}` : "";
  // A service older than the rerank (0.24) sends no `reranks`.
  const reranks = j.reranks ?? 0;
  const asked = reranks
    ? `${j.asked} prompts and searches judged (${reranks} searches reranked)`
    : `${j.asked} prompts judged`;
  return `  Judge:     on (${j.model}, ${j.timeout_ms} ms${pool}): ${j.judged} of ${asked}` +
    `${fell.length ? ` (plain floor: ${fell.join(", ")})` : ""}; ${j.tokens_today} of ` +
    `${j.daily_tokens} tokens today${j.last_error ? `; last failure: ${j.last_error}` : ""}`;
}

/** The report's line of memory expansion (`MEMORY_EXPANSION`): off, or its counts. */
export function expansionLine(stats: Stats): string {
  const x = stats.expansion;
  if (!x) return "  Expansion: off";
  const wait = x.waiting_for === "budget"
    ? "; the daily budget is spent: the rest waits for the next day (UTC)"
    : x.waiting_for === "backoff"
    ? `; the model failed${x.last_error ? ` (${x.last_error})` : ""}: trying again later`
    : x.waiting_for === "lease"
    ? "; another daemon on this database is expanding: this one waits"
    : "";
  return `  Expansion: on${x.model ? ` (${x.model})` : ""}: ${x.expanded} memories expanded, ` +
    `${x.waiting} waiting; ${x.tokens_today} of ${x.daily_tokens} tokens today${wait}`;
}

/** Run `memcli status`. */
export async function status(args: string[], io: Io): Promise<number> {
  const p = parseFlags("status", args, { json: { type: "boolean" } });
  if (p.help) {
    io.out(COMMAND_USAGE.status);
    return 0;
  }
  const cfg = configOf(io);
  const layout = layoutOf(cfg.dataDir);
  let { url, source }: { url: string; source: string } = await apiUrlOf(io, cfg);
  if (source === "default") {
    // A service memcli did not start (deno task start, a login unit) records where it answers.
    const o = await serviceOwner(layout);
    if (o?.url) ({ url, source } = { url: o.url, source: "owner" });
  }
  const check = await checkDaemon(layout);
  const problems: string[] = [];
  const { health, stats } = await healthAndStats(clientOf(cfg, url, 5000), problems);
  // Not answering: a wrong MEMORY_API_URL, or a service that runs but is starting or hung.
  const owner = health ? null : await serviceOwner(layout);
  const ownUrl = check.kind === "running" ? check.state?.url : owner?.url;
  const wrongUrl = !health && source === "env" && ownUrl !== undefined && ownUrl !== url &&
    await answers(ownUrl);
  if (wrongUrl) {
    problems.push(
      `MEMORY_API_URL=${url} does not answer, but the service of this DATA_DIR answers at ` +
        `${ownUrl}: set MEMORY_API_URL=${ownUrl}, or unset it`,
    );
  }
  if (check.kind === "stale") {
    problems.push(
      `stale pid file: daemon pid ${check.pid} is gone (crashed or killed); see ${layout.logFile}` +
        " and run 'memcli start' to start it again",
    );
  }
  // The start at login, read once and only when a service runs (status and drift use it).
  let entry: Promise<LoginEntry | null> | undefined;
  const login = () => entry ??= loginEntry(io);
  // What connect set up (the MCP server, the hooks, the start at login) reaches this service?
  if (health) problems.push(...await connectDrift(io, url, undefined, await login()));
  const started = check.kind !== "none" ? check.state?.started_at ?? null : null;
  const report: StatusReport = {
    running: health !== null,
    status: health ? health.status : "down",
    daemon: check.kind,
    pid: check.kind === "none" ? null : check.pid,
    uptime_seconds: check.kind === "running" && started
      ? Math.round((Date.now() - Date.parse(started)) / 1000)
      : null,
    started_at: started,
    url,
    url_source: source,
    health,
    stats,
    problems,
    data_dir: layout.dataDir,
    // One figure whether the service runs or not: what `du` says; without du, the files
    // memcli may read plus the size the running service reports for its database.
    data_dir_bytes: await diskUsage(layout.dataDir) ??
      (await dirSize(layout.dataDir, layout.db) +
        (health?.database.kind === "pglite" ? health.database.size_bytes ?? 0 : 0)),
    log_file: layout.logFile,
  };
  const code = !report.running ? 1 : report.status === "ok" ? 0 : 2;
  if (p.values.json) {
    io.out(JSON.stringify(report, null, 2) + "\n");
    return code;
  }
  const out: string[] = [];
  const state = report.running
    ? (report.status === "ok" ? "running" : `running (${report.status})`)
    : wrongUrl
    ? `not reached at ${url} (MEMORY_API_URL), but running at ${ownUrl}`
    : check.kind === "running" || owner
    ? `not responding (the service process${
      owner && check.kind !== "running" ? ` pid ${owner.pid}` : ""
    } is alive: starting, or hung; see the log)`
    : "not running";
  out.push(`Mneme admin: ${state}`);
  out.push(await daemonLine(layout, check, report, login));
  out.push(`  URL:       ${url}${source === "env" ? " (MEMORY_API_URL)" : ""}`);
  if (health) out.push(...healthLines(health));
  if (stats) out.push(...statsLines(stats));
  out.push(`  Data dir:  ${layout.dataDir} (${formatBytes(report.data_dir_bytes)})`);
  out.push(`  Log:       ${layout.logFile}`);
  for (const pr of problems) out.push(`  Problem:   ${pr}`);
  if (!report.running && check.kind !== "stale" && !owner && !wrongUrl) {
    out.push("Start it with 'memcli start'.");
  }
  io.out(out.join("\n") + "\n");
  return code;
}
