/**
 * `msgcli logout` and `msgcli run` as a user runs them: the real entry with its task's
 * permissions, the fake upstream, and an `@anthropic-ai/sdk` script as the command.
 */
import assert from "node:assert/strict";
import { configDirSetup, fakeEnv, runMsgcli, seedCredentials } from "./helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

function setup() {
  return configDirSetup({ fake: { replyText: "hello through msgcli run" } });
}

Deno.test("logout removes the credentials and leftover temp files under the lock, says the token is not revoked", async () => {
  await using s = await setup();
  await seedCredentials(s.fake, s.creds);
  // What an interrupted write and probe leave behind (a temp may hold a live token).
  await Deno.writeTextFile(`${s.dir}/.credentials.json.0123.tmp`, "{}", { mode: 0o600 });
  await Deno.writeTextFile(`${s.dir}/.credentials.json.0456.probe`, "", { mode: 0o600 });
  const r = await runMsgcli(["logout"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Logged out: removed .*credentials\.json/);
  assert.match(
    r.stderr,
    /not revoked: the sign-in protocol msgcli uses documents no revocation endpoint/,
  );
  const left = [...Deno.readDirSync(s.dir)].map((e) => e.name);
  assert.deepEqual(left.filter((n) => n !== "credentials.json.lock"), [], `left: ${left}`);
  assert.equal(s.fake.requests.length, 0, "no network call");

  const again = await runMsgcli(["logout"], { env: s.env });
  assert.equal(again.code, 0);
  assert.match(again.stderr, /Not logged in: no credentials at/);

  // A directory that does not exist is not created.
  const nowhere = `${s.tmp}/never/credentials.json`;
  const none = await runMsgcli(["logout"], { env: fakeEnv(s.fake, nowhere) });
  assert.equal(none.code, 0);
  await assert.rejects(() => Deno.stat(`${s.tmp}/never`));
});

/** An SDK program as a user writes it: no base URL, no key in the code. */
const SDK_SCRIPT = `
import Anthropic from "npm:@anthropic-ai/sdk@1.11.0";
const client = new Anthropic({ maxRetries: 0 });
const msg = await client.messages.create({
  model: "claude-sonnet-4-6",
  max_tokens: 64,
  messages: [{ role: "user", content: "hi" }],
});
console.log(msg.content[0].type === "text" ? msg.content[0].text : "");
console.log("base=" + Deno.env.get("ANTHROPIC_BASE_URL"));
Deno.exit(7);
`;

Deno.test("run -- an @anthropic-ai/sdk script: serve started, the script reaches it, its exit code passed on", async () => {
  await using s = await setup();
  await seedCredentials(s.fake, s.creds);
  const script = `${s.tmp}/script.ts`;
  await Deno.writeTextFile(script, SDK_SCRIPT);
  const args = [
    "run",
    "--listen",
    "127.0.0.1:0",
    "--",
    Deno.execPath(),
    "run",
    "-A",
    "--config",
    `${ROOT}deno.json`,
    `--lock=${ROOT}tests/deno.lock`,
    script,
  ];
  const r = await runMsgcli(args, { env: { ...s.env, MSGCLI_SERVE_KEY: "run-test-key-0123" } });
  assert.equal(r.code, 7, r.stderr + r.stdout);
  assert.match(r.stdout, /^hello through msgcli run$/m);
  const url = /started msgcli serve \(pid \d+\) on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.stderr)?.[1];
  assert.ok(url, r.stderr);
  assert.match(r.stdout, new RegExp(`^base=${url}$`, "m"));
  const up = s.fake.requestsTo("/v1/messages").filter((u) => u.method === "POST");
  assert.equal(up.length, 1);
  assert.match(up[0].headers.authorization, /^Bearer sk-ant-oat01-/, "the daemon's OAuth token");
  assert.ok(!JSON.stringify(up[0].headers).includes("run-test-key-0123"), "the key stays local");
  // The daemon keeps running for the next command, which reuses it.
  const again = await runMsgcli(args, { env: { ...s.env, MSGCLI_SERVE_KEY: "run-test-key-0123" } });
  assert.equal(again.code, 7, again.stderr);
  assert.doesNotMatch(again.stderr, /started msgcli serve/);
  assert.match(again.stdout, new RegExp(`^base=${url}$`, "m"));
});

Deno.test("run: a command that does not exist exits 127; a missing command is a usage error", async () => {
  await using s = await setup();
  await seedCredentials(s.fake, s.creds);
  const r = await runMsgcli(["run", "--listen", "127.0.0.1:0", "--", "/nonexistent/cmd-xyz"], {
    env: s.env,
  });
  assert.equal(r.code, 127, r.stderr);
  assert.match(r.stderr, /cannot run "\/nonexistent\/cmd-xyz": command not found/);
  const u = await runMsgcli(["run"], { env: s.env });
  assert.equal(u.code, 1);
  assert.match(u.stderr, /run: missing command/);
});

Deno.test("run without credentials: says so and runs the command anyway", async () => {
  await using s = await setup();
  const r = await runMsgcli(["run", "--listen", "127.0.0.1:0", "--", "sh", "-c", "exit 3"], {
    env: s.env,
  });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /msgcli serve: no_credentials: run "msgcli login"/);
});
