/**
 * `msgcli login` end to end against the fake OAuth server: the test plays the browser
 * (follows the authorize redirect to the loopback callback) or pastes `code#state`.
 */

import assert from "node:assert/strict";
import { type FakeAnthropic, startFakeAnthropic } from "../fakes/anthropic.ts";
import { exists } from "../../src/common/fs.ts";
import { DEFAULTS } from "../../src/msg/config.ts";
import { fakeEnv, spawnMsgcli, tempDir } from "./helpers.ts";

/** Reads stderr until the authorize URL appears; returns it and the rest of the reader. */
async function readAuthorizeUrl(child: Deno.ChildProcess, fake: FakeAnthropic) {
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const re = new RegExp(`${fake.url.replaceAll(".", "\\.")}/oauth/authorize\\?\\S+`);
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`login exited before printing the URL:\n${seen}`);
    seen += value;
    const m = re.exec(seen);
    if (m) {
      const rest = (async () => {
        let tail = seen;
        while (true) {
          const r = await reader.read();
          if (r.done) return tail;
          tail += r.value;
        }
      })();
      return { url: new URL(m[0]), stderr: rest };
    }
  }
}

async function setup() {
  const fake = startFakeAnthropic();
  const tmp = await tempDir();
  return {
    fake,
    dir: tmp.dir,
    async [Symbol.asyncDispose]() {
      await fake.close();
      await tmp.cleanup();
    },
  };
}

Deno.test("login via the loopback callback writes credentials (0600) to --out", async () => {
  await using s = await setup();
  const out = `${s.dir}/nested/dir/creds.json`;
  const child = spawnMsgcli(["login", "--out", out], {
    env: fakeEnv(s.fake, `${s.dir}/unused.json`),
  });
  const { url, stderr } = await readAuthorizeUrl(child, s.fake);
  assert.equal(url.searchParams.get("code_challenge_method"), "S256");
  assert.equal(url.searchParams.get("response_type"), "code");
  assert.equal(url.searchParams.get("scope"), DEFAULTS.scopes);
  const redirect = new URL(url.searchParams.get("redirect_uri")!);
  assert.equal(redirect.hostname, "localhost");
  assert.equal(redirect.pathname, "/callback");

  // The browser: authorize redirects to the callback with code and state.
  const auth = await fetch(url, { redirect: "manual" });
  await auth.body?.cancel();
  assert.equal(auth.status, 302);
  const callback = new URL(auth.headers.get("location")!);
  assert.equal(callback.hostname, "localhost");
  const page = await fetch(callback);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Signed in/);

  const status = await child.status;
  await child.stdout.cancel();
  const err = await stderr;
  assert.equal(status.code, 0, err);
  assert.match(err, /Logged in\. Credentials written to .*creds\.json/);
  const creds = JSON.parse(await Deno.readTextFile(out));
  assert.equal(creds.accessToken, s.fake.latest!.accessToken);
  assert.equal(creds.refreshToken, s.fake.latest!.refreshToken);
  assert.ok(creds.expiresAt > Date.now() + 3000_000);
  assert.equal((await Deno.stat(out)).mode! & 0o777, 0o600);
  assert.equal(await exists(`${s.dir}/unused.json`), false);

  // The token request carried the PKCE verifier and the same redirect_uri.
  const tok = s.fake.requestsTo("/v1/oauth/token")[0].json as Record<string, string>;
  assert.equal(tok.grant_type, "authorization_code");
  assert.equal(tok.redirect_uri, redirect.toString());
  assert.ok(tok.code_verifier.length >= 43);
});

Deno.test("login: a callback with a wrong state fails and writes nothing", async () => {
  await using s = await setup();
  const out = `${s.dir}/creds.json`;
  const child = spawnMsgcli(["login"], { env: fakeEnv(s.fake, out) });
  const { url, stderr } = await readAuthorizeUrl(child, s.fake);
  const redirect = new URL(url.searchParams.get("redirect_uri")!);
  redirect.searchParams.set("code", "code_forged");
  redirect.searchParams.set("state", "not-the-state");
  const page = await fetch(redirect);
  assert.equal(page.status, 400);
  await page.body?.cancel();
  const status = await child.status;
  await child.stdout.cancel();
  assert.equal(status.code, 2);
  assert.match(await stderr, /wrong state/);
  assert.equal(await exists(out), false);
  assert.equal(s.fake.requestsTo("/v1/oauth/token").length, 0);
});

Deno.test("login --manual reads code#state from stdin", async () => {
  await using s = await setup();
  const out = `${s.dir}/creds.json`;
  const child = spawnMsgcli(["login", "--manual"], { env: fakeEnv(s.fake, out), stdin: "" });
  const { url, stderr } = await readAuthorizeUrl(child, s.fake);
  assert.equal(url.searchParams.get("redirect_uri"), DEFAULTS.manualRedirectUrl);
  const res = await fetch(url);
  const text = await res.text();
  const pasted = /(code_\S+#\S+)/.exec(text)![1];
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(`  ${pasted}  \n`));
  await w.close();
  const status = await child.status;
  await child.stdout.cancel();
  const err = await stderr;
  assert.equal(status.code, 0, err);
  const creds = JSON.parse(await Deno.readTextFile(out));
  assert.equal(creds.refreshToken, s.fake.latest!.refreshToken);
  assert.equal((await Deno.stat(out)).mode! & 0o777, 0o600);
  const tok = s.fake.requestsTo("/v1/oauth/token")[0].json as Record<string, string>;
  assert.equal(tok.redirect_uri, DEFAULTS.manualRedirectUrl);
});

