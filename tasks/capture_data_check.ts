/**
 * Checks the capture benchmark's data set (bench/data/capture/): every transcript line
 * parses and has the fields Claude Code writes, uuids are unique, every referenced uuid
 * exists, the labels point at the right kind of event, each listed secret is in the text of
 * the event it is claimed for (and in no label's memory text), verifies the FROZEN lists of
 * README.md, and prints counts. Not a scorer: it does not run an extractor. Exits 1 on the
 * first list of problems.
 *
 *   deno run -A tasks/capture_data_check.ts [bench/data/capture]
 *
 * @module
 */
import { basename, join } from "node:path";
import { type Split, SPLITS } from "./capture_data/build.ts";

const dir = Deno.args[0] ?? "bench/data/capture";
const KINDS = ["rule", "preference", "decision", "fact"];
const SCOPES = ["project", "global"];
const WHYS = ["request", "question", "one-off", "hypothesis", "agent", "private", "secret"];

const isSplit = (x: unknown): x is Split => SPLITS.includes(x as Split);

type Obj = Record<string, unknown>;
interface Ev {
  line: number;
  o: Obj;
}

const problems: string[] = [];
const bad = (where: string, msg: string) => problems.push(`${where}: ${msg}`);

/** The text a person or the model wrote in an event (tool results left out). */
function textOf(o: Obj): string {
  const m = o.message as Obj | undefined;
  if (!m) return typeof o.content === "string" ? o.content : "";
  const c = m.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.filter((b) => b && (b as Obj).type === "text").map((b) => String((b as Obj).text))
    .join("\n");
}

/** Whether the event is a user's own prompt (not a tool result, meta line or summary). */
function isUserPrompt(o: Obj): boolean {
  if (o.type !== "user" || o.isMeta || o.isCompactSummary) return false;
  const c = (o.message as Obj).content;
  if (typeof c === "string") return true;
  return Array.isArray(c) && c.some((b) => (b as Obj).type === "text");
}

const labels = JSON.parse(await Deno.readTextFile(join(dir, "labels.json")));
const sessions = labels.sessions as Obj[];
const allUuids = new Map<string, string>();
const counts = {
  sessions: 0,
  dev: 0,
  test: 0,
  holdout: 0,
  holdout2: 0,
  holdout3: 0,
  holdout4: 0,
  holdout5: 0,
  holdout6: 0,
  holdout7: 0,
  holdout8: 0,
  holdout9: 0,
  holdout10: 0,
  holdout11: 0,
  holdout12: 0,
  holdout13: 0,
  holdout14: 0,
  holdout15: 0,
  holdout16: 0,
  real: 0,
  lines: 0,
  long50: 0,
  withCompaction: 0,
  withSummaryLine: 0,
  withToolUse: 0,
  withInterrupt: 0,
  withCommand: 0,
  stringPrompts: 0,
  blockPrompts: 0,
  durable: 0,
  confirmed: 0,
  withSecretInside: 0,
  notDurable: 0,
  secrets: 0,
  secretSessions: 0,
  privateTexts: 0,
  duplicates: 0,
  contradictions: 0,
  withStored: 0,
};
const byKind: Record<string, number> = {};
const byScope: Record<string, number> = {};
const byWhy: Record<string, number> = {};
const bySplit: Record<string, { durable: number; notDurable: number; secrets: number }> = {};
const bySplitLabel: Record<string, Record<string, number>> = {};
for (const x of SPLITS) {
  bySplit[x] = { durable: 0, notDurable: 0, secrets: 0 };
  bySplitLabel[x] = {};
}
const tally = (split: unknown, key: string) => {
  const m = bySplitLabel[String(split)];
  if (m) m[key] = (m[key] ?? 0) + 1;
};
const projects: Record<string, number> = {};
const versions: Record<string, number> = {};

