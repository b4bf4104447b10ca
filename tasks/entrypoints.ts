/**
 * What `deno task install` and `deno task compile` share: the repository root and a loop that
 * runs one `deno` command per program of the table (src/programs.ts).
 */
import type { Program } from "../src/programs.ts";

/** Repository root (with a trailing slash). */
export const ROOT = new URL("../", import.meta.url).pathname;

/**
 * Run `deno <args(program)>` for each program, then `after(program)`; prints `done(program)`
 * unless empty; stops at the first failure.
 */
export async function forEachProgram(
  programs: readonly Program[],
  verb: string,
  argsFor: (p: Program) => string[] | Promise<string[]>,
  done: (p: Program) => string,
  after?: (p: Program) => Promise<void>,
): Promise<void> {
  for (const p of programs) {
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: await argsFor(p),
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) {
      console.error(`${verb}: ${p.name} failed`);
      Deno.exit(code);
    }
    await after?.(p);
    const line = done(p);
    if (line) console.log(line);
  }
}

/**
 * Write a benchmark's results to `bench/results/<name>-<date and time>.json` (the date, Deno's version
 * and the OS first, then `fields`) and say where; returns the file's path.
 */
export async function writeBenchResult(
  name: string,
  fields: Record<string, unknown>,
): Promise<string> {
  await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
  const date = new Date().toISOString();
  // The time in the name: a second run the same day never overwrites a first (a frozen
  // split's one run is a record).
  const file = `${ROOT}bench/results/${name}-${date.replace(/[:.]/g, "-")}.json`;
  const body = { date, deno: Deno.version.deno, os: Deno.build.os, ...fields };
  await Deno.writeTextFile(file, JSON.stringify(body, null, 2) + "\n");
  console.log(`wrote ${file}`);
  return file;
}
