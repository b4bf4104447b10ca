/**
 * Argument parsing of `msgcli`: `node:util` `parseArgs` in strict mode, so that unknown flags,
 * flags given to a command they do not belong to and invalid values fail with a
 * {@link UsageError} (exit code 1) before any network activity. For `serve` the other words
 * (globals included) are passed on to the daemon's own parser untouched.
 * @module
 */

import { parseArgs } from "node:util";
import { UsageError } from "../common/errors.ts";
import type { MsgcliFiles } from "../permissions.ts";

const COMMANDS = [
  "login",
  "logout",
  "query",
  "stream",
  "usage",
  "run",
  "version",
  "help",
  "serve",
] as const;
/** A command word. */
export type Command = (typeof COMMANDS)[number];

const OPTIONS = {
  debug: { type: "boolean" },
  proxy: { type: "string" },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
  out: { type: "string" },
  manual: { type: "boolean" },
  json: { type: "boolean" },
  system: { type: "string" },
  "system-file": { type: "string" },
  history: { type: "string" },
  model: { type: "string" },
  "max-tokens": { type: "string" },
  temperature: { type: "string" },
  listen: { type: "string" },
  "browser-wait": { type: "string" },
} as const;

type FlagName = keyof typeof OPTIONS;

const FLAG_SCOPE: Partial<Record<FlagName, readonly Command[]>> = {
  out: ["login"],
  manual: ["login"],
  json: ["usage"],
  system: ["query", "stream"],
  "system-file": ["query", "stream"],
  history: ["query", "stream"],
  model: ["query", "stream"],
  "max-tokens": ["query", "stream"],
  temperature: ["query", "stream"],
  listen: ["run"],
  "browser-wait": ["login"],
};

/** The parsed command line. */
export interface ParsedCommand {
  command: Command;
  prompt?: string;
  debug: boolean;
  proxyFlag?: string;
  out?: string;
  manual: boolean;
  /** login: seconds to wait for a browser before offering the paste (`--browser-wait`). */
  browserWaitSeconds?: number;
  json: boolean;
  /** Generation flags as given (validated, files not read yet). */
  gen: {
    /** Which of --system / --system-file came last, with its value. */
    system?: { kind: "text" | "file"; value: string };
    history?: string;
    model?: string;
    maxTokens?: number;
    temperature?: number;
  };
  /** For serve: the arguments to pass on. */
  serveArgs?: string[];
  /** For run: the command and its arguments. */
  runArgs?: string[];
  /** For run: where a daemon it starts listens (`--listen`, default 127.0.0.1:8787). */
  listen?: string;
}

/**
 * The files a parsed command names (`--system-file`, `--history`, `login --out`): what its
 * permissions grant beyond the configuration (src/permissions.ts, `msgcliPlan`).
 */
export function commandFiles(p: ParsedCommand): MsgcliFiles {
  const read: string[] = [];
  if (p.gen.system?.kind === "file") read.push(p.gen.system.value);
  if (p.gen.history !== undefined && p.gen.history !== "-") read.push(p.gen.history);
  return p.out === undefined ? { read } : { read, credentials: p.out };
}

/** Index of the `serve` command word when it is the command, else -1. */
function serveIndex(args: string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") return -1;
    // The value of a string flag (`--system serve`) is not a command word.
    const name = a.startsWith("--") && !a.includes("=") ? a.slice(2) : "";
    if ((OPTIONS as Record<string, { type: string }>)[name]?.type === "string") {
      i++;
      continue;
    }
    if (a.startsWith("-")) continue;
    return a === "serve" ? i : -1;
  }
  return -1;
}

/** `parseArgs` in strict mode, its message cut to the part about the flag. */
function strictParse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: OPTIONS,
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message.split(". To specify a positional")[0]);
  }
}

type Parsed = ReturnType<typeof strictParse>;

/** The command word (`query` when the first word is none) and the words after it. */
function commandWord(
  positionals: string[],
  tokens: Parsed["tokens"],
): { command: Command; rest: string[] } {
  const first = positionals[0];
  // A command word counts only before "--" (tokens tell where "--" was).
  const terminatorIndex = tokens.findIndex((t) => t.kind === "option-terminator");
  const firstToken = tokens.find((t) => t.kind === "positional");
  const firstIsWord = firstToken !== undefined &&
    (terminatorIndex < 0 || tokens.indexOf(firstToken) < terminatorIndex);
  if (first !== undefined && firstIsWord && (COMMANDS as readonly string[]).includes(first)) {
    return { command: first as Command, rest: positionals.slice(1) };
  }
  return { command: "query", rest: positionals };
}

