/** In-process tests of the shared src/msg modules (no subprocesses, injected clocks). */

import assert from "node:assert/strict";
import {
  ConfigError,
  DEFAULTS,
  loadMsgConfig,
  resolveProxy,
  validateProxyUrl,
} from "../../src/msg/config.ts";
import { parseSse, type SseEvent } from "../../src/msg/sse.ts";
import { parseOAuthUsage, parseUnifiedRateLimits } from "../../src/msg/ratelimit.ts";
import {
  BILLING_HEADER,
  IDENTITY_PREAMBLE,
  type MessageRequest,
  prepareMessagesRequest,
  validateMessageRequest,
  ValidationError,
} from "../../src/msg/prepare.ts";
import { cut, redactBody, redactHeaders, redactUrl } from "../../src/msg/http.ts";
import { parseManualCode, pkceChallenge } from "../../src/msg/oauth.ts";
import { parseCommandLine } from "../../src/msgcli/args.ts";
import { UsageError } from "../../src/common/errors.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("config: defaults, overrides, and errors naming the variable", () => {
  const cfg = loadMsgConfig(env({ HOME: "/home/u" }));
  assert.equal(cfg.apiBaseUrl, DEFAULTS.apiBaseUrl);
  assert.equal(cfg.authorizeUrl, "https://claude.ai/oauth/authorize");
  assert.equal(cfg.tokenUrl, "https://platform.claude.com/v1/oauth/token");
  assert.equal(cfg.clientId, "9d1c250a-e61b-44d9-88ed-5944d1962f5e");
  assert.equal(cfg.credentialsPath, "/home/u/.config/msgcli/credentials.json");
  assert.equal(cfg.debug, false);
  assert.equal(cfg.proxy, undefined);
  const o = loadMsgConfig(env({
    HOME: "/h",
    MSGCLI_API_BASE_URL: "http://gw.local:8080/",
    MSGCLI_CREDENTIALS_PATH: "/tmp/c.json",
    MSGCLI_DEBUG: "1",
    MSGCLI_OAUTH_CLIENT_ID: "abc",
  }));
  assert.equal(o.apiBaseUrl, "http://gw.local:8080");
  assert.equal(o.credentialsPath, "/tmp/c.json");
  assert.equal(o.debug, true);
  assert.equal(o.clientId, "abc");
  assert.throws(
    () => loadMsgConfig(env({ HOME: "/h", MSGCLI_OAUTH_TOKEN_URL: "ftp://x" })),
    /MSGCLI_OAUTH_TOKEN_URL/,
  );
});

Deno.test("config: loadMsgConfig resolves the proxy once, --proxy before the variables", () => {
  const home = { HOME: "/h" };
  assert.equal(loadMsgConfig(env({ ...home, ALL_PROXY: "socks5://c:1" })).proxy, "socks5://c:1");
  // With the flag the variables are not read, so a bad one does not matter.
  const cfg = loadMsgConfig(env({ ...home, HTTPS_PROXY: "gopher://x:1" }), "http://p:1");
  assert.equal(cfg.proxy, "http://p:1");
  assert.equal(loadMsgConfig(env(home)).proxy, undefined);
  assert.throws(() => loadMsgConfig(env(home), "ftp://x:1"), /--proxy: unsupported proxy scheme/);
});

Deno.test("config: proxy precedence flag > HTTPS_PROXY > https_proxy > ALL_PROXY > all_proxy", () => {
  const all = {
    HTTPS_PROXY: "http://a:1",
    https_proxy: "http://b:1",
    ALL_PROXY: "socks5://c:1",
    all_proxy: "socks5h://d:1",
  };
  assert.equal(resolveProxy("https://flag:1", env(all)), "https://flag:1");
  assert.equal(resolveProxy(undefined, env(all)), "http://a:1");
  assert.equal(resolveProxy(undefined, env({ ...all, HTTPS_PROXY: "" })), "http://b:1");
  assert.equal(resolveProxy(undefined, env({ ALL_PROXY: "socks5://c:1" })), "socks5://c:1");
  assert.equal(resolveProxy(undefined, env({ all_proxy: "socks5h://d:1" })), "socks5h://d:1");
  assert.equal(resolveProxy(undefined, env({})), undefined);
  assert.throws(() => resolveProxy("ftp://x:1", env({})), /--proxy: unsupported proxy scheme/);
  assert.throws(() => resolveProxy(undefined, env({ ALL_PROXY: "x" })), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.source, "ALL_PROXY");
    return true;
  });
  const u = validateProxyUrl("http://us%40er:p%3Ass@127.0.0.1:3128");
  assert.equal(u.username, "us%40er");
  assert.throws(() => validateProxyUrl("http://h:1/path"), /path/);
  assert.throws(() => validateProxyUrl("socks4://h:1"), /socks4/);
  // A malformed %-escape in the userinfo is a configuration error that names the source.
  assert.throws(() => validateProxyUrl("socks5h://u:50%zz@h:1", "ALL_PROXY"), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.source, "ALL_PROXY");
    assert.ok(!(e as Error).message.includes("50%zz"));
    return true;
  });
  // The message never repeats a password.
  assert.throws(() => validateProxyUrl("gopher://u:hunter2@h:1"), (e: unknown) => {
    assert.ok(!(e as Error).message.includes("hunter2"));
    return true;
  });
});

