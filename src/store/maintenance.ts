/**
 * Maintenance of the database's files: the vacuum of the embedded database (which has no
 * autovacuum, {@link DbCapabilities.ownVacuum}), the compaction of tables and the rebuild of
 * indexes that churn left bloated ({@link DbCapabilities.reindexAfterVacuum}), the analyze
 * after bulk loads, the checkpoint after bulk writes
 * ({@link DbCapabilities.checkpointAfterWrite}), sizes, the HNSW index dropped and built
 * around a bulk import, and the hourly deletion of expired memories.
 * @module
 */
import type { Db } from "./db.ts";
import {
  CLEANUP_LOCK,
  createMissingVectorIndexes,
  DENSE_INDEX,
  dropVectorIndexes,
} from "./migrate.ts";
import { KEEP_SUPERSEDED, VISIBLE } from "./sql.ts";

/** The tables the embedded database's vacuum looks after (their indexes go with them). */
export const VACUUMED_TABLES: readonly string[] = [
  "memories",
  "memory_nums",
  "memory_postings",
  "memory_term_keys",
  "memory_term_df",
  "memory_corpus",
  "mneme_import_jobs",
  "mneme_meta",
  "mneme_maintenance",
  // Capture's: proposals accepted or rejected, a cursor rewritten at every hand-over.
  "proposals",
  "capture_cursors",
  "capture_budget",
];

/** Live and dead rows of one table. */
export interface DeadRows {
  table: string;
  live: number;
  dead: number;
}

/** One vacuum of the embedded database. */
export interface VacuumRun {
  /** When it ended (ISO 8601). */
  at: string;
  /** How long it took. */
  took_ms: number;
  /** Dead rows the statistics counted in its tables before it ran. */
  dead_rows: number;
  /** The tables vacuumed. */
  tables: string[];
  /** The tables also compacted (`VACUUM FULL`: rewritten with their indexes), if any. */
  compacted?: string[];
  /** The indexes rebuilt (`REINDEX`) because they were bloated, if any. */
  reindexed?: string[];
}

/**
 * A vacuumed table is also compacted (`VACUUM FULL`, which rewrites it and rebuilds its
 * indexes, HNSW included) when its file is over this many times the size of its live rows
 * plus {@link COMPACT_SLACK_BYTES}: plain VACUUM only makes the space of dead rows reusable, so
 * churn leaves a table and its indexes about twice their size, and a small table of hot rows
 * (the term frequencies) keeps growing.
 */
export const COMPACT_FACTOR = 1.3;
/** See {@link COMPACT_FACTOR}. */
export const COMPACT_SLACK_BYTES = 1024 * 1024;
/**
 * Only tables (with their indexes) up to this size are compacted: the rewrite holds the
 * database for about a second per 10 MiB, which requests would notice on larger ones.
 */
export const COMPACT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A postings index ({@link REINDEXED}) is rebuilt (`REINDEX`) when its file is over this many
 * times the size a build would give it, plus {@link COMPACT_SLACK_BYTES}. A build fills its
 * pages to 90%; entries inserted in random order, as writes and imports add them, leave them
 * about 70% full (at 20,000 memories the lookup index was 38.4 MB, 29.2 MB once rebuilt, and
 * the estimate below said 29.0). Indexes up to {@link COMPACT_MAX_BYTES} only: the build holds
 * the embedded database (3 s for the 38 MB one on a loaded machine).
 */
export const REINDEX_FACTOR = 1.15;
/**
 * The HNSW index of `memories` is rebuilt by the vacuum when it is over this many times the
 * size a build would give it, plus the slack (see `#reindexBloatedHnsw`).
 */
export const HNSW_REINDEX_FACTOR = 1.5;
/** The memory a rebuild of a postings index sorts in (see `#reindexBloated`). */
const REINDEX_WORK_MEM = "4MB";
/** The postings indexes the vacuum rebuilds when bloated (see {@link REINDEX_FACTOR}). */
export const REINDEXED: readonly string[] = ["memory_postings_lookup"];

