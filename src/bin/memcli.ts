/**
 * Entry point of `memcli`, the host CLI of the memory service (`deno task memcli`).
 * Commands that touch the service or DATA_DIR first check that the process holds the
 * permissions their configuration needs (src/permissions.ts); `bootstrap`, `recall` and
 * `capture` run as agent hooks, which must never fail a session, so they report problems
 * themselves. `--debug` (anywhere) prints the permissions the process holds to stderr.
 *
 * Modules are loaded on demand: the hooks do not load the permission planner, and the capture
 * hook (`memcli capture --hook`, run at every Stop of every Claude Code session) loads its own
 * command module and what it imports, not the dispatcher either (docs/claude-code.md).
 * @module
 */
import { watchLauncher } from "../common/launcher.ts";
import { keepLoopbackOffProxies } from "../common/net.ts";

// Before any call to the Admin API: a proxy of the environment never carries one.
keepLoopbackOffProxies();

const QUIET = new Set([undefined, "help", "--help", "-h", "version", "--version", "-V"]);
/** Agent hooks: they must never fail a session, so they report problems themselves. */
const HOOKS = new Set(["bootstrap", "recall", "capture"]);
const debug = Deno.args.includes("--debug");
const args = Deno.args.filter((a) => a !== "--debug");
const [command, ...rest] = args;

/** `capture --hook` as the hooks install writes it (`--deadline MS` optional). */
function isCaptureHook(): boolean {
  if (command !== "capture" || debug || rest[0] !== "--hook") return false;
  return rest.length === 1 ||
    (rest.length === 3 && rest[1] === "--deadline" && /^\d{1,6}$/.test(rest[2]));
}

watchLauncher(() => {
  console.error("memcli: the launcher that started it is gone");
  Deno.exit(1);
});
if (isCaptureHook()) {
  const [{ capture }, { processIo }] = await Promise.all([
    import("../memcli/commands/capture.ts"),
    import("../memcli/io.ts"),
  ]);
  let code: number | undefined;
  try {
    code = await capture(rest, processIo());
  } catch {
    // A usage error (a --deadline out of bounds), thrown before stdin is read: the
    // dispatcher below reports it as for any command.
  }
  if (code !== undefined) Deno.exit(code);
}
const checked = !QUIET.has(command) && !HOOKS.has(command ?? "") && !rest.includes("--help");
if (debug || checked) {
  // The permission planner, only for the commands it checks (and --debug): not for the hooks.
  const [{ loadMemoryConfig }, { heldPermissions, permissionProblem, planFor }] = await Promise
    .all([import("../config.ts"), import("../permissions.ts")]);
  if (debug) {
    try {
      console.error(
        `memcli: permissions: ${heldPermissions(planFor("memcli", loadMemoryConfig()), true)}`,
      );
    } catch { /* a configuration error: the command reports it */ }
  }
  if (checked) {
    let problem: string | null = null;
    try {
      problem = permissionProblem(`memcli ${command}`, planFor("memcli", loadMemoryConfig()));
    } catch { /* a configuration error: the command reports it */ }
    if (problem) {
      console.error(problem);
      Deno.exit(1);
    }
  }
}
const { main } = await import("../memcli/main.ts");
Deno.exit(await main(args));
