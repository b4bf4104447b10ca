/**
 * `memcli expansion`: the phrases a model wrote for a memory (`MEMORY_EXPANSION`,
 * docs/recall.md), shown and removed over the Admin API. `expansion show ID` prints them and
 * the memory's state; `expansion clear ID | --all` removes them (the memory is searched by its
 * content only and is not expanded again); `expansion redo ID | --all` lets the worker expand
 * again what was cleared.
 * @module
 */
import { UsageError } from "../../common/errors.ts";
import type { ExpansionInfo } from "../../memory/types.ts";
import { parseFlags } from "../args.ts";
import { confirmOnTerminal, type Io } from "../io.ts";
import { checkIdSyntax, resolveId } from "../ids.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { connect, inFlagTerms, printJson } from "./data.ts";

const NAME = "expansion";

/** Run `memcli expansion`. */
export async function expansion(args: string[], io: Io): Promise<number> {
  const sub = args[0];
  if (sub === "show") return await show(args.slice(1), io);
  if (sub === "clear") return await change("clear", args.slice(1), io);
  if (sub === "redo") return await change("redo", args.slice(1), io);
  if (sub === undefined || sub === "--help" || sub === "-h") {
    if (sub === undefined) {
      throw new UsageError("a subcommand is required: show, clear or redo", NAME);
    }
    io.out(COMMAND_USAGE.expansion);
    return 0;
  }
  throw new UsageError(`unknown expansion command '${sub}'; use show, clear or redo`, NAME);
}

const STATES: Record<ExpansionInfo["state"], string> = {
  expanded: "expanded",
  waiting: "waiting for the worker (MEMORY_EXPANSION=on expands it)",
  cleared: "cleared: searched by its content only, not expanded again until " +
    "`memcli expansion redo`",
  none: "not expanded (superseded or expired)",
};

async function show(args: string[], io: Io): Promise<number> {
  const p = parseFlags(NAME, args, { json: { type: "boolean" } }, 1);
  if (p.help) {
    io.out(COMMAND_USAGE.expansion);
    return 0;
  }
  checkIdSyntax(NAME, "ID", p.positionals[0]);
  const client = await connect(io);
  const id = await resolveId(client, NAME, "ID", p.positionals[0]);
  const x = await client.request<ExpansionInfo>(
    "GET",
    `/api/memories/${encodeURIComponent(id)}/expansion`,
  );
  if (p.values.json) return printJson(io, x);
  const lines = [`id:      ${x.id}`, `state:   ${STATES[x.state] ?? x.state}`];
  if (x.model) lines.push(`model:   ${x.model}`);
  if (x.cleared_at) lines.push(`cleared: ${x.cleared_at}`);
  if (x.phrases.length) {
    lines.push(`phrases (${x.phrases.length}):`, ...x.phrases.map((ph) => `  - ${ph}`));
  }
  io.out(lines.join("\n") + "\n");
  return 0;
}

async function change(what: "clear" | "redo", args: string[], io: Io): Promise<number> {
  const p = parseFlags(NAME, args, {
    all: { type: "boolean" },
    json: { type: "boolean" },
    yes: { type: "boolean", short: "y" },
  }, 1);
  if (p.help) {
    io.out(COMMAND_USAGE.expansion);
    return 0;
  }
  const all = p.values.all === true;
  const given = p.positionals[0];
  if (all && given !== undefined) {
    throw new UsageError("give ID or --all, not both", `${NAME} ${what}`);
  }
  if (!all && given === undefined) {
    throw new UsageError("ID or --all is required", `${NAME} ${what}`);
  }
  if (!all) checkIdSyntax(NAME, "ID", given);
  if (p.values.yes === true && !(what === "clear" && all)) {
    throw new UsageError("--yes is for clear --all only", `${NAME} ${what}`);
  }
  // As `forget` of several memories: every memory's phrases go only with --yes or a "y" typed
  // on a terminal.
  if (
    what === "clear" && all && p.values.yes !== true && !await confirmOnTerminal(io, {
      command: `${NAME} clear`,
      what: "--all",
      why: ": it removes the phrases of every memory",
      question: "Remove the expansions of every memory?",
      cancelled: "Cancelled; nothing removed.",
    })
  ) return 1;
  const client = await connect(io);
  const body = all ? { all: true } : { id: await resolveId(client, NAME, "ID", given) };
  let r: { cleared?: number; requeued?: number };
  try {
    r = await client.request("POST", `/api/expansions/${what}`, body);
  } catch (err) {
    throw inFlagTerms(err);
  }
  if (p.values.json) return printJson(io, r);
  const target = all ? "" : ` of ${(body as { id: string }).id}`;
  if (what === "clear") {
    const n = r.cleared ?? 0;
    io.out(
      all
        ? `Removed the expansions of ${n} ${n === 1 ? "memory" : "memories"}; they are ` +
          "searched by their content only and not expanded again (memcli expansion redo --all).\n"
        : n
        ? `Removed the expansion${target}; it is searched by its content only and not expanded ` +
          "again (memcli expansion redo ID).\n"
        : `No expansion${target} to remove; it will not be expanded (memcli expansion redo ID).\n`,
    );
  } else {
    const n = r.requeued ?? 0;
    io.out(
      n
        ? `${n} ${n === 1 ? "memory waits" : "memories wait"} for the expansion worker again ` +
          "(MEMORY_EXPANSION=on expands them).\n"
        : `Nothing to redo${target}: no expansion was cleared.\n`,
    );
  }
  return 0;
}
