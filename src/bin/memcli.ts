/**
 * Entry point of `memcli`, the host CLI of the memory service (`deno task memcli`).
 * Commands that touch the service or DATA_DIR first check that the process holds the
 * permissions their configuration needs (src/permissions.ts); `bootstrap` never fails a
 * session start, so it reports problems itself. `--debug` (anywhere) prints the
 * permissions the process holds to stderr.
 * @module
 */
import { loadMemoryConfig } from "../config.ts";
import { main } from "../memcli/main.ts";
import { heldPermissions, permissionProblem, planFor } from "../permissions.ts";

const QUIET = new Set([undefined, "help", "--help", "-h", "version", "--version", "-V"]);
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
if (!QUIET.has(command) && command !== "bootstrap" && !rest.includes("--help")) {
  let problem: string | null = null;
  try {
    problem = permissionProblem(`memcli ${command}`, planFor("memcli", loadMemoryConfig()));
  } catch { /* a configuration error: the command reports it */ }
  if (problem) {
    console.error(problem);
    Deno.exit(1);
  }
}
Deno.exit(await main(args));
