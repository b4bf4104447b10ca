/** The shared bootstrap module: loading (two list calls, merge) and rendering, in-process. */
import assert from "node:assert/strict";
import {
  BOOTSTRAP_SYSTEM,
  BOOTSTRAP_WARNING,
  bootstrapGroupOf,
  bootstrapSystem,
  estimateTokens,
  loadBootstrap,
  renderBootstrap,
} from "../../src/memory/bootstrap.ts";
import type { ListFilter, Memory, MemoryService, MemoryType } from "../../src/memory/types.ts";

let n = 0;
function mem(over: Partial<Memory> & { content: string }): Memory {
  n++;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    scope: "global",
    project: null,
    type: "bootstrap",
    tags: [],
    weight: 1,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    expires_at: null,
    supersedes: null,
    superseded_by: null,
    ...over,
  };
}

/** The `## Heading` sections of a rendered document, in order, with their bodies. */
function sections(md: string): { title: string; body: string }[] {
  const out: { title: string; body: string }[] = [];
  for (const part of md.split(/^## /m).slice(1)) {
    const nl = part.indexOf("\n");
    out.push({ title: part.slice(0, nl), body: part.slice(nl + 1).trim() });
  }
  return out;
}

Deno.test("estimateTokens is ceil(chars / 4)", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abc"), 1);
  assert.equal(estimateTokens("abcd"), 1);
  assert.equal(estimateTokens("abcde"), 2);
});

Deno.test("bootstrapGroupOf: type first, then the first matching tag, else Bootstrap", () => {
  assert.equal(bootstrapGroupOf(mem({ content: "x" })), "Bootstrap");
  assert.equal(bootstrapGroupOf(mem({ content: "x", tags: ["misc", "Rules"] })), "Rules");
  assert.equal(bootstrapGroupOf(mem({ content: "x", tags: ["decision", "rule"] })), "Decisions");
  assert.equal(bootstrapGroupOf(mem({ content: "x", tags: ["facts"] })), "Facts");
  assert.equal(bootstrapGroupOf(mem({ content: "x", tags: ["feedback"] })), "Feedback");
  assert.equal(bootstrapGroupOf(mem({ content: "x", tags: ["context"] })), "Context");
  const t = (type: MemoryType) => bootstrapGroupOf(mem({ content: "x", type, tags: ["rule"] }));
  assert.equal(t("fact"), "Facts");
  assert.equal(t("context"), "Context");
  assert.equal(t("feedback"), "Feedback");
});

Deno.test("renderBootstrap: System, groups in order, empty groups left out, stats", () => {
  const md = renderBootstrap([
    mem({ content: "ctx line", tags: ["context"] }),
    mem({ content: "plain bootstrap\nsecond line" }),
    mem({ content: "a rule", tags: ["rule"], scope: "project", project: "p" }),
    mem({ content: "a fact", tags: ["fact"] }),
  ], { project: "p", projectSource: "flag" });
  assert.ok(
    md.startsWith(
      "# Memory Bootstrap\n\n" + bootstrapSystem(["Bootstrap", "Rules", "Facts", "Context"]) +
        "\n\n",
    ),
  );
  assert.match(
    md,
    /\n- Follow the Rules below; Facts and Context describe the user and the project\.\n/,
  );
  const s = sections(md);
  assert.deepEqual(s.map((x) => x.title), [
    "System",
    "Bootstrap",
    "Rules",
    "Facts",
    "Context",
    "Bootstrap Stats",
  ]);
  assert.equal(s[1].body, "- plain bootstrap\n  second line");
  assert.equal(s[2].body, "- a rule");
  assert.equal(s[3].body, "- a fact");
  assert.equal(s[4].body, "- ctx line");
  const stats = s[5].body;
  assert.match(stats, /^- Project: p \(source: flag\)$/m);
  assert.match(stats, /^- Memories: 4 \(global 3, project 1\)$/m);
  assert.match(stats, /^- Groups: Bootstrap 1, Rules 1, Facts 1, Context 1$/m);
  const body = md.slice(0, md.indexOf("## Bootstrap Stats"));
  const tokens = estimateTokens(body.slice(0, -1));
  assert.match(stats, new RegExp(`^- Estimated tokens: ${tokens} \\(characters / 4\\)$`, "m"));
  assert.match(stats, new RegExp(`^- Budget: ${(tokens / 300).toFixed(1)}% of 30000$`, "m"));
  assert.ok(!md.includes(BOOTSTRAP_WARNING));
});

