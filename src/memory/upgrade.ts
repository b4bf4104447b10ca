/**
 * Upgrades a database in place when the service starts (the admin daemon and the library;
 * not the MCP server, which refuses to start on a database that needs work):
 *
 * 1. Postings for the lexical side of search are built for memories stored before schema
 *    version 2 (`term_count` is null until they have them).
 * 2. Vectors made by an older builtin model (`hash-v1`), or at an earlier default dimension
 *    (768 before 0.8, 384 in 0.8 and 0.9), are re-embedded with the configured builtin model
 *    and dimension through the same resumable run as `memcli reembed`: the builtin embedder
 *    is local and fast, so no one has to run it by hand. Other providers keep the maintenance
 *    flow (reads work, writes and searches answer 409 until `memcli reembed`). The embedded
 *    database's `memories` is then rewritten once, to return the old vectors' space.
 * 3. On server Postgres, vectors stored as 4-byte `vector`s become 2-byte `halfvec`s (see
 *    convertToHalfvec).
 * 4. Memories stored before the dense leg get their dense vectors.
 * 5. Expanded memories without a content vector (expanded before version 21, or re-embedded
 *    since) get one: the contradiction check compares content with content.
 *
 * The steps are resumable: a start that is stopped half-way continues where it stopped, and
 * no memory is lost or doubled (vectors go to a side column that is swapped in when every
 * memory has one).
 * @module
 */
import { DEFAULT_EMBEDDING_DIM, followsDefaultDim } from "../config.ts";
import { sameEmbedder } from "../embed/embedder.ts";
import type { SqlMemoryService } from "./service.ts";

/** Memories per batch of either step. */
export const UPGRADE_BATCH = 500;

/** Run the start-up upgrades; `log` gets one line per batch. */
export async function upgradeAtStart(
  service: SqlMemoryService,
  log: (line: string) => void = () => {},
): Promise<void> {
  const store = service.maintenance();
  let built = 0;
  for (;;) {
    const rows = await store.termsPending(UPGRADE_BATCH);
    if (!rows.length) break;
    await store.storeTerms(rows);
    built += rows.length;
    log(`upgrade: built search postings of ${built} memories`);
    if (rows.length < UPGRADE_BATCH) break;
  }
  if (built) store.invalidateStats();
  await reembedBuiltin(service, log);
  await convertToHalfvec(service, log);
  // Step 4: the dense vectors of memories stored before the dense leg (0.15), resumable.
  await service.backfillDense(log);
  // Step 5: the content vectors of memories expanded before version 21 (or re-embedded since),
  // which the contradiction check reads; resumable.
  await service.backfillContentVectors(log);
}

/**
 * Step 3, server Postgres: vectors stored as 4-byte `vector`s (databases made before 0.8)
 * become `halfvec`s, online, in batches, through a run of the stored embedder itself (no
 * embedding: the stored vectors are converted), searched on the old column until the swap.
 * The embedded database keeps `vector`s ({@link vectorType}).
 */
async function convertToHalfvec(
  service: SqlMemoryService,
  log: (line: string) => void,
): Promise<void> {
  const store = service.maintenance();
  if (!await store.vectorsToConvert()) return;
  // In maintenance (another embedder configured), `memcli reembed` makes a halfvec column.
  if (!sameEmbedder(service.storedEmbedder, service.embedderInfo)) return;
  log("upgrade: storing the vectors as halfvec (half the disk)");
  for (;;) {
    const p = await service.convertVectors(UPGRADE_BATCH);
    log(`upgrade: converted ${p.done}/${p.total}${p.finished ? ", done" : ""}`);
    if (p.finished) break;
  }
}

/** Step 2: re-embed vectors of an older builtin model or of an earlier default dimension. */
async function reembedBuiltin(
  service: SqlMemoryService,
  log: (line: string) => void,
): Promise<void> {
  const stored = service.storedEmbedder;
  const target = service.embedderInfo;
  // Only an older builtin model, or an earlier default dimension, is upgraded here; another
  // change of EMBEDDING_DIM or provider is the user's choice and keeps the maintenance flow
  // (`memcli reembed`).
  if (
    stored.provider !== "builtin" || target.provider !== "builtin" ||
    sameEmbedder(stored, target) ||
    (stored.model === target.model &&
      !(followsDefaultDim(stored.dimension) && target.dimension === DEFAULT_EMBEDDING_DIM))
  ) return;
  log(
    `upgrade: re-embedding memories from builtin/${stored.model} to builtin/${target.model} ` +
      `(${target.dimension} dimensions)`,
  );
  // The embedded database has no other user and nothing is served yet, and the old vectors'
  // HNSW index is of no use to the run: without it a re-embedded row (a new row version) goes
  // into one graph instead of two. A start that does not finish the run builds it again first
  // (ensureEmbeddingColumn builds a missing one). Server Postgres keeps it: other processes
  // search the old vectors meanwhile.
  const store = service.maintenance();
  if (store.capabilities.soleOwner) await store.dropSearchIndex();
  for (;;) {
    const p = await service.reembed({ batchSize: UPGRADE_BATCH });
    log(`upgrade: re-embedded ${p.done}/${p.total}${p.finished ? ", done" : ""}`);
    if (p.finished) break;
  }
  // The dense vectors' index, dropped with the old vectors' (the new ones have theirs).
  await store.buildSearchIndex();
  // The old vectors' space back to the file system (the embedded database).
  await store.rewriteMemories();
}
