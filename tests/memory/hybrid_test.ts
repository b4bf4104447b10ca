/**
 * Hybrid search with an embedder that carries meaning (the semantic stand-in) is not worse
 * than either of its sides alone: the vector side finds paraphrases without shared words,
 * the lexical side finds rare words that the vector drowns in common ones, and the fused
 * ranking finds both.
 */
import assert from "node:assert/strict";
import { SqlMemoryService } from "../../src/memory/service.ts";
import type { Retrieval } from "../../src/memory/ranking.ts";
import { ensureEmbeddingColumn, migrate } from "../../src/store/migrate.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { Store } from "../../src/store/store.ts";
import { StandInEmbedder } from "../fakes/semantic.ts";

const MEMORIES = [
  // Paraphrase targets (no word shared with their query).
  "Our puppy sleeps in the hallway",
  "The physician said the knee heals in six weeks",
  "She wrote a screenplay about her grandmother",
  // Rare-word targets among memories full of a common word.
  "Kubernetes manifests live in ops/k8s",
  "The flaky test is quarantined under ERR_CONN_RESET",
  "Wiremock stubs the billing API in tests",
  // Common-word filler.
  ...Array.from({ length: 14 }, (_, i) => `The deploy script ${i} runs the deploy and the tests`),
  ...Array.from({ length: 6 }, (_, i) => `Weekly note ${i}: the team met and talked about plans`),
];

const QUERIES: [string, string][] = [
  ["where does the dog sleep", MEMORIES[0]],
  ["what did the doctor say about my knee", MEMORIES[1]],
  ["what movie is she making", MEMORIES[2]],
  ["deploy to kubernetes", MEMORIES[3]],
  ["why do the deploy tests fail with ERR_CONN_RESET", MEMORIES[4]],
  ["how do the tests stub billing with wiremock", MEMORIES[5]],
];

Deno.test("hybrid with a semantic embedder is not worse than either side alone", async () => {
  const db = await openPglite();
  try {
    await migrate(db);
    const embedder = new StandInEmbedder();
    const stored = await ensureEmbeddingColumn(db, embedder.info);
    const store = new Store(db);
    await new SqlMemoryService({ store, embedder, stored }).import(
      MEMORIES.map((content) => ({ content })),
    );
    const hits: Record<Retrieval, number> = { hybrid: 0, vector: 0, lexical: 0 };
    const missed: string[] = [];
    for (const retrieval of ["hybrid", "vector", "lexical"] as const) {
      const s = new SqlMemoryService({ store, embedder, stored, retrieval });
      for (const [query, answer] of QUERIES) {
        const top = await s.search({ query, limit: 1 });
        if (top[0]?.memory.content === answer) hits[retrieval]++;
        else missed.push(`${retrieval}: ${query}`);
      }
    }
    // Each side alone misses what only the other finds…
    assert.ok(hits.vector < QUERIES.length, "the vector side misses rare words");
    assert.ok(hits.lexical < QUERIES.length, "the lexical side misses paraphrases");
    // …and the fusion finds all of it.
    assert.equal(hits.hybrid, QUERIES.length, missed.join("\n"));
    assert.ok(hits.hybrid >= Math.max(hits.vector, hits.lexical));
  } finally {
    await db.close();
  }
});
