/** POST /api/capture, the capture hook's settings entries, and `memcli capture --hook` with the service down. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Hono } from "hono";
import { CaptureQueue, captureRoute } from "../../src/capture/route.ts";
import { MemoryCaptureSink } from "../../src/capture/pipeline.ts";
import { addMnemeHooks, removeMnemeHooks } from "../../src/memcli/claude_settings.ts";
import { tempDir } from "../helpers.ts";

Deno.test("POST /api/capture validates the hook input, enqueues it and answers 202", async () => {
  const dir = await tempDir("capture-route-");
  try {
    const path = join(dir.path, "s.jsonl");
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        type: "user",
        uuid: "e1",
        sessionId: "s1",
        timestamp: "2026-11-28T10:00:00Z",
        message: { role: "user", content: "from now on always use `pnpm`, not npm" },
      }) + "\n",
    );
    const sink = new MemoryCaptureSink();
    const logs: string[] = [];
    const queue = new CaptureQueue(
      sink,
      { project: () => Promise.resolve("web") },
      (l) => logs.push(l),
    );
    const app = new Hono().route("/api/capture", captureRoute(queue));
    const post = (body: unknown) =>
      app.request("/api/capture", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const good = {
      session_id: "s1",
      transcript_path: path,
      cwd: dir.path,
      hook_event_name: "Stop",
    };
    const bad: [unknown, string][] = [
      ["nope", "body"],
      [{ ...good, session_id: "../x" }, "session_id"],
      [{ ...good, transcript_path: "rel.jsonl" }, "transcript_path"],
      [{ ...good, cwd: 3 }, "cwd"],
      [{ ...good, hook_event_name: "UserPromptSubmit" }, "hook_event_name"],
    ];
    for (const [b, field] of bad) {
      const r = await post(b);
      assert.equal(r.status, 400);
      assert.equal((await r.json()).field, field);
    }
    assert.equal(sink.proposals.length, 0, "nothing queued for bad input");
    const r = await post(good);
    assert.equal(r.status, 202);
    await queue.idle();
    assert.equal(sink.proposals.length, 1);
    assert.match(logs[0], /1 proposed/);
    assert.ok(!logs[0].includes("pnpm"), "the log holds counts, never a memory's text");
    assert.equal((await post(good)).status, 202);
    await queue.idle();
    assert.equal(sink.proposals.length, 1, "the same transcript again adds nothing");
    assert.equal((await app.request("/api/capture")).status, 405);
  } finally {
    await dir.cleanup();
  }
});

Deno.test("the capture hook goes under Stop, PreCompact and SessionEnd and comes off alone", () => {
  const cmd = "/bin/memcli capture --hook";
  const added = addMnemeHooks({}, {
    SessionStart: "/bin/memcli bootstrap --hook",
    Stop: cmd,
    PreCompact: cmd,
    SessionEnd: cmd,
  });
  const hooks = added.settings.hooks as Record<string, unknown[]>;
  assert.deepEqual(Object.keys(hooks), ["SessionStart", "Stop", "PreCompact", "SessionEnd"]);
  assert.equal(addMnemeHooks(added.settings, { Stop: cmd }).changes.length, 0, "idempotent");
  const off = removeMnemeHooks(added.settings, ["Stop", "PreCompact", "SessionEnd"]);
  assert.deepEqual(Object.keys(off.settings.hooks as object), ["SessionStart"]);
  assert.equal(off.changes.length, 3);
  assert.equal(Object.keys(removeMnemeHooks(added.settings).settings).length, 0);
});

async function runHook(url: string, dataDir: string, extra: string[] = []) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--lock=tests/deno.lock",
      "src/bin/memcli.ts",
      "capture",
      "--hook",
      ...extra,
    ],
    env: { MEMORY_API_URL: url, DATA_DIR: dataDir },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(JSON.stringify({
    session_id: "s1",
    transcript_path: "/tmp/x.jsonl",
    cwd: "/tmp",
    hook_event_name: "Stop",
  })));
  await w.close();
  const out = await child.output();
  return {
    code: out.code,
    err: new TextDecoder().decode(out.stderr).trim().split("\n"),
    out: new TextDecoder().decode(out.stdout),
  };
}

Deno.test("memcli capture --hook: a service that never answers: exit 0 at the deadline, one line", async () => {
  const dir = await tempDir("capture-hook-");
  const hang = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async () => {
      await hang.promise;
      return new Response("late");
    },
  );
  try {
    const r = await runHook(`http://127.0.0.1:${server.addr.port}`, dir.path, [
      "--deadline",
      "800",
    ]);
    assert.equal(r.code, 0);
    assert.equal(r.err.length, 1, r.err.join("\n"));
    assert.match(r.err[0], /did not answer within 800 ms; this session is captured later$/);
  } finally {
    hang.resolve();
    await server.shutdown();
    await dir.cleanup();
  }
});

Deno.test("memcli capture --hook exits 0 with one line on stderr when the service is down", async () => {
  const dir = await tempDir("capture-hook-");
  try {
    const t0 = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--lock=tests/deno.lock", "src/bin/memcli.ts", "capture", "--hook"],
      env: { MEMORY_API_URL: "http://127.0.0.1:9", DATA_DIR: dir.path },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(JSON.stringify({
      session_id: "s1",
      transcript_path: "/tmp/x.jsonl",
      cwd: "/tmp",
      hook_event_name: "Stop",
    })));
    await w.close();
    const out = await child.output();
    assert.equal(out.code, 0);
    const err = new TextDecoder().decode(out.stderr).trim().split("\n");
    assert.equal(err.length, 1, err.join("\n"));
    assert.match(err[0], /^memcli capture: the memory service is not reachable .*captured later$/);
    assert.equal(new TextDecoder().decode(out.stdout), "");
    assert.ok(performance.now() - t0 < 10_000);
  } finally {
    await dir.cleanup();
  }
});

Deno.test("memcli capture --hook: a --deadline out of bounds is a usage error, reported by the dispatcher", async () => {
  const dir = await tempDir("capture-hook-usage-");
  try {
    for (const extra of [["--deadline", "5"], ["--deadline", "999999"], ["--nope"]]) {
      const r = await runHook("http://127.0.0.1:9", dir.path, extra);
      assert.equal(r.code, 1, extra.join(" "));
      assert.match(r.err[0], /^memcli capture: /, r.err.join("\n"));
      assert.equal(r.err.at(-1), "Run 'memcli capture --help' for usage.", r.err.join("\n"));
    }
    // The help goes through the dispatcher too.
    const h = await runHook("http://127.0.0.1:9", dir.path, ["--help"]);
    assert.equal(h.code, 0);
    assert.match(h.out, /^Usage: memcli capture --hook/);
  } finally {
    await dir.cleanup();
  }
});
