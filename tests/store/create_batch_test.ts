/**
 * A create's contradiction check runs with settings of its own (sequential scans off, the HNSW
 * walk at CONTRADICTION_EF_SEARCH) for its transaction only; on the embedded database the
 * check, its nearest memories and the insert are one transaction (Store.insertAfterNearest),
 * and an insert that fails there leaves nothing: no memory, posting, number, term key,
 * statistics row or setting. That insert writes its statistics deltas itself (its triggers
 * stand aside): the statistics stay those counted from the memories.
 */
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";
import { CONTRADICTION_EF_SEARCH, EF_SEARCH } from "../../src/store/search_params.ts";
import {
  CONTRADICTION_SETTINGS,
  nearestContentStatement,
  nearestStatement,
} from "../../src/store/search.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";
import { Store } from "../../src/store/store.ts";
import { pgliteService, postgresService } from "../helpers.ts";
import { newRow } from "../memory/fixtures.ts";
import { assertStatsExact } from "../memory/stats_check.ts";

const DIM = 8;

function unit(seed: number): number[] {
  const v = Array.from(
    { length: DIM },
    (_, i) => Math.sin(seed * 7.1 + i * 1.3) + (i === 0 ? 2 : 0),
  );
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/**
 * The connection's settings that the check changes for its transaction (and `mneme.staged`,
 * which the create in one batch sets beside them: its insert counts its own statistics).
 */
async function settings(db: Db): Promise<{ ef: string; seqscan: string; staged: string }> {
  const [r] = await db.query<{ ef: string; seqscan: string; staged: string }>(
    `select current_setting('hnsw.ef_search') as ef,
            current_setting('enable_seqscan') as seqscan,
            coalesce(current_setting('mneme.staged', true), '') as staged`,
  );
  return r;
}

/** Rows of every table a create writes. */
async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (
    const t of [
      "memories",
      "memory_nums",
      "memory_postings",
      "memory_term_keys",
      "memory_corpus",
      "memory_term_df",
    ]
  ) {
    const [r] = await db.query<{ n: number }>(`select count(*)::int as n from ${t}`);
    out[t] = r.n;
  }
  return out;
}

assert.ok(CONTRADICTION_EF_SEARCH < EF_SEARCH);

for (
  const [name, open] of [["embedded", pgliteService], ["server", postgresService]] as const
) {
  Deno.test(`the contradiction check's settings last for its transaction only (${name} database)`, async () => {
    const { service, db, close } = await open({ embeddingDim: DIM });
    try {
      const store = storeOf(service);
      const at = new Date();
      await store.insert(Array.from({ length: 12 }, (_, i) => newRow(`m ${i}`, unit(i), at)));
      const before = await settings(db);
      // The connection's own (a server over PGlite's socket takes no startup settings: 40).
      assert.equal(before.seqscan, "on");
      if (name === "embedded") assert.equal(before.ef, String(EF_SEARCH));
      const near = await store.nearest(unit(3), { kind: "global" }, 5, at);
      assert.equal(near.length, 5);
      assert.equal(near[0].memory.content, "m 3");
      assert.deepEqual(await settings(db), before);
      const r = await service.create({ content: "one more" });
      assert.ok(r.memory.id);
      assert.deepEqual(await settings(db), before, "after a create");
    } finally {
      await close();
    }
  });
}

/**
 * `db` whose transactions, before each nearest-neighbour statement, read the HNSW walk's
 * breadth in effect for it into `seen`.
 */
