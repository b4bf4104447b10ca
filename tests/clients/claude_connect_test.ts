/**
 * The newcomer's route with the real Claude Code CLI from npm against the Anthropic fake, from
 * a fresh HOME whose PATH has neither the install folder nor deno (only sh, ps, kill, node,
 * git, env and claude): `deno task install`, then `memcli connect claude` by absolute path;
 * `claude -p` sends the model the bootstrap and Mneme's MCP tools; the service is stopped and
 * started again while the session runs, and the model's next tool call works without a
 * reconnect; `memcli disconnect claude` leaves nothing of Mneme in Claude Code's settings.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryClient } from "../../src/memory/client.ts";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { newcomer, runClean } from "../helpers/install.ts";

Deno.test("Claude Code (real CLI): install, connect, memory in the session, a service restart mid-session, disconnect", async () => {
  const fake = startFakeAnthropic();
  const { claude, dir, home, repo, url, bin, env } = await newcomer(
    "mneme-claude-connect-",
    "billing-svc",
  );
  const memcli = (args: string[]) => runClean(join(bin, "memcli"), args, env);
  let restarted = "";
  try {
    assert.equal((await runClean("git", ["init", "-q", repo], env)).code, 0);

    const c = await memcli(["connect", "claude"]);
    assert.equal(c.code, 0, c.err + c.out);
    assert.match(c.out, /check: +the MCP server answers initialize/);
    await new MemoryClient({ baseUrl: url }).create({
      content: "Always run deno task ok before committing",
      type: "bootstrap",
      tags: ["rule"],
    });

    // The model asks for Mneme's stats once; before answering, the service is restarted.
    fake.options.toolUse = async (body) => {
      const tools = (body.tools as { name: string }[] | undefined)?.map((t) => t.name) ?? [];
      const msgs = JSON.stringify(body.messages);
      if (!tools.includes("mcp__mneme__stats") || msgs.includes("tool_result")) return null;
      const stop = await memcli(["stop"]);
      const start = await memcli(["start"]);
      restarted = stop.out + start.out + start.err;
      return { name: "mcp__mneme__stats", input: {} };
    };
    const from = fake.requests.length;
    const r = await runClean(
      claude,
      ["-p", "How many memories do I have?", "--allowedTools", "mcp__mneme__stats"],
      {
        ...env,
        ANTHROPIC_BASE_URL: fake.url,
        CLAUDE_CODE_OAUTH_TOKEN: fake.issueTokens().accessToken,
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // Every MCP tool in the request's tool list (not deferred behind a tool search).
        ENABLE_TOOL_SEARCH: "false",
      },
      repo,
    );
    assert.equal(r.code, 0, r.err + r.out);
    const sent = fake.requests.slice(from).filter((q) => q.path === "/v1/messages");
    const all = sent.map((q) => q.body).join("\n");
    // The SessionStart hook's bootstrap, for the repository's project.
    assert.ok(all.includes("Always run deno task ok before committing"), "bootstrap rule sent");
    assert.ok(all.includes("- Project: billing-svc (source: git)"), "project from git");
    // Mneme's MCP tools are offered to the model.
    const main = sent.find((q) => JSON.stringify(q.json).includes("mcp__mneme__stats"));
    assert.ok(main, "a request lists Mneme's tools");
    const names = (main.json as { tools: { name: string }[] }).tools.map((t) => t.name);
    for (const t of ["remember", "recall", "forget", "update", "list", "stats", "help"]) {
      assert.ok(names.includes(`mcp__mneme__${t}`), `tool ${t} offered: ${names.join(" ")}`);
    }
    // Restarted mid-session, and the tool call after it worked.
    assert.match(
      restarted,
      /^Stopped the memory service \(pid \d+\)\.\nStarted the memory service/,
    );
    const after = sent.find((q) => q.body.includes("tool_result"));
    assert.ok(after, "the tool result went back to the model");
    const result = JSON.stringify(
      (after.json as { messages: { content: unknown }[] }).messages.at(-1)?.content,
    );
    assert.doesNotMatch(result, /cannot reach|is_error":true/, result);
    assert.match(result, /1 memor|total/i, result);

    const d = await memcli(["disconnect", "claude"]);
    assert.equal(d.code, 0, d.err + d.out);
    // Nothing of Mneme is left in Claude Code's settings.
    const leftovers: string[] = [];
    for await (const f of walk(home)) {
      if (f.includes("/.local/share/mneme/") || f.includes("/.cache/")) continue;
      if (!/\.json$/.test(f)) continue;
      const text = await Deno.readTextFile(f).catch(() => "");
      if (/mneme|memcli/i.test(text)) leftovers.push(f);
    }
    assert.deepEqual(leftovers, []);
  } finally {
    await runClean(join(bin, "memcli"), ["stop"], env).catch(() => {});
    await fake.close();
    await dir.cleanup();
  }
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* walk(p);
    else if (e.isFile) yield p;
  }
}
