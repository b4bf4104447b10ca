/**
 * What the judge's tests share (tests/memory/judge_test.ts, tests/admin/judge_test.ts): a small
 * project whose prompt "turn off the new checkout" finds the feature-flag memory with a
 * confidence under the hook's 0.9 floor but over the pool's 0.5 (the plain hook injects nothing
 * for it), and a Messages API fake that answers the judge from a script over the request text.
 */
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import type { MemoryService, MemoryType } from "../../src/memory/types.ts";

/** The project of the memories. */
export const PROJECT = "shop";

/** The memories, and which one the prompt is about. */
export const MEMORIES: { type: MemoryType; content: string }[] = [
  {
    type: "decision",
    content:
      "Releases are deployed with the Helm charts in deploy/charts; never kubectl apply by hand.",
  },
  { type: "rule", content: "Use pnpm, never npm; the lockfile pnpm-lock.yaml is committed." },
  {
    type: "fact",
    content: "The staging database is Postgres 16 on RDS, reached through the bastion host.",
  },
  {
    type: "fact",
    content: "Feature flags live in LaunchDarkly; the kill switch for checkout is checkout-v2.",
  },
];
/** The memory the fake's model chooses. */
export const FLAGS = MEMORIES[3];
/** A prompt whose pool holds FLAGS under the hook's floor. */
export const PROMPT = "turn off the new checkout";
/** A prompt about nothing stored: an empty pool, no call. */
export const UNRELATED = "explain monads in haskell with a short example";

/** The API key the fake accepts. */
export const KEY = "sk-ant-api-judge-test";

/** Store the memories; their ids by content. */
export async function seed(service: MemoryService): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const m of MEMORIES) {
    const r = await service.create({ content: m.content, project: PROJECT, type: m.type });
    ids.set(m.content, r.memory.id);
  }
  return ids;
}

/**
 * The numbers of the notes of a judge's request (its user text) whose line contains `word`:
 * the scripted model's choice.
 */
export function notesWith(user: string, word: string): number[] {
  const notes = /<notes>\n([\s\S]*?)<\/notes>/.exec(user)?.[1] ?? "";
  return notes.split("\n").filter((l) => l.includes(word)).map((l) =>
    Number(/^(\d+)\./.exec(l)?.[1])
  )
    .filter((n) => n > 0);
}

/** The user text of a Messages API request body. */
export function userText(body: Record<string, unknown>): string {
  const msgs = body.messages as { content: unknown }[];
  const c = msgs.at(-1)!.content;
  return typeof c === "string" ? c : JSON.stringify(c);
}

/**
 * The Messages API fake answering the judge: by default `{"use": [the notes naming
 * LaunchDarkly]}`; `answer` replaces the text (a malformed answer), `replyDelayMs` slows it.
 */
export function judgeFake(o: { answer?: string; replyDelayMs?: number } = {}) {
  return startFakeAnthropic({
    apiKeys: [KEY],
    usageFromBody: true,
    ...(o.replyDelayMs ? { replyDelayMs: o.replyDelayMs } : {}),
    reply: (b) => o.answer ?? JSON.stringify({ use: notesWith(userText(b), "LaunchDarkly") }),
  });
}
