/**
 * `msgcli`: entrypoint of the Messages API client. Wires real stdin/stdout/stderr and the
 * daemon, then runs {@link runCli}. Logic lives in `src/msg/cli.ts`.
 *
 * @module
 */

import { type CliIO, openBrowser, runCli } from "../msg/cli.ts";

const enc = new TextEncoder();

async function writeAll(w: { write(p: Uint8Array): Promise<number> }, text: string) {
  const bytes = enc.encode(text);
  let off = 0;
  while (off < bytes.length) off += await w.write(bytes.subarray(off));
}

let stdinReader: ReadableStreamDefaultReader<Uint8Array> | undefined;
let pending = "";
let stdinDone = false;
const dec = new TextDecoder();

async function readChunk(): Promise<boolean> {
  if (stdinDone) return false;
  stdinReader ??= Deno.stdin.readable.getReader();
  const { value, done } = await stdinReader.read();
  if (done) {
    pending += dec.decode();
    stdinDone = true;
    return false;
  }
  pending += dec.decode(value, { stream: true });
  return true;
}

/** Reads a variable; one outside the granted `--allow-env` list reads as unset. */
function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

const io: CliIO = {
  env,
  stdout: (text) => writeAll(Deno.stdout, text),
  // Synchronous, so that debug lines and errors keep their order and survive Deno.exit.
  stderr: (text) => {
    const bytes = enc.encode(text);
    let off = 0;
    while (off < bytes.length) off += Deno.stderr.writeSync(bytes.subarray(off));
    return Promise.resolve();
  },
  readStdin: async () => {
    while (await readChunk()) { /* read all */ }
    const all = pending;
    pending = "";
    return all;
  },
  readLine: async () => {
    while (!pending.includes("\n") && await readChunk()) { /* read more */ }
    if (pending === "" && stdinDone) return null;
    const i = pending.indexOf("\n");
    const line = i < 0 ? pending : pending.slice(0, i);
    pending = i < 0 ? "" : pending.slice(i + 1);
    return line.replace(/\r$/, "");
  },
  openBrowser: (url) => openBrowser(url, env),
  runServe: async (args) => {
    const { runServe } = await import("../serve/run.ts");
    return await runServe(args);
  },
};

if (import.meta.main) {
  const code = await runCli(Deno.args, io);
  stdinReader?.releaseLock();
  Deno.exit(code);
}
