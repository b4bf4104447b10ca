/**
 * LoCoMo-format conversations for the recall benchmark and the confidence fit: loading, and
 * the questions they ask (categories 1-4 with evidence).
 * @module
 */
import type { ImportItem, MemoryService } from "../src/memory/types.ts";

/** A dialogue turn. */
export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
}
export interface Qa {
  question: string;
  evidence?: string[];
  category: number;
}
export interface Conversation {
  name: string;
  turns: Turn[];
  qa: Qa[];
}

/** Load every `.json` file of `dir` (one conversation each, or the full dataset's array). */
export async function loadData(dir: string): Promise<Conversation[]> {
  const out: Conversation[] = [];
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".json")) names.push(e.name);
  }
  names.sort();
  for (const name of names) {
    const raw = JSON.parse(await Deno.readTextFile(`${dir}/${name}`));
    // The full dataset (locomo10.json) is one array of samples with a `conversation` object.
    const samples = Array.isArray(raw) ? raw : [raw];
    samples.forEach((s: Record<string, unknown>, i: number) => {
      const conv = (s.conversation ?? s) as Record<string, unknown>;
      const turns: Turn[] = [];
      const keys = Object.keys(conv).filter((k) => /^session_\d+$/.test(k))
        .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
      for (const k of keys) turns.push(...(conv[k] as Turn[]));
      out.push({
        name: samples.length > 1
          ? `${name.replace(/\.json$/, "")}-${s.sample_id ?? i}`
          : name.replace(/\.json$/, ""),
        turns,
        qa: s.qa as Qa[],
      });
    });
  }
  return out;
}

/** The categories asked: multi-hop, temporal, open-domain, single-hop. */
export const CATEGORIES = [1, 2, 3, 4];

/** The questions of a conversation that are asked (categories 1-4, with evidence). */
export function askedQuestions(c: Conversation): Qa[] {
  return c.qa.filter((q) => CATEGORIES.includes(q.category) && q.evidence?.length);
}

/** The memory content a turn is stored as. */
export const turnContent = (t: Turn) => `${t.speaker}: ${t.text}`;

/**
 * Store every turn as one memory (content `"<speaker>: <text>"`, scope `project`, one project
 * per conversation, type `context`) through the service's import; returns the dia_ids of each
 * stored content, keyed `"<project>\n<content>"`.
 */
export async function importConversations(
  service: MemoryService,
  convs: Conversation[],
): Promise<Map<string, string[]>> {
  const idsOf = new Map<string, string[]>();
  for (const c of convs) {
    const items: ImportItem[] = c.turns.map((t) => ({
      content: turnContent(t),
      scope: "project",
      project: c.name,
      type: "context",
    }));
    await service.import(items);
    c.turns.forEach((t, i) => {
      // The service stores content trimmed.
      const key = `${c.name}\n${items[i].content.trim()}`;
      idsOf.set(key, [...idsOf.get(key) ?? [], t.dia_id]);
    });
  }
  return idsOf;
}
