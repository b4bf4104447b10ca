/**
 * `deno task install [--root DIR]`: installs mneme-admin, mneme-mcp, memcli and msgcli with
 * `deno install --global` (the proxy daemon is `msgcli serve`). Each installed command is the
 * launcher (src/bin/launch.ts) with its program's name: it holds only `--allow-env` and
 * `--allow-run` for this Deno executable, and computes the program's exact permissions each
 * time it starts, from the configuration it starts with. Changing a setting after installing
 * therefore needs no reinstall. Works offline once the dependencies are cached.
 * `deno task uninstall [--root DIR]` removes them.
 */
import { parseArgs } from "node:util";
import { PROGRAMS } from "../src/programs.ts";
import { forEachProgram, ROOT } from "./entrypoints.ts";

/** The `deno` arguments that install program `name` as a launcher wrapper. */
export function installArgs(name: string, root: string[] = []): string[] {
  return [
    "install",
    "--global",
    "--force",
    "--quiet",
    "--config",
    `${ROOT}deno.json`,
    "--name",
    name,
    ...root,
    "--no-prompt",
    "--allow-env",
    `--allow-run=${Deno.execPath()}`,
    `${ROOT}src/bin/launch.ts`,
    "--",
    name,
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { root: { type: "string" }, uninstall: { type: "boolean" } },
  });
  const root = values.root ? ["--root", values.root] : [];
  const programs = PROGRAMS.filter((p) => p.installed);
  if (values.uninstall) {
    await forEachProgram(
      programs,
      "uninstall",
      (p) => ["uninstall", "--global", ...root, p.name],
      (p) => `removed ${p.name}`,
    );
  } else {
    await forEachProgram(
      programs,
      "install",
      (p) => installArgs(p.name, root),
      (p) => `installed ${p.name}`,
    );
  }
}
