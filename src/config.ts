/**
 * Configuration of the memory service from environment variables, validated once, with
 * errors that name the variable. Every variable and default is listed in docs/configuration.md.
 * @module
 */
import { join } from "node:path";

/**
 * Embedding providers (`EMBEDDING_PROVIDER`). `auto` picks Ollama when it answers with the
 * model, else builtin; `builtin` is a lexical hashing embedder that needs no network;
 * `ollama` and `openai` (any OpenAI-compatible endpoint) are semantic.
 *
 * @example
 * ```ts
 * import { createMemoryService, type ProviderName } from "@mneme/mneme";
 * const embeddingProvider: ProviderName = "builtin";
 * const dataDir = await Deno.makeTempDir();
 * const service = await createMemoryService({ dataDir, embeddingProvider });
 * await service.close();
 * ```
 */
export type ProviderName = "auto" | "builtin" | "ollama" | "openai";

/**
 * The builtin embedder's default dimension (`EMBEDDING_DIM`). Chosen on LoCoMo dev
 * (`deno task bench:recall --dim N`, docs/history/performance-2026-11-25-to-28.md, "Vectors and
 * templates (0.10)"): the hybrid search's hit@5 stays within the hashing's noise from 768 down to
 * 128 dimensions (the lexical side carries it), while the vectors and their HNSW index are most of
 * the disk.
 */
export const DEFAULT_EMBEDDING_DIM = 192;

/**
 * The earlier default dimensions: 768 before 0.8, 384 in 0.8 and 0.9. A database whose builtin
 * vectors have one of them is re-embedded at the default dimension at start
 * (src/memory/upgrade.ts), unless `EMBEDDING_DIM` keeps it.
 */
export const LEGACY_EMBEDDING_DIMS: readonly number[] = [768, 384];

/**
 * Whether builtin vectors of `dimension` follow the default dimension: those of an earlier
 * default ({@link LEGACY_EMBEDDING_DIMS}) are re-embedded at the configured one, unless
 * `EMBEDDING_DIM` names their dimension.
 */
export function followsDefaultDim(dimension: number): boolean {
  return LEGACY_EMBEDDING_DIMS.includes(dimension);
}

/**
 * The memory service configuration, read from environment variables (named on each
 * field's line in docs/configuration.md). `createMemoryService` takes any part of it.
 *
 * @example
 * ```ts
 * import type { MemoryConfig } from "@mneme/mneme";
 * const config: Partial<MemoryConfig> = {
 *   databaseUrl: "postgres://mneme:secret@127.0.0.1:5432/mneme", // DATABASE_URL
 *   embeddingProvider: "ollama", // EMBEDDING_PROVIDER
 *   embeddingModel: "nomic-embed-text", // EMBEDDING_MODEL
 *   ollamaUrl: "http://127.0.0.1:11434", // OLLAMA_URL
 * };
 * ```
 */
export interface MemoryConfig {
  /** Server Postgres URL; unset means the embedded database in `dataDir/db`. */
  databaseUrl?: string;
  /** Data directory (database files, models, pid and log files). */
  dataDir: string;
  /** Admin API port, default 4200. */
  adminPort: number;
  /** Admin API host, default 127.0.0.1. */
  adminHost: string;
  /** Key required on /api routes when set. */
  adminApiKey?: string;
  /** Where clients (MCP in API mode, memcli) reach the Admin API. */
  memoryApiUrl: string;
  /** Embedding provider, default auto. */
  embeddingProvider: ProviderName;
  /** Model override for ollama/openai. */
  embeddingModel?: string;
  /** Builtin embedder dimension, default {@link DEFAULT_EMBEDDING_DIM}. */
  embeddingDim: number;
  /** Ollama base URL, default http://127.0.0.1:11434. */
  ollamaUrl: string;
  /** OpenAI-compatible base URL including /v1, default https://api.openai.com/v1. */
  openaiBaseUrl: string;
  /** OpenAI-compatible API key. */
  openaiApiKey?: string;
  /**
   * `IMPORT_BULK` (default on): on the embedded database, large imports stage their rows
   * without the HNSW index and build it once at their end, in the database's worker thread
   * (the daemon answers meanwhile; reads of the database wait for the build). Off: every row
   * goes into the live index (a third of the rate).
   */
  importBulk?: boolean;
  /**
   * `DATABASE_IDLE_UNLOAD_S` (default {@link DEFAULT_IDLE_UNLOAD_S}): the embedded database
   * closes after this many seconds without a statement, giving back its memory, and opens
   * again at the next one (about half a second). 0: it stays open.
   */
  databaseIdleUnloadS?: number;
  /**
   * `MEMORY_EXPANSION` (default off): the admin daemon has the model configured for capture
   * (`CAPTURE_MODEL_PROVIDER`, required then) write search phrases for each memory in the
   * background, indexed beside it and never shown (docs/recall.md, "0.20").
   */
  expansion?: boolean;
  /** `EXPANSION_DAILY_TOKENS` (default 200000): the expansion worker's tokens per UTC day. */
  expansionDailyTokens?: number;
  /**
   * `RECALL_JUDGE` (default off): the prompt hook asks the service to have the model configured
   * for capture (`CAPTURE_MODEL_PROVIDER`, required then) choose which of its first few results
   * the agent is shown (docs/recall.md, "After 0.22: a model's judgement at prompt time").
   */
  recallJudge?: boolean;
  /** `RECALL_JUDGE_TIMEOUT_MS` (default 2000): how long the judge's model call may take. */
  recallJudgeTimeoutMs?: number;
  /** `RECALL_JUDGE_DAILY_TOKENS` (default 200000): the judge's tokens per UTC day. */
  recallJudgeDailyTokens?: number;
  /**
   * `RECALL_JUDGE_POOL` (default 5, 1..10): the first N results (not bootstrap) the judge offers
   * the model.
   */
  recallJudgePool?: number;
  /** `RECALL_JUDGE_POOL_FLOOR` (default 0.5, 0..1): the lowest confidence the judge offers. */
  recallJudgePoolFloor?: number;
}

