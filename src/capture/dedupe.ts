/**
 * A simple near-duplicate check of two memory texts: the overlap of their content words
 * (lower-cased, punctuation and common words dropped, word forms folded as the search folds
 * them: src/domain/terms.ts and forms.ts; casual spellings and words of one meaning as
 * wording.ts reads them), of the texts as they are and of their statements (without the user's
 * marks of a repeat, a reply's opening, a reason or a story told after a dash: {@link
 * statement}), unless one updates the other ({@link updates}: a changed value, what changed, a
 * reversed choice, another thing used, owner, tool, name or word of a set, an exception, a
 * permission, a denial, a contrast) or says something of its own beside the repeat; or, in
 * other words, excluding the same named thing and adding nothing ({@link repeatsByExclusion},
 * since 0.20: "don't reach for pandas" against "transforms use polars, not pandas"); or marked
 * by the user as known and holding nothing the stored memory does not ({@link markedRepeat},
 * since 0.20, round 2: "Runes only, as we agreed, no `export let`"); never when the stored memory
 * is narrower, with a condition or a time the text does not name ({@link narrowedIn}: "never
 * push to main" is not "never push to main on fridays"). The daemon's
 * sink (sink.ts) applies it to the neighbours the service's own search finds and to the pending
 * proposals.
 * @module
 */

import { stem, STOP_WORDS } from "../domain/terms.ts";
import { variantsOf } from "../domain/forms.ts";
import { categoriesOf, namesIn } from "../domain/categories.ts";
import { otherInSlot, sameWord, uncasual } from "./wording.ts";

/**
 * Words that carry no topic: the search's stop words, the markers of a rule ("always", "never",
 * "must", "use"), and words that only frame a statement ("again", "the other way round"; since
 * 0.21 "write", as in "write a kustomize base", "transforms are written with polars").
 */
const STOP = new Set([
  ...STOP_WORDS,
  ...("a an the and or but of to in on at for with by from is are was were be been it its this " +
    "that these those we you i my our your they them as so if then than not no do does don't " +
    "dont please always never use using used it so after anything everything should must will " +
    "would can could just also any all every here there repo project repository codebase has " +
    "have had being again other way round around too only same thing things stuff still " +
    "make sure need needs keep ever whole clear go goes went gone via require requires " +
    "required yep yup nope nah please pls thx thanks btw fyi imo imho tbh ofc iirc afaik lol " +
    "usual gotta uses put puts placed belong belongs sit sits mandatory compulsory write writes " +
    "written wrote writing").split(" "),
]);

/**
 * One spelling of a word's forms: its light stem (as the search folds it: "imports",
 * "importing" → "import") and, for an irregular verb or a short name, the first of its
 * variants ("chose", "chosen" → "choose"; "postgres" ↔ "postgresql"). Identifiers stay whole.
 */
