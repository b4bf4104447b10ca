/**
 * Staged imports: an import's rows are written in chunks, each its own short transaction so
 * that other requests run in between, tagged with the import's job and invisible to every
 * read ({@link VISIBLE}) until the job is published, when its statistics go in at once; an
 * import left unfinished by a dead process is abandoned. Deduplication against stored
 * memories ({@link importKey}) is here too.
 * @module
 */
import type { MemoryType, Scope } from "../domain/memory.ts";
import type { Db } from "./db.ts";
import { MEMORY_ROWS_FROM_X } from "./writes.ts";
import {
  liveClause,
  type NewRow,
  Params,
  type Postings,
  postingsOf,
  rowsPayload,
  rowsPayloadDense,
  VISIBLE,
} from "./sql.ts";

/** The identity an import deduplicates on: content, scope, project and type. */
export function importKey(
  m: { content: string; scope: Scope; project: string | null; type: MemoryType },
): string {
  return JSON.stringify([m.content, m.scope, m.project ?? null, m.type]);
}

/** A job touched less recently than this on server Postgres is left behind by a dead process. */
export const IMPORT_STALE_MS = 10 * 60_000;

/**
 * The (term, project) pairs of $1 and $2 (arrays) with the key of each, null where it has none
 * ({@link ImportJobs.stageImport}'s new pairs).
 */
const PAIRS_WITH_KEYS = `select x.term, x.project, k.id
             from unnest($1::text[], $2::text[]) as x(term, project)
             left join lateral (select k.id from memory_term_keys k
                                 where k.term = x.term
                                   and coalesce(k.project, '') = coalesce(x.project, '')
                                 limit 1) k on true`;

/**
 * An import's chunk ({@link ImportJobs.stageImport}): $1 the rows as JSON, each with its index `j`,
 * $2 the import job, $3–$6 the postings as arrays of (row index, key, tf, len), the keys
 * already found. The memories, their numbers and postings in one statement, as
 * {@link INSERT_ROWS}. `posted`: the postings written.
 */
const STAGE_ROWS = stageRows(`select * from jsonb_to_recordset($1::text::jsonb) as x(
                j int, id uuid, content text, scope text, project text, type text, tags jsonb,
                weight double precision, supersedes uuid, superseded_by uuid, created_at timestamptz,
                updated_at timestamptz, expires_at timestamptz, expansion_cleared_at timestamptz,
                embedding text, len int, dense text)`);

/**
 * {@link STAGE_ROWS} on the embedded database: the vectors are not in the rows' JSON but in
 * $7, all of the chunk's in one `real[]` sent in Postgres's binary format
 * ({@link float4ArrayBinary}), $8 floats a row; row `j`'s is its slice, cast to `vector`.
 * Neither formatted as text here nor parsed (`float_in`, in WASM) there.
 */
const STAGE_ROWS_BINARY = stageRows(`select r.*,
                  ($7::real[])[r.j * $8::int + 1 : (r.j + 1) * $8::int] as embedding,
                  case when r.dk is not null
                       then ($9::real[])[r.dk * $10::int + 1 : (r.dk + 1) * $10::int] end as dense
             from jsonb_to_recordset($1::text::jsonb) as r(
                j int, id uuid, content text, scope text, project text, type text, tags jsonb,
                weight double precision, supersedes uuid, superseded_by uuid, created_at timestamptz,
                updated_at timestamptz, expires_at timestamptz, expansion_cleared_at timestamptz,
                len int, dk int)`);

/** An import chunk's statement over the rows `x` that `rows` selects. */
function stageRows(rows: string): string {
  return `with x as materialized (
           ${rows}
         ), ins as (
           insert into memories ${MEMORY_ROWS_FROM_X} order by x.j
           returning 1
         ), num as (
           insert into memory_nums (id) select x.id from x order by x.j returning num, id
         ), post as (
           insert into memory_postings (key, num, tf, len)
           select p.key, n.num, p.tf, p.len
             from unnest($3::int[], $4::int[], $5::smallint[], $6::smallint[])
                    with ordinality as p(j, key, tf, len, o)
             join x on x.j = p.j join num n on n.id = x.id
            order by p.o
           returning 1
         )
         select (select count(*) from ins)::int as inserted,
                (select count(*) from post)::int as posted`;
}

