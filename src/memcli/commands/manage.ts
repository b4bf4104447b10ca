/**
 * Keeping memories right from the terminal: `list`, `get`, `update`, `forget` and
 * `replace` over the Admin API, with its validation and field names, a readable table and
 * `--json`.
 * @module
 */
import { UsageError } from "../../common/errors.ts";
import type { Memory, MemoryType, Scope } from "../../memory/types.ts";
import { MEMORY_TYPES, SCOPES } from "../../memory/types.ts";
import { MAX_LIST_LIMIT } from "../../memory/validate.ts";
import { choiceFlag, intFlag, parseFlags, stringFlag } from "../args.ts";
import { confirmOnTerminal, type Io } from "../io.ts";
import { checkIdSyntax, resolveId } from "../ids.ts";
import { commandProject, projectHint } from "../scope.ts";
import { COMMAND_USAGE } from "../usage.ts";
import {
  checkContent,
  connect,
  createMemory,
  firstLine,
  inFlagTerms,
  printJson,
  visibility,
  whereOf,
} from "./data.ts";

/** One memory as a table row. */
function row(m: Memory): string[] {
  const flags = m.superseded_by ? " (superseded)" : "";
  return [m.id, whereOf(m), m.type, m.updated_at.slice(0, 10), firstLine(m.content, 60) + flags];
}

/** Rows as aligned columns under a header. */
function table(rows: string[][]): string {
  const head = ["ID", "WHERE", "TYPE", "UPDATED", "CONTENT"];
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  "))
    .join("\n") + "\n";
}

/** Run `memcli list`. */
export async function list(args: string[], io: Io): Promise<number> {
  const p = parseFlags("list", args, {
    project: { type: "string" },
    global: { type: "boolean" },
    scope: { type: "string" },
    type: { type: "string" },
    tag: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  });
  if (p.help) {
    io.out(COMMAND_USAGE.list);
    return 0;
  }
  const projectFlag = stringFlag("list", "project", p.values.project);
  const scope = choiceFlag<Scope>("list", "scope", p.values.scope, SCOPES);
  const type = choiceFlag<MemoryType>("list", "type", p.values.type, MEMORY_TYPES);
  const tag = stringFlag("list", "tag", p.values.tag);
  const limit = intFlag("list", "limit", p.values.limit, 1, MAX_LIST_LIMIT) ?? 50;
  if (scope === "global" && projectFlag) {
    throw new UsageError("--scope global and --project cannot be combined", "list");
  }
  const where = await commandProject(io, "list", {
    project: projectFlag,
    global: p.values.global === true || scope === "global",
  });
  const client = await connect(io);
  // A tag filters what the API lists: fetch the most it lists, then keep `limit`.
  const fetch = tag ? MAX_LIST_LIMIT : limit;
  let memories: Memory[];
  try {
    const calls: Promise<Memory[]>[] = [];
    if (where.project !== null) {
      calls.push(client.list({ scope: "project", project: where.project, type, limit: fetch }));
    }
    if (scope !== "project") calls.push(client.list({ scope: "global", type, limit: fetch }));
    memories = (await Promise.all(calls)).flat();
  } catch (err) {
    throw inFlagTerms(err);
  }
  memories.sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.id.localeCompare(b.id));
  if (tag) memories = memories.filter((m) => m.tags.includes(tag));
  memories = memories.slice(0, limit);
  if (p.values.json) return printJson(io, memories);
  const label = where.project === null
    ? "Global memories"
    : scope === "project"
    ? `Project ${where.project} (${where.source})`
    : `Project ${where.project} (${where.source}) and global memories`;
  io.err(`${label}: ${memories.length}${memories.length === limit ? ` (--limit ${limit})` : ""}\n`);
  if (memories.length) io.out(table(memories.map(row)));
  if (where.project !== null) {
    const hint = await projectHint(client, where.project).catch(() => null);
    if (hint) io.err(hint);
  }
  return 0;
}

