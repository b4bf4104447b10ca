/**
 * Checks of the migration runner's folder (numbered migrations and function files) shared by
 * the embedded database's tests (tests/store/migrate_files_test.ts) and the real server's
 * (tests/pgserver/migrate_files_test.ts): a fresh database, one as 0.14 left it upgraded, an
 * unchanged function file not run again, a changed one applied, a broken one rolling back.
 * @module
 */
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";
import type { EmbedderInfo } from "../../src/embed/embedder.ts";
import {
  applyMigrations,
  checksum,
  ensureEmbeddingColumn,
  MIGRATIONS,
  planMigrations,
} from "../../src/store/migrate.ts";
import { MIGRATION_FILES } from "../../src/store/migration_files.ts";
import { migrateUpTo } from "../memory/v09.ts";

/** What a database's schema is: every object Mneme's migrations make, as Postgres prints it. */
export async function schemaOf(db: Db): Promise<Record<string, string[]>> {
  const col = async (sql: string) => (await db.query<{ d: string }>(sql)).map((r) => r.d);
  return {
    functions: await col(
      `select pg_get_functiondef(p.oid) as d from pg_proc p
        where p.proname like 'mneme\\_%' order by p.proname, pg_get_function_identity_arguments(p.oid)`,
    ),
    tables: await col(
      `select c.table_name || '.' || c.column_name || ' ' || c.data_type || ' ' || c.udt_name || ' '
              || c.is_nullable || ' ' || coalesce(c.column_default, '') || ' '
              || coalesce(c.is_identity, '') || ' ' || coalesce(c.generation_expression, '') as d
         from information_schema.columns c
        where c.table_schema = 'public' order by c.table_name, c.ordinal_position`,
    ),
    indexes: await col(
      "select indexdef as d from pg_indexes where schemaname = 'public' order by indexname",
    ),
    constraints: await col(
      `select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) as d
         from pg_constraint where connamespace = 'public'::regnamespace order by 1`,
    ),
    triggers: await col(
      "select pg_get_triggerdef(oid) as d from pg_trigger where not tgisinternal order by tgname",
    ),
    views: await col(
      `select viewname || ': ' || definition as d from pg_views where schemaname = 'public'
        order by viewname`,
    ),
  };
}

/** The function files of migrations/ and their checksums, by name (`functions/<function>`). */
export function fileSums(
  files: Readonly<Record<string, string>> = MIGRATION_FILES,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of planMigrations(files).functions) out.set(f.name, checksum(f.sql));
  return out;
}

/** What `mneme_repeatable` records, by name. */
export async function recorded(db: Db): Promise<Map<string, string>> {
  const rows = await db.query<{ name: string; checksum: string }>(
    "select name, checksum from mneme_repeatable order by name",
  );
  return new Map(rows.map((r) => [r.name, r.checksum]));
}

/** The body of function `name` (between its dollar quotes) as the database holds it. */
export async function bodyOf(db: Db, name: string): Promise<string> {
  const [row] = await db.query<{ src: string }>(
    "select prosrc as src from pg_proc where proname = $1",
    [name],
  );
  return row?.src ?? "";
}

/** The body of the function that file `functions/<name>.sql` defines (between its `$$`). */
export function fileBody(name: string, files = MIGRATION_FILES): string {
  const sql = files[`functions/${name}.sql`];
  const start = sql.indexOf("$$") + 2;
  return sql.slice(start, sql.indexOf("$$", start));
}

/**
 * A fresh database: every numbered migration and every function file applied, each function
 * recorded with the sha-256 of its file, and each function's body the one of its file.
 */
export async function checkFresh(db: Db): Promise<void> {
  const applied = await applyMigrations(db);
  assert.deepEqual(applied.versions, MIGRATIONS.map((m) => m.version));
  const sums = fileSums();
  assert.deepEqual(applied.functions, [...sums.keys()]);
  assert.deepEqual(await recorded(db), sums);
  for (const name of sums.keys()) {
    const fn = name.slice("functions/".length);
    assert.equal(await bodyOf(db, fn), fileBody(fn), `${fn} is its file's text`);
  }
  assert.deepEqual(await applyMigrations(db), { versions: [], functions: [] }, "then nothing");
}

/**
 * A database as 0.14 made it (its runner: the numbered migrations 1 to 15, no function files)
 * upgrades in place: no numbered migration runs again, every function file is applied and
 * recorded once, and the schema is the one of `fresh` (a fresh database of this version),
 * functions, tables, indexes, constraints, triggers and views alike.
 */
export async function checkUpgradeFrom014(
  old: Db,
  fresh: Db,
  embedder: EmbedderInfo,
): Promise<void> {
  await migrateUpTo(old, embedder, 15);
  const [t] = await old.query<{ t: string | null }>(
    "select to_regclass('mneme_repeatable')::text as t",
  );
  assert.equal(t.t, null, "0.14 has no table of function files");
  const applied = await applyMigrations(old);
  assert.deepEqual(
    applied.versions,
    MIGRATIONS.filter((m) => m.version > 15).map((m) => m.version),
    "only the numbered migrations after 0.14's run",
  );
  const sums = fileSums();
  assert.deepEqual(applied.functions, [...sums.keys()]);
  assert.deepEqual(await recorded(old), sums);
  assert.deepEqual(await applyMigrations(old), { versions: [], functions: [] }, "applied once");
  await applyMigrations(fresh);
  await ensureEmbeddingColumn(fresh, embedder);
  assert.deepEqual(await schemaOf(old), await schemaOf(fresh));
}

