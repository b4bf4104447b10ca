/**
 * The bench tasks' flags (tasks/lib/args.ts) as a user meets them, each task a real process:
 * `--help` prints the usage and exits 0; an unknown flag, a flag without its value or a stray
 * argument prints one line naming it and exits 2, with no stack trace.
 */
import assert from "node:assert/strict";
import { runTask } from "./helpers.ts";

for (
  const [file, name] of [
    ["bench_capture.ts", "bench:capture"],
    ["bench_recall.ts", "bench:recall"],
    ["bench_scope.ts", "bench:scope"],
  ]
) {
  Deno.test(`${name}: --help prints the usage, a bad flag one line naming it`, async () => {
    const help = await runTask(file, ["--help"]);
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, new RegExp(`^usage: deno task ${name} `));
    assert.equal(help.err, "");
    const bad = await runTask(file, ["--no-such-flag"]);
    assert.equal(bad.code, 2, bad.err);
    assert.equal(bad.out, "");
    assert.equal(bad.err, `${name}: Unknown option '--no-such-flag' (--help prints the usage)\n`);
  });
}

Deno.test("bench:capture: a flag without its value, and a stray argument", async () => {
  const missing = await runTask("bench_capture.ts", ["--split"]);
  assert.equal(missing.code, 2);
  assert.equal(
    missing.err,
    "bench:capture: Option '--split <value>' argument missing (--help prints the usage)\n",
  );
  const stray = await runTask("bench_capture.ts", ["dev"]);
  assert.equal(stray.code, 2);
  assert.equal(stray.err, "bench:capture: Unexpected argument 'dev' (--help prints the usage)\n");
  const scope = await runTask("bench_scope.ts", ["2000", "extra"]);
  assert.equal(scope.code, 2);
  assert.equal(scope.err, "bench:scope: Unexpected argument 'extra' (--help prints the usage)\n");
});

Deno.test("judge_probe --locomo: a flag it does not take, and a folder that is not there", async () => {
  const sets = await runTask("judge_probe.ts", ["--emit", "--locomo", "x", "--sets", "holdout7"]);
  assert.equal(sets.code, 2);
  assert.match(sets.err, /^--sets: not with --locomo /);
  const expansions = await runTask("judge_probe.ts", [
    "--score",
    "--locomo",
    "x",
    "--expansions",
    "y",
  ]);
  assert.equal(expansions.code, 2);
  assert.match(expansions.err, /^--expansions: not with --locomo /);
  const out = await Deno.makeTempDir();
  try {
    const missing = await runTask("judge_probe.ts", [
      "--emit",
      "--locomo",
      `${out}/no-such-folder`,
      "--out",
      out,
    ]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, new RegExp(`--locomo ${out}/no-such-folder: no such folder`));
    const none = await runTask("judge_probe.ts", ["--emit", "--locomo", out, "--out", out]);
    assert.equal(none.code, 2);
    assert.match(none.err, /: no LoCoMo-format \.json file in it/);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
