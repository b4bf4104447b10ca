/**
 * Writes and postings: a memory is inserted with its postings (the lexical index) and the
 * keys of its (term, project) pairs in one statement, so a memory never exists without them;
 * a create on a backend that batches ({@link DbCapabilities.batchedCreate}) checks the
 * recorded embedder, reads its nearest neighbours and inserts in one batch. Postings of
 * memories stored before version 2, or of updated content, are rebuilt here too.
 * @module
 */
import type { Memory } from "../domain/memory.ts";
import type { EmbedderInfo } from "../embed/embedder.ts";
import type { Db } from "./db.ts";
import type { CorpusCache } from "./corpus.ts";
import {
  CONTRADICTION_SETTINGS,
  exact,
  nearestContentStatement,
  nearestStatement,
} from "./search.ts";
import {
  type NewRow,
  type Postings,
  postingsOf,
  type Row,
  rowsPayload,
  rowsPayloadDense,
  type ScopeFilter,
  type Scored,
  toMemory,
} from "./sql.ts";

/**
 * The memories of the rows `x` of {@link INSERT_ROWS} and {@link STAGE_ROWS} (import job $2),
 * as the columns and the select of their `insert into memories`.
 */
export const MEMORY_ROWS_FROM_X = `(id, content, scope, project, type, tags, weight, supersedes,
                superseded_by, created_at, updated_at, expires_at, expansion_cleared_at,
                embedding, term_count, import_job, dense)
           select x.id, x.content, x.scope, x.project, x.type,
                  array(select jsonb_array_elements_text(x.tags)), x.weight, x.supersedes,
                  x.superseded_by, x.created_at, x.updated_at, x.expires_at,
                  x.expansion_cleared_at, x.embedding::vector, x.len, $2::uuid, x.dense::vector
             from x`;

/**
 * Insert memories and their postings in one statement (the foreign key is checked at its end),
 * so a memory never exists without them, and the keys of their (term, project) pairs that are
 * missing (migrations/0014); $1 is the rows as JSON ({@link insertStatement}), $2 the import job
 * or null. `posted`: the postings written.
 */
const INSERT_ROWS_FROM = `select * from jsonb_to_recordset($1::text::jsonb) as x(
                id uuid, content text, scope text, project text, type text, tags jsonb,
                weight double precision, supersedes uuid, superseded_by uuid, created_at timestamptz,
                updated_at timestamptz, expires_at timestamptz, expansion_cleared_at timestamptz,
                embedding text, terms jsonb,
                len int, dense text)`;
const INSERT_ROWS = insertRows(INSERT_ROWS_FROM);

/**
 * {@link INSERT_ROWS} on the embedded database: the vectors are not in the rows' JSON but in
 * $3, all of them in one `real[]` sent in Postgres's binary format ({@link float4ArrayBinary}),
 * $4 floats a row; row `j`'s is its slice (as {@link STAGE_ROWS_BINARY}), and the dense vectors
 * in $5, $6 floats each, row `j`'s the `dk`th (none when null; {@link rowsPayloadDense}). A
 * create's vectors are neither formatted as text here nor parsed there (0.07 ms of a create's
 * 2.5 in WASM for the embedding, about 0.1 ms for the dense vector).
 */
const INSERT_ROWS_BINARY_FROM = `select r.*,
                  ($3::real[])[r.j * $4::int + 1 : (r.j + 1) * $4::int] as embedding,
                  case when r.dk is not null
                       then ($5::real[])[r.dk * $6::int + 1 : (r.dk + 1) * $6::int] end as dense
             from jsonb_to_recordset($1::text::jsonb) as r(
                j int, id uuid, content text, scope text, project text, type text, tags jsonb,
                weight double precision, supersedes uuid, superseded_by uuid, created_at timestamptz,
                updated_at timestamptz, expires_at timestamptz, expansion_cleared_at timestamptz,
                terms jsonb, len int, dk int)`;
const INSERT_ROWS_BINARY = insertRows(INSERT_ROWS_BINARY_FROM);

/**
 * {@link INSERT_ROWS} and {@link INSERT_ROWS_BINARY} for one row (a create), with the planner
 * told so (`limit 1`): it otherwise takes the row set for 100 rows of 100 terms each, and its
 * plan, kept for every create, hashes and sorts what are a few rows (an insert 3 % faster at
 * 2,000 memories; docs/performance.md, "0.21: create").
 */
const INSERT_ROW = insertRows(`${INSERT_ROWS_FROM} limit 1`);
const INSERT_ROW_BINARY = insertRows(`${INSERT_ROWS_BINARY_FROM} limit 1`);

