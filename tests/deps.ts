/**
 * The npm packages only the tests and benchmarks use, pinned here, with their own lockfile
 * (tests/deno.lock): they are kept out of deno.json's import map and deno.lock, because Deno
 * fetches every package of the lockfile on a first start, so that the first
 * `deno task start` downloads only what the memory service needs. The tasks that run tests,
 * type-check them or run benchmarks pass `--lock=tests/deno.lock`.
 * @module
 */
export { PGLiteSocketServer } from "npm:@electric-sql/pglite-socket@0.2.17";
export { default as Anthropic } from "npm:@anthropic-ai/sdk@1.11.0";
export { type Browser, type BrowserContext, chromium, type Page } from "npm:playwright-core@1.65.1";
export { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
export { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
export { InMemoryTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/inMemory.js";
export type {
  CallToolResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
