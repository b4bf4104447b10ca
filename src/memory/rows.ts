/**
 * Rows as the service writes them: a validated memory made a row ({@link newRow}), and a long
 * list of rows written in chunks that each take about {@link IMPORT_CHUNK_TARGET_MS}, with a
 * turn of the event loop between them ({@link writeInChunks}), so that an import or a
 * re-embedding run never holds the process or the database for long. Shared by the service's
 * create, its imports (importer.ts) and its re-embedding steps.
 * @module
 */
import type { NewRow } from "../store/sql.ts";
import type { NewMemory } from "./validate.ts";

/** Time an import's chunk transaction aims at: well under the 200 ms reads may wait. */
export const IMPORT_CHUNK_TARGET_MS = 50;
/** Smallest and largest import chunk (rows). */
export const IMPORT_CHUNK_MIN = 16;
const IMPORT_CHUNK_MAX = 1000;

/** Let the event loop run pending I/O (other requests) before going on. */
export const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Write `rows` in chunks, each one call of `write` taking about
 * {@link IMPORT_CHUNK_TARGET_MS} (the size adapts to the measured time, at most doubling
 * from one chunk to the next), with a turn of the event loop after each: other requests
 * wait for one chunk at most. With `more` (more rows follow, as the next slice of an import),
 * the rows left that do not fill a chunk are not written but returned, to go first in the
 * next call; otherwise none is left.
 */
export async function writeInChunks<T>(
  rows: T[],
  write: (chunk: T[]) => Promise<void>,
  state = { size: IMPORT_CHUNK_MIN },
  more = false,
): Promise<T[]> {
  let size = state.size;
  for (let i = 0; i < rows.length;) {
    if (more && rows.length - i < size) return rows.slice(i);
    const chunk = rows.slice(i, i + size);
    const t0 = performance.now();
    await write(chunk);
    i += chunk.length;
    const ms = Math.max(performance.now() - t0, 1);
    const scaled = Math.floor(size * Math.min(2, IMPORT_CHUNK_TARGET_MS / ms));
    size = Math.max(IMPORT_CHUNK_MIN, Math.min(IMPORT_CHUNK_MAX, scaled));
    state.size = size;
    await nextTurn();
  }
  return [];
}

/**
 * A validated memory as a row to insert, with a new id and its vectors; times default to
 * `now`.
 */
export function newRow(
  v: NewMemory,
  embedding: number[],
  now: Date,
  dense: ArrayLike<number> | null = null,
): NewRow {
  const id = crypto.randomUUID();
  return {
    id,
    content: v.content,
    scope: v.scope,
    project: v.project,
    type: v.type,
    tags: v.tags,
    weight: v.weight,
    supersedes: v.supersedes,
    createdAt: v.createdAt ?? now,
    updatedAt: v.updatedAt ?? now,
    expiresAt: v.ttlMs === null ? null : new Date(now.getTime() + v.ttlMs),
    embedding,
    dense,
    ...(v.superseded ? { supersededBy: id } : {}),
    ...(v.expansionClearedAt ? { expansionClearedAt: v.expansionClearedAt } : {}),
  };
}
