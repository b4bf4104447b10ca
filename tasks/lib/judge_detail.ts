/**
 * The per-prompt detail `tasks/judge_probe.ts --score --detail` writes (its JSON's
 * `detail.prompts`) and `tasks/judge_gate.ts` reads: one type for both.
 * @module
 */

/** One note of a prompt's wide pool (`--detail`): where it ranked and what the model did with it. */
export interface DetailNote {
  /** 1-based, among the results that are not bootstrap memories (the pool's limit counts these). */
  rank: number;
  score: number;
  confidence: number;
  /** Chosen by the model (null: the judge fell back, or the note was outside the judged pool). */
  chosen: boolean | null;
  target: boolean;
  also: boolean;
}
/** One prompt in one store (`--detail`). */
export interface DetailRow {
  set: string;
  project: string;
  prompt: string;
  kind: "aimed" | "everyday";
  store: "plain" | "expanded";
  searched: boolean;
  /** The plain hook (floor 0.9): anything injected, the target injected. */
  plain_injected: boolean;
  plain_hit: boolean;
  /** The product path at the judged pool: `chosen` or the fallback's reason; anything, target. */
  outcome: string;
  judge_injected: boolean;
  judge_hit: boolean;
  tokens: number;
  /** The store's first 10 results that are not bootstrap and score ≥ 0.1 (the wide pool). */
  notes: DetailNote[];
  /** The tokens of the judge's call at each of tasks/judge_probe.ts's `DETAIL_POOLS` ("limit,floor"; 0: no call). */
  tokens_at: Record<string, number>;
  /**
   * The agent's search (the `recall` tool), aimed prompts: the target in its first 5 (today), in
   * the first 5 of its first K (the rerank's pool, 10), and in the first 5 after the judge's choice among
   * those K was moved first (null: the requests' pool is not wide enough to score it).
   */
  tool?: { hit5: boolean; hit5_of_k: boolean; rerank_hit5: boolean | null; chosen: number[] };
}
