/**
 * Entry point of `memcli`, the host CLI of the memory service (`deno task memcli`).
 * Commands that touch the service or DATA_DIR first check that the process holds the
 * permissions their configuration needs (src/permissions.ts); `bootstrap` and `recall` run
 * as agent hooks, which must never fail a session, so they report problems themselves.
 * `--debug` (anywhere) prints the permissions the process holds to stderr.
 * @module
 */
import { loadMemoryConfig } from "../config.ts";
import { main } from "../memcli/main.ts";
import { watchLauncher } from "../common/launcher.ts";
import { heldPermissions, permissionProblem, planFor } from "../permissions.ts";

const QUIET = new Set([undefined, "help", "--help", "-h", "version", "--version", "-V"]);
/** Agent hooks: they must never fail a session, so they report problems themselves. */
const HOOKS = new Set(["bootstrap", "recall"]);
const debug = Deno.args.includes("--debug");
const args = Deno.args.filter((a) => a !== "--debug");
const [command, ...rest] = args;
if (debug) {
  try {
    console.error(
      `memcli: permissions: ${heldPermissions(planFor("memcli", loadMemoryConfig()), true)}`,
    );
  } catch { /* a configuration error: the command reports it */ }
}
if (!QUIET.has(command) && !HOOKS.has(command ?? "") && !rest.includes("--help")) {
  let problem: string | null = null;
  try {
    problem = permissionProblem(`memcli ${command}`, planFor("memcli", loadMemoryConfig()));
  } catch { /* a configuration error: the command reports it */ }
  if (problem) {
    console.error(problem);
    Deno.exit(1);
  }
}
watchLauncher(() => {
  console.error("memcli: the launcher that started it is gone");
  Deno.exit(1);
});
Deno.exit(await main(args));
