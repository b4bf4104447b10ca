/**
 * What the offline extractor's sentence classification (classify.ts) reads in a sentence: its
 * spelling and wording, questions, one-off instructions, hedges and hypotheses, the scope words
 * (general, personal, the project's), requests and reports on the work, concrete details of the
 * setup, rule markers, quoted and reported rules, and descriptions of how things behave.
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
export const INVERTED =
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

/**
 * A time or the end of a piece of work that something holds until ("until Friday", "till the
 * 3rd", "until next sprint", "until the end of the week", "until 2026-12-01", "until the
 * migration is done", "until the stack is back"): a deadline, so what holds until then is
 * temporary. Not a condition that recurs ("never merge until CI is green", "don't deploy until
 * the DBA signs off": each merge, each deploy) nor a release or a milestone the project pins
 * for ("stays on 4.3 until the game ships", "no Swift 6 until Vapor 5": the benchmark's labels
 * keep those as durable).
 */
const UNTIL_TIME = String
  .raw`(?:up )?(?:until|till|'?til)\s+(?:(?:after|the end of|end of)\s+)?(?:(?:this|next|the|coming)\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:up )?(?:until|till|'?til)\s+(?:after\s+)?(?:tomorrow|tonight|today|eod|eow|cob|the weekend|(?:the )?end of (?:the |this |next )?(?:day|week|month|sprint|quarter|year)|(?:this|next|the next) (?:week|month|sprint|quarter|year|weekend|release train)|the (?:\d{1,2}(?:st|nd|rd|th))(?: of \w+)?|\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?|(?:the|this|our) (?:migration|refactor|rewrite|incident|outage|freeze|code freeze|cutover|rollout|upgrade|move|port|switch|investigation|cluster|backfill|demo|launch) (?:is|are|has|'s) (?:done|over|finished|complete|completed|back|fixed|merged|sorted|resolved|through|up))`;

/** `re` or a deadline ({@link UNTIL_TIME}). */
function withUntil(re: RegExp): RegExp {
  return new RegExp(`(?<![\\w'])(?:${UNTIL_TIME})(?!\\w)|${re.source}`, re.flags);
}

/** Marks of a one-off instruction (and, since 0.21, a deadline: {@link UNTIL_TIME}). */
export const ONE_OFF = withUntil(
  /\b(this time|for now|for this(?! (repo|repository|project|codebase|service|app|team|tool|package|module|library|cli|pipeline|monorepo|job)\b)|throwaway|a spike|quick spike|quick hack|for the (demo|spike|prototype|poc)|this one|for this (pr|pull request|branch|commit|change|ticket|task|release|run)|just this once|this once|for the moment|temporarily|right now|later|after lunch|another day|tomorrow|tonight|today|this week|this session|for today|yet|in this (pr|pull request|branch|commit)|this (afternoon|morning|evening|sprint|month|quarter)|next (week|month|sprint))\b/i,
);

/**
 * A scope of the work at hand ("for this change", "in this sweep", "during this migration",
 * "this time", "for now"): a rule said within it ("for this repro always spawn at 0,0") holds
 * for the task only, whatever its marker ("always", "never"). Not a standing thing ("in this
 * repo", "for this service") nor a reason ("for this reason").
 */
export const SCOPED = withUntil(
  /\b(this time|for now|just this once|this once|for the moment|until (i|we|you) (say|tell|confirm|decide|review|check|look|get back|am back|'m back)|until (tomorrow|later|then|further notice|the review|it'?s (merged|reviewed|fixed|done))|(in|for|on|to|from|within) that (file|files|function|functions|method|class|diff|pr|branch|commit|line|lines|test|tests|component|page|query|script|snippet|change|changes|bug|ticket|issue|one|case|step|cell|notebook|folder)|(for|in|during|within|throughout) this (?!(repo|repository|project|codebase|code|service|app|team|tool|package|module|library|lib|cli|pipeline|monorepo|job|file|folder|directory|dir|crate|workspace|company|org|organi[sz]ation|house|stack|shop|world|language|setup|environment|cluster|account|reason|purpose|way|kind|type|sort|domain|layer|table|schema|api|system|product|dataset|data set|model|framework|office)\b)[a-z]+)\b/i,
);

/**
 * A don't about how to do the task at hand (since 0.22): the user tells how to do "it", the
 * thing asked for, not what holds for good ("don't new up a buffer inside processBlock for it —
 * size it in prepareToPlay", "don't hand-build a stack navigator for it", "please don't fix it by
 * having the bar dig into the battle scene"). A rule said this way is one the user restates for
 * the request; on the seen splits each was the repeat of a stored memory (holdout10, 11, 12).
 * Not a standing scope ("for this repo") nor a pronoun of a statement ("you always need
 * AWS_PROFILE=infra for it": no don't), nor a don't that says it holds for good ("don't use sudo
 * for that, ever", "… date-fns everywhere", "don't use npm for it, we use pnpm in this repo",
 * "… money is always stored as cents") or names a kind of case ("for that kind of parsing").
 */
