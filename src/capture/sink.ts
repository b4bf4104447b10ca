/**
 * The {@link CaptureSink} of the memory service: proposals go to the inbox (their own table,
 * never among the memories), near duplicates are looked for among the stored memories a search
 * for the text finds and among the pending proposals, repeats of rejected proposals among the
 * tombstones, contradictions are the service's own check, a sure proposal is accepted through
 * the inbox (auto-accept), and the cursor per session lives in the database, so a restarted
 * daemon resumes where it stopped.
 * @module
 */
import type { Inbox } from "../memory/inbox.ts";
import { isNearDuplicate } from "./dedupe.ts";
import { type CaptureSink, nearestProposals, type Proposal, type StoredMatch } from "./pipeline.ts";
import type { Cursor } from "./transcript.ts";

/** The capture sink over the service's {@link Inbox}. */
export class InboxCaptureSink implements CaptureSink {
  readonly #inbox: Inbox;

  /** Proposing to `inbox`. */
  constructor(inbox: Inbox) {
    this.#inbox = inbox;
  }

  /** See {@link CaptureSink.nearDuplicates}: accepted memories and pending proposals. */
  async nearDuplicates(text: string, project: string | null): Promise<StoredMatch[]> {
    const n = await this.#inbox.neighbours(text, project);
    return [
      ...n.memories.filter((m) => isNearDuplicate(text, m.content)).map((m) => ({
        id: m.id,
        text: m.content,
      })),
      ...n.proposals.filter((p) => isNearDuplicate(text, p.content)).map((p) => ({
        id: p.id,
        text: p.content,
        proposed: true,
      })),
    ];
  }

  /**
   * See {@link CaptureSink.related}: the live memories the service's search finds for `text` in
   * the hierarchy, then the pending proposals of the hierarchy that share the most words with it.
   */
  async related(text: string, project: string | null, limit: number): Promise<StoredMatch[]> {
    const n = await this.#inbox.neighbours(text, project, limit);
    return [
      ...n.memories.slice(0, limit).map((m) => ({
        id: m.id,
        text: m.content,
        global: m.scope === "global",
      })),
      ...nearestProposals(text, n.proposals, limit).map((p) => ({
        id: p.id,
        text: p.content,
        proposed: true,
      })),
    ];
  }

  /** See {@link CaptureSink.rejectedBefore}: the tombstones of its hierarchy. */
  async rejectedBefore(text: string, project: string | null): Promise<boolean> {
    return (await this.#inbox.rejections(project)).some((t) => isNearDuplicate(text, t));
  }

  /** See {@link CaptureSink.acceptAutomatically}. */
  async acceptAutomatically(id: string): Promise<void> {
    await this.#inbox.acceptAutomatically(id);
  }

  /** See {@link CaptureSink.contradictions}. */
  async contradictions(text: string, project: string | null): Promise<StoredMatch[]> {
    return (await this.#inbox.contradictions(text, project)).map((m) => ({
      id: m.id,
      text: m.content,
      global: m.scope === "global",
    }));
  }

  /** See {@link CaptureSink.propose}. */
  propose(p: Proposal): Promise<{ id: string }> {
    return this.#inbox.propose({
      content: p.text,
      type: p.type,
      project: p.project,
      sessionId: p.provenance.sessionId,
      eventUuid: p.provenance.uuid,
      saidAt: p.provenance.timestamp,
      confidence: p.confidence,
      rule: p.rule,
      ...(p.replaces ? { replaces: p.replaces.id } : {}),
      ...(p.secretsRemoved ? { secretsRemoved: p.secretsRemoved } : {}),
    });
  }

  /** See {@link CaptureSink.getCursor}. */
  async getCursor(sessionId: string): Promise<Cursor | null> {
    const c = await this.#inbox.cursor(sessionId);
    return c && typeof c === "object" && typeof (c as Cursor).offset === "number"
      ? c as Cursor
      : null;
  }

  /** See {@link CaptureSink.setCursor}. */
  setCursor(sessionId: string, cursor: Cursor): Promise<void> {
    return this.#inbox.setCursor(sessionId, cursor);
  }
}
