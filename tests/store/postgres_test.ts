/**
 * The server adapter (src/store/postgres.ts): DATABASE_URL parsing (IPv6 hosts), the
 * pgvector version rule, what counts as an outage, the pool size on a real server, and the
 * test cluster's own cleanup when the test process is killed.
 */
import assert from "node:assert/strict";
import { exists } from "../../src/common/fs.ts";
import { MemoryError } from "../../src/domain/errors.ts";
import {
  compareVersions,
  DEFAULT_POOL_SIZE,
  describeTarget,
  isOutage,
  MIN_PGVECTOR,
  openPostgres,
  parseDatabaseUrl,
  pgvectorTooOld,
} from "../../src/store/postgres.ts";
import { vectorLiteral } from "../../src/store/store.ts";
import { ROOT } from "../helpers.ts";
import { Clock, DIM, sqlService, TableEmbedder } from "../memory/fixtures.ts";
import { adminSql, freshDatabase, type RealServer, serverTest } from "../pgserver/cluster.ts";

Deno.test("parseDatabaseUrl: IPv6 host without brackets, port, decoded names", () => {
  const p = parseDatabaseUrl("postgres://app%40x:p%2Fw@[::1]:6543/my%20db?sslmode=disable");
  assert.deepEqual(p.target, { host: "::1", port: 6543, database: "my db", user: "app@x" });
  // postgres.js gets a URL it can read (its own parser misreads "[::1]") and host/port apart.
  const u = new URL(p.url);
  assert.equal(u.hostname, "localhost");
  assert.equal(u.port, "6543");
  assert.equal(u.search, "?sslmode=disable");
  assert.equal(u.password, "p%2Fw");
  assert.equal(describeTarget(p.target), "[::1]:6543/my db");
  const d = parseDatabaseUrl("postgresql://db.example.com/mneme").target;
  assert.deepEqual(d, { host: "db.example.com", port: 5432, database: "mneme", user: "postgres" });
});

Deno.test("pgvector versions: below 0.8.0 refused with the minimum named, numeric order", () => {
  assert.equal(MIN_PGVECTOR, "0.8");
  for (const v of ["0.7.4", "0.5.1", "0.7.99"]) {
    const msg = pgvectorTooOld(v, "h:5432/db");
    assert.ok(msg, v);
    assert.match(
      msg,
      new RegExp(`pgvector ${v.replaceAll(".", "\\.")} .*needs pgvector 0\\.8 or newer`),
    );
  }
  for (const v of ["0.8.0", "0.8.6", "0.10.0", "1.0"]) {
    assert.equal(pgvectorTooOld(v, "x"), null, v);
  }
  assert.ok(compareVersions("0.10.0", "0.9.9") > 0, "numeric, not string order");
});

Deno.test("isOutage: connection failures and shutdowns yes; SQL errors and MemoryErrors no", () => {
  const e = (code: string) => Object.assign(new Error(code), { code });
  for (const c of ["ECONNREFUSED", "CONNECTION_CLOSED", "CONNECT_TIMEOUT", "57P01", "57P03"]) {
    assert.equal(isOutage(e(c)), true, c);
  }
  for (const c of ["23505", "42P01", "28P01", "42501"]) assert.equal(isOutage(e(c)), false, c);
  assert.equal(isOutage(new MemoryError(503, "embedding failed")), false);
});

/** Distinct server backends that served `n` queries in flight at once. */
async function backendsUsed(url: string, n: number, max?: number): Promise<number> {
  const db = await openPostgres(url, max === undefined ? {} : { max });
  try {
    const rows = await Promise.all(
      Array.from(
        { length: n },
        () => db.query<{ pid: number }>("select pg_backend_pid() as pid, pg_sleep(0.3)"),
      ),
    );
    return new Set(rows.map(([r]) => r.pid)).size;
  } finally {
    await db.close();
  }
}

serverTest("pool: 10 connections by default, PGMAX overrides, an explicit max wins", async (pg) => {
  const d = await freshDatabase(pg);
  try {
    assert.equal(DEFAULT_POOL_SIZE, 10);
    assert.equal(await backendsUsed(d.url, 12), 10);
    Deno.env.set("PGMAX", "3");
    try {
      assert.equal(await backendsUsed(d.url, 12), 3);
      assert.equal(await backendsUsed(d.url, 3, 1), 1);
    } finally {
      Deno.env.delete("PGMAX");
    }
  } finally {
    await d.drop();
  }
});

