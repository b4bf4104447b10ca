/**
 * Claude Code's session transcript (`~/.claude/projects/<cwd-slug>/<session id>.jsonl`), read
 * incrementally: one JSON object a line, appended as the session goes. The lines that carry
 * what was said are `type: "user"` and `type: "assistant"`, each with `uuid`, `parentUuid`,
 * `timestamp`, `sessionId`, `cwd` and `message: {role, content}`; `content` is a string (a
 * typed prompt) or an array of blocks (`text`, `tool_use`, `tool_result`, `thinking`,
 * `image`). Everything else (`attachment`, `system`, `queue-operation`, `last-prompt`,
 * `api-request*`, `cost-state`, `summary`, …) is skipped, and so are:
 * - tool results (a user line whose content holds a `tool_result` block) and tool calls;
 * - meta lines (`isMeta`: the caveat Claude Code adds around slash commands), slash commands
 *   and their output (`<command-name>`, `<local-command-stdout>`, `<bash-input>`, …);
 * - compaction summaries (`isCompactSummary`), sub-agents' lines (`isSidechain`);
 * - `<system-reminder>` blocks, and in user text anything inside `<private>…</private>`
 *   (stripped here, before anything else sees the text).
 *
 * The reader keeps a {@link Cursor} per session: the byte offset after the last complete
 * line it consumed, the uuid of the last event, and a fingerprint of the file's first line.
 * A partial last line is left for the next read; a line longer than
 * {@link ReadOptions.maxLineBytes} is skipped unparsed; a file that shrank or whose first
 * line changed (truncated, rotated, replaced) is read again from the start, skipping events up
 * to the cursor's last uuid when it is still there, so no event is handed out twice.
 * @module
 */

/** Where reading a session's transcript stopped. */
export interface Cursor {
  /** Byte offset just after the last complete line consumed. */
  offset: number;
  /** The uuid of the last user or assistant event handed out (or seen), if any. */
  lastUuid?: string;
  /** SHA-256 (hex, first 16 chars) of the file's first line, to notice a replaced file. */
  head?: string;
  /** Length and SHA-256 of the last line consumed, to notice a file rewritten in place. */
  tail?: { len: number; hash: string };
}

/** One thing said in the session, as the extractors see it. */
export interface Turn {
  /** Who said it. */
  role: "user" | "assistant";
  /** The text, cleaned (private parts and system reminders removed). */
  text: string;
  /** The event's uuid. */
  uuid: string;
  /** The event's ISO time. */
  timestamp: string;
  /** The session. */
  sessionId: string;
  /** The working directory the event records. */
  cwd?: string;
}

/** Bounds of one read. */
export interface ReadOptions {
  /** Longest line parsed; longer ones (huge tool results) are skipped. Default 1 MiB. */
  maxLineBytes?: number;
  /** Most bytes consumed in one read; the rest waits for the next. Default 64 MiB. */
  maxReadBytes?: number;
}

/** The result of one incremental read. */
export interface ReadResult {
  /** The new turns, in file order. */
  turns: Turn[];
  /** The cursor to store for the next read. */
  cursor: Cursor;
  /** Lines skipped for their length. */
  skippedLong: number;
  /** Lines that were not JSON objects. */
  malformed: number;
  /** The file was read again from the start (truncated, rotated or replaced). */
  restarted: boolean;
  /** Bytes consumed. */
  bytes: number;
  /** More was left in the file (the read hit maxReadBytes). */
  more: boolean;
}

/** Default {@link ReadOptions.maxLineBytes}. */
export const DEFAULT_MAX_LINE_BYTES = 1 << 20;
/** Default {@link ReadOptions.maxReadBytes}. */
export const DEFAULT_MAX_READ_BYTES = 64 << 20;

const PRIVATE = /<private>[\s\S]*?(<\/private>|$)/gi;
const REMINDER = /<system-reminder>[\s\S]*?(<\/system-reminder>|$)/gi;
/** User text that is Claude Code's own, not the user's words. */
const COMMAND_TEXT =
  /^\s*(<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|bash-input|bash-stdout|bash-stderr|user-memory-input|task-notification)>|Caveat: The messages below were generated|\[Request interrupted by user)/;

