/**
 * The keys of (term, project) pairs an import's chunks met are kept from one import to the next
 * (ImportJobs, KEYS_CACHED): an import whose pairs are all known sends no lookup of them, and
 * its postings point at the same keys as the first import's.
 */
import assert from "node:assert/strict";
import { storeOf } from "../../src/memory/diagnostics.ts";
import type { Db } from "../../src/store/db.ts";
import { pgliteService } from "../helpers.ts";

Deno.test("a second import of known pairs looks none of them up again", async () => {
  const { service, db, close } = await pgliteService();
  try {
    const items = (type: "fact" | "rule") =>
      Array.from({ length: 150 }, (_, i) => ({
        content: `the ${["build", "deploy", "release"][i % 3]} step ${i % 10} uses cache ${i % 7}`,
        type,
      }));
    assert.equal((await service.import(items("fact"))).imported, 150);
    const db0 = storeOf(service).db;
    const sent: string[] = [];
    const watch = (d: Db) => {
      const query = d.query.bind(d);
      d.query = ((text: string, ...rest: unknown[]) => {
        sent.push(text);
        // deno-lint-ignore no-explicit-any
        return (query as any)(text, ...rest);
      }) as Db["query"];
      return query;
    };
    const query = watch(db0);
    const transaction = db0.transaction.bind(db0);
    db0.transaction = ((fn: (tx: Db) => Promise<unknown>) =>
      transaction((tx) => {
        watch(tx);
        return fn(tx);
      })) as Db["transaction"];
    try {
      // The same words (another type: not skipped as stored), so the same pairs.
      assert.equal((await service.import(items("rule"))).imported, 150);
    } finally {
      db0.query = query;
      db0.transaction = transaction;
    }
    assert.ok(sent.some((t) => t.includes("insert into memory_postings")), "the chunks were sent");
    assert.deepEqual(sent.filter((t) => t.includes("memory_term_keys")), []);
    // Both imports' postings of a memory and its twin: the same keys.
    const [{ n }] = await db.query<{ n: number }>(
      `select count(*)::int as n from (
         select m.content, array_agg(p.key order by p.key) as keys, m.type
           from memories m join memory_nums u on u.id = m.id
           join memory_postings p on p.num = u.num
          group by m.id, m.content, m.type) a
       join (
         select m.content, array_agg(p.key order by p.key) as keys, m.type
           from memories m join memory_nums u on u.id = m.id
           join memory_postings p on p.num = u.num
          group by m.id, m.content, m.type) b
         on a.content = b.content and a.type = 'fact' and b.type = 'rule' and a.keys = b.keys`,
    );
    assert.equal(n, 150);
  } finally {
    await close();
  }
});
