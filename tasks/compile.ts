/**
 * `deno task compile [--target TRIPLE]`: self-contained executables in dist/ for
 * mneme-admin (with the web UI: `--include static`), mneme-mcp, memcli, msgcli and
 * msgcli-serve, each with exactly the permissions of its task in deno.json.
 *
 * `deno compile` downloads a Deno runtime binary for the target, so it needs access to
 * Deno's release downloads; it cannot run on machines that reach only the npm registry.
 */
import { parseArgs } from "node:util";
import { entrypoints } from "./entrypoints.ts";

const { values } = parseArgs({ args: Deno.args, options: { target: { type: "string" } } });
const root = new URL("../", import.meta.url).pathname;
for (const p of entrypoints()) {
  const args = [
    "compile",
    "--config",
    `${root}deno.json`,
    "--output",
    `${root}dist/${p.name}`,
    ...(values.target ? ["--target", values.target] : []),
    ...(p.name === "mneme-admin" ? ["--include", `${root}static`] : []),
    ...p.flags,
    `${root}${p.entry}`,
  ];
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "inherit",
    stderr: "inherit",
  })
    .output();
  if (code !== 0) {
    console.error(`compile: ${p.name} failed`);
    Deno.exit(code);
  }
  console.log(`compiled dist/${p.name}`);
}
