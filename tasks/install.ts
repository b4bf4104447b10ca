/**
 * `deno task install [--root DIR]`: installs the programs with `deno install --global`
 * (works offline once the dependencies are cached): mneme-admin, mneme-mcp, memcli, msgcli
 * and msgcli-serve, each with exactly the permissions of its task in deno.json.
 */
import { parseArgs } from "node:util";
import { forEachProgram, ROOT } from "./entrypoints.ts";

const { values } = parseArgs({ args: Deno.args, options: { root: { type: "string" } } });
await forEachProgram("install", (p) => [
  "install",
  "--global",
  "--force",
  "--quiet",
  "--config",
  `${ROOT}deno.json`,
  "--name",
  p.name,
  ...(values.root ? ["--root", values.root] : []),
  ...p.flags,
  `${ROOT}${p.entry}`,
], (p) => `installed ${p.name}`);
