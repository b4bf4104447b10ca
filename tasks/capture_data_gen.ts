/**
 * Writes the hand-written sessions of the capture benchmark (bench/data/capture/sessions/: the
 * dev, test, holdout, holdout2, holdout3, holdout4, holdout5, holdout6, holdout7, holdout8, holdout9, holdout10, holdout11, holdout12, holdout13, holdout14, holdout15 and holdout16 splits) and bench/data/capture/labels.json, merging the labels of the
 * real Claude Code transcripts (bench/data/capture/real/, labelled by
 * tasks/capture_real_sessions.ts in tasks/capture_data/real_labels.json). Deterministic: a
 * rerun writes the same bytes.
 *
 *   deno run -A tasks/capture_data_gen.ts [--out bench/data/capture]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Session, type SessionLabels, type Split } from "./capture_data/build.ts";
import { DEV, type Script } from "./capture_data/sessions_dev.ts";
import { TEST } from "./capture_data/sessions_test.ts";
import { DEV_MORE, TEST_MORE } from "./capture_data/sessions_more.ts";
import { HOLDOUT } from "./capture_data/sessions_holdout.ts";
import { HOLDOUT2 } from "./capture_data/sessions_holdout2.ts";
import { HOLDOUT3 } from "./capture_data/sessions_holdout3.ts";
import { HOLDOUT4 } from "./capture_data/sessions_holdout4.ts";
import { HOLDOUT5 } from "./capture_data/sessions_holdout5.ts";
import { HOLDOUT6 } from "./capture_data/sessions_holdout6.ts";
import { HOLDOUT7 } from "./capture_data/sessions_holdout7.ts";
import { HOLDOUT8 } from "./capture_data/sessions_holdout8.ts";
import { HOLDOUT9 } from "./capture_data/sessions_holdout9.ts";
import { HOLDOUT10 } from "./capture_data/sessions_holdout10.ts";
import { HOLDOUT11 } from "./capture_data/sessions_holdout11.ts";
import { HOLDOUT12 } from "./capture_data/sessions_holdout12.ts";
import { HOLDOUT13 } from "./capture_data/sessions_holdout13.ts";
import { HOLDOUT14 } from "./capture_data/sessions_holdout14.ts";
import { HOLDOUT15 } from "./capture_data/sessions_holdout15.ts";
import { HOLDOUT16 } from "./capture_data/sessions_holdout16.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { out: { type: "string", default: "bench/data/capture" } },
});
const out = values.out!;

function build(
  script: Script,
  split: Split,
): { jsonl: string; labels: SessionLabels } {
  const s = new Session({ ...script, split });
  script.run(s);
  return s.finish();
}

await Deno.mkdir(`${out}/sessions`, { recursive: true });
const all: SessionLabels[] = [];
const seen = new Set<string>();
for (
  const [scripts, split] of [
    [[...DEV, ...DEV_MORE], "dev"],
    [[...TEST, ...TEST_MORE], "test"],
    [HOLDOUT, "holdout"],
    [HOLDOUT2, "holdout2"],
    [HOLDOUT3, "holdout3"],
    [HOLDOUT4, "holdout4"],
    [HOLDOUT5, "holdout5"],
    [HOLDOUT6, "holdout6"],
    [HOLDOUT7, "holdout7"],
    [HOLDOUT8, "holdout8"],
    [HOLDOUT9, "holdout9"],
    [HOLDOUT10, "holdout10"],
    [HOLDOUT11, "holdout11"],
    [HOLDOUT12, "holdout12"],
    [HOLDOUT13, "holdout13"],
    [HOLDOUT14, "holdout14"],
    [HOLDOUT15, "holdout15"],
    [HOLDOUT16, "holdout16"],
  ] as const
) {
  for (const script of scripts) {
    if (seen.has(script.id)) throw new Error(`duplicate session id ${script.id}`);
    seen.add(script.id);
    const { jsonl, labels } = build(script, split);
    await Deno.writeTextFile(`${out}/${labels.file}`, jsonl);
    all.push(labels);
  }
}
let real: SessionLabels[] = [];
try {
  real = JSON.parse(await Deno.readTextFile("tasks/capture_data/real_labels.json"));
} catch (err) {
  if (!(err instanceof Deno.errors.NotFound)) throw err;
}
all.push(...real);
all.sort((a, b) => a.file.localeCompare(b.file));
const doc = {
  description:
    "Labels of the capture benchmark: which statements of each session are durable memories. See README.md.",
  schema_version: 1,
  sessions: all,
};
await Deno.writeTextFile(`${out}/labels.json`, JSON.stringify(doc, null, 2) + "\n");
console.log(`${all.length} sessions (${real.length} real) written to ${out}`);
