/**
 * Capture's model settings from the environment, checked once at start (a bad value names its
 * variable), without the modules of the model call (the launcher reads them to compute the
 * admin daemon's permissions):
 * - `CAPTURE_MODEL_PROVIDER`: `off` (default: the offline extractor only), `subscription`,
 *   `anthropic`, `openai` or `ollama`;
 * - `CAPTURE_MODEL`: the model (default per provider: `claude-haiku-4-5` for subscription and
 *   anthropic, `gpt-4o-mini` for openai, `llama3.2` for ollama);
 * - `CAPTURE_MODEL_URL`: the endpoint (default `https://api.anthropic.com`,
 *   `https://api.openai.com/v1`, `http://127.0.0.1:11434`; subscription: msgcli's
 *   `MSGCLI_API_BASE_URL`);
 * - `CAPTURE_MODEL_API_KEY`: the key for anthropic (required) and openai (optional for local
 *   compatible servers);
 * - `CAPTURE_SESSION_TOKENS` (default 20000) and `CAPTURE_DAILY_TOKENS` (default 200000);
 * - `CAPTURE_AUTO_ACCEPT`: `off` (default: every proposal waits in the inbox) or a number in
 *   (0, 1], the confidence floor of a proposal accepted at once. There is no `on`: on sessions
 *   the extractor was not tuned on, no floor was precise enough to be a default
 *   (docs/capture.md, "Auto-accept");
 * - `CAPTURE_MIN_CONFIDENCE`: the confidence from which the offline extractor proposes a
 *   candidate, a number in [0, 1] (default: its scorer's threshold, in scorer_weights.ts: 0.6
 *   in 0.18; lower proposes more, and more junk: docs/capture.md).
 * @module
 */
import { loadMsgConfig } from "../msg/config.ts";
import type { CaptureModelEndpoint } from "../permissions.ts";

/** The model providers. */
export const MODEL_PROVIDERS = ["subscription", "anthropic", "openai", "ollama"] as const;
/** A model provider. */
export type ModelProvider = typeof MODEL_PROVIDERS[number];
/** Default token budget of one session. */
export const DEFAULT_SESSION_TOKENS = 20_000;
/** Default token budget of one day (UTC), all sessions. */
export const DEFAULT_DAILY_TOKENS = 200_000;

/**
 * Read `CAPTURE_AUTO_ACCEPT`: null when off (the default), else the confidence floor, a number in
 * (0, 1]. Another value (`on` too: no default floor) throws {@link CaptureConfigError} naming
 * the variable.
 */
export function captureAutoAccept(env: (n: string) => string | undefined): number | null {
  const raw = env("CAPTURE_AUTO_ACCEPT")?.trim().toLowerCase() || "off";
  if (raw === "off") return null;
  if (raw === "on") {
    throw new CaptureConfigError(
      "CAPTURE_AUTO_ACCEPT",
      "has no default floor: give the confidence floor as a number greater than 0 and at most 1, " +
        "or off (on sessions it was not tuned on, no floor of the offline extractor was " +
        "precise enough to be a default: docs/capture.md, Auto-accept)",
    );
  }
  const n = Number(raw);
  if (!/^(0|1)?(\.\d+)?$/.test(raw) || !(n > 0 && n <= 1)) {
    throw new CaptureConfigError(
      "CAPTURE_AUTO_ACCEPT",
      `must be off or a number greater than 0 and at most 1, the confidence floor (got "${
        env("CAPTURE_AUTO_ACCEPT")?.trim()
      }")`,
    );
  }
  return n;
}

/**
 * Read `CAPTURE_MIN_CONFIDENCE`: null when unset (the extractor's own threshold), else a number
 * in [0, 1]. Another value throws {@link CaptureConfigError} naming the variable.
 */
export function captureMinConfidence(env: (n: string) => string | undefined): number | null {
  const raw = env("CAPTURE_MIN_CONFIDENCE")?.trim() ?? "";
  if (raw === "") return null;
  const n = Number(raw);
  if (!/^(0|1)?(\.\d+)?$/.test(raw) || !(n >= 0 && n <= 1)) {
    throw new CaptureConfigError(
      "CAPTURE_MIN_CONFIDENCE",
      `must be a number from 0 to 1, the confidence from which a candidate is proposed (got "${raw}")`,
    );
  }
  return n;
}

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
 * What the admin daemon must reach for the model path (src/permissions.ts `addCaptureModel`):
 * null when capture is offline, the provider's URL, or msgcli's endpoints and credentials
 * file for the subscription. A bad setting throws {@link CaptureConfigError}.
 */
export function captureModelEndpoint(
  env: (n: string) => string | undefined,
): CaptureModelEndpoint | null {
  const cfg = captureModelConfig(env);
  if (!cfg.provider) return null;
  if (cfg.provider === "subscription") return { msg: loadMsgConfig(env) };
  return { url: cfg.baseUrl };
}