export const DONT_AT_HAND =
  /^(?!.*\b(?:ever|always|never|everywhere|anywhere|from now on|going forward|in this (?:repo|repository|project|codebase)|across the (?:repo|repository|project|codebase|board))\b)(?:please\s+)?(?:don'?t|do not)\b[^.;:!?—–]*?(?:\bfor (?:it|that)\b(?! (?:is|are|was|to|kind|sort|type|matter)\b)|\b(?:fix|do|solve|handle|implement|build) (?:it|that|this) by\b)/i;

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

/**
 * The setup as it is since a change: a value of the setup (a version, a port, a host, a name)
 * with "now" after it ("we're on godot 4.3 now", "the grpc server listens on 9090 now", "app is on
 * 8085 locally now", "minimum is R2024a now"). Its "now" is the setup from now on, not a state of
 * the moment; on the seen splits every such sentence is durable (holdout6, 8, 9, 10, 11, 12).
 * Not "for now" / "and now …" (what follows is a one-off or a report: "we upgraded to node 20
 * and now the build fails"), a bare release ("staging is on v2.3.1 now"), a page or a step ("we're
 * on page 3 now"), a preposition as the name ("we're in 2D now"), a measurement ("the CPU is at
 * 95% now", "memory is 3GB now", "the queue is at 5000 now": no "at", no unit of a size, a time
 * or a count after the number, spelled out too: "40 gigs", "2.3 megabytes"; no fraction right
 * after the verb, a score or a rate: "the accuracy is 0.91 now"); the thing at hand as the
 * subject ("it listens on 8080 now") is left to `TASK_SUBJECT`. Each part is bounded (60
 * characters), so a long pasted token cannot make it backtrack (unbounded, one of 8,000
 * characters after "set it to" took 73 s). @since 0.22
 */
export const SETUP_NOW =
  /\b(?:on|to|is|are|'s|'re|runs|listens on|lives on|moved to)\s+(?!(?:page|step|line|row|day|week|attempt|try|round|v)\s*\d|0?\.\d)(?:(?!(?:in|at|on|to|of|for|with|by|the|a|an|and|or)\s)[a-z][\w@#+.-]{0,60}\s+){0,2}(?![\d.,]+\s*(?:%|percent|[kmgt]i?b|(?:kilo|mega|giga|tera)?bytes?|gigs?|megs?|ms|s|secs?|seconds?|mins?|minutes?|hours?|h|rps|qps|requests?|errors?|items?|rows?|tests?|users?|connections?|messages?|jobs?|failures?|failing)\b)[\w@#+-]{0,60}[\w.@/#:+-]{0,60}?\d[\w.:,x~+-]{0,60}(?:\s+(?!(?:for|and|but|until|till|so|right|just|then|or)\b)[\w.-]{1,60})?,?\s+now\b(?!\s+(?:on|that)\b)/;

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

/**
 * A measurement or an observation of how a thing behaves, not a setting (since 0.21): a load in
 * percent ("the container stays at 100% CPU", "memory stays above 90%"), a length of time it
 * lasts ("the CPU stays at 100% for an hour", "stays pegged all night"), or a word of load
 * ("pegged", "maxed out", "spiking"). "the pool size stays at 20", "tick rate stays 30hz",
 * "coverage stays at 100%" (a target, no load word) are settings.
 */
export const MEASURED =
  /\b(cpu|gpu|memory|mem|ram|heap|load|usage|utili[sz]ation|latency|temperature|temp|battery|disk|swap|bandwidth|throughput|fps|p\d{2})\b[^.;]*\b\d+(\.\d+)? ?%|\b\d+(\.\d+)? ?% ?(cpu|gpu|memory|mem|ram|load|usage|utili[sz]ation|disk|swap)\b|\bfor (an?|one|two|three|several|a few|\d+) (seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|while)\b|\b(all (day|night|morning|afternoon)|overnight|for ages|forever)\b|\b(pegged|maxed( out)?|spiking|spikes?|climbing|at capacity)\b/i;

/** Nouns of a setup that a fact states ("the default branch is…", "the timezone is…"). */
export const SETUP_NOUN =
  /\b(branch|cluster|region|timezone|time zone|port|host|url|domain|database|db|schema|bucket|registry|namespace|config|configuration|environment|staging|prod|production|target|targets|msrv|version|runtime|image|ci|runners?|service account|package manager|linter|formatter|test runner|toolchain|dags?|cron|queue|broker|cache|backups?|deploys?|releases?|monorepo|workspace)\b/i;

/** Words that make a sentence a rule. */
export const RULE_MARKER =
  /\b(always|never|must|mustn'?t|don'?t|do not|from now on|going forward|should|avoid|only)\b/i;
/** Words that frame a quote as our own rule ("the rule here is 'never…'"). */
export const OWN_RULE = /\b(rule|convention|policy|guideline|house style|standard)\b/i;
/**
 * Words that report what someone or something else said (a post, a README, a lint rule, an
 * error message): a rule in the quote they frame is not the user's.
 */
export const REPORTED =
  /\b(wrote|writes|written|says|said|saying|read|reads|claims?|claiming|suggests?|suggesting|recommends?|recommending|according to|posts?|article|blog|tweet|thread|comments?|messages?|prints?|printed|errors?|warnings?|fails?|failed|failing|complains?|told me|tells me|copy|copied|paste|pasted|quote|quoted)\b/i;
/** Quoted text: in double quotes, or in single quotes (apostrophes inside words kept). */
export const QUOTED = [
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

/**
 * Someone else's words reported ("my manager says no latest tags", "the agent said to use
 * rebase", "my colleague thinks we should squash", "no emoji, my colleague says", "according to
 * Sam, …"): a quote or an opinion, not the user's own rule (since 0.21). Not what the user or the
 * team says ("like I said", "as we said"), a report of what the team does ("Marta told me we use
 * Hilt", "my lead says we always squash": the team's practice), a reported decision ("the team
 * lead decided: squash merges only", "my supervisor insists on British spelling": not a verb of
 * saying here), nor a report the user adopts ("my manager says no latest tags, so let's do that
 * from now on", "…, and I agree").
 */
const SAYING = String
  .raw`(?:says|said|thinks|thought|reckons|feels|believes|suggests|suggested|recommends|recommended|claims|claimed|keeps saying|told (?:me|us)|tells (?:me|us))`;
const REPORT_OPENS = new RegExp(
  String
    .raw`^(?:(?:so|and|but|also|oh|btw|fyi|personally|apparently)\W+)*(?!(?:i|we|like|as)\b)(?:(?:my|our|the|a|one|some|this|that) )?[\w'-]+(?: \([^)]*\))?(?: [\w'-]+){0,2} ${SAYING}\b(?!,? (?:that )?(?:we|our team|the team|here we|in this (?:repo|project|team))\b)`,
);
const REPORT_TRAILS = new RegExp(
  String
    .raw`(?:,|\s[-—–])\s*(?:at least )?(?:according to [\w' .-]{1,30}|(?!(?:i|we|like|as)\b)(?:(?:my|our|the|a|one|some) )?[\w'.-]+(?: [\w'.-]+){0,2} ${SAYING}|${SAYING} [\w' .-]{1,30})\s*[.!]*$`,
);
/** A report the user takes as their own: "so let's do that", "and I agree", "from now on". */
const ADOPTED =
  /\b(so let'?s|let'?s (do|go with|follow|stick)|i agree|agreed|and so do we|so do we|we'?ll (do|follow|go with)|from now on|going forward|and (that'?s|it'?s) (the|our) (rule|convention|policy)|so (do|follow|stick|use)|i want that)\b/;

/** Whether `l` (lower case) reports what someone else says or thinks (see {@link SAYING}). */
export function reportedSpeech(l: string): boolean {
  return (REPORT_OPENS.test(l) || REPORT_TRAILS.test(l)) && !ADOPTED.test(l);
}

/** Past forms of common irregular verbs ("never got", "never wrote"): a report, not a rule. */
export const PAST =
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
  // A state of a thing ("the cache is always cold after a deploy", "the queue is always empty
  // on mondays"): an adjective of a state after "is always", not a rule ("amounts are always
  // integer cents", "notifications are always `critical`").
  if (
    /\b(is|are|was|were|'s|'re|gets?|stays?|seems?|looks?) (always|never) (a bit |so |really |pretty |very |kind of )?(cold|warm|hot|empty|full|slow|fast|quick|green|red|yellow|busy|idle|stale|late|early|flaky|noisy|quiet|outdated|behind|dirty|clean|locked|offline|online|crowded|weird|broken|fine|ok|okay|expired|huge|big|small|high|low|missing|stuck|unavailable|available|down|up|loud|laggy|sluggish|unstable|overloaded|packed|hidden|visible|wrong|right|out of date|out of sync|in sync)\b/
      .test(l)
  ) return true;
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
