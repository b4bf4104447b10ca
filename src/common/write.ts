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
