/**
 * `deno run -A --lock=tests/deno.lock tasks/judge_probe.ts --emit|--score
 *   [--sets holdout7,holdout8 | --locomo DIR] [--expansions DIR] [--out DIR] [--answers DIR] [--results DIR] [--pool-limit N]
 *   [--pool-floor X] [--id-tag T] [--ceilings] [--detail] [--frozen-run]`
 *
 * Would a model's judgement of the prompt and the hook's first few results (src/memory/judge.ts,
 * its instruction src/memory/judge_prompt.md; the product's `RECALL_JUDGE`) inject the aimed
 * memory more often than the confidence floor, while staying quiet on everyday prompts
 * (docs/recall.md, "After 0.22: a model's judgement at prompt time")?
 *
 * Both modes build, for each seen set (`--sets`, bench/data/paraphrase/<set>.json, the holdout
 * split of the same name), each project in two fresh stores of this tree's service, as
 * tasks/expansion_probe.ts `--product` builds them: **plain** (the memories as they are) and
 * **expanded** (expansion on, the real worker's model the fake Ollama of tests/fakes/ replaying
 * the recorded phrases of `--expansions`/<set>.json). Every prompt of the split (aimed and
 * everyday alike) is searched in both as the hook searches it, and each store's candidate pool
 * is the product's ({@link judgePool}: its first 5 results that are not bootstrap memories, of
 * those the ones scoring at least 0.1 with a confidence of at least 0.5; other pools below). One request per prompt
 * over the union of the two pools, its candidates and the requests shuffled with a fixed seed.
 *
 * `--emit` writes them to `--out`/<set>-requests.json (`[{id, project, prompt, candidates: [{n,
 * key, type, content}]}]`, `key` a hash of the set's memory id) and, as the model reads it (the
 * user text of {@link renderJudgeRequest}), to <set>-requests.md. No label, target, kind of
 * prompt or score is written or printed: only counts. A prompt whose union is empty gets no
 * request (the hook would inject nothing for it with or without a judge).
 *
 * `--score` rebuilds the same requests and stops unless they are the emitted file's (ids, keys,
 * candidates), then replays the recorded answers (`--answers`/<set>.json, `{"<request id>":
 * {"use": [n, ...]}}`) through the **product path**: in each store, the judge as built
 * ({@link RecallJudge}, {@link judgeResults}) with capture's Messages API client, its model the
 * Messages API fake of tests/fakes/ answering each request from the recorded answer of the
 * emitted request with the same text (matched by project, message and the notes' lines: the
 * product asks about its own store's pool, a part of the union, so the answer is the recorded
 * choice among those notes), and the hook's formatting (`formatRecall`: what was chosen, or the
 * plain floor when the judge fell back). Beside it, in the same run, the plain hook (the floor
 * 0.9). Per set and pooled, per store: aimed prompts whose target is injected, everyday prompts
 * with anything injected, the pool's ceiling (the aimed target in the pool at all), malformed
 * answers and the other fallbacks, calls and tokens per prompt (the fake's usage: characters / 4
 * of the request, of the answer). Prints a table; writes `--results`/judge-<time>.json.
 *
 * **The pool** is a parameter: `--pool-limit N` results (not bootstrap) and `--pool-floor X` on
 * the confidence (the product's {@link judgePool} with those options; by default the product's
 * pool, 5 and 0.5). `--emit` writes the pool its requests were built with to `--out`/pool.json
 * (`{limit, floor, min_score, id_tag}`; ids `<set>-<id tag>NNN`, `--id-tag`, default none), and
 * `--score` reads it (a directory without one holds requests of the product's pool): the requests
 * are rebuilt with that pool, while the product's judge asks about its own pool, `--pool-limit`
 * and `--pool-floor` (default: the requests'), which must be a part of it (a limit no larger, a
 * floor no lower): the wide requests of bench/data/judge/wide/ (10 results, no floor) score every
 * narrower pool from one set of answers. `--ceilings` (with `--emit`, seen sets only) prints,
 * before writing, each store's ceiling at a few pool settings: the share of aimed prompts whose
 * target (or an `also`) is in the pool, the mean candidates a call and the share of everyday
 * prompts with a call.
 *
 * `--locomo DIR` takes LoCoMo-format conversations as the set instead (bench/data/judge/locomo/,
 * README there; `locomoProbe` below): stored and asked as bench:recall's LoCoMo rows, the plain
 * store only, one request file a conversation; `--score` measures the hook at (5, 0.5) and (10, 0)
 * and the judge's rerank of the `recall` tool's first 10 in one run.
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
  targetsOf,
  UNRUN_SPLITS,
} from "./paraphrase.ts";
import { loadVersion, type OpenVersion, openVersion, type Version } from "./lib/versions.ts";
import { expandWithWorker, loadExpansions } from "./lib/expansion_replay.ts";
import { Rng } from "./capture_data/build.ts";
import type { SearchResult } from "../src/memory/types.ts";
import type { SqlMemoryService } from "../src/memory/service.ts";
import {
  JUDGE_MAX_CANDIDATES,
  JUDGE_POOL_MIN_SCORE,
  JUDGE_RERANK_POOL,
  type JudgeFallback,
  judgePool,
  type JudgePoolOptions,
  judgePoolOptions,
  judgeResults,
  parseJudgeAnswer,
  RecallJudge,
  renderJudgeRequest,
  rerankResults,
} from "../src/memory/judge.ts";
import { anthropicCall } from "../src/capture/model.ts";
import { askedQuestions, type Conversation, importConversations, loadData } from "./locomo.ts";
import { startFakeAnthropic } from "../tests/fakes/anthropic.ts";
import type { DetailNote, DetailRow } from "./lib/judge_detail.ts";

const USAGE = "deno run -A --lock=tests/deno.lock tasks/judge_probe.ts --emit|--score " +
  "[--sets holdout7,holdout8 | --locomo DIR] [--expansions DIR] [--out DIR] [--answers DIR] " +
  "[--results DIR] " +
  "[--pool-limit N] [--pool-floor X] [--id-tag T] [--ceilings] [--detail] [--frozen-run]";
const values = benchArgs(USAGE, {
  emit: { type: "boolean", default: false },
  score: { type: "boolean", default: false },
  sets: { type: "string" },
  locomo: { type: "string" },
  expansions: { type: "string" },
  out: { type: "string" },
  answers: { type: "string" },
  results: { type: "string", default: "bench/results" },
  "pool-limit": { type: "string" },
  "pool-floor": { type: "string" },
  "id-tag": { type: "string", default: "" },
  ceilings: { type: "boolean", default: false },
  detail: { type: "boolean", default: false },
  "frozen-run": { type: "boolean", default: false },
});
if (values.emit === values.score) {
  console.error(`give one of --emit and --score\nusage: ${USAGE}`);
  Deno.exit(2);
}
/** `--locomo DIR`: LoCoMo-format conversations as the set (tasks/locomo.ts), not the paraphrase's. */
const locomoDir = values.locomo;
if (locomoDir !== undefined) {
  for (const flag of ["sets", "expansions", "ceilings", "detail", "frozen-run"] as const) {
    if (values[flag] !== undefined && values[flag] !== false) {
      console.error(
        `--${flag}: not with --locomo (LoCoMo is one set, searched in the plain store)\n` +
          `usage: ${USAGE}`,
      );
      Deno.exit(2);
    }
  }
  if (!locomoDir.trim()) {
    console.error(`--locomo: a folder of LoCoMo-format JSON files is needed\nusage: ${USAGE}`);
    Deno.exit(2);
  }
}
values.expansions ??= "bench/data/expansions-v2";
values.out ??= locomoDir !== undefined ? "bench/data/judge/locomo" : "bench/data/judge";
const sets = locomoDir !== undefined ? [] : (values.sets ?? "holdout7,holdout8").split(",");
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
const answersDir = values.answers ?? values.out!;
if (values.ceilings && (!values.emit || values["frozen-run"])) {
  console.error(
    `--ceilings: with --emit on seen sets only (not with --frozen-run)\nusage: ${USAGE}`,
  );
  Deno.exit(2);
}
if (values.detail && (!values.score || values["frozen-run"])) {
  console.error(
    `--detail: with --score on seen sets only (not with --frozen-run)\nusage: ${USAGE}`,
  );
  Deno.exit(2);
}
if (!/^[a-z]{0,3}$/.test(values["id-tag"]!)) {
  console.error(`--id-tag: ${JSON.stringify(values["id-tag"])}, expected up to 3 letters a-z`);
  Deno.exit(2);
}
/** A number option, or undefined; a clear error when it is not one. */
function numberOption(name: "pool-limit" | "pool-floor"): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const x = Number(v);
  if (!v.trim() || !Number.isFinite(x)) {
    console.error(`--${name}: ${JSON.stringify(v)} is not a number\nusage: ${USAGE}`);
    Deno.exit(2);
  }
  return x;
}
/** The pool of the requests (written by --emit to pool.json, read by --score). */
interface PoolFile {
  limit: number;
  floor: number;
  min_score: number;
  id_tag: string;
}
const asked = { limit: numberOption("pool-limit"), floor: numberOption("pool-floor") };
let requestPool: PoolFile;
/** Where the requests' pool was read (--score): pool.json, or none (the product's pool). */
let poolSource = "/pool.json";
try {
  if (values.emit) {
    requestPool = { ...judgePoolOptions(asked), min_score: JUDGE_POOL_MIN_SCORE, id_tag: "" };
    requestPool.id_tag = values["id-tag"]!;
  } else {
    let file: Partial<PoolFile> = {};
    try {
      file = JSON.parse(await Deno.readTextFile(`${values.out}/pool.json`));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      poolSource = " (no pool.json: the product's pool)";
    }
    requestPool = {
      ...judgePoolOptions({ limit: file.limit, floor: file.floor }),
      min_score: file.min_score ?? JUDGE_POOL_MIN_SCORE,
      id_tag: file.id_tag ?? "",
    };
    if (requestPool.min_score !== JUDGE_POOL_MIN_SCORE) {
      throw new RangeError(
        `${values.out}/pool.json: min_score ${requestPool.min_score}, ` +
          `this tree's pool has ${JUDGE_POOL_MIN_SCORE}`,
      );
    }
  }
} catch (err) {
  console.error(`${(err as Error).message}\nusage: ${USAGE}`);
  Deno.exit(2);
}
/** The pool the product's judge asks about (--score; --emit: the requests'). */
let judgedPool: Required<JudgePoolOptions>;
try {
  judgedPool = judgePoolOptions({
    limit: asked.limit ?? requestPool.limit,
    floor: asked.floor ?? requestPool.floor,
  });
} catch (err) {
  console.error(`${(err as Error).message}\nusage: ${USAGE}`);
  Deno.exit(2);
}
if (judgedPool.limit > requestPool.limit || judgedPool.floor < requestPool.floor) {
  console.error(
    `--pool-limit ${judgedPool.limit} --pool-floor ${judgedPool.floor}: not a part of the ` +
      `requests' pool (${values.out}${poolSource}: limit ${requestPool.limit}, floor ` +
      `${requestPool.floor}); their answers cannot score it`,
  );
  Deno.exit(2);
}
/** The hook's pools `--score --locomo` measures (those within the requests' pool): today's, the widest. */
const LOCOMO_POOLS: Required<JudgePoolOptions>[] = [{ limit: 5, floor: 0.5 }, {
  limit: 10,
  floor: 0,
}];
/**
 * The share of LoCoMo requests rebuilt that may hold other notes than recorded: the HNSW index's
 * neighbours at the pool's edge vary between builds (8–9% of a file's requests between two runs).
 */
