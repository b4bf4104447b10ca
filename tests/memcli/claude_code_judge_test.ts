/**
 * End to end with the real Claude Code CLI from npm and the judge on (RECALL_JUDGE=on,
 * docs/recall.md): memcli installed as a user installs it, `memcli hooks install --recall`,
 * Claude Code run with RECALL_JUDGE=on in its environment (the hooks inherit it), its model the
 * Anthropic fake; the admin daemon's judge asks a second fake, which answers from a script (the
 * feature-flag note for any request that offers it, nothing otherwise).
 *
 * The evidence is what Claude Code sent its model: the note the judge chose reaches it though
 * its confidence is under the hook's plain floor (the plain hook injects nothing for that
 * prompt), and a note the plain floor would inject stays out when the judge chose nothing.
 */
import assert from "node:assert/strict";
import { MemoryClient } from "../../src/memory/client.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { startAdminProcess, tempDir } from "../helpers.ts";
import { claudeCodeBin } from "../helpers/claude_code.ts";
import { installCommands, runClean, toolEnv } from "../helpers/install.ts";
import { FLAGS, judgeFake, KEY, MEMORIES, PROJECT, PROMPT } from "../memory/judge.ts";

const STAGING = MEMORIES[2];
/** A prompt whose first result passes the plain floor (0.9): STAGING (tests/admin/judge_test.ts). */
const STAGING_PROMPT = "connect to the staging database";

Deno.test({
  name:
    "Claude Code (real CLI from npm) with RECALL_JUDGE=on: the model's choice reaches the agent",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const claude = await claudeCodeBin();
    const judge = judgeFake();
    const admin = await startAdminProcess({
      env: {
        RECALL_JUDGE: "on",
        CAPTURE_MODEL_PROVIDER: "anthropic",
        CAPTURE_MODEL_URL: judge.url,
        CAPTURE_MODEL_API_KEY: KEY,
      },
    });
    const agentModel = startFakeAnthropic();
    const dir = await tempDir("mneme-claude-judge-");
    try {
      const home = `${dir.path}/home`;
      const repo = `${dir.path}/${PROJECT}`;
      await Deno.mkdir(home);
      await Deno.mkdir(repo);
      assert.ok((await new Deno.Command("git", { args: ["init", "-q", repo] }).output()).success);
      const client = new MemoryClient({ baseUrl: admin.url });
      const ids = new Map<string, string>();
      for (const m of MEMORIES) {
        ids.set(m.content, (await client.create({ ...m, project: PROJECT })).memory.id);
      }

      const config = { HOME: home, DATA_DIR: `${dir.path}/data`, MEMORY_API_URL: admin.url };
      const { PATH } = await installCommands(`${dir.path}/root`, config);
      const env = { ...toolEnv(), ...config, PATH };
      const hooks = await runClean("memcli", ["hooks", "install", "--recall"], env, repo);
      assert.equal(hooks.code, 0, hooks.err);
      assert.match(hooks.out, /UserPromptSubmit: added 'memcli recall --hook'/);

      const ask = async (prompt: string, judgeOn: boolean) => {
        const from = agentModel.requests.length;
        const r = await runClean(claude, ["-p", prompt], {
          ...env,
          ...(judgeOn ? { RECALL_JUDGE: "on" } : {}),
          ANTHROPIC_BASE_URL: agentModel.url,
          CLAUDE_CODE_OAUTH_TOKEN: agentModel.issueTokens().accessToken,
          DISABLE_AUTOUPDATER: "1",
          DISABLE_TELEMETRY: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        }, repo);
        assert.equal(r.code, 0, r.err + r.out);
        const sent = agentModel.requests.slice(from).filter((q) => q.path === "/v1/messages")
          .map((q) => q.body).join("\n");
        assert.ok(sent, "Claude Code sent a model request");
        return sent;
      };

      // The judge chose the feature-flag note: it reaches the agent's model with its id.
      const judgeCalls = judge.requestsTo("/v1/messages").length;
      const chosen = await ask(PROMPT, true);
      assert.ok(judge.requestsTo("/v1/messages").length > judgeCalls, "the judge was asked");
      assert.ok(chosen.includes(`Relevant memories (Mneme, project ${PROJECT})`), "a block");
      assert.ok(chosen.includes(`id ${ids.get(FLAGS.content)}]`), "the chosen note with its id");
      assert.ok(chosen.includes("the kill switch for checkout is checkout-v2"));
      // The same prompt without the judge: under the plain floor, nothing injected.
      const plain = await ask(PROMPT, false);
      assert.ok(!plain.includes("checkout-v2"), "the plain floor injects nothing for it");

      // The judge chose nothing about the staging database: it stays out, though the plain
      // floor injects it.
      const none = await ask(STAGING_PROMPT, true);
      assert.ok(!none.includes(STAGING.content), "the model chose nothing");
      const floor = await ask(STAGING_PROMPT, false);
      assert.ok(floor.includes(STAGING.content), "the plain floor's memory");

      // The agent's prompt reached the judge, never the daemon's log.
      assert.ok(!admin.stderr().includes(PROMPT), "the prompt is never logged");
    } finally {
      await agentModel.close();
      await admin.stop();
      await judge.close();
      await dir.cleanup();
    }
  },
});
