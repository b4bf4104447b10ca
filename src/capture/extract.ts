/**
 * The offline extractor: memory candidates from a session's turns, without a model or the
 * network. Conservative by design (a missed memory costs little, a junk one costs trust): it
 * reads what the *user* wrote, sentence by sentence, and keeps a sentence only when it says
 * something meant for good:
 * - rules and corrections: "always…", "never…", "from now on…", "don't (ever)…", "use X, not
 *   Y", "no <doing>…", "every X needs…", "that's a general rule";
 * - preferences: "I prefer…", "I'd rather…", and a sentence the user generalises ("that goes
 *   for everything", "in general", "working with me"), which then goes to the global scope;
 * - decisions with their reason: "we chose/decided/went with/are standardising on…", "let's go
 *   with/use… because…";
 * - facts about the setup: ports, paths and buckets, commands in backquotes, owners, schedules,
 *   the variable a value is read from.
 * and drops questions, one-off instructions ("this time", "for this PR", "for now", "later"),
 * hypotheses ("maybe", "might", "probably", "I think") and everything else (requests).
 * The agent's text counts only where it asked for confirmation ("Is that right?") and the
 * user's next turn confirms it ("yes", "right", "correct").
 *
 * These rules are the candidate generator ({@link generateCandidates}, which also takes every
 * other user sentence that is not a question as a `loose` candidate); the learned scorer
 * (scorer.ts, fitted by `deno task fit:capture`) gives each its probability, the candidate's
 * confidence, and {@link extractCandidates} keeps those at or above its threshold.
 * @module
 */
import { overlap } from "./dedupe.ts";
import { confidenceOf } from "./calibration.ts";
import { findSecretsSync, MARKER, replaceSecrets } from "../domain/secrets.ts";
import type { Turn } from "./transcript.ts";
import { EXCLUDES, scoreCandidate } from "./scorer.ts";
import { THRESHOLD } from "./scorer_weights.ts";
import {
  contextItems,
  CONTINUES,
  explains,
  kindGroups,
  MIN_WORDS_LEFT,
  sentences,
} from "./sentences.ts";
import { CONFIRM, confirmedStatement, OFFER, reasonOf } from "./confirm.ts";
import {
  classify,
  describes,
  FILLER,
  GENERAL_GLOBAL,
  hedged,
  hit,
  isQuestion,
  MAX_SENTENCE,
  ONE_OFF,
  PAST,
  PROJECT_WORDS,
  reportedSpeech,
  REQUEST_CLAUSE,
  RULE_MARKER,
  SCOPED,
  spelled,
  STATUS,
  TASK_SUBJECT,
  wording,
} from "./classify.ts";

export { classify };
export { FRAGMENT, sentences } from "./sentences.ts";
export { CONFIRM } from "./confirm.ts";

/** What kind of memory a candidate is (the service's memory types). */
export type CandidateType = "rule" | "feedback" | "decision" | "fact";

/** Where a candidate came from. */
export interface Provenance {
  /** The Claude Code session. */
  sessionId: string;
  /** The transcript event the statement is in. */
  uuid: string;
  /** The event's time (ISO). */
  timestamp: string;
  /** The user's turn that confirmed an agent's statement. */
  confirmedBy?: string;
}

/** A memory candidate, before the secret check and the dedupe. */
export interface Candidate {
  /** The memory's text. */
  text: string;
  /** Its type. */
  type: CandidateType;
  /** `project` (the session's project) or `global` (a personal preference). */
  scope: "project" | "global";
  /** How sure the extractor is, 0..1. */
  confidence: number;
  /** Where it came from. */
  provenance: Provenance;
  /** Which rule of the extractor found it (for review and tuning). */
  rule: string;
  /** Kinds of the secrets replaced by a marker in `text` (found in the whole turn). */
  secretsRemoved?: string[];
  /**
   * The stored memory this one changes, as the model named it (`replaces`, an id of the
   * request's stored memories); the offline extractor names none.
   */
  replaces?: { id: string; text: string };
}

/**
 * A turn's text with the secrets that span lines (a private key block) replaced by markers:
 * they are checked in the whole turn, before it is cut into sentences that hold only parts of
 * them. Secrets within a line are left to the pipeline's check of each candidate (which counts
 * and reports them).
 */
function withoutSecrets(text: string): string {
  if (!text.includes("\n")) return text;
  const found = findSecretsSync(text).filter((f) => text.slice(f.start, f.end).includes("\n"));
  return found.length ? replaceSecrets(text, found) : text;
}

