/**
 * The one permission model: the Deno permission set each program needs for its
 * configuration (environment and flags), as plain data ({@link PermissionPlan}). This module
 * holds the memory service's plans (admin, mcp, memcli, the database's creator) and re-exports
 * the rest: the plan type and its helpers (flags, checks, description, narrowing:
 * src/permissions/plan.ts) and the messages client's plans (src/permissions/messages.ts).
 *
 * The table of programs (src/programs.ts) calls these plans; the launcher
 * (src/bin/launch.ts) computes the set when a task or an installed command starts and runs
 * the program with exactly those flags. The programs check at startup that they hold their
 * set (so a hand-written `deno run` line that misses something stops at once, naming it) and
 * print it.
 *
 * @module
 */
import { basename, dirname, join, parse, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  captureTranscriptsDir,
  claudeConfigDir,
  claudeSettingsFiles,
  type MemoryConfig,
} from "./config.ts";
import { safeEnv } from "./common/env.ts";
import { NO_PROXY_ENV } from "./common/net.ts";
import { AUTOSTART_ENV, autostartDirs, profileFiles, xdgAutostartDir } from "./common/autostart.ts";
import { absolute, add, addNet, type PermissionPlan, urlHostPort } from "./permissions/plan.ts";

export * from "./permissions/plan.ts";
export * from "./permissions/messages.ts";
import { wordVectorsFiles } from "./common/models.ts";

/** The loopback names every memory-service program may reach (the default service URLs). */
export const LOOPBACK: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

/** The memory service's own variables (docs/configuration.md). */
export const MEMORY_ENV_VARS: readonly string[] = [
  "DATABASE_URL",
  "DATA_DIR",
  "ADMIN_PORT",
  "ADMIN_HOST",
  "ADMIN_API_KEY",
  "MEMORY_API_URL",
  "EMBEDDING_PROVIDER",
  "EMBEDDING_MODEL",
  "EMBEDDING_DIM",
  "IMPORT_BULK",
  "DATABASE_IDLE_UNLOAD_S",
  "MEMORY_EXPANSION",
  "EXPANSION_DAILY_TOKENS",
  "RECALL_JUDGE",
  "RECALL_JUDGE_TIMEOUT_MS",
  "RECALL_JUDGE_DAILY_TOKENS",
  "RECALL_JUDGE_POOL",
  "RECALL_JUDGE_POOL_FLOOR",
  "OLLAMA_URL",
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "HOME",
  "USERPROFILE",
  "LOCALAPPDATA",
  "XDG_DATA_HOME",
];

/**
 * The libpq-style variables postgres.js reads when it connects to DATABASE_URL (values in
 * the URL win), and the user-name fallbacks it uses when the URL names no user.
 */
export const POSTGRES_ENV_VARS: readonly string[] = [
  "PGHOST",
  "PGPORT",
  "PGUSER",
  "PGUSERNAME",
  "PGPASSWORD",
  "PGDATABASE",
  "PGAPPNAME",
  "PGSSL",
  "PGSSLNEGOTIATION",
  "PGMAX",
  "PGIDLE_TIMEOUT",
  "PGCONNECT_TIMEOUT",
  "PGMAX_LIFETIME",
  "PGMAX_PIPELINE",
  "PGBACKOFF",
  "PGKEEP_ALIVE",
  "PGPREPARE",
  "PGDEBUG",
  "PGFETCH_TYPES",
  "PGPUBLICATIONS",
  "PGTARGET_SESSION_ATTRS",
  "PGTARGETSESSIONATTRS",
  "USER",
  "USERNAME",
  "LOGNAME",
];

/**
 * Variables only memcli reads: Claude Code's config folder (`memcli hooks`), the hooks'
 * deadline, and for `memcli connect`: the folder of the installed commands (set by their
 * wrappers), where the user units live, and what the check passes on to the commands it
 * runs as Claude Code would (PATH, Deno's cache).
 */
export const MEMCLI_ENV_VARS: readonly string[] = [
  "CLAUDE_CONFIG_DIR",
  "MEMCLI_HOOK_DEADLINE_MS",
  "MNEME_BIN_DIR",
  "XDG_CONFIG_HOME",
  "PATH",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  ...AUTOSTART_ENV,
];

/**
 * Capture's settings, read by the admin daemon (docs/capture.md): the transcripts' folder
 * (`CAPTURE_TRANSCRIPTS_DIR`, else `CLAUDE_CONFIG_DIR`'s `projects`) and the model path.
 */
