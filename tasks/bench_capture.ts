/**
 * `deno task bench:capture [--data DIR] [--split dev|test|holdout|holdout2|holdout3|holdout4|holdout5|holdout6|holdout7|holdout8|holdout9|holdout10|holdout11|holdout12|holdout13|holdout14|holdout15|holdout16|tuning|all] [--frozen-run] [--baseline DIR]`:
 * the offline extractor over
 * the labelled sessions of DIR (default bench/data/capture/, see its README.md), through the
 * whole pipeline (transcript reader, extractor, secret guard, near-duplicate check against
 * each session's `stored` memories, in a {@link MemoryCaptureSink}). A candidate matches a
 * `durable` label of its event (the assistant's event for a confirmed agent statement); any
 * other candidate is junk. Reports precision and recall (labels that repeat a stored memory
 * are left out of recall: proposing them is a duplicate), duplicates proposed, secrets and
 * private texts that got through, against "before: nothing captured". Also the calibration of
 * the candidates' confidences: precision by confidence bucket, precision and recall of the
 * candidates at or above the auto-accept floors, the recommended floor (the lowest where
 * precision is ≥ 0.97), and the rules alone (the candidate generator without its loose sentences
 * and without the scorer of src/capture/scorer.ts: `ruleCandidates`): their precision, recall and
 * precision by extractor rule (what src/capture/calibration.ts is set from). Prints the tables and writes bench/results/capture-<split>-<date>.json. Targets:
 * precision ≥ 0.90, recall ≥ 0.60, 0 secrets, 0 duplicates.
 *
 * With `--model-answers DIR`, the model path (src/capture/model.ts) is measured too, beside the
 * offline extractor and with the same scorer: each session through the same pipeline and stored
 * memories, the product's client at the Messages API fake, which answers each request with a real
 * model's answer recorded in `DIR/<split>.json` (`{"<request id>": "<answer text>"}`), the request
 * found by the SHA-256 of its system and user texts in `<split>-keys.json` of `--model-requests`
 * (default bench/data/capture-model/, written by `deno task requests:capture`; its README.md).
 * A request with no recorded answer, or one not among the recorded requests, is an error. Its
 * tokens are the fake's counts (characters of the request / 4 in, of the answer / 4 out).
 *
 * Splits: `dev`, `test` and `holdout` are the tuning data (`holdout` was written by someone who
 * did not see the extractor and run once as frozen data, then used for tuning from 2026-11-29
 * 03:15); `holdout2` is the frozen split that replaced it (run once at 03:50; since 05:20 the
 * scorer is fitted on it with the others, deno task fit:capture); `holdout3` the frozen split
 * that replaced it (run once at 06:00; since 06:10 the scorer is fitted on it too, a fifth
 * fold), `holdout4` a second one written beside it (run once at 06:13, fitting data since),
 * `holdout5` the next (run once at 06:45; fitting data since 0.18), `holdout6` the one after it
 * (written blind on 2026-11-29 from 08:17, run once at 08:49; `--frozen-run` guards a split not
 * run yet: add the next one to `UNRUN` in tasks/capture_splits.ts), `holdout7` and `holdout8` the next (written blind from
 * 08:50 and 09:20, mostly repeats of stored memories and changes to them; run once at 09:22 and
 * 09:35), `holdout9` the next (written blind from 10:28, half with stored memories; run once
 * at 11:56 with 0.19), `holdout10` the next (registered unrun on 2026-11-29 at 13:24, before it was
 * written; run once at 14:43 with 0.20), `holdout11` the next (registered unrun on 2026-11-29 at
 * 16:05, before it was written; run once at 16:42 with 0.21), `holdout12` the next (registered
 * unrun at 16:45, before it was written; run once at 17:00 with 0.21), `holdout13` the next
 * (registered unrun on 2026-11-29 at 18:43, before it was written; run once at 19:59 with 0.22),
 * `holdout14` the next (registered unrun on 2026-11-29 at 20:04, before it was written; run once at
 * 20:10 with 0.22), `holdout15` the next (registered unrun on 2026-11-29 at 20:12, before it was
 * written; run once at 20:21 with 0.22), `holdout16` the next (registered unrun on 2026-11-29 at
 * 21:17, before it was written; run once at 21:47 with 0.23, the model path with recorded
 * answers beside the offline extractor);
 * `tuning` is dev + test + holdout + holdout2 (the same sessions as
 * before holdout3 joined the fit, so that its runs compare); `all` is every session.
 */
