/**
 * How developers word the same thing, for the near-duplicate check of dedupe.ts: casual
 * spellings read as the words they stand for ("w/o" is "without", "thru" is "through", "pls"
 * is "please", "b/c" is "because"), words of one meaning in a coding session folded to one
 * ("screenshot", "img" and "picture" are "image"; "execute" is "run"; "creds" and "secrets"
 * are "credentials", a "stanza" is a "block", "deps" "dependencies"), and the sets of words that name *different* things in the same place of a
 * statement ("staging" and "production", "unit" and "integration", "iOS" and "Android",
 * "hourly" and "nightly"): a statement that puts one where the stored memory has another
 * changes it.
 *
 * Written from general knowledge of how developers talk, not from any benchmark's sentences.
 * The shipped word vectors were measured for this and left out: they put opposites and
 * neighbours of a set closer than synonyms ("before"/"after" 0.93, "small"/"large" 0.93,
 * "monday"/"friday" 0.99, "always"/"never" 0.87, against "photos"/"images" 0.72, and no vector
 * at all for "screenshot"), so a cosine cannot tell a repeat from a change.
 * @module
 */

/**
 * Casual spellings and the words they stand for (applied to the lower-cased text, whole words
 * only, in order).
 */
const CASUAL: [RegExp, string][] = [
  [/\bw\/o\b/g, "without"],
  [/\bw\/(?=\s|$)/g, "with"],
  [/\b(?:b\/c|bc|cuz|coz|cos)\b/g, "because"],
  [/(?<![\w'])'cause\b/g, "because"],
  [/\bb4\b/g, "before"],
  [/\bthru\b/g, "through"],
  [/\b(?:pls|plz)\b/g, "please"],
  [/\btho\b/g, "though"],
  [/\bprior to\b/g, "before"],
  [/\bahead of\b/g, "before"],
  [/\bevery (?:single )?time\b/g, "always"],
  [/\bmost recent\b/g, "latest"],
  [/\b(?:pull|merge) requests?\b/g, "pr"],
  [/\bmrs?\b/g, "pr"],
  [/\bend[ -]to[ -]end\b/g, "e2e"],
  [/\benv(?:ironment)? vars?\b/g, "envvar"],
  [/\benvironment variables?\b/g, "envvar"],
];

/** A text with its casual spellings read as the words they stand for (lower-cased). */
export function uncasual(text: string): string {
  let t = text.toLowerCase().replace(/[’‘]/g, "'");
  for (const [re, to] of CASUAL) t = t.replace(re, to);
  return t;
}

/**
 * Words of one meaning in a coding session, the first of each group the one they fold to.
 * Only groups whose words are not also the name of something else in the same place.
 */
const SAME = [
  "image img imgs picture pic pics photo screenshot screenshots",
  "pr prs",
  "run execute exec",
  "call invoke",
  "publish release ship",
  "merge land",
  "generate regenerate autogenerate",
  "credential creds cred secret",
  "function fn func",
  "package pkg pkgs",
  "library lib libs",
  "service svc",
  "parameter param params",
  "variable var vars",
  "utility util utils",
  "implementation impl",
  "request req",
  "response resp",
  "version ver",
  "minute mins",
  "second secs",
  "hour hrs",
  "permission perms",
  "infrastructure infra",
  "temporary tmp temp",
  "latest newest",
  "format fmt formatter",
  "error err",
  "delete remove",
  "upgrade bump",
  "verify validate",
  "application app",
  "staging stg",
  "approval approve",
  "database db dbs",
  "block stanza",
  "configuration config cfg conf",
  "dependency deps dep",
  "directory dir dirs folder",
  "kubernetes k8s kube",
  "environment env",
  "argument arg args",
  "message msg msgs",
];

/** Folded word (as dedupe.ts folds it) → the word of its group. */
const SAME_OF = new Map<string, string>();

/**
 * Register the groups with `fold` (dedupe's folding of a word): every word of a group, folded,
 * goes to the group's first word, folded.
 */
function table(fold: (w: string) => string): Map<string, string> {
  if (SAME_OF.size) return SAME_OF;
  for (const line of SAME) {
    const [head, ...rest] = line.split(" ").map(fold);
    for (const w of rest) if (w !== head) SAME_OF.set(w, head);
    SAME_OF.set(head, head);
  }
  return SAME_OF;
}

/** The word of `w`'s group ({@link SAME}), `w` itself when it has none. */
export function sameWord(w: string, fold: (w: string) => string): string {
  return table(fold).get(w) ?? w;
}

/**
 * Sets of words that name different things in the same place of a statement: a statement that
 * names one of a set where the stored memory names another of it (and not the first) changes
 * it. Compared on whole lower-cased words of the texts.
 */
const SLOTS = [
  "local development dev staging stage stg qa uat preprod production prod sandbox",
  "ios android web desktop windows linux macos mac",
  "frontend backend client server",
  "unit integration e2e smoke snapshot regression acceptance",
  "hourly daily nightly weekly biweekly monthly quarterly yearly annually",
  "main master develop trunk release hotfix",
  "json yaml yml toml xml csv",
  "tabs spaces",
  "camelcase snake_case kebab-case pascalcase",
  "public private internal",
  "before after",
  "read write",
  "sync async",
  "allow deny block",
  "enable disable",
  "min max minimum maximum",
  "first last",
  "major minor patch",
  "debug release",
  "upload download",
  "ascending descending",
  "uppercase lowercase",
  "single double",
  "light dark",
  "left right center centre",
  "lint linter linting test tests testing typecheck type-check",
  "squash rebase",
  "monorepo polyrepo",
  "http https",
];

/** Words of the same thing within a slot (one entry per word: its spelling group). */
const SLOT_SAME: Record<string, string> = {
  dev: "development",
  stage: "staging",
  stg: "staging",
  prod: "production",
  mac: "macos",
  yml: "yaml",
  minimum: "min",
  maximum: "max",
  linter: "lint",
  linting: "lint",
  tests: "test",
  testing: "test",
  "type-check": "typecheck",
  "front-end": "frontend",
  fe: "frontend",
  "back-end": "backend",
  "pre-prod": "preprod",
};

/** Each slot's words, in one spelling. */
const SLOT_SETS: Set<string>[] = SLOTS.map((l) =>
  new Set(l.split(" ").map((w) => SLOT_SAME[w] ?? w))
);

/** The slot words of a text, in one spelling. */
function slotWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of uncasual(text).split(/[^a-z0-9_-]+/)) {
    const t = w.replace(/^-+|-+$/g, "");
    if (!t) continue;
    out.add(SLOT_SAME[t] ?? t);
    // "right-align", "staging-only": the parts of a compound too.
    if (t.includes("-")) { for (const p of t.split("-")) if (p) out.add(SLOT_SAME[p] ?? p); }
  }
  return out;
}

/**
 * Whether `a` puts another word of a slot ({@link SLOTS}) where `b` has one: `a` names a word
 * of the set that `b` does not, and `b` names one that `a` does not ("staging deploys" against
 * "production deploys"; not "dev, staging and prod" against "dev, staging, prod").
 */
export function otherInSlot(a: string, b: string): boolean {
  const wa = slotWords(a), wb = slotWords(b);
  return SLOT_SETS.some((set) =>
    [...set].some((w) => wa.has(w) && !wb.has(w)) &&
    [...set].some((w) => wb.has(w) && !wa.has(w))
  );
}
