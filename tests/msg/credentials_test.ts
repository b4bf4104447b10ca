/** The credentials store and its lock protocol, in-process with an injected clock. */

import assert from "node:assert/strict";
import { CredentialsError, CredentialStore } from "../../src/msg/credentials.ts";
import { OAuthError, refreshAccessToken, type TokenResponse } from "../../src/msg/oauth.ts";
import { loadMsgConfig } from "../../src/msg/config.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { fakeEnv, seedCredentials, tempDir } from "./helpers.ts";

const NOW = 1_800_000_000_000;
const now = () => NOW;

async function setup(expiresAt = NOW + 3600_000) {
  const tmp = await tempDir();
  const path = `${tmp.dir}/sub/credentials.json`;
  const store = new CredentialStore(path);
  await store.write({ accessToken: "a0", refreshToken: "r0", expiresAt });
  return {
    store,
    path,
    dir: tmp.dir,
    [Symbol.asyncDispose]: () => tmp.cleanup(),
  };
}

function counter(answer: (rt: string, n: number) => TokenResponse | Promise<TokenResponse>) {
  const calls: string[] = [];
  return {
    calls,
    refresh: async (rt: string) => {
      calls.push(rt);
      return await answer(rt, calls.length);
    },
  };
}

Deno.test("write is atomic with mode 0600 in a 0700 directory; read round-trips", async () => {
  await using s = await setup();
  assert.equal((await Deno.stat(s.path)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(`${s.dir}/sub`)).mode! & 0o777, 0o700);
  assert.deepEqual(await s.store.read(), {
    accessToken: "a0",
    refreshToken: "r0",
    expiresAt: NOW + 3600_000,
  });
  const names: string[] = [];
  for await (const e of Deno.readDir(`${s.dir}/sub`)) names.push(e.name);
  assert.deepEqual(names.sort(), ["credentials.json", "credentials.json.lock"]);
});

Deno.test("read refuses group/other access and names bad fields", async () => {
  await using s = await setup();
  await Deno.chmod(s.path, 0o640);
  await assert.rejects(() => s.store.read(), (e: unknown) => {
    assert.ok(e instanceof CredentialsError);
    assert.equal(e.code, "insecure");
    assert.match(e.message, /chmod 600/);
    return true;
  });
  await Deno.chmod(s.path, 0o600);
  await Deno.writeTextFile(
    s.path,
    JSON.stringify({ accessToken: "a", refreshToken: 5, expiresAt: 1 }),
  );
  await assert.rejects(() => s.store.read(), /field "refreshToken"/);
  await Deno.writeTextFile(s.path, "{");
  await assert.rejects(() => s.store.read(), /not valid JSON/);
});

Deno.test("ensureFresh: a fresh token is returned without refreshing", async () => {
  await using s = await setup();
  const c = counter(() => ({ accessToken: "x", expiresIn: 1 }));
  const r = await s.store.ensureFresh({ marginMs: 60_000, now, refresh: c.refresh });
  assert.equal(r.refreshed, false);
  assert.equal(r.credentials.accessToken, "a0");
  assert.equal(c.calls.length, 0);
});

Deno.test("ensureFresh: refreshes near expiry, writes rotation; keeps the old refresh token when omitted", async () => {
  await using s = await setup(NOW + 30_000);
  const c = counter(() => ({ accessToken: "a1", refreshToken: "r1", expiresIn: 3600 }));
  const r = await s.store.ensureFresh({ marginMs: 60_000, now, refresh: c.refresh });
  assert.equal(r.refreshed, true);
  assert.deepEqual(c.calls, ["r0"]);
  assert.deepEqual(await s.store.read(), {
    accessToken: "a1",
    refreshToken: "r1",
    expiresAt: NOW + 3600_000,
  });
  const c2 = counter(() => ({ accessToken: "a2", expiresIn: 60 }));
  await s.store.ensureFresh({ marginMs: 60_000, now, refresh: c2.refresh, force: true });
  assert.deepEqual(await s.store.read(), {
    accessToken: "a2",
    refreshToken: "r1",
    expiresAt: NOW + 60_000,
  });
  assert.equal((await Deno.stat(s.path)).mode! & 0o777, 0o600);
});

