/**
 * Project resolution (issue 13, item 3): `--project`, then a `.mneme` file walking up, then
 * the git root's name, then the directory's name; in-process and through the real command
 * with memcli's permissions (the walk granted from the working directory, and without it).
 */
import assert from "node:assert/strict";
import { resolveProject } from "../../src/memcli/project.ts";
import { projectMarkers } from "../../src/permissions.ts";
import { freePort, tempDir } from "../helpers.ts";
import { memcliInPty, memcliProcess } from "./_util.ts";

async function git(dir: string): Promise<void> {
  const r = await new Deno.Command("git", { args: ["init", "-q", dir] }).output();
  assert.ok(r.success, "git init");
}

Deno.test("project: a repository with a subdirectory gives the root's name (also a worktree .git file)", async () => {
  const dir = await tempDir();
  try {
    const repo = `${dir.path}/my-repo`;
    await Deno.mkdir(`${repo}/src/deep`, { recursive: true });
    await git(repo);
    assert.deepEqual(await resolveProject(`${repo}/src/deep`), {
      project: "my-repo",
      source: "git",
      path: repo,
      warnings: [],
    });
    assert.deepEqual(await resolveProject(`${repo}/src`, "override"), {
      project: "override",
      source: "flag",
      warnings: [],
    });
    // A worktree or submodule has a .git file instead of a folder.
    const wt = `${dir.path}/wt-checkout`;
    await Deno.mkdir(`${wt}/lib`, { recursive: true });
    await Deno.writeTextFile(`${wt}/.git`, `gitdir: ${repo}/.git/worktrees/x\n`);
    assert.equal((await resolveProject(`${wt}/lib`)).project, "wt-checkout");
  } finally {
    await dir.cleanup();
  }
});

Deno.test("project: a .mneme above the working directory pins the name; one above the repository root does not apply", async () => {
  const dir = await tempDir();
  try {
    const repo = `${dir.path}/checkout-7`;
    await Deno.mkdir(`${repo}/packages/web/src`, { recursive: true });
    await git(repo);
    // Above the repository: ignored (the git root is found first).
    await Deno.writeTextFile(`${dir.path}/.mneme`, JSON.stringify({ project: "everything" }));
    assert.equal((await resolveProject(`${repo}/packages/web/src`)).project, "checkout-7");
    // At the repository root: applies from any folder below.
    await Deno.writeTextFile(`${repo}/.mneme`, JSON.stringify({ project: "  shop  " }));
    assert.deepEqual(await resolveProject(`${repo}/packages/web/src`), {
      project: "shop",
      source: ".mneme",
      path: `${repo}/.mneme`,
      warnings: [],
    });
    // The nearest one wins (a monorepo package).
    await Deno.writeTextFile(`${repo}/packages/web/.mneme`, '{"project": "shop-web"}\n');
    assert.equal((await resolveProject(`${repo}/packages/web/src`)).project, "shop-web");
    assert.equal((await resolveProject(`${repo}/packages`)).project, "shop");
    // An unusable .mneme is skipped with a warning naming it.
    await Deno.writeTextFile(`${repo}/packages/web/.mneme`, "project = shop-web\n");
    const bad = await resolveProject(`${repo}/packages/web/src`);
    assert.equal(bad.project, "shop");
    assert.deepEqual(bad.warnings, [
      `${repo}/packages/web/.mneme is not JSON (expected {"project": "name"}); ignored`,
    ]);
    await Deno.writeTextFile(`${repo}/packages/web/.mneme`, '{"project": ""}');
    assert.match((await resolveProject(`${repo}/packages/web/src`)).warnings[0], /empty/);
    // --project still wins.
    assert.equal((await resolveProject(`${repo}/packages/web/src`, "x")).source, "flag");
  } finally {
    await dir.cleanup();
  }
});

