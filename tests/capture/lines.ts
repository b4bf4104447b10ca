/** Lines of a Claude Code transcript for tests. */
import { extractCandidates } from "../../src/capture/extract.ts";
import { u } from "./turns.ts";

/** One `user` or `assistant` event of session `session` (JSONL, with its newline). */
export function line(uuid: string, session: string, role: "user" | "assistant", text: string) {
  return JSON.stringify({
    type: role,
    uuid,
    sessionId: session,
    timestamp: "2026-11-28T10:00:00Z",
    message: role === "user"
      ? { role, content: text }
      : { role, content: [{ type: "text", text }] },
  }) + "\n";
}

/** A rule the scorer is sure of (a marker and a concrete detail). */
export const RULE_STATEMENT =
  "From now on we always run `npm run lint` in this repo before every commit.";
/** A decision the scorer proposes, less sure of it than of {@link RULE_STATEMENT}. */
export const DECISION_STATEMENT = "We chose Postgres over Mongo because we need joins.";
/** A rule that replaces the stored "We use npm for everything", above the floor too. */
export const PNPM_STATEMENT =
  "From now on always use pnpm, not npm, in this repo (see package.json).";

/** The confidence the offline extractor gives the one candidate of a one-line session. */
function confidence(text: string): number {
  const c = extractCandidates([u(text)]);
  if (c.length !== 1) throw new Error(`"${text}" must give one candidate (got ${c.length})`);
  return c[0].confidence;
}

/**
 * An auto-accept floor between the confidences the scorer gives {@link RULE_STATEMENT} and
 * {@link DECISION_STATEMENT} (src/capture/scorer.ts): the rule passes it, the decision does not.
 * The auto-accept tests use both statements (and {@link PNPM_STATEMENT}, which must pass it too).
 */
export const BETWEEN_RULE_AND_DECISION = (() => {
  const rule = confidence(RULE_STATEMENT), decision = confidence(DECISION_STATEMENT);
  if (!(rule > decision) || !(confidence(PNPM_STATEMENT) > decision)) {
    throw new Error(`the rules (${rule}) must be above the decision (${decision}) for these tests`);
  }
  return Math.round((rule + decision) / 2 * 1000) / 1000;
})();
