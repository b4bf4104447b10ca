/**
 * The inbox: the memories capture proposed, waiting for review. They live in their own table
 * (src/store/proposals.ts), never among the memories, so that the bootstrap, the prompt hook,
 * `recall` and search cannot show them. Accepting one creates the memory through the
 * service's ordinary create path (validation, secret check, embedding, contradiction check)
 * and, for a proposal that replaces a stored memory, supersedes that one in the same
 * transaction as the insert; then the proposal is removed. Rejecting removes it and leaves a
 * tombstone (its hierarchy and normalised text), so capture does not propose it again.
 * Capture may also accept a proposal itself (`CAPTURE_AUTO_ACCEPT`): through the same path,
 * tagged `auto-accepted` besides `captured`.
 *
 * Capture's side (src/capture/sink.ts) stores proposals, reads their neighbours for the
 * near-duplicate and contradiction checks, and keeps the cursor per session and the model
 * tokens spent, through the same object.
 * @module
 */
import type { Memory, MemoryType, Scope } from "../domain/memory.ts";
import { badRequest, MemoryError } from "../domain/errors.ts";
import type { ProposalRow, TaggedMemory } from "../store/proposals.ts";
import type { ProposalStore } from "../store/proposals.ts";
import type { Contradiction, CreateResult, MemoryService } from "./types.ts";
import {
  assertNoSecrets,
  validateCount,
  validateCreate,
  validateFields,
  validateId,
  validateList,
  validateUpdate,
} from "./validate.ts";

/** A proposal as the inbox shows it: the memory it would be, its provenance, what it replaces. */
export interface InboxItem {
  /** The proposal's id (not a memory's: accepting creates the memory with a new id). */
  id: string;
  /** The proposed memory's text. */
  content: string;
  /** Its type. */
  type: MemoryType;
  /** Its scope. */
  scope: Scope;
  /** Its project (null when global). */
  project: string | null;
  /** Its tags. */
  tags: string[];
  /** How sure the extractor was, 0..1. */
  confidence: number;
  /** The extractor's rule that found it. */
  rule: string | null;
  /** Kinds of secret that were replaced by a marker in `content`. */
  secrets_removed: string[];
  /** Where it came from: the session, the transcript event, when it was said. */
  source: { session_id: string; event_uuid: string | null; said_at: string | null };
  /** When capture stored it. */
  captured_at: string;
  /**
   * The stored memory it would replace (accepting supersedes it), shown beside it; null when
   * it replaces none (or the memory was deleted since).
   */
  replaces: Memory | null;
}

/** What capture hands the inbox for one proposal. */
export interface ProposalInput {
  /** The memory's text (secrets already replaced by markers). */
  content: string;
  /** Its type. */
  type: MemoryType;
  /** The project (null: global). */
  project: string | null;
  /** Tags. */
  tags?: string[];
  /** The session. */
  sessionId: string;
  /** The transcript event. */
  eventUuid?: string;
  /** When it was said (ISO). */
  saidAt?: string;
  /** 0..1. */
  confidence: number;
  /** The extractor's rule. */
  rule?: string;
  /** The stored memory it contradicts. */
  replaces?: string;
  /** Kinds of secret replaced by a marker. */
  secretsRemoved?: string[];
}

/** The answer of {@link Inbox.accept}. */
export interface AcceptResult {
  /** The proposal accepted (now removed). */
  accepted: string;
  /** The memory created. */
  memory: Memory;
  /** The memory it superseded, when it replaced one. */
  superseded?: string;
  /** Other stored memories it looks like (as a create reports them). */
  contradictions?: Contradiction[];
}

/** A proposal that is not (or no longer) in the inbox. */
function notFound(id: string): MemoryError {
  return new MemoryError(404, `proposal ${id} is not in the inbox`, { field: "id" });
}

/** Most pending proposals read for one near-duplicate check. */
export const NEIGHBOUR_PROPOSALS = 500;

/** The tag every captured memory carries. */
export const CAPTURED_TAG = "captured";

/** The tag of a captured memory that capture accepted itself (`CAPTURE_AUTO_ACCEPT`). */
export const AUTO_ACCEPTED_TAG = "auto-accepted";

