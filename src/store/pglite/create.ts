/**
 * Creating a new embedded database outside the process that will hold it.
 *
 * PGlite creates a database (`initdb`) in a second WASM instance and a third, in-memory
 * PGlite, then copies the files out as a tarball: 600–780 MiB at its peak, which a process
 * keeps as its high-water mark (and V8 may keep as garbage for minutes). The daemon has it
 * done by a short-lived child process instead ({@link createDatabaseFiles}, with the child's
 * side in {@link createClusterFiles}) and only ever opens an existing database.
 *
 * Nothing half-made is ever trusted. A database is a directory with `PG_VERSION`; the child
 * builds it in a staging directory beside it (`<db>.new`), syncs every file to disk and writes
 * a marker last ({@link COMPLETE_MARKER}). The files are then moved into place with
 * `PG_VERSION` last. A kill at any point leaves either a staging directory without its marker
 * (removed, and the database created again at the next start) or a complete one whose move
 * the next start finishes.
 * @module
 */
import { join } from "node:path";
import {
  dropTemplateDatabases,
  loadPglite,
  openFailure,
  restrictToOwner,
  startParams,
} from "./mod.ts";

/** The file the creator writes last in a complete staging directory. */
export const COMPLETE_MARKER = ".mneme-complete";

/** The staging directory of the database in `dataDir`: a sibling, `<dataDir>.new`. */
export function stagingDir(dataDir: string): string {
  return `${dataDir.replace(/[\\/]+$/, "")}.new`;
}

/**
 * The lock file of the staging directory `staging` (a sibling, `<staging>.lock`): the creator
 * holds it locked for as long as it lives (the system lets go when the process ends, however it
 * ends), and the daemon takes it before it touches the staging directory, so that it never
 * removes or builds a staging directory that an orphaned creator of a killed start still writes.
 */
export function creatorLock(staging: string): string {
  return `${staging}.lock`;
}

/** How long a start waits for the creator of an earlier, killed start to stop. */
const CREATOR_WAIT_MS = 60_000;

/**
 * Wait until no creator holds {@link creatorLock} of `staging`: a creator orphaned by a killed
 * start stops at its parent watch's next poll, which a long step of `initdb` delays.
 */
