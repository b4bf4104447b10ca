/**
 * The model path's token counts are kept in the database: a restarted daemon (a new
 * `startCapture` on the same database) still counts what the day spent, so a call that would
 * pass the daily budget is not made (the offline extractor runs instead).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startCapture } from "../../src/capture/service.ts";
import { captureModelConfig } from "../../src/capture/settings.ts";
import { Inbox } from "../../src/memory/inbox.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import { pgliteService, tempDir } from "../helpers.ts";
import { line } from "./lines.ts";

Deno.test("the model path's daily budget survives a restart", async () => {
  const s = await pgliteService();
  const dir = await tempDir("capture-budget-");
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: () => '{"memories": []}' });
  try {
    const vars: Record<string, string> = {
      CAPTURE_MODEL_PROVIDER: "ollama",
      CAPTURE_MODEL_URL: ol.url,
      CAPTURE_DAILY_TOKENS: "2000",
    };
    const env = (n: string) => vars[n];
    const inbox = new Inbox(s.service, s.service.proposals());
    const run = async (session: string, text: string) => {
      const path = join(dir.path, `${session}.jsonl`);
      await Deno.writeTextFile(path, line(`${session}-1`, session, "user", text));
      const capture = startCapture(inbox, captureModelConfig(env), env, () => {});
      capture.queue.enqueue({
        sessionId: session,
        transcriptPath: path,
        cwd: "/",
        event: "Stop",
        project: "p",
      });
      await capture.close();
    };
    await run("a", "please rename the helper in utils.ts to formatDate");
    assert.equal(ol.requests.filter((r) => r.path === "/api/chat").length, 1);
    const day = new Date().toISOString().slice(0, 10);
    const spent = await inbox.tokens("a", day);
    assert.ok(spent.day > 300 && spent.session === spent.day, JSON.stringify(spent));
    // A new daemon: a call whose estimate fits an empty day but not what was spent is not made.
    await run("b", "x ".repeat(360) + "and then please update the changelog entry for it");
    assert.equal(ol.requests.filter((r) => r.path === "/api/chat").length, 1, "no second call");
    assert.equal((await inbox.tokens("b", day)).session, 0);
  } finally {
    await ol.close();
    await dir.cleanup();
    await s.close();
  }
});
