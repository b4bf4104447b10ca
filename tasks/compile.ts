/**
 * `deno task compile [--target TRIPLE]`: self-contained executables in dist/ for
 * mneme-admin (with the web UI: `--include static`), mneme-mcp, memcli, msgcli and
 * msgcli-serve, each with exactly the permissions of its task in deno.json.
 *
 * `deno compile` downloads a Deno runtime binary for the target, so it needs access to
 * Deno's release downloads; it cannot run on machines that reach only the npm registry.
 */
import { parseArgs } from "node:util";
import { forEachProgram, ROOT } from "./entrypoints.ts";

const { values } = parseArgs({ args: Deno.args, options: { target: { type: "string" } } });
await forEachProgram("compile", (p) => [
  "compile",
  "--config",
  `${ROOT}deno.json`,
  "--output",
  `${ROOT}dist/${p.name}`,
  ...(values.target ? ["--target", values.target] : []),
  ...(p.name === "mneme-admin" ? ["--include", `${ROOT}static`] : []),
  ...p.flags,
  `${ROOT}${p.entry}`,
], (p) => `compiled dist/${p.name}`);
