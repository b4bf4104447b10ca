/**
 * `memcli status`'s judge line: the prompts the hook asked about, and, since 0.24, the agent's
 * own searches the judge reranked (counted among `asked`); a service older than the rerank
 * sends no `reranks`.
 */
import assert from "node:assert/strict";
import { judgeLine } from "../../src/memcli/commands/status.ts";
import type { Stats } from "../../src/memory/types.ts";

const base: NonNullable<Stats["judge"]> = {
  on: true,
  model: "anthropic/claude-haiku-4-5",
  timeout_ms: 2000,
  pool: { limit: 5, floor: 0.5 },
  day: "2026-11-30",
  tokens_today: 1200,
  daily_tokens: 200000,
  asked: 7,
  judged: 6,
  reranks: 0,
  chosen: 4,
  fallbacks: { empty: 1, budget: 0, timeout: 0, error: 0, malformed: 0 },
};

Deno.test("status: the judge line counts the prompts, and the searches it reranked apart", () => {
  assert.equal(
    judgeLine(base),
    "  Judge:     on (anthropic/claude-haiku-4-5, 2000 ms, pool 5 ≥ 0.5): 6 of 7 prompts judged " +
      "(plain floor: empty 1); 1200 of 200000 tokens today",
  );
  assert.equal(
    judgeLine({ ...base, reranks: 3 }),
    "  Judge:     on (anthropic/claude-haiku-4-5, 2000 ms, pool 5 ≥ 0.5): 6 of 7 prompts and " +
      "searches judged (3 searches reranked) (plain floor: empty 1); 1200 of 200000 tokens today",
  );
  // An older service: no `reranks` field.
  const { reranks: _, ...older } = base;
  assert.match(judgeLine(older as typeof base), /: 6 of 7 prompts judged \(/);
});
