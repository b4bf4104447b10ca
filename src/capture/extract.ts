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
import { scoreCandidate } from "./scorer.ts";
import { THRESHOLD } from "./scorer_weights.ts";
import {
  classify,
  FILLER,
  GENERAL_GLOBAL,
  hedged,
  hit,
  isQuestion,
  type Match,
  MAX_SENTENCE,
  ONE_OFF,
  PROJECT_WORDS,
  REQUEST_CLAUSE,
  RULE_MARKER,
  STATUS,
  wording,
} from "./classify.ts";

export { classify };

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

/** Words that must be left besides the markers for a candidate with a secret to be kept. */
const MIN_WORDS_LEFT = 6;

/** A candidate's kinds of removed secrets, or null when too little is left without them. */
function secretKinds(text: string): string[] | null {
  const kinds = [...text.matchAll(MARKER)].map((m) => m[0].slice(17, -1));
  if (!kinds.length) return [];
  const rest = text.replace(MARKER, " ").split(/\s+/).filter((w) => /[a-z]{2,}/i.test(w));
  return rest.length < MIN_WORDS_LEFT ? null : kinds;
}

/** Split a turn's text into sentences (code spans kept whole; newlines and bullets split). */
export function sentences(text: string, listed?: Set<string>): string[] {
  const out: string[] = [];
  for (const para of text.split(/\n+/)) {
    let cur = "";
    let inCode = false;
    for (let i = 0; i < para.length; i++) {
      const ch = para[i];
      cur += ch;
      if (ch === "`") inCode = !inCode;
      if (!inCode && /[.!?]/.test(ch) && (i + 1 === para.length || /\s/.test(para[i + 1]))) {
        // Not a decimal or a version ("v1.2"), nor an abbreviation ("e.g.").
        if (!/\b(e\.g|i\.e|etc|vs)\.$/i.test(cur)) {
          out.push(cur);
          cur = "";
        }
      }
    }
    out.push(cur);
  }
  return joinFragments(
    out.flatMap((s) => splitClauses(s, listed)).map((s) =>
      s.replace(/^\s*([-*•]|\d+[.)])\s+/, "").trim()
    ).filter((s) => s.length > 0),
    listed,
  );
}

/**
 * A piece with no statement of its own, that only narrows the one before: a rule word and what
 * it excludes or keeps, with no verb ("never the default config", "never in notebooks or config
 * files", "not on weekends", "only for the api").
 */
export const FRAGMENT =
  /^(?:and |but |or )?(?:never|not|always|only|except|but not)\s+(?:the|a|an|in|on|at|for|from|with|to|by|via|through|inside|outside|during|under|over|as|into|on|any|anything|ever)\b(?![^,;]*\b(?:is|are|was|were|be|do|does|did|has|have|can|will|should|must|goes|go|runs|run|use|uses)\b)/i;

/**
 * Pieces split apart that say one thing: a {@link FRAGMENT} (at most eight words) goes back onto
 * the piece before it (a list item stays one).
 */
function joinFragments(parts: string[], listed?: Set<string>): string[] {
  const out: string[] = [];
  for (const p of parts) {
    const prev = out[out.length - 1];
    if (prev !== undefined && FRAGMENT.test(p) && p.split(/\s+/).length <= 8) {
      const joined = `${prev.replace(/[.!;:]+$/, "")}, ${p}`;
      if (listed?.has(prev)) {
        listed.delete(prev);
        listed.add(joined);
      }
      out[out.length - 1] = joined;
    } else out.push(p);
  }
  return out;
}

/** Split `s` at `re`, but not inside parentheses (a list item's aside stays with it). */
function splitOutside(s: string, re: RegExp): string[] {
  let depth = 0;
  const masked = [...s].map((c) => {
    if (c === "(") depth++;
    if (c === ")") depth = Math.max(0, depth - 1);
    return depth && /[,;]/.test(c) ? "\u0001" : c;
  }).join("");
  const keep = [...s];
  const out: string[] = [];
  let pos = 0;
  for (const part of masked.split(re)) {
    if (part === undefined) continue;
    const at = masked.indexOf(part, pos);
    out.push(keep.slice(at, at + part.length).join(""));
    pos = at + part.length;
  }
  return out;
}

/**
 * A request tacked on a statement about what it said ("…, check the config uses that", "…, put
 * that in the runbook"): cut off, so that the statement is read on its own.
 */
const TRAILING_REQUEST =
  /,\s+(?=(?:please\s+)?(?:check|put|add|update|note|write|document|record|wire|grant|make sure) (?:that|this|it|them|the)\b)/i;

/**
 * Clauses of one sentence that are separate statements: a request tacked on ("…, can you
 * split it?", "…, check the config uses that"), and the items of a list of rules or conventions
 * ("ground rules: do A, and don't B", "conventions here: A, B and C").
 */
