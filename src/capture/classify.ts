/**
 * How one sentence of the user is classified by the offline extractor (extract.ts): the kind of
 * memory it states (a rule or correction, a preference, a decision with its reason, a fact about
 * the setup), with the rule that matched and a confidence, or nothing (a question, a one-off
 * instruction, a hypothesis, a report on the work at hand, a request). The patterns are in the
 * order they are tried (rules.ts, then facts.ts; what they read of a sentence: markers.ts); each
 * has a test sentence in tests/capture/extract_corpus_test.ts.
 * @module
 */
import {
  describes,
  DONT_AT_HAND,
  FILLER,
  hedged,
  isQuestion,
  type Match,
  MAX_SENTENCE,
  ONE_OFF,
  reportedSpeech,
  SCOPED,
  spelled,
  unquoted,
} from "./markers.ts";
import { preferenceOf, ruleOf } from "./rules.ts";
import { decisionOf, factOf, notedOf, withoutChangeTime } from "./facts.ts";

export * from "./markers.ts";
export { preferenceOf, ruleOf } from "./rules.ts";
export {
  decisionOf,
  factOf,
  namedPredicate,
  namesIdentifier,
  notedOf,
  setupFact,
} from "./facts.ts";

/** The durable kind of a sentence, or null. */
export function classify(s0: string): Match | null {
  // "we moved to zig 0.13 last week": the time of a change of the setup is no one-off.
  const s = withoutChangeTime(
    unquoted(s0),
    spelled(unquoted(s0).toLowerCase()).replace(FILLER, "").trim(),
  );
  const l = spelled(s.toLowerCase());
  if (l.length > MAX_SENTENCE) return null;
  if (isQuestion(s)) return null;
  if (ONE_OFF.test(l) && !/\b(from now on|always|never|going forward)\b/.test(l)) return null;
  if (SCOPED.test(l) || DONT_AT_HAND.test(l.replace(FILLER, "").trim())) return null;
  if (hedged(l)) return null;
  // Someone else's words ("no emoji, my colleague says"), not the user's rule.
  if (reportedSpeech(l)) return null;
  const core = l.replace(FILLER, "").trim();
  if (
    /\b(always|never|must|from now on|going forward|in (the )?future)\b/.test(l) &&
    describes(l, core)
  ) {
    return null;
  }
  return ruleOf(l, core, s) ?? preferenceOf(l, core) ?? decisionOf(l, core, s) ??
    factOf(s, l, core) ?? notedOf(l, core);
}
