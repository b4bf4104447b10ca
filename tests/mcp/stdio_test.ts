/**
 * The real entrypoint `src/bin/mcp.ts` end to end: the SDK Client with
 * StdioClientTransport spawns it in both modes (direct Postgres over the wire to PGlite
 * behind pglite-socket, and the Admin API of a running admin daemon on the embedded
 * database), two MCP processes plus the daemon share one database, an API-mode server
 * outlives its service (down at start, gone, back: the tools say so, then work again), and
 * servers whose backend cannot work exit non-zero at once with a message saying what to set.
 */
import assert from "node:assert/strict";
import {
  type CallToolResult,
  Client,
  type Resource,
  StdioClientTransport,
  type Tool,
} from "../deps.ts";
import { MCP_LOCK, permissionFlagsFor } from "../../src/programs.ts";
import { TOOL_NAMES } from "../../src/mcp/server.ts";
import { MemoryClient } from "../../src/memory/client.ts";
import type { Memory, SearchResult } from "../../src/memory/types.ts";
import { createServiceOnDb } from "../../src/memory/open.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import {
  freePort,
  olderService,
  pgliteServer,
  ROOT,
  startAdminProcess,
  tempDir,
  testConfig,
} from "../helpers.ts";

import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { KEY as JUDGE_KEY, notesWith, userText } from "../memory/judge.ts";

const ENTRY = `${ROOT}src/bin/mcp.ts`;

/**
 * The permissions of `deno task mcp` plus what `env` configures beyond the defaults (what an
 * installed mneme-mcp holds there), so that a missing one fails here.
 */
function perms(env: Record<string, string>): string[] {
  const flags = permissionFlagsFor("mcp", { env: (n) => env[n], args: [], cwd: Deno.cwd() });
  return [`--lock=${ROOT}${MCP_LOCK}`, ...flags];
}

/** Variables the child needs beyond the SDK's default safe set. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", EMBEDDING_PROVIDER: "builtin" };
  for (const k of ["DENO_DIR", "XDG_CACHE_HOME"]) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  return env;
}

interface McpProcess {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  stderr(): string;
  /** Transport errors (e.g. a non-JSON line on stdout). */
  errors: Error[];
  close(): Promise<void>;
}

async function spawnMcp(env: Record<string, string>): Promise<McpProcess> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...perms({ ...baseEnv(), ...env }), ENTRY],
    env: { ...baseEnv(), ...env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (c: Uint8Array) => (err += new TextDecoder().decode(c)));
  const errors: Error[] = [];
  const client = new Client({ name: "stdio-test", version: "0.0.0" });
  client.onerror = (e: Error) => errors.push(e);
  try {
    await client.connect(transport);
  } catch (e) {
    await transport.close().catch(() => {});
    throw new Error(`mcp server did not start: ${e}\n${err}`);
  }
  return {
    client,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    stderr: () => err,
    errors,
    close: () => client.close(),
  };
}

function text(r: CallToolResult): string {
  return r.content.map((c: CallToolResult["content"][number]) => c.type === "text" ? c.text : "")
    .join("\n");
}

function structured<T>(r: CallToolResult): T {
  assert.notEqual(r.isError, true, text(r));
  return r.structuredContent as T;
}

