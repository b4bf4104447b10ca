/** Turns of a session for the extractor's tests: a user's and the agent's, with fresh uuids. */
import type { Turn } from "../../src/capture/transcript.ts";
import { type Candidate, extractCandidates } from "../../src/capture/extract.ts";

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

/** What the extractor proposes of `text` said by the user in a plain session. */
export function proposed(text: string): Candidate[] {
  const said = u(text);
  const turns = [u("fix the login button"), a("OK, done."), said, a("OK, done.")];
  return extractCandidates(turns).filter((c) => c.provenance.uuid === said.uuid);
}

/** What the extractor proposes on the agent's event when the user answers `reply` to `agent`. */
export function confirmed(agent: string, reply: string): Candidate[] {
  const asked = a(agent);
  const turns = [u("add the export endpoint"), asked, u(reply), a("OK.")];
  return extractCandidates(turns).filter((c) => c.provenance.uuid === asked.uuid);
}