import { benchArgs } from "./lib/args.ts";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Hono } from "hono";
import {
  type Extractor,
  MemoryCaptureSink,
  type Proposal,
  runCapture,
} from "../src/capture/pipeline.ts";
import { ruleCandidates } from "../src/capture/extract.ts";
import {
  anthropicCall,
  modelExtractor,
  type ModelStats,
  TokenBudget,
} from "../src/capture/model.ts";
import { readTranscript } from "../src/capture/transcript.ts";
import { CaptureQueue, captureRoute } from "../src/capture/route.ts";
import { startFakeAnthropic } from "../tests/fakes/anthropic.ts";
import { installCommands, toolEnv } from "../tests/helpers/install.ts";
import { overlap } from "../src/capture/dedupe.ts";
import { calibrated, RULE_COUNTS } from "../src/capture/calibration.ts";
import { ROOT, writeBenchResult } from "./entrypoints.ts";
import { UNRUN } from "./capture_splits.ts";
import { MODEL_DIR, requestKey, startModelPath, startStoredSearch } from "./lib/capture_model.ts";

const values = benchArgs(
  "deno task bench:capture [--data DIR] [--split NAME|tuning|all] [--frozen-run] [--baseline DIR] [--model-answers DIR] [--model-requests DIR] [--verbose] [--hook-runs 20]",
  {
    "model-answers": { type: "string" },
    "model-requests": { type: "string", default: MODEL_DIR },
    data: { type: "string", default: join(ROOT, "bench/data/capture") },
    split: { type: "string", default: "dev" },
    verbose: { type: "boolean", default: false },
    "hook-runs": { type: "string", default: "20" },
    baseline: { type: "string" },
    "frozen-run": { type: "boolean", default: false },
  },
);
const SPLITS = [
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
  "holdout12",
  "holdout13",
  "holdout14",
  "holdout15",
  "holdout16",
  "tuning",
  "all",
];
if (UNRUN.includes(values.split!) && !values["frozen-run"]) {
  console.error(
    `--split ${values.split} is a frozen split not run yet: add --frozen-run to run it (once)`,
  );
  Deno.exit(2);
}
/**
 * The splits the extractor was tuned on (`holdout` since 2026-11-29 03:15, `holdout2`, the
 * learned scorer's fit, since 05:40 that day).
 */
const TUNING = ["dev", "test", "holdout", "holdout2"];
if (!SPLITS.includes(values.split!)) {
  console.error(`--split must be one of ${SPLITS.join(", ")}`);
  Deno.exit(2);
}
/** Whether a session's split is in the one asked for. */
const inSplit = (split: string) =>
  values.split === "all" && !UNRUN.includes(split) || split === values.split ||
  values.split === "tuning" && TUNING.includes(split);

interface Durable {
  uuid: string;
  text: string;
  kind: string;
  scope: string;
  duplicate_of?: string;
  contains_secret?: boolean;
}
interface Session {
  file: string;
  session_id: string;
  split: string;
  project: string;
  cwd: string;
  stored: string[];
  durable: Durable[];
  not_durable: { uuid: string; why: string }[];
  secrets: string[];
  private_texts: string[];
  duplicates_of_stored: { uuid: string; stored: string }[];
}

