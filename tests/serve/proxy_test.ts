import assert from "node:assert/strict";
import { MESSAGE, post, startRig } from "./helpers.ts";
import { BILLING_HEADER, IDENTITY_PREAMBLE } from "../../src/msg/prepare.ts";

Deno.test("proxy: JSON reply passes through with status, headers and bytes", async () => {
  const rig = await startRig({ fake: { extraHeaders: { "x-custom-upstream": "kept" } } });
  try {
    const res = await post(`${rig.url}/v1/messages`, { ...MESSAGE, system: "Be brief." });
    const text = await res.text();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(res.headers.get("x-custom-upstream"), "kept");
    assert.match(res.headers.get("request-id") ?? "", /^req_/);
    assert.equal(res.headers.get("anthropic-ratelimit-unified-5h-utilization"), "0.42");
    assert.equal(res.headers.get("content-encoding"), null);
    // The fake serialises with JSON.stringify: re-serialising the parsed body gives the same bytes.
    const parsed = JSON.parse(text);
    assert.equal(text, JSON.stringify(parsed));
    assert.equal(parsed.content[0].text, "echo: hello there");
    // The upstream saw the OAuth preparation.
    const up = rig.fake.requestsTo("/v1/messages").at(-1)!;
    assert.equal(up.headers["authorization"], `Bearer ${rig.fake.latest!.accessToken}`);
    assert.match(up.headers["anthropic-beta"], /oauth-2025-04-20/);
    assert.equal(up.headers["anthropic-version"], "2023-06-01");
    assert.equal(up.headers["accept-encoding"], "identity");
    const sent = up.json as { system: Array<{ text: string }>; metadata: { user_id: string } };
    assert.deepEqual(sent.system.map((b) => b.text), [
      IDENTITY_PREAMBLE,
      BILLING_HEADER,
      "Be brief.",
    ]);
    assert.equal(typeof sent.metadata.user_id, "string");
  } finally {
    await rig.close();
  }
});

