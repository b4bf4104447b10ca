/**
 * Ollama and OpenAI-compatible embedders against faithful fakes: request shapes, batching,
 * order, errors (service down, model missing, key refused, wrong dimension), and the
 * same failures through the memory service.
 */
import assert from "node:assert/strict";
import { EmbedderError } from "../../src/embed/embedder.ts";
import { OllamaEmbedder, OpenAIEmbedder } from "../../src/embed/remote.ts";
import { MemoryError } from "../../src/domain/errors.ts";
import { createServiceOnDb, StartupError } from "../../src/memory/open.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { ollamaVector, startFakeOllama } from "../fakes/ollama.ts";
import { openaiVector, startFakeOpenAI } from "../fakes/openai.ts";
import { freePort, testConfig } from "../helpers.ts";

async function rejectsEmbedder(p: Promise<unknown>, ...parts: string[]): Promise<string> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof EmbedderError, `expected an EmbedderError, got ${caught}`);
  for (const part of parts) {
    assert.ok(caught.message.includes(part), `"${caught.message}" should mention "${part}"`);
  }
  assert.ok(!/\n\s+at /.test(caught.message), "no stack trace in the message");
  return caught.message;
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `memory text number ${i}`);

Deno.test("ollama: probe learns the dimension; embed batches 64 inputs per request", async () => {
  const fake = startFakeOllama();
  try {
    const e = new OllamaEmbedder({ url: fake.url });
    assert.deepEqual(await e.probe(), {
      provider: "ollama",
      model: "nomic-embed-text",
      dimension: 768,
    });
    const input = texts(150);
    const vectors = await e.embed(input);
    assert.deepEqual(vectors, input.map((t) => ollamaVector(t, 768)), "in order");
    assert.deepEqual(fake.embedBatches().map((b) => b.length), [1, 64, 64, 22]);
    assert.deepEqual(fake.embedBatches().slice(1).flat(), input);
    const last = fake.requests.at(-1)!;
    assert.equal(last.method, "POST");
    assert.equal(last.path, "/api/embed");
    assert.deepEqual(Object.keys(last.body as object).sort(), ["input", "model"]);
    assert.equal((last.body as { model: string }).model, "nomic-embed-text");
    assert.deepEqual(await e.embed([]), []);
    const small = new OllamaEmbedder({ url: fake.url + "/", batchSize: 10 });
    await small.embed(texts(25));
    assert.deepEqual(fake.embedBatches().slice(-3).map((b) => b.length), [10, 10, 5]);
  } finally {
    await fake.close();
  }
});

Deno.test("ollama: a missing model, a service that is down, a changed dimension", async () => {
  const fake = startFakeOllama({ "nomic-embed-text": 768, "all-minilm": 384 });
  try {
    const msg = await rejectsEmbedder(
      new OllamaEmbedder({ url: fake.url, model: "mxbai-embed-large" }).probe(),
      'Ollama has no model "mxbai-embed-large"',
      'model "mxbai-embed-large" not found, try pulling it first',
      "ollama pull mxbai-embed-large",
      "EMBEDDING_MODEL",
    );
    assert.ok(msg.length < 400);
    const tagged = new OllamaEmbedder({ url: fake.url, model: "all-minilm:latest" });
    assert.equal((await tagged.probe()).dimension, 384);
    const e = new OllamaEmbedder({ url: fake.url });
    await e.probe();
    fake.models.set("nomic-embed-text", 1024);
    await rejectsEmbedder(e.embed(["x"]), "1024-dimension", "768 dimensions were expected");
  } finally {
    await fake.close();
  }
  const port = freePort();
  await rejectsEmbedder(
    new OllamaEmbedder({ url: `http://127.0.0.1:${port}` }).probe(),
    `Ollama at http://127.0.0.1:${port} is not reachable`,
    "ollama serve",
    "OLLAMA_URL",
    "EMBEDDING_PROVIDER=builtin",
  );
});

Deno.test("openai: request shape, key, batches of 128, order by index", async () => {
  const fake = startFakeOpenAI({ apiKey: "sk-right", reverse: true });
  try {
    const e = new OpenAIEmbedder({ baseUrl: fake.url, apiKey: "sk-right" });
    assert.deepEqual(await e.probe(), {
      provider: "openai",
      model: "text-embedding-3-small",
      dimension: 1536,
    });
    const input = texts(300);
    const vectors = await e.embed(input);
    assert.deepEqual(vectors, input.map((t) => openaiVector(t, 1536)), "sorted by index");
    assert.deepEqual(fake.embedBatches().map((b) => b.length), [1, 128, 128, 44]);
    const last = fake.requests.at(-1)!;
    assert.equal(last.path, "/v1/embeddings");
    assert.equal(last.authorization, "Bearer sk-right");
    assert.deepEqual(last.body, {
      model: "text-embedding-3-small",
      input: input.slice(256),
      encoding_format: "float",
    });
  } finally {
    await fake.close();
  }
});

