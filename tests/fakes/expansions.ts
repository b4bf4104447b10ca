/**
 * Replays recorded expansions (bench/data/expansions/, or a test's own) as a model's answers to
 * the expansion worker's requests (src/memory/expansion.ts), for the fakes' `reply` (Anthropic)
 * and `chat` (Ollama) hooks: the user message of a request is the worker's JSON
 * (`{"memories": [{id, type, scope, content}]}`), and the answer is
 * `{"expansions": [{id, phrases}]}` with the phrases recorded for each memory's content
 * (a memory without any gets none). Every user message seen is kept, for checks of what left
 * the machine.
 * @module
 */

/** A replay of recorded phrases by memory content. */
export interface ExpansionReplay {
  /** The fakes' hook: the answer's text for a request body. */
  answer(body: Record<string, unknown>): string;
  /** The user messages received, oldest first. */
  seen: string[];
}

/** The last user message of a Messages API, OpenAI or Ollama request body. */
export function userMessage(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = [...messages].reverse().find((m) => m?.role === "user");
  const c = last?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((b) => (typeof b?.text === "string" ? b.text : "")).join("");
  return "";
}

/** Replay `phrases` (memory content → its phrases). */
export function replayExpansions(phrases: Map<string, string[]>): ExpansionReplay {
  const seen: string[] = [];
  return {
    seen,
    answer(body) {
      const user = userMessage(body);
      seen.push(user);
      let memories: { id: string; content: string }[] = [];
      try {
        memories = JSON.parse(user).memories ?? [];
      } catch { /* not the worker's request: no expansions */ }
      return JSON.stringify({
        expansions: memories.filter((m) => phrases.has(m.content)).map((m) => ({
          id: m.id,
          phrases: phrases.get(m.content),
        })),
      });
    },
  };
}
