/** The Messages API client in-process against the fake, with an injected sleep (no waiting). */

import assert from "node:assert/strict";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { ApiError, MessagesClient, replyText } from "../../src/msg/api.ts";
import { CredentialStore } from "../../src/msg/credentials.ts";
import { loadMsgConfig } from "../../src/msg/config.ts";
import { fakeEnv, seedCredentials, tempDir } from "./helpers.ts";

async function setup(fetchWrap?: (f: typeof fetch) => typeof fetch) {
  const fake = startFakeAnthropic();
  const tmp = await tempDir();
  const path = `${tmp.dir}/credentials.json`;
  await seedCredentials(fake, path);
  const vars = fakeEnv(fake, path);
  const config = loadMsgConfig((n) => vars[n]);
  const sleeps: number[] = [];
  const client = new MessagesClient({
    config,
    fetch: fetchWrap ? fetchWrap(fetch) : fetch,
    store: new CredentialStore(path),
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
  });
  return {
    fake,
    client,
    sleeps,
    async [Symbol.asyncDispose]() {
      await fake.close();
      await tmp.cleanup();
    },
  };
}

const req = {
  model: "claude-sonnet-4-5",
  max_tokens: 50,
  messages: [{ role: "user" as const, content: "yo" }],
};

Deno.test("create returns the reply and records the rate-limit windows", async () => {
  await using s = await setup();
  const res = await s.client.create(req);
  assert.equal(replyText(res), "echo: yo");
  assert.equal(s.client.lastRateLimits?.windows["5h"].utilization, 0.42);
  assert.deepEqual(s.sleeps, []);
});

Deno.test("the fake replays scripted answers per request, else falls back to the echo", async () => {
  await using s = await setup();
  const script = ["first answer", "second answer"];
  s.fake.options.reply = () => script.shift() ?? null;
  assert.equal(replyText(await s.client.create(req)), "first answer");
  assert.equal(replyText(await s.client.create(req)), "second answer");
  assert.equal(replyText(await s.client.create(req)), "echo: yo");
});

Deno.test("retries back off exponentially (injected sleep) and honour retry-after", async () => {
  await using s = await setup();
  s.fake.options.errors = [
    { status: 529, type: "overloaded_error", message: "o" },
    { status: 500, type: "api_error", message: "b", headers: { "retry-after": "30" } },
  ];
  await s.client.create(req);
  assert.deepEqual(s.sleeps, [500, 30_000]);
  // A 429 whose window resets in hours is reported at once.
  const inHours = String(Math.floor(Date.now() / 1000) + 3 * 3600);
  s.fake.options.errors = [{
    status: 429,
    type: "rate_limit_error",
    message: "5-hour limit reached",
    headers: {
      "anthropic-ratelimit-unified-reset": inHours,
      "anthropic-ratelimit-unified-status": "rejected",
    },
  }];
  await assert.rejects(() => s.client.create(req), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 429);
    assert.equal(e.type, "rate_limit_error");
    return true;
  });
  assert.deepEqual(s.sleeps, [500, 30_000]);
  // A short 429 without headers is retried.
  s.fake.options.errors = [{ status: 429, type: "rate_limit_error", message: "slow down" }];
  await s.client.create(req);
  assert.deepEqual(s.sleeps, [500, 30_000, 500]);
});

Deno.test("connection errors are retried twice, then reported", async () => {
  let calls = 0;
  await using s = await setup((f) =>
    ((input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith("/v1/messages")) {
        calls++;
        return Promise.reject(new TypeError("connection reset"));
      }
      return f(input, init);
    }) as typeof fetch
  );
  await assert.rejects(() => s.client.create(req), /cannot reach .*connection reset/);
  assert.equal(calls, 3);
  assert.deepEqual(s.sleeps, [500, 1000]);
});