Deno.test("renderBootstrap: empty input renders System and Stats only", () => {
  const md = renderBootstrap([], { project: null, projectSource: "none" });
  assert.deepEqual(sections(md).map((x) => x.title), ["System", "Bootstrap Stats"]);
  assert.match(md, /- Project: \(none\) \(source: none\)/);
  assert.match(md, /- Memories: 0 \(global 0, project 0\)/);
  assert.match(md, /- Groups: \(none\)/);
});

Deno.test("renderBootstrap: warning at the budget, nothing truncated", () => {
  // Just under and just over 30000 tokens (120000 chars) of body.
  const fixed = renderBootstrap([mem({ content: "" })], { project: null, projectSource: "x" });
  const overhead = fixed.indexOf("## Bootstrap Stats") - 1;
  const under = "u".repeat(120_000 - overhead);
  const mdUnder = renderBootstrap([mem({ content: under })], { project: null, projectSource: "x" });
  assert.match(mdUnder, /Estimated tokens: 30000 /);
  assert.match(mdUnder, /Budget: 100\.0% of 30000/);
  assert.ok(!mdUnder.includes(BOOTSTRAP_WARNING));
  const over = under + "v";
  const mdOver = renderBootstrap([mem({ content: over })], { project: null, projectSource: "x" });
  assert.match(mdOver, /Estimated tokens: 30001 /);
  assert.ok(mdOver.includes(over), "content not truncated");
  const stats = sections(mdOver).at(-1)!;
  assert.equal(stats.title, "Bootstrap Stats");
  assert.ok(stats.body.endsWith("\n\n" + BOOTSTRAP_WARNING));
});

Deno.test("loadBootstrap: exactly the two list calls, merged by id, superseded left out", async () => {
  const a = mem({ content: "a" });
  const b = mem({ content: "b", scope: "project", project: "p" });
  const old = mem({ content: "old", superseded_by: a.id });
  const calls: ListFilter[] = [];
  const fake = {
    list(f: ListFilter) {
      calls.push(f);
      return Promise.resolve(f.scope === "global" ? [a, old] : [b, a]);
    },
  } as unknown as MemoryService;
  assert.deepEqual((await loadBootstrap(fake, "p")).map((m) => m.content), ["a", "b"]);
  assert.deepEqual(calls, [
    { scope: "global", type: "bootstrap", limit: 100 },
    { scope: "project", project: "p", type: "bootstrap", limit: 100 },
  ]);
  calls.length = 0;
  assert.deepEqual((await loadBootstrap(fake, null)).map((m) => m.content), ["a"]);
  assert.deepEqual(calls, [{ scope: "global", type: "bootstrap", limit: 100 }]);
});

Deno.test("renderBootstrap: the System section names only the sections present", () => {
  const facts = renderBootstrap([mem({ content: "a fact", tags: ["fact"] })], {
    project: null,
    projectSource: "none",
  });
  assert.doesNotMatch(facts, /Follow the Rules/, "no Rules section, no 'Follow the Rules'");
  assert.match(facts, /\n- Facts describe the user and the project\.\n/);
  const none = renderBootstrap([], { project: null, projectSource: "none" });
  assert.doesNotMatch(none, /Rules/);
  assert.match(none, /\n- No rules, feedback or facts are pinned to session start yet\.\n/);
  assert.match(BOOTSTRAP_SYSTEM, /Follow the Rules below; treat Feedback as corrections/);
});