Deno.test("proxy: the client's key never reaches upstream; client betas are merged", async () => {
  const rig = await startRig({ args: ["--auth-key", "daemon-secret"] });
  try {
    const res = await post(`${rig.url}/v1/messages`, MESSAGE, {
      "x-api-key": "daemon-secret",
      "anthropic-beta": "files-api-2025-04-14",
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const up = rig.fake.requestsTo("/v1/messages").at(-1)!;
    assert.equal(up.headers["x-api-key"], undefined);
    assert.ok(!JSON.stringify(up.headers).includes("daemon-secret"));
    assert.match(up.headers["anthropic-beta"], /files-api-2025-04-14/);
    assert.match(up.headers["anthropic-beta"], /oauth-2025-04-20/);
  } finally {
    await rig.close();
  }
});

Deno.test("proxy: upstream errors pass through verbatim", async () => {
  const rig = await startRig({
    fake: {
      errors: [
        {
          status: 429,
          type: "rate_limit_error",
          message: "Number of requests has exceeded your rate limit",
          headers: { "retry-after": "17", "x-should-retry": "true" },
        },
        { status: 529, type: "overloaded_error", message: "Overloaded" },
        { status: 400, type: "invalid_request_error", message: "messages.0: bad thing" },
      ],
    },
  });
  try {
    const r1 = await post(`${rig.url}/v1/messages`, MESSAGE);
    assert.equal(r1.status, 429);
    assert.equal(r1.headers.get("retry-after"), "17");
    assert.equal(r1.headers.get("x-should-retry"), "true");
    assert.equal(
      await r1.text(),
      JSON.stringify({
        type: "error",
        error: {
          type: "rate_limit_error",
          message: "Number of requests has exceeded your rate limit",
        },
      }),
    );
    const r2 = await post(`${rig.url}/v1/messages`, MESSAGE);
    assert.equal(r2.status, 529);
    assert.equal(
      await r2.text(),
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    );
    const r3 = await post(`${rig.url}/v1/messages/count_tokens`, {
      model: "m",
      messages: MESSAGE.messages,
    });
    assert.equal(r3.status, 400);
    assert.equal((await r3.json()).error.message, "messages.0: bad thing");
    // Each went upstream exactly once: no retries in the pass-through.
    assert.equal(rig.fake.requestsTo("/v1/messages").length, 3);
  } finally {
    await rig.close();
  }
});

Deno.test("proxy: count_tokens passes through", async () => {
  const rig = await startRig();
  try {
    const body = { model: "claude-sonnet-4-6", messages: MESSAGE.messages, system: "x" };
    const res = await post(`${rig.url}/v1/messages/count_tokens`, body);
    assert.equal(res.status, 200);
    const json = await res.json();
    assert.equal(typeof json.input_tokens, "number");
    const up = rig.fake.requestsTo("/v1/messages/count_tokens").at(-1)!;
    const sent = up.json as Record<string, unknown>;
    assert.equal(sent.metadata, undefined, "count_tokens takes no metadata");
    assert.equal((sent.system as unknown[]).length, 3);
  } finally {
    await rig.close();
  }
});

Deno.test("proxy: 400 in the API error shape for bad JSON and the fields the preparation needs", async () => {
  const rig = await startRig();
  try {
    const cases: Array<[unknown, RegExp]> = [
      ["{not json", /^body: invalid JSON/],
      [[1, 2], /^body/],
      ["null", /^body/],
      [{ ...MESSAGE, model: 5 }, /^model/],
      [{ ...MESSAGE, system: 5 }, /^system/],
      [{ ...MESSAGE, system: { type: "text", text: "x" } }, /^system/],
    ];
    for (const [body, re] of cases) {
      const res = await post(`${rig.url}/v1/messages`, body);
      assert.equal(res.status, 400);
      const json = await res.json();
      assert.equal(json.type, "error");
      assert.equal(json.error.type, "invalid_request_error");
      assert.match(json.error.message, re);
    }
    assert.equal(rig.fake.requestsTo("/v1/messages").length, 0, "nothing went upstream");
  } finally {
    await rig.close();
  }
});

Deno.test("proxy: body size limit, unknown routes and wrong methods", async () => {
  const rig = await startRig();
  try {
    const big = await post(`${rig.url}/v1/messages`, "x".repeat(33 * 1024 * 1024));
    assert.equal(big.status, 413);
    assert.equal((await big.json()).error.type, "request_too_large");
    const nf = await fetch(`${rig.url}/v1/other`);
    assert.equal(nf.status, 404);
    assert.equal((await nf.json()).error.type, "not_found_error");
    const m = await fetch(`${rig.url}/v1/messages`);
    assert.equal(m.status, 405);
    assert.equal(m.headers.get("allow"), "POST");
    await m.body?.cancel();
  } finally {
    await rig.close();
  }
});

Deno.test("auth: every endpoint but /healthz needs the key; 401 in the API error shape", async () => {
  const rig = await startRig({ args: ["--auth-key", "s3cret"] });
  try {
    const expected401 = {
      type: "error",
      error: {
        type: "authentication_error",
        message:
          "missing or invalid daemon key: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'",
      },
    };
    const endpoints: Array<[string, string, unknown?]> = [
      ["POST", "/v1/messages", MESSAGE],
      ["POST", "/v1/messages/count_tokens", { model: "m", messages: MESSAGE.messages }],
      ["GET", "/usage"],
      ["GET", "/nope"],
    ];
    for (const [method, path, body] of endpoints) {
      const bad: Record<string, string>[] = [{}, { "x-api-key": "wrong" }, {
        authorization: "Bearer wrong",
      }, { authorization: "s3cret" }];
      for (const headers of bad) {
        const res = await fetch(`${rig.url}${path}`, {
          method,
          headers: { "content-type": "application/json", ...headers },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        assert.equal(res.status, 401, `${method} ${path} ${JSON.stringify(headers)}`);
        assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="msgcli serve"');
        assert.deepEqual(await res.json(), expected401);
      }
    }
    assert.equal(rig.fake.requestsTo("/v1/").length, 0);
    const good: Record<string, string>[] = [{ "x-api-key": "s3cret" }, {
      authorization: "Bearer s3cret",
    }];
    for (const headers of good) {
      const res = await post(`${rig.url}/v1/messages`, MESSAGE, headers);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const u = await fetch(`${rig.url}/usage`, { headers });
      assert.equal(u.status, 200);
      await u.body?.cancel();
    }
    const h = await fetch(`${rig.url}/healthz`);
    assert.equal(h.status, 200);
    await h.body?.cancel();
  } finally {
    await rig.close();
  }
});

Deno.test("Host header must be a loopback name on a loopback listener (DNS rebinding)", async () => {
  const rig = await startRig();
  try {
    const res = await rig.daemon.app.fetch(
      new Request("http://evil.example:8787/healthz", { headers: { host: "evil.example:8787" } }),
    );
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error.type, "permission_error");
    const ok = await rig.daemon.app.fetch(
      new Request("http://localhost:8787/healthz", { headers: { host: "localhost:8787" } }),
    );
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await rig.close();
  }
});

Deno.test("/usage: 404 until a proxied call fills it, never calls upstream", async () => {
  const rig = await startRig();
  try {
    const before = await fetch(`${rig.url}/usage`);
    assert.equal(before.status, 404);
    assert.equal((await before.json()).error.type, "not_found_error");
    assert.equal(rig.fake.requests.length, 0);
    const t0 = Date.now();
    const r = await post(`${rig.url}/v1/messages`, MESSAGE);
    await r.body?.cancel();
    const after = await fetch(`${rig.url}/usage`);
    assert.equal(after.status, 200);
    const u = await after.json();
    assert.ok(Date.parse(u.seen_at) >= t0 - 1000);
    assert.equal(u.status, "allowed");
    assert.equal(u.windows["5h"].utilization, 0.42);
    assert.equal(u.windows["7d"].utilization, 0.17);
    assert.equal(typeof u.windows["5h"].reset, "string");
    assert.equal(u.extra["representative-claim"], "five_hour");
    const upstreamCalls = rig.fake.requests.length;
    await (await fetch(`${rig.url}/usage`)).body?.cancel();
    assert.equal(rig.fake.requests.length, upstreamCalls, "/usage made no upstream call");
    assert.equal(rig.fake.requestsTo("/api/oauth/usage").length, 0);
  } finally {
    await rig.close();
  }
});

Deno.test("proxy: no compression even when the client accepts gzip and br", async () => {
  const rig = await startRig();
  try {
    const u = new URL(rig.url);
    for (const stream of [false, true]) {
      const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
      const body = JSON.stringify({ ...MESSAGE, stream });
      await conn.write(
        new TextEncoder().encode(
          `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip, br\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
            `Connection: close\r\n\r\n${body}`,
        ),
      );
      let out = "";
      const buf = new Uint8Array(65536);
      while (true) {
        const n = await conn.read(buf);
        if (n === null) break;
        out += new TextDecoder().decode(buf.subarray(0, n));
      }
      conn.close();
      const head = out.split("\r\n\r\n")[0].toLowerCase();
      assert.match(head, /^http\/1\.1 200 ok/);
      assert.doesNotMatch(head, /content-encoding/);
      assert.match(out, stream ? /event: message_stop/ : /"echo: hello there"/);
      if (!stream) assert.match(head, /content-length: \d+/);
    }
  } finally {
    await rig.close();
  }
});
