/**
 * `memcli setup`: create DATA_DIR, start the admin daemon detached, wait for `/healthz`,
 * print where everything is and the MCP client configuration.
 * @module
 */
import { loadMemoryConfig, type MemoryConfig } from "../../config.ts";
import { planFor } from "../../permissions.ts";
import type { Health } from "../../memory/types.ts";
import { choiceFlag, intFlag, parseFlags, stringFlag } from "../args.ts";
import { UsageError } from "../../common/errors.ts";
import { clientUrl } from "../../common/net.ts";
import { configOf, type DaemonState, layoutOf } from "../context.ts";
import {
  checkDaemon,
  clearPidFiles,
  entrypointArgs,
  logTail,
  portFree,
  serviceOwner,
  spawnDaemon,
  stopDaemon,
  stopHint,
  waitHealthy,
} from "../daemon.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { warnDrift } from "../connect/drift.ts";

const PROVIDERS = ["auto", "builtin", "ollama", "openai"] as const;

/**
 * The MCP client configuration snippet for a daemon at `url`; the server gets exactly the
 * permissions its configuration `cfg` (with MEMORY_API_URL = `url`) needs.
 */
export function mcpSnippet(url: string, withKey: boolean, cfg: MemoryConfig): string {
  const env: Record<string, string> = { MEMORY_API_URL: url };
  if (withKey) env.ADMIN_API_KEY = "<your ADMIN_API_KEY>";
  const plan = planFor("mcp", { ...cfg, databaseUrl: undefined, memoryApiUrl: url });
  return JSON.stringify(
    {
      mcpServers: {
        mneme: { command: Deno.execPath(), args: entrypointArgs("mcp", plan), env },
      },
    },
    null,
    2,
  );
}

/** What {@link startDaemon} starts, from the flags of setup and start. */
export interface StartOptions {
  /** Admin API port (default: ADMIN_PORT, else 4200). */
  port?: number;
  /** Server Postgres instead of the embedded database. */
  databaseUrl?: string;
  /** The embedding provider. */
  provider?: string;
  /** Seconds to wait for /healthz. */
  timeoutS: number;
}

/** A daemon that answers: started now, or already running. */
export interface Started {
  /** The URL clients use. */
  url: string;
  /** Its pid. */
  pid: number;
  /** Whether it was running before (nothing was started). */
  already: boolean;
  /** Its /healthz answer (when started now). */
  health?: Health;
}

/**
 * Start the admin daemon for this DATA_DIR in the background unless it runs already; on
 * failure says why on stderr (prefixed `memcli <verb>:`) and returns null.
 */
export async function startDaemon(
  io: Io,
  opts: StartOptions,
  verb: string,
): Promise<Started | null> {
  const cfg = configOf(io);
  const port = opts.port ?? cfg.adminPort;
  if (port === 0) {
    throw new UsageError("ADMIN_PORT=0: the daemon needs a fixed port (--port)", verb);
  }
  const layout = layoutOf(cfg.dataDir);

  const check = await checkDaemon(layout);
  if (check.kind === "running") {
    return {
      url: check.state?.url ?? clientUrl(cfg.adminHost, port),
      pid: check.pid,
      already: true,
    };
  }
  if (check.kind === "stale") {
    io.err(
      `memcli ${verb}: removing a stale pid file (daemon pid ${check.pid} is gone; it was not ` +
        "stopped with 'memcli stop'; see logs/admin.log)\n",
    );
    await clearPidFiles(layout);
  }

  await Deno.mkdir(layout.dataDir, { recursive: true, mode: 0o700 });
  for (const d of [layout.db, layout.models, layout.run, layout.logs]) {
    await Deno.mkdir(d, { recursive: true, mode: 0o700 });
  }

  const url = clientUrl(cfg.adminHost, port);
  const owner = await serviceOwner(layout);
  if (owner) {
    io.err(
      `memcli ${verb}: the memory service for ${layout.dataDir} already runs (pid ${owner.pid}` +
        `${owner.url ? `, ${owner.url}` : ""}), started outside memcli (deno task start, or a ` +
        `login service); stop it first: ${stopHint(owner.pid)}\n`,
    );
    return null;
  }
  if (!portFree(cfg.adminHost, port)) {
    let who = "";
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      const body = await res.json().catch(() => null);
      if (body && typeof body === "object" && "version" in body) {
        who = " (a Mneme admin API answers there, for another DATA_DIR)";
      }
    } catch { /* something else */ }
    io.err(
      `memcli ${verb}: port ${port} on ${cfg.adminHost} is already in use${who}; ` +
        "stop the other process or choose another port with --port\n",
    );
    return null;
  }

  const env: Record<string, string> = { DATA_DIR: layout.dataDir, ADMIN_PORT: String(port) };
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  if (opts.provider) env.EMBEDDING_PROVIDER = opts.provider;
  const usesPostgres = Boolean(opts.databaseUrl ?? cfg.databaseUrl);
  io.err(`memcli ${verb}: starting the admin daemon on ${url} (log: ${layout.logFile})\n`);
  const daemonCfg = loadMemoryConfig((n) => env[n] ?? io.env(n));
  const plan = planFor("admin", { ...daemonCfg, dataDir: layout.dataDir });
  const { child, logOffset } = await spawnDaemon(layout, env, plan);
  const state: DaemonState = {
    pid: child.pid,
    url,
    port,
    started_at: new Date().toISOString(),
    database: usesPostgres ? "postgres" : "pglite",
    log_file: layout.logFile,
  };
  await Deno.writeTextFile(layout.pidFile, `${child.pid}\n`, { mode: 0o600 });
  await Deno.writeTextFile(layout.stateFile, JSON.stringify(state, null, 2) + "\n", {
    mode: 0o600,
  });

  const res = await waitHealthy(url, child, opts.timeoutS * 1000);
  if (!res.ok) {
    let how: string;
    if (res.reason === "timeout") {
      await stopDaemon(child.pid, 5000);
      how = `did not become healthy within ${opts.timeoutS} s and was stopped`;
    } else {
      how = `exited during startup (exit code ${res.code})`;
    }
    await child.status.catch(() => {});
    await clearPidFiles(layout);
    // The daemon's own last "mneme admin: <reason>" line says why; other lines give context.
    const tail = (await logTail(layout, logOffset)).split("\n").filter((l) => l.trim());
    const reason = tail.findLast((l) => l.startsWith("mneme admin: ")) ?? tail.at(-1) ?? "";
    const context = tail.filter((l) => l !== reason);
    io.err(
      `memcli ${verb}: the admin daemon ${how}` +
        (reason ? `: ${reason.replace(/^mneme admin: /, "")}` : "") + "\n" +
        (context.length ? `Log:\n${context.map((l) => `  ${l}`).join("\n")}\n` : "") +
        `Full log: ${layout.logFile}\n`,
    );
    return null;
  }
  child.unref();
  return { url, pid: child.pid, already: false, health: res.health };
}

