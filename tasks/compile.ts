/**
 * `deno task compile [--target TRIPLE] [--dry-run]`: self-contained executables in dist/
 * for mneme-admin, mneme-mcp, memcli, msgcli and msgcli-serve.
 *
 * A compiled executable cannot start another Deno with other flags, so it cannot use the
 * launcher: its permissions are fixed when it is built, computed from the table
 * (src/programs.ts) for the configuration in the environment at build time (DATA_DIR,
 * DATABASE_URL, the embedder and API hosts, the credentials path, …). Build on the account
 * and with the configuration that will run them, and build again after changing a setting;
 * a compiled program started with a configuration its grants do not cover stops at once and
 * names what is missing. Where a program's set depends on its arguments, the fixed set
 * covers the working directory instead (msgcli's `--system-file` and `--history` files), and
 * memcli's project detection stops at the working directory. The web UI and the migrations
 * are module imports, and `deno compile` embeds npm packages (PGlite's WASM files); the one
 * data file, the builtin word vectors that the daemon and the MCP server search with
 * (models/glove-100d-50k.bin), is embedded with `--include`, and so is the one module it cannot
 * find by itself, the embedded database's worker (loaded by URL), which the admin daemon's
 * executable includes ({@link WORKER_MODULES}).
 *
 * `deno compile` downloads a Deno runtime binary for the target, so it needs access to
 * Deno's release downloads; it cannot run on machines that reach only the npm registry.
 * `--dry-run` prints the commands instead (docs/permissions.md shows them; a test checks).
 */
import { parseArgs } from "node:util";
import { permissionFlags } from "../src/permissions.ts";
import { type Env, processEnv, type Program, PROGRAMS } from "../src/programs.ts";
import { forEachProgram, ROOT } from "./entrypoints.ts";
import { shellQuoteExpanding } from "../src/common/shell.ts";
import { WORD_VECTORS_FILE } from "../src/common/models.ts";

/**
 * Modules a program loads as workers, by entry point: `deno compile` follows imports, not
 * `new Worker(url)`, so they are included by name. The admin daemon runs the embedded database
 * in one (src/store/pglite/worker.ts); the other programs never open it.
 */
export const WORKER_MODULES: Record<string, string[]> = {
  "src/bin/admin.ts": ["src/store/pglite/worker.ts"],
};

/**
 * The `deno` arguments that compile program `p` (paths relative to `root`) with the fixed
 * grants of the configuration in `env`.
 */
export function compileArgs(
  p: Program,
  root: string,
  target?: string,
  env: Env = processEnv,
): string[] {
  const launch = p.launch({ env, args: null, cwd: Deno.cwd() });
  const searches = p.entry === "src/bin/admin.ts" || p.entry === "src/bin/mcp.ts";
  return [
    "compile",
    "--config",
    `${root}deno.json`,
    ...(launch.lock ? [`--lock=${root}${launch.lock}`] : []),
    "--output",
    `${root}dist/${p.name}`,
    ...(target ? ["--target", target] : []),
    ...launch.denoFlags,
    ...(searches ? ["--include", `${root}${WORD_VECTORS_FILE}`] : []),
    ...permissionFlags(launch.plan),
    ...(WORKER_MODULES[launch.entry] ?? []).flatMap((m) => ["--include", `${root}${m}`]),
    `${root}${launch.entry}`,
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { target: { type: "string" }, "dry-run": { type: "boolean" } },
  });
  if (values["dry-run"]) {
    for (const p of PROGRAMS) {
      const args = compileArgs(p, ROOT, values.target);
      console.log(["deno", ...args].map(shellQuoteExpanding).join(" "));
    }
  } else {
    await forEachProgram(
      PROGRAMS,
      "compile",
      (p) => compileArgs(p, ROOT, values.target),
      (p) => `compiled dist/${p.name}`,
    );
  }
}
