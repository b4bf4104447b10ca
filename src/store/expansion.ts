/**
 * Memories expanded at write time by a model (migrations/0019_expansion.sql; the worker is
 * src/memory/expansion.ts): the memories waiting for an expansion, an expansion written with
 * the memory's re-encoded index in one transaction (only while its content is the one the
 * model read), the expansions of search candidates, the counts the status shows, and the
 * lease that lets one worker at a time expand (0020). The tokens it spends per day are in
 * budget.ts.
 * @module
 */
import type { Db } from "./db.ts";
import { liveClause, NOT_SUPERSEDED, Params, postingsOf, vectorLiteral, VISIBLE } from "./sql.ts";
import { writePostings } from "./writes.ts";
import { lockReembedRun } from "./reembed.ts";
import type { MemoryType, Scope } from "../domain/memory.ts";

/** A memory waiting for its expansion, as the model reads it. */
export interface ExpansionPending {
  id: string;
  content: string;
  type: MemoryType;
  scope: Scope;
}

/**
 * The memories waiting: current, not superseded, without an expansion, and not kept from one
 * (`memcli expansion clear`: migrations/0022_expansion_cleared.sql).
 */
function waitingClause(now: Date, p: Params): string {
  return `m.expansion is null and m.expansion_cleared_at is null and ${NOT_SUPERSEDED} and ${
    liveClause(now, p)
  } and ${VISIBLE}`;
}

/**
 * Up to `limit` memories waiting for an expansion, newest first (what was just written is
 * what a user will look for soonest), leaving out the ids of `skip` (the answers dropped by
 * this process).
 */
export function expansionPending(
  db: Db,
  limit: number,
  now: Date,
  skip: readonly string[] = [],
): Promise<ExpansionPending[]> {
  const p = new Params();
  const where = waitingClause(now, p);
  return db.query<ExpansionPending>(
    `select m.id::text as id, m.content, m.type, m.scope from memories m
      where ${where} and not (m.id = any(${p.add(skip)}::uuid[]))
      order by m.created_at desc, m.id limit ${p.add(limit)}`,
    p.values,
  );
}

/** An expansion to write with the memory's index of `content + "\n" + expansion`. */
export interface ExpansionWrite {
  id: string;
  /** The content the model read: the write happens only while the memory still has it. */
  content: string;
  expansion: string;
  model: string;
  /** The embedding of the indexed text. */
  embedding: number[];
  /** Its dense vector (null: none, as for a model's embedder). */
  dense: ArrayLike<number> | null;
}

/**
 * Write expansions with their embedding, dense vector and postings in one transaction, each
 * keeping the memory's embedding before it (its content's) as `content_embedding`
 * (migrations/0021_content_embedding.sql), each
 * only while the memory still has the content the model read, has no expansion yet (an
 * update meanwhile cleared it and re-queued the memory) and was not kept from one meanwhile
 * (`memcli expansion clear` during the call). Returns the ids written.
 */
export function storeExpansions(db: Db, items: ExpansionWrite[]): Promise<string[]> {
  if (!items.length) return Promise.resolve([]);
  return db.transaction(async (tx) => {
    // A re-embedding run holds a vector of the old text in embedding_next: cleared, so that
    // the run embeds the new one (as an update of the content does).
    const running = await lockReembedRun(tx, "share");
    const posts = items.map((i) => ({
      id: i.id,
      c: `${i.content}\n${i.expansion}`,
      ...postingsOf(`${i.content}\n${i.expansion}`),
    }));
    const rows = await tx.query<{ id: string }>(
      `update memories m set expansion = x.x, expansion_model = x.model,
              content_embedding = m.embedding::vector, embedding = x.e::vector, dense = x.d::vector, term_count = x.len
              ${running ? ", embedding_next = null" : ""}
         from jsonb_to_recordset($1::text::jsonb)
              as x(id uuid, c text, x text, model text, e text, d text, len int)
        where m.id = x.id and m.content = x.c and m.expansion is null
          and m.expansion_cleared_at is null
        returning m.id::text as id`,
      [JSON.stringify(items.map((i, j) => ({
        id: i.id,
        c: i.content,
        x: i.expansion,
        model: i.model,
        e: vectorLiteral(i.embedding),
        d: i.dense ? vectorLiteral(i.dense) : null,
        len: posts[j].len,
      })))],
    );
    if (!rows.length) return [];
    await writePostings(tx, posts, rows.map((r) => r.id));
    return rows.map((r) => r.id);
  });
}

