/**
 * A report on the agent's work, measured (docs/capture.md, "0.22: a report on the agent's
 * work"): every seen session is run through the pipeline with its stored memories (as
 * bench:capture does), and each proposal whose sentence reports on what the agent just did ("the
 * X you added uses …", "you wrote X …", "your X uses …") is listed with its split and label
 * (right, a repeat of a stored memory, junk), with whether a rule is said in the same sentence
 * ("…, never do that again", "we always …"). The user's sentences of that form are counted too,
 * proposed or not, with their message's label. Frozen splits not run yet (`UNRUN`) are left out.
 *
 *   deno task work-report:capture
 * @module
 */
import { join } from "node:path";
import { MemoryCaptureSink, runCapture } from "../src/capture/pipeline.ts";
import { overlap } from "../src/capture/dedupe.ts";
import { readTranscript } from "../src/capture/transcript.ts";
import { sentences } from "../src/capture/sentences.ts";
import { runSessions, UNRUN } from "./capture_splits.ts";
import { ROOT, writeBenchResult } from "./entrypoints.ts";

const DATA = join(ROOT, "bench/data/capture");

/** What the agent did: the verbs a report on its work uses. */
const DID =
  "(?:added|made|wrote|written|generated|put|created|used|built|set up|introduced|picked|chose|went with|scaffolded|declared|defined|imported|installed|copied|pasted|committed|pushed)";
/** A sentence that reports on the agent's work: "the X you added", "you wrote X", "your X uses". */
const REPORTS_WORK = new RegExp(
  [
    `\\b(?:the|that|this|those|these)\\b[^;!?]{0,60}?\\byou(?:'ve| have| just)? ${DID}\\b`,
    `(?:^|[.;!?] )\\s*you(?:'ve| have| just)? ${DID}\\b`,
    `\\byour \\w+(?: \\w+)? (?:uses|is using|has|calls|imports|does)\\b`,
  ].join("|"),
  "i",
);
/** A rule said in the same sentence. */
const SAYS_RULE =
  /\b(?:never|always|do(?:n't| not)|must(?:n't| not)?|we (?:always|never|use|don't)|no more|again)\b/i;

const sessions = await runSessions(DATA);

type Kind = "right" | "repeat" | "junk";
const proposals: { split: string; file: string; kind: Kind; text: string; rule: boolean }[] = [];
const said: { split: string; file: string; label: string; text: string; proposed: boolean }[] = [];
const perSplit = new Map<string, Record<Kind, number> & { all: number }>();
for (const s of sessions) {
  const sink = new MemoryCaptureSink(s.stored.map((text) => ({ text, project: s.project })));
  const path = join(DATA, s.file);
  await runCapture(
    { sessionId: s.session_id, transcriptPath: path, cwd: s.cwd, event: "Stop" },
    sink,
    { project: () => Promise.resolve(s.project) },
  );
  const dup = new Set([
    ...s.duplicates_of_stored.map((d) => d.uuid),
    ...s.durable.filter((d) => d.duplicate_of).map((d) => d.uuid),
  ]);
  const open = s.durable.filter((d) => !d.duplicate_of);
  const row = perSplit.get(s.split) ?? { right: 0, repeat: 0, junk: 0, all: 0 };
  perSplit.set(s.split, row);
  const proposed = new Set<string>();
  for (const p of sink.proposals) {
    const uuid = p.provenance.uuid;
    const cands = open.map((d, i) => ({ d, i })).filter(({ d }) => d.uuid === uuid);
    let kind: Kind = "junk";
    if (cands.length) {
      cands.sort((a, b) => overlap(p.text, b.d.text) - overlap(p.text, a.d.text));
      open.splice(cands[0].i, 1);
      kind = "right";
    } else if (dup.has(uuid)) kind = "repeat";
    row.all++;
    if (!REPORTS_WORK.test(p.text)) continue;
    proposed.add(p.text);
    row[kind]++;
    proposals.push({
      split: s.split,
      file: s.file,
      kind,
      text: p.text,
      rule: SAYS_RULE.test(p.text),
    });
  }
  const label = new Map<string, string>();
  for (const d of s.durable) label.set(d.uuid, d.duplicate_of ? "repeat" : "durable");
  for (const d of s.duplicates_of_stored) if (!label.has(d.uuid)) label.set(d.uuid, "repeat");
  for (const n of s.not_durable) if (!label.has(n.uuid)) label.set(n.uuid, n.why);
  const { turns } = await readTranscript(path, null);
  for (const t of turns) {
    if (t.role !== "user") continue;
    for (const sentence of sentences(t.text)) {
      if (!REPORTS_WORK.test(sentence)) continue;
      said.push({
        split: s.split,
        file: s.file,
        label: label.get(t.uuid) ?? "unlabelled",
        text: sentence,
        proposed: [...proposed].some((p) => {
          const [a, b] = [p.toLowerCase(), sentence.toLowerCase()];
          return a.includes(b) || b.includes(a);
        }),
      });
    }
  }
}

console.log(`${sessions.length} sessions (every split but ${UNRUN.join(", ")})\n`);
console.log("| split | proposed | reports on the agent's work: right / repeat / junk |");
console.log("| --- | --- | --- |");
const total = { right: 0, repeat: 0, junk: 0, all: 0 };
for (const [split, r] of perSplit) {
  console.log(`| ${split} | ${r.all} | ${r.right} / ${r.repeat} / ${r.junk} |`);
  for (const k of ["right", "repeat", "junk", "all"] as const) total[k] += r[k];
}
console.log(`| pooled | ${total.all} | ${total.right} / ${total.repeat} / ${total.junk} |`);
console.log("\nproposed:");
for (const p of proposals) {
  console.log(`  [${p.split}/${p.kind}${p.rule ? "/rule in it" : ""}] ${p.text}`);
}
console.log("\nthe user's sentences of that form (the label is their message's):");
for (const x of said) {
  console.log(`  [${x.split}/${x.label}${x.proposed ? "/proposed" : ""}] ${x.text}`);
}
await writeBenchResult("capture-work-report", {
  sessions: sessions.length,
  left_out: UNRUN,
  per_split: Object.fromEntries(perSplit),
  pooled: total,
  proposals,
  said,
});
