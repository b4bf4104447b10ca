/**
 * The `msgcli` command line: argument parsing (strict; unknown flags and invalid values fail
 * with exit code 1 before any network activity), the commands `login`, `query` (default for
 * bare text), `stream`, `usage`, `version`, `help`, and the hand-off of `serve` to the daemon.
 *
 * Exit codes: 0 success, 1 usage error or invalid input, 2 failure at run time
 * (authentication, network, upstream error).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { describeError, UsageError } from "../common/errors.ts";
import { heldPermissions, type MsgcliFiles, msgcliPlan } from "../permissions.ts";
import { VERSION } from "../version.ts";
import {
  ConfigError,
  DEFAULTS,
  envFlag,
  type EnvGetter,
  loadMsgConfig,
  type MsgConfig,
} from "./config.ts";
import { CredentialStore } from "./credentials.ts";
import { createUpstreamFetch } from "./http.ts";
import {
  authorizeUrl,
  exchangeCode,
  generatePkce,
  generateState,
  OAuthError,
  parseManualCode,
} from "./oauth.ts";
import { ApiError, MessagesClient, replyText } from "./api.ts";
import { DEFAULT_MAX_TOKENS, DEFAULT_MODEL, type Message, type MessageRequest } from "./prepare.ts";
import type { UsageWindows } from "./ratelimit.ts";

/** Input and output of one CLI run (real streams in production, captured ones in tests). */
export interface CliIO {
  env: EnvGetter;
  /** Writes to stdout; each call is written through at once (no buffering). */
  stdout: (text: string) => Promise<void>;
  stderr: (text: string) => Promise<void>;
  /** All of stdin as text. */
  readStdin: () => Promise<string>;
  /** One line of stdin (without the line end); null at end of input. */
  readLine: () => Promise<string | null>;
  /** Tries to open a URL in a browser; failures are ignored. */
  openBrowser: (url: string) => Promise<void>;
  /** Runs `msgcli serve` with the arguments after `serve` (globals included). */
  runServe: (args: string[]) => Promise<number>;
}

/** Usage text printed by `--help`. */
export const USAGE =
  `msgcli v${VERSION}: a Messages API client that signs in with your Claude subscription

Usage:
  msgcli login [--out PATH] [--manual]   sign in (OAuth with PKCE) and write the credentials file
  msgcli query "<prompt>" [gen flags]    send one prompt and print the reply
  msgcli "<prompt>" [gen flags]          same as query
  msgcli stream "<prompt>" [gen flags]   stream the reply as it is generated
  msgcli usage [--json]                  show subscription rate-limit windows
  msgcli serve [serve flags]             run the local proxy daemon (see msgcli serve --help)
  msgcli version | --version | -v        print the version
  msgcli help | --help | -h              print this help

Generation flags (query, stream):
  --system TEXT          system prompt
  --system-file PATH     system prompt from a file (the later of --system/--system-file wins)
  --history PATH|-       prior turns, JSON array of {"role":"user"|"assistant","content":"..."};
                         "-" reads stdin; the prompt is appended as the last user message
  --model NAME           model id (default ${DEFAULT_MODEL})
  --max-tokens N         maximum output tokens (default ${DEFAULT_MAX_TOKENS})
  --temperature F        0.0 to 1.0 (default: the API's)

Global flags:
  --debug                verbose logging to stderr (also MSGCLI_DEBUG=1)
  --proxy URL            proxy for API and OAuth traffic: http, https, socks5, socks5h;
                         user:pass@ in the URL is proxy basic auth
                         (default: HTTPS_PROXY/https_proxy, then ALL_PROXY/all_proxy)
  --out PATH             (login) where to write the credentials
  --manual               (login) paste "code#state" instead of using a local callback
  --json                 (usage) machine-readable output

Environment:
  MSGCLI_CREDENTIALS_PATH  credentials file (default ~/.config/msgcli/credentials.json)
  MSGCLI_DEBUG=1           same as --debug
  MSGCLI_API_BASE_URL, MSGCLI_OAUTH_AUTHORIZE_URL, MSGCLI_OAUTH_TOKEN_URL,
  MSGCLI_OAUTH_CLIENT_ID   upstream endpoints (for gateways and tests)
  MSGCLI_NO_BROWSER=1      do not try to open a browser during login

Uses your own Claude subscription; the provider's terms apply.
`;

const HINT = 'Run "msgcli --help" for usage.';

