/**
 * Vector storage on the embedded database: 4-byte `vector`s (server Postgres converts to
 * halfvec: tests/pgserver/halfvec_test.ts). A database with builtin vectors of an earlier
 * default dimension (768: a 0.7.0 database; 384: one of 0.8 or 0.9) is re-embedded at the
 * default at start, resumably, every memory there once, searchable, and the old vectors' space
 * returned (the table rewritten); `EMBEDDING_DIM` set to the old dimension keeps them; `auto`
 * moves only those recorded dimensions.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openMemoryService } from "../../src/memory/open.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { columnDimension, columnType, recordedEmbedder } from "../../src/store/migrate.ts";
import { DEFAULT_EMBEDDING_DIM, LEGACY_EMBEDDING_DIMS } from "../../src/config.ts";
import { selectEmbedder } from "../../src/embed/select.ts";
import type { Db } from "../../src/store/db.ts";
import { makeV07, vectors } from "./v07.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { tempDir, testConfig } from "../helpers.ts";
import { importsSettled, storeOf } from "../../src/memory/diagnostics.ts";

const DIM = 48;

async function hnswDefs(db: Db): Promise<string[]> {
  return (await db.query<{ def: string }>(
    "select indexdef as def from pg_indexes where tablename = 'memories' and indexdef like '%hnsw%' and indexname <> 'memories_dense_hnsw'",
  )).map((r) => r.def);
}

/** `memories` with its TOAST table and indexes, in bytes. */
async function tableSize(db: Db): Promise<number> {
  const [r] = await db.query<{ n: number }>(
    "select pg_total_relation_size('memories')::float8 as n",
  );
  return Number(r.n);
}

const contents = (n: number) =>
  Array.from({ length: n }, (_, i) => `Note ${i}: the nightly build ${i} runs on host ${i % 17}`)
    .concat(["Deploys run on Fridays after the zygomorphic review"]);

/**
 * The state after a complete re-embedding at the default: every memory of `ids` once with its
 * content, a vector of the default dimension each, the HNSW index on it, searchable.
 */
async function assertUpgraded(
  s: SqlMemoryService,
  ids: string[],
  written: string[],
): Promise<void> {
  assert.equal(s.maintenanceReason, null);
  assert.deepEqual(await recordedEmbedder(storeOf(s).db), {
    provider: "builtin",
    model: "hash-v2",
    dimension: DEFAULT_EMBEDDING_DIM,
  });
  assert.equal(await columnType(storeOf(s).db), "vector");
  assert.equal(await columnDimension(storeOf(s).db), DEFAULT_EMBEDDING_DIM);
  const defs = await hnswDefs(storeOf(s).db);
  assert.ok(defs.length === 1 && /vector_cosine_ops/.test(defs[0]), defs.join("\n"));
  const rows = await storeOf(s).db.query<{ id: string; content: string; n: number }>(
    "select id, content, vector_dims(embedding) as n from memories",
  );
  assert.deepEqual(rows.map((r) => r.id).sort(), ids, "nothing lost or doubled");
  assert.deepEqual(rows.map((r) => r.content).sort(), [...written].sort());
  assert.ok(rows.every((r) => r.n === DEFAULT_EMBEDDING_DIM));
  const [hit] = await s.search({ query: "when do deploys run", project: "web" });
  assert.equal(hit.memory.content, "Deploys run on Fridays after the zygomorphic review");
}