/**
 * {@link INSERT_ROW} and {@link INSERT_ROW_BINARY} writing their statistics deltas themselves,
 * for a create in one batch ({@link insertAfterNearest}), whose transaction sets `mneme.staged`
 * in its first statement: the statement triggers of `memories` and `memory_postings`
 * (migrations/functions/mneme_memories_inserted.sql, mneme_terms_inserted.sql) then do
 * nothing, and the statement adds the rows they would have added: one `memory_corpus` delta
 * for the memory, one `memory_term_df` delta per (term, project) posted, from the keys it
 * holds already rather than looked up again. Under `EXPLAIN ANALYZE` at 2,000 memories the
 * two triggers took 0.06 and 0.26 ms of a create's insert, the two inserts here 0.03 and 0.09
 * (docs/performance.md, "0.22: the create").
 */
const INSERT_ROW_COUNTED = insertRows(`${INSERT_ROWS_FROM} limit 1`, true);
const INSERT_ROW_BINARY_COUNTED = insertRows(`${INSERT_ROWS_BINARY_FROM} limit 1`, true);

/**
 * An insert's statement over the rows `x` that `rows` selects ({@link INSERT_ROWS}); with
 * `counted`, one that writes its triggers' statistics deltas itself ({@link INSERT_ROW_COUNTED}).
 */
function insertRows(rows: string, counted = false): string {
  return `with x as materialized (
           ${rows}
         ), pairs as materialized (
           select distinct t.term, x.project from x, jsonb_object_keys(x.terms) as t(term)
         ), known as materialized (
           select p.term, p.project, k.id from pairs p
             cross join lateral (select k.id from memory_term_keys k
                                  where k.term = p.term
                                    and coalesce(k.project, '') = coalesce(p.project, '')
                                  limit 1) k
         ), added as (
           -- In one order, so that two writers adding the same new pairs cannot deadlock.
           insert into memory_term_keys (term, project)
           select p.term, p.project from pairs p
            where not exists (select 1 from known
                               where known.term = p.term
                                 and known.project is not distinct from p.project)
            order by p.term, p.project
           on conflict (term, (coalesce(project, ''))) do nothing
           returning id, term, project
         ), keys as (
           select term, project, id from known union all select term, project, id from added
         ), ins as (
           insert into memories as m ${MEMORY_ROWS_FROM_X}
           returning m.id, m.content, m.scope, m.project, m.type, m.tags, m.weight, m.created_at,
                     m.updated_at, m.expires_at, m.supersedes, m.superseded_by
         ), num as (
           insert into memory_nums (id) select x.id from x returning num, id
         ), ${
    counted
      ? `posting as materialized (
           select k.id as key, k.term, k.project, n.num, t.value::smallint as tf,
                  least(x.len, 32767)::smallint as len
             from x join num n on n.id = x.id
             cross join lateral jsonb_each_text(x.terms) as t
             join keys k on k.term = t.key and k.project is not distinct from x.project
         ), post as (
           insert into memory_postings (key, num, tf, len)
           select p.key, p.num, p.tf, p.len from posting p
           returning 1
         ), df as (
           -- What mneme_terms_inserted adds (migrations/functions): one delta a (term, project).
           insert into memory_term_df (term, project, df)
           select p.term, p.project, count(*) from posting p group by p.term, p.project
         ), corpus as (
           -- What mneme_memories_inserted adds: one delta a project value.
           insert into memory_corpus (project, n, len, with_len)
           select x.project, count(*), coalesce(sum(x.len), 0), count(x.len) from x
            group by x.project
         )`
      : `post as (
           insert into memory_postings (key, num, tf, len)
           select k.id, n.num, t.value::smallint, least(x.len, 32767)::smallint
             from x join num n on n.id = x.id
             cross join lateral jsonb_each_text(x.terms) as t
             join keys k on k.term = t.key and k.project is not distinct from x.project
           returning 1
         )`
  }
         select ins.*, (select count(*) from post)::int as posted from ins`;
}

/**
 * The statement and parameters that insert `rows` with their `posts` (of import `job`, or
 * null): {@link INSERT_ROWS_BINARY} on the embedded database, {@link INSERT_ROWS} on a server
 * ({@link rowsPayload}).
 */
function insertStatement(
  db: Db,
  rows: NewRow[],
  posts: Postings[],
  job: string | null,
  counted = false,
): [string, unknown[]] {
  const one = rows.length === 1;
  const binary = rowsPayloadDense(db, rows, (j) => posts[j]);
  if (counted && !one) throw new Error("a counted insert is one row");
  return binary
    ? [
      counted ? INSERT_ROW_BINARY_COUNTED : one ? INSERT_ROW_BINARY : INSERT_ROWS_BINARY,
      [binary.json, job, ...binary.vectors, ...binary.dense],
    ]
    : [
      counted ? INSERT_ROW_COUNTED : one ? INSERT_ROW : INSERT_ROWS,
      [rowsPayload(db, rows, (j) => posts[j]).json, job],
    ];
}

