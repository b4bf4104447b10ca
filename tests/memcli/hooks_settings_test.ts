/**
 * `memcli hooks install|uninstall|status`: Claude Code settings edits (issue 16). Foreign
 * settings and hooks survive every edit, a second install changes nothing, a backup is taken
 * before each write, uninstall removes Mneme's entries only, and a file that is not a JSON
 * object is refused with nothing written.
 */
import assert from "node:assert/strict";
import {
  addMnemeHooks,
  isMnemeCommand,
  removeMnemeHooks,
  unifiedDiff,
} from "../../src/memcli/claude_settings.ts";
import { freePort, tempDir } from "../helpers.ts";
import { memcli } from "./_util.ts";

/** Settings with foreign hooks on the same events and elsewhere, and other keys. */
const FOREIGN = {
  model: "opus",
  env: { FOO: "1" },
  permissions: { allow: ["Bash(git status)"], deny: [] },
  hooks: {
    SessionStart: [
      { matcher: "startup", hooks: [{ type: "command", command: "echo hello", timeout: 3 }] },
    ],
    UserPromptSubmit: [{ hooks: [{ type: "command", command: "~/bin/prompt-guard.sh" }] }],
    PreToolUse: [
      { matcher: "Bash", hooks: [{ type: "command", command: "lint-bash" }] },
    ],
  },
  statusLine: { type: "command", command: "status.sh", padding: 0 },
};

async function home(): Promise<{ path: string; file: string; cleanup(): Promise<void> }> {
  const d = await tempDir("mneme-hooks-");
  return { ...d, file: `${d.path}/.claude/settings.json` };
}

async function backups(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(`${dir}/.claude/mneme-backups`)) {
      if (!e.name.startsWith(".")) out.push(e.name);
    }
  } catch { /* none */ }
  return out.sort();
}

const readJson = async (f: string) => JSON.parse(await Deno.readTextFile(f));

Deno.test("hooks install: a missing file is created owner-only with the SessionStart hook; a second install changes nothing", async () => {
  const h = await home();
  try {
    const env = { HOME: h.path };
    const r = await memcli(["hooks", "install"], { env });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /SessionStart: added 'memcli bootstrap --hook'/);
    assert.deepEqual(await readJson(h.file), {
      hooks: {
        SessionStart: [{
          hooks: [{ type: "command", command: "memcli bootstrap --hook", timeout: 10 }],
        }],
      },
    });
    assert.equal((await Deno.stat(h.file)).mode! & 0o777, 0o600);
    assert.deepEqual(await backups(h.path), [], "no backup of a file that did not exist");
    const before = await Deno.readTextFile(h.file);
    const again = await memcli(["hooks", "install"], { env });
    assert.equal(again.code, 0);
    assert.match(again.out, /already installed .*nothing changed/);
    assert.equal(await Deno.readTextFile(h.file), before);
    assert.deepEqual(await backups(h.path), [], "no write, no backup");
  } finally {
    await h.cleanup();
  }
});

Deno.test("hooks install: an empty file counts as {}", async () => {
  const h = await home();
  try {
    await Deno.mkdir(`${h.path}/.claude`);
    await Deno.writeTextFile(h.file, "  \n");
    const r = await memcli(["hooks", "install", "--recall"], { env: { HOME: h.path } });
    assert.equal(r.code, 0, r.err);
    const s = await readJson(h.file);
    assert.deepEqual(Object.keys(s.hooks), ["SessionStart", "UserPromptSubmit"]);
  } finally {
    await h.cleanup();
  }
});