async function collect(chunks: string[]): Promise<SseEvent[]> {
  const enc = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
  const out: SseEvent[] = [];
  for await (const e of parseSse(stream)) out.push(e);
  return out;
}

Deno.test("sse: framing with CRLF, CR, comments, multi-line data, split chunks", async () => {
  const text = "event: a\r\ndata: 1\r\n\r\n: comment\n\nevent: b\ndata: x\ndata: y\n\n" +
    "data: plain\rid: 7\r\r" + "event: tail\ndata: z";
  const expected: SseEvent[] = [
    { event: "a", data: "1" },
    { event: "b", data: "x\ny" },
    { event: "message", data: "plain", id: "7" },
    { event: "tail", data: "z", id: "7" },
  ];
  assert.deepEqual(await collect([text]), expected);
  // Every split point, including inside CRLF and multi-byte characters.
  const full = 'event: u\ndata: {"t":"héllo ✓"}\r\n\r\n';
  const bytes = new TextEncoder().encode(full);
  for (let i = 1; i < bytes.length; i++) {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, i));
        c.enqueue(bytes.slice(i));
        c.close();
      },
    });
    const evs: SseEvent[] = [];
    for await (const e of parseSse(stream)) evs.push(e);
    assert.deepEqual(evs, [{ event: "u", data: '{"t":"héllo ✓"}' }], `split at ${i}`);
  }
});

Deno.test("ratelimit: unified headers become windows with ISO resets", () => {
  const h = new Headers({
    "anthropic-ratelimit-unified-status": "allowed_warning",
    "anthropic-ratelimit-unified-reset": "1800000000",
    "anthropic-ratelimit-unified-5h-utilization": "0.8",
    "anthropic-ratelimit-unified-5h-reset": "1800000000",
    "anthropic-ratelimit-unified-5h-status": "allowed_warning",
    "anthropic-ratelimit-unified-7d-utilization": "0.1",
    "anthropic-ratelimit-unified-7d_opus-utilization": "0.3",
    "anthropic-ratelimit-unified-representative-claim": "five_hour",
    "x-other": "1",
  });
  const u = parseUnifiedRateLimits(h)!;
  assert.equal(u.status, "allowed_warning");
  assert.equal(u.reset, "2027-01-15T08:00:00.000Z");
  assert.deepEqual(u.windows["5h"], {
    utilization: 0.8,
    reset: "2027-01-15T08:00:00.000Z",
    status: "allowed_warning",
  });
  assert.deepEqual(u.windows["7d"], { utilization: 0.1, reset: null });
  assert.equal(u.windows["7d_opus"].utilization, 0.3);
  assert.equal(u.extra["representative-claim"], "five_hour");
  assert.equal(parseUnifiedRateLimits(new Headers({ "x": "y" })), null);
  const o = parseOAuthUsage({
    five_hour: { utilization: 25, resets_at: "2026-01-01T00:00:00+00:00" },
    seven_day: { utilization: 50.5, resets_at: null },
    seven_day_opus: null,
  });
  assert.deepEqual(o.windows["5h"], { utilization: 0.25, reset: "2026-01-01T00:00:00.000Z" });
  assert.deepEqual(o.windows["7d"], { utilization: 0.505, reset: null });
  assert.equal(o.windows["7d_opus"], undefined);
});