Deno.test("project: no repository at all gives the directory's name; the root gives none", async () => {
  const dir = await tempDir();
  try {
    const plain = `${dir.path}/plain-folder`;
    await Deno.mkdir(plain);
    const r = await resolveProject(plain);
    // The temp dir must be outside any repository (checked, so the test cannot pass by accident).
    assert.notEqual(r.source, "git", `${dir.path} is inside a git repository`);
    assert.deepEqual(r, { project: "plain-folder", source: "cwd", warnings: [] });
    assert.equal((await resolveProject("/")).source, "none");
  } finally {
    await dir.cleanup();
  }
});

Deno.test("project walk paths: .mneme and .git of each directory above, up to the root", () => {
  assert.deepEqual(projectMarkers("/a/b"), [
    "/a/.mneme",
    "/a/.git",
    "/.mneme",
    "/.git",
  ]);
});

Deno.test("bootstrap through the real command: git root and .mneme from a subdirectory, named in the stats", async () => {
  const dir = await tempDir();
  try {
    const repo = `${dir.path}/proj`;
    await Deno.mkdir(`${repo}/src/deep`, { recursive: true });
    await git(repo);
    const env = { MEMORY_API_URL: `http://127.0.0.1:${freePort()}`, DATA_DIR: `${dir.path}/d` };
    const r = await memcliProcess(["bootstrap"], { cwd: `${repo}/src/deep`, env });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^- Project: proj \(source: git\)$/m);
    await Deno.writeTextFile(`${repo}/src/.mneme`, '{"project": "pinned"}');
    const m = await memcliProcess(["bootstrap"], { cwd: `${repo}/src/deep`, env });
    assert.match(
      m.out,
      new RegExp(`^- Project: pinned \\(source: \\.mneme ${repo}/src/\\.mneme\\)$`, "m"),
    );
    // --hook resolves from the payload's cwd, not the process's.
    const h = await memcliProcess(["bootstrap", "--hook"], {
      cwd: `${repo}/src/deep`,
      env,
      stdin: JSON.stringify({ cwd: `${repo}/src/deep`, session_id: "s", source: "startup" }),
    });
    assert.equal(h.code, 0);
    assert.match(h.out, /^Mneme memory: no memory service at http:\/\/127\.0\.0\.1:\d+/);
  } finally {
    await dir.cleanup();
  }
});

Deno.test("bootstrap on a terminal without the walk granted: no permission prompt, the walk stops at memcli's scope", async () => {
  const dir = await tempDir();
  try {
    await Deno.mkdir(`${dir.path}/proj/.git`, { recursive: true });
    await Deno.mkdir(`${dir.path}/proj/src`);
    const env = { MEMORY_API_URL: `http://127.0.0.1:${freePort()}`, DATA_DIR: `${dir.path}/data` };
    // From the root, .git is inside the working directory: the git root names the project.
    const atRoot = await memcliInPty(["bootstrap"], "", {
      env,
      cwd: `${dir.path}/proj`,
      walk: false,
    });
    assert.equal(atRoot.code, 0, atRoot.output);
    assert.match(atRoot.output, /- Project: proj \(source: git\)/);
    // From a subdirectory, without the walk granted (a command installed without the
    // launcher), the parent's .git is outside memcli's read permission: Deno would ask on a
    // terminal; memcli does not look, and says where the name came from.
    const below = await memcliInPty(["bootstrap"], "", {
      env,
      cwd: `${dir.path}/proj/src`,
      walk: false,
    });
    assert.equal(below.code, 0, below.output);
    assert.doesNotMatch(below.output, /requests read access|Allow\?/);
    assert.match(below.output, /- Project: src \(source: cwd\)/);
    // With the walk granted, the same run finds the root.
    const granted = await memcliInPty(["bootstrap"], "", { env, cwd: `${dir.path}/proj/src` });
    assert.match(granted.output, /- Project: proj \(source: git\)/);
  } finally {
    await dir.cleanup();
  }
});
