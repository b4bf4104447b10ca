/**
 * `memcli bootstrap --hook` and `memcli recall --hook` as real processes (issue 16): the
 * payload's cwd picks the project, recall injects relevant memories with their ids and
 * nothing for an unrelated prompt, and the hooks fail open: daemon down, a daemon that
 * accepts connections and never answers, stdin that never closes, a malformed payload: exit
 * 0 within the deadline, with a one-line note.
 */
import assert from "node:assert/strict";
import { MemoryClient } from "../../src/memory/client.ts";
import { formatRecall } from "../../src/memcli/commands/recall.ts";
import type { SearchResult } from "../../src/memory/types.ts";
import { parseHookPayload, runHook, serviceStarting } from "../../src/memcli/hook.ts";
import { MemoryError } from "../../src/domain/errors.ts";
import { exists } from "../../src/common/fs.ts";
import type { Memory } from "../../src/memory/types.ts";
import { freePort, olderService, ROOT, startAdminProcess, tempDir } from "../helpers.ts";
import {
  baseEnv,
  captureIo,
  killDaemon,
  memcli,
  memcliPermissions,
  memcliProcess,
} from "./_util.ts";

/** A server that accepts connections and never answers (closed by `close`). */
function silentServer(): { url: string; connections(): number; close(): void } {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  (async () => {
    for await (const c of l) held.push(c);
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}`,
    connections: () => held.length,
    close() {
      l.close();
      for (const c of held) c.close();
    },
  };
}

/** Run memcli with stdin left open (never closed) and measure the wall time. */
async function runTimed(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  stdin: string | null,
): Promise<{ code: number; out: string; err: string; ms: number }> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...memcliPermissions(baseEnv(env), cwd), `${ROOT}src/bin/memcli.ts`, ...args],
    env: baseEnv(env),
    clearEnv: true,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  if (stdin !== null) {
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const res = await child.output();
  const ms = performance.now() - t0;
  if (stdin === null) await w.close().catch(() => {});
  const d = new TextDecoder();
  return { code: res.code, out: d.decode(res.stdout), err: d.decode(res.stderr), ms };
}

Deno.test("hooks fail open: daemon down, daemon that never answers, stdin never closed", async () => {
  const dir = await tempDir();
  const silent = silentServer();
  try {
    const cwd = dir.path;
    const payload = JSON.stringify({ cwd, session_id: "s1", source: "startup", prompt: "deploy" });
    // Down: a port where nothing listens.
    const down = { MEMORY_API_URL: `http://127.0.0.1:${freePort()}`, DATA_DIR: `${cwd}/d` };
    const b = await runTimed(["bootstrap", "--hook"], down, cwd, payload);
    assert.equal(b.code, 0, b.err);
    assert.match(
      b.out,
      /^Mneme memory: no memory service at http:\/\/127\.0\.0\.1:\d+ \(start it with 'memcli start'\); no bootstrap this session\.\n$/,
    );
    const r = await runTimed(["recall", "--hook"], down, cwd, payload);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "", "recall injects nothing when the service is down");
    assert.match(r.err, /memcli recall: the memory service is not reachable/);

    // Slow: connections accepted, no answer ever. The deadline ends the run.
    const slow = { MEMORY_API_URL: silent.url, DATA_DIR: `${cwd}/d` };
    for (
      const [args, env] of [
        [["bootstrap", "--hook", "--deadline", "700"], slow],
        [["bootstrap", "--hook"], { ...slow, MEMCLI_HOOK_DEADLINE_MS: "700" }],
        [["recall", "--hook", "--deadline", "700"], slow],
      ] as const
    ) {
      const before = silent.connections();
      const s = await runTimed([...args], env, cwd, payload);
      assert.equal(s.code, 0, s.err);
      assert.ok(silent.connections() > before, "the hook did ask the service");
      // Well before Claude Code's own 10 s limit and the client's timeouts (5 s and 10 s).
      assert.ok(s.ms < 3000, `${args.join(" ")} took ${s.ms} ms`);
      if (args[0] === "bootstrap") {
        assert.equal(
          s.out,
          "Mneme memory: the memory service did not answer within 700 ms, so no bootstrap " +
            "this session (check it with 'memcli status').\n",
        );
      } else {
        assert.equal(s.out, "");
        assert.match(s.err, /did not answer within 700 ms/);
      }
    }

    // stdin never closed (a misbehaving agent): the deadline still ends the run.
    const open = await runTimed(["bootstrap", "--hook", "--deadline", "500"], down, cwd, null);
    assert.equal(open.code, 0);
    assert.match(open.out, /did not answer within 500 ms/);
    assert.ok(open.ms < 3000, `took ${open.ms} ms`);

    // A bad deadline variable is a note, not a failure.
    const badVar = await runTimed(
      ["bootstrap", "--hook"],
      { ...down, MEMCLI_HOOK_DEADLINE_MS: "soon" },
      cwd,
      payload,
    );
    assert.equal(badVar.code, 0);
    assert.match(badVar.err, /MEMCLI_HOOK_DEADLINE_MS="soon" must be an integer .*using 1500/);
  } finally {
    silent.close();
    await dir.cleanup();
  }
});

