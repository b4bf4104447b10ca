/**
 * `msgcli`: entrypoint of the Messages API client. Runs {@link runCli} on the real process
 * (stdin, stdout, stderr, the browser opener, the daemon). Logic lives in `src/msgcli/`.
 *
 * @module
 */

import { processIo } from "../msgcli/io.ts";
import { runCli } from "../msgcli/main.ts";

if (import.meta.main) {
  const io = processIo();
  const code = await runCli(Deno.args, io);
  io.release();
  Deno.exit(code);
}
