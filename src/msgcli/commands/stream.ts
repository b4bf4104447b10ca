/**
 * `msgcli stream "<prompt>" [gen flags]`: streams the reply, writing each text delta as it
 * arrives, and ends the output with a newline (also when the stream fails midway).
 * @module
 */

import type { ParsedCommand } from "../args.ts";
import { messagesClient, withRuntime } from "../context.ts";
import type { CliIO } from "../io.ts";
import { buildRequest } from "../request.ts";

/** Runs `msgcli stream`; returns the exit code. */
export async function stream(p: ParsedCommand, io: CliIO): Promise<number> {
  const req = await buildRequest(p, io);
  return await withRuntime(p, io, async (rt) => {
    let endsWithNewline = true;
    try {
      for await (const ev of messagesClient(rt).stream(req)) {
        if (ev.type !== "content_block_delta") continue;
        const delta = ev.data.delta as { type?: unknown; text?: unknown } | undefined;
        if (delta?.type === "text_delta" && typeof delta.text === "string") {
          await io.stdout(delta.text);
          if (delta.text !== "") endsWithNewline = delta.text.endsWith("\n");
        }
      }
    } finally {
      if (!endsWithNewline) await io.stdout("\n");
    }
    return 0;
  });
}
