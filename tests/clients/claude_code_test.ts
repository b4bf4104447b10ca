/**
 * The Claude Code CLI from npm as a real client, talking only to local fakes:
 * - `claude -p` with `ANTHROPIC_BASE_URL` at `msgcli serve` and the daemon at the fake
 *   upstream: the reply comes back through the daemon, and the upstream saw Claude Code's
 *   request (its system-role turn, `?beta=true`, its own billing block) prepared for OAuth;
 * - `msgcli run -- claude -p …`: msgcli starts the daemon and sets the variables itself;
 * - `claude mcp list` shows `mneme-mcp` connected (API mode, a real admin daemon).
 */
import assert from "node:assert/strict";
import { startRig } from "../serve/helpers.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { fakeEnv, runMsgcli, seedCredentials } from "../msg/helpers.ts";
import { mcpServerCommand, startAdminProcess, tempDir } from "../helpers.ts";
import { CLAUDE_CODE_VERSION, claudeCode, clientTest, npmMissing } from "./npm.ts";

const missing = await npmMissing();
if (missing) console.error(`claude code tests skipped: ${missing}`);

/** The Deno cache directory of this run (`deno info --json`). */
async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

const DAEMON_KEY = "claude-code-daemon-key-0123";

/** Runs the CLI with a clean environment (own HOME, no proxy to the outside) and a deadline. */
async function runClaude(
  args: string[],
  env: Record<string, string>,
  home: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = await claudeCode();
  const out = await new Deno.Command(bin, {
    args,
    cwd: home,
    clearEnv: true,
    env: {
      HOME: home,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      CI: "true",
      NO_COLOR: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

clientTest(
  `Claude Code ${CLAUDE_CODE_VERSION}: claude -p gets its reply through msgcli serve`,
  missing,
  async () => {
    const reply = "Hello from the fake upstream, through the daemon.";
    const rig = await startRig({ args: ["--auth-key", DAEMON_KEY], fake: { replyText: reply } });
    const home = await tempDir("mneme-claude-home-");
    try {
      const r = await runClaude(["-p", "say hi"], {
        ANTHROPIC_BASE_URL: rig.url,
        ANTHROPIC_AUTH_TOKEN: DAEMON_KEY,
      }, home.path);
      assert.equal(r.code, 0, `claude -p failed:\n${r.stdout}\n${r.stderr}`);
      assert.equal(r.stdout.trim(), reply);

      const ups = rig.fake.requestsTo("/v1/messages").filter((u) => u.method === "POST");
      assert.ok(ups.length >= 1, "the upstream was asked");
      const up = ups[ups.length - 1];
      assert.equal(up.url, "/v1/messages?beta=true", "Claude Code's query string kept");
      // OAuth preparation: the daemon's token, never the daemon key.
      assert.match(up.headers.authorization, /^Bearer sk-ant-oat01-/);
      assert.equal(up.headers["x-api-key"], undefined);
      assert.ok(!JSON.stringify(up.headers).includes(DAEMON_KEY), "the daemon key stays local");
      const betas = up.headers["anthropic-beta"].split(",");
      assert.ok(betas.includes("oauth-2025-04-20"));
      assert.ok(betas.includes("claude-code-20250219"), "Claude Code's betas merged");
      assert.match(up.headers["user-agent"], new RegExp(`^claude-cli/${CLAUDE_CODE_VERSION}`));
      assert.equal(up.headers["x-app"], "cli");
      const body = up.json as {
        system: Array<{ text?: string }>;
        messages: Array<{ role: string }>;
        stream?: boolean;
      };
      const billing = body.system.filter((b) =>
        (b.text ?? "").startsWith("x-anthropic-billing-header:")
      );
      assert.equal(billing.length, 1, "one billing block: Claude Code's own");
      assert.match(billing[0].text!, /cc_entrypoint=/);
      // The request that the daemon used to refuse: a system-role message mid-conversation.
      assert.ok(
        body.messages.some((m) => m.role === "system"),
        `roles sent: ${body.messages.map((m) => m.role).join(",")}`,
      );
      assert.equal(body.stream, true, "Claude Code streams; the SSE passed through");
    } finally {
      await rig.close();
      await home.cleanup();
    }
  },
);

clientTest(
  `Claude Code ${CLAUDE_CODE_VERSION}: claude mcp list shows mneme-mcp connected`,
  missing,
  async () => {
    const key = "mcp-list-key-" + crypto.randomUUID();
    const admin = await startAdminProcess({ env: { ADMIN_API_KEY: key } });
    const home = await tempDir("mneme-claude-home-");
    try {
      // The server runs with Claude Code's HOME (a temp dir): point Deno at the real cache.
      const env: Record<string, string> = {
        MEMORY_API_URL: admin.url,
        ADMIN_API_KEY: key,
        DENO_DIR: await denoDir(),
      };
      const add = await runClaude(
        [
          "mcp",
          "add",
          "--scope",
          "user",
          "mneme",
          ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
          "--",
          ...mcpServerCommand(env),
        ],
        {},
        home.path,
      );
      assert.equal(add.code, 0, `claude mcp add failed:\n${add.stdout}\n${add.stderr}`);
      const list = await runClaude(["mcp", "list"], {}, home.path);
      assert.equal(list.code, 0, `claude mcp list failed:\n${list.stdout}\n${list.stderr}`);
      assert.match(list.stdout, /^mneme: .*src\/bin\/mcp\.ts.* - ✔ Connected$/m, list.stdout);
    } finally {
      await home.cleanup();
      await admin.stop();
    }
  },
);

clientTest(
  `Claude Code ${CLAUDE_CODE_VERSION}: msgcli run -- claude -p starts serve and points Claude Code at it`,
  missing,
  async () => {
    const reply = "Hello through msgcli run.";
    const fake = startFakeAnthropic({ replyText: reply });
    const home = await tempDir("mneme-claude-home-");
    const creds = `${home.path}/msgcli/credentials.json`;
    await Deno.mkdir(`${home.path}/msgcli`, { mode: 0o700 });
    await seedCredentials(fake, creds);
    // Claude Code gets a HOME of its own; Deno keeps the real cache.
    const env = {
      ...fakeEnv(fake, creds),
      HOME: home.path,
      DENO_DIR: await denoDir(),
      CI: "true",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      MSGCLI_SERVE_KEY: DAEMON_KEY,
    };
    try {
      const bin = await claudeCode();
      const r = await runMsgcli(
        ["run", "--listen", "127.0.0.1:0", "--", bin, "-p", "say hi"],
        { env },
      );
      assert.equal(r.code, 0, `msgcli run -- claude failed:\n${r.stdout}\n${r.stderr}`);
      assert.equal(r.stdout.trim(), reply);
      assert.match(r.stderr, /started msgcli serve \(pid \d+\)/);
      const ups = fake.requestsTo("/v1/messages").filter((u) => u.method === "POST");
      assert.ok(ups.length >= 1, "the upstream was asked");
      const up = ups[ups.length - 1];
      assert.match(up.headers.authorization, /^Bearer sk-ant-oat01-/);
      assert.ok(!JSON.stringify(up.headers).includes(DAEMON_KEY), "the daemon key stays local");
      assert.match(up.headers["user-agent"], new RegExp(`^claude-cli/${CLAUDE_CODE_VERSION}`));
    } finally {
      await runMsgcli(["serve", "stop"], { env });
      await fake.close();
      await home.cleanup();
    }
  },
);
