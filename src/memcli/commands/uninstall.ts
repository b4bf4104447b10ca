/**
 * `memcli uninstall [--purge]`: stop the daemon (SIGTERM, wait, SIGKILL) and keep the
 * data; with `--purge`, delete DATA_DIR only after the user types its full path at an
 * interactive prompt.
 * @module
 */
import { join } from "node:path";
import { exists } from "../../common/fs.ts";
import { intFlag, parseFlags } from "../args.ts";
import { configOf, layoutOf } from "../context.ts";
import { checkDaemon, clearPidFiles, stopDaemon } from "../daemon.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";

/** Run `memcli uninstall`. */
export async function uninstall(args: string[], io: Io): Promise<number> {
  const p = parseFlags("uninstall", args, {
    purge: { type: "boolean" },
    timeout: { type: "string" },
  });
  if (p.help) {
    io.out(COMMAND_USAGE.uninstall);
    return 0;
  }
  const timeoutS = intFlag("uninstall", "timeout", p.values.timeout, 1, 3600) ?? 10;
  const cfg = configOf(io);
  const layout = layoutOf(cfg.dataDir);

  const check = await checkDaemon(layout);
  if (check.kind === "running") {
    const how = await stopDaemon(check.pid, timeoutS * 1000);
    if (how === "failed") {
      io.err(`memcli uninstall: could not stop the admin daemon (pid ${check.pid})\n`);
      return 1;
    }
    await clearPidFiles(layout);
    io.out(
      how === "stopped"
        ? `Stopped the admin daemon (pid ${check.pid}).\n`
        : `The admin daemon (pid ${check.pid}) ignored SIGTERM for ${timeoutS} s and was killed.\n`,
    );
  } else if (check.kind === "stale") {
    await clearPidFiles(layout);
    io.out(`The admin daemon was not running (removed a stale pid file for pid ${check.pid}).\n`);
  } else {
    io.out(`No admin daemon started by memcli is running for ${layout.dataDir}.\n`);
  }

  if (!p.values.purge) {
    io.out(`All data is kept in ${layout.dataDir}; start again with 'memcli setup'.\n`);
    return 0;
  }
  return await purge(layout.dataDir, io, Boolean(cfg.databaseUrl));
}

async function purge(dataDir: string, io: Io, postgres: boolean): Promise<number> {
  if (!(await exists(dataDir))) {
    io.out(`Nothing to purge: ${dataDir} does not exist.\n`);
    return 0;
  }
  const home = io.env("HOME") ?? io.env("USERPROFILE");
  if (dataDir === "/" || (home && dataDir.replace(/\/+$/, "") === home.replace(/\/+$/, ""))) {
    io.err(`memcli uninstall: refusing to purge ${dataDir} (root or home directory)\n`);
    return 1;
  }
  const owner = await databaseOwner(dataDir);
  if (owner !== null) {
    io.err(
      `memcli uninstall: the embedded database in ${join(dataDir, "db")} is in use by a ` +
        `running process (pid ${owner}) that memcli did not start; stop it first; nothing deleted\n`,
    );
    return 1;
  }
  if (!io.stdinIsTerminal()) {
    io.err(
      "memcli uninstall: --purge needs an interactive terminal to confirm; nothing deleted\n",
    );
    return 1;
  }
  io.err(
    `This deletes ALL memories and files in the data directory:\n  ${dataDir}\n` +
      (postgres ? "(The Postgres database named by DATABASE_URL is not touched.)\n" : "") +
      "Type the full path to confirm: ",
  );
  const answer = (await io.readLine())?.trim();
  if (!answer || answer.replace(/(.)\/+$/, "$1") !== dataDir) {
    io.err(
      `memcli uninstall: ${answer ? "the answer did not match" : "no answer"}; nothing deleted\n`,
    );
    return 1;
  }
  await Deno.remove(dataDir, { recursive: true });
  io.out(`Deleted ${dataDir}.\n`);
  return 0;
}

/**
 * The pid recorded by a process that holds the embedded database's owner lock
 * (`db/mneme.lock`, see src/memory/open.ts), or null when no process holds it.
 */
async function databaseOwner(dataDir: string): Promise<string | null> {
  const path = join(dataDir, "db", "mneme.lock");
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return null; // never opened, or unreadable: nothing to protect
  }
  try {
    if (await file.tryLock(true)) {
      await file.unlock();
      return null;
    }
    const pid = (await Deno.readTextFile(path).catch(() => "")).trim();
    return pid || "unknown";
  } finally {
    file.close();
  }
}
