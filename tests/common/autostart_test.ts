/**
 * The start-at-login module: files written under a temporary HOME, the outside commands
 * recorded by an injected runner (the real user manager is never touched), the unit checked
 * by the real `systemd-analyze verify` where it is installed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type AutostartHost,
  type AutostartSpec,
  autostartStatus,
  desktopEntry,
  detectAutostart,
  disableAutostart,
  enableAutostart,
  entrySetsEnv,
  launchdPlist,
  loginLine,
  manualInstructions,
  type RunResult,
  systemdUnit,
} from "../../src/common/autostart.ts";
import { exists } from "../../src/common/fs.ts";

/** A host under a fresh HOME whose runner records each call and answers with `codes`. */
async function host(
  os: string,
  codes: Record<string, number> = {},
): Promise<{ host: AutostartHost; calls: string[]; home: string }> {
  const home = await Deno.makeTempDir({ prefix: "mneme-autostart-" });
  const calls: string[] = [];
  const run = (cmd: string, args: string[]): Promise<RunResult> => {
    const line = [cmd, ...args].join(" ");
    calls.push(line);
    const code = Object.entries(codes).find(([k]) => line.startsWith(k))?.[1] ?? 0;
    return Promise.resolve({ code, stdout: "", stderr: code ? "refused" : "" });
  };
  return { host: { os, home, uid: 501, run }, calls, home };
}

const SPEC: AutostartSpec = {
  name: "mneme-test",
  description: "Mneme memory service (100% local)",
  argv: ["/opt/deno dir/deno", "run", "--allow-env=$HOME", 'say "hi"'],
  env: { DATA_DIR: "/home/u/.local/share/mneme", ADMIN_API_KEY: "s3cret-value" },
  logFile: "/home/u/.local/share/mneme/logs/admin.log",
};