/** A candidate's kinds of removed secrets, or null when too little is left without them. */
function secretKinds(text: string): string[] | null {
  const kinds = [...text.matchAll(MARKER)].map((m) => m[0].slice(17, -1));
  if (!kinds.length) return [];
  const rest = text.replace(MARKER, " ").split(/\s+/).filter((w) => /[a-z]{2,}/i.test(w));
  return rest.length < MIN_WORDS_LEFT ? null : kinds;
}

/**
 * A candidate as the generator found it, with what the scorer (scorer.ts) reads besides its
 * text: the sentence it came from, its turn's text, the turn's place in the session, the
 * agent's text before it and whether it was an item of a list.
 */
export interface Generated extends Candidate {
  /** The sentence (or the agent's statement) it came from, as written. */
  sentence: string;
  /** The whole text of its user turn (the confirming turn for an agent's statement). */
  turnText: string;
  /** The number of sentences of the turn. */
  turnSentences: number;
  /** Which user turn of the session it is in (0 = the first) and how many there are. */
  turnIndex: number;
  turnCount: number;
  /** The agent's text just before the turn ("" if none). */
  prevAgent: string;
  /** An item of a list the user introduced ("conventions:\n- …"). */
  listed: boolean;
  /** How many other candidates the same event gave (set once the session's are found). */
  siblings?: number;
}

/**
 * Candidates from `turns` (in order), each with the scorer's probability as its confidence;
 * only those at or above `threshold` (default {@link THRESHOLD}, the one chosen by
 * `deno task fit:capture`) are kept. `prevAssistant` is the agent's turn before the first.
 */
export function extractCandidates(
  turns: Turn[],
  prevAssistant?: Turn,
  threshold: number = THRESHOLD,
): Candidate[] {
  const out: Candidate[] = [];
  for (const g of generateCandidates(turns, prevAssistant)) {
    const p = scoreCandidate(g);
    if (p < threshold) continue;
    const { text, type, scope, provenance, rule, secretsRemoved } = g;
    out.push({
      text,
      type,
      scope,
      confidence: Math.floor(p * 100) / 100,
      provenance,
      rule,
      ...(secretsRemoved ? { secretsRemoved } : {}),
    });
  }
  return out;
}

/**
 * The candidates the rules find (the generator without its `loose` sentences), with their
 * rule's calibrated confidence (calibration.ts), unscored: what the rules do by themselves, for
 * review and for their tests.
 */
export function ruleCandidates(turns: Turn[], prevAssistant?: Turn): Candidate[] {
  return generateCandidates(turns, prevAssistant).filter((g) => g.rule !== "loose").map((g) => {
    const { text, type, scope, confidence, provenance, rule, secretsRemoved } = g;
    return {
      text,
      type,
      scope,
      confidence,
      provenance,
      rule,
      ...(secretsRemoved ? { secretsRemoved } : {}),
    };
  });
}

/**
 * A fragment that only says the sentence before it holds for good: "no latest tags. ever",
 * "bash scripts: set -euo pipefail at top. always", "404 w/ problem+json. always. every endpoint".
 */
export const STANDING_TAIL =
  /^(?:always|ever|every time|each time|no exceptions|always,? everywhere|every single time)[.!]*$/i;

/** A fragment that only names what the sentence before excludes: "never next to the exe". */
const NEVER_TAIL = /^(?:and |but )?never (?!(?:again|ever|mind)\b)[^.!?]{1,80}[.!]*$/i;

/**
 * Whether a sentence may be made a rule by a {@link STANDING_TAIL} after it: a statement of its
 * own (two words or more), not itself a tail, a question, a hedge, a one-off, a report on the
 * work, a request ("can you…", "please…") nor a pointer at the thing at hand ("do it. always").
 */
function standsAlone(prev: string, items: Set<string>): boolean {
  const core = prev.replace(FILLER, "").trim();
  return !STANDING_TAIL.test(prev.trim()) && core.split(/\s+/).length >= 2 && prev.length <= 200 &&
    !isQuestion(prev) && !hedged(prev) && !ONE_OFF.test(prev) && !STATUS.test(prev) &&
    !items.has(prev) && !/\b(it|this|that|them|these|those)\b/i.test(core) &&
    !/^(please|can|could|would|will) /i.test(core) && !TASK_SUBJECT.test(core) &&
    !REPORT_PAST.test(core) && !describes(spelled(prev.toLowerCase()), core.toLowerCase()) &&
    !reportedSpeech(prev.toLowerCase());
}

