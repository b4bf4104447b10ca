/**
 * Writing text to a stream in full (`Deno.stdout`, `Deno.stderr`, a file): a write may take
 * only part of the bytes, so both helpers loop until all are written.
 * @module
 */

const encoder = new TextEncoder();

/** Writes all of `text` synchronously (its order with other output and `Deno.exit` is kept). */
export function writeAllSync(w: { writeSync(p: Uint8Array): number }, text: string): void {
  let buf = encoder.encode(text);
  while (buf.length > 0) buf = buf.subarray(w.writeSync(buf));
}

/** Writes all of `text`; resolves once every byte is written. */
export async function writeAll(
  w: { write(p: Uint8Array): Promise<number> },
  text: string,
): Promise<void> {
  let buf = encoder.encode(text);
  while (buf.length > 0) buf = buf.subarray(await w.write(buf));
}

/**
 * Replaces the file at `path` with `text` atomically: writes a new file at `tmp` (created
 * with `mode`, refused if it exists), fsyncs it, sets `mode` (the umask may have narrowed it)
 * and renames it over `path`. On any failure the temp file is removed and the error thrown;
 * `path` is then untouched.
 */
export async function writeFileAtomic(
  path: string,
  tmp: string,
  text: string,
  mode: number,
): Promise<void> {
  try {
    const f = await Deno.open(tmp, { write: true, createNew: true, mode });
    try {
      await writeAll(f, text);
      await f.sync();
    } finally {
      f.close();
    }
    if (Deno.build.os !== "windows") await Deno.chmod(tmp, mode);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
}
