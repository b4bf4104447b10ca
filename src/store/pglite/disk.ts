/**
 * The disk guard of the embedded database: a full disk must never block the process (PGlite
 * spins once a WAL write failed for want of space), so writes are refused with a 507 below a
 * reserve, and an instance that hit ENOSPC is dropped and opened again once space is freed.
 * Also the owner-only modes of the database's files.
 * @module
 */
import type { PGlite } from "@electric-sql/pglite";
import { join } from "node:path";
import { MemoryError } from "../../domain/errors.ts";
import { errorMessage } from "../../common/errors.ts";

/**
 * Make `dir` and everything below it owner-only: directories 0700, files without group and
 * other bits (0666 becomes 0600). PGlite writes the files of a new database with mode 0666,
 * and installs made before this pass have them so; symbolic links, and the subtree `skip`
 * (already done), are left alone. No-op on Windows (no POSIX modes).
 */
export async function restrictToOwner(dir: string, skip?: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  const walk = async (path: string, info: Deno.FileInfo): Promise<void> => {
    if (info.isSymlink || path === skip) return;
    const mode = (info.mode ?? 0) & 0o777;
    const want = info.isDirectory ? 0o700 : mode & 0o700;
    if (mode !== want) await Deno.chmod(path, want);
    if (!info.isDirectory) return;
    for await (const e of Deno.readDir(path)) {
      const child = join(path, e.name);
      let st: Deno.FileInfo;
      try {
        st = await Deno.lstat(child);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) continue; // removed meanwhile
        throw err;
      }
      await walk(child, st);
    }
  };
  await walk(dir, await Deno.lstat(dir));
}

/** Free space kept in reserve on the database's file system: writes stop below it (64 MiB). */
export const DISK_RESERVE_BYTES = 64 * 1024 * 1024;

/** Free space above the reserve past which a free-space reading is reused (256 MiB). */
export const FREE_SPACE_HEADROOM = 256 * 1024 * 1024;

/** How long such a reading is reused before the next write asks again (1 s). */
export const FREE_SPACE_TTL_MS = 1000;

/** On a small volume the reserve is this fraction of its size instead (when smaller). */
export const DISK_RESERVE_FRACTION = 0.05;

/**
 * The free-space reserve for a volume of `volumeBytes`: the smaller of
 * {@link DISK_RESERVE_BYTES} and {@link DISK_RESERVE_FRACTION} of the volume (64 MiB when the
 * size is unknown), so that a small volume is not refused from the start.
 */
export function diskReserve(volumeBytes: number | null): number {
  if (volumeBytes === null || !(volumeBytes > 0)) return DISK_RESERVE_BYTES;
  return Math.min(DISK_RESERVE_BYTES, Math.floor(volumeBytes * DISK_RESERVE_FRACTION));
}

/** How often a database closed by a full disk is tried again, at most (ms). */
const REOPEN_INTERVAL_MS = 1000;

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /**
   * Free bytes a write needs on the file system of `dataDir` (default {@link diskReserve} of
   * its size; 0 turns the check off). Checked only when the process may
   * call statfs (`--allow-sys=statfs`).
   */
  reserveBytes?: number;
  /** Free bytes on the file system of `dataDir` (tests inject it); default: statfs. */
  freeBytes?: (dir: string) => Promise<number | null>;
  /**
   * Durable commits (default true): `fsync` on, so that an acknowledged write survives an
   * OS crash or a power loss. False runs as PGlite does by default (fsync off: a process
   * crash loses nothing, an OS crash may lose recent writes or corrupt the database).
   */
  durable?: boolean;
  /**
   * Opens the PGlite instance (default: PGlite with pgvector); tests wrap it to inject a
   * failing write at this seam.
   */
  create?: (dataDir: string, durable: boolean) => Promise<PGlite>;
}

/**
 * The 507 of a full disk. `paused`: PGlite itself ran out of space, so the database answers
 * nothing until space is freed; otherwise only writes are refused (the free-space check).
 */
export function diskFullError(dir: string, detail: string, paused = false): MemoryError {
  return new MemoryError(
    507,
    paused
      ? `the disk is full (${detail}): the database in ${dir} is paused and resumes by itself ` +
        "once space is freed"
      : `the disk is full: the database in ${dir} takes no writes (${detail}); reads go on, ` +
        "and writes resume by themselves once space is freed",
  );
}

/** True for the errors of a file system without space (Postgres and Deno wordings). */
export function isNoSpace(err: unknown): boolean {
  const text = err instanceof Error ? `${err.name} ${err.message}` : String(err);
  return /no space left on device|ENOSPC|disk quota exceeded|EDQUOT/i.test(text);
}

/** A statement that writes nothing (reads go on while the disk is full). */
export function isRead(text: string): boolean {
  const t = text.trimStart().slice(0, 4000);
  if (/^(select|show|explain)\b/i.test(t)) return !/\bfor\s+(update|share)\b/i.test(t);
  return /^with\b/i.test(t) && !/\b(insert\s+into|update\s+\S+\s+set|delete\s+from)\b/i.test(t);
}

let statfsAllowed: boolean | undefined;

/**
 * Free bytes for unprivileged users (`free`) and size (`size`) of the file system of `dir`;
 * null when unknown.
 */
export async function statfsOf(dir: string, what: "free" | "size"): Promise<number | null> {
  statfsAllowed ??= Deno.permissions.querySync({ name: "sys", kind: "statfs" }).state ===
    "granted";
  if (!statfsAllowed) return null;
  try {
    const { statfs } = await import("node:fs/promises");
    const st = await statfs(dir);
    return Number(what === "free" ? st.bavail : st.blocks) * Number(st.bsize);
  } catch {
    return null;
  }
}