/**
 * Delete expired memories, once across processes: the transaction-scoped
 * `pg_try_advisory_xact_lock` lets only one process of many do it at a time.
 * Returns the number deleted, or null when another process holds the lock.
 */
export async function deleteExpired(db: Db, now: Date): Promise<number | null> {
  return await db.transaction(async (tx) => {
    const [got] = await tx.query<{ ok: boolean }>(
      "select pg_try_advisory_xact_lock($1) as ok",
      [CLEANUP_LOCK],
    );
    if (!got?.ok) return null;
    const rows = await tx.query<{ n: number }>(
      `with d as (delete from memories m where expires_at is not null and expires_at <= $1
                    and ${VISIBLE} returning m.id), ${KEEP_SUPERSEDED}
       select count(*)::int as n from d`,
      [now],
    );
    // The hourly turn of the corpus statistics' compaction (one process of many, too).
    await tx.query("select mneme_compact_stats()");
    return Number(rows[0]?.n ?? 0);
  });
}

/**
 * Drop the HNSW index of the stored vectors, for a bulk import on the embedded database:
 * its rows then go in without one insertion into the graph each, and the index is built
 * once at its end ({@link buildSearchIndex}). Searches meanwhile compare every vector.
 */
export async function dropSearchIndex(db: Db): Promise<void> {
  await dropVectorIndexes(db, "embedding");
  await db.exec(`drop index if exists ${DENSE_INDEX}`);
}

/**
 * Build the HNSW index of the stored vectors when it is missing (the end of a bulk import;
 * one killed before its end leaves none, and the next start builds it). With the working
 * memory of one build raised to 64 MB, so that the graph of tens of thousands of vectors
 * is built in memory (pgvector builds on disk, much slower, past it).
 */
export async function buildSearchIndex(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.exec("set local maintenance_work_mem = '64MB'");
    // The build logs each page of the index whole: pglz spent a fifth of the build
    // compressing floats that hardly compress (docs/history/performance-2026-11-25-to-28.md,
    // "Import speed at 20,000 (0.12)"). The log goes at the checkpoint after the import. A
    // superuser's setting: the embedded database only, the one this bulk path runs on.
    if (tx.capabilities.superuser) await tx.exec("set local wal_compression = off");
    await createMissingVectorIndexes(tx);
  });
}

/**
 * Rewrite `memories` (`VACUUM FULL`) on the embedded database, after a re-embedding run at
 * start: the swapped-out vectors stay in the table's files as a dropped column until the
 * table is rewritten (80 MB of 768-dimension vectors at 20k memories). Every index of the
 * table is rebuilt once; the database is held meanwhile (seconds at 20k), so only the start-up
 * upgrade, which runs before the daemon serves, does this. Nothing on server Postgres.
 */
export async function rewriteMemories(db: Db): Promise<void> {
  if (!db.capabilities.ownVacuum) return;
  await db.exec("set maintenance_work_mem = '64MB'");
  try {
    await db.exec("vacuum full memories");
  } finally {
    await db.exec("reset maintenance_work_mem");
  }
  await settle(db);
}

/**
 * Live and dead rows of the service's tables, from the statistics views (counted since
 * the last clean start: a crash resets them).
 */
export async function deadRows(db: Db): Promise<DeadRows[]> {
  const rows = await db.query<{ table: string; live: number; dead: number }>(
    `select relname::text as table, n_live_tup::float8 as live, n_dead_tup::float8 as dead
       from pg_stat_user_tables
      where schemaname = current_schema() and relname = any($1::text[])
      order by relname`,
    [VACUUMED_TABLES],
    { background: true },
  );
  return rows.map((r) => ({ table: r.table, live: Number(r.live), dead: Number(r.dead) }));
}