const labels = JSON.parse(await Deno.readTextFile(join(values.data!, "labels.json"))) as {
  sessions: Session[];
};
const sessions = labels.sessions.filter((s) => inSplit(s.split));
if (!sessions.length) {
  console.error(`no session of the split ${values.split} in ${values.data}/labels.json`);
  Deno.exit(2);
}

type Pipeline = { runCapture: typeof runCapture; MemoryCaptureSink: typeof MemoryCaptureSink };

/**
 * The extractor of `pipe` over the sessions, scored against the labels; `sinkOf` gives a
 * session's sink (default: its stored memories in `pipe`'s MemoryCaptureSink).
 */
async function score(
  pipe: Pipeline,
  extractor?: Extractor,
  sinkOf?: (s: Session) => Promise<MemoryCaptureSink>,
) {
  let tp = 0, fp = 0, durableTotal = 0, durableFound = 0, dupProposed = 0, dupOpportunities = 0;
  let secretsThrough = 0, privateThrough = 0, secretsTotal = 0;
  const junk: { file: string; why: string; text: string; rule: string }[] = [];
  const missed: { file: string; text: string }[] = [];
  /** Each proposal's rule and confidence, and whether it matched a durable label. */
  const scored: { rule: string; confidence: number; tp: boolean }[] = [];
  const t0 = performance.now();
  for (const s of sessions) {
    const sink = sinkOf
      ? await sinkOf(s)
      : new pipe.MemoryCaptureSink(s.stored.map((text) => ({ text, project: s.project })));
    await pipe.runCapture(
      {
        sessionId: s.session_id,
        transcriptPath: join(values.data!, s.file),
        cwd: s.cwd,
        event: "Stop",
      },
      sink,
      { project: () => Promise.resolve(s.project), ...(extractor ? { extractor } : {}) },
    );
    const proposals: Proposal[] = sink.proposals;
    const dupUuids = new Set([
      ...s.duplicates_of_stored.map((d) => d.uuid),
      ...s.durable.filter((d) => d.duplicate_of).map((d) => d.uuid),
    ]);
    dupOpportunities += dupUuids.size;
    const open = s.durable.filter((d) => !d.duplicate_of);
    durableTotal += open.length;
    const why = new Map(s.not_durable.map((n) => [n.uuid, n.why]));
    for (const p of proposals) {
      for (const sec of s.secrets) if (p.text.includes(sec)) secretsThrough++;
      for (const pt of s.private_texts) {
        if (pt.length > 8 && overlap(p.text, pt) >= 0.6) privateThrough++;
      }
      const uuid = p.provenance.uuid;
      const cands = open.map((d, i) => ({ d, i })).filter(({ d }) => d.uuid === uuid);
      if (cands.length) {
        cands.sort((a, b) => overlap(p.text, b.d.text) - overlap(p.text, a.d.text));
        open.splice(cands[0].i, 1);
        scored.push({ rule: p.rule, confidence: p.confidence, tp: true });
        tp++;
        durableFound++;
      } else if (dupUuids.has(uuid)) {
        scored.push({ rule: p.rule, confidence: p.confidence, tp: false });
        dupProposed++;
        fp++;
        junk.push({ file: s.file, why: "duplicate", text: p.text, rule: p.rule });
      } else {
        scored.push({ rule: p.rule, confidence: p.confidence, tp: false });
        fp++;
        junk.push({ file: s.file, why: why.get(uuid) ?? "unlabelled", text: p.text, rule: p.rule });
      }
    }
    secretsTotal += s.secrets.length;
    for (const d of open) missed.push({ file: s.file, text: d.text });
  }
  const ms = performance.now() - t0;
  return {
    tp,
    fp,
    precision: tp + fp ? tp / (tp + fp) : 1,
    recall: durableTotal ? durableFound / durableTotal : 0,
    durableTotal,
    dupProposed,
    dupOpportunities,
    secretsThrough,
    secretsTotal,
    privateThrough,
    junk,
    missed,
    scored,
    ms,
  };
}

