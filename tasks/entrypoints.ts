/**
 * The programs and their permissions, read from the tasks in deno.json so that
 * `deno task install`, `deno task compile` and the tests grant exactly what the tasks grant,
 * plus what the configuration in the environment needs beyond the defaults (a DATA_DIR
 * elsewhere, a remote DATABASE_URL, another API base URL): see src/permissions.ts.
 */
import denoJson from "../deno.json" with { type: "json" };
import { loadMemoryConfig } from "../src/config.ts";
import { loadMsgConfig } from "../src/msg/config.ts";
import { projectWalkPaths } from "../src/memcli/project.ts";
import { msgcliPlan } from "../src/msg/permissions.ts";
import { covers, type PermissionPlan, planFor } from "../src/permissions.ts";
import { parseListen } from "../src/serve/flags.ts";
import { planPermissions } from "../src/serve/permissions.ts";

/** One program: its command name, task, entry file and the task's permission flags. */
export interface Entrypoint {
  /** Installed or compiled command name. */
  name: string;
  /** The deno.json task that runs it. */
  task: keyof typeof denoJson.tasks;
  /** Entry module, relative to the repository root. */
  entry: string;
  /** The task's flags between `deno run` and the entry, with `$VAR`s expanded. */
  flags: string[];
  /** Whether `deno task install` installs it (the daemon is reached as `msgcli serve`). */
  installed: boolean;
}

const PROGRAMS: { name: string; task: keyof typeof denoJson.tasks; installed: boolean }[] = [
  { name: "mneme-admin", task: "start", installed: true },
  { name: "mneme-mcp", task: "mcp", installed: true },
  { name: "memcli", task: "memcli", installed: true },
  { name: "msgcli", task: "msgcli", installed: true },
  { name: "msgcli-serve", task: "serve", installed: false },
];

type Env = (name: string) => string | undefined;

function safeEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Split a task line into words as deno task's shell does: whitespace, double quotes, `$VAR`. */
export function shellWords(line: string, env: Env = safeEnv): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      quoted = !quoted;
      inWord = true;
    } else if (c === "$" && /[A-Za-z_]/.test(line[i + 1] ?? "")) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(line.slice(i + 1))!;
      cur += env(m[0]) ?? "";
      i += m[0].length;
      inWord = true;
    } else if (!quoted && /\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quoted) throw new Error(`unbalanced quote in: ${line}`);
  if (inWord) words.push(cur);
  return words;
}

/** The programs, with their task flags expanded in `env`. */
export function entrypoints(env: Env = safeEnv): Entrypoint[] {
  return PROGRAMS.map(({ name, task, installed }) => {
    const words = shellWords(denoJson.tasks[task] as string, env);
    if (words[0] !== "deno" || words[1] !== "run") throw new Error(`task ${task} is not deno run`);
    const at = words.findIndex((w) => w.endsWith(".ts"));
    if (at < 0) throw new Error(`task ${task} names no entry file`);
    return { name, task, entry: words[at], flags: words.slice(2, at), installed };
  });
}

/**
 * The permission set a program needs for the configuration in `env`. When `cwd` (where the
 * program will run) is given, memcli also gets the project walk from there (`.mneme` and
 * `.git` in that directory and each one above: src/memcli/project.ts); without it (an
 * installed command runs anywhere) the walk stops at the working directory.
 */
export function planOf(p: Entrypoint, env: Env = safeEnv, runIn?: string): PermissionPlan {
  const cwd = runIn ?? Deno.cwd();
  switch (p.task) {
    case "start":
      return planFor("admin", loadMemoryConfig(env), cwd);
    case "mcp":
      return planFor("mcp", loadMemoryConfig(env), cwd);
    case "memcli": {
      const plan = planFor("memcli", loadMemoryConfig(env), cwd, env);
      if (runIn !== undefined) plan.read.push(...projectWalkPaths(runIn));
      return plan;
    }
    case "msgcli":
      return msgcliPlan(loadMsgConfig(env));
    case "serve":
      return planPermissions(parseListen("127.0.0.1:8787"), loadMsgConfig(env));
    default:
      throw new Error(`no permission plan for task ${p.task}`);
  }
}

const LIST_FLAGS = [
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
  "--deny-read",
  "--deny-write",
  "--deny-net",
];

/**
 * `flags` with the entries of `plan` added to its permission lists (nothing is removed or
 * widened: a list flag gains the hosts, paths and names it lacks; other flags stay as they
 * are). The result, for the default configuration, is `flags` itself.
 */
export function withPlan(flags: string[], plan: PermissionPlan): string[] {
  const lists = new Map<string, string[]>();
  const unscoped = new Set<string>();
  const out: string[] = [];
  for (const f of flags) {
    const eq = f.indexOf("=");
    const name = eq < 0 ? f : f.slice(0, eq);
    if (eq < 0 && LIST_FLAGS.includes(name)) unscoped.add(name);
    if (eq > 0 && LIST_FLAGS.includes(name)) {
      lists.set(name, f.slice(eq + 1).split(","));
      out.push(name);
    } else out.push(f);
  }
  const need: [string, string[] | undefined][] = [
    ["--allow-net", plan.net],
    ["--allow-read", plan.read],
    ["--deny-read", plan.denyRead],
    ["--allow-write", plan.write],
    ["--allow-env", plan.env],
    ["--allow-run", plan.run],
  ];
  for (const [name, entries] of need) {
    if (!entries?.length || unscoped.has(name)) continue;
    if (!lists.has(name)) {
      lists.set(name, []);
      out.push(name);
    }
    const list = lists.get(name)!;
    const kind = name.replace(/^--(allow|deny)-/, "") as "net" | "read" | "write" | "env" | "run";
    const isPath = kind === "read" || kind === "write";
    for (const e of entries) {
      // Relative paths ("." = the working directory) are resolved where the command runs,
      // not here: they cover, and are covered by, only themselves.
      const granted = list.some((h) =>
        isPath && (!h.startsWith("/") || !e.startsWith("/")) ? h === e : covers(kind, h, e)
      );
      if (!granted) list.push(e);
    }
  }
  return out.map((f) => lists.has(f) ? `${f}=${lists.get(f)!.join(",")}` : f);
}

/** The flags a program is run or installed with: its task's, plus what `env` configures. */
export function flagsFor(p: Entrypoint, env: Env = safeEnv, cwd?: string): string[] {
  let plan: PermissionPlan;
  try {
    plan = planOf(p, env, cwd);
  } catch {
    return p.flags; // an invalid configuration: the program itself names the variable
  }
  return withPlan(p.flags, plan);
}

/** Repository root (with a trailing slash). */
export const ROOT = new URL("../", import.meta.url).pathname;

/** Run `deno <args(program)>` for each program; stops at the first failure. */
export async function forEachProgram(
  programs: Entrypoint[],
  verb: string,
  argsFor: (p: Entrypoint) => string[],
  done: (p: Entrypoint) => string,
): Promise<void> {
  for (const p of programs) {
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: argsFor(p),
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) {
      console.error(`${verb}: ${p.name} failed`);
      Deno.exit(code);
    }
    console.log(done(p));
  }
}