/**
 * Plain `VACUUM (ANALYZE)` of `tables` (of {@link VACUUMED_TABLES}), one statement each, so
 * that other statements run in between: no exclusive lock but the short one that returns
 * empty trailing pages to the file system. The corpus statistics' deltas are folded first,
 * and a small table left bloated is then compacted (see {@link COMPACT_FACTOR}). Records the
 * run in `mneme_maintenance`.
 */
export async function vacuum(
  db: Db,
  tables: readonly string[] = VACUUMED_TABLES,
  compact: { factor?: number; slackBytes?: number; maxBytes?: number } = {},
): Promise<VacuumRun> {
  const factor = compact.factor ?? COMPACT_FACTOR;
  const slack = compact.slackBytes ?? COMPACT_SLACK_BYTES;
  const max = compact.maxBytes ?? COMPACT_MAX_BYTES;
  const names = VACUUMED_TABLES.filter((t) => tables.includes(t));
  // The corpus statistics' deltas (appended by every write) folded first: otherwise they
  // pile up as live rows until the hourly fold (132,000 rows after 10,000 writes).
  if (names.includes("memory_term_df") || names.includes("memory_corpus")) {
    await compactStats(db);
  }
  const before = await deadRows(db);
  const dead = before.filter((r) => names.includes(r.table)).reduce((n, r) => n + r.dead, 0);
  const t0 = performance.now();
  const compacted: string[] = [];
  for (const t of names) {
    await db.exec(`vacuum (analyze) ${t}`);
    // `t` is one of VACUUMED_TABLES (a fixed list), never input.
    const [size] = await db.query<{ heap: number; total: number; live: number }>(
      `select pg_relation_size('${t}')::float8 as heap,
              pg_total_relation_size('${t}')::float8 as total,
              (select coalesce(sum(pg_column_size(x.*)), 0)::float8 from ${t} x) as live`,
    );
    const heap = Number(size.heap);
    if (
      heap > factor * Number(size.live) + slack && Number(size.total) <= max
    ) {
      await db.exec(`vacuum (full, analyze) ${t}`);
      compacted.push(t);
    }
  }
  // The postings' indexes, unless VACUUM FULL just rebuilt them; likewise the HNSW index.
  const reindexed = db.capabilities.reindexAfterVacuum && names.includes("memory_postings") &&
      !compacted.includes("memory_postings")
    ? await reindexBloated(db, slack, max)
    : [];
  if (
    db.capabilities.reindexAfterVacuum && names.includes("memories") &&
    !compacted.includes("memories")
  ) {
    reindexed.push(...await reindexBloatedHnsw(db, slack, max));
  }
  // The log of the vacuum (it logs the pages it marks all-visible: 13 MiB after an import of
  // 20,000 memories) and of any rewrite shrinks back at a checkpoint (PGlite runs none by
  // itself).
  await settle(db);
  const run: VacuumRun = {
    at: new Date().toISOString(),
    took_ms: Math.round(performance.now() - t0),
    dead_rows: dead,
    tables: names,
    ...(compacted.length ? { compacted } : {}),
    ...(reindexed.length ? { reindexed } : {}),
  };
  await db.query(
    `insert into mneme_maintenance (task, at, took_ms, dead_rows, tables)
     values ('vacuum', $1, $2, $3, $4)
     on conflict (task) do update set at = excluded.at, took_ms = excluded.took_ms,
       dead_rows = excluded.dead_rows, tables = excluded.tables`,
    [run.at, run.took_ms, run.dead_rows, names.join(",")],
  );
  return run;
}

/**
 * Rebuild the postings indexes of {@link REINDEXED} that are bloated (see
 * {@link REINDEX_FACTOR}) and at most `max` bytes; returns
 * the indexes rebuilt. The size a build would give an index: the sum of its entries (the
 * row's columns in the index's order, laid out as in the table, behind an index tuple's
 * header of 8 bytes, 16 with a null; aligned to 8; a line pointer of 4 each) over pages of
 * 8,168 bytes filled to 90%.
 */
