/**
 * The dense vectors of the memories (migrations/0016_dense.sql) as the backfill of an existing
 * database writes them: where the backfill stands (in the meta row), the memories after its
 * cursor, and a batch of vectors written with the cursor moved in one transaction. The
 * backfill itself (what is encoded, in which order, when it ends) is src/memory/dense.ts's;
 * this module is its store, a `Db` and nothing else.
 * @module
 */
import type { DenseInfo } from "../embed/dense.ts";
import type { Db } from "./db.ts";
import { INDEXED_TEXT, vectorLiteral } from "./sql.ts";

/** Where the backfill stands ({@link denseState}). */
export interface DenseRecord {
  complete: DenseInfo | null;
  running: DenseInfo | null;
  cursor: string | null;
}

type InfoRow = { provider: string | null; model: string | null; dimension: number | null };

function infoOf(r: InfoRow): DenseInfo | null {
  return r.provider === null || r.model === null || r.dimension === null
    ? null
    : { provider: r.provider, model: r.model, dimension: Number(r.dimension) };
}

/** Where the backfill stands: the encoder every memory has a vector of, the running one. */
export async function denseState(db: Db, forUpdate = false): Promise<DenseRecord> {
  const [r] = await db.query<
    {
      provider: string | null;
      model: string | null;
      dimension: number | null;
      running_provider: string | null;
      running_model: string | null;
      running_dimension: number | null;
      cursor: string | null;
    }
  >(
    `select dense_provider as provider, dense_model as model, dense_dimension as dimension,
            dense_running_provider as running_provider, dense_running_model as running_model,
            dense_running_dimension as running_dimension, dense_cursor::text as cursor
       from mneme_meta where id = 1 ${forUpdate ? "for update" : ""}`,
  );
  if (!r) return { complete: null, running: null, cursor: null };
  return {
    complete: infoOf(r),
    running: infoOf({
      provider: r.running_provider,
      model: r.running_model,
      dimension: r.running_dimension,
    }),
    cursor: r.cursor,
  };
}

/** Record a backfill of `target` as running, its cursor at the start. */
export async function beginDense(db: Db, target: DenseInfo): Promise<void> {
  await db.query(
    `update mneme_meta set dense_running_provider = $1, dense_running_model = $2,
            dense_running_dimension = $3, dense_cursor = null where id = 1`,
    [target.provider, target.model, target.dimension],
  );
}

/** Up to `limit` memories (every row) with an id after `cursor` (all when null), in id order. */
export function densePending(
  db: Db,
  cursor: string | null,
  limit: number,
): Promise<{ id: string; content: string }[]> {
  return db.query<{ id: string; content: string }>(
    `select m.id::text as id, ${INDEXED_TEXT} as content from memories m
      where $1::uuid is null or m.id > $1::uuid order by m.id limit $2`,
    [cursor, limit],
  );
}

/** Whether the running backfill is `target`'s (in a transaction: its meta row locked). */
async function runs(tx: Db, target: DenseInfo): Promise<boolean> {
  const { running } = await denseState(tx, true);
  return running !== null && running.provider === target.provider &&
    running.model === target.model && running.dimension === target.dimension;
}

/**
 * Write a batch's vectors (null: no vector) and move the cursor, in one transaction; a memory
 * whose content changed since it was read keeps the vector its update wrote. False, writing
 * nothing, when the running backfill is no longer `target`'s.
 */
export function storeDense(
  db: Db,
  target: DenseInfo,
  rows: { id: string; content: string; vector: ArrayLike<number> | null }[],
  cursor: string,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!await runs(tx, target)) return false;
    await tx.query(
      `update memories m set dense = x.v::vector
         from jsonb_to_recordset($1::text::jsonb) as x(id uuid, c text, v text)
        where m.id = x.id and ${INDEXED_TEXT} = x.c`,
      [
        JSON.stringify(
          rows.map((r) => ({
            id: r.id,
            c: r.content,
            v: r.vector ? vectorLiteral(r.vector) : null,
          })),
        ),
      ],
    );
    await tx.query("update mneme_meta set dense_cursor = $1::uuid where id = 1", [cursor]);
    return true;
  });
}

/** Record `target` as complete (the backfill ended); false when it no longer runs. */
export function finishDense(db: Db, target: DenseInfo): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!await runs(tx, target)) return false;
    await tx.query(
      `update mneme_meta set dense_provider = dense_running_provider,
              dense_model = dense_running_model, dense_dimension = dense_running_dimension,
              dense_running_provider = null, dense_running_model = null,
              dense_running_dimension = null, dense_cursor = null
        where id = 1`,
    );
    return true;
  });
}
