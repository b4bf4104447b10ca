/**
 * Two daemons (one started as `msgcli serve`, one as src/bin/serve.ts) and a `msgcli query`
 * share one credentials file whose token is about to expire: exactly one rotation happens
 * and nobody loses the single-use refresh token.
 */
import assert from "node:assert/strict";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { runMsgcli, spawnMsgcli } from "../msg/helpers.ts";
import { MESSAGE, post, readCredentials, writeCredentials } from "./helpers.ts";

const SERVE = new URL("../../src/bin/serve.ts", import.meta.url).pathname;

async function listeningUrl(
  stderr: ReadableStream<Uint8Array>,
  sink: string[],
): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const timer = setTimeout(() => reader.cancel(), 20_000);
  while (true) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`daemon exited before listening: ${buf}`);
    buf += value;
    sink.push(value);
    const m = /listening on (http:\/\/[^;]+);/.exec(buf);
    if (m) {
      clearTimeout(timer);
      // Keep draining stderr so the child never blocks on a full pipe.
      (async () => {
        while (true) {
          const r = await reader.read();
          if (r.done) break;
          sink.push(r.value);
        }
      })().catch(() => {});
      return m[1];
    }
  }
}

Deno.test("two daemons and msgcli query share one credentials file: one rotation, nobody loses the token", async () => {
  const fake = startFakeAnthropic({ refreshDelayMs: 300 });
  const t = fake.issueTokens(3600);
  // 30 s left: inside both the daemons' 10 m margin and msgcli's 60 s liveness check.
  const credsPath = await writeCredentials({ ...t, expiresAt: Date.now() + 30_000 });
  const env = { ...fake.env, MSGCLI_CREDENTIALS_PATH: credsPath, NO_COLOR: "1" };
  const daemonA = spawnMsgcli(["serve", "--listen", "127.0.0.1:0"], { env });
  const daemonB = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SERVE, "--listen", "127.0.0.1:0"],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const logs: string[] = [];
  let diag = () => logs.join("");
  try {
    const query = runMsgcli(["query", "hi there"], { env });
    const [urlA, urlB] = await Promise.all([
      listeningUrl(daemonA.stderr, logs),
      listeningUrl(daemonB.stderr, logs),
    ]);
    const q = await query;
    diag = () =>
      `\n--- msgcli stderr:\n${q.stderr}\n--- daemons:\n${logs.join("")}\n--- upstream:\n${
        fake.requests.map((r) => `${r.method} ${r.path} ${r.body.slice(0, 120)}`).join("\n")
      }`;
    assert.equal(q.code, 0, diag());
    assert.match(q.stdout, /echo: hi there/);

    assert.equal(fake.refreshCount, 1, `exactly one rotation${diag()}`);
    assert.equal(fake.failedRefreshCount, 0, `nobody replayed a used refresh token${diag()}`);
    assert.equal(
      fake.requestsTo("/v1/oauth/token").length,
      1,
      `one call to the token endpoint${diag()}`,
    );
    const file = await readCredentials(credsPath);
    assert.equal(
      file.refreshToken,
      fake.latest!.refreshToken,
      "the file holds the live refresh token",
    );
    assert.equal(file.accessToken, fake.latest!.accessToken);
    assert.ok(file.expiresAt > Date.now() + 3000_000);

    let refreshedBy = 0;
    for (const url of [urlA, urlB]) {
      const h = await (await fetch(`${url}/healthz`)).json();
      assert.equal(h.token_alive, true);
      if (h.last_refresh_ok === true) refreshedBy++;
      assert.notEqual(h.last_refresh_ok, false, `no daemon saw a failed refresh${diag()}`);
      const r = await post(`${url}/v1/messages`, MESSAGE);
      assert.equal(r.status, 200);
      await r.body?.cancel();
    }
    assert.ok(refreshedBy <= 1);
    // Every upstream call used a token the fake accepted.
    assert.ok(fake.requestsTo("/v1/messages").every((r) => r.headers.authorization !== undefined));
  } finally {
    for (const d of [daemonA, daemonB]) {
      try {
        d.kill("SIGTERM");
      } catch { /* gone */ }
    }
    const [sa, sb] = await Promise.all([daemonA.status, daemonB.status]);
    await daemonA.stdout.cancel().catch(() => {});
    await fake.close();
    assert.equal(sa.code, 0, diag());
    assert.equal(sb.code, 0, diag());
  }
});
