/**
 * Running a program as a child that stands in for this process: the signals this process
 * receives go to the child, and the child's exit status becomes this process's exit code.
 * Used by the launcher (src/bin/launch.ts) and by `msgcli serve`'s re-execution.
 * @module
 */

/** The signals a parent passes on to the child it stands in for. */
export const FORWARDED_SIGNALS: readonly Deno.Signal[] = Deno.build.os === "windows"
  ? ["SIGINT", "SIGBREAK"]
  : ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

const SIGNAL_NUMBERS: Partial<Record<Deno.Signal, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGTERM: 15,
};

/** The shell's exit code for a child's status: its code, or 128 + the signal that ended it. */
export function exitCodeOf(status: Deno.CommandStatus): number {
  return status.signal !== null ? 128 + (SIGNAL_NUMBERS[status.signal] ?? 0) : status.code;
}

/**
 * Sends each of {@link FORWARDED_SIGNALS} this process receives to `child()` (when there is
 * one), after calling `onSignal`. Returns the function that stops forwarding.
 */
export function forwardSignals(
  child: () => Deno.ChildProcess | null,
  onSignal: (sig: Deno.Signal) => void = () => {},
): () => void {
  const listeners = FORWARDED_SIGNALS.map((sig) => {
    const fn = () => {
      onSignal(sig);
      try {
        child()?.kill(sig);
      } catch { /* already gone */ }
    };
    try {
      Deno.addSignalListener(sig, fn);
    } catch { /* a signal this platform cannot listen to */ }
    return { sig, fn };
  });
  return () => {
    for (const { sig, fn } of listeners) {
      try {
        Deno.removeSignalListener(sig, fn);
      } catch { /* not added */ }
    }
  };
}
