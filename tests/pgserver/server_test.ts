/**
 * Against a real PostgreSQL server with pgvector (see cluster.ts: a throw-away cluster, or
 * TEST_DATABASE_URL): the MemoryService contract, concurrent migrations, the MCP server in
 * direct mode, two admin daemons on one database, an outage (503 naming the database, then
 * recovery), and the setup errors with their hints. Every test uses a database of its own.
 * When no server can be had, every test here is ignored and its name says why.
 */
import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "../deps.ts";
import { type CallToolResult, Client, InMemoryTransport, StdioClientTransport } from "../deps.ts";
import { createAdminApp } from "../../src/admin/app.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { MemoryClient } from "../../src/memory/client.ts";
import { describeError } from "../../src/common/errors.ts";
import { openMemoryService } from "../../src/memory/open.ts";
import type { Memory, SearchResult } from "../../src/memory/types.ts";
import { MIGRATIONS } from "../../src/store/migrate.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { memoryContract } from "../memory/contract.ts";
import { backend, Clock, sqlService, TableEmbedder } from "../memory/fixtures.ts";
import {
  freePort,
  mcpServerCommand,
  ROOT,
  startAdminProcess,
  tempDir,
  testConfig,
} from "../helpers.ts";
import { adminSql, freshDatabase, type RealServer, SERVER, serverTest, urlFor } from "./cluster.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

const pg: RealServer | undefined = typeof SERVER === "string" ? undefined : SERVER;
const dropAfter: (() => Promise<void>)[] = [];

