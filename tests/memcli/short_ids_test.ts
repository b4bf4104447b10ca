/**
 * Short ids: the list filter `id_prefix` on the service and the Admin API, and every memcli
 * command that takes an id accepting a unique prefix of 6+ hex digits (as the web UI shows
 * it), listing the matches of an ambiguous one and naming the argument or flag of an unknown
 * one. Two memories are given ids that share a prefix (rewritten in the database before the
 * daemon opens it), so that the ambiguity is real.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryClient } from "../../src/memory/client.ts";
import { openMemoryService } from "../../src/memory/open.ts";
import { startAdminProcess, tempDir, testConfig } from "../helpers.ts";
import { memcli } from "./_util.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

const A = "abcdef01-0000-4000-8000-000000000001";
const B = "abcdef02-0000-4000-8000-000000000002";

/** A data folder with three memories, two of them with ids starting `abcdef0`. */
async function seeded(dataDir: string): Promise<string> {
  const service = await openMemoryService(testConfig({ dataDir }));
  try {
    const ids: string[] = [];
    for (const content of ["alpha short id memory", "beta short id memory", "gamma other one"]) {
      ids.push((await service.create({ content, scope: "global" })).memory.id);
    }
    const db = storeOf(service).db;
    await db.query("set session_replication_role = replica");
    for (const [from, to] of [[ids[0], A], [ids[1], B]]) {
      await db.query("update memories set id = $2 where id = $1", [from, to]);
      await db.query("update memory_nums set id = $2 where id = $1", [from, to]);
    }
    await db.query("set session_replication_role = origin");
    return ids[2];
  } finally {
    await service.close();
  }
}

Deno.test("short ids: unique, ambiguous and unknown prefixes on every path", async () => {
  const dir = await tempDir("mneme-shortid-");
  const dataDir = join(dir.path, "data");
  const third = await seeded(dataDir);
  const admin = await startAdminProcess({ dataDir, keepData: true });
  const env = { MEMORY_API_URL: admin.url, DATA_DIR: join(dir.path, "memcli") };
  const run = (args: string[]) => memcli(args, { env, cwd: dir.path });
  try {
    // The API: the filter, validated and named.
    const client = new MemoryClient({ baseUrl: admin.url });
    assert.deepEqual((await client.list({ id_prefix: "abcdef" })).map((m) => m.id).sort(), [A, B]);
    assert.deepEqual((await client.list({ id_prefix: "ABCDEF02" })).map((m) => m.id), [B]);
    assert.deepEqual((await client.list({ id_prefix: "abcdef01-0000" })).map((m) => m.id), [A]);
    assert.deepEqual(await client.list({ id_prefix: "fedcba" }), []);
    for (const bad of ["abcde", "abcdeg", "a".repeat(33)]) {
      await assert.rejects(client.list({ id_prefix: bad }), /id_prefix: must be 6 to 32 hex/);
    }
    const raw = await fetch(`${admin.url}/api/memories?id_prefix=xyz`);
    assert.equal(raw.status, 400);
    assert.match(JSON.stringify(await raw.json()), /id_prefix/);

    // memcli: a unique prefix works wherever an id is taken.
    const g = await run(["get", third.slice(0, 8)]);
    assert.equal(g.code, 0, g.err);
    assert.match(g.out, new RegExp(`^id: +${third}$`, "m"));
    const u = await run(["update", "abcdef01", "alpha short id memory, updated"]);
    assert.equal(u.code, 0, u.err);
    assert.match(u.out, new RegExp(`^Updated ${A} `));
    const r = await run(["replace", "abcdef02", "beta, replaced by its short id"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`^Replaced ${B} with `));
    assert.equal((await client.get(B)).superseded_by !== null, true);
    const s = await run([
      "add",
      "delta supersedes gamma",
      "--global",
      "--supersedes",
      third.slice(0, 6),
    ]);
    assert.equal(s.code, 0, s.err);
    assert.match(s.out, new RegExp(`It supersedes ${third}`));

    // Ambiguous: the matches listed, nothing changed.
    const amb = await run(["get", "abcdef"]);
    assert.equal(amb.code, 1);
    assert.match(amb.err, /ID: 'abcdef' matches 2 memories; give more of the id:/);
    assert.match(amb.err, new RegExp(`^  ${A}  global  alpha short id memory, updated$`, "m"));
    assert.match(amb.err, new RegExp(`^  ${B}  global  beta short id memory$`, "m"));
    const ambForget = await run(["forget", "abcdef", "--yes"]);
    assert.equal(ambForget.code, 1);
    assert.ok(await client.get(A));
    // Unknown: named by its argument or flag.
    const unknown = await run(["forget", "fedcba98"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /ID: no memory id starts with 'fedcba98'/);
    const flag = await run(["add", "x", "--global", "--supersedes", "fedcba"]);
    assert.equal(flag.code, 1);
    assert.match(flag.err, /--supersedes: no memory id starts with 'fedcba'/);
    // Too short or not hex: refused before any request.
    const short = await run(["get", "abcde"]);
    assert.equal(short.code, 1);
    assert.match(short.err, /ID: 'abcde' is not a memory id \(a UUID, or its first 6 or more hex/);
    const f = await run(["forget", "abcdef01"]);
    assert.equal(f.code, 0, f.err);
    assert.match(f.out, new RegExp(`^Forgot ${A}\\.$`, "m"));
    // A superseded memory is left out of search, as recall leaves it out.
    const old = (await client.create({ content: "The nightly job runs at 02:00", project: "p" }))
      .memory;
    const by = await client.create({ content: "Cron moved", project: "p", supersedes: old.id });
    const sr = await run(["search", "The nightly job runs at 02:00", "--project", "p"]);
    assert.equal(sr.code, 0, sr.err);
    assert.ok(!sr.out.includes(old.id), sr.out);
    assert.ok(by.memory.id);
  } finally {
    await admin.stop();
    await dir.cleanup();
  }
});
