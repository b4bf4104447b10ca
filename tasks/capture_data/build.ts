/**
 * Builds hand-written sessions of the capture benchmark in Claude Code's transcript format
 * (JSONL, one event a line, as Claude Code writes `~/.claude/projects/<project>/<id>.jsonl`)
 * together with their labels. Deterministic: uuids, ids, timestamps and fake secrets come
 * from a PRNG seeded with the session id, so a rerun writes the same bytes.
 *
 * @module
 */

/** Kinds of durable statements. */
/** The splits of the labelled sessions, in the order they were frozen. */
export const SPLITS = [
  "dev",
  "test",
  "holdout",
  "holdout2",
  "holdout3",
  "holdout4",
  "holdout5",
  "holdout6",
  "holdout7",
  "holdout8",
  "holdout9",
  "holdout10",
  "holdout11",
  "holdout12",
  "holdout13",
  "holdout14",
  "holdout15",
  "holdout16",
] as const;
/** A split of the labelled sessions. */
export type Split = typeof SPLITS[number];

export type Kind = "rule" | "preference" | "decision" | "fact";
/** Why a labelled event holds nothing durable. */
export type Why =
  | "request"
  | "question"
  | "one-off"
  | "hypothesis"
  | "agent"
  | "private"
  | "secret";

/** A label given inline to an event. */
export type Label =
  | {
    d: Kind;
    scope: "project" | "global";
    text: string;
    dup?: string;
    contra?: string;
    secret?: boolean;
  }
  | { n: Why };

/** A durable statement in labels.json. */
export interface Durable {
  uuid: string;
  text: string;
  kind: Kind;
  scope: "project" | "global";
  confirmed_agent_text?: boolean;
  /** For a confirmed agent statement: the user's event that confirms it. */
  confirmed_by?: string;
  /** The stored memory this statement repeats (it should not be proposed again). */
  duplicate_of?: string;
  /** The stored memory this statement contradicts (proposed as a replacement). */
  contradicts?: string;
  /** The statement carries a secret: a candidate must drop it or replace it by a marker. */
  contains_secret?: boolean;
}

/** One session's labels. */
export interface SessionLabels {
  file: string;
  session_id: string;
  split: Split;
  real: boolean;
  project: string;
  cwd: string;
  style: string;
  stored: string[];
  durable: Durable[];
  not_durable: { uuid: string; why: Why }[];
  secrets: string[];
  secret_locations: { secret: string; uuid: string }[];
  private_texts: string[];
  duplicates_of_stored: { uuid: string; stored: string }[];
  contradicts_stored: { uuid: string; stored: string; text: string }[];
  events: number;
}

