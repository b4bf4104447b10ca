/**
 * The learned scorer of the offline extractor: a logistic regression over general features of a
 * candidate (which rule found it, its rule word, the concrete details it names, marks of a task
 * scope, hedges, persons, mood and tense, length, what else its turn asks, its place in the
 * session), fitted by `deno task fit:capture` (tasks/fit_capture.ts) on the labelled sessions of
 * bench/data/capture/ and evaluated leave-one-split-out. Its weights are in scorer_weights.ts
 * (generated); a candidate's confidence is the probability this module gives it, and the
 * extractor keeps those at or above the fitted threshold. No word of a sentence is a feature by
 * itself beyond the closed lists below (no project names, no n-grams): what is learned is how far
 * each general mark tells a durable statement from the rest.
 * @module
 */
import type { Generated } from "./extract.ts";
import {
  CONCRETE,
  describes,
  DONT_AT_HAND,
  FILLER,
  GENERAL_GLOBAL,
  GENERAL_PROJECT,
  hedged,
  NOTED,
  ONE_OFF,
  REQUEST_CLAUSE,
  SCOPED,
  SETUP_NOUN,
  spelled,
  STATUS,
  TASK_SUBJECT,
  unquoted,
} from "./classify.ts";
import { PERSONAL_INTRO } from "./rules.ts";
import { BIAS, RULES, WEIGHTS } from "./scorer_weights.ts";

/** What the scorer reads of a candidate (a {@link Generated} has it all). */
export type Scored = Pick<
  Generated,
  | "sentence"
  | "rule"
  | "type"
  | "turnText"
  | "turnSentences"
  | "turnIndex"
  | "turnCount"
  | "prevAgent"
  | "listed"
  | "siblings"
>;

