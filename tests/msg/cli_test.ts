/**
 * The real `msgcli` entrypoint run as a subprocess (with the `msgcli` task's permissions)
 * against the fake upstream: every command and flag, errors, refresh and redaction.
 */

import assert from "node:assert/strict";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { VERSION } from "../../src/version.ts";
import { BILLING_HEADER, IDENTITY_PREAMBLE } from "../../src/msg/prepare.ts";
import { fakeEnv, runMsgcli, seedCredentials, spawnMsgcli, tempDir } from "./helpers.ts";

type Json = Record<string, unknown>;

async function setup(opts: { expiresInMs?: number; mode?: number; seed?: boolean } = {}) {
  const fake = startFakeAnthropic();
  const tmp = await tempDir();
  const path = `${tmp.dir}/credentials.json`;
  const creds = opts.seed === false ? undefined : await seedCredentials(fake, path, opts);
  const env = fakeEnv(fake, path);
  return {
    fake,
    path,
    creds,
    env,
    dir: tmp.dir,
    async [Symbol.asyncDispose]() {
      await fake.close();
      await tmp.cleanup();
    },
  };
}

function systemTexts(body: unknown): string[] {
  const sys = (body as Json).system as Array<{ type: string; text: string }>;
  return sys.map((b) => b.text);
}

