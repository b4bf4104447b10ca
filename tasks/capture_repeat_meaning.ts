/**
 * Repeats by meaning, measured (docs/capture.md, "0.22: repeats by meaning"): every seen
 * session is run through the pipeline with its stored memories (as bench:capture does), and each
 * proposal is compared with each stored memory of its session by the similarities the service
 * has: the dense sentence vector's cosine the search uses (the shipped SIF encoder), the search
 * confidence's coverage of the candidate by the stored memory and the reverse, the wording score
 * (`overlap` of dedupe.ts), and whether `updateReason` or a value of its own (a number, a path,
 * code, an identifier) tells a change. Prints the separations of repeats, changes and new
 * statements, and a second test for "repeat" chosen leave one split out. Frozen splits not run
 * yet (`UNRUN`) are left out.
 *
 *   deno task repeat-meaning:capture
 * @module
 */
import { join } from "node:path";
import { MemoryCaptureSink, runCapture } from "../src/capture/pipeline.ts";
import { overlap, saysOwn, updateReason } from "../src/capture/dedupe.ts";
import { builtinSif } from "../src/embed/sif.ts";
import { builtinWordVectors } from "../src/embed/words.ts";
import { dot } from "../src/embed/dense.ts";
import { profileQuery, signalsOf } from "../src/memory/confidence.ts";
import { runSessions } from "./capture_splits.ts";
import { ROOT, writeBenchResult } from "./entrypoints.ts";

const DATA = join(ROOT, "bench/data/capture");

const labelled = await runSessions(DATA);
const sif = await builtinSif();
const words = await builtinWordVectors();
const vec = new Map<string, Float32Array | null>();
function dense(a: string, b: string): number {
  for (const t of [a, b]) if (!vec.has(t)) vec.set(t, sif.vector(t));
  const va = vec.get(a), vb = vec.get(b);
  return va && vb ? dot(va, vb) : 0;
}
function coverage(query: string, content: string): number {
  return signalsOf(profileQuery(query, words), content, 0, words).coverage;
}
/** Values of a text: numbers, versions, paths, code, identifiers (lowercased). */
function values(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`]+)`/g)) out.add(m[1].toLowerCase());
  for (const m of text.matchAll(/[\w@.:/~-]+/g)) {
    const w = m[0].replace(/^[.:-]+|[.:-]+$/g, "");
    if (
      /\d/.test(w) || /[/~]/.test(w) || /\w\.\w/.test(w) || /_/.test(w) ||
      /[a-z][A-Z]/.test(w)
    ) out.add(w.toLowerCase());
  }
  return [...out];
}
function newValue(c: string, m: string): boolean {
  const have = m.toLowerCase();
  return values(c).some((v) => !have.includes(v));
}

type Kind = "repeat" | "change" | "new" | "junk";
interface Pair {
  stored: string;
  dense: number;
  covCandidate: number;
  covStored: number;
  wording: number;
  change: string | null;
  newValue: boolean;
  /** {@link saysOwn}: a clause, an exclusion or a "use X" of its own. */
  own: boolean;
}
interface Row {
  split: string;
  kind: Kind;
  text: string;
  /** The stored memory the label names (a repeat's or a change's), or the nearest. */
  labelled?: string;
  pairs: Pair[];
}
const rows: Row[] = [];
let sessions = 0;
for (const s of labelled) {
  sessions++;
  const sink = new MemoryCaptureSink(s.stored.map((text) => ({ text, project: s.project })));
  await runCapture(
    { sessionId: s.session_id, transcriptPath: join(DATA, s.file), cwd: s.cwd, event: "Stop" },
    sink,
    { project: () => Promise.resolve(s.project) },
  );
  if (!s.stored.length) continue;
  const repeatOf = new Map<string, string>([
    ...s.duplicates_of_stored.map((d) => [d.uuid, d.stored] as [string, string]),
    ...s.durable.filter((d) => d.duplicate_of).map((d) =>
      [d.uuid, d.duplicate_of!] as [
        string,
        string,
      ]
    ),
  ]);
  const open = s.durable.filter((d) => !d.duplicate_of);
  for (const p of sink.proposals) {
    const cands = open.map((d, i) => ({ d, i })).filter(({ d }) => d.uuid === p.provenance.uuid);
    let kind: Kind = "junk";
    let labelled: string | undefined;
    if (cands.length) {
      cands.sort((a, b) => overlap(p.text, b.d.text) - overlap(p.text, a.d.text));
      const d = cands[0].d;
      open.splice(cands[0].i, 1);
      kind = d.contradicts ? "change" : "new";
      labelled = d.contradicts;
    } else if (repeatOf.has(p.provenance.uuid)) {
      kind = "repeat";
      labelled = repeatOf.get(p.provenance.uuid);
    }
    const pairs = s.stored.map((m) => ({
      stored: m,
      dense: dense(p.text, m),
      covCandidate: coverage(p.text, m),
      covStored: coverage(m, p.text),
      wording: overlap(p.text, m),
      change: updateReason(p.text, m) ?? null,
      newValue: newValue(p.text, m),
      own: saysOwn(p.text, m),
    }));
    rows.push({ split: s.split, kind, text: p.text, labelled, pairs });
  }
}

