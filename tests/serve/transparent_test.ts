/** The daemon as a transparent proxy: what the client sends reaches the upstream, prepared. */
import assert from "node:assert/strict";
import { post, startRig } from "./helpers.ts";
import { BILLING_HEADER, IDENTITY_PREAMBLE } from "../../src/msg/prepare.ts";

const CC_BILLING = "x-anthropic-billing-header: cc_version=2.1.330.440; cc_entrypoint=sdk-cli;";
const CC_IDENTITY = "You are a Claude agent, built on Anthropic's Claude Agent SDK.";

/** Claude Code's request shape: its own system blocks, a mid-conversation system turn, betas. */
function claudeCodeBody(): Record<string, unknown> {
  return {
    model: "claude-opus-4-6",
    max_tokens: 32000,
    stream: false,
    system: [
      { type: "text", text: CC_BILLING },
      { type: "text", text: CC_IDENTITY, cache_control: { type: "ephemeral" } },
      { type: "text", text: "You are an agent working with the user." },
    ],
    messages: [
      { role: "user", content: [{ type: "text", text: "<system-reminder>x</system-reminder>" }] },
      { role: "system", content: [{ type: "text", text: "# Environment\nlinux" }] },
      { role: "user", content: [{ type: "text", text: "say hi" }, { type: "future_block", n: 1 }] },
    ],
    tools: [{ name: "Bash", description: "run", input_schema: { type: "object" } }],
    thinking: { type: "adaptive", display: "omitted" },
    context_management: { edits: [] },
    output_config: { effort: "high" },
    metadata: { user_id: '{"device_id":"d","session_id":"s"}' },
  };
}

const CLIENT_HEADERS = {
  "anthropic-beta": "claude-code-20250219, oauth-2025-04-20,context-management-2025-06-27",
  "anthropic-version": "2023-06-01",
  "user-agent": "claude-cli/2.1.330 (external, sdk-cli)",
  "x-app": "cli",
  "idempotency-key": "idem-1",
  "x-claude-code-session-id": "sess-1",
  "x-stainless-retry-count": "0",
  "x-stainless-lang": "js",
  "anthropic-dangerous-direct-browser-access": "true",
  "cookie": "session=secret",
  "x-api-key": "daemon-key-0123456789",
};

Deno.test("transparent proxy: Claude Code's request shape reaches the upstream as sent, prepared once", async () => {
  const rig = await startRig({ args: ["--auth-key", "daemon-key-0123456789"] });
  try {
    const body = claudeCodeBody();
    const res = await post(`${rig.url}/v1/messages?beta=true`, body, CLIENT_HEADERS);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await res.json()).type, "message");
    const [up] = rig.fake.requestsTo("/v1/messages");
    assert.equal(up.url, "/v1/messages?beta=true", "query string forwarded");
    const got = up.json as Record<string, unknown>;
    // Everything but what the preparation owns is byte-for-byte what the client sent.
    for (const k of ["messages", "tools", "thinking", "context_management", "output_config"]) {
      assert.deepEqual(got[k], body[k], k);
    }
    assert.deepEqual(got.metadata, body.metadata, "the client's user_id is kept");
    // Its own billing block and identity: nothing added, so exactly one billing block.
    assert.deepEqual(got.system, body.system);
    const texts = (got.system as Array<{ text: string }>).map((b) => b.text);
    assert.equal(texts.filter((t) => t.startsWith("x-anthropic-billing-header:")).length, 1);
    assert.ok(!texts.includes(IDENTITY_PREAMBLE));
    // Headers: betas merged without duplicates, the API's headers forwarded, secrets not.
    const h = up.headers;
    assert.deepEqual(h["anthropic-beta"].split(","), [
      "oauth-2025-04-20",
      "interleaved-thinking-2025-05-14",
      "claude-code-20250219",
      "context-management-2025-06-27",
    ]);
    assert.equal(h["anthropic-version"], "2023-06-01");
    assert.equal(h["user-agent"], CLIENT_HEADERS["user-agent"]);
    assert.equal(h["x-app"], "cli");
    assert.equal(h["idempotency-key"], "idem-1");
    assert.equal(h["x-claude-code-session-id"], "sess-1");
    assert.equal(h["x-stainless-retry-count"], "0");
    assert.equal(h["x-stainless-lang"], "js");
    assert.equal(h["anthropic-dangerous-direct-browser-access"], "true");
    assert.match(h.authorization, /^Bearer sk-ant-oat01-/);
    assert.equal(h["x-api-key"], undefined, "the daemon key never goes upstream");
    assert.equal(h.cookie, undefined);
  } finally {
    await rig.close();
  }
});

Deno.test("transparent proxy: a plain request gets the preamble and billing block, defaults kept", async () => {
  const rig = await startRig();
  try {
    const res = await post(`${rig.url}/v1/messages`, {
      model: "claude-sonnet-4-6",
      max_tokens: 10,
      system: [{ type: "text", text: "mine" }],
      messages: [{ role: "user", content: "hi" }, { role: "system", content: "mid" }],
    });
    assert.equal(res.status, 200);
    const [up] = rig.fake.requestsTo("/v1/messages");
    assert.equal(up.url, "/v1/messages");
    assert.deepEqual((up.json as { system: unknown }).system, [
      { type: "text", text: IDENTITY_PREAMBLE },
      { type: "text", text: BILLING_HEADER },
      { type: "text", text: "mine" },
    ]);
    assert.match(up.headers["user-agent"], /^Deno\//, "the client's user-agent is forwarded");
    assert.equal(up.headers["anthropic-beta"], "oauth-2025-04-20,interleaved-thinking-2025-05-14");
  } finally {
    await rig.close();
  }
});

Deno.test("transparent proxy: count_tokens forwards the query, roles and fields; adds no metadata", async () => {
  const rig = await startRig();
  try {
    const body = claudeCodeBody();
    delete body.stream;
    delete body.max_tokens;
    delete body.metadata;
    const res = await post(`${rig.url}/v1/messages/count_tokens?beta=true`, body, {
      "anthropic-beta": "token-counting-2024-11-01",
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(typeof (await res.json()).input_tokens, "number");
    const [up] = rig.fake.requestsTo("/v1/messages/count_tokens");
    assert.equal(up.url, "/v1/messages/count_tokens?beta=true");
    const got = up.json as Record<string, unknown>;
    assert.equal(got.metadata, undefined);
    assert.deepEqual(got.messages, body.messages);
    assert.deepEqual(got.system, body.system);
    assert.ok(up.headers["anthropic-beta"].split(",").includes("token-counting-2024-11-01"));
  } finally {
    await rig.close();
  }
});

Deno.test("transparent proxy: the upstream judges the rest and its 400 comes back verbatim", async () => {
  const rig = await startRig({
    fake: {
      errors: [{
        status: 400,
        type: "invalid_request_error",
        message: "messages.0.content.0.type: Input tag 'bogus' found",
      }],
    },
  });
  try {
    const res = await post(`${rig.url}/v1/messages`, {
      model: "claude-sonnet-4-6",
      max_tokens: 10,
      messages: [{ role: "user", content: [{ type: "bogus" }] }, { role: "system", content: "x" }],
    });
    assert.equal(res.status, 400);
    const j = await res.json();
    assert.equal(j.error.message, "messages.0.content.0.type: Input tag 'bogus' found");
    assert.equal(rig.fake.requestsTo("/v1/messages").length, 1, "the upstream was asked");
  } finally {
    await rig.close();
  }
});