function hasIpv6(): boolean {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

/**
 * A test that needs the cluster the tests started (it stops the server, or reaches it over
 * ::1): ignored, saying why, with TEST_DATABASE_URL or without IPv6 loopback for the latter.
 */
function localTest(name: string, fn: () => Promise<void>): void {
  const why = typeof SERVER === "string"
    ? SERVER
    : SERVER.kind !== "local"
    ? "needs the cluster the tests start, not TEST_DATABASE_URL"
    : name.includes("IPv6") && !hasIpv6()
    ? "no IPv6 loopback (::1) on this machine"
    : "";
  Deno.test({
    name: why ? `${name} (SKIPPED: ${why})` : name,
    ignore: why !== "",
    sanitizeOps: false,
    sanitizeResources: false,
    fn,
  });
}

/** A fresh database (dropped when the tests end) and its URL. */
async function freshDb(): Promise<{ name: string; url: string }> {
  const d = await freshDatabase(pg!);
  dropAfter.push(d.drop);
  return d;
}

async function count(db: string, where = "true"): Promise<number> {
  const [r] = await adminSql(pg!, `select count(*)::int as n from memories where ${where}`, db);
  return Number(r.n);
}

async function tableExists(db: string): Promise<boolean> {
  return (await adminSql(pg!, "select 1 from pg_tables where tablename = 'memories'", db))
    .length > 0;
}

memoryContract("postgres server", async () => {
  const { url } = await freshDb();
  const db = await openPostgres(url);
  const embedder = new TableEmbedder();
  const clock = new Clock();
  const inner = await sqlService(db, embedder, clock);
  return backend("postgres", db, inner, inner, embedder, clock, () => inner.close());
}, { ignore: !pg });
if (!pg) console.error(`MemoryService contract: postgres server SKIPPED: ${SERVER}`);

serverTest(
  "eight services migrating one empty database at once, then 50 concurrent writes",
  async () => {
    const { name, url } = await freshDb();
    const cfg = testConfig({ databaseUrl: url, embeddingDim: 64 });
    const services = await Promise.all(
      Array.from({ length: 8 }, () => openMemoryService(cfg, { strict: true })),
    );
    try {
      await Promise.all(
        Array.from(
          { length: 50 },
          (_, i) => services[i % services.length].create({ content: `concurrent note ${i}` }),
        ),
      );
      const rows = await adminSql(
        pg!,
        "select (select count(*) from mneme_migrations)::int as m, (select count(*) from mneme_meta)::int as meta, (select count(*) from memories)::int as n, (select count(distinct content) from memories)::int as d",
        name,
      );
      assert.deepEqual(rows[0], { m: MIGRATIONS.length, meta: 1, n: 50, d: 50 });
    } finally {
      await Promise.all(services.map((s) => s.close()));
    }
  },
);

serverTest(
  "the search call stays prepared on its connection, and survives the function being replaced",
  async () => {
    const { name, url } = await freshDb();
    // One connection, so that the session the search ran on is the one asked.
    const service = await openMemoryService(testConfig({ databaseUrl: url }), {
      maxConnections: 1,
    });
    try {
      await service.create({ content: "the deploy script needs json logs" });
      const find = async () =>
        (await service.search({ query: "deploy script logs" })).map((r) => r.memory.content);
      assert.deepEqual(await find(), ["the deploy script needs json logs"]);
      const preparedCalls = async () => {
        const rows = await storeOf(service).db.query<{ statement: string }>(
          "select statement from pg_prepared_statements",
        );
        return rows.filter((p) => p.statement.includes("mneme_search_dense(")).length;
      };
      assert.equal(await preparedCalls(), 1);
      // A later version replacing the function (another process, another connection) while
      // this connection keeps the prepared call: the next search still answers, prepared.
      const [{ def }] = await adminSql(
        pg!,
        "select pg_get_functiondef('mneme_search_dense'::regproc) as def",
        name,
      );
      await adminSql(pg!, "drop function mneme_search_dense", name);
      await adminSql(pg!, String(def), name);
      assert.deepEqual(await find(), ["the deploy script needs json logs"]);
      assert.equal(await preparedCalls(), 1);
      // One whose result has another column: the prepared call's result type changed, and
      // the driver prepares it again and binds the values it serialised once more (with its
      // own boolean serialiser, true became false and the search answered nothing).
      const wider = String(def)
        .replace("dense_rank integer)", "dense_rank integer, extra integer)")
        .replace(
          "x.in_hybrid, x.dense_similarity, x.dense_rank\n",
          "x.in_hybrid, x.dense_similarity, x.dense_rank, 0\n",
        );
      assert.equal((wider.match(/extra integer|x\.dense_rank, 0\n/g) ?? []).length, 2);
      await adminSql(pg!, "drop function mneme_search_dense", name);
      await adminSql(pg!, wider, name);
      assert.deepEqual(await find(), ["the deploy script needs json logs"]);
      // The driver prepares it under a new name and leaves the old one to the session's end.
      assert.equal(await preparedCalls(), 2);
      assert.deepEqual(await find(), ["the deploy script needs json logs"]);
      assert.equal(await preparedCalls(), 2);
    } finally {
      await service.close();
    }
  },
);

function text(r: CallToolResult): string {
  return r.content.map((c: CallToolResult["content"][number]) => c.type === "text" ? c.text : "")
    .join("\n");
}

serverTest(
  "the MCP server in direct mode: remember, project-scoped recall, rows in the table",
  async () => {
    const { name, url } = await freshDb();
    const parent = await tempDir();
    const env: Record<string, string> = {
      NO_COLOR: "1",
      EMBEDDING_PROVIDER: "builtin",
      DATABASE_URL: url,
      DATA_DIR: `${parent.path}/never-created`,
    };
    for (const k of ["DENO_DIR", "XDG_CACHE_HOME", "HOME"]) {
      const v = Deno.env.get(k);
      if (v) env[k] = v;
    }
    const [command, ...args] = mcpServerCommand(env);
    const transport = new StdioClientTransport({
      command,
      args,
      env,
      stderr: "pipe",
    });
    let err = "";
    transport.stderr?.on("data", (c: Uint8Array) => (err += new TextDecoder().decode(c)));
    const client = new Client({ name: "pgserver-test", version: "0.0.0" });
    try {
      await client.connect(transport);
      const call = async (tool: string, args: Record<string, unknown>) => {
        const r = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
        assert.notEqual(r.isError, true, `${tool}: ${text(r)}\n${err}`);
        return r.structuredContent as Record<string, unknown>;
      };
      // Enough rows in other projects that a filtered search must look past them.
      for (let i = 0; i < 30; i++) {
        await call("remember", {
          content: `Other project note ${i} about deploys`,
          project: "other",
        });
      }
      const m = (await call("remember", {
        content: "The alpha service deploys with deno task deploy",
        project: "alpha",
        type: "decision",
      })).memory as Memory;
      const found = (await call("recall", { query: "alpha deploys", project: "alpha" }))
        .results as SearchResult[];
      assert.ok(found.some((r) => r.memory.id === m.id), JSON.stringify(found));
      assert.ok(found.every((r) => r.memory.project !== "other"), "scoped to alpha and global");
      assert.match(err, /backend: direct Postgres/);
      assert.equal(await count(name), 31);
    } finally {
      await client.close().catch(() => {});
      await parent.cleanup();
    }
  },
);

serverTest("two admin daemons share one database; the TTL cleanup runs once", async () => {
  const { name, url } = await freshDb();
  // Three memories that expired an hour ago, written before the daemons start.
  const past = new Date(Date.now() - 2 * 3_600_000);
  const old = await openMemoryService(testConfig({ databaseUrl: url }), { now: () => past });
  for (let i = 0; i < 3; i++) await old.create({ content: `expired ${i}`, ttl: "1h" });
  await old.close();

  const env = { DATABASE_URL: url };
  const [a, b] = await Promise.all([
    startAdminProcess({ env }),
    startAdminProcess({ env }),
  ]);
  try {
    const ca = new MemoryClient({ baseUrl: a.url });
    const cb = new MemoryClient({ baseUrl: b.url });
    const made = (await ca.create({ content: "Written through daemon A", project: "p" })).memory;
    assert.equal((await cb.get(made.id)).content, "Written through daemon A");
    const hits = await cb.search({ query: "daemon A", project: "p" });
    assert.equal(hits[0]?.memory.id, made.id);
    const viaB = (await cb.create({ content: "Written through daemon B" })).memory;
    assert.ok((await ca.list()).some((m) => m.id === viaB.id));

    // 50 concurrent clients on each daemon: all answered.
    const many = await Promise.all(
      Array.from(
        { length: 100 },
        (_, i) => (i % 2 ? ca : cb).create({ content: `burst ${i}`, project: "burst" }),
      ),
    );
    assert.equal(new Set(many.map((r) => r.memory.id)).size, 100);

    const deadline = Date.now() + 15_000;
    const lines = () =>
      (a.stderr() + b.stderr()).split("\n").filter((l) => /ttl cleanup: deleted/.test(l));
    while (lines().length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(lines(), ["ttl cleanup: deleted 3 expired memories"]);
    assert.equal(await count(name, "content like 'expired%'"), 0);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

localTest(
  "an outage is a 503 naming the database (API and MCP), and service resumes",
  async () => {
    const { name, url } = await freshDb();
    const service = await openMemoryService(testConfig({ databaseUrl: url }));
    const app = createAdminApp({ service, log: () => {} });
    const logs: string[] = [];
    const mcp = createMcpServer(service, { log: (l) => logs.push(l) });
    const [x, y] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "outage", version: "0.0.0" });
    await Promise.all([mcp.connect(x), client.connect(y)]);
    const post = (body: unknown) =>
      app.request("http://127.0.0.1:4200/api/memories", {
        method: "POST",
        headers: { "content-type": "application/json", host: "127.0.0.1:4200" },
        body: JSON.stringify(body),
      });
    try {
      assert.equal((await post({ content: "before the outage" })).status, 201);
      await pg!.stop();
      try {
        const res = await post({ content: "during the outage" });
        const body = await res.json();
        assert.equal(res.status, 503, JSON.stringify(body));
        assert.equal(res.headers.get("retry-after"), "5");
        assertNames(body.error, name);
        assert.match(body.error, /unavailable/);
        const r = (await client.callTool({
          name: "recall",
          arguments: { query: "outage" },
        })) as CallToolResult;
        assert.equal(r.isError, true);
        assertNames(text(r), name);
        assert.match(text(r), /unavailable/);
      } finally {
        await pg!.start();
      }
      const again = await post({ content: "after the outage" });
      assert.equal(again.status, 201, await again.text());
      const rows = await adminSql(pg!, "select content as c from memories", name);
      assert.deepEqual(rows.map((r) => String(r.c)).sort(), [
        "after the outage",
        "before the outage",
      ]);
    } finally {
      await client.close();
      await mcp.close();
      await service.close();
    }
  },
);

/** `msg` names database `db` and the server's (or `port`'s) address. */
function assertNames(msg: string, db: string, port = pg!.port) {
  assert.match(msg, new RegExp(`\\b${db}\\b`), `names the database: ${msg}`);
  assert.match(msg, new RegExp(`127\\.0\\.0\\.1:${port}\\b`), `names the server: ${msg}`);
}

/** The message `mneme admin` would print for a failed startup. */
async function startupMessage(url: string, embeddingDim = 64): Promise<string> {
  try {
    const s = await openMemoryService(testConfig({ databaseUrl: url, embeddingDim }));
    await s.close();
  } catch (err) {
    return describeError(err);
  }
  throw new Error(`startup on ${url} succeeded`);
}

serverTest(
  "wrong password, unknown database, refused port, unknown host: a hint each",
  async () => {
    const wrong = await startupMessage(
      urlFor(pg!, "postgres", { name: "postgres", password: "not-the-password" }),
    );
    assert.match(wrong, /password authentication failed/);
    assert.match(wrong, /check the .*password in DATABASE_URL/);
    assert.doesNotMatch(wrong, /not-the-password/, "the password is never shown");

    const nodb = await startupMessage(urlFor(pg!, "mneme_no_such_db"));
    assert.match(nodb, /does not exist.*createdb .*mneme_no_such_db/);

    const port = freePort();
    const refused = await startupMessage(`postgres://u:p@127.0.0.1:${port}/mneme`);
    assert.match(refused, /cannot connect to the database .*\(DATABASE_URL\)/);
    assert.match(refused, new RegExp(`127\\.0\\.0\\.1:${port}\\b`), refused);
    assert.match(refused, /running/);
    assert.equal(refused.split("ECONNREFUSED").length - 1, 1, `cause printed once: ${refused}`);

    const host = await startupMessage("postgres://u:p@mneme-no-such-host.invalid:5432/mneme");
    assert.match(host, /"mneme-no-such-host\.invalid"/);
    assert.match(host, /unknown host|does not resolve/);
    assert.match(host, /check the host/);
  },
);

serverTest("the admin daemon prints a refused connection's cause once", async () => {
  const port = freePort();
  const parent = await tempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}src/bin/admin.ts`],
    env: {
      DATABASE_URL: `postgres://u:p@127.0.0.1:${port}/mneme`,
      DATA_DIR: `${parent.path}/unused`,
      ADMIN_PORT: String(freePort()),
      EMBEDDING_PROVIDER: "builtin",
      NO_COLOR: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => parent.cleanup());
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 1);
  assert.equal(err.split("ECONNREFUSED").length - 1, 1, err);
  assert.equal(err.trim().split("\n").length, 1, err);
  assert.match(err, /running/);
});