/**
 * Seconds without a statement after which the embedded database closes until it is needed
 * again (`DATABASE_IDLE_UNLOAD_S`): long enough that a working session keeps it open, short
 * enough that a laptop's idle daemon holds some 80 MiB less for most of the day.
 */
export const DEFAULT_IDLE_UNLOAD_S = 600;

/** The expansion worker's default tokens per UTC day (`EXPANSION_DAILY_TOKENS`). */
export const DEFAULT_EXPANSION_DAILY_TOKENS = 200_000;

/**
 * The smallest `EXPANSION_DAILY_TOKENS`: one call for one memory of the longest content fits in
 * it at the worker's upper estimate (3 characters a token: the instruction's ≈ 2,000 characters
 * and a memory's 20,000 with their JSON, ≈ 7,400, and the output cap of 200).
 */
export const MIN_EXPANSION_DAILY_TOKENS = 8000;

/** How long the judge's model call may take by default (`RECALL_JUDGE_TIMEOUT_MS`, ms). */
export const DEFAULT_RECALL_JUDGE_TIMEOUT_MS = 2000;
/**
 * Bounds of `RECALL_JUDGE_TIMEOUT_MS` (ms). The prompt hook's deadline grows by it: with the
 * hook's 1.5 s and its wait of 1 s for a starting service, 7 s keeps the hook within the 10 s
 * Claude Code gives each hook (connect's `timeout`), so that a slow model gives the plain result
 * rather than a hook killed with nothing.
 */
export const RECALL_JUDGE_TIMEOUT_BOUNDS = { min: 100, max: 7000 } as const;
/** The judge's default tokens per UTC day (`RECALL_JUDGE_DAILY_TOKENS`). */
export const DEFAULT_RECALL_JUDGE_DAILY_TOKENS = 200_000;
/**
 * The smallest `RECALL_JUDGE_DAILY_TOKENS`: one call of the largest request fits in it at the
 * judge's upper estimate (3 characters a token: the instruction, a message of 2,000 characters
 * and 10 notes of 1,200, ≈ 15,500 characters, ≈ 5,200 tokens, and the output cap).
 */
export const MIN_RECALL_JUDGE_DAILY_TOKENS = 6000;
/**
 * The judge's pool by default: the first 5 results that are not bootstrap memories
 * (`RECALL_JUDGE_POOL`), of those the ones with a confidence of at least 0.5
 * (`RECALL_JUDGE_POOL_FLOOR`). The quiet one: a wider pool finds more of what a prompt aims at
 * and injects more into every prompt (docs/recall.md).
 */
export const DEFAULT_RECALL_JUDGE_POOL = 5;
/** The judge's default confidence floor (`RECALL_JUDGE_POOL_FLOOR`). */
export const DEFAULT_RECALL_JUDGE_POOL_FLOOR = 0.5;
/**
 * Bounds of `RECALL_JUDGE_POOL`: 10 at most, the widest pool measured, whose request
 * {@link MIN_RECALL_JUDGE_DAILY_TOKENS} fits.
 */
