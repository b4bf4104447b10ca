/**
 * The corpus statistics of the lexical search (BM25's document count, average length and
 * document frequencies), and the memories per project value that choose between an exact
 * and an HNSW nearest-neighbour read. Triggers keep exact counts in `memory_corpus` and
 * `memory_term_df` (deltas appended by every write, migrations/0006_corpus_stats.sql), so
 * reading them sums a few rows; this cache keeps them a few seconds per project value, so
 * that one read serves every scope and most searches need no extra round trip (a count a few
 * seconds old changes no ranking).
 * @module
 */
import type { Db } from "./db.ts";
import { type ScopeFilter, scopeValues } from "./sql.ts";

/** BM25 statistics of the memories one scope covers. */
export interface CorpusStats {
  n: number;
  avgdl: number;
  /** Document frequency of the query's terms. */
  df: Map<string, number>;
}

/**
 * Corpus counts per project value (null: global memories), from which the statistics of any
 * scope are sums: one count serves every project's hierarchy and the global scope.
 */
export interface CorpusCounts {
  at: number;
  /** Memories, the sum of their lengths and how many have a length, per project value. */
  docs: Map<string | null, { n: number; len: number; withLen: number }>;
  /** Document frequency per term and project value, of the terms asked for so far. */
  df: Map<string, Map<string | null, number>>;
}

/** How long corpus statistics of a scope are reused, in milliseconds. */
export const STATS_TTL_MS = 10_000;
/**
 * How long the memories per project value that choose between an exact and an HNSW read are
 * reused when no search has read them since (a create's contradiction check), in milliseconds.
 * Writes do not drop them: they choose a plan, not a result.
 */
export const SIZES_TTL_MS = 60_000;

/** The memories per project value in corpus counts (for {@link exactScope}). */
function sizesOf(c: CorpusCounts): { at: number; n: Map<string | null, number> } {
  return { at: c.at, n: new Map([...c.docs].map(([k, d]) => [k, d.n])) };
}

/**
 * The cached corpus counts of one store: kept for {@link STATS_TTL_MS} (dropped by the
 * store's writes, {@link CorpusCache.invalidate}); the memories per project value for
 * {@link SIZES_TTL_MS}.
 */
export class CorpusCache {
  /** Counts per project value ({@link CorpusCounts}), or null once dropped. */
  counts: CorpusCounts | null = null;
  /** Memories per project value as last read with the counts. */
  sizes: { at: number; n: Map<string | null, number> } | null = null;

  /** Forget the cached counts (after writes). */
  invalidate(): void {
    this.counts = null;
  }

  /**
   * The memories per project value, read again when older than {@link SIZES_TTL_MS}: counts a
   * search read less than {@link STATS_TTL_MS} ago serve as they are (their terms' document
   * frequencies stay cached); otherwise they are read again.
   */
  async sizesOf(db: Db): Promise<Map<string | null, number>> {
    if (!this.sizes || Date.now() - this.sizes.at >= SIZES_TTL_MS) {
      const c = this.counts;
      if (c && Date.now() - c.at < STATS_TTL_MS) this.sizes = sizesOf(c);
      else await this.#readCounts(db);
    }
    return this.sizes!.n;
  }

  /** Read the corpus counts per project value ({@link CorpusCounts}). */
  async #readCounts(db: Db): Promise<CorpusCounts> {
    const rows = await db.query<
      { project: string | null; n: number; len: number; with_len: number }
    >(
      `select c.project, sum(c.n)::float8 as n, sum(c.len)::float8 as len,
              sum(c.with_len)::float8 as with_len
         from memory_corpus c group by c.project`,
    );
    const c: CorpusCounts = { at: Date.now(), docs: new Map(), df: new Map() };
    for (const r of rows) {
      c.docs.set(r.project, { n: Number(r.n), len: Number(r.len), withLen: Number(r.with_len) });
    }
    this.counts = c;
    this.sizes = sizesOf(c);
    return c;
  }

  /** BM25 statistics of `scope` for `terms`, from the cached counts. */
  async stats(db: Db, scope: ScopeFilter, terms: string[]): Promise<CorpusStats> {
    let c = this.counts;
    if (!c || Date.now() - c.at >= STATS_TTL_MS) c = await this.#readCounts(db);
    const missing = terms.filter((t) => !c.df.has(t));
    if (missing.length) {
      const rows = await db.query<{ term: string; project: string | null; df: number }>(
        `select d.term, d.project, sum(d.df)::int as df from memory_term_df d
          where d.term = any($1::text[]) group by d.term, d.project`,
        [missing],
      );
      if (c.df.size > 50_000) c.df.clear();
      for (const t of missing) c.df.set(t, new Map());
      for (const r of rows) c.df.get(r.term)!.set(r.project, Number(r.df));
    }
    const values = scopeValues(scope);
    const sum = <T>(m: Map<string | null, T>, f: (x: T) => number) => {
      let total = 0;
      if (values === null) { for (const x of m.values()) total += f(x); }
      else for (const v of values) total += m.has(v) ? f(m.get(v)!) : 0;
      return total;
    };
    const n = sum(c.docs, (d) => d.n);
    const withLen = sum(c.docs, (d) => d.withLen);
    const avgdl = withLen ? sum(c.docs, (d) => d.len) / withLen : 1;
    const df = new Map(terms.map((t) => [t, sum(c.df.get(t)!, (x) => x)]));
    return { n, avgdl: Math.max(1, avgdl), df };
  }
}