Deno.test("hooks install --recall keeps every foreign setting and hook, backs up first, and is idempotent", async () => {
  const h = await home();
  try {
    await Deno.mkdir(`${h.path}/.claude`);
    const original = JSON.stringify(FOREIGN, null, 4); // another layout
    await Deno.writeTextFile(h.file, original, { mode: 0o640 });
    await Deno.chmod(h.file, 0o640);
    const env = { HOME: h.path };
    const r = await memcli(["hooks", "install", "--recall"], { env });
    assert.equal(r.code, 0, r.err);
    const s = await readJson(h.file);
    // Foreign entries unchanged and first; Mneme's groups appended.
    assert.deepEqual(s.hooks.SessionStart[0], FOREIGN.hooks.SessionStart[0]);
    assert.deepEqual(s.hooks.UserPromptSubmit[0], FOREIGN.hooks.UserPromptSubmit[0]);
    assert.deepEqual(s.hooks.SessionStart[1].hooks[0].command, "memcli bootstrap --hook");
    assert.deepEqual(s.hooks.UserPromptSubmit[1].hooks[0].command, "memcli recall --hook");
    const { hooks: _h, ...rest } = s;
    const { hooks: _f, ...foreignRest } = FOREIGN;
    assert.deepEqual(rest, foreignRest);
    assert.deepEqual(s.hooks.PreToolUse, FOREIGN.hooks.PreToolUse);
    assert.deepEqual(Object.keys(s), Object.keys(FOREIGN), "key order kept");
    assert.equal((await Deno.stat(h.file)).mode! & 0o777, 0o640, "mode kept");
    // The backup holds the original bytes, owner-only.
    const b = await backups(h.path);
    assert.equal(b.length, 1);
    assert.match(b[0], /^settings\.json\.\d{8}T\d{6}Z$/);
    const bpath = `${h.path}/.claude/mneme-backups/${b[0]}`;
    assert.equal(await Deno.readTextFile(bpath), original);
    assert.equal((await Deno.stat(bpath)).mode! & 0o777, 0o600);
    assert.match(r.out, new RegExp(`backup: ${bpath.replaceAll(".", "\\.")}`));
    // No temporary file is left behind.
    const names = [...Deno.readDirSync(`${h.path}/.claude/mneme-backups`)].map((e) => e.name);
    assert.deepEqual(names, [b[0]]);
    // Second install: nothing.
    const text = await Deno.readTextFile(h.file);
    const again = await memcli(["hooks", "install", "--recall"], { env });
    assert.match(again.out, /nothing changed/);
    assert.equal(await Deno.readTextFile(h.file), text);
    assert.equal((await backups(h.path)).length, 1);
  } finally {
    await h.cleanup();
  }
});

Deno.test("hooks uninstall removes Mneme's entries only; --recall only the recall hook", async () => {
  const h = await home();
  try {
    await Deno.mkdir(`${h.path}/.claude`);
    await Deno.writeTextFile(h.file, JSON.stringify(FOREIGN));
    const env = { HOME: h.path };
    assert.equal((await memcli(["hooks", "install", "--recall"], { env })).code, 0);
    const onlyRecall = await memcli(["hooks", "uninstall", "--recall"], { env });
    assert.equal(onlyRecall.code, 0, onlyRecall.err);
    assert.match(onlyRecall.out, /UserPromptSubmit: removed 'memcli recall --hook'/);
    let s = await readJson(h.file);
    assert.deepEqual(s.hooks.UserPromptSubmit, FOREIGN.hooks.UserPromptSubmit);
    assert.equal(s.hooks.SessionStart.length, 2);
    const all = await memcli(["hooks", "uninstall"], { env });
    assert.equal(all.code, 0, all.err);
    s = await readJson(h.file);
    assert.deepEqual(s, FOREIGN, "back to exactly the foreign settings");
    const none = await memcli(["hooks", "uninstall"], { env });
    assert.match(none.out, /No Mneme hook .*nothing changed/);
    // The backup of the user's own file stays; those of files holding Mneme's entries went
    // with the entries (nothing of the user's is only in them).
    const left = await backups(h.path);
    assert.equal(left.length, 1, `${left}`);
    assert.deepEqual(
      JSON.parse(await Deno.readTextFile(`${h.path}/.claude/mneme-backups/${left[0]}`)),
      FOREIGN,
    );
  } finally {
    await h.cleanup();
  }
});