Deno.test("ensureFresh: twenty concurrent stores (separate locks) share one refresh", async () => {
  await using s = await setup(NOW + 1000);
  let n = 0;
  const refresh = async (rt: string): Promise<TokenResponse> => {
    n++;
    await new Promise((r) => setTimeout(r, 50));
    return { accessToken: `new-for-${rt}`, refreshToken: "r1", expiresIn: 3600 };
  };
  const results = await Promise.all(
    Array.from(
      { length: 20 },
      () => new CredentialStore(s.path).ensureFresh({ marginMs: 60_000, now, refresh }),
    ),
  );
  assert.equal(n, 1);
  assert.equal(results.filter((r) => r.refreshed).length, 1);
  for (const r of results) assert.equal(r.credentials.accessToken, "new-for-r0");
});

Deno.test("ensureFresh: a non-writable file refuses before calling refresh", async () => {
  await using s = await setup(NOW + 1000);
  await Deno.chmod(s.path, 0o400);
  const c = counter(() => ({ accessToken: "x", expiresIn: 1 }));
  await assert.rejects(
    () => s.store.ensureFresh({ marginMs: 60_000, now, refresh: c.refresh }),
    (e: unknown) => {
      assert.ok(e instanceof CredentialsError);
      assert.equal(e.code, "not_writable");
      return true;
    },
  );
  assert.equal(c.calls.length, 0);
  assert.equal(await s.store.isWritable(), false);
  await Deno.chmod(s.path, 0o600);
  assert.equal(await s.store.isWritable(), true);
});

Deno.test("ensureFresh: invalid_grant adopts a token rotated meanwhile, else fails without writing", async () => {
  await using s = await setup(NOW + 1000);
  // Another (lock-ignoring) writer rotates the file while our refresh is in flight.
  const rotated = { accessToken: "a9", refreshToken: "r9", expiresAt: NOW + 3600_000 };
  const r = await s.store.ensureFresh({
    marginMs: 60_000,
    now,
    refresh: async () => {
      await Deno.writeTextFile(s.path, JSON.stringify(rotated));
      throw new OAuthError("invalid_grant", 400, "used");
    },
  });
  assert.equal(r.refreshed, false);
  assert.deepEqual(r.credentials, rotated);

  await Deno.writeTextFile(s.path, JSON.stringify({ ...rotated, expiresAt: NOW + 1000 }));
  const before = await Deno.readTextFile(s.path);
  for (const err of [new OAuthError("invalid_grant", 400, "used"), new TypeError("network down")]) {
    await assert.rejects(
      () => s.store.ensureFresh({ marginMs: 60_000, now, refresh: () => Promise.reject(err) }),
      (e: unknown) => {
        assert.ok(e instanceof CredentialsError);
        assert.equal(e.code, "refresh_failed");
        assert.equal(e.cause, err);
        return true;
      },
    );
    assert.equal(await Deno.readTextFile(s.path), before);
  }
});

Deno.test("ensureFresh: a token endpoint that never answers times out, releases the lock, writes nothing", async () => {
  const fake = startFakeAnthropic({ refreshDelayMs: 3000 });
  const tmp = await tempDir();
  try {
    const path = `${tmp.dir}/credentials.json`;
    await seedCredentials(fake, path, { expiresInMs: 1000 });
    const vars = fakeEnv(fake, path);
    const cfg = loadMsgConfig((n) => vars[n]);
    const store = new CredentialStore(path);
    const before = await Deno.readTextFile(path);
    const t0 = Date.now();
    await assert.rejects(
      () =>
        store.ensureFresh({
          marginMs: 60_000,
          refresh: (rt) => refreshAccessToken(cfg, fetch, rt, 200),
        }),
      (e: unknown) => {
        assert.ok(e instanceof CredentialsError);
        assert.equal(e.code, "refresh_failed");
        assert.ok(e.cause instanceof OAuthError);
        assert.equal(e.cause.code, "timeout");
        return true;
      },
    );
    assert.ok(Date.now() - t0 < 2500, "the refresh did not wait for the hung endpoint");
    assert.equal(await Deno.readTextFile(path), before);
    // The exclusive lock was released: a write goes through at once.
    await store.write({ accessToken: "a", refreshToken: "r", expiresAt: Date.now() + 1000 });
  } finally {
    await fake.close();
    await tmp.cleanup();
  }
});

