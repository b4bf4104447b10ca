/**
 * Readable text of tool results (the `content` part; `structuredContent` carries the data).
 * @module
 */
import type { Contradiction, Memory, SearchResult, Stats } from "../memory/types.ts";

function where(m: Memory): string {
  return m.scope === "project" ? `project ${m.project}` : "global";
}

function oneLine(text: string, max = 500): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

/** One memory as a short block: id, scope, type, tags, weight, expiry, supersession. */
export function memoryLine(m: Memory): string {
  const meta = [where(m), m.type];
  if (m.tags.length) meta.push(`tags: ${m.tags.join(", ")}`);
  if (m.weight !== 1) meta.push(`weight ${m.weight}`);
  if (m.expires_at) meta.push(`expires ${m.expires_at}`);
  if (m.supersedes) meta.push(`supersedes ${m.supersedes}`);
  if (m.superseded_by) meta.push(`SUPERSEDED by ${m.superseded_by}`);
  return `${oneLine(m.content)}\n   id ${m.id} (${meta.join("; ")})`;
}

/** Text of `remember`. */
export function rememberText(m: Memory, contradictions: Contradiction[]): string {
  const lines = [`Remembered ${m.id} (${where(m)}, ${m.type}).`];
  if (m.supersedes) lines.push(`It supersedes ${m.supersedes}, which no longer appears in recall.`);
  if (m.expires_at) lines.push(`Expires at ${m.expires_at}.`);
  if (contradictions.length) {
    lines.push(
      "",
      `WARNING: ${contradictions.length} existing ${
        contradictions.length === 1 ? "memory looks" : "memories look"
      } similar (similarity > 0.75) and may contradict it:`,
    );
    for (const c of contradictions) {
      lines.push(
        `- ${c.memory.id} (similarity ${c.similarity.toFixed(3)}): ${
          oneLine(c.memory.content, 300)
        }`,
      );
    }
    const id = contradictions.length === 1 ? contradictions[0].memory.id : "<its id>";
    lines.push(
      `This memory is stored: do not remember it again (that would store a duplicate). If ` +
        `${contradictions.length === 1 ? id : "one of them"} is outdated, forget it ` +
        `(forget id="${id}") and this one replaces it. Next time, correct a memory in one ` +
        `step: remember the new text with supersedes="${id}". If both are right, nothing to do.`,
    );
  }
  return lines.join("\n");
}

/** Text of `recall`. */
export function recallText(results: SearchResult[], query: string): string {
  if (!results.length) return `No memories match "${oneLine(query, 100)}".`;
  return [
    `${results.length} ${results.length === 1 ? "memory" : "memories"} for "${
      oneLine(query, 100)
    }", best first:`,
    ...results.map((r, i) =>
      `${i + 1}. [score ${r.score.toFixed(3)}${
        // A service older than 0.7 (the MCP server in API mode) sends no confidence.
        r.confidence === undefined ? "" : `, confidence ${r.confidence.toFixed(2)}`}] ${
        memoryLine(r.memory)
      }`
    ),
  ].join("\n");
}

/** Text of `list`. */
export function listText(memories: Memory[]): string {
  if (!memories.length) return "No memories match.";
  return [
    `${memories.length} ${memories.length === 1 ? "memory" : "memories"}, newest update first:`,
    ...memories.map((m, i) => `${i + 1}. ${memoryLine(m)}`),
  ].join("\n");
}

function counts(rec: Record<string, number>): string {
  const e = Object.entries(rec);
  return e.length ? e.map(([k, v]) => `${k} ${v}`).join(", ") : "none";
}

/** Text of `stats`. */
export function statsText(s: Stats): string {
  return [
    s.superseded
      ? `${s.live ?? s.total - s.superseded} live ${
        (s.live ?? s.total - s.superseded) === 1 ? "memory" : "memories"
      } and ${s.superseded} superseded (${s.total} in all; the counts below include both).`
      : `${s.total} ${s.total === 1 ? "memory" : "memories"}.`,
    `By scope: ${counts(s.by_scope)}.`,
    `By type: ${counts(s.by_type)}.`,
    `By project: ${counts(s.by_project)}.`,
  ].join("\n");
}