const after = await score({ runCapture, MemoryCaptureSink });
// The rules alone (the candidate generator without its loose sentences and without the scorer),
// each candidate with its rule's calibrated confidence: what calibration.ts is counted on.
const rulesAlone = await score(
  { runCapture, MemoryCaptureSink },
  (turns) => Promise.resolve(ruleCandidates(turns)),
);
const { tp, fp, durableTotal, dupProposed, dupOpportunities, secretsThrough, secretsTotal } = after;
const { privateThrough, junk, missed, ms } = after;
// The baseline: another tree's pipeline (e.g. `git archive <commit> | tar -x -C DIR`), scored
// in the same run.
const base = values.baseline
  ? await score(
    await import(
      pathToFileURL(resolve(values.baseline, "src/capture/pipeline.ts")).href
    ) as Pipeline,
  )
  : null;

// The model path: each session through the Messages API fake (API key), whose answers replay
// the session's labelled durable statements (a perfect model's output) and whose usage counts
// the request's characters / 4; its stored memories searched as the product searches them (the
// request lists the nearest).
const replies = new Map<string, string>();
const fake = startFakeAnthropic({
  apiKeys: ["bench-key"],
  usageFromBody: true,
  reply: (body) => {
    void body;
    return replies.get("current") ?? '{"memories": []}';
  },
});
const perSession: number[] = [];
const storedSearch = await startStoredSearch();
for (const s of sessions) {
  const path = join(values.data!, s.file);
  const { turns } = await readTranscript(path, null);
  const memories = s.durable.map((d) => {
    const i = turns.findIndex((t) => t.uuid === d.uuid);
    return i < 0 ? null : {
      text: d.text,
      type: d.kind === "preference" ? "feedback" : d.kind,
      scope: d.scope,
      confidence: 0.9,
      source: `m${i + 1}`,
    };
  }).filter(Boolean);
  replies.set("current", JSON.stringify({ memories }));
  const stats: ModelStats = { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
  const extractor = modelExtractor(
    anthropicCall({ baseUrl: fake.url, apiKey: "bench-key", model: "claude-haiku-4-5" }),
    new TokenBudget(1_000_000, 1_000_000),
    { stats },
  );
  await runCapture(
    { sessionId: s.session_id, transcriptPath: path, cwd: s.cwd, event: "Stop" },
    await storedSearch.sinkFor(s),
    { project: () => Promise.resolve(s.project), extractor },
  );
  perSession.push(stats.tokens);
}
await fake.close();
await storedSearch.close();

// The model path with recorded answers (--model-answers), scored as the offline extractor is.
const modelRun = values["model-answers"]
  ? await recordedModelRun(values["model-answers"]).catch((err) => {
    console.error(`bench:capture: --model-answers: ${(err as Error).message}`);
    Deno.exit(2);
  })
  : null;

/** A JSON file of string values (an error naming the file and the field otherwise). */
async function readStrings(file: string, what: string): Promise<Record<string, string>> {
  let j: unknown;
  try {
    j = JSON.parse(await Deno.readTextFile(file));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  if (!j || typeof j !== "object" || Array.isArray(j)) {
    throw new Error(`${file}: expected an object of ${what}`);
  }
  for (const [k, v] of Object.entries(j)) {
    if (typeof v !== "string") throw new Error(`${file}: "${k}": expected ${what} (a string)`);
  }
  return j as Record<string, string>;
}

/** The sessions through the model path, its answers replayed from `dir`, scored. */
async function recordedModelRun(dir: string) {
  const answerOf = new Map<string, string>();
  const missing: string[] = [];
  for (const split of [...new Set(sessions.map((s) => s.split))]) {
    const keysFile = join(values["model-requests"]!, `${split}-keys.json`);
    const keys = await readStrings(keysFile, "request keys").catch((err) => {
      throw new Error(`${err.message} (deno task requests:capture --splits ${split} writes it)`);
    });
    const answersFile = join(dir, `${split}.json`);
    const answers = await readStrings(answersFile, "the answer text");
    for (const id of Object.keys(answers)) {
      if (!(id in keys)) throw new Error(`${answersFile}: "${id}": not a request of ${keysFile}`);
    }
    for (const [id, key] of Object.entries(keys)) {
      if (id in answers) answerOf.set(key, answers[id]);
      else missing.push(`${id} (${answersFile})`);
    }
  }
  if (missing.length) throw new Error(`no recorded answer for ${missing.join(", ")}`);
  let unknown = 0;
  const path = startModelPath((r) => {
    const answer = answerOf.get(requestKey(r.system, r.user));
    if (answer !== undefined) return answer;
    unknown++;
    return '{"memories": []}';
  });
  const search = await startStoredSearch();
  const scoredRun = await score(
    { runCapture, MemoryCaptureSink },
    path.extractor,
    (s) => search.sinkFor(s),
  ).finally(async () => {
    await path.close();
    await search.close();
  });
  if (unknown) {
    throw new Error(
      `${unknown} requests are not among the recorded ones of ${values["model-requests"]}: ` +
        "the request changed since they were written (deno task requests:capture)",
    );
  }
  if (path.stats.fallbacks) {
    throw new Error(`${path.stats.fallbacks} model runs fell back: ${path.stats.lastError}`);
  }
  const tokens = sessions.map((s) => path.perSession.get(s.session_id) ?? 0);
  return {
    ...scoredRun,
    dir,
    calls: path.stats.calls,
    dropped: path.stats.dropped,
    tokens,
    meanTokens: tokens.reduce((a, b) => a + b, 0) / Math.max(1, tokens.length),
    maxTokens: Math.max(0, ...tokens),
  };
}
const meanTokens = perSession.reduce((a, b) => a + b, 0) / Math.max(1, perSession.length);
const maxTokens = Math.max(0, ...perSession);

// The hook: `memcli capture --hook` as installed, against a server with the capture route,
// and with no service.
const hookRuns = Number(values["hook-runs"]);
const pctText = (xs: number[]) =>
  xs.length ? `${pct(xs, 50).toFixed(0)} / ${pct(xs, 95).toFixed(0)}` : "skipped";
const pct = (xs: number[], p: number) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)] : NaN;
};
const hookMs: { up: number[]; down: number[] } = { up: [], down: [] };
if (hookRuns > 0) {
  const dir = await Deno.makeTempDir({ prefix: "mneme-bench-capture-" });
  const queue = new CaptureQueue(new MemoryCaptureSink(), { project: () => Promise.resolve("p") });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    new Hono().route("/api/capture", captureRoute(queue)).fetch,
  );
  const up = `http://127.0.0.1:${server.addr.port}`;
  const config = { HOME: `${dir}/home`, DATA_DIR: `${dir}/data`, MEMORY_API_URL: up };
  const { bin, PATH } = await installCommands(`${dir}/root`, config);
  const first = sessions[0];
  const payload = JSON.stringify({
    session_id: first.session_id,
    transcript_path: join(values.data!, first.file),
    cwd: dir,
    hook_event_name: "Stop",
  });
  for (const [row, url] of [["up", up], ["down", "http://127.0.0.1:9"]] as const) {
    for (let i = 0; i <= hookRuns; i++) {
      const t = performance.now();
      const child = new Deno.Command(`${bin}/memcli`, {
        args: ["capture", "--hook"],
        cwd: dir,
        env: { ...toolEnv(), ...config, MEMORY_API_URL: url, PATH },
        clearEnv: true,
        stdin: "piped",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(payload));
      await w.close();
      const res = await child.output();
      if (res.code !== 0) throw new Error(`memcli capture --hook: exit ${res.code}`);
      if (i > 0) hookMs[row].push(performance.now() - t); // the first is a warm-up
    }
  }
  await queue.idle();
  await server.shutdown();
  await Deno.remove(dir, { recursive: true });
}
const { precision, recall } = after;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