/**
 * A sentence that tells what someone did or does ("you pushed to main", "we never got the tags
 * right", "I always forget the tags"): a report or a habit, which a bare "always" after it does
 * not make a rule.
 */
const REPORT_PAST = new RegExp(
  `^(?:i|we|you|they|he|she|someone|somebody|everyone|nobody)\\s+(?:(?:always|never|just|already|also|often|usually)\\s+)?(?:${PAST}|forget|forgets|(?!(?:need|feed|seed|speed|proceed|exceed|succeed|embed)\\b)\\w+ed)\\b`,
  "i",
);

/**
 * The agent offers a standing practice ("Should I make that the convention here: no service block
 * in batch jobs?", "Shall I treat `dune fmt` as required before every commit?", "…; should that be
 * the standard here?", "Should every new resource follow that pattern?", "Should new stores
 * follow the setup syntax too?"): a question that names a convention, a rule, a pattern or a
 * standing scope ("going forward", "before every …", "every new …"), not an offer of the work at
 * hand ("Should I update all the call sites?").
 */
export const STANDING_OFFER =
  /\b(conventions?|the rule|a rule|rules? for|standard|norm|policy|(that|this|the same) pattern|going forward|from now on|in (the )?future|before every|after every|every time|every new|all new|always|never)\b/i;
/** "Should every new X…", "Should new stores…": a question about a kind of thing. */
const KIND_QUESTION = /^(?:and |so |also )?(should|shall|must) (every|each|all|new|any new) /i;
/** A pointer at the agent's statement before ("that", "this") in the question. */
const POINTS_BACK = /\b(that|this|it|the same)\b/i;

/**
 * The standing practice the agent offered in `assistant` when the user's turn `t` takes it
 * ("yes, always", "correct, keep it that way", "always"), as a rule on the agent's event; null
 * when the reply is a one-off ("yes, for now"), hedged, a question or says no.
 */
export function standingOffer(
  assistant: Turn,
  t: Turn,
): { candidate: Candidate; sentence: string } | null {
  const reply = t.text.trim();
  if (
    !(CONFIRM.test(reply) || /^(always|every time|keep (it that way|doing that))\b/i.test(reply)) ||
    isQuestion(reply) || hedged(reply) || ONE_OFF.test(reply) ||
    /^\W*\w+\W+(but|except|not|no|only (this|here|for))\b/i.test(reply) ||
    // A yes taken back or qualified later in the reply ("yes. actually no, skip it", "yes, Maria
    // said so but I disagree").
    /\b(but|except|actually|wait|however|although|though)\b/i.test(reply)
  ) return null;
  // The agent's text cut at its sentence ends only (sentences() drops a question's lead-in: "Should
  // I make that the convention here: X?").
  const ss = assistant.text.trim().split(/(?<=[.!?])\s+|\n+/).filter((x) => x.trim());
  const q = ss[ss.length - 1];
  if (!q || !/\?\s*$/.test(q) || !(STANDING_OFFER.test(q) || KIND_QUESTION.test(q))) return null;
  if (!OFFER.test(q) && !KIND_QUESTION.test(q) && !/\bshould (that|this)\b/i.test(q)) return null;
  if (/\b(want me|would you like|do you want|can i|may i)\b/i.test(q)) return null;
  // "Should I run the tests before every commit in this PR?": the task's, whatever its words.
  if (ONE_OFF.test(q) || SCOPED.test(q)) return null;
  // The question itself, made a statement: "Should I X?" → "X"; "Should new stores follow…?" →
  // "New stores should follow…"; the part after a colon ("…the convention here: X?").
  const clean = (x: string) =>
    x.replace(
      /^(?:i'?d|i would|i'?ll|i will|i see(?: that)?|i noticed(?: that)?|it (?:looks|seems) like)\s+/i,
      "",
    ).replace(/\s*[?.!]+$/, "").replace(/,? too$/i, "").trim();
  const head = q.replace(/\s*(?:[—–]|\s-\s)\s*(?:should|shall|is) [^—–]*\?\s*$/i, "");
  let statement: string | null = null;
  // A colon with a space after it: not one in a URL or a time ("postgres://…:5432/…").
  const colon = q.match(/:\s+([^:?]{8,})\?\s*$/);
  if (colon) statement = colon[1];
  else if (head !== q) statement = head; // "X — should that be the standard here?"
  else if (!POINTS_BACK.test(q.replace(/\b(that|this) (is|way)\b/gi, ""))) {
    const m = q.match(/^(?:and |so |also )?(?:should|shall) i (.+?)\?\s*$/i);
    const k = q.match(
      /^(?:and |so |also )?(should|shall|must) ((?:every|each|all|new|any new) .+?)\?\s*$/i,
    );
    if (m) statement = m[1];
    else if (k) {
      const [subject, ...rest] = k[2].split(
        / (?=(?:get|gets|follow|use|have|be|go|live|stay|come|need|take)\b)/,
      );
      statement = rest.length ? `${subject} should ${rest.join(" ")}` : null;
    }
  } else if (ss.length >= 2) statement = ss[ss.length - 2]; // "Should every new X follow that…?"
  if (!statement) return null;
  const text = wording(clean(statement));
  if (text.split(/\s+/).length < 4 || isQuestion(text) || hedged(text) || STATUS.test(text)) {
    return null;
  }
  return {
    candidate: {
      text,
      type: "rule",
      scope: "project",
      confidence: confidenceOf("agent-confirmed"),
      provenance: {
        sessionId: assistant.sessionId,
        uuid: assistant.uuid,
        timestamp: assistant.timestamp,
        confirmedBy: t.uuid,
      },
      rule: "agent-confirmed",
    },
    sentence: statement,
  };
}