const LOCOMO_REBUILT_TOLERANCE = 0.2;
/** The pool settings `--ceilings` prints: (limit, floor). */
const CEILING_POOLS: [number, number][] = [[5, 0.5], [5, 0], [8, 0.3], [8, 0], [10, 0]];

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
type Answers = Record<string, unknown>;

const tree = await loadVersion(new URL("../", import.meta.url), "this tree");
const { recall } = tree.mods;

/** A store's pool for a search's results (the product's {@link judgePool}): set memory id → result. */
function poolOf(
  results: SearchResult[],
  keys: Map<string, string>,
  project: string,
  pool: JudgePoolOptions,
): Map<string, SearchResult> {
  const out = new Map<string, SearchResult>();
  for (const r of judgePool(results, pool)) {
    const id = keys.get(memoryKey(r.memory.scope, project, r.memory.content));
    if (!id) throw new Error(`${project}: a result that is no memory of the set: ${r.memory.id}`);
    out.set(id, r);
  }
  return out;
}

/** The parts of a judge's request text: project, message, the notes' lines (without numbers). */
function readRequest(user: string): { project: string; message: string; notes: string[] } {
  const m = /^Project: (.*)\n\n<message>\n([\s\S]*)\n<\/message>\n\n<notes>\n([\s\S]*)<\/notes>\n$/
    .exec(user);
  if (!m) throw new Error("the fake got a request it cannot read");
  const notes = m[3].split("\n").filter((l) => l).map((l) => l.replace(/^\d+\. /, ""));
  return { project: m[1], message: m[2], notes };
}

/**
 * The scripted model: for a request the product sends, the recorded answer of the emitted request
 * with the same project and message, read as the product reads an answer and restricted to the
 * notes of this request (matched by their lines); an answer that is no judgement is passed on as
 * it is (the product then falls back), and one missing is answered with a text that is none.
 */
