/**
 * The word alignment of a query and a memory (src/memory/align.ts) and the relevance that
 * fuses it (src/memory/ranking.ts), on the shipped word vectors and invented sentences: a
 * memory that says the query's words in other words aligns above one about something else,
 * a tool name stands for its category words, an identifier counts only exactly, and the
 * fused relevance stays in 0..1.
 */
import assert from "node:assert/strict";
import { alignMatches, alignment, alignQuery, creditOf } from "../../src/memory/align.ts";
import {
  ALIGNED_NORM,
  alignedRelevance,
  ALIGNMENT_FROM,
  ALIGNMENT_WEIGHT,
} from "../../src/memory/ranking.ts";
import { builtinWordVectors } from "../../src/embed/words.ts";
import { pgliteService } from "../helpers.ts";

const align = async (query: string, content: string) => {
  const words = await builtinWordVectors();
  return alignment(alignQuery(query, words), content, words, ALIGNMENT_FROM);
};

Deno.test("alignment: every query word in the memory aligns fully; none of them, not at all", async () => {
  assert.equal(await align("bake sourdough bread", "We bake sourdough bread on Fridays"), 1);
  assert.equal(await align("bake sourdough bread", ""), 0);
  assert.equal(await align("", "We bake sourdough bread on Fridays"), 0);
});

Deno.test("alignment: near words count, so a paraphrase aligns above an unrelated memory", async () => {
  const query = "who repairs the automobile when it breaks down";
  const near = await align(query, "The mechanic fixes our car at the garage");
  const far = await align(query, "Bananas ripen faster next to apples");
  assert.ok(near > far + 0.1, `near ${near}, far ${far}`);
  assert.ok(near > 2 * far, `near ${near}, far ${far}`);
});

Deno.test("alignment: a tool name lends its category words, both ways", async () => {
  // pnpm → package manager (src/domain/categories.ts).
  const a = await align("which package manager does the monorepo use", "Installs run with pnpm");
  const b = await align("which package manager does the monorepo use", "Installs run nightly");
  assert.ok(a > b + 0.2, `with the name ${a}, without ${b}`);
  const c = await align("is pnpm configured", "The package manager is configured strictly");
  const d = await align("is pnpm configured", "The garden is configured strictly");
  assert.ok(c > d, `category ${c}, none ${d}`);
});

Deno.test("alignment: an identifier counts only when the memory has it exactly", async () => {
  const query = "what does config/ports.yaml hold";
  const exact = await align(query, "config/ports.yaml holds the port map");
  const other = await align(query, "config/hosts.yaml holds the port map");
  assert.ok(exact > other, `exact ${exact}, other ${other}`);
});

Deno.test("alignment depends on the query and the memory alone", async () => {
  const words = await builtinWordVectors();
  const q = alignQuery("when is the weekly standup", words);
  const before = alignment(q, "Standup happens every Monday morning", words);
  alignment(q, "Something unrelated about gardening tools", words);
  assert.equal(alignment(q, "Standup happens every Monday morning", words), before);
});

Deno.test("alignment matches: 1 for a word the memory has, its nearest word's cosine otherwise", async () => {
  const words = await builtinWordVectors();
  const q = alignQuery("who repairs the automobile", words);
  const content = "The mechanic repairs our car";
  const m = alignMatches(q, content, words);
  assert.equal(m.length, q.words.length);
  // "repairs" is in the memory; "automobile" is not, its nearest word there ("car") is near.
  const at = (word: string) => q.words.findIndex((w) => w.forms.has(word));
  assert.equal(m[at("repair")], 1);
  const near = m[at("automobil")];
  assert.ok(near > ALIGNMENT_FROM && near < 1, `automobile ~ car: ${near}`);
  // The alignment is the matches' credits weighed by the words' information.
  const weighed = q.words.reduce((s, w, i) => s + w.weight * creditOf(m[i]), 0) / q.total;
  assert.ok(Math.abs(alignment(q, content, words) - weighed) < 1e-12);
  // Credit: none up to the threshold, all for the word itself.
  assert.equal(creditOf(ALIGNMENT_FROM), 0);
  assert.equal(creditOf(1), 1);
  assert.ok(Math.abs(creditOf(0.7, 0.4) - 0.5) < 1e-12);
  // A memory with no word of the query, nor any known word: no match at all.
  assert.deepEqual([...alignMatches(q, "", words)], q.words.map(() => 0));
});

Deno.test("aligned relevance: in 0..1, rising with each of its parts", () => {
  assert.equal(alignedRelevance(0, null, 0), 0);
  assert.equal(alignedRelevance(1, 1, 1), 1);
  assert.ok(Math.abs(alignedRelevance(0, null, 1) - ALIGNMENT_WEIGHT / ALIGNED_NORM) < 1e-12);
  const base = alignedRelevance(0.4, 0.5, 0.3);
  assert.ok(alignedRelevance(0.6, 0.5, 0.3) > base);
  assert.ok(alignedRelevance(0.4, 0.7, 0.3) > base);
  assert.ok(alignedRelevance(0.4, 0.5, 0.5) > base);
  // A dense cosine at or below its background adds nothing.
  assert.equal(alignedRelevance(0.4, 0.1, 0.3), alignedRelevance(0.4, null, 0.3));
});

Deno.test("search: a memory that says the prompt in other words ranks above one sharing a word", async () => {
  const { service, close } = await pgliteService();
  try {
    await service.import([
      "The mechanic repairs our delivery vans at the depot every month",
      "The office coffee machine breaks down when nobody cleans it",
      "Invoices are sent to customers on the first of the month",
      "Deploys to production need an approval from the on-call engineer",
      "The staging database is reset every Sunday night",
      "Our team lunch is on Thursdays at the Thai place",
    ].map((content) => ({ content, scope: "project" as const, project: "p", type: "context" })));
    const top = async (query: string) =>
      (await service.search({ query, project: "p", limit: 3 }))[0]?.memory.content;
    // "break down" is the coffee machine's; garage, fixes and trucks are the mechanic's in
    // other words (0.16 ranked the coffee machine first).
    assert.match(await top("which garage fixes the trucks that break down") ?? "", /mechanic/);
    // No shared word at all (0.16 returned nothing).
    assert.match(await top("when do we eat together as a group") ?? "", /lunch/);
  } finally {
    await close();
  }
});
