/**
 * The real Claude Code CLI with the capture hooks (`memcli hooks install --capture`) against a
 * real admin daemon: scripted `claude -p` sessions through `msgcli serve` against the
 * Anthropic fake. Claude Code runs `memcli capture --hook` at Stop and SessionEnd; the daemon
 * reads the transcript Claude Code wrote (in its transcripts folder, the only one it reads)
 * and proposes to the inbox. Afterwards the inbox holds the durable statement and nothing of
 * the everyday prompts; a second identical session adds nothing; accepting the proposal makes
 * it recalled; a session that states a secret leaves no trace of it in the database files,
 * the daemon's log or the export.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { InboxItem } from "../../src/memory/inbox.ts";
import { startRig } from "../serve/helpers.ts";
import { startAdminProcess, tempDir } from "../helpers.ts";
import { claudeCode, clientTest, npmMissing } from "./npm.ts";

const missing = await npmMissing();
const ROOT = new URL("../../", import.meta.url).pathname;
const KEY = "claude-capture-daemon-key-0123";
const TOKEN = "ghp_Zq8rT4vN2kW9xL5mB7cD1fH3jP6sR0tY8uA2";

/** Files under `dir` whose bytes contain `needle`. */
async function filesWith(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const bytes = new TextEncoder().encode(needle);
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) await walk(p);
      else if (e.isFile) {
        const data = await Deno.readFile(p);
        outer: for (let i = 0; i + bytes.length <= data.length; i++) {
          for (let j = 0; j < bytes.length; j++) if (data[i + j] !== bytes[j]) continue outer;
          hits.push(p);
          break;
        }
      }
    }
  };
  await walk(dir);
  return hits;
}

clientTest(
  "Claude Code (real CLI) with capture: the durable statement in the inbox, once; accepted, it is recalled; no secret kept",
  missing,
  async () => {
    const rig = await startRig({ args: ["--auth-key", KEY], fake: { replyText: "Done." } });
    const home = await tempDir("mneme-claude-capture-");
    const admin = await startAdminProcess({
      dataDir: join(home.path, "mneme-data"),
      env: { CAPTURE_TRANSCRIPTS_DIR: join(home.path, ".claude", "projects") },
    });
    try {
      // The hook resolves the project as the bootstrap does: a `.mneme` names it here.
      await Deno.writeTextFile(join(home.path, ".mneme"), JSON.stringify({ project: "orders" }));
      const memcli =
        `${Deno.execPath()} run -A --lock=${ROOT}tests/deno.lock ${ROOT}src/bin/memcli.ts`;
      const env = {
        HOME: home.path,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: Deno.env.get("DENO_DIR") ??
          join(Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME")!, ".cache"), "deno"),
        MEMORY_API_URL: admin.url,
        DATA_DIR: join(home.path, "data"),
      };
      const memcliRun = async (args: string[]) => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "--lock=tests/deno.lock", "src/bin/memcli.ts", ...args],
          cwd: ROOT,
          env,
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = {
          out: new TextDecoder().decode(out.stdout),
          err: new TextDecoder().decode(out.stderr),
        };
        assert.equal(out.code, 0, text.err);
        return text;
      };
      await memcliRun(["hooks", "install", "--capture", "--command", memcli]);
      const bin = await claudeCode();
      const claude = async (args: string[]) => {
        const out = await new Deno.Command(bin, {
          args,
          cwd: home.path,
          clearEnv: true,
          env: {
            ...env,
            CI: "true",
            DISABLE_AUTOUPDATER: "1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            ANTHROPIC_BASE_URL: rig.url,
            ANTHROPIC_AUTH_TOKEN: KEY,
          },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(120_000),
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      };
      const inbox = async () =>
        (await (await fetch(`${admin.url}/api/inbox`)).json()) as InboxItem[];
      /** The inbox once the daemon has nothing left to read (three quiet reads). */
      const settled = async () => {
        let last = "", same = 0;
        for (let i = 0; i < 100 && same < 3; i++) {
          await new Promise((r) => setTimeout(r, 150));
          const now = JSON.stringify(await inbox());
          same = now === last ? same + 1 : 0;
          last = now;
        }
        return JSON.parse(last) as InboxItem[];
      };
      // The rule with a concrete detail: the learned scorer proposes short rules with none
      // ("never npm") below its threshold (docs/capture.md, "Threshold").
      const prompt = "add a test for the limit cap. and from now on always use pnpm in this " +
        "repo, never npm (the lockfile is pnpm-lock.yaml)";
      await claude(["-p", prompt]);
      await claude(["-c", "-p", "what does GET /orders return?"]);
      const first = await settled();
      assert.equal(first.length, 1, JSON.stringify(first));
      assert.match(first[0].content, /^From now on always use pnpm in this repo, never npm/);
      assert.equal(first[0].project, "orders");
      assert.equal(typeof first[0].source.session_id, "string");
      // Proposed, not recalled.
      const before = await memcliRun([
        "recall",
        "--project",
        "orders",
        "should I use pnpm or npm here?",
      ]);
      assert.ok(!before.out.includes("pnpm"), before.out);

      // A second identical session (a new one): nothing added.
      await claude(["-p", prompt]);
      assert.deepEqual((await settled()).map((i) => i.id), [first[0].id]);

      // A session that states a secret: no trace of it anywhere Mneme writes.
      await claude(["-p", `from now on the CI deploy token is ${TOKEN}, always use it`]);
      await settled();
      const exported = await (await fetch(`${admin.url}/api/memories/export`, { method: "POST" }))
        .text();
      const listed = JSON.stringify(await inbox());
      assert.ok(!exported.includes(TOKEN) && !listed.includes(TOKEN));

      // Accepted: recalled in the next session's prompt hook and by recall.
      const acc = await memcliRun(["inbox", "accept", first[0].id.slice(0, 8)]);
      assert.match(acc.out, /^Accepted \S+ as memory \S+ \(project orders, rule\)/);
      const after = await memcliRun([
        "recall",
        "--project",
        "orders",
        "should I use pnpm or npm here?",
      ]);
      assert.ok(after.out.includes("always use pnpm in this repo"), after.out + after.err);

      await admin.stop();
      assert.deepEqual(await filesWith(admin.dataDir, TOKEN), [], "the token is in DATA_DIR");
      assert.ok(!admin.stderr().includes(TOKEN), "the token is in the daemon's log");
    } finally {
      await admin.stop();
      await rig.close();
      await home.cleanup();
    }
  },
);
