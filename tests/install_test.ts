import assert from "node:assert/strict";
import denoJson from "../deno.json" with { type: "json" };
import { VERSION } from "../src/version.ts";
import { entrypoints } from "../tasks/entrypoints.ts";
import { ROOT, tempDir } from "./helpers.ts";

Deno.test("the version comes from deno.json and nowhere else", async () => {
  assert.equal(VERSION, denoJson.version);
  assert.match(VERSION, /^\d+\.\d+\.\d+$/);
  // No source file spells the version out.
  const hits: string[] = [];
  for (const dir of ["src", "tasks", "static"]) {
    for await (const f of walkFiles(`${ROOT}${dir}`)) {
      if ((await Deno.readTextFile(f)).includes(`"${VERSION}"`)) hits.push(f);
    }
  }
  assert.deepEqual(hits, []);
});

async function* walkFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) yield* walkFiles(p);
    else yield p;
  }
}

Deno.test("install and compile take each program's permissions from its task", () => {
  const eps = entrypoints();
  assert.deepEqual(eps.map((e) => e.name), [
    "mneme-admin",
    "mneme-mcp",
    "memcli",
    "msgcli",
    "msgcli-serve",
  ]);
  for (const e of eps) {
    assert.ok(!e.flags.includes("-A") && !e.flags.includes("--allow-all"), e.name);
    assert.match(e.entry, /^src\/bin\/\w+\.ts$/);
  }
});

Deno.test("deno task install installs working programs (offline, from the cache)", async () => {
  const dir = await tempDir("mneme-install-");
  try {
    const inst = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}tasks/install.ts`, "--root", dir.path],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(inst.code, 0, new TextDecoder().decode(inst.stderr));
    for (const [bin, expected] of [["memcli", "memcli"], ["msgcli", "msgcli"]]) {
      const out = await new Deno.Command(`${dir.path}/bin/${bin}`, {
        args: ["version"],
        cwd: dir.path,
        env: { PATH: `${Deno.execPath().replace(/\/[^/]+$/, "")}:${Deno.env.get("PATH")}` },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.equal(new TextDecoder().decode(out.stdout).trim(), `${expected} v${VERSION}`);
    }
  } finally {
    await dir.cleanup();
  }
});
