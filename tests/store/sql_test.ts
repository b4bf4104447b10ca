/**
 * SQL helpers and row mapping (src/store/sql.ts): a backend that takes binary vectors gets
 * them apart from the rows' JSON, one that does not gets them as text in it; scope conditions
 * bind the project, never splice it.
 */
import assert from "node:assert/strict";
import type { Db } from "../../src/store/db.ts";
import { PGLITE_CAPABILITIES } from "../../src/store/pglite/mod.ts";
import { POSTGRES_CAPABILITIES } from "../../src/store/postgres.ts";
import { float4ArrayBinary, Params, rowsPayload, scopeClause } from "../../src/store/sql.ts";
import { newRow } from "../memory/fixtures.ts";

const rows = [newRow("a", [0.5, -0.25], new Date(0)), newRow("b", [1, 0], new Date(0))];
const as = (capabilities: Db["capabilities"]) => ({ capabilities }) as Db;

Deno.test("rowsPayload: binary vectors where the backend takes them, text otherwise", () => {
  const binary = rowsPayload(as(PGLITE_CAPABILITIES), rows, (j) => ({ extra: j }));
  assert.deepEqual(binary.vectors, [float4ArrayBinary(rows.map((r) => r.embedding), 2), 2]);
  const parsed = JSON.parse(binary.json);
  assert.equal(parsed[1].extra, 1);
  assert.equal(parsed[0].embedding, undefined);
  const text = rowsPayload(as(POSTGRES_CAPABILITIES), rows, () => ({}));
  assert.equal(text.vectors, null);
  assert.equal(JSON.parse(text.json)[0].embedding, "[0.5,-0.25]");
  assert.deepEqual(rowsPayload(as(PGLITE_CAPABILITIES), [], () => ({})).vectors, null);
});

Deno.test("scopeClause binds the project and has an exact form for the btree", () => {
  const p = new Params();
  const loose = scopeClause({ kind: "hierarchy", project: "x'; drop table memories" }, p);
  assert.equal(loose, "(m.scope <> 'project' or coalesce(m.project, '') = $1)");
  assert.deepEqual(p.values, ["x'; drop table memories"]);
  const q = new Params();
  assert.equal(
    scopeClause({ kind: "project", project: "p" }, q, true),
    "(m.scope = 'project' and m.project = $1)",
  );
  assert.equal(scopeClause({ kind: "all" }, new Params()), "true");
});