function scriptedModel(requests: Request[], answers: Answers) {
  let unseenNotes = 0;
  const byText = new Map<string, { req: Request; notes: Map<string, number> }>();
  for (const req of requests) {
    const read = readRequest(renderJudgeRequest(req.prompt, req.project, req.candidates).user);
    const notes = new Map(read.notes.map((l, i) => [l, i + 1]));
    byText.set(`${read.project}\n${read.message}`, { req, notes });
  }
  const seen = new Set<string>();
  return {
    seen,
    get unseenNotes() {
      return unseenNotes;
    },
    reply(user: string): string {
      const read = readRequest(user);
      const hit = byText.get(`${read.project}\n${read.message}`);
      if (!hit) throw new Error(`no emitted request for a prompt of ${read.project}`);
      seen.add(hit.req.id);
      const entry = answers[hit.req.id];
      if (entry === undefined) return "(no answer recorded)";
      let use: number[];
      try {
        use = parseJudgeAnswer(JSON.stringify(entry), hit.req.candidates.length).map((i) => i + 1);
      } catch {
        return JSON.stringify(entry);
      }
      const numbers = read.notes.map((l) => {
        const n = hit.notes.get(l);
        // A note the recorded request did not hold (results of equal score at the pool's edge are
        // ordered by ids new at each import): the model never saw it, so it is not chosen.
        if (n === undefined) {
          unseenNotes++;
          return 0;
        }
        return n;
      });
      return JSON.stringify({
        use: numbers.flatMap((n, i) => (use.includes(n) ? [i + 1] : [])),
      });
    },
  };
}

/** A prompt's request before the shuffle: the union of its pools, with the set's memory ids. */
interface Draft {
  project: string;
  prompt: string;
  union: SearchResult[];
  ids: string[];
}

/**
 * The requests of `drafts` (shuffled with the seed and `name`, their candidates too), ids
 * `<name>-<id tag>NNN`; each candidate's key the hash of `keySet` and its set's memory id. With
 * `byKey` a draft's candidates are put in the order of their keys before the shuffle, so that the
 * same notes give the same request whatever their rank order (LoCoMo: a conversation is more than
 * a fifth of the store, read through the HNSW index, whose neighbours at the pool's edge vary
 * from one build to the next).
 */
async function buildRequests(
  name: string,
  keySet: string,
  drafts: Draft[],
  byKey = false,
): Promise<Request[]> {
  const rng = new Rng(`${SEED}\n${name}`);
  shuffle(drafts, rng);
  const requests: Request[] = [];
  for (const [i, d] of drafts.entries()) {
    const keys = await Promise.all(d.ids.map((id) => memoryHash(keySet, id)));
    const base = d.union.map((_, j) => j);
    if (byKey) base.sort((a, b) => keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0);
    // byKey: each request's notes shuffled on their own (a request of other notes or of another
    // number of them leaves the others' orders as they were).
    const order = shuffle(base, byKey ? new Rng(`${SEED}\n${name}\n${i}`) : rng);
    if (order.length > JUDGE_MAX_CANDIDATES) throw new Error(`${order.length} candidates`);
    requests.push({
      id: `${name}-${requestPool.id_tag}${String(i + 1).padStart(3, "0")}`,
      project: d.project,
      prompt: d.prompt,
      candidates: order.map((j, k) => ({
        n: k + 1,
        key: keys[j],
        type: d.union[j].memory.type,
        content: d.union[j].memory.content,
      })),
    });
  }
  return requests;
}

/**
 * `--score`: stop unless the requests rebuilt are the ones answered (`--out`/<name>-requests.json:
 * ids, prompts and the same candidates, but for a few ties at the pool's edge) and every answer is
 * of one of them; the number of requests without an answer.
 */
function checkRebuilt(
  name: string,
  requests: Request[],
  emitted: Request[],
  answers: Answers,
  tolerance = 0.05,
) {
  // Their order may differ: results of equal score are ordered by id, and the ids are new at each
  // import; the model's recorded choice is read by the notes' contents, not their numbers.
  const same = (r: Request) =>
    JSON.stringify({
      ...r,
      candidates: r.candidates.map(({ key, type, content }) => ({ key, type, content }))
        .sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    });
  const differ = requests.filter((r, i) => !emitted[i] || same(r) !== same(emitted[i])).length;
  if (requests.length !== emitted.length || differ > tolerance * requests.length) {
    const at = requests.findIndex((r, i) => !emitted[i] || same(r) !== same(emitted[i]));
    throw new Error(
      `${name}: the requests rebuilt differ from ${values.out}/${name}-requests.json ` +
        `(${requests.length} against ${emitted.length}; ${differ} differ, first at ${
          requests[at]?.id ?? emitted[at]?.id ?? "the end"
        }): the answers are of other requests`,
    );
  }
  if (differ) {
    console.log(
      `${name}: ${differ} of ${requests.length} requests rebuilt hold other candidates than ` +
        `recorded (ties, or the HNSW index's neighbours, at the pool's edge); their notes the model never saw count as not chosen`,
    );
  }
  const ids = new Set(requests.map((r) => r.id));
  const extra = Object.keys(answers).filter((k) => !ids.has(k));
  if (extra.length) throw new Error(`${answersDir}/${name}.json: unknown request id ${extra[0]}`);
  return requests.filter((r) => answers[r.id] === undefined).length;
}

/** `--emit`: `--out`/<name>-requests.json, and <name>-requests.md as the model reads them. */
async function writeRequests(name: string, requests: Request[]): Promise<void> {
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
}

/** What one store gave on one set (`--score`). */
interface Tally {
  prompts: number;
  aimed: number;
  everyday: number;
  /** Aimed prompts whose target the plain hook injected, and the hook with the judge. */
  plain_aimed: number;
  judge_aimed: number;
  /** Everyday prompts with anything injected. */
  plain_everyday: number;
  judge_everyday: number;
  /** Aimed prompts whose target is in this store's pool. */
  ceiling: number;
  /** Prompts the model judged, and the ones that fell back, by reason. */
  judged: number;
  fallbacks: Record<JudgeFallback, number>;
  calls: number;
  tokens: number;
}
const tally = (): Tally => ({
  prompts: 0,
  aimed: 0,
  everyday: 0,
  plain_aimed: 0,
  judge_aimed: 0,
  plain_everyday: 0,
  judge_everyday: 0,
  ceiling: 0,
  judged: 0,
  fallbacks: { empty: 0, budget: 0, timeout: 0, error: 0, malformed: 0 },
  calls: 0,
  tokens: 0,
});
function add(into: Tally, t: Tally): void {
  for (const k of Object.keys(t) as (keyof Tally)[]) {
    if (k === "fallbacks") {
      for (const f of Object.keys(t.fallbacks) as JudgeFallback[]) {
        into.fallbacks[f] += t.fallbacks[f];
      }
    } else into[k] += t[k];
  }
}

