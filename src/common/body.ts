/**
 * Reading a whole HTTP body, request or response, the one way the project does it: into one
 * buffer that grows (doubling) up to a size limit, counting the bytes as they arrive, within
 * a deadline, whatever the chunking. A body sent as millions of one-byte chunks costs what its
 * bytes cost: no chunk is kept (the runtime hands each chunk as a small view over a 64 KiB
 * read buffer, so keeping the views keeps 64 KiB per byte).
 *
 * Also here: the request targets both servers refuse (dot segments, empty segments), and the
 * errors of a connection the client closed.
 * @module
 */

/** A body over its size limit (413 for a request). */
export class BodyTooLarge extends Error {
  /** `limit`: the largest body allowed (bytes). */
  constructor(readonly limit: number) {
    super(`body exceeds ${limit} bytes`);
    this.name = "BodyTooLarge";
  }
}

/** A body that did not arrive in full within its deadline (408 for a request). */
export class BodyTimeout extends Error {
  /** `ms`: the deadline that passed. */
  constructor(readonly ms: number) {
    super(`the body did not arrive within ${ms / 1000} s`);
    this.name = "BodyTimeout";
  }
}

/** Options of {@link readBody}. */
export interface ReadBodyOptions {
  /** Largest body (bytes): more is {@link BodyTooLarge}, or the end of the text with `truncate`. */
  limit: number;
  /** The whole body must arrive within this long (ms), else {@link BodyTimeout}. */
  timeoutMs?: number;
  /** Keep the first `limit` bytes and drop the rest, instead of throwing {@link BodyTooLarge}. */
  truncate?: boolean;
  /**
   * The declared `Content-Length`, if any: over `limit` it is refused before a byte is read
   * (unless `truncate`); otherwise it sizes the first buffer (at most 64 KiB, so that a
   * header alone never makes the reader allocate).
   */
  declaredLength?: string | null;
}

/** First buffer size when the length is not declared. */
const FIRST_BUFFER = 16 * 1024;
/** The scratch buffer of byte-stream reads. */
const SCRATCH = 64 * 1024;
/** Largest first buffer, whatever the declared length. */
const MAX_FIRST_BUFFER = 64 * 1024;

/**
 * The whole body: at most `limit` bytes (else {@link BodyTooLarge}, the stream cancelled),
 * arrived within `timeoutMs` (else {@link BodyTimeout}, the stream cancelled). Stream errors
 * (a client gone, a malformed body) are thrown as they are. An absent body is empty.
 */
