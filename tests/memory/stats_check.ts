/**
 * A check shared by the PGlite and real-server tests of the corpus statistics (migration 6).
 * @module
 */
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";

// Rows of imports in progress are not counted (migrations/0007): search does not see them.
const VISIBLE = "(import_job is null or import_job not in (select id from mneme_import_jobs))";

/** Counted from the visible rows, and kept by the triggers: both sorted the same way. */
export async function assertStatsExact(db: Db, when: string): Promise<void> {
  const docs = (sql: string) =>
    db.query<{ project: string | null; n: number; len: number; with_len: number }>(sql);
  const counted = await docs(
    `select project, count(*)::int as n, coalesce(sum(term_count), 0)::int as len,
            count(term_count)::int as with_len
       from memories where ${VISIBLE} group by project order by project nulls first`,
  );
  const kept = await docs(
    `select project, sum(n)::int as n, sum(len)::int as len, sum(with_len)::int as with_len
       from memory_corpus group by project having sum(n) <> 0 order by project nulls first`,
  );
  assert.deepEqual(kept, counted, `memory_corpus after ${when}`);
  const df = (sql: string) => db.query<{ term: string; project: string | null; df: number }>(sql);
  const postings = await df(
    `select term, project, count(*)::int as df from memory_terms
      where memory_id in (select id from memories where ${VISIBLE})
      group by term, project order by term, project nulls first`,
  );
  const deltas = await df(
    `select term, project, sum(df)::int as df from memory_term_df group by term, project
      having sum(df) <> 0 order by term, project nulls first`,
  );
  assert.deepEqual(deltas, postings, `memory_term_df after ${when}`);
}
