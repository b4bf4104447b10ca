/**
 * The credentials file: `{refreshToken, accessToken, expiresAt}` (expiresAt in epoch ms),
 * mode 0600, written atomically, and every access under an advisory `Deno.FsFile#lock`.
 *
 * Lock file: the lock is taken on a sibling file `<credentials path>.lock` (for example
 * `credentials.json.lock`), not on the credentials file itself, because writes replace the
 * credentials file by rename (a lock on the old inode would not protect the new one).
 * Readers take a shared lock, refreshers an exclusive one.
 *
 * Refresh protocol (DESIGN.md): take the exclusive lock; re-read the file; if another process
 * already rotated the token, adopt it; else check the file is writable (before any OAuth
 * call, so the single-use refresh token is not consumed), refresh, write atomically
 * (temp file in the same directory, 0600, rename), release. On `invalid_grant` re-read once
 * and adopt a changed token before reporting failure. Never write after a failed refresh.
 *
 * Crash recovery: a process killed between writing the temp file and the rename leaves the
 * only live refresh token in `.<name>.<uuid>.tmp`. The next process that takes the exclusive
 * lock adopts the newest complete temp file whose token expires later than the file's, and
 * removes the other leftovers, so a killed refresh loses nothing once its write finished.
 *
 * @module
 */

import type { TokenResponse } from "./oauth.ts";
import { OAuthError } from "./oauth.ts";
import { writeFileAtomic } from "../common/write.ts";

/** Contents of the credentials file. */
export interface Credentials {
  refreshToken: string;
  accessToken: string;
  /** Expiry of the access token, epoch milliseconds. */
  expiresAt: number;
}

/** Why credentials could not be used; `path` names the file. */
export class CredentialsError extends Error {
  readonly path: string;
  readonly code:
    | "missing"
    | "unreadable"
    | "insecure"
    | "invalid"
    | "not_writable"
    | "refresh_failed";
  constructor(
    code: CredentialsError["code"],
    path: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "CredentialsError";
    this.code = code;
    this.path = path;
  }
}

/** Options of {@link CredentialStore.ensureFresh}. */
export interface EnsureFreshOptions {
  /** Refresh when the access token expires within this many milliseconds. */
  marginMs: number;
  /** Clock, epoch ms (injectable for tests). */
  now?: () => number;
  /** Performs the OAuth refresh (normally `refreshAccessToken(cfg, fetch, rt)`). */
  refresh: (refreshToken: string) => Promise<TokenResponse>;
  /** Refresh even when the token is not near expiry (unless another process just rotated it). */
  force?: boolean;
  /**
   * The access token the upstream just rejected (a 401). With `force`, a file that holds a
   * different access token under the lock is adopted instead of refreshing again: another
   * process already rotated it.
   */
  rejectedAccessToken?: string;
}

/** Result of {@link CredentialStore.ensureFresh}. */
export interface EnsureFreshResult {
  credentials: Credentials;
  /** True only when this call performed an OAuth refresh and wrote the file. */
  refreshed: boolean;
}

function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (i < 0) return ".";
  if (i === 0) return path[0];
  return path.slice(0, i);
}

function basename(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return path.slice(i + 1);
}

/** Validates parsed JSON as {@link Credentials}; `expiresAt` may be epoch ms or an ISO string. */
export function parseCredentials(text: string, path: string): Credentials {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new CredentialsError("invalid", path, `credentials file ${path} is not valid JSON`, {
      cause: e,
    });
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new CredentialsError("invalid", path, `credentials file ${path} must hold a JSON object`);
  }
  const o = raw as Record<string, unknown>;
  for (const field of ["refreshToken", "accessToken"] as const) {
    if (typeof o[field] !== "string" || o[field] === "") {
      throw new CredentialsError(
        "invalid",
        path,
        `credentials file ${path}: field "${field}" must be a non-empty string (run "msgcli login")`,
      );
    }
  }
  let expiresAt: number;
  if (typeof o.expiresAt === "number" && Number.isFinite(o.expiresAt)) {
    expiresAt = o.expiresAt;
  } else if (typeof o.expiresAt === "string" && !Number.isNaN(Date.parse(o.expiresAt))) {
    expiresAt = Date.parse(o.expiresAt);
  } else {
    throw new CredentialsError(
      "invalid",
      path,
      `credentials file ${path}: field "expiresAt" must be a timestamp (epoch ms)`,
    );
  }
  return {
    refreshToken: o.refreshToken as string,
    accessToken: o.accessToken as string,
    expiresAt,
  };
}

