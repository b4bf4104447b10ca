/**
 * The chunk flood: one request whose body is sent as millions of one-byte chunks, over a raw
 * TCP socket as any client could, to a daemon running in its own process, with the daemon's
 * resident memory sampled from /proc while it reads. Used by chunk_flood_test.ts and by
 * tasks/bench_flood.ts (which runs it against another checkout too).
 * @module
 */

/** VmRSS of a process (bytes), or NaN when it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The pids of `ppid`'s children (the locked daemon under a launcher). */
export function childPids(ppid: number): number[] {
  const out: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === ppid) out.push(Number(e.name));
    } catch {
      // gone
    }
  }
  return out;
}

/** What one flood did. */
export interface FloodResult {
  /** The daemon's VmRSS before the request (bytes). */
  before: number;
  /** The highest VmRSS sampled while the request was sent and answered (bytes). */
  peak: number;
  /** VmRSS once answered (bytes). */
  after: number;
  /** The status line of the answer ("" when the connection closed unanswered). */
  status: string;
  /** Bytes sent on the wire. */
  sent: number;
  ms: number;
  /** When the answer's status line arrived (ms from the start). */
  answeredMs: number;
}

/**
 * Sends `head` (the request line and headers, ending in CRLF CRLF, with `Transfer-Encoding:
 * chunked`) then `body` one byte per chunk, in writes of about 1 MB, then the last chunk;
 * samples `pid`'s VmRSS every 50 ms until the answer has arrived.
 */
export async function flood(
  port: number,
  pid: number,
  head: string,
  body: Uint8Array,
): Promise<FloodResult> {
  const enc = new TextEncoder();
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => {
    const r = rssOf(pid);
    if (r > peak) peak = r;
  }, 50);
  const t0 = performance.now();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  let sent = 0;
  const writeAll = async (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
    sent += bytes.length;
  };
  let answered = false;
  let sentAll = false;
  let answeredMs = NaN;
  const reading = (async () => {
    const buf = new Uint8Array(16384);
    let text = "";
    try {
      while (!/\r\n\r\n/.test(text)) {
        const n = await conn.read(buf);
        if (n === null) break;
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
    } catch { /* reset */ }
    answered = true;
    answeredMs = performance.now() - t0;
    // Answered before the body was all sent (a 408): stop sending, the server reads no more.
    if (!sentAll) {
      try {
        conn.close();
      } catch { /* closed */ }
    }
    return text.split("\r\n")[0];
  })();
  try {
    await writeAll(enc.encode(head));
    // "1\r\nX\r\n" per byte: 6 bytes on the wire each.
    const perWrite = 174_762;
    const batch = new Uint8Array(perWrite * 6);
    for (let i = 0; i < perWrite; i++) batch.set([0x31, 0x0d, 0x0a, 0, 0x0d, 0x0a], i * 6);
    // Until the server answers (a 408 at its body deadline ends the request).
    for (let at = 0; at < body.length && !answered; at += perWrite) {
      const n = Math.min(perWrite, body.length - at);
      for (let i = 0; i < n; i++) batch[i * 6 + 3] = body[at + i];
      await writeAll(batch.subarray(0, n * 6));
    }
    if (!answered) await writeAll(enc.encode("0\r\n\r\n"));
    sentAll = true;
  } catch { /* the server closed the connection; the status says what it answered */ }
  const status = await reading;
  clearInterval(sampler);
  const after = rssOf(pid);
  peak = Math.max(peak, after);
  try {
    conn.close();
  } catch { /* closed */ }
  return { before, peak, after, status, sent, ms: performance.now() - t0, answeredMs };
}

/** A JSON value padded with spaces to exactly `size` bytes. */
export function paddedJson(value: unknown, size: number): Uint8Array {
  const text = JSON.stringify(value);
  const out = new Uint8Array(size).fill(0x20);
  out.set(new TextEncoder().encode(text));
  return out;
}

/** A `msgcli serve` daemon started from a checkout's entrypoint, in its own process. */
export interface ServeProcess {
  port: number;
  /** The locked daemon's pid (under the launcher, src/common/launcher.ts). */
  pid: number;
  /** Everything it logged so far. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts `root`'s `src/bin/serve.ts --listen 127.0.0.1:0` (`deno run -A`, with `env` on top
 * of this process's) and resolves once it logs where it listens (30 s at most).
 */
export async function startServeProcess(
  root: string,
  env: Record<string, string>,
): Promise<ServeProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}src/bin/serve.ts`, "--listen", "127.0.0.1:0"],
    env: { ...Deno.env.toObject(), NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const draining = (async () => {
    while (true) {
      const r = await reader.read().catch(() => ({ done: true, value: "" }));
      if (r.done) return;
      log += r.value;
    }
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
    await draining;
  };
  const listening = /listening on http:\/\/[^:]+:(\d+)/;
  for (const deadline = Date.now() + 30_000; !listening.test(log);) {
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`serve did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port: Number(listening.exec(log)![1]),
    pid: childPids(child.pid)[0] ?? child.pid,
    log: () => log,
    stop,
  };
}
