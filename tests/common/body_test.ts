/** src/common/body.ts: the one body reader, and the request targets both servers refuse. */
import assert from "node:assert/strict";
import {
  BodyTimeout,
  BodyTooLarge,
  isDisconnect,
  readBody,
  readJson,
  readText,
  targetProblem,
} from "../../src/common/body.ts";

const enc = new TextEncoder();

/** A stream of `chunks` (a byte stream when `bytes`), then the end (or never, with `hang`). */
function streamOf(chunks: Uint8Array[], opts: { bytes?: boolean; hang?: boolean } = {}) {
  let i = 0;
  let cancelled: unknown = "not cancelled";
  const pull = (c: ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController) => {
    if (i < chunks.length) c.enqueue(chunks[i++]);
    else if (!opts.hang) {
      c.close();
      // A byte stream answers a pending BYOB read after closing, as the runtime's streams do.
      if ("byobRequest" in c) c.byobRequest?.respond(0);
    } else return new Promise<void>(() => {});
  };
  const cancel = (reason: unknown) => void (cancelled = reason);
  const stream = opts.bytes
    ? new ReadableStream({ type: "bytes", pull, cancel })
    : new ReadableStream<Uint8Array>({ pull, cancel });
  return { stream: stream as ReadableStream<Uint8Array>, cancelled: () => cancelled };
}

for (const bytes of [false, true]) {
  const kind = bytes ? "byte stream" : "default stream";

  Deno.test(`readBody (${kind}): the bytes in order, whatever the chunking`, async () => {
    const text = "x".repeat(40_000) + "é" + "y".repeat(100_000);
    const all = enc.encode(text);
    const ones = Array.from(all.slice(0, 50_000), (b) => Uint8Array.of(b));
    const rest = [all.slice(50_000, 120_000), all.slice(120_000)];
    const got = await readBody(streamOf([...ones, ...rest], { bytes }).stream, { limit: 1e6 });
    assert.equal(new TextDecoder().decode(got), text);
    assert.deepEqual(
      await readBody(streamOf([], { bytes }).stream, { limit: 10 }),
      new Uint8Array(),
    );
    assert.deepEqual(await readBody(null, { limit: 10 }), new Uint8Array());
  });

  Deno.test(`readBody (${kind}): over the limit, refused or cut; at it, read`, async () => {
    const ten = () => Array.from({ length: 10 }, (_, i) => Uint8Array.of(48 + i));
    assert.equal(
      new TextDecoder().decode(await readBody(streamOf(ten(), { bytes }).stream, { limit: 10 })),
      "0123456789",
    );
    const s = streamOf([...ten(), Uint8Array.of(1)], { bytes });
    await assert.rejects(readBody(s.stream, { limit: 10 }), BodyTooLarge);
    assert.equal(s.cancelled(), undefined, "the rest is cancelled");
    const cut = await readBody(
      streamOf([enc.encode("abcdef"), enc.encode("ghij")], { bytes }).stream,
      {
        limit: 8,
        truncate: true,
      },
    );
    assert.equal(new TextDecoder().decode(cut), "abcdefgh");
    // A declared length over the limit is refused before a byte is read.
    const d = streamOf([enc.encode("ab")], { bytes });
    await assert.rejects(readBody(d.stream, { limit: 1, declaredLength: "2" }), BodyTooLarge);
  });

  Deno.test(`readBody (${kind}): a body that does not end in time is a BodyTimeout`, async () => {
    const s = streamOf([enc.encode("{")], { bytes, hang: true });
    const t0 = Date.now();
    const err = await readBody(s.stream, { limit: 100, timeoutMs: 200 }).catch((e) => e);
    assert.ok(err instanceof BodyTimeout, String(err));
    assert.equal(err.ms, 200);
    assert.ok(Date.now() - t0 < 2_000);
    assert.ok(s.cancelled() instanceof BodyTimeout, "the stream is cancelled");
  });
}

Deno.test("readText/readJson: a response's body by its declared length and limit", async () => {
  assert.deepEqual(await readJson(Response.json({ a: [1, 2] }), { limit: 100 }), { a: [1, 2] });
  assert.equal(await readText(new Response("héllo"), { limit: 100 }), "héllo");
  assert.equal(
    await readText(new Response("x".repeat(100)), { limit: 5, truncate: true }),
    "xxxxx",
  );
  await assert.rejects(readText(new Response("x".repeat(100)), { limit: 5 }), BodyTooLarge);
});

Deno.test("targetProblem: dot and empty segments are refused, nothing else", () => {
  for (
    const url of [
      "http://h/static/../healthz",
      "http://h/./x",
      "http://h/a/..",
      "http://h/x/%2e%2E/y",
      "http://h/%2e",
      "http://h//x",
      "http://h/file:///etc/passwd",
      "http://h/a//b?q=1",
    ]
  ) assert.notEqual(targetProblem(url), null, url);
  for (
    const url of [
      "http://h/",
      "http://h/api/memories",
      "http://h/api/memories/",
      "http://h/a.b/..c/.d?x=../..",
      "http://h/api?x=//y",
      "http://[::1]:4200/healthz",
    ]
  ) assert.equal(targetProblem(url), null, url);
});

Deno.test("isDisconnect: a closed connection and the server's malformed-body error", () => {
  assert.ok(isDisconnect(new Deno.errors.BadResource("gone")));
  assert.ok(isDisconnect(new Error("invalid HTTP/1 request: Invalid")));
  assert.ok(!isDisconnect(new Error("something else")));
  assert.ok(!isDisconnect(new TypeError("x")));
});