Deno.test("prepare: system order, user content unchanged, metadata, headers, no mutation", () => {
  const blocks = [{ type: "text", text: "b1", cache_control: { type: "ephemeral" } }, {
    type: "text",
    text: "b2",
  }];
  const body: MessageRequest = {
    model: "claude-sonnet-4-5",
    max_tokens: 10,
    system: blocks,
    messages: [{ role: "user", content: "hi" }],
    tools: [{ name: "t" }],
  };
  const snapshot = structuredClone(body);
  const p = prepareMessagesRequest(body, { accessToken: "tok", betas: ["files-api-2025-04-14"] });
  assert.deepEqual(body, snapshot);
  assert.deepEqual(p.body.system, [
    { type: "text", text: IDENTITY_PREAMBLE },
    { type: "text", text: BILLING_HEADER },
    ...blocks,
  ]);
  assert.deepEqual(p.body.tools, [{ name: "t" }]);
  assert.equal(typeof (p.body.metadata as Record<string, unknown>).user_id, "string");
  assert.equal(p.headers.get("authorization"), "Bearer tok");
  assert.equal(p.headers.get("anthropic-version"), "2023-06-01");
  assert.deepEqual(p.headers.get("anthropic-beta")!.split(","), [
    "oauth-2025-04-20",
    "interleaved-thinking-2025-05-14",
    "files-api-2025-04-14",
  ]);
  const s = prepareMessagesRequest(
    { ...body, system: "plain", metadata: { user_id: "mine" }, model: "claude-3-5-haiku" },
    { accessToken: "t", userId: "other" },
  );
  assert.deepEqual((s.body.system as Array<{ text: string }>).map((b) => b.text), [
    IDENTITY_PREAMBLE,
    BILLING_HEADER,
    "plain",
  ]);
  assert.equal((s.body.metadata as Record<string, unknown>).user_id, "mine");
  assert.equal(s.headers.get("anthropic-beta"), "oauth-2025-04-20");
});

Deno.test("validateMessageRequest checks only what the preparation needs and names the field", () => {
  const ok = { model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] };
  assert.equal(validateMessageRequest(ok), ok);
  const cases: Array<[unknown, string]> = [
    [null, "body"],
    [[1], "body"],
    [{ ...ok, model: 3 }, "model"],
    [{ ...ok, system: 5 }, "system"],
    [{ ...ok, system: { text: "x" } }, "system"],
  ];
  for (const [input, field] of cases) {
    assert.throws(() => validateMessageRequest(input), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.field, field);
      assert.ok(e.message.startsWith(field));
      return true;
    });
  }
  // The upstream judges the rest: roles, content blocks, max_tokens, unknown fields.
  const passed: unknown[] = [
    { ...ok, messages: [{ role: "user", content: "a" }, { role: "system", content: "b" }] },
    { ...ok, max_tokens: undefined, future_field: { x: 1 } },
    { ...ok, messages: [{ role: "user", content: [{ type: "future_block", data: 1 }] }] },
    { ...ok, temperature: 3, stream: "yes", messages: [] },
    { model: "m", messages: [{ role: "user", content: "x" }] },
  ];
  for (const input of passed) assert.equal(validateMessageRequest(input), input);
});

Deno.test("prepare: a request with its own identity preamble and billing block gets neither twice", () => {
  const own = [
    {
      type: "text",
      text: "x-anthropic-billing-header: cc_version=2.1.330.440; cc_entrypoint=cli;",
    },
    { type: "text", text: "You are a Claude agent, built on Anthropic's Claude Agent SDK." },
    { type: "text", text: "rest", cache_control: { type: "ephemeral" } },
  ];
  const body: MessageRequest = { model: "m", messages: [{ role: "user", content: "x" }] };
  assert.deepEqual(
    prepareMessagesRequest({ ...body, system: own }, { accessToken: "t" }).body.system,
    own,
  );
  const cc = [{ type: "text", text: `${IDENTITY_PREAMBLE}` }, own[0]];
  assert.deepEqual(
    prepareMessagesRequest({ ...body, system: cc }, { accessToken: "t" }).body.system,
    cc,
  );
  // Only the billing block: the identity preamble is put first, the rest kept.
  assert.deepEqual(
    prepareMessagesRequest({ ...body, system: [own[0], own[2]] }, { accessToken: "t" }).body.system,
    [{ type: "text", text: IDENTITY_PREAMBLE }, own[0], own[2]],
  );
  // Only an identity preamble: the billing block is added.
  assert.deepEqual(
    prepareMessagesRequest({ ...body, system: [cc[0]] }, { accessToken: "t" }).body.system,
    [{ type: "text", text: BILLING_HEADER }, cc[0]],
  );
});

