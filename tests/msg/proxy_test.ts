/**
 * Real proxies: Debian's tinyproxy (HTTP, BasicAuth) and dante-server (SOCKS5) started on
 * free loopback ports with temporary configs; requests are checked on the fake's side and in
 * the proxies' logs. A missing binary fails the test with an install hint.
 */

import assert from "node:assert/strict";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import {
  fakeEnv,
  freePort,
  runMsgcli,
  seedCredentials,
  startDante,
  startTinyproxy,
  tempDir,
} from "./helpers.ts";

/** msgcli's own stderr lines (without Deno's "Info" notes about absent browser openers). */
function ownLines(stderr: string): string[] {
  return stderr.trim().split("\n").filter((l) => !l.startsWith("Info "));
}

async function setup(expiresInMs = 3600_000) {
  const fake = startFakeAnthropic();
  const tmp = await tempDir();
  const path = `${tmp.dir}/credentials.json`;
  const creds = await seedCredentials(fake, path, { expiresInMs });
  return {
    fake,
    creds,
    env: fakeEnv(fake, path),
    async [Symbol.asyncDispose]() {
      await fake.close();
      await tmp.cleanup();
    },
  };
}

Deno.test("tinyproxy with basic auth: --proxy carries API and OAuth traffic", async () => {
  const proxy = await startTinyproxy("alice", "s3cr3t-pw");
  try {
    await using s = await setup(5_000); // near expiry: the refresh goes through the proxy too
    const r = await runMsgcli(["query", "via http proxy", "--proxy", proxy.url, "--debug"], {
      env: s.env,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "echo: via http proxy\n");
    const token = s.fake.requestsTo("/v1/oauth/token");
    const msgs = s.fake.requestsTo("/v1/messages");
    assert.equal(token.length, 1);
    assert.equal(msgs.length, 1);
    for (const req of [...token, ...msgs]) {
      assert.match(req.headers["via"] ?? "", /tinyproxy/, `no Via on ${req.path}`);
      assert.equal(req.headers["proxy-authorization"], undefined);
    }
    const log = await proxy.log();
    assert.match(log, new RegExp(`Request .*POST ${s.fake.url}/v1/messages`));
    assert.match(log, new RegExp(`Request .*POST ${s.fake.url}/v1/oauth/token`));
    assert.ok(!r.stderr.includes("s3cr3t-pw"));
  } finally {
    await proxy.close();
  }
});

Deno.test("tinyproxy: HTTPS_PROXY is used without the flag; a wrong password is reported with its status", async () => {
  const proxy = await startTinyproxy("bob", "right");
  try {
    await using s = await setup();
    let r = await runMsgcli(["usage", "--json"], { env: { ...s.env, HTTPS_PROXY: proxy.url } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(s.fake.requestsTo("/api/oauth/usage")[0].headers["via"] ?? "", /tinyproxy/);

    const bad = proxy.url.replace("right", "wrong");
    r = await runMsgcli(["hi", "--debug"], { env: { ...s.env, https_proxy: bad } });
    assert.equal(r.code, 2);
    // tinyproxy answers a failed BasicAuth with 401 (not 407) and a non-API body.
    assert.match(r.stderr, /API error 40[17] .*may come from the proxy/);
    assert.match(r.stderr, /proxy: http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1/);
    assert.ok(!r.stderr.includes("wrong@"), "proxy password leaked");
    assert.equal(s.fake.requestsTo("/v1/messages").length, 0);
  } finally {
    await proxy.close();
  }
});

Deno.test("dante SOCKS5: --proxy socks5:// and socks5h://, and ALL_PROXY", async () => {
  const proxy = await startDante();
  try {
    await using s = await setup(5_000);
    const port = proxy.port;
    const runs: Array<[string[], Record<string, string>]> = [
      [["query", "via socks5", "--proxy", `socks5://127.0.0.1:${port}`], {}],
      [["stream", "via socks5h", "--proxy", `socks5h://localhost:${port}`], {}],
      [["query", "via all_proxy"], { ALL_PROXY: `socks5://127.0.0.1:${port}` }],
    ];
    for (const [args, extra] of runs) {
      const r = await runMsgcli(args, { env: { ...s.env, ...extra } });
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, `echo: ${args[1]}\n`);
    }
    // Every request reached the fake from a connection dante opened: the fake's remote
    // port appears in dante's connect log lines.
    const log = await proxy.log();
    const fakePort = new URL(s.fake.url).port;
    assert.equal(s.fake.refreshCount, 1);
    assert.ok(s.fake.requests.length >= 4);
    for (const req of s.fake.requests) {
      const remotePort = req.remote.split(":").at(-1);
      assert.match(
        log,
        new RegExp(
          `tcp/connect \\[: .* -> 127\\.0\\.0\\.1\\.${remotePort} 127\\.0\\.0\\.1\\.${fakePort}`,
        ),
        `request ${req.method} ${req.path} from port ${remotePort} did not pass dante`,
      );
    }
  } finally {
    await proxy.close();
  }
});

Deno.test("an unreachable proxy is reported with the real error", async () => {
  await using s = await setup();
  const r = await runMsgcli(["hi", "--proxy", "http://127.0.0.1:9"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /cannot connect to the proxy 127\.0\.0\.1:9: Connection refused/);
  // One clean line: the host and the reason once, no "caused by", no "API error 0".
  assert.equal(ownLines(r.stderr).length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /caused by|API error 0/);
  assert.equal(r.stderr.match(/Connection refused/g)?.length, 1, r.stderr);
  assert.equal(s.fake.requests.length, 0);
});

Deno.test("an unreachable API host and token endpoint: one line naming the host and why, once", async () => {
  await using s = await setup();
  const port = freePort();
  // The API host refuses the connection.
  const api = await runMsgcli(["hi"], {
    env: { ...s.env, MSGCLI_API_BASE_URL: `http://127.0.0.1:${port}` },
  });
  assert.equal(api.code, 2);
  assert.match(
    api.stderr,
    new RegExp(
      `(^|\\n)msgcli: error: cannot reach http://127\\.0\\.0\\.1:${port}/v1/messages: cannot connect to 127\\.0\\.0\\.1:${port}: Connection refused`,
    ),
  );
  // The token endpoint (an expired token must be refreshed first).
  const creds = JSON.parse(await Deno.readTextFile(s.env.MSGCLI_CREDENTIALS_PATH));
  await Deno.writeTextFile(
    s.env.MSGCLI_CREDENTIALS_PATH,
    JSON.stringify({ ...creds, expiresAt: Date.now() - 1000 }),
  );
  const tok = await runMsgcli(["hi"], {
    env: { ...s.env, MSGCLI_OAUTH_TOKEN_URL: `http://127.0.0.1:${port}/v1/oauth/token` },
  });
  assert.equal(tok.code, 2);
  assert.match(
    tok.stderr,
    new RegExp(`token endpoint .*unreachable: cannot connect to 127\\.0\\.0\\.1:${port}`),
  );
  for (const r of [api, tok]) {
    assert.equal(ownLines(r.stderr).length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /caused by|API error 0/);
    assert.equal(r.stderr.match(/Connection refused/g)?.length, 1, r.stderr);
  }
  assert.equal(s.fake.requests.length, 0);
});
