/**
 * The capture benchmark's frozen splits not run yet: left out of `all` by tasks/bench_capture.ts
 * (and run only when asked by name with `--frozen-run`, once: its figures are the record) and by
 * every measuring task, so that no run that tunes sees them.
 * @module
 */
export const UNRUN: readonly string[] = [];