export async function readBody(
  body: ReadableStream<Uint8Array> | null,
  opts: ReadBodyOptions,
): Promise<Uint8Array> {
  const { limit } = opts;
  const declared = opts.declaredLength == null ? NaN : Number(opts.declaredLength);
  if (declared > limit && !opts.truncate) {
    await body?.cancel().catch(() => {});
    throw new BodyTooLarge(limit);
  }
  if (body === null) return new Uint8Array(0);
  const first = Number.isFinite(declared) && declared >= 0
    ? Math.min(declared, MAX_FIRST_BUFFER)
    : FIRST_BUFFER;
  const sink = new Sink(Math.max(1, Math.min(first, limit)), limit, opts.truncate === true);
  let reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>;
  try {
    // A byte stream (the runtime's request and response bodies) reads into one scratch
    // buffer, given back after each read: no allocation per chunk (the default reader gives
    // each chunk its own 64 KiB buffer). Its source must answer a read pending at its end
    // (`byobRequest.respond(0)` after `close()`, as the streams spec asks and the runtime does).
    reader = body.getReader({ mode: "byob" });
  } catch {
    reader = body.getReader();
  }
  let scratch = new Uint8Array(SCRATCH);
  let late = false;
  // The timer ends a body that stalls; a body that keeps arriving is checked against the clock
  // at each read, since a flood of small reads can hold timers back for a long time.
  const deadline = opts.timeoutMs === undefined ? Infinity : performance.now() + opts.timeoutMs;
  const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => {
    late = true;
    reader.cancel(new BodyTimeout(opts.timeoutMs!)).catch(() => {});
  }, opts.timeoutMs);
  try {
    while (true) {
      let r: ReadableStreamReadResult<Uint8Array>;
      if (reader instanceof ReadableStreamBYOBReader) {
        r = await reader.read(scratch);
        if (r.value !== undefined) {
          sink.append(r.value);
          scratch = new Uint8Array(r.value.buffer as ArrayBuffer);
        }
      } else {
        r = await reader.read();
        if (!r.done) sink.append(r.value);
      }
      if (late) throw new BodyTimeout(opts.timeoutMs!);
      if (r.done) break;
      if (performance.now() > deadline) {
        reader.cancel().catch(() => {});
        throw new BodyTimeout(opts.timeoutMs!);
      }
      if (sink.overflow) {
        reader.cancel().catch(() => {});
        if (!opts.truncate) throw new BodyTooLarge(limit);
        break;
      }
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  return sink.bytes();
}

/** One buffer that doubles up to `limit`, counting bytes; past the limit it sets `overflow`. */
class Sink {
  #buf: Uint8Array;
  #size = 0;
  /** More than `limit` bytes arrived. */
  overflow = false;

  constructor(first: number, private readonly limit: number, private readonly truncate: boolean) {
    this.#buf = new Uint8Array(first);
  }

  #grow(need: number): void {
    if (need <= this.#buf.byteLength) return;
    let cap = this.#buf.byteLength * 2;
    while (cap < need) cap *= 2;
    const grown = new Uint8Array(Math.min(cap, this.limit));
    grown.set(this.#buf.subarray(0, this.#size));
    this.#buf = grown;
  }

  /** A chunk from a default reader, copied in. */
  append(chunk: Uint8Array): void {
    let n = chunk.byteLength;
    if (this.#size + n > this.limit) {
      this.overflow = true;
      if (!this.truncate) return;
      n = this.limit - this.#size;
    }
    this.#grow(this.#size + n);
    this.#buf.set(n === chunk.byteLength ? chunk : chunk.subarray(0, n), this.#size);
    this.#size += n;
  }

  /** The bytes kept. */
  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.#size);
  }
}

/** Options of {@link readText}. */
export type ReadTextOptions = Omit<ReadBodyOptions, "declaredLength">;

/**
 * A response's body as text (UTF-8, bad bytes replaced), read by {@link readBody} with the
 * response's declared length.
 */
export async function readText(res: Response, opts: ReadTextOptions): Promise<string> {
  const bytes = await readBody(res.body, {
    ...opts,
    declaredLength: res.headers.get("content-length"),
  });
  return new TextDecoder().decode(bytes);
}

/** A response's body parsed as JSON, read by {@link readText} (throws `SyntaxError` on bad JSON). */
export async function readJson(res: Response, opts: ReadTextOptions): Promise<unknown> {
  return JSON.parse(await readText(res, opts));
}

/**
 * Why a request target is refused, or null when it is fine. Refused: a path with a dot
 * segment (`/static/../healthz`, `/./x`, also `%2e`-escaped) or an empty segment (`//x`, which
 * is also how an absolute-form target of another scheme, `file:///etc/passwd`, reaches the
 * handler). The runtime's server accepts these and hands them on as they are; a router that
 * normalises them would answer another path than a proxy in front checked.
 */
export function targetProblem(url: string): string | null {
  // The path as sent: from the first "/" after the authority up to the query.
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return null;
  let end = url.length;
  for (const c of ["?", "#"]) {
    const i = url.indexOf(c, start);
    if (i >= 0 && i < end) end = i;
  }
  const segments = url.slice(start + 1, end).split("/");
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i].toLowerCase().replaceAll("%2e", ".");
    if (s === "." || s === "..") return "has a dot segment (. or ..)";
    if (s === "" && i < segments.length - 1) return "has an empty segment (//)";
  }
  return null;
}

/**
 * Errors of reading a request body from a connection the client closed, or whose body the
 * runtime's server found malformed (Deno 2.9 throws a plain `Error` "invalid HTTP/1 request:
 * …" for a bad chunk that arrives after the headers).
 */
export function isDisconnect(err: unknown): boolean {
  return err instanceof Deno.errors.BadResource || err instanceof Deno.errors.ConnectionReset ||
    err instanceof Deno.errors.ConnectionAborted || err instanceof Deno.errors.BrokenPipe ||
    err instanceof Deno.errors.UnexpectedEof || err instanceof Deno.errors.Interrupted ||
    err instanceof Deno.errors.Http ||
    (err instanceof Error && /^invalid HTTP\/1 request\b/.test(err.message));
}