Deno.test("version, --version and -v print the version without any request", async () => {
  await using s = await setup();
  for (const args of [["version"], ["--version"], ["-v"], ["query", "x", "--version"]]) {
    const r = await runMsgcli(args, { env: s.env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `msgcli v${VERSION}\n`);
  }
  // Also with no credentials and an unreachable API.
  const r = await runMsgcli(["version"], {
    env: { MSGCLI_API_BASE_URL: "http://127.0.0.1:9", MSGCLI_CREDENTIALS_PATH: "/nonexistent/x" },
  });
  assert.equal(r.stdout, `msgcli v${VERSION}\n`);
  assert.equal(s.fake.requests.length, 0);
});

Deno.test("help, --help and -h print usage and exit 0", async () => {
  await using s = await setup();
  for (const args of [["help"], ["--help"], ["-h"], ["stream", "--help"]]) {
    const r = await runMsgcli(args, { env: s.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Usage:/);
    assert.match(r.stdout, /msgcli login/);
    assert.match(r.stdout, /--max-tokens N/);
  }
  assert.equal(s.fake.requests.length, 0);
});

Deno.test("unknown flags exit 1 with a usage hint and no request at all", async () => {
  await using s = await setup();
  const cases: Array<[string[], RegExp]> = [
    [["--bogus"], /--bogus/],
    [["query", "hi", "--nope"], /--nope/],
    [["-x", "hi"], /-x/],
    [["stream", "hi", "--temprature", "0.5"], /--temprature/],
    [["usage", "--verbose"], /--verbose/],
    [["login", "--force"], /--force/],
    [["hi", "--debug=1"], /debug/],
  ];
  for (const [args, re] of cases) {
    const r = await runMsgcli(args, { env: s.env });
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.match(r.stderr, /msgcli --help/);
    assert.equal(r.stdout, "");
  }
  assert.equal(s.fake.requests.length, 0);
});

Deno.test("invalid values exit 1 naming the flag, before any request", async () => {
  await using s = await setup();
  const badJson = `${s.dir}/bad.json`;
  await Deno.writeTextFile(badJson, "[{]");
  const badRole = `${s.dir}/role.json`;
  await Deno.writeTextFile(badRole, JSON.stringify([{ role: "system", content: "x" }]));
  const notArray = `${s.dir}/obj.json`;
  await Deno.writeTextFile(notArray, JSON.stringify({ role: "user", content: "x" }));
  const cases: Array<[string[], RegExp, Record<string, string>?]> = [
    [["hi", "--temperature", "1.5"], /--temperature/],
    [["hi", "--temperature", "abc"], /--temperature/],
    [["hi", "--temperature=-0.1"], /--temperature/],
    [["hi", "--max-tokens", "0"], /--max-tokens/],
    [["hi", "--max-tokens", "2.5"], /--max-tokens/],
    [["hi", "--model", ""], /--model/],
    [["hi", "--system-file", `${s.dir}/missing.txt`], /--system-file: cannot read .*not found/],
    [["hi", "--history", `${s.dir}/missing.json`], /--history: cannot read/],
    [["hi", "--history", badJson], /--history: .*not valid JSON/],
    [["hi", "--history", badRole], /--history: entry \[0\]\.role/],
    [["hi", "--history", notArray], /--history: .*array/],
    [["hi", "--history", "-"], /--history: stdin is not valid JSON/],
    [["hi", "--proxy", "ftp://127.0.0.1:21"], /--proxy: unsupported proxy scheme "ftp"/],
    [["hi", "--proxy", "not a url"], /--proxy: not a valid proxy URL/],
    [["hi", "--proxy", "http://u:50%off@127.0.0.1:9"], /--proxy: .*invalid %-escape/],
    [["hi"], /HTTPS_PROXY: unsupported proxy scheme/, { HTTPS_PROXY: "gopher://x:1" }],
    [["hi"], /ALL_PROXY: /, { ALL_PROXY: "nonsense" }],
    [["query"], /missing prompt/],
    [[], /no command or prompt given/],
    [["--debug"], /no command or prompt given/],
    [["stream", "  "], /stream: missing prompt/],
    [["stream", "hi", "--out", "x"], /--out is not valid for "stream"/],
    [["usage", "--model", "m"], /--model is not valid for "usage"/],
    [["login", "--json"], /--json is not valid for "login"/],
    [["usage", "extra"], /unexpected argument "extra"/],
    [["hi", "--proxy"], /--proxy/],
  ];
  for (const [args, re, extra] of cases) {
    const r = await runMsgcli(args, { env: { ...s.env, ...(extra ?? {}) }, stdin: "not json" });
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(" "));
  }
  assert.equal(s.fake.requests.length, 0);
});

Deno.test("query sends the prepared request and prints the reply", async () => {
  await using s = await setup();
  const r = await runMsgcli(["query", "hello world"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "echo: hello world\n");
  const reqs = s.fake.requestsTo("/v1/messages");
  assert.equal(reqs.length, 1);
  const req = reqs[0];
  assert.equal(req.headers["authorization"], `Bearer ${s.creds!.accessToken}`);
  assert.equal(req.headers["anthropic-version"], "2023-06-01");
  assert.match(req.headers["anthropic-beta"], /(^|,)oauth-2025-04-20(,|$)/);
  assert.equal(req.headers["content-type"], "application/json");
  const body = req.json as Json;
  assert.deepEqual(systemTexts(body), [IDENTITY_PREAMBLE, BILLING_HEADER]);
  assert.deepEqual(body.messages, [{ role: "user", content: "hello world" }]);
  assert.equal(body.max_tokens, 4096);
  assert.equal(typeof body.model, "string");
  assert.equal("temperature" in body, false);
  assert.equal(typeof (body.metadata as Json).user_id, "string");
  // No refresh for a fresh token.
  assert.equal(s.fake.requestsTo("/v1/oauth/token").length, 0);
});

Deno.test("bare text is a query; words are joined; -- allows a prompt starting with -", async () => {
  await using s = await setup();
  let r = await runMsgcli(["hello", "there"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "echo: hello there\n");
  r = await runMsgcli(["--", "--not-a-flag"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "echo: --not-a-flag\n");
  r = await runMsgcli(["query", "--", "usage"], { env: s.env });
  assert.equal(r.stdout, "echo: usage\n");
});

Deno.test("generation flags: system order, later of --system/--system-file wins, history, model, max-tokens, temperature", async () => {
  await using s = await setup();
  const sysFile = `${s.dir}/sys.txt`;
  await Deno.writeTextFile(sysFile, "from file");
  const hist = `${s.dir}/hist.json`;
  const history = [{ role: "user", content: "q1" }, { role: "assistant", content: "a1" }];
  await Deno.writeTextFile(hist, JSON.stringify(history));

  let r = await runMsgcli(
    [
      "query",
      "p2",
      "--system",
      "inline",
      "--system-file",
      sysFile,
      "--history",
      hist,
      "--model",
      "claude-opus-4-1",
      "--max-tokens",
      "100",
      "--temperature",
      "0.3",
    ],
    { env: s.env },
  );
  assert.equal(r.code, 0, r.stderr);
  let req = s.fake.requestsTo("/v1/messages").at(-1)!;
  let body = req.json as Json;
  assert.deepEqual(systemTexts(body), [IDENTITY_PREAMBLE, BILLING_HEADER, "from file"]);
  assert.deepEqual(body.messages, [...history, { role: "user", content: "p2" }]);
  assert.equal(body.model, "claude-opus-4-1");
  assert.equal(body.max_tokens, 100);
  assert.equal(body.temperature, 0.3);
  assert.match(req.headers["anthropic-beta"], /interleaved-thinking-2025-05-14/);

  r = await runMsgcli(["p3", "--system-file", sysFile, "--system", "inline"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  body = s.fake.requestsTo("/v1/messages").at(-1)!.json as Json;
  assert.deepEqual(systemTexts(body), [IDENTITY_PREAMBLE, BILLING_HEADER, "inline"]);

  // --history - reads stdin.
  r = await runMsgcli(["stream", "p4", "--history", "-"], {
    env: s.env,
    stdin: JSON.stringify(history),
  });
  assert.equal(r.code, 0, r.stderr);
  req = s.fake.requestsTo("/v1/messages").at(-1)!;
  body = req.json as Json;
  assert.deepEqual(body.messages, [...history, { role: "user", content: "p4" }]);
  assert.equal(body.stream, true);
});

Deno.test("stream prints text deltas as they arrive and flushes after each", async () => {
  await using s = await setup();
  s.fake.options.replyText = "one two three four five six";
  s.fake.options.streamDelayMs = 80;
  const child = spawnMsgcli(["stream", "go"], { env: s.env });
  const chunks: Array<{ text: string; at: number }> = [];
  const dec = new TextDecoder();
  for await (const c of child.stdout) chunks.push({ text: dec.decode(c), at: performance.now() });
  const status = await child.status;
  const err = await new Response(child.stderr).text();
  assert.equal(status.code, 0, err);
  assert.equal(chunks.map((c) => c.text).join(""), "one two three four five six\n");
  // Seven 4-character deltas 80 ms apart: they must arrive in several separate writes.
  assert.ok(chunks.length >= 3, `expected incremental output, got ${chunks.length} chunk(s)`);
  const req = s.fake.requestsTo("/v1/messages")[0];
  assert.equal((req.json as Json).stream, true);
  assert.equal(req.headers["accept"], "text/event-stream");
});

Deno.test("stream: a mid-stream error event exits non-zero with the API message", async () => {
  await using s = await setup();
  s.fake.options.streamError = true;
  const r = await runMsgcli(["stream", "hello"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /overloaded_error: Overloaded/);
  assert.match(r.stdout, /^echo/); // the text before the error was printed
});

Deno.test("upstream errors show status and the API message; no retry for 400", async () => {
  await using s = await setup();
  s.fake.options.errors = [{ status: 400, type: "invalid_request_error", message: "bad thing" }];
  const r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /API error 400 invalid_request_error: bad thing/);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 1);
});

Deno.test("retries: 529 and 500 are retried (retry-after 0), at most 2 retries", async () => {
  await using s = await setup();
  const ra = { "retry-after": "0" };
  s.fake.options.errors = [
    { status: 529, type: "overloaded_error", message: "Overloaded", headers: ra },
    { status: 500, type: "api_error", message: "boom", headers: ra },
  ];
  let r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 3);

  s.fake.options.errors = [1, 2, 3].map(() => ({
    status: 503,
    type: "api_error",
    message: "down",
    headers: ra,
  }));
  r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /API error 503/);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 6);

  // A 429 with a long retry-after is reported, not retried; x-should-retry: false wins.
  s.fake.options.errors = [{
    status: 429,
    type: "rate_limit_error",
    message: "limit reached",
    headers: { "retry-after": "7200" },
  }];
  r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /429 rate_limit_error: limit reached/);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 7);
  s.fake.options.errors = [{
    status: 500,
    type: "api_error",
    message: "no",
    headers: { "x-should-retry": "false" },
  }];
  r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 2);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 8);
});

