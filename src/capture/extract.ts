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
 * @module
 */
import { overlap } from "./dedupe.ts";
import { findSecretsSync, MARKER, replaceSecrets } from "../domain/secrets.ts";
import type { Turn } from "./transcript.ts";

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

/** Longest sentence considered (longer ones are rarely one durable statement). */
const MAX_SENTENCE = 400;

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
  return out.flatMap((s) => splitClauses(s, listed)).map((s) =>
    s.replace(/^\s*([-*•]|\d+[.)])\s+/, "").trim()
  ).filter((s) => s.length > 0);
}

/**
 * Clauses of one sentence that are separate statements: a request tacked on ("…, can you
 * split it?"), and the items of a list of rules ("ground rules: do A, and don't B").
 */
function splitClauses(s: string, listed?: Set<string>): string[] {
  const parts = s.split(/,\s+(?=(?:can|could|would|will) you\b)/i);
  const out: string[] = [];
  for (const p of parts) {
    const m = p.match(/^([^:]*\b(?:rules?|preferences?)\b[^:]*):\s*(.+)$/i);
    // "that's a general rule: …" says the sentence before is a rule: one statement with it.
    if (!m || /^\W*that'?s\b/i.test(m[1])) {
      out.push(p);
      continue;
    }
    const items = m[2].split(
      /,\s*(?:and\s+)?|;\s*|\s+and\s+(?=(?:don'?t|do not|never|always|use|write|keep)\b)/i,
    )
      .filter((x) => x.trim());
    const general = GENERAL_GLOBAL.test(m[1]) ? " (in general)" : "";
    for (const it of items) {
      out.push(it.trim() + general);
      listed?.add(it.trim() + general);
    }
  }
  return out;
}

/** Leading words that carry nothing ("ok.", "btw", "and", "also", "reminder:"). */
const FILLER =
  /^(?:(?:(?:ok(?:ay)?|k|yeah|yes|yep|right|no|nope|stop|hmm|well|agreed|good|great|thanks|cool)\b[,.!:;-]+|(?:so|and|also|oh|btw|by the way|again|plus|but|fyi|note|reminder|for the record|important)\b[,.!:;-]*)\s*)+/i;

/** Clean a sentence into a memory's wording. */
function wording(s: string): string {
  let t = s.replace(FILLER, "").trim();
  t = t.replace(/\s+/g, " ").replace(/[\s,;:]+$/, "");
  if (!/[.!?`)]$/.test(t)) t += "";
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** A question (to the agent or rhetorical): not a memory. */
function isQuestion(s: string): boolean {
  if (/\?\s*$/.test(s)) return true;
  // "when you add an endpoint, add it to the spec": a condition, not a question.
  if (/^(when|whenever)\b[^,]+,/i.test(s.replace(FILLER, "").trim())) return false;
  return /^(what|why|how|where|when|who|which|is|are|does|do|did|can|could|would|should|will)\b[^.!]*$/i
    .test(s.replace(FILLER, "").trim()) && !/\b(always|never)\b/i.test(s);
}

/** Marks of a one-off instruction. */
const ONE_OFF =
  /\b(this time|for now|for this (pr|pull request|branch|commit|change|ticket|task|release|run)|just this once|this once|for the moment|temporarily|right now|later|after lunch|another day|tomorrow|tonight|today|this week|this session|for today|yet|in this (pr|pull request|branch|commit)|this (afternoon|morning|evening|sprint))\b/i;

/** Marks of a hypothesis or a doubt. */
const HYPOTHESIS =
  /\b(maybe|might|perhaps|probably|possibly|i think|i guess|i suspect|i assume|not sure|could be|i wonder|seems|looks like|presumably|i believe)\b/i;

/** Generalisers: the previous sentence holds for good (and for everything: global). */
const GENERAL_GLOBAL =
  /\b(that goes for everything|for everything|not just (this|the) (repo|project)|everywhere|in all (my )?(repos|projects)|all my projects|working with me|in general)\b/i;
const GENERAL_PROJECT = /\b(general rule|ground rule|as a rule|that's a rule|for this project)\b/i;

/** Words of a personal preference (global unless the sentence names the project). */
const PERSONAL =
  /\b(i prefer|i'd rather|i would rather|i like (it )?when|my preference|i want you to always|i don't like|i hate)\b/i;
/** Words naming the project: a preference with them stays in the project. */
const PROJECT_WORDS = /\b(this (repo|repository|project|service|codebase|app)|in here|here)\b/i;

interface Match {
  type: CandidateType;
  rule: string;
  confidence: number;
}

/** Marks of a report on the work at hand (a failure, what happened): not a fact of the setup. */
const STATUS =
  /\b(fail(s|ed|ing)?|broken|errors?|crash(es|ed)?|bug|wrong|flaky|slow|blew up|missing|stuck|timed? ?out|returns? (a )?\d{3}|shows|ran|happened|yesterday|last (night|week)|again|still|attached|here'?s|pasted|doesn'?t work|isn'?t working|can'?t|cannot|keeps|times? out|on ci|right now|currently|i'?ll|i will|myself)\b/i;

/** Subjects that point at the work at hand ("the file is…", "the ticket is…"), not the setup. */
const TASK_SUBJECT =
  /^(it|its|this|that)\b|^(the|this|that|my|your) (file|ticket|issue|pr|pull request|branch|commit|bug|error|test|page|function|method|class|line|output|result|diff|change|fix|task|story|customer|deadline|plan|query|script|link|screenshot|logs?|new [\w-]+)\b/i;

/** A clause that asks for work ("…, make it handle leap years"): the sentence is a request. */
const REQUEST_CLAUSE =
  /(^|[,;:]\s+|\band\s+)(please\s+)?(add|fix|make|run|check|kill|open|create|write|update|rename|delete|remove|move|change|try|look|find|show|tell|give|explain|rerun|bump|implement|refactor|commit|push|merge|revert|apply|install|set|put|restart|build|debug|investigate|help|go ahead|do it|let'?s|deploy|point|send|ship|copy|upload|download|migrate|generate|regenerate|review|profile)\b(?! (sure|certain)\b)/i;

/**
 * A concrete detail of a setup: code in backquotes, a path, a URL, a file name, a port, a
 * version, an e-mail address, an environment variable, a host- or region-like name, a time.
 */
const CONCRETE = new RegExp(
  [
    "`[^`]+`",
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
const SETUP_NOUN =
  /\b(branch|cluster|region|timezone|time zone|port|host|url|domain|database|db|schema|bucket|registry|namespace|config|configuration|environment|staging|prod|production|target|targets|msrv|version|runtime|image|ci|runners?|service account|package manager|linter|formatter|test runner|toolchain|dags?|cron|queue|broker|cache|backups?|deploys?|releases?|monorepo|workspace)\b/i;

/** The durable kind of a sentence, or null. */
export function classify(s: string): Match | null {
  const l = s.toLowerCase();
  if (l.length > MAX_SENTENCE) return null;
  if (isQuestion(s)) return null;
  if (ONE_OFF.test(l) && !/\b(from now on|always|never|going forward)\b/.test(l)) return null;
  if (ONE_OFF.test(l) && /\b(this time|for now|for this pr|just this once)\b/.test(l)) return null;
  if (HYPOTHESIS.test(l)) return null;
  const core = l.replace(FILLER, "").trim();
  return ruleOf(l, core, s) ?? preferenceOf(l, core) ?? decisionOf(l) ?? factOf(s, l, core);
}

/** A rule or correction ("always…", "never…", "from now on…", "use X, not Y"), or null. */
function ruleOf(l: string, core: string, s: string): Match | null {
  // Rules and corrections.
  if (/\b(from now on|going forward|from here on|in (the )?future|henceforth)\b/.test(l)) {
    return { type: "rule", rule: "from-now-on", confidence: 0.9 };
  }
  if (/\b(don'?t|do not|never) ever\b|\bnever\b/.test(l) && !/\bnever mind\b/.test(l)) {
    return { type: "rule", rule: "never", confidence: 0.85 };
  }
  if (/\balways\b/.test(l) && !/\bnot always\b/.test(l)) {
    if (/\b(runs?|listens?|lives?|is|are)\b[^.]*\b(on|at) (port )?\d{2,5}\b/.test(l)) {
      return { type: "fact", rule: "always-fact", confidence: 0.8 };
    }
    return { type: "rule", rule: "always", confidence: 0.85 };
  }
  if (/^(please )?(don'?t|do not)\b/.test(core) && !/\b(worry|bother|forget|need)\b/.test(core)) {
    return { type: "rule", rule: "dont", confidence: 0.75 };
  }
  if (
    /\buse [`'"\w@./-]+( v?\d[\w.]*)?,? (not|instead of|rather than|over) [`'"\w@./-]+/.test(l) ||
    /\buse [`'"\w@./-]+( [`'"\w@./-]+){0,3},? (not|instead of|rather than) [`'"\w@./-]+/.test(l)
  ) return { type: "rule", rule: "use-x-not-y", confidence: 0.85 };
  if (/^no [a-z-]+ing\b/.test(core) || /^no (hand-written|handwritten|manual)\b/.test(core)) {
    return { type: "rule", rule: "no-doing", confidence: 0.75 };
  }
  // "no emoji in commit messages": a ban, not a status ("no errors now", "no luck").
  if (
    /^no [a-z-]+( [\w.-]+){2,}/.test(core) && !/\bnow\b/.test(core) &&
    !/^no (errors?|luck|worries|problem|idea|change|changes|difference|output|response|rush|need|thanks|way|clue|issues?|warnings?|longer|more|matter|one|doubt)\b/
      .test(core)
  ) return { type: "rule", rule: "no-thing", confidence: 0.7 };
  if (/\b(every|each|all) [\w-]+( [\w-]+){0,2} (needs?|must|has to|have to|should)\b/.test(l)) {
    return { type: "rule", rule: "every-needs", confidence: 0.75 };
  }
  // "…must (not) …" as a rule; "it must be the proxy", "we must have missed" are guesses.
  if (
    /\b(must|mustn'?t)\b/.test(l) &&
    !/\bmust (not )?(be (the|a|an|it|that|wrong|broken|why|because|from|related|caused)|have)\b/
      .test(l) &&
    !/^(that|it|this|there) must\b/.test(core)
  ) return { type: "rule", rule: "must", confidence: 0.75 };
  if (
    /^(we|you) (don'?t|do not) (?!know|need|have|see|get|understand|want|care|think|mind|remember|use it\b)\w+/
      .test(core)
  ) return { type: "rule", rule: "we-dont", confidence: 0.7 };
  // Habits of the team: "we squash-merge PRs", "we tag releases as vX.Y.Z".
  if (
    /^(we|our team) (usually |normally |generally )?(squash|squash-merge|rebase|tag|version|name|prefix|pin|vendor|partition|publish|review|pair)\b/
      .test(core) &&
    !STATUS.test(l) && !/\b(it|this|that)\b/.test(core.split(/\s+/).slice(2, 4).join(" "))
  ) return { type: "rule", rule: "we-habit", confidence: 0.65 };
  // A convention said for the whole project: "in this repo, name tests after the module".
  if (
    /\b(in|across) (this|the whole|our|the) (repo|repository|project|codebase|service|monorepo|frontend|backend)\b(?!')/
      .test(l) &&
    /^(?:in (?:this|the whole|our|the) [\w-]+,? )?(use|write|name|prefix|put|place|format|indent|wrap|declare|import|export|log|pass|store|mark|document|comment|keep)\b(?! (a|an|it|this|that|these|the new)\b)/
      .test(core) &&
    !STATUS.test(l)
  ) return { type: "rule", rule: "project-convention", confidence: 0.65 };
  if (/^(avoid|prefer|stick (to|with)|only use|use only)\b/.test(core)) {
    return { type: "rule", rule: "avoid-prefer", confidence: 0.7 };
  }
  if (/^stop [a-z]+ing\b/.test(core)) return { type: "rule", rule: "stop-doing", confidence: 0.7 };
  if (
    /\b(is|are) (not allowed|forbidden|banned|not permitted|off limits|not an option)\b/.test(l)
  ) return { type: "rule", rule: "not-allowed", confidence: 0.75 };
  if (
    /\b(the|our) (convention|rule|house style)( here)? is\b|\bby convention\b/.test(l) ||
    /\bfollows? (the )?([\w-]+ ){0,3}(conventions?|style|style guide|guidelines|semver|semantic versioning|conventional commits)\b/
      .test(l)
  ) {
    return { type: "rule", rule: "convention", confidence: 0.75 };
  }
  // Recurring work: "whenever you touch…", "before every commit", "when you add an endpoint…".
  if (
    /^(whenever|every time|each time|any time) (you|we)\b/.test(core) ||
    /^when (you|we) (add|touch|change|write|create|edit|modify|bump|release|deploy|name|open|review|rename)\b/
      .test(core) ||
    /\b(before|after|on|with) (every|each) (commit|push|pr|pull request|release|deploy|merge|change)\b/
      .test(l)
  ) return { type: "rule", rule: "recurring", confidence: 0.7 };
  if (/\b(is|are) \w+ (from|by|in|on|through|via)\b.*\bonly\b|\bonly (through|via)\b/.test(l)) {
    return { type: "rule", rule: "only-via", confidence: 0.7 };
  }
  if (GENERAL_PROJECT.test(l) && /:/.test(s)) {
    return { type: "rule", rule: "general-rule", confidence: 0.8 };
  }
  return null;
}

/** A personal preference, or null. */
function preferenceOf(l: string, core: string): Match | null {
  // Preferences.
  if (PERSONAL.test(l)) return { type: "feedback", rule: "preference", confidence: 0.8 };
  if (
    /\bi (really )?(like|love|dislike|can'?t stand)\b|\bi'?m (not )?a (big |huge )?fan of\b|\bi'?d prefer\b/
      .test(l) ||
    /^(please )?keep (answers|replies|responses|diffs|commits|prs|pull requests|messages|explanations|summaries|it) \w+/
      .test(core)
  ) return { type: "feedback", rule: "preference", confidence: 0.7 };
  return null;
}

/** A decision with its reason, or null. */
function decisionOf(l: string): Match | null {
  // Decisions.
  if (
    /\bwe('ve| have)? (chose|chosen|decided|picked|went with|settled on|standardi[sz]ed on)\b/
      .test(l) ||
    /\bwe('re| are) (going with|standardi[sz]ing on|moving to)\b/.test(l) ||
    /\b(the|our) decision (is|was)\b/.test(l)
  ) return { type: "decision", rule: "we-chose", confidence: 0.85 };
  if (
    (/\blet'?s (go with|use|stick with|pick)\b/.test(l) ||
      /\bwe('ll| will|'re| are) (use|go with|stick with|keep|switching|migrating|moving)\b/.test(
        l,
      )) &&
    /\b(because|since|so that)\b/.test(l)
  ) {
    return { type: "decision", rule: "lets-because", confidence: 0.8 };
  }
  return null;
}

/** A fact about the setup the user states, or null (never in a report on the work at hand). */
function factOf(s: string, l: string, core: string): Match | null {
  // Facts about the setup (never in a report on the work at hand, nor in a request).
  if (STATUS.test(l) || REQUEST_CLAUSE.test(core)) return null;
  // A state of the moment ("it listens on 8080 now") or a pointer at the work ("the file is…").
  const moment = /\bnow\b/.test(l) && !/,\s*not\b/.test(l) || TASK_SUBJECT.test(core);
  if (/\b(owns|owned by|maintains|maintained by|is the owner of|owner of)\b/.test(l)) {
    return { type: "fact", rule: "owner", confidence: 0.75 };
  }
  if (
    /\b(is|are) (responsible for|in charge of|on call for)\b/.test(l) ||
    /\bask [A-Z][a-z]+ (about|for|before)\b/.test(s)
  ) return { type: "fact", rule: "owner", confidence: 0.7 };
  if (
    /\b(runs?|listens?|lives?|is|isn'?t|are|serves?|served)\b[^.]*\b(on|at) (port )?:?\d{2,5}\b/
      .test(l) && /\b(port|\d{4,5})\b/.test(l) && !/\b(am|pm|utc)\b/.test(l) && !moment
  ) return { type: "fact", rule: "port", confidence: 0.75 };
  if (
    /\b(lives?|lands?|go(es)?|is|are|kept|stored|located|sits?)\b (in|at|under) [`'"]?(~?\/|\.\/|[a-z0-9]+:\/\/|[\w.-]+\/[\w.-])/
      .test(l) && !moment
  ) {
    return { type: "fact", rule: "path", confidence: 0.7 };
  }
  if (
    /\b(we run|is run|are run|runs|run it|run them|start it|started|deploy(ed)?|built)\b[^.]*\bwith `[^`]+`/
      .test(l)
  ) {
    return { type: "fact", rule: "command", confidence: 0.75 };
  }
  if (/\bruns (at|every|daily|nightly|hourly|weekly)\b/.test(l)) {
    return { type: "fact", rule: "schedule", confidence: 0.7 };
  }
  if (/\breads? (it|the [\w ]+|[\w ]+) from [A-Z][A-Z0-9_]{3,}\b/.test(s)) {
    return { type: "fact", rule: "env-var", confidence: 0.7 };
  }
  return moment ? null : setupFact(s, l, core);
}

/**
 * What a setup noun is said to be names something ("is trunk, not main", "has two targets",
 * "runs on GitHub Actions"), rather than describing a state ("the cache is stale").
 */
function namedPredicate(s: string): boolean {
  const [, verb, pred = ""] = s.replace(FILLER, "").split(/\b(is|are|has|have|runs on|uses)\b/);
  if (verb && !/^(is|are)$/.test(verb)) return !STATUS.test(pred);
  return /,\s*not \w+/.test(pred) || /^\s*(two|three|four|five|\d+)\b/i.test(pred) ||
    /^\s*(?:(?:the|a|an)\s+)?[A-Z][\w.-]*/.test(pred);
}

/**
 * A statement about the setup in the present tense ("the config lives in…", "we're on
 * Postgres 16", "the default branch is trunk"): a setup verb with a concrete detail, or a
 * setup noun described; never a report on the work at hand nor a request.
 */
function setupFact(s: string, l: string, core: string): Match | null {
  const concrete = CONCRETE.test(s);
  if (
    concrete &&
    /\b(lives?|sits?|is|are|kept|stored|written|located|defined|configured|generated|deployed|hosted|published|served|built|pinned|set|named|called) (in|at|to|on|under|from|by|with|via|next to|alongside|inside|within|as)\b/
      .test(l)
  ) return { type: "fact", rule: "setup-where", confidence: 0.7 };
  if (
    concrete &&
    /\b(runs?|run with|kicks? off|starts?|fires?|talks? to|connects? to|points? to|targets?|uses|we use|we're using|we are using|is on|are on|we're on|we are on|listens?|deploys?|deploy with|we deploy|expires? after|retries|is (limited|capped) (to|at))\b/
      .test(l)
  ) return { type: "fact", rule: "setup-verb", confidence: 0.7 };
  if (
    /^(the|our|all|prod|production|staging|dev)\b/.test(core) &&
    /^[^,]*\b(is|are|has|have|runs on|uses)\b/.test(core) &&
    (concrete || SETUP_NOUN.test(core) && namedPredicate(s))
  ) return { type: "fact", rule: "setup-is", confidence: 0.65 };
  return null;
}

/** A user's reply that confirms what the agent asked ("yes", "right, …", "correct"). */
export const CONFIRM: RegExp =
  /^\s*(yes|yep|yeah|yup|correct|exactly|right|that's right|that is right|that's correct|confirmed|indeed|true|sure is|affirmative)\b/i;
/** The agent asked for a confirmation. */
const ASKS_CONFIRMATION =
  /\b(is that (right|correct|the rule|so|true|still the case|intended|intentional|on purpose)\?|right\?|correct\?|is that how [^?]*\?|am i right\?|can you confirm[^?]*\?|(does|do) (that|this) (sound|look) right\?)\s*$/i;

function reasonOf(next: string | undefined): string {
  if (!next) return "";
  return /^(because|since|as|we got burned|that's why|otherwise|ci fails|it breaks)\b/i.test(next)
    ? ` (${next.replace(/[.!]+$/, "")})`
    : "";
}

/** The agent's statement in a turn that asks for confirmation: the durable sentence before it. */
function agentStatement(text: string): { sentence: string; match: Match } | null {
  const ss = sentences(text);
  if (!ss.length || !ASKS_CONFIRMATION.test(ss[ss.length - 1])) return null;
  for (let i = ss.length - 2; i >= 0; i--) {
    // The agent's own hedges ("it looks like", "I assume") are what the user confirms.
    const s = ss[i].replace(
      /^.*?\b(it (looks|seems) like|i assume|i guess|i think|so it seems|apparently)\b,?\s*/i,
      "",
    ).replace(/,? so i'll .*$/i, "");
    const m = classifyAgent(s);
    if (m) return { sentence: s, match: m };
  }
  return null;
}

function classifyAgent(s: string): Match | null {
  const l = s.toLowerCase();
  if (/\b(must|always|never|only)\b/.test(l)) {
    return { type: "rule", rule: "agent-confirmed", confidence: 0.7 };
  }
  if (/\byou (deploy|release|run|use|ship)\b/.test(l)) {
    return { type: "rule", rule: "agent-confirmed", confidence: 0.65 };
  }
  // A fact or a decision about the setup the user confirms ("staging runs Postgres 15").
  const m = classify(s);
  return m && { type: m.type, rule: "agent-confirmed", confidence: Math.min(m.confidence, 0.65) };
}

/** A sentence that goes on from the one before ("…instead", "it needs…"): one statement. */
const CONTINUES =
  /\binstead\b[.!]?$|^(it|they|those|these|which)\b|^that'?s (a|the|our) (general |ground |house )?rule\b/i;

/** A line that introduces a list of things to know ("some context:", "conventions:"). */
const CONTEXT_HEADER =
  /\b(context|rules?|conventions?|notes?|background|things to know|guidelines|house rules)\b[^:\n]*:\s*$/i;

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
    for (const part of item[1].split(/,\s+(?=no\b)/i)) out.add(part.trim());
  }
  return out;
}

/** Candidates from `turns` (in order). `prevAssistant` is the agent's turn before the first. */
export function extractCandidates(turns: Turn[], prevAssistant?: Turn): Candidate[] {
  const out: Candidate[] = [];
  let lastAssistant: Turn | undefined = prevAssistant;
  for (const t0 of turns) {
    const t = { ...t0, text: withoutSecrets(t0.text) };
    // What the user pasted (code and logs in fences, quoted lines) is not what they said.
    if (t.role === "user") {
      t.text = t.text.replace(/```[\s\S]*?(```|$)/g, "\n").replace(/^\s*>.*$/gm, "");
    }
    if (t.role === "assistant") {
      lastAssistant = t;
      continue;
    }
    const prov = { sessionId: t.sessionId, uuid: t.uuid, timestamp: t.timestamp };
    // The agent's statement confirmed by this user turn.
    const agreed = lastAssistant && confirmedStatement(lastAssistant, t);
    if (agreed) out.push(agreed);
    lastAssistant = undefined;
    const confirmed = out.length && out[out.length - 1].provenance.confirmedBy === t.uuid
      ? out[out.length - 1]
      : undefined;
    const items = contextItems(t.text);
    const ss = items.size
      ? sentences(t.text, items).flatMap((x) => x.split(/,\s+(?=no\b)/i)).map((x) => x.trim())
      : sentences(t.text, items);
    let prevInTurn: Candidate | undefined;
    for (let i = 0; i < ss.length; i++) {
      const s = ss[i];
      if (
        prevInTurn && CONTINUES.test(s) && !isQuestion(s) && !ONE_OFF.test(s) &&
        !HYPOTHESIS.test(s) && !STATUS.test(s) && s.length <= 200
      ) {
        prevInTurn.text = `${prevInTurn.text.replace(/[.!]+$/, "")}; ${wording(s)}`;
        continue;
      }
      let m = classify(s);
      // A fact said as the context of a request ("the migration is in db/…, can you review it").
      if (
        m?.type === "fact" && t.text.includes(`${s}, `) && /^(can|could|would|will) you\b/i.test(
          t.text.slice(t.text.indexOf(`${s}, `) + s.length + 2),
        )
      ) m = null;
      // "Maria owns billing and Tomasz owns payments": two facts, two candidates.
      const halves = m?.type === "fact" ? s.split(/,?\s+and\s+/) : [];
      if (
        halves.length === 2 && halves.every((h) => h.split(/\s+/).length >= 3) &&
        /^(the |[A-Z])/.test(halves[1]) && !/\b(it|its|them|they|there)\b/i.test(halves[1]) &&
        halves.every((h) => classify(h)?.type === "fact")
      ) {
        ss.splice(i, 1, ...halves);
        i--;
        continue;
      }
      if (
        !m && items.has(s) && !isQuestion(s) && !ONE_OFF.test(s) && !HYPOTHESIS.test(s)
      ) {
        m = /\b(rules?|preferences?)\b/i.test(t.text)
          ? { type: "rule", rule: "rule-list", confidence: 0.65 }
          : { type: "fact", rule: "context-list", confidence: 0.6 };
      }
      let global = false;
      // "…; that goes for everything": the previous sentence, generalised.
      if (!m && i > 0 && GENERAL_GLOBAL.test(s) && !isQuestion(ss[i - 1])) {
        const prev = ss[i - 1];
        if (!classify(prev) && !HYPOTHESIS.test(prev) && !ONE_OFF.test(prev)) {
          out.push({
            text: wording(prev),
            type: "feedback",
            scope: "global",
            confidence: 0.75,
            provenance: prov,
            rule: "generalised",
          });
        }
        continue;
      }
      if (!m) {
        prevInTurn = undefined;
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
      if (m.confidence > 0 && text.length > 300) m = { ...m, confidence: m.confidence - 0.1 };
      prevInTurn = {
        text,
        type: m.type,
        scope: global ? "global" : "project",
        confidence: m.confidence,
        provenance: prov,
        rule: m.rule,
      };
      out.push(prevInTurn);
    }
  }
  return withoutSecretCandidates(out);
}

/** The agent's statement in `assistant` when the user's turn `t` confirms it, as a candidate. */
function confirmedStatement(assistant: Turn, t: Turn): Candidate | null {
  if (!CONFIRM.test(t.text)) return null;
  const st = agentStatement(assistant.text);
  if (!st) return null;
  return {
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
  };
}

/**
 * The candidates with the secrets their text still holds marked (`secretsRemoved`); one whose
 * text is left too short without them is dropped ({@link secretKinds}).
 */
function withoutSecretCandidates(out: Candidate[]): Candidate[] {
  const kept: Candidate[] = [];
  for (const c of out) {
    const kinds = secretKinds(c.text);
    if (kinds === null) continue;
    kept.push(kinds.length ? { ...c, secretsRemoved: kinds } : c);
  }
  return kept;
}
