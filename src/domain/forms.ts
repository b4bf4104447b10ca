/**
 * Word forms the light stemmer of `terms.ts` cannot fold, used on the query side of search
 * (a query term also matches the other forms of its group) and by the confidence of a
 * result (`src/memory/confidence.ts`):
 *
 * - irregular English verbs ("chose", "choose", "chosen"; "pick" needs no entry: the
 *   stemmer folds "picked");
 * - short names of tools and terms coding agents meet ("postgres" ↔ "PostgreSQL",
 *   "k8s" ↔ "Kubernetes"); a short name of two words widens only where they stand together
 *   ("pull" is "PR" in "pull request", not in "git pull" or "docker pull").
 *
 * Forms that collide with a common word of another meaning are left out ("saw", "left",
 * "lay", "rose", "felt", "wound", "bore", "ground"). Identifiers (terms joined by
 * `_ . / : - @ #`) have no variants: they match exactly.
 * @module
 */
import { stem } from "./terms.ts";

// Each group: the forms of one verb (base, past, past participle, other forms).
const IRREGULAR_VERBS = [
  "arise arose arisen",
  "awake awoke awoken",
  "be was were been being",
  "bear bore born borne",
  "beat beaten",
  "become became",
  "begin began begun",
  "bend bent",
  "bet",
  "bind bound",
  "bite bit bitten",
  "bleed bled",
  "blow blew blown",
  "break broke broken",
  "breed bred",
  "bring brought",
  "build built",
  "burn burnt",
  "buy bought",
  "catch caught",
  "choose chose chosen",
  "cling clung",
  "come came",
  "creep crept",
  "deal dealt",
  "dig dug",
  "do did done",
  "draw drew drawn",
  "dream dreamt",
  "drink drank drunk",
  "drive drove driven",
  "eat ate eaten",
  "fall fell fallen",
  "feed fed",
  "fight fought",
  "find found",
  "flee fled",
  "fly flew flown flies",
  "forbid forbade forbidden",
  "forget forgot forgotten",
  "forgive forgave forgiven",
  "freeze froze frozen",
  "get got gotten",
  "give gave given",
  "go went gone goes",
  "grind",
  "grow grew grown",
  "hang hung",
  "have has had",
  "hear heard",
  "hide hid hidden",
  "hold held",
  "keep kept",
  "know knew known",
  "lead led",
  "lean leant",
  "learn learnt",
  "lend lent",
  "lose lost",
  "make made",
  "mean meant",
  "meet met",
  "pay paid",
  "prove proven",
  "ride rode ridden",
  "ring rang rung",
  "rise risen",
  "run ran",
  "say said",
  "see seen",
  "seek sought",
  "sell sold",
  "send sent",
  "shake shook shaken",
  "shine shone",
  "shoot shot",
  "show shown",
  "shrink shrank shrunk",
  "sing sang sung",
  "sink sank sunk",
  "sit sat",
  "sleep slept",
  "slide slid",
  "speak spoke spoken",
  "spend spent",
  "spin spun",
  "stand stood",
  "steal stole stolen",
  "stick stuck",
  "sting stung",
  "strike struck",
  "swear swore sworn",
  "sweep swept",
  "swim swam swum",
  "swing swung",
  "take took taken",
  "teach taught",
  "tear torn",
  "tell told",
  "think thought",
  "throw threw thrown",
  "understand understood",
  "wake woke woken",
  "wear wore worn",
  "weep wept",
  "win won",
  "write wrote written",
];

// Short names and abbreviations, each group one thing.
const SHORT_NAMES = [
  "postgres postgresql pg psql",
  "mysql mariadb",
  "mongo mongodb",
  "k8s kubernetes kube",
  "js javascript",
  "ts typescript",
  "py python",
  "rb ruby",
  "golang go",
  "rs rust",
  "gh github",
  "gl gitlab",
  "tf terraform",
  "db database",
  "repo repository",
  "config configuration conf cfg",
  "env environment",
  "auth authentication",
  "authz authorization",
  "deps dependencies dependency",
  "dep dependency",
  "docs documentation doc",
  "i18n internationalization",
  "l10n localization",
  "a11y accessibility",
  "ci cicd",
  "prod production",
  "dev development",
  "perf performance",
  "msg message",
  "pr prs pull",
  "dir directory folder",
  "args arguments",
  "regex regexp",
  "npm npmjs",
];

function groupsOf(lines: string[], exclude: (w: string) => boolean): Map<string, string[]> {
  const map = new Map<string, Set<string>>();
  for (const line of lines) {
    const stems = [...new Set(line.split(" ").filter((w) => !exclude(w)).map(stem))];
    if (stems.length < 2) continue;
    for (const s of stems) {
      const set = map.get(s) ?? new Set<string>();
      for (const t of stems) set.add(t);
      map.set(s, set);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
}

// Auxiliaries and "go"/"do" are stop words or too common to widen a query; the rest count.
const VERB_SKIP = new Set([
  "be",
  "was",
  "were",
  "been",
  "being",
  "do",
  "did",
  "done",
  "have",
  "has",
  "had",
  "go",
  "went",
  "gone",
  "goes",
  "get",
  "got",
  "gotten",
  "make",
  "made",
  "say",
  "said",
]);
const VERBS = groupsOf(IRREGULAR_VERBS, (w) => VERB_SKIP.has(w));
// "go" and "golang" are not one thing in ordinary prose: only "golang" widens to "go".
const NAMES = groupsOf(SHORT_NAMES.map((l) => l === "golang go" ? "golang" : l), () => false);
/**
 * Words that are a short name's long form only before the next word given ("pull request" is
 * a PR; "git pull" and "docker pull" are not): "pr" widens to "pull", "pull" to "pr" only there.
 */
const ONLY_BEFORE = new Map([[stem("pull"), stem("request")]]);

/**
 * The index terms a query term also matches: itself first, then the other forms of its verb
 * and its short or long name. `next` is the query's term after it (a two-word long name widens
 * only when whole). Identifiers and terms with digits other than known short names have no
 * variants.
 */
export function variantsOf(term: string, next?: string): string[] {
  if (/[_./:\-@#]/.test(term)) return [term];
  const out = new Set([term]);
  for (const v of VERBS.get(term) ?? []) out.add(v);
  const before = ONLY_BEFORE.get(term);
  if (before === undefined || before === next) {
    for (const v of NAMES.get(term) ?? []) out.add(v);
  }
  return [...out];
}

/** The variants of each term of a query, in order ({@link variantsOf} with its next term). */
export function queryVariants(queryTerms: string[]): string[][] {
  return queryTerms.map((t, i) => variantsOf(t, queryTerms[i + 1]));
}
