/**
 * Shared plumbing of the `msgcli` commands that reach upstream: the configuration of one run
 * (environment, `--proxy` resolved once, `--debug`, `login --out`), the debug log, the one
 * upstream client of the process, and the Messages API client on them.
 * @module
 */

import { MessagesClient } from "../msg/api.ts";
import { loadMsgConfig, type MsgConfig } from "../msg/config.ts";
import { CredentialStore } from "../msg/credentials.ts";
import { createUpstreamFetch, type UpstreamFetch } from "../msg/http.ts";
import { heldPermissions, msgcliPlan } from "../permissions.ts";
import { commandFiles, type ParsedCommand } from "./args.ts";
import type { CliIO } from "./io.ts";

/** What a command run holds: its configuration, upstream client and debug log. */
export interface Runtime {
  cfg: MsgConfig;
  upstream: UpstreamFetch;
  debugLog: (s: string) => void;
}

/**
 * Runs `run` on the runtime of command `p` (credentials at `credentialsPath` when given) and
 * closes the upstream client afterwards. The proxy is resolved here, once per invocation.
 */
export async function withRuntime<T>(
  p: ParsedCommand,
  io: CliIO,
  run: (rt: Runtime) => Promise<T>,
  credentialsPath?: string,
): Promise<T> {
  const cfg = loadMsgConfig(io.env, p.proxyFlag);
  if (p.debug) cfg.debug = true;
  if (credentialsPath !== undefined) cfg.credentialsPath = credentialsPath;
  const debugLog = (s: string) => {
    if (cfg.debug) {
      void io.stderr(`${s.startsWith("[msgcli debug]") ? s : `[msgcli debug] ${s}`}\n`);
    }
  };
  debugLog(`permissions: ${heldPermissions(msgcliPlan(cfg, commandFiles(p), Deno.cwd()), true)}`);
  const upstream = createUpstreamFetch({
    proxy: cfg.proxy,
    debug: cfg.debug,
    log: (s) => void io.stderr(s + "\n"),
  });
  try {
    return await run({ cfg, upstream, debugLog });
  } finally {
    upstream.close();
  }
}

/** The API client of one command run, on the run's config, upstream client and credentials. */
export function messagesClient(rt: Runtime): MessagesClient {
  return new MessagesClient({
    config: rt.cfg,
    fetch: rt.upstream.fetch,
    store: new CredentialStore(rt.cfg.credentialsPath),
    log: rt.debugLog,
  });
}
