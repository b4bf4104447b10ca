/**
 * The lexical side of a search as the service builds it (src/memory/ranking.ts) for tests that
 * ask the store for candidates directly: the scope's corpus statistics for the query's term
 * groups, weighed by {@link lexicalQuery}.
 */
import { lexicalQuery } from "../../src/memory/ranking.ts";
import type { LexicalQuery, ScopeFilter, Store } from "../../src/store/store.ts";

/** The weighted lexical query of `queryTerms` (each a term or a group of forms) in `scope`. */
export async function weigh(
  store: Store,
  queryTerms: readonly (string | readonly string[])[],
  scope: ScopeFilter,
): Promise<LexicalQuery> {
  const groups = queryTerms.map((g) => typeof g === "string" ? [g] : [...g]);
  return lexicalQuery(groups, await store.corpusStats(scope, [...new Set(groups.flat())]));
}