/** The figures of a tally (rates over the prompts of each kind). */
function figures(t: Tally) {
  const r3 = (x: number) => +x.toFixed(3);
  return {
    aimed: t.aimed,
    everyday: t.everyday,
    plain_aimed_injected: r3(t.plain_aimed / Math.max(1, t.aimed)),
    judge_aimed_injected: r3(t.judge_aimed / Math.max(1, t.aimed)),
    ceiling: r3(t.ceiling / Math.max(1, t.aimed)),
    plain_everyday_injected: r3(t.plain_everyday / Math.max(1, t.everyday)),
    judge_everyday_injected: r3(t.judge_everyday / Math.max(1, t.everyday)),
    judged: t.judged,
    fallbacks: t.fallbacks,
    calls_per_prompt: r3(t.calls / Math.max(1, t.prompts)),
    tokens_per_prompt: Math.round(t.tokens / Math.max(1, t.prompts)),
    tokens_per_call: Math.round(t.tokens / Math.max(1, t.calls)),
  };
}

/** The hook's text for `results` (the hook's defaults): what is injected. */
function hookText(results: SearchResult[], project: string): string {
  return recall.formatRecall(results, {
    project,
    limit: recall.DEFAULT_RECALL_LIMIT,
    maxChars: recall.DEFAULT_RECALL_MAX_CHARS,
    minScore: recall.DEFAULT_MIN_SCORE,
    minConfidence: recall.DEFAULT_MIN_CONFIDENCE,
  });
}

/** A judge on `service`'s budget, its model `fake` (a long time budget: the fake is not timed). */
function judgeOn(o: OpenVersion, fakeUrl: string, pool = judgedPool): RecallJudge {
  return new RecallJudge({
    call: anthropicCall({ baseUrl: fakeUrl, apiKey: FAKE_KEY, model: "recorded" }),
    model: "anthropic/recorded",
    timeoutMs: 30_000,
    dailyTokens: 1e9,
    budget: (o.service as SqlMemoryService).judgeBudget(),
    log: (l) => console.error(l),
    pool,
  });
}
const FAKE_KEY = "sk-ant-api-judge-probe";

/** The pools whose tokens `--detail` estimates a prompt (limit, floor). */
const DETAIL_POOLS: [number, number][] = [[5, 0.5], [5, 0], [8, 0.3], [8, 0], [10, 0]];
/** Results of the agent's search `--detail` reranks with the judge's choice (the tool's K). */
const RERANK_K = JUDGE_RERANK_POOL.limit;
const details: DetailRow[] = [];

/** What the Messages API fake counts for a request and its answer (characters / 4). */
function fakeTokens(req: { system: string; user: string }, answer: string): number {
  const input = Math.ceil(
    JSON.stringify([req.system, [{ role: "user", content: req.user }]]).length / 4,
  );
  return input + Math.max(1, answer.length >> 2);
}

