/**
 * common/http_front.ts writes the handler's responses itself (there is no `Deno.serve` behind
 * it): the framing of each response (a length when the body is known, chunked when it streams,
 * nothing for HEAD, 204 and 304, unframed to HTTP/1.0), headers as the handler set them plus
 * `Date`, pipelined requests answered in order, a streaming response written piece by piece, a
 * client that goes away cancelling the body and aborting the request's signal, a throwing
 * handler answered 500, the client's own address, and a shutdown that lets a request under way
 * finish. The request side (400, 408, 413, 431) is tests/reliability/request_framing_test.ts.
 */
import assert from "node:assert/strict";
import { type FrontOptions, serveFramed } from "../../src/common/http_front.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A promise and its resolver. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** `p`, or a failure naming `what` after `ms` (a test never hangs). */
async function within<T>(p: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A response as read off the wire. */
interface Wire {
  status: number;
  version: string;
  /** Header lines as sent, names in lower case. */
  headers: [string, string][];
  /** The body's bytes, framing removed. */
  body: string;
  /** How the body was framed. */
  framing: "length" | "chunked" | "none" | "close";
}

const header = (w: Wire, name: string) => w.headers.find(([k]) => k === name)?.[1];

/**
 * Reads responses off `conn` as a client does, one per request method in `methods` (HEAD has
 * no body), until they are all in or the server closes. Also says whether it closed.
 */
async function readResponses(
  conn: Deno.Conn,
  methods: string[],
): Promise<{ responses: Wire[]; closed: boolean }> {
  let buf = new Uint8Array(0);
  let closed = false;
  const more = async (): Promise<boolean> => {
    const chunk = new Uint8Array(65536);
    const n = await within(conn.read(chunk), "a response");
    if (n === null) {
      closed = true;
      return false;
    }
    const next = new Uint8Array(buf.length + n);
    next.set(buf);
    next.set(chunk.subarray(0, n), buf.length);
    buf = next;
    return true;
  };
  const text = () => dec.decode(buf);
  const responses: Wire[] = [];
  for (const method of methods) {
    while (text().indexOf("\r\n\r\n") < 0) if (!(await more())) return { responses, closed };
    const end = text().indexOf("\r\n\r\n");
    const [statusLine, ...lines] = text().slice(0, end).split("\r\n");
    buf = buf.subarray(enc.encode(text().slice(0, end + 4)).length);
    const m = /^HTTP\/(1\.[01]) (\d{3}) /.exec(statusLine);
    assert.ok(m, statusLine);
    const headers = lines.map((l) => {
      const i = l.indexOf(":");
      return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()] as [string, string];
    });
    const w: Wire = { status: Number(m[2]), version: m[1], headers, body: "", framing: "none" };
    const length = header(w, "content-length");
    if (method === "HEAD" || w.status === 204 || w.status === 304) {
      // No body, whatever the headers say.
    } else if (header(w, "transfer-encoding") === "chunked") {
      w.framing = "chunked";
      while (true) {
        while (text().indexOf("\r\n") < 0) assert.ok(await more(), "cut in a chunk size");
        const line = text().slice(0, text().indexOf("\r\n"));
        const size = parseInt(line, 16);
        while (buf.length < line.length + 2 + size + 2) {
          assert.ok(await more(), "cut in a chunk");
        }
        w.body += dec.decode(buf.subarray(line.length + 2, line.length + 2 + size));
        buf = buf.subarray(line.length + 2 + size + 2);
        if (size === 0) break;
      }
    } else if (length !== undefined) {
      w.framing = "length";
      while (buf.length < Number(length)) assert.ok(await more(), "cut in a body");
      w.body = dec.decode(buf.subarray(0, Number(length)));
      buf = buf.subarray(Number(length));
    } else {
      w.framing = "close";
      while (await more()) { /* until the server closes */ }
      w.body = dec.decode(buf);
      buf = new Uint8Array(0);
    }
    responses.push(w);
  }
  return { responses, closed };
}

