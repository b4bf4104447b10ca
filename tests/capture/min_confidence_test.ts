/**
 * `CAPTURE_MIN_CONFIDENCE`: the offline extractor's lowest confidence proposed. Unset, the
 * scorer's threshold; a number from 0 to 1 moves it (lower proposes more); another value names
 * the variable. The pipeline proposes a candidate under the default threshold once the setting
 * is below its confidence, and not before.
 */
import assert from "node:assert/strict";
import { captureMinConfidence } from "../../src/capture/settings.ts";
import { extractCandidates, generateCandidates } from "../../src/capture/extract.ts";
import { scoreCandidate } from "../../src/capture/scorer.ts";
import { THRESHOLD } from "../../src/capture/scorer_weights.ts";
import { MemoryCaptureSink, offlineExtractorFrom, runCapture } from "../../src/capture/pipeline.ts";
import { tempDir } from "../helpers.ts";
import { line } from "./lines.ts";

const env = (v: Record<string, string>) => (n: string) => v[n];

Deno.test("CAPTURE_MIN_CONFIDENCE: unset is the scorer's threshold; 0 to 1; another value names it", () => {
  assert.equal(captureMinConfidence(env({})), null);
  assert.equal(captureMinConfidence(env({ CAPTURE_MIN_CONFIDENCE: " " })), null);
  assert.equal(captureMinConfidence(env({ CAPTURE_MIN_CONFIDENCE: "0.5" })), 0.5);
  assert.equal(captureMinConfidence(env({ CAPTURE_MIN_CONFIDENCE: "0" })), 0);
  assert.equal(captureMinConfidence(env({ CAPTURE_MIN_CONFIDENCE: "1" })), 1);
  for (const bad of ["1.5", "-0.1", "high", "0.5x", "50%", "1e-1"]) {
    assert.throws(
      () => captureMinConfidence(env({ CAPTURE_MIN_CONFIDENCE: bad })),
      /CAPTURE_MIN_CONFIDENCE: must be a number from 0 to 1/,
      bad,
    );
  }
});

Deno.test("a lower CAPTURE_MIN_CONFIDENCE proposes a candidate the default threshold leaves out", async () => {
  // Invented user statements; the test finds one the scorer puts under its threshold.
  const statements = [
    "we always deploy on tuesdays",
    "never push to main directly",
    "the team prefers small pull requests",
    "releases happen every other week",
  ];
  const turns = statements.map((text, i) => ({
    role: "user" as const,
    text,
    uuid: `u${i}`,
    timestamp: "2026-11-29T00:00:00.000Z",
    sessionId: "s1",
  }));
  const under = generateCandidates(turns).map((g) => ({ g, p: scoreCandidate(g) }))
    .filter(({ g, p }) => g.rule !== "loose" && p < THRESHOLD && p > 0.3);
  assert.ok(under.length, "one of the statements is under the default threshold");
  const pick = under[0];
  const at = Math.max(0, pick.p - 0.01);
  assert.ok(!extractCandidates(turns).some((c) => c.text === pick.g.text));
  assert.ok(extractCandidates(turns, undefined, at).some((c) => c.text === pick.g.text));

  // Through the pipeline, from a transcript.
  const dir = await tempDir("mneme-min-confidence-");
  try {
    const path = `${dir.path}/s.jsonl`;
    await Deno.writeTextFile(path, line("u1", "s1", "user", pick.g.text));
    const run = async (extractor?: ReturnType<typeof offlineExtractorFrom>) => {
      const sink = new MemoryCaptureSink();
      await runCapture(
        { sessionId: "s1", transcriptPath: path, cwd: dir.path, event: "Stop", project: "p" },
        sink,
        extractor ? { extractor } : {},
      );
      return sink.proposals.map((p) => p.text);
    };
    assert.deepEqual(await run(), []);
    assert.deepEqual(await run(offlineExtractorFrom(at)), [pick.g.text]);
  } finally {
    await dir.cleanup();
  }
});
