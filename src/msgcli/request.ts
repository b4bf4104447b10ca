/**
 * The request of `msgcli query` and `msgcli stream`, built from the parsed flags: the history
 * (`--history PATH|-`) with the prompt as the last user message, the system prompt
 * (`--system` or `--system-file`), model, token limit and temperature. Unreadable files and a
 * bad history are {@link UsageError}s naming the flag.
 * @module
 */

import { UsageError } from "../common/errors.ts";
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_MODEL,
  type Message,
  type MessageRequest,
} from "../msg/prepare.ts";
import type { ParsedCommand } from "./args.ts";
import type { CliIO } from "./io.ts";

/** Validates a history JSON text; errors name the entry and field. */
export function parseHistory(text: string, source: string): Message[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--history: ${source} is not valid JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(raw)) {
    throw new UsageError(`--history: ${source} must hold a JSON array of {role, content}`);
  }
  return raw.map((m, i) => {
    if (typeof m !== "object" || m === null || Array.isArray(m)) {
      throw new UsageError(`--history: entry [${i}] must be an object {role, content}`);
    }
    const o = m as Record<string, unknown>;
    if (o.role !== "user" && o.role !== "assistant") {
      throw new UsageError(`--history: entry [${i}].role must be "user" or "assistant"`);
    }
    if (typeof o.content !== "string") {
      throw new UsageError(`--history: entry [${i}].content must be a string`);
    }
    return { role: o.role, content: o.content };
  });
}

async function readTextFile(flag: string, path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    const reason = e instanceof Deno.errors.NotFound
      ? "file not found"
      : e instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : e instanceof Deno.errors.IsADirectory
      ? "is a directory"
      : (e as Error).message;
    throw new UsageError(`${flag}: cannot read ${path}: ${reason}`);
  }
}

/** Builds the request from parsed flags (reads --system-file and --history). */
export async function buildRequest(p: ParsedCommand, io: CliIO): Promise<MessageRequest> {
  const messages: Message[] = [];
  if (p.gen.history !== undefined) {
    const text = p.gen.history === "-"
      ? await io.readStdin()
      : await readTextFile("--history", p.gen.history);
    messages.push(...parseHistory(text, p.gen.history === "-" ? "stdin" : p.gen.history));
  }
  messages.push({ role: "user", content: p.prompt ?? "" });
  const req: MessageRequest = {
    model: p.gen.model ?? DEFAULT_MODEL,
    max_tokens: p.gen.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages,
  };
  if (p.gen.system) {
    req.system = p.gen.system.kind === "text"
      ? p.gen.system.value
      : await readTextFile("--system-file", p.gen.system.value);
  }
  if (p.gen.temperature !== undefined) req.temperature = p.gen.temperature;
  return req;
}
