/**
 * Mneme: self-hosted memory for coding agents.
 *
 * This module is the library face of the project:
 * - {@link MemoryClient}: a typed client of the Admin API (`http://127.0.0.1:4200` by default).
 * - {@link createMemoryService}: the memory service in-process, on the embedded database or
 *   on server Postgres (`databaseUrl`).
 * - The public types ({@link Memory}, {@link MemoryService}, …) and {@link MemoryError}.
 *
 * @example
 * ```ts
 * import { MemoryClient } from "@mneme/mneme";
 * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
 * const { memory, contradictions } = await client.create({ content: "Tests run with deno task test" });
 * const hits = await client.search({ query: "how do I run the tests", project: "mneme" });
 * ```
 * @module
 */
import { loadMemoryConfig, type MemoryConfig } from "./src/config.ts";
import { openMemoryService } from "./src/memory/open.ts";
import type { MemoryService } from "./src/memory/types.ts";

export { MemoryClient, type MemoryClientOptions } from "./src/memory/client.ts";
export { MemoryError } from "./src/memory/errors.ts";
export type { MemoryConfig } from "./src/config.ts";
export { VERSION } from "./src/version.ts";
export type {
  Contradiction,
  CreateInput,
  CreateResult,
  DeleteFilter,
  EmbedderInfo,
  ExportRecord,
  Health,
  ImportItem,
  ListFilter,
  Memory,
  MemoryService,
  MemoryType,
  ReembedProgress,
  Scope,
  SearchInput,
  SearchResult,
  Stats,
} from "./src/memory/types.ts";

/**
 * Open the memory service in-process. Settings not given are read from the environment
 * as the daemons read them (DATABASE_URL, DATA_DIR, EMBEDDING_PROVIDER, …). The embedded
 * database has one owner: do not open a DATA_DIR that a running admin daemon uses.
 */
export async function createMemoryService(
  config: Partial<MemoryConfig> = {},
): Promise<MemoryService> {
  return await openMemoryService({ ...loadMemoryConfig(), ...config });
}
