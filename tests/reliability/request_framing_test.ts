/**
 * Request hygiene through the real servers (the admin daemon's and `msgcli serve`'s, both on
 * `Deno.serve`) and raw TCP clients, as a client or a proxy in front would send them:
 * - every input a hand-written parser once let through (the list below) gets a 400 or a closed
 *   connection with nothing handled, and a create pipelined behind it never runs;
 * - the two that the runtime's server accepts (an absolute-form `file:` target and a dot
 *   segment) are refused by the apps themselves (400, never normalised into another path);
 * - a malformed chunk after the headers is logged as "disconnected or malformed", nothing
 *   written; a body that stops is answered 408 by the app's own deadline;
 * - a long quiet stream through serve is never cut.
 */
import assert from "node:assert/strict";
import { startAdminServer } from "../../src/admin/server.ts";
import { BODY_TIMEOUT_MS } from "../../src/admin/app.ts";
import { freePort, tempDir, testConfig } from "../helpers.ts";
import { MESSAGE, post, startRig } from "../serve/helpers.ts";

const enc = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends `parts` on a new connection (`gapMs` apart) and reads until the server closes it
 * (or `waitMs`); returns what came back, how many responses it holds, and when it ended.
 */
async function raw(port: number, parts: (string | Uint8Array)[], waitMs: number, gapMs = 0) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const t0 = Date.now();
  const sending = (async () => {
    for (const p of parts) {
      try {
        await conn.write(typeof p === "string" ? enc.encode(p) : p);
      } catch {
        return;
      }
      if (gapMs) await sleep(gapMs);
    }
  })();
  const timer = setTimeout(() => conn.close(), waitMs);
  const buf = new Uint8Array(65536);
  let text = "";
  let closedByServer = false;
  let firstByteMs = -1;
  try {
    while (true) {
      const n = await conn.read(buf);
      if (n === null) {
        closedByServer = true;
        break;
      }
      if (firstByteMs < 0) firstByteMs = Date.now() - t0;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  } catch { /* closed by the timer, or reset by the server */ }
  const ms = Date.now() - t0;
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* closed */ }
  await sending;
  const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
  return { text, ms, firstByteMs, closedByServer, statuses };
}

const jsonOf = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));

/**
 * The inputs hyper (Deno.serve) refuses itself: each `bad(n)` is a request, and a create of
 * `smuggled-n` is pipelined right behind it. `target` is the path of the bad request.
 */