/** The words a loose candidate (a sentence no rule matched) must have at least. */
const LOOSE_MIN_WORDS = 4;

/**
 * Every candidate of `turns` for the scorer: the sentences the rules match (with their rule), the
 * agent's statements the user confirms, and, as `loose`, every other sentence of the user that is
 * not a question (nor shorter than {@link LOOSE_MIN_WORDS} words or longer than MAX_SENTENCE).
 */
export function generateCandidates(turns: Turn[], prevAssistant?: Turn): Generated[] {
  const out: Generated[] = [];
  let lastAssistant: Turn | undefined = prevAssistant;
  let prevAgent = prevAssistant?.text ?? "";
  const turnCount = turns.filter((t) => t.role === "user").length;
  let turnIndex = -1;
  for (const t0 of turns) {
    const t = { ...t0, text: withoutSecrets(t0.text) };
    // What the user pasted (code and logs in fences, quoted lines) is not what they said.
    if (t.role === "user") {
      t.text = t.text.replace(/```[\s\S]*?(```|$)/g, "\n").replace(/^\s*>.*$/gm, "");
    }
    if (t.role === "assistant") {
      lastAssistant = t;
      prevAgent = t.text;
      continue;
    }
    turnIndex++;
    const prov = { sessionId: t.sessionId, uuid: t.uuid, timestamp: t.timestamp };
    const items = contextItems(t.text);
    const ss = items.size
      ? sentences(t.text, items).flatMap((x) =>
        items.has(x) ? [x] : x.split(/,\s+(?=no\b)/i).map((y) => y.trim())
      )
      : sentences(t.text, items);
    const ctx = {
      turnText: t.text,
      turnSentences: ss.length,
      turnIndex,
      turnCount,
      prevAgent,
    };
    // The agent's statement confirmed by this user turn, or the standing practice it offered.
    const agreed = lastAssistant &&
      (confirmedStatement(lastAssistant, t) ?? standingOffer(lastAssistant, t));
    if (agreed) out.push({ ...agreed.candidate, sentence: agreed.sentence, ...ctx, listed: false });
    lastAssistant = undefined;
    prevAgent = "";
    const confirmed = out.length && out[out.length - 1].provenance.confirmedBy === t.uuid
      ? out[out.length - 1]
      : undefined;
    let prevInTurn: Generated | undefined;
    for (let i = 0; i < ss.length; i++) {
      const s = ss[i];
      if (
        prevInTurn && CONTINUES.test(s) && !isQuestion(s) && !ONE_OFF.test(s) &&
        !hedged(s) && !STATUS.test(s) && s.length <= 200
      ) {
        prevInTurn.text = `${prevInTurn.text.replace(/[.!]+$/, "")}; ${wording(s)}`;
        continue;
      }
      // "no latest tags. ever", "golden files for output tests. always": a fragment that only
      // says the sentence before holds for good makes that sentence a rule.
      if (STANDING_TAIL.test(s.trim())) {
        const prev = ss[i - 1];
        if (prev !== undefined && prevInTurn?.sentence !== prev && standsAlone(prev, items)) {
          const last = out[out.length - 1];
          if (last?.rule === "loose" && last.sentence === prev) out.pop();
          prevInTurn = {
            text: `${wording(prev).replace(/[.!]+$/, "")}, ${s.trim().replace(/[.!]+$/, "")}`,
            type: "rule",
            scope: "project",
            confidence: confidenceOf("standing-tail"),
            provenance: prov,
            rule: "standing-tail",
            sentence: `${prev} ${s}`,
            ...ctx,
            listed: false,
          };
          out.push(prevInTurn);
        }
        continue;
      }
      // "saves go in the save dir as json. never next to the exe", "fee amounts are integer
      // cents. never floats, never Decimal strings": what the statement before excludes, said
      // after it, makes it a choice (scorer.ts `EXCLUDES`, on the two read as one sentence).
      if (NEVER_TAIL.test(s.trim()) && s.trim().split(/\s+/).length <= 10) {
        const prev = ss[i - 1];
        const joined = prev === undefined
          ? ""
          : `${prev.trim().replace(/[.!]+$/, "")}, ${s.trim().replace(/^(?:and|but) /i, "")}`;
        if (
          prev !== undefined && standsAlone(prev, items) &&
          EXCLUDES.test(spelled(joined.toLowerCase()).replace(FILLER, "").trim())
        ) {
          // The statement before, a loose candidate or a rule's, is this one now.
          const last = out[out.length - 1];
          if (last?.sentence === prev) out.pop();
          prevInTurn = {
            text: wording(joined),
            type: "rule",
            scope: "project",
            confidence: confidenceOf("never"),
            provenance: prov,
            rule: "never",
            sentence: joined,
            ...ctx,
            listed: false,
          };
          out.push(prevInTurn);
          continue;
        }
      }
      let m = classify(s);
      // A statement said as the context of a request ("the migration is in db/…, can you review
      // it", "the deploy needs approval, can you ask Sam?"); not a rule said with a strong marker.
      if (
        m && m.type !== "feedback" &&
        !/\b(always|never|from now on|going forward|must)\b/i.test(s) &&
        t.text.includes(`${s}, `) && /^(can|could|would|will) you\b/i.test(
          t.text.slice(t.text.indexOf(`${s}, `) + s.length + 2),
        )
      ) m = null;
      // "Maria owns billing and Tomasz owns payments", "Dana is the tech lead, Kofi owns the
      // webhooks": facts with their own subjects, one candidate each.
      let halves = m?.type === "fact" ? s.split(/,?\s+and\s+|,\s+(?=[A-Z]|(?:the|our)\s)/) : [];
      if (halves.length > 2 && !halves.every((h) => classify(h)?.type === "fact")) {
        halves = s.split(/,?\s+and\s+/);
      }
      if (
        halves.length >= 2 && halves.every((h) => h.split(/\s+/).length >= 3) &&
        halves.slice(1).every((h) =>
          /^(the |[A-Z])/.test(h) && !/\b(it|its|them|they|there)\b/i.test(h)
        ) &&
        halves.every((h) => classify(h)?.type === "fact")
      ) {
        ss.splice(i, 1, ...halves);
        i--;
        continue;
      }
      // "state is in s3://…, and you always need AWS_PROFILE=infra": a fact and a rule.
      const groups = m ? kindGroups(s) : null;
      if (groups) {
        ss.splice(i, 1, ...groups);
        i--;
        continue;
      }
      // An item of a list of rules (imperatives are rules there), or of a list of things to
      // know (where an imperative is a task: "before you start:\n- run the tests").
      const ruleList = /\b(rules?|preferences?|conventions?)\b/i.test(t.text);
      if (
        !m && items.has(s) && !isQuestion(s) && !ONE_OFF.test(s) && !hedged(s) &&
        (ruleList || s.replace(FILLER, "").trim().match(REQUEST_CLAUSE)?.index !== 0)
      ) {
        m = ruleList ? hit("rule", "rule-list") : hit("fact", "context-list");
      }
      let global = false;
      // "…; that goes for everything": the previous sentence, generalised.
      if (!m && i > 0 && GENERAL_GLOBAL.test(s) && !isQuestion(ss[i - 1])) {
        const prev = ss[i - 1];
        if (!classify(prev) && !hedged(prev) && !ONE_OFF.test(prev)) {
          // The sentence before, if it was taken as a loose candidate, is this one now.
          const last = out[out.length - 1];
          if (last?.rule === "loose" && last.sentence === prev) out.pop();
          out.push({
            text: wording(prev),
            type: "feedback",
            scope: "global",
            confidence: confidenceOf("generalised"),
            provenance: prov,
            rule: "generalised",
            sentence: `${prev} ${s}`,
            ...ctx,
            listed: false,
          });
        }
        continue;
      }
      // "Never run the migrations by hand. The deploy job runs them after the health check.":
      // a sentence that only explains the rule before it is one statement with it.
      if (
        !m && prevInTurn && (prevInTurn.type === "rule" || prevInTurn.type === "feedback") &&
        prevInTurn.sentence === ss[i - 1] && explains(s, prevInTurn.sentence) &&
        !isQuestion(s) && !ONE_OFF.test(s) && !hedged(s) && !STATUS.test(s) && s.length <= 200 &&
        !items.has(s)
      ) {
        const why = wording(s).replace(/^[A-Z](?=[a-z'\s])/, (c) => c.toLowerCase());
        prevInTurn.text = `${prevInTurn.text.replace(/[.!]+$/, "")}; ${why}`;
        prevInTurn = undefined;
        continue;
      }
      if (!m) {
        prevInTurn = undefined;
        // Any other sentence of the user's, for the scorer to judge.
        const text = wording(s);
        if (
          !isQuestion(s) && s.length <= MAX_SENTENCE && text.length >= 12 &&
          s.split(/\s+/).length >= LOOSE_MIN_WORDS &&
          !(confirmed && overlap(s, confirmed.text) >= 0.4)
        ) {
          out.push({
            text,
            type: RULE_MARKER.test(s) ? "rule" : "fact",
            scope: "project",
            confidence: 0,
            provenance: prov,
            rule: "loose",
            sentence: s,
            ...ctx,
            listed: items.has(s),
          });
        }
        continue;
      }
      // The user restating the agent's statement they confirm: the agent's is kept.
      if (confirmed && overlap(s, confirmed.text) >= 0.4) continue;
      // "Use zod, not yup. We're standardising on zod since…": the reason of the rule before.
      if (
        prevInTurn && m.type === "decision" && /\b(since|because|as)\b/i.test(s) &&
        overlap(s, prevInTurn.text) > 0
      ) {
        prevInTurn.text += ` (${wording(s).replace(/[.!]+$/, "")})`;
        continue;
      }
      if (m.type === "feedback") {
        global = !PROJECT_WORDS.test(s);
      } else if (GENERAL_GLOBAL.test(s) || GENERAL_GLOBAL.test(t.text.slice(0, 80))) {
        global = m.type === "rule" && GENERAL_GLOBAL.test(s);
      }
      // A long request with a rule inside keeps only the rule's clause.
      let text = wording(s);
      const reason = reasonOf(ss[i + 1]);
      text += reason;
      if (reason) i++;
      if (text.length < 12) continue;
      prevInTurn = {
        text,
        type: m.type,
        scope: global ? "global" : "project",
        confidence: m.confidence,
        provenance: prov,
        rule: m.rule,
        sentence: s,
        ...ctx,
        listed: items.has(s),
      };
      out.push(prevInTurn);
    }
  }
  const kept = withoutSecretCandidates(out);
  // A request of the task beside a rule ("Never push to main. Also fix the login test.") is no
  // statement of the message: the rule is still said by itself.
  const statement = (c: Generated) =>
    c.rule !== "loose" || c.sentence.toLowerCase().replace(FILLER, "").trim()
        .match(REQUEST_CLAUSE)?.index !== 0;
  const perEvent = new Map<string, number>();
  for (const c of kept) {
    if (statement(c)) perEvent.set(c.provenance.uuid, (perEvent.get(c.provenance.uuid) ?? 0) + 1);
  }
  for (const c of kept) {
    c.siblings = (perEvent.get(c.provenance.uuid) ?? 0) - (statement(c) ? 1 : 0);
  }
  return kept;
}

/**
 * The candidates with the secrets their text still holds marked (`secretsRemoved`); one whose
 * text is left too short without them is dropped ({@link secretKinds}).
 */
function withoutSecretCandidates(out: Generated[]): Generated[] {
  const kept: Generated[] = [];
  for (const c of out) {
    const kinds = secretKinds(c.text);
    if (kinds === null) continue;
    kept.push(kinds.length ? { ...c, secretsRemoved: kinds } : c);
  }
  return kept;
}
