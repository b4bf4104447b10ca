/**
 * CAPTURE_AUTO_ACCEPT's setting, which proposals the pipeline accepts at once, and rejected
 * proposals not proposed again (the pipeline over the in-memory sink; the inbox's own flow on
 * PGlite is in tests/memory/inbox.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  autoAcceptable,
  MemoryCaptureSink,
  type Proposal,
  runCapture,
} from "../../src/capture/pipeline.ts";
import { captureAutoAccept } from "../../src/capture/settings.ts";
import { tempDir } from "../helpers.ts";
import {
  BETWEEN_RULE_AND_DECISION,
  DECISION_STATEMENT,
  line,
  PNPM_STATEMENT,
  RULE_STATEMENT,
} from "./lines.ts";

const env = (v: Record<string, string>) => (n: string) => v[n];

Deno.test("CAPTURE_AUTO_ACCEPT: off by default, a number is the floor, on is refused (no default floor)", () => {
  assert.equal(captureAutoAccept(env({})), null);
  assert.equal(captureAutoAccept(env({ CAPTURE_AUTO_ACCEPT: "off" })), null);
  assert.throws(
    () => captureAutoAccept(env({ CAPTURE_AUTO_ACCEPT: " ON " })),
    /CAPTURE_AUTO_ACCEPT: has no default floor: give the confidence floor as a number/,
  );
  assert.equal(captureAutoAccept(env({ CAPTURE_AUTO_ACCEPT: "0.9" })), 0.9);
  assert.equal(captureAutoAccept(env({ CAPTURE_AUTO_ACCEPT: "1" })), 1);
  assert.equal(captureAutoAccept(env({ CAPTURE_AUTO_ACCEPT: ".85" })), 0.85);
  for (const bad of ["0", "1.5", "-0.5", "yes", "0.9x", "95%", "1e-1"]) {
    assert.throws(
      () => captureAutoAccept(env({ CAPTURE_AUTO_ACCEPT: bad })),
      /CAPTURE_AUTO_ACCEPT: must be off or a number/,
      bad,
    );
  }
});

Deno.test("auto-accept: only at the floor, never with a secret removed nor a replacement", () => {
  const p = {
    text: "From now on always use pnpm, not npm.",
    type: "rule",
    scope: "project",
    confidence: 0.9,
    rule: "from-now-on",
    provenance: { sessionId: "s", uuid: "e", timestamp: "2026-11-28T10:00:00Z" },
    project: "web",
  } as unknown as Proposal;
  assert.equal(autoAcceptable(p, null), false);
  assert.equal(autoAcceptable(p, undefined), false);
  assert.equal(autoAcceptable(p, 0.9), true);
  assert.equal(autoAcceptable(p, 0.95), false);
  assert.equal(autoAcceptable({ ...p, secretsRemoved: ["secretlint:github"] }, 0.5), false);
  assert.equal(autoAcceptable({ ...p, replaces: { id: "m1", text: "use npm" } }, 0.5), false);
});

Deno.test("the pipeline: auto-accepted proposals are counted; a rejected one is not proposed again", async () => {
  const dir = await tempDir("capture-auto-");
  try {
    const sink = new MemoryCaptureSink([{ text: "We use npm for everything", project: "web" }]);
    const run = async (session: string, autoAccept: number | null, ...texts: string[]) => {
      const path = join(dir.path, `${session}.jsonl`);
      await Deno.writeTextFile(
        path,
        texts.map((t, i) => line(`${session}${i}`, session, "user", t)).join(""),
      );
      return await runCapture(
        { sessionId: session, transcriptPath: path, cwd: dir.path, event: "Stop" },
        sink,
        { project: () => Promise.resolve("web"), autoAccept },
      );
    };
    // "From now on" above the floor, "we chose" below.
    const floor = BETWEEN_RULE_AND_DECISION;
    const r = await run(
      "s1",
      floor,
      RULE_STATEMENT,
      DECISION_STATEMENT,
      PNPM_STATEMENT,
    );
    // The first is sure enough; the second is not; the third replaces a stored memory.
    assert.equal(r.proposed, 3, JSON.stringify(r));
    assert.equal(r.replacements, 1, JSON.stringify(r));
    assert.equal(r.autoAccepted, 1, JSON.stringify(r));
    assert.deepEqual(
      sink.records.filter((x) => x.autoAccepted).map((x) => x.text),
      [RULE_STATEMENT],
    );
    assert.equal(sink.proposals.length, 2);
    // Reject the decision; said again, it is dropped and counted as rejected before.
    const mongo = sink.records.find((x) => x.text.startsWith("We chose"))!;
    sink.reject(mongo.id);
    const again = await run("s2", floor, "We chose Postgres over Mongo, because we need joins.");
    assert.equal(again.proposed, 0, JSON.stringify(again));
    assert.equal(again.rejectedBefore, 1);
    assert.equal(again.duplicates, 0);
  } finally {
    await dir.cleanup();
  }
});