Deno.test("login --manual: a pasted value with the wrong state or no state writes nothing", async () => {
  await using s = await setup();
  const out = `${s.dir}/creds.json`;
  for (
    const [paste, re] of [["code_abc#wrong", /state does not match/], ["just-a-code", /code#state/]]
  ) {
    const child = spawnMsgcli(["login", "--manual"], { env: fakeEnv(s.fake, out), stdin: "" });
    const { stderr } = await readAuthorizeUrl(child, s.fake);
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(`${paste}\n`));
    await w.close();
    const status = await child.status;
    await child.stdout.cancel();
    assert.notEqual(status.code, 0);
    assert.match(await stderr, re as RegExp);
  }
  assert.equal(await exists(out), false);
  assert.equal(s.fake.requestsTo("/v1/oauth/token").length, 0);
});

Deno.test("login: a failed code exchange writes nothing", async () => {
  await using s = await setup();
  const out = `${s.dir}/creds.json`;
  const child = spawnMsgcli(["login", "--manual"], { env: fakeEnv(s.fake, out), stdin: "" });
  const { url, stderr } = await readAuthorizeUrl(child, s.fake);
  const state = url.searchParams.get("state")!;
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(`code_never_issued#${state}\n`));
  await w.close();
  const status = await child.status;
  await child.stdout.cancel();
  assert.equal(status.code, 2);
  assert.match(await stderr, /token endpoint answered 400 invalid_grant/);
  assert.equal(await exists(out), false);
});

/** Reads `reader` until `re` matches what was read; returns all of it. */
async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  re: RegExp,
  seen = "",
): Promise<string> {
  while (!re.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited before ${re}:\n${seen}`);
    seen += value;
  }
  return seen;
}

Deno.test("login with no browser: offers the --manual way at once, with its URL, and takes the pasted code", async () => {
  await using s = await setup();
  const out = `${s.dir}/creds.json`;
  const child = spawnMsgcli(["login"], { env: fakeEnv(s.fake, out), stdin: "" });
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const t0 = Date.now();
  const seen = await readUntil(reader, /Code \(or wait for the browser\): /);
  assert.ok(Date.now() - t0 < 20_000, "the hint comes at once, not after the wait");
  assert.match(seen, /No browser could be opened on this machine/);
  assert.match(seen, /msgcli login --manual/);
  const urls = [...seen.matchAll(/http:\/\/\S+\/oauth\/authorize\?\S+/g)].map((m) => new URL(m[0]));
  assert.equal(urls.length, 2);
  assert.equal(urls[1].searchParams.get("redirect_uri"), DEFAULTS.manualRedirectUrl);
  assert.equal(urls[1].searchParams.get("state"), urls[0].searchParams.get("state"));
  // Sign in on "another machine": the page shows code#state; paste it.
  const pasted = /(code_\S+#\S+)/.exec(await (await fetch(urls[1])).text())![1];
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(`${pasted}\n`));
  await w.close();
  const status = await child.status;
  await child.stdout.cancel();
  let rest = "";
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
  assert.equal(status.code, 0, seen + rest);
  assert.match(rest, /Logged in\./);
  const creds = JSON.parse(await Deno.readTextFile(out));
  assert.equal(creds.refreshToken, s.fake.latest!.refreshToken);
  const tok = s.fake.requestsTo("/v1/oauth/token")[0].json as Record<string, string>;
  assert.equal(tok.redirect_uri, DEFAULTS.manualRedirectUrl);
});

Deno.test("login: a browser that never answers gets the --manual hint after --browser-wait; the callback still works", async () => {
  await using s = await setup();
  const out = `${s.dir}/creds.json`;
  // A browser opener that starts and does nothing (a machine whose browser never answers).
  const bin = `${s.dir}/bin`;
  await Deno.mkdir(bin);
  await Deno.writeTextFile(`${bin}/xdg-open`, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const env = {
    ...fakeEnv(s.fake, out),
    MSGCLI_NO_BROWSER: "",
    DISPLAY: ":99",
    PATH: `${bin}:${Deno.env.get("PATH")}`,
  };
  const child = spawnMsgcli(["login", "--browser-wait", "1"], { env, stdin: "" });
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const first = await readUntil(reader, /oauth\/authorize\?\S+\s/);
  assert.doesNotMatch(first, /--manual/, "no hint before the wait");
  const t0 = Date.now();
  const seen = await readUntil(reader, /Code \(or wait for the browser\): /, first);
  const waited = Date.now() - t0;
  assert.ok(waited < 20_000, `hint after ${waited} ms`);
  assert.match(seen, /No browser has answered within 1 s\./);
  assert.match(seen, /msgcli login --manual/);
  // The browser answers late after all: the callback finishes the sign-in.
  const url = new URL(/http:\/\/\S+\/oauth\/authorize\?\S+/.exec(seen)![0]);
  const auth = await fetch(url, { redirect: "manual" });
  await auth.body?.cancel();
  const page = await fetch(new URL(auth.headers.get("location")!));
  assert.match(await page.text(), /Signed in/);
  const status = await child.status;
  await child.stdout.cancel();
  await child.stdin.close().catch(() => {});
  await reader.cancel();
  assert.equal(status.code, 0);
  assert.equal(JSON.parse(await Deno.readTextFile(out)).refreshToken, s.fake.latest!.refreshToken);
});
