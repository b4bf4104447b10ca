/**
 * `deno task bench:http`: the two daemons' HTTP servers, this checkout against another one
 * (`--baseline DIR`, e.g. `git archive 75bfca8 | tar -x -C /tmp/base`), in alternated rounds:
 *
 * 1. the chunk flood: one request of `--chunks` one-byte chunks (default 1,000,000) over a raw
 *    socket to each daemon (the admin daemon's import, serve's `/v1/messages`), its VmRSS
 *    before and at its peak (tests/reliability/chunk_flood.ts), its answer and how long;
 * 2. requests per second with 50 clients (`wrk -c 50`, 5 s each): the admin daemon's
 *    `/healthz` and a search among 300 memories;
 * 3. SSE time to first byte through `msgcli serve` (a local fake upstream), p50 and p90 of
 *    `--streams` sequential streamed requests (default 200).
 *
 * Each daemon runs from its checkout's entrypoint (`deno run -A`), on loopback, and is
 * stopped before the next one starts. Needs `wrk` (Debian: apt-get install wrk) for 2.
 * Prints a table and writes JSON to bench/results/http-<date>.json.
 * @module
 */
import { benchArgs } from "./lib/args.ts";
import { startFakeAnthropic } from "../tests/fakes/anthropic.ts";
import { flood, paddedJson, startServeProcess } from "../tests/reliability/chunk_flood.ts";

const values = benchArgs(
  "deno task bench:http [--baseline DIR] [--chunks 1000000] [--streams 200] [--rounds 2] [--out FILE]",
  {
    baseline: { type: "string" },
    chunks: { type: "string", default: "1000000" },
    streams: { type: "string", default: "200" },
    rounds: { type: "string", default: "2" },
    out: { type: "string" },
  },
);
const HERE = new URL("../", import.meta.url).pathname;
const trees: [string, string][] = [["this", HERE]];
if (values.baseline) trees.push(["baseline", values.baseline.replace(/\/?$/, "/")]);
const CHUNKS = Number(values.chunks);
const STREAMS = Number(values.streams);
const ROUNDS = Number(values.rounds);
const MiB = (n: number) => Math.round(n / 2 ** 20);

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function until(ok: () => Promise<boolean>, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start`);
}

function spawn(root: string, entry: string, args: string[], env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}src/bin/${entry}`, ...args],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch { /* gone */ }
  await child.stderr.cancel().catch(() => {});
  await child.status;
}

async function wrk(url: string, body?: string): Promise<number> {
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    script,
    body === undefined ? "" : `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\n` +
      `wrk.headers["Content-Type"] = "application/json"\n`,
  );
  const out = await new Deno.Command("wrk", {
    args: ["-t", "2", "-c", "50", "-d", "5s", "-s", script, url],
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(script);
  const text = new TextDecoder().decode(out.stdout);
  const m = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!m) throw new Error(`wrk: ${text}${new TextDecoder().decode(out.stderr)}`);
  if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors: ${text}`);
  return Number(m[1]);
}

async function adminRound(root: string) {
  const dataDir = await Deno.makeTempDir({ prefix: "bench-http-" });
  const port = freePort();
  const child = spawn(root, "admin.ts", [], {
    ...Deno.env.toObject(),
    DATA_DIR: dataDir,
    ADMIN_PORT: String(port),
    ADMIN_HOST: "127.0.0.1",
    EMBEDDING_PROVIDER: "builtin",
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(async () => (await fetch(`${url}/healthz`)).status === 200, "admin");
    const topics = ["deploy", "database", "port", "cache", "logs", "tests", "review", "release"];
    const items = Array.from({ length: 300 }, (_, i) => ({
      content: `Note ${i}: the ${topics[i % 8]} of service ${i % 13} uses ${topics[(i * 3) % 8]}`,
    }));
    const imp = await fetch(`${url}/api/memories/import`, {
      method: "POST",
      body: JSON.stringify(items),
      headers: { "content-type": "application/json" },
    });
    await imp.body?.cancel();
    const healthz = await wrk(`${url}/healthz`);
    const search = await wrk(
      `${url}/api/memories/search`,
      JSON.stringify({ query: "database port of the service", limit: 5 }),
    );
    const r = await flood(
      port,
      child.pid,
      "POST /api/memories/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
      paddedJson([{ content: "flood" }], CHUNKS),
    );
    const alive = (await fetch(`${url}/healthz`)).status;
    return { healthz, search, flood: { ...r, alive } };
  } finally {
    await stop(child);
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

async function serveRound(root: string) {
  const fake = startFakeAnthropic({ replyText: "Benchmark reply: " + "lorem ipsum ".repeat(8) });
  const t = fake.issueTokens(3600);
  const dir = await Deno.makeTempDir({ prefix: "bench-http-serve-" });
  const creds = `${dir}/credentials.json`;
  await Deno.writeTextFile(
    creds,
    JSON.stringify({ ...t, expiresAt: Date.now() + 3600_000 }),
    { mode: 0o600 },
  );
  const serve = await startServeProcess(root, { ...fake.env, MSGCLI_CREDENTIALS_PATH: creds });
  const { port, pid } = serve;
  try {
    const url = `http://127.0.0.1:${port}`;
    const message = {
      model: "claude-sonnet-4-6",
      max_tokens: 64,
      stream: true,
      messages: [{ role: "user", content: "hello there" }],
    };
    const ttfb: number[] = [];
    for (let i = 0; i < STREAMS + 20; i++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
      const reader = res.body!.getReader();
      await reader.read();
      if (i >= 20) ttfb.push(performance.now() - t0);
      while (!(await reader.read()).done) { /* drain */ }
    }
    ttfb.sort((a, b) => a - b);
    const r = await flood(
      port,
      pid,
      "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
      paddedJson({ ...message, stream: false }, CHUNKS),
    );
    const alive = await fetch(`${url}/healthz`).then((x) => (x.body?.cancel(), x.status));
    const q = (p: number) => Number(ttfb[Math.floor(p * (ttfb.length - 1))].toFixed(2));
    return { ttfb: { p50: q(0.5), p90: q(0.9) }, flood: { ...r, alive } };
  } finally {
    await serve.stop();
    await fake.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const results: Record<string, unknown>[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? trees : [...trees].reverse();
  for (const [name, root] of order) {
    const loadBefore = load();
    const admin = await adminRound(root);
    const serve = await serveRound(root);
    const row = { round, tree: name, root, load: loadBefore, admin, serve };
    results.push(row);
    const f = (x: { before: number; peak: number; status: string; ms: number }) =>
      `${MiB(x.before)} -> ${MiB(x.peak)} MiB (${x.status.slice(9, 12) || "closed"}, ${
        (x.ms / 1000).toFixed(1)
      } s)`;
    console.log(
      `round ${round} ${name.padEnd(8)} load ${loadBefore} | healthz ${
        admin.healthz.toFixed(0)
      }/s search ${admin.search.toFixed(0)}/s | admin flood ${f(admin.flood)} | serve flood ${
        f(serve.flood)
      } | SSE TTFB p50 ${serve.ttfb.p50} ms p90 ${serve.ttfb.p90} ms`,
    );
  }
}
const out = values.out ??
  `${HERE}bench/results/http-${new Date().toISOString().slice(0, 10)}.json`;
await Deno.mkdir(`${HERE}bench/results`, { recursive: true });
await Deno.writeTextFile(
  out,
  JSON.stringify({ chunks: CHUNKS, streams: STREAMS, results }, null, 2) + "\n",
);
console.log(`wrote ${out}`);
