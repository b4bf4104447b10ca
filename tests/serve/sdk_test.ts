/** The official SDK as a real client of the daemon. */
import assert from "node:assert/strict";
import { Anthropic } from "../deps.ts";
import { startRig } from "./helpers.ts";

Deno.test("official SDK: messages.create, messages.stream and countTokens through the daemon", async () => {
  const rig = await startRig({ args: ["--auth-key", "sdk-daemon-key"] });
  const client = new Anthropic({ baseURL: rig.url, apiKey: "sdk-daemon-key", maxRetries: 0 });
  try {
    const msg = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 100,
      system: "You are terse.",
      messages: [{ role: "user", content: "ping from the sdk" }],
    });
    assert.equal(msg.type, "message");
    assert.equal(msg.role, "assistant");
    assert.deepEqual(msg.content, [{ type: "text", text: "echo: ping from the sdk" }]);
    assert.equal(msg.stop_reason, "end_turn");

    const deltas: string[] = [];
    const stream = client.messages.stream({
      model: "claude-sonnet-4-6",
      max_tokens: 100,
      messages: [{ role: "user", content: "stream please" }],
    });
    stream.on("text", (t) => deltas.push(t));
    const final = await stream.finalMessage();
    assert.ok(deltas.length > 1, "several text deltas");
    assert.equal(deltas.join(""), "echo: stream please");
    assert.deepEqual(final.content, [{ type: "text", text: "echo: stream please" }]);

    const count = await client.messages.countTokens({
      model: "claude-sonnet-4-6",
      messages: [{ role: "user", content: "count me" }],
    });
    assert.equal(typeof count.input_tokens, "number");
    assert.ok(count.input_tokens > 0);

    // Upstream got OAuth, never the SDK's key.
    for (const r of rig.fake.requestsTo("/v1/messages")) {
      assert.match(r.headers.authorization, /^Bearer sk-ant-oat01-/);
      assert.equal(r.headers["x-api-key"], undefined);
    }
    assert.equal(rig.fake.requestsTo("/v1/messages").length, 3);

    // A wrong key surfaces as the SDK's AuthenticationError with our message.
    const bad = new Anthropic({ baseURL: rig.url, apiKey: "wrong", maxRetries: 0 });
    await assert.rejects(
      () =>
        bad.messages.create({
          model: "claude-sonnet-4-6",
          max_tokens: 10,
          messages: [{ role: "user", content: "x" }],
        }),
      (err: unknown) =>
        err instanceof Anthropic.AuthenticationError && err.status === 401 &&
        /missing or invalid daemon key/.test(err.message),
    );
  } finally {
    await rig.close();
  }
});

Deno.test("official SDK: upstream API errors surface as the SDK's typed errors", async () => {
  const rig = await startRig({
    fake: { errors: [{ status: 529, type: "overloaded_error", message: "Overloaded" }] },
  });
  const client = new Anthropic({ baseURL: rig.url, apiKey: "unused", maxRetries: 0 });
  try {
    await assert.rejects(
      () =>
        client.messages.create({
          model: "claude-sonnet-4-6",
          max_tokens: 10,
          messages: [{ role: "user", content: "x" }],
        }),
      (err: unknown) =>
        err instanceof Anthropic.APIError && err.status === 529 && /Overloaded/.test(err.message),
    );
  } finally {
    await rig.close();
  }
});

Deno.test("official SDK: 400/401/429/529 map to its error classes; it retries 429/529 through the daemon honouring retry-after", async () => {
  const rig = await startRig({ args: ["--auth-key", "sdk-daemon-key"] });
  const client = new Anthropic({ baseURL: rig.url, apiKey: "sdk-daemon-key", maxRetries: 2 });
  const body = {
    model: "claude-sonnet-4-6",
    max_tokens: 10,
    messages: [{ role: "user" as const, content: "x" }],
  };
  try {
    const cases: Array<[number, string, string, new (...a: never[]) => Error]> = [
      [400, "invalid_request_error", "messages.0.content: bad", Anthropic.BadRequestError],
      [401, "authentication_error", "invalid x-api-key", Anthropic.AuthenticationError],
      [429, "rate_limit_error", "slow down", Anthropic.RateLimitError],
      [529, "overloaded_error", "Overloaded", Anthropic.InternalServerError],
    ];
    for (const [status, type, message, cls] of cases) {
      const retried = status >= 429;
      rig.fake.options.errors = Array.from(
        // The daemon answers an upstream 401 with one refresh and one retry: queue two.
        { length: retried ? 3 : status === 401 ? 2 : 1 },
        () => ({ status, type, message, headers: { "retry-after": "0" } }),
      );
      const before = rig.fake.requestsTo("/v1/messages").length;
      await assert.rejects(() => client.messages.create(body), (err: unknown) => {
        assert.ok(err instanceof cls, `${status}: ${err}`);
        assert.equal((err as InstanceType<typeof Anthropic.APIError>).status, status);
        assert.match((err as Error).message, new RegExp(message));
        return true;
      });
      const sent = rig.fake.requestsTo("/v1/messages").length - before;
      // 401 here is the upstream's: the daemon re-reads and refreshes once, then retries once.
      const expected = retried ? 3 : status === 401 ? 2 : 1;
      assert.equal(sent, expected, `${status}: upstream attempts`);
    }
    // A 429 with retry-after: 1 then success: the SDK waits about a second and succeeds.
    rig.fake.options.errors = [{
      status: 429,
      type: "rate_limit_error",
      message: "slow down",
      headers: { "retry-after": "1" },
    }];
    const t0 = performance.now();
    const ok = await client.messages.create(body);
    const waited = performance.now() - t0;
    assert.equal(ok.type, "message");
    assert.ok(waited >= 900, `waited ${waited} ms for retry-after: 1`);
    const retries = rig.fake.requestsTo("/v1/messages").slice(-2);
    assert.equal(retries[1].headers["x-stainless-retry-count"], "1", "retry count forwarded");
  } finally {
    await rig.close();
  }
});

Deno.test("official SDK: aborting a stream mid-way cancels the upstream request", async () => {
  let cancelled = false;
  let sent = 0;
  const gate = Promise.withResolvers<void>();
  const rig = await startRig({
    fake: {
      replyText: "a long reply ".repeat(50),
      onStreamEvent: async (_e, i) => {
        sent = i;
        if (i >= 12) await gate.promise;
      },
      onStreamCancel: () => (cancelled = true),
    },
  });
  const client = new Anthropic({ baseURL: rig.url, apiKey: "unused", maxRetries: 0 });
  try {
    const stream = client.messages.stream({
      model: "claude-sonnet-4-6",
      max_tokens: 500,
      messages: [{ role: "user", content: "long please" }],
    });
    const texts: string[] = [];
    stream.on("text", (t) => {
      texts.push(t);
      if (texts.length === 2) stream.abort();
    });
    await assert.rejects(() => stream.finalMessage(), (e: unknown) => e instanceof Error);
    for (let i = 0; i < 100 && (!cancelled || rig.daemon.app.inflight > 0); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(cancelled, "the upstream stream was cancelled");
    assert.equal(rig.daemon.app.inflight, 0, "nothing left in flight");
    assert.ok(sent < 20, `the upstream stopped early (${sent} events)`);
  } finally {
    gate.resolve();
    await rig.close();
  }
});
