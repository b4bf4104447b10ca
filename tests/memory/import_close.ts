/**
 * A service closed right after a series of imports, run on each backend (import_analyze_test.ts,
 * tests/pgserver/import_close_test.ts): close() waits for the work the imports left due (the
 * analyze after the series, by default 1.5 s after the last import), nothing is logged, then or
 * after the quiet spell the analyze would have waited for, and the database opens again with
 * every memory.
 */
import assert from "node:assert/strict";
import { IMPORT_ANALYZE_QUIET_MS } from "../../src/memory/importer.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";

const items = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    content: `note ${tag} ${i}: the build of module ${i % 37} uses flag ${i % 11}`,
    project: "p",
  }));

/** Opens the same database each time it is called (with the service's default schedule). */
export async function closeAfterImportsScenario(
  open: () => Promise<SqlMemoryService>,
): Promise<void> {
  const s = await open();
  const logged: string[] = [];
  const orig = console.error;
  console.error = (...a: unknown[]) => logged.push(a.map(String).join(" "));
  try {
    try {
      // The first doubles the memories (analyzed in its request); the second leaves one due.
      await s.import(items(300, "first"));
      await s.import(items(100, "second"));
    } finally {
      await s.close();
    }
    // Past the quiet spell: no analyze of the closed service runs (and fails) late.
    await new Promise((r) => setTimeout(r, IMPORT_ANALYZE_QUIET_MS + 500));
  } finally {
    console.error = orig;
  }
  assert.deepEqual(logged, [], "nothing logged by close or after it");
  const again = await open();
  try {
    assert.equal((await again.stats()).total, 400);
    const hits = await again.search({ query: "note second 7 module", project: "p", limit: 5 });
    assert.ok(hits.some((h) => h.memory.content.startsWith("note second 7:")));
  } finally {
    await again.close();
  }
}
