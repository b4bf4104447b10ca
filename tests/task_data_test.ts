/**
 * The tasks' LoCoMo `--data` default (tasks/lib/args.ts `LOCOMO_DEV`): `../shared/data/locomo-dev`
 * from the repository's root, the same whatever the working directory, and the one default of
 * every task (none resolves a relative path against the current directory).
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { LOCOMO_DEV } from "../tasks/lib/args.ts";
import { ROOT } from "./helpers.ts";

Deno.test("LOCOMO_DEV is found from the repository's root, from any working directory", async () => {
  const expected = join(dirname(ROOT.replace(/\/$/, "")), "shared/data/locomo-dev");
  assert.equal(LOCOMO_DEV, expected);
  const dir = await Deno.makeTempDir();
  try {
    const res = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { LOCOMO_DEV } from "${new URL("../tasks/lib/args.ts", import.meta.url).href}";` +
        "console.log(LOCOMO_DEV);",
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(res.stdout), `${expected}\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("no task defaults a path to ../shared against the working directory", async () => {
  for await (const e of Deno.readDir(`${ROOT}tasks`)) {
    if (!e.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(`${ROOT}tasks/${e.name}`);
    assert.doesNotMatch(text, /default: ["'`]\.\.\/shared/, `tasks/${e.name}`);
  }
});
