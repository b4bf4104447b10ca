/**
 * `deno run -A --lock=tests/deno.lock tasks/profile_http.ts --dir DIR [--searches 300]
 *   [--creates 0]`
 *
 * Where a search's time goes between the Admin API's socket and the service, on a database
 * `tasks/profile_search.ts --dir DIR` made (bench:memory's memories; it must exist). The admin
 * server is started as bench:memory starts it, and the same search is asked five ways in turn,
 * one after the other, so that the machine's load weighs on each alike:
 * `direct` (the service called), `app` (the Hono app's `fetch` called with a Request: routing,
 * middleware, body and JSON, no socket), `http_same` (a fetch over loopback from this process,
 * as bench:memory's client: client and server share one event loop), `http_worker` (the same
 * fetch from a worker thread: its own event loop and heap, as another process) and `http_proc`
 * (from a child process, one request at a time). Prints one JSON line of percentiles and the
 * response's size. Development only (not a test, not shipped).
 */
import { parseArgs } from "node:util";
import { loadMemoryConfig } from "../src/config.ts";
import { startAdminServer } from "../src/admin/server.ts";
import { createAdminApp } from "../src/admin/app.ts";
import { MemoryClient } from "../src/memory/client.ts";
import { item, OBJECTS, pick, PROJECTS, reseed, SUBJECTS } from "./bench_items.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    dir: { type: "string" },
    size: { type: "string", default: "20000" },
    searches: { type: "string", default: "300" },
    child: { type: "string" },
    sequential: { type: "string", default: "0" },
    "direct-first": { type: "boolean", default: false },
  },
  strict: true,
});

// The child process's client: a search per line of stdin (JSON), its latency per line out.
if (values.child) {
  const client = new MemoryClient({ baseUrl: values.child });
  const enc = new TextEncoder();
  let buf = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const t = performance.now();
      await client.search(JSON.parse(line));
      await Deno.stdout.write(enc.encode(`${performance.now() - t}\n`));
    }
  }
  Deno.exit(0);
}

if (!values.dir) throw new Error("--dir DIR: a database made by tasks/profile_search.ts");
const env: Record<string, string> = {
  EMBEDDING_PROVIDER: "builtin",
  DATA_DIR: values.dir,
  ADMIN_PORT: "0",
};
const cfg = loadMemoryConfig((n) => env[n] ?? Deno.env.get(n));
const server = await startAdminServer(cfg, { log: () => {}, maxConnections: 1 });
const service = server.service;
const app = createAdminApp({ service, loopbackOnly: true, log: () => {}, ui: false });
const client = new MemoryClient({ baseUrl: server.url });

// The worker's client: a search per message, its latency back.
const WORKER = `
let client;
self.onmessage = async (e) => {
  const t = performance.now();
  const res = await fetch(e.data.base + "/api/memories/search", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(e.data.input),
  });
  await res.json();
  self.postMessage(performance.now() - t);
};`;
const src = URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" }));
const worker = new Worker(src, { type: "module" });
let onWorker: (ms: number) => void = () => {};
worker.onmessage = (e) => onWorker(e.data);
const viaWorker = (input: unknown) =>
  new Promise<number>((resolve) => {
    onWorker = resolve;
    worker.postMessage({ base: server.url, input });
  });

const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    "--lock=tests/deno.lock",
    new URL(import.meta.url).pathname,
    "--child",
    server.url,
  ],
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const childIn = child.stdin.getWriter();
const childOut = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
let childBuf = "";
async function viaChild(input: unknown): Promise<number> {
  await childIn.write(new TextEncoder().encode(JSON.stringify(input) + "\n"));
  while (!childBuf.includes("\n")) {
    const { value, done } = await childOut.read();
    if (done) throw new Error("the child client ended");
    childBuf += value;
  }
  const nl = childBuf.indexOf("\n");
  const ms = Number(childBuf.slice(0, nl));
  childBuf = childBuf.slice(nl + 1);
  return ms;
}

reseed();
for (let i = 0; i < Number(values.size); i++) item(i);
const times: Record<string, number[]> = {
  direct: [],
  app: [],
  http_same: [],
  http_worker: [],
  http_proc: [],
};
// `--sequential N`: first N searches over HTTP from this process, then N called directly, in
// that order (as bench:memory measures them; the other with `--direct-first`), before the ways
// in turn.
const seq = Number(values.sequential);
const order = ["seq_http_same", "seq_direct"];
if (values["direct-first"]) order.reverse();
for (const name of order) {
  times[name] = [];
  for (let i = 0; i < seq; i++) {
    const q = `${pick(SUBJECTS)} ${pick(OBJECTS)}`;
    const input = i % 2 ? { query: q, project: pick(PROJECTS), limit: 5 } : { query: q };
    const t = performance.now();
    if (name === "seq_direct") await service.search(input);
    else await client.search(input);
    times[name].push(performance.now() - t);
  }
}
let bytes = 0;
const n = Number(values.searches);
for (let i = -20; i < n; i++) {
  const q = `${pick(SUBJECTS)} ${pick(OBJECTS)}`;
  const input = i % 2 ? { query: q, project: pick(PROJECTS), limit: 5 } : { query: q };
  const ways: [string, () => Promise<number>][] = [
    ["direct", async () => {
      const t = performance.now();
      await service.search(input);
      return performance.now() - t;
    }],
    ["app", async () => {
      const t = performance.now();
      const res = await app.fetch(
        new Request(`${server.url}/api/memories/search`, {
          method: "POST",
          headers: { "content-type": "application/json", host: new URL(server.url).host },
          body: JSON.stringify(input),
        }),
        { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 } },
      );
      const text = await res.text();
      const ms = performance.now() - t;
      bytes = text.length;
      return ms;
    }],
    ["http_same", async () => {
      const t = performance.now();
      await client.search(input);
      return performance.now() - t;
    }],
    ["http_worker", () => viaWorker(input)],
    ["http_proc", () => viaChild(input)],
  ];
  // A different order each time: none always follows the same one.
  const k = ((i % ways.length) + ways.length) % ways.length;
  for (const [name, run] of [...ways.slice(k), ...ways.slice(0, k)]) {
    const ms = await run();
    if (i >= 0) times[name].push(ms);
  }
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(2);
};
const out: Record<string, unknown> = {
  searches: n,
  load: Deno.loadavg().map((x) => +x.toFixed(2)),
  response_bytes: bytes,
};
for (const [k, v] of Object.entries(times)) {
  if (!v.length) continue;
  out[k] = { p50: pct(v, 50), p95: pct(v, 95), p99: pct(v, 99) };
  // The sequential runs by blocks of 100: how the first searches differ from the later ones.
  if (k.startsWith("seq_") && v.length >= 200) {
    (out[k] as Record<string, unknown>).p50_p95_by_100 = Array.from(
      { length: Math.floor(v.length / 100) },
      (
        _,
        b,
      ) => [pct(v.slice(b * 100, b * 100 + 100), 50), pct(v.slice(b * 100, b * 100 + 100), 95)],
    );
  }
}
console.log(JSON.stringify(out));
await childIn.close();
await child.status;
worker.terminate();
URL.revokeObjectURL(src);
await server.close();
