/**
 * The capture pipeline of one hand-over: read the session's transcript from its cursor,
 * extract candidates (offline, or with a model when configured), remove secrets, drop near
 * duplicates of stored memories and of proposals the user rejected before, and propose the rest
 * to a {@link CaptureSink}, with the new cursor; with auto-accept on (`CAPTURE_AUTO_ACCEPT`), a
 * proposal sure enough, with no secret removed and replacing nothing, is accepted at once. The
 * sink is the memory service's side (proposed memories, the inbox, the cursor per session): the
 * daemon's is src/capture/sink.ts, on the database; {@link MemoryCaptureSink} keeps them in
 * memory (tests, the benchmark).
 * @module
 */
import { resolveProject } from "../memcli/project.ts";
import { isNearDuplicate, overlap } from "./dedupe.ts";
import { type Candidate, extractCandidates } from "./extract.ts";
import { redactSecrets } from "../domain/secrets.ts";
import { type Cursor, type ReadOptions, readTranscript, type Turn } from "./transcript.ts";

/** What a hook hands over (Claude Code's hook input, validated). */
export interface CaptureRequest {
  /** The session. */
  sessionId: string;
  /** Its transcript (absolute path of a `.jsonl` file). */
  transcriptPath: string;
  /** The agent's working directory: the project is resolved from it. */
  cwd: string;
  /** The hook event: `Stop`, `PreCompact` or `SessionEnd`. */
  event: string;
  /** The project memcli resolved from `cwd` as the bootstrap does (null: none); else resolved here. */
  project?: string | null;
}

/** A stored memory the sink found for a text. */
export interface StoredMatch {
  /** Its id. */
  id: string;
  /** Its text. */
  text: string;
  /** Whether it is still proposed (in the inbox) rather than accepted. */
  proposed?: boolean;
  /** Whether it is a global memory (every project's), for {@link CaptureSink.related}'s. */
  global?: boolean;
}

/** A memory proposed for review. */
export interface Proposal extends Candidate {
  /** The project (null: global scope). */
  project: string | null;
  /** The stored memory this one would replace (a contradiction), when there is one. */
  replaces?: StoredMatch;
  /** Secrets replaced by a marker in `text`, by kind. */
  secretsRemoved?: string[];
}

/**
 * The memory service's side of capture: the inbox (proposals apart from the memories), the
 * search for near duplicates and contradictions, a cursor per session (src/capture/sink.ts).
 */
export interface CaptureSink {
  /** Memories of `project` (and global ones) that nearly repeat `text`, accepted or proposed. */
  nearDuplicates(text: string, project: string | null): Promise<StoredMatch[]>;
  /**
   * Whether `text` nearly repeats a proposal the user rejected in `project`'s hierarchy (its
   * project, or a global one): such a candidate is not proposed again.
   */
  rejectedBefore(text: string, project: string | null): Promise<boolean>;
  /**
   * The stored memories nearest `text` in `project`'s hierarchy (its project and the global
   * ones; null: global only), for the model's request: at most `limit` accepted memories, the
   * nearest first (the service's own search), then at most `limit` pending proposals (those
   * that share the most content words with `text`), each marked `proposed`, and `global` when it
   * is a global one.
   */
  related(text: string, project: string | null, limit: number): Promise<StoredMatch[]>;
  /**
   * Accepted memories that `text` contradicts (a proposal then replaces the first that is of its
   * own scope: a project's statement never replaces a global memory, which holds for every
   * project), each marked `global` when it is a global one.
   */
  contradictions(text: string, project: string | null): Promise<StoredMatch[]>;
  /** Store a proposal (never shown by bootstrap, the prompt hook or recall until accepted). */
  propose(p: Proposal): Promise<{ id: string }>;
  /**
   * Accept a proposal at once (auto-accept), as the inbox's accept does, its memory tagged
   * `auto-accepted`; throws when the create is refused (the proposal then stays).
   */
  acceptAutomatically(id: string): Promise<void>;
  /** The cursor of a session's transcript, or null before its first read. */
  getCursor(sessionId: string): Promise<Cursor | null>;
  /** Store a session's cursor (after its proposals are stored). */
  setCursor(sessionId: string, cursor: Cursor): Promise<void>;
}

/** What an extractor is told beside the turns. */
export interface ExtractContext {
  /** The session. */
  sessionId: string;
  /**
   * The stored memories nearest a text in the session's hierarchy ({@link CaptureSink.related}
   * with the session's project); the model's request lists them.
   */
  related?: (text: string, limit: number) => Promise<StoredMatch[]>;
}