for (const s of sessions) {
  const file = String(s.file);
  const where = file;
  counts.sessions++;
  if (!isSplit(s.split)) {
    bad(where, `split must be one of ${SPLITS.join(", ")}`);
    continue;
  } else counts[s.split]++;
  if (s.real) counts.real++;
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, file));
  } catch (err) {
    bad(where, `cannot read: ${err}`);
    continue;
  }
  const evs: Ev[] = [];
  const byUuid = new Map<string, Obj>();
  const raw = text.split("\n");
  if (raw.at(-1) !== "") bad(where, "does not end with a newline");
  raw.forEach((l, i) => {
    if (l === "" && i === raw.length - 1) return;
    let o: unknown;
    try {
      o = JSON.parse(l);
    } catch {
      bad(`${where}:${i + 1}`, "not JSON");
      return;
    }
    if (!o || typeof o !== "object" || Array.isArray(o)) {
      bad(`${where}:${i + 1}`, "not a JSON object");
      return;
    }
    evs.push({ line: i + 1, o: o as Obj });
  });
  counts.lines += evs.length;
  if (evs.length >= 50) counts.long50++;
  const sid = String(s.session_id);
  let compaction = false, summaryLine = false, toolUse = false, interrupt = false, command = false;
  for (const { line, o } of evs) {
    const w = `${where}:${line}`;
    if (typeof o.type !== "string") bad(w, "no type");
    if (o.type === "summary") {
      summaryLine = true;
      if (typeof o.summary !== "string") bad(w, "summary without text");
      continue;
    }
    if (o.sessionId !== undefined && o.sessionId !== sid) {
      bad(w, `sessionId ${o.sessionId} is not ${sid}`);
    }
    if (typeof o.uuid !== "string") continue; // queue operations, snapshots, cost lines
    for (const f of ["parentUuid", "sessionId", "timestamp", "cwd", "isSidechain", "userType"]) {
      if (!(f in o)) bad(w, `no ${f}`);
    }
    if (typeof o.timestamp !== "string" || Number.isNaN(Date.parse(o.timestamp))) {
      bad(w, "timestamp is not ISO");
    }
    if (o.cwd !== s.cwd) bad(w, `cwd ${o.cwd} is not the session's ${s.cwd}`);
    if (allUuids.has(o.uuid)) bad(w, `uuid ${o.uuid} repeats (${allUuids.get(o.uuid)})`);
    allUuids.set(o.uuid, w);
    byUuid.set(o.uuid, o);
    if (typeof o.version === "string") versions[o.version] = (versions[o.version] ?? 0) + 1;
    if (o.type === "user" || o.type === "assistant") {
      const m = o.message as Obj | undefined;
      if (!m || m.role !== o.type) bad(w, `message.role must be ${o.type}`);
      else if (typeof m.content !== "string" && !Array.isArray(m.content)) {
        bad(w, "message.content must be a string or an array");
      }
      if (Array.isArray(m?.content)) {
        for (const b of m.content as Obj[]) {
          if (!b || typeof b.type !== "string") bad(w, "content block without type");
          if (b?.type === "tool_use") toolUse = true;
        }
      }
    }
    if (o.type === "system" && o.subtype === "compact_boundary") compaction = true;
    const t = textOf(o);
    if (o.type === "user" && t.startsWith("[Request interrupted by user")) interrupt = true;
    if (o.type === "user" && t.includes("<command-name>")) command = true;
    if (
      isUserPrompt(o) && !t.startsWith("[Request interrupted") && !t.includes("<command-") &&
      !t.includes("<local-command-")
    ) {
      if (typeof (o.message as Obj).content === "string") counts.stringPrompts++;
      else counts.blockPrompts++;
    }
  }
  for (const { line, o } of evs) {
    for (const f of ["parentUuid", "logicalParentUuid"]) {
      const p = o[f];
      if (typeof p === "string" && !byUuid.has(p)) bad(`${where}:${line}`, `${f} ${p} not found`);
    }
    if (o.type === "summary" && typeof o.leafUuid === "string" && !byUuid.has(o.leafUuid)) {
      bad(`${where}:${line}`, `leafUuid ${o.leafUuid} not found`);
    }
  }
  if (compaction) counts.withCompaction++;
  if (summaryLine) counts.withSummaryLine++;
  if (toolUse) counts.withToolUse++;
  if (interrupt) counts.withInterrupt++;
  if (command) counts.withCommand++;
  if (s.events !== evs.length) bad(where, `events says ${s.events}, file has ${evs.length}`);
  const project = basename(String(s.cwd));
  if (s.project !== project) bad(where, `project ${s.project} is not basename(cwd) ${project}`);
  projects[project] = (projects[project] ?? 0) + 1;

  // Labels.
  const stored = (s.stored ?? []) as string[];
  if (stored.length) counts.withStored++;
  const secrets = (s.secrets ?? []) as string[];
  const privates = (s.private_texts ?? []) as string[];
  const durable = (s.durable ?? []) as Obj[];
  const labelled = new Set<string>();
  for (const d of durable) {
    const u = String(d.uuid);
    const o = byUuid.get(u);
    const w = `${where} durable ${u}`;
    if (!o) {
      bad(w, "uuid not found");
      continue;
    }
    labelled.add(u);
    if (!KINDS.includes(String(d.kind))) bad(w, `kind ${d.kind}`);
    if (!SCOPES.includes(String(d.scope))) bad(w, `scope ${d.scope}`);
    if (typeof d.text !== "string" || d.text.trim() === "") bad(w, "empty text");
    for (const x of [...secrets, ...privates]) {
      if (String(d.text).includes(x)) bad(w, "memory text holds a secret or private text");
    }
    if (d.confirmed_agent_text) {
      counts.confirmed++;
      if (o.type !== "assistant") bad(w, "confirmed agent text must label an assistant event");
      const by = byUuid.get(String(d.confirmed_by));
      if (!by || !isUserPrompt(by)) bad(w, "confirmed_by must be a user prompt");
      else labelled.add(String(d.confirmed_by));
    } else if (!isUserPrompt(o)) bad(w, "durable statement must be a user prompt");
    if (d.contains_secret) {
      counts.withSecretInside++;
      const locs = (s.secret_locations as Obj[]).filter((l) => l.uuid === u);
      if (!locs.length) bad(w, "contains_secret but no secret located at this event");
    }
    if (d.duplicate_of !== undefined && !stored.includes(String(d.duplicate_of))) {
      bad(w, "duplicate_of is not in stored");
    }
    if (d.contradicts !== undefined && !stored.includes(String(d.contradicts))) {
      bad(w, "contradicts is not in stored");
    }
    counts.durable++;
    bySplit[String(s.split)].durable++;
    byKind[String(d.kind)] = (byKind[String(d.kind)] ?? 0) + 1;
    byScope[String(d.scope)] = (byScope[String(d.scope)] ?? 0) + 1;
    tally(s.split, `durable ${d.kind}`);
    tally(s.split, `scope ${d.scope}`);
  }
  for (const n of (s.not_durable ?? []) as Obj[]) {
    const u = String(n.uuid);
    const w = `${where} not_durable ${u}`;
    if (!byUuid.has(u)) bad(w, "uuid not found");
    if (!WHYS.includes(String(n.why))) bad(w, `why ${n.why}`);
    counts.notDurable++;
    bySplit[String(s.split)].notDurable++;
    byWhy[String(n.why)] = (byWhy[String(n.why)] ?? 0) + 1;
    tally(s.split, `not durable ${n.why}`);
    labelled.add(u);
  }
  // Every prompt a user typed is labelled (durable or not).
  for (const { o } of evs) {
    if (!isUserPrompt(o)) continue;
    const t = textOf(o);
    if (
      t.startsWith("[Request interrupted") || t.includes("<command-") ||
      t.includes("<local-command-")
    ) continue;
    if (!labelled.has(String(o.uuid))) {
      bad(`${where} ${o.uuid}`, `user prompt not labelled: ${t.slice(0, 60)}`);
    }
  }
  for (const loc of (s.secret_locations ?? []) as Obj[]) {
    const o = byUuid.get(String(loc.uuid));
    if (!o) bad(`${where} secret`, `uuid ${loc.uuid} not found`);
    else if (
      !textOf(o).includes(String(loc.secret)) &&
      !JSON.stringify(o).includes(JSON.stringify(String(loc.secret)).slice(1, -1))
    ) {
      bad(`${where} secret`, `event ${loc.uuid} does not contain the secret`);
    } else if (isUserPrompt(o) && !textOf(o).includes(String(loc.secret))) {
      bad(`${where} secret`, `the user text of ${loc.uuid} does not contain the secret`);
    }
    if (!secrets.includes(String(loc.secret))) bad(`${where} secret`, "located secret not listed");
  }
  for (const x of secrets) {
    if (!((s.secret_locations ?? []) as Obj[]).some((l) => l.secret === x)) {
      bad(`${where} secret`, "listed secret has no location");
    }
    if (!text.includes(JSON.stringify(x).slice(1, -1))) {
      bad(`${where} secret`, "secret not in the file");
    }
  }
  for (const p of privates) {
    if (!evs.some(({ o }) => isUserPrompt(o) && textOf(o).includes(`<private>${p}</private>`))) {
      bad(`${where} private`, "private text not found inside <private> in a user prompt");
    }
  }
  counts.secrets += secrets.length;
  bySplit[String(s.split)].secrets += secrets.length;
  if (secrets.length) counts.secretSessions++;
  counts.privateTexts += privates.length;
  for (const x of (s.duplicates_of_stored ?? []) as Obj[]) {
    counts.duplicates++;
    if (!durable.some((d) => d.uuid === x.uuid && d.duplicate_of === x.stored)) {
      bad(`${where} duplicates_of_stored`, "no matching durable label");
    }
  }
  for (const x of (s.contradicts_stored ?? []) as Obj[]) {
    counts.contradictions++;
    if (!durable.some((d) => d.uuid === x.uuid && d.contradicts === x.stored)) {
      bad(`${where} contradicts_stored`, "no matching durable label");
    }
  }
}

