// deno-lint-ignore-file no-import-prefix -- the SDK stays out of deno.json and deno.lock (see src/mcp/sdk.ts); memcli runs with src/mcp/deno.lock
/**
 * The MCP SDK's client over stdio, the one stdio MCP client of the programs (`memcli connect`
 * checks the installed MCP server with it as Claude Code starts it). The protocol is the SDK's
 * own (`Client`, its message framing `ReadBuffer`/`serializeMessage`); only the process is
 * Deno's: the SDK's `StdioClientTransport` starts the server through node:child_process and
 * cross-spawn, which read variables a program with exact `--allow-env` grants is not given
 * (`USER`, `LOGNAME`, `TERM`, `OSTYPE`, `NODE_V8_COVERAGE`…), so the transport here runs it with
 * `Deno.Command`. Pinned like the server's SDK (src/mcp/sdk.ts), outside deno.json's import map
 * and deno.lock: a program that loads this module runs with src/mcp/deno.lock (`MCP_LOCK` in
 * src/programs.ts). Load it with a dynamic import, only where a client is needed.
 * @module
 */
import { Buffer } from "node:buffer";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { ReadBuffer, serializeMessage } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/stdio.js";
import type { Transport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
import type { JSONRPCMessage } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";

export { Client };

/** How the server process is started besides its command: its variables and directory. */
export interface StdioOptions {
  /** Variables for the process (added to ours, or the only ones with `clearEnv`). */
  env?: Record<string, string>;
  /** Its working directory. */
  cwd?: string;
  /** Start it with `env` alone, none of ours. */
  clearEnv?: boolean;
}

/**
 * An MCP stdio transport on `Deno.Command`: starts `command args`, writes each message as one
 * line to its stdin, reads messages from its stdout, keeps the last 4,000 characters of its
 * stderr. Closing closes its stdin (a stdio server then exits) and kills it after 5 s.
 */
export class DenoStdioTransport implements Transport {
  /** Set by the client. */
  onclose?: () => void;
  /** Set by the client. */
  onerror?: (error: Error) => void;
  /** Set by the client. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** The end of what the server wrote to stderr. */
  stderr = "";
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #closed = false;

  /** A transport that will start `command` with `args` (and `options`). */
  constructor(
    readonly command: string,
    readonly args: string[],
    readonly options: StdioOptions = {},
  ) {}

  /** The server's process id (once started). */
  get pid(): number {
    if (!this.#child) throw new Error("the MCP server is not started");
    return this.#child.pid;
  }

  /** Start the server process. */
  start(): Promise<void> {
    const child = new Deno.Command(this.command, {
      args: this.args,
      env: this.options.env,
      cwd: this.options.cwd,
      clearEnv: this.options.clearEnv,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    const buffer = new ReadBuffer();
    (async () => {
      for await (const chunk of child.stdout) {
        buffer.append(Buffer.from(chunk));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      }
    })().catch((err) => this.onerror?.(err as Error)).finally(() => this.#end());
    (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        this.stderr = (this.stderr + chunk).slice(-4000);
      }
    })().catch(() => {});
    return Promise.resolve();
  }

  /** Send one message. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer) throw new Error("the MCP server is not started");
    await this.#writer.write(new TextEncoder().encode(serializeMessage(message)));
  }

  /** Close its stdin, wait for it to exit (SIGKILL after 5 s). */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    await this.#writer?.close().catch(() => {});
    const kill = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 5000);
    await child.status;
    clearTimeout(kill);
    this.#end();
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
