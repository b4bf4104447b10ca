/**
 * Entry point of `memcli`, the host CLI of the memory service (`deno task memcli`).
 * Commands that touch the service or DATA_DIR first check that the process holds the
 * permissions their configuration needs (src/permissions.ts); `bootstrap`, `recall` and
 * `capture` run as agent hooks, which must never fail a session, so they report problems
 * themselves. `--debug` (anywhere) prints the permissions the process holds to stderr.
 *
 * Modules are loaded on demand: the capture hook (`memcli capture --hook`, run at every Stop
 * of every Claude Code session) loads its own command module and what it imports, not the
 * dispatcher, the permission planner or the other commands (docs/claude-code.md, "How fast").
 * @module
 */
import { watchLauncher } from "../common/launcher.ts";

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
const [{ loadMemoryConfig }, { main }, { heldPermissions, permissionProblem, planFor }] =
  await Promise.all([
    import("../config.ts"),
    import("../memcli/main.ts"),
    import("../permissions.ts"),
  ]);
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
Deno.exit(await main(args));
