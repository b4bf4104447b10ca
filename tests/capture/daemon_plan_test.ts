/**
 * The admin daemon's permissions for capture (src/permissions.ts, computed by the launcher):
 * the reading of Claude Code's transcripts folder and nothing else of Claude Code's; a model
 * host only when the model path is configured; for the subscription, msgcli's hosts and
 * credentials folder.
 */
import assert from "node:assert/strict";
import { findProgram } from "../../src/programs.ts";

function planOf(env: Record<string, string>) {
  const all: Record<string, string> = {
    HOME: "/home/u",
    DATA_DIR: "/data/mneme",
    EMBEDDING_PROVIDER: "builtin",
    ...env,
  };
  const launch = findProgram("start")!.launch({ env: (n) => all[n], args: [], cwd: "/work" });
  return launch.plan;
}

Deno.test("admin daemon: reads Claude Code's transcripts folder only; no model host when capture is offline", () => {
  const p = planOf({});
  assert.ok(p.read.includes("/home/u/.claude/projects"), p.read.join(","));
  assert.ok(!p.read.some((r) => r === "/home/u/.claude" || r === "/home/u"), p.read.join(","));
  assert.ok(!p.write.some((w) => w.includes(".claude")), p.write.join(","));
  assert.ok(!p.net.some((n) => /anthropic|openai|11434/.test(n)), p.net.join(","));
  for (const v of ["CAPTURE_TRANSCRIPTS_DIR", "CAPTURE_MODEL_PROVIDER", "CLAUDE_CONFIG_DIR"]) {
    assert.ok(p.env.includes(v), v);
  }
  const moved = planOf({ CLAUDE_CONFIG_DIR: "/cfg/claude" });
  assert.ok(moved.read.includes("/cfg/claude/projects"), moved.read.join(","));
  const own = planOf({ CAPTURE_TRANSCRIPTS_DIR: "/t/sessions" });
  assert.ok(own.read.includes("/t/sessions"), own.read.join(","));
  assert.ok(!own.read.includes("/home/u/.claude/projects"), own.read.join(","));
});

Deno.test("admin daemon: the model host only when the model path is configured", () => {
  const openai = planOf({
    CAPTURE_MODEL_PROVIDER: "openai",
    CAPTURE_MODEL_URL: "http://10.9.8.7:8080/v1",
  });
  assert.ok(openai.net.includes("10.9.8.7:8080"), openai.net.join(","));
  const ollama = planOf({ CAPTURE_MODEL_PROVIDER: "ollama" });
  assert.ok(ollama.net.includes("127.0.0.1:11434") || ollama.net.includes("127.0.0.1"));
  const sub = planOf({
    CAPTURE_MODEL_PROVIDER: "subscription",
    MSGCLI_CREDENTIALS_PATH: "/home/u/.config/msgcli/credentials.json",
  });
  assert.ok(sub.net.includes("api.anthropic.com:443"), sub.net.join(","));
  assert.ok(sub.net.includes("platform.claude.com:443"), sub.net.join(","));
  assert.ok(sub.read.includes("/home/u/.config/msgcli"), sub.read.join(","));
  assert.ok(sub.write.includes("/home/u/.config/msgcli"), sub.write.join(","));
  assert.ok(!openai.write.includes("/home/u/.config/msgcli"));
});
