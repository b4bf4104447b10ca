/**
 * `deno task bench:serve`: the daemon's overhead against a local fake upstream.
 *
 * Three processes on loopback: the fake upstream (tests/fakes/anthropic.ts, this script in
 * `--upstream` mode), the real daemon entrypoint run with exactly its locked permissions, and
 * this process as the client (one keep-alive HTTP client per path). Measures:
 *
 * 1. added latency of non-streamed requests, daemon vs direct (p50/p99);
 * 2. time-to-first-byte overhead of streamed requests (p50/p99);
 * 3. sustained throughput with 100 concurrent streams (daemon and direct);
 * 4. the daemon's RSS after a warm-up and after 10 000 more requests (growth must stay < 10%);
 * 5. the same added latency and first-byte overhead for Claude Code's request shape: its own
 *    billing and identity system blocks plus a long system prompt, 20 tools, a 60-turn context
 *    with a mid-conversation `role: "system"` turn (about 150 KB), `?beta=true`, its betas
 *    and headers.
 *
 * Prints a table and writes JSON to bench/results/serve-<date>.json. Bounded in count and
 * time; every process it starts is stopped before it exits.
 *
 * Flags: --quick (smaller counts, for a smoke run).
 *
 * @module
 */

import { startFakeAnthropic } from "../tests/fakes/anthropic.ts";
import { loadMsgConfig } from "../src/msg/config.ts";
import { prepareMessagesRequest } from "../src/msg/prepare.ts";
import { parseListen } from "../src/serve/flags.ts";
import { SERVE_V8_FLAGS } from "../src/programs.ts";
import { permissionFlags, planPermissions } from "../src/serve/permissions.ts";
import { benchArgs } from "./lib/args.ts";

const ROOT = new URL("../", import.meta.url).pathname;

if (Deno.args[0] === "--upstream") {
  // Child mode: run the fake upstream, write credentials, print the URL, run until stdin closes.
  const credsPath = Deno.args[1];
  const fake = startFakeAnthropic({ replyText: "Benchmark reply: " + "lorem ipsum ".repeat(8) });
  const t = fake.issueTokens(24 * 3600);
  await Deno.writeTextFile(
    credsPath,
    JSON.stringify({
      accessToken: t.accessToken,
      refreshToken: t.refreshToken,
      expiresAt: Date.now() + 24 * 3600_000,
    }),
    { mode: 0o600 },
  );
  // Keep memory flat in the fake: the benchmark does not need the request log.
  setInterval(() => (fake.requests.length = 0), 1000);
  console.log(JSON.stringify({ url: fake.url, env: fake.env, accessToken: t.accessToken }));
  for await (const _ of Deno.stdin.readable) { /* wait for EOF */ }
  await fake.close();
  Deno.exit(0);
}

const quick = benchArgs("deno task bench:serve [--quick]", { quick: { type: "boolean" } }).quick;
const N_LAT = quick ? 300 : 3000;
const N_TTFB = quick ? 100 : 1000;
const N_STREAMS = quick ? 300 : 3000;
const CONCURRENCY = 100;
const N_RSS = quick ? 1000 : 10_000;
const WARMUP = quick ? 100 : 500;
const RSS_WARMUP = quick ? 500 : 3000;
const N_CC = quick ? 100 : 1000;

const BODY = JSON.stringify({
  model: "claude-sonnet-4-6",
  max_tokens: 64,
  messages: [{ role: "user", content: "benchmark" }],
});
const STREAM_BODY = JSON.stringify({ ...JSON.parse(BODY), stream: true });
type Prepared = { headers: Record<string, string>; body: string };
/** Requests for the direct path, filled once the fake's token is known. */
const DIRECT: { json?: Prepared; stream?: Prepared } = {};

