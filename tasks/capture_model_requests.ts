/**
 * `deno task requests:capture [--splits holdout13,holdout14,holdout15] [--data DIR] [--out DIR]
 * [--frozen-run]`: the requests capture's model path sends for the labelled sessions of the
 * splits, for a model to answer once and bench:capture to replay (`--model-answers`). Each
 * session goes through the real pipeline as bench:capture's model path runs it (its stored
 * memories in a MemoryCaptureSink whose related memories the service's search finds on PGlite,
 * tasks/lib/capture_model.ts `startStoredSearch`, the transcript reader, the secrets replaced by
 * markers, src/capture/model.ts's request) with the product's client at the Messages API fake,
 * which records each request and answers `{"memories": []}`.
 *
 * Writes, per split, into DIR (default bench/data/capture-model/, see its README.md):
 * `<split>-requests.json` (`{split, system, requests: [{id, user}]}`, the ids opaque,
 * `<split>-NN` in a shuffled order fixed by the split's name), `<split>-requests.md` (the same
 * to read) and `<split>-keys.json` (`{id: SHA-256 of [system, user]}`, what bench:capture
 * matches a request by). No label, no session file name, no score: it prints counts only. A
 * split registered as unrun (tasks/capture_splits.ts `UNRUN`) is refused without `--frozen-run`.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { runCapture } from "../src/capture/pipeline.ts";
import { benchArgs } from "./lib/args.ts";
import {
  MODEL_DIR,
  type ModelRequest,
  requestKey,
  startModelPath,
  startStoredSearch,
} from "./lib/capture_model.ts";
import { runSessions, UNRUN } from "./capture_splits.ts";
import { ROOT } from "./entrypoints.ts";

const values = benchArgs(
  "deno task requests:capture [--splits holdout13,holdout14,holdout15] [--data DIR] [--out DIR] [--frozen-run]",
  {
    splits: { type: "string", default: "holdout13,holdout14,holdout15" },
    data: { type: "string", default: join(ROOT, "bench/data/capture") },
    out: { type: "string", default: MODEL_DIR },
    "frozen-run": { type: "boolean", default: false },
  },
);

const splits = values.splits!.split(",").map((s) => s.trim()).filter(Boolean);
if (!splits.length) {
  console.error("requests:capture: --splits: expected a comma-separated list of splits");
  Deno.exit(2);
}
for (const split of splits) {
  if (UNRUN.includes(split) && !values["frozen-run"]) {
    console.error(
      `requests:capture: --splits: ${split} is a frozen split not run yet: add --frozen-run to run it (once)`,
    );
    Deno.exit(2);
  }
}
const all = await runSessions(values.data!, values["frozen-run"] ? splits : []);
for (const split of splits) {
  if (!all.some((s) => s.split === split)) {
    console.error(`requests:capture: --splits: no session of the split ${split} in ${values.data}`);
    Deno.exit(2);
  }
}

/** A PRNG (mulberry32) seeded from the split's name: the same order on every run. */
function prng(seed: string): () => number {
  let a = createHash("sha256").update(`capture-model:${seed}`).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fence of backticks longer than any run of them in `text`. */
const fence = (text: string) =>
  "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));

await Deno.mkdir(values.out!, { recursive: true });
console.log("split      sessions  requests  user chars mean / max  system chars  secrets seen");
for (const split of splits) {
  const sessions = all.filter((s) => s.split === split);
  const path = startModelPath(() => '{"memories": []}');
  const search = await startStoredSearch();
  try {
    for (const s of sessions) {
      await runCapture(
        {
          sessionId: s.session_id,
          transcriptPath: join(values.data!, s.file),
          cwd: s.cwd,
          event: "Stop",
        },
        await search.sinkFor(s),
        { project: () => Promise.resolve(s.project), extractor: path.extractor },
      );
    }
  } finally {
    await path.close();
    await search.close();
  }
  if (path.stats.fallbacks) {
    throw new Error(`${split}: ${path.stats.fallbacks} runs fell back: ${path.stats.lastError}`);
  }
  // One request per distinct text, in an order that does not follow labels.json's.
  const byKey = new Map<string, ModelRequest>();
  for (const r of path.requests) byKey.set(requestKey(r.system, r.user), r);
  const reqs = [...byKey.values()];
  const rand = prng(split);
  for (let i = reqs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [reqs[i], reqs[j]] = [reqs[j], reqs[i]];
  }
  const system = reqs[0]?.system ?? "";
  if (reqs.some((r) => r.system !== system)) throw new Error(`${split}: the system texts differ`);
  const width = String(reqs.length).length < 2 ? 2 : String(reqs.length).length;
  const ids = reqs.map((_, i) => `${split}-${String(i + 1).padStart(width, "0")}`);
  await Deno.writeTextFile(
    join(values.out!, `${split}-requests.json`),
    JSON.stringify(
      { split, system, requests: reqs.map((r, i) => ({ id: ids[i], user: r.user })) },
      null,
      2,
    ) + "\n",
  );
  await Deno.writeTextFile(
    join(values.out!, `${split}-keys.json`),
    JSON.stringify(
      Object.fromEntries(reqs.map((r, i) => [ids[i], requestKey(r.system, r.user)])),
      null,
      2,
    ) + "\n",
  );
  const md = [
    `# Capture model requests: ${split}`,
    "",
    // One line an item, each under 100 characters: what deno fmt leaves as it is.
    `- ${reqs.length} requests, written by \`deno task requests:capture\` (see README.md).`,
    "- Each is one session as the product sends it: the system text below, then its user text.",
    "- The system text is the same for all (src/capture/prompt.md).",
    "- Answer each with JSON only, as the system text says.",
    `- The answers go into \`${split}.json\`: \`{"<id>": "<the answer text>"}\`.`,
    "",
    "## System",
    "",
    fence(system) + "text",
    system.trimEnd(),
    fence(system),
    "",
    ...reqs.flatMap((r, i) => [
      `## ${ids[i]}`,
      "",
      fence(r.user) + "text",
      r.user,
      fence(r.user),
      "",
    ]),
  ].join("\n");
  await Deno.writeTextFile(join(values.out!, `${split}-requests.md`), md);
  const chars = reqs.map((r) => r.user.length);
  const mean = chars.reduce((a, b) => a + b, 0) / Math.max(1, chars.length);
  // The labelled secrets a request still holds (the product replaces them before the call).
  const secrets = sessions.flatMap((s) => (s as { secrets?: string[] }).secrets ?? []);
  const seen = secrets.filter((x) => reqs.some((r) => r.user.includes(x))).length;
  console.log(
    [
      split.padEnd(9),
      String(sessions.length).padStart(8),
      String(reqs.length).padStart(9),
      `${mean.toFixed(0)} / ${Math.max(0, ...chars)}`.padStart(22),
      String(system.length).padStart(13),
      `${seen} of ${secrets.length}`.padStart(13),
    ].join("  "),
  );
}
console.log(`written to ${values.out}`);
