/**
 * Capture's proposals (migrations/0017_proposals.sql): memories found in a session that wait
 * for review, in their own table (never in `memories`, so no search, recall or bootstrap can
 * show them); the cursor per session's transcript; the model tokens spent per day; the
 * tombstones of rejected proposals (migrations/0018_rejections.sql).
 * @module
 */
import type { MemoryType, Scope } from "../domain/memory.ts";
import type { Db } from "./db.ts";
import { VISIBLE } from "./sql.ts";

/** A proposal as stored. */
export interface ProposalRow {
  /** Its id (a UUID). */
  id: string;
  /** The memory's text. */
  content: string;
  /** Its type. */
  type: MemoryType;
  /** Its scope. */
  scope: Scope;
  /** Its project (null when global). */
  project: string | null;
  /** Its tags. */
  tags: string[];
  /** The Claude Code session it came from. */
  session_id: string;
  /** The transcript event it was said in. */
  event_uuid: string | null;
  /** When it was said (ISO), when known. */
  said_at: string | null;
  /** When capture stored it (ISO). */
  captured_at: string;
  /** The stored memory it would replace (a contradiction), or null. */
  replaces: string | null;
  /** The extractor's confidence, 0..1. */
  confidence: number;
  /** The extractor's rule that found it. */
  rule: string | null;
  /** Kinds of secret replaced by a marker in `content`. */
  secrets_removed: string[];
}

/** A memory as {@link ProposalStore.taggedSince} lists it. */
export interface TaggedMemory {
  /** Its id. */
  id: string;
  /** Its text. */
  content: string;
  /** Its type. */
  type: MemoryType;
  /** Its scope. */
  scope: Scope;
  /** Its project (null when global). */
  project: string | null;
  /** When it was created (ISO). */
  created_at: string;
}

/** A proposal to insert (the id and times given by the caller). */
export type NewProposal = Omit<ProposalRow, "captured_at" | "said_at"> & {
  capturedAt: Date;
  saidAt: Date | null;
};

const COLS = `p.id::text as id, p.content, p.type, p.scope, p.project, p.tags, p.session_id,
  p.event_uuid, p.said_at, p.captured_at, p.replaces::text as replaces, p.confidence, p.rule,
  p.secrets_removed`;

type RawRow = Omit<ProposalRow, "said_at" | "captured_at"> & {
  said_at: Date | string | null;
  captured_at: Date | string;
};

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

function toRow(r: RawRow): ProposalRow {
  return {
    ...r,
    said_at: r.said_at === null ? null : iso(r.said_at),
    captured_at: iso(r.captured_at),
    confidence: Number(r.confidence),
  };
}

/** Filters of {@link ProposalStore.list}. */
export interface ProposalFilter {
  /** Only this scope. */
  scope?: Scope;
  /** Only this project. */
  project?: string;
  /** Only this type. */
  type?: MemoryType;
  /** Only this session's. */
  sessionId?: string;
  /** Only ids in this range (a short id's prefix). */
  idRange?: [string, string];
}

/** Capture's tables over one {@link Db}. */
export class ProposalStore {
  readonly #db: Db;

  /** Over `db`. */
  constructor(db: Db) {
    this.#db = db;
  }

