/**
 * The embedder record (src/store/embedder_record.ts): another embedder is recorded on a
 * database only while it holds no memory.
 */
import assert from "node:assert/strict";
import { ensureEmbeddingColumn, migrate } from "../../src/store/migrate.ts";
import { isEmpty, recordedEmbedder, rerecordEmpty } from "../../src/store/embedder_record.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { insert } from "../../src/store/writes.ts";
import { newRow } from "../memory/fixtures.ts";

Deno.test("another embedder is recorded on an empty database, not once it holds a memory", async () => {
  const db = await openPglite();
  try {
    await migrate(db);
    const first = { provider: "builtin", model: "a", dimension: 8 };
    await ensureEmbeddingColumn(db, first);
    assert.deepEqual(await recordedEmbedder(db), first);
    assert.equal(await isEmpty(db), true);
    const second = { provider: "builtin", model: "b", dimension: 4 };
    assert.equal(await rerecordEmpty(db, second), true);
    assert.deepEqual(await recordedEmbedder(db), second);
    await insert(db, [newRow("kept", [1, 0, 0, 0], new Date())]);
    assert.equal(await isEmpty(db), false);
    assert.equal(await rerecordEmpty(db, first), false);
    assert.deepEqual(await recordedEmbedder(db), second, "nothing changed");
  } finally {
    await db.close();
  }
});
