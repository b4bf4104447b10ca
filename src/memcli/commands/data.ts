/**
 * Memory commands of `memcli` over the Admin API: `add`, `search`, `export`, `import`
 * (batched, with progress) and `reembed` (drives the maintenance endpoint until finished).
 * @module
 */
import { MemoryError } from "../../domain/errors.ts";
import type { MemoryClient } from "../../memory/client.ts";
import {
  type CreateInput,
  type CreateResult,
  type ImportItem,
  type Memory,
  MEMORY_TYPES,
  type MemoryType,
  type Scope,
  SCOPES,
} from "../../memory/types.ts";
import { MAX_CONTENT, MAX_QUERY } from "../../memory/validate.ts";
import { choiceFlag, intFlag, parseFlags, stringFlag } from "../args.ts";
import { UsageError } from "../../common/errors.ts";
import { apiUrlOf, clientOf, configOf } from "../context.ts";
import type { Io } from "../io.ts";
import { checkIdSyntax, resolveId } from "../ids.ts";
import { COMMAND_USAGE } from "../usage.ts";
import { commandProject, projectHint } from "../scope.ts";

/** Why a file is refused by memcli's permissions (docs/permissions.md). */
const OUTSIDE_SCOPE = "outside memcli's permissions (it reads and writes files in the " +
  "working directory and DATA_DIR, never DATA_DIR/db); run it from the file's directory " +
  "or use - for standard input or output";

/** A client of the Admin API this memcli talks to. */
export async function connect(io: Io): Promise<MemoryClient> {
  const cfg = configOf(io);
  const { url } = await apiUrlOf(io, cfg);
  return clientOf(cfg, url);
}

