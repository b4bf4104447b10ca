/**
 * The permission set of `msgcli` for a configuration: the API and OAuth token hosts and the
 * proxy, the loopback names (the login callback listens on localhost; `msgcli serve`
 * listens on 127.0.0.1), the credentials directory, the working directory for reading
 * `--system-file` and `--history` files, the browser opener for `login`, and its
 * variables. `msgcli serve` then narrows itself to the daemon's set (src/serve/run.ts).
 * @module
 */
import type { PermissionPlan } from "../permissions.ts";
import type { MsgConfig } from "./config.ts";
import { credentialsDir, hostPort, SERVE_ENV_VARS } from "../serve/permissions.ts";

/** Variables `msgcli` reads beyond the daemon's. */
export const MSGCLI_ENV_VARS: readonly string[] = [
  ...SERVE_ENV_VARS,
  "MSGCLI_NO_BROWSER",
  "DISPLAY",
  "WAYLAND_DISPLAY",
];

/** Programs that open the login page in a browser (Linux and BSDs, macOS). */
export const BROWSER_OPENERS: readonly string[] = ["xdg-open", "open"];

/** The permissions `msgcli` needs for `cfg`. */
export function msgcliPlan(cfg: MsgConfig): PermissionPlan {
  const creds = credentialsDir(cfg);
  const net = ["127.0.0.1", "localhost"];
  for (const u of [cfg.apiBaseUrl, cfg.tokenUrl, cfg.proxy]) {
    if (u !== undefined && !net.includes(hostPort(u))) net.push(hostPort(u));
  }
  return {
    net,
    read: [".", creds],
    write: [creds],
    env: [...MSGCLI_ENV_VARS],
    run: [...BROWSER_OPENERS],
  };
}