/** Extracts candidates from new turns; the offline extractor or a model. */
export type Extractor = (turns: Turn[], ctx: ExtractContext) => Promise<Candidate[]>;

/** The offline extractor as an {@link Extractor}. */
export const offlineExtractor: Extractor = (turns) => Promise.resolve(extractCandidates(turns));

/**
 * The offline extractor proposing from `minConfidence` on (`CAPTURE_MIN_CONFIDENCE`) rather
 * than from its scorer's threshold.
 */
export function offlineExtractorFrom(minConfidence: number): Extractor {
  return (turns) => Promise.resolve(extractCandidates(turns, undefined, minConfidence));
}

/** What one run did (counts only: never a memory's text, never a secret). */
export interface CaptureReport {
  /** The session. */
  sessionId: string;
  /** The project. */
  project: string | null;
  /** Turns read. */
  turns: number;
  /** Bytes of transcript consumed. */
  bytes: number;
  /** Candidates found. */
  candidates: number;
  /** Proposals stored. */
  proposed: number;
  /** Candidates dropped as near duplicates of stored memories (counted, not shown). */
  duplicates: number;
  /** Candidates dropped because they nearly repeat a proposal the user rejected before. */
  rejectedBefore: number;
  /** Proposals accepted at once (auto-accept). */
  autoAccepted: number;
  /** Proposals that replace a stored memory. */
  replacements: number;
  /** Candidates that held a secret: kept with a marker. */
  redacted: number;
  /** Candidates dropped because little was left once the secret was removed. */
  droppedForSecret: number;
  /** The transcript was read again from the start (truncated or replaced). */
  restarted: boolean;
}

/** Options of {@link runCapture}. */
export interface CaptureOptions {
  /** The extractor (default: offline). */
  extractor?: Extractor;
  /** Bounds of the transcript read. */
  read?: ReadOptions;
  /** Project resolution (default: as the bootstrap does, from `cwd`). */
  project?: (cwd: string) => Promise<string | null>;
  /**
   * Auto-accept's floor (`CAPTURE_AUTO_ACCEPT`): a proposal whose confidence is at least this,
   * with no secret removed and replacing no stored memory, is accepted at once. Absent or null:
   * every proposal waits in the inbox.
   */
  autoAccept?: number | null;
}

/**
 * Whether a proposal is accepted at once under auto-accept's `floor`: its extractor's (or the
 * model's) confidence reaches the floor, no secret was replaced by a marker in it, and it
 * replaces no stored memory (those wait for a human).
 */
export function autoAcceptable(p: Proposal, floor: number | null | undefined): boolean {
  return floor != null && p.confidence >= floor && !p.secretsRemoved?.length && !p.replaces;
}

/** Words that must be left once secrets are removed for a candidate to be kept. */
const MIN_WORDS_LEFT = 6;

/**
 * Decide a candidate with secrets: kept with markers when the rest still says something
 * (at least {@link MIN_WORDS_LEFT} words besides the markers), else dropped.
 */
export async function guardSecrets(
  c: Candidate,
): Promise<{ keep: Candidate | null; kinds: string[] }> {
  const r = await redactSecrets(c.text);
  if (!r.findings.length) return { keep: c, kinds: [] };
  const kinds = r.findings.map((f) => f.kind);
  const rest = r.text.replace(/\[secret removed: [^\]]*\]/g, " ").split(/\s+/)
    .filter((w) => /[a-z]{2,}/i.test(w));
  if (rest.length < MIN_WORDS_LEFT) return { keep: null, kinds };
  return { keep: { ...c, text: r.text }, kinds };
}

/** Whether two candidates of one run say the same thing. */
function sameAs(a: Candidate, b: Candidate): boolean {
  return overlap(a.text, b.text) >= 0.8;
}

/** The project of `cwd` as the bootstrap resolves it. */
async function projectOf(cwd: string): Promise<string | null> {
  return (await resolveProject(cwd)).project;
}