function requestFor(url: string, stream: boolean): Prepared {
  const d = stream ? DIRECT.stream : DIRECT.json;
  if (d !== undefined && !url.startsWith(DAEMON_URL_PREFIX.value)) return d;
  return { headers: { "content-type": "application/json" }, body: stream ? STREAM_BODY : BODY };
}
const DAEMON_URL_PREFIX = { value: "\u0000" };

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function stats(samples: number[]): { p50: number; p99: number; mean: number } {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { p50: percentile(s, 50), p99: percentile(s, 99), mean };
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

async function lineFrom(stream: ReadableStream<Uint8Array>, re: RegExp): Promise<RegExpMatchArray> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const timer = setTimeout(() => reader.cancel(), 30_000);
  while (true) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`process ended before ${re}: ${buf}`);
    buf += value;
    const m = buf.match(re);
    if (m) {
      clearTimeout(timer);
      (async () => {
        while (!(await reader.read()).done) { /* discard */ }
      })().catch(() => {});
      return m;
    }
  }
}

function rssKiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

/** Claude Code's request shape (see the module doc), deterministic. */
function claudeCodeBody(stream: boolean): Record<string, unknown> {
  const filler = (n: number, seed: string) =>
    Array.from({ length: n }, (_, i) => `${seed} ${i}: lorem ipsum dolor sit amet.`).join(" ");
  const messages: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 60; i++) {
    const role = i === 30 ? "system" : i % 2 === 0 ? "user" : "assistant";
    messages.push({ role, content: [{ type: "text", text: filler(40, `turn ${i}`) }] });
  }
  messages.push({ role: "user", content: [{ type: "text", text: "benchmark" }] });
  return {
    model: "claude-opus-4-6",
    max_tokens: 32000,
    stream,
    system: [
      {
        type: "text",
        text: "x-anthropic-billing-header: cc_version=2.1.330.440; cc_entrypoint=cli;",
      },
      {
        type: "text",
        text: "You are a Claude agent, built on Anthropic's Claude Agent SDK.",
        cache_control: { type: "ephemeral" },
      },
      { type: "text", text: filler(500, "system"), cache_control: { type: "ephemeral" } },
    ],
    tools: Array.from({ length: 20 }, (_, i) => ({
      name: `Tool${i}`,
      description: filler(20, `tool ${i}`),
      input_schema: {
        type: "object",
        properties: { path: { type: "string", description: "a path" }, n: { type: "integer" } },
        required: ["path"],
      },
    })),
    messages,
    thinking: { type: "adaptive" },
    context_management: { edits: [] },
    metadata: { user_id: '{"device_id":"bench","session_id":"bench"}' },
  };
}
const CC_HEADERS: Record<string, string> = {
  "content-type": "application/json",
  "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
  "anthropic-version": "2023-06-01",
  "user-agent": "claude-cli/2.1.330 (external, cli)",
  "x-app": "cli",
  "x-stainless-lang": "js",
  "x-stainless-retry-count": "0",
};
const CC_PATH = "/v1/messages?beta=true";
/** Claude Code's requests to the daemon, and what the daemon sends upstream (direct path). */
const CC: { daemon: Prepared[]; direct: Prepared[] } = {
  daemon: [false, true].map((stream) => ({
    headers: CC_HEADERS,
    body: JSON.stringify(claudeCodeBody(stream)),
  })),
  direct: [],
};

async function oneJson(client: Deno.HttpClient, url: string): Promise<number> {
  return await oneJsonWith(client, url, "/v1/messages", requestFor(url, false));
}

async function oneJsonWith(
  client: Deno.HttpClient,
  url: string,
  path: string,
  r: Prepared,
): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: r.headers,
    body: r.body,
    client,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  return performance.now() - t0;
}

async function oneStream(
  client: Deno.HttpClient,
  url: string,
): Promise<{ ttfb: number; bytes: number }> {
  return await oneStreamWith(client, url, "/v1/messages", requestFor(url, true));
}

async function oneStreamWith(
  client: Deno.HttpClient,
  url: string,
  path: string,
  r: Prepared,
): Promise<{ ttfb: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: r.headers,
    body: r.body,
    client,
  });
  const reader = res.body!.getReader();
  const first = await reader.read();
  const ttfb = performance.now() - t0;
  let bytes = first.value?.byteLength ?? 0;
  while (true) {
    const r = await reader.read();
    if (r.done) break;
    bytes += r.value.byteLength;
  }
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  return { ttfb, bytes };
}

