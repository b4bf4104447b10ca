/**
 * The real entrypoint as a subprocess: the permission lock (re-exec with exactly the
 * daemon's permissions, proven by a probe that tries things outside them), signals and
 * graceful drain, startup refusals.
 */
import assert from "node:assert/strict";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { loadMsgConfig } from "../../src/msg/config.ts";
import { parseListen } from "../../src/serve/flags.ts";
import { permissionFlags, planPermissions, SERVE_ENV_VARS } from "../../src/serve/permissions.ts";
import { findProgram, SERVE_V8_FLAGS } from "../../src/programs.ts";
import { MESSAGE, post, writeCredentials } from "./helpers.ts";
import { childPids } from "../reliability/chunk_flood.ts";

const ENTRY = new URL("../../src/bin/serve.ts", import.meta.url).pathname;
const DENO = Deno.execPath();

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { HOME: Deno.env.get("HOME") ?? "/root", ...extra };
  for (const k of ["DENO_DIR", "PATH", "NO_COLOR"]) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  env.NO_COLOR = "1";
  return env;
}

function spawnServe(permFlags: string[], args: string[], env: Record<string, string>) {
  return new Deno.Command(DENO, {
    args: ["run", ...permFlags, ENTRY, ...args],
    env: baseEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads stderr lines until one matches; returns the match and keeps the rest flowing. */
async function waitForLine(
  stream: ReadableStream<Uint8Array>,
  re: RegExp,
  timeoutMs = 15_000,
): Promise<{ match: RegExpMatchArray; lines: string[]; rest: Promise<string> }> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  const lines: string[] = [];
  let buf = "";
  const deadline = setTimeout(() => reader.cancel(new Error("timeout")), timeoutMs);
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`stream ended before ${re}: ${lines.join("\n")}${buf}`);
      buf += value;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        const m = line.match(re);
        if (m) {
          clearTimeout(deadline);
          const rest = (async () => {
            let out = buf;
            while (true) {
              const r = await reader.read();
              if (r.done) return out;
              out += r.value;
            }
          })();
          return { match: m, lines, rest };
        }
      }
    }
  } catch (err) {
    clearTimeout(deadline);
    throw err;
  }
}

Deno.test("permission lock: the re-executed daemon holds exactly its permissions, nothing else", async () => {
  const fake = startFakeAnthropic();
  const outside = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("should not be reachable"),
  );
  const t = fake.issueTokens(3600);
  const credsPath = await writeCredentials({ ...t, expiresAt: Date.now() + 3600_000 });
  try {
    const child = spawnServe(
      ["-A"],
      ["--listen", "127.0.0.1:0", "--permission-probe", `http://127.0.0.1:${outside.addr.port}/`],
      { ...fake.env, MSGCLI_CREDENTIALS_PATH: credsPath },
    );
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const probe = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.deepEqual(probe.broad, [], "no unscoped permission at all");
    const port = new URL(fake.url).port;
    assert.deepEqual(probe.granted, {
      "net:127.0.0.1:0": "granted",
      [`net:127.0.0.1:${port}`]: "granted",
      [`read:${credsPath.replace(/\/credentials\.json$/, "")}`]: "granted",
      [`write:${credsPath.replace(/\/credentials\.json$/, "")}`]: "granted",
    });
    for (const [what, outcome] of Object.entries(probe.attempts)) {
      assert.equal(outcome, "denied", what);
    }
    assert.equal(Object.keys(probe.attempts).length, 7);
  } finally {
    await outside.shutdown();
    await fake.close();
  }
});

Deno.test("the serve task and msgcli serve start the daemon with exactly its set for their flags", () => {
  const env = (n: string) => (n === "HOME" ? "/home/you" : undefined);
  const cfg = loadMsgConfig(env);
  for (const [name, args] of [["serve", []], ["msgcli", ["serve"]]] as const) {
    const launch = findProgram(name)!.launch({ env, args: [...args], cwd: "/" });
    assert.equal(launch.entry, "src/bin/serve.ts");
    assert.deepEqual(launch.denoFlags, ["--no-prompt", "--unstable-no-legacy-abort"]);
    assert.deepEqual(launch.plan, planPermissions(parseListen("127.0.0.1:8787"), cfg));
  }
  // Another listen address is granted; the key moves off the command line into the env.
  const launch = findProgram("msgcli")!.launch({
    env,
    args: ["serve", "--listen", "127.0.0.2:9000", "--auth-key", "k-1", "--debug"],
    cwd: "/",
  });
  assert.deepEqual(launch.args, ["--listen", "127.0.0.2:9000", "--debug"]);
  assert.deepEqual(launch.env, { MSGCLI_SERVE_KEY: "k-1", DENO_V8_FLAGS: SERVE_V8_FLAGS });
  assert.equal(launch.plan.net[0], "127.0.0.2:9000");
  assert.doesNotMatch(
    permissionFlags(launch.plan).join(" "),
    /--allow-(run|ffi|sys|all)|-A\b|--allow-(read|write|env|net)(\s|$)/,
  );
});

