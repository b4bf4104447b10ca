/**
 * The model path's recorded requests and answers, each task a real process on the `dev` split:
 * `requests:capture` writes the requests the product sends (ids opaque and in a fixed shuffled
 * order, keys the SHA-256 of system and user, no session file name) and refuses an unrun split;
 * `bench:capture --model-answers` replays answers by request and scores them, and refuses a
 * missing answer, an answer to no request and a request that is not among the recorded ones.
 */
import assert from "node:assert/strict";
import { ROOT, runTask } from "./helpers.ts";
import { requestKey } from "../tasks/lib/capture_model.ts";
import { CAPTURE_PROMPT } from "../src/capture/model.ts";
import { runSessions, UNRUN } from "../tasks/capture_splits.ts";

/** bench:capture on dev with the model path replaying `answers`; its result file removed. */
async function bench(requests: string, answers: Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "mneme-capture-answers-" });
  try {
    await Deno.writeTextFile(`${dir}/dev.json`, JSON.stringify(answers));
    const res = await runTask("bench_capture.ts", [
      "--split",
      "dev",
      "--hook-runs",
      "0",
      "--model-requests",
      requests,
      "--model-answers",
      dir,
    ]);
    const file = res.out.match(/^wrote (.+\.json)$/m)?.[1];
    const json = file ? JSON.parse(await Deno.readTextFile(file)) : null;
    if (file) await Deno.remove(file);
    return { ...res, json };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// Ignored (and reported so) while no capture split is registered as unrun.
Deno.test({
  name: "requests:capture refuses a frozen split not run yet, and writes nothing",
  ignore: UNRUN.length === 0,
}, async () => {
  const split = UNRUN[0];
  const out = await Deno.makeTempDir();
  try {
    const res = await runTask("capture_model_requests.ts", ["--splits", split, "--out", out]);
    assert.equal(res.code, 2);
    assert.match(res.err, new RegExp(`${split} is a frozen split not run yet`));
    assert.deepEqual([...Deno.readDirSync(out)], []);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("requests:capture and bench:capture --model-answers on dev", async () => {
  const out = await Deno.makeTempDir({ prefix: "mneme-capture-requests-" });
  const again = await Deno.makeTempDir({ prefix: "mneme-capture-requests-" });
  try {
    const res = await runTask("capture_model_requests.ts", ["--splits", "dev", "--out", out]);
    assert.equal(res.code, 0, res.err);
    assert.doesNotMatch(res.out, /precision|recall/);
    const sessions = (await runSessions(`${ROOT}bench/data/capture`)).filter((s) =>
      s.split === "dev"
    );
    const req = JSON.parse(await Deno.readTextFile(`${out}/dev-requests.json`)) as {
      split: string;
      system: string;
      requests: { id: string; user: string }[];
    };
    const keys = JSON.parse(await Deno.readTextFile(`${out}/dev-keys.json`));
    const md = await Deno.readTextFile(`${out}/dev-requests.md`);
    assert.equal(req.system, CAPTURE_PROMPT);
    assert.equal(req.requests.length, sessions.length);
    assert.deepEqual(
      req.requests.map((r) => r.id),
      sessions.map((_, i) => `dev-${String(i + 1).padStart(2, "0")}`),
    );
    for (const r of req.requests) {
      assert.equal(keys[r.id], requestKey(req.system, r.user));
      assert.match(md, new RegExp(`## ${r.id}\n\n(\`{3,})text\n`), r.id);
      assert.ok(md.includes(`text\n${r.user}\n`), r.id);
    }
    // No session's file name (nor the labels) in what a model-writer reads.
    const all = JSON.stringify(req) + md + JSON.stringify(keys);
    for (const s of sessions) {
      assert.ok(!all.includes(s.file.replace(/^.*\//, "").replace(/\.jsonl$/, "")), s.file);
    }
    assert.ok(!all.includes('"durable"'));
    // The same ids in the same (shuffled) order on every run.
    const rerun = await runTask("capture_model_requests.ts", ["--splits", "dev", "--out", again]);
    assert.equal(rerun.code, 0, rerun.err);
    assert.equal(await Deno.readTextFile(`${again}/dev-requests.md`), md);

    // Answers replayed by request: one valid memory and one malformed item, the rest none.
    const answers = Object.fromEntries(req.requests.map((r) => [r.id, '{"memories": []}']));
    answers["dev-05"] = JSON.stringify({
      memories: [
        {
          text: "The recorded answer's one memory names zebra-quartz.",
          type: "fact",
          scope: "project",
          confidence: 0.8,
          source: "m1",
        },
        { text: "an item with no source is dropped", type: "rule", scope: "project" },
      ],
    });
    const ok = await bench(out, answers);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /model path: recorded answers/);
    const m = ok.json.model_answers;
    assert.equal(m.calls, sessions.length);
    assert.equal(m.items_dropped, 1);
    assert.equal(m.proposed, 1);
    assert.equal(m.true_positives + m.junk, 1);
    assert.ok(m.tokens.mean > CAPTURE_PROMPT.length / 4, String(m.tokens.mean));

    // A request with no answer, an answer to no request, a request not recorded.
    const { ["dev-07"]: _, ...short } = answers;
    const missing = await bench(out, short);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /no recorded answer for dev-07 /);
    const extra = await bench(out, { ...answers, "dev-99": "{}" });
    assert.equal(extra.code, 2);
    assert.match(extra.err, /"dev-99": not a request of /);
    await Deno.writeTextFile(
      `${again}/dev-keys.json`,
      JSON.stringify({ ...keys, "dev-03": "0".repeat(64) }),
    );
    const changed = await bench(again, answers);
    assert.equal(changed.code, 2);
    assert.match(changed.err, /1 requests are not among the recorded ones/);
  } finally {
    await Deno.remove(out, { recursive: true });
    await Deno.remove(again, { recursive: true });
  }
});
