/**
 * The MCP server factory: seven tools (remember, recall, forget, update, list, stats, help)
 * and two resources (`mneme://bootstrap`, template `mneme://bootstrap/{project}`) over any
 * {@link MemoryService} (in-process on Postgres, or the Admin API client). It attaches no
 * transport: `src/bin/mcp.ts` connects stdio, tests connect an in-memory pair.
 *
 * Every tool calls the service with the arguments as given, so validation and its messages
 * are the service's (the same as the Admin API's). A {@link MemoryError} becomes a tool
 * result with `isError: true` whose text is the error message, which starts with the
 * field at fault. Nothing escapes as a protocol error or a crash.
 * @module
 */
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  McpServer,
  type ReadResourceResult,
  ResourceTemplate,
} from "./sdk.ts";
import { loadBootstrap, renderBootstrap } from "../memory/bootstrap.ts";
import { describeError } from "../common/errors.ts";
import { badRequest, MemoryError, refusesField } from "../domain/errors.ts";
import type {
  CreateInput,
  ListFilter,
  MemoryService,
  SearchInput,
  Stats,
} from "../memory/types.ts";
import { validateId } from "../memory/validate.ts";
import { VERSION } from "../version.ts";
import { listText, memoryLine, recallText, rememberText, statsText } from "./format.ts";
import { checkArgs } from "./args.ts";
import { helpText } from "./help.ts";
import {
  forgetInput,
  forgetOutput,
  HELP_TOPICS,
  helpInput,
  helpOutput,
  type HelpTopic,
  listInput,
  listOutput,
  recallInput,
  recallOutput,
  rememberInput,
  rememberOutput,
  statsInput,
  statsOutput,
  updateInput,
  updateOutput,
} from "./schemas.ts";

/** The seven tool names, in registration order. */
export const TOOL_NAMES = [
  "remember",
  "recall",
  "forget",
  "update",
  "list",
  "stats",
  "help",
] as const;

/** URI of the global bootstrap resource. */
export const BOOTSTRAP_URI = "mneme://bootstrap";

/** URI template of the per-project bootstrap resource. */
export const BOOTSTRAP_TEMPLATE = "mneme://bootstrap/{project}";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Server name announced in `initialize` (default `mneme`). */
  name?: string;
  /** Log sink for unexpected errors (default: stderr). Never stdout. */
  log?: (line: string) => void;
  /**
   * Ask the service to rerank the `recall` tool's results with its judge (`"rerank": true`; API
   * mode: the admin daemon applies it when `RECALL_JUDGE=on` and ignores it otherwise). A
   * service that refuses the field (older than 0.24) is asked without it from then on.
   */
  rerank?: boolean;
}

/** Instructions announced in `initialize`, shown by many clients to the model. */
export const SERVER_INSTRUCTIONS =
  "Mneme is a persistent memory shared across sessions and agents. Before a task, call " +
  "recall with the project name; store durable knowledge (decisions, user feedback, rules, " +
  "facts you had to discover) with remember, one idea per memory, never secrets. When " +
  "remember reports contradictions, replace the outdated memory with supersedes. Read " +
  "mneme://bootstrap/{project} for standing instructions. Call help for details.";

type Args = Record<string, unknown>;