function folded(w: string): string {
  if (/[_./:@#]/.test(w) || /\d/.test(w)) return w;
  return sameWord(formOf(w), formOf);
}

/** {@link folded} without the words of one meaning of wording.ts. */
function formOf(w: string): string {
  const forms = variantsOf(stem(w));
  return [...forms].sort()[0];
}

/** Content words of recent texts (the extractor and the sink ask for the same ones often). */
const SEEN = new Map<string, ReadonlySet<string>>();
/** Texts {@link SEEN} holds at most. */
const SEEN_MAX = 2000;

/** The content words of a text (lower-cased, common words dropped, word forms folded). */
export function contentWords(text: string): ReadonlySet<string> {
  const hit = SEEN.get(text);
  if (hit) return hit;
  const out = wordsOf(text);
  if (SEEN.size >= SEEN_MAX) SEEN.clear();
  SEEN.set(text, out);
  return out;
}

function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  // Times in one spelling: "3am" and "03:00" are the same.
  const norm = uncasual(text).replace(
    /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b/g,
    (_, h, m, ap) =>
      `${String((Number(h) % 12) + (ap === "pm" ? 12 : 0)).padStart(2, "0")}:${m ?? "00"}`,
  ).replace(/[’‘]/g, "'").replace(SIZE, sizeOf)
    // A placeholder in angle brackets is its word ("<domain>.<entity>.v<n>" and
    // "domain.entity.vN" name one pattern; since 0.21).
    .replace(/(?<!_)<([a-z][\w-]*)>(?!_)/g, "$1")
    // "pull request" is a PR; "git pull" is not (forms.ts widens "pull" only before "request").
    // wording.ts folds "pull request(s)" and "merge request(s)"; here their hyphenated forms,
    // which the word split would otherwise keep as one word.
    .replace(/\b(?:pull|merge)-requests?\b/g, "pr");
  for (const w of norm.split(/[^a-z0-9_@./:'-]+/)) {
    // "apps/*" is "apps"; "it's" is "it".
    const t = w.replace(/^[./:'-]+|[./:'-]+$/g, "").replace(/'(s|re|ve|ll|d|t)$/, "");
    if (t.length < 2 || STOP.has(t) || STOP.has(w)) continue;
    out.add(folded(t.replace(/'/g, "")));
  }
  return out;
}

/** Content words two texts share, and how many each has. */
function shared(a: string, b: string): { common: number; x: number; y: number } {
  const x = contentWords(a), y = contentWords(b);
  let common = 0;
  for (const w of x) if (y.has(w)) common++;
  return { common, x: x.size, y: y.size };
}

/**
 * What an adjective compound is about ("platform-specific" → "platform", "server-side" →
 * "server"), folded; nothing for a name ("payments-api", "ledger-dev": its parts are not its
 * topic).
 */
function partsOf(w: string): string[] {
  if (!w.includes("-")) return [];
  const m = w.match(
    /^([a-z]{3,})-(?:specific|only|based|side|facing|wide|level|related|dependent|bound|centric|agnostic)$/,
  );
  return m && !STOP.has(m[1]) ? [folded(m[1])] : [];
}

/**
 * {@link shared}, an adjective compound counted as the word it is about ("platform-specific
 * code" and "platform APIs" share "platform").
 */
function sharedWithParts(a: string, b: string): { common: number; x: number; y: number } {
  const x = contentWords(a), y = contentWords(b);
  const yParts = new Set([...y].flatMap(partsOf));
  // A compound of plain words against all its parts ("squash-merge" and "squash when you
  // merge", "force-push" and "push with force").
  const whole = (c: string, other: ReadonlySet<string>) => {
    const ps = wordsOfCompound(c);
    return ps.length > 1 && ps.every((p) => other.has(p));
  };
  const yJoined = new Set([...y].filter((c) => whole(c, x)).flatMap(wordsOfCompound));
  let common = 0;
  for (const w of x) {
    if (
      hasWord(y, w) || yParts.has(w) || partsOf(w).some((p) => y.has(p) || yParts.has(p)) ||
      yJoined.has(w) || whole(w, y)
    ) common++;
  }
  return { common, x: x.size, y: y.size };
}

/**
 * Whether `words` has `w`, a name cut by a wildcard ("?LOG_*", "LOG_*": "log_") standing for
 * every word it begins ("log_info", "logger").
 */
function hasWord(words: ReadonlySet<string>, w: string): boolean {
  if (words.has(w)) return true;
  // A file named by its path's end ("commands.rs" and "src-tauri/src/commands.rs"; since 0.20,
  // round 2).
  if (/^[\w-]+\.[a-z0-9]+$/.test(w)) {
    for (const x of words) if (x.endsWith(`/${w}`)) return true;
  }
  if (!/^[a-z][a-z0-9]{2,}_$/.test(w)) return false;
  const stem = w.slice(0, -1);
  for (const x of words) if (x.startsWith(stem)) return true;
  return false;
}

/** The folded words of a compound of plain words ("squash-merg" → squash, merg); none else. */
function wordsOfCompound(w: string): string[] {
  if (!w.includes("-")) return [];
  let out = COMPOUNDS.get(w);
  if (out) return out;
  const ps = w.split("-");
  out = !/^[a-z]{3,}(?:-[a-z]{3,})+$/.test(w) || ps.some((p) => STOP.has(p)) ? [] : ps.map(folded);
  if (COMPOUNDS.size >= SEEN_MAX) COMPOUNDS.clear();
  COMPOUNDS.set(w, out);
  return out;
}

/** Parts of recent compounds ({@link wordsOfCompound}). */
const COMPOUNDS = new Map<string, string[]>();

/** How much of the smaller text's content words the other has, 0..1. */
export function overlap(a: string, b: string): number {
  const { common, x, y } = shared(a, b);
  return x && y ? common / Math.min(x, y) : 0;
}

/**
 * How much of the larger text's content words the other has, at least this for a near
 * duplicate: a short rule that names two words of a long one on the same topic ("libs never
 * depend on services" and "services call libs through their public index only; no deep
 * imports") is not its repeat.
 */
export const NEAR_DUPLICATE_OF_LARGER = 0.3;

/**
 * Whether `a` repeats `b` at `threshold`: all of `a`'s content words are in `b`, or they overlap
 * by `threshold` of the smaller text's words and {@link NEAR_DUPLICATE_OF_LARGER} of the larger's.
 */
function repeats(a: string, b: string, threshold: number): boolean {
  const { common, x, y } = sharedWithParts(a, b);
  if (!x || !y) return false;
  // `a` names nothing `b` does not ("it's pnpm here, always has been"): it adds nothing.
  if (common === x) return true;
  // `a` names code or a quoted name `b` does not ("run `php artisan horizon:terminate`",
  // "--account=vision-gpu", "the account \"Tabtamer Labs\""): a detail of its own.
  const wb = contentWords(b);
  if ([...codeOf(a)].some((w) => !hasWord(wb, w) && !excludedValue(w, a))) return false;
  // A directory written with its slash that `b` does not name, outside what `a` excludes
  // ("k8s config lives in infra/" against "… lives in deploy/"; since 0.20, round 2).
  const ownDir = () => {
    if (!a.includes("/")) return false;
    const kept = withoutDenied(a.replace(ASIDE, " ")).replace(CONTRAST_ALL, " ");
    for (const m of kept.matchAll(/(?<![\w/.-])([a-z][\w.-]*)\/(?![\w*])/gi)) {
      if ([...contentWords(m[1])].some((w) => !wb.has(w))) return true;
    }
    return false;
  };
  // The same code name in both ("createStore", "*.server.ts", "COMP-3", "io:format") is strong
  // evidence of one topic: half the smaller text's words suffice.
  // Not the code name alone: a plain word shared beside it ("Fonts go in src/assets" is not
  // "Images go in src/assets").
  // Nor when `a` names a tool or a name with a capital that `b` does not, outside what it
  // denies ("pantry_flutter uses Riverpod for state: no setState in feature widgets" is not
  // "setState is fine only in small leaf widgets").
  // Nor when `a` names a tool or a capitalised name of its own outside what it denies ("No
  // Helm charts, use Jsonnet" is not "… kustomize overlays; no Helm charts"; since 0.20,
  // round 2).
  if (common / Math.min(x, y) >= threshold) {
    return common / Math.max(x, y) >= NEAR_DUPLICATE_OF_LARGER && !ownDir();
  }
  const keys = sharedKeys(a, wb);
  return keys > 0 && common > keys && common / Math.min(x, y) >= NEAR_DUPLICATE_WITH_KEY &&
    common / Math.max(x, y) >= NEAR_DUPLICATE_OF_LARGER_WITH_KEY && !namesOwn(a, b) && !ownDir();
}

/** The share of the larger text's words needed beside a shared code name ({@link keyNames}). */
export const NEAR_DUPLICATE_OF_LARGER_WITH_KEY = 0.4;

/**
 * Whether `a` names a tool or a name with a capital that `b` does not, outside what `a` denies
 * ("don't import prisma" names nothing of its own).
 */
function namesOwn(a: string, b: string): boolean {
  const t = a.replace(DENIED, " ");
  const wb = new Set(uncasual(b).split(/[^a-z0-9_@./-]+/));
  const wbf = contentWords(b);
  return [...capitalNames(t), ...namesIn(t).filter((n) => n.length > 2).map((n) => n.toLowerCase())]
    .some((n) => !wb.has(n) && ![...contentWords(n)].every((w) => wbf.has(w)));
}

/** The share of the smaller text's words enough when the two share a code name ({@link keyNames}). */
export const NEAR_DUPLICATE_WITH_KEY = 0.5;

/** How many code names ({@link keyNames}) of `a` `words` (another text's) hold. */
function sharedKeys(a: string, words: ReadonlySet<string>): number {
  let n = 0;
  for (const k of keyNames(a)) if (hasWord(words, k)) n++;
  return n;
}

/**
 * The code names of a text: its code and quoted names ({@link codeOf}), identifiers in
 * camelCase ("createStore") and names with a number ("COMP-3", "es2022"), folded as its
 * content words.
 */
function keyNames(text: string): ReadonlySet<string> {
  const hit = KEYS.get(text);
  if (hit) return hit;
  const out = keyNamesOf(text);
  if (KEYS.size >= SEEN_MAX) KEYS.clear();
  KEYS.set(text, out);
  return out;
}

/** Code names of recent texts ({@link keyNames}). */
const KEYS = new Map<string, ReadonlySet<string>>();

function keyNamesOf(text: string): Set<string> {
  // Not a plain name in snake_case or kebab-case ("courier_hub", "pantry_flutter"): often the
  // project's or a service's name, the topic of all its memories.
  const out = new Set([...codeOf(text)].filter((w) => !/^[a-z][a-z]*(?:[_-][a-z]+)+$/.test(w)));
  const t = text.replace(ASIDE, " ");
  // camelCase with a word before the capital ("createStore", "useQuery"; not "iOS", "macOS").
  for (const m of t.matchAll(/\b[a-z]{2,}[A-Z][a-z][A-Za-z0-9]*\b/g)) {
    for (const w of contentWords(m[0])) out.add(w);
  }
  for (const w of contentWords(t)) if (/[a-z]-?\d|\d-?[a-z]/.test(w)) out.add(w);
  return out;
}

/**
 * The code and quoted names a text states (outside its asides in parentheses): words with
 * `_ . / : @ # =` ("horizon:terminate", "account=vision-gpu", "03:00") and the words inside
 * backticks or double quotes.
 */
function codeOf(text: string): Set<string> {
  const t = text.replace(ASIDE, " ");
  const out = new Set([...contentWords(t)].filter((w) => /[_./:@#=]/.test(w)));
  for (const m of t.matchAll(/`([^`]+)`|"([^"]+)"|“([^”]+)”/g)) {
    for (const w of contentWords(m[1] ?? m[2] ?? m[3])) out.add(w);
  }
  return out;
}

/**
 * The most of a text the repeat check reads: a candidate is a sentence of at most a few hundred
 * characters, and the first {@link MAX_COMPARED} of a long stored memory are where a repeat of it
 * would be. It bounds the work of a pair whatever the texts (a pattern that backtracks on a long
 * run of one character costs at most a few milliseconds here, not seconds on the daemon's
 * thread).
 */
export const MAX_COMPARED = 1_000;

/** `text` cut to {@link MAX_COMPARED} characters. */
function compared(text: string): string {
  return text.length > MAX_COMPARED ? text.slice(0, MAX_COMPARED) : text;
}

/** Default threshold of {@link isNearDuplicate}. */
export const NEAR_DUPLICATE = 0.6;

/** Words that say a statement changes what held before ("moved from", "was 15", "is gone"). */
const CHANGE =
  /\b(moved|switched|migrated|changed|replaced|replaces|no longer|not any ?more|used to|instead|is gone|are gone|was|were|anymore|any longer|left|dropped|removed|retired|ditched|abandoned|stopped|got rid of|deprecated|killed|sunset(?:ted)?|phased out|reverted|rolled back|superseded|obsolete|turned off|disabled|now|nowadays|these days|as of)\b/i;

/** "use X", "uses the X": what a statement says is used. */
const USED = /\buses?\s+(?:the\s+|a\s+|an\s+)?([\w@.\/+-]+)/i;

/** "Raj owns …", "@dana maintains …": who owns what a statement names. */
const OWNER =
  /(?:^|[.;:]\s+)(@?[\w-]+)(?:'s team)?\s+(?:owns|maintains|leads|is responsible for|reviews|approves|signs off|handles|manages|looks after|is on call for|is the contact for)\b/i;

/** An exception or a condition that narrows a rule ("…, except in tools/", "unless …", "until …"). */
const EXCEPT =
  /\b(?:except|unless|excluding|other than|but not|until|apart from|aside from|besides|save for|with the exception of)\b([^.;]*)|,\s*but\s+(?!not\b)([^.;]*)/i;

/** "use A, not B": the choice and what it excludes. */
const CHOICE = /\buse ([\w@./-]+?)[,.]?\s[^.]*?\b(?:not|instead of|rather than|over) ([\w@./-]+)/i;

/**
 * Words that deny what a statement says ("never", "don't", "no longer"…). A leading "no," (a
 * reply to the agent) and a trailing contrast (", not Jest") are not denials of the statement.
 */
const DENIAL =
  /\b(never|not|no|don'?t|do not|doesn'?t|does not|isn'?t|aren'?t|won'?t|shouldn'?t|mustn'?t|cannot|can'?t|avoid|without|nothing|none of|banned|forbidden|prohibited|disallowed|off-limits|off limits|no-go)\b/i;

/**
 * An aside in parentheses: not the parentheses of code written against a word ("real(wp)",
 * "PIC S9(n)V99", "f(x)"), which are part of the name.
 */
const ASIDE = /(?<![\w\]])\([^()]*\)/g;

/** A text without its asides in parentheses. */
function bare(text: string): string {
  return text.replace(ASIDE, " ");
}

/** A statement that allows: "can", "may", "is fine", "is ok", "allowed", "feel free". */
const PERMIT =
  /\b(?:(?:can|may)(?!'?t\b|not\b|\s+not\b)|(?:is|are|it'?s) (?:fine|ok|okay|acceptable|allowed|permitted)|allowed|permitted|feel free|go ahead)\b/i;

/**
 * The names a text writes with a capital inside a sentence (not its first word, not "I", not
 * an acronym of three letters or fewer), lower-cased.
 */
function capitalNames(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<=[^\s.!?:;—–]\s+|,\s+)[A-Z][A-Za-z0-9]*[a-z][\w-]*/g)) {
    out.push(m[0].toLowerCase());
  }
  return out;
}

/**
 * Whether `a` names with a capital what `b` does not, where `b` names with a capital what `a`
 * does not ("format with Biome" against "format with Prettier", "follow the Angular
 * convention" against "follow Conventional Commits"); words compared in any case.
 */
function otherName(a: string, b: string): boolean {
  // A dotted name names its parts too ("System.Console" names "Console"; since 0.20, round 2).
  const lower = (t: string) =>
    new Set(
      uncasual(t).split(/[^a-z0-9_@./-]+/).map((w) => w.replace(/^[./-]+|[./-]+$/g, ""))
        .flatMap((w) => /^[a-z]\w*(?:\.[a-z]\w*)+$/.test(w) ? [w, ...w.split(".")] : [w]),
    );
  const wa = lower(a), wb = lower(b);
  const onlyA = capitalNames(a).filter((n) => !wb.has(n));
  const onlyB = capitalNames(b).filter((n) => !wa.has(n));
  return onlyA.length > 0 && onlyB.length > 0;
}

/**
 * Whether `a` names a tool (src/domain/categories.ts) that `b` does not where `b` names another
 * of the same kind that `a` does not ("Vitest" against "Jest": testing; "Buildkite" against
 * "Jenkins": continuous integration). Names in one spelling ("postgres" is "postgresql").
 */
function otherTool(a: string, b: string): boolean {
  // A binding of a tool is the tool ("PySpark" is Spark's, "NodeJS" Node's).
  const one = (n: string) =>
    formOf(n.toLowerCase().replace(/^py(?=[a-z]{3})|(?<=[a-z]{3})\.?js$/, ""));
  // "Go" with a capital inside a sentence is the language ("go" is a verb).
  const lang = (t: string) => t.replace(/(?<=\S\s+)Go\b/g, "golang");
  const na = namesIn(lang(a)), nb = namesIn(lang(b));
  const sa = new Set(na.map(one)), sb = new Set(nb.map(one));
  const onlyA = na.filter((n) => !sb.has(one(n))), onlyB = nb.filter((n) => !sa.has(one(n)));
  // Of one kind: the same first word of their categories, or, for names whose first word is
  // the vendor ("gcs": google storage bucket, "s3": amazon storage bucket), the same rest.
  const kind = (n: string) => categoriesOf(n);
  const same = (x: string, y: string) => {
    const kx = kind(x), ky = kind(y);
    if (!kx || !ky) return false;
    return kx[0] === ky[0] || kx.length > 2 && kx.slice(1).join(" ") === ky.slice(1).join(" ");
  };
  return onlyA.some((x) => onlyB.some((y) => same(x, y)));
}

/** Whether `text` denies what it states ({@link DENIAL}, outside a reply's "no," and a contrast). */
function denies(text: string): boolean {
  return DENIAL.test(denialCore(text));
}

/** `text` without a reply's leading "no," and its contrasts (", not Jest"), lower-cased. */
function denialCore(text: string): string {
  return uncasual(text).replace(/[.!\s]+$/, "")
    .replace(/^\s*(?:no|nope|nah)\s*(?:[,.!:;—–-]+\s*|$)/i, "")
    .replace(/,\s*(?:not|never|rather than|instead of)\s+[^,;.]*(?:,|$)/gi, " ");
}

/**
 * Whether `w` (a content word of `a`) is a version or a number that `a` only excludes ("no
 * language features from 21", "nothing from 3.12"): a limit, not a detail `a` states.
 */
function excludedValue(w: string, a: string): boolean {
  if (!/^v?\d[\d.:]*$/.test(w)) return false;
  const kept = contentWords(withoutDenied(a));
  return !kept.has(w) && values(a).has(w.replace(/^v/, "")) || !kept.has(w) && values(a).has(w);
}

/**
 * `a` without its denials when they only exclude other values of a kind `b` sets and what is
 * left sets no value `b` does not ("Java 17 only, no features from 21" against "… Java 17":
 * "Java 17 only"); else `a`.
 */
function withoutLimit(a: string, b: string): string {
  if (!DENIAL.test(a) || !/\d/.test(a) || !/\d/.test(b)) return a;
  const vb = values(b), kb = new Set([...vb].map(valueKind));
  const kept = withoutDenied(a);
  if (kept === a || [...values(kept)].some((v) => !vb.has(v))) return a;
  const excluded = [...values(a)].filter((v) => !values(kept).has(v));
  return excluded.length && excluded.every((v) => !vb.has(v) && kb.has(valueKind(v)))
    ? kept.replace(/\s+/g, " ").replace(/[\s,;:—–-]+$/, "").trim()
    : a;
}

/**
 * `text` without what it denies or excludes ({@link DENIED}: "no 1.22 features", ", not 18"),
 * as it is written (not lower-cased); a reply's leading "no," stays.
 */
function withoutDenied(text: string): string {
  const lead = text.match(/^\s*(?:no|nope|nah)\s*[,.!:;—–-]+\s*/i)?.[0] ?? "";
  return lead + text.slice(lead.length).replace(DENIED, " ");
}

/**
 * What a denial covers: from a denial word to the next punctuation ("don't import prisma"); a
 * point or a colon between digits is part of a version or a time ("no 1.22 features").
 */
const DENIED = new RegExp(
  `(?:${DENIAL.source})((?:\`[^\`]*\`|[^,;.!?:—–()]|(?<=\\d)[.:](?=\\d)|(?<=\\w)\\.(?=\\w))*)` +
    // A clause that only points back at what is denied ("no property hooks, those are 8.4"):
    // part of the denial (since 0.20, round 2).
    `(?:,\\s*(?:those|these|they|that|which|both)(?:'re|'s|\\s+(?:are|is|were|was|came|come|need|needs|require|requires|belong|landed|arrived))\\b(?:[^,;.!?:—–()]|(?<=\\d)[.:](?=\\d))*)?`,
  "gi",
);

/**
 * Whether what `d` denies is something `o` states: the words after `d`'s denials (to the next
 * punctuation) include one of what `o` says outside its own denials and contrasts. "don't
 * import prisma in the route" denies nothing of "database access lives only in *.server.ts
 * modules" (a rule of its own beside the repeat); "no signals in context" denies nothing of
 * "…, not signals in context" (the same exclusion); "tests never hit the network" denies
 * "tests always hit the network".
 */
function deniesOf(d: string, o: string): boolean {
  const denied = new Set<string>();
  for (const m of denialCore(d).matchAll(DENIED)) {
    for (const w of contentWords(m[m.length - 1] ?? "")) denied.add(w);
  }
  if (!denied.size) return true;
  // What `o` excludes too is the same exclusion ("we don't burn cluster hours on unit tests"
  // against "unit tests run locally, not on a cluster"), not a denial of `o` (since 0.20,
  // round 2).
  const lo = uncasual(o);
  const excluded = new Set<string>();
  for (const m of lo.matchAll(CONTRAST_ALL)) for (const w of contentWords(m[1])) excluded.add(w);
  for (const m of lo.replace(CONTRAST_ALL, " ").matchAll(DENIED)) {
    for (const w of contentWords(m[m.length - 1] ?? "")) excluded.add(w);
  }
  if ([...denied].some((w) => excluded.has(w))) return false;
  const said = new Set<string>();
  for (const w of contentWords(denialCore(o).replace(DENIED, " "))) {
    for (const x of [w, ...wordsOfCompound(w), ...partsOf(w)]) said.add(x);
  }
  return [...denied].some((w) => said.has(w) || wordsOfCompound(w).some((x) => said.has(x)));
}

/**
 * A contrast: ", not with X", ", rather than X", ", instead of X" (X up to the next punctuation;
 * a dotted name is one word of it, ", not moment.js", since 0.21).
 */
const CONTRAST =
  /,\s*(?:not|never|rather than|instead of)\s+(?:with\s+|by\s+|in\s+|through\s+|via\s+|from\s+|to\s+|on\s+)?((?:[^,;.()]|(?<=\w)\.(?=\w))+)/i;
const CONTRAST_ALL = new RegExp(CONTRAST.source, "gi");

/** Whether `text` is one clause (no " — ", "; ", ": ", ", so …", ", and …"; a contrast kept). */
function oneClause(text: string): boolean {
  return text.trim().replace(/[.!]+$/, "").split(CLAUSES).length === 1;
}

/** A size with its unit, in any spelling ("400k", "400 KB", "400kb", "2 GiB"). */
const SIZE = /\b(\d+(?:\.\d+)?)\s*(k|kb|kib|mb|mib|gb|gib|tb|tib)\b/gi;

/** A size of {@link SIZE} in one spelling ("400k", "400 KB" → "400kb"; since 0.21). */
function sizeOf(_: string, n: string, unit: string): string {
  const u = unit.toLowerCase();
  return `${n}${u[0] === "k" ? "kb" : u[0] + "b"}`;
}

/**
 * Values a statement sets: numbers (times, sizes, versions, with a unit: "60s", "50MB", "3am";
 * "two" to "twelve" and a few tens in words), names ending in one ("europe-west3", "v9", "es2022"), days and months.
 */
function values(text: string): Set<string> {
  const out = new Set<string>();
  // Times in one spelling, as in the content words: "2am", "2:00 am" and "02:00" are one.
  const t = text.toLowerCase().replace(
    /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b/g,
    (_, h, m, ap) =>
      `${String((Number(h) % 12) + (ap === "pm" ? 12 : 0)).padStart(2, "0")}:${m ?? "00"}`,
  ).replace(/\b(\d):(\d\d)\b/g, "0$1:$2").replace(SIZE, sizeOf);
  for (
    const m of t.matchAll(
      /\b\d+(?:[.:]\d+)*(?:[a-z]{1,3})?\b|\b[a-z][a-z-]*\d+\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|sixty|hundred)\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b/g,
    )
  ) out.add(NUMBER_WORDS[m[0]] ?? m[0].replace(/s$/, ""));
  return out;
}

/**
 * The kind of a value of {@link values}: a number (with or without a unit, a time, a version),
 * a day, a month, or a name ending in a number by its letters ("europe-west", "v", "comp-").
 */
function valueKind(v: string): string {
  if (/^\d/.test(v)) return "number";
  if (/day$/.test(v)) return "day";
  if (!/\d/.test(v)) {
    return /^(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|sixty|hundred)$/
        .test(v)
      ? "number"
      : "month";
  }
  return v.replace(/\d+$/, "");
}

/** Counts in words as digits ("two approvals" and "2 approvals" set one value). */
const NUMBER_WORDS: Record<string, string> = Object.fromEntries(
  "two three four five six seven eight nine ten eleven twelve".split(" ").map((w, i) => [
    w,
    String(i + 2),
  ]).concat([["fifteen", "15"], ["twenty", "20"], ["thirty", "30"], ["sixty", "60"], [
    "hundred",
    "100",
  ]]),
);

/**
 * Whether `a` changes what `b` says rather than repeating it: it sets a value `b` does not
 * ("tokens live 10 minutes" against "tokens live 15 minutes"), or it says what changed and names
 * something `b` does not ("tests use Vitest, moved from Jest" against "tests use Jest"), or it
 * reverses its choice ("use npm, not pnpm" against "use pnpm, not npm"), or chooses something `b`
 * does not name over what `b` names ("use pnpm, not npm" against "we use npm"), or denies what
 * `b` states ("tests never hit the network" against "tests always hit the network"). Such a
 * text is for the contradiction check (a proposal that replaces `b`), not dropped as a repeat.
 */
export function updates(a: string, b: string): boolean {
  return updateReason(a, b) !== undefined;
}

/** Why `a` updates `b` ({@link updates}): the name of the test that tells, or nothing. */
export function updateReason(a: string, b: string): string | undefined {
  a = compared(a);
  b = compared(b);
  // "use npm, not pnpm" against "use pnpm, not npm": the choice reversed.
  const ca = a.match(CHOICE), cb = b.match(CHOICE);
  if (ca && cb && ca[1].toLowerCase() === cb[2].toLowerCase()) return "reversed";
  // "never use pnpm" against "use pnpm, not npm": what `b` chooses, `a` denies.
  if (cb && !ca) {
    const chosen = [...contentWords(cb[1])], denied = new Set<string>();
    // Of its statement: after a marker, ", never use pnpm" is no contrast (since 0.20, round 2).
    for (const t of [a, statement(a)]) {
      for (const m of denialCore(t).matchAll(DENIED)) {
        for (const w of contentWords(m[m.length - 1] ?? "")) denied.add(w);
      }
    }
    if (chosen.length && chosen.every((w) => denied.has(w))) return "reversed";
  }
  // "use pnpm, not npm" against "we use npm for everything": the choice changed from what `b`
  // names to something it does not.
  if (ca) {
    const wb = contentWords(b);
    const chosen = [...contentWords(ca[1])], excluded = [...contentWords(ca[2])];
    if (
      chosen.length && excluded.length && chosen.every((w) => !wb.has(w)) &&
      excluded.some((w) => wb.has(w))
    ) return "choice";
  }
  // "use vitest for the frontend tests" against "use Jest for the frontend tests": something
  // else used; "Priya owns the pipeline" against "Raj owns the pipeline": another owner.
  for (const re of [USED, OWNER]) {
    const ua = a.match(re), ub = b.match(re);
    if (!ua || !ub) continue;
    const x = contentWords(ua[1]), y = contentWords(ub[1]);
    if (x.size && y.size && [...x].every((w) => !y.has(w))) return "used-or-owner";
  }
  // "run the linter before pushing, except for docs-only changes" against "run the linter
  // before pushing": the rule narrowed by what `b` does not name.
  const ea = a.match(EXCEPT);
  if (ea && !EXCEPT.test(b)) {
    const wb = contentWords(b);
    if ([...contentWords(ea[1] ?? ea[2])].some((w) => !wb.has(w))) return "exception";
  }
  // "staging deploys need QA sign-off" against "production deploys need QA sign-off", "tests
  // run on Vitest" against "tests run on Jest": another word of a set, another tool of a kind.
  if (otherInSlot(statement(a), bare(b)) || otherTool(statement(a), bare(b))) return "slot-or-tool";
  // "applied only by Atlantis, not with make apply" against "apply it with make apply": what
  // `b` does (outside a contrast of its own) is what `a` now excludes, and `a` says instead
  // something `b` does not.
  // Of the statement: a story told after the contrast is not what it excludes.
  const xa = statement(a).match(CONTRAST);
  if (xa) {
    // What `b` does: its statement, without its reasons, asides in parentheses and contrasts
    // ("use pnpm, not npm (npm rewrites the lockfile)" does not do npm).
    // Nor what `b` denies: "never through env blocks" does not do env (since 0.20, round 2).
    const wb = contentWords(
      withoutDenied(statement(b).replace(ASIDE, " ").replace(CONTRAST_ALL, " ")),
    );
    const excluded = [...contentWords(xa[1])];
    const rest = [...contentWords(statement(a).replace(xa[0], " "))];
    if (
      excluded.some((w) => wb.has(w)) && rest.some((w) => !wb.has(w))
    ) return "contrast";
  }
  // "migrations can be applied with psql in an emergency" against "… never apply them with psql
  // by hand": `a` allows what `b` forbids.
  const sa0 = statement(a);
  if (PERMIT.test(sa0) && !denies(sa0) && !PERMIT.test(b) && DENIAL.test(uncasual(bare(b)))) {
    return "permit";
  }
  // "only Dana can approve releases" against "any maintainer can approve releases": the rule
  // narrowed to something `b` does not name.
  const ONLY = /\bonly\b(?!\s+(?:if|when|once|after|before|just|for now)\b)/i;
  if (ONLY.test(sa0) && !/\bonly\b/i.test(b)) {
    // A version said as a limit ("Java 17 only, no records from 21") narrows nothing beyond
    // `b`'s version: its excluded values are left out ({@link withoutLimit}).
    const wb = contentWords(b);
    if ([...contentWords(withoutLimit(sa0, b))].some((w) => !hasWord(wb, w))) return "only";
  }
  // "format with Biome" against "format with Prettier": another name in the same statement.
  if (otherName(sa0, bare(b))) return "name";
  // "yarn, as always" against "use pnpm, not yarn": what `a` does is what `b` excludes.
  const xb = [...b.replace(ASIDE, " ").matchAll(CONTRAST_ALL)];
  if (xb.length && !denies(statement(a))) {
    const does = contentWords(statement(b).replace(ASIDE, " ").replace(CONTRAST_ALL, " "));
    const excluded = new Set(xb.flatMap((m) => [...contentWords(m[1])]));
    const doing = contentWords(
      statement(a).replace(ASIDE, " ").replace(CONTRAST_ALL, " "),
    );
    if ([...doing].some((w) => excluded.has(w) && !does.has(w))) return "excluded";
  }
  // "tests never hit the network" against "tests always hit the network": the same statement,
  // denied: a contradiction (its proposal replaces `b`), not a repeat. Statements of one clause
  // only: a denial in a side clause ("…; handlers never send mail themselves") says nothing of
  // the other text's main one.
  // Compared without their reasons: a reason's "don't" ("…, I don't want CI to find out")
  // denies nothing of the statement.
  const sa = statement(a), sb = statement(b);
  if (!ca && !cb && oneClause(sa) && oneClause(sb)) {
    const da = denies(sa), db = denies(sb);
    if (da !== db && (da ? deniesOf(sa, sb) : deniesOf(sb, sa))) return "denial";
  }
  // A value `b` does not set, where `b` sets one of its kind ("10 minutes" against "15
  // minutes", "europe-west3" against "europe-west1"); not a value of another kind ("two
  // decimals" against "PIC S9(n)V99 COMP-3": an example of the rule, not a change).
  // A value `a` excludes ("no records-pattern features from 21") is not one it sets: the
  // values of what it denies are left out (a denial of `b`'s own value is the denial test's).
  // Of the statement: a value in its story or its reason is not one it sets (since 0.21).
  const va = values(withoutDenied(statement(a))), vb = values(b);
  const kb = new Set([...vb].map(valueKind));
  if ([...va].some((v) => !vb.has(v) && kb.has(valueKind(v)))) return "value";
  const told = withoutStory(a);
  if (!CHANGE.test(told) || insteadOfNothing(told, b)) return undefined;
  const wb = contentWords(b);
  return [...contentWords(a)].some((w) =>
      !wb.has(w) && !/^(move|switch|migrat|chang|replac|gone)/.test(w)
    )
    ? "change"
    : undefined;
}

/**
 * Whether the only word of a change in `a` is an "instead" that names, with a capital or as
 * code, only what `b` names too ("handlers never unwrap — return AppError instead" against "…;
 * errors go through AppError"): the rule's own alternative, not a change of `b`.
 */
function insteadOfNothing(a: string, b: string): boolean {
  const words = [...a.matchAll(new RegExp(CHANGE.source, "gi"))].map((m) => m[0].toLowerCase());
  if (!words.length || words.some((w) => w !== "instead") || /\binstead of\b/i.test(a)) {
    return false;
  }
  const clause = a.split(CLAUSES).find((p) => /\binstead\b/i.test(p)) ?? a;
  const wb = new Set(uncasual(b).split(/[^a-z0-9_@./-]+/).map((w) => w.replace(/[./-]+$/, "")));
  const named = [...capitalNames(clause), ...codeOf(clause)];
  return named.length > 0 && named.every((n) => wb.has(n) || contentWords(b).has(n));
}

/** Where a text goes on with a statement of its own: " — ", "; ", ": ", ", so ", ", and ". */
const CLAUSES = /\s[—–-]+\s|;\s+|:\s+|,\s+(?:so|and|but|again)\s+/;

/** Content words a clause needs for its overlap alone to count. */
const CLAUSE_WORDS = 3;

/**
 * Whether `a` nearly repeats `b`: their content words overlap by `threshold` (of the smaller
 * text's, and by {@link NEAR_DUPLICATE_OF_LARGER} of the larger's), or a clause of
 * `a` with {@link CLAUSE_WORDS} content words or more does ("keep the helpers in packages/ui —
 * again, packages don't import from apps" repeats "packages never import from apps/*"), the
 * text as it is or its {@link statement} (without the user's marks of a repeat and its reason,
 * against `b` and against `b`'s statement); never when `a` updates `b`.
 */
export function isNearDuplicate(a: string, b: string, threshold = NEAR_DUPLICATE): boolean {
  a = compared(a);
  b = compared(b);
  // What `b` says outside its asides in parentheses must be repeated too: "the anomaly scorer
  // fails open" does not repeat "authsvc only calls Claude Haiku (the anomaly scorer runs on
  // every login)".
  const bare = b.replace(ASIDE, " ");
  if (narrowedIn(a, b)) return false;
  return repeatsAny(a, b, threshold) && (bare === b || repeatsAny(a, bare, threshold)) &&
      !updates(a, b) && !ownClause(a, b) && !otherExcluded(a, b) && !usesOwn(a, b) ||
    repeatsByExclusion(a, b) || markedRepeat(a, b) || markedClauseRepeat(a, b, threshold);
}

/**
 * Whether `a` says something of its own beside `b`, by the tests {@link isNearDuplicate} applies
 * after the word overlap (a narrower `b`, a clause of its own, an exclusion or a "use X" of its
 * own); {@link updates} is apart. Read by tasks/capture_repeat_meaning.ts (docs/capture.md,
 * "0.22: repeats by meaning").
 */
export function saysOwn(a: string, b: string): boolean {
  a = compared(a);
  b = compared(b);
  return narrowedIn(a, b) || ownClause(a, b) || otherExcluded(a, b) || usesOwn(a, b);
}

/**
 * A condition or a time that limits a rule ("during a release", "unless the build is green",
 * "before 10am": what follows, up to the clause's end; "on fridays", "on weekends").
 */
const QUALIFIER =
  /\b(?:during|before|after|until|when|whenever|if|unless|except|while)\s+((?:[^,;.!?:—–()]|\.(?=\S))+)|\bon\s+((?:mon|tues|wednes|thurs|fri|satur|sun|week)(?:day|end)s?|holidays?)\b/gi;

/**
 * Whether `b` holds a qualifier of which `a` names no word ("never push to main on fridays"
 * against "remember: never push to main"): `b` is the narrower rule, and `a` widens it; merged
 * into `b`, the wider rule would be lost. Since 0.20, after review.
 */
function narrowedIn(a: string, b: string): boolean {
  let wa: ReadonlySet<string> | undefined;
  for (const m of statement(b).replace(ASIDE, " ").matchAll(QUALIFIER)) {
    const named = wa ??= contentWords(statement(a));
    const q = [...contentWords(m[1] ?? m[2])];
    if (q.length && !q.some((w) => named.has(w))) return true;
  }
  return false;
}

/**
 * Whether `a`, which the user marks as known ({@link REPEAT_MARK}: "as we agreed", "remember",
 * "same as always"), restates `b`: all it affirms (outside its denials and contrasts) is in
 * `b`, it denies nothing `b` affirms, it names no value, code, tool or capitalised name of its
 * own outside its denials and no tool or capitalised name of its own in them, and no test of
 * {@link updateReason} tells a change but an "only" that the denial explains ("Runes only, as
 * we agreed, no `export let`" against "components are written for Svelte 5 with runes").
 * Without a stored memory it matches, a marked statement is still proposed. Since 0.20, round 2.
 */
function markedRepeat(a: string, b: string): boolean {
  if (!MARK_ONE.test(a)) return false;
  const sa = bare(statement(a));
  const kept = withoutLimit(sa, b);
  const affirmedText = withoutDenied(kept).replace(CONTRAST_ALL, " ");
  const affirmed = [...contentWords(affirmedText)];
  if (!affirmed.length) return false;
  const wb = new Set(contentWords(b));
  // The words of `b`'s camelCase names ("SparkSession": "spark", "session").
  for (const m of b.matchAll(/\b[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b/g)) {
    for (const p of m[0].split(/(?=[A-Z])/)) for (const w of contentWords(p)) wb.add(w);
  }
  if (!affirmed.every((w) => wb.has(w))) return false;
  const vb = values(b);
  if ([...values(kept)].some((v) => !vb.has(v))) return false;
  if ([...codeOf(affirmedText)].some((w) => !wb.has(w))) return false;
  const plainA = sa.replace(/`[^`]*`/g, " ");
  const names = wordsOfNames([...namesIn(plainA), ...capitalNames(plainA)], new Set());
  if ([...names].some((w) => !wb.has(w))) return false;
  const pb = polarity(b), pa = polarity(a);
  if ([...pa.excluded].some((w) => pb.affirmed.has(w) && !pb.excluded.has(w))) return false;
  const why = updateReason(a, b);
  return why === undefined || why === "only";
}

/**
 * Whether `a` says to use a tool or a capitalised name that `b` does not hold, outside what it
 * denies ("No Helm charts, use Jsonnet" against "… kustomize overlays; no Helm charts"): a
 * choice of its own, not a repeat. Since 0.20, round 2.
 */
function usesOwn(a: string, b: string): boolean {
  const t = withoutDenied(statement(a)).replace(CONTRAST_ALL, " ");
  const used = t.match(USED)?.[1];
  if (!used) return false;
  // A name with a capital and a small letter ("Jsonnet") or a tool written small ("jsonnet"),
  // not an acronym ("CSS custom properties": what `b`'s words are written in).
  const named = /^[A-Z][A-Za-z0-9]*[a-z]/.test(used) ||
    used === used.toLowerCase() && namesIn(used).length > 0;
  const wb = contentWords(b);
  return named && [...contentWords(used)].some((w) => !wb.has(w));
}

/** A forbidden action and its object: "never log tokens to Sentry" → "log", "tokens". */
const FORBIDDEN_ACT =
  /\b(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t)\s+([a-z]+)\s+([^,;.!?:—–()]+?)\s+(?:to|in|into|on|onto|from|with|through|via|at|for)\s/i;

/**
 * Whether `a` and `b` forbid the same action on different things ("never log tokens to Sentry"
 * against "never log request bodies to Sentry": the objects share no word): two rules, not a
 * repeat. Since 0.20, round 2.
 */
function otherExcluded(a: string, b: string): boolean {
  const ma = uncasual(statement(a)).match(FORBIDDEN_ACT);
  const mb = uncasual(statement(b)).match(FORBIDDEN_ACT);
  if (!ma || !mb || folded(ma[1]) !== folded(mb[1])) return false;
  const oa = contentWords(ma[2]), ob = contentWords(mb[2]);
  return oa.size > 0 && ob.size > 0 && ![...oa].some((w) => ob.has(w));
}

/**
 * Whether `a` repeats `b` in the other polarity or other words of a rule that excludes: both
 * exclude the same named thing ({@link sameExclusion}: "don't reach for pandas in the returns
 * flow" against "transforms use polars, not pandas"; "don't do `pulumi login` to the cloud
 * thing, we're on the s3 bucket backend" against "Pulumi state lives in the S3 backend, not in
 * Pulumi Cloud"), and `a` changes nothing of `b` outside what it denies: no test of
 * {@link updateReason} but those a shared exclusion explains (a denial, a contrast, what `b`
 * excludes; "use X" named only inside the denial, "never use npm"), and no code, value or name
 * of its own outside its denials and contrasts. Since 0.20.
 */
function repeatsByExclusion(a: string, b: string): boolean {
  if (!DENIAL.test(a) || !DENIAL.test(b) || !sameExclusion(a, b)) return false;
  const why = updateReason(a, b);
  // "never use npm" names what it uses only inside its denial.
  const usedDenied = why === "used-or-owner" && !USED.test(withoutDenied(statement(a)));
  if (why && !usedDenied && !EXPLAINED.has(why)) return false;
  const t = withoutDenied(bare(statement(a))).replace(CONTRAST_ALL, " ");
  const wb = contentWords(b), vb = values(b);
  return ![...codeOf(t)].some((w) => !wb.has(w)) && ![...values(t)].some((v) => !vb.has(v)) &&
    !namesOwn(t, b);
}

/** The tests of {@link updateReason} that a shared exclusion explains ({@link repeatsByExclusion}). */
const EXPLAINED = new Set(["denial", "contrast", "excluded"]);

/**
 * Whether `a` has a clause of its own beside what it repeats: a clause (after " — ", "; ", ":
 * ", ", and …", ", so …") that shares no content word with `b` and states a rule ("— and always
 * sign your commits", ": no subroutine signatures") or names something with a capital ("; errors
 * go through AppError", ": we let Mergify do it"). Such a text says more than `b`: it is
 * proposed, not dropped.
 */
function ownClause(a: string, b: string): boolean {
  const wb = contentWords(b), vb = values(b);
  // A part between commas with none of `b`'s words and a value of its own ("Commit messages in
  // the imperative mood, subject under 50 characters" says more than "write commit messages in
  // the imperative mood").
  // Not in a message the user marks as a repeat ("bump lodash to 4.17.21 and, as always, pnpm
  // not npm": the marked part is the repeat, the rest a request).
  const commas = statement(a).split(/,\s+/);
  if (
    commas.length > 1 && !MARK_ONE.test(a) && commas.some((p) => {
      const w = [...contentWords(p)];
      const own = w.filter((x) => !wb.has(x)).length;
      return own * 2 > w.length && [...values(withoutDenied(p))].some((v) => !vb.has(v));
    })
  ) return true;
  // A denial of another value of a kind `b` sets is the limit of `b`'s value said again ("Java
  // 17 only, no language features from 21" against "builds with Java 17"), not a rule of its own.
  const kb = new Set([...vb].map(valueKind));
  const limit = (p: string) =>
    denies(p) && [...values(p)].some((v) => !vb.has(v) && kb.has(valueKind(v))) &&
    ![...values(withoutDenied(p))].some((v) => !vb.has(v));
  const parts = statement(a).split(CLAUSES);
  if (parts.length < 2) return false;
  const named = (p: string) => /\s(?!I\b|I'[a-z]+\b)[A-Z][\w-]*[a-z][\w-]*/.test(p.trim());
  return parts.some((p) => {
    const w = [...contentWords(p)];
    if (!w.length) return false;
    const own = w.filter((x) => !wb.has(x)).length;
    // Mostly words of its own (three or more), with a value or a name `b` does not hold ("the
    // atmosphere side is owned by Pia's group and they send fluxes every 6 model hours").
    if (own >= 3 && own * 2 > w.length && own < w.length) {
      return [...values(p)].some((v) => !vb.has(v)) || named(p);
    }
    if (own < w.length || limit(p)) return false;
    return RULE_WORD.test(p) || denies(p) || named(p);
  });
}

/** Whether `a`, or its statement, or a clause of either repeats `b` or its statement. */
function repeatsAny(a: string, b: string, threshold: number): boolean {
  const ca = statement(a), cb = statement(b);
  const tries: [string, string][] = [[a, b]];
  if (ca !== a) tries.push([ca, b]);
  if (cb !== b) tries.push([ca, cb]);
  // A version said as a limit ("Java 17 only, no records-pattern stuff from 21" against "builds
  // with Java 17"): what it excludes beyond `b`'s value is the limit, not words of its own.
  const la = withoutLimit(ca, b);
  if (la !== ca) tries.push([la, b]);
  for (const [x, y] of tries) {
    if (!x || !y) continue;
    if (repeats(x, y, threshold)) return true;
    const parts = x.split(CLAUSES);
    if (
      parts.length > 1 &&
      parts.some((p) => contentWords(p).size >= CLAUSE_WORDS && repeats(p, y, threshold))
    ) return true;
    // A part between commas that names a code name of `y` ("New field for the bonus, COMP-3
    // with two decimals like every money field").
    const wy = contentWords(y);
    if (
      x.split(/,\s+/).some((p) =>
        p !== x && contentWords(p).size >= CLAUSE_WORDS && sharedKeys(p, wy) > 0 &&
        repeats(p, y, threshold)
      )
    ) return true;
  }
  // A part the user marks as known inside a longer message ("bump lodash to 4.17.21 and, as
  // always, pnpm not npm"): what follows the mark to the end of its sentence, all of whose
  // content words `b` has (or its statement).
  return markedParts(a).some((p) => {
    const w = [...contentWords(p)];
    if (!w.length) return false;
    return [b, cb].some((y) => {
      const wy = contentWords(y);
      return w.every((x) => wy.has(x)) && ![...codeOf(p)].some((x) => !wy.has(x));
    });
  });
}

/** What follows each of the user's marks of a repeat inside a text, to its sentence's end. */
function markedParts(text: string): string[] {
  const hit = MARKED.get(text);
  if (hit) return hit;
  const out = markedPartsOf(text);
  if (MARKED.size >= SEEN_MAX) MARKED.clear();
  MARKED.set(text, out);
  return out;
}

/** Marked parts of recent texts ({@link markedParts}). */
const MARKED = new Map<string, string[]>();

function markedPartsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(REPEAT_MARK)) {
    if (!m.index) continue;
    const rest = text.slice(m.index + m[0].length).split(/[.!?](?:\s|$)/)[0];
    const part = statement(rest);
    if (part) out.push(part);
  }
  return out;
}

/** Where a clause opens or closes inside a sentence, for {@link markedClauses}. */
const CLAUSE_EDGE = /\s[—–-]+\s|;\s+|:\s+|,\s+|\(|\)|\s(?:and|but|so)\s/;

/**
 * The clauses next to each of the user's marks of a repeat: the first clause after it ("and
 * remember logic lives in the view model, …": "logic lives in the view model") and the last
 * before it ("encrypt it with ansible-vault like all the other secrets", "(not pandas,
 * obviously)", "domain.entity.vN like the rest"). Since 0.21.
 */
function markedClauses(text: string): string[] {
  if (statesOwn(text)) return [];
  const out: string[] = [];
  for (const m of text.matchAll(REPEAT_MARK)) {
    const i = m.index ?? 0;
    const after = text.slice(i + m[0].length).split(/[.!?](?:\s|$)/)[0]
      .replace(/^[\s,;:.!)—–-]+/, "").split(CLAUSE_EDGE)[0];
    const before = text.slice(0, i).replace(/[\s,;:(—–-]+$/, "").split(/[.!?]\s/).pop() ?? "";
    for (const p of [after, before.split(CLAUSE_EDGE).pop() ?? ""]) {
      const c = statement(p);
      if (c) out.push(c);
    }
  }
  return out;
}

/**
 * A clause that states something rather than asks for it: a verb in the present of a subject
 * ("is owned by", "are", "uses", "lives", "runs": a request says "use", "run", "add").
 */
const DECLARES =
  /\b(?:is|are|'s|'re|was|were|has|have|uses|lives|owns|runs|goes|sits|belongs|stays|remains|means|needs|depends|calls|sends|takes|handles|contains|holds|gets)\b(?!\s*(?:[.!?,;:]|$))/i;

/**
 * The marks of a rule of a clause's own, for {@link statesOwn}: {@link RULE_WORD} without "only"
 * and "required" ("run the playbook against pve4 only" scopes a request), with "from now on".
 */
const OWN_RULE =
  /\b(?:never|always|must|mustn'?t|should|shouldn'?t|don'?t|do not|no longer|from now on|going forward)\b/i;

/**
 * Whether a message states something of its own beside its marked clauses: a clause, not next
 * to a mark of a repeat, that says a change ({@link CHANGE}: "we moved off prisma to drizzle"),
 * states a fact ({@link DECLARES}: "the atmosphere side is owned by Pia's group") or a rule
 * ({@link OWN_RULE}: "and always pin the chart to 4.2"). Such a
 * message is a statement with a repeat inside, not a request with one: its marked clauses are not
 * read alone ({@link markedClauseRepeat}). Since 0.21.
 */
function statesOwn(text: string): boolean {
  const marked = new RegExp(REPEAT_MARK.source, "i");
  for (const sentence of text.split(/[.!?](?:\s|$)/)) {
    const parts = sentence.split(CLAUSE_EDGE);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      // The marked clause, or the one a mark closes ("(not pandas, obviously)").
      const next = parts[i + 1] ?? "";
      if (marked.test(p) || marked.test(next) && !contentWords(statement(next)).size) continue;
      const st = statement(p);
      // A rule of its own beside the marked clause ("…like all the other services, and always
      // pin the chart to 4.2") is a new statement too: the message is not a repeat.
      if (STRICT_CHANGE.test(st) || DECLARES.test(st) || OWN_RULE.test(st)) return true;
    }
  }
  return false;
}

/**
 * Whether a clause the user marks as known inside a longer message ({@link markedClauses})
 * repeats `b`, judged on the clause alone (the rest of the message is often a request: "Please:
 * drop pve1 …, add its key to the vaulted vars (encrypt it with ansible-vault like all the other
 * secrets …)"): all its content words in `b`, or (with {@link CLAUSE_WORDS} or more) the
 * overlap of {@link repeats}; two content words or more, or one that both exclude ("not
 * pandas, obviously" against "use polars, not pandas") or a code name of `b`; no code of its own; it excludes nothing
 * `b` affirms and affirms nothing `b` excludes; `b` is not narrower; and no test of
 * {@link updateReason} tells a change. Since 0.21.
 */
function markedClauseRepeat(a: string, b: string, threshold: number): boolean {
  if (!MARK_ONE.test(a)) return false;
  const wb = contentWords(b), pb = polarity(b);
  return markedClauses(a).some((c) => {
    const w = [...contentWords(c)];
    if (!w.length) return false;
    const pc = polarity(c);
    // One word: what both exclude, or a code name of `b` ("domain.entity.vN like the rest").
    const one = (x: string) =>
      pc.excluded.has(x) && pb.excluded.has(x) || codeOf(c).has(x) && hasWord(wb, x);
    if (w.length < 2 && !w.every(one)) return false;
    const all = w.every((x) => hasWord(wb, x));
    if (!all && !(w.length >= CLAUSE_WORDS && repeats(c, b, threshold))) return false;
    if ([...codeOf(c)].some((x) => !hasWord(wb, x))) return false;
    if ([...pc.excluded].some((x) => pb.affirmed.has(x) && !pb.excluded.has(x))) return false;
    if ([...pc.affirmed].some((x) => pb.excluded.has(x) && !pb.affirmed.has(x))) return false;
    return !narrowedIn(c, b) && updateReason(c, b) === undefined && !otherExcluded(c, b) &&
      !usesOwn(c, b);
  });
}

/**
 * The user's own marks of a repeat ("as usual", "like always", "as I said", "remember"): they
 * say the statement is known, and name nothing of it.
 */
const REPEAT_MARK =
  /\b(?:(?:same )?as (?:usual|always|before|agreed|discussed|mentioned|ever|established|noted)|(?:as )?per usual|(?:like|as) (?:we|i) (?:always )?(?:do|did|said|say|agreed|discussed|mentioned|told you)(?: (?:before|earlier|already))?|like (?:always|usual|before|last time|everywhere else|the other (?:repos?|projects?|services?))|(?:like|same as) (?:all |every )?(?:the )?(?:rest|others?(?: [a-z]+)?)(?![\w-])|obviously|of course|naturally|as (?:i|we)(?: already)? (?:said|say|mentioned|discussed|agreed)|(?:i|we) told you|(?:just )?(?:a )?(?:friendly )?reminder|remember(?: that)?|(?:don'?t|do not) forget(?: to| that| about)?|you know|for the record|the usual|(?:that|this|it) (?:hasn'?t|has not|didn'?t|did not) changed?|(?:that'?s|that is|it'?s|it is) still (?:true|the case|the rule|so)|nothing(?:'s| has) changed)\b/gi;

/** {@link REPEAT_MARK} for one test (no global state). */
const MARK_ONE = new RegExp(REPEAT_MARK.source, "i");

/**
 * A reply's opening that confirms or acknowledges ("yes —", "yep,", "right,", "ok so"): it
 * names nothing of the statement after it.
 */
const REPLY =
  /^\s*(?:(?:yes|yep|yeah|yup|ya|ok|okay|k|sure|so|and|also|oh)(?=[\s,.!:;—–]|$)[\s,.!:;—–-]*|(?:right|correct|exactly|indeed|true|absolutely|definitely|of course|ofc|that's right|that's correct|confirmed)\s*[,.!:;—–-]+(?=\s|$)\s*)+/i;

/** Where a statement goes on with a clause of its own: " — ", "; ", ": " (from a run's start). */
const TAIL = /(?<![\s—–-])\s[—–-]+\s|(?<!;);\s+|(?<!:):\s+/;

/**
 * The opening of a story or a reason told as a plain sentence: a subject that points back at the
 * statement or at the people ("we got paged at 3am over one", "anything in public/ skips the
 * image optimizer", "someone wiped a week of history that way"), after a connective.
 */
const STORY_START =
  /^(?:(?:and|but|so|plus|honestly|seriously|trust me|fwiw|btw|because|since)[\s,]+)*(?:we|we've|we're|i|i've|i'm|it|it's|its|they|they're|that|that's|thats|this|those|these|there|there's|anything|everything|everyone|everybody|someone|somebody|people|one|once|last (?:time|year|month|week|sprint|quarter)|the last time|back when|ever since|learned|long story)\b/i;

/** A past told: "last year", "twice", "the hard way", or a verb of what happened. */
const PAST =
  /\b(?:last (?:time|year|month|week|sprint|quarter|night|spring|summer|fall|autumn|winter)|yesterday|ago|once|twice|back in|the other day|that way|the hard way|got|had|broke|lost|took|caused|bit|burned|burnt|wiped|crashed|leaked|spent|happened|blew|paged)\b/i;

/** When a story happened: "last spring", "two years ago", "back in 2022", "the other day". */
const PAST_TIME =
  /\b(?:last (?:time|year|month|week|sprint|quarter|night|spring|summer|fall|autumn|winter|release)|yesterday|ago|back in|the other day)\b/i;

/**
 * What a rule avoids, told as it happens: "a panic takes down the whole worker", "the optimizer
 * ignores public/", "it breaks the build".
 */
const CONSEQUENCE =
  /\b(?:takes? down|breaks?|kills?|blocks?|slows? (?:down|everything)|costs?|crash(?:es)?|panics?|leaks?|bites?|hurts?|wastes?|skips?|ignores?|misses?|loses?|corrupts?|pages?|wakes? (?:up|people)|floods?|spams?|times? out|blows? up)\b/i;

/** A tail that says it is the reason: ", that's the whole reason", ", that's why". */
const WHY_MARK =
  /(?<![\s,;—–-])[\s,;—–-]*(?:that'?s|thats|which is|hence) (?:the (?:whole |only |main |real )?reason|why)[.!]*\s*$/i;

/** Words that say a statement changes what held, without the past of a story ("was", "left"). */
const STRICT_CHANGE = new RegExp(
  CHANGE.source.replace("|was|were|", "|").replace("|left|", "|"),
  "i",
);

/**
 * Whether `tail` only says why or tells what happened: it opens like a story ({@link
 * STORY_START}), tells a past ({@link PAST}) or what the rule avoids ({@link CONSEQUENCE}) or
 * says it is the reason ({@link WHY_MARK}), and
 * states no rule, value, change, code, name or obligation of its own ("— and always sign your
 * commits", "— we moved off yarn", ": Mergify does it for us" are statements).
 */
function plainReason(tail: string): boolean {
  const marked = WHY_MARK.test(tail);
  const x = tail.replace(WHY_MARK, "").trim();
  if (!x) return marked;
  if (!marked && !STORY_START.test(x) && !PAST.test(x) && !CONSEQUENCE.test(x)) return false;
  // A time in a story is when it happened ("we got paged at 3am"), not a value or code.
  const past = PAST.test(x);
  // So is a year ("we lost a week to it in 2023").
  // And any value of a story that says when it happened ("when we shipped 600k last spring";
  // since 0.21).
  const dated = past && PAST_TIME.test(x);
  const when = (v: string) => past && /^(?:\d\d:\d\d|(?:19|20)\d\d)$/.test(v);
  // Code in a story told in the past is how it happened ("somebody leaked a password via
  // `nomad job inspect` last year"), not a detail the rule states (since 0.20, round 2).
  const story = past && STORY_START.test(x);
  const code = [...codeOf(x)].filter((w) => !when(w) && !story);
  const vals = [...values(x)].filter((v) => !when(v) && !dated);
  if (RULE_WORD.test(x) || vals.length || STRICT_CHANGE.test(x) || code.length) return false;
  if (/\b(?:need|needs|have to|has to|gotta|got to|should|must|please|pls)\b/i.test(x)) {
    return false;
  }
  // A name of its own (a capitalised word after the first, or a tool's name), outside a story
  // told in the past ("we had a leaked key on GitHub once").
  if (!past && (/\s(?!I\b|I'[a-z]+\b)[A-Z][\w-]*/.test(x) || namesIn(x).length)) return false;
  return true;
}

/** `text` without a story or reason told in a plain clause after " — ", "; " or ": ". */
function withoutStory(text: string): string {
  // The clauses from each opening on, the last first: "Watch the binary: keep it below 400k —
  // the docs site's score fell off a cliff when we shipped 600k last spring" tells its story
  // after the dash, not after the colon (since 0.21; before, only what followed the first
  // opening was read, as one tail).
  const opens = [...text.matchAll(TAIL_ALL)].filter((m) => m.index);
  let end = text.length;
  for (let i = opens.length - 1; i >= 0; i--) {
    const m = opens[i];
    const head = text.slice(0, m.index), tail = text.slice(m.index! + m[0].length, end);
    // What is left must state something: two content words, or one with a rule ("no secrets in
    // the repo", "use pnpm").
    const n = contentWords(head).size;
    const states = n >= 2 || n === 1 && (RULE_WORD.test(head) || denies(head) || USED.test(head));
    if (!states || !plainReason(tail)) break;
    end = m.index!;
  }
  return end === text.length ? text : text.slice(0, end);
}

/** {@link TAIL}, every one. */
const TAIL_ALL = new RegExp(TAIL.source, "g");

/**
 * Where a reason begins: "because …", "since …" (not "since 2024", a time), ", as …", "so
 * that …", "otherwise …", "to avoid …", and a wish of the user's (", I don't want CI to be the
 * first to find out", ", we'd rather …"). What follows it says why, not what.
 */
const REASON =
  /(?<![\s,;:(—–-])[\s,;:(—–-]+(?:because|'?cause|b\/c|bc|cuz|coz|since(?!\s+(?:\d|v\d|version|release|the (?:\w+ )?(?:upgrade|release|migration|move|switch)))|so that|otherwise|or else|to avoid|(?<=[,;—–-]\s*)as(?=\s+(?:the|it|its|they|we|our|that|this|those|these|\w+'s)\b)|(?<=[,;—–-]\s*)(?:i|we)(?:'d| would)? (?:really )?(?:don'?t |do not )?(?:want|like|prefer|rather|hate)\b)[\s\S]*$/i;

/** Rule words: a reason that holds one states a rule of its own ("since we never commit …"). */
const RULE_WORD =
  /\b(?:never|always|must|mustn'?t|should|shouldn'?t|only|don'?t|do not|no longer|required?)\b/i;

/**
 * The statement of a text without what only frames it: the user's marks of a repeat
 * ({@link REPEAT_MARK}) and a reason ({@link REASON}) that states no rule of its own. A
 * reason adds nothing to recall: "use pnpm here — because the lockfile is pnpm's" says what
 * "use pnpm, not npm" says.
 */
export function statement(text: string): string {
  text = compared(text);
  const hit = STATEMENTS.get(text);
  if (hit !== undefined) return hit;
  const out = statementOf(text);
  if (STATEMENTS.size >= SEEN_MAX) STATEMENTS.clear();
  STATEMENTS.set(text, out);
  return out;
}

/** Statements of recent texts ({@link statement}). */
const STATEMENTS = new Map<string, string>();

function statementOf(text: string): string {
  let t = text.replace(/[’‘]/g, "'").replace(REPEAT_MARK, " ").replace(REPLY, "")
    // "stays free of X", "keeps X out of Y": the polarity of "no X" (compared by `denies`), and
    // a verb that only frames the rule.
    .replace(/\b(?:free of|out of|outside of|outside|away from|clear of)\b/gi, " no ")
    .replace(/\b(?:stays?|staying|remains?)\b/gi, " ");
  // "no alert without a runbook" is "every alert with a runbook", "never deploy without a
  // review" is "always deploy with a review": a rule stated twice denied is not a denial.
  t = t.replace(
    /\b(?:(no)|never|don'?t|do not)\s+([^,;.!?—–()]{1,80}?)\s+without\b/gi,
    (_, no, x) => `${no ? "every" : "always"} ${x} with`,
  );
  // "don't edit the README table by hand, regenerate it" is "the README table is generated"
  // (since 0.21): a denial of editing what a tool writes states that the tool writes it.
  t = t.replace(HAND_EDIT, (_, x) => `${x} is generated`);
  const m = t.match(REASON);
  if (m && m.index! > 0) {
    const why = m[0];
    // A wish ("I don't want …") is a reason whatever its words; a "because …" with a rule word
    // or a value of its own ("…, because builds time out after 10 minutes") says more than why.
    const wish = /^[\s,;:(—–-]*(?:i|we)\b/i.test(why);
    // What is left must still state something: two content words, or "use X" ("for the
    // frontend, we prefer Tailwind" is not "for the frontend").
    const main = t.slice(0, m.index), n = contentWords(main).size, used = main.match(USED);
    const states = n >= 2 || n === 1 && !!used && contentWords(used[1]).size > 0;
    if (states && (wish || !RULE_WORD.test(why) && !values(why).size)) t = main;
  }
  // A story or a reason in a plain sentence after a dash, a colon or a semicolon ("no unwrap in
  // handlers — we got paged at 3am over one").
  t = withoutStory(t.replace(/\s+/g, " ").replace(/^[\s,;:.!—–-]+/, ""));
  return t.replace(/\s+/g, " ").replace(/^[\s,;:.!—–-]+|[\s,;:—–-]+$/g, "").trim();
}

/**
 * "don't edit X by hand, regenerate it", "never type into X yourself — regenerate it": a rule
 * that X is generated, in its other polarity.
 */
const HAND_EDIT =
  /\b(?:don'?t|do not|never)\s+(?:hand[- ]?edit|edit|type into|write into|modify|touch|change)\s+((?:[^,;.!?—–()]|\.(?=\w))+?)(?:\s+(?:by hand|manually|yourself|directly|in place))?\s*(?:[,;—–]|\s-)\s*(?:just\s+|always\s+)?(?:re-?generate|generate|rebuild)\s+(?:it|them)\b/gi;

/** What a statement excludes (what it denies or contrasts) and what it affirms (the rest). */
interface Polarity {
  excluded: ReadonlySet<string>;
  affirmed: ReadonlySet<string>;
}

/**
 * The {@link Polarity} of a text: the content words of its statement (without its asides in
 * parentheses and a reply's leading "no,") inside a contrast (", not pandas") or a denial ("don't
 * reach for pandas", to the next punctuation), a code name's plain parts with them
 * ("UnityEngine.Input" → "unityengine", "input"), and the content words of the rest.
 */
function polarity(text: string): Polarity {
  const hit = POLARITIES.get(text);
  if (hit) return hit;
  const core = uncasual(bare(statement(text))).replace(/^\s*(?:no|nope|nah)\s*[,.!:;—–-]+\s*/i, "");
  const excluded = new Set<string>();
  const add = (s: string) => {
    for (const w of contentWords(s)) {
      if (KIND_WORDS.has(w)) continue;
      excluded.add(w);
      for (const p of codeParts(w)) excluded.add(p);
    }
  };
  for (const m of core.matchAll(CONTRAST_ALL)) add(m[1]);
  const rest = core.replace(CONTRAST_ALL, " ");
  for (const m of rest.matchAll(DENIED)) add(m[m.length - 1] ?? "");
  const out = { excluded, affirmed: contentWords(rest.replace(DENIED, " ")) };
  if (POLARITIES.size >= SEEN_MAX) POLARITIES.clear();
  POLARITIES.set(text, out);
  return out;
}

/**
 * Words that name only the kind of what a denial excludes ("no Redux code", "no UnityEngine.Input
 * calls", "none of the Core Data stuff"): left out of what it excludes.
 */
const KIND_WORDS = new Set(
  ["code", "codes", "call", "calls", "usage", "stuff", "file", "files", "class", "classes", "thing"]
    .map((w) => [...contentWords(w)][0]).filter((w): w is string => !!w),
);

/** Polarities of recent texts ({@link polarity}). */
const POLARITIES = new Map<string, Polarity>();

/** The plain parts of a code name ("unityengine.input" → "unityengine", "input"), folded. */
function codeParts(w: string): string[] {
  if (!/[_./:@#-]/.test(w)) return [];
  return w.split(/[_./:@#-]+/).filter((p) => p.length > 2 && !STOP.has(p)).map(folded);
}

/** The folded content words of `names`. */
function wordsOfNames(names: Iterable<string>, into: Set<string>): Set<string> {
  for (const n of names) for (const w of contentWords(n)) into.add(w);
  return into;
}

/**
 * Whether `a` and `b` exclude the same thing and `a` adds nothing beside it (a sameness of
 * rules, not of topic: two statements of one project share its words, two repeats of a rule
 * share what it forbids):
 *
 * - both exclude one *name* ({@link polarity}): a tool, code, a name with a capital or in
 *   camelCase, not a plain name in kebab-case or snake_case nor its parts ("payments-api":
 *   often the project's, in all its memories);
 * - `a` excludes at least two thirds of what `b` excludes ("never log tokens to Sentry" is not
 *   "never log request bodies to Sentry"; "we don't use Lombok in the tests either" is not "no
 *   Lombok in main code");
 * - `a` excludes no name `b` affirms and does not exclude too ("never use pnpm" against "use
 *   pnpm, not npm") and no tool or name with a capital `b` does not hold ("don't pull in numpy
 *   or pandas");
 * - `b` excludes nothing `a` affirms;
 * - what `a` affirms, `b` holds: no name of its own, and at most half its words of its own
 *   ("we're on the s3 bucket backend": "bucket").
 */
function sameExclusion(a: string, b: string): boolean {
  const pa = polarity(a), pb = polarity(b);
  const common = [...pa.excluded].filter((w) => pb.excluded.has(w));
  if (!common.length) return false;
  const names = new Set<string>();
  const plain = new Set<string>();
  for (const t of [a, b]) {
    wordsOfNames([...namesIn(t), ...capitalNames(t), ...keyNames(t)], names);
    wordsOfNames(t.match(/\b[A-Z][A-Za-z]*[A-Z][A-Za-z]*\b/g) ?? [], names);
    for (const m of t.matchAll(/(?<![\w-])[a-z]+(?:[_-][a-z]+)+(?![\w-])/g)) {
      wordsOfNames([m[0], ...m[0].split(/[_-]/)], plain);
    }
  }
  const named = (w: string) => names.has(w) && !plain.has(w);
  if (!common.some(named)) return false;
  // A member of an excluded class is excluded with it ("Input.GetKey" with "UnityEngine.Input":
  // the code name whose first part is the other's last; since 0.20, round 2).
  const members = new Set<string>();
  for (const w of pb.excluded) {
    const ps = w.split(/[./:#]+/);
    if (ps.length < 2) continue;
    const last = ps[ps.length - 1];
    if ([...pa.excluded].some((v) => /[./:#]/.test(v) && v.split(/[./:#]+/)[0] === last)) {
      members.add(w);
      for (const p of codeParts(w)) members.add(p);
    }
  }
  const covered = [...pb.excluded].filter((w) => pa.excluded.has(w) || members.has(w)).length;
  if (covered * 3 < pb.excluded.size * 2) return false;
  const inB = new Set([...pb.excluded, ...pb.affirmed]);
  for (const w of pb.affirmed) for (const p of codeParts(w)) inB.add(p);
  // The tools and capitalised names of `a` outside its code ("`pulumi login`" names a command).
  const plainA = a.replace(/`[^`]*`/g, " ");
  const toolsA = wordsOfNames([...namesIn(plainA), ...capitalNames(plainA)], new Set());
  if (
    [...pa.excluded].some((w) =>
      named(w) && !pb.excluded.has(w) && pb.affirmed.has(w) || toolsA.has(w) && !inB.has(w)
    )
  ) return false;
  if ([...pb.excluded].some((w) => pa.affirmed.has(w) && !pa.excluded.has(w))) return false;
  const own = [...pa.affirmed].filter((w) => !inB.has(w));
  const namesA = wordsOfNames(
    [...namesIn(a), ...(a.match(/\b[A-Z][\w-]*[A-Z0-9][\w-]*\b|(?<=\S\s+)[A-Z][\w-]+/g) ?? [])],
    new Set(),
  );
  return !own.some((w) => namesA.has(w)) && own.length * 2 <= pa.affirmed.size;
}
