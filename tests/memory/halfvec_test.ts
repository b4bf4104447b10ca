/**
 * Databases made before 0.8 store 4-byte `vector`s: opened by this version, they come out with
 * `halfvec` vectors and a halfvec HNSW index, every memory there once with a vector equal to its
 * old one within half precision, searchable; a second start has nothing to do; a kill during
 * the conversion (a real SIGKILL of the process converting) leaves a database that the next
 * start converts completely. New databases are halfvec from the start.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openMemoryService } from "../../src/memory/open.ts";
import { columnType } from "../../src/store/migrate.ts";
import type { Db } from "../../src/store/db.ts";
import { assertSameVectors, makeV07, vectors } from "./v07.ts";
import { openPglite } from "../../src/store/pglite.ts";
import { ROOT, tempDir, testConfig } from "../helpers.ts";

const DIM = 48;

async function hnswDefs(db: Db): Promise<string[]> {
  return (await db.query<{ def: string }>(
    "select indexdef as def from pg_indexes where tablename = 'memories' and indexdef like '%hnsw%'",
  )).map((r) => r.def);
}

const contents = (n: number) =>
  Array.from({ length: n }, (_, i) => `Note ${i}: the nightly build ${i} runs on host ${i % 17}`)
    .concat(["Deploys run on Fridays after the zygomorphic review"]);

Deno.test("a new database stores halfvec vectors with a halfvec HNSW index", async () => {
  const tmp = await tempDir();
  try {
    const s = await openMemoryService(testConfig({ dataDir: tmp.path, embeddingDim: DIM }));
    try {
      assert.equal(await columnType(s.store.db), "halfvec");
      const defs = await hnswDefs(s.store.db);
      assert.ok(defs.length === 1 && /halfvec_cosine_ops/.test(defs[0]), defs.join("\n"));
    } finally {
      await s.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("a 0.7.0 database (vector column) is converted to halfvec at start: nothing lost", async () => {
  const tmp = await tempDir();
  try {
    const cfg = testConfig({ dataDir: tmp.path, embeddingDim: DIM });
    const s0 = await openMemoryService(cfg);
    await s0.import(
      contents(1200).map((content) => ({ content, scope: "project", project: "web" })),
    );
    await s0.close();
    const db0 = await openPglite(join(tmp.path, "db"));
    await makeV07(db0, DIM);
    const before = await vectors(db0);
    await db0.close();

    const lines: string[] = [];
    const s = await openMemoryService(cfg, { log: (l) => lines.push(l) });
    try {
      assert.ok(lines.some((l) => /vectors stored as halfvec, done/.test(l)), lines.join("\n"));
      assert.equal(await columnType(s.store.db), "halfvec");
      const defs = await hnswDefs(s.store.db);
      assert.ok(defs.length === 1 && /halfvec_cosine_ops/.test(defs[0]), defs.join("\n"));
      assertSameVectors(before, await vectors(s.store.db));
      const [hit] = await s.search({ query: "when do deploys run", project: "web" });
      assert.equal(hit.memory.content, "Deploys run on Fridays after the zygomorphic review");
      // The index answers the nearest-neighbour side.
      const plan = await s.store.db.query<{ "QUERY PLAN": string }>(
        `explain select id from memories order by embedding <=> $1::text::vector limit 5`,
        [JSON.stringify(before.values().next().value)],
      );
      assert.match(plan.map((r) => r["QUERY PLAN"]).join("\n"), /memories_embedding_hnsw/);
      await s.create({ content: "Written after the conversion", scope: "project", project: "web" });
    } finally {
      await s.close();
    }
    const again: string[] = [];
    const s2 = await openMemoryService(cfg, { log: (l) => again.push(l) });
    await s2.close();
    assert.deepEqual(again, [], "a second start has nothing to do");
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("a conversion killed half-way (SIGKILL) is done completely by the next start", async () => {
  const tmp = await tempDir();
  try {
    const cfg = testConfig({ dataDir: tmp.path, embeddingDim: DIM });
    const s0 = await openMemoryService(cfg);
    await s0.import(contents(3000).map((content) => ({ content })));
    await s0.close();
    const db0 = await openPglite(join(tmp.path, "db"));
    await makeV07(db0, DIM);
    const before = await vectors(db0);
    await db0.close();

    // A process that starts the service and is killed once the conversion has begun.
    const script = `
      import { openMemoryService } from "${ROOT}/src/memory/open.ts";
      import { testConfig } from "${ROOT}/tests/helpers.ts";
      await openMemoryService(testConfig({ dataDir: ${
      JSON.stringify(tmp.path)
    }, embeddingDim: ${DIM} }), {
        log: (l) => console.log(l),
      });
      console.log("opened");
      await new Promise(() => {});
    `;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--lock=tests/deno.lock", script],
      cwd: ROOT,
      stdout: "piped",
      stderr: "null",
    }).spawn();
    assert.ok(child.pid > 0);
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!/storing the vectors as halfvec/.test(out)) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    assert.match(out, /storing the vectors as halfvec/);
    await new Promise((r) => setTimeout(r, 150));
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel().catch(() => {});

    const lines: string[] = [];
    const s = await openMemoryService(cfg, { log: (l) => lines.push(l) });
    try {
      assert.equal(await columnType(s.store.db), "halfvec");
      assertSameVectors(before, await vectors(s.store.db));
      const defs = await hnswDefs(s.store.db);
      assert.ok(defs.length === 1 && /halfvec_cosine_ops/.test(defs[0]), defs.join("\n"));
    } finally {
      await s.close();
    }
  } finally {
    await tmp.cleanup();
  }
});
