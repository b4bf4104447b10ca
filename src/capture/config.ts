/**
 * The model call capture's settings (src/capture/settings.ts) select:
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
  type ModelCall,
  ollamaCall,
  openaiCall,
  subscriptionCall,
} from "./model.ts";
import type { CaptureModelConfig } from "./settings.ts";

export {
  CaptureConfigError,
  type CaptureModelConfig,
  captureModelConfig,
  captureModelEndpoint,
} from "./settings.ts";

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
