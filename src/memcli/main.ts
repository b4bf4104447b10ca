/**
 * `memcli`: dispatch, help and error reporting. Command modules are loaded on demand so
 * that a quick command (bootstrap, version, help) loads only what it needs.
 * @module
 */
import { ConfigError } from "../config.ts";
import { MemoryError } from "../domain/errors.ts";
import { VERSION } from "../version.ts";
import { describeError, UsageError } from "../common/errors.ts";
import { closest } from "./args.ts";
import { type Io, processIo } from "./io.ts";
import { COMMAND_USAGE, USAGE } from "./usage.ts";

/** A command: parse its flags, do the work, return the exit code. */
export type Command = (args: string[], io: Io) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  setup: async () => (await import("./commands/setup.ts")).setup,
  status: async () => (await import("./commands/status.ts")).status,
  uninstall: async () => (await import("./commands/uninstall.ts")).uninstall,
  start: async () => (await import("./commands/service.ts")).start,
  stop: async () => (await import("./commands/service.ts")).stop,
  restart: async () => (await import("./commands/service.ts")).restart,
  connect: async () => (await import("./commands/connect.ts")).connect,
  disconnect: async () => (await import("./commands/connect.ts")).disconnect,
  bootstrap: async () => (await import("./commands/bootstrap.ts")).bootstrap,
  recall: async () => (await import("./commands/recall.ts")).recall,
  capture: async () => (await import("./commands/capture.ts")).capture,
  inbox: async () => (await import("./commands/inbox.ts")).inbox,
  hooks: async () => (await import("./commands/hooks.ts")).hooks,
  export: async () => (await import("./commands/data.ts")).exportCmd,
  import: async () => (await import("./commands/data.ts")).importCmd,
  search: async () => (await import("./commands/data.ts")).search,
  add: async () => (await import("./commands/data.ts")).add,
  reembed: async () => (await import("./commands/data.ts")).reembed,
  backup: async () => (await import("./commands/data.ts")).backup,
  list: async () => (await import("./commands/manage.ts")).list,
  get: async () => (await import("./commands/manage.ts")).get,
  update: async () => (await import("./commands/manage.ts")).update,
  replace: async () => (await import("./commands/manage.ts")).replace,
  forget: async () => (await import("./commands/manage.ts")).forget,
  expansion: async () => (await import("./commands/expansion.ts")).expansion,
  version: async () => (await import("./commands/version.ts")).version,
};

/** Run `memcli` with `args`; returns the exit code. */
export async function main(args: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = args;
  try {
    if (name === undefined) {
      io.err(USAGE);
      return 1;
    }
    if (name === "--help" || name === "-h") {
      io.out(USAGE);
      return 0;
    }
    if (name === "--version" || name === "-V") {
      io.out(`memcli v${VERSION}\n`);
      return 0;
    }
    if (name === "help") {
      if (rest.length === 0) {
        io.out(USAGE);
        return 0;
      }
      const text = COMMAND_USAGE[rest[0]];
      if (!text || rest.length > 1) {
        throw new UsageError(`unknown command '${rest.join(" ")}'`, "");
      }
      io.out(text);
      return 0;
    }
    const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!load) {
      const near = closest(name.replace(/^-+/, ""), Object.keys(COMMANDS));
      const also = near && !name.startsWith("-") ? ` (did you mean '${near}'?)` : "";
      throw new UsageError(
        name.startsWith("-") ? `unknown flag ${name}` : `unknown command '${name}'${also}`,
        "",
      );
    }
    const cmd = await load();
    return await cmd(rest, io);
  } catch (err) {
    // A usage error of a subcommand (`expansion clear`) names it, as the user typed it.
    const where = err instanceof UsageError && name && err.command.startsWith(`${name} `)
      ? `memcli ${err.command}`
      : name && Object.hasOwn(COMMANDS, name)
      ? `memcli ${name}`
      : "memcli";
    if (err instanceof UsageError) {
      const hint = err.command ? `memcli ${err.command} --help` : "memcli --help";
      io.err(`${where}: ${err.message}\nRun '${hint}' for usage.\n`);
      return 1;
    }
    if (err instanceof MemoryError || err instanceof ConfigError) {
      io.err(`${where}: ${err.message}\n`);
      return 1;
    }
    io.err(`${where}: ${describeError(err)}\n`);
    return 1;
  }
}
