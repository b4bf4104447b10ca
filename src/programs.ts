/**
 * The table of programs: for each, its command name, its deno.json task, its entry file and
 * how its exact permission set follows from the configuration (environment and flags). The
 * launcher (src/bin/launch.ts) reads it when a task or an installed command starts,
 * `deno task install` installs launcher wrappers from it, `deno task compile` builds fixed
 * grants from it, and the tests run the programs from it.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { loadMemoryConfig } from "./config.ts";
import { captureModelEndpoint } from "./capture/settings.ts";
import { commandFiles, parseCommandLine, type ParsedCommand } from "./msgcli/args.ts";
import { loadMsgConfig } from "./msg/config.ts";
import {
  DEFAULT_LISTEN,
  formatListen,
  parseListen,
  parseServeFlags,
  withoutAuthKey,
} from "./serve/flags.ts";

import { planPermissions } from "./serve/permissions.ts";
import {
  addCaptureModel,
  addRunPermissions,
  CAPTURE_ENV_VARS,
  creatorPlan,
  MEMCLI_ENV_VARS,
  memcliFiles,
  MEMORY_ENV_VARS,
  MSGCLI_ENV_VARS,
  msgcliPlan,
  permissionFlags,
  type PermissionPlan,
  pgliteFiles,
  pgliteWorkerFiles,
  planFor,
  POSTGRES_ENV_VARS,
  projectMarkers,
  SERVE_ENV_VARS,
  serveControlPlan,
} from "./permissions.ts";
import { safeEnv } from "./common/env.ts";
import { wordVectorsFiles } from "./common/models.ts";

/** Reads an environment variable (undefined when unset). */
export type Env = (name: string) => string | undefined;

/** What a program is started for: its environment, its arguments and working directory. */
export interface LaunchContext {
  /** The environment the program will run in. */
  env: Env;
  /**
   * The program's arguments; `null` for fixed grants that cannot see them (a compiled
   * executable, whose permissions are set when it is built).
   */
  args: string[] | null;
  /** The working directory the program will run in (absolute). */
  cwd: string;
}

/** How to run a program for one {@link LaunchContext}. */
export interface Launch {
  /** Entry module, relative to the repository root. */
  entry: string;
  /** `deno run` flags besides the permissions (`--no-prompt`, `--quiet`, …). */
  denoFlags: string[];
  /** The exact permission set. */
  plan: PermissionPlan;
  /** The arguments to pass on (the given ones, or a rewrite of them). */
  args: string[];
  /** Variables to set in the program's environment (e.g. a key moved off the command line). */
  env: Record<string, string>;
  /** Its own lockfile, relative to the repository root, when deno.lock does not cover it. */
  lock?: string;
}

/** One program of the table. */
export interface Program {
  /** Installed or compiled command name. */
  name: string;
  /** The deno.json task that runs it (`deno task <task>`). */
  task: string;
  /** Entry module, relative to the repository root. */
  entry: string;
  /** Whether `deno task install` installs it (the daemon alone is reached as `msgcli serve`). */
  installed: boolean;
  /** How to run it for `ctx`. Never throws: a bad configuration is the program's to report. */
  launch(ctx: LaunchContext): Launch;
}

/** An environment getter that reads unreadable or unset variables as undefined. */
export const processEnv: Env = safeEnv;

/** A plan that only lets the program read its variables, to report a configuration error. */
function envOnly(env: readonly string[]): PermissionPlan {
  return { net: [], read: [], write: [], env: [...env] };
}

/**
 * A launch of `entry` with what `compute` returns (at least the plan). When that throws (a
 * bad configuration or usage), the program gets only its variables `vars`, to report it.
 */
function planned(
  entry: string,
  denoFlags: string[],
  args: string[],
  vars: readonly string[],
  compute: () => Pick<Launch, "plan"> & Partial<Launch>,
): Launch {
  const base = { entry, denoFlags, args, env: {} };
  try {
    return { ...base, ...compute() };
  } catch {
    return { ...base, plan: envOnly(vars) };
  }
}

