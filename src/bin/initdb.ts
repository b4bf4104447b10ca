/**
 * The short-lived child that creates a new embedded database for the admin daemon:
 * `deno run <its exact permissions> src/bin/initdb.ts <staging dir>` (the command line comes
 * from src/programs.ts, `databaseCreatorArgs`). It builds the database in the staging
 * directory, syncs it to disk and marks it complete (src/store/pglite/create.ts); the daemon
 * then moves it into place and opens it, never holding PGlite's `initdb` itself. It stops,
 * without marking anything complete, when the daemon that started it is gone.
 * @module
 */
import { describeError } from "../common/errors.ts";
import { watchParent } from "../common/launcher.ts";
import { createClusterFiles } from "../store/pglite/create.ts";

const [dir, ...rest] = Deno.args;
if (!dir || rest.length) {
  console.error("usage: initdb.ts <staging directory>");
  Deno.exit(2);
}
const parent = Deno.ppid;
watchParent(parent, () => Deno.exit(1));
try {
  await createClusterFiles(dir, () => Deno.ppid === parent);
  Deno.exit(0);
} catch (err) {
  console.error(`mneme initdb: ${describeError(err)}`);
  Deno.exit(1);
}
