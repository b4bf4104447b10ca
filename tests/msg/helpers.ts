/**
 * Helpers for the msgcli suites: run the real entrypoint as a subprocess with the `msgcli`
 * task's permissions, temp credentials, and real proxies (tinyproxy, dante) on loopback.
 *
 * @module
 */

import { finishChild } from "../../src/common/shell.ts";
import { permissionFlagsFor } from "../../src/programs.ts";
import {
  type FakeAnthropic,
  type FakeAnthropicOptions,
  startFakeAnthropic,
} from "../fakes/anthropic.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
export const ENTRY = `${ROOT}src/bin/msgcli.ts`;

/**
 * The permission flags the `msgcli` task and the installed msgcli start it with for `env`
 * and `args` (fake upstreams, temp credentials, the files named): src/programs.ts.
 */
export function taskPermissions(
  env: Record<string, string> = baseEnv(),
  args: string[] = [],
): string[] {
  return permissionFlagsFor("msgcli", { env: (n) => env[n], args, cwd: Deno.cwd() });
}

const PROXY_VARS = [
  "HTTPS_PROXY",
  "https_proxy",
  "ALL_PROXY",
  "all_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
];

/** Base environment: the parent's without proxy and MSGCLI_* variables. */
export function baseEnv(): Record<string, string> {
  const env = Deno.env.toObject();
  for (const k of Object.keys(env)) {
    if (PROXY_VARS.includes(k) || k.startsWith("MSGCLI_")) delete env[k];
  }
  env.MSGCLI_NO_BROWSER = "1";
  env.NO_COLOR = "1";
  return env;
}

/** Result of a finished msgcli run. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link runMsgcli}. */
export interface RunOptions {
  env?: Record<string, string>;
  stdin?: string;
}

/** Spawns `deno run <task perms> src/bin/msgcli.ts ...args`. */
export function spawnMsgcli(args: string[], opts: RunOptions = {}): Deno.ChildProcess {
  const env = { ...baseEnv(), ...(opts.env ?? {}) };
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...taskPermissions(env, args), ENTRY, ...args],
    env,
    clearEnv: true,
    stdin: opts.stdin !== undefined ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs msgcli to completion. */
export async function runMsgcli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return await finishChild(spawnMsgcli(args, opts), opts.stdin);
}

/** A temporary directory removed by `cleanup()`. */
export async function tempDir(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "msgcli_test_" });
  return { dir, cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}) };
}

/** Writes a credentials file (mode 0600) with a fresh token pair from the fake. */
export async function seedCredentials(
  fake: FakeAnthropic,
  path: string,
  opts: { expiresInMs?: number; mode?: number } = {},
): Promise<{ accessToken: string; refreshToken: string; expiresAt: number }> {
  const t = fake.issueTokens();
  const creds = {
    accessToken: t.accessToken,
    refreshToken: t.refreshToken,
    expiresAt: Date.now() + (opts.expiresInMs ?? 3600_000),
  };
  await Deno.writeTextFile(path, JSON.stringify(creds), { mode: 0o600 });
  await Deno.chmod(path, opts.mode ?? 0o600);
  return creds;
}

/** MSGCLI_* environment pointing at the fake and the credentials path. */
export function fakeEnv(fake: FakeAnthropic, credentialsPath: string): Record<string, string> {
  return { ...fake.env, MSGCLI_CREDENTIALS_PATH: credentialsPath };
}

/** A free loopback TCP port (bind port 0, read it, close). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      c.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error(`${what} did not start listening on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

/** Finds an executable on PATH or in the sbin dirs; throws a clear error when missing. */
export function requireBinary(name: string, pkg: string): string {
  const dirs = [
    ...(Deno.env.get("PATH") ?? "").split(":"),
    "/usr/sbin",
    "/sbin",
    "/usr/local/sbin",
  ];
  for (const d of dirs) {
    if (!d) continue;
    try {
      const p = `${d}/${name}`;
      const st = Deno.statSync(p);
      if (st.isFile) return p;
    } catch {
      // next
    }
  }
  throw new Error(
    `${name} not found: install Debian's ${pkg} (apt-get install -y ${pkg}); .ci/run installs it`,
  );
}

