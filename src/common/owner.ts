/**
 * One owner per folder: a long-running process claims `<dir>/<name>.lock` (an exclusive
 * lock held while it runs, released by the OS when it dies) and records who it is in
 * `<dir>/<name>.json` (its pid, its URL, its start). A second process finds the first
 * through the lock and can say which process holds it, instead of colliding with it.
 * @module
 */
import { join } from "node:path";

/** What the owner records about itself. */
export interface OwnerRecord {
  /** Its pid. */
  pid: number;
  /** Where it answers, when it does. */
  url?: string;
  /** ISO time it started. */
  started_at: string;
  /** Its main module (a clone's or an install's file), when it says. */
  main?: string;
  /** Its version, when it says. */
  version?: string;
  /** Started by a task runner (`deno task start`, in a terminal): it stops with it. */
  task?: boolean;
}

/** A held claim: record who holds it, give it back. */
export interface OwnerClaim {
  /** Write the record (owner-only). */
  record(rec: Omit<OwnerRecord, "pid" | "started_at">): Promise<void>;
  /** Remove the record and release the lock. */
  release(): Promise<void>;
}

function paths(dir: string, name: string) {
  return { lock: join(dir, `${name}.lock`), json: join(dir, `${name}.json`) };
}

function parseRecord(text: string | null): OwnerRecord | null {
  try {
    const r = text === null ? null : JSON.parse(text);
    if (r && typeof r === "object" && Number.isInteger(r.pid) && r.pid > 0) return r;
  } catch { /* being written */ }
  return null;
}

async function readRecord(path: string): Promise<OwnerRecord | null> {
  return parseRecord(await Deno.readTextFile(path).catch(() => null));
}

/**
 * Claim `<dir>/<name>` for this process: the claim, or the current owner's record when
 * another process holds it (`{pid: 0}` when it has not recorded itself yet). Synchronous, so
 * that a server can claim and bind its port in the same turn of the event loop.
 */
export function claimOwner(
  dir: string,
  name: string,
): { claim: OwnerClaim } | { owner: OwnerRecord } {
  const p = paths(dir, name);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = Deno.openSync(p.lock, { read: true, write: true, create: true, mode: 0o600 });
  let got = false;
  try {
    got = file.tryLockSync(true);
  } finally {
    if (!got) file.close();
  }
  if (!got) {
    let text: string | null = null;
    try {
      text = Deno.readTextFileSync(p.json);
    } catch { /* not recorded yet */ }
    return { owner: parseRecord(text) ?? { pid: 0, started_at: "" } };
  }
  const started = new Date().toISOString();
  let released = false;
  return {
    claim: {
      async record(rec) {
        const body: OwnerRecord = { pid: Deno.pid, started_at: started, ...rec };
        await Deno.writeTextFile(p.json, JSON.stringify(body, null, 2) + "\n", { mode: 0o600 });
      },
      async release() {
        if (released) return;
        released = true;
        const mine = await readRecord(p.json);
        if (mine?.pid === Deno.pid) await Deno.remove(p.json).catch(() => {});
        file.close();
      },
    },
  };
}

/**
 * The current owner of `<dir>/<name>`, or null when no process holds it (the lock is free;
 * a record left by a process that died is not an owner).
 */
export async function findOwner(dir: string, name: string): Promise<OwnerRecord | null> {
  const p = paths(dir, name);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(p.lock, { read: true, write: true });
  } catch {
    return null; // never claimed, or not ours to look at
  }
  try {
    if (await file.tryLock(true)) {
      await file.unlock();
      return null;
    }
    return (await readRecord(p.json)) ?? { pid: 0, started_at: "" };
  } finally {
    file.close();
  }
}
