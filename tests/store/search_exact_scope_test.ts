/**
 * Which scopes have their nearest neighbours read exactly (`exactScope`): small ones that are a
 * small share of all memories; never the scope of every memory.
 */
import assert from "node:assert/strict";
import { EXACT_SCOPE_MAX, EXACT_SCOPE_SHARE, exactScope } from "../../src/store/store.ts";

Deno.test("exactScope: at most EXACT_SCOPE_MAX memories and EXACT_SCOPE_SHARE of all", () => {
  assert.equal(EXACT_SCOPE_MAX, 2000);
  assert.equal(EXACT_SCOPE_SHARE, 0.2);
  const sizes = new Map<string | null, number>([[null, 100], ["a", 1900], ["b", 8000]]);
  assert.equal(exactScope({ kind: "global" }, sizes), true);
  assert.equal(exactScope({ kind: "project", project: "a" }, sizes), true);
  // 2,000 of 10,000: both limits exactly.
  assert.equal(exactScope({ kind: "hierarchy", project: "a" }, sizes), true);
  assert.equal(exactScope({ kind: "project", project: "b" }, sizes), false);
  assert.equal(exactScope({ kind: "hierarchy", project: "b" }, sizes), false);
  assert.equal(exactScope({ kind: "project", project: "none" }, sizes), true);
  assert.equal(exactScope({ kind: "all" }, sizes), false);
  // Over the count, though a small share.
  const big = new Map<string | null, number>([[null, 2001], ["b", 100_000]]);
  assert.equal(exactScope({ kind: "global" }, big), false);
  // A small count that is most of the memories: the HNSW index, nearly unfiltered.
  const few = new Map<string | null, number>([[null, 300], ["a", 700]]);
  assert.equal(exactScope({ kind: "global" }, few), false);
  assert.equal(exactScope({ kind: "project", project: "a" }, few), false);
  assert.equal(exactScope({ kind: "global" }, new Map([[null, 150], ["a", 850]])), true);
});
