/**
 * `deno run -A --lock=tests/deno.lock tasks/judge_probe.ts --emit [--sets holdout7,holdout8]
 *   [--expansions DIR] [--pool-floor X] [--out DIR] [--frozen-run]`
 *
 * A measurement, not a feature yet: would a model's judgement of the prompt and the hook's first
 * few results (src/memory/judge.ts, its instruction src/memory/judge_prompt.md) inject the aimed
 * memory more often than the confidence floor, while staying quiet on everyday prompts
 * (docs/recall.md, "0.22 as shipped")? Phase 1 writes the requests that a model (or a session
 * acting as one) answers; the scoring of recorded answers comes with the product's wiring.
 *
 * `--emit`: for each seen set (`--sets`, bench/data/paraphrase/<set>.json, the holdout split of
 * the same name), each project in two fresh stores of this tree's service, as
 * tasks/expansion_probe.ts `--product` builds them: **plain** (the memories as they are) and
 * **expanded** (expansion on, the real worker's model the fake Ollama of tests/fakes/ replaying
 * the recorded phrases of `--expansions`/<set>.json). Every prompt of the split (aimed and
 * everyday alike) is searched in both as the hook searches it, and each store's candidate pool
 * is its first 5 results that are not bootstrap memories, of those the ones that score at least
 * the hook's `--min-score` and have a confidence of at least `--pool-floor` (default 0.5). One
 * request per prompt over the union of the two pools, its candidates and the requests shuffled
 * with a fixed seed, is written to `--out`/<set>-requests.json (`[{id, project, prompt,
 * candidates: [{n, key, type, content}]}]`, `key` a hash of the set's memory id) and, as the
 * model reads it (the user text of {@link renderJudgeRequest}), to <set>-requests.md. No label,
 * target, kind of prompt or score is written or printed: only counts. A prompt whose union is
 * empty gets no request (the hook would inject nothing for it with or without a judge).
 *
 * The answers, one file per set (`--out`/<set>.json: `{"<request id>": {"use": [n, ...]}}`), are
 * read by the scorer with {@link parseJudgeAnswer}; the request ids and keys are reproducible
 * (the same seed, `key` the same hash), so the scorer finds each request's prompt and target.
 *
 * Frozen splits not run yet (`UNRUN_SPLITS` in tasks/paraphrase.ts) are refused unless asked by
 * name with `--frozen-run`.
 */
import { benchArgs } from "./lib/args.ts";
import {
  importProject,
  loadParaphrase,
  memoryKey,
  promptsOf,
  type Split,
  SPLITS,
  UNRUN_SPLITS,
} from "./paraphrase.ts";
import { loadVersion, type OpenVersion, openVersion, type Version } from "./lib/versions.ts";
import { expandWithWorker, loadExpansions } from "./lib/expansion_replay.ts";
import { Rng } from "./capture_data/build.ts";
import type { SearchResult } from "../src/memory/types.ts";
import type { SqlMemoryService } from "../src/memory/service.ts";
import { JUDGE_MAX_CANDIDATES, renderJudgeRequest } from "../src/memory/judge.ts";

const USAGE = "deno run -A --lock=tests/deno.lock tasks/judge_probe.ts --emit " +
  "[--sets holdout7,holdout8] [--expansions DIR] [--pool-floor X] [--out DIR] [--frozen-run]";
const values = benchArgs(USAGE, {
  emit: { type: "boolean", default: false },
  sets: { type: "string", default: "holdout7,holdout8" },
  expansions: { type: "string", default: "bench/data/expansions-v2" },
  "pool-floor": { type: "string", default: "0.5" },
  out: { type: "string", default: "bench/data/judge" },
  "frozen-run": { type: "boolean", default: false },
});
if (!values.emit) {
  console.error(`--emit is the only mode built yet (the scoring comes later)\nusage: ${USAGE}`);
  Deno.exit(2);
}
const poolFloor = Number(values["pool-floor"]);
if (!(poolFloor >= 0 && poolFloor <= 1)) {
  console.error(`--pool-floor: ${values["pool-floor"]} is not a number in 0..1`);
  Deno.exit(2);
}
const sets = values.sets!.split(",");
for (const s of sets) {
  if (!SPLITS.includes(s as Split) || s === "dev" || s === "test") {
    console.error(`--sets: ${s} is not a holdout set\nusage: ${USAGE}`);
    Deno.exit(2);
  }
  if (UNRUN_SPLITS.includes(s as Split) && !values["frozen-run"]) {
    console.error(`--sets: ${s} is a frozen split not run yet: add --frozen-run to run it (once)`);
    Deno.exit(2);
  }
}

/** Results the hook looks at: its first 5 that are not bootstrap memories. */
const POOL_SIZE = 5;
/** The seed of the shuffles (with the set's name). */
const SEED = "mneme-judge-v1";

