/**
 * How one sentence of the user is classified by the offline extractor (extract.ts): the kind of
 * memory it states (a rule or correction, a preference, a decision with its reason, a fact about
 * the setup), with the rule that matched and a confidence, or nothing (a question, a one-off
 * instruction, a hypothesis, a report on the work at hand, a request). The patterns are in the
 * order they are tried; each has a test sentence in tests/capture/extract_corpus_test.ts.
 * @module
 */
import type { CandidateType } from "./extract.ts";
import { confidenceOf } from "./calibration.ts";

/** Longest sentence considered (longer ones are rarely one durable statement). */
export const MAX_SENTENCE = 400;

/** Leading words that carry nothing ("ok.", "btw", "and", "also", "reminder:", "fyi"). */
export const FILLER =
  /^(?:(?:(?:ok(?:ay)?|k|yeah|yes|yep|right|no|nope|stop|hmm|well|agreed|good|great|thanks|cool|fine|remember|heads up|wrong|nah|actually)\b[,.!:;-]+|(?:so|and|also|oh|btw|by the way|again|plus|but|just fyi|fyi|you should know that|worth knowing|good to know|for your information|note that|note|reminder|for the record|for future reference|for reference|for context|just so you know|keep in mind that|keep in mind|bear in mind that|remember that|important)\b[,.!:;-]*)\s*)+/i;

/**
 * Words that introduce something to keep ("fyi", "for the record", "just so you know", "keep in
 * mind", "remember,", "heads up:", "note that"): a plain statement after them is meant for good.
 */
export const NOTED =
  /^(?:(?:ok(?:ay)?|yeah|yes|right|fine|good|and|also|so|oh|btw|just)\b[,.!:;-]*\s*)*(?:fyi|for your information|for the record|for future reference|for reference|just so you know|keep in mind|bear in mind|remember(?: that|,|:)|heads up[,:!-]|note that|note:|good to know:|worth knowing:|you should know that|for context[,:])/i;

/** Common misspellings of the words the rules look for ("alwasy", "nevr"), spelled right. */
export function spelled(l: string): string {
  return l.replace(/\b(allways|alwasy|alwyas|alawys|alwys|allway)\b/g, "always")
    .replace(/\b(nevr|nver|neveer|nevre)\b/g, "never");
}

