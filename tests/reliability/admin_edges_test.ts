/**
 * Issue 15 item 9: client disconnects are disconnects (not internal errors, never a 500),
 * invalid UTF-8 is a 400, the 503 "starting" answer has the security headers and the Host
 * check, short ADMIN_API_KEYs are refused, `/healthz` tells keyless callers from elsewhere
 * the status only, and an export beyond 10000 memories says so and pages.
 */
import assert from "node:assert/strict";
import { BODY_TIMEOUT_MS, createAdminApp, createStartingApp, CSP } from "../../src/admin/app.ts";
import { startAdminServer } from "../../src/admin/server.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import { freePort, pgliteService, startAdminProcess, tempDir, testConfig } from "../helpers.ts";

const enc = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test({
  name: "a client that hangs up mid-body is logged as a disconnect, never as an internal error",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { service, db, close } = await pgliteService({ embeddingDim: 32 });
    const logs: string[] = [];
    const app = createAdminApp({ service, log: (l) => logs.push(l) });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req, info) => app.fetch(req, info),
    );
    try {
      const heads = [
        // Content-Length larger than what is sent.
        "POST /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        'Content-Length: 1000\r\n\r\n{"content":',
        // A chunked import cut after its first chunk.
        "POST /api/memories/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json" +
        '\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n[{"co\r\n',
        // A bulk delete whose (refused) body never ends.
        "DELETE /api/memories?project=x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\nab",
      ];
      for (const head of heads) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
        await conn.write(enc.encode(head));
        await sleep(150);
        conn.close();
      }
      const deadline = Date.now() + 5000;
      while (logs.length < heads.length && Date.now() < deadline) await sleep(50);
      const unreadable = (what: string) =>
        `admin: the request body of ${what} could not be read ` +
        "(the client disconnected, or sent a malformed body)";
      assert.deepEqual(logs, [
        unreadable("POST /api/memories"),
        unreadable("POST /api/memories/import"),
        unreadable("DELETE /api/memories"),
      ]);
      const n = await db.query<{ n: number }>("select count(*)::int as n from memories");
      assert.equal(n[0].n, 0);
      // The server still answers.
      const res = await fetch(`http://127.0.0.1:${server.addr.port}/healthz`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    } finally {
      await server.shutdown();
      await close();
    }
  },
});

Deno.test({
  name: "a stalled body is answered 408 within the body timeout; a malformed chunk is named",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { service, close } = await pgliteService({ embeddingDim: 32 });
    const logs: string[] = [];
    const app = createAdminApp({ service, log: (l) => logs.push(l) });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req, info) => app.fetch(req, info),
    );
    const send = async (head: string, waitMs: number) => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      const t0 = Date.now();
      await conn.write(enc.encode(head));
      const timer = setTimeout(() => conn.close(), waitMs);
      const buf = new Uint8Array(4096);
      let text = "";
      try {
        const n = await conn.read(buf);
        text = n === null ? "<closed>" : new TextDecoder().decode(buf.subarray(0, n));
      } catch {
        text = "<no answer>";
      }
      clearTimeout(timer);
      try {
        conn.close();
      } catch { /* closed by the timer */ }
      return { text, ms: Date.now() - t0 };
    };
    try {
      const stalled = await send(
        "POST /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          'Content-Length: 100\r\n\r\n{"content":',
        BODY_TIMEOUT_MS + 5_000,
      );
      assert.match(stalled.text, /^HTTP\/1\.1 408 /, stalled.text);
      assert.match(stalled.text, /connection: close/i);
      assert.ok(
        stalled.ms >= BODY_TIMEOUT_MS - 100 && stalled.ms < BODY_TIMEOUT_MS + 3_000,
        `${stalled.ms}`,
      );
      assert.ok(
        logs.some((l) => /request body did not arrive.*POST \/api\/memories; answered 408/.test(l)),
      );
      // Deno's server drops a connection whose chunk is malformed itself, before the handler
      // can answer (no 400 is possible there), at once; when the handler sees it, its log
      // names a malformed body, never only a disconnect.
      const before = logs.length;
      const bad = await send(
        "POST /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n",
        5_000,
      );
      assert.ok(bad.ms < 3_000, `closed at once (${bad.ms} ms): ${bad.text}`);
      await sleep(500);
      for (const l of logs.slice(before)) assert.match(l, /malformed body/);
    } finally {
      await server.shutdown();
      await close();
    }
  },
});