Deno.test("hooks install refuses invalid JSON and non-objects with a clear message, writing nothing", async () => {
  const h = await home();
  try {
    await Deno.mkdir(`${h.path}/.claude`);
    const env = { HOME: h.path };
    for (
      const [text, msg] of [
        ['{"model": "opus",}', /is not valid JSON .*nothing was changed/],
        ["[1, 2]", /does not hold a JSON object; nothing was changed/],
        ['{"hooks": []}', /"hooks" is not an object; nothing was changed/],
        ['{"hooks": {"SessionStart": {}}}', /"hooks\.SessionStart" is not an array/],
      ] as const
    ) {
      await Deno.writeTextFile(h.file, text);
      for (const args of [["install"], ["uninstall"], ["install", "--dry-run"]]) {
        const r = await memcli(["hooks", ...args], { env });
        assert.equal(r.code, 1, `${text} ${args}`);
        assert.match(r.err, msg);
        assert.ok(r.err.includes(h.file), "names the file");
        assert.equal(await Deno.readTextFile(h.file), text, "nothing written");
      }
    }
    assert.deepEqual(await backups(h.path), []);
  } finally {
    await h.cleanup();
  }
});

Deno.test("hooks install --dry-run prints the diff and writes nothing; --project-dir edits the project's settings", async () => {
  const h = await home();
  try {
    await Deno.mkdir(`${h.path}/.claude`);
    await Deno.writeTextFile(h.file, JSON.stringify({ model: "opus" }, null, 2) + "\n");
    const env = { HOME: h.path };
    const dry = await memcli(["hooks", "install", "--dry-run"], { env });
    assert.equal(dry.code, 0, dry.err);
    assert.equal(
      dry.out,
      [
        `--- ${h.file}`,
        `+++ ${h.file}`,
        "@@ -1,3 +1,16 @@",
        " {",
        '-  "model": "opus"',
        '+  "model": "opus",',
        '+  "hooks": {',
        '+    "SessionStart": [',
        "+      {",
        '+        "hooks": [',
        "+          {",
        '+            "type": "command",',
        '+            "command": "memcli bootstrap --hook",',
        '+            "timeout": 10',
        "+          }",
        "+        ]",
        "+      }",
        "+    ]",
        "+  }",
        " }",
        "",
      ].join("\n"),
    );
    assert.equal(await Deno.readTextFile(h.file), '{\n  "model": "opus"\n}\n');
    // A project's settings.
    const proj = `${h.path}/proj`;
    await Deno.mkdir(proj);
    const p = await memcli(
      [
        "hooks",
        "install",
        "--project-dir",
        proj,
        "--command",
        "/opt/bin/memcli",
        "--deadline",
        "900",
      ],
      { env },
    );
    assert.equal(p.code, 0, p.err);
    const s = await readJson(`${proj}/.claude/settings.json`);
    assert.equal(
      s.hooks.SessionStart[0].hooks[0].command,
      "/opt/bin/memcli bootstrap --hook --deadline 900",
    );
    assert.equal(
      await Deno.readTextFile(h.file),
      '{\n  "model": "opus"\n}\n',
      "user file untouched",
    );
    // Installing again with another path updates Mneme's command in place.
    const moved = await memcli(["hooks", "install", "--project-dir", proj], { env });
    assert.match(
      moved.out,
      /changed '\/opt\/bin\/memcli bootstrap --hook --deadline 900' to 'memcli bootstrap --hook'/,
    );
    const s2 = await readJson(`${proj}/.claude/settings.json`);
    assert.equal(s2.hooks.SessionStart.length, 1);
    assert.equal(s2.hooks.SessionStart[0].hooks[0].command, "memcli bootstrap --hook");
  } finally {
    await h.cleanup();
  }
});

