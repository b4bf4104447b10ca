/**
 * `main.ts` as a library: the examples of docs/library.md run for real (a client of a real
 * admin daemon, and the service in-process), with exactly the permissions the page gives them; the client's typed errors against that daemon; and the documentation of every
 * export (an example each, `deno doc --lint` clean, examples type-checked).
 */
import assert from "node:assert/strict";
import { MemoryClient, MemoryError, VERSION } from "../main.ts";
import { ROOT, startAdminProcess, tempDir } from "./helpers.ts";

const MAIN_URL = new URL("../main.ts", import.meta.url).href;
const decoder = new TextDecoder();

/** The ```ts blocks of the library page (docs/library.md), linked from the README. */
async function readmeExamples(): Promise<{ section: string; blocks: string[] }> {
  const section = await Deno.readTextFile(`${ROOT}docs/library.md`);
  assert.ok(section.startsWith("# Library (JSR module)\n"), "docs/library.md is the library page");
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  assert.ok(readme.includes("(docs/library.md)"), "the README links the library page");
  const blocks = [...section.matchAll(/\n```ts\n([\s\S]*?)\n```\n/g)].map((m) => m[1]);
  return { section, blocks };
}

/** Environment for a child deno: only what it needs to find its cache, plus `extra`. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME", "NO_COLOR"]) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

/**
 * Run one README example as a user of a clone would: the file outside the repository, the
 * package name rewritten to main.ts's file URL, the clone's deno.json as config, type-checked.
 */
async function runExample(
  code: string,
  permissions: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  assert.match(code, /from "@mneme\/mneme";/, "the example imports the package by its name");
  const dir = await tempDir("mneme-lib-example-");
  try {
    const file = `${dir.path}/example.ts`;
    await Deno.writeTextFile(file, code.replaceAll('"@mneme/mneme"', JSON.stringify(MAIN_URL)));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--check", "--no-prompt", "--config", `${ROOT}deno.json`, ...permissions, file],
      cwd: dir.path,
      env: childEnv({ TMPDIR: dir.path, ...env }),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
    };
  } finally {
    await dir.cleanup();
  }
}

Deno.test({
  name: "docs/library.md examples run for real; typed errors from a real daemon",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { section, blocks } = await readmeExamples();
    const clientCode = blocks.find((b) => b.includes("new MemoryClient("));
    const serviceCode = blocks.find((b) => b.includes("createMemoryService("));
    assert.ok(clientCode, "a MemoryClient example");
    assert.ok(serviceCode, "a createMemoryService example");
    // The permissions the page gives are the ones the examples run with.
    const clientPerms = ["--allow-net=127.0.0.1", "--allow-env=MEMORY_API_URL,ADMIN_API_KEY"];
    const servicePerms = ["--allow-env", "--allow-read", "--allow-write"];
    assert.ok(section.includes(clientPerms.join(" ")), "the page states the client's permissions");
    assert.ok(
      section.includes(servicePerms.join(" ")),
      "the page states the service's permissions",
    );
    assert.ok(section.includes("deno add jsr:@mneme/mneme"));

    const key = "library-test-key";
    const daemon = await startAdminProcess({ env: { ADMIN_API_KEY: key } });
    const client = new MemoryClient({ baseUrl: daemon.url, apiKey: key });
    try {
      await t.step("the MemoryClient example against the daemon", async () => {
        const run = await runExample(clientCode, clientPerms, {
          MEMORY_API_URL: daemon.url,
          ADMIN_API_KEY: key,
        });
        assert.equal(run.code, 0, `client example failed:\n${run.stdout}\n${run.stderr}`);
        const lines = run.stdout.trim().split("\n");
        assert.equal(lines.length, 5, run.stdout);
        assert.equal(lines[0], `daemon ok, version ${VERSION} (library ${VERSION})`);
        assert.equal(lines[1], "best hit: Run the test suite with deno task test (true)");
        assert.equal(lines[2], "demo rules: Run the test suite with deno task test:unit");
        assert.equal(lines[3], "400 on weight: weight: must be between 0.1 and 1.0");
        assert.match(lines[4], /^404 memory [0-9a-f-]{36} not found$/);
        // What the example did is what the daemon holds: the memory it deleted is gone.
        assert.equal((await client.stats()).total, 0);

        // Without the key the same example stops at its first /api call with a 401.
        const denied = await runExample(clientCode, clientPerms, { MEMORY_API_URL: daemon.url });
        assert.notEqual(denied.code, 0);
        assert.match(denied.stderr, /MemoryError: missing API key/);
      });

      await t.step("404 and 400 carry the API's message and the field", async () => {
        const missing = "0190f3a2-7c1e-7000-8000-000000000000";
        const expect = async (
          p: Promise<unknown>,
          status: number,
          message: string,
          field?: string,
        ) => {
          await assert.rejects(p, (err: unknown) => {
            assert.ok(err instanceof MemoryError);
            assert.equal(err.status, status);
            assert.equal(err.message, message);
            assert.equal(err.field, field);
            assert.deepEqual(
              err.body,
              field === undefined ? { error: message } : {
                error: message,
                field,
              },
            );
            return true;
          });
        };
        const gone = `memory ${missing} not found`;
        await expect(client.get(missing), 404, gone, "id");
        await expect(client.delete(missing), 404, gone, "id");
        await expect(client.update(missing, { content: "x" }), 404, gone, "id");
        await expect(client.request("GET", "/api/nothing"), 404, "no route GET /api/nothing");
        await expect(client.get("nope"), 400, "id: must be a UUID", "id");
        await expect(
          client.create({ content: "w", weight: 0 }),
          400,
          "weight: must be between 0.1 and 1.0",
          "weight",
        );
        await expect(
          client.create({ content: "t", tags: ["ok", ""] }),
          400,
          "tags[1]: must not be empty",
          "tags[1]",
        );
        await expect(
          client.import([{ content: "fine" }, { content: "bad", type: "nonsense" as never }]),
          400,
          "[1].type: must be one of fact, rule, decision, feedback, context, bootstrap",
          "[1].type",
        );
        await expect(client.list({ limit: 0 }), 400, "limit: must be between 1 and 1000", "limit");
        await expect(client.search({ query: "" }), 400, "query: must not be empty", "query");
        await expect(
          client.reembed({ batchSize: 0 }),
          400,
          "batch_size: must be an integer between 1 and 5000",
          "batch_size",
        );
        assert.equal((await client.stats()).total, 0, "nothing was stored by the failed calls");
      });
    } finally {
      await daemon.stop();
    }

    await t.step("the createMemoryService example, in-process", async () => {
      const run = await runExample(serviceCode, servicePerms, {});
      assert.equal(run.code, 0, `in-process example failed:\n${run.stdout}\n${run.stderr}`);
      assert.equal(run.stdout, "rule: Deploys go through CI\ntotal: 1\n");
    });
  },
});

