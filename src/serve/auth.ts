/**
 * Daemon access key: extraction from `Authorization: Bearer` or `x-api-key`, constant-time
 * comparison, and the exact 401 body.
 *
 * @module
 */

import { keysEqual } from "../common/secret.ts";

/**
 * The key a client presented: `Authorization: Bearer <key>` (scheme case-insensitive) wins,
 * else `x-api-key`. Returns undefined when neither is present.
 */
export function presentedKey(headers: Headers): string | undefined {
  const authz = headers.get("authorization");
  if (authz !== null) {
    const m = /^\s*bearer\s+(.+?)\s*$/i.exec(authz);
    if (m) return m[1];
  }
  const apiKey = headers.get("x-api-key");
  return apiKey === null ? undefined : apiKey.trim();
}

/**
 * Checks a request against the configured key. With no key configured every request passes.
 * Both headers are tried, so a client that sends its own key in one and ours in the other
 * still gets in.
 */
export function isAuthorized(headers: Headers, key: string | undefined): boolean {
  if (key === undefined) return true;
  let ok = false;
  const authz = headers.get("authorization");
  if (authz !== null) {
    const m = /^\s*bearer\s+(.+?)\s*$/i.exec(authz);
    if (m && keysEqual(m[1], key)) ok = true;
  }
  const apiKey = headers.get("x-api-key");
  if (apiKey !== null && keysEqual(apiKey.trim(), key)) ok = true;
  return ok;
}

/** Message of the 401 body (documented in docs/serve.md). */
export const UNAUTHORIZED_MESSAGE =
  "missing or invalid daemon key: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'";
