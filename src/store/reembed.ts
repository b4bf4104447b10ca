/**
 * Re-embedding: a run writes every memory's new vector into a second column
 * (`embedding_next`, with its own index) while the service keeps serving the old one, then
 * swaps the columns and records the new embedder in one transaction. A run of the stored
 * embedder itself converts the vectors to `halfvec` where the backend has it.
 * @module
 */
import { type EmbedderInfo, sameEmbedder } from "../embed/embedder.ts";
import type { Db } from "./db.ts";
import { addVectorColumn, columnType, renameNextIndexes, vectorType } from "./migrate.ts";
import { recordedEmbedder, recordEmbedder } from "./embedder_record.ts";
import { analyze } from "./maintenance.ts";
import { INDEXED_TEXT, vectorLiteral } from "./sql.ts";

/** Lock the meta row (in a transaction); true when a re-embedding run is in progress. */
export async function lockReembedRun(db: Db, mode: "share" | "update"): Promise<boolean> {
  const [row] = await db.query<{ running: boolean }>(
    `select reembed_provider is not null as running from mneme_meta where id = 1
        for ${mode === "share" ? "share" : "update"}`,
  );
  return Boolean(row?.running);
}

/** The re-embedding run in progress (embedder recorded in the meta row), or null. */
export async function reembedTarget(db: Db): Promise<EmbedderInfo | null> {
  const [row] = await db.query<
    { provider: string | null; model: string | null; dimension: number | null }
  >(
    `select reembed_provider as provider, reembed_model as model,
            reembed_dimension as dimension from mneme_meta where id = 1`,
  );
  if (!row?.provider || !row.model || !row.dimension) return null;
  return { provider: row.provider, model: row.model, dimension: row.dimension };
}

/** Start a re-embedding run: a fresh `embedding_next vector(dim)` column with its index. */
export async function beginReembed(db: Db, target: EmbedderInfo): Promise<void> {
  await db.transaction(async (tx) => {
    await lockReembedRun(tx, "update");
    await tx.exec("alter table memories drop column if exists embedding_next");
    await addVectorColumn(tx, "embedding_next", target.dimension);
    await tx.query(
      `update mneme_meta set reembed_provider = $1, reembed_model = $2, reembed_dimension = $3
        where id = 1`,
      [target.provider, target.model, target.dimension],
    );
  });
}

/**
 * True when the stored vectors are 4-byte `vector`s where new columns are `halfvec`
 * ({@link vectorType}: server Postgres), and no
 * re-embedding run to another embedder is in progress (one that finishes makes a halfvec
 * column anyway); a conversion run in progress (of the recorded embedder) counts.
 */
export async function vectorsToConvert(db: Db): Promise<boolean> {
  if (await vectorType(db) !== "halfvec") return false;
  if (await columnType(db) !== "vector") return false;
  const run = await reembedTarget(db);
  if (run === null) return true;
  const recorded = await recordedEmbedder(db);
  return recorded !== null && sameEmbedder(run, recorded);
}

/**
 * A step of a run of the stored embedder itself (a conversion to halfvec): up to `limit`
 * memories get their stored vector, converted, as their new one; no embedding needed.
 */
export async function reembedConvert(db: Db, limit: number): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `update memories m set embedding_next = m.embedding
      where m.id in (select id from memories where embedding_next is null
                        and embedding is not null order by id limit $1)
      returning m.id`,
    [limit],
  );
  return rows.length;
}

/** Memories not yet re-embedded in this run (up to `limit`), and the run's size. */
export async function reembedPending(db: Db, limit: number): Promise<{
  rows: { id: string; content: string }[];
  done: number;
  total: number;
}> {
  const rows = await db.query<{ id: string; content: string }>(
    `select m.id, ${INDEXED_TEXT} as content from memories m
      where m.embedding_next is null order by m.id limit $1`,
    [limit],
  );
  const [c] = await db.query<{ done: number; total: number }>(
    `select count(embedding_next)::int as done, count(*)::int as total from memories`,
  );
  return { rows, done: Number(c?.done ?? 0), total: Number(c?.total ?? 0) };
}

/**
 * Store new vectors of a run, each only while the memory still has the content it was
 * embedded from (a memory updated meanwhile stays pending).
 */
export async function reembedStore(
  db: Db,
  items: { id: string; content: string; embedding: number[] }[],
): Promise<void> {
  if (!items.length) return;
  await db.query(
    `update memories m set embedding_next = x.e::vector
       from jsonb_to_recordset($1::text::jsonb) as x(id uuid, c text, e text)
      where m.id = x.id and ${INDEXED_TEXT} = x.c`,
    [JSON.stringify(
      items.map((i) => ({ id: i.id, c: i.content, e: vectorLiteral(i.embedding) })),
    )],
  );
}

/**
 * Swap the new column in, rename its index and record the new embedder, provided that
 * every memory has its new vector. The final pass: memories written since the last step
 * (at most `max` of them) get theirs from `embed` here, under the lock, so that steady
 * writes cannot keep the run from finishing; returns false (changing nothing) when more
 * than `max` lack one. With `convert` (a run of the stored embedder itself, to halfvec),
 * the rest are converted from the stored vectors, however many. Writes wait while this runs.
 */
export async function finishReembed(
  db: Db,
  target: EmbedderInfo,
  embed?: ((texts: string[]) => Promise<number[][]>) | "convert",
  max = 0,
): Promise<boolean> {
  const done = await db.transaction(async (tx) => {
    await lockReembedRun(tx, "update");
    await tx.exec("lock table memories in exclusive mode");
    if (embed === "convert") {
      // A conversion: the rest of the memories converted here, however many.
      await tx.exec(
        "update memories set embedding_next = embedding where embedding_next is null",
      );
    }
    const pending = embed === "convert" ? [] : await tx.query<{ id: string; content: string }>(
      `select m.id, ${INDEXED_TEXT} as content from memories m
        where m.embedding_next is null order by m.id limit $1`,
      [max + 1],
    );
    if (pending.length > max || (pending.length && !embed)) return false;
    if (pending.length && typeof embed === "function") {
      const vectors = await embed(pending.map((r) => r.content));
      await reembedStore(
        tx,
        pending.map((r, i) => ({ id: r.id, content: r.content, embedding: vectors[i] })),
      );
    }
    // Another embedder's vectors: the content vectors of the expanded memories are the old
    // one's; cleared, they are embedded again at the next start (src/memory/upgrade.ts), and
    // the contradiction check embeds a neighbour's content itself meanwhile.
    if (embed !== "convert") {
      await tx.exec(
        "update memories set content_embedding = null where content_embedding is not null",
      );
    }
    await tx.exec("alter table memories drop column embedding");
    await tx.exec("alter table memories rename column embedding_next to embedding");
    await renameNextIndexes(tx);
    await recordEmbedder(tx, target);
    return true;
  });
  if (done) await analyze(db);
  return done;
}
