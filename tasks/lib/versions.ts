/**
 * Versions of Mneme side by side in one bench process, each asked through the paths an agent
 * uses: the MCP `recall` tool (the version's own MCP server, `createMcpServer`, in process over
 * the SDK's in-memory transport, with the SDK's client) and the prompt hook (the version's own
 * search call and `formatRecall` at its own default floor). Each version loads its modules from
 * its own tree (this one, or a checkout of an earlier one) and keeps stores of its own; every
 * prompt is asked of every version in turn, alternating which goes first, so that all see the
 * machine at the same moment.
 * @module
 */
import { Client, InMemoryTransport } from "../../tests/deps.ts";
import {
  importProject,
  memoryKey,
  type ParaphraseSet,
  promptsOf,
  type Split,
  targetsOf,
} from "../paraphrase.ts";
import { askedQuestions, type Conversation, importConversations } from "../locomo.ts";
import type { MemoryService, SearchResult } from "../../src/memory/types.ts";

// The modules are loaded by URL from each tree, so they are typed loosely here.
// deno-lint-ignore no-explicit-any
type Module = any;

/** A version's modules. */
export interface Version {
  /** How the tables name it. */
  name: string;
  /** Its deno.json version. */
  version: string;
  /** The root of its tree. */
  dir: URL;
  mods: Record<"service" | "store" | "migrate" | "pglite" | "builtin" | "mcp" | "recall", Module>;
  /** The version's builtin embedder, probed once. */
  embedder: Module;
  /** `MAX_QUERY` of the version: the hook cuts a prompt to it. */
  maxQuery: number;
}

/** Load the modules of the tree at `dir` (a `file:` URL ending in `/`). */
export async function loadVersion(dir: URL, name: string): Promise<Version> {
  // A module moved between versions is looked up at each of its places, newest first.
  const at = async (...paths: string[]) => {
    for (const path of paths) {
      const url = new URL(path, dir);
      try {
        await Deno.stat(url);
      } catch {
        continue;
      }
      return await import(url.href);
    }
    throw new Error(`${dir.pathname}: none of ${paths.join(", ")}`);
  };
  const [service, store, migrate, pglite, builtin, mcp, recall, validate, version] = await Promise
    .all([
      at("src/memory/service.ts"),
      at("src/store/store.ts"),
      at("src/store/migrate.ts"),
      at("src/store/pglite/mod.ts", "src/store/pglite.ts"),
      at("src/embed/builtin.ts"),
      at("src/mcp/server.ts"),
      at("src/memcli/commands/recall.ts"),
      at("src/memory/validate.ts"),
      at("src/version.ts"),
    ]);
  const embedder = new builtin.BuiltinEmbedder();
  await embedder.probe();
  return {
    name: `${name} (${version.VERSION})`,
    version: version.VERSION,
    dir,
    mods: { service, store, migrate, pglite, builtin, mcp, recall },
    embedder,
    maxQuery: validate.MAX_QUERY,
  };
}

/** A version's service on a fresh in-memory store, with its MCP server and a client of it. */
export interface OpenVersion {
  version: Version;
  service: MemoryService;
  /** Call the `recall` tool; the results it returns. */
  recall(query: string, project: string, limit: number): Promise<SearchResult[]>;
  /** The hook: search as `memcli recall --hook` does, format at the default floor. */
  hook(prompt: string, project: string): Promise<{ text: string; results: SearchResult[] }>;
  close(): Promise<void>;
}

/**
 * Open `v` on an empty in-memory database; `deps` are more of its service's dependencies (this
 * tree's `expansion`, for tasks/expansion_probe.ts).
 */