Deno.test("usage shows windows with bars, percent and local reset; --json for scripts", async () => {
  await using s = await setup();
  let r = await runMsgcli(["usage"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /5-hour\s+\[█{8}░{12}\]\s+42%\s+resets \d{4}-\d\d-\d\d \d\d:\d\d/);
  assert.match(r.stdout, /7-day\s+\[/);
  assert.match(r.stdout, /7-day opus\s+\[.*\]\s+5%/);
  r = await runMsgcli(["usage", "--json"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.windows["5h"].utilization, 0.42);
  assert.equal(j.windows["7d"].utilization, 0.17);
  assert.equal(typeof j.windows["7d"].reset, "string");
  assert.equal(j.windows["7d_sonnet"], undefined);
  // Never a paid request.
  assert.equal(s.fake.requestsTo("/v1/messages").length, 0);
  assert.equal(s.fake.requestsTo("/api/oauth/usage").length, 2);
});

Deno.test("missing credentials print the real reason (path), exit 2, no request", async () => {
  await using s = await setup({ seed: false });
  const r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no credentials at .*credentials\.json; run "msgcli login"/);
  // The missing file is the whole story: no "caused by" line about the lock file.
  assert.doesNotMatch(r.stderr, /caused by|\.lock/);
  assert.equal(s.fake.requests.length, 0);
});

Deno.test("a credentials file readable by others is refused with a message", async () => {
  await using s = await setup({ mode: 0o644 });
  const r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /mode 0644.*chmod 600/s);
  assert.equal(s.fake.requests.length, 0);
});

Deno.test("lazy refresh: a token about to expire is refreshed once and the file rotated (0600)", async () => {
  await using s = await setup({ expiresInMs: 5_000 });
  const r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.fake.refreshCount, 1);
  const file = JSON.parse(await Deno.readTextFile(s.path));
  assert.equal(file.accessToken, s.fake.latest!.accessToken);
  assert.equal(file.refreshToken, s.fake.latest!.refreshToken);
  assert.ok(file.expiresAt > Date.now() + 3000_000);
  assert.equal((await Deno.stat(s.path)).mode! & 0o777, 0o600);
  const msg = s.fake.requestsTo("/v1/messages")[0];
  assert.equal(msg.headers["authorization"], `Bearer ${file.accessToken}`);
});

