/**
 * `deno task install [--root DIR]`: installs the programs with `deno install --global`
 * (works offline once the dependencies are cached): mneme-admin, mneme-mcp, memcli, msgcli
 * and msgcli-serve, each with exactly the permissions of its task in deno.json.
 */
import { parseArgs } from "node:util";
import { entrypoints } from "./entrypoints.ts";

const { values } = parseArgs({ args: Deno.args, options: { root: { type: "string" } } });
const root = new URL("../", import.meta.url).pathname;
for (const p of entrypoints()) {
  const args = [
    "install",
    "--global",
    "--force",
    "--quiet",
    "--config",
    `${root}deno.json`,
    "--name",
    p.name,
    ...(values.root ? ["--root", values.root] : []),
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
    console.error(`install: ${p.name} failed`);
    Deno.exit(code);
  }
  console.log(`installed ${p.name}`);
}
