/**
 * Diagnostics of the memory service, for benchmarks and tuning tasks, not for the programs:
 * {@link explainSearch} gives a search's results with the signals each result's confidence
 * comes from (src/memory/confidence.ts), as tasks/fit_confidence.ts fits the confidence's
 * coefficients on them and tasks/dense_probe.ts compares recall legs. The search is the
 * service's own (the same validation, candidates, ranking and confidence as `search`); only
 * the signals, which `search` drops, are kept.
 * @module
 */
import type { SearchInput } from "./types.ts";
import type { Store } from "../store/store.ts";
import {
  type ExplainedResult,
  importsSettledOf,
  searchWithSignals,
  type SqlMemoryService,
  storeUnder,
} from "./service.ts";

export type { ExplainedResult };

/** `service.search(input)`, each result with its confidence's signals. */
export function explainSearch(
  service: SqlMemoryService,
  input: SearchInput,
): Promise<ExplainedResult[]> {
  return searchWithSignals(service, input);
}

/**
 * The store under `service`, for benchmarks and tests that read or reset the database a
 * service wrote (the programs use `service.maintenance()`).
 */
export function storeOf(service: SqlMemoryService): Store {
  return storeUnder(service);
}

/**
 * Resolves once the work a series of imports left due in `service` has run (the indexes it
 * deferred built, its analyze): a benchmark's series of imports timed to its end.
 */
export function importsSettled(service: SqlMemoryService): Promise<void> {
  return importsSettledOf(service);
}
