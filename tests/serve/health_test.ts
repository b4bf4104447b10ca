import assert from "node:assert/strict";
import { MESSAGE, post, readCredentials, startRig, writeCredentials } from "./helpers.ts";
import type { Timers } from "../../src/serve/keepalive.ts";

async function health(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/healthz`);
  return { status: res.status, body: await res.json() };
}

/** Timers that never fire on their own: the tests tick by hand. */
function recordingTimers(): Timers & { delays: number[] } {
  const delays: number[] = [];
  let id = 0;
  return { delays, setTimeout: (_fn, ms) => (delays.push(ms), ++id), clearTimeout: () => {} };
}

Deno.test("/healthz before any refresh: 200, no last_refresh_* fields", async () => {
  const rig = await startRig({ ttlSec: 3600 });
  try {
    const h = await health(rig.url);
    assert.equal(h.status, 200);
    assert.deepEqual(Object.keys(h.body).sort(), [
      "expires_at",
      "started_at",
      "status",
      "token_alive",
      "uptime_s",
    ]);
    assert.equal(h.body.token_alive, true);
    assert.equal(h.body.status, "ok");
    assert.ok(Date.parse(h.body.expires_at as string) > Date.now() + 3500_000);
    assert.ok(Math.abs(Date.parse(h.body.started_at as string) - Date.now()) < 10_000);
    assert.equal(typeof h.body.uptime_s, "number");
    assert.equal(rig.fake.refreshCount, 0);
  } finally {
    await rig.close();
  }
});

Deno.test("/healthz after a good refresh: rotated credentials written, fields set", async () => {
  const timers = recordingTimers();
  // Expires in 5 minutes, inside the default 10 minute margin: the first tick refreshes.
  const rig = await startRig({ ttlSec: 300, daemon: { timers } });
  try {
    assert.equal(rig.fake.refreshCount, 1);
    const file = await readCredentials(rig.credsPath);
    assert.equal(file.refreshToken, rig.fake.latest!.refreshToken, "rotated refresh token kept");
    assert.equal(file.accessToken, rig.fake.latest!.accessToken);
    assert.equal((await Deno.stat(rig.credsPath)).mode! & 0o777, 0o600);
    const h = await health(rig.url);
    assert.equal(h.status, 200);
    assert.equal(h.body.last_refresh_ok, true);
    assert.equal(h.body.last_refresh_error, null);
    assert.ok(typeof h.body.last_refresh_at === "string");
    assert.equal(h.body.token_alive, true);
    assert.deepEqual(timers.delays, [60_000]);
    // The proxied request uses the new token.
    const r = await post(`${rig.url}/v1/messages`, MESSAGE);
    assert.equal(r.status, 200);
    await r.body?.cancel();
    assert.equal(
      rig.fake.requestsTo("/v1/messages").at(-1)!.headers.authorization,
      `Bearer ${file.accessToken}`,
    );
  } finally {
    await rig.close();
  }
});

Deno.test("/healthz after a failed refresh with a live token: 200 with the error; backoff starts at 30s", async () => {
  const timers = recordingTimers();
  const rig = await startRig({
    daemon: { timers },
    creds: (fake) => ({
      accessToken: fake.issueTokens(300).accessToken,
      refreshToken: "sk-ant-ort01-revoked",
      expiresAt: Date.now() + 300_000,
    }),
  });
  try {
    const h = await health(rig.url);
    assert.equal(h.status, 200);
    assert.equal(h.body.token_alive, true);
    assert.equal(h.body.last_refresh_ok, false);
    assert.match(h.body.last_refresh_error as string, /invalid_grant/);
    assert.ok(!(h.body.last_refresh_error as string).includes("sk-ant-ort01-revoked"));
    assert.deepEqual(timers.delays, [30_000]);
    await rig.daemon.keepalive.tick();
    await rig.daemon.keepalive.tick();
    await rig.daemon.keepalive.tick();
    assert.deepEqual(timers.delays, [30_000, 60_000, 300_000, 300_000]);
  } finally {
    await rig.close();
  }
});

Deno.test("/healthz with a dead token and failing refresh: 503", async () => {
  const rig = await startRig({
    daemon: { timers: recordingTimers() },
    creds: () => ({
      accessToken: "sk-ant-oat01-expired",
      refreshToken: "sk-ant-ort01-revoked",
      expiresAt: Date.now() - 1000,
    }),
  });
  try {
    const h = await health(rig.url);
    assert.equal(h.status, 503);
    assert.equal(h.body.status, "degraded");
    assert.equal(h.body.token_alive, false);
    assert.equal(h.body.last_refresh_ok, false);
    // /healthz never needs the key and the daemon keeps serving.
    const again = await health(rig.url);
    assert.equal(again.status, 503);
  } finally {
    await rig.close();
  }
});

Deno.test("writable check: a read-only credentials file is never refreshed (no OAuth call)", async () => {
  const rig = await startRig({
    ttlSec: 3600,
    daemon: { timers: recordingTimers() },
  });
  try {
    // Make the file read-only (0400; respected even as root) with a token inside the margin.
    const c = await readCredentials(rig.credsPath);
    await Deno.writeTextFile(
      rig.credsPath,
      JSON.stringify({ ...c, expiresAt: Date.now() + 120_000 }),
    );
    await Deno.chmod(rig.credsPath, 0o400);
    const tokenCalls = rig.fake.requestsTo("/v1/oauth/token").length;
    await rig.daemon.keepalive.tick();
    assert.equal(rig.fake.requestsTo("/v1/oauth/token").length, tokenCalls, "no OAuth call");
    const h = await health(rig.url);
    assert.equal(h.body.last_refresh_ok, false);
    assert.match(h.body.last_refresh_error as string, /not writable/);
    assert.equal(
      (await readCredentials(rig.credsPath)).refreshToken,
      c.refreshToken,
      "file untouched",
    );
  } finally {
    await Deno.chmod(rig.credsPath, 0o600).catch(() => {});
    await rig.close();
  }
});

Deno.test("a token rotated by another process is picked up after an upstream 401", async () => {
  const rig = await startRig({ daemon: { timers: recordingTimers() } });
  try {
    // Another process rotates the token behind the daemon's back; the fake forgets the old one.
    const fresh = rig.fake.issueTokens(3600);
    const old = await readCredentials(rig.credsPath);
    await Deno.writeTextFile(
      rig.credsPath,
      JSON.stringify({ ...fresh, expiresAt: Date.now() + 3600_000 }),
    );
    // Simulate the upstream rejecting the old token (as after a revocation).
    rig.fake.options.errors = [{
      status: 401,
      type: "authentication_error",
      message: "OAuth token has expired.",
    }];
    const r = await post(`${rig.url}/v1/messages`, MESSAGE);
    assert.equal(r.status, 200);
    await r.body?.cancel();
    const ups = rig.fake.requestsTo("/v1/messages");
    assert.equal(ups.length, 2);
    assert.equal(ups[0].headers.authorization, `Bearer ${old.accessToken}`);
    assert.equal(ups[1].headers.authorization, `Bearer ${fresh.accessToken}`);
  } finally {
    await rig.close();
  }
});

Deno.test("no credentials file: the daemon runs, requests get 503, healthz 200 no_credentials with the fix; a login is picked up", async () => {
  const rig = await startRig({ daemon: { timers: recordingTimers() } });
  try {
    await Deno.remove(rig.credsPath);
    // A fresh daemon on the same (now missing) file.
    const { startDaemon } = await import("../../src/serve/daemon.ts");
    const { parseServeFlags } = await import("../../src/serve/flags.ts");
    const env = { ...rig.fake.env, MSGCLI_CREDENTIALS_PATH: rig.credsPath } as Record<
      string,
      string
    >;
    const d = await startDaemon({
      flags: parseServeFlags(["--listen", "127.0.0.1:0"], (n) => env[n]),
      env: (n) => env[n],
      log: () => {},
      timers: recordingTimers(),
    });
    try {
      const h = await health(d.url);
      assert.equal(h.status, 200);
      assert.equal(h.body.status, "no_credentials");
      assert.match(h.body.fix as string, /run "msgcli login"/);
      assert.equal(h.body.token_alive, false);
      assert.equal(h.body.expires_at, null);
      const r = await post(`${d.url}/v1/messages`, MESSAGE);
      assert.equal(r.status, 503);
      assert.match((await r.json()).error.message, /msgcli login/);
      // A login writes the file: the next /healthz reads it, without waiting for a tick.
      const t = rig.fake.issueTokens(3600);
      await writeCredentials({
        accessToken: t.accessToken,
        refreshToken: t.refreshToken,
        expiresAt: Date.now() + 3600_000,
      }, rig.credsPath.replace(/\/credentials\.json$/, ""));
      const after = await health(d.url);
      assert.equal(after.status, 200);
      assert.equal(after.body.status, "ok");
      assert.ok(!("fix" in after.body));
      // A logout removes it: the next read (a tick) drops the token the daemon had.
      await Deno.remove(rig.credsPath);
      await d.keepalive.tick();
      const gone = await health(d.url);
      assert.equal(gone.body.status, "no_credentials");
      const r2 = await post(`${d.url}/v1/messages`, MESSAGE);
      assert.equal(r2.status, 503);
    } finally {
      await d.shutdown();
    }
  } finally {
    await rig.close();
  }
});

Deno.test("a credentials file readable by others is refused with the reason in the 503", async () => {
  const rig = await startRig({ daemon: { timers: recordingTimers() } });
  try {
    await Deno.chmod(rig.credsPath, 0o644);
    const { startDaemon } = await import("../../src/serve/daemon.ts");
    const { parseServeFlags } = await import("../../src/serve/flags.ts");
    const env = { ...rig.fake.env, MSGCLI_CREDENTIALS_PATH: rig.credsPath } as Record<
      string,
      string
    >;
    const d = await startDaemon({
      flags: parseServeFlags(["--listen", "127.0.0.1:0"], (n) => env[n]),
      env: (n) => env[n],
      log: () => {},
      timers: recordingTimers(),
    });
    try {
      const r = await post(`${d.url}/v1/messages`, MESSAGE);
      assert.equal(r.status, 503);
      assert.match((await r.json()).error.message, /accessible by group or others.*chmod 600/);
      assert.equal(rig.fake.requestsTo("/v1/").length, 0);
    } finally {
      await d.shutdown();
    }
  } finally {
    await rig.close();
  }
});
