/**
 * The TTL cleanup: deletes expired memories once an hour. Guarded by a transaction-scoped
 * advisory lock so that one process of many (several MCP servers on one Postgres) runs it.
 * It runs in the background and never blocks a request or tool call.
 * @module
 */
import type { Store } from "../store/store.ts";

/** What the cleanup needs of the store. */
export type Expiring = Pick<Store, "deleteExpired">;
import { describeError } from "../common/errors.ts";

/** The cleanup interval: one hour. */
export const CLEANUP_INTERVAL_MS = 3_600_000;

/** Options of {@link scheduleCleanup}. */
export interface CleanupOptions {
  /** Interval, default one hour. */
  intervalMs?: number;
  /** Clock. */
  now?: () => Date;
  /** Log line sink (stderr by default). */
  log?: (line: string) => void;
  /** Run once right away (default true). */
  runNow?: boolean;
  /** Called with the number deleted when a run deleted some (the vacuum follows it). */
  onDeleted?: (n: number) => void;
}

/** Schedule the cleanup; returns a function that stops it. */
export function scheduleCleanup(store: Expiring, opts: CleanupOptions = {}): () => void {
  const log = opts.log ?? ((l: string) => console.error(l));
  const now = opts.now ?? (() => new Date());
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      // The number deleted, or null when another process holds the lock.
      const n = await store.deleteExpired(now());
      if (n) {
        log(`ttl cleanup: deleted ${n} expired memories`);
        opts.onDeleted?.(n);
      }
    } catch (err) {
      log(`ttl cleanup failed: ${describeError(err)}`);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, opts.intervalMs ?? CLEANUP_INTERVAL_MS);
  Deno.unrefTimer(timer);
  const first = opts.runNow === false ? undefined : setTimeout(tick, 0);
  return () => {
    clearInterval(timer);
    if (first !== undefined) clearTimeout(first);
  };
}
