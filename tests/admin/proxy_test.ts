/**
 * A proxy in the environment never carries the admin daemon's calls to this machine: with
 * `HTTP_PROXY` (or `ALL_PROXY` and a `NO_PROXY` naming another host) pointing at a real proxy
 * that refuses everything, the daemon, started with exactly the permissions its task computes,
 * embeds through a (fake) Ollama on 127.0.0.1: it starts, stores and finds a memory, Ollama sees
 * the calls and the proxy none. (tests/memcli/proxy_test.ts shows that a plain Deno process
 * under the same variables goes through such a proxy.)
 */
import assert from "node:assert/strict";
import { denoRunArgs, findProgram } from "../../src/programs.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import { refusingProxy } from "../fakes/proxy.ts";
import { freePort, ROOT, tempDir } from "../helpers.ts";

async function healthy(url: string, child: Deno.ChildProcess, log: () => string) {
  let exited = false;
  child.status.then(() => (exited = true));
  for (const end = Date.now() + 60_000; Date.now() < end && !exited;) {
    try {
      const res = await fetch(`${url}/healthz`);
      const body = await res.json();
      if (res.status === 200) return body;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the daemon did not become healthy: ${log()}`);
}

Deno.test("the admin daemon reaches an embedder on loopback past a proxy in the environment", async () => {
  const ollama = startFakeOllama({ "nomic-embed-text": 768 });
  const proxy = refusingProxy();
  const variants: Record<string, string>[] = [
    { HTTP_PROXY: proxy.url },
    { ALL_PROXY: proxy.url, NO_PROXY: "example.com" },
  ];
  try {
    for (const vars of variants) {
      const label = JSON.stringify(vars);
      const data = await tempDir("mneme-admin-proxy-");
      const port = freePort();
      const env: Record<string, string> = {
        ...vars,
        DATA_DIR: data.path,
        CAPTURE_TRANSCRIPTS_DIR: `${data.path}/transcripts`,
        ADMIN_HOST: "127.0.0.1",
        ADMIN_PORT: String(port),
        EMBEDDING_PROVIDER: "ollama",
        OLLAMA_URL: ollama.url,
        // Deno's own check for a newer release would go to dl.deno.land through ALL_PROXY.
        DENO_NO_UPDATE_CHECK: "1",
      };
      const launch = findProgram("mneme-admin")!.launch({
        env: (n) => env[n],
        args: [],
        cwd: ROOT,
      });
      const child = new Deno.Command(Deno.execPath(), {
        args: denoRunArgs(launch),
        env: { ...env, ...launch.env },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      let err = "";
      const pump = (async () => {
        for await (const c of child.stderr.pipeThrough(new TextDecoderStream())) err += c;
      })();
      const url = `http://127.0.0.1:${port}`;
      proxy.reset();
      const before = ollama.requests.length;
      try {
        const health = await healthy(url, child, () => err);
        assert.equal(health.embedder.provider, "ollama", label);
        const created = await fetch(`${url}/api/memories`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ content: `The proxy check ${label} passed.`, project: "p" }),
        });
        assert.equal(created.status, 201, `${label}: ${await created.clone().text()}`);
        await created.body?.cancel();
        const found = await fetch(`${url}/api/memories/search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "proxy check", project: "p" }),
        });
        const hits = await found.json();
        assert.ok(
          hits.some((h: { memory: { content: string } }) => h.memory.content.includes(label)),
          `${label}: ${JSON.stringify(hits)}`,
        );
        assert.ok(ollama.requests.length > before, `${label}: Ollama saw no call`);
        assert.equal(proxy.count(), 0, `${label}: the daemon went through the proxy`);
      } finally {
        try {
          child.kill("SIGTERM");
        } catch { /* gone */ }
        await child.status;
        await pump.catch(() => {});
        await data.cleanup();
      }
    }
  } finally {
    proxy.close();
    await ollama.close();
  }
});