Deno.test("invalid UTF-8 in a body is a 400 naming the body; nothing is written", async () => {
  const { service, db, close } = await pgliteService({ embeddingDim: 32 });
  const app = createAdminApp({ service, log: () => {} });
  try {
    const bad = new Uint8Array([...enc.encode('{"content":"caf'), 0xff, 0xfe, ...enc.encode('"}')]);
    const items = new Uint8Array([...enc.encode('[{"content":"ok'), 0xc3, ...enc.encode('"}]')]);
    const cases: [string, string, Uint8Array<ArrayBuffer>][] = [
      ["POST", "/api/memories", bad],
      ["POST", "/api/memories/import", items],
      ["POST", "/api/memories/search", bad],
      ["POST", "/api/maintenance/reembed", new Uint8Array([0x7b, 0xff, 0x7d])],
    ];
    for (const [method, path, body] of cases) {
      const res = await app.request(`http://localhost${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body,
      });
      assert.equal(res.status, 400, path);
      assert.deepEqual(
        await res.json(),
        { error: "body: is not valid UTF-8", field: "body" },
        path,
      );
    }
    const n = await db.query<{ n: number }>("select count(*)::int as n from memories");
    assert.equal(n[0].n, 0);
    // Valid multi-byte UTF-8 is still fine.
    const ok = await app.request("http://localhost/api/memories", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: enc.encode('{"content":"café ☕"}'),
    });
    assert.equal(ok.status, 201);
    assert.equal((await ok.json()).memory.content, "café ☕");
  } finally {
    await close();
  }
});

Deno.test("the starting app: security headers and the Host and Origin checks", async () => {
  const app = createStartingApp({ loopbackOnly: true });
  const res = await app.request("http://localhost/healthz", {
    headers: { host: "127.0.0.1:4200" },
  });
  assert.equal(res.status, 503);
  assert.deepEqual(await res.json(), { error: "starting" });
  assert.equal(res.headers.get("content-security-policy"), CSP);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  const foreign = await app.request("http://localhost/api/stats", {
    headers: { host: "evil.example:4200" },
  });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.headers.get("content-security-policy"), CSP);
  await foreign.body?.cancel();
  const cross = await app.request("http://localhost/api/memories", {
    method: "POST",
    headers: { host: "127.0.0.1:4200", origin: "http://evil.example" },
  });
  assert.equal(cross.status, 403);
  await cross.body?.cancel();
});

Deno.test({
  name: "while the daemon starts, its 503 goes through the same checks (a real port)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // The embedder probe is held until released, so the daemon stays in "starting".
    const ollama = startFakeOllama({ "nomic-embed-text": 16 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const proxy = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (req) => {
        await gate;
        const u = new URL(req.url);
        return await fetch(`${ollama.url}${u.pathname}${u.search}`, {
          method: req.method,
          headers: req.headers,
          body: req.body,
        });
      },
    );
    const dir = await tempDir();
    const port = freePort();
    const started = startAdminServer(
      testConfig({
        dataDir: dir.path,
        adminPort: port,
        adminHost: "127.0.0.1",
        embeddingProvider: "ollama",
        embeddingModel: "nomic-embed-text",
        ollamaUrl: `http://127.0.0.1:${proxy.addr.port}`,
      }),
      { log: () => {} },
    );
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(res.status, 503);
      assert.deepEqual(await res.json(), { error: "starting" });
      assert.equal(res.headers.get("content-security-policy"), CSP);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      // fetch() sets Host itself: a raw request sends the rebinding attacker's name.
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(
        enc.encode(
          "GET /api/stats HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n",
        ),
      );
      let raw = "";
      for await (const chunk of conn.readable) raw += new TextDecoder().decode(chunk);
      assert.match(raw, /^HTTP\/1\.1 403 /);
      assert.match(raw, /content-security-policy: default-src 'none'/i);
      assert.match(raw, /host attacker\.example is not allowed/);
    } finally {
      release();
      const server = await started;
      await server.close();
      await proxy.shutdown();
      await ollama.close();
      await dir.cleanup();
    }
  },
});

Deno.test("ADMIN_API_KEY shorter than 16 characters is refused at start", async () => {
  const dir = await tempDir();
  try {
    await assert.rejects(
      startAdminServer(
        testConfig({ dataDir: dir.path, adminPort: freePort(), adminApiKey: "short-key-15chr" }),
      ),
      /ADMIN_API_KEY is 15 characters long; use at least 16/,
    );
    const server = await startAdminServer(
      testConfig({
        dataDir: dir.path,
        adminPort: freePort(),
        adminApiKey: "long-enough-key!",
        embeddingDim: 32,
      }),
      { log: () => {} },
    );
    await server.close();
  } finally {
    await dir.cleanup();
  }
});

