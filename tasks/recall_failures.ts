/**
 * `deno run -A --lock=tests/deno.lock tasks/recall_failures.ts [--paraphrase FILE]`
 *
 * Where an aimed prompt of the paraphrase set's **dev** split is lost (the test split is never
 * read): each project in a fresh store of this tree's service (its memories and the global
 * ones), every aimed dev prompt searched as the hook searches (its own limit) and at limit 100,
 * and sorted into one stage:
 *
 * - **not a candidate**: no leg fetched the target (or it was noise): absent at limit 100;
 *   with the target's rank among the scope's memories by dense cosine alone (would a wider
 *   dense pool fetch it?);
 * - **ranked below 5**: a candidate, but not among the first 5;
 * - **gated**: among the first 5, confidence below the hook's floor;
 * - **injected**.
 *
 * Also the hit@5 and the hook's figures of the same run (aimed injected, everyday prompts with
 * anything injected). Prints counts (no prompt texts) and writes them to
 * bench/results/recall-failures-<time>.json. docs/recall.md, "0.17", has a run.
 */
import { parseArgs } from "node:util";
import { loadVersion, openVersion } from "./lib/versions.ts";
import {
  importProject,
  loadParaphrase,
  memoriesOf,
  memoryKey,
  PARAPHRASE_FILE,
  promptsOf,
  targetsOf,
} from "./paraphrase.ts";
import { builtinSif } from "../src/embed/sif.ts";
import { dot } from "../src/embed/dense.ts";
import { DEFAULT_MIN_CONFIDENCE } from "../src/memcli/commands/recall.ts";
import type { SearchResult } from "../src/memory/types.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { paraphrase: { type: "string", default: PARAPHRASE_FILE } },
  strict: true,
});
const set = await loadParaphrase(values.paraphrase!);
const v = await loadVersion(new URL("../", import.meta.url), "this tree");
const sif = await builtinSif();
const stages = { not_candidate: 0, below5: 0, gated: 0, injected: 0 };
const denseRanksOfMissing: number[] = [];
const ranksBelow5: number[] = [];
const gatedConfidences: number[] = [];
let aimed = 0;
let hit5 = 0;
let everyday = 0;
let everydayInjected = 0;
for (const project of set.projects.map((p) => p.name)) {
  const o = await openVersion(v);
  const keys = await importProject(o.service, set, project);
  const idOf = (r: SearchResult) => keys.get(memoryKey(r.memory.scope, project, r.memory.content));
  const scopeMemories = memoriesOf(set, project);
  for (const p of promptsOf(set, "dev", project)) {
    const targets = targetsOf(p);
    if (!targets) {
      everyday++;
      if ((await o.hook(p.text, project)).text) everydayInjected++;
      continue;
    }
    aimed++;
    const all = await o.service.search({ query: p.text, project, limit: 100 });
    const at = all.findIndex((r) => targets.has(idOf(r) ?? ""));
    const hook = await o.hook(p.text, project);
    const injected = hook.results.some((r) =>
      hook.text.includes(r.memory.id) && targets.has(idOf(r) ?? "")
    );
    if (at >= 0 && at < 5) hit5++;
    if (injected) stages.injected++;
    else if (at < 0) {
      stages.not_candidate++;
      const q = sif.vector(p.text);
      const cos = scopeMemories.map((m) => {
        const d = sif.vector(m.content);
        return { id: m.id, c: q && d ? dot(q, d) : -1 };
      }).sort((a, b) => b.c - a.c);
      denseRanksOfMissing.push(cos.findIndex((x) => targets.has(x.id)) + 1);
    } else if (at >= 5) {
      stages.below5++;
      ranksBelow5.push(at + 1);
    } else {
      stages.gated++;
      gatedConfidences.push(+all[at].confidence!.toFixed(3));
    }
  }
  await o.close();
}
const out = {
  split: "dev",
  aimed,
  floor: DEFAULT_MIN_CONFIDENCE,
  stages,
  hit5: +(hit5 / aimed).toFixed(3),
  hook: +(stages.injected / aimed).toFixed(3),
  everyday,
  everyday_injected: +(everydayInjected / everyday).toFixed(3),
  dense_rank_of_targets_not_fetched: denseRanksOfMissing.sort((a, b) => a - b),
  rank_of_targets_below5: ranksBelow5.sort((a, b) => a - b),
  confidence_of_gated_targets: gatedConfidences.sort((a, b) => a - b),
};
console.log(JSON.stringify({ ...out, stages: JSON.stringify(stages) }));
const file = `bench/results/recall-failures-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.log(file);