export const RECALL_JUDGE_POOL_BOUNDS = { min: 1, max: 10 } as const;

/**
 * The settings of memory expansion the admin daemon checks at start: expansion on needs the
 * model path of capture (`CAPTURE_MODEL_PROVIDER` other than off), whose client it uses. The
 * error names both variables.
 */
export function checkExpansion(
  cfg: Pick<MemoryConfig, "expansion">,
  captureProvider: string | null,
): void {
  if (cfg.expansion && !captureProvider) {
    throw new ConfigError(
      "MEMORY_EXPANSION=on needs a model: set CAPTURE_MODEL_PROVIDER (subscription, anthropic, " +
        "openai or ollama; its model, URL and key settings are shared), or set MEMORY_EXPANSION=off",
    );
  }
}

/**
 * The judge's settings the admin daemon checks at start: `RECALL_JUDGE=on` needs capture's model
 * path, whose client it uses. The error names both variables.
 */
export function checkRecallJudge(
  cfg: Pick<MemoryConfig, "recallJudge">,
  captureProvider: string | null,
): void {
  if (cfg.recallJudge && !captureProvider) {
    throw new ConfigError(
      "RECALL_JUDGE=on needs a model: set CAPTURE_MODEL_PROVIDER (subscription, anthropic, " +
        "openai or ollama; its model, URL and key settings are shared), or set RECALL_JUDGE=off",
    );
  }
}