/**
 * Insert rows (in batches of 200 per statement); returns the stored memories in order.
 * Rows of an import carry its `job` id and stay invisible until it is published.
 */
export async function insert(db: Db, rows: NewRow[], job: string | null = null): Promise<Memory[]> {
  const out: Memory[] = [];
  for (let i = 0; i < rows.length; i += 200) {
    const batch = rows.slice(i, i + 200);
    const posts = batch.map((r) => postingsOf(r.content));
    const inserted = await db.query<Row & { posted: number }>(
      ...insertStatement(db, batch, posts, job),
    );
    await postAgainIfMissed(db, batch, posts, inserted);
    const byId = new Map(inserted.map((r) => [r.id, toMemory(r)]));
    for (const r of batch) out.push(byId.get(r.id)!);
  }
  return out;
}

/**
 * Add the missing keys of the (term, project) pairs of `docs` to `memory_term_keys` (never
 * deleted: a key left by a write that failed afterwards only waits for its pair).
 */
async function ensureKeys(
  db: Db,
  docs: { terms: readonly string[]; project: string | null }[],
): Promise<void> {
  const seen = new Set<string>();
  const terms: string[] = [];
  const projects: (string | null)[] = [];
  for (const d of docs) {
    for (const t of d.terms) {
      const k = JSON.stringify([t, d.project]);
      if (seen.has(k)) continue;
      seen.add(k);
      terms.push(t);
      projects.push(d.project);
    }
  }
  if (!terms.length) return;
  // In one order, so that two writers adding the same new pairs cannot deadlock.
  await db.query(
    `insert into memory_term_keys (term, project)
     select x.term, x.project from unnest($1::text[], $2::text[]) as x(term, project)
       left join lateral (select 1 as found from memory_term_keys k
                           where k.term = x.term and coalesce(k.project, '') = coalesce(x.project, '')
                           limit 1) f on true
      where f.found is null
      order by x.term, x.project
     on conflict (term, (coalesce(project, ''))) do nothing`,
    [terms, projects],
  );
}

/**
 * A pair added by a concurrent writer after an insert began (server Postgres) is neither
 * seen nor added by it (it waited for that writer, then did nothing): the postings of
 * `rows` are written again by a statement that sees it when fewer were `posted` than due.
 */
async function postAgainIfMissed(
  db: Db,
  rows: NewRow[],
  posts: Postings[],
  inserted: { posted: number }[],
): Promise<void> {
  const expected = posts.reduce((n, p) => n + Object.keys(p.terms).length, 0);
  if (inserted.length && Number(inserted[0].posted) < expected) {
    await writePostings(
      db,
      rows.map((r, j) => ({ id: r.id, c: r.content, ...posts[j] })),
      rows.map((r) => r.id),
    );
  }
}

/**
 * A create without a memory to supersede, in one transaction and, on the embedded database
 * in a worker thread, one message: the recorded embedder checked (it must be `embedder`, or
 * none), the `k` nearest current memories to `row`'s vector within `scope` read (for the
 * contradiction check, before the row exists), then `row` inserted. Null, with nothing
 * written, when another embedder is recorded. Used on the embedded database only: each
 * statement there is a message to the worker, on a server one round trip either way. With
 * `byContent` (some memory has an expansion), the nearest are compared on their contents'
 * vectors ({@link nearestContentStatement}).
 */