Deno.test("a refresh SIGKILLed between the temp write and the rename loses nothing: the next process adopts the temp file", async () => {
  const fake = startFakeAnthropic();
  const tmp = await tempDir();
  try {
    const path = `${tmp.dir}/credentials.json`;
    await seedCredentials(fake, path);
    const before = JSON.parse(await Deno.readTextFile(path));
    // A child process refreshes and is SIGKILLed right where it would rename the temp file.
    const child = `${tmp.dir}/killed_refresh.ts`;
    const src = new URL("../../src/", import.meta.url).href;
    await Deno.writeTextFile(
      child,
      `import { CredentialStore } from "${src}msg/credentials.ts";
import { refreshAccessToken } from "${src}msg/oauth.ts";
import { loadMsgConfig } from "${src}msg/config.ts";
const rename = Deno.rename;
Deno.rename = (from: string | URL, to: string | URL) => {
  if (String(to) === ${JSON.stringify(path)}) Deno.kill(Deno.pid, "SIGKILL");
  return rename(from, to);
};
const config = loadMsgConfig((n) => Deno.env.get(n));
await new CredentialStore(${JSON.stringify(path)}).ensureFresh({
  marginMs: 60_000,
  force: true,
  refresh: (rt) => refreshAccessToken(config, fetch, rt),
});
console.log("not killed");
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-check", child],
      env: fakeEnv(fake, path),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.signal, "SIGKILL", new TextDecoder().decode(out.stderr));
    assert.equal(fake.refreshCount, 1, "the killed process spent the refresh token");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), before, "file still old");
    const temps = [...Deno.readDirSync(tmp.dir)].map((e) => e.name).filter((n) =>
      n.endsWith(".tmp")
    );
    assert.equal(temps.length, 1, "the complete temp file is left behind");
    const live = JSON.parse(await Deno.readTextFile(`${tmp.dir}/${temps[0]}`));
    assert.equal(live.refreshToken, fake.latest!.refreshToken);
    // Leftovers of older crashes: a torn write and an older complete rotation.
    const torn = `${tmp.dir}/.credentials.json.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(torn, '{"refreshToken": "sk-ant-ort01-x", "acc', { mode: 0o600 });
    const older = `${tmp.dir}/.credentials.json.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(
      older,
      JSON.stringify({ ...before, refreshToken: "old-r", expiresAt: before.expiresAt - 1 }),
      { mode: 0o600 },
    );

    // The next process refreshes (forced, as after a 401): it adopts the temp file under the
    // lock instead of spending the consumed refresh token.
    const store = new CredentialStore(path);
    const r = await store.ensureFresh({
      marginMs: 60_000,
      force: true,
      refresh: (rt) => refreshAccessToken(loadMsgConfig((n) => fakeEnv(fake, path)[n]), fetch, rt),
    });
    assert.equal(fake.failedRefreshCount, 0, "the consumed refresh token was never sent again");
    assert.equal(r.refreshed, false);
    assert.equal(fake.refreshCount, 1);
    assert.equal(r.credentials.refreshToken, live.refreshToken);
    assert.equal(r.credentials.accessToken, live.accessToken);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), live);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.deepEqual(
      [...Deno.readDirSync(tmp.dir)].map((e) => e.name).filter((n) => n.endsWith(".tmp")),
      [],
      "the other leftovers are removed",
    );
    // And the adopted refresh token is the live one: the next refresh works.
    const again = await store.ensureFresh({
      marginMs: 60_000,
      force: true,
      refresh: (rt) => refreshAccessToken(loadMsgConfig((n) => fakeEnv(fake, path)[n]), fetch, rt),
    });
    assert.equal(again.refreshed, true);
    assert.equal(fake.failedRefreshCount, 0);
  } finally {
    await fake.close();
    await tmp.cleanup();
  }
});