/** A progress reporter: overwrites one line on a terminal, else prints one line per update. */
function progress(io: Io): { update(line: string): void; done(): void } {
  const tty = io.stderrIsTerminal();
  let shown = false;
  return {
    update(line) {
      shown = true;
      io.err(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    },
    done() {
      if (tty && shown) io.err("\n");
    },
  };
}

/**
 * A 400 of the Admin API in the words of the command line: the field becomes the flag the
 * user typed (`--project`, not `project:`), `content` becomes `CONTENT` (or `QUERY`).
 */
export function inFlagTerms(err: unknown, positional = "CONTENT"): unknown {
  if (!(err instanceof MemoryError) || err.field === undefined) return err;
  if (err.status !== 400 && err.status !== 409) return err;
  const name = err.field.split("[")[0];
  const flag = name === "content" || name === "query" ? positional : FIELD_FLAGS[name] ?? null;
  if (flag === null) return err;
  const rest = err.message.slice(err.field.length).replace(/^:\s*/, "")
    // The API's field, in the message, becomes the flag too.
    .replace(/ with supersedes$/, " with --supersedes ID (its first 8 characters will do)");
  return new MemoryError(err.status, `${flag}: ${rest}`, { field: err.field });
}

const FIELD_FLAGS: Record<string, string> = {
  type: "--type",
  scope: "--scope",
  project: "--project",
  tags: "--tags",
  ttl: "--ttl",
  weight: "--weight",
  supersedes: "--supersedes",
  replace: "--replace",
  limit: "--limit",
  tag: "--tag",
};

/** Refuse content the API would refuse, before sending it, in one message whatever the size. */
export function checkContent(
  content: string,
  command: string,
  what = "CONTENT",
  max = MAX_CONTENT,
): void {
  if (!content.trim()) throw new UsageError(`${what} must not be empty`, command);
  if (content.length > max) {
    throw new UsageError(
      `${what}: is ${content.length.toLocaleString("en-US")} characters; at most ` +
        `${max.toLocaleString("en-US")}`,
      command,
    );
  }
}

/** When the agent sees `m`: the session-start bootstrap, or recall when relevant. */
export function visibility(m: Memory): string {
  if (m.type === "bootstrap") {
    return "The agent sees it at every session start (the bootstrap" +
      (m.scope === "project" ? ` of project ${m.project}` : "") + ").\n";
  }
  return "The agent sees it when relevant to a prompt (recall); --pin shows it at every " +
    "session start.\n";
}

/** `project X` or `global`. */
export function whereOf(m: Memory): string {
  return m.scope === "project" ? `project ${m.project}` : "global";
}

/** The first line of `text`, at most `max` characters. */
export function firstLine(text: string, max = 72): string {
  const l = text.split("\n")[0];
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
}

/** Ask on the terminal; the trimmed, lower-cased answer ("" at end of input). */
async function ask(io: Io, question: string): Promise<string> {
  io.err(question);
  return ((await io.readLine()) ?? "").trim().toLowerCase();
}

/** `--weight`: a number between 0.1 and 1.0, or undefined when not given. */
function weightFlag(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const weight = Number(value);
  if (!/^\s*\d*\.?\d+\s*$/.test(String(value)) || weight < 0.1 || weight > 1) {
    throw new UsageError("--weight: must be a number between 0.1 and 1.0", "add");
  }
  return weight;
}

/**
 * On a terminal, the memories the new one may contradict, and the user's choice: replace one
 * (set as `input.supersedes`), keep both, or cancel (said on stderr). "store" when there is
 * nothing to settle.
 */
async function settleContradictions(
  io: Io,
  client: MemoryClient,
  input: CreateInput,
): Promise<"store" | "keep" | "cancel"> {
  try {
    const found = await client.contradictions(input);
    if (found.length) {
      io.err(`Possible contradictions (similarity > 0.75):\n`);
      found.forEach((c, i) => {
        io.err(
          `  ${i + 1}. ${c.similarity.toFixed(3)}  ${c.memory.id}  ${
            firstLine(c.memory.content)
          }\n`,
        );
      });
      const one = found.length === 1;
      const answer = await ask(
        io,
        one
          ? "Replace it with the new memory [r], keep both [k], or cancel [c]? "
          : `Replace one with the new memory [1-${found.length}], keep both [k], or cancel [c]? `,
      );
      const n = one && answer === "r" ? 1 : /^\d+$/.test(answer) ? Number(answer) : 0;
      if (n >= 1 && n <= found.length) input.supersedes = found[n - 1].memory.id;
      else if (answer === "k") return "keep";
      else {
        io.err("Cancelled; nothing stored.\n");
        return "cancel";
      }
    }
  } catch (err) {
    throw inFlagTerms(err);
  }
  return "store";
}

/** What `memcli add` says of the memory it stored: where, what it supersedes, who sees it. */
async function reportAdded(
  io: Io,
  client: MemoryClient,
  res: CreateResult,
  source: string,
  keep: boolean,
): Promise<void> {
  const m = res.memory;
  const expires = m.expires_at ? `, expires ${m.expires_at}` : "";
  io.out(`Added ${m.id} (${whereOf(m)}, ${m.type}${expires}).\n`);
  if (m.scope === "project" && source !== "--project") {
    io.out(
      `Project ${m.project} from the ${source}; --global stores it for every project.\n`,
    );
  }
  if (m.supersedes) io.out(`It supersedes ${m.supersedes}, which no longer appears in recall.\n`);
  io.out(visibility(m));
  if (res.contradictions?.length && !keep) {
    io.out("Possible contradictions (similarity > 0.75):\n");
    for (const c of res.contradictions) {
      io.out(`  ${c.similarity.toFixed(3)}  ${c.memory.id}  ${firstLine(c.memory.content)}\n`);
    }
    const id = res.contradictions.length === 1 ? res.contradictions[0].memory.id : "ID";
    io.out(
      `The new memory is stored. If ${
        id === "ID" ? "one of those" : "that one"
      } is outdated, drop it: memcli forget ${id}\n` +
        "(next time, add with --replace to supersede it in one step).\n",
    );
  }
  if (m.scope === "project" && source !== "--project") {
    const hint = await projectHint(client, m.project!, 1).catch(() => null);
    // The memory just stored counts: a hint only when the project was new and resembles another.
    if (hint && /did you mean/.test(hint)) io.err(hint);
  }
}

/** Run `memcli add`. */
export async function add(args: string[], io: Io): Promise<number> {
  const p = parseFlags("add", args, {
    type: { type: "string" },
    scope: { type: "string" },
    project: { type: "string" },
    global: { type: "boolean" },
    tags: { type: "string", multiple: true },
    ttl: { type: "string" },
    weight: { type: "string" },
    supersedes: { type: "string" },
    replace: { type: "boolean" },
    pin: { type: "boolean" },
    json: { type: "boolean" },
  }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.add);
    return 0;
  }
  let type = choiceFlag<MemoryType>("add", "type", p.values.type, MEMORY_TYPES);
  const scope = choiceFlag<Scope>("add", "scope", p.values.scope, SCOPES);
  const projectFlag = stringFlag("add", "project", p.values.project);
  const ttl = stringFlag("add", "ttl", p.values.ttl);
  const supersedes = stringFlag("add", "supersedes", p.values.supersedes);
  const replace = p.values.replace === true;
  if (replace && supersedes) {
    throw new UsageError("--replace and --supersedes cannot be combined", "add");
  }
  if (supersedes !== undefined) checkIdSyntax("add", "--supersedes", supersedes);
  const weight = weightFlag(p.values.weight);
  const tags = ((p.values.tags as string[] | undefined) ?? [])
    .flatMap((t) => t.split(","))
    .map((t) => t.trim())
    .filter(Boolean);
  if (p.values.pin) {
    // Pinned: stored as a bootstrap memory; its own type kept as a tag, which the
    // bootstrap groups it by (Rules, Facts ...).
    const own = type ?? "fact";
    if (own !== "bootstrap" && !tags.includes(own)) tags.unshift(own);
    type = "bootstrap";
  }
  if (p.positionals.length === 0) throw new UsageError("CONTENT is required", "add");
  let content = p.positionals.join(" ");
  if (content === "-") content = (await io.readAll()).trimEnd();
  checkContent(content, "add");

  const global = p.values.global === true || scope === "global";
  if (scope === "global" && projectFlag) {
    throw new UsageError("--scope global and --project cannot be combined", "add");
  }
  const where = await commandProject(io, "add", { project: projectFlag, global });
  const input: CreateInput = { content };
  if (type) input.type = type;
  if (where.project !== null) {
    input.scope = "project";
    input.project = where.project;
  } else input.scope = "global";
  if (tags.length) input.tags = tags;
  if (ttl) input.ttl = ttl;
  if (weight !== undefined) input.weight = weight;
  if (replace) input.replace = true;

  const client = await connect(io);
  if (supersedes) input.supersedes = await resolveId(client, "add", "--supersedes", supersedes);
  // On a terminal, a contradiction is settled before anything is stored.
  let keep = false;
  if (io.stdinIsTerminal() && !replace && !supersedes && !p.values.json) {
    const settled = await settleContradictions(io, client, input);
    if (settled === "cancel") return 1;
    keep = settled === "keep";
  }
  const res = await createMemory(client, input);
  if (p.values.json) return printJson(io, res);
  await reportAdded(io, client, res, where.source, keep);
  return 0;
}

