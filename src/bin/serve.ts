/**
 * Entrypoint of the permission-locked proxy daemon (`deno task serve`, and the process that
 * `msgcli serve` re-executes with exactly the daemon's permissions). See docs/serve.md.
 *
 * @module
 */

import { runServe } from "../serve/run.ts";

Deno.exit(await runServe(Deno.args));
