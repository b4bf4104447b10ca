/**
 * Hand-written sessions of the capture benchmark's test split (frozen, reported).
 *
 * @module
 */
import type { Script } from "./sessions_dev.ts";

export const TEST: Script[] = [];