Deno.test("recall --hook: a service that answers 503 (its database down) is said to have answered", async () => {
  const dir = await tempDir();
  const said =
    "database postgres://127.0.0.1:5432/mneme is unavailable (ECONNREFUSED); retry shortly";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ error: said }, { status: 503, headers: { "retry-after": "5" } }),
  );
  try {
    const cwd = dir.path;
    const env = {
      MEMORY_API_URL: `http://127.0.0.1:${server.addr.port}`,
      DATA_DIR: `${cwd}/d`,
    };
    const payload = JSON.stringify({ cwd, session_id: "s1", prompt: "how do we deploy the app" });
    const r = await memcli(["recall", "--hook"], { env, cwd, stdin: payload });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "");
    assert.equal(
      r.err,
      `memcli recall: the memory service answered 503: ${said}; nothing recalled\n`,
    );
  } finally {
    await server.shutdown();
    await dir.cleanup();
  }
});

Deno.test("hook payload parsing: empty, malformed, wrong types", () => {
  assert.deepEqual(parseHookPayload(""), { payload: {} });
  assert.equal(parseHookPayload("{nope").problem, "the hook input on stdin is not JSON; ignored");
  assert.match(parseHookPayload("[1]").problem!, /not a JSON object/);
  const p = parseHookPayload(JSON.stringify({ cwd: "relative/dir", prompt: 7, source: "resume" }));
  assert.deepEqual(p.payload, { source: "resume" });
  assert.match(p.problem!, /prompt, cwd is not usable/);
  assert.deepEqual(
    parseHookPayload(
      JSON.stringify({ cwd: "/x", session_id: "s", hook_event_name: "SessionStart" }),
    )
      .payload,
    { cwd: "/x", session_id: "s", hook_event_name: "SessionStart" },
  );
});

function mem(over: Partial<Memory>): Memory {
  return {
    id: crypto.randomUUID(),
    content: "c",
    scope: "global",
    project: null,
    type: "fact",
    tags: [],
    weight: 1,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    expires_at: null,
    superseded_by: null,
    ...over,
  } as Memory;
}

