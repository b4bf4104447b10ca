/**
 * The user's round trip through the Admin API of real daemons (builtin embedder): memories
 * added, some replaced (`supersedes`, as `memcli add --replace` ends up sending), exported, imported
 * into a fresh data folder or database; then the same live memories, the same superseded ones
 * (without links), and the same search results for a handful of queries.
 */
import assert from "node:assert/strict";
import { startAdminServer } from "../../src/admin/server.ts";
import type { MemoryConfig } from "../../src/config.ts";
import { freePort, tempDir, testConfig } from "../helpers.ts";

const FACTS: { content: string; project?: string; type?: string; replaces?: string }[] = [
  { content: "The staging database runs on port 5433" },
  { content: "Deploys go out on Tuesdays after the standup", project: "shop" },
  { content: "Use pnpm, not npm, in the web app", project: "shop", type: "rule" },
  { content: "The CI cache key includes the lockfile hash", type: "context" },
  { content: "The staging database runs on port 6543", replaces: "5433" },
  { content: "Deploys go out on Thursdays after the standup", project: "shop", replaces: "Tues" },
  { content: "Logs are kept for 30 days in the bucket" },
  { content: "Logs are kept for 90 days in the bucket", replaces: "30 days" },
];
const QUERIES: { query: string; project?: string }[] = [
  { query: "staging database port" },
  { query: "when do deploys go out", project: "shop" },
  { query: "package manager for the web app", project: "shop" },
  { query: "how long are logs kept" },
  { query: "CI cache key" },
];

type Listed = { id: string; content: string; superseded_by: string | null; weight: number };

async function api(url: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  assert.ok(res.ok, `${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** What a user sees: live and superseded contents, each query's results (content, score). */
async function view(url: string) {
  const listed = await api(url, "/api/memories?limit=100") as Listed[];
  const live = listed.filter((m) => m.superseded_by === null).map((m) => m.content).sort();
  const superseded = listed.filter((m) => m.superseded_by !== null)
    .map((m) => `${m.content} (weight ${m.weight})`).sort();
  const searches: string[][] = [];
  for (const q of QUERIES) {
    const results = await api(url, "/api/memories/search", { ...q, limit: 5 }) as {
      memory: { content: string };
      score: number;
    }[];
    searches.push(results.map((r) => `${r.memory.content} ${r.score.toFixed(3)}`));
  }
  return { live, superseded, searches, ids: listed.map((m) => m.id) };
}

/**
 * Runs the round trip between two daemons made by `config(n)` (n = 0 the source, 1 the
 * target, each on its own empty data folder or database).
 */
export async function roundTrip(config: (n: number, dataDir: string) => Partial<MemoryConfig>) {
  const dirs = [await tempDir("mneme-trip-a-"), await tempDir("mneme-trip-b-")];
  const servers = [];
  try {
    for (const n of [0, 1]) {
      servers.push(
        await startAdminServer(
          testConfig({
            dataDir: dirs[n].path,
            adminPort: freePort(),
            adminHost: "127.0.0.1",
            ...config(n, dirs[n].path),
          }),
          { log: () => {} },
        ),
      );
    }
    const [a, b] = servers;
    const made: { id: string; content: string }[] = [];
    for (const { replaces, ...f } of FACTS) {
      const old = replaces === undefined
        ? undefined
        : made.find((m) => m.content.includes(replaces));
      const r = await api(a.url, "/api/memories", { ...f, ...(old ? { supersedes: old.id } : {}) });
      made.push((r as { memory: { id: string; content: string } }).memory);
    }
    const before = await view(a.url);
    assert.equal(before.superseded.length, 3, JSON.stringify(before));
    const exported = await api(a.url, "/api/memories/export", {}) as { superseded?: true }[];
    assert.equal(exported.filter((r) => r.superseded === true).length, 3);
    // The file as a user keeps it, then imported into the fresh folder or database.
    assert.deepEqual(
      await api(b.url, "/api/memories/import", JSON.parse(JSON.stringify(exported))),
      {
        imported: FACTS.length,
        skipped: 0,
      },
    );
    const after = await view(b.url);
    assert.deepEqual(after.live, before.live);
    assert.deepEqual(after.superseded, before.superseded);
    assert.deepEqual(after.searches, before.searches);
    assert.ok(!after.ids.some((id) => before.ids.includes(id)), "new ids");
    assert.ok(before.searches.every((r) => r.length > 0), JSON.stringify(before.searches));
  } finally {
    for (const s of servers) await s.close();
    for (const d of dirs) await d.cleanup();
  }
}