Deno.test("a 401 forces one refresh and one more attempt", async () => {
  await using s = await setup();
  // A token the fake does not know, but a valid refresh token and a far expiry.
  const file = JSON.parse(await Deno.readTextFile(s.path));
  file.accessToken = "sk-ant-oat01-revoked";
  await Deno.writeTextFile(s.path, JSON.stringify(file));
  const r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.fake.refreshCount, 1);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 2);
});

Deno.test("ten parallel queries with a token about to expire share exactly one refresh", async () => {
  await using s = await setup({ expiresInMs: 5_000 });
  s.fake.options.refreshDelayMs = 300; // widen the race window
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => runMsgcli(["query", `n${i}`], { env: s.env })),
  );
  results.forEach((r, i) => {
    assert.equal(r.code, 0, `process ${i}: ${r.stderr}`);
    assert.equal(r.stdout, `echo: n${i}\n`);
  });
  assert.equal(s.fake.refreshCount, 1);
  assert.equal(s.fake.failedRefreshCount, 0);
  assert.equal(s.fake.requestsTo("/v1/oauth/token").length, 1);
  const file = JSON.parse(await Deno.readTextFile(s.path));
  assert.equal(file.accessToken, s.fake.latest!.accessToken);
  assert.equal(file.refreshToken, s.fake.latest!.refreshToken);
  assert.equal((await Deno.stat(s.path)).mode! & 0o777, 0o600);
  // No temp files left behind.
  const names = [];
  for await (const e of Deno.readDir(s.dir)) names.push(e.name);
  assert.deepEqual(names.sort(), ["credentials.json", "credentials.json.lock"]);
});

