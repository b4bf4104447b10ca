/**
 * `msgcli run [--listen ADDR] -- COMMAND [ARGS...]`: the launcher of a client of the daemon.
 * Starts `msgcli serve` in the background when none recorded next to the credentials file
 * answers (src/serve/control.ts), then runs COMMAND with `ANTHROPIC_BASE_URL` set to the
 * daemon and `ANTHROPIC_AUTH_TOKEN` set to the daemon key (`MSGCLI_SERVE_KEY`), or to a
 * placeholder when the daemon has no key (the SDKs and Claude Code want some credential; the
 * daemon ignores it and never forwards it). Standard streams are the terminal's, signals are
 * passed on, and COMMAND's exit code is msgcli's (127 when it cannot be started).
 * @module
 */

import { exitCodeOf, forwardSignals } from "../../process.ts";
import { loadMsgConfig } from "../../msg/config.ts";
import { DEFAULT_LISTEN, parseServeFlags } from "../../serve/flags.ts";
import { clientUrl } from "../../common/net.ts";
import { healthText, serveFiles, startServe } from "../../serve/control.ts";
import { planPermissions } from "../../serve/permissions.ts";
import type { ParsedCommand } from "../args.ts";
import type { CliIO } from "../io.ts";

/** `ANTHROPIC_AUTH_TOKEN` for a daemon without a key (never sent upstream). */
export const NO_KEY_TOKEN = "msgcli-serve-no-key";

/** Runs `msgcli run`; returns COMMAND's exit code. */
export async function run(p: ParsedCommand, io: CliIO): Promise<number> {
  const [cmd, ...cmdArgs] = p.runArgs ?? [];
  const daemonArgs = ["--listen", p.listen ?? DEFAULT_LISTEN];
  if (p.proxyFlag !== undefined) daemonArgs.push("--proxy", p.proxyFlag);
  // The daemon's flags as it will parse them (its key from MSGCLI_SERVE_KEY).
  const flags = parseServeFlags(daemonArgs, io.env);
  const cfg = loadMsgConfig(io.env, p.proxyFlag);
  const files = serveFiles(cfg.credentialsPath);
  const started = await startServe({
    files,
    url: clientUrl(flags.listen.hostname, flags.listen.port),
    args: daemonArgs,
    plan: planPermissions(flags.listen, cfg),
  });
  if (!started.ok) throw new Error(`cannot start msgcli serve: ${started.message}`);
  if (!started.already) {
    await io.stderr(`msgcli run: started msgcli serve (pid ${started.pid}) on ${started.url}\n`);
  }
  if ("error" in started.health || started.health.body.status !== "ok") {
    await io.stderr(`msgcli run: msgcli serve: ${healthText(started.health)}\n`);
  }
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(cmd, {
      args: cmdArgs,
      env: {
        ANTHROPIC_BASE_URL: started.url,
        ANTHROPIC_AUTH_TOKEN: flags.authKey ?? NO_KEY_TOKEN,
      },
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound ? "command not found" : (e as Error).message;
    await io.stderr(`msgcli run: cannot run ${JSON.stringify(cmd)}: ${why}\n`);
    return 127;
  }
  const stop = forwardSignals(() => child);
  try {
    return exitCodeOf(await child.status);
  } finally {
    stop();
  }
}
