/**
 * File system checks shared by the programs, the tasks and the tests.
 * @module
 */

/** Options of {@link exists} and {@link existsSync}. */
export interface ExistsOptions {
  /**
   * Follow a symbolic link (the default): a link to nothing is absent. With `false` the link
   * itself counts (`lstat`).
   */
  followSymlinks?: boolean;
}

/**
 * Whether something is at `path`. False when nothing is there, and also when it cannot be
 * looked at (no read permission granted, a parent that is not a directory): callers treat
 * both as "not there".
 */
export async function exists(path: string | URL, opts: ExistsOptions = {}): Promise<boolean> {
  try {
    await (opts.followSymlinks === false ? Deno.lstat(path) : Deno.stat(path));
    return true;
  } catch {
    return false;
  }
}

/** {@link exists}, synchronously. */
export function existsSync(path: string | URL, opts: ExistsOptions = {}): boolean {
  try {
    if (opts.followSymlinks === false) Deno.lstatSync(path);
    else Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The text of the file at `path`, or null when there is none (other errors are thrown). */
export async function readTextIfExists(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}