Deno.test("a non-writable credentials file refuses the refresh before any OAuth call", async () => {
  await using s = await setup({ expiresInMs: 5_000, mode: 0o400 });
  const before = await Deno.readTextFile(s.path);
  const r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /not writable; refusing to refresh/);
  assert.equal(s.fake.requests.length, 0);
  assert.equal(await Deno.readTextFile(s.path), before);
});

Deno.test("a rejected refresh writes nothing and reports invalid_grant", async () => {
  await using s = await setup({ expiresInMs: 5_000 });
  const file = JSON.parse(await Deno.readTextFile(s.path));
  file.refreshToken = "sk-ant-ort01-unknown";
  await Deno.writeTextFile(s.path, JSON.stringify(file));
  const before = await Deno.readTextFile(s.path);
  const r = await runMsgcli(["hi"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /invalid_grant/);
  assert.match(r.stderr, /msgcli login/);
  assert.equal(await Deno.readTextFile(s.path), before);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 0);
});

Deno.test("debug dump of failing calls redacts every token", async () => {
  await using s = await setup();
  s.fake.options.errors = [{ status: 400, type: "invalid_request_error", message: "nope" }];
  let r = await runMsgcli(["hi", "--debug"], { env: s.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /\[msgcli debug\] POST http:\/\/127\.0\.0\.1:\d+\/v1\/messages -> 400/);
  assert.match(r.stderr, /request headers: .*"authorization":"\[REDACTED\]"/);
  assert.match(r.stderr, /request body: .*"messages"/);
  assert.match(r.stderr, /response body: .*nope/);
  assert.match(r.stderr, /\(\d+ ms\)/);
  assert.ok(!r.stderr.includes(s.creds!.accessToken), "access token leaked");
  assert.ok(!r.stderr.includes(s.creds!.refreshToken), "refresh token leaked");

  // A failing refresh (MSGCLI_DEBUG=1): the request body carries the refresh token.
  const file = JSON.parse(await Deno.readTextFile(s.path));
  file.expiresAt = Date.now() + 1000;
  file.refreshToken = "sk-ant-ort01-secret-unknown";
  await Deno.writeTextFile(s.path, JSON.stringify(file));
  r = await runMsgcli(["hi"], { env: { ...s.env, MSGCLI_DEBUG: "1" } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /\/v1\/oauth\/token -> 400/);
  assert.match(r.stderr, /"refresh_token":"\[REDACTED\]"/);
  assert.ok(!r.stderr.includes("secret-unknown"), "refresh token leaked");
  assert.ok(!r.stderr.includes(s.creds!.accessToken), "access token leaked");
});

Deno.test("serve is handed to the daemon's own flag parser (help, unknown flags)", async () => {
  await using s = await setup();
  let r = await runMsgcli(["serve", "--help"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Usage: msgcli serve/);
  r = await runMsgcli(["--debug", "serve", "--bogus"], { env: s.env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--bogus/);
  // --version and -v are global: they print the version for serve too.
  for (const args of [["serve", "--version"], ["-v", "serve"], ["serve", "--listen", ":1", "-v"]]) {
    r = await runMsgcli(args, { env: s.env });
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, `msgcli v${VERSION}\n`);
  }
  assert.equal(s.fake.requests.length, 0);
});