/** The opaque key of a set's memory in the requests: the scorer computes it the same way. */
export async function memoryHash(set: string, id: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${set}\n${id}`));
  return [...new Uint8Array(d)].slice(0, 6).map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `xs` shuffled in place by Fisher–Yates with `rng`. */
function shuffle<T>(xs: T[], rng: Rng): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

interface Candidate {
  n: number;
  key: string;
  type: string;
  content: string;
}
interface Request {
  id: string;
  project: string;
  prompt: string;
  candidates: Candidate[];
}

const tree = await loadVersion(new URL("../", import.meta.url), "this tree");
const { recall } = tree.mods;
const minScore: number = recall.DEFAULT_MIN_SCORE;

/** A store's pool for `prompt`: set memory id → the result. */
async function pool(
  o: OpenVersion,
  keys: Map<string, string>,
  project: string,
  prompt: string,
): Promise<Map<string, SearchResult>> {
  const { results } = await o.hook(prompt, project);
  const out = new Map<string, SearchResult>();
  for (const r of results.filter((r) => r.memory.type !== "bootstrap").slice(0, POOL_SIZE)) {
    if (r.score < minScore || (r.confidence ?? 0) < poolFloor) continue;
    const id = keys.get(memoryKey(r.memory.scope, project, r.memory.content));
    if (!id) throw new Error(`${project}: a result that is no memory of the set: ${r.memory.id}`);
    out.set(id, r);
  }
  return out;
}

await Deno.mkdir(values.out!, { recursive: true });
const counts = [];
for (const name of sets) {
  const set = await loadParaphrase(`bench/data/paraphrase/${name}.json`);
  const ex = await loadExpansions(`${values.expansions}/${name}.json`, set);
  const drafts: { project: string; prompt: string; union: SearchResult[]; ids: string[] }[] = [];
  let empty = 0;
  let plainPool = 0;
  let expandedPool = 0;
  for (const project of set.projects.map((p) => p.name)) {
    const plain = await openVersion({ ...tree, name: "plain" } as Version);
    const expanded = await openVersion(
      { ...tree, name: "expanded" } as Version,
      { expansion: { dailyTokens: 1e9 } },
    );
    try {
      const keys = {
        plain: await importProject(plain.service, set, project),
        expanded: await importProject(expanded.service, set, project),
      };
      await expandWithWorker(expanded.service as SqlMemoryService, set, ex);
      for (const p of promptsOf(set, name as Split, project)) {
        const a = await pool(plain, keys.plain, project, p.text);
        const b = await pool(expanded, keys.expanded, project, p.text);
        plainPool += a.size;
        expandedPool += b.size;
        const union = new Map([...a, ...b]);
        if (!union.size) {
          empty++;
          continue;
        }
        drafts.push({
          project,
          prompt: p.text.trim(),
          ids: [...union.keys()],
          union: [...union.values()],
        });
      }
    } finally {
      await plain.close();
      await expanded.close();
    }
  }
  const rng = new Rng(`${SEED}\n${name}`);
  shuffle(drafts, rng);
  const requests: Request[] = [];
  for (const [i, d] of drafts.entries()) {
    const order = shuffle(d.union.map((_, j) => j), rng);
    if (order.length > JUDGE_MAX_CANDIDATES) throw new Error(`${order.length} candidates`);
    requests.push({
      id: `${name}-${String(i + 1).padStart(3, "0")}`,
      project: d.project,
      prompt: d.prompt,
      candidates: await Promise.all(order.map(async (j, k) => ({
        n: k + 1,
        key: await memoryHash(name, d.ids[j]),
        type: d.union[j].memory.type,
        content: d.union[j].memory.content,
      }))),
    });
  }
  const md = [
    `# Judge requests: ${name}`,
    "",
    `${requests.length} requests, one block each: the user text the model reads.`,
    "",
    "System text: src/memory/judge_prompt.md.",
    "",
    "Answer file: `" + name + '.json`, `{"<request id>": {"use": [n, ...]}}` (README.md).',
    "",
  ];
  for (const r of requests) {
    const { user } = renderJudgeRequest(r.prompt, r.project, r.candidates);
    md.push(`## ${r.id}`, "", "```text", user.trimEnd(), "```", "");
  }
  await Deno.writeTextFile(
    `${values.out}/${name}-requests.json`,
    JSON.stringify(requests, null, 2) + "\n",
  );
  await Deno.writeTextFile(`${values.out}/${name}-requests.md`, md.join("\n"));
  const sizes = requests.map((r) => r.candidates.length);
  const prompts = requests.length + empty;
  counts.push({
    set: name,
    prompts,
    requests: requests.length,
    no_candidates: empty,
    candidates_mean: +(sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length)).toFixed(2),
    candidates_max: Math.max(0, ...sizes),
    plain_pool_mean: +(plainPool / Math.max(1, prompts)).toFixed(2),
    expanded_pool_mean: +(expandedPool / Math.max(1, prompts)).toFixed(2),
  });
}
console.log(
  `pool: the first ${POOL_SIZE} results but bootstrap, score ≥ ${minScore}, ` +
    `confidence ≥ ${poolFloor}; expansions ${values.expansions}`,
);
console.log(
  "| set | prompts | requests | no candidates | candidates mean | max | plain pool mean | expanded pool mean |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const c of counts) {
  console.log(
    `| ${c.set} | ${c.prompts} | ${c.requests} | ${c.no_candidates} | ${c.candidates_mean} | ${c.candidates_max} | ${c.plain_pool_mean} | ${c.expanded_pool_mean} |`,
  );
}