export const CAPTURE_ENV_VARS: readonly string[] = [
  "CLAUDE_CONFIG_DIR",
  "CAPTURE_TRANSCRIPTS_DIR",
  "CAPTURE_MODEL_PROVIDER",
  "CAPTURE_MODEL",
  "CAPTURE_MODEL_URL",
  "CAPTURE_MODEL_API_KEY",
  "CAPTURE_SESSION_TOKENS",
  "CAPTURE_DAILY_TOKENS",
  "CAPTURE_AUTO_ACCEPT",
  "CAPTURE_MIN_CONFIDENCE",
];

/**
 * Programs `memcli` runs: `sh` starts the detached daemon and, for `memcli connect`, the
 * installed commands, `claude`, `systemctl` and `launchctl` (through `sh`, so that a program
 * absent here is an exit code, not a refused permission); `ps` and `kill` watch and stop it.
 */
export const MEMCLI_RUN: readonly string[] = ["sh", "ps", "kill"];

/**
 * Loaders of the packages whose files {@link pgliteFiles} finds. Nothing here calls them:
 * naming them puts the packages in this module's graph, so that `import.meta.resolve` finds
 * their files in a process that does not load them (the launcher), even where no lockfile
 * sits next to the configuration (an installed command's copy of deno.json).
 */
export const PGLITE_PACKAGES: readonly (() => Promise<unknown>)[] = [
  () => import("@electric-sql/pglite"),
  () => import("@electric-sql/pglite-pgvector"),
];

/**
 * Directories of the npm packages the embedded database reads its files from at run time
 * (PGlite's WASM and data files, the pgvector extension), or none when they are not on the
 * file system (a compiled executable serves them from its own image).
 */
export function pgliteFiles(): string[] {
  const out: string[] = [];
  // Literal specifiers, so that publishing rewrites them to the pinned npm: versions.
  const resolveOne = [
    () => import.meta.resolve("@electric-sql/pglite"),
    () => import.meta.resolve("@electric-sql/pglite-pgvector"),
  ];
  for (const resolveUrl of resolveOne) {
    let url: string;
    try {
      url = resolveUrl();
    } catch {
      continue;
    }
    if (!url.startsWith("file:")) continue;
    // .../<pkg>/<version>/dist/index.js -> the package folder.
    const dir = dirname(fileURLToPath(url));
    out.push(basename(dir) === "dist" ? dirname(dir) : dir);
  }
  return out;
}

/**
 * The modules the embedded database's worker thread loads (src/store/pglite/worker.ts and what
 * it imports, relative to src/; npm packages are in {@link pgliteFiles}). Deno checks read
 * access to each module a worker loads, unlike the modules of the main thread, so the admin
 * daemon is granted exactly these files. A test checks the list against the imports.
 */
export const PGLITE_WORKER_MODULES: readonly string[] = [
  "store/pglite/worker.ts",
  "store/pglite/protocol.ts",
  "store/pglite/open.ts",
  "store/pglite/module.ts",
  "store/pglite/prepared.ts",
  "store/pglite/disk.ts",
  "store/pglite/settings.ts",
  "store/db.ts",
  "store/search_params.ts",
  "domain/errors.ts",
  "common/errors.ts",
  "common/gc.ts",
];

/**
 * The files of {@link PGLITE_WORKER_MODULES}, or none when the modules are not on the file
 * system (run from a URL).
 */
export function pgliteWorkerFiles(): string[] {
  const base = new URL("./", import.meta.url);
  if (base.protocol !== "file:") return [];
  return PGLITE_WORKER_MODULES.map((m) => fileURLToPath(new URL(m, base)));
}

function embedderHosts(cfg: MemoryConfig, net: string[]): void {
  if (cfg.embeddingProvider === "ollama" || cfg.embeddingProvider === "auto") {
    addNet(net, urlHostPort(cfg.ollamaUrl));
  }
  if (cfg.embeddingProvider === "openai") addNet(net, urlHostPort(cfg.openaiBaseUrl));
}

/** The project files memcli looks for in each directory from the working one up. */
export const PROJECT_MARKERS: readonly string[] = [".mneme", ".git"];

/**
 * The paths memcli's project detection reads above the working directory `cwd`:
 * `<dir>/.mneme` and `<dir>/.git` for each ancestor `<dir>` up to the root (the working
 * directory itself is covered by its `.` grant). Each is one path, not its directory: memcli
 * may learn whether a parent holds a project file or a repository, and read it, but not list
 * or read anything else there.
 */