const MEMORY_PROGRAM_ENV = [...MEMORY_ENV_VARS, ...POSTGRES_ENV_VARS];

/**
 * V8 settings of the long-running memory programs (the daemon, the MCP server), passed in
 * `DENO_V8_FLAGS` after the user's own: semi-spaces of 1 MiB (V8 grows the young generation
 * to 3 × 16 MiB under allocation, an import or a burst of searches, and keeps it; the profile
 * in docs/history/performance-2026-11-25-to-28.md measured 40–70 MiB less RSS with it, at the same
 * speed), and `gc()`, which the embedded database calls once after creating a new database
 * (src/store/pglite/mod.ts).
 */
export const LEAN_V8_FLAGS = "--max-semi-space-size=1,--expose-gc";

/**
 * V8 settings of the `msgcli serve` daemon: the same 1 MiB semi-spaces (`bench:serve`, two
 * `--quick` runs back to back: 263 → 131 MiB after 1,500 requests, the same latency and
 * throughput). It never calls `gc()`.
 */
export const SERVE_V8_FLAGS = "--max-semi-space-size=1";

/**
 * V8 settings of the admin daemon: the lean flags and `--optimize-for-size` (V8 grows its heap
 * less eagerly and compacts more): at 20,000 memories the daemon's peak went from 316–326 to
 * 255–257 MiB, the same idle RSS and search latency (docs/history/performance-2026-11-25-to-28.md,
 * "Idle memory at 20,000 memories").
 */
export const ADMIN_V8_FLAGS = `${LEAN_V8_FLAGS},--optimize-for-size`;

/**
 * glibc's allocator settings of the admin daemon (`GLIBC_TUNABLES`, before the user's own, so
 * that theirs win): blocks of 32 KiB and more are mapped on their own and given back to the
 * system when freed. V8 compiles (PGlite's WASM, JavaScript) in zones of 8–32 KiB blocks, tens
 * of MiB at a time, and the holes they left in the allocator's heaps stayed resident: at
 * 20,000 memories 70–90 MiB of heap and arenas, of which a `malloc_trim` gave back half. With
 * this setting the heap and arenas held 16 MiB and the idle daemon 178 MiB instead of 222–228,
 * at the same speed (docs/history/performance-2026-11-25-to-28.md). Other C libraries ignore the
 * variable.
 */
export const ADMIN_MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=32768";

function leanV8(env: Env, flags = LEAN_V8_FLAGS): Record<string, string> {
  const own = env("DENO_V8_FLAGS")?.trim();
  return { DENO_V8_FLAGS: own ? `${own},${flags}` : flags };
}

/** The admin daemon's environment additions: {@link ADMIN_V8_FLAGS}, {@link ADMIN_MALLOC_TUNABLES}. */
function adminEnv(env: Env): Record<string, string> {
  const own = env("GLIBC_TUNABLES")?.trim();
  return {
    ...leanV8(env, ADMIN_V8_FLAGS),
    GLIBC_TUNABLES: own ? `${ADMIN_MALLOC_TUNABLES}:${own}` : ADMIN_MALLOC_TUNABLES,
  };
}

/**
 * The MCP server's lockfile. The MCP SDK and zod (with the SDK's ~90 dependencies) are pinned
 * in src/mcp/sdk.ts, outside deno.json's import map and deno.lock: `deno task` fetches every
 * package of the import map and the lockfile before it runs any task, so keeping them out
 * lets the first `deno task start` fetch only the service's four packages.
 */
export const MCP_LOCK = "src/mcp/deno.lock";

