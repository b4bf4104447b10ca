/**
 * `memcli connect claude` with the judge on (RECALL_JUDGE, docs/recall.md): the prompt hook it
 * writes asks the judge, as the service it installs judges, since Claude Code may run the hooks
 * without the user's shell variables.
 */
import assert from "node:assert/strict";
import { hookCommands } from "../../src/memcli/commands/connect.ts";
import { isMnemeCommand } from "../../src/memcli/claude_settings.ts";
import { hookUrl } from "../../src/memcli/connect/drift.ts";
import { loadMemoryConfig } from "../../src/config.ts";
import { tempDir } from "../helpers.ts";
import { memcliProcess } from "./_util.ts";

const bin = { memcli: "/opt/mneme bin/memcli", admin: "/opt/mneme bin/mneme-admin" } as never;
const url = "http://127.0.0.1:4311";

Deno.test("connect: the prompt hook carries RECALL_JUDGE (and a time budget not the default)", () => {
  const env = (o: Record<string, string>) => loadMemoryConfig((n) => o[n]);
  const off = hookCommands(bin, url, true, false, env({}));
  assert.doesNotMatch(off.UserPromptSubmit!, /RECALL_JUDGE/);
  const on = hookCommands(bin, url, true, true, env({ RECALL_JUDGE: "on" }));
  assert.equal(
    on.UserPromptSubmit,
    `MEMORY_API_URL=${url} RECALL_JUDGE=on '/opt/mneme bin/memcli' recall --hook`,
  );
  // Only the prompt hook asks the judge.
  for (const [event, command] of Object.entries(on)) {
    assert.equal(/RECALL_JUDGE/.test(command!), event === "UserPromptSubmit", event);
    assert.ok(isMnemeCommand(command), command);
    assert.equal(hookUrl(command!), url);
  }
  const slow = hookCommands(
    bin,
    url,
    true,
    false,
    env({ RECALL_JUDGE: "on", RECALL_JUDGE_TIMEOUT_MS: "4000" }),
  );
  assert.match(slow.UserPromptSubmit!, /RECALL_JUDGE=on RECALL_JUDGE_TIMEOUT_MS=4000 '/);
  assert.equal(
    hookCommands(bin, url, false, false, env({ RECALL_JUDGE: "on" })).UserPromptSubmit,
    undefined,
  );
});

Deno.test("connect with a judge setting out of range names the setting, not a missing install", async () => {
  // memcli as installed (a real process with the launcher's permissions for this environment):
  // an invalid configuration leaves it few permissions, so the setting must be named first.
  const dir = await tempDir("mneme-connect-bad-setting-");
  // A fresh HOME, with this run's Deno cache (not one under that HOME).
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  })
    .output();
  const DENO_DIR: string = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir;
  try {
    for (
      const [name, value, says] of [
        ["RECALL_JUDGE_POOL", "12", "must be an integer between 1 and 10"],
        ["RECALL_JUDGE_TIMEOUT_MS", "99999", "must be an integer between 100 and 7000"],
      ]
    ) {
      const r = await memcliProcess(["connect", "claude", "--recall", "--dry-run"], {
        env: { HOME: dir.path, DENO_DIR, DATA_DIR: `${dir.path}/data`, [name]: value },
        cwd: dir.path,
      });
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(r.err, new RegExp(`${name}="${value}" ${says}`), r.err);
      assert.doesNotMatch(r.err, /is not there/);
      assert.equal(r.out, "", "nothing was done");
    }
  } finally {
    await dir.cleanup();
  }
});