export function projectMarkers(cwd: string): string[] {
  const out: string[] = [];
  const root = parse(cwd).root;
  let dir = resolve(cwd);
  while (dir !== root && dirname(dir) !== dir) {
    dir = dirname(dir);
    for (const m of PROJECT_MARKERS) out.push(join(dir, m));
  }
  return out;
}

/**
 * Claude Code's user configuration file, where `claude mcp add --scope user` puts MCP
 * servers: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`; none without a home.
 */
export function claudeUserConfig(envOf: (name: string) => string | undefined): string | null {
  const dir = envOf("CLAUDE_CONFIG_DIR")?.trim();
  if (dir) return join(dir, ".claude.json");
  const home = envOf("HOME") ?? envOf("USERPROFILE");
  return home ? join(home, ".claude.json") : null;
}

/** Files a memcli command line names: read by import, written by export and backup. */
export interface MemcliFiles {
  /** Files to read. */
  read: string[];
  /** Files to write (with their temporary companions). */
  write: string[];
}

/** The string flags of the memcli commands that name files (their values are not files). */
const MEMCLI_FILE_FLAGS: Record<string, readonly string[]> = {
  import: ["--batch", "--skip"],
  export: [],
  backup: [],
};

/**
 * The file a memcli command line names, as the launcher grants it (exactly that file, as
 * for `msgcli --out`): `import FILE` is read; `export FILE` and `backup FILE` are written,
 * with `FILE.mneme-tmp` beside it (written first, then renamed). `-` (standard input or
 * output) and any other command name no file.
 */
export function memcliFiles(args: readonly string[]): MemcliFiles {
  const files: MemcliFiles = { read: [], write: [] };
  const command = args[0];
  if (!command || !Object.hasOwn(MEMCLI_FILE_FLAGS, command)) return files;
  const valued = MEMCLI_FILE_FLAGS[command];
  let file: string | undefined;
  for (let i = 1; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      file ??= args[i + 1];
      break;
    }
    if (valued.includes(a)) {
      i++;
      continue;
    }
    if (a.startsWith("-") && a !== "-") continue;
    file ??= a;
  }
  if (file === undefined || file === "-" || file === "") return files;
  if (command === "import") files.read.push(file);
  else files.write.push(file, `${file}.mneme-tmp`);
  return files;
}

/** The programs whose permissions follow from the memory-service configuration. */
export type MemoryProgram = "admin" | "mcp" | "memcli";

/**
 * The permissions `program` needs for `cfg`:
 *
 * - admin: listens on ADMIN_HOST; reaches the database and the embedder; reads and writes
 *   DATA_DIR; reads PGlite's files, the modules of its worker ({@link pgliteWorkerFiles}) and
 *   the builtin word vectors' file (search re-ranks with them); on the embedded database,
 *   `statfs` (the free-space check before writes) and running Deno's own executable until the
 *   database is open (a new one is created in a child: {@link creatorPlan}); nothing else (no
 *   ffi, other sys).
 * - mcp: reaches the Admin API (or the database) and the embedder; in API mode no file access
 *   at all, in direct mode (DATABASE_URL) the reading of the word vectors' file.
 * - memcli: reaches the Admin API; reads and writes DATA_DIR (pid, state and log files)
 *   but may not read the database files in it; reads and writes the working directory
 *   (files given to import and export); reads `.mneme` and `.git` in each directory above
 *   the working directory (project detection: {@link projectMarkers}); reads and writes
 *   Claude Code's user `settings.json` and the `mneme-backups` folder next to it
 *   (`memcli hooks`), nothing else of that folder; runs `sh`, `ps` and `kill` for the daemon;
 *   for `memcli connect`, reads and writes the folders of the start-at-login entries (systemd
 *   user units, launchd agents, XDG autostart entries) and the login profiles (`~/.profile`,
 *   `~/.bash_profile`, `~/.bash_login`, `~/.zprofile`: the profile line where there is no
 *   service manager) and reads Claude Code's user configuration (`.claude.json`).
 *
 * Every program may also reach the loopback names ({@link LOOPBACK}), where the defaults live.
 * Each also reads and sets `NO_PROXY` and `no_proxy`: it adds loopback to `NO_PROXY` before
 * its first call, so that a proxy of the environment never carries one.
 * The programs that connect to Postgres (admin, mcp) read the libpq-style variables too.
 */
