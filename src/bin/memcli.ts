/**
 * Entry point of `memcli`, the host CLI of the memory service (`deno task memcli`).
 * Commands that touch the service or DATA_DIR first check that the process holds the
 * permissions their configuration needs (src/permissions.ts); `bootstrap` and `recall` run
 * as agent hooks, which must never fail a session, so they report problems themselves.
 * @module
 */
import { loadMemoryConfig } from "../config.ts";
import { main } from "../memcli/main.ts";
import { permissionProblem, planFor } from "../permissions.ts";

const QUIET = new Set([
  undefined,
  "help",
  "--help",
  "-h",
  "version",
  "--version",
  "-V",
  "bootstrap",
  "recall",
]);
const [command, ...rest] = Deno.args;
if (!QUIET.has(command) && !rest.includes("--help")) {
  let problem: string | null = null;
  try {
    problem = permissionProblem(`memcli ${command}`, planFor("memcli", loadMemoryConfig()));
  } catch { /* a configuration error: the command reports it */ }
  if (problem) {
    console.error(problem);
    Deno.exit(1);
  }
}
Deno.exit(await main(Deno.args));
