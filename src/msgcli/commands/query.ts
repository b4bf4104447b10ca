/**
 * `msgcli query "<prompt>" [gen flags]` (also bare `msgcli "<prompt>"`): sends one request and
 * prints the reply's text, ending with a newline.
 * @module
 */

import { replyText } from "../../msg/api.ts";
import type { ParsedCommand } from "../args.ts";
import { messagesClient, withRuntime } from "../context.ts";
import type { CliIO } from "../io.ts";
import { buildRequest } from "../request.ts";

/** Runs `msgcli query`; returns the exit code. */
export async function query(p: ParsedCommand, io: CliIO): Promise<number> {
  const req = await buildRequest(p, io);
  return await withRuntime(p, io, async (rt) => {
    const text = replyText(await messagesClient(rt).create(req));
    await io.stdout(text.endsWith("\n") || text === "" ? text : text + "\n");
    return 0;
  });
}