Deno.test("MemoryClient keeps a proxy's registered status and maps an unregistered one to 502", async () => {
  const answering = (status: number, body: string) =>
    new MemoryClient({
      baseUrl: "http://127.0.0.1:1",
      fetch: () => Promise.resolve(new Response(body, { status })),
    });
  await assert.rejects(answering(504, "gateway timeout").stats(), (err: unknown) => {
    assert.ok(err instanceof MemoryError);
    assert.equal(err.status, 504);
    assert.equal(err.message, "Admin API answered 504");
    assert.equal(err.body, undefined);
    return true;
  });
  await assert.rejects(answering(520, "{}").stats(), (err: unknown) => {
    assert.ok(err instanceof MemoryError);
    assert.equal(err.status, 502);
    assert.equal(err.message, "Admin API answered 520");
    assert.deepEqual(err.body, {});
    return true;
  });
  await assert.rejects(
    answering(429, JSON.stringify({ error: "slow down: too many requests" })).stats(),
    (err: unknown) => {
      assert.ok(err instanceof MemoryError);
      assert.equal(err.status, 429);
      assert.equal(err.message, "slow down: too many requests");
      assert.equal(err.field, undefined, "only a 400 names a field");
      return true;
    },
  );
});

/** `deno doc --json main.ts`: every export and every public class member has an example. */
Deno.test("every export of main.ts is documented with an example; doc lint and examples check", async () => {
  const deno = (...args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
  const doc = await deno("doc", "--json", "main.ts");
  assert.equal(doc.code, 0, decoder.decode(doc.stderr));
  type Tag = { kind: string; doc?: string };
  type JsDoc = { doc?: string; tags?: Tag[] };
  type Member = { name: string; accessibility?: string; jsDoc?: JsDoc };
  type Decl = {
    kind: string;
    jsDoc?: JsDoc;
    def?: { constructors?: Member[]; methods?: Member[]; properties?: Member[] };
  };
  const json = JSON.parse(decoder.decode(doc.stdout)) as {
    nodes: Record<string, { symbols: { name: string; declarations: Decl[] }[] }>;
  };
  const symbols = Object.values(json.nodes)[0].symbols;
  const names = symbols.map((s) => s.name);
  for (
    const name of [
      "MemoryClient",
      "MemoryClientOptions",
      "MemoryError",
      "ErrorStatus",
      "ProviderName",
      "MemoryConfig",
      "createMemoryService",
      "VERSION",
      "Memory",
      "MemoryService",
      "CreateInput",
      "SearchResult",
      "Health",
    ]
  ) assert.ok(names.includes(name), `main.ts exports ${name}`);
  const hasExample = (d: JsDoc | undefined) =>
    (d?.tags ?? []).some((t) => t.kind === "example" && (t.doc ?? "").includes("```ts"));
  const missing: string[] = [];
  for (const s of symbols) {
    for (const d of s.declarations) {
      if (!hasExample(d.jsDoc)) missing.push(s.name);
      if (d.kind !== "class") continue; // interface fields are documented without examples
      const members = [
        ...(d.def?.constructors ?? []),
        ...(d.def?.methods ?? []),
        ...(d.def?.properties ?? []),
      ];
      for (const m of members) {
        if (m.accessibility === "private") continue;
        if (!hasExample(m.jsDoc)) missing.push(`${s.name}.${m.name}`);
      }
    }
  }
  assert.deepEqual(missing, [], "exports without an example");
  const methods = symbols.find((s) => s.name === "MemoryClient")!.declarations[0].def!.methods!
    .map((m) => m.name);
  for (
    const m of [
      "health",
      "stats",
      "list",
      "create",
      "get",
      "update",
      "delete",
      "deleteMany",
      "search",
      "export",
      "import",
      "reembed",
    ]
  ) assert.ok(methods.includes(m), `MemoryClient.${m}`);

  const lint = await deno("doc", "--lint", "main.ts");
  assert.equal(lint.code, 0, decoder.decode(lint.stderr));
  const check = await deno(
    "check",
    "--doc",
    "main.ts",
    "src/memory/client.ts",
    "src/domain/errors.ts",
    "src/memory/types.ts",
    "src/config.ts",
  );
  assert.equal(check.code, 0, decoder.decode(check.stderr));
});