function ok(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/** Runs a tool body; service errors become `isError` results naming the field. */
type ToolRunner = (tool: string, body: () => Promise<CallToolResult>) => Promise<CallToolResult>;

/** The {@link ToolRunner} of a server that logs unexpected errors to `log`. */
function toolRunner(log: (line: string) => void): ToolRunner {
  return async (tool, body) => {
    try {
      return await body();
    } catch (err) {
      if (err instanceof MemoryError) {
        if (err.status >= 500) log(`mneme mcp: ${tool}: ${describeError(err)}`);
        return { content: [{ type: "text", text: err.message }], isError: true };
      }
      log(`mneme mcp: ${tool} failed: ${describeError(err)}`);
      return {
        content: [{ type: "text", text: `internal error: ${describeError(err)}` }],
        isError: true,
      };
    }
  };
}

/** The tools on memories one at a time: remember, recall, forget, update. */
function registerMemoryTools(
  server: McpServer,
  service: MemoryService,
  run: ToolRunner,
  rerank: boolean,
): void {
  // Whether the service is asked to rerank (off for good once it refused the field).
  let asksRerank = rerank;
  server.registerTool("remember", {
    title: "Remember",
    description: "Store a memory that persists across sessions (a fact, rule, decision, user " +
      "feedback, context or bootstrap instruction), globally or for one project. Returns the " +
      "stored memory and warnings about existing memories that look similar and may " +
      "contradict it; replace an outdated one by passing its id as 'supersedes'.",
    inputSchema: rememberInput,
    outputSchema: rememberOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  }, (args: Args) =>
    run("remember", async () => {
      checkArgs(rememberInput, args);
      const res = await service.create(args as unknown as CreateInput);
      const contradictions = res.contradictions ?? [];
      return ok(rememberText(res.memory, contradictions), {
        memory: res.memory,
        contradictions: contradictions.map((c) => ({
          id: c.memory.id,
          content: c.memory.content,
          similarity: c.similarity,
          scope: c.memory.scope,
          project: c.memory.project,
          type: c.memory.type,
        })),
      });
    }));

  server.registerTool("recall", {
    title: "Recall",
    description: "Search memories by words and meaning, best first with a score. Pass " +
      "'project' to search global memories plus that project's; without it only global " +
      "memories are searched. The score is relevance × scope weight (project 1, global 0.8) " +
      "× the memory's weight × a slow decay with age: relevance (0..1) is mostly the share " +
      "of the query's telling words the memory contains (rare words count more than common " +
      "ones), plus the embedding similarity. Each result also has a confidence (0..1) that " +
      "the memory is about the query, with one meaning whatever the query or project: 0.7 " +
      "or more is a memory about the query; below that it is a loose match, to read with " +
      "care. Only relevant memories are returned, so fewer " +
      "than 'limit' or none means nothing else matched. Superseded and expired memories are " +
      "left out. Call it before starting a task.",
    inputSchema: recallInput,
    outputSchema: recallOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, (args: Args) =>
    run("recall", async () => {
      checkArgs(recallInput, args);
      const input = args as unknown as SearchInput;
      // Whether this call asked (another call may have turned it off while this one waited).
      const rerank = asksRerank;
      let results;
      try {
        results = await service.search(rerank ? { ...input, rerank: true } : input);
      } catch (err) {
        // A service older than the rerank names the field it does not know: asked without it.
        if (!rerank || !refusesField(err, "rerank")) throw err;
        asksRerank = false;
        results = await service.search(input);
      }
      return ok(recallText(results, String(args.query ?? "")), { results });
    }));

  server.registerTool("forget", {
    title: "Forget",
    description: "Delete one memory permanently by id. To correct a memory instead, use " +
      "update, or remember with 'supersedes'.",
    inputSchema: forgetInput,
    outputSchema: forgetOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  }, (args: Args) =>
    run("forget", async () => {
      checkArgs(forgetInput, args);
      const id = validateId(args.id);
      await service.delete(id);
      return ok(`Forgot memory ${id}.`, { ok: true, id });
    }));

  server.registerTool("update", {
    title: "Update",
    description: "Replace the text of one memory (re-embedded; scope, type, tags and weight " +
      "are kept). Use it to fix wording or details of a memory that is still current.",
    inputSchema: updateInput,
    outputSchema: updateOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  }, (args: Args) =>
    run("update", async () => {
      checkArgs(updateInput, args);
      const memory = await service.update(validateId(args.id), {
        content: args.content as string,
      });
      return ok(`Updated memory:\n${memoryLine(memory)}`, { memory });
    }));
}

/** The tools that survey: list, stats, help. */
function registerSurveyTools(server: McpServer, service: MemoryService, run: ToolRunner): void {
  server.registerTool("list", {
    title: "List",
    description: "List memories, most recently updated first, optionally filtered by scope, " +
      "project and type. Unlike recall it includes superseded memories (superseded_by set).",
    inputSchema: listInput,
    outputSchema: listOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, (args: Args) =>
    run("list", async () => {
      checkArgs(listInput, args);
      const memories = await service.list(args as ListFilter);
      return ok(listText(memories), { memories, count: memories.length });
    }));

  server.registerTool("stats", {
    title: "Stats",
    description: "Count current memories in total and by scope, project and type.",
    inputSchema: statsInput,
    outputSchema: statsOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, (args: Args) =>
    run("stats", async () => {
      checkArgs(statsInput, args);
      const stats: Stats = await service.stats();
      return ok(statsText(stats), { ...stats });
    }));

  server.registerTool("help", {
    title: "Help",
    description: "How to use this memory service: topics overview, tools, scopes, types, " +
      "examples, best-practices. Start with 'overview' if you have not used it before.",
    inputSchema: helpInput,
    outputSchema: helpOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, (args: Args) =>
    run("help", () => {
      checkArgs(helpInput, args);
      const raw = args.topic;
      const topic = raw === undefined || raw === null || raw === "" ? "overview" : raw;
      if (typeof topic !== "string" || !HELP_TOPICS.includes(topic as HelpTopic)) {
        throw badRequest("topic", `must be one of ${HELP_TOPICS.join(", ")}`);
      }
      const text = helpText(topic as HelpTopic);
      return Promise.resolve(ok(text, { topic, text, topics: [...HELP_TOPICS] }));
    }));
}

/** The bootstrap resources: the global one and the template of a project's. */
function registerBootstrap(
  server: McpServer,
  service: MemoryService,
  log: (line: string) => void,
): void {
  /** Render a bootstrap resource; service errors become protocol errors with the message. */
  const readBootstrap = async (
    uri: URL,
    project: string | null,
    source: string,
  ): Promise<ReadResourceResult> => {
    try {
      const memories = await loadBootstrap(service, project);
      const text = renderBootstrap(memories, { project, projectSource: source });
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text }] };
    } catch (err) {
      if (err instanceof MemoryError && err.status < 500) {
        throw new McpError(ErrorCode.InvalidParams, err.message);
      }
      log(`mneme mcp: reading ${uri.href} failed: ${describeError(err)}`);
      throw new McpError(ErrorCode.InternalError, describeError(err));
    }
  };

  server.registerResource("bootstrap", BOOTSTRAP_URI, {
    title: "Bootstrap (global)",
    description: "Standing instructions for every session: the global bootstrap memories as " +
      "Markdown (System section, then Bootstrap, Rules, Feedback, Facts, Decisions, Context, " +
      "and a stats block). Read it at session start.",
    mimeType: "text/markdown",
  }, (uri: URL) => readBootstrap(uri, null, "none"));

  const projectNames = async (): Promise<string[]> => {
    try {
      return Object.keys((await service.stats()).by_project).sort();
    } catch (err) {
      log(`mneme mcp: cannot list projects: ${describeError(err)}`);
      return [];
    }
  };

  server.registerResource(
    "bootstrap-project",
    new ResourceTemplate(BOOTSTRAP_TEMPLATE, {
      list: async () => ({
        resources: (await projectNames()).map((p) => ({
          uri: `mneme://bootstrap/${encodeURIComponent(p)}`,
          name: `bootstrap-${p}`,
          title: `Bootstrap (${p})`,
          description: `Global bootstrap memories plus project ${p}'s, as Markdown.`,
          mimeType: "text/markdown",
        })),
      }),
      complete: {
        project: async (value: string) => (await projectNames()).filter((p) => p.startsWith(value)),
      },
    }),
    {
      title: "Bootstrap (project)",
      description: "The global bootstrap memories plus those of one project, as Markdown. " +
        "Replace {project} with the project name (URL-encoded). Read it at session start.",
      mimeType: "text/markdown",
    },
    (uri: URL, variables: Record<string, string | string[]>) => {
      const raw = Array.isArray(variables.project) ? variables.project[0] : variables.project;
      let project: string;
      try {
        project = decodeURIComponent(raw ?? "").trim();
      } catch {
        throw new McpError(ErrorCode.InvalidParams, "project: is not valid percent-encoding");
      }
      if (project === "") throw new McpError(ErrorCode.InvalidParams, "project: must not be empty");
      return readBootstrap(uri, project, "uri");
    },
  );
}

/** Build the MCP server on a service. The caller owns the service and closes it. */
export function createMcpServer(
  service: MemoryService,
  options: McpServerOptions = {},
): McpServer {
  const log = options.log ?? ((line: string) => console.error(line));
  const server = new McpServer(
    { name: options.name ?? "mneme", version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: SERVER_INSTRUCTIONS,
    },
  );
  // Registered in the order of TOOL_NAMES, which is the order clients list them in.
  const run = toolRunner(log);
  registerMemoryTools(server, service, run, options.rerank ?? false);
  registerSurveyTools(server, service, run);
  registerBootstrap(server, service, log);
  return server;
}