/** Run `memcli search`. */
export async function search(args: string[], io: Io): Promise<number> {
  const p = parseFlags("search", args, {
    project: { type: "string" },
    global: { type: "boolean" },
    scope: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.search);
    return 0;
  }
  const projectFlag = stringFlag("search", "project", p.values.project);
  const scope = choiceFlag<Scope | "all">("search", "scope", p.values.scope, [
    ...SCOPES,
    "all",
  ]);
  const limit = intFlag("search", "limit", p.values.limit, 1, 100);
  const query = p.positionals.join(" ").trim();
  if (!query) throw new UsageError("QUERY is required", "search");
  checkContent(query, "search", "QUERY", MAX_QUERY);
  const global = p.values.global === true || scope === "global" || scope === "all";
  const where = await commandProject(io, "search", { project: projectFlag, global });
  const client = await connect(io);
  let results;
  try {
    results = await client.search({ query, project: where.project ?? undefined, scope, limit });
  } catch (err) {
    throw inFlagTerms(err, "QUERY");
  }
  if (p.values.json) return printJson(io, results);
  if (where.project !== null) {
    io.err(`Project ${where.project} (${where.source}) and global memories.\n`);
  }
  if (results.length === 0) {
    io.err("No matching memories.\n");
    if (where.project !== null) {
      const hint = await projectHint(client, where.project).catch(() => null);
      if (hint) io.err(hint);
    }
    return 0;
  }
  const blocks = results.map(({ memory: m, score, confidence }) => {
    const where = m.scope === "project" ? `project:${m.project}` : "global";
    const tags = m.tags.length ? `  [${m.tags.join(", ")}]` : "";
    const body = m.content.split("\n").map((l) => `  ${l}`).join("\n");
    const sure = confidence === undefined ? "" : `  confidence ${confidence.toFixed(2)}`;
    return `${score.toFixed(3)}${sure}  ${where}  ${m.type}  ${m.id}${tags}\n${body}`;
  });
  io.out(blocks.join("\n\n") + "\n");
  return 0;
}

