/**
 * Input and output schemas of the MCP tools.
 *
 * Input schemas advertise precise JSON Schema to clients (types, enums, ranges, formats,
 * required fields, each with a description an agent can act on) but accept any value at
 * parse time: the values go to the {@link MemoryService} unchanged, and its validation
 * (`src/memory/validate.ts`) is the one source of truth, so a tool error names the field
 * with exactly the text the Admin API answers (`weight: must be between 0.1 and 1.0`).
 * A schema that rejected values itself would answer with the SDK's generic zod dump
 * instead, before the service could say what is wrong. Before the service, `checkArgs`
 * (`./args.ts`) checks each call against these advertised fragments (unknown fields, `null`,
 * JSON types) so that both backends answer the same.
 *
 * Output schemas are real zod schemas: the SDK checks every `structuredContent` against
 * them, and clients receive them as JSON Schema.
 * @module
 */
import { z } from "./sdk.ts";
import { MAX_CONTENT, MAX_LIST_LIMIT, MAX_SEARCH_LIMIT, MAX_TAGS } from "../memory/validate.ts";
import { MEMORY_TYPES, SCOPES } from "../memory/types.ts";

/** JSON Schema fragment shown to clients for one argument. */
type JsonSchemaFragment = Record<string, unknown> & { description: string };

/** An argument whose value the service validates; `json` is what clients are shown. */
function arg(json: JsonSchemaFragment): z.ZodOptional<z.ZodUnknown> {
  return z.unknown().optional().meta(json);
}

/** A tool input object: any fields pass (the service rejects unknown ones by name). */
function input<S extends z.ZodRawShape>(shape: S, required: (keyof S & string)[] = []) {
  return z.looseObject(shape).meta({
    required,
    additionalProperties: false,
  });
}

const scopeArg = (what: string) =>
  arg({
    type: "string",
    enum: [...SCOPES],
    description: what,
  });

const projectArg = (what: string) => arg({ type: "string", maxLength: 200, description: what });

const typeArg = (what: string) =>
  arg({ type: "string", enum: [...MEMORY_TYPES], description: what });

const uuidArg = (what: string) => arg({ type: "string", format: "uuid", description: what });

/** remember(content, scope?, project?, type?, tags?, weight?, ttl?, supersedes?) */
export const rememberInput = input({
  content: arg({
    type: "string",
    minLength: 1,
    maxLength: MAX_CONTENT,
    description: "The memory: one self-contained idea in plain language, e.g. " +
      "'The user prefers pnpm over npm.' Write it so it makes sense without this conversation.",
  }),
  scope: scopeArg(
    "'global' (default) for knowledge that applies everywhere, 'project' for one project only " +
      "(then 'project' is required). Given only 'project', scope becomes 'project'.",
  ),
  project: projectArg(
    "Project name, e.g. the repository name. Required with scope 'project'; must be empty " +
      "with scope 'global'.",
  ),
  type: typeArg(
    "Kind of memory (default 'fact'): fact = something true; rule = an instruction to follow; " +
      "decision = a choice made and why; feedback = a correction from the user; context = " +
      "background or temporary state; bootstrap = always shown at session start.",
  ),
  tags: arg({
    type: "array",
    items: { type: "string", minLength: 1, maxLength: 100 },
    maxItems: MAX_TAGS,
    description: "Optional labels for filtering and grouping, e.g. ['testing', 'ci'].",
  }),
  weight: arg({
    type: "number",
    minimum: 0.1,
    maximum: 1,
    description: "Importance from 0.1 to 1.0 (default 1.0); it multiplies the recall score.",
  }),
  ttl: arg({
    type: "string",
    description: "Optional lifetime after which the memory expires and is deleted, e.g. " +
      "'30m', '24h', '7d', '2w' or '1d12h'. Omit for a permanent memory.",
  }),
  supersedes: uuidArg(
    "Id of an existing memory that this one replaces (it drops to weight 0.1 and disappears " +
      "from recall). Use it to correct an outdated or contradicted memory.",
  ),
}, ["content"]);

/** recall(query, project?, scope?, limit?) */
export const recallInput = input({
  query: arg({
    type: "string",
    minLength: 1,
    description: "What you want to know, in natural language or keywords, e.g. " +
      "'how are tests run in this repo'.",
  }),
  project: projectArg(
    "Project name. Without 'scope' the search is hierarchical: global memories plus this " +
      "project's (without 'project', global memories only). Pass it whenever you work in a " +
      "project.",
  ),
  scope: arg({
    type: "string",
    enum: [...SCOPES, "all"],
    description: "Restrict to 'global' or to 'project' (needs 'project'), or 'all' for every " +
      "project's memories and the global ones. Omit for the hierarchical search.",
  }),
  limit: arg({
    type: "integer",
    minimum: 1,
    maximum: MAX_SEARCH_LIMIT,
    description: `How many results (1..${MAX_SEARCH_LIMIT}, default 5), best first.`,
  }),
}, ["query"]);