/** Run capture for one hand-over. */
export async function runCapture(
  req: CaptureRequest,
  sink: CaptureSink,
  opts: CaptureOptions = {},
): Promise<CaptureReport> {
  const cursor = await sink.getCursor(req.sessionId);
  const read = await readTranscript(req.transcriptPath, cursor, opts.read);
  const project = req.project !== undefined
    ? req.project
    : await (opts.project ?? projectOf)(req.cwd);
  const report: CaptureReport = {
    sessionId: req.sessionId,
    project,
    turns: read.turns.length,
    bytes: read.bytes,
    candidates: 0,
    proposed: 0,
    duplicates: 0,
    rejectedBefore: 0,
    autoAccepted: 0,
    replacements: 0,
    redacted: 0,
    droppedForSecret: 0,
    restarted: read.restarted,
  };
  const extractor = opts.extractor ?? offlineExtractor;
  const related = (text: string, limit: number) => sink.related(text, project, limit);
  const found = read.turns.length
    ? await extractor(read.turns, { sessionId: req.sessionId, related })
    : [];
  report.candidates = found.length;
  const kept: Candidate[] = [];
  for (const c0 of found) {
    const { keep, kinds } = await guardSecrets(c0);
    if (!keep) {
      report.droppedForSecret++;
      continue;
    }
    if (kinds.length) report.redacted++;
    if (kept.some((k) => sameAs(k, keep))) {
      report.duplicates++;
      continue;
    }
    const scopeProject = keep.scope === "global" ? null : project;
    if (await sink.rejectedBefore(keep.text, scopeProject)) {
      report.rejectedBefore++;
      continue;
    }
    // The memory the model says this one changes is not its repeat (the model read both).
    const named = keep.replaces;
    const dups = (await sink.nearDuplicates(keep.text, scopeProject))
      .filter((m) => m.id !== named?.id);
    if (dups.length) {
      report.duplicates++;
      continue;
    }
    // A project's statement that contradicts a global memory is an exception for that project,
    // not its replacement: accepting it must not supersede the global one for every project.
    const replaces = named ??
      (await sink.contradictions(keep.text, scopeProject)).find((m) =>
        scopeProject === null || !m.global
      );
    const proposal: Proposal = {
      ...keep,
      project: scopeProject,
      ...(replaces ? { replaces } : {}),
      ...(kinds.length ? { secretsRemoved: kinds } : {}),
    };
    const { id } = await sink.propose(proposal);
    kept.push(keep);
    report.proposed++;
    if (replaces) report.replacements++;
    if (autoAcceptable(proposal, opts.autoAccept)) {
      try {
        await sink.acceptAutomatically(id);
        report.autoAccepted++;
      } catch {
        // Refused (a limit, a check of the create path): it waits in the inbox.
      }
    }
  }
  await sink.setCursor(req.sessionId, read.cursor);
  return report;
}

/** A stored memory of {@link MemoryCaptureSink}. */
export interface MemoryRecord {
  /** Its id. */
  id: string;
  /** Its text. */
  text: string;
  /** Its project (null: global). */
  project: string | null;
  /** Accepted, or proposed (in the inbox). */
  state: "accepted" | "proposed";
  /** The proposal, for proposed ones (and auto-accepted ones). */
  proposal?: Proposal;
  /** Accepted automatically. */
  autoAccepted?: boolean;
}

/** Whether `text` names `word` as a whole word. */
function names(text: string, word: string): boolean {
  const w = word.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return new RegExp(`(^|[^\\w@/-])${w}($|[^\\w@/-])`, "i").test(text);
}

/** "use A, not B": the choice and what it replaces. */
const CHOICE = /\buse ([\w@./-]+?)[,.]?\s[^.]*?\b(?:not|instead of|rather than|over) ([\w@./-]+)/i;

/**
 * The pending proposals nearest `text`: those that share a third or more of the shorter text's
 * content words with it (`overlap`), the most first, at most `limit`.
 */
export function nearestProposals<T extends { content: string }>(
  text: string,
  proposals: T[],
  limit: number,
): T[] {
  return proposals.map((p) => ({ p, o: overlap(text, p.content) }))
    .filter((x) => x.o >= RELATED_OVERLAP)
    .sort((a, b) => b.o - a.o)
    .slice(0, limit)
    .map((x) => x.p);
}

/** The share of content words a stored text must share with a message to be listed as related. */
export const RELATED_OVERLAP = 1 / 3;

/**
 * Finds the accepted memories nearest a text: their texts, nearest first (a search of the
 * service; the measuring tasks run one on PGlite).
 */
export type MemorySearch = (
  text: string,
  project: string | null,
  limit: number,
) => Promise<string[]>;

/**
 * A {@link CaptureSink} in memory: accepted memories given at construction, proposals
 * added, the near-duplicate check of src/capture/dedupe.ts, and a contradiction when a new
 * "use A, not B" meets an accepted memory that names B and not A. Related memories are those of
 * a {@link MemorySearch} when one is given, else those sharing a third of their content words.
 */
