/**
 * The one permission model: the Deno permission set each program needs for its
 * configuration (environment and flags), as plain data ({@link PermissionPlan}), and the
 * helpers that turn a set into `deno run` flags, check it at startup, describe it, and
 * narrow a running process to it.
 *
 * The table of programs (src/programs.ts) calls these plans; the launcher
 * (src/bin/launch.ts) computes the set when a task or an installed command starts and runs
 * the program with exactly those flags. The programs check at startup that they hold their
 * set (so a hand-written `deno run` line that misses something stops at once, naming it) and
 * print it.
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, parse, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  captureTranscriptsDir,
  claudeConfigDir,
  claudeSettingsFiles,
  type MemoryConfig,
} from "./config.ts";
import { safeEnv } from "./common/env.ts";
import {
  AUTOSTART_ENV,
  AUTOSTART_RUN,
  autostartDirs,
  profileFiles,
  xdgAutostartDir,
} from "./common/autostart.ts";
import { defaultPort } from "./common/net.ts";
import { wordVectorsFiles } from "./common/models.ts";

/** A set of Deno permissions, as `deno run` flags take them. */
export interface PermissionPlan {
  /** `host` or `host:port` entries for `--allow-net`. */
  net: string[];
  /** Paths for `--allow-read`. */
  read: string[];
  /** Paths for `--allow-write`. */
  write: string[];
  /** Variable names for `--allow-env`. */
  env: string[];
  /** Program names for `--allow-run` (none when absent). */
  run?: string[];
  /** Paths for `--deny-read`: refused even inside a granted read path. */
  denyRead?: string[];
  /** System information kinds for `--allow-sys` (none when absent). */
  sys?: string[];
}

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
];

/**
 * Programs `memcli` runs: `sh` starts the detached daemon and, for `memcli connect`, the
 * installed commands, `claude`, `systemctl` and `launchctl` (through `sh`, so that a program
 * absent here is an exit code, not a refused permission); `ps` and `kill` watch and stop it.
 */
export const MEMCLI_RUN: readonly string[] = ["sh", "ps", "kill"];

/** `host:port` of a URL with the scheme's default port filled in (brackets kept for IPv6). */
export function urlHostPort(raw: string): string {
  const u = new URL(raw);
  const port = u.port !== "" ? u.port : String(defaultPort(u.protocol) ?? "");
  const host = u.hostname === "" ? "localhost" : u.hostname;
  return port ? `${host}:${port}` : host;
}

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

function add(list: string[], entry: string): void {
  if (!list.includes(entry)) list.push(entry);
}

/** Adds a `host[:port]` unless a host already in `net` grants it (a host covers its ports). */
function addNet(net: string[], entry: string): void {
  if (!net.some((have) => covers("net", have, entry))) net.push(entry);
}

