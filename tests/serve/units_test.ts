import assert from "node:assert/strict";
import { formatDuration, parseDuration } from "../../src/serve/duration.ts";
import { DEFAULT_REFRESH_MARGIN_MS, parseListen, parseServeFlags } from "../../src/serve/flags.ts";
import { isLoopbackHost } from "../../src/common/net.ts";
import { UsageError } from "../../src/common/errors.ts";
import { keysEqual } from "../../src/common/secret.ts";
import { isAuthorized, presentedKey } from "../../src/serve/auth.ts";
import { healthResponse } from "../../src/serve/health.ts";

const noEnv = (_: string) => undefined;

Deno.test("parseDuration: units, compounds, errors", () => {
  assert.equal(parseDuration("10m"), 600_000);
  assert.equal(parseDuration("90s"), 90_000);
  assert.equal(parseDuration("1h30m"), 5_400_000);
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("1.5h"), 5_400_000);
  assert.equal(parseDuration("2d"), 172_800_000);
  for (const bad of ["", "10", "m", "-5m", "10x", "5m junk"]) {
    assert.throws(() => parseDuration(bad), RangeError, bad);
  }
  assert.equal(formatDuration(30_000), "30s");
  assert.equal(formatDuration(5_400_000), "1h30m");
});

Deno.test("parseListen and isLoopbackHost", () => {
  assert.deepEqual(parseListen("127.0.0.1:8787"), { hostname: "127.0.0.1", port: 8787 });
  assert.deepEqual(parseListen("[::1]:9000"), { hostname: "::1", port: 9000 });
  assert.deepEqual(parseListen(":8080"), { hostname: "0.0.0.0", port: 8080 });
  assert.deepEqual(parseListen("localhost:0"), { hostname: "localhost", port: 0 });
  assert.throws(() => parseListen("8787"), UsageError);
  assert.throws(() => parseListen("host:99999"), UsageError);
  for (
    const h of ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]", "a.localhost"]
  ) {
    assert.ok(isLoopbackHost(h), h);
  }
  for (
    const h of ["0.0.0.0", "192.168.1.2", "example.com", "::", "128.0.0.1", "localhost.evil.com"]
  ) {
    assert.ok(!isLoopbackHost(h), h);
  }
});

Deno.test("parseServeFlags: defaults, env key, margin, proxy, debug", () => {
  const d = parseServeFlags([], noEnv);
  assert.deepEqual(d.listen, { hostname: "127.0.0.1", port: 8787 });
  assert.equal(d.authKey, undefined);
  assert.equal(d.refreshMarginMs, DEFAULT_REFRESH_MARGIN_MS);
  assert.equal(d.debug, false);
  const env = (n: string) =>
    ({ MSGCLI_SERVE_KEY: "envkey", MSGCLI_DEBUG: "1" } as Record<string, string>)[n];
  const e = parseServeFlags(["--refresh-margin", "5m", "--proxy", "http://p:3128"], env);
  assert.equal(e.authKey, "envkey");
  assert.equal(e.refreshMarginMs, 300_000);
  assert.equal(e.proxyFlag, "http://p:3128");
  assert.equal(e.debug, true);
  assert.equal(parseServeFlags(["--auth-key=flagkey"], env).authKey, "flagkey");
  assert.equal(parseServeFlags(["--auth-key", ""], noEnv).authKey, undefined);
  assert.equal(d.version, false);
  assert.equal(parseServeFlags(["--version"], noEnv).version, true);
  assert.equal(parseServeFlags(["-v", "--listen", "0.0.0.0:1"], noEnv).version, true);
});

Deno.test("parseServeFlags: unknown flags, positionals and bad values are usage errors", () => {
  assert.throws(() => parseServeFlags(["--bogus"], noEnv), UsageError);
  assert.throws(() => parseServeFlags(["extra"], noEnv), UsageError);
  assert.throws(() => parseServeFlags(["start", "stop"], noEnv), /unexpected argument "stop"/);
  assert.equal(parseServeFlags(["start", "--listen", "127.0.0.1:0"], noEnv).action, "start");
  assert.equal(parseServeFlags(["--listen", "127.0.0.1:9", "status"], noEnv).action, "status");
  assert.equal(parseServeFlags([], noEnv).action, undefined);
  assert.throws(() => parseServeFlags(["--refresh-margin", "soon"], noEnv), /--refresh-margin/);
  assert.throws(() => parseServeFlags(["--listen", "nope"], noEnv), /--listen/);
});

Deno.test("parseServeFlags: non-loopback listen without a key is refused", () => {
  for (const addr of ["0.0.0.0:8787", ":8787", "192.168.0.5:80", "[::]:8787", "example.com:1"]) {
    assert.throws(
      () => parseServeFlags(["--listen", addr], noEnv),
      (err: Error) =>
        err instanceof UsageError && /non-loopback/.test(err.message) &&
        /--auth-key or MSGCLI_SERVE_KEY/.test(err.message),
      addr,
    );
  }
  const ok = parseServeFlags(["--listen", "0.0.0.0:8787", "--auth-key", "k"], noEnv);
  assert.equal(ok.authKey, "k");
  const envOk = parseServeFlags(
    ["--listen", "0.0.0.0:8787"],
    (n) => (n === "MSGCLI_SERVE_KEY" ? "k2" : undefined),
  );
  assert.equal(envOk.authKey, "k2");
});