  /** Insert a proposal. */
  async insert(p: NewProposal): Promise<ProposalRow> {
    const rows = await this.#db.query<RawRow>(
      `insert into proposals as p (id, content, type, scope, project, tags, session_id, event_uuid,
         said_at, captured_at, replaces, confidence, rule, secrets_removed)
       values ($1, $2, $3, $4, $5, array(select jsonb_array_elements_text($6::text::jsonb)), $7, $8,
         $9, $10, (select m.id from memories m where m.id = $11::uuid), $12, $13,
         array(select jsonb_array_elements_text($14::text::jsonb)))
       returning ${COLS}`,
      [
        p.id,
        p.content,
        p.type,
        p.scope,
        p.project,
        JSON.stringify(p.tags),
        p.session_id,
        p.event_uuid,
        p.saidAt,
        p.capturedAt,
        p.replaces,
        p.confidence,
        p.rule,
        JSON.stringify(p.secrets_removed),
      ],
    );
    return toRow(rows[0]);
  }

  /** Pending proposals, newest first. */
  async list(
    f: ProposalFilter,
    limit: number,
  ): Promise<ProposalRow[]> {
    const where: string[] = ["p.status = 'pending'"];
    const params: unknown[] = [];
    const bind = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    if (f.scope) where.push(`p.scope = ${bind(f.scope)}`);
    if (f.project !== undefined) where.push(`p.project = ${bind(f.project)}`);
    if (f.type !== undefined) where.push(`p.type = ${bind(f.type)}`);
    if (f.sessionId !== undefined) where.push(`p.session_id = ${bind(f.sessionId)}`);
    if (f.idRange) {
      where.push(`p.id between ${bind(f.idRange[0])}::uuid and ${bind(f.idRange[1])}::uuid`);
    }
    const rows = await this.#db.query<RawRow>(
      `select ${COLS} from proposals p where ${where.join(" and ")}
        order by p.captured_at desc, p.id limit ${bind(limit)}`,
      params,
    );
    return rows.map(toRow);
  }

  /**
   * Pending proposals a new one of `project` (null: global) would meet: those of that project
   * and the global ones (newest first, at most `limit`).
   */
  async inHierarchy(
    project: string | null,
    limit: number,
  ): Promise<ProposalRow[]> {
    const rows = await this.#db.query<RawRow>(
      `select ${COLS} from proposals p
        where p.status = 'pending' and (p.scope = 'global' or p.project = $1)
        order by p.captured_at desc, p.id limit $2`,
      [project, limit],
    );
    return rows.map(toRow);
  }

  /** One pending proposal, or null. */
  async get(id: string): Promise<ProposalRow | null> {
    const rows = await this.#db.query<RawRow>(
      `select ${COLS} from proposals p where p.id = $1 and p.status = 'pending'`,
      [id],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** Change a pending proposal's text (and the secrets noted); null when it is gone. */
  async updateContent(
    id: string,
    content: string,
  ): Promise<ProposalRow | null> {
    const rows = await this.#db.query<RawRow>(
      `update proposals p set content = $2 where p.id = $1 and p.status = 'pending'
        returning ${COLS}`,
      [id, content],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** Remove a proposal; false when it was not there. */
  async delete(id: string): Promise<boolean> {
    const rows = await this.#db.query(`delete from proposals where id = $1 returning id`, [id]);
    return rows.length > 0;
  }

  /** Pending proposals in all. */
  async count(): Promise<number> {
    const [r] = await this.#db.query<{ n: number }>(
      "select count(*)::int as n from proposals where status = 'pending'",
    );
    return Number(r?.n ?? 0);
  }

  /**
   * Reject a pending proposal: it is removed and leaves a tombstone (its scope, project and
   * text, lower-cased with white space collapsed) in the same statement; tombstones rejected
   * before `expireBefore` are removed. False when the proposal was not there.
   */
  async reject(
    id: string,
    tombstoneId: string,
    now: Date,
    expireBefore: Date,
  ): Promise<boolean> {
    const rows = await this.#db.query(
      `with gone as (
         delete from proposals where id = $1 and status = 'pending'
         returning scope, project, content)
       insert into capture_rejections (id, scope, project, text, rejected_at)
       select $2, g.scope, g.project, btrim(lower(regexp_replace(g.content, '\\s+', ' ', 'g'))), $3
         from gone g
       returning id`,
      [id, tombstoneId, now],
    );
    if (!rows.length) return false;
    await this.#db.query("delete from capture_rejections where rejected_at < $1", [
      expireBefore,
    ]);
    return true;
  }

  /**
   * The tombstones a new proposal of `project` (null: global) meets: those of that project and
   * the global ones, newest first, at most `limit`, rejected at or after `since`.
   */
  async rejectionsInHierarchy(
    project: string | null,
    since: Date,
    limit: number,
  ): Promise<string[]> {
    const rows = await this.#db.query<{ text: string }>(
      `select r.text from capture_rejections r
        where (r.scope = 'global' or r.project = $1) and r.rejected_at >= $2
        order by r.rejected_at desc, r.id limit $3`,
      [project, since, limit],
    );
    return rows.map((r) => r.text);
  }

  /**
   * Memories tagged `tag` created at or after `since` (newest first, at most `limit`), and how
   * many there are in all: the ones capture accepted automatically.
   */
  async taggedSince(
    tag: string,
    since: Date,
    limit: number,
  ): Promise<{ total: number; memories: TaggedMemory[] }> {
    const rows = await this.#db.query<
      Omit<TaggedMemory, "created_at"> & { created_at: Date | string; total: number }
    >(
      `select m.id::text as id, m.content, m.type, m.scope, m.project, m.created_at,
              count(*) over ()::int as total
         from memories m
        where $1 = any(m.tags) and m.created_at >= $2 and ${VISIBLE}
        order by m.created_at desc, m.id limit $3`,
      [tag, since, limit],
    );
    // limit >= 1: no row is no memory at all.
    const total = rows.length ? Number(rows[0].total) : 0;
    return {
      total,
      memories: rows.map(({ total: _, created_at, ...m }) => ({
        ...m,
        created_at: iso(created_at),
      })),
    };
  }

  /** Remove a project's tombstones; how many there were. */
  async forgetRejections(project: string): Promise<number> {
    const rows = await this.#db.query(
      "delete from capture_rejections where project = $1 returning id",
      [project],
    );
    return rows.length;
  }

  /** A session's transcript cursor (as JSON) and the tokens it spent; null before its first. */
  async getCursor(
    sessionId: string,
  ): Promise<{ cursor: unknown; tokens: number } | null> {
    const rows = await this.#db.query<{ cursor: unknown; tokens: string | number }>(
      "select cursor, tokens from capture_cursors where session_id = $1",
      [sessionId],
    );
    if (!rows[0]) return null;
    const c = rows[0].cursor;
    return { cursor: typeof c === "string" ? JSON.parse(c) : c, tokens: Number(rows[0].tokens) };
  }

  /** Store a session's cursor. */
  async setCursor(
    sessionId: string,
    cursor: unknown,
    now: Date,
  ): Promise<void> {
    await this.#db.query(
      `insert into capture_cursors (session_id, cursor, updated_at) values ($1, $2::text::jsonb, $3)
       on conflict (session_id) do update set cursor = excluded.cursor,
         updated_at = excluded.updated_at`,
      [sessionId, JSON.stringify(cursor), now],
    );
  }

  /** Add model tokens spent by a session on `day` (YYYY-MM-DD, UTC) to both counts. */
  async chargeTokens(
    sessionId: string,
    day: string,
    tokens: number,
    now: Date,
  ): Promise<void> {
    await this.#db.batch([
      {
        text: `insert into capture_budget (day, tokens) values ($1::date, $2)
               on conflict (day) do update set tokens = capture_budget.tokens + excluded.tokens`,
        params: [day, tokens],
      },
      {
        text: `insert into capture_cursors (session_id, cursor, tokens, updated_at)
               values ($1, '{"offset":0}'::jsonb, $2, $3)
               on conflict (session_id) do update set tokens = capture_cursors.tokens + $2`,
        params: [sessionId, tokens, now],
      },
    ]);
  }

  /** The model tokens all sessions spent on `day` (YYYY-MM-DD, UTC). */
  async tokensOn(day: string): Promise<number> {
    const rows = await this.#db.query<{ tokens: string | number }>(
      "select tokens from capture_budget where day = $1::date",
      [day],
    );
    return rows[0] ? Number(rows[0].tokens) : 0;
  }
}
