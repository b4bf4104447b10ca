/**
 * writeInChunks (src/memory/rows.ts): with `more`, the rows that do not fill a chunk are left
 * for the next call rather than written as a short chunk of their own (an import's slices);
 * without it, every row is written.
 */
import assert from "node:assert/strict";
import { writeInChunks } from "../../src/memory/rows.ts";

Deno.test("writeInChunks: a slice's last rows wait for the next one with `more`", async () => {
  const chunks: number[][] = [];
  const write = (c: number[]) => {
    chunks.push(c);
    return Promise.resolve();
  };
  const state = { size: 40 };
  // Fast writes: the size doubles after each chunk (40, 80, then 160 for the rest).
  const left = await writeInChunks(Array.from({ length: 100 }, (_, i) => i), write, state, true);
  assert.deepEqual(chunks.map((c) => c.length), [40]);
  assert.deepEqual(left, Array.from({ length: 60 }, (_, i) => 40 + i));
  assert.equal(state.size, 80);
  const rest = left.concat(Array.from({ length: 50 }, (_, i) => 100 + i));
  assert.deepEqual(await writeInChunks(rest, write, state), []);
  assert.deepEqual(chunks.map((c) => c.length), [40, 80, 30]);
  assert.deepEqual(chunks.flat(), Array.from({ length: 150 }, (_, i) => i));
});
