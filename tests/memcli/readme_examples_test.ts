/**
 * The examples of README.md ("Daily use") and docs/claude-code.md ("What the agent sees") run as
 * a newcomer would: the commands and prompts are read from the pages themselves (so that this
 * test breaks when a page drifts), run with the real memcli against a real daemon, and the prompt
 * goes through the real `memcli recall --hook`, whose confidence floor decides what is injected.
 */
import assert from "node:assert/strict";
import { MemoryClient } from "../../src/memory/client.ts";
import { ROOT, startAdminProcess, tempDir } from "../helpers.ts";
import { memcliProcess } from "./_util.ts";

/** The words of one shell line: double-quoted strings kept whole, up to a `#` comment. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|(\S+)/g)) {
    if (m[2]?.startsWith("#")) break;
    words.push(m[1] ?? m[2]);
  }
  return words;
}

/** The `memcli add` and `memcli search` lines of README.md's "Daily use" block, in order. */
async function readmeDailyUse(): Promise<string[][]> {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const block = readme.match(/## Daily use\n[\s\S]*?```sh\n([\s\S]*?)```/);
  assert.ok(block, "README.md has a sh block under '## Daily use'");
  return block[1].split("\n")
    .filter((l) => /^memcli (add|search) /.test(l))
    .map((l) => shellWords(l).slice(1));
}

/** A git repository named `name` under `dir` (the project memcli's commands work in). */
async function repo(dir: string, name: string): Promise<string> {
  const path = `${dir}/${name}`;
  const git = await new Deno.Command("git", { args: ["init", "-q", path] }).output();
  assert.ok(git.success);
  return path;
}

Deno.test("README's Daily use: the memory it adds is injected for the prompt it searches for", async () => {
  const lines = await readmeDailyUse();
  const adds = lines.filter((l) => l[0] === "add");
  const searches = lines.filter((l) => l[0] === "search");
  assert.equal(searches.length, 1, "one search line");
  assert.ok(adds.length >= 3, "the adds before and after the search");
  const prompt = searches[0].slice(1).join(" ");
  const admin = await startAdminProcess();
  const dir = await tempDir();
  try {
    const cwd = await repo(dir.path, "app");
    const env = { MEMORY_API_URL: admin.url, DATA_DIR: `${dir.path}/d` };
    const hook = async () => {
      const r = await memcliProcess(["recall", "--hook"], {
        env,
        cwd: dir.path,
        stdin: JSON.stringify({ session_id: "s", cwd, prompt }),
      });
      assert.equal(r.code, 0, r.err);
      return r.out;
    };
    let injected: string | undefined;
    let replaced: string | undefined;
    for (const args of lines) {
      const r = await memcliProcess(args, { env, cwd });
      assert.equal(r.code, 0, `memcli ${args.join(" ")}: ${r.out}${r.err}`);
      if (args[0] === "search") {
        assert.ok(injected, "an add before the search");
        assert.ok(r.out.includes(injected), r.out);
        const out = await hook();
        assert.ok(out.includes(`] ${injected}\n`), `"${prompt}" injects "${injected}": ${out}`);
      } else if (!args.includes("--pin")) {
        if (args.includes("--replace")) replaced = injected;
        injected = args[1];
      }
    }
    // The replacing memory is the one injected now, and the replaced one is not.
    assert.ok(replaced && injected && replaced !== injected, "the block replaces a memory");
    const out = await hook();
    assert.ok(out.includes(`] ${injected}\n`), out);
    assert.ok(!out.includes(`] ${replaced}\n`), out);
  } finally {
    await admin.stop();
    await dir.cleanup();
  }
});

Deno.test("docs/claude-code.md's What the agent sees: its prompt injects its memory, the unrelated one nothing", async () => {
  const page = await Deno.readTextFile(`${ROOT}docs/claude-code.md`);
  const asked = page.match(/\(with `--recall`; here for "([^"]+)"\)/)?.[1];
  const shown = page.match(
    /^- \[(\w+), project ([\w-]+), confidence ([\d.]+), id [\w-]+\] (.+)$/m,
  );
  const unrelated = page.match(
    /For "([^"]+)" in the same project nothing is injected: its best\s+match, "([^"]+)",\s+has\s+confidence ([\d.]+)\./,
  );
  assert.ok(asked && shown && unrelated, "the page's example is where this test reads it");
  const [, type, project, shownConfidence, content] = shown;
  const [other, best, bestConfidence] = unrelated.slice(1).map((t) => t.replace(/\s+/g, " "));
  const admin = await startAdminProcess();
  const dir = await tempDir();
  try {
    const cwd = await repo(dir.path, project);
    const env = { MEMORY_API_URL: admin.url, DATA_DIR: `${dir.path}/d` };
    const client = new MemoryClient({ baseUrl: admin.url });
    for (const [t, c] of [[type, content], ["fact", best]]) {
      await client.create({ content: c, type: t as "fact", scope: "project", project });
    }
    const hook = async (prompt: string) => {
      const r = await memcliProcess(["recall", "--hook"], {
        env,
        cwd: dir.path,
        stdin: JSON.stringify({ session_id: "s", cwd, prompt }),
      });
      assert.equal(r.code, 0, r.err);
      return r.out;
    };
    const out = await hook(asked);
    assert.match(out, new RegExp(`^## Relevant memories \\(Mneme, project ${project}\\)`));
    assert.ok(out.includes(`] ${content}\n`), `"${asked}" injects "${content}": ${out}`);
    // The confidences the page shows are the ones measured here.
    assert.equal(
      out.match(/confidence ([\d.]+), id/)?.[1],
      shownConfidence,
      `the page shows confidence ${shownConfidence}: ${out}`,
    );
    assert.equal(await hook(other), "", `"${other}" injects nothing`);
    const [top] = await client.search({ query: other, project });
    assert.equal(top?.memory.content, best, `the best match of "${other}"`);
    assert.equal(
      top.confidence.toFixed(2),
      bestConfidence,
      `the page says confidence ${bestConfidence} for "${best}"`,
    );
  } finally {
    await admin.stop();
    await dir.cleanup();
  }
});