const b = (f: (x: NonNullable<typeof base>) => string) => base ? f(base) : "";
const m = (f: (x: NonNullable<typeof modelRun>) => string) => modelRun ? f(modelRun) : "";
const rows: [string, string, string, string, string, string][] = [
  [
    "figure",
    "before: nothing captured",
    "baseline",
    "after: offline extractor",
    "model path: recorded answers",
    "target",
  ],
  [
    "sessions",
    String(sessions.length),
    b(() => String(sessions.length)),
    String(sessions.length),
    m(() => String(sessions.length)),
    "",
  ],
  [
    "candidates proposed",
    "0",
    b((x) => String(x.tp + x.fp)),
    String(tp + fp),
    m((x) => String(x.tp + x.fp)),
    "",
  ],
  [
    "precision",
    "n/a",
    b((x) => r3(x.precision).toFixed(3)),
    r3(precision).toFixed(3),
    m((x) => r3(x.precision).toFixed(3)),
    ">= 0.90",
  ],
  [
    "recall",
    "0.000",
    b((x) => r3(x.recall).toFixed(3)),
    r3(recall).toFixed(3),
    m((x) => r3(x.recall).toFixed(3)),
    ">= 0.60",
  ],
  [
    "secrets through",
    "0",
    b((x) => `${x.secretsThrough} of ${x.secretsTotal}`),
    `${secretsThrough} of ${secretsTotal}`,
    m((x) => `${x.secretsThrough} of ${x.secretsTotal}`),
    "0",
  ],
  [
    "private texts through",
    "0",
    b((x) => String(x.privateThrough)),
    String(privateThrough),
    m((x) => String(x.privateThrough)),
    "0",
  ],
  [
    "duplicates proposed",
    "0",
    b((x) => `${x.dupProposed} of ${x.dupOpportunities}`),
    `${dupProposed} of ${dupOpportunities}`,
    m((x) => `${x.dupProposed} of ${x.dupOpportunities}`),
    "0",
  ],
  [
    "pipeline time, all sessions (ms)",
    "0",
    b((x) => x.ms.toFixed(0)),
    ms.toFixed(0),
    m((x) => x.ms.toFixed(0)),
    "",
  ],
  [
    "hook p50 / p95 (ms), service up",
    "no hook",
    "",
    pctText(hookMs.up),
    "",
    "p95 <= 100",
  ],
  [
    "hook p50 / p95 (ms), service down",
    "no hook",
    "",
    pctText(hookMs.down),
    "",
    "exit 0",
  ],
  [
    "model path: tokens a session (mean / max)",
    "0",
    "",
    `${meanTokens.toFixed(0)} / ${maxTokens} (labels replayed)`,
    m((x) => `${x.meanTokens.toFixed(0)} / ${x.maxTokens}`),
    "",
  ],
  ["model path: calls / items dropped", "", "", "", m((x) => `${x.calls} / ${x.dropped}`), ""],
];
// The model column only when --model-answers was given.
const shown = rows.map((r) => r.filter((_, i) => i !== 4 || modelRun)).filter((r) =>
  r.slice(1).some(Boolean)
);
const w = shown[0].map((_, i) => Math.max(...shown.map((r) => r[i].length)));
for (const r of shown) console.log(r.map((c, i) => c.padEnd(w[i])).join("  ").trimEnd());
// The confidences' calibration: what share of the candidates of a confidence is right.
const { scored } = after;
const BUCKETS = [0, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0001];
const buckets = BUCKETS.slice(0, -1).map((from, i) => {
  const xs = scored.filter((c) => c.confidence >= from && c.confidence < BUCKETS[i + 1]);
  const hits = xs.filter((c) => c.tp).length;
  return {
    from,
    to: Math.min(1, BUCKETS[i + 1]),
    n: xs.length,
    tp: hits,
    precision: xs.length ? r3(hits / xs.length) : null,
  };
});
const FLOORS = [0.8, 0.85, 0.9, 0.95];
/** Precision wanted of the candidates an auto-accept floor lets through. */
const FLOOR_PRECISION = 0.97;
const floors = FLOORS.map((floor) => {
  const xs = scored.filter((c) => c.confidence >= floor);
  const hits = xs.filter((c) => c.tp).length;
  return {
    floor,
    n: xs.length,
    tp: hits,
    precision: xs.length ? r3(hits / xs.length) : null,
    recall: durableTotal ? r3(hits / durableTotal) : 0,
  };
});
const recommended = floors.find((f) => f.n > 0 && f.precision! >= FLOOR_PRECISION)?.floor ?? null;
const byRule = rulesAlone.scored;
const rules = [...new Set(byRule.map((c) => c.rule))].sort().map((rule) => {
  const xs = byRule.filter((c) => c.rule === rule);
  const hits = xs.filter((c) => c.tp).length;
  const cs = xs.map((c) => c.confidence);
  return {
    rule,
    n: xs.length,
    tp: hits,
    precision: r3(hits / xs.length),
    smoothed: r3(Math.min(0.98, (hits + 1) / (xs.length + 2))),
    calibrated: calibrated(hits, xs.length),
    confidence: [Math.min(...cs), Math.max(...cs)],
  };
}).sort((x, y) => y.n - x.n);
const table = (head: string[], body: string[][]) => {
  const all = [head, ...body];
  const cw = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  for (const r of all) console.log(r.map((c, i) => c.padEnd(cw[i])).join("  "));
};
const p3 = (x: number | null) => x === null ? "-" : x.toFixed(3);
console.log("\nreliability: candidates by confidence");
table(
  ["confidence", "candidates", "right", "precision"],
  buckets.map((
    x,
  ) => [`${x.from.toFixed(2)}-${x.to.toFixed(2)}`, String(x.n), String(x.tp), p3(x.precision)]),
);
console.log("\nauto-accept floors: candidates at or above");
table(
  ["floor", "candidates", "right", "precision", "recall"],
  floors.map((f) => [f.floor.toFixed(2), String(f.n), String(f.tp), p3(f.precision), p3(f.recall)]),
);
console.log(
  `recommended floor (lowest with precision >= ${FLOOR_PRECISION}): ${recommended ?? "none"}`,
);
console.log(
  `\nthe rules alone (no loose sentences, no scorer): ${
    rulesAlone.tp + rulesAlone.fp
  } candidates, precision ${r3(rulesAlone.precision).toFixed(3)}, recall ${
    r3(rulesAlone.recall).toFixed(3)
  }`,
);
console.log("\nby extractor rule (the rules alone)");
table(
  ["rule", "candidates", "right", "precision", "(right+1)/(n+2)", "calibrated", "confidence"],
  rules.map((r) => [
    r.rule,
    String(r.n),
    String(r.tp),
    p3(r.precision),
    p3(r.smoothed),
    r.calibrated.toFixed(2),
    r.confidence[0] === r.confidence[1]
      ? r.confidence[0].toFixed(2)
      : r.confidence.map((c) => c.toFixed(2)).join("-"),
  ]),
);
// On the tuning data, the counts the confidences were set from should be these.
const stale = values.split === "tuning"
  ? rules.filter((r) => String(RULE_COUNTS[r.rule]) !== String([r.tp, r.n])).map((r) =>
    `"${r.rule}": [${r.tp}, ${r.n}] (set: ${
      RULE_COUNTS[r.rule] ? `[${RULE_COUNTS[r.rule]}]` : "none"
    })`
  )
  : [];