/**
 * Sends `requests` at once on a new connection and reads their answers; `closed` says whether
 * the server then closed the connection (read until it does, or for `waitCloseMs`).
 */
async function exchange(port: number, requests: string[], waitCloseMs = 0) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(requests.join("")));
    const r = await readResponses(conn, requests.map((r) => r.slice(0, r.indexOf(" "))));
    if (!r.closed && waitCloseMs > 0) {
      const n = await within(conn.read(new Uint8Array(16)), "the close", waitCloseMs);
      r.closed = n === null;
    }
    return r;
  } finally {
    conn.close();
  }
}

/** A stream that gives `pieces`, each once `gates[i]` resolves (at once without one). */
function pieces(parts: string[], gates: Promise<void>[] = []): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      if (i === parts.length) return controller.close();
      await gates[i];
      controller.enqueue(enc.encode(parts[i++]));
    },
  });
}

function start(
  handler: Parameters<typeof serveFramed>[1],
  opts: Partial<FrontOptions> = {},
) {
  const logs: string[] = [];
  const server = serveFramed(
    { hostname: "127.0.0.1", port: 0, name: "front", log: (l) => logs.push(l), ...opts },
    handler,
  );
  return { server, logs, port: server.addr.port };
}

Deno.test("http_front: each response framed by what its body is; pipelined answers in order", async () => {
  const order: string[] = [];
  const { server, port } = start(async (req) => {
    const path = new URL(req.url).pathname;
    order.push(`${req.method} ${path}`);
    switch (path) {
      case "/slow":
        await new Promise((r) => setTimeout(r, 50));
        return new Response("slow");
      case "/text":
        return new Response("héllo", { headers: { "content-type": "text/plain" } });
      case "/json":
        return Response.json({ a: 1 }, { status: 201 });
      case "/empty":
        return new Response(null, { status: 200 });
      case "/stream":
        return new Response(pieces(["ab", "", "cde"]));
      case "/declared":
        return new Response(pieces(["abc", "def"]), { headers: { "content-length": "6" } });
      case "/nocontent":
        return new Response(null, { status: 204 });
      case "/notmodified":
        return new Response(null, { status: 304, headers: { etag: '"x"' } });
      case "/cookies": {
        const headers = new Headers({ "x-custom": "1" });
        headers.append("set-cookie", "a=1; Path=/");
        headers.append("set-cookie", "b=2; Path=/");
        return new Response("ok", { headers });
      }
      case "/echo":
        return new Response(await req.text());
    }
    return new Response("no", { status: 404 });
  });
  try {
    const get = (path: string, extra = "") =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;
    const r = await exchange(port, [
      get("/slow"),
      get("/text"),
      `HEAD /text HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      get("/json"),
      get("/empty"),
      get("/stream"),
      get("/declared"),
      get("/nocontent"),
      get("/notmodified"),
      get("/cookies"),
      `POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody`,
    ], 10_000);
    const [slow, text, head, json, empty, stream, declared, none, notModified, cookies, echo] =
      r.responses;
    assert.equal(r.responses.length, 11);
    assert.deepEqual(order, [
      "GET /slow",
      "GET /text",
      "HEAD /text",
      "GET /json",
      "GET /empty",
      "GET /stream",
      "GET /declared",
      "GET /nocontent",
      "GET /notmodified",
      "GET /cookies",
      "POST /echo",
    ]);
    // In order, the slow one first.
    assert.equal(slow.body, "slow");
    // Complete at once: its length.
    assert.deepEqual([text.status, text.framing, text.body], [200, "length", "héllo"]);
    assert.equal(header(text, "content-length"), String(enc.encode("héllo").length));
    assert.equal(header(text, "content-type"), "text/plain");
    assert.ok(!header(text, "transfer-encoding"));
    assert.ok(!Number.isNaN(Date.parse(header(text, "date") ?? "")), "a Date header");
    assert.deepEqual([head.status, head.body], [200, ""]);
    assert.deepEqual([json.status, json.framing, JSON.parse(json.body)], [201, "length", { a: 1 }]);
    assert.deepEqual([empty.framing, header(empty, "content-length"), empty.body], [
      "length",
      "0",
      "",
    ]);
    // A stream: chunked (the empty piece skipped, not taken for the end).
    assert.deepEqual([stream.framing, stream.body], ["chunked", "abcde"]);
    assert.ok(!header(stream, "content-length"));
    // The handler's length: kept, the body as it is.
    assert.deepEqual([declared.framing, header(declared, "content-length"), declared.body], [
      "length",
      "6",
      "abcdef",
    ]);
    // 204 and 304: no body and no framing headers.
    for (const w of [none, notModified]) {
      assert.ok(!header(w, "content-length") && !header(w, "transfer-encoding"), `${w.status}`);
    }
    assert.deepEqual([none.status, notModified.status], [204, 304]);
    assert.equal(header(notModified, "etag"), '"x"');
    // Every Set-Cookie on a line of its own.
    assert.deepEqual(cookies.headers.filter(([k]) => k === "set-cookie").map(([, v]) => v), [
      "a=1; Path=/",
      "b=2; Path=/",
    ]);
    assert.equal(header(cookies, "x-custom"), "1");
    // The last asked to close: answered with connection: close, then closed.
    assert.equal(echo.body, "body");
    assert.equal(header(echo, "connection"), "close");
    assert.ok(r.closed);
  } finally {
    await server.shutdown();
  }
});

Deno.test("http_front: HTTP/1.0 clients get no chunked coding; keep-alive when they ask", async () => {
  const { server, port } = start((req) => {
    const path = new URL(req.url).pathname;
    return path === "/stream" ? new Response(pieces(["ab", "cd"])) : new Response("hello");
  });
  try {
    const r = await exchange(port, ["GET /stream HTTP/1.0\r\n\r\n"]);
    assert.equal(r.responses.length, 1);
    const [w] = r.responses;
    assert.deepEqual([w.status, w.framing, w.body], [200, "close", "abcd"]);
    assert.ok(!header(w, "transfer-encoding"));
    assert.ok(r.closed);
    // Kept alive on request: said so, with a length, and the connection serves a second one.
    const k = await exchange(port, [
      "GET /text HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
      "GET /text HTTP/1.0\r\n\r\n",
    ], 10_000);
    assert.equal(k.responses.length, 2);
    assert.equal(header(k.responses[0], "connection"), "keep-alive");
    assert.deepEqual([k.responses[0].framing, k.responses[0].body], ["length", "hello"]);
    assert.equal(k.responses[1].body, "hello");
    assert.ok(k.closed, "a plain HTTP/1.0 request closes after its answer");
  } finally {
    await server.shutdown();
  }
});

Deno.test("http_front: a streaming response reaches fetch piece by piece, as it is written", async () => {
  const second = deferred();
  const third = deferred();
  const { server, port } = start(() =>
    new Response(
      pieces(["one ", "two ", "three"], [Promise.resolve(), second.promise, third.promise]),
      {
        headers: { "content-type": "text/event-stream" },
      },
    )
  );
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const reader = res.body!.getReader();
    // Each piece is read before the next one exists.
    assert.equal(dec.decode((await within(reader.read(), "the first piece")).value), "one ");
    second.resolve();
    assert.equal(dec.decode((await within(reader.read(), "the second piece")).value), "two ");
    third.resolve();
    assert.equal(dec.decode((await within(reader.read(), "the third piece")).value), "three");
    assert.ok((await within(reader.read(), "the end")).done);
  } finally {
    await server.shutdown();
  }
});

Deno.test("http_front: a client gone mid-stream cancels the body and aborts the request's signal", async () => {
  const cancelled = deferred<unknown>();
  const aborted = deferred<unknown>();
  const { server, port } = start((req, info) => {
    req.signal.addEventListener("abort", () => aborted.resolve(req.signal.reason));
    let n = 0;
    return new Response(
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          // A piece now and then, for ever.
          if (n++ > 0) await new Promise((r) => setTimeout(r, 20));
          controller.enqueue(enc.encode(`event ${n} for ${info.remoteAddr.port}\n`));
        },
        cancel(reason) {
          cancelled.resolve(reason);
        },
      }),
    );
  });
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(enc.encode("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    const buf = new Uint8Array(4096);
    let got = "";
    while (!got.includes("event 1")) {
      const n = await within(conn.read(buf), "the first event");
      assert.ok(n !== null);
      got += dec.decode(buf.subarray(0, n));
    }
    // The handler saw the client's own address.
    assert.match(got, new RegExp(`event 1 for ${(conn.localAddr as Deno.NetAddr).port}\\n`));
    assert.match(got, /transfer-encoding: chunked/);
    conn.close();
    await within(cancelled.promise, "the body's cancel");
    const reason = await within(aborted.promise, "the request's abort");
    assert.equal((reason as DOMException).name, "AbortError");
  } finally {
    await server.shutdown();
  }
});

Deno.test("http_front: a throwing handler gets onError's answer (or a plain 500), the server goes on", async () => {
  const handler = (req: Request) => {
    if (new URL(req.url).pathname === "/throw") throw new Error("boom");
    return new Response("fine");
  };
  const withOnError = start(handler, {
    onError: (err) => Response.json({ error: `caught ${(err as Error).message}` }, { status: 500 }),
  });
  const plain = start(handler);
  try {
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const a = await exchange(withOnError.port, [get("/throw"), get("/fine")]);
    assert.equal(a.responses[0].status, 500);
    assert.deepEqual(JSON.parse(a.responses[0].body), { error: "caught boom" });
    assert.equal(a.responses[1].body, "fine", "the same connection goes on");
    const b = await exchange(plain.port, [get("/throw"), get("/fine")]);
    assert.deepEqual([b.responses[0].status, b.responses[0].body], [500, "Internal Server Error"]);
    assert.equal(b.responses[1].body, "fine");
    assert.deepEqual(plain.logs, ["front: internal error during GET /throw: boom"]);
    // And through fetch.
    const res = await fetch(`http://127.0.0.1:${withOnError.port}/throw`);
    assert.equal(res.status, 500);
    await res.body?.cancel();
  } finally {
    await withOnError.server.shutdown();
    await plain.server.shutdown();
  }
});

Deno.test("http_front: shutdown closes idle connections, lets a request under way finish", async () => {
  const gate = deferred();
  const entered = deferred();
  const { server, port } = start(async (req) => {
    if (new URL(req.url).pathname === "/gate") {
      entered.resolve();
      await gate.promise;
      return new Response("finished");
    }
    return new Response("quick");
  });
  const idle = await Deno.connect({ hostname: "127.0.0.1", port });
  const busy = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    // One connection answered and idle, one with a request under way.
    await idle.write(enc.encode("GET /quick HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    assert.equal((await readResponses(idle, ["GET"])).responses[0].body, "quick");
    await busy.write(enc.encode("GET /gate HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    await within(entered.promise, "the handler");
    let done = false;
    const stopping = server.shutdown().then(() => (done = true));
    // The idle one closes; nothing new is accepted.
    assert.equal(await within(idle.read(new Uint8Array(16)), "the idle close"), null);
    await assert.rejects(async () => {
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      c.close();
    });
    assert.equal(done, false, "shutdown waits for the request under way");
    gate.resolve();
    const r = await readResponses(busy, ["GET"]);
    assert.equal(r.responses[0].body, "finished");
    assert.equal(header(r.responses[0], "connection"), "close");
    await within(stopping, "shutdown");
    await within(server.finished, "finished");
  } finally {
    idle.close();
    busy.close();
  }
});