/** Run `memcli export`. */
export async function exportCmd(args: string[], io: Io): Promise<number> {
  const p = parseFlags("export", args, {}, 1);
  if (p.help) {
    io.out(COMMAND_USAGE.export);
    return 0;
  }
  const file = p.positionals[0];
  const client = await connect(io);
  const records = await client.export();
  const text = JSON.stringify(records, null, 2) + "\n";
  if (file && file !== "-") {
    await writeFileAtomically(file, new TextEncoder().encode(text));
    io.err(`Exported ${records.length} memories to ${file}.\n`);
  } else {
    io.out(text);
    io.err(`Exported ${records.length} memories.\n`);
  }
  if (records.length >= 10_000) {
    const total = (await client.stats()).total;
    if (total > records.length) {
      io.err(
        `Warning: only ${records.length} of ${total} memories were exported (the export limit).\n`,
      );
    }
  }
  return 0;
}

/** The temporary file an export to `file` is written to before it is renamed. */
export function exportTemp(file: string): string {
  return `${file}.mneme-tmp`;
}

/**
 * Write `data` to `file` (owner-only) through {@link exportTemp}, a fixed name beside it
 * that the launcher grants with the file, renamed at the end.
 */
async function writeFileAtomically(file: string, data: Uint8Array): Promise<void> {
  const tmp = exportTemp(file);
  try {
    await Deno.writeFile(tmp, data, { mode: 0o600 });
    await Deno.rename(tmp, file);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    if (err instanceof Deno.errors.NotCapable) throw new Error(`${file}: ${OUTSIDE_SCOPE}`);
    throw new Error(`${file}: cannot write (${(err as Error).message})`);
  }
}

/** Print `value` as indented JSON on stdout; exit code 0. */
export function printJson(io: Io, value: unknown): number {
  io.out(JSON.stringify(value, null, 2) + "\n");
  return 0;
}

/** Create a memory; an API field error is reported as the flag (see {@link inFlagTerms}). */
export async function createMemory(
  client: MemoryClient,
  input: CreateInput,
): Promise<CreateResult> {
  try {
    return await client.create(input);
  } catch (err) {
    throw inFlagTerms(err);
  }
}

/** Largest request body memcli sends to the import endpoint (the API allows 64 MiB). */
const IMPORT_CHUNK_BYTES = 32 * 1024 * 1024;
const encoder = new TextEncoder();

