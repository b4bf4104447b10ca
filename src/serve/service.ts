/**
 * The service commands of `msgcli serve` (start, stop, restart, status, enable, disable),
 * loaded by `runServe` only when one is given, so the daemon itself never loads them.
 * @module
 */

import type { EnvGetter, MsgConfig } from "../msg/config.ts";
import { clientUrl } from "../common/net.ts";
import { currentHost, disableAutostart, enableAutostart } from "../common/autostart.ts";
import { SERVE_ENV_VARS } from "../permissions.ts";
import {
  AUTOSTART_NAME,
  autostartSpec,
  healthText,
  type ServeFiles,
  serveFiles,
  serveStatus,
  startServe,
  stopServe,
} from "./control.ts";
import { type ServeAction, type ServeFlags, withoutAuthKey } from "./flags.ts";
import { planPermissions } from "./permissions.ts";

/**
 * `msgcli serve start|stop|restart|status`: the daemon as a background service
 * (src/serve/control.ts). Exit codes: 0 done (status: running and ok), 1 start failed,
 * 2 status: running but not ok, 3 status: not running.
 */
export async function serveCommand(
  action: ServeAction,
  args: string[],
  flags: ServeFlags,
  config: MsgConfig,
  env: EnvGetter,
): Promise<number> {
  const files = serveFiles(config.credentialsPath);
  if (action === "enable" || action === "disable") {
    return await atLogin(action, args, flags, config, env, files);
  }
  if (action === "status") {
    const s = await serveStatus(files, clientUrl(flags.listen.hostname, flags.listen.port));
    console.log(`msgcli serve: ${s.line}`);
    return s.code;
  }
  if (action === "stop" || action === "restart") {
    const line = await stopServe(files);
    if (action === "stop" || line.startsWith("could not")) {
      console.log(`msgcli serve: ${line}`);
      return line.startsWith("could not") ? 1 : 0;
    }
  }
  const r = await startServe({
    files,
    url: clientUrl(flags.listen.hostname, flags.listen.port),
    args: withoutAuthKey(args.filter((a) => a !== action)).args,
    ...(flags.authKey !== undefined ? { key: flags.authKey } : {}),
    plan: planPermissions(flags.listen, config),
  });
  if (!r.ok) {
    console.error(`msgcli serve: ${r.message}`);
    return 1;
  }
  console.log(
    `msgcli serve: ${r.already ? "already running" : "started"}${
      r.pid > 0 ? ` (pid ${r.pid})` : ""
    } on ${r.url}: ${healthText(r.health)}
Log: ${files.logFile}
Point clients at it: ANTHROPIC_BASE_URL=${r.url}` +
      (flags.authKey !== undefined ? " (and the key as ANTHROPIC_API_KEY)" : ""),
  );
  return 0;
}

/**
 * `msgcli serve enable|disable`: the daemon started at login (src/common/autostart.ts), with
 * the same command and permissions as `start`, its output in `serve.log`.
 */
async function atLogin(
  action: "enable" | "disable",
  args: string[],
  flags: ServeFlags,
  config: MsgConfig,
  env: EnvGetter,
  files: ServeFiles,
): Promise<number> {
  const host = currentHost(env);
  if (action === "disable") {
    const r = await disableAutostart(AUTOSTART_NAME, { host });
    console.log(
      r.changed
        ? `msgcli serve: no longer started at login (${r.steps.join("; ")})`
        : "msgcli serve: was not set to start at login",
    );
    return 0;
  }
  const spec = autostartSpec(
    files,
    withoutAuthKey(args.filter((a) => a !== action)).args,
    planPermissions(flags.listen, config),
    (n) => (n === "MSGCLI_SERVE_KEY" ? flags.authKey : env(n)),
    SERVE_ENV_VARS,
  );
  const r = await enableAutostart(spec, { host });
  if (r.kind === "manual") {
    console.log(r.manual ?? "");
    return 0;
  }
  console.log(
    `msgcli serve: starts at login (${r.kind}: ${r.file})${
      r.changed ? `; done: ${r.steps.join("; ")}` : "; already set up"
    }\nIt starts at your next login; to start it now, run: ${
      r.kind === "systemd"
        ? `systemctl --user start ${AUTOSTART_NAME}`
        : `launchctl kickstart gui/$(id -u)/${AUTOSTART_NAME}`
    }`,
  );
  return 0;
}
