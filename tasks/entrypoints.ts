/**
 * What `deno task install` and `deno task compile` share: the repository root and a loop that
 * runs one `deno` command per program of the table (src/programs.ts).
 */
import type { Program } from "../src/programs.ts";

/** Repository root (with a trailing slash). */
export const ROOT = new URL("../", import.meta.url).pathname;

/** Run `deno <args(program)>` for each program; stops at the first failure. */
export async function forEachProgram(
  programs: readonly Program[],
  verb: string,
  argsFor: (p: Program) => string[] | Promise<string[]>,
  done: (p: Program) => string,
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
    console.log(done(p));
  }
}
