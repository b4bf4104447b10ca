/**
 * Databases as 0.9.0 left them (postings of version 2: term and project as text, the memory's
 * uuid, in `memory_terms`), for the upgrade tests of migration 14
 * (tests/memory/postings_upgrade_test.ts and tests/pgserver/postings_upgrade_test.ts): the
 * migrations 0.9.0 had (the same files), and rows written by 0.9.0's insert statement.
 * @module
 */
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";
import type { EmbedderInfo } from "../../src/embed/embedder.ts";
import { ensureEmbeddingColumn, migrate, MIGRATIONS } from "../../src/store/migrate.ts";
import { POSTINGS_PER_TERM, Store, vectorLiteral } from "../../src/store/store.ts";
import { termCounts, terms } from "../../src/domain/terms.ts";
import { newRow } from "./fixtures.ts";
import { assertStatsExact } from "./stats_check.ts";
import { weigh } from "../store/lexical.ts";

/** Apply the migrations of 0.9.0 (up to version 12), as its `migrate` did. */
export async function migrateV09(db: Db, embedder: EmbedderInfo): Promise<void> {
  await migrateUpTo(db, embedder, 12);
  const [t] = await db.query<{ n: number }>(
    "select count(*)::int as n from pg_tables where tablename = 'memory_terms'",
  );
  assert.equal(t.n, 1, "0.9.0's postings table");
}

/**
 * Apply the migrations up to version `last` (those of an earlier release), as its `migrate`
 * did, and give the embedding column `embedder`'s dimension.
 */
export async function migrateUpTo(db: Db, embedder: EmbedderInfo, last: number): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.exec("create extension if not exists vector");
    await tx.exec(
      `create table if not exists mneme_migrations (
         version int primary key, name text not null, applied_at timestamptz not null default now())`,
    );
    for (const m of MIGRATIONS.filter((m) => m.version <= last)) {
      await tx.exec(m.sql);
      await tx.query("insert into mneme_migrations (version, name) values ($1, $2)", [
        m.version,
        m.name,
      ]);
    }
  });
  await ensureEmbeddingColumn(db, embedder);
}

/** A memory as 0.9.0 stored it. */
export interface V09Row {
  id: string;
  content: string;
  project: string | null;
  embedding: number[];
  createdAt: Date;
  /** Stored without postings (term_count null), as before version 2. */
  noPostings?: boolean;
}

/** Insert rows with 0.9.0's statement (memories and their postings), as an import's `job`. */
export async function insertV09(db: Db, rows: V09Row[], job: string | null = null) {
  const payload = JSON.stringify(rows.map((r) => {
    const counts = termCounts(r.content);
    let len = 0;
    for (const n of counts.values()) len += n;
    return {
      id: r.id,
      content: r.content,
      scope: r.project === null ? "global" : "project",
      project: r.project,
      type: "fact",
      tags: [],
      weight: 1,
      supersedes: null,
      created_at: r.createdAt.toISOString(),
      updated_at: r.createdAt.toISOString(),
      expires_at: null,
      embedding: vectorLiteral(r.embedding),
      terms: r.noPostings ? {} : Object.fromEntries(counts),
      len: r.noPostings ? null : len,
    };
  }));
  await db.query(
    `with x as materialized (
       select * from jsonb_to_recordset($1::text::jsonb) as x(
            id uuid, content text, scope text, project text, type text, tags jsonb,
            weight double precision, supersedes uuid, created_at timestamptz,
            updated_at timestamptz, expires_at timestamptz, embedding text, terms jsonb,
            len int)
     ), ins as (
       insert into memories as m (id, content, scope, project, type, tags, weight, supersedes,
                                  created_at, updated_at, expires_at, embedding, term_count,
                                  import_job)
       select x.id, x.content, x.scope, x.project, x.type,
              array(select jsonb_array_elements_text(x.tags)), x.weight, x.supersedes,
              x.created_at, x.updated_at, x.expires_at, x.embedding::vector, x.len, $2::uuid
         from x
       returning m.id
     ), post as (
       insert into memory_terms (term, memory_id, tf, len, project)
       select t.key, x.id, t.value::int, x.len, x.project
         from x, jsonb_each_text(x.terms) as t
     )
     select count(*) from ins`,
    [payload, job],
  );
}