/**
 * Insert an import's chunk: the memories and their numbers from JSON, their postings as
 * arrays of (row, key, tf, len) with the keys of their (term, project) pairs looked up by
 * the caller, `keys` (known before this chunk) and `added` (found or added by it). Cheaper
 * per row than {@link INSERT_ROWS}, which finds every pair's key for each row; the same rows,
 * numbers and postings in the same order.
 */
export async function writeChunk(
  db: Db,
  rows: NewRow[],
  posts: Postings[],
  job: string,
  keys: ReadonlyMap<string, number>,
  added: Map<string, number>,
): Promise<void> {
  const keyOf = (term: string, project: string | null) => JSON.stringify([term, project]);
  const missing = new Map<string, { term: string; project: string | null }>();
  rows.forEach((r, j) => {
    for (const term of Object.keys(posts[j].terms)) {
      const k = keyOf(term, r.project);
      if (!keys.has(k) && !added.has(k)) missing.set(k, { term, project: r.project });
    }
  });
  if (missing.size) {
    const pairs = [...missing.values()];
    // Found or added in one statement. A pair that a concurrent writer added after this
    // statement began (server Postgres) is neither: it is looked up again below.
    const found = await db.query<{ term: string; project: string | null; id: number }>(
      `with x as materialized (${PAIRS_WITH_KEYS}), ins as (
         -- In one order, so that two writers adding the same new pairs cannot deadlock.
         insert into memory_term_keys (term, project)
         select term, project from x where id is null order by term, project
         on conflict (term, (coalesce(project, ''))) do nothing
         returning term, project, id
       )
       select term, project, id from x where id is not null
       union all select term, project, id from ins`,
      [pairs.map((p) => p.term), pairs.map((p) => p.project)],
      { prepare: true },
    );
    for (const f of found) added.set(keyOf(f.term, f.project), Number(f.id));
    const late = pairs.filter((p) => !added.has(keyOf(p.term, p.project)));
    if (late.length) {
      const again = await db.query<{ term: string; project: string | null; id: number }>(
        `select term, project, id from (${PAIRS_WITH_KEYS}) p where id is not null`,
        [late.map((p) => p.term), late.map((p) => p.project)],
      );
      for (const f of again) added.set(keyOf(f.term, f.project), Number(f.id));
    }
  }
  const at: number[] = [];
  const ks: number[] = [];
  const tfs: number[] = [];
  const lens: number[] = [];
  rows.forEach((r, j) => {
    const len = Math.min(posts[j].len, 32767);
    for (const [term, tf] of Object.entries(posts[j].terms)) {
      const k = keyOf(term, r.project);
      const key = keys.get(k) ?? added.get(k);
      if (key === undefined) throw new Error(`no key for the pair ${k}`);
      at.push(j);
      ks.push(key);
      tfs.push(tf);
      lens.push(len);
    }
  });
  // The embedded database takes the vectors in binary, both kinds ({@link rowsPayloadDense}), a
  // server as text ({@link rowsPayload}).
  const len = (j: number) => ({ len: posts[j].len });
  const binary = rowsPayloadDense(db, rows, len);
  const postings = [at, ks, tfs, lens].map((xs) => `{${xs.join(",")}}`);
  const [out] = await db.query<{ posted: number }>(
    binary ? STAGE_ROWS_BINARY : STAGE_ROWS,
    binary
      ? [binary.json, job, ...postings, ...binary.vectors, ...binary.dense]
      : [rowsPayload(db, rows, len).json, job, ...postings],
    { prepare: true },
  );
  if (Number(out?.posted) !== at.length) {
    throw new Error(`staged ${out?.posted} postings of ${at.length}`);
  }
}

/** The most (term, project) keys an import's store keeps known ({@link ImportJobs}). */
export const KEYS_CACHED = 100_000;