function refusedInputs(target: string): [string, string | Uint8Array][] {
  const P = `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n`;
  const body = '{"content":"first"}';
  const len = body.length.toString(16);
  return [
    // JavaScript's trim() strips VT, FF and NBSP: hyper does not.
    [
      "VT in Transfer-Encoding",
      `${P}Transfer-Encoding: \x0bchunked\r\n\r\n${len}\r\n${body}\r\n0\r\n\r\n`,
    ],
    ["FF in Content-Length", `${P}Content-Length: ${body.length}\x0c\r\n\r\n${body}`],
    [
      "bare LF after a chunk size",
      `${P}Transfer-Encoding: chunked\r\n\r\n${len}\n${body}\r\n0\r\n\r\n`,
    ],
    [
      "bare LF after chunk data",
      `${P}Transfer-Encoding: chunked\r\n\r\n${len}\r\n${body}\n0\r\n\r\n`,
    ],
    [
      "bare LF in the last chunk",
      `${P}Transfer-Encoding: chunked\r\n\r\n${len}\r\n${body}\r\n0\n\n`,
    ],
    [
      "Transfer-Encoding on HTTP/1.0 kept alive",
      `POST ${target} HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n` +
      `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${len}\r\n${body}\r\n0\r\n\r\n`,
    ],
    [
      "identity, chunked",
      `${P}Transfer-Encoding: identity, chunked\r\n\r\n${len}\r\n${body}\r\n0\r\n\r\n`,
    ],
    [
      "Transfer-Encoding twice",
      `${P}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n${len}\r\n${body}\r\n0\r\n\r\n`,
    ],
    [
      "Content-Length and Transfer-Encoding",
      `${P}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n${len}\r\n${body}\r\n0\r\n\r\n`,
    ],
    [
      "a control byte in a header value",
      `${P}X-A: a\x01b\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ],
    [
      "NUL in the target",
      `POST ${target}\x00x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ],
    [
      "0xE9 in the target",
      Uint8Array.from([
        ...enc.encode(`POST ${target}`),
        0xe9,
        ...enc.encode(
          ` HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        ),
      ]),
    ],
    [
      "HTTP/1.2",
      `POST ${target} HTTP/1.2\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ],
    [
      "a 100 KB head",
      `${P}X-Big: ${"a".repeat(100_000)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ],
    [
      "a 200 KB head",
      `${P}X-Big: ${"a".repeat(200_000)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ],
    [
      "10,000 headers",
      `${P}${Array.from({ length: 10_000 }, (_, i) => `X-${i}: 1\r\n`).join("")}` +
      `Content-Length: ${body.length}\r\n\r\n${body}`,
    ],
    ["a malformed chunk size", `${P}Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`],
  ];
}

/** The targets hyper accepts and hands on as they are: the apps refuse them (400). */
const TARGETS = ["file:///etc/passwd", "/static/../healthz", "/x/%2e%2e/healthz"];

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
      return (await res.json()).map((m: { content: string }) => m.content).sort();
    },
    async close() {
      await server.close();
      await dir.cleanup();
    },
  };
}

const create = (content: string) => {
  const body = JSON.stringify({ content });
  return "POST /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
    `Content-Length: ${body.length}\r\n\r\n${body}`;
};

const glue = (a: string | Uint8Array, b: string): string | Uint8Array =>
  typeof a === "string" ? a + b : Uint8Array.from([...a, ...enc.encode(b)]);

Deno.test({
  name:
    "admin: each refused input gets 400 or a closed connection; the create behind it never runs",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const a = await adminServer();
    try {
      const inputs = refusedInputs("/api/memories");
      for (const [i, [what, request]] of inputs.entries()) {
        const r = await raw(a.port, [glue(request, create(`smuggled-${i}`))], 3_000);
        // Nothing but one 400, or nothing at all (hyper closes the connection unanswered).
        assert.ok(
          r.statuses.length === 0 || (r.statuses.length === 1 && r.statuses[0] === 400),
          `${what}: ${r.text.slice(0, 200)}`,
        );
      }
      assert.deepEqual(await a.contents(), [], "neither the bad request nor the one behind it ran");
      // The targets hyper accepts: 400 from the app, naming the target; nothing normalised.
      // Their framing is unambiguous (a Content-Length body read exactly, or none), so the
      // request after one is the client's own next request, not a smuggled one: it runs, once.
      for (const [i, target] of TARGETS.entries()) {
        for (const method of ["GET", "POST"]) {
          const r = await raw(a.port, [
            `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n` +
            create(`after-${i}-${method}`).replace(
              "HTTP/1.1\r\n",
              "HTTP/1.1\r\nConnection: close\r\n",
            ),
          ], 5_000);
          assert.deepEqual(r.statuses, [400, 201], `${method} ${target}: ${r.text}`);
          const body = jsonOf(r.text.slice(0, r.text.indexOf("HTTP/1.1 201")));
          assert.equal(body.field, "target");
          assert.match(body.error, /^request target has an? (dot|empty) segment/);
        }
      }
      assert.deepEqual(
        await a.contents(),
        TARGETS.flatMap((_, i) => [`after-${i}-GET`, `after-${i}-POST`]).sort(),
      );
      // The server still answers, kept alive, chunked bodies included.
      const ok = await raw(a.port, [
        "GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
        "POST /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n" +
        'Connection: close\r\n\r\na\r\n{"content"\r\n8;ext=1\r\n:"kept"}\r\n0\r\nX-Trailer: 1\r\n\r\n',
      ], 10_000);
      assert.deepEqual(ok.statuses, [200, 201], ok.text);
    } finally {
      await a.close();
    }
  },
});