/** `text` without `<private>…</private>` parts (an unclosed tag hides the rest). */
export function stripPrivate(text: string): string {
  return text.replace(PRIVATE, " ");
}

type Json = Record<string, unknown>;

/** The turn of one parsed transcript line, or null when it carries nothing said. */
export function turnOf(o: Json): Turn | null {
  if (o.type !== "user" && o.type !== "assistant") return null;
  if (o.isSidechain === true || o.isMeta === true || o.isCompactSummary === true) return null;
  if (o.isVisibleInTranscriptOnly === true) return null;
  const uuid = o.uuid, ts = o.timestamp, sid = o.sessionId;
  if (typeof uuid !== "string" || typeof sid !== "string") return null;
  const msg = o.message as Json | undefined;
  if (!msg || typeof msg !== "object") return null;
  const content = msg.content;
  let text: string;
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    if (content.some((b) => (b as Json)?.type === "tool_result")) return null;
    text = content
      .filter((b) => (b as Json)?.type === "text" && typeof (b as Json).text === "string")
      .map((b) => (b as Json).text as string).join("\n");
  } else return null;
  const role = o.type;
  if (role === "user" && COMMAND_TEXT.test(text)) return null;
  text = text.replace(REMINDER, " ");
  text = stripPrivate(text).trim();
  if (!text) return null;
  return {
    role,
    text,
    uuid,
    timestamp: typeof ts === "string" ? ts : "",
    sessionId: sid,
    ...(typeof o.cwd === "string" ? { cwd: o.cwd } : {}),
  };
}