Deno.test("narrow permissions that miss the configuration: exit 1 with the exact command", async () => {
  const child = spawnServe(
    ["--no-prompt", "--allow-net=127.0.0.1:8787", `--allow-env=${SERVE_ENV_VARS.join(",")}`],
    ["--listen", "127.0.0.1:9"],
    { MSGCLI_CREDENTIALS_PATH: "/nonexistent/msgcli/credentials.json" },
  );
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 1, stderr);
  assert.match(
    stderr,
    /needs permissions the process was not given \(net:127\.0\.0\.1:9, net:api\.anthropic\.com:443/,
  );
  assert.match(
    stderr,
    /Start it with exactly: deno run --no-prompt --unstable-no-legacy-abort --allow-net=127\.0\.0\.1:9,api\.anthropic\.com:443,platform\.claude\.com:443 --allow-read=\/nonexistent\/msgcli --allow-write=\/nonexistent\/msgcli --allow-env=HOME,/,
  );
});

Deno.test("the printed start command hides the auth key and the proxy password", async () => {
  const args = [
    "--listen",
    "127.0.0.1:9",
    "--auth-key",
    "sekrit-daemon-key",
    "--proxy=http://alice:pw-s3cret@127.0.0.1:3128",
  ];
  const env = { MSGCLI_CREDENTIALS_PATH: "/nonexistent/msgcli/credentials.json" };
  const narrow = await spawnServe(
    ["--no-prompt", "--allow-net=127.0.0.1:8787", `--allow-env=${SERVE_ENV_VARS.join(",")}`],
    args,
    env,
  ).output();
  const broad = await spawnServe(
    ["--no-prompt", "--allow-env", "--allow-read", "--allow-net=127.0.0.1:9"],
    [...args, "--permission-probe", "http://127.0.0.1:9/"],
    env,
  ).output();
  for (
    const [out, re] of [[narrow, /Start it with exactly: /], [broad, /start it with: /]] as const
  ) {
    const stderr = new TextDecoder().decode(out.stderr);
    assert.match(stderr, re);
    assert.match(stderr, /--auth-key '<key>'/);
    assert.match(stderr, /--proxy=http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:3128/);
    assert.ok(!stderr.includes("sekrit-daemon-key"), "auth key printed");
    assert.ok(!stderr.includes("pw-s3cret"), "proxy password printed");
  }
});