/** The flags setup and start share. */
export function startOptions(verb: string, args: string[]) {
  const p = parseFlags(verb, args, {
    port: { type: "string" },
    "database-url": { type: "string" },
    "embedding-provider": { type: "string" },
    timeout: { type: "string" },
  });
  const port = intFlag(verb, "port", p.values.port, 1, 65535);
  const provider = choiceFlag(verb, "embedding-provider", p.values["embedding-provider"], [
    ...PROVIDERS,
  ]);
  const databaseUrl = stringFlag(verb, "database-url", p.values["database-url"]);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/./.test(databaseUrl)) {
    throw new UsageError("--database-url: must be a postgres:// or postgresql:// URL", verb);
  }
  const timeoutS = intFlag(verb, "timeout", p.values.timeout, 1, 3600) ?? 120;
  const opts: StartOptions = { port, databaseUrl, provider, timeoutS };
  return { help: p.help, opts };
}

/** Run `memcli setup`. */
export async function setup(args: string[], io: Io): Promise<number> {
  const { help, opts } = startOptions("setup", args);
  if (help) {
    io.out(COMMAND_USAGE.setup);
    return 0;
  }
  const cfg = configOf(io);
  const layout = layoutOf(cfg.dataDir);
  const started = await startDaemon(io, opts, "setup");
  if (!started) return 1;
  const { url } = started;
  if (started.already) {
    io.out(
      `The admin daemon is already running (pid ${started.pid}) at ${url}; nothing changed.\n` +
        `Data dir: ${layout.dataDir}\n` +
        "Run 'memcli status' for details, or 'memcli stop' first to change settings.\n" +
        "\nNext, connect Claude Code: memcli connect claude\n",
    );
    return 0;
  }
  const h = started.health!;
  const e = h.embedder;
  const lines = [
    "Mneme admin daemon is running.",
    "",
    `  URL:       ${url}  (Admin API and web UI)`,
    `  Data dir:  ${layout.dataDir}`,
    `  Database:  ${h.database.kind}${h.database.kind === "pglite" ? ` (${layout.db})` : ""}`,
    `  Embedder:  ${e.provider}/${e.model} (${e.dimension} dimensions)`,
    `  PID:       ${started.pid}`,
    `  Log:       ${layout.logFile}`,
  ];
  if (h.status === "maintenance") {
    lines.push(
      "",
      `Maintenance: ${h.maintenance?.reason ?? "stored vectors need re-embedding"}.`,
      "Searches and writes answer 409 until you run 'memcli reembed'.",
    );
  }
  lines.push(
    "",
    "Next, connect Claude Code (hooks, MCP server, start at login): memcli connect claude",
    "",
    "Other MCP clients: add this to their MCP settings (e.g. .mcp.json):",
    "",
    mcpSnippet(url, Boolean(cfg.adminApiKey), cfg),
    "",
  );
  io.out(lines.join("\n"));
  await warnDrift(io, "setup", url);
  return 0;
}
