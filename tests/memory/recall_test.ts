/**
 * Recall quality with the default offline embedder on embedded PGlite: rare words beat
 * common ones, a question finds its answer among turns that share only common words,
 * identifiers match exactly, nothing relevant returns nothing, search without project
 * covers global memories only, and a hash-v1 database upgrades itself at start with nothing
 * lost or doubled. Each of these failed on the cosine-only search of hash-v1.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BuiltinEmbedder, hashEmbed } from "../../src/embed/builtin.ts";
import { openMemoryService } from "../../src/memory/open.ts";
import { SqlMemoryService } from "../../src/memory/service.ts";
import { MIGRATIONS, recordedEmbedder } from "../../src/store/migrate.ts";
import { openPglite } from "../../src/store/pglite/mod.ts";
import { POSTINGS_PER_TERM, Store, vectorLiteral } from "../../src/store/store.ts";
import { terms } from "../../src/domain/terms.ts";
import { pgliteService, tempDir, testConfig } from "../helpers.ts";
import { weigh } from "../store/lexical.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

async function withService(fn: (s: SqlMemoryService) => Promise<void>): Promise<void> {
  const { service, close } = await pgliteService();
  try {
    await fn(service);
  } finally {
    await close();
  }
}

const top = async (s: SqlMemoryService, query: string, extra: object = {}) =>
  (await s.search({ query, ...extra })).map((r) => r.memory.content);

Deno.test("a rare word beats common ones", () =>
  withService(async (s) => {
    await s.import([
      ...Array.from({ length: 12 }, (_, i) => ({
        content: `The deploy script of service ${i} runs the deploy checks before the deploy`,
      })),
      { content: "Kubernetes manifests live in ops/k8s" },
    ]);
    const [first] = await top(s, "deploy script kubernetes");
    assert.equal(first, "Kubernetes manifests live in ops/k8s");
  }));

Deno.test("a question finds its answer among turns that share only common words", () =>
  withService(async (s) => {
    await s.import([
      { content: "Caroline: When did you go? When did they go? When did we go, Caroline?" },
      { content: "Caroline: When did it go to the group? Did you go to the group?" },
      { content: "Melanie: When did Caroline go? Did Caroline go to the group too?" },
      { content: "Caroline: Where did you go? When did you go there?" },
      { content: "Caroline: I went to the LGBTQ support group yesterday, it was powerful" },
      { content: "Melanie: I went to the beach with the kids" },
    ]);
    const [first] = await top(s, "When did Caroline go to the LGBTQ support group?");
    assert.equal(first, "Caroline: I went to the LGBTQ support group yesterday, it was powerful");
  }));

Deno.test("an answer in other words ranks first: word vectors re-rank the candidates", () =>
  withService(async (s) => {
    await s.import([
      { content: "Melanie: I have a meeting at the tax office on Monday" },
      { content: "Melanie: Monday is laundry day, so much laundry" },
      { content: "Melanie: the quarterly report is finally done" },
      { content: "Melanie: yesterday we adopted a second kitten and named her Bailey, so cute" },
      { content: "Caroline: the tax office closes early on Fridays" },
    ]);
    const query = "What pets does Melanie have?";
    const answer = "Melanie: yesterday we adopted a second kitten and named her Bailey, so cute";
    assert.equal((await top(s, query))[0], answer);
    // The same search without the word vectors (neither their re-rank nor the dense leg made
    // of them) ranks a shorter turn first: they are what lifts the answer, which shares only
    // the name with the question.
    const lexicalOnly = new SqlMemoryService({
      store: storeOf(s),
      embedder: new BuiltinEmbedder(s.embedderInfo.dimension),
      stored: s.storedEmbedder,
      wordVectors: false,
      denseSearch: false,
    });
    assert.notEqual((await top(lexicalOnly, query))[0], answer);
  }));

Deno.test("identifiers match exactly", () =>
  withService(async (s) => {
    await s.import([
      { content: "The proxy drops idle connections; clients see ERR_CONN_RESET after 60 s" },
      {
        content: "Connection reset errors: retry on a connection reset and on refused connections",
      },
      { content: "ERR_CONN_REFUSED means nothing listens on the port" },
      { content: "Release: run tools/deploy.sh from the repository root" },
      { content: "Deploy tools: tools/build.sh and tools/test.sh; run the deploy tools with sh" },
      { content: "How do I run the deploy tools? Run tools from the tools folder" },
      { content: "The API listens on port 8080" },
      { content: "The admin UI listens on port 9090" },
      { content: "Which port is which: the port table lists every port and its port owner" },
    ]);
    assert.match((await top(s, "ERR_CONN_RESET"))[0], /ERR_CONN_RESET/);
    assert.match((await top(s, "what causes ERR_CONN_RESET?"))[0], /ERR_CONN_RESET/);
    assert.match((await top(s, "connection reset ERR_CONN_RESET"))[0], /ERR_CONN_RESET/);
    assert.match((await top(s, "tools/deploy.sh"))[0], /tools\/deploy\.sh/);
    assert.match((await top(s, "how do I run tools/deploy.sh"))[0], /tools\/deploy\.sh/);
    assert.match((await top(s, "8080"))[0], /8080/);
    assert.match((await top(s, "which port is 8080"))[0], /8080/);
  }));

Deno.test("a query with nothing relevant returns nothing", () =>
  withService(async (s) => {
    await s.import(Array.from({ length: 30 }, (_, i) => ({
      content: `The build of package ${i} uses strict TypeScript and deno task test`,
    })));
    assert.deepEqual(await s.search({ query: "quantum chromodynamics on a lattice" }), []);
    assert.deepEqual(await s.search({ query: "what is the recipe for banana bread?" }), []);
    const some = await s.search({ query: "strict typescript" });
    assert.ok(some.length > 0 && some.every((r) => r.score > 0));
  }));

Deno.test("search without project and scope returns no project memories", () =>
  withService(async (s) => {
    await s.import([
      { content: "Global: releases are tagged vX.Y.Z" },
      { content: "Alpha: releases are tagged alpha-N", scope: "project", project: "alpha" },
      { content: "Beta: releases are tagged beta-N", scope: "project", project: "beta" },
    ]);
    assert.deepEqual(await top(s, "how are releases tagged"), [
      "Global: releases are tagged vX.Y.Z",
    ]);
    const alpha = await top(s, "how are releases tagged", { project: "alpha" });
    assert.deepEqual(alpha.sort(), [
      "Alpha: releases are tagged alpha-N",
      "Global: releases are tagged vX.Y.Z",
    ]);
    assert.equal((await top(s, "how are releases tagged", { scope: "all" })).length, 3);
  }));

/** Write a schema-version-1 database with hash-v1 vectors, as 0.6 left it. */
async function writeV1Database(dir: string, contents: string[], dim: number): Promise<string[]> {
  const db = await openPglite(join(dir, "db"));
  try {
    await db.exec("create extension if not exists vector");
    await db.exec(
      `create table mneme_migrations (version int primary key, name text not null,
         applied_at timestamptz not null default now())`,
    );
    await db.exec(MIGRATIONS[0].sql);
    await db.query("insert into mneme_migrations (version, name) values (1, '0001_init')");
    await db.exec(`alter table memories alter column embedding type vector(${dim})`);
    await db.query(
      `update mneme_meta set embedder_provider = 'builtin', embedder_model = 'hash-v1',
              embedder_dimension = $1`,
      [dim],
    );
    const ids = contents.map(() => crypto.randomUUID());
    await db.query(
      `insert into memories (id, content, scope, project, type, created_at, updated_at, embedding)
       select x.id, x.c, 'project', 'web', 'fact', now(), now(), x.e::vector
         from jsonb_to_recordset($1::text::jsonb) as x(id uuid, c text, e text)`,
      [JSON.stringify(
        contents.map((c, i) => ({ id: ids[i], c, e: vectorLiteral(hashEmbed(c, dim)) })),
      )],
    );
    return ids;
  } finally {
    await db.close();
  }
}

