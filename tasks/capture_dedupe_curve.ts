/**
 * The near-duplicate check's threshold curve (docs/capture.md, 0.22): every seen session's
 * proposals with nothing stored (so none is dropped as a repeat), each compared with the
 * session's stored memories by `isNearDuplicate` at each threshold; counted are the labelled
 * repeats it drops (caught) and the durable statements it drops (wrongly: a change of a stored
 * memory or a new one). Frozen splits not run yet (`UNRUN` in capture_splits.ts) are left out.
 *
 *   deno task dedupe-curve:capture
 * @module
 */
import { join } from "node:path";
import { MemoryCaptureSink, runCapture } from "../src/capture/pipeline.ts";
import { isNearDuplicate, NEAR_DUPLICATE } from "../src/capture/dedupe.ts";
import { runSessions } from "./capture_splits.ts";
import { ROOT, writeBenchResult } from "./entrypoints.ts";

const DATA = join(ROOT, "bench/data/capture");
const THRESHOLDS = [0.9, 0.8, 0.7, NEAR_DUPLICATE, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3];

const sessions = await runSessions(DATA);
type Row = {
  split: string;
  kind: "repeat" | "change" | "new" | "junk";
  text: string;
  stored: string[];
};
const rows: Row[] = [];
for (const s of sessions) {
  const sink = new MemoryCaptureSink();
  await runCapture(
    { sessionId: s.session_id, transcriptPath: join(DATA, s.file), cwd: s.cwd, event: "Stop" },
    sink,
    { project: () => Promise.resolve(s.project) },
  );
  const repeats = new Set([
    ...s.duplicates_of_stored.map((d) => d.uuid),
    ...s.durable.filter((d) => d.duplicate_of).map((d) => d.uuid),
  ]);
  const open = s.durable.filter((d) => !d.duplicate_of);
  for (const p of sink.proposals) {
    const i = open.findIndex((d) => d.uuid === p.provenance.uuid);
    const kind = i >= 0
      ? (open[i].contradicts ? "change" : "new")
      : repeats.has(p.provenance.uuid)
      ? "repeat"
      : "junk";
    if (i >= 0) open.splice(i, 1);
    rows.push({ split: s.split, kind, text: p.text, stored: s.stored });
  }
}
const total = (k: Row["kind"]) => rows.filter((r) => r.kind === k).length;
console.log(
  `proposals with nothing stored: ${rows.length} (repeats ${total("repeat")}, changes ${
    total("change")
  }, new ${total("new")}, junk ${total("junk")})`,
);
console.log("threshold  repeats caught  splits  changes dropped  new dropped  junk dropped");
const curve = [];
for (const t of THRESHOLDS) {
  const hit = rows.filter((r) => r.stored.some((m) => isNearDuplicate(r.text, m, t)));
  const n = (k: Row["kind"]) => hit.filter((r) => r.kind === k).length;
  const splits = new Set(hit.filter((r) => r.kind === "repeat").map((r) => r.split)).size;
  curve.push({
    threshold: t,
    repeats_caught: n("repeat"),
    repeat_splits: splits,
    changes_dropped: n("change"),
    new_dropped: n("new"),
    junk_dropped: n("junk"),
  });
  console.log(
    [t.toFixed(2), n("repeat"), splits, n("change"), n("new"), n("junk")].map(String).map((x, i) =>
      x.padEnd([11, 16, 8, 17, 13, 12][i])
    ).join(""),
  );
}
await writeBenchResult("capture-dedupe-curve", {
  proposals: rows.length,
  repeats: total("repeat"),
  changes: total("change"),
  new: total("new"),
  junk: total("junk"),
  curve,
});
