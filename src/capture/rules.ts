/**
 * Rules and corrections ("always…", "never…", "from now on…", "use X, not Y") and preferences
 * ("I prefer…"): the first kinds classify.ts tries on a sentence.
 * @module
 */
import {
  GENERAL_PROJECT,
  hit,
  type Match,
  MEASURED,
  PAST,
  PERSONAL,
  REQUEST_CLAUSE,
  STATUS,
  TASK_SUBJECT,
  TRAILING_TASK,
} from "./markers.ts";

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
    /\buse [`'"\w@./-]+( [`'"\w@./-]+){0,3},? (not|instead of|rather than) [`'"\w@./-]+/.test(l) ||
    // "use ISO 8601 dates in the API, not epoch seconds": the instruction opens the sentence.
    /^(please )?(always )?use [`'"\w@./-]+( [`'"\w@./-]+){0,5}, (not|instead of|rather than) [`'"\w@./-]+/
      .test(core)
  ) return hit("rule", "use-x-not-y");
  if (
    /^no [a-z-]+ing\b/.test(core) || /^no (hand-written|handwritten|manual)\b/.test(core) ||
    /^no [a-z-]+( [a-z-]+)?,? ever\b(?! since)/.test(core) &&
      !/^no (errors?|luck|issues?|problems?|warnings?)\b/.test(core)
  ) {
    return hit("rule", "no-doing");
  }
  // "no emoji in commit messages", "no moment.js here", "no goto, no eval": a ban, not a status
  // ("no errors now", "no luck").
  if (
    (/^no [a-z][\w.@/-]*( [\w.-]+){2,}/.test(core) || /^no [a-z][\w.@/-]*, no [a-z]/.test(core) ||
      /^no [a-z][\w.@/-]*( [\w.@/-]+)?,? (here|anywhere|ever|in (this|our|the) (repo|repository|project|codebase|service|app))\b/
        .test(core)) &&
    !/\bnow\b/.test(core) &&
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
  // "every host lives under hosts/<name>/", "each module begins with `use strict`", "every
  // handler that writes to the db gets a transaction": a thing of every kind (with what narrows
  // it: "that…", "with…", "in…") and a verb in the present, whatever the verb; not what happens
  // to each ("every test fails on arm", "each run takes 10 minutes": a report, a measurement).
  if (
    /^(in (this|the|our) [\w-]+,? )?(every|each) (?!(of|time|day|week|night|morning|one|single|other|so often)\b)[\w/.`-]+( (?![a-z]+s\b)[\w/.`-]+){0,2}( (that|which|who|with|in|under|on|for|from) [^,;]{1,60}?)? (?!(is|was|has)\b)[a-z]{2,}s\b/
      .test(core) &&
    !/\b(fails|breaks|crash(es)?|hangs|returns|shows|seems|looks|happens|takes|costs|lasts|flakes|errors|works|passes|loads|throws|succeeds|stalls|leaks|triggers|times out)\b/
      .test(core) &&
    !STATUS.test(l) && !/\b(now|fine|ok|okay|green|red|there)\b/.test(l) &&
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
  if (
    STAYS.test(core) && !STATUS.test(core) && !TASK_SUBJECT.test(core) && !MEASURED.test(core)
  ) {
    return hit("rule", "stays");
  }
  return null;
}

/**
 * A setting or a part of the project that stays as it is (since 0.21): "tick rate stays 30hz",
 * "Hibernate's ddl-auto stays on validate in every profile", "compatibility_date stays at
 * 2024-09-23 until we've tested…", "controllers stay thin, logic in services", "spec stays only in
 * the code that already uses it". A noun subject (not "it", "this", a person, "my …"), "stay(s)"
 * in the present with no "always", "still" or modal before it, and what it stays: a value, a
 * place, a setting; not a state of the moment ("the page stays blank", "the pin stays high", "the
 * container stays up") nor a question of whether it stays ("…whether it stays").
 */
const STAYS =
  /^(?:so |and |but )?(?!(?:it|its|this|that|these|those|there|he|she|they|i|you|we|my|your|whether|if)\b)(?:the |our |all |every )?[\w.'`-]+(?: [\w.'`-]+){0,3} stays? (?!(?:up|down|open|blank|empty|stuck|red|green|high|low|there|around|alive|awake|asleep|on screen|visible|hidden|the same|put|silent|quiet|frozen|grey|gray|white|black|dark|busy|idle|cold|hot|warm|slow|fast|broken|unchanged)\b)(?:on |at |in |off |out of |under |inside |with |pinned|fixed|thin|free of |the |only |as |[\d`"'])/;

/**
 * An intro that says what follows is the user's own way of working, for every project: "in
 * general, for me:", "for me generally:", "a personal thing, across all my repos:", "two things
 * for all our chats:", "for every project:" (since 0.21). Group 1 is what follows its colon.
 */
export const PERSONAL_INTRO =
  /^(?:(?:in general|generally|for me|personally|a personal thing|one personal thing|some prefs? of mine|(?:one|two|three|a few|some) (?:general |personal )?things? (?:about (?:me|how i (?:like to )?work)|for (?:me|all (?:our|my) (?:chats|projects|repos)))|across (?:all )?my (?:repos|projects)|in (?:all|every one of) my (?:repos|projects)|for (?:all|every) (?:my |our )?(?:projects?|repos?|chats?))[\s,]*)+:\s*(.+)$/;
/** What a {@link PERSONAL_INTRO} introduces: an instruction or a preference, not a report. */
const PERSONAL_ASK =
  /^(?:please )?(?:keep|write|explain|answer|reply|use|show|give|ask|don'?t|do not|never|always|no|avoid|prefer|put|print|stick|i (?:prefer|like|want|'d rather))\b/;

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
  // "in general, for me: keep answers short…", "a personal thing, across all my repos: write…":
  // what follows an intro about the user's own way of working, when it says what to do.
  const intro = core.match(PERSONAL_INTRO);
  if (intro && PERSONAL_ASK.test(intro[1]) && !STATUS.test(intro[1])) {
    return hit("feedback", "personal-intro");
  }
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
