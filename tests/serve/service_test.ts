/**
 * `msgcli serve start|stop|restart|status` as a user runs them: the real msgcli entry with
 * the permissions its task computes, a detached daemon on the fake upstream, its pid, state
 * and log next to the credentials file.
 */
import assert from "node:assert/strict";
import { configDirSetup, runMsgcli } from "../msg/helpers.ts";
import { startRig } from "./helpers.ts";

function setup(withCredentials: boolean) {
  return configDirSetup({ withCredentials });
}

Deno.test("serve start / status / stop: a background daemon with its pid, state and log in the config dir", async () => {
  await using s = await setup(true);
  const start = await runMsgcli(["serve", "start", "--listen", "127.0.0.1:0"], { env: s.env });
  assert.equal(start.code, 0, start.stderr + start.stdout);
  const m = /started \(pid (\d+)\) on (http:\/\/127\.0\.0\.1:\d+): ok, token alive/.exec(
    start.stdout,
  );
  assert.ok(m, start.stdout);
  const [pid, url] = [Number(m[1]), m[2]];
  assert.match(start.stdout, new RegExp(`ANTHROPIC_BASE_URL=${url}`));
  for (const f of ["serve.pid", "serve.json", "serve.log"]) {
    assert.equal((await Deno.stat(`${s.dir}/${f}`)).mode! & 0o077, 0, `${f} owner-only`);
  }
  assert.equal(JSON.parse(await Deno.readTextFile(`${s.dir}/serve.json`)).url, url);
  assert.match(await Deno.readTextFile(`${s.dir}/serve.log`), /listening on/);

  // The daemon answers: a request goes through to the fake.
  const r = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "claude-sonnet-4-6",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
    }),
  });
  assert.equal(r.status, 200);
  await r.body?.cancel();

  const again = await runMsgcli(["serve", "start", "--listen", "127.0.0.1:0"], { env: s.env });
  assert.equal(again.code, 0);
  assert.match(again.stdout, new RegExp(`already running \\(pid ${pid}\\) on ${url}`));

  const st = await runMsgcli(["serve", "status"], { env: s.env });
  assert.equal(st.code, 0, st.stdout + st.stderr);
  assert.equal(st.stdout.trim().split("\n").length, 1, "one line");
  assert.match(st.stdout, new RegExp(`running \\(pid ${pid}\\) on ${url}: ok, token alive until`));

  const stop = await runMsgcli(["serve", "stop"], { env: s.env });
  assert.equal(stop.code, 0, stop.stdout + stop.stderr);
  assert.match(stop.stdout, new RegExp(`stopped \\(pid ${pid}\\)`));
  await assert.rejects(() => Deno.stat(`${s.dir}/serve.pid`));
  await assert.rejects(() => fetch(`${url}/healthz`));

  const after = await runMsgcli(["serve", "status"], { env: s.env });
  assert.equal(after.code, 3);
  assert.match(after.stdout, /not running/);
  assert.match(await Deno.readTextFile(`${s.dir}/serve.log`), /stopped/);
});

Deno.test("serve status without credentials: no_credentials and the fix, in one line, exit 2", async () => {
  await using s = await setup(false);
  const start = await runMsgcli(["serve", "start", "--listen", "127.0.0.1:0"], { env: s.env });
  assert.equal(start.code, 0, start.stderr + start.stdout);
  assert.match(start.stdout, /no_credentials: run "msgcli login"/);
  const st = await runMsgcli(["serve", "status"], { env: s.env });
  assert.equal(st.code, 2);
  assert.match(
    st.stdout,
    /^msgcli serve: running \(pid \d+\) on \S+: no_credentials: run "msgcli login"/,
  );
  assert.equal(st.stdout.trim().split("\n").length, 1);
});

Deno.test("serve start: a daemon that cannot start is reported with its log; nothing left behind", async () => {
  await using s = await setup(true);
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (busy.addr as Deno.NetAddr).port;
    const r = await runMsgcli(["serve", "start", "--listen", `127.0.0.1:${port}`], { env: s.env });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /exited \(code 1\)/);
    assert.match(r.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
    await assert.rejects(() => Deno.stat(`${s.dir}/serve.pid`));
  } finally {
    busy.close();
  }
});