const f3 = (x: number) => x.toFixed(2);
/** The pair a row is judged by: the labelled stored memory, else the densest. */
function pairOf(r: Row): Pair {
  const l = r.labelled && r.pairs.find((p) => p.stored === r.labelled);
  return l || [...r.pairs].sort((a, b) => b.dense - a.dense)[0];
}
console.log(
  `seen sessions: ${sessions}; proposals on sessions with stored memories: ${rows.length}`,
);
for (const k of ["repeat", "change", "new", "junk"] as Kind[]) {
  console.log(`  ${k}: ${rows.filter((r) => r.kind === k).length}`);
}
console.log("\nThe repeats proposed and the stored memory each repeats:");
console.log(
  "split | dense | cov c by m | cov m by c | wording | change test | own value | own clause | text | stored",
);
for (const r of rows.filter((r) => r.kind === "repeat")) {
  const p = pairOf(r);
  console.log(
    [
      r.split,
      f3(p.dense),
      f3(p.covCandidate),
      f3(p.covStored),
      f3(p.wording),
      p.change ?? "-",
      p.newValue ? "yes" : "no",
      p.own ? "yes" : "no",
      JSON.stringify(r.text),
      JSON.stringify(p.stored),
    ].join(" | "),
  );
}
const closeNew = (r: Row) => r.kind === "new" && pairOf(r).dense >= 0.5;
console.log("\nChanges, and new statements with a close stored memory (dense >= 0.5):");
for (const r of rows.filter((r) => r.kind === "change" || closeNew(r))) {
  const p = pairOf(r);
  console.log(
    [
      r.split,
      r.kind,
      f3(p.dense),
      f3(p.covCandidate),
      f3(p.covStored),
      f3(p.wording),
      p.change ?? "-",
      p.newValue ? "yes" : "no",
      p.own ? "yes" : "no",
      JSON.stringify(r.text),
      JSON.stringify(p.stored),
    ]
      .join(" | "),
  );
}

function quantiles(xs: number[]): string {
  if (!xs.length) return "-";
  const s = [...xs].sort((a, b) => a - b);
  const q = (f: number) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  return `min ${f3(s[0])} q25 ${f3(q(0.25))} med ${f3(q(0.5))} q75 ${f3(q(0.75))} max ${
    f3(s[s.length - 1])
  }`;
}
console.log("\nSeparations (each row against its labelled / nearest stored memory):");
const feats: (keyof Pair)[] = ["dense", "covCandidate", "covStored", "wording"];
const separations: Record<string, Record<string, string>> = {};
for (const k of ["repeat", "change", "new"] as Kind[]) {
  separations[k] = {};
  for (const f of feats) {
    separations[k][f] = quantiles(
      rows.filter((r) => r.kind === k).map((r) => pairOf(r)[f] as number),
    );
    console.log(`${k.padEnd(7)} ${String(f).padEnd(13)} ${separations[k][f]}`);
  }
  const n = rows.filter((r) => r.kind === k);
  console.log(
    `${k.padEnd(7)} change test fires ${
      n.filter((r) => pairOf(r).change).length
    } of ${n.length}, own value ${n.filter((r) => pairOf(r).newValue).length}, own clause ${
      n.filter((r) => pairOf(r).own).length
    }, none of the three ${
      n.filter((r) => !pairOf(r).change && !pairOf(r).newValue && !pairOf(r).own).length
    }`,
  );
}

const STEPS = Array.from({ length: 29 }, (_, i) => Math.round((0.3 + i * 0.025) * 1000) / 1000);
const GRID = STEPS.map((t) => [t]);
const GRID2 = STEPS.flatMap((a) => [0.2, 0.3, 0.4, 0.5, 0.6, 0.7].map((b) => [a, b]));
console.log("\nThe same, of those no change test, value or clause of its own sets apart:");
const clean = (r: Row) => !pairOf(r).change && !pairOf(r).newValue && !pairOf(r).own;
for (const k of ["repeat", "change", "new"] as Kind[]) {
  separations[`${k}, none of the three`] = {};
  for (const f of feats) {
    const q = quantiles(
      rows.filter((r) => r.kind === k && clean(r)).map((r) => pairOf(r)[f] as number),
    );
    separations[`${k}, none of the three`][f] = q;
    console.log(`${k.padEnd(7)} ${String(f).padEnd(13)} ${q}`);
  }
}
for (const r of rows.filter((r) => r.kind !== "junk" && clean(r))) {
  const p = pairOf(r);
  console.log(
    [
      r.split,
      r.kind,
      f3(p.dense),
      f3(p.covCandidate),
      f3(p.covStored),
      f3(p.wording),
      JSON.stringify(r.text),
      JSON.stringify(p.stored),
    ].join(" | "),
  );
}

