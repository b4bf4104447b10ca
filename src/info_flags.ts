/**
 * The flags of the daemons configured by environment only (`mneme-admin`, `mneme-mcp`):
 * `--help` and `--version` print and exit 0; anything else is a usage error (exit 2).
 * @module
 */
import { VERSION } from "./version.ts";

/** Handle `args` for program `name` with help text `usage`; returns only when there are none. */
export function infoFlagsOnly(name: string, usage: string, args: string[] = Deno.args): void {
  const [arg, ...extra] = args;
  if (arg === "--help" || arg === "-h") {
    console.log(usage);
    Deno.exit(0);
  }
  if (arg === "--version" || arg === "-V") {
    console.log(`${name} v${VERSION}`);
    Deno.exit(0);
  }
  if (arg !== undefined || extra.length) {
    console.error(`${name}: unexpected argument '${arg}'\nRun '${name} --help' for usage.`);
    Deno.exit(2);
  }
}
