/**
 * Capture's settings from the environment, checked once at start (a bad value names its
 * variable), and the model call they select:
 * - `CAPTURE_MODEL_PROVIDER`: `off` (default: the offline extractor only), `subscription`,
 *   `anthropic`, `openai` or `ollama`;
 * - `CAPTURE_MODEL`: the model (default per provider: `claude-haiku-4-5` for subscription and
 *   anthropic, `gpt-4o-mini` for openai, `llama3.2` for ollama);
 * - `CAPTURE_MODEL_URL`: the endpoint (default `https://api.anthropic.com`,
 *   `https://api.openai.com/v1`, `http://127.0.0.1:11434`; subscription: msgcli's
 *   `MSGCLI_API_BASE_URL`);
 * - `CAPTURE_MODEL_API_KEY`: the key for anthropic (required) and openai (optional for local
 *   compatible servers);
 * - `CAPTURE_SESSION_TOKENS` (default 20000) and `CAPTURE_DAILY_TOKENS` (default 200000).
 * @module
 */
import { MessagesClient } from "../msg/api.ts";
import { loadMsgConfig } from "../msg/config.ts";
import { CredentialStore } from "../msg/credentials.ts";
import { createUpstreamFetch } from "../msg/http.ts";
import {
  anthropicCall,
  DEFAULT_DAILY_TOKENS,
  DEFAULT_SESSION_TOKENS,
  MODEL_PROVIDERS,
  type ModelCall,
  type ModelProvider,
  ollamaCall,
  openaiCall,
  subscriptionCall,
} from "./model.ts";

/** Capture's model settings. */
export interface CaptureModelConfig {
  /** The provider, or null: offline only. */
  provider: ModelProvider | null;
  /** The model. */
  model: string;
  /** The endpoint (unused by subscription, which follows msgcli's settings). */
  baseUrl: string;
  /** The key (anthropic, openai). */
  apiKey?: string;
  /** Token budget of one session. */
  sessionTokens: number;
  /** Token budget of one day (UTC). */
  dailyTokens: number;
}

/** A capture setting that is not usable; names the variable. */
export class CaptureConfigError extends Error {
  /** The error. */
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = "CaptureConfigError";
  }
}

const DEFAULT_MODEL: Record<ModelProvider, string> = {
  subscription: "claude-haiku-4-5",
  anthropic: "claude-haiku-4-5",
  openai: "gpt-4o-mini",
  ollama: "llama3.2",
};
const DEFAULT_URL: Record<ModelProvider, string> = {
  subscription: "",
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
  ollama: "http://127.0.0.1:11434",
};

function tokens(env: (n: string) => string | undefined, name: string, def: number): number {
  const raw = env(name)?.trim();
  if (!raw) return def;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1000 || n > 100_000_000) {
    throw new CaptureConfigError(
      name,
      `must be an integer between 1000 and 100000000 (got "${raw}")`,
    );
  }
  return n;
}

/** Read capture's model settings. */
export function captureModelConfig(env: (n: string) => string | undefined): CaptureModelConfig {
  const raw = env("CAPTURE_MODEL_PROVIDER")?.trim() || "off";
  if (raw !== "off" && !(MODEL_PROVIDERS as readonly string[]).includes(raw)) {
    throw new CaptureConfigError(
      "CAPTURE_MODEL_PROVIDER",
      `must be off, ${MODEL_PROVIDERS.join(", ")} (got "${raw}")`,
    );
  }
  const provider = raw === "off" ? null : raw as ModelProvider;
  const baseUrl = env("CAPTURE_MODEL_URL")?.trim() || (provider ? DEFAULT_URL[provider] : "");
  if (provider && provider !== "subscription") {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw new CaptureConfigError("CAPTURE_MODEL_URL", `is not a URL ("${baseUrl}")`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") {
      throw new CaptureConfigError("CAPTURE_MODEL_URL", "must be http or https");
    }
  }
  const apiKey = env("CAPTURE_MODEL_API_KEY")?.trim() || undefined;
  if (provider === "anthropic" && !apiKey) {
    throw new CaptureConfigError(
      "CAPTURE_MODEL_API_KEY",
      "is required with the anthropic provider",
    );
  }
  return {
    provider,
    model: env("CAPTURE_MODEL")?.trim() || (provider ? DEFAULT_MODEL[provider] : ""),
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    sessionTokens: tokens(env, "CAPTURE_SESSION_TOKENS", DEFAULT_SESSION_TOKENS),
    dailyTokens: tokens(env, "CAPTURE_DAILY_TOKENS", DEFAULT_DAILY_TOKENS),
  };
}

/**
 * The model call of a configuration, or null when capture is offline. The subscription
 * provider uses msgcli's configuration (`MSGCLI_*`, the credentials file and its lock) and
 * client; `close` releases its connection pool.
 */
export function captureModelCall(
  cfg: CaptureModelConfig,
  env: (n: string) => string | undefined,
): { call: ModelCall; close(): void } | null {
  switch (cfg.provider) {
    case null:
      return null;
    case "subscription": {
      const msg = loadMsgConfig(env);
      const upstream = createUpstreamFetch({ proxy: msg.proxy });
      const client = new MessagesClient({
        config: msg,
        fetch: upstream.fetch,
        store: new CredentialStore(msg.credentialsPath),
      });
      return { call: subscriptionCall(client, cfg.model), close: () => upstream.close() };
    }
    case "anthropic":
      return {
        call: anthropicCall({ baseUrl: cfg.baseUrl, apiKey: cfg.apiKey!, model: cfg.model }),
        close: () => {},
      };
    case "openai":
      return {
        call: openaiCall({ baseUrl: cfg.baseUrl, apiKey: cfg.apiKey, model: cfg.model }),
        close: () => {},
      };
    case "ollama":
      return { call: ollamaCall({ baseUrl: cfg.baseUrl, model: cfg.model }), close: () => {} };
  }
}
