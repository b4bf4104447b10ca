/**
 * The real Claude Code CLI with the capture hooks (`memcli hooks install --capture`): two
 * scripted `claude -p` sessions through `msgcli serve` against the Anthropic fake. Claude Code
 * runs `memcli capture --hook` at Stop and SessionEnd; the hook hands the session over to a
 * server with the capture route; the pipeline reads the transcript Claude Code wrote. The
 * proposals hold the durable statement and nothing of the everyday prompt; the second
 * session's hand-overs (resuming the same transcript) add nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Hono } from "hono";
import { CaptureQueue, captureRoute } from "../../src/capture/route.ts";
import { MemoryCaptureSink } from "../../src/capture/pipeline.ts";
import { startRig } from "../serve/helpers.ts";
import { tempDir } from "../helpers.ts";
import { claudeCode, clientTest, npmMissing } from "./npm.ts";

const missing = await npmMissing();
const ROOT = new URL("../../", import.meta.url).pathname;
const KEY = "claude-capture-daemon-key-0123";

clientTest(
  "Claude Code (real CLI) with the capture hooks: one durable statement proposed, once",
  missing,
  async () => {
    const rig = await startRig({ args: ["--auth-key", KEY], fake: { replyText: "Done." } });
    const sink = new MemoryCaptureSink();
    const queue = new CaptureQueue(sink);
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      new Hono().route("/api/capture", captureRoute(queue)).fetch,
    );
    const home = await tempDir("mneme-claude-capture-");
    try {
      // The hook resolves the project as the bootstrap does: a `.mneme` names it here.
      await Deno.writeTextFile(join(home.path, ".mneme"), JSON.stringify({ project: "orders" }));
      const memcli =
        `${Deno.execPath()} run -A --lock=${ROOT}tests/deno.lock ${ROOT}src/bin/memcli.ts`;
      const env = {
        HOME: home.path,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: Deno.env.get("DENO_DIR") ??
          join(Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME")!, ".cache"), "deno"),
        MEMORY_API_URL: `http://127.0.0.1:${server.addr.port}`,
        DATA_DIR: join(home.path, "data"),
      };
      const inst = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--lock=tests/deno.lock",
          "src/bin/memcli.ts",
          "hooks",
          "install",
          "--capture",
          "--command",
          memcli,
        ],
        cwd: ROOT,
        env,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(inst.code, 0, new TextDecoder().decode(inst.stderr));
      const bin = await claudeCode();
      const claude = async (args: string[]) => {
        const out = await new Deno.Command(bin, {
          args,
          cwd: home.path,
          clearEnv: true,
          env: {
            ...env,
            CI: "true",
            DISABLE_AUTOUPDATER: "1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            ANTHROPIC_BASE_URL: rig.url,
            ANTHROPIC_AUTH_TOKEN: KEY,
          },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(120_000),
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      };
      await claude([
        "-p",
        "add a test for the limit cap. and from now on always use pnpm in this repo, never npm",
      ]);
      await claude(["-c", "-p", "what does GET /orders return?"]);
      await queue.idle();
      const texts = sink.proposals.map((p) => p.text);
      assert.equal(texts.length, 1, JSON.stringify(texts));
      assert.match(texts[0], /^From now on always use pnpm in this repo, never npm/);
      assert.equal(sink.proposals[0].project, "orders");
      assert.ok(sink.cursors.size >= 1, "the cursor of the session is kept");
    } finally {
      await server.shutdown();
      await rig.close();
      await home.cleanup();
    }
  },
);