Deno.test("hooks status: what is installed where, and whether the service answers", async () => {
  const h = await home();
  try {
    const proj = `${h.path}/proj`;
    await Deno.mkdir(proj);
    const env = { HOME: h.path, MEMORY_API_URL: `http://127.0.0.1:${freePort()}` };
    const none = await memcli(["hooks", "status"], { env, cwd: proj });
    assert.equal(none.code, 0);
    assert.match(none.out, /No Mneme hooks installed/);
    assert.match(none.out, /Memory service at http:\/\/127\.0\.0\.1:\d+: not answering/);
    await memcli(["hooks", "install", "--recall"], { env });
    const r = await memcli(["hooks", "status"], { env, cwd: proj });
    assert.match(
      r.out,
      /user settings .*settings\.json: \n {4}SessionStart: memcli bootstrap --hook\n {4}UserPromptSubmit: memcli recall --hook\n/,
    );
    assert.match(r.out, /project settings .*proj\/\.claude\/settings\.json: no file/);
    assert.doesNotMatch(r.out, /No Mneme hooks installed/);
    // Run by name, the hooks depend on Claude Code's PATH: status says so.
    assert.match(r.out, /Warning: a hook runs 'memcli' by name: .*'memcli connect claude' writes/);
    await memcli(["hooks", "install", "--recall", "--command", "/opt/bin/memcli"], { env });
    const abs = await memcli(["hooks", "status"], { env, cwd: proj });
    assert.doesNotMatch(abs.out, /by name/);
    assert.doesNotMatch(none.out, /by name/);
  } finally {
    await h.cleanup();
  }
});

Deno.test("hooks install --recall --min-confidence writes the floor into the recall hook; a bad one writes nothing", async () => {
  const h = await home();
  try {
    const env = { HOME: h.path };
    const bad = await memcli(["hooks", "install", "--recall", "--min-confidence", "1.5"], { env });
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--min-confidence: must be a number between 0 and 1/);
    await assert.rejects(Deno.stat(h.file), Deno.errors.NotFound);
    const alone = await memcli(["hooks", "install", "--min-confidence", "0.5"], { env });
    assert.equal(alone.code, 1);
    assert.match(alone.err, /apply with --recall only/);
    const r = await memcli(["hooks", "install", "--recall", "--min-confidence", "0.5"], { env });
    assert.equal(r.code, 0, r.err);
    const s = await readJson(h.file);
    assert.equal(
      s.hooks.UserPromptSubmit[0].hooks[0].command,
      "memcli recall --hook --min-confidence 0.5",
    );
    assert.equal(s.hooks.SessionStart[0].hooks[0].command, "memcli bootstrap --hook");
  } finally {
    await h.cleanup();
  }
});

Deno.test("CLAUDE_CONFIG_DIR selects the user settings folder", async () => {
  const h = await home();
  try {
    const cfg = `${h.path}/alt-claude`;
    const r = await memcli(["hooks", "install"], { env: { HOME: h.path, CLAUDE_CONFIG_DIR: cfg } });
    assert.equal(r.code, 0, r.err);
    assert.ok((await readJson(`${cfg}/settings.json`)).hooks.SessionStart);
    await assert.rejects(Deno.stat(h.file), Deno.errors.NotFound);
  } finally {
    await h.cleanup();
  }
});

Deno.test("settings edits: which commands are Mneme's, foreign hooks in a shared group, the diff", () => {
  for (
    const c of [
      "memcli bootstrap --hook",
      "/home/u/.deno/bin/memcli bootstrap --hook --deadline 900",
      "memcli recall --hook --limit 3",
      "'/opt/my tools/memcli' recall --project x --hook",
    ]
  ) assert.ok(isMnemeCommand(c), c);
  for (
    const c of [
      "memcli bootstrap",
      "echo memcli bootstrap --hook-ish",
      "mymemcli bootstrap --hook",
      42,
    ]
  ) assert.ok(!isMnemeCommand(c), String(c));
  // A user who put Mneme's hook in a group with their own: only Mneme's goes.
  const shared = {
    hooks: {
      SessionStart: [{
        matcher: "startup",
        hooks: [
          { type: "command", command: "echo mine" },
          { type: "command", command: "memcli bootstrap --hook" },
        ],
      }],
    },
  };
  const removed = removeMnemeHooks(shared);
  assert.deepEqual(removed.settings, {
    hooks: {
      SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "echo mine" }] }],
    },
  });
  assert.deepEqual(shared.hooks.SessionStart[0].hooks.length, 2, "input not modified");
  // ... and install sees it as installed.
  assert.deepEqual(addMnemeHooks(shared, { SessionStart: "memcli bootstrap --hook" }).changes, []);
  // The diff of equal texts is empty; a one-line change is one hunk.
  assert.equal(unifiedDiff("a\n", "a\n", "x", "y"), "");
  assert.equal(
    unifiedDiff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", "a", "b"),
    "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
  );
});
