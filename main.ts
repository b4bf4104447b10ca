/**
 * Mneme: self-hosted memory for coding agents.
 *
 * This module is the library face of the project:
 * - {@link MemoryClient}: a typed client of the Admin API (`http://127.0.0.1:4200` by
 *   default) with every endpoint as a method.
 * - {@link createMemoryService}: the memory service in-process, on the embedded database
 *   (PGlite in `DATA_DIR/db`) or on server Postgres (`databaseUrl`).
 * - {@link MemoryError}: the one error type, with the HTTP `status`, the `message` and the
 *   `field` at fault.
 * - The public types ({@link Memory}, {@link MemoryService}, …) and {@link VERSION}.
 *
 * Both the client and the in-process service implement {@link MemoryService}, so code
 * written against the interface runs with either.
 *
 * @example Talk to a running admin daemon
 * ```ts
 * import { MemoryClient } from "@mneme/mneme";
 * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:4200" });
 * const { memory, contradictions } = await client.create({
 *   content: "Tests run with deno task test",
 *   project: "mneme",
 * });
 * const hits = await client.search({ query: "how do I run the tests", project: "mneme" });
 * ```
 *
 * @example Run the service in-process
 * ```ts
 * import { createMemoryService } from "@mneme/mneme";
 * const service = await createMemoryService({
 *   dataDir: await Deno.makeTempDir(),
 *   embeddingProvider: "builtin",
 * });
 * try {
 *   await service.create({ content: "Deploys go through CI", type: "rule" });
 *   console.log(await service.search({ query: "deploys" }));
 * } finally {
 *   await service.close();
 * }
 * ```
 * @module
 */
import { loadMemoryConfig, type MemoryConfig } from "./src/config.ts";
import { openMemoryService } from "./src/memory/open.ts";
import type { MemoryService } from "./src/memory/types.ts";
import { VERSION as version } from "./src/version.ts";

export { MemoryClient, type MemoryClientOptions } from "./src/memory/client.ts";
export {
  type ErrorStatus,
  HTTP_ERROR_STATUSES,
  type HttpErrorStatus,
  MemoryError,
  type ServiceErrorStatus,
} from "./src/domain/errors.ts";
export type { MemoryConfig, ProviderName } from "./src/config.ts";
export { MEMORY_TYPES, SCOPES } from "./src/memory/types.ts";
export type {
  Contradiction,
  CreateInput,
  CreateResult,
  DeleteFilter,
  EmbedderInfo,
  ExpansionWait,
  ExportOptions,
  ExportRecord,
  Health,
  ImportItem,
  ImportResult,
  JudgeFallback,
  JudgeReport,
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
 * Open the memory service in-process: connect (the embedded PGlite database in
 * `dataDir/db`, or server Postgres when `databaseUrl` is set), migrate, and probe the
 * embedder. Settings not given are read from the environment as the daemons read them
 * (`DATABASE_URL`, `DATA_DIR`, `EMBEDDING_PROVIDER`, …; an invalid variable throws an
 * error naming it), so the process needs `--allow-env` besides `--allow-read`,
 * `--allow-write` and `--allow-net` as its database and embedder require.
 *
 * The embedded database has one owner: opening a `dataDir` that a running admin daemon
 * uses fails with a message saying so (use {@link MemoryClient} against the daemon
 * instead). When the stored vectors come from another embedder the service runs in
 * maintenance: writes and search throw a 409 {@link MemoryError} until
 * {@link MemoryService.reembed} has finished. Call `close()` when done.
 *
 * @example
 * ```ts
 * import { createMemoryService, MemoryError } from "@mneme/mneme";
 * const service = await createMemoryService({
 *   dataDir: await Deno.makeTempDir(),
 *   embeddingProvider: "builtin",
 * });
 * try {
 *   const { memory } = await service.create({ content: "Use tabs in Makefiles", tags: ["make"] });
 *   const [hit] = await service.search({ query: "Makefiles tabs" });
 *   console.log(hit.memory.id === memory.id, (await service.stats()).total);
 *   await service.create({ content: "x", weight: 5 }).catch((err) => {
 *     if (err instanceof MemoryError) console.log(err.status, err.field); // 400 weight
 *   });
 * } finally {
 *   await service.close();
 * }
 * ```
 */
export async function createMemoryService(
  config: Partial<MemoryConfig> = {},
): Promise<MemoryService> {
  return await openMemoryService({ ...loadMemoryConfig(), ...config });
}

/**
 * The version of this module and of the daemons it ships (`/healthz` reports the
 * daemon's as `version`).
 *
 * @example
 * ```ts
 * import { MemoryClient, VERSION } from "@mneme/mneme";
 * const health = await new MemoryClient({ baseUrl: "http://127.0.0.1:4200" }).health();
 * if (health.version !== VERSION) console.warn(`daemon ${health.version}, library ${VERSION}`);
 * ```
 */
export const VERSION: string = version;
