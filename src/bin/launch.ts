/**
 * The launcher: `deno run --allow-env --allow-run=<deno> src/bin/launch.ts <program> [args…]`.
 *
 * Every deno.json task and every installed command starts here. It computes the exact
 * permission set of `<program>` for the configuration it is started with (the environment,
 * the arguments, the working directory: see src/programs.ts and src/permissions.ts), then
 * runs the program with Deno's own executable and exactly those flags, with the same
 * stdin, stdout and stderr, passing on SIGINT, SIGTERM, SIGHUP and SIGQUIT, and exits with
 * the program's exit code (128 + the signal when a signal ended it). The launcher itself may
 * only read variables and run Deno: it reads no file and opens no connection.
 *
 * No program outlives its launcher: the program gets the launcher's pid in
 * `MNEME_LAUNCHER_PID` and exits when the launcher dies, however it dies (see
 * src/common/launcher.ts). Started by a task runner (`deno task`, which sets `INIT_CWD`), the
 * launcher likewise follows its own parent: when the task runner is killed, the launcher
 * sends SIGTERM to the program, waits up to 10 s (then SIGKILL), and exits.
 *
 * `MNEME_LAUNCH_DEBUG=1` prints the command it runs to stderr (secrets are never on it: a
 * `--auth-key` is passed to the daemon in its environment).
 * @module
 */
import { describePlan } from "../permissions.ts";
import { denoRunArgs, findProgram, processEnv, PROGRAMS } from "../programs.ts";
import { exitCodeOf, forwardSignals } from "../process.ts";
import { LAUNCHER_PID_VAR, TASK_VAR, watchParent } from "../common/launcher.ts";

/**
 * Deno's own executable when this process may run it, else `deno` (a task grants
 * `--allow-run=deno`, which Deno resolves on PATH: where Deno is installed through a
 * symbolic link, that is the link, not the executable it points to).
 */
function denoCommand(): string {
  try {
    const exec = Deno.execPath();
    if (Deno.permissions.querySync({ name: "run", command: exec }).state === "granted") {
      return exec;
    }
  } catch { /* fall through */ }
  return "deno";
}

const [name, ...args] = Deno.args;
const program = name === undefined ? undefined : findProgram(name);
if (program === undefined) {
  console.error(
    `launch: ${name === undefined ? "no program named" : `unknown program "${name}"`}; ` +
      `one of ${PROGRAMS.map((p) => p.name).join(", ")}`,
  );
  Deno.exit(2);
}

const launch = program.launch({ env: processEnv, args, cwd: Deno.cwd() });
// The program may read the launcher's pid, to follow it (src/common/launcher.ts).
if (!launch.plan.env.includes(LAUNCHER_PID_VAR)) launch.plan.env.push(LAUNCHER_PID_VAR);
const task = processEnv("INIT_CWD") !== undefined;
if (task) {
  // It may also read whether a task runner started it (src/admin/server.ts records it).
  if (!launch.plan.env.includes(TASK_VAR)) launch.plan.env.push(TASK_VAR);
  launch.env[TASK_VAR] = "1";
}
const runArgs = denoRunArgs(launch);
if (/^(1|true|yes|on)$/i.test(processEnv("MNEME_LAUNCH_DEBUG") ?? "")) {
  console.error(`launch: ${program.name}: ${describePlan(launch.plan, true)}`);
}
let child: Deno.ChildProcess | null = null;
const stop = forwardSignals(() => child);
const parent = Deno.ppid;
if (task) {
  // Started by a task runner: when it dies, so does the program.
  watchParent(parent, () => {
    const running = child;
    if (running === null) Deno.exit(129);
    try {
      running.kill("SIGTERM");
    } catch { /* already gone */ }
    const id = setTimeout(() => {
      try {
        running.kill("SIGKILL");
      } catch { /* already gone */ }
    }, 10_000);
    Deno.unrefTimer(id);
  });
}
try {
  child = new Deno.Command(denoCommand(), {
    args: runArgs,
    env: { ...launch.env, [LAUNCHER_PID_VAR]: String(Deno.pid) },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
} catch (err) {
  const hint = err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.NotFound
    ? ` (the tasks may run the \`deno\` found on PATH: put ${Deno.execPath()}'s directory on PATH)`
    : "";
  console.error(`launch: cannot start ${program.name}: ${(err as Error).message}${hint}`);
  Deno.exit(1);
}
const status = await child.status;
stop();
Deno.exit(exitCodeOf(status));
