/**
 * The agent's statements the user confirms: the agent asks whether something holds ("Is that
 * right?", "Is partitioning by ingestion date intended?") and the user's next turn says yes
 * ("yes", "right, …"); the statement before the question, or the user's restatement of it, is a
 * candidate counted on the agent's event (extract.ts). Also the reason a user gives after a
 * rule ("because …").
 * @module
 */
import { overlap } from "./dedupe.ts";
import type { Candidate } from "./extract.ts";
import {
  classify,
  FILLER,
  hedged,
  hit,
  isQuestion,
  type Match,
  ONE_OFF,
  REQUEST_CLAUSE,
  STATUS,
  TASK_SUBJECT,
  wording,
} from "./classify.ts";
import { sentences } from "./sentences.ts";
import type { Turn } from "./transcript.ts";

/** A user's reply that confirms what the agent asked ("yes", "right, …", "correct"). */
export const CONFIRM: RegExp =
  /^\s*(yes|yep|yeah|yup|correct|exactly|right|that's right|that is right|that's correct|confirmed|indeed|true|sure is|affirmative)\b/i;
/** The agent asked for a confirmation. */
export const ASKS_CONFIRMATION =
  /\b(is that (right|correct|the rule|so|true|still the case|intended|intentional|on purpose|deliberate|by design|the (convention|norm|policy|standard|practice|pattern|setup|rule))( (for|in|across|everywhere|here)\b[^?]{0,40})?\?|right\?|correct\?|is that how [^?]*\?|am i right\?|can you confirm[^?]*\?|(does|do) (that|this) (sound|look) right\?)\s*$/i;

/**
 * The agent asks whether something holds for good: "Is partitioning by ingestion date
 * intended?", "Should tests always freeze the clock?", "Is that the convention?" (not an offer
 * to do work: "Should I…?", "Do you want me to…?").
 */
export const ASKS_STANDING =
  /(?:^|[;,]\s*)(?:(?:is|are|was|were) [^?]{3,80}\b(?:intended|intentional|deliberate|on purpose|by design|the (?:rule|convention|norm|policy|standard|default))|(?:is|are) (?!i\b|we\b)[^?]*\b(?:always|never|only)\b[^?]*|(?:should|must|do|does) (?!i\b|we\b)[^?]*\b(?:always|never|only|every|all)\b[^?]*)\?\s*$/i;

/**
 * A statement with a tag question at its end, asking the user to confirm it: "X — right?", "X,
 * correct?", "X — is that fixed for every environment?", "X — is 1.10 the pinned version?"; and
 * "X, so I should keep to Y?" / "X, so I shouldn't use Y?" (what follows from it, for the agent).
 * Group 1 is the statement; groups 2 and 3 the consequence, when there is one.
 */