Deno.test("openai: key refused, model missing, service down, wrong dimension", async () => {
  const fake = startFakeOpenAI({ apiKey: "sk-right", models: { "embed-small": 256 } });
  try {
    const wrong = await rejectsEmbedder(
      new OpenAIEmbedder({ baseUrl: fake.url, apiKey: "sk-wrong-key", model: "embed-small" })
        .probe(),
      "refused the key (401: Incorrect API key provided",
      "OPENAI_API_KEY",
    );
    assert.ok(!wrong.includes("sk-wrong-key"), "the key is not echoed");
    await rejectsEmbedder(
      new OpenAIEmbedder({ baseUrl: fake.url, model: "embed-small" }).probe(),
      "refused the key (401: You didn't provide an API key",
    );
    await rejectsEmbedder(
      new OpenAIEmbedder({ baseUrl: fake.url, apiKey: "sk-right", model: "nope" }).probe(),
      'does not know model "nope"',
      "The model `nope` does not exist",
      "EMBEDDING_MODEL",
    );
    const e = new OpenAIEmbedder({ baseUrl: fake.url, apiKey: "sk-right", model: "embed-small" });
    await e.probe();
    fake.options.models["embed-small"] = 128;
    await rejectsEmbedder(e.embed(["x", "y"]), "128-dimension", "256 dimensions were expected");
  } finally {
    await fake.close();
  }
  const port = freePort();
  await rejectsEmbedder(
    new OpenAIEmbedder({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "k" }).probe(),
    `at http://127.0.0.1:${port} is not reachable`,
    "OPENAI_BASE_URL",
  );
});

Deno.test("through the service: batched import, startup and runtime provider failures", async () => {
  const fake = startFakeOllama({ "tiny-embed": 768 });
  const cfg = testConfig({
    embeddingProvider: "ollama",
    embeddingModel: "tiny-embed",
    ollamaUrl: fake.url,
  });
  const db = await openPglite();
  try {
    const service = await createServiceOnDb(db, cfg);
    assert.deepEqual(service.embedderInfo, {
      provider: "ollama",
      model: "tiny-embed",
      dimension: 768,
    });
    const before = fake.embedBatches().length;
    assert.deepEqual(
      await service.import(texts(150).map((content) => ({ content }))),
      { imported: 150, skipped: 0 },
    );
    assert.deepEqual(fake.embedBatches().slice(before).map((b) => b.length), [64, 64, 22]);
    const [hit] = await service.search({ query: "memory text number 7" });
    assert.equal(hit.memory.content, "memory text number 7");
    assert.ok(Math.abs(hit.score - 0.8) < 1e-5, "the same text gives the same vector");

    // The model now answers with another dimension: a 503 naming the cause, nothing written.
    fake.models.set("tiny-embed", 1024);
    for (
      const call of [() => service.create({ content: "new" }), () => service.search({ query: "x" })]
    ) {
      await assert.rejects(call, (err: unknown) => {
        assert.ok(err instanceof MemoryError);
        assert.equal(err.status, 503);
        assert.match(err.message, /^embedding failed: .*1024-dimension/);
        return true;
      });
    }
    // The model is removed.
    fake.models.delete("tiny-embed");
    await assert.rejects(service.create({ content: "new" }), /ollama pull tiny-embed/);
    assert.equal((await service.stats()).total, 150, "nothing was written");
    const health = await service.health();
    assert.equal(health.status, "error");
    assert.match(health.embedder.error ?? "", /tiny-embed/);
  } finally {
    await fake.close();
  }
  // Ollama is gone: the running service reports it, a new startup fails with a message.
  const down = await openPglite();
  try {
    await assert.rejects(createServiceOnDb(down, cfg), (err: unknown) => {
      assert.ok(err instanceof StartupError);
      assert.match(err.message, /^embedding provider failed: Ollama at .* is not reachable/);
      return true;
    });
  } finally {
    await down.close();
    await db.close();
  }
});
