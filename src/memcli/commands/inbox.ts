/**
 * `memcli inbox`: review what capture proposed. `inbox` lists the pending proposals (with
 * their provenance and the memory each would replace; `--json` too), `inbox accept ID…`
 * stores them as memories (superseding what they replace, unless `--keep`), `inbox reject
 * ID…` removes them, `inbox edit ID CONTENT…` changes one's text first. Ids are the short ids
 * the web UI shows (6 or more hex digits) or full UUIDs.
 * @module
 */
import { describeError, UsageError } from "../../common/errors.ts";
import { MemoryError } from "../../domain/errors.ts";
import type { AcceptResult, AutoAccepted, InboxItem } from "../../memory/inbox.ts";
import type { MemoryClient } from "../../memory/client.ts";
import type { MemoryType } from "../../memory/types.ts";
import { MEMORY_TYPES } from "../../memory/types.ts";
import { MAX_LIST_LIMIT } from "../../memory/validate.ts";
import { choiceFlag, intFlag, parseFlags, stringFlag } from "../args.ts";
import type { Io } from "../io.ts";
import { checkIdSyntax, resolveIdWith } from "../ids.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { checkContent, connect, firstLine, inFlagTerms, printJson, visibility } from "./data.ts";

const USAGE_NAME = "inbox";

function where(i: { scope: string; project: string | null }): string {
  return i.scope === "project" ? `project ${i.project}` : "global";
}

/** The full id of a proposal (a UUID, or a unique prefix of one). */
function proposalId(client: MemoryClient, what: string, id: string | undefined): Promise<string> {
  return resolveIdWith(
    (prefix, limit) =>
      client.request<InboxItem[]>("GET", "/api/inbox", undefined, { id_prefix: prefix, limit }),
    "proposal",
    USAGE_NAME,
    what,
    id,
  );
}

/** One proposal as the list shows it: a head line, its text, what it replaces. */
function block(i: InboxItem): string {
  const said = (i.source.said_at ?? i.captured_at).slice(0, 16).replace("T", " ");
  const lines = [
    `${i.id.slice(0, 8)}  ${where(i)}  ${i.type}  ${i.confidence.toFixed(2)}  ${said}  ` +
    `session ${i.source.session_id}`,
    `  ${firstLine(i.content, 200)}`,
  ];
  if (i.replaces) {
    lines.push(`  replaces ${i.replaces.id.slice(0, 8)}: ${firstLine(i.replaces.content, 160)}`);
  }
  if (i.secrets_removed.length) {
    lines.push(`  (a secret was removed: ${i.secrets_removed.join(", ")})`);
  }
  return lines.join("\n") + "\n";
}

/** Run `memcli inbox`. */
export async function inbox(args: string[], io: Io): Promise<number> {
  const sub = args[0];
  if (sub === "accept") return await accept(args.slice(1), io);
  if (sub === "reject") return await reject(args.slice(1), io);
  if (sub === "edit") return await edit(args.slice(1), io);
  if (sub === "list") return await list(args.slice(1), io);
  if (sub !== undefined && !sub.startsWith("-")) {
    throw new UsageError(
      `unknown inbox command '${sub}'; use list, accept, reject or edit`,
      USAGE_NAME,
    );
  }
  return await list(args, io);
}

async function list(args: string[], io: Io): Promise<number> {
  const p = parseFlags(USAGE_NAME, args, {
    project: { type: "string" },
    global: { type: "boolean" },
    type: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
    accepted: { type: "boolean" },
    days: { type: "string" },
  });
  if (p.help) {
    io.out(COMMAND_USAGE.inbox);
    return 0;
  }
  const days = intFlag(USAGE_NAME, "days", p.values.days, 1, 365);
  if (p.values.accepted) {
    if (p.values.project !== undefined || p.values.global || p.values.type !== undefined) {
      throw new UsageError(
        "--accepted lists every project: no --project, --global or --type",
        USAGE_NAME,
      );
    }
    const limit = intFlag(USAGE_NAME, "limit", p.values.limit, 1, MAX_LIST_LIMIT) ?? 50;
    return await accepted(io, days, limit, Boolean(p.values.json));
  }
  if (days !== undefined) throw new UsageError("--days goes with --accepted", USAGE_NAME);
  const project = stringFlag(USAGE_NAME, "project", p.values.project);
  if (project && p.values.global) {
    throw new UsageError("--project and --global cannot be combined", USAGE_NAME);
  }
  const type = choiceFlag<MemoryType>(USAGE_NAME, "type", p.values.type, MEMORY_TYPES);
  const limit = intFlag(USAGE_NAME, "limit", p.values.limit, 1, MAX_LIST_LIMIT) ?? 50;
  const client = await connect(io);
  let items: InboxItem[];
  try {
    items = await client.request<InboxItem[]>("GET", "/api/inbox", undefined, {
      ...(project ? { scope: "project", project } : {}),
      ...(p.values.global ? { scope: "global" } : {}),
      type,
      limit,
    });
  } catch (err) {
    throw inFlagTerms(err);
  }
  if (p.values.json) return printJson(io, items);
  io.err(
    `Proposed memories waiting for review: ${items.length}` +
      `${items.length === limit ? ` (--limit ${limit})` : ""}\n`,
  );
  for (const i of items) io.out(block(i));
  if (items.length) {
    io.err("Accept: memcli inbox accept ID...   reject: memcli inbox reject ID...\n");
  }
  // Auto-accept's work, in one line (a service without it answers 404: nothing said; any
  // other failure is said in a line, the list above being shown all the same).
  try {
    const a = await client.request<AutoAccepted>("GET", "/api/inbox/accepted", undefined, {
      limit: 1,
    });
    if (a.count) {
      io.err(
        `Accepted automatically since ${a.since.slice(0, 10)}: ${a.count} ` +
          "(memcli inbox --accepted)\n",
      );
    }
  } catch (err) {
    if (!(err instanceof MemoryError && err.status === 404)) {
      io.err(`(the memories accepted automatically could not be counted: ${describeError(err)})\n`);
    }
  }
  return 0;
}

