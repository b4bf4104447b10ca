/**
 * Databases as 0.7.0 left them (4-byte `vector` column, HNSW over vector_cosine_ops), made from
 * one written by this version, for the upgrade tests (tests/memory/halfvec_test.ts and
 * tests/pgserver/halfvec_test.ts).
 * @module
 */
import assert from "node:assert/strict";
import { columnType } from "../../src/store/migrate.ts";
import type { Db } from "../../src/store/db.ts";

/**
 * Turn a database written by this version into what 0.7.0 left: `embedding vector(dim)` with
 * its HNSW index over vector_cosine_ops (migrations up to 0012 are the same).
 */
export async function makeV07(db: Db, dim: number): Promise<void> {
  const indexes = await db.query<{ name: string; def: string }>(
    `select indexname as name, indexdef as def from pg_indexes
      where tablename = 'memories' and indexdef like '%hnsw%'`,
  );
  assert.ok(indexes.length >= 1);
  for (const i of indexes) await db.exec(`drop index ${i.name}`);
  await db.exec(`alter table memories alter column embedding type vector(${dim})`);
  for (const i of indexes) {
    await db.exec(i.def.replace("halfvec_cosine_ops", "vector_cosine_ops"));
  }
  assert.equal(await columnType(db), "vector");
}

/** The memories' ids and vectors (as float arrays), by id. */
export async function vectors(db: Db): Promise<Map<string, number[]>> {
  const rows = await db.query<{ id: string; v: string }>(
    "select id, embedding::vector::text as v from memories",
  );
  return new Map(rows.map((r) => [r.id, JSON.parse(r.v) as number[]]));
}

/** Every vector of `after` within half precision of the one of `before`, same ids. */
export function assertSameVectors(before: Map<string, number[]>, after: Map<string, number[]>) {
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), "same memories");
  for (const [id, v] of before) {
    const w = after.get(id)!;
    assert.equal(w.length, v.length);
    for (let i = 0; i < v.length; i++) assert.ok(Math.abs(v[i] - w[i]) < 1e-3, `${id}[${i}]`);
  }
}
