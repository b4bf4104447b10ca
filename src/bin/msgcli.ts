/**
 * `msgcli`: entrypoint of the Messages API client. Wires real stdin/stdout/stderr and the
 * daemon, then runs {@link runCli}. Logic lives in `src/msg/cli.ts`.
 *
 * @module
 */

import { safeEnv } from "../common/env.ts";
import { lineReader } from "../common/stdin.ts";
import { writeAll, writeAllSync } from "../common/write.ts";
import { type CliIO, openBrowser, runCli } from "../msg/cli.ts";

const stdin = lineReader(() => Deno.stdin.readable);

const io: CliIO = {
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
};

if (import.meta.main) {
  const code = await runCli(Deno.args, io);
  stdin.release();
  Deno.exit(code);
}