/** Clean a sentence into a memory's wording. */
export function wording(s: string): string {
  let t = s.replace(FILLER, "").trim();
  t = t.replace(/\s+/g, " ").replace(/[\s,;:]+$/, "");
  if (!/[.!?`)]$/.test(t)) t += "";
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** A sentence that opens with an auxiliary verb before its subject: the form of a question. */
const INVERTED =
  /^(is|are|was|were|does|did|can|could|would|should|will|has|have|had|isn'?t|aren'?t|doesn'?t|won'?t) (it|this|that|there|the|they|we|you|he|she|i|my|our|your|these|those|any|anyone|anything)\b[^.!]*[.!]?$/i;

/** A question (to the agent or rhetorical): not a memory. */
export function isQuestion(s: string): boolean {
  if (/\?\s*$/.test(s)) return true;
  // "when you add an endpoint, add it to the spec": a condition, not a question.
  if (/^(when|whenever)\b[^,]+,/i.test(s.replace(FILLER, "").trim())) return false;
  // An auxiliary before its subject ("is it always this slow…", "does CI never retry…"): a
  // question even without its mark, whatever words it holds.
  if (INVERTED.test(s.replace(FILLER, "").trim())) return true;
  return /^(what|why|how|where|when|who|which|is|are|does|do|did|can|could|would|should|will)\b[^.!]*$/i
    .test(s.replace(FILLER, "").trim()) && !/\b(always|never)\b/i.test(s);
}

/** A task tacked on at the end ("…, add one", "…, swap it"): the sentence asks for work. */
export const TRAILING_TASK = /,\s*(please\s+)?\w+ (it|them|that|this|one|those)\b[^,]*$/;

/** Marks of a one-off instruction. */
export const ONE_OFF =
  /\b(this time|for now|for this(?! (repo|repository|project|codebase|service|app|team|tool|package|module|library|cli|pipeline|monorepo|job)\b)|throwaway|a spike|quick spike|quick hack|for the (demo|spike|prototype|poc)|this one|for this (pr|pull request|branch|commit|change|ticket|task|release|run)|just this once|this once|for the moment|temporarily|right now|later|after lunch|another day|tomorrow|tonight|today|this week|this session|for today|yet|in this (pr|pull request|branch|commit)|this (afternoon|morning|evening|sprint|month|quarter)|next (week|month|sprint))\b/i;

/**
 * A scope of the work at hand ("for this change", "in this sweep", "during this migration",
 * "this time", "for now"): a rule said within it ("for this repro always spawn at 0,0") holds
 * for the task only, whatever its marker ("always", "never"). Not a standing thing ("in this
 * repo", "for this service") nor a reason ("for this reason").
 */
export const SCOPED =
  /\b(this time|for now|just this once|this once|for the moment|until (i|we|you) (say|tell|confirm|decide|review|check|look|get back|am back|'m back)|until (tomorrow|later|then|further notice|the review|it'?s (merged|reviewed|fixed|done))|(in|for|on|to|from|within) that (file|files|function|functions|method|class|diff|pr|branch|commit|line|lines|test|tests|component|page|query|script|snippet|change|changes|bug|ticket|issue|one|case|step|cell|notebook|folder)|(for|in|during|within|throughout) this (?!(repo|repository|project|codebase|code|service|app|team|tool|package|module|library|lib|cli|pipeline|monorepo|job|file|folder|directory|dir|crate|workspace|company|org|organi[sz]ation|house|stack|shop|world|language|setup|environment|cluster|account|reason|purpose|way|kind|type|sort|domain|layer|table|schema|api|system|product|dataset|data set|model|framework|office)\b)[a-z]+)\b/i;

/** Marks of a hypothesis or a doubt. */
export const HYPOTHESIS =
  /\b(maybe|might|perhaps|probably|possibly|i think|i guess|i suspect|i assume|not sure|could be|i wonder|seems|looks like|presumably|i believe|i thought|i figured|i recall|iirc|if i remember|afaik|as far as i know|i'?d guess|not certain|no idea (if|whether)|unsure)\b/i;

/**
 * Whether a sentence hedges ({@link HYPOTHESIS}); not "while I think of it" (a remark) nor a
 * condition on doubt ("when you're not sure, ask": a rule about doubt).
 */
export function hedged(s: string): boolean {
  return HYPOTHESIS.test(
    s.replace(/\bi think (of|about) it\b/gi, "").replace(
      /\b(if|when|whenever) (you'?re|you are|i'?m|i am) (not sure|unsure)\b/gi,
      "",
    ),
  );
}

/** Generalisers: the previous sentence holds for good (and for everything: global). */
export const GENERAL_GLOBAL =
  /\b(that goes for everything|for everything|not just (this|the) (repo|project)|everywhere|in all (my )?(repos|projects)|all my projects|working with me|in general)\b/i;
export const GENERAL_PROJECT =
  /\b(general rule|ground rule|general thing|general note|general principle|rule of thumb|as a rule|that's a rule|for this project)\b/i;

/** Words of a personal preference (global unless the sentence names the project). */
export const PERSONAL =
  /\b(i prefer|i'd rather|i would rather|i like (it )?when|my preference|i want you to always|i don't like|i hate)\b/i;
/** Words naming the project: a preference with them stays in the project. */
export const PROJECT_WORDS =
  /\b(this (repo|repository|project|service|codebase|app)|in here|here)\b/i;

export interface Match {
  type: CandidateType;
  rule: string;
  /** The rule's calibrated confidence (calibration.ts). */
  confidence: number;
}

/** A match of `rule`, with its calibrated confidence. */
export function hit(type: CandidateType, rule: string): Match {
  return { type, rule, confidence: confidenceOf(rule) };
}

/** Marks of a report on the work at hand (a failure, what happened): not a fact of the setup. */
export const STATUS =
  /\b((is|are|went|turned|goes|stays?) (red|green|yellow)|problem|culprit|the issue is|a mess|messy|keep (getting|failing|crashing|breaking)|too (short|long|slow|small|big|low|high|strict|complicated|complex|much|many)|off by (one|\d+)|(is|are|went) down|gets? (a |an )?(\d{3}|error|exception|timeout)|fail(s|ed|ing)?|broken|errors?|crash(es|ed)?|bug|wrong|flaky|slow|blew up|missing|stuck|timed? ?out|returns? (a )?\d{3}|shows|ran|happened|yesterday|last (night|week)|again|still|attached|here'?s|pasted|doesn'?t work|isn'?t working|can'?t|cannot|keeps|times? out|on ci|right now|currently|i'?ll|i will|myself)\b/i;

/** Subjects that point at the work at hand ("the file is…", "the ticket is…"), not the setup. */
export const TASK_SUBJECT =
  /^(it|its|this|that)\b|^(the|this|that|my|your) (file|ticket|issue|pr|pull request|branch|commit|bug|error|test|page|function|method|class|line|output|result|diff|change|fix|task|story|customer|deadline|plan|query|script|link|screenshot|logs?|new [\w-]+)\b/i;

/** A clause that asks for work ("…, make it handle leap years"): the sentence is a request. */
export const REQUEST_CLAUSE =
  /(^|[,;:]\s+|\band\s+)(please\s+)?(add|fix|make|run|check|kill|open|create|write|update|rename|delete|remove|move|change|try|look|find|show|tell|give|explain|rerun|bump|implement|refactor|commit|push|merge|revert|apply|install|set|put|restart|build|debug|investigate|help|go ahead|do it|let'?s|deploy|point|send|ship|copy|upload|download|migrate|generate|regenerate|review|profile|post|ping|notify)\b(?! (sure|certain)\b)/i;

/**
 * A concrete detail of a setup: code in backquotes, a path, a URL, a file name, a port, a
 * version, an e-mail address, an environment variable, a host- or region-like name, a time.
 */
export const CONCRETE = new RegExp(
  [
    "`[^`]+`",
    String.raw`(?:^|\s)#[a-z][\w-]+`,
    String.raw`\b[\w.-]{2,}\/(?=[\s,.;:)]|$)`,
    String.raw`"[^"\s][^"]{0,40}"`,
    String.raw`(?:^|\s)(?:~?\/|\.\/)[\w.-]`,
    String.raw`\b[\w.-]+\/[\w.-]+`,
    String.raw`\b[a-z0-9+.-]+:\/\/`,
    String
      .raw`\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|toml|ya?ml|json|proto|md|sql|sh|env|cfg|ini|lock|tf|hcl|css|scss|html|csv|txt|xml|java|kt|rb|php|vue|svelte)\b`,
    String.raw`\b\d+ ?(?:ms|seconds?|secs?|minutes?|mins?|hours?|days?|weeks?|mb|gb|kb|%)(?!\w)`,
    String.raw`\bport \d{2,5}\b|(?:^|\s):\d{2,5}\b`,
    String
      .raw`\b[A-Za-z][\w.+-]* v?\d+(?:\.\d+)+\b|\b(?:postgres(?:ql)?|node|python|go|rust|java|ruby|php|mysql|redis|kafka|terraform|k8s|kubernetes|deno|bun|msrv) v?\d+\b`,
    String.raw`\b[\w.+-]+@[\w-]+\.[\w.-]+\b`,
    String.raw`\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b`,
    String.raw`\b[a-z]+-[a-z]*-?\d+[a-z]?\b`,
    String.raw`\b\d{1,2}(?::\d{2})? ?(?:am|pm|utc)\b|\butc\b`,
  ].join("|"),
  "i",
);

/** Nouns of a setup that a fact states ("the default branch is…", "the timezone is…"). */
export const SETUP_NOUN =
  /\b(branch|cluster|region|timezone|time zone|port|host|url|domain|database|db|schema|bucket|registry|namespace|config|configuration|environment|staging|prod|production|target|targets|msrv|version|runtime|image|ci|runners?|service account|package manager|linter|formatter|test runner|toolchain|dags?|cron|queue|broker|cache|backups?|deploys?|releases?|monorepo|workspace)\b/i;

/** Words that make a sentence a rule. */
export const RULE_MARKER =
  /\b(always|never|must|mustn'?t|don'?t|do not|from now on|going forward|should|avoid|only)\b/i;
/** Words that frame a quote as our own rule ("the rule here is 'never…'"). */
const OWN_RULE = /\b(rule|convention|policy|guideline|house style|standard)\b/i;
/**
 * Words that report what someone or something else said (a post, a README, a lint rule, an
 * error message): a rule in the quote they frame is not the user's.
 */
const REPORTED =
  /\b(wrote|writes|written|says|said|saying|read|reads|claims?|claiming|suggests?|suggesting|recommends?|recommending|according to|posts?|article|blog|tweet|thread|comments?|messages?|prints?|printed|errors?|warnings?|fails?|failed|failing|complains?|told me|tells me|copy|copied|paste|pasted|quote|quoted)\b/i;
/** Quoted text: in double quotes, or in single quotes (apostrophes inside words kept). */
const QUOTED = [
  /["“]([^"“”\n]{3,}?)["”]/g,
  /(?<!\w)['‘]((?:[^'‘’\n]|(?<=\w)['’](?=\w)){3,}?)['’](?!\w)/g,
];

/**
 * A sentence with the rules it only quotes blanked ("Jonas wrote in the README 'never use
 * torch.compile'", "the build fails with 'password must be set'", "I read a post saying
 * 'always memoize…'"): quoted words are someone else's unless the user frames them as their
 * rule ("our rule is 'never push to main'") without reporting who said them.
 */
export function unquoted(s: string): string {
  let out = s;
  for (const q of QUOTED) {
    out = out.replace(q, (all, inner: string) => {
      if (!RULE_MARKER.test(inner)) return all;
      const outside = s.replace(all, " ");
      return OWN_RULE.test(outside) && !REPORTED.test(outside) ? all : '"…"';
    });
  }
  return out;
}

/** Past forms of common irregular verbs ("never got", "never wrote"): a report, not a rule. */
const PAST =
  "got|had|made|did|saw|seen|been|went|gone|came|took|gave|sent|ran|wrote|written|read|told|said|heard|found|thought|knew|built|paid|left|kept|met|held|brought|bought|caught|taught|felt|lost|won|broke|spent|stood|understood|became|began|forgot|forgotten|happened";

/**
 * A sentence whose "always", "never" or "must" describes, reports or comments rather than sets a
 * rule: the user's own intention ("from now on I'll check…"); a thing at hand or a person as the
 * subject ("it never finishes", "this never happened", "he never answers"); the past ("the old
 * team never wrote tests", "never seen that before"); what people say, want or feel ("you always
 * say that", "users always complain"), commentary ("always fun to…", "always the same with…");
 * what a document or a ticket says ("the ticket says we must…": someone else's rule); a guess or
 * a deadline with "must" ("you must be tired", "we must ship this by friday").
 */
export function describes(l: string, core: string): boolean {
  if (/\b(i'?ll|i will|i'?m going to|i am going to|i should|i'?d better)\b/.test(core)) return true;
  if (/^(it|this|that|he|she|they|there)('s| is| was)? (never|always|must)\b/.test(core)) {
    return true;
  }
  if (/\b(never|always) (going to|gonna)\b/.test(l)) return true;
  // The thing at hand as the subject of a modal ("it should always return a list", "make sure
  // this function never throws").
  if (
    /^((make sure|ensure) (that )?)?(it|this|that|this [\w-]+|that [\w-]+)( should| must| will| can| does| is|'s)? (never|always|must)\b/
      .test(core) && !/^(this|that) (repo|repository|project|codebase|service|team)\b/.test(core)
  ) return true;
  // A guess ("you must've missed it") or a plan described ("in the future this will be…").
  if (/\bmust'?ve\b|\bmust have (missed|forgotten|been|broken|changed)\b/.test(l)) return true;
  if (/\b(in (the )?future|going forward),? (it|this|that|they) (will|'ll|is going to)\b/.test(l)) {
    return true;
  }
  if (/\bgoing forward with\b/.test(l)) return true;
  // Not the passive of a rule ("is never edited by hand", "are always reviewed").
  if (
    new RegExp(
      `(?<!\\b(is|are|be|being|been|gets?|get)\\s)\\b(never|always|must have) (${PAST}|(?!(?:need|feed|seed|speed|proceed|exceed|succeed|embed|bleed|breed|shed)\\b)\\w+ed)\\b`,
    )
      .test(l)
  ) return true;
  if (/^(never|always) (seen|heard|been|had)\b/.test(core)) return true;
  // A person's habit ("users always complain", "he never answers", "you always say that"),
  // not the imperative ("always answer in English" is a rule).
  if (
    /\b(he|she|they|people|users|customers|clients|everyone|somebody|someone|[a-z]+ team|[a-z]+ folks) (always|never) (says?|said|complains?|asks?|wants?|likes?|loves?|hates?|manages?|ends? up|takes? (ages|forever|so long)|seems?|finishes|answers?|replies|responds?|works? out)\b/
      .test(l) ||
    /\byou (always|never) (say|said|ask|complain|want)\b/.test(l) ||
    /\b(always|never) takes? (ages|forever|so long)\b/.test(l) ||
    /^(it|this|that|the [\w-]+) (always|never) (finishes|answers|replies|responds|works out)\b/
      .test(core)
  ) return true;
  if (
    /^((ok|okay|yeah|lol|ha|well|man|ugh) )?(always|never) (fun|nice|good|great|a pain|annoying|the same|funny|a joy|fun to|easy|hard|tricky|surprising)\b/
      .test(core)
  ) return true;
  if (
    /^(the |this |that |a |your |our )?([\w-]+ ){0,2}(says?|said|states?|claims?|reads?) (that )?(we|you|it|they|the|all|every)\b/
      .test(core)
  ) {
    return true;
  }
  if (
    /\bmust (be (tired|sick|joking|kidding|busy|bored)|ship|finish|land|merge|deliver|fix)\b/.test(
      l,
    ) &&
    /\b(this|that|by (mon|tues|wednes|thurs|fri|satur|sun)day|by (tomorrow|tonight|eod|end of (day|week))|before the (demo|release|launch|deadline))\b/
      .test(l)
  ) return true;
  return /\bmust be (tired|sick|joking|kidding|busy|bored)\b/.test(l);
}

/** The durable kind of a sentence, or null. */
export function classify(s0: string): Match | null {
  const s = unquoted(s0);
  const l = spelled(s.toLowerCase());
  if (l.length > MAX_SENTENCE) return null;
  if (isQuestion(s)) return null;
  if (ONE_OFF.test(l) && !/\b(from now on|always|never|going forward)\b/.test(l)) return null;
  if (SCOPED.test(l)) return null;
  if (hedged(l)) return null;
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

/** A rule or correction ("always…", "never…", "from now on…", "use X, not Y"), or null. */
export function ruleOf(l: string, core: string, s: string): Match | null {
  // Rules and corrections.
  if (
    /\b(from now on|going forward|from here on|in (the )?future|for the future(?! of)|for future (reference|work|changes)|henceforth|next time (you|we)(?! (see|meet|talk|are|'re)\b)|in future)\b/
      .test(l)
  ) {
    return hit("rule", "from-now-on");
  }
  // "for the chart always use…", "on the dashboard never show…": a rule scoped to a thing,
  // which may be the thing of the task at hand: the same markers, a confidence of their own.
  if (
    /^(for|in|on|with|inside) (the|that|these|those) [\w-]+( [\w-]+)?,? (always|never)\b/.test(
      core,
    ) &&
    !/\b(always|never) (hits?|fails?|breaks?|works?|crash(es)?|times? out)\b/.test(core)
  ) return hit("rule", "scoped-marker");
  if (
    /\b(don'?t|do not|never) ever\b|\bnever\b/.test(l) && !/\bnever mind\b/.test(l) &&
    !/\b(you|we|i|they|he|she) never \w+ed\b/.test(l)
  ) {
    return hit("rule", "never");
  }
  if (
    /\balways\b/.test(l) && !/\bnot always\b/.test(l) &&
    // "the queue is always slow", "it was always flaky": how a thing behaves, not a rule.
    !l.split(/[,;:]\s+|\s[—–-]+\s/).some((c) =>
      /\b(is|are|was|were|'s|'re|gets?|got|seems?) always\b/.test(c) && STATUS.test(c)
    ) &&
    !/\balways (hits?|fails?|breaks?|see|sees|notice|notices|get|gets|crash(es)?|times? out|runs? out|forgets?|seems?|gets? (a|an|the) (error|timeout|warning))\b/
      .test(l)
  ) {
    if (/\b(runs?|listens?|lives?|is|are)\b[^.]*\b(on|at) (port )?\d{2,5}\b/.test(l)) {
      return hit("fact", "always-fact");
    }
    return hit("rule", "always");
  }
  if (
    /^(please )?(don'?t|do not)\b/.test(core) && !/\b(worry|bother|forget|need)\b/.test(core) &&
    // "don't go there", "don't do that": about the step at hand, nothing on its own.
    !/^(please )?(don'?t|do not) ([\w-]+ ){0,2}(there|that|this|it|them|those|these)( again| yet| now)?[.!]*$/
      .test(core) &&
    !/\bi'?ll\b|\bi will\b|\bi want to\b/.test(core)
  ) {
    return hit("rule", "dont");
  }
  if (
    /\buse [`'"\w@./-]+( v?\d[\w.]*)?,? (not|instead of|rather than|over) [`'"\w@./-]+/.test(l) ||
    /\buse [`'"\w@./-]+( [`'"\w@./-]+){0,3},? (not|instead of|rather than) [`'"\w@./-]+/.test(l)
  ) return hit("rule", "use-x-not-y");
  if (
    /^no [a-z-]+ing\b/.test(core) || /^no (hand-written|handwritten|manual)\b/.test(core) ||
    /^no [a-z-]+( [a-z-]+)?,? ever\b(?! since)/.test(core) &&
      !/^no (errors?|luck|issues?|problems?|warnings?)\b/.test(core)
  ) {
    return hit("rule", "no-doing");
  }
  // "no emoji in commit messages": a ban, not a status ("no errors now", "no luck").
  if (
    /^no [a-z-]+( [\w.-]+){2,}/.test(core) && !/\bnow\b/.test(core) &&
    !/^no (errors?|luck|worries|problem|idea|change|changes|difference|output|response|rush|need|thanks|way|clue|issues?|warnings?|longer|more|matter|one|doubt)\b/
      .test(core)
  ) return hit("rule", "no-thing");
  if (
    /\b(every|each|all) [\w-]+( [\w-]+){0,2} (needs?|must|has to|have to|should)\b/.test(l) &&
    !/\b(every|each|all) of (these|those|them)\b/.test(l)
  ) {
    return hit("rule", "every-needs");
  }
  // "every public function gets type hints", "all infra changes go through a PR", "anything
  // touching prod needs her review": what holds for every thing of a kind.
  if (
    /^(in (this|the|our) [\w-]+,? )?(every|each|all|any|anything|everything)( [\w/.-]+){1,4} (needs?|requires?|gets?|goes through|go through|has|have|validates|parses|uses|logs|follows|carries|includes|declares|imports|exports|returns)\b/
      .test(core) &&
    !/^\w+ (of )?(them|these|those|it)\b/.test(core) && !STATUS.test(l) &&
    !/^(every|each|any) ?time\b/.test(core) && !/\b(now|fine|ok|okay|green)\b/.test(l) &&
    // "every file I opened has tabs": the things of the user's work, not a kind.
    !new RegExp(`\\b(i|we|you) (${PAST}|\\w+ed|open|touch|see|saw|check|looked at)\\b`).test(l)
  ) return hit("rule", "every-gets");
  // "prod deploys need a sign-off from Kofi": a standing approval.
  if (
    /\b(needs?|requires?) (a |an )?([\w'-]+ ){0,3}(sign-?off|review|approvals?|go-ahead|ok|lgtm)\b/
      .test(l) &&
    !TASK_SUBJECT.test(core) && !/\b(this|my|your|the new) /.test(core) &&
    !STATUS.test(l)
  ) return hit("rule", "needs-approval");
  // "component files are PascalCase", "error messages start lowercase": a naming convention.
  if (
    /\b(are|are all|start|begin|are written in|are named in|use) (all )?(pascalcase|camelcase|snake_case|kebab-case|screaming_snake_case|lower ?case|upper ?case|title case|sentence case)\b/
      .test(l) && !TASK_SUBJECT.test(core) && !/\b(fail(s|ed|ing)?|broken|wrong|now)\b/.test(l)
  ) return hit("rule", "naming");
  // "…must (not) …" as a rule; "it must be the proxy", "we must have missed" are guesses.
  if (
    /\b(must|mustn'?t)\b/.test(l) &&
    !/\bmust (not )?(be (the|a|an|it|that|wrong|broken|why|because|from|related|caused)|have)\b/
      .test(l) &&
    !/^(that|it|this|there) must\b/.test(core)
  ) return hit("rule", "must");
  if (
    /(^|[,;:]\s+|\s[—–-]+\s)(we|you) (don'?t|do not) (?!know|need|have|see|get|understand|want|care|think|mind|remember|use it\b|mean\b|like\b|agree\b|expect\b|recall\b|believe\b|trust\b)\w+/
      .test(core) && !STATUS.test(l)
  ) return hit("rule", "we-dont");
  // Habits of the team: "we squash-merge PRs", "we tag releases as vX.Y.Z".
  if (
    /^(we|our team) (usually |normally |generally )?(squash|squash-merge|rebase|tag|version|name|prefix|pin|vendor|partition|publish|review|pair)\b/
      .test(core) &&
    !STATUS.test(l) && !/\b(it|this|that)\b/.test(core.split(/\s+/).slice(2, 4).join(" "))
  ) return hit("rule", "we-habit");
  // A convention said for the whole project: "in this repo, name tests after the module".
  if (
    /\b(in|across) (this|the whole|our|the) (repo|repository|project|codebase|service|monorepo|frontend|backend)\b(?!')/
      .test(l) &&
    /^(?:in (?:this|the whole|our|the) [\w-]+,? )?(use|write|name|prefix|put|place|format|indent|wrap|declare|import|export|log|pass|store|mark|document|comment|keep)\b(?! (a|an|it|this|that|these|the new)\b)/
      .test(core) &&
    !STATUS.test(l)
  ) return hit("rule", "project-convention");
  if (
    /^(avoid|prefer|stick (to|with)|keep to|stay on|only use|use only)\b(?! (it|this|that|them|the (point|plan|topic))\b)/
      .test(core) && !/\bfor (a bit|a while|now)\b/.test(core)
  ) {
    return hit("rule", "avoid-prefer");
  }
  if (/^(stop|quit) [a-z]+ing\b/.test(core)) return hit("rule", "stop-doing");
  // "the way we do it here is…", "our standard is…", "the rule is: …", "policy: …".
  if (
    /^(that'?s not how we do (it|things|this)( here)?,|the way we do (it|things|this) here|how we do (it|things) here|our (standard|policy|practice|approach|convention) is|the (standard|policy|practice) (here )?is|the rule is\b|(rule|policy|house rule|standard)s?:)/
      .test(core) && !STATUS.test(l) && !TRAILING_TASK.test(core)
  ) return hit("rule", "house-way");
  // "here we use tabs", "in this codebase we prefer early returns", "we prefer…", "the team
  // prefers small PRs", "we only deploy from main", "only Sam can approve prod deploys".
  if (
    /^(here|in (this|the|our) (repo|repository|project|codebase|service|team|monorepo)),? we (use|prefer|write|do|keep|put|name|avoid)\b/
      .test(core) ||
    /^(we|the team|everyone here|we all) (prefer|prefers|generally|normally)\b/.test(core) ||
    /^we (use|prefer|write|keep|put|name|avoid) [\w.@/`'-]+( [\w.@/`'-]+){0,3} (here|in this (repo|repository|project|codebase|service))\b/
      .test(core) ||
    /^we only (deploy|release|merge|push|use|run|ship|publish|support|test|build|write|commit|allow|accept)\b/
      .test(core) ||
    /^only [\w-]+ (can|may|is allowed to|gets to|should)\b/.test(core)
  ) {
    if (
      !STATUS.test(core) && !TASK_SUBJECT.test(core) &&
      !TRAILING_TASK.test(core) &&
      !/\b(this|that|these|those)\b/.test(core.replace(/\bin this [\w-]+/, "")) &&
      !/\bprefer not to (talk|discuss|say|comment|go into)\b/.test(core)
    ) return hit("rule", "we-prefer");
  }
  // "make sure every new table has a created_at column": what every new thing of a kind has
  // ("make sure every bucket has…" is a check of what exists: a request).
  if (
    /^(make sure|ensure) (that )?(every|each|all|any) (new|future) [\w-]+( [\w-]+){0,2} (has|have|gets?|is|are|goes|go)\b/
      .test(core)
  ) return hit("rule", "every-gets");
  // "all new code is TypeScript", "all endpoints are authenticated" (not "all the tests are
  // green": a state).
  if (
    /^(all|every) (new )?[\w-]+( [\w-]+)? (is|are|has to be|must be) (?!(a|an|green|red|passing|failing|fine|ok|okay|done|broken|flaky|there|here|ready|gone|up to date|in place|fixed|merged|deployed|back)\b)[\w.-]+/
      .test(core) && !STATUS.test(l) && !/\bnow\b/.test(l)
  ) return hit("rule", "every-gets");
  // "commits should reference the ticket", "PRs should stay small": a norm for a kind of thing.
  if (
    /^(?!the\b|this\b|that\b|these\b|those\b|it\b)[\w-]+s (should|must|need to|have to|are to) (always |never )?\w+/
      .test(core) &&
    !STATUS.test(l) && !TRAILING_TASK.test(core) &&
    !/\b(now|again|soon|tomorrow|by then|too|this|that)\b|should (work|pass|show up|appear|arrive|finish|complete|come back|be (fine|fixed|done|ok|okay|there|ready|green|\w+er))\b/
      .test(l)
  ) return hit("rule", "kind-should");
  // "we test against postgres, not sqlite", "it's pnpm here, not npm": a choice against another.
  if (
    (/^(we|our [\w-]+) \w+ (against|with|on|in|through|via|from|to) [^,]+, not (with |on |in |from |to )?[\w@./-]+/
      .test(core) ||
      /^it'?s [\w.@/-]+ (here|in this (repo|repository|project|codebase|service)),? not [\w.@/-]+/
        .test(core)) && !STATUS.test(l)
  ) return hit("rule", "x-not-y");
  // "use vitest for all frontend tests": a tool for a whole kind of work.
  if (
    /^use [`'"\w@./-]+( [`'"\w@./-]+){0,2} (for|in|across|on) (all|every|any)\b(?! (of\b|these\b|those\b|them\b|(the )?(two|three|four|five|\d+)\b))/
      .test(core)
  ) return hit("rule", "use-for-all");
  // "tests use the real database, no in-memory fakes": a choice and the alternative it bans.
  if (
    /^[^,]*\b(uses?|only|go(es)? through|via)\b[^,]*, no [a-z-]+/.test(core) &&
    !/, no (errors?|luck|worries|problem|idea|changes?|difference|output|response|rush|need|thanks|way|clue|issues?|warnings?|longer|more|matter|one|doubt)\b/
      .test(core) &&
    !/, no [\w-]+ (needed|required|necessary)\b/.test(core) &&
    !TASK_SUBJECT.test(core) && !REQUEST_CLAUSE.test(core.split(",")[0]) && !STATUS.test(l)
  ) return hit("rule", "x-no-y");
  if (
    /\b(is|are) (not allowed|forbidden|banned|not permitted|off limits|not an option)\b/.test(l)
  ) return hit("rule", "not-allowed");
  if (
    (/\b(the|our) (convention|rule|house style)( here)? is\b|\bby convention\b/.test(l) ||
      /\bfollows? (the )?([\w-]+ ){0,3}(conventions?|style|style guide|guidelines|semver|semantic versioning|conventional commits)\b/
        .test(l)) && !/\b(broken|wrong|outdated|unclear|confusing)\b/.test(l)
  ) {
    return hit("rule", "convention");
  }
  // Recurring work: "whenever you touch…", "before every commit", "when you add an endpoint…".
  if (
    /^(whenever|every time|each time|any time) (you|we)\b/.test(core) ||
    /^when (you|we) (add|touch|change|write|create|edit|modify|bump|release|deploy|name|open|review|rename|propose|suggest|show|explain|summari[sz]e|report|answer|plan|debug|refactor|commit|push|merge|upgrade|generate)\b(?! (it|this|that|these|those|them)\b)/
      .test(core) ||
    /\b(before|after|on|with) (every|each) (commit|push|pr|pull request|release|deploy|merge|change)\b/
      .test(l)
  ) return hit("rule", "recurring");
  if (/\b(is|are) \w+ (from|by|in|on|through|via)\b.*\bonly\b|\bonly (through|via)\b/.test(l)) {
    return hit("rule", "only-via");
  }
  if (GENERAL_PROJECT.test(l) && /:/.test(s)) {
    return hit("rule", "general-rule");
  }
  return null;
}

/** A personal preference, or null. */
export function preferenceOf(l: string, core: string): Match | null {
  // A reaction to what is at hand ("I like that idea", "I love it, ship it", "I'd rather not
  // talk about it"), not a preference.
  if (
    /\bi (really |do |don'?t )?(like|love|dislike|hate|prefer) (it|that|this|these|those|them)\b(?! (when|if|that)\b)/
      .test(l) ||
    /\bi'?d rather (not )?(talk|discuss|say|comment|go into|not)\b/.test(l) ||
    /\bi prefer (we|you) (finish|do|start|wait|look|fix)\b/.test(l)
  ) return null;
  // Preferences.
  if (PERSONAL.test(l)) return hit("feedback", "preference");
  if (
    /\bi (really )?(like|love|dislike|can'?t stand)\b|\bi'?m (not )?a (big |huge )?fan of\b|\bi'?d prefer\b/
      .test(l) ||
    /^(please )?keep (answers|replies|responses|diffs|commits|prs|pull requests|messages|explanations|summaries|it) \w+/
      .test(core)
  ) return hit("feedback", "preference");
  // "I want tests for every bug fix": what they expect of every piece of work.
  if (
    /^i (want|expect|need|like) [\w -]+ (for|on|with|in|after|before) (every|each|all|any)\b/
      .test(core) && !/\b(it|this|that|these|those)\b/.test(core)
  ) return hit("feedback", "preference");
  // "I use British spelling", "in all my projects I use conventional commits": a habit of theirs.
  if (
    (/^i (always |usually |normally )?(use|write|spell|indent|format)\b/.test(core) ||
      /\b(in all (my )?(repos|projects)|everywhere),? i (always )?(use|write)\b/.test(l)) &&
    !/\bi (use|write) (it|this|that|them|the (file|branch|script|old|new))\b/.test(core) &&
    !/,\s*so (the|it|this|that|my|you|we|i)\b/.test(core) &&
    !STATUS.test(l)
  ) return hit("feedback", "i-use");
  return null;
}

/** A decision with its reason, or null. */
export function decisionOf(l: string, core = l, s = l): Match | null {
  // Decisions.
  // Not a decision of the work's moment ("we chose the wrong index there", "we decided to skip
  // lunch").
  const momentary = STATUS.test(l) ||
    /\b(meeting|call|standup|demo|sync|retro|lunch|office|desk|there)\b/.test(l);
  if (
    /\bwe('ve| have)? (chose|chosen|decided|picked|went with|settled on|standardi[sz]ed on)\b/
        .test(l) && !momentary ||
    /\bwe('re| are) (going with|standardi[sz]ing on|moving to|moving away from|phasing out|deprecating|getting rid of|dropping)\b(?! (the|this|that|a|an|our|it)\b)/
        .test(l) && !STATUS.test(l) ||
    /\b(the|our) decision (is|was)\b/.test(l)
  ) return hit("decision", "we-chose");
  if (
    (/\blet'?s (go with|use|stick with|pick)\b/.test(l) ||
      /\bwe('ll| will|'re| are) (use|go with|stick with|keep|switching|migrating|moving)\b/.test(
        l,
      )) &&
    /\b(because|since|so that)\b/.test(l)
  ) {
    return hit("decision", "lets-because");
  }
  // "we're staying on Airflow, because…", "we use TanStack Query …, because…", "let's keep
  // sessions in Redis …, because…": a standing choice with its reason.
  if (
    (/\bwe('re| are) (staying|sticking|keeping)\b/.test(l) ||
      /^we (use|keep|run|pin|store|host|prefer)\b/.test(core) ||
      /^let'?s (keep|store|put|run|host|pin)\b/.test(core)) &&
    /\b(because|since|so that)\b/.test(l) &&
    !STATUS.test(l.split(/\b(because|since|so that)\b/)[0]) &&
    // What is chosen is named ("TanStack Query", "Redis", `sqlc`), not "it" or "the mock".
    /(?<!^)\b[A-Z][\w.-]*[a-zA-Z]|`[^`]+`/.test(
      s.replace(FILLER, "").split(/\b(?:because|since|so that)\b/i)[0],
    )
  ) return hit("decision", "choice-because");
  // "we switched webhook signatures to HMAC-SHA256 in API v3", "we moved the DAG to 04:30 UTC
  // since…": a change of the setup that holds from now on.
  if (
    /^we (switched|moved|migrated|changed|upgraded|standardi[sz]ed)\b[^,]* (to|onto|from)\b/
      .test(core) &&
    (CONCRETE.test(core) || /\b(because|since|so that)\b/.test(l)) &&
    !/\b(meeting|call|standup|demo|sync|retro|lunch|office|desk)\b/.test(core) &&
    !STATUS.test(l) && !/\b(it|this|that|them)\b/.test(core.split(/\s+/).slice(2, 3).join(" "))
  ) return hit("decision", "we-switched");
  // "releases moved to Mondays now", "we're not on Jest anymore", "we no longer deploy from
  // Jenkins": a change of the setup, said as what holds from now on (not a thing of the work
  // moving: "the ticket moved to done", "the button moved to the footer").
  if (
    (/^(the |our |all )?[\w-]+( [\w-]+)? (have |has )?(moved|switched|migrated) (to|onto|over to) (?!(a|an|the|this|that|it|my|your|his|her)\b)[\w.@/-]+/
      .test(core) ||
      /^we('re| are) (not|no longer) (on|using) [\w.@/-]+ any ?more\b|^we no longer (use|run|deploy|ship|support|host)\b/
        .test(core)) &&
    !TASK_SUBJECT.test(core) && !STATUS.test(l) &&
    !/\b(meeting|call|standup|demo|sync|retro|lunch|office|desk|ticket|card|issue|pr|branch|button|page|file)\b/
      .test(core)
  ) return hit("decision", "moved-on");
  return null;
}

/** A fact about the setup the user states, or null (never in a report on the work at hand). */
export function factOf(s: string, l: string, core: string): Match | null {
  // Facts about the setup (never in a report on the work at hand, nor in a request).
  // "failed DAGs post to #data-alerts": "failed" names a kind of thing, not a report.
  const kinds = l.replace(/(^|\b(?:the|all|any) )(failed|failing) (?=[\w-]+s\b)/, "$1");
  if (STATUS.test(kinds) || REQUEST_CLAUSE.test(core)) return null;
  // The user's own machine ("my laptop runs on port 3000") is not the project's setup.
  if (/^(my|your) (laptop|machine|computer|mac|pc|desktop|box|vm|terminal|shell)\b/.test(core)) {
    return null;
  }
  // A state of the moment ("it listens on 8080 now") or a pointer at the work ("the file is…").
  const moment = /\bnow\b/.test(l) && !/,\s*not\b/.test(l) || TASK_SUBJECT.test(core) ||
    /\b(is|are) (using|taking|consuming|eating|hitting|getting|running out)\b/.test(core) &&
      !/^we\b/.test(core);
  if (/\b(owns|owned by|maintains|maintained by|is the owner of|owner of)\b/.test(l)) {
    return hit("fact", "owner");
  }
  if (
    /\b(is|are) (responsible for|in charge of|on call for)\b/.test(l) ||
    /\b(is|are) (the|our) ([\w-]+ )?(tech lead|lead|owner|maintainer|point of contact|go-to person)\b/
        .test(l) && !/\b(this|that|the|my) (ticket|issue|pr|task|story|bug|incident)\b/.test(l) ||
    /\bask [A-Z][a-z]+ (about|for|before)\b/.test(s)
  ) return hit("fact", "owner");
  if (
    /\b(runs?|listens?|lives?|is|isn'?t|are|serves?|served)\b[^.]*\b(on|at) (port )?:?\d{2,5}\b/
      .test(l) &&
    /\b(port|\d{4,5})\b/.test(l) && !/\b(am|pm|utc)\b/.test(l) && !moment &&
    !/^(my|your|his|her)\b/.test(core)
  ) return hit("fact", "port");
  if (
    /\b(lives?|lands?|go(es)?|is|are|kept|stored|located|sits?)\b (in|at|under) [`'"]?(~?\/|\.\/|[a-z0-9]+:\/\/|[\w.-]+\/[\w.-])/
      .test(l) && !moment
  ) {
    return hit("fact", "path");
  }
  if (
    /\b(we run|is run|are run|runs|run it|run them|start it|started|deploy(ed)?|built)\b[^.]*\bwith `[^`]+`/
      .test(l)
  ) {
    return hit("fact", "command");
  }
  if (/\bruns (at|every|daily|nightly|hourly|weekly)\b/.test(l)) {
    return hit("fact", "schedule");
  }
  // "we're a pnpm shop"; "the default branch is develop".
  if (
    /^we'?re an? [\w.-]+ (shop|house)\b/.test(core) ||
    /^(the|our) default [\w -]+ (is|are) [\w.@/-]+/.test(core)
  ) return hit("fact", "setup-is");
  // "prod deploys happen on tuesdays", "we deploy twice a week": a recurring schedule.
  if (
    /\b(on (mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekdays|weekends)|(once|twice|three times) a (day|week|month)|every (monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|morning|night|sprint))\b/
      .test(l) &&
    !/\b(last|this|next|tomorrow|today)\b/.test(l) && !TASK_SUBJECT.test(core) &&
    !/^(i|i'?m|i am|my)\b/.test(core)
  ) return hit("fact", "schedule");
  // "our on-call rotation is in Opsgenie", "bugs go in Linear, not GitHub issues", "our docs
  // are written in mkdocs": where a thing of the setup is kept, by its name.
  if (
    (/\b(lives?|is kept|are kept|is|are|go(es)? (in|into|to)|is tracked|are tracked|(is|are) (shipped|sent|forwarded|exported|streamed|synced|mirrored|published) to) (in|on)? ?[A-Z][\w.-]+/
          .test(
            s.replace(/^\W*\w+/, ""),
          ) &&
        /^(the|our|[\w-]+s) /.test(core) &&
        /\b(lives?|kept|is in|are in|is on|are on|go(es)? (in|into|to)|tracked|shipped|sent|forwarded|exported|streamed|synced|mirrored|published)\b/
          .test(l) ||
      /^our [\w -]+ (is|are) (written|built|generated|deployed|hosted|kept|tracked|managed) (in|with|on|by) (?!(a|an|the)\b)[\w.-]+/
        .test(core)) && !moment
  ) return hit("fact", "setup-where");
  // "access tokens live 10 minutes", "backups are kept for 30 days": a lifetime of the setup.
  if (
    /\b(live|lives|last|lasts|expire|expires|(is|are) (valid|kept|retained|cached)) (for |after )?(\d+|a|one)[ -]?(ms|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b/
      .test(l) && !TASK_SUBJECT.test(core) && !/\b(my|mine)\b/.test(l)
  ) return hit("fact", "lifetime");
  if (/\breads? (it|the [\w ]+|[\w ]+) from [A-Z][A-Z0-9_]{3,}\b/.test(s)) {
    return hit("fact", "env-var");
  }
  return moment ? null : setupFact(s, l, core);
}

/**
 * What a setup noun is said to be names something ("is trunk, not main", "has two targets",
 * "runs on GitHub Actions"), rather than describing a state ("the cache is stale").
 */
export function namedPredicate(s: string): boolean {
  const [, verb, pred = ""] = s.replace(FILLER, "").split(/\b(is|are|has|have|runs on|uses)\b/);
  if (verb && !/^(is|are)$/.test(verb)) return !STATUS.test(pred);
  return /,\s*not \w+/.test(pred) || /^\s*(two|three|four|five|\d+)\b/i.test(pred) ||
    /^\s*[a-z0-9]+(?:[-_][a-z0-9]+)+\s*$/.test(pred) ||
    /^\s*(?:(?:the|a|an)\s+)?[A-Z][\w.-]*/.test(pred);
}

/**
 * A statement about the setup in the present tense ("the config lives in…", "we're on
 * Postgres 16", "the default branch is trunk"): a setup verb with a concrete detail, or a
 * setup noun described; never a report on the work at hand nor a request.
 */
export function setupFact(s: string, l: string, core: string): Match | null {
  const concrete = CONCRETE.test(s);
  if (
    concrete &&
    /\b(lives?|sits?|is|are|kept|stored|written|located|defined|configured|generated|deployed|hosted|published|served|built|pinned|set|named|called|paged|sent|routed|posted|alerted) (in|at|to|on|under|from|by|with|via|through|next to|alongside|inside|within|as)\b/
      .test(l)
  ) return hit("fact", "setup-where");
  if (
    concrete &&
    /\b[a-z]+s use\b|\b(runs?|run with|kicks? off|starts?|fires?|talks? to|connects? to|points? to|targets?|uses|we use|we're using|we are using|is on|are on|we're on|we are on|listens?|deploys?|deploy with|we deploy|expires? after|retries|is (limited|capped) (to|at)|calls? (the )?[\w -]+ (at|on|via)|builds?|posts? to|go(es)? (to|through)|look like|looks like)\b/
      .test(l)
  ) return hit("fact", "setup-verb");
  if (
    /^(the|our|all|prod|production|staging|dev)\b/.test(core) &&
    /^[^,]*\b(is|are|has|have|runs on|uses)\b/.test(core) &&
    (concrete || SETUP_NOUN.test(core) && namedPredicate(s))
  ) return hit("fact", "setup-is");
  return null;
}

/**
 * A plain statement introduced as something to keep ("fyi dbt has two targets", "for the record
 * atlantis runs as acme-atlantis", "heads up: prod deploys need Kofi's sign-off"), or null: not
 * a report on the work, a request, an intention or what the user did.
 */
export function notedOf(l: string, core: string): Match | null {
  if (!NOTED.test(l) || STATUS.test(l) || REQUEST_CLAUSE.test(core)) return null;
  if (/^(i|i'm|i am|i've|i have|i'll|we're going to|we'll)\b/.test(core)) return null;
  if (TASK_SUBJECT.test(core) || core.split(/\s+/).length < 3) return null;
  if (
    !/\b(is|are|has|have|runs?|uses?|goes|go|needs?|owns?|lives?|gets?|signs?|approves?|handles?|reviews?|talks?|lags?|sits?|points?|depends?|takes?|holds?|keeps?|stores?|sends?|calls?|reads?|writes?|means?|can|can'?t|cannot|doesn'?t|don'?t|isn'?t|aren'?t|won'?t)\b/
      .test(core)
  ) {
    return null;
  }
  return /\b(needs?|must|should|only|never|always|required)\b/.test(core)
    ? hit("rule", "noted")
    : hit("fact", "noted");
}
