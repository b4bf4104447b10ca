/**
 * A proxy in the environment never carries the memory side's loopback calls: with
 * `HTTP_PROXY` (or `http_proxy`, `ALL_PROXY`, `all_proxy`) pointing at a real proxy that
 * refuses everything, and no `NO_PROXY` (or one naming other hosts), memcli's commands, its
 * session-start hook and mneme-mcp in API mode reach the real admin daemon on 127.0.0.1, and
 * the proxy sees no connection. A plain Deno process under the same variables goes through
 * that proxy (and fails), so the proxy is live and the bypass is memcli's and mneme-mcp's own.
 */
import assert from "node:assert/strict";
import { type CallToolResult, Client, StdioClientTransport } from "../deps.ts";
import { MCP_LOCK, permissionFlagsFor } from "../../src/programs.ts";
import { ROOT, startAdminProcess, tempDir } from "../helpers.ts";
import { memcliProcess } from "./_util.ts";
import { refusingProxy } from "../fakes/proxy.ts";

Deno.test("memcli, its hooks and mneme-mcp reach the service on loopback past a proxy in the environment", async () => {
  const admin = await startAdminProcess();
  const proxy = refusingProxy();
  const data = await tempDir("mneme-proxy-");
  try {
    // The proxy is live: a Deno process with the same variable goes through it.
    const plain = await new Deno.Command(Deno.execPath(), {
      // Deno answers the proxy's 502 with the status, or with an error when it tunnels.
      args: [
        "eval",
        `try { console.log((await fetch("${admin.url}/healthz")).status); } ` +
        `catch { console.log("failed"); }`,
      ],
      env: { HTTP_PROXY: proxy.url },
      clearEnv: true,
      stdout: "piped",
      stderr: "null",
    }).output();
    const seen = new TextDecoder().decode(plain.stdout).trim();
    assert.ok(seen === "502" || seen === "failed", `a plain fetch past the proxy got ${seen}`);
    assert.ok(proxy.count() > 0, "the proxy saw the plain process");

    const variants: Record<string, string>[] = [
      { HTTP_PROXY: proxy.url },
      { http_proxy: proxy.url },
      { ALL_PROXY: proxy.url },
      { all_proxy: proxy.url },
      { HTTP_PROXY: proxy.url, NO_PROXY: "example.com" },
      { HTTP_PROXY: proxy.url, no_proxy: "example.com" },
    ];
    for (const vars of variants) {
      const label = JSON.stringify(vars);
      proxy.reset();
      const env = { ...vars, MEMORY_API_URL: admin.url, DATA_DIR: data.path };
      const st = await memcliProcess(["status"], { env });
      assert.equal(st.code, 0, `${label}: ${st.err}${st.out}`);
      assert.match(st.out, /Mneme admin: running/, label);
      const add = await memcliProcess(["add", "--global", "--pin", `proxy check ${label}`], {
        env,
      });
      assert.equal(add.code, 0, `${label}: ${add.err}`);
      const hook = await memcliProcess(["bootstrap", "--hook"], { env, stdin: "{}" });
      assert.equal(hook.code, 0, label);
      assert.ok(hook.out.includes(`proxy check ${label}`), `${label}: ${hook.out}${hook.err}`);
      assert.equal(proxy.count(), 0, `${label}: memcli went through the proxy`);
    }

    // mneme-mcp in API mode, with the permissions its task computes.
    proxy.reset();
    const env: Record<string, string> = {
      MEMORY_API_URL: admin.url,
      EMBEDDING_PROVIDER: "builtin",
      HTTP_PROXY: proxy.url,
    };
    for (const k of ["DENO_DIR", "XDG_CACHE_HOME"]) {
      const v = Deno.env.get(k);
      if (v) env[k] = v;
    }
    const flags = permissionFlagsFor("mcp", { env: (n) => env[n], args: [], cwd: ROOT });
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", `--lock=${ROOT}${MCP_LOCK}`, ...flags, `${ROOT}src/bin/mcp.ts`],
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "proxy-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const r = (await client.callTool({
        name: "recall",
        arguments: { query: "proxy check" },
      })) as CallToolResult;
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      const text = r.content.map((
        c: CallToolResult["content"][number],
      ) => (c.type === "text" ? c.text : "")).join("\n");
      assert.match(text, /proxy check/);
    } finally {
      await client.close();
    }
    assert.equal(proxy.count(), 0, "mneme-mcp went through the proxy");
  } finally {
    proxy.close();
    await admin.stop();
    await data.cleanup();
  }
});
