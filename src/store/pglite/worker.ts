/**
 * The embedded database in a worker thread: this module is the worker's side. It opens the
 * database with {@link openPglite} (the disk-full guard and its statement queue included) and
 * runs what the daemon's thread asks of it, so that a long statement (an index build, a
 * vacuum, a dump) holds this thread only and the daemon goes on answering. The daemon's side
 * is worker_client.ts beside it, and the message protocol both ends speak is protocol.ts.
 *
 * The worker holds the process's permissions, no more (a worker inherits them): a subset
 * needs Deno's unstable `--unstable-worker-options`, and revoking one in the worker revokes
 * it for the whole process (Deno 2.9: the worker shares the parent's permission state).
 * @module
 */
/// <reference lib="deno.worker" />
import type { Db } from "../db.ts";
import { openPglite, type PgliteDb } from "./open.ts";
import { serializeError, type WorkerReply, type WorkerRequest } from "./protocol.ts";
import { IdleCollector } from "../../common/gc.ts";

/** Thrown into PGlite's transaction to roll it back when the daemon's callback failed. */
const ROLLBACK = Symbol("rollback");

/** Thrown to end a batch at a step that returned no row (rolled back). */
const STOP = Symbol("stop");

let db: PgliteDb | null = null;

/** A transaction: its connection once begun, how to end it, and its outcome. */
interface OpenTx {
  ready: Promise<Db>;
  end: (commit: boolean) => void;
  done: Promise<void>;
}
const txs = new Map<number, OpenTx>();

/**
 * Begin transaction `txId` (numbered by the daemon's side, which sends its statements without
 * waiting for this reply): registered at once, so that the statements that follow wait for it
 * to hold the database (the queue may make it wait); replies then, or with the error it could
 * not begin with (which its statements get too). `end` commits or rolls it back.
 */
function begin(database: Db, id: number, txId: number): void {
  let end!: (commit: boolean) => void;
  const outcome = new Promise<boolean>((resolve) => end = resolve);
  let begun!: (tx: Db) => void;
  let failed!: (err: unknown) => void;
  const ready = new Promise<Db>((resolve, reject) => {
    begun = resolve;
    failed = reject;
  });
  ready.catch(() => {}); // reported by the reply, and to each statement that awaits it
  let started = false;
  const done: Promise<void> = database.transaction(async (tx) => {
    started = true;
    begun(tx);
    reply({ id, ok: true });
    if (!await outcome) throw ROLLBACK;
  });
  done.then(undefined, (err) => {
    if (started) return;
    failed(err);
    reply({ id, ok: false, error: serializeError(err) });
  });
  txs.set(txId, { ready, end, done });
}

function reply(msg: WorkerReply, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

async function handle(req: WorkerRequest): Promise<void> {
  const { id } = req;
  try {
    if (req.op === "open") {
      db = await openPglite(req.dataDir, { durable: req.durable, reserveBytes: req.reserveBytes });
      return reply({ id, ok: true });
    }
    if (!db) throw new Error("the database is not open");
    if (req.op === "begin") return begin(db, id, req.tx);
    let runner: Db = db;
    if (req.tx !== undefined && req.op !== "end") {
      const t = txs.get(req.tx);
      if (!t) throw new Error(`transaction ${req.tx} is not open`);
      runner = await t.ready;
    }
    switch (req.op) {
      case "query":
        return reply({
          id,
          ok: true,
          rows: await runner.query(req.text, req.params, { prepare: req.prepare }),
        });
      case "exec":
        await runner.exec(req.text);
        return reply({ id, ok: true });
      case "batch": {
        // Db.batch: the steps in one transaction (or in the open one), in this one message.
        const out: unknown[][] = [];
        const run = async (t: Db) => {
          for (const step of req.steps) {
            const rows = await t.query(step.text, step.params, { prepare: step.prepare });
            out.push(rows);
            if (step.stopUnlessRows && !rows.length) throw STOP;
          }
        };
        try {
          await (req.tx !== undefined ? run(runner) : runner.transaction(run));
        } catch (err) {
          if (err !== STOP) throw err;
        }
        return reply({ id, ok: true, rows: out });
      }
      case "end": {
        const t = txs.get(req.tx);
        if (!t) throw new Error(`transaction ${req.tx} is not open`);
        t.end(req.commit);
        try {
          await t.done;
        } catch (err) {
          // Rolled back; or never begun, which a rollback need not report.
          if (err !== ROLLBACK && req.commit) throw err;
        } finally {
          txs.delete(req.tx);
        }
        return reply({ id, ok: true });
      }
      case "dump": {
        const blob = await db.dump();
        const bytes = await blob.arrayBuffer();
        return reply({ id, ok: true, bytes, type: blob.type }, [bytes]);
      }
      case "close":
        await db.close();
        db = null;
        return reply({ id, ok: true });
    }
  } catch (err) {
    reply({ id, ok: false, error: serializeError(err) });
  }
}

/**
 * This thread's heap is its own: the daemon's collections (src/common/gc.ts) do not reach
 * it. The garbage of a burst of statements (an import's payloads and rows) is collected once
 * the worker falls quiet, as the daemon's.
 */
const idle = new IdleCollector({ minHeapBytes: 8 * 1024 * 1024 });

self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  idle.begin();
  void handle(e.data).finally(() => idle.end());
};
