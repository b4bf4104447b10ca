/**
 * The migration runner's folder on the embedded database: the index is the folder, the
 * released migrations keep their text, a bad name, version or function file is refused at
 * start naming the file, and the runs of tests/store/migrate_files.ts (fresh, upgrade from
 * 0.14, function files applied when their checksum changes, a broken one rolling back).
 */
import assert from "node:assert/strict";
import {
  applyMigrations,
  checksum,
  migrate,
  MIGRATIONS,
  planMigrations,
  UNUSED_VERSIONS,
} from "../../src/store/migrate.ts";
import { MIGRATION_FILES } from "../../src/store/migration_files.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { INDEX_FILE, migrationFileNames } from "../../tasks/migrations.ts";
import { ROOT } from "../helpers.ts";
import { migrateUpTo } from "../memory/v09.ts";
import { checkFresh, checkRepeatable, checkUpgradeFrom014, schemaOf } from "./migrate_files.ts";

const EMBEDDER = { provider: "builtin", model: "hash-v2", dimension: 16 };

/** The sha-256 of each migration as released (0.14.0): a database applied them, never edited. */
const RELEASED: Record<string, string> = {
  "0001_init.sql": "93766b1093d6b5d8b9e2df7b9a38b6b99ee2fe13872e4c219bbab27f68547c9b",
  "0002_search.sql": "d17bc4b607cc3ee2f055d103645b551917ecea6413bb98cc7a9d454e70a617b7",
  "0003_search_global.sql": "128f538395dc4fa0e273e8d9c275e216cde0bec152a33ab85db854f9b20e2e77",
  "0005_import_jobs.sql": "d7c3a94353b57f3cae2648e86c7dc9d9f290529fedd96bc8243f4680556997bd",
  "0006_corpus_stats.sql": "7766c4f487d1ddb30b106c1a7e27ee784d2bc3c4f00e76b30e9ab62c62144238",
  "0007_staged_stats.sql": "e666bfa587d3fe864438701d201b38f29b00021d5c252c67bdb2ee0c86b87293",
  "0008_search_function.sql": "cac876b1ec7fe6879d00d58f9d56b3bb03952bb05ddae64175b4f5c0a317ccbb",
  "0011_content_hash.sql": "f4ed70aa10cf35c7f80a63cc5ca9525c845d61ffad64ade7011344690691f520",
  "0012_maintenance.sql": "cfd6dbea95901cd4db902412b64e7930b23e583e2d5611a967df3f6be2395806",
  "0014_compact_postings.sql": "065dcadb2111302fb6bf2205af22b4d02e1140c922b35d60b5c222e72f23e828",
  "0015_search_exact.sql": "5df04baa5019a70b3b73fba3a7a578e2a2e6a4517c0d8ff374e76f9838fd3473",
};

Deno.test("the index of migrations/ lists exactly the folder's files, with their text", async () => {
  const names = await migrationFileNames(`${ROOT}migrations`);
  assert.deepEqual(
    Object.keys(MIGRATION_FILES).sort(),
    names,
    `${INDEX_FILE} differs from migrations/: run deno task migrations`,
  );
  for (const n of names) {
    assert.equal(MIGRATION_FILES[n], await Deno.readTextFile(`${ROOT}migrations/${n}`), n);
  }
  assert.ok(names.some((n) => n.startsWith("functions/")), "function files are listed");
});

Deno.test("released migrations keep their text", () => {
  for (const [file, sum] of Object.entries(RELEASED)) {
    assert.equal(checksum(MIGRATION_FILES[file] ?? ""), sum, `migrations/${file} changed`);
  }
});

Deno.test("versions and names come from the file names", () => {
  const plan = planMigrations(MIGRATION_FILES);
  assert.deepEqual(plan.versioned.map((m) => m.version), [
    1,
    2,
    3,
    5,
    6,
    7,
    8,
    11,
    12,
    14,
    15,
    16,
    17,
    18,
    19,
    20,
    21,
    22,
    23,
  ]);
  assert.equal(plan.versioned.at(-1)?.name, "0023_judge_budget");
  assert.ok(plan.functions.some((f) => f.name === "functions/mneme_search_scoped"));
  assert.deepEqual(
    plan.functions.map((f) => f.name),
    plan.functions.map((f) => f.name).sort(),
    "function files in name order",
  );
});