/** `memcli inbox --accepted`: the memories capture accepted automatically. */
async function accepted(
  io: Io,
  days: number | undefined,
  limit: number,
  json: boolean,
): Promise<number> {
  const client = await connect(io);
  let a: AutoAccepted;
  try {
    a = await client.request<AutoAccepted>("GET", "/api/inbox/accepted", undefined, {
      days,
      limit,
    });
  } catch (err) {
    throw inFlagTerms(err);
  }
  if (json) return printJson(io, a);
  io.err(
    `Accepted automatically since ${a.since.slice(0, 16).replace("T", " ")}: ${a.count}` +
      `${a.count > a.memories.length ? ` (newest ${a.memories.length}, --limit ${limit})` : ""}\n`,
  );
  for (const m of a.memories) {
    io.out(
      `${m.id.slice(0, 8)}  ${where(m)}  ${m.type}  ${
        m.created_at.slice(0, 16).replace("T", " ")
      }\n  ${firstLine(m.content, 200)}\n`,
    );
  }
  if (a.memories.length) io.err("Undo one: memcli forget ID\n");
  return 0;
}

/**
 * The ID... arguments of accept and reject: each checked before any request, then resolved
 * (duplicates once), with the client that resolved them.
 */
async function idArgs(
  io: Io,
  given: string[],
): Promise<{ client: MemoryClient; ids: string[] }> {
  if (given.length === 0) throw new UsageError("ID is required", USAGE_NAME);
  for (const i of given) checkIdSyntax(USAGE_NAME, "ID", i);
  const client = await connect(io);
  const out: string[] = [];
  for (const i of given) out.push(await proposalId(client, "ID", i));
  return { client, ids: [...new Set(out)] };
}

async function accept(args: string[], io: Io): Promise<number> {
  const p = parseFlags(USAGE_NAME, args, {
    keep: { type: "boolean" },
    pin: { type: "boolean" },
    json: { type: "boolean" },
  }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.inbox);
    return 0;
  }
  const { client, ids } = await idArgs(io, p.positionals);
  const results: AcceptResult[] = [];
  for (const id of ids) {
    const r = await client.request<AcceptResult>(
      "POST",
      `/api/inbox/${id}/accept`,
      p.values.keep || p.values.pin
        ? { ...(p.values.keep ? { supersede: false } : {}), ...(p.values.pin ? { pin: true } : {}) }
        : undefined,
    );
    results.push(r);
    if (!p.values.json) {
      io.out(
        `Accepted ${id.slice(0, 8)} as memory ${r.memory.id} (${where(r.memory)}, ` +
          `${r.memory.type})${r.superseded ? `, superseding ${r.superseded}` : ""}.\n`,
      );
      if (p.values.pin) io.out(visibility(r.memory));
    }
  }
  if (p.values.json) return printJson(io, results);
  return 0;
}

async function reject(args: string[], io: Io): Promise<number> {
  const p = parseFlags(USAGE_NAME, args, {}, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.inbox);
    return 0;
  }
  const { client, ids } = await idArgs(io, p.positionals);
  for (const id of ids) {
    await client.request("POST", `/api/inbox/${id}/reject`);
    io.out(`Rejected ${id.slice(0, 8)}.\n`);
  }
  return 0;
}

async function edit(args: string[], io: Io): Promise<number> {
  const p = parseFlags(USAGE_NAME, args, { json: { type: "boolean" } }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.inbox);
    return 0;
  }
  checkIdSyntax(USAGE_NAME, "ID", p.positionals[0]);
  const words = p.positionals.slice(1);
  if (words.length === 0) throw new UsageError("CONTENT is required", USAGE_NAME);
  let content = words.join(" ");
  if (content === "-") content = (await io.readAll()).trimEnd();
  checkContent(content, USAGE_NAME);
  const client = await connect(io);
  const id = await proposalId(client, "ID", p.positionals[0]);
  let item: InboxItem;
  try {
    item = await client.request<InboxItem>("PUT", `/api/inbox/${id}`, { content });
  } catch (err) {
    throw inFlagTerms(err);
  }
  if (p.values.json) return printJson(io, item);
  io.out(`Edited ${id.slice(0, 8)}; accept it with: memcli inbox accept ${id.slice(0, 8)}\n`);
  return 0;
}