/** The searches compared before and after the upgrade: every scope, words common and rare. */
const QUERIES = [
  "deploy the build on friday",
  "cache logs api",
  "zygomorphic review",
  "tests fail after the deploy",
  "release notes of the api",
];

/** Memories of two projects and global ones, words shared in many of them; ties of impact. */
function corpus(dim: number): V09Row[] {
  const words = ["deploy", "tests", "api", "cache", "logs", "build", "friday", "release"];
  const rows: V09Row[] = [];
  for (let i = 0; i < 360; i++) {
    const e = Array.from(
      { length: dim },
      (_, j) => Math.sin(i * 7 + j * 3) + (j === i % dim ? 2 : 0),
    );
    rows.push({
      id: crypto.randomUUID(),
      content: `The ${words[i % 8]} and the ${words[(i * 5) % 8]} note ${i % 13}` +
        (i % 4 === 0 ? ` ${words[(i * 3) % 8]} ${words[(i * 3) % 8]}` : "") +
        (i === 77 ? " after the zygomorphic review" : ""),
      project: i % 3 === 0 ? null : `p${i % 3}`,
      embedding: e,
      createdAt: new Date(Date.UTC(2026, 0, 1) + ((i * 7919) % 360) * 60_000),
      noPostings: i % 50 === 49,
    });
  }
  return rows;
}

/** One search's candidates as comparable rows. */
type Found = [string, string][];

/**
 * The upgrade of a database made by 0.9.0, on `open()` (a fresh database each call): postings
 * converted row for row, the same search results in every scope, the statistics exact, an
 * interrupted migration leaves 0.9.0's tables to a next start, and the upgraded database
 * writes, rebuilds and deletes postings.
 */