function memoryProgram(
  name: string,
  task: string,
  program: "admin" | "mcp" | "memcli",
  denoFlags: string[],
): Program {
  const entry = `src/bin/${program}.ts`;
  // memcli checks the MCP server with the SDK's client (src/common/mcp_client.ts).
  const lock = program === "mcp" || program === "memcli" ? { lock: MCP_LOCK } : {};
  const vars = program === "memcli"
    ? [...MEMORY_ENV_VARS, ...MEMCLI_ENV_VARS]
    : program === "admin"
    ? [...MEMORY_PROGRAM_ENV, ...CAPTURE_ENV_VARS]
    : MEMORY_PROGRAM_ENV;
  return {
    name,
    task,
    entry,
    installed: true,
    launch: ({ env, args, cwd }) => ({
      ...lock,
      ...planned(entry, denoFlags, args ?? [], vars, () => {
        const files = program === "memcli" && args !== null ? memcliFiles(args) : undefined;
        const plan = planFor(program, loadMemoryConfig(env), cwd, env, files);
        if (args === null) {
          // Fixed grants (a compiled executable): it runs in directories unknown here, and
          // carries PGlite's files in its own image; it cannot start Deno (it creates a new
          // database itself).
          // The word vectors too: `deno task compile` embeds their file, read from the image.
          const drop = new Set([
            ...projectMarkers(cwd),
            ...pgliteFiles(),
            ...pgliteWorkerFiles(),
            ...wordVectorsFiles(),
          ]);
          plan.read = plan.read.filter((p) => !drop.has(p));
          if (program === "admin") delete plan.run;
        }
        if (program === "memcli") return { plan };
        if (program === "admin") addCaptureModel(plan, captureModelEndpoint(env));
        return { plan, env: program === "admin" ? adminEnv(env) : leanV8(env) };
      }),
    }),
  };
}

const SERVE_ENTRY = "src/bin/serve.ts";
const SERVE_DENO_FLAGS = ["--no-prompt", "--unstable-no-legacy-abort"];

/**
 * The daemon's launch for `args` (the words after `serve`): its exact set for the listen
 * address and proxy they name, and `--auth-key KEY` moved into `MSGCLI_SERVE_KEY`, so that
 * the key is not on the daemon's command line (where `ps` shows it).
 */
function serveLaunch(env: Env, args: string[] | null): Launch {
  const given = args ?? [];
  const { args: rest, key } = withoutAuthKey(given);
  const launch = planned(SERVE_ENTRY, SERVE_DENO_FLAGS, rest, SERVE_ENV_VARS, () => {
    const flags = parseServeFlags(given, env);
    const cfg = loadMsgConfig(env, flags.proxyFlag);
    if (flags.action !== undefined) {
      // start, stop, restart, status: the service commands run sh, ps and kill.
      return { plan: serveControlPlan(formatListen(flags.listen), cfg, env) };
    }
    return { plan: planPermissions(flags.listen, cfg), env: leanV8(env, SERVE_V8_FLAGS) };
  });
  if (key !== undefined) launch.env = { ...launch.env, MSGCLI_SERVE_KEY: key };
  return launch;
}

const MSGCLI_ENTRY = "src/bin/msgcli.ts";
const MSGCLI_DENO_FLAGS = ["--quiet"];

function msgcliLaunch({ env, args, cwd }: LaunchContext): Launch {
  let parsed: ParsedCommand | null = null;
  try {
    parsed = args === null ? null : parseCommandLine(args);
  } catch { /* a usage error: msgcli reports it */ }
  if (parsed?.command === "serve") return serveLaunch(env, parsed.serveArgs ?? []);
  return planned(MSGCLI_ENTRY, MSGCLI_DENO_FLAGS, args ?? [], MSGCLI_ENV_VARS, () => {
    if (args !== null && parsed === null) throw new Error("usage");
    const cfg = loadMsgConfig(env, parsed?.proxyFlag);
    const files = parsed ? commandFiles(parsed) : null;
    // Fixed grants name the working directory as ".", wherever it will be.
    const plan = msgcliPlan(cfg, files, files ? cwd : ".");
    if (parsed?.command === "run" && parsed.runArgs?.length) {
      const listen = parseListen(parsed.listen ?? DEFAULT_LISTEN);
      const host = formatListen(listen).slice(0, -(String(listen.port).length + 1));
      addRunPermissions(plan, parsed.runArgs[0], host);
    }
    return { plan };
  });
}