await Deno.mkdir(values.out!, { recursive: true });
const counts = [];
/** `--ceilings`: per set, store (plain, expanded, union) and pool setting. */
interface Ceiling {
  aimed: number;
  in_pool: number;
  everyday: number;
  everyday_calls: number;
  calls: number;
  candidates: number;
}
const scored: Record<string, { plain: Tally; expanded: Tally; missing: number }> = {};
if (locomoDir !== undefined) {
  await locomoProbe(locomoDir);
  Deno.exit(0);
}
for (const name of sets) {
  const set = await loadParaphrase(`bench/data/paraphrase/${name}.json`);
  const ex = await loadExpansions(`${values.expansions}/${name}.json`, set);
  // --score: the emitted requests and the recorded answers, read first; the model answers from them.
  let emitted: Request[] = [];
  let answers: Answers = {};
  let model: ReturnType<typeof scriptedModel> | null = null;
  let fake: ReturnType<typeof startFakeAnthropic> | null = null;
  if (values.score) {
    emitted = JSON.parse(await Deno.readTextFile(`${values.out}/${name}-requests.json`));
    answers = JSON.parse(await Deno.readTextFile(`${answersDir}/${name}.json`));
    const m = scriptedModel(emitted, answers);
    model = m;
    fake = startFakeAnthropic({
      apiKeys: [FAKE_KEY],
      usageFromBody: true,
      reply: (b) => {
        const msgs = b.messages as { content: string }[];
        return m.reply(msgs.at(-1)!.content);
      },
    });
  }
  const t = { plain: tally(), expanded: tally() };
  const drafts: Draft[] = [];
  let empty = 0;
  let plainPool = 0;
  let expandedPool = 0;
  const ceil: Record<string, Ceiling[]> = {};
  for (const store of ["plain", "expanded", "union"]) {
    ceil[store] = CEILING_POOLS.map(() => ({
      aimed: 0,
      in_pool: 0,
      everyday: 0,
      everyday_calls: 0,
      calls: 0,
      candidates: 0,
    }));
  }
  try {
    for (const project of set.projects.map((p) => p.name)) {
      const plain = await openVersion({ ...tree, name: "plain" } as Version);
      const expanded = await openVersion(
        { ...tree, name: "expanded" } as Version,
        { expansion: { dailyTokens: 1e9 } },
      );
      const judges = fake
        ? { plain: judgeOn(plain, fake.url), expanded: judgeOn(expanded, fake.url) }
        : null;
      // --detail: the agent's search reranked by the judge over its first K (the wide pool's).
      const wide = requestPool.limit >= RERANK_K && requestPool.floor === 0;
      const rerankers = fake && values.detail && wide
        ? {
          plain: judgeOn(plain, fake.url, { limit: RERANK_K, floor: 0 }),
          expanded: judgeOn(expanded, fake.url, { limit: RERANK_K, floor: 0 }),
        }
        : null;
      try {
        const keys = {
          plain: await importProject(plain.service, set, project),
          expanded: await importProject(expanded.service, set, project),
        };
        await expandWithWorker(expanded.service as SqlMemoryService, set, ex);
        for (const p of promptsOf(set, name as Split, project)) {
          const hooks = {
            plain: await plain.hook(p.text, project),
            expanded: await expanded.hook(p.text, project),
          };
          const a = poolOf(hooks.plain.results, keys.plain, project, requestPool);
          const b = poolOf(hooks.expanded.results, keys.expanded, project, requestPool);
          if (values.ceilings) {
            const targets = targetsOf(p);
            for (const [i, pool] of CEILING_POOLS.entries()) {
              const o = { limit: pool[0], floor: pool[1] };
              const x = poolOf(hooks.plain.results, keys.plain, project, o);
              const y = poolOf(hooks.expanded.results, keys.expanded, project, o);
              const pools = { plain: x, expanded: y, union: new Map([...x, ...y]) };
              for (const [store, m] of Object.entries(pools)) {
                const c = ceil[store][i];
                if (m.size) {
                  c.calls++;
                  c.candidates += m.size;
                }
                if (targets) {
                  c.aimed++;
                  if ([...m.keys()].some((id) => targets.has(id))) c.in_pool++;
                } else {
                  c.everyday++;
                  if (m.size) c.everyday_calls++;
                }
              }
            }
          }
          plainPool += a.size;
          expandedPool += b.size;
          const union = new Map([...a, ...b]);
          if (union.size) {
            drafts.push({
              project,
              prompt: p.text.trim(),
              ids: [...union.keys()],
              union: [...union.values()],
            });
          } else empty++;
          if (!judges || !fake) continue;
          // The product path, in each store: the judge of the daemon, the hook's formatting.
          const targets = targetsOf(p);
          for (const store of ["plain", "expanded"] as const) {
            const tt = t[store];
            const h = hooks[store];
            // This store's pool as the product's judge builds it (a part of the request's).
            const pool = poolOf(h.results, keys[store], project, judgedPool);
            const idOf = (r: SearchResult) =>
              keys[store].get(memoryKey(r.memory.scope, project, r.memory.content));
            const hits = (text: string, results: SearchResult[]) =>
              results.some((r) => text.includes(r.memory.id) && targets!.has(idOf(r) ?? ""));
            const before = fake.requestsTo("/v1/messages").length;
            let text = "";
            let results = h.results;
            const searched = !(p.text.trim().length < 3 || p.text.trim().startsWith("/"));
            let outcomeName = "not searched";
            let outcomeTokens = 0;
            if (searched) {
              const { results: marked, outcome } = await judgeResults(
                judges[store],
                p.text.trim().slice(0, tree.maxQuery),
                project,
                h.results,
              );
              results = marked;
              text = hookText(results, project);
              tt.tokens += outcome.tokens;
              outcomeTokens = outcome.tokens;
              if ("chosen" in outcome) tt.judged++;
              else tt.fallbacks[outcome.fallback]++;
              outcomeName = "chosen" in outcome ? "chosen" : outcome.fallback;
            }
            tt.calls += fake.requestsTo("/v1/messages").length - before;
            if (values.detail) {
              details.push(
                await detailOf({
                  set: name,
                  project,
                  p,
                  store,
                  searched,
                  hook: h,
                  text,
                  results,
                  outcome: outcomeName,
                  tokens: outcomeTokens,
                  idOf,
                  requests: emitted,
                  answers,
                  reranker: rerankers?.[store] ?? null,
                  tool: store === "plain" ? plain : expanded,
                }),
              );
            }
            tt.prompts++;
            if (targets) {
              tt.aimed++;
              if (hits(h.text, h.results)) tt.plain_aimed++;
              if (hits(text, results)) tt.judge_aimed++;
              if ([...pool.keys()].some((id) => targets.has(id))) tt.ceiling++;
            } else {
              tt.everyday++;
              if (h.text) tt.plain_everyday++;
              if (text) tt.judge_everyday++;
            }
          }
        }
      } finally {
        judges?.plain.close();
        judges?.expanded.close();
        rerankers?.plain.close();
        rerankers?.expanded.close();
        await plain.close();
        await expanded.close();
      }
    }
  } finally {
    await fake?.close();
  }
  const requests = await buildRequests(name, name, drafts);
  if (values.score) {
    const missing = checkRebuilt(name, requests, emitted, answers);
    scored[name] = { ...t, missing };
    console.error(
      `${name}: ${model!.seen.size} of ${requests.length} requests asked by the product`,
    );
    continue;
  }
  if (values.ceilings) printCeilings(name, ceil);
  await writeRequests(name, requests);
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
const poolLine = `requests' pool (${values.out}): the first ${requestPool.limit} results but ` +
  `bootstrap, score ≥ ${JUDGE_POOL_MIN_SCORE}, confidence ≥ ${requestPool.floor}; the judge's ` +
  `pool: ${judgedPool.limit}, confidence ≥ ${judgedPool.floor}; expansions ${values.expansions}`;
if (values.emit) {
  await Deno.writeTextFile(
    `${values.out}/pool.json`,
    JSON.stringify(requestPool, null, 2) + "\n",
  );
  console.log(poolLine);
  console.log(
    "| set | prompts | requests | no candidates | candidates mean | max | plain pool mean | expanded pool mean |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const c of counts) {
    console.log(
      `| ${c.set} | ${c.prompts} | ${c.requests} | ${c.no_candidates} | ${c.candidates_mean} | ${c.candidates_max} | ${c.plain_pool_mean} | ${c.expanded_pool_mean} |`,
    );
  }
} else {
  const rows: { set: string; store: string; figures: ReturnType<typeof figures> }[] = [];
  const pooled = { plain: tally(), expanded: tally() };
  for (const [name, t] of Object.entries(scored)) {
    for (const store of ["plain", "expanded"] as const) {
      rows.push({ set: name, store, figures: figures(t[store]) });
      add(pooled[store], t[store]);
    }
  }
  if (sets.length > 1) {
    for (const store of ["plain", "expanded"] as const) {
      rows.push({ set: "pooled", store, figures: figures(pooled[store]) });
    }
  }
  console.log(poolLine);
  console.log(
    `answers ${answersDir}/<set>.json; tokens: the fake's usage, characters / 4 of the request ` +
      "and of the answer",
  );
  console.log(
    "| set | store | aimed / everyday | aimed injected: plain → judge | pool ceiling | " +
      "everyday injected: plain → judge | judged | fallbacks (empty, malformed, other) | " +
      "calls / prompt | tokens / prompt | tokens / call |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const { set, store, figures: f } of rows) {
    const other = f.fallbacks.budget + f.fallbacks.timeout + f.fallbacks.error;
    console.log(
      `| ${set} | ${store} | ${f.aimed} / ${f.everyday} | ${f.plain_aimed_injected.toFixed(3)} → ` +
        `**${f.judge_aimed_injected.toFixed(3)}** | ${f.ceiling.toFixed(3)} | ` +
        `${f.plain_everyday_injected.toFixed(3)} → **${f.judge_everyday_injected.toFixed(3)}** | ` +
        `${f.judged} | ${f.fallbacks.empty}, ${f.fallbacks.malformed}, ${other} | ` +
        `${f.calls_per_prompt.toFixed(3)} | ${f.tokens_per_prompt} | ${f.tokens_per_call} |`,
    );
  }
  const missing = Object.fromEntries(Object.entries(scored).map(([k, v]) => [k, v.missing]));
  if (Object.values(missing).some((n) => n)) {
    console.log(
      `requests without a recorded answer (the product fell back): ${JSON.stringify(missing)}`,
    );
  }
  await Deno.mkdir(values.results!, { recursive: true });
  const file = `${values.results}/judge-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify(
      {
        task: "tasks/judge_probe.ts --score",
        sets,
        expansions: values.expansions,
        answers: answersDir,
        requests: values.out,
        requests_pool: requestPool,
        pool: { size: judgedPool.limit, min_score: JUDGE_POOL_MIN_SCORE, floor: judgedPool.floor },
        hook_floor: recall.DEFAULT_MIN_CONFIDENCE,
        tokens: "the Messages API fake's usage: characters / 4 of the request and of the answer",
        missing_answers: missing,
        rows,
        ...(values.detail
          ? {
            detail: {
              notes: "per prompt and store: the wide pool (first 10 results but bootstrap, " +
                "score ≥ 0.1): rank among the results but bootstrap, score, confidence, chosen " +
                "(null: not judged), target/also; tokens_at: the judge's call at each pool " +
                "(the fake's count); tool (aimed): the recall tool's hit@5, the first 5 of its " +
                `first ${RERANK_K}, and those ${RERANK_K} reranked with the judge's choice first`,
              prompts: "@PROMPTS@",
            },
          }
          : {}),
      },
      null,
      2,
    ).replace('"@PROMPTS@"', () => `[\n${details.map((d) => JSON.stringify(d)).join(",\n")}\n]`) +
      "\n",
  );
  console.log(`wrote ${file}`);
}

