/**
 * Daily use of memcli against one real admin daemon: list, get, update, replace, forget;
 * contradictions settled in one step (--replace, the terminal prompt); the repository's
 * project by default; imports that never duplicate; pinning to session start.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryClient } from "../../src/memory/client.ts";
import type { ExportRecord, Memory } from "../../src/memory/types.ts";
import { startAdminProcess, tempDir } from "../helpers.ts";
import { memcli, memcliProcess } from "./_util.ts";

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

Deno.test("memcli daily use against a real admin daemon", async (t) => {
  const admin = await startAdminProcess();
  const dir = await tempDir();
  // A git repository named "app" with a subdirectory: the project every command defaults to.
  const repo = join(dir.path, "app");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await Deno.mkdir(join(repo, "src"));
  const env = { MEMORY_API_URL: admin.url, DATA_DIR: join(dir.path, "data") };
  const here = { env, cwd: join(repo, "src") };
  const client = new MemoryClient({ baseUrl: admin.url });
  const idOf = (out: string) => out.match(ID)![0];
  try {
    await t.step("add in a repository lands in its project; search and list find it", async () => {
      const a = await memcli(["add", "The staging database listens on port 5433"], here);
      assert.equal(a.code, 0, a.err);
      assert.match(a.out, /^Added \S+ \(project app, fact\)\.\n/);
      assert.ok(a.out.includes("Project app from the git repository "), a.out);
      assert.ok(a.out.includes("when relevant to a prompt (recall)"), a.out);
      const m = await client.get(idOf(a.out));
      assert.equal(m.scope, "project");
      assert.equal(m.project, "app");

      const s = await memcli(
        ["search", "which", "database", "port", "does", "staging", "use"],
        here,
      );
      assert.equal(s.code, 0, s.err);
      assert.ok(s.out.includes(m.id), s.out + s.err);
      assert.match(s.err, /^Project app \(git repository \S+\) and global memories\.\n/);
      const g = await memcli(["search", "staging database port", "--global"], here);
      assert.ok(!g.out.includes(m.id), "--global: global memories only");

      const l = await memcli(["list"], here);
      assert.equal(l.code, 0, l.err);
      assert.match(l.out, /^ID {36}WHERE {8}TYPE {2}UPDATED {5}CONTENT\n/);
      assert.ok(l.out.includes(`${m.id}  project app  fact  `), l.out);
      assert.match(l.err, /^Project app \(git repository \S+\) and global memories: 1\n/);

      const glob = await memcli(["add", "Prefer small commits", "--global"], here);
      assert.match(glob.out, /^Added \S+ \(global, fact\)\.\n/);
      const lg = await memcli(["list", "--global", "--json"], here);
      const globals = JSON.parse(lg.out) as Memory[];
      assert.deepEqual(globals.map((x) => x.content), ["Prefer small commits"]);
    });

    await t.step("a project resembling one with memories gets a hint", async () => {
      const r = await memcli(["search", "staging port", "--project", "App"], here);
      assert.match(r.err, /Project App has no memories; did you mean app \(1 memory\)\?/);
      const l = await memcli(["list", "--project", "ap"], here);
      assert.match(l.err, /did you mean app/);
    });

    await t.step("list filters: type, tag, scope, limit; errors name the flag", async () => {
      await client.create({
        content: "Run deno task ok before pushing",
        project: "app",
        type: "rule",
        tags: ["ci"],
      });
      const rules = JSON.parse(
        (await memcli(["list", "--type", "rule", "--json"], here)).out,
      ) as Memory[];
      assert.deepEqual(rules.map((x) => x.type), ["rule"]);
      const tagged = JSON.parse(
        (await memcli(["list", "--tag", "ci", "--json"], here)).out,
      ) as Memory[];
      assert.deepEqual(tagged.map((x) => x.content), ["Run deno task ok before pushing"]);
      const one = JSON.parse((await memcli(["list", "--limit", "1", "--json"], here)).out);
      assert.equal(one.length, 1);
      const proj = JSON.parse(
        (await memcli(["list", "--scope", "project", "--json"], here)).out,
      ) as Memory[];
      assert.ok(proj.every((x) => x.project === "app"));
      // The API's field is reported as the flag the user types.
      const noProject = await memcli(["search", "x", "--scope", "project", "--global"], here);
      assert.equal(noProject.code, 1);
      assert.match(noProject.err, /^memcli search: --project: /);
      assert.doesNotMatch(noProject.err, /(^|\s)project:/);
      const bad = await memcli(["list", "--limit", "0"], here);
      assert.match(bad.err, /^memcli list: --limit: must be an integer between 1 and 1000/);
    });

    await t.step("get, update, replace (no duplicate), forget", async () => {
      const { memory } = await client.create({
        content: "Deploys go out on Tuesdays",
        project: "app",
        tags: ["deploy"],
      });
      const g = await memcli(["get", memory.id], here);
      assert.match(
        g.out,
        new RegExp(`^id: +${memory.id}\\nwhere: +project app\\ntype: +fact\\ntags: +deploy\\n`),
      );
      assert.ok(g.out.endsWith("\n\nDeploys go out on Tuesdays\n"));
      const u = await memcli(
        ["update", memory.id, "Deploys go out on Tuesdays and Thursdays"],
        here,
      );
      assert.equal(u.out, `Updated ${memory.id} (project app, fact).\n`);
      assert.equal(
        (await client.get(memory.id)).content,
        "Deploys go out on Tuesdays and Thursdays",
      );

      const before = (await client.stats()).total;
      const r = await memcli(["replace", memory.id, "Deploys go out on Wednesdays"], here);
      assert.equal(r.code, 0, r.err);
      const newId =
        r.out.match(new RegExp(`^Replaced ${memory.id} with (\\S+) \\(project app, fact\\)`))![1];
      assert.equal((await client.stats()).total, before + 1);
      const fresh = await client.get(newId);
      assert.deepEqual(fresh.tags, ["deploy"]);
      assert.equal(fresh.supersedes, memory.id);
      assert.equal((await client.get(memory.id)).superseded_by, newId);
      const hits = await client.search({ query: "when do deploys go out", project: "app" });
      assert.ok(hits.some((h) => h.memory.id === newId));
      assert.ok(!hits.some((h) => h.memory.id === memory.id), "the old one leaves recall");
      const again = await memcli(["replace", memory.id, "Deploys go out on Fridays"], here);
      assert.equal(again.code, 1);
      assert.match(again.err, /already superseded by/);

      const { memory: a } = await client.create({ content: "temp one", project: "x" });
      const { memory: b } = await client.create({ content: "temp two", project: "x" });
      const no = await memcli(["forget", a.id, b.id], here);
      assert.equal(no.code, 1);
      assert.match(no.err, /forgetting 2 memories needs --yes/);
      const cancel = await memcli(["forget", a.id, b.id], {
        ...here,
        stdinTerminal: true,
        stdin: "n\n",
      });
      assert.equal(cancel.code, 1);
      assert.match(
        cancel.err,
        /Forget these 2 memories\? \[y\/N\] Cancelled; nothing deleted\.\n$/,
      );
      await client.get(a.id);
      const yes = await memcli(["forget", a.id, b.id], {
        ...here,
        stdinTerminal: true,
        stdin: "y\n",
      });
      assert.equal(yes.out, `Forgot ${a.id}.\nForgot ${b.id}.\n`);
      await assert.rejects(() => client.get(a.id), /not found/);
      const { memory: c } = await client.create({ content: "temp three", project: "x" });
      assert.equal((await memcli(["forget", c.id], here)).out, `Forgot ${c.id}.\n`);
      const gone = await memcli(["get", c.id], here);
      assert.match(gone.err, /^memcli get: memory \S+ not found/);
    });

    await t.step(
      "add --replace supersedes the one contradiction; several are refused",
      async () => {
        const { memory: old } = await client.create({
          content: "The cache server runs on port 6379",
          project: "app",
        });
        const before = (await client.stats()).total;
        const r = await memcli(["add", "The cache server runs on port 6380", "--replace"], here);
        assert.equal(r.code, 0, r.err);
        assert.match(
          r.out,
          new RegExp(`It supersedes ${old.id}, which no longer appears in recall`),
        );
        assert.doesNotMatch(r.out, /Possible contradictions/);
        assert.equal((await client.stats()).total, before + 1);
        const hits = await client.search({ query: "cache server port", project: "app" });
        assert.deepEqual(
          hits.filter((h) => h.memory.content.startsWith("The cache server")).map((h) =>
            h.memory.content
          ),
          ["The cache server runs on port 6380"],
        );

        await client.create({ content: "The queue worker runs on port 7001", project: "app" });
        await client.create({ content: "The queue worker runs on port 7002", project: "app" });
        const n = (await client.stats()).total;
        const several = await memcli(
          ["add", "The queue worker runs on port 7003", "--replace"],
          here,
        );
        assert.equal(several.code, 1);
        assert.match(several.err, /^memcli add: --replace: 2 existing memories look similar/);
        assert.match(several.err, /name the one to replace with --supersedes ID \(its first 8/);
        assert.match(several.err, /The queue worker runs on port 7001/);
        assert.match(several.err, /The queue worker runs on port 7002/);
        assert.equal((await client.stats()).total, n, "nothing stored");
      },
    );

    await t.step("on a terminal a contradiction asks: replace, keep both or cancel", async () => {
      const { memory: old } = await client.create({
        content: "The docs site is built with mkdocs",
        project: "app",
      });
      const tty = (answer: string) => ({ ...here, stdinTerminal: true, stdin: answer });
      const n0 = (await client.stats()).total;
      const cancel = await memcli(
        ["add", "The docs site is built with mkdocs material"],
        tty("c\n"),
      );
      assert.equal(cancel.code, 1);
      assert.match(
        cancel.err,
        new RegExp(`1\\. \\d\\.\\d{3}  ${old.id}  The docs site is built with mkdocs\\n`),
      );
      assert.match(
        cancel.err,
        /Replace it with the new memory \[r\], keep both \[k\], or cancel \[c\]\? Cancelled; nothing stored\.\n$/,
      );
      assert.equal((await client.stats()).total, n0);

      const keep = await memcli(["add", "The docs site is built with mkdocs material"], tty("k\n"));
      assert.equal(keep.code, 0, keep.err);
      assert.doesNotMatch(keep.out, /supersedes|forget/);
      assert.equal((await client.get(old.id)).superseded_by, null);
      const keptId = idOf(keep.out);

      const rep = await memcli(
        ["add", "The docs site is built with mkdocs material theme"],
        tty("1\n"),
      );
      assert.equal(rep.code, 0, rep.err);
      const choices = rep.err.match(/^ {2}\d\. \d\.\d{3} {2}(\S+)/gm)!;
      assert.ok(choices.length >= 1, rep.err);
      const first = choices[0].trim().split(/\s+/)[2];
      assert.match(rep.out, new RegExp(`It supersedes ${first}`));
      assert.equal((await client.stats()).total, n0 + 2);
      assert.notEqual((await client.get(first)).superseded_by, null);
      assert.ok([old.id, keptId].includes(first));
    });

    await t.step("--pin: shown at every session start, grouped by its own type", async () => {
      const r = await memcli([
        "add",
        "Always run npm test before committing",
        "--type",
        "rule",
        "--pin",
      ], here);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /\(project app, bootstrap\)/);
      assert.ok(
        r.out.includes("The agent sees it at every session start (the bootstrap of project app)."),
      );
      const m = await client.get(idOf(r.out));
      assert.deepEqual(m.tags, ["rule"]);
      const b = await memcli(["bootstrap"], here);
      assert.match(b.out, /## Rules\n\n- Always run npm test before committing\n/);
    });

    await t.step("import skips what is stored: re-importing an export is a no-op", async () => {
      const file = join(dir.path, "export.json");
      assert.equal((await memcli(["export", file], here)).code, 0);
      const exported = JSON.parse(await Deno.readTextFile(file)) as ExportRecord[];
      const before = await client.stats();
      const r = await memcli(["import", file], here);
      assert.equal(r.code, 0, r.err);
      assert.equal(
        r.out,
        `Imported 0 memories from ${file}; skipped ${exported.length} already stored (same ` +
          "content, scope, project and type).\n",
      );
      assert.deepEqual(await client.stats(), before);
      // The API field beside imported; a repeat within one import counts once.
      const res = await client.import([
        { content: "fresh A", project: "imp" },
        { content: "fresh A", project: "imp" },
        { content: "fresh A", project: "other" },
        { content: "fresh A", project: "imp", type: "rule" },
        exported[0],
      ]);
      assert.deepEqual(res, { imported: 3, skipped: 2 });
      const hits = await client.search({ query: "fresh A", project: "imp" });
      assert.equal(
        hits.filter((h) => h.memory.project === "imp" && h.memory.type === "fact").length,
        1,
      );
      // Imported as superseded, its successor not imported: get says so, not "by itself".
      await client.import([{ content: "an old rule, replaced", project: "imp", superseded: true }]);
      const [old] = (await client.list({ project: "imp", limit: 50 })).filter((m) =>
        m.content === "an old rule, replaced"
      );
      assert.equal(old.superseded_by, old.id);
      const g = await memcli(["get", old.id], here);
      assert.equal(g.code, 0, g.err);
      assert.match(g.out, /superseded by: a memory not in this store \(imported as superseded\)\n/);
      assert.ok(!g.out.includes(`superseded by: ${old.id}`), g.out);
    });

    await t.step(
      "files anywhere: the launcher grants the named file; a missing one says so",
      async () => {
        const elsewhere = await tempDir();
        try {
          const out = join(elsewhere.path, "nested.json");
          const opts = { env, cwd: repo, walk: true };
          const e = await memcliProcess(["export", out], opts);
          assert.equal(e.code, 0, e.err);
          assert.ok(JSON.parse(await Deno.readTextFile(out)).length > 0);
          const missing = await memcliProcess(["import", join(elsewhere.path, "nope.json")], opts);
          assert.equal(missing.code, 1);
          assert.equal(
            missing.err,
            `memcli import: ${join(elsewhere.path, "nope.json")}: no such file\n`,
          );
        } finally {
          await elsewhere.cleanup();
        }
      },
    );
  } finally {
    await admin.stop();
    await dir.cleanup();
  }
});