/** The programs, in the order install and compile take them. */
export const PROGRAMS: readonly Program[] = [
  memoryProgram("mneme-admin", "start", "admin", ["--no-prompt"]),
  memoryProgram("mneme-mcp", "mcp", "mcp", ["--no-prompt"]),
  memoryProgram("memcli", "memcli", "memcli", []),
  {
    name: "msgcli",
    task: "msgcli",
    entry: MSGCLI_ENTRY,
    installed: true,
    launch: msgcliLaunch,
  },
  {
    name: "msgcli-serve",
    task: "serve",
    entry: SERVE_ENTRY,
    installed: false,
    launch: ({ env, args }) => serveLaunch(env, args),
  },
];

/** The program called `name` (a command name or a task name), or undefined. */
export function findProgram(name: string): Program | undefined {
  return PROGRAMS.find((p) => p.name === name || p.task === name);
}

/**
 * The database creator's environment over the admin daemon's: the lean V8 flags alone and no
 * allocator tunables. The daemon's own additions ({@link ADMIN_V8_FLAGS},
 * {@link ADMIN_MALLOC_TUNABLES}) suit a process that runs for days; inherited by the creator,
 * which holds PGlite's `initdb` for a few seconds, they raised its peak from 637 to 807 MiB
 * (`/usr/bin/time`, one run each: 727 with the V8 flag alone, 777 with the tunable alone).
 */
export const DATABASE_CREATOR_ENV: Readonly<Record<string, string>> = {
  DENO_V8_FLAGS: LEAN_V8_FLAGS,
  GLIBC_TUNABLES: "",
};

/** The entry of the database creator, the admin daemon's child (src/bin/initdb.ts). */
export const INITDB_ENTRY = "src/bin/initdb.ts";

/**
 * The `deno` arguments that run the database creator on `staging` (an absolute path) with
 * exactly its permissions ({@link creatorPlan}).
 */
export function databaseCreatorArgs(staging: string): string[] {
  return denoRunArgs({
    entry: INITDB_ENTRY,
    denoFlags: ["--no-prompt", "--quiet"],
    plan: creatorPlan(staging),
    args: [staging],
    env: {},
  });
}

/** Repository root (with a trailing slash), as a URL. */
export const ROOT_URL: URL = new URL("../", import.meta.url);

function location(relative: string): string {
  const url = new URL(relative, ROOT_URL);
  return url.protocol === "file:" ? fileURLToPath(url) : url.href;
}

/**
 * The `deno` arguments that run `launch`: `run`, its Deno flags, the repository's
 * deno.json (the import map, so it works from any directory), exactly its permissions, the
 * entry file and the arguments.
 */
export function denoRunArgs(launch: Launch): string[] {
  const local = ROOT_URL.protocol === "file:";
  const config = local ? ["--config", location("deno.json")] : [];
  const lock = local && launch.lock ? [`--lock=${location(launch.lock)}`] : [];
  return [
    "run",
    ...launch.denoFlags,
    ...config,
    ...lock,
    ...permissionFlags(launch.plan),
    location(launch.entry),
    ...launch.args,
  ];
}

/**
 * The permission flags program `name` (a command or task name) is started with for `ctx`:
 * what its task and installed command hold there. For tests and tools that run an entry
 * file themselves.
 */
export function permissionFlagsFor(name: string, ctx: LaunchContext): string[] {
  const program = findProgram(name);
  if (!program) throw new Error(`no program named ${name}`);
  return permissionFlags(program.launch(ctx).plan);
}
