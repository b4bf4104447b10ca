/**
 * The one error type of the memory service. It carries the HTTP status the Admin API
 * answers with and, for validation errors, the field at fault.
 * @module
 */

/**
 * The statuses the memory service and the Admin API answer errors with: 400 invalid
 * input (naming the field), 401 missing or wrong API key, 403 foreign Host or Origin, 404
 * unknown memory or route, 405 wrong method, 409 maintenance (run `memcli reembed`), 413
 * body too large, 500 internal error, 503 database or embedder unavailable (and, from
 * {@link MemoryClient}, an Admin API that cannot be reached), 507 the disk of the embedded
 * database is full (reads go on; writes resume once space is freed).
 *
 * @example
 * ```ts
 * import type { ServiceErrorStatus } from "@mneme/mneme";
 * const notFound: ServiceErrorStatus = 404;
 * ```
 */
export type ServiceErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 500 | 503 | 507;

/**
 * Every HTTP client error (4xx) or server error (5xx) status registered with IANA, the one
 * list behind {@link HttpErrorStatus} and {@link isErrorStatus}.
 *
 * @example
 * ```ts
 * import { HTTP_ERROR_STATUSES } from "@mneme/mneme";
 * console.log(HTTP_ERROR_STATUSES.includes(502)); // true
 * ```
 */
export const HTTP_ERROR_STATUSES = [
  400,
  401,
  402,
  403,
  404,
  405,
  406,
  407,
  408,
  409,
  410,
  411,
  412,
  413,
  414,
  415,
  416,
  417,
  418,
  421,
  422,
  423,
  424,
  425,
  426,
  428,
  429,
  431,
  451,
  500,
  501,
  502,
  503,
  504,
  505,
  506,
  507,
  508,
  510,
  511,
] as const;

/**
 * Every HTTP client error (4xx) or server error (5xx) status registered with IANA.
 *
 * @example
 * ```ts
 * import type { HttpErrorStatus } from "@mneme/mneme";
 * const badGateway: HttpErrorStatus = 502;
 * ```
 */
export type HttpErrorStatus = typeof HTTP_ERROR_STATUSES[number];

/**
 * HTTP statuses a {@link MemoryError} can carry. The service itself only uses the
 * {@link ServiceErrorStatus} values; a {@link MemoryClient} reports what it was answered,
 * so an error from something in front of the Admin API (a reverse proxy's 502 or 504, a
 * gateway's 429) keeps its status. A status outside the registered 4xx/5xx range (say a
 * CDN's 520) becomes 502, with the status received in the message.
 *
 * @example
 * ```ts
 * import { type ErrorStatus, MemoryError } from "@mneme/mneme";
 * function retryable(status: ErrorStatus): boolean {
 *   return status === 429 || status === 502 || status === 503 || status === 504;
 * }
 * console.log(retryable(new MemoryError(503, "embedding failed").status)); // true
 * ```
 */
export type ErrorStatus = ServiceErrorStatus | HttpErrorStatus;

const ERROR_STATUS_SET: ReadonlySet<number> = new Set(HTTP_ERROR_STATUSES);

/** True when `status` is one of the {@link HttpErrorStatus} values. */
export function isErrorStatus(status: number): status is ErrorStatus {
  return ERROR_STATUS_SET.has(status);
}

/**
 * The error of every memory operation, in-process or over the Admin API: an HTTP
 * `status` and a `message` meant for users (validation messages start with the field,
 * e.g. `weight: must be between 0.1 and 1.0`). `field` names the input at fault when
 * there is one; `body` is the decoded answer when the error came from the Admin API.
 *
 * @example
 * ```ts
 * import { MemoryClient, MemoryError } from "@mneme/mneme";
 * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
 * try {
 *   await client.create({ content: "Deploys go through CI", weight: 2 });
 * } catch (err) {
 *   if (!(err instanceof MemoryError)) throw err;
 *   // 400 weight weight: must be between 0.1 and 1.0
 *   // (or 503 when the Admin API cannot be reached)
 *   console.error(err.status, err.field, err.message);
 * }
 * ```
 */
export class MemoryError extends Error {
  /**
   * HTTP status: the Admin API's answer, or the one the service would answer with.
   *
   * @example
   * ```ts
   * import { MemoryError } from "@mneme/mneme";
   * console.log(new MemoryError(404, "memory 1 not found").status); // 404
   * ```
   */
  readonly status: ErrorStatus;
  /**
   * The input field at fault, when there is one (`weight`, `tags[2]`, `[3].type` for the
   * fourth item of an import, `id` for an unknown memory).
   *
   * @example
   * ```ts
   * import { MemoryError } from "@mneme/mneme";
   * const err = new MemoryError(400, "limit: must be an integer", { field: "limit" });
   * console.log(err.field); // "limit"
   * ```
   */
  readonly field?: string;
  /**
   * The decoded response body, when the error came from the Admin API (`{ error, field? }`, or
   * whatever a proxy answered; `undefined` when it was not JSON).
   *
   * @example
   * ```ts
   * import { MemoryError } from "@mneme/mneme";
   * const err = new MemoryError(409, "maintenance: stored vectors differ");
   * err.body = { error: err.message };
   * ```
   */
  body?: unknown;

  /**
   * Create an error; `message` is shown to users as it is.
   *
   * @example
   * ```ts
   * import { MemoryError } from "@mneme/mneme";
   * throw new MemoryError(400, "content: must not be empty", { field: "content" });
   * ```
   */
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

/**
 * Whether `err` is a 400 naming `field` (an unknown or bad field of the request): what a service
 * older than the field answers, which its callers ask again without it.
 */
export function refusesField(err: unknown, field: string): boolean {
  return err instanceof MemoryError && err.status === 400 && err.field === field;
}

/** A 404 for a memory id. */
export function notFound(id: string): MemoryError {
  return new MemoryError(404, `memory ${id} not found`, { field: "id" });
}

const IDLE_CLOSED = "the database is closed while idle";

/**
 * What a check (a statement run with `background`, src/store/db.ts) gets from a database closed for
 * idleness, or being closed: it is not opened for a check (the caller answers from what it
 * knew).
 */
export function idleClosed(): MemoryError {
  return new MemoryError(503, IDLE_CLOSED);
}

/** Whether `err` is {@link idleClosed}'s. */
export function isIdleClosed(err: unknown): boolean {
  return err instanceof MemoryError && err.message === IDLE_CLOSED;
}
