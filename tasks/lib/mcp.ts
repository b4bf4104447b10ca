/**
 * The benchmarks' MCP session: the programs' one stdio MCP client (src/common/mcp_client.ts,
 * the MCP SDK's `Client` over a `Deno.Command` transport), with what a bench needs on top: the
 * server's pid for its memory figures, a tool call that fails on the tool's `isError`, and the
 * server's stderr in every error.
 * @module
 */
import { Client, DenoStdioTransport, type StdioOptions } from "../../src/common/mcp_client.ts";

/** How long one request may take before it is an error. */
const REQUEST_TIMEOUT_MS = 120_000;

/** An MCP server started over stdio, initialized, ready for tool calls. */
export class McpSession {
  private constructor(readonly client: Client, readonly transport: DenoStdioTransport) {}

  /** Start `command args` and initialize it (resolves on the `initialize` answer). */
  static async start(
    command: string,
    args: string[],
    options: StdioOptions = {},
    name = "bench",
  ): Promise<McpSession> {
    const transport = new DenoStdioTransport(command, args, options);
    const client = new Client({ name, version: "0" });
    try {
      await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    } catch (err) {
      await client.close().catch(() => {});
      throw new Error(
        `${command}: initialize failed: ${(err as Error).message}; stderr: ${transport.stderr}`,
      );
    }
    return new McpSession(client, transport);
  }

  /** The server's process id. */
  get pid(): number {
    return this.transport.pid;
  }

  /** Call a tool; rejects on a protocol error, on the tool's `isError`, or after 120 s. */
  async callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    let result: Record<string, unknown>;
    try {
      result = await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: REQUEST_TIMEOUT_MS,
      }) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`${name}: ${(err as Error).message}; stderr: ${this.transport.stderr}`);
    }
    if (result.isError) {
      throw new Error(`${name}: ${JSON.stringify(result.content).slice(0, 500)}`);
    }
    return result;
  }

  /** Close the server's stdin and wait for it to exit (killed after 5 s). */
  close(): Promise<void> {
    return this.client.close();
  }
}