Deno.test("unscoped permissions without --allow-run: runs, but warns that it is not locked", async () => {
  const out = await spawnServe(["--no-prompt", "--allow-env", "--allow-net=127.0.0.1:9"], [
    "--listen",
    "127.0.0.1:9",
    "--help",
  ], {}).output();
  assert.equal(out.code, 0);
  const warn = await spawnServe(
    ["--no-prompt", "--allow-env", "--allow-read", "--allow-net=127.0.0.1:0"],
    ["--listen", "127.0.0.1:0", "--permission-probe", "http://127.0.0.1:9/"],
    { MSGCLI_CREDENTIALS_PATH: "/nonexistent/msgcli/credentials.json" },
  ).output();
  const stderr = new TextDecoder().decode(warn.stderr);
  assert.match(stderr, /warning: running without the permission lock \(holds unscoped read, env/);
  const probe = JSON.parse(new TextDecoder().decode(warn.stdout));
  assert.deepEqual(probe.broad, ["read", "env"]);
  assert.equal(probe.attempts["read /etc/hosts"], "allowed");
});

Deno.test("startup refusals: non-loopback without key, unknown flag, bad proxy", async () => {
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [
      ["--listen", "0.0.0.0:8787"],
      {},
      /refusing to listen on non-loopback address 0\.0\.0\.0:8787 without an auth key/,
    ],
    [["--bogus"], {}, /Unknown option '--bogus'[\s\S]*msgcli serve --help/],
    [["--proxy", "ftp://x"], {}, /--proxy: unsupported proxy scheme "ftp"/],
  ];
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const busyPort = (busy.addr as Deno.NetAddr).port;
  cases.push([["--listen", `127.0.0.1:${busyPort}`], {
    MSGCLI_CREDENTIALS_PATH: "/nonexistent/c.json",
  }, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${busyPort}: .*in use`, "i")]);
  for (const [args, env, re] of cases) {
    const t0 = performance.now();
    const out = await spawnServe(["-A"], args, env).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.match(stderr, re);
    assert.ok(performance.now() - t0 < 10_000);
  }
  busy.close();
});

Deno.test("SIGTERM: the locked daemon drains a stream in flight, then exits 0", async () => {
  const fake = startFakeAnthropic({ streamDelayMs: 20, replyText: "y".repeat(60) });
  const t = fake.issueTokens(3600);
  const credsPath = await writeCredentials({ ...t, expiresAt: Date.now() + 3600_000 });
  const child = spawnServe(["-A"], ["--listen", "127.0.0.1:0", "--auth-key", "k"], {
    ...fake.env,
    MSGCLI_CREDENTIALS_PATH: credsPath,
  });
  try {
    const { match, rest } = await waitForLine(child.stderr, /listening on (http:\/\/[^;]+);/);
    const url = match[1];
    const h = await fetch(`${url}/healthz`);
    assert.equal(h.status, 200);
    await h.body?.cancel();
    const res = await post(`${url}/v1/messages`, { ...MESSAGE, stream: true }, {
      "x-api-key": "k",
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let text = dec.decode((await reader.read()).value);
    child.kill("SIGTERM"); // to the launcher, which forwards it to the locked daemon
    while (true) {
      const r = await reader.read();
      if (r.done) break;
      text += dec.decode(r.value, { stream: true });
    }
    assert.match(text, /event: message_stop/);
    const status = await child.status;
    const log = await rest;
    assert.equal(status.code, 0, log);
    assert.match(log, /shutting down: draining 1 in-flight/);
    assert.match(log, /stopped/);
    assert.ok(!log.includes(t.accessToken) && !log.includes(t.refreshToken), "no secrets in logs");
    await child.stdout.cancel();
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await fake.close();
  }
});

Deno.test({
  name: "a daemon that crashes after running a while is restarted by the launcher",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const fake = startFakeAnthropic();
    const t = fake.issueTokens(3600);
    const credsPath = await writeCredentials({ ...t, expiresAt: Date.now() + 3600_000 });
    const child = spawnServe(["-A"], ["--listen", "127.0.0.1:0"], {
      ...fake.env,
      MSGCLI_CREDENTIALS_PATH: credsPath,
    });
    const started = Date.now();
    try {
      const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let log = "";
      const next = async (re: RegExp) => {
        const deadline = Date.now() + 20_000;
        while (!re.test(log)) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${re}: ${log}`);
          const r = await reader.read();
          if (r.done) throw new Error(`stderr ended: ${log}`);
          log += r.value;
        }
      };
      await next(/listening on http/);
      // Past the restart threshold, kill the locked daemon as an OOM killer would.
      await new Promise((r) => setTimeout(r, Math.max(0, 5_300 - (Date.now() - started))));
      const kids = childPids(child.pid);
      assert.equal(kids.length, 1, `one locked daemon under the launcher: ${kids}`);
      Deno.kill(kids[0], "SIGKILL");
      await next(/daemon exited with SIGKILL after \d+s; restarting in 1s/);
      log = log.slice(log.indexOf("restarting in"));
      await next(/listening on (http:\/\/[^;]+);/);
      const url = /listening on (http:\/\/[^;]+);/.exec(log)![1];
      const h = await fetch(`${url}/healthz`);
      assert.equal(h.status, 200);
      await h.body?.cancel();
      child.kill("SIGTERM");
      const status = await child.status;
      assert.equal(status.code, 0);
      await reader.cancel();
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
      await child.stdout.cancel().catch(() => {});
      await fake.close();
    }
  },
});

Deno.test("the locked daemon can refresh and rotate the credentials file", async () => {
  const fake = startFakeAnthropic();
  const t = fake.issueTokens(300);
  const credsPath = await writeCredentials({ ...t, expiresAt: Date.now() + 300_000 });
  const child = spawnServe(["-A"], ["--listen", "127.0.0.1:0"], {
    ...fake.env,
    MSGCLI_CREDENTIALS_PATH: credsPath,
  });
  try {
    const { match, rest } = await waitForLine(child.stderr, /listening on (http:\/\/[^;]+);/);
    const h = await (await fetch(`${match[1]}/healthz`)).json();
    assert.equal(h.last_refresh_ok, true, JSON.stringify(h));
    assert.equal(fake.refreshCount, 1);
    const file = JSON.parse(await Deno.readTextFile(credsPath));
    assert.equal(file.refreshToken, fake.latest!.refreshToken);
    assert.equal((await Deno.stat(credsPath)).mode! & 0o777, 0o600);
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0, await rest);
    const leftovers = [...Deno.readDirSync(credsPath.replace(/\/credentials\.json$/, ""))]
      .map((e) => e.name).sort();
    assert.deepEqual(leftovers, ["credentials.json", "credentials.json.lock"]);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.stdout.cancel().catch(() => {});
    await fake.close();
  }
});