/** Run `memcli import`. */
export async function importCmd(args: string[], io: Io): Promise<number> {
  const p = parseFlags("import", args, {
    batch: { type: "string" },
    skip: { type: "string" },
  }, 1);
  if (p.help) {
    io.out(COMMAND_USAGE.import);
    return 0;
  }
  const batch = intFlag("import", "batch", p.values.batch, 1, 10_000) ?? 500;
  const skip = intFlag("import", "skip", p.values.skip, 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const file = p.positionals[0];
  if (!file) throw new UsageError("FILE is required", "import");

  let text: string;
  try {
    text = file === "-" ? await io.readAll() : await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new Error(`${file}: no such file`);
    if (err instanceof Deno.errors.NotCapable) throw new Error(`${file}: ${OUTSIDE_SCOPE}`);
    throw new Error(`${file}: cannot read (${(err as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(data)) throw new Error(`${file}: expected a JSON array of memories`);
  const items = (data as ImportItem[]).slice(skip);
  if (items.length === 0) {
    io.out(`Nothing to import from ${file}.\n`);
    return 0;
  }

  // Batches of at most `batch` items and IMPORT_CHUNK_BYTES of JSON.
  const chunks: { start: number; items: ImportItem[] }[] = [];
  let cur: ImportItem[] = [];
  let bytes = 2;
  let start = 0;
  items.forEach((item, i) => {
    const size = encoder.encode(JSON.stringify(item)).length + 1;
    if (cur.length && (cur.length >= batch || bytes + size > IMPORT_CHUNK_BYTES)) {
      chunks.push({ start, items: cur });
      cur = [];
      bytes = 2;
      start = i;
    }
    cur.push(item);
    bytes += size;
  });
  chunks.push({ start, items: cur });

  const client = await connect(io);
  const bar = progress(io);
  let imported = 0;
  let skipped = 0;
  // Progress for anything that takes a while: several batches, or one large one.
  const showProgress = chunks.length > 1 || items.length >= 100;
  for (const chunk of chunks) {
    if (showProgress) {
      bar.update(`Importing ${file}: ${imported + skipped}/${items.length} memories`);
    }
    try {
      const r = await client.import(chunk.items);
      imported += r.imported;
      skipped += r.skipped ?? 0;
    } catch (err) {
      bar.done();
      if (!(err instanceof MemoryError)) throw err;
      const offset = skip + chunk.start;
      const msg = err.message.replace(/^\[(\d+)\]/, (_, n) => `[${offset + Number(n)}]`);
      const note = chunks.length > 1 || skip
        ? `\nImported ${imported} of ${items.length} before this batch failed (each batch is ` +
          `all-or-nothing); after fixing the file, rerun with --skip ${skip + imported + skipped}.`
        : "";
      throw new MemoryError(err.status, `${file}: ${msg}${note}`);
    }
  }
  if (showProgress) bar.update(`Importing ${file}: ${imported + skipped}/${items.length} memories`);
  bar.done();
  const skippedNote = skipped
    ? `; skipped ${skipped} already stored (same content, scope, project and type)`
    : "";
  io.out(`Imported ${imported} memories from ${file}${skippedNote}.\n`);
  return 0;
}

/** Run `memcli backup`. */
export async function backup(args: string[], io: Io): Promise<number> {
  const p = parseFlags("backup", args, {}, 1);
  if (p.help) {
    io.out(COMMAND_USAGE.backup);
    return 0;
  }
  const file = p.positionals[0];
  if (!file || file === "-") throw new UsageError("FILE is required", "backup");
  const client = await connect(io);
  const bytes = await client.backup();
  await writeFileAtomically(file, bytes);
  const mib = (bytes.length / 1048576).toFixed(1);
  io.out(
    `Backed up the embedded database to ${file} (${mib} MiB, gzipped tar of DATA_DIR/db).\n` +
      "Restore it with the daemon stopped into an empty DATA_DIR/db: tar -xzf FILE -C DATA_DIR/db " +
      "(memcli backup --help).\n",
  );
  return 0;
}

/** Run `memcli reembed`. */
export async function reembed(args: string[], io: Io): Promise<number> {
  const p = parseFlags("reembed", args, { "batch-size": { type: "string" } });
  if (p.help) {
    io.out(COMMAND_USAGE.reembed);
    return 0;
  }
  const batchSize = intFlag("reembed", "batch-size", p.values["batch-size"], 1, 5000);
  const client = await connect(io);
  const health = await client.health();
  if (health.status !== "maintenance") {
    io.err(
      "The stored vectors already match the configured embedder; re-embedding every memory anyway.\n",
    );
  } else if (health.maintenance) {
    io.err(`Maintenance: ${health.maintenance.reason}.\n`);
  }
  const bar = progress(io);
  for (;;) {
    const r = await client.reembed({ batchSize });
    const e = r.embedder;
    bar.update(`Re-embedding with ${e.provider}/${e.model}: ${r.done}/${r.total}`);
    if (r.finished) {
      bar.done();
      io.out(
        `Re-embedded ${r.total} memories with ${e.provider}/${e.model} (${e.dimension} dimensions).\n`,
      );
      return 0;
    }
  }
}
