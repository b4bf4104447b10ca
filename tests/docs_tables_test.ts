/**
 * docs/ is left out of `deno fmt`: the tables of the configuration page are kept aligned by
 * hand, and drift there (a row wider than its header) has happened; each row of each table
 * is as wide as its header, counted in characters.
 */
import assert from "node:assert/strict";
import { ROOT } from "./helpers.ts";

Deno.test("docs/configuration.md: every table row is as wide as its header", async () => {
  const lines = (await Deno.readTextFile(`${ROOT}docs/configuration.md`)).split("\n");
  let header: { line: number; width: number } | null = null;
  let tables = 0;
  for (const [i, l] of lines.entries()) {
    if (!l.startsWith("|")) {
      header = null;
      continue;
    }
    const width = [...l].length;
    if (header === null) {
      header = { line: i + 1, width };
      tables++;
      continue;
    }
    assert.equal(width, header.width, `line ${i + 1} (table at line ${header.line})`);
  }
  assert.ok(tables >= 3, `${tables} tables`);
});
