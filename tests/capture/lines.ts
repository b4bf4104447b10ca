/** Lines of a Claude Code transcript for tests. */

/** One `user` or `assistant` event of session `session` (JSONL, with its newline). */
export function line(uuid: string, session: string, role: "user" | "assistant", text: string) {
  return JSON.stringify({
    type: role,
    uuid,
    sessionId: session,
    timestamp: "2026-11-28T10:00:00Z",
    message: role === "user"
      ? { role, content: text }
      : { role, content: [{ type: "text", text }] },
  }) + "\n";
}