/** Run `memcli get`. */
export async function get(args: string[], io: Io): Promise<number> {
  const p = parseFlags("get", args, { json: { type: "boolean" } }, 1);
  if (p.help) {
    io.out(COMMAND_USAGE.get);
    return 0;
  }
  checkIdSyntax("get", "ID", p.positionals[0]);
  const client = await connect(io);
  const m = await client.get(await resolveId(client, "get", "ID", p.positionals[0]));
  if (p.values.json) return printJson(io, m);
  const lines = [
    `id:            ${m.id}`,
    `where:         ${whereOf(m)}`,
    `type:          ${m.type}`,
    `tags:          ${m.tags.join(", ") || "-"}`,
    `weight:        ${m.weight}`,
    `created:       ${m.created_at}`,
    `updated:       ${m.updated_at}`,
  ];
  if (m.expires_at) lines.push(`expires:       ${m.expires_at}`);
  if (m.supersedes) lines.push(`supersedes:    ${m.supersedes}`);
  if (m.superseded_by) {
    // Imported superseded without its successor: superseded by itself (docs/admin-api.md).
    lines.push(
      m.superseded_by === m.id
        ? "superseded by: a memory not in this store (imported as superseded)"
        : `superseded by: ${m.superseded_by}`,
    );
  }
  io.out(lines.join("\n") + "\n\n" + m.content + "\n");
  return 0;
}

async function contentOf(io: Io, command: string, words: string[]): Promise<string> {
  if (words.length === 0) throw new UsageError("CONTENT is required", command);
  let content = words.join(" ");
  if (content === "-") content = (await io.readAll()).trimEnd();
  checkContent(content, command);
  return content;
}

/** Run `memcli update`. */
export async function update(args: string[], io: Io): Promise<number> {
  const p = parseFlags("update", args, { json: { type: "boolean" } }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.update);
    return 0;
  }
  checkIdSyntax("update", "ID", p.positionals[0]);
  const content = await contentOf(io, "update", p.positionals.slice(1));
  const client = await connect(io);
  const id = await resolveId(client, "update", "ID", p.positionals[0]);
  let m: Memory;
  try {
    m = await client.update(id, { content });
  } catch (err) {
    throw inFlagTerms(err);
  }
  if (p.values.json) return printJson(io, m);
  io.out(`Updated ${m.id} (${whereOf(m)}, ${m.type}).\n`);
  return 0;
}

/** Run `memcli replace`. */
export async function replace(args: string[], io: Io): Promise<number> {
  const p = parseFlags("replace", args, { json: { type: "boolean" } }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.replace);
    return 0;
  }
  checkIdSyntax("replace", "ID", p.positionals[0]);
  const content = await contentOf(io, "replace", p.positionals.slice(1));
  const client = await connect(io);
  const id = await resolveId(client, "replace", "ID", p.positionals[0]);
  const old = await client.get(id);
  // One request: the new memory is stored and the old one superseded in one transaction.
  const res = await createMemory(client, {
    content,
    scope: old.scope,
    ...(old.project !== null ? { project: old.project } : {}),
    type: old.type,
    tags: old.tags,
    weight: old.weight,
    supersedes: id,
  });
  if (p.values.json) return printJson(io, res);
  const m = res.memory;
  io.out(`Replaced ${id} with ${m.id} (${whereOf(m)}, ${m.type}).\n`);
  io.out(visibility(m));
  return 0;
}

/** Run `memcli forget`. */
export async function forget(args: string[], io: Io): Promise<number> {
  const p = parseFlags("forget", args, { yes: { type: "boolean", short: "y" } }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.forget);
    return 0;
  }
  if (p.positionals.length === 0) throw new UsageError("ID is required", "forget");
  for (const i of p.positionals) checkIdSyntax("forget", "ID", i);
  const client = await connect(io);
  const ids: string[] = [];
  for (const i of p.positionals) ids.push(await resolveId(client, "forget", "ID", i));
  ids.splice(0, ids.length, ...new Set(ids));
  if (
    ids.length > 1 && p.values.yes !== true && !await confirmOnTerminal(io, {
      command: "forget",
      what: `forgetting ${ids.length} memories`,
      question: `Forget these ${ids.length} memories?`,
      cancelled: "Cancelled; nothing deleted.",
      show: async () => {
        const shown = await Promise.all(ids.map((i) => client.get(i)));
        for (const m of shown) io.err(`  ${m.id}  ${whereOf(m)}  ${firstLine(m.content, 60)}\n`);
      },
    })
  ) return 1;
  for (const id of ids) {
    await client.delete(id);
    io.out(`Forgot ${id}.\n`);
  }
  return 0;
}