async function reindexBloated(db: Db, slack: number, max: number): Promise<string[]> {
  // Every entry of memory_postings_lookup is 8 + 4 + 4 + 4 + 2 + 2 = 24 bytes (key, impact,
  // num, tf, len: no nulls, no padding), 28 with its line pointer.
  const [est] = await db.query<{ lookup: number }>(
    `select (count(*) * 28)::float8 as lookup from memory_postings`,
  );
  const built: Record<string, number> = {
    memory_postings_lookup: Number(est.lookup) / (8168 * 0.9) * 8192,
  };
  const rows = await db.query<{ name: string; bytes: number }>(
    `select c.relname as name, pg_relation_size(c.oid)::float8 as bytes from pg_class c
      where c.relname = any($1::text[]) and c.relnamespace = current_schema()::regnamespace`,
    [REINDEXED],
  );
  const bloated = rows.filter((r) =>
    Number(r.bytes) > REINDEX_FACTOR * built[r.name] + slack && Number(r.bytes) <= max
  ).map((r) => r.name).sort();
  if (!bloated.length) return [];
  // The names come from REINDEXED (a fixed list), never input. The build sorts in 4 MiB and
  // spills the rest to temporary files: PGlite's WASM memory never shrinks, and with the
  // 32 MiB of maintenance_work_mem the daemon kept 20-39 MiB more after a rebuild at 20,000
  // memories (2-12 MiB with 4 MiB), the build as fast.
  // memory_postings_num needs no rebuild: memory numbers only grow, so its entries are
  // appended at its end (the index by uuid of 0.9.0 was rebuilt with the lookup index).
  for (const name of bloated) {
    await db.transaction(async (tx) => {
      await tx.exec(`set local maintenance_work_mem = '${REINDEX_WORK_MEM}'`);
      await tx.exec(`reindex index ${name}`);
    });
  }
  return bloated;
}

/**
 * Rebuild the HNSW index of `memories` when churn left it bloated, and it is at most `max`
 * bytes; returns its name if rebuilt. pgvector's vacuum marks the nodes of deleted rows and
 * repairs the graph around them but gives no page back, and the table's own compaction rule
 * (its heap against its live rows) does not look at its indexes: in `deno task soak` the
 * index stayed at 2.1 times its fresh size. A build puts floor(8160 / (4 × dim + 210)) nodes
 * on a page (a node: the element with its vector and heap pointers, and its ground-level
 * neighbours, m = 8; 4 at 384 dimensions, 6 at 256, 8 at 192, as measured); the index is
 * rebuilt when it is over {@link HNSW_REINDEX_FACTOR} times that plus `slack`. Its entries
 * are counted by the vacuum just before (the index's `reltuples`).
 */
async function reindexBloatedHnsw(db: Db, slack: number, max: number): Promise<string[]> {
  const [r] = await db.query<{ bytes: number; rows: number; dim: number }>(
    `select pg_relation_size(c.oid)::float8 as bytes, c.reltuples::float8 as rows,
            a.atttypmod as dim
       from pg_class c join pg_index i on i.indexrelid = c.oid
       join pg_attribute a on a.attrelid = i.indrelid and a.attname = 'embedding'
      where c.relname = 'memories_embedding_hnsw'
        and c.relnamespace = current_schema()::regnamespace`,
  );
  const [bytes, rows, dim] = [Number(r?.bytes), Number(r?.rows), Number(r?.dim)];
  // Not counted yet (-1), or a column without a dimension: nothing to compare with.
  if (!r || !(rows >= 0) || !(dim > 0)) return [];
  const perPage = Math.max(1, Math.floor(8160 / (4 * dim + 210)));
  const built = (Math.ceil(rows / perPage) + 1) * 8192;
  if (!(bytes > HNSW_REINDEX_FACTOR * built + slack && bytes <= max)) return [];
  await db.exec("reindex index memories_embedding_hnsw");
  return ["memories_embedding_hnsw"];
}