function breadthSpy(db: Db, seen: string[]): Db {
  const spy = (d: Db): Db =>
    new Proxy(d, {
      get(target, key) {
        if (key === "transaction") {
          return <T>(fn: (tx: Db) => Promise<T>) => target.transaction((tx) => fn(spy(tx)));
        }
        if (key === "query") {
          return async (text: string, ...rest: unknown[]) => {
            if (/ as similarity\b/.test(text) && /order by/.test(text)) {
              const [r] = await target.query<{ ef: string }>(
                "select current_setting('hnsw.ef_search') as ef",
              );
              seen.push(r.ef);
            }
            // deno-lint-ignore no-explicit-any
            return await (target.query as any)(text, ...rest);
          };
        }
        const v = Reflect.get(target, key, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  return spy(db);
}

for (
  const [name, open] of [["embedded", pgliteService], ["server", postgresService]] as const
) {
  Deno.test(`a search without a lexical side walks HNSW at the search's breadth, the contradiction check at its own (${name} database)`, async () => {
    const { service, db, close } = await open({ embeddingDim: DIM });
    try {
      const at = new Date();
      await storeOf(service).insert(
        Array.from({ length: 40 }, (_, i) => newRow(`m ${i}`, unit(i), at)),
      );
      const own = (await settings(db)).ef;
      const seen: string[] = [];
      const store = new Store(breadthSpy(db, seen));
      // A vector-only search's candidates (MEMORY_RETRIEVAL=vector, or a query without a term).
      const found = await store.candidates(unit(3), null, { kind: "global" }, 15, at);
      assert.equal(found.length, 15);
      assert.equal(found[0].memory.content, "m 3");
      assert.deepEqual(seen, [own], "the search's 15 neighbours at the connection's breadth");
      seen.length = 0;
      await store.nearest(unit(3), { kind: "global" }, 5, at);
      assert.deepEqual(seen, [String(CONTRADICTION_EF_SEARCH)], "the contradiction check's");
    } finally {
      await close();
    }
  });
}

Deno.test("a create in one message whose insert fails leaves nothing, its settings included (embedded database)", async () => {
  const { service, db, close } = await pgliteService({ embeddingDim: DIM });
  try {
    const store = storeOf(service);
    const at = new Date();
    const embedder = (await store.recordedEmbedder())!;
    const first = newRow("the deploy step caches layers", unit(1), at);
    const done = await store.insertAfterNearest(first, embedder, { kind: "global" }, 5, at);
    assert.equal(done?.memory.id, first.id);
    const before = await counts(db);
    const settingsBefore = await settings(db);
    // The same id again, with other words (new term keys) and a vector near the first: the
    // check and the nearest memories pass, the insert fails on the primary key.
    const again = newRow("another sentence entirely", unit(1.01), at, { id: first.id });
    await assert.rejects(
      () => store.insertAfterNearest(again, embedder, { kind: "global" }, 5, at),
      /duplicate key|memories_pkey/,
    );
    assert.deepEqual(await counts(db), before, "nothing written");
    assert.deepEqual(await settings(db), settingsBefore, "no setting left");
    // The next create goes through.
    const next = newRow("another sentence entirely", unit(1.01), at);
    const ok = await store.insertAfterNearest(next, embedder, { kind: "global" }, 5, at);
    assert.deepEqual(ok?.near.map((x) => x.memory.id), [first.id]);
  } finally {
    await close();
  }
});

for (
  const [name, open] of [["embedded", pgliteService], ["server", postgresService]] as const
) {
  Deno.test(`creates in one batch keep the corpus statistics exact (${name} database)`, async () => {
    const { service, db, close } = await open({ embeddingDim: DIM });
    try {
      const store = storeOf(service);
      const at = new Date();
      const embedder = (await store.recordedEmbedder()) ??
        { provider: "test", model: "test", dimension: DIM };
      const made = [
        // New terms, then the same terms again (known keys), in three project values.
        newRow("the deploy step caches layers", unit(1), at),
        newRow("the deploy step caches layers twice", unit(2), at, {
          project: "a",
          scope: "project",
        }),
        newRow("caches layers deploy", unit(3), at, { project: "a", scope: "project" }),
        newRow("a sentence of other words", unit(4), at, { project: "b", scope: "project" }),
        newRow("", unit(5), at, { project: "b", scope: "project" }), // no term at all
        newRow("ttl words expire", unit(6), at, {
          expiresAt: new Date(at.getTime() + 60_000),
        }),
      ];
      for (const row of made) {
        const done = await store.insertAfterNearest(row, embedder, { kind: "all" }, 5, at);
        assert.equal(done?.memory.id, row.id);
      }
      await assertStatsExact(db, "creates in one batch");
      // Through the service too, and a delete and an import after them (their triggers act).
      const r = await service.create({ content: "the deploy step rebuilds images", project: "a" });
      await service.import([{ content: "imported deploy words", project: "b" }]);
      await service.delete(made[0].id);
      await assertStatsExact(db, "a create, an import and a delete after them");
      assert.ok(r.memory.id);
      assert.equal((await settings(db)).staged === "on", false, "mneme.staged not left on");
    } finally {
      await close();
    }
  });
}

Deno.test("the check's nearest memories are the same with its vector in binary as in text (embedded database)", async () => {
  const { service, db, close } = await pgliteService({ embeddingDim: DIM });
  try {
    const store = storeOf(service);
    const at = new Date();
    await store.insert(
      Array.from({ length: 30 }, (_, i) =>
        newRow(
          `memory number ${i}`,
          unit(i),
          at,
          i % 3 ? { scope: "project", project: `p${i % 2}` } : {},
        )),
    );
    const read = (text: string, params: unknown[]) =>
      db.transaction(async (tx) => {
        await tx.query(CONTRADICTION_SETTINGS, [], { prepare: true });
        return await tx.query<{ id: string; similarity: number }>(text, params, { prepare: true });
      });
    let compared = 0;
    for (const scope of [{ kind: "global" }, { kind: "hierarchy", project: "p1" }] as const) {
      for (const exact of [false, true]) {
        for (const seed of [0.5, 7.25, 19.5]) {
          const v = unit(seed);
          const ways = [
            (binary: boolean) =>
              nearestStatement(v, scope, 5, at, exact, undefined, "embedding", binary),
            (binary: boolean) => nearestContentStatement(v, scope, 5, at, exact, undefined, binary),
          ];
          for (const way of ways) {
            const [textT, paramsT] = way(false);
            const [textB, paramsB] = way(true);
            assert.ok(paramsB.some((p) => p instanceof Uint8Array), "a binary parameter");
            const asText = await read(textT, paramsT);
            const asBinary = await read(textB, paramsB);
            assert.equal(asText.length, 5);
            assert.deepEqual(asBinary.map((r) => r.id), asText.map((r) => r.id));
            asBinary.forEach((r, i) =>
              assert.ok(Math.abs(Number(r.similarity) - Number(asText[i].similarity)) < 1e-6)
            );
            compared++;
          }
        }
      }
    }
    assert.equal(compared, 24);
  } finally {
    await close();
  }
});