async function sequential(n: number, fn: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await fn());
  return out;
}

async function concurrent(
  total: number,
  conc: number,
  fn: () => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (next < total) {
        next++;
        await fn();
      }
    }),
  );
  return performance.now() - t0;
}

// --- start the fake upstream and the locked daemon ---------------------------------------
const dir = await Deno.makeTempDir({ prefix: "msgcli-bench-" });
const credsPath = `${dir}/credentials.json`;
const upstream = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", new URL(import.meta.url).pathname, "--upstream", credsPath],
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const up = JSON.parse((await lineFrom(upstream.stdout, /^\{.*\}$/m))[0]) as {
  url: string;
  env: Record<string, string>;
  accessToken: string;
};
// The direct path sends what the daemon would send upstream (same prepared body and headers).
const directReq = (stream: boolean) => {
  const p = prepareMessagesRequest(JSON.parse(stream ? STREAM_BODY : BODY), {
    accessToken: up.accessToken,
  });
  p.headers.set("accept-encoding", "identity");
  return { headers: Object.fromEntries(p.headers), body: JSON.stringify(p.body) };
};
DIRECT.json = directReq(false);
DIRECT.stream = directReq(true);
// What the daemon sends upstream for Claude Code: its body with nothing added (it carries
// its own identity and billing blocks), the OAuth headers plus its forwarded ones.
CC.direct = CC.daemon.map((d) => {
  const p = prepareMessagesRequest(JSON.parse(d.body), {
    accessToken: up.accessToken,
    betas: CC_HEADERS["anthropic-beta"].split(","),
  });
  for (const k of ["user-agent", "x-app", "x-stainless-lang", "x-stainless-retry-count"]) {
    p.headers.set(k, CC_HEADERS[k]);
  }
  p.headers.set("accept-encoding", "identity");
  return { headers: Object.fromEntries(p.headers), body: JSON.stringify(p.body) };
});
const env: Record<string, string> = {
  ...up.env,
  MSGCLI_CREDENTIALS_PATH: credsPath,
  HOME: Deno.env.get("HOME") ?? dir,
  DENO_V8_FLAGS: SERVE_V8_FLAGS, // as the launcher starts it
};
const listenPort = (() => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const p = (l.addr as Deno.NetAddr).port;
  l.close();
  return p;
})();
const listen = `127.0.0.1:${listenPort}`;
const plan = planPermissions(parseListen(listen), loadMsgConfig((n) => env[n]));
const daemon = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--no-prompt",
    "--unstable-no-legacy-abort",
    ...permissionFlags(plan),
    `${ROOT}src/bin/serve.ts`,
    "--listen",
    listen,
  ],
  env,
  clearEnv: true,
  stdin: "null",
  stdout: "null",
  stderr: "piped",
}).spawn();
const daemonUrl = (await lineFrom(daemon.stderr, /listening on (http:\/\/[^;]+);/))[1];
DAEMON_URL_PREFIX.value = daemonUrl;

