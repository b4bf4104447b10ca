/**
 * Capture's model path against the fakes of each protocol (Messages API with an API key and
 * with the subscription through msgcli's client, OpenAI-compatible chat completions, Ollama's
 * chat), replaying model answers: strict validation, secrets never sent, budgets enforced
 * from the answers' usage.
 */
import assert from "node:assert/strict";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { startFakeOpenAI } from "../fakes/openai.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import {
  anthropicCall,
  CAPTURE_PROMPT,
  type ModelCall,
  modelExtractor,
  type ModelStats,
  ollamaCall,
  openaiCall,
  parseModelAnswer,
  TokenBudget,
} from "../../src/capture/model.ts";
import { captureModelCall, captureModelConfig } from "../../src/capture/config.ts";
import type { Turn } from "../../src/capture/transcript.ts";
import { seedCredentials } from "../msg/helpers.ts";

const turns: Turn[] = [
  {
    role: "user",
    text: "we use pnpm here, the token is ghp_DQiwUV1PcsqlQcljoo0bFjCPqxx0HP4A733z",
    uuid: "e1",
    timestamp: "t1",
    sessionId: "s1",
  },
  { role: "assistant", text: "Noted.", uuid: "e2", timestamp: "t2", sessionId: "s1" },
];
const ANSWER = JSON.stringify({
  memories: [
    {
      text: "Use pnpm in this project",
      type: "rule",
      scope: "project",
      confidence: 0.9,
      source: "m1",
    },
    { text: "bad type", type: "opinion", scope: "project", confidence: 0.9, source: "m1" },
    { text: "Unknown source here", type: "fact", scope: "project", confidence: 0.5, source: "m9" },
    {
      text: "Confidence out of range",
      type: "fact",
      scope: "project",
      confidence: 2,
      source: "m1",
    },
    "not an object",
    {
      text: "The agent's own claim",
      type: "fact",
      scope: "project",
      confidence: 0.9,
      source: "m2",
    },
  ],
});

/** The user message the model got (the last recorded request's). */
function assertSent(user: string) {
  assert.ok(!user.includes("ghp_DQiw"), "secrets are replaced before the model sees them");
  assert.match(user, /\[m1\] USER: we use pnpm here/);
  assert.match(user, /\[secret removed: secretlint:github\]/);
}