/** A second test for "repeat": fires when some stored memory of the session passes. */
type Test = { name: string; grid: number[][]; pass: (p: Pair, t: number[]) => boolean };
const tests: Test[] = [
  { name: "dense>=t, no own value", grid: GRID, pass: (p, [t]) => p.dense >= t && !p.newValue },
  {
    name: "dense>=t, no own value, no change test",
    grid: GRID,
    pass: (p, [t]) => p.dense >= t && !p.newValue && !p.change,
  },
  {
    name: "coverage both ways>=t, no own value",
    grid: GRID,
    pass: (p, [t]) => Math.min(p.covCandidate, p.covStored) >= t && !p.newValue,
  },
  {
    name: "coverage both ways>=t, no own value, no change test",
    grid: GRID,
    pass: (p, [t]) => Math.min(p.covCandidate, p.covStored) >= t && !p.newValue && !p.change,
  },
  {
    name: "dense>=t, no own value, no change test, no own clause",
    grid: GRID,
    pass: (p, [t]) => p.dense >= t && !p.newValue && !p.change && !p.own,
  },
  {
    name: "coverage both ways>=t, no own value, no change test, no own clause",
    grid: GRID,
    pass: (p, [t]) =>
      Math.min(p.covCandidate, p.covStored) >= t && !p.newValue && !p.change && !p.own,
  },
  {
    name: "dense>=t1 and coverage both ways>=t2, no own value, no change test, no own clause",
    grid: GRID2,
    pass: (p, [a, b]) =>
      p.dense >= a && Math.min(p.covCandidate, p.covStored) >= b && !p.newValue && !p.change &&
      !p.own,
  },
  {
    name: "dense>=t1 and coverage both ways>=t2, no own value, no change test",
    grid: GRID2,
    pass: (p, [a, b]) =>
      p.dense >= a && Math.min(p.covCandidate, p.covStored) >= b && !p.newValue && !p.change,
  },
];
const splits = [...new Set(rows.filter((r) => r.kind === "repeat").map((r) => r.split))];
const allSplits = [...new Set(rows.map((r) => r.split))];
function count(rs: Row[], test: Test, t: number[]) {
  const hit = rs.filter((r) => r.pairs.some((p) => test.pass(p, t)));
  const n = (k: Kind) => hit.filter((r) => r.kind === k).length;
  return { repeats: n("repeat"), changes: n("change"), new: n("new"), junk: n("junk") };
}
const loso: Record<string, unknown> = {};
for (const test of tests) {
  console.log(
    `\n${test.name}: leave one split out (threshold: most repeats, no change or new lost)`,
  );
  const folds = [];
  let caught = 0, lost = 0, repeats = 0;
  for (const held of allSplits) {
    const train = rows.filter((r) => r.split !== held);
    // The most repeats with no change or new statement lost; of the settings that tie, the
    // middle one (by the grid's order).
    let most = -1;
    let ties: number[][] = [[1.01, 1.01]];
    for (const t of test.grid) {
      const c = count(train, test, t);
      if (c.changes + c.new > 0) continue;
      if (c.repeats > most) [most, ties] = [c.repeats, [t]];
      else if (c.repeats === most) ties.push(t);
    }
    const best = { t: ties[Math.floor(ties.length / 2)] };
    const c = count(rows.filter((r) => r.split === held), test, best.t);
    const nRep = rows.filter((r) => r.split === held && r.kind === "repeat").length;
    caught += c.repeats;
    lost += c.changes + c.new;
    repeats += nRep;
    folds.push({ held, t: best.t, ...c, repeatsProposed: nRep });
    console.log(
      `  ${held.padEnd(10)} t=${
        best.t.map(f3).join("/")
      } repeats caught ${c.repeats} of ${nRep}, changes lost ${c.changes}, new lost ${c.new}, junk ${c.junk}`,
    );
  }
  console.log(`  pooled: repeats caught ${caught} of ${repeats}, changes+new lost ${lost}`);
  const curve = test.grid.filter((_, i) => i % 4 === 0).map((t) => ({
    t: t.join("/"),
    ...count(rows, test, t),
  }));
  for (const c of curve) {
    console.log(
      `  all, t=${c.t}: repeats ${c.repeats}, changes ${c.changes}, new ${c.new}, junk ${c.junk}`,
    );
  }
  loso[test.name] = { folds, caught, lost, repeats, curve };
}
void splits;
await writeBenchResult("capture-repeat-meaning", {
  sessions,
  proposals: rows.length,
  separations,
  loso,
  rows: rows.filter((r) => r.kind !== "junk" && (r.kind !== "new" || closeNew(r))).map((r) => ({
    split: r.split,
    kind: r.kind,
    text: r.text,
    ...pairOf(r),
  })),
});
