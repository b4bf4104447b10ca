/**
 * `memcli version`: the version of this memcli, where it is installed (an install made by
 * `deno task install` runs from `<home>/versions/<version>/app`), and, when the memory
 * service answers and runs another version, that one too (it moves to this one with
 * `memcli restart`).
 * @module
 */
import { fileURLToPath } from "node:url";
import { UsageError } from "../../common/errors.ts";
import type { Health } from "../../memory/types.ts";
import { VERSION } from "../../version.ts";
import { apiUrlOf, configOf } from "../context.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";

/** The install folder this memcli runs from (`…/versions/<version>`), or null (a clone). */
export function installedFrom(url = import.meta.url): string | null {
  if (!url.startsWith("file:")) return null;
  const app = fileURLToPath(new URL("../../../", url)).replace(/\/$/, "");
  return /\/versions\/[^/]+\/app$/.test(app) ? app.slice(0, -"/app".length) : null;
}

/** Run `memcli version`. */
export async function version(args: string[], io: Io): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.out(COMMAND_USAGE.version);
    return 0;
  }
  if (args.length) throw new UsageError(`unexpected argument '${args[0]}'`, "version");
  const from = installedFrom();
  io.out(`memcli v${VERSION}${from ? ` (installed in ${from})` : " (run from a clone)"}\n`);
  const cfg = configOf(io);
  const { url } = await apiUrlOf(io, cfg);
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1500) });
    const h = await res.json() as Health;
    if (typeof h?.version === "string" && h.version !== VERSION) {
      io.out(
        `The memory service at ${url} runs v${h.version}, not v${VERSION}: ` +
          "'memcli restart' moves it to this version.\n",
      );
    }
  } catch { /* not running: nothing to compare */ }
  return 0;
}
