/**
 * The one stdio MCP client (src/common/mcp_client.ts): the SDK's Client over a transport on
 * Deno.Command. A process that is not an MCP server is an error naming the closed connection,
 * with its stderr kept; closing ends the process.
 */
import assert from "node:assert/strict";
import { Client, DenoStdioTransport } from "../../src/common/mcp_client.ts";

Deno.test("mcp client: a process that is no MCP server fails the connect, its stderr kept", async () => {
  const transport = new DenoStdioTransport("sh", [
    "-c",
    "read line; echo 'not json'; echo 'no server here' >&2; sleep 0.2; exit 3",
  ]);
  const client = new Client({ name: "test", version: "1" });
  await assert.rejects(client.connect(transport), /closed|Connection/i);
  await client.close().catch(() => {});
  assert.match(transport.stderr, /no server here/);
});

Deno.test("mcp client: initialize and tools/list against a minimal stdio server", async () => {
  // A shell script answering initialize and tools/list, one line each.
  const script = `
    read init; echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"9"}}}'
    read note; read list
    echo '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}'
    read rest`;
  const transport = new DenoStdioTransport("sh", ["-c", script]);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  assert.deepEqual(client.getServerVersion(), { name: "fake", version: "9" });
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t: { name: string }) => t.name), ["t"]);
  await client.close();
});

Deno.test("mcp client: the server gets exactly the variables and directory asked for", async () => {
  // The server answers initialize with its environment and directory as its name and version.
  const dir = await Deno.makeTempDir();
  try {
    const script = `
      read init; echo "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":0,\\"result\\":{\\"protocolVersion\\":\\"2025-06-18\\",\\"capabilities\\":{},\\"serverInfo\\":{\\"name\\":\\"$ONLY:\${HOME:-none}\\",\\"version\\":\\"$(pwd)\\"}}}"
      read rest`;
    const transport = new DenoStdioTransport("/bin/sh", ["-c", script], {
      env: { ONLY: "given" },
      cwd: dir,
      clearEnv: true,
    });
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    assert.ok(transport.pid > 0);
    assert.deepEqual(client.getServerVersion(), {
      name: "given:none",
      version: await Deno.realPath(dir),
    });
    await client.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
