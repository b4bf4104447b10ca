/**
 * A model's judgement of the prompt hook's candidates (docs/recall.md, "0.22 as shipped": what
 * is next after the expansion): given the developer's message and the few memories the hook's
 * search found above a low floor, which of them the agent should be shown. This module holds the
 * request as the product sends it ({@link renderJudgeRequest}, with the instruction in
 * src/memory/judge_prompt.md) and the strict reading of the answer ({@link parseJudgeAnswer}).
 * The model call itself is passed in by the daemon, as the expansion's is, so this core module
 * imports no feature.
 * @module
 */
import PROMPT from "./judge_prompt.md" with { type: "text" };
import { findSecretsSync, replaceSecrets } from "../domain/secrets.ts";

/** The instruction sent with every call (src/memory/judge_prompt.md). */
export const JUDGE_PROMPT: string = PROMPT;

/** Most candidates in one request (the union of two pools of 5). */
export const JUDGE_MAX_CANDIDATES = 10;
/** Longest message sent, in characters (a longer one is cut, marked with "…"). */
export const JUDGE_MAX_PROMPT_CHARS = 2000;
/** Longest candidate content sent, in characters (a longer one is cut, marked with "…"). */
export const JUDGE_MAX_NOTE_CHARS = 1200;
/** Output cap of one call: `{"use": [...]}` with up to 10 numbers, with room. */
export const JUDGE_MAX_OUTPUT_TOKENS = 60;

/** A candidate memory as the model reads it. */
export interface JudgeCandidate {
  type: string;
  content: string;
}

/** What is sent: the system text and the user text. */
export interface JudgeRequest {
  system: string;
  user: string;
}

/** `text` with secrets replaced by markers, cut to `max` characters. */
function clean(text: string, max: number): string {
  const t = replaceSecrets(text, findSecretsSync(text)).trim();
  return t.length > max ? t.slice(0, max - 1).trimEnd() + "…" : t;
}

/**
 * The request for `prompt` (the developer's message) in `project` (null: none resolved) over
 * `candidates`, numbered 1..n in the order given, each on one line with its type; secrets in the
 * message and the contents are replaced by markers, and both are cut to their limits. Throws a
 * RangeError when there is no candidate or more than {@link JUDGE_MAX_CANDIDATES}, or when the
 * message is empty.
 */
export function renderJudgeRequest(
  prompt: string,
  project: string | null,
  candidates: readonly JudgeCandidate[],
): JudgeRequest {
  if (!candidates.length) throw new RangeError("candidates: none to judge");
  if (candidates.length > JUDGE_MAX_CANDIDATES) {
    throw new RangeError(
      `candidates: ${candidates.length}, at most ${JUDGE_MAX_CANDIDATES} are judged at once`,
    );
  }
  const message = clean(prompt, JUDGE_MAX_PROMPT_CHARS);
  if (!message) throw new RangeError("prompt: empty");
  const notes = candidates.map((c, i) => {
    const type = c.type.replace(/[^a-z_-]/gi, "") || "note";
    const content = clean(c.content.replace(/\s+/g, " "), JUDGE_MAX_NOTE_CHARS);
    return `${i + 1}. [${type}] ${content}`;
  });
  const user = `Project: ${project ?? "(none)"}\n\n<message>\n${message}\n</message>\n\n` +
    `<notes>\n${notes.join("\n")}\n</notes>\n`;
  return { system: JUDGE_PROMPT, user };
}

/** An answer that is not a judgement; the message names what was wrong. */
export class JudgeAnswerError extends Error {
  override name = "JudgeAnswerError";
}

/**
 * The candidates chosen in a model's answer to a request of `n` candidates: their indices
 * (0-based, ascending) in the list given to {@link renderJudgeRequest}. The answer must be the
 * JSON object `{"use": [numbers]}` (alone, or alone in one fenced block) with no other key, each
 * number an integer in 1..n, none repeated; `{"use": []}` chooses none. Anything else throws a
 * {@link JudgeAnswerError} naming what was wrong: a malformed answer is no judgement (the caller
 * falls back to its floor), never a choice of all.
 */
export function parseJudgeAnswer(text: string, n: number): number[] {
  if (!Number.isInteger(n) || n < 1 || n > JUDGE_MAX_CANDIDATES) {
    throw new RangeError(`n: ${n}, expected an integer in 1..${JUDGE_MAX_CANDIDATES}`);
  }
  const fenced = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/i.exec(text.trim());
  const body = (fenced ? fenced[1] : text).trim();
  if (!body) throw new JudgeAnswerError("the answer is empty");
  let j: unknown;
  try {
    j = JSON.parse(body);
  } catch {
    throw new JudgeAnswerError(`the answer is not JSON: ${JSON.stringify(body.slice(0, 80))}`);
  }
  if (typeof j !== "object" || j === null || Array.isArray(j)) {
    throw new JudgeAnswerError('the answer is not a JSON object {"use": [...]}');
  }
  const extra = Object.keys(j).filter((k) => k !== "use");
  if (extra.length) {
    throw new JudgeAnswerError(`unknown key ${JSON.stringify(extra[0])} in the answer`);
  }
  const use = (j as { use?: unknown }).use;
  if (use === undefined) throw new JudgeAnswerError('the answer has no "use"');
  if (!Array.isArray(use)) throw new JudgeAnswerError('"use" is not a list of numbers');
  const seen = new Set<number>();
  for (const [i, x] of use.entries()) {
    if (typeof x !== "number" || !Number.isInteger(x)) {
      throw new JudgeAnswerError(`use[${i}]: ${JSON.stringify(x)} is not a whole number`);
    }
    if (x < 1 || x > n) throw new JudgeAnswerError(`use[${i}]: ${x} is not a note in 1..${n}`);
    if (seen.has(x)) throw new JudgeAnswerError(`use[${i}]: ${x} is named twice`);
    seen.add(x);
  }
  return [...seen].map((x) => x - 1).sort((a, b) => a - b);
}
