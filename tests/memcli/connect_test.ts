/**
 * `memcli connect claude` / `memcli disconnect claude` as a new user runs them: the commands
 * installed with `deno task install` into a fresh HOME, run by absolute path with a PATH
 * that holds neither the install folder nor deno (only sh, ps, kill, node and the real
 * Claude Code CLI from npm, so no systemd user manager: the printed fallback), the real
 * service started in the background. Checks the dry run, the settings and Claude Code's MCP
 * registration written, idempotence (the login line left where it is, the user's line below
 * it kept), the warning of `hooks status` when hooks are in both the user and the project
 * settings, and that disconnect leaves nothing of Mneme (no empty
 * settings file, no backup folder, a clean `git status`), and that another data folder's
 * connect does not attach to this folder's service on the same port.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exists } from "../../src/common/fs.ts";
import { answers, newcomer, runClean } from "../helpers/install.ts";
import { ROOT } from "../helpers.ts";

Deno.test("memcli connect claude / disconnect claude from a fresh HOME, no deno on PATH", async () => {
  const { dir, home, repo, url, bin, env } = await newcomer(
    "mneme-connect-",
    "repo",
  );
  const memcli = (args: string[], cwd?: string) => runClean(join(bin, "memcli"), args, env, cwd);
  const settings = join(home, ".claude", "settings.json");
  const claudeJson = join(home, ".claude.json");
  const mcpServers = async () => {
    if (!(await exists(claudeJson))) return {};
    return JSON.parse(await Deno.readTextFile(claudeJson)).mcpServers ?? {};
  };
  try {
    assert.ok(
      (await runClean("git", ["init", "-q", repo], { PATH: Deno.env.get("PATH")! })).code === 0,
    );

    const dry = await memcli(["connect", "claude", "--dry-run"]);
    assert.equal(dry.code, 0, dry.err + dry.out);
    assert.match(dry.out, /^Dry run: Connecting Claude Code to Mneme/);
    assert.match(dry.out, new RegExp(`service: +would start in the background at ${url}`));
    assert.match(
      dry.out,
      /MCP: +would register server 'mneme' -> .*: claude mcp add --scope user mneme -e/,
    );
    assert.match(dry.out, /Dry run: nothing was changed\./);
    assert.match(dry.out, /hooks: +.*settings\.json \(would create\)/);
    assert.match(dry.out, /at login: +a line in .*\.profile .*\(would write it\)/);
    assert.doesNotMatch(dry.out, /would \w+(ed|en)\b/, "a dry run speaks of what it would do");
    assert.equal(await exists(settings), false);
    assert.deepEqual(await mcpServers(), {});
    assert.equal(await answers(url), false);

    const r = await memcli(["connect", "claude"]);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, new RegExp(`service: +started in the background at ${url} \\(pid \\d+\\)`));
    // No systemd, no crontab, no desktop here: a line in the login shell's profile.
    const profile = join(home, ".profile");
    assert.match(
      r.out,
      new RegExp(
        `at login: +a line in ${profile} \\(a login shell starts the service when it is not ` +
          "running\\) \\(written\\)",
      ),
    );
    const line = (await Deno.readTextFile(profile)).trimEnd();
    assert.equal(line.split("\n").length, 1);
    assert.match(line, new RegExp(`^\\[ -x ${bin}/memcli \\] && \\(cd .* ${bin}/memcli start >>`));
    assert.match(line, / # mneme: start at login \(autostart\)$/);
    // For real: a new login shell starts the service when it is down…
    const login = () =>
      runClean("/bin/bash", ["-lc", "true"], { HOME: home, PATH: env.PATH }, home);
    const pidOf = async () => Number(/pid (\d+)/.exec((await memcli(["status"])).out)?.[1]);
    assert.equal((await memcli(["stop"])).code, 0);
    assert.equal(await answers(url), false);
    assert.equal((await login()).code, 0);
    const deadline = Date.now() + 60_000;
    while (!(await answers(url)) && Date.now() < deadline) {
      await new Promise((f) => setTimeout(f, 250));
    }
    assert.ok(await answers(url), "the login shell started the service");
    const pid = await pidOf();
    // Started by the login line memcli wrote: memcli's own service, and status says so.
    assert.match(
      (await memcli(["status"])).out,
      new RegExp(
        `Daemon: +pid ${pid}, uptime .* \\(memcli's background service; the login line in ${profile} starts it\\)`,
      ),
    );
    // …and does nothing when it is up.
    assert.equal((await login()).code, 0);
    const log = join(home, ".local", "share", "mneme", "logs", "admin.log");
    const until = Date.now() + 30_000;
    while (
      !/already running \(pid \d+\)/.test(await Deno.readTextFile(log)) && Date.now() < until
    ) {
      await new Promise((f) => setTimeout(f, 250));
    }
    assert.match(await Deno.readTextFile(log), new RegExp(`already running \\(pid ${pid}\\)`));
    assert.equal(await pidOf(), pid);
    assert.match(
      r.out,
      /check: +the SessionStart hook prints the bootstrap \(PATH=\/usr\/bin:\/bin\)/,
    );
    assert.match(r.out, /check: +the MCP server answers initialize \(mneme \S+, \d+ tools\)/);
    assert.match(
      r.out,
      /Claude Code has Mneme from its next session\. Undo: memcli disconnect claude/,
    );
    assert.ok(await answers(url));
    // The hooks and the MCP server by absolute path: they need nothing on PATH.
    const hook = JSON.parse(await Deno.readTextFile(settings)).hooks.SessionStart[0].hooks[0];
    assert.equal(hook.command, `MEMORY_API_URL=${url} ${bin}/memcli bootstrap --hook`);
    const mcp = (await mcpServers()).mneme;
    assert.deepEqual(mcp, {
      type: "stdio",
      command: `${bin}/mneme-mcp`,
      args: [],
      env: { MEMORY_API_URL: url },
    });
    assert.equal(await exists(join(home, ".claude", "mneme-backups")), false);

    // The user adds their own line below the login line; connect again leaves both as they are.
    await Deno.writeTextFile(profile, 'export PATH="$HOME/bin:$PATH"\n', { append: true });
    const placed = await Deno.readTextFile(profile);
    const again = await memcli(["connect", "claude"]);
    assert.equal(again.code, 0, again.err + again.out);
    assert.match(again.out, new RegExp(`service: +running at ${url}`));
    assert.match(again.out, /at login: +a line in .*\.profile .*\(already in place\)/);
    assert.equal(await Deno.readTextFile(profile), placed);
    assert.match(again.out, /hooks: +.*settings\.json \(already in place\)/);
    assert.match(again.out, /MCP: +server 'mneme' -> .* \(already registered\)/);
    // Another data folder's connect on the same port: refused, nothing of it written.
    const before = await Deno.readTextFile(settings);
    const other = await runClean(join(bin, "memcli"), ["connect", "claude"], {
      ...env,
      DATA_DIR: join(dir.path, "other"),
    });
    assert.equal(other.code, 1, other.err + other.out);
    assert.match(other.err, new RegExp(`a Mneme service answers at ${url}, but it does not hold`));
    assert.equal(await Deno.readTextFile(settings), before);
    // Adding the prompt hook later backs up a file that holds only Mneme's entries; that
    // backup goes with them at disconnect (checked below: no backup folder is left).
    const recall = await memcli(["connect", "claude", "--recall"]);
    assert.equal(recall.code, 0, recall.err + recall.out);
    assert.match(recall.out, /UserPromptSubmit: added '.*memcli recall --hook'/);
    assert.equal(await exists(join(home, ".claude", "mneme-backups")), true);

    // Hooks in the project too: status warns that the bootstrap comes twice.
    const outside = await memcli(["connect", "claude", "--project-dir", repo]);
    assert.equal(outside.code, 1);
    assert.match(outside.err, /outside memcli's permissions .* with --project-dir \.\n/);
    const proj = await memcli(["connect", "claude", "--project-dir", "."], repo);
    assert.equal(proj.code, 0, proj.err + proj.out);
    const st = await memcli(["hooks", "status"], repo);
    assert.match(
      st.out,
      /Warning: Mneme's hooks are in more than one settings file \(user, project\)/,
    );
    const un = await memcli(["disconnect", "claude", "--project-dir", "."], repo);
    assert.equal(un.code, 0, un.err + un.out);
    assert.match(un.out, /nothing else was in it: file removed/);
    const git = await runClean("git", ["status", "--porcelain", "--untracked-files=all"], {
      PATH: Deno.env.get("PATH")!,
    }, repo);
    assert.equal(git.out, "");
    assert.equal(await exists(join(repo, ".claude")), false);

    const offDry = await memcli(["disconnect", "claude", "--dry-run"]);
    assert.equal(offDry.code, 0, offDry.err + offDry.out);
    assert.match(offDry.out, /at login: +would remove the line from /);
    assert.match(offDry.out, /MCP: +would remove server 'mneme'/);
    assert.doesNotMatch(offDry.out, /would \w+(ed|en)\b/);
    const off = await memcli(["disconnect", "claude"]);
    assert.equal(off.code, 0, off.err + off.out);
    assert.match(off.out, /MCP: +removed server 'mneme'/);
    assert.match(off.out, new RegExp(`at login: +removed the line from ${join(home, ".profile")}`));
    assert.equal(
      await Deno.readTextFile(join(home, ".profile")),
      'export PATH="$HOME/bin:$PATH"\n',
    );
    assert.match(off.out, /service: +Stopped the memory service \(pid \d+\)\./);
    assert.equal(await exists(settings), false);
    assert.equal(await exists(join(home, ".claude", "mneme-backups")), false);
    assert.deepEqual(await mcpServers(), {});
    assert.equal(await answers(url), false);
    const twice = await memcli(["disconnect", "claude"]);
    assert.equal(twice.code, 0);
    assert.match(twice.out, /hooks: +none in /);
    assert.match(twice.out, /MCP: +no server 'mneme'/);
  } finally {
    await runClean(join(bin, "memcli"), ["stop"], env).catch(() => {});
    await dir.cleanup();
  }
});

Deno.test("connect: a service started in a terminal is named, kept, then taken over; --recall / --no-recall", async () => {
  const { dir, home, url, bin, env, port } = await newcomer("mneme-takeover-", "repo");
  const memcli = (args: string[]) => runClean(join(bin, "memcli"), args, env, home);
  const settings = join(home, ".claude", "settings.json");
  const events = async () =>
    Object.keys(JSON.parse(await Deno.readTextFile(settings)).hooks ?? {}).sort();
  // `deno task start`, as in a terminal: the task runner, the launcher, the service.
  const task = new Deno.Command(Deno.execPath(), {
    args: ["task", "start"],
    cwd: ROOT,
    env: { ...env, PATH: Deno.env.get("PATH")!, ADMIN_PORT: String(port) },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const deadline = Date.now() + 90_000;
    while (!(await answers(url)) && Date.now() < deadline) {
      await new Promise((f) => setTimeout(f, 250));
    }
    assert.ok(await answers(url), "deno task start answers");
    const st = await memcli(["status"]);
    assert.match(st.out, /Daemon: +pid \d+, started in a terminal \(deno task start\): it stops/);

    // Not on a terminal (as under Claude Code): no prompt, the service kept, the way out said.
    const kept = await memcli(["connect", "claude", "--recall"]);
    assert.equal(kept.code, 0, kept.err + kept.out);
    assert.match(kept.err, /warning: the memory service at .* was started in a terminal/);
    assert.match(kept.err, /'memcli connect claude --take-over' stops it/);
    assert.match(kept.out, new RegExp(`service: +running at ${url}`));
    assert.match(kept.out, /check: +the UserPromptSubmit hook runs/);
    assert.deepEqual(await events(), ["SessionStart", "UserPromptSubmit"]);
    const keep = await memcli(["connect", "claude", "--keep"]);
    assert.match(keep.err, /stops when that terminal closes.*Kept \(--keep\)/s);
    // The recall hook stays without the flag, and connect says how to remove it.
    assert.match(keep.out, /recall: +the prompt hook .*\(--no-recall removes it\)/);
    assert.deepEqual(await events(), ["SessionStart", "UserPromptSubmit"]);

    const took = await memcli(["connect", "claude", "--take-over", "--no-recall"]);
    assert.equal(took.code, 0, took.err + took.out);
    assert.match(took.out, /service: +took over: stopped the one started in a terminal/);
    assert.match(took.out, new RegExp(`service: +started in the background at ${url}`));
    assert.match(took.out, /UserPromptSubmit: removed/);
    assert.match(took.out, /recall: +the prompt hook removed \(--no-recall\)/);
    assert.deepEqual(await events(), ["SessionStart"]);
    assert.doesNotMatch(took.out, /check: +the UserPromptSubmit hook/);
    const code = await Promise.race([
      task.status.then((s) => s.code),
      new Promise<string>((f) => setTimeout(() => f("still running"), 15_000)),
    ]);
    assert.notEqual(code, "still running", "the terminal's service stopped");
    assert.ok(await answers(url));
    assert.match((await memcli(["status"])).out, /\(memcli's background service/);
    const bad = await memcli(["connect", "claude", "--take-over", "--keep"]);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--take-over and --keep cannot be combined/);
  } finally {
    await memcli(["disconnect", "claude"]).catch(() => {});
    await memcli(["stop"]).catch(() => {});
    try {
      task.kill("SIGTERM");
    } catch { /* gone */ }
    await task.status;
    await dir.cleanup();
  }
});