/** The flow both modes must pass: tools, resources, remember, recall, supersede, forget. */
async function basicFlow(mcp: McpProcess, project: string) {
  const mode = project;
  const { tools } = await mcp.client.listTools();
  assert.deepEqual(tools.map((t: Tool) => t.name).sort(), [...TOOL_NAMES].sort());
  assert.equal(tools.length, 7);
  const { resources } = await mcp.client.listResources();
  assert.ok(resources.some((r: Resource) => r.uri === "mneme://bootstrap"));
  const { resourceTemplates } = await mcp.client.listResourceTemplates();
  assert.equal(resourceTemplates[0]?.uriTemplate, "mneme://bootstrap/{project}");

  const a = structured<{ memory: Memory }>(
    await mcp.call("remember", {
      content: `The ${project} service deploys with deno task deploy on Fridays`,
      project,
      type: "decision",
    }),
  ).memory;
  const hits = structured<{ results: SearchResult[] }>(
    await mcp.call("recall", { query: "how does it deploy", project }),
  ).results;
  assert.equal(hits[0]?.memory.id, a.id);

  const b = structured<{ memory: Memory; contradictions: { id: string }[] }>(
    await mcp.call("remember", {
      content: `The ${project} service deploys with deno task deploy on Mondays`,
      project,
      type: "decision",
      supersedes: a.id,
    }),
  );
  assert.equal(b.memory.supersedes, a.id);
  const after = structured<{ results: SearchResult[] }>(
    await mcp.call("recall", { query: "how does it deploy", project }),
  ).results.map((r) => r.memory.id);
  assert.ok(after.includes(b.memory.id));
  assert.ok(!after.includes(a.id), "superseded memory is hidden from recall");

  const bad = await mcp.call("remember", { content: "x", weight: 2 });
  assert.equal(bad.isError, true);
  assert.equal(text(bad), "weight: must be between 0.1 and 1.0");

  // One validation in both modes, by the advertised input schema (the Admin API's query
  // string would otherwise turn {"x":1} into "[object Object]" and [2] into 2).
  const countBefore = structured<{ count: number }>(await mcp.call("list", { limit: 1000 })).count;
  const invalid: [string, Record<string, unknown>, string][] = [
    ["list", { project: { x: 1 } }, "project: must be a string"],
    ["list", { type: ["rule"] }, "type: must be one of fact, rule, decision, feedback, context"],
    ["list", { limit: [2] }, "limit: must be an integer"],
    ["list", { limit: "5" }, "limit: must be an integer"],
    ["list", { project: null }, "project: must be a string, not null (omit it for the default)"],
    ["recall", { query: "x", limit: null }, "limit: must be an integer, not null"],
    ["remember", { content: "typo", weight: null }, "weight: must be a number, not null"],
    ["remember", { content: "typo", tags: null }, "tags: must be an array of strings, not null"],
    ["stats", { verbose: true }, "verbose: unknown field; allowed fields: none"],
    ["forget", { id: crypto.randomUUID(), all: true }, "all: unknown field; allowed fields are id"],
  ];
  for (const [tool, args, starts] of invalid) {
    const r = await mcp.call(tool, args);
    assert.equal(r.isError, true, `${mode} ${tool} ${JSON.stringify(args)}`);
    assert.ok(
      text(r).startsWith(starts),
      `${mode} ${tool} ${JSON.stringify(args)}: ${text(r)} should start with ${starts}`,
    );
  }
  assert.equal(
    structured<{ count: number }>(await mcp.call("list", { limit: 1000 })).count,
    countBefore,
    "nothing was written",
  );

  await mcp.call("remember", { content: `Say hello in ${project}`, project, type: "bootstrap" });
  const boot = await mcp.client.readResource({ uri: `mneme://bootstrap/${project}` });
  assert.match(boot.contents[0].text as string, new RegExp(`Say hello in ${project}`));

  assert.deepEqual(structured(await mcp.call("forget", { id: b.memory.id })), {
    ok: true,
    id: b.memory.id,
  });
  const gone = await mcp.call("forget", { id: b.memory.id });
  assert.equal(gone.isError, true);
  assert.match(text(gone), /not found/);
  assert.deepEqual(mcp.errors, [], "stdout carried only JSON-RPC");
}

