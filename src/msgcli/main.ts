/**
 * `msgcli`: dispatch, help and error reporting. The commands are `login`, `logout`, `query`
 * (default for bare text), `stream`, `usage`, `run`, `version`, `help`, and the hand-off of
 * `serve` to the daemon.
 * Command modules are loaded on demand so that `help` and `version` load only what they need.
 *
 * Exit codes: 0 success, 1 usage error or invalid input, 2 failure at run time
 * (authentication, network, upstream error).
 * @module
 */

import { describeError, UsageError } from "../common/errors.ts";
import { ApiError } from "../msg/api.ts";
import { ConfigError } from "../msg/config.ts";
import { VERSION } from "../version.ts";
import { parseCommandLine, type ParsedCommand } from "./args.ts";
import type { CliIO } from "./io.ts";
import { HINT, USAGE } from "./usage.ts";

/** A command: do the work of a parsed command line, return the exit code. */
export type Command = (p: ParsedCommand, io: CliIO) => Promise<number>;

const COMMANDS: Record<
  "login" | "logout" | "query" | "stream" | "usage" | "run",
  () => Promise<Command>
> = {
  login: async () => (await import("./commands/login.ts")).login,
  logout: async () => (await import("./commands/logout.ts")).logout,
  run: async () => (await import("./commands/run.ts")).run,
  query: async () => (await import("./commands/query.ts")).query,
  stream: async () => (await import("./commands/stream.ts")).stream,
  usage: async () => (await import("./commands/usage.ts")).usage,
};

/**
 * An API error as one line: status, type, message and request id. A request that got no
 * answer (status 0: the host could not be reached) is its message alone.
 */
function describeApiError(e: unknown): string | undefined {
  if (!(e instanceof ApiError)) return undefined;
  if (e.status === 0) return e.message;
  return `API error ${e.status} ${e.type}: ${e.message}${
    e.requestId ? ` (request-id ${e.requestId})` : ""
  }`;
}

/** Runs the CLI; returns the exit code. Never throws. */
export async function runCli(args: string[], io: CliIO): Promise<number> {
  let p: ParsedCommand;
  try {
    p = parseCommandLine(args);
  } catch (e) {
    await io.stderr(`msgcli: ${(e as Error).message}\n${HINT}\n`);
    return 1;
  }
  try {
    switch (p.command) {
      case "help":
        await io.stdout(USAGE);
        return 0;
      case "version":
        await io.stdout(`msgcli v${VERSION}\n`);
        return 0;
      case "serve":
        return await io.runServe(p.serveArgs ?? []);
      default: {
        const cmd = await COMMANDS[p.command]();
        return await cmd(p, io);
      }
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      await io.stderr(`msgcli: ${e.message}\n${HINT}\n`);
      return 1;
    }
    await io.stderr(
      `msgcli: error: ${describeError(e, { style: "lines", describe: describeApiError })}\n`,
    );
    return 2;
  }
}
