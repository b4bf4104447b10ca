/**
 * Index terms of a text, shared by the lexical side of search (postings in the database) and
 * the builtin `hash-v2` embedder.
 *
 * - Lower case, NFKC. Words are runs of letters and digits of any script.
 * - An identifier-like chunk (letters or digits joined by `_ . / : - @ #`, as in
 *   `ERR_CONN_RESET`, `tools/deploy.sh`, `v1.2.3`) is one term as a whole, and its parts are
 *   terms too: the whole matches exactly and ranks first, the parts still match loosely.
 * - Common English words, question words (what, when, where, who, how, which, why) and
 *   contraction pieces are stop words; single letters are dropped.
 * - A light English stemmer folds plurals and -ing/-ed forms ("paintings", "painted",
 *   "painting" → "paint"); words with digits and identifiers are never stemmed, so `8080`
 *   and `9090` stay distinct.
 * @module
 */

/** Stop words: common function words, question words and contraction pieces. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a about above after again against all also am an and any are as at be because been before " +
    "being below between both but by can could did do does doing down during each few for from " +
    "further had has have having he her here hers herself him himself his how i if in into is it " +
    "its itself just let me more most my myself no nor not now of off on once only or other ought " +
    "our ours ourselves out over own same she should so some such than that the their theirs them " +
    "themselves then there these they this those through to too under until up very was we were " +
    "what when where which while who whom whose why will with would you your yours yourself " +
    "yourselves s t d ll m re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn " +
    "hasn haven hadn yes yeah oh hey hi ok okay")
    .split(" "),
);

// Derivational suffixes folded after the inflections (first match wins).
const SUFFIXES = ["ational", "ation", "ness", "ment", "ful", "ly", "er"];

const JOINERS = /[_./:\-@#]/;

/**
 * Fold a word to a light stem: plurals, -ing, -ed, a few derivational suffixes (-ation,
 * -ness, -ment, -ful, -ly, -er) when at least four letters remain, a final e, a final y → i.
 * Words with digits or underscores stay as they are.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /[\p{N}_]/u.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undouble(w.slice(0, -2));
  for (const suf of SUFFIXES) {
    if (w.endsWith(suf) && w.length - suf.length >= 4) {
      w = w.slice(0, -suf.length);
      break;
    }
  }
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  if (w.endsWith("y") && w.length > 3) w = w.slice(0, -1) + "i";
  return w;
}

function undouble(w: string): string {
  const n = w.length;
  if (n > 3 && w[n - 1] === w[n - 2] && !/[aeiouslz]/.test(w[n - 1])) return w.slice(0, -1);
  return w;
}

const CHUNK_SPLIT = /[\s,;!?()[\]{}<>"'`“”‘’|=+*&%$^~\\]+/u;

/** Chunks of a sentence (split at spaces and punctuation, ends trimmed), with their words. */
function chunksOf(text: string): { chunk: string; parts: string[] }[] {
  const out: { chunk: string; parts: string[] }[] = [];
  for (const raw of text.split(CHUNK_SPLIT)) {
    // Trim punctuation at the ends ("deploy.sh." at the end of a sentence).
    const chunk = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if (chunk) out.push({ chunk, parts: chunk.match(/[\p{L}\p{N}]+/gu) ?? [] });
  }
  return out;
}

const dropped = (p: string) => STOP_WORDS.has(p) || (p.length === 1 && !/\p{N}/u.test(p));

/** Index terms in text order (repeats kept). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const { chunk, parts } of chunksOf(text.normalize("NFKC").toLowerCase())) {
    if (parts.length > 1 && JOINERS.test(chunk)) out.push(chunk);
    for (const p of parts) if (!dropped(p)) out.push(stem(p));
  }
  return out;
}

/** A word of a query as written, with its index term. */
export interface QueryWord {
  /** The word in lower case (an identifier: the whole identifier). */
  word: string;
  /** Its index term (the stem; an identifier as it is). */
  term: string;
  /** An identifier (letters or digits joined by `_ . / : - @ #`): matches exactly. */
  identifier: boolean;
  /** Written with a capital first letter and a lower-case letter after it ("Caroline", "PostgreSQL"). */
  capitalized: boolean;
  /** Written in capitals only, two letters or more ("LGBTQ", "API"). */
  acronym: boolean;
  /** The first word of a sentence. */
  initial: boolean;
  /** A word of an identifier that comes just before it in the list. */
  inIdentifier: boolean;
}

/**
 * The words of a query that {@link terms} indexes (stop words and single letters left out), in
 * text order, with how each is written: what the confidence of a result looks at (names are
 * told from other words by their capitals).
 */
export function queryWords(text: string): QueryWord[] {
  const out: QueryWord[] = [];
  for (const sentence of text.normalize("NFKC").split(/(?<=[.!?])\s+|\n+/u)) {
    let first = true;
    for (const { chunk, parts } of chunksOf(sentence)) {
      const initial = first;
      first = false;
      const identifier = parts.length > 1 && JOINERS.test(chunk);
      if (identifier) {
        const word = chunk.toLowerCase();
        out.push({
          word,
          term: word,
          identifier: true,
          capitalized: false,
          acronym: false,
          initial,
          inIdentifier: false,
        });
      }
      for (const p of parts) {
        const word = p.toLowerCase();
        if (dropped(word)) continue;
        out.push({
          word,
          term: stem(word),
          identifier: false,
          capitalized: /^\p{Lu}.*\p{Ll}/u.test(p),
          acronym: p.length > 1 && /^[\p{Lu}\p{N}]+$/u.test(p) && /\p{Lu}/u.test(p),
          initial,
          inIdentifier: identifier,
        });
      }
    }
  }
  return out;
}

/** Term frequencies of a text. */
export function termCounts(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of terms(text)) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