Deno.test("auth: constant-time compare, Bearer or x-api-key", () => {
  assert.ok(keysEqual("secret", "secret"));
  assert.ok(!keysEqual("secret", "secreT"));
  assert.ok(!keysEqual("secret", "secret-longer"));
  assert.ok(!keysEqual("", "x"));
  const h = (init: Record<string, string>) => new Headers(init);
  assert.equal(presentedKey(h({ authorization: "Bearer abc" })), "abc");
  assert.equal(presentedKey(h({ authorization: "bearer  abc " })), "abc");
  assert.equal(presentedKey(h({ "x-api-key": "xyz" })), "xyz");
  assert.equal(presentedKey(h({})), undefined);
  assert.ok(isAuthorized(h({}), undefined));
  assert.ok(isAuthorized(h({ authorization: "Bearer k" }), "k"));
  assert.ok(isAuthorized(h({ "x-api-key": "k" }), "k"));
  assert.ok(isAuthorized(h({ "x-api-key": "other", authorization: "Bearer k" }), "k"));
  assert.ok(!isAuthorized(h({}), "k"));
  assert.ok(!isAuthorized(h({ authorization: "Basic k" }), "k"));
  assert.ok(!isAuthorized(h({ "x-api-key": "K" }), "k"));
});

Deno.test("healthResponse: fields appear only after a real refresh; 503 only when dead and failing", () => {
  const started = Date.parse("2026-01-01T00:00:00Z");
  const now = started + 125_000;
  const base = {
    consecutiveFailures: 0,
    nextTickAt: null,
    upstreamRejected: null,
    credentialsError: null,
  };
  const alive = healthResponse(
    { ...base, expiresAt: now + 3600_000, tokenAlive: true, lastRefresh: null },
    started,
    now,
  );
  assert.equal(alive.status, 200);
  assert.deepEqual(alive.body, {
    status: "ok",
    token_alive: true,
    expires_at: new Date(now + 3600_000).toISOString(),
    started_at: "2026-01-01T00:00:00.000Z",
    uptime_s: 125,
  });
  const failedAlive = healthResponse(
    {
      ...base,
      expiresAt: now + 60_000,
      tokenAlive: true,
      lastRefresh: { at: now, ok: false, error: "boom" },
    },
    started,
    now,
  );
  assert.equal(failedAlive.status, 200);
  assert.equal(failedAlive.body.last_refresh_ok, false);
  assert.equal(failedAlive.body.last_refresh_error, "boom");
  const dead = healthResponse(
    {
      ...base,
      expiresAt: now - 1,
      tokenAlive: false,
      lastRefresh: { at: now, ok: false, error: "x" },
    },
    started,
    now,
  );
  assert.equal(dead.status, 503);
  assert.equal(dead.body.status, "degraded");
  const deadNoAttempt = healthResponse(
    { ...base, expiresAt: now - 1, tokenAlive: false, lastRefresh: null },
    started,
    now,
  );
  assert.equal(deadNoAttempt.status, 200);
  assert.ok(!("last_refresh_at" in deadNoAttempt.body));
  // No credentials: not "ok", the fix in the body, 200 (503 keeps its meaning).
  const none = healthResponse(
    { ...base, expiresAt: null, tokenAlive: false, lastRefresh: null },
    started,
    now,
  );
  assert.equal(none.status, 200);
  assert.equal(none.body.status, "no_credentials");
  assert.match(none.body.fix ?? "", /msgcli login/);
  const unusable = healthResponse(
    {
      ...base,
      expiresAt: null,
      tokenAlive: false,
      lastRefresh: null,
      credentialsError: "credentials file /x is accessible by group or others; chmod 600 /x",
    },
    started,
    now,
  );
  assert.equal(unusable.body.status, "no_credentials");
  assert.match(unusable.body.fix ?? "", /chmod 600/);
  assert.ok(!("fix" in alive.body));
});

Deno.test("serve status words: healthText for each /healthz state; clientUrl for all-interfaces", async () => {
  const { healthText } = await import("../../src/serve/control.ts");
  const { clientUrl: urlOf } = await import("../../src/common/net.ts");
  const clientUrl = (l: { hostname: string; port: number }) => urlOf(l.hostname, l.port);
  const base = { token_alive: false, expires_at: null, started_at: "x", uptime_s: 1 };
  assert.equal(
    healthText({
      code: 200,
      body: { ...base, status: "no_credentials", fix: 'run "msgcli login"' },
    }),
    'no_credentials: run "msgcli login"',
  );
  assert.equal(
    healthText({
      code: 503,
      body: { ...base, status: "degraded", last_refresh_ok: false, last_refresh_error: "boom" },
    }),
    "degraded (503): token dead, boom",
  );
  assert.equal(
    healthText({
      code: 200,
      body: { ...base, status: "ok", token_alive: true, expires_at: "2026-01-01T00:00:00.000Z" },
    }),
    "ok, token alive until 2026-01-01T00:00:00.000Z",
  );
  assert.match(
    healthText({ error: "Connection refused" }),
    /did not answer \(Connection refused\)/,
  );
  assert.equal(clientUrl({ hostname: "0.0.0.0", port: 8787 }), "http://127.0.0.1:8787");
  assert.equal(clientUrl({ hostname: "::", port: 1 }), "http://[::1]:1");
  assert.equal(clientUrl({ hostname: "127.0.0.1", port: 2 }), "http://127.0.0.1:2");
});