const direct = Deno.createHttpClient({});
const viaDaemon = Deno.createHttpClient({});
const results: Record<string, unknown> = {};
try {
  console.error(`upstream ${up.url}, daemon ${daemonUrl} (pid ${daemon.pid}); warming up...`);
  await sequential(WARMUP, () => oneJson(direct, up.url));
  await sequential(WARMUP, () => oneJson(viaDaemon, daemonUrl));

  // 1. Non-streamed latency, interleaved so both paths see the same machine state.
  const dLat: number[] = [];
  const vLat: number[] = [];
  for (let i = 0; i < N_LAT; i++) {
    dLat.push(await oneJson(direct, up.url));
    vLat.push(await oneJson(viaDaemon, daemonUrl));
  }
  const dl = stats(dLat);
  const vl = stats(vLat);
  results.latency_ms = {
    requests: N_LAT,
    direct: { p50: round(dl.p50), p99: round(dl.p99) },
    daemon: { p50: round(vl.p50), p99: round(vl.p99) },
    added: { p50: round(vl.p50 - dl.p50), p99: round(vl.p99 - dl.p99) },
  };

  // 2. Time to first byte of streams.
  const dT: number[] = [];
  const vT: number[] = [];
  for (let i = 0; i < N_TTFB; i++) {
    dT.push((await oneStream(direct, up.url)).ttfb);
    vT.push((await oneStream(viaDaemon, daemonUrl)).ttfb);
  }
  const dt = stats(dT);
  const vt = stats(vT);
  results.first_byte_ms = {
    streams: N_TTFB,
    direct: { p50: round(dt.p50), p99: round(dt.p99) },
    daemon: { p50: round(vt.p50), p99: round(vt.p99) },
    added: { p50: round(vt.p50 - dt.p50), p99: round(vt.p99 - dt.p99) },
  };

  // 3. Throughput with 100 concurrent streams.
  let bytes = 0;
  const dMs = await concurrent(N_STREAMS, CONCURRENCY, async () => {
    await oneStream(direct, up.url);
  });
  const vMs = await concurrent(N_STREAMS, CONCURRENCY, async () => {
    const r = await oneStream(viaDaemon, daemonUrl);
    bytes += r.bytes;
  });
  results.throughput_100_streams = {
    streams: N_STREAMS,
    concurrency: CONCURRENCY,
    direct_streams_per_s: round(N_STREAMS / (dMs / 1000), 1),
    daemon_streams_per_s: round(N_STREAMS / (vMs / 1000), 1),
    daemon_mib_per_s: round(bytes / 1048576 / (vMs / 1000), 2),
  };

  // 5. Claude Code's request shape: added latency and first-byte overhead.
  const ccLat: number[][] = [[], []];
  const ccTtfb: number[][] = [[], []];
  for (let i = 0; i < WARMUP / 5; i++) {
    await oneJsonWith(viaDaemon, daemonUrl, CC_PATH, CC.daemon[0]);
    await oneJsonWith(direct, up.url, CC_PATH, CC.direct[0]);
  }
  for (let i = 0; i < N_CC; i++) {
    ccLat[0].push(await oneJsonWith(direct, up.url, CC_PATH, CC.direct[0]));
    ccLat[1].push(await oneJsonWith(viaDaemon, daemonUrl, CC_PATH, CC.daemon[0]));
    ccTtfb[0].push((await oneStreamWith(direct, up.url, CC_PATH, CC.direct[1])).ttfb);
    ccTtfb[1].push((await oneStreamWith(viaDaemon, daemonUrl, CC_PATH, CC.daemon[1])).ttfb);
  }
  const [cdl, cvl, cdt, cvt] = [...ccLat, ...ccTtfb].map(stats);
  results.claude_code_shape = {
    requests: N_CC,
    request_bytes: CC.daemon[0].body.length,
    latency_ms: {
      direct: { p50: round(cdl.p50), p99: round(cdl.p99) },
      daemon: { p50: round(cvl.p50), p99: round(cvl.p99) },
      added: { p50: round(cvl.p50 - cdl.p50), p99: round(cvl.p99 - cdl.p99) },
    },
    first_byte_ms: {
      direct: { p50: round(cdt.p50), p99: round(cdt.p99) },
      daemon: { p50: round(cvt.p50), p99: round(cvt.p99) },
      added: { p50: round(cvt.p50 - cdt.p50), p99: round(cvt.p99 - cdt.p99) },
    },
  };

  // 4. RSS stability over 10 000 requests (mixed JSON and streams, 10 concurrent).
  // Warm up with the same workload first, so the baseline is a steady state, not a cold heap.
  let w = 0;
  await concurrent(RSS_WARMUP, 10, async () => {
    if (w++ % 4 === 0) await oneStream(viaDaemon, daemonUrl);
    else await oneJson(viaDaemon, daemonUrl);
  });
  const rssStart = rssKiB(daemon.pid);
  const samples: Array<{ requests: number; rss_kib: number }> = [{
    requests: 0,
    rss_kib: rssStart,
  }];
  const step = N_RSS / 5;
  for (let done = 0; done < N_RSS; done += step) {
    let k = 0;
    await concurrent(step, 10, async () => {
      if (k++ % 4 === 0) await oneStream(viaDaemon, daemonUrl);
      else await oneJson(viaDaemon, daemonUrl);
    });
    samples.push({ requests: done + step, rss_kib: rssKiB(daemon.pid) });
  }
  const rssEnd = samples.at(-1)!.rss_kib;
  results.rss = {
    requests: N_RSS,
    warmup_requests: RSS_WARMUP,
    start_mib: round(rssStart / 1024, 1),
    end_mib: round(rssEnd / 1024, 1),
    growth_pct: round(((rssEnd - rssStart) / rssStart) * 100, 1),
    samples,
  };
} finally {
  direct.close();
  viaDaemon.close();
  daemon.kill("SIGTERM");
  const ds = await daemon.status;
  await upstream.stdin.close();
  await upstream.status;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  results.daemon_exit_code = ds.code;
}

