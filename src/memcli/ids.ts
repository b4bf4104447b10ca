/**
 * Memory ids as the user types them: a full UUID, or any unique prefix of at least 6 hex
 * digits (the web UI shows the first 8), resolved through the Admin API's `id_prefix` list
 * filter. An ambiguous prefix lists its matches; an unknown one says so, naming the argument
 * or flag it came from.
 * @module
 */
import { UsageError } from "../common/errors.ts";
import type { MemoryClient } from "../memory/client.ts";
import { MIN_ID_PREFIX } from "../memory/validate.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How many matches an ambiguous prefix lists. */
const SHOWN = 10;

/**
 * Refuse what cannot be an id (before any request): `what` names the argument or flag
 * (`ID`, `--supersedes`). Returns the value lower-cased.
 */
export function checkIdSyntax(command: string, what: string, id: string | undefined): string {
  if (!id) throw new UsageError(`${what} is required`, command);
  const hex = id.replace(/-/g, "");
  if (
    UUID.test(id) || (/^[0-9a-f]+$/i.test(hex) && hex.length >= MIN_ID_PREFIX && hex.length < 32)
  ) {
    return id.toLowerCase();
  }
  throw new UsageError(
    `${what}: '${id}' is not a memory id (a UUID, or its first ${MIN_ID_PREFIX} or more hex ` +
      "digits as the web UI shows them)",
    command,
  );
}

/** The full id of `id` (a UUID as it is; a prefix looked up: exactly one memory must match). */
export function resolveId(
  client: MemoryClient,
  command: string,
  what: string,
  id: string | undefined,
): Promise<string> {
  return resolveIdWith(
    (prefix, limit) => client.list({ id_prefix: prefix, limit }),
    "memory",
    command,
    what,
    id,
  );
}

/** What a short id is looked up in: `id_prefix` and `limit` of a list endpoint. */
export type IdLookup = (
  prefix: string,
  limit: number,
) => Promise<{ id: string; scope: string; project: string | null; content: string }[]>;

/**
 * The full id of `id` among what `lookup` lists (a UUID as it is; a prefix: exactly one
 * `noun` must match): the memories, or the inbox's proposals.
 */
export async function resolveIdWith(
  lookup: IdLookup,
  noun: "memory" | "proposal",
  command: string,
  what: string,
  id: string | undefined,
): Promise<string> {
  const given = checkIdSyntax(command, what, id);
  if (UUID.test(given)) return given;
  const found = await lookup(given, SHOWN + 1);
  if (found.length === 1) return found[0].id;
  if (found.length === 0) {
    throw new UsageError(`${what}: no ${noun} id starts with '${given}'`, command);
  }
  const lines = found.slice(0, SHOWN).map((m) =>
    `  ${m.id}  ${m.scope === "project" ? `project ${m.project}` : "global"}  ${
      m.content.split("\n")[0].slice(0, 60)
    }`
  );
  const plural = noun === "memory" ? "memories" : "proposals";
  throw new UsageError(
    `${what}: '${given}' matches ${found.length > SHOWN ? `more than ${SHOWN}` : found.length} ` +
      `${plural}; give more of the id:\n${lines.join("\n")}`,
    command,
  );
}
