/**
 * The one error type of the memory service. It carries the HTTP status the Admin API
 * answers with and, for validation errors, the field at fault.
 * @module
 */

/** HTTP statuses a {@link MemoryError} can carry. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 500 | 503;

/** An error with an HTTP status and an optional field name. */
export class MemoryError extends Error {
  /** HTTP status for the Admin API. */
  readonly status: ErrorStatus;
  /** The input field at fault, when there is one. */
  readonly field?: string;
  /** The decoded response body, when the error came from the Admin API. */
  body?: unknown;

  /** Create an error; `message` is shown to users as it is. */
  constructor(status: ErrorStatus, message: string, options?: { field?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MemoryError";
    this.status = status;
    this.field = options?.field;
  }
}

/** A 400 naming the field. */
export function badRequest(field: string, message: string): MemoryError {
  return new MemoryError(400, `${field}: ${message}`, { field });
}

/** A 404 for a memory id. */
export function notFound(id: string): MemoryError {
  return new MemoryError(404, `memory ${id} not found`, { field: "id" });
}

/** Describe any thrown value with its cause chain, for CLIs and logs. */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur !== undefined && cur !== null && depth < 5; depth++) {
    const msg = cur instanceof Error ? cur.message : String(cur);
    if (!parts.includes(msg)) parts.push(msg);
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return parts.join(": ");
}
