/**
 * A service moved to another port after `memcli connect claude`: memcli and hooks without a
 * URL follow it (run/admin.json), but the MCP server Claude Code starts, the hooks connect
 * wrote with a URL and the start at login still name the old port. `memcli start`, `memcli
 * status` and `memcli hooks status` say so with the fix, and the fix (connect again with the
 * setting) points all three at the new port. A second instance in another data folder is not
 * compared with what connect set up for the first. The commands installed into a fresh HOME,
 * the real Claude Code CLI registering the MCP server, the real service.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { answers, newcomer, runClean } from "../helpers/install.ts";
import { freePort } from "../helpers.ts";

Deno.test("a service moved to another port: start, status and hooks status name the registrations that miss it, and connect again fixes them", async () => {
  const { dir, home, url, bin, env, port } = await newcomer("mneme-drift-", "repo");
  const memcli = (args: string[], extra: Record<string, string> = {}) =>
    runClean(join(bin, "memcli"), args, { ...env, ...extra }, home);
  const other = freePort();
  const moved = `http://127.0.0.1:${other}`;
  const claudeJson = join(home, ".claude.json");
  const mcpUrl = async () =>
    JSON.parse(await Deno.readTextFile(claudeJson)).mcpServers.mneme.env.MEMORY_API_URL;
  try {
    const c = await memcli(["connect", "claude"]);
    assert.equal(c.code, 0, c.err + c.out);
    const clean = await memcli(["status"]);
    assert.equal(clean.code, 0, clean.err + clean.out);
    assert.doesNotMatch(clean.out, /Problem/);

    // A second instance in another data folder: the login line starts the first folder's
    // service, not this one, so nothing is said of its port, and status does not claim the
    // login line starts it.
    const two = { ADMIN_PORT: String(freePort()), DATA_DIR: join(dir.path, "elsewhere") };
    try {
      const s2 = await memcli(["start"], two);
      assert.equal(s2.code, 0, s2.err + s2.out);
      assert.doesNotMatch(s2.err, /warning/, s2.err);
      const st2 = await memcli(["status"], two);
      assert.equal(st2.code, 0, st2.err + st2.out);
      assert.doesNotMatch(st2.out, /Problem|login line/, st2.out);
      assert.match(st2.out, /Daemon: +pid \d+, .*\(memcli's background service\)\n/);
    } finally {
      await memcli(["stop"], two);
    }

    assert.equal((await memcli(["stop"])).code, 0);
    const start = await memcli(["start"], { ADMIN_PORT: String(other) });
    assert.equal(start.code, 0, start.err + start.out);
    assert.ok(await answers(moved));
    const fix = `run 'ADMIN_PORT=${other} memcli connect claude'`;
    assert.match(
      start.err,
      new RegExp(
        `memcli start: warning: the MCP server 'mneme' registered in Claude Code calls ` +
          `MEMORY_API_URL=${url}, but the service runs at ${moved}: .*; ${fix}`,
      ),
    );
    assert.match(start.err, new RegExp(`warning: Claude Code's hooks call MEMORY_API_URL=${url}`));
    assert.match(
      start.err,
      new RegExp(
        `warning: the start at login \\(${join(home, ".profile")}\\) starts the service on ` +
          `port ${port}, but it runs on port ${other} now: .*; ${fix}`,
      ),
    );

    // Later, without the setting in the environment: status follows the service (its state
    // file) and names the three.
    const st = await memcli(["status"]);
    assert.equal(st.code, 0, st.err + st.out);
    assert.match(st.out, new RegExp(`URL: +${moved}`));
    assert.equal(st.out.match(new RegExp(`Problem: .*; ${fix}`, "g"))?.length, 3, st.out);
    const json = JSON.parse((await memcli(["status", "--json"])).out);
    assert.equal(json.problems.length, 3);
    const hs = await memcli(["hooks", "status"]);
    assert.equal(hs.code, 0, hs.err + hs.out);
    assert.match(hs.out, new RegExp(`Warning: the MCP server 'mneme' .*; ${fix}`));
    assert.match(hs.out, new RegExp(`Warning: Claude Code's hooks call .*; ${fix}`));

    // The fix, as printed: first its dry run, which says what it would change.
    const dry = await memcli(["connect", "claude", "--dry-run"], { ADMIN_PORT: String(other) });
    assert.equal(dry.code, 0, dry.err + dry.out);
    assert.match(dry.out, /hooks: +.*settings\.json \(would update\)/);
    assert.match(dry.out, /at login: +a line in .*\.profile .*\(would write it\)/);
    assert.doesNotMatch(dry.out, /would \w+(ed|en)\b/);
    assert.equal(await mcpUrl(), url);

    const again = await memcli(["connect", "claude"], { ADMIN_PORT: String(other) });
    assert.equal(again.code, 0, again.err + again.out);
    assert.equal(await mcpUrl(), moved);
    assert.match(
      await Deno.readTextFile(join(home, ".profile")),
      new RegExp(`ADMIN_PORT=${other}`),
    );
    const fixed = await memcli(["status"]);
    assert.equal(fixed.code, 0, fixed.err + fixed.out);
    assert.doesNotMatch(fixed.out, /Problem/);
    assert.doesNotMatch((await memcli(["hooks", "status"])).out, /Warning/);
  } finally {
    await memcli(["disconnect", "claude"]).catch(() => {});
    await memcli(["stop"]).catch(() => {});
    await memcli(["stop"], { ADMIN_PORT: String(other) }).catch(() => {});
    await dir.cleanup();
  }
});

Deno.test("connect for a second data folder with --no-autostart: its start, status and hooks status warn of nothing; the first folder's status names the MCP server and hooks now at the second", async () => {
  const { dir, home, bin, env } = await newcomer("mneme-drift-two-", "repo");
  const memcli = (args: string[], extra: Record<string, string> = {}) =>
    runClean(join(bin, "memcli"), args, { ...env, ...extra }, home);
  const b = { ADMIN_PORT: String(freePort()), DATA_DIR: join(dir.path, "b") };
  const bUrl = `http://127.0.0.1:${b.ADMIN_PORT}`;
  try {
    const a = await memcli(["connect", "claude"]);
    assert.equal(a.code, 0, a.err + a.out);
    const c = await memcli(["connect", "claude", "--no-autostart"], b);
    assert.equal(c.code, 0, c.err + c.out);
    assert.match(c.out, /at login: +not set up \(--no-autostart\)/);
    // B has a connect record, so its MCP server and hooks are compared (they reach it); the
    // login line starts A's folder, so its port is not B's concern.
    const st = await memcli(["status"], b);
    assert.equal(st.code, 0, st.err + st.out);
    assert.doesNotMatch(st.out, /Problem|login line/, st.out);
    assert.doesNotMatch((await memcli(["hooks", "status"], b)).out, /Warning/);
    assert.equal((await memcli(["stop"], b)).code, 0);
    const start = await memcli(["start"], b);
    assert.equal(start.code, 0, start.err + start.out);
    assert.doesNotMatch(start.err, /warning/, start.err);
    // A's service: Claude Code now calls B, which is true and said; A's login line is right.
    const sa = await memcli(["status"]);
    assert.equal(sa.code, 0, sa.err + sa.out);
    assert.match(
      sa.out,
      new RegExp(`Problem: +the MCP server 'mneme' .*calls MEMORY_API_URL=${bUrl}`),
    );
    assert.match(sa.out, new RegExp(`Problem: +Claude Code's hooks call MEMORY_API_URL=${bUrl}`));
    assert.doesNotMatch(sa.out, /the start at login/);
  } finally {
    await memcli(["disconnect", "claude"], b).catch(() => {});
    await memcli(["disconnect", "claude"]).catch(() => {});
    await memcli(["stop"], b).catch(() => {});
    await memcli(["stop"]).catch(() => {});
    await dir.cleanup();
  }
});