/** The imports one store is writing, with the statistics of their committed chunks. */
export class ImportJobs {
  // Statistics of the imports this store is writing, by job: document frequency by
  // [term, project] (JSON) and count and length by project, added when the import is published.
  readonly #staged = new Map<
    string,
    {
      df: Map<string, number>;
      corpus: Map<string | null, { n: number; len: number }>;
    }
  >();
  /**
   * Keys of the (term, project) pairs (JSON) that the committed chunks of this store's imports
   * met, kept from one import to the next (at most {@link KEYS_CACHED} of them): the dictionary
   * is never deleted from and a key never changes, so a pair known once needs no lookup again.
   * A client sending 1,000 items a call looked up most of its pairs again in every call (40 ms
   * of a 550 ms call at 20,000 memories; docs/performance.md, "0.18").
   */
  readonly #keys = new Map<string, number>();

  /**
   * Start a staged import of `items` rows and return its job id. Its rows are written by
   * {@link ImportJobs.stageImport} in chunks (each its own short transaction, so that other
   * requests run in between) and stay invisible to every read ({@link VISIBLE}) until
   * {@link ImportJobs.publishImport}; {@link ImportJobs.abandonImport} deletes them.
   */
  async beginImport(db: Db, items: number): Promise<string> {
    const id = crypto.randomUUID();
    await db.query("insert into mneme_import_jobs (id, items) values ($1, $2)", [id, items]);
    this.#staged.set(id, { df: new Map(), corpus: new Map() });
    return id;
  }

  /**
   * Write one chunk of an import in one transaction. `check` runs first in that transaction
   * (the service checks the recorded embedder there). Returns false, writing nothing, when
   * the job no longer exists (abandoned as stale by another process). The rows go into the live HNSW index one by one:
   * slower in total than dropping and rebuilding it, but no statement runs for seconds.
   */
  async stageImport(
    db: Db,
    job: string,
    rows: NewRow[],
    check?: (tx: Db) => Promise<void>,
  ): Promise<boolean> {
    const posts = rows.map((r) => postingsOf(r.content));
    const keys = this.#keys;
    const added = new Map<string, number>();
    const staged = await db.transaction(async (tx) => {
      // The job touched and the chunk's settings made, in one statement (one message to the
      // embedded database's worker, not four):
      // - Staged rows need no flush of their own: nobody sees them, and the publishing commit
      //   (synchronous) flushes the log up to itself, these chunks included. Saves one fsync
      //   per chunk.
      // - No statistics deltas per chunk (migrations/0007): the import adds its own when it
      //   is published.
      // - The embedded database (one owner, a superuser): no foreign-key check per row. The
      //   chunk's statement makes the numbers its postings refer to, and import rows
      //   supersede nothing (src/memory/validate.ts); its statement triggers do nothing for
      //   staged rows.
      const replica = tx.capabilities.superuser
        ? ", set_config('session_replication_role', 'replica', true)"
        : "";
      const touched = await tx.query(
        `with t as (update mneme_import_jobs set touched_at = now() where id = $1 returning id)
         select t.id, set_config('synchronous_commit', 'off', true),
                set_config('mneme.staged', 'on', true)${replica}
           from t`,
        [job],
        { prepare: true },
      );
      if (!touched.length) return false;
      if (check) await check(tx);
      await writeChunk(tx, rows, posts, job, keys, added);
      return true;
    });
    // Keys found or added by this chunk are known once it committed (a rolled-back chunk's
    // are not kept: a key it added went with it).
    if (keys.size + added.size > KEYS_CACHED) keys.clear();
    for (const [k, id] of added) keys.set(k, id);
    if (staged) this.#countStaged(job, rows, posts);
    return staged;
  }