/** Bytes the writability probe writes: more than a credentials file ever takes. */
const PROBE_BYTES = 4096;

/** fsync a directory so that a rename in it survives a power loss (best effort; not on Windows). */
async function syncDir(dir: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  try {
    const d = await Deno.open(dir, { read: true });
    try {
      await d.sync();
    } finally {
      d.close();
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic.
  }
}

/** Reads and writes one credentials file under the advisory lock. */
export class CredentialStore {
  /** Path of the credentials file. */
  readonly path: string;
  /** Path of the sibling lock file. */
  readonly lockPath: string;

  constructor(path: string) {
    this.path = path;
    this.lockPath = `${path}.lock`;
  }

  /** Opens (creating when possible) the lock file and takes the lock. */
  async #lock(exclusive: boolean): Promise<Deno.FsFile> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.lockPath, { read: true, write: true, create: true, mode: 0o600 });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound && exclusive) {
        // Directory missing: create it (0700) for a first write.
        await Deno.mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
        file = await Deno.open(this.lockPath, {
          read: true,
          write: true,
          create: true,
          mode: 0o600,
        });
      } else if (e instanceof Deno.errors.NotFound) {
        throw new CredentialsError(
          "missing",
          this.path,
          `no credentials at ${this.path}; run "msgcli login" first`,
        );
      } else if (e instanceof Deno.errors.PermissionDenied) {
        // Read-only directory or missing lock file that cannot be created: an existing lock
        // file can still be locked read-only (flock does not need write access).
        try {
          file = await Deno.open(this.lockPath, { read: true });
        } catch {
          throw new CredentialsError(
            "unreadable",
            this.path,
            `cannot open lock file ${this.lockPath}: ${(e as Error).message}`,
            { cause: e },
          );
        }
      } else {
        throw e;
      }
    }
    try {
      await file.lock(exclusive);
    } catch (e) {
      file.close();
      throw e;
    }
    return file;
  }

  async #withLock<T>(exclusive: boolean, fn: () => Promise<T>): Promise<T> {
    const lock = await this.#lock(exclusive);
    try {
      return await fn();
    } finally {
      try {
        await lock.unlock();
      } finally {
        lock.close();
      }
    }
  }

  /** Reads without taking the lock; callers hold it. */
  async #readUnlocked(): Promise<Credentials> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.path, { read: true });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        throw new CredentialsError(
          "missing",
          this.path,
          `no credentials at ${this.path}; run "msgcli login" first`,
        );
      }
      throw new CredentialsError(
        "unreadable",
        this.path,
        `cannot read credentials file ${this.path}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    try {
      const info = await file.stat();
      if (info.mode !== null && (info.mode & 0o077) !== 0) {
        throw new CredentialsError(
          "insecure",
          this.path,
          `credentials file ${this.path} is accessible by group or others (mode ${
            (info.mode & 0o777).toString(8).padStart(4, "0")
          }); refusing to use it. Fix with: chmod 600 ${this.path}`,
        );
      }
      const bytes = new Uint8Array(info.size);
      let off = 0;
      while (off < bytes.length) {
        const n = await file.read(bytes.subarray(off));
        if (n === null) break;
        off += n;
      }
      return parseCredentials(new TextDecoder().decode(bytes.subarray(0, off)), this.path);
    } finally {
      file.close();
    }
  }

  /** Writes atomically: temp file in the same directory (0600), fsync, rename. */
  async #writeUnlocked(c: Credentials): Promise<void> {
    const dir = dirname(this.path);
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = `${dir}/.${basename(this.path)}.${crypto.randomUUID()}.tmp`;
    const text = JSON.stringify(
      { refreshToken: c.refreshToken, accessToken: c.accessToken, expiresAt: c.expiresAt },
      null,
      2,
    ) + "\n";
    await writeFileAtomic(this.path, tmp, text, 0o600);
    await syncDir(dir);
  }

  /**
   * Under the exclusive lock: recovers from a write that was killed between the temp file
   * and the rename. Every leftover `.<name>.<uuid>.tmp` (and `.probe`) next to the file is
   * looked at; a complete, owner-only temp file whose access token expires later than the
   * file's (a newer rotation: its refresh token is the live one) is adopted by renaming it
   * over the file; the rest are removed. Returns true when a temp file was adopted.
   */
  async #recoverTempsUnlocked(): Promise<boolean> {
    const dir = dirname(this.path);
    const leftovers = await this.#leftovers();
    if (leftovers.length === 0) return false;
    let current: Credentials | null = null;
    try {
      current = await this.#readUnlocked();
    } catch {
      current = null;
    }
    let best: { path: string; creds: Credentials } | null = null;
    for (const path of leftovers) {
      if (!path.endsWith(".tmp")) continue;
      try {
        const info = await Deno.stat(path);
        if (info.mode !== null && (info.mode & 0o077) !== 0) continue;
        const c = parseCredentials(await Deno.readTextFile(path), path);
        if (current !== null && c.refreshToken === current.refreshToken) continue;
        if (current !== null && c.expiresAt <= current.expiresAt) continue;
        if (best === null || c.expiresAt > best.creds.expiresAt) best = { path, creds: c };
      } catch {
        // incomplete or unreadable: a write that did not finish; removed below
      }
    }
    let adopted = false;
    if (best !== null) {
      try {
        await Deno.rename(best.path, this.path);
        await syncDir(dir);
        adopted = true;
      } catch {
        // leave the file as it is; the temp is removed below
      }
    }
    for (const path of leftovers) {
      if (adopted && path === best?.path) continue;
      await Deno.remove(path).catch(() => {});
    }
    return adopted;
  }

  /**
   * Logout: under the exclusive lock, removes the credentials file and every leftover temp
   * file of an interrupted write or probe (`.<name>.<uuid>.tmp`, `.probe`: a leftover temp
   * may hold a live token). The lock file stays (removing a lock file others may be waiting
   * on would let two processes hold "the" lock). Creates nothing when the directory does not
   * exist. Returns whether a credentials file was removed.
   */
  async remove(): Promise<boolean> {
    try {
      await Deno.stat(dirname(this.path));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return false;
      throw e;
    }
    return await this.#withLock(true, async () => {
      for (const path of await this.#leftovers()) await Deno.remove(path).catch(() => {});
      try {
        await Deno.remove(this.path);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return false;
        throw e;
      }
      await syncDir(dirname(this.path));
      return true;
    });
  }

  /** Leftover temp and probe files next to the credentials file. */
  async #leftovers(): Promise<string[]> {
    const dir = dirname(this.path);
    const prefix = `.${basename(this.path)}.`;
    const leftovers: string[] = [];
    try {
      for await (const e of Deno.readDir(dir)) {
        if (!e.isFile || !e.name.startsWith(prefix)) continue;
        if (e.name.endsWith(".tmp") || e.name.endsWith(".probe")) {
          leftovers.push(`${dir}/${e.name}`);
        }
      }
    } catch {
      return [];
    }
    return leftovers;
  }

  /** Reads the credentials under a shared lock. Refuses a file accessible by group/others. */
  read(): Promise<Credentials> {
    return this.#withLock(false, () => this.#readUnlocked());
  }

  /** Writes the credentials atomically (mode 0600) under the exclusive lock. */
  write(c: Credentials): Promise<void> {
    return this.#withLock(true, () => this.#writeUnlocked(c));
  }

  /**
   * Whether a refresh may write the file: the file must exist with its owner-write bit set
   * (a user who made it read-only, e.g. `chmod 400`, is respected even when running as root),
   * it must open for writing, and the directory must accept a new file (atomic rename).
   */
  async isWritable(): Promise<boolean> {
    try {
      const info = await Deno.stat(this.path);
      if (info.mode !== null && (info.mode & 0o200) === 0) return false;
      const f = await Deno.open(this.path, { write: true });
      f.close();
      const probe = `${dirname(this.path)}/.${basename(this.path)}.${crypto.randomUUID()}.probe`;
      // Write and sync as many bytes as a credentials file takes, so that a full disk is
      // found before the single-use refresh token is spent, not after.
      const p = await Deno.open(probe, { write: true, createNew: true, mode: 0o600 });
      try {
        await p.write(new Uint8Array(PROBE_BYTES));
        await p.sync();
      } finally {
        p.close();
        await Deno.remove(probe).catch(() => {});
      }
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Returns credentials whose access token is valid for more than `marginMs`, refreshing
   * under the exclusive lock when needed (see the module doc for the protocol).
   * Throws {@link CredentialsError} (`not_writable` before any OAuth call) or the refresh's
   * error (an `OAuthError`) wrapped in a `refresh_failed` CredentialsError.
   */
  async ensureFresh(opts: EnsureFreshOptions): Promise<EnsureFreshResult> {
    const now = opts.now ?? Date.now;
    const first = await this.read();
    if (!opts.force && first.expiresAt - now() > opts.marginMs) {
      return { credentials: first, refreshed: false };
    }
    return await this.#withLock(true, async () => {
      await this.#recoverTempsUnlocked();
      const current = await this.#readUnlocked();
      const rotatedByOther = current.refreshToken !== first.refreshToken ||
        current.accessToken !== first.accessToken;
      if (rotatedByOther && current.expiresAt - now() > opts.marginMs) {
        return { credentials: current, refreshed: false };
      }
      if (
        opts.rejectedAccessToken !== undefined && current.accessToken !== opts.rejectedAccessToken
      ) {
        return { credentials: current, refreshed: false };
      }
      if (!opts.force && current.expiresAt - now() > opts.marginMs) {
        return { credentials: current, refreshed: false };
      }
      if (!(await this.isWritable())) {
        throw new CredentialsError(
          "not_writable",
          this.path,
          `credentials file ${this.path} is not writable; refusing to refresh the token ` +
            `(the single-use refresh token would be lost). Make it writable (chmod 600) ` +
            `or let "msgcli serve" own it.`,
        );
      }
      let token: TokenResponse;
      try {
        token = await opts.refresh(current.refreshToken);
      } catch (e) {
        if (e instanceof OAuthError && e.code === "invalid_grant") {
          // Another process (outside this lock, e.g. an older client) may have rotated it.
          let again: Credentials | undefined;
          try {
            again = await this.#readUnlocked();
          } catch {
            again = undefined;
          }
          if (again && again.refreshToken !== current.refreshToken) {
            return { credentials: again, refreshed: false };
          }
          throw new CredentialsError(
            "refresh_failed",
            this.path,
            `token refresh was rejected (invalid_grant): the refresh token is no longer valid; ` +
              `run "msgcli login"`,
            { cause: e },
          );
        }
        throw new CredentialsError(
          "refresh_failed",
          this.path,
          `token refresh failed: ${(e as Error).message}`,
          { cause: e },
        );
      }
      const next: Credentials = {
        accessToken: token.accessToken,
        refreshToken: token.refreshToken ?? current.refreshToken,
        expiresAt: now() + token.expiresIn * 1000,
      };
      await this.#writeUnlocked(next);
      return { credentials: next, refreshed: true };
    });
  }
}