/** Small deterministic PRNG (mulberry32) seeded from a string. */
export class Rng {
  #s: number;
  constructor(seed: string) {
    let h = 1779033703 ^ seed.length;
    for (let i = 0; i < seed.length; i++) {
      h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    this.#s = h >>> 0;
  }
  next(): number {
    let t = (this.#s += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  chars(alphabet: string, n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
  uuid(): string {
    const h = this.chars("0123456789abcdef", 32).split("");
    h[12] = "4";
    h[16] = "89ab"[this.int(4)];
    const s = h.join("");
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${
      s.slice(20)
    }`;
  }
}

const UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LO = "abcdefghijklmnopqrstuvwxyz";
const DIG = "0123456789";
const ALNUM = UP + LO + DIG;
const B64 = ALNUM + "+/";
const URLSAFE = ALNUM + "-_";
const HEX = "0123456789abcdef";

/** Fake but well-formed credentials of the common providers. */
export const fakeSecret = {
  awsKeyId: (r: Rng) => "AKIA" + r.chars(UP + "234567", 16),
  awsSecret: (r: Rng) => r.chars(B64, 40),
  github: (r: Rng) => "ghp_" + r.chars(ALNUM, 36),
  githubPat: (r: Rng) => "github_pat_11" + r.chars(UP + DIG, 20) + "_" + r.chars(ALNUM, 59),
  anthropic: (r: Rng) => "sk-ant-api03-" + r.chars(URLSAFE, 93) + "AA",
  openai: (r: Rng) => "sk-proj-" + r.chars(URLSAFE, 74) + "T3BlbkFJ" + r.chars(URLSAFE, 74),
  openaiLegacy: (r: Rng) => "sk-" + r.chars(ALNUM, 20) + "T3BlbkFJ" + r.chars(ALNUM, 20),
  slackBot: (r: Rng) => `xoxb-${r.chars(DIG, 11)}-${r.chars(DIG, 13)}-${r.chars(ALNUM, 24)}`,
  slackWebhook: (r: Rng) =>
    `https://hooks.slack.com/services/T${r.chars(UP + DIG, 8)}/B${r.chars(UP + DIG, 10)}/${
      r.chars(ALNUM, 24)
    }`,
  stripe: (r: Rng) => "sk_live_" + r.chars(ALNUM, 99),
  stripeRestricted: (r: Rng) => "rk_live_" + r.chars(ALNUM, 99),
  gitlab: (r: Rng) => "glpat-" + r.chars(URLSAFE, 20),
  google: (r: Rng) => "AIza" + r.chars(URLSAFE, 35),
  npm: (r: Rng) => "npm_" + r.chars(ALNUM, 36),
  hex: (r: Rng, n = 40) => r.chars(HEX, n),
  password: (r: Rng) =>
    r.chars(UP, 1) + r.chars(LO, 5) + r.chars(DIG, 3) + r.pick(["!", "#", "%", "&"]) +
    r.chars(ALNUM, 4),
  jwt: (r: Rng) =>
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJ" + r.chars(URLSAFE, 60) + "." +
    r.chars(URLSAFE, 43),
  rsaKey: (r: Rng) => {
    const lines: string[] = [
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEpAIBAAKCAQEA" + r.chars(B64, 48),
    ];
    for (let i = 0; i < 8; i++) lines.push(r.chars(B64, 64));
    lines.push(r.chars(B64, 28) + "==");
    lines.push("-----END RSA PRIVATE KEY-----");
    return lines.join("\n");
  },
  opensshKey: (r: Rng) => {
    const lines: string[] = [
      "-----BEGIN OPENSSH PRIVATE KEY-----",
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    ];
    for (let i = 0; i < 4; i++) lines.push(r.chars(B64, 70));
    lines.push(r.chars(B64, 24) + "=");
    lines.push("-----END OPENSSH PRIVATE KEY-----");
    return lines.join("\n");
  },
};

/** A tool call with its result. */
export interface ToolStep {
  name: string;
  input: Record<string, unknown>;
  result: string;
  error?: boolean;
  /** Text the assistant writes before calling the tool. */
  pre?: string;
}

type Obj = Record<string, unknown>;

/** Options of a session. */
export interface SessionSpec {
  id: string;
  split: Split;
  cwd: string;
  style: string;
  stored?: string[];
  version?: string;
  model?: string;
  branch?: string;
  /** ISO start time. */
  start: string;
}

/** Builds one session event by event. */
export class Session {
  readonly spec: SessionSpec;
  readonly rng: Rng;
  readonly sessionId: string;
  readonly lines: Obj[] = [];
  readonly labels: SessionLabels;
  #parent: string | null = null;
  #t: number;
  #lastUser: string | null = null;
  #lastAssistant: string | null = null;
  #head: Obj[] = [];

  constructor(spec: SessionSpec) {
    this.spec = spec;
    this.rng = new Rng(spec.id);
    this.sessionId = this.rng.uuid();
    this.#t = Date.parse(spec.start);
    const project = spec.cwd.split("/").filter(Boolean).at(-1)!;
    this.labels = {
      file: `sessions/${spec.id}.jsonl`,
      session_id: this.sessionId,
      split: spec.split,
      real: false,
      project,
      cwd: spec.cwd,
      style: spec.style,
      stored: spec.stored ?? [],
      durable: [],
      not_durable: [],
      secrets: [],
      secret_locations: [],
      private_texts: [],
      duplicates_of_stored: [],
      contradicts_stored: [],
      events: 0,
    };
  }

  /** Fake secrets drawn from this session's PRNG. */
  secret(kind: keyof typeof fakeSecret): string {
    return (fakeSecret[kind] as (r: Rng) => string)(this.rng);
  }

  #ts(stepMs: number): string {
    this.#t += stepMs + this.rng.int(stepMs);
    return new Date(this.#t).toISOString();
  }

  #base(type: string, extra: Obj, parent: string | null = this.#parent): Obj & { uuid: string } {
    const uuid = this.rng.uuid();
    const o: Obj & { uuid: string } = {
      parentUuid: parent,
      isSidechain: false,
      userType: "external",
      cwd: this.spec.cwd,
      sessionId: this.sessionId,
      version: this.spec.version ?? "2.0.14",
      gitBranch: this.spec.branch ?? "main",
      type,
      ...extra,
      uuid,
      timestamp: "",
    };
    return o;
  }

  #push(o: Obj & { uuid: string }, stepMs: number): string {
    o.timestamp = this.#ts(stepMs);
    this.lines.push(o);
    this.#parent = o.uuid;
    return o.uuid;
  }

  #applyLabels(uuid: string, text: string, labels: Label[]) {
    for (const l of labels) {
      if ("n" in l) {
        this.labels.not_durable.push({ uuid, why: l.n });
        continue;
      }
      const d: Durable = { uuid, text: l.text, kind: l.d, scope: l.scope };
      if (l.dup) {
        if (!this.labels.stored.includes(l.dup)) throw new Error(`${this.spec.id}: dup not stored`);
        d.duplicate_of = l.dup;
        this.labels.duplicates_of_stored.push({ uuid, stored: l.dup });
      }
      if (l.contra) {
        if (!this.labels.stored.includes(l.contra)) {
          throw new Error(`${this.spec.id}: contra not stored`);
        }
        d.contradicts = l.contra;
        this.labels.contradicts_stored.push({ uuid, stored: l.contra, text: l.text });
      }
      if (l.secret) d.contains_secret = true;
      this.labels.durable.push(d);
    }
    const priv = /<private>([\s\S]*?)<\/private>/g;
    for (const m of text.matchAll(priv)) this.labels.private_texts.push(m[1]);
  }

  /** Declares secrets present in an event's text. */
  #secrets(uuid: string, text: string, secrets: string[]) {
    for (const s of secrets) {
      if (!text.includes(s)) throw new Error(`${this.spec.id}: secret not in text`);
      if (!this.labels.secrets.includes(s)) this.labels.secrets.push(s);
      this.labels.secret_locations.push({ secret: s, uuid });
    }
  }

  /** A user prompt as a plain string. */
  user(text: string, ...labels: Label[]): string {
    return this.#userMsg(text, text, labels, []);
  }

  /** A user prompt with secrets in it (listed). */
  userS(text: string, secrets: string[], ...labels: Label[]): string {
    return this.#userMsg(text, text, labels, secrets);
  }

  /** A user prompt as an array of content blocks (text, optionally an image placeholder). */
  userBlocks(texts: string[], ...labels: Label[]): string {
    const content = texts.map((t) => ({ type: "text", text: t }));
    return this.#userMsg(content, texts.join("\n"), labels, []);
  }

  userBlocksS(texts: string[], secrets: string[], ...labels: Label[]): string {
    const content = texts.map((t) => ({ type: "text", text: t }));
    return this.#userMsg(content, texts.join("\n"), labels, secrets);
  }

  #userMsg(content: unknown, text: string, labels: Label[], secrets: string[]): string {
    const o = this.#base("user", { message: { role: "user", content } });
    const uuid = this.#push(o, 20_000);
    this.#applyLabels(uuid, text, labels);
    this.#secrets(uuid, text, secrets);
    this.#lastUser = uuid;
    return uuid;
  }

  #msgId(): string {
    return "msg_01" + this.rng.chars(ALNUM, 22);
  }

  #assistantLine(msgId: string, block: Obj, stop: string | null, reqId: string): string {
    const o = this.#base("assistant", {
      message: {
        id: msgId,
        type: "message",
        role: "assistant",
        model: this.spec.model ?? "claude-sonnet-4-5-20250929",
        content: [block],
        stop_reason: stop,
        stop_sequence: null,
        usage: {
          input_tokens: 4 + this.rng.int(20),
          cache_creation_input_tokens: this.rng.int(3000),
          cache_read_input_tokens: 12000 + this.rng.int(40000),
          output_tokens: 20 + this.rng.int(600),
          service_tier: "standard",
        },
      },
      requestId: reqId,
    });
    const uuid = this.#push(o, 4_000);
    this.#lastAssistant = uuid;
    return uuid;
  }

  /** An assistant text answer (ends the turn). */
  say(text: string, ...labels: Label[]): string {
    const uuid = this.#assistantLine(
      this.#msgId(),
      { type: "text", text },
      "end_turn",
      "req_011C" + this.rng.chars(ALNUM, 20),
    );
    this.#applyLabels(uuid, text, labels);
    return uuid;
  }

  /** An assistant thinking block followed by text (two lines, one message). */
  thinkSay(thinking: string, text: string, ...labels: Label[]): string {
    const id = this.#msgId();
    const req = "req_011C" + this.rng.chars(ALNUM, 20);
    this.#assistantLine(
      id,
      {
        type: "thinking",
        thinking,
        signature: this.rng.chars(B64, 120),
      },
      null,
      req,
    );
    const uuid = this.#assistantLine(id, { type: "text", text }, "end_turn", req);
    this.#applyLabels(uuid, text, labels);
    return uuid;
  }

  /** Tool calls with their results (assistant tool_use, user tool_result). */
  tools(...steps: ToolStep[]): void {
    for (const s of steps) {
      const id = this.#msgId();
      const req = "req_011C" + this.rng.chars(ALNUM, 20);
      if (s.pre) this.#assistantLine(id, { type: "text", text: s.pre }, null, req);
      const toolId = "toolu_01" + this.rng.chars(ALNUM, 22);
      const au = this.#assistantLine(
        id,
        { type: "tool_use", id: toolId, name: s.name, input: s.input },
        "tool_use",
        req,
      );
      const result: Obj = { tool_use_id: toolId, type: "tool_result", content: s.result };
      if (s.error) result.is_error = true;
      const o = this.#base("user", {
        message: { role: "user", content: [result] },
        toolUseResult: toolUseResult(s),
      }, au);
      this.#push(o, 1_500);
    }
  }

  /** A tool call the user refused (the turn is interrupted). */
  rejectedTool(name: string, input: Record<string, unknown>): void {
    const id = this.#msgId();
    const toolId = "toolu_01" + this.rng.chars(ALNUM, 22);
    const au = this.#assistantLine(
      id,
      { type: "tool_use", id: toolId, name, input },
      "tool_use",
      "req_011C" + this.rng.chars(ALNUM, 20),
    );
    this.#push(
      this.#base("user", {
        message: {
          role: "user",
          content: [{
            type: "tool_result",
            content:
              "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
            is_error: true,
            tool_use_id: toolId,
          }],
        },
        toolUseResult: "User rejected tool use",
      }, au),
      3_000,
    );
    this.#push(
      this.#base("user", {
        message: {
          role: "user",
          content: [{ type: "text", text: "[Request interrupted by user for tool use]" }],
        },
      }),
      200,
    );
  }

  /** The user interrupted the assistant mid-answer (Esc). */
  interrupt(): void {
    this.#push(
      this.#base("user", {
        message: {
          role: "user",
          content: [{ type: "text", text: "[Request interrupted by user]" }],
        },
      }),
      2_000,
    );
  }

  /** A slash command as Claude Code records it (command line, caveat, stdout). */
  command(name: string, args = "", stdout = ""): void {
    this.#push(
      this.#base("user", {
        message: {
          role: "user",
          content:
            "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.",
        },
        isMeta: true,
      }),
      5_000,
    );
    this.#push(
      this.#base("user", {
        message: {
          role: "user",
          content:
            `<command-name>/${name}</command-name>\n            <command-message>${name}</command-message>\n            <command-args>${args}</command-args>`,
        },
      }),
      100,
    );
    this.#push(
      this.#base("user", {
        message: {
          role: "user",
          content: `<local-command-stdout>${stdout}</local-command-stdout>`,
        },
      }),
      100,
    );
  }

  /** A compaction: boundary, then the model's summary as a user message. Returns its uuid. */
  compact(summary: string, trigger: "manual" | "auto" = "auto"): string {
    const logical = this.#parent;
    this.#push(
      this.#base("system", {
        subtype: "compact_boundary",
        content: "Conversation compacted",
        isMeta: false,
        level: "info",
        logicalParentUuid: logical,
        compactMetadata: { trigger, preTokens: 150000 + this.rng.int(20000) },
      }, null),
      30_000,
    );
    const text =
      "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n" +
      summary +
      "\nPlease continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.";
    const uuid = this.#push(
      this.#base("user", {
        message: { role: "user", content: text },
        isVisibleInTranscriptOnly: true,
        isCompactSummary: true,
      }),
      200,
    );
    this.labels.not_durable.push({ uuid, why: "agent" });
    return uuid;
  }

  /** A `summary` line (Claude Code writes these at the top of a resumed session's file). */
  summaryLine(text: string): void {
    this.#head.push({ type: "summary", summary: text, leafUuid: "" });
  }

  /** A system notice line (e.g. a hook's output or an API error retry). */
  system(content: string, level = "info"): void {
    this.#push(this.#base("system", { content, isMeta: false, level }), 1_000);
  }

  /** The user confirms what the assistant said last: labels the assistant event. */
  confirm(text: string, kind: Kind, scope: "project" | "global", memory: string): string {
    const agent = this.#lastAssistant!;
    const uuid = this.user(text);
    this.labels.durable.push({
      uuid: agent,
      text: memory,
      kind,
      scope,
      confirmed_agent_text: true,
      confirmed_by: uuid,
    });
    return uuid;
  }

  get lastUser(): string | null {
    return this.#lastUser;
  }

  /** The JSONL text and the labels. */
  finish(): { jsonl: string; labels: SessionLabels } {
    const last = this.#parent;
    const head = this.#head.map((h) => ({ ...h, leafUuid: last }));
    const all = [...head, ...this.lines];
    this.labels.events = all.length;
    return { jsonl: all.map((l) => JSON.stringify(l)).join("\n") + "\n", labels: this.labels };
  }
}

function toolUseResult(s: ToolStep): unknown {
  if (s.error) return `Error: ${s.result}`;
  if (s.name === "Bash") {
    return { stdout: s.result, stderr: "", interrupted: false, isImage: false };
  }
  if (s.name === "Read") {
    const lines = s.result.split("\n");
    return {
      type: "text",
      file: {
        filePath: s.input.file_path,
        content: s.result,
        numLines: lines.length,
        startLine: 1,
        totalLines: lines.length,
      },
    };
  }
  if (s.name === "Edit") {
    return {
      filePath: s.input.file_path,
      oldString: s.input.old_string,
      newString: s.input.new_string,
      replaceAll: false,
      userModified: false,
    };
  }
  if (s.name === "Grep" || s.name === "Glob") {
    const files = s.result.split("\n").filter(Boolean);
    return { mode: "files_with_matches", filenames: files, numFiles: files.length };
  }
  return s.result;
}

/** Label helpers. */
export const D = (
  kind: Kind,
  scope: "project" | "global",
  text: string,
  more: { dup?: string; contra?: string; secret?: boolean } = {},
): Label => ({ d: kind, scope, text, ...more });
export const N = (why: Why): Label => ({ n: why });

/** Tool step helpers. */
export const bash = (command: string, result: string, pre?: string): ToolStep => ({
  name: "Bash",
  input: { command, description: describe(command) },
  result,
  pre,
});
export const bashErr = (command: string, result: string, pre?: string): ToolStep => ({
  name: "Bash",
  input: { command, description: describe(command) },
  result,
  error: true,
  pre,
});
export const read = (path: string, content: string, pre?: string): ToolStep => ({
  name: "Read",
  input: { file_path: path },
  result: content.split("\n").map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join("\n"),
  pre,
});
export const edit = (path: string, oldS: string, newS: string, pre?: string): ToolStep => ({
  name: "Edit",
  input: { file_path: path, old_string: oldS, new_string: newS },
  result:
    `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${
      newS.split("\n").map((l, i) => `${String(i + 10).padStart(6)}→${l}`).join("\n")
    }`,
  pre,
});
export const write = (path: string, content: string, pre?: string): ToolStep => ({
  name: "Write",
  input: { file_path: path, content },
  result: `File created successfully at: ${path}`,
  pre,
});
export const grep = (pattern: string, files: string[], pre?: string): ToolStep => ({
  name: "Grep",
  input: { pattern, output_mode: "files_with_matches" },
  result: files.length ? `Found ${files.length} files\n${files.join("\n")}` : "No files found",
  pre,
});
export const glob = (pattern: string, files: string[], pre?: string): ToolStep => ({
  name: "Glob",
  input: { pattern },
  result: files.join("\n") || "No files found",
  pre,
});
export const todo = (items: string[], pre?: string): ToolStep => ({
  name: "TodoWrite",
  input: {
    todos: items.map((c, i) => ({
      content: c,
      status: i === 0 ? "in_progress" : "pending",
      activeForm: c,
    })),
  },
  result:
    "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
  pre,
});

function describe(cmd: string): string {
  const first = cmd.split(/\s+/).slice(0, 3).join(" ");
  return `Run ${first}`;
}