  /** Add a committed chunk's rows to its import's statistics (published with it). */
  #countStaged(job: string, rows: NewRow[], posts: Postings[]): void {
    const acc = this.#staged.get(job);
    if (!acc) return;
    for (const [j, r] of rows.entries()) {
      const { terms, len } = posts[j];
      const c = acc.corpus.get(r.project) ?? { n: 0, len: 0 };
      c.n++;
      c.len += len;
      acc.corpus.set(r.project, c);
      for (const term of Object.keys(terms)) {
        const key = JSON.stringify([term, r.project]);
        acc.df.set(key, (acc.df.get(key) ?? 0) + 1);
      }
    }
  }

  /** Make every row of an import visible at once; false when the job no longer exists. */
  async publishImport(db: Db, job: string): Promise<boolean> {
    const acc = this.#staged.get(job);
    this.#staged.delete(job);
    // The import's statistics, counted as its chunks committed, go in with its publication:
    // one statement per table, in the transaction that makes its rows visible.
    const df = [...acc?.df ?? []].map(([key, n]) => {
      const [term, project] = JSON.parse(key) as [string, string | null];
      return { term, project, df: n };
    });
    const corpus = [...acc?.corpus ?? []].map(([project, c]) => ({
      project,
      n: c.n,
      len: c.len,
    }));
    return await db.transaction(async (tx) => {
      const rows = await tx.query("delete from mneme_import_jobs where id = $1 returning id", [
        job,
      ]);
      if (!rows.length) return false;
      // Rolls back: the job stays, to be abandoned, rather than published uncounted.
      if (!acc) throw new Error(`import ${job} was not begun by this store`);
      await tx.query(
        `insert into memory_term_df (term, project, df)
         select term, project, df from jsonb_to_recordset($1::text::jsonb)
           as x(term text, project text, df int)`,
        [JSON.stringify(df)],
      );
      await tx.query(
        `insert into memory_corpus (project, n, len, with_len)
         select project, n, len, n from jsonb_to_recordset($1::text::jsonb)
           as x(project text, n int, len bigint)`,
        [JSON.stringify(corpus)],
      );
      return true;
    });
  }

  /**
   * Delete an unfinished import: its job, then its staged rows. With `staleSecs`, only while
   * the job is still untouched for that long: the job row is deleted first (a chunk or the
   * publication of the import holds that row meanwhile, so the two take turns), and the rows
   * only when it was, so an import that is slow but alive is never emptied under its owner.
   * Returns whether the import was deleted.
   */
  async abandonImport(db: Db, job: string, staleSecs?: number): Promise<boolean> {
    this.#staged.delete(job);
    return await db.transaction(async (tx) => {
      const gone = staleSecs === undefined
        ? await tx.query("delete from mneme_import_jobs where id = $1 returning id", [job])
        : await tx.query(
          `delete from mneme_import_jobs
            where id = $1 and touched_at < now() - make_interval(secs => $2) returning id`,
          [job, staleSecs],
        );
      if (staleSecs !== undefined && !gone.length) return false;
      // Its rows were never counted in the statistics (migrations/0007).
      await tx.exec("set local mneme.staged = 'on'");
      await tx.query("delete from memories where import_job = $1", [job]);
      return true;
    });
  }

  /**
   * Delete imports left unfinished by a process that died: every one when `all` (the
   * embedded database has one owner, so at its start no import is running), otherwise those
   * untouched for {@link IMPORT_STALE_MS} (server Postgres, shared by several processes).
   * Returns the number of imports deleted.
   */
  async abandonStaleImports(db: Db, all: boolean): Promise<number> {
    const jobs = await db.query<{ id: string }>("select id from mneme_import_jobs");
    let n = 0;
    for (const j of jobs) {
      if (await this.abandonImport(db, j.id, all ? undefined : IMPORT_STALE_MS / 1000)) n++;
    }
    return n;
  }
}

/**
 * Which of `items` are already stored: the keys (see {@link importKey}) of current
 * memories (not expired, visible) with the same content, scope, project and type.
 */
export async function existingKeys(
  db: Db,
  items: { content: string; scope: Scope; project: string | null; type: MemoryType }[],
  now: Date,
): Promise<Set<string>> {
  const found = new Set<string>();
  const contents = [...new Set(items.map((i) => i.content))];
  const BATCH = 500;
  for (let i = 0; i < contents.length; i += BATCH) {
    const p = new Params();
    const c = p.add(contents.slice(i, i + BATCH));
    const rows = await db.query<
      { content: string; scope: Scope; project: string | null; type: MemoryType }
    >(
      `select m.content, m.scope, m.project, m.type from memories m
        where md5(m.content) = any(array(select md5(c) from unnest(${c}::text[]) c))
          and m.content = any(${c}::text[]) and ${liveClause(now, p)} and ${VISIBLE}`,
      p.values,
    );
    for (const r of rows) found.add(importKey(r));
  }
  return found;
}