/** forget(id) */
export const forgetInput = input({
  id: uuidArg("Id of the memory to delete permanently (from remember, recall or list)."),
}, ["id"]);

/** update(id, content) */
export const updateInput = input({
  id: uuidArg("Id of the memory to change."),
  content: arg({
    type: "string",
    minLength: 1,
    maxLength: MAX_CONTENT,
    description: "The new text; it replaces the old text entirely and is re-embedded. " +
      "Scope, type, tags and weight stay as they are.",
  }),
}, ["id", "content"]);

/** list(scope?, project?, type?, limit?) */
export const listInput = input({
  scope: scopeArg("Only memories of this scope."),
  project: projectArg("Only memories of this project."),
  type: typeArg("Only memories of this type."),
  limit: arg({
    type: "integer",
    minimum: 1,
    maximum: MAX_LIST_LIMIT,
    description: `How many (1..${MAX_LIST_LIMIT}, default 50), most recently updated first.`,
  }),
});

/** stats() */
export const statsInput = input({});

/** Help topics, in display order. */
export const HELP_TOPICS = [
  "overview",
  "tools",
  "scopes",
  "types",
  "examples",
  "best-practices",
] as const;

/** One help topic. */
export type HelpTopic = typeof HELP_TOPICS[number];

/** help(topic?) */
export const helpInput = input({
  topic: arg({
    type: "string",
    enum: [...HELP_TOPICS],
    description: "Which page (default 'overview'): overview, tools, scopes, types, examples, " +
      "best-practices.",
  }),
});

// ---- outputs ----

/** A memory as tools return it (same fields as the Admin API). */
export const memoryOutput = z.looseObject({
  id: z.string().describe("UUID"),
  content: z.string(),
  scope: z.enum(SCOPES as [string, ...string[]]),
  project: z.string().nullable(),
  type: z.enum(MEMORY_TYPES as [string, ...string[]]),
  tags: z.array(z.string()),
  weight: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string().nullable().describe("expiry from ttl, or null"),
  supersedes: z.string().nullable().describe("id of the memory this one replaced"),
  superseded_by: z.string().nullable().describe("id of the memory that replaced this one"),
});

/** A contradiction warning of `remember`. */
export const contradictionOutput = z.object({
  id: z.string(),
  content: z.string(),
  similarity: z.number().describe("cosine similarity to the new content (> 0.75)"),
  scope: z.string(),
  project: z.string().nullable(),
  type: z.string(),
});

/** remember → stored memory plus contradiction warnings (empty when none). */
export const rememberOutput = z.object({
  memory: memoryOutput,
  contradictions: z.array(contradictionOutput).describe(
    "existing memories that look like they say the same thing differently",
  ),
});

/** recall → results best first. */
export const recallOutput = z.object({
  results: z.array(z.object({
    memory: memoryOutput,
    score: z.number().describe(
      "relevance (0..1: keyword match fused with vector similarity) × scope weight × memory " +
        "weight × recency; results below a relevance floor are not returned",
    ),
    confidence: z.number().describe(
      "how likely the memory is about the query, 0..1, one meaning for any project and query " +
        "(the share of the query's information and names the memory covers, and its word " +
        "match): 0.7 or more is what the prompt hook injects; lower results may still help " +
        "(absent when the memory service is older than 0.7)",
    ).optional(),
    chosen: z.boolean().describe(
      "present when the memory service's judge (RECALL_JUDGE=on) reordered the results: true " +
        "for the memories a model chose as useful for the query, listed first",
    ).optional(),
  })),
});

/** forget → ok. */
export const forgetOutput = z.object({ ok: z.literal(true), id: z.string() });

/** update → the updated memory. */
export const updateOutput = z.object({ memory: memoryOutput });

/** list → memories newest update first. */
export const listOutput = z.object({
  memories: z.array(memoryOutput),
  count: z.number().int(),
});

/** stats → totals. */
export const statsOutput = z.object({
  total: z.number().int(),
  live: z.number().int().optional(),
  superseded: z.number().int().optional(),
  by_scope: z.record(z.string(), z.number()),
  by_project: z.record(z.string(), z.number()),
  by_type: z.record(z.string(), z.number()),
});

/** help → the page. */
export const helpOutput = z.object({
  topic: z.enum(HELP_TOPICS),
  text: z.string(),
  topics: z.array(z.enum(HELP_TOPICS)),
});
