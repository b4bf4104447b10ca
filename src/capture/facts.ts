/**
 * Decisions with their reason ("we chose…", "let's go with… because…") and facts about the setup
 * (ports, paths, commands, owners, schedules; "noted: …"): the kinds classify.ts tries after
 * the rules.
 * @module
 */
import {
  CONCRETE,
  FILLER,
  hit,
  type Match,
  NOTED,
  REQUEST_CLAUSE,
  SETUP_NOUN,
  SETUP_NOW,
  STATUS,
  TASK_SUBJECT,
} from "./markers.ts";

/**
 * A change of the setup that holds from now on, said with the time it happened ("we moved to zig
 * 0.13 last week", "we moved off hono to itty-router last week", "we upgraded to unity 6 on
 * friday"): where the setup went (a name, not "the…" or "it"; "we're on OTP 27 as of this
 * sprint" is {@link ON_VERSION}, a fact). Not what was dropped with nothing in its place ("we
 * dropped H2 last spring"), nor a thing of the work moved ("we moved the meeting to friday").
 * @since 0.21
 */
export const SETUP_CHANGE = new RegExp(
  String
    .raw`^(?:(?:we|i)(?:'ve| have)? (?:moved|switched|migrated|upgraded|went back|changed over)(?: us)?(?: (?:off|from|away from) [\w.@/+-]+(?: [\w.@/+-]+)?)? (?:to|onto|over to|back to) (?!(?:the|a|an|this|that|these|those|it|them|our|my|your|some|its|their|his|her|next|new|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|later)\b)[\w.@/+-]+` +
    // "I bumped us to gleam 1.6", "bumped tokio to 1.41 in the workspace", "we raised mypy to
    // level 3", "moved us to godot 4.3": the setup (us, or a tool or file of it) raised to a
    // version with its number, by "I", "we" or no subject; not a size, a count or a length
    // ("bumped the timeout to 30s", "to 5 retries"), nor the project's own release.
    String
      .raw`|^(?:(?:we|i)(?:'ve| have)? )?(?:bumped|raised|upgraded|moved)(?: us| (?!(?:it|them|this|that|(?:the |our )?(?:timeout|limit|count|size|number|retries|version|release|package|app|changelog))\b)(?:the )?[\w.@/+-]+)? to (?:(?!(?:the|a|an)\b)[a-z][\w+-]*[ -])?v?\d+(?:\.\d+)*(?![\w%]|\s*(?:s|ms|secs?|seconds|mins?|minutes|h|hours?|days?|weeks?|[kmg]b|px|percent|replicas|workers|retries|threads|connections|items|rows|lines|times|x)\b))`,
);
/** "we're on OTP 27": the named version the setup is on (a fact; with its time, a change). */
export const ON_VERSION =
  /^we(?:'re| are) on (?!(?:page|step|day|attempt|round|try|iteration|ticket|line|call|episode|chapter|slide|part|item|issue|week|sprint|phase|draft|take|run|batch|epoch|the|a|an|it|our|my)\b)[a-z][\w.+-]*(?: [a-z][\w.+-]*)? v?\d+(?:\.\d+)*\b/;

/** When a change of the setup happened ("last week", "this morning", "as of this sprint", "now"). */
export const CHANGE_TIME =
  /,?\s*\b(?:last (?:week|month|spring|summer|autumn|fall|winter|year|sprint|night|release)|yesterday|this (?:morning|month|sprint|week|quarter|year)|as of (?:this|last) (?:sprint|week|month|release)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in (?:january|february|march|april|may|june|july|august|september|october|november|december)|an? (?:week|month|year|few weeks|couple of weeks) ago|now)\b/gi;

/**
 * The sentence without the time of the change it states ({@link SETUP_CHANGE}, {@link ON_VERSION},
 * since 0.22 a value of the setup with "now": `SETUP_NOW`), so that the time
 * does not read as a one-off or a report; the sentence as it is otherwise.
 */
export function withoutChangeTime(s: string, core: string): string {
  return SETUP_CHANGE.test(core) || ON_VERSION.test(core) ||
      /\bnow\b/i.test(core) && SETUP_NOW.test(core) && !TASK_SUBJECT.test(core)
    ? s.replace(CHANGE_TIME, "")
    : s;
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
  if (SETUP_CHANGE.test(core) && !STATUS.test(l)) return hit("decision", "setup-change");
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
  if (moment) return null;
  return setupFact(s, l, core) ?? (ON_VERSION.test(core) ? hit("fact", "on-version") : null);
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
    /\b[a-z]+s use\b|\b(runs?|run with|kicks? off|starts?|fires?|talks? to|connects? to|points? to|targets?|uses|we use|we're using|we are using|is on|are on|we're on|we are on|listens?|deploys?|deploy with|we deploy|expires? after|retries|is (limited|capped) (to|at)|calls? (the )?[\w -]+ (at|on|via)|builds?|posts? to|go(es)? (to|through)|look like|looks like|comes? from|(is|are) (read|pulled|fetched|loaded) from)\b/
      .test(l)
  ) return hit("fact", "setup-verb");
  if (
    /^(the|our|all|prod|production|staging|dev)\b/.test(core) &&
    /^[^,]*\b(is|are|has|have|runs on|uses)\b/.test(core) &&
    (concrete || SETUP_NOUN.test(core) && namedPredicate(s))
  ) return hit("fact", "setup-is");
  if (namesIdentifier(core)) return hit("fact", "setup-named");
  return null;
}

/** A hyphenated word that describes rather than names ("read-only", "self-hosted", "client-side"). */
const DESCRIPTIVE =
  /^(read|write|self|up|built|opt|well|long|short|high|low|in|out|non|pre|post|half|full|end|real|one|two|multi|cross|single|double|open|closed|hard|soft|auto|semi|co|re|so|not|over|under|still|work|half|brand|all)-|-(based|only|side|wide|free|safe|like|style|friendly|aware|ready|level|time|date|made|ish|ready|proof|related|specific|heavy|light|driven|first|facing)$/;

/**
 * A thing of the setup said to be a named thing, said in passing ("the vault role for workloads
 * is nomad-workloads", "bundle id is com.acme.app", "the clusters are hel1-staging and hel1-prod",
 * "HUGO_VERSION is 0.139.0 in the pages env"): a noun subject of at most five words, "is" /
 * "are", and an identifier (a word with a dot, a dash or an underscore between its parts, not a
 * describing one like "read-only"; or a version x.y.z). Not a pointer at the work (its callers
 * turn those down), nor a state.
 * @since 0.21
 */
export function namesIdentifier(core: string): boolean {
  const m = core.match(
    /^(?:the |our )?(?!(?:it|its|this|that|these|those|there|here|he|she|they|i|you|we|my|your|his|her|what|which|who|one|mine|everything|nothing|something|anything)\b)[\w.-]+(?: [\w.-]+){0,4} (?:is|are) [`'"]?([a-z][a-z0-9]*(?:[-._][a-z0-9]+)+|v?\d+\.\d+\.\d+)\b(?![-.\w])/,
  );
  if (!m) return false;
  const id = m[1];
  return /\d/.test(id) || !DESCRIPTIVE.test(id) && id.length >= 6;
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
