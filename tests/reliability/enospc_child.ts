/**
 * Child of full_disk_test.ts (run as its own process, so that a regression spins here and
 * is killed by the test's timer instead of hanging the test runner). On a small file system
 * at argv[0]: PGlite with no free-space reserve runs into a real ENOSPC in its WAL; prints one
 * JSON line of what happened.
 */
import { MemoryError } from "../../src/domain/errors.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";

const mnt = Deno.args[0];
const db = await openPglite(`${mnt}/db`, { reserveBytes: 0 });
await db.exec("create table t (x text)");
const filler = await Deno.open(`${mnt}/filler`, { write: true, create: true });
try {
  for (;;) await filler.write(new Uint8Array(1 << 20));
} catch { /* full */ }
await filler.truncate((await filler.stat()).size - 6 * (1 << 20));
filler.close();

let acknowledged = 0;
let firstError: { status?: number; message: string } | null = null;
for (let i = 0; i < 100_000 && !firstError; i++) {
  try {
    await db.query(
      "insert into t select md5(random()::text) || repeat('y', 2000) from generate_series(1, 50)",
    );
    acknowledged += 50;
  } catch (err) {
    firstError = {
      status: err instanceof MemoryError ? err.status : undefined,
      message: (err as Error).message,
    };
  }
}
// The event loop is alive: a timer fires while the disk is full.
let ticked = false;
setTimeout(() => (ticked = true), 10);
const results: Record<string, unknown> = { acknowledged, firstError };
const attempt = async (name: string, fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  try {
    results[name] = { ok: await fn(), ms: Math.round(performance.now() - t0) };
  } catch (err) {
    results[name] = {
      status: err instanceof MemoryError ? err.status : undefined,
      message: (err as Error).message,
      ms: Math.round(performance.now() - t0),
    };
  }
};
await attempt("readWhileFull", () => db.query("select count(*)::int as n from t"));
await attempt("writeWhileFull", () => db.query("insert into t values ('x')"));
await new Promise((r) => setTimeout(r, 1200));
await attempt("reopenWhileFull", () => db.query("select 1"));
results.ticked = ticked;
await Deno.remove(`${mnt}/filler`);
await new Promise((r) => setTimeout(r, 1200));
await attempt("readAfterFree", () => db.query("select count(*)::int as n from t"));
await attempt("writeAfterFree", () => db.query("insert into t values ('after') returning x"));
await db.close();
console.log(JSON.stringify(results));
// The abandoned instance keeps a handle open: end here (the daemon exits the same way).
Deno.exit(0);
