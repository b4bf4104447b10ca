/**
 * The generated memories of `bench:memory` (and `tasks/profile_import.ts`, which profiles the
 * same import): a deterministic pseudo-random stream shared by the memories and the queries
 * drawn after them, so that runs are comparable.
 * @module
 */
import type { ImportItem } from "../src/memory/types.ts";

// A deterministic pseudo-random generator so runs are comparable: the LCG of C's rand(),
// modulo 2^31, computed exactly (Math.imul). Until 2026-11-25 it multiplied in floating
// point, which rounds above 2^53: its period was 10,466 draws, so the 100k memories were
// about 1,200 sentences repeated 86 times, each repeated sentence either nearly always
// global or nearly always in a project.
let seed = 42;
/** Start the stream again from `s` (42 at load). */
export function reseed(s = 42): void {
  seed = s;
}
export const rand = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
export const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];

export const SUBJECTS = [
  "the api",
  "the database",
  "the build",
  "the test suite",
  "the deploy script",
  "the cache",
  "the auth flow",
  "the web ui",
  "the cli",
  "the scheduler",
  "the logger",
  "the importer",
];
export const VERBS = ["uses", "needs", "prefers", "avoids", "requires", "depends on", "runs with"];
export const OBJECTS = [
  "postgres 16",
  "port 8080",
  "tabs for indentation",
  "deno task test",
  "a retry with backoff",
  "utc timestamps",
  "strict typescript",
  "the builtin embedder",
  "a 30 second timeout",
  "json logs",
  "feature flags",
  "semantic versioning",
  "an advisory lock",
  "hnsw indexes",
  "zod schemas",
];
export const TYPES = ["fact", "rule", "decision", "feedback", "context"] as const;
export const PROJECTS = Array.from({ length: 20 }, (_, i) => `project-${i}`);

export function sentence(i: number): string {
  return `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)} and ${pick(VERBS)} ${
    pick(OBJECTS)
  } (note ${i})`;
}

/** An item of `bench:memory`: in one of `projects` with probability `share`, else global. */
export function item(i: number, share = 0.6, projects = PROJECTS): ImportItem {
  const project = rand() < share ? pick(projects) : undefined;
  return {
    content: sentence(i),
    ...(project ? { scope: "project" as const, project } : {}),
    type: pick([...TYPES]),
    tags: [pick(["infra", "style", "testing", "ops"])],
  };
}

/** The projects of {@link scopedItem}: 100, of which {@link PROJECTS} are the first 20. */
export const SCOPED_PROJECTS = Array.from({ length: 100 }, (_, i) => `project-${i}`);

/**
 * An item of `bench:memory --scoped`: a global memory one time in 50, otherwise one of 100
 * projects', so that every scope a search may have (the global memories; a project's, with or
 * without the global ones) holds 1–3% of the memories.
 */
export function scopedItem(i: number): ImportItem {
  return item(i, 0.98, SCOPED_PROJECTS);
}