export const statfsFree = (dir: string) => statfsOf(dir, "free");

/**
 * An embedded database that survives a full disk. PGlite, once a WAL write failed for want of
 * space, spins at 100 % CPU in its next statement and blocks the process for good; so:
 *
 * - every statement goes through one queue, so that PGlite never holds a second one;
 * - a write first checks the free space (when statfs is allowed) and is refused with a 507
 *   below the reserve, before PGlite sees it: reads go on;
 * - when PGlite itself reports ENOSPC, that instance is dropped at once (never called
 *   again, never closed: closing writes a checkpoint) and every statement answers 507 until
 *   a fresh instance opens on the same files, tried at most once a second: that happens by
 *   itself once space is freed, with every acknowledged write there (WAL recovery).
 */
export class ResilientPglite {
  #pg: PGlite | null;
  #queue: Promise<unknown> = Promise.resolve();
  #full: string | null = null;
  #lastTry = 0;
  #closed = false;
  #spaceTrustedUntil = 0;

  constructor(
    pg: PGlite,
    readonly dir: string,
    readonly reserve: number,
    readonly freeBytes: (dir: string) => Promise<number | null>,
    readonly durable: boolean,
    readonly create: (dataDir: string, durable: boolean) => Promise<PGlite>,
  ) {
    this.#pg = pg;
  }

  /** The open instance (null while a full disk keeps it closed). */
  get pglite(): PGlite | null {
    return this.#pg;
  }

  /** Run `fn` alone on the instance; `write` statements check the free space first. */
  run<T>(write: boolean, fn: (pg: PGlite) => Promise<T>): Promise<T> {
    const step = this.#queue.then(() => this.#runNow(write, fn));
    this.#queue = step.catch(() => {});
    return step;
  }

  async #runNow<T>(write: boolean, fn: (pg: PGlite) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error("the database is closed");
    const pg = this.#pg ?? await this.#reopen();
    if (write) await this.#checkSpace();
    try {
      return await fn(pg);
    } catch (err) {
      if (isNoSpace(err)) {
        this.#pg = null; // abandoned: its next statement would spin
        this.#spaceTrustedUntil = 0;
        this.#full = errorMessage(err);
        this.#lastTry = Date.now();
        throw diskFullError(this.dir, this.#full, true);
      }
      throw err;
    }
  }

  /**
   * Refuse a write below the reserve. A reading of at least {@link FREE_SPACE_HEADROOM} above
   * the reserve is trusted for {@link FREE_SPACE_TTL_MS}: statfs took about 0.3 ms of every
   * write's 8 (two a create, measured at 2,000 memories), and this process cannot write that
   * headroom in that time; closer to the reserve every write asks again. A disk filled faster
   * by another process still ends in PGlite's own ENOSPC, handled below.
   */
  async #checkSpace(): Promise<void> {
    if (this.reserve <= 0 || Date.now() < this.#spaceTrustedUntil) return;
    const free = await this.freeBytes(this.dir);
    if (free !== null && free < this.reserve) {
      throw diskFullError(
        this.dir,
        `${Math.floor(free / 1048576)} MiB free, ${this.reserve / 1048576} MiB needed`,
      );
    }
    this.#spaceTrustedUntil = free !== null && free >= this.reserve + FREE_SPACE_HEADROOM
      ? Date.now() + FREE_SPACE_TTL_MS
      : 0;
  }

  async #reopen(): Promise<PGlite> {
    const why = this.#full ?? "no space left on device";
    if (Date.now() - this.#lastTry < REOPEN_INTERVAL_MS) throw diskFullError(this.dir, why, true);
    this.#lastTry = Date.now();
    try {
      const pg = await this.create(this.dir, this.durable);
      this.#pg = pg;
      this.#full = null;
      return pg;
    } catch (err) {
      throw diskFullError(this.dir, isNoSpace(err) ? errorMessage(err) : why, true);
    }
  }

  async close(): Promise<void> {
    await this.#queue;
    this.#closed = true;
    const pg = this.#pg;
    this.#pg = null;
    await pg?.close();
  }
}

/** True when a WAL segment's worth of bytes (16 MiB) cannot be written in `dir`. */
async function noRoomFor(dir: string): Promise<boolean> {
  const probe = join(dir, `.space-probe-${Deno.pid}`);
  try {
    const f = await Deno.open(probe, { write: true, createNew: true, mode: 0o600 });
    try {
      const chunk = new Uint8Array(1024 * 1024);
      for (let i = 0; i < 16; i++) await f.write(chunk);
    } finally {
      f.close();
    }
    return false;
  } catch (err) {
    return isNoSpace(err);
  } finally {
    await Deno.remove(probe).catch(() => {});
  }
}

/**
 * What to throw when the database in `dataDir` failed to open or be created with `err`: a
 * clear "the disk is full" error when that is why (PGlite reports a failed start as "failed
 * to initialize properly", or an object), else `err` itself. `reserve` defaults to
 * {@link diskReserve} of the volume.
 */
export async function openFailure(
  dataDir: string,
  err: unknown,
  reserve?: number,
  freeBytes: (dir: string) => Promise<number | null> = statfsFree,
): Promise<unknown> {
  const need = reserve ?? diskReserve(await statfsOf(dataDir, "size"));
  const free = await freeBytes(dataDir);
  if (isNoSpace(err) || (free !== null && free < need) || await noRoomFor(dataDir)) {
    return new Error(
      `the disk is full: the database in ${dataDir} cannot be opened or created (${
        free === null ? "no space left on device" : `${Math.floor(free / 1048576)} MiB free`
      }); free space on its file system and start again`,
      { cause: err },
    );
  }
  return err;
}
