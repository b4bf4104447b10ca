/**
 * The near-duplicate check on the labels alone (no extractor, no scorer): each session's user
 * message of a labelled repeat of a stored memory, and each durable label's text, against the
 * session's stored memories, with `isNearDuplicate` of src/capture/dedupe.ts. Prints the repeats
 * caught, the durable statements taken for a repeat (the labelled changes among them), and,
 * with `--verbose`, each miss and each wrong drop with the test `updateReason` names.
 *
 * `deno run -A --lock=tests/deno.lock tasks/capture_dedupe_labels.ts [--split S] [--verbose]`
 * (`--split` as bench:capture names them; a split never run, in `--skip`, is not read: default
 * holdout8).
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { isNearDuplicate, updateReason } from "../src/capture/dedupe.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    split: { type: "string", default: "all" },
    data: { type: "string", default: "bench/data/capture" },
    skip: { type: "string", default: "holdout8" },
    verbose: { type: "boolean", default: false },
  },
});
const skip = new Set(String(args.skip).split(","));
type Label = { uuid: string; text: string; contradicts?: string; duplicate_of?: string };
type Session = {
  file: string;
  split: string;
  stored: string[];
  durable: Label[];
  duplicates_of_stored: { uuid: string; stored: string }[];
};
const labels = JSON.parse(await Deno.readTextFile(join(args.data!, "labels.json"))) as {
  sessions: Session[];
};
const inSplit = (s: string) =>
  !skip.has(s) && (args.split === "all" || s === args.split ||
    (args.split === "tuning" && ["dev", "test", "holdout", "holdout2"].includes(s)));

/** The user's messages of a session by uuid. */
async function userTexts(file: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const text = await Deno.readTextFile(join(args.data!, file));
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const e = JSON.parse(line);
    if (e.type !== "user") continue;
    const c = e.message?.content;
    const t = typeof c === "string"
      ? c
      : Array.isArray(c)
      ? c.filter((x: { type: string }) => x.type === "text").map((x: { text: string }) => x.text)
        .join("\n")
      : "";
    if (t) out.set(e.uuid, t);
  }
  return out;
}

let repeats = 0, caught = 0, durable = 0, taken = 0, changes = 0, changesTaken = 0;
for (const s of labels.sessions) {
  if (!inSplit(s.split) || !s.stored.length) continue;
  const users = await userTexts(s.file);
  for (const d of s.duplicates_of_stored) {
    const text = users.get(d.uuid);
    if (!text) continue;
    repeats++;
    if (isNearDuplicate(text, d.stored)) caught++;
    else if (args.verbose) {
      console.log(
        `miss [${s.split}] ${JSON.stringify(text)} / ${JSON.stringify(d.stored)}: ${
          updateReason(text, d.stored) ?? "overlap"
        }`,
      );
    }
  }
  for (const l of s.durable) {
    if (l.duplicate_of) continue;
    durable++;
    if (l.contradicts) changes++;
    const hit = s.stored.find((m) => isNearDuplicate(l.text, m));
    if (!hit) continue;
    taken++;
    if (l.contradicts) changesTaken++;
    if (args.verbose) {
      console.log(`taken [${s.split}] ${JSON.stringify(l.text)} / ${JSON.stringify(hit)}`);
    }
  }
}
console.log(
  `split ${args.split}: repeats caught ${caught} of ${repeats}; durable statements taken for a ` +
    `repeat ${taken} of ${durable} (labelled changes ${changesTaken} of ${changes})`,
);