export async function openVersion(
  v: Version,
  deps: Record<string, unknown> = {},
): Promise<OpenVersion> {
  const { service: s, store, migrate, pglite, mcp, recall } = v.mods;
  const db = await pglite.openPglite();
  await migrate.migrate(db);
  const stored = await migrate.ensureEmbeddingColumn(db, v.embedder.info);
  const service = new s.SqlMemoryService({
    store: new store.Store(db),
    embedder: v.embedder,
    stored,
    ...deps,
  }) as MemoryService;
  const server = mcp.createMcpServer(service, { log: () => {} });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "bench-recall", version: "0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  const hookLimit: number = recall.DEFAULT_RECALL_LIMIT;
  return {
    version: v,
    service,
    async recall(query, project, limit) {
      const r = await client.callTool({ name: "recall", arguments: { query, project, limit } });
      if (r.isError) throw new Error(`${v.name}: recall: ${JSON.stringify(r.content)}`);
      return (r.structuredContent as { results: SearchResult[] }).results;
    },
    async hook(prompt, project) {
      // As the hook: nothing searched for a very short prompt or a slash command.
      if (prompt.trim().length < 3 || prompt.trim().startsWith("/")) {
        return { text: "", results: [] };
      }
      const results = await service.search({
        query: prompt.trim().slice(0, v.maxQuery),
        project,
        limit: recall.recallSearchLimit(hookLimit),
      }) as SearchResult[];
      const text: string = recall.formatRecall(results, {
        project,
        limit: hookLimit,
        maxChars: recall.DEFAULT_RECALL_MAX_CHARS,
        minScore: recall.DEFAULT_MIN_SCORE,
        minConfidence: recall.DEFAULT_MIN_CONFIDENCE,
      });
      return { text, results };
    },
    async close() {
      await client.close();
      await server.close();
      // The service's close: its background work (the analyze an import series left due)
      // ends before the database it closes; closing the database under it would fail that.
      await service.close();
    },
  };
}

/** One version's figures on one dataset (and split, and project or all). */
export interface VersionRow {
  dataset: string;
  split: string;
  project: string;
  version: string;
  aimed: number;
  tool_hit5: number;
  hook_hit: number;
  everyday: number;
  everyday_injected: number;
  tool_p50_ms: number;
  tool_p95_ms: number;
  /** Ids of the aimed prompts the tool missed at 5, and of everyday prompts injected. */
  tool_misses?: string[];
  everyday_injected_ids?: string[];
}

interface Tally {
  aimed: number;
  hit5: number;
  hookHit: number;
  everyday: number;
  injected: number;
  times: number[];
  misses: string[];
  injectedIds: string[];
}
const tally = (): Tally => ({
  aimed: 0,
  hit5: 0,
  hookHit: 0,
  everyday: 0,
  injected: 0,
  times: [],
  misses: [],
  injectedIds: [],
});
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const r3 = (x: number) => +x.toFixed(3);

function rowOf(
  t: Tally,
  dataset: string,
  split: string,
  project: string,
  version: string,
  ids: boolean,
): VersionRow {
  return {
    dataset,
    split,
    project,
    version,
    aimed: t.aimed,
    tool_hit5: r3(t.hit5 / Math.max(1, t.aimed)),
    hook_hit: r3(t.hookHit / Math.max(1, t.aimed)),
    everyday: t.everyday,
    everyday_injected: r3(t.injected / Math.max(1, t.everyday)),
    tool_p50_ms: +pct(t.times, 50).toFixed(2),
    tool_p95_ms: +pct(t.times, 95).toFixed(2),
    ...(ids ? { tool_misses: t.misses, everyday_injected_ids: t.injectedIds } : {}),
  };
}

function merge(into: Tally, t: Tally): void {
  into.aimed += t.aimed;
  into.hit5 += t.hit5;
  into.hookHit += t.hookHit;
  into.everyday += t.everyday;
  into.injected += t.injected;
  into.times.push(...t.times);
  into.misses.push(...t.misses);
  into.injectedIds.push(...t.injectedIds);
}

/** Ask one prompt of every version in turn (`flip`: the last goes first). */
async function askAll<T>(
  opens: OpenVersion[],
  flip: boolean,
  ask: (o: OpenVersion, i: number) => Promise<T>,
): Promise<void> {
  const order = opens.map((_, i) => i);
  if (flip) order.reverse();
  for (const i of order) await ask(opens[i], i);
}

/**
 * The paraphrase set for every version: each project in a fresh store per version (its
 * memories and the global ones), every prompt of `splits` asked of each. Rows per split
 * (all projects, then each project).
 */