/** A flag given to a command it does not belong to is a usage error. */
function checkFlagScopes(tokens: Parsed["tokens"], command: Command): void {
  for (const t of tokens) {
    if (t.kind !== "option") continue;
    const scope = FLAG_SCOPE[t.name as FlagName];
    if (scope && !scope.includes(command)) {
      throw new UsageError(
        `--${t.name} is not valid for "${command}" (only for ${scope.join(", ")})`,
      );
    }
  }
}

/** The generation flags of `query` and `stream`, checked (files not read yet). */
function generationFlags(values: Parsed["values"], tokens: Parsed["tokens"]): ParsedCommand["gen"] {
  const gen: ParsedCommand["gen"] = {};
  // The later of --system / --system-file wins.
  for (const t of tokens) {
    if (t.kind === "option" && (t.name === "system" || t.name === "system-file")) {
      gen.system = { kind: t.name === "system" ? "text" : "file", value: t.value ?? "" };
    }
  }
  if (gen.system?.kind === "file" && gen.system.value.trim() === "") {
    throw new UsageError("--system-file: path must not be empty");
  }
  if (values.history !== undefined) {
    if (values.history.trim() === "") throw new UsageError("--history: path must not be empty");
    gen.history = values.history;
  }
  if (values.model !== undefined) {
    if (values.model.trim() === "") throw new UsageError("--model: must not be empty");
    gen.model = values.model.trim();
  }
  if (values["max-tokens"] !== undefined) {
    const raw = values["max-tokens"].trim();
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
      throw new UsageError(`--max-tokens: expected a whole number >= 1, got "${raw}"`);
    }
    gen.maxTokens = n;
  }
  if (values.temperature !== undefined) {
    const raw = values.temperature.trim();
    const n = Number(raw);
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(raw) || !Number.isFinite(n) || n < 0 || n > 1) {
      throw new UsageError(`--temperature: expected a number from 0.0 to 1.0, got "${raw}"`);
    }
    gen.temperature = n;
  }
  return gen;
}

/** Parses argv; throws {@link UsageError} for unknown flags, misplaced flags and bad values. */
export function parseCommandLine(args: string[]): ParsedCommand {
  const si = serveIndex(args);
  if (si >= 0) {
    return {
      command: "serve",
      debug: false,
      manual: false,
      json: false,
      gen: {},
      serveArgs: [...args.slice(0, si), ...args.slice(si + 1)],
    };
  }
  const { values, positionals, tokens } = strictParse(args);
  if (values.help) return { command: "help", debug: false, manual: false, json: false, gen: {} };
  if (values.version) {
    return { command: "version", debug: false, manual: false, json: false, gen: {} };
  }
  const { command, rest } = commandWord(positionals, tokens);
  if (command === "help") return { command, debug: false, manual: false, json: false, gen: {} };
  if (command === "version") {
    if (rest.length > 0) throw new UsageError(`version: unexpected argument "${rest[0]}"`);
    return { command, debug: false, manual: false, json: false, gen: {} };
  }

  checkFlagScopes(tokens, command);

  const out: ParsedCommand = {
    command,
    debug: values.debug === true,
    manual: values.manual === true,
    json: values.json === true,
    gen: {},
  };
  if (values.proxy !== undefined) out.proxyFlag = values.proxy;
  if (values.out !== undefined) {
    if (values.out.trim() === "") throw new UsageError("--out: path must not be empty");
    out.out = values.out;
  }

  if (command === "run") {
    if (rest.length === 0) {
      throw new UsageError("run: missing command (msgcli run -- COMMAND [ARGS...])");
    }
    if (rest[0].includes(",")) {
      throw new UsageError(`run: a command name must not contain ",": ${JSON.stringify(rest[0])}`);
    }
    out.runArgs = rest;
    if (values.listen !== undefined) out.listen = values.listen;
    return out;
  }

  if (values["browser-wait"] !== undefined) {
    const raw = values["browser-wait"].trim();
    if (!/^\d+(\.\d+)?$/.test(raw)) {
      throw new UsageError(`--browser-wait: expected a number of seconds, got "${raw}"`);
    }
    out.browserWaitSeconds = Number(raw);
  }

  if (command === "login" || command === "usage" || command === "logout") {
    if (rest.length > 0) throw new UsageError(`${command}: unexpected argument "${rest[0]}"`);
    return out;
  }

  // query / stream
  const prompt = rest.join(" ");
  if (positionals.length === 0 && command === "query") {
    throw new UsageError("no command or prompt given");
  }
  if (prompt.trim() === "") {
    throw new UsageError(`${command}: missing prompt (msgcli ${command} "<prompt>")`);
  }
  out.prompt = prompt;
  out.gen = generationFlags(values, tokens);
  return out;
}
