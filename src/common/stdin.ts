/**
 * Reading a byte stream (stdin) a line at a time or whole, from one shared buffer so both
 * ways can be mixed.
 * @module
 */

/** Lines and the rest of a stream. */
export interface LineReader {
  /** One line without its end (`\n` or `\r\n`); `null` at end of input. */
  readLine(): Promise<string | null>;
  /** All that is left, as text. */
  readAll(): Promise<string>;
  /** Give the stream back (a process can then exit while stdin stays open). */
  release(): void;
}

/** A {@link LineReader} over `open()`, which is called at the first read only. */
export function lineReader(open: () => ReadableStream<Uint8Array>): LineReader {
  const dec = new TextDecoder();
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let pending = "";
  let done = false;

  async function more(): Promise<boolean> {
    if (done) return false;
    reader ??= open().getReader();
    const r = await reader.read();
    if (r.done) {
      pending += dec.decode();
      done = true;
      return false;
    }
    pending += dec.decode(r.value, { stream: true });
    return true;
  }

  return {
    async readLine() {
      while (!pending.includes("\n") && await more()) { /* read more */ }
      if (pending === "" && done) return null;
      const i = pending.indexOf("\n");
      const line = i < 0 ? pending : pending.slice(0, i);
      pending = i < 0 ? "" : pending.slice(i + 1);
      return line.replace(/\r$/, "");
    },
    async readAll() {
      while (await more()) { /* read all */ }
      const all = pending;
      pending = "";
      return all;
    },
    release() {
      reader?.releaseLock();
    },
  };
}
