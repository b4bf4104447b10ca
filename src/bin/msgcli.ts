/**
 * `msgcli`: entrypoint of the Messages API client. Runs {@link runCli} on the real process
 * (stdin, stdout, stderr, the browser opener, the daemon). Logic lives in `src/msgcli/`.
 *
 * @module
 */

import { processIo } from "../msgcli/io.ts";
import { runCli } from "../msgcli/main.ts";
import { watchLauncher } from "../common/launcher.ts";

if (import.meta.main) {
  const io = processIo();
  watchLauncher(() => {
    io.release();
    Deno.exit(1);
  });
  const code = await runCli(Deno.args, io);
  io.release();
  Deno.exit(code);
}
