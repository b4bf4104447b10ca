/**
 * The paraphrase set (bench/data/paraphrase/, README there) for the recall benchmark and the
 * confidence fit: loading, the prompts of a split, and a project's store as the set says (the
 * project's memories plus the global ones, in a store of their own).
 * @module
 */
import type { ImportItem, MemoryService } from "../src/memory/types.ts";

/** The set's default file. */
export const PARAPHRASE_FILE = "bench/data/paraphrase/paraphrase.json";

/** A memory of the set. */
export interface SetMemory {
  id: string;
  content: string;
  type: string;
  scope: "project" | "global";
}
/** A prompt of the set: aimed at `target` (and as right: `also`), or everyday (null). */
export interface SetPrompt {
  id: string;
  project: string;
  text: string;
  target: string | null;
  also?: string[];
  split:
    | "dev"
    | "test"
    | "holdout"
    | "holdout2"
    | "holdout3"
    | "holdout4"
    | "holdout5"
    | "holdout6"
    | "holdout7"
    | "holdout8"
    | "holdout9"
    | "holdout10"
    | "holdout11";
  shares_word?: boolean;
}
/** The file. */
export interface ParaphraseSet {
  version: number;
  projects: { name: string; kind: string; memories: SetMemory[] }[];
  globals: SetMemory[];
  prompts: SetPrompt[];
}

/**
 * The splits a run may ask for: `dev` and `test` of paraphrase.json, `holdout` of holdout.json
 * `holdout2` of holdout2.json, `holdout3` of holdout3.json `holdout4` of holdout4.json `holdout5` of holdout5.json `holdout6` of holdout6.json `holdout7` of holdout7.json `holdout8` of holdout8.json `holdout9` of holdout9.json, `holdout10` of holdout10.json and `holdout11` of holdout11.json (each its own projects and globals,
 * frozen: run once; README there).
 */
export const SPLITS = [
  "dev",
  "test",
  "holdout",
  "holdout2",
  "holdout3",
  "holdout4",
  "holdout5",
  "holdout6",
  "holdout7",
  "holdout8",
  "holdout9",
  "holdout10",
  "holdout11",
] as const;
/**
 * Frozen splits not run yet: a run asks for one by name with `--frozen-run` (once: its figures
 * are the record), so that no run that tunes sees it.
 */
export const UNRUN_SPLITS: readonly Split[] = [];
export type Split = typeof SPLITS[number];

/** Read the set; a file that is not one is refused with its path. */
export async function loadParaphrase(path: string): Promise<ParaphraseSet> {
  const raw = JSON.parse(await Deno.readTextFile(path)) as ParaphraseSet;
  if (!Array.isArray(raw?.projects) || !Array.isArray(raw.globals) || !Array.isArray(raw.prompts)) {
    throw new Error(`${path}: not a paraphrase set (projects, globals, prompts)`);
  }
  return raw;
}

/** The memories a prompt's target may be (its target and `also`); null for everyday. */
export function targetsOf(p: SetPrompt): Set<string> | null {
  return p.target === null ? null : new Set([p.target, ...(p.also ?? [])]);
}

/** The prompts of `split` in `project`. */
export function promptsOf(set: ParaphraseSet, split: Split, project: string): SetPrompt[] {
  return set.prompts.filter((p) => p.split === split && p.project === project);
}

/** A project's memories as the set says: its own, then the global ones. */
export function memoriesOf(set: ParaphraseSet, project: string): SetMemory[] {
  const p = set.projects.find((x) => x.name === project);
  if (!p) throw new Error(`paraphrase set: no project ${project}`);
  return [
    ...p.memories.map((m) => ({ ...m, scope: "project" as const })),
    ...set.globals.map((g) => ({ ...g, scope: "global" as const })),
  ];
}

/**
 * Store a project's memories (its own and the global ones) through `service.import`, into a
 * store that holds nothing else; returns the set's memory id of each stored content (trimmed,
 * as the service stores it), keyed `"<project or empty for global>\n<content>"`.
 */
export async function importProject(
  service: MemoryService,
  set: ParaphraseSet,
  project: string,
): Promise<Map<string, string>> {
  const memories = memoriesOf(set, project);
  const items: ImportItem[] = memories.map((m) => ({
    content: m.content,
    scope: m.scope,
    ...(m.scope === "project" ? { project } : {}),
    type: m.type as ImportItem["type"],
  }));
  // A memory the service refuses (the secret guard, a limit) is left out and said on stderr, as a
  // user would be told; the prompts aimed at it then count as missed. One bad item refuses a whole
  // import, so the refused one is dropped and the rest imported again.
  const kept = [...memories];
  for (;;) {
    try {
      const result = await service.import(kept.map((m) => items[memories.indexOf(m)]));
      if (result.imported !== kept.length) {
        throw new Error(
          `paraphrase set: ${project}: ${result.imported} of ${kept.length} imported`,
        );
      }
      break;
    } catch (err) {
      const at = /^(?:items)?\[(\d+)\]/.exec(String((err as { field?: unknown }).field ?? ""));
      if (!at || Number(at[1]) >= kept.length) throw err;
      const [refused] = kept.splice(Number(at[1]), 1);
      console.error(
        `paraphrase set: ${project}: ${refused.id} refused by the service and left out (${
          (err as Error).message
        })`,
      );
    }
  }
  return new Map(kept.map((m) => [memoryKey(m.scope, project, m.content), m.id]));
}

/** The key of a stored memory in {@link importProject}'s map. */
export function memoryKey(scope: string, project: string, content: string): string {
  return `${scope === "global" ? "" : project}\n${content.trim()}`;
}
