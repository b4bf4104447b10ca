/**
 * An upstream 401 to a token the daemon believes live (early revocation, clock skew): the
 * daemon re-reads the credentials under the lock, refreshes once, retries once, and
 * `/healthz` reports the failure when that does not help.
 */
import assert from "node:assert/strict";
import { MESSAGE, post, readCredentials, startRig } from "./helpers.ts";
import type { Timers } from "../../src/serve/keepalive.ts";

/** Timers that never fire on their own: no keepalive tick interferes. */
const idleTimers: Timers = { setTimeout: () => 0, clearTimeout: () => {} };

async function health(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/healthz`);
  return { status: res.status, body: await res.json() };
}

Deno.test("upstream 401 to a live token: one refresh, one retry, concurrent requests share it", async () => {
  const rig = await startRig({ daemon: { timers: idleTimers } });
  try {
    const before = await readCredentials(rig.credsPath);
    rig.fake.revoke(before.accessToken);
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => post(`${rig.url}/v1/messages`, MESSAGE)),
    );
    for (const r of replies) {
      assert.equal(r.status, 200, await r.clone().text());
      await r.body?.cancel();
    }
    assert.equal(rig.fake.refreshCount, 1, "one refresh for five 401s");
    const after = await readCredentials(rig.credsPath);
    assert.notEqual(after.accessToken, before.accessToken);
    assert.notEqual(after.refreshToken, before.refreshToken, "the rotation was written");
    const ups = rig.fake.requestsTo("/v1/messages");
    assert.equal(
      ups.filter((u) => u.headers.authorization === `Bearer ${before.accessToken}`).length,
      5,
    );
    assert.equal(
      ups.filter((u) => u.headers.authorization === `Bearer ${after.accessToken}`).length,
      5,
    );
    const h = await health(rig.url);
    assert.equal(h.status, 200);
    assert.equal(h.body.status, "ok");
    assert.equal(h.body.last_refresh_ok, true);
    assert.equal(h.body.upstream_error, undefined);
  } finally {
    await rig.close();
  }
});

Deno.test("upstream 401 that a refresh does not cure: the 401 passes through, /healthz says so, no storm", async () => {
  const rig = await startRig({ daemon: { timers: idleTimers }, fake: { rejectAllTokens: true } });
  try {
    const r = await post(`${rig.url}/v1/messages`, MESSAGE);
    assert.equal(r.status, 401);
    assert.equal((await r.json()).error.message, "OAuth token does not grant access.");
    assert.equal(rig.fake.refreshCount, 1);
    assert.equal(rig.fake.requestsTo("/v1/messages").length, 2, "one retry");
    const h = await health(rig.url);
    assert.equal(h.status, 503);
    assert.equal(h.body.status, "degraded");
    assert.equal(h.body.token_alive, false);
    assert.match(h.body.upstream_error as string, /^401 OAuth token does not grant access\./);
    assert.equal(typeof h.body.upstream_rejected_at, "string");
    // Later requests are still sent (the upstream answers for itself) but refresh no more.
    const again = await post(`${rig.url}/v1/messages`, MESSAGE);
    assert.equal(again.status, 401);
    await again.body?.cancel();
    assert.equal(rig.fake.refreshCount, 1, "no refresh storm");
    // Access comes back: the next success clears the report.
    rig.fake.options.rejectAllTokens = false;
    const ok = await post(`${rig.url}/v1/messages`, MESSAGE);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    const h2 = await health(rig.url);
    assert.equal(h2.status, 200);
    assert.equal(h2.body.upstream_error, undefined);
  } finally {
    await rig.close();
  }
});

Deno.test("upstream 401 and the refresh fails too: /healthz reports the refresh error", async () => {
  const rig = await startRig({ daemon: { timers: idleTimers } });
  try {
    const c = await readCredentials(rig.credsPath);
    rig.fake.revoke(c.accessToken);
    rig.fake.revoke(c.refreshToken);
    const r = await post(`${rig.url}/v1/messages`, MESSAGE);
    assert.equal(r.status, 401);
    await r.body?.cancel();
    const h = await health(rig.url);
    assert.equal(h.status, 503);
    assert.equal(h.body.last_refresh_ok, false);
    assert.match(h.body.last_refresh_error as string, /invalid_grant/);
    assert.match(h.body.upstream_error as string, /^401 Invalid bearer token/);
    assert.deepEqual(await readCredentials(rig.credsPath), c, "nothing written");
  } finally {
    await rig.close();
  }
});