serverTest(
  "a role that may not CREATE EXTENSION: the hint names a superuser and the line",
  async () => {
    const role = `mneme_app_${Date.now().toString(36)}`;
    const app = { name: role, password: "app-pw" };
    await adminSql(pg!, `create role ${role} login password 'app-pw'`);
    const { name } = await freshDb();
    // Roles are server-wide: dropped after the databases it owns (the list runs in order).
    dropAfter.push(() => adminSql(pg!, `drop role if exists ${role}`).then(() => {}));
    await adminSql(pg!, `alter database ${name} owner to ${role}`);
    const url = urlFor(pg!, name, app);
    const msg = await startupMessage(url);
    assert.match(msg, /permission denied to create extension "vector"/);
    assert.match(msg, /a superuser must run once/);
    assert.match(msg, new RegExp(`in database "?${name}"?.*: CREATE EXTENSION vector;`));
    assert.equal(await tableExists(name), false, "nothing created");
    // Once a superuser enabled it, the owner role needs nothing more.
    await adminSql(pg!, "create extension vector", name);
    const s = await openMemoryService(testConfig({ databaseUrl: url, embeddingDim: 64 }));
    try {
      await s.create({ content: "created by an ordinary role" });
    } finally {
      await s.close();
    }

    // A role that neither owns the database nor holds CREATE on schema public.
    const { name: other } = await freshDb();
    await adminSql(pg!, "create extension vector", other);
    const msg2 = await startupMessage(urlFor(pg!, other, app));
    assert.match(msg2, /permission denied for schema public/);
    assert.match(msg2, new RegExp(`GRANT CREATE ON SCHEMA public TO "?${role}"?`));
  },
);

