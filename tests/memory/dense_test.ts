/**
 * The dense leg's fusion and backfill (src/memory/dense.ts): the calibrated mix, and a
 * backfill that resumes from its cursor, encodes every memory once, finishes once, restarts
 * for another encoder and stops when another run replaced it. The store is an in-memory
 * stand-in of the port (the database's implementation comes with the store's).
 */
import assert from "node:assert/strict";
import type { DenseEncoder, DenseInfo } from "../../src/embed/dense.ts";
import { sameDense } from "../../src/embed/dense.ts";
import {
  backfillDense,
  calibrated,
  type DenseBackfillStore,
  type DenseState,
  fuseDense,
} from "../../src/memory/dense.ts";

Deno.test("dense fusion: the cosine counts above its background only", () => {
  assert.equal(calibrated(0.2, 0.2), 0);
  assert.equal(calibrated(-0.5, 0.2), 0);
  assert.equal(calibrated(1, 0.2), 1);
  assert.ok(Math.abs(calibrated(0.6, 0.2) - 0.5) < 1e-12);
  assert.equal(calibrated(NaN), 0);
  // No dense vector: the relevance stays; a dense-only candidate gets the dense share.
  assert.equal(fuseDense(0.42, null), 0.42);
  // What today's ranking found keeps its relevance unless the meaning is nearer still.
  assert.equal(fuseDense(0.7, 0.6, 0.8, 0.2), 0.7);
  assert.ok(Math.abs(fuseDense(0.3, 0.6, 0.8, 0.2) - 0.4) < 1e-12);
  // Found by the dense leg alone (relevance 0): β × c.
  assert.ok(Math.abs(fuseDense(0, 1, 0.8, 0.2) - 0.8) < 1e-12);
  assert.equal(fuseDense(0, 0.1, 0.8, 0.2), 0);
});

/** An in-memory store of the backfill's port, with a count of each memory's encodings. */
class FakeStore implements DenseBackfillStore {
  rows = new Map<string, { content: string; vector: Float32Array | null | undefined }>();
  state: DenseState = { complete: null, running: null, cursor: null };
  finished = 0;
  constructor(n: number) {
    for (let i = 0; i < n; i++) this.add(`m${String(i).padStart(4, "0")}`, `memory ${i}`);
  }
  add(id: string, content: string, vector?: Float32Array | null) {
    this.rows.set(id, { content, vector });
  }
  denseState() {
    return Promise.resolve({ ...this.state });
  }
  beginDense(target: DenseInfo) {
    this.state = { complete: this.state.complete, running: target, cursor: null };
    return Promise.resolve();
  }
  densePending(cursor: string | null, limit: number) {
    const ids = [...this.rows.keys()].sort().filter((id) => cursor === null || id > cursor);
    return Promise.resolve(
      ids.slice(0, limit).map((id) => ({ id, content: this.rows.get(id)!.content })),
    );
  }
  storeDense(
    target: DenseInfo,
    rows: { id: string; vector: Float32Array | null }[],
    cursor: string,
  ) {
    if (!this.state.running || !sameDense(this.state.running, target)) {
      return Promise.resolve(false);
    }
    for (const r of rows) this.rows.get(r.id)!.vector = r.vector;
    this.state.cursor = cursor;
    return Promise.resolve(true);
  }
  finishDense(target: DenseInfo) {
    if (!this.state.running || !sameDense(this.state.running, target)) {
      return Promise.resolve(false);
    }
    this.state = { complete: target, running: null, cursor: null };
    this.finished++;
    return Promise.resolve(true);
  }
}

/** An encoder that counts what it encodes; texts ending in "7" have no known word. */
function counting(model = "v1") {
  const seen = new Map<string, number>();
  const encoder: DenseEncoder = {
    info: { provider: "sif", model, dimension: 2 },
    encode(texts) {
      for (const t of texts) seen.set(t, (seen.get(t) ?? 0) + 1);
      return Promise.resolve(texts.map((t) => t.endsWith("7") ? null : new Float32Array([1, 0])));
    },
  };
  return { encoder, seen };
}

Deno.test("dense backfill: stopped half-way, it resumes from the cursor; each memory once", async () => {
  const store = new FakeStore(1234);
  const { encoder, seen } = counting();
  let batches = 0;
  const first = await backfillDense(store, encoder, {
    batch: 100,
    shouldStop: () => batches++ >= 3,
  });
  assert.deepEqual(first, { encoded: 300, finished: false });
  assert.equal(store.state.complete, null, "not complete before the end");
  // Written meanwhile by the service (encoded at write time), before the cursor and after it.
  store.add("m0000a", "written meanwhile", new Float32Array([0, 1]));
  const lines: string[] = [];
  const second = await backfillDense(store, encoder, { batch: 100, log: (l) => lines.push(l) });
  assert.equal(second.finished, true);
  assert.equal(first.encoded + second.encoded, 1234);
  assert.ok([...seen.values()].every((n) => n === 1), "no memory encoded twice");
  assert.equal(seen.size, 1234);
  assert.ok([...store.rows.values()].every((r) => r.vector !== undefined), "every memory done");
  assert.equal(store.rows.get("m0007")!.vector, null, "no known word: no vector, not pending");
  assert.ok(sameDense(store.state.complete!, encoder.info));
  assert.match(lines.at(-1)!, /done/);
  // Run again: nothing to do.
  assert.deepEqual(await backfillDense(store, encoder), { encoded: 0, finished: true });
  assert.equal(store.finished, 1);
});

Deno.test("dense backfill: another encoder starts again from the first memory", async () => {
  const store = new FakeStore(250);
  await backfillDense(store, counting("v1").encoder, { batch: 100 });
  const v2 = counting("v2");
  const p = await backfillDense(store, v2.encoder, { batch: 100 });
  assert.deepEqual(p, { encoded: 250, finished: true });
  assert.equal(store.state.complete!.model, "v2");
});

Deno.test("dense backfill: a run replaced meanwhile stops with an error", async () => {
  const store = new FakeStore(300);
  const { encoder } = counting("v1");
  const original = store.densePending.bind(store);
  store.densePending = async (cursor, limit) => {
    const rows = await original(cursor, limit);
    // Another process begins a run of another encoder between our read and our write.
    if (cursor !== null) await store.beginDense({ provider: "sif", model: "v9", dimension: 2 });
    return rows;
  };
  await assert.rejects(() => backfillDense(store, encoder, { batch: 100 }), /replaced/);
  assert.equal(store.state.complete, null);
});

Deno.test("dense backfill: a new database (no memory) finishes without a line", async () => {
  const store = new FakeStore(0);
  const lines: string[] = [];
  const p = await backfillDense(store, counting().encoder, { log: (l) => lines.push(l) });
  assert.deepEqual(p, { encoded: 0, finished: true });
  assert.equal(store.finished, 1, "recorded as complete");
  assert.deepEqual(lines, [], "nothing upgraded, nothing said");
});