/** A running proxy process with its log. */
export interface RunningProxy {
  url: string;
  port: number;
  log(): Promise<string>;
  close(): Promise<void>;
}

async function stopChild(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    // already gone
  }
  await child.status;
}

/** Starts tinyproxy (HTTP proxy) with BasicAuth on a free loopback port. */
export async function startTinyproxy(
  user: string,
  pass: string,
): Promise<RunningProxy> {
  const bin = requireBinary("tinyproxy", "tinyproxy");
  const { dir, cleanup } = await tempDir();
  const port = freePort();
  const logFile = `${dir}/tinyproxy.log`;
  await Deno.writeTextFile(
    `${dir}/tinyproxy.conf`,
    [
      `Port ${port}`,
      `Listen 127.0.0.1`,
      `Timeout 30`,
      `LogFile "${logFile}"`,
      `LogLevel Info`,
      `MaxClients 50`,
      `Allow 127.0.0.1`,
      `BasicAuth ${user} ${pass}`,
      "",
    ].join("\n"),
  );
  const child = new Deno.Command(bin, {
    args: ["-d", "-c", `${dir}/tinyproxy.conf`],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitForPort(port, 5000, "tinyproxy");
  } catch (e) {
    await stopChild(child);
    await cleanup();
    throw e;
  }
  return {
    url: `http://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    port,
    log: () => Deno.readTextFile(logFile).catch(() => ""),
    async close() {
      await stopChild(child);
      await cleanup();
    },
  };
}

/** Starts dante (`danted`, SOCKS5, no auth) on a free loopback port. */
export async function startDante(): Promise<RunningProxy> {
  const bin = requireBinary("danted", "dante-server");
  const { dir, cleanup } = await tempDir();
  const port = freePort();
  const logFile = `${dir}/danted.log`;
  const root = Deno.uid() === 0;
  await Deno.writeTextFile(
    `${dir}/danted.conf`,
    [
      `logoutput: ${logFile}`,
      `internal: 127.0.0.1 port = ${port}`,
      `external: 127.0.0.1`,
      `clientmethod: none`,
      `socksmethod: none`,
      ...(root ? ["user.privileged: root", "user.unprivileged: nobody"] : []),
      `client pass {`,
      `  from: 127.0.0.1/32 to: 0.0.0.0/0`,
      `  log: connect disconnect error`,
      `}`,
      `socks pass {`,
      `  from: 127.0.0.1/32 to: 0.0.0.0/0`,
      `  command: connect`,
      `  log: connect disconnect error`,
      `}`,
      "",
    ].join("\n"),
  );
  const child = new Deno.Command(bin, {
    args: ["-f", `${dir}/danted.conf`, "-p", `${dir}/danted.pid`, "-N", "1"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitForPort(port, 5000, "danted");
  } catch (e) {
    await stopChild(child);
    await cleanup();
    throw e;
  }
  return {
    url: `socks5://127.0.0.1:${port}`,
    port,
    log: () => Deno.readTextFile(logFile).catch(() => ""),
    async close() {
      await stopChild(child);
      await cleanup();
    },
  };
}

/**
 * A fake upstream and a temp config directory `<tmp>/msgcli` (0700) for the credentials and
 * the background daemon's files; disposing stops any daemon started there (`serve stop`),
 * the fake, and removes the directory.
 */
export async function configDirSetup(
  opts: { withCredentials?: boolean; fake?: FakeAnthropicOptions } = {},
) {
  const fake = startFakeAnthropic(opts.fake ?? {});
  const tmp = await tempDir();
  const dir = `${tmp.dir}/msgcli`;
  await Deno.mkdir(dir, { mode: 0o700 });
  const creds = `${dir}/credentials.json`;
  if (opts.withCredentials) await seedCredentials(fake, creds);
  const env = fakeEnv(fake, creds);
  return {
    fake,
    tmp: tmp.dir,
    dir,
    creds,
    env,
    async [Symbol.asyncDispose]() {
      // Never leave a daemon behind, whatever the test did.
      await runMsgcli(["serve", "stop"], { env });
      await fake.close();
      await tmp.cleanup();
    },
  };
}