/** How long `login` waits for the browser callback. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;

const COMMANDS = ["login", "query", "stream", "usage", "version", "help", "serve"] as const;
type Command = (typeof COMMANDS)[number];

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
};

/** The parsed command line. */
export interface ParsedCommand {
  command: Command;
  prompt?: string;
  debug: boolean;
  proxyFlag?: string;
  out?: string;
  manual: boolean;
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
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: OPTIONS,
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message.split(". To specify a positional")[0]);
  }
  const { values, positionals, tokens } = parsed;
  if (values.help) return { command: "help", debug: false, manual: false, json: false, gen: {} };
  if (values.version) {
    return { command: "version", debug: false, manual: false, json: false, gen: {} };
  }
  let command: Command = "query";
  let rest = positionals;
  const first = positionals[0];
  // A command word counts only before "--" (tokens tell where "--" was).
  const terminatorIndex = tokens.findIndex((t) => t.kind === "option-terminator");
  const firstToken = tokens.find((t) => t.kind === "positional");
  const firstIsWord = firstToken !== undefined &&
    (terminatorIndex < 0 || tokens.indexOf(firstToken) < terminatorIndex);
  if (first !== undefined && firstIsWord && (COMMANDS as readonly string[]).includes(first)) {
    command = first as Command;
    rest = positionals.slice(1);
  }
  if (command === "help") return { command, debug: false, manual: false, json: false, gen: {} };
  if (command === "version") {
    if (rest.length > 0) throw new UsageError(`version: unexpected argument "${rest[0]}"`);
    return { command, debug: false, manual: false, json: false, gen: {} };
  }

  for (const t of tokens) {
    if (t.kind !== "option") continue;
    const scope = FLAG_SCOPE[t.name as FlagName];
    if (scope && !scope.includes(command)) {
      throw new UsageError(
        `--${t.name} is not valid for "${command}" (only for ${scope.join(", ")})`,
      );
    }
  }

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

  if (command === "login" || command === "usage") {
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
  // The later of --system / --system-file wins.
  for (const t of tokens) {
    if (t.kind === "option" && (t.name === "system" || t.name === "system-file")) {
      out.gen.system = { kind: t.name === "system" ? "text" : "file", value: t.value ?? "" };
    }
  }
  if (out.gen.system?.kind === "file" && out.gen.system.value.trim() === "") {
    throw new UsageError("--system-file: path must not be empty");
  }
  if (values.history !== undefined) {
    if (values.history.trim() === "") throw new UsageError("--history: path must not be empty");
    out.gen.history = values.history;
  }
  if (values.model !== undefined) {
    if (values.model.trim() === "") throw new UsageError("--model: must not be empty");
    out.gen.model = values.model.trim();
  }
  if (values["max-tokens"] !== undefined) {
    const raw = values["max-tokens"].trim();
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
      throw new UsageError(`--max-tokens: expected a whole number >= 1, got "${raw}"`);
    }
    out.gen.maxTokens = n;
  }
  if (values.temperature !== undefined) {
    const raw = values.temperature.trim();
    const n = Number(raw);
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(raw) || !Number.isFinite(n) || n < 0 || n > 1) {
      throw new UsageError(`--temperature: expected a number from 0.0 to 1.0, got "${raw}"`);
    }
    out.gen.temperature = n;
  }
  return out;
}

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