Deno.test("mcp stdio: direct mode on Postgres (pglite-socket)", async () => {
  const pg = await pgliteServer();
  const parent = await tempDir();
  const dataDir = `${parent.path}/never-created`;
  let mcp: McpProcess | undefined;
  try {
    // A memory that expired an hour ago, written before the server starts: the TTL cleanup
    // the server schedules (first run at startup) deletes it.
    const db = await openPostgres(pg.url, { max: 1 });
    const past = new Date(Date.now() - 2 * 3_600_000);
    const old = await createServiceOnDb(db, testConfig({ databaseUrl: pg.url }), {
      now: () => past,
    });
    const expired = await old.create({ content: "expired note", ttl: "1h" });
    await old.close();

    mcp = await spawnMcp({ DATABASE_URL: pg.url, DATA_DIR: dataDir });
    await basicFlow(mcp, "direct");
    assert.match(mcp.stderr(), /backend: direct Postgres at 127\.0\.0\.1:\d+/);
    assert.match(mcp.stderr(), /hourly TTL cleanup on/);
    assert.match(mcp.stderr(), /ttl cleanup: deleted 1 expired memories/);
    await mcp.close();
    const after = await openPostgres(pg.url, { max: 1 });
    try {
      const rows = await after.query("select id from memories where id = $1", [
        expired.memory.id,
      ]);
      assert.equal(rows.length, 0, "the expired row is gone from the table");
    } finally {
      await after.close();
    }
    await assert.rejects(Deno.stat(dataDir), Deno.errors.NotFound, "no embedded database");
  } finally {
    await mcp?.close();
    await pg.close();
    await parent.cleanup();
  }
});

Deno.test("mcp stdio: API mode, two MCP servers and the daemon share one database", async () => {
  const key = "test-key-" + crypto.randomUUID();
  const admin = await startAdminProcess({ env: { ADMIN_API_KEY: key } });
  const env = { MEMORY_API_URL: admin.url, ADMIN_API_KEY: key };
  let one: McpProcess | undefined;
  let two: McpProcess | undefined;
  try {
    [one, two] = await Promise.all([spawnMcp(env), spawnMcp(env)]);
    await basicFlow(one, "api");
    assert.match(one.stderr(), /backend: Admin API at http:\/\/127\.0\.0\.1:\d+ \(with API key\)/);
    assert.doesNotMatch(one.stderr() + admin.stderr(), new RegExp(key), "key is never logged");

    // A write through one MCP server is recalled by the other and seen by the daemon.
    const m = structured<{ memory: Memory }>(
      await one.call("remember", { content: "Shared: the staging host is stage.internal" }),
    ).memory;
    const seen = structured<{ results: SearchResult[] }>(
      await two.call("recall", { query: "staging host" }),
    ).results;
    assert.equal(seen[0]?.memory.id, m.id);
    const http = new MemoryClient({ baseUrl: admin.url, apiKey: key });
    assert.equal((await http.get(m.id)).content, m.content);

    // A write through the daemon's API is recalled by both MCP servers.
    const viaApi = await http.create({ content: "Shared: the CI runs on two cores" });
    for (const mcp of [one, two]) {
      const r = structured<{ results: SearchResult[] }>(
        await mcp.call("recall", { query: "CI cores" }),
      ).results;
      assert.equal(r[0]?.memory.id, viaApi.memory.id);
    }
    // The second server updates, the first one lists the new text.
    await two.call("update", { id: m.id, content: "Shared: the staging host is stage2" });
    const listed = structured<{ memories: Memory[] }>(await one.call("list", {})).memories;
    assert.equal(listed.find((x) => x.id === m.id)?.content, "Shared: the staging host is stage2");
    assert.deepEqual([...one.errors, ...two.errors], []);

    // Without the key the server refuses to start, naming ADMIN_API_KEY.
    const noKey = await runToExit({ MEMORY_API_URL: admin.url });
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /ADMIN_API_KEY/);
    assert.equal(noKey.stdout, "");
  } finally {
    await one?.close();
    await two?.close();
    await admin.stop();
  }
});

async function runToExit(
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...perms({ ...baseEnv(), ...env }), ENTRY],
    env: { ...baseEnv(), ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return {
    code: out.code,
    stdout: d.decode(out.stdout),
    stderr: d.decode(out.stderr),
    ms: performance.now() - started,
  };
}