/** The last released migration, and a version as a file name's four digits. */
const LAST = MIGRATIONS[MIGRATIONS.length - 1];
const pad = (v: number) => String(v).padStart(4, "0");

Deno.test("a bad name, a version twice, a missing or unused version or a function file that defines another function is refused at start, naming the file, with nothing written", async () => {
  const bad: [Record<string, string>, RegExp][] = [
    [{ "0016-more.sql": "" }, /migrations\/0016-more\.sql: the name does not parse/],
    [{ "16_more.sql": "" }, /migrations\/16_more\.sql: the name does not parse/],
    [{ "functions/Mneme.sql": "" }, /migrations\/functions\/Mneme\.sql: the name does not parse/],
    [{ "notes.txt": "" }, /migrations\/notes\.txt: the name does not parse/],
    [
      { "0015_other.sql": "" },
      /migrations\/0015_search_exact\.sql: version 15 is also migrations\/0015_other\.sql|migrations\/0015_other\.sql: version 15 is also migrations\/0015_search_exact\.sql/,
    ],
    [
      { [`${pad(LAST.version + 2)}_more.sql`]: "" },
      new RegExp(
        `version ${LAST.version + 1} is missing after ${LAST.name}\\.sql before ${
          pad(LAST.version + 2)
        }_more\\.sql`,
      ),
    ],
    [
      { "0012_maintenance.sql": undefined as unknown as string },
      /version 12 is missing after 0011_content_hash\.sql before 0014_compact_postings\.sql/,
    ],
    [{ "0013_late.sql": "" }, /migrations\/0013_late\.sql: version 13 is not used/],
    [
      { "functions/mneme_other.sql": "create or replace function mneme_else() returns int" },
      /migrations\/functions\/mneme_other\.sql: does not define the function mneme_other/,
    ],
  ];
  assert.deepEqual(UNUSED_VERSIONS, [4, 9, 10, 13]);
  const db = await openPglite();
  try {
    for (const [change, error] of bad) {
      const files: Record<string, string> = { ...MIGRATION_FILES, ...change };
      for (const [k, v] of Object.entries(change)) if (v === undefined) delete files[k];
      assert.throws(() => planMigrations(files), error);
      await assert.rejects(migrate(db, files), error);
      const [t] = await db.query<{ t: string | null }>(
        "select to_regclass('mneme_migrations')::text as t",
      );
      assert.equal(t.t, null, "nothing written");
    }
  } finally {
    await db.close();
  }
});

Deno.test("a fresh database gets every migration and every function file (PGlite)", async () => {
  const db = await openPglite();
  try {
    await checkFresh(db);
  } finally {
    await db.close();
  }
});

Deno.test("a database as 0.14 left it upgrades to the schema of a fresh one (PGlite)", async () => {
  const [old, fresh] = [await openPglite(), await openPglite()];
  try {
    await checkUpgradeFrom014(old, fresh, EMBEDDER);
  } finally {
    await old.close();
    await fresh.close();
  }
});

Deno.test("the function files hold the functions as the numbered migrations of 0.14 left them", async () => {
  // Behaviour unchanged in this version: applying the files to a 0.14 database changes no
  // function of 0.14, and adds mneme_search_dense (0.18: the hybrid statement and the dense
  // leg's read in one call). (A later version that changes a function's file changes this
  // expectation.)
  const db = await openPglite();
  try {
    await migrateUpTo(db, EMBEDDER, 15);
    const before = (await schemaOf(db)).functions;
    assert.ok(before.length >= 12);
    const applied = await applyMigrations(db);
    assert.equal(applied.functions.length, planMigrations(MIGRATION_FILES).functions.length);
    const after = (await schemaOf(db)).functions;
    const added = (f: string) => f.includes("FUNCTION public.mneme_search_dense(");
    assert.deepEqual(after.filter((f) => !added(f)), before);
    assert.equal(after.filter(added).length, 1);
  } finally {
    await db.close();
  }
});

Deno.test("function files: unchanged not run again, changed applied, broken rolled back (PGlite)", async () => {
  const db = await openPglite();
  try {
    await checkRepeatable(db);
  } finally {
    await db.close();
  }
});
