/**
 * Build the configured embedder. `auto` picks Ollama when it answers with the model
 * present, else builtin, and only for an empty database: afterwards the recorded
 * embedder is used, so vectors never silently change meaning.
 * @module
 */
import { followsDefaultDim, type MemoryConfig } from "../config.ts";
import type { EmbedderInfo } from "./embedder.ts";
import { BuiltinEmbedder } from "./builtin.ts";
import type { Embedder } from "./embedder.ts";
import { OllamaEmbedder, OpenAIEmbedder } from "./remote.ts";

function build(provider: string, cfg: MemoryConfig, model?: string, dim?: number): Embedder {
  switch (provider) {
    case "builtin":
      return new BuiltinEmbedder(dim ?? cfg.embeddingDim);
    case "ollama":
      return new OllamaEmbedder({ url: cfg.ollamaUrl, model: model ?? cfg.embeddingModel });
    case "openai":
      return new OpenAIEmbedder({
        baseUrl: cfg.openaiBaseUrl,
        apiKey: cfg.openaiApiKey,
        model: model ?? cfg.embeddingModel,
      });
    default:
      throw new Error(`unknown embedding provider ${provider}`);
  }
}

/**
 * The embedder to use, probed. `recorded` is the embedder of the stored vectors (null on a
 * fresh database). Throws an EmbedderError when an explicitly chosen provider fails.
 */
export async function selectEmbedder(
  cfg: MemoryConfig,
  recorded: EmbedderInfo | null,
): Promise<Embedder> {
  let embedder: Embedder;
  if (cfg.embeddingProvider !== "auto") {
    embedder = build(cfg.embeddingProvider, cfg);
  } else if (recorded) {
    // Builtin vectors of an earlier default dimension give way to the configured one (they
    // are re-embedded at start, src/memory/upgrade.ts); other recorded dimensions are kept.
    const dim = recorded.provider === "builtin" && followsDefaultDim(recorded.dimension)
      ? cfg.embeddingDim
      : recorded.dimension;
    embedder = build(recorded.provider, cfg, recorded.model, dim);
  } else {
    const ollama = build("ollama", cfg);
    try {
      await ollama.probe();
      return ollama;
    } catch {
      return build("builtin", cfg);
    }
  }
  await embedder.probe();
  return embedder;
}