/** `--detail`: one prompt in one store, its wide pool's notes and the agent's search reranked. */
async function detailOf(a: {
  set: string;
  project: string;
  p: { id: string; text: string; target: string | null; also?: string[] };
  store: "plain" | "expanded";
  searched: boolean;
  hook: { text: string; results: SearchResult[] };
  text: string;
  results: SearchResult[];
  outcome: string;
  tokens: number;
  idOf: (r: SearchResult) => string | undefined;
  requests: Request[];
  answers: Answers;
  reranker: RecallJudge | null;
  tool: OpenVersion;
}): Promise<DetailRow> {
  const { p, idOf } = a;
  const targets = targetsOf(p as Parameters<typeof targetsOf>[0]);
  const isTarget = (r: SearchResult) => targets !== null && targets.has(idOf(r) ?? "");
  const rankOf = new Map(
    a.hook.results.filter((r) => r.memory.type !== "bootstrap").map((r, i) => [r.memory.id, i + 1]),
  );
  const marked = new Map(a.results.map((r) => [r.memory.id, r.chosen]));
  const wide = judgePool(a.hook.results, { limit: 10, floor: 0 });
  const notes: DetailNote[] = wide.map((r) => ({
    rank: rankOf.get(r.memory.id)!,
    score: +r.score.toFixed(4),
    confidence: +(r.confidence ?? 0).toFixed(4),
    chosen: marked.get(r.memory.id) ?? null,
    target: p.target !== null && idOf(r) === p.target,
    also: (p.also ?? []).includes(idOf(r) ?? ""),
  }));
  const tokensAt: Record<string, number> = {};
  for (const [limit, floor] of DETAIL_POOLS) {
    const pool = a.searched ? judgePool(a.hook.results, { limit, floor }) : [];
    if (!pool.length) {
      tokensAt[`${limit},${floor}`] = 0;
      continue;
    }
    const req = renderJudgeRequest(
      a.p.text.trim().slice(0, tree.maxQuery),
      a.project,
      pool.map((r) => ({ type: r.memory.type, content: r.memory.content })),
    );
    const use = pool.flatMap((r, i) => (marked.get(r.memory.id) ? [i + 1] : []));
    tokensAt[`${limit},${floor}`] = fakeTokens(req, JSON.stringify({ use }));
  }
  const row: DetailRow = {
    set: a.set,
    project: a.project,
    prompt: p.id,
    kind: targets ? "aimed" : "everyday",
    store: a.store,
    searched: a.searched,
    plain_injected: a.hook.text !== "",
    plain_hit: a.hook.results.some((r) => a.hook.text.includes(r.memory.id) && isTarget(r)),
    outcome: a.outcome,
    judge_injected: a.text !== "",
    judge_hit: a.results.some((r) => a.text.includes(r.memory.id) && isTarget(r)),
    tokens: a.tokens,
    notes,
    tokens_at: tokensAt,
  };
  if (targets) {
    const top5 = await a.tool.recall(p.text, a.project, 5);
    const topK = await a.tool.recall(p.text, a.project, RERANK_K);
    let rerank: boolean | null = null;
    let chosen: number[] = [];
    if (a.reranker) {
      // The product's rerank (the Admin API's `"rerank": true`), over the tool's first K.
      const { results: order } = await rerankResults(
        a.reranker,
        p.text.trim().slice(0, tree.maxQuery),
        a.project,
        topK,
        RERANK_K,
      );
      const picked = new Set(order.filter((r) => r.chosen).map((r) => r.memory.id));
      chosen = topK.flatMap((r, i) => (picked.has(r.memory.id) ? [i + 1] : []));
      rerank = order.slice(0, 5).some(isTarget);
    }
    row.tool = {
      hit5: top5.slice(0, 5).some(isTarget),
      hit5_of_k: topK.slice(0, 5).some(isTarget),
      rerank_hit5: rerank,
      chosen,
    };
  }
  return row;
}

/** The `--ceilings` table of one set (seen sets only: it reads the labels). */
function printCeilings(set: string, ceil: Record<string, Ceiling[]>): void {
  const r3 = (x: number, n: number) => (x / Math.max(1, n)).toFixed(3);
  console.log(
    `${set}: ceiling (aimed prompts whose target or an also is in the pool) / mean candidates a ` +
      "call / everyday prompts with a call",
  );
  console.log("| pool (limit, floor) | plain | expanded | union (a wide request) |");
  console.log("|---|---|---|---|");
  for (const [i, [limit, floor]] of CEILING_POOLS.entries()) {
    const cells = ["plain", "expanded", "union"].map((store) => {
      const c = ceil[store][i];
      return `${r3(c.in_pool, c.aimed)} / ${(c.candidates / Math.max(1, c.calls)).toFixed(2)} / ` +
        r3(c.everyday_calls, c.everyday);
    });
    console.log(`| (${limit}, ${floor}) | ${cells.join(" | ")} |`);
  }
  const c = ceil.plain[0];
  console.log(`${set}: ${c.aimed} aimed, ${c.everyday} everyday prompts`);
}

/** What the agent's search gave on one conversation (`--score --locomo`). */
interface ToolTally {
  questions: number;
  /** Questions with an evidence turn among the tool's first 5, and after the judge's rerank. */
  hit5: number;
  rerank_hit5: number;
  judged: number;
  fallbacks: Record<JudgeFallback, number>;
  calls: number;
  tokens: number;
}

/**
 * `--locomo DIR`: the LoCoMo conversations of DIR as one set, stored and asked as
 * tasks/bench_recall.ts stores and asks them (tasks/lib/versions.ts `locomoRows`): one store of
 * this tree, every turn one memory, one project per conversation. Each question is a hook prompt
 * from its own conversation's project (positive: a hit when an evidence turn is injected) and
 * from the next conversation's (negative: anything injected counts), and the `recall` tool's
 * query in its own project (hit@5: an evidence turn among its first 5). Requests over the plain
 * store's pool (no expansion), one file a conversation of the question (`locomo-<n>`, n its place
 * in DIR's sorted files), positives and negatives mixed; a (project, message) asked twice gets one
 * request. `--score` replays the answers through the product's judge at each of
 * {@link LOCOMO_POOLS} (or the one `--pool-limit`/`--pool-floor` name) and its rerank of the
 * tool's first 10 (`rerankResults`, as the Admin API's search with `"rerank": true`).
 */