Deno.test("recall block: limit, character budget, bootstrap memories, low confidence and low scores left out", () => {
  const results = [
    { memory: mem({ content: "first", type: "rule" }), score: 0.9, confidence: 0.93 },
    { memory: mem({ content: "boot", type: "bootstrap" }), score: 0.8, confidence: 0.9 },
    {
      memory: mem({ content: "x".repeat(300), scope: "project", project: "p" }),
      score: 0.7,
      confidence: 0.7,
    },
    { memory: mem({ content: "third" }), score: 0.6, confidence: 0.61 },
    { memory: mem({ content: "low" }), score: 0.05, confidence: 0.9 },
    { memory: mem({ content: "unsure" }), score: 0.6, confidence: 0.59 },
    { memory: mem({ content: "old service" }), score: 0.6 } as SearchResult,
  ];
  const f = { project: "p", limit: 5, maxChars: 4000, minScore: 0.1, minConfidence: 0.6 };
  const all = formatRecall(results, f);
  assert.match(
    all,
    /^## Relevant memories \(Mneme, project p\)\n\n- \[rule, global, confidence 0\.93, id [0-9a-f-]{36}\] first\n/,
  );
  assert.doesNotMatch(all, /boot|low|unsure|old service/);
  assert.match(all, /\[fact, project p, confidence 0\.70, id /);
  assert.match(all, /third/);
  assert.equal(formatRecall(results, { ...f, limit: 1 }).match(/^- /gm)?.length, 1);
  // A lower floor lets the unsure one in; the score floor still keeps "low" out.
  const loose = formatRecall(results, { ...f, minConfidence: 0.5 });
  assert.match(loose, /unsure/);
  assert.doesNotMatch(loose, /low/);
  // Budget: the long one does not fit after the first, so it and what follows are left out.
  const small = formatRecall(results, { ...f, maxChars: 400 });
  assert.ok(small.length <= 400, `${small.length}`);
  assert.equal(small.match(/^- /gm)?.length, 1);
  // A first memory longer than the budget is shortened to fit.
  const cut = formatRecall([results[2]], { ...f, maxChars: 300 });
  assert.ok(cut.length <= 300 && cut.includes("…"), cut);
  assert.equal(formatRecall([results[4]], f), "", "nothing relevant: nothing at all");
  assert.equal(formatRecall([results[5]], f), "", "below the confidence floor: nothing");
});

Deno.test("bootstrap --hook and recall --hook against a real daemon", async () => {
  const admin = await startAdminProcess();
  const dir = await tempDir();
  try {
    const client = new MemoryClient({ baseUrl: admin.url });
    const repo = `${dir.path}/billing-svc`;
    await Deno.mkdir(`${repo}/src`, { recursive: true });
    const git = await new Deno.Command("git", { args: ["init", "-q", repo] }).output();
    assert.ok(git.success);
    await client.create({
      content: "Always run deno task ok before committing",
      type: "bootstrap",
      tags: ["rule"],
    });
    await client.create({
      content: "The billing service stores invoice PDFs in the S3 bucket acme-invoices-prod",
      scope: "project",
      project: "billing-svc",
      type: "fact",
    });
    const fact = (await client.list({ project: "billing-svc", scope: "project" }))[0];
    const env = { MEMORY_API_URL: admin.url, DATA_DIR: `${dir.path}/d` };
    const payload = (o: Record<string, string>) =>
      JSON.stringify({ session_id: "s", cwd: `${repo}/src`, ...o });

    // The payload's cwd names the project, not the process's working directory.
    const b = await memcliProcess(["bootstrap", "--hook"], {
      env,
      cwd: dir.path,
      stdin: payload({ hook_event_name: "SessionStart", source: "startup" }),
    });
    assert.equal(b.code, 0, b.err);
    assert.match(b.out, /^## Rules\n\n- Always run deno task ok before committing$/m);
    assert.match(b.out, /^- Project: billing-svc \(source: git\)$/m);
    assert.equal(b.err, "");

    // A malformed payload: a note, and the bootstrap for the working directory.
    const bad = await memcliProcess(["bootstrap", "--hook"], {
      env,
      cwd: repo,
      stdin: "{not json",
    });
    assert.equal(bad.code, 0);
    assert.match(bad.err, /not JSON; ignored/);
    assert.match(bad.out, /^- Project: billing-svc \(source: git\)$/m);

    // Recall: a relevant prompt gets the fact, with its id; bootstrap memories are not repeated.
    const r = await memcliProcess(["recall", "--hook"], {
      env,
      cwd: dir.path,
      stdin: payload({ prompt: "Where are the invoice PDFs of the billing service stored?" }),
    });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^## Relevant memories \(Mneme, project billing-svc\)/);
    assert.ok(r.out.includes(`id ${fact.id}] The billing service stores invoice PDFs`), r.out);
    assert.doesNotMatch(r.out, /deno task ok/);
    // An unrelated prompt: nothing at all (the service still returns its top matches, all
    // scoring near 0).
    const none = await memcliProcess(["recall", "--hook"], {
      env,
      cwd: dir.path,
      stdin: payload({ prompt: "Write a haiku about autumn leaves" }),
    });
    assert.equal(none.code, 0, none.err);
    assert.equal(none.out, "");
    // A prompt about something else that shares a word with the fact ("billing"): the search
    // returns the fact (score about 0.3, which 0.6.1's hook injected), but its confidence is
    // below the floor, so nothing is injected.
    const loose = "how do I write a billing test?";
    const off = await memcliProcess(["recall", "--hook"], {
      env,
      cwd: dir.path,
      stdin: payload({ prompt: loose }),
    });
    assert.equal(off.code, 0, off.err);
    assert.equal(off.out, "");
    const asked = await memcliProcess([
      "recall",
      loose,
      "--project",
      "billing-svc",
      "--min-confidence",
      "0",
    ], {
      env,
      cwd: dir.path,
    });
    assert.ok(asked.out.includes(fact.id), "found, with no floor: " + asked.out + asked.err);
    // Slash commands and empty prompts: nothing, without asking the service.
    for (const prompt of ["/clear", "", "ok"]) {
      const s = await memcliProcess(["recall", "--hook"], {
        env,
        cwd: dir.path,
        stdin: payload({ prompt }),
      });
      assert.equal(s.code, 0);
      assert.equal(s.out, "");
    }
    // The same command for other agents: a query argument.
    const q = await memcliProcess(["recall", "invoice", "PDFs", "--project", "billing-svc"], {
      env,
      cwd: dir.path,
    });
    assert.equal(q.code, 0, q.err);
    assert.ok(q.out.includes(fact.id));
  } finally {
    await admin.stop();
    await dir.cleanup();
  }
});

Deno.test("bootstrap --hook waits for a service that is starting (memcli start, fired before it answers)", async () => {
  const dir = await tempDir("mneme-hook-start-");
  const dataDir = `${dir.path}/data`;
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { DATA_DIR: dataDir, EMBEDDING_PROVIDER: "builtin", ADMIN_PORT: String(port) };
  const pidFile = `${dataDir}/run/admin.pid`;
  let starting: Promise<unknown> = Promise.resolve();
  try {
    // A first start creates the database; the hook is fired during the second, the one a
    // login or `connect` makes on an existing DATA_DIR.
    assert.equal((await memcliProcess(["start"], { env })).code, 0);
    assert.equal((await memcliProcess(["stop"], { env })).code, 0);
    assert.equal(await exists(pidFile), false);
    const start = memcliProcess(["start"], { env });
    starting = start;
    // The hook (in-process: no runtime start-up of its own) fires as soon as memcli start has
    // recorded the daemon's pid: the service is then starting.
    for (let i = 0; i < 3000 && !(await exists(pidFile)); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(await exists(pidFile), "memcli start wrote no pid file");
    const before = await fetch(`${url}/healthz`).then(
      async (r) => (await r.body?.cancel(), r.status),
      () => 0,
    );
    assert.notEqual(before, 200, "the service answered before the hook fired");
    const b = await memcli(["bootstrap", "--hook"], {
      env,
      cwd: dir.path,
      stdin: JSON.stringify({ cwd: dir.path, hook_event_name: "SessionStart" }),
    });
    assert.equal(b.code, 0, b.err);
    assert.doesNotMatch(b.out, /^Mneme memory:/, b.out);
    assert.match(b.out, /^- Project: /m);
    assert.match(b.err, /memcli bootstrap: the memory service was starting; waited \d+ ms for it/);
    assert.equal((await start).code, 0);
  } finally {
    await starting.catch(() => {});
    await memcliProcess(["stop"], { env });
    await killDaemon(dataDir);
    await dir.cleanup();
  }
});

Deno.test("a hook waits only for a starting service: not for one that is down or failing", async () => {
  const dir = await tempDir();
  try {
    const url = "http://127.0.0.1:4200";
    const refused = new MemoryError(503, "cannot reach the Admin API");
    // Nothing listens and no process holds this DATA_DIR: down, no wait.
    assert.equal(await serviceStarting(refused, `${dir.path}/none`, url), false);
    assert.equal(await serviceStarting(refused, null, url), false);
    // The service answered, but not "starting" (its database is down): no wait.
    const dbDown = new MemoryError(503, "database down");
    dbDown.body = { error: "database down" };
    assert.equal(await serviceStarting(dbDown, null, url), false);
    assert.equal(await serviceStarting(new Error("boom"), null, url), false);
    const starting = new MemoryError(503, "starting");
    starting.body = { error: "starting" };
    assert.equal(await serviceStarting(starting, null, url), true);

    // The hook itself: a down service fails at once, and the deadline stays as it was.
    const io = captureIo({ env: { DATA_DIR: `${dir.path}/none` }, stdin: "" });
    const verdicts: string[] = [];
    const res = await runHook(io, "bootstrap", undefined, performance.now(), 5000, async (
      _payload,
      _left,
      startingOf,
    ) => {
      verdicts.push(await startingOf(refused, url));
      verdicts.push(await startingOf(dbDown, url));
      return "done";
    });
    assert.deepEqual(verdicts, ["fail", "fail"]);
    assert.equal(res.deadlineMs, 1500, "no starting budget was added");
    assert.equal(io.stderr(), "");
  } finally {
    await dir.cleanup();
  }
});

Deno.test("recall --hook with RECALL_JUDGE=on against a service older than the judge or its budget: the plain floor", async () => {
  const admin = await startAdminProcess();
  const dir = await tempDir();
  // 0.22's search fields: no `judge`.
  const old = olderService(admin.url, ["query", "scope", "project", "limit"]);
  const newer = olderService(admin.url, ["query", "scope", "project", "limit", "judge"]);
  try {
    const client = new MemoryClient({ baseUrl: admin.url });
    const repo = `${dir.path}/billing-svc`;
    await Deno.mkdir(repo, { recursive: true });
    assert.ok((await new Deno.Command("git", { args: ["init", "-q", repo] }).output()).success);
    const { memory } = await client.create({
      content: "The billing service stores invoice PDFs in the S3 bucket acme-invoices-prod",
      scope: "project",
      project: "billing-svc",
      type: "fact",
    });
    const stdin = JSON.stringify({
      session_id: "s",
      cwd: repo,
      prompt: "Where are the invoice PDFs of the billing service stored?",
    });
    // The hook with the judge on, against the service at `url`.
    const hook = (url: string) =>
      memcli(["recall", "--hook"], {
        env: { MEMORY_API_URL: url, DATA_DIR: `${dir.path}/d`, RECALL_JUDGE: "on" },
        cwd: dir.path,
        stdin,
      });
    const r = await hook(old.url);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(old.refused, ["judge"]);
    assert.ok(r.out.includes(`id ${memory.id}] The billing service stores`), r.out + r.err);
    assert.equal(r.err, "");
    // 0.23's: `judge` but not the hook's time budget, which is left out on the second ask.
    const r23 = await hook(newer.url);
    assert.equal(r23.code, 0, r23.err);
    assert.deepEqual(newer.refused, ["judge_timeout_ms"]);
    assert.ok(r23.out.includes(`id ${memory.id}] The billing service stores`), r23.out);
  } finally {
    await newer.close();
    await old.close();
    await admin.stop();
    await dir.cleanup();
  }
});