/** Whether any memory has an expansion (the partial index memories_expanded answers). */
export async function anyExpansion(db: Db): Promise<boolean> {
  const rows = await db.query<{ any: boolean }>(
    "select exists (select 1 from memories where expansion is not null) as any",
  );
  return rows[0]?.any === true;
}

/** The expansions of `ids` that have one (search candidates). */
export async function expansionsOf(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db.query<{ id: string; expansion: string }>(
    `select id::text as id, expansion from memories
      where id = any($1::uuid[]) and expansion is not null`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.expansion]));
}

/** Of `ids`, the memories with an expansion but no content vector yet (expanded before 0021). */
export async function withoutContentVector(
  db: Db,
  ids: readonly string[],
): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.query<{ id: string }>(
    `select id::text as id from memories
      where id = any($1::uuid[]) and expansion is not null and content_embedding is null`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Up to `limit` expanded memories without a content vector (expanded before version 21, or
 * whose vectors a re-embedding replaced): the start-up backfill's batch (src/memory/upgrade.ts).
 */
export function contentVectorsPending(
  db: Db,
  limit: number,
): Promise<{ id: string; content: string }[]> {
  return db.query<{ id: string; content: string }>(
    `select id::text as id, content from memories
      where expansion is not null and content_embedding is null order by id limit $1`,
    [limit],
  );
}

/**
 * Store the content vectors of expanded memories, each only while the memory is still
 * expanded and has the content embedded; the number stored.
 */
export async function storeContentVectors(
  db: Db,
  items: { id: string; content: string; embedding: number[] }[],
): Promise<number> {
  if (!items.length) return 0;
  const rows = await db.query<{ id: string }>(
    `update memories m set content_embedding = x.e::vector
       from jsonb_to_recordset($1::text::jsonb) as x(id uuid, c text, e text)
      where m.id = x.id and m.content = x.c and m.expansion is not null
      returning m.id::text as id`,
    [JSON.stringify(items.map((i) => ({ id: i.id, c: i.content, e: vectorLiteral(i.embedding) })))],
  );
  return rows.length;
}

/** Memories expanded, and memories waiting (current, not superseded, without one). */
export async function expansionCounts(
  db: Db,
  now: Date,
): Promise<{ expanded: number; waiting: number }> {
  const p = new Params();
  const waiting = waitingClause(now, p);
  const [r] = await db.query<{ expanded: number; waiting: number }>(
    `select count(*) filter (where m.expansion is not null)::int as expanded,
            count(*) filter (where ${waiting})::int as waiting
       from memories m where ${VISIBLE}`,
    p.values,
  );
  return { expanded: Number(r?.expanded ?? 0), waiting: Number(r?.waiting ?? 0) };
}

/**
 * Take or renew the lease of the expansion worker for `ms` from now (the database's clock, the
 * same for every daemon on it): granted when nobody holds it, when `holder` does, or when
 * another's has run out (its daemon died); refused while another worker's runs (one statement:
 * two workers asking at once cannot both get it).
 */
export async function takeExpansionLease(db: Db, holder: string, ms: number): Promise<boolean> {
  const rows = await db.query<{ holder: string }>(
    `insert into expansion_lease as l (id, holder, until)
       values (1, $1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
       on conflict (id) do update set holder = excluded.holder, until = excluded.until
       where l.holder = excluded.holder or l.until <= clock_timestamp()
     returning holder`,
    [holder, ms],
  );
  return rows.length === 1;
}

/** Give the lease back (when `holder` has it): another daemon's worker may start at once. */
export async function releaseExpansionLease(db: Db, holder: string): Promise<void> {
  await db.query("delete from expansion_lease where holder = $1", [holder]);
}

/** A memory's expansion as `memcli expansion show` reads it. */
export interface ExpansionRow {
  expansion: string | null;
  model: string | null;
  cleared_at: string | null;
  waiting: boolean;
}

/** The expansion of memory `id` (null: no such memory, or not visible). */
export async function expansionRow(db: Db, id: string, now: Date): Promise<ExpansionRow | null> {
  const p = new Params();
  const waiting = waitingClause(now, p);
  const rows = await db.query<{
    expansion: string | null;
    model: string | null;
    cleared_at: Date | string | null;
    waiting: boolean;
  }>(
    `select m.expansion, m.expansion_model as model, m.expansion_cleared_at as cleared_at,
            (${waiting}) as waiting
       from memories m where m.id = ${p.add(id)} and ${VISIBLE}`,
    p.values,
  );
  const r = rows[0];
  if (!r) return null;
  const at = r.cleared_at;
  return {
    expansion: r.expansion,
    model: r.model,
    cleared_at: at === null ? null : (at instanceof Date ? at : new Date(at)).toISOString(),
    waiting: r.waiting === true,
  };
}

/** Up to `limit` expanded memories (of `id` alone when given), with their contents. */
export function expandedMemories(
  db: Db,
  limit: number,
  id?: string,
): Promise<{ id: string; content: string }[]> {
  const p = new Params();
  const one = id ? `and m.id = ${p.add(id)}` : "";
  return db.query<{ id: string; content: string }>(
    `select m.id::text as id, m.content from memories m
      where m.expansion is not null ${one} and ${VISIBLE} order by m.id limit ${p.add(limit)}`,
    p.values,
  );
}

/** A memory whose expansion is removed: its index re-encoded from its content alone. */
export interface ExpansionClear {
  id: string;
  /** The content embedded: the write happens only while the memory still has it. */
  content: string;
  embedding: number[];
  dense: ArrayLike<number> | null;
}

/**
 * Remove expansions: each memory's expansion, model and content vector cleared, its
 * embedding, dense vector and postings those of its content again, and the time of the removal
 * recorded (the worker does not expand it again until {@link redoExpansions}); in one
 * transaction, each only while the memory still has the content embedded. The ids cleared.
 */
export function clearExpansions(db: Db, items: ExpansionClear[], now: Date): Promise<string[]> {
  if (!items.length) return Promise.resolve([]);
  return db.transaction(async (tx) => {
    const running = await lockReembedRun(tx, "share");
    const posts = items.map((i) => ({ id: i.id, c: i.content, ...postingsOf(i.content) }));
    const rows = await tx.query<{ id: string }>(
      `update memories m set expansion = null, expansion_model = null, content_embedding = null,
              expansion_cleared_at = $2, embedding = x.e::vector, dense = x.d::vector,
              term_count = x.len ${running ? ", embedding_next = null" : ""}
         from jsonb_to_recordset($1::text::jsonb) as x(id uuid, c text, e text, d text, len int)
        where m.id = x.id and m.content = x.c and m.expansion is not null
        returning m.id::text as id`,
      [
        JSON.stringify(items.map((i, j) => ({
          id: i.id,
          c: i.content,
          e: vectorLiteral(i.embedding),
          d: i.dense ? vectorLiteral(i.dense) : null,
          len: posts[j].len,
        }))),
        now,
      ],
    );
    if (!rows.length) return [];
    await writePostings(tx, posts, rows.map((r) => r.id));
    return rows.map((r) => r.id);
  });
}

/**
 * Keep memory `id`, which has no expansion, from being expanded (as if its expansion had been
 * removed); whether it was (false: no such memory, or it has an expansion meanwhile).
 */
export async function keepFromExpansion(db: Db, id: string, now: Date): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `update memories m set expansion_cleared_at = coalesce(m.expansion_cleared_at, $2)
      where m.id = $1 and m.expansion is null and ${VISIBLE} returning m.id`,
    [id, now],
  );
  return rows.length === 1;
}

/**
 * Let the worker expand again the memories whose expansion was removed: `id`'s alone, or every
 * one (null). The number of memories given back to the worker.
 */
export async function redoExpansions(db: Db, id: string | null): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `update memories m set expansion_cleared_at = null
      where m.expansion_cleared_at is not null ${id ? "and m.id = $1" : ""} and ${VISIBLE}
      returning m.id`,
    id ? [id] : [],
  );
  return rows.length;
}
