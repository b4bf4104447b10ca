/**
 * EMBEDDING_PROVIDER=auto: Ollama when it answers with the model, else builtin, and only
 * on a fresh database; afterwards the recorded embedder is used.
 */
import assert from "node:assert/strict";
import { selectEmbedder } from "../../src/embed/select.ts";
import { createServiceOnDb, StartupError } from "../../src/memory/open.ts";
import { columnDimension, recordedEmbedder } from "../../src/store/migrate.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import { freePort, testConfig } from "../helpers.ts";
import { DEFAULT_EMBEDDING_DIM } from "../../src/config.ts";

const auto = (ollamaUrl: string) => testConfig({ embeddingProvider: "auto", ollamaUrl });

Deno.test("auto picks Ollama when it answers with the model, else builtin", async () => {
  const fake = startFakeOllama({ "nomic-embed-text": 768 });
  try {
    const up = await selectEmbedder(auto(fake.url), null);
    assert.deepEqual(up.info, { provider: "ollama", model: "nomic-embed-text", dimension: 768 });
    fake.models.clear();
    const noModel = await selectEmbedder(auto(fake.url), null);
    assert.deepEqual(noModel.info, {
      provider: "builtin",
      model: "hash-v2",
      dimension: DEFAULT_EMBEDDING_DIM,
    });
  } finally {
    await fake.close();
  }
  const down = await selectEmbedder(auto(`http://127.0.0.1:${freePort()}`), null);
  assert.equal(down.info.provider, "builtin");
  const dim = await selectEmbedder(
    { ...auto(`http://127.0.0.1:${freePort()}`), embeddingDim: 64 },
    null,
  );
  assert.deepEqual(dim.info, { provider: "builtin", model: "hash-v2", dimension: 64 });
});

Deno.test("auto on a database with stored vectors keeps the recorded embedder", async () => {
  const fake = startFakeOllama({ "nomic-embed-text": 768 });
  const downUrl = `http://127.0.0.1:${freePort()}`;
  const first = await openPglite();
  const second = await openPglite();
  try {
    // Started while Ollama was down: builtin is recorded and stays, although Ollama is up now.
    const a = await createServiceOnDb(first, auto(downUrl));
    assert.equal(a.embedderInfo.provider, "builtin");
    await a.create({ content: "made by the builtin embedder" });
    const again = await createServiceOnDb(first, auto(fake.url));
    assert.equal(again.embedderInfo.provider, "builtin");
    assert.equal(again.maintenanceReason, null);
    assert.equal((await again.search({ query: "builtin embedder" })).length, 1);

    // Started with Ollama up: ollama is recorded and required afterwards.
    const b = await createServiceOnDb(second, auto(fake.url));
    assert.deepEqual(b.embedderInfo, {
      provider: "ollama",
      model: "nomic-embed-text",
      dimension: 768,
    });
    await b.create({ content: "made by ollama" });
    const reopened = await createServiceOnDb(second, auto(fake.url));
    assert.equal(reopened.embedderInfo.provider, "ollama");
    assert.equal(
      (await reopened.search({ query: "made by ollama" }))[0].memory.content,
      "made by ollama",
    );
    await assert.rejects(createServiceOnDb(second, auto(downUrl)), (err: unknown) => {
      assert.ok(err instanceof StartupError);
      assert.match(err.message, /Ollama at .* is not reachable/);
      return true;
    });
    const health = await reopened.health();
    assert.deepEqual(health.stored_embedder, reopened.embedderInfo);
  } finally {
    await first.close();
    await second.close();
    await fake.close();
  }
});

Deno.test("auto on a database without memories chooses again (nothing to re-embed)", async () => {
  const fake = startFakeOllama({ "nomic-embed-text": 384 });
  const downUrl = `http://127.0.0.1:${freePort()}`;
  const db = await openPglite();
  try {
    // First start while Ollama was down: builtin recorded, but nothing stored yet.
    const first = await createServiceOnDb(db, auto(downUrl));
    assert.equal(first.embedderInfo.provider, "builtin");
    assert.equal(await columnDimension(db), DEFAULT_EMBEDDING_DIM);
    // Ollama is up at the next start: the empty database switches to it.
    const second = await createServiceOnDb(db, auto(fake.url));
    assert.deepEqual(second.embedderInfo, {
      provider: "ollama",
      model: "nomic-embed-text",
      dimension: 384,
    });
    assert.equal(second.maintenanceReason, null);
    assert.deepEqual(await recordedEmbedder(db), second.embedderInfo);
    assert.equal(await columnDimension(db), 384);
    await second.create({ content: "stored with ollama" });
    assert.equal((await second.search({ query: "stored with ollama" })).length, 1);
    // An explicit provider never switches by itself: it reports the mismatch.
    const explicit = await createServiceOnDb(db, testConfig({ embeddingProvider: "builtin" }));
    assert.match(explicit.maintenanceReason ?? "", /memcli reembed/);
  } finally {
    await db.close();
    await fake.close();
  }
});