serverTest("pgvector older than 0.8.0 is refused, naming the minimum version", async () => {
  const { name, url } = await freshDb();
  await adminSql(pg!, "create extension vector", name);
  // What `ALTER EXTENSION` would record for an old build, without building one.
  await adminSql(
    pg!,
    "update pg_extension set extversion = '0.7.4' where extname = 'vector'",
    name,
  );
  const msg = await startupMessage(url);
  assert.match(msg, /pgvector 0\.7\.4\b.*Mneme needs pgvector 0\.8 or newer/);
  assert.equal(await tableExists(name), false, "nothing created");
});

localTest("an IPv6 DATABASE_URL ([::1]) works, and really goes over IPv6", async () => {
  const { name, url: v4 } = await freshDb();
  const url = v4.replace("@127.0.0.1:", "@[::1]:");
  assert.match(url, /@\[::1\]:/);
  const s = await openMemoryService(testConfig({ databaseUrl: url, embeddingDim: 64 }));
  try {
    const m = (await s.create({ content: "reached over IPv6" })).memory;
    assert.equal((await s.search({ query: "IPv6" }))[0]?.memory.id, m.id);
    assert.equal(await count(name), 1);
    const [peer] = await storeOf(s).db.query<{ a: string }>("select inet_client_addr()::text as a");
    assert.equal(peer.a, "::1/128");
  } finally {
    await s.close();
  }
});

Deno.test({
  name: "server without pgvector (PGlite over the wire): the hint says to install it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await PGlite.create(); // no vector extension loaded
    const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
    await server.start();
    const port = Number(server.getServerConn().split(":").pop());
    try {
      const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
      const msg = await startupMessage(url);
      assert.match(msg, /extension "vector" is not available/);
      assert.match(msg, /pgvector is not installed on the server/);
    } finally {
      await server.stop();
      await db.close();
    }
  },
});

serverTest("the databases are dropped and the cluster stops when the tests end", async () => {
  for (const drop of dropAfter.splice(0)) await drop();
  await pg!.close();
  if (pg!.kind !== "local") return;
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port: pg!.port }));
});
