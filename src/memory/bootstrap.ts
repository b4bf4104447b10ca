/**
 * Bootstrap: the Markdown an agent reads at session start (`memcli bootstrap`, the MCP
 * resources `mneme://bootstrap` and `mneme://bootstrap/{project}`).
 *
 * Loading ({@link loadBootstrap}) makes exactly the two `list` calls of the spec:
 * `scope=global,type=bootstrap,limit=100` and, when a project is set,
 * `scope=project,project=NAME,type=bootstrap,limit=100`. The results are merged by id
 * (global first, then project; each newest first, as the API orders them). Memories that
 * were superseded by a newer one (`superseded_by` set) are left out, since they hold
 * outdated instructions.
 *
 * Rendering ({@link renderBootstrap}) prints a fixed `## System` section, then the groups
 * Bootstrap, Rules, Feedback, Facts, Decisions and Context (empty groups left out), then a
 * `## Bootstrap Stats` block. Because bootstrap loads only `type=bootstrap` memories, the
 * group of a memory is chosen like this:
 *
 * 1. a memory whose `type` is not `bootstrap` goes to the group of its type
 *    (`rule` → Rules, `feedback` → Feedback, `fact` → Facts, `decision` → Decisions,
 *    `context` → Context);
 * 2. a `bootstrap` memory goes to the group of its first tag that names one
 *    (`rule`/`rules`, `feedback`, `fact`/`facts`, `decision`/`decisions`, `context`;
 *    case-insensitive);
 * 3. every other memory goes to Bootstrap.
 *
 * So `memcli add "Run deno task ok before committing" --type bootstrap --tags rule` shows
 * up under Rules. Nothing is ever truncated; when the token estimate exceeds
 * {@link BOOTSTRAP_TOKEN_BUDGET} a line `WARNING: bootstrap exceeds budget` is added to the
 * stats block.
 *
 * Token estimate ({@link estimateTokens}): `ceil(characters / 4)`, counted in UTF-16 code
 * units over everything above the stats block. It is the usual rule of thumb for English
 * text and code with current tokenizers; no tokenizer is loaded, so bootstrap stays fast.
 *
 * This module imports types only, so it is cheap to load from a CLI.
 * @module
 */
import type { Memory, MemoryService, MemoryType } from "./types.ts";

/** Per-scope fetch limit of the spec. */
export const BOOTSTRAP_FETCH_LIMIT = 100;

/** Token budget of the spec (warning only, nothing is truncated). */
export const BOOTSTRAP_TOKEN_BUDGET = 30_000;

/** The exact warning line added to the stats block when over budget. */
export const BOOTSTRAP_WARNING = "WARNING: bootstrap exceeds budget";

/** Group headings in output order. */
export const BOOTSTRAP_GROUPS = [
  "Bootstrap",
  "Rules",
  "Feedback",
  "Facts",
  "Decisions",
  "Context",
] as const;

/** One of {@link BOOTSTRAP_GROUPS}. */
export type BootstrapGroup = typeof BOOTSTRAP_GROUPS[number];

const TYPE_GROUP: Record<MemoryType, BootstrapGroup> = {
  bootstrap: "Bootstrap",
  rule: "Rules",
  feedback: "Feedback",
  fact: "Facts",
  decision: "Decisions",
  context: "Context",
};

const TAG_GROUP: Record<string, BootstrapGroup> = {
  rule: "Rules",
  rules: "Rules",
  feedback: "Feedback",
  fact: "Facts",
  facts: "Facts",
  decision: "Decisions",
  decisions: "Decisions",
  context: "Context",
};

/**
 * The first line of the System section: how to read the sections that follow, naming only
 * those present (no "Follow the Rules below" without a Rules section).
 */
function readingLine(present: ReadonlySet<BootstrapGroup>): string {
  const parts: string[] = [];
  if (present.has("Rules")) parts.push("follow the Rules below");
  if (present.has("Feedback")) parts.push("treat Feedback as corrections from the user");
  const about = (["Facts", "Decisions", "Context"] as const).filter((g) => present.has(g));
  if (about.length) {
    const list = about.length === 1
      ? about[0]
      : `${about.slice(0, -1).join(", ")} and ${about[about.length - 1]}`;
    parts.push(`${list} ${list === "Context" ? "describes" : "describe"} the user and the project`);
  }
  if (!parts.length) return "- No rules, feedback or facts are pinned to session start yet.";
  const text = parts.join("; ");
  return `- ${text[0].toUpperCase()}${text.slice(1)}.`;
}

/**
 * The System section (without a trailing newline) for a bootstrap whose sections are
 * `present`.
 */