export class MemoryCaptureSink implements CaptureSink {
  /** Accepted and proposed memories. */
  readonly records: MemoryRecord[] = [];
  /** Cursors by session. */
  readonly cursors: Map<string, Cursor> = new Map();
  /** Tombstones of rejected proposals. */
  readonly rejected: { text: string; project: string | null }[] = [];
  #n = 0;

  readonly #search?: MemorySearch;

  /** A sink holding `accepted` memories, `search` finding the related ones. */
  constructor(
    accepted: { text: string; project: string | null }[] = [],
    opts: { search?: MemorySearch } = {},
  ) {
    this.#search = opts.search;
    for (const a of accepted) {
      this.records.push({
        id: `m${++this.#n}`,
        text: a.text,
        project: a.project,
        state: "accepted",
      });
    }
  }

  #visible(project: string | null): MemoryRecord[] {
    return this.records.filter((r) => r.project === null || r.project === project);
  }

  /** See {@link CaptureSink.nearDuplicates}. */
  nearDuplicates(text: string, project: string | null): Promise<StoredMatch[]> {
    return Promise.resolve(
      this.#visible(project).filter((r) => isNearDuplicate(text, r.text)).map((r) => ({
        id: r.id,
        text: r.text,
        proposed: r.state === "proposed",
      })),
    );
  }

  /** See {@link CaptureSink.related}. */
  async related(text: string, project: string | null, limit: number): Promise<StoredMatch[]> {
    const visible = this.#visible(project);
    const accepted = visible.filter((r) => r.state === "accepted");
    const found = this.#search
      ? (await this.#search(text, project, limit)).map((t) => accepted.find((r) => r.text === t))
        .filter((r): r is MemoryRecord => r !== undefined)
      : nearestProposals(text, accepted.map((r) => ({ ...r, content: r.text })), limit);
    const proposed = nearestProposals(
      text,
      visible.filter((r) => r.state === "proposed").map((r) => ({ ...r, content: r.text })),
      limit,
    );
    return [
      ...found.slice(0, limit).map((r) => ({ id: r.id, text: r.text, global: r.project === null })),
      ...proposed.map((r) => ({
        id: r.id,
        text: r.text,
        proposed: true,
        global: r.project === null,
      })),
    ];
  }

  /** See {@link CaptureSink.rejectedBefore}. */
  rejectedBefore(text: string, project: string | null): Promise<boolean> {
    return Promise.resolve(
      this.rejected.some((r) =>
        (r.project === null || r.project === project) && isNearDuplicate(text, r.text)
      ),
    );
  }

  /** Reject a proposal (as the inbox does): it goes, leaving a tombstone. */
  reject(id: string): void {
    const i = this.records.findIndex((r) => r.id === id && r.state === "proposed");
    if (i < 0) throw new Error(`no proposal ${id}`);
    const [r] = this.records.splice(i, 1);
    this.rejected.push({ text: r.text.toLowerCase(), project: r.project });
  }

  /** See {@link CaptureSink.acceptAutomatically}. */
  acceptAutomatically(id: string): Promise<void> {
    const r = this.records.find((r) => r.id === id && r.state === "proposed");
    if (!r) return Promise.reject(new Error(`no proposal ${id}`));
    r.state = "accepted";
    r.autoAccepted = true;
    return Promise.resolve();
  }

  /** See {@link CaptureSink.contradictions}. */
  contradictions(text: string, project: string | null): Promise<StoredMatch[]> {
    const m = text.match(CHOICE);
    if (!m) return Promise.resolve([]);
    return Promise.resolve(
      this.#visible(project).filter((r) =>
        r.state === "accepted" && names(r.text, m[2]) && !names(r.text, m[1])
      ).map((r) => ({ id: r.id, text: r.text, global: r.project === null })),
    );
  }

  /** See {@link CaptureSink.propose}. */
  propose(p: Proposal): Promise<{ id: string }> {
    const id = `p${++this.#n}`;
    this.records.push({ id, text: p.text, project: p.project, state: "proposed", proposal: p });
    return Promise.resolve({ id });
  }

  /** See {@link CaptureSink.getCursor}. */
  getCursor(sessionId: string): Promise<Cursor | null> {
    return Promise.resolve(this.cursors.get(sessionId) ?? null);
  }

  /** See {@link CaptureSink.setCursor}. */
  setCursor(sessionId: string, cursor: Cursor): Promise<void> {
    this.cursors.set(sessionId, cursor);
    return Promise.resolve();
  }

  /** The proposals, in order. */
  get proposals(): Proposal[] {
    return this.records.filter((r) => r.state === "proposed").map((r) => r.proposal!);
  }
}