Deno.test("serve --help says what serve is for and names ANTHROPIC_BASE_URL and msgcli run", async () => {
  await using s = await setup(false);
  const r = await runMsgcli(["serve", "--help"], { env: s.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:8787/);
  assert.match(r.stdout, /msgcli run -- COMMAND/);
  assert.match(r.stdout, /msgcli serve start\|restart/);
});

Deno.test("serve: an unknown service command is a usage error", async () => {
  await using s = await setup(false);
  const r = await runMsgcli(["serve", "launch"], { env: s.env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /unknown serve command "launch"/);
});

/** A directory with a stand-in `systemctl` that records its arguments and exits `code`. */
async function fakeSystemctl(dir: string, code: number): Promise<{ path: string; log: string }> {
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin, { recursive: true });
  const log = `${dir}/systemctl.log`;
  await Deno.writeTextFile(
    `${bin}/systemctl`,
    `#!/bin/sh\necho "$*" >>'${log}'\nexit ${code}\n`,
    { mode: 0o755 },
  );
  return { path: `${bin}:${Deno.env.get("PATH")}`, log };
}

Deno.test("serve enable / disable: a systemd user unit running the daemon as start does, its log in the config dir", async () => {
  await using s = await setup(true);
  const xdg = `${s.dir}/xdg`;
  const sc = await fakeSystemctl(s.dir, 0);
  const env = { ...s.env, PATH: sc.path, XDG_CONFIG_HOME: xdg, MSGCLI_SERVE_KEY: "unit-key-0123" };
  const r = await runMsgcli(["serve", "enable", "--listen", "127.0.0.1:9931"], { env });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const unitPath = `${xdg}/systemd/user/msgcli-serve.service`;
  assert.match(r.stdout, new RegExp(`starts at login \\(systemd: ${unitPath}\\)`));
  assert.match(r.stdout, /systemctl --user start msgcli-serve/);
  const unit = await Deno.readTextFile(unitPath);
  assert.equal((await Deno.stat(unitPath)).mode! & 0o077, 0, "owner-only: it holds the key");
  assert.match(
    unit,
    /^ExecStart=.*"run" "--no-prompt".*"--allow-net=127\.0\.0\.1:9931,.*bin\/serve\.ts" "--listen" "127\.0\.0\.1:9931"$/m,
  );
  assert.doesNotMatch(unit, /--allow-run|--allow-all|"-A"/, "the daemon's exact set, nothing more");
  assert.match(unit, /MSGCLI_SERVE_KEY=unit-key-0123/);
  assert.match(unit, new RegExp(`MSGCLI_CREDENTIALS_PATH=${s.dir}/credentials\\.json`));
  assert.ok(unit.includes(`${s.dir}/serve.log`), "output to serve.log");
  const calls = await Deno.readTextFile(sc.log);
  assert.match(calls, /--user daemon-reload\n--user enable msgcli-serve\.service/);

  // Enabling again changes nothing; disabling removes the unit.
  const again = await runMsgcli(["serve", "enable", "--listen", "127.0.0.1:9931"], { env });
  assert.match(again.stdout, /already set up/);
  const off = await runMsgcli(["serve", "disable"], { env });
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /no longer started at login/);
  await assert.rejects(() => Deno.stat(unitPath));
  assert.match(await Deno.readTextFile(sc.log), /--user disable msgcli-serve\.service/);
  const none = await runMsgcli(["serve", "disable"], { env });
  assert.match(none.stdout, /was not set to start at login/);
});

Deno.test("serve enable without a user manager: printed instructions, the key not shown", async () => {
  await using s = await setup(true);
  const sc = await fakeSystemctl(s.dir, 1);
  const env = {
    ...s.env,
    PATH: sc.path,
    XDG_CONFIG_HOME: `${s.dir}/xdg`,
    MSGCLI_SERVE_KEY: "printed-key-0123",
  };
  const r = await runMsgcli(["serve", "enable"], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /will not start at login by itself: no systemd user manager answers/);
  assert.match(r.stdout, /bin\/serve\.ts/);
  assert.match(r.stdout, /MSGCLI_SERVE_KEY="\$MSGCLI_SERVE_KEY"/);
  assert.doesNotMatch(r.stdout, /printed-key-0123/);
  await assert.rejects(() => Deno.stat(`${s.dir}/xdg/systemd`));
});

Deno.test("a daemon started elsewhere (at login, in a terminal) is seen by status and reused by run", async () => {
  await using s = await setup(true);
  const rig = await startRig();
  try {
    const listen = rig.url.replace("http://", "");
    const st = await runMsgcli(["serve", "status", "--listen", listen], { env: s.env });
    assert.equal(st.code, 0, st.stdout + st.stderr);
    assert.match(
      st.stdout,
      new RegExp(`running on ${rig.url} \\(not started by "msgcli serve start"\\): ok`),
    );
    const r = await runMsgcli(
      ["run", "--listen", listen, "--", "sh", "-c", 'echo "base=$ANTHROPIC_BASE_URL"'],
      { env: s.env },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /started msgcli serve/);
    assert.match(r.stdout, new RegExp(`^base=${rig.url}$`, "m"));
    await assert.rejects(() => Deno.stat(`${s.dir}/serve.pid`), "nothing started");
  } finally {
    await rig.close();
  }
});
