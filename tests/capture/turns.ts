/** Turns of a session for the extractor's tests: a user's and the agent's, with fresh uuids. */
import type { Turn } from "../../src/capture/transcript.ts";

let n = 0;
/** A user's turn. */
export const u = (text: string): Turn => ({
  role: "user",
  text,
  uuid: `u${++n}`,
  timestamp: "2026-11-28T10:00:00Z",
  sessionId: "s1",
});
/** An agent's turn. */
export const a = (text: string): Turn => ({ ...u(text), role: "assistant", uuid: `a${++n}` });