export function planFor(
  program: MemoryProgram,
  cfg: MemoryConfig,
  cwd = ".",
  envOf: (name: string) => string | undefined = safeEnv,
  files: MemcliFiles = { read: [], write: [] },
): PermissionPlan {
  const net = [...LOOPBACK];
  const env = [
    ...MEMORY_ENV_VARS,
    ...(program === "memcli" ? MEMCLI_ENV_VARS : POSTGRES_ENV_VARS),
    // Every program keeps its loopback calls off any proxy of the environment by adding
    // loopback to NO_PROXY (keepLoopbackOffProxies in src/common/net.ts).
    ...NO_PROXY_ENV,
  ];
  const dataDir = absolute(cfg.dataDir, cwd === "." ? Deno.cwd() : cwd);
  if (program === "memcli") {
    addNet(net, urlHostPort(cfg.memoryApiUrl));
    addNet(net, cfg.adminHost.includes(":") ? `[${cfg.adminHost}]` : cfg.adminHost);
    const here = cwd === "." ? Deno.cwd() : cwd;
    const claudeDir = absolute(claudeConfigDir(envOf), here);
    const claude = claudeSettingsFiles(claudeDir);
    // `memcli connect`: the start-at-login entries, and Claude Code's user MCP servers (read).
    const home = envOf("HOME") ?? envOf("USERPROFILE");
    const xdg = { home: home ?? "", xdgConfigHome: envOf("XDG_CONFIG_HOME") || undefined };
    // …and where there is no service manager: the XDG autostart entry, the profile line.
    const autostart = home
      ? [...autostartDirs(xdg), xdgAutostartDir(xdg), ...profileFiles(xdg)]
      : [];
    const mcpConfig = claudeUserConfig(envOf);
    const read = [
      ".",
      dataDir,
      ...projectMarkers(here),
      claude.settings,
      claude.backups,
      ...autostart,
      ...(mcpConfig ? [absolute(mcpConfig, here)] : []),
    ];
    const write = [".", dataDir, claude.settings, claude.backups, ...autostart];
    // The file the command line names (import, export, backup): exactly that file.
    for (const f of files.read) add(read, absolute(f, here));
    for (const f of files.write) {
      add(read, absolute(f, here));
      add(write, absolute(f, here));
    }
    return {
      net,
      read,
      write,
      env,
      run: [...MEMCLI_RUN],
      // The database, and the new one a first start builds beside it (`db.new`).
      denyRead: [join(dataDir, "db"), `${join(dataDir, "db")}.new`],
    };
  }
  if (cfg.databaseUrl) addNet(net, urlHostPort(cfg.databaseUrl));
  embedderHosts(cfg, net);
  if (program === "mcp") {
    if (!cfg.databaseUrl) addNet(net, urlHostPort(cfg.memoryApiUrl));
    // Direct mode searches itself, with the builtin word vectors (read on its first search).
    return { net, read: cfg.databaseUrl ? wordVectorsFiles() : [], write: [], env };
  }
  addNet(net, cfg.adminHost.includes(":") ? `[${cfg.adminHost}]` : cfg.adminHost);
  // Capture reads Claude Code's transcripts there, and nothing else of Claude Code's.
  const transcripts = absolute(captureTranscriptsDir(envOf), cwd === "." ? Deno.cwd() : cwd);
  return {
    net,
    // The word vectors' file too: search reads it on its first use (src/embed/words.ts).
    read: cfg.databaseUrl
      ? [dataDir, ...wordVectorsFiles(), transcripts]
      : [dataDir, ...pgliteFiles(), ...pgliteWorkerFiles(), ...wordVectorsFiles(), transcripts],
    write: [dataDir],
    env: [...env, ...CAPTURE_ENV_VARS],
    // The embedded database checks the free space before a write (a full disk is a 507).
    ...(cfg.databaseUrl ? {} : { sys: ["statfs"] }),
    // A new embedded database is created by a child Deno ({@link creatorPlan}); the daemon
    // gives this up once its database is open. A compiled executable creates it itself.
    ...(cfg.databaseUrl || Deno.build.standalone ? {} : { run: [Deno.execPath()] }),
  };
}

/**
 * The database creator, the admin daemon's short-lived child that creates a new embedded
 * database (src/bin/initdb.ts): reads and writes its staging directory `staging` and its lock
 * file beside it, reads
 * PGlite's files; nothing else (no network, variables, run or sys).
 */
export function creatorPlan(staging: string): PermissionPlan {
  const lock = `${staging}.lock`; // creatorLock (src/store/pglite/create.ts)
  return { net: [], read: [staging, lock, ...pgliteFiles()], write: [staging, lock], env: [] };
}