/** Days a rejected proposal's tombstone is kept (older ones go when a new one is written). */
export const TOMBSTONE_DAYS = 365;

/** Most tombstones read for one candidate (the newest of its hierarchy). */
export const NEIGHBOUR_TOMBSTONES = 1000;

/** Days `memcli inbox` looks back for memories accepted automatically, by default. */
export const AUTO_ACCEPTED_DAYS = 7;

const DAY_MS = 86_400_000;

/** The memories capture accepted itself since a day (GET /api/inbox/accepted). */
export interface AutoAccepted {
  /** Since when (ISO). */
  since: string;
  /** How many in all. */
  count: number;
  /** The newest (at most the limit asked), newest first. */
  memories: TaggedMemory[];
}

function toItem(r: ProposalRow, replaces: Memory | null): InboxItem {
  return {
    id: r.id,
    content: r.content,
    type: r.type,
    scope: r.scope,
    project: r.project,
    tags: r.tags,
    confidence: r.confidence,
    rule: r.rule,
    secrets_removed: r.secrets_removed,
    source: { session_id: r.session_id, event_uuid: r.event_uuid, said_at: r.said_at },
    captured_at: r.captured_at,
    replaces,
  };
}

/**
 * Accept options: `supersede: false` accepts a replacement without superseding; `pin: true`
 * stores it pinned to session start (type `bootstrap`, its own type kept as a tag), as
 * `memcli add --pin` does.
 */
function validateAccept(x: unknown): { supersede: boolean; pin: boolean } {
  if (x === undefined || x === null) return { supersede: true, pin: false };
  if (typeof x !== "object" || Array.isArray(x)) throw badRequest("body", "must be a JSON object");
  const o = x as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== "supersede" && k !== "pin") {
      throw badRequest(k, "unknown field; allowed fields are supersede, pin");
    }
  }
  for (const k of ["supersede", "pin"]) {
    if (o[k] !== undefined && typeof o[k] !== "boolean") throw badRequest(k, "must be a boolean");
  }
  return { supersede: o.supersede !== false, pin: o.pin === true };
}

/** GET /api/inbox/accepted's query: `days` 1..365 (default 7), `limit` 1..1000 (default 50). */
function validateAutoAcceptedQuery(x: unknown): { days: number; limit: number } {
  const o = validateFields(x, ["days", "limit"]);
  return {
    days: validateCount(o.days, "days", AUTO_ACCEPTED_DAYS, TOMBSTONE_DAYS, true),
    limit: validateCount(o.limit, "limit", 50, 1000, true),
  };
}

/** The inbox over a service (the create path) and its store (the proposals). */
export class Inbox {
  readonly #service: MemoryService;
  readonly #proposals: ProposalStore;
  readonly #now: () => Date;
  /** Proposals being accepted now: a second accept of one waits for nothing, it is refused. */
  readonly #busy = new Set<string>();

  /** An inbox creating memories through `service`, keeping proposals in `store`. */
  constructor(
    service: MemoryService,
    proposals: ProposalStore,
    now: () => Date = () => new Date(),
  ) {
    this.#service = service;
    this.#proposals = proposals;
    this.#now = now;
  }

