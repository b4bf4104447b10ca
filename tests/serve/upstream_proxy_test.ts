/** The daemon's upstream traffic (API and OAuth refresh) through real proxies. */
import assert from "node:assert/strict";
import { startDante, startTinyproxy } from "../msg/helpers.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { MESSAGE, post, startRig, writeCredentials } from "./helpers.ts";

for (const kind of ["http (tinyproxy, basic auth)", "socks5 (dante)"] as const) {
  Deno.test(`upstream proxy: ${kind} carries the API call and the token refresh`, async () => {
    const proxy = kind.startsWith("http")
      ? await startTinyproxy("serve", "pr0xy-pw")
      : await startDante();
    // 5 minutes left: the first keepalive tick refreshes, through the proxy.
    const rig = await startRig({ ttlSec: 300, args: ["--proxy", proxy.url] });
    try {
      assert.equal(rig.fake.refreshCount, 1);
      const res = await post(`${rig.url}/v1/messages`, { ...MESSAGE, stream: true });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /message_stop/);
      const port = new URL(rig.fake.url).port;
      const log = await proxy.log();
      if (kind.startsWith("http")) {
        assert.match(log, new RegExp(`POST http://127\\.0\\.0\\.1:${port}/v1/oauth/token`));
        assert.match(log, new RegExp(`POST http://127\\.0\\.0\\.1:${port}/v1/messages`));
      } else {
        assert.match(log, new RegExp(`127\\.0\\.0\\.1\\.${port}`));
      }
      assert.ok(!rig.logs.join("\n").includes("pr0xy-pw"), "proxy password never logged");
    } finally {
      await rig.close();
      await proxy.close();
    }
  });
}

Deno.test("upstream proxy from HTTPS_PROXY: the locked daemon is granted the proxy host", async () => {
  const proxy = await startTinyproxy("u", "pw");
  const fake = startFakeAnthropic();
  const t = fake.issueTokens(3600);
  const credsPath = await writeCredentials({ ...t, expiresAt: Date.now() + 3600_000 });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../src/bin/serve.ts", import.meta.url).pathname,
      "--listen",
      "127.0.0.1:0",
      "--permission-probe",
      "http://127.0.0.1:9/",
    ],
    env: { ...fake.env, MSGCLI_CREDENTIALS_PATH: credsPath, HTTPS_PROXY: proxy.url },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  try {
    const out = await child.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const probe = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(probe.granted[`net:127.0.0.1:${proxy.port}`], "granted");
    assert.deepEqual(probe.broad, []);
  } finally {
    await fake.close();
    await proxy.close();
  }
});