Deno.test("the embedded database stores 4-byte vectors (halfvec is slow in WASM)", async () => {
  const tmp = await tempDir();
  try {
    const s = await openMemoryService(testConfig({ dataDir: tmp.path, embeddingDim: DIM }));
    try {
      assert.equal(await columnType(storeOf(s).db), "vector");
      const defs = await hnswDefs(storeOf(s).db);
      assert.ok(defs.length === 1 && /vector_cosine_ops/.test(defs[0]), defs.join("\n"));
      assert.equal(await storeOf(s).vectorsToConvert(), false);
    } finally {
      await s.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("builtin vectors of the 0.7 default (768) are re-embedded at the default at start", async () => {
  const tmp = await tempDir();
  try {
    const old = testConfig({ dataDir: tmp.path, embeddingDim: 768 });
    const s0 = await openMemoryService(old);
    const written = contents(700);
    await s0.import(written.map((content) => ({ content, scope: "project", project: "web" })));
    await s0.close();
    const db0 = await openPglite(join(tmp.path, "db"));
    await makeV07(db0, 768);
    const ids = [...(await vectors(db0)).keys()].sort();
    const sizeBefore = await tableSize(db0);
    await db0.close();

    const lines: string[] = [];
    const s = await openMemoryService(testConfig({ dataDir: tmp.path }), {
      log: (l) => lines.push(l),
    });
    try {
      assert.ok(lines.some((l) => /re-embedded 701\/701, done/.test(l)), lines.join("\n"));
      assert.ok(
        !lines.some((l) => /halfvec/.test(l)),
        "nothing converted on the embedded database",
      );
      const sizeAfter = await tableSize(storeOf(s).db);
      assert.ok(sizeAfter < sizeBefore * 0.75, `memories: ${sizeBefore} → ${sizeAfter} bytes`);
      await assertUpgraded(s, ids, written);
    } finally {
      await s.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("builtin vectors of the 0.9 default (384) are re-embedded at the default at start, resumably", async () => {
  assert.notEqual(DEFAULT_EMBEDDING_DIM, 384);
  const tmp = await tempDir();
  try {
    const old = testConfig({ dataDir: tmp.path, embeddingDim: 384 });
    const s0 = await openMemoryService(old);
    const written = contents(1200);
    await s0.import(written.map((content) => ({ content, scope: "project", project: "web" })));
    // The import into an empty store deferred its indexes to the end of its series: built
    // (and analyzed) before the size is compared.
    await importsSettled(s0);
    const ids = (await storeOf(s0).db.query<{ id: string }>("select id from memories"))
      .map((r) => r.id).sort();
    const sizeBefore = await tableSize(storeOf(s0).db);
    await s0.close();
    assert.equal(ids.length, written.length);

    // EMBEDDING_DIM=384 set explicitly keeps them.
    const kept = await openMemoryService(old);
    try {
      assert.equal(kept.maintenanceReason, null);
      assert.equal(await columnDimension(storeOf(kept).db), 384);
    } finally {
      await kept.close();
    }

    // A start stopped after the first batch (the log line throws, as a kill would stop it).
    await assert.rejects(
      openMemoryService(testConfig({ dataDir: tmp.path }), {
        log: (l) => {
          if (/re-embedded \d+\/1201/.test(l)) throw new Error("stopped");
        },
      }),
      /stopped/,
    );
    // Kept at 384 after all: the old vectors' index (dropped for the run) is there again.
    const back = await openMemoryService(old);
    try {
      assert.equal(back.maintenanceReason, null);
      const defs = await hnswDefs(storeOf(back).db);
      assert.ok(
        defs.some((d) => /memories_embedding_hnsw .*\(embedding vector_cosine_ops\)/.test(d)),
        defs.join("\n"),
      );
      const [hit] = await back.search({ query: "when do deploys run", project: "web" });
      assert.equal(hit.memory.content, "Deploys run on Fridays after the zygomorphic review");
    } finally {
      await back.close();
    }
    const lines: string[] = [];
    const s = await openMemoryService(testConfig({ dataDir: tmp.path }), {
      log: (l) => lines.push(l),
    });
    try {
      assert.ok(lines.some((l) => /re-embedded 1201\/1201, done/.test(l)), lines.join("\n"));
      assert.ok(!lines.some((l) => /re-embedded 500\/1201/.test(l)), "went on where it stopped");
      const sizeAfter = await tableSize(storeOf(s).db);
      assert.ok(sizeAfter < sizeBefore, `memories: ${sizeBefore} → ${sizeAfter} bytes`);
      await assertUpgraded(s, ids, written);
    } finally {
      await s.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("auto keeps a recorded builtin dimension, except the earlier defaults", async () => {
  const cfg = testConfig({ embeddingProvider: "auto", ollamaUrl: "http://127.0.0.1:9" });
  const at = async (dimension: number) =>
    (await selectEmbedder(cfg, { provider: "builtin", model: "hash-v2", dimension })).info
      .dimension;
  assert.deepEqual(LEGACY_EMBEDDING_DIMS, [768, 384]);
  for (const d of LEGACY_EMBEDDING_DIMS) assert.equal(await at(d), DEFAULT_EMBEDDING_DIM);
  assert.equal(await at(1024), 1024);
  assert.equal(await at(64), 64);
});