/** A configuration error naming the variable. */
export class ConfigError extends Error {
  /** Create the error. */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Env = (name: string) => string | undefined;

const denoEnv: Env = (name) => Deno.env.get(name);

/** The OS-standard per-user data directory for Mneme. */
export function defaultDataDir(env: Env = denoEnv, os: string = Deno.build.os): string {
  const home = env("HOME") ?? env("USERPROFILE") ?? ".";
  if (os === "darwin") return join(home, "Library", "Application Support", "mneme");
  if (os === "windows") {
    return join(env("LOCALAPPDATA") ?? join(home, "AppData", "Local"), "mneme");
  }
  const xdg = env("XDG_DATA_HOME");
  return join(xdg && xdg.startsWith("/") ? xdg : join(home, ".local", "share"), "mneme");
}

/**
 * Claude Code's user configuration folder: `CLAUDE_CONFIG_DIR` (Claude Code's own variable),
 * else `~/.claude`. `memcli hooks` edits `settings.json` in it.
 */
export function claudeConfigDir(env: Env = denoEnv): string {
  const dir = env("CLAUDE_CONFIG_DIR")?.trim();
  if (dir) return dir;
  return join(env("HOME") ?? env("USERPROFILE") ?? ".", ".claude");
}

/**
 * The folder of Claude Code's session transcripts, the only one capture reads:
 * `CAPTURE_TRANSCRIPTS_DIR`, else `projects` in {@link claudeConfigDir} (`~/.claude/projects`).
 * The admin daemon may read it and nothing else of Claude Code's; `POST /api/capture` refuses a
 * `transcript_path` outside it.
 */
export function captureTranscriptsDir(env: Env = denoEnv): string {
  return env("CAPTURE_TRANSCRIPTS_DIR")?.trim() || join(claudeConfigDir(env), "projects");
}

/** MEMORY_API_URL when it is not set: the service on this machine's default port. */
export const DEFAULT_MEMORY_API_URL = "http://127.0.0.1:4200";

/**
 * The folder (under DATA_DIR) and name of the memory service's owner claim
 * (`run/service.lock` and `run/service.json`, see src/common/owner.ts): the service on the
 * embedded database holds it while it runs; memcli finds the running service there.
 */
export const SERVICE_OWNER = { dir: "run", name: "service" } as const;

/**
 * The files `memcli hooks` touches in a Claude Code settings folder (the user's, or a
 * project's `.claude`): `settings.json`, and `mneme-backups/` for the timestamped backups and
 * the temporary file of the atomic write. Nothing else there (credentials live next to them).
 */
export function claudeSettingsFiles(dir: string): { settings: string; backups: string } {
  return { settings: join(dir, "settings.json"), backups: join(dir, "mneme-backups") };
}

/** An on/off variable: `on`, `1`, `true` or `off`, `0`, `false`; unset is off. */
function onOff(env: Env, name: string, def = false): boolean {
  const raw = env(name)?.trim().toLowerCase();
  if (!raw) return def;
  if (raw === "off" || raw === "0" || raw === "false") return false;
  if (raw === "on" || raw === "1" || raw === "true") return true;
  throw new ConfigError(`${name}="${env(name)}" must be on or off`);
}

function intVar(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env(name)?.trim();
  if (!raw) return def;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name}="${raw}" must be an integer between ${min} and ${max}`);
  }
  return Number(raw);
}

/** A number in 0..1 (`0.5`, `.5`, `1`); unset is `def`. */
function fractionVar(env: Env, name: string, def: number): number {
  const raw = env(name)?.trim();
  if (!raw) return def;
  const n = Number(raw);
  if (!/^(0|1)?(\.\d+)?$/.test(raw) || !(n >= 0 && n <= 1)) {
    throw new ConfigError(`${name}="${raw}" must be a number between 0 and 1`);
  }
  return n;
}

function urlVar(env: Env, name: string, def: string, schemes: string[]): string {
  const raw = env(name)?.trim() || def;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!schemes.includes(u.protocol)) {
    throw new ConfigError(`${name} must use ${schemes.join(" or ")}`);
  }
  return raw.replace(/\/+$/, "");
}

/** Read and validate the configuration. */
export function loadMemoryConfig(env: Env = denoEnv): MemoryConfig {
  const provider = (env("EMBEDDING_PROVIDER")?.trim() || "auto").toLowerCase();
  if (!["auto", "builtin", "ollama", "openai"].includes(provider)) {
    throw new ConfigError(
      `EMBEDDING_PROVIDER="${provider}" must be one of auto, builtin, ollama, openai`,
    );
  }
  const databaseUrl = env("DATABASE_URL")?.trim() || undefined;
  if (databaseUrl !== undefined) urlVar(env, "DATABASE_URL", "", ["postgres:", "postgresql:"]);
  const port = intVar(env, "ADMIN_PORT", 4200, 0, 65535);
  const host = env("ADMIN_HOST")?.trim() || "127.0.0.1";
  const dataDir = env("DATA_DIR")?.trim() || defaultDataDir(env);
  return {
    databaseUrl,
    dataDir,
    adminPort: port,
    adminHost: host,
    adminApiKey: env("ADMIN_API_KEY") || undefined,
    memoryApiUrl: urlVar(env, "MEMORY_API_URL", DEFAULT_MEMORY_API_URL, ["http:", "https:"]),
    embeddingProvider: provider as ProviderName,
    embeddingModel: env("EMBEDDING_MODEL")?.trim() || undefined,
    embeddingDim: intVar(env, "EMBEDDING_DIM", DEFAULT_EMBEDDING_DIM, 8, 2000),
    ollamaUrl: urlVar(env, "OLLAMA_URL", "http://127.0.0.1:11434", ["http:", "https:"]),
    openaiBaseUrl: urlVar(env, "OPENAI_BASE_URL", "https://api.openai.com/v1", [
      "http:",
      "https:",
    ]),
    openaiApiKey: env("OPENAI_API_KEY") || undefined,
    importBulk: onOff(env, "IMPORT_BULK", true),
    databaseIdleUnloadS: intVar(env, "DATABASE_IDLE_UNLOAD_S", DEFAULT_IDLE_UNLOAD_S, 0, 604_800),
    expansion: onOff(env, "MEMORY_EXPANSION", false),
    expansionDailyTokens: intVar(
      env,
      "EXPANSION_DAILY_TOKENS",
      DEFAULT_EXPANSION_DAILY_TOKENS,
      MIN_EXPANSION_DAILY_TOKENS,
      100_000_000,
    ),
    recallJudge: onOff(env, "RECALL_JUDGE", false),
    recallJudgeTimeoutMs: intVar(
      env,
      "RECALL_JUDGE_TIMEOUT_MS",
      DEFAULT_RECALL_JUDGE_TIMEOUT_MS,
      RECALL_JUDGE_TIMEOUT_BOUNDS.min,
      RECALL_JUDGE_TIMEOUT_BOUNDS.max,
    ),
    recallJudgeDailyTokens: intVar(
      env,
      "RECALL_JUDGE_DAILY_TOKENS",
      DEFAULT_RECALL_JUDGE_DAILY_TOKENS,
      MIN_RECALL_JUDGE_DAILY_TOKENS,
      100_000_000,
    ),
    recallJudgePool: intVar(
      env,
      "RECALL_JUDGE_POOL",
      DEFAULT_RECALL_JUDGE_POOL,
      RECALL_JUDGE_POOL_BOUNDS.min,
      RECALL_JUDGE_POOL_BOUNDS.max,
    ),
    recallJudgePoolFloor: fractionVar(
      env,
      "RECALL_JUDGE_POOL_FLOOR",
      DEFAULT_RECALL_JUDGE_POOL_FLOOR,
    ),
  };
}
