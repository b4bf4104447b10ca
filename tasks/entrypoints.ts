/**
 * The installable programs and their permissions, read from the tasks in deno.json so that
 * `deno task install` and `deno task compile` grant exactly what the tasks grant.
 */
import denoJson from "../deno.json" with { type: "json" };

/** One program: its command name, entry file and permission flags. */
export interface Entrypoint {
  name: string;
  entry: string;
  flags: string[];
}

const PROGRAMS: { name: string; task: keyof typeof denoJson.tasks }[] = [
  { name: "mneme-admin", task: "start" },
  { name: "mneme-mcp", task: "mcp" },
  { name: "memcli", task: "memcli" },
  { name: "msgcli", task: "msgcli" },
  { name: "msgcli-serve", task: "serve" },
];

/** Expand `$VAR` as deno task's shell does. */
function expand(s: string): string {
  return s.replace(/\$([A-Z_][A-Z0-9_]*)/g, (_, v) => Deno.env.get(v) ?? "");
}

/** Parse the task lines into programs. */
export function entrypoints(): Entrypoint[] {
  return PROGRAMS.map(({ name, task }) => {
    const words = (denoJson.tasks[task] as string).split(/\s+/);
    if (words[0] !== "deno" || words[1] !== "run") throw new Error(`task ${task} is not deno run`);
    const entry = words.find((w) => w.endsWith(".ts"));
    if (!entry) throw new Error(`task ${task} names no entry file`);
    const flags = words.slice(2, words.indexOf(entry)).map(expand);
    return { name, entry, flags };
  });
}

/** Repository root (with a trailing slash). */
export const ROOT = new URL("../", import.meta.url).pathname;

/** Run `deno <args(program)>` for every program; stops at the first failure. */
export async function forEachProgram(
  verb: string,
  argsFor: (p: Entrypoint) => string[],
  done: (p: Entrypoint) => string,
): Promise<void> {
  for (const p of entrypoints()) {
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
