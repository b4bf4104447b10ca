/**
 * The HNSW search breadth every connection sets (pgvector's default is 40), on its own so
 * that the embedded database's worker (src/store/pglite/worker.ts) loads no more modules
 * than it needs: Deno grants a worker's modules one by one (src/permissions.ts).
 * @module
 */

/** The HNSW search breadth every connection sets (pgvector's default is 40). */
export const EF_SEARCH = 80;