  async #replaced(id: string | null): Promise<Memory | null> {
    if (!id) return null;
    try {
      return await this.#service.get(id);
    } catch (err) {
      if (err instanceof MemoryError && err.status === 404) return null;
      throw err;
    }
  }

  /** Pending proposals, newest first (filters: scope, project, type, limit, id_prefix). */
  async list(filter: unknown = {}): Promise<InboxItem[]> {
    const f = validateList(filter);
    const rows = await this.#proposals.list(
      {
        ...(f.scope ? { scope: f.scope } : {}),
        ...(f.project ? { project: f.project } : {}),
        ...(f.type ? { type: f.type } : {}),
        ...(f.idRange ? { idRange: f.idRange } : {}),
      },
      f.limit,
    );
    return await Promise.all(rows.map(async (r) => toItem(r, await this.#replaced(r.replaces))));
  }

  /** One pending proposal. */
  async get(id: string): Promise<InboxItem> {
    const key = validateId(id);
    const r = await this.#proposals.get(key);
    if (!r) throw notFound(key);
    return toItem(r, await this.#replaced(r.replaces));
  }

  /** Pending proposals in all. */
  count(): Promise<number> {
    return this.#proposals.count();
  }

  /**
   * Accept a proposal: the memory is created as `memcli add` would create it (and supersedes
   * the memory the proposal replaces, in the insert's transaction, unless `supersede: false`;
   * pinned to session start with `pin: true`), then the proposal is removed. Nothing is written when the create is refused.
   */
  async accept(id: string, options?: unknown): Promise<AcceptResult> {
    const key = validateId(id);
    const { supersede, pin } = validateAccept(options);
    return await this.#accept(key, supersede, [], pin);
  }

  /**
   * Capture's automatic accept (`CAPTURE_AUTO_ACCEPT`): {@link accept} of a proposal that
   * replaces nothing, its memory tagged {@link AUTO_ACCEPTED_TAG} too. A refused create
   * throws and leaves the proposal in the inbox, for a human.
   */
  async acceptAutomatically(id: string): Promise<AcceptResult> {
    return await this.#accept(validateId(id), false, [AUTO_ACCEPTED_TAG]);
  }

  /** The memories accepted automatically in the last `days` days (at most `limit` listed). */
  async autoAccepted(filter: unknown = {}): Promise<AutoAccepted> {
    const { days, limit } = validateAutoAcceptedQuery(filter);
    const since = new Date(this.#now().getTime() - days * DAY_MS);
    const r = await this.#proposals.taggedSince(AUTO_ACCEPTED_TAG, since, limit);
    return { since: since.toISOString(), count: r.total, memories: r.memories };
  }

  async #accept(
    key: string,
    supersede: boolean,
    extraTags: string[],
    pin = false,
  ): Promise<AcceptResult> {
    if (this.#busy.has(key)) {
      throw new MemoryError(409, `proposal ${key} is being accepted already`, { field: "id" });
    }
    this.#busy.add(key);
    try {
      const p = await this.#proposals.get(key);
      if (!p) throw notFound(key);
      const target = supersede ? await this.#replaced(p.replaces) : null;
      if (target && target.superseded_by !== null) {
        throw new MemoryError(
          409,
          `the memory this proposal replaces (${target.id}) was superseded since by ` +
            `${target.superseded_by}; accept it without superseding (supersede: false), ` +
            "edit it, or reject it",
          { field: "supersede" },
        );
      }
      // Pinned: a bootstrap memory, its own type kept as a tag, which the bootstrap groups
      // it by (Rules, Facts ...), as `memcli add --pin` stores one.
      const own = pin && p.type !== "bootstrap" ? [p.type] : [];
      const tags = [...own, ...p.tags, ...extraTags].filter((t, i, all) => all.indexOf(t) === i);
      let created: CreateResult;
      try {
        created = await this.#service.create({
          content: p.content,
          type: pin ? "bootstrap" : p.type,
          scope: p.scope,
          ...(p.project ? { project: p.project } : {}),
          tags,
          ...(target ? { supersedes: target.id } : {}),
        });
      } catch (err) {
        if (err instanceof MemoryError && err.field === "supersedes") {
          throw new MemoryError(
            409,
            `the memory this proposal replaces cannot be superseded: ${err.message}; accept ` +
              "it without superseding (supersede: false), edit it, or reject it",
            { field: "supersede" },
          );
        }
        throw err;
      }
      await this.#proposals.delete(key);
      return {
        accepted: key,
        memory: created.memory,
        ...(target ? { superseded: target.id } : {}),
        ...(created.contradictions?.length ? { contradictions: created.contradictions } : {}),
      };
    } finally {
      this.#busy.delete(key);
    }
  }

  /**
   * Reject a proposal: it is removed and leaves a tombstone, so that capture does not propose
   * it again (tombstones older than {@link TOMBSTONE_DAYS} days go).
   */
  async reject(id: string): Promise<{ rejected: string }> {
    const key = validateId(id);
    const now = this.#now();
    if (
      this.#busy.has(key) ||
      !await this.#proposals.reject(
        key,
        crypto.randomUUID(),
        now,
        new Date(now.getTime() - TOMBSTONE_DAYS * DAY_MS),
      )
    ) throw notFound(key);
    return { rejected: key };
  }

  /**
   * The texts of the rejected proposals a new one of `project` (null: global) is compared with:
   * the tombstones of its project and the global ones, the newest {@link NEIGHBOUR_TOMBSTONES}.
   */
  rejections(project: string | null): Promise<string[]> {
    const since = new Date(this.#now().getTime() - TOMBSTONE_DAYS * DAY_MS);
    return this.#proposals.rejectionsInHierarchy(project, since, NEIGHBOUR_TOMBSTONES);
  }

  /** Change a proposal's text before accepting it (`{content}`, checked as an update is). */
  async edit(id: string, input: unknown): Promise<InboxItem> {
    const key = validateId(id);
    const content = validateUpdate(input);
    await assertNoSecrets("content", content);
    const r = await this.#proposals.updateContent(key, content);
    if (!r) throw notFound(key);
    return toItem(r, await this.#replaced(r.replaces));
  }

  /** Store a proposal (capture's side): validated as a create is, with no secret in it. */
  async propose(p: ProposalInput): Promise<{ id: string }> {
    const v = validateCreate({
      content: p.content,
      type: p.type,
      ...(p.project === null ? { scope: "global" } : { scope: "project", project: p.project }),
      tags: p.tags ?? [CAPTURED_TAG],
    });
    await assertNoSecrets("content", v.content);
    if (!(p.confidence >= 0 && p.confidence <= 1)) {
      throw badRequest("confidence", "must be a number between 0 and 1");
    }
    const said = p.saidAt && !Number.isNaN(Date.parse(p.saidAt)) ? new Date(p.saidAt) : null;
    const row = await this.#proposals.insert({
      id: crypto.randomUUID(),
      content: v.content,
      type: v.type,
      scope: v.scope,
      project: v.project,
      tags: v.tags,
      session_id: p.sessionId,
      event_uuid: p.eventUuid ?? null,
      saidAt: said,
      capturedAt: this.#now(),
      replaces: p.replaces && /^[0-9a-f-]{36}$/i.test(p.replaces) ? p.replaces : null,
      confidence: p.confidence,
      rule: p.rule ?? null,
      secrets_removed: p.secretsRemoved ?? [],
    });
    return { id: row.id };
  }

  /**
   * What a new proposal of `project` (null: global) is compared with: the stored memories a
   * search for its text finds in its hierarchy (at most `limit`, nearest first), and the pending
   * proposals of that hierarchy.
   */
  async neighbours(
    text: string,
    project: string | null,
    limit = 10,
  ): Promise<{ memories: Memory[]; proposals: { id: string; content: string }[] }> {
    const found = await this.#service.search({
      query: text,
      ...(project === null ? { scope: "global" as const } : { project }),
      limit,
    });
    const pending = await this.#proposals.inHierarchy(project, NEIGHBOUR_PROPOSALS);
    return {
      memories: found.map((r) => r.memory),
      proposals: pending.map((r) => ({ id: r.id, content: r.content })),
    };
  }

  /** Stored memories `text` contradicts (the service's contradiction check). */
  async contradictions(text: string, project: string | null): Promise<Memory[]> {
    const found = await this.#service.contradictions({
      content: text,
      ...(project === null ? { scope: "global" as const } : { project }),
    });
    return found.map((c) => c.memory);
  }

  /** A session's transcript cursor, or null before its first read. */
  async cursor(sessionId: string): Promise<unknown | null> {
    return (await this.#proposals.getCursor(sessionId))?.cursor ?? null;
  }

  /** Store a session's transcript cursor. */
  setCursor(sessionId: string, cursor: unknown): Promise<void> {
    return this.#proposals.setCursor(sessionId, cursor, this.#now());
  }

  /** Model tokens a session spent, and all sessions on `day` (YYYY-MM-DD, UTC). */
  async tokens(sessionId: string, day: string): Promise<{ session: number; day: number }> {
    const c = await this.#proposals.getCursor(sessionId);
    return { session: c?.tokens ?? 0, day: await this.#proposals.tokensOn(day) };
  }

  /** Charge model tokens to a session and its day. */
  chargeTokens(sessionId: string, day: string, tokens: number): Promise<void> {
    return this.#proposals.chargeTokens(sessionId, day, tokens, this.#now());
  }
}
