/**
 * Comparing a presented key with the configured one.
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Compares two secrets in constant time with respect to their contents: both are hashed to
 * SHA-256 first and the digests (always 32 bytes) compared with `timingSafeEqual`, so neither
 * the length nor a common prefix leaks through timing.
 */
export function keysEqual(given: string, key: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(key).digest();
  return timingSafeEqual(a, b);
}