/** The last vacuum recorded by {@link vacuum}, or null. */
export async function lastVacuum(db: Db): Promise<VacuumRun | null> {
  const [row] = await db.query<
    { at: Date | string; took_ms: number; dead_rows: number; tables: string }
  >(
    "select at, took_ms, dead_rows::float8 as dead_rows, tables from mneme_maintenance where task = 'vacuum'",
    [],
    { background: true },
  );
  if (!row) return null;
  return {
    at: new Date(row.at).toISOString(),
    took_ms: Number(row.took_ms),
    dead_rows: Number(row.dead_rows),
    tables: row.tables.split(",").filter(Boolean),
  };
}

/** Size of the database on disk, in bytes. */
export async function databaseSize(db: Db): Promise<number> {
  const [row] = await db.query<{ size: number }>(
    "select pg_database_size(current_database())::float8 as size",
    [],
    { background: true },
  );
  return Number(row.size);
}

/**
 * Refresh planner statistics (after bulk loads, so searches keep using the index) and
 * vacuum the postings, so that searches read them with index-only scans; on the embedded
 * database, rebuild the postings' indexes the load left bloated (`compact`: as
 * {@link vacuum}'s).
 */
export async function analyze(
  db: Db,
  compact: { slackBytes?: number; maxBytes?: number } = {},
): Promise<void> {
  await compactStats(db);
  await db.exec("analyze memories");
  await db.exec("vacuum analyze memory_nums, memory_postings, memory_term_keys");
  // On the embedded database the postings' indexes an import left bloated are rebuilt here,
  // within the import's request, rather than by the vacuum that follows it, where the
  // rebuild held up the next requests of other clients for seconds.
  if (db.capabilities.reindexAfterVacuum) {
    await reindexBloated(
      db,
      compact.slackBytes ?? COMPACT_SLACK_BYTES,
      compact.maxBytes ?? COMPACT_MAX_BYTES,
    );
  }
  await db.exec("vacuum analyze memory_term_df, memory_corpus");
  await settle(db);
}

/**
 * On the embedded database, a checkpoint: it writes the changed pages to their files and
 * lets the write-ahead log shrink to its minimum (PGlite runs Postgres in single-user mode,
 * where no checkpoint runs on a timer). Done at start and after bulk writes (imports,
 * re-embedding). Server Postgres checkpoints by itself: nothing there.
 */
export async function settle(db: Db): Promise<void> {
  if (!db.capabilities.checkpointAfterWrite) return;
  await db.exec("checkpoint");
  // The checkpoint's redo point is in the current segment, which stays however little of it
  // the log still needs: a switch to a new segment (created sparse, wal_init_zero off) and a
  // second checkpoint (nothing left to write) let the old one go (wal_recycle off). Spare
  // segments made ahead, full of zeros (by versions before 0.9, with wal_recycle on), are
  // switched through until the current one is new, so an older database sheds them at once.
  const ahead = async () =>
    (await db.query<{ name: string }>(
      `select name from pg_ls_waldir()
        where name ~ '^[0-9A-F]{24}$' and name > pg_walfile_name(pg_current_wal_lsn())`,
    )).map((r) => r.name);
  for (let i = 0; i < 8; i++) {
    const spares = await ahead();
    await db.exec("select pg_switch_wal(); checkpoint");
    const [row] = await db.query<{ name: string }>(
      "select pg_walfile_name(pg_current_wal_lsn()) as name",
    );
    if (!spares.includes(row.name)) break;
  }
}

/**
 * Fold the corpus statistics' deltas into one row per key (after imports and in the hourly
 * cleanup), so that reading them stays a sum of a few rows. Exact whatever runs meanwhile.
 */
export async function compactStats(db: Db): Promise<void> {
  await db.query("select mneme_compact_stats()");
}
