/**
 * The dense leg in the search (src/memory/dense.ts, src/store/dense.ts): a memory that shares
 * no word with the query is found by meaning, on PGlite and on the Postgres adapter over the
 * wire; writes store the vector, an update re-encodes it; the backfill of a database stored
 * before the column resumes from its cursor and gives every memory its vector once.
 */
import assert from "node:assert/strict";
import { pgliteService, postgresService } from "../helpers.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";
import type { Db } from "../../src/store/db.ts";
import { backfillDense } from "../../src/memory/dense.ts";
import { builtinSif } from "../../src/embed/sif.ts";

const MEMORIES = [
  "The staging database is backed up every night to the S3 bucket acme-backups.",
  "Run `make lint` before every commit; CI rejects unformatted code.",
  "Grafana dashboards live in ops/dashboards and are provisioned from JSON.",
  "The payment service retries failed charges three times with exponential backoff.",
  "Our on-call rotation changes every Monday at 9am.",
];
/** Shares no index term with the on-call memory (pager, duty, switch). */
const QUERY = "when does the pager duty switch";

async function seed(service: SqlMemoryService): Promise<string> {
  let target = "";
  for (const content of MEMORIES) {
    const { memory } = await service.create({ content, scope: "project", project: "ops" });
    if (content.includes("on-call")) target = memory.id;
  }
  return target;
}

async function denseCount(db: Db): Promise<number> {
  const [r] = await db.query<{ n: number }>(
    "select count(*)::int as n from memories where dense is not null",
  );
  return r.n;
}

for (
  const [name, open] of [
    ["PGlite", pgliteService],
    ["Postgres over the wire", postgresService],
  ] as const
) {
  Deno.test(`dense leg (${name}): a memory sharing no word with the query is found by meaning`, async () => {
    const on = await open();
    try {
      const target = await seed(on.service);
      assert.equal(await denseCount(on.db), MEMORIES.length, "every create stores its vector");
      const found = await on.service.search({ query: QUERY, project: "ops", limit: 3 });
      assert.ok(
        found.some((r) => r.memory.id === target),
        `found: ${found.map((r) => r.memory.content).join(" | ")}`,
      );
    } finally {
      await on.close();
    }
    // The same memories and query without the dense leg: nothing shares a word, nothing found.
    const off = await open({}, { denseSearch: false });
    try {
      const target = await seed(off.service);
      const found = await off.service.search({ query: QUERY, project: "ops", limit: 3 });
      assert.ok(!found.some((r) => r.memory.id === target));
    } finally {
      await off.close();
    }
  });
}

Deno.test("dense leg: an update re-encodes; an identifier query is ranked without it", async () => {
  const { service, db, close } = await pgliteService();
  try {
    const target = await seed(service);
    const [before] = await db.query<{ d: string }>(
      "select dense::text as d from memories where id = $1",
      [target],
    );
    await service.update(target, { content: "The weekly pager handover is on Mondays." });
    const [after] = await db.query<{ d: string }>(
      "select dense::text as d from memories where id = $1",
      [target],
    );
    assert.notEqual(after.d, before.d);
    // A memory without a known word has no vector (and is found lexically).
    const { memory } = await service.create({ content: "zxqv-9931 qqrt", scope: "global" });
    const [none] = await db.query<{ d: string | null }>(
      "select dense::text as d from memories where id = $1",
      [memory.id],
    );
    assert.equal(none.d, null);
    const exact = await service.search({ query: "ops/dashboards", project: "ops", limit: 5 });
    assert.ok(exact.every((r) => r.memory.content.includes("ops/dashboards")));
  } finally {
    await close();
  }
});

Deno.test("dense backfill: a database stored before the column gets every vector once, resumably", async () => {
  const { service, db, close } = await pgliteService();
  try {
    for (let i = 0; i < 1200; i += 300) {
      await service.import(
        Array.from({ length: 300 }, (_, j) => ({
          content: `Memory number ${i + j} about the deploy of service ${i + j}`,
        })),
      );
    }
    assert.equal(await denseCount(db), 1200, "imports store the vectors");
    // As a database of 0.14 is after the migration: the column there, empty, nothing recorded.
    await db.exec("update memories set dense = null");
    await db.exec(
      `update mneme_meta set dense_provider = null, dense_model = null, dense_dimension = null,
              dense_running_provider = null, dense_running_model = null,
              dense_running_dimension = null, dense_cursor = null`,
    );
    const store = storeOf(service);
    // A start stopped after the first batch (500 memories).
    const encoder = await builtinSif();
    let batches = 0;
    const first = await backfillDense(store, encoder, { shouldStop: () => batches++ >= 1 });
    assert.deepEqual(first, { encoded: 500, finished: false });
    assert.equal(await denseCount(db), 500);
    const state = await store.denseState();
    assert.equal(state.complete, null);
    assert.deepEqual(state.running, encoder.info);
    assert.ok(state.cursor);
    // The next start goes on from the cursor: the 700 left, none twice.
    const lines: string[] = [];
    const rest = await service.backfillDense((l) => lines.push(l));
    assert.deepEqual(rest, { encoded: 700, finished: true });
    assert.equal(await denseCount(db), 1200);
    assert.deepEqual((await store.denseState()).complete, encoder.info);
    assert.ok(lines.some((l) => l.includes("dense vectors done")), lines.join("\n"));
    // Finished: nothing more to do.
    assert.deepEqual(await service.backfillDense(), { encoded: 0, finished: true });
  } finally {
    await close();
  }
});

Deno.test("dense leg: the embedding's nearest are read only for a query naming an identifier", async () => {
  // With a dense leg of its own (the builtin embedder), the candidates' statement leaves the
  // embedding's nearest neighbours out (docs/performance.md, "0.19"), except for a query that
  // names an identifier, which is ranked without the dense leg.
  const on = await pgliteService();
  try {
    const target = await seed(on.service);
    const store = storeOf(on.service);
    const withVector: boolean[] = [];
    // On PGlite the search's statement carries the embedder check (docs/performance.md, "0.20").
    const orig = store.checkedCandidatesWithDense.bind(store);
    store.checkedCandidatesWithDense = (...args) => {
      withVector.push(args[6]);
      return orig(...args);
    };
    const found = await on.service.search({ query: QUERY, project: "ops", limit: 3 });
    assert.ok(found.some((r) => r.memory.id === target), "found by meaning");
    const lint = await on.service.search({ query: "make lint", project: "ops", limit: 3 });
    assert.ok(lint[0].memory.content.includes("make lint"), "the lexical side's candidates");
    await on.service.search({ query: "ops/dashboards", project: "ops", limit: 3 });
    assert.deepEqual(withVector, [false, false, true]);
  } finally {
    await on.close();
  }
});
