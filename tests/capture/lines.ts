/** Lines of a Claude Code transcript for tests. */
import { confidenceOf } from "../../src/capture/calibration.ts";

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

/**
 * An auto-accept floor between the calibrated confidences of a "from now on …" rule and a "we
 * chose … because …" decision (src/capture/calibration.ts): the rule passes it, the decision does
 * not. The auto-accept tests use both statements.
 */
export const BETWEEN_RULE_AND_DECISION = (() => {
  const rule = confidenceOf("from-now-on"), decision = confidenceOf("we-chose");
  if (!(rule > decision)) {
    throw new Error(`from-now-on (${rule}) must be above we-chose (${decision}) for these tests`);
  }
  return Math.round((rule + decision) / 2 * 1000) / 1000;
})();
