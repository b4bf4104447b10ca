/**
 * `deno task compile [--target TRIPLE] [--dry-run]`: self-contained executables in dist/
 * for mneme-admin, mneme-mcp, memcli, msgcli and msgcli-serve, each with exactly the
 * permissions of its task in deno.json (`$HOME` is expanded when building, so build on the
 * account that runs them). The web UI and the migrations are module imports, and npm
 * packages (PGlite's WASM files) are embedded by `deno compile` itself, so no `--include`
 * is needed.
 *
 * `deno compile` downloads a Deno runtime binary for the target, so it needs access to
 * Deno's release downloads; it cannot run on machines that reach only the npm registry.
 * `--dry-run` prints the commands instead (the README shows them; a test checks).
 */
import { parseArgs } from "node:util";
import { type Entrypoint, entrypoints, forEachProgram, ROOT } from "./entrypoints.ts";

/** The `deno` arguments that compile program `p` (paths relative to `root`). */
export function compileArgs(p: Entrypoint, root: string, target?: string): string[] {
  return [
    "compile",
    "--config",
    `${root}deno.json`,
    "--output",
    `${root}dist/${p.name}`,
    ...(target ? ["--target", target] : []),
    ...p.flags,
    `${root}${p.entry}`,
  ];
}

/** Quote a word for a POSIX shell when it needs it (double quotes: `$HOME` still expands). */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./\[\]-]+$/.test(s) ? s : `"${s.replace(/(["\\`])/g, "\\$1")}"`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { target: { type: "string" }, "dry-run": { type: "boolean" } },
  });
  if (values["dry-run"]) {
    for (const p of entrypoints()) {
      console.log(["deno", ...compileArgs(p, ROOT, values.target)].map(shellQuote).join(" "));
    }
  } else {
    await forEachProgram(
      entrypoints(),
      "compile",
      (p) => compileArgs(p, ROOT, values.target),
      (p) => `compiled dist/${p.name}`,
    );
  }
}
