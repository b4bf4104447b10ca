/**
 * Errors both command-line tools share: the usage mistake, and the text of any thrown value.
 * @module
 */

/** A command-line mistake (unknown flag, missing argument, bad value): message, usage hint, exit 1. */
export class UsageError extends Error {
  /** Create the error; `command` selects the usage hint (empty for the top level). */
  constructor(message: string, readonly command: string = "") {
    super(message);
    this.name = "UsageError";
  }
}

/** A thrown non-Error as text: its `message`, else JSON; never "[object Object]". */
function plain(x: unknown): string {
  if (typeof x !== "object") return String(x);
  const message = (x as { message?: unknown }).message;
  if (typeof message === "string") return message;
  try {
    const json = JSON.stringify(x);
    return json === "{}" ? "" : json;
  } catch {
    return "";
  }
}

/** The message of one thrown value (no cause chain). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : plain(err);
}

/** Options of {@link describeError}. */
export interface DescribeOptions {
  /**
   * `"inline"` (default): the messages joined by `": "`. `"lines"`: one line each, causes
   * indented as `  caused by: ...`. In both, a cause already quoted by a message around it is
   * left out, so that no reason is told twice.
   */
  style?: "inline" | "lines";
  /** Text of one link of the chain; undefined falls back to its message. */
  describe?: (err: unknown) => string | undefined;
  /** Most links shown (default 5 inline, 6 as lines). */
  depth?: number;
}

/** Describe any thrown value with its cause chain, for CLIs and logs. */
export function describeError(err: unknown, opts: DescribeOptions = {}): string {
  const lines = opts.style === "lines";
  const depth = opts.depth ?? (lines ? 6 : 5);
  const parts: string[] = [];
  let cur: unknown = err;
  for (let i = 0; cur !== undefined && cur !== null && i < depth; i++) {
    const msg = opts.describe?.(cur) ?? errorMessage(cur);
    // A cause already quoted by the message around it is not repeated.
    if (msg && !parts.some((p) => p.includes(msg))) parts.push(msg);
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return lines
    ? parts.map((l, i) => (i === 0 ? l : `  caused by: ${l}`)).join("\n")
    : parts.join(": ");
}
