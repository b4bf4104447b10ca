/**
 * An import's chunks send their vectors to the embedded database in binary, one `real[]` a
 * chunk (Store.stageImport, float4ArrayBinary), not as text, the dense ones too (a second
 * `real[]`, rowsPayloadDense): the vectors stored are exactly those the text form (a create,
 * or the server's import) stores.
 */
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";
import { float4ArrayBinary, type NewRow, vectorLiteral } from "../../src/store/store.ts";
import { pgliteService, postgresService } from "../helpers.ts";
import { newRow } from "../memory/fixtures.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

const DIM = 32;

/** Floats that test the rounding: signs, zeros, halves, tiny and large ones, random ones. */
function vectors(n: number): number[][] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const edges = [
    0,
    -0,
    -1e-7,
    4.9e-7,
    -5e-7,
    5.00001e-7,
    0.5,
    -0.5,
    1,
    -1,
    0.1234565,
    0.0000015,
    1 / 3,
    -2 / 3,
    0.999999949,
    3.4e3,
    -123.4567891,
    Math.PI / 10,
  ];
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: DIM }, (_, d) => {
      if (i === 0) return edges[d % edges.length];
      const x = random() * 2 - 1;
      return d % 4 === 0 ? x : d % 4 === 1 ? x / 1000 : d % 4 === 2 ? x * 1e-5 : x * 7;
    }));
}

