/**
 * `deno run -A tasks/explain_search.ts --database-url URL [--query TEXT] [--project NAME]`
 *
 * Prints the plans, with actual rows and times (auto_explain: `--database-url` must be a
 * superuser's), of the statements the memory service runs for one search, on a database
 * Mneme already uses (say, after `deno task bench:memory --database-url URL`): the search
 * runs through the real service (builtin embedder), so the plans shown are those of this
 * checkout, with its session settings.
 */
import { parseArgs } from "node:util";
import { loadMemoryConfig } from "../src/config.ts";
import { createServiceOnDb } from "../src/memory/open.ts";
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

/**
 * The search is one call of the function mneme_search_scoped
 * (migrations/functions/mneme_search_scoped.sql);
 * auto_explain (a superuser may load it) reports the plans of the statements inside it, with
 * their actual rows and times, as notices of this session.
 */
const AUTO_EXPLAIN = `load 'auto_explain';
  set auto_explain.log_min_duration = 0; set auto_explain.log_analyze = on;
  set auto_explain.log_buffers = on; set auto_explain.log_nested_statements = on;
  set client_min_messages = log`;

const env: Record<string, string> = { DATABASE_URL: url, EMBEDDING_PROVIDER: "builtin" };
const cfg = loadMemoryConfig((n) => env[n] ?? Deno.env.get(n));
const db = await openPostgres(url, {
  max: 1,
  // The query vector is a literal of hundreds of numbers: shown by its dimension only.
  onNotice: (m) =>
    capture &&
    plans.push(m.replace(/'\[[-0-9.,e]+\]'/g, (v) => `'[${v.split(",").length} numbers]'`)),
});
const service = await createServiceOnDb(db, cfg);
try {
  const [{ n }] = await db.query<{ n: number }>("select count(*)::int as n from memories");
  await service.search({ query: values.query! }); // warm the cache
  await db.exec(AUTO_EXPLAIN);
  capture = true;
  const t = performance.now();
  const results = await service.search({ query: values.query!, project: values.project });
  const ms = performance.now() - t;
  capture = false;
  console.log(
    `-- ${n} memories; search ${JSON.stringify(values.query)}${
      values.project ? ` in project ${values.project}` : ""
    }: ${results.length} results, ${ms.toFixed(1)} ms with auto_explain`,
  );
  for (const p of plans) console.log(`\n${p}`);
} finally {
  await service.close();
}
