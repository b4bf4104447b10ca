/**
 * The capture benchmark's frozen splits not run yet: left out of `all` by tasks/bench_capture.ts
 * (and run only when asked by name with `--frozen-run`, once: its figures are the record) and by
 * every measuring task, so that no run that tunes sees them.
 * @module
 */
export const UNRUN: readonly string[] = [];

/** A durable statement of a labelled session (bench/data/capture/labels.json). */
export interface LabelledStatement {
  uuid: string;
  text: string;
  kind: string;
  scope: string;
  duplicate_of?: string;
  contradicts?: string;
  contains_secret?: boolean;
}

/** A labelled session, as the measuring tasks read it (bench/data/capture/README.md). */
export interface LabelledSession {
  file: string;
  session_id: string;
  split: string;
  project: string;
  cwd: string;
  stored: string[];
  durable: LabelledStatement[];
  not_durable: { uuid: string; why: string }[];
  duplicates_of_stored: { uuid: string; stored: string }[];
}

/**
 * The labelled sessions of `dir` (its labels.json) whose split has run: `UNRUN` left out, but
 * for the unrun splits named in `frozenRun` (a task's `--frozen-run` of those splits, once).
 */
export async function runSessions(
  dir: string,
  frozenRun: readonly string[] = [],
): Promise<LabelledSession[]> {
  const labels = JSON.parse(await Deno.readTextFile(`${dir}/labels.json`)) as {
    sessions: LabelledSession[];
  };
  return labels.sessions.filter((s) => !UNRUN.includes(s.split) || frozenRun.includes(s.split));
}
