/**
 * The dense leg's read folded into the search statement (`Store.candidatesWithDense`, the SQL
 * function mneme_search_dense): for every kind of scope, read exactly or through the HNSW
 * indexes, it finds what the two reads found (`candidates`, then `denseNearest`): the same
 * candidates with the same similarities and lexical relevance, the same dense neighbours in the
 * same order, in one statement. On the embedded database and on a real server (ignored, saying
 * why, when none can be had).
 */
import assert from "node:assert/strict";
import { createServiceOnDb } from "../../src/memory/open.ts";
import { importsSettled, storeOf } from "../../src/memory/diagnostics.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { builtinSif } from "../../src/embed/sif.ts";
import type { Db } from "../../src/store/db.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { exactScope } from "../../src/store/store.ts";
import type { Candidate, LexicalQuery, ScopeFilter, Scored } from "../../src/store/sql.ts";
import { pgliteService, testConfig } from "../helpers.ts";
import { freshDatabase, serverTest } from "../pgserver/cluster.ts";

const TOPICS = [
  "deploy the web service to production after the review",
  "the database backup runs every night before the deploy",
  "our team meets on monday to plan the release",
  "tests must pass before a merge into the main branch",
  "the cache is cleared when the configuration changes",
  "logs are shipped to the central server every hour",
];

/** 300 memories of project big, 60 of each of four small ones, 50 global. */
async function seed(service: SqlMemoryService): Promise<void> {
  const items: { content: string; scope?: "global" | "project"; project?: string }[] = [];
  const add = (n: number, project: string | null) => {
    for (let i = 0; i < n; i++) {
      const content = `${TOPICS[i % TOPICS.length]} (${project ?? "global"} note ${i})`;
      items.push(project ? { content, scope: "project", project } : { content, scope: "global" });
    }
  };
  add(300, "big");
  for (const p of ["a", "b", "c", "d"]) add(60, p);
  add(50, null);
  await service.import(items);
  await importsSettled(service);
}

const SCOPES: ScopeFilter[] = [
  { kind: "all" },
  { kind: "global" },
  { kind: "project", project: "a" },
  { kind: "hierarchy", project: "a" },
  { kind: "project", project: "big" },
  { kind: "hierarchy", project: "big" },
];

function same(a: Scored[] | Candidate[], b: Scored[] | Candidate[], what: string): void {
  const key = (x: Scored | Candidate) =>
    `${x.memory.id} ${x.similarity.toFixed(9)} ${"lexical" in x ? x.lexical.toFixed(9) : ""}`;
  assert.deepEqual(a.map(key), b.map(key), what);
}

async function check(service: SqlMemoryService, db: Db): Promise<void> {
  await seed(service);
  const store = storeOf(service);
  const [row] = await db.query<{ v: string }>(
    "select embedding::text as v from memories where content like 'the cache%' limit 1",
  );
  const vector = JSON.parse(row.v) as number[];
  const dense = (await builtinSif()).vector("when is the nightly backup of the database")!;
  const lexical: LexicalQuery = {
    terms: ["backup", "deploy"],
    weights: [2.5, 1.5],
    k1: 1.2,
    b: 0.75,
    avgdl: 12,
    total: 4,
  };
  const now = new Date();
  const sizes = new Map<string | null, number>([
    [null, 50],
    ["big", 300],
    ["a", 60],
    ["b", 60],
    ["c", 60],
    ["d", 60],
  ]);
  const kinds = new Set<boolean>();
  for (const scope of SCOPES) {
    kinds.add(exactScope(scope, sizes));
    const what = JSON.stringify(scope);
    const candidates = await store.candidates(vector, lexical, scope, 20, now);
    const near = await store.denseNearest(dense, scope, 15, now);
    assert.ok(candidates.length > 0 && near.length > 0, what);
    // One statement: the counts of the statements and transactions the fold sends.
    let statements = 0;
    let transactions = 0;
    const query = db.query.bind(db);
    const transaction = db.transaction.bind(db);
    db.query = ((...a: Parameters<Db["query"]>) => {
      statements++;
      return query(...a);
    }) as Db["query"];
    db.transaction = ((...a: Parameters<Db["transaction"]>) => {
      transactions++;
      return transaction(...a);
    }) as Db["transaction"];
    let both;
    try {
      both = await store.candidatesWithDense(vector, lexical, scope, 20, now, {
        vector: dense,
        k: 15,
      });
    } finally {
      db.query = query;
      db.transaction = transaction;
    }
    assert.deepEqual({ statements, transactions }, { statements: 1, transactions: 0 }, what);
    same(both.near, near, `${what}: the dense neighbours`);
    same(
      [...both.candidates].sort((x, y) => x.memory.id.localeCompare(y.memory.id)),
      [...candidates].sort((x, y) => x.memory.id.localeCompare(y.memory.id)),
      `${what}: the candidates`,
    );
    // The dense neighbours' memories as stored.
    for (const n of both.near) {
      assert.equal(n.memory.content, near.find((x) => x.memory.id === n.memory.id)!.memory.content);
    }
    // With the embedder check in the statement (the embedded database's search): the same
    // rows when the recorded embedder is the one given, none (null) when it is another.
    const info = service.embedderInfo;
    const checked = await store.checkedCandidatesWithDense(
      vector,
      lexical,
      scope,
      20,
      now,
      {
        vector: dense,
        k: 15,
      },
      true,
      info,
    );
    assert.ok(checked, what);
    same(checked.near, both.near, `${what}: checked, the dense neighbours`);
    same(checked.candidates, both.candidates, `${what}: checked, the candidates`);
    for (const other of [{ ...info, model: "other-model" }, { ...info, dimension: 3 }]) {
      assert.equal(
        await store.checkedCandidatesWithDense(
          vector,
          lexical,
          scope,
          20,
          now,
          {
            vector: dense,
            k: 15,
          },
          true,
          other,
        ),
        null,
        `${what}: another embedder recorded`,
      );
    }
  }
  assert.deepEqual([...kinds].sort(), [false, true], "exact and HNSW reads both checked");
  // Nothing found, the record checked: no candidate, not null.
  assert.deepEqual(
    await store.checkedCandidatesWithDense(
      vector,
      lexical,
      {
        kind: "project",
        project: "nowhere",
      },
      20,
      now,
      { vector: dense, k: 15 },
      true,
      service.embedderInfo,
    ),
    { candidates: [], near: [] },
  );
}

Deno.test("candidatesWithDense on PGlite: the two reads' memories in one statement", async () => {
  const { service, db, close } = await pgliteService();
  try {
    await check(service, db);
  } finally {
    await close();
  }
});

serverTest("candidatesWithDense on a real server: the two reads' memories", async (pg) => {
  const d = await freshDatabase(pg);
  const db = await openPostgres(d.url, { max: 1 });
  const service = await createServiceOnDb(db, testConfig({ databaseUrl: d.url }));
  try {
    await check(service, db);
  } finally {
    await service.close();
    await d.drop();
  }
});