async function extractWith(call: ModelCall) {
  const stats: ModelStats = { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
  const budget = new TokenBudget(20_000, 200_000);
  const c = await modelExtractor(call, budget, { stats })(turns, { sessionId: "s1" });
  return { c, stats, budget };
}

function assertExtracted(r: Awaited<ReturnType<typeof extractWith>>) {
  assert.equal(r.c.length, 1);
  assert.deepEqual(
    { text: r.c[0].text, type: r.c[0].type, scope: r.c[0].scope, uuid: r.c[0].provenance.uuid },
    { text: "Use pnpm in this project", type: "rule", scope: "project", uuid: "e1" },
  );
  assert.equal(r.stats.dropped, 5, "the malformed items and the unconfirmed agent's are dropped");
  assert.equal(r.stats.calls, 1);
  assert.ok(r.stats.tokens > 100, `tokens from usage: ${r.stats.tokens}`);
  assert.equal(r.budget.report("s1").sessionUsed, r.stats.tokens);
}

Deno.test("anthropic (API key): the prompt, the answer validated, tokens from usage", async () => {
  const fake = startFakeAnthropic({
    apiKeys: ["sk-ant-api-test"],
    reply: () => ANSWER,
    usageFromBody: true,
  });
  try {
    const r = await extractWith(
      anthropicCall({ baseUrl: fake.url, apiKey: "sk-ant-api-test", model: "claude-haiku-4-5" }),
    );
    assertExtracted(r);
    const req = fake.requestsTo("/v1/messages")[0].json as {
      system: string;
      messages: { content: string }[];
    };
    assert.equal(req.system, CAPTURE_PROMPT);
    assertSent(req.messages[0].content);
    await assert.rejects(
      anthropicCall({ baseUrl: fake.url, apiKey: "wrong", model: "m" })("s", "u", 10),
      /HTTP 401/,
    );
  } finally {
    await fake.close();
  }
});

Deno.test("subscription: msgcli's client, credentials and OAuth exactly as msgcli uses them", async () => {
  const fake = startFakeAnthropic({ reply: () => ANSWER, usageFromBody: true });
  try {
    const dir = await Deno.makeTempDir({ prefix: "capture-sub-" });
    const credsPath = `${dir}/credentials.json`;
    await seedCredentials(fake, credsPath);
    const env: Record<string, string> = {
      ...fake.env,
      MSGCLI_CREDENTIALS_PATH: credsPath,
      CAPTURE_MODEL_PROVIDER: "subscription",
    };
    const get = (n: string) => env[n];
    const made = captureModelCall(captureModelConfig(get), get)!;
    try {
      assertExtracted(await extractWith(made.call));
    } finally {
      made.close();
    }
    const up = fake.requestsTo("/v1/messages")[0];
    assert.match(up.headers.authorization, /^Bearer sk-ant-oat01-/);
    assert.match(up.headers["anthropic-beta"], /oauth-2025-04-20/);
    await Deno.remove(dir, { recursive: true });
  } finally {
    await fake.close();
  }
});

Deno.test("openai-compatible and ollama: the same answer, the same validation", async () => {
  const oa = startFakeOpenAI({ chat: () => ANSWER });
  const ol = startFakeOllama({ "llama3.2": 0 }, { chat: () => "```json\n" + ANSWER + "\n```" });
  try {
    assertExtracted(
      await extractWith(openaiCall({ baseUrl: oa.url, apiKey: "sk-test", model: "gpt-4o-mini" })),
    );
    assertSent(
      (oa.requests.at(-1)!.body as { messages: { content: string }[] }).messages[1].content,
    );
    assertExtracted(await extractWith(ollamaCall({ baseUrl: ol.url, model: "llama3.2" })));
    assert.equal((ol.requests.at(-1)!.body as { format: string }).format, "json");
  } finally {
    await oa.close();
    await ol.close();
  }
});

Deno.test("the budgets: a call that could exceed one is not made; the offline extractor runs", async () => {
  let calls = 0;
  const call: ModelCall = () => {
    calls++;
    return Promise.resolve({ text: '{"memories": []}', inputTokens: 900, outputTokens: 100 });
  };
  const stats: ModelStats = { calls: 0, tokens: 0, dropped: 0, fallbacks: 0 };
  // Session budget: 3500 tokens; each call estimates about 1.1k (the prompt, the turns, the
  // output cap) and is charged 1k from its usage.
  const budget = new TokenBudget(3500, 1_000_000);
  const ex = modelExtractor(call, budget, { stats, maxOutputTokens: 500 });
  const t: Turn[] = [{
    role: "user",
    // A rule the scorer proposes (a bare "always use `pnpm`" is under its threshold since 0.18).
    text: "from now on always use `pnpm`, not npm, in this repo",
    uuid: "u",
    timestamp: "",
    sessionId: "s",
  }];
  for (let i = 0; i < 5; i++) await ex(t, { sessionId: "s" });
  assert.equal(calls, 3);
  assert.equal(budget.report("s").sessionUsed, 3000);
  assert.equal(budget.report().skipped, 2);
  const fallback = await ex(t, { sessionId: "s" });
  assert.equal(fallback.length, 1, "the offline extractor's candidate");
  // The daily budget counts every session and starts again the next day.
  let now = Date.parse("2026-11-28T23:00:00Z");
  const day = new TokenBudget(1_000_000, 4000, () => now);
  const ex2 = modelExtractor(call, day, { maxOutputTokens: 500 });
  for (const s of ["a", "b", "c"]) await ex2(t, { sessionId: s });
  assert.equal(day.report().dayUsed, 3000);
  now += 2 * 3600_000;
  await ex2(t, { sessionId: "d" });
  assert.equal(day.report().dayUsed, 1000);
});

Deno.test("parseModelAnswer: the agent's statement counts when the user's next message confirms it", () => {
  const t: Turn[] = [
    {
      role: "assistant",
      text: "So prod deploys happen on Tuesdays only. Right?",
      uuid: "a1",
      timestamp: "",
      sessionId: "s",
    },
    { role: "user", text: "yes, exactly", uuid: "u1", timestamp: "", sessionId: "s" },
  ];
  const item = (source: string) =>
    JSON.stringify({
      memories: [{
        text: "Prod deploys happen on Tuesdays only",
        type: "rule",
        scope: "project",
        confidence: 0.8,
        source,
      }],
    });
  const src = new Map([["m1", t[0]], ["m2", t[1]]]);
  assert.equal(parseModelAnswer(item("m1"), src).candidates.length, 1);
  const denied = new Map([["m1", t[0]], ["m2", { ...t[1], text: "no, Thursdays" }]]);
  assert.equal(parseModelAnswer(item("m1"), denied).candidates.length, 0);
});

Deno.test("parseModelAnswer: not JSON, no memories array: nothing", () => {
  const src = new Map([["m1", turns[0]]]);
  assert.deepEqual(parseModelAnswer("Sure! Here are the memories", src), {
    candidates: [],
    dropped: 1,
    replacesDropped: 0,
  });
  assert.deepEqual(parseModelAnswer('{"items": []}', src), {
    candidates: [],
    dropped: 1,
    replacesDropped: 0,
  });
});

Deno.test("capture's settings: defaults, and a bad value names its variable", () => {
  const env = (m: Record<string, string>) => (n: string) => m[n];
  const off = captureModelConfig(env({}));
  assert.equal(off.provider, null);
  assert.equal(off.sessionTokens, 20_000);
  assert.equal(off.dailyTokens, 200_000);
  assert.equal(captureModelConfig(env({ CAPTURE_MODEL_PROVIDER: "ollama" })).model, "llama3.2");
  for (
    const [m, v] of [
      [{ CAPTURE_MODEL_PROVIDER: "gpt" }, "CAPTURE_MODEL_PROVIDER"],
      [{ CAPTURE_MODEL_PROVIDER: "anthropic" }, "CAPTURE_MODEL_API_KEY"],
      [{ CAPTURE_MODEL_PROVIDER: "openai", CAPTURE_MODEL_URL: "ftp://x" }, "CAPTURE_MODEL_URL"],
      [{ CAPTURE_SESSION_TOKENS: "12k" }, "CAPTURE_SESSION_TOKENS"],
      [{ CAPTURE_DAILY_TOKENS: "10" }, "CAPTURE_DAILY_TOKENS"],
    ] as [Record<string, string>, string][]
  ) assert.throws(() => captureModelConfig(env(m)), new RegExp(`^CaptureConfigError: ${v}:|${v}:`));
});