serverTest("a SQL error is not an outage: it stays itself, not a 503", async (pg) => {
  const d = await freshDatabase(pg);
  const db = await openPostgres(d.url, { max: 1 });
  try {
    await assert.rejects(db.query("select * from no_such_table"), (err: unknown) => {
      assert.ok(!(err instanceof MemoryError), String(err));
      assert.match(String(err), /no_such_table/);
      return true;
    });
  } finally {
    await db.close();
    await d.drop();
  }
});

serverTest("the test cluster stops and is removed when its test process is killed", async (pg) => {
  if (pg.kind !== "local") return; // TEST_DATABASE_URL: nothing of ours to stop
  // The child waits on a timer: awaiting a promise that never settles leaves nothing pending,
  // and Deno ends such a process at once, sometimes before the kill below (which then threw
  // "Child process has already terminated" in a clean-clone CI run).
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `--lock=${ROOT}tests/deno.lock`, // it loads test modules: their lockfile, not deno.lock
      `const c = await import("${ROOT}tests/pgserver/cluster.ts");
       const s = c.SERVER;
       console.log(JSON.stringify({ port: s.port, dir: s.dir }));
       setInterval(() => {}, 60_000);`,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    line += value;
  }
  reader.releaseLock();
  const { port, dir } = JSON.parse(line) as { port: number; dir: string };
  (await Deno.connect({ hostname: "127.0.0.1", port })).close(); // it is up
  child.kill("SIGKILL");
  await child.status;
  await child.stdout.cancel().catch(() => {});
  const deadline = Date.now() + 30_000;
  let up = true;
  let present = true;
  while ((up || present) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    up = await Deno.connect({ hostname: "127.0.0.1", port }).then((c) => {
      c.close();
      return true;
    }, () => false);
    present = await exists(dir);
  }
  assert.equal(up, false, `the cluster on port ${port} still accepts connections`);
  assert.equal(present, false, `${dir} still exists`);
});

serverTest(
  "a URL without a host leaves it to postgres.js: PGHOST as a Unix socket directory",
  async (pg) => {
    if (pg.kind !== "local") return; // the socket directory is known for our own cluster only
    const saved = { PGHOST: Deno.env.get("PGHOST"), PGPORT: Deno.env.get("PGPORT") };
    Deno.env.set("PGHOST", pg.dir!);
    Deno.env.set("PGPORT", String(pg.port));
    try {
      const p = parseDatabaseUrl("postgres:///postgres?user=postgres");
      assert.equal(p.explicitHost, false);
      assert.deepEqual(p.target, {
        host: pg.dir,
        port: pg.port,
        database: "postgres",
        user: "postgres",
      });
      const db = await openPostgres("postgres:///postgres?user=postgres", { max: 1 });
      try {
        // A Unix-socket connection has no client address.
        const [r] = await db.query<{ a: string | null }>("select inet_client_addr()::text as a");
        assert.equal(r.a, null);
      } finally {
        await db.close();
      }
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
      }
    }
  },
);

/** A unit vector at cosine `c` to axis 0, the rest spread by a seeded generator. */
function nearAxis0(c: number, seed: number): number[] {
  let x = seed * 2654435761 % 4294967296;
  const rest = Array.from({ length: DIM - 1 }, () => {
    x = (x * 1664525 + 1013904223) % 4294967296;
    return x / 4294967296 - 0.5;
  });
  const norm = Math.hypot(...rest);
  return [c, ...rest.map((r) => r / norm * Math.sqrt(1 - c * c))];
}

/**
 * 3,000 memories of project "crowd" nearer to the query than the `needles` memories of project
 * "needle": the HNSW index's first candidates are all of the other project. Searches "needle"
 * for 10 with the service's settings (complete, all needles), then with iterative scans off
 * (what pgvector before 0.8.0 did) and returns how many that search found.
 */
async function needleSearch(pg: RealServer, needles: number): Promise<number> {
  const d = await freshDatabase(pg);
  const db = await openPostgres(d.url, { max: 1 });
  const embedder = new TableEmbedder();
  const s = await sqlService(db, embedder, new Clock());
  try {
    const items = [];
    for (let i = 0; i < 3000; i++) {
      embedder.set(`crowd ${i}`, nearAxis0(0.99, i + 1));
      items.push({ content: `crowd ${i}`, project: "crowd" });
    }
    for (let i = 0; i < needles; i++) {
      embedder.set(`needle ${i}`, nearAxis0(0.8, 10_000 + i));
      items.push({ content: `needle ${i}`, project: "needle" });
    }
    embedder.set("qq", nearAxis0(1, 1));
    await s.import(items);
    await db.exec("analyze memories");
    const found = await s.search({ query: "qq", project: "needle", limit: 10 });
    assert.equal(found.length, 10, found.map((r) => r.memory.content).join(", "));
    assert.ok(found.every((r) => r.memory.content.startsWith("needle")));
    await db.exec("set hnsw.iterative_scan = off");
    return (await s.search({ query: "qq", project: "needle", limit: 10 })).length;
  } finally {
    await s.close();
    await d.drop();
  }
}

