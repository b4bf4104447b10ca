/** The launcher variable's flags (src/common/launcher.ts). */
import assert from "node:assert/strict";
import { LAUNCHER_PID_VAR, watchLauncher, withLauncherVar } from "../../src/common/launcher.ts";

Deno.test("withLauncherVar adds the launcher's variable to a restricted --allow-env only", () => {
  assert.deepEqual(withLauncherVar(["--allow-net=a", "--allow-env=HOME,X"]), [
    "--allow-net=a",
    `--allow-env=HOME,X,${LAUNCHER_PID_VAR}`,
  ]);
  assert.deepEqual(withLauncherVar(["--allow-env"]), ["--allow-env"]);
  assert.deepEqual(withLauncherVar([]), [`--allow-env=${LAUNCHER_PID_VAR}`]);
  const once = withLauncherVar(["--allow-env=HOME"]);
  assert.deepEqual(withLauncherVar(once), once);
});

Deno.test("watchLauncher follows only a launcher that is this process's parent", () => {
  let gone = 0;
  for (const value of [undefined, "0", "-1", "1", "abc", String(Deno.ppid + 1)]) {
    watchLauncher(() => gone++, (n) => (n === LAUNCHER_PID_VAR ? value : undefined))();
  }
  assert.equal(gone, 0);
});
