import assert from "node:assert/strict";
import { MESSAGE, post, startRig } from "./helpers.ts";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(1);
  }
}

/**
 * `p`, or a clear failure after `ms`: a daemon that never ends a stream or never finishes
 * shutting down must fail the test, not block the suite.
 */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let id: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    id = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(id);
  }
}

Deno.test("stream: SSE bytes pass through verbatim, each chunk readable before the next is sent", async () => {
  const sent: string[] = [];
  let received = "";
  const rig = await startRig({
    fake: {
      replyText: "The quick brown fox jumps over the lazy dog.",
      // The fake sends event i only once the client has read everything sent before it:
      // if the daemon buffered anything, this would never finish.
      onStreamEvent: async (event, i) => {
        if (i > 0) await until(() => received === sent.join(""), `client to read event ${i - 1}`);
        sent.push(event);
      },
    },
  });
  try {
    const res = await post(`${rig.url}/v1/messages`, { ...MESSAGE, stream: true });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "no-cache");
    assert.equal(res.headers.get("content-encoding"), null);
    assert.match(res.headers.get("request-id") ?? "", /^req_/);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let reads = 0;
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      received += dec.decode(value, { stream: true });
      reads++;
    }
    assert.equal(received, sent.join(""), "byte-for-byte");
    assert.ok(sent.length > 10);
    assert.equal(reads, sent.length, "one client read per upstream event");
    assert.match(received, /event: message_stop/);
    assert.match(received, /: keep-alive comment/);
    assert.match(received, /future_event_kind/, "unknown events are forwarded untouched");
    assert.equal(rig.daemon.app.inflight, 0);
  } finally {
    await rig.close();
  }
});

Deno.test("stream: a mid-stream upstream error event passes through", async () => {
  const rig = await startRig({ fake: { streamError: true } });
  try {
    const res = await post(`${rig.url}/v1/messages`, { ...MESSAGE, stream: true });
    const text = await res.text();
    assert.equal(res.status, 200);
    assert.match(text, /event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error"/);
  } finally {
    await rig.close();
  }
});

Deno.test("stream: a client that disconnects cancels the upstream request", async () => {
  let cancelled = false;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const rig = await startRig({
    fake: {
      onStreamEvent: async (_e, i) => {
        if (i >= 3) await released; // the upstream stalls after three events
      },
      onStreamCancel: () => (cancelled = true),
    },
  });
  try {
    const res = await post(`${rig.url}/v1/messages`, { ...MESSAGE, stream: true });
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.ok(!first.done);
    assert.equal(rig.daemon.app.inflight, 1);
    await reader.cancel();
    await until(() => cancelled, "the upstream stream to be cancelled");
    await until(() => rig.daemon.app.inflight === 0, "the daemon to forget the request");
  } finally {
    release();
    await rig.close();
  }
});

Deno.test("drain: shutdown lets an in-flight stream finish and refuses new connections", async () => {
  const rig = await startRig({ fake: { streamDelayMs: 15, replyText: "x".repeat(80) } });
  let closed = false;
  try {
    const res = await post(`${rig.url}/v1/messages`, { ...MESSAGE, stream: true });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let text = dec.decode((await within(5000, "first chunk", reader.read())).value);
    const shutdown = rig.daemon.shutdown();
    await delay(20);
    // A new connection is refused while the stream drains.
    const client = Deno.createHttpClient({});
    await assert.rejects(() =>
      within(5000, "refused connection", fetch(`${rig.url}/healthz`, { client }))
    );
    client.close();
    await within(
      5000,
      "the draining stream to end",
      (async () => {
        while (true) {
          const { done, value } = await reader.read();
          if (done) break;
          text += dec.decode(value, { stream: true });
        }
      })(),
    );
    assert.match(text, /event: message_stop/, "the stream completed");
    await within(5000, "shutdown", shutdown);
    closed = true;
    assert.ok(rig.logs.some((l) => /draining 1 in-flight/.test(l)));
  } finally {
    if (!closed) await rig.daemon.shutdown();
    await rig.close();
  }
});

Deno.test("drain: a stream still running at the deadline is cut, shutdown completes", async () => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const rig = await startRig({
    fake: { onStreamEvent: async (_e, i) => void (i >= 2 && await released) },
    daemon: { drainMs: 150 },
  });
  try {
    const res = await post(`${rig.url}/v1/messages`, { ...MESSAGE, stream: true });
    const reader = res.body!.getReader();
    await within(5000, "first chunk", reader.read());
    const t0 = performance.now();
    await within(5000, "shutdown", rig.daemon.shutdown());
    const took = performance.now() - t0;
    // At least the drain window; `within` bounds it above (loaded timers fire late).
    assert.ok(took >= 140, `shutdown took ${took} ms`);
    assert.ok(rig.logs.some((l) => /drain deadline reached/.test(l)), rig.logs.join("\n"));
    // The upstream is stalled until `release()`: only the daemon cutting the stream ends it.
    const ended = await within(
      5000,
      "the daemon to cut the stream at the drain deadline",
      (async () => {
        try {
          while (!(await reader.read()).done) { /* drain */ }
          return "cleanly";
        } catch {
          return "with an error";
        }
      })(),
    );
    assert.equal(ended, "with an error", "the cut stream must not look complete");
  } finally {
    release();
    await within(5000, "rig.close()", rig.close());
  }
});