Deno.test("stream yields events in order, ignores nothing silently, throws on error events", async () => {
  await using s = await setup();
  const types: string[] = [];
  let text = "";
  for await (const ev of s.client.stream(req)) {
    types.push(ev.type);
    const d = ev.data.delta as { type?: string; text?: string } | undefined;
    if (d?.type === "text_delta") text += d.text;
  }
  assert.equal(text, "echo: yo");
  assert.equal(types[0], "message_start");
  assert.ok(types.includes("ping"));
  assert.ok(types.includes("future_event_kind"));
  assert.equal(types.at(-1), "message_stop");
  s.fake.options.streamError = true;
  await assert.rejects(async () => {
    for await (const _ of s.client.stream(req)) { /* drain */ }
  }, (e: unknown) => e instanceof ApiError && e.type === "overloaded_error");
});

Deno.test("usage reads /api/oauth/usage without a paid request", async () => {
  await using s = await setup();
  const u = await s.client.usage();
  assert.equal(u.windows["5h"].utilization, 0.42);
  assert.equal(u.windows["7d_opus"].utilization, 0.05);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 0);
});

Deno.test("a 429 whose window resets in hours is reported even with a short retry-after", async () => {
  await using s = await setup();
  const sec = Math.floor(Date.now() / 1000);
  const inHours = String(sec + 3 * 3600);
  const rejects = () =>
    assert.rejects(() => s.client.create(req), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.status, 429);
      return true;
    });
  // Overall status rejected, reset in hours, retry-after 30 s: not retried.
  s.fake.options.errors = [{
    status: 429,
    type: "rate_limit_error",
    message: "5-hour limit reached",
    headers: {
      "retry-after": "30",
      "anthropic-ratelimit-unified-status": "rejected",
      "anthropic-ratelimit-unified-reset": inHours,
    },
  }];
  await rejects();
  // Only the rejected window carries its reset: not retried either.
  s.fake.options.errors = [{
    status: 429,
    type: "rate_limit_error",
    message: "5-hour limit reached",
    headers: {
      "anthropic-ratelimit-unified-5h-status": "rejected",
      "anthropic-ratelimit-unified-5h-reset": inHours,
    },
  }];
  await rejects();
  assert.deepEqual(s.sleeps, []);
  assert.equal(s.fake.requestsTo("/v1/messages").length, 2);
  // A 429 while the subscription windows allow the request (every response carries their
  // resets, hours away) is a short-term limit: retried.
  s.fake.options.errors = [{
    status: 429,
    type: "rate_limit_error",
    message: "slow down",
    headers: {
      "anthropic-ratelimit-unified-status": "allowed",
      "anthropic-ratelimit-unified-reset": inHours,
      "anthropic-ratelimit-unified-5h-status": "allowed",
      "anthropic-ratelimit-unified-5h-reset": inHours,
    },
  }];
  await s.client.create(req);
  assert.deepEqual(s.sleeps, [500]);
});

Deno.test("an upstream 401 to a live token: one forced refresh and one retry; a 401 a refresh does not cure is reported", async () => {
  await using s = await setup();
  // Revoke the live access token: the client refreshes once and retries once.
  const first = s.fake.latest!;
  s.fake.revoke(first.accessToken);
  assert.equal(replyText(await s.client.create(req)), "echo: yo");
  assert.equal(s.fake.refreshCount, 1);
  const ups = s.fake.requestsTo("/v1/messages");
  assert.equal(ups.length, 2);
  assert.equal(ups[1].headers.authorization, `Bearer ${s.fake.latest!.accessToken}`);
  // A 401 that a refresh does not cure is reported after the one retry.
  s.fake.options.rejectAllTokens = true;
  await assert.rejects(
    () => s.client.create(req),
    (e: unknown) => e instanceof ApiError && e.status === 401,
  );
  assert.equal(s.fake.refreshCount, 2, "one refresh per call, no more");
  assert.equal(s.fake.requestsTo("/v1/messages").length, 4);
});