/** An API error as one line: status, type, message and request id. */
function describeApiError(e: unknown): string | undefined {
  if (!(e instanceof ApiError)) return undefined;
  return `API error ${e.status} ${e.type}: ${e.message}${
    e.requestId ? ` (request-id ${e.requestId})` : ""
  }`;
}

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/** A local time like `2026-11-21 14:05 (UTC+01:00)`. */
export function formatLocalTime(iso: string): string {
  const d = new Date(iso);
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const abs = Math.abs(off);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${
    pad2(d.getMinutes())
  } (UTC${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)})`;
}

function relative(ms: number): string {
  if (ms <= 0) return "now";
  const m = Math.round(ms / 60_000);
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  if (d > 0) return `in ${d}d ${h}h`;
  if (h > 0) return `in ${h}h ${min}m`;
  return `in ${min}m`;
}

function windowLabel(name: string): string {
  const m = /^(\d+)([hd])(?:_(.+))?$/.exec(name);
  if (!m) return name;
  const base = `${m[1]}-${m[2] === "h" ? "hour" : "day"}`;
  return m[3] ? `${base} ${m[3].replaceAll("_", " ")}` : base;
}

/** Renders windows as bars with percent and local reset time. */
export function renderUsage(u: UsageWindows, now = Date.now()): string {
  const names = Object.keys(u.windows).sort((a, b) => {
    const rank = (n: string) => (n === "5h" ? 0 : n === "7d" ? 1 : 2);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
  if (names.length === 0) return "No subscription usage windows reported.\n";
  const labels = names.map(windowLabel);
  const width = Math.max(...labels.map((l) => l.length));
  const lines = ["Subscription usage:"];
  names.forEach((name, i) => {
    const w = u.windows[name];
    const util = w.utilization === null ? null : Math.min(1, Math.max(0, w.utilization));
    const cells = 20;
    const filled = util === null ? 0 : Math.round(util * cells);
    const bar = "█".repeat(filled) + "░".repeat(cells - filled);
    const pct = util === null ? "  n/a" : `${(util * 100).toFixed(0).padStart(4)}%`;
    const reset = w.reset
      ? `resets ${formatLocalTime(w.reset)}, ${relative(Date.parse(w.reset) - now)}`
      : "reset unknown";
    lines.push(`  ${labels[i].padEnd(width)}  [${bar}] ${pct}  ${reset}`);
  });
  if (u.status) lines.push(`Status: ${u.status}`);
  return lines.join("\n") + "\n";
}

interface Runtime {
  cfg: MsgConfig;
  upstream: { fetch: typeof fetch; close(): void };
  debugLog: (s: string) => void;
}

function makeRuntime(p: ParsedCommand, io: CliIO, credentialsPath?: string): Runtime {
  const cfg = loadMsgConfig(io.env, p.proxyFlag);
  if (p.debug) cfg.debug = true;
  if (credentialsPath !== undefined) cfg.credentialsPath = credentialsPath;
  const debugLog = (s: string) => {
    if (cfg.debug) {
      void io.stderr(`${s.startsWith("[msgcli debug]") ? s : `[msgcli debug] ${s}`}\n`);
    }
  };
  debugLog(`permissions: ${heldPermissions(msgcliPlan(cfg, commandFiles(p), Deno.cwd()), true)}`);
  const upstream = createUpstreamFetch({
    proxy: cfg.proxy,
    debug: cfg.debug,
    log: (s) => void io.stderr(s + "\n"),
  });
  return { cfg, upstream, debugLog };
}

async function runLogin(p: ParsedCommand, io: CliIO): Promise<number> {
  const rt = makeRuntime(p, io, p.out);
  try {
    const { cfg, upstream } = rt;
    const store = new CredentialStore(cfg.credentialsPath);
    const pkce = await generatePkce();
    const state = generateState();
    let code: string;
    let redirectUri: string;
    let finish: ((ok: boolean, message: string) => void) | undefined;
    let server: Deno.HttpServer | undefined;
    let server6: Deno.HttpServer | undefined;
    if (p.manual) {
      redirectUri = DEFAULTS.manualRedirectUrl;
      const url = authorizeUrl(cfg, { redirectUri, codeChallenge: pkce.challenge, state });
      await io.stderr(`Open this URL in your browser to sign in:\n\n${url}\n\n`);
      await io.openBrowser(url);
      await io.stderr('Paste the code shown after sign-in ("code#state"): ');
      const line = await io.readLine();
      if (line === null) throw new UsageError("login: no code was pasted (end of input)");
      const parsed = parseManualCode(line);
      if (parsed.state !== state) {
        throw new OAuthError(
          "state_mismatch",
          0,
          "login: the pasted state does not match; start again",
        );
      }
      code = parsed.code;
    } else {
      let resolveCode!: (v: { code: string; state: string }) => void;
      let rejectCode!: (e: Error) => void;
      const codePromise = new Promise<{ code: string; state: string }>((res, rej) => {
        resolveCode = res;
        rejectCode = rej;
      });
      const done = new Promise<{ ok: boolean; message: string }>((res) => {
        finish = (ok, message) => res({ ok, message });
      });
      const handler = async (req: Request): Promise<Response> => {
        const u = new URL(req.url);
        if (u.pathname !== "/callback") return new Response("not found", { status: 404 });
        const err = u.searchParams.get("error");
        if (err) {
          rejectCode(
            new OAuthError(
              err,
              0,
              `login: the authorization server answered ${err}${
                u.searchParams.get("error_description")
                  ? `: ${u.searchParams.get("error_description")}`
                  : ""
              }`,
            ),
          );
          return page(false, "Sign-in failed. You can close this tab.");
        }
        const c = u.searchParams.get("code");
        const s = u.searchParams.get("state");
        if (!c || s !== state) {
          rejectCode(
            new OAuthError(
              "state_mismatch",
              0,
              "login: the callback carried no code or a wrong state; start again",
            ),
          );
          return page(false, "Sign-in failed (state mismatch). You can close this tab.");
        }
        resolveCode({ code: c, state: s });
        const r = await done;
        return page(r.ok, r.message);
      };
      // "localhost" in the redirect may resolve to 127.0.0.1 or ::1: listen on both
      // (the IPv6 one only when the host has IPv6 loopback).
      server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
      const port = (server.addr as Deno.NetAddr).port;
      try {
        server6 = Deno.serve({ hostname: "::1", port, onListen: () => {} }, handler);
      } catch {
        server6 = undefined;
      }
      redirectUri = `http://localhost:${port}/callback`;
      const url = authorizeUrl(cfg, { redirectUri, codeChallenge: pkce.challenge, state });
      await io.stderr(
        `Open this URL in your browser to sign in (waiting for the callback on ${redirectUri}):\n\n${url}\n\n`,
      );
      await io.openBrowser(url);
      const timeoutMs = LOGIN_TIMEOUT_MS;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new OAuthError(
                "timeout",
                0,
                `login: no browser callback within ${
                  timeoutMs / 60_000
                } minutes; run "msgcli login" again (or "msgcli login --manual")`,
              ),
            ),
          timeoutMs,
        );
      });
      try {
        code = (await Promise.race([codePromise, timeout])).code;
        clearTimeout(timer);
      } catch (e) {
        clearTimeout(timer);
        // Let the browser get its error page before exiting.
        await server.shutdown();
        await server6?.shutdown();
        throw e;
      }
    }
    try {
      const tokens = await exchangeCode(cfg, upstream.fetch, {
        code,
        verifier: pkce.verifier,
        redirectUri,
        state,
      });
      await store.write({
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: Date.now() + tokens.expiresIn * 1000,
      });
      finish?.(true, "Signed in to msgcli. You can close this tab.");
    } catch (e) {
      finish?.(false, "Sign-in failed; see the terminal. You can close this tab.");
      throw e;
    } finally {
      await server?.shutdown();
      await server6?.shutdown();
    }
    await io.stderr(`Logged in. Credentials written to ${cfg.credentialsPath}\n`);
    return 0;
  } finally {
    rt.upstream.close();
  }
}