/** `files` with function file `name` (`functions/<function>.sql`) replaced by `sql`. */
export function withFile(name: string, sql: string): Record<string, string> {
  return { ...MIGRATION_FILES, [name]: sql };
}

/**
 * On a migrated database: an unchanged file does not run again (a body changed by hand stays
 * changed), a changed one is applied and its new checksum recorded, a changed return type
 * applies with the file's own `drop function if exists`, and a broken file rolls the whole
 * run back (a numbered migration and another changed function in the same run included),
 * with an error naming the file; after a numbered migration that redefined a function for its
 * own use, the function is its file's again.
 */
export async function checkRepeatable(db: Db): Promise<void> {
  await applyMigrations(db);
  // Unchanged checksum: not run again, even though the database's text differs.
  await db.exec(
    `create or replace function mneme_compact_stats() returns void language sql as $$ select 1 $$`,
  );
  assert.deepEqual(await applyMigrations(db), { versions: [], functions: [] });
  assert.equal(await bodyOf(db, "mneme_compact_stats"), " select 1 ");

  // Changed checksum: applied again, new checksum recorded.
  const file = "functions/mneme_compact_stats.sql";
  const changed = withFile(file, `-- one comment more\n${MIGRATION_FILES[file]}`);
  assert.deepEqual(await applyMigrations(db, changed), {
    versions: [],
    functions: ["functions/mneme_compact_stats"],
  });
  assert.equal(await bodyOf(db, "mneme_compact_stats"), fileBody("mneme_compact_stats"));
  assert.equal(
    (await recorded(db)).get("functions/mneme_compact_stats"),
    checksum(changed[file]),
  );
  // And back to the folder's text (a downgrade of the file, say): applied again.
  assert.deepEqual((await applyMigrations(db)).functions, ["functions/mneme_compact_stats"]);

  // A changed return type (a probe function: mneme_impact's index depends on the real one):
  // refused by `create or replace` alone, naming the file, applied with the file's own drop.
  const impact = "functions/mneme_impact.sql";
  const dbl = `create or replace function mneme_impact(tf smallint, len smallint) returns float8
  language sql immutable parallel safe as $$ select 1::float8 $$;`;
  assert.deepEqual(
    (await applyMigrations(db, withFile("functions/mneme_probe.sql", probe(1)))).functions,
    ["functions/mneme_probe"],
  );
  await assert.rejects(
    applyMigrations(db, withFile("functions/mneme_probe.sql", probe(2))),
    /migrations\/functions\/mneme_probe\.sql: .*return type/s,
  );
  assert.deepEqual(
    (await applyMigrations(
      db,
      withFile(
        "functions/mneme_probe.sql",
        `drop function if exists mneme_probe();\n${probe(2)}`,
      ),
    )).functions,
    ["functions/mneme_probe"],
  );
  const [r] = await db.query<{ t: string }>(
    "select pg_typeof(mneme_probe())::text as t",
  );
  assert.equal(r.t, "double precision");
  await db.exec(
    "drop function mneme_probe(); delete from mneme_repeatable where name like '%probe'",
  );

  // A broken file rolls back everything of its run.
  const before = await schemaOf(db);
  const sums = await recorded(db);
  const broken: Record<string, string> = {
    ...withFile(impact, dbl.replace("language sql", "language nonsense")),
    [file]: `-- changed\n${MIGRATION_FILES[file]}`,
    "0099_probe.sql": "create table mneme_probe (id int)",
  };
  // A gap before 99 would be refused before anything runs: fill it.
  const last = MIGRATIONS.at(-1)!.version;
  for (let v = last + 1; v < 99; v++) {
    broken[`${String(v).padStart(4, "0")}_probe_${v}.sql`] = "select 1";
  }
  await assert.rejects(
    applyMigrations(db, broken),
    /migrations\/functions\/mneme_impact\.sql: .*nonsense/s,
  );
  assert.deepEqual(await schemaOf(db), before, "nothing of the run stays");
  assert.deepEqual(await recorded(db), sums);
  const [m] = await db.query<{ n: number }>("select max(version)::int as n from mneme_migrations");
  assert.equal(m.n, last);
  assert.equal(await bodyOf(db, "mneme_compact_stats"), fileBody("mneme_compact_stats"));

  // A numbered migration that redefines a function for its own use: the function ends as its
  // file says (every function file is applied again after a numbered migration), though no
  // file's checksum changed.
  const next = `${String(last + 1).padStart(4, "0")}_uses_a_function.sql`;
  const uses = await applyMigrations(db, {
    ...MIGRATION_FILES,
    [next]:
      `create or replace function mneme_compact_stats() returns void language sql as $$ select 1 $$;
             create table mneme_probe_stats as select mneme_compact_stats() is null as x;`,
  });
  assert.deepEqual(uses.versions, [last + 1]);
  assert.deepEqual(uses.functions, [...fileSums().keys()]);
  assert.equal(await bodyOf(db, "mneme_compact_stats"), fileBody("mneme_compact_stats"));
  await db.exec(
    `drop table mneme_probe_stats; delete from mneme_migrations where version = ${last + 1}`,
  );
}

/** A function file `functions/mneme_probe.sql` whose function returns int (1) or float8 (2). */
function probe(kind: 1 | 2): string {
  return `create or replace function mneme_probe() returns ${
    kind === 1 ? "int" : "float8"
  } language sql as $$ select 1 $$;`;
}