Deno.test("mcp stdio: API mode outlives the service: down at start, gone, back", async () => {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = (await tempDir("mneme-mcp-outlives-")).path;
  const mcp = await spawnMcp({ MEMORY_API_URL: url });
  let admin: Awaited<ReturnType<typeof startAdminProcess>> | undefined;
  const down = new RegExp(
    `cannot reach the Admin API at ${url} .*start it with \`memcli start\` \\(or \`deno task start\`\\)`,
  );
  try {
    // Started while nothing listens: it stays up, says why on stderr, lists its tools.
    assert.match(mcp.stderr(), /does not answer yet/);
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((t: Tool) => t.name).sort(), [...TOOL_NAMES].sort());
    const r1 = await mcp.call("stats");
    assert.equal(r1.isError, true);
    assert.match((r1.content as { text: string }[])[0].text, down);

    // The service comes up: the next call works, no reconnect.
    admin = await startAdminProcess({ port, dataDir, keepData: true });
    const r2 = await mcp.call("remember", { content: "The service came back" });
    assert.ok(!r2.isError, JSON.stringify(r2.content));

    // It goes away: a clear error; back again: the memory is there.
    await admin.stop();
    admin = undefined;
    const r3 = await mcp.call("recall", { query: "service came back" });
    assert.equal(r3.isError, true);
    assert.match((r3.content as { text: string }[])[0].text, down);
    admin = await startAdminProcess({ port, dataDir, keepData: true });
    const r4 = await mcp.call("recall", { query: "service came back" });
    assert.ok(!r4.isError, JSON.stringify(r4.content));
    assert.match(JSON.stringify(r4.content), /The service came back/);
    assert.deepEqual(mcp.errors, []);
  } finally {
    await mcp.close();
    await admin?.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

Deno.test("mcp stdio: a backend that cannot work exits at once, naming it", async (t) => {
  const home = { HOME: Deno.env.get("HOME") ?? "/tmp", PATH: Deno.env.get("PATH") ?? "" };

  await t.step("a listener that never answers does not hang the agent's start", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const accepting = (async () => {
      try {
        for await (const c of listener) held.push(c);
      } catch { /* closed */ }
    })();
    const started = performance.now();
    let mcp: McpProcess | undefined;
    try {
      const port = (listener.addr as Deno.NetAddr).port;
      mcp = await spawnMcp({ MEMORY_API_URL: `http://127.0.0.1:${port}` });
      const ms = performance.now() - started;
      assert.ok(ms < 8000, `took ${ms} ms`);
      assert.match(mcp.stderr(), /no answer within 1500 ms/);
    } finally {
      await mcp?.close();
      listener.close();
      for (const c of held) c.close();
      await accepting;
    }
  });

  await t.step("something else answers at MEMORY_API_URL", async () => {
    const ac = new AbortController();
    const srv = Deno.serve(
      { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
      () => new Response("hello", { status: 404 }),
    );
    try {
      const r = await runToExit({ ...home, MEMORY_API_URL: `http://127.0.0.1:${srv.addr.port}` });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /does not point at a Mneme Admin API/);
    } finally {
      ac.abort();
      await srv.finished;
    }
  });

  await t.step("DATABASE_URL points at a closed port", async () => {
    const r = await runToExit({
      ...home,
      DATABASE_URL: `postgres://u:secret-pw@127.0.0.1:${freePort()}/db`,
    });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /cannot connect to the database at 127\.0\.0\.1:\d+ \(DATABASE_URL\)/);
    assert.doesNotMatch(r.stderr, /secret-pw/, "the password is never printed");
    assert.ok(r.ms < 5000, `took ${r.ms} ms`);
  });

  await t.step("an invalid variable is named", async () => {
    const r = await runToExit({ ...home, MEMORY_API_URL: "ftp://x" });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /MEMORY_API_URL must use http: or https:/);
  });
});

