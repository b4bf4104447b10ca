import assert from "node:assert/strict";
import { describeError, UsageError } from "../../src/common/errors.ts";
import { exists, existsSync } from "../../src/common/fs.ts";
import { defaultPort, isLoopbackHost } from "../../src/common/net.ts";
import { keysEqual } from "../../src/common/secret.ts";
import { shellQuote, shellQuoteExpanding } from "../../src/common/shell.ts";
import { lineReader } from "../../src/common/stdin.ts";

Deno.test("isLoopbackHost: the names and addresses the two old copies disagreed on", () => {
  for (
    const h of [
      "localhost",
      "LOCALHOST",
      "localhost.",
      "app.localhost",
      "app.localhost.",
      "127.0.0.1",
      "127.1.2.3",
      "127.255.255.255",
      "::1",
      "[::1]",
      "0:0:0:0:0:0:0:1",
      "::ffff:127.0.0.1",
      "[::ffff:127.0.0.1]",
      "::FFFF:127.9.9.9",
      "::ffff:7f00:1",
    ]
  ) assert.ok(isLoopbackHost(h), h);
  for (
    const h of [
      "",
      "0.0.0.0",
      "::",
      "128.0.0.1",
      "10.0.0.1",
      "127.0.0.256",
      "127.0.0",
      "1127.0.0.1",
      "localhost.example.com",
      "notlocalhost",
      "::ffff:10.0.0.1",
      "::ffff:8000:1",
      "::2",
      "[::]",
      "example.com",
    ]
  ) assert.ok(!isLoopbackHost(h), h);
});

Deno.test("keysEqual: equal keys match, different keys and lengths do not", () => {
  assert.ok(keysEqual("secret", "secret"));
  assert.ok(keysEqual("", ""));
  assert.ok(!keysEqual("secret", "secreT"));
  assert.ok(!keysEqual("secret", "secret-longer"));
  assert.ok(!keysEqual("secret-longer", "secret"));
  assert.ok(!keysEqual("", "x"));
  assert.ok(!keysEqual("x", ""));
  // Same bytes count, other characters; and multi-byte text against its ASCII look-alike.
  assert.ok(!keysEqual("é", "e"));
  assert.ok(keysEqual("clé-🔑", "clé-🔑"));
});

Deno.test("describeError: inline and line styles, causes, non-Error values", () => {
  const inner = new Error("connection refused");
  const outer = new Error("cannot reach the service: connection refused", { cause: inner });
  assert.equal(describeError(outer), "cannot reach the service: connection refused");
  const other = new Error("open failed", { cause: inner });
  assert.equal(describeError(other), "open failed: connection refused");
  assert.equal(
    describeError(other, { style: "lines" }),
    "open failed\n  caused by: connection refused",
  );
  // A chain that quotes its causes is told once, in both styles (no repeated "caused by").
  const dial = new Error("cannot connect to h.invalid:443: failed to lookup address", {
    cause: new Error("failed to lookup address"),
  });
  const top = new Error(`token endpoint unreachable: ${dial.message}`, { cause: dial });
  const wrapped = new Error(`token refresh failed: ${top.message}`, { cause: top });
  for (const style of ["lines", "inline"] as const) {
    assert.equal(
      describeError(wrapped, { style }),
      "token refresh failed: token endpoint unreachable: cannot connect to h.invalid:443: " +
        "failed to lookup address",
    );
  }
  assert.equal(describeError({ code: 7 }), '{"code":7}');
  assert.equal(describeError("plain"), "plain");
  assert.equal(
    describeError(other, { describe: (e) => e === inner ? "INNER" : undefined }),
    "open failed: INNER",
  );
  const e = new UsageError("--x: bad");
  assert.ok(e instanceof Error);
  assert.equal(e.name, "UsageError");
  assert.equal(e.command, "");
  assert.equal(new UsageError("m", "recall").command, "recall");
});

Deno.test("defaultPort and shell quoting", () => {
  assert.equal(defaultPort("https:"), 443);
  assert.equal(defaultPort("http:"), 80);
  assert.equal(defaultPort("postgres:"), 5432);
  assert.equal(defaultPort("socks5h:"), 1080);
  assert.equal(defaultPort("gopher:"), undefined);
  assert.equal(shellQuote("a/b.ts"), "a/b.ts");
  assert.equal(shellQuote("it's $HOME"), `'it'\\''s $HOME'`);
  assert.equal(shellQuoteExpanding("$HOME/x y"), `"$HOME/x y"`);
});

Deno.test("lineReader: lines across chunks, CRLF, no final newline, then the rest", async () => {
  const chunks = ["one\r\ntw", "o\nthr", "ee\nrest ", "of it"];
  const enc = new TextEncoder();
  let opened = 0;
  const r = lineReader(() => {
    opened++;
    return new ReadableStream({
      start(c) {
        for (const ch of chunks) c.enqueue(enc.encode(ch));
        c.close();
      },
    });
  });
  assert.equal(opened, 0);
  assert.equal(await r.readLine(), "one");
  assert.equal(await r.readLine(), "two");
  assert.equal(await r.readLine(), "three");
  assert.equal(await r.readAll(), "rest of it");
  assert.equal(await r.readLine(), null);
  assert.equal(opened, 1);
  r.release();
});

Deno.test("exists: files, folders, dangling links with and without following, missing paths", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mneme-exists-" });
  try {
    const file = `${dir}/file`;
    await Deno.writeTextFile(file, "x");
    await Deno.symlink(`${dir}/nowhere`, `${dir}/dangling`);
    const cases: [string, boolean, boolean][] = [
      [dir, true, true],
      [file, true, true],
      [`${dir}/missing`, false, false],
      [`${file}/below-a-file`, false, false],
      [`${dir}/dangling`, false, true],
    ];
    for (const [path, followed, itself] of cases) {
      assert.equal(await exists(path), followed, path);
      assert.equal(existsSync(path), followed, path);
      assert.equal(await exists(path, { followSymlinks: false }), itself, path);
      assert.equal(existsSync(new URL(`file://${path}`), { followSymlinks: false }), itself, path);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