export function bootstrapSystem(present: Iterable<BootstrapGroup>): string {
  return [
    "## System",
    "",
    "You have a persistent memory service (Mneme). Use it across sessions:",
    "",
    readingLine(new Set(present)),
    "- Before starting a task, `recall` what is relevant (pass the project so that global and project memories are both searched).",
    "- `remember` durable knowledge only: facts, decisions with their reason, user feedback and rules. One idea per memory, short and self-contained; never store secrets.",
    "- Use scope `project` with the project name for project-specific knowledge, `global` for what applies everywhere; set a `ttl` for temporary context.",
    "- When `remember` reports contradictions, resolve them: replace the outdated memory by passing its id as `supersedes`, or `update`/`forget` it.",
    "- Memories of type `bootstrap` are shown here at every session start; keep them few and essential.",
  ].join("\n");
}

/** The System section of a bootstrap with every section (Rules, Feedback, Facts ...). */
export const BOOTSTRAP_SYSTEM: string = bootstrapSystem(BOOTSTRAP_GROUPS);

/** Rough token count: `ceil(text.length / 4)` (UTF-16 code units). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Fetch the bootstrap memories: global ones and, when `project` is set, that project's
 * (two `list` calls, limit 100 each), merged by id, superseded memories left out.
 */
export async function loadBootstrap(
  service: MemoryService,
  project: string | null,
): Promise<Memory[]> {
  const calls = [
    service.list({ scope: "global", type: "bootstrap", limit: BOOTSTRAP_FETCH_LIMIT }),
  ];
  if (project) {
    calls.push(
      service.list({
        scope: "project",
        project,
        type: "bootstrap",
        limit: BOOTSTRAP_FETCH_LIMIT,
      }),
    );
  }
  const lists = await Promise.all(calls);
  const seen = new Set<string>();
  const out: Memory[] = [];
  for (const list of lists) {
    for (const m of list) {
      if (seen.has(m.id) || m.superseded_by) continue;
      seen.add(m.id);
      out.push(m);
    }
  }
  return out;
}

/** The group a memory is rendered in (see the module documentation). */
export function bootstrapGroupOf(memory: Memory): BootstrapGroup {
  if (memory.type !== "bootstrap") return TYPE_GROUP[memory.type] ?? "Bootstrap";
  for (const tag of memory.tags) {
    const g = TAG_GROUP[tag.trim().toLowerCase()];
    if (g) return g;
  }
  return "Bootstrap";
}

function renderItem(m: Memory): string {
  const lines = m.content.trim().split(/\r?\n/);
  const first = `- ${lines[0]}`;
  const rest = lines.slice(1).map((l) => (l.length ? `  ${l}` : ""));
  return [first, ...rest].join("\n");
}

/**
 * Render the bootstrap Markdown. `info.project` is the project in use (or `null`) and
 * `info.projectSource` says where it came from (e.g. `flag`, `git`, `cwd`, `uri`, `none`).
 */
export function renderBootstrap(
  memories: Memory[],
  info: { project: string | null; projectSource: string },
): string {
  const groups = new Map<BootstrapGroup, Memory[]>();
  for (const g of BOOTSTRAP_GROUPS) groups.set(g, []);
  for (const m of memories) groups.get(bootstrapGroupOf(m))!.push(m);

  const present = BOOTSTRAP_GROUPS.filter((g) => groups.get(g)!.length > 0);
  const parts: string[] = ["# Memory Bootstrap", bootstrapSystem(present)];
  for (const g of BOOTSTRAP_GROUPS) {
    const items = groups.get(g)!;
    if (items.length === 0) continue;
    parts.push(`## ${g}\n\n${items.map(renderItem).join("\n")}`);
  }
  const body = parts.join("\n\n") + "\n";

  const tokens = estimateTokens(body);
  const percent = (tokens / BOOTSTRAP_TOKEN_BUDGET) * 100;
  const global = memories.filter((m) => m.scope === "global").length;
  const projectCount = memories.length - global;
  const groupCounts = BOOTSTRAP_GROUPS
    .map((g) => [g, groups.get(g)!.length] as const)
    .filter(([, n]) => n > 0)
    .map(([g, n]) => `${g} ${n}`)
    .join(", ");
  const stats = [
    "## Bootstrap Stats",
    "",
    `- Project: ${info.project ?? "(none)"} (source: ${info.projectSource})`,
    `- Memories: ${memories.length} (global ${global}, project ${projectCount})`,
    `- Groups: ${groupCounts || "(none)"}`,
    `- Estimated tokens: ${tokens} (characters / 4)`,
    `- Budget: ${percent.toFixed(1)}% of ${BOOTSTRAP_TOKEN_BUDGET}`,
  ];
  if (tokens > BOOTSTRAP_TOKEN_BUDGET) stats.push("", BOOTSTRAP_WARNING);
  return body + "\n" + stats.join("\n") + "\n";
}
