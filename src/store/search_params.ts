/**
 * The HNSW search breadth every connection sets (pgvector's default is 40), on its own so
 * that the embedded database's worker (src/store/pglite/worker.ts) loads no more modules
 * than it needs: Deno grants a worker's modules one by one (src/permissions.ts).
 * @module
 */

/** The HNSW search breadth every connection sets (pgvector's default is 40). */
export const EF_SEARCH = 80;

/**
 * The HNSW search breadth of the contradiction check's nearest memories (a create's 5, above a
 * similarity of 0.75), set for its transaction only: 20 rather than {@link EF_SEARCH}, which is
 * for a search's 15 neighbours ranked among the lexical candidates. On bench:memory's 2,000
 * memories, 400 of them asked for their 5 nearest in their scope: the lists above the
 * threshold identical to those of an HNSW walk at 1,000 (759 of 759 memories found, as at 80),
 * the whole top 5 99.6 % (99.85 % at 80); the statement 0.54 against 0.91 ms at p50
 * (docs/performance.md, "0.21: create").
 */
export const CONTRADICTION_EF_SEARCH = 20;