async function waitForCreator(staging: string): Promise<void> {
  const path = creatorLock(staging);
  const f = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const late = new Promise<"late">((r) => timer = setTimeout(() => r("late"), CREATOR_WAIT_MS));
    if (await Promise.race([f.lock(true).then(() => "locked" as const), late]) === "late") {
      throw new Error(
        `the database creator of an earlier start still writes ${staging} after ` +
          `${CREATOR_WAIT_MS / 1000} s; stop it (it runs src/bin/initdb.ts) and start again`,
      );
    }
    await f.unlock();
  } finally {
    clearTimeout(timer);
    f.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

async function removeTree(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

/** fsync a file or, where the OS allows it, a directory (its entries). */
function syncPath(path: string): void {
  if (Deno.build.os === "windows") {
    // Directories cannot be opened for a sync there; files are.
    if (Deno.statSync(path).isDirectory) return;
  }
  const f = Deno.openSync(path, { read: true });
  try {
    f.syncSync();
  } finally {
    f.close();
  }
}

/** How many files are synced at once: a fresh database has about 1,000 files. */
const SYNC_CONCURRENCY = 32;

/**
 * fsync every file under `dir`, then every directory (their entries), many at a time: one
 * by one, the ~1,000 files of a new database took 2.4–2.8 s on a busy disk, 32 at a time
 * 0.06–0.2 s (the file system commits them together).
 */
async function syncTree(dir: string): Promise<void> {
  const files: string[] = [];
  const dirs: string[] = [dir];
  for (let i = 0; i < dirs.length; i++) {
    for await (const e of Deno.readDir(dirs[i])) {
      const path = join(dirs[i], e.name);
      if (e.isDirectory) dirs.push(path);
      else if (e.isFile) files.push(path);
    }
  }
  const syncAll = async (paths: string[]) => {
    let next = 0;
    const worker = async () => {
      while (next < paths.length) {
        const path = paths[next++];
        if (Deno.build.os === "windows" && (await Deno.stat(path)).isDirectory) continue;
        const f = await Deno.open(path, { read: true });
        try {
          await f.sync();
        } finally {
          f.close();
        }
      }
    };
    await Promise.all(Array.from({ length: SYNC_CONCURRENCY }, worker));
  };
  await syncAll(files);
  await syncAll(dirs.reverse()); // children before their directory
}

/**
 * The child's side: create a new database in `dir` (which must not exist), close it, make it
 * owner-only, sync every file to disk and write {@link COMPLETE_MARKER} last, unless
 * `stillWanted()` says otherwise by then (the process that asked for it is gone).
 * It holds {@link creatorLock} of `dir` until the process ends.
 */
export async function createClusterFiles(
  dir: string,
  stillWanted: () => boolean = () => true,
): Promise<void> {
  const lock = await Deno.open(creatorLock(dir), { write: true, create: true, mode: 0o600 });
  await lock.lock(true); // released when this process ends (not closed on purpose)
  await Deno.mkdir(dir, { mode: 0o700 });
  const { PGlite } = await loadPglite();
  const pg = await PGlite.create({ dataDir: dir, startParams: await startParams(dir, false) });
  try {
    await dropTemplateDatabases(pg); // 14 MiB that nothing uses
  } finally {
    await pg.close();
  }
  await restrictToOwner(dir);
  await syncTree(dir);
  if (!stillWanted()) throw new Error("the process that asked for the database is gone");
  const marker = join(dir, COMPLETE_MARKER);
  await Deno.writeTextFile(marker, "complete\n", { mode: 0o600, createNew: true });
  syncPath(marker);
  syncPath(dir);
}

/**
 * The daemon's side: make `dataDir` a database when it is not one yet (no `PG_VERSION`),
 * with `runCreator(staging)` building it in {@link stagingDir} (a child process running
 * {@link createClusterFiles}), then moving the files into place, `PG_VERSION` last. A complete
 * staging directory left by a killed start is moved into place without running the creator
 * again; an incomplete one is removed first. Entries of `dataDir` that the move replaces are
 * leftovers of a database never made whole (there is no `PG_VERSION`); others (the owner
 * lock) stay. Returns true when a database was created.
 */
export async function createDatabaseFiles(
  dataDir: string,
  runCreator: (staging: string) => Promise<void>,
): Promise<boolean> {
  const staging = stagingDir(dataDir);
  if (await exists(join(dataDir, "PG_VERSION"))) {
    await removeTree(staging); // a finished move's leftover
    await removeTree(creatorLock(staging));
    return false;
  }
  // An orphaned creator of a killed start may still be writing there.
  if (await exists(staging) || await exists(creatorLock(staging))) await waitForCreator(staging);
  if (!(await exists(join(staging, COMPLETE_MARKER)))) {
    await removeTree(staging);
    try {
      await runCreator(staging);
    } catch (err) {
      await removeTree(staging).catch(() => {}); // its space, at once (a full disk)
      throw await openFailure(dataDir, err);
    }
    if (!(await exists(join(staging, COMPLETE_MARKER)))) {
      throw new Error(`creating the database in ${staging} did not finish`);
    }
  }
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  for await (const e of Deno.readDir(staging)) {
    if (e.name === "PG_VERSION" || e.name === COMPLETE_MARKER) continue;
    const to = join(dataDir, e.name);
    await removeTree(to);
    await Deno.rename(join(staging, e.name), to);
  }
  syncPath(dataDir);
  await Deno.rename(join(staging, "PG_VERSION"), join(dataDir, "PG_VERSION"));
  syncPath(dataDir);
  await removeTree(staging);
  await removeTree(creatorLock(staging));
  return true;
}
