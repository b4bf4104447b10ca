/**
 * The embedder record: the meta row names the embedder that made the stored vectors (every
 * vector of a column comes from one embedder), and a database without memories may record
 * another (the column's dimension set again).
 * @module
 */
import type { EmbedderInfo } from "../embed/embedder.ts";
import type { Db } from "./db.ts";
import { MIGRATION_LOCK, setVectorColumn } from "./migrate.ts";

export { recordedEmbedder } from "./migrate.ts";

/** True when no memory is stored (the recorded embedder made no vectors yet). */
export async function isEmpty(db: Db): Promise<boolean> {
  const [row] = await db.query<{ n: number }>("select count(*)::int as n from memories");
  return Number(row?.n ?? 0) === 0;
}

/**
 * Record another embedder on a database without memories: set the column dimension and
 * the meta row, under the migration lock, and only while the table is still empty (a
 * re-embedding run left behind is dropped: it has no rows). Returns false when memories
 * appeared meanwhile (nothing changed).
 */
export async function rerecordEmpty(db: Db, info: EmbedderInfo): Promise<boolean> {
  return await db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    if (!await isEmpty(tx)) return false;
    await tx.exec("alter table memories drop column if exists embedding_next");
    await setVectorColumn(tx, "embedding", info.dimension);
    await recordEmbedder(tx, info);
    return true;
  });
}

/** Record `info` as the embedder of the stored vectors and end any re-embedding run. */
export async function recordEmbedder(db: Db, info: EmbedderInfo): Promise<void> {
  await db.query(
    `update mneme_meta set embedder_provider = $1, embedder_model = $2,
            embedder_dimension = $3, reembed_provider = null, reembed_model = null,
            reembed_dimension = null where id = 1`,
    [info.provider, info.model, info.dimension],
  );
}
