/**
 * `deno run -A tasks/explain_search.ts --database-url URL [--query TEXT] [--project NAME]`
 *
 * Prints `EXPLAIN (ANALYZE, BUFFERS)` of the SQL the memory service runs for one search,
 * on a database Mneme already uses (say, after `deno task bench:memory --database-url URL`):
 * the statements are captured from the real service (builtin embedder), so the plan shown
 * is the plan of the query in this checkout, with its session settings.
 */
import { parseArgs } from "node:util";
import { loadMemoryConfig } from "../src/config.ts";
import { createServiceOnDb } from "../src/memory/open.ts";
import type { Db } from "../src/store/db.ts";
import { openPostgres } from "../src/store/postgres.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    "database-url": { type: "string" },
    query: { type: "string", default: "the database needs hnsw indexes" },
    project: { type: "string" },
  },
  strict: true,
});
const url = values["database-url"];
if (!url) {
  console.error("explain_search: --database-url is required");
  Deno.exit(2);
}

const plans: string[] = [];
let capture = false;

/** A Db that, while capturing, explains every nearest-neighbour statement before running it. */
function explaining(db: Db): Db {
  return {
    kind: db.kind,
    async query<T>(text: string, params?: unknown[]) {
      if (capture && /<=>/.test(text)) {
        const rows = await db.query<{ "QUERY PLAN": string }>(
          `explain (analyze, buffers) ${text}`,
          params,
        );
        // The query vector is a literal of hundreds of numbers: shown by its dimension only.
        plans.push(
          rows.map((r) => r["QUERY PLAN"]).join("\n").replace(
            /'\[[-0-9.,e]+\]'/g,
            (v) => `'[${v.split(",").length} numbers]'`,
          ),
        );
      }
      return await db.query<T>(text, params);
    },
    exec: (text) => db.exec(text),
    transaction: (fn) => db.transaction((tx) => fn(explaining(tx))),
    close: () => db.close(),
  };
}

const env: Record<string, string> = { DATABASE_URL: url, EMBEDDING_PROVIDER: "builtin" };
const cfg = loadMemoryConfig((n) => env[n] ?? Deno.env.get(n));
const db = explaining(await openPostgres(url, { max: 1 }));
const service = await createServiceOnDb(db, cfg);
try {
  const [{ n }] = await db.query<{ n: number }>("select count(*)::int as n from memories");
  await service.search({ query: values.query! }); // warm the cache
  capture = true;
  const t = performance.now();
  const results = await service.search({ query: values.query!, project: values.project });
  const ms = performance.now() - t;
  capture = false;
  console.log(
    `-- ${n} memories; search ${JSON.stringify(values.query)}${
      values.project ? ` in project ${values.project}` : ""
    }: ${results.length} results, ${ms.toFixed(1)} ms with EXPLAIN ANALYZE`,
  );
  for (const p of plans) console.log(`\n${p}`);
} finally {
  await service.close();
}