export async function insertAfterNearest(
  db: Db,
  cache: CorpusCache,
  row: NewRow,
  embedder: EmbedderInfo,
  scope: ScopeFilter,
  k: number,
  now: Date,
  byContent = false,
): Promise<{ memory: Memory; near: Scored[] } | null> {
  // The vector as binary `real[]` where the database takes it (vectorParam): not formatted
  // as 6 KB of text here and parsed there, as the insert's own vectors are not.
  const isExact = await exact(db, cache, scope);
  const binary = db.capabilities.binaryVectors;
  const [nearText, nearParams] = byContent
    ? nearestContentStatement(row.embedding, scope, k, now, isExact, undefined, binary)
    : nearestStatement(row.embedding, scope, k, now, isExact, undefined, "embedding", binary);
  const posts = [postingsOf(row.content)];
  const [insertText, insertParams] = insertStatement(db, [row], posts, null, true);
  const out = await db.batch([
    // The embedder check and the contradiction check's settings (CONTRADICTION_SETTINGS:
    // sequential scans off, the HNSW walk's breadth; as function calls, a prepared statement
    // on the embedded database) in one statement: no row, nothing set. With them
    // `mneme.staged`: the insert writes its statistics deltas itself (no trigger does;
    // INSERT_ROW_COUNTED), so the two are set together or not at all. All three last
    // until the batch's transaction ends: the batch is one transaction of its own.
    {
      text: `${CONTRADICTION_SETTINGS}, set_config('mneme.staged', 'on', true) <> '' as counted
               from mneme_meta
              where id = 1 and (
               coalesce(embedder_provider, '') = '' or coalesce(embedder_model, '') = ''
               or coalesce(embedder_dimension, 0) = 0
               or (embedder_provider = $1 and embedder_model = $2 and embedder_dimension = $3))`,
      params: [embedder.provider, embedder.model, embedder.dimension],
      stopUnlessRows: true,
      prepare: true,
    },
    // Prepared: planned with sequential scans off, its plan stays on the HNSW index (or, for
    // a small scope, on the btree: another text) for every vector, scope and time (a generic
    // plan after five creates, 0.3-0.4 ms a create less than planning it each time at 2,000
    // memories; docs/history/performance-2026-11-25-to-28.md).
    { text: nearText, params: nearParams, prepare: true },
    // Its plan cannot depend on its parameters (rows as JSON): the embedded database keeps
    // it (a generic plan) rather than plan it again for each create. Sequential scans stay
    // off for it: it scans no table (its lookups go through indexes), so nothing changes but
    // one statement less.
    { text: insertText, params: insertParams, prepare: true },
  ]);
  if (out.length < 3) return null;
  const inserted = out[2] as (Row & { posted: number })[];
  await postAgainIfMissed(db, [row], posts, inserted);
  return {
    near: (out[1] as Row[]).map((r) => ({
      memory: toMemory(r),
      similarity: Number(r.similarity),
    })),
    memory: toMemory(inserted[0]),
  };
}

/** Memories whose postings are not built yet (stored before version 2), up to `limit`. */
export async function termsPending(
  db: Db,
  limit: number,
): Promise<{ id: string; content: string }[]> {
  return await db.query<{ id: string; content: string }>(
    `select id, content from memories where term_count is null order by id limit $1`,
    [limit],
  );
}

/**
 * (Re)build the postings of memories, each only while it still has the content given
 * (a memory updated meanwhile got its postings from the update).
 */
export async function storeTerms(db: Db, items: { id: string; content: string }[]): Promise<void> {
  if (!items.length) return;
  const posts = items.map((i) => ({ id: i.id, c: i.content, ...postingsOf(i.content) }));
  const payload = JSON.stringify(posts);
  await db.transaction(async (tx) => {
    const ids = await tx.query<{ id: string }>(
      `update memories m set term_count = x.len
         from jsonb_to_recordset($1::text::jsonb) as x(id uuid, c text, len int)
        where m.id = x.id and m.content = x.c returning m.id`,
      [payload],
    );
    if (!ids.length) return;
    await writePostings(tx, posts, ids.map((r) => r.id));
  });
}

/**
 * Replace the postings of the memories `keep` (of `posts`) with those of `posts`, adding
 * the keys they lack first.
 */
export async function writePostings(
  db: Db,
  posts: { id: string; c: string; terms: Record<string, number>; len: number }[],
  keep: string[],
): Promise<void> {
  const payload = JSON.stringify(posts);
  const projects = await db.query<{ id: string; project: string | null }>(
    "select id, project from memories where id = any($1::uuid[])",
    [keep],
  );
  const projectOf = new Map(projects.map((r) => [r.id, r.project]));
  await ensureKeys(
    db,
    posts.filter((i) => projectOf.has(i.id)).map((i) => ({
      terms: Object.keys(i.terms),
      project: projectOf.get(i.id)!,
    })),
  );
  // A memory stored before version 14 without postings has its number already (the
  // migration numbered every memory); one stored since has it from its insert.
  await db.query(
    `delete from memory_postings
        where num = any(array(select num from memory_nums where id = any($1::uuid[])))`,
    [keep],
  );
  await db.query(
    `insert into memory_postings (key, num, tf, len)
       select k.id, n.num, t.value::smallint, least(x.len, 32767)::smallint
         from jsonb_to_recordset($1::text::jsonb) as x(id uuid, terms jsonb, len int)
         join memories m on m.id = x.id,
              lateral (select n.num from memory_nums n where n.id = m.id limit 1) n,
              jsonb_each_text(x.terms) as t,
              lateral (select k.id from memory_term_keys k
                        where k.term = t.key and coalesce(k.project, '') = coalesce(m.project, '')
                        limit 1) k
        where x.id = any($2::uuid[])`,
    [payload, keep],
  );
}
