/** The official SDK as a real client of the daemon. */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
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
