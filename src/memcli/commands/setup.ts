/**
 * `memcli setup`: create DATA_DIR, start the admin daemon detached, wait for `/healthz`,
 * print where everything is and the MCP client configuration.
 * @module
 */
import { loadMemoryConfig, type MemoryConfig } from "../../config.ts";
import { planFor } from "../../permissions.ts";
import { choiceFlag, intFlag, parseFlags, stringFlag } from "../args.ts";
import { UsageError } from "../../common/errors.ts";
import { configOf, type DaemonState, layoutOf } from "../context.ts";
import {
  checkDaemon,
  clearPidFiles,
  entrypointArgs,
  logTail,
  portFree,
  spawnDaemon,
  stopDaemon,
  waitHealthy,
} from "../daemon.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";

const PROVIDERS = ["auto", "builtin", "ollama", "openai"] as const;

/** The URL clients use for a daemon listening on host:port. */
export function clientUrl(host: string, port: number): string {
  let h = host;
  if (h === "0.0.0.0" || h === "" || h === "::" || h === "[::]") h = "127.0.0.1";
  if (h.includes(":") && !h.startsWith("[")) h = `[${h}]`;
  return `http://${h}:${port}`;
}

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

/** Run `memcli setup`. */
export async function setup(args: string[], io: Io): Promise<number> {
  const p = parseFlags("setup", args, {
    port: { type: "string" },
    "database-url": { type: "string" },
    "embedding-provider": { type: "string" },
    timeout: { type: "string" },
  });
  if (p.help) {
    io.out(COMMAND_USAGE.setup);
    return 0;
  }
  const flagPort = intFlag("setup", "port", p.values.port, 1, 65535);
  const provider = choiceFlag("setup", "embedding-provider", p.values["embedding-provider"], [
    ...PROVIDERS,
  ]);
  const dbUrl = stringFlag("setup", "database-url", p.values["database-url"]);
  if (dbUrl !== undefined && !/^postgres(ql)?:\/\/./.test(dbUrl)) {
    throw new UsageError("--database-url: must be a postgres:// or postgresql:// URL", "setup");
  }
  const timeoutS = intFlag("setup", "timeout", p.values.timeout, 1, 3600) ?? 120;

  const cfg = configOf(io);
  const port = flagPort ?? cfg.adminPort;
  if (port === 0) throw new UsageError("ADMIN_PORT=0: setup needs a fixed port (--port)", "setup");
  const layout = layoutOf(cfg.dataDir);

  const check = await checkDaemon(layout);
  if (check.kind === "running") {
    const url = check.state?.url ?? clientUrl(cfg.adminHost, port);
    io.out(
      `The admin daemon is already running (pid ${check.pid}) at ${url}; nothing changed.\n` +
        `Data dir: ${layout.dataDir}\n` +
        "Run 'memcli status' for details, or 'memcli uninstall' first to change settings.\n",
    );
    return 0;
  }
  if (check.kind === "stale") {
    io.err(
      `memcli setup: removing a stale pid file (daemon pid ${check.pid} is gone; it was not ` +
        "stopped with 'memcli uninstall'; see logs/admin.log)\n",
    );
    await clearPidFiles(layout);
  }

  await Deno.mkdir(layout.dataDir, { recursive: true, mode: 0o700 });
  for (const d of [layout.db, layout.models, layout.run, layout.logs]) {
    await Deno.mkdir(d, { recursive: true, mode: 0o700 });
  }

  const url = clientUrl(cfg.adminHost, port);
  if (!portFree(cfg.adminHost, port)) {
    let who = "";
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      const body = await res.json().catch(() => null);
      if (body && typeof body === "object" && "version" in body) {
        who = " (a Mneme admin API answers there, not started by memcli for this DATA_DIR)";
      }
    } catch { /* something else */ }
    io.err(
      `memcli setup: port ${port} on ${cfg.adminHost} is already in use${who}; ` +
        "stop the other process or choose another port with --port\n",
    );
    return 1;
  }

  const env: Record<string, string> = { DATA_DIR: layout.dataDir, ADMIN_PORT: String(port) };
  if (dbUrl) env.DATABASE_URL = dbUrl;
  if (provider) env.EMBEDDING_PROVIDER = provider;
  const usesPostgres = Boolean(dbUrl ?? cfg.databaseUrl);
  io.err(`memcli setup: starting the admin daemon on ${url} (log: ${layout.logFile})\n`);
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

  const res = await waitHealthy(url, child, timeoutS * 1000);
  if (!res.ok) {
    let how: string;
    if (res.reason === "timeout") {
      await stopDaemon(child.pid, 5000);
      how = `did not become healthy within ${timeoutS} s and was stopped`;
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
      `memcli setup: the admin daemon ${how}` +
        (reason ? `: ${reason.replace(/^mneme admin: /, "")}` : "") + "\n" +
        (context.length ? `Log:\n${context.map((l) => `  ${l}`).join("\n")}\n` : "") +
        `Full log: ${layout.logFile}\n`,
    );
    return 1;
  }
  child.unref();

  const h = res.health;
  const e = h.embedder;
  const lines = [
    "Mneme admin daemon is running.",
    "",
    `  URL:       ${url}  (Admin API and web UI)`,
    `  Data dir:  ${layout.dataDir}`,
    `  Database:  ${h.database.kind}${h.database.kind === "pglite" ? ` (${layout.db})` : ""}`,
    `  Embedder:  ${e.provider}/${e.model} (${e.dimension} dimensions)`,
    `  PID:       ${child.pid}`,
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
    "MCP client configuration (add it to your agent's MCP settings, e.g. .mcp.json):",
    "",
    mcpSnippet(url, Boolean(cfg.adminApiKey), cfg),
    "",
    "Session-start hook: 'memcli bootstrap' prints the bootstrap Markdown for the current project.",
    "",
  );
  io.out(lines.join("\n"));
  return 0;
}
