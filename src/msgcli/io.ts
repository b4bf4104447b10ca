/**
 * The process surface of `msgcli` (environment, output streams, stdin, the browser opener and
 * the hand-off to `msgcli serve`) behind one interface, so that commands run on captured
 * streams in tests.
 * @module
 */

import { safeEnv } from "../common/env.ts";
import { lineReader } from "../common/stdin.ts";
import { writeAll, writeAllSync } from "../common/write.ts";
import { envFlag, type EnvGetter } from "../msg/config.ts";

/** Input and output of one CLI run (real streams in production, captured ones in tests). */
export interface CliIO {
  env: EnvGetter;
  /** Writes to stdout; each call is written through at once (no buffering). */
  stdout: (text: string) => Promise<void>;
  stderr: (text: string) => Promise<void>;
  /** All of stdin as text. */
  readStdin: () => Promise<string>;
  /** One line of stdin (without the line end); null at end of input. */
  readLine: () => Promise<string | null>;
  /** Tries to open a URL in a browser; false when no browser could be started. */
  openBrowser: (url: string) => Promise<boolean>;
  /** Runs `msgcli serve` with the arguments after `serve` (globals included). */
  runServe: (args: string[]) => Promise<number>;
}

/** The real process; `release` gives stdin back so that the process can exit. */
export function processIo(): CliIO & { release(): void } {
  const stdin = lineReader(() => Deno.stdin.readable);
  return {
    env: safeEnv,
    stdout: (text) => writeAll(Deno.stdout, text),
    // Synchronous, so that debug lines and errors keep their order and survive Deno.exit.
    stderr: (text) => Promise.resolve(writeAllSync(Deno.stderr, text)),
    readStdin: () => stdin.readAll(),
    readLine: () => stdin.readLine(),
    openBrowser: (url) => openBrowser(url, safeEnv),
    runServe: async (args) => {
      const { runServe } = await import("../serve/run.ts");
      return await runServe(args);
    },
    release: () => stdin.release(),
  };
}

/**
 * Opens a URL with the platform's opener (`xdg-open`, `open`, `cmd /c start`). False when
 * none could be started (`MSGCLI_NO_BROWSER`, no display on Linux, no opener installed).
 */
export async function openBrowser(url: string, env: EnvGetter): Promise<boolean> {
  if (envFlag(env("MSGCLI_NO_BROWSER"))) return false;
  const os = Deno.build.os;
  if (os === "linux" && !env("DISPLAY") && !env("WAYLAND_DISPLAY")) return false;
  const [cmd, ...args] = os === "darwin"
    ? ["open", url]
    : os === "windows"
    ? ["cmd", "/c", "start", "", url]
    : ["xdg-open", url];
  try {
    const child = new Deno.Command(cmd, { args, stdin: "null", stdout: "null", stderr: "null" })
      .spawn();
    child.unref();
    await Promise.resolve();
    return true;
  } catch {
    // No opener: the URL is printed anyway.
    return false;
  }
}
