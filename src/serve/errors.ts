/**
 * Error responses in the Messages API's error shape:
 * `{"type":"error","error":{"type":"<kind>","message":"<text>"}}`.
 *
 * @module
 */

/** Error kinds the daemon itself produces (the API's names). */
export type ApiErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "api_error"
  | "overloaded_error";

/** Body of an API-shaped error. */
export interface ApiErrorBody {
  type: "error";
  error: { type: ApiErrorType; message: string };
}

/** Builds the body of an API-shaped error. */
export function apiErrorBody(type: ApiErrorType, message: string): ApiErrorBody {
  return { type: "error", error: { type, message } };
}

/** A JSON response with an API-shaped error body. */
export function apiError(
  status: number,
  type: ApiErrorType,
  message: string,
  headers?: HeadersInit,
): Response {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return new Response(JSON.stringify(apiErrorBody(type, message)), { status, headers: h });
}