serverTest(
  "a rare project's search among many closer memories: read exactly, complete",
  async (pg) => {
    // 10 of 3,010: read exactly since 0.13 (EXACT_SCOPE_MAX), the index walk not at all, so it
    // stays complete without iterative scans too (0.12 came up short there).
    const without = await needleSearch(pg, 10);
    assert.equal(without, 10, `without iterative scans: ${without} of 10`);
  },
);

serverTest(
  "a project too large to read exactly, among closer memories: complete through the HNSW index",
  async (pg) => {
    // 800 of 3,800: over a fifth of all (EXACT_SCOPE_SHARE), so its nearest neighbours come from
    // the HNSW index with the project as a filter; the service's iterative scans keep it
    // complete, and without them it comes up short.
    const without = await needleSearch(pg, 800);
    assert.ok(without < 10, `without iterative scans: ${without} of 10`);
  },
);

serverTest(
  "the service's connections plan no parallel query (a small scope's exact read is no Gather)",
  async (pg) => {
    const d = await freshDatabase(pg);
    // Parallel plans made as cheap as can be, so that the planner picks one wherever it may
    // (and allowed, whatever the server's own setting).
    await adminSql(
      pg,
      `alter database ${d.name} set parallel_setup_cost = 0;
       alter database ${d.name} set parallel_tuple_cost = 0;
       alter database ${d.name} set min_parallel_table_scan_size = 0;
       alter database ${d.name} set min_parallel_index_scan_size = 0;
       alter database ${d.name} set max_parallel_workers_per_gather = 2`,
    );
    const db = await openPostgres(d.url, { max: 1 });
    const embedder = new TableEmbedder();
    const s = await sqlService(db, embedder, new Clock());
    try {
      const items = [];
      for (let i = 0; i < 400; i++) {
        embedder.set(`crowd ${i}`, nearAxis0(0.9, i + 1));
        items.push({ content: `crowd ${i}`, project: "crowd" });
      }
      for (let i = 0; i < 20; i++) {
        embedder.set(`global ${i}`, nearAxis0(0.5, 1_000 + i));
        items.push({ content: `global ${i}`, scope: "global" as const });
      }
      await s.import(items);
      await db.exec("analyze memories");
      // The exact read of a small scope, as src/store/store.ts writes it.
      const explain = `explain select m.id from memories m where m.scope = 'global'
          order by (m.embedding <=> $1::text::vector) + 0 limit 5`;
      const q = vectorLiteral(nearAxis0(1, 1));
      const planOf = async (run: (text: string) => Promise<Record<string, unknown>[]>) =>
        (await run(explain)).map((r) => String(Object.values(r)[0])).join("\n");
      const ours = await db.transaction(async (tx) => {
        await tx.exec("set local enable_seqscan = off");
        return await planOf((text) => tx.query(text, [q]));
      });
      assert.doesNotMatch(ours, /Gather/, ours);
      // The same statement on a connection with the server's defaults is planned in parallel:
      // without the service's setting, the assertion above fails.
      const { default: postgres } = await import("postgres");
      const sql = postgres(d.url, { max: 1, onnotice: () => {} });
      let theirs: string;
      try {
        theirs = await sql.begin(async (tx) => {
          await tx.unsafe("set local enable_seqscan = off");
          return await planOf(async (text) => [...await tx.unsafe(text, [q])]);
        }) as string;
      } finally {
        await sql.end({ timeout: 2 });
      }
      assert.match(theirs, /Gather/, theirs);
      // The search function sets it itself, for a connection that did not (a pooler's).
      const [fn] = await db.query<{ config: string[] }>(
        "select proconfig as config from pg_proc where proname = 'mneme_search_scoped'",
      );
      assert.ok(fn.config.includes("max_parallel_workers_per_gather=0"), String(fn.config));
      // And the one a search with the dense leg calls (its dense reads' plans beside it).
      const [dense] = await db.query<{ config: string[] }>(
        "select proconfig as config from pg_proc where proname = 'mneme_search_dense'",
      );
      assert.ok(dense.config.includes("max_parallel_workers_per_gather=0"), String(dense.config));
    } finally {
      await s.close();
      await d.drop();
    }
  },
);