function splitClauses(s: string, listed?: Set<string>): string[] {
  const parts = s.split(/,\s+(?=(?:can|could|would|will) you\b)/i).flatMap((p) =>
    p.split(TRAILING_REQUEST)
  );
  const out: string[] = [];
  for (const p of parts) {
    const m = p.match(
      /^([^:]*\b(?:rules?|preferences?|conventions?|guidelines|house style)\b[^:]*):\s*(.+)$/i,
    );
    // "that's a general rule: …" says the sentence before is a rule: one statement with it.
    if (!m || /^\W*that'?s\b/i.test(m[1])) {
      out.push(p);
      continue;
    }
    const items = joinFragments(
      splitOutside(
        m[2],
        /,\s*(?:and\s+)?|;\s*|\s+and\s+(?=(?:don'?t|do not|never|always|use|write|keep)\b)/i,
      ).filter((x) => x.trim()).map((x) => x.trim()),
    );
    const general = GENERAL_GLOBAL.test(m[1]) ? " (in general)" : "";
    for (const it of items) {
      out.push(it.trim() + general);
      listed?.add(it.trim() + general);
    }
  }
  return out;
}

/** A user's reply that confirms what the agent asked ("yes", "right, …", "correct"). */
export const CONFIRM: RegExp =
  /^\s*(yes|yep|yeah|yup|correct|exactly|right|that's right|that is right|that's correct|confirmed|indeed|true|sure is|affirmative)\b/i;
/** The agent asked for a confirmation. */
const ASKS_CONFIRMATION =
  /\b(is that (right|correct|the rule|so|true|still the case|intended|intentional|on purpose|deliberate|by design|the (convention|norm|policy|standard|practice|pattern))\?|right\?|correct\?|is that how [^?]*\?|am i right\?|can you confirm[^?]*\?|(does|do) (that|this) (sound|look) right\?)\s*$/i;

/**
 * The agent asks whether something holds for good: "Is partitioning by ingestion date
 * intended?", "Should tests always freeze the clock?", "Is that the convention?" (not an offer
 * to do work: "Should I…?", "Do you want me to…?").
 */
const ASKS_STANDING =
  /(?:^|[;,]\s*)(?:(?:is|are|was|were) [^?]{3,80}\b(?:intended|intentional|deliberate|on purpose|by design|the (?:rule|convention|norm|policy|standard|default))|(?:is|are) (?!i\b|we\b)[^?]*\b(?:always|never|only)\b[^?]*|(?:should|must|do|does) (?!i\b|we\b)[^?]*\b(?:always|never|only|every|all)\b[^?]*)\?\s*$/i;

/** The agent offers to do something ("Should I…?", "Want me to…?"): a yes asks for work. */
const OFFER = /\b(should i|shall i|shall we|can i|may i|want me|would you like|do you want)\b/i;

function reasonOf(next: string | undefined): string {
  if (!next) return "";
  return /^(because|since|as|we got burned|that's why|otherwise|ci fails|it breaks)\b/i.test(next)
    ? ` (${next.replace(/[.!]+$/, "")})`
    : "";
}

/** The agent's statement in a turn that asks for confirmation: the durable sentence before it. */
function agentStatement(
  text: string,
): { sentence: string; match: Match; adjacent: boolean } | null {
  const ss = sentences(text);
  if (!ss.length || !asksConfirmation(ss[ss.length - 1])) return null;
  // "X; is that the convention?": the statement before the question in the same sentence.
  const tag = ss[ss.length - 1].match(
    /^(.{12,}?)[;,]\s*(is|are|was|does|do) (that|this|it)\b[^?]*\?$/i,
  );
  if (tag) ss.splice(ss.length - 1, 1, tag[1], "?");
  for (let i = ss.length - 2; i >= 0; i--) {
    // The agent's own hedges ("it looks like", "I assume") are what the user confirms.
    const s = ss[i].replace(
      /^.*?\b(it (looks|seems) like|i assume|i guess|i think|so it seems|apparently)\b,?\s*/i,
      "",
    ).replace(/,? so i'll .*$/i, "");
    const m = classifyAgent(s);
    if (m) return { sentence: s, match: m, adjacent: i === ss.length - 2 };
  }
  return null;
}

function classifyAgent(s: string): Match | null {
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
function asksConfirmation(last: string): boolean {
  return ASKS_CONFIRMATION.test(last) || ASKS_STANDING.test(last) && !OFFER.test(last);
}

/**
 * The user's words when they confirm the agent's question and say it again ("yes, it's
 * partitioned by ingestion date on purpose", "yes, always TALLY_NOW in tests"), where the
 * agent's text holds no statement of its own: their restatement, as the confirmed statement.
 */
function restatement(agent: string, reply: string): { sentence: string; match: Match } | null {
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

/**
 * A sentence that goes on from the one before ("…instead", "it needs…", a don't whose object is
 * only "it" or "them": "never put it in the manifest directly", "don't add it back"): one
 * statement.
 */
const CONTINUES =
  /\binstead\b[.!]?$|^(it|they|their|theirs|those|these|which|anything of (theirs|its|ours))\b|^that'?s (a|the|our) (general |ground |house )?rule\b|^(please )?(don'?t|never|do not)( ever)? [a-z]+ (it|them)\b/i;

/**
 * A line that introduces a list of things to know ("some context:", "conventions:", "quick
 * brief before we start:", "the gist of our runbook:", "before you touch the dashboard:").
 */
const CONTEXT_HEADER =
  /\b(context|rules?|conventions?|notes?|background|things to know|guidelines|house rules|brief|briefing|gist|runbook|overview|reminders?|how (we|things) work|before (you|we) (start|begin|touch|dive in|get started|change|work on))\b[^:\n]*:\s*$/i;

/**
 * "Tailwind only, no CSS modules", "logging goes through log.ts, no console.log": a choice and
 * the alternative it excludes, one statement (unlike "we target Go 1.22, no generics").
 */
const CHOICE_THEN_NO = /\b(only|uses?|go(es)? through|via|instead)\b/i;

/**
 * The items of a list the user introduced as context ("some context:\n1. …\n2. …"), each
 * split before a ", no …" clause: said to set up the work for good, each is a candidate.
 */
function contextItems(text: string): Set<string> {
  const out = new Set<string>();
  let inList = false;
  for (const line of text.split("\n")) {
    if (CONTEXT_HEADER.test(line)) {
      inList = true;
      continue;
    }
    const item = line.match(/^\s*(?:[-*•]|\d+[.)])\s+(.+)$/);
    if (!inList || !item) {
      inList = inList && item !== null;
      continue;
    }
    const [first, ...rest] = item[1].split(/,\s+(?=no\b)/i);
    if (CHOICE_THEN_NO.test(first)) out.add(item[1].trim());
    else for (const part of [first, ...rest]) out.add(part.trim());
  }
  return out;
}

/**
 * Where one sentence may go on with a clause of its own: ", and …", "; …", ", the …", ", we …",
 * " and we …".
 */
const CLAUSE_BREAK =
  /,\s+and\s+|;\s+|,\s+(?=(?:the|we|you|i|they|anything|any|every|all|each)\s)|\s+and\s+(?=(?:we|you|i|they)\s)/gi;

/** A clause with a subject of its own, or an imperative rule with its verb ("never edit…"). */
const STANDALONE =
  /^(we|you|i|they|everyone|anyone|anything|everything|any|every|all|each|the|our)\s|^[A-Z][\w-]*\s|^(always|never|don'?t|do not) (?!(in|on|at|for|with|from|via|through|to|by|the|a|an)\b)[a-z]/;

/** Whether a clause states a rule (or preference), a fact (or decision), or nothing. */
function clauseKind(part: string): "rule" | "fact" | null {
  const found = findSecretsSync(part);
  // "the CI token is glpat-…": little more than a secret says nothing.
  if (found.length) {
    const rest = replaceSecrets(part, found).replace(MARKER, " ").split(/\s+/)
      .filter((w) => /[a-z]{2,}/i.test(w));
    if (rest.length < MIN_WORDS_LEFT) return null;
  }
  const m = classify(part);
  if (!m) return null;
  return m.type === "rule" || m.type === "feedback" ? "rule" : "fact";
}

/**
 * A sentence that holds a fact and a rule in clauses of their own ("the state is in s3://…,
 * and you always need AWS_PROFILE=infra"; "the bucket is dash-prod-static and we always
 * invalidate CloudFront"): its clauses grouped by kind, or null when it says one thing (rules
 * that go on from each other, "never push to main, always open a PR", stay one).
 */
function kindGroups(s: string): string[] | null {
  const breaks = [...s.matchAll(CLAUSE_BREAK)];
  if (!breaks.length) return null;
  const groups: { text: string; kind: "rule" | "fact" | null }[] = [];
  let from = 0;
  for (let j = 0; j <= breaks.length; j++) {
    const end = j < breaks.length ? breaks[j].index! : s.length;
    const part = s.slice(from, end).trim();
    const sep = j > 0 ? breaks[j - 1][0] : "";
    from = j < breaks.length ? end + breaks[j][0].length : s.length;
    const own = j === 0 || STANDALONE.test(part) && part.split(/\s+/).length >= 3;
    const kind = own ? clauseKind(part) : null;
    const last = groups[groups.length - 1];
    if (!last || kind && last.kind && kind !== last.kind) groups.push({ text: part, kind });
    else {
      last.text += sep + part;
      last.kind ??= kind;
    }
  }
  return groups.length >= 2 ? groups.map((g) => g.text.trim()) : null;
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
    // The agent's statement confirmed by this user turn.
    const agreed = lastAssistant && confirmedStatement(lastAssistant, t);
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
  return withoutSecretCandidates(out);
}

/** The agent's statement in `assistant` when the user's turn `t` confirms it, as a candidate. */
function confirmedStatement(
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
