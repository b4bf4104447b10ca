/**
 * The real admin entrypoint (`src/bin/admin.ts`) as a subprocess on a free port: serving,
 * restart with data intact, clean exit on SIGTERM, and the startup refusals (non-loopback
 * host without a key, port in use, a DATA_DIR owned by another process).
 */
import assert from "node:assert/strict";
import { freePort, ROOT, startAdminProcess, tempDir } from "../helpers.ts";

const decoder = new TextDecoder();

/** Run the entrypoint to completion (it is expected to exit by itself). */
async function runAdmin(
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}src/bin/admin.ts`],
    env: { EMBEDDING_PROVIDER: "builtin", ADMIN_HOST: "127.0.0.1", ...env },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    ms: performance.now() - started,
  };
}

Deno.test("admin daemon: serves the API, keeps data across a restart, exits 0 on SIGTERM", async () => {
  const dir = await tempDir("mneme-daemon-");
  try {
    const first = await startAdminProcess({ dataDir: dir.path, env: { EMBEDDING_DIM: "64" } });
    let id: string;
    try {
      const health = await (await fetch(`${first.url}/healthz`)).json();
      assert.equal(health.status, "ok");
      assert.deepEqual(health.embedder, {
        provider: "builtin",
        model: "hash-v2",
        dimension: 64,
        ok: true,
      });
      const res = await fetch(`${first.url}/api/memories`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: "The daemon keeps this", project: "mneme" }),
      });
      assert.equal(res.status, 201);
      id = (await res.json()).memory.id;
      const bad = await fetch(`${first.url}/api/memories`, { method: "POST", body: "{" });
      assert.equal(bad.status, 400);
      assert.match((await bad.json()).error, /^body:/);
      const ui = await fetch(`${first.url}/`);
      assert.match(ui.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      assert.match(await ui.text(), /<html/i);
    } finally {
      await first.stop();
    }
    assert.equal((await first.child.status).code, 0, "SIGTERM exits 0");
    assert.match(first.stderr(), /shutting down/);

    const second = await startAdminProcess({ dataDir: dir.path, env: { EMBEDDING_DIM: "64" } });
    try {
      const got = await fetch(`${second.url}/api/memories/${id}`);
      assert.equal(got.status, 200);
      assert.equal((await got.json()).content, "The daemon keeps this");
      const found = await (await fetch(`${second.url}/api/memories/search`, {
        method: "POST",
        body: JSON.stringify({ query: "what does the daemon keep", project: "mneme" }),
      })).json();
      assert.equal(found[0].memory.id, id);
    } finally {
      await second.stop();
    }
  } finally {
    await dir.cleanup();
  }
});

Deno.test("admin daemon refuses a non-loopback ADMIN_HOST without ADMIN_API_KEY", async () => {
  const dir = await tempDir("mneme-daemon-");
  try {
    const r = await runAdmin({
      DATA_DIR: dir.path,
      ADMIN_HOST: "0.0.0.0",
      ADMIN_PORT: String(freePort()),
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ADMIN_HOST=0\.0\.0\.0 is not a loopback address and ADMIN_API_KEY/);
    assert.equal(r.stdout, "");
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
  } finally {
    await dir.cleanup();
  }
});

Deno.test("admin daemon exits 1 with a message when the port is in use", async () => {
  const dir = await tempDir("mneme-daemon-");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  try {
    const r = await runAdmin({ DATA_DIR: dir.path, ADMIN_PORT: String(port) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
    assert.match(r.stderr, /ADMIN_PORT/);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
  } finally {
    listener.close();
    await dir.cleanup();
  }
});

Deno.test("stdout says where it listens; a second owner of its DATA_DIR fails fast", async () => {
  const dir = await tempDir("mneme-daemon-");
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}src/bin/admin.ts`],
    env: {
      DATA_DIR: dir.path,
      ADMIN_PORT: String(port),
      ADMIN_HOST: "127.0.0.1",
      EMBEDDING_PROVIDER: "builtin",
      EMBEDDING_DIM: "16",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    const deadline = Date.now() + 60_000;
    while (!out.includes("\n") && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    assert.equal(out.split("\n")[0], `mneme admin listening on http://127.0.0.1:${port}`);

    const r = await runAdmin({
      DATA_DIR: dir.path,
      ADMIN_PORT: String(freePort()),
      EMBEDDING_DIM: "16",
    });
    assert.equal(r.code, 1);
    // It names the service that runs, where, and how to stop it.
    assert.match(
      r.stderr,
      new RegExp(
        `the memory service for ${dir.path} already runs \\(pid ${child.pid}, http://127\\.0\\.0\\.1:${port}\\): ` +
          `one data directory has one service\\. Use that one \\(web UI and Admin API at http://127\\.0\\.0\\.1:${port}\\), ` +
          `or stop it first with 'memcli stop' \\(or kill ${child.pid}\\)`,
      ),
    );
    assert.ok(r.ms < 30_000, `took ${r.ms} ms`);
    // The same port: the same answer (not "port in use").
    const same = await runAdmin({
      DATA_DIR: dir.path,
      ADMIN_PORT: String(port),
      EMBEDDING_DIM: "16",
    });
    assert.equal(same.code, 1);
    assert.match(same.stderr, /already runs \(pid \d+, /);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, "owner unharmed");

    child.kill("SIGTERM");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    assert.match(out, /database: pglite .*embedder: builtin\/hash-v2 \(16 dimensions\)/);
    assert.equal((await child.status).code, 0);
    assert.match(await stderr, /mneme admin: shutting down/);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    await child.status;
    await stderr.catch(() => "");
    await dir.cleanup();
  }
});