Deno.test("a hash-v1 database upgrades itself at start: nothing lost or doubled", async () => {
  const tmp = await tempDir();
  const dir = tmp.path;
  try {
    const contents = Array.from({ length: 1100 }, (_, i) => `Note ${i}: the build step ${i} runs`);
    contents.push("Deploys run on Fridays after the zygomorphic review");
    const ids = await writeV1Database(dir, contents, 32);
    const lines: string[] = [];
    const cfg = testConfig({ dataDir: dir, embeddingDim: 32 });
    const s = await openMemoryService(cfg, { log: (l) => lines.push(l) });
    try {
      assert.equal(s.maintenanceReason, null, "usable at once");
      assert.deepEqual(await recordedEmbedder(storeOf(s).db), {
        provider: "builtin",
        model: "hash-v2",
        dimension: 32,
      });
      const rows = await storeOf(s).db.query<{ id: string; content: string }>(
        "select id, content from memories order by content",
      );
      assert.equal(rows.length, contents.length, "nothing doubled");
      assert.deepEqual(new Set(rows.map((r) => r.id)), new Set(ids), "same ids, nothing lost");
      assert.deepEqual(rows.map((r) => r.content), [...contents].sort());
      const [hit] = await s.search({ query: "when do deploys run", project: "web" });
      assert.equal(hit.memory.content, contents.at(-1));
      assert.ok(lines.some((l) => /postings of 1101 memories/.test(l)), lines.join("\n"));
      assert.ok(lines.some((l) => /re-embedded 1101\/1101, done/.test(l)), lines.join("\n"));
      assert.ok(lines.some((l) => /re-embedded 500\/1101$/.test(l)), "progress in batches");
    } finally {
      await s.close();
    }
    // A second start has nothing left to do.
    const again: string[] = [];
    const s2 = await openMemoryService(cfg, { log: (l) => again.push(l) });
    await s2.close();
    assert.deepEqual(again, []);
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("an interrupted upgrade resumes where it stopped", async () => {
  const tmp = await tempDir();
  const dir = tmp.path;
  try {
    const contents = Array.from({ length: 700 }, (_, i) => `Item ${i} of the resumable upgrade`);
    const ids = await writeV1Database(dir, contents, 24);
    // A start that stops after the postings and one re-embedding batch (as a killed daemon).
    const cfg = testConfig({ dataDir: dir, embeddingDim: 24 });
    let batches = 0;
    await assert.rejects(
      openMemoryService(cfg, {
        log: (l) => {
          if (/re-embedded \d+\/700$/.test(l) && ++batches === 1) throw new Error("killed");
        },
      }),
      /killed/,
    );
    const lines: string[] = [];
    const s = await openMemoryService(cfg, { log: (l) => lines.push(l) });
    try {
      assert.ok(!lines.some((l) => /postings/.test(l)), "postings were already built");
      assert.ok(lines.some((l) => /re-embedded 700\/700, done/.test(l)), lines.join("\n"));
      const rows = await storeOf(s).db.query<{ id: string }>("select id from memories");
      assert.deepEqual(new Set(rows.map((r) => r.id)), new Set(ids));
      assert.equal(rows.length, 700);
      assert.equal(s.maintenanceReason, null);
    } finally {
      await s.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("rows of an unfinished import neither show nor crowd real matches out of the lexical side", () =>
  withService(async (s) => {
    const real = await s.create({
      content: "Zebra crossing rules for the north gate of the campus parking lot",
    });
    // Hold an import just before it is published: its rows are written but not visible.
    const original = Store.prototype.publishImport;
    let held!: () => void;
    const reached = new Promise<void>((r) => held = r);
    let release!: () => void;
    const gate = new Promise<void>((r) => release = r);
    Store.prototype.publishImport = async function (this: Store, job: string) {
      held();
      await gate;
      return await original.call(this, job);
    };
    let importing: Promise<unknown> = Promise.resolve();
    try {
      // More staged rows than the postings scored per term, each a better BM25 match.
      importing = s.import(
        Array.from({ length: POSTINGS_PER_TERM + 20 }, (_, i) => ({ content: `zebra ${i}` })),
      );
      await reached;
      const lexical = await storeOf(s).candidates(
        hashEmbed("zebra", s.embedderInfo.dimension),
        await weigh(storeOf(s), terms("zebra"), { kind: "global" }),
        { kind: "global" },
        5,
        new Date(),
        false,
      );
      assert.deepEqual(lexical.map((c) => c.memory.id), [real.memory.id]);
      release();
      assert.deepEqual(await importing, { imported: POSTINGS_PER_TERM + 20, skipped: 0 });
    } finally {
      release();
      await importing.catch(() => {});
      Store.prototype.publishImport = original;
    }
  }));