Deno.test({
  name: "admin: a malformed chunk after the headers is logged as such; a stalled body gets 408",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const a = await adminServer();
    try {
      const HEAD =
        "POST /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
      // The headers and the bad chunk arrive apart, so the handler runs and its read fails.
      const apart = await raw(
        a.port,
        [`${HEAD}Transfer-Encoding: chunked\r\n\r\n`, "zz\r\nabc\r\n"],
        5_000,
        300,
      );
      assert.ok(apart.statuses.every((s) => s === 400), apart.text);
      for (let i = 0; i < 50 && !a.logs.some((l) => /could not be read/.test(l)); i++) {
        await sleep(100);
      }
      assert.ok(
        a.logs.some((l) =>
          l ===
            "admin: the request body of POST /api/memories could not be read (the client " +
              "disconnected, or sent a malformed body)"
        ),
        a.logs.join("\n"),
      );
      // A body that stops after its first bytes: 408 from the app's own deadline.
      const [stalled, slow] = await Promise.all([
        raw(a.port, [`${HEAD}Content-Length: 100\r\n\r\n{"content":`], BODY_TIMEOUT_MS + 5_000),
        // A body sent slowly but in full within the deadline is fine.
        raw(
          a.port,
          [
            `${HEAD}Content-Length: 18\r\nConnection: close\r\n\r\n{"content":"sl`,
            "o",
            "w",
            '"',
            "}",
          ],
          15_000,
          1_000,
        ),
      ]);
      assert.deepEqual(stalled.statuses, [408], stalled.text);
      assert.ok(
        stalled.firstByteMs >= BODY_TIMEOUT_MS - 100 &&
          stalled.firstByteMs < BODY_TIMEOUT_MS + 3_000,
        `${stalled.firstByteMs}`,
      );
      assert.equal(jsonOf(stalled.text).field, "body");
      assert.deepEqual(slow.statuses, [201], slow.text);
      assert.ok(
        a.logs.some((l) =>
          l ===
            "admin: the request body did not arrive within 10 s during POST /api/memories; answered 408"
        ),
        a.logs.join("\n"),
      );
      assert.deepEqual(await a.contents(), ["slow"]);
    } finally {
      await a.close();
    }
  },
});

Deno.test({
  name: "msgcli serve: the same refusals, a 408 of its own, and a long quiet stream is never cut",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const rig = await startRig({
      // The stream pauses 2.5 s (no byte at all) after its third event.
      fake: { onStreamEvent: async (_e, i) => void (i === 2 && await sleep(2_500)) },
      daemon: { bodyTimeoutMs: 1_000 },
    });
    try {
      const port = Number(new URL(rig.url).port);
      const body = JSON.stringify(MESSAGE);
      const proxied = () => rig.fake.requests.filter((r) => r.path === "/v1/messages").length;
      const second = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      for (const [what, request] of refusedInputs("/v1/messages")) {
        const r = await raw(port, [glue(request, second)], 3_000);
        assert.ok(
          r.statuses.length === 0 || (r.statuses.length === 1 && r.statuses[0] === 400),
          `${what}: ${r.text.slice(0, 200)}`,
        );
      }
      assert.equal(proxied(), 0, "nothing reached the upstream");
      for (const target of TARGETS) {
        const r = await raw(port, [
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        ], 5_000);
        assert.deepEqual(r.statuses, [400], `${target}: ${r.text}`);
        assert.match(jsonOf(r.text).error.message, /^request target has an? (dot|empty) segment/);
      }
      const head =
        "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
      // The headers, then a malformed chunk: the handler's read fails, and the log says so.
      const apart = await raw(
        port,
        [`${head}Transfer-Encoding: chunked\r\n\r\n`, "zz\r\n{}\r\n"],
        3_000,
        300,
      );
      assert.ok(apart.statuses.every((s) => s === 400), apart.text);
      for (let i = 0; i < 50 && !rig.logs.some((l) => /could not be read/.test(l)); i++) {
        await sleep(100);
      }
      assert.ok(
        rig.logs.includes(
          "the request body of POST /v1/messages could not be read (the client disconnected, " +
            "or sent a malformed body)",
        ),
        rig.logs.join("\n"),
      );
      assert.equal(proxied(), 0);
      const stalled = await raw(port, [`${head}Content-Length: 50\r\n\r\n{"model":`], 6_000);
      assert.deepEqual(stalled.statuses, [408], stalled.text);
      assert.ok(
        stalled.firstByteMs >= 900 && stalled.firstByteMs < 4_000,
        `${stalled.firstByteMs} ms`,
      );
      assert.equal(jsonOf(stalled.text).type, "error");
      assert.ok(
        rig.logs.includes(
          "the request body did not arrive within 1 s during POST /v1/messages; answered 408",
        ),
        rig.logs.join("\n"),
      );
      // A streaming response quiet for longer than the body deadline still arrives in full.
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