// Every transcript file is labelled.
for (const sub of ["sessions", "real"]) {
  try {
    for await (const e of Deno.readDir(join(dir, sub))) {
      if (!e.name.endsWith(".jsonl")) continue;
      if (!sessions.some((s) => s.file === `${sub}/${e.name}`)) {
        bad(`${sub}/${e.name}`, "not in labels.json");
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

// The FROZEN lists of README.md (sha256sum format), when there are any: every data file is
// listed and unchanged. Each split was frozen in its turn (dev and test on 2026-11-28, holdout,
// holdout2, then holdout3 and holdout4, then holdout5, then holdout6, then holdout7, then holdout8, then holdout9, then holdout10, then holdout11, then holdout12, then holdout13, then holdout14, then holdout15, then holdout16 on 2026-11-29), so labels.json is listed once per freeze: the earlier
// hash is that of labels.json without the sessions of the splits frozen later (the generator
// writes their bytes unchanged), the latest that of the whole file. A split written in parallel
// with another (holdout4 was written beside a holdout3) was frozen without it, so each freeze is
// also rebuilt with any one of its earlier splits left out.
let frozen = 0;
try {
  const readme = await Deno.readTextFile(join(dir, "README.md"));
  const listed: [string, string][] = [];
  for (const m of readme.matchAll(/^([0-9a-f]{64}) {2}(\S+)$/gm)) listed.push([m[2], m[1]]);
  if (listed.length) {
    const sha = async (bytes: Uint8Array<ArrayBuffer>) =>
      Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)))
        .map((b) => b.toString(16).padStart(2, "0")).join("");
    const names = new Set(listed.map(([f]) => f));
    const files = ["labels.json", ...sessions.map((s) => String(s.file))];
    for (const f of files) if (!names.has(f)) bad("README.md", `FROZEN list lacks ${f}`);
    // labels.json as each freeze wrote it: the splits frozen up to then.
    const labelVersions = new Map<string, string>();
    for (let i = 0; i < SPLITS.length; i++) {
      const upTo = SPLITS.slice(0, i + 1) as readonly string[];
      for (const without of [null, ...upTo.slice(0, i)]) {
        const keep = upTo.filter((x) => x !== without);
        const doc = { ...labels, sessions: sessions.filter((s) => keep.includes(String(s.split))) };
        const bytes = new TextEncoder().encode(JSON.stringify(doc, null, 2) + "\n");
        labelVersions.set(await sha(bytes), SPLITS[i]);
      }
    }
    const whole = await sha(await Deno.readFile(join(dir, "labels.json")));
    if (!listed.some(([f, h]) => f === "labels.json" && h === whole)) {
      bad("README.md", "labels.json changed since it was frozen (its hash is not listed)");
    }
    for (const [f, want] of listed) {
      if (f === "labels.json") {
        if (want === whole || labelVersions.has(want)) frozen++;
        else bad("README.md", `labels.json: the labels frozen as ${want.slice(0, 12)}… changed`);
        continue;
      }
      const bytes = await Deno.readFile(join(dir, f)).catch(() => null);
      if (!bytes) {
        bad("README.md", `FROZEN file ${f} is missing`);
        continue;
      }
      if (await sha(bytes) !== want) bad("README.md", `${f} changed since it was frozen`);
      else frozen++;
    }
  }
} catch (err) {
  if (!(err instanceof Deno.errors.NotFound)) throw err;
}

console.log("capture data set:", dir);
console.log(`frozen files verified: ${frozen}`);
console.table(counts);
console.log("durable by kind", byKind, "by scope", byScope);
console.log("not durable by why", byWhy);
console.log("by split", bySplit);
const labelRows: Record<string, Record<Split, number>> = {};
for (const k of [...new Set(SPLITS.flatMap((x) => Object.keys(bySplitLabel[x])))].sort()) {
  labelRows[k] = Object.fromEntries(SPLITS.map((x) => [x, bySplitLabel[x][k] ?? 0])) as Record<
    Split,
    number
  >;
}
console.table(labelRows);
console.log("sessions by project", projects);
console.log("event lines by Claude Code version", versions);
if (problems.length) {
  console.error(`${problems.length} problem(s):\n` + problems.slice(0, 50).join("\n"));
  Deno.exit(1);
}
console.log("OK");