if (stale.length) {
  console.log(`\nsrc/capture/calibration.ts counts differ from this run:\n  ${stale.join("\n  ")}`);
}
if (values.verbose) {
  console.log("\njunk:");
  for (const j of junk) console.log(`  [${j.why}/${j.rule}] ${j.file}: ${j.text}`);
  console.log("\nmissed:");
  for (const x of missed) console.log(`  ${x.file}: ${x.text}`);
  if (modelRun) {
    console.log("\nmodel path, junk:");
    for (const j of modelRun.junk) console.log(`  [${j.why}] ${j.file}: ${j.text}`);
    console.log("\nmodel path, missed:");
    for (const x of modelRun.missed) console.log(`  ${x.file}: ${x.text}`);
  }
}
await writeBenchResult(`capture-${values.split}`, {
  data: values.data,
  split: values.split,
  sessions: sessions.length,
  before: { proposed: 0, precision: null, recall: 0 },
  baseline: base && {
    dir: values.baseline,
    proposed: base.tp + base.fp,
    true_positives: base.tp,
    junk: base.fp,
    precision: r3(base.precision),
    recall: r3(base.recall),
    secrets_through: base.secretsThrough,
    private_through: base.privateThrough,
    duplicates_proposed: base.dupProposed,
    pipeline_ms: Math.round(base.ms),
  },
  after: {
    proposed: tp + fp,
    true_positives: tp,
    junk: fp,
    precision: r3(precision),
    recall: r3(recall),
    durable: durableTotal,
    secrets_through: secretsThrough,
    private_through: privateThrough,
    duplicates_proposed: dupProposed,
    duplicate_opportunities: dupOpportunities,
    pipeline_ms: Math.round(ms),
  },
  hook_ms: {
    runs: hookRuns,
    up: { p50: pct(hookMs.up, 50), p95: pct(hookMs.up, 95), all: hookMs.up.map(Math.round) },
    down: { p50: pct(hookMs.down, 50), p95: pct(hookMs.down, 95) },
  },
  model_path_tokens: { mean: Math.round(meanTokens), max: maxTokens, per_session: perSession },
  model_answers: modelRun && {
    dir: modelRun.dir,
    requests: values["model-requests"],
    proposed: modelRun.tp + modelRun.fp,
    true_positives: modelRun.tp,
    junk: modelRun.fp,
    precision: r3(modelRun.precision),
    recall: r3(modelRun.recall),
    durable: modelRun.durableTotal,
    secrets_through: modelRun.secretsThrough,
    private_through: modelRun.privateThrough,
    duplicates_proposed: modelRun.dupProposed,
    duplicate_opportunities: modelRun.dupOpportunities,
    calls: modelRun.calls,
    items_dropped: modelRun.dropped,
    pipeline_ms: Math.round(modelRun.ms),
    tokens: {
      counted: "the fake's: characters of the request / 4 in, of the answer / 4 out",
      mean: Math.round(modelRun.meanTokens),
      max: modelRun.maxTokens,
      per_session: modelRun.tokens,
    },
    junk_by_reason: modelRun.junk.reduce(
      (acc, j) => ({ ...acc, [j.why]: ((acc as Record<string, number>)[j.why] ?? 0) + 1 }),
      {},
    ),
  },
  reliability: {
    buckets,
    floors,
    floor_precision: FLOOR_PRECISION,
    recommended_floor: recommended,
    by_rule: rules,
    rules_alone: {
      proposed: rulesAlone.tp + rulesAlone.fp,
      true_positives: rulesAlone.tp,
      precision: r3(rulesAlone.precision),
      recall: r3(rulesAlone.recall),
    },
  },
  load: (await Deno.readTextFile("/proc/loadavg").catch(() => "")).trim(),
  junk_by_reason: junk.reduce(
    (m, j) => ({ ...m, [j.why]: ((m as Record<string, number>)[j.why] ?? 0) + 1 }),
    {},
  ),
});
