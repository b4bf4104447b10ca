/**
 * The memory itself, as every layer of the service sees it: its scopes, its types and its
 * stored form. The store and the embedders use these; `../memory/types.ts` re-exports them
 * with the rest of the service's public types.
 * @module
 */

/**
 * Where a memory applies: everywhere, or in one project.
 *
 * @example
 * ```ts
 * import type { Scope } from "@mneme/mneme";
 * const scope: Scope = "project";
 * ```
 */
export type Scope = "global" | "project";

/**
 * The kind of a memory. `fact` is the default.
 *
 * @example
 * ```ts
 * import type { MemoryType } from "@mneme/mneme";
 * const type: MemoryType = "decision";
 * ```
 */
export type MemoryType = "fact" | "rule" | "decision" | "feedback" | "context" | "bootstrap";

/**
 * All scopes, in display order.
 *
 * @example
 * ```ts
 * import { SCOPES } from "@mneme/mneme";
 * console.log(SCOPES.join(", ")); // global, project
 * ```
 */
export const SCOPES: readonly Scope[] = ["global", "project"];

/** Longest project name (here, not in validation, so that a hook reads it without the secret check). */
export const MAX_PROJECT = 200;

/**
 * All memory types, in display order.
 *
 * @example
 * ```ts
 * import { MEMORY_TYPES, type MemoryType } from "@mneme/mneme";
 * const isType = (x: string): x is MemoryType => (MEMORY_TYPES as readonly string[]).includes(x);
 * ```
 */
export const MEMORY_TYPES: readonly MemoryType[] = [
  "fact",
  "rule",
  "decision",
  "feedback",
  "context",
  "bootstrap",
];

/**
 * A stored memory as the API returns it. The embedding is never returned.
 *
 * @example
 * ```ts
 * import type { Memory } from "@mneme/mneme";
 * const memory: Memory = {
 *   id: "0190f3a2-7c1e-7000-8000-000000000000",
 *   content: "The API listens on port 4200",
 *   scope: "project",
 *   project: "mneme",
 *   type: "fact",
 *   tags: ["ports"],
 *   weight: 1,
 *   created_at: "2025-01-01T00:00:00.000Z",
 *   updated_at: "2025-01-01T00:00:00.000Z",
 *   expires_at: null,
 *   supersedes: null,
 *   superseded_by: null,
 * };
 * ```
 */
export interface Memory {
  /** UUID assigned by the service. */
  id: string;
  /** The text of the memory. */
  content: string;
  /** `global` or `project`. */
  scope: Scope;
  /** The project name for `project` scope; `null` for global memories. */
  project: string | null;
  /** The kind of memory. */
  type: MemoryType;
  /** Free-form labels. */
  tags: string[];
  /** Importance 0.1..1.0; superseded memories drop to 0.1. */
  weight: number;
  /** ISO 8601 UTC creation time. */
  created_at: string;
  /** ISO 8601 UTC time of the last content change. */
  updated_at: string;
  /** ISO 8601 UTC expiry derived from `ttl`, or `null` when the memory does not expire. */
  expires_at: string | null;
  /** Id of the memory this one replaced, or `null`. */
  supersedes: string | null;
  /** Id of a memory that replaced this one, or `null` while it is current. */
  superseded_by: string | null;
}
