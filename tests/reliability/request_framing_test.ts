/**
 * Issue 31, request hygiene, through the real servers (the admin daemon's and `msgcli
 * serve`'s, both behind common/http_front.ts) and raw TCP clients: a malformed chunked body is
 * a 400 naming the body (and logged as malformed, never as a disconnect), headers or a body
 * that stall are answered 408 within their timeout and the connection closes, a connection
 * that sends nothing is closed, and long streaming responses are never cut by these timeouts.
 */
import assert from "node:assert/strict";
import { startAdminServer } from "../../src/admin/server.ts";
import { BODY_STALL_MS, HEADER_TIMEOUT_MS } from "../../src/common/http_front.ts";
import { freePort, tempDir, testConfig } from "../helpers.ts";
import { MESSAGE, post, startRig } from "../serve/helpers.ts";

const enc = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends `parts` on a new connection (`gapMs` apart) and reads until the server closes it
 * (or `waitMs`); returns what came back and when the connection ended.
 */
async function raw(port: number, parts: string[], waitMs: number, gapMs = 0) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const t0 = Date.now();
  const sending = (async () => {
    for (const p of parts) {
      try {
        await conn.write(enc.encode(p));
      } catch {
        return;
      }
      if (gapMs) await sleep(gapMs);
    }
  })();
  const timer = setTimeout(() => conn.close(), waitMs);
  const buf = new Uint8Array(8192);
  let text = "";
  let closedByServer = false;
  try {
    while (true) {
      const n = await conn.read(buf);
      if (n === null) {
        closedByServer = true;
        break;
      }
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  } catch { /* closed by the timer */ }
  const ms = Date.now() - t0;
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* closed */ }
  await sending;
  return { text, ms, closedByServer };
}

const jsonOf = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
const HEAD = "POST /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";

async function adminServer() {
  const dir = await tempDir("mneme-framing-");
  const logs: string[] = [];
  const port = freePort();
  const server = await startAdminServer(
    testConfig({ dataDir: dir.path, adminPort: port, adminHost: "127.0.0.1", embeddingDim: 32 }),
    { log: (l) => logs.push(l) },
  );
  return {
    port,
    logs,
    server,
    /** The contents of every memory written. */
    async contents(): Promise<string[]> {
      const res = await fetch(`${server.url}/api/memories/export`, { method: "POST" });
      return (await res.json()).map((m: { content: string }) => m.content);
    },
    async close() {
      await server.close();
      await dir.cleanup();
    },
  };
}

