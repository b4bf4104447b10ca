/**
 * Checks a tool's arguments against the input schema it advertises, before the service is
 * called, so that both backends (direct and the Admin API, whose query strings would turn
 * `{"x":1}` into `[object Object]` and `[2]` into `2`) answer the same tool error: unknown
 * fields (listing the allowed ones), `null` for an optional argument, and values of the
 * wrong JSON type, each naming the field. Enums, ranges and formats stay with the service's
 * validation (`src/memory/validate.ts`), the one text for every path.
 *
 * @module
 */
import type { z } from "./sdk.ts";
import { badRequest } from "../domain/errors.ts";

/** Wording of the service (`src/memory/validate.ts`) where it says more than the type. */
const SERVICE_WORDING: Record<string, string> = {
  ttl: "a duration string such as 24h or 7d",
};

/** What a value of a JSON Schema fragment must be, for messages (the service's words). */
function expected(field: string, schema: Record<string, unknown>): string {
  if (SERVICE_WORDING[field] !== undefined) return SERVICE_WORDING[field];
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.join(", ")}`;
  switch (schema.type) {
    case "string":
      return "a string";
    case "integer":
      return "an integer";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "array": {
      const items = schema.items as Record<string, unknown> | undefined;
      return items?.type === "string" ? "an array of strings" : "an array";
    }
    default:
      return "a value";
  }
}

function matches(schema: Record<string, unknown>, v: unknown): boolean {
  switch (schema.type) {
    case "string":
      return typeof v === "string";
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return typeof v === "boolean";
    case "array": {
      if (!Array.isArray(v)) return false;
      const items = schema.items as Record<string, unknown> | undefined;
      return items === undefined || typeof items.type !== "string" ||
        v.every((x) => matches(items, x));
    }
    default:
      return true;
  }
}

/** The message of an unknown argument: the allowed fields, or that there are none. */
export function unknownFieldMessage(allowed: readonly string[]): string {
  return allowed.length > 0
    ? `unknown field; allowed fields are ${allowed.join(", ")}`
    : "unknown field; allowed fields: none (this tool takes no arguments)";
}

/**
 * Throws a 400 `MemoryError` naming the first argument that the tool's advertised input
 * schema forbids: an unknown field, `null`, or a value of the wrong type.
 */
export function checkArgs(schema: z.ZodObject, args: Record<string, unknown>): void {
  const shape = schema.shape as Record<string, z.ZodType>;
  const allowed = Object.keys(shape);
  const required = ((schema.meta() ?? {}).required ?? []) as string[];
  for (const key of Object.keys(args)) {
    if (!allowed.includes(key)) throw badRequest(key, unknownFieldMessage(allowed));
  }
  for (const key of allowed) {
    const v = args[key];
    if (v === undefined) continue;
    const fragment = (shape[key].meta() ?? {}) as Record<string, unknown>;
    const what = expected(key, fragment);
    if (required.includes(key)) {
      if (!matches(fragment, v)) throw badRequest(key, `is required and must be ${what}`);
      continue;
    }
    if (v === null) throw badRequest(key, `must be ${what}, not null (omit it for the default)`);
    if (!matches(fragment, v)) throw badRequest(key, `must be ${what}`);
  }
}
