/**
 * The idle collector (src/common/gc.ts): one full collection after each burst of work, once
 * the process is quiet, never while work runs, and only when the heap is worth it.
 */
import assert from "node:assert/strict";
import { collectGarbage, IDLE_GC_MIN_HEAP, IdleCollector } from "../../src/common/gc.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A collector that counts its collections, over a heap of `heap` bytes. */
function counting(quietMs: number, minHeapBytes: number, heap: number) {
  const counter = { runs: 0 };
  const c = new IdleCollector({
    quietMs,
    minHeapBytes,
    collect: () => counter.runs++,
    heapBytes: () => heap,
  });
  return { c, counter };
}

Deno.test("idle collector: one collection after a burst, once quiet; none while work runs", async () => {
  const { c, counter } = counting(300, 10, 100);
  try {
    await sleep(150);
    assert.equal(counter.runs, 0, "nothing before any work");
    c.begin();
    await sleep(700);
    assert.equal(counter.runs, 0, "not while a request runs");
    c.begin();
    c.end();
    c.end();
    await sleep(0);
    assert.equal(counter.runs, 0, "not before the quiet time");
    await sleep(900);
    assert.equal(counter.runs, 1, "once after the burst");
    await sleep(500);
    assert.equal(counter.runs, 1, "not again without new work");
    c.begin();
    c.end();
    await sleep(900);
    assert.equal(counter.runs, 2, "once after the next burst");
  } finally {
    c.stop();
  }
});

Deno.test("idle collector: a small heap is left alone", async () => {
  const { c, counter } = counting(30, 1000, 999);
  try {
    c.begin();
    c.end();
    await sleep(150);
    assert.equal(counter.runs, 0);
  } finally {
    c.stop();
  }
});

Deno.test("idle collector: by default, a heap above 24 MiB is collected, one below is not", async () => {
  assert.equal(IDLE_GC_MIN_HEAP, 24 * 1024 * 1024);
  for (const [heap, runs] of [[IDLE_GC_MIN_HEAP + 1, 1], [IDLE_GC_MIN_HEAP - 1, 0]]) {
    const counter = { runs: 0 };
    const c = new IdleCollector({
      quietMs: 30,
      collect: () => counter.runs++,
      heapBytes: () => heap,
    });
    try {
      c.begin();
      c.end();
      await sleep(150);
      assert.equal(counter.runs, runs, `heap of ${heap} bytes`);
    } finally {
      c.stop();
    }
  }
});

Deno.test("collectGarbage: false without --expose-gc, and a real collection with it", async () => {
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === "function";
  assert.equal(collectGarbage(), hasGc);
  const code = `import { collectGarbage } from ${
    JSON.stringify(
      new URL("../../src/common/gc.ts", import.meta.url).href,
    )
  }; console.log(collectGarbage());`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", code],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "true");
});