Deno.test("systemd: enable writes an owner-only unit, reloads and enables; again changes nothing", async () => {
  const { host: h, calls, home } = await host("linux");
  try {
    assert.equal(await detectAutostart(h), "systemd");
    calls.length = 0;
    const r = await enableAutostart(SPEC, { host: h, now: true });
    const file = join(home, ".config/systemd/user/mneme-test.service");
    assert.equal(r.kind, "systemd");
    assert.equal(r.file, file);
    assert.equal(r.changed, true);
    assert.deepEqual(calls, [
      "systemctl --user show-environment",
      "systemctl --user daemon-reload",
      "systemctl --user enable mneme-test.service",
      "systemctl --user restart mneme-test.service",
    ]);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    const unit = await Deno.readTextFile(file);
    assert.match(unit, /^Description=Mneme memory service \(100%% local\)$/m);
    assert.match(
      unit,
      /^ExecStart="\/opt\/deno dir\/deno" "run" "--allow-env=\$\$HOME" "say \\"hi\\""$/m,
    );
    assert.match(unit, /^Environment="DATA_DIR=\/home\/u\/\.local\/share\/mneme"$/m);
    assert.match(
      unit,
      /^StandardOutput=append:\/home\/u\/\.local\/share\/mneme\/logs\/admin\.log$/m,
    );
    assert.match(unit, /^WantedBy=default\.target$/m);
    assert.deepEqual(await autostartStatus("mneme-test", h), { kind: "systemd", file });

    calls.length = 0;
    const again = await enableAutostart(SPEC, { host: h });
    assert.equal(again.changed, false);
    assert.deepEqual(calls, [
      "systemctl --user show-environment",
      "systemctl --user enable mneme-test.service",
    ]);

    calls.length = 0;
    const off = await disableAutostart("mneme-test", { host: h, now: true });
    assert.equal(off.changed, true);
    assert.deepEqual(calls, [
      "systemctl --user show-environment",
      "systemctl --user disable --now mneme-test.service",
      "systemctl --user daemon-reload",
    ]);
    assert.equal(await exists(file), false);
    assert.equal(await autostartStatus("mneme-test", h), null);
    calls.length = 0;
    assert.equal((await disableAutostart("mneme-test", { host: h })).changed, false);
    assert.deepEqual(calls, []);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("systemd: XDG_CONFIG_HOME places the unit; a dry run writes and runs nothing", async () => {
  const { host: h, calls, home } = await host("linux");
  try {
    h.xdgConfigHome = join(home, "cfg");
    const r = await enableAutostart(SPEC, { host: h, dryRun: true, now: true });
    const file = join(home, "cfg/systemd/user/mneme-test.service");
    assert.equal(r.file, file);
    assert.deepEqual(r.steps, [
      `write ${file}`,
      "systemctl --user daemon-reload",
      "systemctl --user enable mneme-test.service",
      "systemctl --user restart mneme-test.service",
    ]);
    assert.deepEqual(calls, ["systemctl --user show-environment"]);
    assert.equal(await exists(join(home, "cfg")), false);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("systemd: a failing systemctl is an error naming the command", async () => {
  const { host: h, home } = await host("linux", { "systemctl --user enable": 1 });
  try {
    await assert.rejects(
      enableAutostart(SPEC, { host: h }),
      /systemctl --user enable mneme-test\.service failed \(exit 1\): refused/,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the unit passes systemd-analyze verify", async () => {
  let tool = true;
  try {
    await new Deno.Command("systemd-analyze", { args: ["--version"], stdout: "null" }).output();
  } catch {
    tool = false;
  }
  if (!tool) return; // not installed here: the textual checks above still hold
  const dir = await Deno.makeTempDir();
  try {
    // Executables that exist, so that verify checks the syntax and not the paths.
    const spec = { ...SPEC, argv: ["/bin/sh", "-c", "echo 50% $HOME"], logFile: undefined };
    await Deno.writeTextFile(join(dir, "mneme-test.service"), systemdUnit(spec));
    const out = await new Deno.Command("systemd-analyze", {
      args: ["verify", join(dir, "mneme-test.service")],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.ok(out.success, err);
    assert.doesNotMatch(err, /mneme-test\.service:/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("launchd: a plist under ~/Library/LaunchAgents, loaded with bootstrap, removed with bootout", async () => {
  const { host: h, calls, home } = await host("darwin");
  try {
    const r = await enableAutostart(SPEC, { host: h, now: true });
    const file = join(home, "Library/LaunchAgents/mneme-test.plist");
    assert.equal(r.kind, "launchd");
    assert.equal(r.file, file);
    assert.deepEqual(calls, [
      "launchctl bootout gui/501/mneme-test",
      `launchctl bootstrap gui/501 ${file}`,
    ]);
    const plist = await Deno.readTextFile(file);
    assert.match(plist, /<key>Label<\/key><string>mneme-test<\/string>/);
    assert.match(plist, /<string>say &quot;hi&quot;<\/string>/);
    assert.match(plist, /<key>RunAtLoad<\/key><true\/>/);
    assert.match(plist, /<key>DATA_DIR<\/key><string>\/home\/u\/\.local\/share\/mneme<\/string>/);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    calls.length = 0;
    assert.equal((await enableAutostart(SPEC, { host: h })).changed, false);
    assert.deepEqual(calls, []);
    await disableAutostart("mneme-test", { host: h });
    assert.deepEqual(calls, ["launchctl bootout gui/501/mneme-test"]);
    assert.equal(await exists(file), false);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("no user manager: a printed fallback, nothing written, no secret shown", async () => {
  const { host: h, calls, home } = await host("linux", { "systemctl --user show-environment": 1 });
  try {
    const r = await enableAutostart(SPEC, { host: h, now: true });
    assert.equal(r.kind, "manual");
    assert.equal(r.changed, false);
    assert.deepEqual(calls, ["systemctl --user show-environment"]);
    assert.ok(r.manual);
    assert.match(r.manual, /will not start at login by itself: no systemd user manager/);
    assert.match(
      r.manual,
      /@reboot env DATA_DIR=\/home\/u\/\.local\/share\/mneme ADMIN_API_KEY="\$ADMIN_API_KEY" '\/opt\/deno dir\/deno' run/,
    );
    assert.match(
      r.manual,
      /^ {2}\(nohup env DATA_DIR=.* >>\/home\/u\/\.local\/share\/mneme\/logs\/admin\.log 2>&1 &\)$/m,
    );
    assert.doesNotMatch(r.manual, /s3cret/);
    assert.equal(await exists(join(home, ".config")), false);
    const other = manualInstructions(SPEC, { os: "windows" });
    assert.match(other, /windows has neither systemd nor launchd/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("bad input is an error naming the field, and writes nothing", async () => {
  const { host: h, calls, home } = await host("linux");
  try {
    await assert.rejects(
      enableAutostart({ ...SPEC, argv: ["deno", "run"] }, { host: h }),
      /argv: the first word must be an absolute path/,
    );
    await assert.rejects(
      enableAutostart({ ...SPEC, name: "../x" }, { host: h }),
      /autostart name "\.\.\/x"/,
    );
    await assert.rejects(
      enableAutostart({ ...SPEC, env: { A: "x\ny" } }, { host: h }),
      /env A: contains a control character/,
    );
    await assert.rejects(
      enableAutostart({ ...SPEC, logFile: "log" }, { host: h }),
      /logFile: must be an absolute path/,
    );
    assert.deepEqual(calls, []);
    assert.deepEqual([...Deno.readDirSync(home)], []);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** SPEC with a start command: the fallbacks without a supervisor may be used. */
const STARTING: AutostartSpec = { ...SPEC, startCommand: ["/opt/bin/memcli", "start"] };

Deno.test("no user manager, a start command: XDG autostart in a desktop session, then crontab, then the profile", async () => {
  // A desktop session: an XDG autostart entry, owner-only; disable removes it.
  const d = await host("linux", { "systemctl": 1 });
  try {
    const h = { ...d.host, desktop: true };
    assert.equal(await detectAutostart(h), "manual", "no start command: no fallback");
    assert.equal(await detectAutostart(h, true), "xdg");
    d.calls.length = 0;
    const r = await enableAutostart(STARTING, { host: h });
    const file = join(d.home, ".config/autostart/mneme-test.desktop");
    assert.deepEqual([r.kind, r.file, r.changed], ["xdg", file, true]);
    assert.deepEqual(d.calls, ["systemctl --user show-environment"]);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    const entry = await Deno.readTextFile(file);
    assert.match(entry, /^Exec=\/bin\/sh -c "\[ -x \/opt\/bin\/memcli \] && \(env /m);
    assert.match(entry, /^Name=Mneme memory service \(100% local\)$/m);
    assert.doesNotMatch(entry, /s3cret/);
    assert.deepEqual(await autostartStatus("mneme-test", h, true), { kind: "xdg", file });
    assert.equal((await enableAutostart(STARTING, { host: h })).changed, false);
    const off = await disableAutostart("mneme-test", { host: h, fallbacks: true });
    assert.deepEqual([off.kind, off.changed], ["xdg", true]);
    assert.equal(await exists(file), false);
  } finally {
    await Deno.remove(d.home, { recursive: true });
  }
  // crontab there (`crontab -l` exits 1: no crontab yet): an @reboot line, kept others.
  const c = await host("linux", { "systemctl": 1, "crontab -l": 1 });
  try {
    assert.equal(await detectAutostart(c.host, true), "cron");
    const written: string[] = [];
    let tab = "";
    const h = {
      ...c.host,
      run: (cmd: string, args: string[], stdin?: string) => {
        const line = [cmd, ...args].join(" ");
        c.calls.push(line);
        if (line === "crontab -l") return Promise.resolve({ code: 0, stdout: tab, stderr: "" });
        if (line === "crontab -") {
          written.push(stdin ?? "");
          tab = stdin ?? "";
        }
        return Promise.resolve({
          code: line.startsWith("systemctl") ? 1 : 0,
          stdout: "",
          stderr: "",
        });
      },
    };
    tab = "0 * * * * other job\n";
    const r = await enableAutostart(STARTING, { host: h, kind: "cron" });
    assert.deepEqual([r.kind, r.changed], ["cron", true]);
    assert.equal(written.length, 1);
    assert.match(written[0], /^0 \* \* \* \* other job\n@reboot \[ -x \/opt\/bin\/memcli \] && /);
    assert.match(written[0], /100\\% local|start >>/);
    assert.match(written[0], / # mneme-test: start at login \(autostart\)\n$/);
    assert.equal((await enableAutostart(STARTING, { host: h, kind: "cron" })).changed, false);
    const off = await disableAutostart("mneme-test", { host: h, fallbacks: true });
    assert.deepEqual([off.kind, off.changed], ["cron", true]);
    assert.equal(tab, "0 * * * * other job\n");
  } finally {
    await Deno.remove(c.home, { recursive: true });
  }
  // Neither: a line in the login shell's profile (bash: ~/.bash_profile when there).
  const p = await host("linux", { "systemctl": 1, "crontab": 127 });
  try {
    assert.equal(await detectAutostart(p.host, true), "profile");
    const h = { ...p.host, shell: "/bin/bash" };
    await Deno.writeTextFile(join(p.home, ".bash_profile"), "export A=1\n");
    const r = await enableAutostart(STARTING, { host: h });
    const file = join(p.home, ".bash_profile");
    assert.deepEqual([r.kind, r.file, r.changed], ["profile", file, true]);
    const text = await Deno.readTextFile(file);
    assert.match(text, /^export A=1\n\[ -x \/opt\/bin\/memcli \] && \(env DATA_DIR=/);
    assert.match(text, /ADMIN_API_KEY="\$ADMIN_API_KEY"/, "a secret is read at login, not written");
    assert.match(text, /'\/opt\/bin\/memcli' start|\/opt\/bin\/memcli start/);
    assert.deepEqual(await autostartStatus("mneme-test", h, true), { kind: "profile", file });
    assert.equal((await enableAutostart(STARTING, { host: h })).changed, false);
    const off = await disableAutostart("mneme-test", { host: h, fallbacks: true });
    assert.deepEqual([off.kind, off.changed], ["profile", true]);
    assert.equal(await Deno.readTextFile(file), "export A=1\n");
    // zsh reads ~/.zprofile; others ~/.profile.
    const z = await enableAutostart(STARTING, { host: { ...h, shell: "/usr/bin/zsh" } });
    assert.equal(z.file, join(p.home, ".zprofile"));
    const sh = await enableAutostart(STARTING, { host: { ...h, shell: "/bin/dash" } });
    assert.equal(sh.file, join(p.home, ".profile"));
  } finally {
    await Deno.remove(p.home, { recursive: true });
  }
});

Deno.test("profile line and @reboot line enabled again: kept where they are, the user's lines below them kept below", async () => {
  const p = await host("linux", { "systemctl": 1, "crontab": 127 });
  try {
    const h = { ...p.host, shell: "/bin/sh" };
    const file = join(p.home, ".profile");
    await Deno.writeTextFile(file, "export A=1\n");
    assert.equal((await enableAutostart(STARTING, { host: h })).changed, true);
    // The user appends their own line below ours.
    await Deno.writeTextFile(file, 'export PATH="$HOME/bin:$PATH"\n', { append: true });
    const placed = await Deno.readTextFile(file);
    const again = await enableAutostart(STARTING, { host: h });
    assert.deepEqual([again.changed, again.steps], [false, []]);
    assert.equal(await Deno.readTextFile(file), placed, "a line in place is left where it is");
    // A different line (another port) is rewritten in place, the user's line still below.
    const moved = { ...STARTING, env: { ...STARTING.env, ADMIN_PORT: "4317" } };
    assert.equal((await enableAutostart(moved, { host: h })).changed, true);
    const lines = (await Deno.readTextFile(file)).split("\n");
    assert.equal(lines.length, 4, lines.join("\n"));
    assert.equal(lines[0], "export A=1");
    assert.match(lines[1], /ADMIN_PORT=4317 .* # mneme-test: start at login \(autostart\)$/);
    assert.equal(lines[2], 'export PATH="$HOME/bin:$PATH"');
    assert.equal(lines[3], "");
  } finally {
    await Deno.remove(p.home, { recursive: true });
  }
  // The crontab alike: a job added below the @reboot line stays below it.
  const c = await host("linux", { "systemctl": 1 });
  try {
    let tab = "";
    let writes = 0;
    const h: AutostartHost = {
      ...c.host,
      run: (cmd: string, args: string[], stdin?: string) => {
        const line = [cmd, ...args].join(" ");
        if (line === "crontab -l") return Promise.resolve({ code: 0, stdout: tab, stderr: "" });
        if (line === "crontab -") {
          writes++;
          tab = stdin ?? "";
        }
        return Promise.resolve({ code: 0, stdout: "", stderr: "" });
      },
    };
    assert.equal((await enableAutostart(STARTING, { host: h, kind: "cron" })).changed, true);
    tab += "0 * * * * later job\n";
    const placed = tab;
    assert.equal((await enableAutostart(STARTING, { host: h, kind: "cron" })).changed, false);
    assert.deepEqual([tab, writes], [placed, 1]);
    const moved = { ...STARTING, env: { ...STARTING.env, ADMIN_PORT: "4317" } };
    assert.equal((await enableAutostart(moved, { host: h, kind: "cron" })).changed, true);
    assert.match(tab, /^@reboot .*ADMIN_PORT=4317 .*\n0 \* \* \* \* later job\n$/);
  } finally {
    await Deno.remove(c.home, { recursive: true });
  }
});

Deno.test("entrySetsEnv reads a variable as each mechanism writes it, quoting and escapes included", () => {
  for (const dir of ["/home/u/.local/share/mneme", "/home/u/my data/100% 'mneme' $x\\y"]) {
    const spec = { ...STARTING, env: { ...STARTING.env, DATA_DIR: dir } };
    const line = `${loginLine(spec)} # mneme-test: start at login (autostart)`;
    const entries = [
      { kind: "systemd" as const, text: systemdUnit(spec) },
      { kind: "launchd" as const, text: launchdPlist(spec, "/home/u") },
      { kind: "xdg" as const, text: desktopEntry(spec) },
      { kind: "profile" as const, text: line },
      { kind: "cron" as const, text: `@reboot ${line.replace(/%/g, "\\%")}` },
    ];
    for (const e of entries) {
      assert.equal(entrySetsEnv(e, "DATA_DIR", dir), true, `${e.kind} ${dir}`);
      assert.equal(entrySetsEnv(e, "DATA_DIR", `${dir}-other`), false, `${e.kind} ${dir}`);
      assert.equal(entrySetsEnv(e, "DATA_DIR", "/home/u"), false, `${e.kind}: a prefix`);
      assert.equal(entrySetsEnv(e, "XDG_DATA_HOME", dir), null, `${e.kind}: not set`);
    }
  }
});
