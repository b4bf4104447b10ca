/**
 * The process surface of `memcli` (environment, output streams, stdin, terminal checks,
 * working directory) behind one interface, so that commands run in-process in tests.
 * @module
 */
import { UsageError } from "../common/errors.ts";
import { lineReader } from "../common/stdin.ts";
import { writeAllSync } from "../common/write.ts";

/** What a command may touch of its process. */
export interface Io {
  /** Read an environment variable. */
  env(name: string): string | undefined;
  /** Write text to stdout as it is. */
  out(text: string): void;
  /** Write text to stderr as it is. */
  err(text: string): void;
  /** Read one line from stdin (without the line end); `null` at end of input. */
  readLine(): Promise<string | null>;
  /** Read all of stdin as text. */
  readAll(): Promise<string>;
  /** True when stdin is a terminal (interactive confirmation is possible). */
  stdinIsTerminal(): boolean;
  /** True when stderr is a terminal (progress lines may overwrite themselves). */
  stderrIsTerminal(): boolean;
  /** The current working directory. */
  cwd(): string;
  /** Ms since the process started (the hooks' deadline counts from there); absent in tests. */
  uptimeMs?(): number;
}

/** The real process. */
export function processIo(): Io {
  const stdin = lineReader(() => Deno.stdin.readable);
  return {
    env: (name) => Deno.env.get(name),
    out: (text) => writeAllSync(Deno.stdout, text),
    err: (text) => writeAllSync(Deno.stderr, text),
    readLine: () => stdin.readLine(),
    readAll: () => stdin.readAll(),
    stdinIsTerminal: () => Deno.stdin.isTerminal(),
    stderrIsTerminal: () => Deno.stderr.isTerminal(),
    cwd: () => Deno.cwd(),
    uptimeMs: () => performance.now(),
  };
}

/**
 * The y/N confirmation of a command that removes much (`forget` of several ids, `expansion clear
 * --all`) without `--yes`: refused (a UsageError of `command`: "`what` needs --yes (or a terminal
 * to confirm)`why`") when stdin is not a terminal; else `show` runs, `question` is asked on
 * stderr and anything but y/yes prints `cancelled` and answers false.
 */
export async function confirmOnTerminal(io: Io, o: {
  command: string;
  what: string;
  why?: string;
  question: string;
  cancelled: string;
  show?: () => Promise<void>;
}): Promise<boolean> {
  if (!io.stdinIsTerminal()) {
    throw new UsageError(
      `${o.what} needs --yes (or a terminal to confirm)${o.why ?? ""}`,
      o.command,
    );
  }
  await o.show?.();
  io.err(`${o.question} [y/N] `);
  const answer = ((await io.readLine()) ?? "").trim().toLowerCase();
  if (answer === "y" || answer === "yes") return true;
  io.err(`${o.cancelled}\n`);
  return false;
}