Deno.test("mcp stdio: stdin closed right after the requests: every pending request is answered, then exit 0", async () => {
  const admin = await startAdminProcess();
  try {
    const env = { ...baseEnv(), MEMORY_API_URL: admin.url };
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...perms(env), ENTRY],
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "pipe", version: "0" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "remember",
          arguments: { content: "The staging database listens on port 6543", type: "fact" },
        },
      },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "recall", arguments: { query: "staging database port" } },
      },
    ].map((m) => JSON.stringify(m) + "\n").join("");
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(lines));
    await w.close();
    const out = await child.output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const answers = stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3], stdout + stderr);
    const remember = answers.find((a) => a.id === 2);
    assert.equal(remember.result?.isError ?? false, false, JSON.stringify(remember));
    assert.match(remember.result.content[0].text, /^Remembered [0-9a-f-]{36} \(global, fact\)\.$/);
    assert.ok(answers.find((a) => a.id === 3).result, "recall answered");
    const stored = await new MemoryClient({ baseUrl: admin.url }).list({});
    assert.ok(stored.some((m) => m.content === "The staging database listens on port 6543"));
  } finally {
    await admin.stop();
  }
});

Deno.test("mcp stdio: API mode asks the daemon's judge to rerank the recall tool's results", async () => {
  // The scripted model chooses the notes whose line holds `pick`.
  let pick = "";
  const fake = startFakeAnthropic({
    apiKeys: [JUDGE_KEY],
    usageFromBody: true,
    reply: (b) => JSON.stringify({ use: notesWith(userText(b), pick) }),
  });
  const admin = await startAdminProcess({
    env: {
      RECALL_JUDGE: "on",
      CAPTURE_MODEL_PROVIDER: "anthropic",
      CAPTURE_MODEL_URL: fake.url,
      CAPTURE_MODEL_API_KEY: JUDGE_KEY,
    },
  });
  let mcp: McpProcess | undefined;
  try {
    const http = new MemoryClient({ baseUrl: admin.url });
    for (
      const content of [
        "The deploy script runs the database migrations before the web servers restart.",
        "Deploys to production wait for the canary's error rate for ten minutes.",
        "The deploy pipeline posts its status to the releases channel.",
        "A failed deploy is rolled back with the previous image tag, never by hand.",
      ]
    ) await http.create({ content, project: "shop" });
    const query = "how does a deploy run";
    const plain = await http.search({ query, project: "shop", limit: 10 });
    assert.ok(plain.length >= 3, JSON.stringify(plain.map((r) => r.memory.content)));
    const last = plain.at(-1)!;
    pick = last.memory.content.slice(0, 30);
    mcp = await spawnMcp({ MEMORY_API_URL: admin.url });
    const r = structured<{ results: SearchResult[] }>(
      await mcp.call("recall", { query, project: "shop", limit: 2 }),
    ).results;
    assert.deepEqual(
      r.map((x) => [x.memory.id, x.chosen]),
      [[last.memory.id, true], [plain[0].memory.id, false]],
    );
    assert.equal(fake.requestsTo("/v1/messages").length, 1);
    assert.equal((await http.stats()).judge?.reranks, 1);
    assert.deepEqual(mcp.errors, []);
  } finally {
    await mcp?.close();
    await admin.stop();
    await fake.close();
  }
});

Deno.test("mcp stdio: API mode against a service older than the rerank: asked without it", async () => {
  const admin = await startAdminProcess();
  // 0.23's search fields: no `rerank`.
  const old = olderService(admin.url, [
    "query",
    "scope",
    "project",
    "limit",
    "judge",
    "judge_timeout_ms",
  ]);
  let mcp: McpProcess | undefined;
  try {
    const http = new MemoryClient({ baseUrl: admin.url });
    const { memory } = await http.create({ content: "The CI runs the tests on two cores" });
    const m = mcp = await spawnMcp({ MEMORY_API_URL: old.url });
    for (let i = 0; i < 2; i++) {
      const r: SearchResult[] = structured<{ results: SearchResult[] }>(
        await m.call("recall", { query: "CI cores" }),
      ).results;
      assert.equal(r[0]?.memory.id, memory.id);
      assert.equal(r[0]?.chosen, undefined);
    }
    // Refused once, then asked without it.
    assert.deepEqual(old.refused, ["rerank"]);
    assert.deepEqual(mcp.errors, []);
  } finally {
    await mcp?.close();
    await old.close();
    await admin.stop();
  }
});