/** Word marks: name and pattern, tried on the sentence in lower case (quotes of others blanked). */
const WORDS: [string, RegExp][] = [
  ["word:always", /\balways\b/],
  ["word:never", /\bnever\b/],
  ["word:must", /\bmust(n'?t)?\b/],
  ["word:dont", /\b(don'?t|do not|doesn'?t)\b/],
  ["word:should", /\bshould(n'?t)?\b/],
  ["word:only", /\bonly\b/],
  ["word:avoid", /\b(avoid|stop|no more)\b/],
  [
    "word:from-now-on",
    /\b(from now on|going forward|from here on|in (the )?future|next time|henceforth)\b/,
  ],
  ["word:prefer", /\b(prefer|rather|i like|i hate|i don'?t like)\b/],
  ["word:need", /\b(needs?|required|requires?|has to|have to)\b/],
  ["word:use", /\b(use|uses|using)\b/],
  ["word:instead", /\b(instead|not|rather than|over)\b/],
  ["word:please", /\bplease\b/],
  ["word:decide", /\b(chose|chosen|decided|decision|went with|settled on|standardi[sz])\w*/],
  ["word:every", /\b(every|each|all|any)\b/],
];

/** Concrete details of a setup, tried on the sentence as written. */
const DETAILS: [string, RegExp][] = [
  ["detail:backtick", /`[^`]+`/],
  ["detail:path", /(?:^|\s)(?:~?\/|\.\/)[\w.-]|\b[\w.-]+\/[\w.-]+/],
  ["detail:number", /\d/],
  ["detail:env", /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/],
  ["detail:named", /(?<=\s)(?!I\b)[A-Z][\w.-]*[a-zA-Z]|[a-z][A-Z]/],
];

/** Persons, mood, tense and other marks, tried on the sentence in lower case. */
const MARKS: [string, RegExp][] = [
  ["person:we", /\b(we|our|ours|us|we're|we've|we'll)\b/],
  ["person:i", /\b(i|my|me|i'm|i've|i'd|i'll)\b/],
  ["person:you", /\b(you|your|you're)\b/],
  ["person:other", /\b(he|she|they|someone|people|users|customers|the team)\b/],
  ["refers:this", /\b(this|that|these|those|it|them)\b/],
  ["refers:project", /\b(this|the|our) (repo|repository|project|codebase|service|team|app)\b/],
  ["tense:past", /\b(was|were|did|had|got|went|\w{3,}ed)\b/],
  ["tense:is", /\b(is|are|'s|'re)\b/],
  ["tense:modal", /\b(will|would|could|can|'ll|'d)\b/],
  ["reason", /\b(because|since|so that|otherwise|as it|as they)\b/],
  // A correction's opening ("no, …", "I told you") was a feature until 2026-11-29 06:00: left
  // out, the out-of-fold log loss fell in three of the four folds (docs/capture.md).
  ["exclaim", /!/],
  [
    "time-word",
    /\b(?<!from )(now|today|tomorrow|yesterday|currently|later|tonight|this week|next week|last week|(mon|tues|wednes|thurs|fri|satur|sun)day'?s?|eod|deadline)\b(?! on\b)/,
  ],
  // A thing at hand that behaves so ("the job never finishes", "the player always falls").
  // Behaviour asked of the thing at hand ("make the clock always return monday").
  ["make-always", /\bmake (sure )?(the|it|this|that|its|[\w-]+'s)\b[^.,;]*\b(always|never)\b/],
  // A rule word before a verb in the third person ("always shows", "never finishes").
  ["marker+verb-s", /\b(always|never|still) (?!(uses|needs|goes|has|gets)\b)[a-z]{3,}s\b/],
  // Scoped to an event ("for the bug bash", "for thursday's prod run", "for tomorrow's demo").
  [
    "scope:event",
    /\b(for|during|before|until|in) (the|this|that|[a-z]+day'?s|tomorrow'?s|today'?s|next)( [\w-]+){0,2} (run|bash|demo|release|build|session|call|meeting|review|sprint|launch|test run|rollout|deploy)\b/,
  ],
  // A place in the code at hand ("on the departures screen", "in the list template", "in
  // sweep.test.ts"): what is asked there is the task's, not a rule of the project.
  [
    "scope:place",
    /\b(in|on|for|inside) (the|this|that) ([\w'-]+ ){0,3}(screen|page|template|chart|view|level|component|modal|dialog|button|form|widget|endpoint|function|method|test|table|graph|plot|report|email|query|script|notebook)s?\b|\b(in|inside) [\w-]+(\.[\w-]+)*\.(ts|tsx|js|jsx|py|rb|go|rs|kt|java|cs|php|sql|ex|exs|swift|c|h|cpp)\b/,
  ],
  [
    "behaves",
    /\b(the|this|that|it|its|our|my)\b( [\w-]+){0,3} (always|never|still|keeps?) (\w+s|\w+ing)\b/,
  ],
];

/**
 * Marks of a statement of the setup, tried on the sentence (quotes of others blanked): what a
 * fact said in passing looks like ("the staging db is on 5433", "we're on Postgres 16", "tokens
 * go in expo-secure-store", "we print schemes OCaml style", "…, no enums"), whatever it is about.
 */
export const SETUP: [string, RegExp, "s" | "core"][] = [
  // A name with a version ("Postgres 16", "python 3.11", "iOS 15", "v3").
  [
    "setup:version",
    /\b[A-Za-z][\w+-]*\s+v?\d+(\.\d+)+\b|\bv\d+(\.\d+)*\b|\b[A-Za-z][\w+-]* \d{1,2}\b(?! ?(min|minutes?|h|hours?|days?|s|seconds?|ms|%|x)\b)/,
    "s",
  ],
  // A port ("port 6432", ":5433", "on 3001").
  ["setup:port", /\bport \d{2,5}\b|:\d{4,5}\b|\b(on|at) \d{4,5}\b/, "core"],
  // A thing of the setup said to be a named thing ("prod is `acme-prod`", "the queues are
  // critical, default and low"): a noun subject, "is/are", what it is.
  [
    "setup:copula",
    /^(the |our |all )?(?!(it|this|that|these|those|there|he|she|they|i|you|we)\b)[\w.\/<>*-]+( [\w.\/<>*-]+){0,3} (is|are) (?!(not|now|still|just|really|so|too|very|a|an|it|this|that|fine|ok|okay|done|broken|down|up|slow|fast|red|green|going|being|getting)\b)[`"'\w.\/~-]/,
    "core",
  ],
  // Where a thing is ("X is on/at/in/under Y", "X lives/goes/stays/runs in Y").
  [
    "setup:where",
    /\b(is|are|lives?|sits?|stays?|goes|go|runs?) (on|at|in|under|inside|behind|through) /,
    "core",
  ],
  // What the team does, in the present ("we use / run / deploy / host / print …").
  [
    "setup:we-do",
    /\bwe (use|run|deploy|host|store|keep|target|pin|ship|build|test|print|implement|stay|check|support|follow|name|write|do|release|version|tag)\b/,
    "core",
  ],
  // A kind of thing as the subject, in the present ("tokens go in…", "servers follow…",
  // "staging models are named…").
  [
    "setup:kind-subject",
    /^(the |our |all |new |any )?(?!(always|never|please|unless|perhaps|thus|whereas|towards?|besides|afterwards)\b)[a-z][\w-]*s( [a-z][\w-]*)? (go|get|are|use|live|run|stay|follow|need|come|have|must|should|don'?t|never|always)\b/,
    "core",
  ],
  // What is excluded ("…, no enums", "no DecimalField for money").
  ["setup:no-x", /(^|,\s*|;\s*|\band\s+)no [\w`"'-]+/, "core"],
];

/** A standing scope ("everywhere", "in new code", "in this project", "for every project"). */
export const STANDING =
  /\b(everywhere|anywhere|in (this|the|our) (repo|project|codebase|team)|in new code|for (every|any|all) (project|repo)s?|across the (repo|project|codebase))\b/;

/** Said for every case: "ever", "anything", "anywhere", "in any PR". */
export const EVER = /\b(ever|anything|anywhere|any (pr|repo|project|file|code))\b/;

/**
 * A standing imperative ("never push to main directly", "from now on use pnpm", "don't mock the
 * warehouse in these tests", "use zod, not yup"): a strong marker opens the sentence, an
 * imperative verb follows it, and no mark of the task at hand, a time, a description or a hedge
 * is in it (checked in {@link features}). The opening, on the sentence without its fillers:
 * "from now on" / "going forward" (then an imperative verb of {@link IMPERATIVE_VERB}, or a
 * marker), "always" / "never" / "don't" (then a word that is no determiner, pronoun or verb
 * form of a report), or "use X, not Y".
 */
export const STANDING_OPENING =
  /^(?:please\s+)?(?:(?:from now on|going forward|from here on|henceforth|in (?:the )?future),?\s+(?:please\s+)?)?(?:always|never|don'?t|do not)(?:\s+ever)?\s+(?!(?:mind|again|ever|the|a|an|this|that|these|those|it|its|they|them|there|he|she|we|you|i|been|be|once|twice|really|so|too|fun|easy|hard|good|going|gonna|happens?|works?)\b)(?![a-z]+(?:ed|ing)\b)[a-z][\w-]*\b/;
/** The imperative verbs a "from now on" opens a standing instruction with. */
export const IMPERATIVE_VERB =
  /^(?:please\s+)?(?:from now on|going forward|from here on|henceforth|in (?:the )?future),?\s+(?:please\s+)?(?:use|run|write|put|add|keep|name|prefix|make sure|ensure|commit|push|open|call|check|test|format|lint|pin|tag|squash|rebase|merge|deploy|release|ask|mention|include|document|log|store|send|ping|target|prefer|avoid|stick to|stay on|follow|answer|reply|start|end|sign|review|update|wrap|import|export|declare|mark|reference|link)\b/;
/** What opens a standing imperative, up to its verb. */
const STANDING_OPENER =
  /^(?:please\s+)?(?:(?:from now on|going forward|from here on|henceforth|in (?:the )?future),?\s+)?(?:please\s+)?(?:(?:always|never|don'?t|do not)(?:\s+ever)?\s+)?/;
/** "use X, not Y" opening the sentence: a choice for good, said as an instruction. */
export const USE_NOT =
  /^(?:please\s+)?(?:(?:from now on|going forward),?\s+)?(?:always\s+)?use [`'"\w@./-]+(?: [`'"\w@./-]+){0,5},? (?:not|instead of|rather than|never) [`'"\w@./-]+/;
/**
 * A short rule in another form ("avoid lodash", "prefer composition over inheritance", "stop
 * adding TODOs", "no moment.js here", "no emoji in commit messages"): found by the rules
 * `avoid-prefer`, `stop-doing`, `no-thing`, `no-doing`, and weighed as a standing imperative
 * (since 0.20: alone they scored 0.28 to 0.63, the data hold a dozen of them).
 */
export const SHORT_RULE =
  /^(?:please\s+)?(?:(?:from now on|going forward),?\s+)?(?:avoid|prefer|stick (?:to|with)|keep to|stay on|only use|use only|stop|quit|no)\s+(?!(?:it|this|that|them|these|those|the (?:point|plan|topic))\b)[`'"\w@./-]/;
/**
 * "always tabs, never spaces", "always \\cref for cross references, never bare \\ref": a choice
 * and what it excludes, without a verb (its noun is no verb in the third person: `marker+verb-s`
 * does not count).
 */
export const ALWAYS_NEVER =
  /^(?:please\s+)?(?:always|only) (?!(?:fails?|crash(?:es)?|breaks?|times?|hangs?|works?|returns?|shows?|happens?|takes?|seems?|looks?)\b)[^,;]{1,60}, (?:but )?(?:never|not|no)\b/;
/**
 * A choice said as a statement, with what it excludes after it ("devices join the cluster with
 * OTAA, never ABP", "saves go in the save dir as json, never next to the exe", "amounts are Int
 * cents everywhere, never Float"): a clause with a subject of its own, then ", never" (or ";",
 * " —") and a short rest, the excluded thing (one more ", never …" may follow): the feature
 * `excludes` (since 0.21, fitted). Not a pronoun's or a person's subject ("it always 500s at the end,
 * never halfway", "we tried it, never again": a report), a clause in the past ("the build
 * passed on CI, never locally"), nor a rest that tells what happens ("…, never works").
 */
export const EXCLUDES =
  /^(?!(?:please\s+)?(?:and\s+|but\s+|so\s+)?(?:always|never|don'?t|do not|i|we|you|they|he|she|it|its|it's|this|that|there|these|those|someone|somebody|nobody)\b)(?![^;—]*\b(?:was|were|did|had|got|went|came|used to)\b)(?![^;—]*\b(?<!\b(?:is|are|be|been|being|get|gets|stay|stays)\s+(?:\w+\s+)?)[a-z]{3,}ed\b)[^;—]{6,120}(?:,|;| —| -) (?:but )?never (?!(?:again|ever|mind|once|really|happens?|works?|fails?|breaks?|crash(?:es)?|hangs?|returns?|shows?|seems?|looks?|gets?|got|did|does|was|were|had|has)\b)[^,;.!?—]{1,60}(?:, (?:and )?never [^,;.!?—]{1,60})?[.!]?$/;
/** The rules whose candidates may be a {@link SHORT_RULE}. */
const SHORT_RULES = new Set(["avoid-prefer", "stop-doing", "no-thing", "no-doing"]);
/** The verb of a standing imperative points at the thing at hand ("don't add it back"). */
const POINTER_OBJECT =
  /^(?:please\s+)?(?:(?:from now on|going forward),?\s+)?(?:always|never|don'?t|do not)(?:\s+ever)?\s+[a-z][\w-]*\s+(?:it|this|that|them|these|those|him|her)\b(?!\s+(?:repo|repository|project|codebase|service|app|team))/;

/** Which rule found the candidate: its own feature for the common ones, else its type's pool. */
export function ruleFeature(rule: string, type: string, rules: readonly string[] = RULES): string {
  return rules.includes(rule) ? `rule:${rule}` : `rule:other-${type}`;
}

/** The agent's text says it did something (that the user may correct). */
const AGENT_DID =
  /\b(i('ve| have)? (added|changed|updated|removed|created|used|switched|wrote|made|set|moved|renamed|replaced|installed|fixed|ran|deleted)|i'll|done\b|updated|added|changed)\b/i;

/** The agent's text ends in a question that is not an offer to do work ("Should I…?"). */
export function answers(prevAgent: string): boolean {
  const t = prevAgent.trim();
  return /\?$/.test(t) &&
    !/\b(should i|shall i|want me|do you want|would you like|can i|may i)\b[^?]*\?$/i.test(t);
}

/** The names and values of a candidate's features (those not zero). */
export function features(g: Scored, rules: readonly string[] = RULES): Map<string, number> {
  const f = new Map<string, number>();
  const s = unquoted(g.sentence);
  const l = spelled(s.toLowerCase());
  const core = l.replace(FILLER, "").trim();
  f.set(ruleFeature(g.rule, g.type, rules), 1);
  f.set(`type:${g.type}`, 1);
  let marker = 0;
  for (const [name, re] of WORDS) {
    if (re.test(l)) {
      f.set(name, 1);
      if (/^word:(always|never|must|dont|should|from-now-on)$/.test(name)) marker = 1;
    }
  }
  let detail = CONCRETE.test(s) ? 1 : 0;
  for (const [name, re] of DETAILS) {
    if (re.test(s)) {
      f.set(name, 1);
      if (name !== "detail:named" && name !== "detail:number") detail = 1;
    }
  }
  if (detail) f.set("detail:any", 1);
  if (SETUP_NOUN.test(l)) f.set("setup-noun", 1);
  // A statement of the setup: how many of its marks the sentence has (each alone is too rare
  // to weigh on its own: as features of their own they helped no fold), and a standing scope.
  let setup = 0;
  for (const [, re, on] of SETUP) if (re.test(on === "s" ? s : core)) setup++;
  if (setup) f.set("setup:any", 1);
  if (setup >= 2) f.set("setup:two", 1);
  if (STANDING.test(core)) f.set("scope:standing", 1);
  // The user confirmed the agent's statement ("X — right?" "yes"): a mark of the statement, not
  // of a rule's words, weighed as the other marks are.
  if (g.rule === "agent-confirmed") f.set("confirmed", 1);
  // Said for every case ("no emojis, ever", "in any PR", "anywhere").
  if (EVER.test(core)) f.set("ever", 1);
  for (const [name, re] of MARKS) if (re.test(l)) f.set(name, 1);
  const scoped = SCOPED.test(l) || DONT_AT_HAND.test(core);
  const oneOff = ONE_OFF.test(l);
  if (scoped) f.set("scope:task", 1);
  if (oneOff) f.set("scope:one-off", 1);
  if (TASK_SUBJECT.test(core)) f.set("scope:task-subject", 1);
  if (hedged(l)) f.set("hedge", 1);
  if (describes(l, core)) f.set("describes", 1);
  if (STATUS.test(l)) f.set("status", 1);
  if (NOTED.test(l)) f.set("noted", 1);
  if (GENERAL_GLOBAL.test(l) || GENERAL_PROJECT.test(l)) f.set("general", 1);
  if (s !== g.sentence) f.set("quoted", 1);
  const req = core.match(REQUEST_CLAUSE);
  if (req) f.set(req.index === 0 ? "request:opens" : "request:within", 1);
  if (
    /^(please\s+)?(always|never|don'?t|do not|use|keep|make|put|avoid|prefer|write|no|stop|run|add|name|prefix)\b/
      .test(core)
  ) f.set("imperative", 1);
  // A rule word opens the sentence ("never push…", "from now on…"), not the thing at hand.
  if (/^(please\s+)?(always|never|don'?t|do not|from now on|going forward|no more)\b/.test(core)) {
    f.set("marker-opens", 1);
  }
  // The turn: what else it asks, how long it is.
  const rest = g.turnText.replace(g.sentence, " ");
  if (/\?/.test(rest)) f.set("turn:question", 1);
  if (/(^|[.!?\n])\s*(please\s+)?(can|could|would) you\b|(^|[.!\n])\s*please\b/i.test(rest)) {
    f.set("turn:asks", 1);
  }
  // A turn of one sentence marks a request ("add a test for it"), unless it answers the agent's
  // question (not an offer): "which port?" "it's 5433, compose maps it there".
  if (g.turnSentences === 1 && !answers(g.prevAgent)) f.set("turn:one-sentence", 1);
  if (g.turnSentences >= 6) f.set("turn:long", 1);
  if (g.listed) f.set("listed", 1);
  // The place in the session.
  if (g.prevAgent && AGENT_DID.test(g.prevAgent)) f.set("agent-did", 1);
  // Length in words.
  const words = core.split(/\s+/).filter(Boolean).length;
  f.set(
    words < 6 ? "len:short" : words <= 12 ? "len:mid" : words <= 25 ? "len:long" : "len:very-long",
    1,
  );
  // A rule word and what goes with it: a concrete detail, a task scope, a subject of its own.
  if (marker) {
    f.set(detail ? "marker+detail" : "marker-no-detail", 1);
    if (scoped || oneOff) f.set("marker+scope", 1);
    if (f.has("person:we")) f.set("marker+we", 1);
  }
  // A standing imperative: what it says is complete at any length, so the marks of a
  // fragment or a request (short, a turn of one sentence) do not weigh against it; it has a
  // weight of its own instead (since 0.19: the labelled data hold five short ones, too few to
  // learn that length means nothing for them). Since 0.21 also a sentence the user makes standing
  // by a bare "always" / "ever" after it (`standing-tail`) and an instruction after an intro about
  // their own way of working (`personal-intro`: "in general, for me: keep answers short").
  const choice = g.rule !== "loose" && ALWAYS_NEVER.test(core);
  // A choice said as a statement, with what it excludes ("…, never ABP"): a mark of its own.
  const excludes = g.rule !== "loose" && !choice && EXCLUDES.test(core);
  if (choice || excludes) f.delete("marker+verb-s");
  if (
    g.rule !== "loose" &&
    (STANDING_OPENING.test(core) || choice || IMPERATIVE_VERB.test(core) || USE_NOT.test(core) ||
      SHORT_RULES.has(g.rule) && SHORT_RULE.test(core) || g.rule === "standing-tail" ||
      g.rule === "personal-intro") &&
    !POINTER_OBJECT.test(core) &&
    ![
      "scope:event",
      "scope:place",
      "time-word",
      "behaves",
      "marker+verb-s",
      "make-always",
      "hedge",
      "quoted",
      "describes",
    ]
      .some((k) => f.has(k)) &&
    !scoped && !oneOff
  ) {
    // "don't …" alone is the weaker of the openings (requests say it too: "don't retry in the
    // runner"); "always", "never", "from now on", "use X, not Y" weigh apart.
    f.set(
      /^(please\s+)?(don'?t|do not)\s+(?!ever\b)/.test(core)
        ? "standing-imperative:dont"
        : "standing-imperative",
      1,
    );
    // Said by itself (no other sentence of the message is a candidate): a rule the user states
    // for its own sake, not a piece of an explanation whose statement is another sentence's.
    if (g.siblings === 0) f.set("standing-imperative:alone", 1);
    for (const k of STANDING_FORM) f.delete(k);
    // Its own verb is no request ("going forward, write…"); a request after it still is.
    f.delete("request:opens");
    f.delete("request:within");
    // After an intro ("in general, for me: keep…"), the instruction is what follows its colon.
    const body = g.rule === "personal-intro" ? core.match(PERSONAL_INTRO)?.[1] ?? core : core;
    const after = body.replace(STANDING_OPENER, "").replace(/^[\w'-]+/, "");
    if (REQUEST_CLAUSE.test(after)) f.set("request:within", 1);
  }
  if (
    excludes && !scoped && !oneOff &&
    !["scope:event", "scope:place", "time-word", "behaves", "hedge", "quoted", "describes"]
      .some((k) => f.has(k))
  ) f.set("excludes", 1);
  // A sentence no rule matched: the marks of its form (short, imperative, a turn of one
  // sentence) weigh apart, as they tell other things there (short imperatives that no rule
  // matched are requests); the marks of what it says weigh the same whichever way it was found.
  for (const name of LEFT_OUT) f.delete(name);
  if (g.rule !== "loose") return f;
  const out = new Map<string, number>();
  for (const [name, v] of f) out.set(FORM.has(name) ? `loose:${name}` : name, v);
  return out;
}

/**
 * Marks computed (they count toward others: "never" is a rule word of `marker+detail`, an
 * environment variable a concrete detail of `detail:any`) but not features of their own: left
 * out, the out-of-fold log loss fell in each of the five folds (docs/capture.md).
 */
export const LEFT_OUT: ReadonlySet<string> = new Set([
  "detail:env",
  "scope:task-subject",
  "tense:modal",
  "word:never",
]);

/**
 * The marks of a sentence's form, weighed apart for the sentences no rule matched (shared, the
 * loose sentences' requests taught the scorer that a short rule of one sentence is a request).
 */
export const FORM: ReadonlySet<string> = new Set([
  "turn:one-sentence",
  "len:short",
  "imperative",
]);

/** The marks of form a standing imperative does without (its length, its turn of one sentence). */
export const STANDING_FORM: ReadonlySet<string> = new Set([
  "len:short",
  "len:mid",
  "turn:one-sentence",
  "marker-opens",
  "imperative",
]);

/** The logistic function. */
export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** The probability that a candidate is a durable statement, by the fitted weights. */
export function scoreCandidate(
  g: Scored,
  weights: Readonly<Record<string, number>> = WEIGHTS,
  bias: number = BIAS,
  rules: readonly string[] = RULES,
): number {
  let z = bias;
  for (const [name, v] of features(g, rules)) z += (weights[name] ?? 0) * v;
  return sigmoid(z);
}