async function fingerprint(line: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", line as BufferSource));
  return Array.from(d.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The first line of `file` (at most `max` bytes), or null when it has no complete line. */
async function firstLine(file: Deno.FsFile, max: number): Promise<Uint8Array | null> {
  await file.seek(0, Deno.SeekMode.Start);
  const buf = new Uint8Array(Math.min(max, 64 * 1024));
  let got = 0;
  while (got < buf.length) {
    const n = await file.read(buf.subarray(got));
    if (n === null) break;
    const nl = buf.subarray(got, got + n).indexOf(10);
    if (nl >= 0) return buf.slice(0, got + nl);
    got += n;
  }
  // No newline in the first 64 KiB: the fingerprint is of that much.
  return got === buf.length ? buf.slice(0, got) : null;
}

/**
 * Read the turns of `path` after `cursor` (none: from the start). The file is read from the
 * cursor's offset up to its last complete line; see the module's notes for the rest.
 */
export async function readTranscript(
  path: string,
  cursor: Cursor | null,
  opts: ReadOptions = {},
): Promise<ReadResult> {
  const maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxRead = opts.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    const first = await firstLine(file, maxLine);
    const head = first ? await fingerprint(first) : undefined;
    let start = cursor?.offset ?? 0;
    let restarted = false;
    // Skip events up to this uuid (a file read again from the start).
    let skipUntil: string | undefined;
    if (
      cursor && (start > size || await tailChanged(file, cursor, start) ||
        (cursor.head !== undefined && head !== undefined && cursor.head !== head))
    ) {
      restarted = true;
      start = 0;
      skipUntil = cursor.lastUuid;
    }
    const read = await readLines(file, start, size, maxLine, maxRead);
    const { lines, consumed } = read;
    let events = eventsOf(lines, skipUntil, cursor?.lastUuid, false);
    if (skipUntil !== undefined && !events.found) {
      // The last event read before is not in the file: a different file. Read it all.
      events = eventsOf(lines, undefined, undefined, true);
    }
    let tail = cursor?.tail && !restarted && consumed === start ? cursor.tail : undefined;
    if (lines.length) {
      const last = lines[lines.length - 1];
      if (last.end === consumed) {
        const withNl = new Uint8Array(last.bytes.length + 1);
        withNl.set(last.bytes);
        withNl[last.bytes.length] = 10;
        tail = { len: withNl.length, hash: await fingerprint(withNl) };
      }
    }
    const lastUuid = events.lastUuid;
    return {
      turns: events.turns,
      cursor: {
        offset: consumed,
        ...(lastUuid ? { lastUuid } : {}),
        ...(head ? { head } : {}),
        ...(tail ? { tail } : {}),
      },
      skippedLong: read.skippedLong,
      malformed: events.malformed,
      restarted,
      bytes: consumed - start,
      more: read.more,
    };
  } finally {
    file.close();
  }
}

/** Whether the bytes before `start` are no longer those the cursor read last (the file was rewritten). */
async function tailChanged(file: Deno.FsFile, cursor: Cursor, start: number): Promise<boolean> {
  if (!cursor.tail || start > (await file.stat()).size || cursor.tail.len > start) return false;
  const buf = new Uint8Array(cursor.tail.len);
  await file.seek(start - cursor.tail.len, Deno.SeekMode.Start);
  let got = 0;
  while (got < buf.length) {
    const n = await file.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return got < buf.length || (await fingerprint(buf)) !== cursor.tail.hash;
}

/** The complete lines of `file` from `start`, at most about `maxRead` bytes of them. */
async function readLines(
  file: Deno.FsFile,
  start: number,
  size: number,
  maxLine: number,
  maxRead: number,
): Promise<{
  lines: { bytes: Uint8Array; end: number }[];
  skippedLong: number;
  consumed: number;
  more: boolean;
}> {
  const lines: { bytes: Uint8Array; end: number }[] = [];
  let skippedLong = 0;
  await file.seek(start, Deno.SeekMode.Start);
  const chunk = new Uint8Array(64 * 1024);
  let pending: Uint8Array[] = [];
  let pendingLen = 0;
  let skipping = false; // inside a line longer than maxLine
  let pos = start; // file offset of chunk[0]
  let consumed = start; // offset after the last complete line
  let more = false;
  while (true) {
    if (consumed - start >= maxRead) {
      more = consumed < size;
      break;
    }
    const n = await file.read(chunk);
    if (n === null) break;
    let from = 0;
    while (from < n) {
      const nl = chunk.subarray(from, n).indexOf(10);
      if (nl < 0) {
        if (!skipping) {
          pending.push(chunk.slice(from, n));
          pendingLen += n - from;
          if (pendingLen > maxLine) {
            skipping = true;
            pending = [];
            pendingLen = 0;
          }
        }
        break;
      }
      const end = from + nl;
      if (skipping) skippedLong++;
      else if (pendingLen + nl > maxLine) skippedLong++;
      else {
        const line = new Uint8Array(pendingLen + nl);
        let o = 0;
        for (const p of pending) {
          line.set(p, o);
          o += p.length;
        }
        line.set(chunk.subarray(from, end), o);
        lines.push({ bytes: line, end: pos + end + 1 });
      }
      consumed = pos + end + 1;
      pending = [];
      pendingLen = 0;
      skipping = false;
      from = end + 1;
    }
    pos += n;
  }
  return { lines, skippedLong, consumed, more };
}

/**
 * The turns of `lines` after the event `skipUntil` (all when undefined), the last user or
 * assistant event's uuid (from `lastUuid`), the malformed lines (empty ones too with
 * `countEmpty`), and whether `skipUntil` was found.
 */
function eventsOf(
  lines: readonly { bytes: Uint8Array }[],
  skipUntil: string | undefined,
  lastUuid: string | undefined,
  countEmpty: boolean,
): { turns: Turn[]; malformed: number; lastUuid: string | undefined; found: boolean } {
  const dec = new TextDecoder();
  const turns: Turn[] = [];
  let malformed = 0;
  let found = skipUntil === undefined;
  for (const { bytes } of lines) {
    let o: unknown;
    try {
      o = JSON.parse(dec.decode(bytes));
    } catch {
      if (countEmpty || bytes.length > 0) malformed++;
      continue;
    }
    if (!o || typeof o !== "object" || Array.isArray(o)) {
      malformed++;
      continue;
    }
    const j = o as Json;
    const uuid = typeof j.uuid === "string" ? j.uuid : undefined;
    if (!found) {
      if (uuid === skipUntil) found = true;
      continue;
    }
    if (uuid && (j.type === "user" || j.type === "assistant")) lastUuid = uuid;
    const t = turnOf(j);
    if (t) turns.push(t);
  }
  return { turns, malformed, lastUuid, found };
}