Deno.test("redaction helpers", () => {
  assert.deepEqual(
    redactHeaders({
      Authorization: "Bearer x",
      Cookie: "a=b",
      "Proxy-Authorization": "Basic y",
      "set-cookie": "s",
      "x-api-key": "k",
      "anthropic-beta": "b",
    }),
    {
      authorization: "[REDACTED]",
      cookie: "[REDACTED]",
      "proxy-authorization": "[REDACTED]",
      "set-cookie": "[REDACTED]",
      "x-api-key": "[REDACTED]",
      "anthropic-beta": "b",
    },
  );
  const body = JSON.stringify({
    access_token: "sk-ant-oat01-AAA",
    refresh_token: "RRR",
    accessToken: "A2",
    code_verifier: "V",
    nested: { token: "T" },
    keep: "ok",
  });
  const red = redactBody(body);
  for (const secret of ["AAA", "RRR", "A2", '"V"', '"T"']) assert.ok(!red.includes(secret), secret);
  assert.match(red, /"keep":"ok"/);
  assert.equal(
    redactBody("grant_type=refresh_token&refresh_token=abc"),
    "grant_type=refresh_token&refresh_token=[REDACTED]",
  );
  assert.equal(redactBody("auth Bearer abc.def"), "auth Bearer [REDACTED]");
  assert.equal(
    redactUrl("http://u:p@h:1/x?code=c&a=1"),
    "http://***:***@h:1/x?code=%5BREDACTED%5D&a=1",
  );
  assert.ok(!redactUrl("socks5://u:secretpw@h:1").includes("secretpw"));
  assert.equal(cut("abcdef", 3), "abc… [cut: 3 more characters]");
  assert.equal(cut("x".repeat(8192)).length, 8192);
});

Deno.test("oauth: PKCE S256 (RFC 7636 appendix B) and manual code parsing", async () => {
  assert.equal(
    await pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  );
  assert.deepEqual(parseManualCode(" abc#def \n"), { code: "abc", state: "def" });
  assert.throws(() => parseManualCode("abc"), /code#state/);
  assert.throws(() => parseManualCode("#abc"), /code#state/);
});

Deno.test("cli parsing: commands, scopes, later system flag wins", () => {
  assert.equal(parseCommandLine(["hello"]).command, "query");
  assert.equal(parseCommandLine(["stream", "x"]).command, "stream");
  assert.equal(parseCommandLine(["-h"]).command, "help");
  assert.equal(parseCommandLine(["-v"]).command, "version");
  assert.deepEqual(parseCommandLine(["--debug", "serve", "--listen", "x"]).serveArgs, [
    "--debug",
    "--listen",
    "x",
  ]);
  assert.deepEqual(parseCommandLine(["q", "--system", "a", "--system-file", "f"]).gen.system, {
    kind: "file",
    value: "f",
  });
  assert.deepEqual(parseCommandLine(["q", "--system-file", "f", "--system", "a"]).gen.system, {
    kind: "text",
    value: "a",
  });
  assert.equal(parseCommandLine(["--", "serve"]).prompt, "serve");
  // A flag's value "serve" is not the serve command.
  const sys = parseCommandLine(["--system", "serve", "hi"]);
  assert.equal(sys.command, "query");
  assert.deepEqual(sys.gen.system, { kind: "text", value: "serve" });
  assert.equal(parseCommandLine(["--model", "serve", "stream", "hi"]).command, "stream");
  assert.deepEqual(parseCommandLine(["--proxy", "http://p:1", "serve"]).serveArgs, [
    "--proxy",
    "http://p:1",
  ]);
  assert.throws(() => parseCommandLine(["q", "--max-tokens", "-1"]), UsageError);
  assert.throws(() => parseCommandLine(["login", "x"]), /unexpected argument/);
});

Deno.test("upstream fetch: the dial check times out, names the hop, and is retried later", async () => {
  const { createUpstreamFetch, DialError } = await import("../../src/msg/http.ts");
  let dials = 0;
  const never = () => {
    dials++;
    return new Promise<{ close(): void }>(() => {});
  };
  const up = createUpstreamFetch({
    proxy: "http://u:p@127.0.0.1:3128",
    dialTimeoutMs: 20,
    connect: never,
  });
  try {
    for (let i = 0; i < 2; i++) {
      await assert.rejects(() => up.fetch("https://api.example.test/v1/messages"), (e: unknown) => {
        assert.ok(e instanceof DialError);
        assert.equal(e.host, "127.0.0.1:3128");
        assert.match(e.message, /timed out after 20 ms/);
        return true;
      });
    }
    assert.equal(dials, 2);
  } finally {
    up.close();
  }
});
