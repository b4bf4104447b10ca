/**
 * The worker's message protocol (src/store/pglite/protocol.ts): an error crosses to the
 * daemon's thread with its name, message, HTTP status and Postgres's fields.
 */
import assert from "node:assert/strict";
import { MemoryError } from "../../../src/domain/errors.ts";
import { rebuildError, serializeError } from "../../../src/store/pglite/protocol.ts";

Deno.test("an error crosses with its name, message, status and Postgres's fields", () => {
  const pg = Object.assign(new Error("duplicate key"), {
    name: "DatabaseError",
    code: "23505",
    detail: "Key (id)=(1) already exists.",
    position: 7,
  });
  const back = rebuildError(structuredClone(serializeError(pg)!));
  assert.equal(back.name, "DatabaseError");
  assert.equal(back.message, "duplicate key");
  assert.equal((back as unknown as { code: string }).code, "23505");
  assert.equal((back as unknown as { detail: string }).detail, "Key (id)=(1) already exists.");
  assert.equal((back as unknown as { position: number }).position, 7);
  assert.ok(!(back instanceof MemoryError));
  const full = rebuildError(structuredClone(serializeError(new MemoryError(507, "disk full"))!));
  assert.ok(full instanceof MemoryError);
  assert.equal(full.status, 507);
  assert.equal(full.message, "disk full");
  const odd = rebuildError(serializeError("a string thrown")!);
  assert.equal(odd.message, "a string thrown");
});
