/**
 * On a real PostgreSQL server with pgvector: a database made by 0.7.0 (`vector` column, HNSW
 * indexes over vector_cosine_ops) is converted online at the daemon's start, in batches, to
 * halfvec with both HNSW indexes rebuilt as halfvec; every memory comes out with its vector
 * (within half precision); a start stopped after one batch resumes, and searches work on the
 * old column meanwhile. Ignored, saying why, when no server can be had.
 */
import assert from "node:assert/strict";
import { openMemoryService } from "../../src/memory/open.ts";
import { columnType } from "../../src/store/migrate.ts";
import { testConfig } from "../helpers.ts";
import { assertSameVectors, makeV07, vectors } from "../memory/v07.ts";
import { freshDatabase, serverTest } from "./cluster.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

const DIM = 48;

serverTest("a 0.7.0 database on server Postgres is converted to halfvec online", async (pg) => {
  const d = await freshDatabase(pg);
  try {
    const cfg = testConfig({ databaseUrl: d.url, embeddingDim: DIM });
    const s0 = await openMemoryService(cfg);
    await s0.import(
      Array.from({ length: 1100 }, (_, i) => ({ content: `Server note ${i} about build ${i}` }))
        .concat([{ content: "Deploys run on Fridays after the zygomorphic review" }]),
    );
    await makeV07(storeOf(s0).db, DIM);
    const before = await vectors(storeOf(s0).db);
    await s0.close();

    // A start stopped after the first batch (as a killed daemon): searches still work.
    let batches = 0;
    await assert.rejects(
      openMemoryService(cfg, {
        log: (l) => {
          if (/converted \d+\/1101$/.test(l) && ++batches === 1) throw new Error("killed");
        },
      }),
      /killed/,
    );
    const strict = await openMemoryService(cfg, { strict: true });
    try {
      assert.equal(await columnType(storeOf(strict).db), "vector", "not swapped yet");
      const [hit] = await strict.search({ query: "when do deploys run" });
      assert.equal(hit.memory.content, "Deploys run on Fridays after the zygomorphic review");
    } finally {
      await strict.close();
    }

    const lines: string[] = [];
    const s = await openMemoryService(cfg, { log: (l) => lines.push(l) });
    try {
      assert.ok(lines.some((l) => /converted 1101\/1101, done/.test(l)), lines.join("\n"));
      assert.equal(await columnType(storeOf(s).db), "halfvec");
      assertSameVectors(before, await vectors(storeOf(s).db));
      const defs = (await storeOf(s).db.query<{ def: string }>(
        "select indexdef as def from pg_indexes where tablename = 'memories' and indexdef like '%hnsw%' and indexname <> 'memories_dense_hnsw'",
      )).map((r) => r.def);
      assert.equal(defs.length, 2, defs.join("\n"));
      for (const def of defs) assert.match(def, /embedding halfvec_cosine_ops/);
      const [hit] = await s.search({ query: "when do deploys run" });
      assert.equal(hit.memory.content, "Deploys run on Fridays after the zygomorphic review");
      assert.equal(s.maintenanceReason, null);
    } finally {
      await s.close();
    }
    const again: string[] = [];
    const s2 = await openMemoryService(cfg, { log: (l) => again.push(l) });
    await s2.close();
    assert.deepEqual(again, [], "a second start has nothing to do");
  } finally {
    await d.drop();
  }
});
