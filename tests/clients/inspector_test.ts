/**
 * The official MCP Inspector (CLI mode, from npm, on Node 22 from npm) against the real
 * `mneme-mcp` entrypoint: every tool and resource in the default mode (through a real admin
 * daemon's API), and the same argument validation in both modes (the Inspector turns a
 * `--tool-arg` it cannot parse, such as `weight=heavy`, into `null`).
 */
import assert from "node:assert/strict";
import { mcpServerCommand, pgliteServer, startAdminProcess, untilUnloaded } from "../helpers.ts";
import { TOOL_NAMES } from "../../src/mcp/server.ts";
import { clientTest, inspector, INSPECTOR_VERSION, npmMissing } from "./npm.ts";

const missing = await npmMissing();
if (missing) console.error(`MCP Inspector tests skipped: ${missing}`);

interface Run {
  code: number;
  json: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

/** One Inspector CLI call against a freshly spawned mneme-mcp with `env`. */
async function inspect(env: Record<string, string>, args: string[]): Promise<Run> {
  const { bin, nodeBin } = await inspector();
  const server = [
    ...mcpServerCommand(env),
  ];
  const out = await new Deno.Command(bin, {
    args: [
      "--cli",
      ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
      ...server,
      ...args,
    ],
    env: { PATH: `${nodeBin}:${Deno.env.get("PATH") ?? ""}`, CI: "true", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const d = new TextDecoder();
  const stdout = d.decode(out.stdout);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(stdout);
  } catch {
    // not JSON: the assertions below show stdout
  }
  return { code: out.code, json, stdout, stderr: d.decode(out.stderr) };
}

function call(tool: string, ...pairs: string[]): string[] {
  return [
    "--method",
    "tools/call",
    "--tool-name",
    tool,
    ...(pairs.length ? ["--tool-arg", ...pairs] : []),
  ];
}

function structured<T>(r: Run): T {
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.notEqual(r.json.isError, true, r.stdout);
  return r.json.structuredContent as T;
}

function errorText(r: Run): string {
  assert.equal(r.json.isError, true, r.stdout);
  return (r.json.content as Array<{ text: string }>)[0].text;
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { EMBEDDING_PROVIDER: "builtin" };
  for (const k of ["DENO_DIR", "XDG_CACHE_HOME"]) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  return env;
}

clientTest(
  `MCP Inspector ${INSPECTOR_VERSION} --cli: every tool and resource of mneme-mcp (API mode)`,
  missing,
  async () => {
    const key = "inspector-key-" + crypto.randomUUID();
    const admin = await startAdminProcess({ env: { ADMIN_API_KEY: key } });
    const env = { ...baseEnv(), MEMORY_API_URL: admin.url, ADMIN_API_KEY: key };
    try {
      const tools = await inspect(env, ["--method", "tools/list"]);
      assert.equal(tools.code, 0, tools.stderr);
      const names = (tools.json.tools as Array<{ name: string }>).map((t) => t.name);
      assert.deepEqual(names, [...TOOL_NAMES]);

      const project = "inspector-proj";
      const a = structured<{ memory: { id: string; weight: number } }>(
        await inspect(
          env,
          call(
            "remember",
            `content=The ${project} build uses deno task ok`,
            `project=${project}`,
            "type=rule",
            "weight=0.5",
          ),
        ),
      ).memory;
      assert.equal(a.weight, 0.5);
      await inspect(
        env,
        call(
          "remember",
          `content=Greet the user in ${project}`,
          `project=${project}`,
          "type=bootstrap",
        ),
      );
      const hits = structured<{ results: Array<{ memory: { id: string } }> }>(
        await inspect(env, call("recall", "query=how is the build run", `project=${project}`)),
      ).results;
      assert.equal(hits[0]?.memory.id, a.id);
      const listed = structured<{ count: number }>(
        await inspect(env, call("list", `project=${project}`, "limit=10")),
      );
      assert.equal(listed.count, 2);
      const upd = structured<{ memory: { content: string } }>(
        await inspect(
          env,
          call("update", `id=${a.id}`, "content=The build uses deno task ok and .ci/run"),
        ),
      ).memory;
      assert.equal(upd.content, "The build uses deno task ok and .ci/run");
      const stats = structured<{ total: number; by_project: Record<string, number> }>(
        await inspect(env, call("stats")),
      );
      assert.equal(stats.by_project[project], 2);
      const help = structured<{ topic: string; text: string }>(
        await inspect(env, call("help", "topic=scopes")),
      );
      assert.equal(help.topic, "scopes");

      const res = await inspect(env, ["--method", "resources/list"]);
      assert.ok(
        (res.json.resources as Array<{ uri: string }>).some((r) => r.uri === "mneme://bootstrap"),
      );
      const tpl = await inspect(env, ["--method", "resources/templates/list"]);
      assert.equal(
        (tpl.json.resourceTemplates as Array<{ uriTemplate: string }>)[0].uriTemplate,
        "mneme://bootstrap/{project}",
      );
      const boot = await inspect(env, [
        "--method",
        "resources/read",
        "--uri",
        `mneme://bootstrap/${project}`,
      ]);
      assert.equal(boot.code, 0, boot.stderr);
      assert.match(
        (boot.json.contents as Array<{ text: string }>)[0].text,
        new RegExp(`Greet the user in ${project}`),
      );

      assert.deepEqual(structured(await inspect(env, call("forget", `id=${a.id}`))), {
        ok: true,
        id: a.id,
      });
      assert.match(errorText(await inspect(env, call("forget", `id=${a.id}`))), /not found/);
    } finally {
      await admin.stop();
    }
  },
);

clientTest(
  `MCP Inspector ${INSPECTOR_VERSION} --cli: a typo (weight=heavy, limit=many) is a tool error in both modes, nothing stored`,
  missing,
  async () => {
    const key = "inspector-key-" + crypto.randomUUID();
    const admin = await startAdminProcess({ env: { ADMIN_API_KEY: key } });
    const pg = await pgliteServer();
    try {
      const modes: Record<string, Record<string, string>> = {
        api: { ...baseEnv(), MEMORY_API_URL: admin.url, ADMIN_API_KEY: key },
        direct: { ...baseEnv(), DATABASE_URL: pg.url, DATA_DIR: "/nonexistent/mneme-inspector" },
      };
      for (const [mode, env] of Object.entries(modes)) {
        const heavy = await inspect(env, call("remember", "content=typo test", "weight=heavy"));
        assert.equal(
          errorText(heavy),
          "weight: must be a number, not null (omit it for the default)",
          mode,
        );
        const many = await inspect(env, call("list", "limit=many"));
        assert.equal(
          errorText(many),
          "limit: must be an integer, not null (omit it for the default)",
          mode,
        );
        const stats = structured<{ total: number }>(await inspect(env, call("stats")));
        assert.equal(stats.total, 0, `${mode}: nothing stored`);
      }
    } finally {
      await pg.close();
      await admin.stop();
    }
  },
);

clientTest(
  `MCP Inspector ${INSPECTOR_VERSION} --cli: a contradiction resolved with supersedes, no duplicate, the stale fact gone from recall`,
  missing,
  async () => {
    const admin = await startAdminProcess();
    const env = { ...baseEnv(), MEMORY_API_URL: admin.url };
    try {
      const project = "staging-app";
      const stale = structured<{ memory: { id: string } }>(
        await inspect(
          env,
          call("remember", "content=The staging database runs on port 5433", `project=${project}`),
        ),
      ).memory;
      // Stored again by mistake as a contradicting fact: the warning names the one-step way.
      const warned = await inspect(
        env,
        call("remember", "content=The staging database runs on port 6543", `project=${project}`),
      );
      const w = structured<{ memory: { id: string }; contradictions: { id: string }[] }>(warned);
      const text = (warned.json.content as Array<{ text: string }>)[0].text;
      assert.ok(text.includes(`supersedes="${stale.id}"`), text);
      assert.ok(text.includes(`forget id="${stale.id}"`), text);
      assert.match(text, /do not remember it again/);
      // Following the warning: forget the stale one. Then a later correction in one step.
      structured(await inspect(env, call("forget", `id=${stale.id}`)));
      const fixed = structured<{ memory: { id: string; supersedes: string } }>(
        await inspect(
          env,
          call(
            "remember",
            "content=The staging database runs on port 6544",
            `project=${project}`,
            `supersedes=${w.memory.id}`,
          ),
        ),
      ).memory;
      assert.equal(fixed.supersedes, w.memory.id);
      const hits = structured<{ results: Array<{ memory: { id: string; content: string } }> }>(
        await inspect(
          env,
          call("recall", "query=which port does the staging database use", `project=${project}`),
        ),
      ).results;
      const contents = hits.map((h) => h.memory.content);
      assert.deepEqual(contents, ["The staging database runs on port 6544"]);
      const listed = structured<{ count: number; memories: Array<{ superseded_by: string }> }>(
        await inspect(env, call("list", `project=${project}`)),
      );
      // One current fact, one superseded (history), nothing duplicated.
      assert.equal(listed.count, 2);
      assert.equal(listed.memories.filter((m) => !m.superseded_by).length, 1);
    } finally {
      await admin.stop();
    }
  },
);

clientTest(
  `MCP Inspector ${INSPECTOR_VERSION} --cli: recall after the daemon closed its idle database opens it again`,
  missing,
  async () => {
    const admin = await startAdminProcess({ env: { DATABASE_IDLE_UNLOAD_S: "1" } });
    const env = { ...baseEnv(), MEMORY_API_URL: admin.url };
    try {
      const project = "idle-proj";
      const a = structured<{ memory: { id: string } }>(
        await inspect(
          env,
          call("remember", "content=Releases are cut from the main branch", `project=${project}`),
        ),
      ).memory;
      await untilUnloaded(admin.url, 30_000);
      const hits = structured<{ results: Array<{ memory: { id: string } }> }>(
        await inspect(
          env,
          call("recall", "query=which branch are releases cut from", `project=${project}`),
        ),
      ).results;
      assert.equal(hits[0]?.memory.id, a.id);
      const health = await (await fetch(`${admin.url}/healthz`)).json();
      assert.equal(health.database.unloaded, undefined, JSON.stringify(health.database));
    } finally {
      await admin.stop();
    }
  },
);