function page(ok: boolean, message: string): Response {
  const html = `<!doctype html><meta charset="utf-8"><title>msgcli login</title><p>${message}</p>`;
  return new Response(html, {
    status: ok ? 200 : 400,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}

/** The API client of one command run, on the run's config, upstream client and credentials. */
function messagesClient(rt: ReturnType<typeof makeRuntime>): MessagesClient {
  return new MessagesClient({
    config: rt.cfg,
    fetch: rt.upstream.fetch,
    store: new CredentialStore(rt.cfg.credentialsPath),
    log: rt.debugLog,
  });
}

async function runGeneration(p: ParsedCommand, io: CliIO): Promise<number> {
  const req = await buildRequest(p, io);
  const rt = makeRuntime(p, io);
  try {
    const client = messagesClient(rt);
    if (p.command === "stream") {
      let endsWithNewline = true;
      try {
        for await (const ev of client.stream(req)) {
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
    } else {
      const res = await client.create(req);
      const text = replyText(res);
      await io.stdout(text.endsWith("\n") || text === "" ? text : text + "\n");
    }
    return 0;
  } finally {
    rt.upstream.close();
  }
}

async function runUsage(p: ParsedCommand, io: CliIO): Promise<number> {
  const rt = makeRuntime(p, io);
  try {
    const client = messagesClient(rt);
    const u = await client.usage();
    await io.stdout(p.json ? JSON.stringify(u, null, 2) + "\n" : renderUsage(u));
    return 0;
  } finally {
    rt.upstream.close();
  }
}

/** Runs the CLI; returns the exit code. Never throws. */
export async function runCli(args: string[], io: CliIO): Promise<number> {
  let p: ParsedCommand;
  try {
    p = parseCommandLine(args);
  } catch (e) {
    await io.stderr(`msgcli: ${(e as Error).message}\n${HINT}\n`);
    return 1;
  }
  try {
    switch (p.command) {
      case "help":
        await io.stdout(USAGE);
        return 0;
      case "version":
        await io.stdout(`msgcli v${VERSION}\n`);
        return 0;
      case "serve":
        return await io.runServe(p.serveArgs ?? []);
      case "login":
        return await runLogin(p, io);
      case "usage":
        return await runUsage(p, io);
      default:
        return await runGeneration(p, io);
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      await io.stderr(`msgcli: ${e.message}\n${HINT}\n`);
      return 1;
    }
    await io.stderr(
      `msgcli: error: ${describeError(e, { style: "lines", describe: describeApiError })}\n`,
    );
    return 2;
  }
}

/** Opens a URL with the platform's opener (`xdg-open`, `open`, `cmd /c start`), ignoring failures. */
export async function openBrowser(url: string, env: EnvGetter): Promise<void> {
  if (envFlag(env("MSGCLI_NO_BROWSER"))) return;
  const os = Deno.build.os;
  if (os === "linux" && !env("DISPLAY") && !env("WAYLAND_DISPLAY")) return;
  const [cmd, ...args] = os === "darwin"
    ? ["open", url]
    : os === "windows"
    ? ["cmd", "/c", "start", "", url]
    : ["xdg-open", url];
  try {
    const child = new Deno.Command(cmd, { args, stdin: "null", stdout: "null", stderr: "null" })
      .spawn();
    child.unref();
    await Promise.resolve();
  } catch {
    // No opener: the URL is printed anyway.
  }
}
