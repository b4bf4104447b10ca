/**
 * A simple near-duplicate check of two memory texts: the overlap of their content words
 * (lower-cased, punctuation and common words dropped, a plural's "s" folded). The daemon's
 * sink (sink.ts) applies it to the neighbours the service's own search finds and to the
 * pending proposals.
 * @module
 */

const STOP = new Set(
  ("a an the and or but of to in on at for with by from is are was were be been it its this " +
    "that these those we you i my our your they them as so if then than not no do does don't " +
    "dont please always never use using it so after anything should must will would can could just also any all " +
    "every here there repo project").split(" "),
);

/** The content words of a text. */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  // Times in one spelling: "3am" and "03:00" are the same.
  const norm = text.toLowerCase().replace(
    /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b/g,
    (_, h, m, ap) =>
      `${String((Number(h) % 12) + (ap === "pm" ? 12 : 0)).padStart(2, "0")}:${m ?? "00"}`,
  );
  for (const w of norm.split(/[^a-z0-9_@./:-]+/)) {
    const t = w.replace(/^[./:-]+|[./:-]+$/g, "");
    if (t.length < 2 || STOP.has(t)) continue;
    out.add(t.length > 3 && t.endsWith("s") && !t.endsWith("ss") ? t.slice(0, -1) : t);
  }
  return out;
}

/** How much of the smaller text's content words the other has, 0..1. */
export function overlap(a: string, b: string): number {
  const x = contentWords(a), y = contentWords(b);
  if (x.size === 0 || y.size === 0) return 0;
  let common = 0;
  for (const w of x) if (y.has(w)) common++;
  return common / Math.min(x.size, y.size);
}

/** Default threshold of {@link isNearDuplicate}. */
export const NEAR_DUPLICATE = 0.6;

/** Whether `a` nearly repeats `b`. */
export function isNearDuplicate(a: string, b: string, threshold = NEAR_DUPLICATE): boolean {
  return overlap(a, b) >= threshold;
}
