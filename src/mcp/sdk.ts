/**
 * The MCP SDK and zod, pinned here for the MCP server alone. They are kept out of deno.json's
 * import map and deno.lock: `deno task` fetches every package of the import map and of the
 * lockfile before it runs any task, and the SDK brings about 90 packages (express and its
 * dependencies) that the memory service does not use. The MCP server runs with its own
 * lockfile, src/mcp/deno.lock (`MCP_LOCK` in src/programs.ts), so the first
 * `deno task start` downloads only the service's packages.
 * @module
 */
export { McpServer, ResourceTemplate } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
export {
  type CallToolResult,
  ErrorCode,
  McpError,
  type ReadResourceResult,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export { StdioServerTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/server/stdio.js";
export { z } from "npm:zod@4.6.7";