const lat = results.latency_ms as {
  added: { p50: number; p99: number };
  direct: { p50: number };
  daemon: { p50: number };
};
const fb = results.first_byte_ms as { added: { p50: number; p99: number } };
const tp = results.throughput_100_streams as {
  direct_streams_per_s: number;
  daemon_streams_per_s: number;
  daemon_mib_per_s: number;
};
const rss = results.rss as { start_mib: number; end_mib: number; growth_pct: number };
type Pair = { added: { p50: number; p99: number } };
const cc = results.claude_code_shape as {
  request_bytes: number;
  latency_ms: Pair;
  first_byte_ms: Pair;
};
const kb = Math.round(cc.request_bytes / 1024);
const rows: Array<[string, string, string, string]> = [
  [
    "added latency p50 (non-streamed)",
    `${lat.added.p50} ms`,
    "< 1 ms",
    lat.added.p50 < 1 ? "ok" : "MISS",
  ],
  [
    "added latency p99 (non-streamed)",
    `${lat.added.p99} ms`,
    "< 5 ms",
    lat.added.p99 < 5 ? "ok" : "MISS",
  ],
  [
    "first-byte overhead p50 (stream)",
    `${fb.added.p50} ms`,
    "< 2 ms",
    fb.added.p50 < 2 ? "ok" : "MISS",
  ],
  ["first-byte overhead p99 (stream)", `${fb.added.p99} ms`, "", ""],
  ["100 concurrent streams, direct", `${tp.direct_streams_per_s} streams/s`, "", ""],
  [
    "100 concurrent streams, daemon",
    `${tp.daemon_streams_per_s} streams/s (${tp.daemon_mib_per_s} MiB/s)`,
    "",
    "",
  ],
  [`Claude Code shape (${kb} KB) added latency p50`, `${cc.latency_ms.added.p50} ms`, "", ""],
  [`Claude Code shape (${kb} KB) added latency p99`, `${cc.latency_ms.added.p99} ms`, "", ""],
  [
    `Claude Code shape first-byte overhead p50`,
    `${cc.first_byte_ms.added.p50} ms`,
    "",
    "",
  ],
  [
    `Claude Code shape first-byte overhead p99`,
    `${cc.first_byte_ms.added.p99} ms`,
    "",
    "",
  ],
  [
    `RSS after ${N_RSS} requests`,
    `${rss.start_mib} -> ${rss.end_mib} MiB (${rss.growth_pct}%)`,
    "< 10%",
    Math.abs(rss.growth_pct) < 10 ? "ok" : "MISS",
  ],
];
const w = [0, 1, 2, 3].map((i) =>
  Math.max(...rows.map((r) => r[i].length), ["metric", "value", "target", ""][i].length)
);
const line = (r: string[]) => r.map((c, i) => c.padEnd(w[i])).join("  ");
console.log(line(["metric", "value", "target", ""]));
console.log(line(w.map((n) => "-".repeat(n))));
for (const r of rows) console.log(line(r));

const date = new Date().toISOString().slice(0, 10);
const out = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  os: Deno.build.os,
  arch: Deno.build.arch,
  quick,
  ...results,
};
if (!quick) {
  await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
  const file = `${ROOT}bench/results/serve-${date}.json`;
  await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
  console.log(`\nwritten ${file}`);
} else {
  console.log(JSON.stringify(out));
}