export const TAG_QUESTION =
  /^(.{12,}?)(?:\s*[—–]\s*|\s+-\s+|[;,]\s*)(?:(?:is|are|was|does|do) (?:that|this|it)\b[^?]*|(?<=[—–-]\s*)(?:is|are) [^?]{2,60}|right|correct|true|yes)\?\s*$|^(?:and |so |also )?(.{12,}?),? so (?:i|we) (should(?:n'?t)?|must(?:n'?t)?|need to|have to|can'?t|cannot) ([^?]{3,})\?\s*$/i;

/**
 * The statement a tag question asks about ({@link TAG_QUESTION}), or null; `plain` when it is the
 * statement alone ("X — right?"), not what the agent infers from it ("X, so I should Y?").
 */
export function tagStatement(last: string): { text: string; plain: boolean } | null {
  const m = last.match(TAG_QUESTION);
  if (!m) return null;
  if (m[1]) return { text: m[1].trim(), plain: true };
  const neg = /n'?t$|^cannot$|^can'?t$/i.test(m[3]);
  return { text: `${m[2].trim()}, so ${neg ? "don't " : ""}${m[4].trim()}`, plain: false };
}

/** The agent offers to do something ("Should I…?", "Want me to…?"): a yes asks for work. */
export const OFFER =
  /\b(should i|shall i|shall we|can i|may i|want me|would you like|do you want)\b/i;

export function reasonOf(next: string | undefined): string {
  if (!next) return "";
  return /^(because|since|as|we got burned|that's why|otherwise|ci fails|it breaks)\b/i.test(next)
    ? ` (${next.replace(/[.!]+$/, "")})`
    : "";
}

/** The agent's statement in a turn that asks for confirmation: the durable sentence before it. */
export function agentStatement(
  text: string,
): { sentence: string; match: Match; adjacent: boolean } | null {
  const ss = sentences(text);
  if (!ss.length || !asksConfirmation(ss[ss.length - 1])) return null;
  // "X; is that the convention?", "X — right?", "X, so I should keep to Y?": the statement
  // before the question in the same sentence.
  const tag = tagStatement(ss[ss.length - 1]);
  if (tag) ss.splice(ss.length - 1, 1, tag.text, "?");
  for (let i = ss.length - 2; i >= 0; i--) {
    // The agent's own hedges ("it looks like", "I assume") are what the user confirms.
    const s = ss[i].replace(
      /^.*?\b(it (looks|seems) like|i assume|i guess|i think|so it seems|apparently|i see( that)?|i notice(d)?( that)?)\b,?\s*/i,
      "",
    ).replace(/,? so i'll .*$/i, "");
    // The statement of a tag question ("X — right?") is what the user is asked to confirm,
    // whatever it is about: a fact when no rule of the extractor knows it.
    const m = classifyAgent(s) ??
      (tag?.plain && i === ss.length - 2 && aboutTheSetup(s)
        ? hit("fact", "agent-confirmed")
        : null);
    if (m) return { sentence: s, match: m, adjacent: i === ss.length - 2 };
  }
  return null;
}

/** The agent's own work or the moment's state, not the setup ("I've updated the handler"). */
const AGENT_WORK =
  /\b(i|i'?ve|i'?ll|i'?m|i'?d|me|my|now|just|here'?s|done)\b|\b(added|changed|updated|removed|created|fixed|renamed|moved|wrote|implemented|refactored|deleted|replaced|bumped|switched)\b/i;

/**
 * A statement of a tag question that may stand as a fact of the setup when no rule of the
 * extractor knows it: five words or more, said as known, not a question, an offer, the agent's
 * own work, a state of the moment or a pointer at the work at hand.
 */
export function aboutTheSetup(s: string): boolean {
  const core = s.replace(FILLER, "").trim();
  return s.split(/\s+/).length >= 5 && !hedged(s) && !isQuestion(s) && !OFFER.test(s) &&
    !AGENT_WORK.test(s) && !STATUS.test(s) && !TASK_SUBJECT.test(core);
}

export function classifyAgent(s: string): Match | null {
  const l = s.toLowerCase();
  if (/\b(must|always|never|only)\b/.test(l)) {
    return hit("rule", "agent-confirmed");
  }
  if (/\byou (deploy|release|run|use|ship)\b/.test(l)) {
    return hit("rule", "agent-confirmed");
  }
  // A fact or a decision about the setup the user confirms ("staging runs Postgres 15").
  const m = classify(s);
  return m && hit(m.type, "agent-confirmed");
}

/** Whether the agent's last sentence asks the user to confirm something that holds for good. */
export function asksConfirmation(last: string): boolean {
  return ASKS_CONFIRMATION.test(last) ||
    (ASKS_STANDING.test(last) || TAG_QUESTION.test(last)) && !OFFER.test(last);
}

/**
 * The user's words when they confirm the agent's question and say it again ("yes, it's
 * partitioned by ingestion date on purpose", "yes, always TALLY_NOW in tests"), where the
 * agent's text holds no statement of its own: their restatement, as the confirmed statement.
 */
export function restatement(
  agent: string,
  reply: string,
): { sentence: string; match: Match } | null {
  const ss = sentences(agent);
  if (!ss.length || !asksConfirmation(ss[ss.length - 1])) return null;
  let rest = sentences(reply)[0] ?? "";
  for (let prev = ""; prev !== rest;) {
    prev = rest;
    rest = rest.replace(CONFIRM, "").replace(/^\s*[,.!:;-]+\s*/, "").replace(FILLER, "");
  }
  rest = rest.replace(/^(that'?s|that is) (right|correct|it)\b[,.!:;-]*\s*/i, "").trim();
  if (rest.split(/\s+/).length < 4 || isQuestion(rest) || hedged(rest) || ONE_OFF.test(rest)) {
    return null;
  }
  const req = rest.match(REQUEST_CLAUSE);
  if (req && req.index === 0) return null;
  if (overlap(rest, ss[ss.length - 1]) === 0) return null;
  const m = classify(rest);
  return {
    sentence: rest,
    match: hit(m?.type ?? "rule", "agent-confirmed"),
  };
}

/** The agent's statement in `assistant` when the user's turn `t` confirms it, as a candidate. */
export function confirmedStatement(
  assistant: Turn,
  t: Turn,
): { candidate: Candidate; sentence: string } | null {
  if (!CONFIRM.test(t.text)) return null;
  // The agent's statement right before its question, else the user's restatement, else an
  // earlier statement of the agent's.
  let own = agentStatement(assistant.text);
  // A question of the wider kind ("Is the cache always on?") confirms only what it follows.
  const ss = sentences(assistant.text);
  if (own && !own.adjacent && !ASKS_CONFIRMATION.test(ss[ss.length - 1])) own = null;
  const st = own?.adjacent ? own : restatement(assistant.text, t.text) ?? own;
  if (!st) return null;
  return {
    candidate: {
      text: wording(st.sentence),
      type: st.match.type,
      scope: "project",
      confidence: st.match.confidence,
      provenance: {
        sessionId: assistant.sessionId,
        uuid: assistant.uuid,
        timestamp: assistant.timestamp,
        confirmedBy: t.uuid,
      },
      rule: st.match.rule,
    },
    sentence: st.sentence,
  };
}
