/**
 * `msgcli`: entrypoint of the Messages API client. Wires real stdin/stdout/stderr and the
 * daemon, then runs {@link runCli}. Logic lives in `src/msg/cli.ts`.
 *
 * @module
 */

import { safeEnv } from "../common/env.ts";
import { lineReader } from "../common/stdin.ts";
import { type CliIO, openBrowser, runCli } from "../msg/cli.ts";

const enc = new TextEncoder();

async function writeAll(w: { write(p: Uint8Array): Promise<number> }, text: string) {
  const bytes = enc.encode(text);
  let off = 0;
  while (off < bytes.length) off += await w.write(bytes.subarray(off));
}

const stdin = lineReader(() => Deno.stdin.readable);

const io: CliIO = {
  env: safeEnv,
  stdout: (text) => writeAll(Deno.stdout, text),
  // Synchronous, so that debug lines and errors keep their order and survive Deno.exit.
  stderr: (text) => {
    const bytes = enc.encode(text);
    let off = 0;
    while (off < bytes.length) off += Deno.stderr.writeSync(bytes.subarray(off));
    return Promise.resolve();
  },
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
