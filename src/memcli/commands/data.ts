/**
 * Memory commands of `memcli` over the Admin API: `add`, `search`, `export`, `import`
 * (batched, with progress) and `reembed` (drives the maintenance endpoint until finished).
 * @module
 */
import { MemoryError } from "../../domain/errors.ts";
import type { MemoryClient } from "../../memory/client.ts";
import {
  type CreateInput,
  type ImportItem,
  MEMORY_TYPES,
  type MemoryType,
  type Scope,
  SCOPES,
} from "../../memory/types.ts";
import { choiceFlag, intFlag, parseFlags, stringFlag } from "../args.ts";
import { UsageError } from "../../common/errors.ts";
import { apiUrlOf, clientOf, configOf } from "../context.ts";
import type { Io } from "../io.ts";
import { COMMAND_USAGE } from "../usage.ts";

/** Why a file is refused by memcli's permissions (docs/permissions.md). */
const OUTSIDE_SCOPE = "outside memcli's permissions (it reads and writes files in the " +
  "working directory and DATA_DIR, never DATA_DIR/db); run it from the file's directory " +
  "or use - for standard input or output";

async function connect(io: Io): Promise<MemoryClient> {
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

const ADD_FLAGS = ["type", "scope", "project", "tags", "ttl", "weight", "supersedes"];

/** Run `memcli add`. */
export async function add(args: string[], io: Io): Promise<number> {
  const p = parseFlags("add", args, {
    type: { type: "string" },
    scope: { type: "string" },
    project: { type: "string" },
    tags: { type: "string", multiple: true },
    ttl: { type: "string" },
    weight: { type: "string" },
    supersedes: { type: "string" },
    json: { type: "boolean" },
  }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.add);
    return 0;
  }
  const type = choiceFlag<MemoryType>("add", "type", p.values.type, MEMORY_TYPES);
  const scope = choiceFlag<Scope>("add", "scope", p.values.scope, SCOPES);
  const project = stringFlag("add", "project", p.values.project);
  const ttl = stringFlag("add", "ttl", p.values.ttl);
  const supersedes = stringFlag("add", "supersedes", p.values.supersedes);
  let weight: number | undefined;
  if (p.values.weight !== undefined) {
    weight = Number(p.values.weight);
    if (!/^\s*\d*\.?\d+\s*$/.test(String(p.values.weight)) || weight < 0.1 || weight > 1) {
      throw new UsageError("--weight: must be a number between 0.1 and 1.0", "add");
    }
  }
  const tags = ((p.values.tags as string[] | undefined) ?? [])
    .flatMap((t) => t.split(","))
    .map((t) => t.trim())
    .filter(Boolean);
  if (p.positionals.length === 0) throw new UsageError("CONTENT is required", "add");
  let content = p.positionals.join(" ");
  if (content === "-") content = (await io.readAll()).trimEnd();
  if (!content.trim()) throw new UsageError("CONTENT must not be empty", "add");

  const input: CreateInput = { content };
  if (type) input.type = type;
  if (scope) input.scope = scope;
  if (project) input.project = project;
  if (tags.length) input.tags = tags;
  if (ttl) input.ttl = ttl;
  if (weight !== undefined) input.weight = weight;
  if (supersedes) input.supersedes = supersedes;

  const client = await connect(io);
  let res;
  try {
    res = await client.create(input);
  } catch (err) {
    // Validation errors start with the field; name the flag instead.
    if (err instanceof MemoryError && err.status === 400 && err.field !== undefined) {
      const name = err.field.split("[")[0];
      if (ADD_FLAGS.includes(name)) {
        throw new MemoryError(400, `--${err.message}`);
      }
      if (name === "content") {
        throw new MemoryError(400, err.message.replace(/^content/, "CONTENT"));
      }
    }
    throw err;
  }
  if (p.values.json) {
    io.out(JSON.stringify(res, null, 2) + "\n");
    return 0;
  }
  const m = res.memory;
  const where = m.scope === "project" ? `project ${m.project}` : "global";
  const expires = m.expires_at ? `, expires ${m.expires_at}` : "";
  io.out(`Added ${m.id} (${where}, ${m.type}${expires}).\n`);
  if (m.supersedes) io.out(`It supersedes ${m.supersedes}.\n`);
  if (res.contradictions?.length) {
    io.out("Possible contradictions (similarity > 0.75):\n");
    for (const c of res.contradictions) {
      const first = c.memory.content.split("\n")[0];
      io.out(`  ${c.similarity.toFixed(3)}  ${c.memory.id}  ${first}\n`);
    }
    io.out("Replace an outdated one with: memcli add CONTENT --supersedes ID\n");
  }
  return 0;
}

/** Run `memcli search`. */
export async function search(args: string[], io: Io): Promise<number> {
  const p = parseFlags("search", args, {
    project: { type: "string" },
    scope: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  }, Infinity);
  if (p.help) {
    io.out(COMMAND_USAGE.search);
    return 0;
  }
  const project = stringFlag("search", "project", p.values.project);
  const scope = choiceFlag<Scope | "all">("search", "scope", p.values.scope, [
    ...SCOPES,
    "all",
  ]);
  const limit = intFlag("search", "limit", p.values.limit, 1, 100);
  const query = p.positionals.join(" ").trim();
  if (!query) throw new UsageError("QUERY is required", "search");
  const client = await connect(io);
  const results = await client.search({ query, project, scope, limit });
  if (p.values.json) {
    io.out(JSON.stringify(results, null, 2) + "\n");
    return 0;
  }
  if (results.length === 0) {
    io.err("No matching memories.\n");
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
    const tmp = `${file}.tmp-${Deno.pid}`;
    try {
      await Deno.writeTextFile(tmp, text);
      await Deno.rename(tmp, file);
    } catch (err) {
      await Deno.remove(tmp).catch(() => {});
      if (err instanceof Deno.errors.NotCapable) throw new Error(`${file}: ${OUTSIDE_SCOPE}`);
      throw new Error(`${file}: cannot write (${(err as Error).message})`);
    }
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
  // Progress for anything that takes a while: several batches, or one large one.
  const showProgress = chunks.length > 1 || items.length >= 100;
  for (const chunk of chunks) {
    if (showProgress) {
      bar.update(`Importing ${file}: ${imported}/${items.length} memories`);
    }
    try {
      imported += (await client.import(chunk.items)).imported;
    } catch (err) {
      bar.done();
      if (!(err instanceof MemoryError)) throw err;
      const offset = skip + chunk.start;
      const msg = err.message.replace(/^\[(\d+)\]/, (_, n) => `[${offset + Number(n)}]`);
      const note = chunks.length > 1 || skip
        ? `\nImported ${imported} of ${items.length} before this batch failed (each batch is ` +
          `all-or-nothing); after fixing the file, rerun with --skip ${skip + imported}.`
        : "";
      throw new MemoryError(err.status, `${file}: ${msg}${note}`);
    }
  }
  if (showProgress) bar.update(`Importing ${file}: ${imported}/${items.length} memories`);
  bar.done();
  io.out(`Imported ${imported} memories from ${file}.\n`);
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
