/**
 * Produces the real transcripts of the capture benchmark: runs the real Claude Code CLI from
 * npm (the pinned version of tests/helpers/claude_code.ts) in print mode, one `claude -p`
 * per user turn (`--resume <session>` after the first), against the fake upstream
 * (tests/fakes/anthropic.ts behind `msgcli serve`, as tests/clients/claude_code_test.ts runs
 * it) scripted to answer each turn with the tool calls and text of its script
 * (tasks/capture_data/sessions_real.ts, and sessions_holdout_real.ts for the holdout split).
 * Claude Code executes the tool calls itself in a seeded project folder and writes its
 * transcript; this copies the transcript to bench/data/capture/real/<id>.jsonl and writes the
 * labels of the scripted user prompts (found in the transcript by their text) to
 * tasks/capture_data/real_labels.json.
 *
 *   deno run -A --lock=tests/deno.lock tasks/capture_real_sessions.ts [--only ID]
 *
 * Everything runs on loopback with a fresh HOME per session; nothing leaves the machine.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { basename, join } from "node:path";
import { startRig } from "../tests/serve/helpers.ts";
import { CLAUDE_CODE_VERSION, claudeCodeBin } from "../tests/helpers/claude_code.ts";
import type { ToolCall } from "../tests/fakes/anthropic.ts";
import {
  type Durable,
  fakeSecret,
  type Label,
  Rng,
  type SessionLabels,
} from "./capture_data/build.ts";
import { REAL, type RealScript } from "./capture_data/sessions_real.ts";
import { HOLDOUT_REAL } from "./capture_data/sessions_holdout_real.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    only: { type: "string" },
    out: { type: "string", default: "bench/data/capture" },
    root: { type: "string", default: "/tmp/mneme-capture-real" },
  },
});
const out = values.out!;
const root = values.root!;
const KEY = "capture-real-daemon-key-0123";

type Step = { tool: ToolCall } | { text: string };
let queue: Step[] = [];

function isMain(body: Record<string, unknown>): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

const rig = await startRig({
  args: ["--auth-key", KEY],
  fake: {
    toolUse: (body) => {
      if (!isMain(body)) return null;
      const head = queue[0];
      if (head && "tool" in head) {
        queue.shift();
        return head.tool;
      }
      return null;
    },
    reply: (body) => {
      if (!isMain(body)) return null;
      const head = queue.shift();
      if (head && "text" in head) return head.text;
      return "(the script has no more answers)";
    },
  },
});

async function sh(cwd: string, cmd: string[]): Promise<void> {
  const r = await new Deno.Command(cmd[0], {
    args: cmd.slice(1),
    cwd,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  if (!r.success) throw new Error(`${cmd.join(" ")}: ${new TextDecoder().decode(r.stderr)}`);
}

async function seed(script: RealScript): Promise<string> {
  const cwd = join(root, script.project);
  await Deno.remove(cwd, { recursive: true }).catch(() => {});
  await Deno.mkdir(cwd, { recursive: true });
  for (const [path, content] of Object.entries(script.files)) {
    const full = join(cwd, path);
    await Deno.mkdir(join(full, ".."), { recursive: true });
    await Deno.writeTextFile(full, content);
  }
  const git = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com"];
  await sh(cwd, ["git", "init", "-q", "-b", "main"]);
  await sh(cwd, ["git", "add", "-A"]);
  await sh(cwd, [...git, "commit", "-qm", "initial import"]);
  return cwd;
}

async function claude(args: string[], cwd: string, home: string) {
  const bin = await claudeCodeBin();
  const r = await new Deno.Command(bin, {
    args,
    cwd,
    clearEnv: true,
    env: {
      HOME: home,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      CI: "true",
      NO_COLOR: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      ANTHROPIC_BASE_URL: rig.url,
      ANTHROPIC_AUTH_TOKEN: KEY,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(180_000),
  }).output();
  const d = new TextDecoder();
  if (!r.success) {
    throw new Error(
      `claude ${args.join(" ")} failed:\n${d.decode(r.stdout)}\n${d.decode(r.stderr)}`,
    );
  }
  return JSON.parse(d.decode(r.stdout)) as { session_id: string; result: string };
}

type Obj = Record<string, unknown>;
function textOf(o: Obj): string {
  const c = (o.message as Obj | undefined)?.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.filter((b) => (b as Obj).type === "text").map((b) => String((b as Obj).text)).join("\n");
}

async function runOne(script: RealScript): Promise<SessionLabels> {
  const cwd = await seed(script);
  const home = await Deno.makeTempDir({ prefix: "mneme-capture-home-" });
  try {
    let sessionId = "";
    for (const [i, turn] of script.turns.entries()) {
      queue = [...turn.steps.map((s): Step => ("tool" in s ? s : { text: s.text }))];
      const args = [
        "-p",
        turn.prompt,
        "--output-format",
        "json",
        "--allowedTools",
        "Bash Read Edit Write Glob Grep",
      ];
      if (i > 0) args.push("--resume", sessionId);
      const r = await claude(args, cwd, home);
      if (i > 0 && r.session_id !== sessionId) {
        throw new Error(`${script.id}: --resume started session ${r.session_id}, not ${sessionId}`);
      }
      sessionId = r.session_id;
      if (queue.length) {
        throw new Error(`${script.id} turn ${i}: ${queue.length} scripted steps unused`);
      }
    }
    const dir = join(home, ".claude", "projects", cwd.replaceAll(/[^A-Za-z0-9]/g, "-"));
    const transcript = await Deno.readTextFile(join(dir, `${sessionId}.jsonl`));
    await Deno.mkdir(join(out, "real"), { recursive: true });
    const file = `real/${script.id}.jsonl`;
    await Deno.writeTextFile(join(out, file), transcript);
    return label(script, file, sessionId, cwd, transcript);
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

function label(
  script: RealScript,
  file: string,
  sessionId: string,
  cwd: string,
  transcript: string,
): SessionLabels {
  const evs = transcript.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Obj);
  const users = evs.filter((o) => o.type === "user" && !o.isMeta && typeof o.uuid === "string");
  const assistants = evs.filter((o) => o.type === "assistant");
  const L: SessionLabels = {
    file,
    session_id: sessionId,
    split: script.split,
    real: true,
    project: basename(cwd),
    cwd,
    style: script.style,
    stored: script.stored ?? [],
    durable: [],
    not_durable: [],
    secrets: [],
    secret_locations: [],
    private_texts: [],
    duplicates_of_stored: [],
    contradicts_stored: [],
    events: evs.length,
  };
  let lastFinal: string | null = null;
  for (const turn of script.turns) {
    const ev = users.find((o) => textOf(o) === turn.prompt);
    if (!ev) throw new Error(`${script.id}: prompt not found in the transcript: ${turn.prompt}`);
    const uuid = String(ev.uuid);
    apply(L, uuid, turn.labels);
    for (const s of turn.secrets ?? []) {
      if (!turn.prompt.includes(s)) throw new Error(`${script.id}: secret not in its prompt`);
      if (!L.secrets.includes(s)) L.secrets.push(s);
      L.secret_locations.push({ secret: s, uuid });
    }
    for (const m of turn.prompt.matchAll(/<private>([\s\S]*?)<\/private>/g)) {
      L.private_texts.push(m[1]);
    }
    if (turn.confirms) {
      if (!lastFinal) throw new Error(`${script.id}: nothing to confirm`);
      L.durable.push({
        uuid: lastFinal,
        ...turn.confirms,
        confirmed_agent_text: true,
        confirmed_by: uuid,
      });
    }
    const final = turn.steps.at(-1)!;
    if (!("text" in final)) throw new Error(`${script.id}: a turn must end with text`);
    const a = assistants.find((o) => textOf(o) === final.text);
    if (!a) throw new Error(`${script.id}: answer not found in the transcript: ${final.text}`);
    lastFinal = String(a.uuid);
    if (turn.answerLabels) apply(L, lastFinal, turn.answerLabels);
  }
  return L;
}

function apply(L: SessionLabels, uuid: string, labels: Label[]) {
  for (const l of labels) {
    if ("n" in l) {
      L.not_durable.push({ uuid, why: l.n });
      continue;
    }
    const d: Durable = { uuid, text: l.text, kind: l.d, scope: l.scope };
    if (l.dup) {
      d.duplicate_of = l.dup;
      L.duplicates_of_stored.push({ uuid, stored: l.dup });
    }
    if (l.contra) {
      d.contradicts = l.contra;
      L.contradicts_stored.push({ uuid, stored: l.contra, text: l.text });
    }
    if (l.secret) d.contains_secret = true;
    L.durable.push(d);
  }
}

const labelsPath = "tasks/capture_data/real_labels.json";
let existing: SessionLabels[] = [];
try {
  existing = JSON.parse(await Deno.readTextFile(labelsPath));
} catch (err) {
  if (!(err instanceof Deno.errors.NotFound)) throw err;
}
try {
  const chosen = [
    ...REAL(new Rng("real-secrets"), fakeSecret),
    ...HOLDOUT_REAL(new Rng("holdout-real-secrets"), fakeSecret),
  ].filter((s) => !values.only || s.id === values.only);
  for (const script of chosen) {
    const t0 = performance.now();
    const l = await runOne(script);
    existing = existing.filter((e) => e.file !== l.file);
    existing.push(l);
    existing.sort((a, b) => a.file.localeCompare(b.file));
    await Deno.writeTextFile(labelsPath, JSON.stringify(existing, null, 2) + "\n");
    console.log(
      `${script.id}: ${l.events} events, ${l.durable.length} durable, ${l.not_durable.length} not durable (${
        Math.round(performance.now() - t0)
      } ms, Claude Code ${CLAUDE_CODE_VERSION})`,
    );
  }
} finally {
  await rig.close();
}
