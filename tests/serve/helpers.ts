/** Shared helpers of the serve tests: temp credentials, an in-process daemon on a fake upstream. */

import {
  type FakeAnthropic,
  type FakeAnthropicOptions,
  startFakeAnthropic,
} from "../fakes/anthropic.ts";
import { type DaemonHandle, type DaemonOptions, startDaemon } from "../../src/serve/daemon.ts";
import { parseServeFlags } from "../../src/serve/flags.ts";

export interface Creds {
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}

/** Writes a 0600 credentials file in a new temp dir; returns its path. */
export async function writeCredentials(creds: Creds, dir?: string): Promise<string> {
  const d = dir ?? await Deno.makeTempDir({ prefix: "msgcli-serve-test-" });
  const path = `${d}/credentials.json`;
  await Deno.writeTextFile(path, JSON.stringify(creds), { mode: 0o600 });
  await Deno.chmod(path, 0o600);
  return path;
}

export async function readCredentials(path: string): Promise<Creds> {
  return JSON.parse(await Deno.readTextFile(path));
}

export interface Rig {
  fake: FakeAnthropic;
  daemon: DaemonHandle;
  credsPath: string;
  logs: string[];
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the fake upstream and an in-process daemon on 127.0.0.1:0 with a credentials file
 * holding a token the fake issued (`ttlSec` lifetime).
 */
export async function startRig(opts: {
  fake?: FakeAnthropicOptions;
  args?: string[];
  ttlSec?: number;
  creds?: (fake: FakeAnthropic) => Creds;
  daemon?: Partial<DaemonOptions>;
  env?: Record<string, string>;
} = {}): Promise<Rig> {
  const fake = startFakeAnthropic(opts.fake ?? {});
  const ttl = opts.ttlSec ?? 3600;
  const creds = opts.creds?.(fake) ?? (() => {
    const t = fake.issueTokens(ttl);
    return {
      accessToken: t.accessToken,
      refreshToken: t.refreshToken,
      expiresAt: Date.now() + ttl * 1000,
    };
  })();
  const credsPath = await writeCredentials(creds);
  const env: Record<string, string> = {
    ...fake.env,
    MSGCLI_CREDENTIALS_PATH: credsPath,
    ...(opts.env ?? {}),
  };
  const logs: string[] = [];
  const getEnv = (n: string) => env[n];
  const daemon = await startDaemon({
    flags: parseServeFlags(["--listen", "127.0.0.1:0", ...(opts.args ?? [])], getEnv),
    env: getEnv,
    log: (m) => logs.push(m),
    ...(opts.daemon ?? {}),
  });
  return {
    fake,
    daemon,
    credsPath,
    logs,
    url: daemon.url,
    async close() {
      await daemon.shutdown();
      await fake.close();
      await Deno.remove(credsPath.replace(/\/credentials\.json$/, ""), { recursive: true }).catch(
        () => {},
      );
    },
  };
}

export const MESSAGE = {
  model: "claude-sonnet-4-6",
  max_tokens: 64,
  messages: [{ role: "user", content: "hello there" }],
};

export function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