Deno.test("/healthz: keyless callers from another machine get {status} only", async () => {
  const { service, close } = await pgliteService({ embeddingDim: 32 });
  const key = "a-key-long-enough-0123";
  const app = createAdminApp({ service, apiKey: key, loopbackOnly: false, log: () => {} });
  const from = (hostname: string) => ({ remoteAddr: { transport: "tcp", hostname, port: 5555 } });
  const health = async (hostname: string, headers: Record<string, string> = {}) => {
    const res = await app.request("http://mneme.example/healthz", { headers }, from(hostname));
    return { status: res.status, body: await res.json() };
  };
  try {
    assert.deepEqual(await health("192.0.2.7"), { status: 200, body: { status: "ok" } });
    assert.deepEqual(
      await health("192.0.2.7", { authorization: "Bearer wrong-key-wrong-key" }),
      { status: 200, body: { status: "ok" } },
    );
    for (const h of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const local = await health(h);
      assert.equal(local.body.database.kind, "pglite", h);
    }
    const keyed = await health("192.0.2.7", { authorization: `Bearer ${key}` });
    assert.equal(typeof keyed.body.database.size_bytes, "number");
    assert.equal(typeof (await health("2001:db8::1", { "x-api-key": key })).body.version, "string");
    // No address known (not served by Deno.serve): not trusted as local.
    const res = await app.request("http://mneme.example/healthz");
    assert.deepEqual(await res.json(), { status: "ok" });
  } finally {
    await close();
  }
});

Deno.test({
  name: "export beyond 10000 memories says so (headers) and pages with ?offset=",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { service, close } = await pgliteService({ embeddingDim: 8 });
    const app = createAdminApp({ service, log: () => {} });
    const post = (path: string) => app.request(`http://localhost${path}`, { method: "POST" });
    try {
      const base = Date.parse("2024-01-01T00:00:00Z");
      for (let start = 0; start < 10_001; start += 5000) {
        const n = Math.min(5000, 10_001 - start);
        await service.import(Array.from({ length: n }, (_, k) => ({
          content: `memory ${start + k}`,
          created_at: new Date(base + (start + k) * 1000).toISOString(),
        })));
      }
      const first = await post("/api/memories/export");
      assert.equal(first.status, 200);
      const page1 = await first.json();
      assert.equal(page1.length, 10_000);
      assert.equal(first.headers.get("x-total-count"), "10001");
      assert.equal(first.headers.get("x-export-truncated"), "true");
      assert.equal(first.headers.get("x-next-offset"), "10000");
      assert.equal(first.headers.get("link"), '</api/memories/export?offset=10000>; rel="next"');
      const second = await post("/api/memories/export?offset=10000");
      const page2 = await second.json();
      assert.deepEqual(page2.map((r: { content: string }) => r.content), ["memory 10000"]);
      assert.equal(second.headers.get("x-export-truncated"), "false");
      assert.equal(second.headers.get("x-next-offset"), null);
      for (const bad of ["?offset=-1", "?offset=x", "?offset=1.5", "?page=2"]) {
        const res = await post(`/api/memories/export${bad}`);
        assert.equal(res.status, 400, bad);
        await res.body?.cancel();
      }
    } finally {
      await close();
    }
  },
});

Deno.test("a chunked body is read once, within the limit, without Deno's legacy-abort warning", async () => {
  const admin = await startAdminProcess({ env: { EMBEDDING_DIM: "32" } });
  try {
    const chunked = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(ctl) {
          ctl.enqueue(enc.encode(text.slice(0, 5)));
          ctl.enqueue(enc.encode(text.slice(5)));
          ctl.close();
        },
      });
    const res = await fetch(`${admin.url}/api/memories`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chunked(JSON.stringify({ content: "sent in chunks" })),
    });
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal((await res.json()).memory.content, "sent in chunks");
    const big = await fetch(`${admin.url}/api/memories`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chunked(JSON.stringify({ content: "x".repeat(2 << 20) })),
    });
    assert.equal(big.status, 413);
    await big.body?.cancel();
    await sleep(200);
    assert.doesNotMatch(admin.stderr(), /legacy/i);
  } finally {
    await admin.stop();
  }
});