function rowOf(i: number, embedding: number[]): NewRow {
  return newRow(`vector row ${i}`, embedding, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
}

/** Each stored vector's text against the text form's vector parsed by the same database. */
async function assertStoredAsText(db: Db, vs: number[][]): Promise<void> {
  const stored = await db.query<{ content: string; v: string }>(
    "select content, embedding::text as v from memories order by created_at",
  );
  assert.equal(stored.length, vs.length);
  // The column's type: vector on the embedded database, halfvec on a server.
  const [{ type }] = await db.query<{ type: string }>(
    `select format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = 'memories'::regclass and attname = 'embedding'`,
  );
  for (const [i, v] of vs.entries()) {
    const [{ t }] = await db.query<{ t: string }>(`select $1::text::${type}::text as t`, [
      vectorLiteral(v),
    ]);
    assert.equal(stored[i].content, `vector row ${i}`);
    assert.equal(stored[i].v, t, `row ${i}`);
  }
}

for (
  const [name, open] of [["embedded", pgliteService], ["server", postgresService]] as const
) {
  Deno.test(`an import stores exactly the vectors of their text form (${name} database)`, async () => {
    const { service, db, close } = await open({ embeddingDim: DIM });
    try {
      const store = storeOf(service);
      const vs = vectors(450);
      const job = await store.beginImport(vs.length);
      // Chunks of different sizes: a row's slice of the chunk's array is found by its index.
      const rows = vs.map((v, i) => rowOf(i, v));
      for (const [a, b] of [[0, 1], [1, 200], [200, 450]]) {
        assert.ok(await store.stageImport(job, rows.slice(a, b)));
      }
      assert.ok(await store.publishImport(job));
      await assertStoredAsText(db, vs);
    } finally {
      await close();
    }
  });
}

/** Each stored dense vector's text against the text form's, parsed by the same database. */
async function assertDenseAsText(db: Db, dense: (Float32Array | null)[]): Promise<void> {
  const stored = await db.query<{ content: string; d: string | null }>(
    "select content, dense::text as d from memories order by created_at",
  );
  assert.equal(stored.length, dense.length);
  for (const [i, d] of dense.entries()) {
    assert.equal(stored[i].content, `vector row ${i}`);
    if (d === null) {
      assert.equal(stored[i].d, null, `row ${i}`);
      continue;
    }
    const [{ t }] = await db.query<{ t: string }>("select $1::text::vector(100)::text as t", [
      vectorLiteral(d),
    ]);
    assert.equal(stored[i].d, t, `row ${i}`);
  }
}

/** 100 floats a row (the dense column's), every third row without one. */
function denseVectors(n: number): (Float32Array | null)[] {
  const wide = vectors(n * 4);
  return Array.from(
    { length: n },
    (_, i) =>
      i % 3 === 1 ? null : new Float32Array(wide.slice(i * 4, i * 4 + 4).flat().slice(0, 100)),
  );
}

for (
  const [name, open] of [["embedded", pgliteService], ["server", postgresService]] as const
) {
  Deno.test(`an import stores exactly the dense vectors of their text form, and none where a row has none (${name} database)`, async () => {
    const { service, db, close } = await open({ embeddingDim: DIM });
    try {
      const store = storeOf(service);
      const dense = denseVectors(450);
      const vs = vectors(450);
      const job = await store.beginImport(vs.length);
      const rows = vs.map((v, i) => ({ ...rowOf(i, v), dense: dense[i] }));
      // Chunks of different sizes, one without any dense vector.
      for (const [a, b] of [[1, 2], [0, 1], [2, 200], [200, 450]]) {
        assert.ok(await store.stageImport(job, rows.slice(a, b)));
      }
      assert.ok(await store.publishImport(job));
      await assertDenseAsText(db, dense);
    } finally {
      await close();
    }
  });
}

for (
  const [name, open] of [["embedded", pgliteService], ["server", postgresService]] as const
) {
  Deno.test(`an insert and a create store exactly the dense vectors of their text form (${name} database)`, async () => {
    const { service, db, close } = await open({ embeddingDim: DIM });
    try {
      const store = storeOf(service);
      const dense = denseVectors(12);
      const rows = vectors(12).map((v, i) => ({ ...rowOf(i, v), dense: dense[i] }));
      await store.insert(rows.slice(0, 6));
      const embedder = (await store.recordedEmbedder())!;
      for (const r of rows.slice(6)) {
        assert.ok(await store.insertAfterNearest(r, embedder, { kind: "all" }, 5, r.createdAt));
      }
      await assertDenseAsText(db, dense);
    } finally {
      await close();
    }
  });
}

Deno.test("an import and the creates of the same memories store the same vectors", async () => {
  const items = Array.from({ length: 120 }, (_, i) => ({
    content: `the ${i % 7 ? "build" : "deploy"} step ${i} caches layer ${i % 11}`,
    type: "fact" as const,
  }));
  const read = async (db: Db) =>
    await db.query("select content, embedding::text as v from memories order by content");
  let imported: unknown[] = [];
  {
    const { service, db, close } = await pgliteService({ embeddingDim: DIM });
    try {
      assert.equal((await service.import(items)).imported, items.length);
      imported = await read(db);
    } finally {
      await close();
    }
  }
  const { service, db, close } = await pgliteService({ embeddingDim: DIM });
  try {
    for (const it of items) await service.create(it);
    assert.deepEqual(await read(db), imported);
  } finally {
    await close();
  }
});

Deno.test("the binary form of an import's vectors: its layout, and a vector of another dimension refused", () => {
  const bytes = float4ArrayBinary([[0.25, -0], [1.0000004, -2]], 2);
  const view = new DataView(bytes.buffer);
  assert.equal(bytes.length, 20 + 4 * 8);
  assert.deepEqual([0, 4, 8, 12, 16].map((at) => view.getInt32(at)), [1, 0, 700, 4, 1]);
  const floats = [0, 1, 2, 3].map((k) => view.getFloat32(20 + k * 8 + 4));
  assert.deepEqual(floats, [0.25, 0, 1, -2]);
  assert.ok(!Object.is(floats[1], -0), "-0 is written as 0, as in text");
  assert.ok([0, 1, 2, 3].every((k) => view.getInt32(20 + k * 8) === 4));
  assert.throws(
    () => float4ArrayBinary([[1, 2], [1, 2, 3]], 2),
    /embedding: row 1 has 3 dimensions, not 2/,
  );
});

for (
  const [name, open] of [["embedded", pgliteService], ["server", postgresService]] as const
) {
  Deno.test(`an insert and a create store exactly the vectors of their text form (${name} database)`, async () => {
    const { service, db, close } = await open({ embeddingDim: DIM });
    try {
      const store = storeOf(service);
      const vs = vectors(230);
      const rows = vs.map((v, i) => rowOf(i, v));
      // Store.insert goes by 200 rows a statement: a row's slice is found by its index in each.
      await store.insert(rows.slice(0, 220));
      // A create's insert, in one batch with its contradiction check.
      const embedder = (await store.recordedEmbedder())!;
      for (const r of rows.slice(220)) {
        assert.ok(await store.insertAfterNearest(r, embedder, { kind: "all" }, 5, r.createdAt));
      }
      await assertStoredAsText(db, vs);
    } finally {
      await close();
    }
  });
}
