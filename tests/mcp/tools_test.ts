/**
 * The MCP server in process: the SDK Client over InMemoryTransport against
 * createMcpServer(PGlite service). Every tool and resource, every bad argument, and that a
 * refused call writes nothing.
 */
import assert from "node:assert/strict";
import {
  type CallToolResult,
  Client,
  InMemoryTransport,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from "../deps.ts";
import { createMcpServer, TOOL_NAMES } from "../../src/mcp/server.ts";
import { HELP_TOPICS, recallOutput } from "../../src/mcp/schemas.ts";
import { recallText } from "../../src/mcp/format.ts";
import { BOOTSTRAP_WARNING } from "../../src/memory/bootstrap.ts";
import type {
  Memory,
  MemoryService,
  SearchInput,
  SearchResult,
  Stats,
} from "../../src/memory/types.ts";
import { badRequest } from "../../src/domain/errors.ts";
import { VERSION } from "../../src/version.ts";
import { pgliteService } from "../helpers.ts";

async function connect(service: MemoryService, logs: string[] = []) {
  const server = createMcpServer(service, { log: (l) => logs.push(l) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "0.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

function text(r: CallToolResult): string {
  return r.content.map((c: CallToolResult["content"][number]) => (c.type === "text" ? c.text : ""))
    .join("\n");
}

type Call = (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;

function caller(client: Client): Call {
  return async (name, args = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
}

async function expectToolError(call: Call, name: string, args: unknown, starts: string) {
  const r = await call(name, args as Record<string, unknown>);
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} should fail: ${text(r)}`);
  assert.ok(
    text(r).startsWith(starts),
    `${name} ${JSON.stringify(args)}: "${text(r)}" should start with "${starts}"`,
  );
  assert.equal(r.structuredContent, undefined);
}

Deno.test("mcp in process: tools, schemas, results and bad arguments", async (t) => {
  const { service, close } = await pgliteService();
  const logs: string[] = [];
  const conn = await connect(service, logs);
  const call = caller(conn.client);
  try {
    await t.step("initialize announces name, version and instructions", () => {
      const info = conn.client.getServerVersion();
      assert.equal(info?.name, "mneme");
      assert.equal(info?.version, VERSION);
      assert.match(conn.client.getInstructions() ?? "", /recall/);
    });

    await t.step("exactly seven tools with described fields and output schemas", async () => {
      const { tools } = await conn.client.listTools();
      assert.deepEqual(tools.map((x: Tool) => x.name).sort(), [...TOOL_NAMES].sort());
      for (const tool of tools) {
        assert.ok((tool.description ?? "").length > 30, `${tool.name} description`);
        assert.equal(tool.outputSchema?.type, "object", `${tool.name} outputSchema`);
        for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
          const desc = (schema as { description?: string }).description ?? "";
          assert.ok(desc.length > 10, `${tool.name}.${field} needs a description`);
        }
      }
      const remember = tools.find((x: Tool) => x.name === "remember")!;
      assert.deepEqual(remember.inputSchema.required, ["content"]);
      assert.deepEqual(
        Object.keys(remember.inputSchema.properties ?? {}).sort(),
        ["content", "project", "scope", "supersedes", "tags", "ttl", "type", "weight"],
      );
      const props = remember.inputSchema.properties as Record<string, Record<string, unknown>>;
      assert.deepEqual(props.scope.enum, ["global", "project"]);
      assert.equal(props.weight.minimum, 0.1);
      assert.equal(props.supersedes.format, "uuid");
      const recall = tools.find((x: Tool) => x.name === "recall")!;
      assert.deepEqual(recall.inputSchema.required, ["query"]);
      assert.deepEqual(
        Object.keys(recall.inputSchema.properties ?? {}).sort(),
        ["limit", "project", "query", "scope"],
      );
    });

    let first: Memory;
    await t.step("remember stores a memory and returns it", async () => {
      const r = await call("remember", {
        content: "The mneme repository runs its tests with deno task test",
        project: "mneme",
        type: "rule",
        tags: ["testing"],
        weight: 0.9,
        ttl: "7d",
      });
      assert.equal(r.isError, undefined, text(r));
      const sc = r.structuredContent as { memory: Memory; contradictions: unknown[] };
      first = sc.memory;
      assert.equal(first.scope, "project");
      assert.equal(first.project, "mneme");
      assert.equal(first.type, "rule");
      assert.deepEqual(first.tags, ["testing"]);
      assert.equal(first.weight, 0.9);
      assert.ok(first.expires_at);
      assert.deepEqual(sc.contradictions, []);
      assert.match(text(r), new RegExp(`Remembered ${first.id}`));
      assert.deepEqual(await service.get(first.id), first);
    });

    let second: Memory;
    await t.step("a similar memory comes back with contradiction warnings", async () => {
      const r = await call("remember", {
        content: "The mneme repository runs its tests with deno task test --parallel",
        project: "mneme",
      });
      assert.equal(r.isError, undefined, text(r));
      const sc = r.structuredContent as {
        memory: Memory;
        contradictions: { id: string; content: string; similarity: number }[];
      };
      second = sc.memory;
      assert.equal(sc.contradictions.length, 1);
      assert.equal(sc.contradictions[0].id, first.id);
      assert.equal(sc.contradictions[0].content, first.content);
      assert.ok(sc.contradictions[0].similarity > 0.75);
      assert.match(text(r), /WARNING: 1 existing memory/);
      assert.match(text(r), new RegExp(first.id));
      assert.match(text(r), /supersedes=/);
    });

    await t.step("recall is hierarchical and scored", async () => {
      await call("remember", { content: "Global: the user prefers short test names" });
      await call("remember", { content: "Other project tests use vitest", project: "other" });
      const r = await call("recall", { query: "tests", project: "mneme", limit: 10 });
      assert.equal(r.isError, undefined, text(r));
      const { results } = r.structuredContent as { results: SearchResult[] };
      const where = results.map((x) => x.memory.project ?? "global");
      assert.ok(where.includes("mneme") && where.includes("global"), where.join());
      assert.ok(!where.includes("other"));
      for (let i = 1; i < results.length; i++) {
        assert.ok(results[i - 1].score >= results[i].score);
      }
      assert.match(text(r), /best first/);
      assert.match(text(r), /\[score 0\.\d+, confidence [01]\.\d{2}\]/);
      const none = await call("recall", { query: "tests", scope: "global", limit: 10 });
      const g = (none.structuredContent as { results: SearchResult[] }).results;
      assert.ok(g.length >= 1 && g.every((x) => x.memory.scope === "global"));
      const all = await call("recall", { query: "tests", scope: "all", limit: 10 });
      assert.equal(all.isError, undefined, text(all));
      const a = (all.structuredContent as { results: SearchResult[] }).results
        .map((x) => x.memory.project ?? "global");
      assert.ok(["mneme", "other", "global"].every((w) => a.includes(w)), a.join());
    });

    let third: Memory;
    await t.step("supersedes hides the old memory from recall, list still shows it", async () => {
      const r = await call("remember", {
        content: "The mneme repository runs its tests with deno task ok",
        project: "mneme",
        type: "rule",
        supersedes: second.id,
      });
      assert.equal(r.isError, undefined, text(r));
      third = (r.structuredContent as { memory: Memory }).memory;
      assert.equal(third.supersedes, second.id);
      assert.match(text(r), new RegExp(`supersedes ${second.id}`));
      const rec = await call("recall", { query: "mneme tests deno task", project: "mneme" });
      const ids = (rec.structuredContent as { results: SearchResult[] }).results.map((x) =>
        x.memory.id
      );
      assert.ok(ids.includes(third.id));
      assert.ok(!ids.includes(second.id));
      const list = await call("list", { project: "mneme" });
      const listed = (list.structuredContent as { memories: Memory[] }).memories;
      const old = listed.find((m) => m.id === second.id)!;
      assert.equal(old.superseded_by, third.id);
      assert.equal(old.weight, 0.1);
      assert.match(text(list), /SUPERSEDED by/);
    });

    await t.step("list filters and counts", async () => {
      const r = await call("list", { scope: "project", project: "mneme", type: "rule" });
      const sc = r.structuredContent as { memories: Memory[]; count: number };
      assert.equal(sc.count, sc.memories.length);
      assert.deepEqual(sc.memories.map((m) => m.id).sort(), [first.id, third.id].sort());
      const lim = await call("list", { limit: 1 });
      assert.equal((lim.structuredContent as { count: number }).count, 1);
      const empty = await call("list", { type: "decision" });
      assert.equal(text(empty), "No memories match.");
    });

    await t.step("update changes the content", async () => {
      const r = await call("update", { id: first.id, content: "Tests: deno task test -A" });
      assert.equal(r.isError, undefined, text(r));
      const m = (r.structuredContent as { memory: Memory }).memory;
      assert.equal(m.content, "Tests: deno task test -A");
      assert.equal((await service.get(first.id)).content, "Tests: deno task test -A");
      assert.match(text(r), /Updated memory/);
    });

    await t.step("stats counts", async () => {
      const r = await call("stats");
      const s = r.structuredContent as unknown as Stats;
      assert.deepEqual(s, await service.stats());
      assert.equal(s.total, 5);
      assert.equal(s.live, 4);
      assert.equal(s.superseded, 1);
      assert.match(
        text(r),
        /^4 live memories and 1 superseded \(5 in all; the counts below include both\)\./,
      );
    });

    await t.step("forget deletes; a second forget is a 404 naming the id", async () => {
      const r = await call("forget", { id: first.id.toUpperCase() });
      assert.equal(r.isError, undefined, text(r));
      assert.deepEqual(r.structuredContent, { ok: true, id: first.id });
      await expectToolError(call, "forget", { id: first.id }, `memory ${first.id} not found`);
      await expectToolError(call, "update", { id: first.id, content: "x" }, `memory ${first.id}`);
    });

    await t.step("help has every topic; overview by default", async () => {
      const d = await call("help");
      assert.equal((d.structuredContent as { topic: string }).topic, "overview");
      for (const topic of HELP_TOPICS) {
        const r = await call("help", { topic });
        assert.equal(r.isError, undefined);
        const sc = r.structuredContent as { topic: string; text: string; topics: string[] };
        assert.equal(sc.topic, topic);
        assert.equal(sc.text, text(r));
        assert.ok(sc.text.length > 300, topic);
        assert.deepEqual(sc.topics, [...HELP_TOPICS]);
      }
      const tools = text(await call("help", { topic: "tools" }));
      for (const name of TOOL_NAMES) assert.match(tools, new RegExp(`^${name}\\(`, "m"));
      await expectToolError(call, "help", { topic: "nope" }, "topic: must be one of overview");
    });

    await t.step("bad arguments are tool errors naming the field; nothing is written", async () => {
      const before = await service.export();
      const cases: [string, Record<string, unknown>, string][] = [
        ["remember", {}, "content: is required"],
        ["remember", { content: "" }, "content: must not be empty"],
        ["remember", { content: "   " }, "content: must not be empty"],
        ["remember", { content: 42 }, "content: is required and must be a string"],
        ["remember", { content: "x".repeat(20_001) }, "content: is longer than 20000"],
        ["remember", { content: "a", weight: 1.5 }, "weight: must be between 0.1 and 1.0"],
        ["remember", { content: "a", weight: 0 }, "weight: must be between 0.1 and 1.0"],
        ["remember", { content: "a", weight: "high" }, "weight: must be a number"],
        ["remember", { content: "a", ttl: "soon" }, 'ttl: "soon" is not a duration'],
        ["remember", { content: "a", ttl: "0d" }, "ttl: "],
        ["remember", { content: "a", ttl: 5 }, "ttl: must be a duration string"],
        ["remember", { content: "a", scope: "team" }, "scope: must be one of global, project"],
        ["remember", { content: "a", type: "note" }, "type: must be one of fact, rule"],
        ["remember", { content: "a", scope: "project" }, "project: is required when scope"],
        ["remember", { content: "a", scope: "global", project: "p" }, "project: must be empty"],
        ["remember", { content: "a", tags: "x" }, "tags: must be an array of strings"],
        ["remember", { content: "a", tags: ["ok", ""] }, "tags[1]: must not be empty"],
        ["remember", { content: "a", supersedes: "abc" }, "supersedes: must be a UUID"],
        [
          "remember",
          { content: "a", supersedes: crypto.randomUUID() },
          "supersedes: memory ",
        ],
        ["remember", { content: "a", colour: "red" }, "colour: unknown field; allowed fields"],
        ["recall", {}, "query: is required"],
        ["recall", { query: " " }, "query: must not be empty"],
        ["recall", { query: "a", limit: 0 }, "limit: must be between 1 and 100"],
        ["recall", { query: "a", limit: 101 }, "limit: must be between 1 and 100"],
        ["recall", { query: "a", limit: 2.5 }, "limit: must be an integer"],
        ["recall", { query: "a", scope: "nope" }, "scope: must be one of global, project"],
        ["recall", { query: "a", scope: "project" }, "project: is required when scope"],
        ["recall", { query: "a", tags: ["x"] }, "tags: unknown field"],
        ["list", { limit: 0 }, "limit: must be between 1 and 1000"],
        ["list", { limit: "many" }, "limit: must be an integer"],
        ["list", { type: "note" }, "type: must be one of"],
        ["list", { scope: "x" }, "scope: must be one of"],
        ["list", { query: "x" }, "query: unknown field"],
        ["forget", {}, "id: must be a UUID"],
        ["forget", { id: "not-a-uuid" }, "id: must be a UUID"],
        ["forget", { id: "../stats" }, "id: must be a UUID"],
        ["forget", { id: crypto.randomUUID(), all: true }, "all: unknown field"],
        ["update", { id: "nope", content: "x" }, "id: must be a UUID"],
        ["update", { id: third.id }, "content: is required"],
        ["update", { id: third.id, content: "" }, "content: must not be empty"],
        ["update", { id: third.id, content: "x", type: "rule" }, "type: unknown field"],
        ["stats", { verbose: true }, "verbose: unknown field"],
        ["help", { topic: 3 }, "topic: must be one of"],
      ];
      for (const [name, args, starts] of cases) await expectToolError(call, name, args, starts);
      assert.deepEqual(await service.export(), before);
      assert.deepEqual(logs, [], "client errors are not logged as failures");
    });

    await t.step("a failing service is an internal tool error, not a crash", async () => {
      const broken = new Proxy(service, {
        get(target, prop, recv) {
          if (prop === "stats") return () => Promise.reject(new Error("disk on fire"));
          return Reflect.get(target, prop, recv);
        },
      });
      const l2: string[] = [];
      const c2 = await connect(broken, l2);
      try {
        const r = (await c2.client.callTool({ name: "stats", arguments: {} })) as CallToolResult;
        assert.equal(r.isError, true);
        assert.equal(text(r), "internal error: disk on fire");
        assert.match(l2.join("\n"), /stats failed: disk on fire/);
      } finally {
        await c2.close();
      }
    });

    await t.step("bootstrap resources", () => checkBootstrapResources(service, conn.client));
  } finally {
    await conn.close();
    await close();
  }
});

/** The bootstrap resources, on a service without bootstrap memories yet. */
async function checkBootstrapResources(service: MemoryService, client: Client) {
  const { resources } = await client.listResources();
  assert.ok(resources.some((r: Resource) => r.uri === "mneme://bootstrap"));
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((r: ResourceTemplate) => r.uriTemplate), [
    "mneme://bootstrap/{project}",
  ]);

  const empty = await client.readResource({ uri: "mneme://bootstrap" });
  const emptyText = empty.contents[0].text as string;
  assert.equal(empty.contents[0].mimeType, "text/markdown");
  assert.match(emptyText, /^# Memory Bootstrap/);
  assert.match(emptyText, /## System/);
  assert.match(emptyText, /## Bootstrap Stats/);

  await service.create({ content: "Always answer in English.", type: "bootstrap" });
  await service.create({
    content: "Run deno task ok before committing.",
    type: "bootstrap",
    tags: ["rule"],
    project: "my app",
  });
  await service.create({ content: "Not bootstrap: a plain fact", project: "my app" });
  const old = await service.create({ content: "Old global rule", type: "bootstrap" });
  await service.create({
    content: "New global rule",
    type: "bootstrap",
    supersedes: old.memory.id,
  });

  const global = (await client.readResource({ uri: "mneme://bootstrap" }))
    .contents[0].text as string;
  assert.match(global, /## Bootstrap\n\n(- .*\n)*- Always answer in English\./);
  assert.match(global, /New global rule/);
  assert.doesNotMatch(global, /Old global rule/);
  assert.doesNotMatch(global, /deno task ok/);
  assert.match(global, /Project: \(none\)/);

  const uri = `mneme://bootstrap/${encodeURIComponent("my app")}`;
  const proj = await client.readResource({ uri });
  const projText = proj.contents[0].text as string;
  assert.equal(proj.contents[0].uri, uri);
  assert.match(projText, /## Rules\n\n- Run deno task ok before committing\./);
  assert.match(projText, /Always answer in English\./);
  assert.doesNotMatch(projText, /plain fact/);
  assert.match(projText, /Project: my app \(source: uri\)/);
  assert.doesNotMatch(projText, new RegExp(BOOTSTRAP_WARNING));

  // The template lists one resource per known project.
  const listed = await client.listResources();
  assert.ok(
    listed.resources.some((r: Resource) => r.uri === uri),
    JSON.stringify(listed.resources),
  );
  const done = await client.complete({
    ref: { type: "ref/resource", uri: "mneme://bootstrap/{project}" },
    argument: { name: "project", value: "my" },
  });
  assert.deepEqual(done.completion.values, ["my app"]);

  await assert.rejects(
    client.readResource({ uri: `mneme://bootstrap/${"x".repeat(201)}` }),
    /project: is longer than 200 characters/,
  );
  await assert.rejects(client.readResource({ uri: "mneme://nothing" }), /not found/);
}

Deno.test("recall through a service older than 0.7 (API mode): results without a confidence are shown and valid", () => {
  const memory = {
    id: "0bf711ee-f9e5-49ba-bccb-c36dc9e18c82",
    content: "old service memory",
    scope: "global",
    project: null,
    type: "fact",
    tags: [],
    weight: 1,
    supersedes: null,
    superseded_by: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    expires_at: null,
  } as Memory;
  const old = [{ memory, score: 0.5 }] as SearchResult[];
  assert.match(recallText(old, "q"), /1\. \[score 0\.500\] /);
  assert.ok(recallOutput.safeParse({ results: old }).success);
  assert.match(recallText([{ memory, score: 0.5, confidence: 0.81 }], "q"), /confidence 0\.81\]/);
});

Deno.test("recall asking a service older than the rerank: calls at once all retry without it", async () => {
  const { service, close } = await pgliteService();
  const { memory } = await service.create({ content: "The CI runs the tests on two cores" });
  // The older service refuses `rerank` as the Admin API refuses an unknown field; the two calls'
  // refusals are answered together, so both were sent before either came back.
  const CALLS = 2;
  let arrived = 0;
  let release!: () => void;
  const together = new Promise<void>((r) => release = r);
  const asked: unknown[] = [];
  const older = new Proxy(service, {
    get(target, key) {
      if (key === "search") {
        return async (input: SearchInput) => {
          asked.push(input.rerank);
          if (input.rerank !== undefined) {
            if (++arrived === CALLS) release();
            await together;
            throw badRequest("rerank", "unknown field; allowed fields are query, scope");
          }
          return await target.search(input);
        };
      }
      const v = Reflect.get(target, key);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const server = createMcpServer(older, { log: () => {}, rerank: true });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "0.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  const call = caller(client);
  try {
    const rs = await Promise.all(
      Array.from({ length: CALLS }, () => call("recall", { query: "CI cores" })),
    );
    for (const r of rs) {
      assert.notEqual(r.isError, true, text(r));
      const results = (r.structuredContent as { results: SearchResult[] }).results;
      assert.equal(results[0]?.memory.id, memory.id);
    }
    // Then asked without it from the first call on.
    await call("recall", { query: "CI cores" });
    assert.deepEqual(asked, [true, true, undefined, undefined, undefined]);
  } finally {
    await client.close();
    await server.close();
    await close();
  }
});
