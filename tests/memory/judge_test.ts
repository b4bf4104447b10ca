/**
 * The judge's request and the strict reading of its answer (src/memory/judge.ts).
 */
import assert from "node:assert/strict";
import {
  JUDGE_MAX_CANDIDATES,
  JUDGE_MAX_NOTE_CHARS,
  JUDGE_MAX_PROMPT_CHARS,
  JUDGE_PROMPT,
  JudgeAnswerError,
  parseJudgeAnswer,
  renderJudgeRequest,
} from "../../src/memory/judge.ts";

const NOTES = [
  { type: "decision", content: "We deploy with Helm charts from deploy/charts." },
  { type: "preference", content: "Use pnpm,\nnever npm.\n\n  Lockfile is committed." },
  { type: "fact", content: "Staging database is Postgres 16." },
];

Deno.test("the request numbers the candidates in order, each on one line with its type", () => {
  const r = renderJudgeRequest("  how do I add a dependency?\n", "acme-web", NOTES);
  assert.equal(r.system, JUDGE_PROMPT);
  assert.equal(
    r.user,
    "Project: acme-web\n\n<message>\nhow do I add a dependency?\n</message>\n\n<notes>\n" +
      "1. [decision] We deploy with Helm charts from deploy/charts.\n" +
      "2. [preference] Use pnpm, never npm. Lockfile is committed.\n" +
      "3. [fact] Staging database is Postgres 16.\n</notes>\n",
  );
  assert.match(renderJudgeRequest("hi there", null, NOTES).user, /^Project: \(none\)\n/);
});

Deno.test("the instruction asks for strict JSON and allows none", () => {
  assert.match(JUDGE_PROMPT, /\{"use": \[\]\}/);
  assert.ok(JUDGE_PROMPT.length < 1600, `${JUDGE_PROMPT.length} characters: keep it short`);
});

Deno.test("secrets in the message and the notes never reach the model", () => {
  const key = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";
  const r = renderJudgeRequest(`my token ${key} fails`, "p", [
    { type: "fact", content: `CI token is ${key}` },
  ]);
  assert.ok(!r.user.includes(key), r.user);
  assert.match(r.user, /\[secret removed: [^\]]+\] fails/);
});

Deno.test("a long message and long notes are cut and marked", () => {
  const r = renderJudgeRequest("x".repeat(5000), "p", [{
    type: "fact",
    content: "y".repeat(5000),
  }]);
  assert.ok(r.user.includes("x".repeat(JUDGE_MAX_PROMPT_CHARS - 1) + "…\n</message>"));
  assert.ok(!r.user.includes("x".repeat(JUDGE_MAX_PROMPT_CHARS)));
  assert.ok(r.user.includes("1. [fact] " + "y".repeat(JUDGE_MAX_NOTE_CHARS - 1) + "…\n"));
  assert.ok(!r.user.includes("y".repeat(JUDGE_MAX_NOTE_CHARS)));
});

Deno.test("a request with no candidate, too many or no message is refused", () => {
  assert.throws(() => renderJudgeRequest("hello", "p", []), /candidates: none/);
  const many = Array.from({ length: JUDGE_MAX_CANDIDATES + 1 }, () => NOTES[0]);
  assert.throws(() => renderJudgeRequest("hello", "p", many), /candidates: 11, at most 10/);
  assert.throws(() => renderJudgeRequest("  \n ", "p", NOTES), /prompt: empty/);
});

Deno.test("an answer names the chosen notes: 0-based indices, ascending", () => {
  assert.deepEqual(parseJudgeAnswer('{"use": [3, 1]}', 3), [0, 2]);
  assert.deepEqual(parseJudgeAnswer('{"use": []}', 3), []);
  assert.deepEqual(parseJudgeAnswer('  {"use":[2]}\n', 2), [1]);
  assert.deepEqual(parseJudgeAnswer('```json\n{"use": [2]}\n```', 3), [1]);
  assert.deepEqual(parseJudgeAnswer('```\n{"use": [1]}\n```', 1), [0]);
});

Deno.test("a malformed answer is no judgement: an error naming what was wrong", () => {
  const bad: [string, RegExp][] = [
    ["", /empty/],
    ["Notes 1 and 2.", /not JSON: "Notes 1 and 2\."/],
    ['Sure! {"use": [1]}', /not JSON/],
    ['{"use": [1]} and also 2', /not JSON/],
    ['```json\n{"use": [1]}\n```\nNote 1 is about pnpm.', /not JSON/],
    ["[1, 2]", /not a JSON object/],
    ["null", /not a JSON object/],
    ['"all"', /not a JSON object/],
    ["{}", /no "use"/],
    ['{"use": "all"}', /"use" is not a list/],
    ['{"use": 1}', /"use" is not a list/],
    ['{"use": [1], "why": "pnpm"}', /unknown key "why"/],
    ['{"use": ["1"]}', /use\[0\]: "1" is not a whole number/],
    ['{"use": [1.5]}', /use\[0\]: 1.5 is not a whole number/],
    ['{"use": [null]}', /use\[0\]: null/],
    ['{"use": [0]}', /use\[0\]: 0 is not a note in 1..3/],
    ['{"use": [1, 4]}', /use\[1\]: 4 is not a note in 1..3/],
    ['{"use": [-1]}', /use\[0\]: -1/],
    ['{"use": [2, 2]}', /use\[1\]: 2 is named twice/],
  ];
  for (const [text, why] of bad) {
    assert.throws(() => parseJudgeAnswer(text, 3), (e: unknown) => {
      assert.ok(e instanceof JudgeAnswerError, `${text}: ${e}`);
      assert.match((e as Error).message, why, text);
      return true;
    });
  }
});

Deno.test("the number of candidates must be one a request can have", () => {
  assert.throws(() => parseJudgeAnswer('{"use": []}', 0), RangeError);
  assert.throws(() => parseJudgeAnswer('{"use": []}', 11), RangeError);
  assert.throws(() => parseJudgeAnswer('{"use": []}', 2.5), RangeError);
});
