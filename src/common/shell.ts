/**
 * Quoting words for a POSIX shell, for the commands the programs print.
 * @module
 */

/** Quote a word for a POSIX shell when it needs it, in single quotes: nothing expands. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Quote a word for a POSIX shell when it needs it, in double quotes: `$HOME` still expands. */
export function shellQuoteExpanding(s: string): string {
  return /^[\w@%+=:,./\[\]-]+$/.test(s) ? s : `"${s.replace(/(["\\`])/g, "\\$1")}"`;
}

/** A finished process: its exit code and its output, decoded. */
export interface ProcessOutput {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/**
 * Write `stdin` (when given) to a spawned child and close it, then wait for the child and
 * decode its output. A child that exits before reading its input closes the pipe: no error.
 */
export async function finishChild(
  child: Deno.ChildProcess,
  stdin?: string,
): Promise<ProcessOutput> {
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin)).catch(() => {});
    await w.close().catch(() => {});
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