function embedderHosts(cfg: MemoryConfig, net: string[]): void {
  if (cfg.embeddingProvider === "ollama" || cfg.embeddingProvider === "auto") {
    addNet(net, urlHostPort(cfg.ollamaUrl));
  }
  if (cfg.embeddingProvider === "openai") addNet(net, urlHostPort(cfg.openaiBaseUrl));
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
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
 * database (src/bin/initdb.ts): reads and writes its staging directory `staging`, reads
 * PGlite's files; nothing else (no network, variables, run or sys).
 */
export function creatorPlan(staging: string): PermissionPlan {
  return { net: [], read: [staging, ...pgliteFiles()], write: [staging], env: [] };
}

/** Every environment variable the proxy daemon (`msgcli serve`) reads. */
export const SERVE_ENV_VARS: readonly string[] = [
  "HOME",
  "USERPROFILE",
  "MSGCLI_API_BASE_URL",
  "MSGCLI_OAUTH_AUTHORIZE_URL",
  "MSGCLI_OAUTH_TOKEN_URL",
  "MSGCLI_OAUTH_CLIENT_ID",
  "MSGCLI_CREDENTIALS_PATH",
  "MSGCLI_DEBUG",
  "MSGCLI_SERVE_KEY",
  "HTTPS_PROXY",
  "https_proxy",
  "ALL_PROXY",
  "all_proxy",
];

/** Variables `msgcli` reads beyond the daemon's. */
export const MSGCLI_ENV_VARS: readonly string[] = [
  ...SERVE_ENV_VARS,
  "MSGCLI_NO_BROWSER",
  "DISPLAY",
  "WAYLAND_DISPLAY",
];

/** Programs that open the login page in a browser (Linux and BSDs, macOS). */
export const BROWSER_OPENERS: readonly string[] = ["xdg-open", "open"];

/** What the messages client's permissions follow from (a resolved `MsgConfig`). */
export interface MsgEndpoints {
  /** Messages API base URL. */
  apiBaseUrl: string;
  /** OAuth token endpoint. */
  tokenUrl: string;
  /** The credentials file. */
  credentialsPath: string;
  /** The proxy URL, when one is used. */
  proxy?: string;
}

/**
 * The directory of a credentials file: it holds the file, its lock (`<path>.lock`) and the
 * temp files of the atomic write and the writability probe (whose names are random).
 */
export function credentialsDir(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (i < 0) return ".";
  if (i === 0) return path[0];
  return path.slice(0, i);
}

/** The files one `msgcli` command names on its command line. */
export interface MsgcliFiles {
  /** Files it reads (`--system-file`, `--history`), as given. */
  read: string[];
  /** The credentials file it writes instead of the configured one (`login --out`). */
  credentials?: string;
}

/**
 * The permissions `msgcli` needs for `cfg`: the loopback names (the login callback), the API
 * and token hosts and the proxy, the credentials directory (read and write), its variables,
 * the browser openers; and the files the command names (`files`, resolved against `cwd`).
 * Without `files` (a compiled executable, whose grants are fixed when it is built) it reads
 * the working directory instead, so `--system-file` and `--history` work there.
 */
export function msgcliPlan(
  cfg: MsgEndpoints,
  files: MsgcliFiles | null = null,
  cwd = ".",
): PermissionPlan {
  const creds = credentialsDir(files?.credentials ?? cfg.credentialsPath);
  const net = ["127.0.0.1", "localhost"];
  for (const u of [cfg.apiBaseUrl, cfg.tokenUrl, cfg.proxy]) {
    if (u !== undefined) addNet(net, urlHostPort(u));
  }
  const read = [creds];
  for (const f of files ? files.read : ["."]) add(read, cwd === "." ? f : absolute(f, cwd));
  return { net, read, write: [creds], env: [...MSGCLI_ENV_VARS], run: [...BROWSER_OPENERS] };
}

/**
 * The proxy daemon's set for its listen address (`host:port`, brackets for IPv6) and
 * configuration: net to the listen address, the API and token hosts and the proxy (nothing
 * else, not even the authorize page); the credentials directory; its variables; nothing
 * else (no run, ffi, sys, import).
 */
export function servePlan(listen: string, cfg: MsgEndpoints): PermissionPlan {
  const net = [listen];
  addNet(net, urlHostPort(cfg.apiBaseUrl));
  addNet(net, urlHostPort(cfg.tokenUrl));
  if (cfg.proxy !== undefined) addNet(net, urlHostPort(cfg.proxy));
  const creds = credentialsDir(cfg.credentialsPath);
  return { net, read: [creds], write: [creds], env: [...SERVE_ENV_VARS] };
}

/** Capture's model endpoint: a provider's URL, or msgcli's endpoints (the subscription). */
export type CaptureModelEndpoint = { url: string } | { msg: MsgEndpoints };

/**
 * The admin daemon's set with capture's model path on (`ep` null: off, nothing added): net
 * to the provider's host; for the subscription, msgcli's API and token hosts and proxy, its
 * credentials folder (read and write: the refresh and its lock) and its variables.
 */
export function addCaptureModel(
  plan: PermissionPlan,
  ep: CaptureModelEndpoint | null,
): PermissionPlan {
  if (!ep) return plan;
  if ("url" in ep) {
    addNet(plan.net, urlHostPort(ep.url));
    return plan;
  }
  for (const u of [ep.msg.apiBaseUrl, ep.msg.tokenUrl, ep.msg.proxy]) {
    if (u !== undefined) addNet(plan.net, urlHostPort(u));
  }
  const creds = credentialsDir(ep.msg.credentialsPath);
  add(plan.read, creds);
  add(plan.write, creds);
  for (const v of SERVE_ENV_VARS) add(plan.env, v);
  return plan;
}

/** Programs the background-service commands run (`msgcli serve start|stop|status`, `run`). */
export const SERVE_CONTROL_RUN: readonly string[] = ["sh", "ps", "kill"];

/**
 * The set of `msgcli serve start|stop|restart|status` for a listen address (`host:port`,
 * brackets for IPv6): the daemon's, with the listen host on any port (port 0 is chosen by
 * the daemon) and the loopback names (a client reaches `0.0.0.0` at 127.0.0.1), and the
 * programs that start, check and stop it ({@link SERVE_CONTROL_RUN}); for `enable` and
 * `disable`, `systemctl`/`launchctl` and the folders of the user's units and agents.
 */
export function serveControlPlan(
  listen: string,
  cfg: MsgEndpoints,
  env: (name: string) => string | undefined = safeEnv,
): PermissionPlan {
  const plan = servePlan(listen, cfg);
  const host = listen.startsWith("[")
    ? listen.slice(0, listen.indexOf("]") + 1)
    : listen.split(":")[0];
  plan.net = plan.net.filter((n) => n !== listen);
  for (const h of [host, "127.0.0.1", "localhost", "[::1]"]) addNet(plan.net, h);
  plan.run = [...SERVE_CONTROL_RUN, ...AUTOSTART_RUN];
  // enable/disable: the user's systemd units and launchd agents (src/common/autostart.ts).
  const home = env("HOME") ?? env("USERPROFILE");
  if (home) {
    const dirs = autostartDirs({ home, xdgConfigHome: env("XDG_CONFIG_HOME") || undefined });
    for (const d of dirs) {
      add(plan.read, d);
      add(plan.write, d);
    }
  }
  plan.env = [...plan.env, "XDG_CONFIG_HOME"];
  return plan;
}

/**
 * `msgcli run -- COMMAND`: adds to msgcli's `plan` the command it runs, the programs that
 * start and check the daemon ({@link SERVE_CONTROL_RUN}), and the daemon's listen host
 * (`host` or `[v6]`).
 */
export function addRunPermissions(plan: PermissionPlan, command: string, listenHost: string): void {
  plan.run = [...(plan.run ?? [])];
  for (const r of [command, ...SERVE_CONTROL_RUN]) if (!plan.run.includes(r)) plan.run.push(r);
  addNet(plan.net, listenHost);
}

/**
 * One line saying which permissions `plan` grants, for a startup line or `--debug`:
 * `net=a,b read=… write=… env=N variables run=…` (`none` for an empty kind). With
 * `full`, the variable names too.
 */
export function describePlan(plan: PermissionPlan, full = false): string {
  const list = (xs: readonly string[] | undefined) => (xs?.length ? xs.join(",") : "none");
  const parts = [`net=${list(plan.net)}`, `read=${list(plan.read)}`];
  if (plan.denyRead?.length) parts.push(`deny-read=${list(plan.denyRead)}`);
  parts.push(`write=${list(plan.write)}`);
  parts.push(full ? `env=${list(plan.env)}` : `env=${plan.env.length} variables`);
  parts.push(`run=${list(plan.run)}`);
  if (plan.sys?.length) parts.push(`sys=${list(plan.sys)}`);
  return parts.join(" ");
}

/**
 * What this process holds, for its startup line: {@link describePlan} of `plan` when it is
 * locked to it, else the unscoped permissions it holds (`-A` in development).
 */
export function heldPermissions(plan: PermissionPlan, full = false): string {
  const broad: string[] = [];
  for (const name of ["net", "read", "write", "env", "run", "ffi", "sys", "import"] as const) {
    try {
      if (Deno.permissions.querySync({ name } as Deno.PermissionDescriptor).state === "granted") {
        broad.push(name);
      }
    } catch { /* a permission this Deno does not know */ }
  }
  return broad.length ? `unscoped ${broad.join(",")} (not locked)` : describePlan(plan, full);
}

/** The `deno run` flags granting exactly `plan`. */
export function permissionFlags(plan: PermissionPlan): string[] {
  const flags: string[] = [];
  if (plan.net.length) flags.push(`--allow-net=${plan.net.join(",")}`);
  if (plan.read.length) flags.push(`--allow-read=${plan.read.join(",")}`);
  if (plan.denyRead?.length) flags.push(`--deny-read=${plan.denyRead.join(",")}`);
  if (plan.write.length) flags.push(`--allow-write=${plan.write.join(",")}`);
  if (plan.env.length) flags.push(`--allow-env=${plan.env.join(",")}`);
  if (plan.run?.length) flags.push(`--allow-run=${plan.run.join(",")}`);
  if (plan.sys?.length) flags.push(`--allow-sys=${plan.sys.join(",")}`);
  return flags;
}

/** The entries of `plan` this process does not hold, as `kind:value` strings. */
export function missingPermissions(plan: PermissionPlan): string[] {
  const missing: string[] = [];
  const check = (d: Deno.PermissionDescriptor, label: string) => {
    if (Deno.permissions.querySync(d).state !== "granted") missing.push(label);
  };
  for (const host of plan.net) check({ name: "net", host }, `net:${host}`);
  for (const path of plan.read) check({ name: "read", path }, `read:${path}`);
  for (const path of plan.write) check({ name: "write", path }, `write:${path}`);
  for (const variable of plan.env) check({ name: "env", variable }, `env:${variable}`);
  for (const command of plan.run ?? []) check({ name: "run", command }, `run:${command}`);
  for (const kind of plan.sys ?? []) {
    check({ name: "sys", kind } as Deno.PermissionDescriptor, `sys:${kind}`);
  }
  return missing;
}

/**
 * The startup check of an entrypoint: null when the process holds every permission of
 * `plan`, else a message naming what is missing and how to grant it.
 */
export function permissionProblem(name: string, plan: PermissionPlan): string | null {
  const missing = missingPermissions(plan);
  if (missing.length === 0) return null;
  const kinds: Record<string, string[]> = {};
  for (const m of missing) {
    const i = m.indexOf(":");
    (kinds[m.slice(0, i)] ??= []).push(m.slice(i + 1));
  }
  const flags = Object.entries(kinds).map(([k, v]) => `--allow-${k}=${v.join(",")}`).join(" ");
  return `${name}: this configuration needs permissions the process was not given ` +
    `(${missing.join(", ")}). Start it through its task or installed command, which ` +
    `grant what the configuration needs when they start, or add ${flags} to the deno run ` +
    "command.";
}

/**
 * Whether the grant `have` of a permission kind covers `want`: a host covers all its
 * ports, a path covers everything below it; names (env, run) match exactly.
 */
export function covers(
  kind: "net" | "read" | "write" | "env" | "run",
  have: string,
  want: string,
): boolean {
  if (have === want) return true;
  if (kind === "net") {
    const host = want.startsWith("[") ? want.slice(0, want.indexOf("]") + 1) : want.split(":")[0];
    return have === host;
  }
  if (kind === "env" || kind === "run") return false;
  const h = resolve(have);
  const w = resolve(want);
  return w === h || w.startsWith(h.endsWith("/") ? h : `${h}/`);
}

const netCovers = (have: string, want: string) => covers("net", have, want);
const pathCovers = (have: string, want: string) => covers("read", have, want);

/**
 * Revoke what `held` grants beyond `keep`, for a process that goes on with fewer
 * permissions than it started with (`msgcli serve` started by `msgcli`): every program it
 * may run, and the hosts and paths of `held` that `keep` does not need. An entry that also
 * grants something `keep` needs stays (Deno cannot revoke part of a grant).
 */
export function narrowPermissions(held: PermissionPlan, keep: PermissionPlan): void {
  const revoke = (d: Deno.PermissionDescriptor) => {
    try {
      Deno.permissions.revokeSync(d);
    } catch { /* not a permission this Deno knows */ }
  };
  if (!keep.run?.length) revoke({ name: "run" });
  for (const host of held.net) {
    if (!keep.net.some((k) => netCovers(host, k) || netCovers(k, host))) {
      revoke({ name: "net", host });
    }
  }
  for (
    const [kind, paths, needed] of [
      ["read", held.read, keep.read],
      ["write", held.write, keep.write],
    ] as const
  ) {
    for (const path of paths) {
      if (!needed.some((k) => pathCovers(path, k) || pathCovers(k, path))) {
        revoke({ name: kind, path });
      }
    }
  }
}