async function locomoProbe(dir: string): Promise<void> {
  let convs: Conversation[];
  try {
    convs = await loadData(dir);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    console.error(`--locomo ${dir}: no such folder\nusage: ${USAGE}`);
    Deno.exit(2);
  }
  if (!convs.length) {
    console.error(`--locomo ${dir}: no LoCoMo-format .json file in it\nusage: ${USAGE}`);
    Deno.exit(2);
  }
  const names = convs.map((_, i) => `locomo-${i + 1}`);
  const scoredPools = asked.limit !== undefined || asked.floor !== undefined
    ? [judgedPool]
    : LOCOMO_POOLS.filter((p) => p.limit <= requestPool.limit && p.floor >= requestPool.floor);
  const wide = requestPool.limit >= JUDGE_RERANK_POOL.limit &&
    requestPool.floor <= JUDGE_RERANK_POOL.floor;
  // --score: every file's requests and answers, read first; one scripted model answers them all.
  const emitted: Record<string, Request[]> = {};
  const answers: Record<string, Answers> = {};
  let fake: ReturnType<typeof startFakeAnthropic> | null = null;
  let model: ReturnType<typeof scriptedModel> | null = null;
  if (values.score) {
    for (const name of names) {
      emitted[name] = JSON.parse(await Deno.readTextFile(`${values.out}/${name}-requests.json`));
      answers[name] = JSON.parse(await Deno.readTextFile(`${answersDir}/${name}.json`));
    }
    const m = scriptedModel(
      Object.values(emitted).flat(),
      Object.assign({}, ...Object.values(answers)),
    );
    model = m;
    fake = startFakeAnthropic({
      apiKeys: [FAKE_KEY],
      usageFromBody: true,
      reply: (b) => m.reply((b.messages as { content: string }[]).at(-1)!.content),
    });
  }
  const o = await openVersion({ ...tree, name: "plain" } as Version);
  const hook = names.map(() => scoredPools.map(() => tally()));
  const tool: ToolTally[] = names.map(() => ({
    questions: 0,
    hit5: 0,
    rerank_hit5: 0,
    judged: 0,
    fallbacks: { empty: 0, budget: 0, timeout: 0, error: 0, malformed: 0 },
    calls: 0,
    tokens: 0,
  }));
  const drafts: Draft[][] = names.map(() => []);
  const empty = names.map(() => 0);
  const repeated = names.map(() => 0);
  const asks = new Set<string>();
  try {
    const idsOf = await importConversations(o.service, convs);
    const judges = fake ? scoredPools.map((p) => judgeOn(o, fake!.url, p)) : [];
    const reranker = fake && wide ? judgeOn(o, fake.url) : null;
    const calls = () => fake!.requestsTo("/v1/messages").length;
    try {
      for (const [ci, c] of convs.entries()) {
        const next = convs[(ci + 1) % convs.length];
        for (const q of askedQuestions(c)) {
          const evidence = new Set(q.evidence);
          const isEvidence = (project: string, r: SearchResult) =>
            project === c.name &&
            (idsOf.get(`${c.name}\n${r.memory.content}`) ?? []).some((d) => evidence.has(d));
          const message = q.question.trim().slice(0, tree.maxQuery);
          const searched = !(message.length < 3 || message.startsWith("/"));
          if (fake) {
            // The agent's search: today's first 5, and its first 10 with the judge's choice first.
            const tt = tool[ci];
            tt.questions++;
            const top5 = await o.recall(q.question, c.name, 5);
            if (top5.slice(0, 5).some((r) => isEvidence(c.name, r))) tt.hit5++;
            if (reranker) {
              const top10 = await o.recall(q.question, c.name, JUDGE_RERANK_POOL.limit);
              const before = calls();
              const { results, outcome } = await rerankResults(
                reranker,
                message,
                c.name,
                top10,
                5,
              );
              tt.calls += calls() - before;
              tt.tokens += outcome.tokens;
              if ("chosen" in outcome) tt.judged++;
              else tt.fallbacks[outcome.fallback]++;
              if (results.some((r) => isEvidence(c.name, r))) tt.rerank_hit5++;
            }
          }
          for (const project of [c.name, next.name]) {
            const positive = project === c.name;
            const h = await o.hook(q.question, project);
            const ask = `${project}\n${message}`;
            const pool = searched ? judgePool(h.results, requestPool) : [];
            if (!pool.length) empty[ci]++;
            else if (asks.has(ask)) repeated[ci]++;
            else {
              drafts[ci].push({
                project,
                prompt: message,
                union: pool,
                ids: pool.map((r) => `${project}\n${r.memory.content}`),
              });
            }
            asks.add(ask);
            if (!fake) continue;
            for (const [pi, p] of scoredPools.entries()) {
              const tt = hook[ci][pi];
              let text = "";
              if (searched) {
                const before = calls();
                const { results, outcome } = await judgeResults(
                  judges[pi],
                  message,
                  project,
                  h.results,
                );
                tt.calls += calls() - before;
                tt.tokens += outcome.tokens;
                if ("chosen" in outcome) tt.judged++;
                else tt.fallbacks[outcome.fallback]++;
                text = hookText(results, project);
                if (
                  positive &&
                  results.some((r) => text.includes(r.memory.id) && isEvidence(project, r))
                ) {
                  tt.judge_aimed++;
                }
              }
              tt.prompts++;
              if (positive) {
                tt.aimed++;
                if (h.results.some((r) => h.text.includes(r.memory.id) && isEvidence(project, r))) {
                  tt.plain_aimed++;
                }
                if (judgePool(h.results, p).some((r) => isEvidence(project, r))) tt.ceiling++;
              } else {
                tt.everyday++;
                if (h.text) tt.plain_everyday++;
                if (text) tt.judge_everyday++;
              }
            }
          }
        }
      }
    } finally {
      for (const j of judges) j.close();
      reranker?.close();
    }
  } finally {
    await o.close();
    await fake?.close();
  }
  const requests: Record<string, Request[]> = {};
  for (const [ci, name] of names.entries()) {
    requests[name] = await buildRequests(name, "locomo", drafts[ci], true);
  }
  const poolLine = `requests' pool (${values.out}): the first ${requestPool.limit} results but ` +
    `bootstrap, score ≥ ${JUDGE_POOL_MIN_SCORE}, confidence ≥ ${requestPool.floor}; the plain ` +
    `store (no expansion); LoCoMo ${dir}: ${
      convs.map((c, i) => `${names[i]} = ${c.name}`).join(", ")
    }`;
  if (values.emit) {
    const rows = names.map((name, ci) => {
      const sizes = requests[name].map((r) => r.candidates.length);
      return {
        file: name,
        prompts: 2 * askedQuestions(convs[ci]).length,
        requests: sizes.length,
        no_candidates: empty[ci],
        asked_before: repeated[ci],
        candidates_mean: +(sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length)).toFixed(2),
        candidates_max: Math.max(0, ...sizes),
      };
    });
    for (const name of names) await writeRequests(name, requests[name]);
    await Deno.writeTextFile(
      `${values.out}/pool.json`,
      JSON.stringify(requestPool, null, 2) + "\n",
    );
    console.log(poolLine);
    console.log(
      "| file | prompts | requests | no candidates | asked before | candidates mean | max |",
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const r of rows) {
      console.log(
        `| ${r.file} | ${r.prompts} | ${r.requests} | ${r.no_candidates} | ${r.asked_before} | ` +
          `${r.candidates_mean} | ${r.candidates_max} |`,
      );
    }
    return;
  }
  const missing: Record<string, number> = {};
  for (const name of names) {
    missing[name] = checkRebuilt(
      name,
      requests[name],
      emitted[name],
      answers[name],
      LOCOMO_REBUILT_TOLERANCE,
    );
  }
  console.error(
    `${model!.seen.size} of ${Object.values(requests).flat().length} requests asked by the product`,
  );
  if (model!.unseenNotes) {
    console.log(`${model!.unseenNotes} notes asked about were not in their recorded request`);
  }
  const r3 = (x: number, n: number) => +(x / Math.max(1, n)).toFixed(3);
  const hookRows: {
    conversation: string;
    pool: Required<JudgePoolOptions>;
    figures: ReturnType<typeof hookFigures>;
  }[] = [];
  const toolRows: { conversation: string; figures: ReturnType<typeof toolFigures> }[] = [];
  function hookFigures(t: Tally) {
    const f = figures(t);
    return {
      positives: f.aimed,
      negatives: f.everyday,
      plain_positive_hit: f.plain_aimed_injected,
      judge_positive_hit: f.judge_aimed_injected,
      ceiling: f.ceiling,
      plain_negatives_injected: f.plain_everyday_injected,
      judge_negatives_injected: f.judge_everyday_injected,
      judged: f.judged,
      fallbacks: f.fallbacks,
      calls_per_prompt: f.calls_per_prompt,
      tokens_per_prompt: f.tokens_per_prompt,
      tokens_per_call: f.tokens_per_call,
    };
  }
  function toolFigures(t: ToolTally) {
    return {
      questions: t.questions,
      hit5: r3(t.hit5, t.questions),
      rerank_hit5: reranker(t),
      judged: t.judged,
      fallbacks: t.fallbacks,
      calls_per_question: r3(t.calls, t.questions),
      tokens_per_question: Math.round(t.tokens / Math.max(1, t.questions)),
    };
  }
  const reranker = (t: ToolTally) => (wide ? r3(t.rerank_hit5, t.questions) : null);
  const labels = [...names.map((n, i) => `${n} (${convs[i].name})`), "pooled"];
  for (const [pi, pool] of scoredPools.entries()) {
    const all = tally();
    for (const [ci] of names.entries()) {
      hookRows.push({ conversation: labels[ci], pool, figures: hookFigures(hook[ci][pi]) });
      add(all, hook[ci][pi]);
    }
    hookRows.push({ conversation: "pooled", pool, figures: hookFigures(all) });
  }
  const allTool: ToolTally = {
    ...tool[0],
    fallbacks: { ...tool[0].fallbacks },
  };
  for (const t of tool.slice(1)) {
    for (const k of ["questions", "hit5", "rerank_hit5", "judged", "calls", "tokens"] as const) {
      allTool[k] += t[k];
    }
    for (const f of Object.keys(t.fallbacks) as JudgeFallback[]) {
      allTool.fallbacks[f] += t.fallbacks[f];
    }
  }
  for (const [ci] of names.entries()) {
    toolRows.push({ conversation: labels[ci], figures: toolFigures(tool[ci]) });
  }
  toolRows.push({ conversation: "pooled", figures: toolFigures(allTool) });
  console.log(poolLine);
  console.log(
    `answers ${answersDir}/<file>.json; hook floor ${recall.DEFAULT_MIN_CONFIDENCE} (plain); ` +
      "tokens: the fake's usage, characters / 4 of the request and of the answer",
  );
  console.log(
    "| conversation | pool (limit, floor) | positives / negatives | positive hit: plain → judge | " +
      "pool ceiling | negatives injected: plain → judge | judged | fallbacks (empty, malformed, " +
      "other) | calls / prompt | tokens / prompt |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const { conversation, pool, figures: f } of hookRows) {
    const other = f.fallbacks.budget + f.fallbacks.timeout + f.fallbacks.error;
    console.log(
      `| ${conversation} | (${pool.limit}, ${pool.floor}) | ${f.positives} / ${f.negatives} | ` +
        `${f.plain_positive_hit.toFixed(3)} → **${f.judge_positive_hit.toFixed(3)}** | ` +
        `${f.ceiling.toFixed(3)} | ${f.plain_negatives_injected.toFixed(3)} → ` +
        `**${f.judge_negatives_injected.toFixed(3)}** | ${f.judged} | ${f.fallbacks.empty}, ` +
        `${f.fallbacks.malformed}, ${other} | ${f.calls_per_prompt.toFixed(3)} | ` +
        `${f.tokens_per_prompt} |`,
    );
  }
  console.log(
    "\n| conversation | questions | tool hit@5: today → reranked (first 10, chosen first) | " +
      "judged | fallbacks (empty, malformed, other) | calls / question | tokens / question |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const { conversation, figures: f } of toolRows) {
    const other = f.fallbacks.budget + f.fallbacks.timeout + f.fallbacks.error;
    console.log(
      `| ${conversation} | ${f.questions} | ${f.hit5.toFixed(3)} → **${
        f.rerank_hit5?.toFixed(3) ?? "n/a (requests' pool narrower than 10, 0)"
      }** | ${f.judged} | ${f.fallbacks.empty}, ${f.fallbacks.malformed}, ${other} | ` +
        `${f.calls_per_question.toFixed(3)} | ${f.tokens_per_question} |`,
    );
  }
  if (Object.values(missing).some((n) => n)) {
    console.log(
      `requests without a recorded answer (the product fell back): ${JSON.stringify(missing)}`,
    );
  }
  await Deno.mkdir(values.results!, { recursive: true });
  const file = `${values.results}/judge-locomo-${
    new Date().toISOString().replace(/[:.]/g, "-")
  }.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify(
      {
        task: "tasks/judge_probe.ts --score --locomo",
        locomo: dir,
        conversations: Object.fromEntries(convs.map((c, i) => [names[i], c.name])),
        answers: answersDir,
        requests: values.out,
        requests_pool: requestPool,
        store: "plain (no expansion)",
        hook_floor: recall.DEFAULT_MIN_CONFIDENCE,
        tokens: "the Messages API fake's usage: characters / 4 of the request and of the answer",
        missing_answers: missing,
        unseen_notes: model!.unseenNotes,
        hook: hookRows,
        tool: toolRows,
      },
      null,
      2,
    ) + "\n",
  );
  console.log(`wrote ${file}`);
}
