/**
 * Recorded model expansions (bench/data/expansions/<set>.json) for benchmarks and fitting
 * tasks: loaded and checked against a paraphrase set, and written into a service by the real
 * expansion worker (src/memory/expansion.ts) whose model is the fake Ollama of tests/fakes/
 * replaying them (the product path of `MEMORY_EXPANSION=on`).
 * @module
 */
import type { ParaphraseSet } from "../paraphrase.ts";
import { ExpansionWorker } from "../../src/memory/expansion.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { ollamaCall } from "../../src/capture/model.ts";
import { startFakeOllama } from "../../tests/fakes/ollama.ts";
import { replayExpansions } from "../../tests/fakes/expansions.ts";

/** Recorded answers of the model: memory id → phrases. */
export type Expansions = Record<string, { phrases: string[] }>;

/** The recorded expansions at `path`, every memory of `set` checked to have phrases. */
export async function loadExpansions(path: string, set: ParaphraseSet): Promise<Expansions> {
  const raw = JSON.parse(await Deno.readTextFile(path)) as Expansions;
  const ids = [...set.projects.flatMap((p) => p.memories), ...set.globals].map((m) => m.id);
  for (const id of ids) {
    const p = raw[id]?.phrases;
    if (!Array.isArray(p) || !p.length || p.some((x) => typeof x !== "string" || !x.trim())) {
      throw new Error(`${path}: ${id}.phrases: expected a non-empty list of phrases`);
    }
  }
  return raw;
}

/** What the worker did: calls, tokens (the fake's usage) and memories expanded. */
export interface ReplayCost {
  calls: number;
  tokens: number;
  memories: number;
}

/**
 * Expand `service`'s memories with the real worker, its model the fake Ollama replaying the
 * recorded phrases (by content) of `set`; throws when a memory is left unexpanded.
 */
export async function expandWithWorker(
  service: SqlMemoryService,
  set: ParaphraseSet,
  ex: Expansions,
  log: (line: string) => void = (l) => console.error(l),
): Promise<ReplayCost> {
  const phrases = new Map<string, string[]>();
  for (const m of [...set.projects.flatMap((p) => p.memories), ...set.globals]) {
    phrases.set(m.content, ex[m.id].phrases);
  }
  const replay = replayExpansions(phrases);
  const fake = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
  const worker: ExpansionWorker = new ExpansionWorker({
    target: service.expansionTarget(() => worker.report()),
    call: ollamaCall({ baseUrl: fake.url, model: "llama3.2" }),
    model: "ollama/llama3.2 (recorded)",
    dailyTokens: 1e9,
    log,
  });
  try {
    await worker.run();
    const r = worker.report();
    if (r.dropped || r.last_error) throw new Error(`product: ${JSON.stringify(r)}`);
    const stats = await service.stats();
    if (stats.expansion?.waiting) throw new Error(`product: ${stats.expansion.waiting} waiting`);
    return { calls: r.calls, tokens: r.tokens_today, memories: stats.expansion?.expanded ?? 0 };
  } finally {
    await worker.close();
    await fake.close();
  }
}
