/**
 * One request of 2,000,000 one-byte chunks (within the size limit) to each daemon, started as
 * a user starts it (its entrypoint, in its own process) and reached over a raw TCP socket:
 * the daemon reads it, one growing buffer, until it has it all (the import writes its memory,
 * serve proxies the message) or its 10 s body deadline passes (408: on a loaded machine the
 * runtime's server delivers well under 200,000 chunks a second), keeps answering, and its
 * resident memory grows by less than 64 MiB meanwhile.
 * (Keeping each chunk's view cost the 0.13 servers a 64 KiB buffer per byte: gigabytes.)
 */
import assert from "node:assert/strict";
import { startAdminProcess } from "../helpers.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { MESSAGE, writeCredentials } from "../serve/helpers.ts";
import { flood, paddedJson, startServeProcess } from "./chunk_flood.ts";

const CHUNKS = 2_000_000;
const MAX_GROWTH = 64 * 1024 * 1024;
const MiB = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

Deno.test({
  name: "admin daemon: 2,000,000 one-byte chunks leave it answering, RSS grows < 64 MiB",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const d = await startAdminProcess({ env: { EMBEDDING_DIM: "32" } });
    try {
      const pid = d.child.pid;
      // A search and a one-memory import first: what a search and a write load on their first
      // use (the word vectors, the dense leg's encoder, the secret rules) is loaded before the
      // resident memory is measured: this test is about reading the body.
      for (
        const [path, payload] of [
          ["search", { query: "warm up" }],
          ["import", [{ content: "warm up" }]],
        ] as const
      ) {
        const warm = await fetch(`${d.url}/api/memories/${path}`, {
          method: "POST",
          body: JSON.stringify(payload),
        });
        assert.equal(warm.status, 200, path);
        await warm.body?.cancel();
      }
      const body = paddedJson([{ content: "one byte at a time" }], CHUNKS);
      const head = "POST /api/memories/import HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
      const r = await flood(d.port, pid, head, body);
      const growth = r.peak - r.before;
      console.log(
        `${r.status}: ${(r.ms / 1000).toFixed(1)} s, RSS ${MiB(r.before)} -> peak ${MiB(r.peak)}`,
      );
      assert.match(r.status, /^HTTP\/1\.1 (200|408) /, `answer: ${r.status}\n${d.stderr()}`);
      assert.ok(growth < MAX_GROWTH, `RSS ${MiB(r.before)} -> peak ${MiB(r.peak)}`);
      const health = await fetch(`${d.url}/healthz`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const exported = await fetch(`${d.url}/api/memories/export`, { method: "POST" });
      assert.deepEqual(
        (await exported.json()).map((m: { content: string }) => m.content),
        r.status.includes(" 200 ") ? ["warm up", "one byte at a time"] : ["warm up"],
      );
    } finally {
      await d.stop();
    }
  },
});

Deno.test({
  name: "msgcli serve: 2,000,000 one-byte chunks leave it answering, RSS grows < 64 MiB",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const fake = startFakeAnthropic();
    const t = fake.issueTokens(3600);
    const credsPath = await writeCredentials({ ...t, expiresAt: Date.now() + 3600_000 });
    const root = new URL("../../", import.meta.url).pathname;
    const serve = await startServeProcess(root, {
      ...fake.env,
      MSGCLI_CREDENTIALS_PATH: credsPath,
    });
    const { port, pid } = serve;
    try {
      const body = paddedJson(MESSAGE, CHUNKS);
      const head = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
      const r = await flood(port, pid, head, body);
      const growth = r.peak - r.before;
      console.log(
        `${r.status}: ${(r.ms / 1000).toFixed(1)} s, RSS ${MiB(r.before)} -> peak ${MiB(r.peak)}`,
      );
      assert.match(r.status, /^HTTP\/1\.1 (200|408) /, `answer: ${r.status}\n${serve.log()}`);
      assert.ok(growth < MAX_GROWTH, `RSS ${MiB(r.before)} -> peak ${MiB(r.peak)}`);
      assert.equal(
        fake.requestsTo("/v1/messages").length,
        r.status.includes(" 200 ") ? 1 : 0,
        "proxied once when read in full, else not at all",
      );
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
    } finally {
      await serve.stop();
      await fake.close();
      await Deno.remove(credsPath.replace(/\/credentials\.json$/, ""), { recursive: true })
        .catch(() => {});
    }
  },
});
