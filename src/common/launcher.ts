/**
 * Following the process that started this one, so that no program outlives its launcher.
 *
 * The launcher (src/bin/launch.ts, and `msgcli serve`'s locked re-execution) puts its own pid
 * in {@link LAUNCHER_PID_VAR} in the environment of the program it starts. The program, on
 * startup, calls {@link watchLauncher}: when that variable names its parent, it checks its
 * parent pid twice a second, and when the launcher is gone (however it died, SIGKILL
 * included: the program is then re-parented and its parent pid changes), it runs the given
 * shutdown. A grandchild (the detached daemon `memcli daemon start` spawns, whose parent is
 * memcli and not the launcher) inherits the variable but does not follow it.
 * @module
 */
import { safeEnv } from "./env.ts";

/** The variable that carries the launcher's pid to the program it starts. */
export const LAUNCHER_PID_VAR = "MNEME_LAUNCHER_PID";

/**
 * The variable the launcher sets to `1` when a task runner started it (`deno task start`, in a
 * terminal): the service records it, so that memcli can say that it stops with its terminal.
 */
export const TASK_VAR = "MNEME_TASK";

/** How often the parent pid is checked. */
export const LAUNCHER_POLL_MS = 500;

/**
 * Runs `onGone` once when the parent process `pid` is no longer this process's parent.
 * Checks without keeping the event loop alive. Returns the function that stops watching.
 * A `pid` that is not a positive integer other than 1 is not watched.
 */
export function watchParent(
  pid: number,
  onGone: () => void,
  pollMs = LAUNCHER_POLL_MS,
): () => void {
  if (!Number.isInteger(pid) || pid <= 1) return () => {};
  const id = setInterval(() => {
    let now: number;
    try {
      now = Deno.ppid;
    } catch {
      return;
    }
    if (now === pid) return;
    clearInterval(id);
    onGone();
  }, pollMs);
  Deno.unrefTimer(id);
  return () => clearInterval(id);
}

/**
 * Follows the launcher named in {@link LAUNCHER_PID_VAR} when it is this process's parent:
 * `onGone` runs once when it dies. Returns the function that stops watching (a no-op when
 * there is nothing to watch).
 */
export function watchLauncher(onGone: () => void, env = safeEnv): () => void {
  const pid = Number(env(LAUNCHER_PID_VAR) ?? "");
  if (!Number.isInteger(pid) || pid <= 1 || pid !== Deno.ppid) return () => {};
  return watchParent(pid, onGone);
}

/**
 * `--allow-env` flags with {@link LAUNCHER_PID_VAR} added, for a program started with
 * `flags` that should follow its launcher. Unrestricted `--allow-env` is left alone.
 */
export function withLauncherVar(flags: string[]): string[] {
  const i = flags.findIndex((f) => f === "--allow-env" || f.startsWith("--allow-env="));
  if (i < 0) return [...flags, `--allow-env=${LAUNCHER_PID_VAR}`];
  const flag = flags[i];
  if (flag === "--allow-env") return flags;
  const names = flag.slice("--allow-env=".length).split(",");
  if (names.includes(LAUNCHER_PID_VAR)) return flags;
  const out = [...flags];
  out[i] = `--allow-env=${[...names, LAUNCHER_PID_VAR].join(",")}`;
  return out;
}
