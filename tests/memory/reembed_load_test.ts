/**
 * Issue 31: a re-embed finishes under a steady writer. Memories written while the run goes on
 * lack the new vector; the final pass embeds them under the table lock, so the run ends
 * instead of reporting "N−1 of N" for ever.
 */
import assert from "node:assert/strict";
import { pgliteService } from "../helpers.ts";

Deno.test("a re-embed under a steady writer finishes, and every memory has its new vector", async () => {
  const { service, db, close } = await pgliteService(
    { embeddingDim: 64 },
    { reclaim: { atStartMs: null } },
  );
  try {
    const first = Array.from({ length: 120 }, (_, i) => ({
      content: `standing note ${i} on the build`,
      project: "p",
    }));
    await service.import(first);
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await service.create({ content: `written during the run ${written}`, project: "w" });
        written++;
        // A client on the network: its next write comes a moment later.
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    let calls = 0;
    let finished = false;
    try {
      while (!finished && calls < 40) {
        const p = await service.reembed({ batchSize: 25 });
        calls++;
        finished = p.finished;
        // Let the writer in between calls, as a steady client would.
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      writing = false;
      await writer;
    }
    assert.ok(finished, `not finished after ${calls} calls`);
    assert.ok(written > 0, "the writer wrote during the run");
    const [row] = await db.query<{ n: number; missing: number }>(
      "select count(*)::int as n, count(*) filter (where embedding is null)::int as missing from memories",
    );
    assert.equal(row.n, 120 + written);
    assert.equal(row.missing, 0);
    const cols = await db.query(
      "select 1 from information_schema.columns where table_name = 'memories' and column_name = 'embedding_next'",
    );
    assert.equal(cols.length, 0, "the run's column was swapped in");
  } finally {
    await close();
  }
});
