/**
 * `deno task install [--root DIR]`: installs mneme-admin, mneme-mcp, memcli and msgcli with
 * `deno install --global` (the proxy daemon is `msgcli serve`). Works offline once the
 * dependencies are cached. Each command gets its task's permissions from deno.json, plus
 * the hosts and paths the configuration in the current environment needs beyond the
 * defaults (printed), so that installing with DATABASE_URL or DATA_DIR set gives commands
 * that work with them. `deno task uninstall [--root DIR]` removes them.
 */
import { parseArgs } from "node:util";
import { entrypoints, flagsFor, forEachProgram, ROOT } from "./entrypoints.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { root: { type: "string" }, uninstall: { type: "boolean" } },
});
const root = values.root ? ["--root", values.root] : [];
const programs = entrypoints().filter((p) => p.installed);

if (values.uninstall) {
  await forEachProgram(
    programs,
    "uninstall",
    (p) => ["uninstall", "--global", ...root, p.name],
    (p) => `removed ${p.name}`,
  );
} else {
  await forEachProgram(programs, "install", (p) => {
    const flags = flagsFor(p);
    const extra = flags.filter((f) => !p.flags.includes(f));
    if (extra.length) console.log(`${p.name}: for this configuration also ${extra.join(" ")}`);
    return [
      "install",
      "--global",
      "--force",
      "--quiet",
      "--config",
      `${ROOT}deno.json`,
      "--name",
      p.name,
      ...root,
      ...flags,
      `${ROOT}${p.entry}`,
    ];
  }, (p) => `installed ${p.name}`);
}