export async function paraphraseRows(
  versions: Version[],
  set: ParaphraseSet,
  splits: Split[],
): Promise<VersionRow[]> {
  const totals = new Map<string, Tally>();
  const perProject: VersionRow[] = [];
  let flip = false;
  for (const project of set.projects.map((p) => p.name)) {
    const opens: OpenVersion[] = [];
    const keys: Map<string, string>[] = [];
    for (const v of versions) {
      const o = await openVersion(v);
      opens.push(o);
      keys.push(await importProject(o.service, set, project));
    }
    const idOf = (i: number, r: SearchResult) =>
      keys[i].get(memoryKey(r.memory.scope, project, r.memory.content));
    for (const split of splits) {
      const here = versions.map(() => tally());
      for (const p of promptsOf(set, split, project)) {
        const targets = targetsOf(p);
        await askAll(opens, flip = !flip, async (o, i) => {
          const t = here[i];
          const t0 = performance.now();
          const top = await o.recall(p.text, project, 5);
          t.times.push(performance.now() - t0);
          const hook = await o.hook(p.text, project);
          if (targets) {
            t.aimed++;
            if (top.slice(0, 5).some((r) => targets.has(idOf(i, r) ?? ""))) t.hit5++;
            else t.misses.push(p.id);
            if (
              hook.results.some((r) =>
                hook.text.includes(r.memory.id) && targets.has(idOf(i, r) ?? "")
              )
            ) t.hookHit++;
          } else {
            t.everyday++;
            if (hook.text) {
              t.injected++;
              t.injectedIds.push(p.id);
            }
          }
        });
      }
      versions.forEach((v, i) => {
        perProject.push(rowOf(here[i], "paraphrase", split, project, v.name, true));
        const key = `${split}\n${v.name}`;
        if (!totals.has(key)) totals.set(key, tally());
        merge(totals.get(key)!, here[i]);
      });
    }
    for (const o of opens) await o.close();
  }
  const rows: VersionRow[] = [];
  for (const split of splits) {
    for (const v of versions) {
      rows.push(
        rowOf(totals.get(`${split}\n${v.name}`)!, "paraphrase", split, "all", v.name, true),
      );
    }
    rows.push(...perProject.filter((r) => r.split === split));
  }
  return rows;
}

/**
 * LoCoMo for every version: one store per version with a project per conversation (as the
 * detailed LoCoMo bench stores it); every question asked through the tool and the hook in its
 * own project (aimed: hit when an evidence turn is among the 5, or injected) and through the
 * hook in the next conversation's project (everyday: anything injected is noise).
 */
export async function locomoRows(
  versions: Version[],
  convs: Conversation[],
  label: string,
): Promise<VersionRow[]> {
  const opens: OpenVersion[] = [];
  const ids: Map<string, string[]>[] = [];
  for (const v of versions) {
    const o = await openVersion(v);
    opens.push(o);
    ids.push(await importConversations(o.service, convs));
  }
  const t = versions.map(() => tally());
  let flip = false;
  for (const [ci, c] of convs.entries()) {
    const next = convs[(ci + 1) % convs.length];
    for (const q of askedQuestions(c)) {
      const evidence = new Set(q.evidence);
      const isEvidence = (i: number, r: SearchResult) =>
        (ids[i].get(`${c.name}\n${r.memory.content}`) ?? []).some((d) => evidence.has(d));
      await askAll(opens, flip = !flip, async (o, i) => {
        const t0 = performance.now();
        const top = await o.recall(q.question, c.name, 5);
        t[i].times.push(performance.now() - t0);
        t[i].aimed++;
        if (top.slice(0, 5).some((r) => isEvidence(i, r))) t[i].hit5++;
        const own = await o.hook(q.question, c.name);
        if (own.results.some((r) => own.text.includes(r.memory.id) && isEvidence(i, r))) {
          t[i].hookHit++;
        }
        const other = await o.hook(q.question, next.name);
        t[i].everyday++;
        if (other.text) t[i].injected++;
      });
    }
  }
  for (const o of opens) await o.close();
  return versions.map((v, i) => rowOf(t[i], "LoCoMo", label, "all", v.name, false));
}

/** Print the rows as a table. */
export function printVersionRows(rows: VersionRow[]): void {
  console.log(
    "| dataset | split | project | version | aimed | tool hit@5 | hook hit | everyday | " +
      "everyday injected | tool p50 / p95 ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.dataset} | ${r.split} | ${r.project} | ${r.version} | ${r.aimed} | ${
        r.tool_hit5.toFixed(3)
      } | ${r.hook_hit.toFixed(3)} | ${r.everyday} | ${r.everyday_injected.toFixed(3)} | ${
        r.tool_p50_ms.toFixed(1)
      } / ${r.tool_p95_ms.toFixed(1)} |`,
    );
  }
}
