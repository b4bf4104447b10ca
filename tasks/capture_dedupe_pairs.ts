/**
 * The pairs the near-duplicate check of this tree joins or splits against another tree's (a
 * baseline, e.g. `git archive main | tar -x -C DIR`): every ordered pair of label texts of one
 * project (stored memories and durable labels) and every user message against every stored
 * memory and label of its project. Each pair that changes is printed, marked when it is a
 * labelled repeat (a label and what it repeats) or the message of a labelled repeat event; the
 * held-out side of a dedupe change (pairs that must stay apart were not read to write it). A split
 * never run (`--skip`, default holdout11) is not read.
 *
 * `deno run -A --lock=tests/deno.lock tasks/capture_dedupe_pairs.ts --baseline DIR [--data DIR]`
 * @module
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isNearDuplicate } from "../src/capture/dedupe.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    baseline: { type: "string" },
    data: { type: "string", default: "bench/data/capture" },
    skip: { type: "string", default: "holdout11" },
  },
});
if (!args.baseline) {
  console.error("--baseline: give the directory of the tree to compare with");
  Deno.exit(2);
}
const skip = new Set(String(args.skip).split(","));
const base = (await import(
  pathToFileURL(resolve(args.baseline, "src/capture/dedupe.ts")).href
)) as { isNearDuplicate: typeof isNearDuplicate };
type Label = { uuid: string; text: string; duplicate_of?: string };
type Session = {
  file: string;
  split: string;
  project: string;
  stored: string[];
  durable: Label[];
  duplicates_of_stored: { uuid: string; stored: string }[];
};
const sessions = (JSON.parse(await Deno.readTextFile(join(args.data!, "labels.json"))) as {
  sessions: Session[];
}).sessions.filter((s) => !skip.has(s.split));
const byProject = new Map<string, Set<string>>();
const repeat = new Set<string>();
for (const s of sessions) {
  const set = byProject.get(s.project) ?? new Set<string>();
  for (const t of s.stored) set.add(t);
  for (const d of s.durable) {
    set.add(d.text);
    if (d.duplicate_of) repeat.add(`${d.text}\u0000${d.duplicate_of}`);
  }
  byProject.set(s.project, set);
}
const changed: string[] = [];
let labelPairs = 0, messagePairs = 0;
const compare = (a: string, b: string, what: string) => {
  const x = isNearDuplicate(a, b), y = base.isNearDuplicate(a, b);
  if (x !== y) changed.push(`${what} ${x ? "JOIN" : "SPLIT"} ${a} /// ${b}`);
};
for (const [p, set] of byProject) {
  for (const a of set) {
    for (const b of set) {
      if (a === b) continue;
      labelPairs++;
      compare(a, b, `labels ${p}${repeat.has(`${a}\u0000${b}`) ? " [labelled repeat]" : ""}`);
    }
  }
}
for (const s of sessions) {
  const dups = new Set(s.duplicates_of_stored.map((d) => d.uuid));
  for (const line of (await Deno.readTextFile(join(args.data!, s.file))).split("\n")) {
    if (!line.trim()) continue;
    const e = JSON.parse(line);
    if (e.type !== "user" || typeof e.message?.content !== "string") continue;
    for (const b of byProject.get(s.project) ?? []) {
      messagePairs++;
      compare(
        e.message.content,
        b,
        `message ${s.split} ${s.file}${dups.has(e.uuid) ? " [repeat event]" : ""}`,
      );
    }
  }
}
console.log(`label pairs ${labelPairs}, message pairs ${messagePairs}, changed ${changed.length}`);
for (const c of changed) console.log(c);
