/**
 * How the offline extractor reads a user's turn: sentences (code spans whole, newlines and
 * bullets split), clauses that are statements of their own (a request tacked on, the items of a
 * list of rules), fragments joined back to the sentence they narrow, the items of a list given
 * as context, and a sentence holding a fact and a rule split by kind (extract.ts).
 * @module
 */
import { findSecretsSync, MARKER, replaceSecrets } from "../domain/secrets.ts";
import { classify, GENERAL_GLOBAL } from "./classify.ts";

/** Words that must be left besides the markers for a candidate with a secret to be kept. */
export const MIN_WORDS_LEFT = 6;

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
export function joinFragments(parts: string[], listed?: Set<string>): string[] {
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
export function splitOutside(s: string, re: RegExp): string[] {
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
 * that in the runbook"): cut off, so that the statement is read on its own. Since 0.21 also a
 * request to use what it names ("the vault role is nomad-workloads, use that in the vault
 * block"); not what to do or not to do with it for good ("…, don't hardcode it", "…, keep it in
 * step with the local hugo": part of the statement).
 */
export const TRAILING_REQUEST =
  /,\s+(?=(?:so\s+)?(?:please\s+)?(?:(?:check|put|add|update|note|write|document|record|wire|grant|make sure) (?:that|this|it|them|the)\b|use (?:that|this|it|them|those)(?: one)? (?:in|for|as|from|when|everywhere)\b))/i;

/**
 * Clauses of one sentence that are separate statements: a request tacked on ("…, can you
 * split it?", "…, check the config uses that"), and the items of a list of rules or conventions
 * ("ground rules: do A, and don't B", "conventions here: A, B and C").
 */
export function splitClauses(s: string, listed?: Set<string>): string[] {
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

/**
 * A sentence that goes on from the one before ("…instead", "it needs…", a don't whose object is
 * only "it" or "them": "never put it in the manifest directly", "don't add it back"): one
 * statement.
 */
export const CONTINUES =
  /\binstead\b[.!]?$|^(it|they|their|theirs|those|these|which|anything of (theirs|its|ours))\b|^that'?s (a|the|our) (general |ground |house )?rule\b|^(please )?(don'?t|never|do not)( ever)? [a-z]+ (it|them)\b/i;

/**
 * A sentence that says why the rule before it holds ("…, they contain customer emails" said
 * apart: "That's a hard rule, PCI", "It's a GDPR thing", "We got burned by that"): it opens with
 * a reason or a word that vouches for the rule.
 */
export const EXPLAINS_OPENING =
  /^(because|since|otherwise|so that|the reason is|that'?s (why|a hard rule|the rule|on purpose|intentional|deliberate|non-negotiable|a (gdpr|legal|security|compliance|pci) thing)|this is (why|on purpose|intentional)|it'?s (on purpose|intentional|deliberate|a (gdpr|legal|security|compliance|pci|licen[sc]e|policy) (thing|rule|requirement))|(we|i)('ve| have)? (got|been) burned\b|(we|i) learned (that|it) the hard way)/i;

/** Words too common to tie two sentences to one topic. */
const STOP = new Set(
  "that this with from have what when your they them their there then than into only ever never always dont don't must should would could here just also even every anything something about after before other same more most some such very these those which where while because since"
    .split(" "),
);

/** The stems (first five letters) of a sentence's content words. */
function stems(s: string): Set<string> {
  return new Set(
    (s.toLowerCase().match(/[a-z][a-z'-]{3,}/g) ?? []).filter((w) => !STOP.has(w)).map((w) =>
      w.slice(0, 5)
    ),
  );
}

/**
 * Whether `next` explains the rule `rule` said right before it, rather than saying something new:
 * it opens with a reason ({@link EXPLAINS_OPENING}), or it is a statement (a subject opens it)
 * that asks nothing and is about the same thing (a content word in common, or "it" / "them"
 * pointing back): "Never run the migrations by hand. The deploy job does it after the health
 * check." One statement with the rule.
 */
export function explains(next: string, rule: string): boolean {
  const core = next.trim();
  if (EXPLAINS_OPENING.test(core)) return true;
  // A statement of its own: a subject opens it (no imperative, no request, no question word).
  if (!/^(the|our|we|it|its|they|those|these|that|this|[a-z]+s)\s/i.test(core)) return false;
  if (/\b(i'?ll|i will|can you|could you|please|let'?s|todo|next|now|today)\b/i.test(core)) {
    return false;
  }
  // What the rule is about, pointed back at ("the deploy job does it after the health check").
  if (/\b(it|them)\b/i.test(core.replace(/^(it|its|they)\b/i, ""))) return true;
  const a = stems(rule), b = stems(core);
  for (const w of b) if (a.has(w)) return true;
  return false;
}

/**
 * A line that introduces a list of things to know ("some context:", "conventions:", "quick
 * brief before we start:", "the gist of our runbook:", "before you touch the dashboard:").
 */
export const CONTEXT_HEADER =
  /\b(context|rules?|conventions?|notes?|background|things to know|guidelines|house rules|brief|briefing|gist|runbook|overview|reminders?|how (we|things) work|before (you|we) (start|begin|touch|dive in|get started|change|work on))\b[^:\n]*:\s*$/i;

/**
 * "Tailwind only, no CSS modules", "logging goes through log.ts, no console.log": a choice and
 * the alternative it excludes, one statement (unlike "we target Go 1.22, no generics").
 */
export const CHOICE_THEN_NO = /\b(only|uses?|go(es)? through|via|instead)\b/i;

/**
 * The items of a list the user introduced as context ("some context:\n1. …\n2. …"), each
 * split before a ", no …" clause: said to set up the work for good, each is a candidate.
 */
export function contextItems(text: string): Set<string> {
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
export const CLAUSE_BREAK =
  /,\s+and\s+|;\s+|,\s+(?=(?:the|we|you|i|they|anything|any|every|all|each)\s)|\s+and\s+(?=(?:we|you|i|they)\s)/gi;

/** A clause with a subject of its own, or an imperative rule with its verb ("never edit…"). */
export const STANDALONE =
  /^(we|you|i|they|everyone|anyone|anything|everything|any|every|all|each|the|our)\s|^[A-Z][\w-]*\s|^(always|never|don'?t|do not) (?!(in|on|at|for|with|from|via|through|to|by|the|a|an)\b)[a-z]/;

/** Whether a clause states a rule (or preference), a fact (or decision), or nothing. */
export function clauseKind(part: string): "rule" | "fact" | null {
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
export function kindGroups(s: string): string[] | null {
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