Deno.test({
  name: "admin: a malformed chunked body is a 400 naming the body, logged as malformed",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const a = await adminServer();
    try {
      const cases = [
        // Headers and a bad chunk size in one packet: Deno.serve alone drops these unanswered.
        [
          `${HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n{"content":"x"}\r\n0\r\n\r\n`,
          /chunk size "zz" is not hexadecimal/,
        ],
        // A good chunk, then a bad one.
        [`${HEAD}Transfer-Encoding: chunked\r\n\r\n5\r\n{"con\r\nxyz\r\n`, /chunk size "xyz"/],
        // A chunk longer than its size.
        [
          `${HEAD}Transfer-Encoding: chunked\r\n\r\n3\r\n{"content":"x"}\r\n0\r\n\r\n`,
          /a chunk is longer than its size/,
        ],
      ] as const;
      for (const [request, why] of cases) {
        const r = await raw(a.port, [request], 5_000);
        assert.match(r.text, /^HTTP\/1\.1 400 /, r.text);
        assert.match(r.text, /connection: close/i);
        assert.ok(r.closedByServer, "the server closes the connection");
        const body = jsonOf(r.text);
        assert.equal(body.field, "body");
        assert.match(body.error, /^malformed chunked body: /);
        assert.match(body.error, why);
      }
      // The headers and body arrive apart (the handler would have run): the same answer.
      const apart = await raw(
        a.port,
        [`${HEAD}Transfer-Encoding: chunked\r\n\r\n`, "zz\r\nabc\r\n"],
        5_000,
        200,
      );
      assert.match(apart.text, /^HTTP\/1\.1 400 /, apart.text);
      const malformed = a.logs.filter((l) => /malformed chunked body/.test(l));
      assert.equal(malformed.length, 4, a.logs.join("\n"));
      for (const l of malformed) {
        assert.match(
          l,
          /^admin: malformed chunked body: .* during POST \/api\/memories from 127\.0\.0\.1; answered 400$/,
        );
      }
      assert.ok(!a.logs.some((l) => /disconnect/.test(l)), a.logs.join("\n"));
      // Nothing was written; a well-framed chunked request still works, on a kept-alive
      // connection after a plain one.
      const ok = await raw(a.port, [
        "GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
        `${HEAD}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        'a\r\n{"content"\r\n8;ext=1\r\n:"kept"}\r\n0\r\nX-Trailer: 1\r\n\r\n',
      ], 10_000);
      assert.match(ok.text, /^HTTP\/1\.1 200 /, ok.text);
      assert.match(ok.text, /HTTP\/1\.1 201 Created/, ok.text);
      assert.deepEqual(await a.contents(), ["kept"]);
    } finally {
      await a.close();
    }
  },
});

Deno.test({
  name: "admin: headers or a body that stall get 408 within their timeout; silence is closed",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const a = await adminServer();
    try {
      const wait = HEADER_TIMEOUT_MS + 5_000;
      const [headers, trickle, body, silent, fine] = await Promise.all([
        // Headers that never end.
        raw(a.port, [`${HEAD}Content-Length: 5\r\n`], wait),
        // Headers that trickle in, a line every 3 s: the deadline is for all of them.
        raw(
          a.port,
          [
            "POST /api/memories HTTP/1.1\r\n",
            "Host: 127.0.0.1\r\n",
            "A: 1\r\n",
            "B: 2\r\n",
            "C: 3\r\n",
            "D: 4\r\n",
          ],
          wait,
          3_000,
        ),
        // A body that stops after its first bytes.
        raw(a.port, [`${HEAD}Content-Length: 100\r\n\r\n{"content":`], BODY_STALL_MS + 5_000),
        // A connection that sends nothing.
        raw(a.port, [], wait),
        // A body sent slowly but steadily (a byte every 2 s) is not stalled.
        raw(
          a.port,
          [
            `${HEAD}Content-Length: 18\r\nConnection: close\r\n\r\n{"content":"sl`,
            "o",
            "w",
            '"',
            "}",
          ],
          30_000,
          2_000,
        ),
      ]);
      for (
        const [what, r, limit] of [["headers", headers, HEADER_TIMEOUT_MS], [
          "trickle",
          trickle,
          HEADER_TIMEOUT_MS,
        ], ["body", body, BODY_STALL_MS]] as const
      ) {
        assert.match(r.text, /^HTTP\/1\.1 408 /, `${what}: ${r.text}`);
        assert.match(r.text, /connection: close/i);
        assert.ok(r.closedByServer, what);
        assert.ok(r.ms >= limit - 100 && r.ms < limit + 3_000, `${what}: ${r.ms} ms`);
        assert.equal(jsonOf(r.text).field, what === "body" ? "body" : "headers");
      }
      assert.equal(silent.text, "");
      assert.ok(silent.closedByServer && silent.ms < HEADER_TIMEOUT_MS + 3_000, `${silent.ms}`);
      assert.match(fine.text, /^HTTP\/1\.1 201 /, fine.text);
      assert.ok(
        a.logs.some((l) =>
          /^admin: the request headers did not arrive within 10 s from 127\.0\.0\.1; answered 408$/
            .test(l)
        ),
        a.logs.join("\n"),
      );
      assert.ok(
        a.logs.some((l) =>
          /^admin: the request body stalled \(nothing for 10 s\) during POST \/api\/memories from 127\.0\.0\.1; answered 408$/
            .test(l)
        ),
        a.logs.join("\n"),
      );
      // Only the slow one was written.
      assert.deepEqual(await a.contents(), ["slow"]);
    } finally {
      await a.close();
    }
  },
});

Deno.test({
  name: "msgcli serve: the same 400 and 408s, and a long quiet stream is never cut",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const rig = await startRig({
      // The stream pauses 2.5 s (no byte at all) after its third event.
      fake: { onStreamEvent: async (_e, i) => void (i === 2 && await sleep(2_500)) },
      daemon: { headerTimeoutMs: 1_000, bodyStallMs: 1_000 },
    });
    try {
      const port = Number(new URL(rig.url).port);
      const head =
        "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
      const [bad, headers, body] = await Promise.all([
        raw(port, [`${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`], 5_000),
        raw(port, [head], 6_000),
        raw(port, [`${head}Content-Length: 50\r\n\r\n{"model":`], 6_000),
      ]);
      assert.match(bad.text, /^HTTP\/1\.1 400 /, bad.text);
      assert.deepEqual(jsonOf(bad.text), {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: 'malformed chunked body: chunk size "zz" is not hexadecimal',
        },
      });
      for (const [what, r] of [["headers", headers], ["body", body]] as const) {
        assert.match(r.text, /^HTTP\/1\.1 408 /, `${what}: ${r.text}`);
        assert.ok(r.closedByServer && r.ms >= 900 && r.ms < 4_000, `${what}: ${r.ms} ms`);
        assert.equal(jsonOf(r.text).type, "error");
      }
      assert.ok(
        rig.logs.some((l) =>
          /^serve: malformed chunked body: .* during POST \/v1\/messages from 127\.0\.0\.1; answered 400$/
            .test(l)
        ),
        rig.logs.join("\n"),
      );
      // A streaming response quiet for longer than both timeouts still arrives in full.
      const t0 = Date.now();
      const res = await post(`${rig.url}/v1/messages`, { ...MESSAGE, stream: true });
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.ok(Date.now() - t0 >= 2_400, `${Date.now() - t0} ms`);
      assert.match(text, /event: message_stop/);
    } finally {
      await rig.close();
    }
  },
});