export async function checkPostingsUpgrade(db: Db, dim: number): Promise<void> {
  const rows = corpus(dim);
  await insertV09(db, rows.slice(0, 300));
  // An import in progress (its rows invisible, not in the statistics: migrations/0007).
  const job = crypto.randomUUID();
  await db.query("insert into mneme_import_jobs (id, items) values ($1, 60)", [job]);
  await db.transaction(async (tx) => {
    await tx.exec("set local mneme.staged = 'on'");
    await insertV09(tx, rows.slice(300), job);
  });
  // Over every memory, a term's POSTINGS_PER_TERM postings of highest impact are scored, which
  // among postings of equal impact at the cut is arbitrary (it was before: a sort of all the
  // term's postings), so that scope is compared on queries whose terms have fewer postings.
  // In the other scopes the postings of equal impact come in the order of the old table.
  const [most] = await db.query<{ n: number }>(
    "select max(n)::int as n from (select count(*) as n from memory_terms group by term) x",
  );
  assert.ok(most.n > POSTINGS_PER_TERM, "some terms are cut");
  const cut = async (q: string) => {
    const [r] = await db.query<{ n: number }>(
      "select count(*)::int as n from memory_terms where term = any($1::text[]) group by term order by 1 desc limit 1",
      [terms(q)],
    );
    return (r?.n ?? 0) > POSTINGS_PER_TERM;
  };
  const uncut = await Promise.all(QUERIES.map(async (q) => !await cut(q)));
  assert.ok(uncut.some((x) => x) && uncut.some((x) => !x));
  const search = async (): Promise<Found[]> => {
    const s = new Store(db);
    const out: Found[] = [];
    for (const [i, q] of QUERIES.entries()) {
      for (
        const scope of [
          ...(uncut[i] ? [{ kind: "all" as const }] : []),
          { kind: "global" as const },
          { kind: "project" as const, project: "p1" },
          { kind: "hierarchy" as const, project: "p2" },
        ]
      ) {
        const found = await s.candidates(
          rows[i * 11].embedding,
          await weigh(s, terms(q), scope),
          scope,
          10,
          new Date("2026-06-01T00:00:00Z"),
        );
        out.push(found.map((c) => [c.memory.id, c.lexical.toFixed(9)] as [string, string]).sort());
      }
    }
    return out;
  };
  const postings = async () => [
    ...await db.query(
      `select term, memory_id::text as memory_id, tf, len, project, impact from memory_terms
        order by memory_id, term`,
    ),
  ];
  // This version's store calls mneme_search_scoped (version 15), which needs the tables of
  // version 14: before the upgrade, a stand-in passes its call to 0.9.0's mneme_search (the
  // flag `exact` dropped: HNSW reads, as 0.9.0 made them).
  await db.exec(`create function mneme_search_scoped(
      q_vec vector, use_vec boolean, q_terms text[], q_weights float8[], k1 float8, b float8,
      q_avgdl float8, q_total float8, k int, per int, q_now timestamptz,
      all_projects boolean, with_global boolean, in_project text, exact boolean)
    returns table (
      id uuid, content text, scope text, project text, type text, tags text[],
      weight double precision, created_at timestamptz, updated_at timestamptz,
      expires_at timestamptz, supersedes uuid, superseded_by uuid,
      similarity double precision, lexical double precision)
    language sql stable as $$
      select * from mneme_search(q_vec, use_vec, q_terms, q_weights, k1, b, q_avgdl, q_total,
                                 k, per, q_now, all_projects, with_global, in_project) $$`);
  const before = await search();
  assert.ok(before.some((f) => f.some(([, l]) => Number(l) > 0)), "lexical matches");
  const oldPostings = await postings();
  await assertStatsExact(db, "0.9.0's writes");

  // A start killed in the middle of the migration: its transaction rolls back.
  const sql = MIGRATIONS.find((m) => m.version === 14)!.sql;
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.exec(sql);
      throw new Error("killed");
    }),
    /killed/,
  );
  const [kind] = await db.query<{ n: number }>(
    "select count(*)::int as n from pg_tables where tablename = 'memory_terms'",
  );
  assert.equal(kind.n, 1, "0.9.0's table is still there");

  await db.exec("drop function mneme_search_scoped");
  assert.deepEqual(await migrate(db), [14, 15, 16, 17, 18, 19, 20, 21, 22, 23]);
  assert.deepEqual(await postings(), oldPostings, "every posting converted, impact the same");
  await assertStatsExact(db, "the upgrade");
  assert.deepEqual(await search(), before, "same candidates in every scope");
  await new Store(db).analyze();
  assert.deepEqual(await search(), before, "same candidates after the vacuum");

  // Memories stored without postings get them (src/memory/upgrade.ts), a new one is written
  // and searchable, one is deleted with its postings.
  const store = new Store(db);
  // As at a start: the import left unfinished is deleted first (with its postings).
  assert.equal(await store.abandonStaleImports(true), 1);
  await assertStatsExact(db, "the unfinished import's deletion");
  assert.equal(
    (await db.query("select * from memory_terms where memory_id = $1", [rows[300].id])).length,
    0,
  );
  const pending = await store.termsPending(100);
  assert.equal(pending.length, 6);
  await store.storeTerms(pending);
  assert.equal((await store.termsPending(100)).length, 0);
  const [n] = await db.query<{ n: number }>(
    "select count(*)::int as n from memory_terms where memory_id = $1",
    [pending[0].id],
  );
  assert.ok(n.n > 0, "postings built for a memory of before version 2");
  await assertStatsExact(db, "the postings built at start");
  await db.query("delete from memories where id = $1", [rows[0].id]);
  const [gone] = await db.query<{ n: number }>(
    "select count(*)::int as n from memory_terms where memory_id = $1",
    [rows[0].id],
  );
  assert.equal(gone.n, 0, "a deleted memory's postings go with it");
  await assertStatsExact(db, "a delete");
  const hit = await new Store(db).candidates(
    rows[77].embedding,
    await weigh(new Store(db), terms("zygomorphic"), { kind: "all" }),
    { kind: "all" },
    5,
    new Date("2026-06-01T00:00:00Z"),
  );
  assert.ok(hit.some((c) => c.memory.id === rows[77].id && c.lexical > 0));
  const at = new Date("2026-05-01T00:00:00Z");
  const [fresh] = await new Store(db).insert([
    newRow("The quokka deploy of p1, a new word and a known one", rows[5].embedding, at, {
      scope: "project",
      project: "p1",
    }),
  ]);
  await assertStatsExact(db, "a write after the upgrade");
  const found = await new Store(db).candidates(
    rows[5].embedding,
    await weigh(new Store(db), terms("quokka"), { kind: "hierarchy", project: "p1" }),
    { kind: "hierarchy", project: "p1" },
    5,
    new Date("2026-06-01T00:00:00Z"),
  );
  assert.ok(found.some((c) => c.memory.id === fresh.id && c.lexical > 0), "a new memory found");
}
