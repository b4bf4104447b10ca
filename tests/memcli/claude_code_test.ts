/**
 * End to end with the real Claude Code CLI from npm (issue 16): memcli installed with
 * `deno install` (the task's permissions for this configuration) in a temporary HOME,
 * `memcli hooks install --recall` run through it, the admin daemon holding a bootstrap rule
 * and a project fact, and `claude -p` pointed at the Anthropic fake (`ANTHROPIC_BASE_URL`).
 * The fake's log of the model requests is the evidence: the bootstrap rule and the recalled
 * fact (with its id) reach the model; an unrelated prompt gets the bootstrap and no memory.
 */
import assert from "node:assert/strict";
import { MemoryClient } from "../../src/memory/client.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { startAdminProcess, tempDir } from "../helpers.ts";
import { claudeCodeBin } from "../helpers/claude_code.ts";
import { installCommands, toolEnv } from "../helpers/install.ts";

const decoder = new TextDecoder();

async function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(cmd, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: r.code, out: decoder.decode(r.stdout), err: decoder.decode(r.stderr) };
}

/** Everything the model was sent in `/v1/messages` requests, as one text. */
function sentToModel(fake: ReturnType<typeof startFakeAnthropic>, from: number): string {
  return fake.requests.slice(from).filter((r) => r.path === "/v1/messages").map((r) => r.body)
    .join("\n");
}

Deno.test("Claude Code (real CLI from npm): the bootstrap and recalled memories reach the model", async () => {
  const claude = await claudeCodeBin();
  const admin = await startAdminProcess();
  const fake = startFakeAnthropic();
  const dir = await tempDir("mneme-claude-");
  try {
    const home = `${dir.path}/home`;
    const repo = `${dir.path}/billing-svc`;
    await Deno.mkdir(home);
    await Deno.mkdir(`${repo}/src`, { recursive: true });
    assert.ok((await new Deno.Command("git", { args: ["init", "-q", repo] }).output()).success);

    const client = new MemoryClient({ baseUrl: admin.url });
    await client.create({
      content: "Always run deno task ok before committing",
      type: "bootstrap",
      tags: ["rule"],
    });
    const fact = (await client.create({
      content: "The billing service stores invoice PDFs in the S3 bucket acme-invoices-prod",
      project: "billing-svc",
    })).memory;

    // memcli installed as a user installs it, for this configuration.
    const config = { HOME: home, DATA_DIR: `${dir.path}/data`, MEMORY_API_URL: admin.url };
    const { PATH } = await installCommands(`${dir.path}/root`, config);
    const env = { ...toolEnv(), ...config, PATH };

    const hooks = await run("memcli", ["hooks", "install", "--recall"], repo, env);
    assert.equal(hooks.code, 0, hooks.err);
    assert.match(hooks.out, /SessionStart: added 'memcli bootstrap --hook'/);
    assert.match(hooks.out, /UserPromptSubmit: added 'memcli recall --hook'/);

    const claudeEnv = {
      ...env,
      ANTHROPIC_BASE_URL: fake.url,
      CLAUDE_CODE_OAUTH_TOKEN: fake.issueTokens().accessToken,
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    };
    const ask = async (prompt: string) => {
      const from = fake.requests.length;
      const r = await run(claude, ["-p", prompt], repo, claudeEnv);
      assert.equal(r.code, 0, r.err + r.out);
      return sentToModel(fake, from);
    };

    const relevant = await ask("Where are the invoice PDFs of the billing service stored?");
    assert.ok(relevant, "Claude Code sent a model request");
    // The bootstrap (SessionStart), for the repository's project.
    assert.ok(relevant.includes("Always run deno task ok before committing"), "bootstrap rule");
    assert.ok(relevant.includes("- Project: billing-svc (source: git)"), "project from git");
    // The recalled fact with its id (UserPromptSubmit).
    assert.ok(relevant.includes("Relevant memories (Mneme, project billing-svc)"));
    assert.ok(
      relevant.includes(`id ${fact.id}] The billing service stores invoice PDFs`),
      "recalled fact with its id",
    );

    const unrelated = await ask("Write a haiku about autumn leaves");
    assert.ok(unrelated.includes("Always run deno task ok before committing"));
    assert.ok(!unrelated.includes("Relevant memories"), "no memory injected");
    assert.ok(!unrelated.includes("acme-invoices-prod"), "the fact stays out");

    // Uninstalled: the next session gets neither.
    const un = await run("memcli", ["hooks", "uninstall"], repo, env);
    assert.equal(un.code, 0, un.err);
    const after = await ask("Where are the invoice PDFs of the billing service stored?");
    assert.ok(!after.includes("Always run deno task ok before committing"));
    assert.ok(!after.includes("acme-invoices-prod"));
  } finally {
    await fake.close();
    await admin.stop();
    await dir.cleanup();
  }
});
